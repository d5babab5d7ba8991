/*
 * fuzz_index_open.c - libFuzzer target for damaged index files: the input says
 * how to damage a good index (cut it, flip bytes in it, as a bare data file
 * or as a packed file with its trailer), and the damaged file is opened and
 * asked every kind of question.  Nothing may crash, hang or leak;
 * mi_store_check and mi_query_open must agree; a cut file must be refused
 * unless every page in use survived; every answer must be valid JSON; the
 * undamaged file must answer.
 *
 * Input: byte 0 bit 0 set: a packed file (data + trailer), else a bare data
 * file; bytes 1..4 (little-endian): the length to cut the file to, modulo
 * its size + 1 (0xffffffff: no cut); then records of 4 bytes: a 24-bit
 * little-endian offset (modulo the size) and a byte to xor there.
 *
 *	make fuzz && build/fuzz/fuzz_index_open -max_total_time=240 \
 *	    -rss_limit_mb=2048 build/fuzz-corpus/index tests/fuzz/corpus/index
 *
 * tests/unit/test_fuzz_regress.c includes this file to replay the corpus
 * without libFuzzer.
 */
#include "../../format/format.h"
#include "../../indexer/indexer.h"
#include "../../query/query.h"
#include "fuzz.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char ix_root[64];          /* the fixture repository */
static char ix_file[96];          /* where each damaged copy is written */
static uint8_t *ix_good;          /* the good data file */
static size_t ix_good_len;
static uint64_t ix_used;          /* bytes of it LMDB uses (the rest is free) */
static int ix_ready;
static pid_t ix_owner;

static const char *const ix_files[][2] = {
	{"src/net.c", "/* Opens a connection to host. */\n"
		      "int net_open(const char *host, int port) { return port > 0; }\n"
		      "static int net_retry(void) { return net_open(\"h\", 1); }\n"
		      "struct conn { int fd; int port; };\n"},
	{"lib/util.py", "class Pool:\n    \"\"\"A pool of connections.\"\"\"\n"
			"    def take(self):\n        return net_open()\n\n"
			"def retry(fn, times=3):\n    return any(fn() for _ in range(times))\n"},
	{"README.md", "# Network\n\nOpening connections.\n\n## Retry\n\nRetries calls.\n"},
};

static void ix_cleanup(void)
{
	char cmd[128];
	if (getpid() != ix_owner || !ix_root[0])
		return;
	unlink(ix_file);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", ix_root);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_index_open: could not remove %s\n", ix_root);
}

static int ix_write(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return errno;
	int rc = fwrite(p, 1, n, f) == n ? 0 : EIO;
	if (fclose(f) && !rc)
		rc = errno;
	return rc;
}

/* Builds the fixture's index once and keeps its data file. */
static void ix_init(void)
{
	mi_build_opts bo;
	mi_build_stats st;
	mi_buf err = {0}, p = {0};
	if (ix_ready)
		return;
	ix_owner = getpid();
	snprintf(ix_root, sizeof ix_root, "/tmp/mi-fuzz-index-XXXXXX");
	if (!mkdtemp(ix_root)) {
		perror("fuzz_index_open: mkdtemp");
		abort();
	}
	atexit(ix_cleanup);
	snprintf(ix_file, sizeof ix_file, "%s.%d.mdb", ix_root, (int)getpid());
	for (size_t i = 0; i < sizeof ix_files / sizeof *ix_files; i++) {
		mi_buf_reset(&p);
		mi_buf_addf(&p, "%s/%s", ix_root, ix_files[i][0]);
		*strrchr(p.buf, '/') = 0;
		mkdir(p.buf, 0777);
		p.buf[strlen(p.buf)] = '/';
		if (ix_write(p.buf, ix_files[i][1], strlen(ix_files[i][1]))) {
			fprintf(stderr, "fuzz_index_open: cannot write %s\n", p.buf);
			abort();
		}
	}
	memset(&bo, 0, sizeof bo);
	bo.repo = ix_root;
	bo.jobs = 1;
	if (mi_build(&bo, &st, &err)) {
		fprintf(stderr, "fuzz_index_open: building the fixture failed: %s\n", mi_buf_str(&err));
		abort();
	}
	mi_build_stats_release(&st);
	mi_buf_reset(&p);
	mi_buf_addf(&p, "%s/.mcpidx/data.mdb", ix_root);
	char *good;
	if (mi_read_file(p.buf, &good, &ix_good_len)) {
		fprintf(stderr, "fuzz_index_open: cannot read %s\n", p.buf);
		abort();
	}
	ix_good = (uint8_t *)good;
	mi_store *gst;
	*strrchr(p.buf, '/') = 0;
	if (mi_store_open(p.buf, MI_STORE_RDONLY, &gst)) {
		fprintf(stderr, "fuzz_index_open: cannot open %s\n", p.buf);
		abort();
	}
	ix_used = mi_store_size(gst);
	mi_store_close(gst);
	mi_buf_release(&p);
	mi_buf_release(&err);
	ix_ready = 1;
}

/* 0 when out's JSON (if any) parses. */
static int ix_json_ok(const mi_out *o)
{
	json_error_t e;
	if (!o->json.len)
		return 0;
	json_t *j = json_loadb(o->json.buf, o->json.len, JSON_ALLOW_NUL, &e);
	json_decref(j);
	if (!j && getenv("MI_FUZZ_ECHO"))
		fprintf(stderr, "invalid JSON (%s at %d): %.*s\n", e.text, e.position,
			(int)o->json.len, o->json.buf);
	return j ? 0 : -1;
}

/* MI_FUZZ_LAST=FILE: each input is written there before it runs, so one
 * that ends the process before libFuzzer can save it is kept. */
static void ix_save_last(const uint8_t *data, size_t size)
{
	const char *path = getenv("MI_FUZZ_LAST");
	if (path && ix_write(path, data, size))
		fprintf(stderr, "fuzz_index_open: cannot write %s\n", path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	ix_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mi_query *q = NULL;
	mi_buf err = {0}, file = {0};
	mi_out o = {0};
	bool pack, damaged;
	int rc, check;

	ix_init();
	ix_save_last(data, size);
	pack = size > 0 && (data[0] & 1);
	mi_buf_add(&file, ix_good, ix_good_len);
	if (pack) {
		mi_pack_trailer tr = {.pack_version = MI_PACK_VERSION, .format = MI_FORMAT_VERSION,
				      .data_len = ix_good_len};
		uint8_t raw[MI_PACK_TRAILER];
		snprintf(tr.tool, sizeof tr.tool, "fuzz");
		mi_pack_trailer_encode(&tr, raw);
		mi_buf_add(&file, raw, sizeof raw);
	}
	size_t whole = file.len;
	damaged = false;
	for (size_t i = 5; i + 4 <= size; i += 4) {
		size_t off = ((size_t)data[i] | (size_t)data[i + 1] << 8 |
			      (size_t)data[i + 2] << 16) % file.len;
		file.buf[off] ^= (char)data[i + 3];
		damaged |= data[i + 3] != 0;
	}
	if (size >= 5) {
		uint32_t cut = (uint32_t)data[1] | (uint32_t)data[2] << 8 |
			       (uint32_t)data[3] << 16 | (uint32_t)data[4] << 24;
		if (cut != 0xffffffffu && cut % (file.len + 1) < file.len) {
			file.len = cut % (file.len + 1);
			damaged = true;
		}
	}
	FUZZ_CHECK(ix_write(ix_file, file.buf, file.len) == 0);

	check = mi_store_check(ix_file, true);
	rc = mi_query_open(ix_file, &q, &err);
	/* The check and the open agree; a cut file is refused unless all the
	 * pages LMDB uses survive the cut (a page-aligned cut of the free tail
	 * and the trailer opens: only verify tells). */
	FUZZ_CHECK(check != MI_ERR_DAMAGED || rc == MI_ERR_DAMAGED);
	FUZZ_CHECK(file.len == whole || rc != 0 ||
		 (file.len % 4096 == 0 && file.len >= ix_used));
	FUZZ_CHECK(rc == 0 || err.len > 0);
	FUZZ_CHECK(damaged || rc == 0);
	if (rc)
		goto done;

	mi_view_opts vo = {0};
	mi_search_opts so = {.query = "open connection"};
	rc = mi_query_definition(q, "net_open", NULL, &o);
	FUZZ_CHECK(ix_json_ok(&o) == 0);
	FUZZ_CHECK(damaged || (rc == 0 && strstr(mi_buf_str(&o.text), "net_open")));
	mi_out_reset(&o);
	mi_query_read_file(q, "src/net.c", &vo, &o);
	FUZZ_CHECK(ix_json_ok(&o) == 0);
	mi_out_reset(&o);
	vo.mode = "full";
	mi_query_read_file(q, "lib/util.py", &vo, &o);
	FUZZ_CHECK(ix_json_ok(&o) == 0);
	mi_out_reset(&o);
	mi_query_expand(q, "lib/util.py", "Pool.take", "all", &vo, &o);
	FUZZ_CHECK(ix_json_ok(&o) == 0);
	mi_out_reset(&o);
	mi_query_references(q, "net_open", "all", 20, &o);
	FUZZ_CHECK(ix_json_ok(&o) == 0);
	mi_out_reset(&o);
	mi_query_search(q, &so, &o);
	FUZZ_CHECK(ix_json_ok(&o) == 0);
	mi_out_reset(&o);
	so.query = "retry";
	mi_query_docs(q, &so, &o);
	FUZZ_CHECK(ix_json_ok(&o) == 0);
	mi_out_reset(&o);
	mi_query_research(q, "net_open", 2, NULL, &o);
	FUZZ_CHECK(ix_json_ok(&o) == 0);
	mi_out_reset(&o);
	mi_query_stats(q, &o);
	FUZZ_CHECK(ix_json_ok(&o) == 0);
done:
	mi_out_release(&o);
	mi_query_close(q);
	mi_buf_release(&err);
	mi_buf_release(&file);
	return 0;
}
