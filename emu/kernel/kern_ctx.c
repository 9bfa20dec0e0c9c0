/* SPDX-License-Identifier: MIT */
/*
 * ucontexts: what the kernel does when a process opens a device (a DEVX uid
 * from firmware, the cmd_fd whose pages are the context's UARs) and when it
 * closes it or exits (everything it left is destroyed, newest first).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu/kernel/kern.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

/* CREATE_UCTX: the uid every command of this context will carry. */
static int kern_uctx_create(struct kern_dev *kdev, uint16_t *uid)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_uctx_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(create_uctx_out)] = {};
	int ret;

	PRM_SET(create_uctx_in, in, opcode, MLX5_CMD_OP_CREATE_UCTX);
	ret = kern_fw_exec_checked(kdev, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	*uid = PRM_GET(create_uctx_out, out, uid);
	return 0;
}

static void kern_uctx_destroy(struct kern_dev *kdev, uint16_t uid)
{
	uint8_t in[PRM_ST_SZ_BYTES(destroy_uctx_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(destroy_uctx_out)] = {};

	PRM_SET(destroy_uctx_in, in, opcode, MLX5_CMD_OP_DESTROY_UCTX);
	PRM_SET(destroy_uctx_in, in, uid, uid);
	kern_fw_exec_checked(kdev, in, sizeof(in), out, sizeof(out));
}

int kern_ctx_open(int index, struct mlx5be_ctx **pctx, int *cmd_fd)
{
	struct mlx5be_ctx *ctx;
	int ret;

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ret = kern_dev_get(index, &ctx->kdev);
	if (ret)
		goto err_free;
	ret = kern_uctx_create(ctx->kdev, &ctx->uid);
	if (ret)
		goto err_put;
	/* The cmd_fd: a memfd whose pages, at their mmap offsets, are UARs. */
	ctx->memfd = memfd_create("mlx5emu-uverbs", MFD_CLOEXEC);
	if (ctx->memfd < 0) {
		ret = -errno;
		goto err_uctx;
	}
	pthread_mutex_init(&ctx->lock, NULL);
	CDS_INIT_LIST_HEAD(&ctx->objs);
	CDS_INIT_LIST_HEAD(&ctx->umems);
	CDS_INIT_LIST_HEAD(&ctx->uars);
	CDS_INIT_LIST_HEAD(&ctx->comps);
	*pctx = ctx;
	*cmd_fd = ctx->memfd;
	return 0;

err_uctx:
	kern_uctx_destroy(ctx->kdev, ctx->uid);
err_put:
	kern_dev_put(ctx->kdev);
err_free:
	free(ctx);
	return ret;
}

int kern_ctx_grow_memfd(struct mlx5be_ctx *ctx, size_t pages, off_t *off)
{
	off_t start = (off_t)ctx->memfd_pages * KERN_PAGE_SIZE;

	if (ftruncate(ctx->memfd, start + (off_t)pages * KERN_PAGE_SIZE))
		return -errno;
	ctx->memfd_pages += pages;
	*off = start;
	return 0;
}

void kern_ctx_close(struct mlx5be_ctx *ctx)
{
	struct mlx5be_uar *uar, *utmp;
	struct mlx5be_umem *umem, *mtmp;

	/* Objects first (they hold umems and UARs), newest first. */
	kern_obj_destroy_all(ctx);
	cds_list_for_each_entry_safe(umem, mtmp, &ctx->umems, node)
		kern_umem_dereg(umem);
	cds_list_for_each_entry_safe(uar, utmp, &ctx->uars, node)
		kern_uar_free(uar);
	kern_uctx_destroy(ctx->kdev, ctx->uid);
	kern_dev_put(ctx->kdev);
	close(ctx->memfd);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}
