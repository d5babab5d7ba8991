/*
 * mcp/dl.h - libcurl and libmicrohttpd, loaded when first needed.
 *
 * Only an HTTP upstream (client.c) needs libcurl and only `serve --http`
 * (http.c) needs libmicrohttpd, but linked in, the two and what they pull
 * in (GnuTLS, Kerberos, LDAP, ...: 30 of the binary's 44 libraries) are
 * mapped and relocated at every start of every command: 13 ms of a 21 ms
 * `mcpidx version` on a small virtual machine.  So neither is linked: the
 * first HTTP upstream or HTTP server loads its library (dlopen by soname)
 * and the few entry points it uses, and says so clearly when it cannot.
 *
 * Include after <curl/curl.h> (with CURL_DISABLE_TYPECHECK defined before,
 * so curl_easy_setopt is a function, not a macro) or <microhttpd.h>: the
 * library's own names then call through the loaded table.  Call
 * mi_dl_curl / mi_dl_mhd (true: loaded) before any of them.
 */
#ifndef MI_MCP_DL_H
#define MI_MCP_DL_H

#include "format/format.h"

#include <stdbool.h>

/* Each entry point has the type the header gives it (some changed across
 * versions: curl_url_get's handle became const). */
#define MI_DL_FN(name) __typeof__(name) *name

#ifdef CURLINC_CURL_H
struct mi_curl_fns {
	MI_DL_FN(curl_global_init);
	MI_DL_FN(curl_easy_init);
	MI_DL_FN(curl_easy_setopt);
	MI_DL_FN(curl_easy_perform);
	MI_DL_FN(curl_easy_cleanup);
	MI_DL_FN(curl_easy_getinfo);
	MI_DL_FN(curl_easy_strerror);
	MI_DL_FN(curl_slist_append);
	MI_DL_FN(curl_slist_free_all);
	MI_DL_FN(curl_url);
	MI_DL_FN(curl_url_set);
	MI_DL_FN(curl_url_get);
	MI_DL_FN(curl_url_cleanup);
	MI_DL_FN(curl_free);
};
extern struct mi_curl_fns mi_curl_fn;
#ifndef MI_DL_TABLES
#define curl_global_init mi_curl_fn.curl_global_init
#define curl_easy_init mi_curl_fn.curl_easy_init
#undef curl_easy_setopt /* curl.h checks its three arguments by a macro */
#define curl_easy_setopt mi_curl_fn.curl_easy_setopt
#define curl_easy_perform mi_curl_fn.curl_easy_perform
#define curl_easy_cleanup mi_curl_fn.curl_easy_cleanup
#undef curl_easy_getinfo
#define curl_easy_getinfo mi_curl_fn.curl_easy_getinfo
#define curl_easy_strerror mi_curl_fn.curl_easy_strerror
#define curl_slist_append mi_curl_fn.curl_slist_append
#define curl_slist_free_all mi_curl_fn.curl_slist_free_all
#define curl_url mi_curl_fn.curl_url
#define curl_url_set mi_curl_fn.curl_url_set
#define curl_url_get mi_curl_fn.curl_url_get
#define curl_url_cleanup mi_curl_fn.curl_url_cleanup
#define curl_free mi_curl_fn.curl_free
#endif
#endif

#ifdef MHD_VERSION
struct mi_mhd_fns {
	MI_DL_FN(MHD_start_daemon);
	MI_DL_FN(MHD_stop_daemon);
	MI_DL_FN(MHD_get_daemon_info);
	MI_DL_FN(MHD_lookup_connection_value);
	MI_DL_FN(MHD_get_connection_values);
	MI_DL_FN(MHD_create_response_from_buffer);
	MI_DL_FN(MHD_create_response_from_callback);
	MI_DL_FN(MHD_add_response_header);
	MI_DL_FN(MHD_queue_response);
	MI_DL_FN(MHD_destroy_response);
};
extern struct mi_mhd_fns mi_mhd_fn;
#ifndef MI_DL_TABLES
#define MHD_start_daemon mi_mhd_fn.MHD_start_daemon
#define MHD_stop_daemon mi_mhd_fn.MHD_stop_daemon
#define MHD_get_daemon_info mi_mhd_fn.MHD_get_daemon_info
#define MHD_lookup_connection_value mi_mhd_fn.MHD_lookup_connection_value
#define MHD_get_connection_values mi_mhd_fn.MHD_get_connection_values
#define MHD_create_response_from_buffer mi_mhd_fn.MHD_create_response_from_buffer
#define MHD_create_response_from_callback mi_mhd_fn.MHD_create_response_from_callback
#define MHD_add_response_header mi_mhd_fn.MHD_add_response_header
#define MHD_queue_response mi_mhd_fn.MHD_queue_response
#define MHD_destroy_response mi_mhd_fn.MHD_destroy_response
#endif
#endif

/* Load libcurl (and run curl_global_init) or libmicrohttpd once; false,
 * with the reason in err, when the library or one of its entry points is
 * missing.  MCPIDX_LIBCURL / MCPIDX_LIBMICROHTTPD name another file to
 * load (a libcurl built against another TLS library, say). */
bool mi_dl_curl(mi_buf *err);
bool mi_dl_mhd(mi_buf *err);

#endif
