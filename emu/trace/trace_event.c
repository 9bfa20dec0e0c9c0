/* SPDX-License-Identifier: MIT */
/*
 * emu/trace/trace_event.c -- an event a fault rule raised, as one trace
 * line (text or JSON), beside the command lines.
 */
#include <errno.h>
#include <stdio.h>

#include <json-c/json.h>

#include "emu/trace/trace_fmt.h"
#include "emu/trace/trace_int.h"

static void trace_text_event(struct trace_buf *b, const struct emu_trace_event *e)
{
	if (e->dev)
		trace_buf_printf(b, "%s ", e->dev);
	if (e->seq)
		trace_buf_printf(b, "#%llu ", (unsigned long long)e->seq);
	trace_buf_printf(b, "EVENT %s", e->action);
	if (e->port)
		trace_buf_printf(b, " port=%u", e->port);
	if (e->target_key)
		trace_buf_printf(b, " %s=0x%x", e->target_key, e->target);
	if (e->after)
		trace_buf_printf(b, " after %s", e->after);
	trace_buf_printf(b, " injected(rule %d: %s)\n", e->rule,
			 e->text ? e->text : "");
}

struct json_object *trace_json_head(struct trace_buf *b, uint64_t seq,
				    const char *dev, long pid)
{
	struct json_object *o = json_object_new_object();

	if (!o) {
		b->oom = true;
		return NULL;
	}
	if (seq)
		json_object_object_add(o, "seq", json_object_new_uint64(seq));
	if (dev)
		json_object_object_add(o, "dev", json_object_new_string(dev));
	if (pid)
		json_object_object_add(o, "pid", json_object_new_int64(pid));
	return o;
}

void trace_json_emit(struct trace_buf *b, struct json_object *o)
{
	const char *s;
	size_t n;

	s = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE, &n);
	if (s)
		trace_buf_putn(b, s, n);
	else
		b->oom = true;
	json_object_put(o);
	trace_buf_puts(b, "\n");
}

static void trace_json_event(struct trace_buf *b, const struct emu_trace_event *e)
{
	struct json_object *o = trace_json_head(b, e->seq, e->dev, e->pid);

	if (!o)
		return;
	json_object_object_add(o, "event", json_object_new_string(e->action));
	if (e->port)
		json_object_object_add(o, "port", json_object_new_int(e->port));
	if (e->target_key)
		json_object_object_add(o, e->target_key,
				       json_object_new_int64(e->target));
	if (e->after)
		json_object_object_add(o, "after", json_object_new_string(e->after));
	json_object_object_add(o, "rule", json_object_new_int(e->rule));
	json_object_object_add(o, "text",
			       json_object_new_string(e->text ? e->text : ""));
	trace_json_emit(b, o);
}

char *emu_trace_format_event(const struct emu_trace_event *e,
			     enum emu_trace_format fmt, size_t *len)
{
	struct trace_buf b = { 0 };

	if (!e || !e->action || (fmt != EMU_TRACE_TEXT && fmt != EMU_TRACE_JSON)) {
		errno = EINVAL;
		return NULL;
	}
	if (fmt == EMU_TRACE_JSON)
		trace_json_event(&b, e);
	else
		trace_text_event(&b, e);
	return trace_buf_take(&b, len);
}
