/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_eth_rq.c -- CREATE_RQ / MODIFY_RQ / QUERY_RQ / DESTROY_RQ.
 *
 * An Ethernet receive queue: a cyclic ring of WQEs of 1 << log_wq_stride
 * bytes (16-byte scatter entries, no next segment: at least 16 bytes, at
 * most max_wqe_sz_rq), its doorbell record dbr[0] the producer counter,
 * completions to its CQ.  Its memory is inline (mem_rq_type 0; an RMP-backed
 * RQ is not offered and is refused).  What CREATE_RQ checks, in this order:
 *   features not advertised (rlky, delay_drop_en, scatter_fcs, hairpin,
 *   mem_rq_type RMP, SHAMPO), the state (RST), ts_format against
 *   rq_ts_format, the wq (fw_eth_wq.c: a striding wq_type is refused, the
 *   device does not advertise striding_rq), the stride; then the objects,
 *   each of the caller's uid or the kernel's: the PD, the CQ, the queue
 *   counter (counter_set_id, if not 0); then the ring and the doorbell
 *   record.  vsd (VLAN stripping disabled), user_index and
 *   flush_in_error_en are kept.
 * MODIFY_RQ: rq_state must be the current state, ctx.state the new one
 * (fw_eth_wq.c); the bitmask may name vsd and counter_set_id
 * (MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_*), not scatter_fcs (not advertised)
 * nor the limit watermark.  RST->RDY restarts the WQE counters.
 * QUERY_RQ: the context with the current state, vsd and counter set,
 * wq.hw_counter (WQEs consumed) and wq.sw_counter (the doorbell record).
 * DESTROY_RQ in any state, refused while an RQT or a direct TIR uses it.
 */
#include <string.h>

#include "emu/firmware/fw_eth_int.h"

#define RQ_WQ_OFF (PRM_BYTE_OFF(create_rq_in, ctx) + PRM_BYTE_OFF(rqc, wq))

_Static_assert(PRM_ST_SZ_BYTES(rqc) == sizeof(((struct emu_fw_rq *)0)->ctx),
	       "rqc");

void fw_rq_release(struct emu_fw_obj *obj)
{
	struct emu_fw_rq *rq = emu_fw_to_rq(obj);

	pthread_mutex_lock(&rq->lock);
	fw_wq_release(&FW_WQ_PARTS(rq));
	FW_USE_DROP(&rq->counter);
	pthread_mutex_unlock(&rq->lock);
}

void fw_rq_fini(struct emu_fw_obj *obj)
{
	pthread_mutex_destroy(&emu_fw_to_rq(obj)->lock);
}

static void fw_rq_changed(struct emu_fw_obj *obj)
{
	fw_engine_rq_changed(emu_fw_to_rq(obj));
}

int emu_fw_rq_set_error(struct emu_fw_rq *rq)
{
	return fw_wq_set_error(&FW_WQ_PARTS(rq));
}

/* Context fields this device does not implement. */
static bool fw_rqc_unsupported(const void *rqc)
{
	return PRM_GET(rqc, rqc, rlky) || PRM_GET(rqc, rqc, delay_drop_en) ||
	       PRM_GET(rqc, rqc, scatter_fcs) || PRM_GET(rqc, rqc, hairpin) ||
	       PRM_GET(rqc, rqc, mem_rq_type) !=
			MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_INLINE ||
	       PRM_GET(rqc, rqc, shampo_no_match_alignment_granularity) ||
	       PRM_GET(rqc, rqc, shampo_match_criteria_type) ||
	       PRM_GET(rqc, rqc, reservation_timeout);
}

static enum fw_synd fw_rq_check(const struct emu_fw *fw, const void *rqc)
{
	const void *wq = PRM_ADDR_OF(rqc, rqc, wq);
	uint32_t log_stride = PRM_GET(wq, wq, log_wq_stride);
	enum fw_synd s;

	if (fw_rqc_unsupported(rqc))
		return FW_SYND_WQ_FEATURE_NOT_SUPPORTED;
	s = fw_wq_check(fw, wq, PRM_GET(rqc, rqc, state),
			PRM_GET(rqc, rqc, ts_format),
			FW_CAP_GEN(fw, rq_ts_format));
	if (s)
		return s;
	/* One scatter entry at least, max_wqe_sz_rq at most. */
	if (log_stride < 4 ||
	    (UINT32_C(1) << log_stride) > FW_CAP_GEN(fw, max_wqe_sz_rq))
		return FW_SYND_WQ_BAD_STRIDE;
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_create_rq(struct fw_cmd *cmd)
{
	const void *rqc = PRM_ADDR_OF(create_rq_in, cmd->in, ctx);
	const void *wq = PRM_ADDR_OF(rqc, rqc, wq);
	struct emu_fw_q_counter *qc = NULL;
	struct emu_fw_obj *obj;
	struct emu_fw_rq *rq;
	enum fw_synd s;

	s = fw_rq_check(cmd->fw, rqc);
	if (s)
		return s;
	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_RQ, &obj);
	if (s)
		return s;
	rq = emu_fw_to_rq(obj);
	pthread_mutex_init(&rq->lock, NULL);
	atomic_init(&rq->state, MLX5_RQC_STATE_RST);
	atomic_init(&rq->gen, 0);
	atomic_init(&rq->counter, NULL);
	atomic_init(&rq->hw.head, 0);
	atomic_init(&rq->hw.consumed, 0);
	s = fw_wq_take(cmd, &FW_WQ_PARTS(rq), RQ_WQ_OFF,
		       PRM_GET(rqc, rqc, cqn), PRM_GET(wq, wq, log_wq_stride));
	if (!s)
		s = fw_check_counter(cmd, PRM_GET(rqc, rqc, counter_set_id),
				     &qc);
	if (s) {
		fw_rq_release(obj);
		fw_cmd_obj_abort(obj);
		return s;
	}
	atomic_store(&rq->counter, qc);
	atomic_init(&rq->vsd, PRM_GET(rqc, rqc, vsd));
	rq->user_index = PRM_GET(rqc, rqc, user_index);
	rq->ts_format = (uint8_t)PRM_GET(rqc, rqc, ts_format);
	rq->flush_in_error_en = PRM_GET(rqc, rqc, flush_in_error_en);
	memcpy(rq->ctx, rqc, sizeof(rq->ctx));
	s = fw_cmd_obj_publish(obj, FW_SYND_RQ_LIMIT);
	if (s)
		return s;
	PRM_SET(create_rq_out, cmd->out, rqn, obj->id);
	return FW_SYND_OK;
}

static enum fw_synd fw_rq_own(struct fw_cmd *cmd, uint32_t rqn,
			      struct emu_fw_rq **rqp)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_RQ, rqn, FW_SYND_RQ_INVALID, &obj);
	if (!s)
		*rqp = emu_fw_to_rq(obj);
	return s;
}

/* The fields MODIFY_RQ may change. */
#define FW_RQ_MODIFIABLE (MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_VSD | \
			  MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_RQ_COUNTER_SET_ID)

/* Under rq->lock: check the whole command, then change the RQ. */
static enum fw_synd fw_rq_modify_locked(struct fw_cmd *cmd,
					struct emu_fw_rq *rq, bool *changed)
{
	const void *rqc = PRM_ADDR_OF(modify_rq_in, cmd->in, ctx);
	uint64_t bm = PRM_GET64(modify_rq_in, cmd->in, modify_bitmask);
	uint32_t cur = PRM_GET(modify_rq_in, cmd->in, rq_state);
	uint32_t to = PRM_GET(rqc, rqc, state);
	struct emu_fw_q_counter *qc = NULL;
	enum fw_synd s;

	if (atomic_load(&rq->obj.users) < 0)	/* a destroy got in first */
		return FW_SYND_RQ_INVALID;
	if (bm & ~(uint64_t)FW_RQ_MODIFIABLE)
		return FW_SYND_WQ_BAD_BITMASK;
	s = fw_wq_move_check(&FW_WQ_PARTS(rq), cur, to);
	if (s)
		return s;
	if (bm & MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_RQ_COUNTER_SET_ID) {
		s = fw_check_counter(cmd, PRM_GET(rqc, rqc, counter_set_id),
				     &qc);
		if (s)
			return s;
		FW_USE_SWAP(&rq->counter, qc);
		PRM_SET(rqc, rq->ctx, counter_set_id,
			PRM_GET(rqc, rqc, counter_set_id));
	}
	if (bm & MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_VSD) {
		atomic_store(&rq->vsd, PRM_GET(rqc, rqc, vsd));
		PRM_SET(rqc, rq->ctx, vsd, PRM_GET(rqc, rqc, vsd));
	}
	if (cur == MLX5_RQC_STATE_RST && to == MLX5_RQC_STATE_RDY) {
		atomic_store(&rq->hw.head, 0);
		atomic_store(&rq->hw.consumed, 0);
	}
	*changed = fw_wq_move(&FW_WQ_PARTS(rq), cur, to);
	PRM_SET(rqc, rq->ctx, state, to);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_modify_rq(struct fw_cmd *cmd)
{
	struct emu_fw_rq *rq = NULL;
	bool changed = false;
	enum fw_synd s;

	s = fw_rq_own(cmd, PRM_GET(modify_rq_in, cmd->in, rqn), &rq);
	if (s)
		return s;
	pthread_mutex_lock(&rq->lock);
	s = fw_rq_modify_locked(cmd, rq, &changed);
	pthread_mutex_unlock(&rq->lock);
	if (changed)
		fw_engine_rq_changed(rq);
	emu_fw_obj_put(&rq->obj);
	return s;
}

enum fw_synd fw_cmd_query_rq(struct fw_cmd *cmd)
{
	void *rqc = PRM_ADDR_OF(query_rq_out, cmd->out, rq_context);
	void *wq = PRM_ADDR_OF(rqc, rqc, wq);
	struct emu_fw_rq *rq = NULL;
	enum fw_synd s;

	s = fw_rq_own(cmd, PRM_GET(query_rq_in, cmd->in, rqn), &rq);
	if (s)
		return s;
	pthread_mutex_lock(&rq->lock);
	memcpy(rqc, rq->ctx, sizeof(rq->ctx));
	PRM_SET(rqc, rqc, state, emu_fw_rq_state(rq));
	pthread_mutex_unlock(&rq->lock);
	PRM_SET(wq, wq, hw_counter, atomic_load(&rq->hw.consumed) & 0xffff);
	PRM_SET(wq, wq, sw_counter,
		fw_wq_sw_counter(&FW_WQ_PARTS(rq), EMU_FW_DBR_RCV));
	emu_fw_obj_put(&rq->obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_destroy_rq(struct fw_cmd *cmd)
{
	return fw_cmd_obj_destroy_cb(cmd, EMU_FW_OBJ_RQ,
				     PRM_GET(destroy_rq_in, cmd->in, rqn),
				     FW_SYND_RQ_INVALID, FW_SYND_RQ_IN_USE,
				     fw_rq_changed);
}
