/*
 * tokenize.c - how text becomes search terms (identifier splitting, stop
 * list, Snowball stemming) and the small binary records of the search
 * databases, shared by the indexer and the query side.
 */
#include "format.h"

#include <assert.h>
#include <libstemmer.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MI_TOK_WORD_MAX 128   /* longer words (hashes, base64) give no terms */
#define MI_TOK_CACHE_SLOTS 8192 /* stem cache entries, a power of two */
#define MI_TOK_CACHE_AFTER 64 /* stems computed before the cache is allocated */

/* One cache line: the word, then its stem, in t.  Words whose word and
 * stem do not fit together are stemmed every time. */
#define MI_TOK_SLOT_TEXT 61
typedef struct mi_stem_slot {
	uint8_t wlen;              /* word length, 0 = empty slot */
	uint8_t slen;              /* stem length */
	uint8_t stop;              /* the word is a stop word (no stem) */
	char t[MI_TOK_SLOT_TEXT];  /* the lowercased word, then its stem */
} mi_stem_slot;

#ifdef MI_STEM_DIRECT
/*
 * The Snowball runtime's English (UTF-8) stemmer, called by its own entry
 * points: libstemmer's lookup by name (sb_stemmer_new) links every
 * language's tables, ~300 KB of pointers that a position-independent
 * binary relocates, a page fault per 4 KiB, at every start (2.3 ms of a
 * process that answers one request on a 2-core virtual machine).
 * mi_sn_head is the head of the runtime's struct SN_env (runtime/api.h:
 * the word, the cursor, its length), the only part read.
 */
struct SN_env;
extern struct SN_env *english_UTF_8_create_env(void);
extern void english_UTF_8_close_env(struct SN_env *z);
extern int english_UTF_8_stem(struct SN_env *z);
extern int SN_set_current(struct SN_env *z, int size, const unsigned char *s);
typedef struct mi_sn_head {
	unsigned char *p;
	int c, l;
} mi_sn_head;

static void *mi_stem_new(void)
{
	return english_UTF_8_create_env();
}

static void mi_stem_free(void *z)
{
	if (z)
		english_UTF_8_close_env(z);
}

/* The stem of w[0..len) and its length in *rl; NULL on failure. */
static const unsigned char *mi_stem_run(void *z, const char *w, int len, int *rl)
{
	mi_sn_head *h = z;
	if (SN_set_current(z, len, (const unsigned char *)w) || english_UTF_8_stem(z) < 0)
		return NULL;
	*rl = h->l;
	return h->p;
}
#else
static void *mi_stem_new(void)
{
	return sb_stemmer_new("english", NULL);
}

static void mi_stem_free(void *z)
{
	sb_stemmer_delete(z);
}

static const unsigned char *mi_stem_run(void *z, const char *w, int len, int *rl)
{
	const sb_symbol *r = sb_stemmer_stem(z, (const sb_symbol *)w, len);
	*rl = sb_stemmer_length(z);
	return r;
}
#endif

struct mi_tok {
	void *stem;                /* Snowball English stemmer, UTF-8 */
	mi_stem_slot *cache;       /* word -> stem, direct-mapped; NULL until needed */
	size_t nstems;             /* stems computed, to decide on the cache */
};

/* Sorted for bsearch: English function words and the commonest keywords of
 * the supported languages (they carry no meaning in a query). */
static const char *const mi_stop[] = {
	"a", "about", "all", "also", "an", "and", "any", "are", "as", "at",
	"be", "been", "but", "by", "can", "could", "def", "did", "do", "does",
	"elif", "else", "false", "fn", "for", "from", "func", "had", "has",
	"have", "he", "her", "his", "how", "i", "if", "in", "into",
	"is", "it", "its", "let", "may", "me", "my", "nil", "no", "none",
	"not", "null", "of", "on", "one", "or", "our", "pub", "return",
	"self", "she", "should", "so", "some", "such", "than", "that", "the",
	"their", "them", "then", "there", "these", "they", "this", "those",
	"to", "true", "unsigned", "us", "var", "void", "was", "we", "were",
	"what", "when", "where", "which", "while", "who", "why", "will",
	"with", "would", "you", "your",
};

/* Words that are keywords in code and only there say nothing: `int x` in
 * a body is noise, while "integer" in a question and the Int of GetInt8
 * are words.  Dropped when a whole word of code (MI_TOK_CODE). */
static const char *const mi_code_kw[] = { "int" };

static bool mi_tok_is_code_kw(const char *w, size_t len)
{
	for (size_t i = 0; i < sizeof(mi_code_kw) / sizeof(mi_code_kw[0]); i++)
		if (strlen(mi_code_kw[i]) == len && !memcmp(mi_code_kw[i], w, len))
			return true;
	return false;
}

static int mi_stop_cmp(const void *key, const void *elem)
{
	return strcmp((const char *)key, *(const char *const *)elem);
}

bool mi_tok_is_stop(const char *w, size_t len)
{
	char k[16];

	if (len == 0 || len >= sizeof(k))
		return false;
	memcpy(k, w, len);
	k[len] = 0;
	return bsearch(k, mi_stop, sizeof(mi_stop) / sizeof(mi_stop[0]),
		       sizeof(mi_stop[0]), mi_stop_cmp) != NULL;
}

static bool mi_tok_tables_sane(void);

int mi_tok_new(mi_tok **out)
{
	mi_tok *tk = mi_xcalloc(1, sizeof(*tk));
	int err = 0;

	assert(mi_tok_tables_sane());
	tk->stem = mi_stem_new();
	if (!tk->stem) {
		free(tk);
		tk = NULL;
		err = MI_ERR_ARG;
	}
	*out = tk;
	return err;
}

void mi_tok_free(mi_tok *tk)
{
	if (!tk)
		return;
	mi_stem_free(tk->stem);
	free(tk->cache);
	free(tk);
}

/* Stems of words code usually abbreviates, sorted for bsearch, with the
 * abbreviation's stem they are indexed as, so "initialize the buffer" meets
 * init_buf().  Ambiguous short forms (ext, gen, proc, stat, temp, desc)
 * are left alone. */
static const char *const mi_canon[][2] = {
	{ "address", "addr" }, { "argument", "arg" }, { "asynchron", "async" },
	{ "attribut", "attr" },
	{ "authent", "auth" }, { "buffer", "buf" }, { "button", "btn" },
	{ "calcul", "calc" }, { "callback", "cb" }, { "cfg", "config" },
	{ "charact", "char" }, { "command", "cmd" }, { "compar", "cmp" },
	{ "conf", "config" }, { "configur", "config" }, { "context", "ctx" },
	{ "count", "cnt" }, { "curr", "cur" }, { "current", "cur" },
	{ "databas", "db" }, { "delet", "del" }, { "dest", "dst" },
	{ "destin", "dst" }, { "devic", "dev" }, { "directori", "dir" },
	{ "environ", "env" }, { "error", "err" }, { "execut", "exec" },
	{ "express", "expr" }, { "identifi", "id" }, { "imag", "img" },
	{ "index", "idx" }, { "inform", "info" }, { "initi", "init" },
	{ "initialis", "init" }, { "integ", "int" }, { "length", "len" }, { "librari", "lib" },
	{ "manag", "mgr" }, { "maximum", "max" }, { "memori", "mem" },
	{ "messag", "msg" }, { "minimum", "min" }, { "nr", "num" },
	{ "number", "num" }, { "object", "obj" }, { "packag", "pkg" },
	{ "paramet", "param" }, { "passwd", "password" }, { "permiss", "perm" },
	{ "pointer", "ptr" }, { "posit", "pos" }, { "previous", "prev" },
	{ "pwd", "password" }, { "receiv", "recv" }, { "refer", "ref" },
	{ "request", "req" }, { "respons", "resp" }, { "sequenc", "seq" },
	{ "sourc", "src" }, { "specif", "spec" }, { "string", "str" },
	{ "synchron", "sync" }, { "temporari", "tmp" }, { "transact", "txn" },
	{ "transmit", "xmit" }, { "valu", "val" },
};

/* For assert(): the tables bsearch reads are sorted. */
static bool mi_tok_tables_sane(void)
{
	for (size_t i = 1; i < sizeof(mi_canon) / sizeof(mi_canon[0]); i++)
		if (strcmp(mi_canon[i - 1][0], mi_canon[i][0]) >= 0)
			return false;
	for (size_t i = 1; i < sizeof(mi_stop) / sizeof(mi_stop[0]); i++)
		if (strcmp(mi_stop[i - 1], mi_stop[i]) >= 0)
			return false;
	return true;
}

static int mi_canon_cmp(const void *key, const void *elem)
{
	const char *const *k = key;
	const char *const *e = elem;

	return strcmp(*k, e[0]);
}

/* Replaces the stem s[0..*len) by its abbreviation, if it has one. */
static void mi_tok_canon(const char **s, int *len)
{
	char k[16];
	const char *kp = k;
	const char *const *hit;

	if (*len <= 1 || *len >= (int)sizeof(k))
		return;
	memcpy(k, *s, (size_t)*len);
	k[*len] = 0;
	hit = bsearch(&kp, mi_canon, sizeof(mi_canon) / sizeof(mi_canon[0]),
		      sizeof(mi_canon[0]), mi_canon_cmp);
	if (hit) {
		*s = hit[1];
		*len = (int)strlen(hit[1]);
	}
}

/* Stems the lowercased word w, false if it is a stop word; *s points into
 * the stemmer or the cache and is valid until the next call.  The cache
 * keeps stop words too: a hit answers both questions. */
static bool mi_tok_stem(mi_tok *tk, const char *w, size_t len, uint32_t h,
			const char **s, size_t *slen)
{
	mi_stem_slot *slot = NULL;
	const sb_symbol *r;
	int rl;

	if (tk->cache) {
		slot = &tk->cache[h & (MI_TOK_CACHE_SLOTS - 1)];
		if (slot->wlen == len && !memcmp(slot->t, w, len)) {
			*s = slot->t + len;
			*slen = slot->slen;
			return !slot->stop;
		}
		if (len > MI_TOK_SLOT_TEXT)
			slot = NULL;
	}
	if (mi_tok_is_stop(w, len)) {
		if (slot) {
			slot->wlen = (uint8_t)len;
			memcpy(slot->t, w, len);
			slot->slen = 0;
			slot->stop = 1;
		}
		return false;
	}
	r = mi_stem_run(tk->stem, w, (int)len, &rl);
	if (!r || rl <= 0 || (size_t)rl > len) {
		r = (const sb_symbol *)w;
		rl = (int)len;
	}
	mi_tok_canon((const char **)&r, &rl);
	*s = (const char *)r;
	*slen = (size_t)rl;
	if (slot && len + (size_t)rl <= MI_TOK_SLOT_TEXT) {
		slot->wlen = (uint8_t)len;
		memcpy(slot->t, w, len);
		slot->slen = (uint8_t)rl;
		slot->stop = 0;
		memcpy(slot->t + len, r, (size_t)rl);
	} else if (!tk->cache && ++tk->nstems == MI_TOK_CACHE_AFTER) {
		/* Slots on cache lines; without memory, no cache. */
		tk->cache = aligned_alloc(64, MI_TOK_CACHE_SLOTS * sizeof(*tk->cache));
		if (tk->cache)
			memset(tk->cache, 0, MI_TOK_CACHE_SLOTS * sizeof(*tk->cache));
	}
	return true;
}

enum { CL_SEP, CL_LOWER, CL_UPPER, CL_DIGIT, CL_UNDER };

/* Byte classes (UTF-8 bytes of other scripts count as lower case). */
static const uint8_t mi_cls_tab[256] = {
	['a' ... 'z'] = CL_LOWER, ['A' ... 'Z'] = CL_UPPER, ['0' ... '9'] = CL_DIGIT,
	['_'] = CL_UNDER, [0x80 ... 0xff] = CL_LOWER,
};

static inline int mi_cls(uint8_t c)
{
	return mi_cls_tab[c];
}

/* One part of a word: lowercased, stop words out, stemmed.  A part of
 * digits counts only inside a longer word (the 8 of GetInt8); `whole_code`
 * says the part is a whole word of code, where keywords say nothing. */
static size_t mi_tok_part(mi_tok *tk, const char *p, size_t len, bool whole_code,
			  mi_tok_fn fn, void *ctx)
{
	char low[MI_TOK_MAX];
	bool alpha = false;
	uint32_t h = 2166136261u;
	const char *s;
	size_t slen;

	if (len > MI_TOK_MAX || len == 0)
		return 0;
	for (size_t i = 0; i < len; i++) {
		uint8_t c = (uint8_t)p[i];
		if (c >= 'A' && c <= 'Z')
			c = (uint8_t)(c + 32);
		if (!(c >= '0' && c <= '9'))
			alpha = true;
		low[i] = (char)c;
		h = (h ^ c) * 16777619u; /* FNV-1a, the stem cache's slot */
	}
	if (!alpha) {
		fn(ctx, low, len);
		return 1;
	}
	if (len < 2 || (whole_code && mi_tok_is_code_kw(low, len)))
		return 0;
	if (!mi_tok_stem(tk, low, len, h, &s, &slen) || slen == 0)
		return 0;
	fn(ctx, s, slen);
	return 1;
}

/* One word: its parts, then its whole form when it has several parts. */
static size_t mi_tok_word(mi_tok *tk, const char *w, size_t len, int flags,
			  mi_tok_fn fn, void *ctx)
{
	size_t n = 0, nparts = 0, start = 0, i;
	char whole[MI_TOK_MAX];
	size_t wl = 0;
	bool whole_ok = true;

	if (len > MI_TOK_WORD_MAX)
		return 0;
	if (len == 1 && ((flags & MI_TOK_CODE) || mi_cls((uint8_t)w[0]) != CL_DIGIT))
		return 0; /* one letter; one digit counts in prose ("integer 8") */
	if (len > 1 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X'))
		return 0; /* a hex constant says nothing */
	/* A word of digits only is kept as itself ("404"). */
	for (i = 0; i < len && mi_cls((uint8_t)w[i]) == CL_DIGIT; i++)
		;
	if (i == len) {
		if (len <= MI_TOK_MAX) {
			fn(ctx, w, len);
			n = 1;
		}
		return n;
	}
	for (i = 0; i <= len; i++) {
		int c = i < len ? mi_cls((uint8_t)w[i]) : CL_SEP;
		bool cut = false;

		if (i == len || c == CL_UNDER) {
			cut = true;
		} else if (i > start) {
			int pc = mi_cls((uint8_t)w[i - 1]);
			if (c == CL_UPPER && pc == CL_LOWER)
				cut = true;
			else if ((c == CL_DIGIT) != (pc == CL_DIGIT))
				cut = true;
			else if (c == CL_LOWER && pc == CL_UPPER && i - 1 > start &&
				 mi_cls((uint8_t)w[i - 2]) == CL_UPPER) {
				/* "HTTPServer": the part ends before 'S'. */
				n += mi_tok_part(tk, w + start, i - 1 - start, false, fn, ctx);
				nparts++;
				start = i - 1;
			}
		}
		if (cut) {
			if (i > start) {
				n += mi_tok_part(tk, w + start, i - start,
						 (flags & MI_TOK_CODE) && start == 0 && i == len,
						 fn, ctx);
				nparts++;
			}
			start = i + (i < len && c == CL_UNDER);
		}
		if (i < len && c != CL_UNDER) {
			if (wl < sizeof(whole)) {
				uint8_t ch = (uint8_t)w[i];
				whole[wl++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
			} else {
				whole_ok = false;
			}
		}
	}
	/* A segment (between '_' and case changes) of letters and digits is
	 * also a term of its own when the word has other segments: "ext4" of
	 * ext4_fill_super, "p4d" of __p4d_alloc, "utf8" of utf8Decode. */
	for (i = 0; nparts > 1 && i < len;) {
		size_t j = i, digits = 0, alphas = 0;
		while (j < len && mi_cls((uint8_t)w[j]) == CL_UNDER)
			j++;
		i = j;
		for (; j < len; j++) {
			int c = mi_cls((uint8_t)w[j]);
			if (c == CL_UNDER)
				break;
			if (j > i && c == CL_UPPER && mi_cls((uint8_t)w[j - 1]) != CL_UPPER)
				break;
			if (j > i + 1 && c == CL_LOWER && mi_cls((uint8_t)w[j - 1]) == CL_UPPER &&
			    mi_cls((uint8_t)w[j - 2]) == CL_UPPER) {
				j--;
				break;
			}
			if (c == CL_DIGIT)
				digits++;
			else
				alphas++;
		}
		if (digits && alphas && j - i >= 2 && j - i <= MI_TOK_MAX &&
		    (j - i < wl || !whole_ok) && mi_cls((uint8_t)w[i]) != CL_DIGIT) {
			char seg[MI_TOK_MAX];
			for (size_t x = i; x < j; x++) {
				uint8_t ch = (uint8_t)w[x];
				seg[x - i] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
			}
			fn(ctx, seg, j - i);
			n++;
		}
		if (j == i)
			j++;
		i = j;
	}
	if (nparts > 1 && whole_ok && wl >= 2 &&
	    mi_cls((uint8_t)whole[0]) != CL_DIGIT) {
		fn(ctx, whole, wl);
		n++;
	}
	return n;
}

/* In code, the end of the string literal opened at s[i] (index after the
 * closing quote), or 0 when it is not a literal. */
static size_t mi_tok_literal_end(const char *s, size_t len, size_t i)
{
	char q = s[i];
	size_t j;

	if (q == '\'' && i > 0 && mi_cls((uint8_t)s[i - 1]) != CL_SEP)
		return 0; /* an apostrophe: "don't" */
	if (q != '`' && i + 2 < len && s[i + 1] == q && s[i + 2] == q) {
		for (j = i + 3; j + 2 < len; j++) {
			if (s[j] == '\\')
				j++;
			else if (s[j] == q && s[j + 1] == q && s[j + 2] == q)
				return j + 3;
		}
		return 0;
	}
	for (j = i + 1; j < len; j++) {
		if (s[j] == '\\')
			j++;
		else if (s[j] == q)
			return j + 1;
		else if (s[j] == '\n' && q != '`')
			return 0;
	}
	return 0;
}

/* mi_tok_word of a word of lower-case letters and underscores only (most
 * words of code and prose): its parts between underscores, then its whole
 * form when it has several; no case changes, digits or segments to look
 * for. */
static size_t mi_tok_snake(mi_tok *tk, const char *w, size_t len, bool code,
			   mi_tok_fn fn, void *ctx)
{
	size_t n = 0, nparts = 0, start = 0, wl = 0;
	char whole[MI_TOK_MAX];
	bool whole_ok = true;

	for (size_t i = 0; i <= len; i++) {
		if (i == len || w[i] == '_') {
			if (i > start) {
				n += mi_tok_part(tk, w + start, i - start,
						 code && start == 0 && i == len, fn, ctx);
				nparts++;
			}
			start = i + 1;
		} else if (wl < sizeof(whole)) {
			whole[wl++] = w[i];
		} else {
			whole_ok = false;
		}
	}
	if (nparts > 1 && whole_ok && wl >= 2) {
		fn(ctx, whole, wl);
		n++;
	}
	return n;
}

size_t mi_tok_run(mi_tok *tk, const char *s, size_t len, int flags,
		  mi_tok_fn fn, void *ctx)
{
	size_t n = 0, i = 0;

	while (i < len) {
		uint8_t c = (uint8_t)s[i];
		if (mi_cls(c) != CL_SEP) {
			size_t j = i;
			unsigned seen = 0; /* classes in the word, a bit each */
			int k;
			while (j < len && (k = mi_cls((uint8_t)s[j])) != CL_SEP) {
				seen |= 1u << k;
				j++;
			}
			if ((seen & 1u << CL_LOWER) && !(seen & ~(1u << CL_LOWER | 1u << CL_UNDER)) &&
			    j - i <= MI_TOK_WORD_MAX)
				n += mi_tok_snake(tk, s + i, j - i, flags & MI_TOK_CODE, fn, ctx);
			else
				n += mi_tok_word(tk, s + i, j - i, flags, fn, ctx);
			i = j;
			continue;
		}
		if ((flags & MI_TOK_CODE) && (c == '"' || c == '\'' || c == '`')) {
			size_t e = mi_tok_literal_end(s, len, i);
			if (e && e - i > MI_TOK_LITERAL_CAP + 2) {
				i = e;
				continue;
			}
		}
		i++;
	}
	return n;
}

/* ---- BM25F ----------------------------------------------------------------- */

/* The code weights were fitted on the tuning halves of bench/search's query
 * sets (docs/benchmarks.md); query/search.c's mi_rank_defaults repeats them
 * (a unit test keeps the two equal). */
const mi_bm25f mi_bm25f_params = {
	.k1 = { [MI_SM_CODE] = 2.4f, [MI_SM_DOCS_MD] = 1.6f, [MI_SM_DOCS_CODE] = 1.6f },
	.w = {
		/*             name  path  sig   doc   body */
		[MI_SM_CODE]      = { 3.75f, 2.0f, 1.9f, 3.0f, 0.45f },
		[MI_SM_DOCS_MD]   = { 3.0f, 1.0f, 0.0f, 0.0f, 1.0f },
		[MI_SM_DOCS_CODE] = { 0.0f, 0.0f, 0.0f, 1.5f, 0.0f },
	},
	.b = {
		[MI_SM_CODE]      = { 0.7f, 1.0f, 0.75f, 0.75f, 0.85f },
		[MI_SM_DOCS_MD]   = { 0.3f, 0.5f, 0.5f, 0.75f, 0.75f },
		[MI_SM_DOCS_CODE] = { 0.3f, 0.5f, 0.5f, 0.75f, 0.75f },
	},
	/* A body's mentions of a word count up to three times an average body's
	 * single mention (docs/benchmarks.md, "A cap on bodies"): a name
	 * outweighs any number of them, and the WAND bounds of a common
	 * word's body-only postings fall far below its named chunks'. */
	.cap = {
		[MI_SM_CODE]      = { [MI_SF_BODY] = 3.0f },
	},
};

int64_t mi_bm25f_sig(void)
{
	return (int64_t)(mi_hash64(&mi_bm25f_params, sizeof(mi_bm25f_params)) >> 1);
}

float mi_bm25f_tfn(int sm, unsigned flags, const uint32_t *tf,
		   const uint32_t *len, const float *avg)
{
	return mi_bm25f_tfn_share(sm, flags, tf, len, avg, 1);
}

float mi_bm25f_tfn_share(int sm, unsigned flags, const uint32_t *tf,
			 const uint32_t *len, const float *avg, float name_share)
{
	const mi_bm25f *P = &mi_bm25f_params;
	float t = 0;

	if (sm == MI_SM_CODE && (flags & MI_POSTF_MD))
		return 0;
	if (sm != MI_SM_CODE)
		sm = (flags & MI_POSTF_MD) ? MI_SM_DOCS_MD : MI_SM_DOCS_CODE;
	for (int f = 0; f < MI_SF__COUNT; f++) {
		float a, norm;
		if (!(flags & (1u << f)) || P->w[sm][f] == 0)
			continue;
		a = avg[f] > 0 ? avg[f] : 1;
		norm = 1 - P->b[sm][f] + P->b[sm][f] * (float)len[f] / a;
		float x = (float)tf[f] / norm;
		if (P->cap[sm][f] > 0 && x > P->cap[sm][f])
			x = P->cap[sm][f];
		t += P->w[sm][f] * (f == MI_SF_NAME ? name_share : 1) * x;
	}
	return t;
}

/* ---- a file's chunk lengths ---------------------------------------------------- */

static const uint8_t lens_bytes[4] = { 1, 2, 4, 0 };

static size_t lens_rec(unsigned widths)
{
	size_t r = 1;

	for (int f = 0; f < MI_SF__COUNT; f++)
		r += lens_bytes[(widths >> (2 * f)) & 3];
	return r;
}

void mi_lens_encode(const uint32_t *vals, uint32_t n, mi_buf *out)
{
	unsigned widths = 0;
	uint8_t rec[1 + 4 * MI_SF__COUNT];

	for (int f = 0; f < MI_SF__COUNT; f++) {
		uint32_t mx = 0;
		for (uint32_t i = 0; i < n; i++)
			mx = vals[(size_t)i * MI_LENS_W + 1 + f] > mx ?
			     vals[(size_t)i * MI_LENS_W + 1 + f] : mx;
		widths |= (mx > 0xffff ? 2u : mx > 0xff ? 1u : 0u) << (2 * f);
	}
	mi_buf_addc(out, (char)(widths & 0xff));
	mi_buf_addc(out, (char)(widths >> 8));
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t *c = vals + (size_t)i * MI_LENS_W;
		size_t k = 0;
		rec[k++] = (uint8_t)(c[0] >> 5);
		for (int f = 0; f < MI_SF__COUNT; f++)
			for (int b = 0; b < lens_bytes[(widths >> (2 * f)) & 3]; b++)
				rec[k++] = (uint8_t)(c[1 + f] >> (8 * b));
		mi_buf_add(out, rec, k);
	}
}

bool mi_lens_file(const void *gv, size_t gl, uint32_t fid, const void **v, size_t *vl)
{
	const uint8_t *p = gv;
	size_t hdr = 4 * (MI_LENS_GROUP + 1), i = fid % MI_LENS_GROUP;
	uint32_t a, b, end;

	if (gl < hdr)
		return false;
	a = mi_rd32(p + 4 * i);
	b = mi_rd32(p + 4 * (i + 1));
	end = mi_rd32(p + 4 * MI_LENS_GROUP);
	if (a > b || b > end || end != gl - hdr)
		return false;
	*v = p + hdr + a;
	*vl = b - a;
	return true;
}

uint32_t mi_lens_count(const void *v, size_t vl)
{
	const uint8_t *p = v;
	unsigned widths;
	size_t r;

	if (vl < 2)
		return UINT32_MAX;
	widths = p[0] | (unsigned)p[1] << 8;
	for (int f = 0; f < MI_SF__COUNT; f++)
		if (((widths >> (2 * f)) & 3) == 3)
			return UINT32_MAX;
	r = lens_rec(widths);
	if ((widths >> (2 * MI_SF__COUNT)) || (vl - 2) % r || (vl - 2) / r >= UINT32_MAX)
		return UINT32_MAX;
	return (uint32_t)((vl - 2) / r);
}

bool mi_lens_get(const void *v, size_t vl, uint32_t n, uint32_t out[MI_LENS_W])
{
	const uint8_t *p = v;
	unsigned widths;
	size_t r;

	if (vl < 2)
		return false;
	widths = p[0] | (unsigned)p[1] << 8;
	r = lens_rec(widths);
	if ((uint64_t)n * r + r > vl - 2)
		return false;
	p += 2 + (size_t)n * r;
	out[0] = (uint32_t)p[0] << 5;
	p++;
	for (int f = 0; f < MI_SF__COUNT; f++) {
		switch ((widths >> (2 * f)) & 3) {
		case 0:
			out[1 + f] = p[0];
			p += 1;
			break;
		case 1:
			out[1 + f] = p[0] | (uint32_t)p[1] << 8;
			p += 2;
			break;
		case 2:
			out[1 + f] = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				     (uint32_t)p[3] << 24;
			p += 4;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* ---- varints ----------------------------------------------------------------- */

size_t mi_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

bool mi_varint_get_long(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t r = 0;
	unsigned shift = 0;

	while (q < end && shift < 64) {
		uint8_t b = *q++;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			*p = q;
			return true;
		}
		shift += 7;
	}
	return false;
}

/* ---- chunk records: a msgpack array of 13 ------------------------------------- */

#define MI_CHUNK_FIELDS 13

static void mp_uint(mi_buf *b, uint32_t v)
{
	uint8_t t[5];

	if (v < 128) {
		t[0] = (uint8_t)v;
		mi_buf_add(b, t, 1);
	} else if (v <= 0xff) {
		t[0] = 0xcc;
		t[1] = (uint8_t)v;
		mi_buf_add(b, t, 2);
	} else if (v <= 0xffff) {
		t[0] = 0xcd;
		t[1] = (uint8_t)(v >> 8);
		t[2] = (uint8_t)v;
		mi_buf_add(b, t, 3);
	} else {
		t[0] = 0xce;
		mi_be32(t + 1, v);
		mi_buf_add(b, t, 5);
	}
}

static void mp_str(mi_buf *b, const char *s, uint32_t len)
{
	uint8_t t[5];

	if (!s)
		len = 0;
	if (len < 32) {
		t[0] = (uint8_t)(0xa0 | len);
		mi_buf_add(b, t, 1);
	} else if (len <= 0xff) {
		t[0] = 0xd9;
		t[1] = (uint8_t)len;
		mi_buf_add(b, t, 2);
	} else if (len <= 0xffff) {
		t[0] = 0xda;
		t[1] = (uint8_t)(len >> 8);
		t[2] = (uint8_t)len;
		mi_buf_add(b, t, 3);
	} else {
		t[0] = 0xdb;
		mi_be32(t + 1, len);
		mi_buf_add(b, t, 5);
	}
	if (len)
		mi_buf_add(b, s, len);
}

/* A symbol chunk's breadcrumb or symbols list that is just its name is
 * stored empty. */
static bool chunk_is_name(const mi_chunk *c, const char *s, uint32_t len)
{
	return c->sym && len && len == c->name_len && s && !memcmp(s, c->name, len);
}

void mi_chunk_encode(const mi_chunk *c, mi_buf *out)
{
	uint8_t a = 0x90 | MI_CHUNK_FIELDS;

	mi_buf_add(out, &a, 1);
	mp_uint(out, c->kind);
	mp_uint(out, c->vis);
	mp_uint(out, c->level);
	mp_uint(out, c->start_line);
	mp_uint(out, c->end_line);
	mp_uint(out, c->snip_line);
	mp_str(out, c->name, c->name_len);
	mp_str(out, c->crumb, chunk_is_name(c, c->crumb, c->crumb_len) ? 0 : c->crumb_len);
	mp_str(out, c->sig, c->sig_len);
	mp_str(out, c->doc, c->doc_len);
	mp_str(out, c->syms, chunk_is_name(c, c->syms, c->syms_len) ? 0 : c->syms_len);
	mp_uint(out, c->snip_byte);
	mp_uint(out, c->sym);
}

static bool mp_get_uint(const uint8_t **p, const uint8_t *e, uint32_t *v)
{
	const uint8_t *q = *p;

	if (q >= e)
		return false;
	if (*q < 0x80) {
		*v = *q++;
	} else if (*q == 0xcc && e - q >= 2) {
		*v = q[1];
		q += 2;
	} else if (*q == 0xcd && e - q >= 3) {
		*v = (uint32_t)q[1] << 8 | q[2];
		q += 3;
	} else if (*q == 0xce && e - q >= 5) {
		*v = mi_rd32(q + 1);
		q += 5;
	} else {
		return false;
	}
	*p = q;
	return true;
}

static bool mp_get_str(const uint8_t **p, const uint8_t *e,
		       const char **s, uint32_t *len)
{
	const uint8_t *q = *p;
	uint32_t n;

	if (q >= e)
		return false;
	if ((*q & 0xe0) == 0xa0) {
		n = *q & 0x1f;
		q++;
	} else if (*q == 0xd9 && e - q >= 2) {
		n = q[1];
		q += 2;
	} else if (*q == 0xda && e - q >= 3) {
		n = (uint32_t)q[1] << 8 | q[2];
		q += 3;
	} else if (*q == 0xdb && e - q >= 5) {
		n = mi_rd32(q + 1);
		q += 5;
	} else {
		return false;
	}
	if ((size_t)(e - q) < n)
		return false;
	*s = (const char *)q;
	*len = n;
	*p = q + n;
	return true;
}

int mi_chunk_decode(const void *data, size_t len, mi_chunk *c)
{
	const uint8_t *p = data, *e = p + len;
	uint32_t kind, vis, level;

	memset(c, 0, sizeof(*c));
	if (len < 1 || *p != (0x90 | MI_CHUNK_FIELDS))
		return MI_ERR_CORRUPT;
	p++;
	if (!mp_get_uint(&p, e, &kind) || !mp_get_uint(&p, e, &vis) ||
	    !mp_get_uint(&p, e, &level) ||
	    !mp_get_uint(&p, e, &c->start_line) ||
	    !mp_get_uint(&p, e, &c->end_line) ||
	    !mp_get_uint(&p, e, &c->snip_line) ||
	    !mp_get_str(&p, e, &c->name, &c->name_len) ||
	    !mp_get_str(&p, e, &c->crumb, &c->crumb_len) ||
	    !mp_get_str(&p, e, &c->sig, &c->sig_len) ||
	    !mp_get_str(&p, e, &c->doc, &c->doc_len) ||
	    !mp_get_str(&p, e, &c->syms, &c->syms_len) ||
	    !mp_get_uint(&p, e, &c->snip_byte) ||
	    !mp_get_uint(&p, e, &c->sym) ||
	    kind >= MI_KIND__COUNT || vis > 1 || level > 255)
		return MI_ERR_CORRUPT;
	c->kind = (uint8_t)kind;
	c->vis = (uint8_t)vis;
	c->level = (uint8_t)level;
	if (c->sym && !c->crumb_len)
		c->crumb = c->name, c->crumb_len = c->name_len;
	if (c->sym && !c->syms_len)
		c->syms = c->name, c->syms_len = c->name_len;
	return 0;
}

int mi_chunk_sym(mi_txn *t, const char *path, size_t pl, mi_chunk *c)
{
	const void *rec;
	size_t len;
	const char *s;
	uint32_t sl;

	if (!c->sym)
		return 0;
	int rc = mi_syms_get(t, path, pl, c->sym - 1, &rec, &len);
	if (rc)
		return rc;
	/* A symbol record: [name, parent, sig, doc, ...] (format/record.c). */
	const uint8_t *p = rec, *e = p + len;
	if (len < 1 || (*p & 0xf0) != 0x90)
		return MI_ERR_CORRUPT;
	p++;
	if (!mp_get_str(&p, e, &s, &sl) || !mp_get_str(&p, e, &s, &sl) ||
	    !mp_get_str(&p, e, &c->sig, &c->sig_len) ||
	    !mp_get_str(&p, e, &c->doc, &c->doc_len))
		return MI_ERR_CORRUPT;
	return 0;
}

/* ---- term statistics --------------------------------------------------------- */

/* Writes the high 16 bits of f (>= 0, finite) at p, big-endian, rounded
 * up: a bound stays one (past the largest finite value, which no tfn
 * nears, the largest finite). */
static void mi_put_bound16(uint8_t *p, float f)
{
	uint32_t u = 0;

	if (f > 0)
		memcpy(&u, &f, 4);
	uint32_t hi = (u >> 16) + ((u & 0xffff) != 0);
	if (hi >= 0x7f80)
		hi = 0x7f7f;
	p[0] = (uint8_t)(hi >> 8);
	p[1] = (uint8_t)hi;
}

static float mi_unbound16(const uint8_t *p)
{
	uint32_t u = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

size_t mi_term_stats_encode(const mi_term_stats *s, uint8_t out[MI_TERM_STATS_MAX])
{
	size_t n = mi_varint_put(out, s->df);

	mi_put_bound16(out + n, s->ub_code);
	mi_put_bound16(out + n + 2, s->ub_docs);
	return n + 4;
}

int mi_term_stats_decode(const void *data, size_t len, mi_term_stats *s)
{
	const uint8_t *p = data, *e = p + len;
	uint64_t df;

	if (!mi_varint_get(&p, e, &df) || df > UINT32_MAX || e - p != 4)
		return MI_ERR_CORRUPT;
	s->df = (uint32_t)df;
	s->ub_code = mi_unbound16(p);
	s->ub_docs = mi_unbound16(p + 2);
	if (!isfinite(s->ub_code) || !isfinite(s->ub_docs) || s->ub_code < 0 ||
	    s->ub_docs < 0)
		return MI_ERR_CORRUPT;
	return 0;
}
