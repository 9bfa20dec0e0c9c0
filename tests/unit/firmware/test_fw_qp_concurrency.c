/* SPDX-License-Identifier: MIT */
/*
 * QPs under concurrency (run it under ThreadSanitizer too): creators make,
 * walk and destroy QPs and DCTs while other threads modify and query
 * whatever numbers they see, an "engine" reads QP state and attributes
 * under RCU and moves QPs to error, and a thread keeps trying to destroy a
 * CQ a long-lived QP uses.  Every answer must be one a racing caller may
 * get; at the end the counts come back.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_fw_qp_util.h"

#define NCREATORS 2
#define NMODIFIERS 2
#define ROUNDS 150
#define NSEEN 16

static struct emu_fw *fw;
static struct qpt_env env;
static _Atomic uint32_t seen[NSEEN];	/* recently created QP numbers */
static atomic_bool stop;
static atomic_uint bad;			/* unexpected answers */
static atomic_uint ok_mods;

static void note_bad(const char *what, const struct fwt_mbox *m)
{
	fprintf(stderr, "%s: status 0x%x syndrome 0x%x\n", what,
		emu_fw_out_status(m->out), emu_fw_out_syndrome(m->out));
	atomic_fetch_add(&bad, 1);
}

/* Exec without Check asserts (threads). */
static uint8_t exec(struct fwt_mbox *m)
{
	if (emu_fw_cmd_exec(fw, m->in, m->inlen, m->out, m->outlen))
		atomic_fetch_add(&bad, 1);
	return emu_fw_out_status(m->out);
}

static bool is(const struct fwt_mbox *m, enum fw_synd id)
{
	const struct fw_syndrome *e = fw_syndrome_get(id);

	return emu_fw_out_status(m->out) == e->status &&
	       emu_fw_out_syndrome(m->out) == e->value;
}

static void *creator(void *arg)
{
	struct qpt_env mine = env;	/* same uid and objects, own slots */
	unsigned int id = (unsigned int)(uintptr_t)arg;

	mine.slot = id * 16;
	for (int r = 0; r < ROUNDS; r++) {
		enum qpt_type t = (enum qpt_type)(r % QPT_NTYPES);
		static const uint16_t walk[] = {
			MLX5_CMD_OP_RST2INIT_QP, MLX5_CMD_OP_INIT2RTR_QP,
			MLX5_CMD_OP_RTR2RTS_QP,
		};
		struct fwt_mbox m;
		uint32_t qpn;

		qpt_create_mbox(&mine, &m, t);
		mine.slot = id * 16 + (mine.slot + 1) % 16;
		if (exec(&m)) {
			note_bad("create", &m);
			continue;
		}
		qpn = PRM_GET(create_qp_out, m.out, qpn);
		atomic_store(&seen[(id * 7 + r) % NSEEN], qpn);
		for (size_t i = 0; i < 3; i++) {
			qpt_tr_mbox(&m, walk[i], mine.uid, qpn, 0);
			qpt_tr_fill(&mine, &m, walk[i], t);
			/* A modifier may have moved it on (or to ERR/RST). */
			if (exec(&m) && !is(&m, FW_SYND_QP_BAD_STATE_TRANSITION))
				note_bad("walk", &m);
		}
		fwt_mbox_init(&m, MLX5_CMD_OP_DESTROY_QP, 0, mine.uid, 16, 16);
		PRM_SET(destroy_qp_in, m.in, qpn, qpn);
		if (exec(&m))
			note_bad("destroy", &m);
		/* A DCT now and then: same number space. */
		if (r % 5 == 0) {
			void *c;

			fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_DCT, 0, mine.uid,
				      PRM_ST_SZ_BYTES(create_dct_in),
				      PRM_ST_SZ_BYTES(create_dct_out));
			c = PRM_ADDR_OF(create_dct_in, m.in, dct_context_entry);
			PRM_SET(dctc, c, pd, mine.pd);
			PRM_SET(dctc, c, cqn, mine.cq);
			PRM_SET(dctc, c, srqn_xrqn, mine.srq);
			PRM_SET(dctc, c, mtu, 3);
			PRM_SET(dctc, c, port, 1);
			PRM_SET(dctc, c, my_addr_index, 1);
			if (exec(&m)) {
				note_bad("create dct", &m);
				continue;
			}
			qpn = PRM_GET(create_dct_out, m.out, dctn);
			atomic_store(&seen[(id + r) % NSEEN], qpn);
			fwt_mbox_init(&m, MLX5_CMD_OP_DESTROY_DCT, 0, mine.uid,
				      16, 16);
			PRM_SET(destroy_dct_in, m.in, dctn, qpn);
			if (exec(&m))
				note_bad("destroy dct", &m);
		}
	}
	return NULL;
}

/* Answers a racing modifier/querier may get. */
static bool racing_ok(const struct fwt_mbox *m)
{
	return !emu_fw_out_status(m->out) || is(m, FW_SYND_QP_INVALID) ||
	       is(m, FW_SYND_QP_INVALID_QPN) ||
	       is(m, FW_SYND_QP_BAD_STATE_TRANSITION) ||
	       is(m, FW_SYND_QP_BAD_QPN_FOR_DCT);
}

static void *modifier(void *arg)
{
	unsigned int k = (unsigned int)(uintptr_t)arg;
	static const uint16_t ops[] = {
		MLX5_CMD_OP_RTS2RTS_QP, MLX5_CMD_OP_2ERR_QP,
		MLX5_CMD_OP_2RST_QP, MLX5_CMD_OP_RST2INIT_QP,
		MLX5_CMD_OP_INIT2RTR_QP,
	};

	while (!atomic_load(&stop)) {
		uint32_t qpn = atomic_load(&seen[k++ % NSEEN]);
		uint16_t op = ops[k % 5];
		struct fwt_mbox m;

		if (!qpn)
			continue;
		qpt_tr_mbox(&m, op, env.uid, qpn,
			    op == MLX5_CMD_OP_RTS2RTS_QP ? 1u << 3 : 0);
		qpt_tr_fill(&env, &m, op, QPT_RC);
		exec(&m);
		/* RC's fill on a UD QP etc.: bad parameters are fine too. */
		if (!racing_ok(&m) && emu_fw_out_status(m.out) !=
		    MLX5_CMD_STAT_BAD_PARAM_ERR)
			note_bad("modify", &m);
		else if (!emu_fw_out_status(m.out))
			atomic_fetch_add(&ok_mods, 1);
		fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_QP, 0, env.uid,
			      PRM_ST_SZ_BYTES(query_qp_in),
			      PRM_BYTE_OFF(query_qp_out, pas));
		PRM_SET(query_qp_in, m.in, qpn, qpn);
		exec(&m);
		if (!racing_ok(&m))
			note_bad("query", &m);
	}
	return NULL;
}

static int engine_visit(struct emu_fw_obj *obj, void *arg)
{
	struct emu_fw_qp *qp = emu_fw_to_qp(obj);
	unsigned int *n = arg;
	struct emu_fw_cq *cq;

	/* Lock-free reads of what is fixed or atomic.  A destroy may clear
	 * the object pointers under us: load once, the object itself stays
	 * readable until the RCU read side ends. */
	(*n) += emu_fw_qp_state(qp) + qp->sq.cnt + qp->rq.cnt;
	cq = atomic_load(&qp->cq_snd);
	if (cq)
		(*n) += cq->log_size;
	return 0;
}

static void *engine(void *arg)
{
	unsigned int n = 0, k = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		uint32_t qpn = atomic_load(&seen[k++ % NSEEN]);
		struct emu_fw_obj *obj;

		emu_fw_obj_for_each(fw, EMU_FW_OBJ_QP, engine_visit, &n);
		obj = qpn ? emu_fw_obj_get(fw, EMU_FW_OBJ_QP, qpn) : NULL;
		if (obj) {
			struct emu_fw_qp *qp = emu_fw_to_qp(obj);
			struct emu_fw_qp_attr a;

			emu_fw_qp_get_attr(qp, &a, NULL);
			n += a.mtu;
			if (k % 3 == 0 && qp->kind == EMU_FW_QP_KIND_QP)
				(void)emu_fw_qp_set_state(qp,
							  MLX5_QPC_STATE_ERR);
			emu_fw_obj_put(obj);
		}
	}
	return (void *)(uintptr_t)n;
}

static uint32_t pinned_cq;

static void *cq_destroyer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		struct fwt_mbox m;

		fwt_mbox_init(&m, MLX5_CMD_OP_DESTROY_CQ, 0, env.uid, 16, 16);
		PRM_SET(destroy_cq_in, m.in, cqn, pinned_cq);
		exec(&m);
		if (!is(&m, FW_SYND_CQ_IN_USE))
			note_bad("destroy used cq", &m);
	}
	return NULL;
}

START_TEST(qp_concurrent)
{
	pthread_t c[NCREATORS], mo[NMODIFIERS], en, cd;
	struct fwt_mbox m;
	uint32_t keeper;

	fw = qpt_fw(NULL);
	qpt_env_init(&env, fw, true);
	atomic_store(&stop, false);
	/* A QP that pins a CQ for the whole run. */
	{
		struct fwt_mem a, b;

		fwt_mem_reg(fw, env.uid, 4096, &a);
		fwt_mem_reg(fw, env.uid, 8, &b);
		pinned_cq = fwt_cq(fw, env.uid, env.eqn, env.uar, 6, a.umem_id,
				   b.umem_id);
		qpt_create_mbox(&env, &m, QPT_UD);
		PRM_SET(qpc, QPT_QPC(&m), cqn_snd, pinned_cq);
		PRM_SET(qpc, QPT_QPC(&m), cqn_rcv, pinned_cq);
		fwt_exec(fw, &m);
		ck_fw_ok(&m);
		keeper = PRM_GET(create_qp_out, m.out, qpn);
		env.slot = 40;	/* creators use slots 0..31 */

		for (int i = 0; i < NCREATORS; i++)
			pthread_create(&c[i], NULL, creator,
				       (void *)(uintptr_t)i);
		for (int i = 0; i < NMODIFIERS; i++)
			pthread_create(&mo[i], NULL, modifier,
				       (void *)(uintptr_t)(i * 5));
		pthread_create(&en, NULL, engine, NULL);
		pthread_create(&cd, NULL, cq_destroyer, NULL);
		for (int i = 0; i < NCREATORS; i++)
			pthread_join(c[i], NULL);
		atomic_store(&stop, true);
		for (int i = 0; i < NMODIFIERS; i++)
			pthread_join(mo[i], NULL);
		pthread_join(en, NULL);
		pthread_join(cd, NULL);

		ck_assert_uint_eq(atomic_load(&bad), 0);
		/* Only the keeper is left. */
		ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_QP), 1);
		ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_QP,
					      env.uid, keeper), 0);
		ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_CQ,
					      env.uid, pinned_cq), 0);
		emu_fw_destroy(fw);
		fwt_mem_free(&a);
		fwt_mem_free(&b);
	}
	qpt_env_fini(&env);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fw_qp_concurrency");
	TCase *tc = tcase_create("race");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, qp_concurrent);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
