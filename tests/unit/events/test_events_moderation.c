/* SPDX-License-Identifier: MIT */
/*
 * CQ moderation through ibv_modify_cq, as an application sees it: the
 * MODIFY_CQ it issues (read back with QUERY_CQ), the errno of each bad
 * request (the CQ left as it was), the capability reported by
 * ibv_query_device_ex, and what the device does with it: an armed CQ's
 * event waits for cq_count CQEs or cq_period microseconds, whichever is
 * first, while every CQE is pollable at once.
 */
#include <errno.h>
#include <stdlib.h>

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

/* qa (on cqa, armed through ch) and qb connected, both RTS. */
static void setup(void)
{
	ctx = ut_open(true);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	ch = ibv_create_comp_channel(ctx);
	ck_assert_ptr_nonnull(ch);
	cqa = ibv_create_cq(ctx, 64, NULL, ch, 0);
	cqb = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cqa);
	ck_assert_ptr_nonnull(cqb);
	mra = ibv_reg_mr(pd, bufa, sizeof(bufa), IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE);
	mrb = ibv_reg_mr(pd, bufb, sizeof(bufb), IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(mra);
	ck_assert_ptr_nonnull(mrb);
	evt_qp_create(&qa, pd, cqa, NULL);
	evt_qp_create(&qb, pd, cqb, NULL);
	evt_qp_connect(&qa, qb.qp->qp_num, false);
	evt_qp_connect(&qb, qa.qp->qp_num, false);
}

/* qa writes 8 bytes into qb's buffer: a CQE on cqa. */
static void write_ab(void)
{
	evt_post(&qa, MLX5_OPCODE_RDMA_WRITE, mra, 0, 8,
		 (uintptr_t)mrb->addr, mrb->rkey);
}

static void take_event(void)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	ck_assert_int_eq(ibv_get_cq_event(ch, &cq, &cq_ctx), 0);
	ck_assert_ptr_eq(cq, cqa);
	ibv_ack_cq_events(cq, 1);
}

/* QUERY_CQ of @cq: its context's cq_period and cq_max_count. */
static void query_moderation(struct ibv_cq *cq, uint32_t *period,
			     uint32_t *count)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_cq_out)] = { 0 };
	struct mlx5dv_obj obj = { 0 };
	struct mlx5dv_cq dv;
	void *cqc = PRM_ADDR_OF(query_cq_out, out, cq_context);

	obj.cq.in = cq;
	obj.cq.out = &dv;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ), 0);
	PRM_SET(query_cq_in, in, opcode, MLX5_CMD_OP_QUERY_CQ);
	PRM_SET(query_cq_in, in, cqn, dv.cqn);
	ck_assert_int_eq(mlx5dv_devx_cq_query(cq, in, sizeof(in), out,
					      sizeof(out)), 0);
	*period = PRM_GET(cqc, cqc, cq_period);
	*count = PRM_GET(cqc, cqc, cq_max_count);
}

static int modify(struct ibv_cq *cq, uint32_t mask, uint16_t count,
		  uint16_t period)
{
	struct ibv_modify_cq_attr attr = {
		.attr_mask = mask,
		.moderate = { .cq_count = count, .cq_period = period },
	};

	return ibv_modify_cq(cq, &attr);
}

START_TEST(command_and_caps)
{
	struct ibv_device_attr_ex a;
	uint32_t period, count;

	/* mlx5_ib's limits: cqc.cq_max_count (16 bits), cq_period (12). */
	ck_assert_int_eq(ibv_query_device_ex(ctx, NULL, &a), 0);
	ck_assert_uint_eq(a.cq_mod_caps.max_cq_count, 0xffff);
	ck_assert_uint_eq(a.cq_mod_caps.max_cq_period, 0xfff);

	query_moderation(cqa, &period, &count);
	ck_assert_uint_eq(period, 0);
	ck_assert_uint_eq(count, 0);
	ck_assert_int_eq(modify(cqa, IBV_CQ_ATTR_MODERATE, 0xffff, 0xfff), 0);
	query_moderation(cqa, &period, &count);
	ck_assert_uint_eq(period, 0xfff);
	ck_assert_uint_eq(count, 0xffff);
	ck_assert_int_eq(modify(cqa, IBV_CQ_ATTR_MODERATE, 7, 300), 0);
	query_moderation(cqa, &period, &count);
	ck_assert_uint_eq(period, 300);
	ck_assert_uint_eq(count, 7);
	/* The other CQ is not touched. */
	query_moderation(cqb, &period, &count);
	ck_assert_uint_eq(period, 0);
	ck_assert_uint_eq(count, 0);
}
END_TEST

START_TEST(bad_requests_change_nothing)
{
	uint32_t period, count;

	ck_assert_int_eq(modify(cqa, IBV_CQ_ATTR_MODERATE, 5, 10), 0);
	/* libibverbs: a bit from IBV_CQ_ATTR_RESERVED up. */
	ck_assert_int_eq(modify(cqa, IBV_CQ_ATTR_RESERVED, 1, 1), EINVAL);
	ck_assert_int_eq(modify(cqa, IBV_CQ_ATTR_MODERATE | IBV_CQ_ATTR_RESERVED,
				1, 1), EINVAL);
	/* uverbs: nothing to modify. */
	ck_assert_int_eq(modify(cqa, 0, 1, 1), EINVAL);
	/* mlx5_ib: a period past MLX5_MAX_CQ_PERIOD. */
	ck_assert_int_eq(modify(cqa, IBV_CQ_ATTR_MODERATE, 1, 0x1000), EINVAL);
	ck_assert_int_eq(modify(cqa, IBV_CQ_ATTR_MODERATE, 1, 0xffff), EINVAL);
	query_moderation(cqa, &period, &count);
	ck_assert_uint_eq(period, 10);
	ck_assert_uint_eq(count, 5);
}
END_TEST

/* Count only: no event for the first two CQEs, which poll at once. */
START_TEST(event_after_count)
{
	enum ibv_wc_status st;

	ck_assert_int_eq(modify(cqa, IBV_CQ_ATTR_MODERATE, 3, 0), 0);
	ck_assert_int_eq(ibv_req_notify_cq(cqa, 0), 0);
	write_ab();
	evt_poll(cqa, 1, &st);
	ck_assert_int_eq(st, IBV_WC_SUCCESS);
	write_ab();
	evt_poll(cqa, 1, &st);
	ck_assert_int_eq(st, IBV_WC_SUCCESS);
	ck_assert(!evt_readable(ch->fd, 100));
	write_ab();
	ck_assert(evt_readable(ch->fd, 2000));
	take_event();
	evt_poll(cqa, 1, NULL);

	/* The count starts again after the event. */
	ck_assert_int_eq(ibv_req_notify_cq(cqa, 0), 0);
	write_ab();
	evt_poll(cqa, 1, NULL);
	ck_assert(!evt_readable(ch->fd, 100));

	/* Moderation off again: the next CQE raises the event. */
	ck_assert_int_eq(modify(cqa, IBV_CQ_ATTR_MODERATE, 0, 0), 0);
	write_ab();
	ck_assert(evt_readable(ch->fd, 2000));
	take_event();
	evt_poll(cqa, 1, NULL);
}
END_TEST

/* A count never reached: the period raises the event. */
START_TEST(event_after_period)
{
	ck_assert_int_eq(modify(cqa, IBV_CQ_ATTR_MODERATE, 1000, 0xfff), 0);
	ck_assert_int_eq(ibv_req_notify_cq(cqa, 0), 0);
	write_ab();
	evt_poll(cqa, 1, NULL);
	ck_assert(evt_readable(ch->fd, 2000));
	take_event();
}
END_TEST

/* Without moderation, a count never reached holds the event back. */
START_TEST(count_without_period_waits)
{
	ck_assert_int_eq(modify(cqa, IBV_CQ_ATTR_MODERATE, 1000, 0), 0);
	ck_assert_int_eq(ibv_req_notify_cq(cqa, 0), 0);
	write_ab();
	evt_poll(cqa, 1, NULL);
	ck_assert(!evt_readable(ch->fd, 200));
}
END_TEST

/* A device configured without cq_moderation: none reported, EOPNOTSUPP. */
START_TEST(not_advertised)
{
	struct ibv_device_attr_ex a;
	struct ibv_context *c;
	struct ibv_cq *cq;

	setenv("MLX5EMU_CAPS", "cq_moderation=0", 1);
	c = ut_open(false);
	ck_assert_int_eq(ibv_query_device_ex(c, NULL, &a), 0);
	ck_assert_uint_eq(a.cq_mod_caps.max_cq_count, 0);
	ck_assert_uint_eq(a.cq_mod_caps.max_cq_period, 0);
	cq = ibv_create_cq(c, 4, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(modify(cq, IBV_CQ_ATTR_MODERATE, 1, 1), EOPNOTSUPP);
	/* libibverbs' mask check comes first. */
	ck_assert_int_eq(modify(cq, IBV_CQ_ATTR_RESERVED, 1, 1), EINVAL);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_close_device(c), 0);
}
END_TEST

static Suite *moderation_suite(void)
{
	Suite *s = suite_create("events_moderation");
	TCase *tc = tcase_create("moderation");
	TCase *bare = tcase_create("bare");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, command_and_caps);
	tcase_add_test(tc, bad_requests_change_nothing);
	tcase_add_test(tc, event_after_count);
	tcase_add_test(tc, event_after_period);
	tcase_add_test(tc, count_without_period_waits);
	suite_add_tcase(s, tc);
	tcase_add_test(bare, not_advertised);
	suite_add_tcase(s, bare);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(moderation_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
