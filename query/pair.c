/*
 * pair.c - the second thread of a query that splits its work in two (a
 * find_references page over many files, a search over many postings):
 * one per process, started on
 * first use and kept, so the zstd contexts it unpacks with stay warm (a
 * thread made per call paid for new ones every time).
 */
#include "query_int.h"

#include <pthread.h>

static struct {
	pthread_once_t once;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool up;                /* the thread runs */
	bool busy;              /* a query holds it (from start to wait) */
	void (*fn)(void *);     /* its work; NULL once done */
	void *arg;
} pair = {.once = PTHREAD_ONCE_INIT, .mu = PTHREAD_MUTEX_INITIALIZER,
	  .cv = PTHREAD_COND_INITIALIZER};

static void *pair_run(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&pair.mu);
	for (;;) {
		while (!pair.fn)
			pthread_cond_wait(&pair.cv, &pair.mu);
		void (*fn)(void *) = pair.fn;
		void *arg = pair.arg;
		pthread_mutex_unlock(&pair.mu);
		fn(arg);
		pthread_mutex_lock(&pair.mu);
		pair.fn = NULL;
		pthread_cond_broadcast(&pair.cv);
	}
	return NULL;
}

static void pair_init(void)
{
	pthread_t th;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pair.up = !pthread_create(&th, &at, pair_run, NULL);
	pthread_attr_destroy(&at);
}

bool mi_q_pair_start(void (*fn)(void *arg), void *arg)
{
	pthread_once(&pair.once, pair_init);
	if (!pair.up)
		return false;
	pthread_mutex_lock(&pair.mu);
	bool took = !pair.busy;
	if (took) {
		pair.busy = true;
		pair.fn = fn;
		pair.arg = arg;
		pthread_cond_broadcast(&pair.cv);
	}
	pthread_mutex_unlock(&pair.mu);
	return took;
}

void mi_q_pair_wait(void)
{
	pthread_mutex_lock(&pair.mu);
	while (pair.fn)
		pthread_cond_wait(&pair.cv, &pair.mu);
	pair.busy = false;
	pthread_mutex_unlock(&pair.mu);
}
