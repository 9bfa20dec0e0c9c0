/* SPDX-License-Identifier: MIT */
/*
 * ibv_destroy_qp, as libibverbs 44 and the upstream kernel
 * (destroy_qp_common) behave: 0, or the errno; the QP returns to RESET
 * first if it was not there, its PD/CQ/SRQ/XRCD uses are released and,
 * as libibverbs does, destroy waits until every async event the
 * application read for it is acknowledged.  An XRC target QP lives while
 * any handle (the creator's or one from ibv_open_qp) names it.
 */
#include <errno.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/events.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/verbs/wq.h"
#include "provider/mana/mana_prov.h"

void prov_qp_drop_uses(struct prov_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;

	if (ibqp->qp_type == IBV_QPT_XRC_RECV) {
		if (qp->xshared)
			prov_xrcd_shared_put(qp->pctx, qp->xshared);
		return;
	}
	if (qp->rss_ind)
		prov_rwq_ind_hold(qp->rss_ind, -1);
	if (ibqp->srq)
		prov_srq_unuse(ibqp->srq);
	if (ibqp->recv_cq && ibqp->qp_type != IBV_QPT_XRC_SEND)
		prov_cq_unuse(ibqp->recv_cq);
	if (ibqp->send_cq)
		prov_cq_unuse(ibqp->send_cq);
	if (ibqp->pd) {
		prov_pd_parent_release(ibqp->pd);
		prov_pd_unuse(ibqp->pd);
	}
}

/* Waits, as libibverbs' destroy does, for the acks of read events. */
static void qp_wait_events(struct prov_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;

	prov_wq_wait_events(&ibqp->mutex, &ibqp->cond, &ibqp->events_completed,
			    &qp->events_reported);
}

/* destroy_qp_common() on a real QP: to RESET, then DESTROY_QP. */
static int qp_destroy_hw(struct prov_qp *qp)
{
	struct prov_context *pctx = qp->pctx;

	/* A raw packet QP's queues to RST first (a failure is only
	 * logged), then its objects; an RSS QP has its TIR alone. */
	if (qp->raw.tis || qp->raw.sq || qp->raw.rq || qp->raw.tir) {
		if (!qp->raw.rss && qp->kstate != IBV_QPS_RESET)
			(void)prov_qp_raw_modify(qp, MLX5_CMD_OP_2RST_QP, 0);
		qp->kstate = IBV_QPS_RESET;
		prov_qp_raw_destroy(qp);
		return 0;
	}
	if (!qp->obj)
		return 0;
	if (qp->dc != PROV_QP_DCT && qp->kstate != IBV_QPS_RESET) {
		uint8_t in[PRM_ST_SZ_BYTES(qp_2rst_in)] = { 0 };
		uint8_t out[PRM_ST_SZ_BYTES(qp_2rst_out)] = { 0 };

		PRM_SET(qp_2rst_in, in, opcode, MLX5_CMD_OP_2RST_QP);
		PRM_SET(qp_2rst_in, in, qpn, qp->vqp.qp.qp_num);
		/* A failure is only logged by mlx5_ib. */
		(void)pctx->be->obj_modify(qp->obj, in, sizeof(in), out,
					   sizeof(out));
		qp->kstate = IBV_QPS_RESET;
	}
	return prov_obj_destroy(pctx, qp->obj);
}

/* The last handle of a real QP is gone: its firmware object and memory. */
static int qp_release_real(struct prov_qp *qp)
{
	struct prov_context *pctx = qp->pctx;
	int err;

	err = qp_destroy_hw(qp);
	if (err)
		return err;
	/* destroy_qp_common: unread events go. */
	prov_ev_unregister(pctx, &qp->ev);
	qp->obj = NULL;
	if (qp->xshared)
		prov_xrcd_del_tgt(qp->xshared, pctx->qp_ctx, qp);
	if (qp->has_uidx)
		prov_rsc_clear(pctx, qp->uidx);
	prov_qp_drop_uses(qp);
	prov_qp_bf_put(pctx, qp->bf);
	prov_qp_free_mem(qp);
	return 0;
}

/* One handle less on a real XRC target QP; the last one destroys it. */
static void qp_put_real(struct prov_qp *real)
{
	if (atomic_fetch_sub(&real->refs, 1) != 1)
		return;
	(void)qp_release_real(real);
	prov_qp_free(real);
}

MLX5EMU_ABI(ibv_destroy_qp);
int mlx5emu_abi_ibv_destroy_qp(struct ibv_qp *ibqp)
{
	if (ibqp && prov_mana_is(ibqp->context))
		return prov_mana_destroy_qp(ibqp);
	struct prov_qp *qp;
	int err;

	if (!ibqp) {
		errno = EINVAL;
		return EINVAL;
	}
	qp = to_prov_qp(ibqp);
	if (qp->real) {
		/* A handle from ibv_open_qp (__ib_destroy_shared_qp). */
		qp_wait_events(qp);
		prov_xrcd_handle_put(qp->xrcd);
		qp_put_real(qp->real);
		prov_qp_free(qp);
		return 0;
	}
	if (ibqp->qp_type == IBV_QPT_XRC_RECV) {
		/* The creator's handle; other handles keep the QP. */
		qp_wait_events(qp);
		prov_xrcd_handle_put(qp->xrcd);
		qp->xrcd = NULL;
		qp_put_real(qp);
		return 0;
	}
	err = qp_release_real(qp);
	if (err) {
		errno = err;
		return err;
	}
	qp_wait_events(qp);
	prov_qp_free(qp);
	return 0;
}
