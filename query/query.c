/*
 * query.c - opening an index and the lookups over it: stats, definitions,
 * references, and loading one file for the folded views.
 */
#include "query_int.h"
#include "../format/side.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int mi_query_open(const char *path, mi_query **out, mi_buf *err)
{
	struct stat sb;
	int flags = MI_STORE_RDONLY;
	if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
		flags |= MI_STORE_FILE | MI_STORE_NOLOCK;
	mi_store *st;
	int rc = mi_store_open(path, flags, &st);
	if (rc == MI_ERR_NOINDEX) {
		mi_buf_addf(err, "No index at %s. Run: mcpidx build REPO (the index is written to REPO/.mcpidx)", path);
		return rc;
	}
	if (rc == MI_ERR_VERSION) {
		mi_buf_addf(err, "The index at %s has another format version; this mcpidx reads version %d. "
			    "Rebuild it: mcpidx build --force REPO", path, MI_FORMAT_VERSION);
		return rc;
	}
	if (rc == MI_ERR_DAMAGED || rc == MI_ERR_SYMLINK) {
		/* REPO/.mcpidx names its repository; anything else is an -o folder
		 * or a packed artifact. */
		size_t n = strlen(path);
		mi_buf repo = {0};
		if (n > 8 && !strcmp(path + n - 8, "/.mcpidx"))
			mi_buf_add(&repo, path, n - 8);
		else if (!strcmp(path, ".mcpidx"))
			mi_buf_adds(&repo, ".");
		if (rc == MI_ERR_DAMAGED && repo.len)
			mi_buf_addf(err, "index at %s is truncated or damaged: run mcpidx build --force "
				    "%s (or copy the artifact again)", path, repo.buf);
		else if (rc == MI_ERR_DAMAGED)
			mi_buf_addf(err, "index at %s is truncated or damaged: run mcpidx build --force "
				    "REPO -o %s (or copy the artifact again)", path, path);
		else
			mi_buf_addf(err, "index at %s is a symbolic link: mcpidx does not open an index "
				    "through a link in a repository, which may have come with it (its "
				    "lock file would be written wherever it points). Remove the link, or "
				    "give the index's real folder: mcpidx serve DIR", path);
		mi_buf_release(&repo);
		return rc;
	}
	if (rc == EACCES && !(flags & MI_STORE_NOLOCK)) {
		/* A read-only directory: LMDB cannot create its lock file. */
		rc = mi_store_open(path, flags | MI_STORE_NOLOCK, &st);
	}
	if (rc) {
		mi_buf_addf(err, "Cannot open index %s: %s", path, mi_strerror(rc));
		return rc;
	}
	mi_query *q = mi_xcalloc(1, sizeof(*q));
	q->st = st;
	q->path = mi_xstrdup(path);
	pthread_mutex_init(&q->side_mu, NULL);
	*out = q;
	return 0;
}

void mi_query_close(mi_query *q)
{
	if (!q)
		return;
	mi_store_close(q->st);
	mi_side_close(q->side);
	if (q->blame)
		mi_store_close(q->blame);
	pthread_mutex_destroy(&q->side_mu);
	free(q->path);
	free(q);
}

const char *mi_query_path(const mi_query *q)
{
	return q->path;
}

mi_store *mi_query_store(mi_query *q)
{
	return q->st;
}

int mi_q_fid_path(mi_txn *t, uint32_t file_id, const char **path, size_t *pl)
{
	uint8_t k[4];
	const void *v;
	mi_be32(k, file_id);
	int rc = mi_get(t, MI_DB_FILEIDS, k, 4, &v, pl);
	*path = rc ? NULL : v;
	return rc;
}

char *mi_q_file_path(mi_txn *t, uint32_t file_id)
{
	const char *p;
	size_t pl;
	return mi_q_fid_path(t, file_id, &p, &pl) ? NULL : mi_xstrndup(p, pl);
}

/* Implementation references feed the V* traits lines.  A reference record
 * ends with its kind (a fixint), so the others are skipped undecoded.
 * prefix is "path\0". */
static int load_impl_refs(mi_txn *t, const mi_buf *prefix, mi_parsed *p)
{
	mi_frefs fr;
	const void *v;
	size_t vl;
	int rc = mi_frefs_open(t, prefix->buf, prefix->len - 1, &fr);
	if (rc)
		return rc;
	while (!(rc = mi_frefs_next(&fr, &v, &vl, NULL))) {
		if (((const uint8_t *)v)[vl - 1] != MI_REF_IMPL)
			continue;
		mi_ref *r = mi_parsed_add_ref(p);
		if (mi_ref_decode(v, vl, r, p))
			p->nrefs--;
	}
	return rc == MI_ERR_NOTFOUND ? 0 : rc;
}

/* Languages where a symbol's members all lie inside its span, so its
 * subtree is all an expansion shows.  Not so: Go methods (declared beside
 * their receiver type), Rust and Swift impl/extension blocks, C++ members
 * defined out of class, Kotlin extension functions, Ruby reopened classes. */
static bool subtree_is_whole(int lang)
{
	switch (lang) {
	case MI_LANG_C: case MI_LANG_PYTHON: case MI_LANG_JAVA: case MI_LANG_JAVASCRIPT:
	case MI_LANG_TYPESCRIPT: case MI_LANG_TSX: case MI_LANG_BASH: case MI_LANG_MARKDOWN:
	case MI_LANG_PHP: case MI_LANG_CSHARP:
	case MI_LANG_DEVICETREE: case MI_LANG_YAML: case MI_LANG_JSON: case MI_LANG_CSS:
	case MI_LANG_SCSS: case MI_LANG_HTML: case MI_LANG_XML: case MI_LANG_KCONFIG:
	case MI_LANG_RST: case MI_LANG_LATEX: case MI_LANG_INI: case MI_LANG_PROTO:
	case MI_LANG_TOML: case MI_LANG_SQL: case MI_LANG_MAKE: case MI_LANG_CMAKE:
		return true;
	default:
		return false;
	}
}

/* A growing sorted set of symbol indexes. */
typedef struct idxset {
	uint32_t *v;     /* sorted, unique */
	size_t n, cap;   /* used, allocated */
} idxset;

static void idxset_add(idxset *s, uint32_t x)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->v[mid] == x)
			return;
		if (s->v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = mi_xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof(*s->v));
	s->v[lo] = x;
	s->n++;
}

static int32_t idxset_find(const idxset *s, int32_t x)
{
	size_t lo = 0, hi = s->n;
	while (x >= 0 && lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->v[mid] == (uint32_t)x)
			return (int32_t)mid;
		if (s->v[mid] < (uint32_t)x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * Fast path of expand_at for a selector that names symbols of the file:
 * loads the symbols so named, their ancestors and their descendants only (a
 * large file has thousands of symbols; the answer needs a handful),
 * remapping parent indexes.  Returns MI_ERR_NOTFOUND when the slow path must
 * answer (no such name: it suggests close names from the whole file; or
 * many candidates).  A plain name that several definitions share (or
 * several declarations and no definition) is answered with their list:
 * then no descendants are loaded and *listing is set.
 */
static int load_expand_subset(mi_txn *t, const char *path, uint32_t nsyms,
			      const char *selector, mi_parsed *p, bool *listing)
{
	const char *name = selector;
	const char *dot = strrchr(selector, '.'), *colons = NULL;
	for (const char *c = selector; (c = strstr(c, "::")); c += 2)
		colons = c;
	if (!strncmp(selector, "line:", 5))
		return MI_ERR_NOTFOUND;
	if (colons && (!dot || colons > dot))
		name = colons + 2;
	else if (dot && dot > selector && dot[1])
		name = dot + 1;
	size_t pl = strlen(path);
	mi_buf k = {0}, sk = {0};
	mi_cursor *cur = NULL;
	const void *vp;
	size_t vl;
	idxset want = {0}, cand = {0};
	mi_parsed scratch;
	mi_parsed_init(&scratch);
	mi_byname nit;
	const char *np;
	size_t npl;
	uint32_t ni;
	int rc = mi_names_open(t, name, path, pl, &nit);
	if (rc)
		goto out;
	while (!mi_names_next(&nit, &np, &npl, &ni))
		idxset_add(&cand, ni);
	mi_byname_close(&nit);
	/* Each candidate costs a seek or two and its ancestors' blocks: past
	 * a sixteenth of the file's symbols one pass over all of them is as
	 * quick (a candidate costs about twelve symbols of such a pass). */
	if (!cand.n || cand.n > 512 || cand.n > nsyms / 16) {
		rc = MI_ERR_NOTFOUND;
		goto out;
	}
	rc = 0;
	mi_symbol s;
	/* Each candidate: itself and its ancestors, */
	size_t defs = 0;
	for (size_t c = 0; c < cand.n && !rc; c++) {
		int64_t at = cand.v[c];
		for (int depth = 0; at >= 0 && depth < 256; depth++) {
			if ((rc = mi_syms_get(t, path, pl, (uint32_t)at, &vp, &vl)) ||
			    (rc = mi_symbol_decode(vp, vl, &s, &scratch)))
				break;
			if (!depth)
				defs += s.kind != MI_KIND_PROTOTYPE;
			idxset_add(&want, (uint32_t)at);
			if (s.parent_idx >= at) {
				rc = MI_ERR_CORRUPT;
				break;
			}
			at = s.parent_idx;
		}
	}
	/* then, unless the answer is their list (mi_render_expand: the
	 * definitions, else the declarations), its descendants. */
	*listing = name == selector && cand.n > 1 && defs != 1;
	for (size_t c = 0; c < cand.n && !rc && !*listing; c++) {
		mi_syms si;
		uint32_t at_idx;
		if (rc || (rc = mi_syms_open(t, path, pl, cand.v[c], &si)))
			break;
		uint32_t end_byte = 0;
		bool first = true;
		while (!mi_syms_next(&si, &vp, &vl, &at_idx)) {
			if (mi_symbol_decode(vp, vl, &s, &scratch))
				break;
			if (first)
				end_byte = s.end_byte;
			else if (s.start_byte >= end_byte)
				break;
			first = false;
			idxset_add(&want, at_idx);
		}
		mi_syms_close(&si);
	}
	/* Load them in file order. */
	for (size_t i = 0; i < want.n && !rc; i++) {
		mi_symbol *d = mi_parsed_add_sym(p);
		if ((rc = mi_syms_get(t, path, pl, want.v[i], &vp, &vl)) ||
		    (rc = mi_symbol_decode(vp, vl, d, p)))
			break;
	}
	if (!rc) {
		mi_buf_reset(&sk);
		mi_buf_add(&sk, path, pl);
		mi_buf_addc(&sk, 0);
		rc = load_impl_refs(t, &sk, p);
	}
	/* Remap parents and the implementers of references; references from
	 * outside the subset do not belong to it. */
	for (size_t i = 0; !rc && i < p->nsyms; i++)
		p->syms[i].parent_idx = idxset_find(&want, p->syms[i].parent_idx);
	size_t kept = 0;
	for (size_t i = 0; !rc && i < p->nrefs; i++) {
		p->refs[i].caller_idx = idxset_find(&want, p->refs[i].caller_idx);
		if (p->refs[i].caller_idx >= 0)
			p->refs[kept++] = p->refs[i];
	}
	if (!rc)
		p->nrefs = kept;
out:
	mi_cursor_close(cur);
	free(want.v);
	free(cand.v);
	mi_parsed_release(&scratch);
	mi_buf_release(&k);
	mi_buf_release(&sk);
	return rc;
}

int mi_q_load_sym(mi_txn *t, const char *path, size_t pl, uint32_t idx, mi_symbol *s,
		  mi_parsed *arena)
{
	const void *v;
	size_t vl;
	int rc = mi_syms_get(t, path, pl, idx, &v, &vl);
	if (!rc)
		rc = mi_symbol_decode(v, vl, s, arena);
	return rc;
}

/* Every symbol of the file; prefix is "path\0". */
static int load_all_syms(mi_txn *t, const mi_buf *prefix, mi_parsed *p)
{
	mi_syms it;
	const void *v;
	size_t vl;
	int rc = mi_syms_open(t, prefix->buf, prefix->len - 1, 0, &it);
	while (!rc && !(rc = mi_syms_next(&it, &v, &vl, NULL))) {
		mi_symbol *s = mi_parsed_add_sym(p);
		rc = mi_symbol_decode(v, vl, s, p);
	}
	mi_syms_close(&it);
	return rc == MI_ERR_NOTFOUND ? 0 : rc;
}

/* How much of a file load_file read for a selector. */
enum { LOAD_ALL, LOAD_SUBSET, LOAD_LISTING /* the subset lists candidates */ };

/* mi_q_load_file; src NULL: the source is not read; *subset (when given)
 * tells whether only the selector's symbols were loaded (LOAD_*). */
static int load_file(mi_txn *t, const char *path, const char *selector, mi_file_rec *rec,
		     const char **src, size_t *len, mi_parsed *p, int *subset)
{
	const void *v;
	size_t vl, pl = strlen(path);
	int rc = mi_get(t, MI_DB_FILES, path, pl, &v, &vl);
	if (rc)
		return rc;
	if ((rc = mi_file_decode(v, vl, rec)))
		return rc;
	if (src && (rc = mi_get(t, MI_DB_SRC, path, pl, &v, &vl))) {
		mi_file_rec_release(rec);
		return rc == MI_ERR_NOTFOUND ? MI_ERR_CORRUPT : rc;
	}
	if (src) {
		*src = v;
		*len = vl;
	}
	p->lang = rec->lang;
	for (uint32_t i = 0; i < rec->ndiags; i++) {
		mi_diag *d = mi_parsed_add_diag(p);
		d->line = rec->diags[i].line;
		d->severity = rec->diags[i].severity;
		d->msg = mi_parsed_strndup(p, rec->diags[i].msg, strlen(rec->diags[i].msg));
	}
	bool listing = false;
	if (selector && subtree_is_whole(rec->lang) &&
	    !load_expand_subset(t, path, rec->nsyms, selector, p, &listing)) {
		if (subset)
			*subset = listing ? LOAD_LISTING : LOAD_SUBSET;
		return 0;
	}
	p->nsyms = p->nrefs = 0; /* a subset that could not answer: load it all */
	mi_buf k = {0};
	mi_buf_add(&k, path, pl);
	mi_buf_addc(&k, 0);
	rc = load_all_syms(t, &k, p);
	if (!rc)
		rc = load_impl_refs(t, &k, p);
	mi_buf_release(&k);
	if (rc)
		mi_file_rec_release(rec);
	return rc;
}

int mi_q_load_file(mi_txn *t, const char *path, const char *selector, mi_file_rec *rec,
		   const char **src, size_t *len, mi_parsed *p)
{
	return load_file(t, path, selector, rec, src, len, p, NULL);
}

/* ---- stats ------------------------------------------------------------------------ */

int mi_query_files(mi_query *q, const char *after, size_t limit,
		   mi_query_file_fn fn, void *ctx, bool *more)
{
	mi_txn *t;
	mi_cursor *cur = NULL;
	const void *kp, *vp;
	size_t kl, vl, n = 0, al = after ? strlen(after) : 0;
	int rc = mi_txn_begin(q->st, false, &t), r2;
	*more = false;
	if (rc)
		return rc;
	rc = mi_cursor_open(t, MI_DB_FILES, &cur);
	for (r2 = rc ? rc : mi_cursor_seek(cur, after, al, &kp, &kl, &vp, &vl); !r2;
	     r2 = mi_cursor_next(cur, &kp, &kl, &vp, &vl)) {
		mi_file_rec f;
		if (al && kl == al && memcmp(kp, after, al) == 0)
			continue;   /* the cursor names the last one given */
		if (n == limit) {
			*more = true;
			break;
		}
		if (mi_file_decode(vp, vl, &f))
			continue;
		fn(ctx, kp, kl, f.size, f.lines, f.lang);
		mi_file_rec_release(&f);
		n++;
	}
	if (cur)
		mi_cursor_close(cur);
	mi_txn_abort(t);
	return rc;
}

int mi_query_stats(mi_query *q, mi_out *out)
{
	mi_txn *t;
	mi_out_reset(out);
	int rc = mi_txn_begin(q->st, false, &t);
	if (rc)
		return mi_out_error(out, rc, "Cannot read index %s: %s", q->path, mi_strerror(rc));
	static const char *const ints[] = {"files", "symbols", "refs", "diags", "chunks", "built"};
	int64_t val[6] = {0};
	for (int i = 0; i < 6; i++)
		mi_meta_get_int(t, ints[i], &val[i]);
	char *tool = NULL, *head = NULL, *root = NULL;
	mi_meta_get_str(t, "tool", &tool);
	mi_meta_get_str(t, "head", &head);
	mi_meta_get_str(t, "root", &root);
	/* Files per language. */
	size_t per_lang[MI_LANG__COUNT] = {0};
	mi_cursor *cur;
	if (!mi_cursor_open(t, MI_DB_FILES, &cur)) {
		const void *kp, *vp;
		size_t kl, vl;
		int r2;
		for (r2 = mi_cursor_seek(cur, NULL, 0, &kp, &kl, &vp, &vl); !r2;
		     r2 = mi_cursor_next(cur, &kp, &kl, &vp, &vl)) {
			mi_file_rec f;
			if (!mi_file_decode(vp, vl, &f)) {
				if (f.lang < MI_LANG__COUNT)
					per_lang[f.lang]++;
				mi_file_rec_release(&f);
			}
		}
		mi_cursor_close(cur);
	}
	uint64_t size = mi_store_size(q->st);
	mi_txn_abort(t);

	char when[64] = "";
	time_t bt = (time_t)val[5];
	struct tm tm;
	if (bt && gmtime_r(&bt, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	mi_buf *j = &out->json, *x = &out->text;
	mi_buf_addf(j, "{\"index\":");
	mi_buf_add_json_str(j, q->path, strlen(q->path));
	mi_buf_addf(j, ",\"format_version\":%d,\"tool\":", MI_FORMAT_VERSION);
	mi_buf_add_json_str(j, tool ? tool : "", tool ? strlen(tool) : 0);
	mi_buf_adds(j, ",\"built\":");
	mi_buf_add_json_str(j, when, strlen(when));
	mi_buf_adds(j, ",\"git_head\":");
	mi_buf_add_json_str(j, head ? head : "", head ? strlen(head) : 0);
	mi_buf_adds(j, ",\"root\":");
	mi_buf_add_json_str(j, root ? root : "", root ? strlen(root) : 0);
	mi_buf_addf(j, ",\"files\":%lld,\"symbols\":%lld,\"references\":%lld,"
		    "\"diagnostics\":%lld,\"chunks\":%lld,\"index_bytes\":%llu,\"languages\":{",
		    (long long)val[0], (long long)val[1], (long long)val[2],
		    (long long)val[3], (long long)val[4], (unsigned long long)size);
	mi_buf_addf(x, "index %s (format %d, %s)\nbuilt %s%s%s\n", q->path, MI_FORMAT_VERSION,
		    tool ? tool : "?", when, head && *head ? " at " : "", head ? head : "");
	mi_buf_addf(x, "files %lld  symbols %lld  references %lld  diagnostics %lld  chunks %lld  size %.1f MiB\n",
		    (long long)val[0], (long long)val[1], (long long)val[2],
		    (long long)val[3], (long long)val[4], size / 1048576.0);
	bool first = true;
	for (int i = 0; i < MI_LANG__COUNT; i++) {
		if (!per_lang[i])
			continue;
		mi_buf_addf(j, "%s\"%s\":%zu", first ? "" : ",", mi_lang_name(i), per_lang[i]);
		mi_buf_addf(x, "%s%s %zu", first ? "languages: " : ", ", mi_lang_name(i), per_lang[i]);
		first = false;
	}
	if (!first)
		mi_buf_addc(x, '\n');
	mi_buf_adds(j, "}}");
	free(tool);
	free(head);
	free(root);
	return 0;
}

/* ---- definitions -------------------------------------------------------------------- */

/* A definition found, small: a common name ranks a thousand of them, and
 * only the fifty shown have their symbols read. */
typedef struct def_hit {
	const char *path;  /* in the map (valid while the transaction lasts);
			    * NULL until looked up for a hit shown */
	uint32_t pl;
	uint32_t fid;      /* file id: path order after a fresh build */
	uint32_t idx;      /* symbol index in the file */
	int rank;          /* lower is better */
} def_hit;

static int kind_rank(int kind)
{
	switch (kind) {
	case MI_KIND_CLASS: case MI_KIND_STRUCT: case MI_KIND_TRAIT:
	case MI_KIND_ENUM: case MI_KIND_UNION: return 0;
	case MI_KIND_FUNCTION: case MI_KIND_METHOD: return 1;
	case MI_KIND_MODULE: case MI_KIND_TYPEDEF: return 2;
	case MI_KIND_MACRO: case MI_KIND_CONSTANT: return 3;
	case MI_KIND_VARIABLE: case MI_KIND_FIELD: case MI_KIND_ENUMERATOR: return 4;
	case MI_KIND_PROTOTYPE: return 6;
	default: return 5;
	}
}

int mi_q_def_rank(int kind, int vis, bool testlike)
{
	/* tests and examples last */
	return kind_rank(kind) * 2 + (vis == MI_VIS_PRIVATE) + (testlike ? 20 : 0);
}

/* Rank, then index order (file ids are path order after a fresh build). */
static int cmp_hit(const void *a, const void *b)
{
	const def_hit *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->fid != y->fid)
		return x->fid < y->fid ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The rank of a names entry's kind byte (kind | testlike << 6 | vis << 7). */
static int byte_rank(int b)
{
	return mi_q_def_rank(b & 0x3f, b >> 7, b >> 6 & 1);
}

/* by_rank from counts by kind byte; how many in all. */
static size_t ranks_of(const uint64_t kc[256], size_t by_rank[MI_Q_DEF_RANKS])
{
	size_t n = 0;
	memset(by_rank, 0, MI_Q_DEF_RANKS * sizeof(*by_rank));
	for (int b = 0; b < 256; b++) {
		by_rank[byte_rank(b)] += kc[b];
		n += kc[b];
	}
	return n;
}

size_t mi_q_def_counts(mi_txn *t, const char *name, size_t by_rank[MI_Q_DEF_RANKS])
{
	uint64_t kc[256];
	if (mi_byname_count(t, MI_DB_NAMES, name, kc))
		return 0;
	return ranks_of(kc, by_rank);
}

static void add_hit(def_hit **hits, size_t *nh, size_t *cap, def_hit h)
{
	if (*nh == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*hits = mi_xrealloc(*hits, *cap * sizeof(**hits));
	}
	(*hits)[(*nh)++] = h;
}

/* The definitions of name ranked before last_rank, read from the files
 * the count c lists for their kind bytes (false when it does not list
 * them all, or they are not the before it counts). */
static bool defs_listed(mi_txn *t, const char *name, const mi_name_count *c, int last_rank,
			size_t before, def_hit **hits, size_t *nh, size_t *cap,
			size_t kept[MI_Q_DEF_RANKS])
{
	uint32_t fids[MI_COUNT_FILES * 4];
	size_t nf = 0, met = 0;
	for (int b = 0; b < 256; b++) {
		if (!c->n[b] || byte_rank(b) >= last_rank)
			continue;
		if (!c->listed[b] || nf + c->nfiles[b] > sizeof(fids) / sizeof(fids[0]))
			return false;
		for (unsigned i = 0; i < c->nfiles[b]; i++) {
			size_t j = nf++;
			for (; j && fids[j - 1] > c->files[b][i]; j--) /* ascending */
				fids[j] = fids[j - 1];
			fids[j] = c->files[b][i];
		}
	}
	for (size_t i = 0; i < nf; i++) {
		mi_byname it;
		const char *fp;
		size_t fl;
		uint32_t idx;
		if ((i && fids[i] == fids[i - 1]) || mi_names_open_file(t, name, fids[i], &it))
			continue;
		it.nopath = true;
		while (!mi_names_next(&it, &fp, &fl, &idx)) {
			int rank = mi_q_def_rank(it.kind, it.vis, it.testlike);
			if (rank >= last_rank)
				continue;
			kept[rank]++;
			met++;
			add_hit(hits, nh, cap, (def_hit){.fid = it.fid, .idx = idx, .rank = rank});
		}
		mi_byname_close(&it);
	}
	if (met == before)
		return true;
	*nh = 0; /* the count and the entries disagree: walk them all */
	memset(kept, 0, MI_Q_DEF_RANKS * sizeof(*kept));
	return false;
}

/* Sorts hits by cmp_hit.  They come in index order (a name's entries are
 * read in file id order), so a stable counting sort by rank is the same
 * order, and a tenth of a qsort's time on a thousand; qsort when not. */
static void sort_hits(def_hit *hits, size_t nh)
{
	size_t at[MI_Q_DEF_RANKS + 1] = {0};
	bool ordered = true;
	if (nh < 2)
		return;
	for (size_t i = 0; i < nh && ordered; i++) {
		ordered = hits[i].rank >= 0 && hits[i].rank < MI_Q_DEF_RANKS &&
			  (!i || cmp_hit(&(def_hit){.fid = hits[i - 1].fid, .idx = hits[i - 1].idx},
					 &(def_hit){.fid = hits[i].fid, .idx = hits[i].idx}) <= 0);
		at[ordered ? hits[i].rank + 1 : 0]++;
	}
	if (!ordered) {
		qsort(hits, nh, sizeof(*hits), cmp_hit);
		return;
	}
	for (int r = 0; r < MI_Q_DEF_RANKS; r++)
		at[r + 1] += at[r];
	def_hit *tmp = mi_xmalloc(nh * sizeof(*tmp));
	for (size_t i = 0; i < nh; i++)
		tmp[at[hits[i].rank]++] = hits[i];
	memcpy(hits, tmp, nh * sizeof(*tmp));
	free(tmp);
}

/* Header line(s) of a symbol with its body folded, for definition answers. */
static void folded_symbol(const mi_symbol *s, mi_buf *b)
{
	char mark = mi_kind_mark(s->kind);
	if (mark)
		mi_buf_addf(b, "%c> ", mark);
	mi_buf_adds(b, s->sig[0] ? s->sig : s->name);
	if (s->body_byte)
		mi_buf_adds(b, " { ... }");
}

#define DEF_KEEP 1000           /* definitions ranked for the page */
#define DEF_SCAN 200000         /* names entries counted at most */
#define DEF_SHOW 50             /* definitions shown */

int mi_query_definition(mi_query *q, const char *symbol, const char *path, mi_out *out)
{
	mi_out_reset(out);
	if (!symbol || !*symbol)
		return mi_out_error(out, MI_ERR_ARG, "Missing required argument: symbol");
	/* Accept Parent.name and Parent::name: look the last part up, filter by parent. */
	const char *name = symbol, *parent = NULL;
	size_t parent_len = 0;
	const char *dot = strrchr(symbol, '.'), *colons = NULL;
	for (const char *p = symbol; (p = strstr(p, "::")); p += 2)
		colons = p;
	if (colons && (!dot || colons > dot)) {
		parent = symbol;
		parent_len = (size_t)(colons - symbol);
		name = colons + 2;
	} else if (dot && dot > symbol && dot[1]) {
		parent = symbol;
		parent_len = (size_t)(dot - symbol);
		name = dot + 1;
	}
	mi_buf norm = {0};
	if (path && *path && mi_path_normalize(path, &norm)) {
		mi_buf_release(&norm);
		return mi_out_error(out, MI_ERR_PATH, "Path '%s' is outside the repository: give a repo-relative path such as src/main.c", path);
	}
	mi_txn *t;
	int rc = mi_txn_begin(q->st, false, &t);
	if (rc) {
		mi_buf_release(&norm);
		return mi_out_error(out, rc, "Cannot read index %s: %s", q->path, mi_strerror(rc));
	}
	mi_parsed arena;
	mi_parsed_init(&arena);
	def_hit *hits = NULL;
	mi_symbol shown_sym[DEF_SHOW];
	size_t nh = 0, cap = 0, total = 0, kept[MI_Q_DEF_RANKS] = {0}, nkept = 0;
	int cut = MI_Q_DEF_RANKS;    /* ranks from here on cannot be among the DEF_KEEP best */
	bool damaged = false;
	/* A name with a count entry (defined in many files): how many of
	 * its definitions each rank has is known, so the walk ends once it
	 * has met every definition of the ranks before the last one shown
	 * (last_rank) and enough of that one, and total is the count's.
	 * Those before are few: when the count lists their files they are
	 * read from there, and the walk needs only last_rank's first. */
	size_t by_rank[MI_Q_DEF_RANKS], counted = 0, before = 0, met_before = 0, need = 0;
	int last_rank = MI_Q_DEF_RANKS;
	bool listed = false;
	mi_name_count *nc = !parent && !norm.len ? mi_xmalloc(sizeof(*nc)) : NULL;
	if (nc && !mi_names_count(t, name, nc)) {
		counted = ranks_of(nc->n, by_rank);
		for (int r = 0; r < MI_Q_DEF_RANKS && last_rank == MI_Q_DEF_RANKS; r++) {
			if (before + by_rank[r] >= DEF_SHOW) {
				last_rank = r;
				need = DEF_SHOW - before;
			} else {
				before += by_rank[r];
			}
		}
		listed = before && last_rank < MI_Q_DEF_RANKS &&
			 defs_listed(t, name, nc, last_rank, before, &hits, &nh, &cap, kept);
		if (listed)
			met_before = nkept = before;
	}
	free(nc);
	mi_byname it;
	if (!mi_names_open(t, name, norm.len ? norm.buf : NULL, norm.len, &it)) {
		const char *fp;
		size_t fl;
		uint32_t idx;
		/* Paths are looked up for the hits shown only, unless the
		 * parent filter reads every symbol. */
		it.nopath = !parent;
		while (total < DEF_SCAN && !(last_rank < MI_Q_DEF_RANKS && met_before == before &&
					     kept[last_rank] >= need) &&
		       !mi_names_next(&it, &fp, &fl, &idx)) {
			/* Ranked by the kind the names entry gives; symbols are
			 * read for the parent filter and for the hits shown. */
			mi_symbol s = {0};
			int kind = it.kind, vis = it.vis;
			if (parent) {
				if (mi_q_load_sym(t, fp, fl, idx, &s, &arena)) {
					damaged = true; /* names and symbols disagree */
					continue;
				}
				/* The parent, or its last parts ("Outer.Inner" for
				 * "Inner"): "t.validate_token" is not Account's. */
				size_t pn = strlen(s.parent);
				if (pn < parent_len ||
				    memcmp(s.parent + pn - parent_len, parent, parent_len) ||
				    (pn > parent_len && s.parent[pn - parent_len - 1] != '.' &&
				     s.parent[pn - parent_len - 1] != ':'))
					continue;
				kind = s.kind;
				vis = s.vis;
			}
			/* All are counted; the best DEF_KEEP by rank are kept
			 * (the first 1,000 in path order used to be all that was
			 * ranked: a class named init after them was never shown).
			 * Entries come in path order, so one ranks after every
			 * one kept of its rank or better: it is kept while fewer
			 * than DEF_KEEP are (the worse ones kept are cut after
			 * the sort). */
			int rank = mi_q_def_rank(kind, vis, it.testlike);
			total++;
			if (rank >= cut || rank > last_rank || (listed && rank < last_rank))
				continue;
			met_before += rank < last_rank;
			kept[rank]++;
			if (++nkept >= DEF_KEEP) {
				/* the best rank that DEF_KEEP kept reach */
				size_t a = 0;
				for (cut = 0; cut < MI_Q_DEF_RANKS && (a += kept[cut]) < DEF_KEEP; cut++)
					;
			}
			add_hit(&hits, &nh, &cap, (def_hit){.path = fp, .pl = (uint32_t)fl, .fid = it.fid,
							    .idx = idx, .rank = rank});
		}
		damaged = damaged || it.damaged;
		mi_byname_close(&it);
	}
	if (counted)
		total = counted;
	size_t shown = 0;
	if (!nh && damaged)
		goto damaged;
	sort_hits(hits, nh);
	nh = nh < DEF_KEEP ? nh : DEF_KEEP;
	/* The first DEF_SHOW are shown: read their symbols. */
	for (size_t i = 0; i < nh && shown < DEF_SHOW; i++) {
		size_t pl = hits[i].pl;
		if (!hits[i].path && mi_q_fid_path(t, hits[i].fid, &hits[i].path, &pl)) {
			damaged = true; /* a file id without a path */
			continue;
		}
		hits[i].pl = (uint32_t)pl;
		if (mi_q_load_sym(t, hits[i].path, pl, hits[i].idx, &shown_sym[shown], &arena)) {
			damaged = true; /* names and symbols disagree */
			continue;
		}
		def_hit tmp = hits[shown];
		hits[shown++] = hits[i];
		hits[i] = tmp;
	}
	if (!shown && damaged)
		goto damaged;
	mi_buf *j = &out->json, *x = &out->text;
	mi_buf_adds(j, "{\"definitions\":[");
	for (size_t i = 0; i < shown; i++) {
		mi_symbol *s = &shown_sym[i];
		mi_buf fold = {0};
		folded_symbol(s, &fold);
		if (i)
			mi_buf_addc(j, ',');
		mi_buf_adds(j, "{\"name\":");
		mi_buf_add_json_str(j, s->name, strlen(s->name));
		mi_buf_addf(j, ",\"kind\":\"%s\",\"path\":", mi_kind_name(s->kind));
		mi_buf_add_json_str(j, hits[i].path, hits[i].pl);
		mi_buf_addf(j, ",\"line\":%u,\"end_line\":%u,\"parent\":", s->start_line, s->end_line);
		mi_buf_add_json_str(j, s->parent, strlen(s->parent));
		mi_buf_adds(j, ",\"signature\":");
		mi_buf_add_json_str(j, s->sig, strlen(s->sig));
		mi_buf_adds(j, ",\"text\":");
		mi_buf_add_json_str(j, fold.buf, fold.len);
		mi_buf_addc(j, '}');
		mi_buf_addf(x, "%.*s:%u-%u %s%s%s\n", (int)hits[i].pl, hits[i].path,
			    s->start_line, s->end_line,
			    mi_kind_name(s->kind), s->parent[0] ? " in " : "", s->parent);
		if (s->doc[0]) {
			const char *nl = strchr(s->doc, '\n');
			size_t dl = nl ? (size_t)(nl - s->doc) : strlen(s->doc);
			mi_buf_adds(x, "V* ");
			mi_buf_add(x, s->doc, dl > 200 ? 200 : dl);
			mi_buf_addc(x, '\n');
		}
		mi_buf_add(x, fold.buf, fold.len);
		mi_buf_addc(x, '\n');
		mi_buf_release(&fold);
	}
	mi_buf_addf(j, "],\"total\":%zu}", total);
	if (total > shown)
		mi_buf_addf(x, "V* %s%zu more definitions; pass path to narrow\n",
			    total >= DEF_SCAN && !counted ? "at least " : "", total - shown);
	if (!nh) {
		mi_buf_reset(x);
		size_t sl = mi_utf8_prefix(symbol, strlen(symbol), 200);
		mi_buf_addf(x, "No definition of '%.*s%s'%s%s. Try search_code with a "
			    "description, or check the spelling.", (int)sl, symbol,
			    symbol[sl] ? "..." : "", norm.len ? " in " : "",
			    norm.len ? norm.buf : "");
	}
	goto done;
damaged:
	/* names and symbols disagree, and nothing could be shown */
	rc = mi_out_error(out, MI_ERR_DAMAGED, "Cannot read index %s: %s", q->path,
			  mi_strerror(MI_ERR_DAMAGED));
done:
	free(hits);
	mi_buf_release(&norm);
	mi_parsed_release(&arena);
	mi_txn_abort(t);
	return rc;
}

/* ---- references ---------------------------------------------------------------------- */

/* The text of line n (1-based) of src, trimmed. */
/* Line n of src, trimmed, at most 200 bytes; at is where the line starts
 * when the reference record says so (checked: a line starts there). */
static void line_text(const char *src, size_t len, uint32_t n, uint32_t at, mi_buf *out)
{
	const char *p = src, *end = src + len;
	if (at < len && (at == 0 || src[at - 1] == '\n'))
		p = src + at, n = 1;
	for (uint32_t i = 1; i < n && p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return;
		p = nl + 1;
	}
	const char *e = memchr(p, '\n', (size_t)(end - p));
	if (!e)
		e = end;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	size_t n2 = (size_t)(e - p);
	mi_buf_add(out, p, n2 > 200 ? 200 : n2);
}

/* line_text of path's stored source, unpacking only the frames that hold
 * the line when the record says where it starts; false when the source
 * cannot be read. */
static bool span_line_text(mi_txn *t, const char *path, size_t pl, uint32_t n, uint32_t at,
			   mi_buf *out)
{
	const char *s;
	size_t got, total, from = at ? at - 1 : 0;
	/* First the frame that holds the line's start (mi_src_span gives
	 * its bytes to its end; with the byte before, two frames when the
	 * line starts one): a line seldom runs past it, and a window asked
	 * for across the frame's end would unpack the next too. */
	for (size_t want = 2;; want = want < 512 ? 512 : want * 8) {
		if (mi_src_span(t, path, pl, from, want, &s, &got, &total))
			return false;
		if (at >= total || (at && s[0] != '\n'))
			break; /* not a line start: count lines from the top */
		const char *ls = s + (at - from);
		size_t avail = got - (at - from);
		if (memchr(ls, '\n', avail) || from + got >= total) {
			line_text(ls, avail, 1, 0, out);
			return true;
		}
	}
	const void *sv;
	size_t slen;
	if (mi_get(t, MI_DB_SRC, path, pl, &sv, &slen))
		return false;
	line_text(sv, slen, n, at, out);
	return true;
}

int mi_query_references(mi_query *q, const char *symbol, const char *kind,
			size_t limit, mi_out *out)
{
	return mi_query_references_page(q, symbol, kind, 0, limit, out);
}

/* One reference of a page: where it is, then its caller and line text. */
typedef struct ref_item {
	size_t path;            /* offset of its path in the page's paths */
	size_t pl;
	mi_ref r;
	size_t caller, cl;      /* offsets into a resolver's text */
	size_t line, ll;
	uint8_t cslot, lslot;   /* which resolver's text holds the caller, the line */
} ref_item;

/* The files of a page, shared out between the page's two resolvers as
 * they go: each takes the next file not taken, for callers and then for
 * lines, so one that starts late, or not at all, leaves its share to the
 * other. */
typedef struct ref_work {
	ref_item *items;
	const char *paths;
	size_t *group;          /* first item of each file's run, then n */
	size_t ngroups;
	_Atomic size_t next_caller, next_line;
} ref_work;

/* Resolves the callers and line texts of the files it takes from w, in
 * its own transaction (another thread's, when t is NULL: its snapshot
 * must be the page's, else it takes nothing). */
typedef struct ref_resolver {
	mi_query *q;
	mi_txn *t;              /* the page's transaction; NULL: open one like it */
	mi_txn *page;           /* the page's, to compare snapshots with */
	ref_work *w;
	uint8_t slot;           /* its index */
	mi_buf text;            /* callers and line texts */
} ref_resolver;

static void ref_resolve(void *arg)
{
	ref_resolver *rs = arg;
	ref_work *w = rs->w;
	mi_txn *t = rs->t, *own = NULL;
	if (!t) {
		if (mi_txn_begin(rs->q->st, false, &own))
			return;
		if (!mi_txn_same(own, rs->page)) { /* a build committed meanwhile */
			mi_txn_abort(own);
			return;
		}
		t = own;
	}
	mi_parsed arena;
	mi_parsed_init(&arena);
	mi_buf lt = {0};
	/* Callers first, then lines: each loop unpacks with one database's
	 * dictionary (symbols, then sources; 256 KiB each), which stays in
	 * the cache instead of the two taking turns. */
	for (size_t g; (g = atomic_fetch_add(&w->next_caller, 1)) < w->ngroups;) {
		for (size_t i = w->group[g]; i < w->group[g + 1]; i++) {
			ref_item *it = &w->items[i];
			mi_symbol cs;
			const char *caller = it->r.caller_idx >= 0 &&
				!mi_q_load_sym(t, w->paths + it->path, it->pl,
					       (uint32_t)it->r.caller_idx, &cs, &arena) ? cs.name : "";
			it->caller = rs->text.len;
			it->cl = strlen(caller);
			it->cslot = rs->slot;
			mi_buf_add(&rs->text, caller, it->cl);
		}
	}
	for (size_t g; (g = atomic_fetch_add(&w->next_line, 1)) < w->ngroups;) {
		for (size_t i = w->group[g]; i < w->group[g + 1]; i++) {
			ref_item *it = &w->items[i];
			mi_buf_reset(&lt);
			span_line_text(t, w->paths + it->path, it->pl, it->r.line, it->r.line_byte,
				       &lt);
			it->line = rs->text.len;
			it->ll = lt.len;
			it->lslot = rs->slot;
			mi_buf_add(&rs->text, lt.buf ? lt.buf : "", lt.len);
		}
	}
	mi_buf_release(&lt);
	mi_parsed_release(&arena);
	if (own)
		mi_txn_abort(own);
}

/* A page over this many files has its callers and lines read by two
 * threads (each file's records unpacked by one of them). */
#define REFS_PARALLEL_FILES 8

int mi_query_references_page(mi_query *q, const char *symbol, const char *kind,
			     size_t offset, size_t limit, mi_out *out)
{
	mi_out_reset(out);
	if (!symbol || !*symbol)
		return mi_out_error(out, MI_ERR_ARG, "Missing required argument: symbol");
	bool calls_only = !kind || !strcmp(kind, "calls");
	if (kind && strcmp(kind, "calls") && strcmp(kind, "all"))
		return mi_out_error(out, MI_ERR_ARG, "kind must be \"calls\" or \"all\", not \"%s\"", kind);
	if (!limit)
		limit = 200;
	const char *name = symbol, *dot = strrchr(symbol, '.');
	if (dot && dot[1])
		name = dot + 1;
	mi_txn *t;
	int rc = mi_txn_begin(q->st, false, &t);
	if (rc)
		return mi_out_error(out, rc, "Cannot read index %s: %s", q->path, mi_strerror(rc));
	/* The page's references first (grouped by file), then each one's
	 * caller (one symbol record) and line (the frames of its file's
	 * source that hold it): unpacking those is most of the time, and a
	 * page over many files shares it between two threads. */
	size_t n = 0, total = 0, cap = 0, nfiles = 0;
	ref_item *items = NULL;
	mi_buf paths = {0};
	mi_byname it;
	if (!mi_refs_open(t, name, NULL, 0, &it)) {
		const char *path;
		size_t pl;
		mi_ref r;
		bool counted = false;
		for (;;) {
			/* Past the page only the total is wanted: a common name's
			 * is kept; outside the page no paths are looked up. */
			if (n >= limit && !counted) {
				uint64_t calls, all;
				counted = true;
				if (!mi_refs_count(t, name, &calls, &all)) {
					total = (size_t)(calls_only ? calls : all);
					break;
				}
			}
			it.nopath = total < offset || n >= limit;
			if (mi_refs_next(&it, &path, &pl, &r))
				break;
			if (calls_only && r.kind != MI_REF_CALL)
				continue;
			total++;
			if (total <= offset || n >= limit)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				items = mi_xrealloc(items, cap * sizeof(*items));
			}
			ref_item *ri = &items[n++];
			*ri = (ref_item){.r = r, .pl = pl};
			if (n > 1 && items[n - 2].pl == pl &&
			    !memcmp(paths.buf + items[n - 2].path, path, pl)) {
				ri->path = items[n - 2].path;
			} else {
				ri->path = paths.len;
				mi_buf_add(&paths, path, pl);
				mi_buf_addc(&paths, 0);
				nfiles++;
			}
			ri->r.callee = NULL;
		}
		mi_byname_close(&it);
	}
	ref_work w = {.items = items, .paths = paths.buf,
		      .group = mi_xmalloc((nfiles + 1) * sizeof(*w.group))};
	for (size_t i = 0; i < n; i++)
		if (!i || items[i].path != items[i - 1].path)
			w.group[w.ngroups++] = i;
	w.group[w.ngroups] = n;
	atomic_init(&w.next_caller, 0);
	atomic_init(&w.next_line, 0);
	ref_resolver rs[2] = {
		{.q = q, .t = t, .w = &w, .slot = 0},
		{.q = q, .page = t, .w = &w, .slot = 1},
	};
	bool two = nfiles >= REFS_PARALLEL_FILES && mi_q_pair_start(ref_resolve, &rs[1]);
	ref_resolve(&rs[0]);
	/* The second resolver takes files only once it reads on the page's
	 * snapshot, and the first takes every file the second does not: all
	 * are resolved whether the second ran or not. */
	if (two)
		mi_q_pair_wait();
	free(w.group);
	mi_buf *j = &out->json, *x = &out->text;
	mi_buf_adds(j, "{\"references\":[");
	for (size_t i = 0; i < n; i++) {
		const ref_item *ri = &items[i];
		const char *path = paths.buf + ri->path;
		const char *ct = rs[ri->cslot].text.buf, *lt = rs[ri->lslot].text.buf;
		const char *caller = ct ? ct + ri->caller : "", *line = lt ? lt + ri->line : "";
		if (i)
			mi_buf_addc(j, ',');
		mi_buf_adds(j, "{\"path\":");
		mi_buf_add_json_str(j, path, ri->pl);
		mi_buf_addf(j, ",\"line\":%u,\"caller\":", ri->r.line);
		mi_buf_add_json_str(j, caller, ri->cl);
		mi_buf_addf(j, ",\"kind\":\"%s\",\"text\":",
			    ri->r.kind == MI_REF_CALL ? "call" : ri->r.kind == MI_REF_IMPORT ? "import" :
			    ri->r.kind == MI_REF_IMPL ? "impl" : ri->r.kind == MI_REF_VALUE ? "value" : "type");
		mi_buf_add_json_str(j, line, ri->ll);
		mi_buf_addc(j, '}');
		mi_buf_addf(x, "%.*s:%u%s%.*s\n", (int)ri->pl, path, ri->r.line, ri->cl ? " in " : "",
			    (int)ri->cl, caller);
		if (ri->ll) {
			mi_buf_adds(x, "  ");
			mi_buf_add(x, line, ri->ll);
			mi_buf_addc(x, '\n');
		}
	}
	mi_buf_addf(j, "],\"total\":%zu}", total);
	if (total > offset + n)
		mi_buf_addf(x, "V* %zu more references; call again with offset %zu (or raise "
			    "limit) to see them\n", total - offset - n, offset + n);
	if (!total) {
		mi_buf_reset(x);
		mi_buf_addf(x, "No %s of '%s' in the index.", calls_only ? "calls" : "references", symbol);
	}
	mi_buf_release(&rs[0].text);
	mi_buf_release(&rs[1].text);
	mi_buf_release(&paths);
	free(items);
	mi_txn_abort(t);
	return 0;
}

/* ---- folded views over the index ---------------------------------------------------- */

/* Checks path, normalizes it into norm and opens the read transaction *t. */
static int view_begin(mi_query *q, const char *path, mi_out *out, mi_txn **t, mi_buf *norm)
{
	if (!path || !*path)
		return mi_out_error(out, MI_ERR_ARG, "Missing required argument: path");
	if (mi_path_normalize(path, norm))
		return mi_out_error(out, MI_ERR_PATH, "Path '%s' is outside the repository: give a "
				    "repo-relative path such as src/main.c (no '..', not absolute)", path);
	int rc = mi_txn_begin(q->st, false, t);
	if (rc)
		return mi_out_error(out, rc, "Cannot read index %s: %s", q->path, mi_strerror(rc));
	return 0;
}

/* Loads the file norm names inside *t; on failure ends *t and says why
 * (a directory, a path not in the index, a damaged record). */
static int view_load(const char *selector, mi_out *out, mi_txn **t,
		     mi_file_rec *rec, const char **src, size_t *len, mi_parsed *p,
		     const mi_buf *norm, int *subset)
{
	int rc = load_file(*t, norm->buf, selector, rec, src, len, p, subset);
	if (rc == MI_ERR_NOTFOUND) {
		/* A directory? list what it holds. */
		mi_cursor *cur;
		const void *kp, *vp;
		size_t kl, vl;
		mi_buf pre = {0};
		mi_buf_add(&pre, norm->buf, norm->len);
		mi_buf_addc(&pre, '/');
		bool dir = false;
		if (!mi_cursor_open(*t, MI_DB_FILES, &cur)) {
			dir = !mi_cursor_seek(cur, pre.buf, pre.len, &kp, &kl, &vp, &vl) &&
			      kl > pre.len && !memcmp(kp, pre.buf, pre.len);
			mi_cursor_close(cur);
		}
		mi_buf_release(&pre);
		mi_txn_abort(*t);
		*t = NULL;
		if (dir)
			return mi_out_error(out, MI_ERR_ARG, "'%s' is a directory: give a file path "
					    "(search_code with path_filter lists its contents)", norm->buf);
		return mi_out_error(out, rc, "'%s' is not in the index. Check the path (repo-relative), "
				    "or rebuild: mcpidx build REPO", norm->buf);
	}
	if (rc) {
		mi_txn_abort(*t);
		*t = NULL;
		return mi_out_error(out, rc, "Cannot read '%s' from the index: %s", norm->buf, mi_strerror(rc));
	}
	return 0;
}

/* With coverage asked for and no lcov file given, look for one where
 * coverage tools write it, in the repo root the index was built from. */
static char *find_lcov(mi_txn *t)
{
	char *root = NULL, *found;
	if (mi_meta_get_str(t, "root", &root))
		return NULL;
	found = mi_lcov_find(root, root);
	free(root);
	return found;
}

/* read_file from the stored outline when it is exactly what o asks for
 * (and was rendered by this renderer): true when out holds the answer. */
static bool stored_outline(mi_txn *t, const mi_buf *norm, const mi_view_opts *o, mi_out *out)
{
	const void *v;
	size_t vl;
	int64_t view = 0;
	mi_outline_rec r;
	if (mi_meta_get_int(t, "view", &view) || view != MI_VIEW_VERSION ||
	    mi_get(t, MI_DB_OUTLINES, norm->buf, norm->len, &v, &vl) ||
	    mi_outline_decode(v, vl, &r) || !mi_outline_serves(&r, o))
		return false;
	mi_outline_answer(norm->buf, &r, out);
	return true;
}

int mi_query_read_file(mi_query *q, const char *path, const mi_view_opts *o, mi_out *out)
{
	static const mi_view_opts defaults;
	mi_txn *t = NULL;
	mi_file_rec rec;
	const char *src;
	size_t len;
	mi_parsed p;
	mi_buf norm = {0};
	mi_out_reset(out);
	mi_parsed_init(&p);
	int rc = view_begin(q, path, out, &t, &norm);
	/* a compile's diagnostics are not in the stored outline */
	bool compiled = !rc && mi_q_has_compile_diags(q, norm.buf);
	if (!rc && !compiled && stored_outline(t, &norm, o ? o : &defaults, out)) {
		mi_txn_abort(t);
		goto done;
	}
	if (!rc)
		rc = view_load(NULL, out, &t, &rec, &src, &len, &p, &norm, NULL);
	if (!rc) {
		mi_view_opts vo = o ? *o : (mi_view_opts){0};
		char *lcov = NULL;
		if (vo.coverage && !vo.lcov_path)
			vo.lcov_path = lcov = find_lcov(t);
		if (compiled)
			mi_q_compile_diags(q, norm.buf, rec.hash, &p);
		char **notes = vo.xrefs ? mi_q_xrefs(t, norm.buf, &p) : NULL;
		if (vo.blame)
			rc = mi_q_blame(q, norm.buf, rec.hash, &p, &notes, out);
		vo.notes = (const char *const *)notes;
		if (!rc)
			rc = mi_render_view(norm.buf, src, len, &p, &vo, out);
		mi_q_xrefs_free(notes, p.nsyms);
		free(lcov);
		mi_file_rec_release(&rec);
		mi_txn_abort(t);
	}
done:
	mi_parsed_release(&p);
	mi_buf_release(&norm);
	return rc;
}

/*
 * When the symbols loaded for an expansion (a subset of a large file's) lie
 * in a small part of it, the frames of the source that hold them are enough:
 * fills *buf (the file's length, the rest left zero) and w with the lines
 * from the first symbol's to the last one's.  A list of candidates (listing)
 * is drawn from their records: the first one's line is enough, and a
 * rendering that reads another line asks for the whole source.  False: read
 * the whole source.
 */
static bool expand_window(mi_txn *t, const char *path, const mi_file_rec *rec,
			  const mi_parsed *p, bool listing, mi_src_window *w, char **buf)
{
	size_t size = rec->size, from = SIZE_MAX, to = 0, pl = strlen(path);
	uint32_t line0 = 0;
	if (size <= 2 * MI_SRC_FRAME || !p->nsyms)
		return false;
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		if (s->start_byte > s->end_byte || s->end_byte > size || !s->start_line)
			return false;
		if (listing && i)
			continue;
		if (s->start_byte < from) {
			from = s->start_byte;
			line0 = s->start_line;
		}
		if (s->end_byte > to)
			to = listing ? s->start_byte + 1 : s->end_byte;
	}
	if (to - from > size / 4)
		return false;
	char *b = mi_xcalloc(size + 1, 1);
	size_t a = from ? from - 1 : 0, z = to + 1, fa, fb, ls, le;
	for (;;) {
		if (mi_src_fill(t, path, pl, a, z, b, size, &fa, &fb)) {
			free(b);
			return false;
		}
		/* from back to its line's start, the last byte on to its line's end */
		for (ls = from; ls > fa && b[ls - 1] != '\n'; ls--)
			;
		for (le = to ? to - 1 : 0; le < fb && b[le] != '\n'; le++)
			;
		bool start = ls == 0 || ls > fa, end = le < fb || fb == size;
		if (start && end)
			break;
		if (!start)
			a = fa - 1;
		if (!end)
			z = fb + 1;
	}
	*w = (mi_src_window){.from = ls, .to = le < size ? le + 1 : size, .line0 = line0,
			     .nlines = rec->lines};
	*buf = b;
	return true;
}

int mi_query_expand(mi_query *q, const char *path, const char *selector,
		    const char *what, const mi_view_opts *o, mi_out *out)
{
	mi_txn *t = NULL;
	mi_file_rec rec;
	const char *src;
	size_t len;
	mi_parsed p;
	mi_buf norm = {0};
	int rc;
	mi_out_reset(out);
	if (!selector || !*selector)
		return mi_out_error(out, MI_ERR_ARG, "Missing required argument: selector "
				    "(a symbol name, Parent.name or line:N)");
	mi_parsed_init(&p);
	rc = view_begin(q, path, out, &t, &norm);
	int subset = LOAD_ALL;
	if (!rc)
		rc = view_load(selector, out, &t, &rec, o && o->coverage ? &src : NULL, &len, &p,
			       &norm, &subset);
	if (!rc) {
again:
		mi_q_compile_diags(q, norm.buf, rec.hash, &p);
		mi_view_opts wo = o ? *o : (mi_view_opts){0};
		mi_src_window w;
		char *part = NULL;
		if (!(o && o->coverage) && subset &&
		    expand_window(t, norm.buf, &rec, &p, subset == LOAD_LISTING, &w, &part)) {
			wo.window = &w;
			rc = mi_render_expand(norm.buf, part, rec.size, &p, selector, what, &wo, out);
			free(part);
			if (!w.short_of_lines)
				goto rendered;
			mi_out_reset(out);
		}
		wo.window = NULL;
		if (!(o && o->coverage)) {
			const void *sv;
			if ((rc = mi_get(t, MI_DB_SRC, norm.buf, norm.len, &sv, &len))) {
				rc = mi_out_error(out, rc == MI_ERR_NOTFOUND ? MI_ERR_CORRUPT : rc,
						  "Cannot read '%s' from the index: %s", norm.buf,
						  mi_strerror(rc == MI_ERR_NOTFOUND ? MI_ERR_CORRUPT : rc));
				goto rendered;
			}
			src = sv;
		}
		rc = mi_render_expand(norm.buf, src, len, &p, selector, what, &wo, out);
rendered:
		if (rc == MI_ERR_NOTFOUND && subset != LOAD_ALL) {
			/* Not among the symbols of that name (Parent.NAME with
			 * another parent): the close names come from the whole file. */
			mi_file_rec_release(&rec);
			mi_parsed_release(&p);
			mi_parsed_init(&p);
			subset = LOAD_ALL;
			rc = load_file(t, norm.buf, NULL, &rec, o && o->coverage ? &src : NULL, &len, &p,
				       NULL);
			if (!rc) {
				mi_out_reset(out);
				goto again;
			}
			rc = mi_out_error(out, rc, "Cannot read '%s' from the index: %s", norm.buf,
					  mi_strerror(rc));
		} else {
			mi_file_rec_release(&rec);
		}
		mi_txn_abort(t);
	}
	mi_parsed_release(&p);
	mi_buf_release(&norm);
	return rc;
}
