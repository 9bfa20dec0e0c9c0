/* SPDX-License-Identifier: MIT */
/*
 * bench_mem: what the checked access layer (emu/mem) costs against the
 * plain copy it wraps, measured in the same run.  Not a timed test: it
 * prints figures and ratios; the quick mode (-q) only proves the path runs.
 *
 * Output lines: "key best median unit" (best = the trial closest to the
 * physical limit on a noisy shared machine), then "ratio_<size> x" =
 * guarded best / memcpy best.
 *
 * Usage: bench_mem [-q]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/mem/mem.h"

#include "bench_util.h"

static void *(*volatile plain_copy)(void *, const void *, size_t) = memcpy;

/* GB/s of one trial: copy size bytes iters times. */
static double trial(int guarded, char *dst, const char *src, size_t size,
		    long iters)
{
	double t0 = bench_now_s(), t;

	for (long i = 0; i < iters; i++) {
		if (guarded) {
			if (emu_mem_copy(dst, src, size)) {
				fprintf(stderr, "bench_mem: copy faulted\n");
				exit(1);
			}
		} else {
			plain_copy(dst, src, size);
		}
		__asm__ __volatile__("" ::: "memory");
	}
	t = bench_now_s() - t0;
	return (double)size * (double)iters / t / 1e9;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 64, 4096, 65536, 1 << 20 };
	int quick = argc > 1 && !strcmp(argv[1], "-q");
	int ntrials = quick ? 3 : 11;
	char *src = aligned_alloc(4096, 1 << 20), *dst = aligned_alloc(4096, 1 << 20);

	if (!src || !dst || emu_mem_init())
		return 1;
	memset(src, 1, 1 << 20);
	memset(dst, 2, 1 << 20);
	printf("# bench_mem: emu_mem_copy vs memcpy, cache-hot, GB/s = 1e9 B/s\n");
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t size = sizes[s];
		long iters = (long)((quick ? 2e7 : 2e8) / (double)size) + 1;
		double r[2][11], best[2];

		for (int t = 0; t < ntrials; t++)
			for (int g = 0; g < 2; g++)
				r[g][t] = trial(g, dst, src, size, iters);
		for (int g = 0; g < 2; g++) {
			bench_sort(r[g], (size_t)ntrials);
			best[g] = r[g][ntrials - 1];
			printf("%s_%zu %.2f %.2f GB/s\n",
			       g ? "guarded" : "memcpy", size, best[g],
			       r[g][ntrials / 2]);
		}
		printf("ratio_%zu %.3f x\n", size, best[1] / best[0]);
	}
	free(src);
	free(dst);
	return 0;
}
