/* SPDX-License-Identifier: MIT */
/*
 * emu/trace/trace_config.c -- the trace settings of a device configuration
 * (emu/device/dev_config.h), read by name so the trace does not depend on
 * how the settings table stores them:
 *
 *   trace.mode            MLX5EMU_TRACE        off | text | json [:FILE]
 *   trace.file            MLX5EMU_TRACE_FILE   FILE ("" or "-": stderr)
 *   trace.elide_defaults  MLX5EMU_TRACE_ELIDE  1 | 0 (text form only)
 *   trace.datapath        MLX5EMU_TRACE_DATAPATH  1 | 0 (WQE/CQE records)
 *
 * A file given in trace.mode wins over trace.file.  A setting the table does
 * not have keeps its default (off, stderr, elide).
 */
#include <string.h>
#include <strings.h>

#include "emu/device/dev_config.h"
#include "emu/trace/trace.h"

static bool trace_setting(const struct emu_config *ec, const char *name,
			  char *buf, size_t len)
{
	const struct emu_setting *s = emu_config_find(name);

	buf[0] = '\0';
	if (!s || !ec)
		return false;
	emu_config_format(ec, s->id, buf, len);
	return true;
}

/* The values a boolean setting may take; the validator refuses others. */
static bool trace_bool(const char *v, bool def)
{
	if (!strcasecmp(v, "0") || !strcasecmp(v, "no") ||
	    !strcasecmp(v, "off") || !strcasecmp(v, "false"))
		return false;
	if (!strcasecmp(v, "1") || !strcasecmp(v, "yes") ||
	    !strcasecmp(v, "on") || !strcasecmp(v, "true"))
		return true;
	return def;
}

void emu_trace_config_from(const struct emu_config *ec,
			   struct emu_trace_config *cfg)
{
	char val[EMU_TRACE_PATH_MAX + 16], why[128];
	struct emu_trace_config mode = { .fmt = EMU_TRACE_TEXT };

	memset(cfg, 0, sizeof(*cfg));
	cfg->fmt = EMU_TRACE_TEXT;
	cfg->elide = true;
	if (trace_setting(ec, "trace.file", val, sizeof(val)) &&
	    strlen(val) < sizeof(cfg->file))
		strcpy(cfg->file, val);
	if (trace_setting(ec, "trace.elide_defaults", val, sizeof(val)) && val[0])
		cfg->elide = trace_bool(val, true);
	if (trace_setting(ec, "trace.datapath", val, sizeof(val)) && val[0])
		cfg->datapath = trace_bool(val, false);
	if (trace_setting(ec, "trace.mode", val, sizeof(val)) &&
	    !emu_trace_parse(val, &mode, why, sizeof(why))) {
		cfg->on = mode.on;
		cfg->fmt = mode.fmt;
		if (mode.file[0])
			strcpy(cfg->file, mode.file);
	}
}
