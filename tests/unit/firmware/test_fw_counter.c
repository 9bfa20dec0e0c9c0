/* SPDX-License-Identifier: MIT */
/* Queue counter sets and flow counters. */
#include <errno.h>
#include <stdlib.h>

#include "fw_test_util.h"

static struct emu_fw *fw;
static uint16_t u1, u2;

static void setup(void)
{
	fw = fwt_create(NULL);
	u1 = fwt_uctx(fw);
	u2 = fwt_uctx(fw);
}

static void teardown(void)
{
	emu_fw_destroy(fw);
	fw = NULL;
}

static uint32_t alloc_qc(uint16_t uid)
{
	return fwt_alloc(fw, uid, ALLOC_Q_COUNTER, alloc_q_counter,
			 counter_set_id);
}

static void query_qc(struct fwt_mbox *m, uint16_t uid, uint32_t id,
		     bool clear)
{
	fwt_mbox_init(m, MLX5_CMD_OP_QUERY_Q_COUNTER, 0, uid,
		      PRM_ST_SZ_BYTES(query_q_counter_in),
		      PRM_ST_SZ_BYTES(query_q_counter_out));
	PRM_SET(query_q_counter_in, m->in, counter_set_id, id);
	PRM_SET(query_q_counter_in, m->in, clear, clear);
	fwt_exec(fw, m);
}

START_TEST(q_counter)
{
	uint32_t id = alloc_qc(u1);
	struct emu_fw_q_counter *qc;
	struct emu_fw_obj *obj;
	struct fwt_mbox m;

	ck_assert_uint_ne(id, 0);
	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_Q_COUNTER, id);
	qc = emu_fw_to_q_counter(obj);
	emu_fw_q_counter_add(qc, EMU_FW_QCNT_OUT_OF_BUFFER, 3);
	emu_fw_q_counter_add(qc, EMU_FW_QCNT_RX_WRITE_REQUESTS, 7);
	emu_fw_q_counter_add(qc, EMU_FW_QCNT_REQ_CQE_FLUSH_ERROR, 1);
	emu_fw_obj_put(obj);

	query_qc(&m, u1, id, false);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(query_q_counter_out, m.out, out_of_buffer),
			  3);
	ck_assert_uint_eq(PRM_GET(query_q_counter_out, m.out,
				  rx_write_requests), 7);
	ck_assert_uint_eq(PRM_GET(query_q_counter_out, m.out,
				  req_cqe_flush_error), 1);
	query_qc(&m, u1, id, true);	/* read and clear */
	ck_assert_uint_eq(PRM_GET(query_q_counter_out, m.out, out_of_buffer),
			  3);
	query_qc(&m, u1, id, false);
	ck_assert_uint_eq(PRM_GET(query_q_counter_out, m.out, out_of_buffer),
			  0);

	query_qc(&m, u2, id, false);
	ck_fw_synd(&m, Q_COUNTER_INVALID);
	query_qc(&m, u1, id, false);
	PRM_SET(query_q_counter_in, m.in, aggregate, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, Q_COUNTER_AGGREGATE_NOT_SUPPORTED);
	query_qc(&m, u1, id, false);
	PRM_SET(query_q_counter_in, m.in, other_vport, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, OTHER_VPORT_NOT_SUPPORTED);

	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_Q_COUNTER, u2, id);
	ck_fw_synd(&m, Q_COUNTER_INVALID);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_Q_COUNTER, u1,
				      id), 0);
	query_qc(&m, u1, id, false);
	ck_fw_synd(&m, Q_COUNTER_INVALID);
}
END_TEST

START_TEST(q_counter_limit)
{
	struct fwt_mbox m;

	for (int i = 0; i < 32; i++)	/* max_qp_cnt */
		alloc_qc(u1);
	fwt_mbox_init(&m, MLX5_CMD_OP_ALLOC_Q_COUNTER, 0, u1, 16, 16);
	ck_assert_uint_eq(fwt_exec(fw, &m), MLX5_CMD_STAT_LIM_ERR);
	ck_fw_synd(&m, Q_COUNTER_LIMIT);
}
END_TEST

static uint32_t alloc_fc(uint16_t uid)
{
	return fwt_alloc(fw, uid, ALLOC_FLOW_COUNTER, alloc_flow_counter,
			 flow_counter_id);
}

static void query_fc(struct fwt_mbox *m, uint16_t uid, uint32_t id,
		     uint32_t n, bool clear)
{
	fwt_mbox_init(m, MLX5_CMD_OP_QUERY_FLOW_COUNTER, 0, uid,
		      PRM_ST_SZ_BYTES(query_flow_counter_in),
		      16 + 16 * (n ? n : 1));
	PRM_SET(query_flow_counter_in, m->in, flow_counter_id, id);
	PRM_SET(query_flow_counter_in, m->in, num_of_counters, n);
	PRM_SET(query_flow_counter_in, m->in, clear, clear);
	fwt_exec(fw, m);
}

START_TEST(flow_counter)
{
	uint32_t a = alloc_fc(u1), b = alloc_fc(u1);
	struct emu_fw_flow_counter *fc;
	struct emu_fw_obj *obj;
	struct fwt_mbox m;
	void *st;

	ck_assert_uint_eq(b, a + 1);
	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_FLOW_COUNTER, b);
	fc = emu_fw_to_flow_counter(obj);
	atomic_fetch_add(&fc->packets, 2);
	atomic_fetch_add(&fc->octets, 128);
	emu_fw_obj_put(obj);

	query_fc(&m, u1, b, 0, false);
	ck_fw_ok(&m);
	st = PRM_ARRAY_ADDR(query_flow_counter_out, m.out, flow_statistics, 0);
	ck_assert_uint_eq(PRM_GET64(traffic_counter, st, packets), 2);
	ck_assert_uint_eq(PRM_GET64(traffic_counter, st, octets), 128);
	/* two at once, clearing */
	query_fc(&m, u1, a, 2, true);
	ck_fw_ok(&m);
	st = PRM_ARRAY_ADDR(query_flow_counter_out, m.out, flow_statistics, 1);
	ck_assert_uint_eq(PRM_GET64(traffic_counter, st, octets), 128);
	query_fc(&m, u1, b, 0, false);
	st = PRM_ARRAY_ADDR(query_flow_counter_out, m.out, flow_statistics, 0);
	ck_assert_uint_eq(PRM_GET64(traffic_counter, st, octets), 0);
	/* one past the end does not exist */
	query_fc(&m, u1, a, 3, false);
	ck_fw_synd(&m, FLOW_COUNTER_INVALID);
	query_fc(&m, u1, a, 2, false);
	m.outlen = 16 + 16;
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_OUTLEN);
	query_fc(&m, u2, a, 0, false);
	ck_fw_synd(&m, FLOW_COUNTER_INVALID);

	fwt_mbox_init(&m, MLX5_CMD_OP_ALLOC_FLOW_COUNTER, 0, u1, 16, 16);
	PRM_SET(alloc_flow_counter_in, m.in, flow_counter_bulk, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, FLOW_COUNTER_BULK_NOT_SUPPORTED);

	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_FLOW_COUNTER, u2, a);
	ck_fw_synd(&m, FLOW_COUNTER_INVALID);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_FLOW_COUNTER, u1,
				      a), 0);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_FLOW_COUNTER, u1, a);
	ck_fw_synd(&m, FLOW_COUNTER_INVALID);
}
END_TEST

static void few_flow_counters(struct emu_fw_caps *c)
{
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL,
					 "max_flow_counter_15_0", 3), 0);
}

START_TEST(flow_counter_limit)
{
	struct fwt_mbox m;

	teardown();
	fw = fwt_create(few_flow_counters);
	for (int i = 0; i < 3; i++)
		alloc_fc(0);
	fwt_mbox_init(&m, MLX5_CMD_OP_ALLOC_FLOW_COUNTER, 0, 0, 16, 16);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, FLOW_COUNTER_LIMIT);
}
END_TEST

static Suite *fw_counter_suite(void)
{
	Suite *s = suite_create("fw_counter");
	TCase *tc = tcase_create("counters");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, q_counter);
	tcase_add_test(tc, q_counter_limit);
	tcase_add_test(tc, flow_counter);
	tcase_add_test(tc, flow_counter_limit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fw_counter_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
