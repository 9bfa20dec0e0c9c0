/* SPDX-License-Identifier: MIT */
/*
 * bench_idle: what an idle emulated device costs.  An ordinary verbs
 * program over the drop-in libraries opens mlx5_0, creates a PD, a CQ and
 * QPS RC QPs connected in pairs (in RTS), posts nothing and sleeps; the
 * CPU time the whole process uses meanwhile (every emulator thread: the
 * main thread only sleeps) is the idle cost, in percent of one CPU.
 *
 * Each run waits WARM seconds first (the engine reaches its longest park),
 * then measures getrusage(RUSAGE_SELF) across SECS seconds of sleep.  Not
 * a timed test: it prints figures; the quick mode (-q) only proves the path
 * runs (and fails when the device or its thread is missing).
 *
 * Output: "idle_run N <percent> % <wakeups/s> wakeups/s" per run (wakeups:
 * the engine thread's voluntary context switches), then "idle_cpu median
 * min max %" over the runs.
 *
 * Usage: bench_idle [-q] [-r RUNS] [-s SECS]
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "bench_util.h"
#include "ut_dropin.h"

#define QPS 4

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_idle: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Voluntary context switches of every thread but the calling one: the
 * emulator's threads' parks.  -1 when /proc says nothing. */
static long other_threads_switches(void)
{
	char path[300], line[128];
	long total = 0;
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");
	int self = (int)gettid();

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.' || atoi(d->d_name) == self)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "voluntary_ctxt_switches:", 24))
				total += atol(line + 24);
		fclose(f);
	}
	closedir(dir);
	return total;
}

static int threads(void)
{
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");
	int n = 0;

	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		n += d->d_name[0] != '.';
	closedir(dir);
	return n;
}

int main(int argc, char **argv)
{
	double secs = 5, warm = 1, pct[64];
	int runs = 5, opt;
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *qp[QPS];
	struct ibv_device **list;
	struct ibv_context *ctx;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	while ((opt = getopt(argc, argv, "qr:s:")) != -1) {
		switch (opt) {
		case 'q':
			secs = 0.3;
			warm = 0.1;
			runs = 1;
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		case 's':
			secs = atof(optarg);
			break;
		default:
			fprintf(stderr, "usage: bench_idle [-q] [-r RUNS] [-s SECS]\n");
			return 2;
		}
	}
	if (runs < 1 || runs > 64 || secs <= 0) {
		fprintf(stderr, "bench_idle: 1..64 runs of a positive time\n");
		return 2;
	}
	list = ibv_get_device_list(NULL);
	if (!list || !list[0])
		die("no device");
	ctx = ibv_open_device(list[0]);
	if (!ctx)
		die("ibv_open_device");
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!pd || !cq || ibv_query_gid(ctx, 1, 3, &gid))
		die("PD, CQ or GID");
	qa.send_cq = qa.recv_cq = cq;
	for (int i = 0; i < QPS; i++) {
		qp[i] = ibv_create_qp(pd, &qa);
		if (!qp[i])
			die("ibv_create_qp");
	}
	for (int i = 0; i < QPS; i++)
		if (ut_rc_connect(qp[i], qp[i ^ 1]->qp_num, &gid, 12))
			die("connecting");
	/* The device model runs a thread of its own: its cost is measured. */
	if (threads() < 2) {
		fprintf(stderr, "bench_idle: no emulator thread runs\n");
		return 1;
	}
	printf("# bench_idle: %d RC QPs in RTS, nothing posted; %% of one CPU "
	       "over %.1f s after %.1f s idle\n", QPS, secs, warm);
	for (int r = 0; r < runs; r++) {
		double c0, t0, c1, t1;
		long s0, s1;

		sleep_s(warm);
		s0 = other_threads_switches();
		c0 = bench_cpu_s();
		t0 = bench_now_s();
		sleep_s(secs);
		c1 = bench_cpu_s();
		t1 = bench_now_s();
		s1 = other_threads_switches();
		pct[r] = (c1 - c0) / (t1 - t0) * 100;
		printf("idle_run %d %.3f %% %.0f wakeups/s\n", r + 1, pct[r],
		       (double)(s1 - s0) / (t1 - t0));
	}
	bench_sort(pct, (size_t)runs);
	printf("idle_cpu %.3f %.3f %.3f %%\n", pct[runs / 2], pct[0],
	       pct[runs - 1]);
	for (int i = 0; i < QPS; i++)
		ibv_destroy_qp(qp[i]);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
