/*
 * pair.c - the second thread of a query that splits its work in two (a
 * find_references page over many files, a search over many postings):
 * one per process, started on
 * first use and kept, so the zstd contexts it unpacks with stay warm (a
 * thread made per call paid for new ones every time).
 *
 * Both users share their work out as it goes (the next file or slice not
 * taken), so the query thread never waits on the second one to wake: when
 * it has done everything before the second thread took the job, the job is
 * taken back (mi_q_pair_wait), and when the second thread is finishing its
 * last piece the query thread spins a little instead of sleeping, because
 * on a virtual machine waking a thread that sleeps costs tens of
 * microseconds, as much as the piece.
 */
#include "query_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define PAIR_SPIN_NS 100000     /* the query thread spins this long before it sleeps */

static struct {
	pthread_once_t once;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool up;                /* the thread runs */
	bool busy;              /* a query holds it (from start to wait) */
	bool taken;             /* the thread has taken the job fn */
	void (*fn)(void *);     /* its work; NULL once done (or taken back) */
	void *arg;
	atomic_bool done;       /* fn has returned (spun on without the lock) */
} pair = {.once = PTHREAD_ONCE_INIT,
	  /* adaptive: a thread that finds it held spins a little before it
	   * sleeps (the holder is one step from letting go) */
	  .mu = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP,
	  .cv = PTHREAD_COND_INITIALIZER};

static void *pair_run(void *unused)
{
	(void)unused;
	for (;;) {
		pthread_mutex_lock(&pair.mu);
		while (!pair.fn || pair.taken)
			pthread_cond_wait(&pair.cv, &pair.mu);
		void (*fn)(void *) = pair.fn;
		void *arg = pair.arg;
		pair.taken = true;
		pthread_mutex_unlock(&pair.mu);
		fn(arg);
		pthread_mutex_lock(&pair.mu);
		pair.fn = NULL;
		pair.taken = false;
		pthread_cond_broadcast(&pair.cv);
		pthread_mutex_unlock(&pair.mu);
		/* Said after the lock is let go, so the spinning caller finds
		 * it free.  Only the spin reads it: the job's end is fn, under
		 * the lock (a store that lands in the next job's wait only ends
		 * that wait's spin early). */
		atomic_store_explicit(&pair.done, true, memory_order_release);
	}
	return NULL;
}

static void pair_init(void)
{
	pthread_t th;
	pthread_attr_t at;
	/* one core: the helper could only run in the caller's stead */
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pair.up = !pthread_create(&th, &at, pair_run, NULL);
	pthread_attr_destroy(&at);
}

bool mi_q_pair_up(void)
{
	pthread_once(&pair.once, pair_init);
	return pair.up;
}

bool mi_q_pair_start(void (*fn)(void *arg), void *arg)
{
	if (!mi_q_pair_up())
		return false;
	pthread_mutex_lock(&pair.mu);
	bool took = !pair.busy;
	if (took) {
		pair.busy = true;
		pair.fn = fn;
		pair.arg = arg;
		atomic_store_explicit(&pair.done, false, memory_order_relaxed);
		pthread_cond_broadcast(&pair.cv);
	}
	pthread_mutex_unlock(&pair.mu);
	return took;
}

static uint64_t pair_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mi_q_pair_wait(void)
{
	pthread_mutex_lock(&pair.mu);
	if (pair.fn && !pair.taken) /* not begun: taken back */
		pair.fn = NULL;
	if (pair.fn) {
		pthread_mutex_unlock(&pair.mu);
		uint64_t until = pair_now_ns() + PAIR_SPIN_NS;
		for (unsigned i = 0; !atomic_load_explicit(&pair.done, memory_order_acquire); i++) {
			if ((i & 63) == 63 && pair_now_ns() > until)
				break;
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#elif defined(__aarch64__)
			__asm__ volatile("yield");
#endif
		}
		pthread_mutex_lock(&pair.mu);
		while (pair.fn)
			pthread_cond_wait(&pair.cv, &pair.mu);
	}
	pair.busy = false;
	pthread_mutex_unlock(&pair.mu);
}
