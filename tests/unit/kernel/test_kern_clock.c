/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_clock.c: the clock info page read by its literal layout
 * (struct mlx5_ib_clock_info: sign u32 at 0, nsec at 8, cycles at 16,
 * frac at 24, mult u32 at 32, shift u32 at 36, mask at 40,
 * overflow_period at 48), on the virtual clock of deterministic mode so
 * every value is a hand-computed number: 1 GHz gives mult 2^23 at shift
 * 23; overflow_period 183251 jiffies of HZ 250 (733004000000 ns); the
 * page is rewritten once per period, sign +2 each time.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "emu/base/clock.h"
#include "emu/kernel/kern.h"

#define PERIOD_NS UINT64_C(733004000000)	/* 183251 * 4 ms */

static uint64_t u64_at(const void *page, size_t off)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)page + off, 8);
	return v;
}

static uint32_t u32_at(const void *page, size_t off)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)page + off, 4);
	return v;
}

START_TEST(clock_page_layout_and_updates)
{
	struct mlx5be_ctx *ctx;
	struct mlx5be_clock_info ci;
	struct kern_dev *kdev;
	const void *page;
	uint64_t cycles;
	int fd;

	ck_assert_int_eq(mlx5be_emu_ops.open(0, &ctx, &fd), 0);
	ck_assert(emu_clock_is_virtual());
	kdev = ctx->uctx->kdev;
	emu_clock_advance_to(1000);
	page = kern_clock_page(kdev);
	ck_assert_ptr_nonnull(page);
	/* Created at virtual 0, updated once at once (the work's first run
	 * has no delay): nothing elapsed between. */
	ck_assert_uint_eq(u32_at(page, 0), 2);
	ck_assert_uint_eq(u64_at(page, 8), 0);
	ck_assert_uint_eq(u64_at(page, 16), 0);
	ck_assert_uint_eq(u64_at(page, 24), 0);
	ck_assert_uint_eq(u32_at(page, 32), 1u << 23);
	ck_assert_uint_eq(u32_at(page, 36), 23);
	ck_assert_uint_eq(u64_at(page, 40), (UINT64_C(1) << 41) - 1);
	ck_assert_uint_eq(u64_at(page, 48), 183251);

	/* The counter as libmlx5 reads it: 1000 ns, 1000 cycles. */
	ck_assert_int_eq(mlx5be_emu_ops.read_clock(ctx, &cycles), 0);
	ck_assert_uint_eq(cycles, 1000);

	/* One period later, the overflow work's state at that time. */
	emu_clock_advance_to(PERIOD_NS + 5);
	page = kern_clock_page(kdev);
	ck_assert_uint_eq(u32_at(page, 0), 4);
	ck_assert_uint_eq(u64_at(page, 16), PERIOD_NS);
	ck_assert_uint_eq(u64_at(page, 8), PERIOD_NS);
	/* Three periods on (one look): every run replayed, the 41-bit
	 * counter wrapped (2^41 < 4 * PERIOD_NS), nsec kept counting. */
	emu_clock_advance_to(4 * PERIOD_NS);
	page = kern_clock_page(kdev);
	ck_assert_uint_eq(u32_at(page, 0), 6);
	ck_assert_uint_eq(u64_at(page, 16),
			  (4 * PERIOD_NS) & ((UINT64_C(1) << 41) - 1));
	ck_assert_uint_eq(u64_at(page, 8), 4 * PERIOD_NS);

	/* What mlx5dv_get_clock_info copies. */
	ck_assert_int_eq(mlx5be_emu_ops.clock_info(ctx, &ci), 0);
	ck_assert_uint_eq(ci.nsec, 4 * PERIOD_NS);
	ck_assert_uint_eq(ci.last_cycles, u64_at(page, 16));
	ck_assert_uint_eq(ci.mult, 1u << 23);
	mlx5be_emu_ops.close(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kern_clock");
	TCase *tc = tcase_create("clock");
	SRunner *sr;
	int failed;

	setenv("MLX5EMU_ENGINE_MODE", "deterministic", 1);
	tcase_add_test(tc, clock_page_layout_and_updates);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
