/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_eth_l2.c -- where an Ethernet frame goes when it leaves a
 * port.
 *
 * The ports of the devices of this process share one Ethernet segment, as
 * RoCE packets share the in-process fabric: a frame is offered to every
 * port whose vport takes its destination address (emu_fw_vport_accepts:
 * its MAC, promiscuous modes, broadcast and multicast), its own port
 * included when the vport allows local loopback (disable_uc_local_lb /
 * disable_mc_local_lb clear), the sender's transport domain then deciding
 * per TIR (self_lb_block, eng_eth_rx.c).  A unicast frame some port of the
 * process owns stays in the process; any other frame also goes out on the
 * port's wire, if it has one and the frame reaches an endpoint there (a
 * multicast frame a known peer), where the wire's faults, capture and
 * counters apply.  A port whose link is down sends and receives nothing.
 */
#include <string.h>

#include "emu/engine/eng_int.h"

static bool eng_eth_link_up(const struct eng_dev *d, unsigned int port)
{
	bool up = false;

	return !emu_fw_port_get_link(d->fw, port, &up) && up;
}

/* Onto the port's wire: one frame in one VXLAN datagram. */
static void eng_eth_wire_out(struct eng_dev *dev, unsigned int port,
			     const uint8_t *f, uint32_t len)
{
	struct emu_wire_port *wp = dev->wire[port - 1];
	struct eng *e = &eng_g;
	uint8_t *buf;

	if (len > EMU_WIRE_FRAME_MAX) {
		emu_wire_port_drop(wp, EMU_WIRE_DROP_TX_ERR);
		return;
	}
	buf = emu_wire_tx_frame(wp);
	if (!buf) {
		eng_wire_port_flush(e, wp);
		buf = emu_wire_tx_frame(wp);
		if (!buf) {
			emu_wire_port_drop(wp, EMU_WIRE_DROP_TX_ERR);
			return;
		}
	}
	memcpy(buf, f, len);
	emu_wire_tx_queue(wp, buf, len, e->now_ns, false);
	e->wire_traffic = true;
}

void eng_eth_xmit(struct eng_dev *dev, unsigned int port, const uint8_t *f,
		  uint32_t len, const struct eng_eth_src *src)
{
	struct eng *e = &eng_g;
	bool mc, owned = false;

	if (len < EMU_WIRE_ETH_HLEN || port < 1 || port > EMU_FW_MAX_PORTS ||
	    !eng_eth_link_up(dev, port))
		return;
	mc = f[0] & 1;
	for (int i = 0; i < ENG_MAX_DEVS; i++) {
		struct eng_dev *d = e->devs[i];

		if (!d || d->fatal)
			continue;
		for (unsigned int p = 1; p <= EMU_FW_MAX_PORTS; p++) {
			bool self = d == dev && p == port;

			if (!eng_eth_link_up(d, p) ||
			    !emu_fw_vport_accepts(d->fw, p, f, self))
				continue;
			if (!mc)
				owned = true;
			eng_eth_rx(d, p, f, len, self ? src : NULL);
		}
	}
	/* The wire: a frame it takes somewhere (and only then does the
	 * engine start reading its sockets every pass). */
	if ((mc || !owned) && dev->wire[port - 1] &&
	    emu_wire_port_reaches(dev->wire[port - 1], f, len))
		eng_eth_wire_out(dev, port, f, len);
}
