/*
 * diff.c - diff mode: the symbols changed since the index was built (the
 * working tree against the indexed sources) or since a git revision
 * (`REV` against the working tree, `A..B` between two revisions), each as
 * its folded outline line marked `+` added, `-` removed or `~` changed
 * (`~F> def total() { ... }  shop/cart.py:25`).  Symbols are matched by
 * kind, parent, name and rank among namesakes; a function is changed when
 * its text is, a class or module when its signature is (its members answer
 * for its body).  Git runs as a child process with an argv, never a shell.
 */
#include "query_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIFF_MAX_OUT (64u << 20)  /* bytes of git output read */
#define DIFF_MAX_FILES 5000u      /* files with changes looked at */
#define DIFF_MAX_FILE (1u << 20)  /* a working-tree file read: the build's size cap */

enum { CH_ADDED, CH_REMOVED, CH_CHANGED };
static const char ch_mark[] = { '+', '-', '~' };
static const char *const ch_name[] = { "added", "removed", "changed" };

/* One version of a file: its text and its symbols. */
typedef struct fver {
	char *text;      /* owned (NULL: the file does not exist there) */
	size_t len;
	mi_parsed p;     /* symbols */
	bool parsed;
} fver;

static void fver_release(fver *v)
{
	free(v->text);
	mi_parsed_release(&v->p);
}

/* Reads the working tree's root/path when it is a regular file inside root,
 * as a build would index it (mi_read_file_beneath): a link (or a folder
 * link on the way) leading out of the repository, a FIFO or a device is
 * not read (a link to /dev/zero or a FIFO would never end) and counts as
 * absent.  One over the size cap is not read either: false (the file is
 * left out, as the build leaves it out). */
static bool read_worktree(const char *root, int rootfd, const char *path, fver *v)
{
	char *text;
	size_t len;
	int rc = mi_read_file_beneath(root, rootfd, path, DIFF_MAX_FILE, &text, &len);
	if (rc == MI_ERR_TOOBIG)
		return false;
	if (!rc) {
		v->text = text;
		v->len = len;
	}
	return true;
}

/* Reads `rev:path` (rev NULL: the working tree under root, rootfd it
 * opened or -1); false when the working tree's file is over the size cap. */
static bool read_version(const char *root, int rootfd, const char *rev, const char *path,
			 fver *v)
{
	memset(v, 0, sizeof(*v));
	mi_parsed_init(&v->p);
	if (!rev)
		return read_worktree(root, rootfd, path, v);
	mi_buf spec = {0}, out = {0};
	mi_buf_addf(&spec, "%s:./%s", rev, path);  /* ./: from root, not git's top */
	const char *argv[] = { "git", "show", spec.buf, NULL };
	if (!mi_run_git(root, argv, DIFF_MAX_OUT, &out)) {
		v->len = out.len;
		v->text = out.buf ? mi_buf_detach(&out) : mi_xstrdup("");
	}
	mi_buf_release(&out);
	mi_buf_release(&spec);
	return true;
}

static bool shown_kind(int kind)
{
	return mi_kind_mark(kind) != 0;
}

static bool container(int kind)
{
	return kind == MI_KIND_CLASS || kind == MI_KIND_STRUCT || kind == MI_KIND_UNION ||
	       kind == MI_KIND_ENUM || kind == MI_KIND_TRAIT || kind == MI_KIND_MODULE;
}

/* Whether two symbols are the same one in two versions: kind, name, parent
 * and rank among the symbols of the same kind, name and parent.  Each
 * version's symbols are sorted once by that key (namesakes in file order),
 * so a match is a binary search, not a scan of every symbol per symbol. */
typedef struct skey {
	const mi_symbol *s;
	size_t i;        /* index in the version's symbols */
} skey;

typedef struct sindex {
	skey *v;         /* sorted by key, then i */
	uint32_t *rank;  /* rank[i]: among namesakes before i */
	size_t n;
} sindex;

static int key_cmp(const mi_symbol *x, const mi_symbol *y)
{
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	int r = strcmp(x->parent ? x->parent : "", y->parent ? y->parent : "");
	return r ? r : strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static int skey_cmp(const void *a, const void *b)
{
	const skey *x = a, *y = b;
	int r = key_cmp(x->s, y->s);
	return r ? r : x->i < y->i ? -1 : x->i > y->i;
}

static void sindex_build(sindex *x, const mi_parsed *p)
{
	x->n = p->nsyms;
	x->v = mi_xmalloc((x->n ? x->n : 1) * sizeof(*x->v));
	x->rank = mi_xmalloc((x->n ? x->n : 1) * sizeof(*x->rank));
	for (size_t i = 0; i < x->n; i++)
		x->v[i] = (skey){&p->syms[i], i};
	if (x->n)
		qsort(x->v, x->n, sizeof(*x->v), skey_cmp);
	for (size_t k = 0, r = 0; k < x->n; k++) {
		r = k && !key_cmp(x->v[k - 1].s, x->v[k].s) ? r + 1 : 0;
		x->rank[x->v[k].i] = (uint32_t)r;
	}
}

static void sindex_release(sindex *x)
{
	free(x->v);
	free(x->rank);
}

/* The symbol of b that is symbol i of a (ai: a's index), or -1. */
static long match(const mi_parsed *a, const sindex *ai, size_t i, const sindex *bi)
{
	const mi_symbol *s = &a->syms[i];
	size_t lo = 0, hi = bi->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (key_cmp(bi->v[mid].s, s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	lo += ai->rank[i];
	return lo < bi->n && !key_cmp(bi->v[lo].s, s) ? (long)bi->v[lo].i : -1;
}

static bool same_text(const fver *a, const mi_symbol *x, const fver *b, const mi_symbol *y, bool sig_only)
{
	if (sig_only)
		return !strcmp(x->sig ? x->sig : "", y->sig ? y->sig : "");
	size_t la = x->end_byte > x->start_byte && x->end_byte <= a->len ? x->end_byte - x->start_byte : 0;
	size_t lb = y->end_byte > y->start_byte && y->end_byte <= b->len ? y->end_byte - y->start_byte : 0;
	return la == lb && !memcmp(a->text + x->start_byte, b->text + y->start_byte, la);
}

typedef struct change {
	int what;        /* CH_* */
	char *path;      /* owned */
	char *name;      /* owned */
	char *parent;    /* owned */
	int kind;
	uint32_t line;   /* in the version it is shown from */
	char *text;      /* folded line with its mark, owned */
} change;

typedef struct changes {
	change *v;
	size_t n, cap;
} changes;

/* lv: the version's line view, made at its first line and kept for the
 * rest (one per line made the diff quadratic in the symbols). */
static void add_change(changes *c, int what, const char *path, const fver *v,
		       mi_line_view **lv, size_t i, const mi_diff_opts *o)
{
	static const mi_view_opts uni = {.unicode = true};
	const mi_symbol *s = &v->p.syms[i];
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 32;
		c->v = mi_xrealloc(c->v, c->cap * sizeof(*c->v));
	}
	change *x = &c->v[c->n++];
	x->what = what;
	x->path = mi_xstrdup(path);
	x->name = mi_xstrdup(s->name ? s->name : "");
	x->parent = mi_xstrdup(s->parent ? s->parent : "");
	x->kind = s->kind;
	x->line = s->start_line;
	mi_buf b = {0};
	if (o->unicode && what == CH_CHANGED)
		mi_buf_adds(&b, "\xc2\xb1");  /* ± */
	else
		mi_buf_addc(&b, ch_mark[what]);
	if (!*lv)
		*lv = mi_line_view_new(path, v->text ? v->text : "", v->len, &v->p,
				       o->unicode ? &uni : NULL);
	mi_line_view_put(*lv, i, &b);
	if (b.len && b.buf[b.len - 1] == '\n')
		b.len--;
	mi_buf_addf(&b, "  %s:%u", path, s->start_line);
	if (s->parent && *s->parent)
		mi_buf_addf(&b, " in %s", s->parent);
	mi_buf_addc(&b, '\n');
	x->text = mi_buf_detach(&b);
}

/* The changes between two versions of one file. */
static void diff_file(const char *path, const fver *old, const fver *new, changes *c,
		      const mi_diff_opts *o)
{
	const mi_parsed *a = &old->p, *b = &new->p;
	sindex ai, bi;
	mi_line_view *av = NULL, *bv = NULL;  /* made at the first line */
	sindex_build(&ai, a);
	sindex_build(&bi, b);
	/* file order of the new version, removed ones where they were */
	for (size_t i = 0; i < a->nsyms; i++)
		if (shown_kind(a->syms[i].kind) && (!new->text || match(a, &ai, i, &bi) < 0))
			add_change(c, CH_REMOVED, path, old, &av, i, o);
	for (size_t j = 0; new->text && j < b->nsyms; j++) {
		const mi_symbol *y = &b->syms[j];
		if (!shown_kind(y->kind))
			continue;
		long i = old->text ? match(b, &bi, j, &ai) : -1;
		if (i < 0)
			add_change(c, CH_ADDED, path, new, &bv, j, o);
		else if (!same_text(old, &a->syms[i], new, y, container(y->kind)))
			add_change(c, CH_CHANGED, path, new, &bv, j, o);
	}
	mi_line_view_free(av);
	mi_line_view_free(bv);
	sindex_release(&ai);
	sindex_release(&bi);
}

static int change_cmp(const void *x, const void *y)
{
	const change *a = x, *b = y;
	int r = strcmp(a->path, b->path);
	if (r)
		return r;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->what - b->what;
}

/* The paths git says differ: REV against the working tree, or A..B;
 * relative to root and only under it (root may be a folder of a larger
 * checkout, whose top git's paths would otherwise start from). */
static int git_paths(const char *root, const char *since, mi_buf *out)
{
	const char *dots = strstr(since, "..");
	if (dots) {
		char *a = mi_xstrndup(since, (size_t)(dots - since));
		const char *argv[] = { "git", "diff", "--name-only", "--no-renames", "--relative", a,
				       dots + 2, "--", NULL };
		int rc = mi_run_git(root, argv, DIFF_MAX_OUT, out);
		free(a);
		return rc;
	}
	const char *argv[] = { "git", "diff", "--name-only", "--no-renames", "--relative", since,
			       "--", NULL };
	return mi_run_git(root, argv, DIFF_MAX_OUT, out);
}

/* Appends the working tree's untracked, not ignored files (nothing when
 * root is not a git checkout). */
static void add_untracked(const char *root, mi_buf *paths)
{
	const char *argv[] = { "git", "ls-files", "--others", "--exclude-standard", NULL };
	mi_buf more = {0};
	if (!mi_run_git(root, argv, DIFF_MAX_OUT, &more) && more.len) {
		if (paths->len && paths->buf[paths->len - 1] != '\n')
			mi_buf_addc(paths, '\n');
		mi_buf_add(paths, more.buf, more.len);
	}
	mi_buf_release(&more);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the lines of paths and drops repeats. */
static void sort_unique(mi_buf *paths)
{
	size_t n = 0, cap = 0;
	char **v = NULL;
	mi_buf out = {0};
	for (char *line = paths->buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = memchr(line, '\n', paths->len - (size_t)(line - paths->buf));
		if (nl)
			*nl = 0;
		if (!*line)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = mi_xrealloc(v, cap * sizeof(*v));
		}
		v[n++] = line;
		if (!nl)
			break;
	}
	if (n)
		qsort(v, n, sizeof(*v), str_cmp);
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(v[i], v[i - 1]))
			mi_buf_addf(&out, "%s\n", v[i]);
	free(v);
	mi_buf_release(paths);
	*paths = out;
}

/* Whether since is one revision or A..B (A...B) that git reads as such:
 * no side may start with '-' (git takes "HEAD..--output=F" as HEAD and an
 * option, and writes F) nor hold a blank. */
static bool since_ok(const char *since)
{
	/* ':' names a tree or a path in one (HEAD:src): git diff takes it,
	 * then no file is found in it and every symbol reads as added */
	if (since[0] == '-' || strpbrk(since, " \t\r\n:"))
		return false;
	for (const char *p = since; (p = strstr(p, ".."));) {
		while (*p == '.')
			p++;
		if (*p == '-')
			return false;
	}
	return true;
}

int mi_query_changed(mi_query *q, const mi_diff_opts *o, mi_out *out)
{
	mi_out_reset(out);
	if (!o || !o->parse || !o->detect)
		return mi_out_error(out, MI_ERR_ARG, "diff mode needs a parser: this front end has none");
	const char *since = o->since && *o->since ? o->since : NULL;
	if (since && !since_ok(since))
		return mi_out_error(out, MI_ERR_ARG, "since must be a git revision (HEAD~1, a tag, "
				    "A..B), not '%.200s%s'", since, strlen(since) > 200 ? "..." : "");
	mi_txn *t;
	int rc = mi_txn_begin(q->st, false, &t);
	if (rc)
		return mi_out_error(out, rc, "Cannot read index %s: %s", q->path, mi_strerror(rc));
	char *root = NULL;
	int rootfd = -1;
	mi_buf paths = {0}, norm = {0};
	changes c = {0};
	size_t nfiles = 0, unread = 0;
	if (mi_meta_get_str(t, "root", &root) || !root) {
		rc = mi_out_error(out, MI_ERR_NOTFOUND, "The index does not say which repository it "
				  "was built from; rebuild it: mcpidx build REPO");
		goto out_free;
	}
	if (o->path && *o->path && mi_path_normalize(o->path, &norm)) {
		rc = mi_out_error(out, MI_ERR_PATH, "Path '%s' is outside the repository", o->path);
		goto out_free;
	}
	/* the files to look at, one per line */
	if (since) {
		if (git_paths(root, since, &paths)) {
			rc = mi_out_error(out, MI_ERR_ARG, "git does not know revision '%s' in %s "
					  "(or %s is not a git checkout)", since, root, root);
			goto out_free;
		}
	} else {
		mi_cursor *cur;
		const void *kp, *vp;
		size_t kl, vl;
		if (!mi_cursor_open(t, MI_DB_FILES, &cur)) {
			for (int r = mi_cursor_seek(cur, NULL, 0, &kp, &kl, &vp, &vl); !r;
			     r = mi_cursor_next(cur, &kp, &kl, &vp, &vl)) {
				mi_buf_add(&paths, kp, kl);
				mi_buf_addc(&paths, '\n');
			}
			mi_cursor_close(cur);
		}
	}
	/* new files git does not track yet exist only in the working tree */
	if (!since || !strstr(since, ".."))
		add_untracked(root, &paths);
	sort_unique(&paths);
	rootfd = mi_dir_open(root); /* -1: files are read by path */
	const char *rev_old = NULL, *rev_new = NULL;
	char *a_rev = NULL;
	if (since) {
		const char *dots = strstr(since, "..");
		if (dots) {
			a_rev = mi_xstrndup(since, (size_t)(dots - since));
			rev_old = a_rev;
			rev_new = dots + 2;
		} else {
			rev_old = since;
		}
	}
	for (char *line = paths.buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (!*line || (norm.len && strcmp(line, norm.buf)))
			continue;
		int lang = o->detect(line);
		if (lang == MI_LANG_NONE)
			continue;
		/* past the cap the rest is only counted, and said */
		if (nfiles >= DIFF_MAX_FILES) {
			unread++;
			continue;
		}
		if (o->indexable && !o->indexable(root, line))
			continue;
		fver old, new;
		if (!read_version(root, rootfd, rev_new, line, &new)) {
			fver_release(&new);
			continue;
		}
		if (since) {
			read_version(root, rootfd, rev_old, line, &old);
			if (old.text)
				old.parsed = !o->parse(lang, old.text, old.len, &old.p);
		} else {
			/* the indexed version: its stored source and symbols */
			mi_file_rec rec;
			const char *src;
			size_t len;
			memset(&old, 0, sizeof(old));
			mi_parsed_init(&old.p);
			if (!mi_q_load_file(t, line, NULL, &rec, &src, &len, &old.p)) {
				uint8_t h[16];
				if (new.text) {
					mi_hash128(new.text, new.len, h);
					if (!memcmp(h, rec.hash, 16)) {
						mi_file_rec_release(&rec);
						fver_release(&old);
						fver_release(&new);
						continue;
					}
				}
				old.text = mi_xstrndup(src, len);
				old.len = len;
				old.parsed = true;
				mi_file_rec_release(&rec);
			}
		}
		if (new.text)
			new.parsed = !o->parse(lang, new.text, new.len, &new.p);
		if ((old.text && !old.parsed) || (new.text && !new.parsed) || (!old.text && !new.text)) {
			fver_release(&old);
			fver_release(&new);
			continue;
		}
		size_t before = c.n;
		diff_file(line, &old, &new, &c, o);
		nfiles += c.n > before;
		fver_release(&old);
		fver_release(&new);
	}
	free(a_rev);
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), change_cmp);

	for (size_t i = 0; o->targets && i < c.n; i++)
		if (c.v[i].what != CH_REMOVED)
			mi_buf_addf(o->targets, "%s\t%s\t%s\n", c.v[i].path, c.v[i].parent, c.v[i].name);
	mi_buf *x = &out->text, *j = &out->json;
	size_t count[3] = {0};
	for (size_t i = 0; i < c.n; i++) {
		mi_buf_adds(x, c.v[i].text);
		count[c.v[i].what]++;
	}
	mi_buf_addf(x, "%s %zu changed symbol%s in %zu file%s since %s: %zu added, %zu removed, "
		    "%zu changed\n", o->unicode ? "V\xe2\x80\xa2" : "V*", c.n, c.n == 1 ? "" : "s", nfiles, nfiles == 1 ? "" : "s",
		    since ? since : "the index was built", count[CH_ADDED], count[CH_REMOVED],
		    count[CH_CHANGED]);
	if (unread)
		mi_buf_addf(x, "%s [cut: diff mode stops after %u files with changes; %zu more "
			    "file%s not compared: narrow it with path or since A..B]\n",
			    o->unicode ? "V\xe2\x80\xa2" : "V*", DIFF_MAX_FILES, unread,
			    unread == 1 ? " was" : "s were");
	if (o->unread)
		*o->unread = unread;
	mi_buf_adds(j, "{\"since\":");
	if (since)
		mi_buf_add_json_str(j, since, strlen(since));
	else
		mi_buf_adds(j, "null");
	mi_buf_adds(j, ",\"changed\":[");
	for (size_t i = 0; i < c.n; i++) {
		change *e = &c.v[i];
		mi_buf_addf(j, "%s{\"change\":\"%s\",\"name\":", i ? "," : "", ch_name[e->what]);
		mi_buf_add_json_str(j, e->name, strlen(e->name));
		mi_buf_addf(j, ",\"kind\":\"%s\",\"parent\":", mi_kind_name(e->kind));
		mi_buf_add_json_str(j, e->parent, strlen(e->parent));
		mi_buf_adds(j, ",\"path\":");
		mi_buf_add_json_str(j, e->path, strlen(e->path));
		size_t tl = strlen(e->text);
		mi_buf_addf(j, ",\"line\":%u,\"text\":", e->line);
		mi_buf_add_json_str(j, e->text, tl && e->text[tl - 1] == '\n' ? tl - 1 : tl);
		mi_buf_addc(j, '}');
	}
	mi_buf_addf(j, "],\"total\":%zu,\"files\":%zu,", c.n, nfiles);
	if (unread)
		mi_buf_addf(j, "\"truncated\":true,\"files_not_compared\":%zu,", unread);
	mi_buf_adds(j, "\"text\":");
	mi_buf_add_json_str(j, mi_buf_str(x), x->len);
	mi_buf_addc(j, '}');
	rc = 0;
out_free:
	for (size_t i = 0; i < c.n; i++) {
		free(c.v[i].path);
		free(c.v[i].name);
		free(c.v[i].parent);
		free(c.v[i].text);
	}
	free(c.v);
	free(root);
	if (rootfd >= 0)
		close(rootfd);
	mi_buf_release(&paths);
	mi_buf_release(&norm);
	mi_txn_abort(t);
	return rc;
}
