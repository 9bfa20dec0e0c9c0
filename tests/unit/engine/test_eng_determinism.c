/* SPDX-License-Identifier: MIT */
/*
 * The engine's modes.  Deterministic (every test here unless it says
 * otherwise): no thread, progress calls move the device, and the clock is
 * virtual, so timers fire at exact virtual times without waiting (the
 * expected times are IBA table 45's RNR timer values and the transport
 * timer's 4.096 us << ack_timeout, computed by hand), CQE timestamps are
 * virtual, and a run with no call does nothing.  Inline: no thread, wall
 * clock.
 */
#include <endian.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "eng_test.h"
#include "emu/base/clock.h"

#include <infiniband/mlx5dv.h>

static struct ent_dev da, db;
static struct ent_cq acq, bcq;
static struct ent_mr amr, bmr;
static struct ent_qp aqp, bqp;

static uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void devices(enum emu_eng_mode mode)
{
	ck_assert_int_eq(emu_eng_set_mode(mode), 0);
	setenv("MLX5EMU_ENGINE_MODE", mode == EMU_ENG_INLINE ? "inline" :
	       "deterministic", 1);
	ent_dev_init(&da, 0);
	ent_dev_init(&db, 1);
	ent_cq_init(&da, &acq, 6, 64, false);
	ent_cq_init(&db, &bcq, 6, 64, false);
	ent_mr_init(&da, &amr, da.pd, 4096, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
	ent_mr_init(&db, &bmr, db.pd, 4096, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
}

static void setup(void)
{
	devices(EMU_ENG_DETERMINISTIC);
}

static void teardown(void)
{
	ent_dev_fini(&da);
	ent_dev_fini(&db);
}

/* aqp -> bqp with @c (and bqp back with the defaults). */
static void pair(struct ent_conn *c)
{
	struct ent_qp_cfg cfg = {
		.type = ENT_RC, .log_sq = 4, .log_rq = 4, .log_rq_stride = 2,
	};
	struct ent_conn cb;

	cfg.scq = cfg.rcq = &acq;
	cfg.user_index = 0x11;
	ent_qp_create(&da, &aqp, &cfg);
	cfg.scq = cfg.rcq = &bcq;
	cfg.user_index = 0x22;
	ent_qp_create(&db, &bqp, &cfg);
	ent_conn_default(&cb);
	c->remote_qpn = bqp.qpn;
	cb.remote_qpn = aqp.qpn;
	cb.min_rnr = c->min_rnr;	/* the responder's timer is the NAK's */
	ent_qp_to_rts(&aqp, &db, c);
	ent_qp_to_rts(&bqp, &da, &cb);
}

static bool cqe_ready(struct ent_cq *cq)
{
	const uint8_t *e = (const uint8_t *)cq->mem.addr +
			   (size_t)(cq->ci & 63) * 64;
	uint8_t op = __atomic_load_n(&e[63], __ATOMIC_ACQUIRE);

	return op >> 4 != MLX5_CQE_INVALID && (op & 1) == ((cq->ci >> 6) & 1);
}

START_TEST(no_thread_only_calls_move_it)
{
	struct ent_conn c;
	const uint8_t *e;
	uint64_t ts;

	ck_assert(!emu_eng_threaded());
	ck_assert(!emu_eng_thread_running());
	ck_assert_int_eq(emu_eng_mode(), EMU_ENG_DETERMINISTIC);
	ck_assert(emu_clock_is_virtual());
	ent_conn_default(&c);
	pair(&c);
	ent_post1(&aqp, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE, 0,
		  &amr, 0, 64, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
	usleep(20000);
	ck_assert(!cqe_ready(&acq));	/* nobody ran it */
	/* The WQE and its one packet. */
	ck_assert_uint_eq(emu_eng_progress(EMU_ENG_WHY_DOORBELL), 2);
	ck_assert(cqe_ready(&acq));
	e = ent_cq_next(&acq);
	ck_assert_uint_eq(e[63] >> 4, MLX5_CQE_REQ);
	/* The CQE's timestamp is the virtual clock, which nothing moved. */
	memcpy(&ts, e + 48, 8);
	ck_assert_uint_eq(be64toh(ts), 0);
	ck_assert_uint_eq(emu_clock_ns(), 0);
	/* Nothing to do: a call does nothing and moves no time. */
	ck_assert_uint_eq(emu_eng_progress(EMU_ENG_WHY_POLL), 0);
	ck_assert_uint_eq(emu_clock_ns(), 0);
}
END_TEST

START_TEST(mode_is_fixed_while_devices_are_joined)
{
	ck_assert_int_eq(emu_eng_set_mode(EMU_ENG_THREADED), -EBUSY);
	ck_assert_int_eq(emu_eng_set_mode(EMU_ENG_INLINE), -EBUSY);
	ck_assert_int_eq(emu_eng_set_mode(EMU_ENG_DETERMINISTIC), 0);
	ck_assert_int_eq(emu_eng_set_mode((enum emu_eng_mode)7), -EINVAL);
	teardown();
	ck_assert_int_eq(emu_eng_set_mode(EMU_ENG_THREADED), 0);
	ck_assert(!emu_clock_is_virtual());
	ck_assert(emu_eng_threaded());
	setup();
}
END_TEST

/*
 * No receive WQE: RNR NAKs with the responder's timer 31 (491.52 ms, IBA
 * table 45), rnr_retry 3.  Each call that finds nothing runnable moves the
 * clock to the retry: after the first send at 0 the retries go at 491.52,
 * 983.04 and 1474.56 ms, the last one failing; in much less wall time.
 */
START_TEST(rnr_retries_on_the_virtual_clock)
{
	static const uint64_t t = 491520000;
	struct ent_conn c;
	uint64_t w0 = wall_ms();

	ent_conn_default(&c);
	c.min_rnr = 31;
	c.rnr_retry = 3;
	pair(&c);
	ent_post1(&aqp, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr, 0,
		  8, 0, 0);
	ck_assert_uint_eq(emu_eng_progress(EMU_ENG_WHY_DOORBELL), 2);
	ck_assert_uint_eq(emu_clock_ns(), 0);
	for (uint64_t k = 1; k <= 3; k++) {
		ck_assert(!cqe_ready(&acq));
		ck_assert_uint_eq(emu_eng_progress(EMU_ENG_WHY_POLL), 1);
		ck_assert_uint_eq(emu_clock_ns(), k * t);
	}
	ck_assert(cqe_ready(&acq));
	ent_cqe_check(ent_cq_next(&acq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_REQ_ERR, .qpn = aqp.qpn,
		.wqe_op = MLX5_OPCODE_SEND, .srqn_uidx = 0x11,
		.syndrome = MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR,
		.vendor = 0xE8 });
	ck_assert_uint_lt(wall_ms() - w0, 1000);
	/* The QP is in error; nothing waits, so time stays. */
	emu_eng_progress(EMU_ENG_WHY_POLL);
	emu_eng_progress(EMU_ENG_WHY_POLL);
	ck_assert_uint_eq(emu_clock_ns(), 3 * t);
}
END_TEST

/* rnr_retry 7 (forever): a receive posted after two retries takes the
 * third, whose CQEs carry its virtual time. */
START_TEST(rnr_wait_then_deliver)
{
	static const uint64_t t = 1280000;	/* timer 14: 1.28 ms */
	struct ent_conn c;
	const uint8_t *e;
	uint64_t ts;

	ent_conn_default(&c);
	c.min_rnr = 14;
	pair(&c);
	ent_post1(&aqp, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr, 0,
		  8, 0, 0);
	emu_eng_progress(EMU_ENG_WHY_DOORBELL);
	emu_eng_progress(EMU_ENG_WHY_POLL);
	emu_eng_progress(EMU_ENG_WHY_POLL);
	ck_assert_uint_eq(emu_clock_ns(), 2 * t);
	ck_assert(!cqe_ready(&acq));
	ent_post_recv(&bqp, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 64);
	e = ent_cq_next(&acq);
	ck_assert_uint_eq(e[63] >> 4, MLX5_CQE_REQ);
	memcpy(&ts, e + 48, 8);
	ck_assert_uint_eq(be64toh(ts), 3 * t);
	e = ent_cq_next(&bcq);
	ck_assert_uint_eq(e[63] >> 4, MLX5_CQE_RESP_SEND);
	memcpy(&ts, e + 48, 8);
	ck_assert_uint_eq(be64toh(ts), 3 * t);
}
END_TEST

/*
 * No answer (the peer QP back in RST): the transport timer, 4.096 us <<
 * ack_timeout 20 (4096 ns << 20),
 * retry_count 2: the request is resent after one and after two timeouts,
 * and fails at the third (IBA 9.7.6.1.3: the count is of retries).  One
 * WAIT call runs all of it, on the virtual clock.
 */
START_TEST(transport_timer_and_wait)
{
	static const uint64_t t = 4096ull << 20;
	struct ent_conn c;
	uint64_t w0 = wall_ms();

	ent_conn_default(&c);
	c.ack_timeout = 20;
	c.retry_count = 2;
	pair(&c);
	ck_assert_uint_eq(ent_qp_modify(&bqp, MLX5_CMD_OP_2RST_QP), 0);
	ent_post1(&aqp, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE, 0,
		  &amr, 0, 64, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
	ck_assert_uint_ge(emu_eng_progress(EMU_ENG_WHY_WAIT), 3);
	ck_assert(cqe_ready(&acq));
	ck_assert_uint_eq(emu_clock_ns(), 3 * t);
	ent_cqe_check(ent_cq_next(&acq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_REQ_ERR, .qpn = aqp.qpn,
		.wqe_op = MLX5_OPCODE_RDMA_WRITE, .srqn_uidx = 0x11,
		.syndrome = MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR,
		.vendor = 0x81 });
	ck_assert_uint_lt(wall_ms() - w0, 1000);
}
END_TEST

/* Two runs of the same scenario read the same clock at the same points. */
static uint64_t scenario(void)
{
	struct ent_conn c;
	uint64_t sum = 0;

	ent_conn_default(&c);
	c.min_rnr = 9;		/* 0.24 ms */
	pair(&c);
	for (int i = 0; i < 5; i++) {
		ent_post1(&aqp, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0,
			  &amr, 0, 8, 0, 0);
		for (int k = 0; k < i; k++)
			emu_eng_progress(EMU_ENG_WHY_POLL);
		ent_post_recv(&bqp, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 64);
		ent_cq_next(&acq);
		ent_cq_next(&bcq);
		sum = sum * 31 + emu_clock_ns();
	}
	return sum;
}

START_TEST(same_calls_same_times)
{
	uint64_t first = scenario(), second;

	ck_assert_uint_ne(first, 0);
	teardown();
	setup();
	ck_assert_uint_eq(emu_clock_ns(), 0);
	second = scenario();
	ck_assert_uint_eq(first, second);
}
END_TEST

/* Inline: no thread either, but the wall clock: a retry waits for real. */
START_TEST(inline_waits_on_the_wall_clock)
{
	struct ent_conn c;
	uint64_t w0;

	teardown();
	ck_assert_int_eq(emu_eng_set_mode(EMU_ENG_INLINE), 0);
	devices(EMU_ENG_INLINE);
	ck_assert(!emu_clock_is_virtual());
	ck_assert(!emu_eng_thread_running());
	ent_conn_default(&c);
	c.min_rnr = 19;		/* 7.68 ms */
	c.rnr_retry = 1;
	pair(&c);
	w0 = wall_ms();
	ent_post1(&aqp, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr, 0,
		  8, 0, 0);
	ck_assert_uint_eq(emu_eng_progress(EMU_ENG_WHY_DOORBELL), 2);
	ck_assert_uint_eq(emu_eng_progress(EMU_ENG_WHY_POLL), 0);
	ent_cqe_check(ent_cq_next(&acq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_REQ_ERR, .qpn = aqp.qpn,
		.wqe_op = MLX5_OPCODE_SEND, .srqn_uidx = 0x11,
		.syndrome = MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR,
		.vendor = 0xE8 });
	ck_assert_uint_ge(wall_ms() - w0, 7);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("eng_determinism");
	TCase *tc = tcase_create("modes");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, no_thread_only_calls_move_it);
	tcase_add_test(tc, mode_is_fixed_while_devices_are_joined);
	tcase_add_test(tc, rnr_retries_on_the_virtual_clock);
	tcase_add_test(tc, rnr_wait_then_deliver);
	tcase_add_test(tc, transport_timer_and_wait);
	tcase_add_test(tc, same_calls_same_times);
	tcase_add_test(tc, inline_waits_on_the_wall_clock);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
