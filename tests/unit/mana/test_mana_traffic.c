/* SPDX-License-Identifier: MIT */
/*
 * Frames through an emulated MANA device the way DPDK's mana PMD moves
 * them: queues made with libmana, then only WQEs written into the rings,
 * 64-bit stores to the shared doorbell page and CQEs polled by their owner
 * bits -- no verbs on the data path.
 *
 * The port starts as the PMD starts it: port 1's raw send queues first,
 * one per lcore thread, then port 2's receive queues behind an RSS QP,
 * every receive queue filled and rung back to back (a lost doorbell would
 * leave a queue without buffers for good).  Each lcore sends bursts of
 * UDP frames whose IPv4 and UDP checksums the device computes, asking a
 * completion only of a burst's last WQE (the others suppress theirs, and
 * one TX_OKAY retires them all); its ring wraps many times.  The receiver
 * reposts every buffer it takes and rings once per pass.  Then the port
 * stops (every queue destroyed) and starts again, and the run repeats.
 * Every frame must arrive exactly once with its bytes, a checksum that
 * verifies and the CQE's checksum-ok bits; every burst's CQE must come.
 *
 * The oracles are bytes at the offsets of Linux's gdma.h and mana.h,
 * written here.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

#include "mana_pmd.h"
#include "ut_run.h"

enum { NRQ = 2, RQ_DEPTH = 256, NSQ = 4, SQ_DEPTH = 64, BURST = 8,
       PER_SQ = 512, NFRAMES = NSQ * PER_SQ, BUF = 2048, FLEN = MP_UDP_FLEN,
       /* frames in flight at most: a slow receiver never runs dry */
       WINDOW = RQ_DEPTH / 2, RUNS = 2 };

static _Atomic uint32_t sent, received;

/* One sending lcore: its queue, its frames, what went wrong. */
struct lcore {
	int q;
	struct manadv_qp dq;
	struct manadv_cq dtc;
	uint8_t *frames;		/* BURST * 2 buffers of BUF bytes */
	uint32_t lkey;
	const uint8_t *dmac, *smac;
	int bad;			/* CQEs missing or wrong */
};

/* The short OOB asking for the IPv4 and UDP checksums; @quiet: no CQE. */
static void tx_oob(const struct lcore *l, uint8_t oob[8], bool quiet)
{
	mp_tx_oob(oob, l->dtc.cq_id, l->dq.sq_id, l->dq.tx_vp_offset);
	/* is_outer_ipv4, comp_iphdr_csum, comp_udp_csum, suppress_txcqe_gen */
	oob[0] |= 1u << 2 | 1u << 4 | 1u << 6 | (quiet ? 1u << 7 : 0);
}

static void *lcore_tx(void *arg)
{
	struct lcore *l = arg;
	uint32_t slots = l->dq.sq_size / 32;
	uint64_t until = mp_now_ms() + 30000;

	for (uint32_t b = 0; b < PER_SQ / BURST; b++) {
		uint8_t *bufs = l->frames + (size_t)(b & 1) * BURST * BUF;
		const volatile uint8_t *c;

		while (atomic_load(&sent) - atomic_load(&received) + BURST > WINDOW &&
		       mp_now_ms() < until)
			sched_yield();
		for (uint32_t i = 0; i < BURST; i++) {
			uint32_t n = b * BURST + i;
			uint8_t oob[8];

			mp_udp_frame(bufs + (size_t)i * BUF, l->dmac, l->smac,
				     (uint32_t)l->q * PER_SQ + n, true);
			tx_oob(l, oob, i < BURST - 1);
			mp_wqe((uint8_t *)l->dq.sq_buf + 32 * (n % slots), oob,
			       (uintptr_t)(bufs + (size_t)i * BUF), l->lkey, FLEN);
		}
		atomic_fetch_add(&sent, BURST);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		mp_doorbell(l->dq.db_page, 0x000, l->dq.sq_id,
			    32 * (b + 1) * BURST);
		/* one TX_OKAY per burst, for its last WQE: the ring is free */
		while (!(c = mp_cqe_at(l->dtc.buf, l->dtc.count, b)) &&
		       mp_now_ms() < until)
			sched_yield();
		if (!c || (mp_get32(c) & 0x3f) != 32 ||
		    (mp_get32(c + 60) & 0xffffff) != l->dq.sq_id ||
		    !(mp_get32(c + 60) >> 24 & 1)) {
			l->bad++;
			break;
		}
	}
	/* and nothing after the last */
	if (mp_cqe_at(l->dtc.buf, l->dtc.count, PER_SQ / BURST))
		l->bad++;
	return NULL;
}

/* The port's queues, as dev_start makes them and dev_stop destroys them. */
struct port {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *tx_pd, *rx_pd;
	struct ibv_mr *mr;
	uint8_t *mem;
	struct ibv_cq *tcq[NSQ], *rcq[NRQ];
	struct ibv_qp *sq[NSQ], *rss;
	struct ibv_wq *rwq[NRQ];
	struct ibv_rwq_ind_table *tbl;
	struct lcore lc[NSQ];
	struct manadv_cq drc[NRQ];
	struct manadv_rwq drw[NRQ];
	uint8_t dmac[6], smac[6];
};

static uint8_t *rx_buf(struct port *p, int q, uint32_t slot)
{
	return p->mem + (size_t)(q * RQ_DEPTH + slot) * BUF;
}

static void port_start(struct port *p)
{
	for (int i = 0; i < NSQ; i++) {
		struct ibv_qp_init_attr qa = {
			.qp_type = IBV_QPT_RAW_PACKET,
			.cap = { .max_send_wr = SQ_DEPTH, .max_send_sge = 1 },
		};
		struct lcore *l = &p->lc[i];
		struct manadv_obj o = { .qp = { NULL, &l->dq },
					.cq = { NULL, &l->dtc } };

		/* TX first, as the PMD starts */
		p->tcq[i] = ibv_create_cq(p->ctx, SQ_DEPTH, NULL, NULL, 0);
		qa.send_cq = qa.recv_cq = p->tcq[i];
		p->sq[i] = ibv_create_qp(p->tx_pd, &qa);
		ck_assert_ptr_nonnull(p->sq[i]);
		o.qp.in = p->sq[i];
		o.cq.in = p->tcq[i];
		ck_assert_int_eq(manadv_init_obj(&o, MANADV_OBJ_QP | MANADV_OBJ_CQ), 0);
		l->q = i;
		l->frames = p->mem + (size_t)(NRQ * RQ_DEPTH + i * 2 * BURST) * BUF;
		l->lkey = p->mr->lkey;
		l->dmac = p->dmac;
		l->smac = p->smac;
		l->bad = 0;
	}
	ck_assert_ptr_eq(p->lc[0].dq.db_page, p->lc[NSQ - 1].dq.db_page);
	for (int i = 0; i < NRQ; i++) {
		struct ibv_wq_init_attr wa = { .wq_type = IBV_WQT_RQ,
					       .max_wr = RQ_DEPTH, .max_sge = 1,
					       .pd = p->rx_pd };

		p->rcq[i] = ibv_create_cq(p->ctx, RQ_DEPTH, NULL, NULL, 0);
		wa.cq = p->rcq[i];
		p->rwq[i] = ibv_create_wq(p->ctx, &wa);
		ck_assert_ptr_nonnull(p->rwq[i]);
	}
	struct ibv_rwq_ind_table_init_attr ta = { .log_ind_tbl_size = 1,
						  .ind_tbl = p->rwq };
	uint8_t key[40];

	p->tbl = ibv_create_rwq_ind_table(p->ctx, &ta);
	for (int i = 0; i < 40; i++)
		key[i] = (uint8_t)(0x6d + 31 * i);
	struct ibv_qp_init_attr_ex xa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH |
			     IBV_QP_INIT_ATTR_IND_TABLE,
		.pd = p->rx_pd, .rwq_ind_tbl = p->tbl,
		.rx_hash_conf = { .rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
				  .rx_hash_key_len = 40, .rx_hash_key = key },
	};

	p->rss = ibv_create_qp_ex(p->ctx, &xa);
	ck_assert_ptr_nonnull(p->rss);
	for (int i = 0; i < NRQ; i++) {
		struct manadv_obj r = { .cq = { p->rcq[i], &p->drc[i] },
					.rwq = { p->rwq[i], &p->drw[i] } };

		ck_assert_int_eq(manadv_init_obj(&r, MANADV_OBJ_CQ | MANADV_OBJ_RWQ), 0);
	}
	/* every RQ filled, then all rung back to back */
	for (int q = 0; q < NRQ; q++)
		for (uint32_t i = 0; i < RQ_DEPTH; i++)
			mp_wqe((uint8_t *)p->drw[q].buf + 32 * i, NULL,
			       (uintptr_t)rx_buf(p, q, i), p->mr->lkey, BUF);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (int q = 0; q < NRQ; q++)
		mp_doorbell(p->drw[q].db_page, 0x400, p->drw[q].wq_id,
			    32 * RQ_DEPTH);
}

static void port_stop(struct port *p)
{
	for (int q = 0; q < NSQ; q++) {
		ck_assert_int_eq(ibv_destroy_qp(p->sq[q]), 0);
		ck_assert_int_eq(ibv_destroy_cq(p->tcq[q]), 0);
	}
	ck_assert_int_eq(ibv_destroy_qp(p->rss), 0);
	ck_assert_int_eq(ibv_destroy_rwq_ind_table(p->tbl), 0);
	for (int i = 0; i < NRQ; i++) {
		ck_assert_int_eq(ibv_destroy_wq(p->rwq[i]), 0);
		ck_assert_int_eq(ibv_destroy_cq(p->rcq[i]), 0);
	}
}

static bool coalescing;		/* the kernel asks for RX_COALESCED_4 */

/* One packet of an RX CQE, the WQE at the queue's consumer index *ci:
 * checked, its frame marked seen, its buffer posted again. */
static void rx_pkt(struct port *p, int q, uint32_t d1, uint32_t len,
		   uint32_t *ci, bool *seen)
{
	uint32_t slot = *ci % RQ_DEPTH, seq;
	const uint8_t *f = rx_buf(p, q, slot);

	/* rx_hashtype exactly MANA_HASH_L4 for UDP over IPv4; the IP and UDP
	 * checksum-ok bits, no fail bits */
	ck_assert_uint_eq(d1 >> 16 & 0x1ff, 0x1b6);
	ck_assert_uint_eq(d1 >> 25 & 0x3f, 1u | 1u << 4);
	ck_assert_uint_eq(len, FLEN);
	ck_assert_mem_eq(f, p->dmac, 6);
	ck_assert(mp_udp_csums_ok(f));
	memcpy(&seq, f + 42, 4);
	ck_assert_uint_lt(seq, NFRAMES);
	ck_assert_msg(!seen[seq], "frame %u twice", seq);
	seen[seq] = true;
	/* the buffer again, as WQE number RQ_DEPTH + ci */
	mp_wqe((uint8_t *)p->drw[q].buf +
	       32 * ((RQ_DEPTH + *ci) % (p->drw[q].size / 32)),
	       NULL, (uintptr_t)rx_buf(p, q, slot), p->mr->lkey, BUF);
	(*ci)++;
}

/* One RX CQE of queue q: RX_OKAY for one packet, or (coalescing)
 * RX_COALESCED_4 for up to four, its per-packet infos read until a zero
 * length as the PMD reads them.  The packets it carried. */
static uint32_t rx_cqe(struct port *p, int q, const volatile uint8_t *c,
		       uint32_t *ci, bool *seen)
{
	uint32_t type = mp_get32(c) & 0x3f, d1 = mp_get32(c + 4), n = 0;

	ck_assert_uint_eq(type, coalescing ? 2 : 1);
	ck_assert_uint_eq(mp_get32(c + 60) & 0xffffff, p->drw[q].wq_id);
	ck_assert_uint_eq(mp_get32(c + 60) >> 24 & 1, 0);
	/* rx_wqe_offset: the WQE of the CQE's first packet */
	ck_assert_uint_eq(mp_get32(c + 56), 32 * (*ci % (p->drw[q].size / 32)));
	for (int k = 0; k < 4; k++) {
		/* mana_rxcomp_perpkt_info: 12 bytes from byte 8 */
		uint32_t len = mp_get32(c + 8 + 12 * k) & 0xffff;

		if (!len)
			break;
		rx_pkt(p, q, d1, len, ci, seen);
		n++;
		if (type == 1)
			break;
	}
	ck_assert_uint_gt(n, 0);
	if (type == 1)		/* the other infos unused: zero */
		ck_assert_uint_eq(mp_get32(c + 20) & 0xffff, 0);
	return n;
}

static void traffic(struct port *p)
{
	static bool seen[NFRAMES];
	uint32_t ci[NRQ] = { 0 }, cqes[NRQ] = { 0 };
	pthread_t th[NSQ];
	uint64_t until = mp_now_ms() + 30000;

	memset(seen, 0, sizeof(seen));
	atomic_store(&sent, 0);
	atomic_store(&received, 0);
	for (int q = 0; q < NSQ; q++)
		ck_assert_int_eq(pthread_create(&th[q], NULL, lcore_tx, &p->lc[q]), 0);
	while (atomic_load(&received) < NFRAMES && mp_now_ms() < until) {
		bool any = false;

		for (int q = 0; q < NRQ; q++) {
			const volatile uint8_t *c;
			uint32_t n = 0;

			while (n < 32 && (c = mp_cqe_at(p->drc[q].buf,
							p->drc[q].count, cqes[q]))) {
				n += rx_cqe(p, q, c, &ci[q], seen);
				cqes[q]++;
			}
			if (!n)
				continue;
			any = true;
			atomic_fetch_add(&received, n);
			/* the buffers back, one doorbell for the pass */
			__atomic_thread_fence(__ATOMIC_RELEASE);
			mp_doorbell(p->drw[q].db_page, 0x400, p->drw[q].wq_id,
				    32 * (RQ_DEPTH + ci[q]));
		}
		if (!any)
			sched_yield();
	}
	for (int q = 0; q < NSQ; q++) {
		pthread_join(th[q], NULL);
		ck_assert_int_eq(p->lc[q].bad, 0);
	}
	ck_assert_uint_eq(atomic_load(&received), NFRAMES);
	printf("%u frames in %u receive CQEs\n", NFRAMES, cqes[0] + cqes[1]);
	ck_assert_uint_gt(ci[0], 0);
	ck_assert_uint_gt(ci[1], 0);
	for (int i = 0; i < NFRAMES; i++)
		ck_assert_msg(seen[i], "frame %d lost", i);
}

START_TEST(pmd_start_traffic_restart)
{
	struct port p;
	struct manadv_ctx_allocators al = mp_allocators;

	memset(&p, 0, sizeof(p));
	p.ctx = mp_open("mana_0");
	ck_assert_int_eq(manadv_set_context_attr(p.ctx,
				MANADV_CTX_ATTR_BUF_ALLOCATORS, &al), 0);
	p.pd = ibv_alloc_pd(p.ctx);
	struct ibv_parent_domain_init_attr pa = {
		.pd = p.pd, .comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
	};
	pa.pd_context = (void *)1;
	p.tx_pd = ibv_alloc_parent_domain(p.ctx, &pa);
	pa.pd_context = (void *)2;
	p.rx_pd = ibv_alloc_parent_domain(p.ctx, &pa);
	ck_assert_ptr_nonnull(p.tx_pd);
	ck_assert_ptr_nonnull(p.rx_pd);
	size_t bytes = (size_t)(NRQ * RQ_DEPTH + NSQ * 2 * BURST) * BUF;

	p.mem = aligned_alloc(4096, bytes);
	memset(p.mem, 0, bytes);
	p.mr = ibv_reg_mr(p.pd, p.mem, bytes, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(p.mr);
	mp_port_mac(p.ctx, 1, p.dmac);
	mp_port_mac(p.ctx, 0, p.smac);
	for (int run = 0; run < RUNS; run++) {
		port_start(&p);
		traffic(&p);
		port_stop(&p);
	}
	ck_assert_int_eq(ibv_dereg_mr(p.mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(p.tx_pd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(p.rx_pd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(p.pd), 0);
	ck_assert_int_eq(ibv_close_device(p.ctx), 0);
	free(p.mem);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_traffic");
	TCase *tc = tcase_create("fabric");

	setenv("MLX5EMU_MANA_DEVICES", "1", 1);
	setenv("MLX5EMU_NUM_PORTS", "2", 1);
	/* the default: mana_ib asks coalescing of RSS QPs, as recent kernels */
	coalescing = !getenv("MLX5EMU_MANA_RX_COALESCING") ||
		     strcmp(getenv("MLX5EMU_MANA_RX_COALESCING"), "0");
	tcase_add_test(tc, pmd_start_traffic_restart);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
