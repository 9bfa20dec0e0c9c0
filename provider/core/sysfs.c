/* SPDX-License-Identifier: MIT */
/*
 * ibv_get_sysfs_path and ibv_read_sysfs_file, pure functions with
 * libibverbs 44's behaviour (libibverbs/sysfs.c), and the reader the
 * provider uses for its devices' sysfs-like trees (ibdev_path).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "shell/abi_export.h"
#include "provider/rdma_private.h"
#include "provider/core/sysfs.h"

static pthread_once_t sysfs_path_once = PTHREAD_ONCE_INIT;
static const char *sysfs_path;

static void sysfs_path_init(void)
{
	const char *env = NULL;
	char *dup;
	size_t len;

	/* The caller's environment counts only when not running set-uid. */
	if (getuid() == geteuid())
		env = getenv("SYSFS_PATH");
	if (!env) {
		sysfs_path = "/sys";
		return;
	}
	dup = strndup(env, IBV_SYSFS_PATH_MAX);
	if (!dup) {
		sysfs_path = "/sys";
		return;
	}
	len = strlen(dup);
	while (len > 0 && dup[len - 1] == '/')
		dup[--len] = '\0';
	sysfs_path = dup;
}

MLX5EMU_ABI(ibv_get_sysfs_path);
const char *mlx5emu_abi_ibv_get_sysfs_path(void)
{
	pthread_once(&sysfs_path_once, sysfs_path_init);
	return sysfs_path;
}

int prov_read_sysfs_file_at(int dirfd, const char *file, char *buf, size_t size)
{
	ssize_t len;
	int fd;

	fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len > 0) {
		if (buf[len - 1] == '\n')
			buf[--len] = '\0';
		else if ((size_t)len < size)
			buf[len] = '\0';
		else
			/* Would have to truncate to terminate: fail now. */
			return -1;
	}
	return len;
}

MLX5EMU_ABI(ibv_read_sysfs_file);
int mlx5emu_abi_ibv_read_sysfs_file(const char *dir, const char *file,
				    char *buf, size_t size)
{
	char *path;
	int res;

	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return -1;
	res = prov_read_sysfs_file_at(AT_FDCWD, path, buf, size);
	free(path);
	return res;
}

int prov_read_ibdev_file(const struct ibv_device *dev, char *buf, size_t size,
			 const char *fmt, ...)
{
	char *file;
	va_list va;
	int res;

	if (!dev || !dev->ibdev_path[0]) {
		errno = EINVAL;
		return -1;
	}
	va_start(va, fmt);
	res = vasprintf(&file, fmt, va);
	va_end(va);
	if (res < 0)
		return -1;
	res = mlx5emu_abi_ibv_read_sysfs_file(dev->ibdev_path, file, buf, size);
	free(file);
	return res;
}
