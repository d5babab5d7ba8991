/*
 * log.c - the server log.  Callers append whole lines to a bounded queue;
 * one writer thread drains it into the log file or stderr.  Serving never
 * waits for the log: when the reader of stderr stops reading (a client that
 * pipes stderr and never drains it), the queue fills, further lines are
 * dropped and counted, and the count is written once the reader catches up.
 * A thread answering a request holds its lines back (mi_mcp_log_hold) until
 * the answer is written: waking the writer before it would put a thread
 * switch, and a third runnable thread, in front of the answer.
 */
#include "area.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MI_LOG_QUEUE ((size_t)256 << 10) /* bytes waiting before lines drop */
#define MI_LOG_DRAIN_MS 1000            /* how long close waits for a writer that
					 * writes nothing */
#define MI_LOG_LINGER_MS 20             /* after a write, lines gather this long */
#define MI_LOG_BATCH ((size_t)64 << 10) /* ... or until this many bytes wait */

static const char *const mi_level_names[] = {
	"debug", "info", "notice", "warning", "error", "critical", "alert",
	"emergency",
};

struct mi_mcp_logger {
	int fd;                  /* 2 or the --log file */
	bool own_fd;             /* close fd at the end */
	int level;               /* MI_LOG_*: lowest level written */
	pthread_mutex_t mu;      /* guards everything below */
	pthread_cond_t cv;       /* queue grew, or stop was set */
	pthread_cond_t idle_cv;  /* the writer emptied the queue */
	mi_buf q;                /* lines waiting for the writer */
	uint64_t dropped;        /* lines dropped since the last report */
	uint64_t dropped_total;  /* lines dropped in all */
	bool writing;            /* the writer holds a chunk outside the lock */
	bool kicked;             /* the writer was signalled, or lingers: it will
				  * look at the queue without a signal */
	bool stop;               /* close asked the writer to end */
	bool dead;               /* the stream failed (EPIPE, EBADF): discard */
	bool has_thread;         /* th runs */
	_Atomic uint64_t wrote;  /* bytes written in all (read by close, unlocked) */
	pthread_t th;            /* the writer */
};

/* A writer that could not drain in time at close is left running with its
 * state reachable from here, so nothing it uses is freed under it. */
static mi_mcp_logger *mi_abandoned;

/* Depth of mi_mcp_log_hold on this thread: while > 0 its lines are queued
 * without waking the writer, whose log is then mi_held (one log at a time:
 * a line for another is not held). */
static __thread int mi_hold;
static __thread mi_mcp_logger *mi_held;

const char *mi_mcp_level_name(int level)
{
	return level >= 0 && level < MI_LOG_OFF ? mi_level_names[level] : "off";
}

int mi_mcp_level_parse(const char *name)
{
	int i;
	for (i = 0; i < MI_LOG_OFF; i++)
		if (name && strcmp(name, mi_level_names[i]) == 0)
			return i;
	if (name && strcmp(name, "off") == 0)
		return MI_LOG_OFF;
	return -1;
}

static void write_all(mi_mcp_logger *l, const char *p, size_t n)
{
	while (n && !l->dead) {
		ssize_t w = write(l->fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			l->dead = true;
			break;
		}
		p += w;
		n -= (size_t)w;
		atomic_fetch_add_explicit(&l->wrote, (uint64_t)w, memory_order_relaxed);
	}
}

static void *writer_main(void *arg)
{
	mi_mcp_logger *l = arg;
	pthread_mutex_lock(&l->mu);
	for (;;) {
		mi_buf chunk;
		while (!l->q.len && !l->dropped && !l->stop)
			pthread_cond_wait(&l->cv, &l->mu);
		if (!l->q.len && !l->dropped && l->stop)
			break;
		/* Take the queue whole; nothing stays on this stack while idle. */
		l->kicked = false;
		chunk = l->q;
		memset(&l->q, 0, sizeof l->q);
		if (l->dropped) {
			char ts[32];
			mi_mcp_iso_time(ts);
			mi_buf_addf(&chunk, "%s mcpidx[%d] %llu log lines dropped: the log "
				    "reader was not reading (use --log FILE)\n", ts,
				    (int)getpid(), (unsigned long long)l->dropped);
			l->dropped = 0;
		}
		l->writing = true;
		pthread_mutex_unlock(&l->mu);
		write_all(l, chunk.buf, chunk.len);
		mi_buf_release(&chunk);
		pthread_mutex_lock(&l->mu);
		l->writing = false;
		if (!l->q.len)
			pthread_cond_broadcast(&l->idle_cv);
		/* Linger: lines of the next calls gather without waking this
		 * thread once per line (a thread switch beside every answer). */
		if (!l->stop && !l->q.len) {
			struct timespec dl;
			clock_gettime(CLOCK_MONOTONIC, &dl);
			dl.tv_nsec += MI_LOG_LINGER_MS * 1000000L;
			if (dl.tv_nsec >= 1000000000L) {
				dl.tv_sec++;
				dl.tv_nsec -= 1000000000L;
			}
			l->kicked = true;
			while (!l->stop && l->q.len < MI_LOG_BATCH &&
			       pthread_cond_timedwait(&l->cv, &l->mu, &dl) != ETIMEDOUT)
				;
			l->kicked = false;
		}
	}
	pthread_cond_broadcast(&l->idle_cv);
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

int mi_mcp_log_open(mi_mcp_logger **out, const char *path, int level, mi_buf *err)
{
	mi_mcp_logger *l = mi_xcalloc(1, sizeof *l);
	pthread_condattr_t ca;
	int rc = 0;
	l->fd = 2;
	l->level = level;
	if (path && *path) {
		l->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (l->fd < 0) {
			rc = errno;
			mi_buf_addf(err, "cannot open log file %s: %s; check the directory "
				    "exists and is writable", path, strerror(rc));
			free(l);
			*out = NULL;
			return rc;
		}
		l->own_fd = true;
	}
	pthread_mutex_init(&l->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&l->idle_cv, NULL);
	/* Nothing is ever written at level off: no writer. */
	l->has_thread = level < MI_LOG_OFF &&
			pthread_create(&l->th, NULL, writer_main, l) == 0;
	*out = l;
	return 0;
}

void mi_mcp_log_close(mi_mcp_logger *l)
{
	struct timespec dl;
	bool drained = true;
	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	l->stop = true;
	pthread_cond_broadcast(&l->cv);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += MI_LOG_DRAIN_MS / 1000;
	/* A reader that is reading, however slowly (a client on a loaded
	 * machine draining stderr as the server ends), is waited for: only
	 * a writer that wrote nothing for MI_LOG_DRAIN_MS is given up on. */
	uint64_t seen = atomic_load_explicit(&l->wrote, memory_order_relaxed);
	while (l->has_thread && (l->q.len || l->writing || l->dropped))
		if (pthread_cond_timedwait(&l->idle_cv, &l->mu, &dl) == ETIMEDOUT) {
			uint64_t now = atomic_load_explicit(&l->wrote, memory_order_relaxed);
			if (now == seen) {
				drained = false;
				break;
			}
			seen = now;
			dl.tv_sec += MI_LOG_DRAIN_MS / 1000;
		}
	pthread_mutex_unlock(&l->mu);
	if (!drained) {
		/* The reader of the stream is gone or stuck: leave the writer. */
		pthread_detach(l->th);
		mi_abandoned = l;
		return;
	}
	if (l->has_thread)
		pthread_join(l->th, NULL);
	if (l->own_fd)
		close(l->fd);
	mi_buf_release(&l->q);
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->cv);
	pthread_cond_destroy(&l->idle_cv);
	free(l);
}

bool mi_mcp_log_wants(const mi_mcp_logger *l, int level)
{
	return l && level >= l->level && level < MI_LOG_OFF;
}

uint64_t mi_mcp_log_dropped(mi_mcp_logger *l)
{
	uint64_t n;
	if (!l)
		return 0;
	pthread_mutex_lock(&l->mu);
	n = l->dropped_total;
	pthread_mutex_unlock(&l->mu);
	return n;
}

void mi_mcp_logv(mi_mcp_logger *l, int level, const char *fmt, va_list ap)
{
	mi_buf line = {0};
	char ts[32];
	bool wake = false;
	if (!mi_mcp_log_wants(l, level))
		return;
	mi_mcp_iso_time(ts);
	mi_buf_addf(&line, "%s mcpidx[%d] ", ts, (int)getpid());
	if (level >= MI_LOG_WARNING)
		mi_buf_addf(&line, "%s: ", mi_level_names[level]);
	mi_buf_vaddf(&line, fmt, ap);
	mi_buf_addc(&line, '\n');
	pthread_mutex_lock(&l->mu);
	if (l->dead || !l->has_thread) {
		/* No writer: nothing can be written without blocking. */
		l->dropped_total++;
	} else if (l->q.len + line.len > MI_LOG_QUEUE) {
		l->dropped++;
		l->dropped_total++;
	} else {
		/* A writer busy writing rechecks the queue before it sleeps. */
		mi_buf_add(&l->q, line.buf, line.len);
		wake = (!l->kicked && !l->writing) ||
		       (l->q.len >= MI_LOG_BATCH && l->q.len - line.len < MI_LOG_BATCH);
		if (wake && mi_hold && (!mi_held || mi_held == l)) {
			mi_held = l;
			wake = false;
		}
		l->kicked |= wake;
	}
	pthread_mutex_unlock(&l->mu);
	if (wake)
		pthread_cond_signal(&l->cv);
	mi_buf_release(&line);
}

void mi_mcp_log_hold(void)
{
	mi_hold++;
}

void mi_mcp_log_release(void)
{
	mi_mcp_logger *l = mi_held;
	bool wake;
	if (mi_hold > 0)
		mi_hold--;
	if (!l || mi_hold)
		return;
	mi_held = NULL;
	pthread_mutex_lock(&l->mu);
	wake = (l->q.len || l->dropped) && !l->kicked && !l->writing;
	l->kicked |= wake;
	pthread_mutex_unlock(&l->mu);
	if (wake)
		pthread_cond_signal(&l->cv);
}

void mi_mcp_logf(mi_mcp_logger *l, int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mi_mcp_logv(l, level, fmt, ap);
	va_end(ap);
}
