/* SPDX-License-Identifier: MIT */
/*
 * emu/trace/trace_dp.c -- the data path's records beside the command
 * trace: a WQE a device executes, a CQE it writes, decoded by field name
 * (infiniband/mlx5dv.h's names: the control segment's opcode, opmod, ds,
 * fm_ce_se and imm, the data segments' byte_count, lkey and addr; the
 * CQE's wqe_counter, byte_cnt, sop_drop_qpn split into wqe_opcode and qpn,
 * syndrome and vendor_err_synd ...), as one text line or one JSON object.
 *
 * One list of fields per record serves both forms.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <json-c/json.h>

#include "emu/trace/trace_fmt.h"
#include "emu/trace/trace_int.h"

static const struct {
	const char *name;
	uint8_t value;
} dp_wqe_ops[] = {
#define PRM_WQE_OPCODE(n, v) { #n, (v) },
#define PRM_CQE_OPCODE(n, v)
#include "prm/dp_opcodes.def"
#undef PRM_WQE_OPCODE
#undef PRM_CQE_OPCODE
}, dp_cqe_ops[] = {
#define PRM_WQE_OPCODE(n, v)
#define PRM_CQE_OPCODE(n, v) { #n, (v) },
#include "prm/dp_opcodes.def"
#undef PRM_WQE_OPCODE
#undef PRM_CQE_OPCODE
}, dp_synds[] = {
#define ENG_SYND(id, synd, vendor, text, src) { #id, (synd) },
#include "prm/cqe_syndromes.def"
#undef ENG_SYND
};

#define DP_NAME(table, v) dp_name(table, sizeof(table) / sizeof(table[0]), v)

static const char *dp_name(const void *table, size_t n, uint8_t v)
{
	const struct { const char *name; uint8_t value; } *t = table;

	for (size_t i = 0; i < n; i++)
		if (t[i].value == v)
			return t[i].name;
	return NULL;
}

const char *emu_trace_wqe_opcode_name(uint8_t opcode)
{
	return DP_NAME(dp_wqe_ops, opcode);
}

const char *emu_trace_cqe_opcode_name(uint8_t opcode)
{
	return DP_NAME(dp_cqe_ops, opcode);
}

/* One field of a record. */
struct dp_field {
	const char *name;
	uint64_t v;
	const char *label;	/* a name for the value: LABEL(0xV) */
	bool named;		/* the value has a name space (label may be
				 * NULL: a value it does not name) */
	bool addr;		/* 64 bits: a hex string in JSON */
};

#define DP_MAX_FIELDS 24

struct dp_rec {
	const char *dev;
	uint64_t seq;
	long pid;
	const char *kind;	/* "WQE" or "CQE" */
	const char *kind_key;	/* JSON: "wqe" or "cqe" */
	const char *kind_val;	/* "sq", "rq", or the CQE opcode */
	struct dp_field f[DP_MAX_FIELDS];
	unsigned int n;
	unsigned int nsge;
	const struct emu_trace_sge *sge;
};

static void dp_put(struct dp_rec *r, const char *name, uint64_t v)
{
	if (r->n < DP_MAX_FIELDS)
		r->f[r->n++] = (struct dp_field){ .name = name, .v = v };
}

static void dp_put_named(struct dp_rec *r, const char *name, uint64_t v,
			 const char *label)
{
	if (r->n < DP_MAX_FIELDS)
		r->f[r->n++] = (struct dp_field){ .name = name, .v = v,
						  .label = label, .named = true };
}

static void dp_put_addr(struct dp_rec *r, const char *name, uint64_t v)
{
	if (r->n < DP_MAX_FIELDS)
		r->f[r->n++] = (struct dp_field){ .name = name, .v = v,
						  .addr = true };
}

static void dp_text_field(struct trace_buf *b, const struct dp_field *f)
{
	if (f->named && f->label)
		trace_buf_printf(b, " %s=%s(0x%" PRIx64 ")", f->name, f->label,
				 f->v);
	else
		trace_buf_printf(b, " %s=0x%" PRIx64, f->name, f->v);
}

static void dp_text(struct trace_buf *b, const struct dp_rec *r)
{
	if (r->dev)
		trace_buf_printf(b, "%s ", r->dev);
	if (r->seq)
		trace_buf_printf(b, "#%" PRIu64 " ", r->seq);
	trace_buf_puts(b, r->kind);
	if (r->kind_key[0] == 'w')
		trace_buf_printf(b, " %s", r->kind_val);
	for (unsigned int i = 0; i < r->n; i++)
		dp_text_field(b, &r->f[i]);
	for (unsigned int i = 0; i < r->nsge; i++)
		trace_buf_printf(b, " sge[%u]{byte_count=0x%x lkey=0x%x "
				 "addr=0x%" PRIx64 "}", i, r->sge[i].byte_count,
				 r->sge[i].lkey, r->sge[i].addr);
	trace_buf_puts(b, "\n");
}

static struct json_object *dp_json_hex(uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "0x%" PRIx64, v);
	return json_object_new_string(s);
}

static void dp_json(struct trace_buf *b, const struct dp_rec *r)
{
	struct json_object *o = trace_json_head(b, r->seq, r->dev, r->pid), *a;

	if (!o)
		return;
	json_object_object_add(o, r->kind_key, json_object_new_string(r->kind_val));
	for (unsigned int i = 0; i < r->n; i++) {
		const struct dp_field *f = &r->f[i];

		if (f->named) {
			char key[48];

			json_object_object_add(o, f->name, f->label ?
				json_object_new_string(f->label) : NULL);
			snprintf(key, sizeof(key), "%s_value", f->name);
			json_object_object_add(o, key,
					       json_object_new_uint64(f->v));
		} else {
			json_object_object_add(o, f->name, f->addr ?
					       dp_json_hex(f->v) :
					       json_object_new_uint64(f->v));
		}
	}
	if (!strcmp(r->kind_key, "wqe")) {
		a = json_object_new_array();
		for (unsigned int i = 0; a && i < r->nsge; i++) {
			struct json_object *e = json_object_new_object();

			json_object_object_add(e, "byte_count",
				json_object_new_uint64(r->sge[i].byte_count));
			json_object_object_add(e, "lkey",
				json_object_new_uint64(r->sge[i].lkey));
			json_object_object_add(e, "addr",
					       dp_json_hex(r->sge[i].addr));
			json_object_array_add(a, e);
		}
		json_object_object_add(o, "sge", a);
	}
	trace_json_emit(b, o);
}

static char *dp_format(const struct dp_rec *r, enum emu_trace_format fmt,
		       size_t *len)
{
	struct trace_buf b = { 0 };

	if (fmt != EMU_TRACE_TEXT && fmt != EMU_TRACE_JSON) {
		errno = EINVAL;
		return NULL;
	}
	if (fmt == EMU_TRACE_JSON)
		dp_json(&b, r);
	else
		dp_text(&b, r);
	return trace_buf_take(&b, len);
}

char *emu_trace_format_wqe(const struct emu_trace_wqe *w,
			   enum emu_trace_format fmt, size_t *len)
{
	struct dp_rec r = {
		.dev = w ? w->dev : NULL, .kind = "WQE", .kind_key = "wqe",
	};

	if (!w) {
		errno = EINVAL;
		return NULL;
	}
	r.seq = w->seq;
	r.pid = w->pid;
	r.kind_val = w->rq ? "rq" : "sq";
	dp_put(&r, "qpn", w->qpn);
	dp_put(&r, "wqe_counter", w->wqe_counter);
	dp_put_named(&r, "opcode", w->opcode, emu_trace_wqe_opcode_name(w->opcode));
	if (w->rq) {
		if (w->srqn)
			dp_put(&r, "srqn", w->srqn);
	} else {
		dp_put(&r, "opmod", w->opmod);
		dp_put(&r, "ds", w->ds);
		dp_put(&r, "fm_ce_se", w->fm_ce_se);
		dp_put(&r, "imm", be32toh(w->imm));
		if (w->has_raddr) {
			dp_put_addr(&r, "raddr", w->raddr);
			dp_put(&r, "rkey", w->rkey);
		}
		if (w->inl)
			dp_put(&r, "inline", 1);
	}
	dp_put(&r, "byte_count", w->byte_count);
	r.nsge = w->nsge;
	r.sge = w->sge;
	return dp_format(&r, fmt, len);
}

char *emu_trace_format_cqe(const struct emu_trace_cqe *c,
			   enum emu_trace_format fmt, size_t *len)
{
	const struct mlx5_cqe64 *q;
	const struct mlx5_err_cqe *e;
	struct dp_rec r = { .kind = "CQE", .kind_key = "cqe" };
	uint8_t op, wop;
	uint32_t sop;

	if (!c || !c->cqe64) {
		errno = EINVAL;
		return NULL;
	}
	q = (const struct mlx5_cqe64 *)(const void *)c->cqe64;
	e = (const struct mlx5_err_cqe *)(const void *)c->cqe64;
	op = q->op_own >> 4;
	sop = be32toh(q->sop_drop_qpn);
	wop = (uint8_t)(sop >> 24);
	r.dev = c->dev;
	r.seq = c->seq;
	r.pid = c->pid;
	r.kind_val = emu_trace_cqe_opcode_name(op) ?
		     emu_trace_cqe_opcode_name(op) : "unknown";
	dp_put(&r, "cqn", c->cqn);
	dp_put(&r, "index", c->index);
	dp_put_named(&r, "opcode", op, emu_trace_cqe_opcode_name(op));
	dp_put(&r, "qpn", sop & 0xffffff);
	dp_put(&r, "wqe_counter", be16toh(q->wqe_counter));
	if (op == MLX5_CQE_REQ || op == MLX5_CQE_REQ_ERR)
		dp_put_named(&r, "wqe_opcode", wop,
			     emu_trace_wqe_opcode_name(wop));
	if (op == MLX5_CQE_REQ_ERR || op == MLX5_CQE_RESP_ERR) {
		dp_put_named(&r, "syndrome", e->syndrome,
			     DP_NAME(dp_synds, e->syndrome));
		dp_put(&r, "vendor_err_synd", e->vendor_err_synd);
	} else {
		dp_put(&r, "byte_cnt", be32toh(q->byte_cnt));
	}
	if (op != MLX5_CQE_REQ && op != MLX5_CQE_REQ_ERR &&
	    op != MLX5_CQE_RESP_ERR) {
		dp_put(&r, "imm_inval_pkey", be32toh(q->imm_inval_pkey));
		dp_put(&r, "flags_rqpn", be32toh(q->flags_rqpn));
	}
	dp_put(&r, "srqn_uidx", be32toh(q->srqn_uidx) & 0xffffff);
	dp_put(&r, "se", (q->op_own >> 1) & 1);
	dp_put(&r, "owner", q->op_own & 1);
	return dp_format(&r, fmt, len);
}
