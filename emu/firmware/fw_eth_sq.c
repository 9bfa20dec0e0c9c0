/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_eth_sq.c -- CREATE_SQ / MODIFY_SQ / QUERY_SQ / DESTROY_SQ.
 *
 * An Ethernet send queue: a cyclic ring of 64-byte WQE basic blocks
 * (log_wq_stride 6, the only stride a send queue has), its doorbell record
 * dbr[1] the producer counter, completions to its CQ, packets leaving with
 * the attributes of its TIS.  What CREATE_SQ checks, in this order:
 *   features not advertised (rlky, cd_master, fre, multi-packet WQEs,
 *   reg_umr, hairpin, non_wire, a timestamp CQ, packet pacing, a QoS queue
 *   group; allow_swp without the swp capability), the state (RST),
 *   ts_format against sq_ts_format, the wq (fw_eth_wq.c), the stride,
 *   min_wqe_inline_mode (NONE..TCP_UDP), tis_lst_sz (exactly
 *   1 << log_max_tis_per_sq);
 *   then the objects, each of the caller's uid or the kernel's: the PD, the
 *   CQ, the UAR page, the TIS; then the ring and the doorbell record.
 * MODIFY_SQ: sq_state must be the current state, ctx.state the new one
 * (fw_eth_wq.c); no field of the bitmask is modifiable (packet pacing and
 * QoS groups are not advertised).  RST->RDY restarts the WQE counter.
 * QUERY_SQ: the context as created, the state, wq.hw_counter (WQE basic
 * blocks consumed) and wq.sw_counter (the doorbell record).  DESTROY_SQ in
 * any state.
 */
#include <string.h>

#include "emu/firmware/fw_eth_int.h"

#define SQ_CTX_OFF PRM_BYTE_OFF(create_sq_in, ctx)
#define SQ_WQ_OFF (SQ_CTX_OFF + PRM_BYTE_OFF(sqc, wq))

_Static_assert(PRM_ST_SZ_BYTES(sqc) == sizeof(((struct emu_fw_sq *)0)->ctx),
	       "sqc");

void fw_sq_release(struct emu_fw_obj *obj)
{
	struct emu_fw_sq *sq = emu_fw_to_sq(obj);

	pthread_mutex_lock(&sq->lock);
	fw_wq_release(&FW_WQ_PARTS(sq));
	if (sq->uar)
		fw_obj_unuse(&sq->uar->obj);
	if (sq->tis)
		fw_obj_unuse(&sq->tis->obj);
	pthread_mutex_unlock(&sq->lock);
}

void fw_sq_fini(struct emu_fw_obj *obj)
{
	pthread_mutex_destroy(&emu_fw_to_sq(obj)->lock);
}

static void fw_sq_changed(struct emu_fw_obj *obj)
{
	fw_engine_sq_changed(emu_fw_to_sq(obj));
}

int emu_fw_sq_set_error(struct emu_fw_sq *sq)
{
	return fw_wq_set_error(&FW_WQ_PARTS(sq));
}

/* Context fields this device does not implement. */
static bool fw_sqc_unsupported(const struct emu_fw *fw, const void *sqc)
{
	const void *eth = fw_cap_page(fw, MLX5_CAP_ETHERNET_OFFLOADS);

	return PRM_GET(sqc, sqc, rlky) || PRM_GET(sqc, sqc, cd_master) ||
	       PRM_GET(sqc, sqc, fre) ||
	       PRM_GET(sqc, sqc, allow_multi_pkt_send_wqe) ||
	       PRM_GET(sqc, sqc, reg_umr) || PRM_GET(sqc, sqc, hairpin) ||
	       PRM_GET(sqc, sqc, non_wire) ||
	       PRM_GET(sqc, sqc, ts_cqe_to_dest_cqn) ||
	       PRM_GET(sqc, sqc, packet_pacing_rate_limit_index) ||
	       PRM_GET(sqc, sqc, qos_queue_group_id) ||
	       (PRM_GET(sqc, sqc, allow_swp) &&
		!PRM_GET(per_protocol_networking_offload_caps, eth, swp));
}

static enum fw_synd fw_sq_check(const struct emu_fw *fw, const void *sqc)
{
	const void *wq = PRM_ADDR_OF(sqc, sqc, wq);
	enum fw_synd s;

	if (fw_sqc_unsupported(fw, sqc))
		return FW_SYND_WQ_FEATURE_NOT_SUPPORTED;
	s = fw_wq_check(fw, wq, PRM_GET(sqc, sqc, state),
			PRM_GET(sqc, sqc, ts_format),
			FW_CAP_GEN(fw, sq_ts_format));
	if (s)
		return s;
	if (PRM_GET(wq, wq, log_wq_stride) != 6)	/* 64-byte WQEBBs */
		return FW_SYND_WQ_BAD_STRIDE;
	/*
	 * min_wqe_inline_mode: what the application promises to inline,
	 * any mode.  The device's wqe_inline_mode (L2, VPORT_CONTEXT or
	 * NOT_REQUIRED) says what it requires, and only a VPORT_CONTEXT
	 * device reads the field: mlx5e sets it only then, and mlx5_ib's
	 * raw packet SQs never do, on devices of every mode.
	 */
	if (PRM_GET(sqc, sqc, min_wqe_inline_mode) > MLX5_INLINE_MODE_TCP_UDP)
		return FW_SYND_SQ_BAD_INLINE_MODE;
	if (PRM_GET(sqc, sqc, tis_lst_sz) !=
	    UINT32_C(1) << FW_CAP_GEN(fw, log_max_tis_per_sq))
		return FW_SYND_SQ_BAD_TIS;
	return FW_SYND_OK;
}

/* The objects an SQ uses beyond those of its wq. */
static enum fw_synd fw_sq_take(struct fw_cmd *cmd, struct emu_fw_sq *sq,
			       const void *sqc)
{
	const void *wq = PRM_ADDR_OF(sqc, sqc, wq);
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_wq_take(cmd, &FW_WQ_PARTS(sq), SQ_WQ_OFF,
		       PRM_GET(sqc, sqc, cqn), 6);
	if (s)
		return s;
	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_UAR, PRM_GET(wq, wq, uar_page),
			   FW_SYND_BAD_UAR, &obj);
	if (s)
		return s;
	sq->uar = emu_fw_to_uar(obj);
	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_TIS, PRM_GET(sqc, sqc, tis_num_0),
			   FW_SYND_SQ_BAD_TIS, &obj);
	if (s)
		return s;
	sq->tis = emu_fw_to_tis(obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_create_sq(struct fw_cmd *cmd)
{
	const void *sqc = PRM_ADDR_OF(create_sq_in, cmd->in, ctx);
	struct emu_fw_obj *obj;
	struct emu_fw_sq *sq;
	enum fw_synd s;

	s = fw_sq_check(cmd->fw, sqc);
	if (s)
		return s;
	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_SQ, &obj);
	if (s)
		return s;
	sq = emu_fw_to_sq(obj);
	pthread_mutex_init(&sq->lock, NULL);
	atomic_init(&sq->state, MLX5_SQC_STATE_RST);
	atomic_init(&sq->gen, 0);
	atomic_init(&sq->hw.wqebb_counter, 0);
	s = fw_sq_take(cmd, sq, sqc);
	if (s) {
		fw_sq_release(obj);
		fw_cmd_obj_abort(obj);
		return s;
	}
	sq->user_index = PRM_GET(sqc, sqc, user_index);
	sq->min_wqe_inline_mode =
		(uint8_t)PRM_GET(sqc, sqc, min_wqe_inline_mode);
	sq->ts_format = (uint8_t)PRM_GET(sqc, sqc, ts_format);
	sq->flush_in_error_en = PRM_GET(sqc, sqc, flush_in_error_en);
	sq->allow_swp = PRM_GET(sqc, sqc, allow_swp);
	memcpy(sq->ctx, sqc, sizeof(sq->ctx));
	s = fw_cmd_obj_publish(obj, FW_SYND_SQ_LIMIT);
	if (s)
		return s;
	PRM_SET(create_sq_out, cmd->out, sqn, obj->id);
	return FW_SYND_OK;
}

static enum fw_synd fw_sq_own(struct fw_cmd *cmd, uint32_t sqn,
			      struct emu_fw_sq **sqp)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_SQ, sqn, FW_SYND_SQ_INVALID, &obj);
	if (!s)
		*sqp = emu_fw_to_sq(obj);
	return s;
}

enum fw_synd fw_cmd_modify_sq(struct fw_cmd *cmd)
{
	const void *sqc = PRM_ADDR_OF(modify_sq_in, cmd->in, ctx);
	uint32_t cur = PRM_GET(modify_sq_in, cmd->in, sq_state);
	uint32_t to = PRM_GET(sqc, sqc, state);
	struct emu_fw_sq *sq = NULL;
	bool changed = false;
	enum fw_synd s;

	s = fw_sq_own(cmd, PRM_GET(modify_sq_in, cmd->in, sqn), &sq);
	if (s)
		return s;
	pthread_mutex_lock(&sq->lock);
	if (atomic_load(&sq->obj.users) < 0)	/* a destroy got in first */
		s = FW_SYND_SQ_INVALID;
	else if (PRM_GET64(modify_sq_in, cmd->in, modify_bitmask))
		s = FW_SYND_WQ_BAD_BITMASK;
	else
		s = fw_wq_move_check(&FW_WQ_PARTS(sq), cur, to);
	if (!s) {
		if (cur == MLX5_SQC_STATE_RST && to == MLX5_SQC_STATE_RDY)
			atomic_store(&sq->hw.wqebb_counter, 0);
		changed = fw_wq_move(&FW_WQ_PARTS(sq), cur, to);
		PRM_SET(sqc, sq->ctx, state, to);
	}
	pthread_mutex_unlock(&sq->lock);
	if (changed)
		fw_engine_sq_changed(sq);
	emu_fw_obj_put(&sq->obj);
	return s;
}

enum fw_synd fw_cmd_query_sq(struct fw_cmd *cmd)
{
	void *sqc = PRM_ADDR_OF(query_sq_out, cmd->out, sq_context);
	void *wq = PRM_ADDR_OF(sqc, sqc, wq);
	struct emu_fw_sq *sq = NULL;
	enum fw_synd s;

	s = fw_sq_own(cmd, PRM_GET(query_sq_in, cmd->in, sqn), &sq);
	if (s)
		return s;
	pthread_mutex_lock(&sq->lock);
	memcpy(sqc, sq->ctx, sizeof(sq->ctx));
	PRM_SET(sqc, sqc, state, emu_fw_sq_state(sq));
	pthread_mutex_unlock(&sq->lock);
	PRM_SET(wq, wq, hw_counter,
		atomic_load(&sq->hw.wqebb_counter) & 0xffff);
	PRM_SET(wq, wq, sw_counter,
		fw_wq_sw_counter(&FW_WQ_PARTS(sq), EMU_FW_DBR_SND));
	emu_fw_obj_put(&sq->obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_destroy_sq(struct fw_cmd *cmd)
{
	/* Nothing uses an SQ: in_use never answers. */
	return fw_cmd_obj_destroy_cb(cmd, EMU_FW_OBJ_SQ,
				     PRM_GET(destroy_sq_in, cmd->in, sqn),
				     FW_SYND_SQ_INVALID, FW_SYND_SQ_INVALID,
				     fw_sq_changed);
}
