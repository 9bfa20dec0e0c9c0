/* SPDX-License-Identifier: MIT */
/*
 * emu/eth/eth_parse.c -- a frame's headers, as far as a ConnectX parses them.
 *
 * L2: destination and source MAC, up to two VLAN tags (0x8100 or 0x88a8,
 * in any order), the ethertype after them.  L3: IPv4 (IHL, options, total
 * length within the frame, fragment bits) and IPv6 (payload length within
 * the frame, then at most EMU_ETH_IPV6_MAX_EXT extension headers of the
 * kinds that precede a transport header: hop-by-hop options, routing,
 * destination options, fragment; anything else, AH and ESP included, ends
 * the chain as the transport protocol).  An IP length past the frame's
 * end is taken as the frame's end (l3_trunc): a ConnectX still steers such
 * a frame by its headers (rdma-core's pyverbs sends IPv6 frames whose
 * payload length counts the IPv6 header too, and they pass on hardware),
 * but no L4 checksum of it can be good.  L4: TCP and UDP, in a datagram
 * that is no fragment or the first one.  A UDP datagram to port 4789
 * whose VXLAN header has the I flag carries an inner frame, parsed the
 * same way (no further tunnel).
 *
 * Which IPv6 extension headers a ConnectX walks is not public; the chain
 * above is the emulator's choice (RFC 8200 4.1's order, bounded).  A
 * header that does not fit the frame or its IP packet, or contradicts
 * itself, is malformed: recorded (l3_bad, l4_bad) with the layer NONE, as a
 * ConnectX then reports no L3/L4 type and no checksum as good.
 */
#include <errno.h>
#include <string.h>

#include "eth.h"
#include "eth_int.h"

static void eth_parse_l4(const uint8_t *f, struct emu_eth_hdrs *h)
{
	uint32_t off = h->l3_off + h->l3_hlen;
	uint32_t room = h->l3_end - off;

	if (h->frag_later)
		return;
	h->l4_off = off;
	switch (h->ip_proto) {
	case ETH_IPPROTO_TCP: {
		uint32_t doff;

		if (room < 20)
			break;
		doff = (uint32_t)(f[off + 12] >> 4) * 4;
		if (doff < 20 || doff > room)
			break;
		h->l4 = EMU_ETH_L4_TCP;
		h->l4_hlen = doff;
		h->tcp_flags = (uint16_t)((f[off + 12] & 1) << 8 | f[off + 13]);
		goto ports;
	}
	case ETH_IPPROTO_UDP: {
		uint32_t ulen;

		if (room < 8)
			break;
		ulen = emu_get_be16(f + off + 4);
		/* A first fragment's UDP length covers the whole datagram. */
		if (ulen < 8 || (!h->frag && ulen > room))
			break;
		h->l4 = EMU_ETH_L4_UDP;
		h->l4_hlen = 8;
		goto ports;
	}
	default:
		return;
	}
	h->l4_bad = true;
	return;
ports:
	h->sport = emu_get_be16(f + off);
	h->dport = emu_get_be16(f + off + 2);
}

static bool eth_parse_ipv4(const uint8_t *f, uint32_t off, uint32_t end,
			   struct emu_eth_hdrs *h)
{
	uint32_t ihl, tot;
	uint16_t fragw;

	if (end - off < 20 || f[off] >> 4 != 4)
		return false;
	ihl = (uint32_t)(f[off] & 0xf) * 4;
	tot = emu_get_be16(f + off + 2);
	if (ihl < 20 || ihl > end - off || tot < ihl)
		return false;
	if (tot > end - off) {
		tot = end - off;
		h->l3_trunc = true;
	}
	fragw = emu_get_be16(f + off + 6);
	h->l3 = EMU_ETH_L3_IPV4;
	h->l3_hlen = ihl;
	h->l3_end = off + tot;
	h->tos = f[off + 1];
	h->ttl = f[off + 8];
	h->ip_proto = f[off + 9];
	h->ip_opts = ihl > 20;
	h->frag_offset = (uint32_t)(fragw & 0x1fff) * 8;
	h->frag_more = fragw & 0x2000;
	h->frag_later = h->frag_offset != 0;
	h->frag = h->frag_later || h->frag_more;
	return true;
}

static bool eth_parse_ipv6(const uint8_t *f, uint32_t off, uint32_t end,
			   struct emu_eth_hdrs *h)
{
	uint32_t plen, hlen = 40, pend;
	uint8_t nh;
	int i;

	if (end - off < 40 || f[off] >> 4 != 6)
		return false;
	plen = emu_get_be16(f + off + 4);
	if (plen > end - off - 40) {
		plen = end - off - 40;
		h->l3_trunc = true;
	}
	pend = off + 40 + plen;
	nh = f[off + 6];
	for (i = 0; i < EMU_ETH_IPV6_MAX_EXT; i++) {
		const uint8_t *x = f + off + hlen;
		uint32_t xlen;

		if (nh != ETH_IPPROTO_HOPOPTS && nh != ETH_IPPROTO_ROUTING &&
		    nh != ETH_IPPROTO_DSTOPTS && nh != ETH_IPPROTO_FRAGMENT)
			break;
		if (pend - (off + hlen) < 8)
			return false;
		if (nh == ETH_IPPROTO_FRAGMENT) {
			uint16_t fo = emu_get_be16(x + 2);

			xlen = 8;
			h->frag_offset = fo & 0xfff8;
			h->frag_more = fo & 1;
			h->frag_later = h->frag_offset != 0;
			h->frag = h->frag_later || h->frag_more;
		} else {
			xlen = ((uint32_t)x[1] + 1) * 8;
			if (xlen > pend - (off + hlen))
				return false;
		}
		nh = x[0];
		hlen += xlen;
		h->ip_opts = true;
	}
	h->l3 = EMU_ETH_L3_IPV6;
	h->l3_hlen = hlen;
	h->l3_end = pend;
	h->tos = (uint8_t)(emu_get_be16(f + off) >> 4);
	h->flow_label = emu_get_be32(f + off) & 0xfffff;
	h->ttl = f[off + 7];
	h->ip_proto = nh;
	return true;
}

/* Parses the frame at f[off, end); false when no Ethernet header fits. */
static bool eth_parse_hdrs(const uint8_t *f, uint32_t off, uint32_t end,
			   struct emu_eth_hdrs *h)
{
	uint32_t pos;
	uint16_t type;
	bool ok;

	memset(h, 0, sizeof(*h));
	if (end < off || end - off < EMU_ETH_HLEN)
		return false;
	h->l2_off = off;
	type = emu_get_be16(f + off + 12);
	pos = off + EMU_ETH_HLEN;
	while ((type == EMU_ETH_TPID_CVLAN || type == EMU_ETH_TPID_SVLAN) &&
	       h->nvlan < EMU_ETH_MAX_VLANS && end - pos >= EMU_ETH_VLAN_HLEN) {
		h->vlan_tpid[h->nvlan] = type;
		h->vlan_tci[h->nvlan] = emu_get_be16(f + pos);
		type = emu_get_be16(f + pos + 2);
		h->nvlan++;
		pos += EMU_ETH_VLAN_HLEN;
	}
	h->ethertype = type;
	if (type != EMU_ETH_TYPE_IPV4 && type != EMU_ETH_TYPE_IPV6)
		return true;
	/* Kept for a malformed header too: LSO reads its template's. */
	h->l3_off = pos;
	if (type == EMU_ETH_TYPE_IPV4)
		ok = eth_parse_ipv4(f, pos, end, h);
	else
		ok = eth_parse_ipv6(f, pos, end, h);
	if (!ok) {
		h->l3 = EMU_ETH_L3_NONE;
		h->l3_bad = true;
		h->frag = h->frag_later = h->frag_more = h->ip_opts = false;
		h->frag_offset = 0;
		return true;
	}
	eth_parse_l4(f, h);
	return true;
}

static void eth_parse_vxlan(const uint8_t *f, struct emu_eth_pkt *p)
{
	const struct emu_eth_hdrs *o = &p->outer;
	uint32_t vx = o->l4_off + 8;

	if (o->l4 != EMU_ETH_L4_UDP || o->frag ||
	    o->dport != EMU_ETH_VXLAN_PORT ||
	    o->l3_end - vx < ETH_VXLAN_HLEN + EMU_ETH_HLEN ||
	    !(f[vx] & ETH_VXLAN_FLAG_I))
		return;
	p->tunneled = true;
	p->vni = emu_get_be32(f + vx + 4) >> 8;
	eth_parse_hdrs(f, vx + ETH_VXLAN_HLEN, o->l3_end, &p->inner);
}

int emu_eth_parse(const uint8_t *f, size_t len, struct emu_eth_pkt *p)
{
	memset(p, 0, sizeof(*p));
	/* Offsets are 32-bit: a longer buffer is parsed as its first 4 GiB. */
	p->len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
	if (!eth_parse_hdrs(f, 0, p->len, &p->outer))
		return -EINVAL;
	eth_parse_vxlan(f, p);
	return 0;
}
