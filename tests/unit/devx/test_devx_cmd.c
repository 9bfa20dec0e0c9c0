/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_devx_general_cmd, obj_create/query/modify/destroy and query_eqn
 * over the drop-in libraries: good paths, and each bad input with its exact
 * errno, status and syndrome.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devx_test.h"

/* In the kernel's general class (0xb00..0xcff) but no command at all. */
#define DT_UNKNOWN_GENERAL_OPCODE 0xcff

static struct ibv_context *ctx;

static void setup(void)
{
	ctx = dt_open(true);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

/* ---- general commands ---- */

START_TEST(test_general_query_hca_cap)
{
	uint8_t out[DT_CAP_OUTLEN];

	ck_assert_int_eq(dt_query_gen_caps(ctx, out), 0);
	ck_assert_int_eq(DT_OUT_STATUS(out), 0);
	ck_assert_int_eq(DT_OUT_SYNDROME(out), 0);
	ck_assert_int_eq(DT_CAP(out, port_type), 1);	/* Ethernet */
	ck_assert_int_eq(DT_CAP(out, num_ports), 1);
	ck_assert_uint_gt(DT_CAP(out, log_max_cq_sz), 0);
}
END_TEST

/* rdma-core 44 asks for a DEVX uid on every context. */
START_TEST(test_general_plain_context)
{
	struct ibv_context *plain = dt_open(false);
	uint8_t out[DT_CAP_OUTLEN];

	ck_assert_int_eq(dt_query_gen_caps(plain, out), 0);
	ck_assert_int_eq(DT_OUT_STATUS(out), 0);
	ck_assert_int_eq(ibv_close_device(plain), 0);
}
END_TEST

START_TEST(test_general_unknown_opcode)
{
	uint8_t in[16] = { 0 }, out[16];

	memset(out, 0xa5, sizeof(out));
	PRM_SET(mbox_in, in, opcode, DT_UNKNOWN_GENERAL_OPCODE);
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out,
						 sizeof(out)), EREMOTEIO);
	ck_assert_int_eq(errno, EREMOTEIO);
	ck_assert_int_eq(DT_OUT_STATUS(out), MLX5_CMD_STAT_BAD_OP);
	ck_assert_uint_eq(DT_OUT_SYNDROME(out), DT_SYND_BAD_OPCODE);
}
END_TEST

START_TEST(test_general_bad_outlen)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 }, out[16];

	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, HCA_CAP_OPMOD_GET_CUR);
	ck_assert_int_eq(mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out,
						 sizeof(out)), EREMOTEIO);
	ck_assert_int_eq(DT_OUT_STATUS(out), MLX5_CMD_STAT_BAD_OUTP_LEN);
	ck_assert_uint_eq(DT_OUT_SYNDROME(out), DT_SYND_BAD_OUTLEN);
}
END_TEST

/* Opcodes outside the general class never reach firmware: EINVAL. */
static const uint16_t not_general[] = {
	MLX5_CMD_OP_CREATE_CQ,	/* create class */
	MLX5_CMD_OP_QUERY_CQ,	/* object query */
	MLX5_CMD_OP_CREATE_EQ,	/* kernel-only */
	MLX5_CMD_OP_ALLOC_UAR,	/* kernel-only */
};

START_TEST(test_general_not_general)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)];

	PRM_SET(mbox_in, in, opcode, not_general[_i]);
	memset(out, 0, sizeof(out));
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out,
						 sizeof(out)), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(DT_OUT_STATUS(out), 0);	/* firmware never saw it */
}
END_TEST

/* Mailboxes shorter than a command header: EINVAL (uverbs min size). */
START_TEST(test_general_short_mailbox)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t out[DT_CAP_OUTLEN];

	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, HCA_CAP_OPMOD_GET_CUR);
	ck_assert_int_eq(mlx5dv_devx_general_cmd(ctx, in, 8, out, sizeof(out)),
			 EINVAL);
	ck_assert_int_eq(mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, 8),
			 EINVAL);
}
END_TEST

/* ---- objects ---- */

START_TEST(test_obj_pd)
{
	struct mlx5dv_devx_obj *pd1, *pd2;
	uint32_t pdn1, pdn2;

	pd1 = dt_pd_alloc(ctx, &pdn1);
	pd2 = dt_pd_alloc(ctx, &pdn2);
	ck_assert_uint_ne(pdn1, 0);
	ck_assert_uint_ne(pdn1, pdn2);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(pd1), 0);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(pd2), 0);
}
END_TEST

START_TEST(test_obj_cq_lifecycle)
{
	uint8_t qout[PRM_ST_SZ_BYTES(query_cq_out)];
	uint8_t min[PRM_ST_SZ_BYTES(modify_cq_in)] = { 0 };
	uint8_t mout[PRM_ST_SZ_BYTES(modify_cq_out)];
	struct dt_cq cq;

	dt_cq_create(ctx, &cq, 8);
	ck_assert_uint_ne(cq.cqn, 0);

	ck_assert_int_eq(dt_cq_query(&cq, qout, sizeof(qout)), 0);
	ck_assert_int_eq(DT_OUT_STATUS(qout), 0);
	ck_assert_uint_eq(PRM_GET(query_cq_out, qout, cq_context.log_cq_size), 8);
	ck_assert_uint_eq(PRM_GET(query_cq_out, qout, cq_context.uar_page),
			  cq.uar_page);
	ck_assert_uint_eq(PRM_GET(query_cq_out, qout, cq_context.c_eqn), cq.eqn);
	ck_assert_uint_eq(PRM_GET(query_cq_out, qout, cq_context.dbr_umem_id),
			  cq.dbr.umem->umem_id);

	/* Moderation: period and count (modify_field_select bits 0 and 1). */
	PRM_SET(modify_cq_in, min, opcode, MLX5_CMD_OP_MODIFY_CQ);
	PRM_SET(modify_cq_in, min, cqn, cq.cqn);
	PRM_SET(modify_cq_in, min,
		modify_field_select_resize_field_select.modify_field_select.modify_field_select,
		0x3);
	PRM_SET(modify_cq_in, min, cq_context.cq_period, 16);
	PRM_SET(modify_cq_in, min, cq_context.cq_max_count, 32);
	memset(mout, 0xa5, sizeof(mout));
	ck_assert_int_eq(mlx5dv_devx_obj_modify(cq.obj, min, sizeof(min), mout,
						sizeof(mout)), 0);
	ck_assert_int_eq(DT_OUT_STATUS(mout), 0);

	ck_assert_int_eq(dt_cq_query(&cq, qout, sizeof(qout)), 0);
	ck_assert_uint_eq(PRM_GET(query_cq_out, qout, cq_context.cq_period), 16);
	ck_assert_uint_eq(PRM_GET(query_cq_out, qout, cq_context.cq_max_count), 32);
	ck_assert_uint_eq(PRM_GET(query_cq_out, qout, cq_context.log_cq_size), 8);

	dt_cq_destroy(&cq);
}
END_TEST

/* Only create-class opcodes create objects. */
static const uint16_t not_create[] = {
	MLX5_CMD_OP_QUERY_HCA_CAP,
	MLX5_CMD_OP_DESTROY_CQ,
	MLX5_CMD_OP_QUERY_CQ,
	MLX5_CMD_OP_CREATE_EQ,
	DT_UNKNOWN_GENERAL_OPCODE,
};

START_TEST(test_obj_create_not_create)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)] = { 0 };

	PRM_SET(mbox_in, in, opcode, not_create[_i]);
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_obj_create(ctx, in, sizeof(in), out,
						  sizeof(out)));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(DT_OUT_STATUS(out), 0);
}
END_TEST

START_TEST(test_obj_create_vhca_tunnel)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };

	PRM_SET(general_obj_in_cmd_hdr, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	PRM_SET(general_obj_in_cmd_hdr, in, vhca_tunnel_id, 1);
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_obj_create(ctx, in, sizeof(in), out,
						  sizeof(out)));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* A firmware error: NULL, EREMOTEIO, the outbox copied back. */
START_TEST(test_obj_create_cq_too_large)
{
	uint8_t caps[DT_CAP_OUTLEN];
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)];
	struct dt_cq cq = { 0 };

	ck_assert_int_eq(dt_query_gen_caps(ctx, caps), 0);
	dt_umem_reg(ctx, &cq.buf, 4096, 4096);
	dt_umem_reg(ctx, &cq.dbr, 8, 8);
	dt_cq_fill_in(ctx, &cq, in, DT_CAP(caps, log_max_cq_sz) + 1);
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_obj_create(ctx, in, sizeof(in), cq.out,
						  sizeof(cq.out)));
	ck_assert_int_eq(errno, EREMOTEIO);
	ck_assert_int_eq(DT_OUT_STATUS(cq.out), MLX5_CMD_STAT_BAD_PARAM);
	ck_assert_uint_eq(DT_OUT_SYNDROME(cq.out), DT_SYND_CQ_BAD_SIZE);
	dt_umem_dereg(&cq.buf);
	dt_umem_dereg(&cq.dbr);
}
END_TEST

/*
 * An EQ that is no completion EQ: the kernel's mlx5_create_cq() looks it up
 * (mlx5_eqn2comp_eq) before firmware sees the command: ENOENT, and the
 * outbox is not written.
 */
START_TEST(test_obj_create_cq_bad_eqn)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)];
	struct dt_cq cq = { 0 };

	dt_umem_reg(ctx, &cq.buf, 4096, 4096);
	dt_umem_reg(ctx, &cq.dbr, 8, 8);
	dt_cq_fill_in(ctx, &cq, in, 6);
	PRM_SET(create_cq_in, in, cq_context.c_eqn, (cq.eqn + 0x80) & 0xff);
	memset(cq.out, 0, sizeof(cq.out));
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_obj_create(ctx, in, sizeof(in), cq.out,
						  sizeof(cq.out)));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(DT_OUT_STATUS(cq.out), 0);
	ck_assert_uint_eq(DT_OUT_SYNDROME(cq.out), 0);
	dt_umem_dereg(&cq.buf);
	dt_umem_dereg(&cq.dbr);
}
END_TEST

START_TEST(test_obj_query_bad)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];
	uint8_t out[PRM_ST_SZ_BYTES(query_cq_out)];
	struct dt_cq cq;

	dt_cq_create(ctx, &cq, 6);

	/* Another object's id. */
	dt_cq_query_in(&cq, in);
	PRM_SET(query_cq_in, in, cqn, cq.cqn + 1);
	ck_assert_int_eq(mlx5dv_devx_obj_query(cq.obj, in, sizeof(in), out,
					       sizeof(out)), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	/* The same id under another object type's query. */
	dt_cq_query_in(&cq, in);
	PRM_SET(mbox_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	ck_assert_int_eq(mlx5dv_devx_obj_query(cq.obj, in, sizeof(in), out,
					       sizeof(out)), EINVAL);
	/* Not a query. */
	dt_cq_query_in(&cq, in);
	PRM_SET(mbox_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	ck_assert_int_eq(mlx5dv_devx_obj_query(cq.obj, in, sizeof(in), out,
					       sizeof(out)), EINVAL);
	dt_cq_query_in(&cq, in);
	PRM_SET(mbox_in, in, opcode, MLX5_CMD_OP_DESTROY_CQ);
	ck_assert_int_eq(mlx5dv_devx_obj_query(cq.obj, in, sizeof(in), out,
					       sizeof(out)), EINVAL);
	/* vhca_tunnel_id. */
	dt_cq_query_in(&cq, in);
	PRM_SET(general_obj_in_cmd_hdr, in, vhca_tunnel_id, 3);
	ck_assert_int_eq(mlx5dv_devx_obj_query(cq.obj, in, sizeof(in), out,
					       sizeof(out)), EINVAL);
	/* Firmware: outbox too short for the answer. */
	dt_cq_query_in(&cq, in);
	ck_assert_int_eq(mlx5dv_devx_obj_query(cq.obj, in, sizeof(in), out, 16),
			 EREMOTEIO);
	ck_assert_int_eq(DT_OUT_STATUS(out), MLX5_CMD_STAT_BAD_OUTP_LEN);
	ck_assert_uint_eq(DT_OUT_SYNDROME(out), DT_SYND_BAD_OUTLEN);

	/* Nothing above changed the CQ. */
	ck_assert_int_eq(dt_cq_query(&cq, out, sizeof(out)), 0);
	ck_assert_uint_eq(PRM_GET(query_cq_out, out, cq_context.log_cq_size), 6);
	dt_cq_destroy(&cq);
}
END_TEST

START_TEST(test_obj_modify_bad)
{
	uint8_t in[PRM_ST_SZ_BYTES(modify_cq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(modify_cq_out)];
	struct dt_cq cq;

	dt_cq_create(ctx, &cq, 6);
	PRM_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	PRM_SET(modify_cq_in, in, cqn, cq.cqn + 1);
	ck_assert_int_eq(mlx5dv_devx_obj_modify(cq.obj, in, sizeof(in), out,
						sizeof(out)), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	PRM_SET(modify_cq_in, in, cqn, cq.cqn);
	PRM_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_QUERY_CQ);
	ck_assert_int_eq(mlx5dv_devx_obj_modify(cq.obj, in, sizeof(in), out,
						sizeof(out)), EINVAL);
	PRM_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	ck_assert_int_eq(mlx5dv_devx_obj_modify(cq.obj, in, sizeof(in), out,
						sizeof(out)), EINVAL);
	dt_cq_destroy(&cq);
}
END_TEST

/*
 * A PD an mkey still uses: DEALLOC_PD fails in firmware (PD_IN_USE, bad
 * resource state), which the kernel maps to EINVAL; the PD stays and goes
 * once the mkey is gone.
 */
START_TEST(test_obj_destroy_in_use)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_mkey_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_mkey_out)] = { 0 };
	struct mlx5dv_devx_obj *pd, *mkey;
	struct dt_umem mem;
	uint32_t pdn;

	pd = dt_pd_alloc(ctx, &pdn);
	dt_umem_reg(ctx, &mem, 8192, 4096);

	PRM_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	PRM_SET(create_mkey_in, in, memory_key_mkey_entry.access_mode_1_0,
		MLX5_MKC_ACCESS_MODE_MTT);
	PRM_SET(create_mkey_in, in, memory_key_mkey_entry.lr, 1);
	PRM_SET(create_mkey_in, in, memory_key_mkey_entry.lw, 1);
	PRM_SET(create_mkey_in, in, memory_key_mkey_entry.qpn, 0xffffff);
	PRM_SET(create_mkey_in, in, memory_key_mkey_entry.mkey_7_0, 0x42);
	PRM_SET(create_mkey_in, in, memory_key_mkey_entry.pd, pdn);
	PRM_SET64(create_mkey_in, in, memory_key_mkey_entry.start_addr,
		  (uintptr_t)mem.buf);
	PRM_SET64(create_mkey_in, in, memory_key_mkey_entry.len, mem.size);
	PRM_SET(create_mkey_in, in, memory_key_mkey_entry.log_page_size, 12);
	PRM_SET(create_mkey_in, in, mkey_umem_valid, 1);
	PRM_SET(create_mkey_in, in, mkey_umem_id, mem.umem->umem_id);
	mkey = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_msg(mkey, "CREATE_MKEY: %s, status 0x%x, syndrome 0x%x",
		      strerror(errno), DT_OUT_STATUS(out), DT_OUT_SYNDROME(out));

	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(pd), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	/* The umem under the mkey cannot go either. */
	ck_assert_int_eq(mlx5dv_devx_umem_dereg(mem.umem), EINVAL);

	ck_assert_int_eq(mlx5dv_devx_obj_destroy(mkey), 0);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(pd), 0);
	dt_umem_dereg(&mem);
}
END_TEST

/* Objects left to the context go with it (the kernel destroys them). */
START_TEST(test_obj_left_at_close)
{
	struct ibv_context *c2 = dt_open(true);
	struct dt_cq cq;
	uint32_t pdn;

	dt_cq_create(c2, &cq, 6);
	(void)dt_pd_alloc(c2, &pdn);
	ck_assert_int_eq(ibv_close_device(c2), 0);
	free(cq.buf.buf);
	free(cq.dbr.buf);
}
END_TEST

/* ---- EQ numbers ---- */

START_TEST(test_query_eqn)
{
	uint32_t eqn = 0xffffffff, eqn2;

	ck_assert_int_eq(mlx5dv_devx_query_eqn(ctx, 0, &eqn), 0);
	ck_assert_uint_ne(eqn, 0xffffffff);
	ck_assert_int_eq(mlx5dv_devx_query_eqn(ctx, 0, &eqn2), 0);
	ck_assert_uint_eq(eqn, eqn2);
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_query_eqn(ctx, ctx->num_comp_vectors, &eqn2),
			 EINVAL);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

static Suite *devx_cmd_suite(void)
{
	Suite *s = suite_create("devx_cmd");
	TCase *tc;

	tc = tcase_create("general");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_general_query_hca_cap);
	tcase_add_test(tc, test_general_plain_context);
	tcase_add_test(tc, test_general_unknown_opcode);
	tcase_add_test(tc, test_general_bad_outlen);
	tcase_add_loop_test(tc, test_general_not_general, 0,
			    sizeof(not_general) / sizeof(not_general[0]));
	tcase_add_test(tc, test_general_short_mailbox);
	suite_add_tcase(s, tc);

	tc = tcase_create("obj");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_obj_pd);
	tcase_add_test(tc, test_obj_cq_lifecycle);
	tcase_add_loop_test(tc, test_obj_create_not_create, 0,
			    sizeof(not_create) / sizeof(not_create[0]));
	tcase_add_test(tc, test_obj_create_vhca_tunnel);
	tcase_add_test(tc, test_obj_create_cq_too_large);
	tcase_add_test(tc, test_obj_create_cq_bad_eqn);
	tcase_add_test(tc, test_obj_query_bad);
	tcase_add_test(tc, test_obj_modify_bad);
	tcase_add_test(tc, test_obj_destroy_in_use);
	tcase_add_test(tc, test_obj_left_at_close);
	suite_add_tcase(s, tc);

	tc = tcase_create("eqn");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_query_eqn);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(devx_cmd_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
