/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_eth_wq.c -- what Ethernet send and receive queues share:
 * the work queue context (wq) and its memory, the state machine of
 * MODIFY_SQ/MODIFY_RQ and the engine's move to ERR.
 *
 * Both are cyclic work queues (wq_type 1); the striding kinds, signatures,
 * end padding, hairpin and SHAMPO are not advertised, and a limit
 * watermark (ARM_RQ of an RQ) is refused: none is offered.  At most
 * 1 << log_max_wq_sz WQEs.  The ring comes from wq_umem_id + wq_umem_offset
 * or the page list after the wq, the doorbell record from dbr_umem_id +
 * dbr_addr or an address inside a umem of the caller (fw_umem.c, as for
 * RMPs and QPs); the PD and the CQ are the caller's or the kernel's.
 *
 * States: created in RST; MODIFY moves RST->RDY, RDY->RDY (a field change),
 * RDY->ERR, ERR->ERR and any state to RST, each only from the state the
 * command names as current (sq_state/rq_state): what the kernel's mlx5e
 * and DPDK's mlx5 PMD issue (RST2RDY, RDY2RDY, RDY2ERR, ERR2RST, RDY2RST).
 */
#include <errno.h>

#include "emu/firmware/fw_eth_int.h"
#include "emu/mem/mem.h"

enum fw_synd fw_wq_check(const struct emu_fw *fw, const void *wq,
			 uint32_t state, uint32_t ts_format, uint32_t ts_cap)
{
	if (state != MLX5_SQC_STATE_RST)	/* == MLX5_RQC_STATE_RST */
		return FW_SYND_WQ_BAD_STATE;
	if (!fw_ts_format_ok(ts_format, ts_cap))
		return FW_SYND_WQ_BAD_TS_FORMAT;
	if (PRM_GET(wq, wq, wq_type) != MLX5_WQ_TYPE_CYCLIC)
		return FW_SYND_WQ_BAD_TYPE;
	if (fw_wq_unsupported(wq) || PRM_GET(wq, wq, lwm))
		return FW_SYND_WQ_FEATURE_NOT_SUPPORTED;
	if (PRM_GET(wq, wq, log_wq_sz) > FW_CAP_GEN(fw, log_max_wq_sz))
		return FW_SYND_WQ_BAD_SIZE;
	return FW_SYND_OK;
}

enum fw_synd fw_wq_take(struct fw_cmd *cmd, const struct fw_wq_parts *q,
			size_t wq_off, uint32_t cqn, uint32_t log_stride)
{
	const void *wq = (const uint8_t *)cmd->in + wq_off;
	uint32_t log_sz = PRM_GET(wq, wq, log_wq_sz);
	struct fw_buf_desc d;
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_PD, PRM_GET(wq, wq, pd),
			   FW_SYND_BAD_PD, &obj);
	if (s)
		return s;
	*q->pd = emu_fw_to_pd(obj);
	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_CQ, cqn, FW_SYND_WQ_BAD_CQN, &obj);
	if (s)
		return s;
	*q->cq = emu_fw_to_cq(obj);
	fw_wq_buf_desc(cmd, wq_off, (size_t)1 << (log_sz + log_stride), &d);
	s = fw_buf_resolve(cmd, &d, q->buf);
	if (s)
		return s;
	q->ring->addr = q->buf->addr;
	q->ring->log_cnt = (uint8_t)log_sz;
	q->ring->cnt = UINT32_C(1) << log_sz;
	q->ring->log_stride = (uint8_t)log_stride;
	return fw_wq_dbr_resolve(cmd, wq, q->dbr);
}

void fw_wq_release(const struct fw_wq_parts *q)
{
	/* The pointers stay: engines may read them inside the RCU read side
	 * that found the queue (runs once). */
	if (*q->pd)
		fw_obj_unuse(&(*q->pd)->obj);
	if (*q->cq)
		fw_obj_unuse(&(*q->cq)->obj);
	fw_buf_release(q->buf);
	fw_buf_release(q->dbr);
}

enum fw_synd fw_wq_move_check(const struct fw_wq_parts *q, uint32_t cur,
			      uint32_t to)
{
	uint32_t now = atomic_load(q->state);

	if (cur != now)
		return FW_SYND_WQ_BAD_STATE_TRANSITION;
	switch (to) {
	case MLX5_SQC_STATE_RST:
		return FW_SYND_OK;
	case MLX5_SQC_STATE_RDY:
		return now == MLX5_SQC_STATE_ERR ?
		       FW_SYND_WQ_BAD_STATE_TRANSITION : FW_SYND_OK;
	case MLX5_SQC_STATE_ERR:
		return now == MLX5_SQC_STATE_RST ?
		       FW_SYND_WQ_BAD_STATE_TRANSITION : FW_SYND_OK;
	default:
		return FW_SYND_WQ_BAD_STATE_TRANSITION;
	}
}

bool fw_wq_move(const struct fw_wq_parts *q, uint32_t cur, uint32_t to)
{
	atomic_store_explicit(q->state, to, memory_order_release);
	atomic_fetch_add(q->gen, 1);
	return cur != to;
}

uint32_t fw_wq_sw_counter(const struct fw_wq_parts *q, unsigned int which)
{
	uint32_t v;

	if (!q->dbr->addr ||
	    emu_mem_load32((uint32_t *)q->dbr->addr + which, &v))
		return 0;
	return be32toh(v) & 0xffff;
}

int fw_wq_set_error(const struct fw_wq_parts *q)
{
	int ret = -EINVAL;

	pthread_mutex_lock(q->lock);
	if (atomic_load(q->state) == MLX5_SQC_STATE_RDY) {
		fw_wq_move(q, MLX5_SQC_STATE_RDY, MLX5_SQC_STATE_ERR);
		ret = 0;
	}
	pthread_mutex_unlock(q->lock);
	return ret;
}
