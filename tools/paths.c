/*
 * paths.c - where the index is, and how we were started.
 */
#include "tools.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *mi_prog = "mcpidx";

bool mi_arg_uint(const char *cmd, const char *opt, const char *v, unsigned long long min,
		 unsigned long long max, unsigned long long *out)
{
	char *end;
	/* strtoull alone takes "-1" (as 2^64-1), " 7", "" and "1e3" (as 1) */
	bool ok = *v >= '0' && *v <= '9';
	errno = 0;
	unsigned long long n = ok ? strtoull(v, &end, 10) : 0;
	if (!ok || *end || errno || n < min || n > max) {
		fprintf(stderr, "mcpidx %s: %s needs a whole number from %llu to %llu, not '%s'\n",
			cmd, opt, min, max, v);
		return false;
	}
	*out = n;
	return true;
}

char *mi_resolve_index(const char *arg)
{
	struct stat sb;
	char buf[PATH_MAX];
	if (!arg)
		arg = ".";
	if (stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		snprintf(buf, sizeof(buf), "%s/data.mdb", arg);
		if (access(buf, F_OK) != 0) {
			snprintf(buf, sizeof(buf), "%s/.mcpidx", arg);
			if (stat(buf, &sb) == 0 && S_ISDIR(sb.st_mode))
				return mi_xstrdup(buf);
		}
	}
	return mi_xstrdup(arg);
}

int mi_index_link_check(const char *index, mi_buf *err)
{
	struct stat sb;
	size_t n = strlen(index);
	while (n > 1 && index[n - 1] == '/')
		n--;
	if (n < 7 || memcmp(index + n - 7, ".mcpidx", 7) || (n > 7 && index[n - 8] != '/'))
		return 0;
	char *p = mi_xstrndup(index, n);
	int rc = 0;
	if (lstat(p, &sb) == 0 && S_ISLNK(sb.st_mode)) {
		mi_buf_addf(err, "index at %s is a symbolic link: mcpidx does not open an index "
			    "through a link in a repository, which may have come with it (its lock "
			    "file would be written wherever it points). Remove the link, or give the "
			    "index's real folder: mcpidx serve DIR", p);
		rc = MI_ERR_SYMLINK;
	}
	free(p);
	return rc;
}
