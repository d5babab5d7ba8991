/*
 * server.c - the transport-independent MCP server: JSON-RPC 2.0 framing and
 * validation, the lifecycle (initialize, version negotiation, ping, logging,
 * cancellation, progress), the method table, the log, and the lazily opened
 * query handle.
 */
#include "mcp_int.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const mi_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
};

static const char *const mi_log_names[] = {
	"debug", "info", "notice", "warning", "error", "critical", "alert",
	"emergency",
};

static const char mi_instructions[] =
	"mcpidx answers questions about one code repository from a prebuilt index. "
	"Answers are folded text: one line per symbol with a block mark "
	"(F> function, C> class, S> struct, E> enum, T> trait/interface, "
	"M> module, # heading), bodies collapsed to { ... }, and V* lines for "
	"facts that are not source (diagnostics, members, hints).\n"
	"Work from coarse to fine to save tokens:\n"
	"1. search_code (or search_docs for prose) to find where something lives;\n"
	"2. read_file with mode outline to see a file's shape;\n"
	"3. expand_at to read one symbol's body;\n"
	"4. goto_definition and find_references to follow names; code_research "
	"for callers of callers, implementations of an interface, or the module "
	"dependency map.\n"
	"Paths are relative to the repository root. If a tool says there is no "
	"index, call index_codebase (or run `mcpidx build REPO`). index_status "
	"tells how fresh the index is.";

/* ---- time ------------------------------------------------------------------ */

int64_t mi_mcp_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void mi_mcp_iso_time(char out[32])
{
	struct timespec ts;
	struct tm tm;
	char tmp[24];
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(tmp, sizeof tmp, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, 32, "%s.%03dZ", tmp, (int)(ts.tv_nsec / 1000000));
}

/* ---- log ---------------------------------------------------------------- */

void mi_mcp_log(mi_mcp_server *s, const char *fmt, ...)
{
	char ts[32];
	va_list ap;
	if (!s->log)
		return;
	mi_mcp_iso_time(ts);
	pthread_mutex_lock(&s->log_mu);
	fprintf(s->log, "%s mcpidx[%d] ", ts, (int)getpid());
	va_start(ap, fmt);
	vfprintf(s->log, fmt, ap);
	va_end(ap);
	fputc('\n', s->log);
	fflush(s->log);
	pthread_mutex_unlock(&s->log_mu);
}

static void sink_send(const mi_mcp_sink *k, const mi_buf *b)
{
	if (k->send && b->len)
		k->send(k->ctx, b->buf, b->len);
}

void mi_mcp_notify_log(mi_mcp_session *ss, const mi_mcp_sink *sink, int level,
		       const char *fmt, ...)
{
	mi_buf msg = {0}, b = {0};
	va_list ap;
	if (!sink || !sink->send)
		sink = &ss->sink;
	if (level < atomic_load(&ss->log_level) || !sink->send)
		return;
	va_start(ap, fmt);
	mi_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	mi_buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
		    "\"params\":{\"level\":\"");
	mi_buf_adds(&b, mi_log_names[level]);
	mi_buf_adds(&b, "\",\"logger\":\"mcpidx\",\"data\":");
	mi_buf_add_json_str(&b, msg.buf ? msg.buf : "", msg.len);
	mi_buf_adds(&b, "}}");
	sink_send(sink, &b);
	mi_buf_release(&msg);
	mi_buf_release(&b);
}

/* ---- index path and the query handle ------------------------------------- */

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *abs_path(const char *p)
{
	char *r = realpath(p, NULL);
	mi_buf b = {0};
	char cwd[PATH_MAX];
	if (r)
		return r;
	if (p[0] == '/' || !getcwd(cwd, sizeof cwd))
		return mi_xstrdup(p);
	mi_buf_addf(&b, "%s/%s", cwd, p);
	return mi_buf_detach(&b);
}

static bool base_is_index(const char *p)
{
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		n--;
	return n >= 7 && memcmp(p + n - 7, ".mcpidx", 7) == 0 &&
	       (n == 7 || p[n - 8] == '/');
}

/* INDEX may name an index directory, a packed index file or a repository
 * (whose index is REPO/.mcpidx, possibly not built yet). */
static void resolve_index(const char *given, char **index, char **repo)
{
	struct stat st;
	mi_buf b = {0};
	char *a = abs_path(given && *given ? given : ".");
	char *d;
	mi_buf_addf(&b, "%s/data.mdb", a);
	if ((stat(a, &st) == 0 && S_ISREG(st.st_mode)) ||
	    access(b.buf, F_OK) == 0 || base_is_index(a)) {
		*index = a;
		d = mi_xstrdup(a);
		*repo = mi_xstrdup(dirname(d));
		free(d);
	} else {
		mi_buf_reset(&b);
		mi_buf_addf(&b, "%s/.mcpidx", a);
		*index = mi_buf_detach(&b);
		*repo = a;
	}
	mi_buf_release(&b);
}

/* The file whose identity tells whether the index was replaced. */
static void data_file(const char *index, mi_buf *out)
{
	mi_buf_reset(out);
	if (is_dir(index))
		mi_buf_addf(out, "%s/data.mdb", index);
	else
		mi_buf_adds(out, index);
}

int mi_mcp_query_get(mi_mcp_server *s, mi_query **q, mi_buf *err)
{
	mi_buf df = {0}, oerr = {0};
	struct stat st;
	int rc = 0, tries;
	*q = NULL;
	for (tries = 0; tries < 4; tries++) {
		bool have;
		pthread_rwlock_rdlock(&s->qlock);
		data_file(s->index_path, &df);
		have = stat(df.buf, &st) == 0;
		if (have && s->q && s->q_dev == st.st_dev && s->q_ino == st.st_ino) {
			*q = s->q;
			goto out;
		}
		if (!have) {
			mi_buf_addf(err, "No index at %s. Run: mcpidx build %s "
				    "(or call the index_codebase tool with path \"%s\").",
				    s->index_path, s->repo_path, s->repo_path);
			pthread_rwlock_unlock(&s->qlock);
			rc = MI_ERR_NOINDEX;
			goto out;
		}
		pthread_rwlock_unlock(&s->qlock);
		pthread_rwlock_wrlock(&s->qlock);
		data_file(s->index_path, &df);
		if (stat(df.buf, &st) == 0 &&
		    !(s->q && s->q_dev == st.st_dev && s->q_ino == st.st_ino)) {
			mi_query *nq = NULL;
			if (s->q)
				mi_query_close(s->q);
			s->q = NULL;
			mi_buf_reset(&oerr);
			rc = mi_query_open(s->index_path, &nq, &oerr);
			if (rc) {
				if (oerr.len)
					mi_buf_add(err, oerr.buf, oerr.len);
				if (oerr.len && rc == MI_ERR_VERSION)
					mi_buf_addf(err, " (or call the index_codebase tool with "
						    "path \"%s\" and force true).", s->repo_path);
				else if (!oerr.len)
					mi_buf_addf(err, "cannot open the index at %s: %s. "
						    "Rebuild it: mcpidx build --force %s",
						    s->index_path, mi_strerror(rc),
						    s->repo_path);
				pthread_rwlock_unlock(&s->qlock);
				goto out;
			}
			s->q = nq;
			s->q_dev = st.st_dev;
			s->q_ino = st.st_ino;
			mi_mcp_log(s, "opened index %s", s->index_path);
		}
		pthread_rwlock_unlock(&s->qlock);
	}
	mi_buf_addf(err, "the index at %s keeps changing under the server; "
		    "retry when the build has finished", s->index_path);
	rc = MI_ERR_CORRUPT;
out:
	mi_buf_release(&df);
	mi_buf_release(&oerr);
	return rc;
}

void mi_mcp_query_put(mi_mcp_server *s)
{
	pthread_rwlock_unlock(&s->qlock);
}

void mi_mcp_index_built(mi_mcp_server *s, const char *repo)
{
	mi_buf df = {0};
	char *idx, *rp;
	pthread_rwlock_wrlock(&s->qlock);
	data_file(s->index_path, &df);
	if (!s->q && access(df.buf, F_OK) != 0) {
		resolve_index(repo, &idx, &rp);
		mi_mcp_log(s, "serving the new index %s", idx);
		free(s->index_path);
		free(s->repo_path);
		s->index_path = idx;
		s->repo_path = rp;
	}
	pthread_rwlock_unlock(&s->qlock);
	mi_buf_release(&df);
}

/* ---- server and session lifecycle --------------------------------------- */

int mi_mcp_server_init(mi_mcp_server *s, const mi_mcp_opts *o)
{
	memset(s, 0, sizeof *s);
	s->opts = o;
	s->log = stderr;
	if (o->log_file && *o->log_file) {
		s->log = fopen(o->log_file, "a");
		if (!s->log) {
			int e = errno;
			fprintf(stderr, "mcpidx serve: cannot open log file %s: %s; "
				"check the directory exists and is writable\n",
				o->log_file, strerror(e));
			return e;
		}
	}
	pthread_mutex_init(&s->log_mu, NULL);
	pthread_rwlock_init(&s->qlock, NULL);
	pthread_mutex_init(&s->run_mu, NULL);
	pthread_cond_init(&s->run_cv, NULL);
	resolve_index(o->index, &s->index_path, &s->repo_path);
	if (o->self_exe && *o->self_exe)
		s->self_exe = abs_path(o->self_exe);
	else
		s->self_exe = mi_exe_path(NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

void mi_mcp_server_release(mi_mcp_server *s)
{
	atomic_store(&s->stopping, 1);
	mi_mcp_tasks_shutdown();
	mi_mcp_meta_release();
	mi_mcp_art_release();
	pthread_mutex_lock(&s->run_mu);
	while (s->running > 0)
		pthread_cond_wait(&s->run_cv, &s->run_mu);
	pthread_mutex_unlock(&s->run_mu);
	if (s->q)
		mi_query_close(s->q);
	s->q = NULL;
	if (s->log && s->log != stderr)
		fclose(s->log);
	s->log = NULL;
	free(s->index_path);
	free(s->repo_path);
	free(s->self_exe);
	pthread_rwlock_destroy(&s->qlock);
	pthread_mutex_destroy(&s->log_mu);
	pthread_mutex_destroy(&s->run_mu);
	pthread_cond_destroy(&s->run_cv);
}

void mi_mcp_session_init(mi_mcp_session *ss, mi_mcp_server *s, mi_mcp_sink sink)
{
	memset(ss, 0, sizeof *ss);
	ss->srv = s;
	ss->sink = sink;
	atomic_store(&ss->log_level, MI_LOG_OFF);
	strcpy(ss->version, MI_MCP_LATEST);
	pthread_mutex_init(&ss->mu, NULL);
}

void mi_mcp_session_release(mi_mcp_session *ss)
{
	pthread_mutex_destroy(&ss->mu);
}

/* ---- responses ------------------------------------------------------------- */

void mi_mcp_error_response(mi_buf *out, const char *id, int code,
			   const char *msg)
{
	mi_buf_addf(out, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":%d,"
		    "\"message\":", id ? id : "null", code);
	mi_buf_add_json_str(out, msg, strlen(msg));
	mi_buf_adds(out, "}}");
}

bool mi_mcp_cancelled(mi_mcp_call *c)
{
	return (c && atomic_load(&c->cancelled)) ||
	       (c && atomic_load(&c->sess->srv->stopping));
}

void mi_mcp_progress(mi_mcp_call *c, double progress, double total,
		     const char *message)
{
	mi_buf b = {0};
	if (!c || !c->progress || !c->sink.send)
		return;
	if (progress <= c->progress_n && c->progress_n > 0)
		progress = c->progress_n + 0.001;
	c->progress_n = progress;
	mi_buf_addf(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
		    "\"params\":{\"progressToken\":%s,\"progress\":%.10g",
		    c->progress, progress);
	if (total > 0)
		mi_buf_addf(&b, ",\"total\":%.10g", total);
	if (message) {
		mi_buf_adds(&b, ",\"message\":");
		mi_buf_add_json_str(&b, message, strlen(message));
	}
	mi_buf_adds(&b, "}}");
	sink_send(&c->sink, &b);
	mi_buf_release(&b);
}

/* ---- methods ----------------------------------------------------------------- */

/* A method appends its result object to res and returns 0, or returns a
 * JSON-RPC error code with the message in emsg. */
typedef int (*mi_method_fn)(mi_mcp_call *c, mi_buf *res, mi_buf *emsg);

static int m_initialize(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	mi_mcp_session *ss = c->sess;
	json_t *pv = c->params ? json_object_get(c->params, "protocolVersion") : NULL;
	const char *want, *ver = MI_MCP_LATEST;
	size_t i;
	if (!c->params || !json_is_object(c->params)) {
		mi_buf_adds(emsg, "initialize needs params {protocolVersion, "
			    "capabilities, clientInfo}");
		return MI_RPC_INVALID_PARAMS;
	}
	if (!json_is_string(pv)) {
		mi_buf_adds(emsg, "initialize: params.protocolVersion must be a "
			    "string such as \"" MI_MCP_LATEST "\"");
		return MI_RPC_INVALID_PARAMS;
	}
	want = json_string_value(pv);
	for (i = 0; i < sizeof mi_versions / sizeof *mi_versions; i++)
		if (strcmp(want, mi_versions[i]) == 0)
			ver = mi_versions[i];
	snprintf(ss->version, sizeof ss->version, "%s", ver);
	mi_buf_adds(res, "{\"protocolVersion\":\"");
	mi_buf_adds(res, ver);
	mi_buf_adds(res, "\",\"capabilities\":{\"tools\":{\"listChanged\":false},"
		    "\"logging\":{}");
	if (strcmp(ver, "2025-11-25") >= 0)
		mi_buf_adds(res, ",\"tasks\":{\"list\":{},\"cancel\":{},"
			    "\"requests\":{\"tools\":{\"call\":{}}}}");
	mi_buf_adds(res, "},\"serverInfo\":{\"name\":\"mcpidx\","
		    "\"title\":\"mcpidx code index\",\"version\":\"" MI_VERSION "\","
		    "\"description\":\"Compact, navigable, searchable view of a code "
		    "repository from a prebuilt index: folded outlines, symbol "
		    "lookup, references, BM25 code and docs search.\","
		    "\"icons\":" MI_MCP_ICONS "},\"instructions\":");
	mi_buf_add_json_str(res, mi_instructions, sizeof mi_instructions - 1);
	mi_buf_addc(res, '}');
	atomic_store(&ss->state, 1);
	mi_mcp_log(ss->srv, "session %s: protocol %s (client asked %s)",
		   ss->sid[0] ? ss->sid : "stdio", ver, want);
	return 0;
}

static int m_ping(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	mi_buf_adds(res, "{}");
	return 0;
}

static int m_tools_list(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	mi_mcp_tools_list(res);
	mi_mcp_art_list(res);
	mi_mcp_meta_list(c->sess->srv, res);
	mi_mcp_compile_list(c->sess->srv, res);
	return 0;
}

static int m_set_level(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	json_t *lv = c->params ? json_object_get(c->params, "level") : NULL;
	size_t i;
	if (json_is_string(lv))
		for (i = 0; i < sizeof mi_log_names / sizeof *mi_log_names; i++)
			if (strcmp(json_string_value(lv), mi_log_names[i]) == 0) {
				atomic_store(&c->sess->log_level, (int)i);
				mi_buf_adds(res, "{}");
				return 0;
			}
	mi_buf_adds(emsg, "logging/setLevel: params.level must be one of debug, "
		    "info, notice, warning, error, critical, alert, emergency");
	return MI_RPC_INVALID_PARAMS;
}

static int m_tools_call(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	json_t *name = c->params ? json_object_get(c->params, "name") : NULL;
	json_t *args = c->params ? json_object_get(c->params, "arguments") : NULL;
	int code = 0;
	if (!json_is_string(name)) {
		mi_buf_adds(emsg, "tools/call: params.name must be the tool name "
			    "(see tools/list)");
		return MI_RPC_INVALID_PARAMS;
	}
	if (args && !json_is_object(args) && !json_is_null(args)) {
		mi_buf_adds(emsg, "tools/call: params.arguments must be an object");
		return MI_RPC_INVALID_PARAMS;
	}
	if (mi_mcp_tool_call(c, json_string_value(name), args, res, &code, emsg))
		return code;
	return 0;
}

static int m_tasks(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	return mi_mcp_tasks_method(c, c->method, c->params, res, emsg);
}

typedef struct mi_method {
	const char *name;   /* JSON-RPC method */
	mi_method_fn fn;    /* handler */
	bool threaded;      /* may block: run on its own thread on stdio */
	bool before_init;   /* allowed before initialize */
} mi_method;

static const mi_method mi_methods[] = {
	{ "initialize", m_initialize, false, true },
	{ "ping", m_ping, false, true },
	{ "tools/list", m_tools_list, false, false },
	{ "tools/call", m_tools_call, true, false },
	{ "logging/setLevel", m_set_level, false, false },
	{ "tasks/get", m_tasks, false, false },
	{ "tasks/list", m_tasks, false, false },
	{ "tasks/result", m_tasks, true, false },
	{ "tasks/cancel", m_tasks, false, false },
};

static const mi_method *method_find(const char *name)
{
	size_t i;
	for (i = 0; i < sizeof mi_methods / sizeof *mi_methods; i++)
		if (strcmp(mi_methods[i].name, name) == 0)
			return &mi_methods[i];
	return NULL;
}

/* ---- calls ---------------------------------------------------------------- */

static char *json_text(json_t *v)
{
	return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

static void call_free(mi_mcp_call *c)
{
	mi_mcp_session *ss = c->sess;
	mi_mcp_call **pp;
	pthread_mutex_lock(&ss->mu);
	for (pp = &ss->calls; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	ss->refs--;
	pthread_mutex_unlock(&ss->mu);
	json_decref(c->root);
	free(c->id);
	free(c->progress);
	free(c);
}

static void cancel_request(mi_mcp_session *ss, json_t *params)
{
	json_t *rid = params ? json_object_get(params, "requestId") : NULL;
	char *want;
	mi_mcp_call *c;
	if (!rid || !(json_is_string(rid) || json_is_integer(rid)))
		return;
	want = json_text(rid);
	pthread_mutex_lock(&ss->mu);
	for (c = ss->calls; c; c = c->next)
		if (strcmp(c->id, want) == 0 && strcmp(c->method, "initialize")) {
			atomic_store(&c->cancelled, 1);
			mi_mcp_log(ss->srv, "cid=%llu id=%s cancelled by the client",
				   (unsigned long long)c->cid, c->id);
		}
	pthread_mutex_unlock(&ss->mu);
	free(want);
}

/* Copies s for a log line, control characters turned into '_'. */
static void log_word(char *out, size_t n, const char *s)
{
	size_t i;
	for (i = 0; s && s[i] && i + 1 < n; i++)
		out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '_' : s[i];
	out[i] = 0;
}

void mi_mcp_call_run(mi_mcp_call *c, mi_buf *out)
{
	mi_mcp_server *s = c->sess->srv;
	const mi_method *m = method_find(c->method);
	mi_buf res = {0}, emsg = {0};
	char mname[64], tname[64], outcome[sizeof c->outcome];
	int code = 0;
	double ms;

	if (!m) {
		code = MI_RPC_NO_METHOD;
		mi_buf_addf(&emsg, "Method not found: %s", c->method);
	} else if (!m->before_init && atomic_load(&c->sess->state) == 0) {
		code = MI_RPC_INVALID_REQUEST;
		mi_buf_addf(&emsg, "Server not initialized: send initialize before %s",
			    c->method);
	} else if (c->params && !json_is_object(c->params)) {
		code = MI_RPC_INVALID_PARAMS;
		mi_buf_adds(&emsg, "params must be an object");
	} else {
		code = m->fn(c, &res, &emsg);
	}
	if (mi_mcp_cancelled(c)) {
		snprintf(c->outcome, sizeof c->outcome, "cancelled");
	} else if (code) {
		mi_mcp_error_response(out, c->id, code, mi_buf_str(&emsg));
		snprintf(c->outcome, sizeof c->outcome, "error %d: %.70s", code,
			 mi_buf_str(&emsg));
	} else {
		mi_buf_addf(out, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":", c->id);
		mi_buf_add(out, res.buf, res.len);
		mi_buf_addc(out, '}');
		if (!c->outcome[0])
			snprintf(c->outcome, sizeof c->outcome, "ok");
	}
	ms = (double)(mi_mcp_now_us() - c->start_us) / 1000.0;
	log_word(mname, sizeof mname, c->method);
	log_word(tname, sizeof tname, c->tool);
	log_word(outcome, sizeof outcome, c->outcome);
	mi_mcp_log(s, "cid=%llu session=%s id=%.80s method=%s%s%s ms=%.3f outcome=%s",
		   (unsigned long long)c->cid,
		   c->sess->sid[0] ? c->sess->sid : "stdio", c->id, mname,
		   c->tool ? " tool=" : "", tname, ms, outcome);
	if (c->tool)
		mi_mcp_notify_log(c->sess, &c->sink, MI_LOG_DEBUG, "%s took %.3f ms: %s",
				  c->tool, ms, c->outcome);
	mi_buf_release(&res);
	mi_buf_release(&emsg);
	call_free(c);
}

/* ---- the entry point for transports --------------------------------------- */

static void invalid(mi_mcp_server *s, mi_buf *out, const char *id, int code,
		    const char *msg)
{
	mi_mcp_error_response(out, id, code, msg);
	mi_mcp_log(s, "id=%s rejected: %d %s", id ? id : "null", code, msg);
}

int mi_mcp_handle(mi_mcp_session *ss, const char *data, size_t len,
		  mi_mcp_sink call_sink, bool inline_only, mi_buf *out,
		  mi_mcp_call **callp)
{
	mi_mcp_server *s = ss->srv;
	json_error_t jerr;
	json_t *root, *jv, *idv, *meth, *params, *tok;
	mi_mcp_call *c;
	const mi_method *m;
	char *id = NULL;
	mi_buf msg = {0};
	int rc = 0;

	*callp = NULL;
	if (len > MI_MCP_MAX_MSG) {
		mi_buf_addf(&msg, "message of %zu bytes is over the %zu MiB limit; "
			    "send smaller requests", len, MI_MCP_MAX_MSG >> 20);
		invalid(s, out, NULL, MI_RPC_INVALID_REQUEST, msg.buf);
		goto out;
	}
	root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		mi_buf_addf(&msg, "Parse error: %s at line %d column %d",
			    jerr.text, jerr.line, jerr.column);
		invalid(s, out, NULL, MI_RPC_PARSE, msg.buf);
		goto out;
	}
	if (json_is_array(root)) {
		invalid(s, out, NULL, MI_RPC_INVALID_REQUEST,
			"Invalid Request: batch arrays are not supported (removed in "
			"MCP 2025-06-18); send one message per line");
		goto out_root;
	}
	if (!json_is_object(root)) {
		invalid(s, out, NULL, MI_RPC_INVALID_REQUEST,
			"Invalid Request: a message must be a JSON object");
		goto out_root;
	}
	idv = json_object_get(root, "id");
	if (idv && (json_is_string(idv) || json_is_integer(idv)))
		id = json_text(idv);
	jv = json_object_get(root, "jsonrpc");
	meth = json_object_get(root, "method");
	if (!json_is_string(jv) || strcmp(json_string_value(jv), "2.0")) {
		invalid(s, out, id, MI_RPC_INVALID_REQUEST,
			"Invalid Request: \"jsonrpc\" must be \"2.0\"");
		goto out_root;
	}
	if (!meth) {
		/* A response from the client: we send no requests, so ignore. */
		if (json_object_get(root, "result") || json_object_get(root, "error"))
			goto out_root;
		invalid(s, out, id, MI_RPC_INVALID_REQUEST,
			"Invalid Request: missing \"method\"");
		goto out_root;
	}
	if (!json_is_string(meth)) {
		invalid(s, out, id, MI_RPC_INVALID_REQUEST,
			"Invalid Request: \"method\" must be a string");
		goto out_root;
	}
	if (idv && !id) {
		invalid(s, out, NULL, MI_RPC_INVALID_REQUEST,
			"Invalid Request: \"id\" must be a string or an integer");
		goto out_root;
	}
	params = json_object_get(root, "params");
	atomic_store(&ss->last_used_ms, mi_mcp_now_us() / 1000);
	if (!idv) {
		const char *mn = json_string_value(meth);
		if (strcmp(mn, "notifications/cancelled") == 0)
			cancel_request(ss, params);
		else if (strcmp(mn, "notifications/initialized") == 0)
			atomic_store(&ss->state, 2);
		goto out_root;
	}

	c = mi_xcalloc(1, sizeof *c);
	c->sess = ss;
	c->root = root;
	c->method = json_string_value(meth);
	c->params = params;
	c->id = id;
	id = NULL;
	c->sink = call_sink;
	c->cid = atomic_fetch_add(&s->next_cid, 1) + 1;
	c->start_us = mi_mcp_now_us();
	if (json_is_object(params)) {
		json_t *meta = json_object_get(params, "_meta");
		tok = json_is_object(meta) ? json_object_get(meta, "progressToken") : NULL;
		if (tok && (json_is_string(tok) || json_is_integer(tok)))
			c->progress = json_text(tok);
		if (strcmp(c->method, "tools/call") == 0 &&
		    json_is_string(json_object_get(params, "name")))
			c->tool = json_string_value(json_object_get(params, "name"));
	}
	pthread_mutex_lock(&ss->mu);
	c->next = ss->calls;
	ss->calls = c;
	ss->refs++;
	pthread_mutex_unlock(&ss->mu);
	m = method_find(c->method);
	if (m && m->threaded && !inline_only) {
		*callp = c;
		rc = 1;
		goto out;
	}
	mi_mcp_call_run(c, out);
	goto out;
out_root:
	json_decref(root);
out:
	free(id);
	mi_buf_release(&msg);
	return rc;
}

/* ---- entry ---------------------------------------------------------------- */

int mi_mcp_serve(const mi_mcp_opts *o)
{
	mi_mcp_server s;
	int rc = mi_mcp_server_init(&s, o);
	if (rc)
		return rc;
	if (o->http && *o->http)
		rc = mi_mcp_serve_http(&s, o->http);
	else
		rc = mi_mcp_serve_stdio(&s);
	mi_mcp_server_release(&s);
	return rc;
}
