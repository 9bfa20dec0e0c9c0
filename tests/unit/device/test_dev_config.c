/* SPDX-License-Identifier: MIT */
/*
 * emu/device configuration: defaults, environment overrides, precedence,
 * and every bad value rejected with a message naming the setting and its
 * variable (never a silent default).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/device/dev.h"
#include "emu/device/dev_config.h"
#include "emu/device/dev_sysfs.h"

#include "dev_test_util.h"

static char tmpdir[64];

static void setup(void)
{
	ut_clear_env();
	tu_mkdtemp(tmpdir, sizeof(tmpdir));
}

static void teardown(void)
{
	ut_clear_env();
	tu_rm_rf(tmpdir);
}

START_TEST(defaults)
{
	struct emu_config cfg;
	struct emu_config_error err;
	char buf[64];

	ck_assert_int_eq(emu_config_load(&cfg, &err), 0);
	ck_assert_uint_eq(cfg.num_devices, 1);
	ck_assert_uint_eq(cfg.num_ports, 1);
	ck_assert(!cfg.ip_base_set);
	ck_assert(!cfg.sysfs_dir_set);
	ck_assert_str_eq(cfg.sysfs_dir, "");
	for (int i = 0; i < EMU_SET_COUNT; i++)
		ck_assert_int_eq(cfg.source[i], EMU_SRC_DEFAULT);
	emu_config_format(&cfg, EMU_SET_NUM_DEVICES, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1");
	emu_config_format(&cfg, EMU_SET_IP_BASE, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(table_is_complete)
{
	size_t n;
	const struct emu_setting *s = emu_config_settings(&n);

	ck_assert_uint_eq(n, EMU_SET_COUNT);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(s[i].id, (int)i);
		ck_assert_ptr_nonnull(s[i].name);
		ck_assert_ptr_nonnull(s[i].validate);
		ck_assert_ptr_nonnull(s[i].help);
		ck_assert_ptr_nonnull(s[i].def_doc);
		ck_assert_int_eq(strncmp(s[i].env, "MLX5EMU_", 8), 0);
		ck_assert_ptr_eq(emu_config_find(s[i].name), &s[i]);
		ck_assert_ptr_eq(emu_config_find(s[i].env), &s[i]);
	}
	ck_assert_str_eq(s[EMU_SET_NUM_DEVICES].env, "MLX5EMU_NUM_DEVICES");
	ck_assert_str_eq(s[EMU_SET_NUM_PORTS].env, "MLX5EMU_NUM_PORTS");
	ck_assert_str_eq(s[EMU_SET_IP_BASE].env, "MLX5EMU_IP_BASE");
	ck_assert_str_eq(s[EMU_SET_SYSFS_DIR].env, "MLX5EMU_SYSFS_DIR");
	ck_assert_ptr_null(emu_config_find("device.nope"));
}
END_TEST

START_TEST(env_overrides)
{
	struct emu_config cfg;
	struct emu_config_error err;
	char buf[300], slash[128];

	setenv("MLX5EMU_NUM_DEVICES", "16", 1);
	setenv("MLX5EMU_NUM_PORTS", "2", 1);
	setenv("MLX5EMU_IP_BASE", "127.5.6.7", 1);
	snprintf(slash, sizeof(slash), "%s//", tmpdir);	/* trailing slashes go */
	setenv("MLX5EMU_SYSFS_DIR", slash, 1);
	ck_assert_int_eq(emu_config_load(&cfg, &err), 0);
	ck_assert_uint_eq(cfg.num_devices, 16);
	ck_assert_uint_eq(cfg.num_ports, 2);
	ck_assert(cfg.ip_base_set);
	ck_assert_uint_eq(cfg.ip_base, 0x7f050607);
	ck_assert(cfg.sysfs_dir_set);
	ck_assert_str_eq(cfg.sysfs_dir, tmpdir);
	for (int i = 0; i <= EMU_SET_SYSFS_DIR; i++)	/* the four set above */
		ck_assert_int_eq(cfg.source[i], EMU_SRC_ENV);
	emu_config_format(&cfg, EMU_SET_IP_BASE, buf, sizeof(buf));
	ck_assert_str_eq(buf, "127.5.6.7");
	emu_config_format(&cfg, EMU_SET_NUM_PORTS, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2");
	emu_config_format(&cfg, EMU_SET_SYSFS_DIR, buf, sizeof(buf));
	ck_assert_str_eq(buf, tmpdir);

	/* The boundaries. */
	setenv("MLX5EMU_NUM_DEVICES", "0", 1);
	setenv("MLX5EMU_NUM_PORTS", "1", 1);
	ck_assert_int_eq(emu_config_load(&cfg, &err), 0);
	ck_assert_uint_eq(cfg.num_devices, 0);
	ck_assert_uint_eq(cfg.num_ports, 1);
	setenv("MLX5EMU_NUM_DEVICES", "007", 1);
	ck_assert_int_eq(emu_config_load(&cfg, &err), 0);
	ck_assert_uint_eq(cfg.num_devices, 7);
}
END_TEST

START_TEST(empty_optional_means_default)
{
	struct emu_config cfg;
	struct emu_config_error err;

	setenv("MLX5EMU_IP_BASE", "", 1);
	setenv("MLX5EMU_SYSFS_DIR", "", 1);
	ck_assert_int_eq(emu_config_load(&cfg, &err), 0);
	ck_assert(!cfg.ip_base_set);
	ck_assert(!cfg.sysfs_dir_set);
	ck_assert_int_eq(cfg.source[EMU_SET_IP_BASE], EMU_SRC_ENV);
}
END_TEST

/* Every bad value, from the environment: -EINVAL, names and reason. */
static const struct {
	const char *env, *setting, *value, *reason;
} bad[] = {
	{ "MLX5EMU_NUM_DEVICES", "device.num_devices", "", "empty" },
	{ "MLX5EMU_NUM_DEVICES", "device.num_devices", "abc", "not a decimal number" },
	{ "MLX5EMU_NUM_DEVICES", "device.num_devices", "-1", "not a decimal number" },
	{ "MLX5EMU_NUM_DEVICES", "device.num_devices", "+2", "not a decimal number" },
	{ "MLX5EMU_NUM_DEVICES", "device.num_devices", " 2", "not a decimal number" },
	{ "MLX5EMU_NUM_DEVICES", "device.num_devices", "2 ", "not a decimal number" },
	{ "MLX5EMU_NUM_DEVICES", "device.num_devices", "0x2", "not a decimal number" },
	{ "MLX5EMU_NUM_DEVICES", "device.num_devices", "1.5", "not a decimal number" },
	{ "MLX5EMU_NUM_DEVICES", "device.num_devices", "99a", "not a decimal number" },
	{ "MLX5EMU_NUM_DEVICES", "device.num_devices", "17", "out of range; expected an integer from 0 to 16" },
	{ "MLX5EMU_NUM_DEVICES", "device.num_devices", "99999999999999999999999", "out of range" },
	{ "MLX5EMU_NUM_PORTS", "device.num_ports", "0", "out of range; expected an integer from 1 to 2" },
	{ "MLX5EMU_NUM_PORTS", "device.num_ports", "3", "out of range; expected an integer from 1 to 2" },
	{ "MLX5EMU_NUM_PORTS", "device.num_ports", "two", "not a decimal number" },
	{ "MLX5EMU_IP_BASE", "device.ip_base", "localhost", "not an IPv4 address" },
	{ "MLX5EMU_IP_BASE", "device.ip_base", "127.1.2", "not an IPv4 address" },
	{ "MLX5EMU_IP_BASE", "device.ip_base", "127.1.2.3.4", "not an IPv4 address" },
	{ "MLX5EMU_IP_BASE", "device.ip_base", "127.1.2.256", "not an IPv4 address" },
	{ "MLX5EMU_IP_BASE", "device.ip_base", "::1", "not an IPv4 address" },
	{ "MLX5EMU_IP_BASE", "device.ip_base", "127.0.0.1", "127.0.0.1 is left to the host" },
	{ "MLX5EMU_IP_BASE", "device.ip_base", "127.1.2.0", "last octet must not be 0 or 255" },
	{ "MLX5EMU_IP_BASE", "device.ip_base", "127.1.2.255", "last octet must not be 0 or 255" },
	{ "MLX5EMU_IP_BASE", "device.ip_base", "0.1.2.3", "not a host address" },
	{ "MLX5EMU_IP_BASE", "device.ip_base", "224.0.0.5", "multicast or reserved" },
	{ "MLX5EMU_IP_BASE", "device.ip_base", "255.255.255.254", "multicast or reserved" },
	{ "MLX5EMU_SYSFS_DIR", "device.sysfs_dir", "relative/dir", "not an absolute path" },
	{ "MLX5EMU_SYSFS_DIR", "device.sysfs_dir", "/nonexistent-mlx5emu-dir", "No such file or directory" },
	{ "MLX5EMU_SYSFS_DIR", "device.sysfs_dir", "/etc/passwd", "not a directory" },
	{ "MLX5EMU_WIRE_VNI", "wire.vni", "16777216", "out of range; expected an integer from 0 to 16777215" },
	{ "MLX5EMU_WIRE_UDP_PORT", "wire.udp_port", "0", "out of range; expected an integer from 1 to 65535" },
	{ "MLX5EMU_WIRE_UDP_PORT", "wire.udp_port", "65536", "out of range" },
	{ "MLX5EMU_WIRE_ENDPOINT", "wire.endpoint", "10.0.0.1:0", "bad UDP port" },
	{ "MLX5EMU_WIRE_ENDPOINT", "wire.endpoint", "10.0.0.1:70000", "bad UDP port" },
	{ "MLX5EMU_WIRE_ENDPOINT", "wire.endpoint", "host:4789", "is not an IPv4 address" },
	{ "MLX5EMU_WIRE_PEERS", "wire.peers", "10.0.0.2@02:c9", "is not a MAC address" },
	{ "MLX5EMU_WIRE_PEERS", "wire.peers", "10.0.0.2,10.0.0", "\"10.0.0\" is not an IPv4 address" },
	{ "MLX5EMU_WIRE_STRICT_L2", "wire.strict_l2", "maybe", "expected 1, 0" },
	{ "MLX5EMU_WIRE_CAPTURE", "wire.capture", "relative", "not an absolute path" },
};

START_TEST(bad_env_value)
{
	struct emu_config cfg;
	struct emu_config_error err = { "" };
	char quoted[128];

	setenv(bad[_i].env, bad[_i].value, 1);
	ck_assert_int_eq(emu_config_load(&cfg, &err), -EINVAL);
	ck_assert_msg(strstr(err.msg, bad[_i].env), "no variable in: %s", err.msg);
	ck_assert_msg(strstr(err.msg, bad[_i].setting), "no setting in: %s",
		      err.msg);
	snprintf(quoted, sizeof(quoted), "\"%s\"", bad[_i].value);
	ck_assert_msg(strstr(err.msg, quoted), "no value in: %s", err.msg);
	ck_assert_msg(strstr(err.msg, "from the environment"), "no source in: %s",
		      err.msg);
	ck_assert_msg(strstr(err.msg, bad[_i].reason), "no reason \"%s\" in: %s",
		      bad[_i].reason, err.msg);
}
END_TEST

/* The wire's settings, as emu/kernel reads them. */
START_TEST(wire_settings)
{
	struct emu_config cfg;
	struct emu_config_error err;
	char buf[300];

	ck_assert_int_eq(emu_config_load(&cfg, &err), 0);
	ck_assert_uint_eq(cfg.wire_vni, 4791);
	ck_assert_uint_eq(cfg.wire_udp_port, 4789);
	ck_assert(!cfg.wire_endpoint_set && !cfg.num_peers);
	ck_assert(!cfg.wire_strict_l2 && !cfg.wire_capture_set);
	setenv("MLX5EMU_WIRE_VNI", "0", 1);
	setenv("MLX5EMU_WIRE_UDP_PORT", "8472", 1);
	setenv("MLX5EMU_WIRE_ENDPOINT", "192.0.2.7:9000", 1);
	setenv("MLX5EMU_WIRE_PEERS",
	       "192.0.2.8, 192.0.2.9:9001@02:C9:0a:00:00:09,,192.0.2.10", 1);
	setenv("MLX5EMU_WIRE_STRICT_L2", "yes", 1);
	setenv("MLX5EMU_WIRE_CAPTURE", tmpdir, 1);
	setenv("MLX5EMU_WIRE_CAPTURE_OUTER", "on", 1);
	setenv("MLX5EMU_WIRE_STATS", "-", 1);
	ck_assert_int_eq(emu_config_load(&cfg, &err), 0);
	ck_assert_uint_eq(cfg.wire_vni, 0);
	ck_assert_uint_eq(cfg.wire_udp_port, 8472);
	ck_assert(cfg.wire_endpoint_set);
	ck_assert_uint_eq(cfg.wire_endpoint, 0xc0000207);
	ck_assert_uint_eq(cfg.wire_endpoint_port, 9000);
	ck_assert_uint_eq(cfg.num_peers, 3);
	ck_assert_uint_eq(cfg.peers[0].ip, 0xc0000208);
	ck_assert(!cfg.peers[0].port && !cfg.peers[0].has_mac);
	ck_assert_uint_eq(cfg.peers[1].port, 9001);
	ck_assert(cfg.peers[1].has_mac);
	ck_assert_mem_eq(cfg.peers[1].mac, "\x02\xc9\x0a\x00\x00\x09", 6);
	ck_assert(cfg.wire_strict_l2 && cfg.wire_capture_outer);
	ck_assert_str_eq(cfg.wire_capture, tmpdir);
	ck_assert_str_eq(cfg.wire_stats, "-");
	emu_config_format(&cfg, EMU_SET_WIRE_ENDPOINT, buf, sizeof(buf));
	ck_assert_str_eq(buf, "192.0.2.7:9000");
	emu_config_format(&cfg, EMU_SET_WIRE_PEERS, buf, sizeof(buf));
	ck_assert_str_eq(buf, "192.0.2.8,192.0.2.9:9001@02:c9:0a:00:00:09,"
			      "192.0.2.10");
	/* Empty: back to the defaults. */
	setenv("MLX5EMU_WIRE_ENDPOINT", "", 1);
	setenv("MLX5EMU_WIRE_PEERS", "", 1);
	ck_assert_int_eq(emu_config_load(&cfg, &err), 0);
	ck_assert(!cfg.wire_endpoint_set && !cfg.num_peers);
}
END_TEST

START_TEST(sysfs_dir_too_long)
{
	struct emu_config cfg;
	struct emu_config_error err;
	char path[EMU_SYSFS_DIR_MAX + 64];
	size_t len = strlen(tmpdir);

	memcpy(path, tmpdir, len);
	while (len <= EMU_SYSFS_DIR_MAX)
		path[len++] = 'x';
	path[len] = '\0';
	setenv("MLX5EMU_SYSFS_DIR", path, 1);
	ck_assert_int_eq(emu_config_load(&cfg, &err), -EINVAL);
	ck_assert_msg(strstr(err.msg, "too long"), "%s", err.msg);
	ck_assert_msg(strstr(err.msg, "MLX5EMU_SYSFS_DIR"), "%s", err.msg);
}
END_TEST

/* The check, as an exit status: 0 when the load fails as it should. */
static int not_writable_status(void)
{
	struct emu_config cfg;
	struct emu_config_error err;

	if (emu_config_load(&cfg, &err) != -EINVAL)
		return 1;
	if (!strstr(err.msg, "not writable"))
		return 2;
	return strstr(err.msg, "MLX5EMU_SYSFS_DIR") ? 0 : 3;
}

/*
 * A directory the process may not write is refused.  Root writes anywhere
 * (CI runs as root), so there the check runs in a child that has become
 * nobody (uid and gid 65534), for whom a root-owned 0500 directory is not
 * writable.
 */
START_TEST(sysfs_dir_not_writable)
{
	char ro[128];
	int status;
	pid_t pid;

	snprintf(ro, sizeof(ro), "%s/ro", tmpdir);
	ck_assert_int_eq(mkdir(ro, 0500), 0);
	setenv("MLX5EMU_SYSFS_DIR", ro, 1);
	if (geteuid()) {
		ck_assert_int_eq(not_writable_status(), 0);
		return;
	}
	ck_assert_int_eq(chmod(tmpdir, 0755), 0);	/* nobody may look in */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		_exit(not_writable_status());
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_msg(WEXITSTATUS(status) == 0, "as nobody: check %d failed",
		      WEXITSTATUS(status));
}
END_TEST

START_TEST(file_source_message)
{
	struct emu_config cfg;
	struct emu_config_error err;

	emu_config_defaults(&cfg);
	ck_assert_int_eq(emu_config_set(&cfg, "device.num_ports", "5",
					EMU_SRC_FILE, "/etc/mlx5emu.conf:12", &err),
			 -EINVAL);
	ck_assert_msg(strstr(err.msg, "/etc/mlx5emu.conf:12"), "%s", err.msg);
	ck_assert_msg(strstr(err.msg, "device.num_ports"), "%s", err.msg);
	ck_assert_msg(strstr(err.msg, "MLX5EMU_NUM_PORTS"), "%s", err.msg);
	ck_assert_msg(strstr(err.msg, "\"5\""), "%s", err.msg);
	/* The bad value changed nothing. */
	ck_assert_uint_eq(cfg.num_ports, 1);
	ck_assert_int_eq(cfg.source[EMU_SET_NUM_PORTS], EMU_SRC_DEFAULT);
}
END_TEST

START_TEST(unknown_setting)
{
	struct emu_config cfg;
	struct emu_config_error err;

	emu_config_defaults(&cfg);
	ck_assert_int_eq(emu_config_set(&cfg, "device.num_portz", "1",
					EMU_SRC_FILE, "x.conf:3", &err),
			 -EINVAL);
	ck_assert_msg(strstr(err.msg, "device.num_portz"), "%s", err.msg);
	ck_assert_msg(strstr(err.msg, "x.conf:3"), "%s", err.msg);
	ck_assert_msg(strstr(err.msg, "device.num_ports"), "known list: %s",
		      err.msg);
}
END_TEST

START_TEST(precedence_default_file_env)
{
	struct emu_config cfg;
	struct emu_config_error err;

	/* What emu_config_load() does once a file exists: defaults, the
	 * file, then the environment, each overriding the one before. */
	setenv("MLX5EMU_NUM_DEVICES", "3", 1);
	emu_config_defaults(&cfg);
	ck_assert_int_eq(emu_config_set(&cfg, "device.num_devices", "2",
					EMU_SRC_FILE, "f:1", &err), 0);
	ck_assert_int_eq(emu_config_set(&cfg, "device.num_ports", "2",
					EMU_SRC_FILE, "f:2", &err), 0);
	ck_assert_uint_eq(cfg.num_devices, 2);
	ck_assert_int_eq(cfg.source[EMU_SET_NUM_DEVICES], EMU_SRC_FILE);
	ck_assert_int_eq(emu_config_apply_env(&cfg, &err), 0);
	ck_assert_uint_eq(cfg.num_devices, 3);
	ck_assert_int_eq(cfg.source[EMU_SET_NUM_DEVICES], EMU_SRC_ENV);
	ck_assert_uint_eq(cfg.num_ports, 2);	/* not in the environment */
	ck_assert_int_eq(cfg.source[EMU_SET_NUM_PORTS], EMU_SRC_FILE);
	ck_assert_str_eq(emu_config_source_name(EMU_SRC_FILE), "config file");
}
END_TEST

START_TEST(unknown_env_listed)
{
	char names[256];

	ck_assert_int_eq(emu_config_unknown_env(names, sizeof(names)), 0);
	setenv("MLX5EMU_NUM_DEVICE", "2", 1);	/* a typo */
	setenv("MLX5EMU_NUM_PORTS", "1", 1);	/* known */
	ck_assert_int_eq(emu_config_unknown_env(names, sizeof(names)), 1);
	ck_assert_str_eq(names, "MLX5EMU_NUM_DEVICE");
}
END_TEST

static char *captured;

static int init_capturing(void)
{
	return emu_devices_init();
}

START_TEST(init_fails_on_bad_config)
{
	int ret;

	setenv("MLX5EMU_SYSFS_DIR", tmpdir, 1);
	setenv("MLX5EMU_NUM_PORTS", "3", 1);
	captured = tu_capture_stderr(init_capturing, &ret);
	ck_assert_int_eq(ret, -EINVAL);
	ck_assert_msg(strstr(captured, "mlx5emu: configuration error: "),
		      "%s", captured);
	ck_assert_msg(strstr(captured, "MLX5EMU_NUM_PORTS=\"3\""), "%s",
		      captured);
	ck_assert_msg(strstr(captured, "device.num_ports"), "%s", captured);
	ck_assert_msg(strstr(emu_devices_error(), "MLX5EMU_NUM_PORTS"), "%s",
		      emu_devices_error());
	ck_assert_int_eq(emu_devices_count(), 0);
	ck_assert_ptr_null(emu_device_identity(0));
	ck_assert_ptr_null(emu_devices_sysfs_root());
	/* Nothing left behind. */
	ck_assert_int_eq(tu_count_entries(tmpdir, EMU_SYSFS_PREFIX), 0);
	free(captured);

	/* Fixed, the next call succeeds. */
	setenv("MLX5EMU_NUM_PORTS", "2", 1);
	ck_assert_int_eq(emu_devices_init(), 0);
	ck_assert_int_eq(emu_devices_count(), 1);
	ck_assert_int_eq(emu_device_identity(0)->num_ports, 2);
	ck_assert_str_eq(emu_devices_error(), "");
	emu_devices_fini();
}
END_TEST

START_TEST(init_warns_on_unknown_env)
{
	int ret;

	setenv("MLX5EMU_SYSFS_DIR", tmpdir, 1);
	setenv("MLX5EMU_NUM_DEVICE", "2", 1);
	captured = tu_capture_stderr(init_capturing, &ret);
	ck_assert_int_eq(ret, 0);
	ck_assert_msg(strstr(captured, "warning"), "%s", captured);
	ck_assert_msg(strstr(captured, "MLX5EMU_NUM_DEVICE "), "%s", captured);
	ck_assert_msg(strstr(captured, "MLX5EMU_NUM_DEVICES"), "%s", captured);
	free(captured);
	emu_devices_fini();
}
END_TEST

/* emu/device/README.md documents every setting of the table. */
START_TEST(readme_lists_every_setting)
{
#ifdef MLX5EMU_DEVICE_README
	size_t n;
	const struct emu_setting *s = emu_config_settings(&n);
	char *doc = tu_read("%s", MLX5EMU_DEVICE_README);

	ck_assert_msg(doc, "cannot read %s", MLX5EMU_DEVICE_README);
	for (size_t i = 0; i < n; i++) {
		char row[256];

		snprintf(row, sizeof(row), "| `%s` | `%s` |", s[i].name, s[i].env);
		ck_assert_msg(strstr(doc, row), "README.md lacks the row %s", row);
	}
	free(doc);
#endif
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dev_config");
	TCase *tc = tcase_create("config");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, table_is_complete);
	tcase_add_test(tc, env_overrides);
	tcase_add_test(tc, wire_settings);
	tcase_add_test(tc, empty_optional_means_default);
	tcase_add_loop_test(tc, bad_env_value, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, sysfs_dir_too_long);
	tcase_add_test(tc, sysfs_dir_not_writable);
	tcase_add_test(tc, file_source_message);
	tcase_add_test(tc, unknown_setting);
	tcase_add_test(tc, precedence_default_file_env);
	tcase_add_test(tc, unknown_env_listed);
	tcase_add_test(tc, init_fails_on_bad_config);
	tcase_add_test(tc, init_warns_on_unknown_env);
	tcase_add_test(tc, readme_lists_every_setting);
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
