/*
 * fuzz_jsonrpc.c - libFuzzer target for the MCP server's message handler.
 * The input is split at newlines into JSON-RPC messages, each handed to
 * mi_mcp_handle on one fresh session, as the stdio transport would.  The
 * server answers from a small index built at start-up (or, for inputs that
 * start with a tab, from a repository with no index, which answers "No
 * index"; inputs that start with a space begin on a session that has not
 * seen initialize).  Checked: every answer is one JSON-RPC 2.0 object with an id and
 * exactly one of result or error, a request's id comes back unchanged,
 * tool results have a content array, and every notification is valid JSON.
 *
 * MI_FUZZ_ECHO=1 in the environment prints each message and its answer.
 * index_codebase calls are skipped: they start builds of arbitrary paths
 * (tests/cli and tests/mcp cover them); so are subscriptions/listen, whose
 * answer is a stream that stays open.
 *
 *	make fuzz && build/fuzz/fuzz_jsonrpc -max_total_time=240 \
 *	    -rss_limit_mb=2048 build/fuzz-corpus/jsonrpc tests/fuzz/corpus/jsonrpc
 *
 * tests/unit/test_fuzz_regress.c includes this file to replay the corpora
 * without libFuzzer: it defines FUZZ_REPORT, and the entry points are
 * renamed there.
 */
#include "../../mcp/mcp_int.h"
#include "../../indexer/indexer.h"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The repository the server answers about: a few files in four languages. */
static const char *const jr_files[][2] = {
	{ "src/auth.h",
	  "#ifndef AUTH_H\n#define AUTH_H\n/* A logged-in user. */\n"
	  "struct user { int id; const char *name; };\n"
	  "int authenticate(const char *name, const char *pw);\n#endif\n" },
	{ "src/auth.c",
	  "#include \"auth.h\"\n#include <string.h>\n\n"
	  "static int check(const char *pw)\n{\n\treturn strlen(pw) > 8;\n}\n\n"
	  "/* Returns 1 when the password is good. */\n"
	  "int authenticate(const char *name, const char *pw)\n{\n"
	  "\tif (!name)\n\t\treturn 0;\n\treturn check(pw);\n}\n" },
	{ "src/session.c",
	  "#include \"auth.h\"\n\nint session_open(const char *n)\n{\n"
	  "\treturn authenticate(n, \"secret-password\");\n}\n" },
	{ "app/models.py",
	  "\"\"\"Models.\"\"\"\n\n\nclass User:\n    \"\"\"A user.\"\"\"\n\n"
	  "    def login(self, pw):\n        return check(pw)\n\n"
	  "    def _hidden(self):\n        pass\n\n\ndef check(pw):\n"
	  "    return len(pw) > 8\n" },
	{ "docs/guide.md",
	  "# Guide\n\nHow to log in.\n\n## Sessions\n\nCall `session_open`.\n\n"
	  "## Passwords \xc3\xa9\n\nLonger than eight characters.\n" },
	{ "README.md", "# demo\n\nA tiny repository for the fuzzer.\n" },
};

static mi_mcp_opts jr_opts[2];   /* [0] with an index, [1] without */
static mi_mcp_server jr_srv[2];  /* one per opts */
static char jr_root[2][64];      /* their repositories */
static int jr_ready;             /* 1 after a successful set-up */
static int jr_echo;              /* MI_FUZZ_ECHO set: print each exchange */

static int jr_write(const char *root, const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static pid_t jr_owner;            /* the process that made the fixtures */

static int jr_rm(const char *path, const struct stat *sb, int flag,
		 struct FTW *ftw)
{
	return remove(path);
}

/* Removes the fixture repositories (at exit of the process that made them,
 * not of forked children). */
static void jr_cleanup(void)
{
	if (getpid() != jr_owner)
		return;
	for (int k = 0; k < 2; k++)
		if (jr_root[k][0])
			nftw(jr_root[k], jr_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* Builds the fixture repository and its index, and sets up both servers. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	mi_build_opts bo;
	mi_build_stats st;
	mi_buf err = {0};
	size_t i;
	int k;

	if (jr_ready)
		return 0;
	jr_owner = getpid();
	atexit(jr_cleanup);
	for (k = 0; k < 2; k++) {
		snprintf(jr_root[k], sizeof jr_root[k], "/tmp/mi-fuzz-rpc-XXXXXX");
		if (!mkdtemp(jr_root[k])) {
			perror("fuzz_jsonrpc: mkdtemp");
			abort();
		}
	}
	for (i = 0; i < sizeof jr_files / sizeof *jr_files; i++)
		if (jr_write(jr_root[0], jr_files[i][0], jr_files[i][1])) {
			fprintf(stderr, "fuzz_jsonrpc: cannot write %s under %s\n",
				jr_files[i][0], jr_root[0]);
			abort();
		}
	memset(&bo, 0, sizeof bo);
	bo.repo = jr_root[0];
	bo.jobs = 1;
	if (mi_build(&bo, &st, &err)) {
		fprintf(stderr, "fuzz_jsonrpc: building the fixture index failed: %s\n",
			mi_buf_str(&err));
		abort();
	}
	mi_buf_release(&err);
	for (k = 0; k < 2; k++) {
		jr_opts[k].index = jr_root[k];
		jr_opts[k].log_file = "/dev/null";
		jr_opts[k].log_level = "off";
		jr_opts[k].self_exe = "/nonexistent/mcpidx";
		if (mi_mcp_server_init(&jr_srv[k], &jr_opts[k], &mi_mcp_spec_mcpidx)) {
			fprintf(stderr, "fuzz_jsonrpc: server set-up failed\n");
			abort();
		}
	}
	jr_echo = getenv("MI_FUZZ_ECHO") != NULL;
	jr_ready = 1;
	return 0;
}

/* Notifications a call sends: each must be one JSON object. */
typedef struct jr_sink {
	size_t n;     /* messages seen */
	size_t bad;   /* of which not a JSON-RPC notification */
} jr_sink;

static void jr_send(void *ctx, const char *msg, size_t len)
{
	jr_sink *k = ctx;
	json_error_t e;
	json_t *j = json_loadb(msg, len, JSON_ALLOW_NUL, &e);
	k->n++;
	if (!j || !json_is_object(j) || !json_is_string(json_object_get(j, "method")))
		k->bad++;
	json_decref(j);
}

/* true for a line the fuzzer must not run: index_codebase builds. */
static bool jr_skip(const char *line, size_t len)
{
	json_error_t e;
	json_t *j = json_loadb(line, len, JSON_REJECT_DUPLICATES, &e);
	json_t *params = json_object_get(j, "params");
	json_t *name = json_object_get(params, "name");
	json_t *method = json_object_get(j, "method");
	bool skip = (json_is_string(name) &&
		     strcmp(json_string_value(name), "index_codebase") == 0) ||
		    (json_is_string(method) &&
		     strcmp(json_string_value(method), "subscriptions/listen") == 0);
	json_decref(j);
	return skip;
}

/* Checks the answer to one message. */
static int jr_check_answer(const char *line, size_t len, const mi_buf *out)
{
	json_error_t e;
	json_t *req = json_loadb(line, len, JSON_REJECT_DUPLICATES, &e);
	json_t *ans = NULL, *rid, *aid, *res, *err;
	bool is_req;
	int rc = -1;

	rid = json_is_object(req) ? json_object_get(req, "id") : NULL;
	is_req = rid && (json_is_string(rid) || json_is_integer(rid)) &&
		 json_is_string(json_object_get(req, "method"));
	if (!out->len) {
		/* Only requests with a valid id, jsonrpc and method always get
		 * an answer (inline_only: nothing is deferred). */
		const char *v = json_string_value(json_object_get(req, "jsonrpc"));
		FUZZ_CHECK(!(is_req && v && strcmp(v, "2.0") == 0));
		rc = 0;
		goto done;
	}
	FUZZ_CHECK(mi_utf8_valid(out->buf, out->len));
	ans = json_loadb(out->buf, out->len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &e);
	FUZZ_CHECK(ans && json_is_object(ans));
	FUZZ_CHECK(json_is_string(json_object_get(ans, "jsonrpc")) &&
		 strcmp(json_string_value(json_object_get(ans, "jsonrpc")), "2.0") == 0);
	aid = json_object_get(ans, "id");
	FUZZ_CHECK(aid != NULL);
	res = json_object_get(ans, "result");
	err = json_object_get(ans, "error");
	FUZZ_CHECK((res != NULL) != (err != NULL));
	if (err) {
		FUZZ_CHECK(json_is_object(err));
		FUZZ_CHECK(json_is_integer(json_object_get(err, "code")));
		FUZZ_CHECK(json_is_string(json_object_get(err, "message")));
		FUZZ_CHECK(json_string_length(json_object_get(err, "message")) > 0);
	} else {
		FUZZ_CHECK(json_is_object(res));
		FUZZ_CHECK(is_req && json_equal(aid, rid));
		if (strcmp(json_string_value(json_object_get(req, "method")),
			   "tools/call") == 0) {
			json_t *content = json_object_get(res, "content");
			json_t *sc = json_object_get(res, "structuredContent");
			json_t *first = json_array_get(content, 0);
			FUZZ_CHECK(json_is_array(content) && json_array_size(content) >= 1);
			FUZZ_CHECK(json_is_string(json_object_get(first, "text")));
			FUZZ_CHECK(!sc || json_is_object(sc));
			FUZZ_CHECK(json_is_boolean(json_object_get(res, "isError")));
		}
	}
	if (is_req && err && json_is_object(req))
		FUZZ_CHECK(json_is_null(aid) || json_equal(aid, rid));
	rc = 0;
done:
	json_decref(req);
	json_decref(ans);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mi_mcp_session ss;
	jr_sink sk = {0, 0};
	mi_mcp_sink sink = { jr_send, &sk };
	mi_buf out = {0};
	const char *p = (const char *)data, *end = p + size;
	int lines = 0;
	bool noindex = false, uninit = false;

	if (!jr_ready)
		LLVMFuzzerInitialize(NULL, NULL);
	/* Leading whitespace (which JSON ignores) picks the set-up: a tab, the
	 * server without an index; a space, a session that must go through
	 * initialize itself.  Otherwise the session starts initialized. */
	for (size_t i = 0; i < size && (data[i] == ' ' || data[i] == '\t'); i++) {
		noindex |= data[i] == '\t';
		uninit |= data[i] == ' ';
	}
	mi_mcp_session_init(&ss, &jr_srv[noindex], sink);
	if (!uninit)
		atomic_store(&ss.state, 2);
	while (p < end && lines++ < 16) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		/* An exact-size copy, so a read past the end is caught. */
		char *line = malloc(len ? len : 1);
		mi_mcp_call *call = NULL;
		int rc;
		memcpy(line, p, len);
		p += len + (nl != NULL);
		if (jr_skip(line, len)) {
			free(line);
			continue;
		}
		mi_buf_reset(&out);
		mi_mcp_in in = { .data = line, .len = len, .sink = sink,
				  .inline_only = true };
		rc = mi_mcp_handle(&ss, &in, &out, &call, NULL);
		if (rc != 0 || call) {
			free(line);
			FUZZ_CHECK(rc == 0 && call == NULL);
		}
		if (jr_echo)
			fprintf(stderr, "<- %.*s\n-> %s\n", (int)len, line,
				mi_buf_str(&out));
		rc = jr_check_answer(line, len, &out);
		free(line);
		if (rc)
			goto done;
	}
	FUZZ_CHECK(sk.bad == 0);
	FUZZ_CHECK(ss.calls == NULL && ss.refs == 0);
done:
	mi_buf_release(&out);
	mi_mcp_session_release(&ss);
	return 0;
}
