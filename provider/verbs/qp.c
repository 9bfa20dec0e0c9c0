/* SPDX-License-Identifier: MIT */
/*
 * Queue pair creation and destruction, and receive posting, as rdma-core
 * 44 (libmlx5 verbs.c create_qp, libibverbs ibv_icmd_create_qp) over the
 * upstream kernel (uverbs QP_CREATE, mlx5_ib_create_qp) behave.
 *
 * Sizes (libmlx5's calc_sq_size/calc_rq_size): a send WQE is the type's
 * overhead (control segment, the largest of remote address, atomic and
 * UMR/memory-window segments, plus datagram for UD and DCI, XRC for XRC,
 * Ethernet for raw) and max_send_sge data segments, or the overhead and an
 * inline segment of max_inline_data, rounded to 64-byte WQEBBs; the SQ is
 * roundup_pow2(max_send_wr * wqe size) bytes; max_inline_data comes back
 * as what the WQE size leaves.  A receive WQE is max(max_recv_sge, 1) data
 * segments rounded to a power of two; the RQ holds
 * roundup_pow2(max_recv_wr) of them (64 bytes at least).  The caps come
 * back as libmlx5 reports them: max_send_wr = WQEs that fit, max_recv_wr =
 * RQ WQEs, max_recv_sge = what a WQE holds, max_send_sge as asked.
 *
 * The ring (RQ at offset 0, SQ after it) is page-aligned memory of the
 * MLX_QP_ALLOC_TYPE kind (HUGE_RC/HUGE_UC/HUGE_UD=y make HUGE the
 * default), the doorbell record 8 bytes; both are umems named by
 * CREATE_QP, with the QP's doorbell register page (qp_ctx.c) as uar_page
 * and its user index (cqe_version 1) as user_index.
 *
 * Errors: NULL + errno, in the order the layers check:
 *   EINVAL     (libmlx5) comp_mask bits it does not know, a TSO header on
 *              a non-raw QP, send_ops_flags on a DCT, SOURCE_QPN on a
 *              non-UD QP, IBV_QPT_DRIVER without mlx5dv DC attributes,
 *              caps beyond the WQE budget or the queue limits
 *              (max_send_wr * WQE size past max_qp_wr WQEBBs,
 *              max_recv_wr > max_qp_wr, too many SGEs or inline bytes)
 *   EINVAL     (libibverbs/uverbs) no PD (no XRCD for XRC_RECV), a NULL or
 *              foreign send CQ, an XRC SRQ on a non-XRC QP, unknown
 *              create_flags or flags on a QP type that takes none
 *   EOPNOTSUPP a create flag the device does not advertise (mlx5_ib's
 *              process_create_flags), raw packet and RSS QPs (no TIR/SQ/RQ
 *              objects yet), send_ops_flags (the ibv_wr_* API comes with
 *              work request execution)
 *   EINVAL     (mlx5_ib) a receive queue on a QP type that has none, a
 *              DCI with receive caps, a DCT without SRQ or receive CQ
 *   ENOMEM     buffers, user indexes
 *   firmware   the status's errno as mlx5_cmd_exec maps it
 *
 * ibv_destroy_qp: 0, or the errno; the QP returns to RESET first if it was
 * not there (destroy_qp_common), its PD/CQ/SRQ/XRCD uses are released and,
 * as libibverbs does, destroy waits until every async event the
 * application read for it is acknowledged.  An XRC target QP lives while
 * any handle (the creator's or one from ibv_open_qp) names it.
 *
 * ibv_post_recv writes receive WQEs and the doorbell record exactly as
 * libmlx5 does (EINVAL for too many SGEs or a QP in RESET, ENOMEM when
 * the RQ is full).  ibv_post_send returns EOPNOTSUPP (rdma-core's answer
 * for a missing op): building and executing send WQEs is the next step;
 * applications that write their own WQEs use mlx5dv_init_obj.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/abi.h"
#include "provider/verbs/caps.h"
#include "provider/verbs/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/verbs_ctx.h"

#define PROV_QP_DBR_SIZE 64

/* libmlx5's MLX5_CREATE_QP_SUP_COMP_MASK. */
#define PROV_QP_SUP_COMP_MASK                                                 \
	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |                         \
	 IBV_QP_INIT_ATTR_CREATE_FLAGS | IBV_QP_INIT_ATTR_MAX_TSO_HEADER |     \
	 IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH |               \
	 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/* libmlx5's MLX5_DV_CREATE_QP_SUP_COMP_MASK and MLX5DV_QP_CREATE_SUP_FLAGS. */
#define PROV_DV_SUP_COMP_MASK                                                 \
	(MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS | MLX5DV_QP_INIT_ATTR_MASK_DC | \
	 MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS |                             \
	 MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS)
#define PROV_DV_SUP_FLAGS                                                     \
	(MLX5DV_QP_CREATE_TUNNEL_OFFLOADS |                                    \
	 MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC |                         \
	 MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_MC |                         \
	 MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE |                             \
	 MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE |                               \
	 MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE |                           \
	 MLX5DV_QP_CREATE_SIG_PIPELINING)

/* libibverbs' CREATE_QP_EX_SUP_CREATE_FLAGS. */
#define PROV_QP_LIB_CREATE_FLAGS                                              \
	(IBV_QP_CREATE_BLOCK_SELF_MCAST_LB | IBV_QP_CREATE_SCATTER_FCS |       \
	 IBV_QP_CREATE_CVLAN_STRIPPING | IBV_QP_CREATE_SOURCE_QPN |            \
	 IBV_QP_CREATE_PCI_WRITE_END_PADDING)

/* The vendor flags libmlx5 passes to the kernel (mlx5-abi.h). */
enum {
	PROV_QPF_SIGNATURE = 1 << 0,
	PROV_QPF_SCATTER_CQE = 1 << 1,
	PROV_QPF_TUNNEL_OFFLOADS = 1 << 2,
	PROV_QPF_SELF_LB_UC = 1 << 6,
	PROV_QPF_SELF_LB_MC = 1 << 7,
	PROV_QPF_ALLOW_SCATTER_CQE = 1 << 8,
	PROV_QPF_PACKET_BASED_CREDIT = 1 << 9,
	PROV_QPF_DCI_STREAM = 1 << 11,
};

/* ts_format capability values (MLX5_TIMESTAMP_FORMAT_CAP_*). */
#define PROV_TS_CAP_FREE_RUNNING 0
#define PROV_TS_CAP_REAL_TIME 1
#define PROV_TS_CAP_BOTH 2

static uint64_t roundup_pow2(uint64_t v)
{
	uint64_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

/* rdma-core's ilog32(): the bits needed for @v. */
static unsigned int ilog32(uint32_t v)
{
	unsigned int l = 0;

	while (v) {
		l++;
		v >>= 1;
	}
	return l;
}

static uint32_t align_up(uint32_t v, uint32_t a)
{
	return (v + a - 1) / a * a;
}

/* ---- sizing: libmlx5's sq_overhead, calc_send_wqe, calc_sq/rq_size ---- */

static int qp_sq_overhead(enum ibv_qp_type type, bool dci, uint64_t ops,
			  uint64_t mlx5_ops)
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
			return -EINVAL;
		/* fallthrough */
	case IBV_QPT_UD:
		return (int)(size + PROV_WQE_DATAGRAM_SZ);
	case IBV_QPT_XRC_RECV:
	case IBV_QPT_XRC_SEND:
		return (int)(size + PROV_WQE_XRC_SZ);
	case IBV_QPT_RAW_PACKET:
		return (int)(size + PROV_WQE_ETH_SZ);
	case IBV_QPT_RC:
	case IBV_QPT_UC:
		return (int)size;
	default:
		return -EINVAL;
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

static int qp_overhead(const struct prov_qp *qp,
		       const struct ibv_qp_init_attr_ex *attr)
{
	return qp_sq_overhead(attr->qp_type, qp->dc == PROV_QP_DCI,
			      qp_default_ops(attr->qp_type), 0);
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

static int qp_calc_send_wqe(const struct qp_limits *l, struct prov_qp *qp,
			    struct ibv_qp_init_attr_ex *attr)
{
	int ovh = qp_overhead(qp, attr);
	uint64_t size, inl = 0, tot, max_gather;

	if (ovh < 0)
		return ovh;
	size = (uint64_t)ovh;
	if (attr->cap.max_inline_data)
		inl = size + ((PROV_WQE_INL_SZ + (uint64_t)attr->cap.max_inline_data +
			       15) & ~UINT64_C(15));
	if (attr->comp_mask & IBV_QP_INIT_ATTR_MAX_TSO_HEADER)
		size += ((uint64_t)attr->max_tso_header + 15) & ~UINT64_C(15);
	max_gather = size < l->max_sq_desc ? (l->max_sq_desc - size) /
					       PROV_WQE_DATA_SZ : 0;
	if (attr->cap.max_send_sge > max_gather)
		return -EINVAL;
	size += (uint64_t)attr->cap.max_send_sge * PROV_WQE_DATA_SZ;
	tot = size > inl ? size : inl;
	if (tot > l->max_sq_desc)
		return -EINVAL;
	return (int)align_up((uint32_t)tot, PROV_SEND_WQE_BB);
}

static int qp_calc_sq_size(const struct qp_limits *l, struct prov_qp *qp,
			   struct ibv_qp_init_attr_ex *attr)
{
	uint64_t wq_size;
	int wqe_size;

	if (!attr->cap.max_send_wr)
		return 0;
	wqe_size = qp_calc_send_wqe(l, qp, attr);
	if (wqe_size < 0)
		return wqe_size;
	if ((uint32_t)wqe_size > l->max_sq_desc)
		return -EINVAL;
	qp->max_inline_data = wqe_size - qp_overhead(qp, attr) -
			      (int)PROV_WQE_INL_SZ;
	attr->cap.max_inline_data = (uint32_t)qp->max_inline_data;
	if (attr->cap.max_send_wr > 0x7fffffffu / l->max_sq_desc)
		return -EINVAL;
	wq_size = roundup_pow2((uint64_t)attr->cap.max_send_wr *
			       (uint64_t)wqe_size);
	qp->sq.wqe_cnt = (unsigned int)(wq_size / PROV_SEND_WQE_BB);
	if (qp->sq.wqe_cnt > l->max_send_wqebb)
		return -EINVAL;
	qp->sq.wqe_shift = 6;
	qp->sq.max_gs = (int)attr->cap.max_send_sge;
	qp->sq.max_post = (unsigned int)(wq_size / (uint64_t)wqe_size);
	return (int)wq_size;
}

static int qp_calc_rq_size(const struct qp_limits *l, struct prov_qp *qp,
			   struct ibv_qp_init_attr_ex *attr)
{
	uint32_t wqe_size = 0, num_scatter;
	uint64_t wq_size;

	if (!attr->cap.max_recv_wr)
		return 0;
	if (attr->cap.max_recv_wr > l->max_recv_wr)
		return -EINVAL;
	if (!attr->srq) {	/* mlx5_calc_rcv_wqe() */
		uint64_t size;

		num_scatter = attr->cap.max_recv_sge ? attr->cap.max_recv_sge : 1;
		size = (uint64_t)PROV_WQE_DATA_SZ * num_scatter +
		       (qp->wq_sig ? PROV_WQE_DATA_SZ : 0);
		if (size > l->max_rq_desc)
			return -EINVAL;
		wqe_size = (uint32_t)roundup_pow2(size);
		if (wqe_size > l->max_rq_desc)
			return -EINVAL;
	}
	wq_size = roundup_pow2(attr->cap.max_recv_wr) * wqe_size;
	if (wqe_size) {
		if (wq_size < PROV_SEND_WQE_BB)
			wq_size = PROV_SEND_WQE_BB;
		qp->rq.wqe_cnt = (unsigned int)(wq_size / wqe_size);
		qp->rq.wqe_shift = ilog32(wqe_size - 1);
		qp->rq.max_post = 1u << ilog32(qp->rq.wqe_cnt - 1);
		qp->rq.max_gs = (int)((wqe_size - (qp->wq_sig ? PROV_WQE_DATA_SZ : 0)) /
				      PROV_WQE_DATA_SZ);
	}
	return (int)wq_size;
}

/* mlx5_calc_wq_size(): the buffer size, RQ first. */
static int qp_calc_wq_size(struct prov_context *pctx, struct prov_qp *qp,
			   struct ibv_qp_init_attr_ex *attr)
{
	struct qp_limits l;
	int sq, rq;

	qp_limits(pctx, &l);
	sq = qp_calc_sq_size(&l, qp, attr);
	if (sq < 0)
		return sq;
	rq = qp_calc_rq_size(&l, qp, attr);
	if (rq < 0)
		return rq;
	qp->sq.offset = (size_t)rq;
	qp->rq.offset = 0;
	return sq + rq;
}

/* ---- the checks of libmlx5, libibverbs, uverbs and mlx5_ib ---- */

static bool use_scatter_to_cqe(void)
{
	const char *env = getenv("MLX5_SCATTER_TO_CQE");

	return !(env && !strcmp(env, "0"));
}

static bool is_xrc_tgt(enum ibv_qp_type t)
{
	return t == IBV_QPT_XRC_RECV;
}

/* libmlx5's create_qp() up to the command; the vendor flags in *flags. */
static int qp_check_lib(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr,
			struct mlx5dv_qp_init_attr *dv, uint32_t *flags)
{
	uint32_t f = 0;

	if (attr->comp_mask & ~(uint32_t)PROV_QP_SUP_COMP_MASK)
		return EINVAL;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_MAX_TSO_HEADER) &&
	    attr->qp_type != IBV_QPT_RAW_PACKET)
		return EINVAL;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_RX_HASH) ||
	     (attr->qp_type == IBV_QPT_DRIVER && dv &&
	      (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DC) &&
	      dv->dc_init_attr.dc_type == MLX5DV_DCTYPE_DCT)))
		return EINVAL;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    (attr->create_flags & IBV_QP_CREATE_SOURCE_QPN) &&
	    attr->qp_type != IBV_QPT_UD)
		return EINVAL;
	if (use_scatter_to_cqe())
		f |= PROV_QPF_SCATTER_CQE;
	if (!dv) {
		if (attr->qp_type == IBV_QPT_DRIVER)
			return EINVAL;
		*flags = f;
		return 0;
	}
	if (dv->comp_mask & ~(uint64_t)PROV_DV_SUP_COMP_MASK)
		return EINVAL;
	if ((dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DC) &&
	    attr->qp_type != IBV_QPT_DRIVER)
		return EINVAL;
	if (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS) {
		uint32_t cf = dv->create_flags;

		if (cf & ~(uint32_t)PROV_DV_SUP_FLAGS)
			return EINVAL;
		if (cf & MLX5DV_QP_CREATE_TUNNEL_OFFLOADS)
			f |= PROV_QPF_TUNNEL_OFFLOADS;
		if (cf & MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC)
			f |= PROV_QPF_SELF_LB_UC;
		if (cf & MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_MC)
			f |= PROV_QPF_SELF_LB_MC;
		if (cf & MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE) {
			if (cf & MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE)
				return EINVAL;
			f &= ~(uint32_t)PROV_QPF_SCATTER_CQE;
		}
		if (cf & MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE)
			f |= PROV_QPF_ALLOW_SCATTER_CQE | PROV_QPF_SCATTER_CQE;
		if (cf & MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE)
			f |= PROV_QPF_PACKET_BASED_CREDIT;
		/* SQD2RTS (signature pipelining) is not offered. */
		if (cf & MLX5DV_QP_CREATE_SIG_PIPELINING)
			return EOPNOTSUPP;
	}
	if (attr->qp_type == IBV_QPT_DRIVER) {
		if (!(dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DC))
			return EINVAL;
		switch (dv->dc_init_attr.dc_type) {
		case MLX5DV_DCTYPE_DCT:
			qp->dc = PROV_QP_DCT;
			break;
		case MLX5DV_DCTYPE_DCI:
			qp->dc = PROV_QP_DCI;
			if (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS) {
				struct prov_context *pctx = qp->pctx;

				if (PROV_CAP_GEN(pctx, log_max_dci_stream_channels) <
				    dv->dc_init_attr.dci_streams.log_num_concurent ||
				    PROV_CAP_GEN(pctx, log_max_dci_errored_streams) <
				    dv->dc_init_attr.dci_streams.log_num_errored)
					return EINVAL;
				f |= PROV_QPF_DCI_STREAM;
			}
			break;
		default:
			return EINVAL;
		}
	}
	*flags = f;
	return 0;
}

/* libibverbs' ibv_icmd_create_qp() and uverbs' QP_CREATE. */
static int qp_check_uverbs(struct ibv_context *context,
			   struct ibv_qp_init_attr_ex *attr)
{
	uint32_t cf = (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) ?
		      attr->create_flags : 0;

	switch (attr->qp_type) {
	case IBV_QPT_XRC_RECV:
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd ||
		    attr->xrcd->context != context)
			return EINVAL;
		break;
	case IBV_QPT_RC:
	case IBV_QPT_UD:
	case IBV_QPT_UC:
	case IBV_QPT_RAW_PACKET:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_DRIVER:
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
		    attr->pd->context != context)
			return EINVAL;
		if (attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE)
			break;
		/* libibverbs dereferences the send CQ; uverbs needs it. */
		if (!attr->send_cq || attr->send_cq->context != context)
			return EINVAL;
		if (attr->qp_type != IBV_QPT_XRC_SEND && attr->recv_cq &&
		    attr->recv_cq->context != context)
			return EINVAL;
		break;
	default:
		return EINVAL;
	}
	if (cf & ~(uint32_t)PROV_QP_LIB_CREATE_FLAGS)
		return EINVAL;
	if (attr->srq) {
		if (attr->srq->context != context)
			return EINVAL;
		/* uverbs: an XRC SRQ only through an XRC target's packets. */
		if (prov_srq_is_xrc(attr->srq) || attr->qp_type == IBV_QPT_XRC_SEND)
			return EINVAL;
	}
	/* uverbs' check_creation_flags(). */
	cf &= ~(uint32_t)IBV_QP_CREATE_SOURCE_QPN;
	if (cf && attr->qp_type != IBV_QPT_DRIVER) {
		if (attr->qp_type != IBV_QPT_RAW_PACKET &&
		    attr->qp_type != IBV_QPT_UD)
			return EINVAL;
		if ((cf & (IBV_QP_CREATE_SCATTER_FCS |
			   IBV_QP_CREATE_CVLAN_STRIPPING)) &&
		    attr->qp_type != IBV_QPT_RAW_PACKET)
			return EINVAL;
	}
	return 0;
}

/* mlx5_ib's check_qp_type, process_vendor_flags, process_create_flags,
 * check_qp_attr. */
static int qp_check_kernel(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr,
			   uint32_t *vflags)
{
	struct prov_context *pctx = qp->pctx;
	uint32_t cf = (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) ?
		      attr->create_flags : 0;
	uint32_t f = *vflags;

	switch (attr->qp_type) {
	case IBV_QPT_XRC_RECV:
	case IBV_QPT_XRC_SEND:
		if (!PROV_CAP_GEN(pctx, xrc))
			return EOPNOTSUPP;
		break;
	case IBV_QPT_DRIVER:
		if (!PROV_CAP_GEN(pctx, dct))
			return EOPNOTSUPP;
		break;
	case IBV_QPT_RC:
		if (!PROV_CAP_GEN(pctx, rc))
			return EOPNOTSUPP;
		break;
	case IBV_QPT_UC:
		if (!PROV_CAP_GEN(pctx, uc))
			return EOPNOTSUPP;
		break;
	case IBV_QPT_UD:
		if (!PROV_CAP_GEN(pctx, ud))
			return EOPNOTSUPP;
		break;
	default:
		break;
	}
	/* Vendor flags: scatter-to-CQE silently dropped without the cap. */
	if (!PROV_CAP_GEN(pctx, sctr_data_cqe))
		f &= ~(uint32_t)(PROV_QPF_SCATTER_CQE | PROV_QPF_ALLOW_SCATTER_CQE);
	if ((f & PROV_QPF_DCI_STREAM) &&
	    !PROV_CAP_GEN(pctx, log_max_dci_stream_channels))
		return EINVAL;
	f &= ~(uint32_t)(PROV_QPF_DCI_STREAM | PROV_QPF_SIGNATURE);
	if (attr->qp_type == IBV_QPT_RC && PROV_CAP_GEN(pctx, qp_packet_based))
		f &= ~(uint32_t)PROV_QPF_PACKET_BASED_CREDIT;
	/* Tunnel offloads and TIR loopback flags only mean something on raw
	 * packet QPs, which fail below. */
	if (attr->qp_type != IBV_QPT_RAW_PACKET &&
	    (f & (PROV_QPF_TUNNEL_OFFLOADS | PROV_QPF_SELF_LB_UC |
		  PROV_QPF_SELF_LB_MC | PROV_QPF_PACKET_BASED_CREDIT)))
		return EINVAL;
	*vflags = f;

	if (attr->qp_type == IBV_QPT_RAW_PACKET ||
	    (attr->comp_mask & (IBV_QP_INIT_ATTR_IND_TABLE |
				IBV_QP_INIT_ATTR_RX_HASH)))
		return EOPNOTSUPP;

	/* process_create_flags(). */
	if (qp->dc == PROV_QP_DCT)
		return cf ? EINVAL : 0;
	if (cf & IBV_QP_CREATE_BLOCK_SELF_MCAST_LB) {
		if (!PROV_CAP_GEN(pctx, block_lb_mc))
			return EOPNOTSUPP;
		qp->create_flags |= IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
		cf &= ~(uint32_t)IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
	}
	if (cf & IBV_QP_CREATE_PCI_WRITE_END_PADDING) {
		if (!PROV_CAP_GEN(pctx, end_pad))
			return EOPNOTSUPP;
		qp->create_flags |= IBV_QP_CREATE_PCI_WRITE_END_PADDING;
		cf &= ~(uint32_t)IBV_QP_CREATE_PCI_WRITE_END_PADDING;
	}
	/* SOURCE_QPN needs an InfiniBand port; scatter FCS and VLAN
	 * stripping raw packet QPs. */
	if (cf)
		return EOPNOTSUPP;

	/* check_qp_attr(). */
	if (qp->dc == PROV_QP_DCI &&
	    (attr->cap.max_recv_wr || attr->cap.max_recv_sge))
		return EINVAL;
	return 0;
}

/* The receive queue the kernel computes (set_rq_size, qp_has_rq) must be
 * the one libmlx5 sized. */
static int qp_check_rq(struct prov_qp *qp, const struct ibv_qp_init_attr_ex *attr)
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

static bool ts_cap_fr(unsigned int cap)
{
	return cap == PROV_TS_CAP_FREE_RUNNING || cap == PROV_TS_CAP_BOTH;
}

static bool ts_cap_rt(unsigned int cap)
{
	return cap == PROV_TS_CAP_REAL_TIME || cap == PROV_TS_CAP_BOTH;
}

/* mlx5_ib's get_ts_format() for one CQ, or the default without one. */
static int qp_cq_ts_format(struct ibv_cq *cq, bool fr, bool rt)
{
	struct prov_cq *pcq;

	if (!cq)
		return fr ? MLX5_TIMESTAMP_FORMAT_FREE_RUNNING :
			    MLX5_TIMESTAMP_FORMAT_DEFAULT;
	pcq = to_prov_cq(cq);
	if (pcq->rt_ts) {
		if (!rt)
			return -EOPNOTSUPP;
		return MLX5_TIMESTAMP_FORMAT_REAL_TIME;
	}
	if (pcq->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP) {
		if (!fr)
			return -EOPNOTSUPP;
		return MLX5_TIMESTAMP_FORMAT_FREE_RUNNING;
	}
	return fr ? MLX5_TIMESTAMP_FORMAT_FREE_RUNNING :
		    MLX5_TIMESTAMP_FORMAT_DEFAULT;
}

/* get_qp_ts_format(): 0 and the format, or an errno. */
static int qp_ts_format(struct prov_qp *qp, struct ibv_cq *scq,
			struct ibv_cq *rcq)
{
	unsigned int cap = PROV_CAP_ROCE(qp->pctx, qp_ts_format);
	bool fr = ts_cap_fr(cap), rt = ts_cap_rt(cap);
	int s = qp_cq_ts_format(scq, fr, rt);
	int r = qp_cq_ts_format(rcq, fr, rt);

	if (s < 0 || r < 0)
		return EOPNOTSUPP;
	if (s != MLX5_TIMESTAMP_FORMAT_DEFAULT &&
	    r != MLX5_TIMESTAMP_FORMAT_DEFAULT && s != r)
		return EINVAL;
	qp->ts_format = (uint8_t)(s == MLX5_TIMESTAMP_FORMAT_DEFAULT ? r : s);
	return 0;
}

/* ---- CQ polling callbacks ---- */

static uint64_t qp_sq_complete(struct prov_cq_rsc *rsc, uint16_t wqe_counter,
			       enum ibv_wc_opcode *opcode)
{
	struct prov_qp *qp = (struct prov_qp *)((char *)rsc -
						offsetof(struct prov_qp, rsc));
	unsigned int idx;

	(void)opcode;
	if (!qp->sq.wqe_cnt)
		return 0;
	idx = wqe_counter & (qp->sq.wqe_cnt - 1);
	qp->sq.tail = qp->sq.wqe_head[idx] + 1;
	return qp->sq.wrid[idx];
}

static uint64_t qp_rq_complete(struct prov_cq_rsc *rsc, uint16_t wqe_counter)
{
	struct prov_qp *qp = (struct prov_qp *)((char *)rsc -
						offsetof(struct prov_qp, rsc));
	uint64_t wr_id;

	(void)wqe_counter;
	if (!qp->rq.wqe_cnt)
		return 0;
	wr_id = qp->rq.wrid[qp->rq.tail & (qp->rq.wqe_cnt - 1)];
	++qp->rq.tail;
	return wr_id;
}

/* ---- memory ---- */

static const char *qp_huge_key(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC:
		return "HUGE_RC";
	case IBV_QPT_UC:
		return "HUGE_UC";
	case IBV_QPT_UD:
		return "HUGE_UD";
	case IBV_QPT_RAW_PACKET:
		return "HUGE_RAW_ETH";
	default:
		return "HUGE_NA";
	}
}

static bool qp_use_huge(enum ibv_qp_type t)
{
	const char *e = getenv(qp_huge_key(t));

	return e && !strcmp(e, "y");
}

static void qp_free_mem(struct prov_qp *qp)
{
	struct prov_context *pctx = qp->pctx;

	prov_umem_dereg(pctx, qp->db_umem);
	prov_umem_dereg(pctx, qp->buf_umem);
	qp->db_umem = NULL;
	qp->buf_umem = NULL;
	free(qp->db);
	qp->db = NULL;
	prov_qbuf_free(&qp->buf);
	free(qp->sq.wrid);
	free(qp->sq.wqe_head);
	free(qp->rq.wrid);
	qp->sq.wrid = NULL;
	qp->sq.wqe_head = NULL;
	qp->rq.wrid = NULL;
}

/* mlx5_alloc_qp_buf() and the doorbell record; 0 or an errno.  The umem
 * ids in buf_id and db_id (0: none, an XRC target has no queues). */
static int qp_alloc_mem(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr,
			uint32_t *buf_id, uint32_t *db_id)
{
	struct prov_context *pctx = qp->pctx;
	int err;

	*buf_id = 0;
	*db_id = 0;
	if (qp->sq.wqe_cnt) {
		qp->sq.wrid = calloc(qp->sq.wqe_cnt, sizeof(*qp->sq.wrid));
		qp->sq.wqe_head = calloc(qp->sq.wqe_cnt, sizeof(*qp->sq.wqe_head));
		if (!qp->sq.wrid || !qp->sq.wqe_head)
			return ENOMEM;
	}
	if (qp->rq.wqe_cnt) {
		qp->rq.wrid = calloc(qp->rq.wqe_cnt, sizeof(*qp->rq.wrid));
		if (!qp->rq.wrid)
			return ENOMEM;
	}
	err = posix_memalign((void **)&qp->db, PROV_QP_DBR_SIZE, PROV_QP_DBR_SIZE);
	if (err) {
		qp->db = NULL;
		return err;
	}
	memset(qp->db, 0, PROV_QP_DBR_SIZE);
	if (!qp->buf_size)
		return 0;
	if (prov_qbuf_alloc_dflt(&qp->buf, qp->buf_size, "MLX_QP",
				 qp_use_huge(attr->qp_type)))
		return errno ? errno : ENOMEM;
	memset(qp->buf.buf, 0, qp->buf_size);
	qp->sq_start = (char *)qp->buf.buf + qp->sq.offset;
	/* An XRC target's queues are never used: nothing to register. */
	if (is_xrc_tgt(attr->qp_type))
		return 0;
	errno = 0;
	qp->buf_umem = prov_umem_reg(pctx, qp->buf.buf, qp->buf.length,
				     IBV_ACCESS_LOCAL_WRITE, buf_id);
	if (!qp->buf_umem)
		return errno ? errno : ENOMEM;
	qp->db_umem = prov_umem_reg(pctx, qp->db, 8, IBV_ACCESS_LOCAL_WRITE,
				    db_id);
	if (!qp->db_umem)
		return errno ? errno : ENOMEM;
	return 0;
}

/* ---- CREATE_QP ---- */

static uint32_t qp_st(const struct prov_qp *qp, enum ibv_qp_type t)
{
	if (qp->dc == PROV_QP_DCI)
		return MLX5_QPC_ST_DCI;
	switch (t) {
	case IBV_QPT_UC:
		return MLX5_QPC_ST_UC;
	case IBV_QPT_UD:
		return MLX5_QPC_ST_UD;
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		return MLX5_QPC_ST_XRC;
	default:
		return MLX5_QPC_ST_RC;
	}
}

/*
 * The queue layout the firmware takes: mlx5_ib's get_rx_type(), except
 * that a DCI and an XRC initiator, which never receive, get a zero-length
 * RQ rather than the kernel's own default SRQ (the emulated firmware
 * accepts both for XRC and only this for a DCI).
 */
static uint32_t qp_rq_type(const struct prov_qp *qp,
			   const struct ibv_qp_init_attr_ex *attr)
{
	if (attr->qp_type == IBV_QPT_XRC_RECV)
		return 1;	/* MLX5_SRQ_RQ */
	if (qp->dc == PROV_QP_DCI || attr->qp_type == IBV_QPT_XRC_SEND)
		return 3;	/* MLX5_ZERO_LEN_RQ */
	if (attr->srq)
		return 1;
	if (!qp->rq.wqe_cnt)
		return 3;
	return 0;		/* MLX5_NON_ZERO_RQ */
}

static int qp_create_cmd(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr,
			 uint32_t buf_id, uint32_t db_id, uint32_t *qpn)
{
	struct prov_context *pctx = qp->pctx;
	uint8_t in[PRM_ST_SZ_BYTES(create_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_qp_out)] = { 0 };
	void *qpc = PRM_ADDR_OF(create_qp_in, in, qpc);
	uint32_t pdn, xrcdn;
	int err;

	PRM_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	PRM_SET(qpc, qpc, st, qp_st(qp, attr->qp_type));
	PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	if (is_xrc_tgt(attr->qp_type)) {
		err = prov_qp_ctx_pd0(pctx, &pdn);
		if (err)
			return err;
		xrcdn = prov_xrcd_xrcdn(attr->xrcd);
	} else {
		pdn = prov_pd_pdn(attr->pd);
		xrcdn = 0;
		if (attr->qp_type == IBV_QPT_XRC_SEND) {
			err = prov_qp_ctx_xrcd1(pctx, &xrcdn);
			if (err)
				return err;
		}
	}
	PRM_SET(qpc, qpc, pd, pdn);
	if (qp->wq_sig)
		PRM_SET(qpc, qpc, wq_signature, 1);
	if (qp->create_flags & IBV_QP_CREATE_BLOCK_SELF_MCAST_LB)
		PRM_SET(qpc, qpc, block_lb_mc, 1);
	if (qp->create_flags & IBV_QP_CREATE_PCI_WRITE_END_PADDING)
		PRM_SET(qpc, qpc, end_padding_mode, 1);	/* ALIGN */
	if (qp->rq.wqe_cnt) {
		PRM_SET(qpc, qpc, log_rq_stride, qp->rq.wqe_shift - 4);
		PRM_SET(qpc, qpc, log_rq_size, ilog32(qp->rq.wqe_cnt) - 1);
	}
	PRM_SET(qpc, qpc, ts_format, qp->ts_format);
	PRM_SET(qpc, qpc, rq_type, qp_rq_type(qp, attr));
	if (qp->sq.wqe_cnt && !is_xrc_tgt(attr->qp_type))
		PRM_SET(qpc, qpc, log_sq_size, ilog32(qp->sq.wqe_cnt) - 1);
	else
		PRM_SET(qpc, qpc, no_sq, 1);
	PRM_SET(qpc, qpc, xrcd, xrcdn);
	if (attr->srq && !is_xrc_tgt(attr->qp_type))
		PRM_SET(qpc, qpc, srqn_rmpn_xrqn, prov_srq_srqn(attr->srq));
	if (!is_xrc_tgt(attr->qp_type)) {
		if (attr->send_cq)
			PRM_SET(qpc, qpc, cqn_snd, prov_cq_cqn(attr->send_cq));
		if (attr->recv_cq && attr->qp_type != IBV_QPT_XRC_SEND)
			PRM_SET(qpc, qpc, cqn_rcv, prov_cq_cqn(attr->recv_cq));
	}
	PRM_SET(qpc, qpc, user_index, qp->uidx);
	PRM_SET(qpc, qpc, uar_page, qp->bf->page_id);
	PRM_SET(qpc, qpc, log_page_size, 0);
	PRM_SET(qpc, qpc, page_offset, 0);
	PRM_SET(qpc, qpc, dbr_umem_valid, 1);
	PRM_SET(qpc, qpc, dbr_umem_id, db_id);
	PRM_SET64(qpc, qpc, dbr_addr, 0);
	PRM_SET(create_qp_in, in, wq_umem_valid, 1);
	PRM_SET(create_qp_in, in, wq_umem_id, buf_id);
	PRM_SET64(create_qp_in, in, wq_umem_offset, 0);
	qp->obj = prov_obj_create(pctx, in, sizeof(in), out, sizeof(out));
	if (!qp->obj)
		return errno ? errno : EIO;
	*qpn = PRM_GET(create_qp_out, out, qpn);
	return 0;
}

void prov_qp_set_operational_state(struct prov_qp *qp, enum ibv_qp_state st)
{
	switch (st) {
	case IBV_QPS_RESET:
		qp->rq.qp_state_max_gs = -1;
		qp->sq.qp_state_max_gs = -1;
		break;
	case IBV_QPS_INIT:
		qp->rq.qp_state_max_gs = qp->rq.max_gs;
		break;
	case IBV_QPS_RTS:
		qp->sq.qp_state_max_gs = qp->sq.max_gs;
		break;
	default:
		break;
	}
}

/* The uses the kernel takes (ib_create_qp_user), released at destroy. */
static int qp_take_uses(struct prov_qp *qp, const struct ibv_qp_init_attr_ex *attr)
{
	int err = 0;
	bool pd = false, scq = false, rcq = false, srq = false, xrcd = false;

	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		err = prov_xrcd_use(attr->xrcd);
		xrcd = !err;
		goto out;
	}
	err = prov_pd_use(attr->pd);
	pd = !err;
	if (!err && attr->send_cq) {
		err = prov_cq_use(attr->send_cq);
		scq = !err;
	}
	if (!err && attr->recv_cq && attr->qp_type != IBV_QPT_XRC_SEND) {
		err = prov_cq_use(attr->recv_cq);
		rcq = !err;
	}
	if (!err && attr->srq) {
		err = prov_srq_use(attr->srq);
		srq = !err;
	}
out:
	if (err) {
		if (srq)
			prov_srq_unuse(attr->srq);
		if (rcq)
			prov_cq_unuse(attr->recv_cq);
		if (scq)
			prov_cq_unuse(attr->send_cq);
		if (pd)
			prov_pd_unuse(attr->pd);
		if (xrcd) {
			prov_xrcd_handle_put(to_prov_xrcd(attr->xrcd));
			prov_xrcd_shared_put(qp->pctx,
					     to_prov_xrcd(attr->xrcd)->shared);
		}
		return EINVAL;
	}
	return 0;
}

static void qp_drop_uses(struct prov_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;

	if (ibqp->qp_type == IBV_QPT_XRC_RECV) {
		if (qp->xshared)
			prov_xrcd_shared_put(qp->pctx, qp->xshared);
		return;
	}
	if (ibqp->srq)
		prov_srq_unuse(ibqp->srq);
	if (ibqp->recv_cq && ibqp->qp_type != IBV_QPT_XRC_SEND)
		prov_cq_unuse(ibqp->recv_cq);
	if (ibqp->send_cq)
		prov_cq_unuse(ibqp->send_cq);
	if (ibqp->pd)
		prov_pd_unuse(ibqp->pd);
}

/* libibverbs' set_qp(): the verbs fields of a new QP. */
static void qp_init_verbs(struct prov_qp *qp, struct ibv_context *context,
			  const struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;

	ibqp->context = context;
	ibqp->qp_context = attr->qp_context;
	ibqp->pd = attr->pd;
	ibqp->send_cq = attr->send_cq;
	ibqp->recv_cq = attr->recv_cq;
	ibqp->srq = attr->srq;
	ibqp->qp_type = attr->qp_type;
	ibqp->state = IBV_QPS_RESET;
	ibqp->events_completed = 0;
	ibqp->handle = prov_handle_alloc(qp->pctx);
	pthread_mutex_init(&ibqp->mutex, NULL);
	pthread_cond_init(&ibqp->cond, NULL);
	qp->vqp.comp_mask = 0;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) {
		qp->vqp.comp_mask |= PROV_VERBS_QP_XRCD;
		qp->vqp.xrcd = (struct prov_verbs_xrcd *)attr->xrcd;
	}
}

static struct prov_qp *qp_alloc(struct prov_context *pctx)
{
	struct prov_qp *qp = calloc(1, sizeof(*qp));

	if (!qp)
		return NULL;
	qp->pctx = pctx;
	qp->rsc.type = PROV_RSC_QP;
	qp->rsc.sq_complete = qp_sq_complete;
	qp->rsc.rq_complete = qp_rq_complete;
	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_mutex_init(&qp->lock, NULL);
	atomic_init(&qp->refs, 1);
	qp->kstate = IBV_QPS_RESET;
	return qp;
}

static void qp_free(struct prov_qp *qp)
{
	free(qp->dct_in);
	pthread_spin_destroy(&qp->sq.lock);
	pthread_spin_destroy(&qp->rq.lock);
	pthread_mutex_destroy(&qp->lock);
	free(qp);
}

struct ibv_qp *prov_qp_create(struct ibv_context *context,
			      struct ibv_qp_init_attr_ex *attr,
			      struct mlx5dv_qp_init_attr *dv)
{
	struct prov_context *pctx = to_prov_context(context);
	struct ibv_qp_init_attr_ex a;
	uint32_t vflags = 0, buf_id, db_id, qpn = 0;
	struct prov_qp *qp;
	bool uses = false;
	int size, err;

	qp = qp_alloc(pctx);
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	err = qp_check_lib(qp, attr, dv, &vflags);
	if (err)
		goto err;
	if (qp->dc == PROV_QP_DCT) {
		err = prov_dct_check_lib(attr, dv, vflags);
		if (!err)
			err = qp_check_uverbs(context, attr);
		if (!err)
			err = qp_check_kernel(qp, attr, &vflags);
		if (!err)
			err = prov_dct_create(qp, attr, dv);
		if (err)
			goto err;
		qp_init_verbs(qp, context, attr);
		return &qp->vqp.qp;
	}
	/* Send operations come with the ibv_wr_* API (not yet). */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ||
	    (dv && (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS))) {
		err = EOPNOTSUPP;
		goto err;
	}
	qp->wq_sig = getenv("MLX5_QP_SIGNATURE") != NULL;
	if (qp->wq_sig)
		vflags |= PROV_QPF_SIGNATURE;
	/* libibverbs zeroes an XRC initiator's receive caps only after
	 * libmlx5 sized the queues; work on a copy until then. */
	a = *attr;
	size = qp_calc_wq_size(pctx, qp, &a);
	if (size < 0) {
		err = -size;
		goto err;
	}
	qp->buf_size = (size_t)size;
	err = qp_check_uverbs(context, &a);
	if (err)
		goto err;
	if (a.qp_type == IBV_QPT_XRC_SEND) {
		a.cap.max_recv_wr = 0;
		a.cap.max_recv_sge = 0;
	}
	err = qp_check_kernel(qp, &a, &vflags);
	if (!err)
		err = qp_check_rq(qp, &a);
	if (!err && !is_xrc_tgt(a.qp_type))
		err = qp_ts_format(qp, a.send_cq,
				   a.qp_type == IBV_QPT_XRC_SEND ? NULL : a.recv_cq);
	else if (!err)
		qp->ts_format = ts_cap_fr(PROV_CAP_ROCE(pctx, qp_ts_format)) ?
				MLX5_TIMESTAMP_FORMAT_FREE_RUNNING :
				MLX5_TIMESTAMP_FORMAT_DEFAULT;
	if (err)
		goto err;
	qp->mlx5_flags = vflags;

	err = qp_alloc_mem(qp, &a, &buf_id, &db_id);
	if (err)
		goto err_mem;
	qp->sq.head = qp->sq.tail = qp->sq.cur_post = 0;
	qp->rq.head = qp->rq.tail = 0;
	if (!is_xrc_tgt(a.qp_type)) {
		err = prov_rsc_store(pctx, &qp->rsc, &qp->uidx);
		if (err)
			goto err_mem;
		qp->has_uidx = true;
	}
	err = prov_qp_bf_get(pctx, &qp->bf);
	if (err)
		goto err_uidx;
	err = qp_take_uses(qp, &a);
	if (err)
		goto err_bf;
	uses = true;
	if (a.srq)
		qp->rsc.srq = &to_prov_srq(a.srq)->rsc;
	err = qp_create_cmd(qp, &a, buf_id, db_id, &qpn);
	if (err)
		goto err_uses;

	qp->rq.max_post = qp->rq.wqe_cnt;
	qp->sq_signal_bits = a.sq_sig_all ? MLX5_WQE_CTRL_CQ_UPDATE : 0;
	attr->cap.max_send_wr = qp->sq.max_post;
	attr->cap.max_recv_wr = qp->rq.max_post;
	attr->cap.max_recv_sge = (uint32_t)qp->rq.max_gs;
	attr->cap.max_inline_data = a.cap.max_inline_data;
	qp->create_flags |= (a.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) ?
			    (a.create_flags & ~(uint32_t)
			     (IBV_QP_CREATE_BLOCK_SELF_MCAST_LB |
			      IBV_QP_CREATE_PCI_WRITE_END_PADDING)) : 0;
	qp_init_verbs(qp, context, &a);
	qp->vqp.qp.qp_num = qpn;
	if (a.qp_type == IBV_QPT_XRC_RECV) {
		qp->xrcd = to_prov_xrcd(a.xrcd);
		qp->xshared = qp->xrcd->shared;
		prov_xrcd_add_tgt(qp->xshared, pctx->qp_ctx, qp);
	}
	prov_qp_set_operational_state(qp, IBV_QPS_RESET);
	return &qp->vqp.qp;

err_uses:
	if (uses) {
		qp->vqp.qp.qp_type = a.qp_type;
		qp->vqp.qp.pd = a.pd;
		qp->vqp.qp.send_cq = a.send_cq;
		qp->vqp.qp.recv_cq = a.recv_cq;
		qp->vqp.qp.srq = a.srq;
		if (a.qp_type == IBV_QPT_XRC_RECV) {
			qp->xrcd = to_prov_xrcd(a.xrcd);
			qp->xshared = qp->xrcd->shared;
			prov_xrcd_handle_put(qp->xrcd);
		}
		qp_drop_uses(qp);
	}
err_bf:
	prov_qp_bf_put(pctx, qp->bf);
err_uidx:
	if (qp->has_uidx)
		prov_rsc_clear(pctx, qp->uidx);
err_mem:
	qp_free_mem(qp);
err:
	qp_free(qp);
	errno = err;
	return NULL;
}

MLX5EMU_ABI(ibv_create_qp);
struct ibv_qp *mlx5emu_abi_ibv_create_qp(struct ibv_pd *pd,
					 struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ax;
	struct ibv_qp *qp;

	if (!pd || !attr) {
		errno = EINVAL;
		return NULL;
	}
	memset(&ax, 0, sizeof(ax));
	memcpy(&ax, attr, sizeof(*attr));
	ax.comp_mask = IBV_QP_INIT_ATTR_PD;
	ax.pd = pd;
	qp = prov_qp_create(pd->context, &ax, NULL);
	if (qp)
		memcpy(attr, &ax, sizeof(*attr));
	return qp;
}

/* The verbs_context op behind ibv_create_qp_ex (any mask but PD alone). */
static struct ibv_qp *prov_create_qp_ex(struct ibv_context *context,
					struct ibv_qp_init_attr_ex *attr)
{
	if (!context || !attr) {
		errno = EINVAL;
		return NULL;
	}
	return prov_qp_create(context, attr, NULL);
}

/* ---- destruction ---- */

/* Waits, as libibverbs' destroy does, for the acks of read events. */
static void qp_wait_events(struct prov_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;

	pthread_mutex_lock(&ibqp->mutex);
	while (ibqp->events_completed != qp->events_reported)
		pthread_cond_wait(&ibqp->cond, &ibqp->mutex);
	pthread_mutex_unlock(&ibqp->mutex);
}

/* destroy_qp_common() on a real QP: to RESET, then DESTROY_QP. */
static int qp_destroy_hw(struct prov_qp *qp)
{
	struct prov_context *pctx = qp->pctx;

	if (!qp->obj)
		return 0;
	if (qp->dc != PROV_QP_DCT && qp->kstate != IBV_QPS_RESET) {
		uint8_t in[PRM_ST_SZ_BYTES(qp_2rst_in)] = { 0 };
		uint8_t out[PRM_ST_SZ_BYTES(qp_2rst_out)] = { 0 };

		PRM_SET(qp_2rst_in, in, opcode, MLX5_CMD_OP_2RST_QP);
		PRM_SET(qp_2rst_in, in, qpn, qp->vqp.qp.qp_num);
		/* A failure is only logged by mlx5_ib. */
		(void)pctx->be->obj_modify(qp->obj, in, sizeof(in), out,
					   sizeof(out));
		qp->kstate = IBV_QPS_RESET;
	}
	return prov_obj_destroy(pctx, qp->obj);
}

/* The last handle of a real QP is gone: its firmware object and memory. */
static int qp_release_real(struct prov_qp *qp)
{
	struct prov_context *pctx = qp->pctx;
	int err;

	err = qp_destroy_hw(qp);
	if (err)
		return err;
	qp->obj = NULL;
	if (qp->xshared)
		prov_xrcd_del_tgt(qp->xshared, pctx->qp_ctx, qp);
	if (qp->has_uidx)
		prov_rsc_clear(pctx, qp->uidx);
	qp_drop_uses(qp);
	prov_qp_bf_put(pctx, qp->bf);
	qp_free_mem(qp);
	return 0;
}

/* One handle less on a real XRC target QP; the last one destroys it. */
static void qp_put_real(struct prov_qp *real)
{
	if (atomic_fetch_sub(&real->refs, 1) != 1)
		return;
	(void)qp_release_real(real);
	qp_free(real);
}

MLX5EMU_ABI(ibv_destroy_qp);
int mlx5emu_abi_ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct prov_qp *qp;
	int err;

	if (!ibqp) {
		errno = EINVAL;
		return EINVAL;
	}
	qp = to_prov_qp(ibqp);
	if (qp->real) {
		/* A handle from ibv_open_qp (__ib_destroy_shared_qp). */
		qp_wait_events(qp);
		prov_xrcd_handle_put(qp->xrcd);
		qp_put_real(qp->real);
		qp_free(qp);
		return 0;
	}
	if (ibqp->qp_type == IBV_QPT_XRC_RECV) {
		/* The creator's handle; other handles keep the QP. */
		qp_wait_events(qp);
		prov_xrcd_handle_put(qp->xrcd);
		qp->xrcd = NULL;
		qp_put_real(qp);
		return 0;
	}
	err = qp_release_real(qp);
	if (err) {
		errno = err;
		return err;
	}
	qp_wait_events(qp);
	qp_free(qp);
	return 0;
}

/* ---- ibv_open_qp ---- */

static struct ibv_qp *prov_open_qp(struct ibv_context *context,
				   struct ibv_qp_open_attr *attr)
{
	struct prov_qp *qp, *real;
	struct prov_xrcd *xrcd;

	if (!context || !attr) {
		errno = EINVAL;
		return NULL;
	}
	/* libibverbs' ibv_cmd_open_qp, then uverbs' open_qp. */
	if (attr->comp_mask >= IBV_QP_OPEN_ATTR_RESERVED) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_OPEN_ATTR_XRCD) ||
	    !(attr->comp_mask & IBV_QP_OPEN_ATTR_NUM) ||
	    !(attr->comp_mask & IBV_QP_OPEN_ATTR_TYPE) || !attr->xrcd ||
	    attr->xrcd->context != context ||
	    attr->qp_type != IBV_QPT_XRC_RECV) {
		errno = EINVAL;
		return NULL;
	}
	xrcd = to_prov_xrcd(attr->xrcd);
	qp = qp_alloc(to_prov_context(context));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	real = prov_xrcd_find_tgt(xrcd, attr->qp_num);
	if (!real) {
		qp_free(qp);
		errno = EINVAL;
		return NULL;
	}
	prov_xrcd_handle_get(xrcd);
	qp->real = real;
	qp->opened = true;
	qp->xrcd = xrcd;
	qp->vqp.qp.context = context;
	qp->vqp.qp.qp_context = attr->qp_context;
	qp->vqp.qp.qp_num = attr->qp_num;
	qp->vqp.qp.qp_type = attr->qp_type;
	qp->vqp.qp.state = IBV_QPS_UNKNOWN;
	qp->vqp.qp.handle = prov_handle_alloc(to_prov_context(context));
	pthread_mutex_init(&qp->vqp.qp.mutex, NULL);
	pthread_cond_init(&qp->vqp.qp.cond, NULL);
	qp->vqp.comp_mask = PROV_VERBS_QP_XRCD;
	qp->vqp.xrcd = &xrcd->vxrcd;
	return &qp->vqp.qp;
}

/* ---- posting ---- */

static bool qp_rq_overflow(struct prov_qp *qp, int nreq)
{
	struct prov_cq *cq;
	unsigned int cur = qp->rq.head - qp->rq.tail;

	if (cur + (unsigned int)nreq < qp->rq.max_post)
		return false;
	cq = qp->vqp.qp.recv_cq ? to_prov_cq(qp->vqp.qp.recv_cq) : NULL;
	if (cq && !cq->single_threaded)
		pthread_spin_lock(&cq->lock);
	cur = qp->rq.head - qp->rq.tail;
	if (cq && !cq->single_threaded)
		pthread_spin_unlock(&cq->lock);
	return cur + (unsigned int)nreq >= qp->rq.max_post;
}

/* mlx5_post_recv(). */
static int prov_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	struct prov_qp *qp = prov_qp_real(to_prov_qp(ibqp));
	struct mlx5_wqe_data_seg *scat;
	unsigned int ind;
	int err = 0, nreq;

	pthread_spin_lock(&qp->rq.lock);
	ind = qp->rq.wqe_cnt ? qp->rq.head & (qp->rq.wqe_cnt - 1) : 0;
	for (nreq = 0; wr; ++nreq, wr = wr->next) {
		int j = 0;

		if (qp_rq_overflow(qp, nreq)) {
			err = ENOMEM;
			*bad_wr = wr;
			goto out;
		}
		if (wr->num_sge > qp->rq.qp_state_max_gs) {
			err = EINVAL;
			*bad_wr = wr;
			goto out;
		}
		scat = (struct mlx5_wqe_data_seg *)((char *)qp->buf.buf +
			qp->rq.offset + ((size_t)ind << qp->rq.wqe_shift));
		if (qp->wq_sig) {
			memset(scat, 0, (size_t)1 << qp->rq.wqe_shift);
			++scat;
		}
		for (int i = 0; i < wr->num_sge; ++i) {
			if (!wr->sg_list[i].length)
				continue;
			scat[j].byte_count = htobe32(wr->sg_list[i].length);
			scat[j].lkey = htobe32(wr->sg_list[i].lkey);
			scat[j].addr = htobe64(wr->sg_list[i].addr);
			j++;
		}
		if (j < qp->rq.max_gs) {
			scat[j].byte_count = 0;
			scat[j].lkey = htobe32(PROV_INVALID_LKEY);
			scat[j].addr = 0;
		}
		qp->rq.wrid[ind] = wr->wr_id;
		ind = (ind + 1) & (qp->rq.wqe_cnt - 1);
	}
out:
	if (nreq) {
		qp->rq.head += (unsigned int)nreq;
		/* udma_to_device_barrier(): WQEs before the record. */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&qp->db[PROV_RCV_DBR],
				 htobe32(qp->rq.head & 0xffff), __ATOMIC_RELEASE);
	}
	pthread_spin_unlock(&qp->rq.lock);
	return err;
}

/* Building and executing send WQEs is not here yet: rdma-core's answer
 * for a missing op, with the whole list unposted. */
static int prov_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad_wr)
{
	(void)ibqp;
	if (bad_wr)
		*bad_wr = wr;
	return EOPNOTSUPP;
}

MLX5EMU_ABI(ibv_qp_to_qp_ex);
struct ibv_qp_ex *mlx5emu_abi_ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct prov_verbs_qp *vqp = (struct prov_verbs_qp *)qp;

	if (vqp->comp_mask & PROV_VERBS_QP_EX)
		return &vqp->qp_ex;
	return NULL;
}

void prov_qp_event_reported(struct ibv_qp *ibqp)
{
	pthread_mutex_lock(&ibqp->mutex);
	to_prov_qp(ibqp)->events_reported++;
	pthread_mutex_unlock(&ibqp->mutex);
}

void prov_qp_set_ops(struct prov_context *pctx)
{
	pctx->vctx.create_qp_ex = prov_create_qp_ex;
	pctx->vctx.open_qp = prov_open_qp;
	pctx->vctx.context.ops.post_send = prov_post_send;
	pctx->vctx.context.ops.post_recv = prov_post_recv;
	prov_srq_set_ops(pctx);
	prov_xrcd_set_ops(pctx);
}
