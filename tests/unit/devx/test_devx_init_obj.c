/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_init_obj as libmlx5 44: no known object type is EINVAL; unknown
 * bits beside a known type are ignored; MLX5DV_OBJ_PD gives the pdn, which
 * shares the firmware's PD numbering with DEVX (ALLOC_PD) PDs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devx_test.h"

static struct ibv_context *ctx;

static void setup(void)
{
	ctx = dt_open(true);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

START_TEST(test_no_known_type)
{
	struct mlx5dv_obj obj;

	memset(&obj, 0, sizeof(obj));
	ck_assert_int_eq(mlx5dv_init_obj(&obj, 0), EINVAL);
	ck_assert_int_eq(mlx5dv_init_obj(&obj, 1u << 7), EINVAL);
	ck_assert_int_eq(mlx5dv_init_obj(&obj, 1ull << 40), EINVAL);
}
END_TEST

START_TEST(test_pd)
{
	struct ibv_pd *pd1 = ibv_alloc_pd(ctx), *pd2 = ibv_alloc_pd(ctx);
	struct mlx5dv_pd dv1 = { .comp_mask = 0xff }, dv2 = { 0 };
	struct mlx5dv_devx_obj *dpd;
	struct mlx5dv_obj obj;
	uint32_t devx_pdn;

	ck_assert_ptr_nonnull(pd1);
	ck_assert_ptr_nonnull(pd2);
	memset(&obj, 0, sizeof(obj));
	obj.pd.in = pd1;
	obj.pd.out = &dv1;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD), 0);
	ck_assert_uint_ne(dv1.pdn, 0);
	ck_assert_uint_eq(dv1.comp_mask, 0);
	/* Unknown bits beside PD are ignored. */
	obj.pd.in = pd2;
	obj.pd.out = &dv2;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD | (1u << 7)), 0);
	ck_assert_uint_ne(dv2.pdn, 0);
	ck_assert_uint_ne(dv1.pdn, dv2.pdn);
	/* One numbering with DEVX PDs. */
	dpd = dt_pd_alloc(ctx, &devx_pdn);
	ck_assert_uint_ne(devx_pdn, dv1.pdn);
	ck_assert_uint_ne(devx_pdn, dv2.pdn);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(dpd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd1), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("devx_init_obj");
	TCase *tc = tcase_create("init_obj");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_no_known_type);
	tcase_add_test(tc, test_pd);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
