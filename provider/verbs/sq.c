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
		(send_flags & IBV_SEND_FENCE ? MLX5_WQE_CTRL_FENCE : qp->fm_cache) |
		(send_flags & IBV_SEND_SIGNALED ? MLX5_WQE_CTRL_CQ_UPDATE : 0) |
		(send_flags & IBV_SEND_SOLICITED ? MLX5_WQE_CTRL_SOLICITED : 0));
	ctrl->imm = 0;
	qp->fm_cache = 0;
	return ctrl;
}

/* get_klm_octo(): KLM entries in octowords, rounded up to 8 entries. */
static uint16_t sq_klm_octo(unsigned int nentries)
{
	return (uint16_t)(((nentries + 7) & ~7u) / 2);
}

/* set_umr_control_seg(). */
static void sq_umr_ctrl_seg(void *seg, enum ibv_mw_type type,
			    const struct ibv_mw_bind_info *bi)
{
	struct mlx5_wqe_umr_ctrl_seg *c = seg;
	uint64_t mask = MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY;

	memset(c, 0, sizeof(*c));
	c->flags = MLX5_WQE_UMR_CTRL_FLAG_TRNSLATION_OFFSET |
		   MLX5_WQE_UMR_CTRL_FLAG_INLINE;
	if (type == IBV_MW_TYPE_2)
		mask |= MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN;
	if (bi->length) {
		c->klm_octowords = htobe16(sq_klm_octo(1));
		if (type == IBV_MW_TYPE_2)
			c->flags |= MLX5_WQE_UMR_CTRL_FLAG_CHECK_FREE;
		mask |= MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_START_ADDR |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC;
	} else {
		c->klm_octowords = htobe16(sq_klm_octo(0));
		if (type == IBV_MW_TYPE_2)
			c->flags |= MLX5_WQE_UMR_CTRL_FLAG_CHECK_QPN;
	}
	c->mkey_mask = htobe64(mask);
}

uint8_t prov_umr_access_flags(unsigned int acc)
{
	return (uint8_t)(
		(acc & IBV_ACCESS_LOCAL_WRITE ?
		 MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE : 0) |
		(acc & IBV_ACCESS_REMOTE_WRITE ?
		 MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE : 0) |
		(acc & IBV_ACCESS_REMOTE_READ ?
		 MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ : 0) |
		(acc & IBV_ACCESS_REMOTE_ATOMIC ?
		 MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC : 0));
}

/* set_umr_mkey_seg(): the fields libmlx5 writes (the rest of the
 * context is left as the ring held it, as libmlx5 leaves it). */
static void sq_umr_mkey_seg(void *seg, enum ibv_mw_type type, uint32_t rkey,
			    const struct ibv_mw_bind_info *bi, uint32_t qpn)
{
	struct mlx5_wqe_mkey_context_seg *k = seg;
	unsigned int acc = bi->mw_access_flags;

	k->qpn_mkey = htobe32((rkey & 0xff) |
			      (type == IBV_MW_TYPE_1 || !bi->length ?
			       0xffffff00u : qpn << 8));
	if (!bi->length) {
		k->free = MLX5_WQE_MKEY_CONTEXT_FREE;
		return;
	}
	k->free = 0;
	k->access_flags = prov_umr_access_flags(acc);
	k->start_addr = acc & IBV_ACCESS_ZERO_BASED ? 0 : htobe64(bi->addr);
	k->len = htobe64(bi->length);
}

/* set_umr_data_seg(): one KLM, then zeros to 64 bytes. */
static void sq_umr_klm_seg(void *seg, const struct ibv_mw_bind_info *bi)
{
	struct mlx5_wqe_umr_klm_seg *klm = seg;

	memset(klm, 0, PROV_WQE_KLM_PAD_SZ);
	klm->byte_count = htobe32((uint32_t)bi->length);
	klm->mkey = htobe32(bi->mr->lkey);
	klm->address = htobe64(bi->addr);
}

int prov_sq_bind_segs(struct prov_qp *qp, void **seg, unsigned int *ds,
		      enum ibv_mw_type type, uint32_t rkey,
		      const struct ibv_mw_bind_info *bi)
{
	/* A KLM describes at most 2 GiB. */
	if (bi->length > 1ull << 31)
		return EOPNOTSUPP;
	sq_umr_ctrl_seg(*seg, type, bi);
	*seg = prov_sq_wrap(qp, (char *)*seg + PROV_WQE_UMR_CTRL_SZ);
	sq_umr_mkey_seg(*seg, type, rkey, bi, qp->vqp.qp.qp_num);
	*seg = prov_sq_wrap(qp, (char *)*seg + PROV_WQE_MKEY_SZ);
	*ds += (PROV_WQE_UMR_CTRL_SZ + PROV_WQE_MKEY_SZ) / 16;
	if (!bi->length)
		return 0;
	sq_umr_klm_seg(*seg, bi);
	*seg = prov_sq_wrap(qp, (char *)*seg + PROV_WQE_KLM_PAD_SZ);
	*ds += PROV_WQE_KLM_PAD_SZ / 16;
	return 0;
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
