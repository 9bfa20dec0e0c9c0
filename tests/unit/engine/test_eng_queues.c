/* SPDX-License-Identifier: MIT */
/*
 * Queues as rings: wrap-around of SQ (a WQE split across the end), RQ and
 * CQ (owner parity), 128-byte CQEs, CQ overrun with and without
 * overrun-ignore, BlueFlame writes to both halves of a register with other
 * QPs' doorbells in between, a WQE rewritten after its doorbell, and the
 * QUERY answers built from engine-owned state.
 */
#include <endian.h>
#include <stdlib.h>
#include <unistd.h>

#include "eng_test.h"

#include <infiniband/mlx5dv.h>

static struct ent_dev da, db;
static struct ent_mr amr, bmr;

static void setup(void)
{
	ent_dev_init(&da, 0);
	ent_dev_init(&db, 1);
	ent_mr_init(&da, &amr, da.pd, 65536, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
	ent_mr_init(&db, &bmr, db.pd, 65536, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
	for (int i = 0; i < 65536; i++)
		amr.buf[i] = (uint8_t)(i * 31 + 7);
}

static void teardown(void)
{
	ent_dev_fini(&da);
	ent_dev_fini(&db);
}

static void pair(struct ent_qp *a, struct ent_cq *acq, struct ent_qp *b,
		 struct ent_cq *bcq, unsigned int log_sq, unsigned int log_rq)
{
	struct ent_qp_cfg cfg = {
		.type = ENT_RC, .log_sq = log_sq, .log_rq = log_rq,
		.log_rq_stride = 0, .user_index = 1,
	};

	cfg.scq = cfg.rcq = acq;
	ent_qp_create(&da, a, &cfg);
	cfg.scq = cfg.rcq = bcq;
	cfg.user_index = 2;
	ent_qp_create(&db, b, &cfg);
	ent_qp_pair(a, b);
}

/* A SEND of four data segments (ds 5: two basic blocks). */
static void post_send4(struct ent_qp *qp, uint32_t off, uint32_t len)
{
	uint8_t w[128] = { 0 };

	ent_ctrl(w, qp->sq_pi, MLX5_OPCODE_SEND, qp->qpn, 5,
		 MLX5_WQE_CTRL_CQ_UPDATE, 0);
	for (int i = 0; i < 4; i++)
		ent_dseg(w + 16 + 16 * i, len / 4, amr.key,
			 (uint64_t)(uintptr_t)amr.buf + off + i * (len / 4));
	ent_sq_put(qp, w, 2);
	ent_sq_ring(qp);
}

static void post_nop(struct ent_qp *qp)
{
	uint8_t w[64] = { 0 };

	ent_ctrl(w, qp->sq_pi, MLX5_OPCODE_NOP, qp->qpn, 1,
		 MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ent_sq_put(qp, w, 1);
	ent_sq_ring(qp);
}

START_TEST(wrap_sq_rq_cq)
{
	struct ent_cq acq, bcq;
	struct ent_qp a, b;

	/* SQ of 4 blocks, RQ of 4 16-byte WQEs, CQs of 4 entries. */
	ent_cq_init(&da, &acq, 2, 64, false);
	ent_cq_init(&db, &bcq, 2, 64, false);
	pair(&a, &acq, &b, &bcq, 2, 2);
	/* A one-block NOP first, so the two-block SENDs straddle the end. */
	{
		uint8_t w[64] = { 0 };

		ent_ctrl(w, 0, MLX5_OPCODE_NOP, a.qpn, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		ent_sq_put(&a, w, 1);
		ent_sq_ring(&a);
		ent_cqe_check(ent_cq_next(&acq), &(struct ent_cqe_exp){
			.opcode = MLX5_CQE_REQ, .qpn = a.qpn, .srqn_uidx = 1 });
	}
	for (int i = 0; i < 11; i++) {
		uint16_t ctr = (uint16_t)(1 + 2 * i);

		ent_post_recv(&b, bmr.key, (uint64_t)(uintptr_t)bmr.buf + i * 256,
			      256);
		post_send4(&a, (uint32_t)i * 1000, 200);
		ent_cqe_check(ent_cq_next(&acq), &(struct ent_cqe_exp){
			.opcode = MLX5_CQE_REQ, .qpn = a.qpn,
			.wqe_op = MLX5_OPCODE_SEND, .wqe_counter = ctr,
			.byte_cnt = 200, .srqn_uidx = 1 });
		ent_cqe_check(ent_cq_next(&bcq), &(struct ent_cqe_exp){
			.opcode = MLX5_CQE_RESP_SEND, .qpn = b.qpn,
			.wqe_counter = (uint16_t)i, .byte_cnt = 200,
			.flags_rqpn = a.qpn, .srqn_uidx = 2 });
		ck_assert_mem_eq(bmr.buf + i * 256, amr.buf + i * 1000, 200);
	}
	/* 12 CQEs on a 4-entry CQ: laps 0..2; the 13th starts lap 3, whose
	 * owner bit is 1 (ent_cq_next checks it). */
	ck_assert_uint_eq(((uint8_t *)acq.mem.addr)[3 * 64 + 63] & 1, 0);
	post_nop(&a);
	ent_cq_next(&acq);
	ck_assert_uint_eq(((uint8_t *)acq.mem.addr)[0 * 64 + 63] & 1, 1);
}
END_TEST

START_TEST(cqe_128)
{
	static const uint8_t zero[64];
	struct ent_cq acq, bcq;
	struct ent_qp a, b;

	ent_cq_init(&da, &acq, 3, 128, false);
	ent_cq_init(&db, &bcq, 3, 128, false);
	pair(&a, &acq, &b, &bcq, 4, 4);
	ent_post_recv(&b, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 64);
	ent_post1(&a, MLX5_OPCODE_SEND_IMM, MLX5_WQE_CTRL_CQ_UPDATE,
		  htobe32(0x77), &amr, 0, 64, 0, 0);
	ent_cqe_check(ent_cq_next(&acq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_REQ, .qpn = a.qpn,
		.wqe_op = MLX5_OPCODE_SEND_IMM, .byte_cnt = 64, .srqn_uidx = 1 });
	ent_cqe_check(ent_cq_next(&bcq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_RESP_SEND_IMM, .qpn = b.qpn, .byte_cnt = 64,
		.imm = 0x77, .flags_rqpn = a.qpn, .srqn_uidx = 2 });
	/* The 64-byte CQE is the second half; the first stays clear. */
	ck_assert_mem_eq(acq.mem.addr, zero, 64);
	ck_assert_uint_eq(((uint8_t *)acq.mem.addr)[127] >> 4, MLX5_CQE_REQ);
}
END_TEST

static uint32_t cq_query(struct ent_dev *d, uint32_t cqn, const char *what)
{
	struct fwt_mbox m;
	void *cqc;

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_CQ, 0, d->uid,
		      PRM_ST_SZ_BYTES(query_cq_in), PRM_ST_SZ_BYTES(query_cq_out));
	PRM_SET(query_cq_in, m.in, cqn, cqn);
	fwt_exec(d->fw, &m);
	ck_fw_ok(&m);
	cqc = PRM_ADDR_OF(query_cq_out, m.out, cq_context);
	if (!strcmp(what, "status"))
		return PRM_GET(cqc, cqc, status);
	if (!strcmp(what, "consumer"))
		return PRM_GET(cqc, cqc, consumer_counter);
	return PRM_GET(cqc, cqc, producer_counter);
}

START_TEST(cq_overrun)
{
	struct ent_cq acq, bcq;
	struct ent_qp a, b;
	uint32_t ctr = ent_q_counter(&da);
	struct ent_conn c;
	struct ent_qp_cfg cfg = { .type = ENT_RC, .log_sq = 4, .log_rq = 2,
				  .user_index = 1 };

	ent_cq_init(&da, &acq, 1, 64, false);	/* two entries */
	ent_cq_init(&db, &bcq, 4, 64, false);
	cfg.scq = cfg.rcq = &acq;
	ent_qp_create(&da, &a, &cfg);
	cfg.scq = cfg.rcq = &bcq;
	ent_qp_create(&db, &b, &cfg);
	ent_conn_default(&c);
	c.remote_qpn = b.qpn;
	c.counter = ctr;
	ent_qp_to_rts(&a, &db, &c);
	for (int i = 0; i < 3; i++)
		post_nop(&a);
	/* Two CQEs land, the third would overwrite an unread one: none is
	 * written, the CQ is in error (overflow). */
	for (int i = 0; i < 200 && cq_query(&da, acq.cqn, "status") == 0; i++)
		ent_tick();
	ck_assert_uint_eq(cq_query(&da, acq.cqn, "status"),
			  MLX5_CQC_STATUS_CQ_OVERFLOW);
	ck_assert_uint_eq(cq_query(&da, acq.cqn, "producer"), 2);
	ck_assert_uint_eq(ent_q_counter_get(&da, ctr, "cq_overflow"), 1);
	ck_assert_uint_eq(((uint8_t *)acq.mem.addr)[63] & 1, 0);
}
END_TEST

START_TEST(cq_overrun_ignored)
{
	struct ent_cq acq, bcq;
	struct ent_qp a, b;

	ent_cq_init(&da, &acq, 1, 64, true);	/* oi */
	ent_cq_init(&db, &bcq, 4, 64, false);
	pair(&a, &acq, &b, &bcq, 4, 2);
	for (int i = 0; i < 3; i++)
		post_nop(&a);
	for (int i = 0; i < 200 && cq_query(&da, acq.cqn, "producer") < 3; i++)
		ent_tick();
	/* The third went over the first: entry 0 of the second lap. */
	ck_assert_uint_eq(cq_query(&da, acq.cqn, "producer"), 3);
	ck_assert_uint_eq(cq_query(&da, acq.cqn, "status"), 0);
	ck_assert_uint_eq(((uint8_t *)acq.mem.addr)[63] & 1, 1);
	ck_assert_uint_eq(ent_be16((uint8_t *)acq.mem.addr + 60), 2);
}
END_TEST

/* The doorbell a BlueFlame register gets: the first 8 bytes of ctrl. */
static void uar_write(struct ent_dev *d, unsigned int off, const uint8_t *w,
		      unsigned int len)
{
	/* 64-bit stores, as libmlx5's mmio_write64_be and BlueFlame copy. */
	for (unsigned int i = 0; i < len; i += 8) {
		uint64_t v;

		memcpy(&v, w + i, 8);
		__atomic_store_n((uint64_t *)(void *)((uint8_t *)d->uar_page +
						      off + i), v,
				 __ATOMIC_RELEASE);
	}
}

START_TEST(blueflame_both_halves)
{
	struct ent_cq acq, bcq;
	struct ent_qp a1, b1, a2, b2;
	uint8_t w[64];

	ent_cq_init(&da, &acq, 5, 64, false);
	ent_cq_init(&db, &bcq, 5, 64, false);
	pair(&a1, &acq, &b1, &bcq, 4, 4);
	pair(&a2, &acq, &b2, &bcq, 4, 4);
	/* A BlueFlame copy alone is no doorbell: the record is the truth. */
	memset(w, 0, sizeof(w));
	ent_ctrl(w, 0, MLX5_OPCODE_NOP, a1.qpn, 1, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	memcpy(ent_sq_bb(&a1, 0), w, 64);
	uar_write(&da, 0xa00, w, 64);
	ck_assert(ent_cq_quiet(&acq, 20));
	a1.sq_pi = 1;
	ent_sq_ring(&a1);
	ent_cqe_check(ent_cq_next(&acq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_REQ, .qpn = a1.qpn, .srqn_uidx = 1 });
	/* Alternate halves of bfreg 1 (0xa00, 0xb00) for a1, with a2's
	 * 8-byte doorbells on bfreg 2 and garbage in between. */
	for (int i = 0; i < 8; i++) {
		struct ent_qp *q = i % 2 ? &a2 : &a1;
		uint16_t idx = q->sq_pi;

		memset(w, 0, sizeof(w));
		ent_ctrl(w, idx, MLX5_OPCODE_NOP, q->qpn, 1,
			 MLX5_WQE_CTRL_CQ_UPDATE, 0);
		ent_sq_put(q, w, 1);
		ent_sq_ring(q);
		if (q == &a1)
			uar_write(&da, 0xa00 + (unsigned int)(i / 2 % 2) * 0x100,
				  w, 64);
		else
			uar_write(&da, 0xc00, w, 8);
		uar_write(&da, 0xe00, (const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff", 8);
		ent_cqe_check(ent_cq_next(&acq), &(struct ent_cqe_exp){
			.opcode = MLX5_CQE_REQ, .qpn = q->qpn,
			.wqe_counter = idx, .srqn_uidx = 1 });
	}
}
END_TEST

START_TEST(wqe_read_once)
{
	struct ent_cq acq, bcq;
	struct ent_qp a, b;

	ent_cq_init(&da, &acq, 4, 64, false);
	ent_cq_init(&db, &bcq, 4, 64, false);
	pair(&a, &acq, &b, &bcq, 4, 4);
	/* No receive: the SEND waits for RNR retries with the copy it read. */
	ent_post1(&a, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr, 0,
		  100, 0, 0);
	ck_assert(ent_cq_quiet(&acq, 20));
	/* The application scribbles over its ring: opcode, length, lkey. */
	memset(ent_sq_bb(&a, 0), 0xee, 64);
	ent_post_recv(&b, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 1024);
	ent_cqe_check(ent_cq_next(&acq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_REQ, .qpn = a.qpn,
		.wqe_op = MLX5_OPCODE_SEND, .byte_cnt = 100, .srqn_uidx = 1 });
	ent_cqe_check(ent_cq_next(&bcq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_RESP_SEND, .qpn = b.qpn, .byte_cnt = 100,
		.flags_rqpn = a.qpn, .srqn_uidx = 2 });
	ck_assert_mem_eq(bmr.buf, amr.buf, 100);
}
END_TEST

START_TEST(query_engine_state)
{
	struct ent_cq acq, bcq;
	struct ent_qp a, b;
	struct fwt_mbox m;
	void *qpc;

	ent_cq_init(&da, &acq, 4, 64, false);
	ent_cq_init(&db, &bcq, 4, 64, false);
	pair(&a, &acq, &b, &bcq, 4, 4);
	ent_qp_query(&a, &m);
	qpc = PRM_ADDR_OF(query_qp_out, m.out, qpc);
	ck_assert_uint_eq(PRM_GET(qpc, qpc, next_send_psn), 0x100);
	/* 5000 bytes at a 1 KiB MTU span 5 PSNs; a WRITE of 1 byte one;
	 * a 2-block SEND of 200 bytes one. */
	ent_post_recv(&b, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 8192);
	ent_post1(&a, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr, 0,
		  5000, 0, 0);
	ent_post1(&a, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr,
		  0, 1, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
	ent_post_recv(&b, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 8192);
	post_send4(&a, 0, 200);
	for (int i = 0; i < 3; i++)
		ent_cq_next(&acq);
	ent_cq_next(&bcq);
	ent_qp_query(&a, &m);
	ck_assert_uint_eq(PRM_GET(qpc, qpc, next_send_psn), 0x100 + 7);
	ck_assert_uint_eq(PRM_GET(qpc, qpc, hw_sq_wqebb_counter), 1 + 1 + 2);
	ent_qp_query(&b, &m);
	ck_assert_uint_eq(PRM_GET(qpc, qpc, next_rcv_psn), 0x100 + 7);
	ck_assert_uint_eq(PRM_GET(qpc, qpc, hw_rq_counter), 2);
	ck_assert_uint_eq(cq_query(&da, acq.cqn, "producer"), 3);
	ck_assert_uint_eq(cq_query(&da, acq.cqn, "consumer"), 3);
	ck_assert_uint_eq(cq_query(&db, bcq.cqn, "producer"), 2);
	ck_assert_uint_eq(cq_query(&db, bcq.cqn, "consumer"), 1);
	/* A reset forgets them. */
	ck_assert_uint_eq(ent_qp_modify(&a, MLX5_CMD_OP_2RST_QP), 0);
	ent_qp_query(&a, &m);
	ck_assert_uint_eq(PRM_GET(qpc, qpc, hw_sq_wqebb_counter), 0);
	ck_assert_uint_eq(PRM_GET(qpc, qpc, next_send_psn), 0);
}
END_TEST

static void caps_no_resize(struct emu_fw_caps *caps)
{
	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_GENERAL, "cq_resize", 0),
			 0);
}

/* MODIFY_CQ op_mod 1 to 2^log entries in the umem of mem. */
static void resize_mbox(struct fwt_mbox *m, struct ent_dev *d, uint32_t cqn,
			unsigned int log, uint32_t umem)
{
	void *cqc;

	fwt_mbox_init(m, MLX5_CMD_OP_MODIFY_CQ, 1, d->uid,
		      PRM_ST_SZ_BYTES(modify_cq_in), PRM_ST_SZ_BYTES(modify_cq_out));
	PRM_SET(modify_cq_in, m->in, cqn, cqn);
	PRM_SET(modify_cq_in, m->in,
		modify_field_select_resize_field_select.resize_field_select.resize_field_select,
		1);	/* MLX5_MODIFY_CQ_MASK_LOG_SIZE */
	cqc = PRM_ADDR_OF(modify_cq_in, m->in, cq_context);
	PRM_SET(cqc, cqc, log_cq_size, log);
	PRM_SET(modify_cq_in, m->in, cq_umem_valid, 1);
	PRM_SET(modify_cq_in, m->in, cq_umem_id, umem);
}

START_TEST(resize_cq)
{
	struct ent_cq acq, bcq;
	struct ent_qp a, b;
	struct fwt_mem big, small;
	struct fwt_mbox m;
	const uint8_t *nb;

	ent_cq_init(&da, &acq, 2, 64, false);	/* 4 entries */
	ent_cq_init(&db, &bcq, 4, 64, false);
	pair(&a, &acq, &b, &bcq, 4, 2);
	for (int i = 0; i < 3; i++)
		post_nop(&a);
	ent_cq_next(&acq);			/* ci 1, CQEs 1 and 2 pending */
	for (int i = 0; i < 200 && cq_query(&da, acq.cqn, "producer") < 3; i++)
		ent_tick();
	/* Grow to 8 entries. */
	ent_mem_reg(&da, 8 * 64, &big);
	resize_mbox(&m, &da, acq.cqn, 3, big.umem_id);
	fwt_exec(da.fw, &m);
	ck_fw_ok(&m);
	/* The old ring holds the RESIZE CQE at the producer index (3), with
	 * the old size's owner bit, once the command has returned. */
	ck_assert_uint_eq(((uint8_t *)acq.mem.addr)[3 * 64 + 63],
			  MLX5_CQE_RESIZE_CQ << 4 | 0);
	ck_assert_uint_eq(cq_query(&da, acq.cqn, "producer"), 4);
	/* Production goes on at index 4 of the new ring (owner 0). */
	post_nop(&a);
	nb = (const uint8_t *)big.addr + 4 * 64;
	for (int i = 0; i < 2000 && __atomic_load_n(&nb[63], __ATOMIC_ACQUIRE) == 0; i++)
		ent_tick();
	ck_assert_uint_eq(nb[63], MLX5_CQE_REQ << 4 | 0);
	ck_assert_uint_eq(ent_be16(nb + 60), 3);	/* the fourth NOP */
	ck_assert_uint_eq(cq_query(&da, acq.cqn, "producer"), 5);
	/* Shrinking to 4 entries with 4 CQEs not consumed (1..4): refused
	 * with BAD_SIZE_OUTS_CQES_ERR; nothing changes. */
	ent_mem_reg(&da, 4 * 64, &small);
	resize_mbox(&m, &da, acq.cqn, 2, small.umem_id);
	fwt_exec(da.fw, &m);
	ck_fw_synd(&m, CQ_RESIZE_OUTSTANDING);
	ck_assert_uint_eq(emu_fw_out_status(m.out), 0x40);
	ck_assert_uint_eq(cq_query(&da, acq.cqn, "producer"), 5);
}
END_TEST

START_TEST(resize_cq_not_advertised)
{
	struct ent_cq acq;
	struct fwt_mem big;
	struct fwt_mbox m;

	teardown();
	ent_dev_init_caps(&da, 0, caps_no_resize);
	ent_dev_init_caps(&db, 1, caps_no_resize);
	ent_cq_init(&da, &acq, 2, 64, false);
	ent_mem_reg(&da, 8 * 64, &big);
	resize_mbox(&m, &da, acq.cqn, 3, big.umem_id);
	fwt_exec(da.fw, &m);
	ck_fw_synd(&m, CQ_RESIZE_NOT_SUPPORTED);
}
END_TEST

static Suite *eng_queues_suite(void)
{
	Suite *s = suite_create("eng_queues");
	TCase *tc = tcase_create("queues");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, wrap_sq_rq_cq);
	tcase_add_test(tc, cqe_128);
	tcase_add_test(tc, cq_overrun);
	tcase_add_test(tc, cq_overrun_ignored);
	tcase_add_test(tc, blueflame_both_halves);
	tcase_add_test(tc, wqe_read_once);
	tcase_add_test(tc, query_engine_state);
	tcase_add_test(tc, resize_cq);
	tcase_add_test(tc, resize_cq_not_advertised);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(eng_queues_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
