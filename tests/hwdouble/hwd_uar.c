/* SPDX-License-Identifier: MIT */
/*
 * UARs as rdma-core 44's libmlx5 hands them out through
 * mlx5dv_devx_alloc_uar (providers/mlx5/verbs.c, _mlx5dv_devx_alloc_uar and
 * mlx5_attach_dedicated_uar):
 *  - NC: the context's singleton non-cached UAR, the same object each time
 *    (a page allocated and mapped the first time); free does nothing;
 *  - BF: a dedicated BlueFlame register from the context's pool; an empty
 *    pool gets a new page, mapped, whose MLX5_NUM_NON_FP_BFREGS_PER_UAR (2)
 *    registers at MLX5_BF_OFFSET + i * bf_reg_size join it; free puts the
 *    register back.  Pages live until the context closes.
 * Each page is a DEVX UAR of the emulated kernel (ALLOC_UAR), mapped from
 * the context's cmd_fd at its mmap offset, as libmlx5 maps it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hwd.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

#define HWD_UAR_PAGE 4096
#define HWD_BF_OFFSET 0x800		/* MLX5_BF_OFFSET */
#define HWD_BFREGS_PER_PAGE 2		/* MLX5_NUM_NON_FP_BFREGS_PER_UAR */

/* 1 << log_bf_reg_size, which the kernel reports at open (bf_reg_size). */
static uint32_t hwd_bf_reg_size(struct hwd_ctx *c)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t *out = calloc(1, PRM_ST_SZ_BYTES(query_hca_cap_out));
	uint32_t log = 9;

	if (!out)
		return 1u << log;
	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, 1);	/* general, current */
	if (!hwd_emu.general_cmd(c->be, in, sizeof(in), out,
				 PRM_ST_SZ_BYTES(query_hca_cap_out)))
		log = PRM_GET(query_hca_cap_out, out,
			      capability.cmd_hca_cap.log_bf_reg_size);
	free(out);
	return 1u << log;
}

/* A new page of @type, mapped; NULL with errno. */
static struct hwd_uar_page *hwd_page_new(struct hwd_ctx *c, uint32_t type,
					 struct mlx5be_uar_info *info)
{
	struct hwd_uar_page *pg = calloc(1, sizeof(*pg));
	int err;

	if (!pg) {
		errno = ENOMEM;
		return NULL;
	}
	pg->be = hwd_emu.uar_alloc(c->be, type, info);
	if (!pg->be) {
		err = errno;
		free(pg);
		errno = err;
		return NULL;
	}
	pg->base = mmap(NULL, HWD_UAR_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
			c->vctx.context.cmd_fd, info->mmap_off);
	if (pg->base == MAP_FAILED) {
		err = errno;
		hwd_emu.uar_free(pg->be);
		free(pg);
		errno = err;
		return NULL;
	}
	pg->next = c->uar_pages;
	c->uar_pages = pg;
	return pg;
}

static struct hwd_uar *hwd_reg_new(struct hwd_ctx *c, struct hwd_uar_page *pg,
				   const struct mlx5be_uar_info *info,
				   size_t offset)
{
	struct hwd_uar *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->ctx = c;
	u->dv.base_addr = pg->base;
	u->dv.reg_addr = (char *)pg->base + offset;
	u->dv.page_id = info->page_id;
	u->dv.mmap_off = info->mmap_off;
	u->next = c->uars;
	c->uars = u;
	return u;
}

/* Under uar_lock: a register, and whether a page was made for it. */
static struct hwd_uar *hwd_uar_get(struct hwd_ctx *c, uint32_t flags,
				   bool *new_page)
{
	struct mlx5be_uar_info info;
	struct hwd_uar_page *pg;
	struct hwd_uar *u;
	uint32_t size;

	*new_page = false;
	if (flags & MLX5DV_UAR_ALLOC_TYPE_NC) {
		if (c->nc_uar)
			return c->nc_uar;
		pg = hwd_page_new(c, MLX5DV_UAR_ALLOC_TYPE_NC, &info);
		if (!pg)
			return NULL;
		*new_page = true;
		c->nc_uar = hwd_reg_new(c, pg, &info, HWD_BF_OFFSET);
		if (c->nc_uar)
			c->nc_uar->nc = true;
		return c->nc_uar;
	}
	if (!c->bf_free) {
		pg = hwd_page_new(c, MLX5DV_UAR_ALLOC_TYPE_BF, &info);
		if (!pg)
			return NULL;
		*new_page = true;
		size = hwd_bf_reg_size(c);
		for (int i = HWD_BFREGS_PER_PAGE - 1; i >= 0; i--) {
			u = hwd_reg_new(c, pg, &info, HWD_BF_OFFSET + i * size);
			if (!u)
				return NULL;
			u->next_free = c->bf_free;
			c->bf_free = u;
		}
	}
	u = c->bf_free;
	c->bf_free = u->next_free;
	u->next_free = NULL;
	return u;
}

HWD_EXPORT struct mlx5dv_devx_uar *hwd_alloc_uar(struct ibv_context *ibctx,
						 uint32_t flags)
{
	struct hwd_ctx *c = hwd_ctx_of(ibctx);
	struct hwd_uar *u;
	bool new_page;
	char extra[64];
	int err;

	if (flags & ~(uint32_t)MLX5DV_UAR_ALLOC_TYPE_NC) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	pthread_mutex_lock(&c->uar_lock);
	u = hwd_uar_get(c, flags, &new_page);
	err = u ? 0 : errno;
	pthread_mutex_unlock(&c->uar_lock);
	snprintf(extra, sizeof(extra), ",\"flags\":%u,\"new_page\":%s", flags,
		 new_page ? "true" : "false");
	hwd_log("mlx5dv_devx_alloc_uar", c, err, NULL, 0, NULL, 0, extra);
	if (!u)
		errno = err ? err : ENOMEM;
	return u ? &u->dv : NULL;
}

HWD_EXPORT void hwd_free_uar(struct mlx5dv_devx_uar *dv)
{
	struct hwd_uar *u = (struct hwd_uar *)dv;
	struct hwd_ctx *c = u->ctx;

	hwd_log("mlx5dv_devx_free_uar", c, 0, NULL, 0, NULL, 0, "");
	if (u->nc)
		return;		/* the singleton stays */
	pthread_mutex_lock(&c->uar_lock);
	u->next_free = c->bf_free;
	c->bf_free = u;
	pthread_mutex_unlock(&c->uar_lock);
}

int hwd_uar_pages_free(struct hwd_ctx *c)
{
	int n = 0;

	while (c->uar_pages) {
		struct hwd_uar_page *pg = c->uar_pages;

		c->uar_pages = pg->next;
		munmap(pg->base, HWD_UAR_PAGE);
		hwd_emu.uar_free(pg->be);
		free(pg);
		n++;
	}
	while (c->uars) {
		struct hwd_uar *u = c->uars;

		c->uars = u->next;
		free(u);
	}
	c->nc_uar = NULL;
	c->bf_free = NULL;
	return n;
}
