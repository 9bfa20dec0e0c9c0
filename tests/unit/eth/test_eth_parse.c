/* SPDX-License-Identifier: MIT */
/*
 * emu/eth's parse (eth_parse.c) and the match parameter it fills
 * (eth_match.c): literal frames, expected offsets and values, and the
 * fte_match_param read back both by prm's accessors and at literal byte
 * offsets of mlx5_ifc.h's layout.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "emu/eth/eth.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

#include "eth_frames.h"
#include "ut_run.h"

static struct emu_eth_pkt p;
static uint8_t f[128];

static const struct emu_eth_hdrs *parse(const uint8_t *src, size_t len)
{
	memcpy(f, src, len);
	ck_assert_int_eq(emu_eth_parse(f, len, &p), 0);
	return &p.outer;
}

START_TEST(vlan_ipv4_tcp)
{
	const struct emu_eth_hdrs *h = parse(frame_vlan_tcp4, 58);

	ck_assert_int_eq(p.len, 58);
	ck_assert_int_eq(h->nvlan, 1);
	ck_assert_uint_eq(h->vlan_tpid[0], 0x8100);
	ck_assert_uint_eq(h->vlan_tci[0], 0x6064);
	ck_assert_uint_eq(h->ethertype, 0x0800);
	ck_assert_int_eq(h->l3, EMU_ETH_L3_IPV4);
	ck_assert(!h->l3_bad);
	ck_assert_uint_eq(h->l3_off, 18);
	ck_assert_uint_eq(h->l3_hlen, 20);
	ck_assert_uint_eq(h->l3_end, 58);
	ck_assert_uint_eq(h->ip_proto, 6);
	ck_assert_uint_eq(h->tos, 0xb8);
	ck_assert_uint_eq(h->ttl, 64);
	ck_assert(!h->frag && !h->ip_opts);
	ck_assert_int_eq(h->l4, EMU_ETH_L4_TCP);
	ck_assert_uint_eq(h->l4_off, 38);
	ck_assert_uint_eq(h->l4_hlen, 20);
	ck_assert_uint_eq(h->sport, 12345);
	ck_assert_uint_eq(h->dport, 80);
	ck_assert_uint_eq(h->tcp_flags, 0x12);
	ck_assert(!p.tunneled);
}
END_TEST

START_TEST(qinq_ipv6_extensions_first_fragment)
{
	const struct emu_eth_hdrs *h = parse(frame_qinq_frag6, 90);

	ck_assert_int_eq(h->nvlan, 2);
	ck_assert_uint_eq(h->vlan_tpid[0], 0x88a8);
	ck_assert_uint_eq(h->vlan_tci[0], 5);
	ck_assert_uint_eq(h->vlan_tpid[1], 0x8100);
	ck_assert_uint_eq(h->vlan_tci[1], 0xa00a);
	ck_assert_uint_eq(h->ethertype, 0x86dd);
	ck_assert_int_eq(h->l3, EMU_ETH_L3_IPV6);
	ck_assert_uint_eq(h->l3_off, 22);
	/* 40 + hop-by-hop 8 + fragment 8 */
	ck_assert_uint_eq(h->l3_hlen, 56);
	ck_assert_uint_eq(h->l3_end, 90);
	ck_assert_uint_eq(h->ip_proto, 17);
	ck_assert_uint_eq(h->tos, 0x28);
	ck_assert_uint_eq(h->flow_label, 0x12345);
	ck_assert(h->ip_opts);
	ck_assert(h->frag && !h->frag_later && h->frag_more);
	ck_assert_uint_eq(h->frag_offset, 0);
	/* The first fragment still shows its UDP header. */
	ck_assert_int_eq(h->l4, EMU_ETH_L4_UDP);
	ck_assert_uint_eq(h->l4_off, 78);
	ck_assert_uint_eq(h->sport, 1000);
	ck_assert_uint_eq(h->dport, 2000);
}
END_TEST

START_TEST(later_fragment_has_no_l4)
{
	const struct emu_eth_hdrs *h;

	memcpy(f, frame_qinq_frag6, 90);
	f[72] = 0x00;	/* fragment offset 1 (8 bytes), M */
	f[73] = 0x09;
	ck_assert_int_eq(emu_eth_parse(f, 90, &p), 0);
	h = &p.outer;
	ck_assert(h->frag && h->frag_later && h->frag_more);
	ck_assert_uint_eq(h->frag_offset, 8);
	ck_assert_int_eq(h->l4, EMU_ETH_L4_NONE);
	ck_assert_uint_eq(h->l4_off, 0);
	ck_assert(!h->l4_bad);

	memcpy(f, frame_vlan_tcp4, 58);
	f[24] = 0x00;	/* IPv4 offset 0x10 */
	f[25] = 0x10;
	ck_assert_int_eq(emu_eth_parse(f, 58, &p), 0);
	ck_assert(p.outer.frag_later && !p.outer.frag_more);
	ck_assert_uint_eq(p.outer.frag_offset, 0x80);
	ck_assert_int_eq(p.outer.l4, EMU_ETH_L4_NONE);
	f[24] = 0x20;	/* MF, offset 0: the first fragment */
	f[25] = 0x00;
	ck_assert_int_eq(emu_eth_parse(f, 58, &p), 0);
	ck_assert(p.outer.frag && !p.outer.frag_later);
	ck_assert_int_eq(p.outer.l4, EMU_ETH_L4_TCP);
}
END_TEST

/* A malformed IPv4 header: L3 NONE, recorded as bad, nothing above it. */
static void expect_l3_bad(size_t len)
{
	ck_assert_int_eq(emu_eth_parse(f, len, &p), 0);
	ck_assert_int_eq(p.outer.l3, EMU_ETH_L3_NONE);
	ck_assert(p.outer.l3_bad);
	ck_assert_int_eq(p.outer.l4, EMU_ETH_L4_NONE);
	ck_assert_uint_eq(p.outer.ethertype, 0x0800);
}

START_TEST(malformed_ipv4)
{
	struct emu_eth_csum_ok ok;

	/* A total length past the frame: parsed to the frame's end, the L4
	 * checksum never good (the IP header's still is). */
	memcpy(f, frame_vlan_tcp4, 58);
	f[21] = 0x29;	/* total length 41 > the 40 the frame has */
	ck_assert_int_eq(emu_eth_parse(f, 58, &p), 0);
	ck_assert_int_eq(p.outer.l3, EMU_ETH_L3_IPV4);
	ck_assert(p.outer.l3_trunc && !p.outer.l3_bad);
	ck_assert_uint_eq(p.outer.l3_end, 58);
	ck_assert_int_eq(p.outer.l4, EMU_ETH_L4_TCP);
	emu_eth_csum_verify(f, &p, &ok);
	ck_assert(!ok.l4_ok);
	memcpy(f, frame_vlan_tcp4, 58);
	f[18] = 0x44;	/* IHL 4 */
	expect_l3_bad(58);
	memcpy(f, frame_vlan_tcp4, 58);
	f[18] = 0x55;	/* version 5 */
	expect_l3_bad(58);
	memcpy(f, frame_vlan_tcp4, 58);
	f[18] = 0x4f;	/* IHL 15: 60 bytes, beyond the frame */
	expect_l3_bad(58);
	memcpy(f, frame_vlan_tcp4, 58);
	expect_l3_bad(37);	/* truncated inside the IPv4 header */
}
END_TEST

START_TEST(malformed_tcp_and_ipv6_extension)
{
	memcpy(f, frame_vlan_tcp4, 58);
	f[50] = 0x40;	/* TCP data offset 4 */
	ck_assert_int_eq(emu_eth_parse(f, 58, &p), 0);
	ck_assert_int_eq(p.outer.l3, EMU_ETH_L3_IPV4);
	ck_assert_int_eq(p.outer.l4, EMU_ETH_L4_NONE);
	ck_assert(p.outer.l4_bad);

	memcpy(f, frame_qinq_frag6, 90);
	f[63] = 0x08;	/* hop-by-hop length 72 bytes: past the packet */
	ck_assert_int_eq(emu_eth_parse(f, 90, &p), 0);
	ck_assert_int_eq(p.outer.l3, EMU_ETH_L3_NONE);
	ck_assert(p.outer.l3_bad);
	ck_assert(!p.outer.frag && !p.outer.ip_opts);

	memcpy(f, frame_qinq_frag6, 90);
	f[27] = 0x1d;	/* payload length one past the frame: truncated */
	ck_assert_int_eq(emu_eth_parse(f, 90, &p), 0);
	ck_assert_int_eq(p.outer.l3, EMU_ETH_L3_IPV6);
	ck_assert(p.outer.l3_trunc && !p.outer.l3_bad);
	ck_assert_uint_eq(p.outer.l3_end, 90);
}
END_TEST

START_TEST(short_frames)
{
	memcpy(f, frame_vlan_tcp4, 58);
	ck_assert_int_eq(emu_eth_parse(f, 13, &p), -EINVAL);
	ck_assert_int_eq(p.len, 13);
	/* A tag cut short stays the ethertype. */
	ck_assert_int_eq(emu_eth_parse(f, 16, &p), 0);
	ck_assert_int_eq(p.outer.nvlan, 0);
	ck_assert_uint_eq(p.outer.ethertype, 0x8100);
	ck_assert_int_eq(p.outer.l3, EMU_ETH_L3_NONE);
	ck_assert(!p.outer.l3_bad);
}
END_TEST

START_TEST(vxlan_inner_headers)
{
	const struct emu_eth_hdrs *in;

	parse(frame_vxlan, 94);
	ck_assert(p.tunneled);
	ck_assert_uint_eq(p.vni, 0x123456);
	in = &p.inner;
	ck_assert_uint_eq(in->l2_off, 50);
	ck_assert_uint_eq(in->ethertype, 0x0800);
	ck_assert_int_eq(in->l3, EMU_ETH_L3_IPV4);
	ck_assert_uint_eq(in->l3_off, 64);
	ck_assert_uint_eq(in->ttl, 9);
	ck_assert_int_eq(in->l4, EMU_ETH_L4_UDP);
	ck_assert_uint_eq(in->sport, 7);
	ck_assert_uint_eq(in->dport, 9);

	memcpy(f, frame_vxlan, 94);
	f[42] = 0x04;	/* I flag clear: no VNI, no inner frame */
	ck_assert_int_eq(emu_eth_parse(f, 94, &p), 0);
	ck_assert(!p.tunneled);
}
END_TEST

#define OUT(fld) PRM_GET(fte_match_param, m, outer_headers.fld)
#define INN(fld) PRM_GET(fte_match_param, m, inner_headers.fld)
#define MSC(fld) PRM_GET(fte_match_param, m, misc_parameters.fld)

START_TEST(match_vlan_tcp4)
{
	uint8_t m[0x200];

	ck_assert_uint_eq(PRM_ST_SZ_BYTES(fte_match_param), sizeof(m));
	memset(m, 0xa5, sizeof(m));
	parse(frame_vlan_tcp4, 58);
	emu_eth_fill_match(f, &p, m);
	ck_assert_uint_eq(OUT(dmac_47_16), 0x02000000);
	ck_assert_uint_eq(OUT(dmac_15_0), 0x0001);
	ck_assert_uint_eq(OUT(smac_15_0), 0x0002);
	ck_assert_uint_eq(OUT(ethertype), 0x0800);
	ck_assert_uint_eq(OUT(cvlan_tag), 1);
	ck_assert_uint_eq(OUT(svlan_tag), 0);
	ck_assert_uint_eq(OUT(first_prio), 3);
	ck_assert_uint_eq(OUT(first_cfi), 0);
	ck_assert_uint_eq(OUT(first_vid), 100);
	ck_assert_uint_eq(OUT(ip_version), 4);
	ck_assert_uint_eq(OUT(ip_protocol), 6);
	ck_assert_uint_eq(OUT(ip_dscp), 46);
	ck_assert_uint_eq(OUT(ip_ecn), 0);
	ck_assert_uint_eq(OUT(ttl_hoplimit), 64);
	ck_assert_uint_eq(OUT(frag), 0);
	ck_assert_uint_eq(OUT(ipv4_ihl), 5);
	ck_assert_uint_eq(OUT(l4_type), MLX5_PACKET_L4_TYPE_TCP);
	ck_assert_uint_eq(OUT(tcp_flags), 0x12);
	ck_assert_uint_eq(OUT(tcp_sport), 12345);
	ck_assert_uint_eq(OUT(tcp_dport), 80);
	ck_assert_uint_eq(OUT(udp_sport), 0);
	ck_assert_uint_eq(OUT(src_ipv4_src_ipv6.ipv4_layout.ipv4), 0xc0a80001);
	ck_assert_uint_eq(OUT(dst_ipv4_dst_ipv6.ipv4_layout.ipv4), 0xc0a80002);
	/* mlx5_ifc.h's byte offsets: ethertype 6, tcp_sport 20, src ipv4 44. */
	ck_assert_uint_eq(m[6], 0x08);
	ck_assert_uint_eq(m[7], 0x00);
	ck_assert_uint_eq(m[20], 0x30);
	ck_assert_uint_eq(m[21], 0x39);
	ck_assert_uint_eq(m[44], 0xc0);
	ck_assert_uint_eq(m[47], 0x01);
	/* Everything else is zeroed: misc and inner headers. */
	for (size_t i = 0x40; i < sizeof(m); i++)
		ck_assert_msg(!m[i], "byte 0x%zx = 0x%x", i, m[i]);
}
END_TEST

START_TEST(match_qinq_ipv6)
{
	static const uint8_t src6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	uint8_t m[0x200];

	parse(frame_qinq_frag6, 90);
	emu_eth_fill_match(f, &p, m);
	ck_assert_uint_eq(OUT(ethertype), 0x86dd);
	ck_assert_uint_eq(OUT(svlan_tag), 1);
	ck_assert_uint_eq(OUT(cvlan_tag), 0);
	ck_assert_uint_eq(OUT(first_vid), 5);
	ck_assert_uint_eq(MSC(outer_second_cvlan_tag), 1);
	ck_assert_uint_eq(MSC(outer_second_svlan_tag), 0);
	ck_assert_uint_eq(MSC(outer_second_prio), 5);
	ck_assert_uint_eq(MSC(outer_second_vid), 10);
	ck_assert_uint_eq(MSC(outer_ipv6_flow_label), 0x12345);
	ck_assert_uint_eq(OUT(ip_version), 6);
	ck_assert_uint_eq(OUT(ip_protocol), 17);
	ck_assert_uint_eq(OUT(ip_dscp), 10);
	ck_assert_uint_eq(OUT(frag), 1);
	ck_assert_uint_eq(OUT(l4_type), MLX5_PACKET_L4_TYPE_UDP);
	ck_assert_uint_eq(OUT(udp_sport), 1000);
	ck_assert_uint_eq(OUT(udp_dport), 2000);
	ck_assert_mem_eq(m + 0x20, src6, 16);	/* src_ipv4_src_ipv6 */
	ck_assert_uint_eq(m[0x30 + 15], 2);	/* dst ...::2 */
}
END_TEST

START_TEST(match_vxlan)
{
	uint8_t m[0x200];

	parse(frame_vxlan, 94);
	emu_eth_fill_match(f, &p, m);
	ck_assert_uint_eq(OUT(udp_dport), 4789);
	ck_assert_uint_eq(MSC(vxlan_vni), 0x123456);
	ck_assert_uint_eq(INN(ethertype), 0x0800);
	ck_assert_uint_eq(INN(ip_version), 4);
	ck_assert_uint_eq(INN(ttl_hoplimit), 9);
	ck_assert_uint_eq(INN(src_ipv4_src_ipv6.ipv4_layout.ipv4), 0xac100001);
	ck_assert_uint_eq(INN(udp_sport), 7);
	ck_assert_uint_eq(INN(udp_dport), 9);
	/* misc vxlan_vni at byte 0x40 + 0x14 */
	ck_assert_uint_eq(m[0x54], 0x12);
	ck_assert_uint_eq(m[0x56], 0x56);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("eth_parse");
	TCase *tc = tcase_create("parse");
	TCase *tm = tcase_create("match");

	tcase_add_test(tc, vlan_ipv4_tcp);
	tcase_add_test(tc, qinq_ipv6_extensions_first_fragment);
	tcase_add_test(tc, later_fragment_has_no_l4);
	tcase_add_test(tc, malformed_ipv4);
	tcase_add_test(tc, malformed_tcp_and_ipv6_extension);
	tcase_add_test(tc, short_frames);
	tcase_add_test(tc, vxlan_inner_headers);
	suite_add_tcase(s, tc);
	tcase_add_test(tm, match_vlan_tcp4);
	tcase_add_test(tm, match_qinq_ipv6);
	tcase_add_test(tm, match_vxlan);
	suite_add_tcase(s, tm);
	return ut_run(s) ? 1 : 0;
}
