/* SPDX-License-Identifier: MIT */
/*
 * The filter (backend/filter) over a recording fake implementation, with
 * the real hooks (emu/fault's rules, emu/trace's sink): what a command
 * becomes when a rule fires above a device whose firmware is not ours, and
 * the trace line of each outcome.
 *
 *   a rule that fires answers general/create/modify/query with -EREMOTEIO
 *   (create: NULL, errno EREMOTEIO) and an outbox of exactly the rule's
 *   status and syndrome, and the implementation never sees the command;
 *   a destroy is matched on the inbox the kernel derives from the create
 *   (DEALLOC_PD for ALLOC_PD), fails with the kernel's errno for the
 *   status and leaves the object; the trace names the device as the
 *   implementation enumerated it and shows each outcome: the outbox, the
 *   injection and its rule, or an errno when DEVX gave no outbox back.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/backend_impl.h"
#include "emu/fault/fault.h"
#include "emu/trace/trace.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "tests/unit/common/ut_env.h"

/* ---- the fake implementation: one device, every command recorded ---- */

static struct {
	int calls;		/* commands that reached it */
	uint16_t last_opcode;
	int destroys;
	int fail_errno;		/* the next command fails with this */
} fake;

struct fake_obj {
	int id;
};

static int fake_get_devices(struct mlx5be_device_info *infos, int max)
{
	if (max < 1)
		return 0;
	memset(infos, 0, sizeof(*infos));
	snprintf(infos->name, sizeof(infos->name), "mlx5_7");
	return 1;
}

static int fake_open(int index, struct mlx5be_ctx **ctx, int *cmd_fd)
{
	*ctx = (struct mlx5be_ctx *)&fake;
	*cmd_fd = -1;
	return index == 0 ? 0 : -ENODEV;
}

static void fake_close(struct mlx5be_ctx *ctx)
{
}

/* A command answered as a device would: OK and, for ALLOC_PD, pd 5. */
static int fake_cmd(const void *in, void *out, size_t outlen)
{
	fake.calls++;
	fake.last_opcode = PRM_GET(mbox_in, in, opcode);
	if (fake.fail_errno) {
		int err = fake.fail_errno;

		fake.fail_errno = 0;
		return -err;
	}
	memset(out, 0, outlen);
	if (fake.last_opcode == MLX5_CMD_OP_ALLOC_PD)
		PRM_SET(alloc_pd_out, out, pd, 5);
	return 0;
}

static int fake_general_cmd(struct mlx5be_ctx *ctx, const void *in,
			    size_t inlen, void *out, size_t outlen)
{
	return fake_cmd(in, out, outlen);
}

static struct mlx5be_obj *fake_obj_create(struct mlx5be_ctx *ctx,
					  const void *in, size_t inlen,
					  void *out, size_t outlen)
{
	struct fake_obj *o;
	int ret = fake_cmd(in, out, outlen);

	if (ret) {
		errno = -ret;
		return NULL;
	}
	o = calloc(1, sizeof(*o));
	return (struct mlx5be_obj *)o;
}

static int fake_obj_modify(struct mlx5be_obj *obj, const void *in,
			   size_t inlen, void *out, size_t outlen)
{
	return fake_cmd(in, out, outlen);
}

static int fake_obj_destroy(struct mlx5be_obj *obj)
{
	fake.destroys++;
	free(obj);
	return 0;
}

static const struct mlx5be_ops fake_ops = {
	.name = "fake",
	.get_devices = fake_get_devices,
	.open = fake_open,
	.close = fake_close,
	.general_cmd = fake_general_cmd,
	.obj_create = fake_obj_create,
	.obj_modify = fake_obj_modify,
	.obj_query = fake_obj_modify,
	.obj_destroy = fake_obj_destroy,
};

/* ---- fixture ---- */

static const struct mlx5be_ops *be;
static struct mlx5be_ctx *ctx;
static char trace_path[] = "/tmp/mlx5emu-filter-XXXXXX";

static void setup(void)
{
	struct emu_trace_config tc = { .on = true, .fmt = EMU_TRACE_TEXT,
				       .elide = true };
	struct mlx5be_device_info info;
	int fd, cmd_fd;

	ut_clear_env();
	memset(&fake, 0, sizeof(fake));
	fd = mkstemp(trace_path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(tc.file, sizeof(tc.file), "%s", trace_path);
	ck_assert_int_eq(emu_trace_configure(&tc), 0);
	be = mlx5be_filter_bind(&fake_ops, &mlx5be_emu_cmd_hooks);
	ck_assert_str_eq(be->name, "fake");
	ck_assert_int_eq(be->get_devices(&info, 1), 1);
	ck_assert_int_eq(be->open(0, &ctx, &cmd_fd), 0);
}

static void teardown(void)
{
	be->close(ctx);
	emu_fault_clear();
	unlink(trace_path);
}

/* The trace file's content (malloc'ed). */
static char *trace_text(void)
{
	char *buf = calloc(1, 65536);
	int fd = open(trace_path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(read(fd, buf, 65535), 0);
	close(fd);
	return buf;
}

/* The trace holds @line. */
static void ck_trace_has(const char *line)
{
	char *t = trace_text();

	ck_assert_msg(strstr(t, line), "no \"%s\" in:\n%s", line, t);
	free(t);
}

/* ALLOC_PD through the filter's general_cmd; its result. */
static int alloc_pd(uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)])
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };

	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	return be->general_cmd(ctx, in, sizeof(in), out,
			       PRM_ST_SZ_BYTES(alloc_pd_out));
}

static void ck_failed_outbox(const uint8_t *out, size_t len, uint8_t status,
			     uint32_t syndrome)
{
	ck_assert_uint_eq(out[0], status);
	/* syndrome: bytes 4..7, big-endian */
	ck_assert_uint_eq((uint32_t)out[4] << 24 | out[5] << 16 | out[6] << 8 |
			  out[7], syndrome);
	for (size_t i = 8; i < len; i++)
		ck_assert_uint_eq(out[i], 0);
}

START_TEST(passes_through_without_rules)
{
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };

	ck_assert_int_eq(alloc_pd(out), 0);
	ck_assert_int_eq(fake.calls, 1);
	ck_assert_uint_eq(PRM_GET(alloc_pd_out, out, pd), 5);
	ck_trace_has("mlx5_7 #1 ALLOC_PD uid=0x0 op_mod=0x0 in{} -> OK out{pd=0x5}");
}
END_TEST

START_TEST(rule_answers_general_cmd)
{
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)];

	memset(out, 0xa5, sizeof(out));
	emu_fault_add_text("fail opcode=ALLOC_PD status=LIM syndrome=0x1234", NULL, 0);
	ck_assert_int_eq(alloc_pd(out), -EREMOTEIO);
	ck_assert_int_eq(fake.calls, 0);
	ck_failed_outbox(out, sizeof(out), MLX5_CMD_STAT_LIM_ERR, 0x1234);
	ck_trace_has("mlx5_7 #1 ALLOC_PD uid=0x0 op_mod=0x0 in{} -> LIM(0x8) syndrome=0x1234 injected(rule 1: fail opcode=ALLOC_PD");
}
END_TEST

START_TEST(rule_counts_and_nth)
{
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)];
	struct mlx5emu_fault_stats st;
	int id = emu_fault_add_text("fail opcode=ALLOC_PD nth=2", NULL, 0);

	ck_assert_int_eq(alloc_pd(out), 0);
	ck_assert_int_eq(alloc_pd(out), -EREMOTEIO);
	ck_assert_int_eq(alloc_pd(out), 0);
	ck_assert_int_eq(fake.calls, 2);
	ck_assert_int_eq(emu_fault_stats(id, &st), 0);
	ck_assert_uint_eq(st.matches, 3);
	ck_assert_uint_eq(st.injections, 1);
}
END_TEST

/* dev= matches the index the implementation enumerates. */
START_TEST(rule_dev_is_the_index)
{
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)];

	emu_fault_add_text("fail dev=1", NULL, 0);
	ck_assert_int_eq(alloc_pd(out), 0);
	emu_fault_add_text("fail dev=0", NULL, 0);
	ck_assert_int_eq(alloc_pd(out), -EREMOTEIO);
}
END_TEST

START_TEST(rule_answers_create_and_modify)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)];
	uint8_t min[PRM_ST_SZ_BYTES(modify_cq_in)] = { 0 };
	uint8_t mout[PRM_ST_SZ_BYTES(modify_cq_out)];
	struct mlx5be_obj *obj;

	emu_fault_add_text("fail opcode=CREATE_CQ syndrome=CQ_BAD_SIZE nth=1", NULL, 0);
	PRM_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	errno = 0;
	ck_assert_ptr_null(be->obj_create(ctx, in, sizeof(in), out, sizeof(out)));
	ck_assert_int_eq(errno, EREMOTEIO);
	ck_assert_int_eq(fake.calls, 0);
	ck_failed_outbox(out, sizeof(out), MLX5_CMD_STAT_BAD_PARAM_ERR, 0xee000902);
	obj = be->obj_create(ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_ptr_nonnull(obj);
	emu_fault_add_text("fail opcode=MODIFY_CQ status=BAD_RES_STATE", NULL, 0);
	PRM_SET(modify_cq_in, min, opcode, MLX5_CMD_OP_MODIFY_CQ);
	ck_assert_int_eq(be->obj_modify(obj, min, sizeof(min), mout, sizeof(mout)),
			 -EREMOTEIO);
	ck_assert_uint_eq(mout[0], MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	ck_assert_int_eq(fake.calls, 1);
	ck_assert_int_eq(be->obj_destroy(obj), 0);
}
END_TEST

/* The destroy the kernel derives from ALLOC_PD is DEALLOC_PD of that pd. */
START_TEST(destroy_matches_the_derived_command)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)];
	struct mlx5be_obj *obj;

	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	obj = be->obj_create(ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_ptr_nonnull(obj);
	emu_fault_add_text("fail opcode=DEALLOC_PD status=RES_BUSY nth=1", NULL, 0);
	/* cmd_status_to_err(): RES_BUSY is EBUSY; the object stays. */
	ck_assert_int_eq(be->obj_destroy(obj), -EBUSY);
	ck_assert_int_eq(fake.destroys, 0);
	ck_assert_int_eq(be->obj_destroy(obj), 0);
	ck_assert_int_eq(fake.destroys, 1);
	ck_trace_has("#2 DEALLOC_PD uid=0x0 op_mod=0x0 in{pd=0x5} -> RES_BUSY(0x6) syndrome=0xee0000ff(INJECTED) injected(rule 1:");
	ck_trace_has("#3 DEALLOC_PD uid=0x0 op_mod=0x0 in{pd=0x5} -> OK out{}");
}
END_TEST

/* A call DEVX refuses without an outbox: the errno in the line. */
START_TEST(errno_without_outbox)
{
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)];
	char *t;

	fake.fail_errno = EINVAL;
	ck_assert_int_eq(alloc_pd(out), -EINVAL);
	ck_trace_has("#1 ALLOC_PD uid=0x0 op_mod=0x0 in{} -> errno EINVAL(22) ");
	t = trace_text();
	ck_assert_msg(!strstr(t, "out{"), "%s", t);
	free(t);
}
END_TEST

/* A delay rule sleeps, then the implementation runs the command. */
START_TEST(delay_then_runs)
{
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)];
	struct timespec a, b;

	emu_fault_add_text("delay opcode=ALLOC_PD ms=30", NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	ck_assert_int_eq(alloc_pd(out), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ck_assert_int_ge((b.tv_sec - a.tv_sec) * 1000 +
			 (b.tv_nsec - a.tv_nsec) / 1000000, 30);
	ck_assert_int_eq(fake.calls, 1);
	ck_trace_has("-> OK delayed(rule 1: delay opcode=ALLOC_PD ms=30)");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("backend_filter");
	TCase *tc = tcase_create("filter");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, passes_through_without_rules);
	tcase_add_test(tc, rule_answers_general_cmd);
	tcase_add_test(tc, rule_counts_and_nth);
	tcase_add_test(tc, rule_dev_is_the_index);
	tcase_add_test(tc, rule_answers_create_and_modify);
	tcase_add_test(tc, destroy_matches_the_derived_command);
	tcase_add_test(tc, errno_without_outbox);
	tcase_add_test(tc, delay_then_runs);
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
