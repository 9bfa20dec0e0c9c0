/* SPDX-License-Identifier: MIT */
/*
 * Per-context state shared by the verbs object areas (see verbs_ctx.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "provider/devx/devx.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/fork.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/mr.h"
#include "provider/verbs/verbs_ctx.h"

struct prov_verbs_ctx *prov_verbs_ctx(struct prov_context *pctx)
{
	return pctx->verbs_ctx;
}

uint32_t prov_handle_alloc(struct prov_context *pctx)
{
	return atomic_fetch_add(&pctx->verbs_ctx->next_handle, 1);
}

int prov_rsc_store(struct prov_context *pctx, struct prov_cq_rsc *rsc,
		   uint32_t *uidx)
{
	struct prov_verbs_ctx *vc = pctx->verbs_ctx;
	int ret = ENOMEM;

	pthread_mutex_lock(&vc->lock);
	for (uint32_t b = 0; b < PROV_UIDX_BLOCKS; b++) {
		struct prov_cq_rsc **blk;

		if (vc->uidx_used[b] > PROV_UIDX_MASK)
			continue;
		blk = atomic_load(&vc->uidx[b]);
		if (!blk) {
			blk = calloc(PROV_UIDX_MASK + 1, sizeof(*blk));
			if (!blk)
				break;
			atomic_store(&vc->uidx[b], blk);
		}
		for (uint32_t i = 0; i <= PROV_UIDX_MASK; i++) {
			if (blk[i])
				continue;
			/* The kernel refuses MLX5_IB_DEFAULT_UIDX. */
			if ((b << PROV_UIDX_SHIFT | i) == 0xffffff)
				break;
			__atomic_store_n(&blk[i], rsc, __ATOMIC_RELEASE);
			vc->uidx_used[b]++;
			*uidx = b << PROV_UIDX_SHIFT | i;
			ret = 0;
			goto out;
		}
	}
out:
	pthread_mutex_unlock(&vc->lock);
	return ret;
}

void prov_rsc_clear(struct prov_context *pctx, uint32_t uidx)
{
	struct prov_verbs_ctx *vc = pctx->verbs_ctx;
	uint32_t b = (uidx >> PROV_UIDX_SHIFT) & (PROV_UIDX_BLOCKS - 1);
	struct prov_cq_rsc **blk;

	pthread_mutex_lock(&vc->lock);
	blk = atomic_load(&vc->uidx[b]);
	if (blk && blk[uidx & PROV_UIDX_MASK]) {
		__atomic_store_n(&blk[uidx & PROV_UIDX_MASK], NULL, __ATOMIC_RELEASE);
		vc->uidx_used[b]--;
	}
	pthread_mutex_unlock(&vc->lock);
}

struct prov_cq_rsc *prov_rsc_find(struct prov_context *pctx, uint32_t uidx)
{
	struct prov_cq_rsc **blk;

	if (uidx > 0xffffff)
		return NULL;
	blk = atomic_load_explicit(&pctx->verbs_ctx->uidx[uidx >> PROV_UIDX_SHIFT],
				   memory_order_acquire);
	return blk ? __atomic_load_n(&blk[uidx & PROV_UIDX_MASK], __ATOMIC_ACQUIRE) :
		     NULL;
}

uint32_t prov_random(struct prov_context *pctx)
{
	struct prov_verbs_ctx *vc = pctx->verbs_ctx;
	uint32_t r;

	pthread_mutex_lock(&vc->lock);
	r = (uint32_t)rand_r(&vc->rand_state);
	pthread_mutex_unlock(&vc->lock);
	return r;
}

/*
 * The CQ doorbell page: DEVX's non-cached singleton when there is one (as
 * libmlx5 44 uses nc_uar for cq_uar_reg and uar_page_index), else a page
 * of our own.
 */
static void verbs_ctx_uar(struct prov_context *pctx, struct prov_verbs_ctx *vc)
{
	const struct mlx5dv_devx_uar *nc = prov_devx_nc_uar(pctx);
	struct mlx5be_uar_info info = { 0 };

	if (nc) {
		vc->cq_uar = nc->base_addr;
		vc->cq_uar_page = nc->page_id;
		return;
	}
	if (!pctx->be->uar_alloc) {
		vc->cq_uar_err = EOPNOTSUPP;
		return;
	}
	vc->own_uar = pctx->be->uar_alloc(pctx->bectx, MLX5DV_UAR_ALLOC_TYPE_NC,
					  &info);
	if (!vc->own_uar) {
		vc->cq_uar_err = errno ? errno : ENOMEM;
		return;
	}
	if (!info.base_addr) {
		void *p = mmap(NULL, PROV_UAR_PAGE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_SHARED, pctx->vctx.context.cmd_fd,
			       info.mmap_off);

		if (p == MAP_FAILED) {
			vc->cq_uar_err = errno;
			pctx->be->uar_free(vc->own_uar);
			vc->own_uar = NULL;
			return;
		}
		vc->own_uar_map = p;
		info.base_addr = p;
	}
	vc->cq_uar = info.base_addr;
	vc->cq_uar_page = info.page_id;
}

void prov_verbs_set_ops(struct prov_context *pctx)
{
	prov_cq_set_ops(pctx);
	prov_pd_set_ops(pctx);
	prov_mw_set_ops(pctx);
	prov_mr_odp_set_ops(pctx);
}

int prov_verbs_ctx_init(struct prov_context *pctx)
{
	struct prov_verbs_ctx *vc = calloc(1, sizeof(*vc));

	if (!vc)
		return ENOMEM;
	prov_fork_handlers_init();
	pthread_mutex_init(&vc->lock, NULL);
	CDS_INIT_LIST_HEAD(&vc->odp_mrs);
	vc->rand_state = (unsigned int)time(NULL) ^ (unsigned int)getpid() ^
			 (unsigned int)(uintptr_t)vc;
	pctx->verbs_ctx = vc;
	verbs_ctx_uar(pctx, vc);
	return 0;
}

void prov_verbs_ctx_fini(struct prov_context *pctx)
{
	struct prov_verbs_ctx *vc = pctx->verbs_ctx;

	if (!vc)
		return;
	if (vc->own_uar_map)
		munmap(vc->own_uar_map, PROV_UAR_PAGE_SIZE);
	if (vc->own_uar)
		pctx->be->uar_free(vc->own_uar);
	for (uint32_t b = 0; b < PROV_UIDX_BLOCKS; b++)
		free(atomic_load(&vc->uidx[b]));
	pthread_mutex_destroy(&vc->lock);
	free(vc);
	pctx->verbs_ctx = NULL;
}
