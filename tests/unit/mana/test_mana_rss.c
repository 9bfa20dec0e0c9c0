/* SPDX-License-Identifier: MIT */
/*
 * emu/mana's RSS (mana_rss.c): Microsoft's "Verifying the RSS Hash
 * Calculation" vectors (the 40-byte key 6d5a56da...; IPv4, IPv4/TCP, IPv6,
 * IPv6/TCP) through frames built here and the MANA tuple path, the NDIS
 * hash types reported, the 64-entry table replicated from n queues, and
 * frames that are not IP or are fragments.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "emu/mana/mana.h"

#include "ms_rss_vectors.h"
#include "ut_run.h"

static struct mana_rss rss;
static struct emu_eth_pkt p;
static struct mana_rss_res res;
static uint8_t f[128];

static void setup(void)
{
	static const uint32_t q[3] = { 10, 11, 12 };

	ck_assert_int_eq(mana_rss_init(&rss, ms_key, q, 3, 99), 0);
}

static void classify(size_t len)
{
	ck_assert_int_eq(emu_eth_parse(f, len, &p), 0);
	mana_rss_classify(&rss, f, &p, &res);
}

/* Ethernet + IPv4 (20 B) + TCP (20 B), or protocol proto without ports. */
static size_t ipv4_frame(const uint8_t src[4], const uint8_t dst[4], uint8_t proto,
			 uint16_t sport, uint16_t dport)
{
	memset(f, 0, sizeof(f));
	f[12] = 0x08;
	f[14] = 0x45;
	f[17] = 40;			/* total length */
	f[22] = 64;
	f[23] = proto;
	memcpy(f + 26, src, 4);
	memcpy(f + 30, dst, 4);
	f[34] = (uint8_t)(sport >> 8);
	f[35] = (uint8_t)sport;
	f[36] = (uint8_t)(dport >> 8);
	f[37] = (uint8_t)dport;
	f[46] = 0x50;			/* TCP data offset 5 */
	return 54;
}

static size_t ipv6_frame(const uint8_t src[16], const uint8_t dst[16], uint8_t nh,
			 uint16_t sport, uint16_t dport)
{
	memset(f, 0, sizeof(f));
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[19] = 20;			/* payload length */
	f[20] = nh;
	f[21] = 64;
	memcpy(f + 22, src, 16);
	memcpy(f + 38, dst, 16);
	f[54] = (uint8_t)(sport >> 8);
	f[55] = (uint8_t)sport;
	f[56] = (uint8_t)(dport >> 8);
	f[57] = (uint8_t)dport;
	f[66] = 0x50;
	return 74;
}

START_TEST(microsoft_ipv4)
{
	const struct v4_row *v = &v4_rows[_i];

	classify(ipv4_frame(v->src, v->dst, 6, v->sport, v->dport));
	ck_assert_uint_eq(res.hash, v->ip_tcp);
	ck_assert_uint_eq(res.hashtype, 0x1b6);
	ck_assert_uint_eq(res.queue, 10 + (v->ip_tcp & 63) % 3);

	/* no ports (ICMP): the addresses alone */
	classify(ipv4_frame(v->src, v->dst, 1, 0, 0));
	ck_assert_uint_eq(res.hash, v->ip);
	ck_assert_uint_eq(res.hashtype, 0x049);
	ck_assert_uint_eq(res.queue, 10 + (v->ip & 63) % 3);
}
END_TEST

START_TEST(microsoft_ipv6)
{
	const struct v6_row *v = &v6_rows[_i];

	classify(ipv6_frame(v->src, v->dst, 6, v->sport, v->dport));
	ck_assert_uint_eq(res.hash, v->ip_l4);
	ck_assert_uint_eq(res.hashtype, 0x1b6);
	classify(ipv6_frame(v->src, v->dst, 59, 0, 0));	/* no next header */
	ck_assert_uint_eq(res.hash, v->ip);
	ck_assert_uint_eq(res.hashtype, 0x049);
}
END_TEST

START_TEST(non_ip_and_fragments)
{
	const struct v4_row *v = &v4_rows[0];
	uint8_t in[EMU_ETH_RSS_INPUT_MAX];
	uint16_t ht;

	ipv4_frame(v->src, v->dst, 6, v->sport, v->dport);
	f[12] = 0x08;
	f[13] = 0x06;			/* ARP */
	classify(54);
	ck_assert_uint_eq(res.queue, 99);
	ck_assert_uint_eq(res.hash, 0);
	ck_assert_uint_eq(res.hashtype, 0);
	ck_assert_uint_eq(mana_rss_tuple(f, &p, in, &ht), 0);

	/* a first fragment (MF) hashes on the addresses only */
	ipv4_frame(v->src, v->dst, 6, v->sport, v->dport);
	f[20] = 0x20;
	classify(54);
	ck_assert_uint_eq(res.hash, v->ip);
	ck_assert_uint_eq(res.hashtype, 0x049);

	/* the tuple's order: source address, destination, ports */
	ipv4_frame(v->src, v->dst, 6, v->sport, v->dport);
	ck_assert_int_eq(emu_eth_parse(f, 54, &p), 0);
	ck_assert_uint_eq(mana_rss_tuple(f, &p, in, &ht), 12);
	ck_assert_mem_eq(in, v->src, 4);
	ck_assert_mem_eq(in + 4, v->dst, 4);
	ck_assert_uint_eq(in[8] << 8 | in[9], v->sport);
	ck_assert_uint_eq(in[10] << 8 | in[11], v->dport);

	/* RSS off: the hash is still reported, the queue is the default */
	rss.enable = false;
	classify(54);
	ck_assert_uint_eq(res.hash, v->ip_tcp);
	ck_assert_uint_eq(res.queue, 99);
}
END_TEST

START_TEST(table_replication)
{
	uint32_t q[64];

	for (int i = 0; i < 64; i++)
		q[i] = 100 + (uint32_t)i;
	ck_assert_int_eq(mana_rss_init(&rss, ms_key, q, 64, 0), 0);
	for (int i = 0; i < 64; i++)
		ck_assert_uint_eq(rss.table[i], 100 + (uint32_t)i);
	ck_assert_int_eq(mana_rss_init(&rss, ms_key, q, 1, 0), 0);
	for (int i = 0; i < 64; i++)
		ck_assert_uint_eq(rss.table[i], 100);
	ck_assert_int_eq(mana_rss_init(&rss, ms_key, q, 0, 0), -EINVAL);
	ck_assert_int_eq(mana_rss_init(&rss, ms_key, q, 65, 0), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_rss");
	TCase *tc = tcase_create("rss");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_loop_test(tc, microsoft_ipv4, 0, 5);
	tcase_add_loop_test(tc, microsoft_ipv6, 0, 3);
	tcase_add_test(tc, non_ip_and_fragments);
	tcase_add_test(tc, table_replication);
	suite_add_tcase(s, tc);
	return ut_run(s) ? 1 : 0;
}
