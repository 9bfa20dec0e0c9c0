/* SPDX-License-Identifier: MIT */
/*
 * ibv_import_device through the ops: a context imported from a dup() of a
 * cmd_fd shares the ucontext (uid, objects, UAR pages) and keeps it alive
 * until both contexts are closed; each context closes its own cmd_fd.
 * Descriptors that are no cmd_fd fail as rdma-core 44's ibv_import_device
 * fails them (EINVAL, ENODEV for a character device), left open.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "test_kern_backend.h"

static bool fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static struct mlx5be_ctx *import_dup(int cmd_fd, int *dupfd)
{
	struct mlx5be_ctx *c = NULL;
	int fd = dup(cmd_fd), ret, index = -1;

	ck_assert_int_ge(fd, 0);
	ret = BE->import(fd, &c, &index);
	ck_assert_msg(ret == 0, "import: %s", strerror(-ret));
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(index, 0);	/* the device the original opened */
	if (dupfd)
		*dupfd = fd;
	return c;
}

/* Same uid; objects of one are objects of the other. */
START_TEST(test_import_shares_ucontext)
{
	unsigned int uctxs;
	struct mlx5be_ctx *c1, *c2;
	struct mlx5be_obj *pd, *mk;
	struct kbt_mem mem;
	uint32_t pdn, idx;
	uint16_t owner;
	int fd1, fd2;

	c1 = kbt_open(&fd1);
	uctxs = emu_fw_obj_count(kbt_fw(c1), EMU_FW_OBJ_UCTX);
	c2 = import_dup(fd1, &fd2);
	ck_assert_ptr_ne(c1, c2);
	ck_assert_uint_eq(emu_fw_obj_count(kbt_fw(c1), EMU_FW_OBJ_UCTX), uctxs);
	ck_assert_uint_eq(kbt_uid(c2), kbt_uid(c1));

	/* A PD made through c1, an mkey on it through c2 (one uid). */
	pd = kbt_pd(c1, &pdn);
	kbt_mem_reg(c2, 4096, &mem);
	mk = kbt_mkey(c2, pdn, &mem, &idx);
	ck_assert(kbt_fw_has(kbt_fw(c1), EMU_FW_OBJ_MKEY, idx, &owner));
	ck_assert_uint_eq(owner, kbt_uid(c1));
	ck_assert_uint_eq(kbt_fw_last_uid(), kbt_uid(c1));
	/* Handles of either work through either's objects. */
	ck_assert_int_eq(BE->obj_destroy(mk), 0);
	ck_assert_int_eq(BE->obj_destroy(pd), 0);
	kbt_mem_dereg(&mem);
	BE->close(c2);
	ck_assert(!fd_is_open(fd2));
	ck_assert(fd_is_open(fd1));
	BE->close(c1);
	ck_assert(!fd_is_open(fd1));
}
END_TEST

/* The original goes first: nothing of the ucontext goes with it. */
START_TEST(test_import_close_original_first)
{
	struct mlx5be_ctx *keep = kbt_open(NULL), *c1, *c2;
	struct emu_fw *fw = kbt_fw(keep);
	struct kbt_counts base, mid, now;
	struct mlx5be_uar_info info;
	struct mlx5be_uar *uar;
	struct mlx5be_cmd_comp *comp;
	struct kbt_cq cq, cq2;
	volatile uint32_t *app;
	uint32_t pdn;
	uint16_t uid;
	int fd1, fd2;

	kbt_counts(fw, &base);
	c1 = kbt_open(&fd1);
	uid = kbt_uid(c1);
	kbt_cq_create(c1, &cq);
	kbt_pd(c1, &pdn);
	c2 = import_dup(fd1, &fd2);
	comp = BE->cmd_comp_create(c2);
	ck_assert_ptr_nonnull(comp);
	kbt_counts(fw, &mid);

	BE->close(c1);
	ck_assert(!fd_is_open(fd1));
	ck_assert(fd_is_open(fd2));
	kbt_counts(fw, &now);
	ck_counts_eq(&now, &mid);
	ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_UCTX, uid, NULL));
	ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_CQ, cq.cqn, NULL));

	/* c2 goes on: the CQ made through c1, new objects, a UAR page of
	 * the shared memfd mapped through c2's cmd_fd, the async fd. */
	{
		uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];
		uint8_t out[PRM_ST_SZ_BYTES(query_cq_out)];
		struct mlx5be_async_cmd_resp resp = { .out = out,
						      .outlen = sizeof(out) };

		kbt_query_cq_in(in, cq.cqn);
		ck_assert_int_eq(BE->obj_query(cq.obj, in, sizeof(in), out,
					       sizeof(out)), 0);
		ck_assert_int_eq(BE->obj_query_async(cq.obj, in, sizeof(in),
						     sizeof(out), 9, comp), 0);
		ck_assert_int_eq(BE->cmd_comp_get(comp, &resp), 0);
		ck_assert_uint_eq(resp.wr_id, 9);
		ck_synd(out, "OK");
	}
	kbt_cq_create(c2, &cq2);
	uar = BE->uar_alloc(c2, MLX5DV_UAR_ALLOC_TYPE_BF, &info);
	ck_assert_ptr_nonnull(uar);
	app = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd2,
		   info.mmap_off);
	ck_assert_ptr_ne((void *)app, MAP_FAILED);
	app[0x40] = 0xabcdef01;
	ck_assert_uint_eq(((volatile uint32_t *)uar->page)[0x40], 0xabcdef01);
	munmap((void *)app, 4096);
	kbt_cq_destroy(&cq2);

	BE->close(c2);
	ck_assert(!fd_is_open(fd2));
	kbt_counts(fw, &now);
	ck_counts_eq(&now, &base);
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_UCTX, uid, NULL));
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_PD, pdn, NULL));
	BE->cmd_comp_destroy(comp);
	kbt_mem_free(&cq.buf);
	kbt_mem_free(&cq.dbr);
	BE->close(keep);
}
END_TEST

/* The imported one goes first: the original keeps everything. */
START_TEST(test_import_close_imported_first)
{
	struct mlx5be_ctx *keep = kbt_open(NULL), *c1, *c2;
	struct emu_fw *fw = kbt_fw(keep);
	struct kbt_counts base, mid, now;
	struct kbt_cq cq;
	uint32_t pdn;
	int fd1, fd2;

	kbt_counts(fw, &base);
	c1 = kbt_open(&fd1);
	c2 = import_dup(fd1, &fd2);
	kbt_cq_create(c2, &cq);
	kbt_pd(c2, &pdn);
	kbt_counts(fw, &mid);
	BE->close(c2);
	ck_assert(!fd_is_open(fd2));
	ck_assert(fd_is_open(fd1));
	kbt_counts(fw, &now);
	ck_counts_eq(&now, &mid);
	/* A third context from another dup of the same cmd_fd. */
	c2 = import_dup(fd1, &fd2);
	ck_assert_uint_eq(kbt_uid(c2), kbt_uid(c1));
	BE->close(c2);
	kbt_cq_destroy(&cq);		/* through c1's view now */
	BE->close(c1);
	kbt_counts(fw, &now);
	ck_counts_eq(&now, &base);
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_PD, pdn, NULL));
	BE->close(keep);
}
END_TEST

/* What is no cmd_fd of a live context fails as ibv_import_device fails
 * it, before any provider: EINVAL (not open, not a character device),
 * ENODEV (a character device of no device); the fd stays open. */
START_TEST(test_import_unknown_fd)
{
	struct mlx5be_ctx *c1, *none = NULL;
	int idx = -1;
	int fd1, pipefd[2], dn, mfd, stale, closed;

	c1 = kbt_open(&fd1);
	ck_assert_int_eq(pipe(pipefd), 0);
	mfd = memfd_create("not-ours", MFD_CLOEXEC);
	ck_assert_int_ge(mfd, 0);
	dn = open("/dev/null", O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(dn, 0);
	closed = dup(pipefd[0]);
	close(closed);
	{
		struct mlx5be_ctx *gone = kbt_open(&stale);

		stale = dup(stale);	/* outlives its context */
		BE->close(gone);
	}

	ck_assert_int_eq(BE->import(pipefd[0], &none, &idx), -EINVAL);
	ck_assert_int_eq(BE->import(mfd, &none, &idx), -EINVAL);
	ck_assert_int_eq(BE->import(closed, &none, &idx), -EINVAL);
	ck_assert_int_eq(BE->import(-1, &none, &idx), -EINVAL);
	ck_assert_int_eq(BE->import(stale, &none, &idx), -EINVAL);
	ck_assert_int_eq(BE->import(dn, &none, &idx), -ENODEV);
	ck_assert_ptr_null(none);
	ck_assert(fd_is_open(pipefd[0]) && fd_is_open(mfd) && fd_is_open(dn) &&
		  fd_is_open(stale));
	ck_assert(fd_is_open(fd1));
	close(pipefd[0]);
	close(pipefd[1]);
	close(mfd);
	close(dn);
	close(stale);
	BE->close(c1);
}
END_TEST

Suite *kbt_import_suite(void)
{
	Suite *s = suite_create("kern_backend_import");
	TCase *tc = tcase_create("import");

	tcase_add_test(tc, test_import_shares_ucontext);
	tcase_add_test(tc, test_import_close_original_first);
	tcase_add_test(tc, test_import_close_imported_first);
	tcase_add_test(tc, test_import_unknown_fd);
	suite_add_tcase(s, tc);
	return s;
}
