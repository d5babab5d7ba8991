/*
 * catalog.c - read-only answers over the tool catalog: find_tools (BM25F
 * over the tool postings), describe_tools at three levels of detail, and
 * list_namespaces.  Upstream text is shown only through mi_sanitize.
 */
#include "query_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FT_DEFAULT 5
#define FT_MAX 50
#define FT_TERMS 32          /* distinct query terms kept */
#define FT_QUERY_MAX 4096    /* query bytes read */
#define FT_ECHO 512          /* query bytes quoted back */
#define FT_SPARE 16          /* hits ranked beyond the limit, for hidden ones */
#define SUMMARY_MAX 160      /* bytes of an L1 summary line */
#define DESC_MAX 8192        /* bytes of an L2 description */

static int no_catalog(mi_query *q, mi_out *out)
{
	return mi_out_error(out, MI_ERR_NOTFOUND,
			    "The index at %s holds no tool catalog. Run: mcpidx build --servers "
			    "FILE -o %s (FILE is the mcpServers JSON your MCP client uses)",
			    q->path, q->path);
}

size_t mi_query_tool_count(mi_query *q)
{
	mi_txn *t;
	int64_t n = 0;
	if (mi_txn_begin(q->st, false, &t))
		return 0;
	if (mi_meta_get_int(t, "tools.n", &n))
		n = 0;
	mi_txn_abort(t);
	return n > 0 ? (size_t)n : 0;
}

char *mi_query_servers_file(mi_query *q)
{
	mi_txn *t;
	char *s = NULL;
	if (mi_txn_begin(q->st, false, &t))
		return NULL;
	if (mi_meta_get_str(t, "tools.servers_file", &s))
		s = NULL;
	mi_txn_abort(t);
	return s;
}

/* ---- find_tools ---------------------------------------------------------------- */

typedef struct ft_term {
	char term[MI_TOK_MAX + 1];
	size_t len;
	float qtf;
} ft_term;

typedef struct ft_query {
	ft_term t[FT_TERMS];
	size_t n;
} ft_query;

static void on_qterm(void *ctx, const char *term, size_t len)
{
	ft_query *q = ctx;
	for (size_t i = 0; i < q->n; i++)
		if (q->t[i].len == len && !memcmp(q->t[i].term, term, len)) {
			q->t[i].qtf += 1;
			return;
		}
	if (q->n == FT_TERMS || len > MI_TOK_MAX)
		return;
	memcpy(q->t[q->n].term, term, len);
	q->t[q->n].term[len] = 0;
	q->t[q->n].len = len;
	q->t[q->n].qtf = 1;
	q->n++;
}

/*
 * Model-free expansion: everyday words of task descriptions and the words
 * tool authors use for the same thing.  An expansion term weighs
 * FT_EXPAND_WEIGHT of a query term.  Written from the tuning half of
 * bench/tools' paraphrases only; docs/format-catalog.md has what it earns
 * on the other half.  Sorted for bsearch.
 */
#define FT_EXPAND_WEIGHT 0.5f
static const char *const ft_expand[][2] = {
	{"around", "near local"}, {"button", "click element"}, {"chat", "message channel"},
	{"container", "pod"}, {"containers", "pods"}, {"eat", "restaurant food"},
	{"end", "kill terminate stop"}, {"enumerate", "list map"}, {"forget", "delete remove"},
	{"hungry", "restaurant food"}, {"job", "process"}, {"lately", "recent"},
	{"press", "click"}, {"puzzle", "problem"}, {"reason", "think thinking"},
	{"said", "message"}, {"say", "message"}, {"sentence", "text line"},
	{"site", "website url"}, {"street", "address"}, {"swap", "replace edit"},
	{"team", "users workspace"},
};

static int ft_expand_cmp(const void *k, const void *e)
{
	return strcmp(k, *(const char *const *)e);
}

typedef struct ft_exp_ctx {
	ft_query *q;
	size_t base;       /* terms of the query itself */
} ft_exp_ctx;

static void on_xterm(void *ctx, const char *term, size_t len)
{
	ft_exp_ctx *x = ctx;
	ft_query *q = x->q;
	for (size_t i = 0; i < q->n; i++)
		if (q->t[i].len == len && !memcmp(q->t[i].term, term, len))
			return;   /* the query says it already, or another expansion did */
	if (q->n == FT_TERMS || len > MI_TOK_MAX)
		return;
	memcpy(q->t[q->n].term, term, len);
	q->t[q->n].term[len] = 0;
	q->t[q->n].len = len;
	q->t[q->n].qtf = FT_EXPAND_WEIGHT;
	q->n++;
}

static void ft_expand_query(mi_tok *tk, const char *s, size_t len, ft_query *q)
{
	ft_exp_ctx x = {q, q->n};
	size_t i = 0;
	while (i < len) {
		char w[24];
		size_t n = 0;
		while (i < len && !isalpha((unsigned char)s[i]))
			i++;
		while (i < len && isalpha((unsigned char)s[i])) {
			if (n < sizeof(w) - 1)
				w[n++] = (char)tolower((unsigned char)s[i]);
			i++;
		}
		w[n] = 0;
		const char *const *hit = n ? bsearch(w, ft_expand, sizeof(ft_expand) / sizeof(ft_expand[0]),
						       sizeof(ft_expand[0]), ft_expand_cmp) : NULL;
		if (hit)
			mi_tok_run(tk, hit[1], strlen(hit[1]), 0, on_xterm, &x);
	}
}

typedef struct ft_hit {
	uint32_t id;
	float score;
} ft_hit;

static int cmp_hit(const void *a, const void *b)
{
	const ft_hit *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * A task that needs several tools ("create a branch and open a merge
 * request") says each of them in some of its words; the tools that match
 * the same words as one already ranked (its twins on other servers, its
 * siblings) say nothing new.  Greedy, over the window the scores chose: each
 * next place goes to the best score x (1 - d + d x novelty), novelty being
 * the share of a tool's matched query weight (qtf x idf) that no tool above
 * it has matched.  Scores shown are these.
 */
static void ft_diversify(ft_hit *hits, size_t nh, const uint32_t *tmask, const float *tw,
			 size_t nterms, float d)
{
	uint32_t covered = 0;
	if (d <= 0)
		return;
	for (size_t p = 0; p < nh; p++) {
		size_t best = p;
		float bestv = -1;
		for (size_t j = p; j < nh; j++) {
			uint32_t m = tmask[hits[j].id];
			float all = 0, fresh = 0;
			for (size_t i = 0; i < nterms; i++)
				if (m & (1u << i)) {
					all += tw[i];
					if (!(covered & (1u << i)))
						fresh += tw[i];
				}
			float v = hits[j].score * (1 - d + d * (all > 0 ? fresh / all : 1));
			if (v > bestv) {
				bestv = v;
				best = j;
			}
		}
		ft_hit h = hits[best];
		memmove(&hits[p + 1], &hits[p], (best - p) * sizeof(*hits));
		h.score = bestv;
		hits[p] = h;
		covered |= tmask[h.id];
	}
}

typedef struct ft_name_ctx {
	const ft_query *q;
	int term;          /* the query term the name is, -1 none, -2 several */
} ft_name_ctx;

static void on_name_term(void *ctx, const char *term, size_t len)
{
	ft_name_ctx *c = ctx;
	int hit = -1;
	for (size_t i = 0; i < c->q->n; i++)
		if (c->q->t[i].len == len && !memcmp(c->q->t[i].term, term, len))
			hit = (int)i;
	c->term = c->term == -1 ? (hit >= 0 ? hit : -2) : -2;
}

/*
 * The query terms that are servers the task names: a whole word of the
 * query that is a server's name, or the part of it before a '-'
 * ("Linear" for linear-tl).  A mask over q's terms; one seek per word.
 */
static uint32_t ft_named_servers(mi_txn *t, mi_tok *tk, const char *query, const ft_query *q)
{
	mi_cursor *cur;
	uint32_t named = 0;
	if (mi_cursor_open(t, MI_DB_SERVERS, &cur))
		return 0;
	for (const char *p = query; *p;) {
		char w[MI_TOK_MAX + 2];
		size_t n = 0;
		const void *k, *v;
		size_t kl, vl;
		while (*p && !isalnum((unsigned char)*p))
			p++;
		for (; isalnum((unsigned char)*p); p++)
			if (n < sizeof(w) - 1)
				w[n++] = (char)tolower((unsigned char)*p);
		if (!n || n > MI_TOK_MAX ||
		    mi_cursor_seek(cur, w, n, &k, &kl, &v, &vl) || kl < n || memcmp(k, w, n) ||
		    (kl > n && ((const char *)k)[n] != '-'))
			continue;
		ft_name_ctx c = {q, -1};
		mi_tok_run(tk, w, n, 0, on_name_term, &c);
		if (c.term >= 0)
			named |= 1u << c.term;
	}
	mi_cursor_close(cur);
	return named;
}

/*
 * A task that names two servers ("find the Sentry error and open a Linear
 * ticket") wants a tool of each, yet the first server's many tools can fill
 * every place.  named: the query terms that name a server (two or more);
 * each named server none of whose tools is among the first `limit` gets its best
 * tool into the last of those places not yet given this way.  smask: per
 * tool, the query terms its server field matched.
 */
static void ft_server_slots(ft_hit *hits, size_t *nh, size_t limit, const uint32_t *touched,
			    size_t ntouched, const float *acc, const uint32_t *smask, uint32_t named)
{
	size_t top = limit < *nh ? limit : *nh, slot = top;
	for (unsigned b = 0; b < 32 && slot > 1; b++) {
		uint32_t shown = 0;
		if (!(named & (1u << b)))
			continue;
		for (size_t p = 0; p < top; p++)
			shown |= smask[hits[p].id];
		if (shown & (1u << b))
			continue;
		ft_hit best = {0, -1};
		for (size_t i = 0; i < ntouched; i++) {
			ft_hit h = {touched[i], acc[touched[i]]};
			if ((smask[h.id] & (1u << b)) && (best.score < 0 || cmp_hit(&h, &best) < 0))
				best = h;
		}
		size_t at = 0;   /* where it stands now, or *nh when not kept */
		while (at < *nh && hits[at].id != best.id)
			at++;
		if (at == *nh)
			(*nh)++;   /* hits has room for every touched tool */
		slot--;
		memmove(&hits[slot + 1], &hits[slot], (at - slot) * sizeof(*hits));
		hits[slot] = best;
	}
}

/* Loads tool id's record inside t; *name gets "server/tool" (in the map). */
static int load_tool(mi_txn *t, uint32_t id, const char **name, size_t *nl, mi_tool_rec *r)
{
	uint8_t k[4];
	const void *v;
	size_t vl;
	int rc;
	mi_be32(k, id);
	if ((rc = mi_get(t, MI_DB_TOOLIDS, k, 4, &v, &vl)))
		return rc;
	*name = v;
	*nl = vl;
	if ((rc = mi_get(t, MI_DB_TOOLS, v, vl, &v, &vl)))
		return rc == MI_ERR_NOTFOUND ? MI_ERR_CORRUPT : rc;
	return mi_tool_decode(v, vl, r);
}

static int policy_state(const mi_tools_policy *p, const char *name, size_t nl,
			const mi_tool_rec *r)
{
	char buf[512];
	if (!p || !p->state)
		return MI_TOOL_VISIBLE;
	if (nl >= sizeof(buf))
		return MI_TOOL_DENIED;
	memcpy(buf, name, nl);
	buf[nl] = 0;
	return p->state(p->ctx, buf, r->hash, r->flags);
}

/* One L1 entry: text line(s) and a JSON object. */
static void l1_entry(mi_out *out, const char *name, size_t nl, const mi_tool_rec *r,
		     float score, bool with_score, const char *related)
{
	mi_buf sum = {0}, san = {0};
	unsigned flags = mi_sanitize(r->desc, r->desc_len, DESC_MAX, &san);
	mi_tool_first_line(san.buf ? san.buf : "", san.len, SUMMARY_MAX, &sum);
	if (!sum.len && r->title_len)
		mi_sanitize(r->title, r->title_len, SUMMARY_MAX, &sum);
	/* text */
	mi_buf_add(&out->text, name, nl);
	mi_buf_add(&out->text, r->sig, r->sig_len);
	if (with_score)
		mi_buf_addf(&out->text, "  %.2f", score);
	mi_buf_addc(&out->text, '\n');
	if (sum.len)
		mi_buf_addf(&out->text, "  %s\n", sum.buf);
	if (flags & (MI_SAN_HIDDEN | MI_SAN_MARKUP | MI_SAN_INSTRUCTION)) {
		mi_buf_adds(&out->text, "  V* [!] description: ");
		mi_sanitize_flag_names(flags & ~MI_SAN_TRUNCATED, &out->text);
		mi_buf_addc(&out->text, '\n');
	}
	if (r->flags & (MI_TOOLF_DESTRUCTIVE | MI_TOOLF_SENSITIVE))
		mi_buf_adds(&out->text, "  V* needs confirmation to execute\n");
	if (related && *related)
		mi_buf_addf(&out->text, "  V* often used with: %s\n", related);
	/* json */
	if (out->json.buf[out->json.len - 1] != '[')
		mi_buf_addc(&out->json, ',');
	mi_buf_adds(&out->json, "{\"name\":");
	mi_buf_add_json_str(&out->json, name, nl);
	mi_buf_adds(&out->json, ",\"server\":");
	mi_buf_add_json_str(&out->json, r->server, r->server_len);
	mi_buf_adds(&out->json, ",\"summary\":");
	mi_buf_add_json_str(&out->json, sum.buf ? sum.buf : "", sum.len);
	mi_buf_adds(&out->json, ",\"signature\":");
	mi_buf_add_json_str(&out->json, r->sig, r->sig_len);
	if (with_score)
		mi_buf_addf(&out->json, ",\"score\":%.4f", score);
	if (flags & (MI_SAN_HIDDEN | MI_SAN_MARKUP | MI_SAN_INSTRUCTION)) {
		mi_buf_adds(&out->json, ",\"warnings\":");
		mi_sanitize_flag_names(flags & ~MI_SAN_TRUNCATED, &out->json);
	}
	if (r->flags & (MI_TOOLF_DESTRUCTIVE | MI_TOOLF_SENSITIVE))
		mi_buf_adds(&out->json, ",\"needs_confirmation\":true");
	if (related && *related) {
		mi_buf_adds(&out->json, ",\"related\":");
		mi_buf_add_json_str(&out->json, related, strlen(related));
	}
	mi_buf_addc(&out->json, '}');
	mi_buf_release(&sum);
	mi_buf_release(&san);
}

int mi_tool_level(const char *s)
{
	static const char *const names[][2] = {{"L0", "0"}, {"L1", "1"}, {"L2", "2"}};
	for (int i = 0; s && i < 3; i++)
		if (!strcmp(s, names[i][0]) || !strcmp(s, names[i][1]) ||
		    ((s[0] == 'l') && s[1] == names[i][0][1] && !s[2]))
			return i;
	return -1;
}

int mi_query_find_tools(mi_query *q, const mi_tools_opts *o, mi_out *out)
{
	const mi_tool_bm25 *P = o->params ? o->params : &mi_tool_bm25_params;
	size_t limit = o->limit ? o->limit : FT_DEFAULT;
	mi_txn *t = NULL;
	mi_tok *tk = NULL;
	ft_query fq = {0};
	float *acc = NULL, *stfn = NULL, *nhit = NULL, *nlen = NULL, avg[MI_TF__COUNT];
	uint32_t *touched = NULL, *sid = NULL, *tmask = NULL, *smask = NULL;
	float tw[FT_TERMS] = {0};
	size_t ntouched = 0, shown = 0;
	ft_hit *hits = NULL;
	int64_t n = 0;
	int rc;

	mi_out_reset(out);
	if (limit > FT_MAX)
		limit = FT_MAX;
	if (!o->query || !*o->query)
		return mi_out_error(out, MI_ERR_ARG, "find_tools needs a query: the task in a few words");
	if ((rc = mi_txn_begin(q->st, false, &t)))
		return mi_out_error(out, rc, "Cannot read index %s: %s", q->path, mi_strerror(rc));
	if (mi_meta_get_int(t, "tools.n", &n) || n <= 0) {
		rc = no_catalog(q, out);
		goto done;
	}
	for (int f = 0; f < MI_TF__COUNT; f++) {
		char key[32];
		int64_t tot = 0;
		snprintf(key, sizeof(key), "tools.len.%s", mi_tool_field_names[f]);
		if (mi_meta_get_int(t, key, &tot))
			tot = 0;
		avg[f] = tot > 0 ? (float)tot / (float)n : 1.0f;
	}
	if ((rc = mi_tok_new(&tk))) {
		mi_out_error(out, rc, "the English stemmer is not available (libstemmer)");
		goto done;
	}
	{
		size_t ql = strlen(o->query);
		mi_tok_run(tk, o->query, ql > FT_QUERY_MAX ? FT_QUERY_MAX : ql, 0, on_qterm, &fq);
		if (o->expand)
			ft_expand_query(tk, o->query, ql > FT_QUERY_MAX ? FT_QUERY_MAX : ql, &fq);
	}
	acc = mi_xcalloc((size_t)n, sizeof(*acc));
	nhit = mi_xcalloc((size_t)n, sizeof(*nhit));
	nlen = mi_xcalloc((size_t)n, sizeof(*nlen));
	touched = mi_xmalloc((size_t)n * sizeof(*touched));
	sid = mi_xmalloc((size_t)n * sizeof(*sid));
	stfn = mi_xmalloc((size_t)n * sizeof(*stfn));
	tmask = mi_xcalloc((size_t)n, sizeof(*tmask));
	smask = mi_xcalloc((size_t)n, sizeof(*smask));
	for (size_t i = 0; i < fq.n; i++) {
		const void *v;
		size_t vl;
		const uint8_t *p, *e;
		uint32_t id = 0, d, tf[MI_TF__COUNT], len[MI_TF__COUNT];
		unsigned mask;
		size_t df = 0;
		if (mi_get(t, MI_DB_TPOST, fq.t[i].term, fq.t[i].len, &v, &vl))
			continue;
		/* One pass: each entry's tfn, then the idf from their count. */
		p = v;
		e = p + vl;
		for (size_t k = 0; mi_tpost_next(&p, e, &d, &mask, tf, len); k++) {
			float tfn = 0;
			id = k ? id + d : d;
			if (id >= (uint32_t)n)
				break;
			for (int f = 0; f < MI_TF__COUNT; f++) {
				if (!(mask & (1u << f)) || (f == MI_TF_ALIAS && o->no_aliases))
					continue;
				tfn += P->w[f] * (float)tf[f] /
				       (1.0f - P->b[f] + P->b[f] * (float)len[f] / avg[f]);
			}
			sid[df] = id;
			if (mask & (1u << MI_TF_SERVER))
				smask[id] |= 1u << i;
			if (mask & (1u << MI_TF_NAME)) {   /* the query says a part of its name */
				nhit[id] += 1;
				nlen[id] = (float)len[MI_TF_NAME];
			}
			stfn[df++] = tfn;
		}
		float idf = logf(1.0f + ((float)n - (float)df + 0.5f) / ((float)df + 0.5f));
		tw[i] = fq.t[i].qtf * idf;
		for (size_t k = 0; k < df; k++) {
			float tfn = stfn[k];
			if (tfn <= 0)
				continue;
			if (acc[sid[k]] == 0)
				touched[ntouched++] = sid[k];
			tmask[sid[k]] |= 1u << i;
			acc[sid[k]] += fq.t[i].qtf * idf * tfn * (P->k1 + 1) / (P->k1 + tfn);
		}
	}
	/* the share of each tool's name the query says */
	if (P->name_cover > 0)
		for (size_t i = 0; i < ntouched; i++)
			if (nlen[touched[i]] > 0)
				acc[touched[i]] *= 1 + P->name_cover * nhit[touched[i]] / nlen[touched[i]];
	/* The best limit + FT_SPARE by score (ties by id): a policy may hide a
	 * few; when it hides more, every hit is ranked. */
	size_t keep = limit + FT_SPARE, nh = 0;
	hits = mi_xmalloc((ntouched ? ntouched : 1) * sizeof(*hits));
	for (size_t i = 0; i < ntouched; i++) {
		ft_hit h = {touched[i], acc[touched[i]]};
		if (nh == keep && cmp_hit(&h, &hits[nh - 1]) >= 0)
			continue;
		size_t j = nh < keep ? nh++ : nh - 1;
		while (j > 0 && cmp_hit(&h, &hits[j - 1]) < 0) {
			hits[j] = hits[j - 1];
			j--;
		}
		hits[j] = h;
	}
	ft_diversify(hits, nh, tmask, tw, fq.n, P->diverse);
	if (P->server_slot) {
		uint32_t named = 0;   /* first the terms some server's field matched */
		for (size_t i = 0; i < ntouched; i++)
			named |= smask[touched[i]];
		if (__builtin_popcount(named) >= 2)
			named &= ft_named_servers(t, tk, o->query, &fq);
		if (__builtin_popcount(named) >= 2)
			ft_server_slots(hits, &nh, limit, touched, ntouched, acc, smask, named);
	}
	mi_buf_adds(&out->json, "{\"tools\":[");
	for (size_t i = 0; i < ntouched && shown < limit; i++) {
		if (i == nh) {
			/* the policy hid more than FT_SPARE: rank every hit */
			for (size_t k = 0; k < ntouched; k++) {
				hits[k].id = touched[k];
				hits[k].score = acc[touched[k]];
			}
			qsort(hits, ntouched, sizeof(*hits), cmp_hit);
			nh = ntouched;
			ft_diversify(hits, nh, tmask, tw, fq.n, P->diverse);
		}
		const char *name;
		size_t nl;
		mi_tool_rec r;
		mi_buf rel = {0};
		if ((rc = load_tool(t, hits[i].id, &name, &nl, &r))) {
			mi_out_error(out, rc, "Cannot read the tool catalog of %s: %s. Rebuild it: "
				     "mcpidx build --servers FILE", q->path, mi_strerror(rc));
			goto done;
		}
		if (policy_state(o->policy, name, nl, &r) != MI_TOOL_VISIBLE)
			continue;
		if (o->related) {
			char nb[512];
			snprintf(nb, sizeof(nb), "%.*s", (int)nl, name);
			o->related(o->related_ctx, nb, &rel);
		}
		l1_entry(out, name, nl, &r, hits[i].score, true, rel.buf);
		mi_buf_release(&rel);
		shown++;
	}
	mi_buf_addf(&out->json, "],\"total\":%zu}", ntouched);
	if (!shown) {
		/* the query quoted back, not all of it: it may be megabytes */
		size_t ql = strlen(o->query);
		size_t keep = mi_utf8_prefix(o->query, ql, FT_ECHO);
		mi_buf_addf(&out->text, "No tool matches \"%.*s%s\". Try other words, or "
			    "list_namespaces to see the servers.\n", (int)keep, o->query,
			    keep < ql ? "\u2026" : "");
	}
	rc = 0;
done:
	free(hits);
	free(acc);
	free(nhit);
	free(nlen);
	free(touched);
	free(sid);
	free(stfn);
	free(tmask);
	free(smask);
	mi_tok_free(tk);
	mi_txn_abort(t);
	return rc;
}

/* ---- describe_tools ------------------------------------------------------------- */

static void add_json_member(mi_buf *j, const char *key, const char *v, size_t vl)
{
	mi_buf_addf(j, ",\"%s\":", key);
	if (vl)
		mi_buf_add(j, v, vl);
	else
		mi_buf_adds(j, "null");
}

static void l2_entry(mi_out *out, const char *name, size_t nl, const mi_tool_rec *r)
{
	mi_buf san = {0}, title = {0};
	unsigned flags = mi_sanitize(r->desc, r->desc_len, DESC_MAX, &san);
	mi_sanitize(r->title, r->title_len, SUMMARY_MAX, &title);
	mi_buf_add(&out->text, name, nl);
	mi_buf_add(&out->text, r->sig, r->sig_len);
	mi_buf_addc(&out->text, '\n');
	if (title.len)
		mi_buf_addf(&out->text, "  title: %s\n", title.buf);
	if (san.len) {
		mi_buf_adds(&out->text, "  ");
		for (size_t i = 0; i < san.len; i++) {
			mi_buf_addc(&out->text, san.buf[i]);
			if (san.buf[i] == '\n')
				mi_buf_adds(&out->text, "  ");
		}
		mi_buf_addc(&out->text, '\n');
	}
	if (flags & (MI_SAN_HIDDEN | MI_SAN_MARKUP | MI_SAN_INSTRUCTION)) {
		mi_buf_adds(&out->text, "  V* [!] description: ");
		mi_sanitize_flag_names(flags & ~MI_SAN_TRUNCATED, &out->text);
		mi_buf_addc(&out->text, '\n');
	}
	mi_buf_adds(&out->text, "  inputSchema: ");
	mi_buf_add(&out->text, r->input_len ? r->input : "{}", r->input_len ? r->input_len : 2);
	mi_buf_addc(&out->text, '\n');
	if (r->output_len) {
		mi_buf_adds(&out->text, "  outputSchema: ");
		mi_buf_add(&out->text, r->output, r->output_len);
		mi_buf_addc(&out->text, '\n');
	}
	if (r->annot_len) {
		mi_buf_adds(&out->text, "  annotations: ");
		mi_buf_add(&out->text, r->annot, r->annot_len);
		mi_buf_addc(&out->text, '\n');
	}
	if (r->flags & (MI_TOOLF_DESTRUCTIVE | MI_TOOLF_SENSITIVE))
		mi_buf_adds(&out->text, "  V* needs confirmation to execute\n");

	if (out->json.buf[out->json.len - 1] != '[')
		mi_buf_addc(&out->json, ',');
	mi_buf_adds(&out->json, "{\"name\":");
	mi_buf_add_json_str(&out->json, name, nl);
	mi_buf_adds(&out->json, ",\"server\":");
	mi_buf_add_json_str(&out->json, r->server, r->server_len);
	mi_buf_adds(&out->json, ",\"title\":");
	mi_buf_add_json_str(&out->json, title.buf ? title.buf : "", title.len);
	mi_buf_adds(&out->json, ",\"description\":");
	mi_buf_add_json_str(&out->json, san.buf ? san.buf : "", san.len);
	mi_buf_adds(&out->json, ",\"signature\":");
	mi_buf_add_json_str(&out->json, r->sig, r->sig_len);
	add_json_member(&out->json, "inputSchema", r->input, r->input_len);
	add_json_member(&out->json, "outputSchema", r->output, r->output_len);
	add_json_member(&out->json, "annotations", r->annot, r->annot_len);
	if (flags & (MI_SAN_HIDDEN | MI_SAN_MARKUP | MI_SAN_INSTRUCTION)) {
		mi_buf_adds(&out->json, ",\"warnings\":");
		mi_sanitize_flag_names(flags & ~MI_SAN_TRUNCATED, &out->json);
	}
	if (r->flags & (MI_TOOLF_DESTRUCTIVE | MI_TOOLF_SENSITIVE))
		mi_buf_adds(&out->json, ",\"needs_confirmation\":true");
	mi_buf_addc(&out->json, '}');
	mi_buf_release(&san);
	mi_buf_release(&title);
}

static const char *const state_reason[] = {
	[MI_TOOL_VISIBLE] = "",
	[MI_TOOL_QUARANTINED] = ("quarantined: its description or schema changed since it was "
				 "approved. A person reviews it and runs: mcpidx tools approve"),
	[MI_TOOL_DENIED] = "denied by the allow or deny lists of the servers file",
};

int mi_query_describe_tools(mi_query *q, const char *const *names, size_t n,
			    int level, const mi_tools_policy *policy, mi_out *out)
{
	mi_txn *t = NULL;
	mi_buf miss = {0};
	size_t found = 0, nmiss = 0;
	int64_t count = 0;
	int rc;

	mi_out_reset(out);
	if (level < MI_TOOL_L0 || level > MI_TOOL_L2)
		return mi_out_error(out, MI_ERR_ARG, "level must be L0, L1 or L2");
	if (!n)
		return mi_out_error(out, MI_ERR_ARG, "describe_tools needs names: "
				    "\"server/tool\" as find_tools gives them");
	if ((rc = mi_txn_begin(q->st, false, &t)))
		return mi_out_error(out, rc, "Cannot read index %s: %s", q->path, mi_strerror(rc));
	if (mi_meta_get_int(t, "tools.n", &count) || count <= 0) {
		rc = no_catalog(q, out);
		goto done;
	}
	mi_buf_adds(&out->json, "{\"tools\":[");
	for (size_t i = 0; i < n; i++) {
		const void *v;
		size_t vl, nl = strlen(names[i]);
		mi_tool_rec r;
		int st = MI_TOOL_VISIBLE;
		const char *why = NULL;
		if (mi_get(t, MI_DB_TOOLS, names[i], nl, &v, &vl) || mi_tool_decode(v, vl, &r))
			why = strchr(names[i], '/') ? "unknown tool; find_tools gives the names"
						    : "unknown tool; names are \"server/tool\"";
		else if ((st = policy_state(policy, names[i], nl, &r)) != MI_TOOL_VISIBLE)
			why = state_reason[st];
		if (why) {
			mi_buf_addf(&miss, "%s{\"name\":", nmiss++ ? "," : "");
			mi_buf_add_json_str(&miss, names[i], nl);
			mi_buf_adds(&miss, ",\"reason\":");
			mi_buf_add_json_str(&miss, why, strlen(why));
			mi_buf_addc(&miss, '}');
			mi_buf_addf(&out->text, "%s: %s\n", names[i], why);
			continue;
		}
		found++;
		if (level == MI_TOOL_L0) {
			if (out->json.buf[out->json.len - 1] != '[')
				mi_buf_addc(&out->json, ',');
			mi_buf_adds(&out->json, "{\"name\":");
			mi_buf_add_json_str(&out->json, names[i], nl);
			mi_buf_adds(&out->json, ",\"server\":");
			mi_buf_add_json_str(&out->json, r.server, r.server_len);
			mi_buf_addc(&out->json, '}');
			mi_buf_addf(&out->text, "%s\n", names[i]);
		} else if (level == MI_TOOL_L1) {
			l1_entry(out, names[i], nl, &r, 0, false, NULL);
		} else {
			l2_entry(out, names[i], nl, &r);
		}
	}
	mi_buf_adds(&out->json, "],\"missing\":[");
	if (miss.len)
		mi_buf_add(&out->json, miss.buf, miss.len);
	mi_buf_adds(&out->json, "]}");
	out->is_error = !found;
	rc = 0;
done:
	mi_buf_release(&miss);
	mi_txn_abort(t);
	return rc;
}

/* ---- list_namespaces, tool lookup -------------------------------------------------- */

static void info_member(mi_buf *j, const char *info, size_t il, const char *key)
{
	/* serverInfo is small JSON we wrote from a parsed object: find "key":"..." */
	mi_buf pat = {0};
	const char *p, *e;
	mi_buf_addf(&pat, "\"%s\":\"", key);
	p = il ? memmem(info, il, pat.buf, pat.len) : NULL;
	mi_buf_addf(j, ",\"%s\":", key);
	if (!p) {
		mi_buf_adds(j, "\"\"");
	} else {
		p += pat.len;
		for (e = p; e < info + il && *e != '"'; e++)
			if (*e == '\\' && e + 1 < info + il)
				e++;
		mi_buf_addc(j, '"');
		mi_buf_add(j, p, (size_t)(e - p));
		mi_buf_addc(j, '"');
	}
	mi_buf_release(&pat);
}

int mi_query_namespaces(mi_query *q, mi_out *out)
{
	mi_txn *t = NULL;
	mi_cursor *cur = NULL;
	const void *k, *v;
	size_t kl, vl, n = 0;
	int rc;

	mi_out_reset(out);
	if ((rc = mi_txn_begin(q->st, false, &t)))
		return mi_out_error(out, rc, "Cannot read index %s: %s", q->path, mi_strerror(rc));
	if ((rc = mi_cursor_open(t, MI_DB_SERVERS, &cur)))
		goto fail;
	mi_buf_adds(&out->json, "{\"namespaces\":[");
	for (rc = mi_cursor_seek(cur, NULL, 0, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(cur, &k, &kl, &v, &vl)) {
		mi_server_rec s;
		mi_buf desc = {0};
		if (mi_server_decode(v, vl, &s))
			continue;
		mi_buf_adds(&out->json, n++ ? ",{\"name\":" : "{\"name\":");
		mi_buf_add_json_str(&out->json, s.name, s.name_len);
		mi_buf_addf(&out->json, ",\"tools\":%u,\"transport\":", s.ntools);
		mi_buf_add_json_str(&out->json, s.transport, s.transport_len);
		mi_buf_adds(&out->json, ",\"protocol\":");
		mi_buf_add_json_str(&out->json, s.protocol, s.protocol_len);
		info_member(&out->json, s.info, s.info_len, "title");
		info_member(&out->json, s.info, s.info_len, "version");
		mi_buf_adds(&out->json, ",\"error\":");
		mi_buf_add_json_str(&out->json, s.error, s.error_len);
		if (s.instructions_len) {
			mi_buf line = {0};
			mi_sanitize(s.instructions, s.instructions_len, 2000, &desc);
			mi_tool_first_line(desc.buf ? desc.buf : "", desc.len, SUMMARY_MAX, &line);
			mi_buf_adds(&out->json, ",\"summary\":");
			mi_buf_add_json_str(&out->json, line.buf ? line.buf : "", line.len);
			mi_buf_release(&desc);
			desc = line;
		}
		mi_buf_addc(&out->json, '}');
		mi_buf_addf(&out->text, "%.*s  %u tools  %.*s%s%.*s\n", (int)s.name_len, s.name,
			    s.ntools, (int)s.transport_len, s.transport, s.error_len ? "  error: " : "",
			    (int)s.error_len, s.error);
		if (desc.len)
			mi_buf_addf(&out->text, "  %s\n", desc.buf);
		mi_buf_release(&desc);
	}
	mi_cursor_close(cur);
	cur = NULL;
	if (rc != MI_ERR_NOTFOUND)
		goto fail;
	mi_buf_addf(&out->json, "],\"total\":%zu}", n);
	if (!n) {
		rc = no_catalog(q, out);
		goto out;
	}
	rc = 0;
	goto out;
fail:
	mi_out_error(out, rc, "Cannot read the tool catalog of %s: %s", q->path, mi_strerror(rc));
out:
	mi_cursor_close(cur);
	mi_txn_abort(t);
	return rc;
}

int mi_query_tool_get(mi_query *q, const char *name, mi_tool_info *out)
{
	mi_txn *t;
	const void *v;
	size_t vl;
	mi_tool_rec r;
	int rc;
	memset(out, 0, sizeof(*out));
	if ((rc = mi_txn_begin(q->st, false, &t)))
		return rc;
	if ((rc = mi_get(t, MI_DB_TOOLS, name, strlen(name), &v, &vl)))
		goto out;
	if ((rc = mi_tool_decode(v, vl, &r)))
		goto out;
	out->server = mi_xstrndup(r.server, r.server_len);
	out->name = mi_xstrndup(r.name, r.name_len);
	memcpy(out->hash, r.hash, 16);
	out->flags = r.flags;
	out->input_schema = mi_xstrndup(r.input, r.input_len);
	out->description = mi_xstrndup(r.desc, r.desc_len);
out:
	mi_txn_abort(t);
	return rc;
}

void mi_tool_info_release(mi_tool_info *t)
{
	free(t->server);
	free(t->name);
	free(t->input_schema);
	free(t->description);
	memset(t, 0, sizeof(*t));
}

int mi_query_tools_each(mi_query *q, int (*fn)(void *ctx, const char *name,
					       const uint8_t hash[16], uint32_t flags),
			void *ctx)
{
	mi_txn *t;
	mi_cursor *cur = NULL;
	const void *k, *v;
	size_t kl, vl;
	mi_buf name = {0};
	int rc;
	if ((rc = mi_txn_begin(q->st, false, &t)))
		return rc;
	if ((rc = mi_cursor_open(t, MI_DB_TOOLS, &cur)))
		goto out;
	for (rc = mi_cursor_seek(cur, NULL, 0, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(cur, &k, &kl, &v, &vl)) {
		mi_tool_rec r;
		if (mi_tool_decode(v, vl, &r))
			continue;
		mi_buf_reset(&name);
		mi_buf_add(&name, k, kl);
		if (fn(ctx, name.buf, r.hash, r.flags))
			break;
	}
	if (rc == MI_ERR_NOTFOUND)
		rc = 0;
out:
	mi_cursor_close(cur);
	mi_txn_abort(t);
	mi_buf_release(&name);
	return rc;
}
