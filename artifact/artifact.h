/*
 * artifact.h - artifacts made by the host's own model.  mcpidx never calls
 * a model: it hands the host a prompt built from the index (the folded
 * outline and only the bodies the task needs), the host runs it with its own
 * model and calls back with the answer, which is stored in the side store
 * (format/side.h) pinned to the content hash of the source it describes.
 *
 *   generate_prompt {path, task, symbol?}  -> status "prompt_ready",
 *       promptForHostLLM, callbackTool "store_llm_result", callbackArgs
 *   store_llm_result {...callbackArgs, result}  -> the stored artifact
 *   get_artifact / list_artifacts / delete_artifact
 *   generate_artifact {path, task: parse|annotate|summarize, focusOn?}
 *
 * Every answer is one structured object (mi_out.json):
 *   {status: "success"|"error"|"prompt_ready", data, error, nextAction,
 *    promptForHostLLM?, callbackTool?, callbackArgs?}
 * and a short text form (mi_out.text) for the model.  An "error" answer has
 * mi_out.is_error set and says in nextAction what the host can do.
 *
 * Chains bound the round trips: each workflow has a chain id (the
 * correlation id of every step, carried in callbackArgs), at most max_steps
 * steps and an age limit; a prompt must be answered within the callback
 * timeout.  Every step is appended to the side store's log with its chain id
 * and step number.  A chain over its budget is refused with a message the
 * host can act on.
 *
 * Arrows: format <- query <- artifact <- mcp, tools.  The index is only read.
 */
#ifndef MI_ARTIFACT_H
#define MI_ARTIFACT_H

#include "../format/side.h"
#include "../query/query.h"

#define MI_ART_MAX_STEPS 8              /* default steps per chain */
#define MI_ART_CALLBACK_MS (10 * 60000)  /* default: a prompt waits 10 min */
#define MI_ART_TOOL_MS 10000             /* default budget of one call's own work */
#define MI_ART_CHAIN_TTL_MS (60 * 60000) /* default: a chain lives one hour */

typedef struct mi_art_opts {
	const char *index;           /* index path (directory or packed file) */
	const char *side;            /* side store dir; NULL = mi_side_locate(index) */
	const char *repo;            /* working tree, for staleness; NULL = index only */
	int max_steps;               /* steps per chain; 0 = MI_ART_MAX_STEPS */
	int64_t callback_timeout_ms; /* prompt -> store_llm_result; 0 = default */
	int64_t tool_timeout_ms;     /* one call's own work; 0 = default */
	int64_t chain_ttl_ms;        /* age limit of a chain; 0 = default */
	size_t prompt_tokens;        /* prompt budget; 0 = 6000 */
} mi_art_opts;

typedef struct mi_art mi_art;

/* Copies o; opens nothing until a call needs the side store.  Never fails
 * (allocation failure aborts). */
mi_art *mi_art_new(const mi_art_opts *o);
void mi_art_free(mi_art *a);
/* The side store directory (NULL when there is no index to put it beside). */
const char *mi_art_side_dir(const mi_art *a);

/* The arguments of one artifact call, as the tool schemas name them.
 * Strings are borrowed for the call; NULL means absent. */
typedef struct mi_art_req {
	const char *tool;          /* tool name, for the log */
	const char *path;          /* source file, repo-relative */
	const char *task;          /* annotate|summarize|document|test-plan|parse */
	const char *symbol;        /* NAME or Parent.NAME */
	const char *result;        /* store_llm_result: the model's answer */
	const char *chain;         /* callbackArgs.chain: continue this chain */
	const char *hash;          /* callbackArgs.hash: source the prompt described */
	const char *const *focus;  /* generate_artifact options.focusOn */
	size_t nfocus;
	const char *directory;     /* list_artifacts: only under this directory */
	const char *type;          /* list_artifacts: only this task */
	uint64_t call_id;          /* the front end's correlation id, for the log */
} mi_art_req;

/* The tools.  Each fills out (json and text) and returns 0 or the error
 * behind an "error" answer; out is always filled. */
int mi_art_generate_prompt(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);
int mi_art_generate(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);
int mi_art_store(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);
int mi_art_get(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);
int mi_art_list(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);
int mi_art_delete(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);

/* ---- artifacts as search evidence (evidence.c) ---------------------------- */

/* A stored summary or annotation that matches a query. */
typedef struct mi_art_hit {
	const char *path;    /* file (owned by the array) */
	const char *symbol;  /* NAME or Parent.NAME; "" for the whole file */
	uint32_t line;       /* the symbol's start line when stored; 0: file */
	float score;         /* BM25 of the query over the artifact texts, > 0 */
	uint8_t hash[16];    /* of the source it describes (= the index's now) */
} mi_art_hit;

/*
 * The summaries, annotations and documentation artifacts whose text
 * matches query, best first, at most max, fresh ones only (their hash is
 * the index's hash of the file; q NULL: unchecked).  Scored with BM25 over
 * all such artifacts with the index's tokenizer; the term index is kept in
 * memory and rebuilt when the side store's artifacts change.  *out is
 * malloc'd (free with mi_art_evidence_free; NULL and 0 when none or no side
 * store).  0 or an error.
 */
int mi_art_evidence(mi_art *a, mi_query *q, const char *query, size_t max,
		    mi_art_hit **out, size_t *n);
void mi_art_evidence_free(mi_art_hit *ev, size_t n);

/* Task names generate_prompt accepts, NULL-terminated (for schemas, help). */
extern const char *const mi_art_tasks[];

#endif
