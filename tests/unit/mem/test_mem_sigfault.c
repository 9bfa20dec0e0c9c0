/* SPDX-License-Identifier: MIT */
/*
 * The fault dispatcher (emu/mem/sigfault.h) under the checked accessors:
 * faults that are not a guarded application access reach whatever handler
 * the process had before us (the application's, AddressSanitizer's) or the
 * default action, exactly as they would without the emulator; guarded ones
 * never do.
 */
#include <check.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/mem/mem.h"
#include "emu/mem/sigfault.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static sigjmp_buf back;
static volatile sig_atomic_t app_seen, app_sig;
static void *volatile app_addr;

static void app_handler_info(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	app_seen++;
	app_sig = sig;
	app_addr = si->si_addr;
	siglongjmp(back, 1);
}

static void app_handler_plain(int sig)
{
	app_seen++;
	app_sig = sig;
	siglongjmp(back, 1);
}

static void install_app_handler(int sig, bool info)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	if (info) {
		sa.sa_sigaction = app_handler_info;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	} else {
		sa.sa_handler = app_handler_plain;
		sa.sa_flags = SA_NODEFER;
	}
	ck_assert_int_eq(sigaction(sig, &sa, NULL), 0);
}

static uint8_t *none_page(void)
{
	uint8_t *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

/* The application's handler, installed first, still gets its own faults
 * (a stray access outside any guard) with the right address. */
START_TEST(test_chain_to_earlier_handler)
{
	uint8_t *p = none_page(), buf[8];

	install_app_handler(SIGSEGV, true);
	ck_assert_int_eq(emu_mem_init(), 0);
	/* Guarded: ours, the application's handler never hears of it. */
	ck_assert_int_eq(emu_mem_read(buf, p, 8), -EFAULT);
	ck_assert_int_eq(app_seen, 0);
	if (sigsetjmp(back, 1) == 0) {
		*(volatile uint8_t *)(p + 3) = 1;
		ck_abort_msg("the store to a PROT_NONE page went through");
	}
	ck_assert_int_eq(app_seen, 1);
	ck_assert_int_eq(app_sig, SIGSEGV);
	ck_assert_ptr_eq(app_addr, p + 3);
	munmap(p, 4096);
}
END_TEST

/* A fault inside an accessor but outside its application range (the
 * device model's own memory: a bug) is not swallowed. */
START_TEST(test_own_memory_fault_not_swallowed)
{
	uint8_t *p = none_page(), src[8] = { 0 };

	install_app_handler(SIGSEGV, true);
	ck_assert_int_eq(emu_mem_init(), 0);
	if (sigsetjmp(back, 1) == 0) {
		emu_mem_read(p, src, sizeof(src));	/* dst is "ours" */
		ck_abort_msg("a fault on the device model's memory was recovered");
	}
	ck_assert_int_eq(app_seen, 1);
	ck_assert_ptr_eq(app_addr, p);
	/* And the next guarded access still recovers. */
	ck_assert_int_eq(emu_mem_write(p, src, 1), -EFAULT);
	ck_assert_int_eq(app_seen, 1);
	munmap(p, 4096);
}
END_TEST

START_TEST(test_chain_plain_handler_sigbus)
{
	install_app_handler(SIGBUS, false);
	ck_assert_int_eq(emu_mem_init(), 0);
	if (sigsetjmp(back, 1) == 0) {
		raise(SIGBUS);
		ck_abort_msg("SIGBUS returned");
	}
	ck_assert_int_eq(app_seen, 1);
	ck_assert_int_eq(app_sig, SIGBUS);
}
END_TEST

/*
 * With nothing installed before us, a stray fault kills the process with
 * SIGSEGV (a sent one too); under AddressSanitizer its handler was first,
 * so it reports the fault.
 */
static void child_stray(bool sent, int errfd)
{
	uint8_t *p = none_page();

	dup2(errfd, 2);
	if (emu_mem_init())
		_exit(3);
	if (sent)
		raise(SIGSEGV);
	else
		*(volatile uint8_t *)p = 1;
	_exit(0);
}

static void check_stray(bool sent)
{
	char out[4096];
	int fds[2], st;
	ssize_t n, got = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		child_stray(sent, fds[1]);
	}
	close(fds[1]);
	while ((n = read(fds[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = 0;
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
#ifdef UNDER_ASAN
	ck_assert_msg(!(WIFEXITED(st) && WEXITSTATUS(st) == 0),
		      "stray fault survived");
	if (!sent)
		ck_assert_msg(strstr(out, "AddressSanitizer") != NULL,
			      "ASan did not report the fault: %s", out);
#else
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
		      "child status %#x, stderr: %s", st, out);
#endif
}

START_TEST(test_default_action_fault)
{
	check_stray(false);
}
END_TEST

START_TEST(test_default_action_sent)
{
	check_stray(true);
}
END_TEST

static bool first_client(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	return false;
}

START_TEST(test_register_idempotent)
{
	ck_assert_int_eq(emu_sigfault_register(first_client), 0);
	ck_assert_int_eq(emu_sigfault_register(first_client), 0);
	ck_assert_int_eq(emu_sigfault_register(NULL), -EINVAL);
	/* A client that declines leaves the next one (mem) its chance. */
	ck_assert_int_eq(emu_mem_init(), 0);
	{
		uint8_t *p = none_page(), b;

		ck_assert_int_eq(emu_mem_read(&b, p, 1), -EFAULT);
		munmap(p, 4096);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mem_sigfault");
	TCase *tc = tcase_create("sigfault");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, test_chain_to_earlier_handler);
	tcase_add_test(tc, test_own_memory_fault_not_swallowed);
	tcase_add_test(tc, test_chain_plain_handler_sigbus);
	tcase_add_test(tc, test_default_action_fault);
	tcase_add_test(tc, test_default_action_sent);
	tcase_add_test(tc, test_register_idempotent);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	/* Every test installs handlers: each needs a process of its own. */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
