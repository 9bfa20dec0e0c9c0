/* SPDX-License-Identifier: MIT */
/*
 * Helpers every benchmark of tests/bench shares: a monotonic clock, the
 * best and the median of a run's trials, the process's CPU time, and
 * pinning a thread to a CPU.  Header-only: each program is one file.
 */
#ifndef MLX5EMU_TESTS_BENCH_BENCH_UTIL_H
#define MLX5EMU_TESTS_BENCH_BENCH_UTIL_H

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline double bench_now_s(void)
{
	return (double)bench_now_ns() * 1e-9;
}

/* User plus system time of every thread of the process, in seconds. */
static inline double bench_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v (n > 0) ascending in place. */
static inline void bench_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
}

/* The q-quantile (0..1) of v, sorted ascending: the nearest rank. */
static inline double bench_quantile(const double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)n);

	return v[i < n ? i : n - 1];
}

/* One figure of a run: its best trial (the one nearest the physical limit
 * on a noisy shared machine) and the median of its trials. */
struct bench_fig {
	double best;
	double median;
};

/* Sorts v; best is the largest (rates) or, with lower_is_better, the
 * smallest (times). */
static inline struct bench_fig bench_fig_of(double *v, size_t n,
					    int lower_is_better)
{
	struct bench_fig f;

	bench_sort(v, n);
	f.best = lower_is_better ? v[0] : v[n - 1];
	f.median = v[n / 2];
	return f;
}

static inline void bench_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Pins the calling thread to cpu; 0 or an errno. */
static inline int bench_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* The first two CPUs this process may run on; 0 when it has fewer. */
static inline int bench_two_cpus(int *a, int *b)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		*(n ? b : a) = c;
		n++;
	}
	return n == 2;
}

#endif /* MLX5EMU_TESTS_BENCH_BENCH_UTIL_H */
