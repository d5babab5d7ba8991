/*
 * client.c - mcpidx as an MCP client of upstream servers: stdio (a child
 * process speaking newline-delimited JSON-RPC) and streamable HTTP
 * (libcurl), version negotiation from 2024-11-05 to 2026-07-28, requests
 * with timeouts and cancellation, notifications handed to a callback.
 *
 * A stdio connection has one reader thread that routes each response to the
 * request waiting for its id, so several calls may be in flight at once.
 */
#include "mcp.h"

#define CURL_DISABLE_TYPECHECK /* curl_easy_setopt a function: mcp/dl.h */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dl.h"

#define CL_MAX_MSG ((size_t)64 << 20)   /* largest message read from a server */
#define CL_TIMEOUT_MS 60000             /* default request timeout */
#define CL_PAGES 1000                   /* tools/list pages read at most */
#define CL_MAX_TOOLS 10000              /* tools of one server taken at most */
#define CL_STATELESS "2026-07-28"
#define CL_ERR_MSG 512                  /* bytes of a server's error message quoted */
#define CL_NOTE_MS 1000                 /* a notification waits this long for the pipe */
#define CL_REPLY_MS 1000                /* the rest of a reply the pipe took in part */

static bool known_version(const char *v);

/* Versions we speak, newest first; initialize offers the first. */
static const char *const cl_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
};

typedef struct cl_wait {
	int64_t id;            /* request id */
	bool done;             /* a response arrived (or the server died) */
	json_t *msg;           /* the response message (owned) */
	struct cl_wait *next;
} cl_wait;

struct mi_mcp_client {
	char *name;                /* for messages */
	int transport;             /* MI_MCP_STDIO, MI_MCP_HTTP, MI_MCP_SSE */
	/* stdio */
	pid_t pid;                 /* the child, 0 when none */
	int to_fd, from_fd;        /* its stdin, its stdout */
	pthread_t reader;          /* reads from_fd */
	bool reader_started;
	pthread_mutex_t wmu;       /* one message written at a time */
	/* http */
	char *url;                 /* endpoint */
	struct curl_slist *headers;/* configured headers (secrets: never logged) */
	char *session;             /* Mcp-Session-Id */
	/* legacy HTTP+SSE: the reader GETs url; messages are POSTed to post_url */
	char *post_url;            /* from the stream's endpoint event (under mu) */
	atomic_bool closing;       /* stops the stream */
	/* both */
	pthread_mutex_t mu;        /* guards waits, dead */
	pthread_cond_t cv;         /* a response arrived */
	cl_wait *waits;            /* requests in flight */
	atomic_llong next_id;
	bool dead;                 /* the connection is gone */
	char dead_why[256];
	char version[16];          /* negotiated protocol version */
	bool stateless;            /* 2026-07-28: _meta on each request */
	char *info;                /* serverInfo JSON */
	char *instructions;        /* or NULL */
	json_t *caps;              /* server capabilities (owned) */
	mi_mcp_note_fn note;       /* notifications */
	void *note_ctx;
	int timeout_ms;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_dead(mi_mcp_client *c, const char *why)
{
	pthread_mutex_lock(&c->mu);
	if (!c->dead) {
		c->dead = true;
		snprintf(c->dead_why, sizeof(c->dead_why), "%s", why);
	}
	for (cl_wait *w = c->waits; w; w = w->next)
		w->done = true;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

bool mi_mcp_client_alive(mi_mcp_client *c)
{
	bool dead;
	pthread_mutex_lock(&c->mu);
	dead = c->dead;
	pthread_mutex_unlock(&c->mu);
	return !dead;
}

/* ---- messages from the server ------------------------------------------------ */

static bool send_json(mi_mcp_client *c, json_t *msg, int timeout_ms,
		      const mi_mcp_cancel *cancel);
static int http_post(mi_mcp_client *c, json_t *msg, int64_t id, int timeout_ms,
		     const mi_mcp_cancel *cancel, json_t **resp, mi_buf *err);

/* A request from the server: we offer no client features, so only ping
 * gets a real answer. */
static void server_request(mi_mcp_client *c, json_t *msg, const char *method)
{
	json_t *resp = json_object();
	json_object_set_new(resp, "jsonrpc", json_string("2.0"));
	json_object_set(resp, "id", json_object_get(msg, "id"));
	if (!strcmp(method, "ping")) {
		json_object_set_new(resp, "result", json_object());
	} else {
		json_t *e = json_object();
		json_object_set_new(e, "code", json_integer(-32601));
		json_object_set_new(e, "message", json_string("method not offered by this client"));
		json_object_set_new(resp, "error", e);
	}
	send_json(c, resp, -1, NULL);   /* the reader: never waits on the pipe */
	json_decref(resp);
}

/* Routes one message: a response to its waiter, a notification to the
 * callback, a request to server_request.  Takes msg. */
static void route(mi_mcp_client *c, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");
	json_t *m = json_object_get(msg, "method");
	if (json_is_string(m)) {
		if (id)
			server_request(c, msg, json_string_value(m));
		else if (c->note)
			c->note(c->note_ctx, json_string_value(m), json_object_get(msg, "params"));
		json_decref(msg);
		return;
	}
	if (!json_is_integer(id)) {
		json_decref(msg);
		return;
	}
	pthread_mutex_lock(&c->mu);
	for (cl_wait *w = c->waits; w; w = w->next)
		if (w->id == json_integer_value(id) && !w->done) {
			w->done = true;
			w->msg = msg;
			msg = NULL;
			pthread_cond_broadcast(&c->cv);
			break;
		}
	pthread_mutex_unlock(&c->mu);
	json_decref(msg);
}

static void *reader_main(void *arg)
{
	mi_mcp_client *c = arg;
	mi_buf b = {0};
	char chunk[65536];
	const char *why = "the server closed its output";
	for (;;) {
		ssize_t n = read(c->from_fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				why = "reading from the server failed";
			break;
		}
		mi_buf_add(&b, chunk, (size_t)n);
		size_t start = 0;
		for (;;) {
			char *nl = memchr(b.buf + start, '\n', b.len - start);
			if (!nl)
				break;
			size_t l = (size_t)(nl - (b.buf + start));
			json_t *msg = l ? json_loadb(b.buf + start, l, 0, NULL) : NULL;
			if (msg)
				route(c, msg);
			start += l + 1;
		}
		if (start) {
			memmove(b.buf, b.buf + start, b.len - start);
			b.len -= start;
			b.buf[b.len] = 0;
		}
		if (b.len > CL_MAX_MSG) {
			why = "the server sent a message over 64 MiB";
			break;
		}
	}
	mi_buf_release(&b);
	set_dead(c, why);
	return NULL;
}

/* ---- sending ------------------------------------------------------------------ */

static void sse_post(mi_mcp_client *c, json_t *msg, int timeout_ms,
		     const mi_mcp_cancel *cancel);

/* A server that stops reading its input must not hold us: the connection
 * is dead and the child goes, so its calls fail at once. */
static void write_failed(mi_mcp_client *c, const char *why)
{
	set_dead(c, why);
	if (c->pid > 0) {
		kill(-c->pid, SIGKILL);
		kill(c->pid, SIGKILL);
	}
}

/* Writes len bytes to the (non-blocking) pipe to the server by deadline. */
static bool write_by(int fd, const char *s, size_t len, int64_t deadline)
{
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, s + off, len - off);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			return false;
		int64_t left = deadline - now_ms();
		if (left <= 0)
			return false;
		struct pollfd pf = {.fd = fd, .events = POLLOUT};
		poll(&pf, 1, left > INT_MAX ? INT_MAX : (int)left);
	}
	return true;
}

static bool lock_by(pthread_mutex_t *mu, int64_t deadline)
{
	struct timespec ts;
	int64_t left = deadline - now_ms();
	if (left < 0)
		left = 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += left / 1000;
	ts.tv_nsec += (left % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return pthread_mutex_timedlock(mu, &ts) == 0;
}

/* Sends one message within timeout_ms (an SSE post: also until cancel, if
 * any, says so); false when it was not sent.  The reader thread passes -1:
 * it never waits for another writer or a full pipe, and a reply the pipe
 * cannot take at once is dropped (a server that asks while it does not
 * read gets no answer). */
static bool send_json(mi_mcp_client *c, json_t *msg, int timeout_ms,
		      const mi_mcp_cancel *cancel)
{
	char *s;
	size_t len;
	bool ok = false, dropped = false;
	if (c->transport == MI_MCP_SSE)
		sse_post(c, msg, timeout_ms, cancel);
	if (c->transport != MI_MCP_STDIO)
		return true;
	if (!mi_mcp_client_alive(c))
		return false;
	s = json_dumps(msg, JSON_COMPACT);
	if (!s)
		return false;
	len = strlen(s);
	s[len++] = '\n';  /* json_dumps leaves room for the NUL: replace it */
	if (timeout_ms < 0) {
		ssize_t w;
		if (pthread_mutex_trylock(&c->wmu)) {
			free(s);
			return false;
		}
		while ((w = write(c->to_fd, s, len)) < 0 && errno == EINTR)
			;
		if (w == (ssize_t)len)
			ok = true;
		else if (w > 0)   /* part of it is in the pipe: the rest must follow */
			ok = write_by(c->to_fd, s + w, len - (size_t)w, now_ms() + CL_REPLY_MS);
		else
			ok = dropped = errno == EAGAIN || errno == EWOULDBLOCK;
		pthread_mutex_unlock(&c->wmu);
	} else {
		int64_t deadline = now_ms() + timeout_ms;
		if (lock_by(&c->wmu, deadline)) {
			ok = write_by(c->to_fd, s, len, deadline);
			pthread_mutex_unlock(&c->wmu);
		}
	}
	free(s);
	if (!ok)
		write_failed(c, "writing to the server failed or it stopped reading its input");
	return ok && !dropped;
}

/* Adds the 2026-07-28 per-request _meta to params (a new reference). */
static json_t *with_meta(mi_mcp_client *c, json_t *params)
{
	json_t *p = params ? json_deep_copy(params) : json_object();
	json_t *meta;
	if (!c->stateless)
		return p;
	meta = json_object_get(p, "_meta");
	if (!json_is_object(meta)) {
		meta = json_object();
		json_object_set_new(p, "_meta", meta);
	}
	json_object_set_new(meta, "io.modelcontextprotocol/protocolVersion", json_string(c->version));
	json_object_set_new(meta, "io.modelcontextprotocol/clientInfo",
			    json_pack("{s:s,s:s}", "name", "mcpidx", "version", MI_VERSION));
	json_object_set_new(meta, "io.modelcontextprotocol/clientCapabilities", json_object());
	return p;
}

void mi_mcp_client_notify(mi_mcp_client *c, const char *method, json_t *params)
{
	json_t *msg = json_object();
	json_object_set_new(msg, "jsonrpc", json_string("2.0"));
	json_object_set_new(msg, "method", json_string(method));
	if (params)
		json_object_set(msg, "params", params);
	if (c->transport != MI_MCP_HTTP) {
		send_json(c, msg, CL_NOTE_MS, NULL);
	} else {
		json_t *r = NULL;
		mi_buf err = {0};
		http_post(c, msg, -1, 5000, NULL, &r, &err);
		json_decref(r);
		mi_buf_release(&err);
	}
	json_decref(msg);
}

/* ---- HTTP ------------------------------------------------------------------------ */

typedef struct http_rx {
	mi_mcp_client *c;
	mi_buf body;          /* whole body (JSON) or the SSE bytes not yet parsed */
	bool sse;             /* text/event-stream response */
	int64_t want;         /* id of our request */
	json_t *resp;         /* the response, once seen */
	mi_buf data;          /* SSE: data lines of the current event */
	const mi_mcp_cancel *cancel;
	mi_buf session;       /* Mcp-Session-Id header */
	bool over;            /* a message over CL_MAX_MSG: refused */
} http_rx;

static void sse_event(http_rx *rx)
{
	json_t *msg;
	if (!rx->data.len)
		return;
	msg = json_loadb(rx->data.buf, rx->data.len, 0, NULL);
	mi_buf_reset(&rx->data);
	if (!msg)
		return;
	json_t *id = json_object_get(msg, "id");
	if (!json_object_get(msg, "method") && json_is_integer(id) &&
	    json_integer_value(id) == rx->want && !rx->resp) {
		rx->resp = msg;
		return;
	}
	route(rx->c, msg);
}

/* Splits the complete lines of an SSE byte stream held in body: data
 * lines gather in data, an event: line's name goes to event (when the
 * caller keeps one), and a blank line hands the event to done(ctx).  The
 * incomplete last line stays in body. */
static void sse_lines(mi_buf *body, mi_buf *data, mi_buf *event,
		      void (*done)(void *ctx), void *ctx)
{
	size_t start = 0;
	for (;;) {
		char *nl = memchr(body->buf + start, '\n', body->len - start);
		if (!nl)
			break;
		size_t l = (size_t)(nl - (body->buf + start));
		const char *line = body->buf + start;
		if (l && line[l - 1] == '\r')
			l--;
		if (!l) {
			done(ctx);
		} else if (l >= 5 && !memcmp(line, "data:", 5)) {
			size_t o = 5 + (l > 5 && line[5] == ' ');
			if (data->len)
				mi_buf_addc(data, '\n');
			mi_buf_add(data, line + o, l - o);
		} else if (event && l >= 6 && !memcmp(line, "event:", 6)) {
			size_t o = 6 + (l > 6 && line[6] == ' ');
			mi_buf_reset(event);
			mi_buf_add(event, line + o, l - o);
		}
		start = (size_t)(nl - body->buf) + 1;
	}
	if (start) {
		memmove(body->buf, body->buf + start, body->len - start);
		body->len -= start;
		body->buf[body->len] = 0;
	}
}

static void sse_done(void *rx)
{
	sse_event(rx);
}

static size_t http_write(char *p, size_t sz, size_t n, void *ctx)
{
	http_rx *rx = ctx;
	mi_buf_add(&rx->body, p, sz * n);
	if (rx->sse) {
		sse_lines(&rx->body, &rx->data, NULL, sse_done, rx);
		if (rx->resp)
			return 0;   /* got our answer: stop reading the stream */
	}
	/* An event's data lines move to data: both count toward one message. */
	if (rx->body.len + rx->data.len > CL_MAX_MSG) {
		rx->over = true;
		return 0;
	}
	return sz * n;
}

static size_t http_header(char *p, size_t sz, size_t n, void *ctx)
{
	http_rx *rx = ctx;
	size_t l = sz * n;
	if (l > 13 && !strncasecmp(p, "content-type:", 13) && strstr(p, "text/event-stream"))
		rx->sse = true;
	if (l > 15 && !strncasecmp(p, "mcp-session-id:", 15)) {
		const char *v = p + 15;
		size_t vl = l - 15;
		while (vl && (*v == ' ' || *v == '\t')) {
			v++;
			vl--;
		}
		while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
			vl--;
		mi_buf_reset(&rx->session);
		mi_buf_add(&rx->session, v, vl);
	}
	return l;
}

static int http_progress(void *ctx, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	http_rx *rx = ctx;
	return rx->cancel && rx->cancel->fn && rx->cancel->fn(rx->cancel->ctx) ? 1 : 0;
}

/* POSTs one message; for a request (id >= 0) waits for its response. */
static int http_post(mi_mcp_client *c, json_t *msg, int64_t id, int timeout_ms,
		     const mi_mcp_cancel *cancel, json_t **resp, mi_buf *err)
{
	CURL *h = curl_easy_init();
	struct curl_slist *hd = NULL;
	http_rx rx = {.c = c, .want = id, .cancel = cancel};
	char *body = json_dumps(msg, JSON_COMPACT);
	long status = 0;
	int rc = 0;
	CURLcode cc;
	*resp = NULL;
	if (!h || !body) {
		mi_buf_adds(err, "cannot start an HTTP request");
		rc = ENOMEM;
		goto out;
	}
	for (struct curl_slist *s = c->headers; s; s = s->next)
		hd = curl_slist_append(hd, s->data);
	hd = curl_slist_append(hd, "Content-Type: application/json");
	hd = curl_slist_append(hd, "Accept: application/json, text/event-stream");
	pthread_mutex_lock(&c->mu);
	if (c->session) {
		mi_buf l = {0};
		mi_buf_addf(&l, "Mcp-Session-Id: %s", c->session);
		hd = curl_slist_append(hd, l.buf);
		mi_buf_release(&l);
	}
	if (c->version[0]) {
		mi_buf l = {0};
		mi_buf_addf(&l, "MCP-Protocol-Version: %s", c->version);
		hd = curl_slist_append(hd, l.buf);
		mi_buf_release(&l);
	}
	if (c->stateless && json_is_string(json_object_get(msg, "method"))) {
		/* 2026-07-28 over HTTP: the headers mirror the body's method and
		 * the name it acts on. */
		const char *m = json_string_value(json_object_get(msg, "method"));
		json_t *ps = json_object_get(msg, "params");
		json_t *nm = json_object_get(ps, !strcmp(m, "resources/read") ? "uri" : "name");
		mi_buf l = {0};
		mi_buf_addf(&l, "Mcp-Method: %s", m);
		hd = curl_slist_append(hd, l.buf);
		if ((!strcmp(m, "tools/call") || !strcmp(m, "prompts/get") ||
		     !strcmp(m, "resources/read")) && json_is_string(nm) &&
		    !strpbrk(json_string_value(nm), "\r\n")) {
			mi_buf_reset(&l);
			mi_buf_addf(&l, "Mcp-Name: %s", json_string_value(nm));
			hd = curl_slist_append(hd, l.buf);
		}
		mi_buf_release(&l);
	}
	pthread_mutex_unlock(&c->mu);
	curl_easy_setopt(h, CURLOPT_URL, c->url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, http_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &rx);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, http_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, &rx);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, http_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, &rx);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	cc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (rx.session.len) {
		pthread_mutex_lock(&c->mu);
		free(c->session);
		c->session = mi_xstrdup(rx.session.buf);
		pthread_mutex_unlock(&c->mu);
	}
	if (rx.resp) {
		*resp = rx.resp;
		rx.resp = NULL;
		goto out;
	}
	if (rx.over) {
		mi_buf_addf(err, "server '%s' sent a message over 64 MiB", c->name);
		rc = EMSGSIZE;
		goto out;
	}
	if (cc == CURLE_ABORTED_BY_CALLBACK && cancel && cancel->fn && cancel->fn(cancel->ctx)) {
		mi_buf_adds(err, "cancelled");
		rc = MI_ERR_CANCELLED;
		goto out;
	}
	if (cc != CURLE_OK) {
		mi_buf_addf(err, "HTTP request to server '%s' failed: %s", c->name,
			    curl_easy_strerror(cc));
		rc = cc == CURLE_OPERATION_TIMEDOUT ? ETIMEDOUT : ECONNREFUSED;
		goto out;
	}
	if (status == 202 && id < 0)
		goto out;
	if (status < 200 || status >= 300) {
		mi_buf_addf(err, "server '%s' answered HTTP %ld", c->name, status);
		rc = status == 404 && c->session ? ESTALE : EPROTO;
		goto out;
	}
	if (id >= 0 && !rx.sse) {
		json_t *m = json_loadb(rx.body.buf ? rx.body.buf : "", rx.body.len, 0, NULL);
		if (json_is_object(m)) {
			*resp = m;
		} else {
			json_decref(m);
			mi_buf_addf(err, "server '%s' sent a response that is not JSON-RPC", c->name);
			rc = EPROTO;
		}
	} else if (id >= 0) {
		if (rx.body.len) {
			mi_buf_addc(&rx.body, '\n');
			sse_lines(&rx.body, &rx.data, NULL, sse_done, &rx);
		}
		sse_event(&rx);
		if (rx.resp) {
			*resp = rx.resp;
			rx.resp = NULL;
		} else {
			mi_buf_addf(err, "server '%s' closed the event stream without answering", c->name);
			rc = EPROTO;
		}
	}
out:
	json_decref(rx.resp);
	mi_buf_release(&rx.body);
	mi_buf_release(&rx.data);
	mi_buf_release(&rx.session);
	curl_slist_free_all(hd);
	if (h)
		curl_easy_cleanup(h);
	free(body);
	return rc;
}

/* ---- legacy HTTP+SSE (2024-11-05) ------------------------------------------------ */

/* The stream: an "endpoint" event names where to POST (same origin only:
 * our headers may carry credentials), "message" events carry the server's
 * messages, routed as the stdio reader routes lines. */
typedef struct sse_rx {
	mi_mcp_client *c;
	mi_buf body, data, event;
} sse_rx;

static bool same_origin(const char *base, const char *url)
{
	static const CURLUPart parts[] = {CURLUPART_SCHEME, CURLUPART_HOST, CURLUPART_PORT};
	CURLU *a = curl_url(), *b = curl_url();
	bool same = a && b && !curl_url_set(a, CURLUPART_URL, base, 0) &&
		    !curl_url_set(b, CURLUPART_URL, url, 0);
	for (size_t i = 0; same && i < sizeof(parts) / sizeof(parts[0]); i++) {
		char *x = NULL, *y = NULL;
		curl_url_get(a, parts[i], &x, CURLU_DEFAULT_PORT);
		curl_url_get(b, parts[i], &y, CURLU_DEFAULT_PORT);
		same = x && y && !strcasecmp(x, y);
		curl_free(x);
		curl_free(y);
	}
	curl_url_cleanup(a);
	curl_url_cleanup(b);
	return same;
}

static void sse_stream_event(sse_rx *rx)
{
	mi_mcp_client *c = rx->c;
	if (rx->data.len && !strcmp(mi_buf_str(&rx->event), "endpoint")) {
		CURLU *u = curl_url();
		char *abs = NULL;
		if (u && !curl_url_set(u, CURLUPART_URL, c->url, 0) &&
		    !curl_url_set(u, CURLUPART_URL, mi_buf_str(&rx->data), 0) &&
		    !curl_url_get(u, CURLUPART_URL, &abs, 0) && same_origin(c->url, abs)) {
			pthread_mutex_lock(&c->mu);
			free(c->post_url);
			c->post_url = mi_xstrdup(abs);
			pthread_cond_broadcast(&c->cv);
			pthread_mutex_unlock(&c->mu);
		}
		curl_free(abs);
		curl_url_cleanup(u);
	} else if (rx->data.len) {
		json_t *msg = json_loadb(rx->data.buf, rx->data.len, 0, NULL);
		if (json_is_object(msg))
			route(c, msg);
		else
			json_decref(msg);
	}
	mi_buf_reset(&rx->data);
	mi_buf_reset(&rx->event);
}

static void sse_stream_done(void *rx)
{
	sse_stream_event(rx);
}

static size_t sse_stream_write(char *p, size_t sz, size_t n, void *ctx)
{
	sse_rx *rx = ctx;
	mi_buf_add(&rx->body, p, sz * n);
	sse_lines(&rx->body, &rx->data, &rx->event, sse_stream_done, rx);
	return rx->body.len + rx->data.len > CL_MAX_MSG ? 0 : sz * n;
}

static int sse_stream_progress(void *ctx, curl_off_t a, curl_off_t b, curl_off_t x, curl_off_t y)
{
	sse_rx *rx = ctx;
	return atomic_load(&rx->c->closing) ? 1 : 0;
}

static void *sse_reader_main(void *arg)
{
	mi_mcp_client *c = arg;
	sse_rx rx = {.c = c};
	CURL *h = curl_easy_init();
	struct curl_slist *hd = NULL;
	long status = 0;
	char why[200] = "the server closed its event stream";
	if (h) {
		for (struct curl_slist *s = c->headers; s; s = s->next)
			hd = curl_slist_append(hd, s->data);
		hd = curl_slist_append(hd, "Accept: text/event-stream");
		curl_easy_setopt(h, CURLOPT_URL, c->url);
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sse_stream_write);
		curl_easy_setopt(h, CURLOPT_WRITEDATA, &rx);
		curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, sse_stream_progress);
		curl_easy_setopt(h, CURLOPT_XFERINFODATA, &rx);
		curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)c->timeout_ms);
		CURLcode cc = curl_easy_perform(h);
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
		if (cc != CURLE_OK && !atomic_load(&c->closing))
			snprintf(why, sizeof(why), "the event stream failed: %s", curl_easy_strerror(cc));
		else if (status && (status < 200 || status >= 300))
			snprintf(why, sizeof(why), "GET of the event stream answered HTTP %ld", status);
		curl_easy_cleanup(h);
		curl_slist_free_all(hd);
	}
	mi_buf_release(&rx.body);
	mi_buf_release(&rx.data);
	mi_buf_release(&rx.event);
	set_dead(c, why);
	return NULL;
}

static size_t sse_discard(char *p, size_t sz, size_t n, void *ctx)
{
	return sz * n;
}

static int sse_post_progress(void *ctx, curl_off_t a, curl_off_t b, curl_off_t x, curl_off_t y)
{
	const mi_mcp_cancel *cancel = ctx;
	return cancel->fn(cancel->ctx) ? 1 : 0;
}

/* One message to the endpoint the stream named, within timeout_ms (the
 * client's own when longer) and until cancel says so; its answer comes on
 * the stream.  The reader (timeout_ms < 0: a reply to the server's
 * request) waits CL_REPLY_MS at most and drops a reply not taken by then:
 * while it posts, nothing on the stream is read, so a server that holds
 * the POST would hold every call. */
static void sse_post(mi_mcp_client *c, json_t *msg, int timeout_ms,
		     const mi_mcp_cancel *cancel)
{
	bool reply = timeout_ms < 0;
	long limit = reply ? CL_REPLY_MS :
		     timeout_ms > 0 && timeout_ms < c->timeout_ms ? timeout_ms : c->timeout_ms;
	CURL *h = curl_easy_init();
	struct curl_slist *hd = NULL;
	char *body = json_dumps(msg, JSON_COMPACT), *to;
	long status = 0;
	CURLcode cc = CURLE_FAILED_INIT;
	pthread_mutex_lock(&c->mu);
	to = c->post_url ? mi_xstrdup(c->post_url) : NULL;
	pthread_mutex_unlock(&c->mu);
	if (h && body && to) {
		for (struct curl_slist *s = c->headers; s; s = s->next)
			hd = curl_slist_append(hd, s->data);
		hd = curl_slist_append(hd, "Content-Type: application/json");
		curl_easy_setopt(h, CURLOPT_URL, to);
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sse_discard);
		curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, limit);
		if (cancel && cancel->fn) {
			curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, sse_post_progress);
			curl_easy_setopt(h, CURLOPT_XFERINFODATA, (void *)cancel);
			curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
		}
		cc = curl_easy_perform(h);
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	}
	if ((reply && cc == CURLE_OPERATION_TIMEDOUT) || cc == CURLE_ABORTED_BY_CALLBACK)
		; /* dropped: the server asked and does not take the answer; cancelled */
	else if (cc != CURLE_OK || status < 200 || status >= 300)
		set_dead(c, cc != CURLE_OK ? "posting to the server failed" :
			    "the server refused a posted message");
	curl_slist_free_all(hd);
	if (h)
		curl_easy_cleanup(h);
	free(body);
	free(to);
}

/* Starts the stream and waits for its endpoint event. */
static int sse_open(mi_mcp_client *c, int timeout_ms, mi_buf *err)
{
	int64_t deadline = now_ms() + timeout_ms;
	if (pthread_create(&c->reader, NULL, sse_reader_main, c)) {
		mi_buf_addf(err, "cannot start a thread for server '%s'", c->name);
		return ENOMEM;
	}
	c->reader_started = true;
	pthread_mutex_lock(&c->mu);
	while (!c->post_url && !c->dead && now_ms() < deadline) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&c->cv, &c->mu, &ts);
	}
	bool ok = c->post_url != NULL;
	if (!ok)
		mi_buf_addf(err, "server '%s' (SSE) named no endpoint to post to: %s", c->name,
			    c->dead ? c->dead_why : "none within the timeout");
	pthread_mutex_unlock(&c->mu);
	return ok ? 0 : EPROTO;
}

/* ---- requests -------------------------------------------------------------------- */

int mi_mcp_client_request(mi_mcp_client *c, const char *method, json_t *params,
			  int timeout_ms, const mi_mcp_cancel *cancel, json_t **result,
			  mi_buf *err)
{
	int64_t id = atomic_fetch_add(&c->next_id, 1);
	json_t *msg = json_object(), *resp = NULL, *e;
	cl_wait w = {.id = id};
	int rc = 0;
	if (timeout_ms <= 0)
		timeout_ms = c->timeout_ms;
	*result = NULL;
	json_object_set_new(msg, "jsonrpc", json_string("2.0"));
	json_object_set_new(msg, "id", json_integer(id));
	json_object_set_new(msg, "method", json_string(method));
	json_object_set_new(msg, "params", with_meta(c, params));
	if (c->transport == MI_MCP_HTTP) {
		rc = http_post(c, msg, id, timeout_ms, cancel, &resp, err);
		if (rc)
			goto out;
		goto answer;
	}
	pthread_mutex_lock(&c->mu);
	if (c->dead) {
		mi_buf_addf(err, "server '%s' is not running: %s", c->name, c->dead_why);
		pthread_mutex_unlock(&c->mu);
		rc = EPIPE;
		goto out;
	}
	w.next = c->waits;
	c->waits = &w;
	pthread_mutex_unlock(&c->mu);
	{
		int64_t deadline = now_ms() + timeout_ms;
		send_json(c, msg, timeout_ms, cancel); /* a failure ends the wait below */
		pthread_mutex_lock(&c->mu);
		while (!w.done) {
			struct timespec ts;
			int64_t left = deadline - now_ms();
			if (left <= 0 || (cancel && cancel->fn && cancel->fn(cancel->ctx)))
				break;
			if (left > 100)
				left = 100;  /* poll cancel */
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += left / 1000;
			ts.tv_nsec += (left % 1000) * 1000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&c->cv, &c->mu, &ts);
		}
		for (cl_wait **pp = &c->waits; *pp; pp = &(*pp)->next)
			if (*pp == &w) {
				*pp = w.next;
				break;
			}
		resp = w.msg;
		bool dead = c->dead;
		char why[256];
		snprintf(why, sizeof(why), "%s", c->dead_why);
		pthread_mutex_unlock(&c->mu);
		if (!resp) {
			bool cancelled = cancel && cancel->fn && cancel->fn(cancel->ctx);
			if (!dead) {
				/* Tell the server to stop working on it. */
				json_t *p = json_pack("{s:I,s:s}", "requestId", (json_int_t)id,
						      "reason", cancelled ? "cancelled by the client"
									  : "timed out");
				mi_mcp_client_notify(c, "notifications/cancelled", p);
				json_decref(p);
			}
			if (cancelled) {
				mi_buf_adds(err, "cancelled");
				rc = MI_ERR_CANCELLED;
			} else if (dead) {
				mi_buf_addf(err, "server '%s' stopped during the call: %s", c->name, why);
				rc = EPIPE;
			} else {
				mi_buf_addf(err, "server '%s' did not answer %s within %d ms", c->name,
					    method, timeout_ms);
				rc = ETIMEDOUT;
			}
			goto out;
		}
	}
answer:
	if ((e = json_object_get(resp, "error"))) {
		json_t *m = json_object_get(e, "message");
		json_t *code = json_object_get(e, "code");
		const char *ms = json_is_string(m) ? json_string_value(m) : "(no message)";
		size_t ml = strlen(ms), keep = mi_utf8_prefix(ms, ml, CL_ERR_MSG);
		/* the server's words are quoted, not all of them: they may be 64 MiB */
		mi_buf_addf(err, "server '%s' answered %s with error %lld: %.*s%s", c->name, method,
			    (long long)json_integer_value(code), (int)keep, ms,
			    keep < ml ? "…" : "");
		rc = MI_ERR_ARG;
		*result = json_incref(e);
		goto out;
	}
	if (!json_is_object(json_object_get(resp, "result"))) {
		mi_buf_addf(err, "server '%s' answered %s without a result object", c->name, method);
		rc = EPROTO;
		goto out;
	}
	*result = json_incref(json_object_get(resp, "result"));
out:
	json_decref(resp);
	json_decref(msg);
	return rc;
}

/* ---- opening --------------------------------------------------------------------- */

static int spawn(mi_mcp_client *c, const mi_mcp_upstream *u, mi_buf *err)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, ex[2] = {-1, -1};
	int rc = 0;
	if (mi_pipe_cloexec(in) || mi_pipe_cloexec(out) || mi_pipe_cloexec(ex)) {
		rc = errno;
		mi_buf_addf(err, "cannot create pipes for server '%s': %s", u->name, strerror(rc));
		goto fail;
	}
	pid_t pid = fork();
	if (pid < 0) {
		rc = errno;
		mi_buf_addf(err, "cannot start server '%s': %s", u->name, strerror(rc));
		goto fail;
	}
	if (pid == 0) {
		int e;
		setpgid(0, 0);
		dup2(in[0], 0);
		dup2(out[1], 1);
		if (u->stderr_fd >= 0) {
			dup2(u->stderr_fd, 2);
		} else {
			int nul = open("/dev/null", O_WRONLY);
			if (nul >= 0)
				dup2(nul, 2);
		}
		for (size_t i = 0; u->env && u->env[i]; i++)
			putenv((char *)u->env[i]);
		signal(SIGPIPE, SIG_DFL);
		if (u->cwd && chdir(u->cwd) < 0) {
			e = errno;
			(void)!write(ex[1], &e, sizeof(e));
			_exit(127);
		}
		execvp(u->command, (char *const *)u->args);
		e = errno;
		(void)!write(ex[1], &e, sizeof(e));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(ex[1]);
	in[0] = out[1] = ex[1] = -1;
	{
		int e = 0;
		ssize_t n;
		while ((n = read(ex[0], &e, sizeof(e))) < 0 && errno == EINTR)
			;
		close(ex[0]);
		ex[0] = -1;
		if (n == sizeof(e)) {
			waitpid(pid, NULL, 0);
			mi_buf_addf(err, "cannot run '%s' for server '%s': %s", u->command, u->name,
				    strerror(e));
			rc = e;
			goto fail;
		}
	}
	c->pid = pid;
	c->to_fd = in[1];
	/* writes never block: send_json polls with a deadline */
	fcntl(c->to_fd, F_SETFL, fcntl(c->to_fd, F_GETFL) | O_NONBLOCK);
	c->from_fd = out[0];
	if (pthread_create(&c->reader, NULL, reader_main, c)) {
		rc = EAGAIN;
		mi_buf_addf(err, "cannot start a reader for server '%s'", u->name);
		return rc;
	}
	c->reader_started = true;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0) close(in[i]);
		if (out[i] >= 0) close(out[i]);
		if (ex[i] >= 0) close(ex[i]);
	}
	return rc;
}

bool mi_mcp_client_speaks(const char *v)
{
	return v && (!strcmp(v, CL_STATELESS) || known_version(v));
}

static bool known_version(const char *v)
{
	for (size_t i = 0; i < sizeof(cl_versions) / sizeof(cl_versions[0]); i++)
		if (!strcmp(v, cl_versions[i]))
			return true;
	return false;
}

static void take_info(mi_mcp_client *c, json_t *r)
{
	json_t *info = json_object_get(r, "serverInfo");
	json_t *ins = json_object_get(r, "instructions");
	free(c->info);
	c->info = info ? json_dumps(info, JSON_COMPACT) : NULL;
	free(c->instructions);
	c->instructions = json_is_string(ins) ? mi_xstrdup(json_string_value(ins)) : NULL;
	json_decref(c->caps);
	c->caps = json_incref(json_object_get(r, "capabilities"));
}

/* 2026-07-28 without a handshake: server/discover, whose answer must list
 * the version. */
static int discover(mi_mcp_client *c, int timeout_ms, json_t **r, mi_buf *err)
{
	json_t *sv, *x;
	size_t i;
	int rc;
	c->stateless = true;
	snprintf(c->version, sizeof(c->version), "%s", CL_STATELESS);
	if ((rc = mi_mcp_client_request(c, "server/discover", NULL, timeout_ms, NULL, r, err)))
		goto fail;
	sv = json_object_get(*r, "supportedVersions");
	json_array_foreach(sv, i, x)
		if (json_is_string(x) && !strcmp(json_string_value(x), CL_STATELESS))
			return 0;
	mi_buf_addf(err, "server '%s' answered server/discover without %s in supportedVersions",
		    c->name, CL_STATELESS);
	rc = EPROTO;
fail:
	c->stateless = false;
	c->version[0] = 0;
	return rc;
}

/* 2024-11-05 .. 2025-11-25: initialize, then notifications/initialized.
 * A server that refuses initialize may speak 2026-07-28: server/discover.
 * A version named in the servers file is offered (or, 2026-07-28, used)
 * instead of negotiated. */
static int negotiate(mi_mcp_client *c, const char *want, int timeout_ms, mi_buf *err)
{
	json_t *p, *r = NULL;
	mi_buf e1 = {0};
	int rc;
	if (want && !strcmp(want, CL_STATELESS)) {
		if (!(rc = discover(c, timeout_ms, &r, err)))
			take_info(c, r);
		json_decref(r);
		return rc;
	}
	p = json_pack("{s:s,s:{},s:{s:s,s:s}}", "protocolVersion", want ? want : cl_versions[0],
		      "capabilities", "clientInfo", "name", "mcpidx", "version", MI_VERSION);
	rc = mi_mcp_client_request(c, "initialize", p, timeout_ms, NULL, &r, &e1);
	json_decref(p);
	if (!rc) {
		json_t *v = json_object_get(r, "protocolVersion");
		if (!json_is_string(v) || !known_version(json_string_value(v))) {
			mi_buf_addf(err, "server '%s' speaks MCP version %s, which mcpidx does not "
				    "(it speaks 2024-11-05 to %s)", c->name,
				    json_is_string(v) ? json_string_value(v) : "(none)", CL_STATELESS);
			rc = EPROTO;
			goto out;
		}
		pthread_mutex_lock(&c->mu);
		snprintf(c->version, sizeof(c->version), "%s", json_string_value(v));
		pthread_mutex_unlock(&c->mu);
		take_info(c, r);
		mi_mcp_client_notify(c, "notifications/initialized", NULL);
		goto out;
	}
	if (rc != MI_ERR_ARG) {  /* no JSON-RPC answer at all */
		mi_buf_add(err, e1.buf, e1.len);
		goto out;
	}
	/* The server answered initialize with an error: try the stateless
	 * protocol's discovery. */
	json_decref(r);
	r = NULL;
	{
		mi_buf e2 = {0};
		rc = discover(c, timeout_ms, &r, &e2);
		if (rc) {
			mi_buf_addf(err, "%s (server/discover: %s)", mi_buf_str(&e1), mi_buf_str(&e2));
			mi_buf_release(&e2);
			goto out;
		}
		mi_buf_release(&e2);
		take_info(c, r);
	}
out:
	json_decref(r);
	mi_buf_release(&e1);
	return rc;
}

int mi_mcp_client_open(const mi_mcp_upstream *u, mi_mcp_client **out, mi_buf *err)
{
	mi_mcp_client *c = mi_xcalloc(1, sizeof(*c));
	int rc;
	*out = NULL;
	c->name = mi_xstrdup(u->name ? u->name : "?");
	c->transport = !u->url ? MI_MCP_STDIO : u->sse ? MI_MCP_SSE : MI_MCP_HTTP;
	c->to_fd = c->from_fd = -1;
	c->timeout_ms = u->timeout_ms > 0 ? u->timeout_ms : CL_TIMEOUT_MS;
	c->note = u->note;
	c->note_ctx = u->note_ctx;
	atomic_init(&c->next_id, 1);
	pthread_mutex_init(&c->mu, NULL);
	pthread_mutex_init(&c->wmu, NULL);
	pthread_cond_init(&c->cv, NULL);
	if (c->transport != MI_MCP_STDIO) {
		if (!mi_dl_curl(err)) { /* loads it and runs curl_global_init, once */
			rc = ELIBACC;
			goto fail;
		}
		c->url = mi_xstrdup(u->url);
		for (size_t i = 0; u->headers && u->headers[i]; i++)
			c->headers = curl_slist_append(c->headers, u->headers[i]);
		if (c->transport == MI_MCP_SSE &&
		    (rc = sse_open(c, u->timeout_ms > 0 ? u->timeout_ms : 30000, err)))
			goto fail;
	} else {
		if (!u->command || !*u->command) {
			mi_buf_addf(err, "server '%s' has neither a command nor a url", c->name);
			rc = MI_ERR_ARG;
			goto fail;
		}
		if ((rc = spawn(c, u, err)))
			goto fail;
	}
	if ((rc = negotiate(c, u->protocol, u->timeout_ms > 0 ? u->timeout_ms : 30000, err)))
		goto fail;
	*out = c;
	return 0;
fail:
	mi_mcp_client_close(c);
	return rc;
}

const char *mi_mcp_client_version(const mi_mcp_client *c) { return c->version; }
const char *mi_mcp_client_info(const mi_mcp_client *c) { return c->info; }
const char *mi_mcp_client_instructions(const mi_mcp_client *c) { return c->instructions; }
pid_t mi_mcp_client_pid(const mi_mcp_client *c) { return c->pid; }

bool mi_mcp_client_has(const mi_mcp_client *c, const char *cap, const char *sub)
{
	json_t *v = json_object_get(c->caps, cap);
	if (!v)
		return false;
	return !sub || json_is_true(json_object_get(v, sub));
}

void mi_mcp_client_close(mi_mcp_client *c)
{
	if (!c)
		return;
	if (c->transport == MI_MCP_HTTP && c->session && !c->dead) {
		/* End the session: DELETE with its id (best effort). */
		CURL *h = curl_easy_init();
		if (h) {
			struct curl_slist *hd = NULL;
			mi_buf l = {0};
			for (struct curl_slist *s = c->headers; s; s = s->next)
				hd = curl_slist_append(hd, s->data);
			mi_buf_addf(&l, "Mcp-Session-Id: %s", c->session);
			hd = curl_slist_append(hd, l.buf);
			curl_easy_setopt(h, CURLOPT_URL, c->url);
			curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "DELETE");
			curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
			curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 2000L);
			curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
			curl_easy_perform(h);
			curl_easy_cleanup(h);
			curl_slist_free_all(hd);
			mi_buf_release(&l);
		}
	}
	if (c->to_fd >= 0) {
		close(c->to_fd);   /* stdio servers exit when their input closes */
		c->to_fd = -1;
	}
	if (c->pid > 0) {
		int st;
		int64_t end = now_ms() + 2000;
		while (waitpid(c->pid, &st, WNOHANG) == 0) {
			if (now_ms() > end) {
				kill(-c->pid, SIGTERM);
				kill(c->pid, SIGTERM);
				int64_t end2 = now_ms() + 2000;
				while (waitpid(c->pid, &st, WNOHANG) == 0) {
					if (now_ms() > end2) {
						kill(-c->pid, SIGKILL);
						kill(c->pid, SIGKILL);
						waitpid(c->pid, &st, 0);
						break;
					}
					usleep(10000);
				}
				break;
			}
			usleep(10000);
		}
		/* Whatever the server left in its process group goes too. */
		kill(-c->pid, SIGKILL);
		c->pid = 0;
	}
	atomic_store(&c->closing, true);   /* ends an SSE stream within a second */
	if (c->reader_started)
		pthread_join(c->reader, NULL);
	free(c->post_url);
	if (c->from_fd >= 0)
		close(c->from_fd);
	free(c->name);
	free(c->url);
	free(c->session);
	free(c->info);
	free(c->instructions);
	json_decref(c->caps);
	if (c->headers) /* else libcurl may not be loaded */
		curl_slist_free_all(c->headers);
	pthread_mutex_destroy(&c->mu);
	pthread_mutex_destroy(&c->wmu);
	pthread_cond_destroy(&c->cv);
	free(c);
}

int mi_mcp_client_list_tools(mi_mcp_client *c, int timeout_ms, json_t **tools, mi_buf *err)
{
	json_t *all = json_array(), *r = NULL;
	char *cursor = NULL;
	size_t bytes = 0;
	int rc = 0;
	for (int page = 0;; page++) {
		if (page == CL_PAGES) {
			/* never a silent cut: the list is more than we read */
			mi_buf_addf(err, "server '%s' lists its tools on more than %d pages",
				    c->name, CL_PAGES);
			rc = EFBIG;
			break;
		}
		json_t *p = cursor ? json_pack("{s:s}", "cursor", cursor) : NULL;
		rc = mi_mcp_client_request(c, "tools/list", p, timeout_ms, NULL, &r, err);
		json_decref(p);
		if (rc)
			break;
		json_t *t = json_object_get(r, "tools"), *nc = json_object_get(r, "nextCursor");
		if (!json_is_array(t)) {
			mi_buf_addf(err, "server '%s' answered tools/list without a tools array", c->name);
			rc = EPROTO;
			break;
		}
		bytes += json_dumpb(t, NULL, 0, JSON_COMPACT);
		if (json_array_size(all) + json_array_size(t) > CL_MAX_TOOLS || bytes > CL_MAX_MSG) {
			mi_buf_addf(err, "server '%s' lists more than %d tools or more than 64 MiB "
				    "of them; mcpidx takes at most that many", c->name, CL_MAX_TOOLS);
			rc = EFBIG;
			break;
		}
		json_array_extend(all, t);
		free(cursor);
		cursor = json_is_string(nc) && *json_string_value(nc) ?
				 mi_xstrdup(json_string_value(nc)) : NULL;
		json_decref(r);
		r = NULL;
		if (!cursor)
			break;
	}
	json_decref(r);
	free(cursor);
	if (rc) {
		json_decref(all);
		all = NULL;
	}
	*tools = all;
	return rc;
}
