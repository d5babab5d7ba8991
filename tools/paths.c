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

/* Bytes of the UTF-8 sequence at s that may go to a terminal as they are:
 * 0 when it is not valid UTF-8 or is a C1 control (U+0080-U+009F). */
static size_t name_utf8(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (!n || strnlen((const char *)s, n) < n || !mi_utf8_valid((const char *)s, n))
		return 0;
	return s[0] == 0xc2 && s[1] < 0xa0 ? 0 : n;
}

void mi_quote_name(mi_buf *b, const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	bool plain = true;
	for (size_t i = 0; s[i] && plain; i++) {
		if (s[i] < 0x20 || s[i] == 0x7f || s[i] == '"' || s[i] == '\\')
			plain = false;
		else if (s[i] >= 0x80) {
			size_t n = name_utf8(s + i);
			if (!n)
				plain = false;
			else
				i += n - 1;
		}
	}
	if (plain) {
		mi_buf_adds(b, name);
		return;
	}
	mi_buf_addc(b, '"');
	for (size_t i = 0; s[i]; i++) {
		static const char esc[] = "\a\b\t\n\v\f\r", name_of[] = "abtnvfr";
		const char *e = memchr(esc, s[i], sizeof(esc) - 1);
		size_t n;
		if (s[i] == '"' || s[i] == '\\') {
			mi_buf_addc(b, '\\');
			mi_buf_addc(b, (char)s[i]);
		} else if (e) {
			mi_buf_addc(b, '\\');
			mi_buf_addc(b, name_of[e - esc]);
		} else if (s[i] < 0x20 || s[i] == 0x7f) {
			mi_buf_addf(b, "\\%03o", s[i]);
		} else if (s[i] < 0x80) {
			mi_buf_addc(b, (char)s[i]);
		} else if ((n = name_utf8(s + i))) {
			mi_buf_add(b, (const char *)s + i, n);
			i += n - 1;
		} else {
			mi_buf_addf(b, "\\%03o", s[i]);
		}
	}
	mi_buf_addc(b, '"');
}

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
