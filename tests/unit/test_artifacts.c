/*
 * test_artifacts.c - the read side of artifacts on a real index: prompts
 * within a token budget (the outline, only the bodies a task needs, what is
 * left out named), V* summary notes in outlines and expansions, and stored
 * summaries ranked as search evidence (BM25 over their words, stale ones
 * left out).
 */
#include "test.h"
#include "../../indexer/indexer.h"
#include "../../query/query.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];
static mi_query *q;

static void write_file(const char *rel, const char *text)
{
	char path[256];
	FILE *f;
	snprintf(path, sizeof path, "%s/repo/%s", root, rel);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static int setup(void)
{
	static char dir[128], repo[128], idx[128];
	mi_buf err = {0};
	mi_build_opts bo = {0};
	mi_build_stats st;
	mi_buf big = {0};
	snprintf(root, sizeof root, "/tmp/mcpidx-art.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(dir, sizeof dir, "%s/repo/src", root);
	snprintf(repo, sizeof repo, "%s/repo", root);
	mkdir(repo, 0777);
	mkdir(dir, 0777);
	write_file("src/net.c",
		   "/* Opens a connection. */\n"
		   "int net_open(const char *host)\n{\n\treturn host != 0;\n}\n\n"
		   "static int net_retry(int fd)\n{\n\treturn fd + 1;\n}\n\n"
		   "int net_close(int fd)\n{\n\treturn fd;\n}\n");
	for (int i = 0; i < 200; i++)
		mi_buf_addf(&big, "int g%d(int x)\n{\n\treturn x * %d + %d * x * x - %d;\n}\n\n",
			    i, i, i, i);
	write_file("src/big.c", big.buf);
	mi_buf_release(&big);
	bo.repo = repo;
	bo.jobs = 2;
	snprintf(idx, sizeof idx, "%s/repo/.mcpidx", root);
	if (mi_build(&bo, &st, &err) || mi_query_open(idx, &q, &err)) {
		printf("FAIL setup: %s\n", mi_buf_str(&err));
		mi_buf_release(&err);
		return -1;
	}
	return 0;
}

TEST(prompt_bodies_and_budget)
{
	mi_out o = {0};
	mi_prompt_opts po = {.path = "src/net.c", .bodies = MI_PROMPT_BODIES_PUBLIC,
			     .instructions = "Do the thing."};
	CHECK_INT(mi_query_prompt(q, &po, &o), 0);
	CHECK(strncmp(mi_buf_str(&o.text), "Do the thing.\n\nFile: src/net.c (c, 15 lines)", 43) == 0);
	CHECK_CONTAINS(o.text.buf, "F> int net_open(const char *host) { ... }");
	CHECK_CONTAINS(o.text.buf, "--- net_open (lines 2-5)\n[doc comment: Opens a connection.]\n"
		       "int net_open(const char *host)\n{");
	CHECK(!strstr(o.text.buf, "--- net_retry")); /* private: not for a public task */
	CHECK_CONTAINS(o.json.buf, "\"bodies\":[\"net_open\",\"net_close\"],\"omitted\":[]");

	/* One symbol: its body only. */
	po.symbol = "net_retry";
	mi_out_reset(&o);
	CHECK_INT(mi_query_prompt(q, &po, &o), 0);
	CHECK_CONTAINS(o.json.buf, "\"symbol\":\"net_retry\",\"line\":7");
	CHECK_CONTAINS(o.json.buf, "\"bodies\":[\"net_retry\"]");

	/* A budget too small for every body: the rest are named as left out. */
	po.symbol = NULL;
	po.path = "src/big.c";
	po.bodies = MI_PROMPT_BODIES_ALL;
	po.budget_tokens = 1500;
	mi_out_reset(&o);
	CHECK_INT(mi_query_prompt(q, &po, &o), 0);
	CHECK(mi_token_estimate(o.text.buf, o.text.len) <= 1500);
	CHECK_CONTAINS(o.json.buf, "\"outline_mode\":\"compact\"");
	CHECK_CONTAINS(o.text.buf, "Bodies left out for the token budget");
	CHECK_CONTAINS(o.json.buf, "\"g199\"]");

	/* Focus: only the named bodies. */
	const char *focus[] = {"g7"};
	po.focus = focus;
	po.nfocus = 1;
	po.budget_tokens = 0;
	mi_out_reset(&o);
	CHECK_INT(mi_query_prompt(q, &po, &o), 0);
	CHECK_CONTAINS(o.json.buf, "\"bodies\":[\"g7\"],\"omitted\":[]");

	po.focus = NULL;
	po.nfocus = 0;
	po.symbol = "nosuch";
	mi_out_reset(&o);
	CHECK_INT(mi_query_prompt(q, &po, &o), MI_ERR_NOTFOUND);
	CHECK_CONTAINS(o.text.buf, "No symbol 'nosuch' in src/big.c");
	po.path = "../x";
	mi_out_reset(&o);
	CHECK_INT(mi_query_prompt(q, &po, &o), MI_ERR_PATH);
	mi_out_release(&o);
}

TEST(notes_in_views)
{
	mi_view_note notes[] = {
		{0, "summary", "Network helpers."},
		{12, "summary", "Closes\nthe   socket."},
		{2, "summary", NULL},
	};
	mi_view_opts vo = {.line_notes = notes, .nline_notes = 3};
	mi_out o = {0};
	char big[400];
	CHECK_INT(mi_query_read_file(q, "src/net.c", &vo, &o), 0);
	CHECK_STR(o.text.buf, "V* summary: Network helpers.\n"
		  "F> int net_open(const char *host) { ... }\n"
		  "F> int net_close(int fd) { ... }\n"
		  "V* summary: Closes the socket.\n");
	mi_out_reset(&o);
	CHECK_INT(mi_query_expand(q, "src/net.c", "net_close", "docs", &vo, &o), 0);
	CHECK_CONTAINS(o.text.buf, "V* summary: Closes the socket.\n");
	/* A long note is cut in an outline, whole in an expansion; never inside
	 * a UTF-8 sequence. */
	memset(big, 'a', sizeof big);
	memcpy(big + 299, "\xc3\xa9", 2); /* straddles the 300-byte cut */
	big[sizeof big - 1] = 0;
	notes[1].text = big;
	mi_out_reset(&o);
	CHECK_INT(mi_query_read_file(q, "src/net.c", &vo, &o), 0);
	CHECK(mi_utf8_valid(o.text.buf, o.text.len));
	CHECK_CONTAINS(o.text.buf, "aa...\n");
	mi_out_reset(&o);
	CHECK_INT(mi_query_expand(q, "src/net.c", "net_close", "all", &vo, &o), 0);
	CHECK(strstr(o.text.buf, big) != NULL);
	mi_out_release(&o);
}

typedef struct put_ctx {
	const mi_side_rec *r; /* to store */
	size_t n;             /* how many */
} put_ctx;

static int put_all(mi_side_txn *t, void *ctx)
{
	put_ctx *c = ctx;
	for (size_t i = 0; i < c->n; i++) {
		int rc = mi_side_put(t, MI_SIDE_ARTIFACTS, &c->r[i]);
		if (rc)
			return rc;
	}
	return 0;
}

TEST(summaries_as_evidence)
{
	char side_dir[128], idx[128];
	uint8_t h_net[16], h_big[16];
	mi_side *s;
	mi_side_rec r[4];
	put_ctx pc = {r, 4};
	mi_art_hit *hits;
	size_t n;
	snprintf(side_dir, sizeof side_dir, "%s/side", root);
	snprintf(idx, sizeof idx, "%s/repo/.mcpidx", root);
	CHECK_INT(mi_query_file_hash(q, "src/net.c", h_net), 0);
	CHECK_INT(mi_query_file_hash(q, "src/big.c", h_big), 0);
	memset(r, 0, sizeof r);
	r[0] = (mi_side_rec){.path = "src/net.c", .kind = "summarize", .name = "net_close",
			     .has_hash = true, .num = 12, .text = "hangs up the telephone line"};
	memcpy(r[0].hash, h_net, 16);
	r[1] = (mi_side_rec){.path = "src/net.c", .kind = "annotate", .name = "net_open",
			     .has_hash = true, .num = 2, .text = "dials the telephone"};
	memcpy(r[1].hash, h_net, 16);
	/* Stale: pinned to other content. */
	r[2] = (mi_side_rec){.path = "src/big.c", .kind = "summarize", .name = "g1",
			     .has_hash = true, .num = 6, .text = "telephone telephone telephone"};
	/* A test plan is not evidence. */
	r[3] = (mi_side_rec){.path = "src/big.c", .kind = "test-plan", .name = "g2",
			     .has_hash = true, .num = 11, .text = "telephone line tests"};
	memcpy(r[3].hash, h_big, 16);
	for (int i = 0; i < 4; i++)
		r[i].text_len = strlen(r[i].text);
	CHECK_INT(mi_side_open(side_dir, MI_SIDE_CREATE, &s), 0);
	CHECK_INT(mi_side_write(s, put_all, &pc), 0);
	mi_side_close(s);

	mi_art_opts ao = {.index = idx, .side = side_dir};
	mi_art *a = mi_art_new(&ao);
	CHECK_INT(mi_art_evidence(a, q, "telephone line", 10, &hits, &n), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_STR(hits[0].symbol, "net_close");
		CHECK_INT(hits[0].line, 12);
		CHECK_STR(hits[1].symbol, "net_open");
		CHECK(hits[0].score > hits[1].score && hits[1].score > 0);
	}
	mi_art_evidence_free(hits, n);
	CHECK_INT(mi_art_evidence(a, q, "unrelated words", 10, &hits, &n), 0);
	CHECK_INT(n, 0);
	mi_art_evidence_free(hits, n);

	/* A new summary is seen by the next query (the term index follows the
	 * side store's generation). */
	r[0] = (mi_side_rec){.path = "src/net.c", .kind = "summarize", .name = "net_retry",
			     .has_hash = true, .num = 7, .text = "tries the modem again",
			     .text_len = 21};
	memcpy(r[0].hash, h_net, 16);
	pc.n = 1;
	CHECK_INT(mi_side_open(side_dir, 0, &s), 0);
	CHECK_INT(mi_side_write(s, put_all, &pc), 0);
	mi_side_close(s);
	CHECK_INT(mi_art_evidence(a, q, "modem", 10, &hits, &n), 0);
	CHECK_INT(n, 1);
	mi_art_evidence_free(hits, n);
	mi_art_free(a);
}

int main(void)
{
	if (setup())
		return 1;
	RUN(prompt_bodies_and_budget);
	RUN(notes_in_views);
	RUN(summaries_as_evidence);
	mi_query_close(q);
	{
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
		if (system(cmd))
			printf("warning: could not remove %s\n", root);
	}
	return test_done();
}
