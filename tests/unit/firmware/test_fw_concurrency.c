/* SPDX-License-Identifier: MIT */
/*
 * Concurrency of the object tables: threads create and destroy CQs and PDs
 * through commands while others look the same numbers up (reference-taking
 * lookups, RCU lookups dereferencing what the CQ points to, QUERY_CQ, table
 * walks) and while two threads race to destroy one object.  Meant to run
 * under ASan and TSan as well.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "fw_test_util.h"

#define NWRITERS 3
#define NREADERS 3
#define ITERS 400
#define RING 64

static struct emu_fw *fw;
static uint32_t keqn, kuar;
static struct fwt_mem kmem;
static atomic_uint ring[RING];	/* recently created CQNs */
static atomic_uint ring_pos;
static atomic_bool stop;
static atomic_ulong hits, misses;

struct writer {
	pthread_t th;
	uint16_t uid;
	uint32_t uar;
	struct fwt_mem cq, dbr;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	for (int i = 0; i < ITERS; i++) {
		struct fwt_mbox m;
		uint32_t cqn, pd;

		fwt_cq_mbox(&m, w->uid, keqn, w->uar, 6, w->cq.umem_id, 0,
			    w->dbr.umem_id, 0);
		if (fwt_exec(fw, &m) != MLX5_CMD_STAT_OK)
			return (void *)"CREATE_CQ failed";
		cqn = PRM_GET(create_cq_out, m.out, cqn);
		atomic_store(&ring[atomic_fetch_add(&ring_pos, 1) % RING], cqn);
		fwt_mbox_init(&m, MLX5_CMD_OP_ALLOC_PD, 0, w->uid, 16, 16);
		if (fwt_exec(fw, &m) != MLX5_CMD_STAT_OK)
			return (void *)"ALLOC_PD failed";
		pd = PRM_GET(alloc_pd_out, m.out, pd);
		if (fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, w->uid, pd))
			return (void *)"DEALLOC_PD failed";
		if (fwt_destroy(fw, MLX5_CMD_OP_DESTROY_CQ, w->uid, cqn))
			return (void *)"DESTROY_CQ failed";
	}
	return NULL;
}

static int count_cq(struct emu_fw_obj *obj, void *arg)
{
	struct emu_fw_cq *cq = emu_fw_to_cq(obj);
	struct emu_fw_eq *eq = atomic_load(&cq->eq);

	if (eq && eq->obj.id != keqn)
		return -1;
	(*(unsigned int *)arg)++;
	return 0;
}

static void *reader_main(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;

	while (!atomic_load(&stop)) {
		uint32_t cqn = atomic_load(&ring[rand_r(&seed) % RING]);
		struct emu_fw_obj *obj;
		struct emu_fw_eq *eq;
		struct fwt_mbox m;
		unsigned int n = 0;

		if (!cqn)
			continue;
		/* a referenced lookup: the memory stays while we hold it */
		obj = emu_fw_obj_get(fw, EMU_FW_OBJ_CQ, cqn);
		if (obj) {
			struct emu_fw_cq *cq = emu_fw_to_cq(obj);

			if (obj->id != cqn || cq->log_size != 6 ||
			    cq->buf.len != 64 << 6)
				return (void *)"a looked-up CQ is corrupt";
			atomic_fetch_add(&hits, 1);
			emu_fw_obj_put(obj);
		} else {
			atomic_fetch_add(&misses, 1);
		}
		/* RCU: dereference the CQ and its EQ without a reference */
		emu_fw_rcu_lock();
		obj = emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_CQ, cqn);
		if (obj) {
			eq = atomic_load(&emu_fw_to_cq(obj)->eq);
			if (eq && eq->obj.id != keqn) {
				emu_fw_rcu_unlock();
				return (void *)"CQ points at a wrong EQ";
			}
		}
		emu_fw_rcu_unlock();
		/* the command path, as the kernel would (uid unknown here:
		 * only OK or CQ_INVALID may come back) */
		fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_CQ, 0, 0, 16,
			      PRM_ST_SZ_BYTES(query_cq_out));
		PRM_SET(query_cq_in, m.in, cqn, cqn);
		fwt_exec(fw, &m);
		if (emu_fw_out_syndrome(m.out) !=
		    fw_syndrome_get(FW_SYND_CQ_INVALID)->value)
			return (void *)"QUERY_CQ of a user CQ by uid 0";
		if (emu_fw_obj_for_each(fw, EMU_FW_OBJ_CQ, count_cq, &n))
			return (void *)"table walk saw a wrong EQ";
	}
	return NULL;
}

START_TEST(create_destroy_vs_lookup)
{
	struct writer w[NWRITERS];
	pthread_t r[NREADERS];
	void *ret;

	fw = fwt_create(NULL);
	kuar = fwt_uar(fw, 0);
	fwt_mem_reg(fw, 0, 4096, &kmem);
	keqn = fwt_eq(fw, 0, kuar, 6, &kmem);
	for (int i = 0; i < NWRITERS; i++) {
		w[i].uid = fwt_uctx(fw);
		w[i].uar = fwt_uar(fw, w[i].uid);
		fwt_mem_reg(fw, w[i].uid, 4096, &w[i].cq);
		fwt_mem_reg(fw, w[i].uid, 8, &w[i].dbr);
	}
	for (int i = 0; i < NREADERS; i++)
		ck_assert_int_eq(pthread_create(&r[i], NULL, reader_main,
						(void *)(uintptr_t)(i + 1)), 0);
	for (int i = 0; i < NWRITERS; i++)
		ck_assert_int_eq(pthread_create(&w[i].th, NULL, writer_main,
						&w[i]), 0);
	for (int i = 0; i < NWRITERS; i++) {
		ck_assert_int_eq(pthread_join(w[i].th, &ret), 0);
		ck_assert_msg(ret == NULL, "writer: %s", (const char *)ret);
	}
	atomic_store(&stop, true);
	for (int i = 0; i < NREADERS; i++) {
		ck_assert_int_eq(pthread_join(r[i], &ret), 0);
		ck_assert_msg(ret == NULL, "reader: %s", (const char *)ret);
	}
	ck_assert_uint_gt(atomic_load(&hits) + atomic_load(&misses), 0);

	/* everything was released: all of it can go now */
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_CQ), 0);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_PD), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_EQ, 0, keqn), 0);
	for (int i = 0; i < NWRITERS; i++) {
		ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, w[i].uid, w[i].cq.umem_id), 0);
		ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, w[i].uid, w[i].dbr.umem_id), 0);
		ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_UAR,
					      w[i].uid, w[i].uar), 0);
		ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UCTX, 0,
					      w[i].uid), 0);
		fwt_mem_free(&w[i].cq);
		fwt_mem_free(&w[i].dbr);
	}
	emu_fw_destroy(fw);
	fwt_mem_free(&kmem);
}
END_TEST

/* Two destroys of one object: exactly one wins, the other is refused. */
struct racer {
	pthread_t th;
	uint32_t pd;
	pthread_barrier_t *bar;
	uint8_t status;
};

static void *racer_main(void *arg)
{
	struct racer *r = arg;

	pthread_barrier_wait(r->bar);
	r->status = fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, 0, r->pd);
	return NULL;
}

START_TEST(destroy_race)
{
	pthread_barrier_t bar;
	struct racer rc[2];

	fw = fwt_create(NULL);
	pthread_barrier_init(&bar, NULL, 2);
	for (int round = 0; round < 200; round++) {
		uint32_t pd = fwt_pd(fw, 0);

		for (int i = 0; i < 2; i++) {
			rc[i].pd = pd;
			rc[i].bar = &bar;
			ck_assert_int_eq(pthread_create(&rc[i].th, NULL,
							racer_main, &rc[i]),
					 0);
		}
		for (int i = 0; i < 2; i++)
			pthread_join(rc[i].th, NULL);
		ck_assert_msg((rc[0].status == 0) != (rc[1].status == 0),
			      "round %d: statuses %u %u", round, rc[0].status,
			      rc[1].status);
		ck_assert_uint_eq(rc[0].status | rc[1].status,
				  MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	}
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_PD), 0);
	pthread_barrier_destroy(&bar);
	emu_fw_destroy(fw);
}
END_TEST

/*
 * Destroy racing readers that hold no reference: readers look CQs, mkeys
 * and umems up inside emu_fw_rcu_lock() and read the application memory
 * they describe, while owners create them over memory of their own,
 * destroy them and, the moment each destroy returns, scribble over that
 * memory and free it.  A reader must never see the scribble, and ASan
 * (use after free) and TSan (the free against the read) must see nothing.
 */
#define RACE_OWNERS 2
#define RACE_READERS 2
#define RACE_ITERS 300
#define RACE_RING 4096
#define RACE_FILL 0x11

struct race_slot {
	atomic_uint cqn, mkey, umem;
	atomic_uint seen;	/* the CQ a reader holds */
};

static struct race_slot race_slots[RACE_OWNERS];

struct race_owner {
	pthread_t th;
	unsigned int n;
	uint16_t uid;
	uint32_t uar, pd;
};

/* Memory as an application hands it over: filled, then registered. */
static uint8_t *race_alloc(size_t len)
{
	uint8_t *p = aligned_alloc(4096, len);

	if (p)
		memset(p, RACE_FILL, len);
	return p;
}

static const char *race_round(struct race_owner *o)
{
	struct race_slot *sl = &race_slots[o->n];
	uint8_t *buf = race_alloc(RACE_RING), *dbr = race_alloc(4096);
	uint32_t buf_umem, dbr_umem, cqn, mkey;
	struct fwt_mbox m;

	if (!buf || !dbr)
		return "out of memory";
	buf_umem = fwt_umem_reg(fw, o->uid, buf, RACE_RING);
	dbr_umem = fwt_umem_reg(fw, o->uid, dbr, 64);
	if (!buf_umem || !dbr_umem)
		return "umem registration refused";
	fwt_cq_mbox(&m, o->uid, keqn, o->uar, 6, buf_umem, 0, dbr_umem, 0);
	if (fwt_exec(fw, &m) != MLX5_CMD_STAT_OK)
		return "CREATE_CQ failed";
	cqn = PRM_GET(create_cq_out, m.out, cqn);
	fwt_mkey_mbox(&m, o->uid, o->pd, buf_umem, 0, RACE_RING,
		      (uintptr_t)buf);
	if (fwt_exec(fw, &m) != MLX5_CMD_STAT_OK)
		return "CREATE_MKEY failed";
	mkey = PRM_GET(create_mkey_out, m.out, mkey_index);
	atomic_store(&sl->cqn, cqn);
	atomic_store(&sl->mkey, mkey);
	atomic_store(&sl->umem, dbr_umem);
	/* Destroy while a reader is at it (or after a while). */
	for (int spin = 0; spin < 20000 && atomic_load(&sl->seen) != cqn;
	     spin++)
		sched_yield();

	if (fwt_destroy(fw, MLX5_CMD_OP_DESTROY_MKEY, o->uid, mkey) ||
	    fwt_destroy(fw, MLX5_CMD_OP_DESTROY_CQ, o->uid, cqn))
		return "destroy failed";
	if (fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, o->uid, buf_umem) ||
	    fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, o->uid, dbr_umem))
		return "umem deregistration failed";
	/* The device is done with it: the memory is ours again. */
	memset(buf, 0xee, RACE_RING);
	memset(dbr, 0xee, 64);
	free(buf);
	free(dbr);
	return NULL;
}

static void *race_owner_main(void *arg)
{
	for (int i = 0; i < RACE_ITERS; i++) {
		const char *err = race_round(arg);

		if (err)
			return (void *)err;
	}
	return NULL;
}

/* Every byte of [p, p + len) is still what the owner filled in. */
static bool race_intact(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i += 61)
		if (((volatile const uint8_t *)p)[i] != RACE_FILL)
			return false;
	return true;
}

static void *race_reader_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		for (int n = 0; n < RACE_OWNERS; n++) {
			struct race_slot *sl = &race_slots[n];
			struct emu_fw_obj *obj;
			bool ok = true;

			emu_fw_rcu_lock();
			obj = emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_CQ,
						    atomic_load(&sl->cqn));
			if (obj) {
				struct emu_fw_cq *cq = emu_fw_to_cq(obj);

				atomic_store(&sl->seen, obj->id);
				for (int k = 0; k < 4; k++)
					ok &= race_intact(cq->buf.addr,
							  cq->buf.len);
				ok &= race_intact(cq->dbr.addr, cq->dbr.len);
				atomic_fetch_add(&hits, 1);
			}
			obj = emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_MKEY,
						    atomic_load(&sl->mkey));
			if (obj) {
				struct emu_fw_mkey *mk = emu_fw_to_mkey(obj);

				ok &= race_intact(mk->mem.addr, mk->mem.len);
				atomic_fetch_add(&hits, 1);
			}
			obj = emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_UMEM,
						    atomic_load(&sl->umem));
			if (obj) {
				struct emu_fw_umem *um = emu_fw_to_umem(obj);

				ok &= race_intact(um->addr, um->size);
				atomic_fetch_add(&hits, 1);
			}
			emu_fw_rcu_unlock();
			if (!ok)
				return (void *)"a reader saw memory the owner took back";
		}
	}
	return NULL;
}

START_TEST(destroy_vs_unreferenced_reader)
{
	struct race_owner o[RACE_OWNERS];
	pthread_t r[RACE_READERS];
	void *ret;

	fw = fwt_create(NULL);
	atomic_store(&stop, false);
	atomic_store(&hits, 0);
	kuar = fwt_uar(fw, 0);
	fwt_mem_reg(fw, 0, 4096, &kmem);
	keqn = fwt_eq(fw, 0, kuar, 6, &kmem);
	for (int i = 0; i < RACE_OWNERS; i++) {
		o[i].n = (unsigned int)i;
		o[i].uid = fwt_uctx(fw);
		o[i].uar = fwt_uar(fw, o[i].uid);
		o[i].pd = fwt_pd(fw, o[i].uid);
	}
	for (int i = 0; i < RACE_READERS; i++)
		ck_assert_int_eq(pthread_create(&r[i], NULL, race_reader_main,
						NULL), 0);
	for (int i = 0; i < RACE_OWNERS; i++)
		ck_assert_int_eq(pthread_create(&o[i].th, NULL,
						race_owner_main, &o[i]), 0);
	for (int i = 0; i < RACE_OWNERS; i++) {
		ck_assert_int_eq(pthread_join(o[i].th, &ret), 0);
		ck_assert_msg(ret == NULL, "owner: %s", (const char *)ret);
	}
	atomic_store(&stop, true);
	for (int i = 0; i < RACE_READERS; i++) {
		ck_assert_int_eq(pthread_join(r[i], &ret), 0);
		ck_assert_msg(ret == NULL, "reader: %s", (const char *)ret);
	}
	ck_assert_uint_gt(atomic_load(&hits), 0);
	emu_fw_destroy(fw);
	fwt_mem_free(&kmem);
}
END_TEST

static Suite *fw_concurrency_suite(void)
{
	Suite *s = suite_create("fw_concurrency");
	TCase *tc = tcase_create("tables");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, create_destroy_vs_lookup);
	tcase_add_test(tc, destroy_race);
	tcase_add_test(tc, destroy_vs_unreferenced_reader);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fw_concurrency_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
