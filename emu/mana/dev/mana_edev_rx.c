/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/dev/mana_edev_rx.c -- a MANA device's ports on the emulated
 * fabric, and what a vPort does with the frames they receive: the MAC
 * filter (the vPort's own address and broadcast), RSS over the NDIS tuple
 * into the 64-entry table, the default queue for non-IP frames, the
 * checksum status bits, and the frame into the next WQE of the queue.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu/device/dev.h"
#include "emu/device/dev_wire.h"
#include "emu/fault/fault.h"
#include "emu/mana/dev/mana_edev_int.h"

enum { EDEV_RX_BUDGET = 64, EDEV_RX_TURNS = 16 };

/* The firmware's steering, again after MANA_CONFIG_VPORT_RX. */
static void edev_rx_refresh(struct mana_edev *e, struct mana_edev_port *p)
{
	struct mana_fw_vport v;

	p->rx_dirty = false;
	p->rx_enable = false;
	if (mana_fw_vport_get(e->fw, p->index, &v) || !v.rx_enable)
		return;
	if (mana_rss_init(&p->rss, v.key, v.table, MANA_FW_INDIR, v.default_rq))
		return;
	p->rss.enable = v.rss_enable;
	p->rx_enable = true;
	/* coalescing follows the vPort's switch in every queue it feeds */
	for (uint32_t i = 0; i < MANA_FW_MAX_QUEUES; i++)
		if (e->rq[i])
			e->rq[i]->coalesce = v.cqe_coalescing;
}

static bool edev_rx_eth(void *arg, struct emu_wire_port *wp,
			const uint8_t *f, uint32_t len)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct mana_edev_port *p = arg;
	struct mana_edev *e = p->e;
	const struct mana_mkeys mk = { edev_mr_check, e };
	struct mana_rx_meta meta = { 0 };
	struct mana_rx_cqe cs = { 0 };
	struct mana_rss_res res;
	struct emu_eth_pkt pkt;
	struct mana_rq *rq;

	(void)wp;
	e->st.pub.rx_frames++;
	if (e->fatal)
		return true;
	if (len < 14 || (memcmp(f, p->mac, 6) && memcmp(f, bcast, 6))) {
		e->st.pub.rx_filtered++;
		return false;
	}
	if (p->rx_dirty)
		edev_rx_refresh(e, p);
	if (!p->rx_enable || emu_eth_parse(f, len, &pkt)) {
		e->st.pub.rx_no_queue++;
		return true;
	}
	mana_rss_classify(&p->rss, f, &pkt, &res);
	rq = res.queue == UINT32_MAX ? NULL : edev_rq(e, res.queue);
	if (!rq) {
		e->st.pub.rx_no_queue++;
		return true;
	}
	mana_rx_csum_status(f, &pkt, &cs);
	meta.hash = res.hash;
	meta.hashtype = res.hashtype;
	meta.ip_ok = cs.ip_ok;
	meta.ip_fail = cs.ip_fail;
	meta.tcp_ok = cs.tcp_ok;
	meta.tcp_fail = cs.tcp_fail;
	meta.udp_ok = cs.udp_ok;
	meta.udp_fail = cs.udp_fail;
	edev_dp_rq(e, rq);
	if (mana_rq_receive(rq, f, len, &meta, &mk) == -ENOSPC &&
	    (!edev_take_doorbells(e) ||
	     mana_rq_receive(rq, f, len, &meta, &mk) == -ENOSPC))
		e->st.pub.rx_no_wqe++;
	else
		e->st.pub.rx_delivered++;
	/* a coalesced CQE still open: written at the end of the pass */
	if (rq->pend.npkts && !e->rq_pend[rq->id]) {
		e->rq_pend[rq->id] = true;
		e->pend_ids[e->npend++] = rq->id;
	}
	return true;
}

static void edev_rx_roce(void *arg, struct emu_wire_port *wp,
			 const struct emu_wire_roce *h, const uint8_t *payload,
			 uint32_t paylen)
{
	/* The wire parses RoCE for the mlx5 engine; a MANA vPort has no RDMA:
	 * such frames only reach it when its raw queues take every frame, and
	 * the wire hands them over whole through eth only when no RoCE
	 * handler claims them.  Nothing to do. */
	(void)arg;
	(void)wp;
	(void)h;
	(void)payload;
	(void)paylen;
}

/* The CQEs of coalesced packets a pass left open: a coalescing window is
 * one pass of the engine. */
static void edev_rx_flush(struct mana_edev *e)
{
	for (uint32_t i = 0; i < e->npend; i++) {
		uint32_t id = e->pend_ids[i];

		e->rq_pend[id] = false;
		if (e->rq[id])
			mana_rq_flush(e->rq[id]);
	}
	e->npend = 0;
}

void edev_run_rx(struct mana_edev *e)
{
	static const struct emu_wire_rx_ops ops = { edev_rx_roce, edev_rx_eth };

	for (int p = 0; p < e->nports; p++) {
		struct emu_wire_port *wp = e->ports[p].wp;

		/* the same-host rings, then the sockets (which also take a
		 * new peer's rendezvous) */
		for (int t = 0; t < EDEV_RX_TURNS; t++)
			if (emu_wire_rx(wp, &ops, &e->ports[p], EDEV_RX_BUDGET, 0,
					false) +
			    emu_wire_rx(wp, &ops, &e->ports[p], EDEV_RX_BUDGET, 0,
					true) < EDEV_RX_BUDGET)
				break;
	}
	edev_rx_flush(e);
}

static bool edev_port_link_up(void *arg)
{
	struct mana_edev_port *p = arg;

	return __atomic_load_n(&p->link_up, __ATOMIC_ACQUIRE);
}

/* A port as the mlx5 ports are made: UDP, and the same-host fast path
 * when the setting allows it. */
static int edev_port_create(struct mana_edev *e, int i,
			    const struct emu_config *cfg)
{
	const struct emu_port_identity *pi = &e->id->ports[i];
	struct mana_edev_port *p = &e->ports[i];
	struct epoll_event ev = { .events = EPOLLIN };

	p->e = e;
	p->index = i;
	p->link_up = true;
	p->wp = emu_dev_wire_port(e->id, i, cfg, true, edev_port_link_up, p);
	if (!p->wp)
		return -errno;
	/* wire rules (drop, duplicate, reorder, corrupt) naming mana_N */
	emu_fault_wire_attach(p->wp);
	memcpy(p->mac, pi->mac, 6);
	p->mtu = pi->netdev_mtu;
	p->rx_dirty = true;
	ev.data.fd = emu_wire_port_fd(p->wp);
	if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, ev.data.fd, &ev))
		return -errno;
	return 0;
}

int edev_ports_create(struct mana_edev *e)
{
	const struct emu_config *cfg = emu_devices_config();

	if (!cfg)
		return -ENODEV;
	for (int i = 0; i < e->id->num_ports && i < EMU_MAX_PORTS; i++) {
		int ret = edev_port_create(e, i, cfg);

		if (ret)
			return ret;
		e->nports = i + 1;
	}
	return 0;
}
