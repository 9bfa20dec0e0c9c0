/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs at work: receive posting, the operational state that
 * bounds posting, and the op slots of the QP area (creation in
 * qp_create.c, destruction in qp_destroy.c, transitions in qp_modify.c,
 * sending in qp_send.c and qp_wr.c).
 *
 * ibv_post_recv writes receive WQEs and the doorbell record exactly as
 * libmlx5 44 does: one data segment per SGE of non-zero length, a
 * terminating entry with the invalid lkey when the WQE has room, under
 * MLX5_QP_SIGNATURE a signature segment first (its XOR covering the
 * segments, the QPN and the RQ head as the post found it); EINVAL for too
 * many SGEs or a QP not yet in INIT, ENOMEM when the RQ is full.  The work
 * requests before a failing one are posted, then the device is told.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "shell/abi_export.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/sq.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/verbs/wq.h"
#include "provider/mana/mana_prov.h"

void prov_qp_set_operational_state(struct prov_qp *qp, enum ibv_qp_state st)
{
	switch (st) {
	case IBV_QPS_RESET:
		qp->rq.qp_state_max_gs = -1;
		qp->sq.qp_state_max_gs = -1;
		break;
	case IBV_QPS_INIT:
		qp->rq.qp_state_max_gs = qp->rq.max_gs;
		break;
	case IBV_QPS_RTS:
		qp->sq.qp_state_max_gs = qp->sq.max_gs;
		break;
	default:
		break;
	}
	prov_qp_wr_set_state(qp, st);
}

/* ---- posting ---- */

bool prov_wq_overflow(struct prov_wq *wq, unsigned int nreq, struct ibv_cq *ibcq)
{
	struct prov_cq *cq = ibcq ? to_prov_cq(ibcq) : NULL;
	unsigned int cur = wq->head - wq->tail;

	if (cur + nreq < wq->max_post)
		return false;
	if (cq && !cq->single_threaded)
		pthread_spin_lock(&cq->lock);
	cur = wq->head - wq->tail;
	if (cq && !cq->single_threaded)
		pthread_spin_unlock(&cq->lock);
	return cur + nreq >= wq->max_post;
}

/* libmlx5's struct mlx5_rwqe_sig: a receive WQE's first segment under
 * MLX5_QP_SIGNATURE. */
struct rq_sig_seg {
	uint8_t rsvd0[4];
	uint8_t signature;
	uint8_t rsvd1[11];
};

/* set_sig_seg() / set_wq_sig_seg(): the signatures (calc_sig) of @nsge
 * + 1 segments, of the QP or WQ number and of @idx, as the host stores
 * them, XORed. */
static void rq_signature(uint32_t qpn, struct rq_sig_seg *sig, int nsge,
			 uint16_t idx)
{
	uint8_t s = (uint8_t)~prov_xor8(sig, (size_t)(nsge + 1) * 16);

	s ^= (uint8_t)~prov_xor8(&qpn, sizeof(qpn));
	s ^= (uint8_t)~prov_xor8(&idx, sizeof(idx));
	sig->signature = s;
}

void prov_rq_wqe_write(void *wqe, const struct prov_wq *rq, bool wq_sig,
		       uint32_t num, const struct ibv_recv_wr *wr)
{
	struct rq_sig_seg *sig = wqe;
	struct mlx5_wqe_data_seg *scat = wqe;
	int j = 0;

	if (wq_sig) {
		memset(sig, 0, (size_t)1 << rq->wqe_shift);
		++scat;
	}
	for (int i = 0; i < wr->num_sge; ++i) {
		if (!wr->sg_list[i].length)
			continue;
		scat[j].byte_count = htobe32(wr->sg_list[i].length);
		scat[j].lkey = htobe32(wr->sg_list[i].lkey);
		scat[j].addr = htobe64(wr->sg_list[i].addr);
		j++;
	}
	if (j < rq->max_gs) {
		scat[j].byte_count = 0;
		scat[j].lkey = htobe32(PROV_INVALID_LKEY);
		scat[j].addr = 0;
	}
	/* libmlx5 signs every WQE of a post with the head it found. */
	if (wq_sig)
		rq_signature(num, sig, wr->num_sge, rq->head & 0xffff);
}

/* mlx5_post_recv(). */
static int prov_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	struct prov_qp *qp = prov_qp_real(to_prov_qp(ibqp));
	unsigned int ind;
	int err = 0, nreq;

	prov_spin_lock(&qp->rq.lock);
	ind = qp->rq.wqe_cnt ? qp->rq.head & (qp->rq.wqe_cnt - 1) : 0;
	for (nreq = 0; wr; ++nreq, wr = wr->next) {
		if (prov_wq_overflow(&qp->rq, (unsigned int)nreq,
				     qp->vqp.qp.recv_cq)) {
			err = ENOMEM;
			*bad_wr = wr;
			goto out;
		}
		if (wr->num_sge > qp->rq.qp_state_max_gs) {
			err = EINVAL;
			*bad_wr = wr;
			goto out;
		}
		prov_rq_wqe_write((char *)qp->buf.buf + qp->rq.offset +
				  ((size_t)ind << qp->rq.wqe_shift), &qp->rq,
				  qp->wq_sig, qp->vqp.qp.qp_num, wr);
		qp->rq.wrid[ind] = wr->wr_id;
		ind = (ind + 1) & (qp->rq.wqe_cnt - 1);
	}
out:
	if (nreq) {
		qp->rq.head += (unsigned int)nreq;
		/* udma_to_device_barrier(): WQEs before the record.  A raw
		 * packet QP's record waits for RTR (libmlx5: no receives in
		 * states that cannot take them; modify writes it then). */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		if (ibqp->qp_type != IBV_QPT_RAW_PACKET ||
		    ibqp->state >= IBV_QPS_RTR)
			__atomic_store_n(&qp->db[PROV_RCV_DBR],
					 htobe32(qp->rq.head & 0xffff),
					 __ATOMIC_RELEASE);
	}
	prov_spin_unlock(&qp->rq.lock);
	/* Posted work wakes the device (or moves it, without a thread). */
	if (nreq)
		prov_progress(qp->pctx, MLX5BE_PROGRESS_DOORBELL);
	return err;
}

MLX5EMU_ABI(ibv_qp_to_qp_ex);
struct ibv_qp_ex *mlx5emu_abi_ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	/* libmana's QPs are never extended ones (no VERBS_QP_EX) */
	if (qp && prov_mana_is(qp->context))
		return NULL;
	struct prov_verbs_qp *vqp = (struct prov_verbs_qp *)qp;

	if (vqp->comp_mask & PROV_VERBS_QP_EX)
		return &vqp->qp_ex;
	return NULL;
}

void prov_qp_event_reported(struct ibv_qp *ibqp)
{
	prov_wq_event_reported(&ibqp->mutex, &to_prov_qp(ibqp)->events_reported);
}

void prov_qp_set_ops(struct prov_context *pctx)
{
	pctx->vctx.create_qp_ex = prov_create_qp_ex;
	pctx->vctx.open_qp = prov_open_qp;
	pctx->vctx.context.ops.post_send = prov_post_send;
	pctx->vctx.context.ops.post_recv = prov_post_recv;
	prov_srq_set_ops(pctx);
	prov_xrcd_set_ops(pctx);
	prov_wq_set_ops(pctx);
}
