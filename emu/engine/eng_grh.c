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
 * DETH 8, ImmDt 4, payload, ICRC 4.
 */
#include <arpa/inet.h>
#include <string.h>

#include "emu/engine/eng_int.h"

enum {
	ENG_L3_GRH = 0,		/* MLX5_CQE_ROCE_L3_HEADER_TYPE_GRH */
	ENG_L3_IPV6 = 1,
	ENG_L3_IPV4 = 2,
};

static bool eng_gid_is_v4(const uint8_t gid[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(gid, pfx, sizeof(pfx));
}

static uint16_t eng_ip_csum(const uint8_t *h, unsigned int len)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i < len; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

void eng_grh_build(const struct eng_pkt *pkt, uint8_t grh[40],
		   uint8_t *l3_type)
{
	const struct eng_addr *a = &pkt->addr;
	uint32_t bth_on = 12 + 8 + (pkt->has_imm ? 4 : 0) + pkt->len + 4;
	uint16_t csum;

	memset(grh, 0, 40);
	if (a->roce_v2 && eng_gid_is_v4(a->sgid)) {
		uint8_t *ip = grh + 20;
		uint16_t tot = (uint16_t)(20 + 8 + bth_on);

		ip[0] = 0x45;
		ip[1] = a->tclass;
		ip[2] = (uint8_t)(tot >> 8);
		ip[3] = (uint8_t)tot;
		ip[6] = 0x40;		/* don't fragment */
		ip[8] = a->hop_limit;
		ip[9] = 17;		/* UDP */
		memcpy(ip + 12, a->sgid + 12, 4);
		memcpy(ip + 16, a->dgid + 12, 4);
		csum = eng_ip_csum(ip, 20);
		ip[10] = (uint8_t)(csum >> 8);
		ip[11] = (uint8_t)csum;
		*l3_type = ENG_L3_IPV4;
		return;
	}
	{
		uint32_t w0 = 6u << 28 | (uint32_t)a->tclass << 20 |
			      (a->flow_label & 0xfffff);
		uint16_t plen = (uint16_t)((a->roce_v2 ? 8 : 0) + bth_on);

		w0 = htonl(w0);
		memcpy(grh, &w0, 4);
		grh[4] = (uint8_t)(plen >> 8);
		grh[5] = (uint8_t)plen;
		grh[6] = a->roce_v2 ? 17 : 0x1b;
		grh[7] = a->hop_limit;
		memcpy(grh + 8, a->sgid, 16);
		memcpy(grh + 24, a->dgid, 16);
		*l3_type = a->roce_v2 ? ENG_L3_IPV6 : ENG_L3_GRH;
	}
}
