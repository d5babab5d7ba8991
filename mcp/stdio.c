/*
 * stdio.c - the stdio transport: newline-delimited JSON-RPC messages on
 * stdin, responses and notifications on stdout (nothing else ever goes
 * there), long calls on their own threads so cancellation and pings are
 * answered while they run.  One session: a client that initializes, or
 * stateless 2026-07-28 requests, or both.
 */
#include "mcp_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MI_MAX_WORKERS 64   /* calls running on their own threads at once */

typedef struct mi_stdout {
	pthread_mutex_t mu;  /* one message at a time */
	int fd;              /* 1 */
	bool dead;           /* the client went away (EPIPE) */
	mi_mcp_env *env;     /* for the log */
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
			mi_mcp_log(o->env, "stdout closed (%s); dropping output",
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
	mi_mcp_log_hold();
	mi_mcp_call_run(w->call, &out);
	if (out.len)
		sink.send(sink.ctx, out.buf, out.len);
	mi_mcp_log_release();
	mi_buf_release(&out);
	free(w);
	pthread_mutex_lock(&s->run_mu);
	s->running--;
	pthread_cond_broadcast(&s->run_cv);
	pthread_mutex_unlock(&s->run_mu);
	return NULL;
}

static void dispatch(mi_mcp_session *ss, const char *line, size_t len)
{
	mi_mcp_server *s = ss->srv;
	mi_buf out = {0};
	mi_mcp_call *call = NULL;
	mi_mcp_in in;
	pthread_t th;
	pthread_attr_t at;
	if (len == 0)
		return;
	memset(&in, 0, sizeof in);
	in.data = line;
	in.len = len;
	in.sink = ss->sink;
	/* The call's log line is written after its answer. */
	mi_mcp_log_hold();
	if (mi_mcp_handle(ss, &in, &out, &call, NULL) == 1) {
		mi_worker *w = mi_xmalloc(sizeof *w);
		bool busy;
		w->call = call;
		w->ss = ss;
		pthread_mutex_lock(&s->run_mu);
		busy = s->running >= MI_MAX_WORKERS;
		s->running++;
		pthread_mutex_unlock(&s->run_mu);
		if (busy) {
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
	mi_mcp_log_release();
	mi_buf_release(&out);
}

int mi_mcp_serve_stdio(mi_mcp_server *s)
{
	mi_stdout o;
	mi_mcp_session ss;
	mi_mcp_sink sink;
	mi_rpc_lines lines;
	const char *line;
	size_t len;
	int k;

	memset(&o, 0, sizeof o);
	memset(&lines, 0, sizeof lines);
	pthread_mutex_init(&o.mu, NULL);
	o.fd = 1;
	o.env = &s->env;
	sink.send = out_send;
	sink.ctx = &o;
	mi_mcp_session_init(&ss, s, sink);
	mi_mcp_log(&s->env, "serving MCP on stdio; index %s", s->env.index_path);
	for (;;) {
		size_t room;
		char *p = mi_rpc_lines_space(&lines, &room);
		ssize_t r = read(0, p, room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		mi_rpc_lines_got(&lines, (size_t)r);
		while ((k = mi_rpc_lines_next(&lines, &line, &len))) {
			if (k == 2) {
				mi_buf err = {0}, m = {0};
				mi_buf_addf(&m, "message of over %zu bytes is over the "
					    "%zu MiB limit; send smaller requests", len,
					    MI_RPC_MAX_MSG >> 20);
				mi_rpc_put_error(&err, NULL, MI_RPC_INVALID_REQUEST, m.buf, NULL);
				mi_mcp_log(&s->env, "rejected a %zu-byte message", len);
				out_send(&o, err.buf, err.len);
				mi_buf_release(&err);
				mi_buf_release(&m);
				continue;
			}
			dispatch(&ss, line, len);
		}
	}
	if (mi_rpc_lines_rest(&lines, &line, &len))
		dispatch(&ss, line, len);
	mi_rpc_lines_release(&lines);
	mi_mcp_log(&s->env, "stdin closed; shutting down");
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
	atomic_store(&s->env.stopping, 1);
	mi_mcp_session_cancel_all(&ss);
	mi_mcp_tasks_shutdown();
	pthread_mutex_lock(&s->run_mu);
	while (s->running > 0)
		pthread_cond_wait(&s->run_cv, &s->run_mu);
	pthread_mutex_unlock(&s->run_mu);
	mi_mcp_session_close_listens(&ss);
	mi_mcp_session_release(&ss);
	pthread_mutex_destroy(&o.mu);
	return 0;
}
