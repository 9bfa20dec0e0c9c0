/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_comp.c -- the completer: what responses mean for the
 * requester's window, its timers, and the requester's CQEs.
 *
 * A state machine in the style of rxe_comp.c, run for each response as it
 * arrives (in process at once, from the wire later):
 *
 *   CHECK_PSN   responses complete the window in order (IBA 9.7.5.1.1):
 *               an ACK acknowledges every PSN up to its own; a READ
 *               response or atomic ACK also acknowledges the requests
 *               before it.  A response for nothing outstanding, or a
 *               duplicate, is dropped.  A READ response beyond the next
 *               one expected, or an ACK past a READ whose data has not
 *               come, means responses were lost (an implied NAK, IBA
 *               9.7.5.1.3): resend from the first missing PSN.
 *   CHECK_AETH  ACK; RNR NAK: wait the timer it carries (the responder's
 *               min_rnr_timer, IBA table 45) and resend, rnr_retry times,
 *               7 meaning forever (IBA 9.7.5.2.8), then RNR_RETRY_EXC_ERR;
 *               sequence error NAK: resend from its PSN, a retry (IBA
 *               9.7.5.2.1); remote access, invalid request, remote
 *               operation NAKs end the QP (IBA 9.7.5.2.4..6).
 *   READ/ATOMIC the data goes into the local scatter list at its offset
 *               (local write access, IBA C9-?); an atomic's original value
 *               as the responder found it.
 *   COMP_WQE    a CQE if the WQE asked for one (CE bits, IBA 10.7.3.1
 *               signaled completions); errors always complete, then the
 *               QP moves to ERR and the rest is flushed.
 *   TIMER       no progress for 4.096 us << ack_timeout: resend from the
 *               oldest unacknowledged PSN, retry_count times (IBA
 *               9.7.6.1.3), then TRANSPORT_RETRY_EXC_ERR; 0 is no timer.
 *
 * Forward progress (a request acknowledged) restores both retry counts.
 * One loss costs one retry: once the window is rewound, the responses
 * still on their way from before (each implying the same NAK) and a
 * duplicated NAK are dropped until progress is made; only the timer
 * retries again meanwhile (as rxe's started_retry).
 */
#include <endian.h>
#include <string.h>

#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"

/* IBA table 45: RNR NAK timer field to microseconds. */
static const uint32_t eng_rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static void eng_comp_cqe(struct eng_qp *qp, struct eng_cqe *c)
{
	struct emu_fw_cq *cq = atomic_load(&qp->fq->cq_snd);

	if (!cq)
		return;
	c->qpn = qp->fq->obj.id;
	c->srqn_uidx = qp->fq->user_index;
	(void)eng_cqe_qp(qp, cq, c);
}

void eng_comp_success(struct eng_qp *qp, uint8_t opcode, uint8_t fm_ce_se,
		      uint16_t idx, uint32_t byte_cnt)
{
	const struct eng_opcode_info *oi = eng_opcode(opcode);
	struct eng_cqe c = { 0 };

	if (!(fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE))
		return;		/* unsignaled */
	c.opcode = oi ? oi->req_cqe : MLX5_CQE_REQ;
	c.wqe_opcode = opcode;
	c.wqe_counter = idx;
	c.byte_cnt = byte_cnt;
	eng_comp_cqe(qp, &c);
}

void eng_comp_error(struct eng_qp *qp, uint8_t opcode, uint16_t idx,
		    enum eng_synd_id id)
{
	const struct eng_synd *sy = eng_synd(id);

	eng_comp_error_raw(qp, opcode, idx, sy->syndrome, sy->vendor);
}

void eng_comp_error_raw(struct eng_qp *qp, uint8_t opcode, uint16_t idx,
			uint8_t syndrome, uint8_t vendor)
{
	struct eng_cqe c = {
		.opcode = MLX5_CQE_REQ_ERR,
		.syndrome = syndrome,
		.vendor = vendor,
		.wqe_opcode = opcode,
		.wqe_counter = idx,
	};

	eng_count(qp, EMU_FW_QCNT_REQ_CQE_ERROR);
	/* The state first: whoever polls the CQE and then queries the QP
	 * finds it in error already. */
	if (qp->fq->st == MLX5_QPC_ST_UD || qp->fq->st == MLX5_QPC_ST_UC)
		eng_qp_to_sqe(qp);
	else
		eng_qp_to_err(qp);
	eng_comp_cqe(qp, &c);
	/* The WQEs after it in the window flush (from the one after it). */
	if (qp->whead != qp->wtail && eng_win(qp, qp->whead)->idx == idx)
		qp->whead++;
}

unsigned int eng_comp_flush_sq(struct eng_qp *qp)
{
	const struct eng_synd *sy = eng_synd(ENG_SYND_WR_FLUSH);
	unsigned int n = 0;
	uint32_t pi;

	/* The window first: its WQEs were taken but never completed. */
	if (qp->whead != qp->wtail)
		qp->sq_ci = eng_win(qp, qp->whead)->idx;
	qp->whead = qp->wtail = qp->wsend = 0;
	qp->rd_out = 0;
	qp->ack_deadline = qp->rnr_deadline = 0;
	qp->cur_at = qp->rd_at = -1;
	if (!qp->fq->sq.cnt || !qp->fq->dbr.addr)
		return 0;
	if (emu_mem_load32((const uint32_t *)(const void *)qp->fq->dbr.addr +
			   EMU_FW_DBR_SND, &pi))
		return 0;
	pi = (uint16_t)be32toh(pi);
	if (eng_g.dp_now)	/* WQEs behind a lost doorbell wait for one */
		pi = eng_dp_doorbell(qp, (uint16_t)pi);
	while (qp->sq_ci != (uint16_t)pi && n < ENG_PASS_WQES) {
		uint16_t posted = (uint16_t)(pi - qp->sq_ci);
		struct eng_wqe *w = &qp->cur;
		struct eng_cqe c = {
			.opcode = MLX5_CQE_REQ_ERR,
			.syndrome = sy->syndrome,
			.vendor = sy->vendor,
		};
		bool taken = eng_wqe_read(qp, qp->sq_ci, w) != ENG_WQE_FAULT;

		/* Only the control segment matters: its size and opcode. */
		if (!taken || !w->nbb)
			w->nbb = 1;
		if (w->nbb > posted)	/* never past what was posted */
			w->nbb = (uint8_t)posted;
		c.wqe_opcode = w->opcode;
		c.wqe_counter = qp->sq_ci;
		eng_count(qp, EMU_FW_QCNT_REQ_CQE_FLUSH_ERROR);
		eng_comp_cqe(qp, &c);
		/* WQEs the window held were counted when taken. */
		if ((int16_t)(qp->sq_ci -
			      (uint16_t)atomic_load(&qp->fq->hw.sq_wqebb_counter)) >= 0)
			atomic_fetch_add(&qp->fq->hw.sq_wqebb_counter, w->nbb);
		qp->sq_ci = (uint16_t)(qp->sq_ci + w->nbb);
		n++;
	}
	return n;
}

/* The transport timer's period, or 0 when there is none. */
static uint64_t eng_comp_timeout_ns(const struct eng_qp *qp)
{
	unsigned int t = qp->attr.pri.ack_timeout;

	return t ? 4096ull << t : 0;
}

static void eng_comp_progress(struct eng_qp *qp)
{
	qp->retry_left = qp->attr.retry_count;
	qp->rnr_left = qp->attr.rnr_retry;
	qp->retrying = false;
	qp->ack_deadline = qp->whead != qp->wtail && eng_comp_timeout_ns(qp) ?
			   eng_g.now_ns + eng_comp_timeout_ns(qp) : 0;
}

/* The head record is done: its CQE, and it leaves the window. */
static void eng_comp_retire(struct eng_qp *qp, struct eng_infl *r)
{
	eng_comp_success(qp, r->opcode, r->fm_ce_se, r->idx, r->len);
	if (r->reads)
		qp->rd_out--;
	qp->whead++;
	if ((int)(qp->wsend - qp->whead) < 0)
		qp->wsend = qp->whead;
	qp->una = (r->psn + r->npsn) & 0xffffff;
}

/*
 * Retire head records wholly before @psn (exclusive) or up to it
 * (inclusive), stopping at a READ or atomic whose response has not come.
 * Returns that READ/atomic record if @psn reaches into it, else NULL.
 */
static struct eng_infl *eng_comp_ack_upto(struct eng_qp *qp, uint32_t psn,
					  bool inclusive)
{
	bool any = false;

	while (qp->whead != qp->wtail) {
		struct eng_infl *r = eng_win(qp, qp->whead);
		int32_t d = eng_psn_diff(psn, (r->psn + r->npsn - 1) & 0xffffff);

		if (r->reads) {
			if (eng_psn_diff(psn, r->psn) >= (inclusive ? 0 : 1))
				return r;
			break;
		}
		if (d < (inclusive ? 0 : 1)) {
			/* Part of a long message acknowledged. */
			if (inclusive && eng_psn_diff(psn, r->psn) >= 0 &&
			    eng_psn_diff(psn + 1, qp->una) > 0) {
				qp->una = (psn + 1) & 0xffffff;
				any = true;
			}
			break;
		}
		eng_comp_retire(qp, r);
		any = true;
	}
	if (any)
		eng_comp_progress(qp);
	return NULL;
}

/* Resend after a sequence NAK or an implied one: a retry. */
static void eng_comp_retry(struct eng_qp *qp, uint32_t psn)
{
	if (qp->retrying) {
		qp->st.dropped++;	/* the same loss, seen again */
		return;
	}
	if (!qp->retry_left) {
		struct eng_infl *r = eng_win(qp, qp->whead);

		eng_count(qp, EMU_FW_QCNT_REQ_TRANSPORT_RETRIES_EXCEEDED);
		eng_comp_error(qp, r->opcode, r->idx,
			       ENG_SYND_TRANSPORT_RETRY_EXC);
		return;
	}
	qp->retry_left--;
	qp->retrying = true;
	eng_req_rewind(qp, psn);
}

static void eng_comp_error_at(struct eng_qp *qp, enum emu_fw_q_cnt cnt,
			      enum eng_synd_id id)
{
	struct eng_infl *r = eng_win(qp, qp->whead);

	eng_count(qp, cnt);
	eng_comp_error(qp, r->opcode, r->idx, id);
}

/* ACK or NAK (IBA 9.7.5.2). */
static void eng_comp_aeth(struct eng_qp *qp, const struct eng_pkt *p)
{
	struct eng_infl *rd;

	/* A NAK for a PSN already acknowledged is stale. */
	if ((p->aeth_syndrome & 0xe0) != ENG_AETH_ACK &&
	    eng_psn_diff(p->psn, qp->una) < 0) {
		qp->st.duplicates++;
		return;
	}
	switch (p->aeth_syndrome & 0xe0) {
	case ENG_AETH_ACK:
		rd = eng_comp_ack_upto(qp, p->psn, true);
		if (rd) {
			/* An ACK past a READ whose data is missing. */
			eng_count(qp, EMU_FW_QCNT_IMPLIED_NAK_SEQ_ERR);
			eng_comp_retry(qp, (rd->psn + rd->resp) & 0xffffff);
		}
		return;
	case ENG_AETH_RNR:
		eng_comp_ack_upto(qp, p->psn, false);
		if (qp->whead == qp->wtail)
			return;
		qp->st.rnr_naks_rcvd++;
		if (qp->attr.rnr_retry != 7 && !qp->rnr_left) {
			eng_comp_error_at(qp, EMU_FW_QCNT_REQ_RNR_RETRIES_EXCEEDED,
					  ENG_SYND_RNR_RETRY_EXC);
			return;
		}
		eng_count(qp, EMU_FW_QCNT_RNR_NAK_RETRY_ERR);
		if (qp->attr.rnr_retry != 7)
			qp->rnr_left--;
		qp->rnr_deadline = eng_g.now_ns +
				   eng_rnr_us[p->aeth_syndrome & 0x1f] * 1000ull;
		/* The responder lives: the transport timer starts again once
		 * the wait is over. */
		qp->ack_deadline = 0;
		eng_req_rewind(qp, p->psn);
		return;
	default:
		break;
	}
	qp->st.naks_rcvd++;
	eng_comp_ack_upto(qp, p->psn, false);
	if (qp->whead == qp->wtail)
		return;
	switch (p->aeth_syndrome) {
	case ENG_AETH_NAK_SEQ:
		eng_count(qp, EMU_FW_QCNT_PACKET_SEQ_ERR);
		eng_comp_retry(qp, p->psn);
		return;
	case ENG_AETH_NAK_REM_ACCESS:
		eng_comp_error_at(qp, EMU_FW_QCNT_REQ_REMOTE_ACCESS_ERRORS,
				  ENG_SYND_REMOTE_ACCESS);
		return;
	case ENG_AETH_NAK_INV_REQ:
		eng_comp_error_at(qp, EMU_FW_QCNT_REQ_REMOTE_INVALID_REQUEST,
				  ENG_SYND_REMOTE_INVAL_REQ);
		return;
	default:	/* remote operation error, and unknown codes */
		eng_comp_error_at(qp, EMU_FW_QCNT_REQ_REMOTE_OPERATION_ERRORS,
				  ENG_SYND_REMOTE_OP);
		return;
	}
}

/* The scatter list of the READ/atomic of record r (read again if needed). */
static bool eng_comp_rd_wqe(struct eng_qp *qp, const struct eng_infl *r,
			    struct eng_sge *sge, unsigned int *nsge)
{
	if (qp->rd_at != r->idx) {
		qp->rd_at = -1;
		if (eng_wqe_read(qp, r->idx, &qp->rd) != ENG_WQE_OK)
			return false;
		qp->rd_at = r->idx;
	}
	for (unsigned int i = 0; i < qp->rd.nsge; i++) {
		sge[i].len = qp->rd.sge[i].len;
		sge[i].lkey = qp->rd.sge[i].lkey;
		sge[i].addr = qp->rd.sge[i].addr;
	}
	*nsge = qp->rd.nsge;
	return true;
}

/* Data of a READ response, or an atomic's original value, placed. */
static bool eng_comp_place(struct eng_qp *qp, struct eng_infl *r,
			   const struct eng_pkt *p, uint32_t offset)
{
	struct eng_sge sge[ENG_MAX_SGE];
	struct eng_pkt one;
	bool src_fault = false;
	unsigned int nsge;
	enum eng_mr_res res;

	if (!eng_comp_rd_wqe(qp, r, sge, &nsge)) {
		eng_comp_error_at(qp, EMU_FW_QCNT_REQ_LOCAL_PROTECTION,
				  ENG_SYND_LOCAL_PROT);
		return false;
	}
	if ((p->opcode & 0x1f) == EMU_WIRE_OP_ATOMIC_ACK) {
		ENG_PKT_CLEAR(&one);
		one.pay = ENG_PAY_BUF;
		one.buf = (const uint8_t *)&p->orig;	/* host order */
		one.len = 8;
		p = &one;
	}
	res = eng_mr_scatter(qp->dev->fw, qp->fq->obj.id, qp->fq->pd, sge,
			     nsge, offset, p, &src_fault);
	if (res == ENG_MR_OK)
		return true;
	if (src_fault) {
		/* In process: the responder's memory went away mid-copy. */
		eng_comp_error_at(qp, EMU_FW_QCNT_REQ_REMOTE_ACCESS_ERRORS,
				  ENG_SYND_REMOTE_ACCESS);
	} else if (res == ENG_MR_LEN) {
		eng_comp_error_at(qp, EMU_FW_QCNT_REQ_LOCAL_LENGTH_ERROR,
				  ENG_SYND_LOCAL_LENGTH);
	} else {
		eng_comp_error_at(qp, EMU_FW_QCNT_REQ_LOCAL_PROTECTION,
				  ENG_SYND_LOCAL_PROT);
	}
	return false;
}

/* READ response data, and atomic ACKs. */
static void eng_comp_read_resp(struct eng_qp *qp, const struct eng_pkt *p)
{
	const struct emu_wire_opinfo *oi = emu_wire_opinfo(p->opcode);
	bool atomic = (p->opcode & 0x1f) == EMU_WIRE_OP_ATOMIC_ACK;
	struct eng_infl *r = eng_comp_ack_upto(qp, p->psn, true);
	bool first = oi->flags & EMU_WIRE_F_FIRST;
	uint32_t expect;

	if (!r) {
		qp->st.duplicates++;	/* nothing waits for it */
		return;
	}
	expect = (r->psn + r->resp) & 0xffffff;
	if (atomic != (r->opcode != MLX5_OPCODE_RDMA_READ)) {
		/* IBA 9.7.5.1.2: a response of the wrong kind. */
		eng_count(qp, EMU_FW_QCNT_REQ_REMOTE_INVALID_REQUEST);
		eng_comp_error(qp, r->opcode, r->idx, ENG_SYND_BAD_RESP);
		return;
	}
	if (eng_psn_diff(p->psn, expect) < 0) {
		qp->st.duplicates++;	/* a resent READ's answer */
		return;
	}
	if (p->psn != expect) {
		eng_count(qp, EMU_FW_QCNT_IMPLIED_NAK_SEQ_ERR);
		eng_comp_retry(qp, expect);
		return;
	}
	/* IBA 9.7.5.1.2: a READ response follows FIRST/MIDDLE/LAST; the
	 * payload fills the path MTU but in the last. */
	if (!atomic && (first != !r->resp ||
			(p->npsn == 1 && !(oi->flags & EMU_WIRE_F_LAST) &&
			 p->len != eng_mtu(qp)))) {
		eng_comp_retry(qp, expect);
		return;
	}
	if (!eng_comp_place(qp, r, p, r->resp * eng_mtu(qp)))
		return;
	r->resp += p->npsn;
	qp->una = (r->psn + r->resp) & 0xffffff;
	if (atomic || (oi->flags & EMU_WIRE_F_LAST)) {
		if (!atomic && r->resp != r->npsn) {
			eng_count(qp, EMU_FW_QCNT_REQ_REMOTE_INVALID_REQUEST);
			eng_comp_error(qp, r->opcode, r->idx, ENG_SYND_BAD_RESP);
			return;
		}
		eng_comp_retire(qp, r);
	}
	eng_comp_progress(qp);
}

void eng_comp_rcv(struct eng_qp *qp, struct eng_pkt *p)
{
	const struct emu_wire_opinfo *oi = emu_wire_opinfo(p->opcode);

	qp->st.rx_pkts++;
	eng_qp_refresh(qp);
	if ((qp->state != MLX5_QPC_STATE_RTS &&
	     qp->state != MLX5_QPC_STATE_SQD) || !oi ||
	    qp->whead == qp->wtail) {
		qp->st.dropped++;	/* nothing outstanding: a ghost */
		return;
	}
	if (eng_psn_diff(p->psn, qp->una) < -(1 << 22)) {
		qp->st.dropped++;	/* far behind the window */
		return;
	}
	if (oi->flags & (EMU_WIRE_F_READ | EMU_WIRE_F_ATOMIC)) {
		/* A READ response's AETH (FIRST, LAST, ONLY) is an ACK. */
		eng_comp_read_resp(qp, p);
		return;
	}
	eng_comp_aeth(qp, p);
}

void eng_comp_arm(struct eng_qp *qp)
{
	if (!qp->ack_deadline && qp->whead != qp->wtail &&
	    eng_comp_timeout_ns(qp))
		qp->ack_deadline = eng_g.now_ns + eng_comp_timeout_ns(qp);
}

void eng_comp_timers(struct eng_qp *qp)
{
	uint64_t now = eng_g.now_ns;

	if (qp->rnr_deadline) {
		if (now < qp->rnr_deadline)
			return;		/* the RNR wait; no transport timer */
		qp->rnr_deadline = 0;	/* resend what the NAK rewound */
	}
	if (qp->whead == qp->wtail)
		qp->ack_deadline = 0;
	if (!qp->ack_deadline || now < qp->ack_deadline)
		return;
	qp->st.timeouts++;
	if (!qp->retry_left) {
		eng_comp_error_at(qp, EMU_FW_QCNT_REQ_TRANSPORT_RETRIES_EXCEEDED,
				  ENG_SYND_TRANSPORT_RETRY_EXC);
		return;
	}
	qp->retry_left--;
	qp->retrying = true;
	eng_count(qp, EMU_FW_QCNT_LOCAL_ACK_TIMEOUT_ERR);
	qp->ack_deadline = now + eng_comp_timeout_ns(qp);
	{
		struct eng_infl *r = eng_win(qp, qp->whead);

		eng_req_rewind(qp, r->reads ? (r->psn + r->resp) & 0xffffff :
					      qp->una);
	}
}
