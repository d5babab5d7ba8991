/*
 * mcp/dl.c - libcurl and libmicrohttpd loaded on first use (mcp/dl.h says
 * why).
 */
#define CURL_DISABLE_TYPECHECK
#define MI_DL_TABLES /* the tables' members by the libraries' own names */
#include <curl/curl.h>
#include <microhttpd.h>

#include "dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MI_CURL_SONAME
#define MI_CURL_SONAME "libcurl.so.4"
#endif
#ifndef MI_MHD_SONAME
#define MI_MHD_SONAME "libmicrohttpd.so.12"
#endif

struct mi_curl_fns mi_curl_fn;
struct mi_mhd_fns mi_mhd_fn;

typedef struct dl_lib {
	const char *what;       /* for messages: what needs it */
	const char *env;        /* variable naming another file to load */
	const char *soname;
	const char *const *names; /* its entry points, in the table's order */
	size_t n;
	void *table;            /* the table: one pointer per name */
	pthread_once_t once;
	void (*init)(void);     /* run once loaded */
	char why[512];          /* empty: loaded */
} dl_lib;

static const char *const curl_names[] = {
	"curl_global_init", "curl_easy_init", "curl_easy_setopt", "curl_easy_perform",
	"curl_easy_cleanup", "curl_easy_getinfo", "curl_easy_strerror", "curl_slist_append",
	"curl_slist_free_all", "curl_url", "curl_url_set", "curl_url_get", "curl_url_cleanup",
	"curl_free",
};
static const char *const mhd_names[] = {
	"MHD_start_daemon", "MHD_stop_daemon", "MHD_get_daemon_info",
	"MHD_lookup_connection_value", "MHD_get_connection_values",
	"MHD_create_response_from_buffer", "MHD_create_response_from_callback",
	"MHD_add_response_header", "MHD_queue_response", "MHD_destroy_response",
};
_Static_assert(sizeof(mi_curl_fn) == sizeof(curl_names) / sizeof(*curl_names) * sizeof(void *),
	       "one name per libcurl entry point");
_Static_assert(sizeof(mi_mhd_fn) == sizeof(mhd_names) / sizeof(*mhd_names) * sizeof(void *),
	       "one name per libmicrohttpd entry point");

static void curl_init(void)
{
	mi_curl_fn.curl_global_init(CURL_GLOBAL_DEFAULT);
}

static dl_lib dl_curl = {
	"an HTTP upstream server", "MCPIDX_LIBCURL", MI_CURL_SONAME, curl_names,
	sizeof(curl_names) / sizeof(*curl_names), &mi_curl_fn, PTHREAD_ONCE_INIT,
	curl_init, "",
};
static dl_lib dl_mhd = {
	"serve --http", "MCPIDX_LIBMICROHTTPD", MI_MHD_SONAME, mhd_names,
	sizeof(mhd_names) / sizeof(*mhd_names), &mi_mhd_fn, PTHREAD_ONCE_INIT,
	NULL, "",
};

static void dl_load(dl_lib *l)
{
	const char *file = getenv(l->env);
	void *h;

	if (!file || !*file)
		file = l->soname;
	/* RTLD_NODELETE: its threads and handlers may outlive any use here. */
	h = dlopen(file, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!h) {
		snprintf(l->why, sizeof(l->why), "%s needs %s, which cannot be loaded: %s",
			 l->what, file, dlerror());
		return;
	}
	for (size_t i = 0; i < l->n; i++) {
		void *f = dlsym(h, l->names[i]);
		if (!f) {
			snprintf(l->why, sizeof(l->why), "%s needs %s, which has no %s", l->what,
				 file, l->names[i]);
			return;
		}
		memcpy((char *)l->table + i * sizeof(f), &f, sizeof(f));
	}
	if (l->init)
		l->init();
}

static void dl_load_curl(void)
{
	dl_load(&dl_curl);
}

static void dl_load_mhd(void)
{
	dl_load(&dl_mhd);
}

static bool dl_ready(dl_lib *l, void (*load)(void), mi_buf *err)
{
	pthread_once(&l->once, load);
	if (!l->why[0])
		return true;
	if (err)
		mi_buf_addf(err, "%s", l->why);
	return false;
}

bool mi_dl_curl(mi_buf *err)
{
	return dl_ready(&dl_curl, dl_load_curl, err);
}

bool mi_dl_mhd(mi_buf *err)
{
	return dl_ready(&dl_mhd, dl_load_mhd, err);
}
