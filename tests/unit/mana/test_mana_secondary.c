/* SPDX-License-Identifier: MIT */
/*
 * A doorbell rung through another process's mapping of cmd_fd, as a DPDK
 * secondary process rings it: the primary builds the queues and writes the
 * WQEs, a forked child maps offset 0 of the context's cmd_fd itself and
 * stores the doorbells there.  That mapping cannot be trapped; the device
 * samples the page, so each doorbell whose value changed the slot is seen,
 * later than a trapped one.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

#include "mana_pmd.h"
#include "ut_run.h"

enum { FLEN = 60, WQES = 8 };

/* In a child process: map cmd_fd's doorbell page and ring the SQ for each
 * of @n WQEs, one store each, waiting between them as bursts do. */
static void secondary_ring(int cmd_fd, uint32_t sq_id, unsigned int n)
{
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		void *page = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, cmd_fd, 0);

		if (page == MAP_FAILED)
			_exit(2);
		for (unsigned int i = 1; i <= n; i++) {
			mp_doorbell(page, 0, sq_id, 32 * i);
			usleep(20000);
		}
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

START_TEST(secondary_doorbells_are_sampled)
{
	struct mp_txq t;

	mp_txq_open(&t, false);
	for (unsigned int i = 0; i < WQES; i++)
		mp_txq_post(&t, FLEN);
	__atomic_thread_fence(__ATOMIC_RELEASE);

	/* nothing rung yet: nothing sent */
	usleep(100000);
	ck_assert(mp_cqe_at(t.dc.buf, t.dc.count, 0) == NULL);
	secondary_ring(t.ctx->cmd_fd, t.dq.sq_id, WQES);
	/* the last doorbell's tail covers all: every WQE completes */
	for (unsigned int i = 0; i < WQES; i++) {
		const volatile uint8_t *c = mp_cqe_wait(t.dc.buf, t.dc.count, i);

		ck_assert_msg(c != NULL, "CQE %u", i);
		ck_assert_uint_eq(mp_get32(c) & 0x3f, 32);	/* TX_OKAY */
	}
	ck_assert(mp_cqe_at(t.dc.buf, t.dc.count, WQES) == NULL);

	mp_txq_close(&t, true);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_secondary");
	TCase *tc = tcase_create("sampled");

	setenv("MLX5EMU_MANA_DEVICES", "1", 1);
	tcase_add_test(tc, secondary_doorbells_are_sampled);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
