/* SPDX-License-Identifier: MIT */
/*
 * The ibv_cq_ex poll functions, as libmlx5 44 (cq.c) installs them:
 * start_poll takes the CQ's lock (none for a single-threaded CQ) and
 * consumes one CQE, next_poll the next, end_poll publishes the consumer
 * index and lets go; start_poll and next_poll give ENOENT when the CQ is
 * empty (start_poll then holds nothing), EINVAL for attributes with a
 * comp_mask, -2 for a CQE no queue owns; a start_poll that finds nothing
 * tells the device (the progress op).  Each CQE is parsed as
 * ibv_poll_cq parses it (wr_id and status at once, the queue retired up
 * to it) and kept; the read functions decode that copy lazily, and only
 * those of the wc_flags the CQ was created with are installed.  As in
 * libmlx5, read_wc_flags reports immediate data and invalidation for
 * receives only, and read_imm_data gives an invalidated rkey in host
 * order.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/cq_int.h"

/* libmlx5's MLX5_FLOW_TAG_MASK. */
#define PROV_FLOW_TAG_MASK 0x000fffff

static struct prov_cq *ex_cq(struct ibv_cq_ex *ex)
{
	return (struct prov_cq *)ex;
}

/* Consumes CQEs until one reports: 0, ENOENT when empty, or CQ_POLL_ERR. */
static int ex_advance(struct prov_cq *cq)
{
	struct ibv_wc wc;

	for (;;) {
		struct mlx5_cqe64 *cqe = prov_cq_next_cqe(cq);
		int err;

		if (!cqe) {
			cq->cur_valid = false;
			return ENOENT;
		}
		memcpy(&cq->cur, cqe, sizeof(cq->cur));
		err = prov_cq_parse(cq, &cq->cur, &wc, &cq->cur_opcode);
		if (err == CQ_EMPTY)
			continue;
		if (err != CQ_OK) {
			cq->cur_valid = false;
			return err;
		}
		cq->cur_valid = true;
		cq->ex.wr_id = wc.wr_id;
		cq->ex.status = wc.status;
		return 0;
	}
}

static int ex_start_poll(struct ibv_cq_ex *ex, struct ibv_poll_cq_attr *attr)
{
	struct prov_cq *cq = ex_cq(ex);
	int err;

	if (attr && attr->comp_mask)
		return EINVAL;
	prov_cq_lock(cq);
	err = ex_advance(cq);
	/* Empty or failed: no end_poll follows, so unlock here. */
	if (err) {
		prov_cq_unlock(cq);
		prov_cq_dp_finish(cq);
	}
	if (err == ENOENT)
		prov_progress(cq->pctx, MLX5BE_PROGRESS_POLL);
	return err;
}

static int ex_next_poll(struct ibv_cq_ex *ex)
{
	return ex_advance(ex_cq(ex));
}

static void ex_end_poll(struct ibv_cq_ex *ex)
{
	struct prov_cq *cq = ex_cq(ex);

	prov_cq_update_ci(cq);
	prov_cq_unlock(cq);
	prov_cq_dp_finish(cq);
}

static enum ibv_wc_opcode ex_read_opcode(struct ibv_cq_ex *ex)
{
	struct prov_cq *cq = ex_cq(ex);
	struct ibv_wc wc = { 0 };

	switch (cq->cur.op_own >> 4) {
	case MLX5_CQE_RESP_WR_IMM:
		return IBV_WC_RECV_RDMA_WITH_IMM;
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		return IBV_WC_RECV;
	case MLX5_CQE_REQ:
		prov_cq_req_opcode(&cq->cur, &wc, cq->cur_opcode);
		return wc.opcode;
	}
	return 0;
}

static uint32_t ex_read_vendor_err(struct ibv_cq_ex *ex)
{
	return ((struct mlx5_err_cqe *)&ex_cq(ex)->cur)->vendor_err_synd;
}

static uint32_t ex_read_byte_len(struct ibv_cq_ex *ex)
{
	return be32toh(ex_cq(ex)->cur.byte_cnt);
}

static __be32 ex_read_imm_data(struct ibv_cq_ex *ex)
{
	struct prov_cq *cq = ex_cq(ex);

	/* The invalidated rkey is returned in host order. */
	if ((cq->cur.op_own >> 4) == MLX5_CQE_RESP_SEND_INV)
		return (__be32)be32toh(cq->cur.imm_inval_pkey);
	return cq->cur.imm_inval_pkey;
}

static uint32_t ex_read_qp_num(struct ibv_cq_ex *ex)
{
	return be32toh(ex_cq(ex)->cur.sop_drop_qpn) & 0xffffff;
}

static uint32_t ex_read_src_qp(struct ibv_cq_ex *ex)
{
	return be32toh(ex_cq(ex)->cur.flags_rqpn) & 0xffffff;
}

static unsigned int ex_read_wc_flags(struct ibv_cq_ex *ex)
{
	struct prov_cq *cq = ex_cq(ex);
	unsigned int flags = cq->cur_csum_valid ? prov_cq_csum_ok(&cq->cur) : 0;

	switch (cq->cur.op_own >> 4) {
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND_IMM:
		flags = IBV_WC_WITH_IMM;
		break;
	case MLX5_CQE_RESP_SEND_INV:
		flags = IBV_WC_WITH_INV;
		break;
	}
	if ((be32toh(cq->cur.flags_rqpn) >> 28) & 3)
		flags |= IBV_WC_GRH;
	return flags;
}

static uint32_t ex_read_slid(struct ibv_cq_ex *ex)
{
	return be16toh(ex_cq(ex)->cur.slid);
}

static uint8_t ex_read_sl(struct ibv_cq_ex *ex)
{
	return (be32toh(ex_cq(ex)->cur.flags_rqpn) >> 24) & 0xf;
}

static uint8_t ex_read_dlid_path_bits(struct ibv_cq_ex *ex)
{
	return ex_cq(ex)->cur.ml_path & 0x7f;
}

static uint64_t ex_read_completion_ts(struct ibv_cq_ex *ex)
{
	return be64toh(ex_cq(ex)->cur.timestamp);
}

/* mlx5dv_ts_to_ns() over the kernel's clock info. */
static uint64_t ex_read_completion_wallclock_ns(struct ibv_cq_ex *ex)
{
	struct prov_cq *cq = ex_cq(ex);
	struct mlx5be_clock_info ci = { 0 };
	uint64_t ts = be64toh(cq->cur.timestamp);
	uint64_t delta, nsec;

	if (cq->rt_ts)
		return ts;
	if (!cq->pctx->be->clock_info ||
	    cq->pctx->be->clock_info(cq->pctx->bectx, &ci))
		return 0;
	delta = (ts - ci.last_cycles) & ci.mask;
	nsec = ci.nsec;
	/* Guess whether the stamp is before the last update. */
	if (delta > ci.mask / 2) {
		delta = (ci.last_cycles - ts) & ci.mask;
		nsec -= ((delta * ci.mult) - ci.frac) >> ci.shift;
	} else {
		nsec += ((delta * ci.mult) + ci.frac) >> ci.shift;
	}
	return nsec;
}

static uint16_t ex_read_cvlan(struct ibv_cq_ex *ex)
{
	return be16toh(ex_cq(ex)->cur.vlan_info);
}

static uint32_t ex_read_flow_tag(struct ibv_cq_ex *ex)
{
	return be32toh(ex_cq(ex)->cur.sop_drop_qpn) & PROV_FLOW_TAG_MASK;
}

void prov_cq_ex_set_poll_ops(struct prov_cq *cq)
{
	struct ibv_cq_ex *ex = &cq->ex;
	uint64_t f = cq->wc_flags;

	ex->start_poll = ex_start_poll;
	ex->next_poll = ex_next_poll;
	ex->end_poll = ex_end_poll;
	ex->read_opcode = ex_read_opcode;
	ex->read_vendor_err = ex_read_vendor_err;
	ex->read_wc_flags = ex_read_wc_flags;
	if (f & IBV_WC_EX_WITH_BYTE_LEN)
		ex->read_byte_len = ex_read_byte_len;
	if (f & IBV_WC_EX_WITH_IMM)
		ex->read_imm_data = ex_read_imm_data;
	if (f & IBV_WC_EX_WITH_QP_NUM)
		ex->read_qp_num = ex_read_qp_num;
	if (f & IBV_WC_EX_WITH_SRC_QP)
		ex->read_src_qp = ex_read_src_qp;
	if (f & IBV_WC_EX_WITH_SLID)
		ex->read_slid = ex_read_slid;
	if (f & IBV_WC_EX_WITH_SL)
		ex->read_sl = ex_read_sl;
	if (f & IBV_WC_EX_WITH_DLID_PATH_BITS)
		ex->read_dlid_path_bits = ex_read_dlid_path_bits;
	if (f & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		ex->read_completion_ts = ex_read_completion_ts;
	if (f & IBV_WC_EX_WITH_CVLAN)
		ex->read_cvlan = ex_read_cvlan;
	if (f & IBV_WC_EX_WITH_FLOW_TAG)
		ex->read_flow_tag = ex_read_flow_tag;
	if (f & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		ex->read_completion_wallclock_ns = ex_read_completion_wallclock_ns;
}
