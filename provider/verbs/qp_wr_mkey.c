/* SPDX-License-Identifier: MIT */
/*
 * The mlx5dv_qp_ex ops that give an mkey of mlx5dv_create_mkey its
 * translation, as libmlx5 44 builds them (qp.c mlx5_send_wr_mkey_configure
 * and its setters; mlx5_send_wr_mr_list and mr_interleaved are the same
 * WQE with both setters called at once).
 *
 * One UMR WQE (wc opcode IBV_WC_DRIVER1, imm the mkey): control, UMR
 * control (flags INLINE; mask FREE and MKEY, then the access rights and
 * LEN as the setters add them), mkey context (not free, qpn_mkey
 * 0xffffff00 | key byte, access flags, len), then the translation inline:
 * KLM entries {byte_count, lkey, addr} padded with zeros to a multiple of
 * 4, or a repeat block {byte_count, op 0x400, repeat_count, num_ent} and
 * its entries {stride, byte_count, lkey, va}.  The WQE is complete once
 * the configure's setter count is reached, and the next WQE is fenced.
 *
 * Errors, recorded in the batch (wr_complete returns the first):
 *   EOPNOTSUPP  configure without IBV_SEND_INLINE; conf_flags other than
 *               RESET_SIG_ATTR or a comp_mask; an mkey with a key byte
 *               (update tag not offered)
 *   EINVAL      a setter without a configure; access flags outside local
 *               write and the remote rights; a setter twice; a signature
 *               or crypto setter (the mkeys here have neither)
 *   ENOMEM      more entries than the mkey's num_desc or than the inline
 *               room (max_inline_data) holds; the queue is full
 */
#include <endian.h>
#include <string.h>

#include "prm/prm_cmd.h"
#include "provider/verbs/mkey.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/sq.h"

#define MKEY_MASK_ACCESS                                                      \
	(MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |                       \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |                       \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |                      \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC)

#define MKEY_ACCESS_FLAGS                                                     \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                     \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static struct prov_qp *mkey_qp(struct mlx5dv_qp_ex *dv)
{
	return (struct prov_qp *)((char *)dv - offsetof(struct prov_qp, dv_qp));
}

static struct mlx5_wqe_umr_ctrl_seg *mkey_umr_ctrl(struct prov_qp *qp)
{
	return (struct mlx5_wqe_umr_ctrl_seg *)(qp->wr.ctrl + 1);
}

/* The mkey context: after the UMR control, maybe at the ring's start. */
static struct mlx5_wqe_mkey_context_seg *mkey_ctx(struct prov_qp *qp)
{
	return prov_sq_wrap(qp, mkey_umr_ctrl(qp) + 1);
}

/* A setter done: the WQE ends with the last one (umr_wqe_finalize). */
static void mkey_setter_done(struct prov_qp *qp)
{
	if (++qp->wr.setters < qp->wr.mkey_setters)
		return;
	prov_sq_end(qp, qp->wr.ctrl, qp->wr.size);
	qp->wr.mkey = NULL;
}

static void wr_mkey_configure(struct mlx5dv_qp_ex *dv, struct mlx5dv_mkey *m,
			      uint8_t num_setters,
			      struct mlx5dv_mkey_conf_attr *attr)
{
	struct prov_qp *qp = mkey_qp(dv);
	struct ibv_qp_ex *ex = &qp->vqp.qp_ex;
	struct mlx5_wqe_ctrl_seg *ctrl;
	struct mlx5_wqe_umr_ctrl_seg *uc;
	struct mlx5_wqe_mkey_context_seg *k;

	if (!(ex->wr_flags & IBV_SEND_INLINE) ||
	    (attr->conf_flags & ~(uint64_t)MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR) ||
	    attr->comp_mask) {
		prov_wr_fail(qp, EOPNOTSUPP);
		return;
	}
	ctrl = prov_wr_begin(qp, MLX5_OPCODE_UMR, IBV_WC_DRIVER1);
	if (!ctrl)
		return;
	qp->wr.mkey = to_prov_mkey(m);
	ctrl->imm = htobe32(m->lkey);
	/* The WQE and UMR control segments share the first basic block. */
	uc = mkey_umr_ctrl(qp);
	memset(uc, 0, sizeof(*uc));
	k = mkey_ctx(qp);
	memset(k, 0, sizeof(*k));
	if (m->lkey & 0xff) {
		prov_wr_fail(qp, EOPNOTSUPP);
		return;
	}
	k->qpn_mkey = htobe32(0xffffff00u | (m->lkey & 0xff));
	uc->flags = MLX5_WQE_UMR_CTRL_FLAG_INLINE;
	uc->mkey_mask = htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
				MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY);
	qp->wr.data = prov_sq_wrap(qp, k + 1);
	qp->wr.size = (unsigned int)((sizeof(*ctrl) + sizeof(*uc) +
				      sizeof(*k)) / 16);
	qp->wr.inl = true;
	qp->fm_cache = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	qp->wr.setters = 0;
	qp->wr.mkey_setters = num_setters;
	if (!num_setters)
		mkey_setter_done(qp);
}

static void wr_set_mkey_access_flags(struct mlx5dv_qp_ex *dv,
				     uint32_t access_flags)
{
	struct prov_qp *qp = mkey_qp(dv);
	struct mlx5_wqe_umr_ctrl_seg *uc;

	if (qp->wr.err)
		return;
	if (!qp->wr.mkey || (access_flags & ~(uint32_t)MKEY_ACCESS_FLAGS)) {
		prov_wr_fail(qp, EINVAL);
		return;
	}
	uc = mkey_umr_ctrl(qp);
	if (uc->mkey_mask & htobe64(MKEY_MASK_ACCESS)) {
		prov_wr_fail(qp, EINVAL);	/* set twice */
		return;
	}
	uc->mkey_mask |= htobe64(MKEY_MASK_ACCESS);
	mkey_ctx(qp)->access_flags = prov_umr_access_flags(access_flags);
	mkey_setter_done(qp);
}

/* umr_sg_list_create(): the entries, zeros to a multiple of 4. */
static uint64_t mkey_list(struct prov_qp *qp, uint16_t n,
			  const struct ibv_sge *sge, unsigned int *bytes)
{
	struct mlx5_wqe_data_seg *d = qp->wr.data;
	unsigned int padded = (n + 3u) & ~3u;
	uint64_t len = 0;

	for (unsigned int i = 0; i < padded; i++) {
		d = prov_sq_wrap(qp, d);
		if (i < n) {
			d->byte_count = htobe32(sge[i].length);
			d->lkey = htobe32(sge[i].lkey);
			d->addr = htobe64(sge[i].addr);
			len += sge[i].length;
		} else {
			memset(d, 0, sizeof(*d));
		}
		d++;
	}
	*bytes = padded * sizeof(*d);
	return len;
}

/* umr_strided_seg_create(): the repeat block, its entries, zeros. */
static uint64_t mkey_interleaved(struct prov_qp *qp, uint32_t repeat,
				 uint16_t n,
				 const struct mlx5dv_mr_interleaved *data,
				 unsigned int *bytes)
{
	struct mlx5_wqe_umr_repeat_block_seg *rb = qp->wr.data;
	struct mlx5_wqe_umr_repeat_ent_seg *e = rb->entries;
	unsigned int padded = (n + 1u + 3u) & ~3u;
	uint64_t block = 0;

	rb->op = htobe32(MLX5_UMR_REPEAT_BLOCK_OP);
	rb->reserved = 0;
	rb->num_ent = htobe16(n);
	rb->repeat_count = htobe32(repeat);
	for (unsigned int i = 0; i + 1 < padded; i++) {
		e = prov_sq_wrap(qp, e);
		if (i < n) {
			e->va = htobe64(data[i].addr);
			e->byte_count = htobe16((uint16_t)data[i].bytes_count);
			e->stride = htobe16((uint16_t)(data[i].bytes_count +
						       data[i].bytes_skip));
			e->memkey = htobe32(data[i].lkey);
			block += data[i].bytes_count;
		} else {
			memset(e, 0, sizeof(*e));
		}
		e++;
	}
	rb->byte_count = htobe32((uint32_t)block);
	*bytes = padded * sizeof(*e);
	return block * repeat;
}

/* mlx5_send_wr_set_mkey_layout(): @data NULL for a plain list. */
static void mkey_layout(struct prov_qp *qp, uint32_t repeat, uint16_t n,
			const struct mlx5dv_mr_interleaved *data,
			const struct ibv_sge *sge)
{
	struct mlx5_wqe_umr_ctrl_seg *uc;
	size_t room = (size_t)qp->max_inline_data +
		      sizeof(struct mlx5_wqe_inl_data_seg);
	size_t max;
	unsigned int bytes;
	uint64_t len;

	if (qp->wr.err)
		return;
	if (!qp->wr.mkey) {
		prov_wr_fail(qp, EINVAL);
		return;
	}
	max = data ? room / sizeof(struct mlx5_wqe_umr_repeat_ent_seg) - 1 :
		     room / sizeof(struct mlx5_wqe_data_seg);
	if (max > qp->wr.mkey->num_desc)
		max = qp->wr.mkey->num_desc;
	if (n > max) {
		prov_wr_fail(qp, ENOMEM);
		return;
	}
	uc = mkey_umr_ctrl(qp);
	if (uc->klm_octowords) {
		prov_wr_fail(qp, EINVAL);	/* set twice */
		return;
	}
	len = data ? mkey_interleaved(qp, repeat, n, data, &bytes) :
		     mkey_list(qp, n, sge, &bytes);
	mkey_ctx(qp)->len = htobe64(len);
	uc->mkey_mask |= htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN);
	uc->klm_octowords = htobe16((uint16_t)(bytes / 16));
	qp->wr.size += bytes / 16;
	qp->wr.mkey->length = len;
	mkey_setter_done(qp);
}

static void wr_set_mkey_layout_list(struct mlx5dv_qp_ex *dv, uint16_t num_sges,
				    const struct ibv_sge *sge)
{
	mkey_layout(mkey_qp(dv), 0, num_sges, NULL, sge);
}

static void wr_set_mkey_layout_interleaved(struct mlx5dv_qp_ex *dv,
					   uint32_t repeat_count,
					   uint16_t num_interleaved,
					   const struct mlx5dv_mr_interleaved *data)
{
	mkey_layout(mkey_qp(dv), repeat_count, num_interleaved, data, NULL);
}

static void wr_mr_list(struct mlx5dv_qp_ex *dv, struct mlx5dv_mkey *mkey,
		       uint32_t access_flags, uint16_t num_sges,
		       struct ibv_sge *sge)
{
	struct mlx5dv_mkey_conf_attr attr = { 0 };

	wr_mkey_configure(dv, mkey, 2, &attr);
	wr_set_mkey_access_flags(dv, access_flags);
	wr_set_mkey_layout_list(dv, num_sges, sge);
}

static void wr_mr_interleaved(struct mlx5dv_qp_ex *dv, struct mlx5dv_mkey *mkey,
			      uint32_t access_flags, uint32_t repeat_count,
			      uint16_t num_interleaved,
			      struct mlx5dv_mr_interleaved *data)
{
	struct mlx5dv_mkey_conf_attr attr = { 0 };

	wr_mkey_configure(dv, mkey, 2, &attr);
	wr_set_mkey_access_flags(dv, access_flags);
	wr_set_mkey_layout_interleaved(dv, repeat_count, num_interleaved, data);
}

/* No mkey here has a signature or crypto context. */
static void mkey_no_bsf(struct prov_qp *qp)
{
	if (!qp->wr.err)
		prov_wr_fail(qp, EINVAL);
}

static void wr_set_mkey_sig_block(struct mlx5dv_qp_ex *dv,
				  const struct mlx5dv_sig_block_attr *attr)
{
	(void)attr;
	mkey_no_bsf(mkey_qp(dv));
}

static void wr_set_mkey_crypto(struct mlx5dv_qp_ex *dv,
			       const struct mlx5dv_crypto_attr *attr)
{
	(void)attr;
	mkey_no_bsf(mkey_qp(dv));
}

void prov_qp_wr_mkey_init(struct prov_qp *qp)
{
	struct mlx5dv_qp_ex *dv = &qp->dv_qp;

	dv->wr_mr_interleaved = wr_mr_interleaved;
	dv->wr_mr_list = wr_mr_list;
	dv->wr_mkey_configure = wr_mkey_configure;
	dv->wr_set_mkey_access_flags = wr_set_mkey_access_flags;
	dv->wr_set_mkey_layout_list = wr_set_mkey_layout_list;
	dv->wr_set_mkey_layout_interleaved = wr_set_mkey_layout_interleaved;
	dv->wr_set_mkey_sig_block = wr_set_mkey_sig_block;
	dv->wr_set_mkey_crypto = wr_set_mkey_crypto;
}
