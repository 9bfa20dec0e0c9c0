/* SPDX-License-Identifier: MIT */
/*
 * Devices: rdma-core's list filtered to what libmlx5 drives
 * (mlx5dv_is_supported), DEVX contexts (mlx5dv_open_device with
 * MLX5DV_CONTEXT_FLAGS_DEVX), imports from a cmd_fd.
 *
 * A device's index is its position among the mlx5 devices of rdma-core's
 * list; the names are the kernel's (mlx5_0, ...), as a program on the
 * system's rdma-core would see them.  Devices of other drivers (another
 * vendor's NIC, Soft-RoCE) are not listed: our libraries hold the names
 * libibverbs.so.1 and libmlx5.so.1 in the process, and they drive mlx5
 * devices only (docs/hardware.md says how to run a program that needs
 * such a device).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/hw/hw.h"

/* A number in the device's PCI sysfs directory ("0x101d"), or 0. */
static uint32_t hw_pci_value(const char *ibdev_path, const char *file)
{
	char path[HW_PATH_MAX], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/device/%s", ibdev_path, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (uint32_t)strtoul(buf, NULL, 0);
}

static void hw_copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* The names of devices rdma-core lists that are no mlx5 device. */
static void hw_note_others(struct ibv_device **list, int n, int mlx5)
{
	char names[256] = "";
	size_t used = 0;
	int others = 0;

	for (int i = 0; i < n; i++) {
		if (hw_sym.is_supported(list[i]))
			continue;
		others++;
		if (used < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used,
						 "%s%s", used ? ", " : "",
						 hw_sym.get_device_name(list[i]));
	}
	if (!mlx5 && !others)
		hw_report("no RDMA device: rdma-core lists none; no devices");
	else if (!mlx5)
		hw_report("no mlx5 device: rdma-core lists only %s, which mlx5emu's libraries cannot drive (docs/hardware.md); no devices",
			  names);
	else if (others)
		hw_report("%s not listed: mlx5emu's libraries drive mlx5 devices only (docs/hardware.md)",
			  names);
}

/*
 * rdma-core's device list (under hw_enter), or NULL with a negative errno
 * in *err and the one report when it fails.
 */
static struct ibv_device **hw_list(int *n, int *err)
{
	struct ibv_device **list = hw_sym.get_device_list(n);

	if (!list) {
		*err = -hw_errno();
		if (*err == -ENOSYS)
			hw_report("no RDMA device: rdma-core finds no RDMA support in the kernel (ibv_get_device_list: %s); no devices",
				  strerror(ENOSYS));
		else
			hw_report("no RDMA device: ibv_get_device_list: %s; no devices",
				  strerror(-*err));
	}
	return list;
}

/* The @index-th mlx5 device of @list, or NULL. */
static struct ibv_device *hw_nth(struct ibv_device **list, int n, int index)
{
	for (int i = 0; i < n; i++)
		if (hw_sym.is_supported(list[i]) && index-- == 0)
			return list[i];
	return NULL;
}

int hw_get_devices(struct mlx5be_device_info *infos, int max)
{
	static bool checked;
	struct ibv_device **list;
	int n = 0, out = 0, mlx5 = 0, err = 0;

	if (!hw_loaded())
		return 0;
	hw_enter();
	list = hw_list(&n, &err);
	for (int i = 0; list && i < n; i++) {
		struct mlx5be_device_info *info;

		if (!hw_sym.is_supported(list[i]))
			continue;
		mlx5++;
		if (out == max)
			continue;
		info = &infos[out++];
		memset(info, 0, sizeof(*info));
		hw_copy(info->name, sizeof(info->name),
			hw_sym.get_device_name(list[i]));
		hw_copy(info->dev_name, sizeof(info->dev_name), list[i]->dev_name);
		hw_copy(info->dev_path, sizeof(info->dev_path), list[i]->dev_path);
		hw_copy(info->ibdev_path, sizeof(info->ibdev_path),
			list[i]->ibdev_path);
		info->node_guid = hw_sym.get_device_guid(list[i]);
		/* mlx5_ib reports the PCI device id as vendor_part_id; the
		 * verbs vendor_id comes from QUERY_ADAPTER once it is open. */
		info->vendor_part_id = hw_pci_value(info->ibdev_path, "device");
	}
	if (list) {
		hw_note_others(list, n, mlx5);
		hw_sym.free_device_list(list);
	}
	hw_leave();
	/* rdma-core loads its providers at its first enumeration. */
	if (list && !checked) {
		checked = true;
		if (hw_check_namespace())
			return 0;
	}
	return out;
}

/* async_event_read never waits: the provider polls the fd. */
static void hw_async_fd_nonblock(struct mlx5be_ctx *ctx)
{
	int fl = fcntl(ctx->ibctx->async_fd, F_GETFL);

	if (fl >= 0)
		fcntl(ctx->ibctx->async_fd, F_SETFL, fl | O_NONBLOCK);
}

/*
 * The loaded rdma-core is Debian 12's 44, whose mlx5dv_context_attr has no
 * fd array (it came with rdma-core 57): there is no way to hand the real
 * kernel ucap descriptors through it.
 */
int hw_open_ucaps(int index, const int *fds, uint32_t nfds,
		  struct mlx5be_ctx **pctx, int *cmd_fd)
{
	(void)index;
	(void)fds;
	(void)nfds;
	(void)pctx;
	(void)cmd_fd;
	return -EOPNOTSUPP;
}

int hw_open(int index, struct mlx5be_ctx **pctx, int *cmd_fd)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list, *dev;
	struct mlx5be_ctx *ctx;
	int n = 0, err = 0;

	if (!hw_loaded())
		return -ENODEV;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->own_fd = -1;
	hw_enter();
	list = hw_list(&n, &err);
	dev = list ? hw_nth(list, n, index) : NULL;
	if (dev) {
		ctx->ibctx = hw_sym.open_device(dev, &attr);
		if (!ctx->ibctx)
			err = -hw_errno();
	} else {
		err = -ENODEV;	/* no such device, or no list at all */
	}
	if (list)
		hw_sym.free_device_list(list);
	hw_leave();
	if (!ctx->ibctx) {
		free(ctx);
		return err ? err : -EIO;
	}
	hw_async_fd_nonblock(ctx);
	*pctx = ctx;
	*cmd_fd = ctx->ibctx->cmd_fd;
	return 0;
}

/*
 * rdma-core imports on a dup() of @cmd_fd, so a failure leaves @cmd_fd open
 * as the interface asks (ibv_close_device closes the descriptor it holds);
 * on success the context owns @cmd_fd as well and closes it with its own.
 */
int hw_import(int cmd_fd, struct mlx5be_ctx **pctx, int *index)
{
	struct ibv_device **list;
	struct mlx5be_ctx *ctx;
	const char *name;
	int n = 0, err = 0, pos = 0, fd;

	if (!hw_loaded())
		return -ENODEV;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	fd = fcntl(cmd_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		err = errno == EBADF ? -EINVAL : -errno;
		free(ctx);
		return err;
	}
	hw_enter();
	ctx->ibctx = hw_sym.import_device(fd);
	if (!ctx->ibctx) {
		err = -hw_errno();
		hw_leave();
		close(fd);
		free(ctx);
		return err ? err : -EIO;
	}
	/* Its device's position among the mlx5 devices. */
	*index = -1;
	name = hw_sym.get_device_name(ctx->ibctx->device);
	list = hw_list(&n, &err);
	for (int i = 0; list && i < n; i++) {
		if (!hw_sym.is_supported(list[i]))
			continue;
		if (!strcmp(hw_sym.get_device_name(list[i]), name))
			*index = pos;
		pos++;
	}
	if (list)
		hw_sym.free_device_list(list);
	if (*index < 0)
		hw_sym.close_device(ctx->ibctx);
	hw_leave();
	if (*index < 0) {
		free(ctx);
		return -ENODEV;
	}
	ctx->own_fd = cmd_fd;
	hw_async_fd_nonblock(ctx);
	*pctx = ctx;
	return 0;
}

void hw_close(struct mlx5be_ctx *ctx)
{
	hw_enter();
	hw_sym.close_device(ctx->ibctx);
	hw_leave();
	if (ctx->own_fd >= 0)
		close(ctx->own_fd);
	free(ctx);
}
