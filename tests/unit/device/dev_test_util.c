/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev_test_util.h"
#include "emu/device/dev.h"

void tu_mkdtemp(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/emu-devtest-XXXXXX");
	if (!mkdtemp(buf))
		abort();
}

char tu_tree_dir[64];

void tu_tree_setup(void)
{
	ut_clear_env();
	tu_mkdtemp(tu_tree_dir, sizeof(tu_tree_dir));
	setenv("MLX5EMU_SYSFS_DIR", tu_tree_dir, 1);
}

void tu_tree_teardown(void)
{
	emu_devices_fini();
	ut_clear_env();
	tu_rm_rf(tu_tree_dir);
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	remove(path);
	return 0;
}

int tu_rm_rf(const char *path)
{
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) ? -errno : 0;
}

char *tu_read(const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	char *buf;
	size_t cap = 4096, len = 0;
	ssize_t n;
	int fd;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

bool tu_exists(const char *fmt, ...)
{
	char path[4096];
	struct stat st;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return !lstat(path, &st);
}

int tu_count_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

char *tu_capture_stderr(int (*fn)(void), int *ret)
{
	char path[] = "/tmp/emu-devtest-stderr-XXXXXX";
	int fd = mkstemp(path), saved;
	char *out;

	if (fd < 0)
		abort();
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	*ret = fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	out = tu_read("%s", path);
	unlink(path);
	return out;
}
