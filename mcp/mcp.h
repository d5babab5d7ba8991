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
	const char *log_level; /* lowest level logged: debug (one line per call),
				  info, warning, error, off; NULL = debug with
				  log_file, info on stderr */
	const char *self_exe;  /* path of the mcpidx binary (for index_codebase) */
	bool allow_remote;     /* allow binding a non-loopback address */
	const char *const *allow_hosts; /* extra Host/Origin names accepted over
					   HTTP besides loopback; NULL-terminated */
	const char *const *allow_roots; /* directories index_codebase may build
					   besides the served repository */
	const char *token;     /* bearer token HTTP requests must carry, or NULL */
	unsigned max_connections; /* HTTP connections at once, 0 = 1000 */
	unsigned idle_timeout; /* seconds before an idle HTTP connection is
				  closed, 0 = 30 */
	unsigned max_requests; /* HTTP requests worked on at once, 0 = 64 */
} mi_mcp_opts;

/* Serves until stdin closes (stdio) or SIGINT/SIGTERM (HTTP).  Returns 0 or
 * an error after printing why to the log. */
int mi_mcp_serve(const mi_mcp_opts *o);

#endif
