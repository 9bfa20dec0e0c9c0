/* SPDX-License-Identifier: MIT */
/*
 * Receive queues: CREATE/MODIFY/QUERY/DESTROY_RQ -- the object the engine
 * gets, the states, MODIFY_RQ's bitmask (vsd, counter set), every refusal
 * with its syndrome, the uses an RQ holds and those that hold it.
 */
#include <errno.h>

#include "test_fw_eth_util.h"
#include "ut_run.h"

static struct emu_fw *fw;
static struct etht_env env;

static void setup(void)
{
	etht_init(&fw, &env);
}

static void teardown(void)
{
	etht_fini(&fw, &env);
}

#define ck_rq_synd(stmt, ID)						\
	ck_fw_variant(fw, etht_rq_mbox(&env, &m_), c, ETHT_RQC(&m_),	\
		      stmt, ID)
#define WQ(c) PRM_ADDR_OF(rqc, (c), wq)
#define Q_RQC(m) PRM_ADDR_OF(query_rq_out, (m)->out, rq_context)

static void rq_query(uint32_t rqn, struct fwt_mbox *m)
{
	etht_id_cmd(&env, m, MLX5_CMD_OP_QUERY_RQ, rqn,
		    PRM_ST_SZ_BYTES(query_rq_out));
	ck_fw_ok(m);
}

START_TEST(rq_lifecycle)
{
	struct fwt_mbox c, m;
	struct emu_fw_rq *rq;
	const uint8_t *q;
	uint32_t rqn;

	etht_rq_mbox(&env, &c);
	rqn = etht_create(&env, &c);
	rq = emu_fw_to_rq(etht_get(&env, EMU_FW_OBJ_RQ, rqn));
	ck_assert_uint_eq(emu_fw_rq_state(rq), MLX5_RQC_STATE_RST);
	ck_assert_uint_eq(rq->cq->obj.id, env.q.cq2);
	ck_assert_uint_eq(rq->pd->obj.id, env.q.pd);
	ck_assert_ptr_eq(rq->ring.addr, (uint8_t *)env.q.mem.addr +
			 PRM_GET64(wq, ETHT_RQ_WQ(&c), wq_umem_offset));
	ck_assert_uint_eq(rq->ring.cnt, 64);
	ck_assert_uint_eq(rq->ring.log_stride, 6);
	ck_assert_uint_eq(rq->buf.len, 64 * 64);
	ck_assert_uint_eq(rq->user_index, 0x4321);
	ck_assert(atomic_load(&rq->vsd));
	ck_assert(rq->flush_in_error_en);
	ck_assert_ptr_null(atomic_load(&rq->counter));
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_CQ, env.q.cq2), 1);

	/* QUERY: as created; hw_counter (WQEs consumed) and sw_counter (the
	 * doorbell record dbr[0]) at wq bytes 0x18 and 0x1c. */
	atomic_store(&rq->hw.consumed, 3);
	((uint32_t *)rq->dbr.addr)[EMU_FW_DBR_RCV] = htobe32(0x20);
	rq_query(rqn, &m);
	q = Q_RQC(&m);
	ck_assert_mem_eq(q, ETHT_RQC(&c), PRM_BYTE_OFF(rqc, wq) + 0x18);
	/* vsd is bit 3 of byte 0 (rqc bit 0x3). */
	ck_assert_uint_eq(q[0] & 0x10, 0x10);
	q += PRM_BYTE_OFF(rqc, wq);
	ck_assert_uint_eq(be32toh(*(const uint32_t *)(q + 0x18)), 3);
	ck_assert_uint_eq(be32toh(*(const uint32_t *)(q + 0x1c)), 0x20);
	emu_fw_obj_put(&rq->obj);

	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_CQ, env.q.uid, env.q.cq2,
			   CQ_IN_USE);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_RQ, env.q.uid,
				      rqn), MLX5_CMD_STAT_OK);
	ck_assert_uint_eq(env.rq_calls, 1);
	ck_assert(env.last_dying);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_CQ, env.q.cq2), 0);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_RQ, env.q.uid, rqn,
			   RQ_INVALID);
}
END_TEST

START_TEST(rq_states)
{
	uint32_t rqn = etht_rq(&env);
	struct emu_fw_rq *rq = emu_fw_to_rq(etht_get(&env, EMU_FW_OBJ_RQ, rqn));
	struct fwt_mbox m;

	etht_modify_rq(&env, &m, rqn, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_ERR, 0);
	ck_fw_synd(&m, WQ_BAD_STATE_TRANSITION);
	etht_modify_rq(&env, &m, rqn, MLX5_RQC_STATE_ERR, MLX5_RQC_STATE_RST, 0);
	ck_fw_synd(&m, WQ_BAD_STATE_TRANSITION);
	/* A state the PRM does not have. */
	etht_modify_rq(&env, &m, rqn, MLX5_RQC_STATE_RST, 2, 0);
	ck_fw_synd(&m, WQ_BAD_STATE_TRANSITION);
	ck_assert_uint_eq(env.rq_calls, 0);
	atomic_store(&rq->hw.head, 5);
	atomic_store(&rq->hw.consumed, 5);
	etht_modify_rq(&env, &m, rqn, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY, 0);
	ck_fw_ok(&m);
	ck_assert_uint_eq(atomic_load(&rq->hw.head), 0);
	ck_assert_uint_eq(atomic_load(&rq->hw.consumed), 0);
	ck_assert_uint_eq(env.rq_calls, 1);
	ck_assert_uint_eq(env.last_state, MLX5_RQC_STATE_RDY);
	etht_modify_rq(&env, &m, rqn, MLX5_RQC_STATE_RDY, MLX5_RQC_STATE_ERR, 0);
	ck_fw_ok(&m);
	ck_assert_uint_eq(env.rq_calls, 2);
	etht_modify_rq(&env, &m, rqn, MLX5_RQC_STATE_ERR, MLX5_RQC_STATE_ERR, 0);
	ck_fw_ok(&m);
	ck_assert_uint_eq(env.rq_calls, 2);
	etht_modify_rq(&env, &m, rqn, MLX5_RQC_STATE_ERR, MLX5_RQC_STATE_RDY, 0);
	ck_fw_synd(&m, WQ_BAD_STATE_TRANSITION);
	etht_modify_rq(&env, &m, rqn, MLX5_RQC_STATE_ERR, MLX5_RQC_STATE_RST, 0);
	ck_fw_ok(&m);
	rq_query(rqn, &m);
	ck_assert_uint_eq(PRM_GET(rqc, Q_RQC(&m), state), MLX5_RQC_STATE_RST);
	ck_assert_int_eq(emu_fw_rq_set_error(rq), -EINVAL);
	emu_fw_obj_put(&rq->obj);
}
END_TEST

START_TEST(rq_modify_fields)
{
	uint32_t rqn = etht_rq(&env);
	uint32_t qc1 = qpt_q_counter(fw, env.q.uid);
	uint32_t qc2 = qpt_q_counter(fw, env.q.uid);
	struct emu_fw_rq *rq = emu_fw_to_rq(etht_get(&env, EMU_FW_OBJ_RQ, rqn));
	struct fwt_mbox m;
	void *c;

	etht_modify_rq(&env, &m, rqn, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY, 0);
	ck_fw_ok(&m);
	/* vsd: only when the bitmask names it (DPDK's VLAN strip toggle). */
	etht_modify_rq(&env, &m, rqn, MLX5_RQC_STATE_RDY, MLX5_RQC_STATE_RDY,
		       0);
	ck_fw_ok(&m);
	ck_assert(atomic_load(&rq->vsd));
	etht_modify_rq(&env, &m, rqn, MLX5_RQC_STATE_RDY, MLX5_RQC_STATE_RDY,
		       MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_VSD);
	ck_fw_ok(&m);
	ck_assert(!atomic_load(&rq->vsd));
	rq_query(rqn, &m);
	ck_assert_uint_eq(PRM_GET(rqc, Q_RQC(&m), vsd), 0);

	/* The counter set: taken, replaced, dropped. */
	fwt_mbox_init(&m, MLX5_CMD_OP_MODIFY_RQ, 0, env.q.uid,
		      PRM_ST_SZ_BYTES(modify_rq_in),
		      PRM_ST_SZ_BYTES(modify_rq_out));
	c = PRM_ADDR_OF(modify_rq_in, m.in, ctx);
	PRM_SET(modify_rq_in, m.in, rqn, rqn);
	PRM_SET(modify_rq_in, m.in, rq_state, MLX5_RQC_STATE_RDY);
	PRM_SET(rqc, c, state, MLX5_RQC_STATE_RDY);
	PRM_SET64(modify_rq_in, m.in, modify_bitmask,
		  MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_RQ_COUNTER_SET_ID);
	PRM_SET(rqc, c, counter_set_id, qc1);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(atomic_load(&rq->counter)->obj.id, qc1);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DEALLOC_Q_COUNTER, env.q.uid, qc1,
			   Q_COUNTER_IN_USE);
	PRM_SET(rqc, c, counter_set_id, qc2);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(atomic_load(&rq->counter)->obj.id, qc2);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_Q_COUNTER, qc1), 0);
	rq_query(rqn, &m);
	ck_assert_uint_eq(PRM_GET(rqc, Q_RQC(&m), counter_set_id), qc2);
	/* A counter that does not exist: nothing changes. */
	fwt_mbox_init(&m, MLX5_CMD_OP_MODIFY_RQ, 0, env.q.uid,
		      PRM_ST_SZ_BYTES(modify_rq_in),
		      PRM_ST_SZ_BYTES(modify_rq_out));
	c = PRM_ADDR_OF(modify_rq_in, m.in, ctx);
	PRM_SET(modify_rq_in, m.in, rqn, rqn);
	PRM_SET(modify_rq_in, m.in, rq_state, MLX5_RQC_STATE_RDY);
	PRM_SET(rqc, c, state, MLX5_RQC_STATE_ERR);
	PRM_SET64(modify_rq_in, m.in, modify_bitmask,
		  MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_RQ_COUNTER_SET_ID);
	PRM_SET(rqc, c, counter_set_id, 0xfe);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, QP_BAD_COUNTER);
	ck_assert_uint_eq(emu_fw_rq_state(rq), MLX5_RQC_STATE_RDY);
	ck_assert_uint_eq(atomic_load(&rq->counter)->obj.id, qc2);
	/* scatter_fcs and the watermark are not modifiable here. */
	etht_modify_rq(&env, &m, rqn, MLX5_RQC_STATE_RDY, MLX5_RQC_STATE_RDY,
		       MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_SCATTER_FCS);
	ck_fw_synd(&m, WQ_BAD_BITMASK);
	etht_modify_rq(&env, &m, rqn, MLX5_RQC_STATE_RDY, MLX5_RQC_STATE_RDY,
		       MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_WQ_LWM |
		       MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_VSD);
	ck_fw_synd(&m, WQ_BAD_BITMASK);
	ck_assert(!atomic_load(&rq->vsd));
	emu_fw_obj_put(&rq->obj);
	/* The destroy drops the counter's use. */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_RQ, env.q.uid,
				      rqn), MLX5_CMD_STAT_OK);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_Q_COUNTER, qc2), 0);
}
END_TEST

START_TEST(rq_counter_at_create)
{
	uint32_t qc = qpt_q_counter(fw, env.q.uid);
	struct fwt_mbox m;

	etht_rq_mbox(&env, &m);
	PRM_SET(rqc, ETHT_RQC(&m), counter_set_id, qc);
	etht_create(&env, &m);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_Q_COUNTER, qc), 1);
	ck_rq_synd(PRM_SET(rqc, c, counter_set_id, qc + 1), QP_BAD_COUNTER);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_RQ), 1);
}
END_TEST

START_TEST(rq_refusals)
{
	int mem_users = etht_users(&env, EMU_FW_OBJ_UMEM, env.q.mem.umem_id);

	ck_rq_synd(PRM_SET(rqc, c, rlky, 1), WQ_FEATURE_NOT_SUPPORTED);
	ck_rq_synd(PRM_SET(rqc, c, delay_drop_en, 1), WQ_FEATURE_NOT_SUPPORTED);
	ck_rq_synd(PRM_SET(rqc, c, scatter_fcs, 1), WQ_FEATURE_NOT_SUPPORTED);
	ck_rq_synd(PRM_SET(rqc, c, hairpin, 1), WQ_FEATURE_NOT_SUPPORTED);
	ck_rq_synd(PRM_SET(rqc, c, mem_rq_type,
			   MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_RMP),
		   WQ_FEATURE_NOT_SUPPORTED);
	ck_rq_synd(PRM_SET(wq, WQ(c), lwm, 4), WQ_FEATURE_NOT_SUPPORTED);
	ck_rq_synd(PRM_SET(wq, WQ(c), shampo_enable, 1),
		   WQ_FEATURE_NOT_SUPPORTED);
	ck_rq_synd(PRM_SET(rqc, c, state, MLX5_RQC_STATE_RDY), WQ_BAD_STATE);
	ck_rq_synd(PRM_SET(rqc, c, ts_format, 3), WQ_BAD_TS_FORMAT);
	/* Striding RQs (MPRQ) are not advertised: the type is refused. */
	ck_rq_synd(PRM_SET(wq, WQ(c), wq_type,
			   MLX5_WQ_TYPE_CYCLIC_STRIDING_RQ), WQ_BAD_TYPE);
	ck_rq_synd(PRM_SET(wq, WQ(c), wq_type,
			   MLX5_WQ_TYPE_LINKED_LIST_STRIDING_RQ), WQ_BAD_TYPE);
	ck_rq_synd(PRM_SET(wq, WQ(c), wq_type, MLX5_WQ_TYPE_LINKED_LIST),
		   WQ_BAD_TYPE);
	ck_rq_synd(PRM_SET(wq, WQ(c), log_wq_sz, 16), WQ_BAD_SIZE);
	/* 16 bytes (one scatter entry) .. max_wqe_sz_rq (512). */
	ck_rq_synd(PRM_SET(wq, WQ(c), log_wq_stride, 3), WQ_BAD_STRIDE);
	ck_rq_synd(PRM_SET(wq, WQ(c), log_wq_stride, 10), WQ_BAD_STRIDE);
	ck_rq_synd(PRM_SET(wq, WQ(c), pd, env.q.pd + 100), BAD_PD);
	ck_rq_synd(PRM_SET(rqc, c, cqn, 0), WQ_BAD_CQN);
	ck_rq_synd(PRM_SET(rqc, c, cqn, env.q.cq2 + 100), WQ_BAD_CQN);
	ck_rq_synd(PRM_SET(wq, WQ(c), wq_umem_id, 0x7fffff), UMEM_INVALID);
	ck_rq_synd(PRM_SET(wq, WQ(c), dbr_umem_id, 0x7fffff), UMEM_INVALID);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_RQ), 0);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_CQ, env.q.cq2), 0);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_UMEM, env.q.mem.umem_id), mem_users);
}
END_TEST

START_TEST(rq_stride_bounds)
{
	struct fwt_mbox m;

	/* 16 and 512 bytes are both fine. */
	etht_rq_mbox(&env, &m);
	PRM_SET(wq, ETHT_RQ_WQ(&m), log_wq_stride, 4);
	etht_create(&env, &m);
	etht_rq_mbox(&env, &m);
	PRM_SET(wq, ETHT_RQ_WQ(&m), log_wq_stride, 9);
	etht_create(&env, &m);
}
END_TEST

START_TEST(rq_used)
{
	uint32_t rqn = etht_rq(&env);
	uint32_t rqtn = etht_rqt(&env, 4, &rqn, 1);
	struct fwt_mbox m;
	uint32_t tirn;

	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_RQ, env.q.uid, rqn,
			   RQ_IN_USE);
	ck_assert_uint_eq(env.rq_calls, 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_RQT, env.q.uid,
				      rqtn), MLX5_CMD_STAT_OK);
	etht_tir_direct_mbox(&env, &m, rqn);
	tirn = etht_create(&env, &m);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_RQ, env.q.uid, rqn,
			   RQ_IN_USE);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_TIR, env.q.uid,
				      tirn), MLX5_CMD_STAT_OK);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_RQ, env.q.uid,
				      rqn), MLX5_CMD_STAT_OK);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fw_eth_rq");
	TCase *tc = tcase_create("rq");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rq_lifecycle);
	tcase_add_test(tc, rq_states);
	tcase_add_test(tc, rq_modify_fields);
	tcase_add_test(tc, rq_counter_at_create);
	tcase_add_test(tc, rq_refusals);
	tcase_add_test(tc, rq_stride_bounds);
	tcase_add_test(tc, rq_used);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(suite()) ? 1 : 0;
}
