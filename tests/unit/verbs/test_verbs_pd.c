/* SPDX-License-Identifier: MIT */
/*
 * ibv_alloc_pd / ibv_dealloc_pd: PDs are firmware PDs shared with DEVX
 * (mlx5dv_init_obj's pdn names a PD a DEVX mkey can use); dealloc of a PD
 * that MRs or AHs use is EBUSY and sends no command (firmware would answer
 * an in-use PD with BAD_RES_STATE, i.e. EINVAL; and an AH-only PD would
 * just go), after which the PD is still whole.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_test.h"

static struct ibv_context *ctx;

static void setup(void)
{
	ctx = vt_open(true);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

START_TEST(test_alloc_dealloc)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	uint32_t synd;

	ck_assert_msg(pd, "alloc_pd: %s", strerror(errno));
	ck_assert_ptr_eq(pd->context, ctx);
	ck_assert_uint_ne(vt_pdn(pd), 0);
	/* The pdn is a live firmware PD DEVX objects can name. */
	ck_assert_int_eq(vt_devx_mkey_in_pd(ctx, vt_pdn(pd), &synd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
}
END_TEST

START_TEST(test_pdn_gone_after_dealloc)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	uint32_t pdn, synd;

	ck_assert_ptr_nonnull(pd);
	pdn = vt_pdn(pd);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(vt_devx_mkey_in_pd(ctx, pdn, &synd), EREMOTEIO);
	ck_assert_uint_ne(synd, 0);
}
END_TEST

START_TEST(test_many_distinct)
{
	struct ibv_pd *pds[64];

	for (int i = 0; i < 64; i++) {
		pds[i] = ibv_alloc_pd(ctx);
		ck_assert_ptr_nonnull(pds[i]);
		for (int j = 0; j < i; j++) {
			ck_assert_uint_ne(vt_pdn(pds[i]), vt_pdn(pds[j]));
			ck_assert_uint_ne(pds[i]->handle, pds[j]->handle);
		}
	}
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(ibv_dealloc_pd(pds[i]), 0);
}
END_TEST

START_TEST(test_busy_with_mr)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	void *buf = vt_alloc(8192);
	struct ibv_mr *mr;
	uint32_t synd;

	ck_assert_ptr_nonnull(pd);
	mr = ibv_reg_mr(pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	errno = 0;
	ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);
	/* Still whole: new MRs and DEVX objects may use it. */
	ck_assert_int_eq(vt_devx_mkey_in_pd(ctx, vt_pdn(pd), &synd), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	free(buf);
}
END_TEST

START_TEST(test_busy_with_ah)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_ah_attr attr = { .is_global = 1, .port_num = 1 };
	struct ibv_ah *ah;
	uint32_t synd;

	ck_assert_ptr_nonnull(pd);
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 1, &attr.grh.dgid), 0);
	attr.grh.sgid_index = 1;
	attr.grh.hop_limit = 64;
	ah = ibv_create_ah(pd, &attr);
	ck_assert_msg(ah, "create_ah: %s", strerror(errno));
	ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);
	/* No DEALLOC_PD went out: the firmware PD is still there. */
	ck_assert_int_eq(vt_devx_mkey_in_pd(ctx, vt_pdn(pd), &synd), 0);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
}
END_TEST

START_TEST(test_busy_counts)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	void *buf = vt_alloc(4096);
	struct ibv_mr *mr[3];

	for (int i = 0; i < 3; i++) {
		mr[i] = ibv_reg_mr(pd, buf, 4096, 0);
		ck_assert_ptr_nonnull(mr[i]);
	}
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);
		ck_assert_int_eq(ibv_dereg_mr(mr[i]), 0);
	}
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	free(buf);
}
END_TEST

/* A failed registration leaves no use behind. */
START_TEST(test_failed_reg_no_use)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);

	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(pd, NULL, 4096, IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_ptr_null(ibv_create_ah(pd, &(struct ibv_ah_attr){ .port_num = 1 }));
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
}
END_TEST

/* Each context gets PDs of its own. */
START_TEST(test_two_contexts)
{
	struct ibv_context *ctx2 = vt_open(true);
	struct ibv_pd *a = ibv_alloc_pd(ctx), *b = ibv_alloc_pd(ctx2);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_ne(vt_pdn(a), vt_pdn(b));
	ck_assert_ptr_eq(b->context, ctx2);
	ck_assert_int_eq(ibv_dealloc_pd(b), 0);
	ck_assert_int_eq(ibv_close_device(ctx2), 0);
	ck_assert_int_eq(ibv_dealloc_pd(a), 0);
}
END_TEST

static Suite *pd_suite(void)
{
	Suite *s = suite_create("verbs_pd");
	TCase *tc = tcase_create("pd");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_alloc_dealloc);
	tcase_add_test(tc, test_pdn_gone_after_dealloc);
	tcase_add_test(tc, test_many_distinct);
	tcase_add_test(tc, test_busy_with_mr);
	tcase_add_test(tc, test_busy_with_ah);
	tcase_add_test(tc, test_busy_counts);
	tcase_add_test(tc, test_failed_reg_no_use);
	tcase_add_test(tc, test_two_contexts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(pd_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
