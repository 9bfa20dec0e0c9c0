/* SPDX-License-Identifier: MIT */
/*
 * The little-endian layouts of prm/defs/mana.prm: the accessors of
 * prm/prm_le.h against bytes at the offsets Linux's gdma.h and mana.h give
 * (written here by hand), the runtime table's flags and decoding, and the
 * sizes of the control messages.
 */
#include <check.h>
#include <string.h>

#include "prm/prm_fields.h"
#include "prm/prm_le.h"

#include "mana_bytes.h"
#include "ut_run.h"

START_TEST(accessors_are_little_endian_lsb_first)
{
	uint8_t b[64] = { 0 };

	/* gdma_cqe: wq_num [23:0], is_sq [24], owner_bits [31:29] of dword 15 */
	PRM_LE_SET(gdma_cqe, b, cqe_info.wq_num, 0x123456);
	PRM_LE_SET(gdma_cqe, b, cqe_info.is_sq, 1);
	PRM_LE_SET(gdma_cqe, b, cqe_info.owner_bits, 5);
	ck_assert_uint_eq(get32le(b + 60), 0x123456u | 1u << 24 | 5u << 29);
	ck_assert_uint_eq(b[63], 0xa1);

	/* gdma_sge: u64 address, u32 mem_key, u32 size */
	memset(b, 0, sizeof(b));
	PRM_LE_SET64(gdma_sge, b, address, 0x0102030405060708ull);
	PRM_LE_SET(gdma_sge, b, mem_key, 0xa0b0c0d0);
	PRM_LE_SET(gdma_sge, b, size, 9000);
	ck_assert_uint_eq(b[0], 0x08);
	ck_assert_uint_eq(b[7], 0x01);
	ck_assert_uint_eq(get32le(b + 8), 0xa0b0c0d0);
	ck_assert_uint_eq(get32le(b + 12), 9000);
	ck_assert_uint_eq(PRM_LE_GET64(gdma_sge, b, address), 0x0102030405060708ull);

	/* gdma_wqe: last_vbytes [31:24] of dword 0; dword 1 num_sge [7:0],
	 * inline_oob_size_div4 [10:8], client_data_unit [29:16] */
	memset(b, 0, sizeof(b));
	put32le(b, 0x36000000);
	put32le(b + 4, 3u | 6u << 8 | 0x3fffu << 16);
	ck_assert_uint_eq(PRM_LE_GET(gdma_wqe_hdr, b, last_vbytes), 0x36);
	ck_assert_uint_eq(PRM_LE_GET(gdma_wqe_hdr, b, num_sge), 3);
	ck_assert_uint_eq(PRM_LE_GET(gdma_wqe_hdr, b, inline_oob_size_div4), 6);
	ck_assert_uint_eq(PRM_LE_GET(gdma_wqe_hdr, b, client_data_unit), 0x3fff);
	ck_assert_uint_eq(PRM_LE_GET(gdma_wqe_hdr, b, client_oob_in_sgl), 0);
	/* a setter leaves the neighbours alone */
	PRM_LE_SET(gdma_wqe_hdr, b, client_oob_in_sgl, 1);
	ck_assert_uint_eq(get32le(b + 4), 3u | 6u << 8 | 1u << 11 | 0x3fffu << 16);
}
END_TEST

START_TEST(message_layouts)
{
	/* sizes and offsets of gdma.h / mana.h, counted by hand */
	ck_assert_uint_eq(PRM_LE_ST_SZ_BYTES(gdma_req_hdr), 40);
	ck_assert_uint_eq(PRM_LE_ST_SZ_BYTES(gdma_resp_hdr), 32);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(gdma_resp_hdr, status), 24);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_config_vport_req, vport), 40);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_config_vport_req, doorbell_pageid), 52);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_config_vport_resp, short_form_allowed), 34);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_create_wqobj_req, wq_gdma_region), 56);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_create_wqobj_req, cq_parent_qid), 84);
	ck_assert_uint_eq(PRM_LE_ST_SZ_BYTES(mana_create_wqobj_req), 88);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_create_wqobj_resp, wq_obj), 40);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_destroy_wqobj_req, wq_obj_handle), 48);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_cfg_rx_steer_req_v2, default_rxobj), 64);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_cfg_rx_steer_req_v2, hashkey), 72);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_cfg_rx_steer_req_v2, cqe_coalescing_enable), 112);
	ck_assert_uint_eq(PRM_LE_ST_SZ_BYTES(mana_cfg_rx_steer_req_v2), 120);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_query_vport_cfg_resp, mac_addr), 48);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_query_vport_cfg_resp, vport), 56);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(gdma_create_dma_region_req, page_addr_list), 64);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_rxcomp_oob, ppi[1]), 20);
	ck_assert_uint_eq(PRM_LE_BYTE_OFF(mana_rxcomp_oob, rx_wqe_offset), 56);
	ck_assert_uint_eq(PRM_LE_ST_SZ_BYTES(mana_tx_oob), 24);
}
END_TEST

START_TEST(table_decodes_little_endian)
{
	const struct prm_struct_desc *sd = prm_struct_find("gdma_wqe_hdr");
	uint8_t b[8];
	char out[256];

	ck_assert_ptr_nonnull(sd);
	ck_assert(sd->flags & PRM_STRUCT_LE);
	ck_assert(!(prm_struct_find("create_cq_in")->flags & PRM_STRUCT_LE));
	put32le(b, 0x36000000);
	put32le(b + 4, 2u | 2u << 8 | 1448u << 16);
	ck_assert_int_gt(prm_format_fields(sd, b, sizeof(b), true, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "last_vbytes=0x36 num_sge=0x2 inline_oob_size_div4=0x2 "
			      "client_data_unit=0x5a8");

	/* nested and 64-bit fields follow the struct's byte order */
	{
		uint8_t q[32] = { 0 };

		sd = prm_struct_find("gdma_cqe");
		ck_assert_ptr_nonnull(sd);
		put32le(q + 0, 0x41);
		ck_assert_int_gt(prm_format_fields(sd, q, 32, true, out, sizeof(out)), 0);
		ck_assert_str_eq(out, "cqe_data[0]=0x41");
	}
	{
		uint8_t s[16] = { 0 };

		put64le(s, 0x1122334455667788ull);
		ck_assert_uint_eq(prm_field_read_le(s, 0, 64), 0x1122334455667788ull);
		ck_assert_uint_eq(prm_field_read_le(s, 4, 8), 0x78);
		ck_assert_uint_eq(prm_field_read_le(s, 28, 8), 0);	/* crosses a dword */
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_prm");
	TCase *tc = tcase_create("prm");

	tcase_add_test(tc, accessors_are_little_endian_lsb_first);
	tcase_add_test(tc, message_layouts);
	tcase_add_test(tc, table_decodes_little_endian);
	suite_add_tcase(s, tc);
	return ut_run(s) ? 1 : 0;
}
