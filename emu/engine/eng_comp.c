/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_comp.c -- the completer: what the response to a request
 * means for the send WQE, and the requester's CQEs.
 *
 *   CHECK_ACK   no response (the responder dropped it, or its QP is gone):
 *               the transport timer (4.096 us << ack_timeout) runs and the
 *               request is resent, retry_count times (IBA 9.7.6.1.3), then
 *               TRANSPORT_RETRY_EXC_ERR.  Unreliable transports complete
 *               when sent (IBA 9.8.3: no acknowledgement).
 *   CHECK_AETH  ACK: the operation succeeded; RNR NAK: wait the timer the
 *               NAK carries (the responder's min_rnr_timer) and resend,
 *               rnr_retry times, 7 meaning forever (IBA 9.7.5.2.8), then
 *               RNR_RETRY_EXC_ERR; NAK codes: remote access, invalid
 *               request, remote operation errors (IBA 9.7.5.2.4..6);
 *               sequence error NAK: resend as a retry.
 *   READ/ATOMIC the response data goes into the local scatter list
 *               (local write access, IBA C9-?); an atomic's original value
 *               is written as the responder found it in memory.
 *   COMP_WQE    a CQE if the WQE asked for one (CE bits, IBA 10.7.3.1
 *               signaled completions); errors always complete, then the QP
 *               moves to ERR and the rest is flushed.
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
	if (eng_cqe_write(cq, c) == -ENOSPC)
		eng_count(qp, EMU_FW_QCNT_CQ_OVERFLOW);
}

void eng_comp_success(struct eng_qp *qp, const struct eng_wqe *w,
		      uint32_t byte_cnt)
{
	const struct eng_opcode_info *oi = eng_opcode(w->opcode);
	struct eng_cqe c = { 0 };

	if (!(w->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE))
		return;		/* unsignaled */
	c.opcode = oi ? oi->req_cqe : MLX5_CQE_REQ;
	c.wqe_opcode = w->opcode;
	c.wqe_counter = w->idx;
	c.byte_cnt = byte_cnt;
	eng_comp_cqe(qp, &c);
}

void eng_comp_error(struct eng_qp *qp, const struct eng_wqe *w,
		    enum eng_synd_id id)
{
	const struct eng_synd *sy = eng_synd(id);
	struct eng_cqe c = {
		.opcode = MLX5_CQE_REQ_ERR,
		.syndrome = sy->syndrome,
		.vendor = sy->vendor,
		.wqe_opcode = w->opcode,
		.wqe_counter = w->idx,
	};

	eng_count(qp, EMU_FW_QCNT_REQ_CQE_ERROR);
	eng_comp_cqe(qp, &c);
	if (qp->fq->st == MLX5_QPC_ST_UD || qp->fq->st == MLX5_QPC_ST_UC)
		eng_qp_to_sqe(qp);
	else
		eng_qp_to_err(qp);
}

unsigned int eng_comp_flush_sq(struct eng_qp *qp)
{
	const struct eng_synd *sy = eng_synd(ENG_SYND_WR_FLUSH);
	unsigned int n = 0;
	uint32_t pi;

	if (!qp->fq->sq.cnt || !qp->fq->dbr.addr)
		return 0;
	if (emu_mem_load32((const uint32_t *)(const void *)qp->fq->dbr.addr +
			   EMU_FW_DBR_SND, &pi))
		return 0;
	pi = (uint16_t)be32toh(pi);
	while (qp->sq_ci != (uint16_t)pi && n < ENG_PASS_WQES) {
		uint16_t posted = (uint16_t)(pi - qp->sq_ci);
		struct eng_wqe *w = &qp->cur;
		struct eng_cqe c = {
			.opcode = MLX5_CQE_REQ_ERR,
			.syndrome = sy->syndrome,
			.vendor = sy->vendor,
		};

		/* Only the control segment matters: its size and opcode. */
		if (eng_wqe_read(qp, qp->sq_ci, w) == ENG_WQE_FAULT || !w->nbb)
			w->nbb = 1;
		if (w->nbb > posted)	/* never past what was posted */
			w->nbb = (uint8_t)posted;
		c.wqe_opcode = w->opcode;
		c.wqe_counter = qp->sq_ci;
		eng_count(qp, EMU_FW_QCNT_REQ_CQE_FLUSH_ERROR);
		eng_comp_cqe(qp, &c);
		qp->sq_ci = (uint16_t)(qp->sq_ci + w->nbb);
		atomic_fetch_add(&qp->fq->hw.sq_wqebb_counter, w->nbb);
		n++;
	}
	qp->have_cur = false;
	return n;
}

/* Response data (READ, atomics) into the local scatter list. */
static bool eng_comp_read_data(struct eng_qp *qp, struct eng_wqe *w,
			       struct eng_pkt *ack, bool *src_fault)
{
	struct eng_sge sge[ENG_MAX_SGE];
	enum eng_mr_res r;

	for (unsigned int i = 0; i < w->nsge; i++) {
		sge[i].len = w->sge[i].len;
		sge[i].lkey = w->sge[i].lkey;
		sge[i].addr = w->sge[i].addr;
	}
	r = eng_mr_scatter(qp->dev->fw, qp->fq->pd, sge, w->nsge, 0, ack,
			   src_fault);
	return r == ENG_MR_OK;
}

/* Wait for a timer before resending the head WQE. */
static enum eng_comp_res eng_comp_wait(struct eng_qp *qp, uint64_t us,
				       enum eng_req_state why)
{
	qp->req = why;
	qp->deadline_ns = eng_g.now_ns + us * 1000;
	return why == ENG_REQ_RNR_WAIT ? ENG_COMP_RNR : ENG_COMP_RETRY;
}

static enum eng_comp_res eng_comp_retry(struct eng_qp *qp, struct eng_wqe *w)
{
	unsigned int t = qp->attr.pri.ack_timeout;

	if (!qp->retry_left) {
		eng_count(qp, EMU_FW_QCNT_REQ_TRANSPORT_RETRIES_EXCEEDED);
		eng_comp_error(qp, w, ENG_SYND_TRANSPORT_RETRY_EXC);
		return ENG_COMP_DONE;
	}
	/* ack_timeout 0: no timer (IBA 9.7.6.1.3): the request waits for
	 * a response forever. */
	if (!t) {
		qp->req = ENG_REQ_ACK_WAIT;
		qp->deadline_ns = UINT64_MAX;
		return ENG_COMP_RETRY;
	}
	qp->retry_left--;
	eng_count(qp, EMU_FW_QCNT_LOCAL_ACK_TIMEOUT_ERR);
	return eng_comp_wait(qp, (4096ull << t) / 1000, ENG_REQ_ACK_WAIT);
}

enum eng_comp_res eng_comp_rcv(struct eng_qp *qp, struct eng_wqe *w,
			       struct eng_pkt *req, struct eng_pkt *ack,
			       bool answered)
{
	const struct eng_opcode_info *oi = eng_opcode(w->opcode);
	bool reliable = qp->fq->st == MLX5_QPC_ST_RC ||
			qp->fq->st == MLX5_QPC_ST_XRC;
	bool src_fault = false;

	/* CHECK_ACK */
	if (ack->src_fault) {
		/* The responder found our source memory gone. */
		eng_count(qp, EMU_FW_QCNT_REQ_LOCAL_PROTECTION);
		eng_comp_error(qp, w, ENG_SYND_LOCAL_PROT);
		return ENG_COMP_DONE;
	}
	if (!reliable) {
		atomic_fetch_add(&qp->fq->hw.sq_psn, req->npsn);
		eng_comp_success(qp, w, w->len);
		return ENG_COMP_DONE;
	}
	if (!answered)
		return eng_comp_retry(qp, w);

	/* CHECK_AETH */
	switch (ack->aeth_syndrome & 0xe0) {
	case ENG_AETH_ACK:
		break;
	case ENG_AETH_RNR:
		if (qp->attr.rnr_retry != 7 && !qp->rnr_left) {
			eng_count(qp, EMU_FW_QCNT_REQ_RNR_RETRIES_EXCEEDED);
			eng_comp_error(qp, w, ENG_SYND_RNR_RETRY_EXC);
			return ENG_COMP_DONE;
		}
		/* An RNR NAK within the retry limit. */
		eng_count(qp, EMU_FW_QCNT_RNR_NAK_RETRY_ERR);
		if (qp->attr.rnr_retry != 7)
			qp->rnr_left--;
		return eng_comp_wait(qp, eng_rnr_us[ack->aeth_syndrome & 0x1f],
				     ENG_REQ_RNR_WAIT);
	default:
		switch (ack->aeth_syndrome) {
		case ENG_AETH_NAK_SEQ:
			eng_count(qp, EMU_FW_QCNT_PACKET_SEQ_ERR);
			return eng_comp_retry(qp, w);
		case ENG_AETH_NAK_REM_ACCESS:
			eng_count(qp, EMU_FW_QCNT_REQ_REMOTE_ACCESS_ERRORS);
			eng_comp_error(qp, w, ENG_SYND_REMOTE_ACCESS);
			return ENG_COMP_DONE;
		case ENG_AETH_NAK_INV_REQ:
			eng_count(qp, EMU_FW_QCNT_REQ_REMOTE_INVALID_REQUEST);
			eng_comp_error(qp, w, ENG_SYND_REMOTE_INVAL_REQ);
			return ENG_COMP_DONE;
		default:
			eng_count(qp, EMU_FW_QCNT_REQ_REMOTE_OPERATION_ERRORS);
			eng_comp_error(qp, w, ENG_SYND_REMOTE_OP);
			return ENG_COMP_DONE;
		}
	}

	/* READ / ATOMIC: the response data. */
	if (oi && oi->reads && !eng_comp_read_data(qp, w, ack, &src_fault)) {
		/* src_fault: the responder's memory went away mid-copy. */
		if (src_fault) {
			eng_comp_error(qp, w, ENG_SYND_REMOTE_ACCESS);
		} else {
			eng_count(qp, EMU_FW_QCNT_REQ_LOCAL_PROTECTION);
			eng_comp_error(qp, w, ENG_SYND_LOCAL_PROT);
		}
		return ENG_COMP_DONE;
	}
	/* COMP_WQE */
	atomic_fetch_add(&qp->fq->hw.sq_psn, req->npsn);
	eng_comp_success(qp, w, oi && oi->reads ? ack->len : w->len);
	return ENG_COMP_DONE;
}
