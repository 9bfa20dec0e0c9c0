/* SPDX-License-Identifier: MIT */
/*
 * The configuration file (MLX5EMU_CONFIG, INI syntax through libinih) and
 * the settings added with it: every section, the precedence defaults ->
 * file -> environment, fault rules and trace settings passed through,
 * capability overrides applied to the devices (consistent) or refused
 * (inconsistent), and every bad file with a message naming path:line and
 * the setting.
 */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu/device/dev.h"
#include "emu/device/dev_config.h"
#include "emu/firmware/fw_caps.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "backend/backend.h"
#include "backend/backend_impl.h"
#include "shell/abi_export.h"

#include <infiniband/verbs.h>

#include "dev_test_util.h"

static char tmpdir[64], path[128];
static struct emu_config cfg;
static struct emu_config_error err;

static void setup(void)
{
	ut_clear_env();
	tu_mkdtemp(tmpdir, sizeof(tmpdir));
	snprintf(path, sizeof(path), "%s/mlx5emu.conf", tmpdir);
	memset(&err, 0, sizeof(err));
}

static void teardown(void)
{
	ut_clear_env();
	tu_rm_rf(tmpdir);
}

/* Writes the config file and points MLX5EMU_CONFIG at it. */
static void conf(const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	setenv("MLX5EMU_CONFIG", path, 1);
}

static int load(void)
{
	memset(&err, 0, sizeof(err));
	return emu_config_load(&cfg, &err);
}

/* err.msg == fmt with %P for the file's path. */
static void ck_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void ck_msg(const char *fmt, ...)
{
	char want[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	ck_assert_str_eq(err.msg, want);
}

static const char *fmt_setting(enum emu_setting_id id)
{
	static char buf[2048];

	emu_config_format(&cfg, id, buf, sizeof(buf));
	return buf;
}

/* ---- good files ---- */

START_TEST(every_section)
{
	conf("# mlx5emu configuration\n"
	     "; both comment styles\n"
	     "[device]\n"
	     "num_devices = 2\n"
	     "  num_ports = 2        ; indented keys are keys, not continuations\n"
	     "ip_base = 127.9.8.7\n"
	     "\n"
	     "[fault]\n"
	     "seed = 0x2a\n"
	     "rule = fail opcode=CREATE_CQ syndrome=CQ_LIMIT nth=2\n"
	     "rule = delay opcode=QUERY_HCA_CAP ms=5 every=10\n"
	     "rules = fail opcode=ALLOC_PD nth=1;fail opcode=ALLOC_UAR nth=1\n"
	     "[trace]\n"
	     "mode = json\n"
	     "file = /tmp/trace.jsonl\n"
	     "elide_defaults = no\n"
	     "[caps]\n"
	     "log_max_cq_sz = 10\n"
	     "log_max_pd = 0x8\n"
	     "[caps.roce_cap]\n"
	     "roce_address_table_size = 16\n");
	ck_assert_int_eq(load(), 0);
	ck_assert_uint_eq(cfg.num_devices, 2);
	ck_assert_uint_eq(cfg.num_ports, 2);
	ck_assert_uint_eq(cfg.ip_base, 0x7f090807);
	ck_assert_str_eq(cfg.config_file, path);
	ck_assert_int_eq(cfg.source[EMU_SET_CONFIG_FILE], EMU_SRC_ENV);
	ck_assert_int_eq(cfg.source[EMU_SET_NUM_PORTS], EMU_SRC_FILE);
	ck_assert_uint_eq(cfg.fault_seed, 42);
	ck_assert_str_eq(cfg.fault_rules,
			 "fail opcode=CREATE_CQ syndrome=CQ_LIMIT nth=2; "
			 "delay opcode=QUERY_HCA_CAP ms=5 every=10; "
			 "fail opcode=ALLOC_PD nth=1;fail opcode=ALLOC_UAR nth=1");
	ck_assert_str_eq(fmt_setting(EMU_SET_TRACE_MODE), "json");
	ck_assert_str_eq(fmt_setting(EMU_SET_TRACE_FILE), "/tmp/trace.jsonl");
	ck_assert_str_eq(fmt_setting(EMU_SET_TRACE_ELIDE), "0");
	ck_assert_str_eq(fmt_setting(EMU_SET_CAPS),
			 "log_max_cq_sz=10,log_max_pd=8,"
			 "roce_cap.roce_address_table_size=16");
	ck_assert_int_eq(cfg.source[EMU_SET_CAPS], EMU_SRC_FILE);
	ck_assert_uint_eq(cfg.num_caps, 3);
	ck_assert_str_eq(cfg.caps[0].origin + strlen(cfg.caps[0].origin) - 15,
			 "mlx5emu.conf:18");
	ck_assert_int_eq(strncmp(cfg.caps[0].origin, "caps.log_max_cq_sz from /", 25), 0);
}
END_TEST

START_TEST(no_file)
{
	ck_assert_int_eq(load(), 0);
	ck_assert_str_eq(cfg.config_file, "");
	ck_assert_ptr_null(cfg.fw_caps);
	ck_assert_str_eq(cfg.fault_rules, "");
	ck_assert_uint_eq(cfg.fault_seed, 0);
	ck_assert_str_eq(fmt_setting(EMU_SET_TRACE_MODE), "");
	ck_assert_str_eq(fmt_setting(EMU_SET_TRACE_ELIDE), "1");
	setenv("MLX5EMU_CONFIG", "", 1);	/* empty: no file */
	ck_assert_int_eq(load(), 0);
}
END_TEST

/* defaults -> file -> environment, setting by setting. */
START_TEST(environment_wins)
{
	conf("[device]\nnum_devices = 3\nnum_ports = 2\n"
	     "[fault]\nrule = fail opcode=ALLOC_PD\nseed = 5\n"
	     "[trace]\nmode = text\n"
	     "[caps]\nlog_max_cq_sz = 10\nlog_max_pd = 8\n");
	setenv("MLX5EMU_NUM_DEVICES", "1", 1);
	setenv("MLX5EMU_FAULTS", "delay ms=1", 1);
	setenv("MLX5EMU_TRACE", "json:/tmp/x", 1);
	setenv("MLX5EMU_CAPS", "log_max_pd=4, roce_cap.roce_address_table_size=8", 1);
	ck_assert_int_eq(load(), 0);
	ck_assert_uint_eq(cfg.num_devices, 1);
	ck_assert_int_eq(cfg.source[EMU_SET_NUM_DEVICES], EMU_SRC_ENV);
	ck_assert_uint_eq(cfg.num_ports, 2);
	ck_assert_int_eq(cfg.source[EMU_SET_NUM_PORTS], EMU_SRC_FILE);
	ck_assert_str_eq(cfg.fault_rules, "delay ms=1");	/* replaced */
	ck_assert_uint_eq(cfg.fault_seed, 5);
	ck_assert_str_eq(fmt_setting(EMU_SET_TRACE_MODE), "json:/tmp/x");
	/* Overrides merge field by field; the environment's value wins. */
	ck_assert_str_eq(fmt_setting(EMU_SET_CAPS),
			 "log_max_cq_sz=10,log_max_pd=4,"
			 "roce_cap.roce_address_table_size=8");
	ck_assert_int_eq(cfg.source[EMU_SET_CAPS], EMU_SRC_ENV);
	ck_assert_str_eq(cfg.caps[1].origin, "log_max_pd in MLX5EMU_CAPS");
	/* An empty MLX5EMU_FAULTS removes the file's rules. */
	setenv("MLX5EMU_FAULTS", "", 1);
	ck_assert_int_eq(load(), 0);
	ck_assert_str_eq(cfg.fault_rules, "");
}
END_TEST

/* The overrides reach the device: QUERY_HCA_CAP shows them. */
START_TEST(caps_reach_the_device)
{
	const struct mlx5be_ops *be = &mlx5be_emu_ops;
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_hca_cap_out)];
	struct mlx5be_ctx *ctx;
	uint64_t v;
	int fd;

	setenv("MLX5EMU_SYSFS_DIR", tmpdir, 1);
	conf("[caps]\nlog_max_cq_sz = 10\n[caps.roce_cap]\n"
	     "roce_address_table_size = 16\n");
	ck_assert_int_eq(load(), 0);
	ck_assert_ptr_nonnull(cfg.fw_caps);
	ck_assert_int_eq(emu_fw_caps_get(cfg.fw_caps, MLX5_CAP_GENERAL,
					 "log_max_cq_sz", &v), 0);
	ck_assert_uint_eq(v, 10);

	ck_assert_int_eq(be->open(0, &ctx, &fd), 0);
	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, (MLX5_CAP_GENERAL << 1) | 1);
	ck_assert_int_eq(be->general_cmd(ctx, in, sizeof(in), out, sizeof(out)), 0);
	ck_assert_uint_eq(PRM_GET(query_hca_cap_out, out,
				  capability.cmd_hca_cap.log_max_cq_sz), 10);
	/* Untouched fields keep the device's defaults. */
	ck_assert_uint_eq(PRM_GET(query_hca_cap_out, out,
				  capability.cmd_hca_cap.log_max_pd), 16);
	be->close(ctx);
	emu_devices_fini();
}
END_TEST

/* ---- bad files: path:line and the setting ---- */

static const struct {
	const char *text, *msg;	/* @: the path */
} bad[] = {
	{ "[device]\nnum_ports = 3\n",
	  "device.num_ports=\"3\" is invalid (from @:2; environment variable "
	  "MLX5EMU_NUM_PORTS): out of range; expected an integer from 1 to 2" },
	{ "[device]\n\nnum_portz = 1\n",
	  "unknown setting \"device.num_portz\" (from @:3) (known: "
	  "device.num_devices, device.num_ports, device.ip_base, "
	  "device.sysfs_dir, device.mtu, device.mana_devices, device.mana_rx_coalescing, config.file, "
	  "caps, engine.mode, engine.seed, "
	  "fault.rules, fault.seed, trace.mode, trace.file, "
	  "trace.elide_defaults, trace.datapath, backend.kind, "
	  "backend.hw_libdir, wire.vni, "
	  "wire.udp_port, wire.endpoint, wire.peers, wire.strict_l2, "
	  "wire.capture, wire.capture_outer, wire.stats, wire.fast_path, "
	  "device.allow_net_raw)" },
	{ "num_ports = 1\n",
	  "@:1: \"num_ports\" is outside a section; put it under [device], "
	  "[caps], [engine], [fault], [trace], [backend] or [wire]" },
	{ "[devices]\nnum_ports = 1\n",
	  "@:1: unknown section [devices]; expected [device], [caps], "
	  "[caps.PAGE] (PAGE: cmd_hca_cap, per_protocol_networking_offload_caps, "
	  "odp_cap, atomic_caps, roce_cap, flow_table_nic_cap, cmd_hca_cap_2), [engine], [fault], "
	  "[trace], [backend] or [wire]" },
	{ "[device]\nnum_ports 2\n",
	  "@:2: syntax error: expected [section], key = value, or a comment "
	  "starting with ; or #" },
	{ "[device\n",
	  "@:1: syntax error: expected [section], key = value, or a comment "
	  "starting with ; or #" },
	{ "[config]\nfile = /etc/passwd\n",
	  "config.file=\"/etc/passwd\" is invalid (from @:2; environment "
	  "variable MLX5EMU_CONFIG): only the environment can name the config "
	  "file" },
	{ "[fault]\nrule = fail opcode=CREATE_CQ\nrule = fail nth=0\n",
	  "fault.rules=\"fail nth=0\" is invalid (from @:3; environment "
	  "variable MLX5EMU_FAULTS): rule 1 (\"fail nth=0\"): bad nth \"0\": "
	  "expected a positive integer" },
	{ "[fault]\nrule = fail opcode=CREATE_CQ ; fail opcode=ALLOC_PD\n",
	  "@:2: \";\" starts a comment in the config file, so it cannot "
	  "separate fault rules or end a rule line: give each rule its own "
	  "\"rule =\" line and comments their own lines" },
	{ "[fault]\nseed = -1\n",
	  "fault.seed=\"-1\" is invalid (from @:2; environment variable "
	  "MLX5EMU_FAULT_SEED): expected an integer from 0 to "
	  "18446744073709551615 (decimal or 0x hex)" },
	{ "[trace]\nmode = xml\n",
	  "trace.mode=\"xml\" is invalid (from @:2; environment variable "
	  "MLX5EMU_TRACE): expected off, text or json, optionally with :FILE" },
	{ "[trace]\nelide_defaults = maybe\n",
	  "trace.elide_defaults=\"maybe\" is invalid (from @:2; environment "
	  "variable MLX5EMU_TRACE_ELIDE): expected 1, 0, yes, no, on, off, true "
	  "or false" },
	{ "[caps]\nlog_max_cq_szz = 10\n",
	  "caps.log_max_cq_szz=\"10\" is invalid (from @:2): cmd_hca_cap has no "
	  "field log_max_cq_szz (pages: cmd_hca_cap, "
	  "per_protocol_networking_offload_caps, odp_cap, atomic_caps, roce_cap, "
	  "flow_table_nic_cap, cmd_hca_cap_2)" },
	{ "[caps]\nlog_max_cq_sz = ten\n",
	  "caps.log_max_cq_sz=\"ten\" is invalid (from @:2): expected an "
	  "integer (decimal or 0x hex)" },
	{ "[caps]\nlog_max_cq_sz = 256\n",
	  "caps.log_max_cq_sz=\"256\" is invalid (from @:2): 256 does not fit in "
	  "cmd_hca_cap.log_max_cq_sz" },
	{ "[caps]\nnum_ports = 2\n",
	  "caps.num_ports=\"2\" is invalid (from @:2): cmd_hca_cap.num_ports is "
	  "part of the device's identity; set device.num_ports instead" },
	{ "[caps.roce_capp]\nx = 1\n",
	  "@:1: unknown section [caps.roce_capp]; expected [device], [caps], "
	  "[caps.PAGE] (PAGE: cmd_hca_cap, per_protocol_networking_offload_caps, "
	  "odp_cap, atomic_caps, roce_cap, flow_table_nic_cap, cmd_hca_cap_2), [engine], [fault], "
	  "[trace], [backend] or [wire]" },
};

/*
 * Every mistake in a file is EINVAL, an unknown key as much as a bad
 * value (docs/configuration.md: opening fails with EINVAL), with the
 * message naming the file and line.
 */
START_TEST(bad_files)
{
	char want[1024];
	const char *at = strchr(bad[_i].msg, '@');

	conf(bad[_i].text);
	ck_assert_int_eq(load(), -EINVAL);
	if (at)
		snprintf(want, sizeof(want), "%.*s%s%s", (int)(at - bad[_i].msg),
			 bad[_i].msg, path, at + 1);
	else
		snprintf(want, sizeof(want), "%s", bad[_i].msg);
	ck_assert_str_eq(err.msg, want);
}
END_TEST

START_TEST(first_error_wins_and_nothing_applies)
{
	emu_config_defaults(&cfg);
	conf("[device]\nnum_devices = 4\nnum_ports = 9\nbogus line\n"
	     "num_devices = 5\n");
	ck_assert_int_eq(emu_config_apply_file(&cfg, path, &err), -EINVAL);
	ck_msg("device.num_ports=\"9\" is invalid (from %s:3; environment "
	       "variable MLX5EMU_NUM_PORTS): out of range; expected an integer "
	       "from 1 to 2", path);
	ck_assert_uint_eq(cfg.num_devices, 1);	/* line 2 was not kept */
	conf("[device]\nnum_devices = 4\nbogus line\nnum_ports = 9\n");
	ck_assert_int_eq(emu_config_apply_file(&cfg, path, &err), -EINVAL);
	ck_msg("%s:3: syntax error: expected [section], key = value, or a "
	       "comment starting with ; or #", path);
}
END_TEST

START_TEST(line_too_long)
{
	char text[512];

	snprintf(text, sizeof(text), "[fault]\nrule = fail opcode=CREATE_CQ%*s\n",
		 300, "nth=1");
	conf(text);
	ck_assert_int_eq(load(), -EINVAL);
	ck_msg("%s:2: line too long (at most 198 characters)", path);
}
END_TEST

START_TEST(missing_file)
{
	char missing[160];

	snprintf(missing, sizeof(missing), "%s/nope.conf", tmpdir);
	setenv("MLX5EMU_CONFIG", missing, 1);
	ck_assert_int_eq(load(), -EINVAL);
	ck_msg("MLX5EMU_CONFIG=\"%s\" is invalid (setting config.file, from the "
	       "environment): No such file or directory", missing);
	setenv("MLX5EMU_CONFIG", tmpdir, 1);
	ck_assert_int_eq(load(), -EINVAL);
	ck_msg("MLX5EMU_CONFIG=\"%s\" is invalid (setting config.file, from the "
	       "environment): not a regular file", tmpdir);
}
END_TEST

/* ---- capability overrides: consistency of the whole set ---- */

START_TEST(caps_inconsistent)
{
	/* Above what the emulator can do. */
	conf("[caps]\nlog_max_cq_sz = 23\n");
	ck_assert_int_eq(load(), -EINVAL);
	ck_assert_msg(strstr(err.msg, "capability overrides are inconsistent: "
			     "cmd_hca_cap.log_max_cq_sz = 23 "), "%s", err.msg);
	ck_assert_msg(strstr(err.msg, "(overrides: log_max_cq_sz=23 "
			     "(caps.log_max_cq_sz from "), "%s", err.msg);
	ck_assert_msg(strstr(err.msg, "mlx5emu.conf:2))"), "%s", err.msg);
	/* A feature the emulator lacks (crypto). */
	conf("[caps]\ncrypto = 1\n");
	ck_assert_int_eq(load(), -EINVAL);
	ck_assert_msg(strstr(err.msg, "capability overrides are inconsistent: "
			     "cmd_hca_cap.crypto"), "%s", err.msg);
	/* A page cleared without its advertising bit, and the reverse. */
	conf("[caps]\nroce = 0\n");
	ck_assert_int_eq(load(), -EINVAL);
	ck_assert_msg(strstr(err.msg, "not advertised (roce)"), "%s", err.msg);
	/* From the environment, named as such. */
	unsetenv("MLX5EMU_CONFIG");
	setenv("MLX5EMU_CAPS", "log_max_cq_sz=23", 1);
	ck_assert_int_eq(load(), -EINVAL);
	ck_assert_msg(strstr(err.msg, "(overrides: log_max_cq_sz=23 "
			     "(log_max_cq_sz in MLX5EMU_CAPS))"), "%s", err.msg);
	setenv("MLX5EMU_CAPS", "log_max_cq_sz", 1);
	ck_assert_int_eq(load(), -EINVAL);
	ck_msg("MLX5EMU_CAPS=\"log_max_cq_sz\" is invalid (setting caps, from the "
	       "environment): \"log_max_cq_sz\" is not FIELD=VALUE");
	setenv("MLX5EMU_CAPS", "roce_cap.nope=1", 1);
	ck_assert_int_eq(load(), -EINVAL);
	ck_msg("MLX5EMU_CAPS=\"roce_cap.nope=1\" is invalid (setting caps, from "
	       "the environment): roce_cap.nope: roce_cap has no field nope "
	       "(pages: cmd_hca_cap, per_protocol_networking_offload_caps, "
	       "odp_cap, atomic_caps, roce_cap, flow_table_nic_cap, cmd_hca_cap_2)");
}
END_TEST

/* Limits may go up to the emulator's own limit, features may be cleared. */
START_TEST(caps_consistent)
{
	conf("[caps]\nlog_max_cq_sz = 22\nlog_max_qp_sz = 8\n");
	ck_assert_int_eq(load(), 0);
	ck_assert_ptr_nonnull(cfg.fw_caps);
	setenv("MLX5EMU_NUM_PORTS", "2", 1);	/* identity and pages agree */
	ck_assert_int_eq(load(), 0);
}
END_TEST

/* ---- device initialisation refuses a bad configuration ---- */

MLX5EMU_ABI(ibv_get_device_list);
MLX5EMU_ABI(ibv_free_device_list);

static int init(void)
{
	return emu_devices_init();
}

START_TEST(init_fails_naming_file_line)
{
	char *captured;
	int ret;

	setenv("MLX5EMU_SYSFS_DIR", tmpdir, 1);
	conf("[device]\nnum_devices = 1\n[caps]\nlog_max_cq_sz = 99\n");
	captured = tu_capture_stderr(init, &ret);
	ck_assert_int_eq(ret, -EINVAL);
	ck_assert_msg(strstr(captured, "mlx5emu: configuration error: capability "
			     "overrides are inconsistent: cmd_hca_cap.log_max_cq_sz "
			     "= 99 "), "%s", captured);
	ck_assert_msg(strstr(captured, "(overrides: log_max_cq_sz=99 "
			     "(caps.log_max_cq_sz from "), "%s", captured);
	ck_assert_msg(strstr(captured, "mlx5emu.conf:4))\n"), "%s", captured);
	ck_assert_int_eq(emu_devices_count(), 0);
	free(captured);
	/* Fixed, the devices come up with the override. */
	conf("[device]\nnum_devices = 1\n[caps]\nlog_max_cq_sz = 9\n");
	ck_assert_int_eq(emu_devices_init(), 0);
	ck_assert_ptr_nonnull(emu_devices_config()->fw_caps);
	emu_devices_fini();
}
END_TEST

/*
 * What an application sees of a configuration mistake, whichever kind: no
 * device list and EINVAL, as for a bad value, also for an unknown key or
 * section (it used to be ENOENT, "No such file or directory").
 */
START_TEST(open_fails_einval)
{
	static const char *const files[] = {
		"[device]\nnum_portz = 1\n",		/* unknown key */
		"[devicez]\nnum_ports = 1\n",		/* unknown section */
		"[device]\nnum_ports = 9\n",		/* bad value */
		"[caps]\nno_such_cap = 1\n",		/* unknown field */
	};
	char *captured;
	int ret;

	setenv("MLX5EMU_SYSFS_DIR", tmpdir, 1);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct ibv_device **list;
		int n = -1;

		conf(files[i]);
		captured = tu_capture_stderr(init, &ret);
		free(captured);
		ck_assert_msg(ret == -EINVAL, "%s: %d", files[i], ret);
		errno = 0;
		list = mlx5emu_abi_ibv_get_device_list(&n);
		ck_assert(!list || (n == 0 && !list[0]));
		ck_assert_msg(errno == EINVAL, "%s: errno %d", files[i], errno);
		if (list)
			mlx5emu_abi_ibv_free_device_list(list);
		emu_devices_fini();
	}
}
END_TEST

/* The new variables are known: no "unknown setting" warning. */
START_TEST(new_variables_known)
{
	char names[256];

	setenv("MLX5EMU_CONFIG", "", 1);
	setenv("MLX5EMU_CAPS", "", 1);
	setenv("MLX5EMU_FAULTS", "", 1);
	setenv("MLX5EMU_FAULT_SEED", "1", 1);
	setenv("MLX5EMU_ENGINE_MODE", "threaded", 1);
	setenv("MLX5EMU_SEED", "2", 1);
	setenv("MLX5EMU_TRACE", "off", 1);
	setenv("MLX5EMU_TRACE_FILE", "-", 1);
	setenv("MLX5EMU_TRACE_ELIDE", "1", 1);
	ck_assert_int_eq(emu_config_unknown_env(names, sizeof(names)), 0);
	ck_assert_int_eq(load(), 0);
}
END_TEST

/* trace.mode, as emu/trace reads it. */
static const struct {
	const char *value;
	int ok;
} modes[] = {
	{ "off", 1 }, { "text", 1 }, { "json", 1 }, { "JSON", 1 }, { "0", 1 },
	{ "1", 1 }, { "text:/tmp/t.txt", 1 }, { "json:%p.jsonl", 1 }, { "", 1 },
	{ "off:/tmp/x", 0 }, { "json:", 0 }, { "yaml", 0 }, { "2", 0 },
	{ "texts", 0 },
};

START_TEST(trace_modes)
{
	setenv("MLX5EMU_TRACE", modes[_i].value, 1);
	ck_assert_int_eq(load(), modes[_i].ok ? 0 : -EINVAL);
	if (modes[_i].ok)
		ck_assert_str_eq(fmt_setting(EMU_SET_TRACE_MODE), modes[_i].value);
	else
		ck_assert_msg(strstr(err.msg, "MLX5EMU_TRACE=\""), "%s", err.msg);
}
END_TEST

/* engine.mode: three names, any case; anything else is an error. */
START_TEST(engine_mode)
{
	ck_assert_int_eq(load(), 0);
	ck_assert_int_eq(cfg.engine_mode, EMU_ENGINE_THREADED);
	ck_assert_str_eq(fmt_setting(EMU_SET_ENGINE_MODE), "threaded");
	conf("[engine]\nmode = Deterministic\nseed = 0x2a\n");
	ck_assert_int_eq(load(), 0);
	ck_assert_int_eq(cfg.engine_mode, EMU_ENGINE_DETERMINISTIC);
	ck_assert_str_eq(fmt_setting(EMU_SET_ENGINE_MODE), "deterministic");
	ck_assert_uint_eq(cfg.engine_seed, 42);
	setenv("MLX5EMU_ENGINE_MODE", "inline", 1);
	ck_assert_int_eq(load(), 0);
	ck_assert_int_eq(cfg.engine_mode, EMU_ENGINE_INLINE);
	setenv("MLX5EMU_ENGINE_MODE", "detached", 1);
	ck_assert_int_eq(load(), -EINVAL);
	ck_msg("MLX5EMU_ENGINE_MODE=\"detached\" is invalid (setting "
	       "engine.mode, from the environment): expected threaded, inline "
	       "or deterministic");
}
END_TEST

/* One seed for everything: fault.seed follows engine.seed unless set. */
START_TEST(one_seed)
{
	setenv("MLX5EMU_SEED", "7", 1);
	ck_assert_int_eq(load(), 0);
	ck_assert_uint_eq(cfg.engine_seed, 7);
	ck_assert_uint_eq(cfg.fault_seed, 7);
	conf("[fault]\nseed = 9\n");
	ck_assert_int_eq(load(), 0);
	ck_assert_uint_eq(cfg.engine_seed, 7);
	ck_assert_uint_eq(cfg.fault_seed, 9);
	setenv("MLX5EMU_SEED", "-1", 1);
	ck_assert_int_eq(load(), -EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("config_file");
	TCase *tc = tcase_create("file");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, every_section);
	tcase_add_test(tc, no_file);
	tcase_add_test(tc, environment_wins);
	tcase_add_test(tc, caps_reach_the_device);
	tcase_add_loop_test(tc, bad_files, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, first_error_wins_and_nothing_applies);
	tcase_add_test(tc, line_too_long);
	tcase_add_test(tc, missing_file);
	tcase_add_test(tc, caps_inconsistent);
	tcase_add_test(tc, caps_consistent);
	tcase_add_test(tc, init_fails_naming_file_line);
	tcase_add_test(tc, open_fails_einval);
	tcase_add_test(tc, new_variables_known);
	tcase_add_test(tc, engine_mode);
	tcase_add_test(tc, one_seed);
	tcase_add_loop_test(tc, trace_modes, 0, sizeof(modes) / sizeof(modes[0]));
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
	return failed ? 1 : 0;
}
