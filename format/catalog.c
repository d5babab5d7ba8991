/*
 * catalog.c - the records of the tool catalog (servers, tools, tool
 * postings), the pin hash of a tool, and what is derived from a tool's
 * inputSchema (its simplified signature, its parameter text).
 *
 * Records are msgpack arrays of fixed order decoded without copying: a
 * decoded string points into the value.  docs/format-catalog.md is the long
 * form.
 */
#include "format.h"
#include "mp_read.h"

#include <jansson.h>
#include <string.h>

/*
 * Tools are short documents whose words matter unequally: the name and the
 * title say what the tool does, the description says it at length, the
 * parameters say what it works on, the server says where.  Weights were
 * tuned on the tuning halves of bench/tools' three query sets (docs/format-catalog.md).
 */
const char *const mi_tool_field_names[MI_TF__COUNT] = {
	"name", "title", "desc", "param", "pdoc", "server", "alias", "initials",
};

const mi_tool_bm25 mi_tool_bm25_params = {
	.k1 = 2.0f,
	/* title: the title and the description's first sentence (its lead) */
	/*        name  title desc  param pdoc  server alias initials */
	.w = {    1.5f, 3.0f, 1.5f, 2.0f, 0.8f, 2.0f, 4.0f, 4.0f },
	.b = {    0.75f, 0.3f, 0.75f, 0.9f, 0.6f, 0.75f, 0.5f, 0.3f },
	/* A task that says most of a tool's name ("list the commits" and
	 * list_commits) names that tool, more surely than one rare word of its
	 * name does; the share says it whatever the name's length. */
	.name_cover = 0.5f,
	.server_slot = true,
	.diverse = 0.1f,
};

/* ---- msgpack, the few shapes these records use ------------------------------- */

static void mp_arr(mi_buf *b, unsigned n)
{
	uint8_t c = (uint8_t)(0x90 | n);
	mi_buf_add(b, &c, 1);
}

static void mp_uint(mi_buf *b, uint64_t v)
{
	uint8_t t[9];
	if (v < 0x80) {
		t[0] = (uint8_t)v;
		mi_buf_add(b, t, 1);
	} else if (v <= 0xffffffffu) {
		t[0] = 0xce;
		mi_be32(t + 1, (uint32_t)v);
		mi_buf_add(b, t, 5);
	} else {
		t[0] = 0xcf;
		mi_be32(t + 1, (uint32_t)(v >> 32));
		mi_be32(t + 5, (uint32_t)v);
		mi_buf_add(b, t, 9);
	}
}

static void mp_raw(mi_buf *b, uint8_t small, uint8_t big, const void *s, size_t n)
{
	uint8_t t[5];
	if (small && n < 32) {
		t[0] = (uint8_t)(small | n);
		mi_buf_add(b, t, 1);
	} else {
		t[0] = big;
		mi_be32(t + 1, (uint32_t)n);
		mi_buf_add(b, t, 5);
	}
	if (n)
		mi_buf_add(b, s, n);
}

static void mp_str(mi_buf *b, const char *s, size_t n)
{
	mp_raw(b, 0xa0, 0xdb, s ? s : "", s ? n : 0);
}

static void mp_bin(mi_buf *b, const void *p, size_t n)
{
	mp_raw(b, 0, 0xc6, p, n);
}

/* A record's whole number (a negative one is bad). */
static uint64_t rd_uint(mp_rd *r)
{
	int64_t v = rd_int(r);
	if (v < 0)
		r->bad = true;
	return v < 0 ? 0 : (uint64_t)v;
}

/* A record's str (str false: its bin), in place: "" when bad. */
static const char *rd_text(mp_rd *r, bool str, uint32_t *len)
{
	size_t n;
	const uint8_t *p = rd_raw(r, !str, &n);
	if (!p || n > UINT32_MAX) {
		r->bad = true;
		*len = 0;
		return "";
	}
	*len = (uint32_t)n;
	return (const char *)p;
}

/* ---- tool and server records ----------------------------------------------- */

#define TOOL_FIELDS 14
#define SERVER_FIELDS 8

void mi_tool_encode(const mi_tool_rec *r, mi_buf *out)
{
	mp_arr(out, TOOL_FIELDS);
	mp_uint(out, r->id);
	mp_uint(out, r->flags);
	mp_bin(out, r->hash, 16);
	mp_str(out, r->server, r->server_len);
	mp_str(out, r->name, r->name_len);
	mp_str(out, r->title, r->title_len);
	mp_str(out, r->desc, r->desc_len);
	mp_str(out, r->input, r->input_len);
	mp_str(out, r->output, r->output_len);
	mp_str(out, r->annot, r->annot_len);
	mp_str(out, r->icons, r->icons_len);
	mp_str(out, r->sig, r->sig_len);
	mp_str(out, r->aliases, r->aliases_len);
	mp_uint(out, 0); /* reserved */
}

int mi_tool_decode(const void *data, size_t len, mi_tool_rec *r)
{
	mp_rd rd = {data, (const uint8_t *)data + len, false};
	uint32_t hl;
	const char *h;
	memset(r, 0, sizeof(*r));
	if (rd_array(&rd) != TOOL_FIELDS)
		return MI_ERR_CORRUPT;
	r->id = (uint32_t)rd_uint(&rd);
	r->flags = (uint32_t)rd_uint(&rd);
	h = rd_text(&rd, false, &hl);
	if (hl == 16)
		memcpy(r->hash, h, 16);
	else
		rd.bad = true;
	r->server = rd_text(&rd, true, &r->server_len);
	r->name = rd_text(&rd, true, &r->name_len);
	r->title = rd_text(&rd, true, &r->title_len);
	r->desc = rd_text(&rd, true, &r->desc_len);
	r->input = rd_text(&rd, true, &r->input_len);
	r->output = rd_text(&rd, true, &r->output_len);
	r->annot = rd_text(&rd, true, &r->annot_len);
	r->icons = rd_text(&rd, true, &r->icons_len);
	r->sig = rd_text(&rd, true, &r->sig_len);
	r->aliases = rd_text(&rd, true, &r->aliases_len);
	rd_uint(&rd);
	return rd.bad ? MI_ERR_CORRUPT : 0;
}

void mi_server_encode(const mi_server_rec *r, mi_buf *out)
{
	mp_arr(out, SERVER_FIELDS);
	mp_str(out, r->name, r->name_len);
	mp_str(out, r->transport, r->transport_len);
	mp_str(out, r->protocol, r->protocol_len);
	mp_str(out, r->info, r->info_len);
	mp_str(out, r->instructions, r->instructions_len);
	mp_str(out, r->error, r->error_len);
	mp_uint(out, r->ntools);
	mp_uint(out, (uint64_t)(r->fetched < 0 ? 0 : r->fetched));
}

int mi_server_decode(const void *data, size_t len, mi_server_rec *r)
{
	mp_rd rd = {data, (const uint8_t *)data + len, false};
	memset(r, 0, sizeof(*r));
	if (rd_array(&rd) != SERVER_FIELDS)
		return MI_ERR_CORRUPT;
	r->name = rd_text(&rd, true, &r->name_len);
	r->transport = rd_text(&rd, true, &r->transport_len);
	r->protocol = rd_text(&rd, true, &r->protocol_len);
	r->info = rd_text(&rd, true, &r->info_len);
	r->instructions = rd_text(&rd, true, &r->instructions_len);
	r->error = rd_text(&rd, true, &r->error_len);
	r->ntools = (uint32_t)rd_uint(&rd);
	r->fetched = (int64_t)rd_uint(&rd);
	return rd.bad ? MI_ERR_CORRUPT : 0;
}

/* ---- the pin --------------------------------------------------------------- */

/* Canonical JSON of text: sorted keys, compact; the text itself when it
 * does not parse (so a change is still a change). */
static void canon_json(const char *text, mi_buf *out)
{
	json_t *v;
	char *s;
	if (!text || !*text)
		return;
	v = json_loads(text, JSON_DECODE_ANY, NULL);
	s = v ? json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	mi_buf_adds(out, s ? s : text);
	free(s);
	json_decref(v);
}

void mi_tool_hash(const char *name, const char *desc, const char *input,
		  const char *output, const char *annot, uint8_t out[16])
{
	mi_buf b = {0};
	mi_buf_adds(&b, "mcpidx-tool-1");
	mi_buf_addc(&b, 0);
	mi_buf_adds(&b, name ? name : "");
	mi_buf_addc(&b, 0);
	mi_buf_adds(&b, desc ? desc : "");
	mi_buf_addc(&b, 0);
	canon_json(input, &b);
	mi_buf_addc(&b, 0);
	canon_json(output, &b);
	mi_buf_addc(&b, 0);
	canon_json(annot, &b);
	mi_hash128(b.buf, b.len, out);
	mi_buf_release(&b);
}

/* ---- what a schema says ------------------------------------------------------ */

#define SCHEMA_DEPTH 4   /* nested properties read for parameter text */
#define SIG_ENUMS 4      /* enum values shown in a signature */

static void type_of(json_t *s, mi_buf *out, int depth);

#define SIG_WORD 64      /* bytes of a property name or type shown */

/* A server's word in a signature (a property name, a type, an enum value):
 * sanitized like descriptions, on one line, cut. */
static void sig_word(mi_buf *out, const char *s, size_t len)
{
	size_t at = out->len;
	mi_sanitize(s, len, SIG_WORD, out);
	for (size_t i = at; i < out->len; i++)
		if (out->buf[i] == '\n' || out->buf[i] == '\t')
			out->buf[i] = ' ';
}

/* One alternative list (anyOf / oneOf / type array) as a|b. */
static void type_alts(json_t *arr, mi_buf *out, int depth)
{
	size_t i, n = 0;
	json_t *v;
	json_array_foreach(arr, i, v) {
		json_t *t = json_is_object(v) ? json_object_get(v, "type") : v;
		if (json_is_string(t) && !strcmp(json_string_value(t), "null"))
			continue;
		if (n++)
			mi_buf_addc(out, '|');
		if (json_is_string(v))
			sig_word(out, json_string_value(v), json_string_length(v));
		else
			type_of(v, out, depth + 1);
	}
	if (!n)
		mi_buf_adds(out, "any");
}

static void type_of(json_t *s, mi_buf *out, int depth)
{
	json_t *t, *e;
	if (!json_is_object(s) || depth > SCHEMA_DEPTH) {
		mi_buf_adds(out, "any");
		return;
	}
	if ((e = json_object_get(s, "enum")) && json_is_array(e) && json_array_size(e)) {
		size_t i;
		json_t *v;
		json_array_foreach(e, i, v) {
			if (i == SIG_ENUMS) {
				mi_buf_adds(out, "|...");
				break;
			}
			if (i)
				mi_buf_addc(out, '|');
			if (json_is_string(v)) {
				mi_buf w = {0};
				sig_word(&w, json_string_value(v), json_string_length(v));
				mi_buf_add_json_str(out, mi_buf_str(&w), w.len);
				mi_buf_release(&w);
			} else {
				char *d = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT |
						     JSON_ENSURE_ASCII);
				mi_buf_adds(out, d ? d : "?");
				free(d);
			}
		}
		return;
	}
	if ((e = json_object_get(s, "const"))) {
		if (json_is_string(e)) {
			mi_buf w = {0};
			sig_word(&w, json_string_value(e), json_string_length(e));
			mi_buf_add_json_str(out, mi_buf_str(&w), w.len);
			mi_buf_release(&w);
		} else {
			char *d = json_dumps(e, JSON_ENCODE_ANY | JSON_COMPACT | JSON_ENSURE_ASCII);
			mi_buf_adds(out, d ? d : "?");
			free(d);
		}
		return;
	}
	t = json_object_get(s, "type");
	if (json_is_array(t)) {
		type_alts(t, out, depth);
		return;
	}
	if (!json_is_string(t)) {
		if ((e = json_object_get(s, "anyOf")) || (e = json_object_get(s, "oneOf")))
			if (json_is_array(e)) {
				type_alts(e, out, depth);
				return;
			}
		mi_buf_adds(out, json_object_get(s, "properties") ? "object" : "any");
		return;
	}
	if (!strcmp(json_string_value(t), "array")) {
		json_t *items = json_object_get(s, "items");
		size_t at = out->len;
		type_of(items, out, depth + 1);
		if (strchr(mi_buf_str(out) + at, '|')) {
			/* (a|b)[] */
			mi_buf tmp = {0};
			mi_buf_add(&tmp, out->buf + at, out->len - at);
			out->len = at;
			out->buf[at] = 0;
			mi_buf_addf(out, "(%s)", tmp.buf);
			mi_buf_release(&tmp);
		}
		mi_buf_adds(out, "[]");
		return;
	}
	sig_word(out, json_string_value(t), json_string_length(t));
}

static bool is_required(json_t *schema, const char *key)
{
	json_t *req = json_object_get(schema, "required"), *v;
	size_t i;
	json_array_foreach(req, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), key))
			return true;
	return false;
}

void mi_tool_signature(const char *input_json, mi_buf *out)
{
	json_t *s = input_json && *input_json ? json_loads(input_json, 0, NULL) : NULL;
	json_t *props = s ? json_object_get(s, "properties") : NULL;
	const char *key;
	json_t *v;
	int n = 0;
	mi_buf_addc(out, '(');
	if (json_is_object(props)) {
		json_object_foreach(props, key, v) {
			if (n++)
				mi_buf_adds(out, ", ");
			sig_word(out, key, strlen(key));
			if (!is_required(s, key))
				mi_buf_addc(out, '?');
			mi_buf_adds(out, ": ");
			type_of(v, out, 1);
		}
	}
	mi_buf_addc(out, ')');
	json_decref(s);
}

static void params_walk(json_t *schema, mi_buf *names, mi_buf *docs, int depth)
{
	json_t *props, *v, *d, *e;
	const char *key;
	if (!json_is_object(schema) || depth > SCHEMA_DEPTH)
		return;
	props = json_object_get(schema, "properties");
	json_object_foreach(props, key, v) {
		mi_buf_adds(names, key);
		mi_buf_addc(names, '\n');
		if (!json_is_object(v))
			continue;
		if (json_is_string(d = json_object_get(v, "description"))) {
			mi_buf_adds(docs, json_string_value(d));
			mi_buf_addc(docs, '\n');
		}
		if (json_is_string(d = json_object_get(v, "title"))) {
			mi_buf_adds(docs, json_string_value(d));
			mi_buf_addc(docs, '\n');
		}
		if (json_is_array(e = json_object_get(v, "enum"))) {
			size_t i;
			json_t *x;
			json_array_foreach(e, i, x)
				if (json_is_string(x)) {
					mi_buf_adds(docs, json_string_value(x));
					mi_buf_addc(docs, ' ');
				}
			mi_buf_addc(docs, '\n');
		}
		params_walk(v, names, docs, depth + 1);
		params_walk(json_object_get(v, "items"), names, docs, depth + 1);
	}
}

void mi_tool_params(const char *input_json, mi_buf *names, mi_buf *docs)
{
	json_t *s = input_json && *input_json ? json_loads(input_json, 0, NULL) : NULL;
	params_walk(s, names, docs, 0);
	json_decref(s);
}

void mi_tool_first_line(const char *s, size_t len, size_t max, mi_buf *out)
{
	size_t i = 0, end, cut;
	while (i < len && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r' ||
			   s[i] == '#'))
		i++;
	s += i;
	len -= i;
	for (end = 0; end < len; end++) {
		if (s[end] == '\n')
			break;
		if (s[end] == '.' && (end + 1 == len || s[end + 1] == ' ' || s[end + 1] == '\n')) {
			end++;
			break;
		}
	}
	if (end <= max) {
		mi_buf_add(out, s, end);
		return;
	}
	cut = max > 3 ? max - 3 : max;
	while (cut > 0 && s[cut] != ' ')
		cut--;
	if (!cut)
		cut = max > 3 ? max - 3 : max;
	/* never split a UTF-8 sequence */
	cut = mi_utf8_cut(s, cut);
	mi_buf_add(out, s, cut);
	mi_buf_adds(out, "...");
}

/* ---- tool postings ------------------------------------------------------------ */

void mi_tpost_put(mi_buf *out, uint32_t id_delta, unsigned mask,
		  const uint32_t *tf, const uint32_t *len)
{
	uint8_t t[10 + 1 + MI_TF__COUNT * 20];
	size_t n = mi_varint_put(t, id_delta);
	t[n++] = (uint8_t)mask;
	for (int f = 0; f < MI_TF__COUNT; f++) {
		if (!(mask & (1u << f)))
			continue;
		n += mi_varint_put(t + n, tf[f]);
		n += mi_varint_put(t + n, len[f]);
	}
	mi_buf_add(out, t, n);
}

bool mi_tpost_next(const uint8_t **p, const uint8_t *end, uint32_t *id_delta,
		   unsigned *mask, uint32_t *tf, uint32_t *len)
{
	uint64_t v, w;
	if (*p >= end || !mi_varint_get(p, end, &v) || *p >= end)
		return false;
	*id_delta = (uint32_t)v;
	*mask = *(*p)++;
	if (*mask >> MI_TF__COUNT)
		return false;
	for (int f = 0; f < MI_TF__COUNT; f++) {
		if (!(*mask & (1u << f))) {
			tf[f] = len[f] = 0;
			continue;
		}
		if (!mi_varint_get(p, end, &v) || !mi_varint_get(p, end, &w))
			return false;
		tf[f] = (uint32_t)v;
		len[f] = (uint32_t)w;
	}
	return true;
}
