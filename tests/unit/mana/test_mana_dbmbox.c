/* SPDX-License-Identifier: MIT */
/*
 * The MANA doorbell mailbox (emu/mana/mana_dbmbox.h): what one take sees
 * after a sequence of doorbells (the latest tail, a sticky arm, drops and
 * their counters, kicks only for a queue that was not pending), what a
 * sample of a page sees and loses, and, through a real write-protected
 * doorbell page (emu/mem/storetrap.h), four threads ringing 64 queues each
 * back to back while a consumer takes concurrently: every queue's last
 * tail reaches the consumer and no queue's tail ever goes back.
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu/mana/mana.h"
#include "emu/mana/mana_dbmbox.h"
#include "emu/mem/storetrap.h"

#include "ut_run.h"

/* A long doorbell: qid in [23:0], tail in [63:32] (CQ: [62:32], arm 63). */
static uint64_t db(uint32_t qid, uint32_t tail, bool arm)
{
	return (uint64_t)tail << 32 | qid | (arm ? UINT64_C(1) << 63 : 0);
}

struct visit {
	enum mana_dbmbox_kind kind;
	uint32_t qid, tail;
	bool arm;
};

struct visits {
	struct visit v[64];
	unsigned int n;
};

static void collect(void *arg, enum mana_dbmbox_kind kind, uint32_t qid,
		    uint32_t tail, bool arm)
{
	struct visits *vs = arg;

	ck_assert_uint_lt(vs->n, 64);
	vs->v[vs->n++] = (struct visit){ kind, qid, tail, arm };
}

static void check_visit(const struct visits *vs, unsigned int i,
			enum mana_dbmbox_kind kind, uint32_t qid, uint32_t tail,
			bool arm)
{
	ck_assert_uint_lt(i, vs->n);
	ck_assert_int_eq(vs->v[i].kind, kind);
	ck_assert_uint_eq(vs->v[i].qid, qid);
	ck_assert_uint_eq(vs->v[i].tail, tail);
	ck_assert_int_eq(vs->v[i].arm, arm);
}

START_TEST(latest_tail_wins)
{
	struct mana_dbmbox m;
	struct mana_dbmbox_counters c;
	struct visits vs = { .n = 0 };

	ck_assert_int_eq(mana_dbmbox_init(&m, 1024, NULL, NULL), 0);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 8, db(5, 0x100, false)), 0);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 8, db(5, 0x200, false)), 0);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 8, db(700, 0x40, false)), 0);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_RQ, 8, db(5, 0x60, false)), 0);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_CQ, 8, db(1023, 9, false)), 0);
	ck_assert_uint_eq(mana_dbmbox_take(&m, collect, &vs), 4);
	check_visit(&vs, 0, MANA_DBMBOX_SQ, 5, 0x200, false);
	check_visit(&vs, 1, MANA_DBMBOX_SQ, 700, 0x40, false);
	check_visit(&vs, 2, MANA_DBMBOX_RQ, 5, 0x60, false);
	check_visit(&vs, 3, MANA_DBMBOX_CQ, 1023, 9, false);
	/* nothing rung since: nothing to visit */
	ck_assert_uint_eq(mana_dbmbox_take(&m, collect, &vs), 0);
	/* the tail is absolute: a ring after a take reports it as is */
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 8, db(5, 0x220, false)), 0);
	vs.n = 0;
	ck_assert_uint_eq(mana_dbmbox_take(&m, collect, &vs), 1);
	check_visit(&vs, 0, MANA_DBMBOX_SQ, 5, 0x220, false);
	mana_dbmbox_counters(&m, &c);
	ck_assert_uint_eq(c.rung, 6);
	ck_assert_uint_eq(c.taken, 5);
	ck_assert_uint_eq(c.dropped_bad_qid + c.dropped_short + c.dropped_other, 0);
	mana_dbmbox_fini(&m);
}
END_TEST

START_TEST(arm_is_sticky)
{
	struct mana_dbmbox m;
	struct visits vs = { .n = 0 };

	ck_assert_int_eq(mana_dbmbox_init(&m, 64, NULL, NULL), 0);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_CQ, 8, db(3, 10, true)), 0);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_CQ, 8, db(3, 12, false)), 0);
	ck_assert_uint_eq(mana_dbmbox_take(&m, collect, &vs), 1);
	check_visit(&vs, 0, MANA_DBMBOX_CQ, 3, 12, true);
	/* taken once: the next doorbell without arm has none */
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_CQ, 8, db(3, 13, false)), 0);
	ck_assert_uint_eq(mana_dbmbox_take(&m, collect, &vs), 1);
	check_visit(&vs, 1, MANA_DBMBOX_CQ, 3, 13, false);
	/* the largest CQ tail (31 bits) does not leak into the arm */
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_CQ, 8, db(3, 0x7fffffff, false)), 0);
	ck_assert_uint_eq(mana_dbmbox_take(&m, collect, &vs), 1);
	check_visit(&vs, 2, MANA_DBMBOX_CQ, 3, 0x7fffffff, false);
	/* an SQ doorbell's bit 63 is tail, not arm */
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 8, db(3, 0x80000000u, false)), 0);
	ck_assert_uint_eq(mana_dbmbox_take(&m, collect, &vs), 1);
	check_visit(&vs, 3, MANA_DBMBOX_SQ, 3, 0x80000000u, false);
	mana_dbmbox_fini(&m);
}
END_TEST

START_TEST(drops_are_counted)
{
	struct mana_dbmbox m;
	struct mana_dbmbox_counters c;
	struct visits vs = { .n = 0 };

	ck_assert_int_eq(mana_dbmbox_init(&m, 1024, NULL, NULL), 0);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 8, db(1024, 1, false)), -ERANGE);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_CQ, 8, db(0xffffff, 1, true)), -ERANGE);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_SQ_SHORT, 4, 0x00010040), -EOPNOTSUPP);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_CQ_SHORT, 4, 0x80010001), -EOPNOTSUPP);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_EQ, 8, db(1, 1, true)), -EINVAL);
	ck_assert_int_eq(mana_dbmbox_ring(&m, 0x123, 8, 0), -EINVAL);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 4, 1), -EINVAL);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 2, 1), -EINVAL);
	ck_assert_int_eq(mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 8, db(1023, 1, false)), 0);
	mana_dbmbox_counters(&m, &c);
	ck_assert_uint_eq(c.dropped_bad_qid, 2);
	ck_assert_uint_eq(c.dropped_short, 2);
	ck_assert_uint_eq(c.dropped_other, 4);
	ck_assert_uint_eq(c.rung, 1);
	ck_assert_uint_eq(mana_dbmbox_take(&m, collect, &vs), 1);
	check_visit(&vs, 0, MANA_DBMBOX_SQ, 1023, 1, false);
	mana_dbmbox_fini(&m);
	ck_assert_int_eq(mana_dbmbox_init(&m, 0, NULL, NULL), -EINVAL);
	ck_assert_int_eq(mana_dbmbox_init(&m, (1u << 24) + 1, NULL, NULL), -EINVAL);
}
END_TEST

static void count_kick(void *arg)
{
	(*(int *)arg)++;
}

START_TEST(kick_once_per_pending)
{
	struct mana_dbmbox m;
	struct visits vs = { .n = 0 };
	int kicks = 0;

	ck_assert_int_eq(mana_dbmbox_init(&m, 128, count_kick, &kicks), 0);
	mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 8, db(1, 32, false));
	mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 8, db(1, 64, false));
	ck_assert_int_eq(kicks, 1);
	mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 8, db(65, 32, false));
	mana_dbmbox_ring(&m, MANA_DB_OFF_RQ, 8, db(1, 32, false));
	ck_assert_int_eq(kicks, 3);
	mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 8, db(1024, 32, false));	/* dropped */
	ck_assert_int_eq(kicks, 3);
	ck_assert_uint_eq(mana_dbmbox_take(&m, collect, &vs), 3);
	mana_dbmbox_ring(&m, MANA_DB_OFF_SQ, 8, db(1, 96, false));
	ck_assert_int_eq(kicks, 4);
	mana_dbmbox_fini(&m);
}
END_TEST

/* The trap's callback shape: offset and size as the trap reports them. */
START_TEST(store_adapter)
{
	struct mana_dbmbox m;
	struct mana_dbmbox_counters c;
	struct visits vs = { .n = 0 };

	ck_assert_int_eq(mana_dbmbox_init(&m, 16, NULL, NULL), 0);
	mana_dbmbox_store(&m, MANA_DB_OFF_CQ, db(2, 7, true), 8);
	mana_dbmbox_store(&m, MANA_DB_OFF_CQ, 0xff, 1);
	mana_dbmbox_store(&m, (size_t)1 << 40, 0, 8);
	ck_assert_uint_eq(mana_dbmbox_take(&m, collect, &vs), 1);
	check_visit(&vs, 0, MANA_DBMBOX_CQ, 2, 7, true);
	mana_dbmbox_counters(&m, &c);
	ck_assert_uint_eq(c.dropped_other, 2);
	mana_dbmbox_fini(&m);
}
END_TEST

/* Sampling sees what changed and, as documented, loses doorbells. */
START_TEST(sample_sees_changes_and_loses)
{
	static uint64_t page[512] __attribute__((aligned(4096)));
	struct mana_dbmbox m;
	struct visits vs = { .n = 0 };

	ck_assert_int_eq(mana_dbmbox_init(&m, 64, NULL, NULL), 0);
	ck_assert_uint_eq(mana_dbmbox_sample(&m, page), 0);
	page[MANA_DB_OFF_SQ / 8] = db(1, 0x20, false);
	page[MANA_DB_OFF_CQ / 8] = db(2, 4, true);
	ck_assert_uint_eq(mana_dbmbox_sample(&m, page), 2);
	ck_assert_uint_eq(mana_dbmbox_sample(&m, page), 0);
	ck_assert_uint_eq(mana_dbmbox_take(&m, collect, &vs), 2);
	check_visit(&vs, 0, MANA_DBMBOX_SQ, 1, 0x20, false);
	check_visit(&vs, 1, MANA_DBMBOX_CQ, 2, 4, true);
	/* two RQs ring between samples: the first is lost */
	page[MANA_DB_OFF_RQ / 8] = db(3, 0x40, false);
	page[MANA_DB_OFF_RQ / 8] = db(4, 0x40, false);
	ck_assert_uint_eq(mana_dbmbox_sample(&m, page), 1);
	ck_assert_uint_eq(mana_dbmbox_take(&m, collect, &vs), 1);
	check_visit(&vs, 2, MANA_DBMBOX_RQ, 4, 0x40, false);
	mana_dbmbox_fini(&m);
}
END_TEST

/* ---- four threads through a trapped page, a concurrent consumer ---- */

enum { NPROD = 4, QPER = 64, ROUNDS = 400, NQ = NPROD * QPER };

struct stress {
	struct mana_dbmbox m;
	uint8_t *app;			/* the application's read-only view */
	int efd;
	atomic_int go, done;
	/* the consumer's view (only it writes these) */
	uint32_t last[MANA_DBMBOX_KINDS][NQ];
	bool final_armed[NQ];
	unsigned long went_back;
};

static uint32_t tail_of(enum mana_dbmbox_kind k, uint32_t round)
{
	/* SQ/RQ tails in bytes, CQ tails in entries */
	return k == MANA_DBMBOX_CQ ? round : round * 32;
}

static void kick_eventfd(void *arg)
{
	uint64_t one = 1;
	ssize_t r = write(*(int *)arg, &one, sizeof(one));

	(void)r;
}

static void *producer(void *p)
{
	struct stress *s = p;
	unsigned int th;
	uint64_t *sq, *rq, *cq;

	/* the thread's number is its position in the start order */
	th = (unsigned int)atomic_fetch_add(&s->go, 1);
	sq = (uint64_t *)(s->app + MANA_DB_OFF_SQ);
	rq = (uint64_t *)(s->app + MANA_DB_OFF_RQ);
	cq = (uint64_t *)(s->app + MANA_DB_OFF_CQ);
	while (atomic_load(&s->go) < NPROD)
		;
	for (uint32_t r = 1; r <= ROUNDS; r++) {
		for (uint32_t i = 0; i < QPER; i++) {
			uint32_t q = th * QPER + i;

			/* Relaxed atomic stores are one plain MOV (STR), as a
			 * driver's MMIO write; written as atomics only so
			 * ThreadSanitizer does not call four threads writing
			 * one device register a data race. */
			__atomic_store_n(sq, db(q, tail_of(MANA_DBMBOX_SQ, r), false),
					 __ATOMIC_RELAXED);
			__atomic_store_n(rq, db(q, tail_of(MANA_DBMBOX_RQ, r), false),
					 __ATOMIC_RELAXED);
			/* armed on odd rounds and on the last */
			__atomic_store_n(cq, db(q, tail_of(MANA_DBMBOX_CQ, r),
						(r & 1) || r == ROUNDS),
					 __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

static void stress_visit(void *arg, enum mana_dbmbox_kind kind, uint32_t qid,
			 uint32_t tail, bool arm)
{
	struct stress *s = arg;

	if (qid >= NQ || tail < s->last[kind][qid]) {
		s->went_back++;
		return;
	}
	s->last[kind][qid] = tail;
	if (kind == MANA_DBMBOX_CQ && tail == tail_of(kind, ROUNDS) && arm)
		s->final_armed[qid] = true;
}

static void *consumer(void *p)
{
	struct stress *s = p;
	struct pollfd pfd = { .fd = s->efd, .events = POLLIN };
	uint64_t cnt;

	for (;;) {
		bool last = atomic_load(&s->done);

		if (poll(&pfd, 1, 5) > 0 && read(s->efd, &cnt, sizeof(cnt)) < 0)
			break;
		mana_dbmbox_take(&s->m, stress_visit, s);
		if (last)
			break;
	}
	return NULL;
}

START_TEST(threads_through_trapped_page)
{
	struct stress *s = calloc(1, sizeof(*s));
	struct mana_dbmbox_counters c;
	struct emu_storetrap *t;
	pthread_t prod[NPROD], cons;
	uint8_t *dev;
	int fd;

	ck_assert_ptr_nonnull(s);
	/* one memfd page, the device's writable alias and the application's
	 * read-only mapping, as a provider hands it out */
	fd = memfd_create("mana-db", 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 4096), 0);
	dev = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	s->app = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(dev, MAP_FAILED);
	ck_assert_ptr_ne(s->app, MAP_FAILED);
	s->efd = eventfd(0, EFD_NONBLOCK);
	ck_assert_int_ge(s->efd, 0);
	ck_assert_int_eq(mana_dbmbox_init(&s->m, NQ, kick_eventfd, &s->efd), 0);
	ck_assert_int_eq(emu_storetrap_add(s->app, 4096, mana_dbmbox_store, &s->m, &t), 0);

	ck_assert_int_eq(pthread_create(&cons, NULL, consumer, s), 0);
	for (int i = 0; i < NPROD; i++)
		ck_assert_int_eq(pthread_create(&prod[i], NULL, producer, s), 0);
	for (int i = 0; i < NPROD; i++)
		pthread_join(prod[i], NULL);
	atomic_store(&s->done, 1);
	pthread_join(cons, NULL);

	ck_assert_uint_eq(s->went_back, 0);
	for (int k = 0; k < MANA_DBMBOX_KINDS; k++)
		for (uint32_t q = 0; q < NQ; q++)
			ck_assert_msg(s->last[k][q] == tail_of(k, ROUNDS),
				      "kind %d queue %u: last tail %u", k, q,
				      s->last[k][q]);
	for (uint32_t q = 0; q < NQ; q++)
		ck_assert_msg(s->final_armed[q], "CQ %u: final arm not seen", q);
	mana_dbmbox_counters(&s->m, &c);
	ck_assert_uint_eq(c.rung, (unsigned long)NQ * ROUNDS * 3);
	ck_assert_uint_eq(emu_storetrap_stores(t), (unsigned long)NQ * ROUNDS * 3);
	ck_assert_uint_eq(c.dropped_bad_qid + c.dropped_short + c.dropped_other, 0);
	/* the trapped stores never reached the page */
	for (int i = 0; i < 512; i++)
		ck_assert_uint_eq(((uint64_t *)dev)[i], 0);

	emu_storetrap_remove(t);
	mana_dbmbox_fini(&s->m);
	close(s->efd);
	munmap(s->app, 4096);
	munmap(dev, 4096);
	close(fd);
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_dbmbox");
	TCase *tc = tcase_create("mailbox");
	TCase *tt = tcase_create("trapped");

	tcase_add_test(tc, latest_tail_wins);
	tcase_add_test(tc, arm_is_sticky);
	tcase_add_test(tc, drops_are_counted);
	tcase_add_test(tc, kick_once_per_pending);
	tcase_add_test(tc, store_adapter);
	tcase_add_test(tc, sample_sees_changes_and_loses);
	suite_add_tcase(s, tc);
#if defined(__x86_64__) || defined(__aarch64__)
	tcase_add_test(tt, threads_through_trapped_page);
	tcase_set_timeout(tt, 120);
#endif
	suite_add_tcase(s, tt);
	return ut_run(s) ? 1 : 0;
}
