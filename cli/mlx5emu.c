/* SPDX-License-Identifier: MIT */
/*
 * cli/mlx5emu.c -- the mlx5emu command: `mlx5emu COMMAND ...`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

#ifndef MLX5EMU_VERSION
#define MLX5EMU_VERSION "unknown"
#endif

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mlx5emu%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "run", cmd_run },
	{ "info", cmd_info },
	{ "prm", cmd_prm },
	{ "stats", cmd_stats },
	{ "help", cmd_help },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mlx5emu run [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"       mlx5emu info [OPTIONS]\n"
		"       mlx5emu prm list | dump STRUCT | decode [...] HEX...\n"
		"       mlx5emu stats [--ports | --qps] [FILE...]\n"
		"       mlx5emu help [COMMAND]\n"
		"       mlx5emu --version\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("mlx5emu %s\n", MLX5EMU_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cli_print_manual("mlx5emu");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	cli_error(NULL, "unknown command '%s'", argv[1]);
	usage(stderr);
	return CLI_EXIT_USAGE;
}
