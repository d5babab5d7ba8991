/*
 * meta.c - the meta-server's side of serving upstream tools: the policy
 * that hides quarantined and denied tools, execute over kept-alive
 * connections (started lazily, restarted when they die) with progress and
 * cancellation passed through, confirmation of destructive and sensitive
 * tools, the execution log and the bundles drawn from it, and background
 * re-indexing when an upstream catalog changes.
 *
 * Writable state lives in the side store (format/side.h), never in the
 * index: approvals (path "server/tool", kind "approved", hash = the pin),
 * pending confirmations (kind "pending" / "confirmed", name = request id)
 * and the execution log (kind "execute", name = session).
 */
#include "mcp.h"
#include "../format/side.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define META_TIMEOUT_MS 120000   /* an upstream call, unless the server sets one */
#define META_ASK_MS 300000       /* a person answering an elicitation */
#define META_SLOTS 256           /* upstream servers with a live connection */
#define META_RELATED 3           /* suggestions per tool */
#define META_CONFIRM_TTL_MS (15 * 60 * 1000)
#define META_PROGRESS_MSG 512    /* bytes of an upstream progress message shown */
#define META_ECHO 512            /* bytes of an argument or server message an error quotes */
#define META_PENDING_MAX 64      /* requests of one tool waiting for a person */
#define META_PENDING_ARGS (64 << 10)  /* bytes of arguments such a request holds */

/* A connection and the calls using it: a dead one is closed by the
 * last of them, never under a call still inside it. */
typedef struct conn {
	mi_mcp_client *c;
	int users;
	struct conn *next;
} conn;

typedef struct slot {
	char *name;                /* server */
	mi_mcp_client *c;          /* NULL until first use or after it died */
	conn *conns;               /* c and the dead ones calls still use (mu) */
	pthread_mutex_t mu;        /* connecting */
	struct mi_meta *m;
} slot;

typedef struct prog {
	char token[32];            /* "mcpidx-" and 96 random bits: not guessable */
	const mi_meta_req *req;
	const struct slot *from;   /* the only server whose progress it takes */
} prog;

typedef struct pair {
	char *a, *b;               /* a < b */
	int n;                     /* sessions using both */
} pair;

struct mi_meta {
	char *index;
	char *servers_path;
	char *side_dir;
	char *self_exe;
	char secret[33];           /* binds a requestState to its call */
	char used[64][17];         /* nonces of requestStates answered (a ring) */
	unsigned nused;
	pthread_mutex_t mu;        /* servers, slots, progress table, bundles */
	mi_servers sv;
	struct timespec sv_mtime;
	slot *slots;
	size_t nslots;
	prog progs[64];
	mi_side *side;             /* opened on first need */
	mi_tools_policy policy;
	/* bundles */
	uint64_t log_seen;
	pair *pairs;
	size_t npairs;
	/* re-indexing */
	void (*changed)(void *ctx);
	void *changed_ctx;
	pthread_t poller;
	bool poller_started;
	pthread_cond_t stop_cv;
	bool stopping;
	pid_t child;               /* running build, 0 when none */
	bool again;                /* another re-index asked for while one ran */
	char *again_only;          /* its --only, NULL = all */
	pthread_t waiter;
	bool waiter_started;
};

/* ---- servers file -------------------------------------------------------------- */

/* Reloads the servers file when it changed (allow/deny edits apply at once).
 * Called with m->mu held. */
static void servers_fresh(mi_meta *m)
{
	struct stat sb;
	mi_buf err = {0};
	mi_servers nv;
	if (!m->servers_path || stat(m->servers_path, &sb) < 0)
		return;
	if (m->sv.v && MI_ST_MTIM(&sb).tv_sec == m->sv_mtime.tv_sec &&
	    MI_ST_MTIM(&sb).tv_nsec == m->sv_mtime.tv_nsec)
		return;
	if (mi_servers_load(m->servers_path, &nv, &err) == 0) {
		/* Connections of servers that are gone or changed stay until
		 * they die; the slots keep their names. */
		mi_servers_release(&m->sv);
		m->sv = nv;
		m->sv_mtime = MI_ST_MTIM(&sb);
	}
	mi_buf_release(&err);
}

/* ---- side store ------------------------------------------------------------------ */

static mi_side *side_get(mi_meta *m, bool create)
{
	mi_side *s;
	pthread_mutex_lock(&m->mu);
	if (!m->side && m->side_dir)
		mi_side_open(m->side_dir, create ? MI_SIDE_CREATE : 0, &m->side);
	s = m->side;
	pthread_mutex_unlock(&m->mu);
	return s;
}

static int approval(mi_side *s, const char *name, uint8_t hash[16])
{
	mi_side_txn *t;
	mi_side_rec r;
	int rc;
	if (!s || mi_side_begin(s, false, &t))
		return MI_ERR_NOTFOUND;
	rc = mi_side_get(t, MI_SIDE_APPROVALS, name, "approved", "", &r);
	if (!rc && r.has_hash)
		memcpy(hash, r.hash, 16);
	else if (!rc)
		rc = MI_ERR_NOTFOUND;
	mi_side_abort(t);
	return rc;
}

static int policy_state(void *ctx, const char *name, const uint8_t hash[16], uint32_t flags)
{
	mi_meta *m = ctx;
	const char *slash = strchr(name, '/');
	uint8_t pin[16];
	int st = MI_TOOL_VISIBLE;
	if (!slash)
		return MI_TOOL_DENIED;
	pthread_mutex_lock(&m->mu);
	servers_fresh(m);
	if (m->sv.v) {
		const mi_server_cfg *c = mi_servers_find(&m->sv, name, (size_t)(slash - name));
		if (c && !mi_server_cfg_allows(c, slash + 1))
			st = MI_TOOL_DENIED;
	}
	pthread_mutex_unlock(&m->mu);
	if (st == MI_TOOL_VISIBLE && !approval(side_get(m, false), name, pin) &&
	    memcmp(pin, hash, 16))
		st = MI_TOOL_QUARANTINED;
	return st;
}

const mi_tools_policy *mi_meta_policy(mi_meta *m)
{
	return &m->policy;
}

/* ---- bundles ---------------------------------------------------------------------- */

typedef struct sess_tools {
	char *session;
	char **tools;
	size_t n;
} sess_tools;

typedef struct scan_ctx {
	sess_tools *s;
	size_t n;
} scan_ctx;

static int scan_log(void *ctx, const mi_side_rec *r)
{
	scan_ctx *c = ctx;
	sess_tools *st = NULL;
	if (strcmp(r->kind, "execute") || !r->name[0] || strcmp(r->text, "ok"))
		return 0;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->s[i].session, r->name)) {
			st = &c->s[i];
			break;
		}
	if (!st) {
		c->s = mi_xrealloc(c->s, (c->n + 1) * sizeof(*c->s));
		st = &c->s[c->n++];
		memset(st, 0, sizeof(*st));
		st->session = mi_xstrdup(r->name);
	}
	for (size_t i = 0; i < st->n; i++)
		if (!strcmp(st->tools[i], r->path))
			return 0;
	st->tools = mi_xrealloc(st->tools, (st->n + 1) * sizeof(char *));
	st->tools[st->n++] = mi_xstrdup(r->path);
	return 0;
}

static void pairs_free(mi_meta *m)
{
	for (size_t i = 0; i < m->npairs; i++) {
		free(m->pairs[i].a);
		free(m->pairs[i].b);
	}
	free(m->pairs);
	m->pairs = NULL;
	m->npairs = 0;
}

/* Recounts the pairs of tools used in one session when the log grew.
 * Called with m->mu held. */
static void bundles_fresh(mi_meta *m, mi_side *s)
{
	mi_side_txn *t;
	scan_ctx c = {0};
	uint64_t n;
	if (!s || mi_side_begin(s, false, &t))
		return;
	n = mi_side_count(t, MI_SIDE_LOG);
	if (n == m->log_seen) {
		mi_side_abort(t);
		return;
	}
	mi_side_scan(t, MI_SIDE_LOG, NULL, 0, scan_log, &c);
	mi_side_abort(t);
	m->log_seen = n;
	pairs_free(m);
	for (size_t i = 0; i < c.n; i++) {
		sess_tools *st = &c.s[i];
		for (size_t a = 0; a < st->n; a++)
			for (size_t b = 0; b < st->n; b++) {
				if (strcmp(st->tools[a], st->tools[b]) >= 0)
					continue;
				size_t k;
				for (k = 0; k < m->npairs; k++)
					if (!strcmp(m->pairs[k].a, st->tools[a]) &&
					    !strcmp(m->pairs[k].b, st->tools[b]))
						break;
				if (k == m->npairs) {
					m->pairs = mi_xrealloc(m->pairs, (m->npairs + 1) * sizeof(pair));
					m->pairs[k].a = mi_xstrdup(st->tools[a]);
					m->pairs[k].b = mi_xstrdup(st->tools[b]);
					m->pairs[k].n = 0;
					m->npairs++;
				}
				m->pairs[k].n++;
			}
		for (size_t a = 0; a < st->n; a++)
			free(st->tools[a]);
		free(st->tools);
		free(st->session);
	}
	free(c.s);
}

void mi_meta_related(void *ctx, const char *name, mi_buf *out)
{
	mi_meta *m = ctx;
	mi_side *s = side_get(m, false);
	const char *best[META_RELATED] = {0};
	int bestn[META_RELATED] = {0};
	pthread_mutex_lock(&m->mu);
	bundles_fresh(m, s);
	for (size_t i = 0; i < m->npairs; i++) {
		const char *other = !strcmp(m->pairs[i].a, name) ? m->pairs[i].b :
				    !strcmp(m->pairs[i].b, name) ? m->pairs[i].a : NULL;
		int n = m->pairs[i].n;
		if (!other)
			continue;
		for (int k = 0; k < META_RELATED; k++)
			if (n > bestn[k]) {
				for (int j = META_RELATED - 1; j > k; j--) {
					best[j] = best[j - 1];
					bestn[j] = bestn[j - 1];
				}
				best[k] = other;
				bestn[k] = n;
				break;
			}
	}
	for (int k = 0; k < META_RELATED && best[k]; k++)
		mi_buf_addf(out, "%s%s", k ? ", " : "", best[k]);
	pthread_mutex_unlock(&m->mu);
}

/* ---- connections ------------------------------------------------------------------- */

static void reindex(mi_meta *m, const char *only);

static void on_note(void *ctx, const char *method, json_t *params)
{
	slot *sl = ctx;
	mi_meta *m = sl->m;
	if (!strcmp(method, "notifications/tools/list_changed")) {
		reindex(m, sl->name);
	} else if (!strcmp(method, "notifications/progress")) {
		json_t *tok = json_object_get(params, "progressToken");
		const mi_meta_req *req = NULL;
		if (!json_is_string(tok))
			return;
		pthread_mutex_lock(&m->mu);
		/* Only the server the token was given to may report on it: another
		 * server could otherwise speak into calls it has no part in. */
		for (size_t i = 0; i < sizeof(m->progs) / sizeof(m->progs[0]); i++)
			if (m->progs[i].req && m->progs[i].from == sl &&
			    !strcmp(m->progs[i].token, json_string_value(tok)))
				req = m->progs[i].req;
		if (req && req->progress) {
			json_t *msg = json_object_get(params, "message");
			mi_buf clean = {0};
			if (json_is_string(msg))
				mi_sanitize(json_string_value(msg), json_string_length(msg),
					    META_PROGRESS_MSG, &clean);
			req->progress(req->ctx, json_number_value(json_object_get(params, "progress")),
				      json_number_value(json_object_get(params, "total")),
				      json_is_string(msg) ? mi_buf_str(&clean) : NULL);
			mi_buf_release(&clean);
		}
		pthread_mutex_unlock(&m->mu);
	}
}

static slot *slot_get(mi_meta *m, const char *server)
{
	slot *s = NULL;
	pthread_mutex_lock(&m->mu);
	for (size_t i = 0; i < m->nslots; i++)
		if (!strcmp(m->slots[i].name, server))
			s = &m->slots[i];
	if (!s && m->nslots < META_SLOTS) {
		/* slots never move: the array is allocated once */
		s = &m->slots[m->nslots++];
		s->name = mi_xstrdup(server);
		s->m = m;
		pthread_mutex_init(&s->mu, NULL);
	}
	pthread_mutex_unlock(&m->mu);
	return s;
}

/* Closes the connections of s no call uses that are not its current
 * one.  Caller holds s->mu. */
static void slot_sweep(slot *s)
{
	conn **pp = &s->conns, *k;
	while ((k = *pp)) {
		if (!k->users && k->c != s->c) {
			*pp = k->next;
			mi_mcp_client_close(k->c);
			free(k);
		} else {
			pp = &k->next;
		}
	}
}

/* A live connection to the server, connecting or reconnecting as needed;
 * the caller gives it back with release_slot.  A dead connection another
 * call is still inside stays open until that call ends (it was closed
 * under it). */
static mi_mcp_client *connect_slot(mi_meta *m, slot *s, const mi_server_cfg *cfg, mi_buf *err)
{
	mi_mcp_client *c;
	pthread_mutex_lock(&s->mu);
	if (s->c && !mi_mcp_client_alive(s->c))
		s->c = NULL;
	slot_sweep(s);
	if (!s->c && !mi_server_connect(cfg, on_note, s, &s->c, err) && s->c) {
		conn *k = mi_xcalloc(1, sizeof *k);
		k->c = s->c;
		k->next = s->conns;
		s->conns = k;
	}
	c = s->c;
	for (conn *k = s->conns; c && k; k = k->next)
		if (k->c == c)
			k->users++;
	pthread_mutex_unlock(&s->mu);
	return c;
}

static void release_slot(slot *s, mi_mcp_client *c)
{
	if (!s || !c)
		return;
	pthread_mutex_lock(&s->mu);
	for (conn *k = s->conns; k; k = k->next)
		if (k->c == c)
			k->users--;
	slot_sweep(s);
	pthread_mutex_unlock(&s->mu);
}

/* ---- confirmation ------------------------------------------------------------------- */

static void call_hash(const char *tool, json_t *args, uint8_t out[16])
{
	mi_buf b = {0};
	char *a = args ? json_dumps(args, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
	mi_buf_addf(&b, "%s%c%s", tool, 0, a ? a : "{}");
	mi_hash128(b.buf, b.len, out);
	free(a);
	mi_buf_release(&b);
}

static void code_hash(const char *id, const char *code, uint8_t out[16])
{
	mi_buf b = {0};
	mi_buf_addf(&b, "mcpidx-confirm%c%s%c%s", 0, id, 0, code);
	mi_hash128(b.buf, b.len, out);
	mi_buf_release(&b);
}

typedef struct confirm_ctx {
	const char *tool;
	const char *code;
	uint8_t call[16];
	bool ok;
	char id[64];
	json_t *args;
	const char *args_text;     /* put_pending: the canonical arguments */
	char pending_id[17];
} confirm_ctx;

static int find_confirmed(void *ctx, const mi_side_rec *r)
{
	confirm_ctx *c = ctx;
	uint8_t h[16];
	if (strcmp(r->kind, "confirmed"))
		return 0;
	code_hash(r->name, c->code, h);
	if (r->has_hash && !memcmp(h, r->hash, 16) &&
	    r->num > mi_side_now_ms()) {
		snprintf(c->id, sizeof(c->id), "%s", r->name);
		return 1;
	}
	return 0;
}

/* Consumes a confirmation: the code matches a confirmed request of this
 * tool whose arguments hash to the same call. */
static int use_confirmation(mi_side_txn *t, void *ctx)
{
	confirm_ctx *c = ctx;
	mi_buf pfx = {0};
	mi_side_rec p;
	int rc;
	mi_buf_addf(&pfx, "%s%c", c->tool, 0);
	c->ok = false;
	c->id[0] = 0;
	rc = mi_side_scan(t, MI_SIDE_APPROVALS, pfx.buf, pfx.len, find_confirmed, c);
	mi_buf_release(&pfx);
	if (rc || !c->id[0])
		return rc;
	if (mi_side_get(t, MI_SIDE_APPROVALS, c->tool, "pending", c->id, &p) || !p.has_hash ||
	    memcmp(p.hash, c->call, 16))
		return 0;
	mi_side_del(t, MI_SIDE_APPROVALS, c->tool, "pending", c->id);
	mi_side_del(t, MI_SIDE_APPROVALS, c->tool, "confirmed", c->id);
	c->ok = true;
	return 0;
}

/* When a pending or confirmed request lapses (pending ones written before
 * they had an expiry: created + the same 15 minutes). */
static int64_t lapses_ms(const mi_side_rec *r)
{
	return r->num ? r->num : r->created_ms + META_CONFIRM_TTL_MS;
}

typedef struct sweep_ctx {
	const char *tool;
	int64_t now;
	mi_buf dead;               /* path \0 kind \0 name \0 of lapsed requests */
	struct live { char name[64]; int64_t at; } *live;  /* the tool's pending ones */
	size_t nlive, cap;
} sweep_ctx;

static int sweep_each(void *ctx, const mi_side_rec *r)
{
	sweep_ctx *w = ctx;
	bool pending = !strcmp(r->kind, "pending");
	if (!pending && strcmp(r->kind, "confirmed"))
		return 0;
	if (lapses_ms(r) <= w->now) {
		mi_buf_add(&w->dead, r->path, strlen(r->path) + 1);
		mi_buf_add(&w->dead, r->kind, strlen(r->kind) + 1);
		mi_buf_add(&w->dead, r->name, strlen(r->name) + 1);
	} else if (pending && !strcmp(r->path, w->tool)) {
		if (w->nlive == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 64;
			w->live = mi_xrealloc(w->live, w->cap * sizeof(*w->live));
		}
		snprintf(w->live[w->nlive].name, sizeof(w->live[0].name), "%s", r->name);
		w->live[w->nlive++].at = r->created_ms;
	}
	return 0;
}

static int by_age(const void *a, const void *b)
{
	const struct live *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* Records a request waiting for a person.  Lapsed requests of every tool go
 * first, and the oldest of this tool's beyond META_PENDING_MAX - 1: a model
 * calling again and again fills nothing. */
static int put_pending(mi_side_txn *t, void *ctx)
{
	confirm_ctx *c = ctx;
	sweep_ctx w = {.tool = c->tool, .now = mi_side_now_ms()};
	mi_side_rec r = {.path = c->tool, .kind = "pending", .name = c->pending_id,
			 .has_hash = true, .num = w.now + META_CONFIRM_TTL_MS,
			 .text = c->args_text};
	int rc = mi_side_scan(t, MI_SIDE_APPROVALS, NULL, 0, sweep_each, &w);
	for (size_t o = 0; !rc && o < w.dead.len;) {
		const char *path = w.dead.buf + o, *kind = path + strlen(path) + 1;
		const char *name = kind + strlen(kind) + 1;
		mi_side_del(t, MI_SIDE_APPROVALS, path, kind, name);
		o = (size_t)(name + strlen(name) + 1 - w.dead.buf);
	}
	if (!rc && w.nlive >= META_PENDING_MAX) {
		qsort(w.live, w.nlive, sizeof(*w.live), by_age);
		for (size_t i = 0; i + META_PENDING_MAX <= w.nlive; i++)
			mi_side_del(t, MI_SIDE_APPROVALS, c->tool, "pending", w.live[i].name);
	}
	if (!rc) {
		memcpy(r.hash, c->call, 16);
		r.text_len = strlen(r.text);
		rc = mi_side_put(t, MI_SIDE_APPROVALS, &r);
	}
	mi_buf_release(&w.dead);
	free(w.live);
	return rc;
}

/* ---- results ------------------------------------------------------------------------ */

/* How much of s an error quotes: at most META_ECHO bytes, at a UTF-8
 * boundary (ECHO adds the mark of a cut). */
static int echo_len(const char *s)
{
	size_t n = strlen(s);
	return (int)mi_utf8_prefix(s, n, META_ECHO);
}
#define ECHO(s) echo_len(s), (s), (s)[echo_len(s)] ? "\u2026" : ""

static void tool_error(mi_buf *out, json_t *structured, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void tool_error(mi_buf *out, json_t *structured, const char *fmt, ...)
{
	mi_buf msg = {0};
	va_list ap;
	va_start(ap, fmt);
	mi_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	mi_buf_reset(out);
	mi_buf_adds(out, "{\"content\":[{\"type\":\"text\",\"text\":");
	mi_buf_add_json_str(out, mi_buf_str(&msg), msg.len);
	mi_buf_adds(out, "}]");
	if (structured) {
		char *s = json_dumps(structured, JSON_COMPACT);
		mi_buf_addf(out, ",\"structuredContent\":%s", s);
		free(s);
	}
	mi_buf_adds(out, ",\"isError\":true}");
	mi_buf_release(&msg);
}

typedef struct log_ctx {
	mi_side_rec r;
} log_ctx;

static int put_log(mi_side_txn *t, void *ctx)
{
	log_ctx *l = ctx;
	return mi_side_append(t, MI_SIDE_LOG, &l->r, NULL);
}

static void log_exec(mi_meta *m, const char *tool, const mi_meta_req *req, int64_t ms,
		     const char *outcome)
{
	mi_side *s = side_get(m, true);
	log_ctx l = {.r = {.path = tool, .kind = "execute",
			   .name = req && req->session ? req->session : "",
			   .num = ms, .text = outcome, .text_len = strlen(outcome)}};
	if (s)
		mi_side_write(s, put_log, &l);
}

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool req_cancelled(void *ctx)
{
	const mi_meta_req *r = ctx;
	return r && r->cancelled && r->cancelled(r->ctx);
}

/* The params of our elicitation/create for one call (a new reference). */
static json_t *confirm_params(const char *tool, json_t *args)
{
	char *a = args ? json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	mi_buf msg = {0};
	json_t *p;
	mi_buf_addf(&msg, "Allow the tool %s to run with these arguments? %s", tool, a ? a : "{}");
	p = json_pack("{s:s,s:{s:s,s:{s:{s:s,s:s,s:s}},s:[s]}}", "message", mi_buf_str(&msg),
		      "requestedSchema", "type", "object", "properties", "approve", "type",
		      "boolean", "title", "Run it", "description", "Run this tool call once",
		      "required", "approve");
	free(a);
	mi_buf_release(&msg);
	return p;
}

/* 1 when an elicitation result accepts with approve: true, else 0. */
static int accepted(json_t *r)
{
	const char *action = json_string_value(json_object_get(r, "action"));
	json_t *ok = json_object_get(json_object_get(r, "content"), "approve");
	return action && !strcmp(action, "accept") && json_is_true(ok) ? 1 : 0;
}

/* Elicitation: the client asks the person.  1 accepted, 0 declined,
 * -1 could not ask. */
static int ask_person(const mi_meta_req *req, const char *tool, json_t *args)
{
	mi_buf res = {0};
	json_t *p = confirm_params(tool, args), *r;
	char *ps = json_dumps(p, JSON_COMPACT);
	int rc, answer = -1;
	rc = req->ask(req->ctx, "elicitation/create", ps, META_ASK_MS, &res);
	if (!rc && (r = json_loads(mi_buf_str(&res), 0, NULL))) {
		answer = accepted(r);
		json_decref(r);
	}
	free(ps);
	json_decref(p);
	mi_buf_release(&res);
	return answer;
}

/* The requestState of a confirmation question: a nonce and a hash of our
 * secret, the nonce, the tool and the hash of its arguments ("NONCE.HASH"),
 * so an answer confirms that call, once. */
static void input_state(const mi_meta *m, const char *nonce, const char *tool,
			const uint8_t call[16], mi_buf *out)
{
	mi_buf b = {0};
	uint8_t h[16];
	char hex[33];
	mi_buf_addf(&b, "mcpidx-input%c%s%c%s%c%s%c", 0, m->secret, 0, nonce, 0, tool, 0);
	mi_buf_add(&b, call, 16);
	mi_hash128(b.buf, b.len, h);
	mi_hash_hex(h, hex);
	mi_buf_addf(out, "%s.%s", nonce, hex);
	mi_buf_release(&b);
}

/* 2026-07-28 elicitation by retry.  1: the retry carries an accepting
 * answer to this call's question; 0: declined; -1: no answer yet (the
 * question was put in req->input_required); -2: the requestState is not
 * this call's, or was answered before. */
static int ask_by_retry(mi_meta *m, const mi_meta_req *req, const char *tool,
			json_t *args, const uint8_t call[16])
{
	char nonce[17];
	mi_buf want = {0};
	int rc = -1;
	if (req->state && req->input) {
		json_t *r = json_object_get(req->input, "confirm");
		size_t nl = strcspn(req->state, ".");
		if (nl != 16 || !json_is_object(r))
			return -2;
		memcpy(nonce, req->state, 16);
		nonce[16] = 0;
		input_state(m, nonce, tool, call, &want);
		rc = strcmp(mi_buf_str(&want), req->state) ? -2 : accepted(r);
		mi_buf_release(&want);
		if (rc == -2)
			return rc;
		pthread_mutex_lock(&m->mu);
		for (unsigned i = 0; i < 64; i++)
			if (!strcmp(m->used[i], nonce))
				rc = -2;
		if (rc != -2)
			snprintf(m->used[m->nused++ % 64], sizeof(m->used[0]), "%s", nonce);
		pthread_mutex_unlock(&m->mu);
		return rc;
	}
	mi_random_hex(nonce, 8);
	input_state(m, nonce, tool, call, &want);
	json_t *p = confirm_params(tool, args);
	char *ps = json_dumps(p, JSON_COMPACT);
	mi_buf_addf(req->input_required, "\"inputRequests\":{\"confirm\":{\"method\":"
		    "\"elicitation/create\",\"params\":%s}},\"requestState\":\"%s\"", ps,
		    mi_buf_str(&want));
	free(ps);
	json_decref(p);
	mi_buf_release(&want);
	return -1;
}

/* The pin again, from the server's own tools/list on the connection the
 * call will use: 0 when the tool is there with the pin it was indexed
 * (and approved) with, 1 when it changed or is gone (*why says how), -1
 * when the list could not be read (err). */
static int pin_recheck(mi_mcp_client *c, const mi_tool_info *ti, int timeout_ms,
		       const char **why, mi_buf *err)
{
	json_t *tools = NULL, *t;
	size_t i;
	int rc = 1;
	*why = "it is no longer in the server's tool list";
	if (mi_mcp_client_list_tools(c, timeout_ms, &tools, err))
		return -1;
	json_array_foreach(tools, i, t) {
		json_t *d = json_object_get(t, "description");
		char *in, *outs, *an;
		uint8_t h[16];
		if (!json_is_string(json_object_get(t, "name")) ||
		    strcmp(json_string_value(json_object_get(t, "name")), ti->name))
			continue;
		/* the JSON texts as the catalog build takes them (mi_tool_hash
		 * canonicalises key order) */
#define DUMP(k) (json_object_get(t, k) && !json_is_null(json_object_get(t, k)) ? \
		 json_dumps(json_object_get(t, k), JSON_COMPACT | JSON_ENCODE_ANY) : NULL)
		in = DUMP("inputSchema");
		outs = DUMP("outputSchema");
		an = DUMP("annotations");
#undef DUMP
		mi_tool_hash(ti->name, json_is_string(d) ? json_string_value(d) : NULL, in, outs, an, h);
		free(in);
		free(outs);
		free(an);
		rc = memcmp(h, ti->hash, 16) != 0;
		*why = "its description or schema differ from the ones it was indexed and approved with";
		break;
	}
	json_decref(tools);
	return rc;
}

int mi_meta_execute(mi_meta *m, mi_query *q, const char *tool, json_t *args,
		    const char *confirm, const mi_meta_req *req, mi_buf *out)
{
	mi_tool_info ti;
	mi_server_cfg cfg_copy;
	const mi_server_cfg *cfg;
	mi_mcp_client *c = NULL;
	slot *sl = NULL;
	mi_buf err = {0};
	json_t *params = NULL, *result = NULL;
	char token[32] = "";
	int64_t t0 = mono_ms();
	int rc, st, pslot = -1;
	bool cfg_ok = false, passed = false;
	mi_buf_reset(out);
	if (mi_query_tool_get(q, tool, &ti)) {
		tool_error(out, NULL, "Unknown tool %.*s%s. find_tools gives the names "
			   "(\"server/tool\").", ECHO(tool));
		return 1;
	}
	st = policy_state(m, tool, ti.hash, ti.flags);
	if (st != MI_TOOL_VISIBLE) {
		tool_error(out, NULL, st == MI_TOOL_QUARANTINED ?
			   "%s is quarantined: its description or schema changed since it was "
			   "approved. A person reviews it (mcpidx tools describe %s --level L2) "
			   "and runs: mcpidx tools approve %s" :
			   "%s is denied by the allow or deny lists of the servers file%s%s", tool,
			   st == MI_TOOL_QUARANTINED ? tool : "", st == MI_TOOL_QUARANTINED ? tool : "");
		log_exec(m, tool, req, 0, "refused");
		goto out;
	}
	pthread_mutex_lock(&m->mu);
	servers_fresh(m);
	cfg = mi_servers_find(&m->sv, ti.server, strlen(ti.server));
	if (cfg) {
		cfg_copy = *cfg;
		cfg_ok = true;
	}
	bool sensitive = cfg && mi_server_cfg_sensitive(cfg, ti.name);
	pthread_mutex_unlock(&m->mu);
	if (!cfg_ok) {
		tool_error(out, NULL, "The server of %s is not in the servers file %s any more; "
			   "rebuild the catalog: mcpidx build --servers FILE", tool,
			   m->servers_path ? m->servers_path : "(none recorded)");
		goto out;
	}
	/* Destructive or listed as sensitive: a person confirms. */
	if ((ti.flags & (MI_TOOLF_DESTRUCTIVE | MI_TOOLF_SENSITIVE)) || sensitive) {
		confirm_ctx cc = {.tool = tool, .code = confirm, .args = args};
		mi_side *s = side_get(m, true);
		call_hash(tool, args, cc.call);
		if (confirm && *confirm) {
			if (!s || mi_side_write(s, use_confirmation, &cc) || !cc.ok) {
				tool_error(out, NULL, "The confirmation code does not match a confirmed "
					   "request for this call of %s (codes are used once, expire "
					   "after 15 minutes and cover the same arguments only).", tool);
				log_exec(m, tool, req, 0, "refused");
				goto out;
			}
		} else {
			int a = req && req->ask ? ask_person(req, tool, args) : -1;
			if (a < 0 && req && req->can_input && req->input_required) {
				a = ask_by_retry(m, req, tool, args, cc.call);
				if (a == -1) {
					log_exec(m, tool, req, 0, "confirmation-asked");
					goto out;
				}
				if (a == -2) {
					tool_error(out, NULL, "The requestState does not belong to this "
						   "call of %s (its tool or arguments differ, or it was "
						   "answered before): call it again without "
						   "inputResponses.", tool);
					log_exec(m, tool, req, 0, "refused");
					goto out;
				}
			}
			if (a == 0) {
				tool_error(out, NULL, "The user declined to run %s.", tool);
				log_exec(m, tool, req, 0, "declined");
				goto out;
			}
			if (a < 0) {
				char *at = args ? json_dumps(args, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
				size_t al = at ? strlen(at) : 2;
				int wr;
				if (al > META_PENDING_ARGS) {
					free(at);
					tool_error(out, NULL, "%s needs a person's confirmation, and its "
						   "arguments are %zu bytes, over the %d a request waiting "
						   "for confirmation may hold: call it with smaller "
						   "arguments.", tool, al, META_PENDING_ARGS);
					log_exec(m, tool, req, 0, "refused");
					goto out;
				}
				cc.args_text = at ? at : "{}";
				mi_random_hex(cc.pending_id, 8);
				wr = !s || mi_side_write(s, put_pending, &cc);
				free(at);
				if (wr) {
					tool_error(out, NULL, "%s needs a person's confirmation, and the "
						   "side store beside the index is not writable to "
						   "record the request (see --side).", tool);
					goto out;
				}
				json_t *sc = json_pack("{s:b,s:s,s:s}", "confirmation_required", 1,
						       "request", cc.pending_id, "tool", tool);
				tool_error(out, sc, "%s can change or delete things, so a person must "
					   "confirm this call. Ask the user to run in a terminal:\n"
					   "  mcpidx tools confirm %s\n"
					   "It shows the call and prints a one-time code. Then call "
					   "execute again with the same arguments and \"confirm\": CODE.",
					   tool, cc.pending_id);
				json_decref(sc);
				log_exec(m, tool, req, 0, "confirmation-required");
				goto out;
			}
		}
	}
	{
		sl = slot_get(m, ti.server);
		c = sl ? connect_slot(m, sl, &cfg_copy, &err) : NULL;
		if (!sl)
			mi_buf_adds(&err, "too many upstream servers in use");
	}
	if (!c) {
		tool_error(out, NULL, "Cannot reach server %s for %s: %s", ti.server, tool,
			   mi_buf_str(&err));
		log_exec(m, tool, req, mono_ms() - t0, "error: unreachable");
		goto out;
	}
	/* A server may change a tool between two re-indexes without saying
	 * so: what runs must be what was indexed and approved. */
	{
		const char *why;
		int pr = pin_recheck(c, &ti, cfg_copy.timeout_ms > 0 ? cfg_copy.timeout_ms :
				     META_TIMEOUT_MS, &why, &err);
		if (pr) {
			if (pr > 0)
				tool_error(out, NULL, "%s was not run: on server %s %s. The catalog is "
					   "re-indexed now; a changed tool stays quarantined until a "
					   "person reviews it (mcpidx tools describe %s --level L2) and "
					   "runs: mcpidx tools approve %s", tool, ti.server, why, tool,
					   tool);
			else
				tool_error(out, NULL, "%s was not run: cannot read the tool list of "
					   "server %s to check its pin: %s", tool, ti.server,
					   mi_buf_str(&err));
			log_exec(m, tool, req, mono_ms() - t0,
				 pr > 0 ? "refused: changed upstream" : "error: unreachable");
			if (pr > 0)
				reindex(m, ti.server);
			goto out;
		}
	}
	params = json_pack("{s:s,s:O}", "name", ti.name, "arguments", args ? args : json_object());
	if (!args)
		json_decref(json_object_get(params, "arguments"));
	if (req && req->progress) {
		memcpy(token, "mcpidx-", 7);
		mi_random_hex(token + 7, 12);
		pthread_mutex_lock(&m->mu);
		for (size_t i = 0; i < sizeof(m->progs) / sizeof(m->progs[0]); i++)
			if (!m->progs[i].req) {
				snprintf(m->progs[i].token, sizeof(m->progs[i].token), "%s", token);
				m->progs[i].req = req;
				m->progs[i].from = sl;
				pslot = (int)i;
				break;
			}
		pthread_mutex_unlock(&m->mu);
		if (pslot >= 0)
			json_object_set_new(params, "_meta", json_pack("{s:s}", "progressToken", token));
	}
	{
		mi_mcp_cancel cancel = {.fn = req_cancelled, .ctx = (void *)req};
		rc = mi_mcp_client_request(c, "tools/call", params,
					   cfg_copy.timeout_ms > 0 ? cfg_copy.timeout_ms : META_TIMEOUT_MS,
					   req ? &cancel : NULL, &result, &err);
	}
	if (pslot >= 0) {
		pthread_mutex_lock(&m->mu);
		m->progs[pslot].req = NULL;
		pthread_mutex_unlock(&m->mu);
	}
	if (rc == 0) {
		char *s = json_dumps(result, JSON_COMPACT);
		mi_buf_adds(out, s);
		free(s);
		passed = true;
		log_exec(m, tool, req, mono_ms() - t0,
			 json_is_true(json_object_get(result, "isError")) ? "tool-error" : "ok");
	} else if (rc == MI_ERR_ARG) {
		json_t *msg = json_object_get(result, "message");
		mi_buf clean = {0};
		/* the server's words, shown as its descriptions are, and cut */
		if (json_is_string(msg))
			mi_sanitize(json_string_value(msg), json_string_length(msg), META_ECHO,
				    &clean);
		tool_error(out, NULL, "%s answered with an error: %s", tool,
			   json_is_string(msg) ? mi_buf_str(&clean) : mi_buf_str(&err));
		mi_buf_release(&clean);
		log_exec(m, tool, req, mono_ms() - t0, "error: protocol");
	} else if (rc == MI_ERR_CANCELLED) {
		tool_error(out, NULL, "Cancelled.");
		log_exec(m, tool, req, mono_ms() - t0, "cancelled");
	} else {
		tool_error(out, NULL, "%s%s", mi_buf_str(&err),
			   rc == EPIPE ? ". The server will be started again on the next call." : "");
		log_exec(m, tool, req, mono_ms() - t0, rc == ETIMEDOUT ? "timeout" : "error: died");
	}
out:
	release_slot(sl, c);
	json_decref(params);
	json_decref(result);
	mi_buf_release(&err);
	mi_tool_info_release(&ti);
	return passed ? 0 : 1;
}

/* ---- re-indexing -------------------------------------------------------------------- */

static void *wait_child(void *arg);

/* Starts a child build, or remembers to run one when the current ends.
 * Requests never wait for it. */
static void reindex(mi_meta *m, const char *only)
{
	pid_t pid;
	pthread_mutex_lock(&m->mu);
	if (m->stopping || !m->self_exe || !m->servers_path) {
		pthread_mutex_unlock(&m->mu);
		return;
	}
	if (m->child) {
		if (!m->again) {
			m->again = true;
			m->again_only = only ? mi_xstrdup(only) : NULL;
		} else if (m->again_only && (!only || strcmp(only, m->again_only))) {
			free(m->again_only);   /* two servers changed: fetch all */
			m->again_only = NULL;
		}
		pthread_mutex_unlock(&m->mu);
		return;
	}
	if (m->waiter_started) {
		pthread_join(m->waiter, NULL);
		m->waiter_started = false;
	}
	const char *argv[12];
	int k = 0;
	argv[k++] = m->self_exe;
	argv[k++] = "build";
	argv[k++] = "--servers";
	argv[k++] = m->servers_path;
	argv[k++] = "-o";
	argv[k++] = m->index;
	argv[k++] = "--quiet";
	if (only) {
		argv[k++] = "--only";
		argv[k++] = only;
	}
	argv[k] = NULL;
	pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid > 0) {
		m->child = pid;
		if (!pthread_create(&m->waiter, NULL, wait_child, m))
			m->waiter_started = true;
	}
	pthread_mutex_unlock(&m->mu);
}

static void *wait_child(void *arg)
{
	mi_meta *m = arg;
	int st;
	pid_t pid;
	pthread_mutex_lock(&m->mu);
	pid = m->child;
	pthread_mutex_unlock(&m->mu);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&m->mu);
	m->child = 0;
	bool again = m->again && !m->stopping;
	char *only = m->again_only;
	m->again = false;
	m->again_only = NULL;
	void (*changed)(void *) = m->stopping ? NULL : m->changed;
	void *cctx = m->changed_ctx;
	pthread_mutex_unlock(&m->mu);
	if (changed && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		changed(cctx);
	if (again) {
		/* reindex joins this thread: hand the work to a fresh one */
		pthread_mutex_lock(&m->mu);
		m->waiter_started = false;
		pthread_detach(pthread_self());
		pthread_mutex_unlock(&m->mu);
		reindex(m, only);
	}
	free(only);
	return NULL;
}

static void *poll_main(void *arg)
{
	mi_meta *m = arg;
	pthread_mutex_lock(&m->mu);
	while (!m->stopping) {
		struct timespec ts;
		int secs = m->sv.poll_seconds;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += secs > 0 ? secs : 3600;
		pthread_cond_timedwait(&m->stop_cv, &m->mu, &ts);
		if (m->stopping || m->sv.poll_seconds <= 0)
			continue;
		pthread_mutex_unlock(&m->mu);
		reindex(m, NULL);
		pthread_mutex_lock(&m->mu);
	}
	pthread_mutex_unlock(&m->mu);
	return NULL;
}

void mi_meta_reindex(mi_meta *m, const char *only)
{
	reindex(m, only);
}

/* ---- lifecycle ------------------------------------------------------------------------ */

int mi_meta_open(const mi_meta_opts *o, mi_meta **out, mi_buf *err)
{
	mi_meta *m = mi_xcalloc(1, sizeof(*m));
	mi_query *q = NULL;
	m->index = mi_xstrdup(o->index);
	m->self_exe = o->self_exe ? mi_xstrdup(o->self_exe) : NULL;
	m->changed = o->changed;
	m->changed_ctx = o->changed_ctx;
	m->side_dir = mi_side_locate(o->index, o->side);
	mi_random_hex(m->secret, 16);
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->stop_cv, NULL);
	m->policy.state = policy_state;
	m->policy.ctx = m;
	if (o->servers) {
		m->servers_path = mi_xstrdup(o->servers);
	} else if (!mi_query_open(o->index, &q, err)) {
		m->servers_path = mi_query_servers_file(q);
		mi_query_close(q);
		mi_buf_reset(err);
	}
	mi_buf_reset(err);
	if (m->servers_path) {
		struct stat sb;
		if (mi_servers_load(m->servers_path, &m->sv, err)) {
			/* keep going: the catalog can still be searched */
			mi_buf_reset(err);
		} else if (stat(m->servers_path, &sb) == 0) {
			m->sv_mtime = MI_ST_MTIM(&sb);
		}
	}
	m->slots = mi_xcalloc(META_SLOTS, sizeof(*m->slots));
	if (m->sv.poll_seconds > 0 && o->self_exe &&
	    !pthread_create(&m->poller, NULL, poll_main, m))
		m->poller_started = true;
	*out = m;
	return 0;
}

void mi_meta_close(mi_meta *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->mu);
	m->stopping = true;
	pthread_cond_broadcast(&m->stop_cv);
	if (m->child)
		kill(m->child, SIGTERM);
	pthread_mutex_unlock(&m->mu);
	if (m->poller_started)
		pthread_join(m->poller, NULL);
	pthread_mutex_lock(&m->mu);
	bool w = m->waiter_started;
	m->waiter_started = false;
	pthread_mutex_unlock(&m->mu);
	if (w)
		pthread_join(m->waiter, NULL);
	for (size_t i = 0; i < m->nslots; i++) {
		while (m->slots[i].conns) {
			conn *k = m->slots[i].conns;
			m->slots[i].conns = k->next;
			mi_mcp_client_close(k->c);
			free(k);
		}
		free(m->slots[i].name);
		pthread_mutex_destroy(&m->slots[i].mu);
	}
	free(m->slots);
	mi_servers_release(&m->sv);
	pairs_free(m);
	mi_side_close(m->side);
	free(m->again_only);
	free(m->index);
	free(m->servers_path);
	free(m->side_dir);
	free(m->self_exe);
	pthread_mutex_destroy(&m->mu);
	pthread_cond_destroy(&m->stop_cv);
	free(m);
}

/* ---- approvals, confirmations, aliases (the command line and the build) --------------- */

typedef struct pin_ctx {
	mi_query *q;
	const char *const *names;   /* approve these (NULL: pin new ones only) */
	size_t n;
	bool all;                   /* approve every tool */
	mi_buf *report;
	size_t pinned, quarantined, approved;
} pin_ctx;

typedef struct pin_one {
	pin_ctx *pc;
	mi_side_txn *t;
	int rc;
} pin_one;

static bool named(const pin_ctx *pc, const char *name)
{
	for (size_t i = 0; i < pc->n; i++)
		if (!strcmp(pc->names[i], name))
			return true;
	return false;
}

static int pin_each(void *ctx, const char *name, const uint8_t hash[16], uint32_t flags)
{
	pin_one *po = ctx;
	pin_ctx *pc = po->pc;
	mi_side_rec r, old;
	bool have = !mi_side_get(po->t, MI_SIDE_APPROVALS, name, "approved", "", &old) &&
		    old.has_hash;
	bool differs = have && memcmp(old.hash, hash, 16);
	bool approve = pc->all || named(pc, name);
	if (have && !differs)
		return 0;
	if (differs && !approve) {
		pc->quarantined++;
		mi_buf_addf(pc->report, "quarantined: %s (its description or schema changed since it "
			    "was approved; review it, then: mcpidx tools approve %s)\n", name, name);
		return 0;
	}
	memset(&r, 0, sizeof(r));
	r.path = name;
	r.kind = "approved";
	r.name = "";
	r.has_hash = true;
	memcpy(r.hash, hash, 16);
	r.text = differs ? "approved after a change" : approve ? "approved" : "first seen";
	r.text_len = strlen(r.text);
	if ((po->rc = mi_side_put(po->t, MI_SIDE_APPROVALS, &r)))
		return 1;
	if (differs || approve) {
		pc->approved++;
		mi_buf_addf(pc->report, "approved: %s\n", name);
	} else {
		pc->pinned++;
	}
	return 0;
}

static int pin_txn(mi_side_txn *t, void *ctx)
{
	pin_one po = {.pc = ctx, .t = t};
	pin_ctx *pc = ctx;
	pc->pinned = pc->quarantined = pc->approved = 0;
	mi_query_tools_each(pc->q, pin_each, &po);
	return po.rc;
}

int mi_meta_pin(const char *index, const char *side, const char *const *names, size_t n,
		bool all, mi_buf *report, mi_buf *err)
{
	char *dir = mi_side_locate(index, side);
	mi_side *s = NULL;
	mi_query *q = NULL;
	pin_ctx pc = {.names = names, .n = n, .all = all, .report = report};
	int rc;
	if (!dir) {
		mi_buf_addf(err, "no index at %s", index);
		return MI_ERR_NOINDEX;
	}
	if ((rc = mi_query_open(index, &q, err)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		mi_tool_info ti;
		if (mi_query_tool_get(q, names[i], &ti)) {
			mi_buf_addf(err, "no tool %s in the catalog of %s (names are \"server/tool\")",
				    names[i], index);
			rc = MI_ERR_NOTFOUND;
			goto out;
		}
		mi_tool_info_release(&ti);
	}
	if ((rc = mi_side_open(dir, MI_SIDE_CREATE, &s))) {
		mi_buf_addf(err, "cannot open the side store %s: %s (give a writable place with "
			    "--side DIR)", dir, mi_strerror(rc));
		goto out;
	}
	pc.q = q;
	if ((rc = mi_side_write(s, pin_txn, &pc)))
		mi_buf_addf(err, "cannot write approvals into %s: %s", dir, mi_strerror(rc));
	else if (pc.pinned)
		mi_buf_addf(report, "pinned %zu new tools\n", pc.pinned);
out:
	mi_side_close(s);
	mi_query_close(q);
	free(dir);
	return rc;
}

typedef struct show_ctx {
	const char *id;
	mi_buf *report;
	char tool[512];
	bool found;
	char code[24];
} show_ctx;

static int find_pending(void *ctx, const mi_side_rec *r)
{
	show_ctx *c = ctx;
	if (strcmp(r->kind, "pending") || strcmp(r->name, c->id) ||
	    lapses_ms(r) <= mi_side_now_ms())
		return 0;
	snprintf(c->tool, sizeof(c->tool), "%s", r->path);
	mi_buf_addf(c->report, "tool:      %s\narguments: %.*s\n", r->path, (int)r->text_len, r->text);
	c->found = true;
	return 1;
}

static int confirm_txn(mi_side_txn *t, void *ctx)
{
	show_ctx *c = ctx;
	mi_side_rec r;
	int rc;
	c->found = false;
	if ((rc = mi_side_scan(t, MI_SIDE_APPROVALS, NULL, 0, find_pending, c)) || !c->found)
		return rc;
	/* the request lives as long as its code */
	if (!mi_side_get(t, MI_SIDE_APPROVALS, c->tool, "pending", c->id, &r)) {
		r.num = mi_side_now_ms() + META_CONFIRM_TTL_MS;
		if ((rc = mi_side_put(t, MI_SIDE_APPROVALS, &r)))
			return rc;
	}
	memset(&r, 0, sizeof(r));
	r.path = c->tool;
	r.kind = "confirmed";
	r.name = c->id;
	r.has_hash = true;
	code_hash(c->id, c->code, r.hash);
	r.num = mi_side_now_ms() + META_CONFIRM_TTL_MS;
	r.text = "";
	return mi_side_put(t, MI_SIDE_APPROVALS, &r);
}

int mi_meta_confirm(const char *index, const char *side, const char *id, bool dry,
		    mi_buf *report, char code[24], mi_buf *err)
{
	char *dir = mi_side_locate(index, side);
	mi_side *s = NULL;
	show_ctx c = {.id = id, .report = report};
	int rc;
	code[0] = 0;
	if (!dir || (rc = mi_side_open(dir, 0, &s))) {
		mi_buf_addf(err, "no pending request %s: the side store of %s does not exist", id, index);
		rc = MI_ERR_NOTFOUND;
		goto out;
	}
	if (dry) {
		mi_side_txn *t;
		if (!(rc = mi_side_begin(s, false, &t))) {
			mi_side_scan(t, MI_SIDE_APPROVALS, NULL, 0, find_pending, &c);
			mi_side_abort(t);
		}
	} else {
		mi_random_hex(c.code, 6);
		rc = mi_side_write(s, confirm_txn, &c);
	}
	if (!rc && !c.found) {
		mi_buf_addf(err, "no pending request %s (requests are made by execute and used once)", id);
		rc = MI_ERR_NOTFOUND;
	}
	if (!rc && !dry)
		memcpy(code, c.code, sizeof(c.code));
out:
	mi_side_close(s);
	free(dir);
	return rc;
}

/* Aliases kept beside the catalog, for the catalog writer: the phrasings
 * of MI_SIDE_ALIASES records of this tool whose pin is the tool's. */
typedef struct alias_ctx {
	const uint8_t *hash;
	mi_buf *out;
} alias_ctx;

static int alias_each(void *ctx, const mi_side_rec *r)
{
	alias_ctx *a = ctx;
	if (strcmp(r->kind, "alias") || !r->has_hash || memcmp(r->hash, a->hash, 16))
		return 0;
	mi_buf_add(a->out, r->text, r->text_len);
	mi_buf_addc(a->out, '\n');
	return 0;
}

void mi_meta_side_aliases(void *side, const char *tool, const uint8_t hash[16], mi_buf *out)
{
	mi_side_txn *t;
	mi_buf pfx = {0};
	alias_ctx a = {.hash = hash, .out = out};
	if (!side || mi_side_begin(side, false, &t))
		return;
	mi_buf_addf(&pfx, "%s%calias%c", tool, 0, 0);
	mi_side_scan(t, MI_SIDE_ALIASES, pfx.buf, pfx.len, alias_each, &a);
	mi_side_abort(t);
	mi_buf_release(&pfx);
}

typedef struct alias_put {
	const char *tool;
	const char *text;
	uint8_t hash[16];
} alias_put;

static int alias_txn(mi_side_txn *t, void *ctx)
{
	alias_put *a = ctx;
	mi_side_rec r = {.path = a->tool, .kind = "alias", .name = "host", .has_hash = true,
			 .text = a->text, .text_len = strlen(a->text)};
	memcpy(r.hash, a->hash, 16);
	return mi_side_put(t, MI_SIDE_ALIASES, &r);
}

int mi_meta_store_aliases(const char *index, const char *side, const char *tool,
			  const char *text, mi_buf *err)
{
	char *dir = mi_side_locate(index, side);
	mi_side *s = NULL;
	mi_query *q = NULL;
	mi_tool_info ti;
	alias_put a = {.tool = tool, .text = text};
	int rc;
	if (!dir) {
		mi_buf_addf(err, "no index at %s", index);
		return MI_ERR_NOINDEX;
	}
	if ((rc = mi_query_open(index, &q, err)))
		goto out;
	if ((rc = mi_query_tool_get(q, tool, &ti))) {
		mi_buf_addf(err, "no tool %s in the catalog of %s (names are \"server/tool\")", tool, index);
		goto out;
	}
	memcpy(a.hash, ti.hash, 16);
	mi_tool_info_release(&ti);
	if ((rc = mi_side_open(dir, MI_SIDE_CREATE, &s))) {
		mi_buf_addf(err, "cannot open the side store %s: %s", dir, mi_strerror(rc));
		goto out;
	}
	if ((rc = mi_side_write(s, alias_txn, &a)))
		mi_buf_addf(err, "cannot store aliases in %s: %s", dir, mi_strerror(rc));
out:
	mi_side_close(s);
	mi_query_close(q);
	free(dir);
	return rc;
}
