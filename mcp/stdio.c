/*
 * stdio.c - the stdio transport: newline-delimited JSON-RPC messages on
 * stdin, responses and notifications on stdout (nothing else ever goes
 * there), long calls on their own threads so cancellation and pings are
 * answered while they run.
 */
#include "mcp_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MI_READ_CHUNK 65536
#define MI_MAX_WORKERS 64   /* calls running on their own threads at once */

typedef struct mi_stdout {
	pthread_mutex_t mu;  /* one message at a time */
	int fd;              /* 1 */
	bool dead;           /* the client went away (EPIPE) */
	mi_mcp_server *srv;  /* for the log */
} mi_stdout;

static void out_send(void *ctx, const char *msg, size_t len)
{
	mi_stdout *o = ctx;
	struct iovec iov[2];
	int n = 2;
	pthread_mutex_lock(&o->mu);
	iov[0].iov_base = (void *)msg;
	iov[0].iov_len = len;
	iov[1].iov_base = "\n";
	iov[1].iov_len = 1;
	while (!o->dead && n > 0) {
		ssize_t w = writev(o->fd, iov + (2 - n), n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			o->dead = true;
			mi_mcp_log(o->srv, "stdout closed (%s); dropping output",
				   strerror(errno));
			break;
		}
		while (n > 0 && (size_t)w >= iov[2 - n].iov_len) {
			w -= (ssize_t)iov[2 - n].iov_len;
			n--;
		}
		if (n > 0) {
			iov[2 - n].iov_base = (char *)iov[2 - n].iov_base + w;
			iov[2 - n].iov_len -= (size_t)w;
		}
	}
	pthread_mutex_unlock(&o->mu);
}

typedef struct mi_worker {
	mi_mcp_call *call;   /* the call to run */
	mi_mcp_session *ss;  /* its session */
} mi_worker;

static void *worker_main(void *arg)
{
	mi_worker *w = arg;
	mi_mcp_server *s = w->ss->srv;
	mi_mcp_sink sink = w->ss->sink;
	mi_buf out = {0};
	mi_mcp_call_run(w->call, &out);
	if (out.len)
		sink.send(sink.ctx, out.buf, out.len);
	mi_buf_release(&out);
	free(w);
	pthread_mutex_lock(&s->run_mu);
	s->running--;
	pthread_cond_broadcast(&s->run_cv);
	pthread_mutex_unlock(&s->run_mu);
	return NULL;
}

/*
 * Read-only lookups finish in well under a millisecond: they run on the
 * reader thread, which saves a thread start and a wake-up per call (the
 * tail latency on a busy machine).  Calls that may run long (a build, a
 * blocking tasks/result, a research graph) get a thread of their own so
 * pings and cancellations are answered meanwhile.
 */
static bool runs_inline(const mi_mcp_call *call)
{
	static const char *const quick[] = {"goto_definition", "read_file", "expand_at",
					    "find_references", "search_code", "search_docs",
					    "index_status", NULL};
	if (!call->tool || strcmp(call->method, "tools/call"))
		return false;
	if (call->params && json_object_get(call->params, "task"))
		return false;
	for (int i = 0; quick[i]; i++)
		if (!strcmp(call->tool, quick[i]))
			return true;
	return false;
}

static void dispatch(mi_mcp_session *ss, const char *line, size_t len)
{
	mi_mcp_server *s = ss->srv;
	mi_buf out = {0};
	mi_mcp_call *call = NULL;
	pthread_t th;
	pthread_attr_t at;
	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
		       line[len - 1] == '\t'))
		len--;
	if (len == 0)
		return;
	if (mi_mcp_handle(ss, line, len, ss->sink, false, &out, &call) == 1) {
		mi_worker *w = mi_xmalloc(sizeof *w);
		bool busy;
		w->call = call;
		w->ss = ss;
		pthread_mutex_lock(&s->run_mu);
		busy = s->running >= MI_MAX_WORKERS;
		s->running++;
		pthread_mutex_unlock(&s->run_mu);
		if (busy || runs_inline(call)) {
			/* Past the cap the reader runs calls itself: backpressure. */
			worker_main(w);
		} else {
			pthread_attr_init(&at);
			pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
			if (pthread_create(&th, &at, worker_main, w) != 0)
				worker_main(w);
			pthread_attr_destroy(&at);
		}
	}
	if (out.len)
		ss->sink.send(ss->sink.ctx, out.buf, out.len);
	mi_buf_release(&out);
}

int mi_mcp_serve_stdio(mi_mcp_server *s)
{
	mi_stdout o;
	mi_mcp_session ss;
	mi_mcp_sink sink;
	char *buf = mi_xmalloc(MI_READ_CHUNK);
	size_t cap = MI_READ_CHUNK, len = 0, scan = 0, start;
	bool discarding = false;
	size_t discarded = 0;

	memset(&o, 0, sizeof o);
	pthread_mutex_init(&o.mu, NULL);
	o.fd = 1;
	o.srv = s;
	sink.send = out_send;
	sink.ctx = &o;
	mi_mcp_session_init(&ss, s, sink);
	mi_mcp_log(s, "serving MCP on stdio; index %s", s->index_path);
	for (;;) {
		ssize_t r;
		char *nl;
		if (cap - len < MI_READ_CHUNK / 2) {
			cap *= 2;
			buf = mi_xrealloc(buf, cap);
		}
		r = read(0, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		start = 0;
		while ((nl = memchr(buf + scan, '\n', len - scan))) {
			size_t ll = (size_t)(nl - buf) - start;
			if (discarding) {
				mi_buf err = {0}, m = {0};
				mi_buf_addf(&m, "message of over %zu bytes is over the "
					    "%zu MiB limit; send smaller requests",
					    discarded + ll, MI_MCP_MAX_MSG >> 20);
				mi_mcp_error_response(&err, NULL, MI_RPC_INVALID_REQUEST,
						      m.buf);
				mi_mcp_log(s, "rejected a %zu-byte message",
					   discarded + ll);
				out_send(&o, err.buf, err.len);
				mi_buf_release(&err);
				mi_buf_release(&m);
				discarding = false;
				discarded = 0;
			} else {
				dispatch(&ss, buf + start, ll);
			}
			start += ll + 1;
			scan = start;
		}
		if (start) {
			memmove(buf, buf + start, len - start);
			len -= start;
		}
		scan = len;
		if (len > MI_MCP_MAX_MSG) {
			discarding = true;
			discarded += len;
			len = scan = 0;
			if (cap > 4 * MI_READ_CHUNK) {
				cap = MI_READ_CHUNK;
				free(buf);
				buf = mi_xmalloc(cap);
			}
		}
	}
	if (len && !discarding)
		dispatch(&ss, buf, len);
	free(buf);
	mi_mcp_log(s, "stdin closed; shutting down");
	/* Let calls in flight answer (a closed stdin still leaves stdout open),
	 * then cancel what is left, kill builds and wait for the threads. */
	pthread_mutex_lock(&s->run_mu);
	{
		struct timespec dl;
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += 5;
		while (s->running > 0 &&
		       pthread_cond_timedwait(&s->run_cv, &s->run_mu, &dl) == 0)
			;
	}
	pthread_mutex_unlock(&s->run_mu);
	atomic_store(&s->stopping, 1);
	pthread_mutex_lock(&ss.mu);
	for (mi_mcp_call *c = ss.calls; c; c = c->next)
		atomic_store(&c->cancelled, 1);
	pthread_mutex_unlock(&ss.mu);
	mi_mcp_tasks_shutdown();
	pthread_mutex_lock(&s->run_mu);
	while (s->running > 0)
		pthread_cond_wait(&s->run_cv, &s->run_mu);
	pthread_mutex_unlock(&s->run_mu);
	mi_mcp_session_release(&ss);
	pthread_mutex_destroy(&o.mu);
	return 0;
}
