/* SPDX-License-Identifier: MIT */
/*
 * The public library, as an application uses it: an ordinary program linked
 * against libmlx5emu.so.1 and the drop-in libmlx5.so.1/libibverbs.so.1.
 * The rules it adds reach what rdma-core's own API returns: DEVX calls see
 * EREMOTEIO and the outbox, destroys and verbs see the mapped errno.
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <mlx5emu/mlx5emu.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "ut_env.h"

static struct ibv_context *ctx;

static struct ibv_context *open_mlx5_0(void)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *c;

	ck_assert_ptr_nonnull(list);
	ck_assert_ptr_nonnull(list[0]);
	ck_assert_str_eq(ibv_get_device_name(list[0]), "mlx5_0");
	c = mlx5dv_open_device(list[0], &attr);
	ck_assert_msg(c, "mlx5dv_open_device: %s", strerror(errno));
	ibv_free_device_list(list);
	return c;
}

static void setup(void)
{
	ut_clear_env();
	ctx = open_mlx5_0();
}

static void teardown(void)
{
	mlx5emu_fault_clear();
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

static int add(const char *rule)
{
	int id = mlx5emu_fault_add(rule);

	ck_assert_msg(id > 0, "%s: %d %s", rule, id, mlx5emu_fault_last_error());
	return id;
}

/* ---- the API ---- */

START_TEST(api_rule_set)
{
	struct mlx5emu_fault_rule r;
	struct mlx5emu_fault_stats st;
	char buf[128];
	int ids[4], a, b;

	mlx5emu_fault_clear();
	a = add("fail opcode=create_cq syndrome=CQ_IN_USE nth=2");
	ck_assert_str_eq(mlx5emu_fault_last_error(), "");
#define A_TEXT "fail opcode=CREATE_CQ syndrome=CQ_IN_USE nth=2"
	ck_assert_int_eq(mlx5emu_fault_format(a, buf, sizeof(buf)),
			 (int)strlen(A_TEXT));
	ck_assert_str_eq(buf, A_TEXT);
	memset(&r, 0, sizeof(r));
	r.action = MLX5EMU_FAULT_DELAY;
	r.delay_ms = 2;
	r.match = MLX5EMU_FAULT_MATCH_OPCODE | MLX5EMU_FAULT_MATCH_USER;
	r.opcode = MLX5_CMD_OP_QUERY_CQ;
	r.trigger = MLX5EMU_FAULT_EVERY;
	r.n = 4;
	b = mlx5emu_fault_add_rule(&r);
	ck_assert_int_eq(b, a + 1);
#define B_TEXT "delay opcode=QUERY_CQ uid=user ms=2 every=4"
	ck_assert_int_eq(mlx5emu_fault_format(b, buf, sizeof(buf)),
			 (int)strlen(B_TEXT));
	ck_assert_str_eq(buf, B_TEXT);
	ck_assert_int_eq(mlx5emu_fault_list(NULL, 0), 2);
	ck_assert_int_eq(mlx5emu_fault_list(ids, 1), 2);
	ck_assert_int_eq(ids[0], a);
	ck_assert_int_eq(mlx5emu_fault_count(a), 0);
	ck_assert_int_eq(mlx5emu_fault_stats(b, &st), 0);
	ck_assert_uint_eq(st.matches, 0);
	/* parse: the struct the text means, nothing added. */
	ck_assert_int_eq(mlx5emu_fault_parse("delay uid=user every=4 ms=2 "
					     "opcode=QUERY_CQ", &r), 0);
	ck_assert_uint_eq(r.delay_ms, 2);
	ck_assert_int_eq(mlx5emu_fault_list(NULL, 0), 2);
	/* Errors: negative errno and the message. */
	ck_assert_int_eq(mlx5emu_fault_add("fail opcode=CREATE_CQX"), -EINVAL);
	ck_assert_str_eq(mlx5emu_fault_last_error(),
			 "fault rule \"fail opcode=CREATE_CQX\": bad opcode "
			 "\"CREATE_CQX\": expected a command name such as "
			 "CREATE_CQ, or a number from 0 to 0xffff");
	ck_assert_int_eq(mlx5emu_fault_add(NULL), -EINVAL);
	ck_assert_str_eq(mlx5emu_fault_last_error(), "no rule text");
	ck_assert_int_eq(mlx5emu_fault_parse("fail every=0", &r), -EINVAL);
	ck_assert_str_eq(mlx5emu_fault_last_error(), "fault rule \"fail every=0\": "
			 "bad every \"0\": expected a positive integer");
	r.reserved[0] = 1;
	ck_assert_int_eq(mlx5emu_fault_add_rule(&r), -EINVAL);
	ck_assert_str_eq(mlx5emu_fault_last_error(),
			 "fault rule: reserved fields must be 0");
	ck_assert_int_eq(mlx5emu_fault_add_rule(NULL), -EINVAL);
	ck_assert_int_eq(mlx5emu_fault_remove(a), 0);
	ck_assert_str_eq(mlx5emu_fault_last_error(), "");
	ck_assert_int_eq(mlx5emu_fault_remove(a), -ENOENT);
	ck_assert_str_eq(mlx5emu_fault_last_error(), "no fault rule 1");
	ck_assert_int_eq(mlx5emu_fault_count(a), -ENOENT);
	ck_assert_int_eq(mlx5emu_fault_stats(a, &st), -ENOENT);
	ck_assert_int_eq(mlx5emu_fault_format(a, buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(mlx5emu_fault_format(b, NULL, 5), -EINVAL);
	ck_assert_int_eq(mlx5emu_fault_format(b, NULL, 0), (int)strlen(B_TEXT));
	ck_assert_int_eq(mlx5emu_fault_list(NULL, 3), -EINVAL);
	ck_assert_int_eq(mlx5emu_fault_list(ids, -1), -EINVAL);
	mlx5emu_fault_clear();
	ck_assert_int_eq(mlx5emu_fault_list(NULL, 0), 0);
}
END_TEST

/* ---- DEVX: EREMOTEIO and the outbox ---- */

static struct mlx5dv_devx_obj *devx_pd(uint8_t *out, size_t outlen)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };

	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	memset(out, 0xa5, outlen);
	return mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, outlen);
}

START_TEST(devx_create_and_destroy)
{
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)];
	struct mlx5dv_devx_obj *pd[3];
	int fail_second, busy;

	fail_second = add("fail opcode=ALLOC_PD uid=user syndrome=PD_LIMIT nth=2");
	pd[0] = devx_pd(out, sizeof(out));
	ck_assert_ptr_nonnull(pd[0]);
	errno = 0;
	pd[1] = devx_pd(out, sizeof(out));
	ck_assert_ptr_null(pd[1]);
	ck_assert_int_eq(errno, EREMOTEIO);
	ck_assert_uint_eq(PRM_GET(mbox_out, out, status), MLX5_CMD_STAT_LIM_ERR);
	ck_assert_uint_eq(PRM_GET(mbox_out, out, syndrome), 0xee000401);
	for (size_t i = 8; i < sizeof(out); i++)
		ck_assert_uint_eq(out[i], 0);
	pd[2] = devx_pd(out, sizeof(out));
	ck_assert_ptr_nonnull(pd[2]);
	ck_assert_int_eq(mlx5emu_fault_count(fail_second), 1);

	/* Destroy: the kernel's errno for the status, the object stays. */
	busy = add("fail opcode=DEALLOC_PD status=RES_BUSY limit=1");
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(pd[0]), EBUSY);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(pd[0]), 0);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(pd[2]), 0);
	ck_assert_int_eq(mlx5emu_fault_count(busy), 1);
}
END_TEST

START_TEST(devx_general_cmd)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_hca_cap_out)];

	add("fail opcode=QUERY_HCA_CAP status=BAD_SYS_STATE syndrome=0xabad1dea "
	    "every=2");
	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, 1);
	ck_assert_int_eq(mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out,
						 sizeof(out)), 0);
	ck_assert_int_eq(mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out,
						 sizeof(out)), EREMOTEIO);
	ck_assert_uint_eq(PRM_GET(mbox_out, out, status),
			  MLX5_CMD_STAT_BAD_SYS_STATE_ERR);
	ck_assert_uint_eq(PRM_GET(mbox_out, out, syndrome), 0xabad1dea);
}
END_TEST

/*
 * umem registration is CREATE_UMEM under the caller's uid: a rule fails
 * it, and mlx5dv_devx_umem_reg gives NULL with the errno mlx5_cmd_exec
 * makes of the status (no outbox reaches the caller); DESTROY_UMEM alike.
 */
START_TEST(devx_umem_reg)
{
	static uint8_t buf[8192] __attribute__((aligned(4096)));
	struct mlx5dv_devx_umem *u;
	int bad, lim, busy;

	bad = add("fail opcode=CREATE_UMEM uid=user status=BAD_PARAM nth=1");
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_umem_reg(ctx, buf, sizeof(buf),
						IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EINVAL);
	lim = add("fail opcode=CREATE_UMEM syndrome=UMEM_LIMIT nth=1");
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_umem_reg(ctx, buf, sizeof(buf),
						IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, ENOMEM);
	u = mlx5dv_devx_umem_reg(ctx, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(u);
	busy = add("fail opcode=DESTROY_UMEM status=RES_BUSY limit=1");
	ck_assert_int_eq(mlx5dv_devx_umem_dereg(u), EBUSY);
	ck_assert_int_eq(mlx5dv_devx_umem_dereg(u), 0);
	ck_assert_int_eq(mlx5emu_fault_count(bad), 1);
	ck_assert_int_eq(mlx5emu_fault_count(lim), 1);
	ck_assert_int_eq(mlx5emu_fault_count(busy), 1);
}
END_TEST

/* ---- verbs: the mapped errno ---- */

START_TEST(verbs_pd)
{
	struct ibv_pd *pd;
	int lim, busy;

	lim = add("fail opcode=ALLOC_PD status=LIM nth=1");
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_pd(ctx));
	ck_assert_int_eq(errno, ENOMEM);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	busy = add("fail opcode=DEALLOC_PD status=BAD_RES_STATE nth=1");
	ck_assert_int_eq(ibv_dealloc_pd(pd), EINVAL);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(mlx5emu_fault_count(lim), 1);
	ck_assert_int_eq(mlx5emu_fault_count(busy), 1);
}
END_TEST

/* Opening a device: the kernel's CREATE_UCTX. */
START_TEST(verbs_open)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	add("fail opcode=CREATE_UCTX status=NO_RES nth=1");
	errno = 0;
	ck_assert_ptr_null(ibv_open_device(list[0]));
	ck_assert_int_eq(errno, EAGAIN);
	ibv_free_device_list(list);
}
END_TEST

/* MLX5EMU_FAULTS: read when the rule engine starts. */
START_TEST(env_rules)
{
	struct ibv_context *c;
	struct ibv_pd *pd;
	char buf[64];
	int ids[2];

	/* A fresh process: the engine has not started yet. */
	ut_clear_env();
	setenv("MLX5EMU_FAULTS", "fail opcode=ALLOC_PD status=LIM limit=1", 1);
	c = open_mlx5_0();
	ck_assert_int_eq(mlx5emu_fault_list(ids, 2), 1);
	ck_assert_int_eq(mlx5emu_fault_format(ids[0], buf, sizeof(buf)),
			 (int)strlen("fail opcode=ALLOC_PD status=LIM limit=1"));
	ck_assert_str_eq(buf, "fail opcode=ALLOC_PD status=LIM limit=1");
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_pd(c));
	ck_assert_int_eq(errno, ENOMEM);
	pd = ibv_alloc_pd(c);
	ck_assert_ptr_nonnull(pd);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(c), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fault_public");
	TCase *tc = tcase_create("public");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, api_rule_set);
	tcase_add_test(tc, devx_create_and_destroy);
	tcase_add_test(tc, devx_umem_reg);
	tcase_add_test(tc, devx_general_cmd);
	tcase_add_test(tc, verbs_pd);
	tcase_add_test(tc, verbs_open);
	suite_add_tcase(s, tc);
	tc = tcase_create("env");
	tcase_add_test(tc, env_rules);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
