/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_clock.c: the internal timer at device_frequency_khz, the
 * init segment's clock words at their kernel offsets (internal_timer_h at
 * 0x1000, _l at 0x1004, real_time_h at 0x1040, _l at 0x1044, big-endian),
 * and a CQE's stamp per ts_format.  The virtual clock (deterministic mode)
 * makes every expected value a hand-computed number.
 */
#include <check.h>
#include <endian.h>
#include <stdlib.h>

#include "emu/base/clock.h"
#include "fw_test_util.h"

/* 2^33 ns on the virtual clock (8 s and 589934592 ns past the epoch): the
 * counter's high word is 2 at 1 GHz, its low word 0. */
#define T_NS (UINT64_C(1) << 33)

static struct emu_fw *fw;

static void setup(void)
{
	emu_clock_set_virtual(true);
	emu_clock_advance_to(T_NS);
}

static void teardown(void)
{
	if (fw)
		emu_fw_destroy(fw);
	fw = NULL;
	emu_clock_set_virtual(false);
}

static uint32_t iseg(uint32_t off)
{
	return be32toh(emu_fw_iseg_read32(fw, off));
}

START_TEST(clock_internal_1ghz)
{
	fw = fwt_create(NULL);
	/* 1000000 kHz: one cycle a nanosecond. */
	ck_assert_uint_eq(emu_fw_clock_internal(fw), T_NS);
	ck_assert_uint_eq(iseg(0x1000), 2);		/* 2^33 >> 32 */
	ck_assert_uint_eq(iseg(0x1004), 0);
	emu_clock_advance_to(T_NS + 5);
	ck_assert_uint_eq(iseg(0x1004), 5);
	/* As the bytes on the bus: most significant first. */
	{
		uint32_t w = emu_fw_iseg_read32(fw, 0x1000);
		const uint8_t *b = (const uint8_t *)&w;

		ck_assert(b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 2);
	}
	/* Nothing else of the segment is modelled. */
	ck_assert_uint_eq(iseg(0x1008), 0);
	ck_assert_uint_eq(iseg(0), 0);
}
END_TEST

static void khz_156250(struct emu_fw_caps *caps)
{
	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_GENERAL,
					 "device_frequency_khz", 156250), 0);
}

START_TEST(clock_internal_rate)
{
	fw = fwt_create(khz_156250);
	/* 8589934592 ns at 156.25 MHz: 8589934592 * 0.15625 = 1342177280. */
	ck_assert_uint_eq(emu_fw_clock_internal(fw), 1342177280u);
	ck_assert_uint_eq(emu_fw_clock_cycles(fw, 1000000), 156250);
	ck_assert_uint_eq(emu_fw_clock_cycles(fw, 999999), 156249);
	/* Far past 2^64 / 156250 ns the counter wraps as a 64-bit one:
	 * 10^18 ns * 156250 / 10^6 = 1.5625e17, still exact. */
	ck_assert_uint_eq(emu_fw_clock_cycles(fw, UINT64_C(1000000000000000000)),
			  UINT64_C(156250000000000000));
}
END_TEST

START_TEST(clock_real_time)
{
	fw = fwt_create(NULL);
	/* 2^33 ns = 8 s + 589934592 ns. */
	ck_assert_uint_eq(iseg(0x1040), 8);
	ck_assert_uint_eq(iseg(0x1044), 589934592);
}
END_TEST

START_TEST(clock_stamp_formats)
{
	fw = fwt_create(NULL);
	ck_assert_uint_eq(emu_fw_clock_stamp(fw, MLX5_TIMESTAMP_FORMAT_FREE_RUNNING),
			  T_NS);
	ck_assert_uint_eq(emu_fw_clock_stamp(fw, MLX5_TIMESTAMP_FORMAT_REAL_TIME),
			  UINT64_C(8) << 32 | 589934592);
	/* Default with free running offered: free running. */
	ck_assert_uint_eq(emu_fw_clock_stamp(fw, MLX5_TIMESTAMP_FORMAT_DEFAULT),
			  T_NS);
}
END_TEST

static void rt_only(struct emu_fw_caps *caps)
{
	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_ROCE, "qp_ts_format",
					 MLX5_TIMESTAMP_FORMAT_CAP_REAL_TIME), 0);
}

START_TEST(clock_stamp_default_rt_only)
{
	fw = fwt_create(rt_only);
	ck_assert_uint_eq(emu_fw_clock_stamp(fw, MLX5_TIMESTAMP_FORMAT_DEFAULT),
			  UINT64_C(8) << 32 | 589934592);
}
END_TEST

static Suite *fw_clock_suite(void)
{
	Suite *s = suite_create("fw_clock");
	TCase *tc = tcase_create("clock");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, clock_internal_1ghz);
	tcase_add_test(tc, clock_internal_rate);
	tcase_add_test(tc, clock_real_time);
	tcase_add_test(tc, clock_stamp_formats);
	tcase_add_test(tc, clock_stamp_default_rt_only);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fw_clock_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
