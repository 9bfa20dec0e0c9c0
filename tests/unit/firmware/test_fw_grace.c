/* SPDX-License-Identifier: MIT */
/*
 * A destroy answers only when no reader can still reach the object or its
 * memory: a thread inside emu_fw_rcu_lock() holds an object it looked up
 * (no reference) while another destroys it.  The destroy of every type
 * through which memory is reached must not return before the reader
 * unlocks, and what the reader loaded must not change under it.  The
 * types that lead to no memory (a PD here) do not wait.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_fw_qp_util.h"

#define HOLD_US 150000

enum { HOLD_START, HOLD_HOLDING, HOLD_DONE, HOLD_MISSING };

struct hold {
	struct emu_fw *fw;
	enum emu_fw_obj_type type;
	uint32_t id;
	pthread_t th;
	atomic_int state;
	bool intact;		/* what it followed was unchanged at unlock */
};

static uintptr_t follow_buf(const struct emu_fw_buf *b)
{
	/* Touch the memory too: it must still be there. */
	return (uintptr_t)b->umem + (uintptr_t)b->addr + b->len +
	       (b->addr ? *(volatile const uint8_t *)b->addr : 0);
}

/* A sum of everything a reader of this object may follow. */
static uintptr_t follow(struct emu_fw_obj *obj)
{
	uintptr_t v = obj->id;

	switch (obj->type) {
	case EMU_FW_OBJ_CQ: {
		struct emu_fw_cq *cq = emu_fw_to_cq(obj);

		return v + (uintptr_t)atomic_load(&cq->eq) +
		       (uintptr_t)cq->uar + follow_buf(&cq->buf) +
		       follow_buf(&cq->dbr);
	}
	case EMU_FW_OBJ_EQ: {
		struct emu_fw_eq *eq = emu_fw_to_eq(obj);

		return v + (uintptr_t)eq->uar + follow_buf(&eq->buf);
	}
	case EMU_FW_OBJ_MKEY: {
		struct emu_fw_mkey *mk = emu_fw_to_mkey(obj);

		return v + (uintptr_t)mk->pd + follow_buf(&mk->mem);
	}
	case EMU_FW_OBJ_UMEM: {
		struct emu_fw_umem *um = emu_fw_to_umem(obj);

		return v + (uintptr_t)um->addr + um->size +
		       *(volatile const uint8_t *)um->addr;
	}
	case EMU_FW_OBJ_QP: {
		struct emu_fw_qp *qp = emu_fw_to_qp(obj);

		return v + (uintptr_t)atomic_load(&qp->cq_snd) +
		       (uintptr_t)atomic_load(&qp->cq_rcv) +
		       (uintptr_t)atomic_load(&qp->srq) +
		       (uintptr_t)atomic_load(&qp->counter) +
		       (uintptr_t)qp->pd + (uintptr_t)qp->uar +
		       follow_buf(&qp->buf) + follow_buf(&qp->dbr);
	}
	case EMU_FW_OBJ_SRQ: {
		struct emu_fw_srq *srq = emu_fw_to_srq(obj);

		return v + (uintptr_t)srq->pd + (uintptr_t)srq->cq +
		       follow_buf(&srq->buf) + follow_buf(&srq->dbr);
	}
	default:
		return v;
	}
}

static void *hold_main(void *arg)
{
	struct hold *h = arg;
	struct emu_fw_obj *obj;
	uintptr_t before;

	emu_fw_rcu_lock();
	obj = emu_fw_obj_lookup_rcu(h->fw, h->type, h->id);
	if (!obj) {
		atomic_store(&h->state, HOLD_MISSING);
		emu_fw_rcu_unlock();
		return NULL;
	}
	before = follow(obj);
	atomic_store(&h->state, HOLD_HOLDING);
	usleep(HOLD_US);
	h->intact = follow(obj) == before;
	atomic_store(&h->state, HOLD_DONE);
	emu_fw_rcu_unlock();
	return NULL;
}

/* A reader holds type/id (looked up, no reference) when this returns. */
static void hold_start(struct hold *h, struct emu_fw *fw,
		       enum emu_fw_obj_type type, uint32_t id)
{
	h->fw = fw;
	h->type = type;
	h->id = id;
	h->intact = false;
	atomic_init(&h->state, HOLD_START);
	ck_assert_int_eq(pthread_create(&h->th, NULL, hold_main, h), 0);
	while (atomic_load(&h->state) == HOLD_START)
		usleep(1000);
	ck_assert_int_eq(atomic_load(&h->state), HOLD_HOLDING);
}

/* Destroy while held: the destroy must return only after the reader let
 * go (wait) or while it still holds (!wait). */
static void ck_destroy_vs_reader(struct emu_fw *fw, enum emu_fw_obj_type type,
				 uint32_t id, uint16_t opcode, uint16_t uid,
				 bool wait)
{
	struct hold h;

	hold_start(&h, fw, type, id);
	ck_assert_int_eq(fwt_destroy(fw, opcode, uid, id), MLX5_CMD_STAT_OK);
	ck_assert_msg(atomic_load(&h.state) == (wait ? HOLD_DONE : HOLD_HOLDING),
		      "%s: the destroy %s for the reader",
		      emu_fw_obj_type_name(type), wait ? "did not wait" :
		      "waited");
	ck_assert_int_eq(pthread_join(h.th, NULL), 0);
	ck_assert_msg(h.intact, "%s: what the reader loaded changed under it",
		      emu_fw_obj_type_name(type));
	ck_assert_ptr_null(emu_fw_obj_get(fw, type, id));
}

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

START_TEST(cq_waits)
{
	uint32_t cqn = fwt_cq(fw, env.uid, env.eqn, env.uar, 6,
			      env.cqmem[1].umem_id, env.cqdbr[1].umem_id);

	/* env.cq2 lives in the same umems: drop it first. */
	ck_destroy_vs_reader(fw, EMU_FW_OBJ_CQ, env.cq2,
			     MLX5_CMD_OP_DESTROY_CQ, env.uid, true);
	ck_destroy_vs_reader(fw, EMU_FW_OBJ_CQ, cqn, MLX5_CMD_OP_DESTROY_CQ,
			     env.uid, true);
}
END_TEST

START_TEST(eq_waits)
{
	struct fwt_mem mem;
	uint32_t eqn;

	fwt_mem_reg(fw, 0, 4096, &mem);
	eqn = fwt_eq(fw, 0, fwt_uar(fw, 0), 6, &mem);
	ck_destroy_vs_reader(fw, EMU_FW_OBJ_EQ, eqn, MLX5_CMD_OP_DESTROY_EQ,
			     0, true);
	fwt_mem_free(&mem);
}
END_TEST

START_TEST(mkey_waits)
{
	uint32_t mk = fwt_mkey(fw, env.uid, env.pd, env.mem.umem_id, 0, 8192,
			       (uintptr_t)env.mem.addr);

	ck_destroy_vs_reader(fw, EMU_FW_OBJ_MKEY, mk, MLX5_CMD_OP_DESTROY_MKEY,
			     env.uid, true);
}
END_TEST

START_TEST(umem_waits)
{
	struct fwt_mem mem;

	fwt_mem_reg(fw, env.uid, 8192, &mem);
	ck_destroy_vs_reader(fw, EMU_FW_OBJ_UMEM, mem.umem_id,
			     MLX5_CMD_OP_DESTROY_UMEM, env.uid, true);
	fwt_mem_free(&mem);
}
END_TEST

START_TEST(qp_waits)
{
	uint32_t qpn = qpt_create(&env, QPT_RC);

	ck_destroy_vs_reader(fw, EMU_FW_OBJ_QP, qpn, MLX5_CMD_OP_DESTROY_QP,
			     env.uid, true);
}
END_TEST

START_TEST(srq_waits)
{
	uint32_t srqn = qpt_srq(&env);

	ck_destroy_vs_reader(fw, EMU_FW_OBJ_SRQ, srqn, MLX5_CMD_OP_DESTROY_SRQ,
			     env.uid, true);
}
END_TEST

START_TEST(uar_waits)
{
	uint32_t uar = fwt_uar(fw, env.uid);

	ck_destroy_vs_reader(fw, EMU_FW_OBJ_UAR, uar, MLX5_CMD_OP_DEALLOC_UAR,
			     env.uid, true);
}
END_TEST

/* No memory lies behind a PD: its dealloc costs no grace period (the
 * deferred free still keeps the PD readable for the reader). */
START_TEST(pd_does_not_wait)
{
	uint32_t pd = fwt_pd(fw, env.uid);

	ck_destroy_vs_reader(fw, EMU_FW_OBJ_PD, pd, MLX5_CMD_OP_DEALLOC_PD,
			     env.uid, false);
}
END_TEST

static Suite *fw_grace_suite(void)
{
	Suite *s = suite_create("fw_grace");
	TCase *tc = tcase_create("destroy_vs_reader");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, cq_waits);
	tcase_add_test(tc, eq_waits);
	tcase_add_test(tc, mkey_waits);
	tcase_add_test(tc, umem_waits);
	tcase_add_test(tc, qp_waits);
	tcase_add_test(tc, srq_waits);
	tcase_add_test(tc, uar_waits);
	tcase_add_test(tc, pd_does_not_wait);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fw_grace_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
