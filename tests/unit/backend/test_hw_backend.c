/* SPDX-License-Identifier: MIT */
/*
 * The hw backend (backend/hw) over tests/hwdouble, whose libibverbs.so.1
 * and libmlx5.so.1 answer with the emulator inside them: loading into a
 * namespace of its own, every op through rdma-core's entries, errno read
 * in the namespace, its environment kept current, fork() while commands
 * run, and every error path: missing libraries, missing symbols, a
 * library dlmopen() refuses, one that is no ELF file, our own libraries
 * (by dependency, and dlopen()ed by rdma-core at enumeration), no device,
 * no kernel support, devices of other drivers; one message, then no
 * devices.  Check runs each test in a process of its own, so each loads
 * afresh.
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "backend/backend.h"
#include "backend/backend_impl.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "tests/unit/common/ut_env.h"

#include "bt_util.h"

#define HW (&mlx5be_hw_ops)
#define DOUBLE_DIR MLX5EMU_HWDOUBLE_DIR

static void setup(void)
{
	ut_clear_env();
	unsetenv("HWDOUBLE_LOG");
	unsetenv("HWDOUBLE_EXTRA_DEVICE");
	unsetenv("HWDOUBLE_NO_KERNEL");
	unsetenv("HWDOUBLE_DLOPEN");
	unsetenv("HWDOUBLE_MARK");
	unsetenv("HWDOUBLE_FAULTS");
	/* Fixed addresses for the emulator inside the double. */
	setenv("MLX5EMU_IP_BASE", "127.201.79.1", 1);
	bt_capture_stderr();
}

static void teardown(void)
{
	bt_release_stderr();
}

/* stderr holds exactly one line, "mlx5emu: backend hw: @what...". */
static void ck_one_message(const char *what)
{
	char *s = bt_captured();
	char *nl = strchr(s, '\n');

	ck_assert_msg(strstr(s, "mlx5emu: backend hw: ") == s, "stderr: %s", s);
	ck_assert_msg(strstr(s, what), "no \"%s\" in: %s", what, s);
	ck_assert_msg(nl && !nl[1], "not one line: %s", s);
	free(s);
}

static void ck_silent(void)
{
	char *s = bt_captured();

	ck_assert_msg(!s[0], "stderr: %s", s);
	free(s);
}

/* A failed load: no devices, no open. */
static void ck_no_devices(void)
{
	struct mlx5be_device_info info;
	struct mlx5be_ctx *ctx;
	int fd;

	ck_assert_int_eq(HW->get_devices(&info, 1), 0);
	ck_assert_int_eq(HW->open(0, &ctx, &fd), -ENODEV);
}

static const char *lib_dir(void)
{
	return DOUBLE_DIR "/lib";
}

static void load_double(void)
{
	ck_assert_int_eq(mlx5be_hw_load(lib_dir(), true), 0);
}

/* ---- loading ---- */

/* How many times @path is mapped from its start (once per namespace that
 * loaded it), from /proc/self/maps. */
static int mapped_copies(const char *path)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128], real[PATH_MAX];
	int n = 0;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(realpath(path, real));
	while (fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/');
		unsigned long long off;

		if (!file || sscanf(line, "%*s %*s %llx", &off) != 1 || off)
			continue;
		file[strcspn(file, "\n")] = '\0';
		n += !strcmp(file, real);
	}
	fclose(f);
	return n;
}

START_TEST(loads_in_a_namespace_of_its_own)
{
	struct mlx5be_device_info info[4];
	Dl_info self;

	ck_assert(dladdr((void *)dladdr, &self));
	ck_assert_int_eq(mapped_copies(self.dli_fname), 1);
	load_double();
	ck_silent();
	/* The double's libraries are mapped, with a second libc ... */
	ck_assert_int_eq(mapped_copies(DOUBLE_DIR "/lib/libibverbs.so.1"), 1);
	ck_assert_int_eq(mapped_copies(DOUBLE_DIR "/lib/libmlx5.so.1"), 1);
	ck_assert_int_eq(mapped_copies(self.dli_fname), 2);
	/* ... in another namespace: the process's own has no libibverbs.so.1. */
	ck_assert_ptr_null(dlopen("libibverbs.so.1", RTLD_NOW | RTLD_NOLOAD));
	ck_assert_int_eq(HW->get_devices(info, 4), 1);
	ck_assert_str_eq(info[0].name, "mlx5_0");
	ck_assert_str_eq(info[0].dev_name, "uverbs0");
	/* mlx5_ib's vendor_part_id is the PCI device id (sysfs device/device). */
	ck_assert_uint_eq(info[0].vendor_part_id, 0x101d);
	ck_assert_uint_ne(info[0].node_guid, 0);
}
END_TEST

/* The system's rdma-core, as it is on this machine: it loads beside our
 * libraries, in a namespace of its own, and lists what the kernel has. */
START_TEST(system_rdma_core)
{
	struct mlx5be_device_info info[4];
	char libc[PATH_MAX], verbs[PATH_MAX + 32];
	Dl_info self;
	int n;

	/* Debian's rdma-core sits beside libc (the multiarch directory). */
	ck_assert(dladdr((void *)dladdr, &self));
	ck_assert_ptr_nonnull(realpath(self.dli_fname, libc));
	*strrchr(libc, '/') = '\0';
	snprintf(verbs, sizeof(verbs), "%s/libibverbs.so.1", libc);
	if (access(verbs, R_OK))
		return;		/* no rdma-core: missing_libraries covers it */
	ck_assert_int_eq(mlx5be_hw_load(NULL, true), 0);
	ck_assert_int_eq(mapped_copies(verbs), 1);
	ck_assert_ptr_null(dlopen("libibverbs.so.1", RTLD_NOW | RTLD_NOLOAD));
	n = HW->get_devices(info, 4);
	ck_assert_int_ge(n, 0);
	if (n == 0) {
		char *s = bt_captured();

		ck_assert_msg(strstr(s, "mlx5emu: backend hw: no ") == s, "%s", s);
		free(s);
	}
}
END_TEST

START_TEST(loads_once)
{
	load_double();
	ck_assert_int_eq(mlx5be_hw_load("/nonexistent", true), 0);
	ck_silent();
}
END_TEST

/* ---- every op through rdma-core's entries ---- */

START_TEST(ops_reach_the_device)
{
	uint8_t cap_in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t *cap_out = calloc(1, PRM_ST_SZ_BYTES(query_hca_cap_out));
	uint8_t pd_in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t pd_out[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };
	struct mlx5be_clock_info ci;
	uint64_t cycles;
	struct timespec t0, t1;
	struct mlx5be_port_attr pa;
	struct mlx5be_gid_entry ge;
	struct mlx5be_uar_info ui;
	struct mlx5be_ctx *ctx, *ctx2;
	struct mlx5be_umem *umem;
	struct mlx5be_uar *uar;
	struct mlx5be_obj *pd;
	struct mlx5be_flow_match m = { 0 };
	struct mlx5be_flow_act act = { 0 };
	uint32_t umem_id, eqn = 0;
	int cmd_fd, index = -1;
	uint8_t mac[6];
	uint16_t vlan;
	void *buf;

	load_double();
	ck_assert_int_eq(HW->open(0, &ctx, &cmd_fd), 0);
	ck_assert_int_ge(cmd_fd, 0);
	PRM_SET(query_hca_cap_in, cap_in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, cap_in, op_mod, 1);	/* general, current */
	ck_assert_int_eq(HW->general_cmd(ctx, cap_in, sizeof(cap_in), cap_out,
					 PRM_ST_SZ_BYTES(query_hca_cap_out)), 0);
	ck_assert_uint_eq(PRM_GET(query_hca_cap_out, cap_out,
				  capability.cmd_hca_cap.log_max_cq_sz), 15);
	/* The kernel refuses a create through the general method: EINVAL,
	 * read from the namespace's errno, no outbox. */
	PRM_SET(alloc_pd_in, pd_in, opcode, MLX5_CMD_OP_ALLOC_PD);
	ck_assert_int_eq(HW->general_cmd(ctx, pd_in, sizeof(pd_in), pd_out,
					 sizeof(pd_out)), -EINVAL);
	pd = HW->obj_create(ctx, pd_in, sizeof(pd_in), pd_out, sizeof(pd_out));
	ck_assert_ptr_nonnull(pd);
	ck_assert_uint_ne(PRM_GET(alloc_pd_out, pd_out, pd), 0);
	ck_assert_int_eq(HW->obj_destroy(pd), 0);

	buf = aligned_alloc(4096, 8192);
	umem = HW->umem_reg(ctx, buf, 8192, 0, ~(uint64_t)4095, &umem_id);
	ck_assert_ptr_nonnull(umem);
	ck_assert_uint_ne(umem_id, 0);
	ck_assert_int_eq(HW->umem_dereg(umem), 0);
	free(buf);
	uar = HW->uar_alloc(ctx, MLX5DV_UAR_ALLOC_TYPE_NC, &ui);
	ck_assert_ptr_nonnull(uar);
	ck_assert_ptr_nonnull(ui.reg_addr);
	ck_assert_uint_ne(ui.page_id, 0);
	HW->uar_free(uar);
	ck_assert_int_eq(HW->query_eqn(ctx, 0, &eqn), 0);
	ck_assert_uint_ne(eqn, 0);
	ck_assert_int_eq(HW->query_port(ctx, 1, &pa), 0);
	ck_assert_uint_eq(pa.state, IBV_PORT_ACTIVE);
	ck_assert_uint_eq(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	ck_assert_int_eq(HW->query_port(ctx, 300, &pa), -EINVAL);
	ck_assert_int_eq(HW->query_gid(ctx, 1, 1, &ge), 0);
	ck_assert_uint_eq(ge.gid_type, 1);	/* RoCE v2 */
	ck_assert_uint_eq(ge.gid[0], 0xfe);
	ck_assert_int_eq(HW->gid_l2_addr(ctx, 1, 1, ge.gid, mac, &vlan), 0);
	ck_assert_uint_eq(vlan, 0xffff);
	/* The clock info page through mlx5dv_get_clock_info (1 GHz:
	 * mult 2^23 at shift 23), and the counter through the register
	 * mlx5dv_query_device hands out: at 1 GHz, CLOCK_MONOTONIC's ns. */
	ck_assert_int_eq(HW->clock_info(ctx, &ci), 0);
	ck_assert_uint_eq(ci.mult, 1u << 23);
	ck_assert_uint_eq(ci.shift, 23);
	ck_assert_uint_eq(ci.mask, (UINT64_C(1) << 41) - 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(HW->read_clock(ctx, &cycles), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_uint_ge(cycles, (uint64_t)t0.tv_sec * 1000000000u + t0.tv_nsec);
	ck_assert_uint_le(cycles, (uint64_t)t1.tv_sec * 1000000000u + t1.tv_nsec);
	/* What the device has not: as rdma-core answers for it. */
	errno = 0;
	pd = HW->obj_create(ctx, pd_in, sizeof(pd_in), pd_out, sizeof(pd_out));
	act.dest = pd;
	ck_assert_ptr_null(HW->steering_root_attach(ctx, &m, &act));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(HW->obj_destroy(pd), 0);
	/* An import shares the device. */
	ck_assert_int_eq(HW->import(dup(cmd_fd), &ctx2, &index), 0);
	ck_assert_int_eq(index, 0);
	HW->close(ctx2);
	HW->close(ctx);
	free(cap_out);
}
END_TEST

static bool readable_within(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 1 && (pfd.revents & POLLIN);
}

/*
 * Events as rdma-core delivers them: a DEVX event channel with an
 * unaffiliated subscription and an eventfd one, and the context's async
 * event file, non-blocking.  The double's device takes port 1's link down
 * after the PD is allocated (HWDOUBLE_FAULTS), as a NIC does on its own.
 */
START_TEST(events_through_rdma_core)
{
	uint8_t pd_in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t pd_out[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };
	uint16_t type = 0x09;			/* PORT_CHANGE */
	struct mlx5be_async_event aev;
	struct mlx5be_event_channel *ch;
	struct mlx5be_event ev;
	struct mlx5be_ctx *ctx;
	struct mlx5be_obj *pd;
	int cmd_fd, efd, afd;
	uint64_t count = 0;

	setenv("HWDOUBLE_FAULTS", "port_down dev=mlx5_0 port=1 opcode=ALLOC_PD",
	       1);
	load_double();
	ck_assert_int_eq(HW->open(0, &ctx, &cmd_fd), 0);
	afd = HW->async_event_fd(ctx);
	ck_assert_int_ge(afd, 0);
	ck_assert(fcntl(afd, F_GETFL) & O_NONBLOCK);
	ck_assert_int_eq(HW->async_event_read(ctx, &aev), -EAGAIN);

	ch = HW->event_channel_create(ctx, 0);
	ck_assert_ptr_nonnull(ch);
	ck_assert_int_ge(HW->event_channel_fd(ch), 0);
	ck_assert_int_eq(HW->event_subscribe(ch, NULL, &type, 1, 0x1234), 0);
	efd = eventfd(0, EFD_CLOEXEC);
	ck_assert_int_ge(efd, 0);
	ck_assert_int_eq(HW->event_subscribe_fd(ch, NULL, type, efd), 0);
	ck_assert(!readable_within(HW->event_channel_fd(ch), 0));

	PRM_SET(alloc_pd_in, pd_in, opcode, MLX5_CMD_OP_ALLOC_PD);
	pd = HW->obj_create(ctx, pd_in, sizeof(pd_in), pd_out, sizeof(pd_out));
	ck_assert_ptr_nonnull(pd);

	/* The channel: the cookie, then the EQE (type 0x09 at byte 1,
	 * subtype DOWN at byte 3, the port in the high nibble of byte 40). */
	ck_assert(readable_within(HW->event_channel_fd(ch), 5000));
	ck_assert_int_eq(HW->event_read(ch, &ev, 4), -EINVAL);
	ck_assert_int_eq(HW->event_read(ch, &ev, sizeof(ev)), sizeof(ev));
	ck_assert_uint_eq(ev.cookie, 0x1234);
	ck_assert_uint_eq(ev.eqe[1], 0x09);
	ck_assert_uint_eq(ev.eqe[3], 1);
	ck_assert_uint_eq(ev.eqe[40] >> 4, 1);
	/* The eventfd, signalled instead of queueing. */
	ck_assert(readable_within(efd, 5000));
	ck_assert_int_eq(read(efd, &count, sizeof(count)), sizeof(count));
	ck_assert_uint_ge(count, 1);
	/* The async event file: PORT_ERR on port 1, then nothing. */
	ck_assert(readable_within(afd, 5000));
	ck_assert_int_eq(HW->async_event_read(ctx, &aev), 0);
	ck_assert_uint_eq(aev.event_type, IBV_EVENT_PORT_ERR);
	ck_assert_uint_eq(aev.port_num, 1);
	ck_assert_int_eq(HW->async_event_read(ctx, &aev), -EAGAIN);

	ck_assert_int_eq(HW->obj_destroy(pd), 0);
	HW->event_channel_destroy(ch);
	close(efd);
	HW->close(ctx);
}
END_TEST

/* A firmware failure: -EREMOTEIO with the outbox, as DEVX gives it. */
START_TEST(firmware_status_is_eremoteio)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t *out = calloc(1, PRM_ST_SZ_BYTES(query_hca_cap_out));
	struct mlx5be_ctx *ctx;
	int cmd_fd;

	load_double();
	ck_assert_int_eq(HW->open(0, &ctx, &cmd_fd), 0);
	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, 0x7f << 1);	/* no such page */
	ck_assert_int_eq(HW->general_cmd(ctx, in, sizeof(in), out,
					 PRM_ST_SZ_BYTES(query_hca_cap_out)),
			 -EREMOTEIO);
	ck_assert_uint_ne(PRM_GET(mbox_out, out, status), 0);
	HW->close(ctx);
	free(out);
}
END_TEST

/* errno of a failed call is the namespace's, not the process's. */
START_TEST(errno_from_the_namespace)
{
	struct mlx5be_ctx *ctx;
	int p[2], index;

	load_double();
	ck_assert_int_eq(pipe(p), 0);
	errno = 0;
	/* ibv_import_device of something that is no device file. */
	ck_assert_int_eq(HW->import(p[0], &ctx, &index), -EINVAL);
	/* ... and the descriptor is left open. */
	ck_assert_int_ne(fcntl(p[0], F_GETFD), -1);
	close(p[0]);
	close(p[1]);
	ck_assert_int_eq(HW->open(7, &ctx, &index), -ENODEV);
}
END_TEST

/* rdma-core reads the environment at open: it sees the current one, also
 * after the process's setenv() moved it. */
START_TEST(environment_follows_the_process)
{
	char log[] = "/tmp/mlx5emu-hw-log-XXXXXX";
	struct mlx5be_ctx *ctx;
	char name[32], *text;
	int fd = mkstemp(log);

	ck_assert_int_ge(fd, 0);
	setenv("HWDOUBLE_LOG", log, 1);
	load_double();
	for (int i = 0; i < 200; i++) {		/* environ is reallocated */
		snprintf(name, sizeof(name), "HWD_FILLER_%d", i);
		setenv(name, "x", 1);
	}
	setenv("HWDOUBLE_MARK", "set-after-load", 1);
	ck_assert_int_eq(HW->open(0, &ctx, &fd), 0);
	HW->close(ctx);
	text = bt_slurp(log);
	unlink(log);
	ck_assert_msg(strstr(text, "\"call\":\"mlx5dv_open_device\",\"dev\":\"mlx5_0\",\"flags\":1,\"mark\":\"set-after-load\""),
		      "%s", text);
	free(text);
}
END_TEST

/* fork() while another thread keeps calling into the namespace: the
 * children find its locks free and use the backend. */
static volatile bool busy_stop;

static void *busy(void *arg)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t *out = calloc(1, PRM_ST_SZ_BYTES(query_hca_cap_out));
	struct mlx5be_ctx *ctx = arg;

	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, 1);
	while (!busy_stop) {
		struct mlx5be_device_info info;

		HW->general_cmd(ctx, in, sizeof(in), out,
				PRM_ST_SZ_BYTES(query_hca_cap_out));
		HW->get_devices(&info, 1);
	}
	free(out);
	return NULL;
}

START_TEST(fork_while_busy)
{
	struct mlx5be_ctx *ctx;
	pthread_t t;
	int fd;

	/* The emulator's engine thread inside the double is no thread of
	 * rdma-core's and nothing holds it off a fork (tests/hwdouble). */
	setenv("MLX5EMU_ENGINE_MODE", "inline", 1);
	load_double();
	ck_assert_int_eq(HW->open(0, &ctx, &fd), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, busy, ctx), 0);
	for (int i = 0; i < 20; i++) {
		pid_t pid = fork();
		int status;

		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			struct mlx5be_device_info info;
			struct mlx5be_ctx *c;
			int f;

			alarm(20);
			if (HW->get_devices(&info, 1) != 1 ||
			    HW->open(0, &c, &f))
				_exit(1);
			HW->close(c);
			_exit(0);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
			      "child %d: status 0x%x", i, status);
	}
	busy_stop = true;
	pthread_join(t, NULL);
	HW->close(ctx);
}
END_TEST

/* ---- error paths: one message, then no devices ---- */

START_TEST(missing_libraries)
{
	char dir[] = "/tmp/mlx5emu-hw-empty-XXXXXX";
	char want[128];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(mlx5be_hw_load(dir, true), -ENOENT);
	snprintf(want, sizeof(want), "no libibverbs.so.1 in %s (backend.hw_libdir); no devices",
		 dir);
	ck_one_message(want);
	ck_no_devices();
	rmdir(dir);
}
END_TEST

START_TEST(missing_symbols)
{
	ck_assert_int_eq(mlx5be_hw_load(DOUBLE_DIR "/old", true), -ENOSYS);
	ck_one_message("libmlx5.so.1 has no mlx5dv_devx_umem_reg_ex@MLX5_1.19: rdma-core 44 or later is needed; no devices");
	ck_no_devices();
}
END_TEST

START_TEST(dlmopen_fails)
{
	char *s;

	ck_assert_int_eq(mlx5be_hw_load(DOUBLE_DIR "/broken", true), -ELIBACC);
	ck_one_message("dlmopen " DOUBLE_DIR "/broken/libibverbs.so.1: ");
	s = bt_captured();
	ck_assert_msg(strstr(s, "hwd_no_such_function"), "%s", s);
	free(s);
	ck_no_devices();
}
END_TEST

START_TEST(not_an_elf_file)
{
	char dir[] = "/tmp/mlx5emu-hw-text-XXXXXX";
	char path[128], link[128];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/libibverbs.so.1", dir);
	f = fopen(path, "w");
	fputs("not a library\n", f);
	fclose(f);
	snprintf(link, sizeof(link), "%s/libmlx5.so.1", dir);
	ck_assert_int_eq(symlink(DOUBLE_DIR "/lib/libmlx5.so.1", link), 0);
	ck_assert_int_eq(mlx5be_hw_load(dir, true), -ENOEXEC);
	ck_one_message("libibverbs.so.1: not an ELF file; no devices");
	ck_no_devices();
	unlink(path);
	unlink(link);
	rmdir(dir);
}
END_TEST

/* Our drop-in libraries need libmlx5emu_core.so.0: never loaded. */
START_TEST(our_dropins_refused)
{
	ck_assert_int_eq(mlx5be_hw_load(MLX5EMU_DROPIN_DIR, true), -ELIBBAD);
	ck_one_message("refusing rdma-core: " MLX5EMU_DROPIN_DIR "/libibverbs.so.1 needs libmlx5emu_core.so.0, so it is one of mlx5emu's drop-in libraries");
	ck_no_devices();
}
END_TEST

/* rdma-core dlopen()s a bare name at its first enumeration and the
 * library path gives it a library of our own directory: refused then. */
START_TEST(ours_dlopened_at_enumeration)
{
	setenv("HWDOUBLE_DLOPEN", "libhwd_probe.so", 1);
	load_double();
	ck_no_devices();
	ck_one_message("refusing rdma-core: ");
	{
		char *s = bt_captured();

		ck_assert_msg(strstr(s, "libhwd_probe.so is from mlx5emu's own directory"),
			      "%s", s);
		free(s);
	}
}
END_TEST

START_TEST(no_device)
{
	setenv("MLX5EMU_NUM_DEVICES", "0", 1);
	load_double();
	ck_no_devices();
	ck_one_message("no RDMA device: rdma-core lists none; no devices");
}
END_TEST

START_TEST(no_kernel_support)
{
	setenv("HWDOUBLE_NO_KERNEL", "1", 1);
	load_double();
	ck_no_devices();
	ck_one_message("no RDMA device: rdma-core finds no RDMA support in the kernel (ibv_get_device_list: Function not implemented); no devices");
}
END_TEST

START_TEST(only_other_drivers)
{
	setenv("HWDOUBLE_EXTRA_DEVICE", "rxe0", 1);
	setenv("MLX5EMU_NUM_DEVICES", "0", 1);
	load_double();
	ck_no_devices();
	ck_one_message("no mlx5 device: rdma-core lists only rxe0, which mlx5emu's libraries cannot drive (docs/hardware.md); no devices");
}
END_TEST

/* Index 0 is the first mlx5 device, whatever rdma-core lists before it. */
START_TEST(other_drivers_beside)
{
	struct mlx5be_device_info info[4];
	struct mlx5be_ctx *ctx;
	int fd;

	setenv("HWDOUBLE_EXTRA_DEVICE", "rxe0", 1);
	load_double();
	ck_assert_int_eq(HW->get_devices(info, 4), 1);
	ck_assert_str_eq(info[0].name, "mlx5_0");
	ck_assert_int_eq(HW->open(0, &ctx, &fd), 0);
	HW->close(ctx);
	ck_assert_int_eq(HW->open(1, &ctx, &fd), -ENODEV);
	ck_one_message("rxe0 not listed: mlx5emu's libraries drive mlx5 devices only (docs/hardware.md)");
}
END_TEST

/* A machine with a real MANA VF: the MANA device stays the system's (our
 * libraries list and open only the mlx5 one), said once. */
START_TEST(real_mana_beside)
{
	struct mlx5be_device_info info[4];

	setenv("HWDOUBLE_EXTRA_DEVICE", "mana_0", 1);
	setenv("MLX5EMU_MANA_DEVICES", "1", 1);
	load_double();
	ck_assert_int_eq(HW->get_devices(info, 4), 1);
	ck_assert_str_eq(info[0].name, "mlx5_0");
	ck_one_message("mana_0 not listed: mlx5emu's libraries drive mlx5 devices only (docs/hardware.md)");
}
END_TEST

START_TEST(one_message_only)
{
	ck_assert_int_eq(mlx5be_hw_load("/nonexistent-dir", true), -ENOENT);
	ck_no_devices();
	ck_no_devices();
	ck_one_message("no libibverbs.so.1 in /nonexistent-dir");
}
END_TEST

START_TEST(quiet_without_report)
{
	ck_assert_int_eq(mlx5be_hw_load("/nonexistent-dir", false), -ENOENT);
	ck_no_devices();
	setenv("MLX5EMU_NUM_DEVICES", "0", 1);
	ck_silent();
}
END_TEST

#ifdef MLX5EMU_TEST_SANITIZED
#define ADD_DEVICE_TEST(tc, t) ((void)(tc), (void)(t))
#else
#define ADD_DEVICE_TEST(tc, t) tcase_add_test(tc, t)
#endif

static Suite *suite(void)
{
	Suite *s = suite_create("backend_hw");
	TCase *tc = tcase_create("load");
	TCase *dev = tcase_create("device");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, system_rdma_core);
	tcase_add_test(tc, loads_once);
	tcase_add_test(tc, missing_libraries);
	tcase_add_test(tc, missing_symbols);
	tcase_add_test(tc, dlmopen_fails);
	tcase_add_test(tc, not_an_elf_file);
	tcase_add_test(tc, our_dropins_refused);
	tcase_add_test(tc, no_kernel_support);
	tcase_add_test(tc, one_message_only);
	tcase_add_test(tc, quiet_without_report);
	suite_add_tcase(s, tc);
	/*
	 * The double's device is the emulator, which starts threads inside
	 * the namespace; a sanitizer runtime (in the program's namespace)
	 * cannot follow those.  rdma-core starts none, so this is the
	 * double's limit, not the hw backend's.
	 */
	tcase_add_checked_fixture(dev, setup, teardown);
	tcase_set_timeout(dev, 120);
	ADD_DEVICE_TEST(dev, loads_in_a_namespace_of_its_own);
	ADD_DEVICE_TEST(dev, ops_reach_the_device);
	ADD_DEVICE_TEST(dev, firmware_status_is_eremoteio);
	ADD_DEVICE_TEST(dev, events_through_rdma_core);
	ADD_DEVICE_TEST(dev, errno_from_the_namespace);
	ADD_DEVICE_TEST(dev, environment_follows_the_process);
	ADD_DEVICE_TEST(dev, fork_while_busy);
	ADD_DEVICE_TEST(dev, ours_dlopened_at_enumeration);
	ADD_DEVICE_TEST(dev, no_device);
	ADD_DEVICE_TEST(dev, only_other_drivers);
	ADD_DEVICE_TEST(dev, other_drivers_beside);
	ADD_DEVICE_TEST(dev, real_mana_beside);
	suite_add_tcase(s, dev);
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
