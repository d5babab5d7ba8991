/*
 * test_mcp_schema.c - the MCP tool table as a client sees it: the tool
 * selftest passes, tools/list is one JSON object, and every tool has a
 * name, a title and a description, an inputSchema and an outputSchema that
 * are object schemas whose required names are declared properties, and a
 * description on every input property.
 */
#include "test.h"
#include "../../mcp/mcp_int.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* mcpidx's tool registry and an environment to list it in. */
static mi_mcp_tools *reg(void)
{
	static mi_mcp_tools *ts;
	if (!ts)
		ts = mi_mcp_tools_new(&mi_mcp_spec_mcpidx);
	return ts;
}

static mi_mcp_env no_env;        /* an environment over an empty folder */
static mi_mcp_opts no_env_opts;
static char no_env_dir[] = "/tmp/mi-schema-env-XXXXXX";

static void env_setup(void)
{
	if (no_env.index_path)
		return;
	CHECK(mkdtemp(no_env_dir) != NULL);
	no_env_opts.index = no_env_dir;
	no_env_opts.log_level = "off";
	CHECK_INT(mi_mcp_env_init(&no_env, &no_env_opts), 0);
}

/* The tools/list result, parsed. */
static json_t *tools_list(void)
{
	mi_buf b = {0};
	json_error_t e;
	json_t *j;
	env_setup();
	mi_buf_addc(&b, '{');
	mi_mcp_tools_list(reg(), &no_env, MI_MCP_LEGACY, &b);
	mi_buf_addc(&b, '}');
	j = json_loadb(mi_buf_str(&b), b.len, JSON_REJECT_DUPLICATES, &e);
	if (!j)
		printf("tools/list: %s at line %d column %d\n", e.text, e.line, e.column);
	mi_buf_release(&b);
	return j;
}

static bool nonempty_str(json_t *v)
{
	return json_is_string(v) && json_string_length(v) > 0;
}

TEST(selftest)
{
	mi_buf err = {0};
	CHECK_INT(mi_mcp_tools_selftest(reg(), &err), 0);
	CHECK_STR(mi_buf_str(&err), "");
	mi_buf_release(&err);
}

TEST(list_shape)
{
	json_t *j = tools_list();
	json_t *tools = json_object_get(j, "tools");
	CHECK(json_is_object(j));
	CHECK(json_is_array(tools));
	/* SPEC: the nine tools, in this order, then the change views. */
	static const char *const want[] = {
		"read_file", "expand_at", "goto_definition", "find_references",
		"code_research", "search_code", "search_docs", "index_status",
		"index_codebase", "context_pack", "changed_symbols",
	};
	CHECK_INT(json_array_size(tools), sizeof want / sizeof *want);
	for (size_t i = 0; i < json_array_size(tools) && i < sizeof want / sizeof *want; i++)
		CHECK_STR(json_string_value(json_object_get(json_array_get(tools, i),
							    "name")), want[i]);
	json_decref(j);
}

/* Every client pays for tools/list on each session: the whole list (on an
 * index without a tool catalog or compile targets) stays within 2,500
 * tokens (o200k, which the estimate follows within a few percent;
 * make bench-mcp measures o200k itself). */
TEST(list_token_budget)
{
	mi_buf b = {0};
	size_t est;
	env_setup();
	mi_buf_addc(&b, '{');
	mi_mcp_tools_list(reg(), &no_env, MI_MCP_LEGACY, &b);
	mi_buf_addc(&b, '}');
	est = mi_token_estimate(mi_buf_str(&b), b.len);
	printf("tools/list: %zu bytes, about %zu tokens\n", b.len, est);
	if (est > 2500)
		TEST_FAIL_("tools/list costs about %zu tokens; keep it within 2500 "
			   "(terse descriptions, no per-row field lists)", est);
	mi_buf_release(&b);
}

/* Checks one schema object; what names it in messages. */
static void check_schema(const char *tool, const char *what, json_t *sch,
			 bool input)
{
	json_t *props = json_object_get(sch, "properties");
	json_t *req = json_object_get(sch, "required");
	json_t *v;
	const char *key;
	size_t i;

	if (!json_is_object(sch)) {
		TEST_FAIL_("%s: %s is not an object", tool, what);
		return;
	}
	if (!json_is_string(json_object_get(sch, "type")) ||
	    strcmp(json_string_value(json_object_get(sch, "type")), "object"))
		TEST_FAIL_("%s: %s.type must be \"object\"", tool, what);
	if (input && !json_is_object(props))
		TEST_FAIL_("%s: %s has no properties object", tool, what);
	if (req && !json_is_array(req))
		TEST_FAIL_("%s: %s.required is not an array", tool, what);
	json_array_foreach(req, i, v) {
		if (!json_is_string(v))
			TEST_FAIL_("%s: %s.required[%zu] is not a string", tool, what, i);
		else if (!json_object_get(props, json_string_value(v)))
			TEST_FAIL_("%s: %s requires \"%s\", which is not a property",
				   tool, what, json_string_value(v));
	}
	json_object_foreach(props, key, v) {
		json_t *type = json_object_get(v, "type");
		if (!json_is_object(v)) {
			TEST_FAIL_("%s: %s property %s is not a schema", tool, what, key);
			continue;
		}
		/* Described, or self-describing: an enum of values, or a name
		 * that says it all (query, symbol, limit). */
		if (input && !nonempty_str(json_object_get(v, "description")) &&
		    !json_is_array(json_object_get(v, "enum")) && strcmp(key, "query") &&
		    strcmp(key, "symbol") && strcmp(key, "limit"))
			TEST_FAIL_("%s: input property %s has no description", tool, key);
		/* Typed everywhere (inputs and outputs): a type, or anyOf
		 * branches that each have one (the portable spelling of a
		 * type list, which MCP Inspector --strict asks for). */
		if (!type) {
			json_t *any = json_object_get(v, "anyOf"), *b;
			size_t j;
			bool typed = json_is_array(any) && json_array_size(any) > 0;
			json_array_foreach(any, j, b)
				typed = typed && json_is_string(json_object_get(b, "type"));
			if (!typed)
				TEST_FAIL_("%s: %s property %s has no type", tool, what, key);
		}
		if (json_is_array(type))
			TEST_FAIL_("%s: %s property %s: a type list; write anyOf "
				   "branches (MCP Inspector --strict warns)", tool, what, key);
		if (type && !json_is_string(type) && !json_is_array(type))
			TEST_FAIL_("%s: %s property %s: type must be a string",
				   tool, what, key);
		if (json_object_get(v, "enum") && !json_is_array(json_object_get(v, "enum")))
			TEST_FAIL_("%s: %s property %s: enum must be an array", tool,
				   what, key);
	}
	if (input && !json_is_false(json_object_get(sch, "additionalProperties")))
		TEST_FAIL_("%s: %s should set additionalProperties false", tool, what);
}

TEST(every_tool)
{
	json_t *j = tools_list();
	json_t *tools = json_object_get(j, "tools"), *t;
	size_t i;
	json_array_foreach(tools, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *ann = json_object_get(t, "annotations");
		json_t *exec = json_object_get(t, "execution");
		const char *ts;
		if (!nonempty_str(json_object_get(t, "name"))) {
			TEST_FAIL_("tool %zu has no name", i);
			continue;
		}
		if (!nonempty_str(json_object_get(t, "title")))
			TEST_FAIL_("%s: no title", name);
		if (!nonempty_str(json_object_get(t, "description")) ||
		    json_string_length(json_object_get(t, "description")) < 40)
			TEST_FAIL_("%s: description missing or too short for a model", name);
		check_schema(name, "inputSchema", json_object_get(t, "inputSchema"), true);
		check_schema(name, "outputSchema", json_object_get(t, "outputSchema"), false);
		if (!json_is_object(ann) || !json_is_boolean(json_object_get(ann, "readOnlyHint")))
			TEST_FAIL_("%s: annotations.readOnlyHint missing", name);
		ts = json_string_value(json_object_get(exec, "taskSupport"));
		if (ts && strcmp(ts, "optional") && strcmp(ts, "required"))
			TEST_FAIL_("%s: execution.taskSupport is listed only when "
				   "optional or required", name);
		/* The lookup by name agrees with the list. */
		const mi_mcp_tool *row = mi_mcp_tools_find(reg(), &no_env, name);
		if (!row || (ts != NULL) != !!(row->flags & (MI_TOOL_TASK_OPTIONAL |
							      MI_TOOL_TASK_REQUIRED)))
			TEST_FAIL_("%s: mi_mcp_tools_find disagrees with tools/list", name);
	}
	CHECK(mi_mcp_tools_find(reg(), &no_env, "no_such_tool") == NULL);
	json_decref(j);
}

/* With --artifacts the six artifact tools follow, and every listed schema
 * (search_code and read_file gain their artifact arguments) keeps the
 * rules above. */
TEST(artifact_tools)
{
	static const char *const want[] = {
		"generate_prompt", "store_llm_result", "get_artifact",
		"list_artifacts", "delete_artifact", "generate_artifact",
	};
	mi_mcp_env env = no_env;
	mi_mcp_opts o;
	mi_buf b = {0};
	json_t *j, *tools, *t;
	size_t i;
	env_setup();
	o = no_env_opts;
	o.artifacts = true;
	env = no_env;
	env.opts = &o;
	mi_buf_addc(&b, '{');
	mi_mcp_tools_list(reg(), &env, MI_MCP_LEGACY, &b);
	mi_buf_addc(&b, '}');
	j = json_loadb(mi_buf_str(&b), b.len, JSON_REJECT_DUPLICATES, NULL);
	tools = json_object_get(j, "tools");
	json_t *plain = tools_list();
	size_t base = json_array_size(json_object_get(plain, "tools"));
	json_decref(plain);
	/* The six follow the tools listed without --artifacts, in order. */
	CHECK_INT(json_array_size(tools), base + 6);
	for (i = 0; i < 6 && base + i < json_array_size(tools); i++)
		CHECK_STR(json_string_value(json_object_get(json_array_get(tools, base + i),
							    "name")), want[i]);
	json_array_foreach(tools, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		check_schema(name, "inputSchema", json_object_get(t, "inputSchema"), true);
		check_schema(name, "outputSchema", json_object_get(t, "outputSchema"), false);
	}
	json_array_foreach(tools, i, t)
		if (!strcmp(json_string_value(json_object_get(t, "name")), "search_code"))
			CHECK(json_object_get(json_object_get(json_object_get(t, "inputSchema"),
							      "properties"), "expand_query") != NULL);
	json_decref(j);
	mi_buf_release(&b);
}

/* A server over a fresh empty folder dir (a mkdtemp template); o must
 * outlive it. */
static void server_on(char *dir, mi_mcp_opts *o, mi_mcp_server *s)
{
	CHECK(mkdtemp(dir) != NULL);
	memset(o, 0, sizeof *o);
	o->index = dir;
	o->log_file = "/dev/null";
	o->self_exe = "/nonexistent/mcpidx";
	CHECK_INT(mi_mcp_server_init(s, o, &mi_mcp_spec_mcpidx), 0);
}

/* The schemas say what tools accept: each required argument missing is
 * refused before the tool runs, with a message naming it. */
TEST(required_enforced)
{
	mi_mcp_opts o;
	mi_mcp_server s;
	mi_mcp_session ss;
	mi_mcp_sink none = { NULL, NULL };
	json_t *j = tools_list(), *tools = json_object_get(j, "tools"), *t;
	char dir[] = "/tmp/mi-schema-XXXXXX";
	size_t i, checked = 0;

	server_on(dir, &o, &s);
	mi_mcp_session_init(&ss, &s, none);
	atomic_store(&ss.state, 2);
	json_array_foreach(tools, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *req = json_object_get(json_object_get(t, "inputSchema"), "required");
		json_t *r;
		size_t k;
		json_t *props = json_object_get(json_object_get(t, "inputSchema"),
						"properties");
		json_array_foreach(req, k, r) {
			mi_buf msg = {0}, out = {0};
			mi_mcp_call *call = NULL;
			json_t *args = json_object(), *o2;
			char *text;
			size_t k2;
			/* Every other required argument, with a value of its type. */
			json_array_foreach(req, k2, o2) {
				const char *ty = json_string_value(json_object_get(
					json_object_get(props, json_string_value(o2)), "type"));
				if (k2 == k)
					continue;
				json_object_set_new(args, json_string_value(o2),
						    ty && !strcmp(ty, "integer") ? json_integer(1) :
						    ty && !strcmp(ty, "boolean") ? json_false() :
						    json_string("x"));
			}
			text = json_dumps(args, JSON_COMPACT);
			mi_buf_addf(&msg, "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":"
				    "\"tools/call\",\"params\":{\"name\":\"%s\","
				    "\"arguments\":%s}}", i, name, text);
			free(text);
			json_decref(args);
			mi_mcp_in in = { .data = msg.buf, .len = msg.len, .sink = none,
					  .inline_only = true };
			CHECK_INT(mi_mcp_handle(&ss, &in, &out, &call, NULL), 0);
			CHECK_CONTAINS(out.buf, "\"isError\":true");
			CHECK_CONTAINS(out.buf, json_string_value(r));
			checked++;
			mi_buf_release(&msg);
			mi_buf_release(&out);
		}
	}
	CHECK(checked >= 7);
	mi_mcp_session_release(&ss);
	mi_mcp_server_release(&s);
	rmdir(dir);
	json_decref(j);
}

/* One tools/call read_file on a fresh session of s; the answer in out. */
static void call_read(mi_mcp_server *s, mi_buf *out)
{
	mi_mcp_session ss;
	mi_mcp_sink none = { NULL, NULL };
	mi_mcp_call *call = NULL;
	static const char msg[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
		"\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"a.c\"}}}";
	mi_mcp_session_init(&ss, s, none);
	atomic_store(&ss.state, 2);
	mi_buf_reset(out);
	mi_mcp_in in = { .data = msg, .len = sizeof msg - 1, .sink = none,
			  .inline_only = true };
	CHECK_INT(mi_mcp_handle(&ss, &in, out, &call, NULL), 0);
	mi_mcp_session_release(&ss);
}

/* A missing index and one of another format version are tool errors that
 * say how to build one, through the CLI or the index_codebase tool. */
TEST(index_missing_or_of_another_version)
{
	char dir[] = "/tmp/mi-ver-XXXXXX";
	mi_mcp_opts o;
	mi_mcp_server s;
	mi_buf out = {0};
	server_on(dir, &o, &s);
	call_read(&s, &out);
	CHECK_CONTAINS(out.buf, "\"isError\":true");
	CHECK_CONTAINS(out.buf, "No index at");
	CHECK_CONTAINS(out.buf, "index_codebase");

	mi_store *st;
	mi_txn *t;
	char idx[64];
	snprintf(idx, sizeof idx, "%s/.mcpidx", dir);
	CHECK_INT(mkdir(idx, 0755), 0);
	CHECK_INT(mi_store_open(idx, MI_STORE_CREATE, &st), 0);
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	CHECK_INT(mi_meta_put_int(t, "version", MI_FORMAT_VERSION - 1), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	mi_store_close(st);
	call_read(&s, &out);
	CHECK_CONTAINS(out.buf, "\"isError\":true");
	CHECK_CONTAINS(out.buf, "another format version");
	CHECK_CONTAINS(out.buf, "index_codebase");
	CHECK_CONTAINS(out.buf, "force");
	mi_mcp_server_release(&s);
	mi_buf_release(&out);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
}

int main(void)
{
	RUN(selftest);
	RUN(list_shape);
	RUN(list_token_budget);
	RUN(every_tool);
	RUN(artifact_tools);
	RUN(required_enforced);
	RUN(index_missing_or_of_another_version);
	if (no_env.index_path) {
		mi_mcp_env_release(&no_env);
		rmdir(no_env_dir);
	}
	mi_mcp_tools_free(reg());
	return test_done();
}
