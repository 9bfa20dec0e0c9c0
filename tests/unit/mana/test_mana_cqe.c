/* SPDX-License-Identifier: MIT */
/*
 * emu/mana's send and receive formats (mana_tx.c, mana_rx.c) against bytes
 * at literal offsets: the TX client OOB (short, long, with the garbage DPDK
 * leaves in fields whose flag is clear), TX completions, RX completions
 * for one and for coalesced packets, and the checksum bits of real frames.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "emu/mana/mana.h"

#include "mana_bytes.h"
#include "ut_run.h"

static uint8_t oob[24];
static struct mana_tx_req req;

START_TEST(tx_short_oob)
{
	/* dw0: fmt 0, ipv4, ip csum, tcp csum, suppress, vcq 0x123456 */
	put32le(oob, 0u | 1u << 2 | 1u << 4 | 1u << 5 | 1u << 7 | 0x123456u << 8);
	/* dw1: trans_off 34, vsq_frame 0x2abc, short_vp_offset 5 */
	put32le(oob + 4, 34u | 0x2abcu << 10 | 5u << 24);
	ck_assert_int_eq(mana_tx_oob_decode(oob, 8, 0, &req), 0);
	ck_assert(!req.long_fmt);
	ck_assert(req.outer_ipv4 && !req.outer_ipv6);
	ck_assert(req.csum_ip && req.csum_tcp && !req.csum_udp);
	ck_assert(req.suppress_cqe);
	ck_assert_uint_eq(req.vcq_num, 0x123456);
	ck_assert_uint_eq(req.trans_off, 34);
	ck_assert_uint_eq(req.vsq_frame, 0x2abc);
	ck_assert_uint_eq(req.vp_offset, 5);
	ck_assert(!req.lso && !req.vlan_insert);

	/* LSO: the MSS travels in the WQE header's client_data_unit */
	ck_assert_int_eq(mana_tx_oob_decode(oob, 8, 1448, &req), 0);
	ck_assert(req.lso);
	ck_assert_uint_eq(req.mss, 1448);
}
END_TEST

START_TEST(tx_garbage_is_dont_care)
{
	/* UDP checksum only: trans_off holds stack garbage */
	put32le(oob, 1u << 2 | 1u << 6 | 9u << 8);
	put32le(oob + 4, 0x3ffu | 3u << 24);
	ck_assert_int_eq(mana_tx_oob_decode(oob, 8, 0x3fff, &req), 0);
	ck_assert(req.csum_udp);
	ck_assert_uint_eq(req.trans_off, 0);
	ck_assert(!req.lso);	/* client_data_unit means MSS only with TCP */
	ck_assert_uint_eq(req.mss, 0);

	/* long format without VLAN: everything in dw2..5 is garbage */
	put32le(oob, 1u | 3u << 8);
	put32le(oob + 4, 7u << 24);
	memset(oob + 8, 0xf7, 16);	/* inject bit (bit 3) clear */
	ck_assert_int_eq(mana_tx_oob_decode(oob, 24, 0, &req), 0);
	ck_assert(req.long_fmt);
	ck_assert(!req.vlan_insert);
	ck_assert_uint_eq(req.vp_offset, 7);
}
END_TEST

START_TEST(tx_long_oob_vlan_and_vp_offset)
{
	put32le(oob, 1u | 2u << 8);
	put32le(oob + 4, 0);		/* short_vp_offset 0 */
	/* dw2: inject_vlan_pri_tag, pcp 5, dei, vlan_id 0x123 */
	put32le(oob + 8, 1u << 3 | 5u << 16 | 1u << 19 | 0x123u << 20);
	/* dw3: long_vp_offset 300 (the kernel's case over 255) */
	put32le(oob + 12, 300u << 16);
	ck_assert_int_eq(mana_tx_oob_decode(oob, 24, 0, &req), 0);
	ck_assert(req.vlan_insert);
	ck_assert_uint_eq(req.vlan_tci, 5u << 13 | 1u << 12 | 0x123);
	ck_assert_uint_eq(req.vp_offset, 300);

	/* a set short offset wins over whatever the long field holds */
	put32le(oob + 4, 9u << 24);
	ck_assert_int_eq(mana_tx_oob_decode(oob, 24, 0, &req), 0);
	ck_assert_uint_eq(req.vp_offset, 9);

	/* format and size must agree */
	ck_assert_int_eq(mana_tx_oob_decode(oob, 8, 0, &req), -EINVAL);
	put32le(oob, 0);
	ck_assert_int_eq(mana_tx_oob_decode(oob, 24, 0, &req), -EINVAL);
	put32le(oob, 2);
	ck_assert_int_eq(mana_tx_oob_decode(oob, 8, 0, &req), -EINVAL);
	ck_assert_int_eq(mana_tx_oob_decode(oob, 16, 0, &req), -EINVAL);
}
END_TEST

START_TEST(tx_cqe)
{
	uint8_t c[MANA_CQE_CLIENT];

	memset(c, 0xee, sizeof(c));
	ck_assert_int_eq(mana_tx_cqe_build(c, MANA_CQE_TX_OKAY, 0, 0x1c0), 0);
	ck_assert_uint_eq(get32le(c), 32u | 1u << 6);
	ck_assert_uint_eq(get32le(c + 4), 0);
	ck_assert_uint_eq(get32le(c + 8), 0x1c0);	/* reads as the byte offset */
	for (int i = 12; i < MANA_CQE_CLIENT; i++)
		ck_assert_uint_eq(c[i], 0);
	ck_assert_int_eq(mana_tx_cqe_build(c, MANA_CQE_TX_INVALID_OOB, 0xabcdef, 0), 0);
	ck_assert_uint_eq(get32le(c), 35u | 1u << 6 | 0xabcdefu << 8);
	ck_assert_int_eq(mana_tx_cqe_build(c, MANA_CQE_RX_OKAY, 0, 0), -EINVAL);
	ck_assert_int_eq(mana_tx_cqe_build(c, 42, 0, 0), -EINVAL);
}
END_TEST

START_TEST(rx_cqe_one_packet)
{
	uint8_t c[MANA_CQE_CLIENT];
	struct mana_rx_cqe rx = {
		.type = MANA_CQE_RX_OKAY, .npkts = 1,
		.pkt = { { 1514, 0xdeadbeef } },
		.hashtype = MANA_HASH_L4, .vlan_present = true, .vlan_id = 0xabc,
		.ip_ok = true, .tcp_ok = true, .wqe_off = 0x7e0,
	};

	memset(c, 0xee, sizeof(c));
	ck_assert_int_eq(mana_rx_cqe_build(c, &rx), 0);
	ck_assert_uint_eq(get32le(c), 1u | 1u << 6);
	ck_assert_uint_eq(get32le(c + 4), 0xabcu | 1u << 12 | 0x1b6u << 16 | 1u << 25 | 1u << 27);
	ck_assert_uint_eq(get32le(c + 8), 1514);
	ck_assert_uint_eq(get32le(c + 12), 0);
	ck_assert_uint_eq(get32le(c + 16), 0xdeadbeef);
	for (int i = 20; i < 56; i++)
		ck_assert_uint_eq(c[i], 0);
	ck_assert_uint_eq(get32le(c + 56), 0x7e0);

	rx.type = MANA_CQE_RX_TRUNCATED;
	rx.vlan_present = false;
	rx.hashtype = MANA_HASH_L3;
	rx.tcp_ok = false;
	rx.udp_fail = true;
	ck_assert_int_eq(mana_rx_cqe_build(c, &rx), 0);
	ck_assert_uint_eq(get32le(c), 4u | 1u << 6);
	ck_assert_uint_eq(get32le(c + 4), 0x049u << 16 | 1u << 25 | 1u << 30);

	rx.npkts = 2;
	ck_assert_int_eq(mana_rx_cqe_build(c, &rx), -EINVAL);
	rx.npkts = 0;
	ck_assert_int_eq(mana_rx_cqe_build(c, &rx), -EINVAL);
	rx.npkts = 1;
	rx.type = MANA_CQE_TX_OKAY;
	ck_assert_int_eq(mana_rx_cqe_build(c, &rx), -EINVAL);
}
END_TEST

START_TEST(rx_cqe_coalesced)
{
	uint8_t c[MANA_CQE_CLIENT];
	struct mana_rx_cqe rx = {
		.type = MANA_CQE_RX_COALESCED_4, .npkts = 3,
		.pkt = { { 60, 0x11111111 }, { 1514, 0x22222222 }, { 9000, 0x33333333 } },
		.hashtype = MANA_HASH_L4, .wqe_off = 0x20,
	};
	static const uint32_t ppi_off[4] = { 8, 20, 32, 44 };

	memset(c, 0xee, sizeof(c));
	ck_assert_int_eq(mana_rx_cqe_build(c, &rx), 0);
	ck_assert_uint_eq(get32le(c), 2u | 1u << 6);
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(get32le(c + ppi_off[i]), rx.pkt[i].len);
		ck_assert_uint_eq(get32le(c + ppi_off[i] + 4), 0);
		ck_assert_uint_eq(get32le(c + ppi_off[i] + 8), rx.pkt[i].hash);
	}
	/* the unused info is zero, so the consumer's walk stops there */
	for (int i = 44; i < 56; i++)
		ck_assert_uint_eq(c[i], 0);
	ck_assert_uint_eq(get32le(c + 56), 0x20);

	rx.npkts = 4;
	rx.pkt[3].len = 64;
	ck_assert_int_eq(mana_rx_cqe_build(c, &rx), 0);
	ck_assert_uint_eq(get32le(c + 44), 64);
	rx.npkts = 5;
	ck_assert_int_eq(mana_rx_cqe_build(c, &rx), -EINVAL);
	rx.npkts = 2;
	rx.pkt[1].len = 0;		/* would end the walk early */
	ck_assert_int_eq(mana_rx_cqe_build(c, &rx), -EINVAL);
}
END_TEST

/* Ethernet + IPv4 (valid header checksum) + UDP with a zero checksum. */
static size_t udp4_frame(uint8_t *f)
{
	static const uint8_t hdr[] = {
		0, 1, 2, 3, 4, 5, 0, 6, 7, 8, 9, 10, 0x08, 0x00,
		0x45, 0, 0, 28, 0, 0, 0x40, 0, 64, 17, 0, 0,
		10, 0, 0, 1, 10, 0, 0, 2,
		0x30, 0x39, 0x00, 0x50, 0, 8, 0, 0,
	};
	uint32_t sum = 0;

	memcpy(f, hdr, sizeof(hdr));
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)f[14 + i] << 8 | f[15 + i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	f[24] = (uint8_t)(~sum >> 8);
	f[25] = (uint8_t)~sum;
	return sizeof(hdr);
}

START_TEST(rx_csum_status_from_frames)
{
	uint8_t f[64];
	size_t len = udp4_frame(f);
	struct emu_eth_pkt p;
	struct mana_rx_cqe rx = { 0 };

	ck_assert_int_eq(emu_eth_parse(f, len, &p), 0);
	mana_rx_csum_status(f, &p, &rx);
	/* IPv4 UDP without a checksum counts as good */
	ck_assert(rx.ip_ok && !rx.ip_fail && rx.udp_ok && !rx.udp_fail);
	ck_assert(!rx.tcp_ok && !rx.tcp_fail);

	f[24] ^= 1;			/* break the IP header checksum */
	ck_assert_int_eq(emu_eth_parse(f, len, &p), 0);
	mana_rx_csum_status(f, &p, &rx);
	ck_assert(!rx.ip_ok && rx.ip_fail);

	f[12] = 0x08;			/* ARP: no bits at all */
	f[13] = 0x06;
	ck_assert_int_eq(emu_eth_parse(f, len, &p), 0);
	rx.ip_ok = rx.udp_ok = true;
	mana_rx_csum_status(f, &p, &rx);
	ck_assert(!rx.ip_ok && !rx.ip_fail && !rx.udp_ok && !rx.udp_fail);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_cqe");
	TCase *tc = tcase_create("cqe");

	tcase_add_test(tc, tx_short_oob);
	tcase_add_test(tc, tx_garbage_is_dont_care);
	tcase_add_test(tc, tx_long_oob_vlan_and_vp_offset);
	tcase_add_test(tc, tx_cqe);
	tcase_add_test(tc, rx_cqe_one_packet);
	tcase_add_test(tc, rx_cqe_coalesced);
	tcase_add_test(tc, rx_csum_status_from_frames);
	suite_add_tcase(s, tc);
	return ut_run(s) ? 1 : 0;
}
