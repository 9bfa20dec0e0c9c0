/* SPDX-License-Identifier: MIT */
/*
 * The text form of a MANA device's trace records (emu/trace/trace_dp.c):
 * a send WQE and the error CQE a fault rule gives it, a receive CQE, each
 * field named as Linux gdma.h/mana.h name it.  The CQE bytes are written
 * here at the offsets of struct mana_cqe_header, mana_tx_comp_oob,
 * mana_rxcomp_oob and gdma_cqe's info dword.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "emu/trace/trace_fmt.h"
#include "ut_run.h"

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void text_is(char *line, const char *want)
{
	ck_assert_ptr_nonnull(line);
	ck_assert_str_eq(line, want);
	free(line);
}

START_TEST(send_wqe_and_error_cqe)
{
	struct emu_trace_sge sge = { 60, 0x1234, 0x7f0000001000ull };
	struct emu_trace_mana_wqe w = {
		.dev = "mana_1", .seq = 7, .wq_id = 2, .offset = 0x40,
		.num_sge = 1, .inline_oob_size = 24, .pkt_fmt = 1,
		.is_outer_ipv4 = true, .comp_iphdr_csum = true,
		.comp_tcp_csum = true, .trans_off = 34, .vcq_num = 9,
		.vp_offset = 3, .inject_vlan_pri_tag = true,
		.vlan_tci = 5 << 13 | 100, .byte_count = 60, .nsge = 1,
		.sge = &sge,
	};
	uint8_t cqe[64] = { 0 };
	struct emu_trace_mana_cqe c = { .dev = "mana_1", .seq = 8, .cq_id = 9,
					.index = 4, .cqe = cqe };
	size_t len;

	text_is(emu_trace_format_mana_wqe(&w, EMU_TRACE_TEXT, &len),
		"mana_1 #7 WQE sq wq_id=0x2 offset=0x40 num_sge=0x1 "
		"inline_oob_size=0x18 client_data_unit=0x0 last_vbytes=0x0 "
		"sgl_direct=0x0 pkt_fmt=0x1 is_outer_ipv4=0x1 is_outer_ipv6=0x0 "
		"comp_iphdr_csum=0x1 comp_tcp_csum=0x1 comp_udp_csum=0x0 "
		"suppress_txcqe_gen=0x0 vcq_num=0x9 vp_offset=0x3 trans_off=0x22 "
		"inject_vlan_pri_tag=0x1 pcp=0x5 dei=0x0 vlan_id=0x64 "
		"byte_count=0x3c sge[0]{size=0x3c mem_key=0x1234 "
		"address=0x7f0000001000}\n");
	/* TX_VPORT_DISABLED, MANA_CQE_COMPLETION, vendor_err 0xabcdef;
	 * tx_wqe_offset 2; wq_num 2, is_sq, owner_bits 1 */
	put32(cqe, 40 | 1u << 6 | 0xabcdefu << 8);
	put32(cqe + 8, 2u << 5);
	put32(cqe + 60, 2 | 1u << 24 | 1u << 29);
	text_is(emu_trace_format_mana_cqe(&c, EMU_TRACE_TEXT, &len),
		"mana_1 #8 CQE cq_id=0x9 index=0x4 "
		"cqe_type=TX_VPORT_DISABLED(0x28) client_type=0x1 "
		"vendor_err=0xabcdef tx_wqe_offset=0x2 wq_num=0x2 is_sq=0x1 "
		"owner_bits=0x1\n");
}
END_TEST

START_TEST(receive_cqe)
{
	uint8_t cqe[64] = { 0 };
	struct emu_trace_mana_cqe c = { .dev = "mana_0", .cq_id = 1, .cqe = cqe };
	size_t len;

	/* RX_OKAY; VLAN 7 present; rx_hashtype MANA_HASH_L4, IP and UDP
	 * checksums good; ppi[0] 60 bytes, hash 0x11223344; rx_wqe_offset
	 * 0x20; wq_num 3, owner_bits 2 */
	put32(cqe, 1 | 1u << 6);
	put32(cqe + 4, 7 | 1u << 12 | 0x1b6u << 16 | 1u << 25 | 1u << 29);
	put32(cqe + 8, 60);
	put32(cqe + 16, 0x11223344);
	put32(cqe + 56, 0x20);
	put32(cqe + 60, 3 | 2u << 29);
	text_is(emu_trace_format_mana_cqe(&c, EMU_TRACE_TEXT, &len),
		"mana_0 CQE cq_id=0x1 index=0x0 cqe_type=RX_OKAY(0x1) "
		"client_type=0x1 vendor_err=0x0 pkt_len=0x3c pkt_hash=0x11223344 "
		"rx_hashtype=0x1b6 rx_vlantag_present=0x1 rx_vlan_id=0x7 "
		"rx_iphdr_csum_succeed=0x1 rx_iphdr_csum_fail=0x0 "
		"rx_tcp_csum_succeed=0x0 rx_tcp_csum_fail=0x0 "
		"rx_udp_csum_succeed=0x1 rx_udp_csum_fail=0x0 rx_wqe_offset=0x20 "
		"wq_num=0x3 is_sq=0x0 owner_bits=0x2\n");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_tracefmt");
	TCase *tc = tcase_create("text");

	tcase_add_test(tc, send_wqe_and_error_cqe);
	tcase_add_test(tc, receive_cqe);
	suite_add_tcase(s, tc);
	return ut_run(s) ? 1 : 0;
}
