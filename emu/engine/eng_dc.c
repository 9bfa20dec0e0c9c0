/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_dc.c -- the dynamically connected transport.
 *
 * A DCI is a reliable requester whose WQEs name their target (the
 * datagram segment: address vector, DCT number, DC access key).  As a
 * ConnectX does, it talks to one DCT at a time: a WQE for another DCT
 * waits until the window has drained, then opens a new connection (a
 * generation number the process hands out, carried by every packet of
 * the connection and its resends).  Everything else is RC's: PSNs, ACKs,
 * NAKs, the transport timer, retries (eng_req.c, eng_comp.c).
 *
 * At the target, a request for a DCT number first meets the access key:
 *   KEY      the packet's DC key is the DCT's dc_access_key, else the
 *            packet is dropped, counted (QUERY_DCT's
 *            dc_access_key_violation_count) and, when armed by
 *            ARM_DCT_FOR_KEY_VIOLATION, raises DCT_KEY_VIOLATION; the
 *            requester sees no answer and runs out of retries (IBV_WC_
 *            RETRY_EXC_ERR), as on a ConnectX
 *   STATE    a DCT that is not ACTIVE (draining, drained) takes nothing
 *   CONNECT  the initiator's responder context (by source GID and QPN):
 *            a packet of a generation it has not seen replaces it; only
 *            the connection's first packet (the PSN it carries as the
 *            connection's first) opens one, at that PSN
 * and then the context, an RC responder QP of the DCT's PD, CQ, SRQ and
 * access (emu_fw_dct_conn_init), executes it with eng_resp.c's rules:
 * SEND into the DCT's SRQ, RDMA WRITE, READ and atomics.
 *
 * Between processes the same checks run on DC frames (eng_wire.c; the
 * layout is emulator-chosen, wire_opcode.c): the DCETH gives the key,
 * the DCI's QPN, the generation and its first PSN, and the context answers with RC
 * responses to that QPN.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "emu/engine/eng_int.h"

/* Connection generations, process-wide (run lock). */
static uint32_t eng_dc_gen;

bool eng_dc_req_connect(struct eng_qp *qp, const struct eng_wqe *w)
{
	uint32_t dctn = be32toh(w->av->dqp_dct) & 0xffffff;

	if (qp->dci.valid && qp->dci.dctn == dctn &&
	    !memcmp(qp->dci.dgid, w->av->rgid, 16))
		return true;
	if (qp->wtail != qp->whead)
		return false;	/* the last connection finishes first */
	qp->dci.valid = true;
	qp->dci.dctn = dctn;
	memcpy(qp->dci.dgid, w->av->rgid, 16);
	if (++eng_dc_gen == 0)
		eng_dc_gen = 1;
	qp->dci.gen = eng_dc_gen;
	qp->dci.psn0 = atomic_load(&qp->fq->hw.sq_psn) & 0xffffff;
	qp->route_gen = ~0u;	/* its packets go to the new target */
	return true;
}

void eng_dc_conn_free(struct eng_qp *qp)
{
	struct emu_fw_qp *fq = qp->fq;

	eng_stats_qp(qp);
	eng_resp_forget_acks(&eng_g, qp);
	eng_dp_qp_free(qp);
	cds_list_del(&qp->node);
	emu_fw_dct_conn_fini(fq);
	free(fq);
	free(qp->win);
	free(qp);
}

static struct eng_qp *eng_dc_conn_find(struct eng_dev *dev,
				       const struct emu_fw_qp *dct,
				       const struct eng_pkt *pkt)
{
	struct eng_qp *qp;

	cds_list_for_each_entry(qp, &eng_g.qps, node)
		if (qp->dc_conn && qp->dev == dev && qp->dc_dct == dct &&
		    qp->dc_peer_qpn == pkt->sqpn &&
		    !memcmp(qp->dc_peer_gid, pkt->addr.sgid, 16))
			return qp;
	return NULL;
}

static struct eng_qp *eng_dc_conn_new(struct eng_dev *dev,
				      struct emu_fw_qp *dct,
				      const struct eng_pkt *pkt)
{
	struct eng_qp *qp = calloc(1, sizeof(*qp));
	struct emu_fw_qp *fq = calloc(1, sizeof(*fq));

	if (qp)
		qp->win = calloc(1, sizeof(*qp->win));
	if (!qp || !fq || !qp->win) {
		if (qp)
			free(qp->win);
		free(qp);
		free(fq);
		return NULL;	/* the packet is lost; a retry may do */
	}
	emu_fw_dct_conn_init(dct, fq, pkt->addr.sgid, pkt->sqpn, pkt->psn);
	qp->win_cap = 1;
	qp->cur_at = qp->rd_at = -1;
	qp->dev = dev;
	qp->fq = fq;
	qp->gen = ~0u;
	qp->route_gen = ~0u;
	qp->dc_conn = true;
	qp->dc_dct = dct;
	qp->dc_gen = pkt->dc_gen;
	memcpy(qp->dc_peer_gid, pkt->addr.sgid, 16);
	qp->dc_peer_qpn = pkt->sqpn;
	fq->engine = qp;
	cds_list_add_tail(&qp->node, &eng_g.qps);
	eng_qp_refresh(qp);
	return qp;
}

bool eng_dc_deliver(struct eng_dev *dev, struct eng_pkt *pkt)
{
	struct emu_fw_obj *obj = emu_fw_obj_lookup_rcu(dev->fw, EMU_FW_OBJ_QP,
						       pkt->dqpn);
	struct emu_fw_qp *dct = obj ? emu_fw_to_qp(obj) : NULL;
	struct eng_qp *conn;

	if (!dct || dct->kind != EMU_FW_QP_KIND_DCT ||
	    atomic_load(&dct->obj.users) < 0)
		return false;
	/* KEY: the access key is set at creation and never changes. */
	if (pkt->dc_key != dct->attr.dc_access_key) {
		if (emu_fw_dct_key_violation(dct))
			eng_event_dct(dev, MLX5_EVENT_TYPE_DCT_KEY_VIOLATION,
				      dct->obj.id);
		return false;
	}
	/* STATE */
	if (emu_fw_qp_state(dct) != MLX5_DCTC_STATE_ACTIVE)
		return false;
	/* CONNECT */
	conn = eng_dc_conn_find(dev, dct, pkt);
	if (conn && conn->dc_gen != pkt->dc_gen) {
		eng_dc_conn_free(conn);
		conn = NULL;
	}
	/* A connection opens with its first packet: a later one (its first
	 * was dropped, say for its key) is not taken, so an ACK of it cannot
	 * acknowledge what never arrived. */
	if (!conn && pkt->psn != pkt->dc_psn0)
		return false;
	if (!conn)
		conn = eng_dc_conn_new(dev, dct, pkt);
	if (!conn)
		return false;
	eng_fabric_deliver(conn, pkt);
	return true;
}

void eng_dc_dct_gone(struct eng *e, struct emu_fw_qp *dct)
{
	struct eng_qp *qp, *tmp;

	cds_list_for_each_entry_safe(qp, tmp, &e->qps, node)
		if (qp->dc_conn && qp->dc_dct == dct)
			eng_dc_conn_free(qp);
}
