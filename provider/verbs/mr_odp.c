/* SPDX-License-Identifier: MIT */
/*
 * On-demand paging MRs (IBV_ACCESS_ON_DEMAND) and ibv_advise_mr, as the
 * upstream kernel gives them (mlx5_ib odp.c: create_user_odp_mr,
 * mlx5_ib_advise_mr_prefetch; uverbs ADVISE_MR).
 *
 * ODP is offered when the device has `pg` and the backend registers ODP
 * umems (umem_reg_odp: the emulated kernel; DEVX umems on hardware take no
 * ODP).  An ODP MR is the usual MTT mkey over a umem that pins nothing:
 * the range need not be mapped at registration, and each device access
 * sees the mapping of its moment.  An implicit ODP MR (addr NULL, length
 * SIZE_MAX, iova 0) covers the user address space: here one umem over
 * [4 KiB, 2^47) in 8 TiB MTT pages (the first page from its offset: the
 * page at 0 is never mapped) with an mkey at the same addresses over it,
 * so that an iova is the address it names, where mlx5_ib builds
 * a KSM mkey of children on demand (which needs fixed_buffer_size,
 * null_mkey and umr_extended_translation_offset; this one needs none of
 * them, so IMPLICIT goes with ODP).  Its ibv_mr length is SIZE_MAX.
 *
 * ibv_advise_mr (mlx5_ib_advise_mr), in the kernel's order:
 *   EOPNOTSUPP  an advice other than PREFETCH, PREFETCH_WRITE and
 *               PREFETCH_NO_FAULT;
 *   EINVAL      flags other than IBV_ADVISE_MR_FLAG_FLUSH
 *               (uverbs_get_flags32); no SGE (the list attribute's
 *               minimum size);
 *   ENOENT      with FLUSH, an lkey naming no ODP MR of the PD, or one
 *               that is not writable for PREFETCH_WRITE
 *               (get_prefetchable_mr); EINVAL for the same without FLUSH
 *               (init_prefetch_work);
 *   EFAULT      with FLUSH, a range outside the MR, or a page that cannot
 *               be faulted in (for write with PREFETCH_WRITE); never with
 *               PREFETCH_NO_FAULT, which maps only what is there.
 * Without FLUSH the prefetch is queued work whose failure nobody sees:
 * here there is nothing to do once the keys are checked.
 */
#include <errno.h>
#include <stdint.h>

#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/mr.h"
#include "provider/verbs/verbs_ctx.h"

/* The x86-64 user address space (TASK_SIZE, 4-level paging) but its
 * first page, and the largest page a umem MTT entry takes (log_page_size
 * 31). */
#define ODP_IMPLICIT_START UINT64_C(4096)
#define ODP_IMPLICIT_END (UINT64_C(1) << 47)
#define ODP_IMPLICIT_PGSZ (UINT64_C(1) << 43)

bool prov_mr_odp_offered(struct prov_context *pctx)
{
	return PROV_CAP_GEN(pctx, pg) && pctx->be->umem_reg_odp;
}

bool prov_mr_odp_implicit(const void *addr, size_t length)
{
	return !addr && length == SIZE_MAX;
}

void *prov_mr_odp_start(void *addr, size_t length)
{
	return prov_mr_odp_implicit(addr, length) ?
		       (void *)(uintptr_t)ODP_IMPLICIT_START : addr;
}

uint64_t prov_mr_odp_span(const void *addr, size_t length)
{
	return prov_mr_odp_implicit(addr, length) ?
		       ODP_IMPLICIT_END - ODP_IMPLICIT_START : length;
}

struct mlx5be_umem *prov_mr_umem_reg(struct prov_context *pctx, void *addr,
				     size_t length, unsigned int access,
				     uint32_t *umem_id)
{
	if (!(access & IBV_ACCESS_ON_DEMAND))
		return prov_umem_reg(pctx, addr, length, access, umem_id);
	access &= ~IBV_ACCESS_ON_DEMAND;
	if (prov_mr_odp_implicit(addr, length))
		return pctx->be->umem_reg_odp(pctx->bectx,
					      prov_mr_odp_start(addr, length),
					      prov_mr_odp_span(addr, length),
					      access, ODP_IMPLICIT_PGSZ, umem_id);
	/* MLX5_ADAPTER_PAGE_SIZE and up, as prov_umem_reg. */
	return pctx->be->umem_reg_odp(pctx->bectx, addr, length, access,
				      UINT64_MAX & ~(uint64_t)(PROV_UAR_PAGE_SIZE - 1),
				      umem_id);
}

void prov_mr_odp_track(struct prov_context *pctx, struct prov_mr *mr)
{
	struct prov_verbs_ctx *vc = prov_verbs_ctx(pctx);

	pthread_mutex_lock(&vc->lock);
	cds_list_add(&mr->odp_node, &vc->odp_mrs);
	pthread_mutex_unlock(&vc->lock);
}

void prov_mr_odp_untrack(struct prov_context *pctx, struct prov_mr *mr)
{
	struct prov_verbs_ctx *vc = prov_verbs_ctx(pctx);

	pthread_mutex_lock(&vc->lock);
	cds_list_del(&mr->odp_node);
	pthread_mutex_unlock(&vc->lock);
}

/* get_prefetchable_mr(): an ODP MR of @pd with @lkey, writable when the
 * advice writes.  The fields read stay while the caller holds vc->lock
 * (rereg and dereg take it to leave the list). */
static struct prov_mr *odp_prefetchable(struct prov_verbs_ctx *vc,
					struct ibv_pd *pd, uint32_t lkey,
					bool write)
{
	struct prov_mr *mr;

	cds_list_for_each_entry(mr, &vc->odp_mrs, odp_node) {
		if (mr->ibmr.lkey != lkey)
			continue;
		if (mr->ibmr.pd != pd ||
		    (write && !(mr->access & IBV_ACCESS_LOCAL_WRITE)))
			return NULL;
		return mr;
	}
	return NULL;
}

/* pagefault_mr() of one SGE: its range in the MR, then its pages. */
static int odp_prefetch_sge(struct prov_context *pctx, struct prov_mr *mr,
			    const struct ibv_sge *sge, uint32_t advice)
{
	/* Where the mkey starts, in iova and in memory (mr.c's mkey). */
	size_t length = mr->ibmr.length;
	uint64_t span = prov_mr_odp_span(mr->ibmr.addr, length);
	uint64_t iova = (uintptr_t)prov_mr_odp_start((void *)(uintptr_t)mr->iova,
						     length);
	uint8_t *va = prov_mr_odp_start(mr->ibmr.addr, length);
	uint64_t off = sge->addr - iova;

	if (sge->addr < iova || off > span || span - off < sge->length)
		return EFAULT;
	if (advice == IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return 0;	/* MLX5_PF_FLAGS_SNAPSHOT: what is there */
	return -pctx->be->umem_prefetch(
		mr->umem, va + off, sge->length,
		advice == IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE);
}

static int odp_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sge)
{
	struct prov_context *pctx = to_prov_context(pd->context);
	struct prov_verbs_ctx *vc = prov_verbs_ctx(pctx);
	bool flush = flags & IBV_ADVISE_MR_FLAG_FLUSH;
	bool write = advice == IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	int err = 0;

	/* IB_UVERBS_METHOD_ADVISE_MR needs the driver's advise_mr, which
	 * mlx5_ib has only with ODP. */
	if (!prov_mr_odp_offered(pctx))
		return EOPNOTSUPP;
	if (advice != IBV_ADVISE_MR_ADVICE_PREFETCH &&
	    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return EOPNOTSUPP;
	if ((flags & ~(uint32_t)IBV_ADVISE_MR_FLAG_FLUSH) || !num_sge || !sg_list)
		return EINVAL;
	pthread_mutex_lock(&vc->lock);
	for (uint32_t i = 0; i < num_sge && !err; i++) {
		struct prov_mr *mr = odp_prefetchable(vc, pd, sg_list[i].lkey,
						      write);

		if (!mr)
			err = flush ? ENOENT : EINVAL;
		else if (flush)
			err = odp_prefetch_sge(pctx, mr, &sg_list[i], advice);
	}
	pthread_mutex_unlock(&vc->lock);
	return err;
}

void prov_mr_odp_set_ops(struct prov_context *pctx)
{
	pctx->vctx.advise_mr = odp_advise_mr;	/* as libmlx5: always set */
}
