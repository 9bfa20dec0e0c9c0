/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_config.h -- the emulator's settings: one table (name, type,
 * default, environment variable, validator, help), applied in order
 *
 *     defaults  ->  config file (a later issue)  ->  environment
 *
 * Every source goes through emu_config_set(), so a later source overrides an
 * earlier one and all of them are validated alike.  A bad value is an error
 * whose message names the setting and its environment variable; it never
 * falls back to the default.
 *
 * Adding a setting: a field in struct emu_config, an enumerator in enum
 * emu_setting_id, and one row in the table in dev_config.c (README.md's table
 * lists them for users).
 */
#ifndef MLX5EMU_EMU_DEVICE_DEV_CONFIG_H
#define MLX5EMU_EMU_DEVICE_DEV_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EMU_MAX_DEVICES 16
#define EMU_MAX_PORTS 2
/* Enough for any directory whose ibdev_path still fits IBV_SYSFS_PATH_MAX. */
#define EMU_CONFIG_PATH_MAX 256

enum emu_setting_id {
	EMU_SET_NUM_DEVICES,
	EMU_SET_NUM_PORTS,
	EMU_SET_IP_BASE,
	EMU_SET_SYSFS_DIR,
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
};

struct emu_config {
	unsigned int num_devices;
	unsigned int num_ports;
	bool ip_base_set;
	uint32_t ip_base;			/* host byte order */
	bool sysfs_dir_set;
	char sysfs_dir[EMU_CONFIG_PATH_MAX];	/* "" unless set */
	enum emu_config_source source[EMU_SET_COUNT];
};

/* A message for the user, complete ("MLX5EMU_NUM_PORTS=\"3\" ..."). */
struct emu_config_error {
	char msg[512];
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
 * message ("/etc/mlx5emu.conf:12"; NULL for the environment).  Returns 0, or
 * -ENOENT (unknown setting) or -EINVAL (bad value) with err filled in.
 */
int emu_config_set(struct emu_config *cfg, const char *name,
		   const char *value, enum emu_config_source src,
		   const char *origin, struct emu_config_error *err);

/* Applies every set MLX5EMU_* variable of the table from the environment. */
int emu_config_apply_env(struct emu_config *cfg,
			 struct emu_config_error *err);

/* defaults -> environment; the whole configuration, or an error. */
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
