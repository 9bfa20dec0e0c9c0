/* SPDX-License-Identifier: MIT */
/*
 * The backend switch (backend/backend.c): backend.kind from the
 * environment and the config file, emu / hw / auto, with the hw backend
 * over tests/hwdouble; a bad setting keeps emu, whose device
 * initialisation reports it.  Each test is a process of its own (Check),
 * so each selects afresh.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/backend_impl.h"
#include "tests/unit/common/ut_env.h"

#include "bt_util.h"

#define DOUBLE_LIB MLX5EMU_HWDOUBLE_DIR "/lib"

static char log_path[] = "/tmp/mlx5emu-select-log-XXXXXX";

static void setup(void)
{
	ut_clear_env();
	setenv("MLX5EMU_IP_BASE", "127.201.80.1", 1);
	close(mkstemp(log_path));
	setenv("HWDOUBLE_LOG", log_path, 1);
	bt_capture_stderr();
}

static void teardown(void)
{
	bt_release_stderr();
	unlink(log_path);
}

/* The bound backend's name, and how many devices it lists. */
static int devices(const char **name)
{
	struct mlx5be_device_info info[4];
	const struct mlx5be_ops *be = mlx5be_get();

	*name = be->name;
	return be->get_devices(info, 4);
}

/* Whether the double was asked for its devices (the hw backend ran). */
static bool double_used(void)
{
	char *s = bt_slurp(log_path);
	bool used = strstr(s, "\"call\":\"ibv_get_device_list\"") != NULL;

	free(s);
	return used;
}

START_TEST(default_is_emu)
{
	const char *name;

	ck_assert_int_eq(devices(&name), 1);
	ck_assert_str_eq(name, "emu");
	ck_assert(!double_used());
}
END_TEST

START_TEST(hw_by_environment)
{
	const char *name;

	setenv("MLX5EMU_BACKEND", "hw", 1);
	setenv("MLX5EMU_HW_LIBDIR", DOUBLE_LIB, 1);
	ck_assert_int_eq(devices(&name), 1);
	ck_assert_str_eq(name, "hw");
	ck_assert(double_used());
}
END_TEST

START_TEST(hw_by_config_file)
{
	char conf[] = "/tmp/mlx5emu-select-conf-XXXXXX";
	const char *name;
	int fd = mkstemp(conf);

	dprintf(fd, "[backend]\nkind = HW\nhw_libdir = %s\n", DOUBLE_LIB);
	close(fd);
	setenv("MLX5EMU_CONFIG", conf, 1);
	ck_assert_int_eq(devices(&name), 1);
	unlink(conf);
	ck_assert_str_eq(name, "hw");
	ck_assert(double_used());
}
END_TEST

START_TEST(hw_without_device_is_empty)
{
	const char *name;
	char *s;

	setenv("MLX5EMU_BACKEND", "hw", 1);
	setenv("MLX5EMU_HW_LIBDIR", "/nonexistent-dir", 1);
	ck_assert_int_eq(devices(&name), -EINVAL);	/* the setting itself */
	s = bt_captured();
	ck_assert_msg(strstr(s, "MLX5EMU_HW_LIBDIR=\"/nonexistent-dir\" is invalid"),
		      "%s", s);
	free(s);
}
END_TEST

START_TEST(auto_takes_real_devices)
{
	const char *name;

	setenv("MLX5EMU_BACKEND", "auto", 1);
	setenv("MLX5EMU_HW_LIBDIR", DOUBLE_LIB, 1);
	ck_assert_int_eq(devices(&name), 1);
	ck_assert_str_eq(name, "hw");
}
END_TEST

/* No device through rdma-core: emulated ones, and not a word. */
START_TEST(auto_falls_back_quietly)
{
	const char *name;
	char *s;

	setenv("MLX5EMU_BACKEND", "auto", 1);
	setenv("MLX5EMU_HW_LIBDIR", MLX5EMU_HWDOUBLE_DIR "/old", 1);
	ck_assert_int_eq(devices(&name), 1);
	ck_assert_str_eq(name, "emu");
	s = bt_captured();
	ck_assert_msg(!s[0], "%s", s);
	free(s);
}
END_TEST

START_TEST(hw_missing_rdma_core)
{
	const char *name;
	char *s;

	setenv("MLX5EMU_BACKEND", "hw", 1);
	setenv("MLX5EMU_HW_LIBDIR", MLX5EMU_HWDOUBLE_DIR "/old", 1);
	ck_assert_int_eq(devices(&name), 0);
	ck_assert_str_eq(name, "hw");
	s = bt_captured();
	ck_assert_msg(strstr(s, "mlx5emu: backend hw: ") == s && !strchr(s, '\n')[1],
		      "%s", s);
	free(s);
}
END_TEST

/* A bad setting keeps emu, whose initialisation says what is wrong. */
START_TEST(bad_kind_keeps_emu)
{
	const char *name;
	char *s;

	setenv("MLX5EMU_BACKEND", "fpga", 1);
	ck_assert_int_eq(devices(&name), -EINVAL);
	ck_assert_str_eq(name, "emu");
	s = bt_captured();
	ck_assert_msg(strstr(s, "MLX5EMU_BACKEND=\"fpga\" is invalid (setting backend.kind, from the environment): expected emu, hw or auto"),
		      "%s", s);
	free(s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("backend_select");
	TCase *tc = tcase_create("select");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, default_is_emu);
	tcase_add_test(tc, hw_without_device_is_empty);
	tcase_add_test(tc, auto_falls_back_quietly);
	tcase_add_test(tc, hw_missing_rdma_core);
	tcase_add_test(tc, bad_kind_keeps_emu);
	/* The double's device starts threads no sanitizer can follow
	 * (test_hw_backend.c says more). */
#ifdef MLX5EMU_TEST_SANITIZED
	(void)hw_by_environment;
	(void)hw_by_config_file;
	(void)auto_takes_real_devices;
#else
	tcase_add_test(tc, hw_by_environment);
	tcase_add_test(tc, hw_by_config_file);
	tcase_add_test(tc, auto_takes_real_devices);
#endif
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
