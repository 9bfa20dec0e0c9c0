/* SPDX-License-Identifier: MIT */
/*
 * bench_eth: Ethernet frames within one process, as a DPDK-style program
 * moves them on its own queues (the DEVX player of tests/unit/engine:
 * TIS, SQ, RQ, TIR and a rule at the kernel's NIC receive root, WQEs and
 * CQEs at literal offsets): SQ -> the vport's steering -> RQ, looped back
 * on the function's own vport, against the limits of bench_limits.h
 * measured by the same run.
 *
 *   eth_64B     64-byte frames per second (16 WQEs per doorbell, every
 *               one signalled, receives reposted as they complete):
 *               against the ring of 64-byte records
 *   eth_1500B   the same loop with 1500-byte frames: GB/s against
 *               memcpy of 1500 bytes (the one copy a frame costs at
 *               least: the RQ's buffer)
 *
 * Not a timed test: it prints figures and ratios; the quick mode (-q)
 * fails only when the path breaks.  Output as bench_inproc's.
 *
 * Usage: bench_eth [-q]
 */
#include <endian.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "bench_limits.h"
#include "eth_player.h"

#define BATCH 16
#define TRIALS 9

static const uint8_t mcast[6] = { 0x01, 0x50, 0x56, 0x19, 0x20, 0xa7 };

struct rig {
	struct eth_player e;
	struct ep_rq rq;
};

/* One batch: BATCH frames out, their 2 * BATCH CQEs, receives reposted. */
static void batch(struct rig *r, uint32_t len)
{
	for (int i = 0; i < BATCH; i++)
		ep_post_send(&r->e, MLX5_OPCODE_SEND, len, 18, 0, 0, 0);
	for (int i = 0; i < 2 * BATCH; i++) {
		const uint8_t *c = dp_poll_cq(&r->e.dp, NULL);
		uint8_t op = c[63] >> 4;

		if (op == MLX5_CQE_RESP_SEND)
			ep_post_recv(&r->e, &r->rq);
		else if (op != MLX5_CQE_REQ) {
			fprintf(stderr, "bench_eth: error CQE 0x%x\n", op);
			exit(1);
		}
	}
}

/* Frames per second of len bytes: best and median of the trials. */
static struct bench_fig rate(struct rig *r, uint32_t len, int quick)
{
	double v[TRIALS], secs = quick ? 0.02 : 0.3;
	int n = quick ? 2 : TRIALS;

	memset(r->e.mem, 0x5a, len);
	memcpy(r->e.mem, mcast, 6);
	r->e.mem[12] = 0x08;
	r->e.mem[13] = 0x00;
	for (int t = 0; t < n; t++) {
		double t0 = bench_now_s(), dt;
		unsigned long frames = 0;

		do {
			batch(r, len);
			frames += BATCH;
			dt = bench_now_s() - t0;
		} while (dt < secs);
		v[t] = (double)frames / dt;
	}
	return bench_fig_of(v, (size_t)n, 0);
}

int main(int argc, char **argv)
{
	struct bench_fig ring, copy, f64, f1500;
	struct rig r;
	uint32_t tirn;
	int quick = 0, opt;

	while ((opt = getopt(argc, argv, "q")) != -1) {
		if (opt != 'q') {
			fprintf(stderr, "usage: bench_eth [-q]\n");
			return 2;
		}
		quick = 1;
	}
	ring = lim_ring(quick);
	copy = lim_memcpy(1500, quick);
	if (ring.best <= 0 || copy.best <= 0) {
		fprintf(stderr, "bench_eth: a limit could not be measured\n");
		return 1;
	}
	ep_init(&r.e);
	ep_rq_create(&r.e, &r.rq, true, 0);
	ep_rule_dmac(&r.e, mcast,
		     ep_tir_direct(&r.e, &r.rq, EP_SELF_LB_ALLOW, &tirn), 0, 0);
	for (int i = 0; i < 2 * BATCH; i++)
		ep_post_recv(&r.e, &r.rq);
	f64 = rate(&r, 64, quick);
	f1500 = rate(&r, 1500, quick);
	ep_fini(&r.e);
	printf("# bench_eth%s: SQ -> NIC RX steering -> RQ on mlx5_0, looped back\n",
	       quick ? " (quick)" : "");
	printf("limit_ring_64B %.2f %.2f Mrec/s\n", ring.best, ring.median);
	printf("limit_memcpy_1500B %.2f %.2f GB/s\n", copy.best, copy.median);
	printf("eth_64B %.3f %.3f Mframes/s\n", f64.best / 1e6, f64.median / 1e6);
	printf("eth_1500B %.3f %.3f GB/s\n", f1500.best * 1500 / 1e9,
	       f1500.median * 1500 / 1e9);
	printf("# ratios: this run's median against the limits' best\n");
	printf("ratio_eth_64B %.3f\n", f64.median / 1e6 / ring.best);
	printf("ratio_eth_1500B %.3f\n", f1500.median * 1500 / 1e9 / copy.best);
	return 0;
}
