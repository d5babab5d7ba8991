/*
 * artifacts.c - the read side of artifacts (what the host's own model wrote
 * about the code, kept in the side store, format/side.h): the task table and
 * the prompt each task asks for, reading one file's artifacts and listing
 * them as a tree, each checked against the source it describes (stale when
 * the file changed), and the structured answers every artifact tool gives.
 * The writes (store, delete, chains) are in mcp/artifacts.c.
 */
#include "query_int.h"
#include "../format/side.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---- the task table ---------------------------------------------------------------- */

/* One task the host's model can be asked to do.  Adding a task is adding a
 * row (and its name to mi_art_tasks). */
static const mi_art_task art_tasks[] = {
{
	"annotate", MI_PROMPT_BODIES_ALL, true,
	"Annotate the functions of this file for a code index. For each function or "
	"method in the outline write one line:\n"
	"NAME: what it does, in one sentence\n"
	"NAME is the name as the outline shows it (Parent.name for a method). Say what "
	"it does and why a caller would use it, in plain words a search would match; "
	"do not restate the signature. Reply with those lines only.",
	"Annotate %s for a code index: one or two sentences on what it does, what it "
	"takes and changes, and when a caller would use it, in plain words a search "
	"would match. Reply with the annotation only.",
	false,
},
{
	"summarize", MI_PROMPT_BODIES_NONE, false,
	"Summarize this file for a code index in three to six sentences: its purpose, "
	"its main entry points, the data it works on and how the pieces fit together, "
	"in plain words a search would match. Reply with the summary only.",
	"Summarize what %s does in one to three sentences for a code index, in plain "
	"words a search would match. Reply with the summary only.",
	false,
},
{
	"document", MI_PROMPT_BODIES_PUBLIC, false,
	"Write documentation comments for the public functions of this file that lack "
	"one (a body shown with [doc comment: ...] has one). For each, give its NAME "
	"on a line, then the comment in this language's doc-comment style: what it "
	"does, its parameters, its result and its errors. Reply with those only.",
	"Write a documentation comment for %s in this language's doc-comment style: "
	"what it does, its parameters, its result and its errors. Reply with the "
	"comment only.",
	false,
},
{
	"test-plan", MI_PROMPT_BODIES_PUBLIC, false,
	"Write a test plan for this file: for each public function, the cases to test "
	"(normal, edge and error cases) as a bulleted list under its name. Reply with "
	"the plan only.",
	"Write a test plan for %s: the cases to test (normal, edge and error cases) as "
	"a bulleted list. Reply with the plan only.",
	false,
},
{
	"aliases", MI_PROMPT_BODIES_NONE, false,
	"Below is the card of a tool an agent can call. Write 5 to 10 short task "
	"phrasings a user might type when this tool is what they need, such as "
	"\"convert a PDF to text\": one per line, in everyday words, most of them not "
	"the words of the tool's own name and description. No numbering, no quotes. "
	"Reply with the phrasings only.",
	"%s",
	true,
},
};

const char *const mi_art_tasks[] = {"annotate", "summarize", "document", "test-plan",
				     "aliases", NULL};

#define NTASKS (sizeof art_tasks / sizeof *art_tasks)

const mi_art_task *mi_art_task_find(const char *name)
{
	for (size_t i = 0; name && i < NTASKS; i++)
		if (strcmp(art_tasks[i].name, name) == 0)
			return &art_tasks[i];
	return NULL;
}

/* ---- the handle ---------------------------------------------------------------------- */

struct mi_art {
	mi_art_opts o;         /* options; the strings below are the copies */
	char *index;           /* index path */
	char *side_dir;        /* side store directory, NULL when unknown */
	char *repo;            /* working tree or NULL */
	pthread_mutex_t mu;    /* guards side and ev */
	mi_side *side;         /* opened on first use */
	struct mi_art_ev *ev;  /* search evidence term index */
};

int64_t mi_art_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static char *dup_or_null(const char *s)
{
	return s && *s ? mi_xstrdup(s) : NULL;
}

mi_art *mi_art_new(const mi_art_opts *o)
{
	mi_art *a = mi_xcalloc(1, sizeof *a);
	a->o = *o;
	a->index = dup_or_null(o->index);
	a->repo = dup_or_null(o->repo);
	a->side_dir = mi_side_locate(o->index, o->side);
	a->o.index = a->index;
	a->o.repo = a->repo;
	a->o.side = a->side_dir;
	if (a->o.max_steps <= 0)
		a->o.max_steps = MI_ART_MAX_STEPS;
	if (a->o.callback_timeout_ms <= 0)
		a->o.callback_timeout_ms = MI_ART_CALLBACK_MS;
	if (a->o.tool_timeout_ms <= 0)
		a->o.tool_timeout_ms = MI_ART_TOOL_MS;
	if (a->o.chain_ttl_ms <= 0)
		a->o.chain_ttl_ms = MI_ART_CHAIN_TTL_MS;
	pthread_mutex_init(&a->mu, NULL);
	return a;
}

void mi_art_free(mi_art *a)
{
	if (!a)
		return;
	mi_side_close(a->side);
	mi_art_ev_free(a->ev);
	pthread_mutex_destroy(&a->mu);
	free(a->index);
	free(a->repo);
	free(a->side_dir);
	free(a);
}

const char *mi_art_side_dir(const mi_art *a)
{
	return a->side_dir;
}

/* ---- answers ------------------------------------------------------------------------- */
const mi_art_opts *mi_art_options(const mi_art *a)
{
	return &a->o;
}

void mi_art_lock(mi_art *a)
{
	pthread_mutex_lock(&a->mu);
}

void mi_art_unlock(mi_art *a)
{
	pthread_mutex_unlock(&a->mu);
}

struct mi_art_ev **mi_art_ev_slot(mi_art *a)
{
	return &a->ev;
}

int mi_art_side(mi_art *a, bool create, mi_side **s, mi_out *out)
{
	int rc = 0;
	pthread_mutex_lock(&a->mu);
	if (a->side)
		goto out;
	if (!a->side_dir) {
		rc = mi_art_error(out, MI_ERR_NOINDEX, "Build the index first: mcpidx build REPO "
				  "(or call index_codebase); artifacts are kept beside it.",
				  "No index at %s, so there is no place for artifacts yet.",
				  a->index ? a->index : "(none)");
		goto out;
	}
	rc = mi_side_open(a->side_dir, create ? MI_SIDE_CREATE : 0, &a->side);
	if (rc == MI_ERR_NOINDEX && !create)
		goto out;
	if (rc == EACCES || rc == EROFS || rc == EPERM)
		mi_art_error(out, rc, "Serve with --side DIR naming a writable directory, or "
			     "set MCPIDX_SIDE.", "The artifact store at %s is not writable (%s).",
			     a->side_dir, mi_strerror(rc));
	else if (rc == MI_ERR_VERSION)
		mi_art_error(out, rc, "Move the directory away (its artifacts cannot be read "
			     "by this mcpidx) or use --side DIR.", "The artifact store at %s was "
			     "written by another version of mcpidx (layout version differs from %d).",
			     a->side_dir, MI_SIDE_VERSION);
	else if (rc)
		mi_art_error(out, rc, "Check the directory, or use --side DIR.",
			     "Cannot open the artifact store at %s: %s.", a->side_dir,
			     mi_strerror(rc));
out:
	*s = a->side;
	pthread_mutex_unlock(&a->mu);
	return rc;
}

#define ART_MSG_MAX 4096   /* bytes of an error message kept */

int mi_art_error(mi_out *out, int err, const char *next, const char *fmt, ...)
{
	mi_buf msg = {0};
	va_list ap;
	va_start(ap, fmt);
	mi_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (msg.len > ART_MSG_MAX) {
		/* it quotes a path or a name the caller sent, which may be
		 * 16 MiB: the answer (text and JSON) keeps the start of it */
		size_t cut = mi_utf8_cut(msg.buf, ART_MSG_MAX);
		msg.len = cut;
		msg.buf[cut] = 0;
		mi_buf_adds(&msg, "... (cut: the message quoted a long argument)");
	}
	mi_out_reset(out);
	out->is_error = true;
	mi_buf_add(&out->text, msg.buf, msg.len);
	if (next && *next)
		mi_buf_addf(&out->text, "\nNext: %s", next);
	mi_buf_adds(&out->json, "{\"status\":\"error\",\"data\":null,\"error\":");
	mi_buf_add_json_str(&out->json, mi_buf_str(&msg), msg.len);
	mi_buf_adds(&out->json, ",\"nextAction\":");
	mi_buf_add_json_str(&out->json, next ? next : "", next ? strlen(next) : 0);
	mi_buf_addc(&out->json, '}');
	mi_buf_release(&msg);
	return err ? err : MI_ERR_ARG;
}

void mi_art_success(mi_out *out, const char *data, const char *text, const char *next)
{
	mi_out_reset(out);
	mi_buf_adds(&out->text, text ? text : "");
	if (next && *next)
		mi_buf_addf(&out->text, "%sNext: %s", out->text.len &&
			    out->text.buf[out->text.len - 1] != '\n' ? "\n" : "", next);
	mi_buf_adds(&out->json, "{\"status\":\"success\",\"data\":");
	mi_buf_adds(&out->json, data ? data : "null");
	mi_buf_adds(&out->json, ",\"error\":null,\"nextAction\":");
	mi_buf_add_json_str(&out->json, next ? next : "", next ? strlen(next) : 0);
	mi_buf_addc(&out->json, '}');
}

/* Turns a query error answer into an "error" answer with a next action. */
int mi_art_from_query(mi_out *out, int rc, const char *next)
{
	mi_buf msg = {0};
	mi_buf_add(&msg, out->text.buf, out->text.len);
	rc = mi_art_error(out, rc, next, "%s", mi_buf_str(&msg));
	mi_buf_release(&msg);
	return rc;
}

static void iso_time(int64_t ms, char out[32])
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	out[0] = 0;
	if (gmtime_r(&t, &tm))
		strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

bool mi_art_hex_hash(const char *hex, uint8_t out[16])
{
	if (!hex || strlen(hex) != 32)
		return false;
	for (int i = 0; i < 16; i++) {
		unsigned v;
		if (!isxdigit((unsigned char)hex[2 * i]) || !isxdigit((unsigned char)hex[2 * i + 1]) ||
		    sscanf(hex + 2 * i, "%2x", &v) != 1)
			return false;
		out[i] = (uint8_t)v;
	}
	return true;
}

/* ---- staleness ----------------------------------------------------------------------- */

/* The content hash of path as it is now: the working tree's file when the
 * repository is known and holds it, else the index's record.  false: the
 * file is gone from both. */
bool mi_art_current_hash(mi_art *a, mi_query *q, const char *path, uint8_t h[16])
{
	mi_out ignore;
	struct stat st;
	bool ok = false;
	if (a->repo) {
		mi_buf full = {0};
		char *data = NULL;
		size_t len = 0;
		mi_buf_addf(&full, "%s/%s", a->repo, path);
		/* not through a link (mi_read_file itself takes regular files
		 * only: no FIFO, no /dev/zero) */
		ok = lstat(full.buf, &st) == 0 && !S_ISLNK(st.st_mode) &&
		     mi_read_file(full.buf, &data, &len) == 0;
		if (ok)
			mi_hash128(data, len, h);
		free(data);
		mi_buf_release(&full);
		if (ok)
			return true;
	}
	memset(&ignore, 0, sizeof ignore);
	ok = q && mi_query_file_info(q, path, NULL, h, NULL, &ignore) == 0;
	mi_out_release(&ignore);
	return ok;
}

/* One artifact as JSON, with its staleness against now (NULL: gone). */
void mi_art_json(mi_buf *j, const mi_side_rec *r, const uint8_t *now, bool with_text)
{
	char hex[33] = "", cur[33] = "", when[32];
	bool stale = !now || !r->has_hash || memcmp(now, r->hash, 16) != 0;
	if (r->has_hash)
		mi_hash_hex(r->hash, hex);
	if (now)
		mi_hash_hex(now, cur);
	iso_time(r->created_ms, when);
	mi_buf_adds(j, "{\"path\":");
	mi_buf_add_json_str(j, r->path, strlen(r->path));
	mi_buf_adds(j, ",\"task\":");
	mi_buf_add_json_str(j, r->kind, strlen(r->kind));
	mi_buf_adds(j, ",\"symbol\":");
	if (*r->name)
		mi_buf_add_json_str(j, r->name, strlen(r->name));
	else
		mi_buf_adds(j, "null");
	mi_buf_addf(j, ",\"line\":%lld,\"hash\":\"%s\",\"created\":\"%s\",\"chain\":",
		    (long long)r->num, hex, when);
	mi_buf_add_json_str(j, r->corr, strlen(r->corr));
	mi_buf_addf(j, ",\"stale\":%s", stale ? "true" : "false");
	if (stale)
		mi_buf_addf(j, ",\"stale_reason\":\"%s\",\"current_hash\":%s%s%s",
			    now ? "the source changed since the artifact was made" :
			    "the source file is gone", now ? "\"" : "", now ? cur : "null",
			    now ? "\"" : "");
	mi_buf_addf(j, ",\"chars\":%zu", r->text_len);
	if (with_text) {
		mi_buf_adds(j, ",\"text\":");
		mi_buf_add_json_str(j, r->text, r->text_len);
	}
	mi_buf_addc(j, '}');
}

/* ---- normalising a request ---------------------------------------------------------------- */

/* Copies r with its path normalised into norm; an "error" answer when the
 * path is missing or leaves the repository. */
int mi_art_norm(const mi_art_req *r, mi_art_req *n, mi_buf *norm, bool need_path,
		mi_out *out)
{
	*n = *r;
	if (!r->path || !*r->path) {
		if (!need_path)
			return 0;
		return mi_art_error(out, MI_ERR_ARG, "Pass path, e.g. {\"path\": \"src/main.c\"}.",
				    "Missing required argument: path.");
	}
	if (strncmp(r->path, MI_ART_TOOL_PREFIX, strlen(MI_ART_TOOL_PREFIX)) == 0) {
		const char *name = r->path + strlen(MI_ART_TOOL_PREFIX);
		if (!*name || !strchr(name, '/') || strlen(name) > 300)
			return mi_art_error(out, MI_ERR_ARG, "Name a tool of the catalog as "
					    "\"tool:server/tool\" (find_tools lists them).",
					    "'%s' does not name a tool.", r->path);
		mi_buf_adds(norm, r->path);
		n->path = norm->buf;
		if (n->symbol && !*n->symbol)
			n->symbol = NULL;
		return 0;
	}
	if (mi_path_normalize(r->path, norm))
		return mi_art_error(out, MI_ERR_PATH, "Give a path relative to the repository "
				    "root, e.g. \"src/main.c\".", "Path '%s' is outside the "
				    "repository or malformed (no \"..\", not absolute).", r->path);
	n->path = norm->buf;
	if (n->symbol && !*n->symbol)
		n->symbol = NULL;
	return 0;
}

int mi_art_bad_task(const char *task, mi_out *out, bool with_parse)
{
	return mi_art_error(out, MI_ERR_ARG, with_parse ?
			    "Use one of: parse, annotate, summarize." :
			    "Use one of: annotate, summarize, document, test-plan.",
			    "Unknown task '%s'.", task ? task : "");
}

/* ---- the prompt of a task ------------------------------------------------------------ */

/* The prompt of a file task (mi_query_prompt with the task's instructions). */
static int compose_file(mi_art *a, mi_query *q, const mi_art_req *r, const mi_art_task *tk,
			mi_out *prompt, mi_out *out)
{
	mi_prompt_opts po;
	mi_buf ask = {0};
	int rc;
	memset(&po, 0, sizeof po);
	if (r->symbol)
		mi_buf_addf(&ask, tk->symbol_ask, r->symbol);
	else
		mi_buf_adds(&ask, tk->file_ask);
	if (!r->symbol && r->nfocus)
		mi_buf_adds(&ask, "\nConcentrate on the symbols whose bodies are given below.");
	po.path = r->path;
	po.symbol = r->symbol;
	po.focus = r->focus;
	po.nfocus = r->nfocus;
	po.bodies = tk->bodies;
	po.instructions = ask.buf;
	po.budget_tokens = a->o.prompt_tokens;
	po.deadline_us = mi_art_now_us() + a->o.tool_timeout_ms * 1000;
	rc = mi_query_prompt(q, &po, prompt);
	if (rc) {
		mi_out_reset(out);
		mi_buf_add(&out->text, prompt->text.buf, prompt->text.len);
		rc = mi_art_from_query(out, rc, r->symbol ? "read_file {\"path\": ..., \"filter\": "
				       "\"all\"} lists the file's symbols; pass one of those." :
				       "Check the path with list_artifacts or read_file; rebuild "
				       "the index if the file is new (index_codebase).");
	}
	mi_buf_release(&ask);
	return rc;
}

/* The prompt of a tool-card task: the instructions and the tool's L2 card;
 * json {path, tool, hash (its pin), tokens}. */
static int compose_tool(mi_query *q, const mi_art_req *r, const mi_art_task *tk,
			mi_out *prompt, mi_out *out)
{
	const char *name = r->path + strlen(MI_ART_TOOL_PREFIX);
	mi_tool_info info;
	mi_out card;
	char hex[33];
	int rc;
	memset(&card, 0, sizeof card);
	if (strncmp(r->path, MI_ART_TOOL_PREFIX, strlen(MI_ART_TOOL_PREFIX)) != 0)
		return mi_art_error(out, MI_ERR_ARG, "Pass path \"tool:server/tool\" (find_tools "
				    "lists the tools).", "Task %s is about a tool of the catalog, "
				    "not a file.", tk->name);
	rc = mi_query_tool_get(q, name, &info);
	if (rc)
		return mi_art_error(out, rc, "find_tools lists the tools of the catalog "
				    "(mcpidx build --servers FILE indexes them).",
				    "No tool '%s' in the catalog.", name);
	mi_hash_hex(info.hash, hex);
	mi_tool_info_release(&info);
	rc = mi_query_describe_tools(q, &name, 1, MI_TOOL_L2, NULL, &card);
	if (rc || card.is_error) {
		rc = mi_art_error(out, rc ? rc : MI_ERR_NOTFOUND, "find_tools lists the "
				  "tools of the catalog.", "Cannot describe tool '%s': %s", name,
				  mi_buf_str(&card.text));
		goto out;
	}
	mi_out_reset(prompt);
	mi_buf_addf(&prompt->text, "%s\n\nTool: %s\n", tk->file_ask, name);
	mi_buf_add(&prompt->text, card.text.buf, card.text.len);
	mi_buf_adds(&prompt->json, "{\"path\":");
	mi_buf_add_json_str(&prompt->json, r->path, strlen(r->path));
	mi_buf_adds(&prompt->json, ",\"tool\":");
	mi_buf_add_json_str(&prompt->json, name, strlen(name));
	mi_buf_addf(&prompt->json, ",\"hash\":\"%s\",\"tokens\":%zu}", hex,
		    mi_token_estimate(prompt->text.buf, prompt->text.len));
out:
	mi_out_release(&card);
	return rc;
}

int mi_art_compose(mi_art *a, mi_query *q, const mi_art_req *r, const mi_art_task *tk,
		   mi_out *prompt, mi_out *out)
{
	if (tk->tool_card)
		return compose_tool(q, r, tk, prompt, out);
	if (strncmp(r->path, MI_ART_TOOL_PREFIX, strlen(MI_ART_TOOL_PREFIX)) == 0)
		return mi_art_error(out, MI_ERR_ARG, "Use task aliases for a tool, or give a "
				    "file path.", "Task %s is about a file, not a tool.", tk->name);
	return compose_file(a, q, r, tk, prompt, out);
}
/* generate_artifact task parse: the file's structure, straight from the index. */
int mi_art_parse(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out)
{
	mi_view_opts vo;
	mi_out v;
	mi_buf data = {0};
	uint8_t h[16];
	char hex[33];
	json_t *vj = NULL;
	int rc;
	memset(&v, 0, sizeof v);
	memset(&vo, 0, sizeof vo);
	vo.mode = "outline";
	vo.all = true;
	rc = mi_query_file_info(q, r->path, NULL, h, NULL, &v);
	if (!rc)
		rc = mi_query_read_file(q, r->path, &vo, &v);
	if (rc) {
		mi_out_reset(out);
		mi_buf_add(&out->text, v.text.buf, v.text.len);
		mi_out_release(&v);
		return mi_art_from_query(out, rc, "Check the path (repo-relative); rebuild the "
				  "index if the file is new (index_codebase).");
	}
	vj = json_loadb(v.json.buf, v.json.len, 0, NULL);
	mi_hash_hex(h, hex);
	mi_buf_adds(&data, "{\"artifact\":{\"path\":");
	mi_buf_add_json_str(&data, r->path, strlen(r->path));
	mi_buf_addf(&data, ",\"task\":\"parse\",\"hash\":\"%s\",\"stored\":false,"
		    "\"symbols\":%lld,\"line_count\":%lld,\"text\":", hex,
		    (long long)json_integer_value(json_object_get(vj, "symbols")),
		    (long long)json_integer_value(json_object_get(vj, "line_count")));
	mi_buf_add_json_str(&data, v.text.buf ? v.text.buf : "", v.text.len);
	mi_buf_adds(&data, "}}");
	{
		mi_buf text = {0};
		mi_buf_add(&text, v.text.buf, v.text.len);
		mi_art_success(out, data.buf, text.buf, "For a description in words, call "
			       "generate_artifact with task summarize or annotate.");
		mi_buf_release(&text);
	}
	json_decref(vj);
	mi_out_release(&v);
	mi_buf_release(&data);
	return 0;
}


/* ---- get, list, delete ------------------------------------------------------------------- */

typedef struct match {
	const char *task;    /* only this task, or NULL */
	const char *symbol;  /* only this symbol, or NULL */
	mi_art *a;           /* for current hashes */
	mi_query *q;
	const char *hpath;   /* path whose current hash is in cur */
	uint8_t cur[16];
	bool have_cur;
	mi_buf json;         /* artifacts, comma-separated */
	mi_buf text;         /* their text form */
	size_t n, stale;     /* matched, of which stale */
	bool with_text;      /* include the text in json */
	int64_t deadline;    /* monotonic us */
	bool timed_out;      /* stopped at the deadline */
	bool tool;           /* records describe catalog tools (aliases) */
} match;

static bool wanted(const match *m, const mi_side_rec *r)
{
	return (!m->task || strcmp(m->task, r->kind) == 0) &&
	       (!m->symbol || strcmp(m->symbol, r->name) == 0);
}

static bool is_stale(match *m, const mi_side_rec *r)
{
	if (!m->hpath || strcmp(m->hpath, r->path) != 0) {
		free((char *)m->hpath);
		m->hpath = mi_xstrdup(r->path);
		if (m->tool) {
			mi_tool_info info;
			m->have_cur = mi_query_tool_get(m->q, r->path, &info) == 0;
			if (m->have_cur) {
				memcpy(m->cur, info.hash, 16);
				mi_tool_info_release(&info);
			}
		} else {
			m->have_cur = mi_art_current_hash(m->a, m->q, r->path, m->cur);
		}
	}
	return !m->have_cur || !r->has_hash || memcmp(m->cur, r->hash, 16) != 0;
}

static int get_fn(void *ctx, const mi_side_rec *r)
{
	match *m = ctx;
	bool stale;
	char when[32];
	if (!wanted(m, r))
		return 0;
	stale = is_stale(m, r);
	if (m->n)
		mi_buf_addc(&m->json, ',');
	mi_art_json(&m->json, r, m->have_cur ? m->cur : NULL, true);
	iso_time(r->created_ms, when);
	mi_buf_addf(&m->text, "%s== %s%s%s (%s, chain %s)%s\n", m->n ? "\n" : "", r->kind,
		    *r->name ? " " : "", r->name, when, r->corr,
		    stale ? " STALE (the source changed since it was written)" : "");
	mi_buf_add(&m->text, r->text, r->text_len);
	mi_buf_addc(&m->text, '\n');
	m->n++;
	m->stale += stale;
	return 0;
}

static void match_release(match *m)
{
	free((char *)m->hpath);
	mi_buf_release(&m->json);
	mi_buf_release(&m->text);
}

/* A read transaction on the artifact store; MI_ERR_NOINDEX (out left
 * empty) when there is no store yet, which readers treat as no artifacts. */
static int art_read(mi_art *a, mi_side_txn **t, mi_out *out)
{
	mi_side *s;
	int rc = mi_art_side(a, false, &s, out);
	if (rc)
		return rc;
	if ((rc = mi_side_begin(s, false, t)))
		rc = mi_art_error(out, rc, "Retry.", "Cannot read the artifact store: %s.",
				  mi_strerror(rc));
	return rc;
}

int mi_art_get(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out)
{
	mi_buf norm = {0}, pre = {0}, data = {0};
	mi_art_req n;
	match m;
	mi_side_txn *t;
	int rc;
	memset(&m, 0, sizeof m);
	rc = mi_art_norm(r, &n, &norm, true, out);
	if (rc)
		goto out;
	m.task = n.task && *n.task ? n.task : NULL;
	m.symbol = n.symbol;
	m.a = a;
	m.q = q;
	m.with_text = true;
	rc = art_read(a, &t, out);
	if (rc == MI_ERR_NOINDEX)
		goto none;
	if (rc)
		goto out;
	m.tool = strncmp(n.path, MI_ART_TOOL_PREFIX, strlen(MI_ART_TOOL_PREFIX)) == 0;
	if (m.tool) {
		/* A tool's aliases: "server/tool" \0 "alias" \0 "". */
		const char *name = n.path + strlen(MI_ART_TOOL_PREFIX);
		mi_buf_add(&pre, name, strlen(name) + 1);
		m.task = NULL;
		rc = mi_side_scan(t, MI_SIDE_ALIASES, pre.buf, pre.len, get_fn, &m);
	} else {
		mi_buf_add(&pre, n.path, strlen(n.path) + 1);
		rc = mi_side_scan(t, MI_SIDE_ARTIFACTS, pre.buf, pre.len, get_fn, &m);
	}
	mi_side_abort(t);
	if (rc) {
		rc = mi_art_error(out, rc, "Delete it (delete_artifact) and generate it again.",
				  "An artifact of %s is damaged: %s.", n.path, mi_strerror(rc));
		goto out;
	}
none:
	if (!m.n) {
		mi_buf what = {0};
		if (m.task)
			mi_buf_addf(&what, ", task %s", m.task);
		if (m.symbol)
			mi_buf_addf(&what, ", symbol %s", m.symbol);
		rc = mi_art_error(out, MI_ERR_NOTFOUND, "Make one: call generate_prompt {path, "
				  "task, symbol?} and answer its prompt; list_artifacts shows what "
				  "exists.", "No artifact for %s%s.", n.path, mi_buf_str(&what));
		mi_buf_release(&what);
		goto out;
	}
	mi_buf_adds(&data, "{\"path\":");
	mi_buf_add_json_str(&data, n.path, strlen(n.path));
	mi_buf_addf(&data, ",\"count\":%zu,\"stale\":%zu,\"artifacts\":[", m.n, m.stale);
	mi_buf_add(&data, m.json.buf, m.json.len);
	mi_buf_adds(&data, "]}");
	mi_art_success(out, data.buf, m.text.buf, m.stale ?
		       "Stale artifacts describe an older version of the file: call "
		       "generate_prompt {path, task} to refresh them." : NULL);
	rc = 0;
out:
	match_release(&m);
	mi_buf_release(&norm);
	mi_buf_release(&pre);
	mi_buf_release(&data);
	return rc;
}

/* ---- list: a tree ---------------------------------------------------------------- */

/* The node for directory path components under root, created as needed. */
static json_t *tree_dir(json_t *root, const char *path, size_t len)
{
	json_t *node = root;
	size_t i = 0;
	while (i < len) {
		const char *slash = memchr(path + i, '/', len - i);
		size_t n;
		json_t *dirs = json_object_get(node, "dirs"), *d, *found = NULL;
		size_t k;
		if (!slash)
			break;
		n = (size_t)(slash - (path + i));
		json_array_foreach(dirs, k, d) {
			const char *nm = json_string_value(json_object_get(d, "name"));
			if (strlen(nm) == n && memcmp(nm, path + i, n) == 0) {
				found = d;
				break;
			}
		}
		if (!found) {
			found = json_pack("{s:s%,s:[],s:[]}", "name", path + i, n, "dirs", "files");
			json_array_append_new(dirs, found);
		}
		node = found;
		i += n + 1;
	}
	return node;
}

typedef struct list_ctx {
	match m;           /* filters, staleness */
	json_t *root;      /* the tree */
	json_t *file;      /* current file node */
	const char *fpath; /* its path (owned by the node) */
	size_t files;      /* file nodes */
} list_ctx;

static int list_fn(void *ctx, const mi_side_rec *r)
{
	list_ctx *l = ctx;
	json_t *dir, *art;
	const char *base;
	bool stale;
	if (!wanted(&l->m, r))
		return 0;
	if (l->m.deadline && mi_art_now_us() > l->m.deadline) {
		l->m.timed_out = true;
		return 1;
	}
	if (!l->fpath || strcmp(l->fpath, r->path) != 0) {
		dir = tree_dir(l->root, r->path, strlen(r->path));
		base = strrchr(r->path, '/');
		l->file = json_pack("{s:s,s:s,s:[]}", "name", base ? base + 1 : r->path,
				    "path", r->path, "artifacts");
		json_array_append_new(json_object_get(dir, "files"), l->file);
		l->fpath = json_string_value(json_object_get(l->file, "path"));
		l->files++;
	}
	stale = is_stale(&l->m, r);
	art = json_pack("{s:s,s:s?,s:I,s:I,s:b}", "task", r->kind, "symbol",
			*r->name ? r->name : NULL, "created_ms", (json_int_t)r->created_ms,
			"chars", (json_int_t)r->text_len, "stale", stale);
	json_array_append_new(json_object_get(l->file, "artifacts"), art);
	l->m.n++;
	l->m.stale += stale;
	return 0;
}

static void tree_text(json_t *node, int depth, mi_buf *out)
{
	json_t *d, *f, *x;
	size_t i, k;
	json_array_foreach(json_object_get(node, "dirs"), i, d) {
		mi_buf_addf(out, "%*s%s/\n", depth * 2, "", json_string_value(json_object_get(d, "name")));
		tree_text(d, depth + 1, out);
	}
	json_array_foreach(json_object_get(node, "files"), i, f) {
		mi_buf_addf(out, "%*s%s:", depth * 2, "", json_string_value(json_object_get(f, "name")));
		json_array_foreach(json_object_get(f, "artifacts"), k, x) {
			const char *sym = json_string_value(json_object_get(x, "symbol"));
			mi_buf_addf(out, "%s %s%s%s%s", k ? "," : "",
				    json_string_value(json_object_get(x, "task")), sym ? " " : "",
				    sym ? sym : "", json_is_true(json_object_get(x, "stale")) ?
				    " (stale)" : "");
		}
		mi_buf_addc(out, '\n');
	}
}

int mi_art_list(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out)
{
	mi_buf dir = {0}, text = {0};
	list_ctx l;
	mi_side_txn *t;
	char *tree = NULL;
	int rc = 0;
	memset(&l, 0, sizeof l);
	if (r->directory && *r->directory && strcmp(r->directory, ".") != 0 &&
	    strcmp(r->directory, "/") != 0) {
		if (mi_path_normalize(r->directory, &dir)) {
			rc = mi_art_error(out, MI_ERR_PATH, "Give a directory relative to the "
					  "repository root, e.g. \"src\".", "Directory '%s' is "
					  "outside the repository or malformed.", r->directory);
			goto out;
		}
		if (dir.buf[dir.len - 1] != '/')
			mi_buf_addc(&dir, '/');
	}
	l.m.task = r->type && *r->type ? r->type : NULL;
	l.m.a = a;
	l.m.q = q;
	l.m.deadline = mi_art_now_us() + a->o.tool_timeout_ms * 1000;
	l.root = json_pack("{s:s,s:[],s:[]}", "name", dir.len ? dir.buf : "", "dirs", "files");
	rc = art_read(a, &t, out);
	if (rc == MI_ERR_NOINDEX)
		goto done;
	if (rc)
		goto out;
	rc = mi_side_scan(t, MI_SIDE_ARTIFACTS, dir.buf ? dir.buf : "", dir.len, list_fn, &l);
	mi_side_abort(t);
	if (rc) {
		rc = mi_art_error(out, rc, "Delete the damaged artifacts (delete_artifact) "
				  "and generate them again.", "Cannot list artifacts: %s.",
				  mi_strerror(rc));
		goto out;
	}
done:
	/* Directories under dir/ are nested from the path's start: show from dir. */
	{
		json_t *top = dir.len ? tree_dir(l.root, dir.buf, dir.len) : l.root;
		mi_buf data = {0};
		if (!l.m.n)
			mi_buf_addf(&text, "no artifacts%s%s%s%s\n", dir.len ? " under " : "",
				    dir.len ? dir.buf : "", l.m.task ? " of task " : "",
				    l.m.task ? l.m.task : "");
		else
			tree_text(top, 0, &text);
		if (l.m.timed_out)
			mi_buf_addf(&text, "(cut: the listing took longer than the tool timeout "
				    "of %lld ms; narrow it with directory)\n",
				    (long long)a->o.tool_timeout_ms);
		tree = json_dumps(top, JSON_COMPACT);
		mi_buf_addf(&data, "{\"directory\":");
		mi_buf_add_json_str(&data, dir.len ? dir.buf : "", dir.len);
		mi_buf_addf(&data, ",\"total\":%zu,\"files\":%zu,\"stale\":%zu,\"truncated\":%s,"
			    "\"tree\":%s}", l.m.n, l.files, l.m.stale,
			    l.m.timed_out ? "true" : "false", tree);
		mi_art_success(out, data.buf, text.buf, !l.m.n ?
			       "Make one: call generate_prompt {path, task} and answer its "
			       "prompt with store_llm_result." : l.m.stale ?
			       "Stale artifacts describe older sources: generate_prompt "
			       "refreshes one; delete_artifact removes it." :
			       "get_artifact {path} shows a file's artifacts.");
		mi_buf_release(&data);
		rc = 0;
	}
out:
	free(tree);
	json_decref(l.root);
	match_release(&l.m);
	mi_buf_release(&dir);
	mi_buf_release(&text);
	return rc;
}

/* ---- delete ---------------------------------------------------------------------------- */

/* ---- notes for the views ---------------------------------------------------------- */

typedef struct notes_ctx {
	uint8_t hash[16];        /* the index's hash of the file */
	mi_view_note *v;         /* collected */
	size_t n, cap;
	mi_buf mem;              /* NUL-separated texts (offsets in v[].text) */
	size_t *off;             /* text offsets, parallel to v */
	int *rank;               /* task preference of each note (lower wins) */
} notes_ctx;

/* Which stored tasks show as a summary line, preferred first. */
static int note_rank(const char *task)
{
	static const char *const order[] = {"summarize", "annotate", NULL};
	for (int i = 0; order[i]; i++)
		if (!strcmp(order[i], task))
			return i;
	return -1;
}

static int notes_fn(void *ctx, const mi_side_rec *r)
{
	notes_ctx *c = ctx;
	int rank = note_rank(r->kind);
	uint32_t line = r->num > 0 && r->num <= UINT32_MAX ? (uint32_t)r->num : 0;
	size_t k;
	if (rank < 0 || !r->has_hash || memcmp(r->hash, c->hash, 16) != 0)
		return 0; /* another task, or stale against what the view shows */
	if (!*r->name && strcmp(r->kind, "summarize"))
		return 0; /* a file's annotate answer repeats its symbols' lines */
	for (k = 0; k < c->n && c->v[k].line != line; k++)
		;
	if (k < c->n && c->rank[k] <= rank)
		return 0;
	if (k == c->n) {
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 16;
			c->v = mi_xrealloc(c->v, c->cap * sizeof *c->v);
			c->off = mi_xrealloc(c->off, c->cap * sizeof *c->off);
			c->rank = mi_xrealloc(c->rank, c->cap * sizeof *c->rank);
		}
		c->n++;
	}
	c->v[k].line = line;
	c->v[k].label = "summary";
	c->off[k] = c->mem.len;
	c->rank[k] = rank;
	mi_buf_add(&c->mem, r->text, r->text_len);
	mi_buf_addc(&c->mem, 0);
	return 0;
}

int mi_art_notes(mi_art *a, mi_query *q, const char *path, mi_art_notes_t *out)
{
	notes_ctx c;
	mi_side *s;
	mi_side_txn *t;
	mi_buf pre = {0}, norm = {0};
	mi_out ignore;
	int rc;
	memset(out, 0, sizeof *out);
	memset(&c, 0, sizeof c);
	memset(&ignore, 0, sizeof ignore);
	if (!path || mi_path_normalize(path, &norm) || mi_query_file_hash(q, norm.buf, c.hash)) {
		rc = 0; /* the view says what is wrong with the path */
		goto out;
	}
	rc = mi_art_side(a, false, &s, &ignore);
	if (rc) {
		rc = rc == MI_ERR_NOINDEX ? 0 : rc;
		goto out;
	}
	if ((rc = mi_side_begin(s, false, &t)))
		goto out;
	mi_buf_add(&pre, norm.buf, norm.len + 1);
	rc = mi_side_scan(t, MI_SIDE_ARTIFACTS, pre.buf, pre.len, notes_fn, &c);
	mi_side_abort(t);
	for (size_t k = 0; k < c.n; k++)
		c.v[k].text = NULL;
	if (!rc && c.n) {
		/* The texts move with the buffer: point into it only now. */
		out->mem = mi_buf_detach(&c.mem);
		for (size_t k = 0; k < c.n; k++)
			c.v[k].text = out->mem + c.off[k];
		out->v = c.v;
		out->n = c.n;
		c.v = NULL;
	}
out:
	free(c.v);
	free(c.off);
	free(c.rank);
	mi_buf_release(&c.mem);
	mi_buf_release(&pre);
	mi_buf_release(&norm);
	mi_out_release(&ignore);
	return rc;
}

void mi_art_notes_release(mi_art_notes_t *n)
{
	free(n->v);
	free(n->mem);
	memset(n, 0, sizeof *n);
}

/* ---- search with the host's model: prompts and the expanded query ----------------- */

/* A few of the answer's hits as "path:line signature" lines for a prompt. */
static void hits_lines(const mi_out *results, size_t max, bool docs, mi_buf *out)
{
	json_t *j = json_loadb(results->json.buf ? results->json.buf : "", results->json.len, 0, NULL);
	json_t *r = json_object_get(j, "results"), *h;
	size_t i;
	json_array_foreach(r, i, h) {
		const char *sig = json_string_value(json_object_get(h, "signature"));
		const char *crumb = json_string_value(json_object_get(h, "breadcrumb"));
		const char *doc = json_string_value(json_object_get(h, "doc_comment"));
		if (i >= max)
			break;
		mi_buf_addf(out, "- %s:%lld %s\n", json_string_value(json_object_get(h, "path")),
			    (long long)json_integer_value(json_object_get(h, "start_line")),
			    sig && *sig ? sig : crumb ? crumb : "");
		if (docs && doc && *doc)
			mi_buf_addf(out, "  %.*s\n", (int)strcspn(doc, "\n"), doc);
	}
	json_decref(j);
}

void mi_art_expand_prompt(const char *query, const mi_out *results, mi_buf *out)
{
	mi_buf_addf(out, "A developer searched this repository's code for: %s\n\n"
		    "List up to 8 other words and identifiers that the code they want is "
		    "likely to use: synonyms, the names such code usually has (function, "
		    "type and variable names, in this codebase's style when the hits below "
		    "show it), and related terms. One per line, no explanations, no "
		    "numbering.\n", query);
	if (results && results->json.len) {
		mi_buf hits = {0};
		hits_lines(results, 8, false, &hits);
		if (hits.len)
			mi_buf_addf(out, "\nWhat the plain search found first:\n%s", hits.buf);
		mi_buf_release(&hits);
	}
}

void mi_art_synth_prompt(const char *query, const mi_out *results, mi_buf *out)
{
	mi_buf hits = {0};
	hits_lines(results, 10, true, &hits);
	mi_buf_addf(out, "A developer searched this repository's code for: %s\n\n"
		    "These are the best hits, with their location and signature:\n%s\n"
		    "In three to five sentences, say what these results show about the "
		    "question: where the relevant code is and how the pieces relate. Then "
		    "suggest three follow-up questions or searches that would narrow it "
		    "down, one per line starting with \"- \".\n", query,
		    hits.len ? hits.buf : "(no hits)\n");
	mi_buf_release(&hits);
}

void mi_art_expand_query(const char *query, const char *answer, mi_buf *out)
{
	mi_buf_reset(out);
	/* The user's words twice: a query term's weight grows with its count,
	 * so they outweigh the model's guesses. */
	mi_buf_addf(out, "%s %s", query, query);
	for (const char *p = answer ? answer : ""; *p;) {
		const char *nl = strchr(p, '\n'), *b = p, *e = nl ? nl : p + strlen(p);
		size_t n = 0;
		p = nl ? nl + 1 : e;
		while (b < e && (isspace((unsigned char)*b) || *b == '-' || *b == '*' ||
				 isdigit((unsigned char)*b) || *b == '.' || *b == ')' || *b == '`'))
			b++;
		while (e > b && (isspace((unsigned char)e[-1]) || e[-1] == '`' || e[-1] == ','))
			e--;
		if (e <= b || out->len > 900)
			continue;
		for (const char *x = b; x < e && n < 80; x++, n++)
			;
		mi_buf_addc(out, ' ');
		mi_buf_add(out, b, n);
	}
}
