/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_create_qp (DC initiators and targets, mlx5 creation flags),
 * the DCT's life as mlx5_ib leads it, and mlx5dv_init_obj's QP part, as
 * rdma-core 44 (libmlx5 create_qp/create_dct/mlx5dv_get_qp) over the
 * upstream kernel (mlx5_ib_create_dct, mlx5_ib_modify_dct,
 * mlx5_ib_dct_query_qp) behave.
 *
 * A DCI is a QP of service type DCI created like any other (qp.c), with
 * a send queue only.  A DCT has no firmware object until RTR: creation
 * takes its PD, receive CQ and SRQ (both required: EINVAL without) and
 * its user index; RESET->INIT records access, P_Key index and port;
 * INIT->RTR adds MTU, minimal RNR timer, the source GID index, hop limit,
 * traffic class, flow label and priority and issues CREATE_DCT, whose
 * number becomes qp_num.  Any other transition, or another attribute
 * mask than exactly those, is EINVAL.  ibv_query_qp on a DCT is QUERY_DCT
 * and works in RTR only.
 *
 * mlx5dv_create_qp: creation flags as libmlx5 44 takes them: scatter to
 * CQE (ALLOW/DISABLE) is accepted and, the device advertising no
 * sctr_data_cqe, dropped as mlx5_ib drops it; DISABLE with ALLOW, unknown
 * flags, tunnel offloads, TIR loopback and packet-based credit mode
 * (raw/advertised only) are EINVAL; signature pipelining is EOPNOTSUPP; a
 * DCT takes no flag but scatter to CQE (ALLOW is EINVAL there).  DCI
 * streams beyond the advertised (zero) counts are EINVAL.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/query.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/mana/mana_prov.h"

/* The vendor flag a DCT may carry (MLX5_QP_FLAG_SCATTER_CQE). */
#define PROV_DCT_SCATTER_CQE (1u << 1)

int prov_dct_check_lib(const struct ibv_qp_init_attr_ex *attr,
		       const struct mlx5dv_qp_init_attr *dv, uint32_t vflags)
{
	if (attr->comp_mask & ~(uint32_t)IBV_QP_INIT_ATTR_PD)
		return EINVAL;
	if (dv->comp_mask & ~(uint64_t)(MLX5DV_QP_INIT_ATTR_MASK_DC |
					MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS))
		return EINVAL;
	if (vflags & ~PROV_DCT_SCATTER_CQE)
		return EINVAL;
	return 0;
}

int prov_dct_create(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr,
		    struct mlx5dv_qp_init_attr *dv)
{
	struct prov_context *pctx = qp->pctx;
	void *dctc;
	int err;

	/* check_qp_attr(): a DCT receives into an SRQ, completes on a CQ. */
	if (!attr->srq || !attr->recv_cq)
		return EINVAL;
	qp->dct_in = calloc(1, PRM_ST_SZ_BYTES(create_dct_in));
	if (!qp->dct_in)
		return ENOMEM;
	err = prov_rsc_store(pctx, &qp->rsc, &qp->uidx);
	if (err)
		return err;
	qp->has_uidx = true;
	err = prov_pd_use(attr->pd);
	if (err)
		goto err_uidx;
	err = prov_cq_use(attr->recv_cq);
	if (err)
		goto err_pd;
	if (attr->send_cq) {
		err = prov_cq_use(attr->send_cq);
		if (err)
			goto err_rcq;
	}
	err = prov_srq_use(attr->srq);
	if (err)
		goto err_scq;
	qp->rsc.srq = &to_prov_srq(attr->srq)->rsc;

	PRM_SET(create_dct_in, qp->dct_in, opcode, MLX5_CMD_OP_CREATE_DCT);
	dctc = PRM_ADDR_OF(create_dct_in, qp->dct_in, dct_context_entry);
	PRM_SET(dctc, dctc, pd, prov_pd_pdn(attr->pd));
	PRM_SET(dctc, dctc, srqn_xrqn, prov_srq_srqn(attr->srq));
	PRM_SET(dctc, dctc, cqn, prov_cq_cqn(attr->recv_cq));
	PRM_SET64(dctc, dctc, dc_access_key, dv->dc_init_attr.dct_access_key);
	PRM_SET(dctc, dctc, user_index, qp->uidx);
	if (PROV_CAP_GEN(pctx, ece_support))
		PRM_SET(dctc, dctc, ece, PROV_ECE_CREATE);
	return 0;

err_scq:
	if (attr->send_cq)
		prov_cq_unuse(attr->send_cq);
err_rcq:
	prov_cq_unuse(attr->recv_cq);
err_pd:
	prov_pd_unuse(attr->pd);
err_uidx:
	prov_rsc_clear(pctx, qp->uidx);
	qp->has_uidx = false;
	return EINVAL;
}

/* is_valid_mask(). */
static bool dct_mask_is(int mask, int req)
{
	return mask == req;
}

int prov_dct_modify(struct prov_qp *qp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct prov_context *pctx = qp->pctx;
	void *dctc = PRM_ADDR_OF(create_dct_in, qp->dct_in, dct_context_entry);
	uint8_t out[PRM_ST_SZ_BYTES(create_dct_out)] = { 0 };
	enum ibv_qp_state cur = qp->kstate, next;

	if (!(attr_mask & IBV_QP_STATE))
		return EINVAL;
	next = attr->qp_state;
	if (cur == IBV_QPS_RESET && next == IBV_QPS_INIT) {
		if (!dct_mask_is(attr_mask, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS |
				 IBV_QP_PKEY_INDEX | IBV_QP_PORT))
			return EINVAL;
		if (attr->port_num == 0 ||
		    attr->port_num > prov_caps_num_ports(pctx))
			return EINVAL;
		if (attr->qp_access_flags & IBV_ACCESS_REMOTE_READ)
			PRM_SET(dctc, dctc, rre, 1);
		if (attr->qp_access_flags & IBV_ACCESS_REMOTE_WRITE)
			PRM_SET(dctc, dctc, rwe, 1);
		if (attr->qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC) {
			/* get_atomic_mode(DCT): 8-byte IB-compatible. */
			if (!PROV_CAP_GEN(pctx, atomic) ||
			    !PROV_CAP_ATOMIC(pctx, atomic_size_dc))
				return EOPNOTSUPP;
			PRM_SET(dctc, dctc, atomic_mode,
				MLX5_QPC_ATOMIC_MODE_IB_SPEC);
			PRM_SET(dctc, dctc, rae, 1);
		}
		PRM_SET(dctc, dctc, pkey_index, attr->pkey_index);
		PRM_SET(dctc, dctc, port, attr->port_num);
		PRM_SET(dctc, dctc, counter_set_id, 0);
		qp->port = attr->port_num;
	} else if (cur == IBV_QPS_INIT && next == IBV_QPS_RTR) {
		if (!dct_mask_is(attr_mask, IBV_QP_STATE | IBV_QP_MIN_RNR_TIMER |
				 IBV_QP_AV | IBV_QP_PATH_MTU))
			return EINVAL;
		PRM_SET(dctc, dctc, min_rnr_nak, attr->min_rnr_timer);
		PRM_SET(dctc, dctc, tclass, attr->ah_attr.grh.traffic_class);
		PRM_SET(dctc, dctc, flow_label, attr->ah_attr.grh.flow_label);
		PRM_SET(dctc, dctc, mtu, attr->path_mtu);
		PRM_SET(dctc, dctc, my_addr_index, attr->ah_attr.grh.sgid_index);
		PRM_SET(dctc, dctc, hop_limit, attr->ah_attr.grh.hop_limit);
		PRM_SET(dctc, dctc, eth_prio, attr->ah_attr.sl & 0x7);
		qp->obj = prov_obj_create(pctx, qp->dct_in,
					  PRM_ST_SZ_BYTES(create_dct_in), out,
					  sizeof(out));
		if (!qp->obj)
			return errno;
		qp->vqp.qp.qp_num = PRM_GET(create_dct_out, out, dctn);
		/* The options CREATE_DCT answered, when some were set. */
		if (qp->set_ece) {
			qp->set_ece = 0;
			qp->get_ece = PROV_CAP_GEN(pctx, ece_support) ?
				      PRM_GET(create_dct_out, out, ece) : 0;
		}
	} else {
		return EINVAL;
	}
	qp->kstate = next;
	return 0;
}

int prov_dct_query(struct prov_qp *qp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	const int supported = IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PORT |
			      IBV_QP_MIN_RNR_TIMER | IBV_QP_AV |
			      IBV_QP_PATH_MTU | IBV_QP_PKEY_INDEX;
	uint8_t in[PRM_ST_SZ_BYTES(query_dct_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_dct_out)] = { 0 };
	const void *dctc = PRM_ADDR_OF(query_dct_out, out, dct_context_entry);
	int ret;

	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));
	if ((attr_mask & ~supported) || qp->kstate != IBV_QPS_RTR || !qp->obj)
		return EINVAL;
	PRM_SET(query_dct_in, in, opcode, MLX5_CMD_OP_QUERY_DCT);
	PRM_SET(query_dct_in, in, dctn, qp->vqp.qp.qp_num);
	ret = prov_obj_query(qp->pctx, qp->obj, in, sizeof(in), out,
			     sizeof(out));
	if (ret)
		return ret;
	if (attr_mask & IBV_QP_STATE)
		attr->qp_state = IBV_QPS_RTR;
	if (attr_mask & IBV_QP_ACCESS_FLAGS)
		attr->qp_access_flags =
			(PRM_GET(dctc, dctc, rre) ? IBV_ACCESS_REMOTE_READ : 0) |
			(PRM_GET(dctc, dctc, rwe) ? IBV_ACCESS_REMOTE_WRITE : 0) |
			(PRM_GET(dctc, dctc, rae) ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	if (attr_mask & IBV_QP_PORT)
		attr->port_num = (uint8_t)PRM_GET(dctc, dctc, port);
	if (attr_mask & IBV_QP_MIN_RNR_TIMER)
		attr->min_rnr_timer = (uint8_t)PRM_GET(dctc, dctc, min_rnr_nak);
	if (attr_mask & IBV_QP_AV) {
		attr->ah_attr.grh.traffic_class =
			(uint8_t)PRM_GET(dctc, dctc, tclass);
		attr->ah_attr.grh.flow_label = PRM_GET(dctc, dctc, flow_label);
		attr->ah_attr.grh.sgid_index =
			(uint8_t)PRM_GET(dctc, dctc, my_addr_index);
		attr->ah_attr.grh.hop_limit =
			(uint8_t)PRM_GET(dctc, dctc, hop_limit);
	}
	if (attr_mask & IBV_QP_PATH_MTU)
		attr->path_mtu = (enum ibv_mtu)PRM_GET(dctc, dctc, mtu);
	if (attr_mask & IBV_QP_PKEY_INDEX)
		attr->pkey_index = (uint16_t)PRM_GET(dctc, dctc, pkey_index);
	return 0;
}

MLX5EMU_ABI(mlx5dv_create_qp);
struct ibv_qp *mlx5emu_abi_mlx5dv_create_qp(struct ibv_context *context,
					    struct ibv_qp_init_attr_ex *qp_attr,
					    struct mlx5dv_qp_init_attr *mlx5_qp_attr)
{
	/* libmlx5: no dv ops for a device not its own */
	if (prov_mana_is(context))
		return prov_mana_unsupported();
	if (!context || !qp_attr) {
		errno = EINVAL;
		return NULL;
	}
	return prov_qp_create(context, qp_attr, mlx5_qp_attr);
}

/* mlx5dv_get_qp(). */
int prov_qp_dv(struct ibv_qp *ibqp, struct mlx5dv_qp *out)
{
	struct prov_qp *qp;
	uint64_t mask_out = 0;

	if (!ibqp || !out)
		return EINVAL;
	qp = prov_qp_real(to_prov_qp(ibqp));
	/* A DCT has no queues and no register (libmlx5 would fault). */
	if (qp->dc == PROV_QP_DCT || !qp->bf)
		return EINVAL;
	out->dbrec = qp->db;
	if (qp->sq_buf_size)	/* a raw packet QP's SQ is apart */
		out->sq.buf = qp->sq_buf.buf;
	else
		out->sq.buf = qp->buf.buf ? (char *)qp->buf.buf + qp->sq.offset :
					    NULL;
	out->sq.wqe_cnt = qp->sq.wqe_cnt;
	out->sq.stride = 1u << qp->sq.wqe_shift;
	out->rq.buf = qp->buf.buf ? (char *)qp->buf.buf + qp->rq.offset : NULL;
	out->rq.wqe_cnt = qp->rq.wqe_cnt;
	out->rq.stride = 1u << qp->rq.wqe_shift;
	out->bf.reg = qp->bf->reg;
	if (out->comp_mask & MLX5DV_QP_MASK_UAR_MMAP_OFFSET) {
		out->uar_mmap_offset = (uint64_t)qp->bf->mmap_off;
		mask_out |= MLX5DV_QP_MASK_UAR_MMAP_OFFSET;
	}
	if (out->comp_mask & MLX5DV_QP_MASK_RAW_QP_HANDLES) {
		out->tirn = qp->raw.tirn;
		out->tisn = qp->raw.tisn;
		out->rqn = qp->raw.rqn;
		out->sqn = qp->raw.sqn;
		mask_out |= MLX5DV_QP_MASK_RAW_QP_HANDLES;
	}
	/* No software-owned steering (sw_owner): the kernel gives no ICM
	 * address, and libmlx5 reports 0. */
	if (out->comp_mask & MLX5DV_QP_MASK_RAW_QP_TIR_ADDR) {
		out->tir_icm_addr = 0;
		mask_out |= MLX5DV_QP_MASK_RAW_QP_TIR_ADDR;
	}
	out->bf.size = qp->bf->nc ? 0 : qp->bf->buf_size;
	out->comp_mask = mask_out;
	return 0;
}
