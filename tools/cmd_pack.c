/*
 * cmd_pack.c - shipping and checking an index: `mcpidx pack` writes one
 * compacted file with a trailer, `mcpidx verify` checks such a file end to
 * end, `mcpidx status` tells whether an index still matches a working tree.
 *
 * A packed file is an LMDB data file (compacted copy) followed by a
 * MI_PACK_TRAILER-byte trailer (layout in format/pack.c and docs/format.md).
 * LMDB reads only up to its last page, so the file opens as an index as it
 * is (read-only, no lock file).
 */
#include "tools.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * Digest of the manifest (every MI_DB_FILES record, in path order) and the
 * number of files.  With check_src, also hashes each file's stored source and
 * compares it with its record; the first mismatch is described in err.
 */
static int manifest_digest(mi_store *st, bool check_src, uint8_t digest[16], uint64_t *nfiles,
			   mi_buf *err)
{
	mi_txn *t = NULL;
	mi_cursor *c = NULL;
	mi_buf m = {0};
	const void *k, *v;
	size_t kl, vl;
	int rc = mi_txn_begin(st, false, &t);
	*nfiles = 0;
	if (rc) {
		mi_buf_addf(err, "cannot read the index: %s", mi_strerror(rc));
		goto out;
	}
	if ((rc = mi_cursor_open(t, MI_DB_FILES, &c))) {
		mi_buf_addf(err, "cannot read the file list: %s", mi_strerror(rc));
		goto out;
	}
	for (rc = mi_cursor_seek(c, "", 0, &k, &kl, &v, &vl); rc == 0;
	     rc = mi_cursor_next(c, &k, &kl, &v, &vl)) {
		mi_file_rec f;
		if (mi_file_decode(v, vl, &f)) {
			mi_buf_addf(err, "the file record of '%.*s' is damaged", (int)kl, (const char *)k);
			rc = MI_ERR_CORRUPT;
			goto out;
		}
		mi_buf_add(&m, k, kl);
		mi_buf_addc(&m, 0);
		mi_buf_add(&m, f.hash, 16);
		(*nfiles)++;
		if (check_src) {
			const void *src;
			size_t sl;
			uint8_t h[16];
			if (mi_get(t, MI_DB_SRC, k, kl, &src, &sl)) {
				mi_buf_addf(err, "the source of '%.*s' is missing", (int)kl, (const char *)k);
				rc = MI_ERR_CORRUPT;
			} else {
				mi_hash128(src, sl, h);
				if (memcmp(h, f.hash, 16)) {
					mi_buf_addf(err, "the stored source of '%.*s' does not match its content hash",
						    (int)kl, (const char *)k);
					rc = MI_ERR_CORRUPT;
				}
			}
		}
		mi_file_rec_release(&f);
		if (rc)
			goto out;
	}
	if (rc != MI_ERR_NOTFOUND) {
		mi_buf_addf(err, "cannot read the file list: %s", mi_strerror(rc));
		goto out;
	}
	rc = 0;
	mi_hash128(m.buf ? m.buf : "", m.len, digest);
out:
	mi_cursor_close(c);
	if (t)
		mi_txn_abort(t);
	mi_buf_release(&m);
	return rc;
}

static char *meta_str(mi_store *st, const char *key)
{
	mi_txn *t;
	char *s = NULL;
	if (mi_txn_begin(st, false, &t))
		return mi_xstrdup("");
	if (mi_meta_get_str(t, key, &s))
		s = mi_xstrdup("");
	mi_txn_abort(t);
	return s;
}

static int64_t meta_int(mi_store *st, const char *key)
{
	mi_txn *t;
	int64_t v = 0;
	if (mi_txn_begin(st, false, &t))
		return 0;
	if (mi_meta_get_int(t, key, &v))
		v = 0;
	mi_txn_abort(t);
	return v;
}

static bool is_regular(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* ---- mcpidx pack ------------------------------------------------------------------ */

static const char pack_usage[] =
	"usage: mcpidx pack INDEX -o FILE [--json]\n\n"
	"Writes the index as one compacted, read-only file to ship (from CI, say):\n"
	"the LMDB data followed by a trailer holding the format and tool versions,\n"
	"the git HEAD it was built from, a digest of every file's content hash and a\n"
	"checksum of the whole.  FILE is replaced atomically.  'mcpidx verify FILE'\n"
	"checks one; 'mcpidx query FILE' and 'mcpidx serve FILE' open it as it is.\n"
	"INDEX is an index dir, a packed file or a repo holding .mcpidx/.\n\n"
	"  -o, --output FILE   where to write the packed index\n"
	"      --with-artifacts  also copy the artifacts stored beside INDEX (summaries,\n"
	"                      annotations, tool aliases) to FILE.side/, where a server\n"
	"                      of FILE finds them; without it FILE ships none\n"
	"      --json          print what was written as one JSON object\n";

int mi_cmd_pack(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'}, {"json", no_argument, NULL, 'J'},
		{"help", no_argument, NULL, 'h'}, {"with-artifacts", no_argument, NULL, 'A'}, {0},
	};
	const char *outfile = NULL;
	bool json = false, with_art = false;
	uint64_t nart = 0;
	int c, status = 1, fd = -1, rc;
	char *index = NULL, *head = NULL;
	char tmpdir[PATH_MAX] = "", tmpfile[PATH_MAX] = "";
	mi_query *q = NULL;
	mi_buf err = {0};
	mi_pack_trailer tr = {0};
	uint8_t raw[MI_PACK_TRAILER];

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': outfile = optarg; break;
		case 'J': json = true; break;
		case 'A': with_art = true; break;
		case 'h': fputs(pack_usage, stdout); return 0;
		default: fputs(pack_usage, stderr); return 2;
		}
	}
	if (optind != argc - 1 || !outfile) {
		fprintf(stderr, "mcpidx pack: give one INDEX and -o FILE\n\n%s", pack_usage);
		return 2;
	}
	index = mi_resolve_index(argv[optind]);
	if (mi_query_open(index, &q, &err)) {
		fprintf(stderr, "mcpidx pack: %s\n", mi_buf_str(&err));
		goto out;
	}
	mi_store *st = mi_query_store(q);

	/* Compacted copy into a fresh directory beside the output, so the
	 * final rename stays on one file system. */
	const char *slash = strrchr(outfile, '/');
	snprintf(tmpdir, sizeof(tmpdir), "%.*s.mcpidx-pack-XXXXXX",
		 slash ? (int)(slash - outfile + 1) : 0, outfile);
	if (slash)
		snprintf(tmpdir + (slash - outfile + 1), sizeof(tmpdir) - (size_t)(slash - outfile + 1),
			 ".mcpidx-pack-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "mcpidx pack: cannot create a temporary folder beside '%s': %s\n",
			outfile, strerror(errno));
		tmpdir[0] = 0;
		goto out;
	}
	snprintf(tmpfile, sizeof(tmpfile), "%s/data.mdb", tmpdir);
	/* LMDB writes DIR/data.mdb for a directory index, the path itself for a
	 * single-file one. */
	rc = mi_store_copy(st, is_regular(index) ? tmpfile : tmpdir);
	if (rc) {
		fprintf(stderr, "mcpidx pack: cannot copy the index %s: %s\n", index, mi_strerror(rc));
		goto out;
	}
	if ((rc = manifest_digest(st, false, tr.digest, &tr.nfiles, &err))) {
		fprintf(stderr, "mcpidx pack: %s: %s\n", index, mi_buf_str(&err));
		goto out;
	}
	fd = open(tmpfile, O_RDWR);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0) {
		fprintf(stderr, "mcpidx pack: cannot open the copy %s: %s\n", tmpfile, strerror(errno));
		goto out;
	}
	tr.pack_version = MI_PACK_VERSION;
	tr.format = (uint32_t)mi_store_version(st);
	tr.data_len = (uint64_t)sb.st_size;
	if ((rc = mi_hash128_fd(fd, tr.data_len, tr.checksum))) {
		fprintf(stderr, "mcpidx pack: cannot read the copy %s: %s\n", tmpfile, strerror(rc));
		goto out;
	}
	head = meta_str(st, "head");
	snprintf(tr.tool, sizeof(tr.tool), "mcpidx %s", MI_VERSION);
	snprintf(tr.head, sizeof(tr.head), "%s", head);
	tr.built = meta_int(st, "built");
	mi_pack_trailer_encode(&tr, raw);
	if (pwrite(fd, raw, sizeof(raw), (off_t)tr.data_len) != (ssize_t)sizeof(raw) || fsync(fd) < 0) {
		fprintf(stderr, "mcpidx pack: cannot write %s: %s\n", tmpfile, strerror(errno));
		goto out;
	}
	if (fchmod(fd, 0444) < 0 || rename(tmpfile, outfile) < 0) {
		fprintf(stderr, "mcpidx pack: cannot move the packed index to %s: %s\n", outfile,
			strerror(errno));
		goto out;
	}
	tmpfile[0] = 0;
	if (with_art && mi_artifacts_pack(index, outfile, &nart, &err)) {
		fprintf(stderr, "mcpidx pack: %s\n", mi_buf_str(&err));
		goto out;
	}
	char hex[33];
	mi_hash_hex(tr.digest, hex);
	uint64_t total = tr.data_len + MI_PACK_TRAILER;
	if (json) {
		mi_buf j = {0};
		mi_buf_adds(&j, "{\"file\":");
		mi_buf_add_json_str(&j, outfile, strlen(outfile));
		mi_buf_addf(&j, ",\"bytes\":%llu,\"files\":%llu,\"format\":%u,\"head\":",
			    (unsigned long long)total, (unsigned long long)tr.nfiles, tr.format);
		mi_buf_add_json_str(&j, tr.head, strlen(tr.head));
		mi_buf_addf(&j, ",\"digest\":\"%s\"", hex);
		if (with_art)
			mi_buf_addf(&j, ",\"artifacts\":%llu", (unsigned long long)nart);
		mi_buf_addc(&j, '}');
		puts(mi_buf_str(&j));
		mi_buf_release(&j);
	} else {
		printf("packed %s: %llu files, %.1f MiB, index format %u, head %s\ndigest %s\n", outfile,
		       (unsigned long long)tr.nfiles, (double)total / 1048576.0, tr.format,
		       *tr.head ? tr.head : "(unknown)", hex);
		if (with_art)
			printf("artifacts: %llu in %s.side/\n", (unsigned long long)nart, outfile);
	}
	status = 0;
out:
	if (fd >= 0)
		close(fd);
	if (tmpfile[0])
		unlink(tmpfile);
	if (tmpdir[0]) {
		char lock[PATH_MAX + 16];
		snprintf(lock, sizeof(lock), "%s/lock.mdb", tmpdir);
		unlink(lock);
		rmdir(tmpdir);
	}
	mi_query_close(q);
	mi_buf_release(&err);
	free(index);
	free(head);
	return status;
}

/* ---- mcpidx verify ---------------------------------------------------------------- */

static const char verify_usage[] =
	"usage: mcpidx verify FILE [--json] [--quiet]\n\n"
	"Checks a file written by 'mcpidx pack' end to end: the trailer, the format\n"
	"version, the checksum of every byte, then opens it as an index and checks\n"
	"the manifest digest and each stored file's content hash.  Exit status 0\n"
	"when it is whole, 1 when it is damaged or of another version, 2 usage.\n";

/* Runs every check; 0 when whole, else 1 with the reason in err. */
static int verify_file(const char *path, mi_pack_trailer *tr, mi_buf *err)
{
	/* O_NONBLOCK: a FIFO is refused below, not waited on for a writer */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), status = 1;
	struct stat sb;
	uint8_t raw[MI_PACK_TRAILER], sum[16], digest[16];
	uint64_t nfiles = 0;
	mi_query *q = NULL;
	mi_buf qerr = {0};

	if (fd < 0 || fstat(fd, &sb) < 0) {
		mi_buf_addf(err, "cannot open: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		mi_buf_adds(err, "not a regular file (an index folder is not packed: run 'mcpidx pack' on it)");
		goto out;
	}
	if ((uint64_t)sb.st_size < MI_PACK_TRAILER) {
		mi_buf_addf(err, "too short to be a packed index (%lld bytes): truncated?", (long long)sb.st_size);
		goto out;
	}
	if (pread(fd, raw, sizeof(raw), sb.st_size - MI_PACK_TRAILER) != (ssize_t)sizeof(raw)) {
		mi_buf_addf(err, "cannot read the trailer: %s", strerror(errno));
		goto out;
	}
	if (mi_pack_trailer_decode(raw, tr, err))
		goto out;
	if (tr->pack_version != MI_PACK_VERSION) {
		mi_buf_addf(err, "pack format %u; this mcpidx reads pack format %d (packed by %s). "
			    "Use a matching mcpidx or pack the index again", tr->pack_version,
			    MI_PACK_VERSION, tr->tool);
		goto out;
	}
	if (tr->format != MI_FORMAT_VERSION) {
		mi_buf_addf(err, "holds index format %u (packed by %s); this mcpidx reads format %d. "
			    "Rebuild and pack it with this version: mcpidx build --force REPO && mcpidx pack",
			    tr->format, tr->tool, MI_FORMAT_VERSION);
		goto out;
	}
	if (tr->data_len + MI_PACK_TRAILER != (uint64_t)sb.st_size) {
		mi_buf_addf(err, "size is %lld bytes, the trailer says %llu: the file was cut or padded",
			    (long long)sb.st_size, (unsigned long long)(tr->data_len + MI_PACK_TRAILER));
		goto out;
	}
	int rc = mi_hash128_fd(fd, tr->data_len, sum);
	if (rc) {
		mi_buf_addf(err, "cannot read the data: %s", strerror(rc));
		goto out;
	}
	if (memcmp(sum, tr->checksum, 16)) {
		mi_buf_adds(err, "checksum mismatch: bytes were changed after packing (copy it again "
				 "or pack it again)");
		goto out;
	}
	if (mi_query_open(path, &q, &qerr)) {
		mi_buf_addf(err, "the data does not open as an index: %s", mi_buf_str(&qerr));
		goto out;
	}
	if ((uint32_t)mi_store_version(mi_query_store(q)) != tr->format) {
		mi_buf_addf(err, "the index inside has format %d but the trailer says %u",
			    mi_store_version(mi_query_store(q)), tr->format);
		goto out;
	}
	if (manifest_digest(mi_query_store(q), true, digest, &nfiles, err))
		goto out;
	if (nfiles != tr->nfiles || memcmp(digest, tr->digest, 16)) {
		mi_buf_addf(err, "the file list (%llu files) does not match the manifest digest of the "
			    "trailer (%llu files)", (unsigned long long)nfiles,
			    (unsigned long long)tr->nfiles);
		goto out;
	}
	status = 0;
out:
	if (fd >= 0)
		close(fd);
	mi_query_close(q);
	mi_buf_release(&qerr);
	return status;
}

int mi_cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'J'}, {"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'}, {0},
	};
	bool json = false, quiet = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case 'J': json = true; break;
		case 'q': quiet = true; break;
		case 'h': fputs(verify_usage, stdout); return 0;
		default: fputs(verify_usage, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "mcpidx verify: give one packed FILE\n\n%s", verify_usage);
		return 2;
	}
	const char *path = argv[optind];
	mi_pack_trailer tr;
	mi_buf err = {0};
	int status = verify_file(path, &tr, &err);
	char hex[33];
	mi_hash_hex(tr.digest, hex);
	if (json) {
		mi_buf j = {0};
		mi_buf_adds(&j, "{\"file\":");
		mi_buf_add_json_str(&j, path, strlen(path));
		mi_buf_addf(&j, ",\"ok\":%s", status ? "false" : "true");
		if (status) {
			mi_buf_adds(&j, ",\"error\":");
			mi_buf_add_json_str(&j, err.buf ? err.buf : "", err.len);
		} else {
			mi_buf_addf(&j, ",\"files\":%llu,\"format\":%u,\"tool\":",
				    (unsigned long long)tr.nfiles, tr.format);
			mi_buf_add_json_str(&j, tr.tool, strlen(tr.tool));
			mi_buf_adds(&j, ",\"head\":");
			mi_buf_add_json_str(&j, tr.head, strlen(tr.head));
			mi_buf_addf(&j, ",\"built\":%lld,\"digest\":\"%s\"", (long long)tr.built, hex);
		}
		mi_buf_adds(&j, "}");
		puts(mi_buf_str(&j));
		mi_buf_release(&j);
	}
	if (status) {
		fprintf(stderr, "mcpidx verify: %s is damaged or unusable: %s\n", path, mi_buf_str(&err));
	} else if (!json && !quiet) {
		printf("ok %s: %llu files, index format %u, packed by %s, head %s\ndigest %s\n", path,
		       (unsigned long long)tr.nfiles, tr.format, tr.tool, *tr.head ? tr.head : "(unknown)",
		       hex);
	}
	mi_buf_release(&err);
	return status;
}

/* ---- mcpidx status ---------------------------------------------------------------- */

static const char status_usage[] =
	"usage: mcpidx status [INDEX] [REPO] [--json] [--quiet] [--max-size BYTES]\n\n"
	"Lists the files whose content differs from the index (xxh3-128 of the\n"
	"working tree against the hashes stored at build time), one per line:\n"
	"  M path   modified        A path   new (would be indexed)\n"
	"  D path   deleted         U path (why)   unreadable (counts as stale)\n"
	"Names with control bytes, '\"' or '\\' are quoted in \"...\" with C escapes.\n"
	"Exit status 0 when the index is up to date, 1 when it is stale, 2 on errors.\n"
	"INDEX defaults to the current directory's .mcpidx; REPO to the folder the\n"
	"index was built from.  New files are found with 'git ls-files' in a git\n"
	"repository (honouring .gitignore), else by walking REPO.\n";

/* One changed file. */
typedef struct change {
	char what;   /* 'M', 'A', 'D' or 'U' */
	int err;     /* why a 'U' could not be read */
	char *path;  /* repo-relative, owned */
} change;

typedef struct changes {
	change *v;   /* entries */
	size_t n;    /* used */
	size_t cap;  /* allocated */
} changes;

static void changes_add(changes *cs, char what, const char *path, size_t len)
{
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? cs->cap * 2 : 32;
		cs->v = mi_xrealloc(cs->v, cs->cap * sizeof(*cs->v));
	}
	cs->v[cs->n].what = what;
	cs->v[cs->n].err = 0;
	cs->v[cs->n++].path = mi_xstrndup(path, len);
}

static int change_cmp(const void *a, const void *b)
{
	return strcmp(((const change *)a)->path, ((const change *)b)->path);
}

/* true when the index has no record for path. */
static bool not_indexed(mi_txn *t, const char *path)
{
	const void *v;
	size_t vl;
	return mi_get(t, MI_DB_FILES, path, strlen(path), &v, &vl) == MI_ERR_NOTFOUND;
}

/* What status reads for an indexed path: the path, or for a link the file
 * it names when that is a regular file inside repo (a realpath), as the
 * build's walk follows it (resolved into real, PATH_MAX bytes); NULL when
 * the link leads anywhere else: then the indexed file is gone. */
static const char *status_target(const char *repo, const char *abs, const struct stat *lsb,
				 char *real)
{
	struct stat sb;
	const char *in;
	if (!S_ISLNK(lsb->st_mode))
		return abs;
	if (!realpath(abs, real) || !(in = mi_path_below(repo, real)) || !*in ||
	    stat(real, &sb) != 0 || !S_ISREG(sb.st_mode))
		return NULL;
	return real;
}

int mi_cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'J'}, {"quiet", no_argument, NULL, 'q'},
		{"max-size", required_argument, NULL, 'M'}, {"help", no_argument, NULL, 'h'}, {0},
	};
	bool json = false, quiet = false;
	uint64_t max_size = 1u << 20;
	int c, status = 2;
	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case 'J': json = true; break;
		case 'q': quiet = true; break;
		case 'M': {
			unsigned long long n;
			if (!mi_arg_uint("status", "--max-size", optarg, 1, MI_MAX_SIZE_CAP, &n))
				return 2;
			max_size = n;
			break;
		}
		case 'h': fputs(status_usage, stdout); return 0;
		default: fputs(status_usage, stderr); return 2;
		}
	}
	if (argc - optind > 2) {
		fprintf(stderr, "mcpidx status: too many arguments\n\n%s", status_usage);
		return 2;
	}
	const char *index_arg = optind < argc ? argv[optind] : NULL;
	const char *repo_arg = optind + 1 < argc ? argv[optind + 1] : NULL;
	char *index = mi_resolve_index(index_arg), *root = NULL;
	char repo[PATH_MAX], index_real[PATH_MAX];
	mi_query *q = NULL;
	mi_txn *t = NULL;
	mi_cursor *cur = NULL;
	mi_buf err = {0};
	changes cs = {0};
	size_t nfiles = 0;
	const void *k, *v;
	size_t kl, vl;
	int rc;

	if (mi_query_open(index, &q, &err)) {
		fprintf(stderr, "mcpidx status: %s\n", mi_buf_str(&err));
		goto out;
	}
	mi_store *st = mi_query_store(q);
	root = meta_str(st, "root");
	/* REPO: given, else the repo holding INDEX/.mcpidx, else where it was built. */
	const char *r = repo_arg;
	char guess[PATH_MAX];
	if (!r && index_arg) {
		snprintf(guess, sizeof(guess), "%s/.mcpidx", index_arg);
		if (!strcmp(index, guess))
			r = index_arg;
	}
	if (!r && !index_arg && !strcmp(index, "./.mcpidx"))
		r = ".";
	if (!r && *root)
		r = root;
	if (!r) {
		fprintf(stderr, "mcpidx status: the index does not say which folder it was built from; "
				"give it: mcpidx status INDEX REPO\n");
		goto out;
	}
	if (!realpath(r, repo)) {
		fprintf(stderr, "mcpidx status: cannot open the repository folder %s: %s\n", r,
			strerror(errno));
		goto out;
	}
	bool have_index_real = realpath(index, index_real) != NULL;
	if ((rc = mi_txn_begin(st, false, &t)) || (rc = mi_cursor_open(t, MI_DB_FILES, &cur))) {
		fprintf(stderr, "mcpidx status: cannot read %s: %s\n", index, mi_strerror(rc));
		goto out;
	}
	for (rc = mi_cursor_seek(cur, "", 0, &k, &kl, &v, &vl); rc == 0;
	     rc = mi_cursor_next(cur, &k, &kl, &v, &vl)) {
		mi_file_rec f;
		char abs[PATH_MAX], *src;
		size_t len;
		uint8_t h[16];
		nfiles++;
		snprintf(abs, sizeof(abs), "%s/%.*s", repo, (int)kl, (const char *)k);
		if (mi_file_decode(v, vl, &f)) {
			changes_add(&cs, 'M', k, kl);
			continue;
		}
		/* a link is read as the build reads it: the regular file it
		 * names inside the repository, else the indexed file is gone
		 * (mi_read_file itself takes regular files only: no FIFO, no
		 * /dev/zero) */
		struct stat lsb;
		char real[PATH_MAX];
		const char *target = NULL;
		int e = lstat(abs, &lsb) < 0 ? errno :
			!(target = status_target(repo, abs, &lsb, real)) ? ENOENT :
			/* a size other than the indexed one is a change, read no
			 * further (a 600 MB file in an indexed one's place was
			 * read whole to hash it) */
			mi_read_file_max(target, f.size, &src, &len);
		if (e == MI_ERR_TOOBIG) {
			changes_add(&cs, 'M', k, kl);
		} else if (e == ENOENT || e == ENOTDIR) {
			changes_add(&cs, 'D', k, kl);
		} else if (e) {
			/* there but not readable (permissions, a FIFO): not deleted */
			changes_add(&cs, 'U', k, kl);
			cs.v[cs.n - 1].err = e;
		} else {
			mi_hash128(src, len, h);
			if (memcmp(h, f.hash, 16))
				changes_add(&cs, 'M', k, kl);
			free(src);
		}
		mi_file_rec_release(&f);
	}
	/* New files: what a build would index that the index lacks. */
	mi_build_opts bo = {.repo = repo, .max_file_size = max_size,
			    .out_dir = have_index_real ? index_real : NULL};
	char **list = NULL;
	size_t nlist = 0;
	if (!mi_build_list(&bo, &list, &nlist, &err)) {
		for (size_t i = 0; i < nlist; i++)
			if (not_indexed(t, list[i]))
				changes_add(&cs, 'A', list[i], strlen(list[i]));
		mi_build_list_free(list, nlist);
	}
	if (cs.n)
		qsort(cs.v, cs.n, sizeof(*cs.v), change_cmp);

	size_t nm = 0, na = 0, nd = 0, nu = 0;
	for (size_t i = 0; i < cs.n; i++)
		nm += cs.v[i].what == 'M', na += cs.v[i].what == 'A', nd += cs.v[i].what == 'D',
			nu += cs.v[i].what == 'U';
	if (json) {
		mi_buf j = {0};
		mi_buf_adds(&j, "{\"index\":");
		mi_buf_add_json_str(&j, index, strlen(index));
		mi_buf_adds(&j, ",\"repo\":");
		mi_buf_add_json_str(&j, repo, strlen(repo));
		mi_buf_addf(&j, ",\"stale\":%s,\"files\":%zu,\"modified\":%zu,\"added\":%zu,"
			    "\"deleted\":%zu,\"unreadable\":%zu,\"changes\":[", cs.n ? "true" : "false",
			    nfiles, nm, na, nd, nu);
		for (size_t i = 0; i < cs.n; i++) {
			char w = cs.v[i].what;
			mi_buf_addf(&j, "%s{\"status\":\"%s\",\"path\":", i ? "," : "",
				    w == 'M' ? "modified" : w == 'A' ? "added" : w == 'D' ? "deleted" :
				    "unreadable");
			mi_buf_add_json_str(&j, cs.v[i].path, strlen(cs.v[i].path));
			if (w == 'U') {
				const char *why = mi_strerror(cs.v[i].err);
				mi_buf_adds(&j, ",\"reason\":");
				mi_buf_add_json_str(&j, why, strlen(why));
			}
			mi_buf_addc(&j, '}');
		}
		mi_buf_adds(&j, "]}");
		puts(mi_buf_str(&j));
		mi_buf_release(&j);
	} else if (!quiet) {
		mi_buf line = {0};
		for (size_t i = 0; i < cs.n; i++) {
			mi_buf_reset(&line);
			mi_buf_addc(&line, cs.v[i].what);
			mi_buf_addc(&line, ' ');
			mi_quote_name(&line, cs.v[i].path);
			if (cs.v[i].what == 'U')
				mi_buf_addf(&line, " (%s)", mi_strerror(cs.v[i].err));
			puts(mi_buf_str(&line));
		}
		mi_buf_release(&line);
		if (cs.n && nu)
			fprintf(stderr, "index %s is stale: %zu modified, %zu new, %zu deleted, %zu "
				"unreadable. Run: mcpidx build %s\n", index, nm, na, nd, nu, repo);
		else if (cs.n)
			fprintf(stderr, "index %s is stale: %zu modified, %zu new, %zu deleted. Run: mcpidx build %s\n",
				index, nm, na, nd, repo);
		else
			fprintf(stderr, "index %s is up to date with %s (%zu files)\n", index, repo, nfiles);
	}
	status = cs.n ? 1 : 0;
out:
	mi_cursor_close(cur);
	if (t)
		mi_txn_abort(t);
	for (size_t i = 0; i < cs.n; i++)
		free(cs.v[i].path);
	free(cs.v);
	mi_query_close(q);
	mi_buf_release(&err);
	free(index);
	free(root);
	return status;
}
