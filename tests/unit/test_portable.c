/*
 * test_portable.c - the portability layer of format/util.c: the stable
 * sort, the close-on-exec pipe and the running binary's path.  The
 * sanitized pass builds this with -DMI_POSIX_ONLY, so both the Linux calls
 * and their POSIX fallbacks are checked.
 */
#include "../../format/format.h"
#include "test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct item {
	int key;   /* sort key, with many ties */
	int seq;   /* original position */
} item;

static int cmp_key(const void *a, const void *b, void *ctx)
{
	int *calls = ctx;
	(*calls)++;
	const item *x = a, *y = b;
	return (x->key > y->key) - (x->key < y->key);
}

TEST(sort_is_stable_and_ordered)
{
	for (size_t n = 0; n < 300; n += 7) {
		item *v = malloc((n + 1) * sizeof(*v));
		unsigned r = 12345u + (unsigned)n;
		for (size_t i = 0; i < n; i++) {
			r = r * 1103515245u + 12345u;
			v[i] = (item){(int)((r >> 16) % 9), (int)i};
		}
		int calls = 0;
		mi_sort(v, n, sizeof(*v), cmp_key, &calls);
		for (size_t i = 1; i < n; i++) {
			CHECK(v[i - 1].key <= v[i].key);
			if (v[i - 1].key == v[i].key)
				CHECK(v[i - 1].seq < v[i].seq); /* ties keep their order */
		}
		CHECK(n < 2 || calls > 0); /* the context reached the comparator */
		free(v);
	}
}

TEST(pipe_is_close_on_exec)
{
	int fd[2];
	CHECK_INT(mi_pipe_cloexec(fd), 0);
	CHECK(fcntl(fd[0], F_GETFD) & FD_CLOEXEC);
	CHECK(fcntl(fd[1], F_GETFD) & FD_CLOEXEC);
	CHECK_INT(write(fd[1], "x", 1), 1);
	char c = 0;
	CHECK_INT(read(fd[0], &c, 1), 1);
	CHECK(c == 'x');
	close(fd[0]);
	close(fd[1]);
}

static const char *argv0;  /* as the test runner started us */

TEST(exe_path_names_this_binary)
{
	char *p = mi_exe_path(argv0);
	struct stat a, b;
	CHECK(p[0] == '/');
	CHECK_CONTAINS(p, "test_portable");
	/* The same file as the one argv0 names. */
	CHECK_INT(stat(p, &a), 0);
	CHECK_INT(stat(argv0, &b), 0);
	CHECK(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	free(p);
	/* A name found nowhere comes back as given. */
	p = mi_exe_path("no-such-binary-anywhere");
#if !defined(__linux__) || defined(MI_POSIX_ONLY)
	CHECK_STR(p, "no-such-binary-anywhere");
#endif
	free(p);
}

int main(int argc, char **argv)
{
	argv0 = argc > 0 ? argv[0] : "test_portable";
	RUN(sort_is_stable_and_ordered);
	RUN(pipe_is_close_on_exec);
	RUN(exe_path_names_this_binary);
	return test_done();
}
