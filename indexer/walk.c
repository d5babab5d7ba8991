/*
 * walk.c - lists the files of a repository that are to be indexed,
 * honouring .gitignore (nested), .git/info/exclude and .mcpidxignore, and
 * counting every skipped file by reason.
 */
#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Directory names that hold vendored or generated trees. */
static const char *const vendored_dirs[] = {
	"node_modules", "bower_components", "vendor", "third_party",
	"__pycache__", ".tox", ".mypy_cache", ".pytest_cache",
	".gradle", ".idea", ".cache", NULL,
};

/* Names a Python virtual environment usually has; an older virtualenv is
 * known by its activate script there. */
static const char *const venv_names[] = {".venv", "venv", "env", ".env", "virtualenv", NULL};

static const char *const vcs_dirs[] = {".git", ".hg", ".svn", ".mcpidx", NULL};

static bool in_names(const char *const *names, const char *name)
{
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

void mi_walk_skip_add(mi_walk *w, int reason, const char *path, bool is_dir)
{
	w->skipped[reason]++;
	if (!w->list)
		return;
	if (w->nskips == w->capskips) {
		w->capskips = w->capskips ? w->capskips * 2 : 256;
		w->skips = mi_xrealloc(w->skips, w->capskips * sizeof(*w->skips));
	}
	mi_buf b = {0};
	mi_buf_adds(&b, *path ? path : ".");
	if (is_dir)
		mi_buf_addc(&b, '/');
	w->skips[w->nskips].path = mi_buf_detach(&b);
	w->skips[w->nskips++].reason = reason;
}

/* A Python virtual environment, whatever its name: it holds pyvenv.cfg
 * (PEP 405), or, named like one, an activate script.  A folder merely named
 * venv is code (the standard library has a venv package). */
static bool is_virtualenv(const char *abs, const char *name)
{
	static const char *const marks[] = {"bin/activate", "Scripts/activate", NULL};
	char p[PATH_MAX];
	/* a path cut to PATH_MAX may name the folder itself, which exists */
	if ((size_t)snprintf(p, sizeof(p), "%s/pyvenv.cfg", abs) < sizeof(p) &&
	    access(p, F_OK) == 0)
		return true;
	if (!in_names(venv_names, name))
		return false;
	for (size_t i = 0; marks[i]; i++)
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", abs, marks[i]) < sizeof(p) &&
		    access(p, F_OK) == 0)
			return true;
	return false;
}

static void add_entry(mi_walk *w, const char *rel, const struct stat *st, int lang)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 1024;
		w->files = mi_xrealloc(w->files, w->cap * sizeof(*w->files));
	}
	mi_walk_file *f = &w->files[w->n++];
	f->path = mi_xstrdup(rel);
	f->size = (uint64_t)st->st_size;
	f->mtime_ns = (int64_t)MI_ST_MTIM(st).tv_sec * 1000000000ll + MI_ST_MTIM(st).tv_nsec;
	f->lang = lang;
}

/* Pushes the ignore files of folder dir (relative to root, "" the root). */
static void wk_push_folder(mi_ignore *ig, const char *root, const char *dir)
{
	static const char *const names[] = {".gitignore", ".mcpidxignore"};
	char f[PATH_MAX];
	for (size_t k = 0; k < 2; k++) {
		if ((size_t)snprintf(f, sizeof(f), "%s%s%s/%s", root, *dir ? "/" : "", dir,
				     names[k]) < sizeof(f))
			mi_ignore_push_file(ig, dir, f);
	}
}

static mi_ignore *wk_ignore(const mi_walk *w, const char *rel);

/*
 * Decides the folders on the way to path (relative to root) as walk_dir
 * decides each: false when one is a VCS folder or, with ignore files
 * (ig non-NULL, holding the rules in force at the root), ignored or
 * vendored (node_modules, vendor, a virtualenv, a CACHEDIR.TAG cache) and
 * not named back in.  ig then holds the rules in force for path's own
 * name.  Its buffers are on the heap: this runs inside the walk's
 * recursion (a link's target), where a frame of PATH_MAX buffers per level
 * overflowed the stack of a tree 256 folders deep.
 */
static bool wk_folders_pass(const char *root, const char *path, mi_ignore *ig)
{
	struct { char dir[PATH_MAX], abs[PATH_MAX], tag[PATH_MAX]; } *b =
		mi_xmalloc(sizeof(*b));
	bool pass = true;
	for (const char *sl = path; pass && (sl = strchr(sl, '/')); sl++) {
		size_t i = (size_t)(sl - path);
		if (i >= PATH_MAX ||
		    (size_t)snprintf(b->abs, PATH_MAX, "%s/%.*s", root, (int)i, path) >= PATH_MAX ||
		    (size_t)snprintf(b->tag, PATH_MAX, "%s/CACHEDIR.TAG", b->abs) >= PATH_MAX) {
			pass = false;
			break;
		}
		memcpy(b->dir, path, i);
		b->dir[i] = 0;
		const char *name = strrchr(b->dir, '/');
		name = name ? name + 1 : b->dir;
		if (in_names(vcs_dirs, name)) {
			pass = false;
			break;
		}
		if (!ig)
			continue;
		int verdict = mi_ignore_decide(ig, b->dir, true);
		if (verdict == 1 || (verdict != 0 && (in_names(vendored_dirs, name) ||
						      access(b->tag, F_OK) == 0 ||
						      is_virtualenv(b->abs, name)))) {
			pass = false;
			break;
		}
		wk_push_folder(ig, root, b->dir);
	}
	free(b);
	return pass;
}

/* The rules in force at the root: .git/info/exclude and the root's own
 * ignore files. */
static mi_ignore *wk_root_ignore(const char *root)
{
	char f[PATH_MAX];
	mi_ignore *ig = mi_ignore_new();
	snprintf(f, sizeof(f), "%s/.git/info/exclude", root);
	mi_ignore_push_file(ig, "", f);
	wk_push_folder(ig, root, "");
	return ig;
}

/*
 * Would the walk leave out the file real (absolute, real, inside the
 * root) found through a link?  A target in a VCS folder (.git/config holds
 * credentials), in the index folder, or ignored (with every ignore file
 * above it, not those of the link's folder) is refused like a link out.
 */
static bool link_target_refused(const mi_walk *w, const char *real)
{
	if (w->index_dir && mi_path_below(w->index_dir, real))
		return true;
	const char *trel = mi_path_below(w->root, real);
	const char *name = strrchr(trel, '/');
	if (in_names(vcs_dirs, name ? name + 1 : trel))
		return true;
	mi_ignore *ig = w->no_ignore ? NULL : wk_root_ignore(w->root);
	bool refused = !wk_folders_pass(w->root, trel, ig) ||
		       (ig && mi_ignore_decide(ig, trel, false) == 1);
	mi_ignore_free(ig);
	return refused;
}

/*
 * The parallel walk.  Directories down to WK_SPLIT levels below the root are
 * units any thread may take; a deeper one is walked by the thread that found
 * it.  A unit keeps its own results and, for each of its folders that became
 * a unit, how many of its files and skips came before it; mi_walk_run joins
 * them in the order one thread walking depth first would have listed them.
 */
#define WK_SPLIT 2

typedef struct wk_unit wk_unit;
typedef struct wk_kid {
	size_t nfiles, nskips;   /* the parent's results before this folder */
	wk_unit *u;
} wk_kid;
struct wk_unit {
	char *rel;               /* repo-relative folder; owned */
	int depth;               /* 0 for the root */
	mi_walk out;             /* what was found in it (not below its kids) */
	wk_kid *kids;
	size_t nkids, capkids;
};
typedef struct wk_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	wk_unit **q;             /* units waiting for a thread */
	size_t nq, capq;
	size_t busy;             /* units being walked */
	const mi_walk *w;        /* the caller's options */
} wk_pool;

/* Where walk_dir puts a folder that is to be a unit of its own. */
typedef struct wk_split {
	wk_pool *pool;
	wk_unit *unit;           /* the unit being walked */
} wk_split;

/* A unit for folder rel: the walk's options, no results yet. */
static wk_unit *wk_unit_new(const mi_walk *w, const char *rel, int depth)
{
	wk_unit *u = mi_xcalloc(1, sizeof(*u));
	u->rel = mi_xstrdup(rel);
	u->depth = depth;
	u->out = (mi_walk){.root = w->root, .index_dir = w->index_dir, .max_size = w->max_size,
			   .no_ignore = w->no_ignore, .list = w->list};
	return u;
}

static void wk_enqueue(wk_split *sp, const char *rel)
{
	wk_unit *parent = sp->unit;
	wk_unit *u = wk_unit_new(sp->pool->w, rel, parent->depth + 1);
	if (parent->nkids == parent->capkids) {
		parent->capkids = parent->capkids ? 2 * parent->capkids : 16;
		parent->kids = mi_xrealloc(parent->kids, parent->capkids * sizeof(*parent->kids));
	}
	parent->kids[parent->nkids++] = (wk_kid){parent->out.n, parent->out.nskips, u};
	wk_pool *p = sp->pool;
	pthread_mutex_lock(&p->mu);
	if (p->nq == p->capq) {
		p->capq = p->capq ? 2 * p->capq : 64;
		p->q = mi_xrealloc(p->q, p->capq * sizeof(*p->q));
	}
	p->q[p->nq++] = u;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* out = dir "/" name (dir "" : name alone), PATH_MAX bytes at most: false
 * when longer (out then holds as much as fits). */
static bool wk_path(char *out, const char *dir, size_t dl, const char *name, size_t nl)
{
	size_t at = 0;
	if (dl) {
		if (dl >= PATH_MAX - 1)
			dl = PATH_MAX - 2;
		memcpy(out, dir, dl);
		out[dl] = '/';
		at = dl + 1;
	}
	bool fits = at + nl < PATH_MAX;
	if (!fits)
		nl = PATH_MAX - 1 - at;
	memcpy(out + at, name, nl);
	out[at + nl] = 0;
	return fits;
}

/* A folder's entry as readdir gives it; sorted by mi_walk_cmp (name first). */
typedef struct wk_name {
	char *name;
	unsigned char type;        /* d_type: DT_UNKNOWN when the file system does not say */
} wk_name;

/* What a folder's entry is: its stat (or its type alone) and language. */
typedef struct wk_stat {
	struct stat st;
	int lang;                  /* -1: not looked at by name */
	bool stated;
} wk_stat;

#define WK_DENTS (32u << 10)      /* bytes of entries read at once */

/* One entry of a folder, its name an offset into text for now. */
static void wk_list_add(wk_name **v, size_t *n, size_t *cap, mi_buf *text, const char *name,
			unsigned char type)
{
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = mi_xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*n)++] = (wk_name){(char *)(uintptr_t)text->len, type};
	mi_buf_add(text, name, strlen(name) + 1);
}

/* Appends the entries of folder fd but . and .. to *v (each name an
 * offset into text until the caller makes it a pointer); their count. */
static size_t wk_list(mi_walk *w, int fd, wk_name **v, mi_buf *text)
{
	size_t n = 0, cap = 0;
#ifdef __linux__
	/* getdents64 into the walk's own buffer (opendir allocates one for
	 * each folder). */
	if (!w->dents)
		w->dents = mi_xmalloc(WK_DENTS);
	ssize_t got;
	while ((got = getdents64(fd, w->dents, WK_DENTS)) > 0)
		for (ssize_t off = 0; off < got;) {
			const struct dirent64 *de = (const struct dirent64 *)(w->dents + off);
			off += de->d_reclen;
			wk_list_add(v, &n, &cap, text, de->d_name, de->d_type);
		}
#else
	(void)w;
	int dfd = dup(fd);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	struct dirent *de;
	while ((de = readdir(d)))
		wk_list_add(v, &n, &cap, text, de->d_name, de->d_type);
	closedir(d);
#endif
	return n;
}

static void walk_dir(mi_walk *w, mi_ignore *ig, const char *rel, int depth, wk_split *sp)
{
	char abs[PATH_MAX];
	if ((size_t)snprintf(abs, sizeof(abs), "%s%s%s", w->root, *rel ? "/" : "", rel) >= sizeof(abs))
		return;
	if (!w->no_ignore) {
		mi_ignore_pop_to(ig, rel);
		wk_push_folder(ig, w->root, rel);
	}
	int fd = open(abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		mi_walk_skip_add(w, MI_SKIP_UNREADABLE, rel, true);
		return;
	}
	size_t absl = strlen(abs), rell = strlen(rel);
	/* Sorted names (deterministic ids and output), with their types; the
	 * names themselves in one block (a malloc for each was a tenth of a
	 * warm walk's time). */
	mi_buf text = {0};
	wk_name *names = NULL;
	size_t nn = wk_list(w, fd, &names, &text);
	for (size_t i = 0; i < nn; i++)
		names[i].name = text.buf + (size_t)names[i].name;
	if (nn)
		qsort(names, nn, sizeof(*names), mi_walk_cmp);
	/* Each entry is looked at relative to the directory, not by its
	 * whole path (the kernel walks every component of an absolute path
	 * again: on a tree of 78,000 files that was most of an update's
	 * time); one directory stays open at a time.  What the directory
	 * says is a folder, or a file of no language we read, needs no
	 * stat: only its type is used. */
	wk_stat *sts = mi_xmalloc((nn ? nn : 1) * sizeof(*sts));
	for (size_t i = 0; i < nn; i++) {
		/* (a language is told by the file's name alone) */
		sts[i].lang = names[i].type == DT_REG ? mi_lang_detect(names[i].name) : -1;
		if (names[i].type == DT_DIR || sts[i].lang == MI_LANG_NONE) {
			memset(&sts[i].st, 0, sizeof(sts[i].st));
			sts[i].st.st_mode = names[i].type == DT_DIR ? S_IFDIR : S_IFREG;
			sts[i].stated = true;
			continue;
		}
		sts[i].stated = fstatat(fd, names[i].name, &sts[i].st, AT_SYMLINK_NOFOLLOW) == 0;
	}
	close(fd);
	for (size_t i = 0; i < nn; i++) {
		const char *name = names[i].name;
		char crel[PATH_MAX], cabs[PATH_MAX];
		size_t nl = strlen(name);
		bool fits = wk_path(crel, rel, rell, name, nl);
		/* the absolute path, for links and folders only */
		if (fits && absl + 1 + nl >= sizeof(cabs))
			fits = false;
		else if (fits && names[i].type != DT_REG)
			wk_path(cabs, abs, absl, name, nl);
		if (!fits) {
			mi_walk_skip_add(w, MI_SKIP_UNREADABLE, crel, false);
			continue;
		}
		struct stat st = sts[i].st;
		if (!sts[i].stated) {
			mi_walk_skip_add(w, MI_SKIP_UNREADABLE, crel, false);
			continue;
		}
		bool link = S_ISLNK(st.st_mode);
		if (link) {
			char real[PATH_MAX];
			if (!realpath(cabs, real) || stat(real, &st) < 0) {
				mi_walk_skip_add(w, MI_SKIP_UNREADABLE, crel, false);
				continue;
			}
			/* Links leaving the root, links to directories (loops),
			 * and links to what the walk leaves out are not followed. */
			if (!mi_path_below(w->root, real) || S_ISDIR(st.st_mode) ||
			    link_target_refused(w, real)) {
				mi_walk_skip_add(w, MI_SKIP_SYMLINK, crel, false);
				continue;
			}
		}
		if (S_ISDIR(st.st_mode)) {
			if (in_names(vcs_dirs, name))
				continue;
			if (w->index_dir && !strcmp(cabs, w->index_dir))
				continue;
			int verdict = w->no_ignore ? -1 : mi_ignore_decide(ig, crel, true);
			if (verdict == 1) {
				mi_walk_skip_add(w, MI_SKIP_IGNORED, crel, true);
				continue;
			}
			/* The vendored heuristics yield to an explicit negation
			 * ("!venv/") and to --no-ignore. */
			char tag[PATH_MAX];
			bool tag_fits = (size_t)snprintf(tag, sizeof(tag), "%s/CACHEDIR.TAG",
							 cabs) < sizeof(tag);
			if (verdict != 0 && !w->no_ignore &&
			    (in_names(vendored_dirs, name) || (tag_fits && access(tag, F_OK) == 0) ||
			     is_virtualenv(cabs, name))) {
				mi_walk_skip_add(w, MI_SKIP_VENDORED, crel, true);
				continue;
			}
			/* (walk_dir's depth cap is past it: each level is 2 bytes or more) */
			if (strlen(crel) > MI_WALK_MAX_PATH || depth >= 256) {
				mi_walk_skip_add(w, MI_SKIP_TOOLONG, crel, true);
				continue;
			}
			if (sp && depth < WK_SPLIT) {
				wk_enqueue(sp, crel);
				continue;
			}
			walk_dir(w, ig, crel, depth + 1, NULL);
			if (!w->no_ignore)
				mi_ignore_pop_to(ig, rel);
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			/* a FIFO, socket or device: never opened, but counted */
			mi_walk_skip_add(w, MI_SKIP_UNREADABLE, crel, false);
			continue;
		}
		int verdict = w->no_ignore ? -1 : mi_ignore_decide(ig, crel, false);
		if (verdict == 1) {
			mi_walk_skip_add(w, MI_SKIP_IGNORED, crel, false);
			continue;
		}
		/* Minified files are skipped; generated code (*.pb.go, *_pb2.py)
		 * is indexed for its definitions and ranked low by search. */
		if (verdict != 0 && !w->no_ignore &&
		    (has_suffix(name, ".min.js") || has_suffix(name, ".min.css"))) {
			mi_walk_skip_add(w, MI_SKIP_VENDORED, crel, false);
			continue;
		}
		if (strlen(crel) > MI_WALK_MAX_PATH) {
			mi_walk_skip_add(w, MI_SKIP_TOOLONG, crel, false);
			continue;
		}
		int lang = sts[i].lang >= 0 ? sts[i].lang : mi_lang_detect(crel);
		if (lang == MI_LANG_NONE) {
			mi_walk_skip_add(w, MI_SKIP_UNKNOWN, crel, false);
			continue;
		}
		if ((uint64_t)st.st_size > w->max_size) {
			mi_walk_skip_add(w, MI_SKIP_TOOBIG, crel, false);
			continue;
		}
		add_entry(w, crel, &st, lang);
	}
	free(names);
	free(sts);
	mi_buf_release(&text);
}

int mi_walk_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The ignore rules in force inside folder rel, before its own files: those
 * of .git/info/exclude and of every folder above it. */
static mi_ignore *wk_ignore(const mi_walk *w, const char *rel)
{
	mi_ignore *ig = mi_ignore_new();
	if (w->no_ignore)
		return ig;
	char f[PATH_MAX], dir[PATH_MAX];
	snprintf(f, sizeof(f), "%s/.git/info/exclude", w->root);
	mi_ignore_push_file(ig, "", f);
	if (!*rel)
		return ig;
	size_t n = strlen(rel);
	for (size_t i = 0; i <= n; i++) {
		if (i && rel[i] != '/' && rel[i])
			continue;
		if (i == n)
			break; /* rel's own: walk_dir reads them */
		memcpy(dir, rel, i);
		dir[i] = 0;
		wk_push_folder(ig, w->root, dir);
	}
	return ig;
}

static void *wk_thread(void *arg)
{
	wk_pool *p = arg;
	char *dents = NULL;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->nq && p->busy)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->nq)
			break;
		wk_unit *u = p->q[--p->nq];
		p->busy++;
		pthread_mutex_unlock(&p->mu);
		mi_ignore *ig = wk_ignore(p->w, u->rel);
		wk_split sp = {p, u};
		u->out.dents = dents; /* the thread's, not the unit's */
		walk_dir(&u->out, ig, u->rel, u->depth, u->depth < WK_SPLIT ? &sp : NULL);
		dents = u->out.dents;
		u->out.dents = NULL;
		mi_ignore_free(ig);
		pthread_mutex_lock(&p->mu);
		p->busy--;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	free(dents);
	return NULL;
}

static void wk_grow(void **v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return;
	while (*cap < need)
		*cap = *cap ? 2 * *cap : 1024;
	*v = mi_xrealloc(*v, *cap * size);
}

/* Appends u's results and its kids' to w in depth-first order; frees u. */
static void wk_join(mi_walk *w, wk_unit *u)
{
	size_t fi = 0, si = 0;
	for (size_t k = 0; k <= u->nkids; k++) {
		size_t fe = k < u->nkids ? u->kids[k].nfiles : u->out.n;
		size_t se = k < u->nkids ? u->kids[k].nskips : u->out.nskips;
		if (fe > fi) {
			wk_grow((void **)&w->files, &w->cap, w->n + (fe - fi), sizeof(*w->files));
			memcpy(w->files + w->n, u->out.files + fi, (fe - fi) * sizeof(*w->files));
			w->n += fe - fi;
		}
		if (se > si) {
			wk_grow((void **)&w->skips, &w->capskips, w->nskips + (se - si),
				sizeof(*w->skips));
			memcpy(w->skips + w->nskips, u->out.skips + si, (se - si) * sizeof(*w->skips));
			w->nskips += se - si;
		}
		fi = fe;
		si = se;
		if (k < u->nkids)
			wk_join(w, u->kids[k].u);
	}
	for (int r = 0; r < MI_SKIP__COUNT; r++)
		w->skipped[r] += u->out.skipped[r];
	free(u->out.files);
	free(u->out.skips);
	free(u->kids);
	free(u->rel);
	free(u);
}

int mi_walk_run(mi_walk *w)
{
	if (w->threads <= 1) {
		mi_ignore *ig = wk_ignore(w, "");
		walk_dir(w, ig, "", 0, NULL);
		mi_ignore_free(ig);
		return 0;
	}
	/* Folders are looked at by several threads at once: most of a walk is
	 * the kernel answering fstatat, which scales with the cores. */
	wk_pool p = {.w = w};
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	wk_unit *root = wk_unit_new(w, "", 0);
	p.q = mi_xmalloc(sizeof(*p.q));
	p.q[0] = root;
	p.nq = p.capq = 1;
	int nth = w->threads > 16 ? 16 : w->threads;
	pthread_t th[16];
	int started = 0;
	for (int i = 0; i < nth; i++)
		if (!pthread_create(&th[started], NULL, wk_thread, &p))
			started++;
	if (!started)
		wk_thread(&p);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(p.q);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	wk_join(w, root);
	return 0;
}

void mi_walk_release(mi_walk *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->files[i].path);
	free(w->files);
	w->files = NULL;
	w->n = w->cap = 0;
	for (size_t i = 0; i < w->nskips; i++)
		free(w->skips[i].path);
	free(w->skips);
	free(w->dents);
	w->dents = NULL;
	w->skips = NULL;
	w->nskips = w->capskips = 0;
}

/* Whether a build with the default options would index root/path: the walk's
 * rules, applied to one path down from the root (the file's language and a
 * link's target are left to the caller). */
bool mi_build_would_index(const char *root, const char *path)
{
	char abs[PATH_MAX];
	size_t n = strlen(path);
	struct stat st;
	bool keep = false;
	if (!n || n >= PATH_MAX || path[0] == '/')
		return false;
	mi_ignore *ig = wk_root_ignore(root);
	if (!wk_folders_pass(root, path, ig))
		goto out;
	const char *name = strrchr(path, '/');
	name = name ? name + 1 : path;
	int verdict = mi_ignore_decide(ig, path, false);
	if (verdict == 1 || (verdict != 0 && (has_suffix(name, ".min.js") ||
					      has_suffix(name, ".min.css"))))
		goto out;
	if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", root, path) >= sizeof(abs))
		goto out;
	/* a missing file is kept: it was removed, which diff mode shows */
	keep = stat(abs, &st) != 0 || (uint64_t)st.st_size <= (1u << 20);
out:
	mi_ignore_free(ig);
	return keep;
}
