/* SPDX-License-Identifier: MIT */
/*
 * emu/trace/trace_fmt.c -- mailboxes decoded through prm/'s field table, as
 * text (name=0x.. pairs, or a field a line) and as JSON.
 *
 * One walk over the layout serves every format: scalars, nested structs,
 * unions (the member the command selects, or all), fixed and flexible
 * arrays, and byte arrays (GIDs, PSIDs) as one hex string.  Fields past the
 * end of the mailbox are absent, as the firmware never sees them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "emu/trace/trace_fmt.h"
#include "emu/trace/trace_int.h"
#include "prm/prm_cmd.h"

/* ---- the growing string ---- */

static bool trace_buf_grow(struct trace_buf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->oom)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + more + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void trace_buf_putn(struct trace_buf *b, const char *s, size_t n)
{
	if (!trace_buf_grow(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void trace_buf_puts(struct trace_buf *b, const char *s)
{
	trace_buf_putn(b, s, strlen(s));
}

void trace_buf_printf(struct trace_buf *b, const char *fmt, ...)
{
	va_list ap;
	char small[128];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		trace_buf_putn(b, small, (size_t)n);
		return;
	}
	if (!trace_buf_grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *trace_buf_take(struct trace_buf *b, size_t *len)
{
	char *p;

	if (!b->oom && !b->p)
		trace_buf_grow(b, 0);
	if (b->oom) {
		free(b->p);
		b->p = NULL;
		errno = ENOMEM;
		return NULL;
	}
	b->p[b->len] = '\0';
	p = b->p;
	if (len)
		*len = b->len;
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

/* ---- the walk ---- */

struct trace_walk {
	struct trace_buf *b;
	const uint8_t *buf;
	uint64_t len_bits;
	bool le;		/* a PRM_STRUCT_LE layout (MANA/GDMA) */
	enum emu_trace_format fmt;
	bool elide;
	bool skip_header;
	uint16_t opcode, op_mod;
	unsigned int nitems;	/* text: fields written so far */
	char path[512];
};

/* The mailbox header: shown once, in front, not again among the fields. */
static bool trace_is_header(const struct prm_field_desc *fd)
{
	static const struct {
		const char *name;
		uint32_t off;
	} hdr[] = {
		{ "opcode", 0x0 }, { "uid", 0x10 }, { "op_mod", 0x30 },
		{ "status", 0x0 }, { "syndrome", 0x20 },
	};

	if (fd->type || fd->count)
		return false;
	for (size_t i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++)
		if (fd->bit_off == hdr[i].off && !strcmp(fd->name, hdr[i].name))
			return true;
	return false;
}

/* A MANA message's gdma_req_hdr / gdma_resp_hdr, in front of its fields. */
static bool trace_is_mana_header(const struct prm_field_desc *fd)
{
	return fd->type && !fd->count && !fd->bit_off && !strcmp(fd->name, "hdr");
}

static bool trace_is_bytes(const struct prm_field_desc *fd)
{
	return fd->count && !fd->type && fd->bit_width == 8;
}

/* Elements of an array present in the mailbox, and how many of a flexible
 * array are left out. */
static uint32_t trace_array_len(const struct trace_walk *w,
				const struct prm_field_desc *fd, uint64_t off,
				uint32_t *omitted)
{
	uint64_t avail = (w->len_bits - off) / fd->bit_width;
	uint32_t cnt = fd->count;

	*omitted = 0;
	if (cnt == PRM_COUNT_FLEX) {
		cnt = avail > UINT32_MAX ? UINT32_MAX : (uint32_t)avail;
		if (!trace_is_bytes(fd) && cnt > EMU_TRACE_MAX_FLEX) {
			*omitted = cnt - EMU_TRACE_MAX_FLEX;
			cnt = EMU_TRACE_MAX_FLEX;
		}
	} else if (cnt > avail) {
		cnt = (uint32_t)avail;
	}
	return cnt;
}

static void trace_hex_bytes(struct trace_buf *b, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	if (!trace_buf_grow(b, 2 * n))
		return;
	for (size_t i = 0; i < n; i++) {
		b->p[b->len++] = hex[p[i] >> 4];
		b->p[b->len++] = hex[p[i] & 15];
	}
	b->p[b->len] = '\0';
}

static bool trace_all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* ---- text: path=0x.. ---- */

static void text_item_start(struct trace_walk *w)
{
	if (w->fmt == EMU_TRACE_LINES)
		trace_buf_printf(w->b, "  %s = ", w->path);
	else
		trace_buf_printf(w->b, "%s%s=", w->nitems ? " " : "", w->path);
	w->nitems++;
}

static void text_item_end(struct trace_walk *w)
{
	if (w->fmt == EMU_TRACE_LINES)
		trace_buf_putn(w->b, "\n", 1);
}

static void text_struct(struct trace_walk *w, const struct prm_struct_desc *sd,
			uint64_t base, size_t plen, int depth);

/* Appends ".name" (or "name" at the top), or "[idx]" when name is NULL,
 * to the path; false if it does not fit. */
static bool trace_path_push(struct trace_walk *w, size_t plen,
			    const char *name, uint32_t idx)
{
	int n;

	if (name)
		n = snprintf(w->path + plen, sizeof(w->path) - plen, "%s%s",
			     plen ? "." : "", name);
	else
		n = snprintf(w->path + plen, sizeof(w->path) - plen, "[%u]",
			     idx);
	return n >= 0 && (size_t)n < sizeof(w->path) - plen;
}

static uint64_t trace_read(const struct trace_walk *w, uint64_t off,
			   uint32_t width)
{
	return w->le ? prm_field_read_le(w->buf, (uint32_t)off, width) :
		       prm_field_read(w->buf, (uint32_t)off, width);
}

static void text_scalar(struct trace_walk *w, const struct prm_field_desc *fd,
			uint64_t off)
{
	uint64_t v;

	if (off + fd->bit_width > w->len_bits || fd->bit_width > 64)
		return;
	v = trace_read(w, off, fd->bit_width);
	if (w->elide && !v)
		return;
	text_item_start(w);
	trace_buf_printf(w->b, "0x%" PRIx64, v);
	text_item_end(w);
}

static void text_field(struct trace_walk *w, const struct prm_field_desc *fd,
		       uint64_t off, size_t plen, int depth)
{
	uint32_t cnt, omitted;

	if (!fd->count) {
		if (fd->type)
			text_struct(w, fd->type, off, plen, depth + 1);
		else
			text_scalar(w, fd, off);
		return;
	}
	cnt = trace_array_len(w, fd, off, &omitted);
	if (trace_is_bytes(fd)) {
		const uint8_t *p = w->buf + off / 8;

		if (!cnt || (off & 7) || (w->elide && trace_all_zero(p, cnt)))
			return;
		text_item_start(w);
		trace_hex_bytes(w->b, p, cnt);
		text_item_end(w);
		return;
	}
	for (uint32_t i = 0; i < cnt; i++) {
		uint64_t eoff = off + (uint64_t)i * fd->bit_width;
		size_t n = strlen(w->path);

		if (!trace_path_push(w, n, NULL, i))
			break;
		if (fd->type)
			text_struct(w, fd->type, eoff, strlen(w->path), depth + 1);
		else
			text_scalar(w, fd, eoff);
		w->path[n] = '\0';
	}
	if (omitted) {
		if (w->fmt == EMU_TRACE_LINES)
			trace_buf_printf(w->b, "  %s[...] = %u more\n", w->path,
					 omitted);
		else
			trace_buf_printf(w->b, "%s%s[...]=+%u", w->nitems ? " " : "",
					 w->path, omitted);
		w->nitems++;
	}
}

/*
 * Whether both formats show field i of sd (at bit off of the mailbox; sel:
 * the union member shown, -1 for a struct): 1 yes, 0 not this one, -1 none
 * further (past the end of the mailbox).
 */
static int trace_field_shown(const struct trace_walk *w,
			     const struct prm_struct_desc *sd, int sel,
			     uint32_t i, uint64_t off, int depth)
{
	if (off >= w->len_bits)
		return (sd->flags & PRM_STRUCT_UNION) ? 0 : -1;
	if (sel >= 0 && (int)i != sel)
		return 0;
	if (!depth && w->skip_header &&
	    (w->le ? trace_is_mana_header(&sd->fields[i]) :
		     trace_is_header(&sd->fields[i])))
		return 0;
	return 1;
}

static void text_struct(struct trace_walk *w, const struct prm_struct_desc *sd,
			uint64_t base, size_t plen, int depth)
{
	int sel = (sd->flags & PRM_STRUCT_UNION) ?
		trace_union_member(sd, w->opcode, w->op_mod) : -1;

	for (uint32_t i = 0; i < sd->nfields; i++) {
		const struct prm_field_desc *fd = &sd->fields[i];
		uint64_t off = base + fd->bit_off;
		int shown = trace_field_shown(w, sd, sel, i, off, depth);

		if (shown < 0)
			break;
		if (!shown)
			continue;
		if (!trace_path_push(w, plen, fd->name, 0))
			continue;
		text_field(w, fd, off, strlen(w->path), depth);
		w->path[plen] = '\0';
	}
}

/* ---- JSON (json-c) ---- */

static struct json_object *json_struct(struct trace_walk *w,
				       const struct prm_struct_desc *sd,
				       uint64_t base, int depth);

/* Scalars of up to 53 bits are numbers; wider ones (addresses, 64-bit
 * counters) hex strings, which no JSON reader rounds. */
static struct json_object *json_scalar(struct trace_walk *w,
				       const struct prm_field_desc *fd,
				       uint64_t off)
{
	uint64_t v = trace_read(w, off, fd->bit_width);
	char hex[24];

	if (fd->bit_width <= 53)
		return json_object_new_int64((int64_t)v);
	snprintf(hex, sizeof(hex), "0x%" PRIx64, v);
	return json_object_new_string(hex);
}

static struct json_object *json_hex(const uint8_t *p, size_t n)
{
	struct trace_buf b = { 0 };
	struct json_object *o;
	char *s;

	trace_hex_bytes(&b, p, n);
	s = trace_buf_take(&b, NULL);
	if (!s)
		return NULL;
	o = json_object_new_string(s);
	free(s);
	return o;
}

static bool json_present(const struct trace_walk *w,
			 const struct prm_field_desc *fd, uint64_t off)
{
	if (fd->count || fd->type)
		return true;	/* partial arrays and structs show what is there */
	return off + fd->bit_width <= w->len_bits && fd->bit_width <= 64;
}

static struct json_object *json_field(struct trace_walk *w,
				      const struct prm_field_desc *fd,
				      uint64_t off, int depth,
				      uint32_t *omittedp)
{
	struct json_object *arr;
	uint32_t cnt, omitted;

	*omittedp = 0;
	if (!fd->count)
		return fd->type ? json_struct(w, fd->type, off, depth + 1) :
				  json_scalar(w, fd, off);
	cnt = trace_array_len(w, fd, off, &omitted);
	*omittedp = omitted;
	if (trace_is_bytes(fd))
		return json_hex(w->buf + off / 8, (off & 7) ? 0 : cnt);
	arr = json_object_new_array_ext((int)cnt);
	if (!arr)
		return NULL;
	for (uint32_t i = 0; i < cnt; i++) {
		uint64_t eoff = off + (uint64_t)i * fd->bit_width;

		json_object_array_add(arr, fd->type ?
				      json_struct(w, fd->type, eoff, depth + 1) :
				      json_scalar(w, fd, eoff));
	}
	return arr;
}

static struct json_object *json_struct(struct trace_walk *w,
				       const struct prm_struct_desc *sd,
				       uint64_t base, int depth)
{
	int sel = (sd->flags & PRM_STRUCT_UNION) ?
		trace_union_member(sd, w->opcode, w->op_mod) : -1;
	struct json_object *obj = json_object_new_object();

	if (!obj)
		return NULL;
	for (uint32_t i = 0; i < sd->nfields; i++) {
		const struct prm_field_desc *fd = &sd->fields[i];
		uint64_t off = base + fd->bit_off;
		int shown = trace_field_shown(w, sd, sel, i, off, depth);
		uint32_t omitted;
		char key[160];

		if (shown < 0)
			break;
		if (!shown)
			continue;
		if (!json_present(w, fd, off))
			continue;
		json_object_object_add(obj, fd->name,
				       json_field(w, fd, off, depth, &omitted));
		if (omitted) {
			snprintf(key, sizeof(key), "%s_omitted", fd->name);
			json_object_object_add(obj, key,
					       json_object_new_int64(omitted));
		}
	}
	return obj;
}

static const int trace_json_flags =
	JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;

/* Appends obj's text to b and drops obj. */
static void trace_json_put(struct trace_buf *b, struct json_object *obj)
{
	size_t n;
	const char *s;

	if (!obj) {
		b->oom = true;
		return;
	}
	s = json_object_to_json_string_length(obj, trace_json_flags, &n);
	if (s)
		trace_buf_putn(b, s, n);
	else
		b->oom = true;
	json_object_put(obj);
}

static void trace_walk_struct(struct trace_buf *b,
			      const struct prm_struct_desc *sd,
			      const void *buf, size_t len, uint16_t opcode,
			      uint16_t op_mod, enum emu_trace_format fmt,
			      bool elide, bool skip_header)
{
	struct trace_walk w = {
		.b = b, .buf = buf, .len_bits = (uint64_t)len * 8,
		.le = sd->flags & PRM_STRUCT_LE, .fmt = fmt, .elide = elide, .skip_header = skip_header, .opcode = opcode,
		.op_mod = op_mod,
	};

	if (fmt == EMU_TRACE_JSON)
		trace_json_put(b, json_struct(&w, sd, 0, 0));
	else
		text_struct(&w, sd, 0, 0, 0);
}

char *emu_trace_format_struct(const struct prm_struct_desc *sd,
			      const void *buf, size_t len, uint16_t opcode,
			      uint16_t op_mod, enum emu_trace_format fmt,
			      bool elide, bool skip_header, size_t *outlen)
{
	struct trace_buf b = { 0 };

	if (!sd || (!buf && len) || fmt > EMU_TRACE_LINES) {
		errno = EINVAL;
		return NULL;
	}
	trace_walk_struct(&b, sd, buf, len, opcode, op_mod, fmt, elide,
			  skip_header);
	return trace_buf_take(&b, outlen);
}

/* ---- one command ---- */

/* The layout ends in a flexible array, its own or its last nested
 * struct's (create_umem_in: umem.mtt[]). */
static bool trace_ends_flexible(const struct prm_struct_desc *sd)
{
	const struct prm_field_desc *last;

	while (sd && sd->nfields) {
		last = &sd->fields[sd->nfields - 1];
		if (last->count == PRM_COUNT_FLEX)
			return true;
		if (last->count || !last->type ||
		    last->bit_off + last->bit_width != sd->size_bits)
			return false;
		sd = last->type;
	}
	return false;
}

/* Bytes past the described layout (a general object's context, an outbox
 * larger than needed): shown only when not all zero. */
static size_t trace_extra(const struct prm_struct_desc *sd, size_t len,
			  const uint8_t *buf, const uint8_t **extra)
{
	size_t size = sd->size_bits / 8;

	if (trace_ends_flexible(sd))
		return 0;	/* the flexible array takes the rest */
	if (len <= size || trace_all_zero(buf + size, len - size))
		return 0;
	*extra = buf + size;
	return len - size;
}

static void trace_duration(struct trace_buf *b, uint64_t ns)
{
	if (ns < 1000)
		trace_buf_printf(b, " %" PRIu64 "ns", ns);
	else if (ns < 1000000)
		trace_buf_printf(b, " %.1fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		trace_buf_printf(b, " %.2fms", (double)ns / 1e6);
	else
		trace_buf_printf(b, " %.3fs", (double)ns / 1e9);
}

struct trace_hdr {
	bool have_opcode, have_uid, have_op_mod;
	uint16_t opcode, uid, op_mod, obj_type;
	bool general_obj;
	const char *name;		/* opcode name or NULL */
	const struct prm_struct_desc *in_sd, *out_sd;
	uint8_t status;
	uint32_t syndrome;
	const char *status_name, *synd_name;
};

static void trace_parse_hdr(const struct emu_trace_cmd *c, struct trace_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (c->inlen >= 2) {
		h->have_opcode = true;
		h->opcode = (uint16_t)prm_field_read(c->in, 0x0, 16);
	}
	if (c->inlen >= 4) {
		h->have_uid = true;
		h->uid = (uint16_t)prm_field_read(c->in, 0x10, 16);
	}
	if (c->inlen >= 8) {
		h->have_op_mod = true;
		h->op_mod = (uint16_t)prm_field_read(c->in, 0x30, 16);
	}
	h->name = h->have_opcode ? emu_trace_opcode_name(h->opcode) : NULL;
	h->general_obj = h->have_opcode &&
		h->opcode >= MLX5_CMD_OP_CREATE_GENERAL_OBJECT &&
		h->opcode <= MLX5_CMD_OP_DESTROY_GENERAL_OBJECT;
	if (h->general_obj && c->inlen >= 8)
		h->obj_type = (uint16_t)prm_field_read(c->in, 0x30, 16);
	h->in_sd = emu_trace_in_struct(h->opcode);
	h->out_sd = emu_trace_out_struct(h->opcode);
	if (c->out && c->outlen >= 8) {
		h->status = (uint8_t)prm_field_read(c->out, 0x0, 8);
		h->syndrome = (uint32_t)prm_field_read(c->out, 0x20, 32);
	}
	h->status_name = emu_trace_status_name(h->status);
	h->synd_name = emu_trace_syndrome_name(h->syndrome);
}

/* " injected(rule 3: fail ...)", " delayed(rule 4: delay ...)". */
static void trace_text_faults(struct trace_buf *b, const struct emu_trace_cmd *c)
{
	bool named = false;

	for (unsigned int i = 0; i < c->nfaults; i++) {
		const struct emu_trace_fault *f = &c->faults[i];

		if (!f->delay && !c->injected)
			continue;
		trace_buf_printf(b, " %s(rule %d: %s)",
				 f->delay ? "delayed" : "injected", f->rule,
				 f->text ? f->text : "?");
		named |= !f->delay;
	}
	if (c->injected && !named)
		trace_buf_puts(b, " injected");
}

static void trace_text_cmd(struct trace_buf *b, const struct emu_trace_cmd *c,
			   const struct trace_hdr *h, bool elide)
{
	const uint8_t *extra = NULL;
	size_t nextra;

	if (c->dev)
		trace_buf_printf(b, "%s ", c->dev);
	if (c->seq)
		trace_buf_printf(b, "#%" PRIu64 " ", c->seq);
	if (!h->have_opcode)
		trace_buf_printf(b, "(inbox of %zu bytes)", c->inlen);
	else if (h->name)
		trace_buf_puts(b, h->name);
	else
		trace_buf_printf(b, "0x%x", h->opcode);
	if (h->general_obj) {
		const char *on = emu_trace_obj_type_name(h->obj_type);

		if (on)
			trace_buf_printf(b, "(%s)", on);
		else
			trace_buf_printf(b, "(obj_type 0x%x)", h->obj_type);
	}
	if (h->have_uid)
		trace_buf_printf(b, " uid=0x%x", h->uid);
	if (h->have_op_mod && !h->general_obj)	/* obj_type is there */
		trace_buf_printf(b, " op_mod=0x%x", h->op_mod);
	trace_buf_puts(b, " in{");
	if (h->have_opcode)
		trace_walk_struct(b, h->in_sd, c->in, c->inlen, h->opcode,
				  h->op_mod, EMU_TRACE_TEXT, elide, true);
	trace_buf_puts(b, "}");
	nextra = h->have_opcode ? trace_extra(h->in_sd, c->inlen, c->in, &extra) : 0;
	if (nextra) {
		trace_buf_puts(b, " +");
		trace_hex_bytes(b, extra, nextra);
	}
	if (!c->out && c->err) {
		const char *en = strerrorname_np(c->err);

		trace_buf_printf(b, " -> errno %s(%d)", en ? en : "?", c->err);
		if (c->timed)
			trace_duration(b, c->duration_ns);
	}
	if (!c->out) {
		trace_buf_puts(b, "\n");
		return;
	}
	if (h->status_name)
		trace_buf_printf(b, " -> %s", h->status_name);
	else
		trace_buf_printf(b, " -> status 0x%x", h->status);
	if (h->status)
		trace_buf_printf(b, "(0x%x)", h->status);
	if (h->syndrome || h->status) {
		trace_buf_printf(b, " syndrome=0x%x", h->syndrome);
		if (h->synd_name)
			trace_buf_printf(b, "(%s)", h->synd_name);
	}
	trace_text_faults(b, c);
	trace_buf_puts(b, " out{");
	trace_walk_struct(b, h->out_sd, c->out, c->outlen, h->opcode, h->op_mod,
			  EMU_TRACE_TEXT, elide, true);
	trace_buf_puts(b, "}");
	nextra = trace_extra(h->out_sd, c->outlen, c->out, &extra);
	if (nextra) {
		trace_buf_puts(b, " +");
		trace_hex_bytes(b, extra, nextra);
	}
	if (c->timed)
		trace_duration(b, c->duration_ns);
	trace_buf_puts(b, "\n");
}

static struct json_object *json_str_or_null(const char *v)
{
	return v ? json_object_new_string(v) : NULL;
}

static struct json_object *json_mailbox(const struct prm_struct_desc *sd,
					const void *buf, size_t len,
					const struct trace_hdr *h)
{
	struct trace_walk w = {
		.buf = buf, .len_bits = (uint64_t)len * 8,
		.fmt = EMU_TRACE_JSON, .skip_header = true,
		.opcode = h->opcode, .op_mod = h->op_mod,
	};

	return json_struct(&w, sd, 0, 0);
}

static struct json_object *json_faults(const struct emu_trace_cmd *c)
{
	struct json_object *arr = json_object_new_array();

	for (unsigned int i = 0; arr && i < c->nfaults; i++) {
		const struct emu_trace_fault *f = &c->faults[i];
		struct json_object *o = json_object_new_object();

		if (!o)
			break;
		json_object_object_add(o, "rule", json_object_new_int(f->rule));
		json_object_object_add(o, "action",
				       json_object_new_string(f->delay ? "delay" : "fail"));
		if (f->delay)
			json_object_object_add(o, "delay_ms",
					       json_object_new_int64(f->delay_ms));
		json_object_object_add(o, "text", json_str_or_null(f->text));
		json_object_array_add(arr, o);
	}
	return arr;
}

static void trace_json_cmd(struct trace_buf *b, const struct emu_trace_cmd *c,
			   const struct trace_hdr *h)
{
	struct json_object *o = json_object_new_object();
	const uint8_t *extra = NULL;
	size_t nextra;

#define ADD(k, v) json_object_object_add(o, (k), (v))
	if (!o) {
		b->oom = true;
		return;
	}
	ADD("seq", json_object_new_uint64(c->seq));
	ADD("dev", json_str_or_null(c->dev));
	if (c->pid)
		ADD("pid", json_object_new_int64(c->pid));
	ADD("opcode", json_str_or_null(h->name));
	ADD("opcode_value", h->have_opcode ?
	    json_object_new_int(h->opcode) : NULL);
	if (h->general_obj) {
		ADD("obj_type", json_object_new_int(h->obj_type));
		ADD("obj_type_name",
		    json_str_or_null(emu_trace_obj_type_name(h->obj_type)));
	}
	if (h->have_uid)
		ADD("uid", json_object_new_int(h->uid));
	if (h->have_op_mod && !h->general_obj)
		ADD("op_mod", json_object_new_int(h->op_mod));
	ADD("inlen", json_object_new_uint64(c->inlen));
	ADD("in_struct", json_str_or_null(h->have_opcode ? h->in_sd->name :
					  NULL));
	ADD("in", h->have_opcode ? json_mailbox(h->in_sd, c->in, c->inlen, h) :
	    json_object_new_object());
	nextra = h->have_opcode ? trace_extra(h->in_sd, c->inlen, c->in, &extra) : 0;
	if (nextra)
		ADD("in_extra", json_hex(extra, nextra));
	if (c->out) {
		ADD("status", json_str_or_null(h->status_name));
		ADD("status_value", json_object_new_int(h->status));
		ADD("syndrome", json_object_new_int64(h->syndrome));
		ADD("syndrome_name", json_str_or_null(h->synd_name));
		ADD("injected", json_object_new_boolean(c->injected));
		if (c->nfaults)
			ADD("faults", json_faults(c));
		ADD("outlen", json_object_new_uint64(c->outlen));
		ADD("out_struct", json_object_new_string(h->out_sd->name));
		ADD("out", json_mailbox(h->out_sd, c->out, c->outlen, h));
		nextra = trace_extra(h->out_sd, c->outlen, c->out, &extra);
		if (nextra)
			ADD("out_extra", json_hex(extra, nextra));
	} else if (c->err) {
		ADD("errno", json_object_new_int(c->err));
		ADD("errno_name", json_str_or_null(strerrorname_np(c->err)));
	}
	if (c->timed)
		ADD("duration_ns", json_object_new_uint64(c->duration_ns));
#undef ADD
	trace_json_put(b, o);
	trace_buf_puts(b, "\n");
}

char *emu_trace_format_cmd(const struct emu_trace_cmd *cmd,
			   enum emu_trace_format fmt, bool elide, size_t *len)
{
	struct trace_buf b = { 0 };
	struct trace_hdr h;

	if (!cmd || (!cmd->in && cmd->inlen) ||
	    (fmt != EMU_TRACE_TEXT && fmt != EMU_TRACE_JSON)) {
		errno = EINVAL;
		return NULL;
	}
	trace_parse_hdr(cmd, &h);
	if (fmt == EMU_TRACE_JSON)
		trace_json_cmd(&b, cmd, &h);
	else
		trace_text_cmd(&b, cmd, &h, elide);
	return trace_buf_take(&b, len);
}
