/*
 * view_sig.c - the code column of a folded line: a symbol's signature with
 * annotations and decorators left out and long generic parameter lists
 * shortened, and where a function's name ends (compact mode).
 */
#include "view_int.h"

#include <ctype.h>
#include <string.h>

/* Does `q` open a string literal in this language?  A Rust '\'' is a
 * lifetime. */
static bool is_quote(int lang, char q)
{
	return q == '"' || (q == '\'' && lang != MI_LANG_RUST) ||
	       (q == '`' && (lang == MI_LANG_JAVASCRIPT || lang == MI_LANG_TYPESCRIPT ||
			     lang == MI_LANG_TSX || lang == MI_LANG_GO));
}

/* Index just past the string literal opening at s[i] (or n). */
static size_t skip_quoted(const char *s, size_t n, size_t i)
{
	char q = s[i];
	for (i++; i < n && s[i] != q; i++)
		if (s[i] == '\\')
			i++;
	return i < n ? i + 1 : n;
}

/* Where a default value starting at s[a] ends: the ',' or closing bracket
 * at its own depth (strings and nested brackets skipped), trailing blanks
 * left out. */
static size_t value_end(int lang, const char *s, size_t n, size_t a)
{
	int d = 0;
	size_t i = a;
	while (i < n) {
		char ch = s[i];
		if (is_quote(lang, ch)) {
			i = skip_quoted(s, n, i);
			continue;
		}
		if (ch == '(' || ch == '[' || ch == '{')
			d++;
		else if (ch == ')' || ch == ']' || ch == '}') {
			if (d-- == 0)
				break;
		} else if (ch == ',' && d == 0)
			break;
		i++;
	}
	while (i > a && s[i - 1] == ' ')
		i--;
	return i;
}

/* Where a Python annotation starting at s[a] ends: at the '=' of its
 * default, or the ',' or ')' after it (nested brackets and strings
 * skipped). */
static size_t annot_end(const char *s, size_t n, size_t a)
{
	int d = 0;
	for (size_t i = a; i < n; i++) {
		char ch = s[i];
		if (is_quote(MI_LANG_PYTHON, ch)) {
			i = skip_quoted(s, n, i) - 1;
		} else if (ch == '(' || ch == '[' || ch == '{') {
			d++;
		} else if (ch == ')' || ch == ']' || ch == '}') {
			if (d-- == 0)
				return i;
		} else if (d == 0 && (ch == ',' || (ch == '=' && s[i + 1] != '='))) {
			return i;
		}
	}
	return n;
}

/* The bracket closing the generic list that opens at s[i] ('<' or '['),
 * or 0 when it does not close before the signature ends. */
static size_t generic_close(const char *s, size_t n, size_t i)
{
	char open = s[i], close = open == '<' ? '>' : ']';
	int d = 0;
	for (; i < n; i++) {
		if (s[i] == open)
			d++;
		else if (s[i] == close && !(close == '>' && s[i - 1] == '-') && --d == 0)
			return i;
		else if (s[i] == ';' || s[i] == '{' || (open == '<' && s[i] == ')'))
			return 0;
	}
	return 0;
}

/* Writes the generic list s[lt..gt] shortened: its first parameter and
 * ", ..." when it holds several, or "..." when even the first one is over
 * GENERIC_MAX characters.  The list is kept whole when it holds one short
 * parameter, or, with `loose`, when it is short itself. */
static void put_generic(vctx *c, const char *s, size_t lt, size_t gt, bool loose)
{
	size_t first = 0, commas = 0;
	int d = 0;
	for (size_t i = lt + 1; i < gt; i++) {
		if (s[i] == '<' || s[i] == '(' || s[i] == '[')
			d++;
		else if ((s[i] == '>' && s[i - 1] != '-') || s[i] == ')' || s[i] == ']')
			d--;
		else if (s[i] == ',' && d == 0 && commas++ == 0)
			first = i;
	}
	size_t inner = gt - lt - 1;
	if ((commas == 0 || loose) && inner <= GENERIC_MAX) {
		mi_buf_add(c->out, s + lt, gt - lt + 1);
		return;
	}
	mi_buf_add(c->out, s + lt, 1);
	size_t flen = commas ? first - lt - 1 : inner;
	if (flen <= GENERIC_MAX) {
		mi_buf_add(c->out, s + lt + 1, flen);
		if (commas)
			mi_buf_addf(c->out, ", %s", c->ell);
	} else {
		mi_buf_adds(c->out, c->ell);
	}
	mi_buf_add(c->out, s + gt, 1);
}

/* At the parameter list's '(' (s[i]) of a Python method: writes up to it
 * and returns where to go on from, past a leading `self` or `cls`. */
static size_t skip_self(vctx *c, const char *s, size_t n, size_t i, size_t from)
{
	size_t k = i + 1, w = 0;
	if (k + 4 <= n && !strncmp(s + k, "self", 4))
		w = 4;
	else if (k + 3 <= n && !strncmp(s + k, "cls", 3))
		w = 3;
	if (!w || k + w >= n || (s[k + w] != ',' && s[k + w] != ')'))
		return from;
	mi_buf_add(c->out, s + from, k - from);
	k += w;
	if (s[k] == ',')
		k++;
	while (k < n && s[k] == ' ')
		k++;
	return k;
}

/*
 * Writes the part of a signature from its parameter list on, shortened for
 * a folded line: a default value longer than DEFAULT_MAX characters becomes
 * "..." (`_w=WHITESPACE.match` -> `_w=...`); a generic argument list of a
 * parameter or return type longer than GENERIC_MAX characters keeps its
 * first argument (`Map<String, ...>`); in Python a defaulted parameter
 * drops an annotation longer than ANNOT_MAX (`x=None`), and a method its
 * `self`.  Every parameter name stays.
 */
static void put_params(vctx *c, const char *s, size_t n)
{
	int lang = c->p->lang;
	bool generics = lang != MI_LANG_C && lang != MI_LANG_BASH && lang != MI_LANG_MARKDOWN;
	size_t i = 0, from = 0, colon = 0;
	int paren = 0, nest = 0;
	bool inside = false;
	while (i < n) {
		char ch = s[i];
		bool top = inside && paren == 1 && nest == 0; /* between two parameters' commas */
		if (is_quote(lang, ch)) {
			i = skip_quoted(s, n, i);
			continue;
		}
		if (inside && generics && (ch == '<' || ch == '[') && i > 0 &&
		    (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')) {
			size_t gt = generic_close(s, n, i);
			if (gt && gt - i - 1 > GENERIC_MAX) {
				mi_buf_add(c->out, s + from, i - from);
				put_generic(c, s, i, gt, true);
				from = i = gt + 1;
				continue;
			}
		}
		if (ch == '(') {
			if (!inside && c->self_param)
				from = skip_self(c, s, n, i, from);
			paren++;
			inside = true;
		} else if (ch == ')') {
			paren--;
		} else if (ch == '[' || ch == '{') {
			nest++;
		} else if (ch == ']' || ch == '}') {
			nest--;
		} else if (top && ch == ',') {
			colon = 0;
		} else if (top && ch == ':' && !colon && lang == MI_LANG_PYTHON) {
			colon = i;
			size_t eq = annot_end(s, n, i + 1);
			if (eq < n && s[eq] == '=' && eq - i > ANNOT_MAX) {
				/* `x: t.Optional[t.Sequence[str]] = None` -> `x=None` */
				mi_buf_add(c->out, s + from, i - from);
				mi_buf_addc(c->out, '=');
				from = eq + 1;
				while (from < n && s[from] == ' ')
					from++;
				i = eq;
				continue;
			}
		} else if (top && ch == '=' && i + 1 < n && s[i + 1] != '=' && s[i + 1] != '>' &&
			   !strchr("=!<>:+-*/%&|^", s[i - 1])) {
			size_t a = i + 1;
			while (a < n && s[a] == ' ')
				a++;
			size_t e = value_end(lang, s, n, a);
			if (e - a > DEFAULT_MAX) {
				if (a > from)
					mi_buf_add(c->out, s + from, a - from);
				mi_buf_adds(c->out, c->ell);
				from = e;
			}
			i = e;
			continue;
		}
		i++;
	}
	if (lang == MI_LANG_PYTHON && n - from >= 8 && !memcmp(s + n - 8, " -> None", 8))
		n -= 8; /* a procedure: its return type says nothing */
	mi_buf_add(c->out, s + from, n - from);
}

/*
 * Writes sig for a line.  With `elide` (outline lines) it is shortened:
 * the first '<...>' glued to a name before any '(' (the declared entity's
 * type parameters) becomes "<T, ...>" when it holds more than one parameter
 * or is longer than GENERIC_MAX, and the rest goes through put_params.
 */
void mi_v_put_sig(vctx *c, const char *sig, size_t n, bool elide)
{
	size_t lt = n, gt = 0;
	while (n > 0 && (sig[n - 1] == ' ' || sig[n - 1] == '{' || (sig[n - 1] == ';' && elide) ||
			 (sig[n - 1] == ':' && (c->p->lang == MI_LANG_PYTHON ||
						c->p->lang == MI_LANG_SIMPLE))))
		n--;
	if (!elide) {
		mi_buf_add(c->out, sig, n);
		return;
	}
	if (c->p->lang != MI_LANG_C && c->p->lang != MI_LANG_MARKDOWN &&
	    c->p->lang != MI_LANG_BASH) {
		for (size_t i = 1; i < n; i++) {
			if (sig[i] == '(' || sig[i] == '{' || sig[i] == '=')
				break;
			if (sig[i] == '<' && (isalnum((unsigned char)sig[i - 1]) ||
					      sig[i - 1] == '_') &&
			    !(i >= 8 && !memcmp(sig + i - 8, "operator", 8))) {
				lt = i;
				break;
			}
		}
		if (lt < n) {
			int d = 0;
			for (size_t i = lt; i < n; i++) {
				if (sig[i] == '<')
					d++;
				else if (sig[i] == '>' && sig[i - 1] != '-' && --d == 0) {
					gt = i;
					break;
				} else if (sig[i] == '(' || sig[i] == ';' || sig[i] == '{')
					break;
			}
		}
	}
	if (gt == 0) {
		put_params(c, sig, n);
		return;
	}
	mi_buf_add(c->out, sig, lt);
	put_generic(c, sig, lt, gt, false);
	put_params(c, sig + gt + 1, n - gt - 1);
}

/* End of a bracketed run from s (at an opening '(' '[' or '{'), skipping
 * strings; NULL when it does not close. */
const char *mi_v_skip_group(const char *s)
{
	int d = 0;
	for (; *s; s++) {
		if (*s == '"' || *s == '\'') {
			char q = *s;
			for (s++; *s && *s != q; s++)
				if (*s == '\\' && s[1])
					s++;
			if (!*s)
				return NULL;
		} else if (*s == '(' || *s == '[' || *s == '{') {
			d++;
		} else if ((*s == ')' || *s == ']' || *s == '}') && --d == 0) {
			return s + 1;
		}
	}
	return NULL;
}

/* Python decorators that change how a function is called: kept, without
 * their arguments. */
static const char *const kept_decorators[] = {
	"staticmethod", "classmethod", "property", "abstractmethod", "dataclass",
};

/*
 * Writes the kept annotations of sig and returns where the rest starts:
 * leading annotations, attributes and decorators (`@Override`, `[Obsolete]`,
 * `#[derive(Debug)]`, `@app.route("/")`) are dropped from outline lines;
 * expand_at what=signature shows them.
 */
const char *mi_v_put_annotations(vctx *c, const char *sig)
{
	int lang = c->p->lang;
	bool at = lang == MI_LANG_PYTHON || lang == MI_LANG_JAVA || lang == MI_LANG_KOTLIN ||
		  lang == MI_LANG_SWIFT || lang == MI_LANG_TYPESCRIPT || lang == MI_LANG_TSX ||
		  lang == MI_LANG_JAVASCRIPT;
	bool hash = lang == MI_LANG_RUST || lang == MI_LANG_PHP;
	bool bracket = lang == MI_LANG_CSHARP;
	const char *q = sig;
	for (;;) {
		const char *e = NULL;
		if (at && q[0] == '@' && (isalpha((unsigned char)q[1]) || q[1] == '_')) {
			const char *w = q + 1;
			while (isalnum((unsigned char)*w) || *w == '_' || *w == '.' || *w == ':')
				w++;
			if (w - q == 10 && !memcmp(q, "@interface", 10))
				break; /* Java annotation type: a keyword, not an annotation */
			e = *w == '(' ? mi_v_skip_group(w) : w;
			if (e && lang == MI_LANG_PYTHON) {
				for (size_t k = 0; k < sizeof(kept_decorators) / sizeof(*kept_decorators); k++) {
					size_t kl = strlen(kept_decorators[k]);
					if ((size_t)(w - q - 1) == kl && !memcmp(q + 1, kept_decorators[k], kl)) {
						mi_buf_add(c->out, q, kl + 1);
						mi_buf_addc(c->out, ' ');
					}
				}
			}
		} else if ((hash && q[0] == '#' && q[1] == '[') || (bracket && q[0] == '[')) {
			e = mi_v_skip_group(q + (q[0] == '#'));
		}
		if (!e || (*e != ' ' && *e != '\0'))
			break;
		while (*e == ' ')
			e++;
		if (!*e)
			break;
		q = e;
	}
	return q;
}

/* The code of a symbol's line: its signature, or its name without one.
 * Outline lines (elide) drop annotations and long generic lists. */
void mi_v_put_code(vctx *c, const mi_symbol *s, bool elide)
{
	c->self_param = elide && mi_v_drops_self(c, s);
	const char *sig = str0(s->sig);
	if (!*sig)
		sig = str0(s->name);
	if (elide)
		sig = mi_v_put_annotations(c, sig);
	mi_v_put_sig(c, sig, strlen(sig), elide);
	c->self_param = false;
}

/* Length of sig up to the end of the function's name ("pub fn login"),
 * or 0 when the name is not followed by its parameters or an '='
 * (`const handler = async () =>`, `square = lambda v: ...`). */
size_t mi_v_name_end(const char *sig, const char *name)
{
	size_t nl = strlen(name);
	if (!nl)
		return 0;
	for (const char *h = strstr(sig, name); h; h = strstr(h + 1, name)) {
		if (h > sig && (isalnum((unsigned char)h[-1]) || h[-1] == '_'))
			continue;
		const char *e = h + nl;
		while (*e == ' ')
			e++;
		if (*e == '(' || *e == '<' || *e == '[' ||
		    (*e == '=' && e[1] != '=' && e[1] != '>'))
			return (size_t)(h + nl - sig);
	}
	return 0;
}
