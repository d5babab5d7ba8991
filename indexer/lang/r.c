/*
 * r.c - R: names starting with '.' are private (as R's own ls() hides
 * them); roxygen comments (#') above a function are its doc.
 */
#include "lang_int.h"

#include <string.h>

MI_FIX(r)
{
	if (s->name[0] == '.' || (s->name[0] == '"' && s->name[1] == '.'))
		s->vis = MI_VIS_PRIVATE;
	if (s->doc[0] == '\'') {
		/* #' roxygen: drop the quote the comment stripper left */
		mi_buf b = {0};
		for (const char *p = s->doc; *p; p++) {
			if (*p == '\'' && (p == s->doc || p[-1] == '\n')) {
				if (p[1] == ' ')
					p++;
				continue;
			}
			mi_buf_addc(&b, *p);
		}
		s->doc = mi_parsed_strndup(mi_ts_parsed(c), b.buf ? b.buf : "", b.len);
		mi_buf_release(&b);
	}
}

const TSLanguage *tree_sitter_r(void);
extern const char mi_query_src_r[];

const mi_lang_row mi_lang_r = {
	.id = MI_LANG_R,
	.name = "r",
	.exts = " .r .rprofile ",
	.ts = tree_sitter_r,
	.query = mi_query_src_r,
	.fix = mi_fix_r,
};
