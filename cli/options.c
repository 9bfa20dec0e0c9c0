/* SPDX-License-Identifier: MIT */
/*
 * cli/options.c -- the checks of the options that become the emulator's
 * settings, made before any device exists, so that a mistake is reported
 * by the command, naming the option it came from, instead of by a device
 * open in the program, attributed to the environment the command set.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mlx5emu/mlx5emu.h>

#include "cli/cli.h"

int cli_check_count(const char *cmd, const char *opt, const char *v,
		    unsigned long min, unsigned long max)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (!*v || *end || errno || n < min || n > max || v[0] == '-') {
		cli_error(cmd, "%s '%s': expected a number from %lu to %lu", opt,
			  v, min, max);
		return -1;
	}
	return 0;
}

int cli_absolute(const char *path, char *buf, size_t len)
{
	char cwd[PATH_MAX];
	int n;

	if (path[0] == '/')
		n = snprintf(buf, len, "%s", path);
	else if (getcwd(cwd, sizeof(cwd)))
		n = snprintf(buf, len, "%s/%s", cwd, path);
	else
		return -1;
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int cli_check_config(const char *cmd, const char *path, char *buf, size_t len)
{
	if (cli_absolute(path, buf, len)) {
		cli_error(cmd, "--config %s: path too long", path);
		return -1;
	}
	if (access(buf, R_OK)) {
		cli_error(cmd, "--config %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int cli_check_fault(const char *cmd, const char *rules)
{
	char *copy = strdup(rules), *save = NULL, *rule;
	int ret = 0;

	if (!copy) {
		cli_error(cmd, "out of memory");
		return -1;
	}
	/* One option may hold several rules, separated by ';' as in
	 * MLX5EMU_FAULTS, which is where they go. */
	for (rule = strtok_r(copy, ";", &save); rule && !ret;
	     rule = strtok_r(NULL, ";", &save)) {
		struct mlx5emu_fault_rule r;

		rule += strspn(rule, " \t");
		if (!*rule)
			continue;
		if (mlx5emu_fault_parse(rule, &r)) {
			cli_error(cmd, "--fault '%s': %s", rules,
				  mlx5emu_fault_last_error());
			ret = -1;
		}
	}
	free(copy);
	return ret;
}
