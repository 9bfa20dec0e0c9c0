/* SPDX-License-Identifier: MIT */
/*
 * Events of verbs objects as an application sees them, raised by the
 * device: completion channels (ibv_req_notify_cq next and solicited, one
 * event per arm, arming after CQEs came, poll/epoll, O_NONBLOCK, a blocked
 * reader woken, unread events dropped with their CQ, destroy waiting for
 * acknowledgements) and async_fd (every affiliated event mlx5_ib reports,
 * port and device events), each caused by traffic where traffic can, by a
 * fault rule where it cannot.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <mlx5emu/mlx5emu.h>

#include "ev_test.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_comp_channel *ch;
static struct ibv_cq *cqa, *cqb;
static struct ibv_mr *mra, *mrb;
static struct evt_qp qa, qb;
static char bufa[4096] __attribute__((aligned(64)));
static char bufb[4096] __attribute__((aligned(64)));
static int ctx_a, ctx_b;

static void open_objects(void)
{
	ctx = ut_open(false);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	ch = ibv_create_comp_channel(ctx);
	ck_assert_ptr_nonnull(ch);
	cqa = ibv_create_cq(ctx, 64, &ctx_a, ch, 0);
	cqb = ibv_create_cq(ctx, 64, &ctx_b, ch, 0);
	ck_assert_ptr_nonnull(cqa);
	ck_assert_ptr_nonnull(cqb);
	mra = ibv_reg_mr(pd, bufa, sizeof(bufa), IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	mrb = ibv_reg_mr(pd, bufb, sizeof(bufb), IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	ck_assert_ptr_nonnull(mra);
	ck_assert_ptr_nonnull(mrb);
}

/* qa (on cqa) and qb (on cqb) connected to each other, both RTS. */
static void setup(void)
{
	open_objects();
	evt_qp_create(&qa, pd, cqa, NULL);
	evt_qp_create(&qb, pd, cqb, NULL);
	evt_qp_connect(&qa, qb.qp->qp_num, false);
	evt_qp_connect(&qb, qa.qp->qp_num, false);
}

static void teardown(void)
{
	mlx5emu_fault_clear();
}

/* qa writes 8 bytes into qb's buffer: a CQE on cqa. */
static void write_ab(void)
{
	evt_post(&qa, MLX5_OPCODE_RDMA_WRITE, mra, 0, 8,
		 (uintptr_t)mrb->addr, mrb->rkey);
}

static void get_cq_event(struct ibv_cq *want, void *want_ctx)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	ck_assert_int_eq(ibv_get_cq_event(ch, &cq, &cq_ctx), 0);
	ck_assert_ptr_eq(cq, want);
	ck_assert_ptr_eq(cq_ctx, want_ctx);
	ibv_ack_cq_events(cq, 1);
}

/* ---- completion channels ---- */

START_TEST(next_completion_one_event_per_arm)
{
	enum ibv_wc_status st;

	ck_assert_int_eq(ibv_req_notify_cq(cqa, 0), 0);
	ck_assert(!evt_readable(ch->fd, 20));
	write_ab();
	ck_assert(evt_readable(ch->fd, 2000));
	get_cq_event(cqa, &ctx_a);
	evt_poll(cqa, 1, &st);
	ck_assert_int_eq(st, IBV_WC_SUCCESS);
	/* Not re-armed: the next completion raises nothing. */
	write_ab();
	evt_poll(cqa, 1, NULL);
	ck_assert(!evt_readable(ch->fd, 50));
	/* Re-armed (the sequence after the event): the next one does. */
	ck_assert_int_eq(ibv_req_notify_cq(cqa, 0), 0);
	write_ab();
	ck_assert(evt_readable(ch->fd, 2000));
	get_cq_event(cqa, &ctx_a);
	evt_poll(cqa, 1, NULL);
}
END_TEST

START_TEST(solicited_only)
{
	enum ibv_wc_status st;

	ck_assert_int_eq(ibv_req_notify_cq(cqa, 1), 0);
	write_ab();		/* a requester CQE is not solicited */
	evt_poll(cqa, 1, &st);
	ck_assert_int_eq(st, IBV_WC_SUCCESS);
	ck_assert(!evt_readable(ch->fd, 50));
	/* An error CQE is: a write with a bad rkey. */
	evt_post(&qa, MLX5_OPCODE_RDMA_WRITE, mra, 0, 8, (uintptr_t)mrb->addr,
		 mrb->rkey ^ 0x80);
	ck_assert(evt_readable(ch->fd, 2000));
	get_cq_event(cqa, &ctx_a);
	evt_poll(cqa, 1, &st);
	ck_assert_int_eq(st, IBV_WC_REM_ACCESS_ERR);
}
END_TEST

START_TEST(armed_after_cqes_came)
{
	write_ab();
	ck_assert(!evt_readable(ch->fd, 50));	/* not armed */
	/* The CQE is there and not polled: arming raises the event now. */
	ck_assert_int_eq(ibv_req_notify_cq(cqa, 0), 0);
	ck_assert(evt_readable(ch->fd, 2000));
	get_cq_event(cqa, &ctx_a);
	evt_poll(cqa, 1, NULL);
	/* Polled first, then armed: nothing until the next CQE. */
	ck_assert_int_eq(ibv_req_notify_cq(cqa, 0), 0);
	ck_assert(!evt_readable(ch->fd, 50));
}
END_TEST

START_TEST(nonblocking_and_epoll)
{
	struct epoll_event e = { .events = EPOLLIN }, got;
	int ep = epoll_create1(0);
	struct ibv_cq *cq;
	void *cq_ctx;

	evt_nonblock(ch->fd);
	errno = 0;
	ck_assert_int_eq(ibv_get_cq_event(ch, &cq, &cq_ctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_ADD, ch->fd, &e), 0);
	ck_assert_int_eq(epoll_wait(ep, &got, 1, 20), 0);
	ck_assert_int_eq(ibv_req_notify_cq(cqb, 0), 0);
	evt_post(&qb, MLX5_OPCODE_RDMA_WRITE, mrb, 0, 8, (uintptr_t)mra->addr,
		 mra->rkey);
	ck_assert_int_eq(epoll_wait(ep, &got, 1, 2000), 1);
	get_cq_event(cqb, &ctx_b);
	ck_assert_int_eq(epoll_wait(ep, &got, 1, 0), 0);
	ck_assert_int_eq(ibv_get_cq_event(ch, &cq, &cq_ctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	close(ep);
	evt_poll(cqb, 1, NULL);
}
END_TEST

struct waiter {
	struct ibv_cq *cq;
	int ret;
	volatile int done;
};

static void *get_event_thread(void *arg)
{
	struct waiter *w = arg;
	void *cq_ctx;

	w->ret = ibv_get_cq_event(ch, &w->cq, &cq_ctx);
	w->done = 1;
	return NULL;
}

static void *destroy_thread(void *arg)
{
	struct waiter *w = arg;

	w->ret = ibv_destroy_cq(w->cq);
	w->done = 1;
	return NULL;
}

START_TEST(blocked_reader_woken)
{
	struct waiter w = { 0 };
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, get_event_thread, &w), 0);
	usleep(50000);
	ck_assert_int_eq(w.done, 0);
	ck_assert_int_eq(ibv_req_notify_cq(cqa, 0), 0);
	write_ab();
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(w.ret, 0);
	ck_assert_ptr_eq(w.cq, cqa);
	ibv_ack_cq_events(cqa, 1);
	evt_poll(cqa, 1, NULL);
}
END_TEST

START_TEST(destroyed_cq_drops_unread)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	ck_assert_int_eq(ibv_req_notify_cq(cqa, 0), 0);
	ck_assert_int_eq(ibv_req_notify_cq(cqb, 0), 0);
	write_ab();
	ck_assert(evt_readable(ch->fd, 2000));
	/* cqa's event unread: gone with the CQ (its QP first). */
	ck_assert_int_eq(ibv_destroy_qp(qa.qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(cqa), 0);
	evt_nonblock(ch->fd);
	errno = 0;
	ck_assert_int_eq(ibv_get_cq_event(ch, &cq, &cq_ctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	/* Another CQ's events still come. */
	evt_post(&qb, MLX5_OPCODE_RDMA_WRITE, mrb, 0, 8, (uintptr_t)mra->addr,
		 mra->rkey);
	ck_assert(evt_readable(ch->fd, 2000));
	get_cq_event(cqb, &ctx_b);
}
END_TEST

START_TEST(destroy_waits_for_ack)
{
	struct waiter w = { .cq = cqa };
	struct ibv_cq *cq;
	void *cq_ctx;
	pthread_t t;

	ck_assert_int_eq(ibv_req_notify_cq(cqa, 0), 0);
	write_ab();
	ck_assert_int_eq(ibv_get_cq_event(ch, &cq, &cq_ctx), 0);
	ck_assert_int_eq(ibv_destroy_qp(qa.qp), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, destroy_thread, &w), 0);
	usleep(50000);
	ck_assert_int_eq(w.done, 0);	/* the event is not acknowledged */
	ibv_ack_cq_events(cqa, 1);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(w.ret, 0);
}
END_TEST

START_TEST(channel_busy_with_cqs)
{
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), EBUSY);
}
END_TEST

/* ---- async_fd ---- */

static void get_async(enum ibv_event_type type, struct ibv_async_event *ev)
{
	ck_assert_msg(evt_readable(ctx->async_fd, 3000), "no event %d", type);
	ck_assert_int_eq(ibv_get_async_event(ctx, ev), 0);
	ck_assert_msg(ev->event_type == type, "event %d, expected %d",
		      ev->event_type, type);
}

static void qp_event(enum ibv_event_type type, struct ibv_qp *qp)
{
	struct ibv_async_event ev;

	get_async(type, &ev);
	ck_assert_ptr_eq(ev.element.qp, qp);
	ibv_ack_async_event(&ev);
}

static void no_async(void)
{
	struct ibv_async_event ev;

	ck_assert(!evt_readable(ctx->async_fd, 30));
	evt_nonblock(ctx->async_fd);
	errno = 0;
	ck_assert_int_eq(ibv_get_async_event(ctx, &ev), -1);
	ck_assert_int_eq(errno, EAGAIN);
}

START_TEST(qp_fatal_by_rule)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int id = evt_fault("qp_fatal dev=0 qpn=%u", qa.qp->qp_num);

	ck_assert_int_eq(mlx5emu_fault_count(id), 1);
	qp_event(IBV_EVENT_QP_FATAL, qa.qp);
	ck_assert_int_eq(ibv_query_qp(qa.qp, &a, IBV_QP_STATE, &ia), 0);
	ck_assert_int_eq(a.qp_state, IBV_QPS_ERR);
	no_async();
}
END_TEST

START_TEST(qp_fatal_after_command)
{
	struct evt_qp q;
	int id = evt_fault("qp_fatal opcode=RTR2RTS_QP dev=0");

	evt_qp_create(&q, pd, cqa, NULL);
	evt_qp_connect(&q, qb.qp->qp_num, false);
	ck_assert_int_eq(mlx5emu_fault_count(id), 1);
	qp_event(IBV_EVENT_QP_FATAL, q.qp);
}
END_TEST

START_TEST(remote_access_error)
{
	enum ibv_wc_status st;

	/* A bad rkey: the requester's CQE; the responder's QP_ACCESS_ERR. */
	evt_post(&qa, MLX5_OPCODE_RDMA_WRITE, mra, 0, 8, (uintptr_t)mrb->addr,
		 mrb->rkey ^ 0x80);
	evt_poll(cqa, 1, &st);
	ck_assert_int_eq(st, IBV_WC_REM_ACCESS_ERR);
	qp_event(IBV_EVENT_QP_ACCESS_ERR, qb.qp);
	no_async();
}
END_TEST

START_TEST(invalid_request)
{
	enum ibv_wc_status st;

	/* An atomic at an odd address: the responder's QP_REQ_ERR. */
	evt_post(&qb, MLX5_OPCODE_ATOMIC_FA, mrb, 0, 8,
		 (uintptr_t)mra->addr + 4, mra->rkey);
	evt_poll(cqb, 1, &st);
	ck_assert_int_eq(st, IBV_WC_REM_INV_REQ_ERR);
	qp_event(IBV_EVENT_QP_REQ_ERR, qa.qp);
	no_async();
}
END_TEST

START_TEST(comm_est)
{
	struct evt_qp r;

	open_objects();
	evt_qp_create(&qa, pd, cqa, NULL);
	evt_qp_create(&r, pd, cqb, NULL);
	evt_qp_connect(&qa, r.qp->qp_num, false);
	evt_qp_connect(&r, qa.qp->qp_num, true);	/* RTR only */
	write_ab();
	qp_event(IBV_EVENT_COMM_EST, r.qp);
	write_ab();
	evt_poll(cqa, 2, NULL);
	no_async();		/* once */
}
END_TEST

START_TEST(last_wqe_through_devx_modify)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	uint8_t in[PRM_ST_SZ_BYTES(qp_2err_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(qp_2err_out)] = { 0 };
	struct ibv_srq *srq;
	struct evt_qp s;

	open_objects();
	srq = ibv_create_srq(pd, &sa);
	ck_assert_ptr_nonnull(srq);
	evt_qp_create(&s, pd, cqa, srq);
	evt_qp_connect(&s, 0x100, false);
	/* 2ERR through DEVX, not verbs: the QP on the SRQ reports it. */
	PRM_SET(qp_2err_in, in, opcode, MLX5_CMD_OP_2ERR_QP);
	PRM_SET(qp_2err_in, in, qpn, s.qp->qp_num);
	ck_assert_int_eq(mlx5dv_devx_qp_modify(s.qp, in, sizeof(in), out,
					       sizeof(out)), 0);
	qp_event(IBV_EVENT_QP_LAST_WQE_REACHED, s.qp);
	no_async();
}
END_TEST

static uint32_t srqn_of(struct ibv_srq *srq)
{
	struct mlx5dv_srq dv = { .comp_mask = MLX5DV_SRQ_MASK_SRQN };
	struct mlx5dv_obj o = { .srq = { .in = srq, .out = &dv } };

	ck_assert_int_eq(mlx5dv_init_obj(&o, MLX5DV_OBJ_SRQ), 0);
	return dv.srqn;
}

static void srq_event(struct ibv_srq *srq)
{
	struct ibv_async_event ev;

	get_async(IBV_EVENT_SRQ_LIMIT_REACHED, &ev);
	ck_assert_ptr_eq(ev.element.srq, srq);
	ibv_ack_async_event(&ev);
}

START_TEST(srq_limit)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq_attr attr = { .srq_limit = 4 };
	struct ibv_sge sge = { .addr = (uintptr_t)bufb, .length = 64 };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_srq *srq;
	struct evt_qp s;

	open_objects();
	srq = ibv_create_srq(pd, &sa);
	ck_assert_ptr_nonnull(srq);
	sge.lkey = mrb->lkey;
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(ibv_post_srq_recv(srq, &wr, &bad), 0);
	evt_qp_create(&qa, pd, cqa, NULL);
	evt_qp_create(&s, pd, cqb, srq);
	evt_qp_connect(&qa, s.qp->qp_num, false);
	evt_qp_connect(&s, qa.qp->qp_num, false);
	/* Armed at 4 with 5 posted: the second SEND leaves 3. */
	ck_assert_int_eq(ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT), 0);
	evt_post(&qa, MLX5_OPCODE_SEND, mra, 0, 16, 0, 0);
	evt_poll(cqb, 1, NULL);
	ck_assert(!evt_readable(ctx->async_fd, 30));
	evt_post(&qa, MLX5_OPCODE_SEND, mra, 0, 16, 0, 0);
	srq_event(srq);
	/* Once per arm: more receives taken raise nothing. */
	evt_post(&qa, MLX5_OPCODE_SEND, mra, 0, 16, 0, 0);
	evt_poll(cqb, 2, NULL);
	ck_assert(!evt_readable(ctx->async_fd, 30));
	/* On demand, the device raises it whatever the fill. */
	evt_fault("srq_limit srqn=%u", srqn_of(srq));
	srq_event(srq);
	no_async();
}
END_TEST

/* A verbs QP's send CQ number, as QUERY_QP through DEVX tells it. */
static uint32_t send_cqn(struct ibv_qp *qp)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)] = { 0 };

	PRM_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	PRM_SET(query_qp_in, in, qpn, qp->qp_num);
	ck_assert_int_eq(mlx5dv_devx_qp_query(qp, in, sizeof(in), out,
					      sizeof(out)), 0);
	return PRM_GET(qpc, PRM_ADDR_OF(query_qp_out, out, qpc), cqn_snd);
}

START_TEST(cq_error)
{
	struct ibv_async_event ev;

	evt_fault("cq_overrun dev=0 cqn=%u", send_cqn(qb.qp));
	get_async(IBV_EVENT_CQ_ERR, &ev);
	ck_assert_ptr_eq(ev.element.cq, cqb);
	ibv_ack_async_event(&ev);
	ck_assert_uint_eq(cqb->async_events_completed, 1);
	no_async();
}
END_TEST

START_TEST(port_down_up)
{
	struct ibv_port_attr pa;
	struct ibv_async_event ev;

	evt_fault("port_down dev=0 port=1");
	get_async(IBV_EVENT_PORT_ERR, &ev);
	ck_assert_int_eq(ev.element.port_num, 1);
	ibv_ack_async_event(&ev);
	ck_assert_int_eq(ibv_query_port(ctx, 1, &pa), 0);
	ck_assert_int_eq(pa.state, IBV_PORT_DOWN);
	/* No QP errs by the port alone. */
	{
		struct ibv_qp_attr qa_attr;
		struct ibv_qp_init_attr qa_init;

		ck_assert_int_eq(ibv_query_qp(qa.qp, &qa_attr, IBV_QP_STATE,
					      &qa_init), 0);
		ck_assert_int_eq(qa_attr.qp_state, IBV_QPS_RTS);
	}
	evt_fault("port_up dev=0 port=1");
	get_async(IBV_EVENT_PORT_ACTIVE, &ev);
	ck_assert_int_eq(ev.element.port_num, 1);
	ibv_ack_async_event(&ev);
	ck_assert_int_eq(ibv_query_port(ctx, 1, &pa), 0);
	ck_assert_int_eq(pa.state, IBV_PORT_ACTIVE);
	no_async();
}
END_TEST

START_TEST(device_fatal)
{
	struct ibv_async_event ev;
	struct ibv_pd *p2;

	evt_fault("device_fatal dev=0");
	get_async(IBV_EVENT_DEVICE_FATAL, &ev);
	ibv_ack_async_event(&ev);
	/* Commands fail (mlx5_cmd_exec in the internal error state)... */
	errno = 0;
	p2 = ibv_alloc_pd(ctx);
	ck_assert_ptr_null(p2);
	ck_assert_int_eq(errno, EIO);
	/* ibv_query_port too (mlx5_query_port_roce's PTYS read). */
	{
		struct ibv_port_attr pa;

		ck_assert_int_eq(ibv_query_port(ctx, 1, &pa), EIO);
	}
	/* ... but destroys succeed. */
	ck_assert_int_eq(ibv_destroy_qp(qa.qp), 0);
	ck_assert_int_eq(ibv_destroy_qp(qb.qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(mra), 0);
}
END_TEST

START_TEST(destroyed_qp_drops_unread)
{
	evt_fault("qp_fatal dev=0 qpn=%u", qb.qp->qp_num);
	ck_assert(evt_readable(ctx->async_fd, 2000));
	ck_assert_int_eq(ibv_destroy_qp(qb.qp), 0);
	no_async();
}
END_TEST

static Suite *events_verbs_suite(void)
{
	Suite *s = suite_create("events_verbs");
	TCase *cc = tcase_create("comp_channel");
	TCase *as = tcase_create("async");
	TCase *bare = tcase_create("bare");

	tcase_add_checked_fixture(cc, setup, teardown);
	tcase_add_test(cc, next_completion_one_event_per_arm);
	tcase_add_test(cc, solicited_only);
	tcase_add_test(cc, armed_after_cqes_came);
	tcase_add_test(cc, nonblocking_and_epoll);
	tcase_add_test(cc, blocked_reader_woken);
	tcase_add_test(cc, destroyed_cq_drops_unread);
	tcase_add_test(cc, destroy_waits_for_ack);
	tcase_add_test(cc, channel_busy_with_cqs);
	suite_add_tcase(s, cc);

	tcase_add_checked_fixture(as, setup, teardown);
	tcase_add_test(as, qp_fatal_by_rule);
	tcase_add_test(as, qp_fatal_after_command);
	tcase_add_test(as, remote_access_error);
	tcase_add_test(as, invalid_request);
	tcase_add_test(as, cq_error);
	tcase_add_test(as, port_down_up);
	tcase_add_test(as, device_fatal);
	tcase_add_test(as, destroyed_qp_drops_unread);
	suite_add_tcase(s, as);

	tcase_add_checked_fixture(bare, NULL, teardown);
	tcase_add_test(bare, comm_est);
	tcase_add_test(bare, last_wqe_through_devx_modify);
	tcase_add_test(bare, srq_limit);
	suite_add_tcase(s, bare);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(events_verbs_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
