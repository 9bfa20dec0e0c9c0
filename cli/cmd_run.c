/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd_run.c -- mlx5emu run [OPTIONS] [--] PROGRAM [ARGS...]: the
 * emulator's environment, then exec.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/personality.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "cli/cli.h"
#include "emu/base/base.h"
#include "emu/trace/trace.h"

#define RUN "run"

int cli_dropin_dir(char *buf, size_t len, char *why, size_t whylen)
{
	char real[PATH_MAX], core[PATH_MAX + 32];
	Dl_info info;
	char *slash;

	/* The libibverbs.so.1 this very program was linked and loaded with
	 * (its RPATH names the drop-in directory, ahead of LD_LIBRARY_PATH). */
	if (!dladdr((void *)ibv_get_device_list, &info) || !info.dli_fname) {
		snprintf(why, whylen, "cannot tell where libibverbs.so.1 was loaded from");
		return -1;
	}
	if (!realpath(info.dli_fname, real)) {
		snprintf(why, whylen, "%s: %s", info.dli_fname, strerror(errno));
		return -1;
	}
	slash = strrchr(real, '/');
	if (!slash || slash == real) {
		snprintf(why, whylen, "odd library path %s", real);
		return -1;
	}
	*slash = '\0';
	snprintf(core, sizeof(core), "%s/libmlx5emu_core.so.0", real);
	if (access(core, R_OK)) {
		snprintf(why, whylen,
			 "libibverbs.so.1 came from %s, which is not an mlx5emu drop-in directory (no libmlx5emu_core.so.0)",
			 real);
		return -1;
	}
	if (strlen(real) >= len) {
		snprintf(why, whylen, "path too long");
		return -1;
	}
	strcpy(buf, real);
	return 0;
}

static int set(const char *name, const char *value, bool verbose)
{
	if (setenv(name, value, 1)) {
		cli_error(RUN, "setenv %s: %s", name, strerror(errno));
		return -1;
	}
	if (verbose)
		fprintf(stderr, "mlx5emu run: %s=%s\n", name, value);
	return 0;
}

/* The rules of every --fault, after those already in MLX5EMU_FAULTS. */
static char *join_faults(char **rules, int n)
{
	const char *old = getenv("MLX5EMU_FAULTS");
	size_t len = old ? strlen(old) + 1 : 1;
	char *s;

	for (int i = 0; i < n; i++)
		len += strlen(rules[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	if (old && *old)
		strcat(s, old);
	for (int i = 0; i < n; i++) {
		if (*s)
			strcat(s, ";");
		strcat(s, rules[i]);
	}
	return s;
}

enum {
	OPT_DEVICES = 256, OPT_MANA, OPT_PORTS, OPT_TRACE, OPT_FAULT, OPT_CONFIG,
	OPT_DEV_NODES, OPT_BACKEND, OPT_DETERMINISTIC, OPT_STATS,
};

static const struct option run_opts[] = {
	{ "devices", required_argument, NULL, OPT_DEVICES },
	{ "mana", required_argument, NULL, OPT_MANA },
	{ "ports", required_argument, NULL, OPT_PORTS },
	{ "trace", optional_argument, NULL, OPT_TRACE },
	{ "fault", required_argument, NULL, OPT_FAULT },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "dev-nodes", no_argument, NULL, OPT_DEV_NODES },
	{ "deterministic", optional_argument, NULL, OPT_DETERMINISTIC },
	{ "stats", required_argument, NULL, OPT_STATS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_run(int argc, char **argv)
{
	const char *devices = NULL, *mana = NULL, *ports = NULL, *trace = NULL,
		   *config = NULL, *backend = NULL, *seed = NULL,
		   *stats = NULL;
	bool dev_nodes = false, verbose = false, deterministic = false;
	char **faults = calloc((size_t)argc, sizeof(char *));
	char dir[PATH_MAX], why[512], buf[PATH_MAX + 64];
	struct emu_trace_config tcfg = { 0 };
	int nfaults = 0, c;
	char *ldpath, *joined;
	const char *old;

	if (!faults) {
		cli_error(RUN, "out of memory");
		return CLI_EXIT_RUN_FAIL;
	}
	opterr = 0;
	optind = 1;
	/* '+': options end at PROGRAM, whose own options are left alone. */
	while ((c = getopt_long(argc, argv, "+vh", run_opts, NULL)) != -1) {
		switch (c) {
		case OPT_DEVICES:
			devices = optarg;
			break;
		case OPT_MANA:
			mana = optarg;
			break;
		case OPT_PORTS:
			ports = optarg;
			break;
		case OPT_TRACE:
			trace = optarg ? optarg : "text";
			break;
		case OPT_FAULT:
			faults[nfaults++] = optarg;
			break;
		case OPT_CONFIG:
			config = optarg;
			break;
		case OPT_BACKEND:
			backend = optarg;
			break;
		case OPT_DEV_NODES:
			dev_nodes = true;
			break;
		case OPT_DETERMINISTIC:
			deterministic = true;
			seed = optarg;
			break;
		case OPT_STATS:
			stats = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			free(faults);
			return cli_print_manual("run");
		default:
			if (optopt && optopt < 256)
				cli_error(RUN, "unknown option '-%c' (mlx5emu help run)",
					  optopt);
			else
				cli_error(RUN, "bad option '%s' (mlx5emu help run)",
					  argv[optind - 1]);
			free(faults);
			return CLI_EXIT_RUN_FAIL;
		}
	}
	if (optind >= argc) {
		cli_error(RUN, "no PROGRAM given (mlx5emu run [OPTIONS] -- PROGRAM [ARGS...])");
		free(faults);
		return CLI_EXIT_RUN_FAIL;
	}
	if ((devices && cli_check_count(RUN, "--devices", devices, 0, 16)) ||
	    (mana && cli_check_count(RUN, "--mana", mana, 0, 4)) ||
	    (ports && cli_check_count(RUN, "--ports", ports, 1, 2)))
		goto fail;
	for (int i = 0; i < nfaults; i++)
		if (cli_check_fault(RUN, faults[i]))
			goto fail;
	if (config && cli_check_config(RUN, config, buf, sizeof(buf)))
		goto fail;
	if (backend && strcasecmp(backend, "emu") && strcasecmp(backend, "hw") &&
	    strcasecmp(backend, "auto")) {
		cli_error(RUN, "--backend '%s': expected emu, hw or auto", backend);
		goto fail;
	}
	if (seed && emu_text_parse_u64(seed, UINT64_MAX, &(uint64_t){ 0 })) {
		cli_error(RUN, "--deterministic=%s: expected a seed from 0 to "
			  "18446744073709551615 (decimal or 0x hex)", seed);
		goto fail;
	}
	if (trace && emu_trace_parse(trace, &tcfg, why, sizeof(why))) {
		cli_error(RUN, "--trace=%s: %s", trace, why);
		goto fail;
	}

	if (cli_dropin_dir(dir, sizeof(dir), why, sizeof(why))) {
		cli_error(RUN, "no drop-in libraries: %s", why);
		goto fail;
	}
	old = getenv("LD_LIBRARY_PATH");
	if (asprintf(&ldpath, "%s%s%s", dir, old && *old ? ":" : "",
		     old && *old ? old : "") < 0)
		goto fail;
	c = set("LD_LIBRARY_PATH", ldpath, verbose);
	free(ldpath);
	if (c)
		goto fail;
	if (devices && set("MLX5EMU_NUM_DEVICES", devices, verbose))
		goto fail;
	if (mana && set("MLX5EMU_MANA_DEVICES", mana, verbose))
		goto fail;
	if (ports && set("MLX5EMU_NUM_PORTS", ports, verbose))
		goto fail;
	if (backend && set("MLX5EMU_BACKEND", backend, verbose))
		goto fail;
	if (config && set("MLX5EMU_CONFIG", buf, verbose))
		goto fail;
	if (stats) {
		/* Absolute: PROGRAM may change directory before it exits. */
		if (!*stats || cli_absolute(stats, buf, sizeof(buf))) {
			cli_error(RUN, "--stats: expected a file name");
			goto fail;
		}
		if (set("MLX5EMU_WIRE_STATS", buf, verbose))
			goto fail;
	}
	if (trace) {
		char spec[PATH_MAX + 80];

		if (tcfg.on && tcfg.file[0] && strcmp(tcfg.file, "-")) {
			int fd;

			if (cli_absolute(tcfg.file, buf, sizeof(buf))) {
				cli_error(RUN, "--trace: file name too long");
				goto fail;
			}
			/* A fresh trace for this run (per-process files are
			 * appended to, as the name is not known yet). */
			if (!strstr(buf, "%p")) {
				fd = open(buf, O_WRONLY | O_CREAT | O_TRUNC |
					  O_CLOEXEC, 0644);
				if (fd < 0) {
					cli_error(RUN, "--trace: %s: %s", buf,
						  strerror(errno));
					goto fail;
				}
				close(fd);
			}
			snprintf(spec, sizeof(spec), "%s:%s",
				 tcfg.fmt == EMU_TRACE_JSON ? "json" : "text", buf);
		} else {
			snprintf(spec, sizeof(spec), "%s", !tcfg.on ? "off" :
				 tcfg.fmt == EMU_TRACE_JSON ? "json" : "text");
		}
		if (set("MLX5EMU_TRACE", spec, verbose))
			goto fail;
	}
	if (deterministic) {
		if (set("MLX5EMU_ENGINE_MODE", "deterministic", verbose) ||
		    (seed && set("MLX5EMU_SEED", seed, verbose)))
			goto fail;
		/* Addresses (buffers, rings) reach the trace: lay the
		 * process out the same way each run, as setarch -R does. */
		if (personality(0xffffffff) == -1 ||
		    personality((unsigned long)personality(0xffffffff) |
				ADDR_NO_RANDOMIZE) == -1)
			fprintf(stderr, "mlx5emu run: warning: cannot turn off "
				"address randomization (%s); addresses in the "
				"trace may differ between runs\n",
				strerror(errno));
		else if (verbose)
			fprintf(stderr, "mlx5emu run: address randomization off\n");
	}
	if (nfaults) {
		joined = join_faults(faults, nfaults);
		if (!joined || set("MLX5EMU_FAULTS", joined, verbose)) {
			free(joined);
			goto fail;
		}
		free(joined);
	}
	free(faults);
	faults = NULL;

	if (dev_nodes) {
		/* 16 devices' uverbs nodes and the user-capability nodes. */
		struct cli_devnode nodes[16 + 2];
		const char *how = "";
		int n = cli_probe_devnodes(nodes, 18, why, sizeof(why));

		if (n < 0) {
			cli_error(RUN, "--dev-nodes: %s", why);
			return CLI_EXIT_RUN_FAIL;
		}
		if (cli_devnodes_setup(nodes, n, &how, why, sizeof(why))) {
			cli_error(RUN, "--dev-nodes: %s", why);
			return CLI_EXIT_RUN_FAIL;
		}
		if (verbose)
			fprintf(stderr, "mlx5emu run: /dev/infiniband: %d node(s), %s\n",
				n, how);
	}
	if (verbose) {
		fprintf(stderr, "mlx5emu run: exec");
		for (int i = optind; i < argc; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, "\n");
	}
	fflush(NULL);
	execvp(argv[optind], argv + optind);
	c = errno;
	cli_error(RUN, "%s: %s", argv[optind], strerror(c));
	return c == ENOENT ? CLI_EXIT_NOTFOUND : CLI_EXIT_NOEXEC;

fail:
	free(faults);
	return CLI_EXIT_RUN_FAIL;
}
