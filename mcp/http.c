/*
 * http.c - the streamable HTTP transport (libmicrohttpd): POST /mcp carries
 * one JSON-RPC message and gets a JSON response (or, for a tool call whose
 * client accepts text/event-stream and wants progress or log messages, an
 * SSE stream carrying those notifications and then the response),
 * Mcp-Session-Id names the session created by initialize, DELETE ends it,
 * GET opens the session's own stream (2025 versions: list_changed and
 * resources/updated reach the client there; 2026-07-28 has
 * subscriptions/listen instead).  Bound to loopback unless allow_remote; Host
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

#include "dl.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_Result;
#else
typedef enum MHD_Result MHD_Result;
#endif

#define MI_SESSION_IDLE_MS (3600 * 1000)
#define MI_NOT_ALLOWED "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":" \
	"-32000,\"message\":\"Method not allowed: use POST (DELETE ends a 2025 " \
	"session, GET with its Mcp-Session-Id opens its stream); 2026-07-28 " \
	"change streams are subscriptions/listen\"}}"
#define MI_MAX_SESSIONS 4096      /* past it the longest idle session is dropped */
#define MI_MAX_CONNECTIONS 1000   /* open connections at once (--max-connections) */
#define MI_IDLE_TIMEOUT 30        /* seconds before an idle one closes (--idle-timeout) */
#define MI_MAX_REQUESTS 64        /* requests worked on at once (--max-requests) */
#define MI_THREAD_STACK ((size_t)2 << 20) /* per connection thread */

typedef struct mi_hsess {
	mi_mcp_session ss;     /* the protocol session */
	int users;             /* requests using it now */
	bool dead;             /* DELETEd: free when users drops to 0 */
	bool temp;             /* one stateless request's, never listed */
	struct mi_http *h;     /* the transport */
	struct mi_sse *get;    /* its GET stream, or NULL (guarded by h->gmu) */
	struct mi_hsess *next; /* in mi_http.sessions */
} mi_hsess;

struct mi_sse;

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
	struct mi_sse *streams; /* open event streams (ended at shutdown) */
	unsigned ping_s;       /* an idle stream's comment every this many seconds */
	pthread_mutex_t gmu;   /* guards each session's get: taken inside the
				* dispatcher's listener lock, so never around it */
} mi_http;

typedef struct mi_req {
	mi_buf body;           /* request body, up to MI_RPC_MAX_MSG */
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
	mi_rpc_put_error(&b, NULL, code, msg, NULL);
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

/* How often a request names the headers it may send only once. */
typedef struct hdr_count {
	int host, origin;
} hdr_count;

static MHD_Result count_header(void *cls, enum MHD_ValueKind kind,
			       const char *key, const char *value)
{
	hdr_count *c = cls;
	if (strcasecmp(key, "Host") == 0)
		c->host++;
	else if (strcasecmp(key, "Origin") == 0)
		c->origin++;
	return MHD_YES;
}

/* The Host and Origin checks read one value each: a request with two (one
 * for us, one for a proxy) or an HTTP/1.1 request with none is malformed
 * (RFC 9112 3.2).  NULL when fine, else why not. */
static const char *check_header_counts(struct MHD_Connection *con, const char *version)
{
	hdr_count c = {0};
	MHD_get_connection_values(con, MHD_HEADER_KIND, count_header, &c);
	if (c.host > 1)
		return "Bad request: more than one Host header";
	if (c.origin > 1)
		return "Bad request: more than one Origin header";
	if (c.host == 0 && version && strcmp(version, MHD_HTTP_VERSION_1_0) != 0)
		return "Bad request: an HTTP/1.1 request needs a Host header";
	return NULL;
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
	mi_rpc_put_error(&b, NULL, MI_RPC_INVALID_REQUEST,
			 "Unauthorized: send the server's token as "
			 "Authorization: Bearer TOKEN", NULL);
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

static void sse_send(void *ctx, const char *msg, size_t len);

/* The session's own notifications (list_changed, resources/updated) go to
 * its GET stream when one is open, else nowhere: a 2025 client that wants
 * them opens one. */
static void sess_send(void *ctx, const char *msg, size_t len)
{
	mi_hsess *s = ctx;
	pthread_mutex_lock(&s->h->gmu);
	if (s->get)
		sse_send(s->get, msg, len);
	pthread_mutex_unlock(&s->h->gmu);
}

static mi_hsess *sess_new(mi_http *h)
{
	mi_hsess *s = mi_xcalloc(1, sizeof *s), **pp, *o;
	uint8_t rnd[16], hash[16];
	char hex[33];
	int64_t now = mi_mcp_now_us();
	mi_mcp_sink sink = { sess_send, s };
	FILE *ur = fopen("/dev/urandom", "rb");
	if (!ur || fread(rnd, 1, sizeof rnd, ur) != sizeof rnd) {
		memcpy(rnd, &now, sizeof now);
		memcpy(rnd + 8, &h->seq, sizeof h->seq);
	}
	if (ur)
		fclose(ur);
	s->h = h;
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
				mi_mcp_log_at(&h->srv->env, MI_LOG_DEBUG, "session %s expired",
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
		mi_mcp_log_at(&h->srv->env, MI_LOG_DEBUG, "session %s dropped: %d sessions",
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
 * blocks until there is something to send.  A subscriptions/listen stream
 * stays open until the client goes away or the server stops. */
typedef struct mi_sse {
	pthread_mutex_t mu;    /* guards everything below */
	pthread_cond_t cv;     /* signalled when q grows or done is set */
	mi_buf q;              /* bytes not yet handed to MHD */
	size_t off;            /* of q, already handed */
	bool done;             /* the stream may end once q is sent */
	bool legacy_ids;       /* SSE event ids (resumability, up to 2025-11-25) */
	int refs;              /* worker + response */
	unsigned long seq;     /* SSE event id */
	mi_http *h;            /* transport */
	mi_hsess *s;           /* session, held until the call ends */
	mi_buf body;           /* the request */
	mi_mcp_in in;          /* its headers */
	mi_buf hv, hm, hn;     /* copies of the header values */
	mi_mcp_call *listen;   /* a listen call to close with the stream */
	bool get;              /* the session's GET stream (s->get is this) */
	struct mi_sse *next;   /* in h->streams */
} mi_sse;

static void sse_unref(mi_sse *e)
{
	bool last;
	mi_sse **pp;
	pthread_mutex_lock(&e->mu);
	last = --e->refs == 0;
	pthread_mutex_unlock(&e->mu);
	if (!last)
		return;
	pthread_mutex_lock(&e->h->mu);
	for (pp = &e->h->streams; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	pthread_mutex_unlock(&e->h->mu);
	if (e->get) {
		pthread_mutex_lock(&e->h->gmu);
		if (e->s->get == e)
			e->s->get = NULL;
		pthread_mutex_unlock(&e->h->gmu);
	}
	if (e->listen)
		mi_mcp_call_close(e->listen);
	if (e->s)
		sess_put(e->h, e->s, false);
	mi_buf_release(&e->q);
	mi_buf_release(&e->body);
	mi_buf_release(&e->hv);
	mi_buf_release(&e->hm);
	mi_buf_release(&e->hn);
	pthread_mutex_destroy(&e->mu);
	pthread_cond_destroy(&e->cv);
	free(e);
}

static void sse_send(void *ctx, const char *msg, size_t len)
{
	mi_sse *e = ctx;
	pthread_mutex_lock(&e->mu);
	if (e->legacy_ids)
		mi_buf_addf(&e->q, "event: message\nid: %lu\ndata: ", ++e->seq);
	else
		mi_buf_adds(&e->q, "event: message\ndata: ");
	mi_buf_add(&e->q, msg, len);
	mi_buf_adds(&e->q, "\n\n");
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mu);
}

/*
 * MHD's reader of an event stream: what is queued, else waits for more.
 * A stream with nothing to say sends an SSE comment every h->ping_s
 * seconds: the write is how a client that has gone is noticed (MHD then
 * frees the stream, its session reference and its listener); a wait
 * without end kept each abandoned stream's thread, connection slot and
 * memory for the server's life.
 */
static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	static const char ping[] = ": ping\n\n";
	mi_sse *e = cls;
	ssize_t n;
	struct timespec dl;
	int w = 0;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += e->h->ping_s;
	pthread_mutex_lock(&e->mu);
	while (e->off == e->q.len && !e->done && w != ETIMEDOUT)
		w = pthread_cond_timedwait(&e->cv, &e->mu, &dl);
	if (e->off == e->q.len && !e->done && max >= sizeof ping - 1) {
		memcpy(buf, ping, sizeof ping - 1);
		n = (ssize_t)(sizeof ping - 1);
	} else if (e->off < e->q.len) {
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

static void sse_end(mi_sse *e)
{
	pthread_mutex_lock(&e->mu);
	e->done = true;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mu);
}

static void *sse_worker(void *arg)
{
	mi_sse *e = arg;
	mi_buf out = {0};
	mi_mcp_call *call = NULL;
	mi_mcp_outcome oc;
	atomic_fetch_add(&e->h->busy, 1);
	e->in.data = mi_buf_str(&e->body);
	e->in.len = e->body.len;
	e->in.sink = (mi_mcp_sink){ sse_send, e };
	e->in.inline_only = true;
	mi_mcp_handle(&e->s->ss, &e->in, &out, &call, &oc);
	if (out.len)
		sse_send(e, out.buf, out.len);
	if (oc.listen && oc.call && !atomic_load(&e->h->srv->env.stopping)) {
		/* The stream stays open; it is closed with the response. */
		pthread_mutex_lock(&e->mu);
		e->listen = oc.call;
		pthread_mutex_unlock(&e->mu);
	} else {
		if (oc.listen && oc.call)
			mi_mcp_call_close(oc.call);
		sse_end(e);
	}
	mi_buf_release(&out);
	atomic_fetch_sub(&e->h->busy, 1);
	sse_unref(e);
	return NULL;
}

/* A stream of session s (whose ref it takes over) with refs references. */
static mi_sse *sse_new(mi_http *h, mi_hsess *s, int refs, bool legacy)
{
	mi_sse *e = mi_xcalloc(1, sizeof *e);
	pthread_mutex_init(&e->mu, NULL);
	pthread_cond_init(&e->cv, NULL);
	e->refs = refs;
	e->h = h;
	e->s = s;
	e->legacy_ids = legacy;
	/* SEP-1699 priming event: an id and empty data first, with the
	 * reconnection delay, so a client knows where the stream starts. */
	if (legacy)
		mi_buf_addf(&e->q, "id: %lu\nretry: 1000\ndata: \n\n", ++e->seq);
	return e;
}

/* Lists e among the open streams (ended at shutdown) and makes the
 * response that reads it; NULL when MHD cannot. */
static struct MHD_Response *sse_response(mi_sse *e)
{
	struct MHD_Response *r;
	pthread_mutex_lock(&e->h->mu);
	e->next = e->h->streams;
	e->h->streams = e;
	pthread_mutex_unlock(&e->h->mu);
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, sse_read, e, sse_free);
	if (r) {
		MHD_add_response_header(r, "Content-Type", "text/event-stream");
		MHD_add_response_header(r, "Cache-Control", "no-cache");
		MHD_add_response_header(r, "X-Accel-Buffering", "no");
	}
	return r;
}

/* Answers the POST with an event stream; takes over the session ref. */
static MHD_Result reply_sse(mi_http *h, struct MHD_Connection *con, mi_hsess *s,
			    mi_req *rq, const mi_mcp_in *in, bool legacy)
{
	mi_sse *e = sse_new(h, s, 2, legacy);
	struct MHD_Response *r;
	pthread_t th;
	MHD_Result ret;
	mi_buf_add(&e->body, mi_buf_str(&rq->body), rq->body.len);
	e->in = *in;
	if (in->hdr_version) {
		mi_buf_adds(&e->hv, in->hdr_version);
		e->in.hdr_version = e->hv.buf;
	}
	if (in->hdr_method) {
		mi_buf_adds(&e->hm, in->hdr_method);
		e->in.hdr_method = e->hm.buf;
	}
	if (in->hdr_name) {
		mi_buf_adds(&e->hn, in->hdr_name);
		e->in.hdr_name = e->hn.buf;
	}
	if (!(r = sse_response(e))) {
		e->refs = 1;
		sse_unref(e);
		return MHD_NO;
	}
	if (pthread_create(&th, NULL, sse_worker, e) != 0) {
		mi_buf err = {0};
		mi_rpc_put_error(&err, NULL, MI_RPC_INTERNAL,
				 "cannot start a thread for this request; retry", NULL);
		sse_send(e, err.buf, err.len);
		mi_buf_release(&err);
		sse_end(e);
		pthread_mutex_lock(&e->mu);
		e->refs--;
		pthread_mutex_unlock(&e->mu);
	} else {
		pthread_detach(th);
	}
	ret = MHD_queue_response(con, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* ---- requests -------------------------------------------------------------------- */

/* What the body says, read once for routing. */
typedef struct peek {
	const char *method;    /* borrowed from j */
	bool request;          /* has an id */
	bool progress;         /* _meta.progressToken */
	bool log_level;        /* _meta logLevel (2026-07-28) */
	bool modern;           /* _meta carries the stateless keys */
	bool task;             /* params.task */
	json_t *j;             /* parsed body (owned) */
} peek;

static void peek_body(const mi_buf *body, peek *p)
{
	json_t *params, *meta;
	memset(p, 0, sizeof *p);
	p->j = json_loadb(mi_buf_str(body), body->len, 0, NULL);
	if (!json_is_object(p->j))
		return;
	p->method = mi_mcp_arg_str(p->j, "method", NULL);
	p->request = json_object_get(p->j, "id") != NULL;
	params = json_object_get(p->j, "params");
	meta = json_object_get(params, "_meta");
	p->progress = json_object_get(meta, "progressToken") != NULL;
	p->log_level = json_object_get(meta, MI_META_LOG_LEVEL) != NULL;
	p->modern = json_object_get(meta, MI_META_VERSION) ||
		    json_object_get(meta, MI_META_CAPS) ||
		    json_object_get(meta, MI_META_CLIENT);
	p->task = json_object_get(params, "task") != NULL;
}

/* SSE pays off for a call that can send notifications or ask the client
 * something, and only when the client accepts it. */
static bool wants_sse(struct MHD_Connection *con, mi_hsess *s, const peek *p)
{
	const char *acc = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Accept");
	if (!acc || !strstr(acc, "text/event-stream") || !p->method || !p->request)
		return false;
	if (strcmp(p->method, "subscriptions/listen") == 0)
		return true;
	if (strcmp(p->method, "tools/call") && strcmp(p->method, "prompts/get"))
		return false;
	if (p->task)
		return false;
	if (p->modern)
		return p->progress || p->log_level;
	return p->progress || atomic_load(&s->ss.log_level) < MI_LOG_OFF ||
	       (s->ss.caps && (json_object_get(s->ss.caps, "sampling") ||
			       json_object_get(s->ss.caps, "elicitation") ||
			       json_object_get(s->ss.caps, "roots")));
}

/* The HTTP status of an answer. */
static unsigned status_of(const mi_mcp_outcome *oc)
{
	if (!oc->code)
		return MHD_HTTP_OK;
	if (!oc->modern)
		return oc->code == MI_RPC_PARSE ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_OK;
	switch (oc->code) {
	case MI_RPC_NO_METHOD: return MHD_HTTP_NOT_FOUND;
	case MI_RPC_PARSE: case MI_RPC_INVALID_REQUEST: case MI_RPC_INVALID_PARAMS:
	case MI_RPC_HEADER_MISMATCH: case MI_RPC_MISSING_CAPABILITY:
	case MI_RPC_UNSUPPORTED_VERSION:
		return MHD_HTTP_BAD_REQUEST;
	default: return MHD_HTTP_OK;
	}
}

static const char *conn_header(void *ctx, const char *name)
{
	return MHD_lookup_connection_value(ctx, MHD_HEADER_KIND, name);
}

/* A session of its own for one stateless request. */
static mi_hsess *sess_temp(mi_http *h)
{
	mi_hsess *s = mi_xcalloc(1, sizeof *s);
	mi_mcp_session_init(&s->ss, h->srv, (mi_mcp_sink){0});
	s->users = 1;
	s->dead = true;
	s->temp = true;
	return s;
}

static MHD_Result do_post(mi_http *h, struct MHD_Connection *con, mi_req *rq)
{
	const char *sid = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Mcp-Session-Id");
	const char *pv = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "MCP-Protocol-Version");
	mi_buf out = {0}, m = {0};
	mi_mcp_call *call = NULL;
	mi_mcp_in in;
	mi_mcp_outcome oc;
	mi_hsess *s = NULL;
	MHD_Result ret;
	peek p;
	bool init, fresh = false;

	memset(&in, 0, sizeof in);
	peek_body(&rq->body, &p);
	if (rq->seen > MI_RPC_MAX_MSG) {
		mi_buf_addf(&m, "message of %zu bytes is over the %zu MiB limit; send "
			    "smaller requests", rq->seen, MI_RPC_MAX_MSG >> 20);
		mi_mcp_log(&h->srv->env, "http: rejected a %zu-byte body", rq->seen);
		ret = reply_error(con, 413, MI_RPC_INVALID_REQUEST, m.buf);
		goto out;
	}
	init = p.method && p.request && strcmp(p.method, "initialize") == 0 && !p.modern;
	in.data = mi_buf_str(&rq->body);
	in.len = rq->body.len;
	in.http = true;
	in.inline_only = true;
	in.hdr_version = pv;
	in.hdr_method = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Mcp-Method");
	in.hdr_name = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Mcp-Name");
	in.header = conn_header;
	in.header_ctx = con;
	if (!p.modern && pv && !mi_mcp_version_known(pv)) {
		mi_buf_addf(&m, "Bad Request: unsupported MCP-Protocol-Version %.40s; "
			    "supported: %s", pv, mi_mcp_versions_json);
		ret = reply_error(con, MHD_HTTP_BAD_REQUEST, MI_RPC_INVALID_REQUEST, m.buf);
		goto out;
	}
	if (init) {
		s = sess_new(h);
		fresh = true;
	} else if (sid && !p.modern) {
		if (!(s = sess_get(h, sid))) {
			ret = reply_error(con, MHD_HTTP_NOT_FOUND, MI_RPC_INVALID_REQUEST,
					  "Session not found: it ended or expired; send "
					  "initialize to start a new one");
			goto out;
		}
	} else {
		/* Stateless (2026-07-28), or a legacy request without a session,
		 * which the dispatcher answers "not initialized". */
		s = sess_temp(h);
	}
	if (p.method && strcmp(p.method, "subscriptions/listen") == 0 &&
	    !wants_sse(con, s, &p)) {
		ret = reply_error(con, MHD_HTTP_BAD_REQUEST, MI_RPC_INVALID_REQUEST,
				  "subscriptions/listen answers with an event stream: "
				  "send Accept: text/event-stream");
		goto out;
	}
	if (!fresh && wants_sse(con, s, &p)) {
		ret = reply_sse(h, con, s, rq, &in, !s->temp);
		s = NULL;
		goto out;
	}
	mi_mcp_handle(&s->ss, &in, &out, &call, &oc);
	if (oc.listen && oc.call)
		mi_mcp_call_close(oc.call);   /* no stream to keep it on */
	if (fresh && (atomic_load(&s->ss.state) == 0 || !strstr(mi_buf_str(&out), "\"result\""))) {
		/* initialize failed: no session. */
		sess_put(h, s, true);
		s = NULL;
		ret = reply(con, MHD_HTTP_OK, "application/json", out.buf, out.len,
			    NULL, NULL);
		goto out;
	}
	if (s->temp && !oc.modern && oc.code == MI_RPC_INVALID_REQUEST && p.method &&
	    !sid)
		ret = reply(con, MHD_HTTP_BAD_REQUEST, "application/json", out.buf,
			    out.len, NULL, NULL);
	else if (out.len)
		ret = reply(con, status_of(&oc), "application/json", out.buf, out.len,
			    fresh ? s->ss.sid : NULL, NULL);
	else
		ret = reply(con, MHD_HTTP_ACCEPTED, NULL, "", 0, NULL, NULL);
	if (fresh)
		mi_mcp_log_at(&h->srv->env, MI_LOG_DEBUG, "http: session %s started",
			      s->ss.sid);
out:
	if (s)
		sess_put(h, s, false);
	json_decref(p.j);
	mi_buf_release(&out);
	mi_buf_release(&m);
	return ret;
}

/* GET with a 2025 session's id: the stream on which the server speaks first
 * (list_changed, resources/updated), one per session as the 2025 versions
 * ask (a second one is refused with 409 unless it carries Last-Event-ID:
 * then it is the client reconnecting and replaces the first); it stays
 * open until the client goes, the session ends or the server stops.
 * 2026-07-28 clients listen with subscriptions/listen instead. */
static MHD_Result do_get(mi_http *h, struct MHD_Connection *con)
{
	const char *sid = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Mcp-Session-Id");
	const char *acc = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Accept");
	struct MHD_Response *r;
	MHD_Result ret;
	mi_hsess *s;
	mi_sse *e;
	if (!sid)
		return reply(con, MHD_HTTP_METHOD_NOT_ALLOWED, "application/json",
			     MI_NOT_ALLOWED, strlen(MI_NOT_ALLOWED), NULL, "POST");
	if (!acc || !strstr(acc, "text/event-stream"))
		return reply_error(con, MHD_HTTP_NOT_ACCEPTABLE, MI_RPC_INVALID_REQUEST,
				   "Not Acceptable: GET opens an event stream; send "
				   "Accept: text/event-stream");
	s = sess_get(h, sid);
	if (!s)
		return reply_error(con, MHD_HTTP_NOT_FOUND, MI_RPC_INVALID_REQUEST,
				   "Session not found");
	if (atomic_load(&s->ss.state) < 1 || strcmp(s->ss.version, MI_MCP_MODERN) >= 0) {
		sess_put(h, s, false);
		return reply(con, MHD_HTTP_METHOD_NOT_ALLOWED, "application/json",
			     MI_NOT_ALLOWED, strlen(MI_NOT_ALLOWED), NULL, "POST");
	}
	e = sse_new(h, s, 1, true);
	e->get = true;
	pthread_mutex_lock(&h->gmu);
	if (s->get && MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Last-Event-ID")) {
		/* A reconnection: the client lost the old stream, whose
		 * connection may not have noticed yet.  Nothing is kept to
		 * replay (no stream is ever cut before its last message). */
		sse_end(s->get);
		s->get = NULL;
	}
	if (s->get) {
		pthread_mutex_unlock(&h->gmu);
		e->get = false;
		sse_unref(e);
		return reply_error(con, MHD_HTTP_CONFLICT, MI_RPC_INVALID_REQUEST,
				   "Conflict: this session's stream is already open "
				   "(one GET stream per session)");
	}
	s->get = e;
	pthread_mutex_unlock(&h->gmu);
	if (!(r = sse_response(e))) {
		sse_unref(e);
		return MHD_NO;
	}
	mi_mcp_log_at(&h->srv->env, MI_LOG_DEBUG, "http: session %s opened its stream", sid);
	ret = MHD_queue_response(con, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static MHD_Result do_delete(mi_http *h, struct MHD_Connection *con)
{
	const char *sid = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Mcp-Session-Id");
	mi_hsess *s;
	if (!sid)
		return reply(con, MHD_HTTP_METHOD_NOT_ALLOWED, "application/json",
			     MI_NOT_ALLOWED, strlen(MI_NOT_ALLOWED), NULL, "POST");
	s = sess_get(h, sid);
	if (!s)
		return reply_error(con, MHD_HTTP_NOT_FOUND, MI_RPC_INVALID_REQUEST,
				   "Session not found");
	mi_mcp_session_cancel_all(&s->ss);
	pthread_mutex_lock(&h->gmu);
	if (s->get)
		sse_end(s->get);
	pthread_mutex_unlock(&h->gmu);
	mi_mcp_log_at(&h->srv->env, MI_LOG_DEBUG, "http: session %s ended by the client",
		      sid);
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
		/* The headers are checked before any of the body is read: a
		 * request refused for its Host, Origin or token must not make us
		 * keep up to 16 MiB for it (a thousand such connections held
		 * the server's memory at 16 GB).  A response queued now ends the
		 * request without its body. */
		rq = mi_xcalloc(1, sizeof *rq);
		*con_cls = rq;
		if ((why = check_header_counts(con, version))) {
			mi_mcp_log(&h->srv->env, "http: %s %s refused: %s", method, url, why);
			return reply_error(con, MHD_HTTP_BAD_REQUEST, MI_RPC_INVALID_REQUEST, why);
		}
		if ((why = check_origin(h, con))) {
			mi_mcp_log(&h->srv->env, "http: %s %s refused: %s", method, url, why);
			return reply_error(con, MHD_HTTP_FORBIDDEN, MI_RPC_INVALID_REQUEST, why);
		}
		if (!token_ok(h, con)) {
			mi_mcp_log(&h->srv->env, "http: %s %s refused: no valid bearer token",
				   method, url);
			return reply_unauthorized(con);
		}
		return MHD_YES;
	}
	if (*upload_data_size) {
		rq->seen += *upload_data_size;
		if (rq->seen <= MI_RPC_MAX_MSG)
			mi_buf_add(&rq->body, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (strcmp(url, "/mcp") != 0 && strcmp(url, "/mcp/") != 0 && strcmp(url, "/") != 0)
		return reply_error(con, MHD_HTTP_NOT_FOUND, MI_RPC_INVALID_REQUEST,
				   "Not found: the MCP endpoint is /mcp");
	if (strcmp(method, "POST") == 0) {
		MHD_Result ret;
		if (atomic_fetch_add(&h->busy, 1) >= h->max_busy) {
			atomic_fetch_sub(&h->busy, 1);
			mi_mcp_log(&h->srv->env, "http: busy: %u requests in progress", h->max_busy);
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
	if (strcmp(method, "GET") == 0)
		return do_get(h, con);
	return reply(con, MHD_HTTP_METHOD_NOT_ALLOWED, "application/json",
		     MI_NOT_ALLOWED, strlen(MI_NOT_ALLOWED), NULL, "GET, POST, DELETE");
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
	h.allow_remote = s->env.opts->allow_remote;
	h.allow_hosts = s->env.opts->allow_hosts;
	h.token = s->env.opts->token && *s->env.opts->token ? s->env.opts->token : NULL;
	h.max_busy = s->env.opts->max_requests ? s->env.opts->max_requests : MI_MAX_REQUESTS;
	max_conn = s->env.opts->max_connections ? s->env.opts->max_connections :
		   MI_MAX_CONNECTIONS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur > 64 && max_conn > rl.rlim_cur - 32)
		max_conn = (unsigned)(rl.rlim_cur - 32);
	idle = s->env.opts->idle_timeout ? s->env.opts->idle_timeout : MI_IDLE_TIMEOUT;
	h.ping_s = idle / 2 < 1 ? 1 : idle / 2 > 15 ? 15 : idle / 2;
	pthread_mutex_init(&h.mu, NULL);
	pthread_mutex_init(&h.gmu, NULL);
	rc = parse_addr(addr, &sa, &v6, &loop, &err);
	if (rc)
		goto out;
	if (!mi_dl_mhd(&err)) {
		rc = ELIBACC;
		goto out;
	}
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
		mi_mcp_log(&s->env, "serving MCP on http://%s%s%s:%u/mcp; index %s",
			   v6 ? "[" : "", host, v6 ? "]" : "",
			   info ? info->port : 0, s->env.index_path);
	}
	while (sigwait(&set, &sig) != 0)
		;
	mi_mcp_log(&s->env, "signal %d: shutting down", sig);
	atomic_store(&s->env.stopping, 1);
	mi_mcp_tasks_shutdown();
	{
		/* End the open event streams so their connections can close. */
		struct mi_sse *e;
		pthread_mutex_lock(&h.mu);
		for (e = h.streams; e; e = e->next)
			sse_end(e);
		pthread_mutex_unlock(&h.mu);
	}
	MHD_stop_daemon(d);
	/* A stream's worker can outlive its connection (it ends the call it
	 * runs, then drops the stream and its session): sessions are freed
	 * once every stream is (bounded: 10 s). */
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&h.mu);
		bool open = h.streams != NULL;
		pthread_mutex_unlock(&h.mu);
		if (!open)
			break;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	while (h.sessions) {
		mi_hsess *n = h.sessions->next;
		mi_mcp_session_release(&h.sessions->ss);
		free(h.sessions);
		h.sessions = n;
	}
out:
	if (err.len) {
		mi_mcp_log_at(&s->env, MI_LOG_ERROR, "%s", err.buf);
		if (s->env.opts->log_file && *s->env.opts->log_file)
			fprintf(stderr, "mcpidx serve: %s\n", err.buf);
	}
	pthread_mutex_destroy(&h.mu);
	pthread_mutex_destroy(&h.gmu);
	mi_buf_release(&err);
	return rc;
}
