/* SPDX-License-Identifier: MIT */
/*
 * Concurrency (run under ThreadSanitizer in CI): QPs and CQs created and
 * destroyed while traffic flows on others; application threads doing
 * inline progress racing the engine thread; atomics from two QPs on one
 * address landing exactly.
 */
#include <endian.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eng_test.h"
#include "emu/base/sanitizer.h"

#include <infiniband/mlx5dv.h>

static struct ent_dev da, db;
static struct ent_mr amr, bmr;
static atomic_bool stop;

static void setup(void)
{
	ent_dev_init(&da, 0);
	ent_dev_init(&db, 1);
	ent_mr_init(&da, &amr, da.pd, 65536, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
	ent_mr_init(&db, &bmr, db.pd, 65536, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
	atomic_store(&stop, false);
}

static void teardown(void)
{
	ent_dev_fini(&da);
	ent_dev_fini(&db);
}

static void pair(struct ent_qp *a, struct ent_cq *acq, struct ent_qp *b,
		 struct ent_cq *bcq)
{
	struct ent_qp_cfg cfg = {
		.type = ENT_RC, .log_sq = 6, .log_rq = 6, .log_rq_stride = 0,
	};

	cfg.scq = cfg.rcq = acq;
	ent_qp_create(&da, a, &cfg);
	cfg.scq = cfg.rcq = bcq;
	ent_qp_create(&db, b, &cfg);
	ent_qp_pair(a, b);
}

/* Create, use and destroy QPs and CQs until told to stop. */
static void *churn(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		struct ent_cq c1, c2;
		struct ent_qp q1, q2;
		uint8_t w[64] = { 0 };

		ent_cq_init(&da, &c1, 3, 64, false);
		ent_cq_init(&db, &c2, 3, 64, false);
		pair(&q1, &c1, &q2, &c2);
		ent_ctrl(w, 0, MLX5_OPCODE_NOP, q1.qpn, 1, 0, 0);
		ent_sq_put(&q1, w, 1);
		ent_sq_ring(&q1);
		/* Destroy while the NOP may still be in flight. */
		ck_assert_uint_eq(fwt_destroy(da.fw, MLX5_CMD_OP_DESTROY_QP,
					      da.uid, q1.qpn), 0);
		ck_assert_uint_eq(fwt_destroy(db.fw, MLX5_CMD_OP_DESTROY_QP,
					      db.uid, q2.qpn), 0);
		ck_assert_uint_eq(fwt_destroy(da.fw, MLX5_CMD_OP_DESTROY_CQ,
					      da.uid, c1.cqn), 0);
		ck_assert_uint_eq(fwt_destroy(db.fw, MLX5_CMD_OP_DESTROY_CQ,
					      db.uid, c2.cqn), 0);
		if (da.nallocs > 200)
			break;		/* bounded memory */
	}
	return NULL;
}

static void traffic(struct ent_qp *a, struct ent_cq *acq, struct ent_qp *b,
		    struct ent_cq *bcq, int n)
{
	for (int i = 0; i < n; i++) {
		ent_post_recv(b, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 512);
		ent_post1(a, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr,
			  (uint32_t)(i % 64) * 512, 512, 0, 0);
		ck_assert_uint_eq(ent_cq_next(acq)[63] >> 4, MLX5_CQE_REQ);
		ck_assert_uint_eq(ent_cq_next(bcq)[63] >> 4, MLX5_CQE_RESP_SEND);
		ck_assert_mem_eq(bmr.buf, amr.buf + (i % 64) * 512, 512);
	}
}

START_TEST(create_destroy_during_traffic)
{
	struct ent_cq acq, bcq;
	struct ent_qp a, b;
	pthread_t t;

	for (int i = 0; i < 65536; i++)
		amr.buf[i] = (uint8_t)(i * 3);
	ent_cq_init(&da, &acq, 6, 64, false);
	ent_cq_init(&db, &bcq, 6, 64, false);
	pair(&a, &acq, &b, &bcq);
	ck_assert_int_eq(pthread_create(&t, NULL, churn, NULL), 0);
	traffic(&a, &acq, &b, &bcq, 400);
	atomic_store(&stop, true);
	pthread_join(t, NULL);
}
END_TEST

static void *progress_loop(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		emu_eng_progress(EMU_ENG_WHY_POLL);
	return NULL;
}

START_TEST(inline_progress_races_thread)
{
	struct ent_cq acq, bcq;
	struct ent_qp a, b;
	pthread_t t[3];

	ent_cq_init(&da, &acq, 6, 64, false);
	ent_cq_init(&db, &bcq, 6, 64, false);
	pair(&a, &acq, &b, &bcq);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, progress_loop, NULL), 0);
	traffic(&a, &acq, &b, &bcq, 400);
	atomic_store(&stop, true);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
}
END_TEST

struct fa_job {
	struct ent_qp *qp;
	struct ent_cq *cq;
	uint64_t *remote;
	int n;
	uint64_t *olds;
};

static void *fetch_add(void *arg)
{
	struct fa_job *j = arg;

	for (int i = 0; i < j->n; i++) {
		uint8_t w[64] = { 0 };
		uint64_t one = htobe64(1);
		const uint8_t *e;

		ent_ctrl(w, j->qp->sq_pi, MLX5_OPCODE_ATOMIC_FA, j->qp->qpn, 4,
			 MLX5_WQE_CTRL_CQ_UPDATE, 0);
		ent_raddr(w + 16, (uint64_t)(uintptr_t)j->remote, bmr.key);
		memcpy(w + 32, &one, 8);
		ent_dseg(w + 48, 8, amr.key,
			 (uint64_t)(uintptr_t)&j->olds[i]);
		ent_sq_put(j->qp, w, 1);
		ent_sq_ring(j->qp);
		e = ent_cq_next(j->cq);
		ck_assert_uint_eq(e[63] >> 4, MLX5_CQE_REQ);
	}
	return NULL;
}

START_TEST(concurrent_atomics)
{
	struct ent_cq acq1, acq2, bcq;
	struct ent_qp a1, b1, a2, b2;
	uint64_t *remote = (uint64_t *)(void *)(bmr.buf + 4096);
	uint64_t *olds = (uint64_t *)(void *)amr.buf;
	struct fa_job j1 = { &a1, &acq1, remote, 500, olds };
	struct fa_job j2 = { &a2, &acq2, remote, 500, olds + 500 };
	static uint8_t seen[1000];
	pthread_t t1, t2;

	ent_cq_init(&da, &acq1, 6, 64, false);
	ent_cq_init(&da, &acq2, 6, 64, false);
	ent_cq_init(&db, &bcq, 6, 64, false);
	pair(&a1, &acq1, &b1, &bcq);
	pair(&a2, &acq2, &b2, &bcq);
	*remote = 0;
	ck_assert_int_eq(pthread_create(&t1, NULL, fetch_add, &j1), 0);
	ck_assert_int_eq(pthread_create(&t2, NULL, fetch_add, &j2), 0);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	/* Every add landed once: the sum, and each old value exactly once. */
	ck_assert_uint_eq(__atomic_load_n(remote, __ATOMIC_ACQUIRE), 1000);
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < 1000; i++) {
		ck_assert_uint_lt(olds[i], 1000);
		ck_assert_uint_eq(seen[olds[i]]++, 0);
	}
}
END_TEST

#ifndef EMU_TSAN
/* fork() while the engine thread runs: the child gets an engine of its
 * own (no thread inherited, no lock left held) that runs its new devices.
 * Not under ThreadSanitizer, which does not support threads started in
 * the child of a multithreaded fork(). */
START_TEST(fork_child_engine)
{
	struct ent_cq acq, bcq;
	struct ent_qp a, b;
	pthread_t t;
	pid_t pid;
	int st;

	ent_cq_init(&da, &acq, 6, 64, false);
	ent_cq_init(&db, &bcq, 6, 64, false);
	pair(&a, &acq, &b, &bcq);
	ck_assert_int_eq(pthread_create(&t, NULL, progress_loop, NULL), 0);
	traffic(&a, &acq, &b, &bcq, 50);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct ent_dev c0, c1;
		struct ent_cq c0cq, c1cq;
		struct ent_qp q0, q1;

		ent_dev_init(&c0, 2);
		ent_dev_init(&c1, 3);
		ent_cq_init(&c0, &c0cq, 4, 64, false);
		ent_cq_init(&c1, &c1cq, 4, 64, false);
		{
			struct ent_qp_cfg cfg = { .type = ENT_RC, .log_sq = 4,
						  .log_rq = 4 };

			cfg.scq = cfg.rcq = &c0cq;
			ent_qp_create(&c0, &q0, &cfg);
			cfg.scq = cfg.rcq = &c1cq;
			ent_qp_create(&c1, &q1, &cfg);
			ent_qp_pair(&q0, &q1);
		}
		{
			uint8_t w[64] = { 0 };

			ent_ctrl(w, 0, MLX5_OPCODE_NOP, q0.qpn, 1,
				 MLX5_WQE_CTRL_CQ_UPDATE, 0);
			ent_sq_put(&q0, w, 1);
			ent_sq_ring(&q0);
		}
		_exit(ent_cq_next(&c0cq)[63] >> 4 == MLX5_CQE_REQ ? 0 : 1);
	}
	traffic(&a, &acq, &b, &bcq, 50);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	atomic_store(&stop, true);
	pthread_join(t, NULL);
}
END_TEST
#endif

int main(void)
{
	Suite *s = suite_create("eng_concurrency");
	TCase *tc = tcase_create("concurrency");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, create_destroy_during_traffic);
	tcase_add_test(tc, inline_progress_races_thread);
	tcase_add_test(tc, concurrent_atomics);
#ifndef EMU_TSAN
	tcase_add_test(tc, fork_child_engine);
#endif
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
