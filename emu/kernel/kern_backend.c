/* SPDX-License-Identifier: MIT */
/*
 * The emulator's side of the backend interface: the ops table the provider
 * binds to.  Devices appear here once the device model is configured.
 */
#include <errno.h>

#include "provider/backend/backend.h"

static int kern_get_devices(struct mlx5be_device_info *infos, int max)
{
	/* No device is configured yet: an empty, successful enumeration. */
	return 0;
}

static int kern_open(int index, struct mlx5be_ctx **ctx, int *cmd_fd)
{
	return -ENODEV;
}

const struct mlx5be_ops mlx5be_emu_ops = {
	.name = "emu",
	.get_devices = kern_get_devices,
	.open = kern_open,
};
