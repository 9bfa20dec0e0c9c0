/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_config_int.h -- inside emu/device's configuration only:
 * the capability overrides (dev_config_caps.c) as emu_config_set() and
 * the config file use them.
 */
#ifndef MLX5EMU_EMU_DEVICE_DEV_CONFIG_INT_H
#define MLX5EMU_EMU_DEVICE_DEV_CONFIG_INT_H

#include <stddef.h>

#include "emu/device/dev_config.h"

/* "log_max_cq_sz" or "roce_cap.FIELD" -> the page type and the field
 * (a pointer into name); -EINVAL with a reason in why when no field. */
int emu_config_caps_resolve(const char *name, unsigned int *type,
			    const char **field, char *why, size_t whylen);

/* The page structs an override may name, ", "-separated, for messages. */
void emu_config_caps_pages(char *buf, size_t len);

/* One override NAME (after "caps.") = value, checked and recorded in cfg. */
int emu_config_caps_apply_one(struct emu_config *cfg, const char *name,
			      const char *value, enum emu_config_source src,
			      const char *origin, char *why, size_t whylen);

/* A MLX5EMU_CAPS list: NAME=VALUE items separated by commas or white
 * space, each through emu_config_caps_apply_one(). */
int emu_config_caps_apply_list(struct emu_config *cfg, const char *list,
			       enum emu_config_source src, const char *origin,
			       char *why, size_t whylen);

/* The wire's settings with a syntax of their own (dev_settings_wire.c). */
int emu_settings_validate_endpoint(const struct emu_setting *s,
				   const char *value, struct emu_config *cfg,
				   char *why, size_t whylen);
int emu_settings_validate_peers(const struct emu_setting *s, const char *value,
				struct emu_config *cfg, char *why,
				size_t whylen);
void emu_settings_format_wire(const struct emu_config *cfg,
			      enum emu_setting_id id, char *buf, size_t len);

#endif /* MLX5EMU_EMU_DEVICE_DEV_CONFIG_INT_H */
