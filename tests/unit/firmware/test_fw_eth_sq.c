/* SPDX-License-Identifier: MIT */
/*
 * Send queues: CREATE/MODIFY/QUERY/DESTROY_SQ -- the object the engine
 * gets, the states and the engine told of each change, every refusal with
 * its syndrome (nothing taken on a refusal), the uses an SQ holds.
 */
#include <errno.h>

#include "test_fw_eth_util.h"
#include "ut_run.h"

static struct emu_fw *fw;
static struct etht_env env;
static uint32_t tisn;

static void setup(void)
{
	etht_init(&fw, &env);
	tisn = etht_tis(&env);
}

static void teardown(void)
{
	etht_fini(&fw, &env);
}

#define ck_sq_synd(stmt, ID)						\
	ck_fw_variant(fw, etht_sq_mbox(&env, &m_, tisn), c, ETHT_SQC(&m_), \
		      stmt, ID)
#define WQ(c) PRM_ADDR_OF(sqc, (c), wq)

static void sq_query(uint32_t sqn, struct fwt_mbox *m)
{
	etht_id_cmd(&env, m, MLX5_CMD_OP_QUERY_SQ, sqn,
		    PRM_ST_SZ_BYTES(query_sq_out));
	ck_fw_ok(m);
}

#define Q_SQC(m) PRM_ADDR_OF(query_sq_out, (m)->out, sq_context)

START_TEST(sq_lifecycle)
{
	struct fwt_mbox c, m;
	struct emu_fw_sq *sq;
	const uint8_t *q;
	uint64_t slot_off;
	uint32_t sqn;

	etht_sq_mbox(&env, &c, tisn);
	slot_off = PRM_GET64(wq, ETHT_SQ_WQ(&c), wq_umem_offset);
	sqn = etht_create(&env, &c);
	sq = emu_fw_to_sq(etht_get(&env, EMU_FW_OBJ_SQ, sqn));
	ck_assert_uint_eq(emu_fw_sq_state(sq), MLX5_SQC_STATE_RST);
	ck_assert_uint_eq(sq->cq->obj.id, env.q.cq);
	ck_assert_uint_eq(sq->tis->obj.id, tisn);
	ck_assert_uint_eq(sq->pd->obj.id, env.q.pd);
	ck_assert_uint_eq(sq->uar->obj.id, env.q.uar);
	ck_assert_ptr_eq(sq->ring.addr, (uint8_t *)env.q.mem.addr + slot_off);
	ck_assert_ptr_eq(sq->buf.addr, sq->ring.addr);
	ck_assert_uint_eq(sq->buf.len, 64 * 64);
	ck_assert_uint_eq(sq->ring.cnt, 64);
	ck_assert_uint_eq(sq->ring.log_stride, 6);
	ck_assert_ptr_eq(sq->dbr.addr, (uint8_t *)env.q.dbr.addr +
			 PRM_GET64(wq, ETHT_SQ_WQ(&c), dbr_addr));
	ck_assert_uint_eq(sq->user_index, 0x1234);
	ck_assert_uint_eq(sq->min_wqe_inline_mode, MLX5_INLINE_MODE_L2);
	ck_assert(sq->flush_in_error_en);
	ck_assert(!sq->allow_swp);
	/* Uses: its CQ, TIS, PD, UAR, ring and doorbell umems. */
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_CQ, env.q.cq), 1);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_TIS, tisn), 1);

	/* QUERY: as created, the counters the engine and the application
	 * moved (wq.hw_counter at wq byte 0x18, sw_counter at 0x1c). */
	atomic_store(&sq->hw.wqebb_counter, 0x10005);
	((uint32_t *)sq->dbr.addr)[EMU_FW_DBR_SND] = htobe32(0x0007);
	sq_query(sqn, &m);
	q = Q_SQC(&m);
	ck_assert_mem_eq(q, ETHT_SQC(&c), PRM_BYTE_OFF(sqc, wq) + 0x18);
	q += PRM_BYTE_OFF(sqc, wq);
	ck_assert_uint_eq(be32toh(*(const uint32_t *)(q + 0x18)), 0x0005);
	ck_assert_uint_eq(be32toh(*(const uint32_t *)(q + 0x1c)), 0x0007);
	emu_fw_obj_put(&sq->obj);

	/* The CQ and TIS cannot go while the SQ uses them. */
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_CQ, env.q.uid, env.q.cq,
			   CQ_IN_USE);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_TIS, env.q.uid, tisn,
			   TIS_IN_USE);
	env.sq_calls = 0;
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_SQ, env.q.uid,
				      sqn), MLX5_CMD_STAT_OK);
	/* The engine was told, the SQ dying, its uses still held. */
	ck_assert_uint_eq(env.sq_calls, 1);
	ck_assert(env.last_dying);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_CQ, env.q.cq), 0);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_TIS, tisn), 0);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_SQ, env.q.uid, sqn,
			   SQ_INVALID);
	etht_id_cmd(&env, &m, MLX5_CMD_OP_QUERY_SQ, sqn,
		    PRM_ST_SZ_BYTES(query_sq_out));
	ck_fw_synd(&m, SQ_INVALID);
}
END_TEST

START_TEST(sq_states)
{
	uint32_t sqn = etht_sq(&env, tisn);
	struct emu_fw_sq *sq = emu_fw_to_sq(etht_get(&env, EMU_FW_OBJ_SQ, sqn));
	struct fwt_mbox m;

	/* RST->ERR is no move; a wrong current state neither. */
	etht_modify_sq(&env, &m, sqn, MLX5_SQC_STATE_RST, MLX5_SQC_STATE_ERR, 0);
	ck_fw_synd(&m, WQ_BAD_STATE_TRANSITION);
	etht_modify_sq(&env, &m, sqn, MLX5_SQC_STATE_RDY, MLX5_SQC_STATE_RDY, 0);
	ck_fw_synd(&m, WQ_BAD_STATE_TRANSITION);
	ck_assert_uint_eq(env.sq_calls, 0);
	/* RST->RDY clears the WQE counter; the engine is told. */
	atomic_store(&sq->hw.wqebb_counter, 9);
	etht_modify_sq(&env, &m, sqn, MLX5_SQC_STATE_RST, MLX5_SQC_STATE_RDY, 0);
	ck_fw_ok(&m);
	ck_assert_uint_eq(emu_fw_sq_state(sq), MLX5_SQC_STATE_RDY);
	ck_assert_uint_eq(atomic_load(&sq->hw.wqebb_counter), 0);
	ck_assert_uint_eq(env.sq_calls, 1);
	ck_assert_uint_eq(env.last_state, MLX5_SQC_STATE_RDY);
	ck_assert(!env.last_dying);
	/* RDY->RDY: no change of state, the engine is not told. */
	etht_modify_sq(&env, &m, sqn, MLX5_SQC_STATE_RDY, MLX5_SQC_STATE_RDY, 0);
	ck_fw_ok(&m);
	ck_assert_uint_eq(env.sq_calls, 1);
	/* No bitmask field is modifiable (no packet pacing, no QoS). */
	etht_modify_sq(&env, &m, sqn, MLX5_SQC_STATE_RDY, MLX5_SQC_STATE_ERR,
		       MLX5_MODIFY_SQ_IN_MODIFY_BITMASK_PACKET_PACING_RATE_LIMIT_INDEX);
	ck_fw_synd(&m, WQ_BAD_BITMASK);
	ck_assert_uint_eq(emu_fw_sq_state(sq), MLX5_SQC_STATE_RDY);
	etht_modify_sq(&env, &m, sqn, MLX5_SQC_STATE_RDY, MLX5_SQC_STATE_ERR, 0);
	ck_fw_ok(&m);
	ck_assert_uint_eq(env.last_state, MLX5_SQC_STATE_ERR);
	/* ERR->RDY goes through RST (DPDK's ERR2RDY does). */
	etht_modify_sq(&env, &m, sqn, MLX5_SQC_STATE_ERR, MLX5_SQC_STATE_RDY, 0);
	ck_fw_synd(&m, WQ_BAD_STATE_TRANSITION);
	etht_modify_sq(&env, &m, sqn, MLX5_SQC_STATE_ERR, MLX5_SQC_STATE_RST, 0);
	ck_fw_ok(&m);
	sq_query(sqn, &m);
	ck_assert_uint_eq(PRM_GET(sqc, Q_SQC(&m), state), MLX5_SQC_STATE_RST);
	etht_modify_sq(&env, &m, sqn + 1, MLX5_SQC_STATE_RST,
		       MLX5_SQC_STATE_RDY, 0);
	ck_fw_synd(&m, SQ_INVALID);

	/* The engine's own move: RDY->ERR only. */
	ck_assert_int_eq(emu_fw_sq_set_error(sq), -EINVAL);
	etht_modify_sq(&env, &m, sqn, MLX5_SQC_STATE_RST, MLX5_SQC_STATE_RDY, 0);
	ck_fw_ok(&m);
	ck_assert_int_eq(emu_fw_sq_set_error(sq), 0);
	ck_assert_uint_eq(emu_fw_sq_state(sq), MLX5_SQC_STATE_ERR);
	emu_fw_obj_put(&sq->obj);
}
END_TEST

START_TEST(sq_refusals)
{
	int mem_users = etht_users(&env, EMU_FW_OBJ_UMEM, env.q.mem.umem_id);

	/* Features not advertised. */
	ck_sq_synd(PRM_SET(sqc, c, rlky, 1), WQ_FEATURE_NOT_SUPPORTED);
	ck_sq_synd(PRM_SET(sqc, c, allow_multi_pkt_send_wqe, 1),
		   WQ_FEATURE_NOT_SUPPORTED);
	ck_sq_synd(PRM_SET(sqc, c, hairpin, 1), WQ_FEATURE_NOT_SUPPORTED);
	ck_sq_synd(PRM_SET(sqc, c, packet_pacing_rate_limit_index, 1),
		   WQ_FEATURE_NOT_SUPPORTED);
	ck_sq_synd(PRM_SET(sqc, c, qos_queue_group_id, 1),
		   WQ_FEATURE_NOT_SUPPORTED);
	ck_sq_synd(PRM_SET(sqc, c, allow_swp, 1), WQ_FEATURE_NOT_SUPPORTED);
	ck_sq_synd(PRM_SET(wq, WQ(c), wq_signature, 1),
		   WQ_FEATURE_NOT_SUPPORTED);
	/* Created in RST only; timestamps as sq_ts_format offers. */
	ck_sq_synd(PRM_SET(sqc, c, state, MLX5_SQC_STATE_RDY), WQ_BAD_STATE);
	ck_sq_synd(PRM_SET(sqc, c, ts_format, 3), WQ_BAD_TS_FORMAT);
	/* The wq: cyclic, 64-byte WQEBBs, at most log_max_wq_sz (15). */
	ck_sq_synd(PRM_SET(wq, WQ(c), wq_type, MLX5_WQ_TYPE_LINKED_LIST),
		   WQ_BAD_TYPE);
	ck_sq_synd(PRM_SET(wq, WQ(c), log_wq_stride, 7), WQ_BAD_STRIDE);
	ck_sq_synd(PRM_SET(wq, WQ(c), log_wq_stride, 5), WQ_BAD_STRIDE);
	ck_sq_synd(PRM_SET(wq, WQ(c), log_wq_sz, 16), WQ_BAD_SIZE);
	/* Inline modes NONE..TCP_UDP (the field has 3 bits). */
	ck_sq_synd(PRM_SET(sqc, c, min_wqe_inline_mode, 4),
		   SQ_BAD_INLINE_MODE);
	/* Exactly one TIS (log_max_tis_per_sq 0), and a live one. */
	ck_sq_synd(PRM_SET(sqc, c, tis_lst_sz, 2), SQ_BAD_TIS);
	ck_sq_synd(PRM_SET(sqc, c, tis_lst_sz, 0), SQ_BAD_TIS);
	ck_sq_synd(PRM_SET(sqc, c, tis_num_0, tisn + 1), SQ_BAD_TIS);
	/* The objects: PD, CQ (the kernel's is fine), UAR. */
	ck_sq_synd(PRM_SET(wq, WQ(c), pd, 0), BAD_PD);
	ck_sq_synd(PRM_SET(sqc, c, cqn, 0), WQ_BAD_CQN);
	ck_sq_synd(PRM_SET(sqc, c, cqn, env.q.cq2 + 100), WQ_BAD_CQN);
	ck_sq_synd(PRM_SET(wq, WQ(c), uar_page, 0x3fff), BAD_UAR);
	/* The memory: umem range, doorbell alignment. */
	ck_sq_synd(PRM_SET64(wq, WQ(c), wq_umem_offset,
			     (uint64_t)QPT_SLOTS * QPT_SLOT_BYTES - 64),
		   UMEM_OUT_OF_RANGE);
	ck_sq_synd(PRM_SET64(wq, WQ(c), dbr_addr, 4), DBR_MISALIGNED);
	ck_sq_synd(PRM_SET(wq, WQ(c), dbr_umem_valid, 0); PRM_SET64(wq, WQ(c),
		   dbr_addr, 0), UMEM_REQUIRED);
	/* Nothing was taken by any of them. */
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_SQ), 0);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_CQ, env.q.cq), 0);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_TIS, tisn), 0);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_UMEM, env.q.mem.umem_id), mem_users);
}
END_TEST

START_TEST(sq_uid)
{
	uint16_t other = fwt_uctx(fw);
	struct fwt_mbox m;
	uint32_t sqn;

	etht_sq_mbox(&env, &m, tisn);
	sqn = etht_create(&env, &m);
	/* Another uid neither modifies, queries nor destroys it. */
	fwt_mbox_init(&m, MLX5_CMD_OP_MODIFY_SQ, 0, other,
		      PRM_ST_SZ_BYTES(modify_sq_in),
		      PRM_ST_SZ_BYTES(modify_sq_out));
	PRM_SET(modify_sq_in, m.in, sqn, sqn);
	PRM_SET(sqc, PRM_ADDR_OF(modify_sq_in, m.in, ctx), state,
		MLX5_SQC_STATE_RDY);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, SQ_INVALID);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_SQ, other, sqn, SQ_INVALID);
	/* Another uid's CQ is refused (the kernel's PD is fine). */
	etht_sq_mbox(&env, &m, tisn);
	PRM_SET(create_sq_in, m.in, uid, other);
	PRM_SET(wq, ETHT_SQ_WQ(&m), pd, fwt_pd(fw, 0));
	fwt_exec(fw, &m);
	ck_fw_synd(&m, WQ_BAD_CQN);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fw_eth_sq");
	TCase *tc = tcase_create("sq");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, sq_lifecycle);
	tcase_add_test(tc, sq_states);
	tcase_add_test(tc, sq_refusals);
	tcase_add_test(tc, sq_uid);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(suite()) ? 1 : 0;
}
