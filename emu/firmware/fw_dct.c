/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_dct.c -- CREATE_DCT / QUERY_DCT / DRAIN_DCT /
 * ARM_DCT_FOR_KEY_VIOLATION / DESTROY_DCT.
 *
 * A DC target is created ready to receive (state ACTIVE): its context
 * (dctc) carries everything a responder needs at once -- PD, CQ, SRQ
 * (required: a DCT has no receive queue of its own), access, MTU, port,
 * P_Key index, source GID (my_addr_index), hop limit, traffic class,
 * dc_access_key -- which mlx5_ib gathers from INIT and RTR before it issues
 * CREATE_DCT (qp.c mlx5_ib_modify_dct).  Checks as CREATE_QP's and the
 * transitions' (same syndromes).  DCT numbers are QP numbers (packets name
 * either by destination QPN); a QP command on a DCT number, or the reverse,
 * is refused (QP_BAD_QPN_FOR_DCT).
 *
 * DRAIN_DCT: ACTIVE -> DRAINING -> DRAINED; with nothing in flight at the
 * command level it is DRAINED at once, and the DCT_DRAINED event is left to
 * the engines (emu_fw_dct_take_drained).  A second drain is a no-op.
 * mlx5_ib drains before DESTROY_DCT (qpc.c _mlx5_core_destroy_dct);
 * DESTROY_DCT itself works in any state.
 *
 * Connections: a ConnectX keeps a responder context per DC initiator
 * talking to a DCT; the engine keeps one as a QP object of its own
 * (EMU_FW_QP_KIND_DC_CONN, never published) that emu_fw_dct_conn_init
 * makes an RC responder in RTS with the DCT's PD, CQ, SRQ, counter and
 * access.  It holds no uses: the engine drops it before the DCT goes.
 */
#include <string.h>

#include "emu/firmware/fw_qp_int.h"

static enum fw_synd fw_dctc_check(struct fw_cmd *cmd, const void *dctc)
{
	struct emu_fw *fw = cmd->fw;
	uint32_t port = PRM_GET(dctc, dctc, port);
	enum fw_synd s;

	if (PRM_GET(dctc, dctc, rlky) ||
	    (PRM_GET(dctc, dctc, cs_res) && !FW_CAP_GEN(fw, sctr_data_cqe)))
		return FW_SYND_QP_FEATURE_NOT_SUPPORTED;
	s = fw_check_mtu(PRM_GET(dctc, dctc, mtu), false);
	if (!s)
		s = fw_check_port(fw, port);
	if (!s)
		s = fw_check_pkey_index(fw, PRM_GET(dctc, dctc, pkey_index));
	if (!s)
		s = fw_check_gid_index(fw, port,
				       PRM_GET(dctc, dctc, my_addr_index));
	if (s)
		return s;
	if ((PRM_GET(dctc, dctc, rae) || PRM_GET(dctc, dctc, atomic_mode)) &&
	    (!FW_CAP_GEN(fw, atomic) ||
	     !PRM_GET(atomic_caps, fw_cap_page(fw, MLX5_CAP_ATOMIC),
		      atomic_size_dc) ||
	     PRM_GET(dctc, dctc, atomic_mode) > MLX5_QPC_ATOMIC_MODE_UP_TO_8B))
		return FW_SYND_QP_BAD_ATOMIC_MODE;
	return FW_SYND_OK;
}

/* The responder attributes engines read, from the dctc. */
static void fw_dct_attr(struct emu_fw_qp_attr *a, const void *dctc)
{
	memset(a, 0, sizeof(*a));
	a->mtu = (uint8_t)PRM_GET(dctc, dctc, mtu);
	a->rre = PRM_GET(dctc, dctc, rre);
	a->rwe = PRM_GET(dctc, dctc, rwe);
	a->rae = PRM_GET(dctc, dctc, rae);
	a->atomic_mode = (uint8_t)PRM_GET(dctc, dctc, atomic_mode);
	a->min_rnr_nak = (uint8_t)PRM_GET(dctc, dctc, min_rnr_nak);
	a->dc_access_key = PRM_GET64(dctc, dctc, dc_access_key);
	a->pri.port = (uint8_t)PRM_GET(dctc, dctc, port);
	a->pri.pkey_index = (uint16_t)PRM_GET(dctc, dctc, pkey_index);
	a->pri.sgid_index = (uint8_t)PRM_GET(dctc, dctc, my_addr_index);
	a->pri.hop_limit = (uint8_t)PRM_GET(dctc, dctc, hop_limit);
	a->pri.tclass = (uint8_t)PRM_GET(dctc, dctc, tclass);
	a->pri.flow_label = PRM_GET(dctc, dctc, flow_label);
	a->pri.dscp = (uint8_t)PRM_GET(dctc, dctc, dscp);
	a->pri.ecn = (uint8_t)PRM_GET(dctc, dctc, ecn);
	a->pri.eth_prio = (uint8_t)PRM_GET(dctc, dctc, eth_prio);
	a->pri.grh = true;
}

enum fw_synd fw_cmd_create_dct(struct fw_cmd *cmd)
{
	const void *dctc = PRM_ADDR_OF(create_dct_in, cmd->in,
				       dct_context_entry);
	struct emu_fw_q_counter *qc;
	struct emu_fw_obj *obj, *o;
	struct emu_fw_srq *srq = NULL;
	struct emu_fw_qp *dct = NULL;
	enum fw_synd s;

	if (!FW_CAP_GEN(cmd->fw, dct))
		return FW_SYND_QP_BAD_ST;
	s = fw_dctc_check(cmd, dctc);
	if (s)
		return s;
	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_QP, &obj);
	if (s)
		return s;
	dct = emu_fw_to_qp(obj);
	pthread_mutex_init(&dct->lock, NULL);
	dct->kind = EMU_FW_QP_KIND_DCT;
	dct->rq_type = EMU_FW_RQ_SRQ;
	atomic_init(&dct->state, MLX5_DCTC_STATE_ACTIVE);
	atomic_init(&dct->gen, 0);
	atomic_init(&dct->cq_snd, NULL);
	atomic_init(&dct->cq_rcv, NULL);
	atomic_init(&dct->srq, NULL);
	atomic_init(&dct->counter, NULL);
	atomic_init(&dct->dct_key_violations, 0);
	atomic_init(&dct->dct_key_armed, false);
	atomic_init(&dct->dct_drained_event, false);

	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_PD, PRM_GET(dctc, dctc, pd),
			   FW_SYND_BAD_PD, &o);
	if (s)
		goto err;
	dct->pd = emu_fw_to_pd(o);
	if (!PRM_GET(dctc, dctc, cqn)) {
		s = FW_SYND_QP_BAD_CQN;
		goto err;
	}
	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_CQ, PRM_GET(dctc, dctc, cqn),
			   FW_SYND_QP_BAD_CQN, &o);
	if (s)
		goto err;
	atomic_store(&dct->cq_rcv, emu_fw_to_cq(o));
	s = fw_srq_use(cmd, PRM_GET(dctc, dctc, srqn_xrqn), FW_SYND_QP_BAD_SRQN,
		       &srq);
	if (s)
		goto err;
	atomic_store(&dct->srq, srq);
	s = fw_check_counter(cmd, PRM_GET(dctc, dctc, counter_set_id), &qc);
	if (s)
		goto err;
	atomic_store(&dct->counter, qc);

	dct->user_index = PRM_GET(dctc, dctc, user_index);
	/* dctc names no format: the device's default. */
	dct->ts_format = MLX5_TIMESTAMP_FORMAT_DEFAULT;
	_Static_assert(PRM_ST_SZ_BYTES(dctc) <= sizeof(dct->ctx), "dctc");
	memcpy(dct->ctx, dctc, PRM_ST_SZ_BYTES(dctc));
	PRM_SET(dctc, dct->ctx, state, MLX5_DCTC_STATE_ACTIVE);
	dct->ece = fw_qp_ece(cmd->fw, PRM_GET(dctc, dctc, ece));
	PRM_SET(dctc, dct->ctx, ece, dct->ece);
	fw_dct_attr(&dct->attr, dct->ctx);

	s = fw_cmd_obj_publish(obj, FW_SYND_DCT_NO_RESOURCES);
	if (s)
		return s;
	PRM_SET(create_dct_out, cmd->out, dctn, obj->id);
	PRM_SET(create_dct_out, cmd->out, ece, dct->ece);
	return FW_SYND_OK;

err:
	fw_qp_release(obj);
	fw_cmd_obj_abort(obj);
	return s;
}

enum fw_synd fw_cmd_query_dct(struct fw_cmd *cmd)
{
	void *dctc = PRM_ADDR_OF(query_dct_out, cmd->out, dct_context_entry);
	struct emu_fw_qp *dct = NULL;
	enum fw_synd s;

	s = fw_qp_own(cmd, PRM_GET(query_dct_in, cmd->in, dctn),
		      EMU_FW_QP_KIND_DCT, FW_SYND_DCT_INVALID, &dct);
	if (s)
		return s;
	pthread_mutex_lock(&dct->lock);
	memcpy(dctc, dct->ctx, PRM_ST_SZ_BYTES(dctc));
	PRM_SET(dctc, dctc, state, emu_fw_qp_state(dct));
	PRM_SET(dctc, dctc, dc_access_key_violation_count,
		atomic_load(&dct->dct_key_violations));
	pthread_mutex_unlock(&dct->lock);
	emu_fw_obj_put(&dct->obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_drain_dct(struct fw_cmd *cmd)
{
	struct emu_fw_qp *dct = NULL;
	enum fw_synd s;

	s = fw_qp_own(cmd, PRM_GET(drain_dct_in, cmd->in, dctn),
		      EMU_FW_QP_KIND_DCT, FW_SYND_DCT_INVALID, &dct);
	if (s)
		return s;
	pthread_mutex_lock(&dct->lock);
	if (emu_fw_qp_state(dct) == MLX5_DCTC_STATE_ACTIVE) {
		/* Nothing in flight at this level: drained at once. */
		atomic_store_explicit(&dct->state, MLX5_DCTC_STATE_DRAINED,
				      memory_order_release);
		atomic_fetch_add(&dct->gen, 1);
		atomic_store(&dct->dct_drained_event, true);
	}
	pthread_mutex_unlock(&dct->lock);
	emu_fw_obj_put(&dct->obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_arm_dct(struct fw_cmd *cmd)
{
	struct emu_fw_qp *dct = NULL;
	enum fw_synd s;

	s = fw_qp_own(cmd, PRM_GET(arm_dct_in, cmd->in, dct_number),
		      EMU_FW_QP_KIND_DCT, FW_SYND_DCT_INVALID, &dct);
	if (s)
		return s;
	atomic_store(&dct->dct_key_armed, true);
	emu_fw_obj_put(&dct->obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_destroy_dct(struct fw_cmd *cmd)
{
	return fw_qp_destroy(cmd, PRM_GET(destroy_dct_in, cmd->in, dctn),
			     EMU_FW_QP_KIND_DCT, FW_SYND_DCT_INVALID);
}

bool emu_fw_dct_key_violation(struct emu_fw_qp *dct)
{
	atomic_fetch_add(&dct->dct_key_violations, 1);
	return atomic_exchange(&dct->dct_key_armed, false);
}

bool emu_fw_dct_take_drained(struct emu_fw_qp *dct)
{
	return atomic_exchange(&dct->dct_drained_event, false);
}

void emu_fw_dct_conn_init(const struct emu_fw_qp *dct, struct emu_fw_qp *conn,
			  const uint8_t peer_gid[16], uint32_t peer_qpn,
			  uint32_t psn)
{
	memset(conn, 0, sizeof(*conn));
	conn->obj.fw = dct->obj.fw;
	conn->obj.type = EMU_FW_OBJ_QP;
	conn->obj.id = dct->obj.id;
	conn->kind = EMU_FW_QP_KIND_DC_CONN;
	conn->st = MLX5_QPC_ST_RC;
	conn->rq_type = EMU_FW_RQ_SRQ;
	pthread_mutex_init(&conn->lock, NULL);
	atomic_init(&conn->state, MLX5_QPC_STATE_RTS);
	atomic_init(&conn->gen, 1);
	conn->pd = dct->pd;
	atomic_init(&conn->cq_snd, NULL);
	atomic_init(&conn->cq_rcv, atomic_load(&dct->cq_rcv));
	atomic_init(&conn->srq, atomic_load(&dct->srq));
	atomic_init(&conn->counter, atomic_load(&dct->counter));
	conn->user_index = dct->user_index;
	conn->attr = dct->attr;
	conn->attr.remote_qpn = peer_qpn;
	conn->attr.next_rcv_psn = psn & 0xffffff;
	/* RC's defaults for the answers' path: the requester's GID. */
	memcpy(conn->attr.pri.rgid, peer_gid, 16);
	atomic_init(&conn->hw.rq_psn, psn & 0xffffff);
}

void emu_fw_dct_conn_fini(struct emu_fw_qp *conn)
{
	pthread_mutex_destroy(&conn->lock);
}
