/* SPDX-License-Identifier: MIT */
/*
 * emu/eth/eth_lso.c -- segmentation offload (a TSO WQE, opcode 0x0e,
 * with the Ethernet segment's mss and inline headers): TCP, and UDP.
 *
 * Each segment carries the template's headers with: the IPv4 total length
 * or IPv6 payload length of its own size; the IPv4 identification of the
 * template plus the segment's index (as Linux's software GSO does,
 * inet_gso_segment, unless SKB_GSO_TCP_FIXEDID; what a ConnectX does is not
 * public and the emulator does the same); for TCP the sequence number
 * advanced by the payload before it, FIN and PSH on the last segment only
 * and CWR on the first only (tcp_gso_segment); the IPv4 header and L4
 * checksums computed, whatever cs_flags say (lengths change per segment).
 *
 * UDP: mlx5e offers UDP segmentation (NETIF_F_GSO_UDP_L4) through the same
 * WQE, as GSO_PARTIAL, and writes gso_size + 8 into the template's UDP
 * length itself before posting (en_accel.h mlx5e_udp_gso_handle_tx_skb):
 * the device copies the UDP header as it is and computes its checksum over
 * each segment.  The emulator does that; the length field stays the
 * template's.
 */
#include <errno.h>
#include <string.h>

#include "eth.h"
#include "eth_int.h"

/* Inline headers longer than this are refused (a WQE holds < 1 KiB). */
enum { ETH_LSO_HDR_MAX = 1024 };

int emu_eth_lso_init(struct emu_eth_lso *s, const uint8_t *hdr,
		     uint32_t hdr_len, uint32_t payload_len, uint32_t mss)
{
	uint8_t tmpl[ETH_LSO_HDR_MAX];
	struct emu_eth_pkt p;
	uint32_t l3;

	memset(s, 0, sizeof(*s));
	if (!mss || hdr_len > sizeof(tmpl) || emu_eth_parse(hdr, hdr_len, &p) ||
	    !p.outer.l3_off)
		return -EINVAL;
	/*
	 * The template's IP length is whatever the sender left there (often
	 * the whole message's, or 0): parse a copy whose length says "the
	 * headers end at hdr_len".
	 */
	l3 = p.outer.l3_off;
	memcpy(tmpl, hdr, hdr_len);
	if (p.outer.ethertype == EMU_ETH_TYPE_IPV4 && hdr_len >= l3 + 4)
		emu_put_be16(tmpl + l3 + 2, (uint16_t)(hdr_len - l3));
	else if (p.outer.ethertype == EMU_ETH_TYPE_IPV6 && hdr_len >= l3 + 40)
		emu_put_be16(tmpl + l3 + 4, (uint16_t)(hdr_len - l3 - 40));
	else
		return -EINVAL;
	emu_eth_parse(tmpl, hdr_len, &p);
	if (p.outer.frag)
		return -EINVAL;
	/* UDP's length is a segment's, longer than the template: see above. */
	if (p.outer.ip_proto == ETH_IPPROTO_UDP && p.outer.l4_off &&
	    p.outer.l4_off + 8 == hdr_len) {
		p.outer.l4 = EMU_ETH_L4_UDP;
		p.outer.l4_hlen = 8;
	}
	if ((p.outer.l4 != EMU_ETH_L4_TCP && p.outer.l4 != EMU_ETH_L4_UDP) ||
	    p.outer.l4_off + p.outer.l4_hlen != hdr_len)
		return -EINVAL;
	s->hdr = hdr;
	s->hdr_len = hdr_len;
	s->payload_len = payload_len;
	s->mss = mss;
	s->nseg = payload_len ? (payload_len + mss - 1) / mss : 1;
	s->h = p.outer;
	if (p.outer.l4 == EMU_ETH_L4_TCP)
		s->seq = emu_get_be32(hdr + p.outer.l4_off + 4);
	if (p.outer.l3 == EMU_ETH_L3_IPV4)
		s->ip_id = emu_get_be16(hdr + l3 + 4);
	return 0;
}

uint32_t emu_eth_lso_slice(const struct emu_eth_lso *s, uint32_t k,
			   uint32_t *off)
{
	uint64_t o = (uint64_t)k * s->mss;

	if (o >= s->payload_len) {
		*off = s->payload_len;
		return 0;
	}
	*off = (uint32_t)o;
	return s->payload_len - *off < s->mss ? s->payload_len - *off : s->mss;
}

uint32_t emu_eth_lso_seg(const struct emu_eth_lso *s, uint32_t k,
			 uint8_t *frame)
{
	const struct emu_eth_hdrs *h = &s->h;
	uint8_t *ip = frame + h->l3_off, *l4 = frame + h->l4_off;
	uint32_t off, plen = emu_eth_lso_slice(s, k, &off);
	uint32_t l4len = h->l4_hlen + plen;

	memcpy(frame, s->hdr, s->hdr_len);
	if (h->l3 == EMU_ETH_L3_IPV4) {
		emu_put_be16(ip + 2, (uint16_t)(s->hdr_len - h->l3_off + plen));
		emu_put_be16(ip + 4, (uint16_t)(s->ip_id + k));
		eth_ipv4_csum_set(ip, h->l3_hlen);
	} else {
		emu_put_be16(ip + 4, (uint16_t)(s->hdr_len - h->l3_off - 40 + plen));
	}
	if (h->l4 == EMU_ETH_L4_TCP) {
		uint8_t fl = l4[13];

		emu_put_be32(l4 + 4, s->seq + off);
		if (k + 1 < s->nseg)
			fl &= (uint8_t)~(ETH_TCP_FIN | ETH_TCP_PSH);
		if (k)
			fl &= (uint8_t)~ETH_TCP_CWR;
		l4[13] = fl;
	}
	eth_l4_csum_set(frame, h, l4len);
	return s->hdr_len + plen;
}
