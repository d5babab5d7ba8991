/*
 * compile_log.c - a finished compile as read_task_log shows it: groups collapsed
 * to counts (`V* INFO x18`), or one group's messages with file:line and
 * the compiler's hint; and the log as JSON, which is also how the side
 * store keeps it.
 */
#include "compile_int.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define MI_SHOW_PER_GROUP 50   /* messages written per expanded group */
#define MI_JSON_MSGS 1000      /* messages kept in the JSON */

void mi_compile_log_release(mi_compile_log *l)
{
	free(l->task_id);
	free(l->target);
	free(l->command);
	mi_compile_msgs_free(l->msgs, l->n);
	memset(l, 0, sizeof *l);
}

static const char *status_of(const mi_compile_log *l)
{
	if (l->cancelled)
		return "cancelled";
	if (l->timed_out)
		return "timed_out";
	return l->exit_code == 0 ? "succeeded" : "failed";
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* The log as a jansson object (messages: the first max of them). */
static json_t *log_obj(const mi_compile_log *l, size_t max)
{
	size_t counts[MI_GROUP__COUNT] = {0};
	json_t *msgs = json_array(), *o;
	for (size_t i = 0; i < l->n; i++) {
		const mi_compile_msg *m = &l->msgs[i];
		counts[m->group]++;
		if (json_array_size(msgs) >= max)
			continue;
		o = json_pack("{s:s,s:o,s:i,s:i,s:s}", "group", mi_compile_group_name(m->group),
			      "path", jstr(m->path), "line", (json_int_t)m->line,
			      "column", (json_int_t)m->col, "text", m->text ? m->text : "");
		if (m->hint)
			json_object_set_new(o, "hint", json_string(m->hint));
		if (m->code)
			json_object_set_new(o, "code", json_string(m->code));
		json_array_append_new(msgs, o);
	}
	return json_pack("{s:o,s:o,s:o,s:s,s:i,s:f,s:I,s:I,s:{s:I,s:I,s:I},s:o}",
			 "task_id", jstr(l->task_id), "target", jstr(l->target),
			 "command", jstr(l->command), "status", status_of(l),
			 "exit_code", l->exit_code, "seconds", l->seconds,
			 "finished_ms", (json_int_t)l->finished_ms, "dropped", (json_int_t)l->dropped,
			 "counts", "INFO", (json_int_t)counts[MI_GROUP_INFO],
			 "WARN", (json_int_t)counts[MI_GROUP_WARN],
			 "ERROR", (json_int_t)counts[MI_GROUP_ERROR], "messages", msgs);
}

void mi_compile_log_json(const mi_compile_log *l, mi_buf *out)
{
	json_t *o = log_obj(l, MI_JSON_MSGS);
	char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
	if (s)
		mi_buf_adds(out, s);
	free(s);
	json_decref(o);
}

static char *dup_or_null(json_t *v)
{
	return json_is_string(v) ? mi_xstrdup(json_string_value(v)) : NULL;
}

int mi_compile_log_parse(const char *json, size_t len, mi_compile_log *l)
{
	json_t *o = json_loadb(json, len, 0, NULL), *msgs, *v;
	size_t i;
	memset(l, 0, sizeof *l);
	if (!json_is_object(o)) {
		json_decref(o);
		return MI_ERR_CORRUPT;
	}
	l->task_id = dup_or_null(json_object_get(o, "task_id"));
	l->target = dup_or_null(json_object_get(o, "target"));
	l->command = dup_or_null(json_object_get(o, "command"));
	l->exit_code = (int)json_integer_value(json_object_get(o, "exit_code"));
	l->seconds = json_number_value(json_object_get(o, "seconds"));
	l->finished_ms = json_integer_value(json_object_get(o, "finished_ms"));
	l->dropped = (size_t)json_integer_value(json_object_get(o, "dropped"));
	l->timed_out = !strcmp(json_string_value(json_object_get(o, "status")) ?: "", "timed_out");
	l->cancelled = !strcmp(json_string_value(json_object_get(o, "status")) ?: "", "cancelled");
	msgs = json_object_get(o, "messages");
	l->msgs = mi_xcalloc(json_array_size(msgs) + 1, sizeof *l->msgs);
	json_array_foreach(msgs, i, v) {
		mi_compile_msg *m = &l->msgs[l->n++];
		int g = mi_compile_group_find(json_string_value(json_object_get(v, "group")));
		m->group = g < 0 ? MI_GROUP_INFO : g;
		m->path = dup_or_null(json_object_get(v, "path"));
		m->line = (uint32_t)json_integer_value(json_object_get(v, "line"));
		m->col = (uint32_t)json_integer_value(json_object_get(v, "column"));
		m->text = dup_or_null(json_object_get(v, "text"));
		m->hint = dup_or_null(json_object_get(v, "hint"));
		m->code = dup_or_null(json_object_get(v, "code"));
		if (!m->text)
			m->text = mi_xstrdup("");
	}
	json_decref(o);
	return 0;
}

/* "V* task: make app (failed: exit 2, 0.4s)" */
static void task_line(const mi_compile_log *l, mi_buf *t)
{
	mi_buf_addf(t, "V* task: %s (", l->command ? l->command : l->target);
	if (l->cancelled)
		mi_buf_adds(t, "cancelled");
	else if (l->timed_out)
		mi_buf_adds(t, "timed out");
	else if (l->exit_code)
		mi_buf_addf(t, "failed: exit %d", l->exit_code);
	else
		mi_buf_adds(t, "succeeded");
	mi_buf_addf(t, ", %.1fs)\n", l->seconds);
	if (l->dropped)
		mi_buf_addf(t, "V* output over the cap: %zu bytes dropped\n", l->dropped);
}

static void put_msg(const mi_compile_msg *m, mi_buf *t)
{
	mi_buf_addf(t, "V* %s", mi_compile_group_name(m->group));
	if (m->group == MI_GROUP_INFO) {
		mi_buf_addf(t, " %s\n", m->text);
		return;
	}
	if (m->path) {
		mi_buf_addf(t, " %s", m->path);
		if (m->line)
			mi_buf_addf(t, ":%u", m->line);
		if (m->line && m->col)
			mi_buf_addf(t, ":%u", m->col);
	}
	if (m->code)
		mi_buf_addf(t, " [%s]", m->code);
	mi_buf_addf(t, "\n    %s\n", m->text);
	if (m->hint)
		mi_buf_addf(t, "    hint: %s\n", m->hint);
}

void mi_compile_log_render(const mi_compile_log *l, int group, bool expand, mi_out *out)
{
	size_t counts[MI_GROUP__COUNT] = {0};
	mi_buf *t = &out->text;
	json_t *o;
	char *js;

	mi_out_reset(out);
	for (size_t i = 0; i < l->n; i++)
		counts[l->msgs[i].group]++;
	task_line(l, t);
	for (int g = 0; g < MI_GROUP__COUNT; g++) {
		size_t shown = 0;
		bool open;
		if (group >= 0 && g != group)
			continue;
		/* expanded without a group: the warnings and errors */
		open = expand && (group >= 0 || g != MI_GROUP_INFO);
		if (!open || !counts[g]) {
			mi_buf_addf(t, "V* %s x%zu\n", mi_compile_group_name(g), counts[g]);
			continue;
		}
		for (size_t i = 0; i < l->n; i++) {
			if (l->msgs[i].group != g)
				continue;
			if (shown++ < MI_SHOW_PER_GROUP)
				put_msg(&l->msgs[i], t);
		}
		if (shown > MI_SHOW_PER_GROUP)
			mi_buf_addf(t, "V* %s +%zu more (structuredContent.messages lists them)\n",
				    mi_compile_group_name(g), shown - MI_SHOW_PER_GROUP);
	}
	o = log_obj(l, MI_JSON_MSGS);
	json_object_set_new(o, "text", json_string(mi_buf_str(t)));
	js = json_dumps(o, JSON_COMPACT);
	mi_buf_adds(&out->json, js ? js : "{}");
	free(js);
	json_decref(o);
}
