/*
 * view_notes.c - virtual lines that come from outside the source, such as
 * the summaries the host's model wrote about a symbol (mi_view_opts.line_notes):
 * "V* summary: ..." under the symbol, or at the top for the whole file.
 */
#include "view_int.h"

#include <string.h>

#define NOTE_CAP 300 /* bytes of a note in an outline */

void mi_v_put_notes(vctx *c, uint32_t line, int depth, bool full)
{
	for (size_t k = 0; k < c->o->nline_notes; k++) {
		const mi_view_note *n = &c->o->line_notes[k];
		const char *t = str0(n->text);
		size_t len = strlen(t), cap = full ? len : NOTE_CAP;
		bool space = false;
		if (n->line != line || !len)
			continue;
		while (cap < len && ((unsigned char)t[cap] & 0xC0) == 0x80)
			cap--; /* not inside a UTF-8 sequence */
		mi_v_vline(c, depth);
		mi_buf_addf(c->out, "%s: ", str0(n->label));
		for (size_t i = 0; i < len && i < cap; i++) {
			/* One line: runs of whitespace become one space. */
			if (mi_v_space((unsigned char)t[i])) {
				space = true;
				continue;
			}
			if (space && c->out->len && c->out->buf[c->out->len - 1] != ' ')
				mi_buf_addc(c->out, ' ');
			space = false;
			mi_buf_addc(c->out, t[i]);
		}
		if (len > cap)
			mi_buf_adds(c->out, c->ell);
		mi_buf_addc(c->out, '\n');
	}
}
