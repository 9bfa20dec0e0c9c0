/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_wqe.c -- reading a send WQE once and parsing it.
 *
 * The application owns its ring and may rewrite it at any time, so a WQE
 * is copied into engine memory (its control segment first, for the DS
 * count, then every basic block it spans, wrapping the ring) and only the
 * copy is validated and executed.  Nothing in the copy is trusted: the DS
 * count, the segment layout its opcode and QP type call for, inline
 * lengths and scatter counts are all checked; a WQE that fails is a local
 * QP operation error on its QP alone.
 *
 * Layouts (PRM "send WQE"; libmlx5 qp.c builds the same): control (16)
 * [XRC (16), XRC QPs] [datagram (48), UD] [remote address (16)] [atomic
 * (16, masked forms 32)] then data segments (16 each) or one inline
 * segment (4-byte header with MLX5_INLINE_SEG, data, padding).  A UMR
 * (memory window bind or invalidation, libmlx5 set_bind_wr; an mkey's
 * translation list, libmlx5 mlx5dv_wr_mr_list and its kin) is control,
 * UMR control (48), mkey context (64) and klm_octowords 16-byte
 * translation octowords inline, with no XRC segment on XRC QPs.
 */
#include <endian.h>
#include <string.h>

#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"

#define ENG_XRC_SEG 16
#define ENG_DGRAM_SEG 48

static uint32_t eng_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint64_t eng_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

/* Copy the blocks [idx, idx + nbb) of the SQ (wrapping) into raw. */
static int eng_wqe_copy(const struct emu_fw_ring *sq, uint16_t idx,
			unsigned int from, unsigned int nbb, uint8_t *raw)
{
	for (unsigned int i = from; i < nbb; i++)
		if (emu_mem_read(raw + i * MLX5_SEND_WQE_BB,
				 emu_fw_ring_wqe(sq, (uint16_t)(idx + i)),
				 MLX5_SEND_WQE_BB))
			return -EFAULT;
	return 0;
}

enum eng_wqe_res eng_wqe_data(struct eng_wqe *w, unsigned int off,
			      unsigned int end)
{
	uint64_t total = 0;

	w->nsge = 0;
	w->inl = false;
	if (off == end)
		return ENG_WQE_OK;
	if (end - off >= 4 && (eng_be32(w->raw + off) & MLX5_INLINE_SEG)) {
		uint32_t len = eng_be32(w->raw + off) & ~MLX5_INLINE_SEG;

		if (len > end - off - 4)
			return ENG_WQE_BAD;
		w->inl = true;
		w->inl_data = w->raw + off + 4;
		w->len = len;
		return ENG_WQE_OK;
	}
	if ((end - off) % sizeof(struct mlx5_wqe_data_seg))
		return ENG_WQE_BAD;
	for (; off < end; off += sizeof(struct mlx5_wqe_data_seg)) {
		const uint8_t *d = w->raw + off;
		uint32_t len = eng_be32(d) & 0x7fffffff;

		/* A zero byte count adds nothing (libmlx5 never writes one). */
		if (!len)
			continue;
		if (w->nsge == ENG_MAX_SGE)
			return ENG_WQE_BAD;
		w->sge[w->nsge].len = len;
		w->sge[w->nsge].lkey = eng_be32(d + 4);
		w->sge[w->nsge].addr = eng_be64(d + 8);
		w->nsge++;
		total += len;
	}
	if (total > 0x80000000ull)
		return ENG_WQE_BAD;
	w->len = (uint32_t)total;
	return ENG_WQE_OK;
}

/* The UMR mask bits that name rights, and the rights they name. */
static const struct {
	uint64_t mask;
	uint8_t ctx;		/* mkey context access_flags bit */
	unsigned int right;	/* EMU_FW_MKEY_* */
} eng_umr_rights[] = {
	{ MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE,
	  MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE, EMU_FW_MKEY_LW },
	{ MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ,
	  MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ, EMU_FW_MKEY_RR },
	{ MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE,
	  MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE, EMU_FW_MKEY_RW },
	{ MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC,
	  MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC, EMU_FW_MKEY_A },
};

/* What the mask may name here: no signature or BSF. */
#define ENG_UMR_MASK_KNOWN                                                    \
	(MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN | MLX5_WQE_UMR_CTRL_MKEY_MASK_START_ADDR | \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY | MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN |    \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |                        \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |                        \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |                       \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC |                             \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE)

/* UMR control, mkey context and the inline KLMs into w->umr. */
static enum eng_wqe_res eng_wqe_umr(struct eng_wqe *w, unsigned int off,
				    unsigned int end)
{
	const struct mlx5_wqe_umr_ctrl_seg *c =
		(const void *)(w->raw + off);
	const struct mlx5_wqe_mkey_context_seg *k;
	struct emu_fw_umr *u = &w->umr;
	uint64_t mask;
	uint32_t qpn_mkey;

	if (off + sizeof(*c) + sizeof(*k) > end)
		return ENG_WQE_BAD;
	k = (const void *)(w->raw + off + sizeof(*c));
	mask = be64toh(c->mkey_mask);
	memset(u, 0, sizeof(*u));
	u->klm_octowords = be16toh(c->klm_octowords);
	/* KLMs by pointer, a translation offset, signature: not offered. */
	if ((u->klm_octowords && !(c->flags & MLX5_WQE_UMR_CTRL_FLAG_INLINE)) ||
	    c->translation_offset || (mask & ~(uint64_t)ENG_UMR_MASK_KNOWN) ||
	    off + sizeof(*c) + sizeof(*k) + u->klm_octowords * 16u != end)
		return ENG_WQE_BAD;
	u->mkey = be32toh(w->imm);
	u->check_free = c->flags & MLX5_WQE_UMR_CTRL_FLAG_CHECK_FREE;
	u->check_qpn = c->flags & MLX5_WQE_UMR_CTRL_FLAG_CHECK_QPN;
	u->set_free = mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE;
	u->set_key = mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY;
	u->set_qpn = mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN;
	u->set_start = mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_START_ADDR;
	u->set_len = mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN;
	u->free = k->free & MLX5_WQE_MKEY_CONTEXT_FREE;
	for (unsigned int i = 0; i < sizeof(eng_umr_rights) /
					 sizeof(eng_umr_rights[0]); i++) {
		if (mask & eng_umr_rights[i].mask)
			u->set_access |= eng_umr_rights[i].right;
		if (k->access_flags & eng_umr_rights[i].ctx)
			u->access |= eng_umr_rights[i].right;
	}
	qpn_mkey = be32toh(k->qpn_mkey);
	u->qpn = qpn_mkey >> 8;
	u->key = (uint8_t)qpn_mkey;
	u->start_addr = be64toh(k->start_addr);
	u->len = be64toh(k->len);
	if (u->klm_octowords) {
		const uint8_t *e = w->raw + off + sizeof(*c) + sizeof(*k);

		u->xlat = e;
		u->klm.bcount = eng_be32(e);
		u->klm.mkey = eng_be32(e + 4);
		u->klm.addr = eng_be64(e + 8);
		/* One region per window: the other entries are padding.  A
		 * UMR without a start address carries a list (the
		 * firmware reads it). */
		for (unsigned int i = 1; u->set_start && i < u->klm_octowords;
		     i++)
			if (eng_be32(e + i * 16u))
				return ENG_WQE_BAD;
	}
	return ENG_WQE_OK;
}

/* Walk the segments the opcode and the QP type call for. */
static enum eng_wqe_res eng_wqe_parse(struct eng_qp *qp, struct eng_wqe *w)
{
	const struct eng_opcode_info *oi = eng_opcode(w->opcode);
	unsigned int off = sizeof(struct mlx5_wqe_ctrl_seg);
	unsigned int end = w->ds * 16u;

	if (!oi)
		return ENG_WQE_BAD;
	if (oi->segs & ENG_SEG_UMR)
		return eng_wqe_umr(w, off, end);
	if (qp->fq->st == MLX5_QPC_ST_XRC) {
		if (off + ENG_XRC_SEG > end)
			return ENG_WQE_BAD;
		w->xrc_srqn = eng_be32(w->raw + off) & 0xffffff;
		off += ENG_XRC_SEG;
	}
	/* UD, and a DCI: the address (PRM datagram segment) comes first. */
	if (qp->fq->st == MLX5_QPC_ST_UD || qp->fq->st == MLX5_QPC_ST_DCI) {
		if (off + ENG_DGRAM_SEG > end)
			return ENG_WQE_BAD;
		w->av = (const struct mlx5_wqe_av *)(const void *)(w->raw + off);
		off += ENG_DGRAM_SEG;
	}
	if (oi->segs & ENG_SEG_RADDR) {
		if (off + sizeof(struct mlx5_wqe_raddr_seg) > end)
			return ENG_WQE_BAD;
		w->raddr = eng_be64(w->raw + off);
		w->rkey = eng_be32(w->raw + off + 8);
		off += sizeof(struct mlx5_wqe_raddr_seg);
	}
	if (oi->segs & ENG_SEG_ATOMIC) {
		unsigned int n = oi->segs & ENG_SEG_MASKED ? 32 : 16;

		if (off + n > end)
			return ENG_WQE_BAD;
		w->swap_add = eng_be64(w->raw + off);
		w->compare = eng_be64(w->raw + off + 8);
		off += n;
		/* The original value needs somewhere to go. */
		if (off == end)
			return ENG_WQE_BAD;
	}
	if (!(oi->segs & ENG_SEG_DATA))
		return off == end || w->opcode == MLX5_OPCODE_NOP ?
		       ENG_WQE_OK : ENG_WQE_BAD;
	return eng_wqe_data(w, off, end);
}

enum eng_wqe_res eng_wqe_fetch(const struct emu_fw_ring *sq, uint16_t idx,
			       struct eng_wqe *w)
{
	const uint8_t *c = w->raw;

	w->len = 0;
	w->nsge = 0;
	w->av = NULL;
	w->inl = false;
	w->xrc_srqn = 0;
	if (eng_wqe_copy(sq, idx, 0, 1, w->raw))
		return ENG_WQE_FAULT;
	w->idx = idx;
	w->opcode = c[3];
	w->opmod = c[0];
	w->ds = c[7] & 0x3f;
	w->fm_ce_se = c[11];
	memcpy(&w->imm, c + 12, 4);
	w->nbb = (uint8_t)((w->ds * 16u + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB);
	if (!w->ds) {
		w->nbb = 1;
		return ENG_WQE_BAD;
	}
	if (w->ds * 16u > ENG_WQE_MAX || w->nbb > sq->cnt)
		return ENG_WQE_BAD;
	if (eng_wqe_copy(sq, idx, 1, w->nbb, w->raw))
		return ENG_WQE_FAULT;
	return ENG_WQE_OK;
}

enum eng_wqe_res eng_wqe_read(struct eng_qp *qp, uint16_t idx,
			      struct eng_wqe *w)
{
	enum eng_wqe_res res = eng_wqe_fetch(&qp->fq->sq, idx, w);

	return res == ENG_WQE_OK ? eng_wqe_parse(qp, w) : res;
}
