/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_config_file.c -- the config file source: an INI file read
 * with libinih, its sections and keys turned into settings, every value
 * applied through emu_config_set() with its path:line; all or nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* getline */
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <ini.h>

#include "emu/device/dev_config.h"
#include "emu/device/dev_config_int.h"

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
	if (!strcmp(section, "device") || !strcmp(section, "engine") ||
	    !strcmp(section, "fault") || !strcmp(section, "trace") ||
	    !strcmp(section, "caps") || !strcmp(section, "backend") ||
	    !strcmp(section, "wire") ||
	    !strcmp(section, "config"))
		return true;
	if (strncmp(section, "caps.", 5))
		return false;
	/* [caps.PAGE]: PAGE must be a described capability page. */
	{
		char probe[128];

		snprintf(probe, sizeof(probe), "%s.x", section + 5);
		return !emu_config_caps_resolve(probe, &type, &field, why,
						sizeof(why)) &&
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
			  "under [device], [caps], [engine], [fault], [trace], "
			  "[backend] or [wire]", origin,
			  key);
		return 0;
	}
	if (!cfg_ini_section_ok(section)) {
		char pages[256];

		emu_config_caps_pages(pages, sizeof(pages));
		cfg_ini_error(c, -EINVAL, "%s:%u: unknown section [%s]; "
			  "expected [device], [caps], [caps.PAGE] (PAGE: %s), "
			  "[engine], [fault], [trace], [backend] or [wire]",
			  c->path, c->section_line, section, pages);
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
		return -EINVAL;
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
