/* SPDX-License-Identifier: MIT */
/*
 * emu/mana's WQE walk (mana_wqe.c) on WQEs written byte by byte: short and
 * long OOB, an SGL that wraps to the ring's start (from the last basic unit
 * and mid-list), every verdict, free-running counters across 2^32, the
 * dummy SGE and the verdicts' CQE types.
 */
#include <check.h>
#include <string.h>

#include "emu/mana/mana.h"

#include "mana_bytes.h"
#include "ut_run.h"

enum { RING = 4096 };
static uint8_t ring[RING] __attribute__((aligned(64)));
static struct mana_wqe w;

/* header at byte off: num_sge, OOB size code, client_data_unit */
static void put_hdr(uint32_t off, uint32_t nsge, uint32_t code, uint32_t cdu)
{
	put32le(ring + off, 0);
	put32le(ring + off + 4, nsge | code << 8 | cdu << 16);
}

static void put_sge(uint32_t off, uint64_t addr, uint32_t key, uint32_t size)
{
	put64le(ring + off, addr);
	put32le(ring + off + 8, key);
	put32le(ring + off + 12, size);
}

static void setup(void)
{
	memset(ring, 0, sizeof(ring));
}

START_TEST(short_oob_one_sge)
{
	struct mana_sge s;

	put_hdr(64, 1, 2, 0);
	put_sge(64 + 16, 0x1122334455667788ull, 0xabcd, 1514);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, 2, 3 * 32, &w), MANA_WQE_OK);
	ck_assert_uint_eq(w.off, 64);
	ck_assert_uint_eq(w.size_bu, 1);
	ck_assert_uint_eq(w.oob_size, 8);
	ck_assert_uint_eq(w.num_sge, 1);
	ck_assert_ptr_eq(w.oob, ring + 72);
	mana_wqe_sge(ring, RING, &w, 0, &s);
	ck_assert_uint_eq(s.addr, 0x1122334455667788ull);
	ck_assert_uint_eq(s.key, 0xabcd);
	ck_assert_uint_eq(s.size, 1514);
}
END_TEST

START_TEST(long_oob_two_sges_and_header_bits)
{
	struct mana_sge s;

	put_hdr(0, 2, 6, 1448);
	ring[3] = 54;			/* last_vbytes */
	ring[5] |= 1 << 3;		/* client_oob_in_sgl, bit 11 of dword 1 */
	put_sge(32, 0x1000, 1, 54);
	put_sge(48, 0x2000, 1, 1000);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, 0, 64, &w), MANA_WQE_OK);
	ck_assert_uint_eq(w.size_bu, 2);
	ck_assert_uint_eq(w.oob_size, 24);
	ck_assert_uint_eq(w.last_vbytes, 54);
	ck_assert(w.oob_in_sgl);
	ck_assert_uint_eq(w.client_data_unit, 1448);
	mana_wqe_sge(ring, RING, &w, 1, &s);
	ck_assert_uint_eq(s.addr, 0x2000);
	ck_assert_uint_eq(s.size, 1000);
}
END_TEST

START_TEST(sgl_wraps_after_the_last_unit)
{
	struct mana_sge s;
	uint32_t head = RING / 32 - 1;	/* the last basic unit */

	/* header + 24-byte OOB fill the last unit; the SGL starts at 0 */
	put_hdr(RING - 32, 2, 6, 0);
	put_sge(0, 0xa000, 7, 100);
	put_sge(16, 0xb000, 8, 200);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, head, (head + 2) * 32, &w),
			 MANA_WQE_OK);
	ck_assert_uint_eq(w.size_bu, 2);
	mana_wqe_sge(ring, RING, &w, 0, &s);
	ck_assert_uint_eq(s.addr, 0xa000);
	mana_wqe_sge(ring, RING, &w, 1, &s);
	ck_assert_uint_eq(s.addr, 0xb000);
	ck_assert_uint_eq(s.key, 8);
}
END_TEST

START_TEST(sgl_wraps_mid_list)
{
	struct mana_sge s;
	uint32_t head = RING / 32 - 1;

	/* short OOB: SGE 0 is the unit's second half, SGE 1 at the start */
	put_hdr(RING - 32, 2, 2, 0);
	put_sge(RING - 16, 0xa000, 7, 100);
	put_sge(0, 0xb000, 8, 200);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_RQ, head, (head + 2) * 32, &w),
			 MANA_WQE_OK);
	mana_wqe_sge(ring, RING, &w, 0, &s);
	ck_assert_uint_eq(s.addr, 0xa000);
	mana_wqe_sge(ring, RING, &w, 1, &s);
	ck_assert_uint_eq(s.addr, 0xb000);
}
END_TEST

START_TEST(counters_wrap_at_2_32)
{
	/* head at byte 0xffffffe0 (ring offset 4064); the producer's tail
	 * has wrapped to 0x20 */
	uint32_t head = 0x07ffffff;

	put_hdr(RING - 32, 1, 2, 0);
	put_sge(RING - 16, 0x3000, 1, 60);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, head, 0x20, &w), MANA_WQE_OK);
	ck_assert_uint_eq(w.off, RING - 32);
	/* the next one starts at byte 2^32 (ring offset 0); it needs two
	 * units and one was rung */
	put_hdr(0, 2, 2, 0);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, head + 1, 0x20, &w),
			 MANA_WQE_PAST_TAIL);
	ck_assert_uint_eq(w.off, 0);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, head + 2, 0x20, &w),
			 MANA_WQE_EMPTY);
}
END_TEST

START_TEST(verdicts)
{
	put_hdr(0, 1, 2, 0);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, 0, 0, &w), MANA_WQE_EMPTY);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, 0, 16, &w), MANA_WQE_PAST_TAIL);
	/* more posted than the ring holds: the producer overran */
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, 0, RING + 32, &w),
			 MANA_WQE_PAST_TAIL);

	put_hdr(0, 0, 2, 0);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, 0, 32, &w), MANA_WQE_NO_SGE);
	ck_assert_uint_eq(w.size_bu, 1);

	for (uint32_t code = 0; code < 8; code++) {
		put_hdr(0, 1, code, 0);
		ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, 0, 64, &w),
				 code == 2 || code == 6 ? MANA_WQE_OK : MANA_WQE_BAD_OOB);
		ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_RQ, 0, 64, &w),
				 code == 2 ? MANA_WQE_OK : MANA_WQE_BAD_OOB);
	}

	/* 8 + 8 + 31 * 16 = 512: the largest send WQE; one more SGE is too big */
	put_hdr(0, 31, 2, 0);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, 0, 512, &w), MANA_WQE_OK);
	ck_assert_uint_eq(w.size_bu, 16);
	put_hdr(0, 32, 2, 0);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, 0, 1024, &w), MANA_WQE_TOO_BIG);
	ck_assert_uint_eq(w.size_bu, 17);
	/* long OOB: 8 + 24 + 30 * 16 = 512 */
	put_hdr(0, 30, 6, 0);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, 0, 512, &w), MANA_WQE_OK);
	put_hdr(0, 31, 6, 0);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, 0, 1024, &w), MANA_WQE_TOO_BIG);
	/* receive: 8 + 8 + 15 * 16 = 256 */
	put_hdr(0, 15, 2, 0);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_RQ, 0, 256, &w), MANA_WQE_OK);
	put_hdr(0, 16, 2, 0);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_RQ, 0, 512, &w), MANA_WQE_TOO_BIG);

	/* a 2-unit WQE of which one unit was rung */
	put_hdr(0, 2, 2, 0);
	ck_assert_int_eq(mana_wqe_read(ring, RING, MANA_WQ_SQ, 0, 32, &w), MANA_WQE_PAST_TAIL);
	ck_assert_uint_eq(w.size_bu, 0);
}
END_TEST

START_TEST(dummy_sge_and_verdict_cqes)
{
	struct mana_sge s = { 1, 0, 0 };
	uint32_t ve;

	ck_assert(mana_sge_is_dummy(&s));
	s.size = 1;
	ck_assert(!mana_sge_is_dummy(&s));
	s = (struct mana_sge){ 0, 0, 0 };
	ck_assert(!mana_sge_is_dummy(&s));

	ck_assert_uint_eq(mana_wqe_verdict_cqe(MANA_WQ_SQ, MANA_WQE_OK, &ve), 0);
	ck_assert_uint_eq(mana_wqe_verdict_cqe(MANA_WQ_SQ, MANA_WQE_EMPTY, &ve), 0);
	ck_assert_uint_eq(mana_wqe_verdict_cqe(MANA_WQ_SQ, MANA_WQE_PAST_TAIL, &ve), 0);
	ck_assert_uint_eq(mana_wqe_verdict_cqe(MANA_WQ_SQ, MANA_WQE_NO_SGE, &ve), 35);
	ck_assert_uint_eq(mana_wqe_verdict_cqe(MANA_WQ_SQ, MANA_WQE_BAD_OOB, &ve), 35);
	ck_assert_uint_eq(mana_wqe_verdict_cqe(MANA_WQ_SQ, MANA_WQE_TOO_BIG, &ve), 35);
	ck_assert_uint_eq(ve, 0x201);
	ck_assert_uint_eq(mana_wqe_verdict_cqe(MANA_WQ_RQ, MANA_WQE_TOO_BIG, &ve), 0);
	ck_assert_uint_eq(ve, 0);
	ck_assert_str_eq(mana_wqe_verdict_str(MANA_WQE_NO_SGE), "no SGE");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_wqe");
	TCase *tc = tcase_create("wqe");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, short_oob_one_sge);
	tcase_add_test(tc, long_oob_two_sges_and_header_bits);
	tcase_add_test(tc, sgl_wraps_after_the_last_unit);
	tcase_add_test(tc, sgl_wraps_mid_list);
	tcase_add_test(tc, counters_wrap_at_2_32);
	tcase_add_test(tc, verdicts);
	tcase_add_test(tc, dummy_sge_and_verdict_cqes);
	suite_add_tcase(s, tc);
	return ut_run(s) ? 1 : 0;
}
