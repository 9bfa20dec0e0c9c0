/* SPDX-License-Identifier: MIT */
/* Reading sysfs(-like) files as libibverbs 44 does (sysfs.c). */
#ifndef MLX5EMU_PROVIDER_CORE_SYSFS_H
#define MLX5EMU_PROVIDER_CORE_SYSFS_H

#include <stddef.h>

struct ibv_device;

/*
 * Reads @file (relative to @dirfd) into @buf: the length read with a
 * trailing newline removed and the string terminated, or -1 with errno (also
 * when the contents would not fit with their terminator).
 */
int prov_read_sysfs_file_at(int dirfd, const char *file, char *buf, size_t size);

/* The same for a file of @dev's ibdev_path, named by a format. */
int prov_read_ibdev_file(const struct ibv_device *dev, char *buf, size_t size,
			 const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* MLX5EMU_PROVIDER_CORE_SYSFS_H */
