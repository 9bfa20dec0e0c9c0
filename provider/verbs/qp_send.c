/* SPDX-License-Identifier: MIT */
/*
 * ibv_post_send, as libmlx5 44's _mlx5_post_send() builds WQEs:
 *
 *   control      opcode and index, DS count and QPN, fm_ce_se (fence,
 *                signaled or sq_sig_all, solicited), immediate data or the
 *                rkey to invalidate
 *   XRC          the remote SRQ number (every XRC initiator WQE)
 *   RC, XRC      remote address for RDMA; remote address and operands
 *                for atomics
 *   UC           remote address for RDMA writes
 *   UD           the datagram segment: the AH's address vector, remote QPN
 *                (extended AV) and Q_Key
 *   data         one data segment per SGE of non-zero length (8 bytes for
 *                an atomic's), or, with IBV_SEND_INLINE, the SGEs' bytes
 *                after a 4-byte inline header
 *
 * A memory window bind (RC, UC, XRC) is a UMR WQE naming the window by
 * its current rkey in the control segment's imm (prov_sq_bind_segs); a
 * local invalidation is the same with a free mkey context; the WQE after
 * either takes the initiator small fence.  Opcodes a QP type has no
 * segment for are posted as they are: the device judges them, as a
 * ConnectX does.  The work requests before a failing one
 * are posted and the doorbell rung for them; the failing one is not, and
 * *bad_wr names it.  Errors, in libmlx5's order:
 *
 *   EINVAL      an opcode libmlx5 has no WQE opcode for
 *   ENOMEM      the queue is full; more SGEs than the QP takes, or any
 *               WR before the QP reached RTS; inline data past
 *               max_inline_data
 *   EOPNOTSUPP  atomics on RC/XRC when the device does none; a memory
 *               window bind longer than 2 GiB (one KLM's reach)
 *   EINVAL      TSO with data on a QP that is not a raw packet QP, or past
 *               the device's max_tso; a UD WR without an AH (libmlx5
 *               would fault); on a raw packet QP, checksum offload the
 *               device does not do, fewer header bytes than the inline
 *               minimum, a TSO header size out of range
 *
 * A raw packet QP's WQE carries an Ethernet segment after the control
 * segment: the checksum flags, then either TSO's MSS and headers, or the
 * first eth_min_inline bytes of the frame (0 or 18, as the device's
 * wqe_inline_mode asks); the data segments start where those bytes end.
 *
 * The doorbell is rung for the last WQE posted (libmlx5 would use a
 * half-built failed one when the failure came after its control segment).
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "provider/core/bits.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/sq.h"

/* libmlx5's mlx5_ib_opcode[]: the opcodes it builds WQEs for. */
static const uint8_t send_opcode[] = {
	[IBV_WR_RDMA_WRITE] = MLX5_OPCODE_RDMA_WRITE,
	[IBV_WR_RDMA_WRITE_WITH_IMM] = MLX5_OPCODE_RDMA_WRITE_IMM,
	[IBV_WR_SEND] = MLX5_OPCODE_SEND,
	[IBV_WR_SEND_WITH_IMM] = MLX5_OPCODE_SEND_IMM,
	[IBV_WR_RDMA_READ] = MLX5_OPCODE_RDMA_READ,
	[IBV_WR_ATOMIC_CMP_AND_SWP] = MLX5_OPCODE_ATOMIC_CS,
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = MLX5_OPCODE_ATOMIC_FA,
	[IBV_WR_LOCAL_INV] = MLX5_OPCODE_UMR,
	[IBV_WR_BIND_MW] = MLX5_OPCODE_UMR,
	[IBV_WR_SEND_WITH_INV] = MLX5_OPCODE_SEND_INVAL,
	[IBV_WR_TSO] = MLX5_OPCODE_TSO,
	[IBV_WR_DRIVER1] = MLX5_OPCODE_UMR,
};

#define SEND_N_OPCODES (sizeof(send_opcode) / sizeof(send_opcode[0]))

static bool wr_is_atomic(const struct ibv_send_wr *wr)
{
	return wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/* send_ieth(): what the control segment's imm carries. */
static __be32 send_imm(const struct ibv_send_wr *wr)
{
	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return wr->imm_data;
	case IBV_WR_SEND_WITH_INV:
		return htobe32(wr->invalidate_rkey);
	default:
		return 0;
	}
}

/* A WQE being built: where the next segment goes, the units so far, the
 * SGE and offset its data starts at (after a raw packet QP's inline
 * headers), the TSO budget left. */
struct send_wqe {
	struct mlx5_wqe_ctrl_seg *ctrl;
	void *seg;
	unsigned int ds;
	int sg_index;
	size_t sg_offset;
	uint32_t tso_left;
};

static void wqe_add(struct prov_qp *qp, struct send_wqe *w, size_t bytes)
{
	w->seg = prov_sq_wrap(qp, (char *)w->seg + bytes);
	w->ds += (unsigned int)(bytes / 16);
}

/* A bind or local invalidation: the UMR segments (set_bind_wr); the next
 * WQE is fenced even when this one fails, as libmlx5's next_fence is. */
static int send_umr_segs(struct prov_qp *qp, const struct ibv_send_wr *wr,
			 struct send_wqe *w)
{
	unsigned int idx = qp->sq.cur_post & (qp->sq.wqe_cnt - 1);
	struct ibv_mw_bind_info none = { 0 };
	int err;

	qp->fm_cache = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	if (wr->opcode == IBV_WR_BIND_MW) {
		w->ctrl->imm = htobe32(wr->bind_mw.mw->rkey);
		err = prov_sq_bind_segs(qp, &w->seg, &w->ds, wr->bind_mw.mw->type,
					wr->bind_mw.rkey,
					&wr->bind_mw.bind_info);
		qp->sq.wr_data[idx] = IBV_WC_BIND_MW;
	} else {
		w->ctrl->imm = htobe32(wr->invalidate_rkey);
		err = prov_sq_bind_segs(qp, &w->seg, &w->ds, IBV_MW_TYPE_2, 0,
					&none);
		qp->sq.wr_data[idx] = IBV_WC_LOCAL_INV;
	}
	return err;
}

/* The remote address (and atomic operands) of connected QPs; UC (!@rd)
 * takes it for RDMA writes only. */
static int send_connected_segs(struct prov_qp *qp, const struct ibv_send_wr *wr,
			       struct send_wqe *w, bool rd)
{
	switch (wr->opcode) {
	case IBV_WR_RDMA_READ:
		if (!rd)
			return 0;
		/* fallthrough */
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		prov_set_raddr_seg(w->seg, wr->wr.rdma.remote_addr,
				   wr->wr.rdma.rkey);
		wqe_add(qp, w, sizeof(struct mlx5_wqe_raddr_seg));
		return 0;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		if (!rd)
			return 0;
		if (!qp->atomics_enabled)
			return EOPNOTSUPP;
		prov_set_raddr_seg(w->seg, wr->wr.atomic.remote_addr,
				   wr->wr.atomic.rkey);
		wqe_add(qp, w, sizeof(struct mlx5_wqe_raddr_seg));
		prov_set_atomic_seg(w->seg,
				    wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP,
				    wr->wr.atomic.swap, wr->wr.atomic.compare_add);
		wqe_add(qp, w, sizeof(struct mlx5_wqe_atomic_seg));
		return 0;
	case IBV_WR_BIND_MW:
	case IBV_WR_LOCAL_INV:
		return send_umr_segs(qp, wr, w);
	default:
		return 0;
	}
}

/* A raw packet QP's Ethernet segment (qp_eth.c): checksum offload, then
 * TSO's headers or the inline headers the device asks for. */
static int send_eth_segs(struct prov_qp *qp, const struct ibv_send_wr *wr,
			 struct send_wqe *w)
{
	struct mlx5_wqe_eth_seg *eseg = w->seg;
	unsigned int index;
	int err;

	err = prov_eth_seg_init(qp, eseg, wr->send_flags);
	if (err)
		return err;
	if (wr->opcode == IBV_WR_TSO) {
		w->tso_left = qp->max_tso;
		return prov_eth_tso_hdrs(qp, eseg, wr->tso.hdr, wr->tso.hdr_sz,
					 wr->tso.mss, &w->seg, &w->ds);
	}
	err = prov_eth_inline_hdrs(qp, eseg, wr->sg_list, NULL,
				   wr->num_sge < 0 ? 0 : (size_t)wr->num_sge,
				   &index, &w->sg_offset);
	if (err)
		return err;
	w->sg_index = (int)index;
	wqe_add(qp, w, prov_eth_seg_size(qp));
	return 0;
}

/* The segments between the control segment and the data. */
static int send_transport_segs(struct prov_qp *qp, const struct ibv_send_wr *wr,
			       struct send_wqe *w)
{
	switch (qp->vqp.qp.qp_type) {
	case IBV_QPT_XRC_SEND:
		if (wr->opcode != IBV_WR_BIND_MW && wr->opcode != IBV_WR_LOCAL_INV) {
			struct prov_wqe_xrc_seg *xrc = (void *)w->seg;

			xrc->xrc_srqn = htobe32(wr->qp_type.xrc.remote_srqn);
			wqe_add(qp, w, sizeof(*xrc));
		}
		return send_connected_segs(qp, wr, w, true);
	case IBV_QPT_RC:
		return send_connected_segs(qp, wr, w, true);
	case IBV_QPT_UC:
		return send_connected_segs(qp, wr, w, false);
	case IBV_QPT_UD:
		/* libmlx5 would fault on a missing AH. */
		if (!wr->wr.ud.ah)
			return EINVAL;
		prov_set_datagram_seg(w->seg, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				      wr->wr.ud.remote_qkey);
		wqe_add(qp, w, sizeof(struct mlx5_wqe_datagram_seg));
		return 0;
	case IBV_QPT_RAW_PACKET:
		return send_eth_segs(qp, wr, w);
	default:
		return 0;
	}
}

/* set_data_inl_seg(): the SGEs' bytes inline; ENOMEM past the maximum. */
static int send_inline(struct prov_qp *qp, const struct ibv_send_wr *wr,
		       struct send_wqe *w)
{
	char *dst = prov_sq_wrap(qp, (char *)w->seg +
				 sizeof(struct mlx5_wqe_inl_data_seg));
	size_t total = 0, off = w->sg_offset;

	for (int i = w->sg_index; i < wr->num_sge; i++) {
		size_t len = wr->sg_list[i].length - off;

		total += len;
		if (total > (size_t)qp->max_inline_data)
			return ENOMEM;
		dst = prov_sq_copy(qp, dst,
				   (const void *)(uintptr_t)(wr->sg_list[i].addr +
							     off), len);
		off = 0;
	}
	if (total)
		w->ds += prov_close_inline_seg(w->seg, (uint32_t)total);
	return 0;
}

/* One data segment per SGE of non-zero length. */
static int send_gather(struct prov_qp *qp, const struct ibv_send_wr *wr,
		       struct send_wqe *w)
{
	size_t off = w->sg_offset;

	for (int i = w->sg_index; i < wr->num_sge; i++) {
		const struct ibv_sge *sg = &wr->sg_list[i];

		if (!sg->length)
			continue;
		/* TSO's budget is the raw packet QP's (0 elsewhere). */
		if (wr->opcode == IBV_WR_TSO) {
			if (w->tso_left < sg->length)
				return EINVAL;
			w->tso_left -= sg->length;
		}
		prov_set_data_seg(w->seg,
				  wr_is_atomic(wr) ? 8 : sg->length - (uint32_t)off,
				  sg->lkey, sg->addr + off);
		off = 0;
		wqe_add(qp, w, sizeof(struct mlx5_wqe_data_seg));
	}
	return 0;
}

int prov_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct prov_qp *qp = prov_qp_real(to_prov_qp(ibqp));
	struct mlx5_wqe_ctrl_seg *ctrl, *last = NULL;
	unsigned int nreq, last_ds = 0;
	bool inl = false;
	int err = 0;

	prov_spin_lock(&qp->sq.lock);
	for (nreq = 0; wr; ++nreq, wr = wr->next) {
		struct send_wqe w;

		if ((unsigned int)wr->opcode >= SEND_N_OPCODES) {
			err = EINVAL;
			break;
		}
		if (prov_wq_overflow(&qp->sq, nreq, qp->vqp.qp.send_cq)) {
			err = ENOMEM;
			break;
		}
		if (wr->num_sge > qp->sq.qp_state_max_gs) {
			err = ENOMEM;
			break;
		}
		ctrl = prov_sq_begin(qp, nreq, wr->wr_id, wr->send_flags,
				     send_opcode[wr->opcode], 0);
		ctrl->imm = send_imm(wr);
		w.ctrl = ctrl;
		w.seg = ctrl + 1;
		w.ds = sizeof(*ctrl) / 16;
		w.sg_index = 0;
		w.sg_offset = 0;
		w.tso_left = 0;
		err = send_transport_segs(qp, wr, &w);
		if (err)
			break;
		if ((wr->send_flags & IBV_SEND_INLINE) && wr->num_sge) {
			err = send_inline(qp, wr, &w);
			if (err)
				break;
			inl = true;
		} else {
			err = send_gather(qp, wr, &w);
			if (err)
				break;
		}
		prov_sq_end(qp, ctrl, w.ds);
		last = ctrl;
		last_ds = w.ds;
	}
	if (err)
		*bad_wr = wr;
	prov_sq_ring(qp, nreq, inl, last_ds, last);
	prov_spin_unlock(&qp->sq.lock);
	if (nreq)
		prov_progress(qp->pctx, MLX5BE_PROGRESS_DOORBELL);
	return err;
}
