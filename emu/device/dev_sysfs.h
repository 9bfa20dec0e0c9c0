/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_sysfs.h -- the process's private sysfs-like tree.
 *
 * rdma-core sets ibv_device.ibdev_path to <sysfs>/class/infiniband/<name>
 * and dev_path to <sysfs>/class/infiniband_verbs/<uverbsN>; tools read
 * files below them (board_id, fw_ver, node_guid, ports/N/...) and follow
 * "device" to the PCI function.  Each process gets such a tree of its own,
 * laid out and formatted as Linux does, under a fresh directory
 * <dir>/mlx5emu-<pid>-XXXXXX:
 *
 *   class/infiniband/mlx5_N          -> ../../devices/pci0000:00/<bdf>/infiniband/mlx5_N
 *   class/infiniband_verbs/abi_version
 *   class/infiniband_verbs/uverbsN   -> ../../devices/pci0000:00/<bdf>/infiniband_verbs/uverbsN
 *   devices/pci0000:00/<bdf>/{vendor,device,subsystem_vendor,subsystem_device,
 *                            class,revision,numa_node,local_cpus,
 *                            local_cpulist,modalias}
 *   devices/pci0000:00/<bdf>/infiniband/mlx5_N/{node_type,node_guid,
 *       sys_image_guid,fw_ver,node_desc,hca_type,hw_rev,board_id,device->}
 *   .../mlx5_N/ports/P/{state,phys_state,link_layer,rate,lid,sm_lid,sm_sl,
 *       lid_mask_count,cap_mask,gids/I,pkeys/I,gid_attrs/{types,ndevs}/I}
 *   devices/pci0000:00/<bdf>/infiniband_verbs/uverbsN/{ibdev,abi_version,
 *       dev,device->}
 *
 * Where Linux fails a read (gid_attrs of an empty GID: EINVAL; ndevs of a
 * port without a netdev) the file is empty: a regular file cannot fail a
 * read.  There is no netdev, so device/net/ does not exist (rdma-core's
 * tests then skip what needs one).
 *
 * The tree is removed by the process that made it (never by a forked
 * child).  The creator holds an flock on <root>/.mlx5emu-owner for its
 * life, so trees left by killed processes are recognised and removed by the
 * next process that makes one in the same directory.
 */
#ifndef MLX5EMU_EMU_DEVICE_DEV_SYSFS_H
#define MLX5EMU_EMU_DEVICE_DEV_SYSFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct emu_dev_identity;

/* rdma-core's IBV_SYSFS_PATH_MAX: ibdev_path and dev_path must fit. */
#define EMU_SYSFS_PATH_MAX 256
/*
 * Longest parent directory: the root adds "/mlx5emu-<7-digit pid>-XXXXXX"
 * (23) and dev_path "/class/infiniband_verbs/uverbs15" (32).
 */
#define EMU_SYSFS_DIR_MAX (EMU_SYSFS_PATH_MAX - 1 - 23 - 32)
#define EMU_SYSFS_OWNER_FILE ".mlx5emu-owner"
#define EMU_SYSFS_PREFIX "mlx5emu-"

struct emu_sysfs_tree {
	char root[EMU_SYSFS_PATH_MAX];	/* "" when there is none */
	pid_t owner;			/* the process that made it */
	int lock_fd;			/* the owner file, flocked; -1 if none */
};

/* $XDG_RUNTIME_DIR if it is a usable absolute directory, else /tmp. */
void emu_sysfs_default_dir(char *buf, size_t len);

/*
 * Makes a fresh tree under dir (mkdtemp, mode 0700) with the class
 * directories and class/infiniband_verbs/abi_version.  0 or negative errno,
 * why filled in.
 */
int emu_sysfs_create(struct emu_sysfs_tree *t, const char *dir, char *why,
		     size_t whylen);

/*
 * Writes the PCI function, ib device and uverbs directories of id into t,
 * and sets id->ibdev_path and id->dev_path.  0 or negative errno.
 */
int emu_sysfs_add_device(struct emu_sysfs_tree *t,
			 struct emu_dev_identity *id, char *why, size_t whylen);

/*
 * Removes the tree if this process made it; in any process, closes the lock
 * and forgets the tree.  0 or negative errno of the removal.
 */
int emu_sysfs_remove(struct emu_sysfs_tree *t);

/*
 * Removes the trees under dir whose makers are gone (their owner file is not
 * locked).  Only this user's "mlx5emu-*" directories are considered.
 * Returns how many were removed.
 */
int emu_sysfs_clean_stale(const char *dir);

/* Kernel text forms (drivers/infiniband/core/sysfs.c), for tests and info. */
/* rate_show(): "100 Gb/sec (4X EDR)". */
void emu_sysfs_rate(uint8_t width, uint16_t speed, char *buf, size_t len);
/* state_show() and phys_state_show() names: "ACTIVE", "LinkUp". */
const char *emu_sysfs_state_name(uint8_t state);
const char *emu_sysfs_phys_state_name(uint8_t phys_state);
/* ib_cache_gid_type_str(): "IB/RoCE v1", "RoCE v2". */
const char *emu_sysfs_gid_type_name(uint8_t type);

/*
 * The kernel's "%*pb" (local_cpus) and "%*pbl" (local_cpulist) of the CPUs
 * in list ("0-3,6", the form of /sys/devices/system/cpu/online) over a
 * bitmap of nbits bits.  0, or -EINVAL for a malformed list.
 */
int emu_sysfs_cpumask(const char *list, unsigned int nbits, char *buf,
		      size_t len);
int emu_sysfs_cpulist(const char *list, unsigned int nbits, char *buf,
		      size_t len);

#endif /* MLX5EMU_EMU_DEVICE_DEV_SYSFS_H */
