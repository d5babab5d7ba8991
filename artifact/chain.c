/*
 * chain.c - bounded chains and the step log: each workflow of round trips
 * has a chain id, a step budget, an age limit and a timeout on each prompt
 * it hands out; every step is counted in the side store in one write
 * transaction and appended to its log.
 */
#include "artifact_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

int64_t mi_art_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int mi_art_side(mi_art *a, bool create, mi_side **s, mi_out *out)
{
	int rc = 0;
	pthread_mutex_lock(&a->mu);
	if (a->side)
		goto out;
	if (!a->side_dir) {
		rc = mi_art_error(out, MI_ERR_NOINDEX, "Build the index first: mcpidx build REPO "
				  "(or call index_codebase); artifacts are kept beside it.",
				  "No index at %s, so there is no place for artifacts yet.",
				  a->index ? a->index : "(none)");
		goto out;
	}
	rc = mi_side_open(a->side_dir, create ? MI_SIDE_CREATE : 0, &a->side);
	if (rc == MI_ERR_NOINDEX && !create)
		goto out;
	if (rc == EACCES || rc == EROFS || rc == EPERM)
		mi_art_error(out, rc, "Serve with --side DIR naming a writable directory, or "
			     "set MCPIDX_SIDE.", "The artifact store at %s is not writable (%s).",
			     a->side_dir, mi_strerror(rc));
	else if (rc == MI_ERR_VERSION)
		mi_art_error(out, rc, "Move the directory away (its artifacts cannot be read "
			     "by this mcpidx) or use --side DIR.", "The artifact store at %s was "
			     "written by another version of mcpidx (layout version differs from %d).",
			     a->side_dir, MI_SIDE_VERSION);
	else if (rc)
		mi_art_error(out, rc, "Check the directory, or use --side DIR.",
			     "Cannot open the artifact store at %s: %s.", a->side_dir,
			     mi_strerror(rc));
out:
	*s = a->side;
	pthread_mutex_unlock(&a->mu);
	return rc;
}

/* ---- chains ---------------------------------------------------------------------- */

#define REFUSED 1 /* the step was refused: the write is aborted, ctx says why */

typedef struct step_ctx {
	mi_art *a;             /* handle */
	const mi_art_req *r;   /* the call */
	int kind;              /* MI_ART_STEP_* */
	int64_t now;           /* wall clock, ms */
	char fresh[40];        /* id for a new chain */
	mi_art_step *st;       /* out: the step taken */
	int err;               /* refusal: error code */
	mi_buf msg;            /* refusal: what happened */
	mi_buf next;           /* refusal: what the host can do */
	mi_buf pending;        /* name of the prompt record */
} step_ctx;

static void new_chain_id(char out[40])
{
	uint8_t b[8];
	char hex[17];
	if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
		uint64_t x = (uint64_t)mi_art_now_us() ^ ((uint64_t)getpid() << 32);
		memcpy(b, &x, sizeof b);
	}
	for (int i = 0; i < 8; i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	snprintf(out, 40, "ch-%s", hex);
}

/* The prompt record's name: task \x1f path \x1f symbol. */
static void prompt_name(mi_buf *b, const mi_art_req *r)
{
	mi_buf_reset(b);
	mi_buf_addf(b, "%s\x1f%s\x1f%s", r->task ? r->task : "", r->path ? r->path : "",
		    r->symbol ? r->symbol : "");
}

typedef struct sweep {
	int64_t before;  /* chains started before this are expired */
	mi_buf ids;      /* their ids, NUL-separated */
} sweep;

static int sweep_fn(void *ctx, const mi_side_rec *r)
{
	sweep *s = ctx;
	if (!*r->kind && r->created_ms < s->before)
		mi_buf_add(&s->ids, r->path, strlen(r->path) + 1);
	return 0;
}

typedef struct keys {
	mi_buf k;        /* kind \0 name \0 pairs */
} keys;

static int keys_fn(void *ctx, const mi_side_rec *r)
{
	keys *k = ctx;
	mi_buf_add(&k->k, r->kind, strlen(r->kind) + 1);
	mi_buf_add(&k->k, r->name, strlen(r->name) + 1);
	return 0;
}

/* Deletes every record of chain id. */
static int drop_chain(mi_side_txn *t, const char *id)
{
	keys k = {{0}};
	size_t plen = strlen(id) + 1;
	int rc = mi_side_scan(t, MI_SIDE_CHAINS, id, plen, keys_fn, &k);
	for (size_t off = 0; !rc && off < k.k.len;) {
		const char *kind = k.k.buf + off;
		const char *name = kind + strlen(kind) + 1;
		off = (size_t)(name - k.k.buf) + strlen(name) + 1;
		rc = mi_side_del(t, MI_SIDE_CHAINS, id, kind, name);
		if (rc == MI_ERR_NOTFOUND)
			rc = 0;
	}
	mi_buf_release(&k.k);
	return rc;
}

/* Forgets chains older than the age limit: they can never step again. */
static int sweep_chains(mi_side_txn *t, int64_t before)
{
	sweep s = {before, {0}};
	int rc = mi_side_scan(t, MI_SIDE_CHAINS, "", 0, sweep_fn, &s);
	for (size_t off = 0; !rc && off < s.ids.len; off += strlen(s.ids.buf + off) + 1)
		rc = drop_chain(t, s.ids.buf + off);
	mi_buf_release(&s.ids);
	return rc;
}

static int refuse(step_ctx *c, int err, const char *next, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int refuse(step_ctx *c, int err, const char *next, const char *fmt, ...)
{
	va_list ap;
	c->err = err;
	va_start(ap, fmt);
	mi_buf_vaddf(&c->msg, fmt, ap);
	va_end(ap);
	mi_buf_adds(&c->next, next);
	return REFUSED;
}

static int step_fn(mi_side_txn *t, void *ctx)
{
	step_ctx *c = ctx;
	const mi_art_opts *o = &c->a->o;
	mi_art_step *st = c->st;
	const char *id = c->r->chain && *c->r->chain ? c->r->chain : NULL;
	mi_side_rec ch, pr;
	int rc;

	/* fn may run again after the map grew: start from scratch. */
	mi_buf_reset(&c->msg);
	mi_buf_reset(&c->next);
	memset(st, 0, sizeof *st);
	st->max = o->max_steps;
	if (!id) {
		rc = sweep_chains(t, c->now - o->chain_ttl_ms);
		if (rc)
			return rc;
		snprintf(st->chain, sizeof st->chain, "%s", c->fresh);
		memset(&ch, 0, sizeof ch);
		ch.path = st->chain;
		ch.corr = st->chain;
		ch.created_ms = c->now;
		ch.text = c->r->tool ? c->r->tool : "";
		ch.text_len = strlen(ch.text);
		st->step = 1;
	} else {
		if (strlen(id) >= sizeof st->chain)
			return refuse(c, MI_ERR_ARG, "Call the tool without 'chain' to start a new chain.",
				      "'%.60s' is not a chain id.", id);
		snprintf(st->chain, sizeof st->chain, "%s", id);
		rc = mi_side_get(t, MI_SIDE_CHAINS, id, "", "", &ch);
		if (rc == MI_ERR_NOTFOUND)
			return refuse(c, MI_ERR_NOTFOUND, "Start a new chain: call generate_prompt "
				      "again without 'chain'.", "Unknown chain '%s': it expired (a "
				      "chain lives %lld minutes) or was never issued by this "
				      "repository's server.", id, (long long)(o->chain_ttl_ms / 60000));
		if (rc)
			return rc;
		if (c->now - ch.created_ms > o->chain_ttl_ms)
			return refuse(c, MI_ERR_CANCELLED, "Start a new chain: call generate_prompt "
				      "again without 'chain'.", "Chain '%s' expired: it started "
				      "%lld minutes ago and a chain lives %lld minutes.", id,
				      (long long)((c->now - ch.created_ms) / 60000),
				      (long long)(o->chain_ttl_ms / 60000));
		if (ch.num >= o->max_steps)
			return refuse(c, MI_ERR_TOOBIG, "Stop this workflow here and report what you "
				      "have, or start a new chain: call the tool again without "
				      "'chain'. The limit is set with mcpidx serve --max-steps N.",
				      "Chain '%s' has used all of its %d steps (MAX_STEPS); step %lld "
				      "is refused.", id, o->max_steps, (long long)ch.num + 1);
		st->step = (int)ch.num + 1;
	}
	ch.num = st->step;
	rc = mi_side_put(t, MI_SIDE_CHAINS, &ch);
	if (rc)
		return rc;

	prompt_name(&c->pending, c->r);
	if (c->kind == MI_ART_STEP_PROMPT) {
		memset(&pr, 0, sizeof pr);
		pr.path = st->chain;
		pr.kind = "prompt";
		pr.name = c->pending.buf;
		pr.corr = st->chain;
		pr.created_ms = c->now;
		pr.num = st->step;
		return mi_side_put(t, MI_SIDE_CHAINS, &pr);
	}
	if (c->kind == MI_ART_STEP_ANSWER && id) {
		rc = mi_side_get(t, MI_SIDE_CHAINS, id, "prompt", c->pending.buf, &pr);
		if (rc == MI_ERR_NOTFOUND)
			return 0; /* stored again, or a result the host made on its own */
		if (rc)
			return rc;
		if (c->now - pr.created_ms > o->callback_timeout_ms)
			return refuse(c, MI_ERR_CANCELLED, "Call generate_prompt again for a fresh "
				      "prompt (same path and task, this chain or a new one) and "
				      "answer it sooner; the timeout is set with mcpidx serve "
				      "--callback-timeout MS.", "The prompt of step %lld of chain "
				      "'%s' was handed out %.1f s ago; its callback timeout is "
				      "%.1f s, so this result is refused.", (long long)pr.num, id,
				      (double)(c->now - pr.created_ms) / 1000.0,
				      (double)o->callback_timeout_ms / 1000.0);
		st->answered = true;
		return mi_side_del(t, MI_SIDE_CHAINS, id, "prompt", c->pending.buf);
	}
	return 0;
}

int mi_art_chain_step(mi_art *a, const mi_art_req *r, int kind, mi_art_step *st,
		      mi_out *out)
{
	step_ctx c;
	mi_side *s;
	int rc;
	memset(&c, 0, sizeof c);
	c.a = a;
	c.r = r;
	c.kind = kind;
	c.st = st;
	c.now = mi_side_now_ms();
	new_chain_id(c.fresh);
	rc = mi_art_side(a, true, &s, out);
	if (rc)
		goto out;
	rc = mi_side_write(s, step_fn, &c);
	if (rc == REFUSED) {
		rc = mi_art_error(out, c.err, mi_buf_str(&c.next), "%s", mi_buf_str(&c.msg));
		mi_art_log(a, r, st, "refused", 0);
	} else if (rc) {
		rc = mi_art_error(out, rc, "Retry; if it persists, check the artifact store's "
				  "directory.", "Cannot record the step in the artifact store "
				  "%s: %s.", mi_side_dir(s), mi_strerror(rc));
	}
out:
	mi_buf_release(&c.msg);
	mi_buf_release(&c.next);
	mi_buf_release(&c.pending);
	return rc;
}

/* ---- the step log ---------------------------------------------------------------- */

typedef struct log_ctx {
	const mi_side_rec *rec; /* what to append */
} log_ctx;

static int log_fn(mi_side_txn *t, void *ctx)
{
	log_ctx *c = ctx;
	return mi_side_append(t, MI_SIDE_LOG, c->rec, NULL);
}

void mi_art_log(mi_art *a, const mi_art_req *r, const mi_art_step *st,
		const char *outcome, int64_t us)
{
	mi_side_rec rec;
	mi_buf text = {0}, corr = {0};
	mi_side *s = NULL;
	mi_out ignore;
	log_ctx c = {&rec};
	memset(&ignore, 0, sizeof ignore);
	if (mi_art_side(a, true, &s, &ignore))
		goto out;
	if (st && st->chain[0])
		mi_buf_adds(&corr, st->chain);
	else
		mi_buf_addf(&corr, "call-%llu", (unsigned long long)r->call_id);
	mi_buf_adds(&text, "{\"task\":");
	mi_buf_add_json_str(&text, r->task ? r->task : "", r->task ? strlen(r->task) : 0);
	mi_buf_adds(&text, ",\"symbol\":");
	mi_buf_add_json_str(&text, r->symbol ? r->symbol : "", r->symbol ? strlen(r->symbol) : 0);
	mi_buf_addf(&text, ",\"step\":%d,\"max_steps\":%d,\"ms\":%.3f,\"call\":%llu,"
		    "\"outcome\":", st ? st->step : 0, st ? st->max : 0, (double)us / 1000.0,
		    (unsigned long long)r->call_id);
	mi_buf_add_json_str(&text, outcome, strlen(outcome));
	mi_buf_addc(&text, '}');
	memset(&rec, 0, sizeof rec);
	rec.path = r->tool ? r->tool : "";
	rec.kind = outcome;
	rec.name = r->path ? r->path : "";
	rec.corr = corr.buf;
	rec.num = st ? st->step : 0;
	rec.text = text.buf;
	rec.text_len = text.len;
	mi_side_write(s, log_fn, &c);
out:
	mi_out_release(&ignore);
	mi_buf_release(&text);
	mi_buf_release(&corr);
}

void mi_art_callback_args(mi_buf *out, const mi_art_req *r, const char *task,
			  const char *symbol, const char *hash_hex,
			  const mi_art_step *st)
{
	mi_buf_adds(out, "{\"path\":");
	mi_buf_add_json_str(out, r->path, strlen(r->path));
	mi_buf_adds(out, ",\"task\":");
	mi_buf_add_json_str(out, task, strlen(task));
	if (symbol && *symbol) {
		mi_buf_adds(out, ",\"symbol\":");
		mi_buf_add_json_str(out, symbol, strlen(symbol));
	}
	mi_buf_addf(out, ",\"chain\":\"%s\",\"step\":%d", st->chain, st->step);
	if (hash_hex && *hash_hex)
		mi_buf_addf(out, ",\"hash\":\"%s\"", hash_hex);
	mi_buf_addc(out, '}');
}
