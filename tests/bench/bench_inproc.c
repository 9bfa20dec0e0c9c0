/* SPDX-License-Identifier: MIT */
/*
 * bench_inproc: the data path within one process.  An ordinary verbs
 * program over the drop-in libraries (as perftest would be, but with both
 * ends in one process: two RC QPs on mlx5_0 connected to each other),
 * against the limits of bench_limits.h measured by the same run, before
 * the device is opened and after it is closed.
 *
 *   write_64KiB, write_4KiB  RDMA WRITE bandwidth, one thread posting (at
 *                            most 128 outstanding, every 100th signalled:
 *                            CQ moderation 100, perftest's -t 128 -Q 100),
 *                            cache-hot buffers: GB/s against memcpy
 *   write_64B                the same loop's message rate: Mmsg/s against
 *                            the ring of 64-byte records
 *   write_lat_2B             two threads ping-ponging 2-byte WRITEs, each
 *                            spinning on its buffer (perftest's
 *                            ib_write_lat): half the round trip, median
 *                            and 99th percentile, against the handoff
 *   idle                     the process's CPU while nothing is posted
 *                            (bench_idle's measurement): % of one CPU
 *
 * Not a timed test: it prints figures and each ratio beside its goal, and
 * never fails on a ratio; the quick mode (-q) fails only when the path
 * breaks (an error completion, data that did not arrive, a limit that
 * could not be measured).
 *
 * Output: "key best median unit" per figure, then
 * "ratio_<key> <value> goal <op> <goal> met|missed".
 *
 * Usage: bench_inproc [-q] [-w SIZE]
 *
 * -w SIZE runs only the WRITE loop of SIZE bytes for 5 s and prints its
 * rate, without limits or ratios: a steady load to profile; -w 2 runs the
 * latency loop ten times instead.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "bench_limits.h"
#include "ut_dropin.h"

#define TX_DEPTH 128
#define CQ_MOD 100
#define BUF_SIZE 65536
#define MAX_TRIALS 16

struct limits {
	struct bench_fig copy64k, copy4k, ring, handoff;
};

struct side {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;
};

struct bench {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	struct side s[2];
	uint32_t max_inline;
	int quick;
};

static void die(const char *what)
{
	fprintf(stderr, "bench_inproc: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void limits_measure(struct limits *l, int quick)
{
	l->copy64k = lim_memcpy(65536, quick);
	l->copy4k = lim_memcpy(4096, quick);
	l->ring = lim_ring(quick);
	l->handoff = lim_handoff(quick);
	if (!(l->copy64k.best > 0 && l->copy4k.best > 0 && l->ring.best > 0 &&
	      l->handoff.best > 0)) {
		fprintf(stderr, "bench_inproc: a limit could not be measured "
				"(two CPUs are needed)\n");
		exit(1);
	}
}

static void side_create(struct bench *b, struct side *s)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = TX_DEPTH, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 64 } };

	s->cq = ibv_create_cq(b->ctx, 2 * TX_DEPTH, NULL, NULL, 0);
	s->buf = aligned_alloc(4096, BUF_SIZE);
	if (!s->cq || !s->buf)
		die("CQ or buffer");
	memset(s->buf, 0, BUF_SIZE);
	s->mr = ibv_reg_mr(b->pd, s->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!s->mr)
		die("ibv_reg_mr");
	qa.send_cq = qa.recv_cq = s->cq;
	s->qp = ibv_create_qp(b->pd, &qa);
	if (!s->qp) {	/* no inline data: WRITEs gather from the MR */
		qa.cap.max_inline_data = 0;
		s->qp = ibv_create_qp(b->pd, &qa);
	}
	if (!s->qp)
		die("ibv_create_qp");
	b->max_inline = qa.cap.max_inline_data;
}

static void bench_open(struct bench *b)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	if (!list || !list[0])
		die("no device");
	b->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!b->ctx)
		die("ibv_open_device");
	b->pd = ibv_alloc_pd(b->ctx);
	if (!b->pd || ibv_query_gid(b->ctx, 1, 3, &b->gid))
		die("PD or GID");
	for (int i = 0; i < 2; i++)
		side_create(b, &b->s[i]);
	for (int i = 0; i < 2; i++) {
		errno = ut_rc_connect(b->s[i].qp, b->s[i ^ 1].qp->qp_num, &b->gid, 12);
		if (errno)
			die("connecting the QPs");
	}
}

static void bench_close(struct bench *b)
{
	for (int i = 0; i < 2; i++) {
		ibv_destroy_qp(b->s[i].qp);
		ibv_dereg_mr(b->s[i].mr);
		ibv_destroy_cq(b->s[i].cq);
		free(b->s[i].buf);
	}
	ibv_dealloc_pd(b->pd);
	ibv_close_device(b->ctx);
}

/* Polls cq for up to n completions; their number (each must be a success). */
static int poll_ok(struct ibv_cq *cq, int n)
{
	struct ibv_wc wc[16];
	int got = ibv_poll_cq(cq, n < 16 ? n : 16, wc);

	if (got < 0)
		die("ibv_poll_cq");
	for (int i = 0; i < got; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "bench_inproc: completion error %s (%d)\n",
				ibv_wc_status_str(wc[i].status), wc[i].status);
			exit(1);
		}
	}
	return got;
}

/* Messages per second of one trial: side 0 WRITEs size bytes of its buffer
 * to side 1's, the bandwidth loop of perftest's ib_write_bw. */
static double write_trial(struct bench *b, uint32_t size, double secs)
{
	struct side *s = &b->s[0], *d = &b->s[1];
	struct ibv_sge sge = { (uintptr_t)s->buf, size, s->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { (uintptr_t)d->buf, d->mr->rkey } }, *bad;
	uint64_t posted = 0, done = 0, end;
	uint64_t t0 = bench_now_ns();
	unsigned int turn = 0;
	int stop = 0;

	end = t0 + (uint64_t)(secs * 1e9);
	for (;;) {
		/* Past the time, post up to a signalled WQE and drain.  The
		 * clock is read every 64th turn (a turn often posts one WR):
		 * at 16 ns a read it would be the loop's largest cost, which
		 * perftest's loops (iterations, or an alarm) do not pay. */
		if (!stop && ++turn % 64 == 0)
			stop = bench_now_ns() >= end;

		while (posted - done < TX_DEPTH && !(stop && posted % CQ_MOD == 0)) {
			wr.wr_id = posted;
			wr.send_flags = (posted + 1) % CQ_MOD ? 0 : IBV_SEND_SIGNALED;
			if (ibv_post_send(s->qp, &wr, &bad))
				die("ibv_post_send");
			posted++;
		}
		done += (uint64_t)poll_ok(s->cq, 16) * CQ_MOD;
		if (stop && posted % CQ_MOD == 0 && done == posted)
			break;
	}
	return (double)done / ((double)(bench_now_ns() - t0) * 1e-9);
}

static struct bench_fig write_rate(struct bench *b, uint32_t size)
{
	int trials = b->quick ? 2 : 9;
	double v[MAX_TRIALS];

	for (uint32_t i = 0; i < size; i++)
		b->s[0].buf[i] = (char)(i * 7 + size);
	memset(b->s[1].buf, 0, size);
	write_trial(b, size, b->quick ? 0.01 : 0.1);	/* warm-up */
	for (int t = 0; t < trials; t++)
		v[t] = write_trial(b, size, b->quick ? 0.05 : 0.4);
	if (memcmp(b->s[0].buf, b->s[1].buf, size)) {
		fprintf(stderr, "bench_inproc: the WRITEs of %u bytes did not "
				"arrive\n", size);
		exit(1);
	}
	return bench_fig_of(v, (size_t)trials, 0);
}

/* ---- latency: two threads, one QP each ---- */

struct lat {
	struct bench *b;
	int me, iters;
	double *half_rtt;	/* the initiator's samples, ns */
};

static uint16_t seen(const struct side *s)
{
	return __atomic_load_n((const uint16_t *)s->buf, __ATOMIC_ACQUIRE);
}

/* WRITE the 2-byte value v into the peer's buffer and reap its CQE. */
static void lat_write(struct bench *b, int me, uint16_t v)
{
	struct side *s = &b->s[me], *d = &b->s[me ^ 1];
	uint16_t *src = (uint16_t *)(s->buf + 64);
	struct ibv_sge sge = { (uintptr_t)src, 2, s->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED |
			(b->max_inline >= 2 ? IBV_SEND_INLINE : 0),
		.wr.rdma = { (uintptr_t)d->buf, d->mr->rkey } }, *bad;

	*src = v;
	if (ibv_post_send(s->qp, &wr, &bad))
		die("ibv_post_send");
	while (!poll_ok(s->cq, 1))
		;
}

static int lat_wait(struct side *s, uint16_t v)
{
	uint64_t t0 = 0;

	for (unsigned n = 1; seen(s) != v; n++) {
		if (n % 65536)
			continue;
		if (!t0)
			t0 = bench_now_ns();
		else if (bench_now_ns() - t0 > 5000000000u)
			return -1;	/* 5 s: the WRITE was lost */
	}
	return 0;
}

static void *lat_run(void *arg)
{
	struct lat *l = arg;
	struct side *s = &l->b->s[l->me];

	for (int i = 0; i < l->iters; i++) {
		uint16_t v = (uint16_t)(i % 65535 + 1);
		uint64_t t0 = bench_now_ns();

		if (l->me == 0) {
			lat_write(l->b, 0, v);
			if (lat_wait(s, v))
				return (void *)1;
			l->half_rtt[i] = (double)(bench_now_ns() - t0) / 2;
		} else {
			if (lat_wait(s, v))
				return (void *)1;
			lat_write(l->b, 1, v);
		}
	}
	return NULL;
}

/* Median and 99th percentile of the one-way latency, ns. */
static void write_lat(struct bench *b, double *median, double *p99)
{
	int iters = b->quick ? 2000 : 100000, warm = b->quick ? 100 : 2000;
	struct lat l[2];
	pthread_t th;
	void *r0, *r1;

	for (int round = 0; round < 2; round++) {	/* warm-up, then measured */
		int n = round ? iters : warm;

		memset(b->s[0].buf, 0, 2);
		memset(b->s[1].buf, 0, 2);
		for (int i = 0; i < 2; i++)
			l[i] = (struct lat){ b, i, n,
				i ? NULL : calloc((size_t)n, sizeof(double)) };
		if (!l[0].half_rtt)
			die("calloc");
		pthread_create(&th, NULL, lat_run, &l[1]);
		r0 = lat_run(&l[0]);
		pthread_join(th, &r1);
		if (r0 || r1) {
			fprintf(stderr, "bench_inproc: a 2-byte WRITE did not "
					"arrive within 5 s\n");
			exit(1);
		}
		bench_sort(l[0].half_rtt, (size_t)n);
		*median = bench_quantile(l[0].half_rtt, (size_t)n, 0.5);
		*p99 = bench_quantile(l[0].half_rtt, (size_t)n, 0.99);
		free(l[0].half_rtt);
	}
}

/* The process's CPU over secs of doing nothing, after warm s of it. */
static double idle_pct(double warm, double secs)
{
	double c0, t0;

	usleep((useconds_t)(warm * 1e6));
	c0 = bench_cpu_s();
	t0 = bench_now_s();
	usleep((useconds_t)(secs * 1e6));
	return (bench_cpu_s() - c0) / (bench_now_s() - t0) * 100;
}

static struct bench_fig mean_best(struct bench_fig a, struct bench_fig b)
{
	return (struct bench_fig){ (a.best + b.best) / 2,
				   (a.median + b.median) / 2 };
}

static void show(const char *key, struct bench_fig f, const char *unit)
{
	printf("%s %.2f %.2f %s\n", key, f.best, f.median, unit);
}

/* ratio = figure / limit; at_least: the goal is a floor, else a ceiling */
static void ratio(const char *key, double fig, double limit, int at_least,
		  double goal)
{
	double r = fig / limit;
	int met = at_least ? r >= goal : r <= goal;

	printf("ratio_%s %.3f goal %s %.2f %s\n", key, r, at_least ? ">=" : "<=",
	       goal, met ? "met" : "missed");
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	struct limits before, after, lim;
	struct bench_fig w64k, w4k, w64;
	double lat_med, lat_p99, idle;
	long prof_size = 0;
	int opt;

	while ((opt = getopt(argc, argv, "qw:")) != -1) {
		if (opt == 'q') {
			b.quick = 1;
		} else if (opt == 'w' && (prof_size = atol(optarg)) > 0 &&
			   prof_size <= BUF_SIZE) {
		} else {
			fprintf(stderr, "usage: bench_inproc [-q] [-w SIZE]\n");
			return 2;
		}
	}
	if (prof_size) {
		bench_open(&b);
		for (int i = 0; prof_size == 2 && i < 10; i++) {
			write_lat(&b, &lat_med, &lat_p99);
			printf("write_lat_2B median %.1f p99 %.1f ns\n",
			       lat_med, lat_p99);
		}
		if (prof_size != 2)
			printf("write_%ld %.3f Mmsg/s\n", prof_size,
			       write_trial(&b, (uint32_t)prof_size, 5) / 1e6);
		bench_close(&b);
		return 0;
	}
	/* Limits first: the device's thread inherits no pinning, and exists
	 * neither before the open nor after the close. */
	limits_measure(&before, b.quick);
	bench_open(&b);
	printf("# bench_inproc%s: 2 RC QPs on mlx5_0, max_inline_data %u\n",
	       b.quick ? " (quick)" : "", b.max_inline);
	w64k = write_rate(&b, 65536);
	w4k = write_rate(&b, 4096);
	w64 = write_rate(&b, 64);
	write_lat(&b, &lat_med, &lat_p99);
	idle = idle_pct(b.quick ? 0.1 : 1, b.quick ? 0.3 : 3);
	bench_close(&b);
	limits_measure(&after, b.quick);

	lim.copy64k = mean_best(before.copy64k, after.copy64k);
	lim.copy4k = mean_best(before.copy4k, after.copy4k);
	lim.ring = mean_best(before.ring, after.ring);
	lim.handoff = mean_best(before.handoff, after.handoff);
	printf("# limits: before, after (best of each), mean of the two\n");
	printf("limit_memcpy_64KiB %.2f %.2f %.2f GB/s\n", before.copy64k.best,
	       after.copy64k.best, lim.copy64k.best);
	printf("limit_memcpy_4KiB %.2f %.2f %.2f GB/s\n", before.copy4k.best,
	       after.copy4k.best, lim.copy4k.best);
	printf("limit_ring_64B %.2f %.2f %.2f Mrec/s\n", before.ring.best,
	       after.ring.best, lim.ring.best);
	printf("limit_handoff_oneway %.1f %.1f %.1f ns\n", before.handoff.best,
	       after.handoff.best, lim.handoff.best);
	printf("# figures: key best median unit\n");
	w64k.best *= 65536 / 1e9;
	w64k.median *= 65536 / 1e9;
	w4k.best *= 4096 / 1e9;
	w4k.median *= 4096 / 1e9;
	w64.best /= 1e6;
	w64.median /= 1e6;
	show("write_64KiB", w64k, "GB/s");
	show("write_4KiB", w4k, "GB/s");
	show("write_64B", w64, "Mmsg/s");
	printf("write_lat_2B median %.1f p99 %.1f ns\n", lat_med, lat_p99);
	printf("idle %.2f %% of one CPU\n", idle);
	printf("# ratios: this run's median against the limits' mean best\n");
	ratio("write_64KiB", w64k.median, lim.copy64k.best, 1, 0.5);
	ratio("write_4KiB", w4k.median, lim.copy4k.best, 1, 0.25);
	ratio("write_64B", w64.median, lim.ring.best, 1, 0.05);
	ratio("write_lat_2B", lat_med, lim.handoff.best, 0, 10);
	ratio("write_lat_2B_p99", lat_p99, lat_med, 0, 4);
	printf("idle_cpu %.2f goal <= 2.00 %s\n", idle, idle <= 2 ? "met" : "missed");
	return 0;
}
