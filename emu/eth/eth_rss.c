/* SPDX-License-Identifier: MIT */
/*
 * emu/eth/eth_rss.c -- receive side scaling: a TIR's hash of a frame.
 *
 * The input is the selected fields in Microsoft's RSS order (source
 * address, destination address, source port, destination port; the ESP
 * SPI in place of the ports), big-endian as on the wire; TOEPLITZ is
 * Microsoft's "RSS hashing functions" with the TIR's 40-byte key (its
 * verification vectors are the unit tests').
 *
 * rx_hash_symmetric: mlx5's symmetric transform is "OR-XOR" -- the input
 * becomes (SRC_IP | DST_IP, SRC_IP ^ DST_IP, SRC_PORT | DST_PORT,
 * SRC_PORT ^ DST_PORT) (Gal Pressman, NVIDIA, netdev 2023-10-31 and the
 * ethtool RXH_XFRM_SYM_OR_XOR patches; mlx5e maps rx_hash_symmetric to
 * it, en_ethtool.c mlx5e_get_rxfh).  It applies to a pair whose two
 * halves are both selected.
 *
 * INVERTED_XOR8: no public source defines it.  The emulator's reading of
 * the name: the XOR of all input bytes, inverted, as an 8-bit result.
 *
 * A frame without what the selector names (another L3 or L4 protocol, a
 * fragment when ports or the SPI are selected) is hashed as an empty input:
 * hash 0 and rss_hash_type 0, so it reaches the indirection table's first
 * entry.  What a ConnectX does then is not public; mlx5e never lets it
 * happen (its flow tables steer each traffic type to the TIR hashing it).
 */
#include <string.h>

#include "prm/prm_cmd.h"

#include "eth.h"
#include "eth_int.h"

/* The key's 32 bits starting at bit j (0: the first byte's MSB). */
static uint32_t eth_key_window(const uint8_t *key, uint32_t j)
{
	uint32_t byte = j / 8, sh = j % 8;
	uint64_t w = 0;
	uint32_t i;

	for (i = 0; i < 5; i++)
		w = w << 8 | (byte + i < EMU_ETH_RSS_KEY_LEN ? key[byte + i] : 0);
	return (uint32_t)(w >> (8 - sh));
}

void emu_eth_toeplitz_init(struct emu_eth_toeplitz *tz,
			   const uint8_t key[EMU_ETH_RSS_KEY_LEN])
{
	uint32_t i, v, b;

	for (i = 0; i < EMU_ETH_RSS_INPUT_MAX; i++) {
		uint32_t w[8];

		/* w[b]: the window of the byte's bit b counted from its MSB. */
		for (b = 0; b < 8; b++)
			w[b] = eth_key_window(key, i * 8 + b);
		tz->t[i][0] = 0;
		for (v = 1; v < 256; v++)
			tz->t[i][v] = tz->t[i][v & (v - 1)] ^
				      w[7 - __builtin_ctz(v)];
	}
}

uint32_t emu_eth_toeplitz(const struct emu_eth_toeplitz *tz, const uint8_t *in,
			  size_t n)
{
	uint32_t h = 0;
	size_t i;

	for (i = 0; i < n && i < EMU_ETH_RSS_INPUT_MAX; i++)
		h ^= tz->t[i][in[i]];
	return h;
}

/* Appends a source/destination pair, either half, or OR-XOR of both. */
static size_t eth_rss_pair(uint8_t *in, size_t n, const uint8_t *src,
			   const uint8_t *dst, size_t w, bool use_src,
			   bool use_dst, bool symmetric)
{
	size_t i;

	if (use_src && use_dst && symmetric) {
		for (i = 0; i < w; i++) {
			in[n + i] = src[i] | dst[i];
			in[n + w + i] = src[i] ^ dst[i];
		}
		return n + 2 * w;
	}
	if (use_src) {
		memcpy(in + n, src, w);
		n += w;
	}
	if (use_dst) {
		memcpy(in + n, dst, w);
		n += w;
	}
	return n;
}

void emu_eth_rss_hash(const uint8_t *f, const struct emu_eth_pkt *p,
		      const struct emu_eth_rss_cfg *cfg,
		      struct emu_eth_rss_res *r)
{
	const struct emu_eth_hdrs *h = cfg->inner ? &p->inner : &p->outer;
	uint32_t sel = cfg->fields;
	bool ports = sel & (MLX5_HASH_FIELD_SEL_L4_SPORT |
			    MLX5_HASH_FIELD_SEL_L4_DPORT);
	bool spi = sel & MLX5_HASH_FIELD_SEL_IPSEC_SPI;
	uint8_t in[EMU_ETH_RSS_INPUT_MAX], ip, l4 = CQE_RSS_L4_NONE;
	const uint8_t *src;
	size_t n, w, i;

	memset(r, 0, sizeof(*r));
	if (cfg->inner && !p->tunneled)
		return;
	if (cfg->l3_prot_type == MLX5_L3_PROT_TYPE_IPV4 ?
	    h->l3 != EMU_ETH_L3_IPV4 : h->l3 != EMU_ETH_L3_IPV6)
		return;
	if ((ports || spi) && h->frag)
		return;
	if (ports && spi)
		return;	/* no frame is both TCP/UDP and ESP */
	if (ports) {
		enum emu_eth_l4 want =
			cfg->l4_prot_type == MLX5_L4_PROT_TYPE_TCP ?
				EMU_ETH_L4_TCP : EMU_ETH_L4_UDP;

		if (h->l4 != want)
			return;
		l4 = want == EMU_ETH_L4_TCP ? CQE_RSS_L4_TCP : CQE_RSS_L4_UDP;
	}
	if (spi) {
		if (h->ip_proto != ETH_IPPROTO_ESP || h->l3_end - h->l4_off < 4)
			return;
		l4 = CQE_RSS_L4_IPSEC;
	}
	r->matched = true;
	ip = h->l3 == EMU_ETH_L3_IPV4 ? CQE_RSS_IPV4 : CQE_RSS_IPV6;
	w = h->l3 == EMU_ETH_L3_IPV4 ? 4 : 16;
	src = f + h->l3_off + (h->l3 == EMU_ETH_L3_IPV4 ? 12 : 8);
	n = eth_rss_pair(in, 0, src, src + w, w,
			 sel & MLX5_HASH_FIELD_SEL_SRC_IP,
			 sel & MLX5_HASH_FIELD_SEL_DST_IP, cfg->symmetric);
	if (ports)
		n = eth_rss_pair(in, n, f + h->l4_off, f + h->l4_off + 2, 2,
				 sel & MLX5_HASH_FIELD_SEL_L4_SPORT,
				 sel & MLX5_HASH_FIELD_SEL_L4_DPORT,
				 cfg->symmetric);
	if (spi) {
		memcpy(in + n, f + h->l4_off, 4);
		n += 4;
	}
	r->ip_src = (sel & MLX5_HASH_FIELD_SEL_SRC_IP) ? ip : CQE_RSS_IP_NONE;
	r->ip_dst = (sel & MLX5_HASH_FIELD_SEL_DST_IP) ? ip : CQE_RSS_IP_NONE;
	r->l4_src = (spi || (sel & MLX5_HASH_FIELD_SEL_L4_SPORT)) ? l4 :
							       CQE_RSS_L4_NONE;
	r->l4_dst = (spi || (sel & MLX5_HASH_FIELD_SEL_L4_DPORT)) ? l4 :
							       CQE_RSS_L4_NONE;
	if (cfg->fn == MLX5_RX_HASH_FN_TOEPLITZ && cfg->tz) {
		r->hash = emu_eth_toeplitz(cfg->tz, in, n);
	} else if (cfg->fn == MLX5_RX_HASH_FN_INVERTED_XOR8) {
		uint8_t x = 0;

		for (i = 0; i < n; i++)
			x ^= in[i];
		r->hash = (uint8_t)~x;
	}
}
