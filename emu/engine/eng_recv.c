/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_recv.c -- receive WQEs, taken when a message needs one
 * (as hardware reads the receive doorbell record only then).
 *
 *  - RQ: WQE n sits at n mod size, stride 16 << log_rq_stride; the
 *    doorbell record's word 0 counts posted WQEs (16 bits, as libmlx5
 *    writes it); the scatter list ends at the stride or at a segment with
 *    lkey MLX5_INVALID_LKEY.
 *  - SRQ (basic, XRC, RMP): a linked list (libmlx5's layout): each WQE
 *    starts with a next segment whose next_wqe_index names the WQE to use
 *    after it; the device starts at WQE 0 and follows the list, and the
 *    record counts posted WQEs.  The CQE's wqe_counter is the index used.
 *    A cyclic RMP (UCX) keeps the next segment but is used in ring order.
 * A WQE is copied once, like a send WQE, before it is looked at.
 */
#include <endian.h>
#include <string.h>

#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"
#include "prm/prm_cmd.h"

#define ENG_RWQE_MAX 512	/* max_wqe_sz_rq */

static uint16_t eng_dbr_word(const struct emu_fw_buf *dbr, unsigned int i,
			     bool *fault)
{
	uint32_t v = 0;

	*fault = emu_mem_load32((const uint32_t *)(const void *)dbr->addr + i, &v);
	return (uint16_t)be32toh(v);
}

static void eng_rwqe_parse(const uint8_t *raw, unsigned int off,
			   unsigned int end, struct eng_rwqe *r)
{
	r->nsge = 0;
	for (; off + 16 <= end && r->nsge < ENG_MAX_SGE; off += 16) {
		uint32_t bc, lkey;
		uint64_t addr;

		memcpy(&bc, raw + off, 4);
		memcpy(&lkey, raw + off + 4, 4);
		memcpy(&addr, raw + off + 8, 8);
		if (be32toh(lkey) == MLX5_INVALID_LKEY)
			break;
		r->sge[r->nsge].len = be32toh(bc) & 0x7fffffff;
		r->sge[r->nsge].lkey = be32toh(lkey);
		r->sge[r->nsge].addr = be64toh(addr);
		r->nsge++;
	}
}

enum eng_recv_res eng_recv_cyclic(const struct emu_fw_ring *rq,
				  const struct emu_fw_buf *dbr,
				  atomic_uint *counter, struct eng_rwqe *r)
{
	uint32_t ci = atomic_load(counter);
	unsigned int stride = 1u << rq->log_stride;
	uint8_t raw[ENG_RWQE_MAX];
	bool fault;
	uint16_t pi;

	if (!rq->cnt || !dbr->addr)
		return ENG_RECV_NONE;
	pi = eng_dbr_word(dbr, EMU_FW_DBR_RCV, &fault);
	if (fault)
		return ENG_RECV_FAULT;
	if (pi == (uint16_t)ci)
		return ENG_RECV_NONE;
	if (stride > sizeof(raw))
		stride = sizeof(raw);
	if (emu_mem_read(raw, emu_fw_ring_wqe(rq, ci), stride))
		return ENG_RECV_FAULT;
	r->idx = (uint16_t)ci;
	r->srq = NULL;
	eng_rwqe_parse(raw, 0, stride, r);
	atomic_store(counter, ci + 1);
	return ENG_RECV_OK;
}

static enum eng_recv_res eng_recv_rq(struct eng_qp *qp, struct eng_rwqe *r)
{
	return eng_recv_cyclic(&qp->fq->rq, &qp->fq->dbr, &qp->fq->hw.rq_counter,
			       r);
}

static enum eng_recv_res eng_recv_srq(struct emu_fw_srq *srq,
				      struct eng_rwqe *r)
{
	const struct emu_fw_ring *ring = &srq->ring;
	uint32_t cnt = atomic_load(&srq->hw.counter);
	uint32_t head = atomic_load(&srq->hw.head);
	unsigned int stride = 1u << ring->log_stride;
	uint8_t raw[ENG_RWQE_MAX];
	uint16_t pi, next;
	bool fault;

	if (atomic_load(&srq->state) != (srq->kind == EMU_FW_SRQ_RMP ?
					 MLX5_RMPC_STATE_RDY : MLX5_SRQC_STATE_GOOD) ||
	    !ring->cnt)
		return ENG_RECV_NONE;
	pi = eng_dbr_word(&srq->dbr, 0, &fault);
	if (fault)
		return ENG_RECV_FAULT;
	if (pi == (uint16_t)cnt)
		return ENG_RECV_NONE;
	if (stride > sizeof(raw))
		stride = sizeof(raw);
	if (emu_mem_read(raw, emu_fw_ring_wqe(ring, head), stride))
		return ENG_RECV_FAULT;
	memcpy(&next, raw + 2, 2);
	r->idx = (uint16_t)(head & (ring->cnt - 1));
	r->srq = srq;
	eng_rwqe_parse(raw, sizeof(struct mlx5_wqe_srq_next_seg), stride, r);
	/* Cyclic (an RMP as UCX makes it): the next one in the ring. */
	atomic_store(&srq->hw.head, (srq->cyclic ? head + 1u : be16toh(next)) &
				    (ring->cnt - 1));
	atomic_store(&srq->hw.counter, cnt + 1);
	/* Fewer WQEs left than the armed limit: SRQ_RQ_LIMIT, once. */
	if (emu_fw_srq_limit_fire(srq, (uint16_t)(pi - (uint16_t)(cnt + 1))))
		eng_event_queue(eng_dev_of(srq->obj.fw),
				MLX5_EVENT_TYPE_SRQ_RQ_LIMIT, srq->obj.id);
	return ENG_RECV_OK;
}

enum eng_recv_res eng_recv_take(struct eng_qp *qp, struct emu_fw_srq *srq,
				struct eng_rwqe *r)
{
	return srq ? eng_recv_srq(srq, r) : eng_recv_rq(qp, r);
}

void eng_recv_untake(struct eng_qp *qp, const struct eng_rwqe *r)
{
	if (r->srq) {
		atomic_store(&r->srq->hw.head, r->idx);
		atomic_fetch_sub(&r->srq->hw.counter, 1);
	} else {
		atomic_fetch_sub(&qp->fq->hw.rq_counter, 1);
	}
}

unsigned int eng_recv_flush(struct eng_qp *qp)
{
	unsigned int n = 0;
	const struct eng_synd *sy = eng_synd(ENG_SYND_WR_FLUSH);
	struct emu_fw_cq *cq = atomic_load(&qp->fq->cq_rcv);
	struct eng_rwqe r;

	if (qp->fq->rq_type != EMU_FW_RQ_REGULAR || !cq)
		return 0;
	while (n < ENG_PASS_WQES && eng_recv_rq(qp, &r) == ENG_RECV_OK) {
		n++;
		eng_cqe_error(qp, cq, qp->fq->user_index, r.idx, 0, true,
			      sy->syndrome, sy->vendor);
		eng_count(qp, EMU_FW_QCNT_RESP_CQE_FLUSH_ERROR);
	}
	return n;
}
