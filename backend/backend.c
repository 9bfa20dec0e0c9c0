/* SPDX-License-Identifier: MIT */
/*
 * Binding the provider to one backend per process.  This is the only place
 * that names an implementation: the provider reaches a device through
 * mlx5be_get() alone.
 *
 * The setting backend.kind chooses, read once at the first call (the first
 * enumeration or open, never a library constructor) through the emulator's
 * settings table (backend_impl.h says why there):
 *   emu   the emulated devices;
 *   hw    rdma-core's DEVX on real devices, through the filter (fault rules
 *         and the trace interposed above it); every problem is told on
 *         stderr once, and then the device list is empty;
 *   auto  hw when rdma-core loads and lists at least one mlx5 device,
 *         silently emu otherwise.
 * A bad configuration keeps emu, whose device initialisation reports it.
 *
 * MANA devices (backend/mana.h) exist only with emu: real MANA hardware is
 * driven by the stock libmana and kernel, so with hw the process lists none.
 */
#include <pthread.h>

#include <errno.h>

#include "backend/backend.h"
#include "backend/backend_impl.h"
#include "backend/mana.h"

static pthread_once_t mlx5be_once = PTHREAD_ONCE_INIT;
static const struct mlx5be_ops *mlx5be_bound;

static bool mlx5be_hw_has_devices(void)
{
	struct mlx5be_device_info info;

	return mlx5be_hw_ops.get_devices(&info, 1) > 0;
}

static void mlx5be_select(void)
{
	struct mlx5be_settings s;

	mlx5be_bound = &mlx5be_emu_ops;
	if (mlx5be_emu_settings(&s))
		return;
	switch (s.kind) {
	case MLX5BE_KIND_EMU:
		break;
	case MLX5BE_KIND_HW:
		mlx5be_hw_load(s.hw_libdir, true);
		mlx5be_bound = mlx5be_filter_bind(&mlx5be_hw_ops,
						  &mlx5be_emu_cmd_hooks);
		break;
	case MLX5BE_KIND_AUTO:
		if (!mlx5be_hw_load(s.hw_libdir, false) &&
		    mlx5be_hw_has_devices())
			mlx5be_bound = mlx5be_filter_bind(&mlx5be_hw_ops,
							  &mlx5be_emu_cmd_hooks);
		break;
	}
}

const struct mlx5be_ops *mlx5be_get(void)
{
	pthread_once(&mlx5be_once, mlx5be_select);
	return mlx5be_bound;
}

static int manabe_none_devices(struct mlx5be_device_info *infos, int max)
{
	(void)infos;
	(void)max;
	return 0;
}

static const struct manabe_ops manabe_none_ops = {
	.name = "none",
	.get_devices = manabe_none_devices,
};

const struct manabe_ops *manabe_get(void)
{
	return mlx5be_get() == &mlx5be_emu_ops ? &manabe_emu_ops :
						 &manabe_none_ops;
}
