/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the Ethernet queue suites (see test_fw_eth_util.h).
 */
#include "test_fw_eth_util.h"

static void etht_sq_changed(void *arg, struct emu_fw_sq *sq)
{
	struct etht_env *e = arg;

	e->sq_calls++;
	e->last_state = emu_fw_sq_state(sq);
	e->last_dying = atomic_load(&sq->obj.users) < 0;
}

static void etht_rq_changed(void *arg, struct emu_fw_rq *rq)
{
	struct etht_env *e = arg;

	e->rq_calls++;
	e->last_state = emu_fw_rq_state(rq);
	e->last_dying = atomic_load(&rq->obj.users) < 0;
}

void etht_init(struct emu_fw **fw, struct etht_env *e)
{
	memset(e, 0, sizeof(*e));
	qpt_fixture_init(fw, &e->q);
	e->td = fwt_alloc(*fw, e->q.uid, ALLOC_TRANSPORT_DOMAIN,
			  alloc_transport_domain, transport_domain);
	e->ops.sq_changed = etht_sq_changed;
	e->ops.rq_changed = etht_rq_changed;
	e->ops.arg = e;
	emu_fw_set_engine(*fw, &e->ops);
}

void etht_fini(struct emu_fw **fw, struct etht_env *e)
{
	emu_fw_set_engine(*fw, NULL);
	qpt_fixture_fini(fw, &e->q);
}

uint8_t etht_id_cmd(struct etht_env *e, struct fwt_mbox *m, uint16_t op,
		    uint32_t id, size_t outlen)
{
	fwt_mbox_init(m, op, 0, e->q.uid, PRM_ST_SZ_BYTES(destroy_tis_in),
		      outlen);
	PRM_SET(destroy_tis_in, m->in, tisn, id);
	return fwt_exec(e->q.fw, m);
}

uint32_t etht_create(struct etht_env *e, struct fwt_mbox *m)
{
	fwt_exec(e->q.fw, m);
	ck_fw_ok(m);
	return PRM_GET(create_tis_out, m->out, tisn);
}

struct emu_fw_obj *etht_get(struct etht_env *e, enum emu_fw_obj_type t,
			    uint32_t id)
{
	struct emu_fw_obj *o = emu_fw_obj_get(e->q.fw, t, id);

	ck_assert_ptr_nonnull(o);
	return o;
}

void etht_tis_mbox(struct etht_env *e, struct fwt_mbox *m)
{
	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_TIS, 0, e->q.uid,
		      PRM_ST_SZ_BYTES(create_tis_in),
		      PRM_ST_SZ_BYTES(create_tis_out));
	PRM_SET(tisc, ETHT_TISC(m), transport_domain, e->td);
	PRM_SET(tisc, ETHT_TISC(m), prio, 3 << 1);	/* traffic class 3 */
}

uint32_t etht_tis(struct etht_env *e)
{
	struct fwt_mbox m;

	etht_tis_mbox(e, &m);
	return etht_create(e, &m);
}

/* The wq of an SQ or RQ: a slot of e's memory, its doorbell record. */
static void etht_wq_fill(struct etht_env *e, void *wq, unsigned int log_sz,
			 unsigned int log_stride)
{
	unsigned int slot = qpt_slot(&e->q);

	PRM_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	PRM_SET(wq, wq, pd, e->q.pd);
	PRM_SET(wq, wq, log_wq_sz, log_sz);
	PRM_SET(wq, wq, log_wq_stride, log_stride);
	PRM_SET(wq, wq, wq_umem_valid, 1);
	PRM_SET(wq, wq, wq_umem_id, e->q.mem.umem_id);
	PRM_SET64(wq, wq, wq_umem_offset, (uint64_t)slot * QPT_SLOT_BYTES);
	PRM_SET(wq, wq, dbr_umem_valid, 1);
	PRM_SET(wq, wq, dbr_umem_id, e->q.dbr.umem_id);
	PRM_SET64(wq, wq, dbr_addr, (uint64_t)slot * 64);
}

void etht_sq_mbox(struct etht_env *e, struct fwt_mbox *m, uint32_t tisn)
{
	void *sqc = ETHT_SQC(m);

	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_SQ, 0, e->q.uid,
		      PRM_ST_SZ_BYTES(create_sq_in),
		      PRM_ST_SZ_BYTES(create_sq_out));
	PRM_SET(sqc, sqc, cqn, e->q.cq);
	PRM_SET(sqc, sqc, user_index, 0x1234);
	PRM_SET(sqc, sqc, flush_in_error_en, 1);
	PRM_SET(sqc, sqc, min_wqe_inline_mode, MLX5_INLINE_MODE_L2);
	PRM_SET(sqc, sqc, ts_format, MLX5_TIMESTAMP_FORMAT_DEFAULT);
	PRM_SET(sqc, sqc, tis_lst_sz, 1);
	PRM_SET(sqc, sqc, tis_num_0, tisn);
	etht_wq_fill(e, ETHT_SQ_WQ(m), 6, 6);
	PRM_SET(wq, ETHT_SQ_WQ(m), uar_page, e->q.uar);
}

uint32_t etht_sq(struct etht_env *e, uint32_t tisn)
{
	struct fwt_mbox m;

	etht_sq_mbox(e, &m, tisn);
	return etht_create(e, &m);
}

void etht_rq_mbox(struct etht_env *e, struct fwt_mbox *m)
{
	void *rqc = ETHT_RQC(m);

	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_RQ, 0, e->q.uid,
		      PRM_ST_SZ_BYTES(create_rq_in),
		      PRM_ST_SZ_BYTES(create_rq_out));
	PRM_SET(rqc, rqc, cqn, e->q.cq2);
	PRM_SET(rqc, rqc, user_index, 0x4321);
	PRM_SET(rqc, rqc, vsd, 1);
	PRM_SET(rqc, rqc, flush_in_error_en, 1);
	PRM_SET(rqc, rqc, ts_format, MLX5_TIMESTAMP_FORMAT_DEFAULT);
	etht_wq_fill(e, ETHT_RQ_WQ(m), 6, 6);
}

uint32_t etht_rq(struct etht_env *e)
{
	struct fwt_mbox m;

	etht_rq_mbox(e, &m);
	return etht_create(e, &m);
}

static uint8_t etht_modify(struct etht_env *e, struct fwt_mbox *m,
			   uint16_t op, uint32_t id, uint32_t cur, uint32_t to,
			   uint64_t bitmask)
{
	/* modify_sq_in and modify_rq_in share their layout. */
	fwt_mbox_init(m, op, 0, e->q.uid, PRM_ST_SZ_BYTES(modify_sq_in),
		      PRM_ST_SZ_BYTES(modify_sq_out));
	PRM_SET(modify_sq_in, m->in, sqn, id);
	PRM_SET(modify_sq_in, m->in, sq_state, cur);
	PRM_SET64(modify_sq_in, m->in, modify_bitmask, bitmask);
	PRM_SET(sqc, PRM_ADDR_OF(modify_sq_in, m->in, ctx), state, to);
	return fwt_exec(e->q.fw, m);
}

uint8_t etht_modify_sq(struct etht_env *e, struct fwt_mbox *m, uint32_t sqn,
		       uint32_t cur, uint32_t to, uint64_t bitmask)
{
	return etht_modify(e, m, MLX5_CMD_OP_MODIFY_SQ, sqn, cur, to, bitmask);
}

uint8_t etht_modify_rq(struct etht_env *e, struct fwt_mbox *m, uint32_t rqn,
		       uint32_t cur, uint32_t to, uint64_t bitmask)
{
	return etht_modify(e, m, MLX5_CMD_OP_MODIFY_RQ, rqn, cur, to, bitmask);
}

void etht_rqt_mbox(struct etht_env *e, struct fwt_mbox *m, uint32_t max,
		   const uint32_t *rqns, uint32_t n)
{
	void *rqtc = ETHT_RQTC(m);

	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_RQT, 0, e->q.uid,
		      PRM_ST_SZ_BYTES(create_rqt_in) + 4 * (size_t)n,
		      PRM_ST_SZ_BYTES(create_rqt_out));
	PRM_SET(rqtc, rqtc, rqt_max_size, max);
	PRM_SET(rqtc, rqtc, rqt_actual_size, n);
	for (uint32_t i = 0; i < n; i++)
		PRM_SET(rq_num, PRM_ARRAY_ADDR(rqtc, rqtc, rq_num, i), rq_num,
			rqns[i]);
}

uint32_t etht_rqt(struct etht_env *e, uint32_t max, const uint32_t *rqns,
		  uint32_t n)
{
	struct fwt_mbox m;

	etht_rqt_mbox(e, &m, max, rqns, n);
	return etht_create(e, &m);
}

static void etht_tir_mbox(struct etht_env *e, struct fwt_mbox *m)
{
	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_TIR, 0, e->q.uid,
		      PRM_ST_SZ_BYTES(create_tir_in),
		      PRM_ST_SZ_BYTES(create_tir_out));
	PRM_SET(tirc, ETHT_TIRC(m), transport_domain, e->td);
	PRM_SET(tirc, ETHT_TIRC(m), self_lb_block,
		MLX5_TIRC_SELF_LB_BLOCK_BLOCK_UNICAST);
}

void etht_tir_direct_mbox(struct etht_env *e, struct fwt_mbox *m,
			  uint32_t rqn)
{
	etht_tir_mbox(e, m);
	PRM_SET(tirc, ETHT_TIRC(m), disp_type, MLX5_TIRC_DISP_TYPE_DIRECT);
	PRM_SET(tirc, ETHT_TIRC(m), inline_rqn, rqn);
}

void etht_tir_indirect_mbox(struct etht_env *e, struct fwt_mbox *m,
			    uint32_t rqtn)
{
	void *tirc = ETHT_TIRC(m);
	uint8_t *key = PRM_ADDR_OF(tirc, tirc, rx_hash_toeplitz_key);
	void *sel = PRM_ADDR_OF(tirc, tirc, rx_hash_field_selector_outer);

	etht_tir_mbox(e, m);
	PRM_SET(tirc, tirc, disp_type, MLX5_TIRC_DISP_TYPE_INDIRECT);
	PRM_SET(tirc, tirc, indirect_table, rqtn);
	PRM_SET(tirc, tirc, rx_hash_fn, MLX5_RX_HASH_FN_TOEPLITZ);
	for (int i = 0; i < 40; i++)
		key[i] = (uint8_t)i;
	PRM_SET(rx_hash_field_select, sel, l3_prot_type,
		MLX5_L3_PROT_TYPE_IPV4);
	PRM_SET(rx_hash_field_select, sel, l4_prot_type,
		MLX5_L4_PROT_TYPE_TCP);
	PRM_SET(rx_hash_field_select, sel, selected_fields,
		MLX5_HASH_FIELD_SEL_SRC_IP | MLX5_HASH_FIELD_SEL_DST_IP |
		MLX5_HASH_FIELD_SEL_L4_SPORT | MLX5_HASH_FIELD_SEL_L4_DPORT);
}

int etht_users(struct etht_env *e, enum emu_fw_obj_type t, uint32_t id)
{
	struct emu_fw_obj *o = etht_get(e, t, id);
	int u = atomic_load(&o->users);

	emu_fw_obj_put(o);
	return u;
}
