/*
 * mcp.h - the Model Context Protocol server: JSON-RPC 2.0 over stdio or
 * streamable HTTP on loopback, a thin layer over query/.
 */
#ifndef MI_MCP_H
#define MI_MCP_H

#include "../query/query.h"

typedef struct mi_mcp_opts {
	const char *index;     /* index dir or packed file; may not exist yet */
	const char *http;      /* "127.0.0.1:PORT" to serve HTTP, NULL = stdio */
	const char *log_file;  /* log destination, NULL = stderr */
	const char *self_exe;  /* path of the mcpidx binary (for index_codebase) */
	bool allow_remote;     /* allow binding a non-loopback address */
} mi_mcp_opts;

/* Serves until stdin closes (stdio) or SIGINT/SIGTERM (HTTP).  Returns 0 or
 * an error after printing why to the log. */
int mi_mcp_serve(const mi_mcp_opts *o);

/*
 * The artifact tools that write (mcp/artifacts.c), shared with the command
 * line: generate_prompt (a prompt for the host's model, counted as a step of
 * a bounded chain), generate_artifact (parse at once; annotate/summarize as
 * generate_prompt), store_llm_result (the model's answer, pinned to the
 * source's content hash, "NAME: text" lines of an annotation also stored per
 * symbol) and delete_artifact.  Answers as query.h's artifact section says;
 * a chain over its budget (MAX_STEPS, age, callback timeout) is refused with
 * an "error" answer whose nextAction says what to do.  0 or the error.
 */
int mi_mcp_art_prompt(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);
int mi_mcp_art_generate(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);
int mi_mcp_art_store(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);
int mi_mcp_art_delete(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);

#endif
