/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_open_device with rdma-core 57's file-descriptor array of user
 * capabilities (MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY), as an application
 * built against newer headers calls it: the layout written out here
 * (flags, comp_mask, then a pointer to { int *arr; uint32_t count; }), the
 * ucap nodes of the emulated tree only when the configured firmware
 * advertises the RDMA_CTRL object type and the uctx_cap bits, the
 * kernel's answers for each descriptor (ib_get_ucaps: EBADF, EINVAL) and
 * the capability bits in CREATE_UCTX (the command trace), RAW_TX among
 * them for a process with CAP_NET_RAW.  On the hw
 * backend (rdma-core 44 underneath, no fd array) a DEVX open with ucaps
 * fails EOPNOTSUPP and libmlx5's retry without DEVX succeeds.  Each test sets
 * its configuration before its process first touches the emulator (check
 * runs every test in a child of its own).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ut_env.h"
#include "verbs_test.h"

struct fd_arr_57 {
	int *arr;
	uint32_t count;
};

struct dv_context_attr_57 {
	uint32_t flags;
	uint64_t comp_mask;
	struct fd_arr_57 *fds;
};

#define ATTR_MASK_FD_ARRAY (1u << 0)
#define CAPS_LOCAL "uctx_cap=0x8,hca_cap_2=1," \
	"cmd_hca_cap_2.general_obj_types_127_64=0x80000"

static char trace_path[64];

static void setup_env(const char *caps)
{
	int fd;

	if (caps)
		setenv("MLX5EMU_CAPS", caps, 1);
	else
		unsetenv("MLX5EMU_CAPS");
	/* mkstemp's template: it replaces the six X. */
	strcpy(trace_path, "/tmp/ucaps-trace-XXXXXX");
	fd = mkstemp(trace_path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	setenv("MLX5EMU_TRACE", "text", 1);
	setenv("MLX5EMU_TRACE_FILE", trace_path, 1);
}

static struct ibv_device *dev0(struct ibv_device ***list)
{
	int n = 0;

	*list = ibv_get_device_list(&n);
	ck_assert_ptr_nonnull(*list);
	ck_assert_int_gt(n, 0);
	return (*list)[0];
}

/* The emulated tree's path @rel, from mlx5_0's ibdev_path (ROOT/class/
 * infiniband/mlx5_0, a symbolic link: its ".." would leave the class). */
static void tree_path(const struct ibv_device *d, const char *rel, char *buf,
		      size_t len)
{
	char root[sizeof(d->ibdev_path)];

	snprintf(root, sizeof(root), "%s", d->ibdev_path);
	for (int i = 0; i < 3; i++)
		*strrchr(root, '/') = '\0';
	snprintf(buf, len, "%s/%s", root, rel);
}

static struct ibv_context *open_fds(struct ibv_device *d, uint32_t flags,
				    int *fds, uint32_t n)
{
	struct fd_arr_57 arr = { .arr = fds, .count = n };
	struct dv_context_attr_57 attr = {
		.flags = flags, .comp_mask = ATTR_MASK_FD_ARRAY, .fds = &arr,
	};

	return mlx5dv_open_device(d, (struct mlx5dv_context_attr *)&attr);
}

/* The uctx cap of the last CREATE_UCTX the trace shows, or -1. */
static long last_uctx_cap(void)
{
	char line[4096];
	long cap = -1;
	FILE *f = fopen(trace_path, "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, " CREATE_UCTX ");

		if (!p)
			continue;
		p = strstr(p, "cap=");
		cap = p ? strtol(p + 4, NULL, 0) : 0;
	}
	fclose(f);
	return cap;
}

START_TEST(test_ucaps_hw)
{
	struct ibv_device **list, *d;
	struct ibv_context *ctx;
	int fd;

	setup_env(NULL);
	d = dev0(&list);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	errno = 0;
	ck_assert_ptr_null(open_fds(d, MLX5DV_CONTEXT_FLAGS_DEVX, &fd, 1));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ctx = open_fds(d, 0, &fd, 1);
	ck_assert_msg(ctx, "open: %s", strerror(errno));
	ibv_close_device(ctx);
	close(fd);
	ibv_free_device_list(list);
	unlink(trace_path);
}
END_TEST

START_TEST(test_ucaps_not_advertised)
{
	struct ibv_device **list, *d;
	struct ibv_context *ctx;
	char path[4096];
	int fd, bad = 1000;

	setup_env(NULL);
	d = dev0(&list);
	/* A ConnectX-6 Dx has no RDMA_CTRL: no nodes at all. */
	tree_path(d, "class/infiniband_ucaps", path, sizeof(path));
	ck_assert_int_ne(access(path, F_OK), 0);
	tree_path(d, "dev/infiniband/mlx5_perm_ctrl_local", path, sizeof(path));
	ck_assert_int_ne(access(path, F_OK), 0);
	/* Any open descriptor is then no ucap node. */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	errno = 0;
	ck_assert_ptr_null(open_fds(d, MLX5DV_CONTEXT_FLAGS_DEVX, &fd, 1));
	ck_assert_int_eq(errno, EINVAL);
	close(fd);
	errno = 0;
	ck_assert_ptr_null(open_fds(d, MLX5DV_CONTEXT_FLAGS_DEVX, &bad, 1));
	ck_assert_int_eq(errno, EBADF);
	/* An empty array grants nothing and fails nothing. */
	ctx = open_fds(d, MLX5DV_CONTEXT_FLAGS_DEVX, NULL, 0);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(last_uctx_cap(), 0);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	unlink(trace_path);
}
END_TEST

START_TEST(test_ucaps_comp_mask)
{
	struct dv_context_attr_57 attr = { .comp_mask = 1u << 1 };
	struct ibv_device **list, *d;
	struct ibv_context *ctx;

	setup_env(NULL);
	d = dev0(&list);
	/* libmlx5 57: check_comp_mask against FD_ARRAY only. */
	errno = 0;
	ck_assert_ptr_null(mlx5dv_open_device(d, (void *)&attr));
	ck_assert_int_eq(errno, EINVAL);
	/* The bit with no array: no attribute passed, as libibverbs does. */
	attr.comp_mask = ATTR_MASK_FD_ARRAY;
	attr.fds = NULL;
	ctx = mlx5dv_open_device(d, (void *)&attr);
	ck_assert_ptr_nonnull(ctx);
	ibv_close_device(ctx);
	/* A count with no array faults in the kernel's copy. */
	errno = 0;
	ck_assert_ptr_null(open_fds(d, 0, NULL, 1));
	ck_assert_int_eq(errno, EFAULT);
	ibv_free_device_list(list);
	unlink(trace_path);
}
END_TEST

START_TEST(test_ucaps_local_granted)
{
	struct ibv_device **list, *d;
	struct ibv_context *ctx;
	char path[4096], num[32] = "";
	struct stat st;
	FILE *f;
	int fd[2];

	setup_env(CAPS_LOCAL);
	d = dev0(&list);
	/* mlx5_ib_init_ucaps: only the advertised bit's node, mode 0600. */
	tree_path(d, "dev/infiniband/mlx5_perm_ctrl_local", path, sizeof(path));
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	fd[0] = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd[0], 0);
	tree_path(d, "dev/infiniband/mlx5_perm_ctrl_other_vhca", path,
		  sizeof(path));
	ck_assert_int_ne(access(path, F_OK), 0);
	tree_path(d, "class/infiniband_ucaps/mlx5_perm_ctrl_local/dev", path,
		  sizeof(path));
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(num, sizeof(num), f));
	fclose(f);
	ck_assert_str_eq(num, "250:0\n");	/* minor: RDMA_UCAP_MLX5_CTRL_LOCAL */

	/* The same node twice is the same capability. */
	fd[1] = fd[0];
	ctx = open_fds(d, MLX5DV_CONTEXT_FLAGS_DEVX, fd, 2);
	ck_assert_msg(ctx, "open: %s", strerror(errno));
	ck_assert_int_eq(last_uctx_cap(), 0x8);	/* MLX5_UCTX_CAP_RDMA_CTRL */
	ibv_close_device(ctx);
	/* Without the array the context has no ucap bit. */
	ctx = mlx5dv_open_device(d, &(struct mlx5dv_context_attr){
		.flags = MLX5DV_CONTEXT_FLAGS_DEVX });
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(last_uctx_cap(), 0);
	ibv_close_device(ctx);
	/* One bad descriptor fails the whole array. */
	fd[1] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	errno = 0;
	ck_assert_ptr_null(open_fds(d, 0, fd, 2));
	ck_assert_int_eq(errno, EINVAL);
	close(fd[1]);
	close(fd[0]);
	ibv_free_device_list(list);
	unlink(trace_path);
}
END_TEST

START_TEST(test_ucaps_need_object_type)
{
	struct ibv_device **list, *d;
	char path[4096];

	/* uctx_cap alone: mlx5_ib creates ucaps only with RDMA_CTRL. */
	setup_env("uctx_cap=0x18");
	d = dev0(&list);
	tree_path(d, "dev/infiniband/mlx5_perm_ctrl_local", path, sizeof(path));
	ck_assert_int_ne(access(path, F_OK), 0);
	tree_path(d, "dev/infiniband/mlx5_perm_ctrl_other_vhca", path,
		  sizeof(path));
	ck_assert_int_ne(access(path, F_OK), 0);
	ibv_free_device_list(list);
	unlink(trace_path);
}
END_TEST

/* The uctx cap of a DEVX context opened now (its CREATE_UCTX's), with
 * CAP_NET_RAW in the effective set or not. */
static long devx_open_cap(struct ibv_device *d, int net_raw)
{
	struct ibv_context *ctx;
	int was = ut_net_raw_set(net_raw);

	ck_assert_int_ge(was, 0);
	ctx = mlx5dv_open_device(d, &(struct mlx5dv_context_attr){
		.flags = MLX5DV_CONTEXT_FLAGS_DEVX });
	ck_assert_ptr_nonnull(ctx);
	ibv_close_device(ctx);
	ut_net_raw_set(was);
	return last_uctx_cap();
}

/* mlx5_ib_devx_create: RAW_TX (uctx_cap bit 0) in the context's uctx
 * exactly when the firmware offers it and the process has CAP_NET_RAW. */
START_TEST(test_uctx_raw_tx)
{
	struct ibv_device **list, *d;

	setup_env("uctx_cap=0x1");
	d = dev0(&list);
	ck_assert_int_eq(devx_open_cap(d, 1), 0x1);	/* MLX5_UCTX_CAP_RAW_TX */
	ck_assert_int_eq(devx_open_cap(d, 0), 0);
	ibv_free_device_list(list);
	unlink(trace_path);
}
END_TEST

/* Not offered (the default): never, CAP_NET_RAW or not. */
START_TEST(test_uctx_raw_tx_not_offered)
{
	struct ibv_device **list, *d;

	setup_env(NULL);
	d = dev0(&list);
	ck_assert_int_eq(devx_open_cap(d, 1), 0);
	ibv_free_device_list(list);
	unlink(trace_path);
}
END_TEST

/* device.allow_net_raw stands for CAP_NET_RAW here too. */
START_TEST(test_uctx_raw_tx_allowed)
{
	struct ibv_device **list, *d;

	setup_env("uctx_cap=0x1");
	setenv("MLX5EMU_ALLOW_NET_RAW", "1", 1);
	d = dev0(&list);
	ck_assert_int_eq(devx_open_cap(d, 0), 0x1);
	ibv_free_device_list(list);
	unlink(trace_path);
}
END_TEST

static Suite *ucaps_suite(void)
{
	Suite *s = suite_create("verbs_ucaps");
	TCase *tc = tcase_create("fd_array");

	if (vt_backend_hw()) {
		tcase_add_test(tc, test_ucaps_hw);
	} else {
		tcase_add_test(tc, test_ucaps_not_advertised);
		tcase_add_test(tc, test_ucaps_comp_mask);
		tcase_add_test(tc, test_ucaps_local_granted);
		tcase_add_test(tc, test_ucaps_need_object_type);
		tcase_add_test(tc, test_uctx_raw_tx);
		tcase_add_test(tc, test_uctx_raw_tx_not_offered);
		tcase_add_test(tc, test_uctx_raw_tx_allowed);
	}
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(ucaps_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
