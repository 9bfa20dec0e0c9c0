/* SPDX-License-Identifier: MIT */
/*
 * The pure helpers (ibv_get_sysfs_path, ibv_read_sysfs_file), fork support
 * (what rdma-core 44 answers on a copy-on-fork kernel) and
 * ibv_query_rt_values_ex, over the drop-in libraries.  Check runs each test
 * in a fresh child, so ibv_get_sysfs_path's one-time environment read is
 * exercised per test.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "query_test.h"

/* Exported by libibverbs, declared only in its (uninstalled) driver.h. */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

START_TEST(test_sysfs_path_default)
{
	unsetenv("SYSFS_PATH");
	ck_assert_str_eq(ibv_get_sysfs_path(), "/sys");
	/* Read once: later changes of the environment do not count. */
	setenv("SYSFS_PATH", "/elsewhere", 1);
	ck_assert_str_eq(ibv_get_sysfs_path(), "/sys");
}
END_TEST

START_TEST(test_sysfs_path_env)
{
	setenv("SYSFS_PATH", "/tmp/fake-sys///", 1);
	ck_assert_str_eq(ibv_get_sysfs_path(), "/tmp/fake-sys");
}
END_TEST

static char dir[64];

static void write_file(const char *name, const char *data, size_t len)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void files_setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/qt-sysfs-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file("nl", "abc\n", 4);
	write_file("plain", "abc", 3);
	write_file("exact", "abcd", 4);
	write_file("empty", "", 0);
}

static void files_teardown(void)
{
	const char *names[] = { "nl", "plain", "exact", "empty" };
	char path[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

START_TEST(test_read_sysfs_file)
{
	char buf[8];

	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "nl", buf, sizeof(buf)), 3);
	ck_assert_str_eq(buf, "abc");
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "plain", buf, sizeof(buf)), 3);
	ck_assert_str_eq(buf, "abc");
	/* The newline is dropped even when it fills the buffer. */
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "nl", buf, 4), 3);
	ck_assert_str_eq(buf, "abc");
	/* Content that leaves no room for the terminator fails. */
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "exact", buf, 4), -1);
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "exact", buf, 5), 4);
	ck_assert_str_eq(buf, "abcd");
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "empty", buf, sizeof(buf)), 0);
	errno = 0;
	ck_assert_int_eq(ibv_read_sysfs_file(dir, "missing", buf, sizeof(buf)), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* The device's ibdev_path is a directory these helpers read. */
START_TEST(test_read_ibdev_files)
{
	struct ibv_context *ctx = qt_open(false);
	char buf[64];

	ck_assert_int_gt(ibv_read_sysfs_file(ctx->device->ibdev_path, "node_type",
					     buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "1: CA");
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(test_fork)
{
	char page[64];

	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
	ck_assert_int_eq(ibv_dontfork_range(page, sizeof(page)), 0);
	ck_assert_int_eq(ibv_dofork_range(page, sizeof(page)), 0);
}
END_TEST

/* Opening a device registers no memory: fork_init is not too late. */
START_TEST(test_fork_after_open)
{
	struct ibv_context *ctx = qt_open(false);

	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(test_rt_values)
{
	struct ibv_context *ctx = qt_open(false);
	struct ibv_values_ex v1 = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_values_ex v2 = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	int ret;

	ck_assert_ptr_nonnull(verbs_get_ctx_op(ctx, query_rt_values));
	ret = ibv_query_rt_values_ex(ctx, &v1);
	if (ret == EOPNOTSUPP) {
		/* The clock cannot be read: nothing reported. */
		ck_assert_uint_eq(v1.comp_mask, 0);
	} else {
		ck_assert_int_eq(ret, 0);
		ck_assert_uint_eq(v1.comp_mask, IBV_VALUES_MASK_RAW_CLOCK);
		ck_assert_int_eq(v1.raw_clock.tv_sec, 0);
		usleep(2000);
		ck_assert_int_eq(ibv_query_rt_values_ex(ctx, &v2), 0);
		ck_assert_int_ge(v2.raw_clock.tv_nsec, v1.raw_clock.tv_nsec);
	}
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(test_rt_values_bad)
{
	struct ibv_context *ctx = qt_open(false);
	struct ibv_values_ex v = { .comp_mask = 1u << 1 };

	ck_assert_int_eq(ibv_query_rt_values_ex(ctx, &v), EINVAL);
	ck_assert_uint_eq(v.comp_mask, 1u << 1);
	v.comp_mask = IBV_VALUES_MASK_RAW_CLOCK | (1u << 7);
	ck_assert_int_eq(ibv_query_rt_values_ex(ctx, &v), EINVAL);
	/* Nothing asked: success with nothing answered. */
	v.comp_mask = 0;
	ck_assert_int_eq(ibv_query_rt_values_ex(ctx, &v), 0);
	ck_assert_uint_eq(v.comp_mask, 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

static Suite *query_misc_suite(void)
{
	Suite *s = suite_create("query_misc");
	TCase *tc = tcase_create("sysfs");

	tcase_add_test(tc, test_sysfs_path_default);
	tcase_add_test(tc, test_sysfs_path_env);
	tcase_add_test(tc, test_read_ibdev_files);
	suite_add_tcase(s, tc);
	tc = tcase_create("files");
	tcase_add_checked_fixture(tc, files_setup, files_teardown);
	tcase_add_test(tc, test_read_sysfs_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("fork");
	tcase_add_test(tc, test_fork);
	tcase_add_test(tc, test_fork_after_open);
	suite_add_tcase(s, tc);
	tc = tcase_create("rt_values");
	tcase_add_test(tc, test_rt_values);
	tcase_add_test(tc, test_rt_values_bad);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(query_misc_suite());
	int failed;

	/* The sysfs-path tests need a fresh process each. */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
