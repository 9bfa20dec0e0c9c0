/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_config.h -- the emulator's settings: one table (name, type,
 * default, environment variable, validator, help), applied in order
 *
 *     defaults  ->  config file (MLX5EMU_CONFIG)  ->  environment
 *
 * Every source goes through emu_config_set(), so a later source overrides an
 * earlier one and all of them are validated alike.  A bad value is an error
 * whose message names the setting and its environment variable (and the
 * file and line it came from); it never falls back to the default.
 *
 * The config file is an INI file (libinih): [device], [fault], [trace],
 * [backend] sections whose keys are the settings' names ("[device] num_ports = 2" is
 * device.num_ports), and capability overrides, [caps] (cmd_hca_cap fields)
 * and [caps.<page>] ("[caps.roce_cap]"), applied to every device and checked
 * for consistency (emu_fw_caps_check) when the configuration is loaded.
 * docs/configuration.md is the user's guide.
 *
 * Adding a setting: a field in struct emu_config, an enumerator in enum
 * emu_setting_id, and one row in the table in dev_settings.c (README.md's table
 * lists them for users).
 */
#ifndef MLX5EMU_EMU_DEVICE_DEV_CONFIG_H
#define MLX5EMU_EMU_DEVICE_DEV_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/base/base.h"

/* Enough for any directory whose ibdev_path still fits IBV_SYSFS_PATH_MAX. */
#define EMU_CONFIG_PATH_MAX 256
/* The config file's and the trace file's names. */
#define EMU_CONFIG_FILE_MAX 1024
/* fault.rules: the text of every rule, ';'-separated. */
#define EMU_CONFIG_FAULTS_MAX 8192
/* wire.peers: static tunnel peers. */
#define EMU_CONFIG_PEERS_MAX 64
/* Capability overrides ([caps] keys and MLX5EMU_CAPS items). */
#define EMU_CONFIG_MAX_CAPS 64
#define EMU_CONFIG_CAP_NAME_MAX 96
#define EMU_CONFIG_ORIGIN_MAX 160

struct emu_fw_caps;

enum emu_setting_id {
	EMU_SET_NUM_DEVICES,
	EMU_SET_NUM_PORTS,
	EMU_SET_IP_BASE,
	EMU_SET_SYSFS_DIR,
	EMU_SET_MTU,
	EMU_SET_MANA_DEVICES,
	EMU_SET_MANA_RX_COALESCING,
	EMU_SET_CONFIG_FILE,	/* environment only */
	EMU_SET_CAPS,
	EMU_SET_ENGINE_MODE,
	EMU_SET_ENGINE_SEED,
	EMU_SET_FAULT_RULES,
	EMU_SET_FAULT_SEED,
	EMU_SET_TRACE_MODE,
	EMU_SET_TRACE_FILE,
	EMU_SET_TRACE_ELIDE,
	EMU_SET_TRACE_DATAPATH,
	EMU_SET_BACKEND_KIND,
	EMU_SET_BACKEND_HW_LIBDIR,
	EMU_SET_WIRE_VNI,
	EMU_SET_WIRE_UDP_PORT,
	EMU_SET_WIRE_ENDPOINT,
	EMU_SET_WIRE_PEERS,
	EMU_SET_WIRE_STRICT_L2,
	EMU_SET_WIRE_CAPTURE,
	EMU_SET_WIRE_CAPTURE_OUTER,
	EMU_SET_WIRE_STATS,
	EMU_SET_WIRE_FAST_PATH,
	EMU_SET_ALLOW_NET_RAW,
	EMU_SET_COUNT
};

/* Where a value came from, in the order sources are applied. */
enum emu_config_source {
	EMU_SRC_DEFAULT,
	EMU_SRC_FILE,
	EMU_SRC_ENV,
};

enum emu_setting_type {
	EMU_TYPE_UINT,		/* decimal, range-checked */
	EMU_TYPE_IPV4,		/* dotted quad; empty = unset */
	EMU_TYPE_DIR,		/* absolute path of a usable directory; empty = unset */
	EMU_TYPE_FILE,		/* a file name; empty = unset */
	EMU_TYPE_CAPS,		/* field=value list */
	EMU_TYPE_RULES,		/* fault rules, ';'-separated */
	EMU_TYPE_U64,		/* decimal or 0x hex, 64 bits */
	EMU_TYPE_TRACE_MODE,	/* off|text|json[:FILE] */
	EMU_TYPE_BOOL,		/* 1|0|yes|no|on|off|true|false */
	EMU_TYPE_CHOICE,	/* one word of a fixed list */
	EMU_TYPE_ENDPOINT,	/* IPv4[:port]; empty = unset */
	EMU_TYPE_PEERS,		/* IPv4[:port][@mac] list */
};

/* engine.mode: how the device model runs (emu/engine's modes). */
enum emu_engine_mode {
	EMU_ENGINE_THREADED,		/* a thread of its own (default) */
	EMU_ENGINE_INLINE,		/* only the application's calls move it */
	EMU_ENGINE_DETERMINISTIC,	/* the same, on a virtual clock */
};

/* One capability override: a field of one capability page. */
struct emu_cap_override {
	unsigned int type;			/* MLX5_CAP_* */
	char field[EMU_CONFIG_CAP_NAME_MAX];	/* PRM field name */
	uint64_t value;
	enum emu_config_source src;
	char origin[EMU_CONFIG_ORIGIN_MAX];	/* "caps.x from f.conf:3" */
};

struct emu_config {
	unsigned int num_devices;
	unsigned int num_ports;
	unsigned int num_mana_devices;		/* mana_0, ... after the mlx5 ones */
	bool mana_rx_coalescing;		/* mana_ib asks RSS QPs' coalescing */
	unsigned int mtu;			/* every port's netdev MTU */
	bool ip_base_set;
	uint32_t ip_base;			/* host byte order */
	bool sysfs_dir_set;
	char sysfs_dir[EMU_CONFIG_PATH_MAX];	/* "" unless set */
	char config_file[EMU_CONFIG_FILE_MAX];	/* "" unless set */
	/* Capability overrides, in the order given (a field given again
	 * replaces its value), and the pages they make: NULL while there are
	 * none, else built and checked by emu_config_load() (never freed). */
	unsigned int num_caps;
	struct emu_cap_override caps[EMU_CONFIG_MAX_CAPS];
	const struct emu_fw_caps *fw_caps;
	enum emu_engine_mode engine_mode;
	uint64_t engine_seed;
	char fault_rules[EMU_CONFIG_FAULTS_MAX];	/* emu/fault syntax */
	uint64_t fault_seed;		/* engine_seed unless set */
	char trace_mode[EMU_CONFIG_FILE_MAX + 8];	/* as given; emu/trace */
	char trace_file[EMU_CONFIG_FILE_MAX];		/* "" or "-": stderr */
	bool trace_elide_defaults;
	bool trace_datapath;			/* WQE and CQE records too */
	char backend_kind[8];			/* emu | hw | auto */
	char backend_hw_libdir[EMU_CONFIG_FILE_MAX];	/* "" unless set */
	/* the wire (VXLAN): its settings as emu/kernel gives them to ports */
	uint32_t wire_vni;
	unsigned int wire_udp_port;		/* every endpoint's VXLAN port */
	bool wire_endpoint_set;
	uint32_t wire_endpoint;			/* host order */
	uint16_t wire_endpoint_port;		/* 0: wire_udp_port */
	unsigned int num_peers;
	struct emu_config_peer {
		uint32_t ip;			/* host order */
		uint16_t port;			/* 0: wire_udp_port */
		bool has_mac;
		uint8_t mac[6];
	} peers[EMU_CONFIG_PEERS_MAX];
	bool wire_strict_l2;
	bool wire_capture_set;
	char wire_capture[EMU_CONFIG_PATH_MAX];	/* a directory */
	bool wire_capture_outer;
	char wire_stats[EMU_CONFIG_FILE_MAX];	/* "" off, "-" stderr */
	bool wire_fast_path;			/* shared memory on this host */
	bool allow_net_raw;			/* CAP_NET_RAW not needed */
	enum emu_config_source source[EMU_SET_COUNT];
};

/* A message for the user, complete ("MLX5EMU_NUM_PORTS=\"3\" ..."). */
struct emu_config_error {
	char msg[1024];
};

struct emu_setting {
	enum emu_setting_id id;
	const char *name;	/* canonical "section.key": "device.num_ports" */
	const char *env;	/* "MLX5EMU_NUM_PORTS" */
	enum emu_setting_type type;
	const char *def;	/* default as text; NULL: unset (optional) */
	const char *def_doc;	/* the default as users read it */
	unsigned long min, max;	/* EMU_TYPE_UINT */
	/*
	 * Parses and checks value; on success stores it in cfg.  On failure
	 * returns -EINVAL and writes the reason (no names: the caller adds
	 * them) to why.
	 */
	int (*validate)(const struct emu_setting *s, const char *value,
			struct emu_config *cfg, char *why, size_t whylen);
	const char *help;
};

/* The table; *n gets its length.  For documentation and `mlx5emu info`. */
const struct emu_setting *emu_config_settings(size_t *n);
/* The row named name ("device.num_ports") or with that env var; or NULL. */
const struct emu_setting *emu_config_find(const char *name);

/* Every setting at its default (never fails: defaults are unset or valid). */
void emu_config_defaults(struct emu_config *cfg);

/*
 * Applies one value from one source.  origin says where it was read, for the
 * message ("/etc/mlx5emu.conf:12"; NULL for the environment).  Returns 0,
 * -EINVAL for any mistake (an unknown setting, a bad value) with err filled
 * in, or -ENOMEM.
 */
int emu_config_set(struct emu_config *cfg, const char *name,
		   const char *value, enum emu_config_source src,
		   const char *origin, struct emu_config_error *err);

/* Applies every set MLX5EMU_* variable of the table from the environment. */
int emu_config_apply_env(struct emu_config *cfg,
			 struct emu_config_error *err);

/*
 * Applies an INI file (the config file's syntax, docs/configuration.md) as
 * the EMU_SRC_FILE source: 0, or -EINVAL with err naming path:line (the
 * first error in the file; also a file that cannot be read), or -ENOMEM.  A file with an error changes
 * nothing in cfg.
 */
int emu_config_apply_file(struct emu_config *cfg, const char *path,
			  struct emu_config_error *err);

/*
 * Checks the capability overrides together (with the identity settings
 * that also shape the pages) and builds cfg->fw_caps; 0 or -EINVAL.
 */
int emu_config_finish(struct emu_config *cfg, struct emu_config_error *err);

/*
 * defaults -> the file named by MLX5EMU_CONFIG (if set) -> environment ->
 * emu_config_finish(); the whole configuration, or an error.
 */
int emu_config_load(struct emu_config *cfg, struct emu_config_error *err);

/*
 * Names of MLX5EMU_* environment variables that are not in the table (likely
 * typos), comma-separated in buf; returns how many.  Only for a warning.
 */
int emu_config_unknown_env(char *buf, size_t len);

/* The current value of setting id as text ("" for unset). */
void emu_config_format(const struct emu_config *cfg, enum emu_setting_id id,
		       char *buf, size_t len);

const char *emu_config_source_name(enum emu_config_source src);

#endif /* MLX5EMU_EMU_DEVICE_DEV_CONFIG_H */
