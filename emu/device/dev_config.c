/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_config.c -- the settings table and its sources: defaults,
 * the INI config file (libinih), the environment; capability overrides.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* environ */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "emu/device/dev_addr.h"
#include "emu/device/dev_config.h"
#include "emu/device/dev_sysfs.h"
#include "emu/fault/fault.h"
#include "emu/firmware/fw_caps.h"
#include "prm/prm_cmd.h"

/* ---- the syntax shared with emu/fault (dev_config.h) ---- */

bool emu_config_eq_nocase(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
		char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;

		if (x != y)
			return false;
	}
	return *a == *b;
}

int emu_config_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static int validate_uint(const struct emu_setting *s, const char *value,
			 struct emu_config *cfg, char *why, size_t whylen)
{
	unsigned long v = 0;
	const char *p;

	if (!*value) {
		snprintf(why, whylen, "empty; expected an integer from %lu to %lu",
			 s->min, s->max);
		return -EINVAL;
	}
	for (p = value; *p; p++) {
		if (*p < '0' || *p > '9') {
			snprintf(why, whylen,
				 "not a decimal number; expected an integer from %lu to %lu",
				 s->min, s->max);
			return -EINVAL;
		}
	}
	for (p = value; *p && v <= s->max; p++)	/* stops before overflow */
		v = v * 10 + (unsigned long)(*p - '0');
	if (v < s->min || v > s->max) {
		snprintf(why, whylen,
			 "out of range; expected an integer from %lu to %lu",
			 s->min, s->max);
		return -EINVAL;
	}
	switch (s->id) {
	case EMU_SET_NUM_DEVICES:
		cfg->num_devices = (unsigned int)v;
		break;
	case EMU_SET_NUM_PORTS:
		cfg->num_ports = (unsigned int)v;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

static int validate_ipv4(const struct emu_setting *s, const char *value,
			 struct emu_config *cfg, char *why, size_t whylen)
{
	struct in_addr a;
	const char *reason;
	uint32_t ip;

	if (!*value) {		/* empty: back to "unset" (the default) */
		cfg->ip_base_set = false;
		cfg->ip_base = 0;
		return 0;
	}
	if (inet_pton(AF_INET, value, &a) != 1) {
		snprintf(why, whylen,
			 "not an IPv4 address; expected a dotted quad such as 127.18.52.86");
		return -EINVAL;
	}
	ip = ntohl(a.s_addr);
	reason = emu_addr_unusable(ip);
	if (reason) {
		snprintf(why, whylen, "%s", reason);
		return -EINVAL;
	}
	cfg->ip_base_set = true;
	cfg->ip_base = ip;
	return 0;
}

static int validate_dir(const struct emu_setting *s, const char *value,
			struct emu_config *cfg, char *why, size_t whylen)
{
	struct stat st;
	size_t len = strlen(value);

	if (!*value) {
		cfg->sysfs_dir_set = false;
		cfg->sysfs_dir[0] = '\0';
		return 0;
	}
	if (value[0] != '/') {
		snprintf(why, whylen, "not an absolute path");
		return -EINVAL;
	}
	while (len > 1 && value[len - 1] == '/')
		len--;
	if (len > EMU_SYSFS_DIR_MAX) {
		snprintf(why, whylen,
			 "too long (%zu characters); at most %d so that ibdev_path fits rdma-core's %d bytes",
			 len, EMU_SYSFS_DIR_MAX, EMU_SYSFS_PATH_MAX);
		return -EINVAL;
	}
	if (stat(value, &st)) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "not a directory");
		return -EINVAL;
	}
	if (access(value, W_OK | X_OK)) {
		snprintf(why, whylen, "not writable: %s", strerror(errno));
		return -EINVAL;
	}
	memcpy(cfg->sysfs_dir, value, len);
	cfg->sysfs_dir[len] = '\0';
	cfg->sysfs_dir_set = true;
	return 0;
}

/* config.file: a readable regular file. */
static int validate_file(const struct emu_setting *s, const char *value,
			 struct emu_config *cfg, char *why, size_t whylen)
{
	struct stat st;

	if (!*value) {
		cfg->config_file[0] = '\0';
		return 0;
	}
	if (strlen(value) >= sizeof(cfg->config_file)) {
		snprintf(why, whylen, "too long (at most %zu characters)",
			 sizeof(cfg->config_file) - 1);
		return -EINVAL;
	}
	if (stat(value, &st)) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -EINVAL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "not a regular file");
		return -EINVAL;
	}
	if (access(value, R_OK)) {
		snprintf(why, whylen, "not readable: %s", strerror(errno));
		return -EINVAL;
	}
	snprintf(cfg->config_file, sizeof(cfg->config_file), "%s", value);
	return 0;
}

/* fault.rules: every rule must parse (emu/fault's syntax). */
static int validate_rules(const struct emu_setting *s, const char *value,
			  struct emu_config *cfg, char *why, size_t whylen)
{
	int ret;

	if (strlen(value) >= sizeof(cfg->fault_rules)) {
		snprintf(why, whylen, "too long (at most %zu characters)",
			 sizeof(cfg->fault_rules) - 1);
		return -EINVAL;
	}
	ret = emu_fault_parse_list(value, NULL, NULL, NULL, why, whylen);
	if (ret)
		return ret == -ENOMEM ? -ENOMEM : -EINVAL;
	snprintf(cfg->fault_rules, sizeof(cfg->fault_rules), "%s", value);
	return 0;
}

static int validate_u64(const struct emu_setting *s, const char *value,
			struct emu_config *cfg, char *why, size_t whylen)
{
	uint64_t v;

	if (emu_config_parse_u64(value, UINT64_MAX, &v)) {
		snprintf(why, whylen, "expected an integer from 0 to "
			 "18446744073709551615 (decimal or 0x hex)");
		return -EINVAL;
	}
	cfg->fault_seed = v;
	return 0;
}

/*
 * trace.mode: off, text or json (also 0 and 1), optionally ":FILE"; the
 * trace (emu/trace) reads it back as given.  Empty means off.
 */
static int validate_trace_mode(const struct emu_setting *s, const char *value,
			       struct emu_config *cfg, char *why, size_t whylen)
{
	const char *colon = strchr(value, ':');
	size_t n = colon ? (size_t)(colon - value) : strlen(value);
	char mode[8] = "";
	bool off;

	if (strlen(value) >= sizeof(cfg->trace_mode)) {
		snprintf(why, whylen, "too long (at most %zu characters)",
			 sizeof(cfg->trace_mode) - 1);
		return -EINVAL;
	}
	if (n < sizeof(mode))
		memcpy(mode, value, n);
	mode[n < sizeof(mode) ? n : 0] = '\0';
	if (!*value) {
		cfg->trace_mode[0] = '\0';
		return 0;
	}
	off = emu_config_eq_nocase(mode, "off") || !strcmp(mode, "0");
	if (!off && !emu_config_eq_nocase(mode, "text") &&
	    !emu_config_eq_nocase(mode, "json") && strcmp(mode, "1")) {
		snprintf(why, whylen,
			 "expected off, text or json, optionally with :FILE");
		return -EINVAL;
	}
	if (colon && off) {
		snprintf(why, whylen, "\"off\" takes no file");
		return -EINVAL;
	}
	if (colon && !colon[1]) {
		snprintf(why, whylen, "empty file name after ':'");
		return -EINVAL;
	}
	snprintf(cfg->trace_mode, sizeof(cfg->trace_mode), "%s", value);
	return 0;
}

/* trace.file: a file name ("" or "-": stderr), opened by the trace. */
static int validate_trace_file(const struct emu_setting *s, const char *value,
			       struct emu_config *cfg, char *why, size_t whylen)
{
	if (strlen(value) >= sizeof(cfg->trace_file)) {
		snprintf(why, whylen, "too long (at most %zu characters)",
			 sizeof(cfg->trace_file) - 1);
		return -EINVAL;
	}
	snprintf(cfg->trace_file, sizeof(cfg->trace_file), "%s", value);
	return 0;
}

static int validate_bool(const struct emu_setting *s, const char *value,
			 struct emu_config *cfg, char *why, size_t whylen)
{
	static const char *const yes[] = { "1", "yes", "on", "true" };
	static const char *const no[] = { "0", "no", "off", "false" };

	for (size_t i = 0; i < 4; i++) {
		if (emu_config_eq_nocase(value, yes[i])) {
			cfg->trace_elide_defaults = true;
			return 0;
		}
		if (emu_config_eq_nocase(value, no[i])) {
			cfg->trace_elide_defaults = false;
			return 0;
		}
	}
	snprintf(why, whylen, "expected 1, 0, yes, no, on, off, true or false");
	return -EINVAL;
}

/* The caps setting is applied by emu_config_set() itself (it records
 * where each override came from); see caps_apply_list(). */
static int validate_caps(const struct emu_setting *s, const char *value,
			 struct emu_config *cfg, char *why, size_t whylen)
{
	return -EINVAL;
}

static const struct emu_setting settings[EMU_SET_COUNT] = {
	[EMU_SET_NUM_DEVICES] = {
		.id = EMU_SET_NUM_DEVICES,
		.name = "device.num_devices",
		.env = "MLX5EMU_NUM_DEVICES",
		.type = EMU_TYPE_UINT,
		.def = "1",
		.def_doc = "1",
		.min = 0,
		.max = EMU_MAX_DEVICES,
		.validate = validate_uint,
		.help = "Number of emulated devices (mlx5_0, mlx5_1, ...); "
			"0 gives an empty device list.",
	},
	[EMU_SET_NUM_PORTS] = {
		.id = EMU_SET_NUM_PORTS,
		.name = "device.num_ports",
		.env = "MLX5EMU_NUM_PORTS",
		.type = EMU_TYPE_UINT,
		.def = "1",
		.def_doc = "1",
		.min = 1,
		.max = EMU_MAX_PORTS,
		.validate = validate_uint,
		.help = "Ports per device (phys_port_cnt).  A real ConnectX-6 Dx "
			"shows each port as its own PCI function with one port; "
			"2 is an emulator extension.",
	},
	[EMU_SET_IP_BASE] = {
		.id = EMU_SET_IP_BASE,
		.name = "device.ip_base",
		.env = "MLX5EMU_IP_BASE",
		.type = EMU_TYPE_IPV4,
		.def = NULL,
		.def_doc = "127.a.b.c derived from the pid",
		.validate = validate_ipv4,
		.help = "First IPv4 address tried for the ports; each port binds "
			"UDP 4791 on the next free address.  Never 127.0.0.1, never "
			"a last octet of 0 or 255.  Empty means the default.",
	},
	[EMU_SET_SYSFS_DIR] = {
		.id = EMU_SET_SYSFS_DIR,
		.name = "device.sysfs_dir",
		.env = "MLX5EMU_SYSFS_DIR",
		.type = EMU_TYPE_DIR,
		.def = NULL,
		.def_doc = "$XDG_RUNTIME_DIR, else /tmp",
		.validate = validate_dir,
		.help = "Existing writable directory in which each process makes "
			"its private sysfs-like tree (mlx5emu-<pid>-XXXXXX), removed "
			"at exit.  Empty means the default.",
	},
	[EMU_SET_CONFIG_FILE] = {
		.id = EMU_SET_CONFIG_FILE,
		.name = "config.file",
		.env = "MLX5EMU_CONFIG",
		.type = EMU_TYPE_FILE,
		.def = NULL,
		.def_doc = "none (no file is read)",
		.validate = validate_file,
		.help = "The configuration file (INI syntax), read before the "
			"environment is applied.  Only the environment can name "
			"it.  Empty means no file.",
	},
	[EMU_SET_CAPS] = {
		.id = EMU_SET_CAPS,
		.name = "caps",
		.env = "MLX5EMU_CAPS",
		.type = EMU_TYPE_CAPS,
		.def = NULL,
		.def_doc = "none",
		.validate = validate_caps,
		.help = "Capability overrides, FIELD=VALUE separated by commas "
			"or spaces: a cmd_hca_cap field, or PAGE.FIELD for another "
			"page (roce_cap.FIELD); in the file, keys of [caps] and "
			"[caps.PAGE].  They may only lower limits and clear "
			"features; the whole set is checked for consistency.",
	},
	[EMU_SET_FAULT_RULES] = {
		.id = EMU_SET_FAULT_RULES,
		.name = "fault.rules",
		.env = "MLX5EMU_FAULTS",
		.type = EMU_TYPE_RULES,
		.def = NULL,
		.def_doc = "none",
		.validate = validate_rules,
		.help = "Command fault rules separated by ';' "
			"(docs/fault-injection.md); in the file also one rule per "
			"\"rule =\" line of [fault].  The environment replaces the "
			"file's rules.",
	},
	[EMU_SET_FAULT_SEED] = {
		.id = EMU_SET_FAULT_SEED,
		.name = "fault.seed",
		.env = "MLX5EMU_FAULT_SEED",
		.type = EMU_TYPE_U64,
		.def = "0",
		.def_doc = "0",
		.validate = validate_u64,
		.help = "Seed of the prob= rules that give no seed= of their own; "
			"the same seed gives the same firing sequence.",
	},
	[EMU_SET_TRACE_MODE] = {
		.id = EMU_SET_TRACE_MODE,
		.name = "trace.mode",
		.env = "MLX5EMU_TRACE",
		.type = EMU_TYPE_TRACE_MODE,
		.def = NULL,
		.def_doc = "off",
		.validate = validate_trace_mode,
		.help = "The command trace: off, text or json, optionally "
			"followed by :FILE (which wins over trace.file).",
	},
	[EMU_SET_TRACE_FILE] = {
		.id = EMU_SET_TRACE_FILE,
		.name = "trace.file",
		.env = "MLX5EMU_TRACE_FILE",
		.type = EMU_TYPE_FILE,
		.def = NULL,
		.def_doc = "stderr",
		.validate = validate_trace_file,
		.help = "Where the trace goes; empty or - is stderr.",
	},
	[EMU_SET_TRACE_ELIDE] = {
		.id = EMU_SET_TRACE_ELIDE,
		.name = "trace.elide_defaults",
		.env = "MLX5EMU_TRACE_ELIDE",
		.type = EMU_TYPE_BOOL,
		.def = "1",
		.def_doc = "1",
		.validate = validate_bool,
		.help = "In the text trace, leave out fields at their default "
			"(zero).",
	},
};

const struct emu_setting *emu_config_settings(size_t *n)
{
	if (n)
		*n = EMU_SET_COUNT;
	return settings;
}

const struct emu_setting *emu_config_find(const char *name)
{
	for (size_t i = 0; i < EMU_SET_COUNT; i++)
		if (!strcmp(settings[i].name, name) ||
		    !strcmp(settings[i].env, name))
			return &settings[i];
	return NULL;
}

const char *emu_config_source_name(enum emu_config_source src)
{
	switch (src) {
	case EMU_SRC_DEFAULT:
		return "default";
	case EMU_SRC_FILE:
		return "config file";
	case EMU_SRC_ENV:
		return "environment";
	}
	return "?";
}

void emu_config_defaults(struct emu_config *cfg)
{
	char why[256];

	memset(cfg, 0, sizeof(*cfg));
	for (size_t i = 0; i < EMU_SET_COUNT; i++) {
		cfg->source[i] = EMU_SRC_DEFAULT;
		if (settings[i].def)
			settings[i].validate(&settings[i], settings[i].def, cfg,
					     why, sizeof(why));
	}
}

/* The value as a message quotes it: long values are cut, so the reason
 * at the end of the message always fits. */
#define SHOWN_VALUE_MAX 96

static void set_error(struct emu_config_error *err,
		      const struct emu_setting *s, const char *value,
		      enum emu_config_source src, const char *origin,
		      const char *why)
{
	int shown = (int)strnlen(value, SHOWN_VALUE_MAX + 1);
	const char *more = "";

	if (!err)
		return;
	if (shown > SHOWN_VALUE_MAX) {
		shown = SHOWN_VALUE_MAX;
		more = "...";
	}
	switch (src) {
	case EMU_SRC_ENV:
		snprintf(err->msg, sizeof(err->msg),
			 "%s=\"%.*s%s\" is invalid (setting %s, from the environment): %s",
			 s->env, shown, value, more, s->name, why);
		break;
	case EMU_SRC_FILE:
		snprintf(err->msg, sizeof(err->msg),
			 "%s=\"%.*s%s\" is invalid (from %s; environment variable %s): %s",
			 s->name, shown, value, more,
			 origin ? origin : "the config file", s->env, why);
		break;
	default:
		snprintf(err->msg, sizeof(err->msg),
			 "default %s=\"%.*s%s\" is invalid (environment variable %s): %s",
			 s->name, shown, value, more, s->env, why);
		break;
	}
}

/* ---- capability overrides ---- */

/* "log_max_cq_sz" or "roce_cap.FIELD" -> the page type and the field. */
static int caps_resolve(const char *name, unsigned int *type,
			const char **field, char *why, size_t whylen)
{
	const char *dot = strchr(name, '.');

	*type = MLX5_CAP_GENERAL;
	*field = name;
	if (dot) {
		for (unsigned int t = 0; t < 0x40; t++) {
			const char *st = emu_fw_cap_type_struct(t);

			if (emu_fw_cap_type_known(t) && st &&
			    strlen(st) == (size_t)(dot - name) &&
			    !strncmp(st, name, (size_t)(dot - name))) {
				*type = t;
				*field = dot + 1;
				break;
			}
		}
	}
	if (!**field) {
		snprintf(why, whylen, "no field name");
		return -EINVAL;
	}
	return 0;
}

/* The page structs an override may name, for messages. */
static void caps_pages(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int t = 0; t < 0x40; t++) {
		const char *st = emu_fw_cap_type_struct(t);

		if (emu_fw_cap_type_known(t) && st && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "", st);
	}
}

/*
 * One override "name" (after "caps.") = value from src/origin, checked
 * against the default pages (the field exists, is a scalar, the value
 * fits) and recorded; the whole set is checked by emu_config_finish().
 */
static int caps_apply_one(struct emu_config *cfg, const char *name,
			  const char *value, enum emu_config_source src,
			  const char *origin, char *why, size_t whylen)
{
	struct emu_fw_caps *scratch;
	struct emu_cap_override *o = NULL;
	const char *field, *st;
	unsigned int type;
	uint64_t v;
	int ret;

	ret = caps_resolve(name, &type, &field, why, whylen);
	if (ret)
		return ret;
	st = emu_fw_cap_type_struct(type);
	if (type == MLX5_CAP_GENERAL &&
	    (!strcmp(field, "num_ports") || !strcmp(field, "vhca_id"))) {
		snprintf(why, whylen, "cmd_hca_cap.%s is part of the device's "
			 "identity%s", field, !strcmp(field, "num_ports") ?
			 "; set device.num_ports instead" : "");
		return -EINVAL;
	}
	if (strlen(field) >= sizeof(o->field)) {
		snprintf(why, whylen, "field name too long");
		return -EINVAL;
	}
	ret = emu_config_parse_u64(value, UINT64_MAX, &v);
	if (ret) {
		snprintf(why, whylen, "%s", ret == -ERANGE ?
			 "does not fit in 64 bits" :
			 "expected an integer (decimal or 0x hex)");
		return -EINVAL;
	}
	scratch = emu_fw_caps_new();
	if (!scratch) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	ret = emu_fw_caps_set(scratch, type, field, v);
	emu_fw_caps_free(scratch);
	if (ret == -ENOENT) {
		char pages[256];

		caps_pages(pages, sizeof(pages));
		snprintf(why, whylen, "%s has no field %s (pages: %s)", st,
			 field, pages);
		return -EINVAL;
	}
	if (ret == -ERANGE) {
		snprintf(why, whylen, "%s does not fit in %s.%s", value, st,
			 field);
		return -EINVAL;
	}
	if (ret) {
		snprintf(why, whylen, "%s.%s is not a number field", st, field);
		return -EINVAL;
	}

	for (unsigned int i = 0; i < cfg->num_caps; i++)
		if (cfg->caps[i].type == type && !strcmp(cfg->caps[i].field, field))
			o = &cfg->caps[i];
	if (!o) {
		if (cfg->num_caps >= EMU_CONFIG_MAX_CAPS) {
			snprintf(why, whylen, "too many capability overrides "
				 "(at most %d)", EMU_CONFIG_MAX_CAPS);
			return -EINVAL;
		}
		o = &cfg->caps[cfg->num_caps++];
		o->type = type;
		snprintf(o->field, sizeof(o->field), "%s", field);
	}
	o->value = v;
	o->src = src;
	if (src == EMU_SRC_FILE)
		snprintf(o->origin, sizeof(o->origin), "caps.%s from %s", name,
			 origin ? origin : "the config file");
	else
		snprintf(o->origin, sizeof(o->origin), "%s in MLX5EMU_CAPS", name);
	return 0;
}

/* MLX5EMU_CAPS: NAME=VALUE items separated by commas or white space. */
static int caps_apply_list(struct emu_config *cfg, const char *list,
			   enum emu_config_source src, const char *origin,
			   char *why, size_t whylen)
{
	const char *p = list;

	for (;;) {
		char item[256], reason[256];
		char *eq;
		size_t n;
		int ret;

		while (*p == ',' || *p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return 0;
		n = strcspn(p, ", \t");
		if (n >= sizeof(item)) {
			snprintf(why, whylen, "item \"%.32s...\" is too long", p);
			return -EINVAL;
		}
		memcpy(item, p, n);
		item[n] = '\0';
		p += n;
		eq = strchr(item, '=');
		if (!eq || eq == item) {
			snprintf(why, whylen, "\"%s\" is not FIELD=VALUE", item);
			return -EINVAL;
		}
		*eq = '\0';
		ret = caps_apply_one(cfg, item, eq + 1, src, origin, reason,
				     sizeof(reason));
		if (ret) {
			if (snprintf(why, whylen, "%s: %s", item, reason) >=
			    (int)whylen)
				why[whylen - 1] = '\0';	/* cut: still a message */
			return ret;
		}
	}
}

/* Built capability pages stay reachable for the life of the process (a
 * device's configuration points at them; emu_fw_create copies them). */
struct caps_keep {
	struct caps_keep *next;
	struct emu_fw_caps *caps;
};
static pthread_mutex_t caps_keep_lock = PTHREAD_MUTEX_INITIALIZER;
static struct caps_keep *caps_kept;

int emu_config_finish(struct emu_config *cfg, struct emu_config_error *err)
{
	struct emu_fw_caps *caps;
	struct caps_keep *keep;
	char why[256];

	cfg->fw_caps = NULL;
	if (!cfg->num_caps)
		return 0;
	caps = emu_fw_caps_new();
	keep = malloc(sizeof(*keep));
	if (!caps || !keep) {
		emu_fw_caps_free(caps);
		free(keep);
		if (err)
			snprintf(err->msg, sizeof(err->msg),
				 "out of memory for the capability overrides");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < cfg->num_caps; i++)
		emu_fw_caps_set(caps, cfg->caps[i].type, cfg->caps[i].field,
				cfg->caps[i].value);
	/* As emu_fw_create() will: the identity wins over the pages. */
	emu_fw_caps_set(caps, MLX5_CAP_GENERAL, "num_ports", cfg->num_ports);
	if (emu_fw_caps_check(caps, why, sizeof(why))) {
		if (err) {
			size_t n = (size_t)snprintf(err->msg, sizeof(err->msg),
				"capability overrides are inconsistent: %s "
				"(overrides: ", why);

			for (unsigned int i = 0; i < cfg->num_caps &&
			     n < sizeof(err->msg); i++)
				n += (size_t)snprintf(err->msg + n,
					sizeof(err->msg) - n, "%s%s=%" PRIu64 " (%s)",
					i ? ", " : "", cfg->caps[i].field,
					cfg->caps[i].value, cfg->caps[i].origin);
			if (n < sizeof(err->msg))
				snprintf(err->msg + n, sizeof(err->msg) - n, ")");
		}
		emu_fw_caps_free(caps);
		free(keep);
		return -EINVAL;
	}
	keep->caps = caps;
	pthread_mutex_lock(&caps_keep_lock);
	keep->next = caps_kept;
	caps_kept = keep;
	pthread_mutex_unlock(&caps_keep_lock);
	cfg->fw_caps = caps;
	return 0;
}

/* ---- one value from one source ---- */

static void caps_error(struct emu_config_error *err, const char *name,
		       const char *value, enum emu_config_source src,
		       const char *origin, const char *why)
{
	if (!err)
		return;
	if (src == EMU_SRC_ENV)
		snprintf(err->msg, sizeof(err->msg),
			 "MLX5EMU_CAPS=\"%s\" is invalid (setting caps, from the "
			 "environment): %s", value, why);
	else
		snprintf(err->msg, sizeof(err->msg),
			 "%s=\"%s\" is invalid (from %s): %s", name, value,
			 origin ? origin : "the config file", why);
}

int emu_config_set(struct emu_config *cfg, const char *name,
		   const char *value, enum emu_config_source src,
		   const char *origin, struct emu_config_error *err)
{
	const struct emu_setting *s;
	struct emu_config *tmp;
	char why[EMU_FAULT_ERR_MAX] = "";
	int ret;

	if (!value)
		value = "";
	/* One capability override: "caps.FIELD" / "caps.PAGE.FIELD". */
	if (!strncmp(name, "caps.", 5)) {
		tmp = malloc(sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		*tmp = *cfg;
		ret = caps_apply_one(tmp, name + 5, value, src, origin, why,
				     sizeof(why));
		if (ret) {
			caps_error(err, name, value, src, origin, why);
		} else {
			tmp->source[EMU_SET_CAPS] = src;
			*cfg = *tmp;
		}
		free(tmp);
		return ret;
	}
	s = emu_config_find(name);
	if (!s) {
		if (err) {
			char known[512] = "";

			for (size_t i = 0; i < EMU_SET_COUNT; i++) {
				strncat(known, i ? ", " : "",
					sizeof(known) - strlen(known) - 1);
				strncat(known, settings[i].name,
					sizeof(known) - strlen(known) - 1);
			}
			snprintf(err->msg, sizeof(err->msg),
				 "unknown setting \"%s\"%s%s%s (known: %s)", name,
				 origin ? " (from " : "", origin ? origin : "",
				 origin ? ")" : "", known);
		}
		return -ENOENT;
	}
	if (s->id == EMU_SET_CONFIG_FILE && src == EMU_SRC_FILE) {
		set_error(err, s, value, src, origin,
			  "only the environment can name the config file");
		return -EINVAL;
	}
	/* Validate into a copy: a bad value leaves cfg as it was. */
	tmp = malloc(sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	*tmp = *cfg;
	if (s->id == EMU_SET_CAPS) {
		tmp->num_caps = 0;	/* a later source replaces the list... */
		for (unsigned int i = 0; i < cfg->num_caps; i++)
			if (cfg->caps[i].src != src)	/* ...of its own source */
				tmp->caps[tmp->num_caps++] = cfg->caps[i];
		ret = caps_apply_list(tmp, value, src, origin, why, sizeof(why));
	} else {
		ret = s->validate(s, value, tmp, why, sizeof(why));
	}
	if (!ret && s->id == EMU_SET_FAULT_RULES && src == EMU_SRC_FILE &&
	    cfg->source[s->id] == EMU_SRC_FILE && cfg->fault_rules[0]) {
		/* Rules of one file add up; a later source replaces them. */
		if (strlen(cfg->fault_rules) + 2 + strlen(value) >=
		    sizeof(tmp->fault_rules)) {
			snprintf(why, sizeof(why), "the file's rules are too long "
				 "together (at most %zu characters)",
				 sizeof(tmp->fault_rules) - 1);
			ret = -EINVAL;
		} else {
			size_t n = strlen(cfg->fault_rules);

			memcpy(tmp->fault_rules, cfg->fault_rules, n);
			memcpy(tmp->fault_rules + n, "; ", 2);
			strcpy(tmp->fault_rules + n + 2, value);
		}
	}
	if (ret) {
		set_error(err, s, value, src, origin, why);
		free(tmp);
		return ret == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	tmp->source[s->id] = src;
	*cfg = *tmp;
	free(tmp);
	return 0;
}

int emu_config_apply_env(struct emu_config *cfg, struct emu_config_error *err)
{
	for (size_t i = 0; i < EMU_SET_COUNT; i++) {
		const char *v = getenv(settings[i].env);
		int ret;

		if (!v)
			continue;
		ret = emu_config_set(cfg, settings[i].name, v, EMU_SRC_ENV,
				     NULL, err);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- the config file ---- */

struct ini_ctx {
	FILE *f;
	const char *path;
	unsigned int lineno;
	unsigned int section_line;	/* of the last [section] line */
	char raw[1024];			/* the current line, as read */
	struct emu_config *cfg;
	struct emu_config_error *err;
	unsigned int err_line;		/* first error we reported, 0: none */
	int ret;
};

static void cfg_ini_error(struct ini_ctx *c, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void cfg_ini_error(struct ini_ctx *c, int ret, const char *fmt, ...)
{
	va_list ap;

	if (c->ret)
		return;
	c->ret = ret;
	c->err_line = c->lineno;
	if (c->err) {
		va_start(ap, fmt);
		vsnprintf(c->err->msg, sizeof(c->err->msg), fmt, ap);
		va_end(ap);
	}
}

/*
 * inih's reader: one line per call, so our line numbers are inih's.  Leading
 * white space goes (inih would take an indented line for a continuation of
 * the previous value); a line longer than inih's buffer is an error here,
 * never split.
 */
static char *cfg_ini_reader(char *str, int num, void *stream)
{
	struct ini_ctx *c = stream;
	char *line = NULL, *p;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, c->f);

	if (n < 0) {
		free(line);
		return NULL;
	}
	c->lineno++;
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	for (p = line; *p == ' ' || *p == '\t'; p++)
		;
	snprintf(c->raw, sizeof(c->raw), "%s", p);
	if (*p == '[')
		c->section_line = c->lineno;
	if (strlen(p) + 2 > (size_t)num) {
		cfg_ini_error(c, -EINVAL, "%s:%u: line too long (at most %d "
			  "characters)", c->path, c->lineno, num - 2);
		str[0] = '\0';		/* inih sees an empty line */
	} else {
		snprintf(str, (size_t)num, "%s\n", p);
	}
	free(line);
	return str;
}

/* Sections and what their keys become. */
static bool cfg_ini_section_ok(const char *section)
{
	unsigned int type;
	const char *field;
	char why[64];

	/* [config] has no settings, but "file =" there gets its own
	 * message from emu_config_set(). */
	if (!strcmp(section, "device") || !strcmp(section, "fault") ||
	    !strcmp(section, "trace") || !strcmp(section, "caps") ||
	    !strcmp(section, "config"))
		return true;
	if (strncmp(section, "caps.", 5))
		return false;
	/* [caps.PAGE]: PAGE must be a described capability page. */
	{
		char probe[128];

		snprintf(probe, sizeof(probe), "%s.x", section + 5);
		return !caps_resolve(probe, &type, &field, why, sizeof(why)) &&
		       field != probe;
	}
}

static int cfg_ini_handler(void *user, const char *section, const char *key,
		       const char *value)
{
	struct ini_ctx *c = user;
	char name[256], origin[EMU_CONFIG_FILE_MAX + 16];
	int ret;

	if (c->ret)
		return 1;	/* the first error is the one reported */
	snprintf(origin, sizeof(origin), "%s:%u", c->path, c->lineno);
	if (!*section) {
		cfg_ini_error(c, -EINVAL, "%s: \"%s\" is outside a section; put it "
			  "under [device], [caps], [fault] or [trace]", origin,
			  key);
		return 0;
	}
	if (!cfg_ini_section_ok(section)) {
		char pages[256];

		caps_pages(pages, sizeof(pages));
		cfg_ini_error(c, -EINVAL, "%s:%u: unknown section [%s]; "
			  "expected [device], [caps], [caps.PAGE] (PAGE: %s), "
			  "[fault] or [trace]", c->path, c->section_line,
			  section, pages);
		return 0;
	}
	if (!strcmp(section, "fault") &&
	    (!strcmp(key, "rule") || !strcmp(key, "rules"))) {
		const char *eq = strpbrk(c->raw, "=:");
		const char *v = eq ? eq + 1 : "";
		size_t n;

		while (*v == ' ' || *v == '\t')
			v++;
		n = strlen(v);
		while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
			n--;
		if (n != strlen(value)) {
			cfg_ini_error(c, -EINVAL, "%s: \";\" starts a comment in the "
				  "config file, so it cannot separate fault rules "
				  "or end a rule line: give each rule its own "
				  "\"rule =\" line and comments their own lines",
				  origin);
			return 0;
		}
		snprintf(name, sizeof(name), "fault.rules");
	} else {
		snprintf(name, sizeof(name), "%s.%s", section, key);
	}
	ret = emu_config_set(c->cfg, name, value, EMU_SRC_FILE, origin, c->err);
	if (ret) {
		if (!c->ret) {
			c->ret = ret;
			c->err_line = c->lineno;
		}
		return 0;
	}
	return 1;
}

int emu_config_apply_file(struct emu_config *cfg, const char *path,
			  struct emu_config_error *err)
{
	struct ini_ctx c = { .path = path, .cfg = cfg, .err = err };
	struct emu_config *work;
	int line;

	c.f = fopen(path, "re");
	if (!c.f) {
		int e = errno;

		if (err)
			snprintf(err->msg, sizeof(err->msg),
				 "cannot read the config file %s (MLX5EMU_CONFIG): %s",
				 path, strerror(e));
		return -e;
	}
	/* Apply into a copy: nothing of a bad file stays. */
	work = malloc(sizeof(*work));
	if (!work) {
		fclose(c.f);
		return -ENOMEM;
	}
	*work = *cfg;
	c.cfg = work;
	line = ini_parse_stream(cfg_ini_reader, &c, cfg_ini_handler, &c);
	fclose(c.f);
	if (line == -2 && !c.ret) {
		c.ret = -ENOMEM;
		if (err)
			snprintf(err->msg, sizeof(err->msg),
				 "out of memory reading %s", path);
	} else if (line > 0 && (!c.ret || (unsigned int)line < c.err_line)) {
		c.ret = -EINVAL;
		if (err)
			snprintf(err->msg, sizeof(err->msg),
				 "%s:%d: syntax error: expected [section], "
				 "key = value, or a comment starting with ; or #",
				 path, line);
	}
	if (!c.ret)
		*cfg = *work;
	free(work);
	return c.ret;
}

int emu_config_load(struct emu_config *cfg, struct emu_config_error *err)
{
	const char *path = getenv(settings[EMU_SET_CONFIG_FILE].env);
	int ret;

	emu_config_defaults(cfg);
	if (path && *path) {
		ret = emu_config_set(cfg, settings[EMU_SET_CONFIG_FILE].name,
				     path, EMU_SRC_ENV, NULL, err);
		if (ret)
			return ret;
		ret = emu_config_apply_file(cfg, cfg->config_file, err);
		if (ret)
			return ret;
	}
	ret = emu_config_apply_env(cfg, err);
	if (ret)
		return ret;
	return emu_config_finish(cfg, err);
}

int emu_config_unknown_env(char *buf, size_t len)
{
	static const char prefix[] = "MLX5EMU_";
	int n = 0;

	if (len)
		buf[0] = '\0';
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char name[128];
		size_t nl;

		if (strncmp(*e, prefix, sizeof(prefix) - 1) || !eq)
			continue;
		nl = (size_t)(eq - *e);
		if (nl >= sizeof(name))
			nl = sizeof(name) - 1;
		memcpy(name, *e, nl);
		name[nl] = '\0';
		if (emu_config_find(name))
			continue;
		if (len) {
			size_t used = strlen(buf);

			snprintf(buf + used, len - used, "%s%s", n ? ", " : "",
				 name);
		}
		n++;
	}
	return n;
}

void emu_config_format(const struct emu_config *cfg, enum emu_setting_id id,
		       char *buf, size_t len)
{
	struct in_addr a;

	if (!len)
		return;
	buf[0] = '\0';
	switch (id) {
	case EMU_SET_NUM_DEVICES:
		snprintf(buf, len, "%u", cfg->num_devices);
		break;
	case EMU_SET_NUM_PORTS:
		snprintf(buf, len, "%u", cfg->num_ports);
		break;
	case EMU_SET_IP_BASE:
		if (cfg->ip_base_set) {
			a.s_addr = htonl(cfg->ip_base);
			inet_ntop(AF_INET, &a, buf, (socklen_t)len);
		}
		break;
	case EMU_SET_SYSFS_DIR:
		snprintf(buf, len, "%s", cfg->sysfs_dir);
		break;
	case EMU_SET_CONFIG_FILE:
		snprintf(buf, len, "%s", cfg->config_file);
		break;
	case EMU_SET_CAPS: {
		size_t n = 0;

		for (unsigned int i = 0; i < cfg->num_caps && n < len; i++) {
			const char *st = emu_fw_cap_type_struct(cfg->caps[i].type);

			n += (size_t)snprintf(buf + n, len - n, "%s%s%s%s=%" PRIu64,
				i ? "," : "",
				cfg->caps[i].type ? st : "",
				cfg->caps[i].type ? "." : "",
				cfg->caps[i].field, cfg->caps[i].value);
		}
		break;
	}
	case EMU_SET_FAULT_RULES:
		snprintf(buf, len, "%s", cfg->fault_rules);
		break;
	case EMU_SET_FAULT_SEED:
		snprintf(buf, len, "%" PRIu64, cfg->fault_seed);
		break;
	case EMU_SET_TRACE_MODE:
		snprintf(buf, len, "%s", cfg->trace_mode);
		break;
	case EMU_SET_TRACE_FILE:
		snprintf(buf, len, "%s", cfg->trace_file);
		break;
	case EMU_SET_TRACE_ELIDE:
		snprintf(buf, len, "%d", cfg->trace_elide_defaults ? 1 : 0);
		break;
	default:
		break;
	}
}
