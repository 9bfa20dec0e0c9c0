/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_resp.c -- the responder: executes a request packet on its
 * QP and says what goes back.
 *
 * A state machine in the style of rxe_resp.c; each check cites the rule
 * it enforces:
 *
 *   CHECK_STATE  the QP receives in RTR, RTS, SQD and SQER (IBA 10.3.1);
 *                elsewhere the packet is dropped silently (C9-?), which a
 *                reliable requester sees as a lost packet
 *   CHECK_OP     the operation is one the service type carries (IBA
 *                9.8.1); XRC: the XRC SRQ named by XRCETH is of the
 *                target's XRC domain (IBA 14.2.6.3 / C14-?) else NAK
 *                invalid request, and that SRQ's PD, not the target QP's,
 *                guards every rkey and receive lkey of the message (an XRC
 *                target QP has no PD of its own: mlx5_ib gives it an
 *                internal one); UD: the Q_Key matches (C10-?) else drop
 *   CHECK_PSN    RC/XRC: the PSN is the expected one (IBA 9.7.4.1.3) else
 *                NAK sequence error
 *   CHECK_RIGHTS the QP enables the remote access (rre/rwe/rae: IBA
 *                10.2.4.3) and the rkey is of the QP's PD with the rights
 *                and bounds (IBA C9-? / 10.6.3.1): NAK remote access
 *                error; an atomic on an address not 8-byte aligned: NAK
 *                invalid request (IBA C9-?)
 *   GET_RWQE     SEND and WRITE with immediate consume a receive WQE; none
 *                posted: RC RNR NAK with the QP's min_rnr_timer (IBA
 *                9.7.5.2.8), UC/UD drop
 *   EXECUTE      copy, read or the atomic, through emu/mem; the message
 *                longer than the receive WQE: local length error at the
 *                responder and NAK invalid request (C9-?); a receive WQE
 *                the PD does not allow: local protection error at the
 *                responder and NAK remote operation error
 *   COMPLETE     the receive CQE (opcode, byte count, immediate, source
 *                QP, UD GRH flags), the ACK, the expected PSN advanced
 *   ERROR        responder errors on a reliable QP move it to ERR (IBA
 *                10.3.1, class C errors): outstanding receives flush
 *
 * Affiliated events (IBA 11.6.3.1): the first packet an RC/UC/XRC QP
 * receives in RTR raises COMM_EST; a NAK remote access error or invalid
 * request that no responder CQE reports raises WQ_ACCESS_ERROR or
 * WQ_INVAL_REQ_ERROR on the responder's QP (errors a CQE reports raise
 * none).
 */
#include <endian.h>
#include <string.h>

#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"

enum eng_resp_state {
	RESP_CHECK_STATE,
	RESP_CHECK_OP,
	RESP_CHECK_PSN,
	RESP_CHECK_RIGHTS,
	RESP_GET_RWQE,
	RESP_EXECUTE,
	RESP_COMPLETE,
	RESP_ACK,
	RESP_NAK,
	RESP_ERR_LENGTH,
	RESP_ERR_RWQE_PROT,
	RESP_ERR_SRC_FAULT,
	RESP_DROP,
	RESP_DONE,
};

struct eng_resp {
	struct eng_qp *qp;
	struct eng_pkt *pkt, *ack;
	const struct eng_opcode_info *oi;
	bool reliable, ud;
	struct emu_fw_srq *srq;	/* where receives come from, if an SRQ */
	struct emu_fw_cq *cq;	/* where receives complete */
	const struct emu_fw_pd *pd;	/* what guards rkeys and receive lkeys */
	uint32_t uidx;
	struct eng_rwqe rwqe;
	bool have_rwqe;
	uint8_t *target;	/* resolved remote address */
	uint8_t nak;
	uint8_t l3_type;
	bool answered;
	bool err_cqe;		/* a responder error CQE reported the error */
};

static enum eng_resp_state eng_resp_check_state(struct eng_resp *r)
{
	unsigned int st;

	eng_qp_refresh(r->qp);
	st = r->qp->state;
	if (st != MLX5_QPC_STATE_RTR && st != MLX5_QPC_STATE_RTS &&
	    st != MLX5_QPC_STATE_SQD && st != MLX5_QPC_STATE_SQER)
		return RESP_DROP;
	/* Communication established: the first packet of a connection. */
	if (st == MLX5_QPC_STATE_RTR && !r->qp->comm_est &&
	    r->qp->fq->st != MLX5_QPC_ST_UD) {
		r->qp->comm_est = true;
		eng_event_queue(r->qp->dev, MLX5_EVENT_TYPE_COMM_EST,
				r->qp->fq->obj.id);
	}
	return RESP_CHECK_OP;
}

static enum eng_resp_state eng_resp_check_op(struct eng_resp *r)
{
	struct emu_fw_qp *fq = r->qp->fq;
	struct eng_pkt *p = r->pkt;

	r->oi = eng_opcode_of_wire(p->opcode);
	if (!r->oi || !(r->oi->qp_types & eng_qp_st_bit(fq)) ||
	    (p->opcode & 0xe0) != (fq->st == MLX5_QPC_ST_RC ? ENG_TR_RC :
				   fq->st == MLX5_QPC_ST_UC ? ENG_TR_UC :
				   fq->st == MLX5_QPC_ST_UD ? ENG_TR_UD :
							      ENG_TR_XRC))
		return r->reliable ? (r->nak = ENG_AETH_NAK_INV_REQ, RESP_NAK) :
				     RESP_DROP;
	r->srq = fq->rq_type == EMU_FW_RQ_SRQ ? atomic_load(&fq->srq) : NULL;
	r->cq = atomic_load(&fq->cq_rcv);
	r->uidx = fq->user_index;
	r->pd = fq->pd;
	if (fq->xrc_tgt) {
		struct emu_fw_obj *o = emu_fw_obj_lookup_rcu(
			r->qp->dev->fw, EMU_FW_OBJ_SRQ, p->xrc_srqn);
		struct emu_fw_srq *srq = o ? emu_fw_to_srq(o) : NULL;

		if (!srq || srq->kind != EMU_FW_SRQ_XRC ||
		    srq->xrcd != fq->xrcd) {
			r->nak = ENG_AETH_NAK_INV_REQ;
			return RESP_NAK;
		}
		r->srq = srq;
		r->cq = srq->cq;
		r->uidx = srq->user_index;
		r->pd = srq->pd;
	}
	/* IBA C10-15: a UD packet whose Q_Key differs is dropped. */
	if (r->ud && p->qkey != r->qp->attr.q_key)
		return RESP_DROP;
	return r->reliable ? RESP_CHECK_PSN : RESP_CHECK_RIGHTS;
}

static enum eng_resp_state eng_resp_check_psn(struct eng_resp *r)
{
	uint32_t expect = atomic_load(&r->qp->fq->hw.rq_psn) & 0xffffff;

	if (r->pkt->psn != expect) {
		eng_count(r->qp, EMU_FW_QCNT_OUT_OF_SEQUENCE);
		r->nak = ENG_AETH_NAK_SEQ;
		return RESP_NAK;
	}
	return RESP_CHECK_RIGHTS;
}

static enum eng_resp_state eng_resp_check_rights(struct eng_resp *r)
{
	const struct emu_fw_qp_attr *a = &r->qp->attr;
	struct eng_pkt *p = r->pkt;
	unsigned int need = r->oi->resp_access;
	bool on = true;

	if (!need)
		return RESP_GET_RWQE;
	if (need & EMU_FW_MKEY_RW)
		on = a->rwe;
	else if (need & EMU_FW_MKEY_RR)
		on = a->rre;
	else if (need & EMU_FW_MKEY_A)
		on = a->rae;
	if ((need & EMU_FW_MKEY_A) && (p->va & 7)) {
		eng_count(r->qp, EMU_FW_QCNT_RESP_REMOTE_INVALID_REQUEST);
		r->nak = ENG_AETH_NAK_INV_REQ;
		return RESP_NAK;
	}
	if (!on || emu_fw_mkey_resolve(r->qp->dev->fw, p->rkey, r->pd,
				       need, p->va, p->dma_len, &r->target) !=
			   EMU_FW_MKEY_OK) {
		eng_count(r->qp, EMU_FW_QCNT_RESP_REMOTE_ACCESS_ERRORS);
		r->nak = ENG_AETH_NAK_REM_ACCESS;
		return RESP_NAK;
	}
	return RESP_GET_RWQE;
}

static enum eng_resp_state eng_resp_get_rwqe(struct eng_resp *r)
{
	if (!r->oi->consumes_rwqe)
		return RESP_EXECUTE;
	switch (eng_recv_take(r->qp, r->srq, &r->rwqe)) {
	case ENG_RECV_OK:
		r->have_rwqe = true;
		return RESP_EXECUTE;
	case ENG_RECV_NONE:
		eng_count(r->qp, EMU_FW_QCNT_OUT_OF_BUFFER);
		if (!r->reliable)
			return RESP_DROP;
		r->nak = (uint8_t)(ENG_AETH_RNR | (r->qp->attr.min_rnr_nak & 0x1f));
		return RESP_NAK;
	default:
		return RESP_ERR_RWQE_PROT;
	}
}

/* UD: the 40 bytes before the payload hold the GRH (eng_grh.c). */
static bool eng_resp_write_grh(struct eng_resp *r)
{
	uint8_t grh[40], *host;
	uint32_t left = sizeof(grh), done = 0;

	eng_grh_build(r->pkt, grh, &r->l3_type);
	for (unsigned int i = 0; i < r->rwqe.nsge && left; i++) {
		uint32_t n = r->rwqe.sge[i].len < left ? r->rwqe.sge[i].len : left;

		if (!n)
			continue;
		if (emu_fw_mkey_resolve(r->qp->dev->fw, r->rwqe.sge[i].lkey,
					r->pd, EMU_FW_MKEY_LW,
					r->rwqe.sge[i].addr, n, &host) !=
			    EMU_FW_MKEY_OK ||
		    emu_mem_write(host, grh + done, n))
			return false;
		done += n;
		left -= n;
	}
	return true;
}

/* Atomics in place, in host byte order (atomic_req_8B_endianness_mode 1:
 * the responder's memory holds a native 64-bit value). */
static bool eng_resp_atomic(struct eng_resp *r)
{
	struct eng_pkt *p = r->pkt, *a = r->ack;
	uint64_t old;

	if ((p->opcode & 0x1f) == ENG_OP_CMP_SWAP) {
		old = p->compare;
		if (emu_mem_cas64(r->target, &old, p->swap_add))
			return false;
	} else if (emu_mem_fadd64(r->target, p->swap_add, &old)) {
		return false;
	}
	memcpy(a->inl, &old, 8);
	a->pay = ENG_PAY_BUF;
	a->buf = a->inl;
	a->len = 8;
	eng_count(r->qp, EMU_FW_QCNT_RX_ATOMIC_REQUESTS);
	return true;
}

static enum eng_resp_state eng_resp_execute(struct eng_resp *r)
{
	struct eng_pkt *p = r->pkt, *a = r->ack;
	bool src_fault = false;
	enum eng_mr_res mr;

	switch (p->opcode & 0x1f) {
	case ENG_OP_READ_REQ:
		a->pay = ENG_PAY_FRAGS;
		a->nfrags = p->dma_len ? 1 : 0;
		a->frags[0].addr = r->target;
		a->frags[0].len = p->dma_len;
		a->len = p->dma_len;
		eng_count(r->qp, EMU_FW_QCNT_RX_READ_REQUESTS);
		return RESP_ACK;
	case ENG_OP_CMP_SWAP:
	case ENG_OP_FETCH_ADD:
		if (!eng_resp_atomic(r)) {
			r->nak = ENG_AETH_NAK_REM_ACCESS;
			return RESP_NAK;
		}
		return RESP_ACK;
	case ENG_OP_WRITE_ONLY:
	case ENG_OP_WRITE_ONLY_IMM:
		eng_count(r->qp, EMU_FW_QCNT_RX_WRITE_REQUESTS);
		if (eng_mr_copy_payload(r->target, p, &src_fault))
			return src_fault ? RESP_ERR_SRC_FAULT :
			       (r->nak = ENG_AETH_NAK_REM_ACCESS, RESP_NAK);
		return r->have_rwqe ? RESP_COMPLETE : RESP_ACK;
	default:		/* SEND */
		if (r->ud && !eng_resp_write_grh(r))
			return RESP_ERR_RWQE_PROT;
		mr = eng_mr_scatter(r->qp->dev->fw, r->pd, r->rwqe.sge,
				    r->rwqe.nsge, r->ud ? 40 : 0, p, &src_fault);
		if (mr == ENG_MR_LEN)
			return RESP_ERR_LENGTH;
		if (mr == ENG_MR_FAULT && src_fault)
			return RESP_ERR_SRC_FAULT;
		if (mr != ENG_MR_OK)
			return RESP_ERR_RWQE_PROT;
		return RESP_COMPLETE;
	}
}

static void eng_resp_cqe(struct eng_resp *r)
{
	struct eng_pkt *p = r->pkt;
	struct eng_cqe c = { 0 };

	if (!r->cq)
		return;
	c.opcode = (uint8_t)r->oi->resp_cqe;
	c.qpn = r->qp->fq->obj.id;
	c.wqe_counter = r->rwqe.idx;
	c.byte_cnt = p->len + (r->ud ? 40 : 0);
	c.srqn_uidx = r->uidx;
	if (p->has_imm)
		c.imm_inval_pkey = p->imm;
	else if (r->oi->segs & ENG_SEG_INV)
		c.imm_inval_pkey = htobe32(p->inv_rkey);
	c.flags_rqpn = p->sqpn & 0xffffff;
	c.se = p->se;
	/* UD: the GRH area is in the buffer ([29:28] = 1); RoCE packet type
	 * in [27:24]: UDP (v2) << 3 | L3 header type (GRH 0, IPv6 1, IPv4 2). */
	if (r->ud)
		c.flags_rqpn |= 1u << 28 |
				((p->addr.roce_v2 ? 8u : 0u) | r->l3_type) << 24;
	if (eng_cqe_write(r->cq, &c) == -ENOSPC)
		eng_count(r->qp, EMU_FW_QCNT_CQ_OVERFLOW);
}

/* A responder error with a receive WQE: its error CQE. */
static void eng_resp_err_cqe(struct eng_resp *r, enum eng_synd_id id)
{
	const struct eng_synd *sy = eng_synd(id);

	eng_count(r->qp, EMU_FW_QCNT_RESP_CQE_ERROR);
	if (r->cq)
		eng_cqe_error(r->cq, r->qp->fq->obj.id, r->uidx, r->rwqe.idx,
			      0, true, sy->syndrome, sy->vendor);
	r->err_cqe = true;
}

static void eng_resp_to_err(struct eng_resp *r)
{
	if (r->reliable || r->ud)
		eng_qp_to_err(r->qp);
}

bool eng_resp_rcv(struct eng_qp *qp, struct eng_pkt *pkt,
		  struct eng_pkt *ack)
{
	struct eng_resp r = {
		.qp = qp, .pkt = pkt, .ack = ack,
		.reliable = qp->fq->st == MLX5_QPC_ST_RC ||
			    qp->fq->st == MLX5_QPC_ST_XRC,
		.ud = qp->fq->st == MLX5_QPC_ST_UD,
	};
	enum eng_resp_state s = RESP_CHECK_STATE;

	while (s != RESP_DONE) {
		switch (s) {
		case RESP_CHECK_STATE:
			s = eng_resp_check_state(&r);
			break;
		case RESP_CHECK_OP:
			s = eng_resp_check_op(&r);
			break;
		case RESP_CHECK_PSN:
			s = eng_resp_check_psn(&r);
			break;
		case RESP_CHECK_RIGHTS:
			s = eng_resp_check_rights(&r);
			break;
		case RESP_GET_RWQE:
			s = eng_resp_get_rwqe(&r);
			break;
		case RESP_EXECUTE:
			s = eng_resp_execute(&r);
			break;
		case RESP_COMPLETE:
			eng_resp_cqe(&r);
			s = RESP_ACK;
			break;
		case RESP_ACK:
			if (r.reliable)
				atomic_fetch_add(&qp->fq->hw.rq_psn, pkt->npsn);
			ack->aeth_syndrome = ENG_AETH_ACK;
			ack->msn = ++qp->msn;
			r.answered = r.reliable;
			s = RESP_DONE;
			break;
		case RESP_NAK:
			ack->aeth_syndrome = r.nak;
			ack->pay = ENG_PAY_NONE;
			ack->len = 0;
			r.answered = r.reliable;
			/* Class C responder errors end the QP (IBA 10.3.1);
			 * RNR and sequence NAKs do not. */
			if (r.nak == ENG_AETH_NAK_REM_ACCESS ||
			    r.nak == ENG_AETH_NAK_INV_REQ) {
				if (r.reliable && !r.err_cqe)
					eng_event_queue(qp->dev,
						r.nak == ENG_AETH_NAK_REM_ACCESS ?
						MLX5_EVENT_TYPE_WQ_ACCESS_ERROR :
						MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR,
						qp->fq->obj.id);
				eng_resp_to_err(&r);
			}
			s = RESP_DONE;
			break;
		case RESP_ERR_LENGTH:
			eng_count(qp, EMU_FW_QCNT_RESP_LOCAL_LENGTH_ERROR);
			eng_resp_err_cqe(&r, ENG_SYND_LOCAL_LENGTH);
			r.nak = ENG_AETH_NAK_INV_REQ;
			s = RESP_NAK;
			break;
		case RESP_ERR_RWQE_PROT:
			eng_count(qp, EMU_FW_QCNT_RESP_LOCAL_PROTECTION);
			if (r.have_rwqe)
				eng_resp_err_cqe(&r, ENG_SYND_LOCAL_PROT);
			eng_resp_to_err(&r);
			r.nak = ENG_AETH_NAK_REM_OP;
			ack->aeth_syndrome = r.nak;
			r.answered = r.reliable;
			s = RESP_DONE;
			break;
		case RESP_ERR_SRC_FAULT:
			/* The sender's memory is gone: its error, not ours.
			 * A receive WQE taken goes back (nothing completes). */
			if (r.have_rwqe)
				eng_recv_untake(qp, &r.rwqe);
			ack->src_fault = true;
			r.answered = true;
			s = RESP_DONE;
			break;
		case RESP_DROP:
		default:
			r.answered = false;
			s = RESP_DONE;
			break;
		}
	}
	/* Unreliable senders learn of a fault in their own memory too. */
	return r.answered || ack->src_fault;
}
