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
#include <unistd.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

#include <mlx5emu/mlx5emu.h>

#include "mana_pmd.h"
#include "ut_run.h"

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

START_TEST(one_event_per_arm)
{
	struct mp_txq t;
	struct ibv_cq *cq;
	void *cctx;

	mp_txq_open(&t, true);
	/* nothing armed, nothing sent: no event */
	fcntl(t.ch->fd, F_SETFL, fcntl(t.ch->fd, F_GETFL) | O_NONBLOCK);
	ck_assert_int_eq(ibv_get_cq_event(t.ch, &cq, &cctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(ibv_destroy_comp_channel(t.ch), EBUSY);

	/* a CQE without an arm raises nothing */
	mp_txq_send(&t);
	ck_assert(!readable(t.ch->fd, 100));

	/* armed at the consumer's head: the next CQE raises one event */
	arm(t.dq.db_page, t.dc.cq_id, 1);
	ck_assert(!readable(t.ch->fd, 100));
	mp_txq_send(&t);
	ck_assert(readable(t.ch->fd, 5000));
	ck_assert_int_eq(ibv_get_cq_event(t.ch, &cq, &cctx), 0);
	ck_assert_ptr_eq(cq, t.cq);
	ck_assert_ptr_eq(cctx, &t);
	ibv_ack_cq_events(cq, 1);

	/* one-shot: the next CQE raises nothing */
	mp_txq_send(&t);
	ck_assert(!readable(t.ch->fd, 100));

	/* armed behind CQEs already written: the event comes at once */
	arm(t.dq.db_page, t.dc.cq_id, 2);
	ck_assert(readable(t.ch->fd, 5000));
	ck_assert_int_eq(ibv_get_cq_event(t.ch, &cq, &cctx), 0);
	ck_assert_ptr_eq(cq, t.cq);
	ibv_ack_cq_events(cq, 1);
	ck_assert_int_eq(ibv_get_cq_event(t.ch, &cq, &cctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	mp_txq_close(&t, true);
}
END_TEST

/* The event of a CQ destroyed before it was read is dropped. */
START_TEST(destroyed_cq_event_dropped)
{
	struct mp_txq t;
	struct ibv_cq *cq;
	void *cctx;

	mp_txq_open(&t, true);
	arm(t.dq.db_page, t.dc.cq_id, 0);
	mp_txq_send(&t);
	ck_assert(readable(t.ch->fd, 5000));
	ck_assert_int_eq(ibv_destroy_qp(t.qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(t.cq), 0);
	fcntl(t.ch->fd, F_SETFL, fcntl(t.ch->fd, F_GETFL) | O_NONBLOCK);
	ck_assert_int_eq(ibv_get_cq_event(t.ch, &cq, &cctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	mp_txq_close(&t, false);
}
END_TEST

/* A CQ without a channel: an arm and a CQE raise nothing anywhere, and
 * a channel CQ's refcount goes with it. */
START_TEST(channel_counts_its_cqs)
{
	struct mp_txq t;
	struct ibv_cq *cq2;

	mp_txq_open(&t, true);
	cq2 = ibv_create_cq(t.ctx, 8, NULL, t.ch, 0);
	ck_assert_ptr_nonnull(cq2);
	ck_assert_int_eq(t.ch->refcnt, 2);
	ck_assert_int_eq(ibv_destroy_cq(cq2), 0);
	ck_assert_int_eq(t.ch->refcnt, 1);
	mp_txq_close(&t, true);
}
END_TEST

/* The next async event within a second: its type and port. */
static void async_event(struct ibv_context *ctx, enum ibv_event_type type,
			int port)
{
	struct ibv_async_event ev;

	ck_assert(readable(ctx->async_fd, 1000));
	ck_assert_int_eq(ibv_get_async_event(ctx, &ev), 0);
	ck_assert_int_eq(ev.event_type, type);
	if (port)
		ck_assert_int_eq(ev.element.port_num, port);
	ibv_ack_async_event(&ev);
}

/* A vPort's carrier, lost and back by fault rules: the async events, the
 * port query, and sends that still complete. */
START_TEST(carrier_by_rule)
{
	struct ibv_async_event ev;
	struct ibv_port_attr pa;
	struct mp_txq t;
	int id;

	mp_txq_open(&t, false);
	fcntl(t.ctx->async_fd, F_SETFL,
	      fcntl(t.ctx->async_fd, F_GETFL) | O_NONBLOCK);
	ck_assert_int_eq(ibv_get_async_event(t.ctx, &ev), -1);
	ck_assert_int_eq(errno, EAGAIN);
	/* an event rule naming no device leaves MANA devices alone */
	id = mlx5emu_fault_add("port_down port=1");
	ck_assert_int_gt(id, 0);
	ck_assert(!readable(t.ctx->async_fd, 100));
	ck_assert_int_eq(mlx5emu_fault_remove(id), 0);

	ck_assert_int_gt(mlx5emu_fault_add("port_down dev=mana_0 port=1"), 0);
	async_event(t.ctx, IBV_EVENT_PORT_ERR, 1);
	ck_assert_int_eq(ibv_query_port(t.ctx, 1, &pa), 0);
	ck_assert_int_eq(pa.state, IBV_PORT_DOWN);
	mp_txq_send(&t);		/* completes; nothing reaches the wire */
	ck_assert_int_gt(mlx5emu_fault_add("port_up dev=mana_0"), 0);
	async_event(t.ctx, IBV_EVENT_PORT_ACTIVE, 1);
	ck_assert_int_eq(ibv_query_port(t.ctx, 1, &pa), 0);
	ck_assert_int_eq(pa.state, IBV_PORT_ACTIVE);
	mlx5emu_fault_clear();
	mp_txq_close(&t, true);
}
END_TEST

/* A fatal error by a rule: DEVICE_FATAL, verbs refused with EIO, nothing
 * more completes; the destroys still work. */
START_TEST(fatal_by_rule)
{
	struct mp_txq t;

	mp_txq_open(&t, false);
	mp_txq_send(&t);
	ck_assert_int_gt(mlx5emu_fault_add("device_fatal dev=mana_0"), 0);
	async_event(t.ctx, IBV_EVENT_DEVICE_FATAL, 0);
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_pd(t.ctx));
	ck_assert_int_eq(errno, EIO);
	mp_txq_post(&t, 60);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mp_doorbell(t.dq.db_page, 0, t.dq.sq_id, 32 * t.posted);
	usleep(200000);
	ck_assert(mp_cqe_at(t.dc.buf, t.dc.count, t.posted - 1) == NULL);
	mlx5emu_fault_clear();
	mp_txq_close(&t, true);
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
	tcase_add_test(tc, carrier_by_rule);
	tcase_add_test(tc, fatal_by_rule);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
