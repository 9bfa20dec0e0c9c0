/* SPDX-License-Identifier: MIT */
/*
 * emu/wire/wire_port.c -- a port: a VXLAN tunnel endpoint (RFC 7348).
 *
 * Every frame a port sends is one whole Ethernet frame (no FCS) in one
 * datagram behind the 8-byte VXLAN header: flags 0x08 (the I bit: the
 * VNI is valid), 24 reserved bits, the 24-bit VNI, 8 reserved bits
 * (section 5).  Received datagrams must carry the I bit and the port's
 * VNI; reserved bits are ignored, as the RFC says.
 *
 * Sending: frames are built in the port's own buffers, each with room for
 * the VXLAN header in front, so nothing is copied on the way out; the
 * filter (fault rules) may drop, duplicate, corrupt, delay or reorder a
 * frame (held frames are copied); the capture sees what goes on the
 * cable; a flush hands the queue to the link in one batch.  Receiving:
 * a batch from the link, decapsulated, the source MAC learned, checked
 * (VNI, link state, strict L2), filtered, captured, parsed.  A datagram
 * the link lends (shared memory another process writes) is parsed from a
 * private copy of its headers, and only its payload is read where it
 * lies, once, by whoever takes the packet; one that somebody here
 * observes, or that is not a plain good RoCE frame, is copied whole
 * first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "emu/wire/wire_int.h"

#define WIRE_REORDER_MAX_NS 200000ull	/* a reordered frame waits at most */
/* Bytes of a lent datagram copied for its parse: the VXLAN header and a
 * frame's headers (Ethernet, IPv6 and UDP, BTH and the longest extension
 * headers take 114 bytes). */
#define WIRE_RX_HEAD (EMU_WIRE_VXLAN_HLEN + 128u)

void emu_wire_port_drop(struct emu_wire_port *p, enum emu_wire_drop why)
{
	if ((unsigned int)why < EMU_WIRE_DROP_NUM)
		wire_count_own(&p->drops[why], 1);
}

struct emu_wire_port *emu_wire_port_create(const struct emu_wire_port_cfg *cfg,
					   struct emu_wire_link *link)
{
	struct emu_wire_port *p = calloc(1, sizeof(*p));
	int err = ENOMEM;

	if (!p)
		goto fail;
	p->cfg = *cfg;
	snprintf(p->name, sizeof(p->name), "%s", cfg->name ? cfg->name : "port");
	p->cfg.name = p->name;
	p->cfg.capture = NULL;
	p->link = link;
	if (link)
		link->lend = true;
	p->fdb.peer_port = cfg->peer_udp_port ? cfg->peer_udp_port :
						EMU_WIRE_VXLAN_PORT;
	p->tx_buf = malloc(sizeof(*p->tx_buf) * WIRE_TX_SLOTS);
	p->rx_buf = malloc(sizeof(*p->rx_buf) * WIRE_RX_BATCH);
	if (!p->tx_buf || !p->rx_buf)
		goto fail;
	if (cfg->capture) {
		p->pcap = wire_pcap_open(cfg->capture, &err);
		if (!p->pcap)
			goto fail;
	}
	return p;
fail:
	if (p) {
		free(p->tx_buf);
		free(p->rx_buf);
		free(p);
	}
	if (link)
		link->ops->destroy(link);
	errno = err;
	return NULL;
}

void emu_wire_port_destroy(struct emu_wire_port *p)
{
	if (!p)
		return;
	emu_wire_tx_flush(p, UINT64_MAX);
	for (unsigned int i = 0; i < p->nheld; i++)
		free(p->held[i].dgram);
	wire_pcap_close(p->pcap);
	if (p->link)
		p->link->ops->destroy(p->link);
	free(p->tx_buf);
	free(p->rx_buf);
	free(p);
}

int emu_wire_port_add_peer(struct emu_wire_port *p, const uint8_t *mac,
			   const struct emu_wire_ep *ep)
{
	return wire_fdb_add_static(&p->fdb, mac, ep);
}

void emu_wire_port_set_filter(struct emu_wire_port *p,
			      const struct emu_wire_filter *f)
{
	atomic_store(&p->filter, f);
}

int emu_wire_port_fd(struct emu_wire_port *p)
{
	return p->link->ops->fd ? p->link->ops->fd(p->link) : -1;
}

uint32_t emu_wire_port_window(const struct emu_wire_port *p)
{
	return p->link->window ? p->link->window : 64 * 1024;
}

const char *emu_wire_port_name(const struct emu_wire_port *p)
{
	return p->name;
}

void emu_wire_port_stats(const struct emu_wire_port *p,
			 struct emu_wire_port_stats *s)
{
	struct emu_wire_port *q = (struct emu_wire_port *)p;

	s->tx_frames = atomic_load_explicit(&q->tx_frames, memory_order_relaxed);
	s->tx_bytes = atomic_load_explicit(&q->tx_bytes, memory_order_relaxed);
	s->rx_frames = atomic_load_explicit(&q->rx_frames, memory_order_relaxed);
	s->rx_bytes = atomic_load_explicit(&q->rx_bytes, memory_order_relaxed);
	for (int i = 0; i < EMU_WIRE_DROP_NUM; i++)
		s->drops[i] = atomic_load_explicit(&q->drops[i],
						   memory_order_relaxed);
	s->faults = atomic_load_explicit(&q->faults, memory_order_relaxed);
	s->learned = atomic_load_explicit(&q->learned, memory_order_relaxed);
	memset(&s->link, 0, sizeof(s->link));
	if (p->link->ops->stats)
		p->link->ops->stats(p->link, &s->link);
}

static bool wire_link_is_up(const struct emu_wire_port *p)
{
	return !p->cfg.link_up || p->cfg.link_up(p->cfg.link_arg);
}

/* ---- what a filter sees of a frame ---- */

static void wire_frame_info(const struct emu_wire_port *p, const uint8_t *f,
			    uint32_t len, bool rx,
			    struct emu_wire_frame_info *fi)
{
	uint32_t bth = 0;

	memset(fi, 0, sizeof(*fi));
	fi->dev = p->cfg.dev;
	fi->port = p->cfg.port;
	fi->rx = rx;
	if (len < EMU_WIRE_ETH_HLEN)
		return;
	switch (emu_get_be16(f + 12)) {
	case EMU_WIRE_ETH_P_IPV4:
		bth = EMU_WIRE_ETH_HLEN + 20 + 8;
		break;
	case EMU_WIRE_ETH_P_IPV6:
		bth = EMU_WIRE_ETH_HLEN + 40 + 8;
		break;
	case EMU_WIRE_ETH_P_ROCE:
		bth = EMU_WIRE_ETH_HLEN + 40;
		break;
	default:
		return;
	}
	if (len < bth + 12 + EMU_WIRE_ICRC_LEN)
		return;
	fi->roce = true;
	fi->opcode = f[bth];
	fi->dqpn = emu_get_be32(f + bth + 4) & 0xffffff;
	fi->psn = emu_get_be32(f + bth + 8) & 0xffffff;
	if ((fi->opcode & 0xe0) == EMU_WIRE_TR_UD && len >= bth + 20)
		fi->src_qpn = emu_get_be32(f + bth + 16) & 0xffffff;
}

static bool wire_filter_active(const struct emu_wire_port *p)
{
	const struct emu_wire_filter *flt = atomic_load(&p->filter);

	return flt && flt->frame && (!flt->active || flt->active(flt->arg));
}

/* Whether someone here sees the frames (their ICRC must then be right). */
static bool wire_observed(const struct emu_wire_port *p)
{
	return p->pcap || wire_filter_active(p);
}

bool emu_wire_port_icrc_later(const struct emu_wire_port *p)
{
	return p->link->icrc_later && !wire_observed(p);
}

static enum emu_wire_verdict wire_filter(struct emu_wire_port *p,
					 const uint8_t *f, uint32_t len,
					 bool rx, uint32_t *delay_us)
{
	const struct emu_wire_filter *flt = atomic_load(&p->filter);
	struct emu_wire_frame_info fi;
	enum emu_wire_verdict v;

	if (!wire_filter_active(p))
		return EMU_WIRE_PASS;
	wire_frame_info(p, f, len, rx, &fi);
	v = flt->frame(flt->arg, &fi, delay_us);
	if (v != EMU_WIRE_PASS)
		wire_count_own(&p->faults, 1);
	return v;
}

/* A bit of the last byte the ICRC covers: the frame parses as before and
 * fails its ICRC. */
static void wire_corrupt(uint8_t *f, uint32_t len)
{
	if (len > EMU_WIRE_ICRC_LEN + 1)
		f[len - EMU_WIRE_ICRC_LEN - 1] ^= 0x01;
}

/* ---- sending ---- */

uint8_t *emu_wire_tx_frame(struct emu_wire_port *p)
{
	if (p->tx_used >= WIRE_TX_SLOTS)
		return NULL;
	return p->tx_buf[p->tx_used++] + EMU_WIRE_VXLAN_HLEN;
}

static void wire_vxlan_put(uint8_t *h, uint32_t vni)
{
	emu_put_be32(h, 0x08000000u);		/* I flag */
	emu_put_be32(h + 4, (vni & 0xffffff) << 8);
}

/* Hand the queue to the link (its buffers stay handed out until the
 * flush). */
static void wire_tx_send(struct emu_wire_port *p)
{
	int sent;

	if (!p->tx_n)
		return;
	sent = p->link->ops->send(p->link, p->tx_q, p->tx_n);
	p->tx_sockets |= p->link->by_sockets;
	p->link->by_sockets = false;
	if (sent < (int)p->tx_n)
		wire_count_own(&p->drops[EMU_WIRE_DROP_TX_ERR],
			   p->tx_n - (unsigned int)(sent < 0 ? 0 : sent));
	p->tx_n = 0;
	if (p->pcap)
		wire_pcap_flush(p->pcap);
}

bool emu_wire_port_reaches(const struct emu_wire_port *p, const uint8_t *f,
			   uint32_t len)
{
	struct emu_wire_ep ep;

	if (len < EMU_WIRE_ETH_HLEN)
		return false;
	if (f[0] & 1)
		return p->fdb.nany || p->fdb.n;
	return wire_fdb_lookup(&p->fdb, f, len, &ep);
}

/* Queue a datagram (VXLAN header and frame) to the link. */
static void wire_tx_enqueue(struct emu_wire_port *p, uint8_t *dgram,
			    uint32_t len, bool icrc_later)
{
	const uint8_t *f = dgram + EMU_WIRE_VXLAN_HLEN;
	uint32_t flen = len - EMU_WIRE_VXLAN_HLEN;
	struct emu_wire_ep eps[WIRE_FDB_STATIC_ANY + 8];
	unsigned int n = 1;

	if (f[0] & 1) {		/* broadcast/multicast: every known peer */
		n = wire_fdb_peers(&p->fdb, eps, sizeof(eps) / sizeof(eps[0]));
	} else if (!wire_fdb_lookup(&p->fdb, f, flen, &eps[0])) {
		emu_wire_port_drop(p, EMU_WIRE_DROP_NO_ROUTE);
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		if (p->tx_n >= sizeof(p->tx_q) / sizeof(p->tx_q[0]))
			wire_tx_send(p);
		if (p->pcap && p->cfg.capture_outer)
			wire_pcap_write_outer(p->pcap, &p->link->local, &eps[i],
					      p->cfg.mac, dgram, len);
		p->tx_q[p->tx_n].ep = eps[i];
		p->tx_q[p->tx_n].buf = dgram;
		p->tx_q[p->tx_n].len = len;
		p->tx_q[p->tx_n].icrc_later = icrc_later;
		p->tx_n++;
	}
	if (p->pcap && !p->cfg.capture_outer)
		wire_pcap_write(p->pcap, f, flen);
}

static bool wire_hold(struct emu_wire_port *p, const uint8_t *dgram,
		      uint32_t len, uint64_t due, bool after_next)
{
	struct wire_held *h;

	if (p->nheld >= WIRE_HELD_MAX)
		return false;
	h = &p->held[p->nheld];
	h->dgram = malloc(len);
	if (!h->dgram)
		return false;
	memcpy(h->dgram, dgram, len);
	h->len = len;
	h->due_ns = due;
	h->after_next = after_next;
	p->nheld++;
	return true;
}

/* Queue held frames that are due (or, after_next, once a frame went). */
static void wire_release(struct emu_wire_port *p, uint64_t now, bool next_went)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < p->nheld; i++) {
		struct wire_held *h = &p->held[i];

		if (h->due_ns <= now || (h->after_next && next_went)) {
			/* The copy is this datagram's buffer until the flush
			 * that sends it: keep it in a tx slot. */
			uint8_t *slot = p->tx_used < WIRE_TX_SLOTS ?
					p->tx_buf[p->tx_used++] : NULL;

			if (slot) {
				memcpy(slot, h->dgram, h->len);
				wire_tx_enqueue(p, slot, h->len, false);
				free(h->dgram);
				continue;
			}
		}
		p->held[k++] = *h;
	}
	p->nheld = k;
}

void emu_wire_tx_queue(struct emu_wire_port *p, uint8_t *frame, uint32_t len,
		       uint64_t now, bool icrc_later)
{
	uint8_t *dgram = frame - EMU_WIRE_VXLAN_HLEN;
	uint32_t dlen = len + EMU_WIRE_VXLAN_HLEN, delay_us = 0;

	if (!wire_link_is_up(p)) {
		emu_wire_port_drop(p, EMU_WIRE_DROP_PORT_DOWN);
		return;
	}
	/* A capture or a rule came since the frame was built. */
	if (icrc_later && (!p->link->icrc_later || wire_observed(p))) {
		emu_wire_icrc_put(frame, len);
		icrc_later = false;
	}
	wire_vxlan_put(dgram, p->cfg.vni);
	wire_count_own(&p->tx_frames, 1);
	wire_count_own(&p->tx_bytes, len);
	switch (wire_filter(p, frame, len, false, &delay_us)) {
	case EMU_WIRE_FDROP:
		emu_wire_port_drop(p, EMU_WIRE_DROP_FAULT);
		return;
	case EMU_WIRE_FDUP:
		wire_tx_enqueue(p, dgram, dlen, false);
		break;
	case EMU_WIRE_FCORRUPT:
		wire_corrupt(frame, len);
		break;
	case EMU_WIRE_FREORDER:
		if (wire_hold(p, dgram, dlen, now + WIRE_REORDER_MAX_NS, true))
			return;
		break;
	case EMU_WIRE_FDELAY:
		if (wire_hold(p, dgram, dlen, now + (uint64_t)delay_us * 1000,
			      false))
			return;
		break;
	default:
		break;
	}
	wire_tx_enqueue(p, dgram, dlen, icrc_later);
	if (p->nheld)
		wire_release(p, 0, true);
}

bool emu_wire_tx_flush(struct emu_wire_port *p, uint64_t now_ns)
{
	bool kernel;

	if (p->nheld && now_ns)
		wire_release(p, now_ns, false);
	wire_tx_send(p);
	p->tx_used = 0;
	kernel = p->tx_sockets;
	p->tx_sockets = false;
	return kernel;
}

unsigned int emu_wire_tx_queued(const struct emu_wire_port *p)
{
	return p->tx_n;
}

uint64_t emu_wire_tx_next_due(const struct emu_wire_port *p)
{
	uint64_t due = 0;

	for (unsigned int i = 0; i < p->nheld; i++)
		if (!due || p->held[i].due_ns < due)
			due = p->held[i].due_ns;
	return due;
}

/* ---- receiving ---- */

/* RFC 7348 5: the I flag set; the VNI ours. */
static bool wire_vxlan_ok(const struct emu_wire_port *p, const uint8_t *h)
{
	return (h[0] & 0x08) &&
	       (emu_get_be32(h + 4) >> 8) == (p->cfg.vni & 0xffffff);
}

/* Past the tunnel: the source learned, the port's own checks, counted. */
static enum emu_wire_drop wire_rx_admit(struct emu_wire_port *p,
					const uint8_t *f, uint32_t len,
					const struct emu_wire_ep *from)
{
	if (wire_fdb_learn(&p->fdb, f + 6, from))
		wire_count_own(&p->learned, 1);
	if (!wire_link_is_up(p))
		return EMU_WIRE_DROP_PORT_DOWN;
	if (p->cfg.strict_l2 && !(f[0] & 1) && memcmp(f, p->cfg.mac, 6))
		return EMU_WIRE_DROP_L2;
	wire_count_own(&p->rx_frames, 1);
	wire_count_own(&p->rx_bytes, len);
	return EMU_WIRE_DROP_NONE;
}

/*
 * A lent datagram nobody here observes, from a peer that left the ICRC
 * out: its headers parsed from a private copy, so what the checks saw is
 * what the packet says however the ring changes meanwhile; the payload
 * is passed where it lies (inside the datagram's validated length).
 * False: not such a frame, copy it and take the ordinary way.
 */
static bool wire_rx_lent(struct emu_wire_port *p, struct emu_wire_dgram *d,
			 const struct emu_wire_rx_ops *ops, void *arg,
			 enum emu_wire_drop *why)
{
	uint8_t head[WIRE_RX_HEAD];
	uint32_t n = d->len < sizeof(head) ? d->len : sizeof(head);
	uint32_t len = d->len - EMU_WIRE_VXLAN_HLEN, payoff, paylen;
	const uint8_t *f = head + EMU_WIRE_VXLAN_HLEN;
	struct emu_wire_roce h;

	if (n < EMU_WIRE_VXLAN_HLEN + EMU_WIRE_ETH_HLEN)
		return false;
	memcpy(head, d->buf, n);
	if (!wire_vxlan_ok(p, head) ||
	    emu_wire_roce_parse_head(f, n - EMU_WIRE_VXLAN_HLEN, len, &h,
				     &payoff, &paylen))
		return false;
	*why = wire_rx_admit(p, f, len, &d->ep);
	if (!*why)
		ops->roce(arg, p, &h, d->buf + EMU_WIRE_VXLAN_HLEN + payoff,
			  paylen);
	return true;
}

/* One datagram: the VXLAN header, then the inner frame.  own: a private
 * buffer for a lent datagram's copy. */
static enum emu_wire_drop wire_rx_one(struct emu_wire_port *p,
				      struct emu_wire_dgram *d,
				      const struct emu_wire_rx_ops *ops,
				      void *arg, uint8_t *own)
{
	uint8_t *f;
	uint32_t len, payoff, paylen, delay_us = 0;
	struct emu_wire_roce h;
	enum emu_wire_drop why;

	if (d->lent) {
		if (d->icrc_later && !wire_observed(p) &&
		    wire_rx_lent(p, d, ops, arg, &why))
			return why;
		if (d->len > EMU_WIRE_DGRAM_MAX)
			return EMU_WIRE_DROP_MALFORMED;
		memcpy(own, d->buf, d->len);
		d->buf = own;
		d->lent = false;
	}
	f = d->buf + EMU_WIRE_VXLAN_HLEN;
	if (d->len < EMU_WIRE_VXLAN_HLEN + EMU_WIRE_ETH_HLEN ||
	    !wire_vxlan_ok(p, d->buf))
		return EMU_WIRE_DROP_VXLAN;
	len = d->len - EMU_WIRE_VXLAN_HLEN;
	/* Left for later by a trusting peer: computed now if someone here
	 * looks at the frame. */
	if (d->icrc_later && wire_observed(p)) {
		emu_wire_icrc_put(f, len);
		d->icrc_later = false;
	}
	why = wire_rx_admit(p, f, len, &d->ep);
	if (why)
		return why;
	if (p->pcap) {
		if (p->cfg.capture_outer)
			wire_pcap_write_outer(p->pcap, &d->ep, &p->link->local,
					      f + 6, d->buf, d->len);
		else
			wire_pcap_write(p->pcap, f, len);
	}
	switch (wire_filter(p, f, len, true, &delay_us)) {
	case EMU_WIRE_FDROP:
		return EMU_WIRE_DROP_FAULT;
	case EMU_WIRE_FCORRUPT:
		wire_corrupt(f, len);
		break;
	default:
		/* Received frames are not held: duplicate, delay and
		 * reorder act where frames are sent. */
		break;
	}
	why = d->icrc_later ?
	      emu_wire_roce_parse_trusted(f, len, &h, &payoff, &paylen) :
	      emu_wire_roce_parse(f, len, &h, &payoff, &paylen);
	if (why == EMU_WIRE_DROP_NOT_ROCE && ops->eth)
		return ops->eth(arg, p, f, len) ? EMU_WIRE_DROP_NONE : why;
	if (why)
		return why;
	ops->roce(arg, p, &h, f + payoff, paylen);
	return EMU_WIRE_DROP_NONE;
}

bool emu_wire_port_park(struct emu_wire_port *p)
{
	return !p->link->ops->park || p->link->ops->park(p->link);
}

unsigned int emu_wire_rx(struct emu_wire_port *p,
			 const struct emu_wire_rx_ops *ops, void *arg,
			 unsigned int budget, uint64_t now_ns, bool sockets)
{
	unsigned int handed = 0, got = 0;

	(void)now_ns;
	while (got < budget) {
		unsigned int n = budget - got < WIRE_RX_BATCH ? budget - got :
								WIRE_RX_BATCH;
		int r;

		/* A receive that returns 0 wrote no descriptor (the link
		 * contract): most passes find nothing and set up nothing. */
		for (unsigned int i = p->rx_ready; i < n; i++) {
			p->rx_d[i].buf = p->rx_buf[i];
			p->rx_d[i].len = EMU_WIRE_DGRAM_MAX;
			p->rx_d[i].icrc_later = false;
			p->rx_d[i].lent = false;
		}
		if (p->rx_ready < n)
			p->rx_ready = n;
		r = p->link->ops->recv(p->link, p->rx_d, n, sockets);
		if (r)
			p->rx_ready = 0;
		if (r <= 0)
			break;
		for (int i = 0; i < r; i++) {
			enum emu_wire_drop why = wire_rx_one(p, &p->rx_d[i],
							     ops, arg,
							     p->rx_buf[i]);

			if (why)
				emu_wire_port_drop(p, why);
			else
				handed++;
		}
		got += (unsigned int)r;
		if ((unsigned int)r < n)
			break;
	}
	if (got && p->pcap)
		wire_pcap_flush(p->pcap);
	return handed;
}
