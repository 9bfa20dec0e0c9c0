/* SPDX-License-Identifier: MIT */
/*
 * emu/mana's CQ ring (mana_cq.c): the owner-bit protocol on rings of 64,
 * 100 and 3 entries over more than eight laps (the 3-bit counter wraps),
 * checked against the info dword's bytes at offset 60 and against a
 * consumer that follows the kernel's and DPDK's rule; overflow; and the
 * doorbell decode (mana_db.c), both forms, from literal values.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/mana/mana.h"

#include "mana_bytes.h"
#include "ut_run.h"

static const uint32_t counts[] = { 64, 100, 3 };

START_TEST(owner_bits_over_laps)
{
	uint32_t n = counts[_i];
	uint8_t *buf = aligned_alloc(64, (size_t)n * 64);
	struct mana_cq_ring cq = { .buf = buf, .count = n };
	uint8_t client[MANA_CQE_CLIENT];
	uint64_t head = n;		/* the consumer's start */

	ck_assert_ptr_nonnull(buf);
	memset(buf, 0, (size_t)n * 64);
	for (uint64_t j = 0; j < (uint64_t)n * 8 * 2 + 5; j++) {
		uint8_t *slot;
		uint32_t info;

		ck_assert_int_eq(mana_cq_peek(buf, n, head), MANA_CQ_EMPTY);
		memset(client, (int)(j & 0xff), sizeof(client));
		slot = mana_cq_put(&cq, client, (uint32_t)(0x800000 | j % 7), j & 1);
		ck_assert_ptr_eq(slot, buf + (j % n) * 64);
		info = get32le(slot + 60);
		ck_assert_uint_eq(info & 0xffffff, 0x800000 | j % 7);
		ck_assert_uint_eq(info >> 24 & 1, j & 1);
		ck_assert_uint_eq(info >> 25 & 0xf, 0);
		ck_assert_uint_eq(info >> 29, (j / n + 1) % 8);
		ck_assert_uint_eq(slot[0], j & 0xff);
		ck_assert_uint_eq(slot[59], j & 0xff);
		ck_assert_int_eq(mana_cq_peek(buf, n, head), MANA_CQ_VALID);
		head++;
	}
	ck_assert_uint_eq(cq.produced, (uint64_t)n * 16 + 5);
	free(buf);
}
END_TEST

START_TEST(overflow_seen_by_the_consumer)
{
	uint32_t n = counts[_i];
	uint8_t *buf = aligned_alloc(64, (size_t)n * 64);
	struct mana_cq_ring cq = { .buf = buf, .count = n };
	uint8_t client[MANA_CQE_CLIENT] = { 0 };

	ck_assert_ptr_nonnull(buf);
	memset(buf, 0, (size_t)n * 64);
	/* a full lap is still readable ... */
	for (uint32_t j = 0; j < n; j++)
		mana_cq_put(&cq, client, 1, false);
	ck_assert_int_eq(mana_cq_peek(buf, n, n), MANA_CQ_VALID);
	/* ... one more overwrote the consumer's next entry */
	mana_cq_put(&cq, client, 1, false);
	ck_assert_int_eq(mana_cq_peek(buf, n, n), MANA_CQ_OVERFLOW);
	free(buf);
}
END_TEST

START_TEST(doorbells_long)
{
	struct mana_db db;

	/* SQ: bits 24..31 reserved, tail in the high dword */
	ck_assert_int_eq(mana_db_decode(0x000, 8, 0x00012340ffabcdefull, &db), 0);
	ck_assert_int_eq(db.queue, MANA_DB_SQ);
	ck_assert_uint_eq(db.id, 0xabcdef);
	ck_assert_uint_eq(db.tail, 0x00012340);
	ck_assert(!db.incr);

	ck_assert_int_eq(mana_db_decode(0x400, 8, 0xfffffff003000042ull, &db), 0);
	ck_assert_int_eq(db.queue, MANA_DB_RQ);
	ck_assert_uint_eq(db.id, 0x42);
	ck_assert_uint_eq(db.wqe_cnt, 3);
	ck_assert_uint_eq(db.tail, 0xfffffff0);

	ck_assert_int_eq(mana_db_decode(0x800, 8, 0x8000010000000007ull, &db), 0);
	ck_assert_int_eq(db.queue, MANA_DB_CQ);
	ck_assert_uint_eq(db.id, 7);
	ck_assert_uint_eq(db.tail, 0x100);
	ck_assert(db.arm);
	ck_assert_int_eq(mana_db_decode(0x800, 8, 0x7fffffff00000007ull, &db), 0);
	ck_assert_uint_eq(db.tail, 0x7fffffff);
	ck_assert(!db.arm);

	ck_assert_int_eq(mana_db_decode(0xff8, 8, 0x8000000500ff1234ull, &db), 0);
	ck_assert_int_eq(db.queue, MANA_DB_EQ);
	ck_assert_uint_eq(db.id, 0x1234);	/* 16 bits */
	ck_assert_uint_eq(db.tail, 5);
	ck_assert(db.arm);

	ck_assert_int_eq(mana_db_decode(0x408, 8, 0, &db), -EINVAL);
	ck_assert_int_eq(mana_db_decode(0x008, 8, 0, &db), -EINVAL);
	ck_assert_int_eq(mana_db_decode(0x000, 2, 0, &db), -EINVAL);
}
END_TEST

START_TEST(doorbells_short)
{
	struct mana_db db;

	/* [15:0] increment, [27:16] queue id, [31] arm */
	ck_assert_int_eq(mana_db_decode(0x010, 4, 0x0abc0040, &db), 0);
	ck_assert_int_eq(db.queue, MANA_DB_SQ);
	ck_assert(db.incr);
	ck_assert_uint_eq(db.id, 0xabc);
	ck_assert_uint_eq(db.tail, 0x40);
	ck_assert(!db.arm);

	ck_assert_int_eq(mana_db_decode(0x410, 4, 0x80010020, &db), 0);
	ck_assert_int_eq(db.queue, MANA_DB_RQ);
	ck_assert(!db.arm);		/* arm means nothing to an RQ */

	ck_assert_int_eq(mana_db_decode(0x810, 4, 0xf0050003, &db), 0);
	ck_assert_int_eq(db.queue, MANA_DB_CQ);
	ck_assert_uint_eq(db.id, 5);	/* bits 28..30 are not the id */
	ck_assert_uint_eq(db.tail, 3);
	ck_assert(db.arm);

	ck_assert_int_eq(mana_db_decode(0xff0, 4, 0x00020001, &db), 0);
	ck_assert_int_eq(db.queue, MANA_DB_EQ);
	/* the long slots do not take 32-bit stores, nor the short 64-bit */
	ck_assert_int_eq(mana_db_decode(0x000, 4, 0, &db), -EINVAL);
	ck_assert_int_eq(mana_db_decode(0x010, 8, 0, &db), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_cq");
	TCase *tc = tcase_create("cq");

	tcase_add_loop_test(tc, owner_bits_over_laps, 0, 3);
	tcase_add_loop_test(tc, overflow_seen_by_the_consumer, 0, 3);
	tcase_add_test(tc, doorbells_long);
	tcase_add_test(tc, doorbells_short);
	suite_add_tcase(s, tc);
	return ut_run(s) ? 1 : 0;
}
