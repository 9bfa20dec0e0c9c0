/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_config_caps.c -- capability overrides (the caps setting,
 * caps.FIELD and caps.PAGE.FIELD): each checked against the default pages
 * and recorded with its origin; the whole set checked and built into the
 * capability pages by emu_config_finish().
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/device/dev_config.h"
#include "emu/device/dev_config_int.h"
#include "emu/firmware/fw_caps.h"
#include "prm/prm_cmd.h"

/* "log_max_cq_sz" or "roce_cap.FIELD" -> the page type and the field. */
int emu_config_caps_resolve(const char *name, unsigned int *type,
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
void emu_config_caps_pages(char *buf, size_t len)
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
int emu_config_caps_apply_one(struct emu_config *cfg, const char *name,
			      const char *value, enum emu_config_source src,
			      const char *origin, char *why, size_t whylen)
{
	struct emu_fw_caps *scratch;
	struct emu_cap_override *o = NULL;
	const char *field, *st;
	unsigned int type;
	uint64_t v;
	int ret;

	ret = emu_config_caps_resolve(name, &type, &field, why, whylen);
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
	ret = emu_text_parse_u64(value, UINT64_MAX, &v);
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

		emu_config_caps_pages(pages, sizeof(pages));
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
int emu_config_caps_apply_list(struct emu_config *cfg, const char *list,
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
		ret = emu_config_caps_apply_one(cfg, item, eq + 1, src, origin,
						 reason, sizeof(reason));
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
