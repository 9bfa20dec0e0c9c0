/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd_stats.c -- mlx5emu stats: the wire's counters (the JSON lines
 * wire.stats leaves, docs/configuration.md) as two tables, ports and QPs,
 * with a total row for the QPs.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli/cli.h"

#define STATS "stats"

/* The columns, in the order wire.stats writes them. */
static const char *const port_cols[] = {
	"tx_frames", "tx_bytes", "rx_frames", "rx_bytes", "faults", "learned",
};
static const char *const qp_cols[] = {
	"tx_pkts", "rx_pkts", "retransmits", "naks_sent", "naks_rcvd",
	"rnr_naks_rcvd", "duplicates", "dropped", "timeouts",
};
#define NPORT (sizeof(port_cols) / sizeof(port_cols[0]))
#define NQP (sizeof(qp_cols) / sizeof(qp_cols[0]))

struct stats_opts {
	bool ports, qps;
	uint64_t total[NQP];
	unsigned int nqps;
};

static const char *str_of(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
	       json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : "?";
}

/* The counter key of o, or -1 when it has none. */
static int64_t num_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return -1;
	return json_object_get_int64(v);
}

/* A column of width w after a space: the counter, or "-" without one. */
static void print_num(int w, int64_t v)
{
	if (v < 0)
		printf(" %*s", w, "-");
	else
		printf(" %*" PRId64, w, v);
}

static void port_header(void)
{
	printf("%-8s %4s", "dev", "port");
	for (size_t i = 0; i < NPORT; i++)
		printf(" %12s", port_cols[i]);
	printf("  drops\n");
}

static void port_row(json_object *o)
{
	json_object *drops;
	const char *sep = "";

	printf("%-8s", str_of(o, "dev"));
	print_num(4, num_of(o, "port"));
	for (size_t i = 0; i < NPORT; i++)
		print_num(12, num_of(o, port_cols[i]));
	printf("  ");
	if (json_object_object_get_ex(o, "drops", &drops) &&
	    json_object_is_type(drops, json_type_object)) {
		json_object_object_foreach(drops, why, n) {
			printf("%s%s=%" PRId64, sep, why, json_object_get_int64(n));
			sep = ",";
		}
	}
	printf("%s\n", *sep ? "" : "-");
}

static void qp_header(void)
{
	printf("%-8s %8s %-5s", "dev", "qpn", "type");
	for (size_t i = 0; i < NQP; i++)
		printf(" %12s", qp_cols[i]);
	printf("\n");
}

static void qp_row(struct stats_opts *s, json_object *o)
{
	printf("%-8s %#8" PRIx64 " %-5s", str_of(o, "dev"), num_of(o, "qpn"),
	       str_of(o, "type"));
	for (size_t i = 0; i < NQP; i++) {
		int64_t v = num_of(o, qp_cols[i]);

		print_num(12, v);
		if (v > 0)
			s->total[i] += (uint64_t)v;
	}
	printf("\n");
	s->nqps++;
}

/*
 * One pass over the lines of f for one kind ("port" or "qp"); the first
 * row prints the header.  0, or -1 for a line that is not a counters line
 * (reported with its file and line number).
 */
static int stats_pass(struct stats_opts *s, FILE *f, const char *name,
		      const char *kind, bool *headed)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned int lineno = 0;
	int ret = 0;

	rewind(f);
	while (getline(&line, &cap, f) > 0) {
		json_object *o;

		lineno++;
		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		o = json_tokener_parse(line);
		if (!o || !json_object_is_type(o, json_type_object) ||
		    !strcmp(str_of(o, "stats"), "?")) {
			cli_error(STATS, "%s:%u: not a wire.stats line", name,
				  lineno);
			json_object_put(o);
			ret = -1;
			break;
		}
		if (!strcmp(str_of(o, "stats"), kind)) {
			if (!*headed) {
				*kind == 'p' ? port_header() : qp_header();
				*headed = true;
			}
			*kind == 'p' ? port_row(o) : qp_row(s, o);
		}
		json_object_put(o);
	}
	free(line);
	return ret;
}

static void qp_total(const struct stats_opts *s)
{
	if (s->nqps < 2)
		return;
	printf("%-8s %8s %-5s", "total", "", "");
	for (size_t i = 0; i < NQP; i++)
		printf(" %12" PRIu64, s->total[i]);
	printf("\n");
}

/* A file to read twice: standard input ("-") is copied into a temporary
 * one first. */
static FILE *stats_open(const char *name)
{
	char buf[4096];
	FILE *tmp;
	size_t n;

	if (strcmp(name, "-"))
		return fopen(name, "r");
	tmp = tmpfile();
	if (!tmp)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		if (fwrite(buf, 1, n, tmp) != n) {
			fclose(tmp);
			return NULL;
		}
	return tmp;
}

int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ports", no_argument, NULL, 'p' },
		{ "qps", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct stats_opts s = { 0 };
	bool headed[2] = { false, false };
	static char dash[] = "-";
	char *stdin_only[] = { dash };
	char **files;
	FILE **fps;
	int nfiles, c, ret = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+pqh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			s.ports = true;
			break;
		case 'q':
			s.qps = true;
			break;
		case 'h':
			return cli_print_manual("stats");
		default:
			cli_error(STATS, "bad option (mlx5emu help stats)");
			return CLI_EXIT_USAGE;
		}
	}
	if (!s.ports && !s.qps)
		s.ports = s.qps = true;
	files = optind < argc ? argv + optind : stdin_only;
	nfiles = optind < argc ? argc - optind : 1;
	fps = calloc((size_t)nfiles, sizeof(*fps));
	if (!fps)
		return 1;
	for (int i = 0; i < nfiles && !ret; i++) {
		fps[i] = stats_open(files[i]);
		if (!fps[i]) {
			cli_error(STATS, "%s: %s", files[i], strerror(errno));
			ret = 1;
		}
	}
	for (int k = 0; k < 2 && !ret; k++) {
		if (!(k ? s.qps : s.ports))
			continue;
		if (k && headed[0])
			printf("\n");
		for (int i = 0; i < nfiles && !ret; i++)
			if (stats_pass(&s, fps[i], files[i], k ? "qp" : "port",
				       &headed[k]))
				ret = 1;
		if (k && !ret)
			qp_total(&s);
	}
	for (int i = 0; i < nfiles; i++)
		if (fps[i])
			fclose(fps[i]);
	free(fps);
	return ret;
}
