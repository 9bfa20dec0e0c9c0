/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_resp.c -- the responder: executes request packets on its
 * QP and answers them.
 *
 * A state machine in the style of rxe_resp.c; each check cites the rule
 * it enforces:
 *
 *   CHECK_STATE  the QP receives in RTR, RTS, SQD and SQER (IBA 10.3.1);
 *                elsewhere the packet is dropped silently, which a
 *                reliable requester sees as a lost packet
 *   CHECK_OP     a packet of another transport than the QP's service is
 *                dropped (IBA 9.6); the operation is one the service
 *                type carries (IBA 9.8.1) else invalid request; XRC:
 *                the XRC SRQ named by XRCETH is of the target's XRC
 *                domain (IBA 14.2.6.3) else NAK invalid request, and
 *                that SRQ's PD, not the target QP's, guards
 *                every rkey and receive lkey of the message (an XRC target
 *                QP has no PD of its own: mlx5_ib gives it an internal
 *                one); UD: the Q_Key matches (IBA C10-15) else drop
 *   CHECK_PSN    RC/XRC (IBA 9.7.5.1.1): the expected PSN goes on; a later
 *                one is a sequence error, NAKed once until the expected
 *                PSN comes (C9-108); an earlier one is a duplicate (C9-104);
 *                UC (IBA 9.8.2): a gap ends the message in progress
 *   CHECK_SEQ    FIRST, MIDDLE, LAST in order (IBA C9-110): RC NAK invalid
 *                request, UC drop the message
 *   CHECK_LEN    FIRST and MIDDLE fill the path MTU, LAST and ONLY at most
 *                that (IBA C9-114); a WRITE's packets add up to its DMA
 *                length (C9-115) else NAK invalid request
 *   CHECK_RIGHTS the QP enables the remote access (rre/rwe/rae: IBA
 *                10.2.4.3) and the rkey is of the QP's PD with the rights
 *                and bounds (IBA C9-? / 10.6.3.1): NAK remote access error;
 *                an atomic on an address not 8-byte aligned: NAK invalid
 *                request
 *   GET_RWQE     SEND and WRITE with immediate consume a receive WQE; none
 *                posted: RC RNR NAK with the QP's min_rnr_timer (IBA
 *                9.7.5.2.8), UC/UD drop
 *   EXECUTE      copy, read or the atomic, through emu/mem; the message
 *                longer than the receive WQE: local length error at the
 *                responder and NAK invalid request; a receive WQE the PD
 *                does not allow: local protection error at the responder
 *                and NAK remote operation error; SEND_WITH_INV's last
 *                packet invalidates the window its IETH names (IBA
 *                o10-37.2.26: a type 2 window of this PD bound to this
 *                QP; rxe_resp.c invalidate_rkey), else the receive WQE
 *                completes with a remote invalid request error and the
 *                request is NAKed as invalid (rxe's class J status)
 *   COMPLETE     the receive CQE at the message's last packet (opcode,
 *                byte count, immediate, source QP, UD GRH flags)
 *   ACK          the expected PSN advances; an ACK when the packet asks
 *                for one, coalesced with the rest of the batch (IBA
 *                9.7.5.1.1: one ACK may answer many requests)
 *   DUPLICATE    SEND/WRITE: acknowledged again; READ: answered again from
 *                its resource, from the PSN asked; atomic: its saved
 *                result again, never executed twice (IBA 9.7.5.2.1)
 *   ERROR        responder errors on a reliable QP move it to ERR (IBA
 *                10.3.1, class C errors): outstanding receives flush
 *
 * Affiliated events (IBA 11.6.3.1): the first packet an RC/UC/XRC QP
 * receives in RTR raises COMM_EST; a NAK remote access error, invalid
 * request or remote operational error that no responder CQE reports
 * raises WQ_ACCESS_ERROR, WQ_INVAL_REQ_ERROR or WQ_CATAS_ERROR on the
 * responder's QP (errors a CQE reports raise none).
 */
#include <endian.h>
#include <string.h>

#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"

enum eng_resp_state {
	RESP_CHECK_STATE,
	RESP_CHECK_OP,
	RESP_CHECK_PSN,
	RESP_CHECK_SEQ,
	RESP_CHECK_LEN,
	RESP_CHECK_RIGHTS,
	RESP_GET_RWQE,
	RESP_EXECUTE,
	RESP_COMPLETE,
	RESP_ACK,
	RESP_DUPLICATE,
	RESP_NAK,
	RESP_ERR_LENGTH,
	RESP_ERR_INVALIDATE,
	RESP_ERR_RWQE_PROT,
	RESP_ERR_SRC_FAULT,
	RESP_ERR_INJECTED,
	RESP_DROP,
	RESP_DONE,
};

struct eng_resp {
	struct eng_qp *qp;
	struct eng_pkt *pkt;
	struct eng_resp_msg *m;
	const struct eng_opcode_info *oi;	/* the message's operation */
	const struct emu_wire_opinfo *wi;	/* the packet's place */
	bool reliable, ud, first, last;
	struct emu_fw_srq *srq;	/* where receives come from, if an SRQ */
	struct emu_fw_cq *cq;	/* where receives complete */
	const struct emu_fw_pd *pd;	/* what guards rkeys and receive lkeys */
	uint32_t uidx;
	uint8_t *target;	/* READ/atomic: the resolved remote address */
	uint8_t nak;
	uint32_t nak_psn;
	uint8_t l3_type;
	bool accepted;
	bool err_cqe;		/* a responder error CQE reported the error */
	uint16_t err_idx;	/* its receive WQE, and what it says: */
	uint8_t err_syndrome, err_vendor;
	const struct emu_eng_verdict *inj;	/* a fault rule's error */
};

static uint32_t eng_resp_epsn(const struct eng_qp *qp)
{
	return atomic_load(&qp->fq->hw.rq_psn) & 0xffffff;
}

/* ---- answers ---- */

static void eng_resp_answer(struct eng_qp *qp, struct eng_pkt *a, uint8_t op,
			    uint32_t psn, uint8_t syndrome)
{
	ENG_PKT_CLEAR(a);
	a->opcode = (uint8_t)((qp->fq->st == MLX5_QPC_ST_XRC ? EMU_WIRE_TR_XRC :
							      EMU_WIRE_TR_RC) | op);
	a->sqpn = qp->fq->obj.id;
	a->dqpn = qp->attr.remote_qpn;
	a->psn = psn & 0xffffff;
	a->npsn = 1;
	a->aeth_syndrome = syndrome;
	a->msn = qp->msn & 0xffffff;
	eng_fabric_src(qp, &a->addr);
}

void eng_resp_flush_ack(struct eng_qp *qp)
{
	struct eng_pkt a;

	if (!qp->ack_pending)
		return;
	qp->ack_pending = false;
	eng_resp_answer(qp, &a, EMU_WIRE_OP_ACK, qp->ack_psn,
			ENG_AETH_ACK | ENG_AETH_ACK_CREDITS);
	eng_fabric_send(qp, &a, 0, 1);
}

/* The ACKs the pass held back; a QP they answer may queue another. */
void eng_resp_flush_acks(struct eng *e)
{
	for (unsigned int i = 0; i < e->nacks; i++)
		eng_resp_flush_ack(e->acks[i]);
	e->nacks = 0;
}

/* A QP going away leaves no held-back ACK behind. */
void eng_resp_forget_acks(struct eng *e, struct eng_qp *qp)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < e->nacks; i++)
		if (e->acks[i] != qp)
			e->acks[n++] = e->acks[i];
	e->nacks = n;
}

/*
 * An ACK for everything up to psn, sent at the end of the pass: one ACK
 * answers the pass's packets of a QP, in process as on the wire (a
 * ConnectX coalesces ACKs too).
 */
static void eng_resp_ack_later(struct eng_qp *qp, uint32_t psn)
{
	struct eng *e = &eng_g;

	qp->ack_psn = psn & 0xffffff;
	if (qp->ack_pending)
		return;
	qp->ack_pending = true;
	if (e->nacks >= sizeof(e->acks) / sizeof(e->acks[0]))
		eng_resp_flush_ack(qp);
	else
		e->acks[e->nacks++] = qp;
}

static void eng_resp_send_nak(struct eng_qp *qp, uint8_t syndrome,
			      uint32_t psn)
{
	struct eng_pkt a;

	eng_resp_flush_ack(qp);
	qp->st.naks_sent++;
	eng_resp_answer(qp, &a, EMU_WIRE_OP_ACK, psn, syndrome);
	eng_fabric_send(qp, &a, 0, 1);
}

/* A READ's data from res, from its PSN @from on.  -EFAULT: the memory
 * went away. */
static int eng_resp_send_read(struct eng_qp *qp, const struct eng_rd_res *res,
			      uint8_t *target, uint32_t from)
{
	struct eng_pkt a;

	eng_resp_flush_ack(qp);
	eng_resp_answer(qp, &a, EMU_WIRE_OP_READ_RESP_ONLY, res->psn,
			ENG_AETH_ACK | ENG_AETH_ACK_CREDITS);
	a.npsn = res->npsn;
	a.pay = ENG_PAY_FRAGS;
	a.nfrags = res->len ? 1 : 0;
	a.frags[0].addr = target;
	a.frags[0].len = res->len;
	a.len = res->len;
	return eng_fabric_send(qp, &a, from, res->npsn - from) < 0 ? -EFAULT : 0;
}

static void eng_resp_send_atomic(struct eng_qp *qp, const struct eng_rd_res *res)
{
	struct eng_pkt a;

	eng_resp_flush_ack(qp);
	eng_resp_answer(qp, &a, EMU_WIRE_OP_ATOMIC_ACK, res->psn,
			ENG_AETH_ACK | ENG_AETH_ACK_CREDITS);
	a.orig = res->orig;
	eng_fabric_send(qp, &a, 0, 1);
}

/* ---- checks ---- */

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

static enum eng_resp_state eng_resp_bad_req(struct eng_resp *r)
{
	if (!r->reliable)
		return RESP_DROP;
	r->nak = ENG_AETH_NAK_INV_REQ;
	return RESP_NAK;
}

static enum eng_resp_state eng_resp_check_op(struct eng_resp *r)
{
	struct emu_fw_qp *fq = r->qp->fq;
	struct eng_pkt *p = r->pkt;
	uint8_t tr = fq->st == MLX5_QPC_ST_RC ? EMU_WIRE_TR_RC :
		     fq->st == MLX5_QPC_ST_UC ? EMU_WIRE_TR_UC :
		     fq->st == MLX5_QPC_ST_UD ? EMU_WIRE_TR_UD : EMU_WIRE_TR_XRC;

	/* IBA 9.6: a packet of another transport than the QP's service
	 * fails the header checks and is dropped silently; it is not the
	 * QP's peer that sent it (rxe's check_type_state). */
	if ((p->opcode & 0xe0) != tr)
		return RESP_DROP;
	r->wi = emu_wire_opinfo(p->opcode);
	r->oi = r->wi ? eng_opcode_of_wire(p->opcode) : NULL;
	if (!r->oi || !(r->oi->qp_types & eng_qp_st_bit(fq)))
		return eng_resp_bad_req(r);
	r->first = r->wi->flags & EMU_WIRE_F_FIRST;
	r->last = r->wi->flags & EMU_WIRE_F_LAST;
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
			r->nak_psn = p->psn;
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
	return r->ud ? RESP_CHECK_LEN : RESP_CHECK_PSN;
}

static enum eng_resp_state eng_resp_check_psn(struct eng_resp *r)
{
	struct eng_qp *qp = r->qp;
	struct eng_pkt *p = r->pkt;
	uint32_t expect = eng_resp_epsn(qp);
	int32_t d = eng_psn_diff(p->psn, expect);

	if (!r->reliable) {
		/* UC: a gap loses the message in progress; a new one may
		 * start at any PSN (IBA 9.8.2). */
		if (d) {
			if (r->m->in_msg)
				eng_count(qp, EMU_FW_QCNT_OUT_OF_SEQUENCE);
			r->m->in_msg = false;
			r->m->offset = 0;
			if (!r->first) {
				atomic_store(&qp->fq->hw.rq_psn,
					     (p->psn + 1) & 0xffffff);
				return RESP_DROP;
			}
		}
		return RESP_CHECK_SEQ;
	}
	if (d > 0) {
		eng_count(qp, EMU_FW_QCNT_OUT_OF_SEQUENCE);
		if (qp->nak_sent)
			return RESP_DROP;
		qp->nak_sent = true;
		r->nak = ENG_AETH_NAK_SEQ;
		r->nak_psn = expect;
		return RESP_NAK;
	}
	if (d < 0)
		return RESP_DUPLICATE;
	qp->nak_sent = false;
	return RESP_CHECK_SEQ;
}

static enum eng_resp_state eng_resp_check_seq(struct eng_resp *r)
{
	struct eng_resp_msg *m = r->m;
	uint16_t kind = r->wi->flags & (EMU_WIRE_F_SEND | EMU_WIRE_F_WRITE);

	if (m->in_msg ? (r->first || kind != m->op) : !r->first) {
		if (r->reliable)
			return eng_resp_bad_req(r);
		/* UC: a FIRST or ONLY starts over, anything else waits. */
		m->in_msg = false;
		m->offset = 0;
		if (!r->first)
			return RESP_DROP;
	}
	return RESP_CHECK_LEN;
}

static enum eng_resp_state eng_resp_check_len(struct eng_resp *r)
{
	struct eng_pkt *p = r->pkt;
	uint32_t mtu = eng_mtu(r->qp);
	bool write = r->wi->flags & EMU_WIRE_F_WRITE;
	uint64_t end;

	/* One wire packet: FIRST/MIDDLE fill the MTU, LAST and ONLY fit. */
	if (p->npsn == 1 && (r->first && r->last ? p->len > mtu :
			     r->last ? !p->len || p->len > mtu : p->len != mtu))
		return eng_resp_bad_req(r);
	if (!write)
		return r->first ? RESP_CHECK_RIGHTS : RESP_GET_RWQE;
	end = (uint64_t)(r->first ? 0 : r->m->offset) + p->len;
	if (end > (r->first ? p->dma_len : r->m->dma_len) ||
	    (r->last && end != (r->first ? p->dma_len : r->m->dma_len)))
		return eng_resp_bad_req(r);
	return r->first ? RESP_CHECK_RIGHTS : RESP_GET_RWQE;
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
		return eng_resp_bad_req(r);
	}
	if (!on || emu_fw_mkey_resolve_qp(r->qp->dev->fw, p->rkey, r->pd,
					  r->qp->fq->obj.id, need, p->va,
					  p->dma_len, &r->target) !=
			   EMU_FW_MKEY_OK) {
		eng_count(r->qp, EMU_FW_QCNT_RESP_REMOTE_ACCESS_ERRORS);
		if (!r->reliable)
			return RESP_DROP;
		r->nak = ENG_AETH_NAK_REM_ACCESS;
		return RESP_NAK;
	}
	if (need & EMU_FW_MKEY_RW) {
		r->m->target = r->target;
		r->m->dma_len = p->dma_len;
	}
	return RESP_GET_RWQE;
}

static enum eng_resp_state eng_resp_get_rwqe(struct eng_resp *r)
{
	struct eng_resp_msg *m = r->m;
	bool send = r->wi->flags & EMU_WIRE_F_SEND;

	/* SEND takes its receive WQE with its first packet, WRITE with
	 * immediate with its last. */
	if (!r->oi->consumes_rwqe || m->have_rwqe ||
	    (send ? !r->first : !r->last))
		return RESP_EXECUTE;
	switch (eng_recv_take(r->qp, r->srq, &m->rwqe)) {
	case ENG_RECV_OK:
		m->have_rwqe = true;
		m->srq = r->srq;
		if (eng_g.dp_now) {
			r->inj = eng_dp_recv(r->qp, eng_opcode_value(r->oi),
					     &m->rwqe);
			if (r->inj && r->inj->error)
				return RESP_ERR_INJECTED;
		}
		return RESP_EXECUTE;
	case ENG_RECV_NONE:
		eng_count(r->qp, EMU_FW_QCNT_OUT_OF_BUFFER);
		if (!r->reliable)
			return RESP_DROP;
		r->nak = (uint8_t)(ENG_AETH_RNR | (r->qp->attr.min_rnr_nak & 0x1f));
		r->nak_psn = r->pkt->psn;
		return RESP_NAK;
	default:
		return RESP_ERR_RWQE_PROT;
	}
}

/* UD: the 40 bytes before the payload hold the GRH (eng_grh.c). */
static bool eng_resp_write_grh(struct eng_resp *r)
{
	struct eng_rwqe *w = &r->m->rwqe;
	uint8_t grh[40], *host;
	uint32_t left = sizeof(grh), done = 0;

	eng_grh_build(r->pkt, grh, &r->l3_type);
	for (unsigned int i = 0; i < w->nsge && left; i++) {
		uint32_t n = w->sge[i].len < left ? w->sge[i].len : left;

		if (!n)
			continue;
		if (emu_fw_mkey_resolve_qp(r->qp->dev->fw, w->sge[i].lkey,
					   r->pd, r->qp->fq->obj.id,
					   EMU_FW_MKEY_LW, w->sge[i].addr, n,
					   &host) !=
			    EMU_FW_MKEY_OK ||
		    emu_mem_write(host, grh + done, n))
			return false;
		done += n;
		left -= n;
	}
	return true;
}

/* A resource for a READ or atomic, kept for duplicates. */
static struct eng_rd_res *eng_resp_res_new(struct eng_qp *qp)
{
	unsigned int n = 1u << qp->attr.log_rra_max;
	struct eng_rd_res *res;

	if (n > ENG_RD_RES_MAX)
		n = ENG_RD_RES_MAX;
	res = &qp->res[qp->res_next % n];
	qp->res_next = (qp->res_next + 1) % n;
	memset(res, 0, sizeof(*res));
	res->valid = true;
	return res;
}

/* Atomics in place, in host byte order (atomic_req_8B_endianness_mode 1:
 * the responder's memory holds a native 64-bit value). */
static enum eng_resp_state eng_resp_atomic(struct eng_resp *r)
{
	struct eng_pkt *p = r->pkt;
	struct eng_rd_res *res;
	uint64_t old;

	if ((p->opcode & 0x1f) == EMU_WIRE_OP_CMP_SWAP) {
		old = p->compare;
		if (emu_mem_cas64(r->target, &old, p->swap_add))
			goto fault;
	} else if (emu_mem_fadd64(r->target, p->swap_add, &old)) {
		goto fault;
	}
	eng_count(r->qp, EMU_FW_QCNT_RX_ATOMIC_REQUESTS);
	res = eng_resp_res_new(r->qp);
	res->atomic = true;
	res->psn = p->psn;
	res->npsn = 1;
	res->orig = old;
	eng_resp_send_atomic(r->qp, res);
	return RESP_ACK;
fault:
	r->nak = ENG_AETH_NAK_REM_ACCESS;
	return RESP_NAK;
}

static enum eng_resp_state eng_resp_read(struct eng_resp *r)
{
	struct eng_pkt *p = r->pkt;
	struct eng_rd_res *res = eng_resp_res_new(r->qp);

	eng_count(r->qp, EMU_FW_QCNT_RX_READ_REQUESTS);
	res->psn = p->psn;
	res->npsn = eng_npsn(r->qp, p->dma_len);
	res->va = p->va;
	res->rkey = p->rkey;
	res->len = p->dma_len;
	/* The request stands for the PSNs of its responses (IBA 9.7.1). */
	p->npsn = res->npsn;
	if (eng_resp_send_read(r->qp, res, r->target, 0)) {
		r->nak = ENG_AETH_NAK_REM_ACCESS;
		return RESP_NAK;
	}
	return RESP_ACK;
}

static enum eng_resp_state eng_resp_execute(struct eng_resp *r)
{
	struct eng_pkt *p = r->pkt;
	struct eng_resp_msg *m = r->m;
	bool src_fault = false;
	enum eng_mr_res mr;

	if (r->wi->flags & EMU_WIRE_F_READ)
		return eng_resp_read(r);
	if (r->wi->flags & EMU_WIRE_F_ATOMIC)
		return eng_resp_atomic(r);
	if (r->wi->flags & EMU_WIRE_F_WRITE) {
		if (r->first) {
			m->offset = 0;
			eng_count(r->qp, EMU_FW_QCNT_RX_WRITE_REQUESTS);
		}
		if (p->len && eng_mr_copy_payload(m->target + m->offset, p,
						  &src_fault)) {
			if (src_fault)
				return RESP_ERR_SRC_FAULT;
			if (!r->reliable)
				return RESP_DROP;
			r->nak = ENG_AETH_NAK_REM_ACCESS;
			return RESP_NAK;
		}
	} else {			/* SEND */
		if (r->first) {
			m->offset = 0;
			if (r->ud && !eng_resp_write_grh(r))
				return RESP_ERR_RWQE_PROT;
		}
		mr = eng_mr_scatter(r->qp->dev->fw, r->qp->fq->obj.id, r->pd,
				    m->rwqe.sge, m->rwqe.nsge, (r->ud ? 40 : 0) + m->offset, p,
				    &src_fault);
		if (mr == ENG_MR_LEN)
			return RESP_ERR_LENGTH;
		if (mr == ENG_MR_FAULT && src_fault)
			return RESP_ERR_SRC_FAULT;
		if (mr != ENG_MR_OK)
			return RESP_ERR_RWQE_PROT;
		if (r->last && (r->oi->segs & ENG_SEG_INV) &&
		    emu_fw_mkey_invalidate(r->qp->dev->fw, r->pd,
					   r->qp->fq->obj.id, p->inv_rkey) !=
			    EMU_FW_UMR_OK)
			return RESP_ERR_INVALIDATE;
	}
	m->offset += p->len;
	m->op = r->wi->flags & (EMU_WIRE_F_SEND | EMU_WIRE_F_WRITE);
	m->in_msg = !r->last;
	return r->last && m->have_rwqe ? RESP_COMPLETE : RESP_ACK;
}

static void eng_resp_cqe(struct eng_resp *r)
{
	struct eng_pkt *p = r->pkt;
	struct eng_resp_msg *m = r->m;
	struct eng_cqe c = { 0 };

	m->have_rwqe = false;
	if (!r->cq)
		return;
	c.opcode = (uint8_t)r->oi->resp_cqe;
	c.qpn = r->qp->fq->obj.id;
	c.wqe_counter = m->rwqe.idx;
	c.byte_cnt = m->offset + (r->ud ? 40 : 0);
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
	(void)eng_cqe_qp(r->qp, r->cq, &c);
}

/* A responder error with a receive WQE: its error CQE. */
/* A class C NAK's affiliated event on the responder's QP (IBA 11.6.3.1). */
static uint8_t eng_resp_nak_event(uint8_t nak)
{
	switch (nak) {
	case ENG_AETH_NAK_REM_ACCESS:
		return MLX5_EVENT_TYPE_WQ_ACCESS_ERROR;
	case ENG_AETH_NAK_INV_REQ:
		return MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR;
	default:	/* remote operational error */
		return MLX5_EVENT_TYPE_WQ_CATAS_ERROR;
	}
}

static void eng_resp_err_cqe_raw(struct eng_resp *r, uint8_t syndrome,
				 uint8_t vendor)
{
	eng_count(r->qp, EMU_FW_QCNT_RESP_CQE_ERROR);
	r->m->have_rwqe = false;
	r->m->in_msg = false;
	r->err_cqe = true;
	r->err_idx = r->m->rwqe.idx;
	r->err_syndrome = syndrome;
	r->err_vendor = vendor;
}

static void eng_resp_err_cqe(struct eng_resp *r, enum eng_synd_id id)
{
	const struct eng_synd *sy = eng_synd(id);

	eng_resp_err_cqe_raw(r, sy->syndrome, sy->vendor);
}

static void eng_resp_to_err(struct eng_resp *r)
{
	if (r->reliable || r->ud)
		eng_qp_to_err(r->qp);
}

/* A request seen before (IBA 9.7.5.2.1). */
static enum eng_resp_state eng_resp_duplicate(struct eng_resp *r)
{
	struct eng_qp *qp = r->qp;
	struct eng_pkt *p = r->pkt;
	const struct emu_wire_opinfo *wi = emu_wire_opinfo(p->opcode);

	eng_count(qp, EMU_FW_QCNT_DUPLICATE_REQUEST);
	qp->st.duplicates++;
	if (!wi || !(wi->flags & (EMU_WIRE_F_READ | EMU_WIRE_F_ATOMIC))) {
		/* Everything before the expected PSN was done: say so. */
		eng_resp_ack_later(qp, eng_resp_epsn(qp) - 1);
		return RESP_DONE;
	}
	for (unsigned int i = 0; i < ENG_RD_RES_MAX; i++) {
		struct eng_rd_res *res = &qp->res[i];
		int32_t in = eng_psn_diff(p->psn, res->psn);
		uint8_t *target;

		if (!res->valid || in < 0 || in >= (int32_t)res->npsn ||
		    res->atomic != !!(wi->flags & EMU_WIRE_F_ATOMIC))
			continue;
		if (res->atomic) {
			if (!in)
				eng_resp_send_atomic(qp, res);
			return RESP_DONE;
		}
		/* The data again, through the rkey as it is now. */
		if (res->len && emu_fw_mkey_resolve_qp(qp->dev->fw, res->rkey,
						       r->pd, qp->fq->obj.id,
						       EMU_FW_MKEY_RR, res->va,
						       res->len, &target) !=
				    EMU_FW_MKEY_OK)
			return RESP_DROP;
		if (!res->len)
			target = NULL;
		eng_resp_send_read(qp, res, target, (uint32_t)in);
		return RESP_DONE;
	}
	return RESP_DROP;	/* older than the resources remember */
}

bool eng_resp_rcv(struct eng_qp *qp, struct eng_pkt *pkt)
{
	struct eng_resp r = {
		.qp = qp, .pkt = pkt, .m = &qp->rmsg,
		.reliable = qp->fq->st == MLX5_QPC_ST_RC ||
			    qp->fq->st == MLX5_QPC_ST_XRC,
		.ud = qp->fq->st == MLX5_QPC_ST_UD,
	};
	enum eng_resp_state s = RESP_CHECK_STATE;

	qp->st.rx_pkts++;
	r.nak_psn = pkt->psn;
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
		case RESP_CHECK_SEQ:
			s = eng_resp_check_seq(&r);
			break;
		case RESP_CHECK_LEN:
			s = eng_resp_check_len(&r);
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
			r.accepted = true;
			/* A release store: a locked one here, after the
			 * payload's copy, would wait for all of it to land. */
			if (!r.reliable && !r.ud)
				atomic_store_explicit(&qp->fq->hw.rq_psn,
					(pkt->psn + pkt->npsn) & 0xffffff,
					memory_order_release);
			if (!r.reliable) {
				s = RESP_DONE;
				break;
			}
			atomic_store_explicit(&qp->fq->hw.rq_psn,
					      (pkt->psn + pkt->npsn) & 0xffffff,
					      memory_order_release);
			if (r.last)
				qp->msn++;
			/* READ and atomic answers went already. */
			if (!(r.wi->flags & (EMU_WIRE_F_READ | EMU_WIRE_F_ATOMIC)) &&
			    (pkt->ackreq || r.last))
				eng_resp_ack_later(qp, pkt->psn + pkt->npsn - 1);
			s = RESP_DONE;
			break;
		case RESP_DUPLICATE:
			s = eng_resp_duplicate(&r);
			break;
		case RESP_NAK:
			if (r.reliable)
				eng_resp_send_nak(qp, r.nak, r.nak_psn);
			/* Class C responder errors end the QP (IBA 10.3.1);
			 * RNR and sequence NAKs do not. */
			if (r.nak == ENG_AETH_NAK_REM_ACCESS ||
			    r.nak == ENG_AETH_NAK_INV_REQ ||
			    r.nak == ENG_AETH_NAK_REM_OP) {
				/* Errors no responder CQE reported raise
				 * the QP's affiliated event. */
				if (r.reliable && !r.err_cqe)
					eng_event_queue(qp->dev,
						eng_resp_nak_event(r.nak),
						qp->fq->obj.id);
				eng_resp_to_err(&r);
			}
			s = RESP_DONE;
			break;
		case RESP_ERR_LENGTH:
		case RESP_ERR_INVALIDATE: {
			bool len = s == RESP_ERR_LENGTH;

			/* The receive WQE's error, and an invalid request. */
			eng_count(qp, len ? EMU_FW_QCNT_RESP_LOCAL_LENGTH_ERROR :
				  EMU_FW_QCNT_RESP_REMOTE_INVALID_REQUEST);
			eng_resp_err_cqe(&r, len ? ENG_SYND_LOCAL_LENGTH :
					 ENG_SYND_REMOTE_INVAL_REQ);
			r.nak = ENG_AETH_NAK_INV_REQ;
			s = RESP_NAK;
			break;
		}
		case RESP_ERR_RWQE_PROT:
			eng_count(qp, EMU_FW_QCNT_RESP_LOCAL_PROTECTION);
			if (r.m->have_rwqe)
				eng_resp_err_cqe(&r, ENG_SYND_LOCAL_PROT);
			r.nak = ENG_AETH_NAK_REM_OP;
			if (r.reliable) {
				s = RESP_NAK;
				break;
			}
			eng_resp_to_err(&r);
			s = RESP_DONE;
			break;
		case RESP_ERR_INJECTED:
			/* A fault rule's error on the receive WQE: reported
			 * and answered as the responder's own error of that
			 * kind (a length error NAKs an invalid request, the
			 * others a remote operational error). */
			eng_resp_err_cqe_raw(&r, r.inj->syndrome, r.inj->vendor);
			r.nak = r.inj->syndrome ==
					MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR ?
				ENG_AETH_NAK_INV_REQ : ENG_AETH_NAK_REM_OP;
			if (r.reliable) {
				s = RESP_NAK;
				break;
			}
			eng_resp_to_err(&r);
			s = RESP_DONE;
			break;
		case RESP_ERR_SRC_FAULT:
			/* In process, the sender's memory is gone: its error,
			 * not ours.  A receive WQE taken for the message goes
			 * back (nothing completes); the sender sees it when the
			 * delivery returns. */
			if (r.m->have_rwqe && r.first) {
				eng_recv_untake(qp, &r.m->rwqe);
				r.m->have_rwqe = false;
			}
			r.m->in_msg = false;
			pkt->src_fault = true;
			s = RESP_DONE;
			break;
		case RESP_DROP:
		default:
			qp->st.dropped++;
			s = RESP_DONE;
			break;
		}
	}
	/* The error CQE last: the NAK went (its requester completes first)
	 * and the QP is in error, so a query after the poll finds it so. */
	if (r.err_cqe && r.cq)
		eng_cqe_error(qp, r.cq, r.uidx, r.err_idx, 0, true,
			      r.err_syndrome, r.err_vendor);
	return r.accepted;
}
