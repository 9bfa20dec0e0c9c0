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
#include "prm/prm_le.h"

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

#define DP_MAX_FIELDS 32

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
	bool mana;		/* GDMA's SGE names */
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
		trace_buf_printf(b, r->mana ?
				 " sge[%u]{size=0x%x mem_key=0x%x address=0x%" PRIx64 "}" :
				 " sge[%u]{byte_count=0x%x lkey=0x%x addr=0x%" PRIx64 "}",
				 i, r->sge[i].byte_count, r->sge[i].lkey,
				 r->sge[i].addr);
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

			json_object_object_add(e, r->mana ? "size" : "byte_count",
				json_object_new_uint64(r->sge[i].byte_count));
			json_object_object_add(e, r->mana ? "mem_key" : "lkey",
				json_object_new_uint64(r->sge[i].lkey));
			json_object_object_add(e, r->mana ? "address" : "addr",
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

/* ---- MANA ---- */

static const struct {
	const char *name;
	uint8_t value;
} mana_types[] = {
#define MANA_CQE(name, val, tx, text) { #name, (val) },
#include "prm/mana.def"
#undef MANA_CQE
};

const char *emu_trace_mana_cqe_name(uint8_t type)
{
	return DP_NAME(mana_types, type);
}

char *emu_trace_format_mana_wqe(const struct emu_trace_mana_wqe *w,
				enum emu_trace_format fmt, size_t *len)
{
	struct dp_rec r = { .kind = "WQE", .kind_key = "wqe", .mana = true };

	if (!w) {
		errno = EINVAL;
		return NULL;
	}
	r.dev = w->dev;
	r.seq = w->seq;
	r.pid = w->pid;
	r.kind_val = w->rq ? "rq" : "sq";
	dp_put(&r, "wq_id", w->wq_id);
	dp_put(&r, "offset", w->offset);
	/* the GDMA WQE header */
	dp_put(&r, "num_sge", w->num_sge);
	dp_put(&r, "inline_oob_size", w->inline_oob_size);
	dp_put(&r, "client_data_unit", w->client_data_unit);
	dp_put(&r, "last_vbytes", w->last_vbytes);
	dp_put(&r, "sgl_direct", w->sgl_direct);
	if (w->rq) {
		dp_put(&r, "pkt_len", w->pkt_len);
	} else {
		/* the client OOB (mana_tx_short_oob, mana_tx_long_oob) */
		dp_put(&r, "pkt_fmt", w->pkt_fmt);
		dp_put(&r, "is_outer_ipv4", w->is_outer_ipv4);
		dp_put(&r, "is_outer_ipv6", w->is_outer_ipv6);
		dp_put(&r, "comp_iphdr_csum", w->comp_iphdr_csum);
		dp_put(&r, "comp_tcp_csum", w->comp_tcp_csum);
		dp_put(&r, "comp_udp_csum", w->comp_udp_csum);
		dp_put(&r, "suppress_txcqe_gen", w->suppress_txcqe_gen);
		dp_put(&r, "vcq_num", w->vcq_num);
		dp_put(&r, "vp_offset", w->vp_offset);
		if (w->comp_tcp_csum)
			dp_put(&r, "trans_off", w->trans_off);
		if (w->mss)
			dp_put(&r, "mss", w->mss);
		dp_put(&r, "inject_vlan_pri_tag", w->inject_vlan_pri_tag);
		if (w->inject_vlan_pri_tag) {
			dp_put(&r, "pcp", w->vlan_tci >> 13);
			dp_put(&r, "dei", (w->vlan_tci >> 12) & 1);
			dp_put(&r, "vlan_id", w->vlan_tci & 0xfff);
		}
	}
	dp_put(&r, "byte_count", w->byte_count);
	r.nsge = w->nsge;
	r.sge = w->sge;
	return dp_format(&r, fmt, len);
}

char *emu_trace_format_mana_cqe(const struct emu_trace_mana_cqe *c,
				enum emu_trace_format fmt, size_t *len)
{
	static const char *const pkt_len[] = { "pkt_len", "pkt_len1",
					       "pkt_len2", "pkt_len3" };
	static const char *const pkt_hash[] = { "pkt_hash", "pkt_hash1",
						"pkt_hash2", "pkt_hash3" };
	struct dp_rec r = { .kind = "CQE", .kind_key = "cqe", .mana = true };
	const uint8_t *q, *info;
	uint8_t type;
	bool sq;

	if (!c || !c->cqe) {
		errno = EINVAL;
		return NULL;
	}
	q = c->cqe;
	info = q + 60;		/* after the 60 bytes of client data */
	type = (uint8_t)PRM_LE_GET(mana_cqe_header, q, cqe_type);
	sq = PRM_LE_GET(gdma_cqe_info, info, is_sq);
	r.dev = c->dev;
	r.seq = c->seq;
	r.pid = c->pid;
	r.kind_val = emu_trace_mana_cqe_name(type) ?
		     emu_trace_mana_cqe_name(type) : "unknown";
	dp_put(&r, "cq_id", c->cq_id);
	dp_put(&r, "index", c->index);
	dp_put_named(&r, "cqe_type", type, emu_trace_mana_cqe_name(type));
	dp_put(&r, "client_type", PRM_LE_GET(mana_cqe_header, q, client_type));
	dp_put(&r, "vendor_err", PRM_LE_GET(mana_cqe_header, q, vendor_err));
	if (sq) {
		dp_put(&r, "tx_wqe_offset",
		       PRM_LE_GET(mana_tx_comp_oob, q, tx_wqe_offset));
	} else {
		const uint8_t *ppi = PRM_LE_ADDR_OF(mana_rxcomp_oob, (uint8_t *)q, ppi);

		for (unsigned int i = 0; i < 4; i++) {
			const uint8_t *p = ppi + i * PRM_LE_ST_SZ_BYTES(mana_rxcomp_perpkt_info);
			uint32_t l = PRM_LE_GET(mana_rxcomp_perpkt_info, p, pkt_len);

			/* a zero length ends the packets, as for a consumer */
			if (!l)
				break;
			dp_put(&r, pkt_len[i], l);
			dp_put(&r, pkt_hash[i],
			       PRM_LE_GET(mana_rxcomp_perpkt_info, p, pkt_hash));
		}
		dp_put(&r, "rx_hashtype", PRM_LE_GET(mana_rxcomp_oob, q, rx_hashtype));
		dp_put(&r, "rx_vlantag_present",
		       PRM_LE_GET(mana_rxcomp_oob, q, rx_vlantag_present));
		dp_put(&r, "rx_vlan_id", PRM_LE_GET(mana_rxcomp_oob, q, rx_vlan_id));
		dp_put(&r, "rx_iphdr_csum_succeed",
		       PRM_LE_GET(mana_rxcomp_oob, q, rx_iphdr_csum_succeed));
		dp_put(&r, "rx_iphdr_csum_fail",
		       PRM_LE_GET(mana_rxcomp_oob, q, rx_iphdr_csum_fail));
		dp_put(&r, "rx_tcp_csum_succeed",
		       PRM_LE_GET(mana_rxcomp_oob, q, rx_tcp_csum_succeed));
		dp_put(&r, "rx_tcp_csum_fail",
		       PRM_LE_GET(mana_rxcomp_oob, q, rx_tcp_csum_fail));
		dp_put(&r, "rx_udp_csum_succeed",
		       PRM_LE_GET(mana_rxcomp_oob, q, rx_udp_csum_succeed));
		dp_put(&r, "rx_udp_csum_fail",
		       PRM_LE_GET(mana_rxcomp_oob, q, rx_udp_csum_fail));
		dp_put(&r, "rx_wqe_offset",
		       PRM_LE_GET(mana_rxcomp_oob, q, rx_wqe_offset));
	}
	dp_put(&r, "wq_num", PRM_LE_GET(gdma_cqe_info, info, wq_num));
	dp_put(&r, "is_sq", sq);
	dp_put(&r, "owner_bits", PRM_LE_GET(gdma_cqe_info, info, owner_bits));
	return dp_format(&r, fmt, len);
}
