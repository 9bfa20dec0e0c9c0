/* SPDX-License-Identifier: MIT */
/*
 * The context's file descriptors as rdma-core programs use them:
 * ibv_import_device(dup(cmd_fd)) gives a context on the same device that
 * shares the original's objects (a PD allocated in one is a PD the other's
 * DEVX objects can name), mmap(cmd_fd, mmap_off) reaches a UAR page, and
 * async_fd is pollable and honours O_NONBLOCK; mlx5dv_open_device
 * accepts only what libmlx5 44 accepts.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verbs_test.h"

START_TEST(test_import_shares_objects)
{
	struct ibv_context *ctx = vt_open(true), *imp;
	struct ibv_device_attr a, b;
	struct ibv_pd *pd;
	uint32_t synd;
	int fd = dup(ctx->cmd_fd);

	ck_assert_int_ge(fd, 0);
	imp = ibv_import_device(fd);
	ck_assert_msg(imp, "import: %s", strerror(errno));
	ck_assert_ptr_eq(imp->device, ctx->device);
	ck_assert_int_eq(imp->cmd_fd, fd);
	ck_assert_int_eq(ibv_query_device(imp, &a), 0);
	ck_assert_int_eq(ibv_query_device(ctx, &b), 0);
	ck_assert(a.node_guid == b.node_guid);
	/* A PD of the original is usable from the imported context. */
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	ck_assert_int_eq(vt_devx_mkey_in_pd(imp, vt_pdn(pd), &synd), 0);
	/* Closing the original first leaves the imported context working. */
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ck_assert_int_eq(ibv_query_device(imp, &a), 0);
	pd = ibv_alloc_pd(imp);
	ck_assert_ptr_nonnull(pd);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(imp), 0);
}
END_TEST

START_TEST(test_import_bad_fd)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	/* rdma-core 44: a descriptor that is not a uverbs file is EINVAL. */
	errno = 0;
	ck_assert_ptr_null(ibv_import_device(p[0]));
	ck_assert_int_eq(errno, EINVAL);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(test_cmd_fd_maps_uar)
{
	struct ibv_context *ctx = vt_open(true);
	struct mlx5dv_devx_uar *uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	volatile uint64_t *mine, *theirs;
	void *map;

	ck_assert_msg(uar, "alloc_uar: %s", strerror(errno));
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd,
		   uar->mmap_off);
	ck_assert_ptr_ne(map, MAP_FAILED);
	/* The application's own mapping and the library's are one page. */
	mine = (volatile uint64_t *)((char *)map + 0x800);
	theirs = (volatile uint64_t *)((char *)uar->base_addr + 0x800);
	*mine = 0x1122334455667788ull;
	ck_assert(*theirs == 0x1122334455667788ull);
	munmap(map, 4096);
	mlx5dv_devx_free_uar(uar);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(test_async_fd_nonblock)
{
	struct ibv_context *ctx = vt_open(false);
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	int flags = fcntl(ctx->async_fd, F_GETFL);

	ck_assert_int_eq(poll(&pfd, 1, 0), 0);	/* pollable, nothing yet */
	ck_assert_int_eq(fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK), 0);
	errno = 0;
	ck_assert_int_eq(ibv_get_async_event(ctx, &ev), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* mlx5dv_open_device as libmlx5 44: only the DEVX flag, no comp_mask. */
START_TEST(test_dv_open_flags)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX << 1 };
	struct ibv_context *c;

	ck_assert_ptr_nonnull(list);
	ck_assert(mlx5dv_is_supported(list[0]));
	errno = 0;
	ck_assert_ptr_null(mlx5dv_open_device(list[0], &attr));
	ck_assert_int_eq(errno, EINVAL);
	attr.flags = MLX5DV_CONTEXT_FLAGS_DEVX;
	attr.comp_mask = 1;
	errno = 0;
	ck_assert_ptr_null(mlx5dv_open_device(list[0], &attr));
	ck_assert_int_eq(errno, EINVAL);
	attr.comp_mask = 0;
	c = mlx5dv_open_device(list[0], &attr);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(ibv_close_device(c), 0);
	ibv_free_device_list(list);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("import");
	TCase *tc = tcase_create("fds");

	tcase_add_test(tc, test_import_shares_objects);
	tcase_add_test(tc, test_import_bad_fd);
	tcase_add_test(tc, test_cmd_fd_maps_uar);
	tcase_add_test(tc, test_async_fd_nonblock);
	tcase_add_test(tc, test_dv_open_flags);
	suite_add_tcase(s, tc);
	return vt_run(s) ? 1 : 0;
}
