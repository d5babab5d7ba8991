/*
 * view_sig.c - the code column of a folded line: a symbol's signature with
 * annotations and decorators left out and long generic parameter lists
 * shortened, and where a function's name ends (compact mode).
 */
#include "view_int.h"

#include <ctype.h>
#include <string.h>

/*
 * Writes sig with a long generic parameter list elided: the first '<...>'
 * glued to a name before any '(' becomes "<T, ...>" when it holds more than
 * one parameter or is longer than GENERIC_MAX.
 */
void mi_v_put_sig(vctx *c, const char *sig, size_t n, bool elide)
{
	size_t lt = n, gt = 0;
	while (n > 0 && (sig[n - 1] == ' ' || sig[n - 1] == '{' || (sig[n - 1] == ';' && elide) ||
			 (sig[n - 1] == ':' && (c->p->lang == MI_LANG_PYTHON ||
						c->p->lang == MI_LANG_SIMPLE))))
		n--;
	if (elide && c->p->lang != MI_LANG_C && c->p->lang != MI_LANG_MARKDOWN &&
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
		mi_buf_add(c->out, sig, n);
		return;
	}
	size_t first = 0, commas = 0;
	int d = 0;
	for (size_t i = lt + 1; i < gt; i++) {
		if (sig[i] == '<' || sig[i] == '(' || sig[i] == '[')
			d++;
		else if ((sig[i] == '>' && sig[i - 1] != '-') || sig[i] == ')' || sig[i] == ']')
			d--;
		else if (sig[i] == ',' && d == 0 && commas++ == 0)
			first = i;
	}
	size_t inner = gt - lt - 1;
	if (commas == 0 && inner <= GENERIC_MAX) {
		mi_buf_add(c->out, sig, n);
		return;
	}
	mi_buf_add(c->out, sig, lt + 1);
	size_t flen = commas ? first - lt - 1 : inner;
	if (flen <= GENERIC_MAX) {
		mi_buf_add(c->out, sig + lt + 1, flen);
		mi_buf_addf(c->out, ", %s", c->ell);
	} else {
		mi_buf_adds(c->out, c->ell);
	}
	mi_buf_add(c->out, sig + gt, n - gt);
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
	const char *sig = str0(s->sig);
	if (!*sig)
		sig = str0(s->name);
	if (elide)
		sig = mi_v_put_annotations(c, sig);
	mi_v_put_sig(c, sig, strlen(sig), elide);
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
