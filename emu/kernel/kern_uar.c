/* SPDX-License-Identifier: MIT */
/*
 * UARs: ALLOC_UAR is the kernel's command (DEVX callers cannot issue it);
 * each UAR is a page of the context's memfd at its mmap offset, which the
 * application maps and the device model watches through its own mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "emu/firmware/fw_objs.h"
#include "emu/kernel/kern.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

static int kern_uar_cmd_alloc(struct kern_uctx *uctx, uint32_t *index)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_uar_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(alloc_uar_out)] = {};
	int ret;

	PRM_SET(alloc_uar_in, in, opcode, MLX5_CMD_OP_ALLOC_UAR);
	PRM_SET(alloc_uar_in, in, uid, uctx->uid);
	ret = kern_fw_exec_checked(uctx->kdev, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	*index = PRM_GET(alloc_uar_out, out, uar);
	return 0;
}

static int kern_uar_cmd_dealloc(struct kern_uctx *uctx, uint32_t index)
{
	uint8_t in[PRM_ST_SZ_BYTES(dealloc_uar_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(dealloc_uar_out)] = {};

	PRM_SET(dealloc_uar_in, in, opcode, MLX5_CMD_OP_DEALLOC_UAR);
	PRM_SET(dealloc_uar_in, in, uid, uctx->uid);
	PRM_SET(dealloc_uar_in, in, uar, index);
	return kern_fw_exec_checked(uctx->kdev, in, sizeof(in), out, sizeof(out));
}

/* @pages more pages at the end of the memfd, at *off (uctx->lock held). */
static int kern_uar_grow_memfd(struct kern_uctx *uctx, size_t pages,
			      off_t *off)
{
	off_t start = (off_t)uctx->memfd_pages * KERN_PAGE_SIZE;

	if (ftruncate(uctx->memfd, start + (off_t)pages * KERN_PAGE_SIZE))
		return -errno;
	uctx->memfd_pages += pages;
	*off = start;
	return 0;
}

struct mlx5be_uar *kern_uar_alloc(struct mlx5be_ctx *ctx, uint32_t flags,
				  struct mlx5be_uar_info *info)
{
	struct kern_uctx *uctx = ctx->uctx;
	struct mlx5be_uar *uar;
	int ret;

	if (kern_uctx_lost(uctx)) {
		errno = EIO;
		return NULL;
	}
	if (flags != MLX5DV_UAR_ALLOC_TYPE_BF && flags != MLX5DV_UAR_ALLOC_TYPE_NC) {
		errno = EINVAL;
		return NULL;
	}
	uar = calloc(1, sizeof(*uar));
	if (!uar) {
		errno = ENOMEM;
		return NULL;
	}
	uar->uctx = uctx;
	pthread_mutex_lock(&uctx->lock);
	ret = kern_uar_cmd_alloc(uctx, &uar->index);
	if (ret)
		goto err_unlock;
	ret = kern_uar_grow_memfd(uctx, 1, &uar->mmap_off);
	if (ret)
		goto err_dealloc;
	uar->page = mmap(NULL, KERN_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			 uctx->memfd, uar->mmap_off);
	if (uar->page == MAP_FAILED) {
		ret = -errno;
		goto err_dealloc;
	}
	/* The device watches the page through the kernel's own mapping. */
	emu_fw_uar_set_page(uctx->kdev->fw, uar->index, uar->page);
	cds_list_add_tail(&uar->node, &uctx->uars);
	pthread_mutex_unlock(&uctx->lock);
	info->base_addr = NULL;	/* the provider maps cmd_fd at mmap_off */
	info->reg_addr = NULL;
	info->page_id = uar->index;
	info->mmap_off = uar->mmap_off;
	return uar;

err_dealloc:
	kern_uar_cmd_dealloc(uctx, uar->index);
err_unlock:
	pthread_mutex_unlock(&uctx->lock);
	free(uar);
	errno = -ret;
	return NULL;
}

/* The UAR is gone for good: its page and memory go too (in a forked
 * child only its own mapping: the memfd is the parent's). */
void kern_uar_release(struct kern_uctx *uctx, struct mlx5be_uar *uar)
{
	munmap(uar->page, KERN_PAGE_SIZE);
	/* Offsets are never reused (a stale mapping must not alias a new
	 * UAR); the page's memory is given back. */
	if (!kern_uctx_lost(uctx))
		fallocate(uctx->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  uar->mmap_off, KERN_PAGE_SIZE);
	free(uar);
}

/*
 * Freeing a UAR a CQ or EQ still names: mlx5_ib only frees the UAR index
 * once nothing maps it (rdma_user_mmap_entry), and firmware refuses while a
 * queue uses it.  The UAR leaves the context's list at once; its index
 * stays allocated (and its page watched) until the queue is gone, retried
 * after each destroy and at close.
 */
void kern_uar_free(struct mlx5be_uar *uar)
{
	struct kern_uctx *uctx = uar->uctx;
	int ret;

	pthread_mutex_lock(&uctx->lock);
	cds_list_del(&uar->node);
	ret = kern_uctx_lost(uctx) ? 0 : kern_uar_cmd_dealloc(uctx, uar->index);
	if (ret)
		cds_list_add_tail(&uar->node, &uctx->dead_uars);
	pthread_mutex_unlock(&uctx->lock);
	if (!ret)
		kern_uar_release(uctx, uar);
}

void kern_uar_reap(struct kern_uctx *uctx, bool final)
{
	struct mlx5be_uar *uar, *tmp;

	cds_list_for_each_entry_safe(uar, tmp, &uctx->dead_uars, node) {
		if (kern_uar_cmd_dealloc(uctx, uar->index) && !final)
			continue;
		cds_list_del(&uar->node);
		kern_uar_release(uctx, uar);
	}
}

int kern_query_eqn(struct mlx5be_ctx *ctx, uint32_t vector, uint32_t *eqn)
{
	if (kern_uctx_lost(ctx->uctx))
		return -EIO;
	if (vector >= KERN_NUM_COMP_VECTORS)
		return -EINVAL;
	*eqn = ctx->uctx->kdev->eqn[vector];
	return 0;
}
