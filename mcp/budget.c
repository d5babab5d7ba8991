/*
 * budget.c - max_tokens for both forms of an answer.  The text is cut at a
 * line boundary with a closing V* line that says how to see the rest; the
 * structured form loses its longest strings and then the tail of its
 * longest array (never its last item) until it fits, and says so with
 * truncated, total and (for paged tools) next_offset.  Pure functions over
 * buffers: no protocol, no index.
 */
#include "area.h"

#include <stdlib.h>
#include <string.h>

#define MI_CUT_NOTE 60      /* tokens kept free for the closing note */
#define MI_FIT_ROUNDS 48    /* cuts tried before giving up on a shape */

size_t mi_mcp_room(size_t max)
{
	return max > 4 * MI_CUT_NOTE ? max - MI_CUT_NOTE : max * 3 / 4;
}

size_t mi_mcp_tokens(const char *s, size_t n)
{
	return n ? mi_token_estimate(s, n) : 0;
}

bool mi_mcp_tokens_within(const char *s, size_t n, size_t max)
{
	/* the estimate is at most n: no need to read what is that short */
	return n <= max || mi_token_estimate(s, n) <= max;
}

bool mi_mcp_cap_text(mi_buf *t, size_t max, const char *note)
{
	size_t total, used = 0, pos = 0, cut = 0, budget;
	if (t->len <= max || (total = mi_token_estimate(t->buf, t->len)) <= max)
		return false;
	budget = mi_mcp_room(max);
	while (pos < t->len) {
		char *nl = memchr(t->buf + pos, '\n', t->len - pos);
		size_t end = nl ? (size_t)(nl - t->buf) + 1 : t->len;
		size_t lt = mi_token_estimate(t->buf + pos, end - pos);
		if (used + lt > budget)
			break;
		used += lt;
		pos = cut = end;
	}
	if (cut == 0) {
		/* One giant line: cut by bytes at a UTF-8 boundary. */
		cut = budget * 3 < t->len ? budget * 3 : t->len;
		cut = mi_utf8_cut(t->buf, cut);
		while (cut > 0 && mi_token_estimate(t->buf, cut) > budget)
			cut = cut * 7 / 8;
		cut = mi_utf8_cut(t->buf, cut);
	}
	t->len = cut;
	t->buf[cut] = 0;
	if (cut && t->buf[cut - 1] != '\n')
		mi_buf_addc(t, '\n');
	mi_buf_addf(t, "V* [cut: the answer is about %zu tokens, over max_tokens "
		    "%zu; %s]\n", total, max, note);
	return true;
}

/* The longest string below j: its holder and key or index. */
typedef struct longest {
	json_t *holder;     /* object or array holding it */
	const char *key;    /* in an object */
	size_t index;       /* in an array */
	size_t len;         /* its length in bytes */
} longest;

static void find_longest(json_t *j, longest *l)
{
	const char *k;
	json_t *v;
	size_t i;
	if (json_is_object(j)) {
		json_object_foreach(j, k, v) {
			if (json_is_string(v) && json_string_length(v) > l->len) {
				l->holder = j;
				l->key = k;
				l->len = json_string_length(v);
			} else {
				find_longest(v, l);
			}
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) {
			if (json_is_string(v) && json_string_length(v) > l->len) {
				l->holder = j;
				l->key = NULL;
				l->index = i;
				l->len = json_string_length(v);
			} else {
				find_longest(v, l);
			}
		}
	}
}

/* The longest array below j (most elements). */
static json_t *find_array(json_t *j, json_t *best)
{
	const char *k;
	json_t *v;
	size_t i;
	if (json_is_array(j) && (!best || json_array_size(j) > json_array_size(best)))
		best = j;
	if (json_is_object(j)) {
		json_object_foreach(j, k, v)
			best = find_array(v, best);
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			best = find_array(v, best);
	}
	return best;
}

static size_t json_tokens(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
	size_t n = s ? mi_token_estimate(s, strlen(s)) : 0;
	free(s);
	return n;
}

/* Shortens the string to about keep bytes, at a line end when one is near,
 * never inside a UTF-8 sequence, and marks the cut. */
static void cut_string(longest *l, size_t keep)
{
	json_t *v = l->key ? json_object_get(l->holder, l->key) :
			     json_array_get(l->holder, l->index);
	const char *s = json_string_value(v);
	size_t n = mi_utf8_cut(s, keep), back;
	mi_buf b = {0};
	for (back = n; back > n * 3 / 4 && back > 0; back--)
		if (s[back - 1] == '\n') {
			n = back;
			break;
		}
	mi_buf_add(&b, s, n);
	mi_buf_adds(&b, memchr(s, '\n', l->len) ? "V* [cut]\n" : "...");
	v = json_stringn(b.buf, b.len);
	if (l->key)
		json_object_set_new(l->holder, l->key, v);
	else
		json_array_set_new(l->holder, l->index, v);
	mi_buf_release(&b);
}

/* Halves the longest array (never below one item); false when none has two. */
static bool halve_array(json_t *j, json_t **arr, size_t *arr_before)
{
	json_t *a = find_array(j, NULL);
	size_t n = a ? json_array_size(a) : 0;
	if (n <= 1)
		return false;
	if (!*arr) {
		*arr = a;
		*arr_before = n;
	}
	while (json_array_size(a) > n / 2 && json_array_size(a) > 1)
		json_array_remove(a, json_array_size(a) - 1);
	return true;
}

bool mi_mcp_cap_json(mi_buf *json, size_t max, const mi_mcp_cut *cut)
{
	json_t *j;
	size_t tok, budget, rounds;
	size_t arr_before = 0;
	json_t *arr = NULL;
	bool changed = false;
	char *s;

	if (!json->len)
		return false;
	tok = mi_token_estimate(json->buf, json->len);
	if (tok <= max && !(cut && cut->cut))
		return false;
	j = json_loadb(json->buf, json->len, 0, NULL);
	if (!json_is_object(j)) {
		json_decref(j);
		return false;
	}
	budget = mi_mcp_room(max);
	for (rounds = 0; tok > budget && rounds < MI_FIT_ROUNDS; rounds++) {
		longest l = {0};
		size_t over = tok - budget + 8, ltok = 0;
		json_t *big;
		find_longest(j, &l);
		if (l.holder)
			ltok = mi_token_estimate(json_string_value(l.key ?
				json_object_get(l.holder, l.key) :
				json_array_get(l.holder, l.index)), l.len);
		/* Cutting one string pays only when it holds much of what is
		 * over; many long strings (600 signatures) need the array
		 * halved, or the rounds run out over budget. */
		big = find_array(j, NULL);
		if (l.holder && l.len > 96 &&
		    (ltok * 2 >= over || !big || json_array_size(big) <= 1)) {
			/* Remove what is over, scaled from tokens to bytes. */
			size_t drop = over * l.len / (ltok + 1) + 16;
			cut_string(&l, drop < l.len - 32 ? l.len - drop : 32);
		} else if (!halve_array(j, &arr, &arr_before)) {
			/* One item left: it stays (an empty page would send a
			 * client paging by next_offset round in a loop), and
			 * its shorter strings are cut instead. */
			if (!l.holder || l.len <= 16)
				break;
			cut_string(&l, l.len / 2);
		}
		changed = true;
		tok = json_tokens(j);
	}
	/* Never over budget: drop array tails, then halve strings, then keep
	 * nothing but the cut's own fields. */
	for (rounds = 0; tok > budget && rounds < 64 * MI_FIT_ROUNDS; rounds++) {
		longest l = {0};
		if (!halve_array(j, &arr, &arr_before)) {
			find_longest(j, &l);
			/* Over 32 bytes a cut always shortens (its mark is 9). */
			if (!l.holder || l.len <= 32)
				break;
			cut_string(&l, l.len / 2);
		}
		changed = true;
		tok = json_tokens(j);
	}
	/* Only short strings left and still over: nothing of it can be sent
	 * within max_tokens (the fields below need about 16 tokens). */
	bool emptied = tok + 16 > max;
	if (emptied) {
		json_object_clear(j);
		changed = true;
	}
	if (changed || (cut && cut->cut)) {
		json_object_set_new(j, "truncated", json_true());
		if (cut && cut->cut && cut->paged) {
			json_t *a = json_object_get(j, cut->items);
			size_t shown = json_is_array(a) ? json_array_size(a) : 0;
			json_object_set_new(j, "total", json_integer((json_int_t)cut->total));
			/* An emptied page still moves on, or paging would loop. */
			json_object_set_new(j, "next_offset",
					    json_integer((json_int_t)(cut->offset +
								      (emptied && !shown ? 1 : shown))));
		} else if (arr && !json_object_get(j, "total")) {
			json_object_set_new(j, "total", json_integer((json_int_t)arr_before));
		}
		s = json_dumps(j, JSON_COMPACT);
		if (s) {
			mi_buf_reset(json);
			mi_buf_adds(json, s);
			free(s);
		}
	}
	json_decref(j);
	return changed || (cut && cut->cut);
}

size_t mi_mcp_count_items(const mi_buf *json, const char *key, size_t *total)
{
	json_t *j = json->len ? json_loadb(json->buf, json->len, 0, NULL) : NULL;
	json_t *a = json_object_get(j, key), *t = json_object_get(j, "total");
	size_t n = json_is_array(a) ? json_array_size(a) : 0;
	if (total)
		*total = json_is_integer(t) ? (size_t)json_integer_value(t) : n;
	json_decref(j);
	return n;
}
