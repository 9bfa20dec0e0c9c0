/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "shell/abi_export.h"

#include "ut_core.h"

MLX5EMU_ABI(ibv_get_device_list);
MLX5EMU_ABI(ibv_free_device_list);
MLX5EMU_ABI(ibv_open_device);
MLX5EMU_ABI(ibv_close_device);

struct ibv_context *ut_core_open(void)
{
	struct ibv_context *ctx;
	struct ibv_device **list;
	int n;

	list = mlx5emu_abi_ibv_get_device_list(&n);
	ck_assert_ptr_nonnull(list);
	ck_assert_int_ge(n, 1);
	ctx = mlx5emu_abi_ibv_open_device(list[0]);
	ck_assert_msg(ctx, "open: %s", strerror(errno));
	mlx5emu_abi_ibv_free_device_list(list);
	return ctx;
}

void ut_core_close(struct ibv_context *ctx)
{
	ck_assert_int_eq(mlx5emu_abi_ibv_close_device(ctx), 0);
}
