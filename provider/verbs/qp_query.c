/* SPDX-License-Identifier: MIT */
/*
 * ibv_query_qp, ibv_query_qp_data_in_order, ibv_query_ece/ibv_set_ece and
 * the DEVX entries on a verbs QP (mlx5dv_devx_qp_query/modify), as
 * rdma-core 44 (libibverbs ibv_cmd_query_qp, libmlx5 mlx5_query_qp and
 * mlx5_query_qp_data_in_order) over the upstream kernel (mlx5_ib_query_qp,
 * query_qp_attr, to_rdma_ah_attr, DEVX object methods) behave.
 *
 * ibv_query_qp: QUERY_QP, every attribute from the firmware's context
 * (state, MTU, migration state, Q_Key, PSNs, destination QPN, access,
 * 1 << log_sra_max / log_rra_max, RNR and retry counts, P_Key index,
 * port, timeouts; for RC/UC/XRC the primary and alternate paths as a
 * RoCE AH: GRH with the destination GID, source GID index, hop limit,
 * traffic class and flow label); the caps as libmlx5 reports them
 * (max_recv_wr/sge from the RQ, the send side from libmlx5's own
 * sizing); qp->state follows when IBV_QP_STATE is asked.  attr_mask bits
 * from IBV_QP_RATE_LIMIT up: EOPNOTSUPP (libibverbs).  A DCT answers
 * through QUERY_DCT in RTR only (qp_dv.c).
 *
 * ibv_query_qp_data_in_order: 0 unless the device advertises
 * qp_data_in_order (it does not), as libmlx5 44 answers on x86.
 *
 * mlx5dv_devx_qp_modify/query: the mailbox goes to the firmware on the
 * QP's own DEVX object (the kernel checks the opcode and the QP number);
 * EREMOTEIO with the outbox for a firmware error.  A modify updates what
 * libmlx5 lets the QP post (set_qp_operational_state) but not qp->state,
 * as libmlx5 does.  A DCT before RTR has no object: EINVAL.
 */
#include <errno.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/devx/devx.h"
#include "provider/core/caps.h"
#include "provider/core/cmd.h"
#include "provider/core/error.h"
#include "provider/core/context.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/mana/mana_prov.h"

/* PCI_VENDOR_ID_MELLANOX, libmlx5's ECE vendor. */
#define PROV_ECE_VENDOR 0x15b3

static enum ibv_qp_state to_ib_state(uint32_t s)
{
	switch (s) {
	case MLX5_QPC_STATE_RST:
		return IBV_QPS_RESET;
	case MLX5_QPC_STATE_INIT:
		return IBV_QPS_INIT;
	case MLX5_QPC_STATE_RTR:
		return IBV_QPS_RTR;
	case MLX5_QPC_STATE_RTS:
		return IBV_QPS_RTS;
	case MLX5_QPC_STATE_SQD:
		return IBV_QPS_SQD;
	case MLX5_QPC_STATE_SQER:
		return IBV_QPS_SQE;
	case MLX5_QPC_STATE_ERR:
		return IBV_QPS_ERR;
	default:
		return (enum ibv_qp_state)-1;
	}
}

static enum ibv_mig_state to_ib_mig(uint32_t pm)
{
	switch (pm) {
	case MLX5_QPC_PM_STATE_ARMED:
		return IBV_MIG_ARMED;
	case MLX5_QPC_PM_STATE_REARM:
		return IBV_MIG_REARM;
	case MLX5_QPC_PM_STATE_MIGRATED:
		return IBV_MIG_MIGRATED;
	default:
		return (enum ibv_mig_state)-1;
	}
}

/* mlx5_to_ib_rate_map(). */
static enum ibv_rate to_ib_rate(uint32_t r)
{
	static const enum ibv_rate rates[] = {
		IBV_RATE_MAX, IBV_RATE_56_GBPS, IBV_RATE_25_GBPS,
		IBV_RATE_100_GBPS, IBV_RATE_200_GBPS, IBV_RATE_50_GBPS,
		IBV_RATE_400_GBPS,
	};

	if (r < sizeof(rates) / sizeof(rates[0]))
		return rates[r];
	return (enum ibv_rate)(r - 5);
}

/* to_rdma_ah_attr() for a RoCE port, as uverbs copies it back. */
static void to_ah_attr(struct prov_context *pctx, struct ibv_ah_attr *ah,
		       const void *path)
{
	uint32_t port = PRM_GET(ads, path, vhca_port_num);

	memset(ah, 0, sizeof(*ah));
	if (!port || port > prov_caps_num_ports(pctx))
		return;
	ah->port_num = (uint8_t)port;
	ah->sl = (uint8_t)PRM_GET(ads, path, sl);
	ah->dlid = (uint16_t)PRM_GET(ads, path, rlid);
	ah->src_path_bits = (uint8_t)PRM_GET(ads, path, mlid);
	ah->static_rate = (uint8_t)to_ib_rate(PRM_GET(ads, path, stat_rate));
	ah->is_global = 1;	/* RoCE AHs always carry a GRH */
	ah->grh.flow_label = PRM_GET(ads, path, flow_label);
	ah->grh.sgid_index = (uint8_t)PRM_GET(ads, path, src_addr_index);
	ah->grh.hop_limit = (uint8_t)PRM_GET(ads, path, hop_limit);
	ah->grh.traffic_class = (uint8_t)PRM_GET(ads, path, tclass);
	memcpy(ah->grh.dgid.raw, PRM_ADDR_OF(ads, path, rgid_rip), 16);
}

/* query_qp_attr(): QUERY_QP into @attr; the kernel's state follows. */
static int qp_query_attr(struct prov_qp *qp, struct ibv_qp_attr *attr)
{
	struct prov_context *pctx = qp->pctx;
	uint8_t in[PRM_ST_SZ_BYTES(query_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)] = { 0 };
	const void *qpc = PRM_ADDR_OF(query_qp_out, out, qpc);
	const void *pri = PRM_ADDR_OF(qpc, qpc, primary_address_path);
	const void *alt = PRM_ADDR_OF(qpc, qpc, secondary_address_path);
	enum ibv_qp_type t = qp->vqp.qp.qp_type;
	int ret;

	PRM_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	PRM_SET(query_qp_in, in, qpn, qp->vqp.qp.qp_num);
	ret = prov_obj_query(pctx, qp->obj, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	qp->kstate = to_ib_state(PRM_GET(qpc, qpc, state));
	attr->path_mtu = (enum ibv_mtu)PRM_GET(qpc, qpc, mtu);
	attr->path_mig_state = to_ib_mig(PRM_GET(qpc, qpc, pm_state));
	attr->qkey = PRM_GET(qpc, qpc, q_key);
	attr->rq_psn = PRM_GET(qpc, qpc, next_rcv_psn);
	attr->sq_psn = PRM_GET(qpc, qpc, next_send_psn);
	attr->dest_qp_num = PRM_GET(qpc, qpc, remote_qpn);
	if (PRM_GET(qpc, qpc, rre))
		attr->qp_access_flags |= IBV_ACCESS_REMOTE_READ;
	if (PRM_GET(qpc, qpc, rwe))
		attr->qp_access_flags |= IBV_ACCESS_REMOTE_WRITE;
	if (PRM_GET(qpc, qpc, rae))
		attr->qp_access_flags |= IBV_ACCESS_REMOTE_ATOMIC;
	attr->max_rd_atomic = (uint8_t)(1u << PRM_GET(qpc, qpc, log_sra_max));
	attr->max_dest_rd_atomic =
		(uint8_t)(1u << PRM_GET(qpc, qpc, log_rra_max));
	attr->min_rnr_timer = (uint8_t)PRM_GET(qpc, qpc, min_rnr_nak);
	attr->retry_cnt = (uint8_t)PRM_GET(qpc, qpc, retry_count);
	attr->rnr_retry = (uint8_t)PRM_GET(qpc, qpc, rnr_retry);
	if (t == IBV_QPT_RC || t == IBV_QPT_UC || t == IBV_QPT_XRC_SEND ||
	    t == IBV_QPT_XRC_RECV) {
		to_ah_attr(pctx, &attr->ah_attr, pri);
		to_ah_attr(pctx, &attr->alt_ah_attr, alt);
		attr->alt_pkey_index = (uint16_t)PRM_GET(ads, alt, pkey_index);
		attr->alt_port_num = (uint8_t)PRM_GET(ads, alt, vhca_port_num);
	}
	attr->pkey_index = (uint16_t)PRM_GET(ads, pri, pkey_index);
	attr->port_num = (uint8_t)PRM_GET(ads, pri, vhca_port_num);
	attr->timeout = (uint8_t)PRM_GET(ads, pri, ack_timeout);
	attr->alt_timeout = (uint8_t)PRM_GET(ads, alt, ack_timeout);
	return 0;
}

/* mlx5_ib_query_qp() under uverbs, then libmlx5's caps. */
static int qp_query(struct prov_qp *qp, struct ibv_qp_attr *attr,
		    struct ibv_qp_init_attr *init)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	int err;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	pthread_mutex_lock(&qp->lock);
	if (ibqp->qp_type == IBV_QPT_RAW_PACKET) {
		/* query_raw_packet_qp_state(); the port is always 1. */
		err = prov_qp_raw_query(qp, &qp->kstate);
		attr->port_num = 1;
	} else {
		err = qp_query_attr(qp, attr);
	}
	if (!err) {
		attr->qp_state = qp->kstate;
		attr->cur_qp_state = attr->qp_state;
		attr->cap.max_recv_wr = qp->rq.wqe_cnt;
		attr->cap.max_recv_sge = (uint32_t)qp->rq.max_gs;
	}
	pthread_mutex_unlock(&qp->lock);
	if (err)
		return err;
	init->sq_sig_all = qp->sq_signal_bits ? 1 : 0;
	init->cap.max_recv_wr = attr->cap.max_recv_wr;
	init->cap.max_recv_sge = attr->cap.max_recv_sge;
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->qp_context = ibqp->qp_context;
	return 0;
}

MLX5EMU_ABI(ibv_query_qp);
int mlx5emu_abi_ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			     int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	/* libmana has no query_qp: libibverbs' dummy op answers */
	if (ibqp && prov_mana_is(ibqp->context))
		return EOPNOTSUPP;
	struct prov_qp *qp, *real;
	int err;

	if (!ibqp || !attr || !init_attr) {
		errno = EINVAL;
		return EINVAL;
	}
	/* ibv_cmd_query_qp(): the legacy bits only. */
	if (attr_mask & ~(IBV_QP_RATE_LIMIT - 1)) {
		errno = EOPNOTSUPP;
		return EOPNOTSUPP;
	}
	qp = to_prov_qp(ibqp);
	real = prov_qp_real(qp);
	/* libmlx5: an RSS QP cannot be queried. */
	if (real->raw.rss) {
		errno = EOPNOTSUPP;
		return EOPNOTSUPP;
	}
	if (real->dc == PROV_QP_DCT)
		err = prov_dct_query(real, attr, attr_mask, init_attr);
	else
		err = qp_query(real, attr, init_attr);
	if (err) {
		errno = err;
		return err;
	}
	/* The handle's own view (an opened XRC target has no CQs). */
	init_attr->qp_context = ibqp->qp_context;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->qp_type = ibqp->qp_type;
	/* mlx5_query_qp(): the send side as libmlx5 sized it. */
	init_attr->cap.max_send_wr = real->sq.max_post;
	init_attr->cap.max_send_sge = (uint32_t)(real->sq.max_gs > 0 ?
						 real->sq.max_gs : 0);
	init_attr->cap.max_inline_data = (uint32_t)real->max_inline_data;
	attr->cap = init_attr->cap;
	if (attr_mask & IBV_QP_STATE)
		ibqp->state = attr->qp_state;
	return 0;
}

MLX5EMU_ABI(ibv_query_qp_data_in_order);
int mlx5emu_abi_ibv_query_qp_data_in_order(struct ibv_qp *ibqp,
					   enum ibv_wr_opcode op, uint32_t flags)
{
	/* libibverbs' dummy query_qp_data_in_order: not in order */
	if (ibqp && prov_mana_is(ibqp->context))
		return 0;
	struct prov_qp *qp;
	struct prov_context *pctx;
	uint8_t in[PRM_ST_SZ_BYTES(query_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)] = { 0 };

	(void)op;
	if (!ibqp)
		return 0;
	qp = prov_qp_real(to_prov_qp(ibqp));
	pctx = qp->pctx;
	if (flags || !PROV_CAP_GEN(pctx, qp_data_in_order))
		return 0;
	/* A DCT's context has no data_in_order bit described here. */
	if (qp->dc == PROV_QP_DCT || ibqp->state != IBV_QPS_RTS || !qp->obj)
		return 0;
	PRM_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	PRM_SET(query_qp_in, in, qpn, ibqp->qp_num);
	if (pctx->be->obj_query(qp->obj, in, sizeof(in), out, sizeof(out)))
		return 0;
	return (int)PRM_GET(query_qp_out, out, qpc.data_in_order);
}

MLX5EMU_ABI(ibv_query_ece);
int mlx5emu_abi_ibv_query_ece(struct ibv_qp *ibqp, struct ibv_ece *ece)
{
	/* libibverbs' dummy query_ece */
	if (ibqp && prov_mana_is(ibqp->context))
		return EOPNOTSUPP;
	if (!ibqp || !ece) {
		errno = EINVAL;
		return EINVAL;
	}
	ece->vendor_id = PROV_ECE_VENDOR;
	ece->options = prov_qp_real(to_prov_qp(ibqp))->get_ece;
	ece->comp_mask = 0;
	return 0;
}

/* libibverbs: no vendor is EOPNOTSUPP; libmlx5: comp_mask or another
 * vendor EINVAL, a context without ECE EOPNOTSUPP.  The options go to
 * the next transition as they are: the device decides what it accepts. */
MLX5EMU_ABI(ibv_set_ece);
int mlx5emu_abi_ibv_set_ece(struct ibv_qp *ibqp, struct ibv_ece *ece)
{
	struct prov_qp *qp;
	int err;

	if (!ibqp || !ece)
		err = EINVAL;
	else if (!ece->vendor_id)
		err = EOPNOTSUPP;
	else if (prov_mana_is(ibqp->context))
		return EOPNOTSUPP;	/* libibverbs' dummy set_ece */
	else if (ece->comp_mask || ece->vendor_id != PROV_ECE_VENDOR)
		err = EINVAL;
	else if (!PROV_CAP_GEN(to_prov_qp(ibqp)->pctx, ece_support))
		err = EOPNOTSUPP;
	else
		err = 0;
	if (err) {
		errno = err;
		return err;
	}
	qp = prov_qp_real(to_prov_qp(ibqp));
	qp->set_ece = ece->options;
	qp->get_ece = 0;
	return 0;
}

/*
 * The object a DEVX command on a verbs QP reaches: the QP, or for a raw
 * packet or RSS QP the one of its objects the opcode names (mlx5_ib's
 * devx_is_valid_obj_id on such a QP); the others find nothing.
 */
static struct mlx5be_obj *qp_devx_obj(struct prov_qp *qp, const void *in,
				      size_t inlen)
{
	if (!qp->raw.tis && !qp->raw.sq && !qp->raw.rq && !qp->raw.tir)
		return qp->obj;
	if (inlen < PRM_ST_SZ_BYTES(general_obj_in_cmd_hdr))
		return NULL;
	switch (PRM_GET(general_obj_in_cmd_hdr, in, opcode)) {
	case MLX5_CMD_OP_QUERY_SQ:
	case MLX5_CMD_OP_MODIFY_SQ:
		return qp->raw.sq;
	case MLX5_CMD_OP_QUERY_RQ:
	case MLX5_CMD_OP_MODIFY_RQ:
		return qp->raw.rq;
	case MLX5_CMD_OP_QUERY_TIR:
	case MLX5_CMD_OP_MODIFY_TIR:
		return qp->raw.tir;
	case MLX5_CMD_OP_QUERY_TIS:
	case MLX5_CMD_OP_MODIFY_TIS:
		return qp->raw.tis;
	default:
		return NULL;
	}
}

MLX5EMU_ABI(mlx5dv_devx_qp_query);
int mlx5emu_abi_mlx5dv_devx_qp_query(struct ibv_qp *ibqp, const void *in,
				     size_t inlen, void *out, size_t outlen)
{
	/* libmlx5: no dv ops for a device not its own */
	if (ibqp && prov_mana_is(ibqp->context))
		return EOPNOTSUPP;
	struct prov_qp *qp;

	if (!ibqp)
		return prov_err(EINVAL);
	qp = prov_qp_real(to_prov_qp(ibqp));
	return prov_devx_obj_query(qp->pctx, qp_devx_obj(qp, in, inlen), in,
				   inlen, out, outlen);
}

MLX5EMU_ABI(mlx5dv_devx_qp_modify);
int mlx5emu_abi_mlx5dv_devx_qp_modify(struct ibv_qp *ibqp, const void *in,
				      size_t inlen, void *out, size_t outlen)
{
	if (ibqp && prov_mana_is(ibqp->context))
		return EOPNOTSUPP;
	struct prov_qp *qp;
	int ret;

	if (!ibqp)
		return prov_err(EINVAL);
	qp = prov_qp_real(to_prov_qp(ibqp));
	ret = prov_devx_obj_modify(qp->pctx, qp_devx_obj(qp, in, inlen), in,
				   inlen, out, outlen);
	if (ret)
		return ret;
	if (inlen >= PRM_ST_SZ_BYTES(general_obj_in_cmd_hdr) && qp->obj)
		prov_qp_set_operational_state(qp, prov_qp_opcode_state(
			PRM_GET(general_obj_in_cmd_hdr, in, opcode)));
	return 0;
}
