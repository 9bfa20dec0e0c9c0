/* SPDX-License-Identifier: MIT */
/*
 * emu/trace/trace_int.h -- inside emu/trace only.
 */
#ifndef MLX5EMU_EMU_TRACE_TRACE_INT_H
#define MLX5EMU_EMU_TRACE_TRACE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prm/prm_fields.h"

/* The member of union u that command (opcode, op_mod) uses, or -1: all. */
int trace_union_member(const struct prm_struct_desc *u, uint16_t opcode,
		       uint16_t op_mod);

/* A growing string; after a failed allocation every put is a no-op and
 * oom stays set. */
struct trace_buf {
	char *p;
	size_t len, cap;
	bool oom;
};

void trace_buf_putn(struct trace_buf *b, const char *s, size_t n);
void trace_buf_puts(struct trace_buf *b, const char *s);
void trace_buf_printf(struct trace_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Takes the string (NUL-terminated) out of b; NULL (errno ENOMEM) if an
 * allocation failed. */
char *trace_buf_take(struct trace_buf *b, size_t *len);

/* A JSON line's object with what every record starts with (seq, dev,
 * pid, each when given), or NULL with b->oom set; and the object as one
 * line into b (the object is put). */
struct json_object;
struct json_object *trace_json_head(struct trace_buf *b, uint64_t seq,
				    const char *dev, long pid);
void trace_json_emit(struct trace_buf *b, struct json_object *o);

#endif /* MLX5EMU_EMU_TRACE_TRACE_INT_H */
