/* SPDX-License-Identifier: MIT */
/*
 * Frames through an emulated MANA device the way DPDK's mana PMD moves
 * them: queues made with libmana, then only WQEs written into the rings,
 * 64-bit stores to the shared doorbell page and CQEs polled by their owner
 * bits -- no verbs on the data path.  Port 1's raw send queues, one per
 * thread as the PMD has one per lcore, send bursts to port 2's MAC (read
 * where the PMD reads it, the net device under the PCI function), each
 * burst one doorbell to the page all of them share; port 2's RSS QP
 * spreads the frames over two receive queues.  Every receive queue is rung
 * back to back at start, as the PMD does: a lost doorbell would leave a
 * queue without buffers for good.
 *
 * The oracles are bytes at the offsets of Linux's gdma.h and mana.h,
 * written here.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
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
       PER_SQ = 32, NFRAMES = NSQ * PER_SQ, BUF = 2048 };

/* An IPv4/UDP frame to dst from src, with the UDP ports given. */
static uint32_t udp_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6],
			  uint16_t sport, uint16_t dport)
{
	static const uint8_t ip[20] = { 0x45, 0, 0, 46, 0, 1, 0, 0, 64, 17, 0, 0,
					198, 18, 0, 1, 198, 18, 0, 2 };
	uint32_t sum = 0;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memcpy(f + 14, ip, 20);
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(f[14 + i] << 8 | f[15 + i]);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	f[24] = (uint8_t)(~sum >> 8);
	f[25] = (uint8_t)~sum;
	f[34] = (uint8_t)(sport >> 8);
	f[35] = (uint8_t)sport;
	f[36] = (uint8_t)(dport >> 8);
	f[37] = (uint8_t)dport;
	f[38] = 0;
	f[39] = 26;
	f[40] = f[41] = 0;		/* no UDP checksum */
	for (int i = 0; i < 18; i++)
		f[42 + i] = (uint8_t)(0xa0 + i);
	return 60;
}

/* One sending lcore: its queue, its frames, what went wrong. */
struct lcore {
	struct manadv_qp dq;
	struct manadv_cq dtc;
	uint8_t *frames;		/* PER_SQ buffers of BUF bytes */
	uint32_t lkey, flen;
	int bad;			/* CQEs missing or not TX_OKAY */
};

static void *lcore_tx(void *arg)
{
	struct lcore *l = arg;
	uint64_t until = mp_now_ms() + 10000;

	for (uint32_t b = 0; b < PER_SQ / BURST; b++) {
		for (uint32_t i = b * BURST; i < (b + 1) * BURST; i++) {
			uint8_t oob[8];

			mp_tx_oob(oob, l->dtc.cq_id, l->dq.sq_id,
				  l->dq.tx_vp_offset);
			mp_wqe((uint8_t *)l->dq.sq_buf + 32 * i, oob,
			    (uintptr_t)(l->frames + (size_t)i * BUF), l->lkey,
			    l->flen);
		}
		__atomic_thread_fence(__ATOMIC_RELEASE);
		mp_doorbell(l->dq.db_page, 0x000, l->dq.sq_id, 32 * (b + 1) * BURST);
		/* every send completes with TX_OKAY on the queue's CQ */
		for (uint32_t h = b * BURST; h < (b + 1) * BURST; h++) {
			const volatile uint8_t *c;

			while (!(c = mp_cqe_at(l->dtc.buf, l->dtc.count, h)) &&
			       mp_now_ms() < until)
				sched_yield();
			if (!c || (mp_get32(c) & 0x3f) != 32 ||
			    (mp_get32(c + 60) & 0xffffff) != l->dq.sq_id ||
			    !(mp_get32(c + 60) >> 24 & 1))
				l->bad++;
		}
	}
	return NULL;
}

START_TEST(tx_to_rss_through_the_fabric)
{
	struct ibv_context *ctx = mp_open("mana_0");
	struct manadv_ctx_allocators al = mp_allocators;

	ck_assert_int_eq(manadv_set_context_attr(ctx, MANADV_CTX_ATTR_BUF_ALLOCATORS,
						 &al), 0);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_parent_domain_init_attr pa = {
		.pd = pd, .comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
	};
	pa.pd_context = (void *)1;
	struct ibv_pd *tx_pd = ibv_alloc_parent_domain(ctx, &pa);
	pa.pd_context = (void *)2;
	struct ibv_pd *rx_pd = ibv_alloc_parent_domain(ctx, &pa);
	ck_assert_ptr_nonnull(tx_pd);
	ck_assert_ptr_nonnull(rx_pd);

	/* TX first, as the PMD starts */
	struct ibv_cq *tcq[NSQ];
	struct ibv_qp *sq[NSQ];
	struct lcore lc[NSQ];

	memset(lc, 0, sizeof(lc));
	for (int i = 0; i < NSQ; i++) {
		struct ibv_qp_init_attr qa = {
			.qp_type = IBV_QPT_RAW_PACKET,
			.cap = { .max_send_wr = SQ_DEPTH, .max_send_sge = 1 },
		};
		struct manadv_obj o = { .qp = { NULL, &lc[i].dq },
					.cq = { NULL, &lc[i].dtc } };

		tcq[i] = ibv_create_cq(ctx, SQ_DEPTH, NULL, NULL, 0);
		qa.send_cq = qa.recv_cq = tcq[i];
		sq[i] = ibv_create_qp(tx_pd, &qa);
		ck_assert_ptr_nonnull(sq[i]);
		o.qp.in = sq[i];
		o.cq.in = tcq[i];
		ck_assert_int_eq(manadv_init_obj(&o, MANADV_OBJ_QP | MANADV_OBJ_CQ), 0);
	}
	ck_assert_ptr_eq(lc[0].dq.db_page, lc[NSQ - 1].dq.db_page);
	struct ibv_cq *rcq[NRQ];
	struct ibv_wq *rwq[NRQ];

	for (int i = 0; i < NRQ; i++) {
		struct ibv_wq_init_attr wa = { .wq_type = IBV_WQT_RQ,
					       .max_wr = RQ_DEPTH, .max_sge = 1,
					       .pd = rx_pd };

		rcq[i] = ibv_create_cq(ctx, RQ_DEPTH, NULL, NULL, 0);
		wa.cq = rcq[i];
		rwq[i] = ibv_create_wq(ctx, &wa);
		ck_assert_ptr_nonnull(rwq[i]);
	}
	struct ibv_rwq_ind_table_init_attr ta = { .log_ind_tbl_size = 1,
						  .ind_tbl = rwq };
	struct ibv_rwq_ind_table *tbl = ibv_create_rwq_ind_table(ctx, &ta);
	uint8_t key[40];

	for (int i = 0; i < 40; i++)
		key[i] = (uint8_t)(0x6d + 31 * i);
	struct ibv_qp_init_attr_ex xa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH |
			     IBV_QP_INIT_ATTR_IND_TABLE,
		.pd = rx_pd, .rwq_ind_tbl = tbl,
		.rx_hash_conf = { .rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
				  .rx_hash_key_len = 40, .rx_hash_key = key },
	};
	struct ibv_qp *rss = ibv_create_qp_ex(ctx, &xa);

	ck_assert_ptr_nonnull(rss);

	/* what the PMD learns of its receive side */
	struct manadv_cq drc[NRQ];
	struct manadv_rwq drw[NRQ];

	for (int i = 0; i < NRQ; i++) {
		struct manadv_obj r = { .cq = { rcq[i], &drc[i] },
					.rwq = { rwq[i], &drw[i] } };

		ck_assert_int_eq(manadv_init_obj(&r, MANADV_OBJ_CQ | MANADV_OBJ_RWQ), 0);
	}

	/* buffers: RX_DEPTH per RQ, then the frames to send */
	size_t bytes = (size_t)(NRQ * RQ_DEPTH + NFRAMES) * BUF;
	uint8_t *mem = aligned_alloc(4096, bytes);

	memset(mem, 0, bytes);
	struct ibv_mr *mr = ibv_reg_mr(pd, mem, bytes, IBV_ACCESS_LOCAL_WRITE);

	ck_assert_ptr_nonnull(mr);

	/* every RQ filled and rung back to back */
	for (int q = 0; q < NRQ; q++) {
		for (int i = 0; i < RQ_DEPTH; i++)
			mp_wqe((uint8_t *)drw[q].buf + 32 * i, NULL,
			    (uintptr_t)(mem + (size_t)(q * RQ_DEPTH + i) * BUF),
			    mr->lkey, BUF);
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (int q = 0; q < NRQ; q++)
		mp_doorbell(drw[q].db_page, 0x400, drw[q].wq_id, 32 * RQ_DEPTH);

	/* the frames: one UDP flow each */
	uint8_t dmac[6], smac[6];
	uint32_t flen = 0;
	pthread_t th[NSQ];
	uint64_t until = mp_now_ms() + 10000;

	mp_port_mac(ctx, 1, dmac);
	mp_port_mac(ctx, 0, smac);
	for (int q = 0; q < NSQ; q++) {
		lc[q].frames = mem + (size_t)(NRQ * RQ_DEPTH + q * PER_SQ) * BUF;
		lc[q].lkey = mr->lkey;
		for (int i = 0; i < PER_SQ; i++)
			flen = udp_frame(lc[q].frames + (size_t)i * BUF, dmac, smac,
					 (uint16_t)(1000 + 7 * (q * PER_SQ + i)),
					 5000);
		lc[q].flen = flen;
	}
	for (int q = 0; q < NSQ; q++)
		ck_assert_int_eq(pthread_create(&th[q], NULL, lcore_tx, &lc[q]), 0);

	/* and arrives, spread by the hash, on the receive CQs */
	uint32_t got[NRQ] = { 0 };

	while (got[0] + got[1] < NFRAMES && mp_now_ms() < until) {
		bool any = false;

		for (int q = 0; q < NRQ; q++) {
			const volatile uint8_t *c = mp_cqe_at(drc[q].buf, drc[q].count,
							   got[q]);
			uint32_t wqe_off, len;

			if (!c)
				continue;
			any = true;
			ck_assert_uint_eq(mp_get32(c) & 0x3f, 1);	/* RX_OKAY */
			ck_assert_uint_eq(mp_get32(c + 60) & 0xffffff, drw[q].wq_id);
			ck_assert_uint_eq(mp_get32(c + 60) >> 24 & 1, 0);
			/* rx_hashtype: exactly MANA_HASH_L4 for UDP over IPv4 */
			ck_assert_uint_eq(mp_get32(c + 4) >> 16 & 0x1ff, 0x1b6);
			len = mp_get32(c + 8) & 0xffff;
			ck_assert_uint_eq(len, flen);
			ck_assert_uint_eq(mp_get32(c + 20) & 0xffff, 0);	/* ppi[1] */
			wqe_off = mp_get32(c + 56);
			ck_assert_uint_eq(wqe_off, 32 * got[q]);
			ck_assert_mem_eq(mem + (size_t)(q * RQ_DEPTH + got[q]) * BUF,
					 dmac, 6);
			got[q]++;
		}
		if (!any)
			sched_yield();
	}
	for (int q = 0; q < NSQ; q++) {
		pthread_join(th[q], NULL);
		ck_assert_int_eq(lc[q].bad, 0);
	}
	ck_assert_uint_eq(got[0] + got[1], NFRAMES);
	ck_assert_uint_gt(got[0], 0);
	ck_assert_uint_gt(got[1], 0);

	for (int q = 0; q < NSQ; q++) {
		ck_assert_int_eq(ibv_destroy_qp(sq[q]), 0);
		ck_assert_int_eq(ibv_destroy_cq(tcq[q]), 0);
	}
	ck_assert_int_eq(ibv_destroy_qp(rss), 0);
	ck_assert_int_eq(ibv_destroy_rwq_ind_table(tbl), 0);
	for (int i = 0; i < NRQ; i++) {
		ck_assert_int_eq(ibv_destroy_wq(rwq[i]), 0);
		ck_assert_int_eq(ibv_destroy_cq(rcq[i]), 0);
	}
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(tx_pd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(rx_pd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	free(mem);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_traffic");
	TCase *tc = tcase_create("fabric");

	setenv("MLX5EMU_MANA_DEVICES", "1", 1);
	setenv("MLX5EMU_NUM_PORTS", "2", 1);
	tcase_add_test(tc, tx_to_rss_through_the_fabric);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
