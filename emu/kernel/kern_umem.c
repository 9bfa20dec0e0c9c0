/* SPDX-License-Identifier: MIT */
/*
 * umem registration: the kernel pins the pages (here: checks that every
 * page of the range is mapped) and gives firmware the memory (CREATE_UMEM
 * on hardware; here the firmware's umem registry), returning its id.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "emu/kernel/kern.h"

#define KERN_UMEM_ACCESS                                                      \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |                   \
	 IBV_ACCESS_RELAXED_ORDERING)

/* 0 when every page of [addr, addr + size) is mapped, else -EFAULT. */
static int kern_range_mapped(const void *addr, size_t size)
{
	uintptr_t start = (uintptr_t)addr & ~(uintptr_t)(KERN_PAGE_SIZE - 1);
	uintptr_t end = ((uintptr_t)addr + size + KERN_PAGE_SIZE - 1) &
			~(uintptr_t)(KERN_PAGE_SIZE - 1);
	unsigned char vec[64];

	/* mincore() fails with ENOMEM on any unmapped page: what pinning
	 * the pages would refuse with EFAULT. */
	for (uintptr_t p = start; p < end; p += sizeof(vec) * KERN_PAGE_SIZE) {
		size_t len = end - p;

		if (len > sizeof(vec) * KERN_PAGE_SIZE)
			len = sizeof(vec) * KERN_PAGE_SIZE;
		if (mincore((void *)p, len, vec))
			return -EFAULT;
	}
	return 0;
}

struct mlx5be_umem *kern_umem_reg(struct mlx5be_ctx *ctx, void *addr,
				  size_t size, uint32_t access,
				  uint64_t pgsz_bitmap, uint32_t *umem_id)
{
	struct mlx5be_umem *umem;
	int ret;

	if (!size || (uintptr_t)addr + size < (uintptr_t)addr ||
	    (access & ~KERN_UMEM_ACCESS)) {
		errno = EINVAL;
		return NULL;
	}
	/* The emulated device works in 4 KiB pages. */
	if (pgsz_bitmap && !(pgsz_bitmap & KERN_PAGE_SIZE) &&
	    !(pgsz_bitmap & ~(uint64_t)(KERN_PAGE_SIZE - 1))) {
		errno = EINVAL;
		return NULL;
	}
	ret = kern_range_mapped(addr, size);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	umem = calloc(1, sizeof(*umem));
	if (!umem) {
		errno = ENOMEM;
		return NULL;
	}
	umem->ctx = ctx;
	pthread_mutex_lock(&ctx->lock);
	ret = kern_fw_umem_register(ctx->kdev, ctx->uid, addr, size, access,
				    &umem->id);
	if (ret) {
		pthread_mutex_unlock(&ctx->lock);
		free(umem);
		errno = -ret;
		return NULL;
	}
	cds_list_add_tail(&umem->node, &ctx->umems);
	pthread_mutex_unlock(&ctx->lock);
	*umem_id = umem->id;
	return umem;
}

int kern_umem_dereg(struct mlx5be_umem *umem)
{
	struct mlx5be_ctx *ctx = umem->ctx;
	int ret;

	pthread_mutex_lock(&ctx->lock);
	/* A umem an object still uses stays (firmware says busy). */
	ret = kern_fw_umem_unregister(ctx->kdev, ctx->uid, umem->id);
	if (!ret)
		cds_list_del(&umem->node);
	pthread_mutex_unlock(&ctx->lock);
	if (!ret)
		free(umem);
	return ret;
}
