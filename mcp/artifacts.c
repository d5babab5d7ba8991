/*
 * artifacts.c - the writing side of artifacts: generate_prompt hands the
 * host a prompt and a callback, store_llm_result stores the host model's
 * answer pinned to the content hash of its source, delete_artifact removes
 * artifacts; every round trip belongs to a bounded chain (a chain id, a step
 * budget, an age limit, a timeout on each prompt), counted in the side store
 * in one write transaction per step and logged there.  The read side (the
 * prompts, get and list, the answers' shape) is query/artifacts.c.
 */
#include "mcp.h"
#include "../format/side.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MI_ART_MAX_RESULT ((size_t)1 << 20) /* largest result stored */

/* ---- chains ---------------------------------------------------------------------- */

/* One step of a chain, as taken by chain_step. */
typedef struct art_step {
	char chain[40];   /* chain id ("ch-" + 16 hex) */
	int step;         /* this call's step number, from 1 */
	int max;          /* the chain's limit */
	bool answered;    /* store: a waiting prompt of the chain was answered */
} art_step;

/* What a step does to the chain's waiting prompts. */
enum {
	STEP_PLAIN,   /* neither */
	STEP_PROMPT,  /* issues a prompt for (task, path, symbol) */
	STEP_ANSWER,  /* answers that prompt (store_llm_result) */
};

static void art_log(mi_art *a, const mi_art_req *r, const art_step *st,
		    const char *outcome, int64_t us);

#define REFUSED 1 /* the step was refused: the write is aborted, ctx says why */

typedef struct step_ctx {
	mi_art *a;             /* handle */
	const mi_art_req *r;   /* the call */
	int kind;              /* STEP_* */
	int64_t now;           /* wall clock, ms */
	char fresh[40];        /* id for a new chain */
	art_step *st;       /* out: the step taken */
	int err;               /* refusal: error code */
	mi_buf msg;            /* refusal: what happened */
	mi_buf next;           /* refusal: what the host can do */
	mi_buf pending;        /* name of the prompt record */
} step_ctx;

static void new_chain_id(char out[40])
{
	uint8_t b[8];
	char hex[17];
	FILE *ur = fopen("/dev/urandom", "rb");
	size_t got = ur ? fread(b, 1, sizeof b, ur) : 0;
	if (ur)
		fclose(ur);
	if (got != sizeof b) {
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
	const mi_art_opts *o = mi_art_options(c->a);
	art_step *st = c->st;
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
	if (c->kind == STEP_PROMPT) {
		memset(&pr, 0, sizeof pr);
		pr.path = st->chain;
		pr.kind = "prompt";
		pr.name = c->pending.buf;
		pr.corr = st->chain;
		pr.created_ms = c->now;
		pr.num = st->step;
		return mi_side_put(t, MI_SIDE_CHAINS, &pr);
	}
	if (c->kind == STEP_ANSWER && id) {
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

static int chain_step(mi_art *a, const mi_art_req *r, int kind, art_step *st,
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
		art_log(a, r, st, "refused", 0);
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

#define LOG_FIELD_MAX 512   /* bytes of a request's path or symbol in a log record */

/* s cut to LOG_FIELD_MAX bytes at a UTF-8 boundary (with "..." when cut):
 * a refused call's path may be a 16 MiB string, and the log is on disk. */
static const char *log_field(const char *s, mi_buf *tmp)
{
	size_t n = s ? strlen(s) : 0;
	if (n <= LOG_FIELD_MAX)
		return s ? s : "";
	n = mi_utf8_cut(s, LOG_FIELD_MAX);
	mi_buf_add(tmp, s, n);
	mi_buf_adds(tmp, "...");
	return tmp->buf;
}

static void art_log(mi_art *a, const mi_art_req *r, const art_step *st,
		const char *outcome, int64_t us)
{
	mi_side_rec rec;
	mi_buf text = {0}, corr = {0}, sym = {0}, path = {0}, tk = {0};
	const char *symbol = log_field(r->symbol, &sym), *task = log_field(r->task, &tk);
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
	mi_buf_add_json_str(&text, task, strlen(task));
	mi_buf_adds(&text, ",\"symbol\":");
	mi_buf_add_json_str(&text, symbol, strlen(symbol));
	mi_buf_addf(&text, ",\"step\":%d,\"max_steps\":%d,\"ms\":%.3f,\"call\":%llu,"
		    "\"outcome\":", st ? st->step : 0, st ? st->max : 0, (double)us / 1000.0,
		    (unsigned long long)r->call_id);
	mi_buf_add_json_str(&text, outcome, strlen(outcome));
	mi_buf_addc(&text, '}');
	memset(&rec, 0, sizeof rec);
	rec.path = r->tool ? r->tool : "";
	rec.kind = outcome;
	rec.name = log_field(r->path, &path);
	rec.corr = corr.buf;
	rec.num = st ? st->step : 0;
	rec.text = text.buf;
	rec.text_len = text.len;
	mi_side_write(s, log_fn, &c);
out:
	mi_out_release(&ignore);
	mi_buf_release(&text);
	mi_buf_release(&corr);
	mi_buf_release(&sym);
	mi_buf_release(&path);
	mi_buf_release(&tk);
}

static void callback_args(mi_buf *out, const mi_art_req *r, const char *task,
			  const char *symbol, const char *hash_hex,
			  const art_step *st)
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

/* ---- generate_prompt and generate_artifact ----------------------------------------------- */

static int prompt_ready(mi_art *a, mi_query *q, const mi_art_req *r, const mi_art_task *tk,
			mi_out *out)
{
	int64_t start = mi_art_now_us();
	mi_buf args = {0};
	mi_out p;
	art_step st;
	json_t *pj = NULL;
	const char *hash = "";
	char *prompt = NULL;
	int rc;

	memset(&p, 0, sizeof p);
	memset(&st, 0, sizeof st);
	rc = mi_art_compose(a, q, r, tk, &p, out);
	if (rc)
		goto out;
	pj = json_loadb(p.json.buf, p.json.len, 0, NULL);
	if (json_is_string(json_object_get(pj, "hash")))
		hash = json_string_value(json_object_get(pj, "hash"));
	rc = chain_step(a, r, STEP_PROMPT, &st, out);
	if (rc)
		goto out;
	callback_args(&args, r, tk->name, r->symbol, hash, &st);
	prompt = mi_xstrndup(p.text.buf ? p.text.buf : "", p.text.len);

	mi_out_reset(out);
	mi_buf_adds(&out->json, "{\"status\":\"prompt_ready\",\"data\":{\"chain\":");
	mi_buf_addf(&out->json, "\"%s\",\"step\":%d,\"max_steps\":%d,\"expires_in_ms\":%lld,"
		    "\"prompt\":", st.chain, st.step, st.max,
		    (long long)mi_art_options(a)->callback_timeout_ms);
	mi_buf_add(&out->json, p.json.buf, p.json.len);
	mi_buf_adds(&out->json, "},\"error\":null,\"nextAction\":");
	{
		static const char next[] = "Run promptForHostLLM with your own model, then "
			"call store_llm_result with callbackArgs plus \"result\": the model's "
			"answer.";
		mi_buf_add_json_str(&out->json, next, sizeof next - 1);
	}
	mi_buf_adds(&out->json, ",\"promptForHostLLM\":");
	mi_buf_add_json_str(&out->json, prompt, strlen(prompt));
	mi_buf_adds(&out->json, ",\"callbackTool\":\"store_llm_result\",\"callbackArgs\":");
	mi_buf_add(&out->json, args.buf, args.len);
	mi_buf_addc(&out->json, '}');
	mi_buf_addf(&out->text, "prompt_ready (chain %s, step %d of %d): run the prompt "
		    "below with your own model, then call store_llm_result with these "
		    "arguments plus \"result\" (the model's answer) within %lld s:\n%s\n"
		    "----- prompt -----\n%s", st.chain, st.step, st.max,
		    (long long)(mi_art_options(a)->callback_timeout_ms / 1000), args.buf, prompt);
	rc = 0;
out:
	art_log(a, r, &st, rc ? "error" : "prompt_ready", mi_art_now_us() - start);
	json_decref(pj);
	free(prompt);
	mi_out_release(&p);
	mi_buf_release(&args);
	return rc;
}

int mi_mcp_art_prompt(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out)
{
	mi_buf norm = {0};
	mi_art_req n;
	const mi_art_task *tk;
	int rc = mi_art_norm(r, &n, &norm, true, out);
	if (rc)
		goto out;
	tk = mi_art_task_find(n.task);
	if (!tk) {
		rc = mi_art_bad_task(n.task, out, false);
		goto out;
	}
	rc = prompt_ready(a, q, &n, tk, out);
out:
	mi_buf_release(&norm);
	return rc;
}

int mi_mcp_art_generate(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out)
{
	mi_buf norm = {0};
	mi_art_req n;
	int rc = mi_art_norm(r, &n, &norm, true, out);
	if (rc)
		goto out;
	if (n.task && strcmp(n.task, "parse") == 0)
		rc = mi_art_parse(a, q, &n, out);
	else if (n.task && (strcmp(n.task, "annotate") == 0 || strcmp(n.task, "summarize") == 0))
		rc = prompt_ready(a, q, &n, mi_art_task_find(n.task), out);
	else
		rc = mi_art_bad_task(n.task, out, true);
out:
	mi_buf_release(&norm);
	return rc;
}

/* ---- store_llm_result ------------------------------------------------------------------- */

/* Symbols of a file, for matching "NAME: text" lines of an annotation. */
typedef struct sym_list {
	mi_buf names;      /* NUL-separated qualified names */
	mi_buf lines;      /* uint32_t start line per name */
	size_t n;          /* count */
} sym_list;

static int sym_collect(void *ctx, const char *name, int kind, uint32_t start, uint32_t end)
{
	sym_list *l = ctx;
	mi_buf_add(&l->names, name, strlen(name) + 1);
	mi_buf_add(&l->lines, &start, sizeof start);
	l->n++;
	return 0;
}

/* The line of the symbol called name (qualified or simple), or 0 with
 * *found false. */
static uint32_t sym_line(const sym_list *l, const char *name, size_t nlen, bool *found,
			 const char **qname)
{
	const char *p = l->names.buf;
	for (size_t i = 0; i < l->n; i++, p += strlen(p) + 1) {
		const char *dot = strrchr(p, '.');
		if ((strlen(p) == nlen && memcmp(p, name, nlen) == 0) ||
		    (dot && strlen(dot + 1) == nlen && memcmp(dot + 1, name, nlen) == 0)) {
			uint32_t line;
			memcpy(&line, l->lines.buf + i * sizeof line, sizeof line);
			*found = true;
			*qname = p;
			return line;
		}
	}
	*found = false;
	return 0;
}

typedef struct store_ctx {
	const mi_art_req *r;     /* the call (normalised) */
	const uint8_t *hash;     /* of the source the result describes */
	uint32_t line;           /* the symbol's line, 0 for a file */
	const char *chain;       /* correlation id */
	const sym_list *syms;    /* per-symbol lines: the file's symbols, or NULL */
	int64_t now;             /* created */
	int per_symbol;          /* out: per-symbol records written */
} store_ctx;

/* "NAME: text" with optional list marks and emphasis around NAME. */
static bool split_line(const char *s, size_t n, const char **name, size_t *nlen,
		       const char **text, size_t *tlen)
{
	size_t i = 0, ne;
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '-' || s[i] == '*'))
		i++;
	while (i < n && (s[i] == '`' || s[i] == '*'))
		i++;
	*name = s + i;
	while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.' ||
			 s[i] == '$' || s[i] == ':' ) && !(s[i] == ':' && (i + 1 >= n || s[i + 1] != ':')))
		i += s[i] == ':' ? 2 : 1;
	ne = (size_t)(s + i - *name);
	while (i < n && (s[i] == '`' || s[i] == '*' || s[i] == '(' || s[i] == ')'))
		i++;
	if (!ne || i >= n || s[i] != ':')
		return false;
	i++;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	*nlen = ne;
	*text = s + i;
	*tlen = n - i;
	while (*tlen && ((*text)[*tlen - 1] == ' ' || (*text)[*tlen - 1] == '\r'))
		(*tlen)--;
	return *tlen > 0;
}

static int store_fn(mi_side_txn *t, void *ctx)
{
	store_ctx *c = ctx;
	const mi_art_req *r = c->r;
	mi_side_rec rec;
	int rc;
	c->per_symbol = 0;
	memset(&rec, 0, sizeof rec);
	rec.path = r->path;
	rec.kind = r->task;
	rec.name = r->symbol ? r->symbol : "";
	memcpy(rec.hash, c->hash, 16);
	rec.has_hash = true;
	rec.created_ms = c->now;
	rec.corr = c->chain;
	rec.num = c->line;
	rec.text = r->result;
	rec.text_len = strlen(r->result);
	rc = mi_side_put(t, MI_SIDE_ARTIFACTS, &rec);
	if (rc || !c->syms)
		return rc;
	for (const char *p = r->result; *p;) {
		const char *nl = strchr(p, '\n'), *name, *text, *qname;
		size_t n = nl ? (size_t)(nl - p) : strlen(p), nlen, tlen;
		bool found;
		if (split_line(p, n, &name, &nlen, &text, &tlen)) {
			uint32_t line = sym_line(c->syms, name, nlen, &found, &qname);
			if (found) {
				char *one = mi_xstrndup(text, tlen);
				rec.name = qname;
				rec.num = line;
				rec.text = one;
				rec.text_len = tlen;
				rc = mi_side_put(t, MI_SIDE_ARTIFACTS, &rec);
				free(one);
				if (rc)
					return rc;
				c->per_symbol++;
			}
		}
		p += n + (nl ? 1 : 0);
	}
	return 0;
}

/* ---- tool aliases (task "aliases") ------------------------------------------------- */

/* The phrasings of an aliases answer, one per line: list marks, numbering
 * and quotes dropped, duplicates and empty lines left out, at most 20 of at
 * most 200 bytes. */
static void phrasings(const char *in, mi_buf *out, int *n)
{
	*n = 0;
	for (const char *p = in; *p && *n < 20;) {
		const char *nl = strchr(p, '\n'), *b = p, *e = nl ? nl : p + strlen(p);
		mi_buf one = {0};
		p = nl ? nl + 1 : e;
		while (b < e && (isspace((unsigned char)*b) || *b == '-' || *b == '*' ||
				 *b == '"' || *b == '`' || isdigit((unsigned char)*b) ||
				 ((*b == '.' || *b == ')') && b > in && isdigit((unsigned char)b[-1]))))
			b++;
		while (e > b && (isspace((unsigned char)e[-1]) || e[-1] == '"' || e[-1] == '`'))
			e--;
		if (e <= b)
			continue;
		mi_buf_add(&one, b, (size_t)(e - b > 200 ? 200 : e - b));
		mi_buf_addc(&one, '\n');
		if (!out->len || !strstr(out->buf, one.buf) ||
		    (strstr(out->buf, one.buf) != out->buf && strstr(out->buf, one.buf)[-1] != '\n')) {
			mi_buf_add(out, one.buf, one.len);
			(*n)++;
		}
		mi_buf_release(&one);
	}
}

typedef struct alias_ctx {
	const char *tool;      /* "server/tool" */
	const uint8_t *pin;    /* the tool's hash */
	const char *text;      /* phrasings, one per line */
	const char *chain;     /* correlation id */
} alias_ctx;

static int alias_fn(mi_side_txn *t, void *ctx)
{
	alias_ctx *c = ctx;
	mi_side_rec rec;
	memset(&rec, 0, sizeof rec);
	rec.path = c->tool;
	rec.kind = "alias";
	rec.name = "";
	memcpy(rec.hash, c->pin, 16);
	rec.has_hash = true;
	rec.corr = c->chain;
	rec.text = c->text;
	rec.text_len = strlen(c->text);
	return mi_side_put(t, MI_SIDE_ALIASES, &rec);
}

/* store_llm_result for a tool card: the phrasings become the tool's
 * aliases (MI_SIDE_ALIASES), pinned to the tool's hash. */
static int store_aliases(mi_art *a, mi_query *q, const mi_art_req *n, art_step *st,
			 mi_out *out)
{
	const char *tool = n->path + strlen(MI_ART_TOOL_PREFIX);
	mi_tool_info info;
	mi_buf text = {0}, data = {0}, msg = {0};
	uint8_t want[16];
	alias_ctx c;
	mi_side *s;
	char hex[33];
	int rc, count;
	rc = mi_query_tool_get(q, tool, &info);
	if (rc)
		return mi_art_error(out, rc, "find_tools lists the tools of the catalog.",
				    "No tool '%s' in the catalog.", tool);
	mi_hash_hex(info.hash, hex);
	if (n->hash && *n->hash && (!mi_art_hex_hash(n->hash, want) ||
				    memcmp(want, info.hash, 16) != 0)) {
		rc = mi_art_error(out, MI_ERR_ARG, "Call generate_prompt again for the tool's "
				  "current card.", "Tool '%s' changed since its prompt was made "
				  "(pin %s, the prompt had %.32s).", tool, hex, n->hash);
		goto out;
	}
	phrasings(n->result, &text, &count);
	if (!count) {
		rc = mi_art_error(out, MI_ERR_ARG, "Answer with task phrasings, one per line.",
				  "The result holds no phrasings.");
		goto out;
	}
	if ((rc = chain_step(a, n, STEP_ANSWER, st, out)))
		goto out;
	if ((rc = mi_art_side(a, true, &s, out)))
		goto out;
	c.tool = tool;
	c.pin = info.hash;
	c.text = text.buf;
	c.chain = st->chain;
	if ((rc = mi_side_write(s, alias_fn, &c))) {
		rc = mi_art_error(out, rc, "Retry.", "Cannot store the aliases: %s.",
				  mi_strerror(rc));
		goto out;
	}
	mi_buf_adds(&data, "{\"aliases\":{\"tool\":");
	mi_buf_add_json_str(&data, tool, strlen(tool));
	mi_buf_addf(&data, ",\"hash\":\"%s\",\"phrasings\":%d,\"text\":", hex, count);
	mi_buf_add_json_str(&data, text.buf, text.len);
	mi_buf_addf(&data, "},\"step\":%d,\"max_steps\":%d}", st->step, st->max);
	mi_buf_addf(&msg, "stored %d aliases for %s (chain %s, step %d of %d)", count, tool,
		    st->chain, st->step, st->max);
	mi_art_success(out, data.buf, msg.buf, "find_tools matches them once the catalog "
		       "is re-indexed: a server with the catalog does it now (list_changed "
		       "follows); else run mcpidx build --servers FILE.");
out:
	mi_tool_info_release(&info);
	mi_buf_release(&text);
	mi_buf_release(&data);
	mi_buf_release(&msg);
	return rc;
}

int mi_mcp_art_store(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out)
{
	int64_t start = mi_art_now_us();
	mi_buf norm = {0}, data = {0}, text = {0};
	mi_art_req n;
	art_step st;
	const mi_art_task *tk;
	sym_list syms = {{0}, {0}, 0};
	uint8_t hash[16], now[16];
	uint32_t line = 0;
	mi_side *s;
	mi_side_rec rec;
	store_ctx c;
	bool have_now, is_tool;
	int rc;

	memset(&st, 0, sizeof st);
	rc = mi_art_norm(r, &n, &norm, true, out);
	if (rc)
		goto out;
	tk = mi_art_task_find(n.task);
	if (!tk) {
		rc = mi_art_bad_task(n.task, out, false);
		goto out;
	}
	if (!n.result || !*n.result) {
		rc = mi_art_error(out, MI_ERR_ARG, "Pass the model's answer as \"result\".",
				  "store_llm_result needs a non-empty result.");
		goto out;
	}
	if (strlen(n.result) > MI_ART_MAX_RESULT) {
		rc = mi_art_error(out, MI_ERR_TOOBIG, "Ask the model for a shorter answer "
				  "(one artifact is at most 1 MiB).", "The result is %zu bytes, "
				  "over the 1 MiB limit.", strlen(n.result));
		goto out;
	}
	/* as mi_art_compose: a tool's task needs "tool:server/tool", a file's
	 * task a file (store_aliases reads the name after the prefix) */
	is_tool = strncmp(n.path, MI_ART_TOOL_PREFIX, strlen(MI_ART_TOOL_PREFIX)) == 0;
	if (tk->tool_card && !is_tool) {
		rc = mi_art_error(out, MI_ERR_ARG, "Pass path \"tool:server/tool\" (find_tools "
				  "lists the tools).", "Task %s is about a tool of the catalog, "
				  "not a file.", tk->name);
		goto out;
	}
	if (!tk->tool_card && is_tool) {
		rc = mi_art_error(out, MI_ERR_ARG, "Use task aliases for a tool, or give a "
				  "file path.", "Task %s is about a file, not a tool.", tk->name);
		goto out;
	}
	if (tk->tool_card) {
		rc = store_aliases(a, q, &n, &st, out);
		goto out;
	}
	rc = mi_query_file_info(q, n.path, n.symbol, hash, &line, out);
	if (rc) {
		rc = mi_art_from_query(out, rc, n.symbol ? "read_file {\"path\": ..., \"filter\": "
				"\"all\"} lists the file's symbols." : "Check the path; rebuild the "
				"index if the file is new (index_codebase).");
		goto out;
	}
	if (n.hash && *n.hash && !mi_art_hex_hash(n.hash, hash)) {
		rc = mi_art_error(out, MI_ERR_ARG, "Pass callbackArgs back unchanged.",
				  "'hash' must be the 32 hex digits generate_prompt gave.");
		goto out;
	}
	if (tk->per_symbol && !n.symbol) {
		mi_out ignore;
		memset(&ignore, 0, sizeof ignore);
		mi_query_file_symbols(q, n.path, sym_collect, &syms, &ignore);
		mi_out_release(&ignore);
	}
	rc = chain_step(a, &n, STEP_ANSWER, &st, out);
	if (rc)
		goto out;
	if ((rc = mi_art_side(a, true, &s, out)))
		goto out;
	memset(&c, 0, sizeof c);
	c.r = &n;
	c.hash = hash;
	c.line = line;
	c.chain = st.chain;
	c.syms = syms.n ? &syms : NULL;
	c.now = mi_side_now_ms();
	rc = mi_side_write(s, store_fn, &c);
	if (rc) {
		rc = mi_art_error(out, rc, "Retry; if it persists, check the artifact store's "
				  "directory.", "Cannot store the artifact in %s: %s.",
				  mi_side_dir(s), mi_strerror(rc));
		goto out;
	}

	have_now = mi_art_current_hash(a, q, n.path, now);
	memset(&rec, 0, sizeof rec);
	rec.path = n.path;
	rec.kind = n.task;
	rec.name = n.symbol ? n.symbol : "";
	memcpy(rec.hash, hash, 16);
	rec.has_hash = true;
	rec.created_ms = c.now;
	rec.corr = st.chain;
	rec.num = line;
	rec.text = n.result;
	rec.text_len = strlen(n.result);
	mi_buf_adds(&data, "{\"artifact\":");
	mi_art_json(&data, &rec, have_now ? now : NULL, false);
	mi_buf_addf(&data, ",\"step\":%d,\"max_steps\":%d,\"per_symbol\":%d}", st.step,
		    st.max, c.per_symbol);
	mi_buf_addf(&text, "stored %s%s%s for %s (chain %s, step %d of %d, %zu chars",
		    n.task, n.symbol ? " of " : "", n.symbol ? n.symbol : "", n.path,
		    st.chain, st.step, st.max, strlen(n.result));
	if (c.per_symbol)
		mi_buf_addf(&text, ", %d symbol annotations", c.per_symbol);
	mi_buf_adds(&text, ")");
	if (!have_now || memcmp(now, hash, 16) != 0)
		mi_buf_adds(&text, "; stale already: the source changed since the prompt was made");
	mi_art_success(out, data.buf, text.buf, !have_now || memcmp(now, hash, 16) != 0 ?
		       "The source changed after the prompt was made: rebuild the index "
		       "(index_codebase) and call generate_prompt again for a fresh one." :
		       "get_artifact {path, task} reads it back; search_code finds the "
		       "function by the words of its artifact.");
	rc = 0;
out:
	art_log(a, &n, &st, rc ? "error" : "stored", mi_art_now_us() - start);
	mi_buf_release(&norm);
	mi_buf_release(&data);
	mi_buf_release(&text);
	mi_buf_release(&syms.names);
	mi_buf_release(&syms.lines);
	return rc;
}


typedef struct del_ctx {
	const mi_art_req *r;  /* normalised call */
	mi_buf keys;          /* kind \0 name \0 of the matches */
	size_t n;             /* deleted */
} del_ctx;

static int del_collect(void *ctx, const mi_side_rec *r)
{
	del_ctx *d = ctx;
	if ((d->r->task && *d->r->task && strcmp(d->r->task, r->kind) != 0) ||
	    (d->r->symbol && strcmp(d->r->symbol, r->name) != 0))
		return 0;
	mi_buf_add(&d->keys, r->kind, strlen(r->kind) + 1);
	mi_buf_add(&d->keys, r->name, strlen(r->name) + 1);
	return 0;
}

static int del_fn(mi_side_txn *t, void *ctx)
{
	del_ctx *d = ctx;
	mi_buf pre = {0};
	int rc;
	mi_buf_reset(&d->keys);
	d->n = 0;
	mi_buf_add(&pre, d->r->path, strlen(d->r->path) + 1);
	rc = mi_side_scan(t, MI_SIDE_ARTIFACTS, pre.buf, pre.len, del_collect, d);
	for (size_t off = 0; !rc && off < d->keys.len;) {
		const char *kind = d->keys.buf + off, *name = kind + strlen(kind) + 1;
		off = (size_t)(name - d->keys.buf) + strlen(name) + 1;
		rc = mi_side_del(t, MI_SIDE_ARTIFACTS, d->r->path, kind, name);
		if (!rc)
			d->n++;
	}
	mi_buf_release(&pre);
	return rc;
}

int mi_mcp_art_delete(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out)
{
	int64_t start = mi_art_now_us();
	mi_buf norm = {0}, data = {0}, text = {0};
	mi_art_req n;
	del_ctx d;
	mi_side *s;
	int rc;
	memset(&d, 0, sizeof d);
	rc = mi_art_norm(r, &n, &norm, true, out);
	if (rc)
		goto out;
	d.r = &n;
	rc = mi_art_side(a, false, &s, out);
	if (rc && rc != MI_ERR_NOINDEX)
		goto out;
	if (!rc && (rc = mi_side_write(s, del_fn, &d))) {
		rc = mi_art_error(out, rc, "Retry.", "Cannot delete from the artifact store: %s.",
				  mi_strerror(rc));
		goto out;
	}
	if (!d.n) {
		rc = mi_art_error(out, MI_ERR_NOTFOUND, "list_artifacts shows what exists.",
				  "No artifact of %s matches%s%s%s%s.", n.path,
				  n.task && *n.task ? " task " : "", n.task ? n.task : "",
				  n.symbol ? " symbol " : "", n.symbol ? n.symbol : "");
		goto out;
	}
	mi_buf_adds(&data, "{\"path\":");
	mi_buf_add_json_str(&data, n.path, strlen(n.path));
	mi_buf_addf(&data, ",\"deleted\":%zu}", d.n);
	mi_buf_addf(&text, "deleted %zu artifact%s of %s", d.n, d.n == 1 ? "" : "s", n.path);
	mi_art_success(out, data.buf, text.buf, NULL);
	rc = 0;
out:
	if (n.path)
		art_log(a, &n, NULL, rc ? "error" : "deleted", mi_art_now_us() - start);
	mi_buf_release(&norm);
	mi_buf_release(&data);
	mi_buf_release(&text);
	mi_buf_release(&d.keys);
	return rc;
}


/* ---- search_code with the host's model ---------------------------------------------------- */

/* Appends ,"key":value fields to the JSON object in j (before its '}'). */
static void splice(mi_buf *j, const char *fields)
{
	while (j->len && j->buf[j->len - 1] != '}')
		j->len--;
	if (!j->len) {
		mi_buf_adds(j, "{");
		mi_buf_adds(j, fields + 1); /* no leading comma in an empty object */
	} else {
		j->buf[--j->len] = 0;
		mi_buf_adds(j, fields);
	}
	mi_buf_addc(j, '}');
}

int mi_mcp_art_search(mi_art *a, mi_query *q, const mi_art_search *r, mi_out *out)
{
	mi_search_opts so = r->so;
	mi_art_req cr;
	art_step st;
	mi_buf expanded = {0}, prompt = {0}, f = {0};
	const char *query = so.query ? so.query : "";
	bool answer = r->expand && r->result && *r->result;
	int rc;

	memset(&cr, 0, sizeof cr);
	memset(&st, 0, sizeof st);
	cr.tool = "search_code";
	cr.task = "expand_query";
	cr.path = "";
	cr.chain = r->chain;
	cr.call_id = r->call_id;
	if (answer) {
		/* The callback of an expand_query prompt: search with the words the
		 * host's model added. */
		if ((rc = chain_step(a, &cr, STEP_ANSWER, &st, out)))
			goto out;
		mi_art_expand_query(query, r->result, &expanded);
		so.query = expanded.buf;
	}
	rc = mi_query_search(q, &so, out);
	if (rc || out->is_error)
		goto out;
	if (answer) {
		mi_buf_adds(&f, ",\"status\":\"success\",\"expanded_query\":");
		mi_buf_add_json_str(&f, expanded.buf, expanded.len);
		mi_buf_addf(&f, ",\"chain\":\"%s\",\"step\":%d", st.chain, st.step);
		mi_buf_addf(&out->text, "(expanded query: %s)\n", expanded.buf);
	} else if (r->expand) {
		if ((rc = chain_step(a, &cr, STEP_PROMPT, &st, out)))
			goto out;
		mi_art_expand_prompt(query, out, &prompt);
		mi_buf_adds(&f, ",\"status\":\"prompt_ready\",\"promptForHostLLM\":");
		mi_buf_add_json_str(&f, prompt.buf, prompt.len);
		mi_buf_adds(&f, ",\"callbackTool\":\"search_code\",\"callbackArgs\":{\"query\":");
		mi_buf_add_json_str(&f, query, strlen(query));
		mi_buf_addf(&f, ",\"expand_query\":true,\"chain\":\"%s\",\"step\":%d", st.chain,
			    st.step);
		if (r->so.limit)
			mi_buf_addf(&f, ",\"limit\":%zu", r->so.limit);
		if (r->so.path_filter) {
			mi_buf_adds(&f, ",\"path_filter\":");
			mi_buf_add_json_str(&f, r->so.path_filter, strlen(r->so.path_filter));
		}
		if (r->synthesize)
			mi_buf_adds(&f, ",\"synthesize\":true");
		mi_buf_adds(&f, "},\"nextAction\":\"The results above are for the words as given. "
			    "For a wider search run promptForHostLLM with your own model and call "
			    "search_code with callbackArgs plus \\\"result\\\": the model's answer.\"");
		mi_buf_addf(&out->text, "\nprompt_ready (chain %s, step %d of %d): for a wider "
			    "search, run this prompt with your own model and call search_code again "
			    "with {\"query\": ..., \"expand_query\": true, \"chain\": \"%s\", "
			    "\"result\": <its answer>}:\n----- prompt -----\n%s", st.chain, st.step,
			    st.max, st.chain, prompt.buf);
		art_log(a, &cr, &st, "prompt_ready", 0);
	}
	if (r->synthesize && !(r->expand && !answer)) {
		mi_buf_reset(&prompt);
		mi_art_synth_prompt(query, out, &prompt);
		if (!answer)
			mi_buf_adds(&f, ",\"status\":\"success\"");
		mi_buf_adds(&f, ",\"promptForHostLLM\":");
		mi_buf_add_json_str(&f, prompt.buf, prompt.len);
		mi_buf_adds(&f, ",\"nextAction\":\"Run promptForHostLLM with your own model for a "
			    "summary of these results and follow-up questions; nothing needs to be "
			    "sent back.\"");
		mi_buf_addf(&out->text, "\n----- synthesis prompt (run it with your own model) "
			    "-----\n%s", prompt.buf);
	}
	if (f.len)
		splice(&out->json, f.buf);
	if (answer)
		art_log(a, &cr, &st, "searched", 0);
	rc = 0;
out:
	mi_buf_release(&expanded);
	mi_buf_release(&prompt);
	mi_buf_release(&f);
	return rc;
}
