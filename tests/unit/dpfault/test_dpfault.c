/* SPDX-License-Identifier: MIT */
/*
 * Data-path fault rules as an application meets them: an ordinary verbs
 * program linked against libmlx5emu.so.1 and the drop-in libmlx5.so.1 /
 * libibverbs.so.1, two RC QPs of mlx5_0 connected to each other.  Each
 * rule kind is checked against what libmlx5 reports (ibv_wc) and against
 * the CQE bytes in the ring, read at the PRM's literal offsets (byte 54
 * vendor_err_synd, 55 syndrome, 56..59 sop_drop_qpn, 60..61 wqe_counter,
 * 63 op_own), the QP states and the async events; and a seeded rule's
 * firing sequence, twice.
 */
#include <check.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <mlx5emu/mlx5emu.h>

#include "ut_dropin.h"
#include "ut_env.h"

#define BUF 4096
#define MSG 64

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t *buf;
static struct ibv_cq *cqa, *cqb;	/* A's completions, B's */
static struct ibv_qp *qpa, *qpb;	/* A sends to B */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void to_rts(struct ibv_qp *qp, uint32_t rqpn)
{
	union ibv_gid gid;

	ck_assert_int_eq(ibv_query_gid(ctx, 1, 3, &gid), 0);
	ck_assert_int_eq(ut_rc_connect_access(qp, rqpn, &gid, 12,
					      IBV_ACCESS_REMOTE_WRITE |
					      IBV_ACCESS_REMOTE_READ), 0);
}

static struct ibv_qp *make_qp(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	ck_assert_msg(qp, "ibv_create_qp: %s", strerror(errno));
	return qp;
}

static void qps_up(void)
{
	qpa = make_qp(cqa);
	qpb = make_qp(cqb);
	to_rts(qpa, qpb->qp_num);
	to_rts(qpb, qpa->qp_num);
}

static void qps_down(void)
{
	ck_assert_int_eq(ibv_destroy_qp(qpa), 0);
	ck_assert_int_eq(ibv_destroy_qp(qpb), 0);
}

static void open_all(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	ck_assert_ptr_nonnull(list);
	ck_assert_ptr_nonnull(list[0]);
	ctx = ibv_open_device(list[0]);
	ck_assert_ptr_nonnull(ctx);
	ibv_free_device_list(list);
	pd = ibv_alloc_pd(ctx);
	buf = calloc(1, BUF);
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	cqa = ibv_create_cq(ctx, 15, NULL, NULL, 0);
	cqb = ibv_create_cq(ctx, 15, NULL, NULL, 0);
	ck_assert(pd && buf && mr && cqa && cqb);
	ck_assert_int_eq(fcntl(ctx->async_fd, F_SETFL, O_NONBLOCK), 0);
	qps_up();
}

static void setup(void)
{
	ut_clear_env();
	open_all();
}

static void teardown(void)
{
	mlx5emu_fault_clear();
	qps_down();
	ck_assert_int_eq(ibv_destroy_cq(cqa), 0);
	ck_assert_int_eq(ibv_destroy_cq(cqb), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	free(buf);
}

static int add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int add(const char *fmt, ...)
{
	char rule[256];
	va_list ap;
	int id;

	va_start(ap, fmt);
	vsnprintf(rule, sizeof(rule), fmt, ap);
	va_end(ap);
	id = mlx5emu_fault_add(rule);
	ck_assert_msg(id > 0, "%s: %d %s", rule, id, mlx5emu_fault_last_error());
	return id;
}

static void post_recvs(struct ibv_qp *qp, int n, uint64_t wr_id)
{
	for (int i = 0; i < n; i++) {
		struct ibv_sge sge = { (uintptr_t)buf + 2048 + i * MSG, MSG,
				       mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = wr_id + i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
	}
}

/* n signaled SENDs in one post (one doorbell), wr_id from @wr_id. */
static void post_sends(struct ibv_qp *qp, int n, uint64_t wr_id)
{
	struct ibv_send_wr wr[8], *bad;
	struct ibv_sge sge[8];

	ck_assert_int_le(n, 8);
	for (int i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)buf + i * MSG, MSG,
					   mr->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = wr_id + i, .sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
			.next = i + 1 < n ? &wr[i + 1] : NULL,
		};
	}
	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), 0);
}

/* Up to n completions of cq within ms; how many. */
static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;
	int got = 0;

	while (got < n && now_ms() < end) {
		int r = ibv_poll_cq(cq, n - got, wc + got);

		ck_assert_int_ge(r, 0);
		got += r;
	}
	return got;
}

/* The 64-byte CQE at index i of the ring, as the device wrote it. */
static const uint8_t *ring_cqe(struct ibv_cq *cq, uint32_t i)
{
	struct mlx5dv_cq dv;
	struct mlx5dv_obj obj = { .cq = { .in = cq, .out = &dv } };

	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ), 0);
	return (const uint8_t *)dv.buf + (size_t)(i & (dv.cqe_cnt - 1)) *
	       dv.cqe_size + (dv.cqe_size - 64);
}

static void expect_err_cqe(const uint8_t *e, uint8_t opcode, uint8_t synd,
			   uint8_t vendor, uint8_t wqe_op, uint32_t qpn,
			   uint16_t counter)
{
	uint32_t sop;
	uint16_t wc;

	memcpy(&sop, e + 56, 4);
	memcpy(&wc, e + 60, 2);
	ck_assert_uint_eq(e[63] >> 4, opcode);
	ck_assert_uint_eq(e[55], synd);
	ck_assert_uint_eq(e[54], vendor);
	ck_assert_uint_eq(be32toh(sop), (uint32_t)wqe_op << 24 | qpn);
	ck_assert_uint_eq(be16toh(wc), counter);
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr init;

	ck_assert_int_eq(ibv_query_qp(qp, &a, IBV_QP_STATE, &init), 0);
	return a.qp_state;
}

/* Async events waiting now (none is expected of an error CQE). */
static int async_events(void)
{
	struct ibv_async_event ev;
	int n = 0;

	while (!ibv_get_async_event(ctx, &ev)) {
		n++;
		ibv_ack_async_event(&ev);
	}
	return n;
}

static void expect_stats(int id, uint64_t matches, uint64_t injections)
{
	struct mlx5emu_fault_stats st;

	ck_assert_int_eq(mlx5emu_fault_stats(id, &st), 0);
	ck_assert_uint_eq(st.matches, matches);
	ck_assert_uint_eq(st.injections, injections);
}

/* ---- error CQEs ---- */

START_TEST(send_error_then_flush)
{
	struct ibv_wc wc[8];
	int id = add("cqe_error qp=0x%x nth=2 syndrome=REMOTE_ACCESS",
		     qpa->qp_num);

	post_recvs(qpb, 4, 100);
	post_sends(qpa, 4, 1);
	ck_assert_int_eq(poll_n(cqa, wc, 4, 2000), 4);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc[0].wr_id, 1);
	ck_assert_int_eq(wc[1].status, IBV_WC_REM_ACCESS_ERR);
	ck_assert_uint_eq(wc[1].vendor_err, 0x88);	/* the table's */
	ck_assert_uint_eq(wc[1].wr_id, 2);
	ck_assert_uint_eq(wc[1].qp_num, qpa->qp_num);
	for (int i = 2; i < 4; i++) {
		ck_assert_int_eq(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		ck_assert_uint_eq(wc[i].vendor_err, 0xf9);
		ck_assert_uint_eq(wc[i].wr_id, (uint64_t)i + 1);
	}
	/* Each SEND is one basic block: WQE 1 is the second. */
	expect_err_cqe(ring_cqe(cqa, 1), MLX5_CQE_REQ_ERR, 0x13, 0x88,
		       MLX5_OPCODE_SEND, qpa->qp_num, 1);
	expect_err_cqe(ring_cqe(cqa, 2), MLX5_CQE_REQ_ERR, 0x05, 0xf9,
		       MLX5_OPCODE_SEND, qpa->qp_num, 2);
	expect_err_cqe(ring_cqe(cqa, 3), MLX5_CQE_REQ_ERR, 0x05, 0xf9,
		       MLX5_OPCODE_SEND, qpa->qp_num, 3);
	ck_assert_int_eq(qp_state(qpa), IBV_QPS_ERR);
	/* The failed SEND never left: B received only the first. */
	ck_assert_int_eq(poll_n(cqb, wc, 4, 100), 1);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc[0].wr_id, 100);
	ck_assert_int_eq(qp_state(qpb), IBV_QPS_RTS);
	ck_assert_int_eq(async_events(), 0);	/* a CQE reports it */
	expect_stats(id, 2, 1);
}
END_TEST

START_TEST(send_error_any_syndrome)
{
	struct ibv_wc wc;
	int id = add("cqe_error wqe=SEND syndrome=0x22 vendor_syndrome=0x99");

	post_recvs(qpb, 1, 100);
	post_sends(qpa, 1, 7);
	ck_assert_int_eq(poll_n(cqa, &wc, 1, 2000), 1);
	ck_assert_int_eq(wc.status, IBV_WC_REM_ABORT_ERR);
	ck_assert_uint_eq(wc.vendor_err, 0x99);
	ck_assert_uint_eq(wc.wr_id, 7);
	expect_err_cqe(ring_cqe(cqa, 0), MLX5_CQE_REQ_ERR, 0x22, 0x99,
		       MLX5_OPCODE_SEND, qpa->qp_num, 0);
	ck_assert_int_eq(qp_state(qpa), IBV_QPS_ERR);
	expect_stats(id, 1, 1);
}
END_TEST

START_TEST(other_qp_or_opcode_untouched)
{
	struct ibv_wc wc[2];
	int id = add("cqe_error qp=0x%x syndrome=LOCAL_PROT", qpb->qp_num);
	int id2 = add("cqe_error wqe=RDMA_WRITE syndrome=LOCAL_PROT");

	post_recvs(qpb, 2, 100);
	post_sends(qpa, 2, 1);
	ck_assert_int_eq(poll_n(cqa, wc, 2, 2000), 2);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc[1].status, IBV_WC_SUCCESS);
	ck_assert_int_eq(qp_state(qpa), IBV_QPS_RTS);
	expect_stats(id, 0, 0);
	expect_stats(id2, 0, 0);
}
END_TEST

START_TEST(recv_error_then_flush)
{
	struct ibv_wc wc[8];
	int id = add("cqe_error queue=rq qp=0x%x nth=1 syndrome=LOCAL_PROT",
		     qpb->qp_num);

	post_recvs(qpb, 4, 100);
	post_sends(qpa, 2, 1);
	/* B: its receive WQE 0 in error, the other three flushed. */
	ck_assert_int_eq(poll_n(cqb, wc, 4, 2000), 4);
	ck_assert_int_eq(wc[0].status, IBV_WC_LOC_PROT_ERR);
	ck_assert_uint_eq(wc[0].vendor_err, 0x52);
	ck_assert_uint_eq(wc[0].wr_id, 100);
	expect_err_cqe(ring_cqe(cqb, 0), MLX5_CQE_RESP_ERR, 0x04, 0x52, 0,
		       qpb->qp_num, 0);
	for (int i = 1; i < 4; i++) {
		ck_assert_int_eq(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		ck_assert_uint_eq(wc[i].wr_id, 100 + (uint64_t)i);
		expect_err_cqe(ring_cqe(cqb, (uint32_t)i), MLX5_CQE_RESP_ERR,
			       0x05, 0xf9, 0, qpb->qp_num, (uint16_t)i);
	}
	ck_assert_int_eq(qp_state(qpb), IBV_QPS_ERR);
	/* A: the responder's NAK (remote operational error), then flush. */
	ck_assert_int_eq(poll_n(cqa, wc, 2, 2000), 2);
	ck_assert_int_eq(wc[0].status, IBV_WC_REM_OP_ERR);
	ck_assert_uint_eq(wc[0].vendor_err, 0x89);
	ck_assert_int_eq(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_int_eq(qp_state(qpa), IBV_QPS_ERR);
	ck_assert_int_eq(async_events(), 0);	/* CQEs report both */
	expect_stats(id, 1, 1);
}
END_TEST

/* ---- late completions, lost doorbells ---- */

START_TEST(delayed_completion)
{
	struct ibv_wc wc[2];
	uint64_t t0 = now_ms();
	int id = add("cqe_delay qp=0x%x nth=1 us=150000", qpa->qp_num);

	post_recvs(qpb, 2, 100);
	post_sends(qpa, 2, 1);
	/* B got both at once; A's first completion is late, and the second
	 * waits behind it. */
	ck_assert_int_eq(poll_n(cqb, wc, 2, 1000), 2);
	ck_assert_int_eq(poll_n(cqa, wc, 2, 60), 0);
	ck_assert_int_eq(poll_n(cqa, wc, 2, 3000), 2);
	ck_assert_uint_ge(now_ms() - t0, 150);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc[0].wr_id, 1);
	ck_assert_int_eq(wc[1].status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc[1].wr_id, 2);
	expect_stats(id, 2, 1);
}
END_TEST

START_TEST(lost_doorbell)
{
	struct ibv_wc wc[4];
	int id = add("doorbell_drop qp=0x%x nth=1", qpa->qp_num);

	post_recvs(qpb, 3, 100);
	post_sends(qpa, 2, 1);	/* its doorbell is lost */
	ck_assert_int_eq(poll_n(cqa, wc, 3, 100), 0);
	ck_assert_int_eq(poll_n(cqb, wc, 3, 10), 0);
	expect_stats(id, 1, 1);
	post_sends(qpa, 1, 3);	/* the next one runs all three */
	ck_assert_int_eq(poll_n(cqa, wc, 3, 2000), 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(wc[i].status, IBV_WC_SUCCESS);
		ck_assert_uint_eq(wc[i].wr_id, (uint64_t)i + 1);
	}
	ck_assert_int_eq(poll_n(cqb, wc, 3, 1000), 3);
	expect_stats(id, 2, 1);
}
END_TEST

/* In the error state too, the device flushes only what a doorbell told
 * it of. */
START_TEST(lost_doorbell_in_err)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[4];

	add("doorbell_drop qp=0x%x nth=1", qpa->qp_num);
	post_sends(qpa, 2, 1);
	ck_assert_int_eq(ibv_modify_qp(qpa, &a, IBV_QP_STATE), 0);
	ck_assert_int_eq(poll_n(cqa, wc, 3, 100), 0);
	post_sends(qpa, 1, 3);
	ck_assert_int_eq(poll_n(cqa, wc, 3, 2000), 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		ck_assert_uint_eq(wc[i].wr_id, (uint64_t)i + 1);
	}
}
END_TEST

/* ---- lost CQ arms ---- */

static uint32_t cq_num(struct ibv_cq *cq)
{
	struct mlx5dv_cq dv;
	struct mlx5dv_obj obj = { .cq = { .in = cq, .out = &dv } };

	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ), 0);
	return dv.cqn;
}

/* Whether the channel has a completion event within ms (taken, acked). */
static bool cq_event(struct ibv_comp_channel *ch, struct ibv_cq *cq, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	/* Without an engine thread the device moves in these calls. */
	while (mlx5emu_progress() > 0)
		;
	if (poll(&p, 1, ms) != 1)
		return false;
	ck_assert_int_eq(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), 0);
	ck_assert_ptr_eq(ev_cq, cq);
	ibv_ack_cq_events(cq, 1);
	return true;
}

/* A CQ with a completion channel (non-blocking) taking A's completions,
 * A connected to B (whose completions go to cqb). */
struct armed {
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qa, *qb;
};

static struct armed armed_up(void)
{
	struct armed a = { .ch = ibv_create_comp_channel(ctx) };

	ck_assert_ptr_nonnull(a.ch);
	ck_assert_int_eq(fcntl(a.ch->fd, F_SETFL, O_NONBLOCK), 0);
	a.cq = ibv_create_cq(ctx, 15, NULL, a.ch, 0);
	ck_assert_ptr_nonnull(a.cq);
	a.qa = make_qp(a.cq);
	a.qb = make_qp(cqb);
	to_rts(a.qa, a.qb->qp_num);
	to_rts(a.qb, a.qa->qp_num);
	return a;
}

static void armed_down(struct armed *a)
{
	ck_assert_int_eq(ibv_destroy_qp(a->qa), 0);
	ck_assert_int_eq(ibv_destroy_qp(a->qb), 0);
	ck_assert_int_eq(ibv_destroy_cq(a->cq), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(a->ch), 0);
}

/* The lost arm gives no event for the CQE after it; the same arm written
 * again (nothing polled: the very same doorbell word) does, at once, and
 * later arms are not touched. */
static void lost_cq_arm_run(void)
{
	struct armed a = armed_up();
	struct ibv_comp_channel *ch = a.ch;
	struct ibv_cq *cq = a.cq;
	struct ibv_qp *qa = a.qa, *qb = a.qb;
	struct ibv_wc wc[2];
	int id;

	id = add("doorbell_drop queue=cq_arm cqn=0x%x nth=1", cq_num(cq));

	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);	/* lost */
	expect_stats(id, 1, 1);
	post_recvs(qb, 2, 100);
	post_sends(qa, 1, 1);
	ck_assert_int_eq(poll_n(cqb, wc, 1, 2000), 1);
	ck_assert(!cq_event(ch, cq, 300));
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);	/* taken */
	ck_assert(cq_event(ch, cq, 2000));
	expect_stats(id, 2, 1);
	ck_assert_int_eq(poll_n(cq, wc, 2, 100), 1);
	ck_assert_uint_eq(wc[0].wr_id, 1);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);

	/* An arm after the event: the next CQE raises one. */
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	ck_assert(!cq_event(ch, cq, 50));
	post_sends(qa, 1, 2);
	ck_assert(cq_event(ch, cq, 2000));
	ck_assert_int_eq(poll_n(cq, wc, 2, 1000), 1);
	ck_assert_uint_eq(wc[0].wr_id, 2);
	expect_stats(id, 3, 1);

	armed_down(&a);
}

START_TEST(lost_cq_arm)
{
	lost_cq_arm_run();
}
END_TEST

/* The same without an engine thread, on the virtual clock. */
START_TEST(lost_cq_arm_deterministic)
{
	ut_clear_env();
	setenv("MLX5EMU_ENGINE_MODE", "deterministic", 1);
	open_all();
	lost_cq_arm_run();
	teardown();
}
END_TEST

/* The next arm after a lost one with a new word (the application polled
 * in between) is taken; a rule for another CQ touches none. */
START_TEST(lost_cq_arm_then_polled)
{
	struct armed a = armed_up();
	struct ibv_comp_channel *ch = a.ch;
	struct ibv_cq *cq = a.cq;
	struct ibv_qp *qa = a.qa, *qb = a.qb;
	struct ibv_wc wc[2];
	int id, other;

	other = add("doorbell_drop queue=cq_arm cqn=0x%x", cq_num(cqb));
	id = add("doorbell_drop queue=cq_arm every=2");

	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);	/* match 1: taken */
	post_recvs(qb, 3, 100);
	post_sends(qa, 1, 1);
	ck_assert(cq_event(ch, cq, 2000));
	ck_assert_int_eq(poll_n(cq, wc, 2, 100), 1);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);	/* match 2: lost */
	post_sends(qa, 1, 2);
	ck_assert_int_eq(poll_n(cqb, wc, 2, 2000), 2);
	ck_assert(!cq_event(ch, cq, 300));
	ck_assert_int_eq(poll_n(cq, wc, 2, 100), 1);	/* ci moves on */
	ck_assert_uint_eq(wc[0].wr_id, 2);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);	/* match 3: taken */
	post_sends(qa, 1, 3);
	ck_assert(cq_event(ch, cq, 2000));
	ck_assert_int_eq(poll_n(cq, wc, 2, 1000), 1);
	ck_assert_uint_eq(wc[0].wr_id, 3);
	expect_stats(id, 3, 1);
	expect_stats(other, 0, 0);

	armed_down(&a);
}
END_TEST

/* ---- a seeded probability: the same sequence every run ---- */

/* Rounds of one SEND on fresh QPs: 'E' failed, '.' not. */
static void prob_run(char *seq, int rounds)
{
	int id = mlx5emu_fault_add("cqe_error prob=0.5 seed=11 "
				   "syndrome=LOCAL_PROT");
	uint64_t errors = 0;

	ck_assert_int_gt(id, 0);
	for (int i = 0; i < rounds; i++) {
		struct ibv_wc wc;

		post_recvs(qpb, 1, 100);
		post_sends(qpa, 1, 1);
		ck_assert_int_eq(poll_n(cqa, &wc, 1, 2000), 1);
		seq[i] = wc.status == IBV_WC_SUCCESS ? '.' : 'E';
		if (wc.status != IBV_WC_SUCCESS)
			ck_assert_int_eq(wc.status, IBV_WC_LOC_PROT_ERR);
		while (ibv_poll_cq(cqb, 1, &wc) > 0)
			;
		qps_down();
		qps_up();
	}
	seq[rounds] = '\0';
	for (int i = 0; i < rounds; i++)
		errors += seq[i] == 'E';
	expect_stats(id, (uint64_t)rounds, errors);
	mlx5emu_fault_clear();
}

START_TEST(seeded_prob_reproduces)
{
	char a[17], b[17];

	prob_run(a, 16);
	prob_run(b, 16);
	ck_assert_str_eq(a, b);
	ck_assert_ptr_nonnull(strchr(a, 'E'));
	ck_assert_ptr_nonnull(strchr(a, '.'));
}
END_TEST

/* ---- from the environment, as for an unmodified program ---- */

START_TEST(rules_from_environment)
{
	struct ibv_wc wc[2];

	ut_clear_env();
	setenv("MLX5EMU_FAULTS", "cqe_error wqe=SEND nth=1 "
	       "syndrome=TRANSPORT_RETRY_EXC", 1);
	open_all();
	post_recvs(qpb, 2, 100);
	post_sends(qpa, 2, 1);
	ck_assert_int_eq(poll_n(cqa, wc, 2, 2000), 2);
	ck_assert_int_eq(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	ck_assert_uint_eq(wc[0].vendor_err, 0x81);
	expect_err_cqe(ring_cqe(cqa, 0), MLX5_CQE_REQ_ERR, 0x15, 0x81,
		       MLX5_OPCODE_SEND, qpa->qp_num, 0);
	ck_assert_int_eq(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_int_eq(qp_state(qpa), IBV_QPS_ERR);
	ck_assert_int_eq(mlx5emu_fault_list(NULL, 0), 1);
	teardown();
}
END_TEST

/* ---- on hardware: the provider applies the rules it can ---- */

/*
 * The hw backend over the test double (whose device applies no rule of
 * ours): the provider turns the completion a cqe_error rule picks into
 * the rule's error CQE and stops the QP with a command.  What the device
 * did stays done: the failed SEND reached B, and WQEs posted with it may
 * have run; those posted after the error flush.
 */
START_TEST(hw_send_error_then_flush)
{
	struct ibv_wc wc[8];
	int id = add("cqe_error qp=0x%x nth=2 syndrome=REMOTE_ACCESS",
		     qpa->qp_num);

	post_recvs(qpb, 4, 100);
	post_sends(qpa, 2, 1);
	ck_assert_int_eq(poll_n(cqa, wc, 2, 2000), 2);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc[0].wr_id, 1);
	ck_assert_int_eq(wc[1].status, IBV_WC_REM_ACCESS_ERR);
	ck_assert_uint_eq(wc[1].vendor_err, 0x88);
	ck_assert_uint_eq(wc[1].wr_id, 2);
	expect_err_cqe(ring_cqe(cqa, 1), MLX5_CQE_REQ_ERR, 0x13, 0x88,
		       MLX5_OPCODE_SEND, qpa->qp_num, 1);
	ck_assert_int_eq(qp_state(qpa), IBV_QPS_ERR);
	/* Posted after the error: flushed by the device. */
	post_sends(qpa, 2, 3);
	ck_assert_int_eq(poll_n(cqa, wc, 2, 2000), 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		ck_assert_uint_eq(wc[i].wr_id, 3 + (uint64_t)i);
	}
	ck_assert_int_eq(poll_n(cqb, wc, 4, 200), 2);
	ck_assert_int_eq(qp_state(qpb), IBV_QPS_RTS);
	expect_stats(id, 2, 1);
}
END_TEST

START_TEST(hw_recv_error_then_flush)
{
	struct ibv_wc wc[8];
	int id = add("cqe_error queue=rq qp=0x%x nth=1 syndrome=LOCAL_PROT",
		     qpb->qp_num);

	post_recvs(qpb, 4, 100);
	post_sends(qpa, 1, 1);
	ck_assert_int_eq(poll_n(cqb, wc, 1, 2000), 1);
	ck_assert_int_eq(wc[0].status, IBV_WC_LOC_PROT_ERR);
	ck_assert_uint_eq(wc[0].vendor_err, 0x52);
	ck_assert_uint_eq(wc[0].wr_id, 100);
	expect_err_cqe(ring_cqe(cqb, 0), MLX5_CQE_RESP_ERR, 0x04, 0x52, 0,
		       qpb->qp_num, 0);
	ck_assert_int_eq(qp_state(qpb), IBV_QPS_ERR);
	/* Its other receives flush. */
	ck_assert_int_eq(poll_n(cqb, wc, 3, 2000), 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		ck_assert_uint_eq(wc[i].wr_id, 101 + (uint64_t)i);
	}
	expect_stats(id, 1, 1);
}
END_TEST

/* Rules the device would have to apply (a late CQE, a lost doorbell)
 * see nothing: on hardware they neither count nor act. */
START_TEST(hw_device_rules_unseen)
{
	struct ibv_wc wc[2];
	int delay = add("cqe_delay qp=0x%x us=1", qpa->qp_num);
	int drop = add("doorbell_drop qp=0x%x", qpa->qp_num);

	post_recvs(qpb, 2, 100);
	post_sends(qpa, 2, 1);
	ck_assert_int_eq(poll_n(cqa, wc, 2, 2000), 2);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc[1].status, IBV_WC_SUCCESS);
	expect_stats(delay, 0, 0);
	expect_stats(drop, 0, 0);
}
END_TEST

static bool on_hw(void)
{
	const char *b = getenv("MLX5EMU_BACKEND");

	return b && !strcmp(b, "hw");
}

/* setup() for the hw backend: the backend's settings stay. */
static void setup_hw(void)
{
	char *be = strdup(getenv("MLX5EMU_BACKEND"));
	const char *dir = getenv("MLX5EMU_HW_LIBDIR");
	char *d = dir ? strdup(dir) : NULL;

	ut_clear_env();
	setenv("MLX5EMU_BACKEND", be, 1);
	if (d)
		setenv("MLX5EMU_HW_LIBDIR", d, 1);
	free(be);
	free(d);
	open_all();
}

static Suite *suite_hw(void)
{
	Suite *s = suite_create("dpfault_hw");
	TCase *t = tcase_create("provider");

	tcase_add_checked_fixture(t, setup_hw, teardown);
	tcase_add_test(t, hw_send_error_then_flush);
	tcase_add_test(t, hw_recv_error_then_flush);
	tcase_add_test(t, hw_device_rules_unseen);
	suite_add_tcase(s, t);
	return s;
}

static Suite *suite(void)
{
	Suite *s = suite_create("dpfault");
	TCase *t = tcase_create("rules");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, send_error_then_flush);
	tcase_add_test(t, send_error_any_syndrome);
	tcase_add_test(t, other_qp_or_opcode_untouched);
	tcase_add_test(t, recv_error_then_flush);
	tcase_add_test(t, delayed_completion);
	tcase_add_test(t, lost_doorbell);
	tcase_add_test(t, lost_doorbell_in_err);
	tcase_add_test(t, lost_cq_arm);
	tcase_add_test(t, lost_cq_arm_then_polled);
	tcase_add_test(t, seeded_prob_reproduces);
	suite_add_tcase(s, t);
	t = tcase_create("environment");
	tcase_add_test(t, rules_from_environment);
	tcase_add_test(t, lost_cq_arm_deterministic);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(on_hw() ? suite_hw() : suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
