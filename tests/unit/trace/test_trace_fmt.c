/* SPDX-License-Identifier: MIT */
/*
 * The command trace's formatter (emu/trace/trace_fmt.h): which layout
 * decodes which mailbox, the text line (exact), elision, the JSON object
 * (parsed back with json-c), unions chosen by op_mod/opcode, byte and
 * flexible arrays, short and oversized mailboxes, names and parsing.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "emu/trace/trace.h"
#include "emu/trace/trace_fmt.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

static char *fmt_cmd(const void *in, size_t inlen, const void *out,
		     size_t outlen, enum emu_trace_format f, bool elide)
{
	struct emu_trace_cmd c = {
		.dev = "mlx5_0", .seq = 7, .in = in, .inlen = inlen,
		.out = out, .outlen = outlen, .timed = true,
		.duration_ns = 1500,
	};
	size_t len = 0;
	char *s = emu_trace_format_cmd(&c, f, elide, &len);

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, strlen(s));
	ck_assert_int_eq(s[len - 1], '\n');
	ck_assert_ptr_null(memchr(s, '\n', len - 1));	/* one line */
	return s;
}

static struct json_object *parse(const char *s)
{
	struct json_object *o = json_tokener_parse(s);

	ck_assert_msg(o != NULL, "not JSON: %s", s);
	return o;
}

static struct json_object *get(struct json_object *o, const char *path)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		struct json_object *next = NULL;

		if (json_object_is_type(o, json_type_array))
			next = json_object_array_get_idx(o, (size_t)atoi(tok));
		else if (!json_object_object_get_ex(o, tok, &next))
			ck_abort_msg("no %s in %s", tok, path);
		o = next;
	}
	return o;
}

static void create_cq_in(uint8_t *in, unsigned int npas)
{
	void *cqc = PRM_ADDR_OF(create_cq_in, in, cq_context);

	PRM_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	PRM_SET(create_cq_in, in, uid, 1);
	PRM_SET(cqc, cqc, log_cq_size, 8);
	PRM_SET(cqc, cqc, uar_page, 2);
	PRM_SET(cqc, cqc, c_eqn, 1);
	PRM_SET64(cqc, cqc, dbr_addr, UINT64_C(0x123456789abcdef0));
	for (unsigned int i = 0; i < npas; i++)
		prm_set64_(PRM_ARRAY_ADDR(create_cq_in, in, pas, i), 0,
			   0x1000u * (i + 1));
}

START_TEST(layouts_by_opcode)
{
	static const struct {
		uint16_t op;
		const char *in, *out;
	} cases[] = {
		{ MLX5_CMD_OP_CREATE_CQ, "create_cq_in", "create_cq_out" },
		{ MLX5_CMD_OP_QUERY_HCA_CAP, "query_hca_cap_in", "query_hca_cap_out" },
		{ MLX5_CMD_OP_ALLOC_PD, "alloc_pd_in", "alloc_pd_out" },
		{ MLX5_CMD_OP_2ERR_QP, "qp_2err_in", "qp_2err_out" },
		{ MLX5_CMD_OP_2RST_QP, "qp_2rst_in", "qp_2rst_out" },
		{ MLX5_CMD_OP_SQD_RTS_QP, "sqd2rts_qp_in", "sqd2rts_qp_out" },
		{ MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY, "set_fte_in", "set_fte_out" },
		{ MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY, "delete_fte_in", "delete_fte_out" },
		{ MLX5_CMD_OP_QUERY_FLOW_TABLE_ENTRY, "query_fte_in", "query_fte_out" },
		{ MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, "set_flow_table_root_in",
		  "set_flow_table_root_out" },
		{ MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT, "modify_nic_vport_context_in",
		  "modify_nic_vport_context_out" },
		{ MLX5_CMD_OP_ACCESS_REG, "access_register_in", "access_register_out" },
		{ MLX5_CMD_OP_ARM_DCT_FOR_KEY_VIOLATION, "arm_dct_in", "arm_dct_out" },
		{ MLX5_CMD_OP_CREATE_GENERAL_OBJECT, "general_obj_in_cmd_hdr",
		  "general_obj_out_cmd_hdr" },
		{ MLX5_CMD_OP_DESTROY_GENERAL_OBJECT, "general_obj_in_cmd_hdr",
		  "general_obj_out_cmd_hdr" },
		{ MLX5_CMD_OP_NOP, "mbox_in", "mbox_out" },
		{ 0x1234, "mbox_in", "mbox_out" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_str_eq(emu_trace_in_struct(cases[i].op)->name, cases[i].in);
		ck_assert_str_eq(emu_trace_out_struct(cases[i].op)->name, cases[i].out);
	}
	ck_assert(emu_trace_opcode_described(MLX5_CMD_OP_CREATE_CQ));
	ck_assert(!emu_trace_opcode_described(MLX5_CMD_OP_NOP));
	ck_assert(!emu_trace_opcode_described(0x1234));
}
END_TEST

/* Every opcode prm/ has an inbox layout for resolves to it, by name. */
START_TEST(every_described_opcode_resolves)
{
	for (unsigned int op = 0; op < 0x10000; op++) {
		const char *name = emu_trace_opcode_name((uint16_t)op);
		const struct prm_struct_desc *in, *out;

		if (!name) {
			ck_assert_str_eq(emu_trace_in_struct((uint16_t)op)->name, "mbox_in");
			continue;
		}
		in = emu_trace_in_struct((uint16_t)op);
		out = emu_trace_out_struct((uint16_t)op);
		ck_assert_ptr_nonnull(in);
		ck_assert_ptr_nonnull(out);
		/* an inbox layout starts with opcode; an outbox with status */
		ck_assert_str_eq(in->fields[0].name, "opcode");
		ck_assert_str_eq(out->fields[0].name, "status");
	}
}
END_TEST

START_TEST(text_ok_exact)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };
	char *s;

	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	PRM_SET(alloc_pd_in, in, uid, 3);
	PRM_SET(alloc_pd_out, out, pd, 5);
	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_TEXT, true);
	ck_assert_str_eq(s, "mlx5_0 #7 ALLOC_PD uid=0x3 op_mod=0x0 in{} -> OK out{pd=0x5} 1.5us\n");
	free(s);
}
END_TEST

START_TEST(text_failure_exact)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)] = { 0 };
	char *s;

	create_cq_in(in, 0);
	PRM_SET(create_cq_out, out, status, MLX5_CMD_STAT_BAD_PARAM_ERR);
	PRM_SET(create_cq_out, out, syndrome, 0xEE000902);
	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_TEXT, true);
	ck_assert_str_eq(s, "mlx5_0 #7 CREATE_CQ uid=0x1 op_mod=0x0 "
			 "in{cq_context.log_cq_size=0x8 cq_context.uar_page=0x2 "
			 "cq_context.c_eqn=0x1 cq_context.dbr_addr=0x123456789abcdef0} "
			 "-> BAD_PARAM(0x3) syndrome=0xee000902(CQ_BAD_SIZE) out{} 1.5us\n");
	free(s);
}
END_TEST

START_TEST(text_injected_and_unknown_syndrome)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };
	struct emu_trace_cmd c = { .in = in, .inlen = sizeof(in), .out = out,
				   .outlen = sizeof(out), .injected = true };
	char *s;

	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	PRM_SET(alloc_pd_out, out, status, MLX5_CMD_STAT_NO_RES_ERR);
	PRM_SET(alloc_pd_out, out, syndrome, 0x1234);
	s = emu_trace_format_cmd(&c, EMU_TRACE_TEXT, true, NULL);
	/* no device, no seq, no duration: left out */
	ck_assert_str_eq(s, "ALLOC_PD uid=0x0 op_mod=0x0 in{} -> NO_RES(0xf) "
			 "syndrome=0x1234 injected out{}\n");
	free(s);
}
END_TEST

START_TEST(fault_annotations)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };
	const struct emu_trace_fault faults[] = {
		{ .rule = 4, .text = "delay ms=5 opcode=ALLOC_PD", .delay = true,
		  .delay_ms = 5 },
		{ .rule = 2, .text = "fail opcode=ALLOC_PD" },
	};
	struct emu_trace_cmd c = { .in = in, .inlen = sizeof(in), .out = out,
				   .outlen = sizeof(out), .injected = true,
				   .nfaults = 2, .faults = faults };
	struct json_object *o;
	char *s;

	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	PRM_SET(alloc_pd_out, out, status, MLX5_CMD_STAT_INT_ERR);
	PRM_SET(alloc_pd_out, out, syndrome, 0xEE0000FF);
	s = emu_trace_format_cmd(&c, EMU_TRACE_TEXT, true, NULL);
	ck_assert_str_eq(s, "ALLOC_PD uid=0x0 op_mod=0x0 in{} -> INT_ERR(0x1) "
			 "syndrome=0xee0000ff(INJECTED) delayed(rule 4: delay ms=5 opcode=ALLOC_PD) "
			 "injected(rule 2: fail opcode=ALLOC_PD) out{}\n");
	free(s);
	s = emu_trace_format_cmd(&c, EMU_TRACE_JSON, true, NULL);
	o = parse(s);
	ck_assert_int_eq(json_object_array_length(get(o, "faults")), 2);
	ck_assert_str_eq(json_object_get_string(get(o, "faults.0.action")), "delay");
	ck_assert_int_eq(json_object_get_int(get(o, "faults.0.delay_ms")), 5);
	ck_assert_int_eq(json_object_get_int(get(o, "faults.1.rule")), 2);
	ck_assert_str_eq(json_object_get_string(get(o, "faults.1.text")), "fail opcode=ALLOC_PD");
	json_object_put(o);
	free(s);

	/* a delay alone: the command went through */
	memset(out, 0, sizeof(out));
	c.injected = false;
	c.nfaults = 1;
	s = emu_trace_format_cmd(&c, EMU_TRACE_TEXT, true, NULL);
	ck_assert_str_eq(s, "ALLOC_PD uid=0x0 op_mod=0x0 in{} -> OK "
			 "delayed(rule 4: delay ms=5 opcode=ALLOC_PD) out{}\n");
	free(s);
}
END_TEST

START_TEST(text_no_elision)
{
	uint8_t in[PRM_ST_SZ_BYTES(dealloc_pd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(dealloc_pd_out)] = { 0 };
	char *s;

	PRM_SET(dealloc_pd_in, in, opcode, MLX5_CMD_OP_DEALLOC_PD);
	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_TEXT, false);
	ck_assert_str_eq(s, "mlx5_0 #7 DEALLOC_PD uid=0x0 op_mod=0x0 in{pd=0x0} -> OK out{} 1.5us\n");
	free(s);
}
END_TEST

START_TEST(json_fields)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in) + 16] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)] = { 0 };
	struct json_object *o, *pas;
	char *s;

	create_cq_in(in, 2);
	PRM_SET(create_cq_out, out, cqn, 0x42);
	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_JSON, true);
	o = parse(s);
	ck_assert_int_eq(json_object_get_int(get(o, "seq")), 7);
	ck_assert_str_eq(json_object_get_string(get(o, "dev")), "mlx5_0");
	ck_assert_str_eq(json_object_get_string(get(o, "opcode")), "CREATE_CQ");
	ck_assert_int_eq(json_object_get_int(get(o, "opcode_value")), 0x400);
	ck_assert_int_eq(json_object_get_int(get(o, "uid")), 1);
	ck_assert_int_eq(json_object_get_int(get(o, "op_mod")), 0);
	ck_assert_str_eq(json_object_get_string(get(o, "in_struct")), "create_cq_in");
	ck_assert_int_eq(json_object_get_int(get(o, "in.cq_context.log_cq_size")), 8);
	/* zeros are there too: JSON is never elided */
	ck_assert_int_eq(json_object_get_int(get(o, "in.cq_context.cqe_sz")), 0);
	/* 64-bit fields are hex strings */
	ck_assert_str_eq(json_object_get_string(get(o, "in.cq_context.dbr_addr")),
			 "0x123456789abcdef0");
	pas = get(o, "in.pas");
	ck_assert(json_object_is_type(pas, json_type_array));
	ck_assert_uint_eq(json_object_array_length(pas), 2);
	ck_assert_str_eq(json_object_get_string(get(o, "in.pas.1")), "0x2000");
	/* the header is not repeated inside */
	ck_assert(!json_object_object_get_ex(get(o, "in"), "opcode", NULL));
	ck_assert(!json_object_object_get_ex(get(o, "out"), "status", NULL));
	ck_assert_str_eq(json_object_get_string(get(o, "status")), "OK");
	ck_assert_int_eq(json_object_get_int(get(o, "status_value")), 0);
	ck_assert_int_eq(json_object_get_int(get(o, "syndrome")), 0);
	ck_assert(json_object_is_type(get(o, "syndrome_name"), json_type_null));
	ck_assert(!json_object_get_boolean(get(o, "injected")));
	ck_assert_int_eq(json_object_get_int(get(o, "out.cqn")), 0x42);
	ck_assert_int_eq(json_object_get_int(get(o, "duration_ns")), 1500);
	json_object_put(o);
	free(s);
}
END_TEST

START_TEST(json_failure)
{
	uint8_t in[PRM_ST_SZ_BYTES(destroy_cq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(destroy_cq_out)] = { 0 };
	struct json_object *o;
	char *s;

	PRM_SET(destroy_cq_in, in, opcode, MLX5_CMD_OP_DESTROY_CQ);
	PRM_SET(destroy_cq_out, out, status, MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	PRM_SET(destroy_cq_out, out, syndrome, 0x001870AD);
	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_JSON, true);
	o = parse(s);
	ck_assert_str_eq(json_object_get_string(get(o, "status")), "BAD_RES_STATE");
	ck_assert_int_eq(json_object_get_int(get(o, "status_value")), 9);
	ck_assert_int_eq(json_object_get_int64(get(o, "syndrome")), 0x001870AD);
	ck_assert_str_eq(json_object_get_string(get(o, "syndrome_name")), "CQ_IN_USE");
	json_object_put(o);
	free(s);
}
END_TEST

/* QUERY_HCA_CAP's page is the one op_mod asks for, not every member. */
/* No outbox, an errno (a call DEVX refused, seen above the backend). */
START_TEST(errno_without_outbox)
{
	uint8_t in[PRM_ST_SZ_BYTES(dealloc_pd_in)] = { 0 };
	struct emu_trace_cmd c = {
		.dev = "mlx5_0", .seq = 3, .in = in, .inlen = sizeof(in),
		.err = EBUSY, .timed = true, .duration_ns = 1500,
	};
	struct json_object *o;
	char *s;

	PRM_SET(dealloc_pd_in, in, opcode, MLX5_CMD_OP_DEALLOC_PD);
	PRM_SET(dealloc_pd_in, in, pd, 9);
	s = emu_trace_format_cmd(&c, EMU_TRACE_TEXT, true, NULL);
	ck_assert_str_eq(s, "mlx5_0 #3 DEALLOC_PD uid=0x0 op_mod=0x0 in{pd=0x9} -> errno EBUSY(16) 1.5us\n");
	free(s);
	s = emu_trace_format_cmd(&c, EMU_TRACE_JSON, true, NULL);
	o = parse(s);
	ck_assert_int_eq(json_object_get_int(get(o, "errno")), EBUSY);
	ck_assert_str_eq(json_object_get_string(get(o, "errno_name")), "EBUSY");
	ck_assert(!json_object_object_get_ex(o, "status", NULL));
	ck_assert(!json_object_object_get_ex(o, "out", NULL));
	json_object_put(o);
	free(s);
}
END_TEST

START_TEST(union_by_op_mod)
{
	size_t outlen = PRM_ST_SZ_BYTES(query_hca_cap_out);
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t *out = calloc(1, outlen);
	void *cap = PRM_ADDR_OF(query_hca_cap_out, out, capability);
	struct json_object *o, *u;
	char *s;

	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, MLX5_CAP_GENERAL << 1 | 1);
	PRM_SET(cmd_hca_cap, cap, log_max_cq, 24);
	s = fmt_cmd(in, sizeof(in), out, outlen, EMU_TRACE_TEXT, true);
	ck_assert_ptr_nonnull(strstr(s, "capability.cmd_hca_cap.log_max_cq=0x18"));
	ck_assert_ptr_null(strstr(s, "roce_cap"));
	ck_assert_ptr_null(strstr(s, "cmd_hca_cap_2"));
	free(s);

	s = fmt_cmd(in, sizeof(in), out, outlen, EMU_TRACE_JSON, true);
	o = parse(s);
	u = get(o, "out.capability");
	ck_assert_int_eq(json_object_object_length(u), 1);
	ck_assert_int_eq(json_object_get_int(get(u, "cmd_hca_cap.log_max_cq")), 24);
	json_object_put(o);
	free(s);

	/* RoCE page */
	PRM_SET(query_hca_cap_in, in, op_mod, MLX5_CAP_ROCE << 1 | 1);
	s = fmt_cmd(in, sizeof(in), out, outlen, EMU_TRACE_JSON, true);
	o = parse(s);
	u = get(o, "out.capability");
	ck_assert_int_eq(json_object_object_length(u), 1);
	ck_assert(json_object_object_get_ex(u, "roce_cap", NULL));
	json_object_put(o);
	free(s);

	/* a page prm/ does not describe: every member */
	PRM_SET(query_hca_cap_in, in, op_mod, MLX5_CAP_QOS << 1 | 1);
	s = fmt_cmd(in, sizeof(in), out, outlen, EMU_TRACE_JSON, true);
	o = parse(s);
	ck_assert_int_gt(json_object_object_length(get(o, "out.capability")), 1);
	json_object_put(o);
	free(s);
	free(out);
}
END_TEST

START_TEST(union_modify_cq)
{
	uint8_t in[PRM_ST_SZ_BYTES(modify_cq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(modify_cq_out)] = { 0 };
	char *s;

	PRM_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	PRM_SET(modify_cq_in, in, op_mod, 1);
	PRM_SET(modify_cq_in, in, cqn, 9);
	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_TEXT, false);
	ck_assert_ptr_nonnull(strstr(s, "_select.resize_field_select."));
	ck_assert_ptr_null(strstr(s, "_select.modify_field_select."));
	free(s);
	PRM_SET(modify_cq_in, in, op_mod, 0);
	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_TEXT, false);
	ck_assert_ptr_nonnull(strstr(s, "_select.modify_field_select."));
	ck_assert_ptr_null(strstr(s, "_select.resize_field_select."));
	free(s);
}
END_TEST

START_TEST(byte_arrays_as_hex)
{
	uint8_t in[PRM_ST_SZ_BYTES(set_roce_address_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(set_roce_address_out)] = { 0 };
	static const uint8_t gid[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
					 127, 1, 2, 3 };
	void *addr = PRM_ADDR_OF(set_roce_address_in, in, roce_address);
	struct json_object *o;
	char *s;

	PRM_SET(set_roce_address_in, in, opcode, MLX5_CMD_OP_SET_ROCE_ADDRESS);
	memcpy(PRM_ADDR_OF(roce_addr_layout, addr, source_l3_address), gid, 16);
	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_TEXT, true);
	ck_assert_ptr_nonnull(strstr(s, "in{roce_address.source_l3_address=00000000000000000000ffff7f010203}"));
	free(s);
	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_JSON, true);
	o = parse(s);
	ck_assert_str_eq(json_object_get_string(get(o, "in.roce_address.source_l3_address")),
			 "00000000000000000000ffff7f010203");
	json_object_put(o);
	free(s);
}
END_TEST

START_TEST(flexible_array_capped)
{
	unsigned int n = EMU_TRACE_MAX_FLEX + 10;
	size_t inlen = PRM_ST_SZ_BYTES(create_cq_in) + 8 * n;
	uint8_t *in = calloc(1, inlen);
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)] = { 0 };
	struct json_object *o;
	char *s;

	create_cq_in(in, n);
	s = fmt_cmd(in, inlen, out, sizeof(out), EMU_TRACE_JSON, true);
	o = parse(s);
	ck_assert_uint_eq(json_object_array_length(get(o, "in.pas")), EMU_TRACE_MAX_FLEX);
	ck_assert_int_eq(json_object_get_int(get(o, "in.pas_omitted")), 10);
	json_object_put(o);
	free(s);
	s = fmt_cmd(in, inlen, out, sizeof(out), EMU_TRACE_TEXT, true);
	ck_assert_ptr_nonnull(strstr(s, " pas[0]=0x1000 pas[1]=0x2000 "));
	ck_assert_ptr_nonnull(strstr(s, " pas[...]=+10}"));
	free(s);
	free(in);
}
END_TEST

/* Fields past the end of a short mailbox are absent, never read. */
START_TEST(short_mailboxes)
{
	uint8_t in[8] = { 0x04, 0x00, 0x00, 0x01 };	/* CREATE_CQ, uid 1 */
	uint8_t out[8] = { 0x50, 0, 0, 0, 0xee, 0, 0, 0x04 };
	struct json_object *o;
	char *s;

	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_TEXT, false);
	ck_assert_str_eq(s, "mlx5_0 #7 CREATE_CQ uid=0x1 op_mod=0x0 in{} -> BAD_INP_LEN(0x50) "
			 "syndrome=0xee000004(BAD_INLEN) out{} 1.5us\n");
	free(s);
	s = fmt_cmd(in, 2, out, sizeof(out), EMU_TRACE_TEXT, false);
	ck_assert_str_eq(s, "mlx5_0 #7 CREATE_CQ in{} -> BAD_INP_LEN(0x50) "
			 "syndrome=0xee000004(BAD_INLEN) out{} 1.5us\n");
	free(s);
	s = fmt_cmd(in, 0, out, sizeof(out), EMU_TRACE_TEXT, false);
	ck_assert_str_eq(s, "mlx5_0 #7 (inbox of 0 bytes) in{} -> BAD_INP_LEN(0x50) "
			 "syndrome=0xee000004(BAD_INLEN) out{} 1.5us\n");
	free(s);
	s = fmt_cmd(in, 0, out, sizeof(out), EMU_TRACE_JSON, false);
	o = parse(s);
	ck_assert(json_object_is_type(get(o, "opcode"), json_type_null));
	json_object_put(o);
	free(s);
}
END_TEST

START_TEST(general_object_context)
{
	uint8_t in[PRM_ST_SZ_BYTES(general_obj_in_cmd_hdr) + 8] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(general_obj_out_cmd_hdr)] = { 0 };
	struct json_object *o;
	char *s;

	PRM_SET(general_obj_in_cmd_hdr, in, opcode, MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
	PRM_SET(general_obj_in_cmd_hdr, in, obj_type,
		MLX5_GENERAL_OBJECT_TYPES_FLOW_METER_ASO);
	PRM_SET(general_obj_in_cmd_hdr, in, op_param.create.log_obj_range, 3);
	in[sizeof(in) - 1] = 0xab;
	PRM_SET(general_obj_out_cmd_hdr, out, obj_id, 17);
	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_TEXT, true);
	ck_assert_str_eq(s, "mlx5_0 #7 CREATE_GENERAL_OBJECT(FLOW_METER_ASO) uid=0x0 "
			 "in{obj_type=0x24 op_param.create.log_obj_range=0x3} +00000000000000ab "
			 "-> OK out{obj_id=0x11} 1.5us\n");
	free(s);
	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_JSON, true);
	o = parse(s);
	ck_assert_str_eq(json_object_get_string(get(o, "obj_type_name")), "FLOW_METER_ASO");
	ck_assert_str_eq(json_object_get_string(get(o, "in_extra")), "00000000000000ab");
	ck_assert(!json_object_object_get_ex(o, "op_mod", NULL));
	ck_assert(!json_object_object_get_ex(get(o, "in.op_param"), "query", NULL));
	json_object_put(o);
	free(s);
}
END_TEST

/* CREATE_UMEM: the MTT list is the nested umem's flexible array, decoded
 * by field name, never shown as bytes past the layout. */
START_TEST(umem_mtt_list)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_umem_in) + 2 * 8] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_umem_out)] = { 0 };
	void *umem = PRM_ADDR_OF(create_umem_in, in, umem);
	struct json_object *o;
	char *s;

	PRM_SET(create_umem_in, in, opcode, MLX5_CMD_OP_CREATE_UMEM);
	PRM_SET(create_umem_in, in, uid, 2);
	PRM_SET64(umem, umem, num_of_mtt, 2);
	PRM_SET(umem, umem, page_offset, 0x40);
	/* two 4 KiB pages at 0x7f0000001000, the second read-only */
	memcpy(PRM_ARRAY_ADDR(umem, umem, mtt, 0),
	       "\x00\x00\x7f\x00\x00\x00\x10\x03", 8);
	memcpy(PRM_ARRAY_ADDR(umem, umem, mtt, 1),
	       "\x00\x00\x7f\x00\x00\x00\x20\x01", 8);
	PRM_SET(create_umem_out, out, umem_id, 5);
	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_TEXT, true);
	ck_assert_str_eq(s, "mlx5_0 #7 CREATE_UMEM uid=0x2 op_mod=0x0 "
			 "in{umem.page_offset=0x40 umem.num_of_mtt=0x2 "
			 "umem.mtt[0].ptag_63_32=0x7f00 umem.mtt[0].ptag_31_8=0x10 "
			 "umem.mtt[0].wr_en=0x1 umem.mtt[0].rd_en=0x1 "
			 "umem.mtt[1].ptag_63_32=0x7f00 umem.mtt[1].ptag_31_8=0x20 "
			 "umem.mtt[1].rd_en=0x1} -> OK out{umem_id=0x5} 1.5us\n");
	free(s);
	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_JSON, true);
	o = parse(s);
	ck_assert_str_eq(json_object_get_string(get(o, "in_struct")), "create_umem_in");
	ck_assert_int_eq(json_object_get_int(get(o, "in.umem.mtt.1.wr_en")), 0);
	ck_assert(!json_object_object_get_ex(o, "in_extra", NULL));
	json_object_put(o);
	free(s);
}
END_TEST

START_TEST(unknown_opcode)
{
	uint8_t in[24] = { 0x12, 0x34 };	/* mbox_in is 16 bytes */
	uint8_t out[16] = { 0x02, 0, 0, 0, 0xee, 0, 0, 0x01 };
	char *s;

	in[16] = 0xde;
	in[17] = 0xad;

	s = fmt_cmd(in, sizeof(in), out, sizeof(out), EMU_TRACE_TEXT, true);
	ck_assert_str_eq(s, "mlx5_0 #7 0x1234 uid=0x0 op_mod=0x0 in{} +dead000000000000 "
			 "-> BAD_OP(0x2) syndrome=0xee000001(BAD_OPCODE) out{} 1.5us\n");
	free(s);
}
END_TEST

START_TEST(format_struct_lines)
{
	uint8_t cqc[PRM_ST_SZ_BYTES(cqc)] = { 0 };
	char *s;

	PRM_SET(cqc, cqc, log_cq_size, 8);
	PRM_SET(cqc, cqc, c_eqn, 3);
	s = emu_trace_format_struct(prm_struct_find("cqc"), cqc, sizeof(cqc), 0,
				    0, EMU_TRACE_LINES, true, false, NULL);
	ck_assert_str_eq(s, "  log_cq_size = 0x8\n  c_eqn = 0x3\n");
	free(s);
	s = emu_trace_format_struct(prm_struct_find("cqc"), cqc, sizeof(cqc), 0,
				    0, EMU_TRACE_TEXT, true, false, NULL);
	ck_assert_str_eq(s, "log_cq_size=0x8 c_eqn=0x3");
	free(s);
	errno = 0;
	ck_assert_ptr_null(emu_trace_format_struct(NULL, cqc, 4, 0, 0,
						   EMU_TRACE_TEXT, true, false, NULL));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(emu_trace_format_cmd(NULL, EMU_TRACE_TEXT, true, NULL));
}
END_TEST

/* MANA/GDMA layouts are little-endian: the same walk reads each dword
 * from its least significant bit (bytes written here by hand). */
START_TEST(format_struct_little_endian)
{
	/* mana_rxcomp_oob: cqe_type 2 in dword 0, rx_hashtype 0x1b6 at bits
	 * 24:16 of dword 1, ppi[0].pkt_len 1514 at byte 8 */
	uint8_t oob[60] = { [0] = 0x02, [6] = 0xb6, [7] = 0x01, [8] = 0xea, [9] = 0x05 };
	char *s;

	s = emu_trace_format_struct(prm_struct_find("mana_rxcomp_oob"), oob, sizeof(oob),
				    0, 0, EMU_TRACE_TEXT, true, false, NULL);
	ck_assert_str_eq(s, "cqe_hdr.cqe_type=0x2 rx_hashtype=0x1b6 ppi[0].pkt_len=0x5ea");
	free(s);
	s = emu_trace_format_struct(prm_struct_find("mana_rxcomp_oob"), oob, sizeof(oob),
				    0, 0, EMU_TRACE_JSON, true, false, NULL);
	ck_assert_ptr_nonnull(strstr(s, "\"rx_hashtype\":438,"));
	ck_assert_ptr_nonnull(strstr(s, "\"ppi\":[{\"pkt_len\":1514,"));
	free(s);
}
END_TEST

START_TEST(names)
{
	ck_assert_int_eq(emu_trace_opcode_parse("CREATE_CQ"), 0x400);
	ck_assert_int_eq(emu_trace_opcode_parse("create_cq"), 0x400);
	ck_assert_int_eq(emu_trace_opcode_parse("MLX5_CMD_OP_CREATE_CQ"), 0x400);
	ck_assert_int_eq(emu_trace_opcode_parse("0x400"), 0x400);
	ck_assert_int_eq(emu_trace_opcode_parse("1024"), 0x400);
	ck_assert_int_eq(emu_trace_opcode_parse("2ERR_QP"), 0x507);
	ck_assert_int_eq(emu_trace_opcode_parse("nope"), -1);
	ck_assert_int_eq(emu_trace_opcode_parse("0x10000"), -1);
	ck_assert_int_eq(emu_trace_opcode_parse(""), -1);
	ck_assert_str_eq(emu_trace_opcode_name(0x400), "CREATE_CQ");
	ck_assert_ptr_null(emu_trace_opcode_name(0x1234));
	ck_assert_str_eq(emu_trace_status_name(0), "OK");
	ck_assert_str_eq(emu_trace_status_name(3), "BAD_PARAM");
	ck_assert_str_eq(emu_trace_status_name(0x40), "BAD_SIZE_OUTS_CQES");
	ck_assert_str_eq(emu_trace_status_name(0x6), "RES_BUSY");
	ck_assert_ptr_null(emu_trace_status_name(0x99));
	ck_assert_str_eq(emu_trace_syndrome_name(0x001870AD), "CQ_IN_USE");
	ck_assert_str_eq(emu_trace_syndrome_name(0xEE0000FF), "INJECTED");
	ck_assert_ptr_null(emu_trace_syndrome_name(0));
	ck_assert_ptr_null(emu_trace_syndrome_name(0x42));
	ck_assert_str_eq(emu_trace_obj_type_name(MLX5_OBJ_TYPE_CQ), "CQ");
	ck_assert_ptr_null(emu_trace_obj_type_name(0x7777));
}
END_TEST

START_TEST(parse_spec)
{
	struct emu_trace_config c;
	char why[128];

	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(emu_trace_parse("text", &c, why, sizeof(why)), 0);
	ck_assert(c.on);
	ck_assert_int_eq(c.fmt, EMU_TRACE_TEXT);
	ck_assert_str_eq(c.file, "");
	ck_assert_int_eq(emu_trace_parse("JSON:/tmp/t.jsonl", &c, why, sizeof(why)), 0);
	ck_assert(c.on);
	ck_assert_int_eq(c.fmt, EMU_TRACE_JSON);
	ck_assert_str_eq(c.file, "/tmp/t.jsonl");
	ck_assert_int_eq(emu_trace_parse("text:a:b", &c, why, sizeof(why)), 0);
	ck_assert_str_eq(c.file, "a:b");
	ck_assert_int_eq(emu_trace_parse("1", &c, why, sizeof(why)), 0);
	ck_assert(c.on);
	ck_assert_int_eq(emu_trace_parse("off", &c, why, sizeof(why)), 0);
	ck_assert(!c.on);
	ck_assert_int_eq(emu_trace_parse("0", &c, why, sizeof(why)), 0);
	ck_assert(!c.on);
	ck_assert_int_eq(emu_trace_parse("", &c, why, sizeof(why)), 0);
	ck_assert(!c.on);
	ck_assert_int_eq(emu_trace_parse("xml", &c, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "off, text or json"));
	ck_assert_int_eq(emu_trace_parse("text:", &c, why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(emu_trace_parse("off:/tmp/x", &c, why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(emu_trace_parse(":/tmp/x", &c, why, sizeof(why)), -EINVAL);
}
END_TEST

static Suite *trace_fmt_suite(void)
{
	Suite *s = suite_create("trace_fmt");
	TCase *tc = tcase_create("fmt");

	tcase_add_test(tc, layouts_by_opcode);
	tcase_add_test(tc, every_described_opcode_resolves);
	tcase_add_test(tc, text_ok_exact);
	tcase_add_test(tc, text_failure_exact);
	tcase_add_test(tc, text_injected_and_unknown_syndrome);
	tcase_add_test(tc, fault_annotations);
	tcase_add_test(tc, text_no_elision);
	tcase_add_test(tc, json_fields);
	tcase_add_test(tc, json_failure);
	tcase_add_test(tc, errno_without_outbox);
	tcase_add_test(tc, union_by_op_mod);
	tcase_add_test(tc, union_modify_cq);
	tcase_add_test(tc, byte_arrays_as_hex);
	tcase_add_test(tc, flexible_array_capped);
	tcase_add_test(tc, short_mailboxes);
	tcase_add_test(tc, general_object_context);
	tcase_add_test(tc, umem_mtt_list);
	tcase_add_test(tc, unknown_opcode);
	tcase_add_test(tc, format_struct_lines);
	tcase_add_test(tc, format_struct_little_endian);
	tcase_add_test(tc, names);
	tcase_add_test(tc, parse_spec);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_fmt_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
