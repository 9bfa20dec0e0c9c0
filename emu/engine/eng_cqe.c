/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_cqe.c -- writing CQEs into the application's CQ ring.
 *
 * CQE n of a CQ of 2^log_size entries sits at n mod size; its owner bit is
 * (n >> log_size) & 1, so the consumer tells a new entry from last lap's.
 * A 128-byte CQE carries the 64-byte CQE in its second half (the first is
 * for data scattered to the CQE, which this device does not advertise).
 * The entry is written with emu_mem_publish: every byte, then the
 * opcode/owner byte last with release ordering.  No valid CQE is all zero:
 * its opcode/owner byte is never 0 for a receive and sop_drop_qpn holds a
 * QP number (those start at 0x100) in every other.
 *
 * Overrun: the consumer counter is the doorbell record's word 0 (24 bits).
 * A CQE that would overwrite one the consumer has not taken is not written;
 * unless the CQ ignores overruns (oi), the CQ enters its error state and
 * raises CQ_ERROR (eng_cq.c), as a ConnectX does, and takes no more CQEs.
 * A CQE written may raise the CQ's completion event (eng_cq.c).
 *
 * A successful CQE carries the time it is written, in its QP's ts_format
 * (emu_fw_clock_stamp: the internal timer, or real time as seconds << 32 |
 * nanoseconds); an error CQE has no timestamp field (mlx5_err_cqe).
 */
#include <endian.h>
#include <string.h>

#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"

static void eng_cqe_fill(const struct emu_fw *fw, uint8_t *e,
			 const struct eng_cqe *c, uint8_t owner)
{
	struct mlx5_cqe64 *q = (struct mlx5_cqe64 *)(void *)e;
	bool se = c->se;

	memset(e, 0, 64);
	q->l4_hdr_type_etc = c->l4_l3;
	q->flags_rqpn = htobe32(c->flags_rqpn);
	q->srqn_uidx = htobe32(c->srqn_uidx & 0xffffff);
	q->imm_inval_pkey = c->imm_inval_pkey;
	q->byte_cnt = htobe32(c->byte_cnt);
	q->sop_drop_qpn = htobe32((uint32_t)c->wqe_opcode << 24 |
				  (c->qpn & 0xffffff));
	q->wqe_counter = htobe16(c->wqe_counter);
	if (c->opcode == MLX5_CQE_REQ_ERR || c->opcode == MLX5_CQE_RESP_ERR) {
		struct mlx5_err_cqe *er = (struct mlx5_err_cqe *)(void *)e;

		er->vendor_err_synd = c->vendor;
		er->syndrome = c->syndrome;
		/* ConnectX dumps show SE set on error CQEs (0xd2, 0xd3), so
		 * solicited-only waiters wake for them. */
		se = true;
	} else {
		/* Stamped as written: a CQE held back is late, and says so. */
		q->timestamp = htobe64(emu_fw_clock_stamp(fw, c->ts_format));
	}
	if (c->eth) {
		/* An Ethernet RQ's CQE: no QP number, the flow tag there. */
		emu_eth_cqe_write(e, &c->eth->info, c->eth->rss,
				  c->eth->stripped, c->eth->tci);
		q->sop_drop_qpn = htobe32(c->eth->flow_tag & 0xffffff);
	}
	q->op_own = (uint8_t)(c->opcode << 4 | (se ? 2 : 0) | owner);
}

int eng_cqe_write(struct emu_fw_cq *cq, const struct eng_cqe *c)
{
	return eng_cqe_write_copy(cq, c, NULL);
}

int eng_cqe_write_copy(struct emu_fw_cq *cq, const struct eng_cqe *c,
		       uint8_t copy[64])
{
	uint32_t pi = atomic_load(&cq->hw.pi);
	uint32_t size = UINT32_C(1) << cq->log_size;
	uint8_t e[64], *slot;
	uint32_t ci;

	if (atomic_load(&cq->hw.error))
		return -ENOSPC;
	if (emu_mem_load32(cq->dbr.addr, &ci))
		return -EFAULT;
	ci = be32toh(ci) & 0xffffff;
	if (((pi - ci) & 0xffffff) >= size && !atomic_load(&cq->oi)) {
		eng_cq_overrun(cq);
		return -ENOSPC;
	}
	eng_cqe_fill(cq->obj.fw, e, c, (uint8_t)((pi >> cq->log_size) & 1));
	slot = cq->buf.addr + (size_t)(pi & (size - 1)) * cq->cqe_size +
	       (cq->cqe_size - 64u);
	eng_cq_cqe_coming(cq);
	if (emu_mem_publish(slot, e, sizeof(e)))
		return -EFAULT;
	if (copy)
		memcpy(copy, e, sizeof(e));
	atomic_store(&cq->hw.pi, pi + 1);
	/* op_own bit 1: solicited (error CQEs always have it). */
	eng_cq_cqe_written(cq, e[63] & 2);
	return 0;
}

void eng_cqe_error(struct eng_qp *qp, struct emu_fw_cq *cq, uint32_t uidx,
		   uint16_t wqe_counter, uint8_t wqe_opcode, bool resp,
		   uint8_t syndrome, uint8_t vendor)
{
	uint32_t qpn = qp->fq->obj.id;
	struct eng_cqe c = {
		.opcode = resp ? MLX5_CQE_RESP_ERR : MLX5_CQE_REQ_ERR,
		.syndrome = syndrome,
		.vendor = vendor,
		.wqe_opcode = wqe_opcode,
		.qpn = qpn,
		.wqe_counter = wqe_counter,
		.srqn_uidx = uidx,
	};

	(void)eng_cqe_qp(qp, cq, &c);
}
