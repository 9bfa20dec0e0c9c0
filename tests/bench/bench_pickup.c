/* SPDX-License-Identifier: MIT */
/*
 * bench_pickup: how long an idle engine takes to notice work it is not told
 * about.  A DEVX program (tests/unit/engine/devx_player.c: PRM commands
 * through the kernel layer's backend ops, as libmlx5's DEVX calls reach
 * them) posts a receive, then writes a SEND WQE and the SQ doorbell record
 * only: no UAR store, no library call, so nothing wakes the engine thread
 * and only its polling finds the work.  The time from the doorbell record
 * to the engine's writing the requester CQE (the CQE's timestamp, which
 * the engine takes from CLOCK_MONOTONIC as it writes the CQE) is the pickup
 * delay; the time until this program saw the CQE is printed beside it (on
 * a loaded machine the poller itself waits for a CPU).
 *
 * Before each sample the program sleeps: long gaps (LONG_MS plus a
 * pseudo-random 0-40 ms, so the sample falls anywhere in the park period)
 * put the engine in its longest park; short gaps (5-45 ms) keep it in the
 * first back-off regime.  Not a timed test: it prints figures; the quick
 * mode (-q) takes 3 samples of each and fails only when no CQE comes.
 *
 * Output: "pickup_<regime> median p90 max us (N samples)" (the engine's
 * pickup), "seen_<regime> median p90 max us" (the poller's), and the bound
 * the engine documents (emu_eng_max_pickup_us).
 *
 * The poller yields its CPU between looks at the CQ (sched_yield), so on
 * a machine with few CPUs it does not keep the engine thread from running
 * when its park ends; -b spins without yielding, as a DEVX program that
 * owns a core would, and then shows what such competition adds.
 *
 * Usage: bench_pickup [-b] [-q] [-n SAMPLES]
 */
#include <endian.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "emu/engine/eng.h"
#include "devx_player.h"

#define LONG_MS 60

/* Spin on the CQ without yielding the CPU (-b). */
static bool busy;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_us(uint64_t us)
{
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

struct delay {
	uint64_t engine, seen;	/* ns */
};

/* One doorbell-record-only SEND from cli to srv. */
static struct delay sample(struct dp_player *cli, struct dp_player *srv,
			   uint32_t i)
{
	const struct mlx5_cqe64 *cqe;
	struct delay d;
	uint64_t t0;

	dp_post_recv(srv);
	t0 = now_ns();
	dp_post_send(cli, i, false);
	while (!dp_cq_ready(cli))
		if (!busy)
			sched_yield();
	d.seen = now_ns() - t0;
	cqe = (const void *)dp_poll_cq(cli, NULL);
	d.engine = be64toh(cqe->timestamp) - t0;
	dp_poll_cq(srv, NULL);
	return d;
}

static void report(const char *what, const char *regime, uint64_t *d, int n)
{
	qsort(d, (size_t)n, sizeof(*d), cmp_u64);
	printf("%s_%s %.1f %.1f %.1f us (%d samples)\n", what, regime,
	       (double)d[n / 2] / 1e3, (double)d[n * 9 / 10] / 1e3,
	       (double)d[n - 1] / 1e3, n);
}

static void run(const char *regime, struct dp_player *cli,
		struct dp_player *srv, int n, uint64_t base_us,
		uint64_t spread_us, uint32_t *rng)
{
	uint64_t *eng = calloc((size_t)n, sizeof(*eng));
	uint64_t *seen = calloc((size_t)n, sizeof(*seen));

	DP_ASSERT(eng && seen);
	for (int i = 0; i < n; i++) {
		struct delay d;

		*rng = *rng * 1103515245u + 12345u;
		sleep_us(base_us + (*rng >> 8) % spread_us);
		d = sample(cli, srv, (uint32_t)i);
		eng[i] = d.engine;
		seen[i] = d.seen;
	}
	report("pickup", regime, eng, n);
	report("seen", regime, seen, n);
	free(eng);
	free(seen);
}

int main(int argc, char **argv)
{
	struct dp_player srv, cli;
	uint32_t rng = 1;
	int n = 100, opt;

	while ((opt = getopt(argc, argv, "bqn:")) != -1) {
		switch (opt) {
		case 'q':
			n = 3;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 'b':
			busy = true;
			break;
		default:
			fprintf(stderr, "usage: bench_pickup [-b] [-q] [-n SAMPLES]\n");
			return 2;
		}
	}
	if (n < 1) {
		fprintf(stderr, "bench_pickup: at least one sample\n");
		return 2;
	}
	dp_player_init(&srv);
	dp_player_init(&cli);
	if (!emu_eng_thread_running()) {
		fprintf(stderr, "bench_pickup: the engine thread does not run\n");
		return 1;
	}
	dp_to_rts(&srv, &cli, 0x100, 0x200);
	dp_to_rts(&cli, &srv, 0x200, 0x100);
	printf("# bench_pickup: SEND by doorbell record only, engine idle "
	       "before, poller %s; documented worst case %u us\n",
	       busy ? "spinning" : "yielding", emu_eng_max_pickup_us());
	run("idle_long", &cli, &srv, n, LONG_MS * 1000, 40000, &rng);
	run("idle_short", &cli, &srv, n, 5000, 40000, &rng);
	dp_player_fini(&cli);
	dp_player_fini(&srv);
	return 0;
}
