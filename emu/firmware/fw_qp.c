/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_qp.c -- CREATE_QP / QUERY_QP / DESTROY_QP (transitions:
 * fw_qp_modify.c, their tables: fw_qp_rules.c).
 *
 * Service types: RC, UC, UD, XRC and DCI, each only when advertised (rc,
 * uc, ud, xrc, dct).  An XRC QP with a send queue is an initiator (no
 * receive queue of its own: rq_type ZERO or SRQ), one with no_sq a target
 * (the XRC SRQ comes with each packet).  A DCI has a send queue only.
 *
 * What CREATE_QP checks, in this order (each with its own syndrome):
 *   features the device does not advertise, ts_format, st, rq_type/no_sq
 *   for the type, log_sq_size/log_rq_size against log_max_qp_sz, the RQ
 *   stride against max_wqe_sz_rq; then the objects it uses, each of the
 *   caller's uid or of uid 0 and taking a use: pd, cqn_snd (if it has a
 *   send queue), cqn_rcv (if it receives), the SRQ (rq_type SRQ), the XRC
 *   domain (XRC), the UAR page (if it has a send queue); then its memory:
 *   the ring (RQ then SQ, as mlx5_ib and libmlx5 lay them out) from
 *   wq_umem_id + wq_umem_offset + page_offset or from the page list, and
 *   the 8-byte doorbell record (dbr_umem_id + dbr_addr, 8-byte aligned);
 *   then the QP number (QP_NO_RESOURCES when log_max_qp QPs exist).
 *   Fields not taken (counter, path, ...) are set by the transitions.
 *
 * The QP is created in RST.  QUERY_QP returns the context as created and
 * as every transition left it, with the current state.  DESTROY_QP works in
 * any state.  A QP's PD, CQs, SRQ, XRC domain, UAR, counter and umems are
 * in use while it exists (their destroys are refused).
 */
#include <string.h>

#include "emu/firmware/fw_qp_int.h"

/* Drop every use; runs once when a destroy commits (or on a failed
 * create), under the lock so it does not race a transition. */
void fw_qp_release(struct emu_fw_obj *obj)
{
	struct emu_fw_qp *qp = emu_fw_to_qp(obj);

	pthread_mutex_lock(&qp->lock);
	FW_USE_DROP(&qp->cq_snd);
	FW_USE_DROP(&qp->cq_rcv);
	FW_USE_DROP(&qp->srq);
	FW_USE_DROP(&qp->counter);
	if (qp->pd)
		fw_obj_unuse(&qp->pd->obj);
	if (qp->xrcd)
		fw_obj_unuse(&qp->xrcd->obj);
	if (qp->uar)
		fw_obj_unuse(&qp->uar->obj);
	/* Every pointer stays as it was: engines may still read them inside
	 * the RCU read side that found the QP (runs once). */
	fw_buf_release(&qp->buf);
	fw_buf_release(&qp->dbr);
	pthread_mutex_unlock(&qp->lock);
}

void fw_qp_fini(struct emu_fw_obj *obj)
{
	pthread_mutex_destroy(&emu_fw_to_qp(obj)->lock);
}

bool fw_qp_dying(const struct emu_fw_qp *qp)
{
	return atomic_load(&qp->obj.users) < 0;
}

enum fw_synd fw_qp_own(struct fw_cmd *cmd, uint32_t qpn,
		       enum emu_fw_qp_kind kind, enum fw_synd invalid,
		       struct emu_fw_qp **qpp)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_QP, qpn, invalid, &obj);
	if (s)
		return s;
	if (emu_fw_to_qp(obj)->kind != kind) {
		emu_fw_obj_put(obj);
		return FW_SYND_QP_BAD_QPN_FOR_DCT;
	}
	*qpp = emu_fw_to_qp(obj);
	return FW_SYND_OK;
}

void emu_fw_qp_get_attr(struct emu_fw_qp *qp, struct emu_fw_qp_attr *attr,
			unsigned int *gen)
{
	pthread_mutex_lock(&qp->lock);
	*attr = qp->attr;
	if (gen)
		*gen = atomic_load(&qp->gen);
	pthread_mutex_unlock(&qp->lock);
}

/* Service types this device runs. */
static bool fw_qp_st_supported(const struct emu_fw *fw, uint32_t st)
{
	switch (st) {
	case MLX5_QPC_ST_RC:
		return FW_CAP_GEN(fw, rc);
	case MLX5_QPC_ST_UC:
		return FW_CAP_GEN(fw, uc);
	case MLX5_QPC_ST_UD:
		return FW_CAP_GEN(fw, ud);
	case MLX5_QPC_ST_XRC:
		return FW_CAP_GEN(fw, xrc);
	case MLX5_QPC_ST_DCI:
		return FW_CAP_GEN(fw, dct);
	default:		/* QP0/QP1, raw, UMR: not for DEVX */
		return false;
	}
}

/* Context fields this device does not implement. */
static enum fw_synd fw_qpc_features(struct fw_cmd *cmd, const void *qpc)
{
	const struct emu_fw *fw = cmd->fw;
	uint32_t ts = PRM_GET(qpc, qpc, ts_format);
	uint32_t tscap = PRM_GET(roce_cap, fw_cap_page(fw, MLX5_CAP_ROCE),
				 qp_ts_format);

	if (PRM_GET(create_qp_in, cmd->in, qpc_ext) ||
	    PRM_GET(create_qp_in, cmd->in, input_qpn) ||
	    PRM_GET(qpc, qpc, offload_type) ||
	    PRM_GET(qpc, qpc, wq_signature) ||
	    PRM_GET(qpc, qpc, rlky) ||
	    PRM_GET(qpc, qpc, cd_master) || PRM_GET(qpc, qpc, cd_slave_send) ||
	    PRM_GET(qpc, qpc, cd_slave_receive) ||
	    PRM_GET(qpc, qpc, log_num_dci_stream_channels) ||
	    PRM_GET(qpc, qpc, log_num_dci_errored_streams) ||
	    PRM_GET(qpc, qpc, end_padding_mode) ||
	    (PRM_GET(qpc, qpc, data_in_order) &&
	     !FW_CAP_GEN(fw, qp_data_in_order)) ||
	    ((PRM_GET(qpc, qpc, cs_req) || PRM_GET(qpc, qpc, cs_res)) &&
	     !FW_CAP_GEN(fw, sctr_data_cqe)))
		return FW_SYND_QP_FEATURE_NOT_SUPPORTED;
	/* Default always; free running and real time as
	 * roce_cap.qp_ts_format offers them. */
	if (!fw_ts_format_ok(ts, tscap))
		return FW_SYND_QP_BAD_TS_FORMAT;
	return FW_SYND_OK;
}

/* The queues a type has: st/no_sq/rq_type consistency. */
static enum fw_synd fw_qpc_shape(const void *qpc, bool *has_sq)
{
	uint32_t st = PRM_GET(qpc, qpc, st);
	uint32_t rq = PRM_GET(qpc, qpc, rq_type);
	bool no_sq = PRM_GET(qpc, qpc, no_sq);

	if (rq != EMU_FW_RQ_REGULAR && rq != EMU_FW_RQ_SRQ &&
	    rq != EMU_FW_RQ_ZERO)
		return FW_SYND_QP_BAD_RQ_TYPE;
	switch (st) {
	case MLX5_QPC_ST_XRC:
		/* No receive queue of its own; a target has no SQ. */
		if (rq == EMU_FW_RQ_REGULAR)
			return FW_SYND_QP_BAD_RQ_TYPE;
		break;
	case MLX5_QPC_ST_DCI:
		/* A DC initiator sends only. */
		if (rq != EMU_FW_RQ_ZERO || no_sq)
			return FW_SYND_QP_BAD_RQ_TYPE;
		break;
	default:
		break;
	}
	*has_sq = !no_sq;
	return FW_SYND_OK;
}

static enum fw_synd fw_qpc_sizes(const struct emu_fw *fw, const void *qpc,
				 bool has_sq)
{
	uint32_t rq = PRM_GET(qpc, qpc, rq_type);

	if (has_sq && PRM_GET(qpc, qpc, log_sq_size) >
	    FW_CAP_GEN(fw, log_max_qp_sz))
		return FW_SYND_QP_BAD_SQ_SIZE;
	if (rq == EMU_FW_RQ_REGULAR) {
		if (PRM_GET(qpc, qpc, log_rq_size) > FW_CAP_GEN(fw, log_max_qp_sz))
			return FW_SYND_QP_BAD_RQ_SIZE;
		if ((UINT32_C(16) << PRM_GET(qpc, qpc, log_rq_stride)) >
		    FW_CAP_GEN(fw, max_wqe_sz_rq))
			return FW_SYND_QP_BAD_RQ_STRIDE;
	}
	return FW_SYND_OK;
}

/* Use an object named by a 24-bit field; 0 is "none" only if optional. */
static enum fw_synd fw_qp_use_cq(struct fw_cmd *cmd, uint32_t cqn,
				 bool required, struct emu_fw_cq *_Atomic *slot)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	if (!cqn)
		return required ? FW_SYND_QP_BAD_CQN : FW_SYND_OK;
	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_CQ, cqn, FW_SYND_QP_BAD_CQN, &obj);
	if (s)
		return s;
	atomic_store(slot, emu_fw_to_cq(obj));
	return FW_SYND_OK;
}

/* The ring: RQ first, then the SQ (mlx5_ib's and libmlx5's layout). */
static enum fw_synd fw_qp_memory(struct fw_cmd *cmd, struct emu_fw_qp *qp,
				 const void *qpc)
{
	size_t rq_len = (size_t)qp->rq.cnt << qp->rq.log_stride;
	size_t sq_len = (size_t)qp->sq.cnt << qp->sq.log_stride;
	struct fw_buf_desc d = { 0 };
	enum fw_synd s;

	if (!rq_len && !sq_len)
		return FW_SYND_OK;	/* XRC target: no ring, no doorbell */
	d.umem_valid = PRM_GET(create_qp_in, cmd->in, wq_umem_valid);
	d.umem_id = PRM_GET(create_qp_in, cmd->in, wq_umem_id);
	d.umem_offset = PRM_GET64(create_qp_in, cmd->in, wq_umem_offset);
	d.page_offset = PRM_GET(qpc, qpc, page_offset);
	d.log_page_size = PRM_GET(qpc, qpc, log_page_size);
	d.len = rq_len + sq_len;
	d.pas = PRM_ARRAY_ADDR(create_qp_in, cmd->in, pas, 0);
	d.npas = cmd->inlen > PRM_BYTE_OFF(create_qp_in, pas) ?
		 (cmd->inlen - PRM_BYTE_OFF(create_qp_in, pas)) / 8 : 0;
	s = fw_buf_resolve(cmd, &d, &qp->buf);
	if (s)
		return s;
	if (rq_len)
		qp->rq.addr = qp->buf.addr;
	if (sq_len)
		qp->sq.addr = qp->buf.addr + rq_len;
	return fw_dbr_resolve(cmd, PRM_GET(qpc, qpc, dbr_umem_valid),
			      PRM_GET(qpc, qpc, dbr_umem_id),
			      PRM_GET64(qpc, qpc, dbr_addr), &qp->dbr);
}

static void fw_ring_set(struct emu_fw_ring *r, uint32_t log_cnt,
			uint32_t log_stride)
{
	r->log_cnt = (uint8_t)log_cnt;
	r->cnt = UINT32_C(1) << log_cnt;
	r->log_stride = (uint8_t)log_stride;
}

enum fw_synd fw_cmd_create_qp(struct fw_cmd *cmd)
{
	const void *qpc = PRM_ADDR_OF(create_qp_in, cmd->in, qpc);
	struct emu_fw *fw = cmd->fw;
	struct emu_fw_obj *obj, *pd, *x, *uar;
	uint32_t st = PRM_GET(qpc, qpc, st);
	struct emu_fw_srq *srq = NULL;
	struct emu_fw_qp *qp = NULL;
	bool has_sq = false, has_rq;
	enum fw_synd s;

	s = fw_qpc_features(cmd, qpc);
	if (s)
		return s;
	if (!fw_qp_st_supported(fw, st))
		return FW_SYND_QP_BAD_ST;
	s = fw_qpc_shape(qpc, &has_sq);
	if (s)
		return s;
	s = fw_qpc_sizes(fw, qpc, has_sq);
	if (s)
		return s;

	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_QP, &obj);
	if (s)
		return s;
	qp = emu_fw_to_qp(obj);
	pthread_mutex_init(&qp->lock, NULL);
	qp->kind = EMU_FW_QP_KIND_QP;
	qp->st = (uint8_t)st;
	qp->rq_type = (uint8_t)PRM_GET(qpc, qpc, rq_type);
	qp->xrc_tgt = st == MLX5_QPC_ST_XRC && !has_sq;
	atomic_init(&qp->state, MLX5_QPC_STATE_RST);
	atomic_init(&qp->gen, 0);
	atomic_init(&qp->cq_snd, NULL);
	atomic_init(&qp->cq_rcv, NULL);
	atomic_init(&qp->srq, NULL);
	atomic_init(&qp->counter, NULL);
	atomic_init(&qp->dct_key_violations, 0);
	atomic_init(&qp->dct_key_armed, false);
	atomic_init(&qp->dct_drained_event, false);
	atomic_init(&qp->hw.sq_wqebb_counter, 0);
	atomic_init(&qp->hw.rq_counter, 0);
	atomic_init(&qp->hw.sq_psn, 0);
	atomic_init(&qp->hw.rq_psn, 0);
	if (has_sq)
		fw_ring_set(&qp->sq, PRM_GET(qpc, qpc, log_sq_size), 6);
	if (qp->rq_type == EMU_FW_RQ_REGULAR)
		fw_ring_set(&qp->rq, PRM_GET(qpc, qpc, log_rq_size),
			    4 + PRM_GET(qpc, qpc, log_rq_stride));
	/* Who receives: RC/UC/UD with any RQ, an XRC target (its SRQ's CQ
	 * completes, the QP's own is optional). */
	has_rq = qp->rq_type != EMU_FW_RQ_ZERO && st != MLX5_QPC_ST_XRC;

	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_PD, PRM_GET(qpc, qpc, pd),
			   FW_SYND_BAD_PD, &pd);
	if (s)
		goto err;
	qp->pd = emu_fw_to_pd(pd);
	s = fw_qp_use_cq(cmd, PRM_GET(qpc, qpc, cqn_snd), has_sq, &qp->cq_snd);
	if (s)
		goto err;
	s = fw_qp_use_cq(cmd, PRM_GET(qpc, qpc, cqn_rcv), has_rq, &qp->cq_rcv);
	if (s)
		goto err;
	if (qp->rq_type == EMU_FW_RQ_SRQ &&
	    (!qp->xrc_tgt || PRM_GET(qpc, qpc, srqn_rmpn_xrqn))) {
		s = fw_srq_use(cmd, PRM_GET(qpc, qpc, srqn_rmpn_xrqn),
			       FW_SYND_QP_BAD_SRQN, &srq);
		if (s)
			goto err;
		atomic_store(&qp->srq, srq);
	}
	if (st == MLX5_QPC_ST_XRC) {
		s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_XRCD, PRM_GET(qpc, qpc, xrcd),
				   FW_SYND_QP_BAD_XRCD, &x);
		if (s)
			goto err;
		qp->xrcd = emu_fw_to_xrcd(x);
	}
	if (has_sq) {
		s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_UAR,
				   PRM_GET(qpc, qpc, uar_page), FW_SYND_BAD_UAR,
				   &uar);
		if (s)
			goto err;
		qp->uar = emu_fw_to_uar(uar);
	}
	s = fw_qp_memory(cmd, qp, qpc);
	if (s)
		goto err;

	qp->user_index = PRM_GET(qpc, qpc, user_index);
	qp->ts_format = (uint8_t)PRM_GET(qpc, qpc, ts_format);
	qp->ece = fw_qp_ece(cmd->fw, PRM_GET(create_qp_in, cmd->in, ece));
	_Static_assert(sizeof(qp->ctx) == PRM_ST_SZ_BYTES(qpc), "qpc size");
	memcpy(qp->ctx, qpc, sizeof(qp->ctx));
	/* Taken by RST2INIT, not by CREATE_QP. */
	PRM_SET(qpc, qp->ctx, counter_set_id, 0);
	PRM_SET(qpc, qp->ctx, state, MLX5_QPC_STATE_RST);
	fw_qp_attr_from_qpc(&qp->attr, qp->ctx);

	s = fw_cmd_obj_publish(obj, FW_SYND_QP_NO_RESOURCES);
	if (s)
		return s;
	PRM_SET(create_qp_out, cmd->out, qpn, obj->id);
	PRM_SET(create_qp_out, cmd->out, ece, qp->ece);
	return FW_SYND_OK;

err:
	fw_qp_release(obj);
	fw_cmd_obj_abort(obj);
	return s;
}

enum fw_synd fw_cmd_query_qp(struct fw_cmd *cmd)
{
	struct emu_fw_qp *qp = NULL;
	enum fw_synd s;
	void *qpc;

	if (PRM_GET(query_qp_in, cmd->in, qpc_ext) &&
	    !FW_CAP_GEN(cmd->fw, qpc_extension))
		return FW_SYND_QP_FEATURE_NOT_SUPPORTED;
	s = fw_qp_own(cmd, PRM_GET(query_qp_in, cmd->in, qpn),
		      EMU_FW_QP_KIND_QP, FW_SYND_QP_INVALID, &qp);
	if (s)
		return s;
	qpc = PRM_ADDR_OF(query_qp_out, cmd->out, qpc);
	pthread_mutex_lock(&qp->lock);
	memcpy(qpc, qp->ctx, sizeof(qp->ctx));
	PRM_SET(qpc, qpc, state, emu_fw_qp_state(qp));
	/* What the engine moved since the transitions set them. */
	PRM_SET(qpc, qpc, next_send_psn,
		atomic_load(&qp->hw.sq_psn) & 0xffffff);
	PRM_SET(qpc, qpc, next_rcv_psn,
		atomic_load(&qp->hw.rq_psn) & 0xffffff);
	PRM_SET(qpc, qpc, hw_sq_wqebb_counter,
		atomic_load(&qp->hw.sq_wqebb_counter) & 0xffff);
	PRM_SET(qpc, qpc, hw_rq_counter, atomic_load(&qp->hw.rq_counter));
	PRM_SET(query_qp_out, cmd->out, ece, qp->ece);
	pthread_mutex_unlock(&qp->lock);
	emu_fw_obj_put(&qp->obj);
	return FW_SYND_OK;
}

/* Destroy a QP or DCT (any state; nothing uses a QP at this level). */
enum fw_synd fw_qp_destroy(struct fw_cmd *cmd, uint32_t qpn,
			   enum emu_fw_qp_kind kind, enum fw_synd invalid)
{
	struct emu_fw_qp *qp = NULL;
	enum fw_synd s;

	s = fw_qp_own(cmd, qpn, kind, invalid, &qp);
	if (s)
		return s;
	if (fw_obj_kill(&qp->obj)) {	/* a concurrent destroy won */
		emu_fw_obj_put(&qp->obj);
		return invalid;
	}
	/* Dying: the engine lets go of it before its memory is released. */
	fw_engine_qp_changed(qp);
	fw_obj_remove(&qp->obj);
	emu_fw_obj_put(&qp->obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_destroy_qp(struct fw_cmd *cmd)
{
	return fw_qp_destroy(cmd, PRM_GET(destroy_qp_in, cmd->in, qpn),
			     EMU_FW_QP_KIND_QP, FW_SYND_QP_INVALID);
}
