/*
 * http.c - the streamable HTTP transport (libmicrohttpd): POST /mcp carries
 * one JSON-RPC message and gets a JSON response (or, for a tool call whose
 * client accepts text/event-stream and wants progress or log messages, an
 * SSE stream carrying those notifications and then the response),
 * Mcp-Session-Id names the session created by initialize, DELETE ends it,
 * GET answers 405 (no server-initiated stream).  Bound to loopback unless allow_remote; Host
 * and Origin are checked so a web page cannot reach the server through DNS
 * rebinding.
 */
#include "mcp_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>

#if MHD_VERSION < 0x00097002
typedef int MHD_Result;
#else
typedef enum MHD_Result MHD_Result;
#endif

#define MI_SESSION_IDLE_MS (3600 * 1000)
#define MI_MAX_SESSIONS 4096      /* past it the longest idle session is dropped */
#define MI_MAX_CONNECTIONS 1000   /* open connections at once (--max-connections) */
#define MI_IDLE_TIMEOUT 30        /* seconds before an idle one closes (--idle-timeout) */
#define MI_MAX_REQUESTS 64        /* requests worked on at once (--max-requests) */
#define MI_THREAD_STACK ((size_t)2 << 20) /* per connection thread */

typedef struct mi_hsess {
	mi_mcp_session ss;     /* the protocol session */
	int users;             /* requests using it now */
	bool dead;             /* DELETEd: free when users drops to 0 */
	struct mi_hsess *next; /* in mi_http.sessions */
} mi_hsess;

typedef struct mi_http {
	mi_mcp_server *srv;    /* the server */
	pthread_mutex_t mu;    /* guards sessions */
	mi_hsess *sessions;    /* live sessions */
	bool allow_remote;     /* skip the loopback Host check */
	const char *const *allow_hosts; /* --allow-host names */
	const char *token;     /* bearer token, or NULL */
	unsigned seq;          /* session id salt */
	atomic_uint busy;      /* requests being worked on */
	unsigned max_busy;     /* --max-requests */
} mi_http;

typedef struct mi_req {
	mi_buf body;           /* request body, up to MI_MCP_MAX_MSG */
	size_t seen;           /* bytes received, counted past the cap */
} mi_req;

/* ---- helpers ------------------------------------------------------------------ */

static MHD_Result reply(struct MHD_Connection *con, unsigned status,
			const char *ctype, const char *body, size_t len,
			const char *sid, const char *allow)
{
	struct MHD_Response *r;
	MHD_Result ret;
	r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	if (ctype)
		MHD_add_response_header(r, "Content-Type", ctype);
	if (sid)
		MHD_add_response_header(r, "Mcp-Session-Id", sid);
	if (allow)
		MHD_add_response_header(r, "Allow", allow);
	ret = MHD_queue_response(con, status, r);
	MHD_destroy_response(r);
	return ret;
}

static MHD_Result reply_error(struct MHD_Connection *con, unsigned status,
			      int code, const char *msg)
{
	mi_buf b = {0};
	MHD_Result r;
	mi_mcp_error_response(&b, NULL, code, msg);
	r = reply(con, status, "application/json", b.buf, b.len, NULL, NULL);
	mi_buf_release(&b);
	return r;
}

/* True when p[0..n) is a port: 1 to 5 digits, at most 65535. */
static bool is_port(const char *p, size_t n)
{
	unsigned long v = 0;
	size_t i;
	if (n == 0 || n > 5)
		return false;
	for (i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(p[i] - '0');
	}
	return v <= 65535;
}

/* True when h[0..n) is a dotted quad in 127.0.0.0/8. */
static bool is_loopback_quad(const char *h, size_t n)
{
	size_t i = 0, part = 0;
	unsigned v[4] = {0};
	while (part < 4) {
		size_t start = i;
		while (i < n && h[i] >= '0' && h[i] <= '9' && i - start < 3)
			v[part] = v[part] * 10 + (unsigned)(h[i++] - '0');
		if (i == start || v[part] > 255)
			return false;
		part++;
		if (part < 4) {
			if (i >= n || h[i] != '.')
				return false;
			i++;
		}
	}
	return i == n && v[0] == 127;
}

/*
 * Splits a Host value ("name", "name:port", "[v6]", "[v6]:port") into its
 * name; false when the value has any other shape (a second colon outside
 * brackets, userinfo, a path, an empty name, a bad port).
 */
static bool split_hostport(const char *h, size_t n, size_t *name_len)
{
	const char *colon;
	size_t i;
	if (n == 0)
		return false;
	for (i = 0; i < n; i++)
		if ((unsigned char)h[i] <= ' ' || h[i] == '@' || h[i] == '/' ||
		    h[i] == '\\' || h[i] == '?' || h[i] == '#' || h[i] == 0x7f)
			return false;
	if (h[0] == '[') {
		const char *rb = memchr(h, ']', n);
		if (!rb)
			return false;
		*name_len = (size_t)(rb - h) + 1;
		if (*name_len == n)
			return true;
		return h[*name_len] == ':' &&
		       is_port(h + *name_len + 1, n - *name_len - 1);
	}
	colon = memchr(h, ':', n);
	if (!colon) {
		*name_len = n;
		return true;
	}
	*name_len = (size_t)(colon - h);
	return *name_len > 0 && is_port(colon + 1, n - *name_len - 1);
}

/* True when the host[:port] value names loopback exactly, or a name the
 * operator allowed with --allow-host. */
static bool host_allowed(mi_http *h, const char *v, size_t n)
{
	size_t nl;
	const char *const *a;
	if (!split_hostport(v, n, &nl))
		return false;
	if ((nl == 9 && strncasecmp(v, "localhost", 9) == 0) ||
	    (nl == 5 && memcmp(v, "[::1]", 5) == 0) || is_loopback_quad(v, nl))
		return true;
	for (a = h->allow_hosts; a && *a; a++)
		if (strlen(*a) == nl && strncasecmp(v, *a, nl) == 0)
			return true;
	return false;
}

/* The host[:port] part of an Origin ("http://host:port", nothing after). */
static bool origin_hostport(const char *o, const char **hp, size_t *n)
{
	const char *p;
	if (strncasecmp(o, "http://", 7) == 0)
		p = o + 7;
	else if (strncasecmp(o, "https://", 8) == 0)
		p = o + 8;
	else
		return false;
	*hp = p;
	*n = strlen(p);
	return *n > 0;
}

/* Host and Origin against DNS rebinding.  NULL when fine, else why not. */
static const char *check_origin(mi_http *h, struct MHD_Connection *con)
{
	const char *host = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Host");
	const char *origin = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Origin");
	const char *op;
	size_t on, hn, onl;
	if (host && !h->allow_remote && !host_allowed(h, host, strlen(host)))
		return "Forbidden: the Host header is not a loopback name "
		       "(DNS rebinding protection; the operator can allow a name "
		       "with --allow-host)";
	if (!origin)
		return NULL;
	if (!origin_hostport(origin, &op, &on))
		return "Forbidden: the Origin header is not an http(s) origin "
		       "(DNS rebinding protection)";
	if (host_allowed(h, op, on))
		return NULL;
	if (h->allow_remote && host && split_hostport(op, on, &onl) &&
	    split_hostport(host, strlen(host), &hn) && hn == onl &&
	    strncasecmp(host, op, hn) == 0)
		return NULL;
	return "Forbidden: the Origin is not a loopback origin "
	       "(DNS rebinding protection)";
}

/* Compares the bearer token in constant time (in the token's length). */
static bool token_ok(mi_http *h, struct MHD_Connection *con)
{
	const char *auth = MHD_lookup_connection_value(con, MHD_HEADER_KIND,
						       "Authorization");
	const char *got;
	size_t gl, i, tl;
	unsigned char d;
	if (!h->token)
		return true;
	if (!auth || strncasecmp(auth, "Bearer ", 7) != 0)
		return false;
	got = auth + 7;
	gl = strlen(got);
	tl = strlen(h->token);
	d = gl != tl;
	for (i = 0; i < tl; i++)
		d |= (unsigned char)((i < gl ? got[i] : 0) ^ h->token[i]);
	return d == 0;
}

static MHD_Result reply_unauthorized(struct MHD_Connection *con)
{
	mi_buf b = {0};
	struct MHD_Response *r;
	MHD_Result ret = MHD_NO;
	mi_mcp_error_response(&b, NULL, MI_RPC_INVALID_REQUEST,
			      "Unauthorized: send the server's token as "
			      "Authorization: Bearer TOKEN");
	r = MHD_create_response_from_buffer(b.len, b.buf, MHD_RESPMEM_MUST_COPY);
	if (r) {
		MHD_add_response_header(r, "Content-Type", "application/json");
		MHD_add_response_header(r, "WWW-Authenticate", "Bearer realm=\"mcpidx\"");
		ret = MHD_queue_response(con, MHD_HTTP_UNAUTHORIZED, r);
		MHD_destroy_response(r);
	}
	mi_buf_release(&b);
	return ret;
}

/* ---- sessions ------------------------------------------------------------------- */

static void sess_send_drop(void *ctx, const char *msg, size_t len)
{
}

static mi_hsess *sess_new(mi_http *h)
{
	mi_hsess *s = mi_xcalloc(1, sizeof *s), **pp, *o;
	uint8_t rnd[16], hash[16];
	char hex[33];
	int64_t now = mi_mcp_now_us();
	mi_mcp_sink sink = { sess_send_drop, NULL };
	FILE *ur = fopen("/dev/urandom", "rb");
	if (!ur || fread(rnd, 1, sizeof rnd, ur) != sizeof rnd) {
		memcpy(rnd, &now, sizeof now);
		memcpy(rnd + 8, &h->seq, sizeof h->seq);
	}
	if (ur)
		fclose(ur);
	mi_mcp_session_init(&s->ss, h->srv, sink);
	pthread_mutex_lock(&h->mu);
	h->seq++;
	rnd[15] ^= (uint8_t)h->seq;
	mi_hash128(rnd, sizeof rnd, hash);
	mi_hash_hex(hash, hex);
	snprintf(s->ss.sid, sizeof s->ss.sid, "%s", hex);
	atomic_store(&s->ss.last_used_ms, now / 1000);
	s->users = 1;
	/* Drop sessions idle for an hour, and past MI_MAX_SESSIONS the one
	 * idle longest. */
	for (;;) {
		size_t count = 0;
		mi_hsess **lru = NULL;
		for (pp = &h->sessions; (o = *pp);) {
			if (o->users == 0 && now / 1000 - atomic_load(&o->ss.last_used_ms) >
			    MI_SESSION_IDLE_MS) {
				*pp = o->next;
				mi_mcp_log_at(h->srv, MI_LOG_DEBUG, "session %s expired",
					      o->ss.sid);
				mi_mcp_session_release(&o->ss);
				free(o);
				continue;
			}
			if (o->users == 0 && (!lru || atomic_load(&o->ss.last_used_ms) <
					      atomic_load(&(*lru)->ss.last_used_ms)))
				lru = pp;
			count++;
			pp = &o->next;
		}
		if (count < MI_MAX_SESSIONS || !lru)
			break;
		o = *lru;
		*lru = o->next;
		mi_mcp_log_at(h->srv, MI_LOG_DEBUG, "session %s dropped: %d sessions",
			      o->ss.sid, MI_MAX_SESSIONS);
		mi_mcp_session_release(&o->ss);
		free(o);
	}
	s->next = h->sessions;
	h->sessions = s;
	pthread_mutex_unlock(&h->mu);
	return s;
}

static mi_hsess *sess_get(mi_http *h, const char *sid)
{
	mi_hsess *s;
	pthread_mutex_lock(&h->mu);
	for (s = h->sessions; s; s = s->next)
		if (!s->dead && strcmp(s->ss.sid, sid) == 0) {
			s->users++;
			break;
		}
	pthread_mutex_unlock(&h->mu);
	return s;
}

static void sess_put(mi_http *h, mi_hsess *s, bool kill)
{
	mi_hsess **pp;
	pthread_mutex_lock(&h->mu);
	if (kill)
		s->dead = true;
	s->users--;
	if (s->dead && s->users == 0) {
		for (pp = &h->sessions; *pp; pp = &(*pp)->next)
			if (*pp == s) {
				*pp = s->next;
				break;
			}
		mi_mcp_session_release(&s->ss);
		free(s);
	}
	pthread_mutex_unlock(&h->mu);
}

/* ---- SSE responses ----------------------------------------------------------- */

/* One POST answered as an event stream: a worker thread runs the call and
 * queues events; MHD's reader callback (on the connection's own thread)
 * blocks until there is something to send. */
typedef struct mi_sse {
	pthread_mutex_t mu;    /* guards everything below */
	pthread_cond_t cv;     /* signalled when q grows or done is set */
	mi_buf q;              /* bytes not yet handed to MHD */
	size_t off;            /* of q, already handed */
	bool done;             /* the final response is queued */
	int refs;              /* worker + response */
	unsigned long seq;     /* SSE event id */
	mi_http *h;            /* transport */
	mi_hsess *s;           /* session, held until the call ends */
	mi_buf body;           /* the request */
} mi_sse;

static void sse_unref(mi_sse *e)
{
	bool last;
	pthread_mutex_lock(&e->mu);
	last = --e->refs == 0;
	pthread_mutex_unlock(&e->mu);
	if (!last)
		return;
	mi_buf_release(&e->q);
	mi_buf_release(&e->body);
	pthread_mutex_destroy(&e->mu);
	pthread_cond_destroy(&e->cv);
	free(e);
}

static void sse_send(void *ctx, const char *msg, size_t len)
{
	mi_sse *e = ctx;
	pthread_mutex_lock(&e->mu);
	mi_buf_addf(&e->q, "event: message\nid: %lu\ndata: ", ++e->seq);
	mi_buf_add(&e->q, msg, len);
	mi_buf_adds(&e->q, "\n\n");
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mu);
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	mi_sse *e = cls;
	ssize_t n;
	pthread_mutex_lock(&e->mu);
	while (e->off == e->q.len && !e->done)
		pthread_cond_wait(&e->cv, &e->mu);
	if (e->off < e->q.len) {
		size_t k = e->q.len - e->off < max ? e->q.len - e->off : max;
		memcpy(buf, e->q.buf + e->off, k);
		e->off += k;
		if (e->off == e->q.len) {
			mi_buf_reset(&e->q);
			e->off = 0;
		}
		n = (ssize_t)k;
	} else {
		n = MHD_CONTENT_READER_END_OF_STREAM;
	}
	pthread_mutex_unlock(&e->mu);
	return n;
}

static void sse_free(void *cls)
{
	sse_unref(cls);
}

static void *sse_worker(void *arg)
{
	mi_sse *e = arg;
	atomic_fetch_add(&e->h->busy, 1);
	mi_buf out = {0};
	mi_mcp_call *call = NULL;
	mi_mcp_sink sink = { sse_send, e };
	mi_mcp_handle(&e->s->ss, mi_buf_str(&e->body), e->body.len, sink, true,
		      &out, &call);
	if (out.len)
		sse_send(e, out.buf, out.len);
	pthread_mutex_lock(&e->mu);
	e->done = true;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mu);
	mi_buf_release(&out);
	atomic_fetch_sub(&e->h->busy, 1);
	sess_put(e->h, e->s, false);
	sse_unref(e);
	return NULL;
}

/* SSE pays off for a tool call that can report progress or log messages,
 * and only when the client accepts it. */
static bool wants_sse(struct MHD_Connection *con, mi_hsess *s, const char *body,
		      size_t len)
{
	const char *acc = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Accept");
	json_t *j, *p, *meta;
	bool r = false;
	if (!acc || !strstr(acc, "text/event-stream"))
		return false;
	j = json_loadb(body, len, 0, NULL);
	p = json_is_object(j) ? json_object_get(j, "params") : NULL;
	if (json_is_string(json_object_get(j, "method")) &&
	    strcmp(json_string_value(json_object_get(j, "method")), "tools/call") == 0 &&
	    json_object_get(j, "id") && json_is_object(p) && !json_object_get(p, "task")) {
		meta = json_object_get(p, "_meta");
		r = (json_is_object(meta) && json_object_get(meta, "progressToken")) ||
		    atomic_load(&s->ss.log_level) < MI_LOG_OFF;
	}
	json_decref(j);
	return r;
}

/* Answers the POST with an event stream; takes over the session ref. */
static MHD_Result reply_sse(mi_http *h, struct MHD_Connection *con, mi_hsess *s,
			    mi_req *rq)
{
	mi_sse *e = mi_xcalloc(1, sizeof *e);
	struct MHD_Response *r;
	pthread_t th;
	MHD_Result ret;
	pthread_mutex_init(&e->mu, NULL);
	pthread_cond_init(&e->cv, NULL);
	e->refs = 2;
	e->h = h;
	e->s = s;
	mi_buf_add(&e->body, mi_buf_str(&rq->body), rq->body.len);
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, sse_read, e,
					      sse_free);
	if (!r) {
		e->refs = 1;
		sess_put(h, s, false);
		sse_unref(e);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "text/event-stream");
	MHD_add_response_header(r, "Cache-Control", "no-cache");
	if (pthread_create(&th, NULL, sse_worker, e) != 0) {
		mi_buf err = {0};
		mi_mcp_error_response(&err, NULL, MI_RPC_INTERNAL,
				      "cannot start a thread for this request; retry");
		sse_send(e, err.buf, err.len);
		mi_buf_release(&err);
		e->done = true;
		e->refs = 1;
		sess_put(h, s, false);
	} else {
		pthread_detach(th);
	}
	ret = MHD_queue_response(con, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* ---- requests -------------------------------------------------------------------- */

static bool is_initialize(const char *body, size_t len)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	json_t *m = json_is_object(j) ? json_object_get(j, "method") : NULL;
	bool r = json_is_string(m) && strcmp(json_string_value(m), "initialize") == 0 &&
		 json_object_get(j, "id") != NULL;
	json_decref(j);
	return r;
}

static bool version_ok(const char *v)
{
	return strcmp(v, "2025-11-25") == 0 || strcmp(v, "2025-06-18") == 0 ||
	       strcmp(v, "2025-03-26") == 0 || strcmp(v, "2024-11-05") == 0;
}

static MHD_Result do_post(mi_http *h, struct MHD_Connection *con, mi_req *rq)
{
	const char *sid = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Mcp-Session-Id");
	const char *pv = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "MCP-Protocol-Version");
	mi_buf out = {0}, m = {0};
	mi_mcp_call *call = NULL;
	mi_hsess *s;
	MHD_Result ret;
	bool init, fresh = false;

	if (rq->seen > MI_MCP_MAX_MSG) {
		mi_buf_addf(&m, "message of %zu bytes is over the %zu MiB limit; send "
			    "smaller requests", rq->seen, MI_MCP_MAX_MSG >> 20);
		mi_mcp_log(h->srv, "http: rejected a %zu-byte body", rq->seen);
		ret = reply_error(con, 413, MI_RPC_INVALID_REQUEST, m.buf);
		goto out;
	}
	if (pv && !version_ok(pv)) {
		mi_buf_addf(&m, "Bad Request: unsupported MCP-Protocol-Version %.40s; "
			    "supported: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05", pv);
		ret = reply_error(con, MHD_HTTP_BAD_REQUEST, MI_RPC_INVALID_REQUEST, m.buf);
		goto out;
	}
	init = is_initialize(mi_buf_str(&rq->body), rq->body.len);
	if (init) {
		s = sess_new(h);
		fresh = true;
	} else if (!sid) {
		/* Parse errors and such still deserve their JSON-RPC code. */
		json_t *j = json_loadb(mi_buf_str(&rq->body), rq->body.len, 0, NULL);
		if (!j || !json_is_object(j)) {
			mi_hsess tmp;
			memset(&tmp, 0, sizeof tmp);
			mi_mcp_session_init(&tmp.ss, h->srv, (mi_mcp_sink){0});
			mi_mcp_handle(&tmp.ss, mi_buf_str(&rq->body), rq->body.len,
				      (mi_mcp_sink){0}, true, &out, &call);
			mi_mcp_session_release(&tmp.ss);
			json_decref(j);
			ret = reply(con, MHD_HTTP_BAD_REQUEST, "application/json",
				    out.buf, out.len, NULL, NULL);
			goto out;
		}
		json_decref(j);
		ret = reply_error(con, MHD_HTTP_BAD_REQUEST, MI_RPC_INVALID_REQUEST,
				  "Bad Request: Mcp-Session-Id header is required; "
				  "send initialize first");
		goto out;
	} else if (!(s = sess_get(h, sid))) {
		ret = reply_error(con, MHD_HTTP_NOT_FOUND, MI_RPC_INVALID_REQUEST,
				  "Session not found: it ended or expired; send "
				  "initialize to start a new one");
		goto out;
	}
	if (!fresh && wants_sse(con, s, mi_buf_str(&rq->body), rq->body.len)) {
		ret = reply_sse(h, con, s, rq);
		goto out;
	}
	mi_mcp_handle(&s->ss, mi_buf_str(&rq->body), rq->body.len,
		      (mi_mcp_sink){0}, true, &out, &call);
	if (fresh && (atomic_load(&s->ss.state) == 0 || !strstr(mi_buf_str(&out), "\"result\""))) {
		/* initialize failed: no session. */
		sess_put(h, s, true);
		ret = reply(con, MHD_HTTP_OK, "application/json", out.buf, out.len,
			    NULL, NULL);
		goto out;
	}
	if (out.len)
		ret = reply(con, MHD_HTTP_OK, "application/json", out.buf, out.len,
			    fresh ? s->ss.sid : NULL, NULL);
	else
		ret = reply(con, MHD_HTTP_ACCEPTED, NULL, "", 0, NULL, NULL);
	if (fresh)
		mi_mcp_log_at(h->srv, MI_LOG_DEBUG, "http: session %s started", s->ss.sid);
	sess_put(h, s, false);
out:
	mi_buf_release(&out);
	mi_buf_release(&m);
	return ret;
}

static MHD_Result do_delete(mi_http *h, struct MHD_Connection *con)
{
	const char *sid = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Mcp-Session-Id");
	mi_hsess *s;
	if (!sid)
		return reply_error(con, MHD_HTTP_BAD_REQUEST, MI_RPC_INVALID_REQUEST,
				   "Bad Request: Mcp-Session-Id header is required");
	s = sess_get(h, sid);
	if (!s)
		return reply_error(con, MHD_HTTP_NOT_FOUND, MI_RPC_INVALID_REQUEST,
				   "Session not found");
	pthread_mutex_lock(&s->ss.mu);
	for (mi_mcp_call *c = s->ss.calls; c; c = c->next)
		atomic_store(&c->cancelled, 1);
	pthread_mutex_unlock(&s->ss.mu);
	mi_mcp_log_at(h->srv, MI_LOG_DEBUG, "http: session %s ended by the client", sid);
	sess_put(h, s, true);
	return reply(con, MHD_HTTP_OK, NULL, "", 0, NULL, NULL);
}

static MHD_Result on_request(void *cls, struct MHD_Connection *con,
			     const char *url, const char *method,
			     const char *version, const char *upload_data,
			     size_t *upload_data_size, void **con_cls)
{
	mi_http *h = cls;
	mi_req *rq = *con_cls;
	const char *why;
	if (!rq) {
		rq = mi_xcalloc(1, sizeof *rq);
		*con_cls = rq;
		return MHD_YES;
	}
	if (*upload_data_size) {
		rq->seen += *upload_data_size;
		if (rq->seen <= MI_MCP_MAX_MSG)
			mi_buf_add(&rq->body, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	if ((why = check_origin(h, con))) {
		mi_mcp_log(h->srv, "http: %s %s refused: %s", method, url, why);
		return reply_error(con, MHD_HTTP_FORBIDDEN, MI_RPC_INVALID_REQUEST, why);
	}
	if (!token_ok(h, con)) {
		mi_mcp_log(h->srv, "http: %s %s refused: no valid bearer token",
			   method, url);
		return reply_unauthorized(con);
	}
	if (strcmp(url, "/mcp") != 0 && strcmp(url, "/mcp/") != 0 && strcmp(url, "/") != 0)
		return reply_error(con, MHD_HTTP_NOT_FOUND, MI_RPC_INVALID_REQUEST,
				   "Not found: the MCP endpoint is /mcp");
	if (strcmp(method, "POST") == 0) {
		MHD_Result ret;
		if (atomic_fetch_add(&h->busy, 1) >= h->max_busy) {
			atomic_fetch_sub(&h->busy, 1);
			mi_mcp_log(h->srv, "http: busy: %u requests in progress", h->max_busy);
			return reply_error(con, MHD_HTTP_SERVICE_UNAVAILABLE, MI_RPC_INTERNAL,
					   "Server busy: too many requests in progress "
					   "(--max-requests); retry shortly");
		}
		ret = do_post(h, con, rq);
		atomic_fetch_sub(&h->busy, 1);
		return ret;
	}
	if (strcmp(method, "DELETE") == 0)
		return do_delete(h, con);
	return reply(con, MHD_HTTP_METHOD_NOT_ALLOWED, "application/json",
		     "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,"
		     "\"message\":\"Method not allowed: use POST (and DELETE to end "
		     "a session); this server opens no SSE stream\"}}",
		     strlen("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,"
			    "\"message\":\"Method not allowed: use POST (and DELETE to end "
			    "a session); this server opens no SSE stream\"}}"),
		     NULL, "POST, DELETE");
}

static void on_completed(void *cls, struct MHD_Connection *con, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	mi_req *rq = *con_cls;
	if (rq) {
		mi_buf_release(&rq->body);
		free(rq);
	}
	*con_cls = NULL;
}

/* ---- serving ---------------------------------------------------------------------- */

/* "127.0.0.1:8080", "[::1]:8080", "localhost:8080", ":8080" or "8080". */
static int parse_addr(const char *addr, struct sockaddr_storage *ss, bool *v6,
		      bool *loopback, mi_buf *err)
{
	char host[128] = "127.0.0.1";
	const char *port = addr, *colon = strrchr(addr, ':');
	char *end;
	long p;
	memset(ss, 0, sizeof *ss);
	if (addr[0] == '[') {
		const char *rb = strchr(addr, ']');
		if (!rb || rb[1] != ':' || (size_t)(rb - addr) >= sizeof host)
			goto bad;
		memcpy(host, addr + 1, (size_t)(rb - addr - 1));
		host[rb - addr - 1] = 0;
		port = rb + 2;
	} else if (colon) {
		if ((size_t)(colon - addr) >= sizeof host)
			goto bad;
		if (colon > addr) {
			memcpy(host, addr, (size_t)(colon - addr));
			host[colon - addr] = 0;
		}
		port = colon + 1;
	}
	p = strtol(port, &end, 10);
	if (!*port || *end || p < 0 || p > 65535)
		goto bad;
	if (strcasecmp(host, "localhost") == 0)
		strcpy(host, "127.0.0.1");
	if (strchr(host, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)p);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			goto bad;
		*v6 = true;
		*loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)p);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			goto bad;
		*v6 = false;
		*loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	}
	return 0;
bad:
	mi_buf_addf(err, "bad --http address %s: expected HOST:PORT, e.g. "
		    "127.0.0.1:8765 or [::1]:8765", addr);
	return MI_ERR_ARG;
}

int mi_mcp_serve_http(mi_mcp_server *s, const char *addr)
{
	struct sockaddr_storage sa;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	mi_http h;
	mi_buf err = {0};
	sigset_t set;
	bool v6 = false, loop = false;
	int rc = 0, sig;
	unsigned max_conn, idle;
	struct rlimit rl;
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_ERROR_LOG;

	memset(&h, 0, sizeof h);
	h.srv = s;
	h.allow_remote = s->opts->allow_remote;
	h.allow_hosts = s->opts->allow_hosts;
	h.token = s->opts->token && *s->opts->token ? s->opts->token : NULL;
	h.max_busy = s->opts->max_requests ? s->opts->max_requests : MI_MAX_REQUESTS;
	max_conn = s->opts->max_connections ? s->opts->max_connections :
		   MI_MAX_CONNECTIONS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur > 64 && max_conn > rl.rlim_cur - 32)
		max_conn = (unsigned)(rl.rlim_cur - 32);
	idle = s->opts->idle_timeout ? s->opts->idle_timeout : MI_IDLE_TIMEOUT;
	pthread_mutex_init(&h.mu, NULL);
	rc = parse_addr(addr, &sa, &v6, &loop, &err);
	if (rc)
		goto out;
	if (!loop && !h.allow_remote) {
		mi_buf_addf(&err, "refusing to serve on %s: not a loopback address. "
			    "Use 127.0.0.1:PORT, or pass --allow-remote to accept "
			    "other hosts (no authentication)", addr);
		rc = MI_ERR_ARG;
		goto out;
	}
	if (v6)
		flags |= MHD_USE_IPv6;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, &h,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
			     MHD_OPTION_CONNECTION_TIMEOUT, idle,
			     MHD_OPTION_CONNECTION_LIMIT, max_conn,
			     MHD_OPTION_THREAD_STACK_SIZE, (size_t)MI_THREAD_STACK,
			     MHD_OPTION_END);
	if (!d) {
		rc = errno ? errno : EADDRINUSE;
		mi_buf_addf(&err, "cannot listen on %s: %s; pick another port",
			    addr, strerror(rc));
		goto out;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	{
		char host[64];
		if (v6)
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, host, sizeof host);
		else
			inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, host, sizeof host);
		fprintf(stderr, "mcpidx: serving MCP on http://%s%s%s:%u/mcp\n",
			v6 ? "[" : "", host, v6 ? "]" : "", info ? info->port : 0);
		fflush(stderr);
		mi_mcp_log(s, "serving MCP on http://%s%s%s:%u/mcp; index %s",
			   v6 ? "[" : "", host, v6 ? "]" : "",
			   info ? info->port : 0, s->index_path);
	}
	while (sigwait(&set, &sig) != 0)
		;
	mi_mcp_log(s, "signal %d: shutting down", sig);
	atomic_store(&s->stopping, 1);
	mi_mcp_tasks_shutdown();
	MHD_stop_daemon(d);
	while (h.sessions) {
		mi_hsess *n = h.sessions->next;
		mi_mcp_session_release(&h.sessions->ss);
		free(h.sessions);
		h.sessions = n;
	}
out:
	if (err.len) {
		mi_mcp_log_at(s, MI_LOG_ERROR, "%s", err.buf);
		if (s->opts->log_file && *s->opts->log_file)
			fprintf(stderr, "mcpidx serve: %s\n", err.buf);
	}
	pthread_mutex_destroy(&h.mu);
	mi_buf_release(&err);
	return rc;
}
