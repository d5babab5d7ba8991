/*
 * cmake.c - CMake, read by a scanner of our own: function() and macro()
 * definitions spanning to their end command, targets (add_library,
 * add_executable, add_custom_target) as modules, top-level set() and
 * option() variables, include/add_subdirectory/find_package as imports,
 * and every other command invocation as a call.
 */
#include "lang_int.h"

#include <ctype.h>
#include <string.h>

static bool cm_word(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || ch == '-' || ch == '.' || ch == '$' ||
	       ch == '{' || ch == '}' || ch == '/';
}

/* First argument of the command whose '(' is at p: [*a, *z). */
static void cm_arg(const char *src, uint32_t p, uint32_t e, uint32_t *a, uint32_t *z)
{
	uint32_t i = p + 1;
	while (i < e && isspace((unsigned char)src[i]))
		i++;
	if (i < e && src[i] == '"') {
		*a = i + 1;
		for (i++; i < e && src[i] != '"'; i++)
			;
		*z = i;
		return;
	}
	*a = i;
	while (i < e && cm_word(src[i]))
		i++;
	*z = i;
}

/* End of the command whose '(' is at p: after its matching ')'. */
static uint32_t cm_close(const char *src, uint32_t p, uint32_t e)
{
	int depth = 0;
	for (uint32_t i = p; i < e; i++) {
		if (src[i] == '"') {
			for (i++; i < e && src[i] != '"'; i++)
				if (src[i] == '\\')
					i++;
		} else if (src[i] == '#' ) {
			while (i < e && src[i] != '\n')
				i++;
		} else if (src[i] == '(') {
			depth++;
		} else if (src[i] == ')' && --depth == 0) {
			return i + 1;
		}
	}
	return e;
}

static bool cm_is(const char *src, uint32_t a, uint32_t z, const char *w)
{
	return strlen(w) == z - a && !strncasecmp(src + a, w, z - a);
}

static int cm_scan(const char *src, size_t len, mi_parsed *out)
{
	mi_scan s;
	mi_scan_init(&s, src, len, out);
	uint32_t e = (uint32_t)len;
	int fn = -1;       /* the function or macro being defined */
	int depth = 0;     /* if/foreach/while nesting: set() inside is not top level */
	for (uint32_t i = 0; i < e;) {
		char ch = src[i];
		if (ch == '#') {
			if (i + 1 < e && src[i + 1] == '[') { /* #[[ bracket comment ]] */
				const char *q = memmem(src + i, e - i, "]]", 2);
				i = q ? (uint32_t)(q - src) + 2 : e;
			} else {
				while (i < e && src[i] != '\n')
					i++;
			}
			continue;
		}
		if (!(isalpha((unsigned char)ch) || ch == '_')) {
			i++;
			continue;
		}
		uint32_t a = i;
		while (i < e && (isalnum((unsigned char)src[i]) || src[i] == '_'))
			i++;
		uint32_t z = i, p = i;
		while (p < e && (src[p] == ' ' || src[p] == '\t'))
			p++;
		if (p >= e || src[p] != '(')
			continue;
		uint32_t end = cm_close(src, p, e);
		uint32_t xa, xz;
		cm_arg(src, p, end, &xa, &xz);
		if (cm_is(src, a, z, "function") || cm_is(src, a, z, "macro")) {
			if (xz > xa)
				fn = mi_scan_sym(&s, src[a] == 'f' || src[a] == 'F' ? MI_KIND_FUNCTION : MI_KIND_MACRO,
						 a, end, src + xa, xz - xa, a, end, -1);
			if (fn >= 0) {
				out->syms[fn].body_byte = end;
				out->syms[fn].body_line = mi_scan_line(&s, end);
			}
		} else if (cm_is(src, a, z, "endfunction") || cm_is(src, a, z, "endmacro")) {
			if (fn >= 0) {
				out->syms[fn].end_byte = end;
				out->syms[fn].end_line = mi_scan_line(&s, end - 1);
			}
			fn = -1;
		} else if (cm_is(src, a, z, "add_library") || cm_is(src, a, z, "add_executable") ||
			   cm_is(src, a, z, "add_custom_target")) {
			if (xz > xa)
				mi_scan_sym(&s, MI_KIND_MODULE, a, end, src + xa, xz - xa, a, end, fn);
		} else if ((cm_is(src, a, z, "set") || cm_is(src, a, z, "option")) && fn < 0 && !depth) {
			bool seen = false;
			for (size_t k = 0; k < out->nsyms && !seen; k++)
				seen = out->syms[k].kind == MI_KIND_VARIABLE &&
				       strlen(out->syms[k].name) == xz - xa &&
				       !memcmp(out->syms[k].name, src + xa, xz - xa);
			if (xz > xa && !seen)
				mi_scan_sym(&s, MI_KIND_VARIABLE, a, end, src + xa, xz - xa, a,
					    end - a > 120 ? mi_scan_eol(&s, a) : end, -1);
		} else if (cm_is(src, a, z, "include") || cm_is(src, a, z, "add_subdirectory") ||
			   cm_is(src, a, z, "find_package")) {
			if (xz > xa)
				mi_scan_ref(&s, MI_REF_IMPORT, xa, src + xa, xz - xa, fn);
		} else {
			if (cm_is(src, a, z, "if") || cm_is(src, a, z, "foreach") || cm_is(src, a, z, "while"))
				depth++;
			else if ((cm_is(src, a, z, "endif") || cm_is(src, a, z, "endforeach") ||
				  cm_is(src, a, z, "endwhile")) && depth > 0)
				depth--;
			else if (!cm_is(src, a, z, "else") && !cm_is(src, a, z, "elseif"))
				mi_scan_ref(&s, MI_REF_CALL, a, src + a, z - a, fn);
		}
		i = end > i ? end : i + 1;
	}
	mi_scan_release(&s);
	return 0;
}

const mi_lang_row mi_lang_cmake = {
	.id = MI_LANG_CMAKE,
	.name = "cmake",
	.exts = " .cmake ",
	.filenames = " CMakeLists.txt ",
	.scan = cm_scan,
};
