/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_srq_common.c -- the shared receive queue object, and the
 * create/query/arm/destroy logic SRQs (fw_srq.c), XRC SRQs (fw_xrc_srq.c)
 * and RMPs (fw_rmp.c) share; those files parse their own mailboxes and
 * keep what really differs.
 *
 * The three are one object type in one number space: a QP's
 * srqn_rmpn_xrqn and a DCT's srqn_xrqn name any of them (mlx5_ib creates
 * basic SRQs as CREATE_SRQ or CREATE_RMP and uses the number alike).
 * Commands of one kind refuse the others' numbers.  What tells the kinds
 * apart here is one table (fw_srq_types): the context each echoes (srqc,
 * xrc_srqc, rmpc) with where its state, lwm and wqe_cnt sit, the states it
 * is created in and errors to, and the syndrome for "no such object".
 *
 * A WQE is a 16-byte next segment followed by scatter entries of 16 bytes:
 * the stride is at least 32 (one scatter entry) and at most max_wqe_sz_rq,
 * and at most 1 << log_max_srq_sz of them.  The PD, the CQ and the XRC
 * domain the context names (if any; the kernel names its own) are in use
 * while it exists, and an SRQ used by a QP or DCT cannot be destroyed.
 * Arming sets the limit watermark: when fewer WQEs remain the engine raises
 * SRQ_RQ_LIMIT once and the SRQ is disarmed (lwm 0), as a query then shows.
 */
#include <errno.h>
#include <string.h>

#include "emu/firmware/fw_qp_int.h"
#include "emu/mem/mem.h"

/* A scalar field of a context: bit offset, width. */
struct fw_srq_fld {
	uint16_t off;
	uint8_t bits;
};

#define FW_SRQ_FLD(typ, fld)						\
	{ .off = PRM_BIT_OFF(typ, fld) + (uint32_t)PRM_CHECK_32(typ, fld), \
	  .bits = PRM_BIT_SZ(typ, fld) }

/* What differs between the kinds for the shared logic. */
struct fw_srq_type {
	enum fw_synd invalid;		/* no such object of this kind */
	uint32_t ctx_bytes;		/* the context created and queried */
	uint32_t state_new, state_err;	/* created in; the engine's error */
	struct fw_srq_fld state, lwm;
	struct fw_srq_fld wqe_cnt;	/* bits 0: not in the context */
};

static const struct fw_srq_type fw_srq_types[] = {
	[EMU_FW_SRQ_BASIC] = {
		.invalid = FW_SYND_SRQ_INVALID,
		.ctx_bytes = PRM_ST_SZ_BYTES(srqc),
		.state_new = MLX5_SRQC_STATE_GOOD,
		.state_err = MLX5_SRQC_STATE_ERROR,
		.state = FW_SRQ_FLD(srqc, state),
		.lwm = FW_SRQ_FLD(srqc, lwm),
		.wqe_cnt = FW_SRQ_FLD(srqc, wqe_cnt),
	},
	[EMU_FW_SRQ_XRC] = {
		.invalid = FW_SYND_XRC_SRQ_INVALID,
		.ctx_bytes = PRM_ST_SZ_BYTES(xrc_srqc),
		.state_new = MLX5_XRC_SRQC_STATE_GOOD,
		.state_err = MLX5_XRC_SRQC_STATE_ERROR,
		.state = FW_SRQ_FLD(xrc_srqc, state),
		.lwm = FW_SRQ_FLD(xrc_srqc, lwm),
		.wqe_cnt = FW_SRQ_FLD(xrc_srqc, wqe_cnt),
	},
	[EMU_FW_SRQ_RMP] = {
		.invalid = FW_SYND_RMP_INVALID,
		.ctx_bytes = PRM_ST_SZ_BYTES(rmpc),
		.state_new = MLX5_RMPC_STATE_RDY,
		.state_err = MLX5_RMPC_STATE_ERR,
		.state = FW_SRQ_FLD(rmpc, state),
		.lwm = FW_SRQ_FLD(rmpc, wq.lwm),
	},
};

_Static_assert(PRM_ST_SZ_BYTES(srqc) <=
	       sizeof(((struct emu_fw_srq *)0)->ctx), "srqc");
_Static_assert(PRM_ST_SZ_BYTES(xrc_srqc) <=
	       sizeof(((struct emu_fw_srq *)0)->ctx), "xrc_srqc");
_Static_assert(PRM_ST_SZ_BYTES(rmpc) ==
	       sizeof(((struct emu_fw_srq *)0)->ctx), "rmpc");

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

/* A new SRQ object (mutex ready); FW_SYND_OK or BAD_UID/NOMEM. */
static enum fw_synd fw_srq_alloc(struct fw_cmd *cmd, enum emu_fw_srq_kind kind,
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
	atomic_init(&srq->state, fw_srq_types[kind].state_new);
	atomic_init(&srq->lwm, 0);
	atomic_init(&srq->wqe_cnt, 0);
	*srqp = srq;
	return FW_SYND_OK;
}

/* Undo fw_srq_alloc + whatever was taken, for an unpublished SRQ. */
static void fw_srq_abort(struct emu_fw_srq *srq)
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
			enum emu_fw_srq_kind kind, struct emu_fw_srq **srqp)
{
	enum fw_synd invalid = fw_srq_types[kind].invalid;
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
	atomic_store(&srq->state, fw_srq_types[srq->kind].state_err);
}

/* ---- create ---- */

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

/* Size, stride (32..max_wqe_sz_rq) and lwm, before anything is taken. */
static enum fw_synd fw_srq_check(const struct emu_fw *fw,
				 const struct fw_srq_params *p)
{
	enum fw_synd s = fw_srq_geometry(fw, p->log_size, p->log_stride);

	if (s)
		return s;
	if (p->lwm >= (UINT32_C(1) << p->log_size))
		return FW_SYND_SRQ_BAD_LWM;
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

/* Take the objects and the memory (on failure fw_srq_abort undoes it). */
static enum fw_synd fw_srq_setup(struct fw_cmd *cmd, struct emu_fw_srq *srq,
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

enum fw_synd fw_srq_create(struct fw_cmd *cmd, enum emu_fw_srq_kind kind,
			   const struct fw_srq_params *p, const void *ctx,
			   struct emu_fw_srq **srqp)
{
	struct emu_fw_srq *srq = NULL;
	enum fw_synd s;

	s = fw_srq_check(cmd->fw, p);
	if (s)
		return s;
	s = fw_srq_alloc(cmd, kind, &srq);
	if (s)
		return s;
	s = fw_srq_setup(cmd, srq, p);
	if (s) {
		fw_srq_abort(srq);
		return s;
	}
	srq->user_index = p->user_index;
	srq->cyclic = p->cyclic;
	memcpy(srq->ctx, ctx, fw_srq_types[kind].ctx_bytes);
	s = fw_cmd_obj_publish(&srq->obj, FW_SYND_SRQ_LIMIT);
	if (s)
		return s;
	*srqp = srq;
	return FW_SYND_OK;
}

/* ---- query, arm, destroy ---- */

/* WQEs posted (the doorbell record) and not yet used by the engine. */
static uint32_t fw_srq_wqe_cnt(struct emu_fw_srq *srq)
{
	uint32_t pi;

	if (!srq->dbr.addr || emu_mem_load32(srq->dbr.addr, &pi))
		return atomic_load(&srq->wqe_cnt);
	return (uint16_t)((uint16_t)be32toh(pi) - atomic_load(&srq->hw.counter));
}

enum fw_synd fw_srq_query(struct fw_cmd *cmd, enum emu_fw_srq_kind kind,
			  uint32_t srqn, void *ctx)
{
	const struct fw_srq_type *t = &fw_srq_types[kind];
	struct emu_fw_srq *srq = NULL;
	enum fw_synd s;

	s = fw_srq_own(cmd, srqn, kind, &srq);
	if (s)
		return s;
	pthread_mutex_lock(&srq->lock);
	memcpy(ctx, srq->ctx, t->ctx_bytes);
	pthread_mutex_unlock(&srq->lock);
	prm_set32_(ctx, t->state.off, t->state.bits, atomic_load(&srq->state));
	prm_set32_(ctx, t->lwm.off, t->lwm.bits, atomic_load(&srq->lwm));
	if (t->wqe_cnt.bits)
		prm_set32_(ctx, t->wqe_cnt.off, t->wqe_cnt.bits,
			   fw_srq_wqe_cnt(srq));
	emu_fw_obj_put(&srq->obj);
	return FW_SYND_OK;
}

enum fw_synd fw_srq_arm(struct fw_cmd *cmd, enum emu_fw_srq_kind kind,
			uint32_t srqn, uint32_t lwm)
{
	struct emu_fw_srq *srq = NULL;
	enum fw_synd s;

	s = fw_srq_own(cmd, srqn, kind, &srq);
	if (s)
		return s;
	/* A new limit watermark, below the size. */
	if (lwm >= srq->ring.cnt) {
		s = FW_SYND_SRQ_BAD_LWM;
	} else {
		pthread_mutex_lock(&srq->lock);
		atomic_store(&srq->lwm, lwm);
		pthread_mutex_unlock(&srq->lock);
	}
	emu_fw_obj_put(&srq->obj);
	return s;
}

enum fw_synd fw_srq_destroy(struct fw_cmd *cmd, enum emu_fw_srq_kind kind,
			    uint32_t srqn)
{
	enum fw_synd invalid = fw_srq_types[kind].invalid;
	struct emu_fw_srq *srq = NULL;
	enum fw_synd s;

	s = fw_srq_own(cmd, srqn, kind, &srq);
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
