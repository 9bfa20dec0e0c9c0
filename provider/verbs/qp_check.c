/* SPDX-License-Identifier: MIT */
/*
 * The checks ibv_create_qp and mlx5dv_create_qp pass before CREATE_QP, as
 * rdma-core 44 (libmlx5 create_qp, libibverbs ibv_icmd_create_qp) and the
 * upstream kernel (uverbs QP_CREATE, mlx5_ib_create_qp) make them, in the
 * order the layers check:
 *
 *   EINVAL     (libmlx5) comp_mask bits it does not know, a TSO header on
 *              a non-raw QP, send_ops_flags on a DCT, SOURCE_QPN on a
 *              non-UD QP, IBV_QPT_DRIVER without mlx5dv DC attributes
 *   EINVAL     (libibverbs/uverbs) no PD (no XRCD for XRC_RECV), a NULL or
 *              foreign send CQ, an XRC SRQ on a non-XRC QP, unknown
 *              create_flags or flags on a QP type that takes none
 *   EPERM      (uverbs) a raw packet QP in a process without CAP_NET_RAW
 *   EINVAL     (uverbs) an RSS hash without an indirection table, or a
 *              table with receive caps or an SRQ
 *   EINVAL     (mlx5_ib) tunnel offloads without a stateless tunnel cap,
 *              a raw packet QP on a CQE version 0 context, an
 *              indirection table on another QP type; an RSS QP's own
 *              (qp_rss.c)
 *   EOPNOTSUPP a create flag the device does not advertise (mlx5_ib's
 *              process_create_flags)
 *   EINVAL     (mlx5_ib) a DCI with receive caps
 *
 * and the timestamp format the QP's CQs ask for (get_qp_ts_format).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/flow.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"

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

/* ---- the checks of libmlx5, libibverbs, uverbs and mlx5_ib ---- */

static bool use_scatter_to_cqe(void)
{
	const char *env = getenv("MLX5_SCATTER_TO_CQE");

	return !(env && !strcmp(env, "0"));
}

/* libmlx5's create_qp() up to the command; the vendor flags in *flags. */
int prov_qp_check_lib(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr,
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
int prov_qp_check_uverbs(struct ibv_context *context,
			 struct ibv_qp_init_attr_ex *attr)
{
	uint32_t cf = (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) ?
		      attr->create_flags : 0;
	struct prov_context *pctx = to_prov_context(context);

	/* uverbs' create_qp: raw packet QPs need CAP_NET_RAW. */
	if (attr->qp_type == IBV_QPT_RAW_PACKET &&
	    prov_qp_net_raw_check(pctx))
		return EPERM;
	/* An RSS QP's hash goes with an indirection table, and such a QP
	 * receives through it alone. */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_RX_HASH) &&
	    !(attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE))
		return EINVAL;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE) &&
	    (!attr->rwq_ind_tbl || attr->rwq_ind_tbl->context != context ||
	     attr->cap.max_recv_wr || attr->cap.max_recv_sge || attr->srq))
		return EINVAL;

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
int prov_qp_check_kernel(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr,
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
	 * packet QPs; tunnel offloads there need a stateless tunnel cap. */
	if (attr->qp_type != IBV_QPT_RAW_PACKET &&
	    (f & (PROV_QPF_TUNNEL_OFFLOADS | PROV_QPF_SELF_LB_UC |
		  PROV_QPF_SELF_LB_MC | PROV_QPF_PACKET_BASED_CREDIT)))
		return EINVAL;
	if (attr->qp_type == IBV_QPT_RAW_PACKET &&
	    ((f & PROV_QPF_PACKET_BASED_CREDIT) ||
	     ((f & PROV_QPF_TUNNEL_OFFLOADS) &&
	      !PROV_CAP_ETH(pctx, tunnel_stateless_vxlan) &&
	      !PROV_CAP_ETH(pctx, tunnel_stateless_gre) &&
	      !PROV_CAP_ETH(pctx, tunnel_stateless_geneve_rx))))
		return EINVAL;
	*vflags = f;

	/* check_valid_flow(): raw packet QPs complete with CQE version 1;
	 * an indirection table serves raw packet QPs alone. */
	if (attr->qp_type == IBV_QPT_RAW_PACKET && !prov_caps_cqe_version(pctx))
		return EINVAL;
	if (attr->qp_type != IBV_QPT_RAW_PACKET &&
	    (attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE))
		return EINVAL;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE)
		return prov_qp_rss_check_kernel(qp, attr, f, cf);

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
	/* Scatter FCS and VLAN stripping: raw packet QPs of a device that
	 * does them. */
	if (attr->qp_type == IBV_QPT_RAW_PACKET) {
		bool eth = PROV_CAP_GEN(pctx, eth_net_offloads);

		if ((cf & IBV_QP_CREATE_SCATTER_FCS) && eth &&
		    PROV_CAP_ETH(pctx, scatter_fcs)) {
			qp->create_flags |= IBV_QP_CREATE_SCATTER_FCS;
			cf &= ~(uint32_t)IBV_QP_CREATE_SCATTER_FCS;
		}
		if ((cf & IBV_QP_CREATE_CVLAN_STRIPPING) &&
		    prov_caps_cvlan_strip(pctx)) {
			qp->create_flags |= IBV_QP_CREATE_CVLAN_STRIPPING;
			cf &= ~(uint32_t)IBV_QP_CREATE_CVLAN_STRIPPING;
		}
	}
	/* SOURCE_QPN needs an InfiniBand port. */
	if (cf)
		return EOPNOTSUPP;

	/* check_qp_attr(). */
	if (qp->dc == PROV_QP_DCI &&
	    (attr->cap.max_recv_wr || attr->cap.max_recv_sge))
		return EINVAL;
	return 0;
}

/* mlx5_ib's get_ts_format() for one CQ, or the default without one. */
int prov_qp_cq_ts_format(struct ibv_cq *cq, bool fr, bool rt, int *fmt)
{
	struct prov_cq *pcq = cq ? to_prov_cq(cq) : NULL;

	if (pcq && pcq->rt_ts) {
		*fmt = MLX5_TIMESTAMP_FORMAT_REAL_TIME;
		return rt ? 0 : EOPNOTSUPP;
	}
	if (pcq && (pcq->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)) {
		*fmt = MLX5_TIMESTAMP_FORMAT_FREE_RUNNING;
		return fr ? 0 : EOPNOTSUPP;
	}
	*fmt = fr ? MLX5_TIMESTAMP_FORMAT_FREE_RUNNING :
		    MLX5_TIMESTAMP_FORMAT_DEFAULT;
	return 0;
}

/* get_qp_ts_format(): 0 and the format, or an errno. */
static int qp_ts_format(struct prov_qp *qp, struct ibv_cq *scq,
			struct ibv_cq *rcq)
{
	unsigned int cap = PROV_CAP_ROCE(qp->pctx, qp_ts_format);
	bool fr = prov_caps_ts_fr(cap), rt = prov_caps_ts_rt(cap);
	int s, r;

	if (prov_qp_cq_ts_format(scq, fr, rt, &s) ||
	    prov_qp_cq_ts_format(rcq, fr, rt, &r))
		return EOPNOTSUPP;
	if (s != MLX5_TIMESTAMP_FORMAT_DEFAULT &&
	    r != MLX5_TIMESTAMP_FORMAT_DEFAULT && s != r)
		return EINVAL;
	qp->ts_format = (uint8_t)(s == MLX5_TIMESTAMP_FORMAT_DEFAULT ? r : s);
	return 0;
}

/* The timestamp format of a new QP: an XRC target has no CQs and takes
 * the device's default. */
int prov_qp_set_ts_format(struct prov_qp *qp,
			  const struct ibv_qp_init_attr_ex *attr)
{
	/* A raw packet QP's queues take their own (qp_raw.c). */
	if (attr->qp_type == IBV_QPT_RAW_PACKET)
		return 0;
	if (!prov_qp_is_xrc_tgt(attr->qp_type))
		return qp_ts_format(qp, attr->send_cq,
				    attr->qp_type == IBV_QPT_XRC_SEND ? NULL :
				    attr->recv_cq);
	qp->ts_format = prov_caps_ts_fr(PROV_CAP_ROCE(qp->pctx, qp_ts_format)) ?
			MLX5_TIMESTAMP_FORMAT_FREE_RUNNING :
			MLX5_TIMESTAMP_FORMAT_DEFAULT;
	return 0;
}
