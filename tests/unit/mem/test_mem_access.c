/* SPDX-License-Identifier: MIT */
/*
 * Checked access to application memory (emu/mem/mem.h): every accessor on
 * good memory does exactly its job, and on memory the application unmapped,
 * protected or truncated after handing it over returns -EFAULT instead of
 * faulting, from the engine's thread and from application threads alike.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu/mem/mem.h"
#include "emu/mem/sigfault.h"

static size_t pg;

/* Two pages: the first readable and writable, the second with prot2. */
static uint8_t *two_pages(int prot2)
{
	uint8_t *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	memset(p, 0xa5, 2 * pg);
	if (prot2 == -1)
		ck_assert_int_eq(munmap(p + pg, pg), 0);
	else
		ck_assert_int_eq(mprotect(p + pg, pg, prot2), 0);
	return p;
}

static void setup(void)
{
	pg = (size_t)sysconf(_SC_PAGESIZE);
	ck_assert_int_eq(emu_mem_init(), 0);
}

START_TEST(test_good_copies)
{
	uint8_t a[300], b[300], *app = two_pages(PROT_READ | PROT_WRITE);

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)i;
	ck_assert_int_eq(emu_mem_write(app + 5, a, sizeof(a)), 0);
	ck_assert_mem_eq(app + 5, a, sizeof(a));
	ck_assert_uint_eq(app[4], 0xa5);
	ck_assert_uint_eq(app[5 + sizeof(a)], 0xa5);
	memset(b, 0, sizeof(b));
	ck_assert_int_eq(emu_mem_read(b, app + 5, sizeof(b)), 0);
	ck_assert_mem_eq(b, a, sizeof(a));
	/* Across the page boundary, overlapping ranges allowed. */
	ck_assert_int_eq(emu_mem_copy(app + pg - 100, app + 5, 200), 0);
	ck_assert_mem_eq(app + pg - 100, a, 200);
	ck_assert_int_eq(emu_mem_copy(app + 10, app + 5, 100), 0);
	ck_assert_mem_eq(app + 10, a, 100);
	/* Zero length touches nothing, even at a bad address. */
	ck_assert_int_eq(emu_mem_read(b, NULL, 0), 0);
	ck_assert_int_eq(emu_mem_write(NULL, a, 0), 0);
	munmap(app, 2 * pg);
}
END_TEST

START_TEST(test_read_unmapped)
{
	uint8_t buf[64], *app = two_pages(-1);

	/* Wholly unmapped, and a range that starts good and runs off. */
	ck_assert_int_eq(emu_mem_read(buf, app + pg, 16), -EFAULT);
	ck_assert_int_eq(emu_mem_read(buf, app + pg - 8, 16), -EFAULT);
	ck_assert_int_eq(emu_mem_read(buf, app + pg - 16, 16), 0);
	/* The whole range gone after registration: NULL page too. */
	ck_assert_int_eq(emu_mem_read(buf, (void *)16, 8), -EFAULT);
	munmap(app, pg);
}
END_TEST

START_TEST(test_write_protected)
{
	uint8_t src[32] = { 1 }, *app = two_pages(PROT_READ);

	ck_assert_int_eq(emu_mem_write(app + pg, src, sizeof(src)), -EFAULT);
	ck_assert_uint_eq(app[pg], 0xa5);	/* nothing written there */
	ck_assert_int_eq(emu_mem_publish(app + pg, src, sizeof(src)), -EFAULT);
	/* Reading a read-only page is fine. */
	ck_assert_int_eq(emu_mem_read(src, app + pg, sizeof(src)), 0);
	ck_assert_uint_eq(src[0], 0xa5);
	/* PROT_NONE refuses reads too. */
	ck_assert_int_eq(mprotect(app + pg, pg, PROT_NONE), 0);
	ck_assert_int_eq(emu_mem_read(src, app + pg, 1), -EFAULT);
	munmap(app, 2 * pg);
}
END_TEST

START_TEST(test_copy_either_side_bad)
{
	uint8_t *app = two_pages(PROT_READ);
	uint8_t *gone = two_pages(-1);

	ck_assert_int_eq(emu_mem_copy(app + pg, app, 64), -EFAULT);
	ck_assert_int_eq(emu_mem_copy(app, gone + pg, 64), -EFAULT);
	ck_assert_int_eq(emu_mem_copy(gone, app + pg, 64), 0);
	ck_assert_uint_eq(gone[63], 0xa5);
	munmap(app, 2 * pg);
	munmap(gone, pg);
}
END_TEST

/* A memfd mapping whose file was truncated: SIGBUS, not SIGSEGV. */
START_TEST(test_truncated_memfd_sigbus)
{
	int fd = memfd_create("mem-test", 0);
	uint8_t *p, buf[8] = { 7 };

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)(2 * pg)), 0);
	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(emu_mem_write(p + pg, buf, 8), 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)pg), 0);
	ck_assert_int_eq(emu_mem_write(p + pg, buf, 8), -EFAULT);
	ck_assert_int_eq(emu_mem_read(buf, p + pg, 8), -EFAULT);
	ck_assert_int_eq(emu_mem_write(p, buf, 8), 0);
	munmap(p, 2 * pg);
	close(fd);
}
END_TEST

START_TEST(test_publish_last_byte)
{
	uint8_t cqe[64], *app = two_pages(PROT_READ | PROT_WRITE);

	for (size_t i = 0; i < sizeof(cqe); i++)
		cqe[i] = (uint8_t)(0x40 + i);
	ck_assert_int_eq(emu_mem_publish(app, cqe, sizeof(cqe)), 0);
	ck_assert_mem_eq(app, cqe, sizeof(cqe));
	ck_assert_uint_eq(app[64], 0xa5);
	munmap(app, 2 * pg);
}
END_TEST

START_TEST(test_loads_stores)
{
	uint8_t *app = two_pages(-1);
	uint32_t v32;
	uint64_t v64;

	memcpy(app + 8, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	ck_assert_int_eq(emu_mem_load32(app + 8, &v32), 0);
	ck_assert_uint_eq(v32, *(uint32_t *)(void *)(app + 8));
	ck_assert_int_eq(emu_mem_load64(app + 8, &v64), 0);
	ck_assert_uint_eq(v64, *(uint64_t *)(void *)(app + 8));
	ck_assert_int_eq(emu_mem_store32(app + 16, 0xdeadbeef), 0);
	ck_assert_uint_eq(*(uint32_t *)(void *)(app + 16), 0xdeadbeef);
	/* Misaligned: refused before touching anything. */
	ck_assert_int_eq(emu_mem_load32(app + 9, &v32), -EINVAL);
	ck_assert_int_eq(emu_mem_load64(app + 12, &v64), -EINVAL);
	ck_assert_int_eq(emu_mem_store32(app + 18, 1), -EINVAL);
	/* Gone. */
	ck_assert_int_eq(emu_mem_load32(app + pg, &v32), -EFAULT);
	ck_assert_int_eq(emu_mem_load64(app + pg + 8, &v64), -EFAULT);
	ck_assert_int_eq(emu_mem_store32(app + pg, 1), -EFAULT);
	munmap(app, pg);
}
END_TEST

START_TEST(test_atomics)
{
	uint8_t *app = two_pages(PROT_READ);
	uint64_t *w = (uint64_t *)(void *)app;
	uint64_t exp, old;

	*w = 100;
	exp = 100;
	ck_assert_int_eq(emu_mem_cas64(w, &exp, 200), 0);
	ck_assert_uint_eq(exp, 100);
	ck_assert_uint_eq(*w, 200);
	exp = 5;	/* no match: unchanged, the value found comes back */
	ck_assert_int_eq(emu_mem_cas64(w, &exp, 300), 0);
	ck_assert_uint_eq(exp, 200);
	ck_assert_uint_eq(*w, 200);
	ck_assert_int_eq(emu_mem_fadd64(w, 7, &old), 0);
	ck_assert_uint_eq(old, 200);
	ck_assert_uint_eq(*w, 207);
	ck_assert_int_eq(emu_mem_fadd64(app + 4, 1, &old), -EINVAL);
	ck_assert_int_eq(emu_mem_cas64(app + 12, &exp, 1), -EINVAL);
	/* A read-only page: the atomic faults on its write. */
	exp = 0xa5a5a5a5a5a5a5a5ull;
	ck_assert_int_eq(emu_mem_cas64(app + pg, &exp, 1), -EFAULT);
	ck_assert_int_eq(emu_mem_fadd64(app + pg, 1, &old), -EFAULT);
	ck_assert_uint_eq(*(uint64_t *)(void *)(app + pg), 0xa5a5a5a5a5a5a5a5ull);
	munmap(app, 2 * pg);
}
END_TEST

/* Atomic with respect to each other: two threads adding 1 a million
 * times each land exactly on two million. */
static void *adder(void *arg)
{
	uint64_t old;

	for (int i = 0; i < 1000000; i++)
		if (emu_mem_fadd64(arg, 1, &old))
			return arg;
	return NULL;
}

START_TEST(test_atomics_concurrent)
{
	uint64_t *w = aligned_alloc(64, 64);
	pthread_t t[2];
	void *r;

	*w = 0;
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, adder, w), 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(pthread_join(t[i], &r), 0);
		ck_assert_ptr_null(r);
	}
	ck_assert_uint_eq(*w, 2000000);
	free(w);
}
END_TEST

/* Faulting accesses from several threads at once, each recovering on its
 * own stack, mixed with good ones. */
struct worker {
	uint8_t *bad, *good;
	int faults, oks;
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	uint8_t buf[256];

	for (int i = 0; i < 20000; i++) {
		if (emu_mem_read(buf, w->bad + (i % 64), sizeof(buf)) == -EFAULT)
			w->faults++;
		if (emu_mem_read(buf, w->good, sizeof(buf)) == 0)
			w->oks++;
	}
	return NULL;
}

START_TEST(test_threads)
{
	uint8_t *app = two_pages(PROT_NONE);
	unsigned long before = emu_mem_faults(), seen = emu_sigfault_seen();
	struct worker w[4];
	pthread_t t[4];

	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ .bad = app + pg, .good = app };
		ck_assert_int_eq(pthread_create(&t[i], NULL, worker, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		ck_assert_int_eq(w[i].faults, 20000);
		ck_assert_int_eq(w[i].oks, 20000);
	}
	ck_assert_uint_eq(emu_mem_faults() - before, 80000);
	ck_assert_uint_eq(emu_sigfault_seen() - seen, 80000);
	munmap(app, 2 * pg);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mem_access");
	TCase *tc = tcase_create("mem");
	SRunner *sr;
	int nf;

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_good_copies);
	tcase_add_test(tc, test_read_unmapped);
	tcase_add_test(tc, test_write_protected);
	tcase_add_test(tc, test_copy_either_side_bad);
	tcase_add_test(tc, test_truncated_memfd_sigbus);
	tcase_add_test(tc, test_publish_last_byte);
	tcase_add_test(tc, test_loads_stores);
	tcase_add_test(tc, test_atomics);
	tcase_add_test(tc, test_atomics_concurrent);
	tcase_add_test(tc, test_threads);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
