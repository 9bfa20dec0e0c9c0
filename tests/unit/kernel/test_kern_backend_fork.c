/* SPDX-License-Identifier: MIT */
/*
 * fork(): liburcu's fork handlers are registered with the device, so a
 * child that opens a device of its own runs its deferred frees (300k PD
 * alloc/dealloc stay within a small RSS; without the handlers it grows by
 * one freed PD each) and grace periods end and rcu_barrier() returns
 * there.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_kern_backend.h"

#define FORK_PDS 300000
#define FORK_RSS_MAX (4u << 20)	/* far below one PD object per loop */
#define FORK_WAIT_MS 100000

enum { CHILD_OK, CHILD_OPEN, CHILD_PD, CHILD_RSS };

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FORK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FORK_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define FORK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FORK_TSAN 1
#endif
#endif

#ifdef FORK_TSAN
/* The child starts the call_rcu worker again, which ThreadSanitizer
 * refuses after a fork of a threaded process unless told otherwise. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "die_after_fork=0";
}
#endif
#ifdef FORK_SANITIZED
/* The sanitizer runtimes' allocator statistics (sanitizer/
 * allocator_interface.h, which gcc does not install). */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

/* What the process holds: its RSS; under a sanitizer, whose allocator
 * keeps freed memory in quarantine, the bytes allocated and not freed. */
static size_t mem_bytes(void)
{
#ifdef FORK_SANITIZED
	return __sanitizer_get_current_allocated_bytes();
#else
	unsigned long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu", &pages, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * (size_t)sysconf(_SC_PAGESIZE);
#endif
}

static int child_main(void)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)] = {};
	struct mlx5be_ctx *ctx = NULL;
	size_t before;
	int fd;

	if (BE->open(0, &ctx, &fd))
		return CHILD_OPEN;
	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	before = mem_bytes();
	for (int i = 0; i < FORK_PDS; i++) {
		struct mlx5be_obj *pd = BE->obj_create(ctx, in, sizeof(in), out,
						       sizeof(out));

		if (!pd || BE->obj_destroy(pd))
			return CHILD_PD;
	}
	if (mem_bytes() > before + FORK_RSS_MAX) {
		fprintf(stderr, "child memory grew by %zu KiB\n",
			(mem_bytes() - before) >> 10);
		return CHILD_RSS;
	}
	rcu_barrier();
	BE->close(ctx);
	return CHILD_OK;
}

START_TEST(child_runs_deferred_frees)
{
	struct mlx5be_obj *pd;
	struct mlx5be_ctx *ctx;
	uint32_t pdn;
	int fd, status;
	pid_t pid;

	/* The parent's call_rcu worker exists (a freed PD used it). */
	ctx = kbt_open(&fd);
	pd = kbt_pd(ctx, &pdn);
	ck_assert_int_eq(BE->obj_destroy(pd), 0);
	rcu_barrier();

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(child_main());
	/* A child stuck in a grace period or rcu_barrier() (signals are
	 * blocked there) is killed after a while. */
	for (int ms = 0; waitpid(pid, &status, WNOHANG) == 0; ms += 10) {
		if (ms > FORK_WAIT_MS) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			ck_abort_msg("the child hung (no grace period ends)");
		}
		usleep(10000);
	}
	ck_assert_msg(WIFEXITED(status), "child killed by signal %d",
		      WTERMSIG(status));
	ck_assert_int_eq(WEXITSTATUS(status), CHILD_OK);

	/* The parent goes on as before. */
	pd = kbt_pd(ctx, &pdn);
	ck_assert_int_eq(BE->obj_destroy(pd), 0);
	rcu_barrier();
	BE->close(ctx);
}
END_TEST

Suite *kbt_fork_suite(void)
{
	Suite *s = suite_create("kern_backend_fork");
	TCase *tc = tcase_create("fork");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, child_runs_deferred_frees);
	suite_add_tcase(s, tc);
	return s;
}
