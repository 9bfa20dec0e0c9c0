/* SPDX-License-Identifier: MIT */
/*
 * emu/device API: emu_devices_init/count/identity/fini -- configuration to
 * devices, idempotence under threads, the tree's lifetime (fini, exit, a
 * killed process, fork), and fork giving the child fresh devices.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/device/dev.h"
#include "emu/device/dev_addr.h"
#include "emu/device/dev_sysfs.h"

#include "dev_test_util.h"


static uint32_t sock_ip(int fd)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	if (getsockname(fd, (struct sockaddr *)&sa, &len))
		return 0;
	ck_assert_uint_eq(ntohs(sa.sin_port), 4789);
	return ntohl(sa.sin_addr.s_addr);
}

/* True if ip:4789 can be bound now (nobody holds it). */
static bool port_free(uint32_t ip)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(4789),
		.sin_addr.s_addr = htonl(ip),
	};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	bool ok = !bind(fd, (struct sockaddr *)&sa, sizeof(sa));

	close(fd);
	return ok;
}

START_TEST(defaults)
{
	const struct emu_dev_identity *d;
	char prefix[128], *guid;
	uint32_t ip;

	ck_assert_int_eq(emu_devices_init(), 0);
	ck_assert_int_eq(emu_devices_count(), 1);
	d = emu_device_identity(0);
	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_null(emu_device_identity(1));
	ck_assert_ptr_null(emu_device_identity(-1));
	ck_assert_str_eq(d->name, "mlx5_0");
	ck_assert_str_eq(d->dev_name, "uverbs0");
	ck_assert_int_eq(d->num_ports, 1);

	/* The port holds its address: its tunnel endpoint, a socket on
	 * ip:4789 (wire.udp_port). */
	ip = d->ports[0].ipv4;
	ck_assert_uint_eq(ip >> 24, 127);
	ck_assert_uint_ne(ip, 0x7f000001);
	ck_assert_uint_ge((ip >> 16) & 0xff, 1);
	ck_assert_ptr_null(emu_addr_unusable(ip));
	ck_assert_int_ge(d->ports[0].udp_fd, 0);
	ck_assert_uint_eq(sock_ip(d->ports[0].udp_fd), ip);
	ck_assert(!port_free(ip));

	/* The tree is under MLX5EMU_SYSFS_DIR and agrees with the identity. */
	snprintf(prefix, sizeof(prefix), "%s/" EMU_SYSFS_PREFIX "%d-", tu_tree_dir,
		 (int)getpid());
	ck_assert_ptr_nonnull(emu_devices_sysfs_root());
	ck_assert_int_eq(strncmp(emu_devices_sysfs_root(), prefix,
				 strlen(prefix)), 0);
	ck_assert_int_eq(strncmp(d->ibdev_path, emu_devices_sysfs_root(),
				 strlen(emu_devices_sysfs_root())), 0);
	guid = tu_read("%s/node_guid", d->ibdev_path);
	ck_assert_ptr_nonnull(guid);
	{
		char want[EMU_GUID_STR_LEN + 1];

		emu_format_guid(d->node_guid, want);
		strcat(want, "\n");
		ck_assert_str_eq(guid, want);
	}
	free(guid);
	ck_assert_ptr_nonnull(emu_devices_config());
	ck_assert_uint_eq(emu_devices_config()->num_devices, 1);
	ck_assert_int_eq(tu_count_entries(tu_tree_dir, EMU_SYSFS_PREFIX), 1);
}
END_TEST

/* wire.endpoint: the claim moves to the endpoint (port k on its k-th UDP
 * port), the inner addresses are the base's and unbound. */
START_TEST(wire_endpoint_claim)
{
	const struct emu_dev_identity *d;
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	setenv("MLX5EMU_NUM_PORTS", "2", 1);
	setenv("MLX5EMU_IP_BASE", "10.77.0.1", 1);	/* not local: fine */
	setenv("MLX5EMU_WIRE_ENDPOINT", "127.77.0.9:24789", 1);
	ck_assert_int_eq(emu_devices_init(), 0);
	d = emu_device_identity(0);
	ck_assert_uint_eq(d->ports[0].ipv4, 0x0a4d0001);
	ck_assert_uint_eq(d->ports[1].ipv4, 0x0a4d0002);
	for (int p = 0; p < 2; p++) {
		ck_assert_uint_eq(d->ports[p].endpoint_ipv4, 0x7f4d0009);
		ck_assert_uint_eq(d->ports[p].udp_port, 24789 + p);
		ck_assert_int_eq(getsockname(d->ports[p].udp_fd,
					     (struct sockaddr *)&sa, &len), 0);
		ck_assert_uint_eq(ntohs(sa.sin_port), 24789 + p);
		ck_assert_uint_eq(ntohl(sa.sin_addr.s_addr), 0x7f4d0009);
	}
}
END_TEST

/* The endpoint taken: the message names the settings that move it. */
START_TEST(wire_endpoint_taken)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(24799),
		.sin_addr.s_addr = htonl(0x7f4d000a),
	};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setenv("MLX5EMU_WIRE_ENDPOINT", "127.77.0.10:24799", 1);
	ck_assert_int_eq(emu_devices_init(), -EADDRINUSE);
	ck_assert_msg(strstr(emu_devices_error(), "127.77.0.10:24799 is taken"),
		      "%s", emu_devices_error());
	ck_assert_msg(strstr(emu_devices_error(), "wire.udp_port (MLX5EMU_WIRE_UDP_PORT)"),
		      "%s", emu_devices_error());
	ck_assert_int_eq(emu_devices_count(), 0);
	close(fd);
}
END_TEST

START_TEST(idempotent)
{
	const struct emu_dev_identity *d;
	const char *root;

	ck_assert_int_eq(emu_devices_init(), 0);
	d = emu_device_identity(0);
	root = emu_devices_sysfs_root();
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(emu_devices_init(), 0);
	ck_assert_ptr_eq(emu_device_identity(0), d);
	ck_assert_ptr_eq(emu_devices_sysfs_root(), root);
	ck_assert_int_eq(tu_count_entries(tu_tree_dir, EMU_SYSFS_PREFIX), 1);
}
END_TEST

START_TEST(many_devices_and_ports)
{
	uint32_t ips[EMU_MAX_DEVICES * EMU_MAX_PORTS];
	int n = 0;

	setenv("MLX5EMU_NUM_DEVICES", "3", 1);
	setenv("MLX5EMU_NUM_PORTS", "2", 1);
	setenv("MLX5EMU_IP_BASE", "127.99.1.253", 1);
	ck_assert_int_eq(emu_devices_init(), 0);
	ck_assert_int_eq(emu_devices_count(), 3);
	for (int i = 0; i < 3; i++) {
		const struct emu_dev_identity *d = emu_device_identity(i);
		char name[32];

		snprintf(name, sizeof(name), "mlx5_%d", i);
		ck_assert_str_eq(d->name, name);
		ck_assert_int_eq(d->num_ports, 2);
		ck_assert_uint_eq(d->node_guid, d->ports[0].port_guid);
		for (int p = 0; p < 2; p++) {
			ck_assert_uint_eq(sock_ip(d->ports[p].udp_fd),
					  d->ports[p].ipv4);
			ck_assert(tu_exists("%s/ports/%d/gids/3", d->ibdev_path,
					    p + 1));
			ips[n++] = d->ports[p].ipv4;
		}
	}
	/* From the base on, skipping .254 -> .1 of the next /24 (.255, .0). */
	ck_assert_uint_eq(ips[0], 0x7f6301fd);
	ck_assert_uint_eq(ips[1], 0x7f6301fe);
	ck_assert_uint_eq(ips[2], 0x7f630201);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			ck_assert_uint_ne(ips[i], ips[j]);
	ck_assert_int_eq(tu_count_entries(tu_tree_dir, EMU_SYSFS_PREFIX), 1);
	{
		char dir[512];

		snprintf(dir, sizeof(dir), "%s/class/infiniband",
			 emu_devices_sysfs_root());
		ck_assert_int_eq(tu_count_entries(dir, "mlx5_"), 3);
	}
}
END_TEST

START_TEST(sixteen_devices)
{
	setenv("MLX5EMU_NUM_DEVICES", "16", 1);
	ck_assert_int_eq(emu_devices_init(), 0);
	ck_assert_int_eq(emu_devices_count(), 16);
	ck_assert_str_eq(emu_device_identity(15)->name, "mlx5_15");
	ck_assert(tu_exists("%s/ports/1/gids/255",
			    emu_device_identity(15)->ibdev_path));
	ck_assert_ptr_null(emu_device_identity(16));
}
END_TEST

START_TEST(zero_devices)
{
	setenv("MLX5EMU_NUM_DEVICES", "0", 1);
	ck_assert_int_eq(emu_devices_init(), 0);
	ck_assert_int_eq(emu_devices_count(), 0);
	ck_assert_ptr_null(emu_device_identity(0));
	ck_assert_ptr_null(emu_devices_sysfs_root());
	ck_assert_int_eq(tu_count_entries(tu_tree_dir, EMU_SYSFS_PREFIX), 0);
}
END_TEST

START_TEST(fini_releases_everything)
{
	const struct emu_dev_identity *d;
	char root[EMU_SYSFS_PATH_MAX];
	uint32_t ip;

	ck_assert_int_eq(emu_devices_init(), 0);
	d = emu_device_identity(0);
	ip = d->ports[0].ipv4;
	snprintf(root, sizeof(root), "%s", emu_devices_sysfs_root());
	emu_devices_fini();
	ck_assert(!tu_exists("%s", root));
	ck_assert(port_free(ip));		/* the socket is closed */
	ck_assert_int_eq(emu_devices_count(), 0);
	ck_assert_ptr_null(emu_device_identity(0));
	/* A pointer handed out earlier still reads. */
	ck_assert_str_eq(d->name, "mlx5_0");
	ck_assert_int_eq(d->ports[0].udp_fd, -1);
	emu_devices_fini();			/* idempotent */

	/* And the devices come back. */
	ck_assert_int_eq(emu_devices_init(), 0);
	ck_assert_int_eq(emu_devices_count(), 1);
	ck_assert_ptr_nonnull(emu_devices_sysfs_root());
	ck_assert_str_ne(emu_devices_sysfs_root(), root);
}
END_TEST

START_TEST(bind_failure_leaves_nothing)
{
	int ret;
	char *out;

	setenv("MLX5EMU_IP_BASE", "192.0.2.1", 1);	/* not on this host */
	out = tu_capture_stderr(emu_devices_init, &ret);
	ck_assert_int_eq(ret, -EADDRNOTAVAIL);
	ck_assert_msg(strstr(out, "mlx5emu: cannot take an address for mlx5_0 port 1"),
		      "%s", out);
	free(out);
	ck_assert_int_eq(emu_devices_count(), 0);
	ck_assert_int_eq(tu_count_entries(tu_tree_dir, EMU_SYSFS_PREFIX), 0);
}
END_TEST

#define THREADS 8
static pthread_barrier_t barrier;
static const struct emu_dev_identity *seen[THREADS];
static int rets[THREADS];

static void *racer(void *arg)
{
	long i = (long)arg;

	pthread_barrier_wait(&barrier);
	rets[i] = emu_devices_init();
	seen[i] = emu_device_identity(0);
	return NULL;
}

START_TEST(threads_race_to_init)
{
	pthread_t t[THREADS];

	pthread_barrier_init(&barrier, NULL, THREADS);
	for (long i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, racer, (void *)i), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < THREADS; i++) {
		ck_assert_int_eq(rets[i], 0);
		ck_assert_ptr_nonnull(seen[i]);
		ck_assert_ptr_eq(seen[i], seen[0]);
	}
	ck_assert_int_eq(tu_count_entries(tu_tree_dir, EMU_SYSFS_PREFIX), 1);
	pthread_barrier_destroy(&barrier);
}
END_TEST

/*
 * A child process that inits its devices and tells the parent its tree's
 * root; then it exits normally (no fini: atexit does it) or, if stay, waits
 * to be killed.
 */
static pid_t child_with_tree(char root[EMU_SYSFS_PATH_MAX], bool stay)
{
	int fds[2];
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		close(fds[0]);
		if (emu_devices_init())
			_exit(1);
		if (write(fds[1], emu_devices_sysfs_root(), EMU_SYSFS_PATH_MAX) < 0)
			_exit(2);
		if (!stay)
			exit(0);
		pause();
		_exit(3);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], root, EMU_SYSFS_PATH_MAX),
			 EMU_SYSFS_PATH_MAX);
	close(fds[0]);
	return pid;
}

/* A child that exits normally removes its own tree (atexit). */
START_TEST(exit_removes_tree)
{
	char root[EMU_SYSFS_PATH_MAX] = "";
	pid_t pid = child_with_tree(root, false);
	int st;

	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_str_ne(root, "");
	ck_assert(!tu_exists("%s", root));
}
END_TEST

/* A killed process's tree is removed by the next process's init. */
START_TEST(killed_process_tree_reclaimed)
{
	char root[EMU_SYSFS_PATH_MAX] = "";
	pid_t pid = child_with_tree(root, true);
	int st;

	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFSIGNALED(st));
	ck_assert(tu_exists("%s", root));
	ck_assert_int_eq(emu_devices_init(), 0);
	ck_assert(!tu_exists("%s", root));
	ck_assert_int_eq(tu_count_entries(tu_tree_dir, EMU_SYSFS_PREFIX), 1);
}
END_TEST

/*
 * fork() after init: the child sees no devices until it inits, then gets
 * fresh ones (new address, new tree); its exit removes only its own tree,
 * and the parent keeps its socket and tree.
 */
START_TEST(fork_gives_child_fresh_devices)
{
	const struct emu_dev_identity *d;
	char root[EMU_SYSFS_PATH_MAX], child_root[EMU_SYSFS_PATH_MAX] = "";
	int fds[2], st, fd;
	uint32_t ip;
	pid_t pid;

	ck_assert_int_eq(emu_devices_init(), 0);
	d = emu_device_identity(0);
	ip = d->ports[0].ipv4;
	fd = d->ports[0].udp_fd;
	snprintf(root, sizeof(root), "%s", emu_devices_sysfs_root());

	ck_assert_int_eq(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		const struct emu_dev_identity *c;

		close(fds[0]);
		/* Inherited devices are stale; their socket copy is closed. */
		if (emu_devices_count() != 0 || emu_device_identity(0) ||
		    emu_devices_sysfs_root())
			_exit(10);
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			_exit(11);
		if (d->ports[0].udp_fd != -1)
			_exit(12);
		if (emu_devices_init())
			_exit(13);
		c = emu_device_identity(0);
		if (!c || c == d || c->ports[0].ipv4 == ip ||
		    sock_ip(c->ports[0].udp_fd) != c->ports[0].ipv4)
			_exit(14);
		if (!strcmp(emu_devices_sysfs_root(), root))
			_exit(15);
		if (write(fds[1], emu_devices_sysfs_root(), EMU_SYSFS_PATH_MAX) < 0)
			_exit(16);
		exit(0);	/* atexit: removes the child's tree only */
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], child_root, sizeof(child_root)),
			 sizeof(child_root));
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d",
		      WEXITSTATUS(st));
	ck_assert(!tu_exists("%s", child_root));
	ck_assert(tu_exists("%s/class/infiniband/mlx5_0/node_guid", root));
	ck_assert_ptr_eq(emu_device_identity(0), d);
	ck_assert_int_eq(d->ports[0].udp_fd, fd);
	ck_assert_uint_eq(sock_ip(fd), ip);
	ck_assert(!port_free(ip));
}
END_TEST

/* A forked child that never inits and exits leaves the parent's tree. */
START_TEST(child_exit_keeps_parent_tree)
{
	char root[EMU_SYSFS_PATH_MAX];
	pid_t pid;
	int st;

	ck_assert_int_eq(emu_devices_init(), 0);
	snprintf(root, sizeof(root), "%s", emu_devices_sysfs_root());
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		emu_devices_fini();	/* even an explicit fini */
		exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert(tu_exists("%s/class/infiniband/mlx5_0", root));
	ck_assert_int_eq(emu_devices_count(), 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dev_init");
	TCase *tc = tcase_create("init");

	tcase_add_checked_fixture(tc, tu_tree_setup, tu_tree_teardown);
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, idempotent);
	tcase_add_test(tc, wire_endpoint_claim);
	tcase_add_test(tc, wire_endpoint_taken);
	tcase_add_test(tc, many_devices_and_ports);
	tcase_add_test(tc, sixteen_devices);
	tcase_add_test(tc, zero_devices);
	tcase_add_test(tc, fini_releases_everything);
	tcase_add_test(tc, bind_failure_leaves_nothing);
	tcase_add_test(tc, threads_race_to_init);
	tcase_add_test(tc, exit_removes_tree);
	tcase_add_test(tc, killed_process_tree_reclaimed);
	tcase_add_test(tc, fork_gives_child_fresh_devices);
	tcase_add_test(tc, child_exit_keeps_parent_tree);
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
