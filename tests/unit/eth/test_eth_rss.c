/* SPDX-License-Identifier: MIT */
/*
 * emu/eth's RSS (eth_rss.c): Microsoft's "Verifying the RSS Hash
 * Calculation" vectors, every row, through frames (so the input order
 * source address, destination address, source port, destination port is
 * checked too); mlx5's symmetric OR-XOR input; INVERTED_XOR8; the CQE's
 * hash type; frames the selector does not describe.
 */
#include <check.h>
#include <string.h>

#include "emu/eth/eth.h"
#include "prm/prm_cmd.h"

#include "eth_frames.h"
#include "ms_rss_vectors.h"
#include "ut_run.h"

static struct emu_eth_toeplitz tz;
static struct emu_eth_pkt p;
static struct emu_eth_rss_res r;
static uint8_t f[128];

enum {
	SEL_IP = MLX5_HASH_FIELD_SEL_SRC_IP | MLX5_HASH_FIELD_SEL_DST_IP,
	SEL_ALL = SEL_IP | MLX5_HASH_FIELD_SEL_L4_SPORT |
		  MLX5_HASH_FIELD_SEL_L4_DPORT,
};

static void setup(void)
{
	emu_eth_toeplitz_init(&tz, ms_key);
}

static uint32_t hash(size_t len, uint8_t l3, uint8_t l4, uint32_t fields,
		     bool symmetric)
{
	struct emu_eth_rss_cfg cfg = {
		.fn = MLX5_RX_HASH_FN_TOEPLITZ, .symmetric = symmetric,
		.l3_prot_type = l3, .l4_prot_type = l4, .fields = fields,
		.tz = &tz,
	};

	ck_assert_int_eq(emu_eth_parse(f, len, &p), 0);
	emu_eth_rss_hash(f, &p, &cfg, &r);
	return r.hash;
}

static void put_ports(uint8_t *l4, uint16_t sport, uint16_t dport)
{
	l4[0] = (uint8_t)(sport >> 8);
	l4[1] = (uint8_t)sport;
	l4[2] = (uint8_t)(dport >> 8);
	l4[3] = (uint8_t)dport;
}

START_TEST(microsoft_ipv4)
{
	const struct v4_row *v = &v4_rows[_i];

	memcpy(f, frame_vlan_tcp4, 58);
	memcpy(f + 30, v->src, 4);
	memcpy(f + 34, v->dst, 4);
	put_ports(f + 38, v->sport, v->dport);
	ck_assert_uint_eq(hash(58, MLX5_L3_PROT_TYPE_IPV4, 0, SEL_IP, false),
			  v->ip);
	ck_assert_uint_eq(hash(58, MLX5_L3_PROT_TYPE_IPV4,
			       MLX5_L4_PROT_TYPE_TCP, SEL_ALL, false),
			  v->ip_tcp);
	ck_assert(r.matched);
	ck_assert_uint_eq(r.ip_src, CQE_RSS_IPV4);
	ck_assert_uint_eq(r.ip_dst, CQE_RSS_IPV4);
	ck_assert_uint_eq(r.l4_src, CQE_RSS_L4_TCP);
	ck_assert_uint_eq(r.l4_dst, CQE_RSS_L4_TCP);
}
END_TEST

START_TEST(microsoft_ipv6)
{
	const struct v6_row v = v6_rows[_i];

	/* The IPv6 frame, its fragment header made atomic (a whole UDP). */
	memcpy(f, frame_qinq_frag6, 90);
	f[73] = 0;
	memcpy(f + 30, v.src, 16);
	memcpy(f + 46, v.dst, 16);
	put_ports(f + 78, v.sport, v.dport);
	ck_assert_uint_eq(hash(90, MLX5_L3_PROT_TYPE_IPV6, 0, SEL_IP, false),
			  v.ip);
	ck_assert_uint_eq(r.ip_src, CQE_RSS_IPV6);
	ck_assert_uint_eq(r.l4_src, CQE_RSS_L4_NONE);
	ck_assert_uint_eq(hash(90, MLX5_L3_PROT_TYPE_IPV6,
			       MLX5_L4_PROT_TYPE_UDP, SEL_ALL, false),
			  v.ip_l4);
	ck_assert_uint_eq(r.l4_dst, CQE_RSS_L4_UDP);
}
END_TEST

START_TEST(symmetric_or_xor)
{
	const struct v4_row *v = &v4_rows[0];
	uint8_t in[12];
	uint32_t fwd;
	int i;

	memcpy(f, frame_vlan_tcp4, 58);
	memcpy(f + 30, v->src, 4);
	memcpy(f + 34, v->dst, 4);
	put_ports(f + 38, v->sport, v->dport);
	fwd = hash(58, MLX5_L3_PROT_TYPE_IPV4, MLX5_L4_PROT_TYPE_TCP, SEL_ALL,
		   true);
	/* (src | dst, src ^ dst, sport | dport, sport ^ dport) */
	for (i = 0; i < 4; i++) {
		in[i] = v->src[i] | v->dst[i];
		in[4 + i] = v->src[i] ^ v->dst[i];
	}
	put_ports(in + 8, v->sport | v->dport, v->sport ^ v->dport);
	ck_assert_uint_eq(fwd, emu_eth_toeplitz(&tz, in, 12));
	ck_assert_uint_ne(fwd, v->ip_tcp);
	/* The reverse direction lands on the same hash. */
	memcpy(f + 30, v->dst, 4);
	memcpy(f + 34, v->src, 4);
	put_ports(f + 38, v->dport, v->sport);
	ck_assert_uint_eq(hash(58, MLX5_L3_PROT_TYPE_IPV4,
			       MLX5_L4_PROT_TYPE_TCP, SEL_ALL, true), fwd);
	/* Without symmetric it differs. */
	ck_assert_uint_ne(hash(58, MLX5_L3_PROT_TYPE_IPV4,
			       MLX5_L4_PROT_TYPE_TCP, SEL_ALL, false), v->ip_tcp);
	/* One half of a pair alone: symmetric changes nothing. */
	ck_assert_uint_eq(hash(58, MLX5_L3_PROT_TYPE_IPV4, 0,
			       MLX5_HASH_FIELD_SEL_SRC_IP, true),
			  emu_eth_toeplitz(&tz, v->dst, 4));
	ck_assert_uint_eq(r.ip_dst, CQE_RSS_IP_NONE);
	ck_assert_uint_eq(r.ip_src, CQE_RSS_IPV4);
}
END_TEST

START_TEST(inverted_xor8)
{
	struct emu_eth_rss_cfg cfg = {
		.fn = MLX5_RX_HASH_FN_INVERTED_XOR8,
		.l3_prot_type = MLX5_L3_PROT_TYPE_IPV4, .fields = SEL_IP,
	};

	memcpy(f, frame_vlan_tcp4, 58);
	ck_assert_int_eq(emu_eth_parse(f, 58, &p), 0);
	emu_eth_rss_hash(f, &p, &cfg, &r);
	/* c0 a8 00 01 c0 a8 00 02: XOR 0x03, inverted 0xfc */
	ck_assert_uint_eq(r.hash, 0xfc);
	cfg.fn = MLX5_RX_HASH_FN_NONE;
	emu_eth_rss_hash(f, &p, &cfg, &r);
	ck_assert_uint_eq(r.hash, 0);
	ck_assert(r.matched);
}
END_TEST

START_TEST(selector_mismatch_hashes_nothing)
{
	memcpy(f, frame_vlan_tcp4, 58);
	ck_assert_uint_eq(hash(58, MLX5_L3_PROT_TYPE_IPV6, 0, SEL_IP, false), 0);
	ck_assert(!r.matched);
	ck_assert_uint_eq(r.ip_src | r.ip_dst | r.l4_src | r.l4_dst, 0);
	ck_assert_uint_eq(hash(58, MLX5_L3_PROT_TYPE_IPV4,
			       MLX5_L4_PROT_TYPE_UDP, SEL_ALL, false), 0);
	ck_assert(!r.matched);
	/* A fragment has no ports to hash, but its addresses. */
	f[24] = 0x20;
	ck_assert_uint_eq(hash(58, MLX5_L3_PROT_TYPE_IPV4,
			       MLX5_L4_PROT_TYPE_TCP, SEL_ALL, false), 0);
	ck_assert(!r.matched);
	hash(58, MLX5_L3_PROT_TYPE_IPV4, 0, SEL_IP, false);
	ck_assert(r.matched);
	/* Ports and SPI together describe no frame. */
	f[24] = 0x40;
	hash(58, MLX5_L3_PROT_TYPE_IPV4, MLX5_L4_PROT_TYPE_TCP,
	     SEL_ALL | MLX5_HASH_FIELD_SEL_IPSEC_SPI, false);
	ck_assert(!r.matched);
	/* The inner selector on a frame without a tunnel. */
	{
		struct emu_eth_rss_cfg cfg = {
			.fn = MLX5_RX_HASH_FN_TOEPLITZ, .inner = true,
			.fields = SEL_IP, .tz = &tz,
		};

		emu_eth_rss_hash(f, &p, &cfg, &r);
		ck_assert(!r.matched);
	}
}
END_TEST

START_TEST(ipsec_spi_and_inner)
{
	struct emu_eth_rss_cfg cfg = {
		.fn = MLX5_RX_HASH_FN_TOEPLITZ, .inner = true,
		.fields = SEL_ALL, .l4_prot_type = MLX5_L4_PROT_TYPE_UDP,
		.tz = &tz,
	};
	uint8_t in[12] = { 0xac, 0x10, 0, 1, 0xac, 0x10, 0, 2, 0, 7, 0, 9 };

	/* ESP: protocol 50, the SPI is the first four bytes after IP. */
	memcpy(f, frame_vlan_tcp4, 58);
	f[27] = 50;
	ck_assert_uint_eq(hash(58, MLX5_L3_PROT_TYPE_IPV4, 0,
			       SEL_IP | MLX5_HASH_FIELD_SEL_IPSEC_SPI, false),
			  emu_eth_toeplitz(&tz, f + 30, 12));
	ck_assert_uint_eq(r.l4_src, CQE_RSS_L4_IPSEC);
	ck_assert_uint_eq(r.l4_dst, CQE_RSS_L4_IPSEC);

	memcpy(f, frame_vxlan, 94);
	ck_assert_int_eq(emu_eth_parse(f, 94, &p), 0);
	emu_eth_rss_hash(f, &p, &cfg, &r);
	ck_assert(r.matched);
	ck_assert_uint_eq(r.hash, emu_eth_toeplitz(&tz, in, 12));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("eth_rss");
	TCase *tc = tcase_create("rss");

	tcase_add_unchecked_fixture(tc, setup, NULL);
	tcase_add_loop_test(tc, microsoft_ipv4, 0, 5);
	tcase_add_loop_test(tc, microsoft_ipv6, 0, 3);
	tcase_add_test(tc, symmetric_or_xor);
	tcase_add_test(tc, inverted_xor8);
	tcase_add_test(tc, selector_mismatch_hashes_nothing);
	tcase_add_test(tc, ipsec_spi_and_inner);
	suite_add_tcase(s, tc);
	return ut_run(s) ? 1 : 0;
}
