/* SPDX-License-Identifier: MIT */
/*
 * The rule set at run time: rules added and removed while other threads run
 * commands through a device's firmware (counts stay exact, every failure is
 * one a rule gave), removal while a command sleeps in a delay, a delay on
 * the virtual clock, the hook on a real firmware, and fork.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/base/clock.h"
#include "emu/firmware/fw.h"
#include "emu/firmware/fw_syndrome.h"
#include "prm/prm_cmd.h"

#include "fault_test_util.h"

static void setup(void)
{
	ft_reset();
}

/* ---- the hook on a firmware ---- */

START_TEST(firmware_answers_injected)
{
	struct emu_fw *fw = ft_fw(0);
	const struct fw_syndrome *lim = fw_syndrome_by_name("PD_LIMIT");
	uint32_t pdn[3], syndrome;

	ft_add("fail opcode=ALLOC_PD syndrome=PD_LIMIT nth=2");
	ck_assert_uint_eq(ft_alloc_pd(fw, &pdn[0], &syndrome), 0);
	ck_assert_uint_eq(ft_alloc_pd(fw, &pdn[1], &syndrome), lim->status);
	ck_assert_uint_eq(syndrome, lim->value);
	ck_assert_uint_eq(pdn[1], 0);	/* a failed command returns nothing */
	ck_assert_uint_eq(ft_alloc_pd(fw, &pdn[2], &syndrome), 0);
	ck_assert_uint_ne(pdn[0], pdn[2]);
	/* Nothing happened to the device: only two PDs exist. */
	ck_assert_uint_eq(ft_dealloc_pd(fw, pdn[0], NULL), 0);
	ck_assert_uint_eq(ft_dealloc_pd(fw, pdn[2], NULL), 0);
	ck_assert_uint_eq(ft_dealloc_pd(fw, pdn[0], &syndrome),
			  fw_syndrome_by_name("PD_INVALID")->status);
	emu_fw_destroy(fw);
}
END_TEST

/* The device index of a rule is the one the firmware was attached as. */
START_TEST(firmware_dev_index)
{
	struct emu_fw *fw0 = ft_fw(0), *fw1 = ft_fw(1);
	uint32_t pdn;

	ft_add("fail opcode=ALLOC_PD dev=mlx5_1");
	ck_assert_uint_eq(ft_alloc_pd(fw0, &pdn, NULL), 0);
	ck_assert_uint_eq(ft_alloc_pd(fw1, NULL, NULL), MLX5_CMD_STAT_INT_ERR);
	ck_assert_uint_eq(ft_dealloc_pd(fw0, pdn, NULL), 0);
	emu_fw_destroy(fw0);
	emu_fw_destroy(fw1);
}
END_TEST

/* ---- changes under concurrent commands ---- */

#define NTHREADS 4
#define NCHANGES 40		/* rule-set changes while commands run */

static struct emu_fw *stress_fw;
static atomic_int stop_cmds;
static atomic_ulong n_cmds, n_ok, n_pd_limit, n_cq_in_use, n_other;
static atomic_ulong obs_pd_limit, obs_cq_in_use;

static void *stress_worker(void *arg)
{
	const struct fw_syndrome *lim = fw_syndrome_by_name("PD_LIMIT");
	const struct fw_syndrome *cq = fw_syndrome_by_name("CQ_IN_USE");

	while (!atomic_load(&stop_cmds)) {
		uint32_t pdn, syndrome;
		uint8_t st = ft_alloc_pd(stress_fw, &pdn, &syndrome);

		atomic_fetch_add(&n_cmds, 1);
		if (st == 0) {
			atomic_fetch_add(&n_ok, 1);
			if (ft_dealloc_pd(stress_fw, pdn, NULL))
				atomic_fetch_add(&n_other, 1);
		} else if (st == lim->status && syndrome == lim->value) {
			atomic_fetch_add(&n_pd_limit, 1);
		} else if (st == cq->status && syndrome == cq->value) {
			atomic_fetch_add(&n_cq_in_use, 1);
		} else {
			atomic_fetch_add(&n_other, 1);
		}
	}
	return NULL;
}

static void stress_observe(void *arg, const struct emu_fault_event *ev)
{
	if (ev->syndrome == fw_syndrome_by_name("PD_LIMIT")->value)
		atomic_fetch_add(&obs_pd_limit, 1);
	else if (ev->syndrome == fw_syndrome_by_name("CQ_IN_USE")->value)
		atomic_fetch_add(&obs_cq_in_use, 1);
}

START_TEST(changes_under_load)
{
	struct mlx5emu_fault_stats st;
	pthread_t th[NTHREADS];
	char err[EMU_FAULT_ERR_MAX];
	unsigned long total, during[NCHANGES];
	int steady;

	stress_fw = ft_fw(0);
	emu_fault_set_observer(stress_observe, NULL);
	steady = ft_add("fail opcode=ALLOC_PD every=3 syndrome=PD_LIMIT");
	for (int i = 0; i < NTHREADS; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, stress_worker, NULL), 0);
	/* Add and remove rules while the commands run. */
	for (unsigned int c = 0; c < NCHANGES; c++) {
		char text[128];
		int a, b;

		snprintf(text, sizeof(text), "fail opcode=ALLOC_PD prob=0.2 "
			 "seed=%u syndrome=CQ_IN_USE", c);
		a = emu_fault_add_text(text, err, sizeof(err));
		b = emu_fault_add_text("fail opcode=QUERY_HCA_CAP limit=1", err,
				       sizeof(err));
		ck_assert_int_gt(a, 0);
		ck_assert_int_gt(b, 0);
		/* Let some commands see this rule set. */
		for (unsigned long n0 = atomic_load(&n_cmds);
		     atomic_load(&n_cmds) < n0 + 50;)
			;
		ck_assert_int_eq(emu_fault_remove(b), 0);
		ck_assert_int_eq(emu_fault_remove(a), 0);
		during[c] = atomic_load(&n_cmds);
	}
	atomic_store(&stop_cmds, 1);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);

	total = atomic_load(&n_cmds);
	ck_assert_uint_gt(during[NCHANGES - 1], during[0]);	/* overlapped */
	ck_assert_uint_eq(atomic_load(&n_other), 0);
	ck_assert_uint_eq(atomic_load(&n_ok) + atomic_load(&n_pd_limit) +
			  atomic_load(&n_cq_in_use), total);
	ck_assert_uint_gt(atomic_load(&n_cq_in_use), 0);
	/* The steady rule saw every ALLOC_PD and failed every third. */
	ck_assert_int_eq(emu_fault_stats(steady, &st), 0);
	ck_assert_uint_eq(st.matches, total);
	ck_assert_uint_eq(st.injections, total / 3);
	ck_assert_uint_eq(atomic_load(&n_pd_limit), total / 3);
	/* Every injection was reported, and only those. */
	ck_assert_uint_eq(atomic_load(&obs_pd_limit), atomic_load(&n_pd_limit));
	ck_assert_uint_eq(atomic_load(&obs_cq_in_use), atomic_load(&n_cq_in_use));
	emu_fault_set_observer(NULL, NULL);
	emu_fw_destroy(stress_fw);
}
END_TEST

/* Many threads on one rule: the counts are exact. */
static void *hook_worker(void *arg)
{
	for (int i = 0; i < 20000; i++)
		ft_hook(0, MLX5_CMD_OP_CREATE_CQ, 0, 1, NULL, NULL);
	return NULL;
}

START_TEST(exact_counts_across_threads)
{
	struct mlx5emu_fault_stats st;
	pthread_t th[8];
	int every = ft_add("fail opcode=CREATE_CQ every=7");
	int lim = ft_add("fail opcode=CREATE_CQ limit=1000");

	for (int i = 0; i < 8; i++)
		pthread_create(&th[i], NULL, hook_worker, NULL);
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	ck_assert_int_eq(emu_fault_stats(every, &st), 0);
	ck_assert_uint_eq(st.matches, 160000);
	ck_assert_uint_eq(st.injections, 160000 / 7);
	ck_assert_int_eq(emu_fault_stats(lim, &st), 0);
	ck_assert_uint_eq(st.matches, 160000 - 160000 / 7);
	ck_assert_uint_eq(st.injections, 1000);
	ck_assert_int_eq(emu_fault_stats(every, NULL), 0);
}
END_TEST

/* Removing a rule does not wait for a command sleeping in its delay. */
static void *delayed_cmd(void *arg)
{
	ft_hook(0, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, NULL, NULL);
	return NULL;
}

START_TEST(remove_during_delay)
{
	pthread_t th;
	int id = ft_add("delay opcode=QUERY_HCA_CAP ms=300");
	struct mlx5emu_fault_stats st;
	double t0;

	t0 = ft_now_ms();
	pthread_create(&th, NULL, delayed_cmd, NULL);
	do {
		ck_assert_int_eq(emu_fault_stats(id, &st), 0);
	} while (!st.injections);
	ck_assert_int_eq(emu_fault_remove(id), 0);
	ck_assert_double_lt(ft_now_ms() - t0, 250.0);
	pthread_join(th, NULL);
	ck_assert_double_ge(ft_now_ms() - t0, 300.0);
}
END_TEST

/* On the virtual clock (deterministic mode) a delay moves the clock by its
 * length and does not sleep. */
START_TEST(delay_on_the_virtual_clock)
{
	double t0;

	ft_add("delay opcode=QUERY_HCA_CAP ms=3000");
	emu_clock_set_virtual(true);
	t0 = ft_now_ms();
	ft_hook(0, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, NULL, NULL);
	ck_assert_double_lt(ft_now_ms() - t0, 1000.0);
	ck_assert_uint_eq(emu_clock_ns(), 3000000000ull);
	ft_hook(0, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, NULL, NULL);
	ck_assert_uint_eq(emu_clock_ns(), 6000000000ull);
	emu_clock_set_virtual(false);
}
END_TEST

/* fork(): the child has the parent's rules and a usable rule set. */
START_TEST(fork_child)
{
	int id = ft_add("fail opcode=ALLOC_PD");
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char err[EMU_FAULT_ERR_MAX];
		int ok = emu_fault_list(NULL, 0) == 1 &&
			ft_hook(0, MLX5_CMD_OP_ALLOC_PD, 0, 1, NULL, NULL) == 'F' &&
			emu_fault_add_text("fail nth=2", err, sizeof(err)) == id + 1 &&
			emu_fault_remove(id) == 0;

		_exit(ok ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(emu_fault_list(NULL, 0), 1);	/* the parent's, unchanged */
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fault_cmd");
	TCase *tc = tcase_create("engine");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, firmware_answers_injected);
	tcase_add_test(tc, firmware_dev_index);
	tcase_add_test(tc, changes_under_load);
	tcase_add_test(tc, exact_counts_across_threads);
	tcase_add_test(tc, remove_during_delay);
	tcase_add_test(tc, delay_on_the_virtual_clock);
	tcase_add_test(tc, fork_child);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
