/* SPDX-License-Identifier: MIT */
/*
 * cli/cli.h -- the mlx5emu command: shared declarations of its parts.
 *
 *   mlx5emu.c    dispatch, --version, `help`
 *   cmd_run.c    mlx5emu run       (environment, exec)
 *   devnodes.c   mlx5emu run --dev-nodes (mount / user namespaces)
 *   cmd_info.c   mlx5emu info      (the devices, through the drop-in libs)
 *   cmd_prm.c    mlx5emu prm       (layouts and mailbox decoding)
 *   cmd_stats.c  mlx5emu stats     (the wire's counters as tables)
 *   options.c    checks of the options that become settings
 *   help.c       the manual pages (docs/mlx5emu.1.md says the same)
 */
#ifndef MLX5EMU_CLI_CLI_H
#define MLX5EMU_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>

/* Exit statuses of mlx5emu's own failures (as env(1), timeout(1)). */
#define CLI_EXIT_USAGE 2	/* bad command line (info, prm) */
#define CLI_EXIT_RUN_FAIL 125	/* run: mlx5emu itself failed */
#define CLI_EXIT_NOEXEC 126	/* run: PROGRAM found but not executable */
#define CLI_EXIT_NOTFOUND 127	/* run: PROGRAM not found */

int cmd_run(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_prm(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* The manual page of topic ("mlx5emu", "run", "info", "prm"), or NULL. */
const char *cli_manual(const char *topic);
/* Prints topic's page to stdout; 0, or 2 for an unknown topic. */
int cli_print_manual(const char *topic);
/* "mlx5emu run: " + message + hint to stderr. */
void cli_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- options that become settings: checked before any device exists ---- */

/* v is a decimal number from min to max; else an error naming opt, -1. */
int cli_check_count(const char *cmd, const char *opt, const char *v,
		    unsigned long min, unsigned long max);
/* The absolute form of path (the program may chdir); 0, or -1 if too long. */
int cli_absolute(const char *path, char *buf, size_t len);
/* --config path: readable; its absolute form in buf.  0, or -1 (reported). */
int cli_check_config(const char *cmd, const char *path, char *buf, size_t len);
/* --fault rules (one or more, ';'-separated): each parses.  0, or -1
 * (reported with the parser's message). */
int cli_check_fault(const char *cmd, const char *rules);

/*
 * The drop-in directory: where the libibverbs.so.1 this program runs on
 * lives (<build>/lib, or ${libdir}/mlx5emu when installed), checked to be
 * mlx5emu's.  0, or -1 with the reason in why.
 */
int cli_dropin_dir(char *buf, size_t len, char *why, size_t whylen);

/* ---- run --dev-nodes ---- */

struct ibv_device;
/* The sysfs-like directory of dev's uverbs node (holds "dev": "231:192"). */
void cli_uverbs_dir(const struct ibv_device *dev, char *buf, size_t len);

struct cli_devnode {
	char name[64];			/* "uverbs0" */
	unsigned int major, minor;	/* 231:192 */
	bool ucap;			/* a user-capability node (0600) */
};

/*
 * Asks the emulator (in a child process, with the environment as it is
 * now) which uverbs nodes its devices have, and which user-capability
 * nodes (class/infiniband_ucaps: the devices advertise them).  Returns how many (<= max), or
 * -1 with the reason in why.
 */
int cli_probe_devnodes(struct cli_devnode *nodes, int max, char *why,
		       size_t whylen);

/*
 * Puts this process in a private mount namespace (a user namespace too when
 * not root) whose /dev has infiniband/<name> for each node.  Must be called
 * single-threaded, right before exec.  0, or -1 with the reason in why.
 * *how tells what the nodes are ("character devices", "bind mounts of
 * /dev/null").
 */
int cli_devnodes_setup(const struct cli_devnode *nodes, int n,
		       const char **how, char *why, size_t whylen);

#endif /* MLX5EMU_CLI_CLI_H */
