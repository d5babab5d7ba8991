/*
 * test_store.c - the storage layer's promises about files that change
 * under it: a read of a page cut away while mapped is survived and turns
 * into MI_ERR_DAMAGED, a fresh store is invisible until published and then
 * seen by the next transaction, a writer of a replaced file is told so, a
 * linked .mcpidx is not opened, a grown file is cut back.
 */
#include "test.h"
#include "../../format/format.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmpdir(void)
{
	char *d = strdup("/tmp/mcpidx-store-XXXXXX");
	return mkdtemp(d);
}

static void rm_rf(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* Writes an index at dir (in place) with one big source value. */
static void write_index(const char *dir, int version, size_t big)
{
	mi_store *st;
	mi_txn *t;
	char *v = malloc(big);
	memset(v, 'x', big);
	CHECK_INT(mi_store_open(dir, MI_STORE_CREATE, &st), 0);
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	CHECK_INT(mi_meta_put_int(t, "version", version), 0);
	CHECK_INT(mi_put(t, MI_DB_SRC, "big.c", 5, v, big), 0);
	CHECK_INT(mi_put(t, MI_DB_FILES, "big.c", 5, "x", 1), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	mi_store_close(st);
	free(v);
}

static size_t file_size(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (size_t)sb.st_size : 0;
}

TEST(read_of_a_cut_page_is_survived)
{
	char *dir = tmpdir(), data[300], copy[300];
	snprintf(data, sizeof data, "%s/data.mdb", dir);
	snprintf(copy, sizeof copy, "%s/good", dir);
	write_index(dir, MI_FORMAT_VERSION, 400000);
	size_t size = file_size(data);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", data, copy);
	CHECK_INT(system(cmd), 0);

	mi_store *st;
	mi_txn *t;
	const void *v;
	size_t vl;
	CHECK_INT(mi_store_open(dir, MI_STORE_RDONLY, &st), 0);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	CHECK_INT(mi_get(t, MI_DB_SRC, "big.c", 5, &v, &vl), 0);
	CHECK_INT(vl, 400000);
	/* Cut the file under the open transaction, then read the value's
	 * last byte: past the new end of the file. */
	CHECK_INT(truncate(data, 3 * 4096), 0);
	volatile char last = ((const volatile char *)v)[vl - 1];
	CHECK_INT(last, 0); /* the guard's page of zeros */
	CHECK_INT(mi_get(t, MI_DB_SRC, "big.c", 5, &v, &vl), MI_ERR_DAMAGED);
	mi_txn_abort(t);
	CHECK_INT(mi_txn_begin(st, false, &t), MI_ERR_DAMAGED);
	/* The file copied back whole: the next transaction maps it afresh. */
	snprintf(cmd, sizeof cmd, "cat '%s' > '%s'", copy, data);
	CHECK_INT(system(cmd), 0);
	CHECK_INT(file_size(data), size);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	CHECK_INT(mi_get(t, MI_DB_SRC, "big.c", 5, &v, &vl), 0);
	CHECK_INT(((const char *)v)[vl - 1], 'x');
	mi_txn_abort(t);
	mi_store_close(st);
	/* Opening a cut file is refused before it is mapped. */
	CHECK_INT(truncate(data, size - 4096), 0);
	CHECK_INT(mi_store_open(dir, MI_STORE_RDONLY, &st), MI_ERR_DAMAGED);
	CHECK_INT(mi_store_check(dir, false), MI_ERR_DAMAGED);
	rm_rf(dir);
	free(dir);
}

static int count_fresh_dirs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, ".build-", 7);
	if (d)
		closedir(d);
	return n;
}

TEST(fresh_store_is_published_by_rename)
{
	char *dir = tmpdir(), data[300];
	snprintf(data, sizeof data, "%s/data.mdb", dir);
	write_index(dir, MI_FORMAT_VERSION, 100);
	struct stat before;
	CHECK_INT(stat(data, &before), 0);

	mi_store *reader, *writer, *fresh;
	mi_txn *t;
	const void *v;
	size_t vl;
	CHECK_INT(mi_store_open(dir, MI_STORE_RDONLY, &reader), 0);
	CHECK_INT(mi_store_open(dir, 0, &writer), 0);
	CHECK_INT(mi_store_open(dir, MI_STORE_FRESH, &fresh), 0);
	CHECK_INT(count_fresh_dirs(dir), 1);
	CHECK_INT(mi_txn_begin(fresh, true, &t), 0);
	CHECK_INT(mi_meta_put_int(t, "version", MI_FORMAT_VERSION), 0);
	CHECK_INT(mi_put(t, MI_DB_SRC, "new.c", 5, "new", 3), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	/* Not visible before publishing. */
	CHECK_INT(mi_txn_begin(reader, false, &t), 0);
	CHECK_INT(mi_get(t, MI_DB_SRC, "new.c", 5, &v, &vl), MI_ERR_NOTFOUND);
	mi_txn_abort(t);
	bool aside = true;
	CHECK_INT(mi_store_publish(fresh, &aside), 0);
	CHECK(!aside);
	CHECK_INT(count_fresh_dirs(dir), 0);
	struct stat after;
	CHECK_INT(stat(data, &after), 0);
	CHECK(after.st_ino != before.st_ino);
	/* The reader follows the new file at its next transaction. */
	CHECK_INT(mi_txn_begin(reader, false, &t), 0);
	CHECK_INT(mi_get(t, MI_DB_SRC, "new.c", 5, &v, &vl), 0);
	CHECK_INT(mi_get(t, MI_DB_SRC, "big.c", 5, &v, &vl), MI_ERR_NOTFOUND);
	mi_txn_abort(t);
	/* A writer of the replaced file is told, not let to write into it. */
	CHECK_INT(mi_txn_begin(writer, true, &t), MI_ERR_STALE);
	mi_store_close(writer);
	mi_store_close(fresh);
	mi_store_close(reader);

	/* An unpublished fresh store leaves nothing; a dead build's folder is
	 * removed by the next fresh open. */
	CHECK_INT(mi_store_open(dir, MI_STORE_FRESH, &fresh), 0);
	mi_store_close(fresh);
	CHECK_INT(count_fresh_dirs(dir), 0);
	char stale[400];
	snprintf(stale, sizeof stale, "%s/.build-dead01", dir);
	CHECK_INT(mkdir(stale, 0777), 0);
	snprintf(stale, sizeof stale, "%s/.build-dead01/data.mdb", dir);
	FILE *f = fopen(stale, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK_INT(mi_store_open(dir, MI_STORE_FRESH, &fresh), 0);
	CHECK_INT(count_fresh_dirs(dir), 1);
	mi_store_close(fresh);
	CHECK_INT(count_fresh_dirs(dir), 0);
	rm_rf(dir);
	free(dir);
}

TEST(damaged_file_is_moved_aside)
{
	char *dir = tmpdir(), data[300], aside_path[300];
	snprintf(data, sizeof data, "%s/data.mdb", dir);
	snprintf(aside_path, sizeof aside_path, "%s/data.mdb.damaged", dir);
	write_index(dir, MI_FORMAT_VERSION, 200000);
	CHECK_INT(truncate(data, 5 * 4096), 0);
	mi_store *fresh;
	mi_txn *t;
	CHECK_INT(mi_store_open(dir, MI_STORE_FRESH, &fresh), 0);
	CHECK_INT(mi_txn_begin(fresh, true, &t), 0);
	CHECK_INT(mi_meta_put_int(t, "version", MI_FORMAT_VERSION), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	bool aside = false;
	CHECK_INT(mi_store_publish(fresh, &aside), 0);
	CHECK(aside);
	CHECK_INT(file_size(aside_path), 5 * 4096);
	CHECK_INT(mi_store_check(dir, false), 0);
	mi_store_close(fresh);
	rm_rf(dir);
	free(dir);
}

TEST(linked_index_folder_is_not_opened)
{
	char *dir = tmpdir(), target[300], link[300], lock[300];
	snprintf(target, sizeof target, "%s/elsewhere", dir);
	snprintf(link, sizeof link, "%s/.mcpidx", dir);
	snprintf(lock, sizeof lock, "%s/lock.mdb", target);
	CHECK_INT(mkdir(target, 0777), 0);
	write_index(target, MI_FORMAT_VERSION, 100);
	unlink(lock);
	CHECK_INT(symlink(target, link), 0);
	mi_store *st;
	CHECK_INT(mi_store_open(link, MI_STORE_RDONLY, &st), MI_ERR_SYMLINK);
	CHECK_INT(mi_store_open(link, MI_STORE_FRESH, &st), MI_ERR_SYMLINK);
	CHECK(access(lock, F_OK) != 0);
	/* Named by its real place, it opens. */
	CHECK_INT(mi_store_open(target, MI_STORE_RDONLY, &st), 0);
	mi_store_close(st);
	rm_rf(dir);
	free(dir);
}

TEST(grown_file_is_trimmed)
{
	char *dir = tmpdir(), data[300];
	snprintf(data, sizeof data, "%s/data.mdb", dir);
	write_index(dir, MI_FORMAT_VERSION, 100);
	size_t size = file_size(data);
	CHECK_INT(truncate(data, (off_t)size + 1000000), 0);
	mi_store *st;
	CHECK_INT(mi_store_open(dir, 0, &st), 0);
	CHECK_INT(mi_store_trim(st), 0);
	CHECK_INT(file_size(data), size);
	CHECK(mi_store_is_nospace(st, ENOSPC));
	CHECK(!mi_store_is_nospace(st, EACCES));
	mi_store_close(st);
	rm_rf(dir);
	free(dir);
}

int main(void)
{
	RUN(read_of_a_cut_page_is_survived);
	RUN(fresh_store_is_published_by_rename);
	RUN(damaged_file_is_moved_aside);
	RUN(linked_index_folder_is_not_opened);
	RUN(grown_file_is_trimmed);
	return test_done();
}
