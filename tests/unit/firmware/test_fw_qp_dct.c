/* SPDX-License-Identifier: MIT */
/*
 * DC: CREATE_DCT / QUERY_DCT / DRAIN_DCT / ARM_DCT_FOR_KEY_VIOLATION /
 * DESTROY_DCT, every validation of the create, the shared QP/DCT number
 * space, the engine hooks; DCIs walk to RTS as QPs (test_fw_qp_sm.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "test_fw_qp_util.h"

static struct emu_fw *fw;
static struct qpt_env env;

static void setup(void)
{
	qpt_fixture_init(&fw, &env);
}

static void teardown(void)
{
	qpt_fixture_fini(&fw, &env);
}

#define DCTC(m) QPT_DCTC(m)

static void dct_mbox(struct fwt_mbox *m)
{
	qpt_dct_mbox(&env, m);
}

static uint32_t dct_create(void)
{
	struct fwt_mbox m;

	dct_mbox(&m);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	return PRM_GET(create_dct_out, m.out, dctn);
}

static void dct_query(uint32_t dctn, struct fwt_mbox *m, uint16_t uid)
{
	fwt_mbox_init(m, MLX5_CMD_OP_QUERY_DCT, 0, uid,
		      PRM_ST_SZ_BYTES(query_dct_in),
		      PRM_ST_SZ_BYTES(query_dct_out));
	PRM_SET(query_dct_in, m->in, dctn, dctn);
	fwt_exec(fw, m);
}

static void dct_cmd(uint16_t op, uint32_t dctn, struct fwt_mbox *m,
		    uint16_t uid)
{
	fwt_mbox_init(m, op, 0, uid, PRM_ST_SZ_BYTES(drain_dct_in),
		      PRM_ST_SZ_BYTES(drain_dct_out));
	PRM_SET(drain_dct_in, m->in, dctn, dctn);
	fwt_exec(fw, m);
}

#define QD(m) PRM_ADDR_OF(query_dct_out, (m)->out, dct_context_entry)

START_TEST(dct_lifecycle)
{
	struct fwt_mbox c, m;
	struct emu_fw_qp *dct;
	struct emu_fw_qp_attr a;
	uint32_t dctn;

	dct_mbox(&c);
	fwt_exec(fw, &c);
	ck_fw_ok(&c);
	dctn = PRM_GET(create_dct_out, c.out, dctn);
	ck_assert_uint_ge(dctn, 0x100);
	/* QUERY_DCT: the context as created, ACTIVE. */
	dct_query(dctn, &m, env.uid);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(dctc, QD(&m), state), MLX5_DCTC_STATE_ACTIVE);
	ck_assert_mem_eq(QD(&m), DCTC(&c), PRM_ST_SZ_BYTES(dctc));

	/* Engines: the responder attributes. */
	dct = qpt_get(fw, dctn);
	ck_assert_uint_eq(dct->kind, EMU_FW_QP_KIND_DCT);
	emu_fw_qp_get_attr(dct, &a, NULL);
	ck_assert_uint_eq(a.mtu, MLX5_QPC_MTU_1K_BYTES);
	ck_assert_uint_eq(a.dc_access_key, UINT64_C(0x1122334455667788));
	ck_assert_uint_eq(a.pri.sgid_index, QPT_GID_V2);
	ck_assert_uint_eq(a.pri.flow_label, 0x54321);
	ck_assert(a.rre && a.rwe && a.rae);
	ck_assert_uint_eq(atomic_load(&dct->srq)->obj.id, env.srq);
	ck_assert_uint_eq(atomic_load(&dct->cq_rcv)->obj.id, env.cq);
	ck_assert_uint_eq(dct->user_index, 0x77);

	/* Key violations: counted; reported once when armed. */
	ck_assert(!emu_fw_dct_key_violation(dct));
	dct_cmd(MLX5_CMD_OP_ARM_DCT_FOR_KEY_VIOLATION, dctn, &m, env.uid);
	ck_fw_ok(&m);
	ck_assert(emu_fw_dct_key_violation(dct));
	ck_assert(!emu_fw_dct_key_violation(dct));
	dct_query(dctn, &m, env.uid);
	ck_assert_uint_eq(PRM_GET(dctc, QD(&m), dc_access_key_violation_count),
			  3);

	/* Drain: DRAINED, one event; a second drain is a no-op. */
	ck_assert(!emu_fw_dct_take_drained(dct));
	dct_cmd(MLX5_CMD_OP_DRAIN_DCT, dctn, &m, env.uid);
	ck_fw_ok(&m);
	dct_query(dctn, &m, env.uid);
	ck_assert_uint_eq(PRM_GET(dctc, QD(&m), state), MLX5_DCTC_STATE_DRAINED);
	ck_assert(emu_fw_dct_take_drained(dct));
	ck_assert(!emu_fw_dct_take_drained(dct));
	dct_cmd(MLX5_CMD_OP_DRAIN_DCT, dctn, &m, env.uid);
	ck_fw_ok(&m);
	ck_assert(!emu_fw_dct_take_drained(dct));
	emu_fw_obj_put(&dct->obj);

	/* Its SRQ, CQ and PD are in use. */
	dct_cmd(MLX5_CMD_OP_DESTROY_SRQ, env.srq, &m, env.uid);
	ck_fw_synd(&m, SRQ_IN_USE);
	dct_cmd(MLX5_CMD_OP_DESTROY_CQ, env.cq, &m, env.uid);
	ck_fw_synd(&m, CQ_IN_USE);
	dct_cmd(MLX5_CMD_OP_DEALLOC_PD, env.pd, &m, env.uid);
	ck_fw_synd(&m, PD_IN_USE);

	dct_cmd(MLX5_CMD_OP_DESTROY_DCT, dctn, &m, env.uid);
	ck_fw_ok(&m);
	dct_query(dctn, &m, env.uid);
	ck_fw_synd(&m, DCT_INVALID);
	dct_cmd(MLX5_CMD_OP_DESTROY_DCT, dctn, &m, env.uid);
	ck_fw_synd(&m, DCT_INVALID);
	dct_cmd(MLX5_CMD_OP_DESTROY_SRQ, env.srq, &m, env.uid);
	ck_fw_ok(&m);
	dct_cmd(MLX5_CMD_OP_DESTROY_CQ, env.cq, &m, env.uid);
	ck_fw_ok(&m);
}
END_TEST

/* Destroy without a drain, in any state. */
START_TEST(dct_destroy_active)
{
	struct fwt_mbox m;
	uint32_t dctn = dct_create();

	dct_cmd(MLX5_CMD_OP_DESTROY_DCT, dctn, &m, env.uid);
	ck_fw_ok(&m);
}
END_TEST

#define ck_dct_synd(stmt, ID)						\
	ck_fw_variant(fw, dct_mbox(&m_), c, DCTC(&m_), stmt, ID)

START_TEST(dct_create_rules)
{
	uint16_t other = fwt_uctx(fw);
	uint32_t opd = fwt_pd(fw, other);
	uint32_t qc = qpt_q_counter(fw, env.uid);
	uint32_t rc = qpt_create(&env, QPT_RC);

	ck_dct_synd(PRM_SET(dctc, c, pd, 0), BAD_PD);
	ck_dct_synd(PRM_SET(dctc, c, pd, opd), BAD_PD);
	ck_dct_synd(PRM_SET(dctc, c, cqn, 0), QP_BAD_CQN);
	ck_dct_synd(PRM_SET(dctc, c, cqn, 0x333333), QP_BAD_CQN);
	ck_dct_synd(PRM_SET(dctc, c, srqn_xrqn, 0), QP_BAD_SRQN);
	ck_dct_synd(PRM_SET(dctc, c, srqn_xrqn, 0x333333), QP_BAD_SRQN);
	ck_dct_synd(PRM_SET(dctc, c, mtu, 0), QP_BAD_MTU);
	ck_dct_synd(PRM_SET(dctc, c, mtu, 6), QP_BAD_MTU);
	ck_dct_synd(PRM_SET(dctc, c, port, 0), QP_BAD_PORT);
	ck_dct_synd(PRM_SET(dctc, c, port, 2), QP_BAD_PORT);
	ck_dct_synd(PRM_SET(dctc, c, pkey_index, 128), QP_BAD_PKEY_INDEX);
	ck_dct_synd(PRM_SET(dctc, c, my_addr_index, QPT_GID_EMPTY),
		    QP_BAD_GID_INDEX);
	ck_dct_synd(PRM_SET(dctc, c, counter_set_id, qc + 1), QP_BAD_COUNTER);
	ck_dct_synd(PRM_SET(dctc, c, counter_set_id, qc), OK);
	ck_dct_synd(PRM_SET(dctc, c, atomic_mode,
			    MLX5_QPC_ATOMIC_MODE_UP_TO_16B), QP_BAD_ATOMIC_MODE);
	ck_dct_synd(PRM_SET(dctc, c, cs_res, MLX5_QPC_CS_RES_UP_TO_32B),
		    QP_FEATURE_NOT_SUPPORTED);
	ck_dct_synd(PRM_SET(dctc, c, rlky, 1), QP_FEATURE_NOT_SUPPORTED);
	/* Numbers: QP commands on a DCT and DCT commands on a QP. */
	{
		uint32_t dctn = dct_create();
		struct fwt_mbox m;

		qpt_tr_mbox(&m, MLX5_CMD_OP_2ERR_QP, env.uid, dctn, 0);
		fwt_exec(fw, &m);
		ck_fw_synd(&m, QP_BAD_QPN_FOR_DCT);
		fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_QP, 0, env.uid,
			      PRM_ST_SZ_BYTES(query_qp_in),
			      PRM_BYTE_OFF(query_qp_out, pas));
		PRM_SET(query_qp_in, m.in, qpn, dctn);
		fwt_exec(fw, &m);
		ck_fw_synd(&m, QP_BAD_QPN_FOR_DCT);
		fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_QP, env.uid, dctn);
		ck_fw_synd(&m, QP_BAD_QPN_FOR_DCT);
		dct_query(rc, &m, env.uid);
		ck_fw_synd(&m, QP_BAD_QPN_FOR_DCT);
		dct_cmd(MLX5_CMD_OP_DRAIN_DCT, rc, &m, env.uid);
		ck_fw_synd(&m, QP_BAD_QPN_FOR_DCT);
		dct_cmd(MLX5_CMD_OP_DESTROY_DCT, rc, &m, env.uid);
		ck_fw_synd(&m, QP_BAD_QPN_FOR_DCT);
		/* Owner only. */
		dct_query(dctn, &m, other);
		ck_fw_synd(&m, DCT_INVALID);
		dct_cmd(MLX5_CMD_OP_ARM_DCT_FOR_KEY_VIOLATION, dctn, &m, other);
		ck_fw_synd(&m, DCT_INVALID);
		dct_cmd(MLX5_CMD_OP_DESTROY_DCT, dctn, &m, 0);
		ck_fw_synd(&m, DCT_INVALID);
		ck_assert_uint_ne(dctn, rc);
	}
}
END_TEST

static void no_dc(struct emu_fw_caps *caps)
{
	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_GENERAL, "dct", 0), 0);
}

START_TEST(dct_not_advertised)
{
	struct emu_fw *f2 = qpt_fw(no_dc);
	struct qpt_env e2;
	struct fwt_mbox m;
	void *c;

	qpt_env_init(&e2, f2, true);
	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_DCT, 0, e2.uid,
		      PRM_ST_SZ_BYTES(create_dct_in),
		      PRM_ST_SZ_BYTES(create_dct_out));
	c = DCTC(&m);
	PRM_SET(dctc, c, pd, e2.pd);
	PRM_SET(dctc, c, srqn_xrqn, e2.srq);
	PRM_SET(dctc, c, cqn, e2.cq);
	fwt_exec(f2, &m);
	ck_fw_synd(&m, QP_BAD_ST);
	emu_fw_destroy(f2);
	qpt_env_fini(&e2);
}
END_TEST

/* A DC initiator and a DC target on one device, the DCI to RTS. */
START_TEST(dct_with_dci)
{
	uint32_t dci = qpt_create(&env, QPT_DCI);
	uint32_t dctn = dct_create();
	struct emu_fw_qp *qp;
	struct emu_fw_qp_attr a;

	qpt_to_rts(&env, dci, QPT_DCI);
	ck_assert_uint_eq(qpt_state(&env, dci), MLX5_QPC_STATE_RTS);
	qp = qpt_get(fw, dci);
	emu_fw_qp_get_attr(qp, &a, NULL);
	ck_assert_uint_eq(a.retry_count, 7);
	ck_assert_uint_eq(a.log_sra_max, 3);
	emu_fw_obj_put(&qp->obj);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_QP), 2);
	(void)dctn;
}
END_TEST

static Suite *dct_suite(void)
{
	Suite *s = suite_create("fw_dct");
	TCase *tc = tcase_create("dct");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, dct_lifecycle);
	tcase_add_test(tc, dct_destroy_active);
	tcase_add_test(tc, dct_create_rules);
	tcase_add_test(tc, dct_not_advertised);
	tcase_add_test(tc, dct_with_dci);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(dct_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
