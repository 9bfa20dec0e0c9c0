/* SPDX-License-Identifier: MIT */
/*
 * emu/eth/eth_csum.c -- the Internet checksum (RFC 1071): IPv4 headers,
 * TCP and UDP over IPv4 and IPv6 with their pseudo headers; the receive
 * verdicts a ConnectX puts in a CQE and the transmit offload an Ethernet
 * segment's cs_flags ask for.
 *
 * Receive (hds_ip_ext): L3_OK for an IPv4 header whose checksum holds and
 * for any well-formed IPv6 header (it has none; the kernel's mlx5e needs
 * L3_OK and L4_OK together before it trusts a TCP/IPv6 checksum, en_rx.c
 * mlx5e_handle_csum).  L4_OK for TCP or UDP whose checksum holds; a UDP
 * checksum of 0 over IPv4 means "none" (RFC 768) and is good, over IPv6 it
 * is not allowed (RFC 8200 8.1) and is bad.  A fragment's L4 checksum
 * cannot be checked from one fragment: never L4_OK.  check_sum is the sum
 * of the IP packet's bytes, IP header first, neither the Ethernet header
 * and tags nor padding (mlx5e adds those itself: mlx5e_skb_csum_fixup).
 */
#include <endian.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "prm/prm_cmd.h"

#include "eth.h"
#include "eth_int.h"

uint32_t emu_eth_csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	/*
	 * Native-order words, 8 bytes a load: the one's complement sum is
	 * byte-order independent up to swapping the folded result (RFC 1071
	 * 2.B), and 32-bit words fold like 16-bit ones (2^16 is 1 modulo
	 * 0xffff).
	 */
	uint64_t acc = 0, acc2 = 0, w, w2;
	uint32_t w32;
	uint16_t w16;

	/* Two independent sums: the additions of one do not wait on the other. */
	while (n >= 16) {
		memcpy(&w, p, 8);
		memcpy(&w2, p + 8, 8);
		acc += (w & 0xffffffff) + (w >> 32);
		acc2 += (w2 & 0xffffffff) + (w2 >> 32);
		p += 16;
		n -= 16;
	}
	acc += acc2 & 0xffffffff;
	acc += acc2 >> 32;
	while (n >= 8) {
		memcpy(&w, p, 8);
		acc += (w & 0xffffffff) + (w >> 32);
		p += 8;
		n -= 8;
	}
	if (n >= 4) {
		memcpy(&w32, p, 4);
		acc += w32;
		p += 4;
		n -= 4;
	}
	if (n >= 2) {
		memcpy(&w16, p, 2);
		acc += w16;
		p += 2;
		n -= 2;
	}
	if (n) {
		/* The odd byte is the high half of a big-endian word. */
		const uint8_t last[2] = { p[0], 0 };

		memcpy(&w16, last, 2);
		acc += w16;
	}
	acc = (acc & 0xffffffff) + (acc >> 32);
	acc = (acc & 0xffffffff) + (acc >> 32);
	w16 = emu_eth_csum_fold((uint32_t)acc);
	acc = (uint64_t)sum + be16toh(w16);
	return (uint32_t)((acc & 0xffffffff) + (acc >> 32));
}

uint16_t emu_eth_csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint32_t emu_eth_csum_pseudo(const uint8_t *f, const struct emu_eth_hdrs *h,
			     uint32_t l4_len)
{
	uint32_t sum = h->ip_proto;

	/*
	 * IPv6: the header's destination, not a routing header's final one
	 * (the sender of a frame with a routing header computes it so).
	 */
	if (h->l3 == EMU_ETH_L3_IPV4) {
		sum += emu_eth_csum_fold(emu_eth_csum_add(0, f + h->l3_off + 12, 8));
		sum += l4_len;
	} else {
		sum += emu_eth_csum_fold(emu_eth_csum_add(0, f + h->l3_off + 8, 32));
		sum += (l4_len >> 16) + (l4_len & 0xffff);
	}
	return sum;
}

/* The bytes a TCP or UDP checksum covers. */
static uint32_t eth_l4_len(const uint8_t *f, const struct emu_eth_hdrs *h)
{
	uint32_t room = h->l3_end - h->l4_off;

	if (h->l4 == EMU_ETH_L4_UDP) {
		uint32_t ulen = emu_get_be16(f + h->l4_off + 4);

		return ulen < room ? ulen : room;
	}
	return room;
}

static uint32_t eth_l4_csum_off(const struct emu_eth_hdrs *h)
{
	return h->l4_off + (h->l4 == EMU_ETH_L4_TCP ? 16 : 6);
}

static uint16_t eth_swab16(uint16_t v)
{
	return (uint16_t)(v << 8 | v >> 8);
}

void emu_eth_csum_verify(const uint8_t *f, const struct emu_eth_pkt *p,
			 struct emu_eth_csum_ok *ok)
{
	const struct emu_eth_hdrs *h = &p->outer;
	uint32_t start, l4len, hs, ps, rest = 0;

	memset(ok, 0, sizeof(*ok));
	if (h->l3 == EMU_ETH_L3_NONE)
		return;
	start = h->l3_off + h->l3_hlen;
	hs = emu_eth_csum_fold(emu_eth_csum_add(0, f + h->l3_off, h->l3_hlen));
	ok->l3_ok = h->l3 == EMU_ETH_L3_IPV6 || hs == 0xffff;
	l4len = h->l4 == EMU_ETH_L4_NONE ? h->l3_end - start : eth_l4_len(f, h);
	ps = emu_eth_csum_fold(emu_eth_csum_add(0, f + start, l4len));
	if (start + l4len < h->l3_end) {
		rest = emu_eth_csum_fold(emu_eth_csum_add(0, f + start + l4len,
						  h->l3_end - start - l4len));
		if (l4len & 1)
			rest = eth_swab16((uint16_t)rest);
	}
	ok->check_sum = emu_eth_csum_fold(hs + ps + rest);

	if (h->l4 == EMU_ETH_L4_NONE || h->frag || h->l3_trunc)
		return;
	if (h->l4 == EMU_ETH_L4_UDP && !emu_get_be16(f + eth_l4_csum_off(h))) {
		ok->l4_ok = h->l3 == EMU_ETH_L3_IPV4;
		return;
	}
	ok->l4_ok = emu_eth_csum_fold(ps + emu_eth_csum_pseudo(f, h, l4len)) ==
		    0xffff;
}

void eth_ipv4_csum_set(uint8_t *ip, uint32_t hlen)
{
	emu_put_be16(ip + 10, 0);
	emu_put_be16(ip + 10, (uint16_t)~emu_eth_csum_fold(
				      emu_eth_csum_add(0, ip, hlen)));
}

void eth_l4_csum_set(uint8_t *f, const struct emu_eth_hdrs *h,
		     uint32_t l4_len)
{
	uint32_t coff = eth_l4_csum_off(h);
	uint16_t c;

	emu_put_be16(f + coff, 0);
	c = (uint16_t)~emu_eth_csum_fold(emu_eth_csum_pseudo(f, h, l4_len) +
			emu_eth_csum_fold(emu_eth_csum_add(0, f + h->l4_off,
							   l4_len)));
	if (h->l4 == EMU_ETH_L4_UDP && !c)
		c = 0xffff;
	emu_put_be16(f + coff, c);
}

static bool eth_tx_l3(uint8_t *f, const struct emu_eth_hdrs *h)
{
	if (h->l3 != EMU_ETH_L3_IPV4)
		return false;
	eth_ipv4_csum_set(f + h->l3_off, h->l3_hlen);
	return true;
}

static bool eth_tx_l4(uint8_t *f, const struct emu_eth_hdrs *h)
{
	if (h->l4 == EMU_ETH_L4_NONE || h->frag)
		return false;
	eth_l4_csum_set(f, h, eth_l4_len(f, h));
	return true;
}

uint8_t emu_eth_tx_csum(uint8_t *f, size_t len, uint8_t cs_flags)
{
	struct emu_eth_pkt p;
	uint8_t done = 0;

	if (!cs_flags || emu_eth_parse(f, len, &p))
		return 0;
	/* Inner first: the outer UDP checksum covers the inner headers. */
	if (p.tunneled) {
		if ((cs_flags & MLX5_ETH_WQE_L3_INNER_CSUM) &&
		    eth_tx_l3(f, &p.inner))
			done |= MLX5_ETH_WQE_L3_INNER_CSUM;
		if ((cs_flags & MLX5_ETH_WQE_L4_INNER_CSUM) &&
		    eth_tx_l4(f, &p.inner))
			done |= MLX5_ETH_WQE_L4_INNER_CSUM;
	}
	if ((cs_flags & MLX5_ETH_WQE_L3_CSUM) && eth_tx_l3(f, &p.outer))
		done |= MLX5_ETH_WQE_L3_CSUM;
	if ((cs_flags & MLX5_ETH_WQE_L4_CSUM) && eth_tx_l4(f, &p.outer))
		done |= MLX5_ETH_WQE_L4_CSUM;
	return done;
}
