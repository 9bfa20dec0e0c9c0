/* SPDX-License-Identifier: MIT */
/*
 * emu/eth/eth_int.h -- byte access shared by the packet library's files.
 */
#ifndef MLX5EMU_EMU_ETH_ETH_INT_H
#define MLX5EMU_EMU_ETH_ETH_INT_H

#include <stdint.h>

static inline uint16_t eth_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t eth_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void eth_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void eth_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

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
