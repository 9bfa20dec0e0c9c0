/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_devx_umem_reg / umem_reg_ex / umem_dereg: good paths, the
 * libmlx5 checks (comp_mask, dma-buf fd) and the kernel's (access flags,
 * size, page sizes, mapped and writable memory, umems in use).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

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

static void *map_pages(size_t n, int prot)
{
	void *p = mmap(NULL, n * 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

START_TEST(test_reg_page_aligned)
{
	struct dt_umem a, b;

	dt_umem_reg(ctx, &a, 16384, 4096);
	dt_umem_reg(ctx, &b, 16384, 4096);
	ck_assert_uint_ne(a.umem->umem_id, 0);
	ck_assert_uint_ne(a.umem->umem_id, b.umem->umem_id);
	dt_umem_dereg(&a);
	dt_umem_dereg(&b);
}
END_TEST

/* Doorbell records: 8 bytes, 8-byte aligned, inside someone's page. */
START_TEST(test_reg_small_unaligned)
{
	char *page = map_pages(1, PROT_READ | PROT_WRITE);
	struct mlx5dv_devx_umem *u;

	u = mlx5dv_devx_umem_reg(ctx, page + 0x148, 8, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_msg(u, "umem_reg: %s", strerror(errno));
	ck_assert_int_eq(mlx5dv_devx_umem_dereg(u), 0);
	munmap(page, 4096);
}
END_TEST

START_TEST(test_reg_all_access)
{
	struct mlx5dv_devx_umem *u;
	char *p = map_pages(1, PROT_READ | PROT_WRITE);

	u = mlx5dv_devx_umem_reg(ctx, p, 4096, IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				 IBV_ACCESS_RELAXED_ORDERING);
	ck_assert_msg(u, "umem_reg: %s", strerror(errno));
	ck_assert_int_eq(mlx5dv_devx_umem_dereg(u), 0);
	/* Read-only memory may be registered without write access. */
	ck_assert_int_eq(mprotect(p, 4096, PROT_READ), 0);
	u = mlx5dv_devx_umem_reg(ctx, p, 4096, 0);
	ck_assert_msg(u, "umem_reg: %s", strerror(errno));
	ck_assert_int_eq(mlx5dv_devx_umem_dereg(u), 0);
	munmap(p, 4096);
}
END_TEST

START_TEST(test_reg_unmapped)
{
	char *p = map_pages(2, PROT_READ | PROT_WRITE);

	ck_assert_int_eq(munmap(p + 4096, 4096), 0);
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_umem_reg(ctx, p + 4096, 4096,
						IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EFAULT);
	/* A range that only starts in mapped memory. */
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_umem_reg(ctx, p, 8192,
						IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EFAULT);
	munmap(p, 4096);
}
END_TEST

/* Writable access to read-only memory: pinning for write faults. */
START_TEST(test_reg_readonly_for_write)
{
	char *p = map_pages(1, PROT_READ);

	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_umem_reg(ctx, p, 4096,
						IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EFAULT);
	munmap(p, 4096);
}
END_TEST

START_TEST(test_reg_zero_size)
{
	char *p = map_pages(1, PROT_READ | PROT_WRITE);

	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_umem_reg(ctx, p, 0, IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EINVAL);
	munmap(p, 4096);
}
END_TEST

/* Flags the kernel's DEVX umem method does not take, and ib_check_mr_access. */
static const uint32_t bad_access[] = {
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND,
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ZERO_BASED,
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND,
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC,
	IBV_ACCESS_REMOTE_WRITE,		/* without LOCAL_WRITE */
	1u << 30,
};

START_TEST(test_reg_bad_access)
{
	char *p = map_pages(1, PROT_READ | PROT_WRITE);

	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_umem_reg(ctx, p, 4096, bad_access[_i]));
	ck_assert_int_eq(errno, EINVAL);
	munmap(p, 4096);
}
END_TEST

START_TEST(test_reg_ex_good)
{
	char *p = map_pages(4, PROT_READ | PROT_WRITE);
	struct mlx5dv_devx_umem_in in = {
		.addr = p, .size = 16384, .access = IBV_ACCESS_LOCAL_WRITE,
		.pgsz_bitmap = 4096, .comp_mask = 0, .dmabuf_fd = -1,
	};
	struct mlx5dv_devx_umem *u;

	u = mlx5dv_devx_umem_reg_ex(ctx, &in);
	ck_assert_msg(u, "umem_reg_ex: %s", strerror(errno));
	ck_assert_int_eq(mlx5dv_devx_umem_dereg(u), 0);
	/* Several sizes offered: the kernel picks one. */
	in.pgsz_bitmap = UINT64_MAX & ~4095ull;
	u = mlx5dv_devx_umem_reg_ex(ctx, &in);
	ck_assert_msg(u, "umem_reg_ex: %s", strerror(errno));
	ck_assert_int_eq(mlx5dv_devx_umem_dereg(u), 0);
	munmap(p, 16384);
}
END_TEST

/* No page size in [4 KiB, the umem's size] to use: EINVAL. */
static const uint64_t bad_pgsz[] = {
	0,
	0x800,			/* below the adapter's 4 KiB */
	1ull << 21,		/* above a 16 KiB umem */
};

START_TEST(test_reg_ex_bad_pgsz)
{
	char *p = map_pages(4, PROT_READ | PROT_WRITE);
	struct mlx5dv_devx_umem_in in = {
		.addr = p, .size = 16384, .access = IBV_ACCESS_LOCAL_WRITE,
		.pgsz_bitmap = bad_pgsz[_i],
	};

	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_umem_reg_ex(ctx, &in));
	ck_assert_int_eq(errno, EINVAL);
	munmap(p, 16384);
}
END_TEST

START_TEST(test_reg_ex_comp_mask)
{
	char *p = map_pages(1, PROT_READ | PROT_WRITE);
	struct mlx5dv_devx_umem_in in = {
		.addr = p, .size = 4096, .access = IBV_ACCESS_LOCAL_WRITE,
		.pgsz_bitmap = 4096, .comp_mask = 1u << 1,
	};

	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_umem_reg_ex(ctx, &in));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	in.comp_mask = MLX5DV_UMEM_MASK_DMABUF | (1ull << 63);
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_umem_reg_ex(ctx, &in));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	munmap(p, 4096);
}
END_TEST

START_TEST(test_reg_ex_dmabuf)
{
	struct mlx5dv_devx_umem_in in = {
		.addr = 0, .size = 4096, .access = IBV_ACCESS_LOCAL_WRITE,
		.pgsz_bitmap = 4096, .comp_mask = MLX5DV_UMEM_MASK_DMABUF,
		.dmabuf_fd = -1,
	};
	int fd;

	/* libmlx5: fd -1 is EBADF. */
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_umem_reg_ex(ctx, &in));
	ck_assert_int_eq(errno, EBADF);
	/* A closed fd: EBADF, as dma_buf_get() says. */
	fd = eventfd(0, 0);
	ck_assert_int_ge(fd, 0);
	close(fd);
	in.dmabuf_fd = fd;
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_umem_reg_ex(ctx, &in));
	ck_assert_int_eq(errno, EBADF);
	/* An open fd: the emulated device imports no dma-buf. */
	fd = eventfd(0, 0);
	in.dmabuf_fd = fd;
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_umem_reg_ex(ctx, &in));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	close(fd);
}
END_TEST

/* A umem an object uses cannot go: firmware refuses DESTROY_UMEM (bad
 * resource state, which mlx5_cmd_exec makes EINVAL), and it stays. */
START_TEST(test_dereg_in_use)
{
	uint8_t out[PRM_ST_SZ_BYTES(query_cq_out)];
	struct dt_cq cq;

	dt_cq_create(ctx, &cq, 6);
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_umem_dereg(cq.buf.umem), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(mlx5dv_devx_umem_dereg(cq.dbr.umem), EINVAL);
	ck_assert_int_eq(dt_cq_query(&cq, out, sizeof(out)), 0);
	dt_cq_destroy(&cq);
}
END_TEST

/*
 * Registered without IBV_ACCESS_LOCAL_WRITE, a umem is read-only to the
 * device (its MTT entries lack wr_en): a CQ's ring there is refused, as
 * the device could never write a CQE; its doorbell record there is fine
 * (the device only reads it).
 */
START_TEST(test_cq_ring_read_only)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)];
	struct dt_umem ro;
	struct dt_cq cq;

	memset(&cq, 0, sizeof(cq));
	dt_umem_reg_access(ctx, &ro, 4096, 4096, 0);
	dt_umem_reg(ctx, &cq.buf, 4096, 4096);
	dt_umem_reg(ctx, &cq.dbr, 8, 8);
	dt_cq_fill_in(ctx, &cq, in, 6);
	PRM_SET(create_cq_in, in, cq_umem_id, ro.umem->umem_id);
	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_obj_create(ctx, in, sizeof(in), cq.out,
						  sizeof(cq.out)));
	ck_assert_int_eq(errno, EREMOTEIO);
	ck_assert_uint_eq(DT_OUT_STATUS(cq.out), MLX5_CMD_STAT_BAD_PARAM_ERR);
	ck_assert_uint_eq(DT_OUT_SYNDROME(cq.out), DT_SYND_UMEM_NOT_WRITABLE);

	PRM_SET(create_cq_in, in, cq_umem_id, cq.buf.umem->umem_id);
	PRM_SET(create_cq_in, in, cq_context.dbr_umem_id, ro.umem->umem_id);
	cq.obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), cq.out,
					sizeof(cq.out));
	ck_assert_msg(cq.obj, "CREATE_CQ: %s, syndrome 0x%x", strerror(errno),
		      DT_OUT_SYNDROME(cq.out));
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(cq.obj), 0);
	dt_umem_dereg(&ro);
	dt_umem_dereg(&cq.buf);
	dt_umem_dereg(&cq.dbr);
}
END_TEST

static Suite *devx_umem_suite(void)
{
	Suite *s = suite_create("devx_umem");
	TCase *tc = tcase_create("umem");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_reg_page_aligned);
	tcase_add_test(tc, test_reg_small_unaligned);
	tcase_add_test(tc, test_reg_all_access);
	tcase_add_test(tc, test_reg_unmapped);
	tcase_add_test(tc, test_reg_readonly_for_write);
	tcase_add_test(tc, test_reg_zero_size);
	tcase_add_loop_test(tc, test_reg_bad_access, 0,
			    sizeof(bad_access) / sizeof(bad_access[0]));
	tcase_add_test(tc, test_reg_ex_good);
	tcase_add_loop_test(tc, test_reg_ex_bad_pgsz, 0,
			    sizeof(bad_pgsz) / sizeof(bad_pgsz[0]));
	tcase_add_test(tc, test_reg_ex_comp_mask);
	tcase_add_test(tc, test_reg_ex_dmabuf);
	tcase_add_test(tc, test_dereg_in_use);
	tcase_add_test(tc, test_cq_ring_read_only);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(devx_umem_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
