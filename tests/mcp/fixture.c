/*
 * fixture.c - the conformance fixture: an MCP server made of the same mcp/
 * layers as `mcpidx serve`, offering the tools, resources and prompts the
 * official conformance suite calls (test_simple_text, test://static-text,
 * test_simple_prompt, ...), so every scenario of both protocol eras
 * exercises our protocol code.  Nothing here is mcpidx's own behaviour.
 *
 *	build/mcp-fixture --http 127.0.0.1:0     (or stdio without --http)
 */
#include "../../mcp/area.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PNG "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
#define WAV "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
#define EMPTY "{\"type\":\"object\",\"properties\":{}}"
#define STATE_KEY "fixture-state-v1:"

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* A content-only answer: blocks as given, no text block of ours. */
static int blocks(mi_mcp_result *r, const char *json)
{
	r->no_text = true;
	r->no_struct = true;
	mi_buf_adds(&r->blocks, json);
	return 0;
}

static int text(mi_mcp_result *r, const char *s)
{
	char *q = json_dumps(json_string(s), JSON_ENCODE_ANY);
	mi_buf b = {0};
	mi_buf_addf(&b, "{\"type\":\"text\",\"text\":%s}", q ? q : "\"\"");
	free(q);
	blocks(r, b.buf);
	mi_buf_release(&b);
	return 0;
}

/* ---- content tools --------------------------------------------------------------- */

static int t_simple_text(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	return text(r, "This is a simple text response for testing.");
}

static int t_image(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	return blocks(r, "{\"type\":\"image\",\"data\":\"" PNG "\",\"mimeType\":\"image/png\"}");
}

static int t_audio(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	return blocks(r, "{\"type\":\"audio\",\"data\":\"" WAV "\",\"mimeType\":\"audio/wav\"}");
}

static int t_embedded(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	return blocks(r, "{\"type\":\"resource\",\"resource\":{\"uri\":"
		      "\"test://embedded-resource\",\"mimeType\":\"text/plain\",\"text\":"
		      "\"This is an embedded resource content.\"}}");
}

static int t_mixed(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	return blocks(r, "{\"type\":\"text\",\"text\":\"Multiple content types test:\"},"
		      "{\"type\":\"image\",\"data\":\"" PNG "\",\"mimeType\":\"image/png\"},"
		      "{\"type\":\"resource\",\"resource\":{\"uri\":"
		      "\"test://mixed-content-resource\",\"mimeType\":\"application/json\","
		      "\"text\":\"{\\\"test\\\":\\\"data\\\",\\\"value\\\":123}\"}}");
}

static int t_logging(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	c->log(c, MI_LOG_INFO, "Tool execution started");
	sleep_ms(50);
	c->log(c, MI_LOG_INFO, "Tool processing data");
	sleep_ms(50);
	c->log(c, MI_LOG_INFO, "Tool execution completed");
	return text(r, "Tool with logging executed successfully");
}

static int t_progress(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	c->progress(c, 0, 100, "Completed step 0 of 100");
	sleep_ms(50);
	c->progress(c, 50, 100, "Completed step 50 of 100");
	sleep_ms(50);
	c->progress(c, 100, 100, "Completed step 100 of 100");
	return text(r, "Progress reported");
}

static int t_error(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	return mi_mcp_result_error(r, "This tool intentionally returns an error for testing");
}

/* ---- asking the client (2025: a request on the stream) ------------------------------- */

static int ask_text(mi_mcp_ctx *c, mi_mcp_result *r, const char *method,
		    const char *params, const char *prefix)
{
	mi_buf ans = {0}, t = {0};
	int rc = c->ask(c, method, params, 30000, &ans);
	if (rc) {
		mi_buf_addf(&t, "%s not supported or error: %s", method, mi_buf_str(&ans));
	} else {
		json_t *j = json_loads(mi_buf_str(&ans), 0, NULL);
		if (!strcmp(method, "sampling/createMessage")) {
			json_t *ct = json_object_get(j, "content");
			mi_buf_addf(&t, "LLM response: %s",
				    mi_mcp_arg_str(ct, "text", "No response"));
		} else {
			char *content = json_dumps(json_object_get(j, "content") ?
						   json_object_get(j, "content") :
						   json_object(), JSON_COMPACT);
			mi_buf_addf(&t, "%saction=%s, content=%s", prefix,
				    mi_mcp_arg_str(j, "action", "?"), content ? content : "{}");
			free(content);
		}
		json_decref(j);
	}
	text(r, t.buf);
	mi_buf_release(&ans);
	mi_buf_release(&t);
	return 0;
}

static int t_sampling(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	mi_buf p = {0};
	const char *prompt = mi_mcp_arg_str(a, "prompt", "");
	int rc;
	mi_buf_adds(&p, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
		    "\"text\":");
	mi_buf_add_json_str(&p, prompt, strlen(prompt));
	mi_buf_adds(&p, "}}],\"maxTokens\":100}");
	rc = ask_text(c, r, "sampling/createMessage", p.buf, "");
	mi_buf_release(&p);
	return rc;
}

static int t_elicitation(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	mi_buf p = {0};
	const char *msg = mi_mcp_arg_str(a, "message", "");
	int rc;
	mi_buf_adds(&p, "{\"mode\":\"form\",\"message\":");
	mi_buf_add_json_str(&p, msg, strlen(msg));
	mi_buf_adds(&p, ",\"requestedSchema\":{\"type\":\"object\",\"properties\":{"
		    "\"response\":{\"type\":\"string\",\"description\":\"User's response\"}},"
		    "\"required\":[\"response\"]}}");
	rc = ask_text(c, r, "elicitation/create", p.buf, "User response: ");
	mi_buf_release(&p);
	return rc;
}

static int t_sep1034(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	return ask_text(c, r, "elicitation/create",
		"{\"mode\":\"form\",\"message\":\"Please review and update the form fields "
		"with defaults\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{"
		"\"name\":{\"type\":\"string\",\"description\":\"User name\",\"default\":"
		"\"John Doe\"},\"age\":{\"type\":\"integer\",\"description\":\"User age\","
		"\"default\":30},\"score\":{\"type\":\"number\",\"description\":\"User score\","
		"\"default\":95.5},\"status\":{\"type\":\"string\",\"description\":\"User "
		"status\",\"enum\":[\"active\",\"inactive\",\"pending\"],\"default\":\"active\"},"
		"\"verified\":{\"type\":\"boolean\",\"description\":\"Verification status\","
		"\"default\":true}},\"required\":[]}}", "Elicitation completed: ");
}

static int t_sep1330(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	return ask_text(c, r, "elicitation/create",
		"{\"mode\":\"form\",\"message\":\"Please select options from the enum "
		"fields\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{"
		"\"untitledSingle\":{\"type\":\"string\",\"description\":\"Select one "
		"option\",\"enum\":[\"option1\",\"option2\",\"option3\"]},"
		"\"titledSingle\":{\"type\":\"string\",\"description\":\"Select one option "
		"with titles\",\"oneOf\":[{\"const\":\"value1\",\"title\":\"First Option\"},"
		"{\"const\":\"value2\",\"title\":\"Second Option\"},{\"const\":\"value3\","
		"\"title\":\"Third Option\"}]},"
		"\"legacyEnum\":{\"type\":\"string\",\"description\":\"Select one option "
		"(legacy)\",\"enum\":[\"opt1\",\"opt2\",\"opt3\"],\"enumNames\":[\"Option "
		"One\",\"Option Two\",\"Option Three\"]},"
		"\"untitledMulti\":{\"type\":\"array\",\"description\":\"Select multiple "
		"options\",\"minItems\":1,\"maxItems\":3,\"items\":{\"type\":\"string\","
		"\"enum\":[\"option1\",\"option2\",\"option3\"]}},"
		"\"titledMulti\":{\"type\":\"array\",\"description\":\"Select multiple "
		"options with titles\",\"minItems\":1,\"maxItems\":3,\"items\":{\"anyOf\":["
		"{\"const\":\"value1\",\"title\":\"First Choice\"},{\"const\":\"value2\","
		"\"title\":\"Second Choice\"},{\"const\":\"value3\",\"title\":\"Third "
		"Choice\"}]}}},\"required\":[]}}", "Elicitation completed: ");
}

static int t_json_schema(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	char *s = json_dumps(a ? a : json_object(), JSON_COMPACT);
	mi_buf t = {0};
	mi_buf_addf(&t, "JSON Schema 2020-12 tool called with: %s", s ? s : "{}");
	free(s);
	text(r, t.buf);
	mi_buf_release(&t);
	return 0;
}

/* ---- 2026-07-28 diagnostics ------------------------------------------------------------ */

static int t_missing_cap(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	/* Needs sampling: without it the dispatcher's -32021 answers. */
	return text(r, "the client declared sampling");
}

static int t_trigger_tool(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	c->env->changed(c->env, MI_CHANGE_TOOLS, NULL);
	return text(r, "tool list changed");
}

static int t_trigger_prompt(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	c->env->changed(c->env, MI_CHANGE_PROMPTS, NULL);
	return text(r, "prompt list changed");
}

static int t_custom_header(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	mi_buf t = {0};
	mi_buf_addf(&t, "region=%s", mi_mcp_arg_str(a, "region", ""));
	text(r, t.buf);
	mi_buf_release(&t);
	return 0;
}

/* ---- multi round-trip requests (2026-07-28) ----------------------------------------------- */

#define ELICIT(msg, prop, type) "{\"method\":\"elicitation/create\",\"params\":{" \
	"\"message\":\"" msg "\",\"requestedSchema\":{\"type\":\"object\",\"properties\":" \
	"{\"" prop "\":{\"type\":\"" type "\"}},\"required\":[\"" prop "\"]}}}"
#define SAMPLE(msg, n) "{\"method\":\"sampling/createMessage\",\"params\":{\"messages\":" \
	"[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"" msg "\"}}]," \
	"\"maxTokens\":" #n "}}"
#define ROOTS "{\"method\":\"roots/list\",\"params\":{}}"

/* A requestState the server can check: "fixture-state-v1:" NAME ":" STEP,
 * then a checksum of those bytes. */
static void put_state(mi_buf *b, const char *name, int step)
{
	mi_buf s = {0};
	uint8_t h[16];
	char hex[33];
	mi_buf_addf(&s, STATE_KEY "%s:%d", name, step);
	mi_hash128(s.buf, s.len, h);
	mi_hash_hex(h, hex);
	mi_buf_addf(b, ",\"requestState\":\"%s:%.16s\"", s.buf, hex);
	mi_buf_release(&s);
}

/* The step a requestState names for this tool, -1 when absent, -2 when it
 * was tampered with. */
static int get_state(mi_mcp_ctx *c, const char *name)
{
	const char *st = c->request_state;
	mi_buf want = {0};
	int step, rc = -2;
	if (!st)
		return -1;
	for (step = 0; step < 8 && rc == -2; step++) {
		mi_buf_reset(&want);
		put_state(&want, name, step);
		/* want is ,"requestState":"VALUE" */
		if (want.len > 18 && strncmp(want.buf + 17, st, want.len - 18) == 0 &&
		    strlen(st) == want.len - 18)
			rc = step;
	}
	mi_buf_release(&want);
	return rc;
}

static bool has_input(mi_mcp_ctx *c, const char *key)
{
	json_t *v = c->input_responses ? json_object_get(c->input_responses, key) : NULL;
	return json_is_object(v);
}

static int need(mi_mcp_result *r, const char *requests, const char *state_name,
		int step)
{
	mi_buf_addf(&r->input_required, "\"inputRequests\":{%s}", requests);
	if (state_name)
		put_state(&r->input_required, state_name, step);
	return 0;
}

static int t_mrtr_elicit(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	json_t *v;
	if (c->input_responses && !json_is_object(c->input_responses))
		return mi_mcp_result_error(r, "inputResponses must be an object");
	if (!has_input(c, "user_name"))
		return need(r, "\"user_name\":" ELICIT("What is your name?", "name", "string"),
			    NULL, 0);
	v = json_object_get(json_object_get(json_object_get(c->input_responses,
		"user_name"), "content"), "name");
	{
		mi_buf t = {0};
		mi_buf_addf(&t, "Hello, %s!", json_is_string(v) ? json_string_value(v) : "friend");
		text(r, t.buf);
		mi_buf_release(&t);
	}
	return 0;
}

static int t_mrtr_sampling(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	if (!has_input(c, "capital_question"))
		return need(r, "\"capital_question\":" SAMPLE("What is the capital of France?", 100),
			    NULL, 0);
	return text(r, "The model answered.");
}

static int t_mrtr_roots(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	json_t *roots;
	mi_buf t = {0};
	size_t i;
	json_t *x;
	if (!has_input(c, "client_roots"))
		return need(r, "\"client_roots\":" ROOTS, NULL, 0);
	roots = json_object_get(json_object_get(c->input_responses, "client_roots"), "roots");
	mi_buf_adds(&t, "Roots:");
	json_array_foreach(roots, i, x)
		mi_buf_addf(&t, " %s", mi_mcp_arg_str(x, "uri", ""));
	text(r, t.buf);
	mi_buf_release(&t);
	return 0;
}

static int t_mrtr_state(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	int st = get_state(c, "request_state");
	if (st == -2)
		return -32602;
	if (st < 0 || !has_input(c, "confirm"))
		return need(r, "\"confirm\":" ELICIT("Please confirm", "ok", "boolean"),
			    "request_state", 1);
	return text(r, "state-ok: confirmed");
}

static int t_mrtr_multi(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	int st = get_state(c, "multiple_inputs");
	if (st == -2)
		return -32602;
	if (st < 0 || !has_input(c, "user_name") || !has_input(c, "greeting") ||
	    !has_input(c, "client_roots"))
		return need(r, "\"user_name\":" ELICIT("What is your name?", "name", "string")
			    ",\"greeting\":" SAMPLE("Generate a greeting", 50)
			    ",\"client_roots\":" ROOTS, "multiple_inputs", 1);
	return text(r, "All three inputs received.");
}

static int t_mrtr_rounds(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	int st = get_state(c, "multi_round");
	if (st == -2)
		return -32602;
	if (st == 1 && has_input(c, "step1"))
		return need(r, "\"step2\":" ELICIT("Step 2: What is your favorite color?",
						   "color", "string"), "multi_round", 2);
	if (st == 2 && has_input(c, "step2"))
		return text(r, "Both steps done.");
	return need(r, "\"step1\":" ELICIT("Step 1: What is your name?", "name", "string"),
		    "multi_round", 1);
}

static int t_mrtr_tampered(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	int st = get_state(c, "tampered");
	if (st == -2)
		return mi_mcp_result_error(r, "requestState failed its integrity check") ?
		       -32602 : -32602;
	if (st < 0)
		return need(r, "\"confirm\":" ELICIT("Please confirm", "ok", "boolean"),
			    "tampered", 1);
	return text(r, "state verified");
}

/* Asks only for what the client declared it can answer. */
static int t_mrtr_caps(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	mi_buf req = {0};
	int rc;
	if (c->input_responses)
		return text(r, "thanks");
	if (mi_mcp_ctx_has_cap(c, "sampling"))
		mi_buf_adds(&req, "\"question\":" SAMPLE("What is the capital of France?", 100));
	if (mi_mcp_ctx_has_cap(c, "elicitation"))
		mi_buf_addf(&req, "%s\"user_name\":" ELICIT("What is your name?", "name",
			    "string"), req.len ? "," : "");
	if (mi_mcp_ctx_has_cap(c, "roots"))
		mi_buf_addf(&req, "%s\"client_roots\":" ROOTS, req.len ? "," : "");
	if (!req.len)
		rc = text(r, "the client can answer nothing");
	else
		rc = need(r, req.buf, NULL, 0);
	mi_buf_release(&req);
	return rc;
}

static int t_streaming_elicitation(mi_mcp_ctx *c, mi_query *q, json_t *a,
				   mi_mcp_result *r)
{
	c->progress(c, 1, 2, "asking");
	return t_mrtr_elicit(c, q, a, r);
}

/* ---- the tool table -------------------------------------------------------------------------- */

#define T(nm, desc, f) { .name = nm, .description = desc, .input_schema = EMPTY, \
	.flags = MI_TOOL_READ_ONLY, .fn = f }

static const mi_mcp_tool fixture_tools[] = {
	T("test_simple_text", "Tests simple text content response", t_simple_text),
	T("test_image_content", "Tests image content response", t_image),
	T("test_audio_content", "Tests audio content response", t_audio),
	T("test_embedded_resource", "Tests embedded resource content response", t_embedded),
	T("test_multiple_content_types", "Tests response with multiple content types",
	  t_mixed),
	T("test_tool_with_logging", "Tests tool that emits log messages", t_logging),
	T("test_logging_tool", "Emits log messages (only when a level was asked for)",
	  t_logging),
	T("test_tool_with_progress", "Tests tool that reports progress", t_progress),
	T("test_error_handling", "Tests error response handling", t_error),
	{ .name = "test_sampling", .description = "Tests server-initiated sampling",
	  .input_schema = "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":"
	  "\"string\",\"description\":\"The prompt to send to the LLM\"}},\"required\":"
	  "[\"prompt\"]}", .flags = MI_TOOL_READ_ONLY | MI_TOOL_SLOW, .fn = t_sampling },
	{ .name = "test_elicitation", .description = "Tests server-initiated elicitation",
	  .input_schema = "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":"
	  "\"string\",\"description\":\"The message to show the user\"}},\"required\":"
	  "[\"message\"]}", .flags = MI_TOOL_READ_ONLY | MI_TOOL_SLOW, .fn = t_elicitation },
	{ .name = "test_elicitation_sep1034_defaults",
	  .description = "Tests elicitation with defaults", .input_schema = EMPTY,
	  .flags = MI_TOOL_READ_ONLY | MI_TOOL_SLOW, .fn = t_sep1034 },
	{ .name = "test_elicitation_sep1330_enums",
	  .description = "Tests elicitation with enum schemas", .input_schema = EMPTY,
	  .flags = MI_TOOL_READ_ONLY | MI_TOOL_SLOW, .fn = t_sep1330 },
	{ .name = "json_schema_2020_12_tool", .description =
	  "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
	  .input_schema = "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
	  "\"type\":\"object\",\"$defs\":{\"address\":{\"$anchor\":\"addressDef\","
	  "\"type\":\"object\",\"properties\":{\"street\":{\"type\":\"string\"},"
	  "\"city\":{\"type\":\"string\"}}}},\"properties\":{\"name\":{\"type\":"
	  "\"string\"},\"address\":{\"$ref\":\"#/$defs/address\"},\"contactMethod\":"
	  "{\"type\":\"string\",\"enum\":[\"phone\",\"email\"]},\"phone\":{\"type\":"
	  "\"string\"},\"email\":{\"type\":\"string\"}},\"allOf\":[{\"anyOf\":["
	  "{\"required\":[\"phone\"]},{\"required\":[\"email\"]}]}],\"if\":{"
	  "\"properties\":{\"contactMethod\":{\"const\":\"phone\"}},\"required\":"
	  "[\"contactMethod\"]},\"then\":{\"required\":[\"phone\"]},\"else\":{"
	  "\"required\":[\"email\"]},\"additionalProperties\":false}",
	  .flags = MI_TOOL_READ_ONLY, .fn = t_json_schema },
	{ .name = "test_missing_capability",
	  .description = "Needs the client's sampling capability", .input_schema = EMPTY,
	  .flags = MI_TOOL_READ_ONLY, .fn = t_missing_cap, .requires = "sampling" },
	T("test_streaming_elicitation", "Asks for input on its response stream",
	  t_streaming_elicitation),
	T("test_trigger_tool_change", "Changes the tool list", t_trigger_tool),
	T("test_trigger_prompt_change", "Changes the prompt list", t_trigger_prompt),
	{ .name = "test_custom_header",
	  .description = "Mirrors its region argument into a header",
	  .input_schema = "{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\","
	  "\"x-mcp-header\":\"Region\"},\"count\":{\"type\":\"integer\",\"x-mcp-header\":"
	  "\"Count\"}}}", .flags = MI_TOOL_READ_ONLY, .fn = t_custom_header },
	T("test_input_required_result_elicitation", "Asks for a name", t_mrtr_elicit),
	T("test_input_required_result_sampling", "Asks the model", t_mrtr_sampling),
	T("test_input_required_result_list_roots", "Asks for roots", t_mrtr_roots),
	T("test_input_required_result_request_state", "Round trips requestState",
	  t_mrtr_state),
	T("test_input_required_result_multiple_inputs", "Asks three things at once",
	  t_mrtr_multi),
	T("test_input_required_result_multi_round", "Asks in two rounds", t_mrtr_rounds),
	T("test_input_required_result_tampered_state", "Checks its requestState",
	  t_mrtr_tampered),
	T("test_input_required_result_capabilities", "Asks only what the client can answer",
	  t_mrtr_caps),
};

static const mi_mcp_tool_group fixture_group = {
	.name = "fixture", .tools = fixture_tools,
	.n = sizeof fixture_tools / sizeof *fixture_tools,
};

static const mi_mcp_tool_group *const fixture_groups[] = { &fixture_group, NULL };

/* ---- resources ------------------------------------------------------------------------------ */

static int static_list(mi_mcp_ctx *c, const char *cursor, size_t limit, mi_buf *out,
		       mi_buf *next)
{
	mi_buf_adds(out,
		"{\"uri\":\"test://static-text\",\"name\":\"static-text\",\"title\":"
		"\"Static Text Resource\",\"description\":\"A static text resource for "
		"testing\",\"mimeType\":\"text/plain\"},"
		"{\"uri\":\"test://static-binary\",\"name\":\"static-binary\",\"title\":"
		"\"Static Binary Resource\",\"description\":\"A static binary resource "
		"(image) for testing\",\"mimeType\":\"image/png\"},"
		"{\"uri\":\"test://watched-resource\",\"name\":\"watched-resource\","
		"\"title\":\"Watched Resource\",\"description\":\"A resource that can "
		"change\",\"mimeType\":\"text/plain\"}");
	return 0;
}

static int static_read(mi_mcp_ctx *c, const char *uri, mi_buf *out, mi_buf *err)
{
	if (!strcmp(uri, "test://static-text"))
		mi_buf_adds(out, "{\"uri\":\"test://static-text\",\"mimeType\":\"text/plain\","
			    "\"text\":\"This is the content of the static text resource.\"}");
	else if (!strcmp(uri, "test://static-binary"))
		mi_buf_adds(out, "{\"uri\":\"test://static-binary\",\"mimeType\":\"image/png\","
			    "\"blob\":\"" PNG "\"}");
	else if (!strcmp(uri, "test://watched-resource"))
		mi_buf_adds(out, "{\"uri\":\"test://watched-resource\",\"mimeType\":"
			    "\"text/plain\",\"text\":\"Watched resource content\"}");
	else
		return MI_ERR_NOTFOUND;
	return 0;
}

static int template_read(mi_mcp_ctx *c, const char *uri, mi_buf *out, mi_buf *err)
{
	const char *id = uri + strlen("test://template/"), *end = strstr(id, "/data");
	mi_buf t = {0};
	if (!end || end[5] || end == id)
		return MI_ERR_NOTFOUND;
	mi_buf_addf(&t, "{\"id\":\"%.*s\",\"templateTest\":true,\"data\":\"Data for ID: "
		    "%.*s\"}", (int)(end - id), id, (int)(end - id), id);
	mi_mcp_resource_contents(out, uri, "application/json", t.buf, t.len);
	mi_buf_release(&t);
	return 0;
}

static int template_complete(mi_mcp_ctx *c, const char *var, const char *prefix,
			     mi_buf *values, size_t *total)
{
	*total = 0;
	return 0;
}

static const mi_mcp_resource_kind static_kind = {
	"static", "Static resources", "test://static-text", "The fixture's resources",
	NULL, static_list, static_read, NULL,
};
static const mi_mcp_resource_kind static_kind2 = {
	"static-binary", NULL, "test://static-binary", "A PNG", "image/png", NULL,
	static_read, NULL,
};
static const mi_mcp_resource_kind static_kind3 = {
	"watched", NULL, "test://watched-resource", "A resource that can change",
	"text/plain", NULL, static_read, NULL,
};
static const mi_mcp_resource_kind template_kind = {
	"template", "Resource Template", "test://template/{id}/data",
	"A resource template with parameter substitution", "application/json", NULL,
	template_read, template_complete,
};

static const mi_mcp_resource_kind *const fixture_resources[] = {
	&static_kind, &static_kind2, &static_kind3, &template_kind, NULL,
};

/* ---- prompts -------------------------------------------------------------------------------- */

static int p_simple(mi_mcp_ctx *c, json_t *a, mi_buf *out, mi_buf *err)
{
	mi_buf_adds(out, "\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
		    "\"text\":\"This is a simple prompt for testing.\"}}]");
	return 0;
}

static int p_args(mi_mcp_ctx *c, json_t *a, mi_buf *out, mi_buf *err)
{
	mi_buf t = {0};
	mi_buf_addf(&t, "Prompt with arguments: arg1='%s', arg2='%s'",
		    mi_mcp_arg_str(a, "arg1", ""), mi_mcp_arg_str(a, "arg2", ""));
	mi_buf_adds(out, "\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
		    "\"text\":");
	mi_buf_add_json_str(out, t.buf, t.len);
	mi_buf_adds(out, "}}]");
	mi_buf_release(&t);
	return 0;
}

static int p_embedded(mi_mcp_ctx *c, json_t *a, mi_buf *out, mi_buf *err)
{
	const char *uri = mi_mcp_arg_str(a, "resourceUri", "test://example");
	mi_buf_adds(out, "\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"resource\","
		    "\"resource\":{\"uri\":");
	mi_buf_add_json_str(out, uri, strlen(uri));
	mi_buf_adds(out, ",\"mimeType\":\"text/plain\",\"text\":\"Embedded resource content "
		    "for testing.\"}}},{\"role\":\"user\",\"content\":{\"type\":\"text\","
		    "\"text\":\"Please process the embedded resource above.\"}}]");
	return 0;
}

static int p_image(mi_mcp_ctx *c, json_t *a, mi_buf *out, mi_buf *err)
{
	mi_buf_adds(out, "\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"image\","
		    "\"data\":\"" PNG "\",\"mimeType\":\"image/png\"}},{\"role\":\"user\","
		    "\"content\":{\"type\":\"text\",\"text\":\"Please analyze the image "
		    "above.\"}}]");
	return 0;
}

static int p_mrtr(mi_mcp_ctx *c, json_t *a, mi_buf *out, mi_buf *err)
{
	json_t *v = c->input_responses ?
		    json_object_get(c->input_responses, "user_context") : NULL;
	if (!json_is_object(v)) {
		mi_buf_adds(out, "\"resultType\":\"input_required\",\"inputRequests\":{"
			    "\"user_context\":" ELICIT("What context should the prompt use?",
							"context", "string") "}");
		return 0;
	}
	mi_buf_adds(out, "\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
		    "\"text\":\"A prompt with the context you gave.\"}}]");
	return 0;
}

static int p_complete(mi_mcp_ctx *c, const char *arg, const char *prefix,
		      mi_buf *values, size_t *total)
{
	static const char *const words[] = {"paris", "park", "parse", NULL};
	size_t i;
	*total = 0;
	for (i = 0; words[i]; i++)
		if (!strncmp(words[i], prefix, strlen(prefix))) {
			if ((*total)++)
				mi_buf_addc(values, ',');
			mi_buf_addf(values, "\"%s\"", words[i]);
		}
	return 0;
}

static const mi_mcp_prompt pr_simple = {
	"test_simple_prompt", "Simple Test Prompt", "A simple prompt without arguments",
	NULL, p_simple, NULL,
};
static const mi_mcp_prompt pr_args = {
	"test_prompt_with_arguments", "Prompt With Arguments",
	"A prompt with required arguments",
	"[{\"name\":\"arg1\",\"description\":\"First test argument\",\"required\":true},"
	"{\"name\":\"arg2\",\"description\":\"Second test argument\",\"required\":true}]",
	p_args, p_complete,
};
static const mi_mcp_prompt pr_embedded = {
	"test_prompt_with_embedded_resource", "Prompt With Embedded Resource",
	"A prompt that includes an embedded resource",
	"[{\"name\":\"resourceUri\",\"description\":\"URI of the resource to embed\","
	"\"required\":true}]", p_embedded, NULL,
};
static const mi_mcp_prompt pr_image = {
	"test_prompt_with_image", "Prompt With Image", "A prompt that includes image content",
	NULL, p_image, NULL,
};
static const mi_mcp_prompt pr_mrtr = {
	"test_input_required_result_prompt", NULL, "Asks for context first", NULL,
	p_mrtr, NULL,
};

static const mi_mcp_prompt *const fixture_prompts[] = {
	&pr_simple, &pr_args, &pr_embedded, &pr_image, &pr_mrtr, NULL,
};

static const mi_mcp_spec fixture_spec = {
	.name = "mcp-conformance-test-server",
	.title = "mcpidx conformance fixture",
	.version = "1.0.0",
	.description = "The conformance suite's fixture tools over mcpidx's MCP layers",
	.groups = fixture_groups,
	.resources = fixture_resources,
	.prompts = fixture_prompts,
	.tools_change = true,
	.prompts_change = true,
};

int main(int argc, char **argv)
{
	mi_mcp_opts o;
	memset(&o, 0, sizeof o);
	o.index = "/nonexistent";
	o.log_level = "warning";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--http") && i + 1 < argc)
			o.http = argv[++i];
		else if (!strcmp(argv[i], "--log") && i + 1 < argc)
			o.log_file = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--http ADDR:PORT] [--log FILE]\n", argv[0]);
			return 2;
		}
	}
	return mi_mcp_serve_spec(&o, &fixture_spec) ? 1 : 0;
}
