/* SPDX-License-Identifier: MIT */
/*
 * Fork tracking of registered memory, as rdma-core 44's libibverbs
 * (memory.c) keeps it on a kernel with copy-on-fork: ibv_fork_init()
 * turns tracking on (0), unless a range was registered or freed before
 * (EINVAL: too late); a madvise(MADV_DONTFORK) that fails is ENOSYS.
 * While tracking is on, each page of a registered range or queue buffer
 * counts its users, and the first user marks it MADV_DONTFORK, the last
 * one's release MADV_DOFORK, so a child does not inherit it (a failed
 * MADV_DONTFORK undoes the call's changes and makes it fail with its
 * errno; a failed MADV_DOFORK is ignored).  While it is off,
 * nothing happens except that ibv_fork_init() becomes too late.  With
 * RDMAV_HUGEPAGES_SAFE the pages are those of the range's mapping (its
 * huge page size).  Whether tracking is even needed is another question
 * (ibv_is_fork_initialized(): verbs/fork.c).
 *
 * Users: MRs (verbs/mr.c), DEVX umems (devx/devx_umem.c) and queue
 * buffers (qbuf.c).  Doorbell records are not: libmlx5 carves them from
 * pages of its own, ours are small heap blocks whose pages the rest of
 * the heap shares, and marking those would take the child's heap away.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "provider/core/fork_mem.h"

/* A range of pages, all with the same count of users (never 0). */
struct fork_range {
	uintptr_t start, end;	/* [start, end) */
	long users;
};

static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static bool fork_tracking, fork_too_late, fork_huge;
static struct fork_range *fork_ranges;	/* sorted, disjoint */
static size_t fork_n;

/* The page size of the mapping holding @addr (/proc/self/smaps). */
static unsigned long fork_map_page_size(const void *addr)
{
	unsigned long start, end, kb, size = (unsigned long)sysconf(_SC_PAGESIZE);
	char line[256];
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return size;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = (uintptr_t)addr >= start && (uintptr_t)addr < end;
		else if (in && sscanf(line, "KernelPageSize: %lu kB", &kb) == 1) {
			size = kb * 1024;
			break;
		}
	}
	fclose(f);
	return size;
}

int prov_fork_init(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long size;
	void *probe;
	int ret = 0;

	pthread_mutex_lock(&fork_lock);
	if (getenv("RDMAV_HUGEPAGES_SAFE"))
		fork_huge = true;
	if (fork_tracking)
		goto out;
	if (fork_too_late) {
		ret = EINVAL;
		goto out;
	}
	if (page < 0 || posix_memalign(&probe, (size_t)page, (size_t)page)) {
		ret = page < 0 ? errno : ENOMEM;
		goto out;
	}
	size = fork_huge ? fork_map_page_size(probe) : (unsigned long)page;
	if (madvise((void *)((uintptr_t)probe & ~(size - 1)), size,
		    MADV_DONTFORK) ||
	    madvise((void *)((uintptr_t)probe & ~(size - 1)), size,
		    MADV_DOFORK))
		ret = ENOSYS;
	free(probe);
	if (!ret)
		fork_tracking = true;
out:
	pthread_mutex_unlock(&fork_lock);
	return ret;
}

/* Users of the page range [s, e) now, and where the next change is. */
static long fork_users(uintptr_t s, uintptr_t *next)
{
	for (size_t i = 0; i < fork_n; i++) {
		if (fork_ranges[i].end <= s)
			continue;
		if (fork_ranges[i].start <= s) {
			*next = fork_ranges[i].end;
			return fork_ranges[i].users;
		}
		*next = fork_ranges[i].start;
		return 0;
	}
	*next = UINTPTR_MAX;
	return 0;
}

/* The table with @inc users added to [s, e), sorted and merged, in
 * *@out (to be freed); ENOMEM. */
static int fork_count(uintptr_t s, uintptr_t e, long inc,
		      struct fork_range **out, size_t *out_n)
{
	/* Each old range may be cut at s and e, and each gap in [s, e)
	 * filled: never more than 2n + 3 ranges. */
	struct fork_range *r = calloc(fork_n * 2 + 3, sizeof(*r));
	size_t n = 0;
	uintptr_t at = 0;

	if (!r)
		return ENOMEM;
	/* Walk every boundary of the old table and of [s, e). */
	while (at != UINTPTR_MAX) {
		uintptr_t next;
		long users = fork_users(at, &next);

		if (at < s && next > s)
			next = s;
		if (at < e && next > e)
			next = e;
		if (at >= s && at < e)
			users += inc;
		if (users) {
			if (n && r[n - 1].end == at && r[n - 1].users == users)
				r[n - 1].end = next;
			else
				r[n++] = (struct fork_range){ at, next, users };
		}
		at = next;
	}
	*out = r;
	*out_n = n;
	return 0;
}

/*
 * libibverbs' do_madvise(): a MADV_DOFORK that fails is retried page by
 * page and otherwise ignored (the range may be gone already); only a
 * MADV_DONTFORK can fail.
 */
static int fork_madvise(uintptr_t s, uintptr_t e, int advice,
			unsigned long page)
{
	if (!madvise((void *)s, e - s, advice))
		return 0;
	if (advice == MADV_DONTFORK)
		return errno;
	for (uintptr_t p = s; e - s > page && p < e; p += page)
		madvise((void *)p, page, MADV_DOFORK);
	return 0;
}

/* madvise @advice on the pieces of [s, e) whose users are @from now; on a
 * failure *@failed_at is the end of the piece that failed (madvise may
 * have marked some of it: a range with a hole fails after marking the
 * mapped part). */
static int fork_advise(uintptr_t s, uintptr_t e, long from, int advice,
		       unsigned long page, uintptr_t *failed_at)
{
	for (uintptr_t at = s, next; at < e; at = next) {
		long users = fork_users(at, &next);
		int ret;

		if (next > e)
			next = e;
		if (users != from)
			continue;
		ret = fork_madvise(at, next, advice, page);
		if (ret) {
			*failed_at = next;
			return ret;
		}
	}
	return 0;
}

static int fork_range_change(void *base, size_t size, bool dontfork)
{
	struct fork_range *table;
	unsigned long page;
	uintptr_t s, e, failed_at;
	size_t n;
	int ret;

	if (!size || !base)
		return 0;
	pthread_mutex_lock(&fork_lock);
	if (!fork_tracking) {
		fork_too_late = true;
		pthread_mutex_unlock(&fork_lock);
		return 0;
	}
	page = fork_huge ? fork_map_page_size(base) :
			   (unsigned long)sysconf(_SC_PAGESIZE);
	s = (uintptr_t)base & ~(uintptr_t)(page - 1);
	e = ((uintptr_t)base + size + page - 1) & ~(uintptr_t)(page - 1);
	ret = fork_count(s, e, dontfork ? 1 : -1, &table, &n);
	if (ret)
		goto out;
	/* The first user marks a page, the last one's release clears it. */
	ret = fork_advise(s, e, dontfork ? 0 : 1,
			  dontfork ? MADV_DONTFORK : MADV_DOFORK, page,
			  &failed_at);
	if (ret) {
		/* Undo what was marked, the failed piece included, so
		 * pages and counts are as before the call. */
		fork_advise(s, failed_at, 0, MADV_DOFORK, page, &failed_at);
		free(table);
		goto out;
	}
	free(fork_ranges);
	fork_ranges = table;
	fork_n = n;
out:
	pthread_mutex_unlock(&fork_lock);
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

int prov_dontfork_range(void *base, size_t size)
{
	return fork_range_change(base, size, true);
}

int prov_dofork_range(void *base, size_t size)
{
	return fork_range_change(base, size, false);
}
