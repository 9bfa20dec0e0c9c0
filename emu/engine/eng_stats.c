/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_stats.c -- the wire's counters handed out: each QP's
 * (struct eng_qp_stats, kept by the roles) when it leaves the engine, and
 * the ports' (emu/wire keeps them) when asked.  The sink writes them
 * where the user wants them (emu/kernel: wire.stats).
 */
#include "emu/engine/eng_int.h"

static const struct emu_eng_stats_sink *_Atomic eng_sink;

void emu_eng_set_stats_sink(const struct emu_eng_stats_sink *sink)
{
	atomic_store(&eng_sink, sink);
}

void eng_stats_qp(struct eng_qp *qp)
{
	const struct emu_eng_stats_sink *sink = atomic_load(&eng_sink);
	const struct eng_qp_stats *q = &qp->st;
	struct emu_eng_qp_stats s = {
		.qpn = qp->fq->obj.id, .st = qp->fq->st,
		.tx_pkts = q->tx_pkts, .rx_pkts = q->rx_pkts,
		.retransmits = q->retransmits, .naks_sent = q->naks_sent,
		.naks_rcvd = q->naks_rcvd, .rnr_naks_rcvd = q->rnr_naks_rcvd,
		.duplicates = q->duplicates, .dropped = q->dropped,
		.timeouts = q->timeouts,
	};

	if (!sink || !sink->qp || (!q->tx_pkts && !q->rx_pkts))
		return;
	sink->qp(sink->arg, qp->dev->index, &s);
}

void emu_eng_stats_flush(void)
{
	const struct emu_eng_stats_sink *sink = atomic_load(&eng_sink);
	struct eng *e = &eng_g;
	struct eng_qp *qp;

	if (!sink)
		return;
	pthread_mutex_lock(&e->run);
	cds_list_for_each_entry(qp, &e->qps, node)
		eng_stats_qp(qp);
	for (int i = 0; i < ENG_MAX_DEVS && sink->port; i++) {
		struct eng_dev *dev = e->devs[i];

		for (unsigned int p = 0; dev && p < EMU_FW_MAX_PORTS; p++) {
			struct emu_wire_port_stats s;

			if (!dev->wire[p])
				continue;
			emu_wire_port_stats(dev->wire[p], &s);
			sink->port(sink->arg, dev->index, p + 1, &s);
		}
	}
	pthread_mutex_unlock(&e->run);
}
