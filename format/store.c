/*
 * store.c - the LMDB environment behind an index: opening with version and
 * damage checks, transactions that follow a data file replaced under them,
 * fresh indexes published by rename, map growth and trimming, and the guard
 * that turns a fault on a mapped page into an error.  The only file that
 * includes lmdb.h.
 *
 * Damage: LMDB trusts its data file, and a read of a page past the end of a
 * truncated file is a SIGBUS.  So the file is checked before it is mapped
 * (both meta pages read with pread; the file must hold the last page in
 * use; a packed file's trailer must match its length), again with one stat
 * at the start of every transaction, and a SIGBUS on one of our maps that
 * slips between the checks (a file cut while a call runs) maps a page of
 * zeros over the faulting page, flags the environment and lets the read
 * go on: LMDB and the record decoders see garbage they already refuse, and
 * every later call on that environment answers MI_ERR_DAMAGED.
 */
#include "format.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <msgpack.h>
/* ZDICT_trainFromBuffer_fastCover with its parameters set: Debian's
 * libzstd exports it; the header that declares it is the one linked. */
#define ZDICT_STATIC_LINKING_ONLY
#include <zdict.h>
/* ZSTD_createDDict_byReference and ZSTD_createCDict_byReference (env_dict,
 * zpre), exported the same way. */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#define MI_INITIAL_MAP (1ull << 30) /* grows by doubling on MDB_MAP_FULL */
#define MI_MAX_MAPS 64              /* environments mapped at once per process */
#define MI_NOSPACE_LEFT (16u << 20) /* an EIO with less free space is a full disk */
#define FRESH_PREFIX ".build-"      /* temporary folders of MI_STORE_FRESH */

static const char *const db_names[MI_DB__COUNT] = {
	[MI_DB_META] = "meta", [MI_DB_FILES] = "files", [MI_DB_SRC] = "src",
	[MI_DB_SYMS] = "syms", [MI_DB_NAMES] = "names", [MI_DB_REFS] = "refs",
	[MI_DB_FREFS] = "frefs", [MI_DB_FILEIDS] = "fileids",
	[MI_DB_CHUNKS] = "chunks", [MI_DB_POST] = "post", [MI_DB_TERMS] = "terms",
	[MI_DB_OUTLINES] = "outlines",
	[MI_DB_SERVERS] = "servers", [MI_DB_TOOLS] = "tools", [MI_DB_TOOLIDS] = "toolids",
	[MI_DB_TPOST] = "tpost",
};

bool mi_db_is_catalog(int db)
{
	return db == MI_DB_SERVERS || db == MI_DB_TOOLS || db == MI_DB_TOOLIDS ||
	       db == MI_DB_TPOST;
}

/* One opened data file.  A store has one current env; a replaced one lives
 * on until its last transaction ends. */
typedef struct mi_env {
	MDB_env *env;              /* the environment */
	MDB_dbi dbi[MI_STORE_MAXDBS]; /* named databases, opened once */
	dev_t dev;                 /* data file identity at open */
	ino_t ino;
	unsigned psize;            /* page size */
	int refs;                  /* open transactions, +1 while current (st->mu) */
	int slot;                  /* fault registry slot, -1 when none */
	uintptr_t lo, hi;          /* the map's range (atomic), lo 0 when unknown:
				    * a read transaction on an index is then refused */
	ZSTD_DDict *ddict[MI_DB__COUNT]; /* an index's dictionaries, for reading */
	ZSTD_CDict *cdict[MI_DB__COUNT]; /* and for writing, made on first use
					  * (atomic; env_cdict) */
	void *dict[MI_DB__COUNT];  /* their bytes (a thread copies them: zpre) */
	size_t dictlen[MI_DB__COUNT];
	uint64_t serial;           /* unique in the process, never reused */
} mi_env;

struct mi_store {
	pthread_mutex_t mu;        /* guards cur and every env's refs */
	mi_env *cur;               /* the env new transactions use */
	int flags;                 /* MI_STORE_* given to open */
	int version;               /* format version found, 0 if none */
	const char *const *names;  /* its named databases (static storage) */
	int ndbs;                  /* how many: MI_DB__COUNT for an index */
	bool index;                /* an index (version checks apply) */
	char *path;                /* as opened: the index folder or the file */
	char *data;                /* the data file: path/data.mdb, or path */
	char *fresh;               /* MI_STORE_FRESH until published: the temp folder */
	int fresh_fd;              /* its descriptor, flock'ed while we build, or -1 */
	bool made_dir;             /* open created the folder at path */
};

/* A value unpacked for a transaction, freed when it ends. */
typedef struct txn_buf {
	struct txn_buf *next;
	const void *src;   /* the packed bytes in the map it came from */
	size_t len;        /* its length */
	char data[];
} txn_buf;

struct mi_txn {
	mi_store *st;   /* owning store */
	mi_env *e;      /* the env it runs on */
	MDB_txn *txn;   /* LMDB transaction */
	bool write;     /* write transaction */
	txn_buf *bufs;  /* values unpacked in it */
	txn_buf **seen; /* a read transaction's bufs by where they came from */
	size_t nseen, capseen; /* (open addressing; capseen a power of two) */
	uintptr_t vlo;  /* a read transaction's keys and values lie in the map's */
	uintptr_t vhi;  /* pages in use [vlo, vhi); both 0 when unknown */
};

struct mi_cursor {
	MDB_cursor *cur; /* LMDB cursor, closed with the handle */
	mi_txn *t;       /* its transaction (unpacked values live there) */
	int db;          /* its database */
	int slot;        /* fault registry slot of its env */
	uintptr_t vlo, vhi; /* its transaction's (see mi_txn) */
	uint8_t *pfx;    /* keys must start with this (mi_cursor_seek_prefix), or NULL */
	size_t plen;     /* its length */
};

const char *mi_strerror(int err)
{
	switch (err) {
	case 0: return "success";
	case MI_ERR_VERSION: return "index has another format version";
	case MI_ERR_NOINDEX: return "no index at that path";
	case MI_ERR_CORRUPT: return "index record is damaged";
	case MI_ERR_NOTFOUND: return "not found";
	case MI_ERR_ARG: return "invalid argument";
	case MI_ERR_PATH: return "path is outside the repository or malformed";
	case MI_ERR_TOOBIG: return "input is over the size limit";
	case MI_ERR_PARSE: return "parser could not run";
	case MI_ERR_CANCELLED: return "cancelled";
	case MI_ERR_DAMAGED:
		return "the index is truncated or damaged: run mcpidx build --force REPO "
		       "(or copy the artifact again)";
	case MI_ERR_STALE: return "the index was replaced by another build meanwhile";
	case MI_ERR_SYMLINK:
		return "the index folder .mcpidx is a symbolic link, which mcpidx does not follow";
	case MI_ERR_NOTREG: return "not a regular file (a FIFO, socket or device)";
	case MI_ERR_LINK:
		return "the side store (or its data.mdb or lock.mdb) is a symbolic link or "
		       "not a plain directory and files; mcpidx does not write through it";
	}
	if (err < 0 && err >= MDB_KEYEXIST && err <= MDB_LAST_ERRCODE)
		return mdb_strerror(err);
	if (err > 0)
		return strerror(err);
	return "unknown error";
}

/* ---- the fault guard ------------------------------------------------------------- */

/* Mapped ranges of open environments, read by the signal handler. */
static struct map_slot {
	uintptr_t lo, hi;          /* [lo, hi) mapped; lo 0 = free (atomic) */
	int faulted;               /* a read faulted in it (atomic) */
} maps[MI_MAX_MAPS];
static pthread_mutex_t maps_mu = PTHREAD_MUTEX_INITIALIZER; /* slot allocation */
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static struct sigaction old_bus, old_segv; /* the dispositions we chain to */
static uintptr_t os_page;          /* the system page size */

/* The LMDB call this thread is in, if any (GUARDED): a fault in it ends
 * the call with MI_ERR_DAMAGED. */
static __thread sigjmp_buf *guard_jb;
static __thread int guard_slot = -1;

static struct sigaction *old_action(int sig)
{
	return sig == SIGBUS ? &old_bus : &old_segv;
}

/* Ends the guarded LMDB call this thread is in (GUARDED) as damaged and
 * flags its env. */
static void guard_leave(void)
{
	if (guard_slot >= 0)
		__atomic_store_n(&maps[guard_slot].faulted, 1, __ATOMIC_RELEASE);
	siglongjmp(*guard_jb, 1);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	struct sigaction *old = old_action(sig);
	if (guard_jb) {
		/* LMDB followed a damaged page: abandon the call.  The signal is
		 * unblocked by hand, whatever the handler's flags became (the
		 * sanitizers' sigaction wrappers do not all keep SA_NODEFER), as
		 * the jump restores no mask. */
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, sig);
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		guard_leave();
	}
	for (int i = 0; i < MI_MAX_MAPS && sig == SIGBUS; i++) {
		uintptr_t lo = __atomic_load_n(&maps[i].lo, __ATOMIC_ACQUIRE);
		uintptr_t hi = __atomic_load_n(&maps[i].hi, __ATOMIC_ACQUIRE);
		if (!lo || a < lo || a >= hi)
			continue;
		/* Our code reading a value of a file cut meanwhile: zeros, which
		 * the decoders refuse, and the env is damaged from now on. */
		void *pg = (void *)(a & ~(os_page - 1));
		if (mmap(pg, os_page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) != MAP_FAILED) {
			__atomic_store_n(&maps[i].faulted, 1, __ATOMIC_RELEASE);
			return;
		}
	}
	/* Not ours: whatever was there before decides. */
	if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
		old->sa_sigaction(sig, si, uc);
		return;
	}
	if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler != SIG_DFL &&
	    old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL); /* the access runs again and ends the process */
}

/* LMDB's own consistency checks (mdb_assert: a branch page with too few
 * keys, a page of the wrong kind) abort the process after this callback;
 * inside a guarded call the damage is the same as a fault's, and the call
 * is ended the same way instead.  Outside one, LMDB aborts as it would. */
static void on_assert(MDB_env *env, const char *msg)
{
	(void)env;
	(void)msg;
	if (guard_jb)
		guard_leave();
}

static void guard_install(void)
{
	struct sigaction sa;
	long pg = sysconf(_SC_PAGESIZE);
	os_page = pg > 0 ? (uintptr_t)pg : 4096;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	/* SA_NODEFER: leaving by siglongjmp needs no signal mask restored, so
	 * GUARDED can use the cheap sigsetjmp(jb, 0). */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
}

/*
 * rc = call, an LMDB call that reads pages of env slot `slot`; a SIGSEGV or
 * SIGBUS inside it (LMDB trusts page numbers and sizes it reads, so a
 * damaged page can send it anywhere) ends it with rc = MI_ERR_DAMAGED and
 * flags the env.  The one macro with control flow in it: sigsetjmp must run
 * in the frame that the fault returns to.
 */
#define GUARDED(slot, rc, call) do { \
	sigjmp_buf guard_here_; \
	sigjmp_buf *guard_prev_ = guard_jb; \
	int guard_pslot_ = guard_slot; \
	if (sigsetjmp(guard_here_, 0) == 0) { \
		guard_jb = &guard_here_; \
		guard_slot = (slot); \
		(rc) = (call); \
	} else { \
		(rc) = MI_ERR_DAMAGED; \
	} \
	guard_jb = guard_prev_; \
	guard_slot = guard_pslot_; \
} while (0)

/* LMDB calls that read pages, each behind GUARDED in a frame of its own
 * (so no caller's locals live across the sigsetjmp). */
__attribute__((noinline)) static int g_txn_begin(int slot, MDB_env *env, MDB_txn *parent,
						 unsigned flags, MDB_txn **txn)
{
	int rc;
	GUARDED(slot, rc, mdb_txn_begin(env, parent, flags, txn));
	return rc;
}

__attribute__((noinline)) static int g_txn_commit(int slot, MDB_txn *txn)
{
	int rc;
	GUARDED(slot, rc, mdb_txn_commit(txn));
	return rc;
}

__attribute__((noinline)) static int g_dbi_open(int slot, MDB_txn *txn, const char *name,
						unsigned flags, MDB_dbi *dbi)
{
	int rc;
	GUARDED(slot, rc, mdb_dbi_open(txn, name, flags, dbi));
	return rc;
}

__attribute__((noinline)) static int g_get(int slot, MDB_txn *txn, MDB_dbi dbi, MDB_val *k,
					   MDB_val *v)
{
	int rc;
	GUARDED(slot, rc, mdb_get(txn, dbi, k, v));
	return rc;
}

__attribute__((noinline)) static int g_put(int slot, MDB_txn *txn, MDB_dbi dbi, MDB_val *k,
					   MDB_val *v, unsigned flags)
{
	int rc;
	GUARDED(slot, rc, mdb_put(txn, dbi, k, v, flags));
	return rc;
}

__attribute__((noinline)) static int g_stat(int slot, MDB_txn *txn, MDB_dbi dbi, MDB_stat *ms)
{
	int rc;
	GUARDED(slot, rc, mdb_stat(txn, dbi, ms));
	return rc;
}

/* mdb_cursor_open reads the database's root (a named database's record is
 * read afresh in each transaction) after it has allocated the cursor, so a
 * fault or failed assertion there would lose the allocation: the record is
 * read first by mdb_stat (a cursor on its stack), guarded. */
static int cursor_open(int slot, MDB_txn *txn, MDB_dbi dbi, MDB_cursor **cur)
{
	MDB_stat ms;
	int rc = g_stat(slot, txn, dbi, &ms);
	return rc ? rc : mdb_cursor_open(txn, dbi, cur);
}

__attribute__((noinline)) static int g_del(int slot, MDB_txn *txn, MDB_dbi dbi, MDB_val *k,
					   MDB_val *v)
{
	int rc;
	GUARDED(slot, rc, mdb_del(txn, dbi, k, v));
	return rc;
}

__attribute__((noinline)) static int g_cursor_get(int slot, MDB_cursor *c, MDB_val *k,
						  MDB_val *v, MDB_cursor_op op)
{
	int rc;
	GUARDED(slot, rc, mdb_cursor_get(c, k, v, op));
	return rc;
}

__attribute__((noinline)) static int g_cursor_del(int slot, MDB_cursor *c, unsigned flags)
{
	int rc;
	GUARDED(slot, rc, mdb_cursor_del(c, flags));
	return rc;
}

__attribute__((noinline)) static int g_drop(int slot, MDB_txn *txn, MDB_dbi dbi, int del)
{
	int rc;
	GUARDED(slot, rc, mdb_drop(txn, dbi, del));
	return rc;
}

/*
 * Where e's map is.  LMDB does not say (its envinfo's mapaddr is the fixed
 * address of MDB_FIXEDMAP, 0 otherwise), but every page starts with its own
 * page number: the record of a named database in the main database's leaf
 * page points into the map, and that page's number gives the base.
 */
static bool map_range(mi_env *e, uintptr_t *lo, uintptr_t *hi)
{
	MDB_envinfo info;
	MDB_txn *txn;
	MDB_dbi main;
	MDB_val k = {4, "meta"}, v;
	bool ok = false;
	if (mdb_env_info(e->env, &info) || mdb_txn_begin(e->env, NULL, MDB_RDONLY, &txn))
		return false;
	int rc;
	rc = g_dbi_open(e->slot, txn, NULL, 0, &main);
	if (!rc)
		rc = g_get(e->slot, txn, main, &k, &v);
	if (!rc) {
		uintptr_t page = (uintptr_t)v.mv_data & ~(uintptr_t)(e->psize - 1);
		uint64_t pgno;
		memcpy(&pgno, (const void *)page, 8);
		if (pgno < info.me_mapsize / e->psize) {
			*lo = page - (uintptr_t)pgno * e->psize;
			*hi = *lo + info.me_mapsize;
			ok = (uintptr_t)v.mv_data < *hi;
		}
	}
	mdb_txn_abort(txn);
	return ok;
}

static void guard_unregister(mi_env *e);

/* Registers (or, on a remap, moves) the map of e.  Where the map lies is
 * found through a value of the main database; when that read fails (a
 * damaged main database) the map is unknown, nothing is registered, and
 * e->lo is 0. */
static void guard_register(mi_env *e)
{
	uintptr_t lo, hi;
	pthread_once(&guard_once, guard_install);
	if (!map_range(e, &lo, &hi)) {
		__atomic_store_n(&e->lo, 0, __ATOMIC_RELEASE);
		guard_unregister(e);
		return;
	}
	__atomic_store_n(&e->hi, hi, __ATOMIC_RELEASE);
	__atomic_store_n(&e->lo, lo, __ATOMIC_RELEASE);
	pthread_mutex_lock(&maps_mu);
	if (e->slot < 0) {
		for (int i = 0; i < MI_MAX_MAPS; i++) {
			if (!__atomic_load_n(&maps[i].lo, __ATOMIC_ACQUIRE)) {
				e->slot = i;
				break;
			}
		}
	}
	if (e->slot >= 0) {
		struct map_slot *m = &maps[e->slot];
		__atomic_store_n(&m->lo, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&m->faulted, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&m->hi, hi, __ATOMIC_RELEASE);
		__atomic_store_n(&m->lo, lo, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&maps_mu);
}

static void guard_unregister(mi_env *e)
{
	if (e->slot < 0)
		return;
	pthread_mutex_lock(&maps_mu);
	__atomic_store_n(&maps[e->slot].lo, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&maps_mu);
	e->slot = -1;
}

static bool slot_faulted(int slot)
{
	return slot >= 0 && __atomic_load_n(&maps[slot].faulted, __ATOMIC_ACQUIRE);
}

static bool in_map(uintptr_t lo, uintptr_t hi, const MDB_val *v);

/* in_map against the whole map of e (pages in use unknown here). */
static bool in_map_env(mi_env *e, const MDB_val *v)
{
	return in_map(__atomic_load_n(&e->lo, __ATOMIC_ACQUIRE),
		      __atomic_load_n(&e->hi, __ATOMIC_ACQUIRE), v);
}

/* false when a key or value LMDB handed out does not lie in the pages in
 * use: a damaged size (an overflow page count, a node size) would have the
 * caller read past the end of the file. */
static bool in_map(uintptr_t lo, uintptr_t hi, const MDB_val *v)
{
	uintptr_t p = (uintptr_t)v->mv_data;
	return !lo || (p >= lo && p <= hi && v->mv_size <= hi - p);
}

/* Maps LMDB's not-found onto ours, and damage codes onto MI_ERR_DAMAGED,
 * so callers test one code. */
static int map_err(int rc, int slot)
{
	if (slot_faulted(slot))
		return MI_ERR_DAMAGED;
	switch (rc) {
	case MDB_NOTFOUND: return MI_ERR_NOTFOUND;
	case MDB_CORRUPTED: case MDB_PAGE_NOTFOUND: case MDB_INVALID:
	case MDB_BAD_TXN: case MDB_CURSOR_FULL:
		return MI_ERR_DAMAGED;
	}
	return rc;
}

/* ---- checking a data file without mapping it ------------------------------------------ */

/* What the newer of LMDB's two meta pages says. */
typedef struct lmdb_meta {
	unsigned psize;      /* page size */
	uint64_t last_pg;    /* last page in use */
	uint64_t txnid;      /* transaction that wrote it */
} lmdb_meta;

/*
 * Reads LMDB's meta page at off (LMDB 0.9 data file version 1: a 16-byte
 * page header with flag P_META 0x08 at byte 10, then magic 0xBEEFC0DE,
 * version 1, address, map size, two 48-byte database records whose first
 * holds the page size, last page, transaction id).  false when it is not a
 * meta page.
 */
static bool read_meta_page(int fd, uint64_t off, lmdb_meta *m)
{
	uint8_t b[16 + 136];
	uint16_t flags;
	uint32_t magic, version, psize;
	if (pread(fd, b, sizeof(b), (off_t)off) != (ssize_t)sizeof(b))
		return false;
	memcpy(&flags, b + 10, 2);
	memcpy(&magic, b + 16, 4);
	memcpy(&version, b + 20, 4);
	memcpy(&psize, b + 16 + 24, 4);
	memcpy(&m->last_pg, b + 16 + 120, 8);
	memcpy(&m->txnid, b + 16 + 128, 8);
	m->psize = psize;
	return (flags & 0x08) && magic == 0xBEEFC0DEu && version == 1 &&
	       psize >= 512 && psize <= (1u << 20) && !(psize & (psize - 1));
}

/* 0 when the data file on fd (size bytes, of which data_len are LMDB's)
 * holds every page its newer meta page says is in use; MI_ERR_DAMAGED. */
static int check_meta(int fd, uint64_t data_len, lmdb_meta *out)
{
	lmdb_meta m0, m1;
	if (!read_meta_page(fd, 0, &m0) || data_len < 2ull * m0.psize ||
	    !read_meta_page(fd, m0.psize, &m1) || m1.psize != m0.psize)
		return MI_ERR_DAMAGED;
	lmdb_meta *m = m1.txnid > m0.txnid ? &m1 : &m0;
	if (m->last_pg < 1 || m->last_pg > (data_len / m->psize) - 1)
		return MI_ERR_DAMAGED;
	if (out)
		*out = *m;
	return 0;
}

/* Checks the data file at data; is_file: a single file (packed or not). */
static int check_data_file(const char *data, bool is_file)
{
	struct stat sb;
	uint8_t raw[MI_PACK_TRAILER];
	mi_pack_trailer tr;
	/* O_NONBLOCK: a FIFO in the data file's place (a tarball can hold one)
	 * is refused below, not waited on for a writer that never comes */
	int fd = open(data, O_RDONLY | O_NONBLOCK | O_CLOEXEC), rc;
	if (fd < 0)
		return errno == ENOENT ? MI_ERR_NOINDEX : errno;
	if (fstat(fd, &sb) < 0) {
		rc = errno;
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		rc = MI_ERR_DAMAGED;
		goto out;
	}
	uint64_t size = (uint64_t)sb.st_size, data_len = size;
	lmdb_meta m;
	/* A data file is whole pages; anything else must end with a trailer
	 * that gives the length before it.  A writer in another process
	 * grows the file, then writes the meta page that counts the new
	 * pages: a meta read after the size was taken may count past it, so a
	 * file that grew meanwhile is looked at again. */
	for (int tries = 0;; tries++) {
		rc = check_meta(fd, size, &m);
		if (rc != MI_ERR_DAMAGED || tries == 8 || fstat(fd, &sb) < 0 ||
		    (uint64_t)sb.st_size == size)
			break;
		size = data_len = (uint64_t)sb.st_size;
	}
	if (is_file && (rc || size % m.psize)) {
		if (size < MI_PACK_TRAILER ||
		    pread(fd, raw, sizeof(raw), (off_t)(size - MI_PACK_TRAILER)) != (ssize_t)sizeof(raw) ||
		    mi_pack_trailer_decode(raw, &tr, NULL) ||
		    tr.data_len + MI_PACK_TRAILER != size) {
			rc = MI_ERR_DAMAGED;
			goto out;
		}
		data_len = tr.data_len;
		rc = check_meta(fd, data_len, &m);
	}
out:
	close(fd);
	return rc;
}

int mi_store_check(const char *path, bool is_file)
{
	if (is_file)
		return check_data_file(path, true);
	mi_buf d = {0};
	mi_buf_addf(&d, "%s/data.mdb", path);
	int rc = check_data_file(d.buf, false);
	mi_buf_release(&d);
	return rc;
}

/* ---- environments --------------------------------------------------------------------- */

static int read_version(mi_env *e, int *version)
{
	MDB_txn *txn;
	int rc = mdb_txn_begin(e->env, NULL, MDB_RDONLY, &txn);
	if (rc)
		return map_err(rc, e->slot);
	MDB_val k = {7, "version"}, v;
	*version = 0;
	rc = g_get(e->slot, txn, e->dbi[MI_DB_META], &k, &v);
	if (rc == MI_ERR_DAMAGED) {
		mdb_txn_abort(txn);
		return rc;
	}
	if (rc == 0) {
		int64_t ver;
		*version = mi_mp_get_int(v.mv_data, v.mv_size, &ver) || ver < 1 ||
				   ver > 1000000 ? -1 : (int)ver;
	}
	mdb_txn_abort(txn);
	return slot_faulted(e->slot) ? MI_ERR_DAMAGED : 0;
}

static int load_dicts(mi_env *e);

/* A named database is missing from a read-only open: no index at all, or
 * one whose meta says another format version (an older layout). */
static int missing_db(MDB_txn *txn, mi_env *e, int i, int *version)
{
	MDB_val k = {7, "version"}, v;
	int64_t ver;
	int rc = MDB_NOTFOUND;
	if (i > MI_DB_META)
		rc = g_get(e->slot, txn, e->dbi[MI_DB_META], &k, &v);
	if (rc == MI_ERR_DAMAGED)
		return rc;
	if (rc == 0 &&
	    !mi_mp_get_int(v.mv_data, v.mv_size, &ver) && ver != MI_FORMAT_VERSION) {
		*version = ver < 1 || ver > 1000000 ? -1 : (int)ver;
		return MI_ERR_VERSION;
	}
	return MI_ERR_NOINDEX;
}

static void env_free(mi_env *e)
{
	if (!e)
		return;
	for (int i = 0; i < MI_DB__COUNT; i++) {
		ZSTD_freeDDict(e->ddict[i]);
		ZSTD_freeCDict(e->cdict[i]);
		free(e->dict[i]);
	}
	guard_unregister(e);
	if (e->env)
		mdb_env_close(e->env);
	free(e);
}

/* flock on a folder, when the system has it; -1 when it cannot be opened. */
static int lock_dir(const char *dir, int op)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (flock(fd, op) < 0 && errno == EINTR)
		;
	return fd;
}

static void unlock_dir(int fd)
{
	if (fd >= 0)
		close(fd); /* releases the flock */
}

/* mi_store_memlock: whether index maps opened from now on are locked, and
 * the errno of the last lock that failed (0: none). */
static _Atomic bool memlock_on;
static _Atomic int memlock_err;

void mi_store_memlock(bool on)
{
	atomic_store(&memlock_on, on);
	atomic_store(&memlock_err, 0);
}

int mi_store_memlock_error(void)
{
	return atomic_load(&memlock_err);
}

/* Locks the first size bytes of e's map (the data file) when asked: each
 * page stays in memory from its first read until the map is closed
 * (mlock2 MLOCK_ONFAULT: nothing is read ahead of need; POSIX mlock reads
 * it all now).  A failure is remembered, not returned: the index is read
 * the same way without it. */
static void env_memlock(mi_env *e, off_t size)
{
	uintptr_t lo, hi;
	long pg = sysconf(_SC_PAGESIZE);
	if (!atomic_load(&memlock_on) || size <= 0 || pg <= 0)
		return;
	if (!map_range(e, &lo, &hi)) { /* LMDB names the map's address only when fixed */
		atomic_store(&memlock_err, EFAULT);
		return;
	}
	size_t len = ((size_t)size + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
	if (len > hi - lo)
		len = hi - lo;
#if defined(__linux__) && !defined(MI_POSIX_ONLY) && defined(MLOCK_ONFAULT)
	int r = mlock2((void *)lo, len, MLOCK_ONFAULT);
#else
	int r = mlock((void *)lo, len);
#endif
	atomic_store(&memlock_err, r ? (errno ? errno : ENOMEM) : 0);
}

/*
 * Opens the environment at envpath (a folder, or a file with MDB_NOSUBDIR)
 * whose data file is data.  Readers of a folder index open it under a
 * shared flock of the folder, so that a publish (which holds it exclusively
 * while it renames the data file and removes the lock file) is never seen
 * half done: a lock file paired with another data file would give wrong
 * snapshots.
 */
static int env_open(mi_store *st, const char *envpath, const char *data, int *version,
		    mi_env **out)
{
	bool rdonly = st->flags & MI_STORE_RDONLY;
	unsigned envflags = MDB_NOTLS | MDB_NORDAHEAD;
	struct stat sb;
	off_t size = 0;         /* the data file's, for env_memlock */
	int rc, dfd = -1;
	MDB_txn *txn;
	static atomic_uint_fast64_t serials;
	mi_env *e = mi_xcalloc(1, sizeof(*e));
	e->slot = -1;
	e->serial = atomic_fetch_add(&serials, 1) + 1;
	*out = NULL;
	pthread_once(&guard_once, guard_install);

	if (st->flags & MI_STORE_FILE)
		envflags |= MDB_NOSUBDIR;
	if (rdonly)
		envflags |= MDB_RDONLY;
	if (st->flags & MI_STORE_NOLOCK)
		envflags |= MDB_NOLOCK;
	if ((rc = mdb_env_create(&e->env))) {
		e->env = NULL;
		goto fail;
	}
	mdb_env_set_assert(e->env, on_assert);
	mdb_env_set_maxdbs(e->env, (MDB_dbi)st->ndbs + 4);
	mdb_env_set_maxreaders(e->env, 254);
	if (!rdonly) {
		/* MCPIDX_INITIAL_MAP (bytes) exists so tests can exercise growth. */
		const char *env = getenv("MCPIDX_INITIAL_MAP");
		unsigned long long sz = env ? strtoull(env, NULL, 10) : 0;
		mdb_env_set_mapsize(e->env, sz >= 65536 ? sz : MI_INITIAL_MAP);
	}
	if (!(st->flags & (MI_STORE_FILE | MI_STORE_FRESH)))
		dfd = lock_dir(envpath, LOCK_SH);
	/* Checked before LMDB maps it: a read past the end would be a SIGBUS. */
	rc = check_data_file(data, st->flags & MI_STORE_FILE);
	if (rc == MI_ERR_NOINDEX && !rdonly)
		rc = 0; /* a new environment */
	if (!rc)
		rc = mdb_env_open(e->env, envpath, envflags, 0666);
	if (!rc && stat(data, &sb) == 0) {
		e->dev = sb.st_dev;
		e->ino = sb.st_ino;
		size = sb.st_size;
	}
	unlock_dir(dfd);
	if (rc)
		goto fail;
	{
		MDB_stat ms;
		mdb_env_stat(e->env, &ms);
		e->psize = ms.ms_psize;
	}

	rc = g_txn_begin(-1, e->env, NULL, rdonly ? MDB_RDONLY : 0, &txn);
	if (rc)
		goto fail;
	for (int i = 0; i < st->ndbs; i++) {
		rc = g_dbi_open(-1, txn, st->names[i], rdonly ? 0 : MDB_CREATE, &e->dbi[i]);
		if (rc) {
			if (rc == MDB_NOTFOUND)
				rc = st->index ? missing_db(txn, e, i, version) : MI_ERR_NOINDEX;
			mdb_txn_abort(txn);
			goto fail;
		}
	}
	rc = g_txn_commit(-1, txn);
	if (rc)
		goto fail;
	guard_register(e);
	if (!st->index)
		goto done; /* not an index: its owner checks its own version */
	if (!__atomic_load_n(&e->lo, __ATOMIC_ACQUIRE)) {
		rc = MI_ERR_DAMAGED; /* its main database does not answer */
		goto fail;
	}
	if ((rc = read_version(e, version)))
		goto fail;
	if (rdonly && *version == 0) {
		rc = MI_ERR_NOINDEX;
		goto fail;
	}
	if (*version != 0 && *version != MI_FORMAT_VERSION && rdonly) {
		rc = MI_ERR_VERSION;
		goto fail;
	}
	if ((rc = load_dicts(e)))
		goto fail;
	if (rdonly)
		env_memlock(e, size);
done:
	e->refs = 1;
	*out = e;
	return 0;
fail:
	rc = map_err(rc, e->slot);
	env_free(e);
	return rc;
}

/* Drops one reference to e (st->mu held); frees it at zero. */
static void env_put(mi_env *e)
{
	if (--e->refs == 0)
		env_free(e);
}

/*
 * The data file as it is now, against e: 0 when e may be used, 1 when the
 * file was replaced (another inode, or e faulted and must be mapped
 * again), or MI_ERR_DAMAGED when it shrank below the pages in use.
 */
static int env_check(mi_store *st, mi_env *e)
{
	struct stat sb;
	MDB_envinfo info;
	if (stat(st->data, &sb) < 0)
		return 0; /* removed: the old snapshot is still whole */
	if (sb.st_dev != e->dev || sb.st_ino != e->ino || slot_faulted(e->slot))
		return 1;
	if ((uint64_t)sb.st_size < 2ull * e->psize)
		return MI_ERR_DAMAGED;
	mdb_env_info(e->env, &info);
	if ((uint64_t)sb.st_size < ((uint64_t)info.me_last_pgno + 1) * e->psize)
		return MI_ERR_DAMAGED;
	return 0;
}

/* Removes folder dir and the files in it (one level: an LMDB env). */
static void remove_env_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	mi_buf p = {0};
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		mi_buf_reset(&p);
		mi_buf_addf(&p, "%s/%s", dir, de->d_name);
		unlink(p.buf);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	mi_buf_release(&p);
}

/* Removes temporary folders of fresh builds that no live process holds. */
static void remove_stale_fresh(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	mi_buf p = {0};
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, FRESH_PREFIX, strlen(FRESH_PREFIX)))
			continue;
		mi_buf_reset(&p);
		mi_buf_addf(&p, "%s/%s", path, de->d_name);
		int fd = open(p.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			remove_env_dir(p.buf);
		close(fd);
	}
	if (d)
		closedir(d);
	mi_buf_release(&p);
}

/* true when path names a folder ".mcpidx" that is a symbolic link. */
static bool is_linked_index(const char *path)
{
	struct stat sb;
	size_t n = strlen(path);
	mi_buf p = {0};
	bool res = false;
	while (n > 1 && path[n - 1] == '/')
		n--;
	mi_buf_add(&p, path, n);
	const char *base = strrchr(p.buf, '/');
	base = base ? base + 1 : p.buf;
	if (!strcmp(base, ".mcpidx") && lstat(p.buf, &sb) == 0 && S_ISLNK(sb.st_mode))
		res = true;
	mi_buf_release(&p);
	return res;
}

_Static_assert(MI_DB__COUNT <= MI_STORE_MAXDBS, "raise MI_STORE_MAXDBS");

/* Opens an environment with the named databases names[0..n); index: the
 * names are the index's, so its format version is checked. */
static int store_open(const char *path, int flags, const char *const *names, int n,
		      bool index, mi_store **out)
{
	int rc;
	struct stat sb;
	bool rdonly = flags & MI_STORE_RDONLY;
	mi_buf envpath = {0}, data = {0};
	mi_store *st;
	*out = NULL;
	if (n < 1 || n > MI_STORE_MAXDBS)
		return MI_ERR_ARG;
	st = mi_xcalloc(1, sizeof(*st));
	pthread_mutex_init(&st->mu, NULL);
	st->names = names;
	st->ndbs = n;
	st->index = index;
	st->flags = flags;
	st->path = mi_xstrdup(path);
	st->fresh_fd = -1;
	*out = NULL;

	if (!(flags & MI_STORE_FILE) && is_linked_index(path)) {
		rc = MI_ERR_SYMLINK;
		goto out_free;
	}
	if (flags & MI_STORE_FILE) {
		if (stat(path, &sb) < 0) {
			rc = errno == ENOENT ? MI_ERR_NOINDEX : errno;
			goto out_free;
		}
		mi_buf_adds(&envpath, path);
		mi_buf_adds(&data, path);
	} else if (stat(path, &sb) < 0) {
		if (errno != ENOENT || rdonly || !(flags & (MI_STORE_CREATE | MI_STORE_FRESH))) {
			rc = errno == ENOENT ? MI_ERR_NOINDEX : errno;
			goto out_free;
		}
		if (mkdir(path, 0777) < 0) {
			rc = errno;
			goto out_free;
		}
		st->made_dir = true;
	} else if (!S_ISDIR(sb.st_mode)) {
		rc = MI_ERR_NOINDEX;
		goto out_free;
	}
	if (flags & MI_STORE_FRESH) {
		remove_stale_fresh(path);
		mi_buf_addf(&envpath, "%s/" FRESH_PREFIX "XXXXXX", path);
		if (!mkdtemp(envpath.buf)) {
			rc = errno;
			goto out_free;
		}
		st->fresh = mi_xstrdup(envpath.buf);
		st->fresh_fd = lock_dir(st->fresh, LOCK_EX);
		mi_buf_addf(&data, "%s/data.mdb", st->fresh);
	} else if (!(flags & MI_STORE_FILE)) {
		mi_buf_adds(&envpath, path);
		mi_buf_addf(&data, "%s/data.mdb", path);
		if (rdonly && access(data.buf, F_OK) < 0) {
			rc = MI_ERR_NOINDEX;
			goto out_free;
		}
	}
	st->data = mi_xstrdup(data.buf);
	rc = env_open(st, envpath.buf, st->data, &st->version, &st->cur);
	if (rc)
		goto out_free;
	/* From here on, a fresh store's data file is published at path. */
	if (st->fresh) {
		free(st->data);
		mi_buf_reset(&data);
		mi_buf_addf(&data, "%s/data.mdb", path);
		st->data = mi_xstrdup(data.buf);
	}
	*out = st;
	mi_buf_release(&envpath);
	mi_buf_release(&data);
	return 0;

out_free:
	if (st->fresh)
		remove_env_dir(st->fresh);
	unlock_dir(st->fresh_fd);
	if (st->made_dir)
		rmdir(path); /* only when nothing else was put there */
	free(st->fresh);
	free(st->data);
	free(st->path);
	pthread_mutex_destroy(&st->mu);
	free(st);
	mi_buf_release(&envpath);
	mi_buf_release(&data);
	return rc;
}

int mi_store_open(const char *path, int flags, mi_store **out)
{
	return store_open(path, flags, db_names, MI_DB__COUNT, true, out);
}

int mi_store_open_dbs(const char *path, int flags, const char *const *names,
		      int n, mi_store **out)
{
	return store_open(path, flags, names, n, false, out);
}

void mi_store_close(mi_store *st)
{
	if (!st)
		return;
	pthread_mutex_lock(&st->mu);
	if (st->cur)
		env_put(st->cur);
	st->cur = NULL;
	pthread_mutex_unlock(&st->mu);
	if (st->fresh) {
		remove_env_dir(st->fresh);
		if (st->made_dir)
			rmdir(st->path); /* only when nothing else was put there */
	}
	unlock_dir(st->fresh_fd);
	free(st->fresh);
	free(st->data);
	free(st->path);
	pthread_mutex_destroy(&st->mu);
	free(st);
}

int mi_store_publish(mi_store *st, bool *moved_aside)
{
	mi_buf src = {0}, lock = {0}, aside = {0};
	int rc = 0, dfd = -1;
	if (moved_aside)
		*moved_aside = false;
	if (!st->fresh)
		return MI_ERR_ARG;
	/* Durable before it is visible. */
	if ((rc = mdb_env_sync(st->cur->env, 1)))
		return rc;
	pthread_mutex_lock(&st->mu);
	env_put(st->cur);
	st->cur = NULL;
	pthread_mutex_unlock(&st->mu);

	mi_buf_addf(&src, "%s/data.mdb", st->fresh);
	mi_buf_addf(&lock, "%s/lock.mdb", st->path);
	mi_buf_addf(&aside, "%s/data.mdb.damaged", st->path);
	if (mi_store_check(st->path, false) == MI_ERR_DAMAGED) {
		if (rename(st->data, aside.buf) == 0 && moved_aside)
			*moved_aside = true;
	}
	dfd = lock_dir(st->path, LOCK_EX);
	if (rename(src.buf, st->data) < 0)
		rc = errno;
	else if (unlink(lock.buf) < 0 && errno != ENOENT)
		rc = errno;
	if (dfd >= 0)
		fsync(dfd);
	unlock_dir(dfd);
	remove_env_dir(st->fresh);
	unlock_dir(st->fresh_fd);
	st->fresh_fd = -1;
	free(st->fresh);
	st->fresh = NULL;
	if (!rc) {
		mi_env *e;
		st->flags &= ~MI_STORE_FRESH;
		if (!(rc = env_open(st, st->path, st->data, &st->version, &e)))
			st->cur = e;
	}
	mi_buf_release(&src);
	mi_buf_release(&lock);
	mi_buf_release(&aside);
	return rc;
}

int mi_store_version(mi_store *st)
{
	return st->version;
}

uint64_t mi_store_size(mi_store *st)
{
	MDB_envinfo info;
	mi_env *e = st->cur;
	if (!e)
		return 0;
	mdb_env_info(e->env, &info);
	return (uint64_t)(info.me_last_pgno + 1) * e->psize;
}

int mi_store_grow(mi_store *st)
{
	MDB_envinfo info;
	mi_env *e = st->cur;
	mdb_env_info(e->env, &info);
	int rc = mdb_env_set_mapsize(e->env, info.me_mapsize * 2);
	guard_register(e);
	return rc;
}

int mi_store_reserve(mi_store *st, uint64_t bytes)
{
	MDB_envinfo info;
	mi_env *e = st->cur;
	mdb_env_info(e->env, &info);
	uint64_t used = ((uint64_t)info.me_last_pgno + 1) * e->psize;
	if (info.me_mapsize >= used + bytes)
		return 0;
	uint64_t want = info.me_mapsize * 2;
	if (want < used + bytes)
		want = used + bytes;
	int rc = mdb_env_set_mapsize(e->env, (size_t)want);
	guard_register(e);
	return rc;
}

const char *mi_store_fresh_dir(mi_store *st)
{
	return st->fresh;
}

bool mi_store_is_full(int err)
{
	return err == MDB_MAP_FULL;
}

int mi_store_trim(mi_store *st)
{
	MDB_txn *txn;
	MDB_envinfo info;
	struct stat sb;
	int fd, rc;
	mi_env *e = st->cur;
	if (!e || (st->flags & MI_STORE_RDONLY))
		return 0;
	/* The write lock keeps other writers out while the file is cut; no
	 * reader's snapshot uses a page past the last commit's. */
	if ((rc = mdb_txn_begin(e->env, NULL, 0, &txn)))
		return rc;
	mdb_env_info(e->env, &info);
	uint64_t used = ((uint64_t)info.me_last_pgno + 1) * e->psize;
	if (!(rc = mdb_env_get_fd(e->env, &fd)) && fstat(fd, &sb) == 0 &&
	    (uint64_t)sb.st_size > used && ftruncate(fd, (off_t)used) < 0)
		rc = errno;
	mdb_txn_abort(txn);
	return rc;
}

bool mi_store_is_nospace(mi_store *st, int err)
{
	struct statvfs vs;
	if (err == ENOSPC || err == EDQUOT)
		return true;
	if (err != EIO || !st)
		return false;
	char *dir = mi_xstrdup(st->fresh ? st->fresh : st->data);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir && !st->fresh)
		*slash = 0;
	bool full = statvfs(dir, &vs) == 0 &&
		    (uint64_t)vs.f_bavail * vs.f_frsize < MI_NOSPACE_LEFT;
	free(dir);
	return full;
}

int mi_store_copy(mi_store *st, const char *dst_file)
{
	return mdb_env_copy2(st->cur->env, dst_file, MDB_CP_COMPACT);
}

/* ---- packed values ----------------------------------------------------------------- */

/* The index databases whose values carry a tag byte (MI_VAL_*). */
static const bool db_is_packed[MI_DB__COUNT] = {
	[MI_DB_SRC] = true, [MI_DB_SYMS] = true, [MI_DB_OUTLINES] = true,
	[MI_DB_FREFS] = true, [MI_DB_CHUNKS] = true, [MI_DB_NAMES] = true,
	[MI_DB_REFS] = true,
};

#define PACK_MIN 48            /* shorter values are stored as they are */
#define PACK_MAX (256u << 20)  /* largest value unpacked */
#define ZMAGIC 4               /* bytes of zstd's magic number, not stored */
#define ZSCRATCH (64u << 10)   /* frames up to this size unpack from a thread's buffer */
static const uint8_t zmagic[ZMAGIC] = {0x28, 0xb5, 0x2f, 0xfd}; /* ZSTD_MAGICNUMBER */

/*
 * zstd level of each packed database.  With the dictionaries (trained per
 * index, docs/format.md) level 3 costs a quarter of level 6's CPU; the
 * larger dictionaries and frames without a dictionary id pay for most of
 * what it gives up (on every eighth file of Linux 6.1: 4.1 MiB more of
 * 91 MiB at level 3 alone, 1.8 MiB with both).
 */
static const int pack_level[MI_DB__COUNT] = {
	[MI_DB_SRC] = 3, [MI_DB_SYMS] = 3, [MI_DB_OUTLINES] = 3, [MI_DB_FREFS] = 3,
	[MI_DB_CHUNKS] = 3, [MI_DB_NAMES] = 3, [MI_DB_REFS] = 3,
};

bool mi_db_packed(int db)
{
	return db >= 0 && db < MI_DB__COUNT && db_is_packed[db];
}

static bool packed(const mi_store *st, int db)
{
	return st->index && mi_db_packed(db);
}

/*
 * A thread's copy of one env's dictionary with room behind it.  A frame
 * that fits is unpacked right after the dictionary, where zstd reads the
 * dictionary as the start of the same output instead of a segment apart:
 * each match into it is then copied in line, not by a memmove call (a
 * quarter less time per source frame of Linux 6.1, a sixth per symbol
 * block).  Made once a thread has unpacked ZPRE_AFTER values with that
 * dictionary: the copy and its tables take 8-14 us and each unpack after
 * saves 0.5-1.1, so a thread that lives for one call (a connection
 * without keep-alive, a task) does not pay for a copy it would not use.
 */
#define ZROOM (16u << 10)
#define ZPRE_SLOTS 8
#define ZPRE_AFTER 64
typedef struct zpre {
	uint64_t env;     /* the env's serial; 0: free */
	int db;
	unsigned uses;    /* unpacks so far; the copy is made at ZPRE_AFTER */
	uint8_t *buf;     /* the dictionary, then ZROOM bytes */
	ZSTD_DDict *dd;   /* by reference to buf */
} zpre;

/* zstd contexts, one pair per thread, freed with it. */
typedef struct zctx {
	ZSTD_CCtx *c;
	ZSTD_DCtx *d;
	uint8_t *in;  /* ZSCRATCH bytes: a stored frame with its magic number put back */
	zpre pre[ZPRE_SLOTS];
	unsigned next;  /* the slot taken next when all are in use */
} zctx;

static void zpre_clear(zpre *zp)
{
	ZSTD_freeDDict(zp->dd);
	free(zp->buf);
	memset(zp, 0, sizeof(*zp));
}
static pthread_key_t zkey;
static pthread_once_t zonce = PTHREAD_ONCE_INIT;

static void zctx_free(void *p)
{
	zctx *z = p;
	ZSTD_freeCCtx(z->c);
	ZSTD_freeDCtx(z->d);
	free(z->in);
	for (int i = 0; i < ZPRE_SLOTS; i++)
		zpre_clear(&z->pre[i]);
	free(z);
}

static void zkey_make(void)
{
	pthread_key_create(&zkey, zctx_free);
}

static zctx *zget(void)
{
	pthread_once(&zonce, zkey_make);
	zctx *z = pthread_getspecific(zkey);
	if (!z) {
		z = mi_xcalloc(1, sizeof(*z));
		z->c = ZSTD_createCCtx();
		z->d = ZSTD_createDCtx();
		if (!z->c || !z->d)
			abort(); /* out of memory is fatal, as everywhere */
		pthread_setspecific(zkey, z);
	}
	return z;
}

static void meta_dict_key(int db, char *out, size_t n)
{
	snprintf(out, n, "zdict.%s", db_names[db]);
}

/* db's dictionary dict[0..len) for e, for reading; env_cdict makes the
 * one for writing when it is first needed.  e keeps one copy of its bytes,
 * which both refer to (and zpre copies). */
static int env_dict(mi_env *e, int db, const void *dict, size_t len)
{
	e->dict[db] = mi_xmalloc(len ? len : 1);
	memcpy(e->dict[db], dict, len);
	e->dictlen[db] = len;
	e->ddict[db] = ZSTD_createDDict_byReference(e->dict[db], len);
	return e->ddict[db] ? 0 : -1;
}

/* db's compression dictionary for e, or NULL when it has none.  Made on
 * first use, not at open: its tables take 2-5 ms per database to fill
 * (most of it first touches of fresh pages), which an update that changes
 * nothing, or changes one file, need not pay for every database. */
static ZSTD_CDict *env_cdict(mi_env *e, int db)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	ZSTD_CDict *c = __atomic_load_n(&e->cdict[db], __ATOMIC_ACQUIRE);
	if (c || !e->dict[db])
		return c;
	pthread_mutex_lock(&mu);
	if (!(c = e->cdict[db])) {
		c = ZSTD_createCDict_byReference(e->dict[db], e->dictlen[db], pack_level[db]);
		if (!c)
			abort(); /* out of memory is fatal, as everywhere */
		__atomic_store_n(&e->cdict[db], c, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&mu);
	return c;
}

/* Loads the dictionaries an index keeps in meta "zdict.DB". */
static int load_dicts(mi_env *e)
{
	MDB_txn *txn;
	int rc = mdb_txn_begin(e->env, NULL, MDB_RDONLY, &txn);
	if (rc)
		return map_err(rc, e->slot);
	for (int db = 0; db < MI_DB__COUNT && !rc; db++) {
		char key[64];
		if (!db_is_packed[db])
			continue;
		meta_dict_key(db, key, sizeof(key));
		MDB_val k = {strlen(key), key}, v;
		rc = g_get(e->slot, txn, e->dbi[MI_DB_META], &k, &v);
		if (rc == MDB_NOTFOUND) {
			rc = 0;
			continue;
		}
		if (rc || !in_map_env(e, &v))
			break;
		if (env_dict(e, db, v.mv_data, v.mv_size))
			rc = MI_ERR_DAMAGED;
	}
	mdb_txn_abort(txn);
	return rc ? map_err(rc, e->slot) : 0;
}

/* v as one piece: MI_VAL_ZSTD or MI_VAL_RAW. */
static void pack_one(mi_store *st, int db, const void *v, size_t vl, mi_buf *out)
{
	if (!packed(st, db)) {
		mi_buf_add(out, v, vl);
		return;
	}
	size_t at = out->len;
	if (vl >= PACK_MIN) {
		zctx *z = zget();
		size_t bound = ZSTD_compressBound(vl);
		mi_buf_grow(out, 1 + bound);
		mi_env *e = st->cur;
		ZSTD_CCtx_reset(z->c, ZSTD_reset_session_and_parameters);
		ZSTD_CCtx_setParameter(z->c, ZSTD_c_compressionLevel, pack_level[db]);
		/* Stored sources carry a checksum: a flipped byte in one is
		 * found when it is read. */
		ZSTD_CCtx_setParameter(z->c, ZSTD_c_checksumFlag, db == MI_DB_SRC);
		/* The reader knows the database, so its dictionary: frames
		 * do not name it (4 bytes each). */
		ZSTD_CCtx_setParameter(z->c, ZSTD_c_dictIDFlag, 0);
		ZSTD_CDict *cd = e ? env_cdict(e, db) : NULL;
		if (cd)
			ZSTD_CCtx_refCDict(z->c, cd);
		size_t n = ZSTD_compress2(z->c, out->buf + at + 1, bound, v, vl);
		if (!ZSTD_isError(n) && n > ZMAGIC && n + n / 16 < vl) {
			/* Every frame starts with the same 4 bytes: not stored. */
			n -= ZMAGIC;
			memmove(out->buf + at + 1, out->buf + at + 1 + ZMAGIC, n);
			out->buf[at] = MI_VAL_ZSTD;
			out->len = at + 1 + n;
			out->buf[out->len] = 0;
			return;
		}
	}
	mi_buf_addc(out, MI_VAL_RAW);
	mi_buf_add(out, v, vl);
	return;
}

static void put_varint(mi_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	mi_buf_add(b, tmp, mi_varint_put(tmp, v));
}

/* A source over MI_SRC_FRAME bytes: MI_VAL_FRAMES, varint length, varint
 * frame size, then per frame varint (stored length << 1 | raw), then the
 * frames, each a zstd frame of its bytes (with the checksum and the
 * dictionary) or, when that does not shrink it, the bytes as they are. */
static void pack_frames(mi_store *st, const void *v, size_t vl, mi_buf *out)
{
	size_t nf = (vl + MI_SRC_FRAME - 1) / MI_SRC_FRAME;
	mi_buf body = {0}, one = {0};
	mi_buf_addc(out, MI_VAL_FRAMES);
	put_varint(out, vl);
	put_varint(out, MI_SRC_FRAME);
	for (size_t f = 0; f < nf; f++) {
		size_t off = f * MI_SRC_FRAME, n = vl - off < MI_SRC_FRAME ? vl - off : MI_SRC_FRAME;
		mi_buf_reset(&one);
		pack_one(st, MI_DB_SRC, (const char *)v + off, n, &one);
		/* one = tag byte + frame or bytes */
		bool raw = one.buf[0] != MI_VAL_ZSTD;
		put_varint(out, (uint64_t)(one.len - 1) << 1 | raw);
		mi_buf_add(&body, one.buf + 1, one.len - 1);
	}
	mi_buf_add(out, body.buf, body.len);
	mi_buf_release(&body);
	mi_buf_release(&one);
}

int mi_value_pack(mi_store *st, int db, const void *v, size_t vl, mi_buf *out)
{
	if (db == MI_DB_SRC && packed(st, db) && vl > MI_SRC_FRAME)
		pack_frames(st, v, vl, out);
	else
		pack_one(st, db, v, vl, out);
	return 0;
}

/* The content size a stored frame p[0..pl) (no magic number) gives. */
static unsigned long long frame_content_size(const uint8_t *p, size_t pl)
{
	uint8_t h[ZMAGIC + 18]; /* 18: the largest frame header */
	size_t hl = pl < 18 ? pl : 18;
	memcpy(h, zmagic, ZMAGIC);
	memcpy(h + ZMAGIC, p, hl);
	return ZSTD_getFrameContentSize(h, ZMAGIC + hl);
}

/* The thread's copy of e's dictionary of db once it has unpacked enough
 * with it (zpre), or NULL. */
static zpre *zpre_get(zctx *z, const mi_env *e, int db)
{
	zpre *free_slot = NULL;
	for (int i = 0; i < ZPRE_SLOTS; i++) {
		zpre *zp = &z->pre[i];
		if (zp->env == e->serial && zp->db == db) {
			if (zp->dd)
				return zp;
			if (++zp->uses < ZPRE_AFTER)
				return NULL;
			size_t dl = e->dictlen[db];
			zp->buf = mi_xmalloc(dl + ZROOM);
			memcpy(zp->buf, e->dict[db], dl);
			zp->dd = ZSTD_createDDict_byReference(zp->buf, dl);
			if (!zp->dd) { /* counted again from 0 */
				free(zp->buf);
				zp->buf = NULL;
				zp->uses = 0;
			}
			return zp->dd ? zp : NULL;
		}
		if (!zp->env && !free_slot)
			free_slot = zp;
	}
	for (int i = 0; i < ZPRE_SLOTS && !free_slot; i++)
		if (!z->pre[i].dd) /* all taken: a count goes before a copy */
			free_slot = &z->pre[i];
	if (!free_slot) { /* and then each copy in turn */
		free_slot = &z->pre[z->next];
		z->next = (z->next + 1) % ZPRE_SLOTS;
	}
	zpre_clear(free_slot);
	*free_slot = (zpre){.env = e->serial, .db = db, .uses = 1};
	return NULL;
}

/* Decompresses the zstd frame p[0..pl) of database db, which must hold
 * exactly n bytes, into out: 0 or MI_ERR_DAMAGED.  Frames name no
 * dictionary: db's is the one (a frame made without one reads the same
 * with it). */
static int unzstd(mi_txn *t, int db, const uint8_t *p, size_t pl, char *out, size_t n)
{
	zctx *z = zget();
	size_t got;
	ZSTD_DDict *dd = t->e->ddict[db];
	uint8_t *in = z->in, *big = NULL;
	if (pl > PACK_MAX)
		return MI_ERR_DAMAGED;
	if (pl + ZMAGIC > ZSCRATCH) { /* a large one: not kept by the thread */
		in = big = mi_xmalloc(pl + ZMAGIC);
	} else if (!in) {
		in = z->in = mi_xmalloc(ZSCRATCH);
	}
	memcpy(in, zmagic, ZMAGIC);
	memcpy(in + ZMAGIC, p, pl);
	zpre *zp = dd && n <= ZROOM ? zpre_get(z, t->e, db) : NULL;
	if (zp) {
		uint8_t *room = zp->buf + t->e->dictlen[db];
		got = ZSTD_decompress_usingDDict(z->d, room, n, in, pl + ZMAGIC, zp->dd);
		if (!ZSTD_isError(got) && got == n)
			memcpy(out, room, n);
	} else if (dd) {
		got = ZSTD_decompress_usingDDict(z->d, out, n, in, pl + ZMAGIC, dd);
	} else {
		got = ZSTD_decompressDCtx(z->d, out, n, in, pl + ZMAGIC);
	}
	free(big);
	return ZSTD_isError(got) || got != n ? MI_ERR_DAMAGED : 0;
}

/* A read transaction's map does not change, so it unpacks a value once: a
 * file's symbol block serves every symbol of it asked for (an ambiguous
 * name in a large header asks for hundreds, each with its parents, then
 * again in file order).  key is where its packed bytes start in the map. */
static size_t txn_buf_slot(const mi_txn *t, const void *key, size_t len)
{
	uint64_t h = ((uint64_t)(uintptr_t)key ^ ((uint64_t)len << 40)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & (t->capseen - 1);
}

static txn_buf *txn_buf_find(mi_txn *t, const void *key, size_t len)
{
	if (t->write || !t->nseen)
		return NULL;
	for (size_t i = txn_buf_slot(t, key, len);; i = (i + 1) & (t->capseen - 1)) {
		txn_buf *b = t->seen[i];
		if (!b || (b->src == key && b->len == len))
			return b;
	}
}

static txn_buf *txn_buf_new(const void *key, size_t len)
{
	txn_buf *b = mi_xmalloc(sizeof(*b) + len + 1);
	b->data[len] = 0;
	b->src = key;
	b->len = len;
	return b;
}

/* b into the first free slot of its probe sequence. */
static void txn_buf_place(mi_txn *t, txn_buf *b)
{
	size_t i = txn_buf_slot(t, b->src, b->len);
	while (t->seen[i])
		i = (i + 1) & (t->capseen - 1);
	t->seen[i] = b;
}

/* b, unpacked, is kept until t ends (and found again in a read one). */
static void txn_buf_keep(mi_txn *t, txn_buf *b)
{
	b->next = t->bufs;
	t->bufs = b;
	if (t->write)
		return;
	if (2 * (t->nseen + 1) > t->capseen) {
		size_t old = t->capseen;
		txn_buf **was = t->seen;
		t->capseen = old ? 2 * old : 16;
		t->seen = mi_xcalloc(t->capseen, sizeof(*t->seen));
		for (size_t j = 0; j < old; j++)
			if (was[j])
				txn_buf_place(t, was[j]);
		free(was);
	}
	txn_buf_place(t, b);
	t->nseen++;
}

/* A framed value's layout (see pack_frames).  Its last frames may be kept
 * apart, in the tail entry `key \0` (src_split). */
typedef struct frames {
	uint64_t len, fsize, nf;  /* bytes, bytes per frame, frames */
	const uint8_t *dir;       /* the per-frame varints */
	const uint8_t *data, *end;/* the frames */
	uint64_t stored;          /* bytes of all frames */
	const uint8_t *tail, *tend; /* the tail entry's frames, if any */
} frames;

static int frames_open(const MDB_val *v, frames *f)
{
	const uint8_t *p = (const uint8_t *)v->mv_data + 1, *end = p + v->mv_size - 1;
	uint64_t x;
	if (!mi_varint_get(&p, end, &f->len) || !mi_varint_get(&p, end, &f->fsize) ||
	    f->len > PACK_MAX || f->fsize == 0 || f->fsize > PACK_MAX)
		return MI_ERR_DAMAGED;
	f->nf = (f->len + f->fsize - 1) / f->fsize;
	f->dir = p;
	f->stored = 0;
	for (uint64_t i = 0; i < f->nf; i++) {
		if (!mi_varint_get(&p, end, &x) || (x >> 1) > PACK_MAX)
			return MI_ERR_DAMAGED;
		f->stored += x >> 1;
	}
	f->data = p;
	f->end = end;
	f->tail = f->tend = NULL;
	return 0;
}

/* Does f keep frames in a tail entry? */
static bool frames_split(const frames *f)
{
	return f->stored > (uint64_t)(f->end - f->data);
}

/* Unpacks frames [a, b) of f into out (room for their bytes). */
static int frames_read(mi_txn *t, const frames *f, uint64_t a, uint64_t b, char *out)
{
	const uint8_t *d = f->dir, *p = f->data, *end = f->end;
	uint64_t x;
	for (uint64_t i = 0; i < b; i++) {
		mi_varint_get(&d, f->end, &x); /* checked by frames_open */
		uint64_t sl = x >> 1;
		if (p == end && f->tail && end != f->tend) {
			p = f->tail; /* the frames kept apart */
			end = f->tend;
		}
		if (sl > (uint64_t)(end - p))
			return MI_ERR_DAMAGED;
		if (i >= a) {
			size_t n = i + 1 < f->nf ? f->fsize : f->len - i * f->fsize;
			if (x & 1) {
				if (sl != n)
					return MI_ERR_DAMAGED;
				memcpy(out, p, n);
			} else if (unzstd(t, MI_DB_SRC, p, sl, out, n)) {
				return MI_ERR_DAMAGED;
			}
			out += n;
		}
		p += sl;
	}
	return 0;
}

/* Finds the tail entry `k \0` of a framed source whose last frames are
 * kept apart (src_split). */
static int frames_tail(mi_txn *t, const MDB_val *k, frames *f)
{
	uint8_t kb[512];
	if (!k || k->mv_size + 1 > 511)
		return MI_ERR_DAMAGED;
	memcpy(kb, k->mv_data, k->mv_size);
	kb[k->mv_size] = 0;
	MDB_val tk = {k->mv_size + 1, kb}, tv;
	int rc = g_get(t->e->slot, t->txn, t->e->dbi[MI_DB_SRC], &tk, &tv);
	if (rc == MDB_NOTFOUND)
		return MI_ERR_DAMAGED;
	if (rc || slot_faulted(t->e->slot))
		return map_err(rc, t->e->slot);
	if (!in_map(t->vlo, t->vhi, &tv) ||
	    tv.mv_size != f->stored - (uint64_t)(f->end - f->data))
		return MI_ERR_DAMAGED;
	f->tail = tv.mv_data;
	f->tend = f->tail + tv.mv_size;
	return 0;
}

/* Opens framed value v of key k (NULL: unknown), with its tail if any. */
static int frames_open_key(mi_txn *t, const MDB_val *k, const MDB_val *v, frames *f)
{
	if (frames_open(v, f))
		return MI_ERR_DAMAGED;
	return frames_split(f) ? frames_tail(t, k, f) : 0;
}

/* The plain bytes of a packed value v (key k) of t's db, in place of v. */
static int unpack(mi_txn *t, int db, const MDB_val *k, MDB_val *v)
{
	const uint8_t *p = v->mv_data;
	if (v->mv_size == 0)
		return MI_ERR_DAMAGED;
	if (p[0] == MI_VAL_RAW) {
		v->mv_data = (void *)(p + 1);
		v->mv_size--;
		return 0;
	}
	unsigned long long n;
	frames f;
	if (p[0] == MI_VAL_FRAMES) {
		int rc = frames_open_key(t, k, v, &f);
		if (rc)
			return rc;
		n = f.len;
	} else if (p[0] == MI_VAL_ZSTD) {
		n = frame_content_size(p + 1, v->mv_size - 1);
		if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR || n > PACK_MAX)
			return MI_ERR_DAMAGED;
	} else {
		return MI_ERR_DAMAGED;
	}
	txn_buf *b = txn_buf_find(t, v->mv_data, (size_t)n);
	if (!b) {
		b = txn_buf_new(v->mv_data, (size_t)n);
		int rc = p[0] == MI_VAL_FRAMES ? frames_read(t, &f, 0, f.nf, b->data) :
			 unzstd(t, db, p + 1, v->mv_size - 1, b->data, (size_t)n);
		if (rc) {
			free(b);
			return rc;
		}
		txn_buf_keep(t, b);
	}
	v->mv_data = b->data;
	v->mv_size = b->len;
	return 0;
}

static void txn_bufs_free(mi_txn *t)
{
	while (t->bufs) {
		txn_buf *b = t->bufs;
		t->bufs = b->next;
		free(b);
	}
	free(t->seen);
	t->seen = NULL;
	t->nseen = t->capseen = 0;
}

int mi_dict_train(const void *samples, const size_t *sizes, unsigned n, size_t max,
		  mi_buf *out)
{
	mi_buf_reset(out);
	mi_buf_grow(out, max);
	/* ZDICT_trainFromBuffer tries several segment sizes (k) and keeps the
	 * best: on every eighth file of Linux 6.1 one pass at k = 256 made
	 * dictionaries as good or better (sources 33.66 against 33.86 MiB,
	 * symbols 24.05 against 24.19) for a quarter of the CPU. */
	ZDICT_fastCover_params_t p = {.k = 256, .d = 8, .f = 20, .accel = 1};
	p.zParams.compressionLevel = 3;
	size_t got = ZDICT_trainFromBuffer_fastCover(out->buf, max, samples, sizes, n, p);
	if (ZDICT_isError(got))
		return MI_ERR_ARG;
	out->len = got;
	return 0;
}

int mi_store_set_dict(mi_store *st, int db, const void *dict, size_t len)
{
	mi_txn *t;
	char key[64];
	int rc;
	mi_env *e = st->cur;
	if (!packed(st, db) || e->dict[db])
		return MI_ERR_ARG;
	meta_dict_key(db, key, sizeof(key));
	if ((rc = mi_txn_begin(st, true, &t)))
		return rc;
	if ((rc = mi_put(t, MI_DB_META, key, strlen(key), dict, len))) {
		mi_txn_abort(t);
		return rc;
	}
	if ((rc = mi_txn_commit(t)))
		return rc;
	return env_dict(e, db, dict, len) ? MI_ERR_ARG : 0;
}

/* ---- transactions ----------------------------------------------------------------- */

/*
 * The env a new transaction runs on, with a reference taken: the current
 * one after env_check; a read transaction follows a replaced data file by
 * opening it, a write transaction answers MI_ERR_STALE.
 */
static int env_get(mi_store *st, bool write, mi_env **out)
{
	int rc;
	pthread_mutex_lock(&st->mu);
	mi_env *e = st->cur;
	if (!e) {
		rc = MI_ERR_DAMAGED;
		goto out;
	}
	rc = st->fresh ? 0 : env_check(st, e);
	if (rc == 1 && write) {
		rc = slot_faulted(e->slot) ? MI_ERR_DAMAGED : MI_ERR_STALE;
	} else if (rc == 1) {
		mi_env *ne;
		int version = 0;
		const char *envpath = st->flags & MI_STORE_FILE ? st->data : st->path;
		rc = env_open(st, envpath, st->data, &version, &ne);
		if (rc)
			goto out;
		env_put(e);
		st->cur = e = ne;
		st->version = version;
	}
	if (!rc) {
		e->refs++;
		*out = e;
	}
out:
	pthread_mutex_unlock(&st->mu);
	return rc;
}

static void env_release(mi_store *st, mi_env *e)
{
	pthread_mutex_lock(&st->mu);
	env_put(e);
	pthread_mutex_unlock(&st->mu);
}

int mi_txn_begin(mi_store *st, bool write, mi_txn **out)
{
	MDB_txn *txn;
	mi_env *e;
	int rc = env_get(st, write, &e);
	if (rc)
		return rc;
	rc = g_txn_begin(e->slot, e->env, NULL, write ? 0 : MDB_RDONLY, &txn);
	if (rc == MDB_MAP_RESIZED) {
		/* Another process grew the map: adopt its size and retry. */
		mdb_env_set_mapsize(e->env, 0);
		guard_register(e);
		rc = g_txn_begin(e->slot, e->env, NULL, write ? 0 : MDB_RDONLY, &txn);
	}
	if (!rc && write && !st->fresh) {
		/* The write lock is ours: was the file replaced while we waited? */
		struct stat sb;
		if (stat(st->data, &sb) == 0 && (sb.st_dev != e->dev || sb.st_ino != e->ino)) {
			mdb_txn_abort(txn);
			rc = MI_ERR_STALE;
		}
	}
	if (!rc && !write && st->index && !__atomic_load_n(&e->lo, __ATOMIC_ACQUIRE)) {
		/* The map's range is unknown (guard_register): no value could be
		 * checked to lie in it. */
		mdb_txn_abort(txn);
		rc = MI_ERR_DAMAGED;
	}
	if (rc) {
		env_release(st, e);
		return map_err(rc, e->slot);
	}
	mi_txn *t = mi_xcalloc(1, sizeof(*t));
	t->st = st;
	t->e = e;
	t->txn = txn;
	t->write = write;
	if (!write) {
		MDB_envinfo info;
		uintptr_t lo = __atomic_load_n(&e->lo, __ATOMIC_ACQUIRE);
		mdb_env_info(e->env, &info);
		if (lo) {
			t->vlo = lo + 2u * e->psize;
			t->vhi = lo + ((uintptr_t)info.me_last_pgno + 1) * e->psize;
		}
	}
	*out = t;
	return 0;
}

int mi_txn_commit(mi_txn *t)
{
	int rc;
	if (slot_faulted(t->e->slot)) {
		/* What it read may be zeros from the guard: never commit that. */
		mdb_txn_abort(t->txn);
		rc = MI_ERR_DAMAGED;
	} else {
		rc = g_txn_commit(t->e->slot, t->txn);
		rc = map_err(rc, t->e->slot);
	}
	env_release(t->st, t->e);
	txn_bufs_free(t);
	free(t);
	return rc;
}

mi_store *mi_txn_store(mi_txn *t)
{
	return t->st;
}

bool mi_txn_same(mi_txn *a, mi_txn *b)
{
	return a && b && !a->write && !b->write && a->e == b->e &&
	       mdb_txn_id(a->txn) == mdb_txn_id(b->txn);
}

void mi_txn_abort(mi_txn *t)
{
	if (!t)
		return;
	mdb_txn_abort(t->txn);
	env_release(t->st, t->e);
	txn_bufs_free(t);
	free(t);
}

int mi_get(mi_txn *t, int db, const void *key, size_t klen,
	   const void **val, size_t *vlen)
{
	MDB_val k = {klen, (void *)key}, v;
	if (klen == 0 || klen > 511)
		return MI_ERR_NOTFOUND;
	int rc;
	rc = g_get(t->e->slot, t->txn, t->e->dbi[db], &k, &v);
	if (rc || slot_faulted(t->e->slot))
		return map_err(rc, t->e->slot);
	if (!in_map(t->vlo, t->vhi, &v))
		return MI_ERR_DAMAGED;
	if (packed(t->st, db) && (rc = unpack(t, db, &k, &v)))
		return rc;
	*val = v.mv_data;
	*vlen = v.mv_size;
	return 0;
}

/* The stored value of path's source, as it lies in the map (packed or
 * framed), checked to lie inside it. */
static int src_stored(mi_txn *t, const char *path, size_t pl, MDB_val *k, MDB_val *v)
{
	*k = (MDB_val){pl, (void *)path};
	if (pl == 0 || pl > 511)
		return MI_ERR_NOTFOUND;
	int rc = g_get(t->e->slot, t->txn, t->e->dbi[MI_DB_SRC], k, v);
	if (rc || slot_faulted(t->e->slot))
		return map_err(rc, t->e->slot);
	return in_map(t->vlo, t->vhi, v) ? 0 : MI_ERR_DAMAGED;
}

int mi_src_span(mi_txn *t, const char *path, size_t pl, size_t off, size_t want,
		const char **bytes, size_t *n, size_t *total)
{
	MDB_val k, v;
	int rc = src_stored(t, path, pl, &k, &v);
	if (rc)
		return rc;
	frames f;
	if (!packed(t->st, MI_DB_SRC) || !v.mv_size || *(const uint8_t *)v.mv_data != MI_VAL_FRAMES) {
		/* one piece: all of it */
		if (packed(t->st, MI_DB_SRC) && (rc = unpack(t, MI_DB_SRC, &k, &v)))
			return rc;
		*total = v.mv_size;
		*bytes = (const char *)v.mv_data + (off < v.mv_size ? off : v.mv_size);
		*n = off < v.mv_size ? v.mv_size - off : 0;
		return 0;
	}
	if ((rc = frames_open_key(t, &k, &v, &f)))
		return rc;
	*total = (size_t)f.len;
	if (off >= f.len) {
		*bytes = "";
		*n = 0;
		return 0;
	}
	uint64_t last = want ? (off + want - 1 < f.len ? off + want - 1 : f.len - 1) : off;
	uint64_t a = off / f.fsize, b = last / f.fsize + 1;
	size_t len = (size_t)((b < f.nf ? b * f.fsize : f.len) - a * f.fsize);
	/* keyed by where frame a's directory entry is in the map */
	const uint8_t *key = f.dir + a;
	txn_buf *tb = txn_buf_find(t, key, len);
	if (!tb) {
		tb = txn_buf_new(key, len);
		if ((rc = frames_read(t, &f, a, b, tb->data))) {
			free(tb);
			return rc;
		}
		txn_buf_keep(t, tb);
	}
	*bytes = tb->data + (off - a * f.fsize);
	*n = len - (size_t)(off - a * f.fsize);
	return 0;
}

int mi_src_fill(mi_txn *t, const char *path, size_t pl, size_t from, size_t to,
		char *buf, size_t len, size_t *got_from, size_t *got_to)
{
	MDB_val k, v;
	int rc = src_stored(t, path, pl, &k, &v);
	if (rc)
		return rc;
	frames f;
	if (!packed(t->st, MI_DB_SRC) || !v.mv_size || *(const uint8_t *)v.mv_data != MI_VAL_FRAMES) {
		if (packed(t->st, MI_DB_SRC) && (rc = unpack(t, MI_DB_SRC, &k, &v)))
			return rc;
		if (v.mv_size != len)
			return MI_ERR_DAMAGED;
		memcpy(buf, v.mv_data, len);
		*got_from = 0;
		*got_to = len;
		return 0;
	}
	if ((rc = frames_open_key(t, &k, &v, &f)))
		return rc;
	if (f.len != len)
		return MI_ERR_DAMAGED;
	if (to > len)
		to = len;
	if (from >= to) {
		*got_from = *got_to = from < len ? from : len;
		return 0;
	}
	uint64_t a = from / f.fsize, b = (to - 1) / f.fsize + 1;
	if ((rc = frames_read(t, &f, a, b, buf + a * f.fsize)))
		return rc;
	*got_from = (size_t)(a * f.fsize);
	*got_to = b < f.nf ? (size_t)(b * f.fsize) : len;
	return 0;
}

int mi_put(mi_txn *t, int db, const void *key, size_t klen,
	   const void *val, size_t vlen)
{
	mi_buf b = {0};
	int rc;
	if (klen == 0 || klen > 511)
		return MI_ERR_TOOBIG;
	if (packed(t->st, db)) {
		mi_value_pack(t->st, db, val, vlen, &b);
		val = b.buf;
		vlen = b.len;
	}
	rc = mi_put_stored(t, db, key, klen, val, vlen, false);
	mi_buf_release(&b);
	return rc;
}

/*
 * LMDB keeps a value too large for a leaf page (a node over 2,038 bytes
 * with 4 KiB pages) in overflow pages of its own, whole pages: a framed
 * source wastes half a page on average (53 MiB over the Linux tree).  Its
 * last frames go to a tail entry `key \0` in a leaf page instead when that
 * takes fewer bytes: the length of the head that stays under key, or vl
 * for no cut.
 */
#define NODE_MAX 2038
static size_t src_split(const void *val, size_t vl, size_t kl, size_t psize)
{
	MDB_val v = {vl, (void *)val};
	frames f;
	if (kl + 1 > 511 || !vl || *(const uint8_t *)val != MI_VAL_FRAMES ||
	    kl + vl + 8 <= NODE_MAX || frames_open(&v, &f) || frames_split(&f))
		return vl;
	size_t best = vl, cost = ((15 + vl) / psize + 1) * psize;
	size_t off = (size_t)(f.data - (const uint8_t *)val);
	const uint8_t *d = f.dir;
	for (uint64_t i = 0; i <= f.nf; i++) {
		size_t tail = vl - off;
		if (tail && kl + 1 + tail + 8 <= NODE_MAX) {
			size_t head = kl + off + 8 <= NODE_MAX ? kl + off + 10
							       : ((15 + off) / psize + 1) * psize;
			size_t c = head + kl + 1 + tail + 10;
			if (c + 64 < cost) {
				best = off;
				cost = c;
			}
		}
		uint64_t x;
		if (i == f.nf || !mi_varint_get(&d, f.end, &x))
			break;
		off += (size_t)(x >> 1);
	}
	return best;
}

int mi_put_stored(mi_txn *t, int db, const void *key, size_t klen,
		  const void *val, size_t vlen, bool append)
{
	MDB_val k = {klen, (void *)key}, v = {vlen, (void *)val};
	int rc, slot = t->e->slot;
	unsigned fl = append ? MDB_APPEND : 0;
	if (klen == 0 || klen > 511)
		return MI_ERR_TOOBIG;
	size_t head = db == MI_DB_SRC && packed(t->st, db) ?
		      src_split(val, vlen, klen, t->e->psize) : vlen;
	if (head < vlen)
		v.mv_size = head;
	rc = g_put(slot, t->txn, t->e->dbi[db], &k, &v, fl);
	if (!rc && db == MI_DB_SRC && packed(t->st, db) && klen < 511) {
		/* the tail entry: put, or a stale one deleted */
		uint8_t tk[512];
		memcpy(tk, key, klen);
		tk[klen] = 0;
		MDB_val tkv = {klen + 1, tk}, tv = {vlen - head, (uint8_t *)val + head};
		if (head < vlen)
			rc = g_put(slot, t->txn, t->e->dbi[db], &tkv, &tv, fl);
		else if (!append && (rc = g_del(slot, t->txn, t->e->dbi[db], &tkv, NULL)) == MDB_NOTFOUND)
			rc = 0;
	}
	return rc == MDB_KEYEXIST && append ? MI_ERR_ARG : map_err(rc, slot);
}

int mi_put_append(mi_txn *t, int db, const void *key, size_t klen,
		  const void *val, size_t vlen)
{
	mi_buf b = {0};
	int rc;
	if (packed(t->st, db)) {
		mi_value_pack(t->st, db, val, vlen, &b);
		val = b.buf;
		vlen = b.len;
	}
	rc = mi_put_stored(t, db, key, klen, val, vlen, true);
	mi_buf_release(&b);
	return rc;
}

int mi_del(mi_txn *t, int db, const void *key, size_t klen)
{
	MDB_val k = {klen, (void *)key};
	if (klen == 0 || klen > 511)
		return 0;
	int rc;
	rc = g_del(t->e->slot, t->txn, t->e->dbi[db], &k, NULL);
	if ((!rc || rc == MDB_NOTFOUND) && db == MI_DB_SRC && packed(t->st, db) && klen < 511) {
		/* and a source's tail entry (src_split) */
		uint8_t tk[512];
		memcpy(tk, key, klen);
		tk[klen] = 0;
		MDB_val tkv = {klen + 1, tk};
		int r2 = g_del(t->e->slot, t->txn, t->e->dbi[db], &tkv, NULL);
		if (r2 && r2 != MDB_NOTFOUND)
			rc = r2;
	}
	return rc == MDB_NOTFOUND ? 0 : map_err(rc, t->e->slot);
}

int mi_del_prefix(mi_txn *t, int db, const void *prefix, size_t plen)
{
	MDB_cursor *cur;
	int rc = cursor_open(t->e->slot, t->txn, t->e->dbi[db], &cur);
	if (rc)
		return map_err(rc, t->e->slot);
	MDB_val k = {plen, (void *)prefix}, v;
	int slot = t->e->slot;
	rc = g_cursor_get(slot, cur, &k, &v, MDB_SET_RANGE);
	while (rc == 0) {
		if (k.mv_size < plen || memcmp(k.mv_data, prefix, plen))
			break;
		rc = g_cursor_del(slot, cur, 0);
		if (rc)
			break;
		rc = g_cursor_get(slot, cur, &k, &v, MDB_GET_CURRENT);
		if (rc == MDB_NOTFOUND || rc == EINVAL)
			rc = g_cursor_get(slot, cur, &k, &v, MDB_NEXT);
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : map_err(rc, t->e->slot);
}

uint64_t mi_db_count(mi_txn *t, int db)
{
	MDB_stat ms;
	if (g_stat(t->e->slot, t->txn, t->e->dbi[db], &ms))
		return 0;
	return ms.ms_entries;
}

int mi_db_clear(mi_txn *t, int db)
{
	int rc;
	rc = g_drop(t->e->slot, t->txn, t->e->dbi[db], 0);
	return map_err(rc, t->e->slot);
}

int mi_db_copy(mi_txn *from, mi_txn *to, int db, const void *prefix, size_t plen)
{
	mi_cursor *c;
	const void *k, *v;
	size_t kl, vl;
	int rc = mi_cursor_open(from, db, &c);
	if (rc)
		return rc;
	for (rc = mi_cursor_seek_prefix(c, prefix, plen, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(c, &k, &kl, &v, &vl))
		if ((rc = mi_put(to, db, k, kl, v, vl)))
			break;
	mi_cursor_close(c);
	return rc == MI_ERR_NOTFOUND ? 0 : rc;
}

/* ---- cursors ---------------------------------------------------------------------- */

int mi_cursor_open(mi_txn *t, int db, mi_cursor **out)
{
	MDB_cursor *cur;
	int rc = cursor_open(t->e->slot, t->txn, t->e->dbi[db], &cur);
	if (rc)
		return map_err(rc, t->e->slot);
	mi_cursor *c = mi_xcalloc(1, sizeof(*c));
	c->cur = cur;
	c->t = t;
	c->db = db;
	c->slot = t->e->slot;
	c->vlo = t->vlo;
	c->vhi = t->vhi;
	*out = c;
	return 0;
}

static int cursor_get(mi_cursor *c, MDB_val *k, MDB_cursor_op op,
		      const void **kp, size_t *kl, const void **vp, size_t *vl)
{
	MDB_val v;
	int rc;
	rc = g_cursor_get(c->slot, c->cur, k, &v, op);
	/* a source's tail entry (src_split) is part of the entry before it */
	while (!rc && c->db == MI_DB_SRC && packed(c->t->st, c->db) && k->mv_size &&
	       !((const char *)k->mv_data)[k->mv_size - 1])
		rc = g_cursor_get(c->slot, c->cur, k, &v, op == MDB_PREV ? MDB_PREV : MDB_NEXT);
	if (rc || slot_faulted(c->slot))
		return map_err(rc, c->slot);
	if (!in_map(c->vlo, c->vhi, k) || !in_map(c->vlo, c->vhi, &v))
		return MI_ERR_DAMAGED;
	if (c->pfx && (k->mv_size < c->plen || memcmp(k->mv_data, c->pfx, c->plen)))
		return MI_ERR_NOTFOUND;
	if (packed(c->t->st, c->db) && (rc = unpack(c->t, c->db, k, &v)))
		return rc;
	if (kp)
		*kp = k->mv_data;
	if (kl)
		*kl = k->mv_size;
	if (vp)
		*vp = v.mv_data;
	if (vl)
		*vl = v.mv_size;
	return 0;
}

int mi_cursor_seek(mi_cursor *c, const void *key, size_t klen,
		   const void **k, size_t *kl, const void **v, size_t *vl)
{
	MDB_val kk = {klen, (void *)key};
	if (klen == 0)
		return cursor_get(c, &kk, MDB_FIRST, k, kl, v, vl);
	if (klen > 511)
		return MI_ERR_NOTFOUND;
	return cursor_get(c, &kk, MDB_SET_RANGE, k, kl, v, vl);
}

void mi_cursor_bound(mi_cursor *c, const void *prefix, size_t plen)
{
	free(c->pfx);
	c->pfx = mi_xmalloc(plen ? plen : 1);
	if (plen)
		memcpy(c->pfx, prefix, plen);
	c->plen = plen;
}

int mi_cursor_seek_prefix(mi_cursor *c, const void *prefix, size_t plen,
			  const void **k, size_t *kl, const void **v, size_t *vl)
{
	mi_cursor_bound(c, prefix, plen);
	return mi_cursor_seek(c, prefix, plen, k, kl, v, vl);
}

int mi_cursor_next(mi_cursor *c, const void **k, size_t *kl,
		   const void **v, size_t *vl)
{
	MDB_val kk;
	return cursor_get(c, &kk, MDB_NEXT, k, kl, v, vl);
}

int mi_cursor_prev(mi_cursor *c, const void **k, size_t *kl,
		   const void **v, size_t *vl)
{
	MDB_val kk;
	return cursor_get(c, &kk, MDB_PREV, k, kl, v, vl);
}

void mi_cursor_close(mi_cursor *c)
{
	if (!c)
		return;
	mdb_cursor_close(c->cur);
	free(c->pfx);
	free(c);
}

/* ---- meta ------------------------------------------------------------------------- */

static int meta_buf_write(void *data, const char *buf, size_t len)
{
	mi_buf_add(data, buf, len);
	return 0;
}

int mi_meta_put_int(mi_txn *t, const char *key, int64_t v)
{
	mi_buf b = {0};
	msgpack_packer pk;
	msgpack_packer_init(&pk, &b, meta_buf_write);
	msgpack_pack_int64(&pk, v);
	int rc = mi_put(t, MI_DB_META, key, strlen(key), b.buf, b.len);
	mi_buf_release(&b);
	return rc;
}

int mi_meta_put_str(mi_txn *t, const char *key, const char *v)
{
	mi_buf b = {0};
	msgpack_packer pk;
	msgpack_packer_init(&pk, &b, meta_buf_write);
	size_t n = strlen(v);
	msgpack_pack_str(&pk, n);
	msgpack_pack_str_body(&pk, v, n);
	int rc = mi_put(t, MI_DB_META, key, strlen(key), b.buf, b.len);
	mi_buf_release(&b);
	return rc;
}

int mi_meta_get_int(mi_txn *t, const char *key, int64_t *v)
{
	const void *val;
	size_t vl;
	int rc = mi_get(t, MI_DB_META, key, strlen(key), &val, &vl);
	if (rc)
		return rc;
	return mi_mp_get_int(val, vl, v);
}

int mi_meta_get_str(mi_txn *t, const char *key, char **v)
{
	const void *val;
	const char *s;
	size_t vl, n;
	int rc = mi_get(t, MI_DB_META, key, strlen(key), &val, &vl);
	if (rc)
		return rc;
	if ((rc = mi_mp_get_str(val, vl, &s, &n)))
		return rc;
	*v = mi_xstrndup(s, n);
	return 0;
}
