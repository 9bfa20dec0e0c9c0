/* SPDX-License-Identifier: MIT */
/*
 * The Ethernet DEVX player (eth_player.h): PRM commands through the
 * emulated kernel layer's backend ops; WQEs at literal offsets (PRM send
 * WQE: control 16 bytes, Ethernet segment 16 + inline headers past two,
 * rounded to 16, data segment 16).
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "eth_player.h"

/* Memory freed with the player, after its context (and so its umems). */
static void *ep_alloc(struct eth_player *e, size_t len)
{
	DP_ASSERT(e->npages < sizeof(e->pages) / sizeof(e->pages[0]));
	return e->pages[e->npages++] = dp_page_alloc(len);
}

static void ep_wq(struct dp_player *p, void *wq, void *ring, size_t len,
		  uint32_t *dbr, unsigned int log_stride, unsigned int log_sz)
{
	PRM_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	PRM_SET(wq, wq, pd, p->pd);
	PRM_SET(wq, wq, log_wq_stride, log_stride);
	PRM_SET(wq, wq, log_wq_sz, log_sz);
	PRM_SET(wq, wq, log_wq_pg_sz, 0);
	PRM_SET(wq, wq, dbr_umem_valid, 1);
	PRM_SET(wq, wq, dbr_umem_id, dp_umem(p, dbr, 8));
	PRM_SET(wq, wq, wq_umem_valid, 1);
	PRM_SET(wq, wq, wq_umem_id, dp_umem(p, ring, len));
}

static void ep_modify(struct dp_player *p, uint16_t opcode,
		      struct mlx5be_obj *obj, uint32_t id, unsigned int from,
		      unsigned int to)
{
	uint8_t in[PRM_ST_SZ_BYTES(modify_sq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(modify_sq_out)] = { 0 };

	(void)p;
	/* modify_sq_in and modify_rq_in share the layout of these fields. */
	PRM_SET(modify_sq_in, in, opcode, opcode);
	PRM_SET(modify_sq_in, in, sq_state, from);
	PRM_SET(modify_sq_in, in, sqn, id);
	PRM_SET(sqc, PRM_ADDR_OF(modify_sq_in, in, ctx), state, to);
	DP_ASSERT(!DP_BE->obj_modify(obj, in, sizeof(in), out, sizeof(out)));
}

static void ep_modify_rdy(struct dp_player *p, uint16_t opcode,
			  struct mlx5be_obj *obj, uint32_t id)
{
	ep_modify(p, opcode, obj, id, MLX5_SQC_STATE_RST, MLX5_SQC_STATE_RDY);
}

void ep_sq_reset(struct eth_player *e)
{
	ep_modify(&e->dp, MLX5_CMD_OP_MODIFY_SQ, e->sq_obj, e->sqn,
		  MLX5_SQC_STATE_ERR, MLX5_SQC_STATE_RST);
	/* The record first: in RDY the device reads it at once. */
	e->sq_pi = 0;
	__atomic_store_n(&e->sq_dbr[1], 0, __ATOMIC_RELEASE);
	ep_modify_rdy(&e->dp, MLX5_CMD_OP_MODIFY_SQ, e->sq_obj, e->sqn);
}

void ep_post_raw(struct eth_player *e, const uint8_t *wqe, unsigned int nbb)
{
	for (unsigned int b = 0; b < nbb; b++)
		memcpy(e->sq + 64 * ((e->sq_pi + b) & ((1u << EP_LOG_SQ) - 1)),
		       wqe + 64 * b, 64);
	e->sq_pi = (uint16_t)(e->sq_pi + nbb);
	__atomic_store_n(&e->sq_dbr[1], htobe32(e->sq_pi), __ATOMIC_RELEASE);
	DP_BE->progress(e->dp.ctx, 0);
}

void ep_init(struct eth_player *e)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_sq_in)];
	void *ctx;

	memset(e, 0, sizeof(*e));
	dp_player_init(&e->dp);
	memset(in, 0, sizeof(in));
	PRM_SET(alloc_transport_domain_in, in, opcode,
		MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	e->td = dp_create(&e->dp, in, PRM_ST_SZ_BYTES(alloc_transport_domain_in),
			  PRM_ST_SZ_BYTES(alloc_transport_domain_out), 2);
	/* MR over the whole memory. */
	e->mem = ep_alloc(e, EP_MEM);
	memset(in, 0, sizeof(in));
	PRM_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	ctx = PRM_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	PRM_SET(mkc, ctx, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
	PRM_SET(mkc, ctx, lr, 1);
	PRM_SET(mkc, ctx, lw, 1);
	PRM_SET(mkc, ctx, qpn, 0xffffff);
	PRM_SET(mkc, ctx, pd, e->dp.pd);
	PRM_SET(mkc, ctx, mkey_7_0, 0x51);
	PRM_SET64(mkc, ctx, start_addr, (uint64_t)(uintptr_t)e->mem);
	PRM_SET64(mkc, ctx, len, EP_MEM);
	PRM_SET(create_mkey_in, in, mkey_umem_valid, 1);
	PRM_SET(create_mkey_in, in, mkey_umem_id, dp_umem(&e->dp, e->mem, EP_MEM));
	e->lkey = dp_create(&e->dp, in, PRM_ST_SZ_BYTES(create_mkey_in),
			    PRM_ST_SZ_BYTES(create_mkey_out), 2) << 8 | 0x51;
	/* TIS */
	memset(in, 0, sizeof(in));
	PRM_SET(create_tis_in, in, opcode, MLX5_CMD_OP_CREATE_TIS);
	PRM_SET(tisc, PRM_ADDR_OF(create_tis_in, in, ctx), transport_domain,
		e->td);
	e->tisn = dp_create(&e->dp, in, PRM_ST_SZ_BYTES(create_tis_in),
			    PRM_ST_SZ_BYTES(create_tis_out), 2);
	e->tis_obj = dp_last_obj;
	/* SQ */
	e->sq = ep_alloc(e, 64 << EP_LOG_SQ);
	e->sq_dbr = ep_alloc(e, 8);
	memset(in, 0, sizeof(in));
	PRM_SET(create_sq_in, in, opcode, MLX5_CMD_OP_CREATE_SQ);
	ctx = PRM_ADDR_OF(create_sq_in, in, ctx);
	PRM_SET(sqc, ctx, cqn, e->dp.cqn);
	PRM_SET(sqc, ctx, tis_lst_sz, 1);
	PRM_SET(sqc, ctx, tis_num_0, e->tisn);
	PRM_SET(sqc, ctx, flush_in_error_en, 1);
	PRM_SET(sqc, ctx, user_index, 0x77);
	ep_wq(&e->dp, PRM_ADDR_OF(sqc, ctx, wq), e->sq, 64 << EP_LOG_SQ,
	      e->sq_dbr, 6, EP_LOG_SQ);
	/* The doorbell's UAR page, as DPDK's mlx5 PMD names it. */
	PRM_SET(wq, PRM_ADDR_OF(sqc, ctx, wq), uar_page, e->dp.uar.page_id);
	e->sqn = dp_create(&e->dp, in, PRM_ST_SZ_BYTES(create_sq_in),
			   PRM_ST_SZ_BYTES(create_sq_out), 2);
	e->sq_obj = dp_last_obj;
	ep_modify_rdy(&e->dp, MLX5_CMD_OP_MODIFY_SQ, e->sq_obj, e->sqn);
}

void ep_rq_create(struct eth_player *e, struct ep_rq *rq, bool vsd,
		  unsigned int slot)
{
	ep_rq_create_counted(e, rq, vsd, slot, 0);
}

void ep_rq_create_counted(struct eth_player *e, struct ep_rq *rq, bool vsd,
			  unsigned int slot, uint32_t counter_set_id)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_rq_in)] = { 0 };
	void *ctx = PRM_ADDR_OF(create_rq_in, in, ctx);

	memset(rq, 0, sizeof(*rq));
	rq->slot = slot;
	rq->ring = ep_alloc(e, 16 << EP_LOG_RQ);
	rq->dbr = ep_alloc(e, 8);
	PRM_SET(create_rq_in, in, opcode, MLX5_CMD_OP_CREATE_RQ);
	PRM_SET(rqc, ctx, vsd, vsd);
	PRM_SET(rqc, ctx, cqn, e->dp.cqn);
	PRM_SET(rqc, ctx, flush_in_error_en, 1);
	PRM_SET(rqc, ctx, user_index, 0x100 + slot);
	PRM_SET(rqc, ctx, counter_set_id, counter_set_id);
	ep_wq(&e->dp, PRM_ADDR_OF(rqc, ctx, wq), rq->ring, 16 << EP_LOG_RQ,
	      rq->dbr, 4, EP_LOG_RQ);
	rq->rqn = dp_create(&e->dp, in, sizeof(in), PRM_ST_SZ_BYTES(create_rq_out),
			    2);
	rq->obj = dp_last_obj;
	ep_modify_rdy(&e->dp, MLX5_CMD_OP_MODIFY_RQ, rq->obj, rq->rqn);
}

struct mlx5be_obj *ep_tir_direct(struct eth_player *e, const struct ep_rq *rq,
				 unsigned int self_lb, uint32_t *tirn)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_tir_in)] = { 0 };
	void *ctx = PRM_ADDR_OF(create_tir_in, in, ctx);

	PRM_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	PRM_SET(tirc, ctx, disp_type, MLX5_TIRC_DISP_TYPE_DIRECT);
	PRM_SET(tirc, ctx, inline_rqn, rq->rqn);
	PRM_SET(tirc, ctx, transport_domain, e->td);
	PRM_SET(tirc, ctx, self_lb_block, self_lb);
	*tirn = dp_create(&e->dp, in, sizeof(in), PRM_ST_SZ_BYTES(create_tir_out),
			  2);
	return dp_last_obj;
}

struct mlx5be_obj *ep_tir_rss(struct eth_player *e, struct ep_rq *rqs,
			      unsigned int n, const uint8_t key[40],
			      uint32_t *tirn)
{
	size_t rqt_len = PRM_ST_SZ_BYTES(create_rqt_in) + 4 * n;
	uint8_t *rin = calloc(1, rqt_len);
	uint8_t in[PRM_ST_SZ_BYTES(create_tir_in)] = { 0 };
	void *rqtc = PRM_ADDR_OF(create_rqt_in, rin, rqt_context);
	void *ctx = PRM_ADDR_OF(create_tir_in, in, ctx);
	void *sel;
	uint32_t rqtn;

	DP_ASSERT(rin);
	PRM_SET(create_rqt_in, rin, opcode, MLX5_CMD_OP_CREATE_RQT);
	PRM_SET(rqtc, rqtc, rqt_max_size, n);
	PRM_SET(rqtc, rqtc, rqt_actual_size, n);
	for (unsigned int i = 0; i < n; i++)
		PRM_SET(rq_num, PRM_ARRAY_ADDR(rqtc, rqtc, rq_num, i), rq_num,
			rqs[i].rqn);
	rqtn = dp_create(&e->dp, rin, rqt_len, PRM_ST_SZ_BYTES(create_rqt_out), 2);
	free(rin);
	PRM_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	PRM_SET(tirc, ctx, disp_type, MLX5_TIRC_DISP_TYPE_INDIRECT);
	PRM_SET(tirc, ctx, indirect_table, rqtn);
	PRM_SET(tirc, ctx, transport_domain, e->td);
	PRM_SET(tirc, ctx, self_lb_block, EP_SELF_LB_ALLOW);
	PRM_SET(tirc, ctx, rx_hash_fn, MLX5_RX_HASH_FN_TOEPLITZ);
	memcpy(PRM_ADDR_OF(tirc, ctx, rx_hash_toeplitz_key), key, 40);
	sel = PRM_ADDR_OF(tirc, ctx, rx_hash_field_selector_outer);
	PRM_SET(rx_hash_field_select, sel, l3_prot_type, MLX5_L3_PROT_TYPE_IPV4);
	PRM_SET(rx_hash_field_select, sel, l4_prot_type, MLX5_L4_PROT_TYPE_UDP);
	PRM_SET(rx_hash_field_select, sel, selected_fields,
		MLX5_HASH_FIELD_SEL_SRC_IP | MLX5_HASH_FIELD_SEL_DST_IP |
		MLX5_HASH_FIELD_SEL_L4_SPORT | MLX5_HASH_FIELD_SEL_L4_DPORT);
	*tirn = dp_create(&e->dp, in, sizeof(in), PRM_ST_SZ_BYTES(create_tir_out),
			  2);
	return dp_last_obj;
}

struct mlx5be_obj *ep_rule_dmac(struct eth_player *e, const uint8_t dmac[6],
				struct mlx5be_obj *dest, uint32_t tag,
				uint16_t prio)
{
	uint8_t mask[PRM_ST_SZ_BYTES(fte_match_param)] = { 0 };
	uint8_t value[PRM_ST_SZ_BYTES(fte_match_param)] = { 0 };
	struct mlx5be_flow_match m = {
		.criteria_enable = MLX5_MATCH_OUTER_HEADERS,
		.priority = prio,
		.mask = mask,
		.value = value,
		.len = sizeof(mask),
	};
	struct mlx5be_flow_act act = {
		.dest = dest,
		.has_tag = tag != 0,
		.tag = tag,
	};
	struct mlx5be_obj *rule;

	/* dmac_47_16 is the first byte of the outer headers' second
	 * 8 bytes: fte_match_set_lyr_2_4 at 0x40 bits. */
	memset(mask + 8, 0xff, 6);
	memcpy(value + 8, dmac, 6);
	rule = DP_BE->steering_root_attach(e->dp.ctx, &m, &act);
	DP_ASSERT(rule);
	return rule;
}

uint8_t *ep_rx_buf(struct eth_player *e, const struct ep_rq *rq,
		   unsigned int idx)
{
	unsigned int n = 1u << EP_LOG_RQ;

	return e->mem + EP_RX_OFF +
	       ((size_t)rq->slot * n + (idx & (n - 1))) * EP_RX_BUF;
}

void ep_post_recv(struct eth_player *e, struct ep_rq *rq)
{
	uint8_t *w = rq->ring + 16 * (rq->pi & ((1u << EP_LOG_RQ) - 1));
	uint64_t addr = (uint64_t)(uintptr_t)ep_rx_buf(e, rq, rq->pi);
	uint32_t v;

	memset(ep_rx_buf(e, rq, rq->pi), 0, EP_RX_BUF);
	v = htobe32(EP_RX_BUF);
	memcpy(w, &v, 4);
	v = htobe32(e->lkey);
	memcpy(w + 4, &v, 4);
	addr = htobe64(addr);
	memcpy(w + 8, &addr, 8);
	rq->pi++;
	__atomic_store_n(&rq->dbr[0], htobe32(rq->pi), __ATOMIC_RELEASE);
}

uint16_t ep_post_send(struct eth_player *e, uint8_t opcode, uint32_t len,
		      uint32_t inl, uint8_t cs_flags, uint16_t mss,
		      uint16_t vlan_insert)
{
	uint8_t w[256] = { 0 };
	unsigned int eseg = 16 + (inl > 2 ? ((inl - 2 + 15) & ~15u) : 0);
	unsigned int ds = (16 + eseg + (len > inl ? 16 : 0)) / 16;
	unsigned int nbb = (ds * 16 + 63) / 64;
	uint16_t idx = e->sq_pi;
	uint32_t v;
	uint64_t a;

	/* control: opmod 0, wqe index, opcode; sqn, ds; CQ update */
	v = htobe32((uint32_t)idx << 8 | opcode);
	memcpy(w, &v, 4);
	v = htobe32(e->sqn << 8 | ds);
	memcpy(w + 4, &v, 4);
	w[11] = MLX5_WQE_CTRL_CQ_UPDATE;
	/* Ethernet segment */
	w[16 + 4] = cs_flags;
	w[16 + 6] = (uint8_t)(mss >> 8);
	w[16 + 7] = (uint8_t)mss;
	if (vlan_insert) {
		/* DPDK mlx5_prm.h: MLX5_ETH_WQE_VLAN_INSERT (1 << 31) | TCI */
		v = htobe32(0x80000000u | vlan_insert);
		memcpy(w + 16 + 12, &v, 4);
	} else {
		w[16 + 12] = (uint8_t)(inl >> 8);
		w[16 + 13] = (uint8_t)inl;
		memcpy(w + 16 + 14, e->mem, inl);
	}
	/* data segment for the rest */
	if (len > inl) {
		uint8_t *d = w + 16 + eseg;

		v = htobe32(len - inl);
		memcpy(d, &v, 4);
		v = htobe32(e->lkey);
		memcpy(d + 4, &v, 4);
		a = htobe64((uint64_t)(uintptr_t)(e->mem + inl));
		memcpy(d + 8, &a, 8);
	}
	for (unsigned int b = 0; b < nbb; b++)
		memcpy(e->sq + 64 * ((idx + b) & ((1u << EP_LOG_SQ) - 1)),
		       w + 64 * b, 64);
	e->sq_pi = (uint16_t)(idx + nbb);
	__atomic_store_n(&e->sq_dbr[1], htobe32(e->sq_pi), __ATOMIC_RELEASE);
	DP_BE->progress(e->dp.ctx, 0);
	return idx;
}

unsigned int ep_sq_state(struct eth_player *e)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_sq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_sq_out)] = { 0 };

	PRM_SET(query_sq_in, in, opcode, MLX5_CMD_OP_QUERY_SQ);
	PRM_SET(query_sq_in, in, sqn, e->sqn);
	DP_ASSERT(!DP_BE->obj_query(e->sq_obj, in, sizeof(in), out, sizeof(out)));
	return PRM_GET(sqc, PRM_ADDR_OF(query_sq_out, out, sq_context), state);
}

void ep_fini(struct eth_player *e)
{
	dp_player_fini(&e->dp);
	while (e->npages)
		free(e->pages[--e->npages]);
}
