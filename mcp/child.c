/*
 * child.c - runs one command as a child process: no shell, its own process
 * group, stdout and stderr through one pipe (kept up to a cap, streamed a
 * line at a time to a callback), killed on timeout or cancellation.  Used
 * by compile runs (compile_task.c) and index builds (build.c).
 */
#include "area.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MI_KILL_GRACE_US 3000000   /* SIGTERM, then SIGKILL this much later */
#define MI_DRAIN_US 500000         /* reading on after SIGKILL, for what is buffered */
#define MI_EXIT_GRACE_US 3000000   /* output kept open this long after the command exits */
#define MI_LINE_MAX 4096           /* longest line handed to on_line */

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Splits a stream into lines for fn (on_line: every line; on_fd3's
 * progress: those ended by \r too, and none empty). */
typedef struct line_state {
	void (*fn)(void *ctx, const char *line, size_t len);
	void *ctx;
	bool progress;
	mi_buf line;        /* the partial line */
} line_state;

static void line_end(line_state *ls)
{
	if (ls->line.len || !ls->progress)
		ls->fn(ls->ctx, mi_buf_str(&ls->line), ls->line.len);
	mi_buf_reset(&ls->line);
}

static void feed_lines(line_state *ls, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\n' || (ls->progress && data[i] == '\r'))
			line_end(ls);
		else if (ls->line.len < MI_LINE_MAX)
			mi_buf_addc(&ls->line, data[i]);
	}
}

/* Cuts the output to its last cap bytes. */
static void keep_last(mi_child_result *r, size_t cap)
{
	if (r->output.len <= cap)
		return;
	size_t cut = r->output.len - cap;
	memmove(r->output.buf, r->output.buf + cut, cap);
	r->output.len = cap;
	r->output.buf[cap] = 0;
	r->dropped += cut;
}

static void keep(mi_child_result *r, size_t cap, bool tail, const char *data, size_t n)
{
	if (tail) { /* the last cap bytes: cut once twice that wait */
		mi_buf_add(&r->output, data, n);
		if (r->output.len > 2 * cap)
			keep_last(r, cap);
		return;
	}
	size_t room = r->output.len < cap ? cap - r->output.len : 0;
	size_t take = n < room ? n : room;
	mi_buf_add(&r->output, data, take);
	r->dropped += n - take;
}

/* Every run's processes carry MCPIDX_RUN_<random id>=1 in their
 * environment, which a process that leaves the group (setsid, a daemon's
 * double fork) takes along: a cancelled or timed-out run's are found by
 * it, as their group is not.  A run inside a run keeps the outer one's
 * entry beside its own. */

/* env (or ours) with the run's entry put first; malloc'd, the strings
 * borrowed but the first. */
static char **run_env(char *const *env, const char *id)
{
	char *const *e = env ? env : environ;
	size_t n = 0;
	while (e[n])
		n++;
	char **out = mi_xmalloc((n + 2) * sizeof(*out));
	mi_buf v = {0};
	mi_buf_addf(&v, "MCPIDX_RUN_%s=1", id);
	out[0] = (char *)mi_buf_str(&v); /* freed by run_env_free */
	memcpy(out + 1, e, n * sizeof(*out));
	out[n + 1] = NULL;
	return out;
}

static void run_env_free(char **env)
{
	free(env[0]);
	free(env);
}

/* Whether /proc/PID/environ (its first MiB) holds the entry want. */
static bool environ_has(const char *pid, const char *want, size_t wl)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%s/environ", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	mi_buf b = {0};
	ssize_t got;
	do {
		mi_buf_grow(&b, 65536);
		got = read(fd, b.buf + b.len, 65536);
		if (got > 0)
			b.len += (size_t)got;
	} while (got > 0 && b.len < (1u << 20));
	close(fd);
	bool found = false;
	for (size_t at = 0; at < b.len && !found;) {
		const char *nul = memchr(b.buf + at, 0, b.len - at);
		size_t el = nul ? (size_t)(nul - (b.buf + at)) : b.len - at;
		found = el == wl && !memcmp(b.buf + at, want, wl);
		at += el + 1;
	}
	mi_buf_release(&b);
	return found;
}

/* Sends sig to every process of ours carrying the run's entry; how many. */
static int kill_marked(const char *entry, int sig)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;
	size_t el = strlen(entry);
	pid_t self = getpid();
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		const char *c = de->d_name;
		if (*c < '1' || *c > '9' || strspn(c, "0123456789") != strlen(c))
			continue;
		pid_t p = (pid_t)atol(c);
		if (p == self || !environ_has(c, entry, el))
			continue;
		if (kill(p, sig) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* The exit status as a number: the code, 128 + signal, or -1. */
static int exit_code_of(int wstatus)
{
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) :
	       WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : -1;
}

int mi_child_run(const mi_child_opts *o, mi_child_result *r)
{
	int pfd[2], ffd[2] = {-1, -1};
	struct pollfd pf[2];
	int64_t t0 = now_us(), kill_at = 0, deadline, stop_at = 0, exited_at = 0;
	size_t cap = o->cap ? o->cap : MI_CHILD_OUTPUT_CAP;
	line_state ls = {.fn = o->on_line, .ctx = o->ctx};
	line_state ps = {.fn = o->on_fd3, .ctx = o->ctx, .progress = true};
	char buf[8192];
	pid_t pid;
	int wstatus = 0;
	bool reaped = false;

	char id[33];
	mi_random_hex(id, 16);
	char **env = run_env(o->env, id);
	const char *mark = env[0];

	memset(r, 0, sizeof *r);
	r->exit_code = -1;
	mi_buf_adds(&r->output, "");
	deadline = o->timeout_s > 0 ? t0 + (int64_t)o->timeout_s * 1000000 : 0;
	if (mi_pipe_cloexec(pfd) != 0) {
		run_env_free(env);
		return r->err = errno;
	}
	if (o->on_fd3 && mi_pipe_cloexec(ffd) != 0) {
		r->err = errno;
		close(pfd[0]);
		close(pfd[1]);
		run_env_free(env);
		return r->err;
	}
	pid = fork();
	if (pid < 0) {
		r->err = errno;
		close(pfd[0]);
		close(pfd[1]);
		if (o->on_fd3) {
			close(ffd[0]);
			close(ffd[1]);
		}
		run_env_free(env);
		return r->err;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		if (o->on_fd3)
			dup2(ffd[1], 3);
		if (o->cwd && chdir(o->cwd) != 0) {
			dprintf(2, "cannot enter %s: %s\n", o->cwd, strerror(errno));
			_exit(127);
		}
		environ = env;
		execvp(o->argv[0], o->argv);
		dprintf(2, "cannot run %s: %s\n", o->argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	if (o->on_fd3)
		close(ffd[1]);
	pf[0].fd = pfd[0];
	pf[0].events = POLLIN;
	pf[1].fd = ffd[0];
	pf[1].events = POLLIN;
	/* Until the command exits and both pipes end, or a deadline passes: a
	 * process that left the group (setsid) may hold them open for ever,
	 * out of reach of kill, and the command may close them and go on. */
	while (pf[0].fd >= 0 || pf[1].fd >= 0 || !reaped) {
		bool piped = pf[0].fd >= 0 || pf[1].fd >= 0;
		int n = poll(pf, 2, piped ? 100 : 10);
		int64_t now = now_us();
		bool cancel = (o->cancel && atomic_load(o->cancel)) || (o->stop && o->stop(o->ctx));
		if (n < 0 && errno != EINTR)
			break;
		if (!reaped && waitpid(pid, &wstatus, WNOHANG) == pid) {
			reaped = true;
			exited_at = now;
			if (!piped)
				break;
		}
		if (!kill_at && (cancel || (deadline && now > deadline))) {
			if (cancel)
				r->cancelled = true;
			else
				r->timed_out = true;
			kill(-pid, SIGTERM);
			if (!reaped) /* once reaped, pid may be another process's */
				kill(pid, SIGTERM);
			kill_marked(mark, SIGTERM); /* those that left the group */
			kill_at = now + MI_KILL_GRACE_US;
		}
		if (kill_at > 0 && now > kill_at) {
			kill(-pid, SIGKILL);
			if (!reaped)
				kill(pid, SIGKILL);
			/* a fork between the scans is caught by the next */
			for (int k = 0; k < 8 && kill_marked(mark, SIGKILL); k++)
				;
			kill_at = -1;
			stop_at = now + MI_DRAIN_US;
		}
		/* the command is gone: what still holds its output is not it */
		if ((stop_at && now > stop_at) || (exited_at && now - exited_at > MI_EXIT_GRACE_US))
			break;
		for (int i = 0; i < 2 && n > 0; i++) {
			ssize_t got;
			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(pf[i].fd, buf, sizeof buf);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
				continue;
			}
			if (i == 1) {
				feed_lines(&ps, buf, (size_t)got);
				continue;
			}
			keep(r, cap, o->tail, buf, (size_t)got);
			if (o->on_line)
				feed_lines(&ls, buf, (size_t)got);
		}
	}
	if (pf[0].fd >= 0)
		close(pf[0].fd);
	if (pf[1].fd >= 0)
		close(pf[1].fd);
	if (o->on_line && ls.line.len)
		line_end(&ls);
	if (o->on_fd3)
		line_end(&ps);
	mi_buf_release(&ls.line);
	mi_buf_release(&ps.line);
	if (!reaped) {
		/* the pipes ended or a deadline passed with the command still
		 * there: after SIGKILL it goes at once */
		if (stop_at)
			kill(pid, SIGKILL);
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
	}
	if (o->tail)
		keep_last(r, cap);
	r->exit_code = exit_code_of(wstatus);
	r->seconds = (double)(now_us() - t0) / 1e6;
	run_env_free(env);
	return 0;
}

void mi_child_result_release(mi_child_result *r)
{
	mi_buf_release(&r->output);
}
