/* SPDX-License-Identifier: MIT */
/*
 * Receive queue tables: CREATE/MODIFY/QUERY/DESTROY_RQT -- sizes, the list
 * and the uses it holds, every refusal with its syndrome; MODIFY_RQT's
 * replacement of the list under a reader (the old list and its RQs stay
 * readable until the reader unlocks); and the grace period of the Ethernet
 * queue destroys (SQ, RQ, RQT, TIR wait for readers, a TIS does not).
 */
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "test_fw_eth_util.h"
#include "ut_run.h"

#define HOLD_US 150000

static struct emu_fw *fw;
static struct etht_env env;
static uint32_t rq[4];

static void setup(void)
{
	etht_init(&fw, &env);
	for (int i = 0; i < 4; i++)
		rq[i] = etht_rq(&env);
}

static void teardown(void)
{
	etht_fini(&fw, &env);
}

#define ck_rqt_synd(stmt, ID)						\
	ck_fw_variant(fw, etht_rqt_mbox(&env, &m_, 8, rq, 4), c,	\
		      ETHT_RQTC(&m_), stmt, ID)
#define Q_RQTC(m) PRM_ADDR_OF(query_rqt_out, (m)->out, rqt_context)

/* QUERY_RQT with room for n entries. */
static void rqt_query(uint32_t rqtn, struct fwt_mbox *m, size_t n)
{
	etht_id_cmd(&env, m, MLX5_CMD_OP_QUERY_RQT, rqtn,
		    PRM_ST_SZ_BYTES(query_rqt_out) + 4 * n);
	ck_fw_ok(m);
}

/* Entry i of a queried list, read as bytes: rq_num[i] is the 24 low bits
 * of the big-endian dword at rqtc byte 0xf0 + 4i. */
static uint32_t q_entry(struct fwt_mbox *m, unsigned int i)
{
	const uint8_t *p = (const uint8_t *)Q_RQTC(m) + 0xf0 + 4 * i;

	return (uint32_t)p[1] << 16 | p[2] << 8 | p[3];
}

START_TEST(rqt_lifecycle)
{
	uint32_t list[5] = { rq[0], rq[1], rq[0], rq[2], rq[3] };
	struct emu_fw_rqt_list *l;
	struct emu_fw_rqt *rqt;
	struct fwt_mbox m;
	uint32_t rqtn;

	rqtn = etht_rqt(&env, 8, list, 5);
	/* Each entry holds a use (rq[0] twice). */
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQ, rq[0]), 2);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQ, rq[1]), 1);
	rqt = emu_fw_to_rqt(etht_get(&env, EMU_FW_OBJ_RQT, rqtn));
	ck_assert_uint_eq(rqt->max_size, 8);
	l = atomic_load(&rqt->list);
	ck_assert_uint_eq(l->size, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(l->rq[i]->obj.id, list[i]);
	emu_fw_obj_put(&rqt->obj);

	rqt_query(rqtn, &m, 8);
	ck_assert_uint_eq(PRM_GET(rqtc, Q_RQTC(&m), rqt_max_size), 8);
	ck_assert_uint_eq(PRM_GET(rqtc, Q_RQTC(&m), rqt_actual_size), 5);
	for (unsigned int i = 0; i < 5; i++)
		ck_assert_uint_eq(q_entry(&m, i), list[i]);
	/* An outbox with room for 2 gets 2; the sizes still say 5. */
	rqt_query(rqtn, &m, 2);
	ck_assert_uint_eq(PRM_GET(rqtc, Q_RQTC(&m), rqt_actual_size), 5);
	ck_assert_uint_eq(q_entry(&m, 1), list[1]);

	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_RQ, env.q.uid, rq[2],
			   RQ_IN_USE);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_RQT, env.q.uid,
				      rqtn), MLX5_CMD_STAT_OK);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQ, rq[0]), 0);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_RQT, env.q.uid, rqtn,
			   RQT_INVALID);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_RQ, env.q.uid,
				      rq[2]), MLX5_CMD_STAT_OK);
}
END_TEST

START_TEST(rqt_refusals)
{
	uint16_t other = fwt_uctx(fw);
	struct fwt_mbox m;

	ck_rqt_synd(PRM_SET(rqtc, c, rqt_max_size, 0), RQT_BAD_SIZE);
	/* log_max_rqt_size 11: 2048 entries at most. */
	ck_rqt_synd(PRM_SET(rqtc, c, rqt_max_size, 2049), RQT_BAD_SIZE);
	ck_rqt_synd(PRM_SET(rqtc, c, rqt_actual_size, 0), RQT_BAD_SIZE);
	ck_rqt_synd(PRM_SET(rqtc, c, rqt_max_size, 3), RQT_BAD_SIZE);
	/* More entries announced than the inbox holds. */
	ck_rqt_synd(PRM_SET(rqtc, c, rqt_actual_size, 5), BAD_INLEN);
	ck_rqt_synd(PRM_SET(rq_num, PRM_ARRAY_ADDR(rqtc, c, rq_num, 3), rq_num,
			    rq[3] + 100), RQT_BAD_RQN);
	ck_rqt_synd(PRM_SET(rqtc, c, list_q_type, 1),
		    RQT_FEATURE_NOT_SUPPORTED);
	ck_rqt_synd(PRM_SET(rqtc, c, rq_vhca_id_format, 1),
		    RQT_FEATURE_NOT_SUPPORTED);
	/* Nothing taken by any of them. */
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQ, rq[i]), 0);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_RQT), 0);
	/* Another uid's RQs are not for this one's table. */
	etht_rqt_mbox(&env, &m, 8, rq, 4);
	PRM_SET(create_rqt_in, m.in, uid, other);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, RQT_BAD_RQN);
}
END_TEST

static void rqt_modify_mbox(uint32_t rqtn, struct fwt_mbox *m,
			    bool list_bit, const uint32_t *rqns, uint32_t n)
{
	void *c = PRM_ADDR_OF(modify_rqt_in, m->in, ctx);

	fwt_mbox_init(m, MLX5_CMD_OP_MODIFY_RQT, 0, env.q.uid,
		      PRM_ST_SZ_BYTES(modify_rqt_in) + 4 * (size_t)n,
		      PRM_ST_SZ_BYTES(modify_rqt_out));
	PRM_SET(modify_rqt_in, m->in, rqtn, rqtn);
	PRM_SET(rqt_bitmask, PRM_ADDR_OF(modify_rqt_in, m->in, bitmask),
		rqn_list, list_bit);
	PRM_SET(rqtc, c, rqt_actual_size, n);
	for (uint32_t i = 0; i < n; i++)
		PRM_SET(rq_num, PRM_ARRAY_ADDR(rqtc, c, rq_num, i), rq_num,
			rqns[i]);
}

static uint8_t rqt_modify(uint32_t rqtn, struct fwt_mbox *m, bool list_bit,
			  const uint32_t *rqns, uint32_t n)
{
	rqt_modify_mbox(rqtn, m, list_bit, rqns, n);
	return fwt_exec(fw, m);
}

START_TEST(rqt_modify_list)
{
	uint32_t rqtn = etht_rqt(&env, 4, rq, 2);
	uint32_t next[3] = { rq[2], rq[3], rq[2] };
	uint32_t bad[2] = { rq[1], rq[3] + 100 };
	struct fwt_mbox m;
	uint8_t *bm;

	rqt_modify(rqtn, &m, true, next, 3);
	ck_fw_ok(&m);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQ, rq[0]), 0);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQ, rq[2]), 2);
	rqt_query(rqtn, &m, 4);
	ck_assert_uint_eq(PRM_GET(rqtc, Q_RQTC(&m), rqt_actual_size), 3);
	ck_assert_uint_eq(PRM_GET(rqtc, Q_RQTC(&m), rqt_max_size), 4);
	ck_assert_uint_eq(q_entry(&m, 0), rq[2]);
	ck_assert_uint_eq(q_entry(&m, 1), rq[3]);
	/* The old RQs are free to go. */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_RQ, env.q.uid,
				      rq[0]), MLX5_CMD_STAT_OK);
	/* Refused changes leave the list and the uses as they were. */
	rqt_modify(rqtn, &m, true, bad, 2);
	ck_fw_synd(&m, RQT_BAD_RQN);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQ, rq[1]), 0);
	rqt_modify(rqtn, &m, true, next, 0);
	ck_fw_synd(&m, RQT_BAD_SIZE);
	/* Above rqt_max_size (4) fixed at create. */
	{
		uint32_t five[5] = { rq[1], rq[1], rq[1], rq[1], rq[1] };

		rqt_modify(rqtn, &m, true, five, 5);
		ck_fw_synd(&m, RQT_BAD_SIZE);
	}
	rqt_modify_mbox(rqtn, &m, true, next, 2);
	bm = PRM_ADDR_OF(modify_rqt_in, m.in, bitmask);
	bm[0] = 0x80;
	fwt_exec(fw, &m);
	ck_fw_synd(&m, RQT_BAD_BITMASK);
	/* No rqn_list bit: nothing changes. */
	rqt_modify(rqtn, &m, false, &rq[1], 1);
	ck_fw_ok(&m);
	rqt_query(rqtn, &m, 4);
	ck_assert_uint_eq(PRM_GET(rqtc, Q_RQTC(&m), rqt_actual_size), 3);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQ, rq[2]), 2);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQ, rq[3]), 1);
	rqt_modify(rqtn + 1, &m, true, next, 2);
	ck_fw_synd(&m, RQT_INVALID);
}
END_TEST

/* ---- readers ---- */

enum { HOLD_START, HOLD_HOLDING, HOLD_DONE, HOLD_MISSING };

struct hold {
	enum emu_fw_obj_type type;
	uint32_t id;
	pthread_t th;
	atomic_int state;
	bool intact;
	struct emu_fw_rqt_list *list;	/* an RQT's, loaded once */
};

/* What a reader follows: an RQT's list and its RQs' rings, a TIR's RQ or
 * RQT and hash, a queue's ring and doorbell. */
static uintptr_t follow(struct hold *h, struct emu_fw_obj *o)
{
	uintptr_t v = o->id;

	switch (o->type) {
	case EMU_FW_OBJ_RQT: {
		struct emu_fw_rqt_list *l = h->list;

		v += l->size;
		for (uint32_t i = 0; i < l->size; i++)
			v += l->rq[i]->obj.id +
			     *(volatile const uint8_t *)l->rq[i]->ring.addr;
		return v;
	}
	case EMU_FW_OBJ_TIR: {
		struct emu_fw_tir *t = emu_fw_to_tir(o);
		struct emu_fw_tir_hash *hs = atomic_load(&t->hash);

		return v + (uintptr_t)t->rq + (uintptr_t)t->rqt +
		       (uintptr_t)t->td + (hs ? hs->key[39] + hs->fn : 0);
	}
	case EMU_FW_OBJ_SQ: {
		struct emu_fw_sq *q = emu_fw_to_sq(o);

		return v + (uintptr_t)q->cq + (uintptr_t)q->tis +
		       *(volatile const uint8_t *)q->ring.addr +
		       *(volatile const uint8_t *)q->dbr.addr;
	}
	case EMU_FW_OBJ_RQ: {
		struct emu_fw_rq *q = emu_fw_to_rq(o);

		return v + (uintptr_t)q->cq +
		       *(volatile const uint8_t *)q->ring.addr +
		       *(volatile const uint8_t *)q->dbr.addr;
	}
	default:
		return v;
	}
}

static void *hold_main(void *arg)
{
	struct hold *h = arg;
	struct emu_fw_obj *o;
	uintptr_t before;

	emu_fw_rcu_lock();
	o = emu_fw_obj_lookup_rcu(fw, h->type, h->id);
	if (!o) {
		atomic_store(&h->state, HOLD_MISSING);
		emu_fw_rcu_unlock();
		return NULL;
	}
	if (o->type == EMU_FW_OBJ_RQT)
		h->list = atomic_load(&emu_fw_to_rqt(o)->list);
	before = follow(h, o);
	atomic_store(&h->state, HOLD_HOLDING);
	usleep(HOLD_US);
	h->intact = follow(h, o) == before;
	atomic_store(&h->state, HOLD_DONE);
	emu_fw_rcu_unlock();
	return NULL;
}

static void hold_start(struct hold *h, enum emu_fw_obj_type type, uint32_t id)
{
	h->type = type;
	h->id = id;
	h->intact = false;
	h->list = NULL;
	atomic_init(&h->state, HOLD_START);
	ck_assert_int_eq(pthread_create(&h->th, NULL, hold_main, h), 0);
	while (atomic_load(&h->state) == HOLD_START)
		usleep(1000);
	ck_assert_int_eq(atomic_load(&h->state), HOLD_HOLDING);
}

static void hold_join(struct hold *h)
{
	ck_assert_int_eq(pthread_join(h->th, NULL), 0);
	ck_assert_msg(h->intact, "what the reader loaded changed under it");
}

/* MODIFY_RQT under a reader of the old list: the command answers at once,
 * the old RQ's destroy waits for the reader, who saw its list intact. */
START_TEST(rqt_modify_under_reader)
{
	uint32_t rqtn = etht_rqt(&env, 2, &rq[0], 1);
	struct fwt_mbox m;
	struct hold h;

	hold_start(&h, EMU_FW_OBJ_RQT, rqtn);
	rqt_modify(rqtn, &m, true, &rq[1], 1);
	ck_fw_ok(&m);
	ck_assert_int_eq(atomic_load(&h.state), HOLD_HOLDING);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_RQ, env.q.uid,
				      rq[0]), MLX5_CMD_STAT_OK);
	ck_assert_int_eq(atomic_load(&h.state), HOLD_DONE);
	hold_join(&h);
}
END_TEST

static void ck_destroy_vs_reader(enum emu_fw_obj_type type, uint32_t id,
				 uint16_t opcode, bool wait)
{
	struct hold h;

	hold_start(&h, type, id);
	ck_assert_int_eq(fwt_destroy(fw, opcode, env.q.uid, id),
			 MLX5_CMD_STAT_OK);
	ck_assert_msg(atomic_load(&h.state) ==
		      (wait ? HOLD_DONE : HOLD_HOLDING),
		      "%s: the destroy %s for the reader",
		      emu_fw_obj_type_name(type),
		      wait ? "did not wait" : "waited");
	hold_join(&h);
	ck_assert_ptr_null(emu_fw_obj_get(fw, type, id));
}

START_TEST(destroys_wait)
{
	uint32_t tisn = etht_tis(&env);
	uint32_t sqn = etht_sq(&env, tisn);
	uint32_t rqtn = etht_rqt(&env, 4, rq, 4);
	struct fwt_mbox m;
	uint32_t tirn;

	etht_tir_indirect_mbox(&env, &m, rqtn);
	tirn = etht_create(&env, &m);
	ck_destroy_vs_reader(EMU_FW_OBJ_TIR, tirn, MLX5_CMD_OP_DESTROY_TIR,
			     true);
	ck_destroy_vs_reader(EMU_FW_OBJ_RQT, rqtn, MLX5_CMD_OP_DESTROY_RQT,
			     true);
	ck_destroy_vs_reader(EMU_FW_OBJ_RQ, rq[0], MLX5_CMD_OP_DESTROY_RQ,
			     true);
	ck_destroy_vs_reader(EMU_FW_OBJ_SQ, sqn, MLX5_CMD_OP_DESTROY_SQ, true);
	/* No memory lies behind a TIS. */
	ck_destroy_vs_reader(EMU_FW_OBJ_TIS, tisn, MLX5_CMD_OP_DESTROY_TIS,
			     false);
}
END_TEST

/* Readers spreading over an RQT and hashing with a TIR while both are
 * replaced over and over: every list and hash a reader loads is whole
 * (ThreadSanitizer checks the publication and the deferred frees). */
struct spin {
	uint32_t rqtn, tirn;
	atomic_bool stop;
	atomic_ulong seen;
	bool whole;
};

static void *spin_main(void *arg)
{
	struct spin *sp = arg;

	sp->whole = true;
	while (!atomic_load(&sp->stop)) {
		struct emu_fw_rqt_list *l;
		struct emu_fw_tir_hash *hs;
		struct emu_fw_obj *o;

		emu_fw_rcu_lock();
		o = emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_RQT, sp->rqtn);
		l = o ? atomic_load(&emu_fw_to_rqt(o)->list) : NULL;
		if (l && (l->size < 1 || l->size > 4))
			sp->whole = false;
		for (uint32_t i = 0; l && i < l->size; i++)
			if (l->rq[i]->ring.cnt != 64)
				sp->whole = false;
		o = emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_TIR, sp->tirn);
		hs = o ? atomic_load(&emu_fw_to_tir(o)->hash) : NULL;
		/* Each hash this test publishes has a key of one byte value
		 * and that value as its function's low bit. */
		if (hs && (hs->key[0] != hs->key[39] ||
			   (hs->key[0] & 1) != (hs->fn == MLX5_RX_HASH_FN_TOEPLITZ)))
			sp->whole = false;
		emu_fw_rcu_unlock();
		atomic_fetch_add(&sp->seen, 1);
	}
	return NULL;
}

START_TEST(replace_under_readers)
{
	uint32_t a[4] = { rq[0], rq[1], rq[2], rq[3] }, b[1] = { rq[3] };
	struct spin sp = { 0 };
	struct fwt_mbox m;
	pthread_t th;

	sp.rqtn = etht_rqt(&env, 4, a, 4);
	etht_tir_indirect_mbox(&env, &m, sp.rqtn);
	memset(PRM_ADDR_OF(tirc, ETHT_TIRC(&m), rx_hash_toeplitz_key), 1, 40);
	sp.tirn = etht_create(&env, &m);
	atomic_init(&sp.stop, false);
	atomic_init(&sp.seen, 0);
	ck_assert_int_eq(pthread_create(&th, NULL, spin_main, &sp), 0);
	/* The reader runs before the first replacement (a loaded machine
	 * may otherwise finish all 200 before it is scheduled). */
	while (!atomic_load(&sp.seen))
		sched_yield();
	for (int i = 0; i < 200; i++) {
		void *mc, *bm;

		rqt_modify(sp.rqtn, &m, true, i & 1 ? a : b, i & 1 ? 4 : 1);
		ck_fw_ok(&m);
		fwt_mbox_init(&m, MLX5_CMD_OP_MODIFY_TIR, 0, env.q.uid,
			      PRM_ST_SZ_BYTES(modify_tir_in),
			      PRM_ST_SZ_BYTES(modify_tir_out));
		PRM_SET(modify_tir_in, m.in, tirn, sp.tirn);
		bm = PRM_ADDR_OF(modify_tir_in, m.in, bitmask);
		PRM_SET(modify_tir_bitmask, bm, hash, 1);
		mc = PRM_ADDR_OF(modify_tir_in, m.in, ctx);
		PRM_SET(tirc, mc, rx_hash_fn, i & 1 ? MLX5_RX_HASH_FN_TOEPLITZ :
			MLX5_RX_HASH_FN_INVERTED_XOR8);
		memset(PRM_ADDR_OF(tirc, mc, rx_hash_toeplitz_key), i & 1, 40);
		fwt_exec(fw, &m);
		ck_fw_ok(&m);
	}
	atomic_store(&sp.stop, true);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert(sp.whole);
	ck_assert_uint_gt(atomic_load(&sp.seen), 0);
	/* The last list (i = 199: a) holds one use on each RQ. */
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQ, rq[i]), 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fw_eth_rqt");
	TCase *tc = tcase_create("rqt");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, rqt_lifecycle);
	tcase_add_test(tc, rqt_refusals);
	tcase_add_test(tc, rqt_modify_list);
	tcase_add_test(tc, rqt_modify_under_reader);
	tcase_add_test(tc, destroys_wait);
	tcase_add_test(tc, replace_under_readers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(suite()) ? 1 : 0;
}
