/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_devx_alloc_uar / free_uar as libmlx5 44 behaves: flags other than
 * BF (0) or NC (1) are EOPNOTSUPP; NC is the context's singleton
 * (reg_addr = base_addr + 0x800, free_uar a no-op); BF hands out dedicated
 * BlueFlame registers, two per UAR page, reused after free_uar.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "devx_test.h"

#define BF_OFFSET 0x800

static struct ibv_context *ctx;

static void setup(void)
{
	ctx = dt_open(true);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

static uint32_t bf_reg_size(void)
{
	uint8_t caps[DT_CAP_OUTLEN];

	ck_assert_int_eq(dt_query_gen_caps(ctx, caps), 0);
	return 1u << DT_CAP(caps, log_bf_reg_size);
}

START_TEST(test_nc_singleton)
{
	struct mlx5dv_devx_uar *a, *b;

	a = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	ck_assert_msg(a, "alloc_uar(NC): %s", strerror(errno));
	b = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	ck_assert_ptr_eq(a, b);
	ck_assert_uint_ne(a->page_id, 0);
	ck_assert_ptr_nonnull(a->base_addr);
	ck_assert_ptr_eq(a->reg_addr, (char *)a->base_addr + BF_OFFSET);
	ck_assert_int_eq(a->mmap_off % 4096, 0);
	ck_assert_uint_eq(a->comp_mask, 0);
	/* Freeing it does nothing, however often. */
	mlx5dv_devx_free_uar(a);
	mlx5dv_devx_free_uar(b);
	b = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	ck_assert_ptr_eq(a, b);
	ck_assert_uint_ne(b->page_id, 0);
}
END_TEST

/* The page is writable and is the page of cmd_fd at mmap_off. */
START_TEST(test_nc_mapping)
{
	struct mlx5dv_devx_uar *u = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	volatile uint64_t *reg;
	uint64_t *again;

	ck_assert_ptr_nonnull(u);
	reg = u->reg_addr;
	*reg = 0x0102030405060708ull;	/* a doorbell: a plain 64-bit store */
	again = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd,
		     u->mmap_off);
	ck_assert_ptr_ne(again, MAP_FAILED);
	ck_assert_uint_eq(again[BF_OFFSET / 8], 0x0102030405060708ull);
	munmap(again, 4096);
}
END_TEST

START_TEST(test_nc_per_context)
{
	struct ibv_context *c2 = dt_open(false);
	struct mlx5dv_devx_uar *a, *b;

	a = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	b = mlx5dv_devx_alloc_uar(c2, MLX5DV_UAR_ALLOC_TYPE_NC);
	ck_assert_ptr_nonnull(a);
	ck_assert_msg(b, "plain context: alloc_uar(NC): %s", strerror(errno));
	ck_assert_ptr_ne(a, b);
	ck_assert_uint_ne(a->page_id, b->page_id);
	ck_assert_int_eq(ibv_close_device(c2), 0);
}
END_TEST

START_TEST(test_bf_two_per_page)
{
	struct mlx5dv_devx_uar *nc, *a, *b, *c;
	uint32_t reg_size = bf_reg_size();

	nc = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	a = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	ck_assert_msg(a, "alloc_uar(BF): %s", strerror(errno));
	b = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	c = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(c);

	ck_assert_uint_ne(a->page_id, 0);
	ck_assert_uint_ne(a->page_id, nc->page_id);
	ck_assert_ptr_eq(a->reg_addr, (char *)a->base_addr + BF_OFFSET);
	/* The page's second register. */
	ck_assert_ptr_eq(b->base_addr, a->base_addr);
	ck_assert_uint_eq(b->page_id, a->page_id);
	ck_assert_int_eq(b->mmap_off, a->mmap_off);
	ck_assert_ptr_eq(b->reg_addr, (char *)a->base_addr + BF_OFFSET + reg_size);
	/* A new page. */
	ck_assert_ptr_ne(c->base_addr, a->base_addr);
	ck_assert_uint_ne(c->page_id, a->page_id);
	ck_assert_int_ne(c->mmap_off, a->mmap_off);
	ck_assert_ptr_eq(c->reg_addr, (char *)c->base_addr + BF_OFFSET);

	/* Writable. */
	*(volatile uint64_t *)a->reg_addr = 1;
	*(volatile uint64_t *)b->reg_addr = 2;
	mlx5dv_devx_free_uar(a);
	mlx5dv_devx_free_uar(b);
	mlx5dv_devx_free_uar(c);
}
END_TEST

/* Freed registers go back to the pool (at its tail) and are reused. */
START_TEST(test_bf_reuse)
{
	struct mlx5dv_devx_uar *a, *b, *c, *d, *e;

	a = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	b = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	mlx5dv_devx_free_uar(a);
	c = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	ck_assert_ptr_eq(c, a);
	mlx5dv_devx_free_uar(b);
	mlx5dv_devx_free_uar(c);
	/* FIFO: b was freed first. */
	d = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	e = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	ck_assert_ptr_eq(d, b);
	ck_assert_ptr_eq(e, a);
	/* A second free of one register does not hand it out twice. */
	mlx5dv_devx_free_uar(d);
	mlx5dv_devx_free_uar(d);
	a = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	b = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	ck_assert_ptr_eq(a, d);
	ck_assert_ptr_ne(b, d);
	ck_assert_ptr_ne(b, e);
	mlx5dv_devx_free_uar(NULL);
}
END_TEST

/* A BF UAR's page_id is usable in a CQ, as the NC one is. */
START_TEST(test_bf_in_cq)
{
	struct mlx5dv_devx_uar *bf = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)];
	uint8_t qout[PRM_ST_SZ_BYTES(query_cq_out)];
	struct dt_cq cq = { 0 };

	ck_assert_ptr_nonnull(bf);
	dt_umem_reg(ctx, &cq.buf, 4096, 4096);
	dt_umem_reg(ctx, &cq.dbr, 8, 8);
	dt_cq_fill_in(ctx, &cq, in, 6);
	PRM_SET(create_cq_in, in, cq_context.uar_page, bf->page_id);
	cq.obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), cq.out, sizeof(cq.out));
	ck_assert_msg(cq.obj, "CREATE_CQ: %s, status 0x%x, syndrome 0x%x",
		      strerror(errno), DT_OUT_STATUS(cq.out),
		      DT_OUT_SYNDROME(cq.out));
	cq.cqn = PRM_GET(create_cq_out, cq.out, cqn);
	ck_assert_int_eq(dt_cq_query(&cq, qout, sizeof(qout)), 0);
	ck_assert_uint_eq(PRM_GET(query_cq_out, qout, cq_context.uar_page),
			  bf->page_id);
	dt_cq_destroy(&cq);
	mlx5dv_devx_free_uar(bf);
}
END_TEST

static const uint32_t bad_flags[] = { 2, 3, 7, 1u << 31, 0xffffffff };

START_TEST(test_bad_flags)
{
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_alloc_uar(ctx, bad_flags[_i]));
	ck_assert_int_eq(errno, EOPNOTSUPP);
}
END_TEST

static Suite *devx_uar_suite(void)
{
	Suite *s = suite_create("devx_uar");
	TCase *tc = tcase_create("uar");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_nc_singleton);
	tcase_add_test(tc, test_nc_mapping);
	tcase_add_test(tc, test_nc_per_context);
	tcase_add_test(tc, test_bf_two_per_page);
	tcase_add_test(tc, test_bf_reuse);
	tcase_add_test(tc, test_bf_in_cq);
	tcase_add_loop_test(tc, test_bad_flags, 0,
			    sizeof(bad_flags) / sizeof(bad_flags[0]));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(devx_uar_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
