/*
 * dispatch.c - the dispatcher: one message in, its answer out.  It knows
 * the protocol versions (clients that initialize, 2024-11-05 to 2025-11-25,
 * and stateless 2026-07-28 requests that carry their version and
 * capabilities in _meta), the method table, sessions, cancellation,
 * progress and log notifications, change streams, and the result fields a
 * version wants (resultType, ttlMs/cacheScope, serverInfo in _meta).  It
 * calls the areas (tools, resources, prompts, tasks) through area.h and
 * hands each request down as an mi_mcp_ctx; nothing below calls back up
 * except through that ctx.
 */
#include "mcp_int.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MI_TTL_MS 300000          /* cacheable answers: fresh for 5 minutes */
#define MI_ASK_TIMEOUT_MS 60000   /* how long a tool waits for the client */
#define MI_POLL_MS 2000           /* how often a rebuild is looked for */

/* One request in flight. */
struct mi_mcp_call {
	mi_mcp_ctx ctx;              /* handed to the areas (ctx.self = this) */
	mi_mcp_session *sess;        /* the session it came in on */
	mi_rpc_msg msg;              /* the parsed message (owned) */
	const struct mi_method *m;   /* its method row */
	char *progress;              /* _meta.progressToken as JSON text or NULL */
	atomic_int cancelled;        /* set by notifications/cancelled */
	mi_mcp_sink sink;            /* where this call's notifications go */
	int log_level;               /* lowest level sent (MI_LOG_OFF: none) */
	bool modern;                 /* a stateless 2026-07-28 request */
	char version[16];            /* its protocol version */
	json_t *caps;                /* its client capabilities (owned) */
	uint64_t cid;                /* correlation id in the log */
	int64_t start_us;            /* monotonic start, for the log line */
	double progress_n;           /* last progress value sent */
	bool progress_sent;          /* progress_n holds one */
	char outcome[96];            /* for the log: "ok", "tool-error: ..." */
	mi_buf data;                 /* an error's data object, or empty */
	mi_mcp_outcome *oc;          /* the transport's view, or NULL */
	mi_mcp_listener *listener;   /* subscriptions/listen: its stream */
	struct mi_mcp_call *next;    /* in sess->calls */
};

/* One of our requests to the client, waiting for its answer. */
typedef struct mi_mcp_ask {
	char id[32];                 /* our request id (JSON text) */
	mi_buf answer;               /* its result or error message */
	int code;                    /* 0 result, else the error's code */
	bool done;                   /* the answer came */
	struct mi_mcp_ask *next;     /* in sess->asks */
} mi_mcp_ask;

static const char *const mi_log_names[] = {
	"debug", "info", "notice", "warning", "error", "critical", "alert",
	"emergency",
};

/* ---- time ------------------------------------------------------------------------------ */

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

static void sink_send(const mi_mcp_sink *k, const mi_buf *b)
{
	if (k->send && b->len)
		k->send(k->ctx, b->buf, b->len);
}

/* ---- the ctx handed to the areas ---------------------------------------------------------- */

static void ctx_progress(mi_mcp_ctx *x, double progress, double total,
			 const char *message)
{
	mi_mcp_call *c = x->self;
	mi_buf b = {0};
	if (!c->progress || !c->sink.send || atomic_load(&c->cancelled))
		return;
	if (c->progress_sent && progress <= c->progress_n) {
		/* Progress only rises, and never past the total. */
		progress = c->progress_n + 0.001;
		if (total > 0 && progress > total)
			return;
	}
	c->progress_n = progress;
	c->progress_sent = true;
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

static void send_log(const mi_mcp_sink *sink, int level, const char *msg)
{
	mi_buf b = {0};
	mi_buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
		    "\"params\":{\"level\":\"");
	mi_buf_adds(&b, mi_log_names[level]);
	mi_buf_adds(&b, "\",\"logger\":\"mcpidx\",\"data\":");
	mi_buf_add_json_str(&b, msg, strlen(msg));
	mi_buf_adds(&b, "}}");
	sink_send(sink, &b);
	mi_buf_release(&b);
}

static void ctx_log(mi_mcp_ctx *x, int level, const char *msg)
{
	mi_mcp_call *c = x->self;
	if (level < 0 || level >= MI_LOG_OFF || level < c->log_level ||
	    !c->sink.send || atomic_load(&c->cancelled))
		return;
	send_log(&c->sink, level, msg ? msg : "");
}

static bool ctx_cancelled(mi_mcp_ctx *x)
{
	mi_mcp_call *c = x->self;
	return atomic_load(&c->cancelled) || atomic_load(&c->sess->srv->env.stopping);
}

static int ctx_ask(mi_mcp_ctx *x, const char *method, const char *params,
		   int timeout_ms, mi_buf *result)
{
	mi_mcp_call *c = x->self;
	mi_mcp_session *ss = c->sess;
	static atomic_uint seq;
	mi_mcp_ask a, **pp;
	mi_buf req = {0};
	struct timespec dl;
	int rc;
	if (c->modern || !c->sink.send) {
		mi_buf_adds(result, "this request cannot carry a request to the client");
		return MI_RPC_NO_METHOD;
	}
	memset(&a, 0, sizeof a);
	snprintf(a.id, sizeof a.id, "\"mi-%u\"", atomic_fetch_add(&seq, 1) + 1);
	pthread_mutex_lock(&ss->mu);
	a.next = ss->asks;
	ss->asks = &a;
	pthread_mutex_unlock(&ss->mu);
	mi_rpc_put_request(&req, a.id, method, params);
	sink_send(&c->sink, &req);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&ss->mu);
	while (!a.done && !ctx_cancelled(x))
		if (pthread_cond_timedwait(&ss->ask_cv, &ss->mu, &dl) != 0)
			break;
	for (pp = &ss->asks; *pp; pp = &(*pp)->next)
		if (*pp == &a) {
			*pp = a.next;
			break;
		}
	pthread_mutex_unlock(&ss->mu);
	if (a.done) {
		mi_buf_add(result, a.answer.buf, a.answer.len);
		rc = a.code;
	} else {
		mi_buf_addf(result, "the client did not answer %s within %d ms", method,
			    timeout_ms);
		rc = MI_RPC_INTERNAL;
	}
	mi_buf_release(&a.answer);
	mi_buf_release(&req);
	return rc;
}

/* An answer from the client to one of our requests. */
static void take_answer(mi_mcp_session *ss, mi_rpc_msg *m)
{
	mi_mcp_ask *a;
	pthread_mutex_lock(&ss->mu);
	for (a = ss->asks; a; a = a->next)
		if (strcmp(a->id, m->id_text) == 0 && !a->done) {
			char *s;
			if (m->result) {
				s = json_dumps(m->result, JSON_COMPACT | JSON_ENCODE_ANY);
				a->code = 0;
			} else {
				json_t *code = json_object_get(m->error, "code");
				s = json_dumps(json_object_get(m->error, "message"),
					       JSON_COMPACT | JSON_ENCODE_ANY);
				a->code = json_is_integer(code) ?
					  (int)json_integer_value(code) : MI_RPC_INTERNAL;
			}
			mi_buf_adds(&a->answer, s ? s : "");
			free(s);
			a->done = true;
			pthread_cond_broadcast(&ss->ask_cv);
			break;
		}
	pthread_mutex_unlock(&ss->mu);
}

void mi_mcp_ctx_logf(mi_mcp_ctx *c, int level, const char *fmt, ...)
{
	mi_buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	mi_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	c->log(c, level, mi_buf_str(&b));
	mi_buf_release(&b);
}

bool mi_mcp_ctx_has_cap(const mi_mcp_ctx *c, const char *path)
{
	json_t *j = c->caps;
	const char *p = path, *slash;
	while (j && *p) {
		char key[128];
		size_t n;
		slash = strchr(p, '/');
		/* Extension names contain '/': the rest is one key after "extensions". */
		if (j != c->caps || strncmp(p, "extensions/", 11))
			n = slash ? (size_t)(slash - p) : strlen(p);
		else
			n = 10;
		if (n >= sizeof key)
			return false;
		memcpy(key, p, n);
		key[n] = 0;
		j = json_object_get(j, key);
		p += n;
		if (*p == '/')
			p++;
		if (j && strcmp(key, "extensions") == 0 && *p) {
			j = json_object_get(j, p);
			p += strlen(p);
		}
	}
	return j != NULL && !json_is_null(j) && !json_is_false(j);
}

/* ---- change streams ----------------------------------------------------------------------- */

void mi_mcp_listener_drop(mi_mcp_server *s, mi_mcp_listener *l)
{
	mi_mcp_listener **pp;
	if (!l)
		return;
	pthread_mutex_lock(&s->lis_mu);
	for (pp = &s->listeners; *pp; pp = &(*pp)->next)
		if (*pp == l) {
			*pp = l->next;
			s->sub_bytes -= l->bytes;
			break;
		}
	pthread_mutex_unlock(&s->lis_mu);
	json_decref(l->uris);
	free(l->id);
	free(l);
}

/* A notification to one listener, tagged with its subscription id. */
static void listener_note(mi_mcp_listener *l, const char *method, const char *params)
{
	mi_buf b = {0};
	mi_buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"");
	mi_buf_adds(&b, method);
	mi_buf_adds(&b, "\",\"params\":{");
	if (params && *params) {
		mi_buf_adds(&b, params);
		if (l->id)
			mi_buf_addc(&b, ',');
	}
	if (l->id)
		mi_buf_addf(&b, "\"_meta\":{\"" MI_META_SUBSCRIPTION "\":%s}", l->id);
	mi_buf_adds(&b, "}}");
	sink_send(&l->sink, &b);
	mi_buf_release(&b);
}

/* Tells the listeners that what changed (MI_CHANGE_*) changed. */
static void announce(mi_mcp_server *s, unsigned what, const char *uri)
{
	mi_mcp_listener *l;
	size_t i;
	json_t *u;
	pthread_mutex_lock(&s->lis_mu);
	for (l = s->listeners; l; l = l->next) {
		if ((what & MI_CHANGE_TOOLS) && l->tools)
			listener_note(l, "notifications/tools/list_changed", NULL);
		if ((what & MI_CHANGE_PROMPTS) && l->prompts)
			listener_note(l, "notifications/prompts/list_changed", NULL);
		if ((what & MI_CHANGE_RESOURCES) && l->resources)
			listener_note(l, "notifications/resources/list_changed", NULL);
		json_array_foreach(l->uris, i, u) {
			mi_buf p = {0};
			if (uri && strcmp(uri, json_string_value(u)))
				continue;
			if (!uri && !(what & MI_CHANGE_RESOURCES))
				continue;
			mi_buf_adds(&p, "\"uri\":");
			mi_buf_add_json_str(&p, json_string_value(u),
					    strlen(json_string_value(u)));
			listener_note(l, "notifications/resources/updated", p.buf);
			mi_buf_release(&p);
		}
	}
	pthread_mutex_unlock(&s->lis_mu);
}

/* env->changed: an area (or a rebuild) changed what the server offers. */
static void env_changed(mi_mcp_env *e, unsigned what, const char *uri)
{
	announce(e->changed_ctx, what, uri);
}

void mi_mcp_poll_changes(mi_mcp_server *s)
{
	uint64_t g;
	if (!s->spec->index)
		return;
	g = mi_mcp_index_poll(&s->env);
	if (g != s->seen_gen) {
		bool first = s->seen_gen == 0;
		s->seen_gen = g;
		if (!first)
			announce(s, MI_CHANGE_RESOURCES | MI_CHANGE_TOOLS, NULL);
	}
}

/* ---- server and session lifecycle --------------------------------------------------------- */

/* Looks for rebuilds while someone listens for changes. */
static void *poll_main(void *arg)
{
	mi_mcp_server *s = arg;
	pthread_mutex_lock(&s->run_mu);
	while (!atomic_load(&s->env.stopping)) {
		struct timespec dl;
		bool listening;
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += MI_POLL_MS / 1000;
		pthread_cond_timedwait(&s->poll_cv, &s->run_mu, &dl);
		if (atomic_load(&s->env.stopping))
			break;
		pthread_mutex_unlock(&s->run_mu);
		pthread_mutex_lock(&s->lis_mu);
		listening = s->listeners != NULL;
		pthread_mutex_unlock(&s->lis_mu);
		if (listening)
			mi_mcp_poll_changes(s);
		pthread_mutex_lock(&s->run_mu);
	}
	pthread_mutex_unlock(&s->run_mu);
	return NULL;
}

int mi_mcp_server_init(mi_mcp_server *s, const mi_mcp_opts *o,
		       const mi_mcp_spec *spec)
{
	int rc;
	memset(s, 0, sizeof *s);
	rc = mi_mcp_env_init(&s->env, o);
	if (rc)
		return rc;
	s->spec = spec;
	s->tools = mi_mcp_tools_new(spec);
	s->env.changed = env_changed;
	s->env.changed_ctx = s;
	for (size_t i = 1; s->env.repos && s->env.repos[i]; i++) {
		s->env.repos[i]->changed = env_changed;
		s->env.repos[i]->changed_ctx = s;
	}
	pthread_mutex_init(&s->run_mu, NULL);
	pthread_cond_init(&s->run_cv, NULL);
	pthread_mutex_init(&s->lis_mu, NULL);
	pthread_cond_init(&s->poll_cv, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (spec->index)
		s->has_poll = pthread_create(&s->poll, NULL, poll_main, s) == 0;
	return 0;
}

void mi_mcp_server_release(mi_mcp_server *s)
{
	atomic_store(&s->env.stopping, 1);
	mi_mcp_tasks_shutdown();
	pthread_mutex_lock(&s->run_mu);
	pthread_cond_broadcast(&s->poll_cv);
	while (s->running > 0)
		pthread_cond_wait(&s->run_cv, &s->run_mu);
	pthread_mutex_unlock(&s->run_mu);
	if (s->has_poll)
		pthread_join(s->poll, NULL);
	pthread_cond_destroy(&s->poll_cv);
	while (s->listeners)
		mi_mcp_listener_drop(s, s->listeners);
	mi_mcp_tools_free(s->tools);
	pthread_mutex_destroy(&s->run_mu);
	pthread_cond_destroy(&s->run_cv);
	pthread_mutex_destroy(&s->lis_mu);
	mi_mcp_env_release(&s->env);
}

void mi_mcp_session_init(mi_mcp_session *ss, mi_mcp_server *s, mi_mcp_sink sink)
{
	memset(ss, 0, sizeof *ss);
	ss->srv = s;
	ss->sink = sink;
	atomic_store(&ss->log_level, MI_LOG_OFF);
	strcpy(ss->version, MI_MCP_LEGACY);
	pthread_mutex_init(&ss->mu, NULL);
	pthread_cond_init(&ss->ask_cv, NULL);
}

void mi_mcp_session_release(mi_mcp_session *ss)
{
	mi_mcp_listener_drop(ss->srv, ss->listener);
	ss->listener = NULL;
	json_decref(ss->caps);
	ss->caps = NULL;
	pthread_mutex_destroy(&ss->mu);
	pthread_cond_destroy(&ss->ask_cv);
}

void mi_mcp_session_cancel_all(mi_mcp_session *ss)
{
	mi_mcp_call *c;
	pthread_mutex_lock(&ss->mu);
	for (c = ss->calls; c; c = c->next)
		atomic_store(&c->cancelled, 1);
	pthread_cond_broadcast(&ss->ask_cv);
	pthread_mutex_unlock(&ss->mu);
}

/* ---- capabilities ------------------------------------------------------------------------- */

static bool has_prompts(const mi_mcp_spec *s)
{
	return s->prompts && s->prompts[0];
}

static bool has_resources(const mi_mcp_spec *s)
{
	return s->resources && s->resources[0];
}

static bool groups_vary(const mi_mcp_spec *s)
{
	const mi_mcp_tool_group *const *g;
	for (g = s->groups; g && *g; g++)
		if ((*g)->applies)
			return true;
	return false;
}

static void put_caps(mi_buf *b, mi_mcp_server *s, const char *version, bool modern)
{
	const mi_mcp_spec *sp = s->spec;
	mi_buf_addf(b, "{\"tools\":{\"listChanged\":%s}",
		    groups_vary(sp) || sp->tools_change ? "true" : "false");
	if (has_resources(sp))
		mi_buf_addf(b, ",\"resources\":{\"subscribe\":true,\"listChanged\":true}");
	if (has_prompts(sp))
		mi_buf_addf(b, ",\"prompts\":{\"listChanged\":%s}",
			    sp->prompts_change ? "true" : "false");
	if (mi_mcp_spec_completes(sp) && mi_mcp_version_has(version, "completions"))
		mi_buf_adds(b, ",\"completions\":{}");
	mi_buf_adds(b, ",\"logging\":{}");
	if (modern)
		mi_buf_adds(b, ",\"extensions\":{\"" MI_EXT_TASKS "\":{}}");
	else if (mi_mcp_version_has(version, "tasks"))
		mi_buf_adds(b, ",\"tasks\":{\"list\":{},\"cancel\":{},"
			    "\"requests\":{\"tools\":{\"call\":{}}}}");
	mi_buf_addc(b, '}');
}

static void put_server_info(mi_buf *b, const mi_mcp_spec *sp, bool full)
{
	mi_buf_adds(b, "{\"name\":");
	mi_buf_add_json_str(b, sp->name, strlen(sp->name));
	mi_buf_adds(b, ",\"version\":");
	mi_buf_add_json_str(b, sp->version, strlen(sp->version));
	if (full && sp->title) {
		mi_buf_adds(b, ",\"title\":");
		mi_buf_add_json_str(b, sp->title, strlen(sp->title));
	}
	if (full && sp->description) {
		mi_buf_adds(b, ",\"description\":");
		mi_buf_add_json_str(b, sp->description, strlen(sp->description));
	}
	if (full && sp->icons) {
		mi_buf_adds(b, ",\"icons\":");
		mi_buf_adds(b, sp->icons);
	}
	mi_buf_addc(b, '}');
}

/* ---- methods -------------------------------------------------------------------------------- */

/* A method appends its result object to res and returns 0, or returns a
 * JSON-RPC error code with the message in emsg (and data in c->data). */
typedef int (*mi_method_fn)(mi_mcp_call *c, mi_buf *res, mi_buf *emsg);

enum {
	M_LEGACY = 1 << 0,    /* clients that initialized */
	M_MODERN = 1 << 1,    /* stateless 2026-07-28 requests */
	M_SLOW = 1 << 2,      /* may block: its own thread on stdio */
	M_CACHE = 1 << 3,     /* a CacheableResult in 2026-07-28 */
	M_TOOLS = 1 << 4,     /* needs the tools capability */
	M_RESOURCES = 1 << 5, /* needs resources */
	M_PROMPTS = 1 << 6,   /* needs prompts */
	M_COMPLETE = 1 << 7,  /* needs completions */
	M_BEFORE_INIT = 1 << 8, /* allowed before initialize */
};

typedef struct mi_method {
	const char *name;     /* JSON-RPC method */
	mi_method_fn fn;      /* handler */
	unsigned flags;       /* M_* */
} mi_method;

static int m_initialize(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	mi_mcp_session *ss = c->sess;
	mi_mcp_server *s = ss->srv;
	json_t *pv = json_object_get(c->msg.params, "protocolVersion");
	json_t *caps = json_object_get(c->msg.params, "capabilities");
	const char *ver;
	if (!c->msg.params) {
		mi_buf_adds(emsg, "initialize needs params {protocolVersion, "
			    "capabilities, clientInfo}");
		return MI_RPC_INVALID_PARAMS;
	}
	if (!json_is_string(pv)) {
		mi_buf_adds(emsg, "initialize: params.protocolVersion must be a "
			    "string such as \"" MI_MCP_LEGACY "\"");
		return MI_RPC_INVALID_PARAMS;
	}
	ver = mi_mcp_version_negotiate(json_string_value(pv));
	snprintf(ss->version, sizeof ss->version, "%s", ver);
	json_decref(ss->caps);
	ss->caps = json_is_object(caps) ? json_deep_copy(caps) : json_object();
	mi_buf_adds(res, "{\"protocolVersion\":\"");
	mi_buf_adds(res, ver);
	mi_buf_adds(res, "\",\"capabilities\":");
	put_caps(res, s, ver, false);
	mi_buf_adds(res, ",\"serverInfo\":");
	put_server_info(res, s->spec, true);
	if (s->spec->instructions) {
		mi_buf_adds(res, ",\"instructions\":");
		mi_buf_add_json_str(res, s->spec->instructions,
				    strlen(s->spec->instructions));
	}
	mi_buf_addc(res, '}');
	atomic_store(&ss->state, 1);
	if (ss->sink.send) {
		/* A session with a stream of its own (stdio) hears list changes
		 * without asking, as these versions have it. */
		pthread_mutex_lock(&s->lis_mu);
		if (!ss->listener) {
			ss->listener = mi_xcalloc(1, sizeof *ss->listener);
			ss->listener->sink = ss->sink;
			ss->listener->uris = json_array();
			ss->listener->next = s->listeners;
			s->listeners = ss->listener;
		}
		ss->listener->tools = true;
		ss->listener->prompts = has_prompts(s->spec);
		ss->listener->resources = has_resources(s->spec);
		pthread_mutex_unlock(&s->lis_mu);
	}
	mi_mcp_log_at(&s->env, MI_LOG_DEBUG, "session %s: protocol %s (client asked %s)",
		      ss->sid[0] ? ss->sid : "stdio", ver, json_string_value(pv));
	return 0;
}

static int m_discover(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	mi_mcp_server *s = c->sess->srv;
	mi_buf_adds(res, "{\"supportedVersions\":[\"" MI_MCP_MODERN "\"],"
		    "\"capabilities\":");
	put_caps(res, s, MI_MCP_MODERN, true);
	mi_buf_adds(res, ",\"serverInfo\":");
	put_server_info(res, s->spec, true);
	if (s->spec->instructions) {
		mi_buf_adds(res, ",\"instructions\":");
		mi_buf_add_json_str(res, s->spec->instructions,
				    strlen(s->spec->instructions));
	}
	mi_buf_addc(res, '}');
	return 0;
}

static int m_ping(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	mi_buf_adds(res, "{}");
	return 0;
}

static int m_set_level(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	int lv = mi_mcp_level_parse(mi_mcp_arg_str(c->msg.params, "level", ""));
	if (lv < 0 || lv >= MI_LOG_OFF) {
		mi_buf_adds(emsg, "logging/setLevel: params.level must be one of debug, "
			    "info, notice, warning, error, critical, alert, emergency");
		return MI_RPC_INVALID_PARAMS;
	}
	atomic_store(&c->sess->log_level, lv);
	mi_buf_adds(res, "{}");
	return 0;
}

static int m_tools_list(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	mi_buf_addc(res, '{');
	mi_mcp_tools_list(c->sess->srv->tools, &c->sess->srv->env, c->version, res);
	mi_buf_addc(res, '}');
	return 0;
}

/* The task runner: the tool call, on the task's thread. */
typedef struct task_call {
	mi_mcp_tools *tools;         /* the registry */
	char *name;                  /* tool */
	json_t *args;                /* arguments (owned) */
} task_call;

static int task_call_run(mi_mcp_ctx *x, void *arg, mi_buf *out, mi_buf *msg)
{
	task_call *tc = arg;
	char outcome[96];
	return mi_mcp_tools_call(tc->tools, x, tc->name, tc->args, out, msg, outcome,
				 sizeof outcome);
}

static void task_call_free(void *arg)
{
	task_call *tc = arg;
	free(tc->name);
	json_decref(tc->args);
	free(tc);
}

static int m_tools_call(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	mi_mcp_server *s = c->sess->srv;
	json_t *p = c->msg.params;
	json_t *name = json_object_get(p, "name");
	json_t *args = json_object_get(p, "arguments");
	json_t *task = NULL;
	const mi_mcp_tool *t;
	bool as_task = false;
	if (!json_is_string(name)) {
		mi_buf_adds(emsg, "tools/call: params.name must be the tool name "
			    "(see tools/list)");
		return MI_RPC_INVALID_PARAMS;
	}
	if (args && !json_is_object(args) && !json_is_null(args)) {
		mi_buf_adds(emsg, "tools/call: params.arguments must be an object");
		return MI_RPC_INVALID_PARAMS;
	}
	if (json_is_null(args))
		args = NULL;
	t = mi_mcp_tools_find(s->tools, &s->env, json_string_value(name));
	if (!t) {
		mi_buf_addf(emsg, "Unknown tool: %s; tools/list names the tools",
			    json_string_value(name));
		return MI_RPC_INVALID_PARAMS;
	}
	if (c->modern) {
		bool ext = mi_mcp_ctx_has_cap(&c->ctx, "extensions/" MI_EXT_TASKS);
		if ((t->flags & MI_TOOL_TASK_REQUIRED) && !ext) {
			mi_buf_addf(emsg, "%s runs only as a task: declare the "
				    MI_EXT_TASKS " extension in clientCapabilities",
				    t->name);
			mi_buf_adds(&c->data, "{\"requiredCapabilities\":{\"extensions\":"
				    "{\"" MI_EXT_TASKS "\":{}}}}");
			return MI_RPC_MISSING_CAPABILITY;
		}
		as_task = ext && (t->flags & (MI_TOOL_TASK_OPTIONAL | MI_TOOL_TASK_REQUIRED));
	} else if (mi_mcp_version_has(c->version, "tasks")) {
		/* Task augmentation exists from 2025-11-25 on; older sessions
		 * never saw the capability, so a stray "task" is ignored there. */
		task = json_object_get(p, "task");
		if (task && !json_is_null(task)) {
			if (!json_is_object(task)) {
				mi_buf_adds(emsg, "tools/call: params.task must be an object "
					    "such as {\"ttl\": 60000}");
				return MI_RPC_INVALID_PARAMS;
			}
			if (!(t->flags & (MI_TOOL_TASK_OPTIONAL | MI_TOOL_TASK_REQUIRED))) {
				mi_buf_addf(emsg, "%s cannot run as a task "
					    "(execution.taskSupport is \"forbidden\"); call "
					    "it without \"task\"", t->name);
				return MI_RPC_NO_METHOD;
			}
			as_task = true;
		} else if (t->flags & MI_TOOL_TASK_REQUIRED) {
			mi_buf_addf(emsg, "%s must run as a task: add \"task\": {} to the "
				    "params", t->name);
			return MI_RPC_NO_METHOD;
		}
	}
	if (t->requires && !mi_mcp_ctx_has_cap(&c->ctx, t->requires)) {
		mi_buf_addf(emsg, "%s needs the client capability %s; declare it in %s",
			    t->name, t->requires, c->modern ? "clientCapabilities" :
			    "initialize");
		mi_buf_addf(&c->data, "{\"requiredCapabilities\":{\"%s\":{}}}", t->requires);
		return c->modern ? MI_RPC_MISSING_CAPABILITY : MI_RPC_INVALID_PARAMS;
	}
	c->ctx.name = t->name;
	if (as_task) {
		task_call *tc = mi_xcalloc(1, sizeof *tc);
		mi_mcp_task_run run = { t->task_kind, task_call_run, tc, task_call_free };
		json_t *ttl = task ? json_object_get(task, "ttl") : NULL;
		/* Progress after the request returned reaches a stdio client only. */
		mi_mcp_sink none = {0};
		const mi_mcp_sink *notify = c->sess->sid[0] || c->modern ? &none :
					    &c->sess->sink;
		tc->tools = s->tools;
		tc->name = mi_xstrdup(t->name);
		tc->args = args ? json_deep_copy(args) : json_object();
		snprintf(c->outcome, sizeof c->outcome, "task created");
		return mi_mcp_task_start(&c->ctx, c->modern ? "" : c->sess->sid, c->modern,
					 json_is_integer(ttl) ? json_integer_value(ttl) : 0,
					 &run, notify, c->progress, res, emsg);
	}
	return mi_mcp_tools_call(s->tools, &c->ctx, t->name, args, res, emsg,
				 c->outcome, sizeof c->outcome);
}

static int m_tasks(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	return mi_mcp_tasks_method(&c->ctx, c->modern ? "" : c->sess->sid, c->modern,
				   c->msg.method, c->msg.params, res, emsg);
}

static int m_resources_list(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	return mi_mcp_resources_list(&c->ctx, c->sess->srv->spec, c->msg.params, res,
				     emsg);
}

static int m_resources_templates(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	mi_mcp_resources_templates(c->sess->srv->spec, &c->sess->srv->env, res);
	return 0;
}

static int m_resources_read(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	c->ctx.name = mi_mcp_arg_str(c->msg.params, "uri", NULL);
	return mi_mcp_resources_read(&c->ctx, c->sess->srv->spec, c->msg.params, res,
				     emsg, &c->data);
}

#define MAX_SUBS 1024          /* resources/subscribe URIs per session */
#define MAX_SUB_URI 8192       /* bytes of one */
#define MAX_SUB_BYTES (16u << 20) /* bytes of all the server's sessions' and
				   * listens' URIs: 4,096 sessions of 1,024
				   * URIs of 8 KiB would be 32 GiB */

/* Whether n more bytes of followed URIs fit the server's budget; the
 * refusal in emsg when not.  Caller holds lis_mu. */
static bool sub_budget_locked(mi_mcp_server *s, size_t n, const char *method, mi_buf *emsg)
{
	if (s->sub_bytes + n <= MAX_SUB_BYTES)
		return true;
	mi_buf_addf(emsg, "%s: the server already follows %zu KiB of resource URIs "
		    "for its clients, the most it keeps (%u KiB); unsubscribe from "
		    "some first", method, s->sub_bytes >> 10, MAX_SUB_BYTES >> 10);
	return false;
}

static int m_subscribe(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	mi_mcp_session *ss = c->sess;
	mi_mcp_server *s = ss->srv;
	const char *uri = mi_mcp_arg_str(c->msg.params, "uri", NULL);
	bool sub = strcmp(c->msg.method, "resources/subscribe") == 0;
	size_t i;
	json_t *u;
	if (!uri || !*uri) {
		mi_buf_addf(emsg, "%s needs params.uri", c->msg.method);
		return MI_RPC_INVALID_PARAMS;
	}
	/* Each subscription is kept for the session's life: URIs of a
	 * bounded length and number (a client sending distinct 16 MiB URIs
	 * grew the server without end).  Any URI is taken, as the SDKs'
	 * servers take one (the conformance suite subscribes to its own). */
	if (sub && strlen(uri) > MAX_SUB_URI) {
		mi_buf_addf(emsg, "resources/subscribe: a URI of %zu bytes; at most %d",
			    strlen(uri), MAX_SUB_URI);
		return MI_RPC_INVALID_PARAMS;
	}
	pthread_mutex_lock(&s->lis_mu);
	if (!ss->listener) {
		ss->listener = mi_xcalloc(1, sizeof *ss->listener);
		ss->listener->sink = ss->sink;
		ss->listener->uris = json_array();
		ss->listener->next = s->listeners;
		s->listeners = ss->listener;
	}
	json_array_foreach(ss->listener->uris, i, u)
		if (strcmp(json_string_value(u), uri) == 0)
			break;
	if (sub && i == json_array_size(ss->listener->uris) && i >= MAX_SUBS) {
		pthread_mutex_unlock(&s->lis_mu);
		mi_buf_addf(emsg, "resources/subscribe: this session already has %d "
			    "subscriptions; unsubscribe from some first", MAX_SUBS);
		return MI_RPC_INVALID_PARAMS;
	}
	if (sub && i == json_array_size(ss->listener->uris)) {
		if (!sub_budget_locked(s, strlen(uri), c->msg.method, emsg)) {
			pthread_mutex_unlock(&s->lis_mu);
			return MI_RPC_INVALID_PARAMS;
		}
		json_array_append_new(ss->listener->uris, json_string(uri));
		ss->listener->bytes += strlen(uri);
		s->sub_bytes += strlen(uri);
	} else if (!sub && i < json_array_size(ss->listener->uris)) {
		ss->listener->bytes -= strlen(uri);
		s->sub_bytes -= strlen(uri);
		json_array_remove(ss->listener->uris, i);
	}
	pthread_mutex_unlock(&s->lis_mu);
	mi_buf_adds(res, "{}");
	return 0;
}

static int m_listen(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	mi_mcp_server *s = c->sess->srv;
	json_t *f = json_object_get(c->msg.params, "notifications"), *uris;
	mi_mcp_listener *l;
	mi_buf ack = {0};
	bool first = true;
	size_t i;
	json_t *u;
	if (!json_is_object(f)) {
		mi_buf_adds(emsg, "subscriptions/listen needs params.notifications, "
			    "e.g. {\"toolsListChanged\": true}");
		return MI_RPC_INVALID_PARAMS;
	}
	/* The URIs it follows are kept as resources/subscribe's are: as
	 * many, as long, within the server's budget. */
	uris = json_object_get(f, "resourceSubscriptions");
	size_t nbytes = 0;
	json_array_foreach(uris, i, u) {
		size_t n = json_is_string(u) ? json_string_length(u) : 0;
		if (n > MAX_SUB_URI || i >= MAX_SUBS) {
			mi_buf_addf(emsg, "subscriptions/listen: %s; at most %d URIs of %d bytes",
				    n > MAX_SUB_URI ? "a resource URI too long" :
				    "too many resource URIs", MAX_SUBS, MAX_SUB_URI);
			return MI_RPC_INVALID_PARAMS;
		}
		nbytes += n;
	}
	l = mi_xcalloc(1, sizeof *l);
	l->sink = c->sink;
	l->id = mi_xstrdup(c->msg.id_text);
	l->tools = json_is_true(json_object_get(f, "toolsListChanged"));
	l->prompts = json_is_true(json_object_get(f, "promptsListChanged")) &&
		     has_prompts(s->spec);
	l->resources = json_is_true(json_object_get(f, "resourcesListChanged")) &&
		       has_resources(s->spec);
	l->uris = json_array();
	if (has_resources(s->spec)) {
		pthread_mutex_lock(&s->lis_mu);
		bool fits = sub_budget_locked(s, nbytes, "subscriptions/listen", emsg);
		if (fits)
			s->sub_bytes += nbytes;
		pthread_mutex_unlock(&s->lis_mu);
		if (!fits) {
			json_decref(l->uris);
			free(l->id);
			free(l);
			return MI_RPC_INVALID_PARAMS;
		}
		l->bytes = nbytes;
		json_array_foreach(uris, i, u)
			if (json_is_string(u))
				json_array_append(l->uris, u);
	}
	/* The acknowledgement is the stream's first message. */
	mi_buf_adds(&ack, "\"notifications\":{");
#define ACK(flag, key) if (flag) { mi_buf_addf(&ack, "%s\"" key "\":true", \
	first ? "" : ","); first = false; }
	ACK(l->tools, "toolsListChanged")
	ACK(l->prompts, "promptsListChanged")
	ACK(l->resources, "resourcesListChanged")
#undef ACK
	if (json_array_size(l->uris)) {
		char *s2 = json_dumps(l->uris, JSON_COMPACT);
		mi_buf_addf(&ack, "%s\"resourceSubscriptions\":%s", first ? "" : ",", s2);
		free(s2);
	}
	mi_buf_addc(&ack, '}');
	listener_note(l, "notifications/subscriptions/acknowledged", ack.buf);
	mi_buf_release(&ack);
	pthread_mutex_lock(&s->lis_mu);
	l->next = s->listeners;
	s->listeners = l;
	pthread_mutex_unlock(&s->lis_mu);
	c->listener = l;
	if (c->oc) {
		c->oc->listen = true;
		c->oc->call = c;
	}
	return 0;
}

static int m_prompts_list(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	mi_mcp_prompts_list(c->sess->srv->spec, res);
	return 0;
}

static int m_prompts_get(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	return mi_mcp_prompts_get(&c->ctx, c->sess->srv->spec, c->msg.params, res, emsg);
}

static int m_complete(mi_mcp_call *c, mi_buf *res, mi_buf *emsg)
{
	return mi_mcp_complete(&c->ctx, c->sess->srv->spec, c->msg.params, res, emsg);
}

#define BOTH (M_LEGACY | M_MODERN)

static const mi_method mi_methods[] = {
	{ "initialize", m_initialize, M_LEGACY | M_BEFORE_INIT },
	{ "server/discover", m_discover, BOTH | M_CACHE | M_BEFORE_INIT },
	{ "ping", m_ping, M_LEGACY | M_BEFORE_INIT },
	{ "logging/setLevel", m_set_level, M_LEGACY },
	{ "tools/list", m_tools_list, BOTH | M_CACHE | M_TOOLS },
	{ "tools/call", m_tools_call, BOTH | M_SLOW | M_TOOLS },
	{ "resources/list", m_resources_list, BOTH | M_CACHE | M_RESOURCES },
	{ "resources/templates/list", m_resources_templates,
	  BOTH | M_CACHE | M_RESOURCES },
	{ "resources/read", m_resources_read, BOTH | M_CACHE | M_RESOURCES },
	{ "resources/subscribe", m_subscribe, M_LEGACY | M_RESOURCES },
	{ "resources/unsubscribe", m_subscribe, M_LEGACY | M_RESOURCES },
	{ "subscriptions/listen", m_listen, M_MODERN },
	{ "prompts/list", m_prompts_list, BOTH | M_CACHE | M_PROMPTS },
	{ "prompts/get", m_prompts_get, BOTH | M_SLOW | M_PROMPTS },
	{ "completion/complete", m_complete, BOTH | M_COMPLETE },
	{ "tasks/get", m_tasks, BOTH },
	{ "tasks/cancel", m_tasks, BOTH },
	{ "tasks/list", m_tasks, M_LEGACY },
	{ "tasks/result", m_tasks, M_LEGACY | M_SLOW },
	{ "tasks/update", m_tasks, M_MODERN },
};

/* The row for name usable in this era by this server, or NULL. */
static const mi_method *method_find(mi_mcp_server *s, const char *name, bool modern)
{
	size_t i;
	const mi_mcp_spec *sp = s->spec;
	for (i = 0; i < sizeof mi_methods / sizeof *mi_methods; i++) {
		const mi_method *m = &mi_methods[i];
		if (strcmp(m->name, name))
			continue;
		if (!(m->flags & (modern ? M_MODERN : M_LEGACY)))
			return NULL;
		if (((m->flags & M_RESOURCES) && !has_resources(sp)) ||
		    ((m->flags & M_PROMPTS) && !has_prompts(sp)) ||
		    ((m->flags & M_COMPLETE) && !mi_mcp_spec_completes(sp)))
			return NULL;
		return m;
	}
	return NULL;
}

/* ---- calls ------------------------------------------------------------------------------- */

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
	mi_rpc_msg_release(&c->msg);
	json_decref(c->caps);
	free(c->progress);
	mi_buf_release(&c->data);
	free(c);
}

void mi_mcp_call_close(mi_mcp_call *c)
{
	mi_mcp_listener_drop(c->sess->srv, c->listener);
	c->listener = NULL;
	call_free(c);
}

static void cancel_request(mi_mcp_session *ss, json_t *params)
{
	json_t *rid = params ? json_object_get(params, "requestId") : NULL;
	char *want;
	mi_mcp_call *c, **pp, *closed = NULL;
	if (!rid || !(json_is_string(rid) || json_is_integer(rid)))
		return;
	want = json_dumps(rid, JSON_ENCODE_ANY | JSON_COMPACT);
	pthread_mutex_lock(&ss->mu);
	for (pp = &ss->calls; (c = *pp);) {
		if (strcmp(c->msg.id_text, want) || !strcmp(c->msg.method, "initialize")) {
			pp = &c->next;
			continue;
		}
		atomic_store(&c->cancelled, 1);
		mi_mcp_log_at(&ss->srv->env, MI_LOG_DEBUG,
			      "cid=%llu id=%s cancelled by the client",
			      (unsigned long long)c->cid, c->msg.id_text);
		if (c->listener) {
			/* A listen stream that ran to its end: close it. */
			*pp = c->next;
			c->next = closed;
			closed = c;
			continue;
		}
		pp = &c->next;
	}
	pthread_cond_broadcast(&ss->ask_cv);
	pthread_mutex_unlock(&ss->mu);
	while ((c = closed)) {
		closed = c->next;
		pthread_mutex_lock(&ss->mu);
		c->next = ss->calls;
		ss->calls = c;
		pthread_mutex_unlock(&ss->mu);
		mi_mcp_call_close(c);
	}
	free(want);
}

void mi_mcp_session_close_listens(mi_mcp_session *ss)
{
	mi_mcp_call *c;
	for (;;) {
		pthread_mutex_lock(&ss->mu);
		for (c = ss->calls; c && !c->listener; c = c->next)
			;
		pthread_mutex_unlock(&ss->mu);
		if (!c)
			break;
		mi_mcp_call_close(c);
	}
}

/* Copies s for a log line, control characters turned into '_'. */
static void log_word(char *out, size_t n, const char *s)
{
	size_t i;
	for (i = 0; s && s[i] && i + 1 < n; i++)
		out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '_' : s[i];
	out[i] = 0;
}

/* Appends the result of a 2026-07-28 request: the handler's object with
 * resultType, the cache hints of a cacheable result and the server's
 * identity in _meta put in front. */
static void put_modern_result(mi_mcp_call *c, mi_buf *out, const mi_buf *res)
{
	const mi_mcp_spec *sp = c->sess->srv->spec;
	const char *r = mi_buf_str(res);
	size_t n = res->len;
	mi_buf_addc(out, '{');
	if (strncmp(r, "{\"resultType\":", 14) != 0)
		mi_buf_adds(out, "\"resultType\":\"complete\",");
	if (c->m->flags & M_CACHE)
		mi_buf_addf(out, "\"ttlMs\":%d,\"cacheScope\":\"private\",", MI_TTL_MS);
	mi_buf_adds(out, "\"_meta\":{\"" MI_META_SERVER "\":");
	put_server_info(out, sp, false);
	mi_buf_addc(out, '}');
	if (n > 2 && r[0] == '{') {
		mi_buf_addc(out, ',');
		mi_buf_add(out, r + 1, n - 1);
	} else {
		mi_buf_addc(out, '}');
	}
}

/* serve --lock-memory: an index reopened after a rebuild whose map could
 * not be locked is served unlocked; the log says so once per failure. */
static void memlock_note(mi_mcp_env *env)
{
	static _Atomic int told;
	int e = mi_store_memlock_error();
	/* A load per call; the exchange only when the outcome changed. */
	if (e == atomic_load_explicit(&told, memory_order_relaxed))
		return;
	if (atomic_exchange(&told, e) != e && e)
		mi_mcp_log_at(env, MI_LOG_WARNING, "an index could not be locked in memory (%s): "
			      "it is served unlocked; raise ulimit -l to its size", strerror(e));
}

void mi_mcp_call_run(mi_mcp_call *c, mi_buf *out)
{
	mi_mcp_server *s = c->sess->srv;
	mi_buf res = {0}, emsg = {0};
	char mname[64], tname[64], outcome[sizeof c->outcome];
	int code;
	double ms;

	code = c->m->fn(c, &res, &emsg);
	if (atomic_load(&c->cancelled) && !c->listener) {
		snprintf(c->outcome, sizeof c->outcome, "cancelled");
	} else if (c->listener) {
		/* A listen stream: its answer closes it, at shutdown. */
		snprintf(c->outcome, sizeof c->outcome, "listening");
	} else if (code) {
		mi_rpc_put_error(out, c->msg.id_text, code, mi_buf_str(&emsg),
				 c->data.len ? c->data.buf : NULL);
		snprintf(c->outcome, sizeof c->outcome, "error %d: %.70s", code,
			 mi_buf_str(&emsg));
		if (c->oc)
			c->oc->code = code;
	} else {
		mi_buf_addf(out, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":",
			    c->msg.id_text);
		if (c->modern)
			put_modern_result(c, out, &res);
		else
			mi_buf_add(out, res.buf, res.len);
		mi_buf_addc(out, '}');
		if (!c->outcome[0])
			snprintf(c->outcome, sizeof c->outcome, "ok");
	}
	ms = (double)(mi_mcp_now_us() - c->start_us) / 1000.0;
	if (mi_mcp_log_wants(s->env.log, MI_LOG_DEBUG)) {
		log_word(mname, sizeof mname, c->msg.method);
		log_word(tname, sizeof tname, c->ctx.name);
		log_word(outcome, sizeof outcome, c->outcome);
		mi_mcp_log_at(&s->env, MI_LOG_DEBUG,
			      "cid=%llu session=%s id=%.80s method=%s%s%s ms=%.3f at=%lld "
			      "outcome=%s", (unsigned long long)c->cid,
			      c->sess->sid[0] ? c->sess->sid : c->modern ? "stateless" :
			      "stdio", c->msg.id_text, mname, c->ctx.name ? " tool=" : "",
			      tname, ms, (long long)c->start_us, outcome);
	}
	memlock_note(&s->env);
	if (c->ctx.name && strcmp(c->msg.method, "tools/call") == 0) {
		mi_buf l = {0};
		mi_buf_addf(&l, "%s took %.3f ms: %s", c->ctx.name, ms, c->outcome);
		ctx_log(&c->ctx, MI_LOG_DEBUG, l.buf);
		mi_buf_release(&l);
	}
	mi_buf_release(&res);
	mi_buf_release(&emsg);
	if (!c->listener)
		call_free(c);
}

bool mi_mcp_call_quick(const mi_mcp_call *c)
{
	const mi_mcp_tool *t;
	if (!(c->m->flags & M_SLOW))
		return true;
	if (strcmp(c->msg.method, "tools/call") ||
	    json_object_get(c->msg.params, "task"))
		return false;
	t = mi_mcp_tools_find(c->sess->srv->tools, &c->sess->srv->env,
			      mi_mcp_arg_str(c->msg.params, "name", ""));
	return t && !(t->flags & MI_TOOL_SLOW);
}

/* ---- the entry point for transports --------------------------------------------------------- */

static void reject(mi_mcp_server *s, mi_buf *out, const char *id, int code,
		   const char *msg, const char *data, mi_mcp_outcome *oc)
{
	mi_rpc_put_error(out, id, code, msg, data);
	mi_mcp_log_at(&s->env, MI_LOG_DEBUG, "id=%s rejected: %d %s", id ? id : "null",
		      code, msg);
	oc->code = code;
}

/* Strict standard base64 of s[0..n) into out: false on a bad character,
 * bad padding or a NUL decoded. */
static bool b64_decode(const char *s, size_t n, mi_buf *out)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i, k;
	if (n % 4)
		return false;
	for (i = 0; i < n; i += 4) {
		unsigned v[4], pad = 0;
		for (k = 0; k < 4; k++) {
			const char *p = s[i + k] ? strchr(tab, s[i + k]) : NULL;
			if (s[i + k] == '=' && i + 4 == n && k >= 2) {
				pad++;
				v[k] = 0;
			} else if (!p || pad) {
				return false;
			} else {
				v[k] = (unsigned)(p - tab);
			}
		}
		mi_buf_addc(out, (char)(v[0] << 2 | v[1] >> 4));
		if (pad < 2)
			mi_buf_addc(out, (char)((v[1] & 15) << 4 | v[2] >> 2));
		if (pad < 1)
			mi_buf_addc(out, (char)((v[2] & 3) << 6 | v[3]));
	}
	/* A NUL would end the value for the string compares that check it
	 * ("index_status\0anything" passed for index_status). */
	return !out->len || !memchr(out->buf, 0, out->len);
}

/* Decodes a header value (plain, or =?base64?...?=) into out; blanks
 * around it are not part of it (RFC 9110 field values).  False when the
 * value is malformed. */
static bool header_value(const char *h, mi_buf *out)
{
	size_t n, i;
	while (*h == ' ' || *h == '\t')
		h++;
	n = strlen(h);
	while (n && (h[n - 1] == ' ' || h[n - 1] == '\t'))
		n--;
	for (i = 0; i < n; i++)
		if ((unsigned char)h[i] < 0x20 && h[i] != '\t')
			return false;
	if (n >= 11 && strncmp(h, "=?base64?", 9) == 0 && strncmp(h + n - 2, "?=", 2) == 0)
		return b64_decode(h + 9, n - 11, out);
	mi_buf_add(out, h, n);
	return true;
}

/*
 * Checks the Mcp-Param-NAME headers of a tools/call against its arguments:
 * every argument whose schema carries x-mcp-header NAME must come with the
 * header, equal to it (numbers compared as numbers).  0 or -32020.
 */
static int check_param_headers(mi_mcp_server *s, const mi_mcp_in *in, mi_rpc_msg *m,
			       mi_buf *msg)
{
	json_t *schema = mi_mcp_tools_schema(s->tools, &s->env,
					     mi_mcp_arg_str(m->params, "name", ""));
	json_t *props = json_object_get(schema, "properties"), *ps;
	json_t *args = json_object_get(m->params, "arguments");
	const char *key;
	int rc = 0;
	json_object_foreach(props, key, ps) {
		json_t *hn = json_object_get(ps, "x-mcp-header"), *v;
		mi_buf name = {0}, got = {0};
		const char *h;
		if (!json_is_string(hn))
			continue;
		v = json_object_get(args, key);
		mi_buf_addf(&name, "Mcp-Param-%s", json_string_value(hn));
		h = in->header ? in->header(in->header_ctx, name.buf) : NULL;
		if (!v || json_is_null(v)) {
			mi_buf_release(&name);
			continue;
		}
		if (!h)
			mi_buf_addf(msg, "Header mismatch: %s is missing while the "
				    "arguments carry %s", name.buf, key);
		else if (!header_value(h, &got))
			mi_buf_addf(msg, "Header mismatch: %s is not a valid value", name.buf);
		else if (json_is_string(v) ? strcmp(got.buf ? got.buf : "", json_string_value(v)) :
			 json_is_integer(v) || json_is_real(v) ?
			 !got.len || strtod(got.buf, NULL) != json_number_value(v) :
			 json_is_boolean(v) ? strcmp(mi_buf_str(&got),
						     json_is_true(v) ? "true" : "false") : 0)
			mi_buf_addf(msg, "Header mismatch: %s does not match the argument "
				    "%s", name.buf, key);
		if (msg->len)
			rc = MI_RPC_HEADER_MISMATCH;
		mi_buf_release(&name);
		mi_buf_release(&got);
		if (rc)
			break;
	}
	return rc;
}

/* True when header value h, blanks around it aside, is exactly want. */
static bool header_is(const char *h, const char *want)
{
	mi_buf b = {0};
	bool r = h && header_value(h, &b) && strcmp(mi_buf_str(&b), want) == 0;
	mi_buf_release(&b);
	return r;
}

/*
 * Checks a stateless request: _meta carries a version we speak statelessly
 * and client capabilities; over HTTP the headers mirror the body.  Returns
 * 0, or a JSON-RPC code with the message (and data) filled.
 */
static int check_modern(mi_mcp_server *s, const mi_mcp_in *in, mi_rpc_msg *m,
			json_t *meta, mi_buf *msg, mi_buf *data)
{
	json_t *v = json_object_get(meta, MI_META_VERSION);
	json_t *caps = json_object_get(meta, MI_META_CAPS);
	const char *name_src = NULL;
	if (!json_is_string(v) || !json_is_object(caps)) {
		mi_buf_adds(msg, "Invalid params: _meta must carry \"" MI_META_VERSION
			    "\" (a string) and \"" MI_META_CAPS "\" (an object); clients "
			    "of 2025-11-25 and older send initialize first");
		return MI_RPC_INVALID_PARAMS;
	}
	if (in->http) {
		if (!header_is(in->hdr_version, json_string_value(v))) {
			mi_buf_addf(msg, "Header mismatch: MCP-Protocol-Version %s%.40s%s "
				    "does not match _meta protocolVersion %.40s",
				    in->hdr_version ? "'" : "(missing)",
				    in->hdr_version ? in->hdr_version : "",
				    in->hdr_version ? "'" : "", json_string_value(v));
			return MI_RPC_HEADER_MISMATCH;
		}
	}
	if (!mi_mcp_version_stateless(json_string_value(v)) ||
	    !mi_mcp_version_known(json_string_value(v))) {
		mi_buf_addf(msg, "Unsupported protocol version %.40s: stateless requests "
			    "speak " MI_MCP_MODERN " (older versions initialize)",
			    json_string_value(v));
		mi_buf_adds(data, "{\"supported\":[\"" MI_MCP_MODERN "\"],\"requested\":");
		mi_buf_add_json_str(data, json_string_value(v), json_string_length(v));
		mi_buf_addc(data, '}');
		return MI_RPC_UNSUPPORTED_VERSION;
	}
	if (in->http) {
		mi_buf hv = {0};
		int rc = 0;
		if (!header_is(in->hdr_method, m->method)) {
			mi_buf_addf(msg, "Header mismatch: Mcp-Method %s does not match "
				    "the body's method %.60s",
				    in->hdr_method ? "header" : "is missing; it", m->method);
			return MI_RPC_HEADER_MISMATCH;
		}
		if (!strcmp(m->method, "tools/call") || !strcmp(m->method, "prompts/get"))
			name_src = mi_mcp_arg_str(m->params, "name", "");
		else if (!strcmp(m->method, "resources/read"))
			name_src = mi_mcp_arg_str(m->params, "uri", "");
		if (name_src && (!in->hdr_name || !header_value(in->hdr_name, &hv) ||
				 strcmp(mi_buf_str(&hv), name_src))) {
			mi_buf_addf(msg, "Header mismatch: Mcp-Name %s does not match "
				    "the body's %.100s", in->hdr_name ? "header" :
				    "is missing; it", name_src);
			rc = MI_RPC_HEADER_MISMATCH;
		}
		mi_buf_release(&hv);
		if (rc)
			return rc;
		if (!strcmp(m->method, "tools/call"))
			return check_param_headers(s, in, m, msg);
	}
	return 0;
}

/* True when params._meta holds a key of the stateless protocol. */
static bool has_modern_meta(json_t *meta)
{
	return json_object_get(meta, MI_META_VERSION) ||
	       json_object_get(meta, MI_META_CAPS) ||
	       json_object_get(meta, MI_META_CLIENT);
}

int mi_mcp_handle(mi_mcp_session *ss, const mi_mcp_in *in, mi_buf *out,
		  mi_mcp_call **callp, mi_mcp_outcome *oc)
{
	mi_mcp_server *s = ss->srv;
	mi_rpc_msg m;
	mi_buf msg = {0}, data = {0};
	json_t *meta, *tok;
	mi_mcp_call *c;
	const mi_method *meth;
	bool modern;
	int rc = 0, code;
	mi_mcp_outcome dummy;

	if (!oc)
		oc = &dummy;
	memset(oc, 0, sizeof *oc);
	*callp = NULL;
	code = mi_rpc_parse(in->data, in->len, &m, &msg);
	if (code && (m.kind == MI_RPC_NOTIFICATION || m.kind == MI_RPC_RESPONSE)) {
		/* JSON-RPC answers neither, even when malformed: logged only. */
		mi_mcp_log_at(&s->env, MI_LOG_DEBUG, "%s dropped: %d %s",
			      m.kind == MI_RPC_RESPONSE ? "response" : "notification", code,
			      msg.buf);
		oc->code = code;
		goto out;
	}
	if (code) {
		reject(s, out, m.id_text, code, msg.buf, NULL, oc);
		goto out;
	}
	atomic_store(&ss->last_used_ms, mi_mcp_now_us() / 1000);
	if (m.kind == MI_RPC_RESPONSE) {
		take_answer(ss, &m);
		goto out;
	}
	if (m.kind == MI_RPC_NOTIFICATION) {
		if (strcmp(m.method, "notifications/cancelled") == 0)
			cancel_request(ss, m.params);
		else if (strcmp(m.method, "notifications/initialized") == 0 &&
			 atomic_load(&ss->state) >= 1)
			atomic_store(&ss->state, 2);
		goto out;
	}
	meta = json_object_get(m.params, "_meta");
	if (!json_is_object(meta))
		meta = NULL;
	/* Which era: a client that initialized keeps its session's version;
	 * _meta with the stateless keys (or server/discover) is 2026-07-28. */
	modern = (atomic_load(&ss->state) == 0 || has_modern_meta(meta)) &&
		 (has_modern_meta(meta) || strcmp(m.method, "server/discover") == 0);
	if (modern && (code = check_modern(s, in, &m, meta, &msg, &data))) {
		reject(s, out, m.id_text, code, msg.buf, data.len ? data.buf : NULL, oc);
		oc->modern = true;
		goto out;
	}
	oc->modern = modern;
	/* A retry's answers (2026-07-28): an object keyed by our request
	 * names, the state an opaque string; anything else is a protocol error,
	 * not a tool error. */
	if (modern && ((json_object_get(m.params, "inputResponses") &&
			!json_is_object(json_object_get(m.params, "inputResponses"))) ||
		       (json_object_get(m.params, "requestState") &&
			!json_is_string(json_object_get(m.params, "requestState"))))) {
		reject(s, out, m.id_text, MI_RPC_INVALID_PARAMS,
		       "inputResponses must be an object and requestState a string",
		       NULL, oc);
		goto out;
	}
	meth = method_find(s, m.method, modern);
	if (!meth) {
		mi_buf_addf(&msg, "Method not found: %.100s%s", m.method,
			    modern && method_find(s, m.method, false) ?
			    " (not part of " MI_MCP_MODERN ")" : "");
		reject(s, out, m.id_text, MI_RPC_NO_METHOD, msg.buf, NULL, oc);
		goto out;
	}
	if (!modern && !(meth->flags & M_BEFORE_INIT) && atomic_load(&ss->state) == 0) {
		mi_buf_addf(&msg, "Server not initialized: send initialize before %s "
			    "(or, for " MI_MCP_MODERN ", send _meta "
			    "\"" MI_META_VERSION "\" with each request)", m.method);
		reject(s, out, m.id_text, MI_RPC_INVALID_REQUEST, msg.buf, NULL, oc);
		goto out;
	}

	c = mi_xcalloc(1, sizeof *c);
	c->sess = ss;
	c->msg = m;
	memset(&m, 0, sizeof m);
	c->m = meth;
	c->sink = in->sink;
	c->oc = in->inline_only ? oc : NULL;
	c->modern = modern;
	c->cid = atomic_fetch_add(&s->next_cid, 1) + 1;
	c->start_us = mi_mcp_now_us();
	if (modern) {
		json_t *lv = json_object_get(meta, MI_META_LOG_LEVEL);
		int l = json_is_string(lv) ? mi_mcp_level_parse(json_string_value(lv)) : -1;
		snprintf(c->version, sizeof c->version, "%s",
			 json_string_value(json_object_get(meta, MI_META_VERSION)));
		c->caps = json_deep_copy(json_object_get(meta, MI_META_CAPS));
		c->log_level = l >= 0 ? l : MI_LOG_OFF;
	} else {
		snprintf(c->version, sizeof c->version, "%s", ss->version);
		c->caps = ss->caps ? json_incref(ss->caps) : json_object();
		c->log_level = atomic_load(&ss->log_level);
	}
	tok = meta ? json_object_get(meta, "progressToken") : NULL;
	if (tok && (json_is_string(tok) || json_is_integer(tok)))
		c->progress = json_dumps(tok, JSON_ENCODE_ANY | JSON_COMPACT);
	c->ctx.env = &s->env;
	c->ctx.version = c->version;
	c->ctx.caps = c->caps;
	c->ctx.method = c->msg.method;
	c->ctx.session = c->modern ? "" : ss->sid;
	c->ctx.input_responses = json_object_get(c->msg.params, "inputResponses");
	c->ctx.request_state = mi_mcp_arg_str(c->msg.params, "requestState", NULL);
	c->ctx.progress = ctx_progress;
	c->ctx.log = ctx_log;
	c->ctx.cancelled = ctx_cancelled;
	c->ctx.ask = ctx_ask;
	c->ctx.cancel = &c->cancelled;
	c->ctx.self = c;
	pthread_mutex_lock(&ss->mu);
	c->next = ss->calls;
	ss->calls = c;
	ss->refs++;
	pthread_mutex_unlock(&ss->mu);
	if ((meth->flags & M_SLOW) && !in->inline_only && !mi_mcp_call_quick(c)) {
		*callp = c;
		rc = 1;
		goto out;
	}
	mi_mcp_call_run(c, out);
out:
	mi_rpc_msg_release(&m);
	mi_buf_release(&msg);
	mi_buf_release(&data);
	return rc;
}

/* ---- entry ------------------------------------------------------------------------------------ */

int mi_mcp_serve_spec(const mi_mcp_opts *o, const mi_mcp_spec *spec)
{
	mi_mcp_server s;
	int rc;
	if (o->http && *o->http) {
		/* The HTTP transport waits for SIGINT/SIGTERM: every thread made
		 * from here on (log writer, poller, tasks) must leave them to it. */
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	}
	rc = mi_mcp_server_init(&s, o, spec);
	if (rc)
		return rc;
	if (o->http && *o->http)
		rc = mi_mcp_serve_http(&s, o->http);
	else
		rc = mi_mcp_serve_stdio(&s);
	mi_mcp_server_release(&s);
	return rc;
}

int mi_mcp_serve(const mi_mcp_opts *o)
{
	return mi_mcp_serve_spec(o, &mi_mcp_spec_mcpidx);
}
