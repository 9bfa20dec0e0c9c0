/* SPDX-License-Identifier: MIT */
/*
 * emu/wire/wire_fdb.c -- where an inner destination lives: the forwarding
 * table a VXLAN tunnel endpoint keeps (RFC 7348 section 4: learned from
 * the inner source MAC and outer source IP of received frames, or
 * configured), and, for the emulator's own ports, the address itself.
 *
 * An emulated port's MAC is 02:c9 followed by its IPv4 address, and by
 * default its outer endpoint is that address too, so a peer needs no
 * discovery: a 02:c9 destination MAC, or else the IPv4 destination of a
 * RoCE v2 frame, names the endpoint (with the configured VXLAN port).
 * Static peers without a MAC are the default entry a Linux VTEP gets with
 * `bridge fdb append 00:00:00:00:00:00 ... dst IP`: once configured, an
 * unknown destination goes there rather than to an address derived from
 * it, which off the loopback default names no endpoint (a Linux vxlan
 * netdev's overlay address, another host's inner address).
 * Learned entries use the configured port as well: a VTEP may send from
 * any source port (Linux picks one per flow), and replies go to the port
 * every endpoint listens on.
 */
#include <errno.h>
#include <sys/socket.h>

#include "emu/wire/wire_int.h"

static unsigned int wire_fdb_hash(const uint8_t mac[6])
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (int i = 0; i < 6; i++)
		h = (h ^ mac[i]) * 16777619u;
	return h & (WIRE_FDB_SIZE - 1);
}

static struct wire_fdb_entry *wire_fdb_slot(const struct wire_fdb *t,
					    const uint8_t mac[6], bool *found)
{
	unsigned int i = wire_fdb_hash(mac);

	for (unsigned int k = 0; k < WIRE_FDB_SIZE; k++) {
		const struct wire_fdb_entry *e = &t->e[(i + k) & (WIRE_FDB_SIZE - 1)];

		if (!e->used || !memcmp(e->mac, mac, 6)) {
			*found = e->used;
			return (struct wire_fdb_entry *)e;
		}
	}
	*found = false;
	return NULL;
}

static void wire_ep_v4(struct emu_wire_ep *ep, const uint8_t ip[4],
		       uint16_t port)
{
	memset(ep, 0, sizeof(*ep));
	ep->family = AF_INET;
	ep->port = port;
	memcpy(ep->addr, ip, 4);
}

bool wire_fdb_lookup(const struct wire_fdb *t, const uint8_t *f, uint32_t len,
		     struct emu_wire_ep *ep)
{
	bool found;
	struct wire_fdb_entry *e = wire_fdb_slot(t, f, &found);

	if (found) {
		*ep = e->ep;
		return true;
	}
	if (t->nany) {
		*ep = t->any[0];
		return true;
	}
	if (f[0] == 0x02 && f[1] == 0xc9 && (f[2] || f[3] || f[4] || f[5])) {
		wire_ep_v4(ep, f + 2, t->peer_port);
		return true;
	}
	if (len >= EMU_WIRE_ETH_HLEN + 20 &&
	    emu_get_be16(f + 12) == EMU_WIRE_ETH_P_IPV4) {
		wire_ep_v4(ep, f + EMU_WIRE_ETH_HLEN + 16, t->peer_port);
		return true;
	}
	return false;
}

bool wire_fdb_learn(struct wire_fdb *t, const uint8_t mac[6],
		    const struct emu_wire_ep *src)
{
	struct emu_wire_ep ep = *src;
	struct wire_fdb_entry *e;
	bool found;

	if (mac[0] & 1)		/* group addresses are never a source */
		return false;
	ep.port = t->peer_port;
	e = wire_fdb_slot(t, mac, &found);
	if (!e || (found && (e->is_static || emu_wire_ep_eq(&e->ep, &ep))))
		return false;
	if (!found) {
		if (t->n >= WIRE_FDB_SIZE * 3 / 4)
			return false;	/* full: derive instead */
		t->n++;
		e->used = true;
		memcpy(e->mac, mac, 6);
	}
	e->ep = ep;
	return true;
}

int wire_fdb_add_static(struct wire_fdb *t, const uint8_t *mac,
			const struct emu_wire_ep *ep)
{
	struct wire_fdb_entry *e;
	bool found;

	if (!mac) {
		if (t->nany >= WIRE_FDB_STATIC_ANY)
			return -ENOSPC;
		t->any[t->nany++] = *ep;
		return 0;
	}
	e = wire_fdb_slot(t, mac, &found);
	if (!e || (!found && t->n >= WIRE_FDB_SIZE * 3 / 4))
		return -ENOSPC;
	if (!found)
		t->n++;
	e->used = true;
	e->is_static = true;
	memcpy(e->mac, mac, 6);
	e->ep = *ep;
	return 0;
}

unsigned int wire_fdb_peers(const struct wire_fdb *t, struct emu_wire_ep *eps,
			    unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < t->nany && n < max; i++)
		eps[n++] = t->any[i];
	for (unsigned int i = 0; i < WIRE_FDB_SIZE && n < max; i++) {
		bool dup = false;

		if (!t->e[i].used)
			continue;
		for (unsigned int k = 0; k < n && !dup; k++)
			dup = emu_wire_ep_eq(&eps[k], &t->e[i].ep);
		if (!dup)
			eps[n++] = t->e[i].ep;
	}
	return n;
}
