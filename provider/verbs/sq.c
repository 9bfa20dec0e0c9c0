/* SPDX-License-Identifier: MIT */
/*
 * What ibv_post_send and the ibv_wr_* API share (see sq.h): starting and
 * ending a WQE in the ring, copying into it across its end, and ringing
 * the QP's doorbell register the way libmlx5 44's post_send_db() does.
 *
 * The register is an ordinary shared page the device model reads; stores
 * to it are single atomic 64-bit writes, as mmio_write64_be and the
 * BlueFlame copy's 64-byte blocks are on the bus, so a reader never sees
 * half of one.
 */
#include <endian.h>
#include <pthread.h>
#include <string.h>

#include "provider/core/context.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/sq.h"

struct mlx5_wqe_ctrl_seg *prov_sq_begin(struct prov_qp *qp, unsigned int nreq,
					uint64_t wr_id, unsigned int send_flags,
					uint8_t opcode, uint32_t wc_opcode)
{
	unsigned int idx = qp->sq.cur_post & (qp->sq.wqe_cnt - 1);
	struct mlx5_wqe_ctrl_seg *ctrl = prov_sq_wqe(qp, idx);

	qp->sq.wrid[idx] = wr_id;
	qp->sq.wqe_head[idx] = qp->sq.head + nreq;
	qp->sq.wr_data[idx] = wc_opcode;
	ctrl->opmod_idx_opcode = htobe32((qp->sq.cur_post & 0xffff) << 8 | opcode);
	ctrl->signature = 0;
	ctrl->dci_stream_channel_id = 0;
	ctrl->fm_ce_se = (uint8_t)(qp->sq_signal_bits |
		(send_flags & IBV_SEND_FENCE ? MLX5_WQE_CTRL_FENCE : 0) |
		(send_flags & IBV_SEND_SIGNALED ? MLX5_WQE_CTRL_CQ_UPDATE : 0) |
		(send_flags & IBV_SEND_SOLICITED ? MLX5_WQE_CTRL_SOLICITED : 0));
	ctrl->imm = 0;
	return ctrl;
}

/* calc_sig() of the WQE, read across the end of the ring. */
static uint8_t sq_signature(const struct prov_qp *qp,
			    const struct mlx5_wqe_ctrl_seg *ctrl, unsigned int ds)
{
	size_t len = (size_t)ds * 16;
	size_t room = (size_t)((const char *)qp->sq_end - (const char *)ctrl);
	uint8_t x;

	if (len <= room)
		return (uint8_t)~prov_xor8(ctrl, len);
	x = prov_xor8(ctrl, room) ^ prov_xor8(qp->sq_start, len - room);
	return (uint8_t)~x;
}

void prov_sq_commit(struct prov_qp *qp, struct mlx5_wqe_ctrl_seg *ctrl,
		    unsigned int ds)
{
	if (qp->wq_sig)
		ctrl->signature = sq_signature(qp, ctrl, ds);
	qp->sq.cur_post += (ds * 16 + PROV_SEND_WQE_BB - 1) / PROV_SEND_WQE_BB;
}

void prov_sq_end(struct prov_qp *qp, struct mlx5_wqe_ctrl_seg *ctrl,
		 unsigned int ds)
{
	ctrl->qpn_ds = htobe32(ds | qp->vqp.qp.qp_num << 8);
	prov_sq_commit(qp, ctrl, ds);
}

void *prov_sq_copy(struct prov_qp *qp, void *dst, const void *src, size_t len)
{
	size_t room = (size_t)((char *)qp->sq_end - (char *)dst);

	if (len > room) {
		memcpy(dst, src, room);
		src = (const char *)src + room;
		len -= room;
		dst = qp->sq_start;
	}
	memcpy(dst, src, len);
	return prov_sq_wrap(qp, (char *)dst + len);
}

static void reg_write64(void *reg, uint64_t v)
{
	__atomic_store_n((uint64_t *)reg, v, __ATOMIC_RELAXED);
}

/* mlx5_bf_copy(): the WQE into the register in 64-byte blocks, the source
 * going on at the ring's start past its end. */
static void sq_bf_copy(struct prov_qp *qp, char *reg,
		       const struct mlx5_wqe_ctrl_seg *ctrl, unsigned int bytes)
{
	const char *src = (const char *)ctrl;

	for (unsigned int off = 0; off < bytes; off += PROV_SEND_WQE_BB) {
		for (unsigned int i = 0; i < PROV_SEND_WQE_BB; i += 8) {
			uint64_t v;

			memcpy(&v, src + i, sizeof(v));
			reg_write64(reg + off + i, v);
		}
		src = prov_sq_wrap(qp, (char *)src + PROV_SEND_WQE_BB);
	}
}

void prov_sq_ring(struct prov_qp *qp, unsigned int nreq, bool inl,
		  unsigned int ds, struct mlx5_wqe_ctrl_seg *ctrl)
{
	struct prov_qp_ctx *qc = qp->pctx->qp_ctx;
	struct prov_qp_bf *bf = qp->bf;
	char *reg;

	if (!nreq)
		return;
	qp->sq.head += nreq;
	/* udma_to_device_barrier(): the WQEs before the record. */
	__atomic_store_n(&qp->db[PROV_SND_DBR], htobe32(qp->sq.cur_post & 0xffff),
			 __ATOMIC_RELEASE);
	if (bf->need_lock)
		pthread_spin_lock(&bf->lock);
	/* mmio_wc_start(): the record before the register. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	reg = (char *)bf->reg + bf->offset;
	if (!qc->shut_up_bf && nreq == 1 && bf->buf_size &&
	    (inl || qc->prefer_bf) && ds > 1 && ds <= bf->buf_size / 16)
		sq_bf_copy(qp, reg, ctrl, (ds * 16 + 63) & ~63u);
	else {
		uint64_t v;

		memcpy(&v, ctrl, sizeof(v));
		reg_write64(reg, v);
	}
	/* mmio_flush_writes(), then the other half for the next write. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	bf->offset ^= bf->buf_size;
	if (bf->need_lock)
		pthread_spin_unlock(&bf->lock);
}
