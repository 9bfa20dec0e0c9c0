/* SPDX-License-Identifier: MIT */
/*
 * Raw packet QPs, as the upstream kernel's mlx5_ib builds them for
 * libmlx5 44 (create_raw_packet_qp, modify_raw_packet_qp,
 * query_raw_packet_qp_state): no QP object at all, but
 *
 *   TIS   the send side's transport interface, in the context's transport
 *         domain (qp_ctx.c allocates it at first need, as mlx5_ib gives
 *         each ucontext its own)
 *   SQ    over the QP's send ring (a buffer of its own, page aligned),
 *         naming the TIS, the send CQ and the QP's user index
 *   RQ    over the receive ring, the receive CQ and the same user index
 *   TIR   direct, to the RQ, in the same transport domain; self_lb_block
 *         takes the MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC/MC flags as
 *         mlx5_ib sets them (each flag sets its BLOCK bit)
 *
 * made in that order for the queues the QP has (no send WRs: no TIS and
 * SQ; no receive WRs or an SRQ: no RQ and TIR; neither: EINVAL) and
 * destroyed in the reverse one.  The QP's number is the SQ's, else the
 * RQ's.  CQEs find the QP by its user index, which both queues carry.
 *
 * Transitions move the queues (RST2INIT: RQ to RDY; RTR2RTS, RTS2RTS: SQ
 * to RDY; 2ERR: both to ERR; 2RST: both to RST; INIT2INIT, INIT2RTR touch
 * nothing), and a query reads the state back from them.
 */
#include <errno.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/core/caps.h"
#include "provider/core/cmd.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"

/* The kernel's MLX5_ADAPTER_PAGE_SHIFT: log_wq_stride of a send WQEBB. */
#define RAW_LOG_SQ_STRIDE 6u

int prov_wq_ts_format(struct prov_context *pctx, struct ibv_cq *cq, bool sq,
		      uint8_t *fmt)
{
	unsigned int cap = sq ? PROV_CAP_GEN(pctx, sq_ts_format) :
				PROV_CAP_GEN(pctx, rq_ts_format);
	int f;

	if (prov_qp_cq_ts_format(cq, prov_caps_ts_fr(cap),
				 prov_caps_ts_rt(cap), &f))
		return EOPNOTSUPP;
	*fmt = (uint8_t)f;
	return 0;
}

static int raw_create_tis(struct prov_qp *qp, uint32_t tdn)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_tis_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_tis_out)] = { 0 };
	void *tisc = PRM_ADDR_OF(create_tis_in, in, ctx);

	PRM_SET(create_tis_in, in, opcode, MLX5_CMD_OP_CREATE_TIS);
	PRM_SET(tisc, tisc, transport_domain, tdn);
	qp->raw.tis = prov_obj_create(qp->pctx, in, sizeof(in), out, sizeof(out));
	if (!qp->raw.tis)
		return errno;
	qp->raw.tisn = PRM_GET(create_tis_out, out, tisn);
	return 0;
}

static int raw_create_sq(struct prov_qp *qp, const struct ibv_qp_init_attr_ex *attr,
			 uint32_t sq_buf_id, uint32_t db_id)
{
	struct prov_context *pctx = qp->pctx;
	uint8_t in[PRM_ST_SZ_BYTES(create_sq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_sq_out)] = { 0 };
	void *sqc = PRM_ADDR_OF(create_sq_in, in, ctx);
	void *wq = PRM_ADDR_OF(sqc, sqc, wq);
	uint8_t ts;
	int err = prov_wq_ts_format(pctx, attr->send_cq, true, &ts);

	if (err)
		return err;
	PRM_SET(create_sq_in, in, opcode, MLX5_CMD_OP_CREATE_SQ);
	PRM_SET(sqc, sqc, flush_in_error_en, 1);
	if (PROV_CAP_ETH(pctx, multi_pkt_send_wqe))
		PRM_SET(sqc, sqc, allow_multi_pkt_send_wqe, 1);
	PRM_SET(sqc, sqc, state, MLX5_SQC_STATE_RST);
	PRM_SET(sqc, sqc, ts_format, ts);
	PRM_SET(sqc, sqc, user_index, qp->uidx);
	PRM_SET(sqc, sqc, cqn, prov_cq_cqn(attr->send_cq));
	PRM_SET(sqc, sqc, tis_lst_sz, 1);
	PRM_SET(sqc, sqc, tis_num_0, qp->raw.tisn);
	if (PROV_CAP_GEN(pctx, eth_net_offloads) && PROV_CAP_ETH(pctx, swp))
		PRM_SET(sqc, sqc, allow_swp, 1);
	PRM_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	PRM_SET(wq, wq, pd, prov_pd_pdn(attr->pd));
	PRM_SET(wq, wq, uar_page, qp->bf->page_id);
	PRM_SET(wq, wq, log_wq_stride, RAW_LOG_SQ_STRIDE);
	PRM_SET(wq, wq, log_wq_sz, prov_ilog32(qp->sq.wqe_cnt) - 1);
	PRM_SET(wq, wq, log_wq_pg_sz, 0);
	PRM_SET(wq, wq, page_offset, 0);
	PRM_SET(wq, wq, dbr_umem_valid, 1);
	PRM_SET(wq, wq, dbr_umem_id, db_id);
	PRM_SET64(wq, wq, dbr_addr, 0);
	PRM_SET(wq, wq, wq_umem_valid, 1);
	PRM_SET(wq, wq, wq_umem_id, sq_buf_id);
	PRM_SET64(wq, wq, wq_umem_offset, 0);
	qp->raw.sq = prov_obj_create(pctx, in, sizeof(in), out, sizeof(out));
	if (!qp->raw.sq)
		return errno;
	qp->raw.sqn = PRM_GET(create_sq_out, out, sqn);
	qp->raw.sq_state = MLX5_SQC_STATE_RST;
	return 0;
}

void prov_rq_create_in(void *in, const struct prov_rq_init *r)
{
	void *rqc = PRM_ADDR_OF(create_rq_in, in, ctx);
	void *wq = PRM_ADDR_OF(rqc, rqc, wq);

	PRM_SET(create_rq_in, in, opcode, MLX5_CMD_OP_CREATE_RQ);
	PRM_SET(rqc, rqc, vsd, !r->strip);
	PRM_SET(rqc, rqc, mem_rq_type, MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_INLINE);
	PRM_SET(rqc, rqc, state, MLX5_RQC_STATE_RST);
	PRM_SET(rqc, rqc, ts_format, r->ts_format);
	PRM_SET(rqc, rqc, flush_in_error_en, 1);
	PRM_SET(rqc, rqc, user_index, r->uidx);
	PRM_SET(rqc, rqc, cqn, r->cqn);
	PRM_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	PRM_SET(wq, wq, pd, r->pdn);
	PRM_SET(wq, wq, log_wq_stride, r->log_stride);
	PRM_SET(wq, wq, log_wq_sz, r->log_size);
	PRM_SET(wq, wq, dbr_umem_valid, 1);
	PRM_SET(wq, wq, dbr_umem_id, r->db_id);
	PRM_SET(wq, wq, wq_umem_valid, 1);
	PRM_SET(wq, wq, wq_umem_id, r->buf_id);
	PRM_SET64(wq, wq, wq_umem_offset, r->buf_offset);
}

static int raw_create_rq(struct prov_qp *qp, const struct ibv_qp_init_attr_ex *attr,
			 uint32_t buf_id, uint32_t db_id)
{
	struct prov_context *pctx = qp->pctx;
	uint8_t in[PRM_ST_SZ_BYTES(create_rq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_rq_out)] = { 0 };
	void *rqc = PRM_ADDR_OF(create_rq_in, in, ctx);
	struct prov_rq_init r = {
		.uidx = qp->uidx,
		.cqn = prov_cq_cqn(attr->recv_cq),
		.pdn = prov_pd_pdn(attr->pd),
		.strip = qp->create_flags & IBV_QP_CREATE_CVLAN_STRIPPING,
		.log_stride = qp->rq.wqe_shift,
		.log_size = prov_ilog32(qp->rq.wqe_cnt) - 1,
		.buf_id = buf_id,
		.db_id = db_id,
		.buf_offset = qp->rq.offset,
	};
	int err = prov_wq_ts_format(pctx, attr->recv_cq, false, &r.ts_format);

	if (err)
		return err;
	prov_rq_create_in(in, &r);
	if (qp->create_flags & IBV_QP_CREATE_SCATTER_FCS)
		PRM_SET(rqc, rqc, scatter_fcs, 1);
	if (qp->create_flags & IBV_QP_CREATE_PCI_WRITE_END_PADDING)
		PRM_SET(wq, PRM_ADDR_OF(rqc, rqc, wq), end_padding_mode,
			MLX5_WQ_END_PAD_MODE_ALIGN);
	qp->raw.rq = prov_obj_create(pctx, in, sizeof(in), out, sizeof(out));
	if (!qp->raw.rq)
		return errno;
	qp->raw.rqn = PRM_GET(create_rq_out, out, rqn);
	qp->raw.rq_state = MLX5_RQC_STATE_RST;
	return 0;
}

/* The self_lb_block bits mlx5_ib derives from the loopback flags. */
uint32_t prov_qp_raw_lb_block(uint32_t vflags)
{
	uint32_t lb = 0;

	if (vflags & PROV_QPF_SELF_LB_UC)
		lb |= MLX5_TIRC_SELF_LB_BLOCK_BLOCK_UNICAST;
	if (vflags & PROV_QPF_SELF_LB_MC)
		lb |= MLX5_TIRC_SELF_LB_BLOCK_BLOCK_MULTICAST;
	return lb;
}

/* create_raw_packet_qp_tir: a TIR allowing self loopback holds a use of
 * the kernel's local loopback reference (where the backend keeps one). */
int prov_qp_raw_tir_lb(struct prov_qp *qp, uint32_t vflags)
{
	const struct mlx5be_ops *be = qp->pctx->be;
	int err;

	if (!prov_qp_raw_lb_block(vflags) || !be->tir_local_lb)
		return 0;
	err = be->tir_local_lb(qp->raw.tir);
	if (!err)
		return 0;
	(void)prov_obj_destroy(qp->pctx, qp->raw.tir);
	qp->raw.tir = NULL;
	return -err;
}

static int raw_create_tir(struct prov_qp *qp, uint32_t tdn)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_tir_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_tir_out)] = { 0 };
	void *tirc = PRM_ADDR_OF(create_tir_in, in, ctx);

	PRM_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	PRM_SET(tirc, tirc, disp_type, MLX5_TIRC_DISP_TYPE_DIRECT);
	PRM_SET(tirc, tirc, inline_rqn, qp->raw.rqn);
	PRM_SET(tirc, tirc, transport_domain, tdn);
	if (qp->mlx5_flags & PROV_QPF_TUNNEL_OFFLOADS)
		PRM_SET(tirc, tirc, tunneled_offload_en, 1);
	PRM_SET(tirc, tirc, self_lb_block, prov_qp_raw_lb_block(qp->mlx5_flags));
	qp->raw.tir = prov_obj_create(qp->pctx, in, sizeof(in), out, sizeof(out));
	if (!qp->raw.tir)
		return errno;
	qp->raw.tirn = PRM_GET(create_tir_out, out, tirn);
	return prov_qp_raw_tir_lb(qp, qp->mlx5_flags);
}

/* Each object in reverse order; NULL ones are skipped. */
void prov_qp_raw_destroy(struct prov_qp *qp)
{
	struct prov_context *pctx = qp->pctx;
	struct mlx5be_obj **objs[] = { &qp->raw.tir, &qp->raw.rq, &qp->raw.sq,
				       &qp->raw.tis };

	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		if (*objs[i])
			(void)prov_obj_destroy(pctx, *objs[i]);
		*objs[i] = NULL;
	}
}

int prov_qp_raw_create(struct prov_qp *qp, const struct ibv_qp_init_attr_ex *attr,
		       const struct prov_qp_mem_ids *ids, uint32_t *qpn)
{
	uint32_t tdn;
	int err;

	if (!qp->sq.wqe_cnt && !qp->rq.wqe_cnt)
		return EINVAL;
	err = prov_qp_ctx_td(qp->pctx, &tdn);
	if (err)
		return err;
	if (qp->sq.wqe_cnt) {
		err = raw_create_tis(qp, tdn);
		if (!err)
			err = raw_create_sq(qp, attr, ids->sq_buf, ids->db);
		if (err)
			goto err;
	}
	if (qp->rq.wqe_cnt) {
		err = raw_create_rq(qp, attr, ids->buf, ids->db);
		if (!err)
			err = raw_create_tir(qp, tdn);
		if (err)
			goto err;
	}
	*qpn = qp->sq.wqe_cnt ? qp->raw.sqn : qp->raw.rqn;
	return 0;
err:
	prov_qp_raw_destroy(qp);
	return err;
}

/*
 * libmlx5's eth_min_inline_size from what mlx5_ib answers at
 * alloc_ucontext (mlx5_query_min_inline, plus one): the device's
 * wqe_inline_mode, or with VPORT_CONTEXT the NIC vport's
 * min_wqe_inline_mode; none required is 0 bytes, anything else the 18 of
 * an L2 header.
 */
uint8_t prov_qp_raw_eth_min_inline(struct prov_context *pctx)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_nic_vport_context_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_nic_vport_context_out)] = { 0 };
	unsigned int mode;

	switch (PROV_CAP_ETH(pctx, wqe_inline_mode)) {
	case MLX5_CAP_INLINE_MODE_L2:
		mode = MLX5_INLINE_MODE_L2;
		break;
	case MLX5_CAP_INLINE_MODE_VPORT_CONTEXT:
		PRM_SET(query_nic_vport_context_in, in, opcode,
			MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
		/* mlx5_query_min_inline ignores a failure: L2 stays. */
		mode = MLX5_INLINE_MODE_L2;
		if (!prov_cmd_exec(pctx, in, sizeof(in), out, sizeof(out)))
			mode = PRM_GET(query_nic_vport_context_out, out,
				       nic_vport_context.min_wqe_inline_mode);
		break;
	default:
		mode = MLX5_INLINE_MODE_NONE;
		break;
	}
	return mode == MLX5_INLINE_MODE_NONE ? 0 : PROV_ETH_L2_INLINE_HEADER_SIZE;
}

/* ---- transitions ---- */

/* MODIFY_RQ or MODIFY_SQ (the same layout) of one queue to @next. */
static int raw_modify_wq(struct prov_qp *qp, bool sq, uint8_t next)
{
	uint8_t in[PRM_ST_SZ_BYTES(modify_rq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(modify_rq_out)] = { 0 };
	uint8_t *state = sq ? &qp->raw.sq_state : &qp->raw.rq_state;
	int ret;

	_Static_assert(PRM_ST_SZ_BYTES(modify_rq_in) ==
		       PRM_ST_SZ_BYTES(modify_sq_in), "same inbox");
	_Static_assert(PRM_BIT_OFF(modify_rq_in, rq_state) ==
		       PRM_BIT_OFF(modify_sq_in, sq_state), "same state");
	_Static_assert(PRM_BIT_OFF(modify_rq_in, rqn) ==
		       PRM_BIT_OFF(modify_sq_in, sqn), "same number");
	_Static_assert(PRM_BIT_OFF(modify_rq_in, ctx.state) ==
		       PRM_BIT_OFF(modify_sq_in, ctx.state), "same context state");
	PRM_SET(modify_rq_in, in, opcode,
		sq ? MLX5_CMD_OP_MODIFY_SQ : MLX5_CMD_OP_MODIFY_RQ);
	PRM_SET(modify_rq_in, in, rq_state, *state);
	PRM_SET(modify_rq_in, in, rqn, sq ? qp->raw.sqn : qp->raw.rqn);
	PRM_SET(modify_rq_in, in, ctx.state, next);
	ret = prov_obj_modify(qp->pctx, sq ? qp->raw.sq : qp->raw.rq, in,
			      sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	*state = next;
	return 0;
}

/* modify_raw_packet_qp(): @op is the QP command the transition would
 * take; @rate a rate limit RTR2RTS/RTS2RTS were given (0: none), which
 * needs packet pacing (mlx5_rl_add_rate: EOPNOTSUPP without a table). */
int prov_qp_raw_modify(struct prov_qp *qp, uint16_t op, uint32_t rate)
{
	bool rq = qp->raw.rq != NULL, sq = qp->raw.sq != NULL;
	uint8_t rq_state = MLX5_RQC_STATE_RST, sq_state = MLX5_SQC_STATE_RST;
	int err;

	switch (op) {
	case MLX5_CMD_OP_RST2INIT_QP:
		rq_state = MLX5_RQC_STATE_RDY;
		sq_state = MLX5_SQC_STATE_RST;
		break;
	case MLX5_CMD_OP_2ERR_QP:
		rq_state = MLX5_RQC_STATE_ERR;
		sq_state = MLX5_SQC_STATE_ERR;
		break;
	case MLX5_CMD_OP_2RST_QP:
		break;
	case MLX5_CMD_OP_RTR2RTS_QP:
	case MLX5_CMD_OP_RTS2RTS_QP:
		/* Rate limits need packet pacing, which is not offered. */
		if (rate)
			return EOPNOTSUPP;
		rq = false;
		sq_state = MLX5_SQC_STATE_RDY;
		break;
	case MLX5_CMD_OP_INIT2INIT_QP:
	case MLX5_CMD_OP_INIT2RTR_QP:
		return 0;
	default:
		return EINVAL;
	}
	if (rq) {
		err = raw_modify_wq(qp, false, rq_state);
		if (err)
			return err;
	}
	if (sq)
		return raw_modify_wq(qp, true, sq_state);
	return 0;
}

/* ---- query ---- */

/* The queue states a QP's state is read from (sqrq_state_to_qp_state):
 * -1 where they contradict each other, -2 where the kernel's own view of
 * the QP's state stands.  Index 3 is "no such queue". */
static const int8_t raw_sqrq_state[4][4] = {
	/* RQ RST */ { IBV_QPS_RESET, -1, -1, IBV_QPS_RESET },
	/* RQ RDY */ { -2, -2, IBV_QPS_SQE, -2 },
	/* RQ ERR */ { -1, -1, IBV_QPS_ERR, IBV_QPS_ERR },
	/* none   */ { -2, -2, -2, -1 },
};

/* QUERY_SQ / QUERY_RQ state fields: 0..2 (MLX5_*QC_STATE_ERR is 3). */
static unsigned int raw_state_index(unsigned int st)
{
	return st == MLX5_SQC_STATE_ERR ? 2 : st;
}

static int raw_query_state(struct prov_qp *qp, bool sq, unsigned int *st)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_sq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_sq_out)] = { 0 };
	int ret;

	_Static_assert(PRM_ST_SZ_BYTES(query_sq_in) ==
		       PRM_ST_SZ_BYTES(query_rq_in), "same inbox");
	_Static_assert(PRM_ST_SZ_BYTES(query_sq_out) ==
		       PRM_ST_SZ_BYTES(query_rq_out), "same outbox");
	if (sq) {
		PRM_SET(query_sq_in, in, opcode, MLX5_CMD_OP_QUERY_SQ);
		PRM_SET(query_sq_in, in, sqn, qp->raw.sqn);
	} else {
		PRM_SET(query_rq_in, in, opcode, MLX5_CMD_OP_QUERY_RQ);
		PRM_SET(query_rq_in, in, rqn, qp->raw.rqn);
	}
	ret = prov_obj_query(qp->pctx, sq ? qp->raw.sq : qp->raw.rq, in,
			     sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	*st = sq ? PRM_GET(query_sq_out, out, sq_context.state) :
		   PRM_GET(query_rq_out, out, rq_context.state);
	return 0;
}

/* query_raw_packet_qp_state(): the QP's state from its queues'. */
int prov_qp_raw_query(struct prov_qp *qp, enum ibv_qp_state *state)
{
	unsigned int sq = 3, rq = 3, s;
	int8_t st;
	int err;

	if (qp->raw.sq) {
		err = raw_query_state(qp, true, &s);
		if (err)
			return err;
		sq = raw_state_index(s);
	}
	if (qp->raw.rq) {
		err = raw_query_state(qp, false, &s);
		if (err)
			return err;
		rq = raw_state_index(s);
	}
	if (sq > 3 || rq > 3)
		return EINVAL;
	st = raw_sqrq_state[rq][sq];
	if (st == -1)
		return EINVAL;
	*state = st == -2 ? qp->kstate : (enum ibv_qp_state)st;
	return 0;
}
