/* SPDX-License-Identifier: MIT */
/* Helpers shared by the backend suites (bt_util.h). */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bt_util.h"

#define BT_SLURP_MAX (1 << 20)

static char bt_stderr_path[64];
static int bt_saved_stderr = -1;

void bt_capture_stderr(void)
{
	int fd;

	snprintf(bt_stderr_path, sizeof(bt_stderr_path),
		 "/tmp/mlx5emu-bt-stderr-XXXXXX");
	fd = mkstemp(bt_stderr_path);

	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	bt_saved_stderr = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

char *bt_captured(void)
{
	fflush(stderr);
	return bt_slurp(bt_stderr_path);
}

void bt_release_stderr(void)
{
	fflush(stderr);
	dup2(bt_saved_stderr, STDERR_FILENO);
	close(bt_saved_stderr);
	unlink(bt_stderr_path);
}

char *bt_slurp(const char *path)
{
	char *buf = calloc(1, BT_SLURP_MAX);
	int fd = open(path, O_RDONLY);

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(read(fd, buf, BT_SLURP_MAX - 1), 0);
	close(fd);
	return buf;
}
