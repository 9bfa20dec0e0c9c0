/* SPDX-License-Identifier: MIT */
/*
 * emu_link_ib_rate: mlx5_ib's translation of an Ethernet link mode into the
 * IB width and speed ib_query_port shows (translate_eth_legacy_proto_oper,
 * translate_eth_ext_proto_oper in drivers/infiniband/hw/mlx5/main.c),
 * written out here as numbers: the PTYS bit, then IB width (1X 1, 2X 16,
 * 4X 2, 8X 4) and speed (SDR 1, DDR 2, QDR 4, FDR 16, EDR 32, HDR 64,
 * NDR 128).
 */
#include <errno.h>
#include <stdlib.h>

#include <check.h>

#include "emu/device/dev_link.h"
#include "ut_run.h"

struct rate {
	unsigned int bit, width, speed;
};

static const struct rate legacy[] = {
	{ 0, 1, 1 }, { 1, 1, 1 }, { 24, 1, 1 }, { 25, 1, 1 },
	{ 26, 1, 4 }, { 2, 1, 4 }, { 3, 1, 4 }, { 4, 1, 4 }, { 12, 1, 4 },
	{ 13, 1, 4 }, { 14, 1, 4 },
	{ 27, 1, 32 }, { 28, 1, 32 }, { 29, 1, 32 },
	{ 6, 2, 4 }, { 7, 2, 4 }, { 15, 2, 4 }, { 16, 2, 4 },
	{ 30, 1, 64 }, { 31, 1, 64 }, { 18, 1, 64 },
	{ 8, 2, 16 },
	{ 20, 2, 32 }, { 21, 2, 32 }, { 22, 2, 32 }, { 23, 2, 32 },
};

static const struct rate ext[] = {
	{ 0, 1, 1 }, { 1, 1, 1 }, { 3, 1, 2 }, { 4, 1, 4 }, { 5, 2, 4 },
	{ 6, 1, 32 }, { 7, 16, 32 }, { 8, 1, 64 }, { 9, 2, 32 },
	{ 10, 16, 64 }, { 11, 1, 128 }, { 12, 2, 64 }, { 13, 16, 128 },
	{ 15, 4, 64 }, { 16, 2, 128 }, { 19, 4, 128 },
};

static void ck_table(bool is_ext, const struct rate *t, size_t n)
{
	uint32_t known = 0;

	for (size_t i = 0; i < n; i++) {
		uint16_t speed = 0;
		uint8_t width = 0;

		ck_assert_int_eq(emu_link_ib_rate(is_ext, 1u << t[i].bit, &width,
						  &speed), 0);
		ck_assert_msg(width == t[i].width && speed == t[i].speed,
			      "%s bit %u: width %u speed %u, want %u %u",
			      is_ext ? "ext" : "legacy", t[i].bit, width, speed,
			      t[i].width, t[i].speed);
		known |= 1u << t[i].bit;
	}
	/* Every other single bit, nothing, and two modes: no answer, and the
	 * caller's defaults stay. */
	for (unsigned int b = 0; b < 32; b++) {
		uint16_t speed = 4;
		uint8_t width = 2;

		if (known & (1u << b))
			continue;
		ck_assert_int_eq(emu_link_ib_rate(is_ext, 1u << b, &width, &speed),
				 -EINVAL);
		ck_assert_uint_eq(width, 2);
		ck_assert_uint_eq(speed, 4);
	}
	for (uint32_t v = 0; v < 4; v++) {
		uint16_t speed = 4;
		uint8_t width = 2;
		uint32_t oper = v == 0 ? 0 : v == 1 ? 0x300 : v == 2 ? 0x3 : ~0u;

		ck_assert_int_eq(emu_link_ib_rate(is_ext, oper, &width, &speed),
				 -EINVAL);
		ck_assert_uint_eq(width, 2);
		ck_assert_uint_eq(speed, 4);
	}
}

START_TEST(legacy_modes)
{
	ck_table(false, legacy, sizeof(legacy) / sizeof(legacy[0]));
}
END_TEST

START_TEST(ext_modes)
{
	ck_table(true, ext, sizeof(ext) / sizeof(ext[0]));
}
END_TEST

static Suite *dev_link_suite(void)
{
	Suite *s = suite_create("dev_link");
	TCase *tc = tcase_create("link");

	tcase_add_test(tc, legacy_modes);
	tcase_add_test(tc, ext_modes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(dev_link_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
