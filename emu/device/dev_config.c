/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_config.c -- the settings table and its sources.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* environ */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu/device/dev_addr.h"
#include "emu/device/dev_config.h"
#include "emu/device/dev_sysfs.h"

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

static void set_error(struct emu_config_error *err,
		      const struct emu_setting *s, const char *value,
		      enum emu_config_source src, const char *origin,
		      const char *why)
{
	if (!err)
		return;
	switch (src) {
	case EMU_SRC_ENV:
		snprintf(err->msg, sizeof(err->msg),
			 "%s=\"%s\" is invalid (setting %s, from the environment): %s",
			 s->env, value, s->name, why);
		break;
	case EMU_SRC_FILE:
		snprintf(err->msg, sizeof(err->msg),
			 "%s=\"%s\" is invalid (from %s; environment variable %s): %s",
			 s->name, value, origin ? origin : "the config file",
			 s->env, why);
		break;
	default:
		snprintf(err->msg, sizeof(err->msg),
			 "default %s=\"%s\" is invalid (environment variable %s): %s",
			 s->name, value, s->env, why);
		break;
	}
}

int emu_config_set(struct emu_config *cfg, const char *name,
		   const char *value, enum emu_config_source src,
		   const char *origin, struct emu_config_error *err)
{
	const struct emu_setting *s = emu_config_find(name);
	struct emu_config tmp;
	char why[256] = "";
	int ret;

	if (!s) {
		if (err) {
			char known[256] = "";

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
	/* Validate into a copy: a bad value leaves cfg as it was. */
	tmp = *cfg;
	ret = s->validate(s, value ? value : "", &tmp, why, sizeof(why));
	if (ret) {
		set_error(err, s, value ? value : "", src, origin, why);
		return ret;
	}
	tmp.source[s->id] = src;
	*cfg = tmp;
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

int emu_config_load(struct emu_config *cfg, struct emu_config_error *err)
{
	emu_config_defaults(cfg);
	/* The config file (a later issue) is applied here, before the
	 * environment, through emu_config_set(..., EMU_SRC_FILE, "path:line"). */
	return emu_config_apply_env(cfg, err);
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
	default:
		break;
	}
}
