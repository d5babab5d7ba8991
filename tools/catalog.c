/*
 * catalog.c - `mcpidx build --servers FILE`: connects to every upstream MCP
 * server of the servers file (in parallel), lists its tools and writes the
 * catalog into the index.  A server that fails is reported and skipped; the
 * tools stored for it before are kept.
 */
#include "tools.h"
#include "../mcp/mcp.h"
#include "../format/side.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FETCH_THREADS 8

typedef struct fetch {
	const mi_server_cfg *cfg;  /* the server */
	json_t *tools;             /* its tools/list, or NULL */
	char *protocol, *info, *instructions;
	mi_buf err;                /* why it failed */
	double seconds;
	size_t nbad;               /* tools skipped for their names */
	mi_buf bad;                /* the first of those names, escaped */
} fetch;

typedef struct fetch_pool {
	fetch *f;
	size_t n;
	size_t next;               /* next job */
	pthread_mutex_t mu;
} fetch_pool;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fetch_one(fetch *f)
{
	mi_mcp_client *c = NULL;
	double t0 = now_s();
	if (mi_server_connect(f->cfg, NULL, NULL, &c, &f->err))
		goto out;
	if (mi_mcp_client_list_tools(c, 0, &f->tools, &f->err))
		goto out;
	f->protocol = mi_xstrdup(mi_mcp_client_version(c));
	f->info = mi_mcp_client_info(c) ? mi_xstrdup(mi_mcp_client_info(c)) : NULL;
	f->instructions = mi_mcp_client_instructions(c) ?
				  mi_xstrdup(mi_mcp_client_instructions(c)) : NULL;
out:
	mi_mcp_client_close(c);
	f->seconds = now_s() - t0;
}

static void *fetch_worker(void *arg)
{
	fetch_pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		size_t i = p->next++;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->n)
			break;
		fetch_one(&p->f[i]);
	}
	return NULL;
}

static char *dump(json_t *v)
{
	return v && !json_is_null(v) ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
}

static const char *str(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

#define NAME_MAX_LEN 128   /* MCP: a tool name is [A-Za-z0-9_.-]{1,128} */
#define BAD_SHOWN 5        /* skipped names listed per server */

/* A tool name outside MCP's grammar could carry newlines, bidi controls or
 * markup into every listing (and a '/' would blur server/tool). */
static bool name_ok(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (n == NAME_MAX_LEN || !(isalnum((unsigned char)s[n]) || s[n] == '_' ||
					  s[n] == '.' || s[n] == '-'))
			return false;
	return n > 0;
}

/* Remembers a skipped name for the report: printable ASCII, the rest as
 * \xNN, cut at 40 bytes. */
static void note_bad(fetch *f, const char *s)
{
	if (f->nbad++ >= BAD_SHOWN)
		return;
	mi_buf_adds(&f->bad, f->bad.len ? ", \"" : "\"");
	for (size_t i = 0; s[i] && i < 40; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch > 0x20 && ch < 0x7f && ch != '"' && ch != '\\')
			mi_buf_addc(&f->bad, (char)ch);
		else
			mi_buf_addf(&f->bad, "\\x%02x", ch);
	}
	mi_buf_adds(&f->bad, strlen(s) > 40 ? "...\"" : "\"");
}

/* Owned strings of one converted tool. */
typedef struct conv {
	char *in, *out, *annot, *icons;
	const char **aliases;
} conv;

static bool only_has(char *const *only, const char *name)
{
	if (!only || !only[0])
		return true;
	for (size_t i = 0; only[i]; i++)
		if (!strcmp(only[i], name))
			return true;
	return false;
}

int mi_catalog_build(const char *servers_path, const char *index_dir, char *const *only,
		     bool offline, bool json, bool quiet)
{
	mi_servers sv;
	mi_buf err = {0};
	fetch_pool pool = {0};
	mi_catalog_server *cs = NULL;
	mi_catalog_tool **ct = NULL;
	conv **cv = NULL;
	size_t ncs = 0;
	mi_catalog_stats st;
	int rc, status = 0;
	pthread_t th[FETCH_THREADS];
	int nth = 0;

	if ((rc = mi_servers_load(servers_path, &sv, &err))) {
		fprintf(stderr, "mcpidx build: %s\n", mi_buf_str(&err));
		mi_buf_release(&err);
		return 1;
	}
	for (size_t i = 0; only && only[i]; i++)
		if (!mi_servers_find(&sv, only[i], strlen(only[i]))) {
			fprintf(stderr, "mcpidx build: --only %s: no such server in %s\n", only[i], sv.path);
			status = 2;
			goto out;
		}
	pool.f = mi_xcalloc(sv.n + 1, sizeof(*pool.f));
	pthread_mutex_init(&pool.mu, NULL);
	for (size_t i = 0; i < sv.n && !offline; i++) {
		if (sv.v[i].disabled || !only_has(only, sv.v[i].name))
			continue;
		pool.f[pool.n++].cfg = &sv.v[i];
	}
	for (nth = 0; nth < FETCH_THREADS && (size_t)nth < pool.n; nth++)
		if (pthread_create(&th[nth], NULL, fetch_worker, &pool))
			break;
	if (!nth && pool.n)
		fetch_worker(&pool);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);

	cs = mi_xcalloc(pool.n + 1, sizeof(*cs));
	ct = mi_xcalloc(pool.n + 1, sizeof(*ct));
	cv = mi_xcalloc(pool.n + 1, sizeof(*cv));
	for (size_t i = 0; i < pool.n; i++) {
		fetch *f = &pool.f[i];
		mi_catalog_server *s = &cs[ncs++];
		s->name = f->cfg->name;
		s->transport = !f->cfg->url ? "stdio" : f->cfg->sse ? "sse" : "http";
		if (!f->tools) {
			s->error = mi_buf_str(&f->err);
			continue;
		}
		s->protocol = f->protocol;
		s->info = f->info;
		s->instructions = f->instructions;
		size_t nt = json_array_size(f->tools), k = 0, j;
		json_t *t;
		ct[i] = mi_xcalloc(nt + 1, sizeof(**ct));
		cv[i] = mi_xcalloc(nt + 1, sizeof(**cv));
		json_array_foreach(f->tools, j, t) {
			const char *name = str(t, "name");
			json_t *al;
			if (!name || !*name || !mi_server_cfg_allows(f->cfg, name))
				continue;
			if (!name_ok(name)) {
				note_bad(f, name);
				continue;
			}
			mi_catalog_tool *o = &ct[i][k];
			conv *c = &cv[i][k];
			k++;
			o->name = name;
			o->title = str(t, "title");
			if (!o->title && json_is_object(json_object_get(t, "annotations")))
				o->title = str(json_object_get(t, "annotations"), "title");
			o->description = str(t, "description");
			o->input_schema = c->in = dump(json_object_get(t, "inputSchema"));
			o->output_schema = c->out = dump(json_object_get(t, "outputSchema"));
			o->annotations = c->annot = dump(json_object_get(t, "annotations"));
			o->icons = c->icons = dump(json_object_get(t, "icons"));
			if (mi_server_cfg_sensitive(f->cfg, name))
				o->flags |= MI_TOOLF_SENSITIVE;
			al = json_object_get(f->cfg->aliases, name);
			if (json_is_array(al)) {
				size_t a, na = 0;
				json_t *x;
				c->aliases = mi_xcalloc(json_array_size(al) + 1, sizeof(char *));
				json_array_foreach(al, a, x)
					if (json_is_string(x))
						c->aliases[na++] = json_string_value(x);
				o->aliases = c->aliases;
				o->naliases = na;
			}
		}
		s->tools = ct[i];
		s->ntools = k;
	}
	{
		/* Aliases the host's model stored beside the index join the catalog
		 * while they are pinned to the tool as it is now. */
		char *sdir = mi_side_locate(index_dir, NULL);
		mi_side *side = NULL;
		if (sdir)
			mi_side_open(sdir, 0, &side);
		mi_catalog_opts co = {
			.out_dir = index_dir,
			.keep_others = offline || (only && only[0]),
			.servers_file = sv.path,
			.aliases = side ? mi_meta_side_aliases : NULL,
			.aliases_ctx = side,
		};
		mi_buf_reset(&err);
		rc = mi_catalog_write(&co, cs, ncs, &st, &err);
		mi_side_close(side);
		free(sdir);
		if (rc) {
			fprintf(stderr, "mcpidx build: %s\n", mi_buf_str(&err));
			status = 1;
			goto out;
		}
	}
	{
		/* Trust on first use: new tools are pinned; a changed pin is
		 * reported and the tool stays quarantined until approved. */
		mi_buf rep = {0};
		mi_buf_reset(&err);
		if (mi_meta_pin(index_dir, NULL, NULL, 0, false, &rep, &err))
			fprintf(stderr, "mcpidx build: %s\n", mi_buf_str(&err));
		for (const char *p = rep.buf; p && *p;) {
			const char *e = strchr(p, '\n');
			size_t l = e ? (size_t)(e - p) : strlen(p);
			if (!strncmp(p, "quarantined:", 12))
				fprintf(stderr, "mcpidx build: %.*s\n", (int)l, p);
			p += l + (e ? 1 : 0);
		}
		mi_buf_release(&rep);
	}
	for (size_t i = 0; i < pool.n; i++) {
		fetch *f = &pool.f[i];
		if (!f->tools) {
			fprintf(stderr, "mcpidx build: server '%s' skipped: %s\n", f->cfg->name,
				mi_buf_str(&f->err));
			continue;
		}
		if (f->nbad)
			fprintf(stderr, "mcpidx build: server '%s': %zu tool%s skipped, %s name "
				"outside MCP's [A-Za-z0-9_.-]{1,128}: %s%s\n", f->cfg->name, f->nbad,
				f->nbad == 1 ? "" : "s", f->nbad == 1 ? "its" : "their",
				mi_buf_str(&f->bad), f->nbad > BAD_SHOWN ? ", ..." : "");
	}
	if (json) {
		mi_buf j = {0};
		mi_buf_addf(&j, "{\"servers\":%zu,\"tools\":%zu,\"failed\":%zu,\"kept\":%zu,"
			    "\"aliased\":%zu,\"write_seconds\":%.3f,\"fetched\":[",
			    st.servers, st.tools, st.failed, st.kept, st.aliases, st.write_seconds);
		for (size_t i = 0; i < pool.n; i++) {
			fetch *f = &pool.f[i];
			mi_buf_addf(&j, "%s{\"name\":", i ? "," : "");
			mi_buf_add_json_str(&j, f->cfg->name, strlen(f->cfg->name));
			mi_buf_addf(&j, ",\"tools\":%zu,\"seconds\":%.3f,\"protocol\":",
				    f->tools ? cs[i].ntools : 0, f->seconds);
			mi_buf_add_json_str(&j, f->protocol ? f->protocol : "",
					    f->protocol ? strlen(f->protocol) : 0);
			mi_buf_adds(&j, ",\"error\":");
			mi_buf_add_json_str(&j, f->tools ? "" : mi_buf_str(&f->err),
					    f->tools ? 0 : f->err.len);
			mi_buf_addf(&j, ",\"bad_names\":%zu", f->nbad);
			mi_buf_addc(&j, '}');
		}
		mi_buf_adds(&j, "]}");
		printf("%s\n", j.buf);
		mi_buf_release(&j);
	} else if (!quiet) {
		printf("tools: %zu from %zu servers", st.tools, st.servers);
		if (st.failed)
			printf(" (%zu failed, %zu tools kept from before)", st.failed, st.kept);
		printf(" in %.2fs\n", st.write_seconds);
		for (size_t i = 0; i < pool.n; i++) {
			fetch *f = &pool.f[i];
			if (f->tools)
				printf("  %-20s %4zu tools  %s  %.2fs\n", f->cfg->name, cs[i].ntools,
				       f->protocol, f->seconds);
		}
	}
out:
	for (size_t i = 0; i < pool.n; i++) {
		fetch *f = &pool.f[i];
		size_t nt = f->tools ? json_array_size(f->tools) : 0;
		for (size_t k = 0; cv && cv[i] && k < nt; k++) {
			free(cv[i][k].in);
			free(cv[i][k].out);
			free(cv[i][k].annot);
			free(cv[i][k].icons);
			free(cv[i][k].aliases);
		}
		if (cv)
			free(cv[i]);
		if (ct)
			free(ct[i]);
		json_decref(f->tools);
		free(f->protocol);
		free(f->info);
		free(f->instructions);
		mi_buf_release(&f->err);
		mi_buf_release(&f->bad);
	}
	free(cv);
	free(ct);
	free(cs);
	free(pool.f);
	if (pool.f || pool.n)
		pthread_mutex_destroy(&pool.mu);
	mi_servers_release(&sv);
	mi_buf_release(&err);
	return status;
}
