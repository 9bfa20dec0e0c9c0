/* SPDX-License-Identifier: MIT */
/*
 * RC between two devices of the process: every opcode, inline data,
 * scatter/gather lists, unsignaled and solicited WQEs, fences, NOP, and
 * the opcodes this device does not take.  CQEs are compared byte by byte
 * with hand-written expectations (literal offsets in eng_test.c).
 */
#include <endian.h>
#include <stdlib.h>

#include "eng_test.h"

#include <infiniband/mlx5dv.h>

static struct ent_dev da, db;
static struct ent_cq acq, bcq;
static struct ent_mr amr, bmr;
static struct ent_qp aqp, bqp;

static void setup(void)
{
	struct ent_qp_cfg cfg = {
		.type = ENT_RC, .log_sq = 6, .log_rq = 6, .log_rq_stride = 2,
	};

	ent_dev_init(&da, 0);
	ent_dev_init(&db, 1);
	ent_cq_init(&da, &acq, 6, 64, false);
	ent_cq_init(&db, &bcq, 6, 64, false);
	ent_mr_init(&da, &amr, da.pd, 65536, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
	ent_mr_init(&db, &bmr, db.pd, 65536, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
	cfg.scq = cfg.rcq = &acq;
	cfg.user_index = 0x11;
	ent_qp_create(&da, &aqp, &cfg);
	cfg.scq = cfg.rcq = &bcq;
	cfg.user_index = 0x22;
	ent_qp_create(&db, &bqp, &cfg);
	ent_qp_pair(&aqp, &bqp);
}

static void teardown(void)
{
	ent_dev_fini(&da);
	ent_dev_fini(&db);
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static void check_req(uint8_t wqe_op, uint16_t ctr, uint32_t byte_cnt)
{
	struct ent_cqe_exp e = {
		.opcode = MLX5_CQE_REQ, .qpn = aqp.qpn, .wqe_op = wqe_op,
		.wqe_counter = ctr, .byte_cnt = byte_cnt, .srqn_uidx = 0x11,
	};

	ent_cqe_check(ent_cq_next(&acq), &e);
}

static void check_resp_se(uint8_t op, uint16_t ctr, uint32_t byte_cnt,
			  uint32_t imm, bool se)
{
	struct ent_cqe_exp e = {
		.opcode = op, .qpn = bqp.qpn, .wqe_counter = ctr,
		.byte_cnt = byte_cnt, .imm = imm, .flags_rqpn = aqp.qpn,
		.srqn_uidx = 0x22, .se = se,
	};

	ent_cqe_check(ent_cq_next(&bcq), &e);
}

static void check_resp(uint8_t op, uint16_t ctr, uint32_t byte_cnt,
		       uint32_t imm)
{
	check_resp_se(op, ctr, byte_cnt, imm, false);
}

START_TEST(rc_send)
{
	fill(amr.buf, 100, 1);
	ent_post_recv(&bqp, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 4096);
	ent_post1(&aqp, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr,
		  0, 100, 0, 0);
	check_req(MLX5_OPCODE_SEND, 0, 100);
	check_resp(MLX5_CQE_RESP_SEND, 0, 100, 0);
	ck_assert_mem_eq(bmr.buf, amr.buf, 100);
	ck_assert_uint_eq(bmr.buf[100], 0);	/* nothing past the message */
}
END_TEST

START_TEST(rc_send_imm)
{
	fill(amr.buf, 1024, 2);
	ent_post_recv(&bqp, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 1024);
	ent_post1(&aqp, MLX5_OPCODE_SEND_IMM, MLX5_WQE_CTRL_CQ_UPDATE,
		  htobe32(0x03020100), &amr, 0, 1024, 0, 0);
	check_req(MLX5_OPCODE_SEND_IMM, 0, 1024);
	check_resp(MLX5_CQE_RESP_SEND_IMM, 0, 1024, 0x03020100);
	ck_assert_mem_eq(bmr.buf, amr.buf, 1024);
}
END_TEST

START_TEST(rc_write)
{
	fill(amr.buf, 65536, 3);
	ent_post1(&aqp, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE, 0,
		  &amr, 0, 65536, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
	check_req(MLX5_OPCODE_RDMA_WRITE, 0, 65536);
	ck_assert_mem_eq(bmr.buf, amr.buf, 65536);
	ck_assert(ent_cq_quiet(&bcq, 20));	/* no receive consumed */
}
END_TEST

START_TEST(rc_write_imm)
{
	fill(amr.buf, 300, 4);
	ent_post_recv(&bqp, bmr.key, (uint64_t)(uintptr_t)bmr.buf + 8192, 16);
	ent_post1(&aqp, MLX5_OPCODE_RDMA_WRITE_IMM, MLX5_WQE_CTRL_CQ_UPDATE,
		  htobe32(0xdeadbeef), &amr, 0, 300,
		  (uint64_t)(uintptr_t)bmr.buf + 100, bmr.key);
	check_req(MLX5_OPCODE_RDMA_WRITE_IMM, 0, 300);
	check_resp(MLX5_CQE_RESP_WR_IMM, 0, 300, 0xdeadbeef);
	ck_assert_mem_eq(bmr.buf + 100, amr.buf, 300);
	ck_assert_uint_eq(bmr.buf[8192], 0);	/* the receive took no data */
}
END_TEST

START_TEST(rc_read)
{
	fill(bmr.buf, 5000, 5);
	ent_post1(&aqp, MLX5_OPCODE_RDMA_READ, MLX5_WQE_CTRL_CQ_UPDATE, 0,
		  &amr, 64, 5000, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
	check_req(MLX5_OPCODE_RDMA_READ, 0, 5000);
	ck_assert_mem_eq(amr.buf + 64, bmr.buf, 5000);
}
END_TEST

/* ctrl, raddr, atomic (swap/add, compare), data: ds 4, one block. */
static void post_atomic(uint8_t op, uint64_t raddr, uint64_t swap_add,
			uint64_t compare, uint32_t loff)
{
	uint8_t w[64] = { 0 };
	uint64_t v;

	ent_ctrl(w, aqp.sq_pi, op, aqp.qpn, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ent_raddr(w + 16, raddr, bmr.key);
	v = htobe64(swap_add);
	memcpy(w + 32, &v, 8);
	v = htobe64(compare);
	memcpy(w + 40, &v, 8);
	ent_dseg(w + 48, 8, amr.key, (uint64_t)(uintptr_t)amr.buf + loff);
	ent_sq_put(&aqp, w, 1);
	ent_sq_ring(&aqp);
}

START_TEST(rc_atomics)
{
	uint64_t *remote = (uint64_t *)(void *)(bmr.buf + 64);
	uint64_t *local = (uint64_t *)(void *)amr.buf;

	/* Host byte order (atomic_req_8B_endianness_mode 1). */
	*remote = 5;
	post_atomic(MLX5_OPCODE_ATOMIC_CS, (uint64_t)(uintptr_t)remote, 9, 5, 0);
	check_req(MLX5_OPCODE_ATOMIC_CS, 0, 8);
	ck_assert_uint_eq(local[0], 5);
	ck_assert_uint_eq(*remote, 9);
	post_atomic(MLX5_OPCODE_ATOMIC_FA, (uint64_t)(uintptr_t)remote, 3, 0, 8);
	check_req(MLX5_OPCODE_ATOMIC_FA, 1, 8);
	ck_assert_uint_eq(local[1], 9);
	ck_assert_uint_eq(*remote, 12);
	/* A compare that fails: no swap, the value found returned. */
	post_atomic(MLX5_OPCODE_ATOMIC_CS, (uint64_t)(uintptr_t)remote, 77, 1, 16);
	check_req(MLX5_OPCODE_ATOMIC_CS, 2, 8);
	ck_assert_uint_eq(local[2], 12);
	ck_assert_uint_eq(*remote, 12);
}
END_TEST

START_TEST(rc_inline)
{
	uint8_t w[64] = { 0 };
	uint32_t bc = htobe32(20 | MLX5_INLINE_SEG);

	ent_post_recv(&bqp, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 64);
	/* ctrl, inline header + 20 bytes: 40 bytes, ds 3. */
	ent_ctrl(w, 0, MLX5_OPCODE_SEND, aqp.qpn, 3, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	memcpy(w + 16, &bc, 4);
	memcpy(w + 20, "inline payload 20 b!", 20);
	ent_sq_put(&aqp, w, 1);
	ent_sq_ring(&aqp);
	check_req(MLX5_OPCODE_SEND, 0, 20);
	check_resp(MLX5_CQE_RESP_SEND, 0, 20, 0);
	ck_assert_mem_eq(bmr.buf, "inline payload 20 b!", 20);
}
END_TEST

START_TEST(rc_sgl)
{
	uint8_t w[128] = { 0 }, exp[600];
	uint8_t *r = bqp.rq;

	fill(amr.buf, 4096, 6);
	/* Gather 100 @0, 200 @1000, 300 @3000. */
	ent_ctrl(w, 0, MLX5_OPCODE_SEND, aqp.qpn, 4, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ent_dseg(w + 16, 100, amr.key, (uint64_t)(uintptr_t)amr.buf);
	ent_dseg(w + 32, 200, amr.key, (uint64_t)(uintptr_t)amr.buf + 1000);
	ent_dseg(w + 48, 300, amr.key, (uint64_t)(uintptr_t)amr.buf + 3000);
	memcpy(exp, amr.buf, 100);
	memcpy(exp + 100, amr.buf + 1000, 200);
	memcpy(exp + 300, amr.buf + 3000, 300);
	/* Scatter 250 @0, 350 @10000 (a 64-byte RQ WQE, 4 entries). */
	ent_dseg(r, 250, bmr.key, (uint64_t)(uintptr_t)bmr.buf);
	ent_dseg(r + 16, 350, bmr.key, (uint64_t)(uintptr_t)bmr.buf + 10000);
	ent_dseg(r + 32, 0, MLX5_INVALID_LKEY, 0);
	bqp.rq_pi = 1;
	__atomic_store_n((uint32_t *)bqp.dbr.addr, htobe32(1), __ATOMIC_RELEASE);
	ent_sq_put(&aqp, w, 1);
	ent_sq_ring(&aqp);
	check_req(MLX5_OPCODE_SEND, 0, 600);
	check_resp(MLX5_CQE_RESP_SEND, 0, 600, 0);
	ck_assert_mem_eq(bmr.buf, exp, 250);
	ck_assert_mem_eq(bmr.buf + 10000, exp + 250, 350);
}
END_TEST

START_TEST(rc_unsignaled_nop_fence_solicited)
{
	uint8_t w[64] = { 0 };

	fill(amr.buf, 64, 7);
	/* An unsignaled WRITE: no CQE. */
	ent_post1(&aqp, MLX5_OPCODE_RDMA_WRITE, 0, 0, &amr, 0, 64,
		  (uint64_t)(uintptr_t)bmr.buf, bmr.key);
	/* A signaled NOP (ds 1). */
	ent_ctrl(w, aqp.sq_pi, MLX5_OPCODE_NOP, aqp.qpn, 1,
		 MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ent_sq_put(&aqp, w, 1);
	ent_sq_ring(&aqp);
	check_req(MLX5_OPCODE_NOP, 1, 0);
	ck_assert_mem_eq(bmr.buf, amr.buf, 64);
	/* A READ, then a fenced, solicited SEND: the SEND sees the READ
	 * done and completes after it. */
	ent_post_recv(&bqp, bmr.key, (uint64_t)(uintptr_t)bmr.buf + 4096, 64);
	ent_post1(&aqp, MLX5_OPCODE_RDMA_READ, MLX5_WQE_CTRL_CQ_UPDATE, 0,
		  &amr, 1024, 64, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
	ent_post1(&aqp, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE |
		  MLX5_WQE_CTRL_FENCE | MLX5_WQE_CTRL_SOLICITED, 0, &amr, 1024,
		  64, 0, 0);
	check_req(MLX5_OPCODE_RDMA_READ, 2, 64);
	check_req(MLX5_OPCODE_SEND, 3, 64);
	/* The solicited event bit of the message is in op_own bit 1. */
	check_resp_se(MLX5_CQE_RESP_SEND, 0, 64, 0, true);
	ck_assert_mem_eq(bmr.buf + 4096, amr.buf, 64);
}
END_TEST

static void check_local_qp_op(uint8_t wqe_op, uint16_t ctr)
{
	struct ent_cqe_exp e = {
		.opcode = MLX5_CQE_REQ_ERR, .qpn = aqp.qpn, .wqe_op = wqe_op,
		.wqe_counter = ctr, .srqn_uidx = 0x11,
		.syndrome = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, .vendor = 0xE2,
	};

	ent_cqe_check(ent_cq_next(&acq), &e);
}

START_TEST(rc_opcodes_not_taken)
{
	static const uint8_t ops[] = {
		MLX5_OPCODE_LOCAL_INVAL,	/* not taken: UMR instead */
		MLX5_OPCODE_ATOMIC_MASKED_CS,	/* not advertised */
		MLX5_OPCODE_TSO,		/* not on RC */
		0x7f,				/* no such opcode */
	};
	unsigned int i = (unsigned int)_i;

	if (ops[i] == MLX5_OPCODE_ATOMIC_MASKED_CS) {
		uint8_t w[128] = { 0 };

		ent_ctrl(w, 0, ops[i], aqp.qpn, 6, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		ent_raddr(w + 16, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
		ent_dseg(w + 80, 8, amr.key, (uint64_t)(uintptr_t)amr.buf);
		ent_sq_put(&aqp, w, 2);
		ent_sq_ring(&aqp);
	} else {
		ent_post1(&aqp, ops[i], MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr, 0, 8,
			  0, 0);
	}
	check_local_qp_op(ops[i], 0);
	ck_assert_uint_eq(emu_fw_qp_state(emu_fw_to_qp(
		emu_fw_obj_lookup_rcu(da.fw, EMU_FW_OBJ_QP, aqp.qpn))),
		MLX5_QPC_STATE_ERR);
}
END_TEST

static Suite *eng_rc_suite(void)
{
	Suite *s = suite_create("eng_rc");
	TCase *tc = tcase_create("rc");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rc_send);
	tcase_add_test(tc, rc_send_imm);
	tcase_add_test(tc, rc_write);
	tcase_add_test(tc, rc_write_imm);
	tcase_add_test(tc, rc_read);
	tcase_add_test(tc, rc_atomics);
	tcase_add_test(tc, rc_inline);
	tcase_add_test(tc, rc_sgl);
	tcase_add_test(tc, rc_unsignaled_nop_fence_solicited);
	tcase_add_loop_test(tc, rc_opcodes_not_taken, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(eng_rc_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
