/*
 * estimate.c - the o200k-like token estimate behind view caps and savings
 * figures: no vocabulary, one linear pass (docs/views.md, "Token estimate").
 */
#include "view_int.h"

#include <string.h>

/* Byte classes for the estimate: space, newline, letter, digit, high
 * (3/4-byte lead), punctuation (0). */
enum { TK_P, TK_S, TK_N, TK_L, TK_D, TK_H };
static const uint8_t tk_class[256] = {
	[' '] = TK_S, ['\t'] = TK_S, ['\f'] = TK_S, ['\v'] = TK_S,
	['\n'] = TK_N, ['\r'] = TK_N,
	['a' ... 'z'] = TK_L, ['A' ... 'Z'] = TK_L, [0x80 ... 0xdf] = TK_L,
	['0' ... '9'] = TK_D, [0xe0 ... 0xff] = TK_H,
};

/* Tokens of one letter run of n characters (BPE merges common words). */
static size_t tk_word(size_t n)
{
	return n <= 8 ? 1 : 1 + (n - 8 + 4) / 5;
}

/*
 * Mirrors the o200k pre-tokenizer: word runs (split at lower->upper case
 * changes, one leading non-letter glued on), digit runs in threes,
 * punctuation runs, whitespace runs (one space before a word is free).
 * Each pre-token then costs about what BPE makes of it.
 */
size_t mi_token_estimate(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0, i = 0;

	while (i < len) {
		int cl = tk_class[u[i]];
		if (cl == TK_S || cl == TK_N) {
			size_t j = i, tail = 0;
			bool nl = false;
			for (; j < len; j++) {
				int k = tk_class[u[j]];
				if (k == TK_N) {
					nl = true;
					tail = 0;
				} else if (k == TK_S) {
					tail++;
				} else {
					break;
				}
			}
			bool glue = j < len; /* the last space joins the next token */
			if (nl)
				n++;
			else
				tail = j - i;
			if (glue && tail > 0)
				tail--;
			if (tail > 0)
				n += 1 + tail / 16;
			i = j;
		} else if (cl == TK_L) {
			size_t j = i, letters = 0;
			bool lower = false;
			for (; j < len && tk_class[u[j]] == TK_L; j++) {
				unsigned char ch = u[j];
				if (ch >= 'A' && ch <= 'Z') {
					if (lower)
						break;
				} else {
					lower = true;
				}
				letters += (ch & 0xc0) != 0x80;
			}
			n += tk_word(letters);
			i = j;
		} else if (cl == TK_D) {
			size_t j = i;
			while (j < len && tk_class[u[j]] == TK_D)
				j++;
			n += (j - i + 2) / 3;
			i = j;
		} else if (cl == TK_H) {
			/* 3- and 4-byte characters: symbols, CJK: about one each */
			i++;
			while (i < len && (u[i] & 0xc0) == 0x80)
				i++;
			n++;
		} else {
			size_t j = i;
			while (j < len && tk_class[u[j]] == TK_P)
				j++;
			size_t q = j - i;
			if (j < len && tk_class[u[j]] == TK_L)
				q--; /* the last one leads the word that follows */
			if (q > 0)
				n += (q + 2) / 3;
			i = j;
		}
	}
	return n;
}

/* The estimate of a large text from evenly spaced windows, scaled: used
 * for the savings figure, where a few percent do not matter. */
size_t mi_v_estimate_sampled(const char *s, size_t len)
{
	enum { WIN = 2048, NWIN = 8 };
	if (len <= (size_t)WIN * NWIN * 2)
		return mi_token_estimate(s, len);
	size_t got = 0, bytes = 0;
	for (size_t w = 0; w < NWIN; w++) {
		size_t a = len / NWIN * w;
		const char *nl = memchr(s + a, '\n', len - a);
		if (!nl)
			break;
		a = (size_t)(nl - s) + 1;
		size_t b = a + WIN < len ? a + WIN : len;
		size_t e = b;
		while (e > a && s[e - 1] != '\n')
			e--;
		if (e > a)
			b = e;
		got += mi_token_estimate(s + a, b - a);
		bytes += b - a;
	}
	return bytes ? (size_t)((double)got * (double)len / (double)bytes) : mi_token_estimate(s, len);
}
