/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs at work: receive posting, the operational state that
 * bounds it, and the op slots of the QP area (creation in qp_create.c,
 * destruction in qp_destroy.c, transitions in qp_modify.c).
 *
 * ibv_post_recv writes receive WQEs and the doorbell record exactly as
 * libmlx5 does (EINVAL for too many SGEs or a QP in RESET, ENOMEM when
 * the RQ is full).  ibv_post_send returns EOPNOTSUPP (rdma-core's answer
 * for a missing op): building and executing send WQEs is the next step;
 * applications that write their own WQEs use mlx5dv_init_obj.
 */
#include <endian.h>
#include <errno.h>

#include "shell/abi_export.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/verbs_ctx.h"

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
}

/* ---- posting ---- */

static bool qp_rq_overflow(struct prov_qp *qp, int nreq)
{
	struct prov_cq *cq;
	unsigned int cur = qp->rq.head - qp->rq.tail;

	if (cur + (unsigned int)nreq < qp->rq.max_post)
		return false;
	cq = qp->vqp.qp.recv_cq ? to_prov_cq(qp->vqp.qp.recv_cq) : NULL;
	if (cq && !cq->single_threaded)
		pthread_spin_lock(&cq->lock);
	cur = qp->rq.head - qp->rq.tail;
	if (cq && !cq->single_threaded)
		pthread_spin_unlock(&cq->lock);
	return cur + (unsigned int)nreq >= qp->rq.max_post;
}

/* mlx5_post_recv(). */
static int prov_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	struct prov_qp *qp = prov_qp_real(to_prov_qp(ibqp));
	struct mlx5_wqe_data_seg *scat;
	unsigned int ind;
	int err = 0, nreq;

	pthread_spin_lock(&qp->rq.lock);
	ind = qp->rq.wqe_cnt ? qp->rq.head & (qp->rq.wqe_cnt - 1) : 0;
	for (nreq = 0; wr; ++nreq, wr = wr->next) {
		int j = 0;

		if (qp_rq_overflow(qp, nreq)) {
			err = ENOMEM;
			*bad_wr = wr;
			goto out;
		}
		if (wr->num_sge > qp->rq.qp_state_max_gs) {
			err = EINVAL;
			*bad_wr = wr;
			goto out;
		}
		scat = (struct mlx5_wqe_data_seg *)((char *)qp->buf.buf +
			qp->rq.offset + ((size_t)ind << qp->rq.wqe_shift));
		if (qp->wq_sig) {
			memset(scat, 0, (size_t)1 << qp->rq.wqe_shift);
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
		if (j < qp->rq.max_gs) {
			scat[j].byte_count = 0;
			scat[j].lkey = htobe32(PROV_INVALID_LKEY);
			scat[j].addr = 0;
		}
		qp->rq.wrid[ind] = wr->wr_id;
		ind = (ind + 1) & (qp->rq.wqe_cnt - 1);
	}
out:
	if (nreq) {
		qp->rq.head += (unsigned int)nreq;
		/* udma_to_device_barrier(): WQEs before the record. */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&qp->db[PROV_RCV_DBR],
				 htobe32(qp->rq.head & 0xffff), __ATOMIC_RELEASE);
	}
	pthread_spin_unlock(&qp->rq.lock);
	/* Posted work wakes the device (or moves it, without a thread). */
	if (nreq)
		prov_progress(qp->pctx, MLX5BE_PROGRESS_DOORBELL);
	return err;
}

/* The provider builds no send WQEs: rdma-core's answer for a missing op,
 * with the whole list unposted. */
static int prov_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad_wr)
{
	(void)ibqp;
	if (bad_wr)
		*bad_wr = wr;
	return EOPNOTSUPP;
}

MLX5EMU_ABI(ibv_qp_to_qp_ex);
struct ibv_qp_ex *mlx5emu_abi_ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
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
}
