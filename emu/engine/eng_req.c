/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_req.c -- the requester: turns send WQEs into packets and
 * keeps the window of those not yet completed.
 *
 * A state machine in the style of rxe_req.c, one step per state:
 *
 *   TIMERS    the completer's transport and RNR timers (eng_comp.c): a
 *             timeout rewinds the window or ends the QP
 *   RESEND    packets a NAK, a timeout or an RNR wait rewound go again,
 *             oldest first, from the WQE still in the ring
 *   GET_WQE   the SQ doorbell record (dbr[1], a 16-bit WQEBB counter,
 *             read with acquire) says whether a WQE is posted; it is read
 *             once into engine memory (eng_wqe.c)
 *   CHECK     the opcode is valid on this service type and advertised
 *             (IBA 9.8.1, table 38; otherwise a local QP operation
 *             error); lengths within log_msg_max (IBA C9-56), UD within
 *             the path MTU (IBA C10-?); a NOP or a UMR (memory window
 *             bind or invalidation: fw_mkey_umr.c) is done here, once
 *             the WQEs before it completed, and completes at once (a
 *             broken rule: memory management operation error)
 *   FENCE     IBA 10.8.3.3: a fenced WQE waits for the READs and atomics
 *             before it; strong ordering for everything before it; a READ
 *             or atomic waits while 2^log_sra_max are outstanding (the
 *             initiator depth, IBA 9.5 / C9-?)
 *   GATHER    local buffers through lkeys of the QP's PD (local
 *             protection error otherwise, IBA C10-41)
 *   SEND      a PSN range is taken (one PSN per path-MTU packet, IBA
 *             9.7.1) and the packets go through the fabric: in process at
 *             once, on the wire as far as the window of unacknowledged
 *             bytes allows; RC/XRC WQEs join the window, UC and UD
 *             complete when sent (IBA 9.8.3: no acknowledgement)
 *   FLUSH     the QP is in ERR or SQER: every posted WQE completes with a
 *             flush error (IBA 10.3.1.6; also WQEs posted after the error)
 *
 * An error found in a WQE while earlier ones are outstanding waits until
 * they complete, so completions stay in order (IBA 10.8.3.1).
 */
#include <endian.h>
#include <string.h>

#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"

enum eng_req_step {
	REQ_TIMERS,
	REQ_RESEND,
	REQ_GET_WQE,
	REQ_CHECK,
	REQ_FENCE,
	REQ_GATHER,
	REQ_SEND,
	REQ_FLUSH,
	REQ_EXIT,
};

#define ENG_ACKREQ_EVERY 16	/* packets between ACK requests in a message */

uint32_t eng_mtu(const struct eng_qp *qp)
{
	unsigned int m = qp->attr.mtu ? qp->attr.mtu : 1;

	return m > 5 ? 4096u : 256u << (m - 1);
}

uint32_t eng_npsn(const struct eng_qp *qp, uint32_t len)
{
	uint32_t mtu = eng_mtu(qp);

	return len ? (len + mtu - 1) / mtu : 1;
}

static bool eng_reliable(const struct eng_qp *qp)
{
	return qp->fq->st == MLX5_QPC_ST_RC || qp->fq->st == MLX5_QPC_ST_XRC ||
	       qp->fq->st == MLX5_QPC_ST_DCI;
}

/*
 * WQE basic blocks posted and not yet taken (SQ doorbell record).  The
 * record is read again only once what it said is used up: the producer
 * writes that cache line on every post, and reading it per WQE would
 * fetch it from the producer's CPU each time.
 */
static uint16_t eng_sq_posted(struct eng_qp *qp, bool *fault)
{
	uint32_t v = 0;
	uint16_t pi;

	*fault = false;
	if ((int16_t)(qp->sq_pi - qp->sq_ci) > 0)
		return (uint16_t)(qp->sq_pi - qp->sq_ci);
	if (!qp->fq->sq.cnt || !qp->fq->dbr.addr)
		return 0;
	if (emu_mem_load32((const uint32_t *)(const void *)qp->fq->dbr.addr +
			   EMU_FW_DBR_SND, &v)) {
		*fault = true;
		return 0;
	}
	pi = (uint16_t)be32toh(v);
	if (eng_g.dp_now)	/* a doorbell may be lost */
		pi = eng_dp_doorbell(qp, pi);
	qp->sq_pi = pi;
	return (uint16_t)(pi - qp->sq_ci);
}

/* The WQE at sq_ci is taken: the device consumed its blocks. */
static void eng_req_take(struct eng_qp *qp, const struct eng_wqe *w)
{
	qp->sq_ci = (uint16_t)(qp->sq_ci + w->nbb);
	atomic_fetch_add(&qp->fq->hw.sq_wqebb_counter, w->nbb);
	qp->cur_at = -1;
}

/* A WQE that completes with an error before anything is sent. */
static enum eng_req_step eng_req_fail(struct eng_qp *qp, struct eng_wqe *w,
				      enum emu_fw_q_cnt cnt,
				      enum eng_synd_id id)
{
	if (qp->wtail != qp->whead)
		return REQ_EXIT;	/* in order: after those before it */
	eng_count(qp, cnt);
	eng_req_take(qp, w);
	eng_comp_error(qp, w->opcode, w->idx, id);
	return REQ_FLUSH;
}

/* A memory window bind or invalidation, after the WQEs before it: later
 * WQEs see the window as it leaves it (libmlx5 fences them with the
 * initiator small fence). */
static enum eng_req_step eng_req_umr(struct eng_qp *qp, struct eng_wqe *w)
{
	enum emu_fw_umr_res r;

	if (qp->wtail != qp->whead)
		return REQ_EXIT;
	r = emu_fw_mkey_umr(qp->dev->fw, qp->fq->obj.uid, qp->fq->pd,
			    qp->fq->obj.id, &w->umr);
	eng_req_take(qp, w);
	if (r != EMU_FW_UMR_OK) {
		eng_comp_error(qp, w->opcode, w->idx, ENG_SYND_MW_BIND);
		return REQ_FLUSH;
	}
	eng_comp_success(qp, w->opcode, w->fm_ce_se, w->idx, 0);
	return REQ_GET_WQE;
}

/* What the operation asks of the transport and the local side. */
static enum eng_req_step eng_req_check(struct eng_qp *qp, struct eng_wqe *w)
{
	const struct eng_opcode_info *oi = eng_opcode(w->opcode);

	if (!oi || !(oi->qp_types & eng_qp_st_bit(qp->fq)) ||
	    !eng_opcode_advertised(qp->dev->fw, w->opcode))
		return eng_req_fail(qp, w, EMU_FW_QCNT_LOCAL_OPERATION_ERROR,
				    ENG_SYND_LOCAL_QP_OP);
	/* IBA C9-56: no message longer than 2^log_msg_max. */
	if (w->len > (qp->attr.log_msg_max ?
		      (uint64_t)1 << qp->attr.log_msg_max : 1ull << 31) ||
	    (qp->fq->st == MLX5_QPC_ST_UD && w->len > eng_mtu(qp)))
		return eng_req_fail(qp, w, EMU_FW_QCNT_REQ_LOCAL_LENGTH_ERROR,
				    ENG_SYND_LOCAL_LENGTH);
	/* Atomics: one 8-byte local buffer for the original value. */
	if ((oi->segs & ENG_SEG_ATOMIC) && w->len != 8)
		return eng_req_fail(qp, w, EMU_FW_QCNT_REQ_LOCAL_LENGTH_ERROR,
				    ENG_SYND_LOCAL_LENGTH);
	if (eng_g.dp_now) {
		/* Fault rules: the error CQE they ask for, in order. */
		const struct emu_eng_verdict *v = eng_dp_send(qp, w);

		if (v && v->error) {
			if (qp->wtail != qp->whead)
				return REQ_EXIT;
			eng_req_take(qp, w);
			eng_dp_send_error(qp, w, v);
			return REQ_FLUSH;
		}
	}
	if (w->opcode == MLX5_OPCODE_UMR)
		return eng_req_umr(qp, w);
	if (w->opcode == MLX5_OPCODE_NOP) {
		if (qp->wtail != qp->whead)
			return REQ_EXIT;	/* completes in order */
		eng_req_take(qp, w);
		eng_comp_success(qp, w->opcode, w->fm_ce_se, w->idx, 0);
		return REQ_GET_WQE;
	}
	return REQ_FENCE;
}

/* IBA 10.8.3.3 fences and the initiator depth. */
static enum eng_req_step eng_req_fence(struct eng_qp *qp, struct eng_wqe *w)
{
	const struct eng_opcode_info *oi = eng_opcode(w->opcode);
	unsigned int fm = w->fm_ce_se >> 5;

	if ((fm == 3 && qp->wtail != qp->whead) ||
	    ((fm == 2 || fm == 4) && qp->rd_out))
		return REQ_EXIT;
	if (oi->reads && eng_reliable(qp) &&
	    qp->rd_out >= (1u << qp->attr.log_sra_max))
		return REQ_EXIT;
	if (eng_reliable(qp) && qp->wtail - qp->whead >= qp->win_cap)
		return REQ_EXIT;
	return REQ_GATHER;
}

/* The packet of a WQE as a whole message (the fabric cuts it). */
static void eng_req_build(struct eng_qp *qp, const struct eng_wqe *w,
			  struct eng_pkt *p)
{
	const struct eng_opcode_info *oi = eng_opcode(w->opcode);
	static const uint8_t tr[] = {
		[MLX5_QPC_ST_RC] = EMU_WIRE_TR_RC, [MLX5_QPC_ST_UC] = EMU_WIRE_TR_UC,
		[MLX5_QPC_ST_UD] = EMU_WIRE_TR_UD, [MLX5_QPC_ST_XRC] = EMU_WIRE_TR_XRC,
		/* DC requests are RC's, with the DC key beside them. */
		[MLX5_QPC_ST_DCI] = EMU_WIRE_TR_RC,
	};

	p->opcode = (uint8_t)(tr[qp->fq->st < sizeof(tr) ? qp->fq->st : 0] |
			      oi->wire_op);
	p->se = w->fm_ce_se & MLX5_WQE_CTRL_SOLICITED;
	p->ackreq = true;
	p->sqpn = qp->fq->obj.id;
	p->dqpn = qp->attr.remote_qpn;
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
		p->npsn = 1;
	}
	if (oi->reads) {
		p->len = 0;		/* the data comes in the response */
		p->pay = ENG_PAY_NONE;
	}
	if (w->av && qp->fq->st == MLX5_QPC_ST_DCI) {
		p->dqpn = be32toh(w->av->dqp_dct) & 0xffffff;
		p->dc = true;
		p->dc_key = be64toh(w->av->key.dc_key);
		p->dc_gen = qp->dci.gen;
		p->dc_psn0 = qp->dci.psn0;
	} else if (w->av) {
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

/* Read (again) the WQE of a record into cur and gather its packet. */
static bool eng_req_load(struct eng_qp *qp, uint16_t idx)
{
	if (qp->cur_at == idx)
		return true;
	qp->cur_at = -1;
	if (eng_wqe_read(qp, idx, &qp->cur) != ENG_WQE_OK)
		return false;
	ENG_PKT_CLEAR(&qp->tx);
	if (eng_mr_gather(qp, &qp->cur, &qp->tx) != ENG_MR_OK)
		return false;
	eng_req_build(qp, &qp->cur, &qp->tx);
	qp->cur_at = idx;
	return true;
}

/* Unacknowledged bytes on the wire, against what the peer can take. */
static bool eng_req_window_full(struct eng_qp *qp)
{
	int32_t ahead;

	if (qp->wsend == qp->wtail || eng_fabric_local(qp))
		return false;
	/* A READ resent from its first missing response starts behind
	 * una (its earlier responses came): nothing of it is ahead. */
	ahead = eng_psn_diff(eng_win(qp, qp->wsend)->psn +
			     eng_win(qp, qp->wsend)->sent, qp->una);
	return ahead > 0 &&
	       (uint64_t)ahead * eng_mtu(qp) >= eng_wire_window(qp);
}

/* Send what is left of record r, as far as budget and window allow. */
static int eng_req_send_rec(struct eng_qp *qp, struct eng_infl *r,
			    unsigned int budget)
{
	struct eng_pkt *p = &qp->tx;
	uint32_t left, from;
	int n;

	if (!eng_req_load(qp, r->idx))
		return -EFAULT;
	p->psn = r->psn;
	p->npsn = r->npsn;
	if (r->reads && (qp->tx.opcode & 0x1f) == EMU_WIRE_OP_READ_REQ) {
		/* A READ resent asks only for what did not arrive (IBA
		 * 9.7.6.1.3: a new RETH from the first missing PSN). */
		uint32_t skip = r->resp * eng_mtu(qp);

		p->psn = (r->psn + r->resp) & 0xffffff;
		p->npsn = r->npsn - r->resp;
		p->va = qp->cur.raddr + skip;
		p->dma_len = r->len - (skip < r->len ? skip : r->len);
		/* Marked sent first: in process the answer (a NAK that
		 * rewinds it) comes back inside the send. */
		r->sent = r->npsn;
		n = eng_fabric_send(qp, p, 0, 1);
		p->va = qp->cur.raddr;
		p->dma_len = r->len;
		return n < 0 ? n : 1;
	}
	from = r->sent;
	left = r->npsn - from;
	if (eng_fabric_local(qp)) {
		r->sent = r->npsn;	/* as above */
		return eng_fabric_send(qp, p, from, left);
	}
	n = eng_fabric_send(qp, p, from, left < budget ? left : budget);
	if (n > 0)
		r->sent += (uint32_t)n;
	return n;
}

/* Packets rewound by a retry go again, oldest first. */
static unsigned int eng_req_resend(struct eng_qp *qp, unsigned int budget)
{
	unsigned int done = 0;

	while (qp->wsend != qp->wtail && done < budget &&
	       qp->state != MLX5_QPC_STATE_ERR && !qp->rnr_deadline &&
	       !eng_req_window_full(qp)) {
		unsigned int i = qp->wsend;
		struct eng_infl *r = eng_win(qp, i);
		int n;

		if (r->sent >= r->npsn) {
			qp->wsend++;
			continue;
		}
		/* Packets out start the transport timer (IBA 9.7.6.1.1);
		 * in process their answer may stop it during the send. */
		eng_comp_arm(qp);
		n = eng_req_send_rec(qp, r, budget - done);
		if (n < 0) {
			/* The sender's memory went away under a resend. */
			eng_count(qp, EMU_FW_QCNT_REQ_LOCAL_PROTECTION);
			eng_comp_error(qp, r->opcode, r->idx, ENG_SYND_LOCAL_PROT);
			return done + 1;
		}
		done += (unsigned int)n;
		/* In process the response may have retired or rewound it. */
		if (qp->wsend == i && i != qp->wtail && r->sent >= r->npsn)
			qp->wsend++;
		if (!n)
			break;
	}
	return done;
}

/* Send a new WQE: UC/UD complete when sent, RC/XRC join the window. */
static enum eng_req_step eng_req_send(struct eng_qp *qp, struct eng_wqe *w,
				      unsigned int *done, unsigned int budget)
{
	const struct eng_opcode_info *oi = eng_opcode(w->opcode);
	struct eng_pkt *p = &qp->tx;
	uint32_t psn = atomic_load(&qp->fq->hw.sq_psn) & 0xffffff;
	struct eng_infl *r;
	int n;

	p->psn = psn;
	/* Only passes write it; a QUERY_QP reads it (release: no fence). */
	atomic_store_explicit(&qp->fq->hw.sq_psn, (psn + p->npsn) & 0xffffff,
			      memory_order_release);
	eng_req_take(qp, w);
	qp->cur_at = w->idx;	/* still cur: a resend need not read it */
	if (!eng_reliable(qp)) {
		n = eng_fabric_send(qp, p, 0, p->npsn);
		(*done)++;
		if (n < 0) {
			eng_count(qp, EMU_FW_QCNT_REQ_LOCAL_PROTECTION);
			eng_comp_error(qp, w->opcode, w->idx, ENG_SYND_LOCAL_PROT);
			return REQ_FLUSH;
		}
		if (!p->src_fault)
			eng_comp_success(qp, w->opcode, w->fm_ce_se, w->idx,
					 w->len);
		return qp->state == MLX5_QPC_STATE_RTS ? REQ_GET_WQE : REQ_FLUSH;
	}
	r = eng_win(qp, qp->wtail);
	memset(r, 0, sizeof(*r));
	r->idx = w->idx;
	r->nbb = w->nbb;
	r->opcode = w->opcode;
	r->fm_ce_se = w->fm_ce_se;
	r->reads = oi->reads;
	r->psn = psn;
	r->npsn = p->npsn;
	r->len = w->len;
	if (qp->wtail == qp->whead)
		qp->una = psn;
	qp->wtail++;
	if (r->reads)
		qp->rd_out++;
	/* Send what the window allows; the rest goes as ACKs come. */
	*done += eng_req_resend(qp, budget > *done ? budget - *done : 1) + 1;
	return qp->state == MLX5_QPC_STATE_RTS ? REQ_GET_WQE : REQ_FLUSH;
}

/*
 * SQD sends nothing new (IBA 10.3.1, Send Queue Drain); once nothing the
 * requester began is outstanding, SQ_DRAINED (IBA 11.6.3.1), once.
 */
static void eng_req_drained(struct eng_qp *qp)
{
	if (qp->state == MLX5_QPC_STATE_SQD && qp->whead == qp->wtail &&
	    !qp->drained) {
		qp->drained = true;
		eng_event_queue(qp->dev, MLX5_EVENT_TYPE_SQ_DRAINED, qp->fq->obj.id);
	}
}

unsigned int eng_req_run(struct eng_qp *qp, unsigned int budget)
{
	enum eng_req_step step = REQ_TIMERS;
	struct eng_wqe *w = &qp->cur;
	unsigned int done = 0;
	bool fault = false;
	uint16_t posted = 0;

	if (!eng_qp_refresh(qp))
		return 0;
	if (qp->state == MLX5_QPC_STATE_ERR ||
	    qp->state == MLX5_QPC_STATE_SQER)
		step = REQ_FLUSH;
	else if (qp->state != MLX5_QPC_STATE_RTS &&
		 qp->state != MLX5_QPC_STATE_SQD)
		return 0;	/* RTR receives only */
	if (qp->state == MLX5_QPC_STATE_RTS)
		qp->drained = false;

	while (step != REQ_EXIT) {
		switch (step) {
		case REQ_TIMERS:
			eng_comp_timers(qp);
			step = qp->state == MLX5_QPC_STATE_ERR ? REQ_FLUSH :
							       REQ_RESEND;
			break;
		case REQ_RESEND:
			done += eng_req_resend(qp, budget);
			if (qp->state == MLX5_QPC_STATE_ERR)
				step = REQ_FLUSH;
			else if (qp->rnr_deadline || qp->wsend != qp->wtail ||
				 qp->state != MLX5_QPC_STATE_RTS)
				step = REQ_EXIT;	/* SQD: no new WQE */
			else
				step = REQ_GET_WQE;
			break;
		case REQ_GET_WQE:
			posted = done < budget ? eng_sq_posted(qp, &fault) : 0;
			if (!posted) {
				if (fault)
					eng_qp_to_err(qp);
				step = fault ? REQ_FLUSH : REQ_EXIT;
				break;
			}
			qp->cur_at = -1;
			switch (eng_wqe_read(qp, qp->sq_ci, w)) {
			case ENG_WQE_OK:
				if (w->nbb > posted) {
					/* Claims blocks that were not posted. */
					w->nbb = (uint8_t)posted;
					step = eng_req_fail(qp, w,
						EMU_FW_QCNT_LOCAL_OPERATION_ERROR,
						ENG_SYND_LOCAL_QP_OP);
					break;
				}
				step = REQ_CHECK;
				break;
			case ENG_WQE_BAD:
				if (w->nbb > posted)
					w->nbb = (uint8_t)posted;
				w->idx = qp->sq_ci;
				step = eng_req_fail(qp, w,
					EMU_FW_QCNT_LOCAL_OPERATION_ERROR,
					ENG_SYND_LOCAL_QP_OP);
				break;
			default:	/* the ring itself is gone */
				w->idx = qp->sq_ci;
				w->nbb = 1;
				step = eng_req_fail(qp, w,
					EMU_FW_QCNT_LOCAL_OPERATION_ERROR,
					ENG_SYND_LOCAL_QP_OP);
				break;
			}
			break;
		case REQ_CHECK:
			step = eng_req_check(qp, w);
			if (step == REQ_GET_WQE)
				done++;
			break;
		case REQ_FENCE:
			step = eng_req_fence(qp, w);
			break;
		case REQ_GATHER:
			/* A DCI talks to one DCT at a time. */
			if (qp->fq->st == MLX5_QPC_ST_DCI &&
			    !eng_dc_req_connect(qp, w)) {
				step = REQ_EXIT;
				break;
			}
			ENG_PKT_CLEAR(&qp->tx);
			if (eng_mr_gather(qp, w, &qp->tx) != ENG_MR_OK) {
				step = eng_req_fail(qp, w,
					EMU_FW_QCNT_REQ_LOCAL_PROTECTION,
					ENG_SYND_LOCAL_PROT);
				break;
			}
			eng_req_build(qp, w, &qp->tx);
			step = REQ_SEND;
			break;
		case REQ_SEND:
			step = eng_req_send(qp, w, &done, budget);
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
	/* The ACKs its packets drew, before its timers are armed: in
	 * process they come now, as one. */
	eng_resp_flush_acks(&eng_g);
	eng_req_drained(qp);
	if (qp->ack_deadline)
		eng_timer_arm(&eng_g, qp->ack_deadline);
	if (qp->rnr_deadline)
		eng_timer_arm(&eng_g, qp->rnr_deadline);
	return done;
}

void eng_req_rewind(struct eng_qp *qp, uint32_t psn)
{
	bool local = eng_fabric_local(qp);

	for (unsigned int i = qp->whead; i != qp->wtail; i++) {
		struct eng_infl *r = eng_win(qp, i);
		int32_t in = eng_psn_diff(psn, r->psn);

		if (in >= (int32_t)r->npsn)
			continue;	/* wholly before psn */
		if (i < qp->wsend || qp->wsend == qp->wtail)
			qp->wsend = i;
		for (unsigned int k = i; k != qp->wtail; k++) {
			struct eng_infl *q = eng_win(qp, k);
			uint32_t from = (k == i && in > 0 && !local &&
					 !q->reads) ? (uint32_t)in : 0;

			/* In process a message goes whole; a READ resends
			 * from its first missing response.  A message that
			 * had packets out goes again: a retransmission (a
			 * send cut short by its budget only continues). */
			if (q->sent > from)
				qp->st.retransmits++;
			q->sent = from;
		}
		return;
	}
}
