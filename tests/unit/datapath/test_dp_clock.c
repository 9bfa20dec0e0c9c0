/* SPDX-License-Identifier: MIT */
/*
 * The device clock through the drop-in libraries, against independent
 * clocks: ibv_query_device_ex's hca_core_clock and timestamp mask,
 * ibv_query_rt_values_ex (the counter at 1 GHz is CLOCK_MONOTONIC's
 * nanoseconds), mlx5dv_get_clock_info and mlx5dv_ts_to_ns (CLOCK_REALTIME
 * within a bound), and CQE timestamps of RC traffic on extended CQs:
 * free running (between two counter reads taken around the completion)
 * and real time (seconds and nanoseconds at their literal bit positions,
 * between two CLOCK_REALTIME reads).  With MLX5EMU_TEST_NO_CLOCK set the
 * device is configured without a frequency (MLX5EMU_CAPS) and every entry
 * answers as libmlx5 44 does without a clock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mlx5dv.h>

#include "dp_test.h"

#define BUF 4096
/* How far the clock info conversion may stray from CLOCK_REALTIME. */
#define SLACK_NS UINT64_C(2000000)

/* lo <= v <= hi. */
static void ck_between(uint64_t v, uint64_t lo, uint64_t hi)
{
	ck_assert_msg(lo <= v && v <= hi, "%llu not in [%llu, %llu]",
		      (unsigned long long)v, (unsigned long long)lo,
		      (unsigned long long)hi);
}

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq_ex *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	struct ibv_qp *qp;
};

static struct side s1, s2;

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct ibv_context *open_dev(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx;

	ck_assert_ptr_nonnull(list);
	ctx = ibv_open_device(list[0]);
	ck_assert_ptr_nonnull(ctx);
	ibv_free_device_list(list);
	return ctx;
}

static uint64_t raw_clock(struct ibv_context *ctx)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };

	ck_assert_int_eq(ibv_query_rt_values_ex(ctx, &v), 0);
	ck_assert_uint_eq(v.comp_mask, IBV_VALUES_MASK_RAW_CLOCK);
	ck_assert_int_eq(v.raw_clock.tv_sec, 0);
	return (uint64_t)v.raw_clock.tv_nsec;
}

START_TEST(clock_attrs)
{
	struct ibv_context *ctx = open_dev();
	struct ibv_device_attr_ex a;
	struct mlx5dv_context dv = {
		.comp_mask = MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE |
			     MLX5DV_CONTEXT_MASK_HCA_CORE_CLOCK,
	};

	ck_assert_int_eq(ibv_query_device_ex(ctx, NULL, &a), 0);
	ck_assert_uint_eq(a.hca_core_clock, 1000000);	/* kHz */
	ck_assert_uint_eq(a.completion_timestamp_mask, UINT64_C(0x7fffffffffffffff));
	ck_assert_int_eq(mlx5dv_query_device(ctx, &dv), 0);
	ck_assert(dv.flags & MLX5DV_CONTEXT_FLAGS_REAL_TIME_TS);
	/* overflow_period in jiffies of HZ 250: min((2^63 - 1) / 2^23,
	 * (2^41 - 1) / 3) = 733007751850 cycles = ns, / 4000000. */
	ck_assert_uint_eq(dv.comp_mask, MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE);
	ck_assert_uint_eq(dv.max_clock_info_update_nsec, 183251);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(clock_rt_values)
{
	struct ibv_context *ctx = open_dev();
	struct ibv_values_ex v = { .comp_mask = 2 };
	uint64_t t0, c, t1;

	/* 1 GHz from CLOCK_MONOTONIC: one cycle a nanosecond. */
	t0 = now_ns(CLOCK_MONOTONIC);
	c = raw_clock(ctx);
	t1 = now_ns(CLOCK_MONOTONIC);
	ck_between(c, t0, t1);
	ck_assert_int_eq(ibv_query_rt_values_ex(ctx, &v), EINVAL);
	v.comp_mask = 0;
	ck_assert_int_eq(ibv_query_rt_values_ex(ctx, &v), 0);
	ck_assert_uint_eq(v.comp_mask, 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

START_TEST(clock_info_convert)
{
	struct ibv_context *ctx = open_dev();
	struct mlx5dv_clock_info ci;
	uint64_t t0, ns, t1, c;

	ck_assert_int_eq(mlx5dv_get_clock_info(ctx, &ci), 0);
	ck_assert_uint_eq(ci.mult, 1u << 23);	/* clocksource_khz2mult */
	ck_assert_uint_eq(ci.shift, 23);
	ck_assert_uint_eq(ci.mask, (UINT64_C(1) << 41) - 1);
	ck_assert_uint_le(ci.last_cycles, ci.mask);
	t0 = now_ns(CLOCK_REALTIME);
	c = raw_clock(ctx);
	t1 = now_ns(CLOCK_REALTIME);
	/* By hand: nsec + (cycles - last) * mult >> shift (frac < 2^23). */
	ns = ci.nsec + ((((c - ci.last_cycles) & ci.mask) * ci.mult + ci.frac) >>
			ci.shift);
	ck_assert_uint_ge(ns + SLACK_NS, t0);
	ck_assert_uint_le(ns, t1 + SLACK_NS);
	ck_assert_uint_eq(mlx5dv_ts_to_ns(&ci, c), ns);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

static void side_open(struct side *s, uint64_t wc_flags)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 15, .wc_flags = IBV_WC_STANDARD_FLAGS | wc_flags,
	};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	memset(s, 0, sizeof(*s));
	s->ctx = open_dev();
	s->pd = ibv_alloc_pd(s->ctx);
	ck_assert_ptr_nonnull(s->pd);
	s->cq = ibv_create_cq_ex(s->ctx, &ca);
	ck_assert_msg(s->cq, "create_cq_ex: %s", strerror(errno));
	s->buf = vt_alloc(BUF);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(s->mr);
	ck_assert_int_eq(ibv_query_gid(s->ctx, 1, 1, &s->gid), 0);
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(s->cq);
	s->qp = ibv_create_qp(s->pd, &qa);
	ck_assert_msg(s->qp, "create_qp: %s", strerror(errno));
}

static void side_close(struct side *s)
{
	ck_assert_int_eq(ibv_destroy_qp(s->qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(s->mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(s->cq)), 0);
	ck_assert_int_eq(ibv_dealloc_pd(s->pd), 0);
	ck_assert_int_eq(ibv_close_device(s->ctx), 0);
	free(s->buf);
}

/* The firmware's ts_format of @qp (QUERY_QP). */
static unsigned int qp_ts_format(struct ibv_qp *qp)
{
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)] = { 0 };

	ck_assert_int_eq(qt_devx_query_qp(qp, out), 0);
	return PRM_GET(query_qp_out, out, qpc.ts_format);
}

/* One SEND from s1 to s2; the stamps of the send and receive CQEs. */
static void send_one(uint64_t *sts, uint64_t *rts, uint64_t *rwall)
{
	struct ibv_sge rs = { (uintptr_t)s2.buf, 64, s2.mr->lkey };
	struct ibv_sge ss = { (uintptr_t)s1.buf, 64, s1.mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &rs, .num_sge = 1 }, *brw;
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &ss, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *bsw;
	struct ibv_poll_cq_attr pa = { 0 };
	struct side *sd[2] = { &s1, &s2 };
	uint64_t *out[2] = { sts, rts };

	ck_assert_int_eq(ibv_post_recv(s2.qp, &rwr, &brw), 0);
	ck_assert_int_eq(ibv_post_send(s1.qp, &swr, &bsw), 0);
	for (int i = 0; i < 2; i++) {
		uint64_t t0 = now_ns(CLOCK_MONOTONIC);
		int ret;

		while ((ret = ibv_start_poll(sd[i]->cq, &pa)) == ENOENT)
			ck_assert_msg(now_ns(CLOCK_MONOTONIC) - t0 < 5000000000u,
				      "no completion");
		ck_assert_int_eq(ret, 0);
		ck_assert_int_eq(sd[i]->cq->status, IBV_WC_SUCCESS);
		if (sd[i]->cq->read_completion_ts)
			*out[i] = ibv_wc_read_completion_ts(sd[i]->cq);
		if (i == 1 && rwall)
			*rwall = ibv_wc_read_completion_wallclock_ns(sd[i]->cq);
		ibv_end_poll(sd[i]->cq);
	}
}

static void connect_pair(uint64_t wc_flags)
{
	side_open(&s1, wc_flags);
	side_open(&s2, wc_flags);
	qt_rc_connect(s1.qp, s2.qp->qp_num, &s2.gid, 1, 0, 0x100, 0x100);
	qt_rc_connect(s2.qp, s1.qp->qp_num, &s1.gid, 1, 0, 0x100, 0x100);
}

/* Free running: the raw stamps lie between two counter reads around the
 * completion; their wallclock is the clock info's conversion. */
START_TEST(cqe_free_running)
{
	uint64_t c0, c1, sts = 0, rts = 0, rwall = 0;
	struct mlx5dv_clock_info ci;

	connect_pair(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
		     IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	ck_assert_uint_eq(qp_ts_format(s1.qp), 0);	/* FREE_RUNNING */
	c0 = raw_clock(s1.ctx);
	send_one(&sts, &rts, &rwall);
	c1 = raw_clock(s1.ctx);
	ck_between(rts, c0, c1);
	ck_between(sts, c0, c1);
	/* The receive completes before the ACK completes the send. */
	ck_assert_uint_le(rts, sts);
	ck_assert_int_eq(mlx5dv_get_clock_info(s2.ctx, &ci), 0);
	ck_assert_uint_eq(rwall, mlx5dv_ts_to_ns(&ci, rts));
	side_close(&s1);
	side_close(&s2);
}
END_TEST

/* Real time (wallclock only, the device offering it): seconds in bits
 * 63..32, nanoseconds in 31..0, between two CLOCK_REALTIME reads; libmlx5
 * hands the raw word out as the wallclock. */
START_TEST(cqe_real_time)
{
	uint64_t t0, t1, rwall = 0, ns;
	uint32_t sec, nsec;

	connect_pair(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	ck_assert_ptr_null(s1.cq->read_completion_ts);
	ck_assert_uint_eq(qp_ts_format(s1.qp), 2);	/* REAL_TIME */
	t0 = now_ns(CLOCK_REALTIME);
	send_one(NULL, NULL, &rwall);
	t1 = now_ns(CLOCK_REALTIME);
	sec = (uint32_t)(rwall >> 32);
	nsec = (uint32_t)(rwall & 0xffffffffu);
	ck_assert_uint_lt(nsec, 1000000000u);
	ns = (uint64_t)sec * 1000000000u + nsec;
	ck_assert_uint_ge(ns, t0);
	ck_assert_uint_le(ns, t1);
	side_close(&s1);
	side_close(&s2);
}
END_TEST

/* A device with no frequency (MLX5EMU_CAPS=device_frequency_khz=0). */
START_TEST(no_clock)
{
	struct ibv_context *ctx = open_dev();
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_cq_init_attr_ex ca = { .cqe = 4 };
	struct mlx5dv_context dv = {
		.comp_mask = MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE,
	};
	struct ibv_device_attr_ex a;
	struct mlx5dv_clock_info ci;

	ck_assert_int_eq(ibv_query_device_ex(ctx, NULL, &a), 0);
	ck_assert_uint_eq(a.hca_core_clock, 0);
	ck_assert_int_eq(ibv_query_rt_values_ex(ctx, &v), EOPNOTSUPP);
	ck_assert_uint_eq(v.comp_mask, 0);
	/* _mlx5dv_get_clock_info without a page. */
	ck_assert_int_eq(mlx5dv_get_clock_info(ctx, &ci), EINVAL);
	ck_assert_int_eq(mlx5dv_query_device(ctx, &dv), 0);
	ck_assert_uint_eq(dv.comp_mask, 0);
	ca.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &ca));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	/* Real time stamps need no clock info: still offered. */
	ca.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
	{
		struct ibv_cq_ex *cq = ibv_create_cq_ex(ctx, &ca);

		ck_assert_ptr_nonnull(cq);
		ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	}
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dp_clock");
	TCase *tc = tcase_create("clock");

	if (getenv("MLX5EMU_TEST_NO_CLOCK")) {
		tcase_add_test(tc, no_clock);
	} else {
		tcase_add_test(tc, clock_attrs);
		tcase_add_test(tc, clock_rt_values);
		tcase_add_test(tc, clock_info_convert);
		tcase_add_test(tc, cqe_free_running);
		tcase_add_test(tc, cqe_real_time);
	}
	suite_add_tcase(s, tc);
	return vt_run(s);
}
