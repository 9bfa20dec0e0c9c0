/* SPDX-License-Identifier: MIT */
/*
 * A seeded random WQE driver: random bytes in a victim QP's send queue
 * (biased towards real opcodes, DS counts and the real keys so the parser
 * gets past its first checks), rung with a random producer index.  The
 * process must not crash, memory outside registrations must stay as it
 * was, and a bystander QP pair on the same devices must keep working: the
 * victim alone goes to error.
 *
 *   MLX5EMU_FUZZ_SEED   the seed (default 1; printed on failure)
 *   MLX5EMU_FUZZ_ITERS  iterations (default 60: a short CI run)
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "eng_test.h"

#include <infiniband/mlx5dv.h>

static struct ent_dev da, db;
static struct ent_mr amr, bmr;
static uint64_t rng;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static unsigned long env_ul(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : def;
}

static void make(struct ent_qp *a, struct ent_cq *acq, struct ent_qp *b,
		 struct ent_cq *bcq, enum ent_type t)
{
	struct ent_qp_cfg cfg = {
		.type = t, .log_sq = 4, .log_rq = 4, .log_rq_stride = 2,
	};
	struct ent_conn c;

	cfg.scq = cfg.rcq = acq;
	ent_qp_create(&da, a, &cfg);
	cfg.scq = cfg.rcq = bcq;
	ent_qp_create(&db, b, &cfg);
	ent_conn_default(&c);
	c.rnr_retry = 0;
	c.retry_count = 0;
	c.ack_timeout = 1;
	c.remote_qpn = b->qpn;
	ent_qp_to_rts(a, &db, &c);
	c.remote_qpn = a->qpn;
	ent_qp_to_rts(b, &da, &c);
}

static const uint8_t fuzz_ops[] = {
	MLX5_OPCODE_NOP, MLX5_OPCODE_SEND, MLX5_OPCODE_SEND_IMM,
	MLX5_OPCODE_SEND_INVAL, MLX5_OPCODE_RDMA_WRITE,
	MLX5_OPCODE_RDMA_WRITE_IMM, MLX5_OPCODE_RDMA_READ,
	MLX5_OPCODE_ATOMIC_CS, MLX5_OPCODE_ATOMIC_FA,
	MLX5_OPCODE_ATOMIC_MASKED_CS, MLX5_OPCODE_TSO, MLX5_OPCODE_UMR,
};

/* Random bytes, then plausible fields here and there. */
static void scribble(struct ent_qp *qp)
{
	uint8_t *sq = qp->sq;
	size_t len = (size_t)64 << qp->cfg.log_sq;

	for (size_t i = 0; i < len; i++)
		sq[i] = (uint8_t)rnd();
	for (unsigned int bb = 0; bb < (1u << qp->cfg.log_sq); bb++) {
		uint8_t *w = sq + bb * 64;

		if (rnd() % 4)
			w[3] = fuzz_ops[rnd() % sizeof(fuzz_ops)];
		if (rnd() % 2)
			w[7] = (uint8_t)(rnd() % 8);
		for (int k = 16; k < 64; k += 16) {
			uint32_t key = rnd() % 2 ? amr.key : bmr.key;
			uint64_t addr = (uint64_t)(uintptr_t)(key == amr.key ?
					amr.buf : bmr.buf) + rnd() % 70000;
			uint32_t len32 = htobe32(rnd() % 3 ? rnd() % 5000 :
						 rnd());

			if (rnd() % 3)
				continue;
			key = htobe32(key);
			addr = htobe64(addr);
			memcpy(w + k, &len32, 4);
			memcpy(w + k + 4, &key, 4);
			memcpy(w + k + 8, &addr, 8);
		}
	}
}

static unsigned int qp_state(struct ent_qp *qp)
{
	struct fwt_mbox m;

	ent_qp_query(qp, &m);
	return PRM_GET(qpc, PRM_ADDR_OF(query_qp_out, m.out, qpc), state);
}

START_TEST(random_wqes)
{
	unsigned long seed = env_ul("MLX5EMU_FUZZ_SEED", 1);
	unsigned long iters = env_ul("MLX5EMU_FUZZ_ITERS", 60);
	/* Memory right after each registration: never touched. */
	uint8_t *canary_a = amr.buf + amr.len, *canary_b = bmr.buf + bmr.len;
	struct ent_cq acq, bcq, scq, rcq;
	struct ent_qp sa, sb;
	unsigned int base_a, base_b;
	unsigned long nerr = 0, ncqe = 0;

	memset(canary_a, 0x5a, 4096);
	memset(canary_b, 0x5a, 4096);
	ent_cq_init(&da, &scq, 4, 64, false);
	ent_cq_init(&db, &rcq, 4, 64, false);
	make(&sa, &scq, &sb, &rcq, ENT_RC);
	base_a = da.nallocs;
	base_b = db.nallocs;
	rng = seed * 0x9e3779b97f4a7c15ull | 1;
	for (unsigned long it = 0; it < iters; it++) {
		static const enum ent_type types[] = { ENT_RC, ENT_UC, ENT_UD };
		enum ent_type t = types[rnd() % 3];
		struct ent_qp a, b;
		unsigned int st;

		ent_cq_init(&da, &acq, 6, 64, true);
		ent_cq_init(&db, &bcq, 6, 64, true);
		make(&a, &acq, &b, &bcq, t);
		for (int r = 0; r < 4; r++)
			ent_post_recv(&b, bmr.key, (uint64_t)(uintptr_t)bmr.buf,
				      rnd() % 4096);
		scribble(&a);
		a.sq_pi = (uint16_t)(1 + rnd() % 16);
		ent_sq_ring(&a);
		/* Let it run into whatever it runs into. */
		for (int w = 0; w < 100; w++) {
			st = qp_state(&a);
			if (st == MLX5_QPC_STATE_ERR || st == MLX5_QPC_STATE_SQER)
				break;
			usleep(500);
		}
		nerr += st == MLX5_QPC_STATE_ERR || st == MLX5_QPC_STATE_SQER;
		ncqe += atomic_load(&emu_fw_to_cq(emu_fw_obj_lookup_rcu(
			da.fw, EMU_FW_OBJ_CQ, acq.cqn))->hw.pi);
		/* The bystander still works. */
		ent_post_recv(&sb, bmr.key, (uint64_t)(uintptr_t)bmr.buf + 60000,
			      64);
		ent_post1(&sa, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0,
			  &amr, 0, 64, 0, 0);
		ck_assert_msg(ent_cq_next(&scq)[63] >> 4 == MLX5_CQE_REQ,
			      "seed %lu iteration %lu", seed, it);
		ck_assert_msg(ent_cq_next(&rcq)[63] >> 4 == MLX5_CQE_RESP_SEND,
			      "seed %lu iteration %lu", seed, it);
		ck_assert_uint_eq(qp_state(&sa), MLX5_QPC_STATE_RTS);
		ck_assert_uint_eq(fwt_destroy(da.fw, MLX5_CMD_OP_DESTROY_QP,
					      da.uid, a.qpn), 0);
		ck_assert_uint_eq(fwt_destroy(db.fw, MLX5_CMD_OP_DESTROY_QP,
					      db.uid, b.qpn), 0);
		ck_assert_uint_eq(fwt_destroy(da.fw, MLX5_CMD_OP_DESTROY_CQ,
					      da.uid, acq.cqn), 0);
		ck_assert_uint_eq(fwt_destroy(db.fw, MLX5_CMD_OP_DESTROY_CQ,
					      db.uid, bcq.cqn), 0);
		for (int k = 0; k < 4096; k++)
			ck_assert_msg(canary_a[k] == 0x5a && canary_b[k] == 0x5a,
				      "seed %lu iteration %lu: byte %d outside "
				      "the registrations changed", seed, it, k);
		/* Memory of the destroyed queues (the engine let go of it). */
		for (unsigned int i = base_a; i < da.nallocs; i++)
			free(da.allocs[i]);
		for (unsigned int i = base_b; i < db.nallocs; i++)
			free(db.allocs[i]);
		da.nallocs = base_a;
		db.nallocs = base_b;
	}
	/* The driver reached the engine: victims failed, CQEs were written. */
	fprintf(stderr, "fuzz seed %lu: %lu iterations, %lu victims in error, "
		"%lu CQEs\n", seed, iters, nerr, ncqe);
	ck_assert_uint_gt(nerr, 0);
	ck_assert_uint_gt(ncqe, 0);
}
END_TEST

static void setup(void)
{
	ent_dev_init(&da, 0);
	ent_dev_init(&db, 1);
	/* Each MR buffer is followed by a page no mkey covers. */
	ent_mr_init_buf(&da, &amr, da.pd, aligned_alloc(4096, 65536 + 4096),
			65536, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
	ent_mr_init_buf(&db, &bmr, db.pd, aligned_alloc(4096, 65536 + 4096),
			65536, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
	da.allocs[da.nallocs++] = amr.buf;
	db.allocs[db.nallocs++] = bmr.buf;
}

static void teardown(void)
{
	ent_dev_fini(&da);
	ent_dev_fini(&db);
}

int main(void)
{
	Suite *s = suite_create("eng_fuzz");
	TCase *tc = tcase_create("fuzz");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, random_wqes);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
