/*
 * paths.c - where the index is, and how we were started.
 */
#include "tools.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *mi_prog = "mcpidx";

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

