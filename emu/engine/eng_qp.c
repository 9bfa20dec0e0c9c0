/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_qp.c -- which QPs the engine looks at.
 *
 * The firmware tells the engine when a QP changes state or starts dying
 * (qp_changed, with no firmware lock held).  Under the run lock the engine
 * then looks at the QP's current state, so the order in which concurrent
 * commands report does not matter: a QP out of RST and alive is attached
 * (it holds a reference and the firmware QP points at its engine state), a
 * QP in RST or dying is detached.  Taking the run lock here is also what
 * makes a DESTROY_QP or 2RST wait for a pass that was using the QP.
 */
#include <stdlib.h>
#include <string.h>

#include "emu/engine/eng_int.h"

/* The engine state hangs off the firmware QP (run lock). */
struct eng_qp *eng_qp_of(struct emu_fw_qp *fq)
{
	return fq->engine;
}

static bool eng_qp_wants(struct emu_fw_qp *fq)
{
	return fq->kind == EMU_FW_QP_KIND_QP &&
	       atomic_load(&fq->obj.users) >= 0 &&
	       emu_fw_qp_state(fq) != MLX5_QPC_STATE_RST;
}

static void eng_qp_attach(struct eng *e, struct eng_dev *dev,
			  struct emu_fw_qp *fq)
{
	struct eng_qp *qp = calloc(1, sizeof(*qp));
	struct emu_fw_obj *ref;

	if (!qp)
		return;		/* the QP does no work; nothing else breaks */
	ref = emu_fw_obj_get(dev->fw, EMU_FW_OBJ_QP, fq->obj.id);
	if (ref != &fq->obj) {
		if (ref)
			emu_fw_obj_put(ref);
		free(qp);
		return;
	}
	/* The window holds at most what the SQ holds, and 1024 WQEs. */
	qp->win_cap = 1;
	while (qp->win_cap < fq->sq.cnt && qp->win_cap < ENG_WIN_MAX)
		qp->win_cap <<= 1;
	qp->win = calloc(qp->win_cap, sizeof(*qp->win));
	if (!qp->win) {
		emu_fw_obj_put(ref);
		free(qp);
		return;
	}
	qp->cur_at = qp->rd_at = -1;
	qp->dev = dev;
	qp->fq = fq;
	qp->gen = ~0u;
	qp->route_gen = ~0u;
	qp->sq_ci = (uint16_t)atomic_load(&fq->hw.sq_wqebb_counter);
	qp->sq_pi = qp->sq_ci;
	fq->engine = qp;
	cds_list_add_tail(&qp->node, &e->qps);
	eng_qp_refresh(qp);
}

static void eng_qp_detach(struct eng_qp *qp)
{
	if (qp->dc_conn) {
		eng_dc_conn_free(qp);
		return;
	}
	eng_stats_qp(qp);
	eng_resp_forget_acks(&eng_g, qp);
	eng_dp_qp_free(qp);
	cds_list_del(&qp->node);
	qp->fq->engine = NULL;
	emu_fw_obj_put(&qp->fq->obj);
	free(qp->win);
	free(qp);
}

void eng_qp_changed(void *arg, struct emu_fw_qp *fq)
{
	struct eng_dev *dev = arg;
	struct eng *e = &eng_g;
	struct eng_qp *qp;

	pthread_mutex_lock(&e->run);
	qp = eng_qp_of(fq);
	if (eng_qp_wants(fq)) {
		if (!qp)
			eng_qp_attach(e, dev, fq);
		else
			qp->hinted = true;	/* look at it first */
		qp = eng_qp_of(fq);
		/* A command moved it to ERR (2ERR, also through DEVX). */
		if (qp && emu_fw_qp_state(fq) == MLX5_QPC_STATE_ERR)
			eng_qp_entered_err(qp);
	} else if (qp) {
		eng_qp_detach(qp);
		/* A reset forgets the engine's progress (the command cleared
		 * it before it changed the state, without the run lock): a
		 * pass that was still flushing or completing its WQEs may
		 * have added to it since.  No pass reaches it now; the next
		 * attach starts where these say. */
		if (emu_fw_qp_state(fq) == MLX5_QPC_STATE_RST) {
			atomic_store(&fq->hw.sq_wqebb_counter, 0);
			atomic_store(&fq->hw.rq_counter, 0);
		}
	}
	/* A DCT going: the connections it answers through. */
	if (fq->kind == EMU_FW_QP_KIND_DCT && atomic_load(&fq->obj.users) < 0)
		eng_dc_dct_gone(e, fq);
	pthread_mutex_unlock(&e->run);
	/* A QP that just reached RTS (or ERR) may have work already. */
	emu_eng_progress(EMU_ENG_WHY_DOORBELL);
}

void eng_qp_detach_all(struct eng *e, struct eng_dev *dev)
{
	struct eng_qp *qp, *tmp;

	cds_list_for_each_entry_safe(qp, tmp, &e->qps, node)
		if (qp->dev == dev)
			eng_qp_detach(qp);
}

/*
 * Take in what the last transitions changed: the attributes (copied only
 * when the generation moved) and the state.  Leaving ERR or entering RTS
 * restarts the requester.  Returns whether the QP is in a state that does
 * work (RTR, RTS, SQD, SQER, ERR).
 */
bool eng_qp_refresh(struct eng_qp *qp)
{
	unsigned int gen = atomic_load_explicit(&qp->fq->gen,
						memory_order_acquire);
	unsigned int st;

	if (gen != qp->gen) {
		emu_fw_qp_get_attr(qp->fq, &qp->attr, &qp->gen);
		st = emu_fw_qp_state(qp->fq);
		qp->state = st;
		qp->rnr_left = qp->attr.rnr_retry;
		qp->retry_left = qp->attr.retry_count;
	}
	qp->state = emu_fw_qp_state(qp->fq);
	return qp->state != MLX5_QPC_STATE_RST &&
	       qp->state != MLX5_QPC_STATE_INIT;
}

void eng_qp_to_sqe(struct eng_qp *qp)
{
	/* IBA 10.3.1.5: a send error of an unreliable QP stops its send
	 * queue only; receives go on. */
	if (emu_fw_qp_set_state(qp->fq, MLX5_QPC_STATE_SQER)) {
		eng_qp_to_err(qp);
		return;
	}
	qp->state = MLX5_QPC_STATE_SQER;
}

void eng_qp_entered_err(struct eng_qp *qp)
{
	/* IBA 11.6.3.1 Last WQE Reached: a QP on an SRQ in the error state
	 * takes no more WQEs from it.  Once per stay in ERR. */
	if (qp->last_wqe || !atomic_load(&qp->fq->srq) || qp->dc_conn)
		return;
	qp->last_wqe = true;
	eng_event_queue(qp->dev, MLX5_EVENT_TYPE_SRQ_LAST_WQE, qp->fq->obj.id);
}

void eng_qp_to_err(struct eng_qp *qp)
{
	/* The error itself raises nothing here: an error CQE reports it
	 * (the callers raise the events of errors no CQE reports). */
	emu_fw_qp_set_state(qp->fq, MLX5_QPC_STATE_ERR);
	qp->state = MLX5_QPC_STATE_ERR;
	eng_qp_entered_err(qp);
}

void eng_count(struct eng_qp *qp, enum emu_fw_q_cnt which)
{
	struct emu_fw_q_counter *qc = atomic_load(&qp->fq->counter);

	if (qc)
		emu_fw_q_counter_add(qc, which, 1);
}
