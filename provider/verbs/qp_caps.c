/* SPDX-License-Identifier: MIT */
/*
 * Queue pair sizing, as rdma-core 44's libmlx5 (sq_overhead,
 * calc_send_wqe, calc_sq_size, calc_rq_size, mlx5_calc_wq_size) does it,
 * and mlx5_ib's check that the receive queue it computes is that one.
 *
 * A send WQE is the type's overhead (control segment, the largest of
 * remote address, atomic and UMR/memory-window segments, plus datagram for
 * UD and DCI, XRC for XRC, Ethernet for raw) and max_send_sge data
 * segments, or the overhead and an inline segment of max_inline_data,
 * rounded to 64-byte WQEBBs; the SQ is prov_roundup_pow2(max_send_wr * wqe size)
 * bytes; max_inline_data comes back as what the WQE size leaves.  A
 * receive WQE is max(max_recv_sge, 1) data segments rounded to a power of
 * two; the RQ holds prov_roundup_pow2(max_recv_wr) of them (64 bytes at least).
 * The caps come back as libmlx5 reports them: max_send_wr = WQEs that fit,
 * max_recv_wr = RQ WQEs, max_recv_sge = what a WQE holds, max_send_sge as
 * asked.  Caps beyond the WQE budget or the queue limits are EINVAL.
 */
#include <errno.h>

#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"

static uint32_t align_up(uint32_t v, uint32_t a)
{
	return (v + a - 1) / a * a;
}

/* ---- sizing: libmlx5's sq_overhead, calc_send_wqe, calc_sq/rq_size ---- */

/* sq_overhead(): the bytes of a send WQE before its data; 0 or EINVAL. */
static int qp_sq_overhead(enum ibv_qp_type type, bool dci, uint64_t ops,
			  uint64_t mlx5_ops, uint32_t *ovh)
{
	uint32_t size = PROV_WQE_CTRL_SZ, rdma = 0, atomic = 0, mw = 0;

	if (ops & (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		   IBV_QP_EX_WITH_RDMA_READ))
		rdma = PROV_WQE_CTRL_SZ + PROV_WQE_RADDR_SZ;
	if (ops & (IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		   IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD))
		atomic = PROV_WQE_CTRL_SZ + PROV_WQE_RADDR_SZ + PROV_WQE_ATOMIC_SZ;
	if ((ops & (IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV)) ||
	    (mlx5_ops & (MLX5DV_QP_EX_WITH_MR_INTERLEAVED |
			 MLX5DV_QP_EX_WITH_MR_LIST)))
		mw = PROV_WQE_CTRL_SZ + PROV_WQE_UMR_CTRL_SZ + PROV_WQE_MKEY_SZ + 64;
	if (size < rdma)
		size = rdma;
	if (size < atomic)
		size = atomic;
	if (size < mw)
		size = mw;
	switch (type) {
	case IBV_QPT_DRIVER:
		if (!dci)
			return EINVAL;
		/* fallthrough */
	case IBV_QPT_UD:
		*ovh = size + PROV_WQE_DATAGRAM_SZ;
		return 0;
	case IBV_QPT_XRC_RECV:
	case IBV_QPT_XRC_SEND:
		*ovh = size + PROV_WQE_XRC_SZ;
		return 0;
	case IBV_QPT_RAW_PACKET:
		*ovh = size + PROV_WQE_ETH_SZ;
		return 0;
	case IBV_QPT_RC:
	case IBV_QPT_UC:
		*ovh = size;
		return 0;
	default:
		return EINVAL;
	}
}

/* The default operations per type (sq_overhead without send_ops_flags). */
static uint64_t qp_default_ops(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_UD:
		return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		       IBV_QP_EX_WITH_TSO;
	case IBV_QPT_RAW_PACKET:
		return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO;
	default:
		return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_INV |
		       IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_WRITE |
		       IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		       IBV_QP_EX_WITH_RDMA_READ |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		       IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW;
	}
}

/* sq_overhead(): the operations asked for, else the type's defaults, and
 * the mlx5dv ones (UMR room for MR_LIST and MR_INTERLEAVED). */
static int qp_overhead(const struct prov_qp *qp,
		       const struct ibv_qp_init_attr_ex *attr, uint32_t *ovh)
{
	uint64_t ops = (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ?
		       attr->send_ops_flags : qp_default_ops(attr->qp_type);

	return qp_sq_overhead(attr->qp_type, qp->dc == PROV_QP_DCI, ops,
			      qp->dv_ops, ovh);
}

/* libmlx5's limits, as the kernel answers alloc_ucontext. */
struct qp_limits {
	uint32_t max_sq_desc;	/* max_wqe_sz_sq */
	uint32_t max_rq_desc;	/* max_wqe_sz_rq */
	uint32_t max_send_wqebb;	/* 1 << log_max_qp_sz */
	uint32_t max_recv_wr;	/* 1 << log_max_qp_sz */
};

static void qp_limits(struct prov_context *pctx, struct qp_limits *l)
{
	l->max_sq_desc = PROV_CAP_GEN(pctx, max_wqe_sz_sq);
	l->max_rq_desc = PROV_CAP_GEN(pctx, max_wqe_sz_rq);
	l->max_send_wqebb = UINT32_C(1) << PROV_CAP_GEN(pctx, log_max_qp_sz);
	l->max_recv_wr = l->max_send_wqebb;
}

/* calc_send_wqe(): the send WQE size in bytes (*wqe_size); 0 or EINVAL. */
static int qp_calc_send_wqe(const struct qp_limits *l, struct prov_qp *qp,
			    struct ibv_qp_init_attr_ex *attr, uint32_t *wqe_size)
{
	uint64_t size, inl = 0, tot, max_gather;
	uint32_t ovh;
	int ret = qp_overhead(qp, attr, &ovh);

	if (ret)
		return ret;
	size = ovh;
	if (attr->cap.max_inline_data)
		inl = size + ((PROV_WQE_INL_SZ + (uint64_t)attr->cap.max_inline_data +
			       15) & ~UINT64_C(15));
	if (attr->comp_mask & IBV_QP_INIT_ATTR_MAX_TSO_HEADER)
		size += ((uint64_t)attr->max_tso_header + 15) & ~UINT64_C(15);
	max_gather = size < l->max_sq_desc ? (l->max_sq_desc - size) /
					       PROV_WQE_DATA_SZ : 0;
	if (attr->cap.max_send_sge > max_gather)
		return EINVAL;
	size += (uint64_t)attr->cap.max_send_sge * PROV_WQE_DATA_SZ;
	tot = size > inl ? size : inl;
	if (tot > l->max_sq_desc)
		return EINVAL;
	*wqe_size = align_up((uint32_t)tot, PROV_SEND_WQE_BB);
	return 0;
}

/* calc_sq_size(): the SQ's bytes (*wq_size, 0 without send WRs); 0 or
 * EINVAL. */
static int qp_calc_sq_size(const struct qp_limits *l, struct prov_qp *qp,
			   struct ibv_qp_init_attr_ex *attr, uint64_t *wq_size)
{
	uint32_t wqe_size, ovh;
	int ret;

	*wq_size = 0;
	if (!attr->cap.max_send_wr)
		return 0;
	ret = qp_calc_send_wqe(l, qp, attr, &wqe_size);
	if (ret)
		return ret;
	if (wqe_size > l->max_sq_desc)
		return EINVAL;
	qp_overhead(qp, attr, &ovh);	/* it succeeded in calc_send_wqe */
	qp->max_inline_data = (int)wqe_size - (int)ovh - (int)PROV_WQE_INL_SZ;
	attr->cap.max_inline_data = (uint32_t)qp->max_inline_data;
	if (attr->cap.max_send_wr > 0x7fffffffu / l->max_sq_desc)
		return EINVAL;
	*wq_size = prov_roundup_pow2((uint64_t)attr->cap.max_send_wr *
				     (uint64_t)wqe_size);
	qp->sq.wqe_cnt = (unsigned int)(*wq_size / PROV_SEND_WQE_BB);
	if (qp->sq.wqe_cnt > l->max_send_wqebb)
		return EINVAL;
	qp->sq.wqe_shift = 6;
	qp->sq.max_gs = (int)attr->cap.max_send_sge;
	qp->sq.max_post = (unsigned int)(*wq_size / (uint64_t)wqe_size);
	return 0;
}

/* calc_rq_size(): the RQ's bytes (*rq_size, 0 without receive WRs or with
 * an SRQ); 0 or EINVAL. */
static int qp_calc_rq_size(const struct qp_limits *l, struct prov_qp *qp,
			   struct ibv_qp_init_attr_ex *attr, uint64_t *rq_size)
{
	uint32_t wqe_size = 0, num_scatter;
	uint64_t wq_size;

	*rq_size = 0;
	if (!attr->cap.max_recv_wr)
		return 0;
	if (attr->cap.max_recv_wr > l->max_recv_wr)
		return EINVAL;
	if (!attr->srq) {	/* mlx5_calc_rcv_wqe() */
		uint64_t size;

		num_scatter = attr->cap.max_recv_sge ? attr->cap.max_recv_sge : 1;
		size = (uint64_t)PROV_WQE_DATA_SZ * num_scatter +
		       (qp->wq_sig ? PROV_WQE_DATA_SZ : 0);
		if (size > l->max_rq_desc)
			return EINVAL;
		wqe_size = (uint32_t)prov_roundup_pow2(size);
		if (wqe_size > l->max_rq_desc)
			return EINVAL;
	}
	wq_size = prov_roundup_pow2(attr->cap.max_recv_wr) * wqe_size;
	if (wqe_size) {
		if (wq_size < PROV_SEND_WQE_BB)
			wq_size = PROV_SEND_WQE_BB;
		qp->rq.wqe_cnt = (unsigned int)(wq_size / wqe_size);
		qp->rq.wqe_shift = prov_ilog32(wqe_size - 1);
		qp->rq.max_post = 1u << prov_ilog32(qp->rq.wqe_cnt - 1);
		qp->rq.max_gs = (int)((wqe_size - (qp->wq_sig ? PROV_WQE_DATA_SZ : 0)) /
				      PROV_WQE_DATA_SZ);
	}
	*rq_size = wq_size;
	return 0;
}

/* mlx5_calc_wq_size(): the buffer size, RQ first. */
int prov_qp_calc_wq_size(struct prov_context *pctx, struct prov_qp *qp,
			 struct ibv_qp_init_attr_ex *attr, size_t *size)
{
	struct qp_limits l;
	uint64_t sq, rq;
	int ret;

	qp_limits(pctx, &l);
	ret = qp_calc_sq_size(&l, qp, attr, &sq);
	if (!ret)
		ret = qp_calc_rq_size(&l, qp, attr, &rq);
	if (ret)
		return ret;
	qp->sq.offset = (size_t)rq;
	qp->rq.offset = 0;
	*size = (size_t)(sq + rq);
	return 0;
}

/* The receive queue the kernel computes (set_rq_size, qp_has_rq) must be
 * the one libmlx5 sized. */
int prov_qp_check_rq(struct prov_qp *qp, const struct ibv_qp_init_attr_ex *attr)
{
	bool has_rq = !(attr->qp_type == IBV_QPT_XRC_SEND ||
			attr->qp_type == IBV_QPT_XRC_RECV || attr->srq ||
			!attr->cap.max_recv_wr);
	uint32_t max = UINT32_C(1) << PROV_CAP_GEN(qp->pctx, log_max_qp_sz);

	if (attr->cap.max_recv_wr > max)
		return EINVAL;
	if (!has_rq && qp->rq.wqe_cnt)
		return EINVAL;
	if (qp->sq.wqe_cnt > max)
		return EINVAL;
	return 0;
}
