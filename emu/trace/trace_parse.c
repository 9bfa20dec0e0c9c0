/* SPDX-License-Identifier: MIT */
/*
 * emu/trace/trace_parse.c -- the trace.mode value, "off|text|json[:FILE]"
 * (no device dependencies: the mlx5emu command checks --trace with it).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "emu/trace/trace.h"

int emu_trace_parse(const char *spec, struct emu_trace_config *cfg,
		    char *why, size_t whylen)
{
	const char *colon;
	size_t n;

	if (!spec || !cfg) {
		snprintf(why, whylen, "no value");
		return -EINVAL;
	}
	colon = strchr(spec, ':');
	n = colon ? (size_t)(colon - spec) : strlen(spec);
	if (!n && !colon) {		/* empty: off, as unset */
		cfg->on = false;
		return 0;
	}
	if ((n == 3 && !strncasecmp(spec, "off", 3)) ||
	    (n == 1 && spec[0] == '0')) {
		if (colon) {
			snprintf(why, whylen, "\"off\" takes no file");
			return -EINVAL;
		}
		cfg->on = false;
		return 0;
	}
	if (n == 4 && !strncasecmp(spec, "text", 4)) {
		cfg->fmt = EMU_TRACE_TEXT;
	} else if (n == 4 && !strncasecmp(spec, "json", 4)) {
		cfg->fmt = EMU_TRACE_JSON;
	} else if (n == 1 && spec[0] == '1') {
		cfg->fmt = EMU_TRACE_TEXT;
	} else {
		snprintf(why, whylen,
			 "expected off, text or json, optionally with :FILE");
		return -EINVAL;
	}
	if (colon) {
		if (!colon[1]) {
			snprintf(why, whylen, "empty file name after ':'");
			return -EINVAL;
		}
		if (strlen(colon + 1) >= sizeof(cfg->file)) {
			snprintf(why, whylen, "file name too long");
			return -EINVAL;
		}
		strcpy(cfg->file, colon + 1);
	}
	cfg->on = true;
	return 0;
}

