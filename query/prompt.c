/*
 * prompt.c - read-side composition for the host model: a prompt that
 * carries a file's folded outline and only the bodies a task needs, within
 * a token budget; and the facts about a file an artifact is pinned to (its
 * content hash, a symbol's line, its symbol names).
 */
#include "query_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROMPT_DEFAULT_BUDGET 6000
#define OMIT_NAMES 20    /* names listed in the text when bodies are left out */
#define OMIT_RESERVE 120 /* tokens kept for that list */

static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Opens a snapshot and loads path (normalised into norm); errors say what
 * to do.  On success the caller releases rec and aborts *t. */
static int load(mi_query *q, const char *path, mi_buf *norm, mi_txn **t,
		mi_file_rec *rec, const char **src, size_t *len, mi_parsed *p,
		mi_out *out)
{
	int rc;
	if (!path || !*path)
		return mi_out_error(out, MI_ERR_ARG, "Missing required argument: path");
	if (mi_path_normalize(path, norm))
		return mi_out_error(out, MI_ERR_PATH, "Path '%s' is outside the repository: "
				    "give a repo-relative path such as src/main.c", path);
	rc = mi_txn_begin(q->st, false, t);
	if (rc)
		return mi_out_error(out, rc, "Cannot read index %s: %s", q->path,
				    mi_strerror(rc));
	rc = mi_q_load_file(*t, norm->buf, NULL, rec, src, len, p);
	if (rc) {
		mi_txn_abort(*t);
		*t = NULL;
		if (rc == MI_ERR_NOTFOUND)
			return mi_out_error(out, rc, "'%s' is not in the index. Check the path "
					    "(repo-relative, a file), or rebuild: mcpidx build REPO",
					    norm->buf);
		return mi_out_error(out, rc, "Cannot read '%s' from the index: %s",
				    norm->buf, mi_strerror(rc));
	}
	return 0;
}

/* True when symbol s of p is called sel: NAME or Parent.NAME. */
static bool sym_is(const mi_symbol *s, const char *sel)
{
	size_t pl = strlen(s->parent);
	if (strcmp(s->name, sel) == 0)
		return true;
	return pl && strncmp(sel, s->parent, pl) == 0 && sel[pl] == '.' &&
	       strcmp(sel + pl + 1, s->name) == 0;
}

/* Index of the symbol sel names, preferring one with a body; -1. */
static long find_sym(const mi_parsed *p, const char *sel)
{
	long best = -1;
	for (size_t i = 0; i < p->nsyms; i++) {
		if (!sym_is(&p->syms[i], sel) || p->syms[i].kind == MI_KIND_PROTOTYPE)
			continue;
		if (best < 0 || (!p->syms[best].body_byte && p->syms[i].body_byte))
			best = (long)i;
	}
	return best;
}

static void qualified(const mi_symbol *s, mi_buf *out)
{
	mi_buf_reset(out);
	if (*s->parent)
		mi_buf_addf(out, "%s.", s->parent);
	mi_buf_adds(out, s->name);
}

static bool callable(int kind)
{
	return kind == MI_KIND_FUNCTION || kind == MI_KIND_METHOD;
}

int mi_query_file_hash(mi_query *q, const char *path, uint8_t hash[16])
{
	mi_txn *t;
	mi_file_rec rec;
	const void *v;
	size_t vl;
	int rc = mi_txn_begin(q->st, false, &t);
	if (rc)
		return rc;
	rc = mi_get(t, MI_DB_FILES, path, strlen(path), &v, &vl);
	if (!rc)
		rc = mi_file_decode(v, vl, &rec);
	if (!rc) {
		memcpy(hash, rec.hash, 16);
		mi_file_rec_release(&rec);
	}
	mi_txn_abort(t);
	return rc;
}

int mi_query_file_info(mi_query *q, const char *path, const char *symbol,
		       uint8_t hash[16], uint32_t *line, mi_out *out)
{
	mi_buf norm = {0};
	mi_txn *t = NULL;
	mi_file_rec rec;
	const char *src;
	size_t len;
	mi_parsed p;
	long si;
	int rc;
	mi_parsed_init(&p);
	rc = load(q, path, &norm, &t, &rec, &src, &len, &p, out);
	if (rc)
		goto out;
	memcpy(hash, rec.hash, 16);
	if (line)
		*line = 0;
	if (symbol && *symbol) {
		si = find_sym(&p, symbol);
		if (si < 0)
			rc = mi_out_error(out, MI_ERR_NOTFOUND, "No symbol '%s' in %s. read_file "
					  "{\"path\": \"%s\", \"filter\": \"all\"} lists its symbols.",
					  symbol, norm.buf, norm.buf);
		else if (line)
			*line = p.syms[si].start_line;
	}
	mi_file_rec_release(&rec);
	mi_txn_abort(t);
out:
	mi_parsed_release(&p);
	mi_buf_release(&norm);
	return rc;
}

int mi_query_file_symbols(mi_query *q, const char *path, mi_query_file_sym_fn fn,
			  void *ctx, mi_out *out)
{
	mi_buf norm = {0}, name = {0};
	mi_txn *t = NULL;
	mi_file_rec rec;
	const char *src;
	size_t len;
	mi_parsed p;
	int rc;
	mi_parsed_init(&p);
	rc = load(q, path, &norm, &t, &rec, &src, &len, &p, out);
	if (rc)
		goto out;
	for (size_t i = 0; i < p.nsyms && !rc; i++) {
		if (p.syms[i].kind == MI_KIND_PROTOTYPE)
			continue;
		qualified(&p.syms[i], &name);
		rc = fn(ctx, name.buf, p.syms[i].kind, p.syms[i].start_line,
			p.syms[i].end_line);
	}
	mi_file_rec_release(&rec);
	mi_txn_abort(t);
out:
	mi_parsed_release(&p);
	mi_buf_release(&norm);
	mi_buf_release(&name);
	return rc;
}

/* Appends one body section "--- NAME (lines A-B)\n<source>\n", cut to
 * max_tokens when it is longer (the cut says so). */
static void add_body(mi_buf *b, const mi_symbol *s, const char *src, size_t len,
		     const char *qname, size_t max_tokens)
{
	size_t from = s->start_byte < len ? s->start_byte : len;
	size_t to = s->end_byte < len ? s->end_byte : len;
	size_t n = to > from ? to - from : 0;
	/* Start at the beginning of the line so indentation stays. */
	while (from > 0 && src[from - 1] != '\n' && (src[from - 1] == ' ' || src[from - 1] == '\t')) {
		from--;
		n++;
	}
	mi_buf_addf(b, "--- %s (lines %u-%u)\n", qname, s->start_line, s->end_line);
	if (s->doc && *s->doc)
		mi_buf_addf(b, "[doc comment: %s]\n", s->doc);
	if (mi_token_estimate(src + from, n) > max_tokens) {
		size_t keep = max_tokens * 3 < n ? max_tokens * 3 : n;
		while (keep > 0 && keep < n && ((unsigned char)src[from + keep] & 0xC0) == 0x80)
			keep--;
		mi_buf_add(b, src + from, keep);
		mi_buf_addf(b, "\n[... body cut at about %zu tokens for the budget]\n", max_tokens);
		return;
	}
	mi_buf_add(b, src + from, n);
	mi_buf_addc(b, '\n');
}

static bool in_focus(const mi_prompt_opts *o, const mi_symbol *s)
{
	for (size_t i = 0; i < o->nfocus; i++)
		if (sym_is(s, o->focus[i]))
			return true;
	return false;
}

static void json_names(mi_buf *j, const char *key, const mi_buf *names)
{
	const char *p = mi_buf_str(names), *end = p + names->len;
	bool first = true;
	mi_buf_addf(j, ",\"%s\":[", key);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (!first)
			mi_buf_addc(j, ',');
		first = false;
		mi_buf_add_json_str(j, p, n);
		p += n + 1;
	}
	mi_buf_addc(j, ']');
}

int mi_query_prompt(mi_query *q, const mi_prompt_opts *o, mi_out *out)
{
	size_t budget = o->budget_tokens ? o->budget_tokens : PROMPT_DEFAULT_BUDGET;
	mi_buf norm = {0}, head = {0}, bodies = {0}, name = {0};
	mi_buf used = {0}, omitted = {0};
	mi_view_opts vo;
	mi_out view;
	mi_txn *t = NULL;
	mi_file_rec rec;
	const char *src, *outline_mode = "outline";
	size_t len, spent;
	mi_parsed p;
	long target = -1;
	char hex[33];
	int rc;

	mi_out_reset(out);
	memset(&view, 0, sizeof view);
	mi_parsed_init(&p);
	rc = load(q, o->path, &norm, &t, &rec, &src, &len, &p, out);
	if (rc)
		goto out;
	if (o->symbol && *o->symbol) {
		target = find_sym(&p, o->symbol);
		if (target < 0) {
			rc = mi_out_error(out, MI_ERR_NOTFOUND, "No symbol '%s' in %s. read_file "
					  "{\"path\": \"%s\", \"filter\": \"all\"} lists its symbols.",
					  o->symbol, norm.buf, norm.buf);
			goto out_txn;
		}
	}

	/* The outline: all symbols, bodies folded; compact when it alone would
	 * take more than half the budget; cut to half when even that is too long. */
	memset(&vo, 0, sizeof vo);
	vo.mode = "outline";
	vo.all = true;
	vo.max_tokens = 1000000;
	rc = mi_render_view(norm.buf, src, len, &p, &vo, &view);
	if (!rc && mi_token_estimate(view.text.buf, view.text.len) > budget / 2) {
		outline_mode = "compact";
		vo.mode = "compact";
		vo.max_tokens = budget / 2 > 100 ? budget / 2 : 100;
		mi_out_reset(&view);
		rc = mi_render_view(norm.buf, src, len, &p, &vo, &view);
	}
	mi_buf_adds(&head, o->instructions ? o->instructions : "");
	if (head.len && head.buf[head.len - 1] != '\n')
		mi_buf_addc(&head, '\n');
	mi_buf_addf(&head, "\nFile: %s (%s, %u lines)\n", norm.buf, mi_lang_name(rec.lang),
		    rec.lines);
	if (target >= 0) {
		qualified(&p.syms[target], &name);
		mi_buf_addf(&head, "Symbol: %s (%s, lines %u-%u)\n", name.buf,
			    mi_kind_name(p.syms[target].kind), p.syms[target].start_line,
			    p.syms[target].end_line);
	}
	mi_buf_addf(&head, "\nOutline (%s; bodies folded to { ... }):\n", outline_mode);
	mi_buf_add(&head, view.text.buf, view.text.len);
	spent = mi_token_estimate(head.buf, head.len);

	/* Bodies: the target's first, then what the task asks for, in source
	 * order, while the budget lasts. */
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < p.nsyms; i++) {
			const mi_symbol *s = &p.syms[i];
			bool want, first = pass == 0;
			size_t cost, left;
			if (first != ((long)i == target))
				continue;
			if (first)
				want = true;
			else if (target >= 0)
				want = false;
			else if (o->nfocus)
				want = in_focus(o, s) && s->body_byte;
			else
				want = callable(s->kind) && s->body_byte &&
				       (o->bodies == MI_PROMPT_BODIES_ALL ||
					(o->bodies == MI_PROMPT_BODIES_PUBLIC && s->vis == MI_VIS_PUBLIC));
			if (!want)
				continue;
			qualified(s, &name);
			cost = mi_token_estimate(src + (s->start_byte < len ? s->start_byte : len),
						 s->end_byte > s->start_byte && s->end_byte <= len ?
						 s->end_byte - s->start_byte : 0) + 12;
			left = budget > spent + OMIT_RESERVE ? budget - spent - OMIT_RESERVE : 0;
			if (!first && (cost > left || (o->deadline_us && mono_us() > o->deadline_us))) {
				mi_buf_addf(&omitted, "%s%s", omitted.len ? "\n" : "", name.buf);
				continue;
			}
			if (!bodies.len)
				mi_buf_adds(&bodies, "\nBodies:\n");
			add_body(&bodies, s, src, len, name.buf, first && cost > left ?
				 (left > 200 ? left - 50 : 150) : cost + 50);
			spent = mi_token_estimate(head.buf, head.len) +
				mi_token_estimate(bodies.buf, bodies.len);
			mi_buf_addf(&used, "%s%s", used.len ? "\n" : "", name.buf);
		}
	}
	mi_buf_add(&out->text, head.buf, head.len);
	mi_buf_add(&out->text, bodies.buf, bodies.len);
	if (omitted.len) {
		size_t shown = 0, total = 1;
		mi_buf_adds(&out->text, "\nBodies left out for the token budget (their "
			    "signatures are in the outline): ");
		for (size_t i = 0; i < omitted.len; i++)
			total += omitted.buf[i] == '\n';
		for (size_t i = 0; i < omitted.len && shown < OMIT_NAMES; i++) {
			if (omitted.buf[i] == '\n') {
				if (++shown < OMIT_NAMES)
					mi_buf_adds(&out->text, ", ");
			} else {
				mi_buf_addc(&out->text, omitted.buf[i]);
			}
		}
		if (total > OMIT_NAMES)
			mi_buf_addf(&out->text, " and %zu more", total - OMIT_NAMES);
		mi_buf_addc(&out->text, '\n');
	}

	mi_hash_hex(rec.hash, hex);
	mi_buf_adds(&out->json, "{\"path\":");
	mi_buf_add_json_str(&out->json, norm.buf, norm.len);
	mi_buf_addf(&out->json, ",\"lang\":\"%s\",\"hash\":\"%s\",\"lines\":%u",
		    mi_lang_name(rec.lang), hex, rec.lines);
	if (target >= 0) {
		qualified(&p.syms[target], &name);
		mi_buf_adds(&out->json, ",\"symbol\":");
		mi_buf_add_json_str(&out->json, name.buf, name.len);
		mi_buf_addf(&out->json, ",\"line\":%u", p.syms[target].start_line);
	}
	mi_buf_addf(&out->json, ",\"outline_mode\":\"%s\",\"tokens\":%zu,\"budget\":%zu",
		    outline_mode, mi_token_estimate(out->text.buf, out->text.len), budget);
	json_names(&out->json, "bodies", &used);
	json_names(&out->json, "omitted", &omitted);
	mi_buf_addc(&out->json, '}');

out_txn:
	mi_file_rec_release(&rec);
	mi_txn_abort(t);
out:
	mi_out_release(&view);
	mi_parsed_release(&p);
	mi_buf_release(&norm);
	mi_buf_release(&head);
	mi_buf_release(&bodies);
	mi_buf_release(&name);
	mi_buf_release(&used);
	mi_buf_release(&omitted);
	return rc;
}
