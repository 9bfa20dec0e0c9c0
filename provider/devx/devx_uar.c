/* SPDX-License-Identifier: MIT */
/*
 * UARs as libmlx5 44 hands them out (mlx5dv_devx_alloc_uar/free_uar) and
 * the DEVX area's per-context state.
 *
 * - Every context gets one non-cached UAR page at open (libmlx5's
 *   mlx5_set_singleton_nc_uar); alloc_uar(NC) returns that same object each
 *   time, reg_addr = base_addr + MLX5_BF_OFFSET, and free_uar on it does
 *   nothing.  Without it (the device refused), alloc_uar(NC) is EOPNOTSUPP.
 * - alloc_uar(BF) takes a dedicated BlueFlame register from the context's
 *   pool.  An empty pool gets a new UAR page from the backend, which holds
 *   two registers (MLX5_BF_OFFSET and MLX5_BF_OFFSET + bf_reg_size) with the
 *   page's page_id and mmap_off; free_uar puts the register back at the tail
 *   of the pool.  Pages live until the context closes.
 * - A page the backend did not map (base_addr NULL) is mmap()ed here from
 *   cmd_fd at its mmap offset, shared and writable, as libmlx5 maps it.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "provider/core/device.h"
#include "provider/devx/devx.h"
#include "shell/abi_export.h"
#include "provider/core/caps.h"

static struct prov_uar_page *uar_page_alloc(struct prov_context *pctx,
					    uint32_t type,
					    struct mlx5be_uar_info *info)
{
	struct prov_uar_page *page;
	int err;

	if (!pctx->be->uar_alloc) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	page = calloc(1, sizeof(*page));
	if (!page) {
		errno = ENOMEM;
		return NULL;
	}
	*info = (struct mlx5be_uar_info){ 0 };
	page->be = pctx->be->uar_alloc(pctx->bectx, type, info);
	if (!page->be) {
		err = errno;
		free(page);
		errno = err;
		return NULL;
	}
	if (info->base_addr) {
		page->base = info->base_addr;
		return page;
	}
	page->base = mmap(NULL, PROV_UAR_PAGE_SIZE, PROT_READ | PROT_WRITE,
			  MAP_SHARED, pctx->vctx.context.cmd_fd, info->mmap_off);
	if (page->base == MAP_FAILED) {
		err = errno;
		pctx->be->uar_free(page->be);
		free(page);
		errno = err;
		return NULL;
	}
	page->mapped = true;
	return page;
}

static void uar_page_free(struct prov_context *pctx, struct prov_uar_page *page)
{
	if (page->mapped)
		munmap(page->base, PROV_UAR_PAGE_SIZE);
	pctx->be->uar_free(page->be);
	free(page);
}

static void uar_fill(struct prov_devx_uar *uar, struct prov_context *pctx,
		     struct prov_uar_page *page,
		     const struct mlx5be_uar_info *info, void *reg)
{
	uar->pctx = pctx;
	uar->page = page;
	uar->dv.base_addr = page->base;
	uar->dv.reg_addr = reg;
	uar->dv.page_id = info->page_id;
	uar->dv.mmap_off = info->mmap_off;
	uar->dv.comp_mask = 0;
}

static struct prov_devx_uar *nc_uar_alloc(struct prov_context *pctx)
{
	struct prov_devx_ctx *dctx = pctx->devx_ctx;
	struct mlx5be_uar_info info;
	struct prov_uar_page *page;
	struct prov_devx_uar *uar;

	uar = calloc(1, sizeof(*uar));
	if (!uar)
		return NULL;
	page = uar_page_alloc(pctx, MLX5DV_UAR_ALLOC_TYPE_NC, &info);
	if (!page) {
		free(uar);
		return NULL;
	}
	page->next = dctx->pages;
	dctx->pages = page;
	/* libmlx5 sets reg = uar + MLX5_BF_OFFSET whoever mapped the page. */
	uar_fill(uar, pctx, page, &info, (char *)page->base + PROV_BF_OFFSET);
	uar->nc = true;
	uar->in_use = true;
	return uar;
}

/* As the kernel reports it: 1 << log_bf_reg_size of the general caps. */
static uint32_t bf_reg_size(struct prov_context *pctx)
{
	return UINT32_C(1) << PROV_CAP_GEN(pctx, log_bf_reg_size);
}

static void bf_push(struct prov_devx_ctx *dctx, struct prov_devx_uar *uar)
{
	uar->next_free = NULL;
	if (dctx->bf_free_tail)
		dctx->bf_free_tail->next_free = uar;
	else
		dctx->bf_free = uar;
	dctx->bf_free_tail = uar;
}

static struct prov_devx_uar *bf_pop(struct prov_devx_ctx *dctx)
{
	struct prov_devx_uar *uar = dctx->bf_free;

	if (uar) {
		dctx->bf_free = uar->next_free;
		if (!dctx->bf_free)
			dctx->bf_free_tail = NULL;
		uar->next_free = NULL;
	}
	return uar;
}

/* A new BF page into the pool: two registers when the page is ours;
 * 0 or an errno. */
static int bf_grow(struct prov_context *pctx)
{
	struct prov_devx_ctx *dctx = pctx->devx_ctx;
	struct prov_devx_uar *regs[2] = { NULL, NULL };
	struct mlx5be_uar_info info;
	struct prov_uar_page *page;
	uint32_t reg_size = bf_reg_size(pctx);
	unsigned int n;
	int err;

	for (n = 0; n < 2; n++) {
		regs[n] = calloc(1, sizeof(*regs[n]));
		if (!regs[n]) {
			err = ENOMEM;
			goto err_regs;
		}
	}
	page = uar_page_alloc(pctx, MLX5DV_UAR_ALLOC_TYPE_BF, &info);
	if (!page) {
		err = errno;
		goto err_regs;
	}
	page->next = dctx->pages;
	dctx->pages = page;
	if (!page->mapped) {
		/* The backend mapped one register for us (hw: libmlx5's). */
		uar_fill(regs[0], pctx, page, &info,
			 info.reg_addr ? info.reg_addr :
			 (char *)page->base + PROV_BF_OFFSET);
		free(regs[1]);
		n = 1;
	} else {
		for (unsigned int j = 0; j < 2; j++)
			uar_fill(regs[j], pctx, page, &info,
				 (char *)page->base + PROV_BF_OFFSET + j * reg_size);
	}
	for (unsigned int j = 0; j < n; j++) {
		regs[j]->next = dctx->bf_all;
		dctx->bf_all = regs[j];
		bf_push(dctx, regs[j]);
	}
	return 0;

err_regs:
	for (unsigned int j = 0; j < 2; j++)
		free(regs[j]);
	return err;
}

MLX5EMU_ABI(mlx5dv_devx_alloc_uar);
struct mlx5dv_devx_uar *mlx5emu_abi_mlx5dv_devx_alloc_uar(struct ibv_context *context,
							 uint32_t flags)
{
	/* libmlx5: no dv ops for a device not its own */
	if (prov_device_mana_ctx(context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	struct prov_context *pctx;
	struct prov_devx_ctx *dctx;
	struct prov_devx_uar *uar;

	if (!context || (flags & ~(uint32_t)MLX5DV_UAR_ALLOC_TYPE_NC)) {
		errno = context ? EOPNOTSUPP : EINVAL;
		return NULL;
	}
	pctx = to_prov_context(context);
	dctx = pctx->devx_ctx;
	if (flags & MLX5DV_UAR_ALLOC_TYPE_NC) {
		if (!dctx->nc_uar) {
			errno = EOPNOTSUPP;
			return NULL;
		}
		return &dctx->nc_uar->dv;
	}

	pthread_mutex_lock(&dctx->lock);
	uar = bf_pop(dctx);
	if (!uar) {
		int err = bf_grow(pctx);

		if (err) {
			pthread_mutex_unlock(&dctx->lock);
			errno = err;
			return NULL;
		}
		uar = bf_pop(dctx);
	}
	uar->in_use = true;
	pthread_mutex_unlock(&dctx->lock);
	return &uar->dv;
}

MLX5EMU_ABI(mlx5dv_devx_free_uar);
void mlx5emu_abi_mlx5dv_devx_free_uar(struct mlx5dv_devx_uar *dv_devx_uar)
{
	struct prov_devx_uar *uar = (struct prov_devx_uar *)dv_devx_uar;
	struct prov_devx_ctx *dctx;

	if (!uar || uar->nc)
		return;
	dctx = uar->pctx->devx_ctx;
	pthread_mutex_lock(&dctx->lock);
	/* A second free of the same register changes nothing. */
	if (uar->in_use) {
		uar->in_use = false;
		bf_push(dctx, uar);
	}
	pthread_mutex_unlock(&dctx->lock);
}

const struct mlx5dv_devx_uar *prov_devx_nc_uar(struct prov_context *pctx)
{
	struct prov_devx_ctx *dctx = pctx->devx_ctx;

	return dctx && dctx->nc_uar ? &dctx->nc_uar->dv : NULL;
}

void prov_devx_track(struct prov_context *pctx, struct cds_list_head *node,
		      struct cds_list_head *head)
{
	pthread_mutex_lock(&pctx->devx_ctx->lock);
	cds_list_add_tail(node, head);
	pthread_mutex_unlock(&pctx->devx_ctx->lock);
}

void prov_devx_untrack(struct prov_context *pctx, struct cds_list_head *node)
{
	pthread_mutex_lock(&pctx->devx_ctx->lock);
	cds_list_del(node);
	pthread_mutex_unlock(&pctx->devx_ctx->lock);
}

int prov_devx_ctx_init(struct prov_context *pctx)
{
	struct prov_devx_ctx *dctx = calloc(1, sizeof(*dctx));

	if (!dctx)
		return ENOMEM;
	pthread_mutex_init(&dctx->lock, NULL);
	CDS_INIT_LIST_HEAD(&dctx->objs);
	CDS_INIT_LIST_HEAD(&dctx->umems);
	pctx->devx_ctx = dctx;
	/* As libmlx5: without the NC page the context opens all the same. */
	dctx->nc_uar = nc_uar_alloc(pctx);
	return 0;
}

void prov_devx_ctx_fini(struct prov_context *pctx)
{
	struct prov_devx_ctx *dctx = pctx->devx_ctx;
	struct mlx5dv_devx_obj *obj, *otmp;
	struct prov_devx_umem *umem, *utmp;
	struct prov_uar_page *page;
	struct prov_devx_uar *uar;

	if (!dctx)
		return;
	/* Left by the application: the backend destroys them at close. */
	cds_list_for_each_entry_safe(obj, otmp, &dctx->objs, node)
		free(obj);
	cds_list_for_each_entry_safe(umem, utmp, &dctx->umems, node)
		free(umem);
	while ((uar = dctx->bf_all)) {
		dctx->bf_all = uar->next;
		free(uar);
	}
	free(dctx->nc_uar);
	while ((page = dctx->pages)) {
		dctx->pages = page->next;
		uar_page_free(pctx, page);
	}
	pthread_mutex_destroy(&dctx->lock);
	free(dctx);
	pctx->devx_ctx = NULL;
}
