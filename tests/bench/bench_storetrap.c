/* SPDX-License-Identifier: MIT */
/*
 * bench_storetrap: what one trapped store costs (emu/mem/storetrap.h), on
 * one thread, against a plain store to a writable page in the same run:
 * with an empty callback (the trap alone) and with the MANA doorbell
 * mailbox behind it (emu/mana/mana_dbmbox.h, no kick), as a doorbell
 * costs an application.  Not a timed test: it prints figures; the quick
 * mode (-q) only proves the path runs.
 *
 * Output lines: "key best median ns/store" over the trials.
 *
 * Usage: bench_storetrap [-q]
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "emu/mana/mana.h"
#include "emu/mana/mana_dbmbox.h"
#include "emu/mem/storetrap.h"

#include "bench_util.h"

enum { MAX_TRIALS = 11 };

static void empty_fn(void *arg, size_t off, uint64_t value, unsigned int size)
{
	(void)arg; (void)off; (void)value; (void)size;
}

/* ns per store of one trial: n 64-bit stores to the SQ slot, 64 queues. */
static double trial(uint8_t *page, long n)
{
	volatile uint64_t *slot = (volatile uint64_t *)(page + MANA_DB_OFF_SQ);
	uint64_t t0 = bench_now_ns();

	for (long i = 0; i < n; i++)
		*slot = (uint64_t)(i * 32) << 32 | (uint64_t)(i & 63);
	return (double)(bench_now_ns() - t0) / (double)n;
}

static void run(const char *key, uint8_t *page, long n, int ntrials)
{
	double r[MAX_TRIALS];

	for (int t = 0; t < ntrials; t++)
		r[t] = trial(page, n);
	bench_sort(r, (size_t)ntrials);
	printf("%s %.1f %.1f ns/store\n", key, r[0], r[ntrials / 2]);
}

int main(int argc, char **argv)
{
	int quick = argc > 1 && !strcmp(argv[1], "-q");
	int ntrials = quick ? 3 : MAX_TRIALS;
	long n = quick ? 2000 : 200000;
	uint8_t *rw = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	struct emu_storetrap *t;
	struct mana_dbmbox m;

	if (rw == MAP_FAILED || ro == MAP_FAILED)
		return 1;
	printf("# bench_storetrap: one thread, 64-bit stores, ns per store\n");
	run("plain", rw, n * 100, ntrials);
	if (emu_storetrap_add(ro, 4096, empty_fn, NULL, &t))
		return 1;
	run("trapped_empty", ro, n, ntrials);
	emu_storetrap_remove(t);
	if (mana_dbmbox_init(&m, 1024, NULL, NULL) ||
	    emu_storetrap_add(ro, 4096, mana_dbmbox_store, &m, &t))
		return 1;
	run("trapped_mailbox", ro, n, ntrials);
	emu_storetrap_remove(t);
	mana_dbmbox_fini(&m);
	return 0;
}
