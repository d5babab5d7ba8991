/*
 * make.c - Makefiles (GNU make, Kbuild), read by a scanner of our own (the
 * npm grammar cannot read `obj-$(CONFIG_X) += a.o`, the commonest line of
 * a kernel Makefile): variables (the first assignment of each name), rule
 * targets with their recipe as the span, define ... endef macros,
 * include as an import, prerequisites as value references,
 * $(call name,...) as calls and CONFIG_X as a reference to the Kconfig
 * symbol X.
 */
#include "lang_int.h"

#include <string.h>

/* Byte after a $(...) or ${...} starting at i (src[i] == '$'). */
static uint32_t mk_var_end(const char *src, uint32_t i, uint32_t e)
{
	if (i + 1 >= e || (src[i + 1] != '(' && src[i + 1] != '{'))
		return i + 2 <= e ? i + 2 : e;
	int depth = 0;
	for (uint32_t j = i + 1; j < e; j++) {
		if (src[j] == '(' || src[j] == '{')
			depth++;
		else if ((src[j] == ')' || src[j] == '}') && --depth == 0)
			return j + 1;
	}
	return e;
}

static bool mk_is(const char *src, uint32_t a, uint32_t e, const char *w)
{
	size_t n = strlen(w);
	return e - a >= n && !memcmp(src + a, w, n) &&
	       (a + n == e || src[a + n] == ' ' || src[a + n] == '\t');
}

/* $(call name,...) in src[a, e) as calls from caller. */
static void mk_calls(mi_scan *s, uint32_t a, uint32_t e, int caller)
{
	for (const char *p = s->src + a; (p = memmem(p, e - (uint32_t)(p - s->src), "$(call ", 7));) {
		uint32_t q = (uint32_t)(p - s->src) + 7, z = q;
		while (z < e && s->src[z] == ' ')
			z++;
		q = z;
		while (z < e && s->src[z] != ',' && s->src[z] != ')' && s->src[z] != ' ')
			z++;
		if (z > q)
			mi_scan_ref(s, MI_REF_CALL, q, s->src + q, z - q, caller);
		p = s->src + z;
	}
}

/* Kconfig symbols a line names, CONFIG_X in $(CONFIG_X), ifdef CONFIG_X or
 * obj-$(CONFIG_X): value references to X (Kconfig's name for it), up to a
 * comment. */
static void mk_configs(mi_scan *s, uint32_t a, uint32_t e)
{
	const char *src = s->src;
	for (uint32_t i = a; i + 7 < e; i++) {
		if (src[i] == '#' && (i == a || src[i - 1] != '\\'))
			return;
		if (memcmp(src + i, "CONFIG_", 7) ||
		    (i > a && (src[i - 1] == '_' || (src[i - 1] >= 'A' && src[i - 1] <= 'Z') ||
			       (src[i - 1] >= 'a' && src[i - 1] <= 'z') ||
			       (src[i - 1] >= '0' && src[i - 1] <= '9'))))
			continue;
		uint32_t q = i + 7, z = q;
		while (z < e && (src[z] == '_' || (src[z] >= 'A' && src[z] <= 'Z') ||
				 (src[z] >= 'a' && src[z] <= 'z') || (src[z] >= '0' && src[z] <= '9')))
			z++;
		if (z > q)
			mi_scan_ref(s, MI_REF_VALUE, q, src + q, z - q, -1);
		i = z;
	}
}

static int mk_scan(const char *src, size_t len, mi_parsed *out)
{
	mi_scan s;
	mi_scan_init(&s, src, len, out);
	int rule = -1;
	for (size_t ln = 0; ln < s.nlines; ln++) {
		uint32_t a = s.lines[ln], e = mi_scan_eol(&s, a);
		/* a logical line goes on after a trailing backslash */
		size_t last = ln;
		uint32_t end = e;
		while (end > a && src[end - 1] == '\\' && last + 1 < s.nlines)
			end = mi_scan_eol(&s, s.lines[++last]);
		if (a < e && src[a] == '\t') {
			/* a recipe line of the rule above */
			if (rule >= 0) {
				out->syms[rule].end_byte = end;
				out->syms[rule].end_line = (uint32_t)last + 1;
				mk_calls(&s, a, end, rule);
			}
			ln = last;
			continue;
		}
		uint32_t b = a;
		while (b < e && (src[b] == ' ' || src[b] == '\t'))
			b++;
		if (b >= e || src[b] == '#') {
			if (b >= e)
				rule = -1;
			ln = last;
			continue;
		}
		rule = -1;
		mk_configs(&s, b, end);
		if (mk_is(src, b, e, "include") || mk_is(src, b, e, "-include") ||
		    mk_is(src, b, e, "sinclude")) {
			uint32_t i = b;
			while (i < end && src[i] != ' ' && src[i] != '\t')
				i++;
			while (i < end) {
				while (i < end && (src[i] == ' ' || src[i] == '\t' || src[i] == '\\' || src[i] == '\n'))
					i++;
				uint32_t z = i;
				while (z < end && src[z] != ' ' && src[z] != '\t' && src[z] != '\n') {
					if (src[z] == '$')
						z = mk_var_end(src, z, end);
					else
						z++;
				}
				if (z > i)
					mi_scan_ref(&s, MI_REF_IMPORT, i, src + i, z - i, -1);
				i = z;
			}
			ln = last;
			continue;
		}
		if (mk_is(src, b, e, "define")) {
			uint32_t q = b + 6;
			while (q < e && src[q] == ' ')
				q++;
			uint32_t z = q;
			while (z < e && src[z] != ' ' && src[z] != '\t' && src[z] != '=' && src[z] != '\r')
				z++;
			size_t l2 = ln;
			uint32_t stop = e;
			while (++l2 < s.nlines) {
				uint32_t a2 = s.lines[l2], e2 = mi_scan_eol(&s, a2), b2 = a2;
				while (b2 < e2 && (src[b2] == ' ' || src[b2] == '\t'))
					b2++;
				stop = e2;
				if (mk_is(src, b2, e2, "endef"))
					break;
			}
			if (z > q) {
				int m = mi_scan_sym(&s, MI_KIND_MACRO, b, stop, src + q, z - q, b, e, -1);
				mk_calls(&s, e, stop, m);
			}
			ln = l2;
			continue;
		}
		/* NAME op= value, or targets: prerequisites */
		uint32_t i = b, name_end = 0;
		bool assign = false, colon = false;
		if (mk_is(src, b, e, "export") || mk_is(src, b, e, "override") ||
		    mk_is(src, b, e, "unexport") || mk_is(src, b, e, "private")) {
			while (i < e && src[i] != ' ' && src[i] != '\t')
				i++;
			while (i < e && (src[i] == ' ' || src[i] == '\t'))
				i++;
			b = i;
		}
		for (; i < e; i++) {
			char ch = src[i];
			if (ch == '$') {
				i = mk_var_end(src, i, e) - 1;
				continue;
			}
			if (ch == '=') {
				assign = true;
				name_end = i;
				break;
			}
			if (ch == ':') {
				if (i + 1 < e && src[i + 1] == '=') {
					assign = true;
					name_end = i;
				} else if (i + 2 < e && src[i + 1] == ':' && src[i + 2] == '=') {
					assign = true;
					name_end = i;
				} else {
					colon = true;
					name_end = i;
				}
				break;
			}
		}
		if (assign) {
			while (name_end > b && (src[name_end - 1] == '+' || src[name_end - 1] == '?' ||
						src[name_end - 1] == '!' || src[name_end - 1] == ' ' ||
						src[name_end - 1] == '\t'))
				name_end--;
			bool seen = false;
			for (size_t k = 0; k < out->nsyms && !seen; k++)
				seen = out->syms[k].kind == MI_KIND_VARIABLE &&
				       strlen(out->syms[k].name) == name_end - b &&
				       !memcmp(out->syms[k].name, src + b, name_end - b);
			if (name_end > b && !seen) {
				uint32_t sig_end = end - b > 120 ? mi_scan_eol(&s, b) : end;
				mi_scan_sym(&s, MI_KIND_VARIABLE, b, end, src + b, name_end - b, b, sig_end, -1);
			}
			mk_calls(&s, name_end, end, -1);
		} else if (colon) {
			/* each target; prerequisites after the colon */
			int first = -1;
			for (uint32_t t = b; t < name_end;) {
				while (t < name_end && (src[t] == ' ' || src[t] == '\t'))
					t++;
				uint32_t z = t;
				while (z < name_end && src[z] != ' ' && src[z] != '\t') {
					if (src[z] == '$')
						z = mk_var_end(src, z, name_end);
					else
						z++;
				}
				if (z > t && !(src[t] == '.' && z - t > 1 && src[t + 1] >= 'A' && src[t + 1] <= 'Z')) {
					int r = mi_scan_sym(&s, MI_KIND_FUNCTION, b, end, src + t, z - t, b, end, -1);
					if (first < 0)
						first = r;
					out->syms[r].body_byte = end < len ? end + 1 : end;
					out->syms[r].body_line = (uint32_t)last + 2;
				}
				t = z;
			}
			rule = first;
			for (uint32_t p = name_end + 1; p < end;) {
				while (p < end && (src[p] == ' ' || src[p] == '\t' || src[p] == '|' ||
						   src[p] == '\\' || src[p] == '\n'))
					p++;
				if (p < end && src[p] == ';')
					break;
				uint32_t z = p;
				while (z < end && src[z] != ' ' && src[z] != '\t' && src[z] != '\n' && src[z] != ';') {
					if (src[z] == '$')
						z = mk_var_end(src, z, end);
					else
						z++;
				}
				if (z > p && src[p] != '$')
					mi_scan_ref(&s, MI_REF_VALUE, p, src + p, z - p, first);
				p = z;
			}
		}
		ln = last;
	}
	/* a rule with no recipe has no body */
	for (size_t k = 0; k < out->nsyms; k++)
		if (out->syms[k].kind == MI_KIND_FUNCTION && out->syms[k].body_byte >= out->syms[k].end_byte) {
			out->syms[k].body_byte = 0;
			out->syms[k].body_line = 0;
		}
	mi_scan_release(&s);
	return 0;
}

const mi_lang_row mi_lang_make = {
	.id = MI_LANG_MAKE,
	.name = "make",
	.exts = " .mk .mak .make ",
	.filenames = " Makefile makefile GNUmakefile Kbuild Makefile.* Kbuild.* ",
	.scan = mk_scan,
};
