/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev.h -- the emulated devices of this process.
 *
 * emu_devices_init() reads the configuration (dev_config.h), builds each
 * device's identity (dev_identity.h), takes each port's IPv4 address by
 * binding its UDP socket (dev_addr.h) and writes the process's sysfs-like
 * tree (dev_sysfs.h).  It is idempotent and thread-safe, and is meant to be
 * called on the first device enumeration or open, never from a library
 * constructor.
 *
 * Lifetime: identities stay readable until the process ends, also after
 * emu_devices_fini() (their paths then point at a removed tree and their
 * udp_fd is -1), so a pointer handed out earlier never dangles.
 *
 * fork(): the child's inherited devices are stale at once: their sockets
 * and the tree's lock are closed in the child (the parent keeps them),
 * emu_devices_count() is 0 and emu_device_identity() NULL until the child
 * calls emu_devices_init(), which gives it fresh devices with new addresses
 * and a tree of its own.  A child never removes its parent's tree.
 */
#ifndef MLX5EMU_EMU_DEVICE_DEV_H
#define MLX5EMU_EMU_DEVICE_DEV_H

#include "emu/device/dev_config.h"
#include "emu/device/dev_identity.h"

/*
 * Brings up this process's devices once.  0, or a negative errno after
 * printing "mlx5emu: ..." to stderr: -EINVAL for a bad setting, the bind
 * or filesystem error otherwise (then nothing is left behind and a later
 * call tries again).
 */
int emu_devices_init(void);

/* How many devices this process has (0 before a successful init). */
int emu_devices_count(void);

/* Device idx (0-based), or NULL if idx is out of range or not initialised. */
const struct emu_dev_identity *emu_device_identity(int idx);

/* The MANA devices (mana_0, ...): how many, and one by its index.  They
 * are not among the devices above, which are the mlx5 ones. */
int emu_mana_devices_count(void);
const struct emu_dev_identity *emu_mana_device_identity(int idx);

/*
 * Closes the sockets and removes the tree (only in the process that made
 * them).  Idempotent; registered with atexit() by the first init.
 */
void emu_devices_fini(void);

/* The root of this process's tree (what SYSFS_PATH would be), or NULL. */
const char *emu_devices_sysfs_root(void);

/* The configuration the current devices were built from, or NULL. */
const struct emu_config *emu_devices_config(void);

/* The message of the last failed init in this process ("" if none). */
const char *emu_devices_error(void);

#endif /* MLX5EMU_EMU_DEVICE_DEV_H */
