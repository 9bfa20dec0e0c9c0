/* SPDX-License-Identifier: MIT */
/*
 * emu/eth/eth_match.c -- the fte_match_param a frame presents to NIC
 * steering: every field a ConnectX matches for the headers emu/eth parses.
 *
 * lyr_2_4 (outer, and inner for VXLAN): dmac, smac, ethertype (the one
 * after the VLAN tags: mlx5e's tc offload writes flower's n_proto there and
 * the tags into cvlan_tag/svlan_tag and first_*, en_tc.c
 * __parse_cls_flower), cvlan_tag/svlan_tag and first_prio/cfi/vid of the
 * outermost tag, ip_version, ip_protocol, ip_dscp, ip_ecn, ttl_hoplimit,
 * frag, ipv4_ihl, the addresses, l4_type, tcp_flags and the ports (tcp_*
 * or udp_*).  misc: outer_second_* (and inner_second_*) for a second tag,
 * vxlan_vni, outer/inner_ipv6_flow_label.  A field of a header the frame
 * lacks (or whose header is malformed) stays 0.
 */
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"

#include "eth.h"
#include "eth_int.h"

#define L24(m, fld, v) PRM_SET(fte_match_set_lyr_2_4, m, fld, v)
#define MISC(m, fld, v) PRM_SET(fte_match_set_misc, m, fld, v)

/* misc's fields of one layer (@pfx outer_ or inner_): the second tag,
 * the IPv6 flow label. */
#define ETH_MATCH_MISC(misc, h, pfx)					\
	do {								\
		uint16_t tci_ = (h)->vlan_tci[1];			\
									\
		if ((h)->nvlan > 1) {					\
			MISC(misc, pfx##second_cvlan_tag,		\
			     (h)->vlan_tpid[1] == EMU_ETH_TPID_CVLAN);	\
			MISC(misc, pfx##second_svlan_tag,		\
			     (h)->vlan_tpid[1] == EMU_ETH_TPID_SVLAN);	\
			MISC(misc, pfx##second_prio, tci_ >> 13);	\
			MISC(misc, pfx##second_cfi, tci_ >> 12);	\
			MISC(misc, pfx##second_vid, tci_);		\
		}							\
		if ((h)->l3 == EMU_ETH_L3_IPV6)				\
			MISC(misc, pfx##ipv6_flow_label, (h)->flow_label); \
	} while (0)

static void eth_match_l3(const uint8_t *f, const struct emu_eth_hdrs *h,
			 void *m)
{
	const uint8_t *ip = f + h->l3_off;

	L24(m, ip_protocol, h->ip_proto);
	L24(m, ip_dscp, h->tos >> 2);
	L24(m, ip_ecn, h->tos & 3);
	L24(m, ttl_hoplimit, h->ttl);
	L24(m, frag, h->frag);
	if (h->l3 == EMU_ETH_L3_IPV4) {
		L24(m, ip_version, 4);
		L24(m, ipv4_ihl, h->l3_hlen / 4);
		L24(m, src_ipv4_src_ipv6.ipv4_layout.ipv4, emu_get_be32(ip + 12));
		L24(m, dst_ipv4_dst_ipv6.ipv4_layout.ipv4, emu_get_be32(ip + 16));
	} else {
		L24(m, ip_version, 6);
		memcpy(PRM_ADDR_OF(fte_match_set_lyr_2_4, m,
				   src_ipv4_src_ipv6.ipv6_layout.ipv6), ip + 8, 16);
		memcpy(PRM_ADDR_OF(fte_match_set_lyr_2_4, m,
				   dst_ipv4_dst_ipv6.ipv6_layout.ipv6), ip + 24, 16);
	}
	if (h->l4 == EMU_ETH_L4_TCP) {
		L24(m, l4_type, MLX5_PACKET_L4_TYPE_TCP);
		L24(m, tcp_sport, h->sport);
		L24(m, tcp_dport, h->dport);
		L24(m, tcp_flags, h->tcp_flags);
	} else if (h->l4 == EMU_ETH_L4_UDP) {
		L24(m, l4_type, MLX5_PACKET_L4_TYPE_UDP);
		L24(m, udp_sport, h->sport);
		L24(m, udp_dport, h->dport);
	}
}

static void eth_match_l24(const uint8_t *f, const struct emu_eth_hdrs *h,
			  void *m)
{
	const uint8_t *l2 = f + h->l2_off;

	L24(m, dmac_47_16, emu_get_be32(l2));
	L24(m, dmac_15_0, emu_get_be16(l2 + 4));
	L24(m, smac_47_16, emu_get_be32(l2 + 6));
	L24(m, smac_15_0, emu_get_be16(l2 + 10));
	L24(m, ethertype, h->ethertype);
	if (h->nvlan) {
		uint16_t tci = h->vlan_tci[0];

		L24(m, cvlan_tag, h->vlan_tpid[0] == EMU_ETH_TPID_CVLAN);
		L24(m, svlan_tag, h->vlan_tpid[0] == EMU_ETH_TPID_SVLAN);
		L24(m, first_prio, tci >> 13);
		L24(m, first_cfi, tci >> 12);
		L24(m, first_vid, tci);
	}
	if (h->l3 != EMU_ETH_L3_NONE)
		eth_match_l3(f, h, m);
}

void emu_eth_fill_match(const uint8_t *f, const struct emu_eth_pkt *p,
			void *fte_match_param)
{
	void *m = fte_match_param;
	void *misc = PRM_ADDR_OF(fte_match_param, m, misc_parameters);
	const struct emu_eth_hdrs *o = &p->outer, *in = &p->inner;

	memset(m, 0, PRM_ST_SZ_BYTES(fte_match_param));
	if (p->len < EMU_ETH_HLEN)
		return;
	eth_match_l24(f, o, PRM_ADDR_OF(fte_match_param, m, outer_headers));
	ETH_MATCH_MISC(misc, o, outer_);
	if (!p->tunneled)
		return;
	MISC(misc, vxlan_vni, p->vni);
	eth_match_l24(f, in, PRM_ADDR_OF(fte_match_param, m, inner_headers));
	ETH_MATCH_MISC(misc, in, inner_);
}
