/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_dp.c -- the data path's hooks: fault rules and the
 * WQE/CQE trace (emu_eng_set_dp_hooks; the kernel layer installs them).
 *
 * Cost.  A pass reads the enabled hooks once (one relaxed atomic load)
 * into eng.dp_now; with nothing enabled and nothing held, the requester,
 * responder and CQE writer test that plain word and go on.  A QP gets its
 * state here (struct eng_dp_qp) the first time a hook looks at it, and
 * loses it when it leaves the engine.
 *
 * What the rules do, as a ConnectX would show it:
 *
 *   error    a send WQE is not executed (nothing reaches the wire or the
 *            peer): it completes with a requester error CQE of the
 *            rule's syndrome and vendor syndrome, the QP moves to ERR
 *            (SQER for UD/UC), every WQE after it flushes; a receive WQE
 *            taken by a message: a responder error CQE, the message is
 *            not placed, the requester gets the NAK the responder's own
 *            error of that kind sends (invalid request for a length
 *            error, else remote operational error), the QP moves to ERR.
 *            An error CQE raises no affiliated event (IBA 11.6.3.1); a QP
 *            on an SRQ entering ERR raises its last WQE event.
 *   delay    the WQE's completion (or, unsignaled, the next completion of
 *            its queue that covers it) is written us later, on the
 *            engine's clock (the virtual one in deterministic mode); the
 *            QP's later completions wait behind it, so each queue's
 *            completions keep their order.
 *   drop     a new value of the SQ doorbell record is not taken: the
 *            WQEs it posted stay, and run when a later doorbell (a new
 *            value) is taken, as after a lost doorbell write.  A CQ arm
 *            request is not taken (eng_cq.c): the CQ stays unarmed until
 *            the application arms it again.
 */
#include <stdlib.h>
#include <string.h>

#include "emu/engine/eng_int.h"

/* A completion written later. */
struct eng_dp_held {
	struct emu_fw_cq *cq;
	struct eng_cqe c;
	uint64_t due;
};

/* A send WQE whose completion is late: completions up to idx carry it. */
struct eng_dp_mark {
	uint16_t idx;
	uint32_t us;
};

/* More than a window of marks: the oldest ones are of WQEs completed. */
#define ENG_DP_MARKS (2 * ENG_WIN_MAX)

struct eng_dp_qp {
	bool seen_valid;		/* a send WQE was looked at */
	uint16_t seen;			/* its idx */
	struct emu_eng_verdict verdict;	/* and what the rules said */
	bool fired;
	struct emu_eng_verdict rverdict;	/* the last receive WQE's */
	/* doorbells: the last value seen, the last one taken */
	bool db_valid, db_held;
	uint16_t db_seen, db_pi;
	/* delays */
	struct eng_dp_mark *marks;	/* ring of ENG_DP_MARKS */
	unsigned int mhead, mtail;
	uint32_t carry_us;		/* marks folded into the next CQE */
	uint32_t rq_us;			/* the next receive completion */
	struct eng_dp_held *held;	/* FIFO, grows */
	unsigned int hhead, htail, hcap;
	bool busy;			/* counted in eng.dp_busy */
};

static const struct emu_eng_dp_hooks *_Atomic eng_dp_hooks;

void emu_eng_set_dp_hooks(const struct emu_eng_dp_hooks *hooks)
{
	atomic_store(&eng_dp_hooks, hooks);
}

void emu_eng_dp_enable(unsigned int what, bool on)
{
	if (on)
		atomic_fetch_or_explicit(&eng_g.dp, what, memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&eng_g.dp, ~what, memory_order_relaxed);
}

static const struct emu_eng_dp_hooks *eng_dp_hooks_get(void)
{
	return atomic_load_explicit(&eng_dp_hooks, memory_order_acquire);
}

static struct eng_dp_qp *eng_dp_of(struct eng_qp *qp)
{
	if (!qp->dp)
		qp->dp = calloc(1, sizeof(*qp->dp));
	return qp->dp;	/* NULL: no hook for this QP, nothing breaks */
}

/* Held CQEs or a lost doorbell keep the hooks running after the rules
 * that caused them are gone. */
static void eng_dp_busy(struct eng_dp_qp *d)
{
	bool busy = d->hhead != d->htail || d->db_held;

	if (busy != d->busy) {
		d->busy = busy;
		if (busy)
			eng_g.dp_busy++;
		else
			eng_g.dp_busy--;
		if (busy)
			eng_g.dp_now |= ENG_DP_BUSY;
	}
}

void eng_dp_qp_free(struct eng_qp *qp)
{
	struct eng_dp_qp *d = qp->dp;

	if (!d)
		return;
	d->hhead = d->htail = 0;	/* a QP that leaves writes no more */
	d->db_held = false;
	eng_dp_busy(d);
	free(d->marks);
	free(d->held);
	free(d);
	qp->dp = NULL;
}

static bool eng_dp_ask(struct eng_qp *qp, struct emu_eng_wqe *w,
		       struct emu_eng_verdict *v)
{
	const struct emu_eng_dp_hooks *h = eng_dp_hooks_get();

	memset(v, 0, sizeof(*v));
	w->dev = qp->dev->index;
	w->qpn = qp->fq->obj.id;
	if (h && h->trace_wqe && (eng_g.dp_now & EMU_ENG_DP_TRACE) &&
	    !w->doorbell)
		h->trace_wqe(h->arg, w);
	if (!h || !h->verdict || !(eng_g.dp_now & EMU_ENG_DP_FAULTS))
		return false;
	return h->verdict(h->arg, w, v);
}

/* ---- delays ---- */

static void eng_dp_mark(struct eng_dp_qp *d, uint16_t idx, uint32_t us)
{
	if (!d->marks) {
		d->marks = calloc(ENG_DP_MARKS, sizeof(*d->marks));
		if (!d->marks)
			return;
	}
	if (d->mtail - d->mhead == ENG_DP_MARKS) {
		/* Its WQE has completed: the next CQE of the queue is the
		 * one that covers it. */
		uint32_t old = d->marks[d->mhead++ % ENG_DP_MARKS].us;

		d->carry_us = old > d->carry_us ? old : d->carry_us;
	}
	d->marks[d->mtail % ENG_DP_MARKS] = (struct eng_dp_mark){ idx, us };
	d->mtail++;
}

/* The delay of a send completion for WQE idx: the marks of it and of the
 * unsignaled WQEs before it. */
static uint32_t eng_dp_sq_delay(struct eng_dp_qp *d, uint16_t idx)
{
	uint32_t us = d->carry_us;

	d->carry_us = 0;
	while (d->mhead != d->mtail) {
		struct eng_dp_mark *m = &d->marks[d->mhead % ENG_DP_MARKS];

		if ((int16_t)(uint16_t)(idx - m->idx) < 0)
			break;
		us = m->us > us ? m->us : us;
		d->mhead++;
	}
	return us;
}

static bool eng_dp_hold(struct eng_dp_qp *d, struct emu_fw_cq *cq,
			const struct eng_cqe *c, uint64_t due)
{
	if (d->htail - d->hhead == d->hcap) {
		unsigned int cap = d->hcap ? d->hcap * 2 : 16;
		struct eng_dp_held *n = malloc(cap * sizeof(*n));

		if (!n)
			return false;
		for (unsigned int i = 0; i < d->hcap; i++)
			n[i] = d->held[(d->hhead + i) % d->hcap];
		d->htail -= d->hhead;
		d->hhead = 0;
		free(d->held);
		d->held = n;
		d->hcap = cap;
	}
	d->held[d->htail++ % d->hcap] = (struct eng_dp_held){ cq, *c, due };
	eng_dp_busy(d);
	eng_timer_arm(&eng_g, due);
	return true;
}

/* Write now, and trace what was written. */
static int eng_dp_write(struct eng_qp *qp, struct emu_fw_cq *cq,
			const struct eng_cqe *c)
{
	const struct emu_eng_dp_hooks *h = eng_dp_hooks_get();
	uint32_t pi = atomic_load(&cq->hw.pi);
	uint8_t bytes[64];
	int ret = eng_cqe_write_copy(cq, c, bytes);

	if (ret == -ENOSPC)
		eng_count(qp, EMU_FW_QCNT_CQ_OVERFLOW);
	if (!ret && h && h->trace_cqe && (eng_g.dp_now & EMU_ENG_DP_TRACE)) {
		struct emu_eng_cqe t = {
			.dev = qp->dev->index, .cqn = cq->obj.id, .index = pi,
			.cqe64 = bytes,
		};

		h->trace_cqe(h->arg, &t);
	}
	return ret == -ENOSPC ? 0 : ret;	/* counted here */
}

int eng_dp_cqe(struct eng_qp *qp, struct emu_fw_cq *cq,
	       const struct eng_cqe *c)
{
	struct eng_dp_qp *d = qp->dp;
	bool sq = c->opcode == MLX5_CQE_REQ || c->opcode == MLX5_CQE_REQ_ERR;
	uint32_t us = 0;

	if (d && sq && (d->mhead != d->mtail || d->carry_us))
		us = eng_dp_sq_delay(d, c->wqe_counter);
	else if (d && !sq) {
		us = d->rq_us;
		d->rq_us = 0;
	}
	if (d && (us || d->hhead != d->htail)) {
		uint64_t due = eng_g.now_ns + us * 1000ull;

		/* Behind the last one held: a queue's order stays. */
		if (d->hhead != d->htail &&
		    d->held[(d->htail - 1) % d->hcap].due > due)
			due = d->held[(d->htail - 1) % d->hcap].due;
		if (eng_dp_hold(d, cq, c, due))
			return 0;
	}
	return eng_dp_write(qp, cq, c);
}

void eng_dp_release(struct eng_qp *qp)
{
	struct eng_dp_qp *d = qp->dp;

	if (!d || d->hhead == d->htail)
		return;
	while (d->hhead != d->htail) {
		struct eng_dp_held *h = &d->held[d->hhead % d->hcap];

		if (h->due > eng_g.now_ns) {
			eng_timer_arm(&eng_g, h->due);
			break;
		}
		d->hhead++;
		eng_dp_write(qp, h->cq, &h->c);
	}
	eng_dp_busy(d);
}

/* ---- work requests ---- */

/* The q counter a requester error of this syndrome counts, as the
 * engine's own errors do. */
static enum emu_fw_q_cnt eng_dp_req_counter(uint8_t syndrome)
{
	switch (syndrome) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		return EMU_FW_QCNT_REQ_LOCAL_LENGTH_ERROR;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		return EMU_FW_QCNT_LOCAL_OPERATION_ERROR;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
		return EMU_FW_QCNT_REQ_LOCAL_PROTECTION;
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
		return EMU_FW_QCNT_REQ_CQE_FLUSH_ERROR;
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR:
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
		return EMU_FW_QCNT_REQ_REMOTE_INVALID_REQUEST;
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		return EMU_FW_QCNT_REQ_REMOTE_ACCESS_ERRORS;
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
		return EMU_FW_QCNT_REQ_REMOTE_OPERATION_ERRORS;
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
		return EMU_FW_QCNT_REQ_TRANSPORT_RETRIES_EXCEEDED;
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
		return EMU_FW_QCNT_REQ_RNR_RETRIES_EXCEEDED;
	default:
		return EMU_FW_QCNT_NUM;		/* only the CQE error */
	}
}

const struct emu_eng_verdict *eng_dp_send(struct eng_qp *qp,
					  const struct eng_wqe *w)
{
	const struct eng_opcode_info *oi = eng_opcode(w->opcode);
	struct emu_eng_sge sge[ENG_MAX_SGE];
	struct eng_dp_qp *d = eng_dp_of(qp);
	struct emu_eng_wqe e = {
		.wqe_counter = w->idx, .opcode = w->opcode, .opmod = w->opmod,
		.ds = w->ds, .fm_ce_se = w->fm_ce_se, .imm = w->imm,
		.len = w->len, .inl = w->inl, .nsge = w->inl ? 0 : w->nsge,
		.sge = sge,
	};

	if (!d)
		return NULL;
	if (oi && (oi->segs & ENG_SEG_RADDR)) {
		e.has_raddr = true;
		e.raddr = w->raddr;
		e.rkey = w->rkey;
	}
	if (d->seen_valid && d->seen == w->idx)
		return d->fired ? &d->verdict : NULL;	/* asked already */
	for (unsigned int i = 0; i < e.nsge; i++)
		sge[i] = (struct emu_eng_sge){ w->sge[i].len, w->sge[i].lkey,
					       w->sge[i].addr };
	d->seen_valid = true;
	d->seen = w->idx;
	d->fired = eng_dp_ask(qp, &e, &d->verdict);
	if (d->fired && d->verdict.delay_us && !d->verdict.error)
		eng_dp_mark(d, w->idx, d->verdict.delay_us);
	return d->fired ? &d->verdict : NULL;
}

void eng_dp_send_error(struct eng_qp *qp, const struct eng_wqe *w,
		       const struct emu_eng_verdict *v)
{
	enum emu_fw_q_cnt cnt = eng_dp_req_counter(v->syndrome);

	if (v->delay_us && qp->dp)
		eng_dp_mark(qp->dp, w->idx, v->delay_us);
	if (cnt != EMU_FW_QCNT_NUM)
		eng_count(qp, cnt);
	eng_comp_error_raw(qp, w->opcode, w->idx, v->syndrome, v->vendor);
}

const struct emu_eng_verdict *eng_dp_recv(struct eng_qp *qp, uint8_t opcode,
					  const struct eng_rwqe *r)
{
	struct emu_eng_sge sge[ENG_MAX_SGE];
	struct eng_dp_qp *d = eng_dp_of(qp);
	struct emu_eng_wqe e = {
		.rq = true, .wqe_counter = r->idx, .opcode = opcode,
		.srqn = r->srq ? r->srq->obj.id : 0, .nsge = r->nsge,
		.sge = sge,
	};

	if (!d)
		return NULL;
	for (unsigned int i = 0; i < r->nsge; i++) {
		sge[i] = (struct emu_eng_sge){ r->sge[i].len, r->sge[i].lkey,
					       r->sge[i].addr };
		e.len += r->sge[i].len;
	}
	if (!eng_dp_ask(qp, &e, &d->rverdict))
		return NULL;
	d->rq_us = d->rverdict.delay_us;
	return &d->rverdict;
}

bool eng_dp_cq_arm(struct eng_dev *dev, struct emu_fw_cq *cq)
{
	const struct emu_eng_dp_hooks *h = eng_dp_hooks_get();
	struct emu_eng_wqe e = {
		.dev = dev->index, .doorbell = true, .cq_arm = true,
		.cqn = cq->obj.id,
	};
	struct emu_eng_verdict v;

	memset(&v, 0, sizeof(v));
	if (!h || !h->verdict || !(eng_g.dp_now & EMU_ENG_DP_FAULTS))
		return false;
	return h->verdict(h->arg, &e, &v) && v.drop;
}

uint16_t eng_dp_doorbell(struct eng_qp *qp, uint16_t pi)
{
	struct eng_dp_qp *d = qp->dp;
	struct emu_eng_verdict v;
	struct emu_eng_wqe e = { .doorbell = true, .pi = pi };

	if (!d && !(eng_g.dp_now & EMU_ENG_DP_FAULTS))
		return pi;
	d = eng_dp_of(qp);
	if (!d)
		return pi;
	if (!d->db_valid) {
		/* What the engine took so far was rung. */
		d->db_valid = true;
		d->db_seen = d->db_pi = qp->sq_ci;
	}
	if (pi == d->db_seen)
		return d->db_held ? d->db_pi : pi;
	d->db_seen = pi;	/* a new doorbell */
	if ((eng_g.dp_now & EMU_ENG_DP_FAULTS) && eng_dp_ask(qp, &e, &v) &&
	    v.drop) {
		d->db_held = true;
	} else {
		d->db_held = false;
		d->db_pi = pi;
	}
	eng_dp_busy(d);
	return d->db_held ? d->db_pi : pi;
}
