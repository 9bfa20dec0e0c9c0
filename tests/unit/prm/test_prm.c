/* tests/unit/prm/test_prm.c -- accessors, known offsets and the field table. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* mlx5dv.h first: prm/ must not redefine anything it defines. */
#include <infiniband/mlx5dv.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "prm/prm_fields.h"

/* A test-only layout exercising every width at every bit position. */
static uint32_t be32_at(const uint8_t *b, size_t byte)
{
	return (uint32_t)b[byte] << 24 | (uint32_t)b[byte + 1] << 16 |
	       (uint32_t)b[byte + 2] << 8 | b[byte + 3];
}

static uint32_t mask_of(uint32_t hi, uint32_t lo)
{
	uint32_t w = hi - lo + 1;

	return (w == 32 ? UINT32_MAX : ((UINT32_C(1) << w) - 1)) << lo;
}

/*
 * A field lives at mailbox byte `byte` (dword aligned), bits [hi:lo] of that
 * big-endian dword, as the PRM and pyverbs notes write it.  Check the
 * compile-time offsets, the table, and the bytes PRM_SET writes.
 */
#define CHECK_AT(typ, fld, byte, hi, lo) do {					\
	uint8_t buf_[PRM_ST_SZ_BYTES(typ)];					\
	uint32_t off_;								\
	const struct prm_field_desc *fd_;					\
	memset(buf_, 0, sizeof(buf_));						\
	ck_assert_uint_eq(PRM_BIT_OFF(typ, fld), (byte) * 8 + 31 - (hi));	\
	ck_assert_uint_eq(PRM_BIT_SZ(typ, fld), (hi) - (lo) + 1);		\
	fd_ = prm_field_find(prm_struct_find(#typ), #fld, &off_);		\
	ck_assert_msg(fd_ != NULL, "%s.%s not in table", #typ, #fld);		\
	ck_assert_uint_eq(off_, PRM_BIT_OFF(typ, fld));				\
	ck_assert_uint_eq(fd_->bit_width, PRM_BIT_SZ(typ, fld));		\
	PRM_SET(typ, buf_, fld, UINT32_MAX);					\
	ck_assert_uint_eq(be32_at(buf_, (byte)), mask_of((hi), (lo)));		\
	for (size_t i_ = 0; i_ < sizeof(buf_); i_++)				\
		if (i_ / 4 != (byte) / 4)					\
			ck_assert_uint_eq(buf_[i_], 0);				\
	ck_assert_uint_eq(PRM_GET(typ, buf_, fld),				\
			  mask_of((hi), (lo)) >> (lo));				\
} while (0)

START_TEST(test_create_cq_offsets)
{
	/* ../shared/notes/pyverbs.md 4.3, CREATE_CQ */
	CHECK_AT(create_cq_in, opcode, 0x00, 31, 16);
	CHECK_AT(create_cq_in, cq_context.dbr_umem_valid, 0x10, 25, 25);
	CHECK_AT(create_cq_in, cq_context.dbr_umem_id, 0x14, 31, 0);
	CHECK_AT(create_cq_in, cq_context.log_cq_size, 0x1c, 28, 24);
	CHECK_AT(create_cq_in, cq_context.uar_page, 0x1c, 23, 0);
	CHECK_AT(create_cq_in, cq_context.c_eqn, 0x24, 7, 0);
	CHECK_AT(create_cq_in, cq_umem_id, 0x58, 31, 0);
	CHECK_AT(create_cq_in, cq_umem_valid, 0x5c, 31, 31);
	/* create_cq_out.cqn = out 0x08[23:0] */
	CHECK_AT(create_cq_out, cqn, 0x08, 23, 0);

	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)] = { 0 };

	PRM_SET(create_cq_in, in, cq_context.log_cq_size, 8);
	ck_assert_uint_eq(in[0x1c], 0x08);
	ck_assert_uint_eq(PRM_ST_SZ_BYTES(create_cq_in), 272);	/* pyverbs: 272 B */
	ck_assert_uint_eq(PRM_BYTE_OFF(create_cq_in, pas), 0x110);
}
END_TEST

START_TEST(test_create_qp_offsets)
{
	/* ../shared/notes/pyverbs.md 4.3, CREATE_QP (qpc at 0x18) */
	CHECK_AT(create_qp_in, qpc.st, 0x18, 23, 16);
	CHECK_AT(create_qp_in, qpc.pm_state, 0x18, 12, 11);
	CHECK_AT(create_qp_in, qpc.pd, 0x1c, 23, 0);
	CHECK_AT(create_qp_in, qpc.log_rq_size, 0x20, 22, 19);
	CHECK_AT(create_qp_in, qpc.log_rq_stride, 0x20, 18, 16);
	CHECK_AT(create_qp_in, qpc.log_sq_size, 0x20, 14, 11);
	CHECK_AT(create_qp_in, qpc.ts_format, 0x20, 7, 6);
	CHECK_AT(create_qp_in, qpc.uar_page, 0x24, 23, 0);
	CHECK_AT(create_qp_in, qpc.cqn_snd, 0x94, 23, 0);
	CHECK_AT(create_qp_in, qpc.cqn_rcv, 0xb4, 23, 0);
	CHECK_AT(create_qp_in, qpc.dbr_umem_valid, 0xe8, 28, 28);
	CHECK_AT(create_qp_in, qpc.dbr_umem_id, 0xfc, 31, 0);
	CHECK_AT(create_qp_in, wq_umem_id, 0x108, 31, 0);
	CHECK_AT(create_qp_in, wq_umem_valid, 0x10c, 31, 31);
	CHECK_AT(create_qp_out, qpn, 0x08, 23, 0);
	ck_assert_uint_eq(PRM_ST_SZ_BYTES(create_qp_in), 272);
}
END_TEST

START_TEST(test_modify_qp_offsets)
{
	/* ../shared/notes/pyverbs.md 4.3: RST2INIT, INIT2RTR, RTR2RTS */
	CHECK_AT(rst2init_qp_in, qpn, 0x08, 23, 0);
	CHECK_AT(rst2init_qp_in, opt_param_mask, 0x10, 31, 0);
	CHECK_AT(rst2init_qp_in, ece, 0x14, 31, 0);
	CHECK_AT(rst2init_qp_in, qpc.rre, 0xa8, 15, 15);
	CHECK_AT(rst2init_qp_in, qpc.rwe, 0xa8, 14, 14);
	CHECK_AT(rst2init_qp_in, qpc.primary_address_path.vhca_port_num, 0x54, 23, 16);
	CHECK_AT(init2rtr_qp_in, qpc.mtu, 0x20, 31, 29);
	CHECK_AT(init2rtr_qp_in, qpc.log_msg_max, 0x20, 28, 24);
	CHECK_AT(init2rtr_qp_in, qpc.remote_qpn, 0x2c, 23, 0);
	CHECK_AT(init2rtr_qp_in, qpc.min_rnr_nak, 0xac, 28, 24);
	CHECK_AT(init2rtr_qp_in, qpc.next_rcv_psn, 0xac, 23, 0);
	CHECK_AT(init2rtr_qp_in, qpc.primary_address_path.rlid, 0x34, 15, 0);
	CHECK_AT(init2rtr_qp_in, qpc.primary_address_path.src_addr_index, 0x38, 23, 16);
	CHECK_AT(init2rtr_qp_in, qpc.primary_address_path.hop_limit, 0x38, 7, 0);
	CHECK_AT(init2rtr_qp_in, qpc.primary_address_path.udp_sport, 0x50, 15, 0);
	CHECK_AT(init2rtr_qp_in, qpc.primary_address_path.rmac_47_32, 0x54, 15, 0);
	CHECK_AT(init2rtr_qp_in, qpc.primary_address_path.rmac_31_0, 0x58, 31, 0);
	CHECK_AT(rtr2rts_qp_in, qpc.primary_address_path.ack_timeout, 0x38, 31, 27);
	CHECK_AT(rtr2rts_qp_in, qpc.log_sra_max, 0x88, 23, 21);
	CHECK_AT(rtr2rts_qp_in, qpc.retry_count, 0x88, 18, 16);
	CHECK_AT(rtr2rts_qp_in, qpc.rnr_retry, 0x88, 15, 13);
	CHECK_AT(rtr2rts_qp_in, qpc.next_send_psn, 0x90, 23, 0);

	/* rgid_rip occupies mailbox bytes 0x40..0x4f */
	ck_assert_uint_eq(PRM_BYTE_OFF(init2rtr_qp_in, qpc.primary_address_path.rgid_rip), 0x40);
	ck_assert_uint_eq(PRM_FLD_SZ_BYTES(init2rtr_qp_in, qpc.primary_address_path.rgid_rip), 16);
	ck_assert_uint_eq(PRM_ARRAY_ELEM_BYTES(init2rtr_qp_in, qpc.primary_address_path.rgid_rip), 1);
}
END_TEST

START_TEST(test_caps_offsets)
{
	/* ../shared/notes/pyverbs.md 4.2: capability starts at out byte 0x10 */
	CHECK_AT(query_hca_cap_out, capability.cmd_hca_cap.port_type, 0x44, 9, 8);
	CHECK_AT(query_hca_cap_out, capability.cmd_hca_cap.num_ports, 0x44, 7, 0);
	CHECK_AT(query_hca_cap_in, op_mod, 0x04, 15, 0);
	CHECK_AT(query_hca_vport_context_in, port_num, 0x08, 19, 16);
	CHECK_AT(query_hca_vport_context_out, hca_vport_context.lid, 0x70, 31, 16);
	ck_assert_uint_eq(PRM_ST_SZ_BYTES(query_hca_cap_in), 16);
	/* kernel: 0x10 + a 4 KiB union; pyverbs passes a 2064 B outbox
	 * (header + 2 KiB page), which firmware must accept too */
	ck_assert_uint_eq(PRM_ST_SZ_BYTES(query_hca_cap_out), 0x10 + 4096);
	ck_assert_uint_eq(PRM_ST_SZ_BYTES(query_hca_vport_context_out), 528);
	ck_assert_uint_eq(PRM_ST_SZ_BYTES(cmd_hca_cap), 256);
	ck_assert_uint_eq(PRM_ST_SZ_BYTES(hca_cap_union), 4096);
	/* the union member and the page agree */
	ck_assert_uint_eq(PRM_BIT_OFF(query_hca_cap_out, capability.cmd_hca_cap.port_type) -
			  PRM_BIT_OFF(query_hca_cap_out, capability),
			  PRM_BIT_OFF(cmd_hca_cap, port_type));
}
END_TEST

START_TEST(test_roundtrip_widths)
{
	/* every width 1..32 at every start bit inside a dword */
	uint8_t buf[12];

	for (uint32_t w = 1; w <= 32; w++) {
		for (uint32_t start = 0; start + w <= 32; start++) {
			uint32_t off = 32 + start;	/* second dword */
			uint32_t v = (uint32_t)(0x9e3779b9u * (w * 33 + start));
			uint32_t m = w == 32 ? UINT32_MAX : (UINT32_C(1) << w) - 1;

			memset(buf, 0xa5, sizeof(buf));
			prm_set32_(buf, off, w, v);
			ck_assert_uint_eq(prm_get32_(buf, off, w), v & m);
			ck_assert_uint_eq(prm_field_read(buf, off, w), v & m);
			/* neighbours untouched */
			ck_assert_uint_eq(be32_at(buf, 0), 0xa5a5a5a5);
			ck_assert_uint_eq(be32_at(buf, 8), 0xa5a5a5a5);
			ck_assert_uint_eq(be32_at(buf, 4) & ~(m << (32 - w - start)),
					  0xa5a5a5a5 & ~(m << (32 - w - start)));
		}
	}
}
END_TEST

START_TEST(test_set64_get64)
{
	uint8_t out[PRM_ST_SZ_BYTES(query_cq_out)];
	static const uint8_t want[8] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	size_t at = PRM_BYTE_OFF(query_cq_out, cq_context.dbr_addr);

	memset(out, 0, sizeof(out));
	PRM_SET64(query_cq_out, out, cq_context.dbr_addr, 0x0123456789abcdefull);
	ck_assert_mem_eq(out + at, want, 8);
	ck_assert_uint_eq(at, 0x10 + 0x38);
	ck_assert(PRM_GET64(query_cq_out, out, cq_context.dbr_addr) == 0x0123456789abcdefull);
	ck_assert(prm_field_read(out, (uint32_t)at * 8, 64) == 0x0123456789abcdefull);
	/* an unaligned generic read across bytes */
	ck_assert_uint_eq(prm_field_read(want, 4, 12), 0x123);
	ck_assert_uint_eq(prm_field_read(want, 60, 4), 0xf);
}
END_TEST

START_TEST(test_arrays)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in) + 3 * 8];

	memset(in, 0, sizeof(in));
	ck_assert_uint_eq(PRM_ARRAY_ELEM_BYTES(create_cq_in, pas), 8);
	for (int i = 0; i < 3; i++) {
		uint64_t pa = 0x100000ull * (uint64_t)(i + 1);
		uint64_t be = htobe64(pa);

		memcpy(PRM_ARRAY_ADDR(create_cq_in, in, pas, i), &be, 8);
	}
	ck_assert_ptr_eq(PRM_ARRAY_ADDR(create_cq_in, in, pas, 2), in + 272 + 16);
	ck_assert_uint_eq(in[272 + 8 + 5], 0x20);
	/* struct array: flow counters */
	ck_assert_uint_eq(PRM_ARRAY_ELEM_BYTES(query_flow_counter_out, flow_statistics),
			  PRM_ST_SZ_BYTES(traffic_counter));
	/* ADDR_OF a nested struct */
	ck_assert_ptr_eq(PRM_ADDR_OF(create_cq_in, in, cq_context), in + 0x10);
}
END_TEST

START_TEST(test_status_opcode_names)
{
	ck_assert_str_eq(prm_opcode_str(MLX5_CMD_OP_QUERY_HCA_CAP), "QUERY_HCA_CAP");
	ck_assert_str_eq(prm_opcode_str(0x400), "CREATE_CQ");
	ck_assert_str_eq(prm_opcode_str(0x50d), "MAD_IFC");
	ck_assert_str_eq(prm_opcode_str(0xffff), "unknown command opcode");
	ck_assert_int_eq(MLX5_CMD_STAT_BAD_PARAM_ERR, 0x3);
	ck_assert_int_eq(MLX5_CMD_STAT_BAD_INP_LEN, 0x50);
	ck_assert_int_eq(MLX5_CMD_STAT_BAD_SIZE, 0x40);
	ck_assert_str_eq(prm_status_str(MLX5_CMD_STAT_BAD_PARAM_ERR), "bad parameter");
	ck_assert_str_eq(prm_status_str(0x10), "bad QP state");
	ck_assert_str_eq(prm_status_str(0x77), "unknown status");
	ck_assert_str_eq(prm_status_name(0x51), "MLX5_CMD_STAT_BAD_OUTP_LEN_ERR");
	ck_assert_ptr_null(prm_status_name(0x77));
	ck_assert_int_eq(MLX5_CAP_GENERAL_2, 0x20);
	ck_assert_int_eq(MLX5_CAP_ROCE, 4);
	ck_assert_int_eq(MLX5_QP_STATE_SQD, 7);
	ck_assert_int_eq(MLX5_OBJ_TYPE_QP, 0xff02);
}
END_TEST

START_TEST(test_table_lookup)
{
	const struct prm_struct_desc *sd = prm_struct_find("cqc");
	const struct prm_field_desc *fd;
	uint32_t off;

	ck_assert_ptr_nonnull(sd);
	ck_assert_uint_eq(sd->size_bits, PRM_ST_SZ_BITS(cqc));
	ck_assert_ptr_null(prm_struct_find("no_such_struct"));
	ck_assert_ptr_null(prm_struct_find(NULL));
	fd = prm_field_find(prm_struct_find("create_cq_in"), "pas", &off);
	ck_assert_ptr_nonnull(fd);
	ck_assert_uint_eq(fd->count, PRM_COUNT_FLEX);
	ck_assert_uint_eq(fd->bit_width, 64);
	fd = prm_field_find(prm_struct_find("create_cq_in"), "cq_context", NULL);
	ck_assert_ptr_eq(fd->type, sd);
	ck_assert_ptr_null(prm_field_find(sd, "log_cq_size.x", NULL));
	ck_assert_ptr_null(prm_field_find(sd, "nope", NULL));
	ck_assert(prm_struct_find("hca_cap_union")->flags & PRM_STRUCT_UNION);
	ck_assert_uint_gt(prm_struct_count(), 200);
	ck_assert_ptr_null(prm_struct_at(prm_struct_count()));
	for (size_t i = 1; i < prm_struct_count(); i++)
		ck_assert_int_lt(strcmp(prm_struct_at(i - 1)->name, prm_struct_at(i)->name), 0);
}
END_TEST

/* Every struct's table: sorted, non-overlapping, inside the size. */
START_TEST(test_table_consistent)
{
	size_t nfields = 0;

	for (size_t i = 0; i < prm_struct_count(); i++) {
		const struct prm_struct_desc *sd = prm_struct_at(i);
		uint32_t end = 0;

		ck_assert_ptr_eq(prm_struct_find(sd->name), sd);
		ck_assert_uint_eq(sd->size_bits % 32, 0);
		for (uint32_t j = 0; j < sd->nfields; j++) {
			const struct prm_field_desc *fd = &sd->fields[j];
			uint32_t n = fd->count == PRM_COUNT_FLEX ? 0 : (fd->count ? fd->count : 1);

			nfields++;
			if (fd->type)
				ck_assert_uint_eq(fd->bit_width, fd->type->size_bits);
			else
				ck_assert(fd->bit_width <= 32 || (fd->bit_width == 64 && fd->bit_off % 64 == 0));
			if (fd->count == PRM_COUNT_FLEX)
				ck_assert_uint_eq(fd->bit_off, sd->size_bits);
			else
				ck_assert_uint_le(fd->bit_off + fd->bit_width * n, sd->size_bits);
			if (sd->flags & PRM_STRUCT_UNION) {
				ck_assert_uint_eq(fd->bit_off, 0);
				continue;
			}
			ck_assert_msg(fd->bit_off >= end, "%s.%s overlaps", sd->name, fd->name);
			end = fd->bit_off + fd->bit_width * n;
			for (uint32_t k = 0; k < j; k++)
				ck_assert_str_ne(sd->fields[k].name, fd->name);
		}
	}
	ck_assert_uint_gt(nfields, 1500);
}
END_TEST

START_TEST(test_format)
{
	uint8_t in[PRM_ST_SZ_BYTES(init2rtr_qp_in)];
	static const uint8_t gid[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	char out[512];
	int n;

	memset(in, 0, sizeof(in));
	PRM_SET(init2rtr_qp_in, in, opcode, MLX5_CMD_OP_INIT2RTR_QP);
	PRM_SET(init2rtr_qp_in, in, qpn, 0x1234);
	PRM_SET(init2rtr_qp_in, in, qpc.mtu, MLX5_QPC_MTU_1K_BYTES);
	memcpy(PRM_ADDR_OF(init2rtr_qp_in, in, qpc.primary_address_path.rgid_rip), gid, 16);
	n = prm_format_fields(prm_struct_find("init2rtr_qp_in"), in, sizeof(in), true,
			      out, sizeof(out));
	ck_assert_int_eq(n, (int)strlen(out));
	ck_assert_str_eq(out, "opcode=0x503 qpn=0x1234 qpc.mtu=0x3 "
			 "qpc.primary_address_path.rgid_rip=fe800000000000000102030405060708");
	/* truncation: snprintf semantics */
	ck_assert_int_eq(prm_format_fields(prm_struct_find("init2rtr_qp_in"), in, sizeof(in),
					   true, out, 8), n);
	ck_assert_str_eq(out, "opcode=");
	/* a short buffer only decodes what it holds */
	n = prm_format_fields(prm_struct_find("init2rtr_qp_in"), in, 8, false, out, sizeof(out));
	ck_assert_str_eq(out, "opcode=0x503 uid=0x0 op_mod=0x0");
	ck_assert_int_eq(prm_format_fields(NULL, in, 8, false, out, sizeof(out)), -1);
}
END_TEST

static Suite *prm_suite(void)
{
	Suite *s = suite_create("prm");
	TCase *tc = tcase_create("layouts");

	tcase_add_test(tc, test_create_cq_offsets);
	tcase_add_test(tc, test_create_qp_offsets);
	tcase_add_test(tc, test_modify_qp_offsets);
	tcase_add_test(tc, test_caps_offsets);
	tcase_add_test(tc, test_roundtrip_widths);
	tcase_add_test(tc, test_set64_get64);
	tcase_add_test(tc, test_arrays);
	tcase_add_test(tc, test_status_opcode_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("table");
	tcase_add_test(tc, test_table_lookup);
	tcase_add_test(tc, test_table_consistent);
	tcase_add_test(tc, test_format);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(prm_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
