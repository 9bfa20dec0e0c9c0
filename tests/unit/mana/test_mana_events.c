/* SPDX-License-Identifier: MIT */
/*
 * Completion events of MANA CQs, as DPDK's PMD takes RX interrupts: a CQ
 * created on a completion channel, armed by the application with the arm
 * bit of the CQ doorbell (libmana 44 has no req_notify_cq), raises one
 * event per arm on the channel; ibv_get_cq_event names the CQ and its
 * context; the channel refuses destruction while a CQ uses it; the event
 * of a CQ destroyed unread is dropped.  The oracle is the doorbell layout
 * of the kernel's gdma.h (id bits 0..23, tail 32..62, arm 63 at 0x800).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

#include "mana_pmd.h"
#include "ut_run.h"

enum { BUF = 2048, FLEN = 60, DEPTH = 64 };

static void arm(void *page, uint32_t cq_id, uint32_t head)
{
	*(volatile uint64_t *)((char *)page + 0x800) =
		1ull << 63 | (uint64_t)head << 32 | cq_id;
}

static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

struct txq {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *ppd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct manadv_qp dq;
	struct manadv_cq dc;
	uint8_t *mem;
	uint32_t posted;
};

static void txq_open(struct txq *t)
{
	struct manadv_ctx_allocators al = mp_allocators;

	memset(t, 0, sizeof(*t));
	t->ctx = mp_open("mana_0");
	ck_assert_int_eq(manadv_set_context_attr(t->ctx,
				MANADV_CTX_ATTR_BUF_ALLOCATORS, &al), 0);
	t->pd = ibv_alloc_pd(t->ctx);
	struct ibv_parent_domain_init_attr pa = {
		.pd = t->pd, .comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.pd_context = (void *)1,
	};
	t->ppd = ibv_alloc_parent_domain(t->ctx, &pa);
	t->ch = ibv_create_comp_channel(t->ctx);
	ck_assert_ptr_nonnull(t->ch);
	t->cq = ibv_create_cq(t->ctx, DEPTH, t, t->ch, 0);
	ck_assert_ptr_nonnull(t->cq);
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RAW_PACKET, .send_cq = t->cq, .recv_cq = t->cq,
		.cap = { .max_send_wr = DEPTH, .max_send_sge = 1 },
	};
	t->qp = ibv_create_qp(t->ppd, &qa);
	ck_assert_ptr_nonnull(t->qp);
	t->mem = aligned_alloc(4096, BUF);
	memset(t->mem, 0, BUF);
	t->mr = ibv_reg_mr(t->pd, t->mem, BUF, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(t->mr);
	struct manadv_obj o = { .qp = { t->qp, &t->dq }, .cq = { t->cq, &t->dc } };

	ck_assert_int_eq(manadv_init_obj(&o, MANADV_OBJ_QP | MANADV_OBJ_CQ), 0);
	memset(t->mem, 0xff, 12);		/* broadcast, to nobody */
	t->mem[12] = 0x88;
	t->mem[13] = 0xb5;
}

/* One frame sent and its CQE seen. */
static void txq_send(struct txq *t)
{
	uint8_t oob[8];

	mp_tx_oob(oob, t->dc.cq_id, t->dq.sq_id, t->dq.tx_vp_offset);
	mp_wqe((uint8_t *)t->dq.sq_buf + 32 * (t->posted % (t->dq.sq_size / 32)),
	       oob, (uintptr_t)t->mem, t->mr->lkey, FLEN);
	t->posted++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mp_doorbell(t->dq.db_page, 0, t->dq.sq_id, 32 * t->posted);
	ck_assert(mp_cqe_wait(t->dc.buf, t->dc.count, t->posted - 1) != NULL);
}

static void txq_close(struct txq *t)
{
	ck_assert_int_eq(ibv_destroy_qp(t->qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(t->cq), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(t->ch), 0);
	ck_assert_int_eq(ibv_dereg_mr(t->mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(t->ppd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(t->pd), 0);
	ck_assert_int_eq(ibv_close_device(t->ctx), 0);
	free(t->mem);
}

START_TEST(one_event_per_arm)
{
	struct txq t;
	struct ibv_cq *cq;
	void *cctx;

	txq_open(&t);
	/* nothing armed, nothing sent: no event */
	fcntl(t.ch->fd, F_SETFL, fcntl(t.ch->fd, F_GETFL) | O_NONBLOCK);
	ck_assert_int_eq(ibv_get_cq_event(t.ch, &cq, &cctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(ibv_destroy_comp_channel(t.ch), EBUSY);

	/* a CQE without an arm raises nothing */
	txq_send(&t);
	ck_assert(!readable(t.ch->fd, 100));

	/* armed at the consumer's head: the next CQE raises one event */
	arm(t.dq.db_page, t.dc.cq_id, 1);
	ck_assert(!readable(t.ch->fd, 100));
	txq_send(&t);
	ck_assert(readable(t.ch->fd, 5000));
	ck_assert_int_eq(ibv_get_cq_event(t.ch, &cq, &cctx), 0);
	ck_assert_ptr_eq(cq, t.cq);
	ck_assert_ptr_eq(cctx, &t);
	ibv_ack_cq_events(cq, 1);

	/* one-shot: the next CQE raises nothing */
	txq_send(&t);
	ck_assert(!readable(t.ch->fd, 100));

	/* armed behind CQEs already written: the event comes at once */
	arm(t.dq.db_page, t.dc.cq_id, 2);
	ck_assert(readable(t.ch->fd, 5000));
	ck_assert_int_eq(ibv_get_cq_event(t.ch, &cq, &cctx), 0);
	ck_assert_ptr_eq(cq, t.cq);
	ibv_ack_cq_events(cq, 1);
	ck_assert_int_eq(ibv_get_cq_event(t.ch, &cq, &cctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	txq_close(&t);
}
END_TEST

/* The event of a CQ destroyed before it was read is dropped. */
START_TEST(destroyed_cq_event_dropped)
{
	struct txq t;
	struct ibv_cq *cq;
	void *cctx;

	txq_open(&t);
	arm(t.dq.db_page, t.dc.cq_id, 0);
	txq_send(&t);
	ck_assert(readable(t.ch->fd, 5000));
	ck_assert_int_eq(ibv_destroy_qp(t.qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(t.cq), 0);
	fcntl(t.ch->fd, F_SETFL, fcntl(t.ch->fd, F_GETFL) | O_NONBLOCK);
	ck_assert_int_eq(ibv_get_cq_event(t.ch, &cq, &cctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(ibv_destroy_comp_channel(t.ch), 0);
	ck_assert_int_eq(ibv_dereg_mr(t.mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(t.ppd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(t.pd), 0);
	ck_assert_int_eq(ibv_close_device(t.ctx), 0);
	free(t.mem);
}
END_TEST

/* A CQ without a channel: an arm and a CQE raise nothing anywhere, and
 * a channel CQ's refcount goes with it. */
START_TEST(channel_counts_its_cqs)
{
	struct txq t;
	struct ibv_cq *cq2;

	txq_open(&t);
	cq2 = ibv_create_cq(t.ctx, 8, NULL, t.ch, 0);
	ck_assert_ptr_nonnull(cq2);
	ck_assert_int_eq(t.ch->refcnt, 2);
	ck_assert_int_eq(ibv_destroy_cq(cq2), 0);
	ck_assert_int_eq(t.ch->refcnt, 1);
	txq_close(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_events");
	TCase *tc = tcase_create("events");

	setenv("MLX5EMU_MANA_DEVICES", "1", 1);
	tcase_add_test(tc, one_event_per_arm);
	tcase_add_test(tc, destroyed_cq_event_dropped);
	tcase_add_test(tc, channel_counts_its_cqs);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
