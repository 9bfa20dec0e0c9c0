/* SPDX-License-Identifier: MIT */
/*
 * Fork tracking of registered memory (provider/core/fork_mem.c), through
 * the drop-in libraries, against what rdma-core 44's libibverbs and
 * libmlx5 do: with tracking on (ibv_fork_init() or RDMAV_FORK_SAFE /
 * IBV_FORK_SAFE set to anything but "0" at the first device list), every
 * page of an MR, a DEVX umem or a queue buffer is MADV_DONTFORK while
 * something uses it; ibv_fork_init() after a registration is EINVAL; and
 * ibv_is_fork_initialized() stays IBV_FORK_UNNEEDED.  Threaded mode.
 *
 * The oracle is the kernel: the "dc" (do not copy) flag in VmFlags of
 * /proc/self/smaps, and in a forked child, mincore() failing with ENOMEM
 * on a page that was not inherited.  Check runs each test in a fresh
 * child, so each starts with tracking off.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "verbs_test.h"
#include "ut_env.h"

#define PG 4096ul

int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

/* Whether the page holding @addr is MADV_DONTFORK (smaps VmFlags "dc"). */
static bool dontcopy(const void *addr)
{
	unsigned long start, end;
	char line[512];
	bool in = false, dc = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = (unsigned long)addr >= start &&
			     (unsigned long)addr < end;
		else if (in && !strncmp(line, "VmFlags:", 8)) {
			dc = strstr(line, " dc") != NULL;
			break;
		}
	}
	fclose(f);
	return dc;
}

/* Four fresh pages of their own mapping. */
static char *pages(void)
{
	char *p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	memset(p, 1, 4 * PG);
	return p;
}

/*
 * Two pages followed by a hole that stays one: far below where the kernel
 * places mappings (top-down, near the stack) and away from the program and
 * its heap, so no other thread's mmap fills the hole during the test.  The
 * first of a few such places a sanitizer's shadow memory leaves free.
 */
static char *holed_pages(void)
{
	static const unsigned long at[] = { 0x200000000ul, 0x300000000000ul,
					    0x600000000000ul };

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		char *p = mmap((void *)at[i], 2 * PG, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS |
			       MAP_FIXED_NOREPLACE, -1, 0);

		if (p == MAP_FAILED)
			continue;
		ck_assert_ptr_eq(p, (void *)at[i]);
		if (msync(p + 2 * PG, PG, MS_ASYNC) == -1 && errno == ENOMEM)
			return p;
		munmap(p, 2 * PG);
	}
	ck_abort_msg("no place for two pages and a hole");
	return NULL;
}

/* In a child: whether each of the four pages at @p was inherited. */
static unsigned int inherited(char *p)
{
	unsigned char v;
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		unsigned int mask = 0;

		for (int i = 0; i < 4; i++)
			if (!mincore(p + i * PG, PG, &v))
				mask |= 1u << i;
			else if (errno != ENOMEM)
				_exit(99);
		_exit((int)mask);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return (unsigned int)WEXITSTATUS(st);
}

static unsigned int marked(const char *p)
{
	unsigned int mask = 0;

	for (int i = 0; i < 4; i++)
		mask |= (unsigned int)dontcopy(p + i * PG) << i;
	return mask;
}

static struct ibv_context *ctx;
static struct ibv_pd *pd;

static void open_pd(bool devx)
{
	ctx = vt_open(devx);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
}

static void close_pd(void)
{
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

/* An MR's pages (the partial ones included) are kept from a child. */
START_TEST(mr_pages_not_inherited)
{
	char *p = pages();
	struct ibv_mr *mr;

	ut_clear_env();
	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(ibv_fork_init(), 0);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
	open_pd(false);
	mr = ibv_reg_mr(pd, p + PG + 100, PG, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert_uint_eq(marked(p), 0x6);
	ck_assert_uint_eq(inherited(p), 0x9);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_uint_eq(marked(p), 0);
	ck_assert_uint_eq(inherited(p), 0xf);
	close_pd();
}
END_TEST

/* A page stays marked while any of its users lives. */
START_TEST(shared_page_counts_users)
{
	char *p = pages();
	struct ibv_mr *a, *b;

	ut_clear_env();
	ck_assert_int_eq(ibv_fork_init(), 0);
	open_pd(false);
	a = ibv_reg_mr(pd, p, 2 * PG, IBV_ACCESS_LOCAL_WRITE);
	b = ibv_reg_mr(pd, p + PG, 2 * PG, IBV_ACCESS_LOCAL_WRITE);
	ck_assert(a && b);
	ck_assert_uint_eq(marked(p), 0x7);
	ck_assert_int_eq(ibv_dereg_mr(a), 0);
	ck_assert_uint_eq(marked(p), 0x6);
	ck_assert_int_eq(ibv_dereg_mr(b), 0);
	ck_assert_uint_eq(marked(p), 0);
	/* The raw calls count alike. */
	ck_assert_int_eq(ibv_dontfork_range(p, PG), 0);
	ck_assert_int_eq(ibv_dontfork_range(p, 10), 0);
	ck_assert_int_eq(ibv_dofork_range(p, PG), 0);
	ck_assert_uint_eq(marked(p), 0x1);
	ck_assert_int_eq(ibv_dofork_range(p, 10), 0);
	ck_assert_uint_eq(marked(p), 0);
	close_pd();
}
END_TEST

/* Without tracking nothing is marked, and fork_init comes too late. */
START_TEST(untracked_then_too_late)
{
	char *p = pages();
	struct ibv_mr *mr;

	ut_clear_env();
	open_pd(false);
	mr = ibv_reg_mr(pd, p, PG, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert_uint_eq(marked(p), 0);
	ck_assert_uint_eq(inherited(p), 0xf);
	ck_assert_int_eq(ibv_fork_init(), EINVAL);
	ck_assert_int_eq(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	close_pd();
}
END_TEST

/* A raw call without tracking is also a use: then fork_init is late. */
START_TEST(untracked_raw_call_too_late)
{
	char page[64];

	ck_assert_int_eq(ibv_dontfork_range(page, sizeof(page)), 0);
	ck_assert_int_eq(ibv_fork_init(), EINVAL);
}
END_TEST

static void env_tracking(const char *name, const char *value, bool on)
{
	char *p = pages();
	struct ibv_mr *mr;

	ut_clear_env();
	unsetenv("RDMAV_FORK_SAFE");
	unsetenv("IBV_FORK_SAFE");
	setenv(name, value, 1);
	open_pd(false);
	mr = ibv_reg_mr(pd, p, PG, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert_uint_eq(marked(p), on ? 0x1 : 0);
	ck_assert_int_eq(ibv_fork_init(), on ? 0 : EINVAL);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	close_pd();
}

START_TEST(env_rdmav_fork_safe)
{
	env_tracking("RDMAV_FORK_SAFE", "1", true);
}
END_TEST

START_TEST(env_ibv_fork_safe)
{
	env_tracking("IBV_FORK_SAFE", "yes", true);
}
END_TEST

START_TEST(env_fork_safe_zero)
{
	env_tracking("RDMAV_FORK_SAFE", "0", false);
}
END_TEST

/* madvise's error is the call's, and the call changes nothing. */
START_TEST(hole_fails_and_rolls_back)
{
	char *p = holed_pages();
	struct ibv_mr *mr;

	ut_clear_env();
	ck_assert_int_eq(ibv_fork_init(), 0);
	open_pd(false);
	errno = 0;
	ck_assert_int_eq(ibv_dontfork_range(p, 3 * PG), -1);
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert(!dontcopy(p) && !dontcopy(p + PG));
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(pd, p + PG, 2 * PG,
				      IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert(!dontcopy(p + PG));
	/* The count is untouched: one user marks, its release clears. */
	mr = ibv_reg_mr(pd, p + PG, PG, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert(dontcopy(p + PG));
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert(!dontcopy(p + PG));
	close_pd();
}
END_TEST

/* rereg with CHANGE_TRANSLATION moves the mark; its failures say which
 * fork step failed, as libibverbs' codes do. */
START_TEST(rereg_moves_the_mark)
{
	char *p = pages();
	struct ibv_mr *mr;

	ut_clear_env();
	ck_assert_int_eq(ibv_fork_init(), 0);
	open_pd(false);
	mr = ibv_reg_mr(pd, p, PG, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
				      p + 2 * PG, PG, 0), 0);
	ck_assert_uint_eq(marked(p), 0x4);
	/* The kernel refuses (remote write without local write): the new
	 * range is given back, the old one stays marked. */
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION |
				      IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      p + 3 * PG, PG, IBV_ACCESS_REMOTE_WRITE),
			 IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_uint_eq(marked(p), 0x4);
	/* A range that cannot be marked never reaches the kernel. */
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
				      holed_pages() + PG, 2 * PG, 0),
			 IBV_REREG_MR_ERR_DONT_FORK_NEW);
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_ptr_eq(mr->addr, p + 2 * PG);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert(!dontcopy(p + 2 * PG));
	close_pd();
}
END_TEST

/* Queue buffers and DEVX umems, as libmlx5 allocates and registers. */
START_TEST(queues_and_umems)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct mlx5dv_devx_umem *umem;
	struct mlx5dv_obj obj = { 0 };
	struct mlx5dv_qp dvqp;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	char *p = pages();

	ut_clear_env();
	ck_assert_int_eq(ibv_fork_init(), 0);
	open_pd(true);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	qa.send_cq = qa.recv_cq = cq;
	qp = ibv_create_qp(pd, &qa);
	ck_assert_ptr_nonnull(qp);
	obj.qp.in = qp;
	obj.qp.out = &dvqp;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	ck_assert(dontcopy(dvqp.sq.buf));

	umem = mlx5dv_devx_umem_reg(ctx, p, 2 * PG, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(umem);
	ck_assert_uint_eq(marked(p), 0x3);
	ck_assert_int_eq(mlx5dv_devx_umem_dereg(umem), 0);
	ck_assert_uint_eq(marked(p), 0);
	/* The kernel's refusal (no such access bit) gives the range back. */
	ck_assert_ptr_null(mlx5dv_devx_umem_reg(ctx, p, PG, 1u << 30));
	ck_assert_uint_eq(marked(p), 0);

	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	close_pd();
}
END_TEST

/* A child with tracked queues exits cleanly (exit handlers touch none of
 * them) and the parent's queues work on. */
START_TEST(child_exits_cleanly)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	pid_t pid;
	int st;

	ut_clear_env();
	ck_assert_int_eq(ibv_fork_init(), 0);
	open_pd(false);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	qa.send_cq = qa.recv_cq = cq;
	qp = ibv_create_qp(pd, &qa);
	ck_assert_ptr_nonnull(qp);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		exit(0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x", st);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	close_pd();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("verbs_fork_mem");
	TCase *tc = tcase_create("fork_mem");

	tcase_add_test(tc, mr_pages_not_inherited);
	tcase_add_test(tc, shared_page_counts_users);
	tcase_add_test(tc, untracked_then_too_late);
	tcase_add_test(tc, untracked_raw_call_too_late);
	tcase_add_test(tc, env_rdmav_fork_safe);
	tcase_add_test(tc, env_ibv_fork_safe);
	tcase_add_test(tc, env_fork_safe_zero);
	tcase_add_test(tc, hole_fails_and_rolls_back);
	tcase_add_test(tc, rereg_moves_the_mark);
	tcase_add_test(tc, queues_and_umems);
	tcase_add_test(tc, child_exits_cleanly);
	suite_add_tcase(s, tc);
	return vt_run(s);
}
