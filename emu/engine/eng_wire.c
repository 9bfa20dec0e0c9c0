/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_wire.c -- the engine's side of the wire: packets cut
 * into frames on the way out, frames turned into packets on the way in,
 * and the engine thread's wait on the ports.
 *
 * Out: a message packet (whole, as the roles make it) becomes one frame
 * per path-MTU packet (IBA 9.7.1): FIRST, MIDDLE..., LAST, or ONLY; RETH
 * in the first packet of a WRITE, ImmDt and IETH in the last, AETH in the
 * first and last of a READ response; an ACK is requested on the last
 * packet of a request and every ENG_ACKREQ_EVERY packets before it, so a
 * long message is acknowledged as it goes.  The payload is copied from
 * application memory straight into the frame (emu/mem), which is built
 * in place around it: one copy on the way out.
 *
 * In: each good frame becomes a packet of one PSN; requests go to the
 * destination QP's responder, responses to its completer, DC requests to
 * eng_dc_deliver (the DCT's key and the initiator's context); ACKs the
 * batch asked for go out once the batch is done (coalesced).
 *
 * Receiving runs in the engine's pass, on whichever thread holds the run
 * lock: no thread of the emulator spins beside the application's.  When
 * the engine thread parks, it waits in poll() on the ports and an
 * eventfd, so a frame or a doorbell wakes it at once.
 */
#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "emu/engine/eng_int.h"

#define ENG_ACKREQ_EVERY 16

/* The opcode of packet k of n of a message sent as op (an ONLY opcode). */
static uint8_t eng_wire_seg_op(uint8_t op, bool first, bool last)
{
	uint8_t tr = op & 0xe0, o = op & 0x1f;

	if (first && last)
		return op;
	switch (o) {
	case EMU_WIRE_OP_SEND_ONLY:
	case EMU_WIRE_OP_SEND_ONLY_IMM:
	case EMU_WIRE_OP_SEND_ONLY_INV:
		if (first)
			return tr | EMU_WIRE_OP_SEND_FIRST;
		if (!last)
			return tr | EMU_WIRE_OP_SEND_MIDDLE;
		return tr | (o == EMU_WIRE_OP_SEND_ONLY ? EMU_WIRE_OP_SEND_LAST :
			     o == EMU_WIRE_OP_SEND_ONLY_IMM ?
			     EMU_WIRE_OP_SEND_LAST_IMM : EMU_WIRE_OP_SEND_LAST_INV);
	case EMU_WIRE_OP_WRITE_ONLY:
	case EMU_WIRE_OP_WRITE_ONLY_IMM:
		if (first)
			return tr | EMU_WIRE_OP_WRITE_FIRST;
		if (!last)
			return tr | EMU_WIRE_OP_WRITE_MIDDLE;
		return tr | (o == EMU_WIRE_OP_WRITE_ONLY ? EMU_WIRE_OP_WRITE_LAST :
			     EMU_WIRE_OP_WRITE_LAST_IMM);
	case EMU_WIRE_OP_READ_RESP_ONLY:
		return tr | (first ? EMU_WIRE_OP_READ_RESP_FIRST :
			     last ? EMU_WIRE_OP_READ_RESP_LAST :
				    EMU_WIRE_OP_READ_RESP_MIDDLE);
	default:
		return op;
	}
}

/* The headers of packet k (first PSN + k) of pkt. */
/* The pass's time on the wall clock (the virtual clock stands still). */
static uint64_t eng_wire_wall(const struct eng *e)
{
	return e->mode == EMU_ENG_DETERMINISTIC ? eng_wall_ns() : e->now_ns;
}

static void eng_wire_hdr(const struct eng_pkt *p, uint32_t k, bool first,
			 bool last, struct emu_wire_roce *h)
{
	const struct eng_addr *a = &p->addr;
	const struct emu_wire_opinfo *oi;

	memset(h, 0, sizeof(*h));
	memcpy(h->smac, a->smac, 6);
	memcpy(h->dmac, a->dmac, 6);
	if (!(h->dmac[0] | h->dmac[1] | h->dmac[2] | h->dmac[3] | h->dmac[4] |
	      h->dmac[5]))
		emu_wire_mac_of_gid(a->dgid, h->dmac);
	h->version = a->roce_v2 ? 2 : 1;
	memcpy(h->sgid, a->sgid, 16);
	memcpy(h->dgid, a->dgid, 16);
	h->tclass = a->tclass;
	h->hop_limit = a->hop_limit;
	h->flow_label = a->flow_label;
	h->udp_sport = a->udp_sport ? a->udp_sport :
		       emu_wire_udp_sport(a->flow_label, p->sqpn, p->dqpn);
	h->opcode = eng_wire_seg_op(p->opcode, first, last);
	/* A DCI's requests go as DC frames (emulator-chosen, wire_opcode.c);
	 * their responses are RC's. */
	if (p->dc && emu_wire_opinfo(h->opcode) &&
	    (emu_wire_opinfo(h->opcode)->flags & EMU_WIRE_F_REQ)) {
		h->opcode = (uint8_t)(EMU_WIRE_TR_DC | (h->opcode & 0x1f));
		h->dc_key = p->dc_key;
		h->dc_dci = p->sqpn;
		h->dc_gen = p->dc_gen;
		h->dc_psn0 = p->dc_psn0;
	}
	oi = emu_wire_opinfo(h->opcode);
	h->se = last && p->se;
	h->ackreq = oi && (oi->flags & EMU_WIRE_F_REQ) &&
		    (last || k % ENG_ACKREQ_EVERY == ENG_ACKREQ_EVERY - 1);
	h->pkey = 0xffff;
	h->dqpn = p->dqpn;
	h->psn = (p->psn + k) & 0xffffff;
	h->xrc_srqn = p->xrc_srqn;
	h->va = p->va;
	h->rkey = p->rkey;
	h->dma_len = p->dma_len;
	h->syndrome = p->aeth_syndrome;
	h->msn = p->msn;
	h->qkey = p->qkey;
	h->src_qpn = p->sqpn;
	h->imm = p->imm;
	h->ieth = p->inv_rkey;
	h->swap_add = p->swap_add;
	h->compare = p->compare;
	h->orig = p->orig;
}

/* Under the run lock, which orders the ports' changes. */
static unsigned int eng_nwports(struct eng *e)
{
	return atomic_load_explicit(&e->nwire, memory_order_relaxed);
}

static struct eng_wport *eng_wport_of(struct eng *e,
				      const struct emu_wire_port *wp)
{
	for (unsigned int k = 0, nw = eng_nwports(e); k < nw; k++)
		if (e->wports[k].wp == wp)
			return &e->wports[k];
	return NULL;
}

int eng_wire_send(struct eng_qp *qp, struct emu_wire_port *wp,
		  const struct eng_pkt *p, uint32_t from, uint32_t max)
{
	uint32_t mtu = eng_mtu(qp), k, sent = 0;
	struct eng_wport *w = eng_wport_of(&eng_g, wp);
	/* The requester's own packets, with a window deep enough that its
	 * ACKs are not what the peer waits for. */
	bool may_wait = w && p == &qp->tx &&
			qp->wtail - qp->whead >= ENG_TX_DEEP;
	struct emu_wire_roce h;

	for (k = from; k < p->npsn && sent < max; k++, sent++) {
		uint32_t off = k * mtu;
		uint32_t len = p->len > off ? p->len - off : 0;
		bool src_fault = false;
		uint32_t hl, flen;
		unsigned int q0, q1;
		uint8_t *f;

		if (len > mtu)
			len = mtu;
		eng_wire_hdr(p, k, k == 0, k + 1 == p->npsn, &h);
		f = emu_wire_tx_frame(wp);
		if (!f) {
			eng_wire_port_flush(&eng_g, wp);
			f = emu_wire_tx_frame(wp);
		}
		hl = emu_wire_roce_hlen(&h);
		if (!f || !hl)
			break;
		if (len && eng_mr_copy_range(f + hl, p, off, len, &src_fault))
			return -EFAULT;
		h.icrc_later = emu_wire_port_icrc_later(wp);
		flen = emu_wire_roce_build(&h, f, len);
		if (!flen)
			break;
		q0 = emu_wire_tx_queued(wp);
		emu_wire_tx_queue(wp, f, flen, eng_g.now_ns, h.icrc_later);
		q1 = emu_wire_tx_queued(wp);
		if (may_wait && q1 >= q0)
			w->waiting += q1 - q0;
	}
	if (sent)
		eng_g.wire_traffic = true;
	return (int)sent;
}

struct eng_wire_rx_ctx {
	struct eng_dev *dev;
	uint8_t port;
};

/* A good frame: its packet, to the QP it names. */
static void eng_wire_rx_one(void *arg, struct emu_wire_port *wp,
			    const struct emu_wire_roce *h,
			    const uint8_t *payload, uint32_t paylen)
{
	struct eng_wire_rx_ctx *c = arg;
	const struct emu_wire_opinfo *oi = emu_wire_opinfo(h->opcode);
	bool dc = (h->opcode & 0xe0) == EMU_WIRE_TR_DC;
	struct eng_qp *dst = dc ? NULL : eng_fabric_qp(c->dev, h->dqpn);
	struct eng_pkt p;

	/* A stopped device receives nothing. */
	if ((!dst && !dc) || c->dev->fatal) {
		emu_wire_port_drop(wp, EMU_WIRE_DROP_NO_QP);
		return;
	}
	ENG_PKT_CLEAR(&p);
	/* DC: the RC operation, for the DCT (eng_dc.c). */
	p.opcode = dc ? (uint8_t)(EMU_WIRE_TR_RC | (h->opcode & 0x1f)) :
			h->opcode;
	p.se = h->se;
	p.ackreq = h->ackreq;
	p.dqpn = h->dqpn;
	/* The sender's QP: DETH says it for UD, DCETH for DC; a connection
	 * knows it. */
	p.sqpn = (oi->hdrs & EMU_WIRE_H_DETH) ? h->src_qpn :
		 dc ? h->dc_dci : dst->attr.remote_qpn;
	p.dc = dc;
	p.dc_key = h->dc_key;
	p.dc_gen = h->dc_gen;
	p.dc_psn0 = h->dc_psn0;
	p.psn = h->psn;
	p.npsn = 1;
	p.va = h->va;
	p.rkey = h->rkey;
	p.dma_len = h->dma_len;
	p.aeth_syndrome = h->syndrome;
	p.msn = h->msn;
	p.qkey = h->qkey;
	p.has_imm = oi->hdrs & EMU_WIRE_H_IMM;
	p.imm = h->imm;
	p.inv_rkey = h->ieth;
	p.swap_add = h->swap_add;
	p.compare = h->compare;
	p.orig = h->orig;
	p.xrc_srqn = h->xrc_srqn;
	p.addr.port = c->port;
	p.addr.dport = c->port;
	memcpy(p.addr.sgid, h->sgid, 16);
	memcpy(p.addr.dgid, h->dgid, 16);
	memcpy(p.addr.smac, h->smac, 6);
	memcpy(p.addr.dmac, h->dmac, 6);
	p.addr.tclass = h->tclass;
	p.addr.hop_limit = h->hop_limit;
	p.addr.flow_label = h->flow_label;
	p.addr.udp_sport = h->udp_sport;
	p.addr.roce_v2 = h->version == 2;
	p.pay = ENG_PAY_BUF;
	p.buf = payload;
	p.len = paylen;
	if (dc) {
		/* No such DCT, a wrong key, not active: dropped, as in
		 * process (the key violation counted by the DCT). */
		if (!eng_dc_deliver(c->dev, &p))
			emu_wire_port_drop(wp, EMU_WIRE_DROP_NO_QP);
		return;
	}
	eng_fabric_deliver(dst, &p);
}

/* A frame that is no RoCE: the vport's NIC receive path, if it takes
 * the destination address (else counted as not RoCE by the wire). */
static bool eng_wire_rx_eth(void *arg, struct emu_wire_port *wp,
			    const uint8_t *f, uint32_t len)
{
	struct eng_wire_rx_ctx *c = arg;

	(void)wp;
	if (c->dev->fatal || !emu_fw_vport_accepts(c->dev->fw, c->port, f, false))
		return false;
	return eng_eth_rx(c->dev, c->port, f, len, NULL);
}

static const struct emu_wire_rx_ops eng_wire_rx_ops = {
	.roce = eng_wire_rx_one,
	.eth = eng_wire_rx_eth,
};

bool eng_wire_rx_due(struct eng *e)
{
	uint64_t wall = eng_wire_wall(e), since = wall - e->wire_read_ns;

	/* Looked at before it is taken: most passes find it clear, and a
	 * load costs less than an exchange. */
	if (!(atomic_load_explicit(&e->wire_ready, memory_order_relaxed) &&
	      atomic_exchange_explicit(&e->wire_ready, false,
				       memory_order_relaxed)) &&
	    (wall >= e->wire_warm_ns ? since < ENG_WIRE_COLD_NS :
	     e->posting && since < ENG_WIRE_POST_NS))
		return false;
	e->wire_read_ns = wall;
	return true;
}

unsigned int eng_wire_rx(struct eng *e, unsigned int budget, bool sockets)
{
	unsigned int got = 0;

	for (unsigned int k = 0, nw = eng_nwports(e); k < nw; k++) {
		const struct eng_wport *w = &e->wports[k];
		struct eng_wire_rx_ctx c = { w->dev, w->port };

		got += emu_wire_rx(w->wp, &eng_wire_rx_ops, &c, budget,
				   e->now_ns, sockets);
	}
	/* Traffic on the sockets keeps them read every pass for a while;
	 * memory is looked at every pass anyway. */
	if (got)
		e->wire_traffic = true;
	if (got && sockets)
		e->wire_warm_ns = e->wire_read_ns + ENG_WIRE_WARM_NS;
	return got;
}

/* Sends what @wp has queued; @w is its engine's record of it, if any. */
static void eng_wport_flush(struct eng *e, struct emu_wire_port *wp,
			    struct eng_wport *w)
{
	bool kernel = emu_wire_tx_flush(wp, e->now_ns);

	/* Datagrams through the kernel: its replies come there, so the
	 * sockets are read every pass for a while. */
	if (kernel)
		e->wire_warm_ns = eng_wire_wall(e) + ENG_WIRE_WARM_NS;
	if (w) {
		w->waiting = w->held = 0;
		w->by_sockets = kernel;
	}
}

void eng_wire_port_flush(struct eng *e, struct emu_wire_port *wp)
{
	eng_wport_flush(e, wp, eng_wport_of(e, wp));
}

/*
 * Whether the end of this pass leaves the port's queue for a later pass.
 * Each datagram through the kernel costs a system call's worth of work
 * alone, and a run of them one message with UDP_SEGMENT: so a link that
 * last went through the kernel keeps a queue that holds only requests of
 * deep windows while passes add to it, up to ENG_TX_BATCH.  The first
 * pass that adds nothing (the application polls or waits, or the thread
 * looks) sends it, and a thread that parks meanwhile wakes within
 * ENG_TX_HOLD_NS.  A lone request, an ACK or a response never waits: a
 * peer may be waiting for it (a latency loop keeps one WQE in flight).
 * A shared-memory link never holds: its frames cost no system call.
 */
static bool eng_wire_hold(struct eng *e, struct eng_wport *w)
{
	unsigned int q = emu_wire_tx_queued(w->wp);
	uint64_t due;

	if (!w->by_sockets || !q || q != w->waiting ||
	    q >= ENG_TX_BATCH || q == w->held)
		return false;
	due = emu_wire_tx_next_due(w->wp);
	if (due && due <= e->now_ns)
		return false;
	w->held = q;
	eng_timer_arm(e, e->now_ns + ENG_TX_HOLD_NS);
	return true;
}

void eng_wire_flush(struct eng *e)
{
	for (unsigned int k = 0, nw = eng_nwports(e); k < nw; k++) {
		struct eng_wport *w = &e->wports[k];
		struct emu_wire_port *wp = w->wp;
		uint64_t due;

		if (eng_wire_hold(e, w))
			continue;
		eng_wport_flush(e, wp, w);
		due = emu_wire_tx_next_due(wp);
		if (due)
			eng_timer_arm(e, due);
	}
}

uint32_t eng_wire_window(const struct eng_qp *qp)
{
	unsigned int port = qp->route.port ? qp->route.port : 1;
	struct emu_wire_port *wp = port <= EMU_FW_MAX_PORTS ?
				   qp->dev->wire[port - 1] : NULL;

	return wp ? emu_wire_port_window(wp) : UINT32_MAX;
}

void eng_wire_park_prepare(struct eng *e, struct eng_wire_parking *pk)
{
	/* The devices change under the run lock (a device leaves while the
	 * thread runs); a descriptor closed after this wakes the poll.  A
	 * port with frames in memory already means no wait. */
	for (unsigned int k = 0, nw = eng_nwports(e); k < nw; k++) {
		struct emu_wire_port *wp = e->wports[k].wp;
		int fd = emu_wire_port_fd(wp);

		if (!emu_wire_port_park(wp))
			pk->wait = false;
		if (fd >= 0) {
			pk->fds[pk->n].fd = fd;
			pk->fds[pk->n].events = POLLIN;
			pk->n++;
		}
	}
}

void eng_wire_park_wait(struct eng *e, struct eng_wire_parking *pk,
			uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};
	nfds_t n = pk->n;
	uint64_t v;

	pk->fds[n].fd = e->wake_fd;
	pk->fds[n].events = POLLIN;
	n++;
	if (ppoll(pk->fds, n, &ts, NULL) <= 0)
		return;
	if (pk->fds[n - 1].revents & POLLIN)
		(void)!read(e->wake_fd, &v, sizeof(v));
	for (nfds_t i = 0; i + 1 < n; i++)
		if (pk->fds[i].revents)
			atomic_store(&e->wire_ready, true);
}

void eng_wire_idle(struct eng *e)
{
	for (unsigned int k = 0, nw = eng_nwports(e); k < nw; k++)
		(void)emu_wire_port_park(e->wports[k].wp);
}

void eng_wire_wake(struct eng *e)
{
	uint64_t one = 1;

	if (e->wake_fd >= 0)
		(void)!write(e->wake_fd, &one, sizeof(one));
}

void eng_wire_dev_fini(struct eng_dev *dev)
{
	struct eng *e = &eng_g;
	unsigned int kept = 0;

	for (unsigned int k = 0, nw = eng_nwports(e); k < nw; k++)
		if (e->wports[k].dev != dev)
			e->wports[kept++] = e->wports[k];
	e->nwire = kept;
	for (unsigned int p = 0; p < EMU_FW_MAX_PORTS; p++) {
		if (!dev->wire[p])
			continue;
		emu_wire_port_destroy(dev->wire[p]);
		dev->wire[p] = NULL;
	}
}

int eng_wire_attach(struct eng *e, struct eng_dev *dev, unsigned int port,
		    struct emu_wire_port *wp)
{
	if (port < 1 || port > EMU_FW_MAX_PORTS || dev->wire[port - 1])
		return -EINVAL;
	if (e->wake_fd < 0) {
		e->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (e->wake_fd < 0)
			return -errno;
	}
	dev->wire[port - 1] = wp;
	e->wports[e->nwire] = (struct eng_wport){ dev, (uint8_t)port, wp };
	e->nwire++;
	return 0;
}
