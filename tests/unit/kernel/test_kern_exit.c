/* SPDX-License-Identifier: MIT */
/*
 * Process exit with contexts, QPs and traffic still live (the engine
 * suites' DEVX player through the backend ops): exit() from main while
 * another thread posts and polls, and exit() from a thread while main
 * does.  The process ends promptly with status 0 (no hang: the engine
 * stops before anything else goes), and under AddressSanitizer without a
 * report (its reports make the status non-zero).  Each case runs in the
 * engine mode its name says.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emu/firmware/fw_objs.h"	/* first: liburcu, bp flavour */

#include <check.h>

#include <infiniband/mlx5dv.h>

#include "emu/engine/eng.h"
#include "devx_player.h"

static struct dp_player srv, cli;

/* Without a thread of its own the device moves in the pollers' calls. */
static void spin(void)
{
	if (!emu_eng_threaded())
		emu_eng_progress(EMU_ENG_WHY_POLL);
}

/* SEND after SEND, forever. */
static void *traffic(void *arg)
{
	for (uint32_t i = 0;; i++) {
		dp_post_recv(&srv);
		dp_post_send(&cli, i, true);
		if (!emu_eng_threaded())
			emu_eng_progress(EMU_ENG_WHY_DOORBELL);
		dp_poll_cq(&cli, spin);
		dp_poll_cq(&srv, spin);
	}
	return arg;
}

static void *exit_soon(void *arg)
{
	usleep(50000);
	exit(0);
	return arg;
}

static void start(const char *mode)
{
	setenv("MLX5EMU_ENGINE_MODE", mode, 1);
	dp_player_init(&srv);
	dp_player_init(&cli);
	dp_to_rts(&srv, &cli, 0x100, 0x200);
	dp_to_rts(&cli, &srv, 0x200, 0x100);
}

/* The child's status within 10 s, or the test fails (a hang). */
static void run(const char *mode, bool from_thread)
{
	struct timespec t0, t;
	pid_t pid;
	int st = 0;

	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pthread_t th;

		start(mode);
		if (from_thread) {
			pthread_create(&th, NULL, exit_soon, NULL);
			traffic(NULL);
		}
		pthread_create(&th, NULL, traffic, NULL);
		usleep(50000);
		exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (waitpid(pid, &st, WNOHANG) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= 10) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			ck_abort_msg("exit hangs (%s)", mode);
		}
		usleep(10000);
	}
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "exit with traffic (%s): status 0x%x", mode, st);
}

START_TEST(exit_from_main_threaded)
{
	run("threaded", false);
}
END_TEST

START_TEST(exit_from_thread_threaded)
{
	run("threaded", true);
}
END_TEST

START_TEST(exit_from_main_deterministic)
{
	run("deterministic", false);
}
END_TEST

START_TEST(exit_from_thread_inline)
{
	run("inline", true);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kern_exit");
	TCase *tc = tcase_create("exit");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, exit_from_main_threaded);
	tcase_add_test(tc, exit_from_thread_threaded);
	tcase_add_test(tc, exit_from_main_deterministic);
	tcase_add_test(tc, exit_from_thread_inline);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
