/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_srq.c -- the shared receive queue object, and
 * CREATE_SRQ / QUERY_SRQ / ARM_RQ / DESTROY_SRQ.
 *
 * SRQs, XRC SRQs (fw_xrc_srq.c) and RMPs (fw_rmp.c) are one object type in
 * one number space: a QP's srqn_rmpn_xrqn and a DCT's srqn_xrqn name any of
 * them (mlx5_ib creates basic SRQs as CREATE_SRQ or CREATE_RMP and uses the
 * number alike).  Commands of one kind refuse the others' numbers.
 *
 * A WQE of an SRQ is a 16-byte next segment followed by scatter entries of
 * 16 bytes: the stride (16 << log_rq_stride) is at least 32 (one scatter
 * entry) and at most max_wqe_sz_rq.  The ring is (1 << log_srq_size) WQEs
 * in a page list of registered memory (CREATE_SRQ has no umem form; DEVX
 * users take an RMP or an XRC SRQ); the doorbell record is dbr_addr in
 * registered memory, 8-byte aligned.  The PD, the CQ and the XRC domain the
 * context names (if any; the kernel names its own) are in use while it
 * exists, and an SRQ used by a QP or DCT cannot be destroyed.
 *
 * ARM_RQ (op_mod 1, SRQ) sets the limit watermark: when fewer WQEs remain
 * the engine raises SRQ_RQ_LIMIT once and the SRQ is disarmed (lwm 0), as
 * QUERY_SRQ then shows.  op_mod 0 arms an RQ: this device has none.
 */
#include <errno.h>
#include <string.h>

#include "emu/firmware/fw_qp_int.h"

void fw_srq_release(struct emu_fw_obj *obj)
{
	struct emu_fw_srq *srq = emu_fw_to_srq(obj);

	pthread_mutex_lock(&srq->lock);
	if (srq->pd)
		fw_obj_unuse(&srq->pd->obj);
	if (srq->cq)
		fw_obj_unuse(&srq->cq->obj);
	if (srq->xrcd)
		fw_obj_unuse(&srq->xrcd->obj);
	/* The pointers stay: engines may read them inside the RCU read side
	 * that found the SRQ (runs once). */
	fw_buf_release(&srq->buf);
	fw_buf_release(&srq->dbr);
	pthread_mutex_unlock(&srq->lock);
}

void fw_srq_fini(struct emu_fw_obj *obj)
{
	pthread_mutex_destroy(&emu_fw_to_srq(obj)->lock);
}

enum fw_synd fw_srq_alloc(struct fw_cmd *cmd, enum emu_fw_srq_kind kind,
			  struct emu_fw_srq **srqp)
{
	struct emu_fw_srq *srq = NULL;
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_SRQ, &obj);
	if (s)
		return s;
	srq = emu_fw_to_srq(obj);
	pthread_mutex_init(&srq->lock, NULL);
	srq->kind = (uint8_t)kind;
	atomic_init(&srq->state, kind == EMU_FW_SRQ_RMP ?
		    MLX5_RMPC_STATE_RDY : MLX5_SRQC_STATE_GOOD);
	atomic_init(&srq->lwm, 0);
	atomic_init(&srq->wqe_cnt, 0);
	*srqp = srq;
	return FW_SYND_OK;
}

void fw_srq_abort(struct emu_fw_srq *srq)
{
	fw_srq_release(&srq->obj);
	fw_cmd_obj_abort(&srq->obj);
}

enum fw_synd fw_srq_use(struct fw_cmd *cmd, uint32_t srqn, enum fw_synd bad,
			struct emu_fw_srq **srqp)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	if (!srqn)
		return bad;
	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_SRQ, srqn, bad, &obj);
	if (s)
		return s;
	*srqp = emu_fw_to_srq(obj);
	return FW_SYND_OK;
}

enum fw_synd fw_srq_own(struct fw_cmd *cmd, uint32_t srqn,
			enum emu_fw_srq_kind kind, enum fw_synd invalid,
			struct emu_fw_srq **srqp)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_SRQ, srqn, invalid, &obj);
	if (s)
		return s;
	if (emu_fw_to_srq(obj)->kind != kind) {
		emu_fw_obj_put(obj);
		return invalid;
	}
	*srqp = emu_fw_to_srq(obj);
	return FW_SYND_OK;
}

enum fw_synd fw_srq_destroy(struct fw_cmd *cmd, uint32_t srqn,
			    enum emu_fw_srq_kind kind, enum fw_synd invalid)
{
	struct emu_fw_srq *srq = NULL;
	enum fw_synd s;

	s = fw_srq_own(cmd, srqn, kind, invalid, &srq);
	if (s)
		return s;
	switch (fw_obj_kill(&srq->obj)) {
	case 0:
		break;
	case -EBUSY:
		emu_fw_obj_put(&srq->obj);
		return FW_SYND_SRQ_IN_USE;
	default:		/* a concurrent destroy won */
		emu_fw_obj_put(&srq->obj);
		return invalid;
	}
	fw_obj_remove(&srq->obj);
	emu_fw_obj_put(&srq->obj);
	return FW_SYND_OK;
}

bool emu_fw_srq_limit_fire(struct emu_fw_srq *srq, uint32_t available)
{
	unsigned int lwm = atomic_load(&srq->lwm);

	while (lwm && available < lwm)
		if (atomic_compare_exchange_weak(&srq->lwm, &lwm, 0))
			return true;
	return false;
}

void emu_fw_srq_set_error(struct emu_fw_srq *srq)
{
	atomic_store(&srq->state, srq->kind == EMU_FW_SRQ_RMP ?
		     MLX5_RMPC_STATE_ERR : MLX5_SRQC_STATE_ERROR);
}

/* ---- CREATE_SRQ (srqc) ---- */

/* The shape of an SRQ-like ring; stride in bytes (log). */
static enum fw_synd fw_srq_geometry(const struct emu_fw *fw, uint32_t log_size,
				    uint32_t log_stride_bytes)
{
	if (log_size > FW_CAP_GEN(fw, log_max_srq_sz))
		return FW_SYND_SRQ_BAD_SIZE;
	/* next segment + at least one scatter entry, at most max_wqe_sz_rq */
	if (log_stride_bytes < 5 ||
	    (UINT32_C(1) << log_stride_bytes) > FW_CAP_GEN(fw, max_wqe_sz_rq))
		return FW_SYND_SRQ_BAD_STRIDE;
	return FW_SYND_OK;
}

/* Take the PD, and the CQ and XRC domain (required or, if 0, none). */
static enum fw_synd fw_srq_take(struct fw_cmd *cmd, struct emu_fw_srq *srq,
				uint32_t pdn, uint32_t cqn, bool cq_required,
				uint32_t xrcdn, bool xrcd_required)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_PD, pdn, FW_SYND_BAD_PD, &obj);
	if (s)
		return s;
	srq->pd = emu_fw_to_pd(obj);
	if (cqn || cq_required) {
		s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_CQ, cqn, FW_SYND_SRQ_BAD_CQN,
				   &obj);
		if (s)
			return s;
		srq->cq = emu_fw_to_cq(obj);
	}
	if (xrcdn || xrcd_required) {
		s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_XRCD, xrcdn,
				   FW_SYND_SRQ_BAD_XRCD, &obj);
		if (s)
			return s;
		srq->xrcd = emu_fw_to_xrcd(obj);
	}
	return FW_SYND_OK;
}

enum fw_synd fw_srq_create_common(struct fw_cmd *cmd, struct emu_fw_srq *srq,
				  const struct fw_srq_params *p)
{
	enum fw_synd s;

	s = fw_srq_take(cmd, srq, p->pd, p->cqn, p->cq_required, p->xrcd,
			p->xrcd_required);
	if (s)
		return s;
	srq->ring.log_cnt = (uint8_t)p->log_size;
	srq->ring.cnt = UINT32_C(1) << p->log_size;
	srq->ring.log_stride = (uint8_t)p->log_stride;
	s = fw_buf_resolve(cmd, &p->buf, &srq->buf);
	if (s)
		return s;
	srq->ring.addr = srq->buf.addr;
	s = fw_dbr_resolve(cmd, p->dbr_umem_valid, p->dbr_umem_id, p->dbr_addr,
			   &srq->dbr);
	if (s)
		return s;
	atomic_store(&srq->lwm, p->lwm);
	return FW_SYND_OK;
}

enum fw_synd fw_srq_check_common(const struct emu_fw *fw,
				 const struct fw_srq_params *p)
{
	enum fw_synd s = fw_srq_geometry(fw, p->log_size, p->log_stride);

	if (s)
		return s;
	if (p->lwm >= (UINT32_C(1) << p->log_size))
		return FW_SYND_SRQ_BAD_LWM;
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_create_srq(struct fw_cmd *cmd)
{
	const void *srqc = PRM_ADDR_OF(create_srq_in, cmd->in,
				       srq_context_entry);
	struct fw_srq_params p = { 0 };
	struct emu_fw_srq *srq = NULL;
	enum fw_synd s;

	if (PRM_GET(srqc, srqc, wq_signature) || PRM_GET(srqc, srqc, rlky))
		return FW_SYND_SRQ_FEATURE_NOT_SUPPORTED;
	if (PRM_GET(srqc, srqc, state) != MLX5_SRQC_STATE_GOOD)
		return FW_SYND_SRQ_BAD_STATE;
	p.log_size = PRM_GET(srqc, srqc, log_srq_size);
	p.log_stride = 4 + PRM_GET(srqc, srqc, log_rq_stride);
	p.lwm = PRM_GET(srqc, srqc, lwm);
	p.pd = PRM_GET(srqc, srqc, pd);
	p.cqn = PRM_GET(srqc, srqc, cqn);
	p.xrcd = PRM_GET(srqc, srqc, xrcd);
	p.buf.page_offset = PRM_GET(srqc, srqc, page_offset);
	p.buf.log_page_size = PRM_GET(srqc, srqc, log_page_size);
	p.buf.len = (size_t)1 << (p.log_size + p.log_stride);
	p.buf.pas = PRM_ARRAY_ADDR(create_srq_in, cmd->in, pas, 0);
	p.buf.npas = cmd->inlen > PRM_BYTE_OFF(create_srq_in, pas) ?
		     (cmd->inlen - PRM_BYTE_OFF(create_srq_in, pas)) / 8 : 0;
	p.dbr_addr = PRM_GET64(srqc, srqc, dbr_addr);
	s = fw_srq_check_common(cmd->fw, &p);
	if (s)
		return s;

	s = fw_srq_alloc(cmd, EMU_FW_SRQ_BASIC, &srq);
	if (s)
		return s;
	s = fw_srq_create_common(cmd, srq, &p);
	if (s) {
		fw_srq_abort(srq);
		return s;
	}
	_Static_assert(PRM_ST_SZ_BYTES(srqc) <= sizeof(srq->ctx), "srqc");
	memcpy(srq->ctx, srqc, PRM_ST_SZ_BYTES(srqc));
	s = fw_cmd_obj_publish(&srq->obj, FW_SYND_SRQ_LIMIT);
	if (s)
		return s;
	PRM_SET(create_srq_out, cmd->out, srqn, srq->obj.id);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_query_srq(struct fw_cmd *cmd)
{
	void *srqc = PRM_ADDR_OF(query_srq_out, cmd->out, srq_context_entry);
	struct emu_fw_srq *srq = NULL;
	enum fw_synd s;

	s = fw_srq_own(cmd, PRM_GET(query_srq_in, cmd->in, srqn),
		       EMU_FW_SRQ_BASIC, FW_SYND_SRQ_INVALID, &srq);
	if (s)
		return s;
	pthread_mutex_lock(&srq->lock);
	memcpy(srqc, srq->ctx, PRM_ST_SZ_BYTES(srqc));
	pthread_mutex_unlock(&srq->lock);
	PRM_SET(srqc, srqc, state, atomic_load(&srq->state));
	PRM_SET(srqc, srqc, lwm, atomic_load(&srq->lwm));
	PRM_SET(srqc, srqc, wqe_cnt, atomic_load(&srq->wqe_cnt) & 0xffff);
	emu_fw_obj_put(&srq->obj);
	return FW_SYND_OK;
}

/* ARM for SRQ, XRC SRQ: a new limit watermark, below the size. */
enum fw_synd fw_srq_arm(struct emu_fw_srq *srq, uint32_t lwm)
{
	if (lwm >= srq->ring.cnt)
		return FW_SYND_SRQ_BAD_LWM;
	pthread_mutex_lock(&srq->lock);
	atomic_store(&srq->lwm, lwm);
	pthread_mutex_unlock(&srq->lock);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_arm_rq(struct fw_cmd *cmd)
{
	struct emu_fw_srq *srq = NULL;
	enum fw_synd s;

	/* op_mod 0 names an RQ (CREATE_RQ): none exist on this device. */
	if (cmd->op_mod != 1)
		return FW_SYND_SRQ_INVALID;
	s = fw_srq_own(cmd, PRM_GET(arm_rq_in, cmd->in, srq_number),
		       EMU_FW_SRQ_BASIC, FW_SYND_SRQ_INVALID, &srq);
	if (s)
		return s;
	s = fw_srq_arm(srq, PRM_GET(arm_rq_in, cmd->in, lwm));
	emu_fw_obj_put(&srq->obj);
	return s;
}

enum fw_synd fw_cmd_destroy_srq(struct fw_cmd *cmd)
{
	return fw_srq_destroy(cmd, PRM_GET(destroy_srq_in, cmd->in, srqn),
			      EMU_FW_SRQ_BASIC, FW_SYND_SRQ_INVALID);
}
