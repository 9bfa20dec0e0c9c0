/* SPDX-License-Identifier: MIT */
/*
 * emu/eth/eth_int.h -- what the packet library's files share: byte
 * access (emu/base/bytes.h), protocol numbers and flags.
 */
#ifndef MLX5EMU_EMU_ETH_ETH_INT_H
#define MLX5EMU_EMU_ETH_ETH_INT_H

#include <stdint.h>

#include "emu/base/bytes.h"

struct emu_eth_hdrs;

/*
 * eth_csum.c, for transmit and segmentation: an IPv4 header's checksum
 * written in place (@hlen bytes at @ip), and a TCP or UDP checksum over
 * @l4_len bytes with its pseudo header (UDP sends a computed 0 as all
 * ones: 0 means "no checksum").
 */
void eth_ipv4_csum_set(uint8_t *ip, uint32_t hlen);
void eth_l4_csum_set(uint8_t *f, const struct emu_eth_hdrs *h,
		     uint32_t l4_len);

enum {
	ETH_IPPROTO_HOPOPTS = 0,
	ETH_IPPROTO_TCP = 6,
	ETH_IPPROTO_UDP = 17,
	ETH_IPPROTO_ROUTING = 43,
	ETH_IPPROTO_FRAGMENT = 44,
	ETH_IPPROTO_ESP = 50,
	ETH_IPPROTO_DSTOPTS = 60,
	ETH_TCP_ACK = 0x10,
	ETH_TCP_PSH = 0x08,
	ETH_TCP_FIN = 0x01,
	ETH_TCP_CWR = 0x80,
	ETH_VXLAN_HLEN = 8,
	ETH_VXLAN_FLAG_I = 0x08,
};

#endif /* MLX5EMU_EMU_ETH_ETH_INT_H */
