/*
 * cdiag.c - the latest compile's diagnostics of one file as the side store
 * keeps them: one line per diagnostic, "S LINE COL TEXT\n".  The writer is
 * mcp/compile_store.c, the readers are the views (query/) and the language server.
 */
#include "format.h"

#include <stdlib.h>
#include <string.h>

void mi_cdiag_add(mi_buf *out, char sev, uint32_t line, uint32_t col, const char *text)
{
	mi_buf_addf(out, "%c %u %u ", sev == 'W' || sev == 'H' ? sev : 'E', line, col);
	for (const char *p = text ? text : ""; *p; p++)
		mi_buf_addc(out, *p == '\n' || *p == '\r' ? ' ' : *p);
	mi_buf_addc(out, '\n');
}

bool mi_cdiag_next(const char **p, const char *end, mi_cdiag *d)
{
	while (*p < end) {
		const char *s = *p, *nl = memchr(s, '\n', (size_t)(end - s)), *e = nl ? nl : end;
		char *q;
		unsigned long ln, col;
		*p = nl ? nl + 1 : end;
		if (e - s < 6 || !strchr("EWH", s[0]) || s[1] != ' ')
			continue; /* not a line of this shape */
		ln = strtoul(s + 2, &q, 10);
		if (*q != ' ' || q >= e)
			continue;
		col = strtoul(q + 1, &q, 10);
		if (*q != ' ' || q >= e)
			continue;
		d->severity = s[0];
		d->line = ln > UINT32_MAX ? 0 : (uint32_t)ln;
		d->col = col > UINT32_MAX ? 0 : (uint32_t)col;
		d->msg = q + 1;
		d->msg_len = (size_t)(e - d->msg);
		return true;
	}
	return false;
}
