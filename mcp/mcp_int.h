/*
 * mcp_int.h - the dispatcher as the transports see it: a server (its spec,
 * the served index, the tool registry), sessions of clients that
 * initialized, and one entry point that takes a raw message and answers
 * it.  stdio.c and http.c include this; the areas below include only
 * area.h.
 */
#ifndef MI_MCP_INT_H
#define MI_MCP_INT_H

#include "area.h"

typedef struct mi_mcp_server mi_mcp_server;
typedef struct mi_mcp_session mi_mcp_session;
typedef struct mi_mcp_call mi_mcp_call;

/* A change stream (subscriptions/listen, or a session that subscribed to
 * resources): gets list_changed / updated notifications. */
typedef struct mi_mcp_listener {
	mi_mcp_sink sink;            /* where its notifications go */
	char *id;                    /* subscriptionId (JSON text), NULL = legacy */
	bool tools, prompts, resources; /* list_changed kinds it asked for */
	json_t *uris;                /* resources it follows (array of strings) */
	size_t bytes;                /* of those URIs, counted in srv->sub_bytes */
	struct mi_mcp_listener *next; /* in srv->listeners */
} mi_mcp_listener;

/* The whole server: one per process. */
struct mi_mcp_server {
	mi_mcp_env env;              /* the served index, options, log */
	const mi_mcp_spec *spec;     /* what it offers */
	mi_mcp_tools *tools;         /* the tool registry */
	pthread_mutex_t run_mu;      /* guards running */
	pthread_cond_t run_cv;       /* signalled when running drops */
	int running;                 /* worker threads alive */
	atomic_uint_fast64_t next_cid; /* correlation ids */
	pthread_mutex_t lis_mu;      /* guards listeners */
	mi_mcp_listener *listeners;  /* change streams */
	size_t sub_bytes;            /* URIs all listeners follow (MAX_SUB_BYTES) */
	uint64_t seen_gen;           /* index generation last announced */
	pthread_t poll;              /* looks for rebuilds while someone listens */
	bool has_poll;               /* poll runs */
	pthread_cond_t poll_cv;      /* wakes poll at shutdown (with run_mu) */
};

/* One client that initialized (stdio has one; HTTP one per Mcp-Session-Id).
 * Stateless (2026-07-28) requests use a session of their own for the
 * request only. */
struct mi_mcp_session {
	mi_mcp_server *srv;          /* the server it belongs to */
	char sid[40];                /* HTTP session id; "" on stdio */
	atomic_int state;            /* 0 new, 1 initialize answered, 2 initialized */
	char version[16];            /* negotiated protocol version */
	json_t *caps;                /* client capabilities from initialize */
	atomic_int log_level;        /* MI_LOG_*: lowest level sent to the client */
	mi_mcp_sink sink;            /* session-wide notifications (stdio: stdout) */
	pthread_mutex_t mu;          /* guards calls, asks, refs */
	pthread_cond_t ask_cv;       /* an answer to one of our requests came */
	mi_mcp_call *calls;          /* requests in flight, for cancellation */
	struct mi_mcp_ask *asks;     /* our requests waiting for an answer */
	mi_mcp_listener *listener;   /* legacy resource subscriptions, or NULL */
	int refs;                    /* calls + transport holding this session */
	atomic_llong last_used_ms;   /* monotonic time of the last message */
	struct mi_mcp_session *next; /* in the HTTP session list */
};

/* How a transport hands a message over. */
typedef struct mi_mcp_in {
	const char *data;            /* the message */
	size_t len;
	mi_mcp_sink sink;            /* where this request's notifications go */
	bool inline_only;            /* run even long calls now (HTTP) */
	const char *hdr_version;     /* HTTP MCP-Protocol-Version, or NULL */
	const char *hdr_method;      /* HTTP Mcp-Method, or NULL */
	const char *hdr_name;        /* HTTP Mcp-Name, or NULL */
	/* Any other HTTP header by name (case-insensitive), or NULL. */
	const char *(*header)(void *ctx, const char *name);
	void *header_ctx;            /* for header */
	bool http;                   /* came over HTTP (headers checked) */
} mi_mcp_in;

/* What mi_mcp_handle made of a message. */
typedef struct mi_mcp_outcome {
	int code;                    /* JSON-RPC error code answered, or 0 */
	bool modern;                 /* served statelessly (2026-07-28) */
	bool listen;                 /* a subscriptions/listen stream: the
					transport keeps the stream open */
	mi_mcp_call *call;           /* that stream's call: give it back with
					mi_mcp_call_close when it ends */
} mi_mcp_outcome;

int mi_mcp_server_init(mi_mcp_server *s, const mi_mcp_opts *o,
		       const mi_mcp_spec *spec);
/* Cancels running work, waits for worker threads, frees everything. */
void mi_mcp_server_release(mi_mcp_server *s);

void mi_mcp_session_init(mi_mcp_session *ss, mi_mcp_server *s, mi_mcp_sink sink);
void mi_mcp_session_release(mi_mcp_session *ss);
/* Marks every call of the session cancelled (DELETE, shutdown). */
void mi_mcp_session_cancel_all(mi_mcp_session *ss);

/*
 * Handles one raw message.  Returns:
 *   0  and *out filled with the response (empty when none is due),
 *   1  and *callp set: a request that should run on its own thread; pass
 *      it to mi_mcp_call_run, which writes the response into its out.
 * *oc says what was answered (for HTTP status codes and streams).
 */
int mi_mcp_handle(mi_mcp_session *ss, const mi_mcp_in *in, mi_buf *out,
		  mi_mcp_call **callp, mi_mcp_outcome *oc);
/* Runs a call handed out by mi_mcp_handle, writes the response into out
 * (empty when the call was cancelled) and frees the call. */
void mi_mcp_call_run(mi_mcp_call *c, mi_buf *out);
/* True for a tools/call of a tool that runs on the caller's thread. */
bool mi_mcp_call_quick(const mi_mcp_call *c);
/* Removes a listener (its stream closed) and frees it. */
void mi_mcp_listener_drop(mi_mcp_server *s, mi_mcp_listener *l);
/* Ends a subscriptions/listen call (its stream closed) and frees it. */
void mi_mcp_call_close(mi_mcp_call *c);
/* Ends the session's listen calls (the transport is going away). */
void mi_mcp_session_close_listens(mi_mcp_session *ss);
/* Checks whether the index changed and tells the listeners. */
void mi_mcp_poll_changes(mi_mcp_server *s);

/* Transports. */
int mi_mcp_serve_stdio(mi_mcp_server *s);
int mi_mcp_serve_http(mi_mcp_server *s, const char *addr);

#endif
