/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_grh.c -- the 40 bytes a UD receive starts with.
 *
 * RoCE carries no GRH on the wire for v2 (the IP header is the L3
 * header), but a UD receive buffer still starts with 40 bytes describing
 * it, as on a ConnectX:
 *  - IPv4 (an IPv4-mapped source GID, RoCE v2): bytes 0..19 zero, bytes
 *    20..39 the IPv4 header with a valid header checksum (libibverbs'
 *    ibv_init_ah_from_wc tells IPv4 from IPv6 by that checksum);
 *  - IPv6 (RoCE v2) or RoCE v1: the IPv6 header / GRH (next header UDP for
 *    v2, 0x1B for v1 as IBA A16 says).
 * Lengths are those of the packet as a wire would carry it: UDP 8, BTH 12,
 * DETH 8, ImmDt 4, payload, pad, ICRC 4 (the headers built by emu/wire).
 */
#include <arpa/inet.h>
#include <string.h>

#include "emu/engine/eng_int.h"

enum {
	ENG_L3_GRH = 0,		/* MLX5_CQE_ROCE_L3_HEADER_TYPE_GRH */
	ENG_L3_IPV6 = 1,
	ENG_L3_IPV4 = 2,
};

void eng_grh_build(const struct eng_pkt *pkt, uint8_t grh[40],
		   uint8_t *l3_type)
{
	const struct eng_addr *a = &pkt->addr;
	uint32_t pad = (4 - (pkt->len & 3)) & 3;
	/* BTH, DETH, ImmDt, payload, pad, ICRC: what followed the header. */
	uint32_t bth_on = 12 + 8 + (pkt->has_imm ? 4 : 0) + pkt->len + pad + 4;

	memset(grh, 0, 40);
	if (a->roce_v2 && emu_wire_gid_is_v4(a->sgid)) {
		emu_wire_ipv4_build(grh + 20, a->sgid, a->dgid, a->tclass,
				    a->hop_limit, (uint16_t)(8 + bth_on));
		*l3_type = ENG_L3_IPV4;
		return;
	}
	emu_wire_ipv6_build(grh, a->sgid, a->dgid, a->tclass, a->flow_label,
			    a->hop_limit, a->roce_v2 ? 17 : 0x1b,
			    (uint16_t)((a->roce_v2 ? 8 : 0) + bth_on));
	*l3_type = a->roce_v2 ? ENG_L3_IPV6 : ENG_L3_GRH;
}
