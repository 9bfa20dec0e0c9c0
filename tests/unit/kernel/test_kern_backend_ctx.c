/* SPDX-License-Identifier: MIT */
/*
 * Contexts through the ops: open (a memfd cmd_fd and a DEVX uid), close
 * (everything left destroyed, the uid freed), and contexts used from
 * several threads at once.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "test_kern_backend.h"

static bool fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* The cmd_fd is a memfd; every context gets a uid of its own. */
START_TEST(test_open_memfd_uid)
{
	struct mlx5be_ctx *c1, *c2;
	char path[64], target[256];
	struct stat st1, st2;
	unsigned int uctxs;
	int fd1, fd2;
	ssize_t n;

	c1 = kbt_open(&fd1);
	uctxs = emu_fw_obj_count(kbt_fw(c1), EMU_FW_OBJ_UCTX);
	c2 = kbt_open(&fd2);
	ck_assert_uint_eq(emu_fw_obj_count(kbt_fw(c1), EMU_FW_OBJ_UCTX), uctxs + 1);

	ck_assert_int_eq(fstat(fd1, &st1), 0);
	ck_assert(S_ISREG(st1.st_mode));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd1);
	n = readlink(path, target, sizeof(target) - 1);
	ck_assert_int_gt(n, 0);
	target[n] = 0;
	ck_assert_msg(!strncmp(target, "/memfd:", 7), "cmd_fd is %s", target);
	ck_assert_int_eq(fstat(fd2, &st2), 0);
	ck_assert(st1.st_ino != st2.st_ino || st1.st_dev != st2.st_dev);
	ck_assert(fcntl(fd1, F_GETFD) & FD_CLOEXEC);

	ck_assert_uint_ne(kbt_uid(c1), 0);
	ck_assert_uint_ne(kbt_uid(c2), 0);
	ck_assert_uint_ne(kbt_uid(c1), kbt_uid(c2));
	ck_assert(kbt_fw_has(kbt_fw(c1), EMU_FW_OBJ_UCTX, kbt_uid(c1), NULL));
	ck_assert(kbt_fw_has(kbt_fw(c1), EMU_FW_OBJ_UCTX, kbt_uid(c2), NULL));

	BE->close(c2);
	ck_assert(!fd_is_open(fd2));
	ck_assert_uint_eq(emu_fw_obj_count(kbt_fw(c1), EMU_FW_OBJ_UCTX), uctxs);
	BE->close(c1);
	ck_assert(!fd_is_open(fd1));
}
END_TEST

START_TEST(test_open_bad_index)
{
	struct mlx5be_ctx *c = NULL;
	int fd = -7;

	ck_assert_int_eq(BE->open(-1, &c, &fd), -ENODEV);
	ck_assert_int_eq(BE->open(1000, &c, &fd), -ENODEV);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(fd, -7);
}
END_TEST

/* Closing with everything left: CQ, PD, mkey, counters, umems, UARs,
 * an async fd; firmware is back where it was, the uid freed. */
START_TEST(test_close_destroys_all)
{
	struct mlx5be_ctx *keep = kbt_open(NULL), *c;
	struct emu_fw *fw = kbt_fw(keep);
	struct kbt_counts base, now;
	struct mlx5be_uar_info info;
	struct mlx5be_cmd_comp *comp;
	struct kbt_mem mem, spare;
	struct kbt_cq cq, cq2;
	uint32_t pdn, idx;
	uint16_t uid;

	kbt_counts(fw, &base);
	c = kbt_open(NULL);
	uid = kbt_uid(c);
	kbt_cq_create(c, &cq);
	kbt_cq_create(c, &cq2);
	BE->uar_free(cq2.uar);		/* freed while the CQ uses it */
	kbt_mem_reg(c, 8192, &mem);
	kbt_mem_reg(c, 4096, &spare);
	kbt_pd(c, &pdn);
	kbt_mkey(c, pdn, &mem, &idx);
	ck_assert_ptr_nonnull(BE->uar_alloc(c, MLX5DV_UAR_ALLOC_TYPE_BF, &info));
	{
		uint8_t in[PRM_ST_SZ_BYTES(alloc_q_counter_in)] = {};
		uint8_t out[PRM_ST_SZ_BYTES(alloc_q_counter_out)];

		PRM_SET(alloc_q_counter_in, in, opcode, MLX5_CMD_OP_ALLOC_Q_COUNTER);
		ck_assert_ptr_nonnull(BE->obj_create(c, in, sizeof(in), out,
						     sizeof(out)));
	}
	comp = BE->cmd_comp_create(c);	/* outlives the context */
	ck_assert_ptr_nonnull(comp);
	kbt_counts(fw, &now);
	ck_assert_uint_gt(now.n[EMU_FW_OBJ_CQ], base.n[EMU_FW_OBJ_CQ]);

	BE->close(c);
	kbt_counts(fw, &now);
	ck_counts_eq(&now, &base);
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_UCTX, uid, NULL));
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_PD, pdn, NULL));
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_MKEY, idx, NULL));
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_CQ, cq.cqn, NULL));
	kbt_mem_free(&cq.buf);
	kbt_mem_free(&cq.dbr);
	kbt_mem_free(&cq2.buf);
	kbt_mem_free(&cq2.dbr);
	kbt_mem_free(&mem);
	kbt_mem_free(&spare);
	BE->cmd_comp_destroy(comp);
	BE->close(keep);
}
END_TEST

/* Each close gives its uid back: more contexts in turn than the device
 * has uids (1 << log_max_uctx). */
START_TEST(test_close_frees_uid)
{
	struct mlx5be_ctx *keep = kbt_open(NULL);
	struct emu_fw *fw = kbt_fw(keep);
	unsigned int n = (1u << KBT_CAP(keep, log_max_uctx)) + 100;
	unsigned int uctxs = emu_fw_obj_count(fw, EMU_FW_OBJ_UCTX);
	unsigned int pds = emu_fw_obj_count(fw, EMU_FW_OBJ_PD);

	for (unsigned int i = 0; i < n; i++) {
		struct mlx5be_ctx *c = NULL;
		int fd, ret = BE->open(0, &c, &fd);
		uint32_t pdn;

		ck_assert_msg(ret == 0, "open #%u: %s", i, strerror(-ret));
		kbt_pd(c, &pdn);
		BE->close(c);
	}
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_UCTX), uctxs);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_PD), pds);
	BE->close(keep);
}
END_TEST

/* ---- threads ---- */

#define KBT_THREADS 4
#define KBT_ROUNDS 60

static atomic_bool kbt_stop;
static atomic_int kbt_errors;

#define T_CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, \
				#cond);					\
			atomic_fetch_add(&kbt_errors, 1);		\
			return NULL;					\
		}							\
	} while (0)

/* No Check assertions off the main thread: count failures instead. */
static void *worker(void *arg)
{
	struct mlx5be_ctx *c = NULL;
	int fd;

	(void)arg;
	T_CHECK(BE->open(0, &c, &fd) == 0);
	for (int r = 0; r < KBT_ROUNDS; r++) {
		uint8_t pin[PRM_ST_SZ_BYTES(alloc_pd_in)] = {};
		uint8_t pout[PRM_ST_SZ_BYTES(alloc_pd_out)];
		uint8_t cin[PRM_ST_SZ_BYTES(create_cq_in)];
		uint8_t cout[PRM_ST_SZ_BYTES(create_cq_out)];
		struct mlx5be_obj *pd, *cqo;
		struct kbt_cq cq = { 0 };
		void *buf, *dbr;

		PRM_SET(alloc_pd_in, pin, opcode, MLX5_CMD_OP_ALLOC_PD);
		pd = BE->obj_create(c, pin, sizeof(pin), pout, sizeof(pout));
		T_CHECK(pd);

		buf = aligned_alloc(4096, 4096);
		dbr = aligned_alloc(4096, 4096);
		T_CHECK(buf && dbr);
		cq.buf.umem = BE->umem_reg(c, buf, 4096, IBV_ACCESS_LOCAL_WRITE,
					   ~(uint64_t)4095, &cq.buf.id);
		cq.dbr.umem = BE->umem_reg(c, dbr, 8, IBV_ACCESS_LOCAL_WRITE,
					   ~(uint64_t)4095, &cq.dbr.id);
		T_CHECK(cq.buf.umem && cq.dbr.umem);
		cq.uar = BE->uar_alloc(c, MLX5DV_UAR_ALLOC_TYPE_NC, &cq.uar_info);
		T_CHECK(cq.uar);
		T_CHECK(BE->query_eqn(c, 0, &cq.eqn) == 0);
		kbt_cq_in(&cq, cin, KBT_CQ_LOG_SIZE);
		cqo = BE->obj_create(c, cin, sizeof(cin), cout, sizeof(cout));
		T_CHECK(cqo);
		{
			uint8_t qin[PRM_ST_SZ_BYTES(query_cq_in)];
			uint8_t qout[PRM_ST_SZ_BYTES(query_cq_out)];

			kbt_query_cq_in(qin, PRM_GET(create_cq_out, cout, cqn));
			T_CHECK(BE->obj_query(cqo, qin, sizeof(qin), qout,
					      sizeof(qout)) == 0);
		}
		T_CHECK(BE->obj_destroy(cqo) == 0);
		T_CHECK(BE->umem_dereg(cq.buf.umem) == 0);
		T_CHECK(BE->umem_dereg(cq.dbr.umem) == 0);
		BE->uar_free(cq.uar);
		T_CHECK(BE->obj_destroy(pd) == 0);
		free(buf);
		free(dbr);
	}
	BE->close(c);
	return NULL;
}

/* Opens and closes contexts, some with objects left, some imported. */
static void *churner(void *arg)
{
	(void)arg;
	while (!atomic_load(&kbt_stop)) {
		struct mlx5be_ctx *c = NULL, *imp = NULL;
		uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = {};
		uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)];
		int fd, dupfd, idx = -1;

		T_CHECK(BE->open(0, &c, &fd) == 0);
		PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
		T_CHECK(BE->obj_create(c, in, sizeof(in), out, sizeof(out)));
		dupfd = dup(fd);
		T_CHECK(dupfd >= 0);
		T_CHECK(BE->import(dupfd, &imp, &idx) == 0);
		T_CHECK(BE->obj_create(imp, in, sizeof(in), out, sizeof(out)));
		BE->close(c);
		BE->close(imp);
	}
	return NULL;
}

START_TEST(test_threads)
{
	struct mlx5be_ctx *keep = kbt_open(NULL);
	struct emu_fw *fw = kbt_fw(keep);
	pthread_t t[KBT_THREADS], ch;
	struct kbt_counts base, now;

	kbt_counts(fw, &base);
	atomic_store(&kbt_stop, false);
	atomic_store(&kbt_errors, 0);
	ck_assert_int_eq(pthread_create(&ch, NULL, churner, NULL), 0);
	for (int i = 0; i < KBT_THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, worker, NULL), 0);
	for (int i = 0; i < KBT_THREADS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	atomic_store(&kbt_stop, true);
	ck_assert_int_eq(pthread_join(ch, NULL), 0);
	ck_assert_int_eq(atomic_load(&kbt_errors), 0);
	kbt_counts(fw, &now);
	ck_counts_eq(&now, &base);
	BE->close(keep);
}
END_TEST

/* Every slot of the ops table is filled but dp_verdict, which must stay
 * empty: the emulated device applies the data-path rules to the WQEs it
 * runs, and the provider applying them again would fire them twice.
 * What the events' slots do, test_kern_backend_events.c shows. */
START_TEST(test_ops_complete)
{
	const void *const *slot = (const void *const *)(const void *)BE;
	const size_t dp = offsetof(struct mlx5be_ops, dp_verdict) /
			  sizeof(void *);

	_Static_assert(sizeof(struct mlx5be_ops) % sizeof(void *) == 0,
		       "the ops table is pointers only");
	for (size_t i = 0; i < sizeof(struct mlx5be_ops) / sizeof(void *); i++)
		ck_assert_msg((slot[i] != NULL) == (i != dp),
			      "slot %zu of mlx5be_emu_ops", i);
}
END_TEST

/*
 * set_uctx_ucaps: a granted ucap becomes its uctx_cap bit only when the
 * firmware has that bit; else the DEVX context fails with EOPNOTSUPP (all
 * emulated devices share one configuration, so only a device of its own
 * makes this reachable from outside).
 */
START_TEST(test_ucaps_uctx_cap)
{
	struct kern_dev kd;
	uint32_t cap = 0;

	memset(&kd, 0, sizeof(kd));
	PRM_SET(cmd_hca_cap, kd.cap_gen, uctx_cap, 0x8);	/* RDMA_CTRL */
	ck_assert_int_eq(kern_ucaps_uctx_cap(&kd, 1u << KERN_UCAP_CTRL_LOCAL,
					     &cap), 0);
	ck_assert_uint_eq(cap, 0x8);
	cap = 0;
	ck_assert_int_eq(kern_ucaps_uctx_cap(&kd, (1u << KERN_UCAP_CTRL_LOCAL) |
					     (1u << KERN_UCAP_CTRL_OTHER_VHCA),
					     &cap), -EOPNOTSUPP);
	cap = 0;
	ck_assert_int_eq(kern_ucaps_uctx_cap(&kd, 0, &cap), 0);
	ck_assert_uint_eq(cap, 0);
	ck_assert_str_eq(kern_ucap_name(KERN_UCAP_CTRL_OTHER_VHCA),
			 "mlx5_perm_ctrl_other_vhca");
}
END_TEST

/* ib_get_ucaps: a closed descriptor EBADF, a file that is no node EINVAL. */
START_TEST(test_ucaps_from_fds)
{
	uint64_t mask = 1;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), bad = 1000;

	ck_assert_int_eq(kern_ucaps_from_fds(NULL, 0, &mask), 0);
	ck_assert_uint_eq(mask, 0);
	ck_assert_int_eq(kern_ucaps_from_fds(&bad, 1, &mask), -EBADF);
	ck_assert_int_eq(kern_ucaps_from_fds(&fd, 1, &mask), -EINVAL);
	close(fd);
}
END_TEST

Suite *kbt_ctx_suite(void)
{
	Suite *s = suite_create("kern_backend_ctx");
	TCase *tc = tcase_create("ctx");

	tcase_add_test(tc, test_open_memfd_uid);
	tcase_add_test(tc, test_open_bad_index);
	tcase_add_test(tc, test_close_destroys_all);
	tcase_add_test(tc, test_close_frees_uid);
	tcase_add_test(tc, test_ops_complete);
	tcase_add_test(tc, test_ucaps_uctx_cap);
	tcase_add_test(tc, test_ucaps_from_fds);
	suite_add_tcase(s, tc);

	tc = tcase_create("threads");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_threads);
	suite_add_tcase(s, tc);
	return s;
}
