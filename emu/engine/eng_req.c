/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_req.c -- the requester: turns send WQEs into packets.
 *
 * A state machine in the style of rxe_req.c, one step per state:
 *
 *   GET_WQE   the SQ doorbell record (dbr[1], a 16-bit WQEBB counter, read
 *             with acquire) says whether a WQE is posted; the head WQE is
 *             read once into engine memory (eng_wqe.c), or the WQE that
 *             waits for a timer is taken again
 *   CHECK     the opcode is valid on this service type and advertised
 *             (IBA 9.8.1 / o9-? table 38; otherwise a local QP operation
 *             error); lengths within log_msg_max (IBA C9-56), and for UD
 *             within the path MTU (IBA C10-?)
 *   GATHER    local buffers through lkeys of the QP's PD (local protection
 *             error otherwise, IBA C10-41)
 *   BUILD     the packet: BTH (opcode, PSN, destination QP, ack request,
 *             solicited event) and the extension headers the operation has
 *   SEND      through the fabric; in process the response comes back at once
 *   COMPLETE  the completer decides: done, wait for an RNR timer, or wait
 *             for the transport timer and resend
 *   FLUSH     the QP is in ERR: every posted WQE completes with a flush
 *             error (IBA 10.3.1.6; also WQEs posted after the error)
 *
 * Fences (fm in the control segment) need no waiting here: in process a
 * READ or atomic has its response before the next WQE starts.
 */
#include <endian.h>
#include <string.h>

#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"

enum eng_req_step {
	REQ_GET_WQE,
	REQ_CHECK,
	REQ_GATHER,
	REQ_BUILD,
	REQ_SEND,
	REQ_COMPLETE,
	REQ_NEXT,
	REQ_WAIT,
	REQ_FLUSH,
	REQ_EXIT,
};

/* Path MTU in bytes (MLX5_QPC_MTU_*: 256 << (mtu - 1)). */
static uint32_t eng_mtu(const struct eng_qp *qp)
{
	unsigned int m = qp->attr.mtu ? qp->attr.mtu : 1;

	return m > 5 ? 4096u : 256u << (m - 1);
}

/* PSNs a message of len bytes spans: one per path-MTU packet. */
static uint32_t eng_npsn(const struct eng_qp *qp, uint32_t len)
{
	uint32_t mtu = eng_mtu(qp);

	return len ? (len + mtu - 1) / mtu : 1;
}

/* WQE basic blocks posted and not yet taken (SQ doorbell record). */
static uint16_t eng_sq_posted(struct eng_qp *qp, bool *fault)
{
	uint32_t v = 0;

	*fault = false;
	if (!qp->fq->sq.cnt || !qp->fq->dbr.addr)
		return 0;
	if (emu_mem_load32((const uint32_t *)(const void *)qp->fq->dbr.addr +
			   EMU_FW_DBR_SND, &v)) {
		*fault = true;
		return 0;
	}
	return (uint16_t)((uint16_t)be32toh(v) - qp->sq_ci);
}

static void eng_req_advance(struct eng_qp *qp, const struct eng_wqe *w)
{
	qp->sq_ci = (uint16_t)(qp->sq_ci + w->nbb);
	atomic_fetch_add(&qp->fq->hw.sq_wqebb_counter, w->nbb);
	qp->have_cur = false;
	qp->req = ENG_REQ_IDLE;
	qp->rnr_left = qp->attr.rnr_retry;
	qp->retry_left = qp->attr.retry_count;
}

/* What the operation asks of the transport and the local side. */
static enum eng_req_step eng_req_check(struct eng_qp *qp, struct eng_wqe *w)
{
	const struct eng_opcode_info *oi = eng_opcode(w->opcode);

	if (!oi || !(oi->qp_types & eng_qp_st_bit(qp->fq)) ||
	    !eng_opcode_advertised(qp->dev->fw, w->opcode)) {
		eng_count(qp, EMU_FW_QCNT_LOCAL_OPERATION_ERROR);
		eng_comp_error(qp, w, ENG_SYND_LOCAL_QP_OP);
		return REQ_NEXT;
	}
	/* IBA C9-56: no message longer than 2^log_msg_max. */
	if (w->len > (qp->attr.log_msg_max ?
		      (uint64_t)1 << qp->attr.log_msg_max : 1ull << 31) ||
	    (qp->fq->st == MLX5_QPC_ST_UD && w->len > eng_mtu(qp))) {
		eng_count(qp, EMU_FW_QCNT_REQ_LOCAL_LENGTH_ERROR);
		eng_comp_error(qp, w, ENG_SYND_LOCAL_LENGTH);
		return REQ_NEXT;
	}
	/* Atomics: one 8-byte local buffer for the original value. */
	if ((oi->segs & ENG_SEG_ATOMIC) && w->len != 8) {
		eng_count(qp, EMU_FW_QCNT_REQ_LOCAL_LENGTH_ERROR);
		eng_comp_error(qp, w, ENG_SYND_LOCAL_LENGTH);
		return REQ_NEXT;
	}
	if (w->opcode == MLX5_OPCODE_NOP) {
		eng_comp_success(qp, w, 0);
		return REQ_NEXT;
	}
	return REQ_GATHER;
}

static void eng_req_build(struct eng_qp *qp, const struct eng_wqe *w,
			  struct eng_pkt *p)
{
	const struct eng_opcode_info *oi = eng_opcode(w->opcode);
	static const uint8_t tr[] = {
		[MLX5_QPC_ST_RC] = ENG_TR_RC, [MLX5_QPC_ST_UC] = ENG_TR_UC,
		[MLX5_QPC_ST_UD] = ENG_TR_UD, [MLX5_QPC_ST_XRC] = ENG_TR_XRC,
	};

	p->opcode = (uint8_t)(tr[qp->fq->st & 7] | oi->wire_op);
	p->se = w->fm_ce_se & MLX5_WQE_CTRL_SOLICITED;
	p->ackreq = true;
	p->sqpn = qp->fq->obj.id;
	p->dqpn = qp->attr.remote_qpn;
	p->psn = atomic_load(&qp->fq->hw.sq_psn) & 0xffffff;
	p->npsn = eng_npsn(qp, w->len);
	p->xrc_srqn = w->xrc_srqn;
	p->has_imm = oi->segs & ENG_SEG_IMM;
	p->imm = w->imm;
	if (oi->segs & ENG_SEG_INV)
		p->inv_rkey = be32toh(w->imm);
	if (oi->segs & ENG_SEG_RADDR) {
		p->va = w->raddr;
		p->rkey = w->rkey;
		p->dma_len = w->len;
	}
	if (oi->segs & ENG_SEG_ATOMIC) {
		p->swap_add = w->swap_add;
		p->compare = w->compare;
		p->dma_len = 8;
		p->len = 0;
		p->pay = ENG_PAY_NONE;
	}
	if (oi->reads && !(oi->segs & ENG_SEG_ATOMIC)) {
		p->len = 0;		/* the data comes in the response */
		p->pay = ENG_PAY_NONE;
	}
	if (w->av) {
		uint32_t dqp = be32toh(w->av->dqp_dct) & 0xffffff;
		uint32_t qkey = be32toh(w->av->key.qkey.qkey);

		p->dqpn = dqp;
		/* IBA 10.2.5: a Q_Key with its high bit set means the QP's. */
		p->qkey = (qkey & 0x80000000u) ? qp->attr.q_key : qkey;
	}
	eng_fabric_src(qp, &p->addr);
	if (w->av) {
		uint32_t fl = be32toh(w->av->grh_gid_fl);

		memcpy(p->addr.dgid, w->av->rgid, 16);
		memcpy(p->addr.dmac, w->av->rmac, 6);
		p->addr.hop_limit = w->av->hop_limit;
		p->addr.tclass = w->av->tclass;
		p->addr.flow_label = fl & 0xfffff;
		p->addr.sgid_index = (uint8_t)(fl >> 20);
		p->addr.udp_sport = be16toh(w->av->rlid);
		eng_fabric_src_gid(qp, &p->addr);
	}
}

/* The WQE waiting for a timer, if its time has come. */
static enum eng_req_step eng_req_waiting(struct eng_qp *qp)
{
	if (qp->req == ENG_REQ_IDLE || !qp->have_cur)
		return REQ_GET_WQE;
	if (eng_g.now_ns < qp->deadline_ns) {
		eng_timer_arm(&eng_g, qp->deadline_ns);
		return REQ_EXIT;
	}
	qp->req = ENG_REQ_IDLE;
	return REQ_GATHER;	/* resend what was read */
}

/*
 * SQD sends nothing new (IBA 10.3.1, Send Queue Drain); once nothing the
 * requester began is outstanding, SQ_DRAINED (IBA 11.6.3.1), once.
 */
static unsigned int eng_req_drained(struct eng_qp *qp)
{
	if (!qp->have_cur && !qp->drained) {
		qp->drained = true;
		eng_event_queue(qp->dev, MLX5_EVENT_TYPE_SQ_DRAINED, qp->fq->obj.id);
	}
	return 0;
}

unsigned int eng_req_run(struct eng_qp *qp, unsigned int budget)
{
	enum eng_req_step step = REQ_GET_WQE;
	struct eng_wqe *w = &qp->cur;
	struct eng_pkt pkt, ack;
	unsigned int done = 0;
	enum eng_comp_res cr;
	bool answered = false, fault = false;
	uint16_t posted = 0;

	if (!eng_qp_refresh(qp))
		return 0;
	if (qp->state == MLX5_QPC_STATE_ERR ||
	    qp->state == MLX5_QPC_STATE_SQER)
		step = REQ_FLUSH;
	else if (qp->state == MLX5_QPC_STATE_SQD)
		return eng_req_drained(qp);
	else if (qp->state != MLX5_QPC_STATE_RTS)
		return 0;	/* RTR receives only */
	qp->drained = false;
	if (step != REQ_FLUSH)
		step = eng_req_waiting(qp);

	while (step != REQ_EXIT) {
		switch (step) {
		case REQ_GET_WQE:
			posted = done < budget ? eng_sq_posted(qp, &fault) : 0;
			if (!posted) {
				if (fault)
					eng_qp_to_err(qp);
				step = REQ_EXIT;
				break;
			}
			switch (eng_wqe_read(qp, qp->sq_ci, w)) {
			case ENG_WQE_OK:
				if (w->nbb > posted) {
					/* Claims blocks that were not posted. */
					eng_count(qp, EMU_FW_QCNT_LOCAL_OPERATION_ERROR);
					w->nbb = (uint8_t)posted;
					eng_comp_error(qp, w, ENG_SYND_LOCAL_QP_OP);
					step = REQ_NEXT;
					break;
				}
				qp->have_cur = true;
				step = REQ_CHECK;
				break;
			case ENG_WQE_BAD:
				eng_count(qp, EMU_FW_QCNT_LOCAL_OPERATION_ERROR);
				if (w->nbb > posted)
					w->nbb = (uint8_t)posted;
				w->idx = qp->sq_ci;
				eng_comp_error(qp, w, ENG_SYND_LOCAL_QP_OP);
				step = REQ_NEXT;
				break;
			default:	/* the ring itself is gone */
				w->idx = qp->sq_ci;
				w->nbb = 1;
				eng_comp_error(qp, w, ENG_SYND_LOCAL_QP_OP);
				step = REQ_NEXT;
				break;
			}
			break;
		case REQ_CHECK:
			step = eng_req_check(qp, w);
			break;
		case REQ_GATHER:
			ENG_PKT_CLEAR(&pkt);
			switch (eng_mr_gather(qp, w, &pkt)) {
			case ENG_MR_OK:
				step = REQ_BUILD;
				break;
			default:
				eng_count(qp, EMU_FW_QCNT_REQ_LOCAL_PROTECTION);
				eng_comp_error(qp, w, ENG_SYND_LOCAL_PROT);
				step = REQ_NEXT;
				break;
			}
			break;
		case REQ_BUILD:
			eng_req_build(qp, w, &pkt);
			step = REQ_SEND;
			break;
		case REQ_SEND:
			ENG_PKT_CLEAR(&ack);
			answered = eng_fabric_send(qp, &pkt, &ack);
			step = REQ_COMPLETE;
			break;
		case REQ_COMPLETE:
			cr = eng_comp_rcv(qp, w, &pkt, &ack, answered);
			step = cr == ENG_COMP_DONE ? REQ_NEXT : REQ_WAIT;
			break;
		case REQ_WAIT:
			eng_timer_arm(&eng_g, qp->deadline_ns);
			done++;
			step = REQ_EXIT;
			break;
		case REQ_NEXT:
			eng_req_advance(qp, w);
			done++;
			step = qp->state == MLX5_QPC_STATE_ERR ||
			       qp->state == MLX5_QPC_STATE_SQER ?
			       REQ_FLUSH : REQ_GET_WQE;
			break;
		case REQ_FLUSH:
			done += eng_comp_flush_sq(qp);
			if (qp->state == MLX5_QPC_STATE_ERR)
				done += eng_recv_flush(qp);
			step = REQ_EXIT;
			break;
		default:
			step = REQ_EXIT;
			break;
		}
	}
	return done;
}
