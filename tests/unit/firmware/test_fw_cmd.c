/* SPDX-License-Identifier: MIT */
/*
 * The firmware's command interface: header checks, outbox layout, hooks,
 * and the syndrome table itself.
 */
#include <errno.h>
#include <stdlib.h>

#include "fw_test_util.h"

static struct emu_fw *fw;

static void setup(void)
{
	fw = fwt_create(NULL);
}

static void teardown(void)
{
	emu_fw_destroy(fw);
	fw = NULL;
}

/* ---- the syndrome table ---- */

START_TEST(synd_table_sane)
{
	unsigned int cited = 0, emu = 0;

	ck_assert_uint_eq(fw_syndrome_get(FW_SYND_OK)->status, 0);
	ck_assert_uint_eq(fw_syndrome_get(FW_SYND_OK)->value, 0);
	ck_assert_ptr_null(fw_syndrome_get(FW_SYND_COUNT));
	for (int i = 1; i < FW_SYND_COUNT; i++) {
		const struct fw_syndrome *s = fw_syndrome_get(i);

		ck_assert_int_eq(s->id, i);
		ck_assert_uint_ne(s->status, MLX5_CMD_STAT_OK);
		ck_assert_str_ne(prm_status_str(s->status), "unknown status");
		ck_assert(s->text && *s->text && s->source && *s->source);
		/* values are unique, so a syndrome decodes to one entry */
		ck_assert_ptr_eq(fw_syndrome_find(s->value), s);
		ck_assert_ptr_eq(fw_syndrome_by_name(s->name), s);
		if (fw_syndrome_is_cited(s)) {
			cited++;
			/* public syndromes are 24-bit, never in our range */
			ck_assert_uint_lt(s->value, 1u << 24);
		} else {
			emu++;
			ck_assert_uint_eq(s->value & FW_SYND_EMU_MASK,
					  FW_SYND_EMU_BASE);
		}
	}
	ck_assert_uint_ge(cited, 5);
	ck_assert_uint_eq(cited + emu, FW_SYND_COUNT - 1);
}
END_TEST

/* The cited entries keep the exact values of their public logs. */
START_TEST(synd_table_cited_values)
{
	static const struct {
		enum fw_synd id;
		uint8_t status;
		uint32_t value;
	} want[] = {
		{ FW_SYND_PD_IN_USE, 0x9, 0x31b635 },
		{ FW_SYND_CQ_IN_USE, 0x9, 0x1870ad },
		{ FW_SYND_MKEY_LIMIT, 0x8, 0x18af6 },
		{ FW_SYND_MKEY_ZERO_LEN, 0x3, 0x3bf6f },
		{ FW_SYND_EQ_BAD_EVENT_TYPE, 0x3, 0x8fef },
		{ FW_SYND_QP_INVALID_QPN, 0x9, 0x7ea02d },
		{ FW_SYND_QP_NO_RESOURCES, 0x5, 0x65b500 },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct fw_syndrome *s = fw_syndrome_get(want[i].id);

		ck_assert_uint_eq(s->status, want[i].status);
		ck_assert_uint_eq(s->value, want[i].value);
		ck_assert(fw_syndrome_is_cited(s));
	}
}
END_TEST

/* ---- header checks ---- */

START_TEST(cmd_bad_opcode)
{
	struct fwt_mbox m;

	fwt_mbox_init(&m, 0x0fff, 0, 0, 16, 16);
	ck_assert_uint_eq(fwt_exec(fw, &m), MLX5_CMD_STAT_BAD_OP_ERR);
	ck_fw_synd(&m, BAD_OPCODE);
	/* a real opcode this device does not implement */
	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_XRQ, 0, 0, 0x110, 16);
	ck_assert_uint_eq(fwt_exec(fw, &m), MLX5_CMD_STAT_BAD_OP_ERR);
	ck_fw_synd(&m, OPCODE_NOT_SUPPORTED);
	ck_assert_int_eq(emu_fw_cmd_info(MLX5_CMD_OP_CREATE_XRQ, NULL),
			 -ENOENT);
}
END_TEST

START_TEST(cmd_bad_lengths)
{
	struct fwt_mbox m;

	/* CREATE_CQ needs its 272-byte inbox (pas[] may follow). */
	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_CQ, 0, 0,
		      PRM_ST_SZ_BYTES(create_cq_in) - 4, 16);
	ck_assert_uint_eq(fwt_exec(fw, &m), MLX5_CMD_STAT_BAD_INP_LEN_ERR);
	ck_fw_synd(&m, BAD_INLEN);
	/* QUERY_CQ answers a 272-byte outbox. */
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_CQ, 0, 0, 16,
		      PRM_ST_SZ_BYTES(query_cq_out) - 1);
	ck_assert_uint_eq(fwt_exec(fw, &m), MLX5_CMD_STAT_BAD_OUTP_LEN_ERR);
	ck_fw_synd(&m, BAD_OUTLEN);
	/* an inbox too short for a header */
	fwt_mbox_init(&m, MLX5_CMD_OP_ALLOC_PD, 0, 0, 4, 16);
	ck_assert_uint_eq(fwt_exec(fw, &m), MLX5_CMD_STAT_BAD_INP_LEN_ERR);
	ck_fw_synd(&m, BAD_INLEN);
	/* nothing to answer into */
	ck_assert_int_eq(emu_fw_cmd_exec(fw, m.in, 16, m.out, 7), -EINVAL);
	ck_assert_int_eq(emu_fw_cmd_exec(fw, NULL, 16, m.out, 16), -EINVAL);
	ck_assert_int_eq(emu_fw_cmd_exec(fw, m.in, 16, m.in + 2, 16),
			 -EINVAL);
}
END_TEST

START_TEST(cmd_bad_op_mod)
{
	struct fwt_mbox m;

	fwt_mbox_init(&m, MLX5_CMD_OP_ALLOC_PD, 1, 0, 16, 16);
	ck_assert_uint_eq(fwt_exec(fw, &m), MLX5_CMD_STAT_BAD_PARAM_ERR);
	ck_fw_synd(&m, BAD_OP_MOD);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_PD), 0);
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_VPORT_STATE, 3, 0, 16, 16);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_OP_MOD);
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_VPORT_STATE, 2, 0, 16, 16);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
}
END_TEST

START_TEST(cmd_uid_rules)
{
	struct fwt_mbox m;
	uint16_t uid;

	/* an uid nobody allocated */
	fwt_mbox_init(&m, MLX5_CMD_OP_ALLOC_PD, 0, 77, 16, 16);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_UID);
	/* user contexts are the kernel's to create */
	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_UCTX, 0, 5,
		      PRM_ST_SZ_BYTES(create_uctx_in), 16);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UID_NOT_ALLOWED);

	uid = fwt_uctx(fw);
	ck_assert_uint_ne(uid, 0);
	ck_assert_uint_ne(fwt_pd(fw, uid), 0);
	/* a capability the device does not grant */
	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_UCTX, 0, 0,
		      PRM_ST_SZ_BYTES(create_uctx_in), 16);
	PRM_SET(create_uctx_in, m.in, uctx.cap, 1);	/* RAW_TX */
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UCTX_BAD_CAP);
}
END_TEST

START_TEST(cmd_outbox_layout)
{
	struct fwt_mbox m;
	const uint8_t *o = (const uint8_t *)m.out;
	uint32_t v = fw_syndrome_get(FW_SYND_BAD_OPCODE)->value;

	fwt_mbox_init(&m, 0x0abc, 0, 0, 16, 64);
	memset(m.out, 0xa5, sizeof(m.out));
	fwt_exec(fw, &m);
	/* status in byte 0, syndrome big-endian in bytes 4..7, rest 0 */
	ck_assert_uint_eq(o[0], MLX5_CMD_STAT_BAD_OP_ERR);
	ck_assert_uint_eq(o[1] | o[2] | o[3], 0);
	ck_assert_uint_eq(o[4], v >> 24);
	ck_assert_uint_eq(o[5], (v >> 16) & 0xff);
	ck_assert_uint_eq(o[6], (v >> 8) & 0xff);
	ck_assert_uint_eq(o[7], v & 0xff);
	for (int i = 8; i < 64; i++)
		ck_assert_uint_eq(o[i], 0);
	ck_assert_uint_eq(o[64], 0xa5);	/* nothing past outlen */
}
END_TEST

START_TEST(cmd_info)
{
	struct emu_fw_cmd_info info;

	ck_assert_int_eq(emu_fw_cmd_info(MLX5_CMD_OP_CREATE_CQ, &info), 0);
	ck_assert_int_eq(info.cls, EMU_FW_CMD_CREATE);
	ck_assert_int_eq(info.obj_type, EMU_FW_OBJ_CQ);
	ck_assert_uint_eq(info.destroy_opcode, MLX5_CMD_OP_DESTROY_CQ);
	ck_assert_uint_eq(info.min_inlen, PRM_ST_SZ_BYTES(create_cq_in));
	ck_assert_int_eq(emu_fw_cmd_info(MLX5_CMD_OP_QUERY_HCA_CAP, &info), 0);
	ck_assert_int_eq(info.cls, EMU_FW_CMD_GENERAL);
	ck_assert_int_eq(emu_fw_cmd_info(MLX5_CMD_OP_MODIFY_CQ, &info), 0);
	ck_assert_int_eq(info.cls, EMU_FW_CMD_MODIFY);
	ck_assert_int_eq(emu_fw_cmd_info(MLX5_CMD_OP_DEALLOC_PD, &info), 0);
	ck_assert_int_eq(info.cls, EMU_FW_CMD_DESTROY);
}
END_TEST

/* ---- hooks ---- */

struct hook_state {
	int pre, post;
	uint16_t fail_opcode;
	uint8_t status;
	uint32_t syndrome;
	uint8_t last_status;
};

static bool hook_pre(void *arg, const void *in, size_t inlen,
		     uint16_t opcode, uint16_t op_mod, uint16_t uid,
		     uint8_t *status, uint32_t *syndrome)
{
	struct hook_state *h = arg;

	h->pre++;
	if (opcode != h->fail_opcode)
		return false;
	*status = h->status;
	*syndrome = h->syndrome;
	return true;
}

static void hook_post(void *arg, const void *in, size_t inlen,
		      const void *out, size_t outlen)
{
	struct hook_state *h = arg;

	h->post++;
	h->last_status = emu_fw_out_status(out);
}

START_TEST(cmd_hooks_inject)
{
	struct hook_state h = {
		.fail_opcode = MLX5_CMD_OP_ALLOC_PD,
		.status = MLX5_CMD_STAT_LIM_ERR, .syndrome = 0x123456,
	};
	struct emu_fw_hooks hooks = {
		.pre_cmd = hook_pre, .post_cmd = hook_post, .arg = &h,
	};
	struct fwt_mbox m;

	emu_fw_set_hooks(fw, &hooks);
	fwt_mbox_init(&m, MLX5_CMD_OP_ALLOC_PD, 0, 0, 16, 16);
	ck_assert_uint_eq(fwt_exec(fw, &m), MLX5_CMD_STAT_LIM_ERR);
	ck_assert_uint_eq(emu_fw_out_syndrome(m.out), 0x123456);
	ck_assert_uint_eq(PRM_GET(alloc_pd_out, m.out, pd), 0);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_PD), 0);
	ck_assert_int_eq(h.pre, 1);
	ck_assert_int_eq(h.post, 1);
	ck_assert_uint_eq(h.last_status, MLX5_CMD_STAT_LIM_ERR);

	/* status 0 from a hook: the table's INJECTED entry */
	h.status = 0;
	fwt_exec(fw, &m);
	ck_fw_synd(&m, INJECTED);

	/* others pass; header errors never reach the hook */
	h.fail_opcode = 0xffff;
	ck_assert_uint_ne(fwt_pd(fw, 0), 0);
	ck_assert_int_eq(h.pre, 3);
	fwt_mbox_init(&m, 0x0fff, 0, 0, 16, 16);
	fwt_exec(fw, &m);
	ck_assert_int_eq(h.pre, 3);
	ck_assert_int_eq(h.post, 4);

	emu_fw_set_hooks(fw, NULL);
	ck_assert_uint_ne(fwt_pd(fw, 0), 0);
	ck_assert_int_eq(h.post, 4);
}
END_TEST

/* ---- creation ---- */

START_TEST(create_bad_config)
{
	struct emu_fw_config cfg;

	emu_fw_config_default(&cfg);
	cfg.num_ports = 0;
	errno = 0;
	ck_assert_ptr_null(emu_fw_create(&cfg));
	ck_assert_int_eq(errno, EINVAL);
	emu_fw_config_default(&cfg);
	cfg.num_ports = 3;
	ck_assert_ptr_null(emu_fw_create(&cfg));
	ck_assert_ptr_null(emu_fw_create(NULL));
	emu_fw_config_default(&cfg);
	cfg.num_ports = 2;
	fw = emu_fw_create(&cfg);
	ck_assert_ptr_nonnull(fw);
	ck_assert_uint_eq(emu_fw_config_get(fw)->num_ports, 2);
}
END_TEST

static Suite *fw_cmd_suite(void)
{
	Suite *s = suite_create("fw_cmd");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, synd_table_sane);
	tcase_add_test(tc, synd_table_cited_values);
	suite_add_tcase(s, tc);

	tc = tcase_create("dispatch");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, cmd_bad_opcode);
	tcase_add_test(tc, cmd_bad_lengths);
	tcase_add_test(tc, cmd_bad_op_mod);
	tcase_add_test(tc, cmd_uid_rules);
	tcase_add_test(tc, cmd_outbox_layout);
	tcase_add_test(tc, cmd_info);
	tcase_add_test(tc, cmd_hooks_inject);
	suite_add_tcase(s, tc);

	tc = tcase_create("create");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, create_bad_config);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fw_cmd_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
