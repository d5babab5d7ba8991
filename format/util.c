/*
 * util.c - the string builder, allocation wrappers, hashing, path and UTF-8
 * helpers and names shared by every subsystem.
 */
#include "format.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
#ifdef __linux__
#include <linux/openat2.h>
#endif
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#elif defined(__FreeBSD__)
#include <sys/sysctl.h>
#endif

/* ---- allocation -------------------------------------------------------------- */

static void mi_oom(size_t n)
{
	fprintf(stderr, "mcpidx: out of memory allocating %zu bytes\n", n);
	abort();
}

void *mi_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		mi_oom(n);
	return p;
}

void *mi_xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);
	if (!p)
		mi_oom(n * sz);
	return p;
}

void *mi_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		mi_oom(n);
	return q;
}

char *mi_xstrdup(const char *s)
{
	return mi_xstrndup(s, strlen(s));
}

char *mi_xstrndup(const char *s, size_t n)
{
	char *p = mi_xmalloc(n + 1);
	if (n)
		memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* ---- mi_buf ------------------------------------------------------------------- */

void mi_buf_grow(mi_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap < (1u << 30) ? cap * 2 : cap + (cap >> 1);
	b->buf = mi_xrealloc(b->buf, cap);
	b->cap = cap;
	b->buf[b->len] = 0; /* a fresh buffer reads as "" until written */
}

void mi_buf_add(mi_buf *b, const void *data, size_t len)
{
	mi_buf_grow(b, len);
	if (len)
		memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = 0;
}

void mi_buf_adds(mi_buf *b, const char *s)
{
	mi_buf_add(b, s, strlen(s));
}

void mi_buf_addc(mi_buf *b, char c)
{
	mi_buf_grow(b, 1);
	b->buf[b->len++] = c;
	b->buf[b->len] = 0;
}

void mi_buf_vaddf(mi_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	mi_buf_grow(b, 64);
	int n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		mi_buf_grow(b, (size_t)n);
		vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

void mi_buf_addf(mi_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mi_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

/* Length of the valid UTF-8 sequence at s (max n bytes), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2; min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3; min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4; min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	unsigned cp = c & (0xff >> (len + 1));
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

size_t mi_utf8_cut(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

size_t mi_utf8_clip(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t k = 1; k <= 3 && k <= n; k++) {
		unsigned char c = p[n - k];
		if ((c & 0xc0) == 0x80)
			continue;
		size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		return need > k ? n - k : n;
	}
	return n;
}

size_t mi_utf8_prefix(const char *s, size_t len, size_t max)
{
	return len > max ? mi_utf8_cut(s, max) : len;
}

bool mi_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		size_t n = utf8_seq(p + i, len - i);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

void mi_buf_add_utf8(mi_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		size_t n = p[i] < 0x80 ? 1 : utf8_seq(p + i, len - i);
		if (n) {
			mi_buf_add(b, p + i, n);
			i += n;
		} else {
			mi_buf_adds(b, "\xef\xbf\xbd"); /* U+FFFD */
			i++;
		}
	}
	if (!b->buf)
		mi_buf_adds(b, "");
}

void mi_buf_add_json_str(mi_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	mi_buf_grow(b, len + 2);
	mi_buf_addc(b, '"');
	size_t i = 0;
	while (i < len) {
		size_t run = i;
		while (run < len && p[run] >= 0x20 && p[run] < 0x80 &&
		       p[run] != '"' && p[run] != '\\')
			run++;
		if (run > i) {
			mi_buf_add(b, p + i, run - i);
			i = run;
			continue;
		}
		unsigned c = p[i];
		if (c >= 0x80) {
			size_t n = utf8_seq(p + i, len - i);
			if (n) {
				mi_buf_add(b, p + i, n);
				i += n;
			} else {
				mi_buf_adds(b, "\\ufffd");
				i++;
			}
			continue;
		}
		switch (c) {
		case '"': mi_buf_adds(b, "\\\""); break;
		case '\\': mi_buf_adds(b, "\\\\"); break;
		case '\n': mi_buf_adds(b, "\\n"); break;
		case '\r': mi_buf_adds(b, "\\r"); break;
		case '\t': mi_buf_adds(b, "\\t"); break;
		case '\b': mi_buf_adds(b, "\\b"); break;
		case '\f': mi_buf_adds(b, "\\f"); break;
		default: {
			char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			mi_buf_add(b, e, 6);
		}
		}
		i++;
	}
	mi_buf_addc(b, '"');
}

void mi_buf_reset(mi_buf *b)
{
	b->len = 0;
	if (b->buf)
		b->buf[0] = 0;
}

void mi_buf_release(mi_buf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}

char *mi_buf_detach(mi_buf *b)
{
	char *s = b->buf ? b->buf : mi_xstrdup("");
	b->buf = NULL;
	b->len = b->cap = 0;
	return s;
}

const char *mi_buf_str(const mi_buf *b)
{
	return b->buf ? b->buf : "";
}

/* ---- hashing ------------------------------------------------------------------- */

void mi_hash128(const void *data, size_t len, uint8_t out[16])
{
	XXH128_hash_t h = XXH3_128bits(data, len);
	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(h.high64 >> (56 - 8 * i));
		out[8 + i] = (uint8_t)(h.low64 >> (56 - 8 * i));
	}
}

int mi_hash128_fd(int fd, uint64_t len, uint8_t out[16])
{
	XXH3_state_t *st = XXH3_createState();
	size_t bufsz = 1u << 20;
	char *buf = mi_xmalloc(bufsz);
	uint64_t off = 0;
	int rc = 0;
	XXH3_128bits_reset(st);
	while (off < len) {
		size_t want = len - off < bufsz ? (size_t)(len - off) : bufsz;
		ssize_t n = pread(fd, buf, want, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? errno : EIO;
			break;
		}
		XXH3_128bits_update(st, buf, (size_t)n);
		off += (uint64_t)n;
	}
	XXH128_hash_t h = XXH3_128bits_digest(st);
	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(h.high64 >> (56 - 8 * i));
		out[8 + i] = (uint8_t)(h.low64 >> (56 - 8 * i));
	}
	XXH3_freeState(st);
	free(buf);
	return rc;
}

uint64_t mi_hash64(const void *data, size_t len)
{
	return XXH3_64bits(data, len);
}

void mi_hash_hex(const uint8_t h[16], char out[33])
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < 16; i++) {
		out[2 * i] = hex[h[i] >> 4];
		out[2 * i + 1] = hex[h[i] & 15];
	}
	out[32] = 0;
}

/* ---- files and text ------------------------------------------------------------ */

int mi_make_dirs(const char *dir)
{
	char tmp[PATH_MAX];
	size_t n = strlen(dir);
	if (n == 0 || n >= sizeof tmp)
		return ENAMETOOLONG;
	memcpy(tmp, dir, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0777) < 0 && errno != EEXIST)
			return errno;
		*p = '/';
	}
	if (mkdir(tmp, 0777) < 0 && errno != EEXIST)
		return errno;
	return 0;
}

int mi_read_file(const char *path, char **out, size_t *len)
{
	return mi_read_file_max(path, SIZE_MAX, out, len);
}

static int read_fd_max(int fd, size_t max, char **out, size_t *len);

int mi_read_file_max(const char *path, size_t max, char **out, size_t *len)
{
	/* O_NONBLOCK: a FIFO in a file's place opens at once and is refused
	 * below instead of waiting for a writer. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno;
	return read_fd_max(fd, max, out, len);
}

/* The POSIX way: the path resolved by realpath must stay inside root, and
 * the file it names is opened without following a last link (a swap
 * between the two is not caught: Linux's openat2 above is what closes it). */
static int read_beneath_posix(const char *root, const char *rel, size_t max, char **out,
			      size_t *len)
{
	char abs[PATH_MAX], real[PATH_MAX], rroot[PATH_MAX];
	if (!realpath(root, rroot))
		return errno;
	if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", rroot, rel) >= sizeof(abs))
		return ENAMETOOLONG;
	if (!realpath(abs, real))
		return errno;
	const char *in = mi_path_below(rroot, real);
	if (!in || !*in)
		return EXDEV;
	int fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return errno;
	return read_fd_max(fd, max, out, len);
}

int mi_read_file_beneath(const char *root, int dirfd, const char *rel, size_t max, char **out,
			 size_t *len)
{
#if defined(__linux__) && defined(SYS_openat2) && !defined(MI_POSIX_ONLY)
	/* Resolved by the kernel with every component beneath dirfd: a
	 * folder or file swapped for a link out of the tree after the walk
	 * looked is refused (EXDEV), not read. */
	if (dirfd >= 0) {
		struct open_how how = {.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK,
				       .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
		int fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
		if (fd < 0 && errno == EXDEV) {
			/* The kernel refuses an absolute link beneath dirfd even
			 * when it names a file inside, which realpath allows: its
			 * target, made relative, is resolved beneath in turn. */
			char abs[PATH_MAX], real[PATH_MAX];
			const char *in;
			if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", root, rel) < sizeof(abs) &&
			    realpath(abs, real) && (in = mi_path_below(root, real)) && *in)
				fd = (int)syscall(SYS_openat2, dirfd, in, &how, sizeof how);
			else
				errno = EXDEV;
		}
		if (fd >= 0)
			return read_fd_max(fd, max, out, len);
		if (errno != ENOSYS && errno != EPERM) /* else: a kernel before 5.6, a filter */
			return errno;
	}
#else
	(void)dirfd;
#endif
	return read_beneath_posix(root, rel, max, out, len);
}

int mi_dir_open(const char *dir)
{
#if defined(__linux__) && !defined(MI_POSIX_ONLY)
	return open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
#else
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#endif
}

/* Reads fd (closed here) as mi_read_file_max does. */
static int read_fd_max(int fd, size_t max, char **out, size_t *len)
{
	int err = 0;
	char *buf = NULL;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		err = errno;
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		err = EISDIR;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) { /* a FIFO, socket or device (/dev/zero never ends) */
		err = MI_ERR_NOTREG;
		goto out_close;
	}
	if ((uint64_t)st.st_size > max) {
		err = MI_ERR_TOOBIG;
		goto out_close;
	}
	size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, n = 0;
	buf = mi_xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = mi_xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			free(buf);
			buf = NULL;
			goto out_close;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) { /* it grew while read */
			err = MI_ERR_TOOBIG;
			free(buf);
			buf = NULL;
			goto out_close;
		}
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
out_close:
	close(fd);
	return err;
}

uint32_t mi_count_lines(const char *s, size_t len)
{
	uint32_t n = 0;
	const char *p = s, *end = s + len;
	while (p < end && (p = memchr(p, '\n', (size_t)(end - p)))) {
		n++;
		p++;
	}
	if (len && s[len - 1] != '\n')
		n++;
	return n;
}

const char *mi_path_below(const char *root, const char *path)
{
	size_t rl = strlen(root);
	if (rl == 1 && root[0] == '/')
		return path[0] == '/' ? path + 1 : NULL;
	if (strncmp(path, root, rl))
		return NULL;
	return path[rl] == '/' ? path + rl + 1 : path[rl] == 0 ? path + rl : NULL;
}

int mi_path_normalize(const char *in, mi_buf *out)
{
	mi_buf_reset(out);
	if (!in || !*in || in[0] == '/')
		return MI_ERR_PATH;
	const char *p = in;
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* skip empty and "." components */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			return MI_ERR_PATH;
		} else {
			if (out->len)
				mi_buf_addc(out, '/');
			mi_buf_add(out, p, n);
		}
		p += n;
		if (*p == '/')
			p++;
	}
	return out->len ? 0 : MI_ERR_PATH;
}

/*
 * Globs: '*' and '?' stay within one path component, '**' spans components
 * ("**" + "/" also matches no directory at all), [..] classes with '!' or
 * '^' negation, '\' escapes.  Matching is dynamic programming over
 * (pattern token, path position), O(tokens x length): no backtracking, so
 * no pattern can make it slow.
 */
enum { G_LIT, G_ANY, G_STAR, G_DSTAR, G_DSTAR_SLASH, G_CLASS };

typedef struct gtok {
	uint8_t type;      /* G_* */
	char c;            /* G_LIT: the character */
	bool neg;          /* G_CLASS: negated */
	const char *set;   /* G_CLASS: the members, as written */
	size_t setlen;     /* their length */
} gtok;

#define MI_GLOB_MAX 1024 /* tokens; longer patterns never match */

static bool class_has(const gtok *t, char ch)
{
	const char *q = t->set, *e = t->set + t->setlen;
	while (q < e) {
		if (q + 2 < e && q[1] == '-') {
			if (ch >= q[0] && ch <= q[2])
				return true;
			q += 3;
		} else {
			if (ch == *q)
				return true;
			q++;
		}
	}
	return false;
}

static size_t glob_tokens(const char *p, gtok *tok)
{
	size_t n = 0;
	while (*p && n < MI_GLOB_MAX) {
		gtok *t = &tok[n];
		memset(t, 0, sizeof(*t));
		if (p[0] == '*' && p[1] == '*') {
			while (*p == '*')
				p++;
			if (*p == '/') {
				t->type = G_DSTAR_SLASH;
				p++;
			} else {
				t->type = G_DSTAR;
			}
		} else if (*p == '*') {
			t->type = G_STAR;
			p++;
		} else if (*p == '?') {
			t->type = G_ANY;
			p++;
		} else if (*p == '[') {
			const char *q = p + 1;
			bool neg = *q == '!' || *q == '^';
			if (neg)
				q++;
			const char *first = q;
			while (*q && (*q != ']' || q == first))
				q++;
			if (*q == ']') {
				t->type = G_CLASS;
				t->neg = neg;
				t->set = first;
				t->setlen = (size_t)(q - first);
				p = q + 1;
			} else {
				t->type = G_LIT; /* unterminated: a literal '[' */
				t->c = '[';
				p++;
			}
		} else {
			if (*p == '\\' && p[1])
				p++;
			t->type = G_LIT;
			t->c = *p++;
		}
		/* collapse repeated single stars */
		if (t->type == G_STAR && n && tok[n - 1].type == G_STAR)
			continue;
		n++;
	}
	return *p ? (size_t)-1 : n;
}

static bool glob_at(const char *pat, const char *s)
{
	gtok *tok = mi_xmalloc(MI_GLOB_MAX * sizeof(*tok));
	size_t nt = glob_tokens(pat, tok), n = strlen(s);
	bool res = false;
	if (nt == (size_t)-1)
		goto out;
	/* row[j]: tokens i.. match s[j..]; next: tokens i+1.. */
	uint8_t *next = mi_xcalloc(n + 2, 1), *row = mi_xcalloc(n + 2, 1);
	next[n] = 1; /* no tokens match the empty rest */
	for (size_t i = nt; i-- > 0;) {
		const gtok *t = &tok[i];
		row[n + 1] = 0;
		bool after_slash = false; /* for G_DSTAR_SLASH: some k>j, s[k-1]=='/', next[k] */
		for (size_t j = n + 1; j-- > 0;) {
			uint8_t m = 0;
			char ch = j < n ? s[j] : 0;
			switch (t->type) {
			case G_LIT:
				m = j < n && ch == t->c && next[j + 1];
				break;
			case G_ANY:
				m = j < n && ch != '/' && next[j + 1];
				break;
			case G_CLASS:
				m = j < n && ch != '/' && class_has(t, ch) != t->neg && next[j + 1];
				break;
			case G_STAR:
				m = next[j] || (j < n && ch != '/' && row[j + 1]);
				break;
			case G_DSTAR:
				m = next[j] || (j < n && row[j + 1]);
				break;
			case G_DSTAR_SLASH:
				if (j < n && ch == '/' && next[j + 1])
					after_slash = true;
				m = next[j] || after_slash;
				break;
			}
			row[j] = m;
		}
		uint8_t *tmp = next;
		next = row;
		row = tmp;
	}
	res = next[0];
	free(next);
	free(row);
out:
	free(tok);
	return res;
}

bool mi_glob_match(const char *pat, const char *path)
{
	if (!pat || !*pat)
		return true;
	/* A pattern without '/' matches the base name too, like ripgrep -g. */
	if (!strchr(pat, '/')) {
		const char *base = strrchr(path, '/');
		if (base && glob_at(pat, base + 1))
			return true;
	}
	if (pat[0] == '/')
		pat++;
	return glob_at(pat, path);
}

/* ---- names ------------------------------------------------------------------------ */

static const char *const kind_names[MI_KIND__COUNT] = {
	[MI_KIND_NONE] = "none", [MI_KIND_FUNCTION] = "function",
	[MI_KIND_METHOD] = "method", [MI_KIND_CLASS] = "class",
	[MI_KIND_STRUCT] = "struct", [MI_KIND_ENUM] = "enum",
	[MI_KIND_TRAIT] = "trait", [MI_KIND_POINTCUT] = "pointcut",
	[MI_KIND_MODULE] = "module", [MI_KIND_HEADING] = "heading",
	[MI_KIND_FIELD] = "field", [MI_KIND_VARIABLE] = "variable",
	[MI_KIND_CONSTANT] = "constant", [MI_KIND_MACRO] = "macro",
	[MI_KIND_TYPEDEF] = "typedef", [MI_KIND_ENUMERATOR] = "enumerator",
	[MI_KIND_UNION] = "union", [MI_KIND_PROTOTYPE] = "prototype",
};

const char *mi_kind_name(int kind)
{
	if (kind < 0 || kind >= MI_KIND__COUNT || !kind_names[kind])
		return "none";
	return kind_names[kind];
}

int mi_kind_from_name(const char *name)
{
	for (int i = 1; i < MI_KIND__COUNT; i++)
		if (kind_names[i] && !strcmp(kind_names[i], name))
			return i;
	return MI_KIND_NONE;
}

char mi_kind_mark(int kind)
{
	switch (kind) {
	case MI_KIND_FUNCTION: case MI_KIND_METHOD: return 'F';
	case MI_KIND_CLASS: return 'C';
	case MI_KIND_STRUCT: case MI_KIND_UNION: return 'S';
	case MI_KIND_ENUM: return 'E';
	case MI_KIND_TRAIT: return 'T';
	case MI_KIND_POINTCUT: return 'P';
	case MI_KIND_MODULE: return 'M';
	default: return 0;
	}
}

static const char *const lang_names[MI_LANG__COUNT] = {
	[MI_LANG_NONE] = "text",
#define MI_LANG_ROW(ID, name, comment, close, flags) [MI_LANG_##ID] = #name,
#include "lang_list.h"
#undef MI_LANG_ROW
};

const char *mi_lang_name(int lang)
{
	if (lang < 0 || lang >= MI_LANG__COUNT || !lang_names[lang])
		return "text";
	return lang_names[lang];
}

static const struct {
	const char *open, *close; /* line-comment syntax */
	int flags;                /* MI_LANGF_* */
} lang_traits[MI_LANG__COUNT] = {
	[MI_LANG_NONE] = {"#", "", 0},
#define MI_LANG_ROW(ID, name, comment, close, flags) [MI_LANG_##ID] = {comment, close, flags},
#include "lang_list.h"
#undef MI_LANG_ROW
};

int mi_lang_flags(int lang)
{
	return lang < 0 || lang >= MI_LANG__COUNT ? 0 : lang_traits[lang].flags;
}

const char *mi_lang_comment(int lang, const char **close)
{
	if (lang < 0 || lang >= MI_LANG__COUNT)
		lang = MI_LANG_NONE;
	*close = lang_traits[lang].close;
	return lang_traits[lang].open;
}

/* ---- portability ------------------------------------------------------------ */

static void sort_merge(char *a, char *tmp, size_t n, size_t sz,
		       int (*cmp)(const void *, const void *, void *), void *ctx)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	sort_merge(a, tmp, h, sz, cmp, ctx);
	sort_merge(a + h * sz, tmp, n - h, sz, cmp, ctx);
	if (cmp(a + (h - 1) * sz, a + h * sz, ctx) <= 0)
		return; /* already in order */
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n) {
		/* <= keeps equal items in their original order */
		if (cmp(a + i * sz, a + j * sz, ctx) <= 0)
			memcpy(tmp + k++ * sz, a + i++ * sz, sz);
		else
			memcpy(tmp + k++ * sz, a + j++ * sz, sz);
	}
	memcpy(tmp + k * sz, a + i * sz, (h - i) * sz);
	k += h - i;
	memcpy(a, tmp, k * sz); /* the tail a[j..n) is already in place */
}

void mi_sort(void *base, size_t n, size_t sz,
	     int (*cmp)(const void *a, const void *b, void *ctx), void *ctx)
{
	if (n < 2 || !sz)
		return;
	char *tmp = mi_xmalloc(n * sz);
	sort_merge(base, tmp, n, sz, cmp, ctx);
	free(tmp);
}

int mi_pipe_cloexec(int fd[2])
{
#if defined(__linux__) && !defined(MI_POSIX_ONLY)
	return pipe2(fd, O_CLOEXEC);
#else
	if (pipe(fd) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		int fl = fcntl(fd[i], F_GETFD);
		if (fl < 0 || fcntl(fd[i], F_SETFD, fl | FD_CLOEXEC) < 0) {
			int e = errno;
			close(fd[0]);
			close(fd[1]);
			errno = e;
			return -1;
		}
	}
	return 0;
#endif
}

int mi_run_git(const char *dir, const char *const *argv, size_t max_out,
	       mi_buf *out)
{
	int fd[2];
	if (mi_pipe_cloexec(fd))
		return errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fd[0]);
		close(fd[1]);
		return e;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);
		dup2(fd[1], 1);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 2);
		}
		close(fd[0]);
		close(fd[1]);
		if (chdir(dir))
			_exit(127);
		execvp("git", (char *const *)argv);
		_exit(127);
	}
	close(fd[1]);
	char buf[65536];
	ssize_t n;
	while ((n = read(fd[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && out->len < max_out)
			mi_buf_add(out, buf, (size_t)n);
	close(fd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : MI_ERR_NOTFOUND;
}

/* argv0 as the shell would have found it: a path as given, else the first
 * executable of that name in PATH. */
static char *exe_from_argv0(const char *argv0)
{
	char *r = NULL;
	if (!argv0 || !*argv0)
		return NULL;
	if (strchr(argv0, '/'))
		return realpath(argv0, NULL);
	const char *path = getenv("PATH");
	mi_buf cand = {0};
	while (path && *path && !r) {
		const char *e = strchr(path, ':');
		size_t n = e ? (size_t)(e - path) : strlen(path);
		mi_buf_reset(&cand);
		if (n)
			mi_buf_add(&cand, path, n);
		else
			mi_buf_addc(&cand, '.');
		mi_buf_addc(&cand, '/');
		mi_buf_adds(&cand, argv0);
		if (access(cand.buf, X_OK) == 0)
			r = realpath(cand.buf, NULL);
		path = e ? e + 1 : NULL;
	}
	mi_buf_release(&cand);
	return r;
}

char *mi_exe_path(const char *argv0)
{
	char *r = NULL;
#if defined(__linux__) && !defined(MI_POSIX_ONLY)
	r = realpath("/proc/self/exe", NULL);
#elif defined(__APPLE__)
	char buf[4096];
	uint32_t n = sizeof(buf);
	if (_NSGetExecutablePath(buf, &n) == 0)
		r = realpath(buf, NULL);
#elif defined(__FreeBSD__)
	int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PATHNAME, -1};
	char buf[4096];
	size_t n = sizeof(buf);
	if (sysctl(mib, 4, buf, &n, NULL, 0) == 0)
		r = realpath(buf, NULL);
#endif
	if (!r)
		r = exe_from_argv0(argv0);
	if (!r)
		r = mi_xstrdup(argv0 && *argv0 ? argv0 : "mcpidx");
	return r;
}

/* bytes (at most 32) random bytes from /dev/urandom as hex into out (2 *
 * bytes + 1): ids and codes a client must not guess. */
void mi_random_hex(char *out, size_t bytes)
{
	uint8_t b[32];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, b, bytes) : -1;
	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)bytes) {
		uint64_t x = mi_hash64(&n, sizeof(n)) ^ (uint64_t)time(NULL) ^ (uint64_t)getpid();
		for (size_t i = 0; i < bytes; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			b[i] = (uint8_t)(x >> 56);
		}
	}
	for (size_t i = 0; i < bytes; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}
