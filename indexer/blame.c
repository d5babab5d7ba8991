/*
 * blame.c - `mcpidx build --blame`: the last commit (abbreviated hash,
 * author, author date) of every symbol of every indexed file, from one
 * `git blame --porcelain` per file, kept beside the index (format.h
 * "blame").  A symbol's last commit is the newest author date among the
 * commits of its lines; lines not committed yet make it "uncommitted".
 * Files whose content hash is the one their record was computed for are
 * not blamed again, records of files no longer indexed are dropped.  Git
 * runs as a child process with an argv, never a shell, and only at build
 * time: readers never run it.
 */
#include "indexer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLAME_MAX_OUT (256u << 20)  /* bytes of git output read per file */

/* One commit seen in a file's blame. */
typedef struct commit {
	char sha[41];
	char *author;    /* owned */
	int64_t time;    /* author time, seconds */
} commit;

typedef struct blame {
	commit *c;
	size_t nc, capc;
	uint32_t *line;  /* final line (1-based) -> commit index + 1, 0 = none */
	size_t nlines, capl;
} blame;

static void blame_release(blame *b)
{
	for (size_t i = 0; i < b->nc; i++)
		free(b->c[i].author);
	free(b->c);
	free(b->line);
}

static size_t commit_of(blame *b, const char *sha)
{
	for (size_t i = b->nc; i-- > 0;)
		if (!memcmp(b->c[i].sha, sha, 40))
			return i;
	if (b->nc == b->capc) {
		b->capc = b->capc ? b->capc * 2 : 16;
		b->c = mi_xrealloc(b->c, b->capc * sizeof(*b->c));
	}
	commit *c = &b->c[b->nc];
	memcpy(c->sha, sha, 40);
	c->sha[40] = 0;
	c->author = NULL;
	c->time = 0;
	return b->nc++;
}

static bool is_hex40(const char *s, size_t n)
{
	if (n < 40)
		return false;
	for (int i = 0; i < 40; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return n == 40 || s[40] == ' ';
}

/* Parses `git blame --porcelain` output into b. */
static void parse_porcelain(char *s, size_t len, blame *b)
{
	size_t cur = 0;
	bool have = false;
	char *end = s + len;
	for (char *p = s; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n && p[0] == '\t') {
			/* a content line: nothing to read */
		} else if (is_hex40(p, n)) {
			unsigned long orig = 0, final = 0, count = 1;
			char tmp[96];
			size_t m = n < sizeof tmp - 1 ? n : sizeof tmp - 1;
			memcpy(tmp, p, m);
			tmp[m] = 0;
			int k = sscanf(tmp + 40, "%lu %lu %lu", &orig, &final, &count);
			cur = commit_of(b, p);
			have = true;
			if (k >= 2 && final > 0 && final < (1ul << 24)) {
				if (final > b->capl) {
					size_t cap = b->capl ? b->capl : 256;
					while (cap < final)
						cap *= 2;
					b->line = mi_xrealloc(b->line, (cap + 1) * sizeof(*b->line));
					memset(b->line + b->capl, 0, (cap + 1 - b->capl) * sizeof(*b->line));
					b->capl = cap;
				}
				b->line[final] = (uint32_t)cur + 1;
				if (final > b->nlines)
					b->nlines = final;
			}
		} else if (have && n > 7 && !strncmp(p, "author ", 7) && !b->c[cur].author) {
			b->c[cur].author = mi_xstrndup(p + 7, n - 7);
		} else if (have && n > 12 && !strncmp(p, "author-time ", 12)) {
			b->c[cur].time = strtoll(p + 12, NULL, 10);
		}
		p += n + 1;
	}
}

/* Keeps a field free of the record's separators. */
static void add_field(mi_buf *out, const char *s)
{
	for (; s && *s; s++)
		mi_buf_addc(out, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* The record of one file: its hash, then a line per symbol with lines. */
static int blame_file(mi_txn *t, const char *root, const char *path, size_t pl,
		      const uint8_t hash[16], mi_buf *rec, size_t *nsyms)
{
	const char *argv[] = { "git", "blame", "--porcelain", "--", path, NULL };
	mi_buf out = {0}, prefix = {0};
	blame b = {0};
	char hex[33];
	int rc = mi_run_git(root, argv, BLAME_MAX_OUT, &out);
	mi_hash_hex(hash, hex);
	mi_buf_add(rec, hex, 32);
	mi_buf_addc(rec, '\n');
	if (rc) {
		/* not tracked by git (or not blameable): a record without symbols */
		mi_buf_release(&out);
		return 0;
	}
	parse_porcelain(out.buf, out.len, &b);
	mi_buf_add(&prefix, path, pl);
	mi_buf_addc(&prefix, 0);
	mi_syms si;
	const void *vp;
	size_t vl;
	uint32_t idx;
	if ((rc = mi_syms_open(t, path, pl, 0, &si)))
		goto out;
	while (!mi_syms_next(&si, &vp, &vl, &idx)) {
		mi_parsed arena;
		mi_symbol s;
		mi_parsed_init(&arena);
		if (mi_symbol_decode(vp, vl, &s, &arena)) {
			mi_parsed_release(&arena);
			continue;
		}
		long best = -1;
		bool uncommitted = false;
		for (uint32_t l = s.start_line; l && l <= s.end_line && l <= b.nlines; l++) {
			uint32_t ci = b.line[l];
			if (!ci)
				continue;
			commit *c = &b.c[ci - 1];
			if (!strncmp(c->sha, "0000000000", 10))
				uncommitted = true;
			else if (best < 0 || c->time > b.c[best].time)
				best = (long)(ci - 1);
		}
		if (uncommitted) {
			mi_buf_addf(rec, "%u\tuncommitted\t\t\n", idx);
			++*nsyms;
		} else if (best >= 0) {
			commit *c = &b.c[best];
			char date[16] = "";
			time_t tt = (time_t)c->time;
			struct tm tm;
			if (gmtime_r(&tt, &tm))
				strftime(date, sizeof date, "%Y-%m-%d", &tm);
			mi_buf_addf(rec, "%u\t%.7s\t", idx, c->sha);
			add_field(rec, c->author);
			mi_buf_addf(rec, "\t%s\n", date);
			++*nsyms;
		}
		mi_parsed_release(&arena);
	}
	mi_syms_close(&si);
out:
	blame_release(&b);
	mi_buf_release(&out);
	mi_buf_release(&prefix);
	return rc;
}

/* The paths of the blame store and their hashes (first record line). */
typedef struct known {
	char *path;
	char hex[33];
	bool seen;
} known;

static int known_cmp(const void *a, const void *b)
{
	return strcmp(((const known *)a)->path, ((const known *)b)->path);
}

static int make_dir(const char *dir)
{
	return mkdir(dir, 0755) == 0 || errno == EEXIST ? 0 : errno;
}

/* The records to put (path \0 value), in a buffer. */
typedef struct pending {
	mi_buf keys, vals;       /* concatenated */
	size_t *kl, *vl;
	size_t n, cap;
} pending;

static void pending_add(pending *p, const char *k, size_t kl, const mi_buf *v)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->kl = mi_xrealloc(p->kl, p->cap * sizeof(*p->kl));
		p->vl = mi_xrealloc(p->vl, p->cap * sizeof(*p->vl));
	}
	mi_buf_add(&p->keys, k, kl);
	mi_buf_add(&p->vals, v->buf, v->len);
	p->kl[p->n] = kl;
	p->vl[p->n] = v->len;
	p->n++;
}

int mi_blame_build(const char *index_path, mi_blame_stats *bs, mi_buf *err)
{
	mi_store *st = NULL, *bst = NULL;
	mi_txn *t = NULL, *bt = NULL;
	char *root = NULL, *bdir = NULL;
	known *kn = NULL;
	size_t nk = 0, capk = 0;
	pending pend = {0};
	int rc;
	memset(bs, 0, sizeof(*bs));
	if ((rc = mi_store_open(index_path, MI_STORE_RDONLY, &st))) {
		mi_buf_addf(err, "cannot open the index %s: %s", index_path, mi_strerror(rc));
		goto out;
	}
	if ((rc = mi_txn_begin(st, false, &t)))
		goto fail_read;
	if (mi_meta_get_str(t, "root", &root) || !root) {
		rc = MI_ERR_NOTFOUND;
		mi_buf_addf(err, "the index does not say which repository it was built from");
		goto out;
	}
	{
		const char *argv[] = { "git", "rev-parse", "--is-inside-work-tree", NULL };
		mi_buf o = {0};
		rc = mi_run_git(root, argv, BLAME_MAX_OUT, &o);
		mi_buf_release(&o);
		if (rc) {
			mi_buf_addf(err, "--blame needs git: %s is not a git checkout (or git is "
				    "not installed)", root);
			goto out;
		}
	}
	bdir = mi_blame_locate(index_path);
	if (!bdir || (rc = make_dir(bdir)) ||
	    (rc = mi_store_open_dbs(bdir, MI_STORE_CREATE, mi_blame_dbs, 1, &bst))) {
		if (!rc)
			rc = MI_ERR_NOTFOUND;
		mi_buf_addf(err, "cannot open the blame store %s: %s", bdir ? bdir : index_path,
			    mi_strerror(rc));
		goto out;
	}
	/* what the blame store already holds */
	if ((rc = mi_txn_begin(bst, false, &bt)))
		goto fail_read;
	{
		mi_cursor *c;
		const void *kp, *vp;
		size_t kl, vl;
		if (!mi_cursor_open(bt, 0, &c)) {
			for (int r = mi_cursor_seek(c, NULL, 0, &kp, &kl, &vp, &vl); !r;
			     r = mi_cursor_next(c, &kp, &kl, &vp, &vl)) {
				if (nk == capk) {
					capk = capk ? capk * 2 : 64;
					kn = mi_xrealloc(kn, capk * sizeof(*kn));
				}
				kn[nk].path = mi_xstrndup(kp, kl);
				memset(kn[nk].hex, 0, sizeof kn[nk].hex);
				if (vl >= 32)
					memcpy(kn[nk].hex, vp, 32);
				kn[nk].seen = false;
				nk++;
			}
			mi_cursor_close(c);
		}
		mi_txn_abort(bt);
		bt = NULL;
	}
	if (nk)
		qsort(kn, nk, sizeof(*kn), known_cmp);
	/* every indexed file */
	{
		mi_cursor *c;
		const void *kp, *vp;
		size_t kl, vl;
		if ((rc = mi_cursor_open(t, MI_DB_FILES, &c)))
			goto fail_read;
		for (int r = mi_cursor_seek(c, NULL, 0, &kp, &kl, &vp, &vl); !r;
		     r = mi_cursor_next(c, &kp, &kl, &vp, &vl)) {
			mi_file_rec f;
			char hex[33];
			if (mi_file_decode(vp, vl, &f))
				continue;
			mi_hash_hex(f.hash, hex);
			char *path = mi_xstrndup(kp, kl);
			known key = { .path = path };
			known *k = nk ? bsearch(&key, kn, nk, sizeof(*kn), known_cmp) : NULL;
			if (k)
				k->seen = true;
			if (k && !memcmp(k->hex, hex, 32)) {
				bs->unchanged++;
			} else {
				mi_buf rec = {0};
				size_t ns = 0;
				rc = blame_file(t, root, path, kl, f.hash, &rec, &ns);
				if (!rc) {
					pending_add(&pend, path, kl, &rec);
					bs->files++;
					bs->symbols += ns;
				}
				mi_buf_release(&rec);
			}
			free(path);
			mi_file_rec_release(&f);
			if (rc) {
				mi_cursor_close(c);
				goto fail_read;
			}
		}
		mi_cursor_close(c);
	}
	/* one write: new records in, records of files gone out */
	if ((rc = mi_txn_begin(bst, true, &bt)))
		goto fail_write;
	for (size_t i = 0, ko = 0, vo = 0; i < pend.n; i++) {
		if ((rc = mi_put(bt, 0, pend.keys.buf + ko, pend.kl[i], pend.vals.buf + vo,
				 pend.vl[i])))
			goto fail_write;
		ko += pend.kl[i];
		vo += pend.vl[i];
	}
	for (size_t i = 0; i < nk; i++)
		if (!kn[i].seen) {
			if ((rc = mi_del(bt, 0, kn[i].path, strlen(kn[i].path))))
				goto fail_write;
			bs->removed++;
		}
	rc = mi_txn_commit(bt);
	bt = NULL;
	if (rc)
		goto fail_write;
	goto out;
fail_read:
	mi_buf_addf(err, "cannot read the index %s: %s", index_path, mi_strerror(rc));
	goto out;
fail_write:
	mi_buf_addf(err, "cannot write the blame store %s: %s", bdir, mi_strerror(rc));
out:
	if (bt)
		mi_txn_abort(bt);
	if (t)
		mi_txn_abort(t);
	if (bst)
		mi_store_close(bst);
	if (st)
		mi_store_close(st);
	for (size_t i = 0; i < nk; i++)
		free(kn[i].path);
	free(kn);
	mi_buf_release(&pend.keys);
	mi_buf_release(&pend.vals);
	free(pend.kl);
	free(pend.vl);
	free(root);
	free(bdir);
	return rc;
}
