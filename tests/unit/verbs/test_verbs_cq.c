/* SPDX-License-Identifier: MIT */
/*
 * ibv_create_cq, the ibv_create_cq_ex op, ibv_destroy_cq, ibv_resize_cq
 * and the empty-CQ behaviour of ibv_poll_cq, ibv_req_notify_cq and the
 * ibv_cq_ex poll functions, with rdma-core 44's sizes and errnos (libmlx5
 * create_cq, the kernel's mlx5_ib_create_cq and uverbs CQ_CREATE).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_test.h"

static struct ibv_context *ctx;

static void setup(void)
{
	unsetenv("MLX5_CQE_SIZE");
	unsetenv("MLX_CQ_ALLOC_TYPE");
	ctx = vt_open(true);
}

static void teardown(void)
{
	unsetenv("MLX5_CQE_SIZE");
	unsetenv("MLX_CQ_ALLOC_TYPE");
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

static void expect_cq_fail(int cqe, int vector, int err)
{
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ctx, cqe, NULL, NULL, vector));
	ck_assert_msg(errno == err, "cqe %d vector %d: errno %d, want %d",
		      cqe, vector, errno, err);
}

static struct ibv_cq_ex *create_ex(uint32_t cqe, uint64_t wc_flags,
				   uint32_t comp_mask, uint32_t flags)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = cqe, .wc_flags = wc_flags,
		.comp_mask = comp_mask, .flags = flags,
	};

	return ibv_create_cq_ex(ctx, &attr);
}

static void expect_ex_fail(uint32_t cqe, uint64_t wc_flags, uint32_t comp_mask,
			   uint32_t flags, int err)
{
	errno = 0;
	ck_assert_ptr_null(create_ex(cqe, wc_flags, comp_mask, flags));
	ck_assert_msg(errno == err, "cqe %u wc_flags %#llx mask %#x flags %#x: "
		      "errno %d, want %d", cqe, (unsigned long long)wc_flags,
		      comp_mask, flags, errno, err);
}

START_TEST(test_create_sizes)
{
	static const struct { int req, got; } sz[] = {
		{ 1, 1 }, { 2, 3 }, { 3, 3 }, { 4, 7 }, { 100, 127 },
		{ 127, 127 }, { 128, 255 }, { 1000, 1023 },
	};
	int cookie;

	for (size_t i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
		struct ibv_cq *cq = ibv_create_cq(ctx, sz[i].req, &cookie, NULL, 0);

		ck_assert_msg(cq, "cqe %d: %s", sz[i].req, strerror(errno));
		ck_assert_int_eq(cq->cqe, sz[i].got);
		ck_assert_ptr_eq(cq->context, ctx);
		ck_assert_ptr_eq(cq->cq_context, &cookie);
		ck_assert_ptr_null(cq->channel);
		ck_assert_uint_eq(cq->comp_events_completed, 0);
		ck_assert_uint_eq(cq->async_events_completed, 0);
		ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	}
}
END_TEST

START_TEST(test_create_max)
{
	int max = vt_max_cqe(ctx);
	struct ibv_cq *cq;

	/* max_cqe comes from the capability page, as mlx5_ib reports it. */
	ck_assert_int_eq(max, (int)vt_cap_max_cq_sz(ctx) - 1);
	cq = ibv_create_cq(ctx, max, NULL, NULL, 0);
	ck_assert_msg(cq, "max_cqe %d: %s", max, strerror(errno));
	ck_assert_int_eq(cq->cqe, max);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	cq = ibv_create_cq(ctx, max / 2, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

START_TEST(test_create_bad)
{
	int max = vt_max_cqe(ctx);

	expect_cq_fail(0, 0, EINVAL);
	expect_cq_fail(-1, 0, EINVAL);
	expect_cq_fail(max + 1, 0, EINVAL);
	expect_cq_fail(INT_MAX, 0, EINVAL);
	expect_cq_fail(1 << 24, 0, EINVAL);
	expect_cq_fail(10, ctx->num_comp_vectors, EINVAL);
	expect_cq_fail(10, ctx->num_comp_vectors + 1, EINVAL);
	expect_cq_fail(10, -1, EINVAL);
}
END_TEST

START_TEST(test_every_vector)
{
	for (int v = 0; v < ctx->num_comp_vectors; v++) {
		struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, v);

		ck_assert_msg(cq, "vector %d: %s", v, strerror(errno));
		ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	}
}
END_TEST

START_TEST(test_handles_distinct)
{
	struct ibv_cq *a = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	struct ibv_cq *b = ibv_create_cq(ctx, 1, NULL, NULL, 0);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_ne(a->handle, b->handle);
	ck_assert_int_eq(ibv_destroy_cq(a), 0);
	ck_assert_int_eq(ibv_destroy_cq(b), 0);
}
END_TEST

START_TEST(test_foreign_channel)
{
	struct ibv_context *ctx2 = vt_open(false);
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx2);

	ck_assert_ptr_nonnull(ch);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(ctx, 4, NULL, ch, 0));
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(ch->refcnt, 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
	ck_assert_int_eq(ibv_close_device(ctx2), 0);
}
END_TEST

START_TEST(test_cqe_size_env)
{
	struct ibv_cq *cq;

	setenv("MLX5_CQE_SIZE", "128", 1);
	cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);
	ck_assert_msg(cq, "128-byte CQEs: %s", strerror(errno));
	ck_assert_int_eq(cq->cqe, 127);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	setenv("MLX5_CQE_SIZE", "64", 1);
	cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	setenv("MLX5_CQE_SIZE", "100", 1);
	expect_cq_fail(100, 0, EINVAL);
	expect_ex_fail(100, 0, 0, 0, EINVAL);
	setenv("MLX5_CQE_SIZE", "junk", 1);
	expect_cq_fail(100, 0, EINVAL);
}
END_TEST

static bool have_huge_pages(void)
{
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "r");
	long n = 0;

	if (!f)
		return false;
	if (fscanf(f, "%ld", &n) != 1)
		n = 0;
	fclose(f);
	return n > 0;
}

START_TEST(test_alloc_type_env)
{
	static const char *const ok[] = {
		"ANON", "anon", "PREFER_HUGE", "PREFER_CONTIG", "ALL", "bogus",
	};
	struct ibv_cq *cq;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		setenv("MLX_CQ_ALLOC_TYPE", ok[i], 1);
		cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);
		ck_assert_msg(cq, "%s: %s", ok[i], strerror(errno));
		ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	}
	setenv("MLX_CQ_ALLOC_TYPE", "HUGE", 1);
	cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);
	if (have_huge_pages()) {
		ck_assert_ptr_nonnull(cq);
		ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	} else {
		ck_assert_ptr_null(cq);
		ck_assert_int_ne(errno, 0);
	}
	setenv("MLX_CQ_ALLOC_TYPE", "CONTIG", 1);
	expect_cq_fail(100, 0, ENOSYS);
}
END_TEST

START_TEST(test_empty_poll_and_arm)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_wc wc[4];

	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(ibv_poll_cq(cq, 4, wc), 0);
	ck_assert_int_eq(ibv_poll_cq(cq, 0, wc), 0);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 1), 0);
	ck_assert_int_eq(ibv_poll_cq(cq, 1, wc), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

START_TEST(test_resize)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);

	/* Same rounded size: nothing to do (libmlx5). */
	ck_assert_int_eq(ibv_resize_cq(cq, 127), 0);
	ck_assert_int_eq(ibv_resize_cq(cq, 64), 0);
	ck_assert_int_eq(ibv_resize_cq(cq, -1), EINVAL);
	ck_assert_int_eq(ibv_resize_cq(cq, INT_MAX / 32), EINVAL);
	/* cq_resize is offered: RESIZE_CQ to 1024 entries. */
	ck_assert_int_eq(ibv_resize_cq(cq, 1000), 0);
	ck_assert_int_eq(cq->cqe, 1023);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

START_TEST(test_ex_create)
{
	static const uint64_t flags[] = {
		0,
		IBV_WC_STANDARD_FLAGS,
		IBV_WC_EX_WITH_BYTE_LEN, IBV_WC_EX_WITH_IMM, IBV_WC_EX_WITH_QP_NUM,
		IBV_WC_EX_WITH_SRC_QP, IBV_WC_EX_WITH_SLID, IBV_WC_EX_WITH_SL,
		IBV_WC_EX_WITH_DLID_PATH_BITS, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
		IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
		IBV_WC_EX_WITH_FLOW_TAG,	/* NIC flow tables advertised */
	};
	/* What the device does not produce: no VLAN stripping. */
	static const uint64_t absent[] = {
		IBV_WC_EX_WITH_CVLAN,
		IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_CVLAN,
	};
	struct ibv_device_attr_ex dattr;
	int cookie;

	ck_assert_int_eq(ibv_query_device_ex(ctx, NULL, &dattr), 0);
	ck_assert_uint_eq(dattr.hca_core_clock, 1000000);	/* kHz */
	ck_assert(!(dattr.raw_packet_caps & IBV_RAW_PACKET_CAP_CVLAN_STRIPPING));
	ck_assert(dattr.orig_attr.device_cap_flags &
		  IBV_DEVICE_MANAGED_FLOW_STEERING);
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
		struct ibv_cq_init_attr_ex attr = { .cqe = 10, .wc_flags = absent[i] };

		errno = 0;
		ck_assert_ptr_null(ibv_create_cq_ex(ctx, &attr));
		ck_assert_int_eq(errno, EOPNOTSUPP);
	}

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		struct ibv_cq_init_attr_ex attr = {
			.cqe = 10, .wc_flags = flags[i], .cq_context = &cookie,
		};
		struct ibv_cq_ex *cq = ibv_create_cq_ex(ctx, &attr);
		struct ibv_cq *ibcq;

		ck_assert_msg(cq, "wc_flags %#llx: %s",
			      (unsigned long long)flags[i], strerror(errno));
		ibcq = ibv_cq_ex_to_cq(cq);
		ck_assert_int_eq(ibcq->cqe, 15);
		ck_assert_ptr_eq(ibcq->cq_context, &cookie);
		ck_assert_ptr_eq(ibcq->context, ctx);
		ck_assert_ptr_nonnull(cq->start_poll);
		ck_assert_ptr_nonnull(cq->next_poll);
		ck_assert_ptr_nonnull(cq->end_poll);
		ck_assert_ptr_nonnull(cq->read_opcode);
		ck_assert_ptr_nonnull(cq->read_vendor_err);
		ck_assert_ptr_nonnull(cq->read_wc_flags);
		ck_assert(!!cq->read_byte_len == !!(flags[i] & IBV_WC_EX_WITH_BYTE_LEN));
		ck_assert(!!cq->read_imm_data == !!(flags[i] & IBV_WC_EX_WITH_IMM));
		ck_assert(!!cq->read_qp_num == !!(flags[i] & IBV_WC_EX_WITH_QP_NUM));
		ck_assert(!!cq->read_src_qp == !!(flags[i] & IBV_WC_EX_WITH_SRC_QP));
		ck_assert(!!cq->read_slid == !!(flags[i] & IBV_WC_EX_WITH_SLID));
		ck_assert(!!cq->read_sl == !!(flags[i] & IBV_WC_EX_WITH_SL));
		ck_assert(!!cq->read_dlid_path_bits ==
			  !!(flags[i] & IBV_WC_EX_WITH_DLID_PATH_BITS));
		ck_assert(!!cq->read_completion_ts ==
			  !!(flags[i] & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP));
		ck_assert(!!cq->read_completion_wallclock_ns ==
			  !!(flags[i] & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK));
		ck_assert_ptr_null(cq->read_cvlan);
		ck_assert(!!cq->read_flow_tag ==
			  !!(flags[i] & IBV_WC_EX_WITH_FLOW_TAG));
		ck_assert_int_eq(ibv_destroy_cq(ibcq), 0);
	}
}
END_TEST

START_TEST(test_ex_flags)
{
	static const uint32_t ok[] = {
		0, IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
		IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
		IBV_CREATE_CQ_ATTR_SINGLE_THREADED | IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
	};
	struct ibv_cq_ex *cq;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cq = create_ex(10, 0, IBV_CQ_INIT_ATTR_MASK_FLAGS, ok[i]);
		ck_assert_msg(cq, "flags %#x: %s", ok[i], strerror(errno));
		ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	}
	/* Flags are only read under IBV_CQ_INIT_ATTR_MASK_FLAGS. */
	cq = create_ex(10, 0, 0, 1u << 5);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
}
END_TEST

START_TEST(test_ex_bad)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 10, .comp_mask = IBV_CQ_INIT_ATTR_MASK_PD, .parent_domain = pd,
	};
	int max = vt_max_cqe(ctx);

	expect_ex_fail(0, 0, 0, 0, EINVAL);
	expect_ex_fail((uint32_t)max + 1, 0, 0, 0, EINVAL);
	expect_ex_fail(UINT32_MAX, 0, 0, 0, EINVAL);
	expect_ex_fail(10, 0, 1u << 2, 0, EINVAL);
	expect_ex_fail(10, 0, IBV_CQ_INIT_ATTR_MASK_FLAGS, 1u << 2, EINVAL);
	/* wc_flags libibverbs does not know. */
	expect_ex_fail(10, 1ull << 20, 0, 0, EOPNOTSUPP);
	expect_ex_fail(10, 1ull << 40, 0, 0, EOPNOTSUPP);
	/* A plain PD is not a parent domain. */
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &attr));
	ck_assert_int_eq(errno, EINVAL);
	attr.comp_mask = 0;
	attr.comp_vector = (uint32_t)ctx->num_comp_vectors;
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &attr));
	ck_assert_int_eq(errno, EINVAL);
	attr.comp_vector = (uint32_t)ctx->num_comp_vectors + 1;
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &attr));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
}
END_TEST

/* Tag matching and wallclock need what the device does not offer. */
START_TEST(test_ex_unsupported)
{
	struct ibv_cq_ex *cq;

	expect_ex_fail(10, IBV_WC_EX_WITH_TM_INFO, 0, 0, EOPNOTSUPP);
	expect_ex_fail(10, IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_TM_INFO, 0, 0,
		       EOPNOTSUPP);
	errno = 0;
	cq = create_ex(10, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, 0, 0);
	if (cq) {
		ck_assert_ptr_nonnull(cq->read_completion_wallclock_ns);
		ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	} else {
		ck_assert_int_eq(errno, EOPNOTSUPP);
	}
}
END_TEST

START_TEST(test_ex_empty_poll)
{
	struct ibv_poll_cq_attr pattr = { 0 };
	struct ibv_cq_ex *cq = create_ex(10, IBV_WC_STANDARD_FLAGS, 0, 0);
	struct ibv_cq_ex *st = create_ex(10, 0, IBV_CQ_INIT_ATTR_MASK_FLAGS,
					 IBV_CREATE_CQ_ATTR_SINGLE_THREADED);
	struct ibv_wc wc;

	ck_assert_ptr_nonnull(cq);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(ibv_start_poll(cq, &pattr), ENOENT);
	/* The lock was released: again, and through ibv_poll_cq. */
	ck_assert_int_eq(ibv_start_poll(cq, &pattr), ENOENT);
	ck_assert_int_eq(ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc), 0);
	pattr.comp_mask = 1;
	ck_assert_int_eq(ibv_start_poll(cq, &pattr), EINVAL);
	pattr.comp_mask = 0;
	ck_assert_int_eq(ibv_start_poll(st, &pattr), ENOENT);
	ck_assert_int_eq(ibv_req_notify_cq(ibv_cq_ex_to_cq(cq), 0), 0);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(st)), 0);
}
END_TEST

/* Many CQs at once, and the memory comes back. */
START_TEST(test_many)
{
	struct ibv_cq *cqs[128];

	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 128; i++) {
			cqs[i] = ibv_create_cq(ctx, 256, NULL, NULL, 0);
			ck_assert_msg(cqs[i], "cq %d: %s", i, strerror(errno));
		}
		for (int i = 0; i < 128; i++)
			ck_assert_int_eq(ibv_destroy_cq(cqs[i]), 0);
	}
}
END_TEST

static Suite *cq_suite(void)
{
	Suite *s = suite_create("verbs_cq");
	TCase *tc = tcase_create("cq");
	TCase *ex = tcase_create("cq_ex");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_create_sizes);
	tcase_add_test(tc, test_create_max);
	tcase_add_test(tc, test_create_bad);
	tcase_add_test(tc, test_every_vector);
	tcase_add_test(tc, test_handles_distinct);
	tcase_add_test(tc, test_foreign_channel);
	tcase_add_test(tc, test_cqe_size_env);
	tcase_add_test(tc, test_alloc_type_env);
	tcase_add_test(tc, test_empty_poll_and_arm);
	tcase_add_test(tc, test_resize);
	tcase_add_test(tc, test_many);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(ex, setup, teardown);
	tcase_add_test(ex, test_ex_create);
	tcase_add_test(ex, test_ex_flags);
	tcase_add_test(ex, test_ex_bad);
	tcase_add_test(ex, test_ex_unsupported);
	tcase_add_test(ex, test_ex_empty_poll);
	suite_add_tcase(s, ex);
	return s;
}

int main(void)
{
	/* A device without VLAN stripping: the CQ's CVLAN field is refused. */
	setenv("MLX5EMU_CAPS", "per_protocol_networking_offload_caps.vlan_cap=0", 1);
	return vt_run(cq_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
