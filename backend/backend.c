/* SPDX-License-Identifier: MIT */
/*
 * Binding the provider to one backend per process.  This is the only place
 * that names an implementation: the provider reaches a device through
 * mlx5be_get() alone.
 */
#include "backend/backend.h"
#include "backend/backend_impl.h"

const struct mlx5be_ops *mlx5be_get(void)
{
	return &mlx5be_emu_ops;
}
