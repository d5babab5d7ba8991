/*
 * cpp.c - C++: qualified names split into parent and name, member access.
 */
#include "lang_int.h"

#include <stdlib.h>
#include <string.h>

/* Access of a class member: the last access label before it, else the
 * default of its class (class: private, struct/union: public). */
static bool cpp_member_private(mi_ts_ctx *c, TSNode member)
{
	TSNode list = ts_node_parent(member);
	if (mi_ts_type_is(list, "template_declaration")) {
		member = list;
		list = ts_node_parent(list);
	}
	if (!mi_ts_type_is(list, "field_declaration_list"))
		return false;
	for (TSNode p = ts_node_prev_named_sibling(member); !ts_node_is_null(p);
	     p = ts_node_prev_named_sibling(p)) {
		if (!mi_ts_type_is(p, "access_specifier"))
			continue;
		/* The keyword the parser read, not the source's text: Qt's
		 * `signals:` is read as `public:` (cpp_prefilter). */
		TSNode kw = ts_node_child(p, 0);
		return ts_node_is_null(kw) || strcmp(ts_node_type(kw), "public") != 0;
	}
	return mi_ts_type_is(ts_node_parent(list), "class_specifier");
}

/*
 * C++: a qualified definition name (Foo::bar, a::B<T>::~B) is split into the
 * parent (Foo, a.B) and the simple name; a function defined in a class or
 * out of line under a class is a method.  Members are private under a
 * private/protected label (or by default in a class); `static` at file
 * scope is private, on a member it is a class-level member.
 */
MI_FIX(cpp)
{
	TSNode n = *(TSNode *)def_node;
	bool member = mi_ts_type_is(ts_node_parent(n), "field_declaration_list") ||
		(mi_ts_type_is(ts_node_parent(n), "template_declaration") &&
		 mi_ts_type_is(ts_node_parent(ts_node_parent(n)), "field_declaration_list"));
	if (mi_ts_has_child_text(c, n, "storage_class_specifier", "static")) {
		if (member)
			s->flags |= MI_SYMF_STATIC;
		else
			s->vis = MI_VIS_PRIVATE;
	}
	if (member && cpp_member_private(c, n))
		s->vis = MI_VIS_PRIVATE;
	if (s->kind == MI_KIND_METHOD && !member) {
		/* a function in a namespace is not a method */
		TSNode up = ts_node_parent(n);
		if (mi_ts_type_is(up, "template_declaration"))
			up = ts_node_parent(up);
		if (mi_ts_type_is(up, "declaration_list") && mi_ts_type_is(ts_node_parent(up), "namespace_definition"))
			s->kind = MI_KIND_FUNCTION;
	}
	const char *colon = strstr(s->name, "::");
	if (colon) {
		/* split at the last "::" outside template arguments */
		const char *last = NULL;
		int depth = 0;
		for (const char *p = s->name; *p; p++) {
			if (*p == '<')
				depth++;
			else if (*p == '>' && depth > 0)
				depth--;
			else if (!depth && p[0] == ':' && p[1] == ':')
				last = p;
		}
		if (last) {
			mi_buf q = {0};
			if (s->parent[0]) {
				mi_buf_adds(&q, s->parent);
				mi_buf_addc(&q, '.');
			}
			depth = 0;
			for (const char *p = s->name; p < last; p++) {
				if (*p == '<')
					depth++;
				else if (*p == '>' && depth > 0)
					depth--;
				else if (!depth && p[0] == ':' && p[1] == ':') {
					mi_buf_addc(&q, '.');
					p++;
				} else if (!depth && *p != ' ')
					mi_buf_addc(&q, *p);
			}
			s->parent = mi_parsed_strndup(mi_ts_parsed(c), q.buf ? q.buf : "", q.len);
			mi_buf_release(&q);
			s->name = last + 2;
			if (s->kind == MI_KIND_FUNCTION && (last[2] == '~' || strcmp(s->parent, "std")))
				s->kind = MI_KIND_METHOD;
		}
	}
}

/* ---- macros the grammar cannot read -------------------------------------------------- */

/* s[0, n) is a macro's name by the usual convention: upper case letters,
 * digits and underscores (_GLIBCXX_NODISCARD), not a digit first, a
 * letter in it, two bytes or more. */
static bool cx_macro_name(const char *s, size_t n)
{
	bool letter = false;
	if (n < 2 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] >= 'A' && s[i] <= 'Z')
			letter = true;
		else if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9')))
			return false;
	}
	return letter;
}

static size_t cx_skip_blanks(const char *s, size_t len, size_t i, bool newlines)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || (newlines && (s[i] == '\n' || s[i] == '\r'))))
		i++;
	return i;
}

/* Past the identifier bytes from s[k] (before e). */
static size_t cx_word_end(const char *s, size_t e, size_t k)
{
	while (k < e && mi_cx_ident_byte(s[k]))
		k++;
	return k;
}

/* Past the parenthesis opened at src[k] and closed on the same line
 * (before e), or 0 when it is not closed there. */
static size_t cx_parens(const char *src, size_t e, size_t k)
{
	int depth = 0;
	for (; k < e && src[k] != '\n'; k++)
		if (src[k] == '(')
			depth++;
		else if (src[k] == ')' && --depth == 0)
			return k + 1;
	return 0;
}

static char *cx_out(char **out, const char *src, size_t len)
{
	if (!*out && (*out = malloc(len ? len : 1)))
		memcpy(*out, src, len);
	return *out;
}

/*
 * `class EXPORT_MACRO Name {` / `struct LLVM_GSL_OWNER Name : Base`: the
 * export and attribute macros of a class head (Qt's Q_CORE_EXPORT, LLVM's,
 * Chromium's BASE_EXPORT) make the grammar read a function, and the class
 * and its members are lost.  Blanks every upper-case word between the
 * keyword and the name, when what follows the name opens a class body or
 * a base list (so `struct STAT st;`, a variable, is left alone).  At i:
 * the keyword's end.
 */
static void cx_class_head(const char *src, size_t len, size_t i, char **out)
{
	size_t words[8][2], nw = 0;
	for (;;) {
		size_t a = cx_skip_blanks(src, len, i, false);
		if (a == i || a >= len || !mi_cx_ident_byte(src[a]) || (src[a] >= '0' && src[a] <= '9'))
			break;
		size_t b = cx_word_end(src, len, a);
		if (nw == sizeof(words) / sizeof(words[0]))
			return;
		words[nw][0] = a;
		words[nw++][1] = b;
		i = b;
	}
	/* `final` after the name is no name */
	if (nw && words[nw - 1][1] - words[nw - 1][0] == 5 && !memcmp(src + words[nw - 1][0], "final", 5))
		nw--;
	if (nw < 2)
		return;
	size_t k = cx_skip_blanks(src, len, i, true);
	if (k >= len || !(src[k] == '{' || (src[k] == ':' && (k + 1 >= len || src[k + 1] != ':'))))
		return;
	for (size_t w = 0; w + 1 < nw; w++)
		if (!cx_macro_name(src + words[w][0], words[w][1] - words[w][0]))
			return;
	if (!cx_out(out, src, len))
		return;
	for (size_t w = 0; w + 1 < nw; w++)
		memset(*out + words[w][0], ' ', words[w][1] - words[w][0]);
}

/*
 * An attribute macro alone on its line before a declaration
 * (`LLVM_NODISCARD`, `Q_INVOKABLE`, `Q_OBJECT` at the top of a class body,
 * `Q_PROPERTY(...)` with its arguments and no `;`):
 * the grammar takes it for the start of a declaration and the member after
 * it is lost or misread.  Blanked when the word has an underscore (and so
 * has each of several on the line), the line before ends a statement, a
 * block, an access label or a template head, and the line
 * after starts a declaration (a name, `~`, `[[`), so an enum's last value
 * or an initializer's stays.
 */
static void cx_macro_line(const char *src, size_t len, size_t a, size_t b, char prev, char **out)
{
	if (!memchr(src + a, '_', b - a) || !cx_macro_name(src + a, b - a))
		return;
	/* after a template head too: template<...> then _GLIBCXX20_CONSTEXPR */
	if (prev && prev != ';' && prev != '{' && prev != '}' && prev != ':' && prev != '>')
		return;
	size_t k = cx_skip_blanks(src, len, b, false);
	for (;;) {
		if (k < len && src[k] == '(') { /* Q_PROPERTY(int value READ value) */
			if (!(b = cx_parens(src, len, k)))
				return;
			k = cx_skip_blanks(src, len, b, false);
		}
		/* more of them on the line: _GLIBCXX_NODISCARD _GLIBCXX20_CONSTEXPR */
		size_t w = cx_word_end(src, len, k);
		if (w == k || !memchr(src + k, '_', w - k) || !cx_macro_name(src + k, w - k))
			break;
		b = w;
		k = cx_skip_blanks(src, len, b, false);
	}
	if (k < len && src[k] == '/' && k + 1 < len && src[k + 1] == '/')
		while (k < len && src[k] != '\n')
			k++;
	if (k < len && src[k] != '\n' && src[k] != '\r')
		return; /* more on the line */
	for (;;) { /* the next line of code, past blank lines and comments */
		k = cx_skip_blanks(src, len, k, true);
		if (k + 1 < len && src[k] == '/' && src[k + 1] == '/') {
			while (k < len && src[k] != '\n')
				k++;
		} else if (k + 1 < len && src[k] == '/' && src[k + 1] == '*') {
			const char *c = memmem(src + k + 2, len - k - 2, "*/", 2);
			if (!c)
				return;
			k = (size_t)(c - src) + 2;
		} else {
			break;
		}
	}
	if (k >= len || !(mi_cx_ident_byte(src[k]) || src[k] == '~' || src[k] == '['))
		return;
	if (cx_out(out, src, len))
		memset(*out + a, ' ', b - a);
}

/*
 * An attribute macro that starts a function's head on its line
 * (`_GLIBCXX_NODISCARD bool empty() const`, `LLVM_NODISCARD StringRef
 * copy(...)`), after a line that ends a statement, block, label or
 * template head: blanked when the rest of the line is a type and a name
 * up to a `(`, so a declaration of a variable (`MY_TYPE x;`, `MY_TYPE x =
 * f(y);`) is left alone.
 */
static void cx_macro_head(const char *src, size_t len, size_t a, size_t b, size_t e, char prev,
			  char **out)
{
	if (!memchr(src + a, '_', b - a) || !cx_macro_name(src + a, b - a))
		return;
	if (prev && prev != ';' && prev != '{' && prev != '}' && prev != ':' && prev != '>')
		return;
	size_t k = cx_skip_blanks(src, len, b, false), words = 0;
	for (bool in_word = false; k < e; k++) {
		char ch = src[k];
		if (ch == '(')
			break;
		if (mi_cx_ident_byte(ch)) {
			words += !in_word;
			in_word = true;
			continue;
		}
		in_word = false;
		if (!(ch == ' ' || ch == '\t' || ch == ':' || ch == '<' || ch == '>' || ch == '*' ||
		      ch == '&' || ch == ',' || ch == '~'))
			return;
	}
	if (k >= e || words < 2)
		return;
	if (cx_out(out, src, len))
		memset(*out + a, ' ', b - a);
}

/*
 * `namespace std _GLIBCXX_VISIBILITY(default) {`: a macro call between a
 * namespace's name and its brace, blanked.  At i: the keyword's end.
 */
static void cx_namespace_head(const char *src, size_t len, size_t i, char **out)
{
	size_t a = cx_skip_blanks(src, len, i, false);
	if (a == i || a >= len || !mi_cx_ident_byte(src[a]))
		return;
	while (a < len && (mi_cx_ident_byte(src[a]) || src[a] == ':'))
		a++;
	size_t m = cx_skip_blanks(src, len, a, false), b = cx_word_end(src, len, m);
	if (m == a || !cx_macro_name(src + m, b - m))
		return;
	size_t k = cx_skip_blanks(src, len, b, false);
	if (k < len && src[k] == '(') {
		if (!(b = cx_parens(src, len, k)))
			return;
		k = cx_skip_blanks(src, len, b, true);
	}
	if (k >= len || src[k] != '{' || !cx_out(out, src, len))
		return;
	memset(*out + m, ' ', b - m);
}

/* A declaration specifier that may come before a function head's macro. */
static bool cx_spec(const char *w, size_t n)
{
	static const char *const specs[] = {"static", "inline", "constexpr", "virtual", "explicit",
					    "friend", "extern", "consteval", NULL};
	for (int i = 0; specs[i]; i++)
		if (strlen(specs[i]) == n && !memcmp(specs[i], w, n))
			return true;
	return false;
}

static bool cx_word_at(const char *s, size_t n, size_t k, const char *w)
{
	size_t l = strlen(w);
	return k + l <= n && !memcmp(s + k, w, l) && (k + l == n || !mi_cx_ident_byte(s[k + l]));
}

/*
 * A specifier macro after a function's parameters (`void swap(T &x)
 * _GLIBCXX_NOEXCEPT {`, `_GLIBCXX_NOEXCEPT_IF(...)`, LLVM_READONLY,
 * Q_DECL_NOTHROW): blanked, with its arguments, when a body, `;`, an
 * initializer list, `= default` or another specifier follows, on a line
 * that is not a statement (no `=` before it, not `return`, `if`, ...: a
 * cast `(int) MAX_LEN;` keeps its operand).  Line [a, e), r: a `)`.
 */
static void cx_macro_after(const char *src, size_t len, size_t a, size_t e, size_t r, char **out)
{
	static const char *const stmt[] = {"return", "if", "while", "for", "switch", "case",
					   "else", "do", "goto", "throw", "co_return", NULL};
	size_t m = cx_skip_blanks(src, len, r + 1, false);
	for (;;) { /* past the method's qualifiers: ) const & _GLIBCXX_NOEXCEPT */
		if (cx_word_at(src, e, m, "const"))
			m = cx_skip_blanks(src, len, m + 5, false);
		else if (cx_word_at(src, e, m, "volatile"))
			m = cx_skip_blanks(src, len, m + 8, false);
		else if (m < e && src[m] == '&')
			m = cx_skip_blanks(src, len, m + 1, false);
		else
			break;
	}
	size_t b = cx_word_end(src, e, m);
	if (b == m || !memchr(src + m, '_', b - m) || !cx_macro_name(src + m, b - m))
		return;
	size_t k = cx_skip_blanks(src, len, b, false);
	if (k < e && src[k] == '(') {
		if (!(b = cx_parens(src, e, k)))
			return;
		k = cx_skip_blanks(src, len, b, false);
	}
	bool ends = k >= e || src[k] == '\r' || (src[k] && strchr("{;:=", src[k])) ||
		    (src[k] == '/' && k + 1 < e && src[k + 1] == '/') ||
		    cx_word_at(src, e, k, "const") || cx_word_at(src, e, k, "override") ||
		    cx_word_at(src, e, k, "final") || cx_word_at(src, e, k, "noexcept") ||
		    (src[k] == '-' && k + 1 < e && src[k + 1] == '>');
	if (!ends || memchr(src + a, '=', r - a))
		return;
	for (int i = 0; stmt[i]; i++)
		if (cx_word_at(src, e, a, stmt[i]))
			return;
	if (cx_out(out, src, len))
		memset(*out + m, ' ', b - m);
}

/*
 * Qt's access labels: `public slots:` / `private Q_SLOTS:` lose the word
 * the grammar does not know, `signals:` / `Q_SIGNALS:` read as `public:`
 * (what moc makes of them).  Line [a, e), its first word [a, b).
 */
static void cx_qt_label(const char *src, size_t len, size_t a, size_t b, size_t e,
			char **out)
{
	size_t k = cx_skip_blanks(src, len, b, false);
	if ((cx_word_at(src, e, a, "signals") || cx_word_at(src, e, a, "Q_SIGNALS")) && k < e &&
	    src[k] == ':' && (k + 1 >= e || src[k + 1] != ':')) {
		if (cx_out(out, src, len)) {
			memset(*out + a, ' ', k + 1 - a);
			memcpy(*out + a, "public:", 7); /* "signals:" is longer */
		}
		return;
	}
	if (!cx_word_at(src, e, a, "public") && !cx_word_at(src, e, a, "protected") &&
	    !cx_word_at(src, e, a, "private"))
		return;
	if (!cx_word_at(src, e, k, "slots") && !cx_word_at(src, e, k, "Q_SLOTS"))
		return;
	size_t w = cx_word_end(src, e, k);
	size_t c = cx_skip_blanks(src, len, w, false);
	if (c < e && src[c] == ':' && cx_out(out, src, len))
		memset(*out + k, ' ', w - k);
}

/* mi_c_prefilter, then the C++ macros above blanked (offsets kept). */
static char *cpp_prefilter(const char *src, size_t len)
{
	char *out = mi_c_prefilter(src, len);
	const char *s = out ? out : src;
	char prev = 0;           /* the last byte of the last line of code */
	bool pp = false;         /* in a preprocessor line (and its continuations) */
	size_t i = 0;
	char *own = NULL;        /* our copy, when the C pass made none */
	while (i < len) {
		size_t e = i;
		while (e < len && s[e] != '\n')
			e++;
		size_t a = cx_skip_blanks(s, len, i, false);
		bool cont = e > i && s[e - 1 - (e - 1 > i && s[e - 1] == '\r')] == '\\';
		if (pp || (a < e && s[a] == '#')) {
			pp = cont;
		} else if (a < e && !(s[a] == '/' && a + 1 < e && (s[a + 1] == '/' || s[a + 1] == '*')) &&
			   !(s[a] == '*')) {
			/* a line of code: the two patterns, then its last byte */
			char **dst = out ? &out : &own;
			if (mi_cx_ident_byte(s[a]) && !(s[a] >= '0' && s[a] <= '9')) {
				size_t b = cx_word_end(s, e, a);
				cx_macro_line(s, len, a, b, prev, dst);
				cx_qt_label(s, len, a, b, e, dst);
				/* the head's macro may follow its specifiers:
				 * static _GLIBCXX20_CONSTEXPR void f(...) */
				size_t ma = a, mb = b;
				while (cx_spec(s + ma, mb - ma)) {
					ma = cx_skip_blanks(s, len, mb, false);
					mb = cx_word_end(s, e, ma);
				}
				if (mb > ma && (!*dst || (*dst)[a] != ' '))
					cx_macro_head(s, len, ma, mb, e, prev, dst);
			}
			for (size_t w = a; w < e; w++) {
				if (s[w] == ')')
					cx_macro_after(s, len, a, e, w, dst);
				if (s[w] == 'n' && (w == 0 || !mi_cx_ident_byte(s[w - 1])) && e - w > 9 &&
				    !memcmp(s + w, "namespace", 9) && !mi_cx_ident_byte(s[w + 9]))
					cx_namespace_head(s, len, w + 9, dst);
				if ((s[w] == 'c' || s[w] == 's') && (w == 0 || !mi_cx_ident_byte(s[w - 1]))) {
					if (e - w > 5 && !memcmp(s + w, "class", 5) && !mi_cx_ident_byte(s[w + 5]))
						cx_class_head(s, len, w + 5, dst);
					else if (e - w > 6 && !memcmp(s + w, "struct", 6) && !mi_cx_ident_byte(s[w + 6]))
						cx_class_head(s, len, w + 6, dst);
				}
			}
			if (!out && own) { /* later reads see the blanks */
				out = own;
				own = NULL;
				s = out;
			}
			size_t z = e;
			const char *cm = NULL;
			for (size_t w = a; w + 1 < e; w++)
				if (s[w] == '/' && s[w + 1] == '/') {
					cm = s + w;
					break;
				}
			if (cm)
				z = (size_t)(cm - s);
			while (z > a && (s[z - 1] == ' ' || s[z - 1] == '\t' || s[z - 1] == '\r'))
				z--;
			if (z > a) /* (a line blanked whole leaves prev as it was) */
				prev = s[z - 1];
		}
		i = e + 1;
	}
	return out;
}

const TSLanguage *tree_sitter_cpp(void);
extern const char mi_query_src_cpp[];

const mi_lang_row mi_lang_cpp = {
	.id = MI_LANG_CPP,
	.name = "cpp",
	.exts = " .cc .cpp .cxx .c++ .hpp .hh .hxx .h++ .ipp .tcc .tpp .txx .inl .cppm .ixx ",
	.ts = tree_sitter_cpp,
	.query = mi_query_src_cpp,
	.fix = mi_fix_cpp,
	.prefilter = cpp_prefilter,
};
