/* SPDX-License-Identifier: MIT */
/*
 * ibv_modify_qp, as rdma-core 44 (libibverbs ibv_modify_qp, libmlx5
 * mlx5_modify_qp) over the upstream kernel (uverbs modify_qp,
 * _ib_modify_qp, mlx5_ib_modify_qp, __mlx5_ib_modify_qp, mlx5_set_path)
 * behaves.  The layers check, in order:
 *
 *   libibverbs   attr_mask bits past IBV_QP_RATE_LIMIT: EOPNOTSUPP
 *   uverbs       a bad port (IBV_QP_PORT, the AV's, the alternate path's,
 *                or an RTR AV whose port is not the QP's): EINVAL; a state
 *                past ERR: EINVAL; XRC initiators drop the responder
 *                attributes, XRC targets the requester ones
 *                (modify_qp_mask)
 *   ib_core      a RoCE AV without GRH or with an sgid_index past the
 *                table: EINVAL; naming an empty GID: ENODATA; connected
 *                QPs resolve the destination MAC from the destination GID
 *                (the backend's GID-to-L2 service); PSNs are cut to 24 bits
 *   mlx5_ib      mask bits it does not know: EOPNOTSUPP; the transition
 *                and attr_mask against the IBA table (ib_modify_qp_is_ok;
 *                DCIs their own): EINVAL; P_Key index past the table,
 *                max_rd_atomic/max_dest_rd_atomic past the device's:
 *                EINVAL; RESET->RESET: 0 with no command; an MTU out of
 *                range: EINVAL; remote atomics the device cannot do:
 *                EOPNOTSUPP; a transition with no command (RTS->SQD,
 *                SQD->SQD): EINVAL
 *   firmware     the status's errno (mlx5_cmd_exec)
 *
 * The tables are qp_modify_table.c's, the RoCE paths qp_modify_path.c's.
 * The command is the transition's (RST2INIT_QP ... 2RST_QP) with the
 * qpc mlx5_ib builds and the optional parameters it sends: the attr_mask
 * translated to opt_param bits and masked by the transition's allowed
 * set.  RoCE paths carry the source GID index, the destination GID and
 * MAC, hop limit, traffic class, flow label, DSCP (RoCE v2) and priority,
 * and for RC/UC/XRC with a RoCE v2 source GID and a destination QPN the
 * UDP source port from the flow label (rdma_calc_flow_label of both QPNs
 * when it is 0).  UD QPs always get the 4096-byte MTU.  On success
 * qp->state follows (libibverbs), and a QP moved to RESET has its CQEs
 * removed from its CQs and its queues and doorbell record reset (libmlx5).
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/cq_int.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/query.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/mana/mana_prov.h"

/* IB_QP_ATTR_STANDARD_BITS: IB_QP_STATE .. IB_QP_DEST_QPN. */
#define PROV_QP_STANDARD_BITS ((IBV_QP_DEST_QPN << 1) - 1)

/* mlx5_ib's MLX5_IB_ACK_REQ_FREQ. */
#define PROV_ACK_REQ_FREQ 8

/* __mlx5_ib_modify_qp(): build and run the transition; 0 or an errno. */
static int qp_modify_cmd(struct prov_qp *qp, const struct ibv_qp_attr *attr,
			 uint32_t mask, enum ibv_qp_state cur,
			 enum ibv_qp_state next, const uint8_t pmac[6], bool pv2,
			 const uint8_t amac[6], bool av2)
{
	struct prov_context *pctx = qp->pctx;
	struct ibv_qp *ibqp = &qp->vqp.qp;
	uint8_t in[PRM_ST_SZ_BYTES(rst2init_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(rst2init_qp_out)] = { 0 };
	void *qpc = PRM_ADDR_OF(rst2init_qp_in, in, qpc);
	void *pri = PRM_ADDR_OF(qpc, qpc, primary_address_path);
	void *alt = PRM_ADDR_OF(qpc, qpc, secondary_address_path);
	uint32_t optpar;
	uint16_t op;
	size_t inlen;
	bool ece;
	int err, ret;

	PRM_SET(qpc, qpc, st, prov_qp_st(qp, ibqp->qp_type));
	if (!(mask & IBV_QP_PATH_MIG_STATE)) {
		PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	} else {
		switch (attr->path_mig_state) {
		case IBV_MIG_MIGRATED:
			PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
			break;
		case IBV_MIG_REARM:
			PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_REARM);
			break;
		case IBV_MIG_ARMED:
			PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_ARMED);
			break;
		}
	}
	if (ibqp->qp_type == IBV_QPT_UD) {
		PRM_SET(qpc, qpc, mtu, IBV_MTU_4096);
		PRM_SET(qpc, qpc, log_msg_max, 12);
	} else if (mask & IBV_QP_PATH_MTU) {
		if (attr->path_mtu < IBV_MTU_256 || attr->path_mtu > IBV_MTU_4096)
			return EINVAL;
		PRM_SET(qpc, qpc, mtu, attr->path_mtu);
		PRM_SET(qpc, qpc, log_msg_max, PROV_CAP_GEN(pctx, log_max_msg));
	}
	if (mask & IBV_QP_DEST_QPN)
		PRM_SET(qpc, qpc, remote_qpn, attr->dest_qp_num);
	if (mask & IBV_QP_PKEY_INDEX)
		PRM_SET(ads, pri, pkey_index, attr->pkey_index);
	if (mask & IBV_QP_PORT)
		PRM_SET(ads, pri, vhca_port_num, attr->port_num);
	if (mask & IBV_QP_AV) {
		err = prov_qp_set_path(qp, &attr->ah_attr, pri,
				       (mask & IBV_QP_PORT) ? attr->port_num :
							      qp->port,
				       mask, attr, false, pmac, pv2);
		if (err)
			return err;
	}
	if (mask & IBV_QP_TIMEOUT)
		PRM_SET(ads, pri, ack_timeout, attr->timeout);
	if (mask & IBV_QP_ALT_PATH) {
		err = prov_qp_set_path(qp, &attr->alt_ah_attr, alt,
				       attr->alt_port_num,
				       mask | IBV_QP_PKEY_INDEX | IBV_QP_TIMEOUT,
				       attr, true, amac, av2);
		if (err)
			return err;
	}
	if (ibqp->qp_type != IBV_QPT_XRC_RECV) {
		PRM_SET(qpc, qpc, pd, prov_pd_pdn(ibqp->pd));
		if (ibqp->send_cq)
			PRM_SET(qpc, qpc, cqn_snd, prov_cq_cqn(ibqp->send_cq));
		if (ibqp->recv_cq && ibqp->qp_type != IBV_QPT_XRC_SEND)
			PRM_SET(qpc, qpc, cqn_rcv, prov_cq_cqn(ibqp->recv_cq));
	} else {
		uint32_t pdn = 0;

		(void)prov_qp_ctx_pd0(pctx, &pdn);
		PRM_SET(qpc, qpc, pd, pdn);
	}
	PRM_SET(qpc, qpc, log_ack_req_freq, PROV_ACK_REQ_FREQ);
	if (mask & IBV_QP_RNR_RETRY)
		PRM_SET(qpc, qpc, rnr_retry, attr->rnr_retry);
	if (mask & IBV_QP_RETRY_CNT)
		PRM_SET(qpc, qpc, retry_count, attr->retry_cnt);
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic)
		PRM_SET(qpc, qpc, log_sra_max, prov_log2_floor(attr->max_rd_atomic));
	if (mask & IBV_QP_SQ_PSN)
		PRM_SET(qpc, qpc, next_send_psn, attr->sq_psn);
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && attr->max_dest_rd_atomic)
		PRM_SET(qpc, qpc, log_rra_max, prov_log2_floor(attr->max_dest_rd_atomic));
	if (mask & (IBV_QP_ACCESS_FLAGS | IBV_QP_MAX_DEST_RD_ATOMIC)) {
		err = prov_qp_set_access(qp, attr, mask, qpc);
		if (err)
			return err;
	}
	if (mask & IBV_QP_MIN_RNR_TIMER)
		PRM_SET(qpc, qpc, min_rnr_nak, attr->min_rnr_timer);
	if (mask & IBV_QP_RQ_PSN)
		PRM_SET(qpc, qpc, next_rcv_psn, attr->rq_psn);
	if (mask & IBV_QP_QKEY)
		PRM_SET(qpc, qpc, q_key, attr->qkey);
	if (cur == IBV_QPS_RESET && next == IBV_QPS_INIT)
		PRM_SET(qpc, qpc, counter_set_id, 0);

	op = prov_qp_trans_opcode(cur, next);
	if (!op)
		return EINVAL;
	optpar = prov_qp_trans_optpar(qp, cur, next, mask);
	PRM_SET(rst2init_qp_in, in, opcode, op);
	PRM_SET(rst2init_qp_in, in, qpn, ibqp->qp_num);
	if (op == MLX5_CMD_OP_2RST_QP || op == MLX5_CMD_OP_2ERR_QP) {
		/* mlx5_core's mailboxes for these carry no context. */
		inlen = PRM_ST_SZ_BYTES(qp_2rst_in);
	} else {
		PRM_SET(rst2init_qp_in, in, opt_param_mask, optpar);
		inlen = sizeof(in);
	}
	/* mlx5_core: the transitions that carry an ece word take the options
	 * ibv_set_ece gave (0 without) and answer with those in force. */
	ece = op == MLX5_CMD_OP_RST2INIT_QP || op == MLX5_CMD_OP_INIT2INIT_QP ||
	      op == MLX5_CMD_OP_INIT2RTR_QP || op == MLX5_CMD_OP_RTR2RTS_QP ||
	      op == MLX5_CMD_OP_RTS2RTS_QP;
	if (ece)
		PRM_SET(rst2init_qp_in, in, ece, qp->set_ece);
	ret = prov_obj_modify(pctx, qp->obj, in, inlen, out, sizeof(out));
	if (ret)
		return ret;
	/* libmlx5 takes the answer only for options it set. */
	if (qp->set_ece) {
		qp->set_ece = 0;
		qp->get_ece = ece ? PRM_GET(rst2init_qp_out, out, ece) : 0;
	}
	return 0;
}

/* __mlx5_cq_clean(): drop @rsn's CQEs from @ibcq, freeing SRQ WQEs. */
void prov_qp_cq_clean(struct ibv_cq *ibcq, uint32_t rsn,
		      struct prov_cq_rsc *srq)
{
	struct prov_cq *cq;
	uint32_t prod, nfreed = 0;

	/* A CQ the application polls itself is left as it is. */
	if (!ibcq || to_prov_cq(ibcq)->dv_owned)
		return;
	cq = to_prov_cq(ibcq);
	prov_cq_lock(cq);
	for (prod = cq->cons_index; prov_cq_sw_cqe(cq, prod); ++prod)
		if (prod == cq->cons_index + cq->ncqe - 1)
			break;
	while ((int)(--prod - cq->cons_index) >= 0) {
		struct mlx5_cqe64 *c64 = prov_cq_cqe64(cq, prod);

		if ((be32toh(c64->srqn_uidx) & 0xffffff) == rsn) {
			uint8_t opcode = c64->op_own >> 4;

			if (srq && srq->rq_complete &&
			    (opcode == MLX5_CQE_RESP_WR_IMM ||
			     opcode == MLX5_CQE_RESP_SEND ||
			     opcode == MLX5_CQE_RESP_SEND_IMM ||
			     opcode == MLX5_CQE_RESP_SEND_INV ||
			     opcode == MLX5_CQE_RESP_ERR))
				(void)srq->rq_complete(srq,
						       be16toh(c64->wqe_counter));
			++nfreed;
		} else if (nfreed) {
			void *dest = prov_cq_entry(cq, prod + nfreed);
			struct mlx5_cqe64 *d64 = prov_cqe64_of(dest, cq->cqe_sz);
			uint8_t owner = d64->op_own & MLX5_CQE_OWNER_MASK;

			memcpy(dest, prov_cq_entry(cq, prod), cq->cqe_sz);
			d64->op_own = (uint8_t)(owner |
				(d64->op_own & ~MLX5_CQE_OWNER_MASK));
		}
	}
	if (nfreed) {
		cq->cons_index += nfreed;
		prov_cq_update_ci(cq);
	}
	prov_cq_unlock(cq);
}

/* libmlx5's reset of a QP moved to RESET. */
static void qp_reset_user(struct prov_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct prov_cq_rsc *srq = ibqp->srq ? &to_prov_srq(ibqp->srq)->rsc : NULL;

	if (ibqp->qp_type != IBV_QPT_XRC_RECV && qp->has_uidx) {
		if (ibqp->recv_cq)
			prov_qp_cq_clean(ibqp->recv_cq, qp->uidx, srq);
		if (ibqp->send_cq && ibqp->send_cq != ibqp->recv_cq)
			prov_qp_cq_clean(ibqp->send_cq, qp->uidx, NULL);
	}
	qp->sq.head = qp->sq.tail = qp->sq.cur_post = 0;
	qp->rq.head = qp->rq.tail = 0;
	if (qp->db) {
		qp->db[PROV_RCV_DBR] = 0;
		qp->db[PROV_SND_DBR] = 0;
	}
}

/* uverbs' modify_qp_mask(). */
static uint32_t modify_qp_mask(enum ibv_qp_type t, uint32_t mask)
{
	if (t == IBV_QPT_XRC_SEND)
		return mask & ~(uint32_t)(IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER);
	if (t == IBV_QPT_XRC_RECV)
		return mask & ~(uint32_t)(IBV_QP_MAX_QP_RD_ATOMIC |
					  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY);
	return mask;
}

/* The uverbs and ib_core checks; *mask may gain IBV_QP_PORT. */
static int qp_check_uverbs(struct prov_qp *qp, struct ibv_qp_attr *attr,
			   uint32_t *mask)
{
	unsigned int nports = prov_caps_num_ports(qp->pctx);
	uint32_t m = *mask;

	if ((m & IBV_QP_PORT) && (attr->port_num < 1 || attr->port_num > nports))
		return EINVAL;
	if (m & IBV_QP_AV) {
		if (attr->ah_attr.port_num < 1 || attr->ah_attr.port_num > nports)
			return EINVAL;
		if ((m & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RTR) {
			if (attr->ah_attr.port_num != qp->port)
				return EINVAL;
		} else if (!(m & IBV_QP_PORT)) {
			m |= IBV_QP_PORT;
			attr->port_num = attr->ah_attr.port_num;
		}
	}
	if ((m & IBV_QP_ALT_PATH) &&
	    (attr->alt_port_num < 1 || attr->alt_port_num > nports ||
	     attr->alt_ah_attr.port_num < 1 ||
	     attr->alt_ah_attr.port_num > nports ||
	     attr->alt_port_num != attr->alt_ah_attr.port_num))
		return EINVAL;
	if (((m & IBV_QP_CUR_STATE) && (unsigned int)attr->cur_qp_state > IBV_QPS_ERR) ||
	    ((m & IBV_QP_STATE) && (unsigned int)attr->qp_state > IBV_QPS_ERR))
		return EINVAL;
	*mask = modify_qp_mask(qp->vqp.qp.qp_type, m);
	return 0;
}

int prov_qp_modify(struct prov_qp *qp, struct ibv_qp_attr *in_attr,
		   int attr_mask)
{
	struct prov_context *pctx = qp->pctx;
	struct ibv_qp_attr attr = *in_attr;
	uint32_t mask = (uint32_t)attr_mask;
	enum ibv_qp_state cur, next;
	uint8_t pmac[6] = { 0 }, amac[6] = { 0 };
	bool pv2 = false, av2 = false;
	int err;

	/* libibverbs: ibv_cmd_modify_qp takes the legacy bits only. */
	if (mask & ~(uint32_t)((IBV_QP_RATE_LIMIT << 1) - 1))
		return EOPNOTSUPP;
	err = qp_check_uverbs(qp, &attr, &mask);
	if (err)
		return err;
	if (qp->dc == PROV_QP_DCT)
		return prov_dct_modify(qp, &attr, (int)mask);

	/* ib_core: the AVs (source GID attribute, destination MAC). */
	if (mask & IBV_QP_AV) {
		err = prov_qp_check_av(qp, &attr.ah_attr, pmac, &pv2);
		if (err)
			return err;
	}
	if (mask & IBV_QP_ALT_PATH) {
		err = prov_qp_check_av(qp, &attr.alt_ah_attr, amac, &av2);
		if (err)
			return err;
	}
	attr.rq_psn &= 0xffffff;
	attr.sq_psn &= 0xffffff;

	/* mlx5_ib_modify_qp(). */
	if (mask & ~(uint32_t)(PROV_QP_STANDARD_BITS | IBV_QP_RATE_LIMIT))
		return EOPNOTSUPP;
	pthread_mutex_lock(&qp->lock);
	cur = (mask & IBV_QP_CUR_STATE) ? attr.cur_qp_state : qp->kstate;
	next = (mask & IBV_QP_STATE) ? attr.qp_state : cur;
	if (!prov_qp_trans_is_ok(qp, cur, next, mask)) {
		err = EINVAL;
		goto out;
	}
	if ((mask & IBV_QP_PKEY_INDEX) &&
	    attr.pkey_index >= (128u << (PROV_CAP_GEN(pctx, pkey_table_size) & 0xf))) {
		err = EINVAL;
		goto out;
	}
	if (qp->dc == PROV_QP_DCI) {
		if (((mask & IBV_QP_MAX_QP_RD_ATOMIC) &&
		     attr.max_rd_atomic > (1u << PROV_CAP_GEN(pctx, log_max_ra_res_dc))) ||
		    ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) &&
		     attr.max_dest_rd_atomic > (1u << PROV_CAP_GEN(pctx, log_max_ra_req_dc)))) {
			err = EINVAL;
			goto out;
		}
	} else if (((mask & IBV_QP_MAX_QP_RD_ATOMIC) &&
		    attr.max_rd_atomic > (1u << PROV_CAP_GEN(pctx, log_max_ra_res_qp))) ||
		   ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) &&
		    attr.max_dest_rd_atomic > (1u << PROV_CAP_GEN(pctx, log_max_ra_req_qp)))) {
		err = EINVAL;
		goto out;
	}
	if (cur == next && cur == IBV_QPS_RESET) {
		err = 0;
		goto done;
	}
	if (qp->vqp.qp.qp_type == IBV_QPT_RAW_PACKET)
		err = prov_qp_raw_modify(qp, prov_qp_trans_opcode(cur, next),
					 (mask & IBV_QP_RATE_LIMIT) ?
					 attr.rate_limit : 0);
	else
		err = qp_modify_cmd(qp, &attr, mask, cur, next, pmac, pv2,
				    amac, av2);
	if (err)
		goto out;
	qp->kstate = next;
	if (mask & IBV_QP_ACCESS_FLAGS)
		qp->atomic_rd_en = attr.qp_access_flags;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->resp_depth = attr.max_dest_rd_atomic;
done:
	/* ib_core: qp->port follows IB_QP_PORT. */
	if (mask & IBV_QP_PORT)
		qp->port = attr.port_num;
	pthread_mutex_unlock(&qp->lock);
	/* libmlx5's part after the command. */
	if ((mask & IBV_QP_STATE) && next == IBV_QPS_RESET)
		qp_reset_user(qp);
	if (mask & IBV_QP_STATE)
		prov_qp_set_operational_state(qp, next);
	return 0;
out:
	pthread_mutex_unlock(&qp->lock);
	return err;
}

/* IBV_DEVICE_RAW_IP_CSUM and tso_caps, as query.c derives them. */
static void qp_raw_port_caps(struct prov_qp *qp)
{
	struct prov_context *pctx = qp->pctx;
	bool eth = PROV_CAP_GEN(pctx, eth_net_offloads);

	if (eth && PROV_CAP_ETH(pctx, csum_cap)) {
		qp->csum_ok = true;
		qp->rsc.rx_csum_valid = true;
	}
	if (eth && PROV_CAP_ETH(pctx, max_lso_cap))
		qp->max_tso = 1u << PROV_CAP_ETH(pctx, max_lso_cap);
}

MLX5EMU_ABI(ibv_modify_qp);
int mlx5emu_abi_ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			      int attr_mask)
{
	if (ibqp && prov_mana_is(ibqp->context))
		return EOPNOTSUPP;	/* libmana 44: no QP state machine */
	struct prov_qp *qp;
	int err;

	if (!ibqp || !attr) {
		errno = EINVAL;
		return EINVAL;
	}
	qp = to_prov_qp(ibqp);
	if (qp->raw.rss) {
		errno = EOPNOTSUPP;
		return EOPNOTSUPP;
	}
	/* libmlx5: a raw packet QP on an Ethernet port learns the device's
	 * checksum and TSO offloads. */
	if ((attr_mask & IBV_QP_PORT) && ibqp->qp_type == IBV_QPT_RAW_PACKET)
		qp_raw_port_caps(qp);
	err = prov_qp_modify(prov_qp_real(qp), attr, attr_mask);
	if (err) {
		errno = err;
		return err;
	}
	if (attr_mask & IBV_QP_STATE)
		ibqp->state = attr->qp_state;
	/* libmlx5: a raw packet QP's receives posted before RTR now reach
	 * the device. */
	if ((attr_mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RTR &&
	    ibqp->qp_type == IBV_QPT_RAW_PACKET) {
		prov_spin_lock(&qp->rq.lock);
		qp->db[PROV_RCV_DBR] = htobe32(qp->rq.head & 0xffff);
		prov_spin_unlock(&qp->rq.lock);
	}
	return 0;
}
