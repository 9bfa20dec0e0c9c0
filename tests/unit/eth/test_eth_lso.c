/* SPDX-License-Identifier: MIT */
/*
 * emu/eth's TCP and UDP segmentation (eth_lso.c) and VLAN insertion and stripping
 * (eth_vlan.c): each segment's lengths, IPv4 id, sequence number and flags
 * at literal offsets; the Ethernet segment's insert bytes; a tag removed
 * and put back byte for byte.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "emu/eth/eth.h"

#include "eth_frames.h"
#include "ut_run.h"

enum { HDR = 58, PAY = 2500, MSS = 1000 };

static uint8_t hdr[HDR], payload[PAY], frame[HDR + MSS];

static void setup(void)
{
	memcpy(hdr, frame_vlan_tcp4, HDR);
	hdr[51] = 0x99;	/* CWR ACK PSH FIN */
	hdr[20] = hdr[21] = 0;	/* a template's total length means nothing */
	for (int i = 0; i < PAY; i++)
		payload[i] = (uint8_t)(i * 7 + 3);
}

static uint16_t g16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

START_TEST(segments)
{
	static const uint8_t flags[3] = { 0x90, 0x10, 0x19 };
	struct emu_eth_lso s;
	struct emu_eth_pkt p;
	struct emu_eth_csum_ok ok;
	uint32_t k, off, len, total = 0;

	ck_assert_int_eq(emu_eth_lso_init(&s, hdr, HDR, PAY, MSS), 0);
	ck_assert_uint_eq(s.nseg, 3);
	for (k = 0; k < 3; k++) {
		len = emu_eth_lso_slice(&s, k, &off);
		ck_assert_uint_eq(off, k * MSS);
		ck_assert_uint_eq(len, k < 2 ? 1000 : 500);
		memcpy(frame + HDR, payload + off, len);
		ck_assert_uint_eq(emu_eth_lso_seg(&s, k, frame), HDR + len);
		ck_assert_uint_eq(g16(frame + 20), 40 + len);	/* total length */
		ck_assert_uint_eq(g16(frame + 22), 0x1234 + k);	/* id */
		ck_assert_uint_eq(g16(frame + 42), 0);		/* seq high */
		ck_assert_uint_eq(g16(frame + 44), 1 + k * MSS);	/* seq low */
		ck_assert_uint_eq(frame[51], flags[k]);
		ck_assert_mem_eq(frame, frame_vlan_tcp4, 20);	/* L2 untouched */
		ck_assert_int_eq(emu_eth_parse(frame, HDR + len, &p), 0);
		emu_eth_csum_verify(frame, &p, &ok);
		ck_assert(ok.l3_ok && ok.l4_ok);
		total += len;
	}
	ck_assert_uint_eq(total, PAY);
	ck_assert_uint_eq(emu_eth_lso_slice(&s, 3, &off), 0);
}
END_TEST

START_TEST(one_segment_keeps_all_flags)
{
	struct emu_eth_lso s;
	uint32_t off;

	ck_assert_int_eq(emu_eth_lso_init(&s, hdr, HDR, 10, MSS), 0);
	ck_assert_uint_eq(s.nseg, 1);
	ck_assert_uint_eq(emu_eth_lso_slice(&s, 0, &off), 10);
	memcpy(frame + HDR, payload, 10);
	emu_eth_lso_seg(&s, 0, frame);
	ck_assert_uint_eq(frame[51], 0x99);
	ck_assert_int_eq(emu_eth_lso_init(&s, hdr, HDR, 0, MSS), 0);
	ck_assert_uint_eq(s.nseg, 1);
}
END_TEST

/*
 * UDP, as mlx5e posts it: the template's UDP length already says one
 * segment (mss + 8); the device leaves it and checksums each segment.
 */
START_TEST(udp_segments)
{
	uint8_t t[42], out[42 + 40];
	struct emu_eth_lso s;
	struct emu_eth_pkt p;
	struct emu_eth_csum_ok ok;
	uint32_t k, off, len;

	memcpy(t, frame_vxlan, 42);
	t[38] = 0;
	t[39] = 48;
	ck_assert_int_eq(emu_eth_lso_init(&s, t, 42, 80, 40), 0);
	ck_assert_uint_eq(s.nseg, 2);
	for (k = 0; k < 2; k++) {
		len = emu_eth_lso_slice(&s, k, &off);
		memcpy(out + 42, payload + off, len);
		ck_assert_uint_eq(emu_eth_lso_seg(&s, k, out), 82);
		ck_assert_uint_eq(g16(out + 16), 68);		/* IPv4 total length */
		ck_assert_uint_eq(g16(out + 18), 7 + k);	/* id */
		ck_assert_uint_eq(g16(out + 38), 48);		/* UDP length kept */
		ck_assert_mem_eq(out + 34, t + 34, 4);		/* ports */
		ck_assert_int_eq(emu_eth_parse(out, 82, &p), 0);
		emu_eth_csum_verify(out, &p, &ok);
		ck_assert(ok.l3_ok && ok.l4_ok);
	}
	/* A shorter last segment keeps the template's length field too. */
	ck_assert_int_eq(emu_eth_lso_init(&s, t, 42, 90, 40), 0);
	ck_assert_uint_eq(s.nseg, 3);
	ck_assert_uint_eq(emu_eth_lso_slice(&s, 2, &off), 10);
	memcpy(out + 42, payload + off, 10);
	ck_assert_uint_eq(emu_eth_lso_seg(&s, 2, out), 52);
	ck_assert_uint_eq(g16(out + 16), 38);
	ck_assert_uint_eq(g16(out + 38), 48);
}
END_TEST

START_TEST(bad_templates)
{
	struct emu_eth_lso s;

	ck_assert_int_eq(emu_eth_lso_init(&s, hdr, HDR, PAY, 0), -EINVAL);
	/* Headers must end where TCP's does. */
	ck_assert_int_eq(emu_eth_lso_init(&s, hdr, HDR - 1, PAY, MSS), -EINVAL);
	/* UDP headers must end at hdr_len too. */
	ck_assert_int_eq(emu_eth_lso_init(&s, frame_vxlan, 41, PAY, MSS), -EINVAL);
	/* No Ethernet header, no IP. */
	ck_assert_int_eq(emu_eth_lso_init(&s, hdr, 10, PAY, MSS), -EINVAL);
	hdr[16] = 0x88;
	ck_assert_int_eq(emu_eth_lso_init(&s, hdr, HDR, PAY, MSS), -EINVAL);
	hdr[16] = 0x08;
	/* An IP fragment. */
	hdr[24] = 0x20;
	ck_assert_int_eq(emu_eth_lso_init(&s, hdr, HDR, PAY, MSS), -EINVAL);
}
END_TEST

START_TEST(vlan_insert_request)
{
	uint8_t eseg[32] = { 0 };
	uint16_t tpid, tci;

	eseg[12] = 0x80;
	eseg[14] = 0x60;
	eseg[15] = 0x64;
	ck_assert(emu_eth_vlan_insert_req(eseg, &tpid, &tci));
	ck_assert_uint_eq(tpid, 0x8100);
	ck_assert_uint_eq(tci, 0x6064);
	eseg[13] = 0x01;	/* MLX5_ETH_WQE_SVLAN */
	ck_assert(emu_eth_vlan_insert_req(eseg, &tpid, &tci));
	ck_assert_uint_eq(tpid, 0x88a8);
	eseg[12] = 0x00;	/* inline_hdr_sz 18 instead */
	eseg[13] = 18;
	ck_assert(!emu_eth_vlan_insert_req(eseg, &tpid, &tci));
}
END_TEST

START_TEST(vlan_strip_and_insert)
{
	uint8_t b[64], untagged[54];
	size_t len = 58;
	uint16_t tci;

	memcpy(untagged, frame_vlan_tcp4, 12);
	memcpy(untagged + 12, frame_vlan_tcp4 + 16, 42);
	memcpy(b, frame_vlan_tcp4, 58);
	ck_assert(emu_eth_vlan_strip(b, &len, &tci));
	ck_assert_uint_eq(len, 54);
	ck_assert_uint_eq(tci, 0x6064);
	ck_assert_mem_eq(b, untagged, 54);
	/* No tag left to strip. */
	ck_assert(!emu_eth_vlan_strip(b, &len, &tci));
	ck_assert_int_eq(emu_eth_vlan_insert(b, &len, sizeof(b), 0x8100, 0x6064), 0);
	ck_assert_uint_eq(len, 58);
	ck_assert_mem_eq(b, frame_vlan_tcp4, 58);
	ck_assert_int_eq(emu_eth_vlan_insert(b, &len, 60, 0x8100, 1), -ENOSPC);
	ck_assert_uint_eq(len, 58);
	len = 11;
	ck_assert_int_eq(emu_eth_vlan_insert(b, &len, sizeof(b), 0x8100, 1), -EINVAL);

	/* An 802.1ad outer tag is not stripped. */
	memcpy(b, frame_qinq_frag6, 64);
	len = 64;
	ck_assert(!emu_eth_vlan_strip(b, &len, &tci));
	ck_assert_uint_eq(len, 64);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("eth_lso");
	TCase *tc = tcase_create("lso");
	TCase *tv = tcase_create("vlan");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, segments);
	tcase_add_test(tc, one_segment_keeps_all_flags);
	tcase_add_test(tc, udp_segments);
	tcase_add_test(tc, bad_templates);
	suite_add_tcase(s, tc);
	tcase_add_test(tv, vlan_insert_request);
	tcase_add_test(tv, vlan_strip_and_insert);
	suite_add_tcase(s, tv);
	return ut_run(s) ? 1 : 0;
}
