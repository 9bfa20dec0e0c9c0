/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_config.c -- applying values: one value from one source
 * (emu_config_set, with its error messages), the environment, and the
 * order of the sources (defaults -> config file -> environment).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* environ */
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu/device/dev_config.h"
#include "emu/device/dev_config_int.h"
#include "emu/fault/fault_rule.h"

/* ---- one value from one source ---- */

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
	const struct emu_setting *settings = emu_config_settings(NULL);
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
		ret = emu_config_caps_apply_one(tmp, name + 5, value, src,
						origin, why, sizeof(why));
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
		/* A mistake like any other: one answer, EINVAL. */
		return -EINVAL;
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
		ret = emu_config_caps_apply_list(tmp, value, src, origin, why,
						 sizeof(why));
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
	const struct emu_setting *settings = emu_config_settings(NULL);

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
	const struct emu_setting *settings = emu_config_settings(NULL);
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
	/* One seed for everything unless the faults have their own. */
	if (cfg->source[EMU_SET_FAULT_SEED] == EMU_SRC_DEFAULT)
		cfg->fault_seed = cfg->engine_seed;
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
