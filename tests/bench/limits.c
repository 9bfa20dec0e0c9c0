/* SPDX-License-Identifier: MIT */
/*
 * limits: what this machine can physically do, the denominators of every
 * benchmark ratio (bench_limits.h says what each figure measures).  Not a
 * timed test: it prints figures; the quick mode (-q) proves each
 * measurement runs and fails when one of them cannot.
 *
 * Output: "key best median unit" per line (best = the best trial of this
 * run: the largest rate, the smallest time).
 *
 * Usage: limits [-q] [-n]      -n: no UDP (the in-process limits only)
 */
#include <stdio.h>
#include <unistd.h>

#include "bench_limits.h"

static int failed;

static void show(const char *key, struct bench_fig f, const char *unit)
{
	printf("%s %.2f %.2f %s\n", key, f.best, f.median, unit);
	fflush(stdout);
	if (!(f.best > 0)) {
		fprintf(stderr, "limits: %s was not measured\n", key);
		failed = 1;
	}
}

int main(int argc, char **argv)
{
	static const struct { size_t size; const char *key; } copies[] = {
		{ 64, "memcpy_64B" }, { 4096, "memcpy_4KiB" },
		{ 65536, "memcpy_64KiB" }, { 1 << 20, "memcpy_1MiB" },
	};
	int quick = 0, udp = 1, opt, a, b;

	while ((opt = getopt(argc, argv, "qn")) != -1) {
		if (opt == 'q') {
			quick = 1;
		} else if (opt == 'n') {
			udp = 0;
		} else {
			fprintf(stderr, "usage: limits [-q] [-n]\n");
			return 2;
		}
	}
	printf("# limits%s: key best median unit\n", quick ? " (quick)" : "");
	for (size_t i = 0; i < sizeof(copies) / sizeof(copies[0]); i++)
		show(copies[i].key, lim_memcpy(copies[i].size, quick), "GB/s");
	if (!bench_two_cpus(&a, &b)) {
		printf("# two-thread limits skipped: fewer than 2 CPUs allowed\n");
		return failed;
	}
	show("handoff_oneway", lim_handoff(quick), "ns");
	show("ring_64B", lim_ring(quick), "Mrec/s");
	if (udp) {
		struct bench_fig f = lim_udp_gso(4096, quick);

		show("udp_oneway", lim_udp_oneway(quick), "ns");
		show("udp_gso_64B", lim_udp_gso(64, quick), "Mdgram/s");
		f.best *= 4096 / 1e3;	/* M datagrams/s to GB/s */
		f.median *= 4096 / 1e3;
		show("udp_gso_4KiB", f, "GB/s");
	}
	return failed;
}
