/* SPDX-License-Identifier: MIT */
/*
 * umem registration (devx.c MLX5_IB_METHOD_DEVX_UMEM_REG): the kernel
 * checks the access flags, pins the pages (here: checks that every page of
 * the range is mapped with the access pinning needs) and gives firmware the
 * memory (CREATE_UMEM on hardware; here the firmware's umem registry),
 * returning its id.  In the kernel's order:
 *
 *  - access bits other than LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ and
 *    RELAXED_ORDERING: EINVAL (uverbs_get_flags32); REMOTE_WRITE without
 *    LOCAL_WRITE: EINVAL (ib_check_mr_access);
 *  - a range that wraps, or is empty: EINVAL (ib_umem_get);
 *  - a page that is not mapped, or not readable, or not writable when the
 *    access is (ib_access_writable: pinned with FOLL_WRITE): EFAULT;
 *  - no page size of pgsz_bitmap in [4 KiB, the umem's size rounded up to a
 *    power of two]: EINVAL (devx_umem_find_best_pgsize);
 *  - deregistering a umem an object still uses: EBUSY, it stays.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "emu/kernel/kern.h"

#define KERN_UMEM_ACCESS                                                      \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_RELAXED_ORDERING)
#define KERN_PAGE_MASK (~(uintptr_t)(KERN_PAGE_SIZE - 1))

/* mincore() fails with ENOMEM on any unmapped page: the fallback when
 * /proc/self/maps cannot be read (mapping only, not protections). */
static int kern_range_mapped(uintptr_t start, uintptr_t end)
{
	unsigned char vec[64];

	for (uintptr_t p = start; p < end; p += sizeof(vec) * KERN_PAGE_SIZE) {
		size_t len = end - p;

		if (len > sizeof(vec) * KERN_PAGE_SIZE)
			len = sizeof(vec) * KERN_PAGE_SIZE;
		if (mincore((void *)p, len, vec))
			return -EFAULT;
	}
	return 0;
}

/*
 * What pin_user_pages() would say of [addr, addr + size): 0, or -EFAULT
 * when a page is not mapped or its mapping lacks read (or, to be written,
 * write) permission (check_vma_flags()).
 */
static int kern_range_pinnable(const void *addr, size_t size, bool write)
{
	uintptr_t start = (uintptr_t)addr & KERN_PAGE_MASK;
	uintptr_t end = ((uintptr_t)addr + size + KERN_PAGE_SIZE - 1) &
			KERN_PAGE_MASK;
	uintptr_t cursor = start;
	size_t cap = 0;
	char *line = NULL;
	FILE *maps;

	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return kern_range_mapped(start, end);
	/* Lines are sorted by address: walk them until the range is covered. */
	while (cursor < end && getline(&line, &cap, maps) > 0) {
		uintptr_t lo, hi;
		char perms[5];

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s", &lo, &hi,
			   perms) != 3)
			continue;
		if (hi <= cursor)
			continue;
		if (lo > cursor)
			break;		/* a hole */
		if (perms[write ? 1 : 0] == '-')
			break;
		cursor = hi;
	}
	free(line);
	fclose(maps);
	return cursor >= end ? 0 : -EFAULT;
}

/* devx_umem_find_best_pgsize(): some page size of @bitmap fits. */
static bool kern_umem_pgsz_ok(uint64_t bitmap, size_t size)
{
	unsigned int order = 0;

	while (order < 63 && ((uint64_t)1 << order) < size)
		order++;		/* order_base_2(size) */
	if (order < 12)
		order = 12;		/* PAGE_SHIFT */
	/* GENMASK_ULL(order, MLX5_ADAPTER_PAGE_SHIFT) */
	bitmap &= (order == 63 ? UINT64_MAX : ((uint64_t)2 << order) - 1) &
		  ~(uint64_t)(KERN_PAGE_SIZE - 1);
	return bitmap != 0;
}

struct mlx5be_umem *kern_umem_reg(struct mlx5be_ctx *ctx, void *addr,
				  size_t size, uint32_t access,
				  uint64_t pgsz_bitmap, uint32_t *umem_id)
{
	struct kern_uctx *uctx = ctx->uctx;
	uintptr_t a = (uintptr_t)addr;
	struct mlx5be_umem *umem;
	bool writable;
	int ret;

	if (kern_uctx_lost(uctx)) {
		errno = EIO;
		return NULL;
	}
	/* uverbs_get_flags32() with the method's bits; ib_check_mr_access(). */
	if ((access & ~KERN_UMEM_ACCESS) ||
	    ((access & IBV_ACCESS_REMOTE_WRITE) &&
	     !(access & IBV_ACCESS_LOCAL_WRITE))) {
		errno = EINVAL;
		return NULL;
	}
	/* ib_umem_get(): wrap-around, and no page at all. */
	if (!size || a + size < a ||
	    ((a + size + KERN_PAGE_SIZE - 1) & KERN_PAGE_MASK) < a + size) {
		errno = EINVAL;
		return NULL;
	}
	/* ib_access_writable(): pinned for write. */
	writable = access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ret = kern_range_pinnable(addr, size, writable);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	if (!kern_umem_pgsz_ok(pgsz_bitmap, size)) {
		errno = EINVAL;
		return NULL;
	}
	umem = calloc(1, sizeof(*umem));
	if (!umem) {
		errno = ENOMEM;
		return NULL;
	}
	umem->uctx = uctx;
	pthread_mutex_lock(&uctx->lock);
	ret = kern_fw_umem_register(uctx->kdev, uctx->uid, addr, size, access,
				    &umem->id);
	if (ret) {
		pthread_mutex_unlock(&uctx->lock);
		free(umem);
		/* log_max_umem reached: the LIM status CREATE_UMEM would
		 * give, which mlx5_cmd_exec maps to ENOMEM. */
		errno = ret == -ENOSPC ? ENOMEM : -ret;
		return NULL;
	}
	cds_list_add_tail(&umem->node, &uctx->umems);
	pthread_mutex_unlock(&uctx->lock);
	*umem_id = umem->id;
	return umem;
}

int kern_umem_dereg(struct mlx5be_umem *umem)
{
	struct kern_uctx *uctx = umem->uctx;
	int ret = 0;

	pthread_mutex_lock(&uctx->lock);
	/* A umem an object still uses stays (firmware says busy); the
	 * child's copy of a lost one just goes. */
	if (!kern_uctx_lost(uctx))
		ret = kern_fw_umem_unregister(uctx->kdev, uctx->uid, umem->id);
	if (!ret)
		cds_list_del(&umem->node);
	pthread_mutex_unlock(&uctx->lock);
	if (!ret)
		free(umem);
	return ret;
}
