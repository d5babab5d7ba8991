/*
 * cmd_hook.c - `mcpidx hook install|uninstall|status`: a git pre-commit hook
 * that updates the index incrementally before each commit, chained with any
 * hook already there, and never the reason a commit fails.
 *
 * Install keeps an existing pre-commit hook as pre-commit.mcpidx-chained and
 * writes ours in its place; ours runs the chained hook first (its verdict
 * stands), then `mcpidx build --quiet` and always exits 0 for its own part.
 * Uninstall puts the chained hook back byte for byte (a rename), or removes
 * ours when there was none.
 */
#include "tools.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOOK_MARK "# mcpidx-hook: installed by 'mcpidx hook install'"
#define CHAINED_SUFFIX ".mcpidx-chained"

static void drain(int fd, mi_buf *b)
{
	char tmp[4096];
	ssize_t n;
	while ((n = read(fd, tmp, sizeof(tmp))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (b)
			mi_buf_add(b, tmp, (size_t)n);
	}
}

int mi_run_capture(char *const argv[], mi_buf *out, mi_buf *errout)
{
	int po[2], pe[2] = {-1, -1}, status = -1;
	if (pipe(po) < 0)
		return -1;
	if (errout && pipe(pe) < 0) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(po[0]);
		close(po[1]);
		if (errout) {
			close(pe[0]);
			close(pe[1]);
		}
		return -1;
	}
	if (pid == 0) {
		dup2(po[1], 1);
		close(po[0]);
		close(po[1]);
		if (errout) {
			dup2(pe[1], 2);
			close(pe[0]);
			close(pe[1]);
		}
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	if (errout) {
		close(pe[1]);
		/* stderr of git-like tools is small: read stdout, then stderr. */
		drain(po[0], out);
		drain(pe[0], errout);
		close(pe[0]);
	} else {
		drain(po[0], out);
	}
	close(po[0]);
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -1;
	status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	if (status == 127)
		errno = ENOENT;
	return status;
}

/* Runs git -C repo ARGS and returns its first output line in out (trimmed). */
static int git_line(const char *repo, const char *a1, const char *a2, const char *a3, mi_buf *out)
{
	char *av[8] = {"git", "-C", (char *)repo, (char *)a1, (char *)a2, (char *)a3, NULL};
	mi_buf e = {0};
	mi_buf_reset(out);
	int rc = mi_run_capture(av, out, &e);
	mi_buf_release(&e);
	if (out->len) {
		char *nl = strchr(out->buf, '\n');
		if (nl) {
			*nl = 0;
			out->len = (size_t)(nl - out->buf);
		}
	}
	return rc;
}

static const char hook_usage[] =
	"usage: mcpidx hook install|uninstall|status [--repo DIR]\n\n"
	"install     writes the git pre-commit hook that runs 'mcpidx build --quiet'\n"
	"            on the repository before each commit (incremental: only changed\n"
	"            files are parsed).  An existing pre-commit hook is kept as\n"
	"            pre-commit" CHAINED_SUFFIX " and runs first; its verdict stands.\n"
	"            A failed index update is reported but never blocks a commit.\n"
	"uninstall   removes the hook and puts back the one that was there before.\n"
	"status      says whether the hook is installed.\n\n"
	"The hooks folder is core.hooksPath when set, else .git/hooks.\n\n"
	"  --repo DIR   the repository (default: the current directory)\n";

/* Where git looks for hooks in repo: fills toplevel and the hooks dir. */
static int hooks_dir(const char *repo, char *top, size_t ntop, char *dir, size_t ndir)
{
	mi_buf b = {0};
	int status = 1;
	int rc = git_line(repo, "rev-parse", "--show-toplevel", NULL, &b);
	if (rc == -1 || (rc == 127 && errno == ENOENT)) {
		fprintf(stderr, "mcpidx hook: cannot run git (%s); install git first\n", strerror(errno));
		goto out;
	}
	if (rc != 0 || !b.len) {
		fprintf(stderr, "mcpidx hook: %s is not inside a git work tree (git rev-parse failed); "
				"run it in a repository or pass --repo DIR\n", repo);
		goto out;
	}
	snprintf(top, ntop, "%s", b.buf);
	if (git_line(repo, "config", "core.hooksPath", NULL, &b) == 0 && b.len) {
		if (b.buf[0] == '/')
			snprintf(dir, ndir, "%s", b.buf);
		else if (b.buf[0] == '~' && b.buf[1] == '/' && getenv("HOME"))
			snprintf(dir, ndir, "%s/%s", getenv("HOME"), b.buf + 2);
		else
			snprintf(dir, ndir, "%s/%s", top, b.buf);
	} else if (git_line(repo, "rev-parse", "--git-common-dir", NULL, &b) == 0 && b.len) {
		if (b.buf[0] == '/')
			snprintf(dir, ndir, "%s/hooks", b.buf);
		else
			snprintf(dir, ndir, "%s/%s/hooks", repo, b.buf);
	} else {
		fprintf(stderr, "mcpidx hook: cannot find the git folder of %s\n", repo);
		goto out;
	}
	status = 0;
out:
	mi_buf_release(&b);
	return status;
}

/* true when the file at path is a hook we wrote. */
static bool is_ours(const char *path)
{
	char *s;
	size_t n;
	if (mi_read_file(path, &s, &n))
		return false;
	bool ours = strstr(s, HOOK_MARK) != NULL;
	free(s);
	return ours;
}

/* Single-quotes s for sh. */
static void add_sh_quoted(mi_buf *b, const char *s)
{
	mi_buf_addc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			mi_buf_adds(b, "'\\''");
		else
			mi_buf_addc(b, *s);
	}
	mi_buf_addc(b, '\'');
}

static void hook_script(mi_buf *b, const char *exe)
{
	mi_buf_adds(b, "#!/bin/sh\n" HOOK_MARK "\n"
		       "# Updates the mcpidx index before each commit.  Remove with: mcpidx hook uninstall\n"
		       "# A hook that was here before runs first, from pre-commit" CHAINED_SUFFIX ".\n"
		       "chained=\"$(dirname \"$0\")/pre-commit" CHAINED_SUFFIX "\"\n"
		       "if [ -x \"$chained\" ]; then\n"
		       "\t\"$chained\" \"$@\" || exit $?\n"
		       "fi\n"
		       "mcpidx=");
	add_sh_quoted(b, exe);
	mi_buf_adds(b, "\n"
		       "[ -x \"$mcpidx\" ] || mcpidx=$(command -v mcpidx 2>/dev/null)\n"
		       "if [ -z \"$mcpidx\" ]; then\n"
		       "\techo \"mcpidx hook: mcpidx not found; index not updated (the commit goes on)\" >&2\n"
		       "\texit 0\n"
		       "fi\n"
		       "top=$(git rev-parse --show-toplevel) || exit 0\n"
		       "if ! out=$(\"$mcpidx\" build --quiet \"$top\" 2>&1); then\n"
		       "\techo \"mcpidx hook: index not updated (the commit goes on): $out\" >&2\n"
		       "fi\n"
		       "exit 0\n");
}

static int write_file(const char *path, const mi_buf *b, mode_t mode)
{
	/* A fresh, randomly named file (mkstemp: O_CREAT|O_EXCL), never a fixed
	 * name a planted link could send elsewhere. */
	char tmp[PATH_MAX + 16];
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return ENAMETOOLONG;
	int fd = mkstemp(tmp);
	if (fd < 0)
		return errno;
	int rc = 0;
	if (write(fd, b->buf, b->len) != (ssize_t)b->len)
		rc = errno ? errno : EIO;
	if (fchmod(fd, mode) < 0 && !rc)
		rc = errno;
	if (close(fd) < 0 && !rc)
		rc = errno;
	if (!rc && rename(tmp, path) < 0)
		rc = errno;
	if (rc)
		unlink(tmp);
	return rc;
}

static int hook_install(const char *hook, const char *chained, const char *top)
{
	struct stat sb;
	mi_buf s = {0};
	int status = 1, rc;
	char *exe = mi_exe_path(mi_prog);
	bool exists = lstat(hook, &sb) == 0, ours = exists && is_ours(hook);
	bool have_chained = lstat(chained, &sb) == 0;

	if (exists && !ours) {
		if (have_chained) {
			fprintf(stderr, "mcpidx hook: both %s and %s exist and neither is ours; move one "
					"away and run install again\n", hook, chained);
			goto out;
		}
		if (rename(hook, chained) < 0) {
			fprintf(stderr, "mcpidx hook: cannot keep the existing hook as %s: %s\n", chained,
				strerror(errno));
			goto out;
		}
	}
	hook_script(&s, exe);
	if ((rc = write_file(hook, &s, 0755))) {
		fprintf(stderr, "mcpidx hook: cannot write %s: %s\n", hook, strerror(rc));
		if (exists && !ours)
			rename(chained, hook);
		goto out;
	}
	if (ours)
		printf("updated the mcpidx pre-commit hook in %s\n", hook);
	else
		printf("installed the mcpidx pre-commit hook in %s%s%s\n", hook,
		       exists ? "; the previous hook runs first from " : "",
		       exists ? chained : "");
	/* The index folder should not be committed. */
	char *av[] = {"git", "-C", (char *)top, "check-ignore", "-q", ".mcpidx/data.mdb", NULL};
	mi_buf ignored_err = {0};
	if (mi_run_capture(av, NULL, &ignored_err) == 1)
		printf("hint: .mcpidx/ is not ignored by git; add it to .gitignore\n");
	mi_buf_release(&ignored_err);
	status = 0;
out:
	mi_buf_release(&s);
	free(exe);
	return status;
}

static int hook_uninstall(const char *hook, const char *chained)
{
	struct stat sb;
	if (lstat(hook, &sb) < 0 || !is_ours(hook)) {
		printf("no mcpidx pre-commit hook in %s; nothing to do\n", hook);
		return 0;
	}
	if (lstat(chained, &sb) == 0) {
		if (rename(chained, hook) < 0) {
			fprintf(stderr, "mcpidx hook: cannot restore %s from %s: %s\n", hook, chained,
				strerror(errno));
			return 1;
		}
		printf("removed the mcpidx pre-commit hook; restored the previous hook %s\n", hook);
		return 0;
	}
	if (unlink(hook) < 0) {
		fprintf(stderr, "mcpidx hook: cannot remove %s: %s\n", hook, strerror(errno));
		return 1;
	}
	printf("removed the mcpidx pre-commit hook %s\n", hook);
	return 0;
}

int mi_cmd_hook(int argc, char **argv)
{
	static const struct option opts[] = {
		{"repo", required_argument, NULL, 'r'}, {"help", no_argument, NULL, 'h'}, {0},
	};
	const char *repo = ".";
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': repo = optarg; break;
		case 'h': fputs(hook_usage, stdout); return 0;
		default: fputs(hook_usage, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "mcpidx hook: give one action: install, uninstall or status\n\n%s",
			hook_usage);
		return 2;
	}
	const char *action = argv[optind];
	if (strcmp(action, "install") && strcmp(action, "uninstall") && strcmp(action, "status")) {
		fprintf(stderr, "mcpidx hook: unknown action '%s' (install, uninstall or status)\n", action);
		return 2;
	}
	struct stat sb;
	if (stat(repo, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "mcpidx hook: %s is not a folder\n", repo);
		return 1;
	}
	char top[PATH_MAX], dir[PATH_MAX], hook[PATH_MAX + 16], chained[PATH_MAX + 48];
	if (hooks_dir(repo, top, sizeof(top), dir, sizeof(dir)))
		return 1;
	snprintf(hook, sizeof(hook), "%s/pre-commit", dir);
	snprintf(chained, sizeof(chained), "%s" CHAINED_SUFFIX, hook);
	if (!strcmp(action, "status")) {
		bool ours = is_ours(hook);
		printf("%s: %s%s\n", hook, ours ? "mcpidx hook installed" : "no mcpidx hook",
		       ours && lstat(chained, &sb) == 0 ? " (chained with the previous hook)" : "");
		return ours ? 0 : 1;
	}
	if (!strcmp(action, "uninstall"))
		return hook_uninstall(hook, chained);
	int rc = mi_make_dirs(dir);
	if (rc) {
		fprintf(stderr, "mcpidx hook: cannot create the hooks folder %s: %s\n", dir, strerror(rc));
		return 1;
	}
	return hook_install(hook, chained, top);
}
