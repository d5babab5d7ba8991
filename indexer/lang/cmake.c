/*
 * cmake.c - CMake (CMakeLists.txt, *.cmake), read by a scanner of our own:
 * function() and macro() blocks are functions; add_library,
 * add_executable and add_custom_target define targets (classes: they carry
 * properties); project() is a module; set() and option() give variables
 * (an option's description is its doc).  include, add_subdirectory and
 * find_package are imports, target_* commands refer to their target, and
 * every other command is a call of it.
 */
#include "lang_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { CM_CALL, CM_FUNC, CM_ENDFUNC, CM_TARGET, CM_PROJECT, CM_VAR, CM_OPTION, CM_IMPORT,
       CM_TARGET_REF, CM_FLOW };

static const struct cm_cmd {
	const char *name;   /* lower case */
	uint8_t role;       /* CM_* */
} cm_cmds[] = {
	{ "function", CM_FUNC }, { "macro", CM_FUNC }, { "endfunction", CM_ENDFUNC },
	{ "endmacro", CM_ENDFUNC }, { "add_library", CM_TARGET }, { "add_executable", CM_TARGET },
	{ "add_custom_target", CM_TARGET }, { "project", CM_PROJECT }, { "set", CM_VAR },
	{ "option", CM_OPTION }, { "include", CM_IMPORT }, { "add_subdirectory", CM_IMPORT },
	{ "find_package", CM_IMPORT }, { "if", CM_FLOW }, { "elseif", CM_FLOW },
	{ "else", CM_FLOW }, { "endif", CM_FLOW }, { "foreach", CM_FLOW },
	{ "endforeach", CM_FLOW }, { "while", CM_FLOW }, { "endwhile", CM_FLOW },
	{ "return", CM_FLOW }, { "break", CM_FLOW }, { "continue", CM_FLOW },
	{ "block", CM_FLOW }, { "endblock", CM_FLOW },
};

typedef struct cm_arg {
	uint32_t a, b;      /* bounds, quotes stripped */
} cm_arg;

/* Length of a bracket opener [=*[ at s, or 0. */
static size_t cm_bracket(const char *s, size_t n, size_t *eq)
{
	size_t i = 1;
	if (!n || s[0] != '[')
		return 0;
	while (i < n && s[i] == '=')
		i++;
	if (i < n && s[i] == '[') {
		*eq = i - 1;
		return i + 1;
	}
	return 0;
}

/* Skips a bracket argument or comment body from s[i] (just after its
 * opener) to after its closer; returns the new index. */
static size_t cm_skip_bracket(const char *s, size_t len, size_t i, size_t eq)
{
	for (; i < len; i++) {
		if (s[i] != ']')
			continue;
		size_t k = i + 1, e = 0;
		while (k < len && s[k] == '=')
			k++, e++;
		if (k < len && s[k] == ']' && e == eq)
			return k + 1;
	}
	return len;
}

static void cm_ref(mi_parsed *p, int kind, const char *s, size_t n, uint32_t line, uint32_t lb)
{
	if (!n || n > 200 || memchr(s, '$', n))
		return;
	mi_ref *r = mi_parsed_add_ref(p);
	r->callee = mi_parsed_strndup(p, s, n);
	r->line = line;
	r->line_byte = lb;
	r->kind = (uint8_t)kind;
}

static int cmake_scan(const char *src, size_t len, mi_parsed *out)
{
	mi_scan ls;
	mi_scan_init(&ls, src, len, out);
	long *open = NULL;  /* open function/macro symbols */
	size_t nopen = 0, capopen = 0;
	cm_arg args[8];
	mi_buf doc = {0};
	uint32_t doc_line = 0;
	size_t i = 0;
	while (i < len) {
		char c = src[i];
		if (isspace((unsigned char)c)) {
			i++;
			continue;
		}
		if (c == '#') {
			size_t eq, bl = cm_bracket(src + i + 1, len - i - 1, &eq);
			if (bl) {
				i = cm_skip_bracket(src, len, i + 1 + bl, eq);
				continue;
			}
			uint32_t ln = mi_scan_line(&ls, (uint32_t)i);
			if (doc_line + 1 != ln)
				mi_buf_reset(&doc);
			size_t a = i + 1, e = a;
			while (e < len && src[e] != '\n')
				e++;
			while (a < e && (src[a] == '#' || src[a] == ' '))
				a++;
			mi_buf_add(&doc, src + a, e - a);
			mi_buf_addc(&doc, '\n');
			doc_line = ln;
			i = e;
			continue;
		}
		/* a command: identifier ( args ) */
		size_t a = i;
		while (i < len && (isalnum((unsigned char)src[i]) || src[i] == '_'))
			i++;
		size_t nl = i - a;
		while (i < len && (src[i] == ' ' || src[i] == '\t'))
			i++;
		if (!nl || i >= len || src[i] != '(') {
			while (i < len && src[i] != '\n')
				i++;
			continue;
		}
		uint32_t start = (uint32_t)a, line = mi_scan_line(&ls, start);
		bool has_doc = doc.len && doc_line + 1 == line;
		char name[64];
		size_t k = nl < sizeof(name) - 1 ? nl : sizeof(name) - 1;
		for (size_t x = 0; x < k; x++)
			name[x] = (char)tolower((unsigned char)src[a + x]);
		name[k] = 0;
		/* the arguments, up to eight kept */
		int nargs = 0, depth = 0;
		i++;
		while (i < len) {
			char ch = src[i];
			if (isspace((unsigned char)ch)) {
				i++;
			} else if (ch == '#') {
				size_t eq, bl = cm_bracket(src + i + 1, len - i - 1, &eq);
				if (bl)
					i = cm_skip_bracket(src, len, i + 1 + bl, eq);
				else
					while (i < len && src[i] != '\n')
						i++;
			} else if (ch == '(') {
				depth++;
				i++;
			} else if (ch == ')') {
				i++;
				if (depth-- == 0)
					break;
			} else if (ch == '"') {
				size_t x = i + 1;
				while (x < len && src[x] != '"') {
					if (src[x] == '\\')
						x++;
					x++;
				}
				if (nargs < 8)
					args[nargs++] = (cm_arg){ (uint32_t)i + 1, (uint32_t)(x < len ? x : len) };
				i = x + 1;
			} else {
				size_t eq, bl = cm_bracket(src + i, len - i, &eq);
				if (bl) {
					size_t x = cm_skip_bracket(src, len, i + bl, eq);
					if (nargs < 8)
						args[nargs++] = (cm_arg){ (uint32_t)(i + bl), (uint32_t)(x - bl) };
					i = x;
					continue;
				}
				size_t x = i;
				while (x < len && !isspace((unsigned char)src[x]) && src[x] != '(' &&
				       src[x] != ')' && src[x] != '"' && src[x] != '#')
					x++;
				if (nargs < 8)
					args[nargs++] = (cm_arg){ (uint32_t)i, (uint32_t)x };
				i = x;
			}
		}
		uint32_t end = (uint32_t)(i > len ? len : i);
		int role = CM_CALL;
		for (size_t r = 0; r < sizeof(cm_cmds) / sizeof(cm_cmds[0]); r++)
			if (!strcmp(cm_cmds[r].name, name))
				role = cm_cmds[r].role;
		uint32_t lb = ls.lines[line - 1];
		mi_line ln = { src + start, start, end, end, line };
		long sym = -1;
		const cm_arg *a0 = nargs ? &args[0] : NULL;
		switch (role) {
		case CM_FUNC: case CM_TARGET: case CM_PROJECT: case CM_VAR: case CM_OPTION: {
			if (!a0 || a0->b <= a0->a || memchr(src + a0->a, '$', a0->b - a0->a))
				break;
			int kind = role == CM_FUNC ? MI_KIND_FUNCTION : role == CM_TARGET ? MI_KIND_CLASS :
				   role == CM_PROJECT ? MI_KIND_MODULE : MI_KIND_VARIABLE;
			sym = (long)mi_line_sym(out, kind, src + a0->a, a0->b - a0->a, src + start,
						end - start, &ln);
			out->syms[sym].end_line = mi_scan_line(&ls, end > start ? end - 1 : end);
			if (role == CM_OPTION && nargs > 1)
				mi_line_doc(out, (size_t)sym, src + args[1].a, args[1].b - args[1].a);
			else if (has_doc)
				mi_line_doc(out, (size_t)sym, doc.buf, doc.len);
			if (role == CM_FUNC) {
				if (nopen == capopen) {
					capopen = capopen ? capopen * 2 : 8;
					open = mi_xrealloc(open, capopen * sizeof(long));
				}
				open[nopen++] = sym;
			}
			break;
		}
		case CM_ENDFUNC:
			if (nopen) {
				mi_symbol *s = &out->syms[open[--nopen]];
				s->end_byte = end;
				s->end_line = mi_scan_line(&ls, end > start ? end - 1 : end);
			}
			break;
		case CM_IMPORT:
			if (a0 && a0->b > a0->a)
				cm_ref(out, MI_REF_IMPORT, src + a0->a, a0->b - a0->a, line, lb);
			break;
		case CM_FLOW:
			break;
		default:
			if (!strncmp(name, "target_", 7) || !strncmp(name, "set_target_", 11)) {
				if (a0 && a0->b > a0->a)
					cm_ref(out, MI_REF_TYPE, src + a0->a, a0->b - a0->a, line, lb);
			}
			cm_ref(out, MI_REF_CALL, src + a, nl, line, lb);
			break;
		}
		(void)sym;
		doc_line = 0;
		mi_buf_reset(&doc);
	}
	mi_line_nest(out, src);
	free(open);
	mi_scan_release(&ls);
	mi_buf_release(&doc);
	return 0;
}

const mi_lang_row mi_lang_cmake = {
	.id = MI_LANG_CMAKE,
	.name = "cmake",
	.exts = " .cmake ",
	.filenames = " CMakeLists.txt ",
	.scan = cmake_scan,
};
