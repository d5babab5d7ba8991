/*
 * lsp.h - the language server: folding ranges, document and workspace
 * symbols, definitions and references for an editor, over LSP (JSON-RPC 2.0
 * with Content-Length framing on stdin/stdout).  Answers come from the same
 * spans the folded views use: the index's for files as indexed, the
 * indexer's parser for open buffers that differ from it.
 *
 * Arrows: format <- indexer <- lsp; format <- query <- lsp; lsp <- tools.
 */
#ifndef MI_LSP_H
#define MI_LSP_H

#include "../query/query.h"

typedef struct mi_lsp_opts {
	const char *index;    /* index dir or packed file; NULL: the nearest
	                         .mcpidx at or above the client's root folder */
	const char *log_file; /* log destination, NULL = stderr */
	int in_fd;            /* messages in (0) */
	int out_fd;           /* messages out (1) */
} mi_lsp_opts;

/* Serves one client until it sends `exit` or closes in_fd.  Returns the
 * exit status LSP asks for: 0 after shutdown + exit, 1 otherwise. */
int mi_lsp_serve(const mi_lsp_opts *o);

#endif
