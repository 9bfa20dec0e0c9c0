/* SPDX-License-Identifier: MIT */
/*
 * Deterministic mode (engine.mode=deterministic: no device thread), over
 * the drop-in libraries: the provider's post and poll calls move the
 * device by themselves.  A receive posted to a QP in ERR completes with a
 * flush error at a later ibv_poll_cq (or ibv_start_poll) with no
 * mlx5emu_progress() call; and nothing completes while nobody calls.  A
 * SEND posted with ibv_post_send between two connected RC QPs has landed
 * in the receive buffer when ibv_post_send returns, before any poll.  A
 * receive written only to memory completes, and its completion event
 * comes, inside ibv_get_cq_event (O_NONBLOCK: EAGAIN without it).
 */
#include <endian.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "verbs_test.h"
#include "ut_dropin.h"
#include "ut_env.h"

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq_ex *cq;
static struct ibv_qp *qp;
static char buf[64];
static struct ibv_mr *mr;

static void setup(void)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 16 };
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

	ut_clear_env();
	setenv("MLX5EMU_ENGINE_MODE", "deterministic", 1);
	ctx = vt_open(false);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq_ex(ctx, &ca);
	ck_assert(pd && cq);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(cq);
	qp = ibv_create_qp(pd, &qa);
	ck_assert_ptr_nonnull(qp);
	ck_assert_int_eq(ibv_modify_qp(qp, &init, IBV_QP_STATE |
				       IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS), 0);
	ck_assert_int_eq(ibv_modify_qp(qp, &attr, IBV_QP_STATE), 0);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

static void post_recv(uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)buf, sizeof(buf), mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
}

/* The flush CQE comes from the post's and the polls' own progress. */
START_TEST(post_and_poll_move_the_device)
{
	struct ibv_wc wc;
	int n = 0;

	post_recv(7);
	for (int i = 0; i < 4 && !n; i++)
		n = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(wc.wr_id, 7);
	ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
	/* Nothing more: no call, no change. */
	usleep(20000);
	ck_assert_int_eq(ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc), 0);
}
END_TEST

START_TEST(start_poll_moves_the_device)
{
	struct ibv_poll_cq_attr pa = { 0 };
	int ret = ENOENT;

	post_recv(9);
	for (int i = 0; i < 4 && ret == ENOENT; i++)
		ret = ibv_start_poll(cq, &pa);
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(cq->wr_id, 9);
	ck_assert_int_eq(cq->status, IBV_WC_WR_FLUSH_ERR);
	ibv_end_poll(cq);
}
END_TEST

/* The SEND's own post moves the device: requester, responder and the
 * receive buffer, with no poll and no mlx5emu_progress() in between. */
START_TEST(post_send_moves_the_device)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.send_cq = ibv_cq_ex_to_cq(cq), .recv_cq = ibv_cq_ex_to_cq(cq),
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	static char msg[32] = "posted sends move the device";
	struct ibv_sge rsge = { (uintptr_t)buf, sizeof(msg), mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &rsge,
				   .num_sge = 1 }, *rbad;
	struct ibv_sge ssge = { (uintptr_t)(buf + 32), sizeof(msg), mr->lkey };
	struct ibv_send_wr swr = { .wr_id = 2, .sg_list = &ssge, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_qp *a, *b;
	union ibv_gid gid;
	struct ibv_wc wc[2];
	int n = 0;

	a = ibv_create_qp(pd, &qa);
	b = ibv_create_qp(pd, &qa);
	ck_assert(a && b);
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 3, &gid), 0);
	ck_assert_int_eq(ut_rc_connect(a, b->qp_num, &gid, 12), 0);
	ck_assert_int_eq(ut_rc_connect(b, a->qp_num, &gid, 12), 0);
	memset(buf, 0, sizeof(buf));
	memcpy(buf + 32, msg, sizeof(msg));
	ck_assert_int_eq(ibv_post_recv(b, &rwr, &rbad), 0);
	ck_assert_int_eq(ibv_post_send(a, &swr, &sbad), 0);
	ck_assert_mem_eq(buf, msg, sizeof(msg));
	for (int i = 0; i < 4 && n < 2; i++)
		n += ibv_poll_cq(ibv_cq_ex_to_cq(cq), 2 - n, wc + n);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc[1].status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc[0].wr_id + wc[1].wr_id, 3);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
}
END_TEST

/* The get-event call moves the device: a receive WQE and its doorbell
 * record written to memory only, in a QP in ERR, on a CQ armed on a
 * non-blocking channel; the flush CQE and the completion event both come
 * of ibv_get_cq_event's own progress. */
START_TEST(get_cq_event_moves_the_device)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct mlx5dv_qp dv;
	struct mlx5dv_obj obj = { .qp = { .out = &dv } };
	struct mlx5_wqe_data_seg *seg;
	struct ibv_cq *ecq, *got;
	struct ibv_qp *eqp;
	struct ibv_wc wc;
	void *cq_ctx;

	ck_assert_ptr_nonnull(ch);
	ecq = ibv_create_cq(ctx, 4, NULL, ch, 0);
	ck_assert_ptr_nonnull(ecq);
	qa.send_cq = qa.recv_cq = ecq;
	eqp = ibv_create_qp(pd, &qa);
	ck_assert_ptr_nonnull(eqp);
	ck_assert_int_eq(ibv_modify_qp(eqp, &init, IBV_QP_STATE |
				       IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS), 0);
	ck_assert_int_eq(ibv_modify_qp(eqp, &err, IBV_QP_STATE), 0);
	ck_assert_int_eq(ibv_req_notify_cq(ecq, 0), 0);
	ck_assert_int_eq(fcntl(ch->fd, F_SETFL,
			       fcntl(ch->fd, F_GETFL) | O_NONBLOCK), 0);
	obj.qp.in = eqp;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	seg = dv.rq.buf;
	seg->byte_count = htobe32(sizeof(buf));
	seg->lkey = htobe32(mr->lkey);
	seg->addr = htobe64((uintptr_t)buf);
	__atomic_store_n(&dv.dbrec[0], htobe32(1), __ATOMIC_RELEASE);
	ck_assert_int_eq(ibv_get_cq_event(ch, &got, &cq_ctx), 0);
	ck_assert_ptr_eq(got, ecq);
	ibv_ack_cq_events(ecq, 1);
	ck_assert_int_eq(ibv_poll_cq(ecq, 1, &wc), 1);
	ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_int_eq(ibv_destroy_qp(eqp), 0);
	ck_assert_int_eq(ibv_destroy_cq(ecq), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("verbs_progress");
	TCase *tc = tcase_create("deterministic");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, post_and_poll_move_the_device);
	tcase_add_test(tc, start_poll_moves_the_device);
	tcase_add_test(tc, post_send_moves_the_device);
	tcase_add_test(tc, get_cq_event_moves_the_device);
	suite_add_tcase(s, tc);
	return vt_run(s);
}
