/* SPDX-License-Identifier: MIT */
/*
 * emu/eth's checksums (eth_csum.c) and CQE classification (eth_cqe.c):
 * scapy's literal checksums recomputed, the receive verdicts (UDP 0 over
 * IPv4 and IPv6, fragments, damaged bytes) and the CQE bytes at the
 * offsets of the kernel's struct mlx5_cqe64.
 */
#include <check.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "emu/eth/eth.h"
#include "prm/prm_cmd.h"

#include "eth_frames.h"
#include "ut_run.h"

static struct emu_eth_pkt p;
static struct emu_eth_csum_ok ok;
static uint8_t f[128];

static void verify(size_t len)
{
	ck_assert_int_eq(emu_eth_parse(f, len, &p), 0);
	emu_eth_csum_verify(f, &p, &ok);
}

START_TEST(sum_of_a_known_header)
{
	/* RFC 1071's example bytes: 00 01 f2 03 f4 f5 f6 f7 sum to ddf2. */
	static const uint8_t b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5,
				     0xf6, 0xf7 };

	ck_assert_uint_eq(emu_eth_csum_fold(emu_eth_csum_add(0, b, 8)), 0xddf2);
	/* An odd tail is padded with a zero byte. */
	ck_assert_uint_eq(emu_eth_csum_fold(emu_eth_csum_add(0, b, 7)), 0xdcfb);
}
END_TEST

START_TEST(rx_good_and_damaged)
{
	memcpy(f, frame_vlan_tcp4, 58);
	verify(58);
	ck_assert(ok.l3_ok && ok.l4_ok);
	/* The IP packet's sum (python's, independently). */
	ck_assert_uint_eq(ok.check_sum, 0x7e91);

	f[53] ^= 1;	/* TCP window */
	verify(58);
	ck_assert(ok.l3_ok && !ok.l4_ok);
	f[53] ^= 1;
	f[26] = 63;	/* TTL */
	verify(58);
	ck_assert(!ok.l3_ok && ok.l4_ok);
}
END_TEST

START_TEST(rx_udp_zero_and_fragments)
{
	memcpy(f, frame_vxlan, 94);
	verify(94);
	ck_assert(ok.l3_ok && ok.l4_ok);
	f[40] = f[41] = 0;	/* no UDP checksum over IPv4: good */
	verify(94);
	ck_assert(ok.l4_ok);

	/* The IPv6 first fragment: a fragment's L4 is never checked. */
	memcpy(f, frame_qinq_frag6, 90);
	verify(90);
	ck_assert(ok.l3_ok && !ok.l4_ok);
	/* An atomic fragment (offset 0, no M) is whole: UDP 0 over IPv6 is bad. */
	f[73] = 0;
	verify(90);
	ck_assert(!p.outer.frag);
	ck_assert(ok.l3_ok && !ok.l4_ok);
	ck_assert_uint_eq(emu_eth_tx_csum(f, 90, MLX5_ETH_WQE_L4_CSUM),
			  MLX5_ETH_WQE_L4_CSUM);
	verify(90);
	ck_assert(ok.l4_ok);
}
END_TEST

START_TEST(tx_offload_writes_scapys_checksums)
{
	memcpy(f, frame_vlan_tcp4, 58);
	f[28] = f[29] = 0;	/* IP */
	f[54] = f[55] = 0;	/* TCP */
	ck_assert_uint_eq(emu_eth_tx_csum(f, 58, MLX5_ETH_WQE_L3_CSUM), MLX5_ETH_WQE_L3_CSUM);
	ck_assert_uint_eq(f[28], 0xa6);
	ck_assert_uint_eq(f[29], 0x90);
	ck_assert_uint_eq(f[54], 0);	/* not asked */
	ck_assert_uint_eq(emu_eth_tx_csum(f, 58, MLX5_ETH_WQE_L4_CSUM), MLX5_ETH_WQE_L4_CSUM);
	ck_assert_mem_eq(f, frame_vlan_tcp4, 58);

	/* Tunneled: inner L3/L4 and outer L3/L4, all four. */
	memcpy(f, frame_vxlan, 94);
	f[24] = f[25] = f[40] = f[41] = f[74] = f[75] = f[90] = f[91] = 0;
	ck_assert_uint_eq(emu_eth_tx_csum(f, 94, 0xf0), 0xf0);
	ck_assert_mem_eq(f, frame_vxlan, 94);

	/* Nothing to do for a frame without IP. */
	memcpy(f, frame_vlan_tcp4, 58);
	f[16] = 0x88;
	f[17] = 0xb5;
	ck_assert_uint_eq(emu_eth_tx_csum(f, 58, 0xf0), 0);
}
END_TEST

static void classify(struct emu_eth_cqe_info *c, size_t len)
{
	ck_assert_int_eq(emu_eth_parse(f, len, &p), 0);
	emu_eth_cqe_classify(f, &p, c);
}

START_TEST(cqe_header_types)
{
	struct emu_eth_cqe_info c;

	memcpy(f, frame_vlan_tcp4, 58);
	classify(&c, 58);
	ck_assert_uint_eq(c.l3_hdr_type, MLX5_CQE_L3_HDR_TYPE_IPV4);
	ck_assert_uint_eq(c.l4_hdr_type, CQE_L4_HDR_TYPE_TCP_ACK_NO_DATA);
	ck_assert(c.l2_ok && c.l3_ok && c.l4_ok && !c.ip_frag && !c.ip_ext_opts);
	f[51] = 0x02;	/* SYN only */
	classify(&c, 58);
	ck_assert_uint_eq(c.l4_hdr_type, CQE_L4_HDR_TYPE_TCP_NO_ACK);
	ck_assert(!c.l4_ok);	/* the flags changed under the checksum */

	memcpy(f, frame_qinq_frag6, 90);
	classify(&c, 90);
	ck_assert_uint_eq(c.l3_hdr_type, MLX5_CQE_L3_HDR_TYPE_IPV6);
	ck_assert_uint_eq(c.l4_hdr_type, CQE_L4_HDR_TYPE_UDP);
	ck_assert(c.ip_frag && c.ip_ext_opts && c.l3_ok && !c.l4_ok);
	f[73] = 0x09;	/* a later fragment */
	classify(&c, 90);
	ck_assert_uint_eq(c.l4_hdr_type, CQE_L4_HDR_TYPE_NONE);
	ck_assert(c.ip_frag);

	memcpy(f, frame_vlan_tcp4, 58);
	f[21] = 0x29;	/* a total length past the frame: truncated */
	classify(&c, 58);
	ck_assert_uint_eq(c.l3_hdr_type, MLX5_CQE_L3_HDR_TYPE_IPV4);
	ck_assert(c.l2_ok && !c.l4_ok);
	memcpy(f, frame_vlan_tcp4, 58);
	f[18] = 0x44;	/* IHL 4: malformed IPv4 */
	classify(&c, 58);
	ck_assert_uint_eq(c.l3_hdr_type, MLX5_CQE_L3_HDR_TYPE_NONE);
	ck_assert_uint_eq(c.l4_hdr_type, CQE_L4_HDR_TYPE_NONE);
	ck_assert(c.l2_ok && !c.l3_ok && !c.l4_ok);
}
END_TEST

START_TEST(cqe_tcp_with_payload)
{
	static uint8_t g[62];
	struct emu_eth_cqe_info c;

	/* Four payload bytes behind the TCP header, lengths fixed. */
	memcpy(g, frame_vlan_tcp4, 58);
	g[21] = 0x2c;
	g[58] = 'd';
	memcpy(f, g, 62);
	emu_eth_tx_csum(f, 62, MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM);
	classify(&c, 62);
	ck_assert_uint_eq(c.l4_hdr_type, CQE_L4_HDR_TYPE_TCP_ACK_AND_DATA);
	ck_assert(c.l3_ok && c.l4_ok);
}
END_TEST

START_TEST(cqe_bytes)
{
	struct emu_eth_rss_res r = { .hash = 0x12345678, .matched = true,
		.ip_src = CQE_RSS_IPV4, .ip_dst = CQE_RSS_IPV4,
		.l4_src = CQE_RSS_L4_TCP, .l4_dst = CQE_RSS_L4_TCP };
	struct emu_eth_cqe_info c;
	uint8_t cqe[64];
	struct mlx5_cqe64 *q = (struct mlx5_cqe64 *)cqe;

	memcpy(f, frame_vlan_tcp4, 58);
	classify(&c, 58);
	memset(cqe, 0, sizeof(cqe));
	emu_eth_cqe_write(cqe, &c, &r, true, 0x6064);
	/* kernel device.h: rss_hash_result 12-15, rss_hash_type 16. */
	ck_assert_uint_eq(cqe[12], 0x12);
	ck_assert_uint_eq(cqe[15], 0x78);
	ck_assert_uint_eq(cqe[16], 0x55);	/* TCP TCP IPv4 IPv4 */
	ck_assert_uint_eq(cqe[20], 0x7e);	/* check_sum */
	ck_assert_uint_eq(cqe[21], 0x91);
	/* mlx5dv.h's names for the bytes libmlx5 reads. */
	ck_assert_uint_eq(q->hds_ip_ext, MLX5_CQE_L2_OK | MLX5_CQE_L3_OK | MLX5_CQE_L4_OK);
	ck_assert_uint_eq(q->l4_hdr_type_etc, 0x39);	/* ACK_NO_DATA, IPv4, cv */
	ck_assert_uint_eq(be16toh(q->vlan_info), 0x6064);
	for (int i = 32; i < 64; i++)
		ck_assert_uint_eq(cqe[i], 0);

	memcpy(f, frame_qinq_frag6, 90);
	classify(&c, 90);
	emu_eth_cqe_write(cqe, &c, NULL, false, 0x6064);
	ck_assert_uint_eq(cqe[12] | cqe[15] | cqe[16], 0);
	ck_assert_uint_eq(q->hds_ip_ext, MLX5_CQE_L2_OK | MLX5_CQE_L3_OK);
	/* ip_frag, UDP, IPv6, IP options, no cv */
	ck_assert_uint_eq(q->l4_hdr_type_etc, 0x80 | 0x20 | 0x04 | 0x02);
	ck_assert_uint_eq(q->vlan_info, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("eth_csum");
	TCase *tc = tcase_create("csum");
	TCase *tq = tcase_create("cqe");

	tcase_add_test(tc, sum_of_a_known_header);
	tcase_add_test(tc, rx_good_and_damaged);
	tcase_add_test(tc, rx_udp_zero_and_fragments);
	tcase_add_test(tc, tx_offload_writes_scapys_checksums);
	suite_add_tcase(s, tc);
	tcase_add_test(tq, cqe_header_types);
	tcase_add_test(tq, cqe_tcp_with_payload);
	tcase_add_test(tq, cqe_bytes);
	suite_add_tcase(s, tq);
	return ut_run(s) ? 1 : 0;
}
