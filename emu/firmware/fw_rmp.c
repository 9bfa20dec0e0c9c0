/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_rmp.c -- CREATE_RMP / MODIFY_RMP / QUERY_RMP /
 * DESTROY_RMP.
 *
 * An RMP (receive memory pool) is a basic SRQ described by a work queue
 * context (wq): how mlx5_ib creates basic SRQs (srq_cmd.c create_rmp_cmd)
 * and how DEVX users (UCX) create theirs, with wq_umem_id/wq_umem_offset and
 * dbr_umem_id/dbr_addr.  It is created RDY (mlx5_ib sets rmpc.state RDY);
 * the WQ is a linked list (wq_type 0) or cyclic (1, as UCX creates them:
 * WQE n is used n-th, next_wqe_index ignored) of WQEs of 1 << log_wq_stride
 * bytes (32..max_wqe_sz_rq: a next segment and scatter entries), at most
 * log_max_srq_sz of them.  Striding WQs, signatures, hairpin and SHAMPO are
 * not advertised.  MODIFY_RMP: rmp_state must be the current
 * state, ctx.state the new one (RDY or ERR), and the bitmask may name lwm
 * only (mlx5_ib's arm_rmp_cmd).  Numbers are shared with SRQs and XRC SRQs;
 * the logic the three share is in fw_srq_common.c.
 */
#include <string.h>

#include "emu/firmware/fw_qp_int.h"

#define RMP_WQ_BYTE_OFF (PRM_BYTE_OFF(create_rmp_in, ctx) + \
			 PRM_BYTE_OFF(rmpc, wq))

enum fw_synd fw_cmd_create_rmp(struct fw_cmd *cmd)
{
	const void *rmpc = PRM_ADDR_OF(create_rmp_in, cmd->in, ctx);
	const void *wq = PRM_ADDR_OF(rmpc, rmpc, wq);
	struct fw_srq_params p = { 0 };
	struct emu_fw_srq *srq = NULL;
	enum fw_synd s;

	/* Linked list or cyclic; not the striding kinds. */
	if (PRM_GET(rmpc, rmpc, basic_cyclic_rcv_wqe) ||
	    PRM_GET(wq, wq, wq_type) > MLX5_WQ_TYPE_CYCLIC ||
	    fw_wq_unsupported(wq))
		return FW_SYND_SRQ_FEATURE_NOT_SUPPORTED;
	if (PRM_GET(rmpc, rmpc, state) != MLX5_RMPC_STATE_RDY)
		return FW_SYND_SRQ_BAD_STATE;
	p.cyclic = PRM_GET(wq, wq, wq_type) == MLX5_WQ_TYPE_CYCLIC;
	p.log_size = PRM_GET(wq, wq, log_wq_sz);
	p.log_stride = PRM_GET(wq, wq, log_wq_stride);
	p.lwm = PRM_GET(wq, wq, lwm);
	p.pd = PRM_GET(wq, wq, pd);
	fw_wq_buf_desc(cmd, RMP_WQ_BYTE_OFF,
		       (size_t)1 << (p.log_size + p.log_stride), &p.buf);
	p.dbr_umem_valid = PRM_GET(wq, wq, dbr_umem_valid);
	p.dbr_umem_id = PRM_GET(wq, wq, dbr_umem_id);
	p.dbr_addr = PRM_GET64(wq, wq, dbr_addr);
	s = fw_srq_create(cmd, EMU_FW_SRQ_RMP, &p, rmpc, &srq);
	if (s)
		return s;
	PRM_SET(create_rmp_out, cmd->out, rmpn, srq->obj.id);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_modify_rmp(struct fw_cmd *cmd)
{
	const void *rmpc = PRM_ADDR_OF(modify_rmp_in, cmd->in, ctx);
	const uint8_t *bm = PRM_ADDR_OF(modify_rmp_in, cmd->in, bitmask);
	uint32_t cur = PRM_GET(modify_rmp_in, cmd->in, rmp_state);
	uint32_t to = PRM_GET(rmpc, rmpc, state);
	uint32_t lwm = PRM_GET(rmpc, rmpc, wq.lwm);
	bool set_lwm = PRM_GET(rmp_bitmask, bm, lwm);
	struct emu_fw_srq *srq = NULL;
	uint8_t other[8];
	enum fw_synd s;

	s = fw_srq_own(cmd, PRM_GET(modify_rmp_in, cmd->in, rmpn),
		       EMU_FW_SRQ_RMP, &srq);
	if (s)
		return s;
	memcpy(other, bm, sizeof(other));
	other[7] &= (uint8_t)~1u;	/* every bit but lwm (bit 0x3f) */
	if (!fw_all_zero(other, sizeof(other)))
		s = FW_SYND_RMP_BAD_BITMASK;
	pthread_mutex_lock(&srq->lock);
	if (!s && (cur != atomic_load(&srq->state) ||
		   (to != MLX5_RMPC_STATE_RDY && to != MLX5_RMPC_STATE_ERR)))
		s = FW_SYND_SRQ_BAD_STATE;
	if (!s && set_lwm && lwm >= srq->ring.cnt)
		s = FW_SYND_SRQ_BAD_LWM;
	if (!s) {
		if (set_lwm) {
			atomic_store(&srq->lwm, lwm);
			PRM_SET(rmpc, srq->ctx, wq.lwm, lwm);
		}
		atomic_store(&srq->state, to);
		PRM_SET(rmpc, srq->ctx, state, to);
	}
	pthread_mutex_unlock(&srq->lock);
	emu_fw_obj_put(&srq->obj);
	return s;
}

enum fw_synd fw_cmd_query_rmp(struct fw_cmd *cmd)
{
	return fw_srq_query(cmd, EMU_FW_SRQ_RMP,
			    PRM_GET(query_rmp_in, cmd->in, rmpn),
			    PRM_ADDR_OF(query_rmp_out, cmd->out, rmp_context));
}

enum fw_synd fw_cmd_destroy_rmp(struct fw_cmd *cmd)
{
	return fw_srq_destroy(cmd, EMU_FW_SRQ_RMP,
			      PRM_GET(destroy_rmp_in, cmd->in, rmpn));
}
