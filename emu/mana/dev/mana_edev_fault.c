/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/dev/mana_edev_fault.c -- the MANA engine's data-path hooks: the
 * fault rules that name a MANA device (dev=mana_N; emu/fault) on its
 * doorbells, send WQEs and received frames, and the WQE/CQE records of the
 * trace (trace.datapath; emu/trace).
 *
 * A queue gets the hooks for a burst only while a data-path rule exists or
 * the trace wants records, so without either a burst costs two relaxed
 * loads and nothing per WQE.  In the fault rules a MANA device is
 * EMU_MAX_DEVICES + N and a queue is its work queue id (qp=).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "emu/fault/fault.h"
#include "emu/mana/dev/mana_edev_int.h"
#include "emu/trace/trace.h"

/* A trace record's SGEs: as many as a send WQE can carry. */
enum { EDEV_TRACE_SGE = MANA_SQ_WQE_MAX / MANA_SGE_SIZE };

static int edev_mana_index(const struct mana_edev *e)
{
	/* the identity is named mana_<N> (emu_identity_build_mana) */
	return atoi(e->id->name + 5);
}

static void edev_trace_wqe(struct mana_edev *e, const struct mana_dp_wqe *v)
{
	struct emu_trace_sge sge[EDEV_TRACE_SGE];
	const struct mana_wqe *w = v->w;
	struct emu_trace_mana_wqe t = {
		.dev = e->id->name, .rq = v->rq, .wq_id = v->wq_id,
		.offset = v->off, .num_sge = w->num_sge,
		.inline_oob_size = w->oob_size, .last_vbytes = w->last_vbytes,
		.sgl_direct = w->oob_in_sgl,
		.client_data_unit = w->client_data_unit, .pkt_len = v->pkt_len,
		.sge = sge,
	};
	struct mana_tx_req r;

	if (!v->rq && !mana_tx_oob_decode(w->oob, w->oob_size,
					   w->client_data_unit, &r)) {
		t.pkt_fmt = r.long_fmt;
		t.is_outer_ipv4 = r.outer_ipv4;
		t.is_outer_ipv6 = r.outer_ipv6;
		t.comp_iphdr_csum = r.csum_ip;
		t.comp_tcp_csum = r.csum_tcp;
		t.comp_udp_csum = r.csum_udp;
		t.suppress_txcqe_gen = r.suppress_cqe;
		t.inject_vlan_pri_tag = r.vlan_insert;
		t.trans_off = r.trans_off;
		t.mss = r.mss;
		t.vp_offset = r.vp_offset;
		t.vcq_num = r.vcq_num;
		t.vlan_tci = r.vlan_tci;
	}
	for (unsigned int i = 0; i < w->num_sge && i < EDEV_TRACE_SGE; i++) {
		struct mana_sge s;

		mana_wqe_sge(v->copy, MANA_SQ_WQE_MAX, w, i, &s);
		sge[t.nsge++] = (struct emu_trace_sge){ s.size, s.key, s.addr };
		t.byte_count += s.size;
	}
	emu_trace_mana_wqe(&t);
}

static bool edev_dp_wqe(void *arg, const struct mana_dp_wqe *v, uint8_t *type,
			uint32_t *vendor_err)
{
	struct mana_edev *e = arg;
	struct emu_fault_dp_verdict fv;
	struct emu_fault_wqe f = {
		.dev = EMU_MAX_DEVICES + edev_mana_index(e), .qpn = v->wq_id,
		.rq = v->rq,
	};

	if (emu_trace_datapath_on())
		edev_trace_wqe(e, v);
	if (!emu_fault_dp_active() || !emu_fault_dp_verdict(&f, &fv) ||
	    !fv.error)
		return false;
	*type = fv.syndrome;
	*vendor_err = fv.vendor;
	return true;
}

static void edev_dp_cqe(void *arg, const struct mana_cqs *cq,
			const uint8_t cqe[MANA_CQE_SIZE])
{
	struct mana_edev *e = arg;
	struct emu_trace_mana_cqe t = {
		.dev = e->id->name, .cq_id = cq->id, .index = cq->produced - 1,
		.cqe = cqe,
	};

	if (emu_trace_datapath_on())
		emu_trace_mana_cqe(&t);
}

static const struct mana_dp_hooks edev_dp = {
	.wqe = edev_dp_wqe,
	.cqe = edev_dp_cqe,
};

/* The trace's and the fault rules' configuration, read once: an engine
 * may be the first of the process to look. */
static void edev_dp_start(void)
{
	emu_fault_start();
	(void)emu_trace_start();
}

static const struct mana_dp_hooks *edev_dp_hooks(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, edev_dp_start);
	return emu_fault_dp_active() || emu_trace_datapath_on() ? &edev_dp : NULL;
}

void edev_dp_sq(struct mana_edev *e, struct mana_sq *sq)
{
	sq->dp = edev_dp_hooks();
	sq->dp_arg = e;
}

void edev_dp_rq(struct mana_edev *e, struct mana_rq *rq)
{
	rq->dp = edev_dp_hooks();
	rq->dp_arg = e;
}

bool edev_fault_doorbell(struct mana_edev *e, enum mana_dbmbox_kind kind,
			 uint32_t qid, bool arm)
{
	struct emu_fault_dp_verdict fv;
	struct emu_fault_wqe f = { .doorbell = true };

	if (!emu_fault_dp_active())
		return false;
	switch (kind) {
	case MANA_DBMBOX_SQ:
		f.qpn = qid;
		break;
	case MANA_DBMBOX_RQ:
		f.qpn = qid;
		f.rq = true;
		break;
	case MANA_DBMBOX_CQ:
		if (!arm)
			return false;	/* only an arm does anything */
		f.cq_arm = true;
		f.cqn = qid;
		break;
	default:
		return false;
	}
	f.dev = EMU_MAX_DEVICES + edev_mana_index(e);
	/* The doorbell is lost; its tail is absolute, so the queue's next
	 * doorbell hands over what this one would have. */
	return emu_fault_dp_verdict(&f, &fv) && fv.drop;
}
