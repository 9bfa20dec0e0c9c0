/* SPDX-License-Identifier: MIT */
/*
 * Ringing a QP's doorbell register (bf.reg of mlx5dv_qp) as libmlx5 44's
 * post_send_db does: a lone WQE of 2 to 16 units is copied whole into the
 * register's current 256-byte half (BlueFlame, in 64-byte blocks, read
 * across the end of the ring), anything else writes the control segment's
 * first 8 bytes there; each write goes to the other half than the last,
 * per register, shared registers included.  MLX5_SHUT_UP_BF gives the
 * non-cached page (8-byte writes, one place); MLX5_POST_SEND_PREFER_BF=0
 * keeps BlueFlame for inline WQEs.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp_test.h"

#define HALF 256

static void setup(void)
{
	qt_clear_env();
}

static void teardown(void)
{
	qt_clear_env();
}

/* Clears both halves of the register, as a device that took them would
 * leave them for us to see the next write. */
static void reg_clear(const struct mlx5dv_qp *dv)
{
	memset(dv->bf.reg, 0, 2 * HALF);
}

static bool reg_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/* Asserts the half at @off holds the WQE at @idx copied in @len bytes, and
 * the other half nothing. */
static void expect_bf(const struct mlx5dv_qp *dv, unsigned int off,
		      unsigned int idx, size_t len)
{
	uint8_t *reg = dv->bf.reg;
	uint8_t wqe[HALF];

	dp_sq_read(dv, idx, wqe, len);
	dp_expect_bytes(reg + off, wqe, len, "BlueFlame copy");
	ck_assert(reg_zero(reg + off + len, HALF - len));
	ck_assert(reg_zero(reg + (off ^ HALF), HALF));
}

/* Asserts the register at @off holds the doorbell of the WQE at @idx (its
 * first 8 bytes) and nothing else was written. */
static void expect_db(const struct mlx5dv_qp *dv, unsigned int off,
		      unsigned int idx, unsigned int half)
{
	uint8_t *reg = dv->bf.reg;

	dp_expect_bytes(reg + off, dp_sq_bb(dv, idx), 8, "doorbell");
	ck_assert(reg_zero(reg + off + 8, half - 8));
	if (half == HALF)
		ck_assert(reg_zero(reg + (off ^ HALF), HALF));
}

static void post(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;

	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), 0);
}

START_TEST(test_blueflame)
{
	struct ibv_sge sge[16];
	struct ibv_send_wr wr[2];
	struct ibv_qp *qp;
	struct mlx5dv_qp dv;

	qt_open();
	qp = dp_qp(IBV_QPT_RC, 16, 16, 0, false);
	dv = dp_dv(qp);
	ck_assert_uint_eq(dv.bf.size, HALF);
	for (int i = 0; i < 16; i++)
		sge[i] = (struct ibv_sge){ .addr = 0x1000u * (i + 1), .length = 8,
					   .lkey = (uint32_t)i };
	memset(wr, 0, sizeof(wr));
	wr[0].opcode = wr[1].opcode = IBV_WR_SEND;
	wr[0].sg_list = wr[1].sg_list = sge;
	wr[0].num_sge = wr[1].num_sge = 1;

	/* A lone 2-unit WQE: one 64-byte block into half 0, then half 1,
	 * then half 0 again. */
	reg_clear(&dv);
	post(qp, &wr[0]);
	expect_bf(&dv, 0, 0, 64);
	reg_clear(&dv);
	post(qp, &wr[0]);
	expect_bf(&dv, HALF, 1, 64);
	reg_clear(&dv);
	post(qp, &wr[0]);
	expect_bf(&dv, 0, 2, 64);

	/* Two WQEs in a post: the doorbell of the last one, half 1. */
	reg_clear(&dv);
	wr[0].next = &wr[1];
	post(qp, &wr[0]);
	wr[0].next = NULL;
	expect_db(&dv, HALF, 4, HALF);

	/* The control segment alone (1 unit): a doorbell. */
	reg_clear(&dv);
	wr[0].num_sge = 0;
	post(qp, &wr[0]);
	expect_db(&dv, 0, 5, HALF);

	/* 16 units (15 SGEs): all four blocks copied. */
	reg_clear(&dv);
	wr[0].num_sge = 15;
	post(qp, &wr[0]);
	expect_bf(&dv, HALF, 6, 256);

	/* 17 units do not fit a half: a doorbell. */
	reg_clear(&dv);
	wr[0].num_sge = 16;
	post(qp, &wr[0]);
	expect_db(&dv, 0, 10, HALF);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 15);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	qt_teardown();
}
END_TEST

/* The copy reads the WQE across the end of the ring. */
START_TEST(test_blueflame_wrap)
{
	struct ibv_sge sge[4] = {
		{ .addr = 0x1000, .length = 8 }, { .addr = 0x2000, .length = 8 },
		{ .addr = 0x3000, .length = 8 }, { .addr = 0x4000, .length = 8 },
	};
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .sg_list = sge };
	struct ibv_qp *qp;
	struct mlx5dv_qp dv;
	struct ibv_wc wc;

	qt_open();
	/* 4 WQEs of 256 bytes: a ring of 16 blocks. */
	qp = dp_qp(IBV_QPT_RC, 4, 4, 0, false);
	dv = dp_dv(qp);
	ck_assert_uint_eq(dv.sq.wqe_cnt, 16);
	/* One- and two-block WQEs up to block 15, retired by CQEs as the
	 * queue fills. */
	wr.num_sge = 3;
	for (int i = 0; i < 3; i++)
		post(qp, &wr);
	wr.num_sge = 4;
	wr.send_flags = IBV_SEND_SIGNALED;
	post(qp, &wr);
	dp_put_cqe(qt_cq, 0, MLX5_CQE_REQ, dp_uidx(qp), qp->qp_num, 0x0a, 3);
	ck_assert_int_eq(ibv_poll_cq(qt_cq, 1, &wc), 1);
	wr.num_sge = 3;
	wr.send_flags = 0;
	for (int i = 0; i < 3; i++)
		post(qp, &wr);
	wr.send_flags = IBV_SEND_SIGNALED;
	post(qp, &wr);
	dp_put_cqe(qt_cq, 1, MLX5_CQE_REQ, dp_uidx(qp), qp->qp_num, 0x0a, 8);
	ck_assert_int_eq(ibv_poll_cq(qt_cq, 1, &wc), 1);
	wr.send_flags = 0;
	for (int i = 0; i < 4; i++)
		post(qp, &wr);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 13);
	dp_put_cqe(qt_cq, 2, MLX5_CQE_REQ, dp_uidx(qp), qp->qp_num, 0x0a, 12);
	ck_assert_int_eq(ibv_poll_cq(qt_cq, 1, &wc), 1);
	post(qp, &wr);
	post(qp, &wr);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 15);
	/* 5 units from block 15: the second block is block 0.  The 15th
	 * write to the register: half 0. */
	reg_clear(&dv);
	wr.num_sge = 4;
	post(qp, &wr);
	expect_bf(&dv, 0, 15, 128);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	qt_teardown();
}
END_TEST

START_TEST(test_shut_up_bf)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 8 };
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .sg_list = &sge,
				  .num_sge = 1, .send_flags = IBV_SEND_INLINE };
	struct ibv_qp *qp;
	struct mlx5dv_qp dv;

	setenv("MLX5_SHUT_UP_BF", "1", 1);
	qt_open();
	qp = dp_qp(IBV_QPT_RC, 8, 1, 16, false);
	dv = dp_dv(qp);
	ck_assert_uint_eq(dv.bf.size, 0);
	/* Even an inline lone WQE: a doorbell, always at the same place. */
	sge.addr = (uintptr_t)&sge;
	for (unsigned int i = 0; i < 3; i++) {
		memset(dv.bf.reg, 0, 64);
		post(qp, &wr);
		expect_db(&dv, 0, i, 64);
	}
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	qt_teardown();
}
END_TEST

START_TEST(test_prefer_bf_off)
{
	static uint8_t data[8];
	struct ibv_sge sge = { .addr = (uintptr_t)data, .length = 8 };
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_qp *qp;
	struct mlx5dv_qp dv;

	setenv("MLX5_POST_SEND_PREFER_BF", "0", 1);
	qt_open();
	qp = dp_qp(IBV_QPT_RC, 8, 1, 16, false);
	dv = dp_dv(qp);
	/* Not inline: a doorbell.  Inline: BlueFlame, the other half. */
	reg_clear(&dv);
	post(qp, &wr);
	expect_db(&dv, 0, 0, HALF);
	reg_clear(&dv);
	wr.send_flags = IBV_SEND_INLINE;
	post(qp, &wr);
	expect_bf(&dv, HALF, 1, 64);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	unsetenv("MLX5_POST_SEND_PREFER_BF");
	qt_teardown();
}
END_TEST

/* Two registers of a page shared by three QPs: the first and the third
 * ring the same register, whose halves alternate across them. */
START_TEST(test_shared_register)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND };
	struct ibv_sge sge = { .addr = 0x1000, .length = 8 };
	struct ibv_qp *qp[3];
	struct mlx5dv_qp dv[3];

	setenv("MLX5_TOTAL_UUARS", "2", 1);
	setenv("MLX5_NUM_LOW_LAT_UUARS", "0", 1);
	qt_open();
	for (int i = 0; i < 3; i++) {
		qp[i] = dp_qp(IBV_QPT_RC, 8, 1, 0, false);
		dv[i] = dp_dv(qp[i]);
	}
	ck_assert_ptr_eq(dv[0].bf.reg, dv[2].bf.reg);
	ck_assert_ptr_ne(dv[0].bf.reg, dv[1].bf.reg);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	reg_clear(&dv[0]);
	post(qp[0], &wr);
	expect_bf(&dv[0], 0, 0, 64);
	reg_clear(&dv[0]);
	post(qp[2], &wr);
	expect_bf(&dv[2], HALF, 0, 64);
	reg_clear(&dv[0]);
	post(qp[0], &wr);
	expect_bf(&dv[0], 0, 1, 64);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(ibv_destroy_qp(qp[i]), 0);
	qt_teardown();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dp_doorbell");
	TCase *tc = tcase_create("doorbell");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_blueflame);
	tcase_add_test(tc, test_blueflame_wrap);
	tcase_add_test(tc, test_shut_up_bf);
	tcase_add_test(tc, test_prefer_bf_off);
	tcase_add_test(tc, test_shared_register);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
