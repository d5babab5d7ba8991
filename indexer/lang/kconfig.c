/*
 * kconfig.c - Kconfig (the Linux kernel's configuration language), read by
 * a scanner of our own: `config`/`menuconfig` options (signature with
 * their type and prompt, doc the help text), `menu` and `choice` blocks as
 * modules holding them, `source` as an import, and the options named in
 * depends on/select/imply/default/visible if/if as value references.
 */
#include "lang_int.h"

#include <string.h>

static bool kc_word(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

/* true if the line's first word (at a) is w; *after set past it. */
static bool kc_is(const char *src, uint32_t a, uint32_t e, const char *w, uint32_t *after)
{
	size_t n = strlen(w);
	if (e - a < n || memcmp(src + a, w, n) || (a + n < e && kc_word(src[a + n])))
		return false;
	*after = (uint32_t)(a + n);
	return true;
}

/* Option names (all capitals and digits) in src[a, e) as value references. */
static void kc_uses(mi_scan *s, uint32_t a, uint32_t e, int caller)
{
	for (uint32_t i = a; i < e;) {
		if (s->src[i] == '"') {
			i++;
			while (i < e && s->src[i] != '"')
				i++;
			i++;
			continue;
		}
		if (!kc_word(s->src[i])) {
			i++;
			continue;
		}
		uint32_t j = i;
		bool caps = true;
		while (j < e && kc_word(s->src[j])) {
			if (s->src[j] >= 'a' && s->src[j] <= 'z')
				caps = false;
			j++;
		}
		if (caps && j - i > 1 && !(s->src[i] >= '0' && s->src[i] <= '9'))
			mi_scan_ref(s, MI_REF_VALUE, i, s->src + i, j - i, caller);
		i = j;
	}
}

static int kc_scan(const char *src, size_t len, mi_parsed *out)
{
	mi_scan s;
	mi_scan_init(&s, src, len, out);
	int stack[32];           /* open menus and choices */
	int sp = 0;
	int cur = -1;            /* the option whose attributes follow */
	uint32_t help_indent = 0;
	bool in_help = false;
	mi_buf help = {0};
	for (size_t ln = 0; ln < s.nlines; ln++) {
		uint32_t a = s.lines[ln], e = mi_scan_eol(&s, a), b = a;
		uint32_t ind = 0;
		while (b < e && (src[b] == ' ' || src[b] == '\t')) {
			ind += src[b] == '\t' ? 8 - ind % 8 : 1;
			b++;
		}
		bool blank = b >= e || src[b] == '\r';
		if (in_help) {
			if (blank) {
				if (help.len)
					mi_buf_addc(&help, '\n');
				continue;
			}
			if (!help_indent)
				help_indent = ind;
			if (ind >= help_indent && help_indent) {
				uint32_t z = e;
				while (z > b && (src[z - 1] == '\r' || src[z - 1] == ' '))
					z--;
				if (help.len && help.buf[help.len - 1] != '\n')
					mi_buf_addc(&help, '\n');
				mi_buf_add(&help, src + b, z - b);
				out->syms[cur].end_byte = e;
				out->syms[cur].end_line = (uint32_t)ln + 1;
				continue;
			}
			in_help = false;
			mi_scan_doc(&s, cur, help.buf ? help.buf : "", help.len);
			mi_buf_reset(&help);
		}
		if (blank || src[b] == '#')
			continue;
		uint32_t w;
		int parent = sp > 0 ? stack[sp - 1] : -1;
		if (kc_is(src, b, e, "config", &w) || kc_is(src, b, e, "menuconfig", &w)) {
			while (w < e && (src[w] == ' ' || src[w] == '\t'))
				w++;
			uint32_t n = w;
			while (n < e && kc_word(src[n]))
				n++;
			cur = mi_scan_sym(&s, MI_KIND_VARIABLE, a, e, src + w, n - w, b, n, parent);
			if (parent >= 0) {
				out->syms[parent].end_byte = e;
				out->syms[parent].end_line = (uint32_t)ln + 1;
			}
		} else if (kc_is(src, b, e, "menu", &w) || kc_is(src, b, e, "choice", &w)) {
			uint32_t q = w;
			while (q < e && src[q] != '"')
				q++;
			uint32_t z = q < e ? q + 1 : e;
			while (z < e && src[z] != '"')
				z++;
			const char *nm = q < e ? src + q + 1 : "choice";
			size_t nl = q < e ? z - q - 1 : 6;
			int m = mi_scan_sym(&s, MI_KIND_MODULE, a, e, nm, nl, b, e, parent);
			if (sp < 32)
				stack[sp++] = m;
			cur = src[b] == 'c' ? m : -1;
		} else if (kc_is(src, b, e, "endmenu", &w) || kc_is(src, b, e, "endchoice", &w)) {
			if (sp > 0) {
				mi_symbol *m = &out->syms[stack[--sp]];
				m->end_byte = e;
				m->end_line = (uint32_t)ln + 1;
				m->body_byte = mi_scan_eol(&s, m->start_byte);
				m->body_line = m->start_line;
			}
			cur = -1;
		} else if (kc_is(src, b, e, "source", &w) || kc_is(src, b, e, "rsource", &w) ||
			   kc_is(src, b, e, "osource", &w) || kc_is(src, b, e, "orsource", &w)) {
			uint32_t q = w;
			while (q < e && src[q] != '"')
				q++;
			uint32_t z = q < e ? q + 1 : e;
			while (z < e && src[z] != '"')
				z++;
			if (q < e)
				mi_scan_ref(&s, MI_REF_IMPORT, q + 1, src + q + 1, z - q - 1, parent);
			cur = -1;
		} else if (kc_is(src, b, e, "if", &w) || kc_is(src, b, e, "depends", &w) ||
			   kc_is(src, b, e, "select", &w) || kc_is(src, b, e, "imply", &w) ||
			   kc_is(src, b, e, "default", &w) || kc_is(src, b, e, "visible", &w) ||
			   kc_is(src, b, e, "range", &w) || kc_is(src, b, e, "def_bool", &w) ||
			   kc_is(src, b, e, "def_tristate", &w)) {
			kc_uses(&s, w, e, cur >= 0 ? cur : parent);
			if (cur >= 0) {
				out->syms[cur].end_byte = e;
				out->syms[cur].end_line = (uint32_t)ln + 1;
			}
			if (cur >= 0 && (src[b] == 'd' && (b + 4 < e && src[b + 3] == '_'))) {
				/* def_bool y: the type for the signature */
				mi_symbol *y = &out->syms[cur];
				if (!strchr(y->sig, ' ') || !strchr(strchr(y->sig, ' ') + 1, ' ')) {
					mi_buf sg = {0};
					mi_buf_adds(&sg, y->sig);
					mi_buf_addc(&sg, ' ');
					mi_buf_add(&sg, src + b, e - b);
					y->sig = mi_parsed_strndup(out, sg.buf, sg.len);
					mi_buf_release(&sg);
				}
			}
		} else if (cur >= 0 && (kc_is(src, b, e, "help", &w) || kc_is(src, b, e, "---help---", &w))) {
			in_help = true;
			help_indent = 0;
			out->syms[cur].body_byte = a;
			out->syms[cur].body_line = (uint32_t)ln + 1;
			out->syms[cur].end_byte = e;
			out->syms[cur].end_line = (uint32_t)ln + 1;
		} else if (cur >= 0 && ind > 0) {
			/* an attribute: the type and prompt go into the signature */
			mi_symbol *y = &out->syms[cur];
			static const char *const types[] = {"bool", "tristate", "string", "int", "hex", "prompt", NULL};
			for (int t = 0; types[t]; t++)
				if (kc_is(src, b, e, types[t], &w) && y->kind == MI_KIND_VARIABLE &&
				    !strchr(y->sig + 7, ' ')) {
					uint32_t z = e;
					while (z > b && (src[z - 1] == '\r' || src[z - 1] == ' '))
						z--;
					mi_buf sg = {0};
					mi_buf_adds(&sg, y->sig);
					mi_buf_addc(&sg, ' ');
					mi_buf_add(&sg, src + b, z - b);
					y->sig = mi_parsed_strndup(out, sg.buf, sg.len);
					mi_buf_release(&sg);
					break;
				}
			y->end_byte = e;
			y->end_line = (uint32_t)ln + 1;
		} else {
			cur = -1;
		}
	}
	if (in_help && cur >= 0)
		mi_scan_doc(&s, cur, help.buf ? help.buf : "", help.len);
	mi_buf_release(&help);
	mi_scan_release(&s);
	return 0;
}

const mi_lang_row mi_lang_kconfig = {
	.id = MI_LANG_KCONFIG,
	.name = "kconfig",
	.exts = " .kconfig ",
	.filenames = " Kconfig Kconfig.* Config.in ",
	.scan = kc_scan,
};
