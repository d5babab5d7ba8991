/*
 * view_int.h - what the files of the folded-view renderer share (not
 * public; format.h has the API).  One rendering is one vctx: the parsed
 * file, its lines, which symbols show and where, and the text being
 * written.  The renderer's files, one idea each:
 *
 *   view.c          entry points, the context, output primitives, name lists
 *   view_fold.c     fold rules: which symbols show, under which parent, how deep
 *   view_sig.c      the code column: signatures shortened for a folded line
 *   view_outline.c  the outline and compact renderers
 *   view_full.c     the full renderer (source with diagnostic comments)
 *   view_expand.c   expand_at: selector matching and the expanded symbol
 *   view_diag.c     diagnostics: which block owns each, and their V* lines
 *   view_cover.c    lcov coverage lines
 *   view_traits.c   V* traits lines and Simple's auto traits
 *   estimate.c      the token estimate used for caps and savings
 */
#ifndef MI_VIEW_INT_H
#define MI_VIEW_INT_H

#include "format.h"

enum { VM_OUTLINE, VM_COMPACT, VM_FULL };

/* One row per kind: how a symbol of that kind shows in a folded view. */
typedef struct kind_row {
	const char *mark;     /* collapsed mark, NULL = no line of its own */
	const char *exp;      /* expanded mark, ASCII */
	const char *exp_u;    /* expanded mark, unicode */
	const char *word;     /* block guide word: "V* end fn NAME" */
	bool container;       /* may hold member lines (class-like) */
	bool member;          /* summarised in its parent's member list */
} kind_row;



#define LIST_CAP_OUTLINE 12   /* names per V* list / inline member list */
#define LIST_CAP_COMPACT 3
#define GROUP_CAP_OUTLINE 16  /* names per file-level V* group line */
#define GROUP_CAP_COMPACT 4
#define DIAG_CAP 8            /* diagnostic lines per outline, then a summary */
#define GENERIC_MAX 20        /* a type parameter list longer than this is elided */
#define DEFAULT_MAX 10        /* a default value longer than this is elided */
#define ANNOT_MAX 14          /* a longer annotation of a defaulted parameter is dropped */
#define TRUNC_RESERVE 24      /* tokens kept for the truncation line */

/* Everything one rendering needs; arrays are indexed by symbol. */
typedef struct vctx {
	const char *path;        /* for messages and JSON */
	const char *src;         /* source text */
	size_t len;              /* its length */
	const mi_parsed *p;      /* the parsed file */
	const mi_view_opts *o;   /* options (never NULL inside) */
	int mode;                /* VM_* */
	uint32_t nlines;         /* lines in src */
	uint32_t *lstart;        /* line start offsets of lines l0.. (+ the end) */
	uint32_t l0, l1;         /* lines l0..l1 are indexed (all, unless o->window) */
	int lnw;                 /* digits of nlines (zpad width) */
	uint8_t *shown;          /* 1: the symbol is rendered (line or member) */
	uint8_t *depth;          /* nesting depth among rendered symbols */
	int32_t *par;            /* parent as rendered: the source parent, or a Go
				    method's receiver type; -1 = top level */
	uint8_t *ek;             /* kind as rendered: a C++ prototype inside a class
				    is a method declaration */
	uint8_t *adopted;        /* 1: par is a Go receiver type, not the source parent */
	int32_t *kid;            /* first child of each symbol (by par), -1 = none */
	int32_t *sib;            /* next sibling, -1 = last */
	int32_t *order;          /* symbols in tree order: each parent before its children */
	uint32_t *impl;          /* indices of MI_REF_IMPL refs */
	size_t nimpl;            /* how many */
	bool header;             /* a C/C++ header: static inline is its API */
	int32_t *dstart;         /* first index into dord of the symbol's diags */
	struct dref { int32_t owner; uint32_t line; uint32_t idx; } *dord;
	int32_t *cov;            /* per line: lcov hits, -1 = no data; NULL = off */
	int32_t *brt;            /* per line: lcov branches found (BRDA), NULL = none */
	int32_t *brh;            /* per line: of those, branches taken */
	const char *ell;         /* "..." or "…" */
	const char *vmark;       /* "V*" or "V•" */
	mi_buf *out;             /* text being written */
	size_t tokens;           /* tokens written so far */
	size_t cap;              /* token cap */
	size_t entries;          /* symbol entries written */
	size_t diags_out;        /* diagnostic lines written */
	size_t diags_left[3];    /* E, W, H not written for the cap */
	bool cut;                /* the cap cut the view short */
	bool self_param;         /* the line being written is a Python method's:
				    its `self`/`cls` parameter is left out */
} vctx;

/* The kind table (view.c). */
extern const kind_row mi_v_kinds[MI_KIND__COUNT];

static inline const kind_row *krow(int kind)
{
	static const kind_row none = { NULL, NULL, NULL, NULL, false, false };
	if (kind <= MI_KIND_NONE || kind >= MI_KIND__COUNT)
		return &none;
	return &mi_v_kinds[kind];
}

static inline bool is_block(int kind)
{
	return krow(kind)->mark != NULL;
}

static inline bool is_fn(int kind)
{
	return kind == MI_KIND_FUNCTION || kind == MI_KIND_METHOD;
}

static inline const char *str0(const char *s)
{
	return s ? s : "";
}

/* A plain name (not "struct {" or empty). */
static inline bool is_ident(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (*s == ' ' || *s == '{' || *s == '(' || *s == '\n')
			return false;
	return true;
}

/* A nested struct/union without a name: its members belong to the parent. */
static inline bool anon_type(const mi_symbol *s)
{
	return (s->kind == MI_KIND_STRUCT || s->kind == MI_KIND_UNION) && !is_ident(s->name);
}


/* The same whitespace the token estimate splits on. */
static inline bool mi_v_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\n' || c == '\r';
}

/* The kind a symbol renders as (see vctx.ek). */
static inline int ekind(const vctx *c, size_t i)
{
	return c->ek[i];
}

/* A list of distinct names, in first-seen order. */
typedef struct namelist {
	const char **v;  /* names (borrowed) */
	size_t n, capv;  /* used, allocated */
	int32_t *set;    /* open-addressing index into v, -1 = empty */
	size_t nset;     /* slots (a power of two) */
} namelist;

/* ---- view.c: context, lines, output ---- */

/* Sets up c for rendering p (o never NULL); mi_v_ctx_release frees it. */
void mi_v_ctx_init(vctx *c, const char *path, const char *src, size_t len,
		   const mi_parsed *p, const mi_view_opts *o, mi_out *out);
void mi_v_ctx_release(vctx *c);
/* Default options, an empty answer, an error answer without a parsed file. */
int mi_v_render_begin(const mi_parsed *p, const mi_view_opts **o, mi_out *out,
		      const char *no_file);
/* An error answer with msg; returns err. */
int mi_v_set_error(mi_out *out, int err, const char *msg);
/* Text of line ln (1-based) without its newline; "" outside the file. */
const char *mi_v_line_at(const vctx *c, uint32_t ln, size_t *n);
bool mi_v_line_blank(const char *s, size_t n);
size_t mi_v_indent_of(const char *s, size_t n);
/* Line-number prefix of a line (ln 0: a virtual line). */
void mi_v_lineno(vctx *c, uint32_t ln);
void mi_v_indent(vctx *c, int depth);
/* Starts a virtual line at depth: "V* " + indent. */
void mi_v_vline(vctx *c, int depth);
/* " { ... }" */
void mi_v_put_body(vctx *c);
void mi_v_nl_add(namelist *l, const char *name);
void mi_v_nl_free(namelist *l);
/* Appends "a, b, c" (at most cap, then ", +N more"). */
void mi_v_nl_put(vctx *c, const namelist *l, size_t cap);

/* ---- view_fold.c: which symbols show, and how ---- */

enum {
	CM_OPENS = 1,  /* the parent lists its block children: nested types have lines */
	CM_FNS = 2,    /* functions are named too, not only counted */
};

bool mi_v_sym_public(const vctx *c, const mi_symbol *s);
/* Rendered parents and kinds (c->par, c->ek, c->adopted). */
void mi_v_relate(vctx *c);
/* Children lists and the tree order (c->kid, c->sib, c->order). */
void mi_v_link_tree(vctx *c);
/* Which symbols are rendered and how deep (c->shown, c->depth). */
void mi_v_mark_shown(vctx *c);
bool mi_v_trait_impl(const vctx *c, const mi_symbol *s);
void mi_v_collect_members(const vctx *c, size_t i, namelist *l, size_t *methods, int how);
bool mi_v_has_block_children(const vctx *c, size_t i);
bool mi_v_has_body(const vctx *c, size_t i);
/* A test function (MI_SYMF_TEST): listed by name on a "V* tests" line. */
bool mi_v_is_test(const vctx *c, size_t i);
/* A Python @overload stub: the implementation that follows shows it. */
bool mi_v_is_overload(const vctx *c, const mi_symbol *s);
/* A JavaScript/TypeScript top-level `const x = require(...)`: an import. */
bool mi_v_is_import_var(const vctx *c, const mi_symbol *s);
/* A Python method whose first parameter (self, cls) goes without saying. */
bool mi_v_drops_self(const vctx *c, const mi_symbol *s);

/* ---- view_sig.c: the code column ---- */

void mi_v_put_sig(vctx *c, const char *sig, size_t n, bool elide);
const char *mi_v_skip_group(const char *s);
const char *mi_v_put_annotations(vctx *c, const char *sig);
void mi_v_put_code(vctx *c, const mi_symbol *s, bool elide);
size_t mi_v_name_end(const char *sig, const char *name);

/* ---- view_diag.c ---- */

int mi_v_dref_cmp(const void *a, const void *b);
/* Gives each diagnostic to the innermost rendered block spanning its line. */
void mi_v_assign_diags(vctx *c);
void mi_v_put_diag(vctx *c, const mi_diag *dg, int depth);
void mi_v_put_sym_diags(vctx *c, size_t i, int depth);

/* ---- view_notes.c: V* lines from outside the source (stored summaries) ---- */

/* The notes about the symbol that starts at line (0: the file) as
 * "V* label: text" lines at depth; full: the whole text, else its first
 * 300 bytes. */
void mi_v_put_notes(vctx *c, uint32_t line, int depth, bool full);
/* Compact's "V* [2E 1W in file]". */
void mi_v_put_diag_summary(vctx *c);

/* ---- view_cover.c ---- */

void mi_v_load_coverage(vctx *c);
void mi_v_put_coverage(vctx *c, const mi_symbol *s, int depth);
/* The module's line: coverage of the whole file, at the top of a folded view. */
void mi_v_put_file_coverage(vctx *c);

/* ---- view_traits.c ---- */

const char *mi_v_auto_traits(const vctx *c, size_t i);
bool mi_v_auto_traits_apply(const vctx *c, const mi_symbol *s);
void mi_v_put_file_auto_traits(vctx *c);
void mi_v_put_traits(vctx *c, size_t i, int depth);

/* ---- the renderers ---- */

void mi_v_render_folded(vctx *c);            /* view_outline.c */
size_t mi_v_atx_len(const char *t, size_t n); /* view_outline.c */
void mi_v_render_full(vctx *c);              /* view_full.c */
const char *mi_v_comment_open(int lang, const char **close); /* view_full.c */

/* ---- estimate.c ---- */

size_t mi_v_estimate_sampled(const char *s, size_t len);

#endif
