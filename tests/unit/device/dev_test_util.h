/* SPDX-License-Identifier: MIT */
/* Helpers shared by the emu/device Check suites. */
#ifndef MLX5EMU_TESTS_UNIT_DEVICE_DEV_TEST_UTIL_H
#define MLX5EMU_TESTS_UNIT_DEVICE_DEV_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "ut_env.h"	/* ut_clear_env(): tests start from the defaults */

/* A fresh directory /tmp/emu-devtest-XXXXXX (static buffer per call site). */
void tu_mkdtemp(char *buf, size_t len);

/* The fixture of the tests that bring devices up: defaults, and the tree
 * in a fresh directory (tu_tree_dir) that teardown removes with the
 * devices. */
extern char tu_tree_dir[64];
void tu_tree_setup(void);
void tu_tree_teardown(void);
/* rm -rf path; 0 or -errno. */
int tu_rm_rf(const char *path);
/* The whole file (NUL-terminated, malloc'd), or NULL with errno set. */
char *tu_read(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* True if the path exists (lstat). */
bool tu_exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Entries of dir whose names start with prefix. */
int tu_count_entries(const char *dir, const char *prefix);

/* Runs fn with fd 2 redirected; returns what it printed (malloc'd). */
char *tu_capture_stderr(int (*fn)(void), int *ret);

#endif
