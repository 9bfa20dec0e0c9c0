/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_ucaps.c -- user capabilities, as the kernel's ib_ucaps
 * and mlx5_ib offer them (drivers/infiniband/core/ucaps.c, mlx5_ib's
 * mlx5_ib_init_ucaps and set_uctx_ucaps).
 *
 * Nodes.  A device whose firmware advertises the RDMA_CTRL general object
 * type (cmd_hca_cap_2.general_obj_types_127_64) makes mlx5_ib create one
 * character device per uctx_cap bit it has: mlx5_perm_ctrl_local
 * (RDMA_CTRL) and mlx5_perm_ctrl_other_vhca (RDMA_CTRL_OTHER_VHCA), mode
 * 0600 in /dev/infiniband, minor = the ucap type.  Here each node is a
 * file of the emulated tree (dev/infiniband/NAME, with
 * class/infiniband_ucaps/NAME/dev holding its numbers), made when the
 * device list is first asked for; `mlx5emu run --dev-nodes` puts the same
 * names under the program's /dev/infiniband.
 *
 * Descriptors.  ib_get_ucaps: each descriptor of the array must be open
 * (else EBADF) and be a ucap node (else EINVAL), compared by identity
 * (device and inode): the tree's file, or the file at /dev/infiniband/NAME
 * (`mlx5emu run --dev-nodes` makes it).  The nodes are files, not
 * character devices: a program opens them, and no driver of the machine
 * would open a character device with the emulator's numbers.  A granted ucap whose bit the firmware
 * lacks fails the DEVX context with EOPNOTSUPP (set_uctx_ucaps); otherwise
 * its uctx_cap bit goes into CREATE_UCTX's cap.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu/device/dev.h"
#include "emu/device/dev_config.h"
#include "emu/firmware/fw_caps.h"
#include "emu/kernel/kern.h"
#include "prm/prm_cmd.h"

/* ib_ucaps' dynamic character major, as the emulator numbers it. */
#define KERN_UCAP_MAJOR 250

static const struct {
	const char *name;
	uint32_t uctx_cap;
} kern_ucaps[KERN_UCAP_MAX] = {
	[KERN_UCAP_CTRL_LOCAL] = { "mlx5_perm_ctrl_local",
				   MLX5_UCTX_CAP_RDMA_CTRL },
	[KERN_UCAP_CTRL_OTHER_VHCA] = { "mlx5_perm_ctrl_other_vhca",
					MLX5_UCTX_CAP_RDMA_CTRL_OTHER_VHCA },
};

const char *kern_ucap_name(unsigned int type)
{
	return type < KERN_UCAP_MAX ? kern_ucaps[type].name : NULL;
}

/* Whether the configured firmware advertises @type (mlx5_ib_stage_caps_init
 * and mlx5_ib_init_ucaps; every device shares the configuration). */
static bool kern_ucap_advertised(unsigned int type)
{
	const struct emu_fw_caps *caps = emu_devices_config()->fw_caps;
	uint64_t types = 0, uctx = 0;

	if (!caps)
		return false;
	emu_fw_caps_get(caps, MLX5_CAP_GENERAL_2, "general_obj_types_127_64",
			&types);
	emu_fw_caps_get(caps, MLX5_CAP_GENERAL, "uctx_cap", &uctx);
	return (types & MLX5_HCA_CAP_2_GENERAL_OBJECT_TYPES_RDMA_CTRL) &&
	       (uctx & kern_ucaps[type].uctx_cap);
}

static int kern_ucap_path(unsigned int type, char *buf, size_t len)
{
	const char *root = emu_devices_sysfs_root();

	if (!root || !kern_ucap_advertised(type))
		return -ENOENT;
	if ((size_t)snprintf(buf, len, "%s/dev/infiniband/%s", root,
			     kern_ucaps[type].name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* mkdir -p of @path's directory part below an existing root. */
static int kern_ucap_mkdirs(char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

static int kern_ucap_write(const char *path, mode_t mode, const char *text)
{
	char buf[4096];
	ssize_t n;
	int fd;

	snprintf(buf, sizeof(buf), "%s", path);
	if (kern_ucap_mkdirs(buf))
		return -errno;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	n = text ? write(fd, text, strlen(text)) : 0;
	close(fd);
	return n < 0 ? -EIO : 0;
}

int kern_ucaps_publish(void)
{
	const char *root = emu_devices_sysfs_root();
	char path[4096], dev[32];
	int ret;

	for (unsigned int t = 0; t < KERN_UCAP_MAX; t++) {
		if (kern_ucap_path(t, path, sizeof(path)))
			continue;
		if (!access(path, F_OK))
			continue;	/* once per tree */
		ret = kern_ucap_write(path, 0600, NULL);
		if (ret)
			return ret;
		snprintf(path, sizeof(path), "%s/class/infiniband_ucaps/%s/dev",
			 root, kern_ucaps[t].name);
		snprintf(dev, sizeof(dev), "%u:%u\n", KERN_UCAP_MAJOR, t);
		ret = kern_ucap_write(path, 0444, dev);
		if (ret)
			return ret;
	}
	return 0;
}

static bool kern_ucap_same(const struct stat *st, const char *path)
{
	struct stat p;

	return !stat(path, &p) && p.st_dev == st->st_dev &&
	       p.st_ino == st->st_ino;
}

/* Which ucap @st is the node of: its type, or -1. */
static int kern_ucap_of(const struct stat *st)
{
	char path[4096];

	for (unsigned int t = 0; t < KERN_UCAP_MAX; t++) {
		if (kern_ucap_path(t, path, sizeof(path)))
			continue;	/* no node: ucaps_list[type] is NULL */
		if (kern_ucap_same(st, path))
			return (int)t;
		snprintf(path, sizeof(path), "/dev/infiniband/%s",
			 kern_ucaps[t].name);
		if (kern_ucap_same(st, path))
			return (int)t;
	}
	return -1;
}

int kern_ucaps_from_fds(const int *fds, uint32_t n, uint64_t *mask)
{
	*mask = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct stat st;
		int t;

		if (fstat(fds[i], &st))
			return -EBADF;
		t = kern_ucap_of(&st);
		if (t < 0)
			return -EINVAL;
		*mask |= UINT64_C(1) << t;
	}
	return 0;
}

int kern_ucaps_uctx_cap(const struct kern_dev *kdev, uint64_t mask,
			uint32_t *cap)
{
	uint32_t have = KERN_CAP_GEN(kdev, uctx_cap);

	for (unsigned int t = 0; t < KERN_UCAP_MAX; t++) {
		if (!(mask & (UINT64_C(1) << t)))
			continue;
		if (!(have & kern_ucaps[t].uctx_cap))
			return -EOPNOTSUPP;
		*cap |= kern_ucaps[t].uctx_cap;
	}
	return 0;
}
