/*
 * artifact_int.h - internals shared by the files of artifact/ (not public):
 * the handle, the structured answer builder, chains and the step log.
 */
#ifndef MI_ARTIFACT_INT_H
#define MI_ARTIFACT_INT_H

#include "artifact.h"

#include <pthread.h>

struct mi_art {
	mi_art_opts o;         /* options, strings below are the copies */
	char *index;           /* index path */
	char *side_dir;        /* side store directory, NULL when unknown */
	char *repo;            /* working tree or NULL */
	pthread_mutex_t mu;    /* guards side */
	mi_side *side;         /* opened on first use */
	struct mi_art_ev *ev;  /* search evidence term index (guarded by mu) */
};

/* Frees the evidence term index (evidence.c). */
void mi_art_ev_free(struct mi_art_ev *e);

/*
 * The side store, opened on first use.  create: a writer (creates it when
 * missing).  Returns 0 with *s, MI_ERR_NOINDEX when it does not exist and
 * create is false (callers treat it as empty), or another error with an
 * "error" answer in out.
 */
int mi_art_side(mi_art *a, bool create, mi_side **s, mi_out *out);

/* Monotonic microseconds. */
int64_t mi_art_now_us(void);

/* ---- answers (reply.c) ------------------------------------------------------- */

/* Sets an "error" answer: is_error, json {status, data: null, error,
 * nextAction}, text "error\nNext: nextAction".  Returns err. */
int mi_art_error(mi_out *out, int err, const char *next, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A "success" answer: data is a JSON object (may be NULL: null), text the
 * short form, next the nextAction (may be NULL). */
void mi_art_success(mi_out *out, const char *data, const char *text, const char *next);

/* ---- chains and the step log (chain.c) ---------------------------------------- */

/* One step of a chain, as taken by mi_art_chain_step. */
typedef struct mi_art_step {
	char chain[40];   /* chain id ("ch-" + 16 hex) */
	int step;         /* this call's step number, from 1 */
	int max;          /* the chain's limit */
	bool answered;    /* store: a waiting prompt of the chain was answered */
} mi_art_step;

/* What a step does to the chain's waiting prompts. */
enum {
	MI_ART_STEP_PLAIN,   /* neither */
	MI_ART_STEP_PROMPT,  /* issues a prompt for (task, path, symbol) */
	MI_ART_STEP_ANSWER,  /* answers that prompt (store_llm_result) */
};

/*
 * Takes a step: starts a chain when r->chain is NULL or empty, else the
 * next step of that chain, in one side-store write transaction (so steps of
 * one chain from several processes are counted once each).  Refused, with an
 * "error" answer in out saying what the host can do: an unknown or expired
 * chain, a chain at its MAX_STEPS, an answer to a prompt older than the
 * callback timeout.  kind is MI_ART_STEP_*.  0 or the error.
 */
int mi_art_chain_step(mi_art *a, const mi_art_req *r, int kind, mi_art_step *st,
		      mi_out *out);
/* Appends one line to the side store's log: the tool, the path, the chain
 * id and step, the outcome and the time taken.  Best effort. */
void mi_art_log(mi_art *a, const mi_art_req *r, const mi_art_step *st,
		const char *outcome, int64_t us);
/* The callbackArgs object of a prompt step (JSON text). */
void mi_art_callback_args(mi_buf *out, const mi_art_req *r, const char *task,
			  const char *symbol, const char *hash_hex,
			  const mi_art_step *st);

#endif
