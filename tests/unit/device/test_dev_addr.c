/* SPDX-License-Identifier: MIT */
/*
 * emu/device port addresses: candidates, binding a UDP port on the loopback
 * range, moving on after EADDRINUSE, and two processes getting different
 * addresses.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/device/dev.h"
#include "emu/device/dev_addr.h"

#include "dev_test_util.h"

static char tmpdir[64];

static void setup(void)
{
	ut_clear_env();
	tu_mkdtemp(tmpdir, sizeof(tmpdir));
	setenv("MLX5EMU_SYSFS_DIR", tmpdir, 1);
}

static void teardown(void)
{
	ut_clear_env();
	tu_rm_rf(tmpdir);
}

static uint32_t bound_ip(int fd, uint16_t *port)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	ck_assert_int_eq(sa.sin_family, AF_INET);
	if (port)
		*port = ntohs(sa.sin_port);
	return ntohl(sa.sin_addr.s_addr);
}

START_TEST(unusable)
{
	ck_assert_ptr_null(emu_addr_unusable(0x7f123456));
	ck_assert_ptr_null(emu_addr_unusable(0x7f000002));
	ck_assert_ptr_null(emu_addr_unusable(0x0a000001));	/* 10.0.0.1 */
	ck_assert_ptr_nonnull(emu_addr_unusable(0x7f000001));
	ck_assert_ptr_nonnull(emu_addr_unusable(0x7f010200));
	ck_assert_ptr_nonnull(emu_addr_unusable(0x7f0102ff));
	ck_assert_ptr_nonnull(emu_addr_unusable(0x00000001));
	ck_assert_ptr_nonnull(emu_addr_unusable(0xe0000001));
	ck_assert_ptr_nonnull(emu_addr_unusable(0xfffffffe));
}
END_TEST

START_TEST(pid_candidates)
{
	static uint32_t seen[4096];
	int distinct = 0;

	for (pid_t pid = 1; pid <= 4096; pid++) {
		uint32_t ip = emu_addr_pid_candidate(pid);

		ck_assert_uint_eq(ip >> 24, 127);
		ck_assert_uint_ge((ip >> 16) & 0xff, 1);	/* not 127.0/16 */
		ck_assert_uint_le((ip >> 16) & 0xff, 254);
		ck_assert_ptr_null(emu_addr_unusable(ip));
		ck_assert_uint_eq(ip, emu_addr_pid_candidate(pid));
		seen[pid - 1] = ip;
	}
	for (int i = 0; i < 4096; i++) {
		int dup = 0;

		for (int j = 0; j < i && !dup; j++)
			dup = seen[j] == seen[i];
		distinct += !dup;
	}
	/* 4096 pids over ~16.5M candidates: collisions are rare. */
	ck_assert_int_ge(distinct, 4090);
	/* Neighbouring pids land far apart. */
	ck_assert_uint_ne(emu_addr_pid_candidate(1000) >> 8,
			  emu_addr_pid_candidate(1001) >> 8);
}
END_TEST

START_TEST(next_candidate)
{
	ck_assert_uint_eq(emu_addr_next(0x7f010203), 0x7f010204);
	ck_assert_uint_eq(emu_addr_next(0x7f0102fe), 0x7f010301);
	ck_assert_uint_eq(emu_addr_next(0x7f000000), 0x7f000002);
	ck_assert_uint_eq(emu_addr_next(0x7ffffffe), 0x7f000002);	/* wraps in 127/8 */
	ck_assert_uint_eq(emu_addr_next(0x0a0000fe), 0x0a000101);
	ck_assert_uint_eq(emu_addr_next(0xdffffffe), 0x01000001);	/* below 224/4 */
}
END_TEST

START_TEST(bind_and_collide)
{
	char why[256];
	uint32_t ip = emu_addr_pid_candidate(getpid()), first, second;
	int fd1, fd2, reuse = -1;
	socklen_t len = sizeof(reuse);
	uint16_t port;

	first = ip;
	fd1 = emu_addr_bind(&first, EMU_ROCE_UDP_PORT, EMU_ADDR_MAX_TRIES, why,
			    sizeof(why));
	ck_assert_msg(fd1 >= 0, "%s", why);
	ck_assert_uint_eq(bound_ip(fd1, &port), first);
	ck_assert_uint_eq(port, 4791);
	ck_assert_int_eq(getsockopt(fd1, SOL_SOCKET, SO_REUSEADDR, &reuse, &len), 0);
	ck_assert_int_eq(reuse, 0);
	ck_assert(fcntl(fd1, F_GETFD) & FD_CLOEXEC);

	/* The same start again: EADDRINUSE, so the next candidate. */
	second = first;
	fd2 = emu_addr_bind(&second, EMU_ROCE_UDP_PORT, EMU_ADDR_MAX_TRIES, why,
			    sizeof(why));
	ck_assert_msg(fd2 >= 0, "%s", why);
	ck_assert_uint_eq(second, emu_addr_next(first));
	ck_assert_uint_eq(bound_ip(fd2, NULL), second);
	close(fd1);
	close(fd2);
}
END_TEST

START_TEST(all_taken)
{
	char why[256];
	uint32_t base = emu_addr_pid_candidate(getpid()), ip = base;
	int fds[4];

	for (int i = 0; i < 4; i++) {
		fds[i] = emu_addr_bind(&ip, EMU_ROCE_UDP_PORT, 64, why, sizeof(why));
		ck_assert_msg(fds[i] >= 0, "%s", why);
		ip = emu_addr_next(ip);
	}
	ip = base;
	ck_assert_int_eq(emu_addr_bind(&ip, EMU_ROCE_UDP_PORT, 4, why, sizeof(why)),
			 -EADDRINUSE);
	ck_assert_msg(strstr(why, "taken on 4 consecutive addresses"), "%s", why);
	ck_assert_msg(strstr(why, "4791"), "%s", why);
	for (int i = 0; i < 4; i++)
		close(fds[i]);
}
END_TEST

START_TEST(not_local)
{
	char why[256];
	uint32_t ip = 0xc0000201;	/* 192.0.2.1, TEST-NET-1 */

	ck_assert_int_eq(emu_addr_bind(&ip, EMU_ROCE_UDP_PORT, 8, why, sizeof(why)),
			 -EADDRNOTAVAIL);
	ck_assert_msg(strstr(why, "192.0.2.1:4791"), "%s", why);
	ck_assert_msg(strstr(why, "no interface"), "%s", why);
}
END_TEST

/*
 * Forks n children that each bring up their devices (the test process never
 * did, so each starts fresh), report port 1's address, and hold it until
 * all have reported.
 */
static void addresses_of_children(int n, uint32_t *ips)
{
	int up[2], hold[2];
	pid_t pids[8];

	ck_assert_int_eq(pipe(up), 0);
	ck_assert_int_eq(pipe(hold), 0);
	fflush(NULL);
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (!pids[i]) {
			uint32_t ip = 0;
			char c;

			close(up[0]);
			close(hold[1]);
			if (!emu_devices_init())
				ip = emu_device_identity(0)->ports[0].ipv4;
			if (write(up[1], &ip, sizeof(ip)) != sizeof(ip))
				_exit(2);
			/* Hold the socket until the parent has all addresses. */
			if (read(hold[0], &c, 1) < 0)
				_exit(3);
			exit(0);
		}
	}
	close(up[1]);
	close(hold[0]);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(read(up[0], &ips[i], sizeof(ips[i])),
				 sizeof(ips[i]));
	close(hold[1]);		/* releases them all */
	close(up[0]);
	for (int i = 0; i < n; i++) {
		int st;

		ck_assert_int_eq(waitpid(pids[i], &st, 0), pids[i]);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
}

START_TEST(two_processes_differ)
{
	uint32_t ips[2];

	addresses_of_children(2, ips);
	ck_assert_uint_ne(ips[0], 0);
	ck_assert_uint_ne(ips[1], 0);
	ck_assert_uint_ne(ips[0], ips[1]);
	ck_assert_uint_eq(ips[0] >> 24, 127);
	ck_assert_uint_eq(ips[1] >> 24, 127);
	/* Each child removed its own tree at exit. */
	ck_assert_int_eq(tu_count_entries(tmpdir, "mlx5emu-"), 0);
}
END_TEST

START_TEST(same_base_processes_differ)
{
	uint32_t ips[4];

	/* Everyone starts at the same address: all but one must move on. */
	setenv("MLX5EMU_IP_BASE", "127.77.0.10", 1);
	addresses_of_children(4, ips);
	for (int i = 0; i < 4; i++) {
		ck_assert_uint_ge(ips[i], 0x7f4d000a);
		ck_assert_uint_le(ips[i], 0x7f4d000d);
		for (int j = 0; j < i; j++)
			ck_assert_uint_ne(ips[i], ips[j]);
	}
}
END_TEST

/* Deterministic mode: the first candidate comes from engine.seed, so runs
 * one after another with one seed get one address, whatever their pid. */
START_TEST(deterministic_from_seed)
{
	uint32_t a[2], b[1];

	ck_assert_uint_eq(emu_addr_seed_candidate(42), emu_addr_seed_candidate(42));
	ck_assert_uint_ne(emu_addr_seed_candidate(42), emu_addr_seed_candidate(43));
	ck_assert_uint_ne(emu_addr_seed_candidate(1), emu_addr_seed_candidate(1ull << 32));
	ck_assert_ptr_null(emu_addr_unusable(emu_addr_seed_candidate(42)));
	setenv("MLX5EMU_ENGINE_MODE", "deterministic", 1);
	setenv("MLX5EMU_SEED", "42", 1);
	addresses_of_children(1, &a[0]);
	addresses_of_children(1, &a[1]);
	ck_assert_uint_eq(a[0], emu_addr_seed_candidate(42));
	ck_assert_uint_eq(a[1], a[0]);
	setenv("MLX5EMU_SEED", "43", 1);
	addresses_of_children(1, b);
	ck_assert_uint_eq(b[0], emu_addr_seed_candidate(43));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dev_addr");
	TCase *tc = tcase_create("addr");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, unusable);
	tcase_add_test(tc, pid_candidates);
	tcase_add_test(tc, next_candidate);
	tcase_add_test(tc, bind_and_collide);
	tcase_add_test(tc, all_taken);
	tcase_add_test(tc, not_local);
	tcase_add_test(tc, two_processes_differ);
	tcase_add_test(tc, same_base_processes_differ);
	tcase_add_test(tc, deterministic_from_seed);
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
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
