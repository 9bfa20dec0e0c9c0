/* SPDX-License-Identifier: MIT */
/*
 * Protection domains, as rdma-core 44 (libibverbs + libmlx5) over the
 * upstream kernel behave:
 *
 *   ibv_alloc_pd    ALLOC_PD; NULL + errno (the command's errno as
 *                   mlx5_cmd_exec maps firmware statuses, ENOMEM)
 *   ibv_dealloc_pd  0, or an errno: EBUSY while MRs, AHs, QPs or SRQs
 *                   use the PD (those of importers on the PD imported
 *                   too), with no command sent
 *                   (ib_destroy_usecnt); else DEALLOC_PD's errno
 *
 *   ibv_import_pd   a PD of the context's file by its handle
 *                   (MLX5_IB_METHOD_PD_QUERY gives the pdn): NULL +
 *                   ENOENT for a handle naming nothing, EINVAL for one
 *                   naming an object of another type (the uverbs
 *                   lookup); EOPNOTSUPP where the backend has no uverbs
 *                   handles
 *   ibv_unimport_pd frees the userspace PD only
 *
 *   ibv_alloc_parent_domain  (mlx5_alloc_parent_domain) NULL + EINVAL
 *                   without a PD or with unknown comp_mask bits, ENOMEM;
 *                   no command: the parent domain is the provider's alone
 *   ibv_dealloc_pd on a parent domain: EBUSY while QPs or CQs use it;
 *                   MRs, AHs and SRQs on it do not count (libmlx5 counts
 *                   only QPs and CQs) and may outlive it
 *
 * The PD is a DEVX object of the context's uid, so PRM objects created
 * through DEVX (mlx5dv_init_obj gives pdn) and verbs objects share it.
 * Its handle is the backend's uverbs handle where it has them, so a
 * context imported from this one's cmd_fd can import it.
 */
#include <errno.h>
#include <stdlib.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/context.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/mana/mana_prov.h"

uint32_t prov_pd_pdn(struct ibv_pd *pd)
{
	return to_prov_pd(pd)->pdn;
}

/* Drops a reference; an imported PD or a parent domain goes with its
 * last. */
static void pd_put(struct prov_pd *ppd)
{
	if (atomic_fetch_sub(&ppd->use, 1) == 1 &&
	    (ppd->imported || ppd->protection))
		free(ppd);
}

/* Takes a reference unless deallocation began: 0 or EINVAL. */
static int pd_get(struct prov_pd *ppd)
{
	int v = atomic_load(&ppd->use);

	do {
		if (v == PROV_PD_DEAD)
			return EINVAL;
	} while (!atomic_compare_exchange_weak(&ppd->use, &v, v + 1));
	return 0;
}

int prov_pd_use(struct ibv_pd *pd)
{
	struct prov_context *pctx = to_prov_context(pd->context);
	struct prov_pd *ppd = to_prov_pd(pd);
	int err;

	if (ppd->protection) {
		atomic_fetch_add(&ppd->use, 1);
		err = prov_pd_use(&ppd->protection->ibpd);
		if (err)
			pd_put(ppd);
		return err;
	}
	err = pd_get(ppd);
	if (err)
		return err;
	/* The kernel PD is the original's: its use count is there, and a
	 * PD the original deallocated is no PD any more (EINVAL). */
	if (ppd->imported && pctx->be->uobj_hold(pctx->bectx, pd->handle, 1)) {
		pd_put(ppd);
		return EINVAL;
	}
	return 0;
}

void prov_pd_unuse(struct ibv_pd *pd)
{
	struct prov_context *pctx = to_prov_context(pd->context);
	struct prov_pd *ppd = to_prov_pd(pd);

	if (ppd->protection)
		prov_pd_unuse(&ppd->protection->ibpd);
	else if (ppd->imported)
		pctx->be->uobj_hold(pctx->bectx, pd->handle, -1);
	pd_put(ppd);
}

void prov_pd_parent_hold(struct ibv_pd *pd)
{
	struct prov_pd *ppd = to_prov_pd(pd);

	if (!prov_pd_is_parent(pd))
		return;
	atomic_fetch_add(&ppd->use, 1);
	atomic_fetch_add(&ppd->busy, 1);
}

void prov_pd_parent_release(struct ibv_pd *pd)
{
	struct prov_pd *ppd = to_prov_pd(pd);

	if (!prov_pd_is_parent(pd))
		return;
	atomic_fetch_sub(&ppd->busy, 1);
	pd_put(ppd);
}

const struct prov_qbuf_ext *prov_pd_ext(struct ibv_pd *pd)
{
	struct prov_pd *ppd = to_prov_pd(pd);

	return prov_pd_is_parent(pd) && ppd->alloc.alloc && ppd->alloc.free ?
	       &ppd->alloc : NULL;
}

struct prov_td *prov_pd_td(struct ibv_pd *pd)
{
	return prov_pd_is_parent(pd) ? to_prov_pd(pd)->td : NULL;
}

/* Whether objects of importers use the PD (the kernel's use count). */
static bool pd_held(struct prov_context *pctx, struct prov_pd *ppd)
{
	struct mlx5be_uobj u;

	return pctx->be->uobj_query &&
	       !pctx->be->uobj_query(pctx->bectx, ppd->ibpd.handle,
				     MLX5BE_UOBJ_PD, &u) && u.users;
}

/* The PD's handle: the backend's uverbs handle, or one of our own. */
static int pd_handle_add(struct prov_context *pctx, struct prov_pd *pd)
{
	struct mlx5be_uobj u = { .type = MLX5BE_UOBJ_PD, .pdn = pd->pdn };

	if (!pctx->be->uobj_add) {
		pd->ibpd.handle = prov_handle_alloc(pctx);
		return 0;
	}
	return -pctx->be->uobj_add(pctx->bectx, &u, &pd->ibpd.handle);
}

static void pd_handle_del(struct prov_context *pctx, struct prov_pd *pd)
{
	if (pctx->be->uobj_del)
		pctx->be->uobj_del(pctx->bectx, pd->ibpd.handle);
}

MLX5EMU_ABI(ibv_alloc_pd);
struct ibv_pd *mlx5emu_abi_ibv_alloc_pd(struct ibv_context *context)
{
	if (prov_mana_is(context))
		return prov_mana_alloc_pd(context);
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };
	struct prov_context *pctx;
	struct prov_pd *pd;
	int err;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	pctx = to_prov_context(context);
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	pd->obj = prov_obj_create(pctx, in, sizeof(in), out, sizeof(out));
	if (!pd->obj) {
		err = errno;
		free(pd);
		errno = err;
		return NULL;
	}
	pd->pdn = PRM_GET(alloc_pd_out, out, pd);
	atomic_init(&pd->use, 0);
	pd->ibpd.context = context;
	err = pd_handle_add(pctx, pd);
	if (err) {
		prov_obj_destroy(pctx, pd->obj);
		free(pd);
		errno = err;
		return NULL;
	}
	return &pd->ibpd;
}

/* libmlx5's PARENT_DOMAIN_INIT_ATTR comp_mask check. */
#define PROV_PARENT_DOMAIN_MASK                                               \
	(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |                              \
	 IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)

/* The alloc_parent_domain op (mlx5_alloc_parent_domain). */
static struct ibv_pd *
prov_alloc_parent_domain(struct ibv_context *context,
			 struct ibv_parent_domain_init_attr *attr)
{
	struct prov_pd *prot, *pd;

	(void)context;
	/* ibv_check_alloc_parent_domain(): a protection domain is a must. */
	if (!attr || !attr->pd ||
	    (attr->comp_mask & ~(uint32_t)PROV_PARENT_DOMAIN_MASK)) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	/* A parent domain given as the PD stands for its protection domain. */
	prot = to_prov_pd(attr->pd);
	if (prot->protection)
		prot = prot->protection;
	if (pd_get(prot)) {
		free(pd);
		errno = EINVAL;
		return NULL;
	}
	if (attr->td) {
		pd->td = (struct prov_td *)attr->td;
		prov_td_hold(pd->td);
	}
	pd->protection = prot;
	pd->pdn = prot->pdn;
	atomic_init(&pd->use, 1);	/* the application's */
	atomic_init(&pd->busy, 0);
	/* ibv_initialize_parent_domain(): the contained PD's context and
	 * handle, so libibverbs and the kernel see that PD. */
	pd->ibpd.context = prot->ibpd.context;
	pd->ibpd.handle = prot->ibpd.handle;
	pd->alloc.pd = &pd->ibpd;
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		pd->alloc.alloc = attr->alloc;
		pd->alloc.free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->alloc.pd_context = attr->pd_context;
	return &pd->ibpd;
}

/* mlx5_dealloc_parent_domain(): EBUSY while QPs or CQs are on it. */
static int pd_parent_dealloc(struct prov_pd *ppd)
{
	if (atomic_load(&ppd->busy) > 0) {
		errno = EBUSY;
		return EBUSY;
	}
	pd_put(ppd->protection);
	if (ppd->td)
		prov_td_release(ppd->td);
	pd_put(ppd);
	return 0;
}

void prov_pd_set_ops(struct prov_context *pctx)
{
	pctx->vctx.alloc_parent_domain = prov_alloc_parent_domain;
	prov_td_set_ops(pctx);
}

MLX5EMU_ABI(ibv_dealloc_pd);
int mlx5emu_abi_ibv_dealloc_pd(struct ibv_pd *pd)
{
	if (pd && prov_mana_is(pd->context))
		return prov_mana_dealloc_pd(pd);
	struct prov_pd *ppd;
	int expected = 0;
	int ret;

	if (!pd) {
		errno = EINVAL;
		return EINVAL;
	}
	ppd = to_prov_pd(pd);
	if (ppd->protection)
		return pd_parent_dealloc(ppd);
	/* The firmware PD is the original context's to deallocate. */
	if (ppd->imported) {
		errno = EOPNOTSUPP;
		return EOPNOTSUPP;
	}
	/* Nothing may take a use once we have seen none. */
	if (!atomic_compare_exchange_strong(&ppd->use, &expected, PROV_PD_DEAD)) {
		errno = EBUSY;
		return EBUSY;
	}
	if (pd_held(to_prov_context(pd->context), ppd)) {
		atomic_store(&ppd->use, 0);
		errno = EBUSY;
		return EBUSY;
	}
	ret = prov_obj_destroy(to_prov_context(pd->context), ppd->obj);
	if (ret) {
		atomic_store(&ppd->use, 0);
		errno = ret;
		return ret;
	}
	pd_handle_del(to_prov_context(pd->context), ppd);
	free(ppd);
	return 0;
}

MLX5EMU_ABI(ibv_import_pd);
struct ibv_pd *mlx5emu_abi_ibv_import_pd(struct ibv_context *context,
					 uint32_t pd_handle)
{
	/* libmana has no import_pd: libibverbs' dummy op answers */
	if (prov_mana_is(context))
		return prov_mana_unsupported();
	struct prov_context *pctx = to_prov_context(context);
	struct mlx5be_uobj u;
	struct prov_pd *pd;
	int err;

	if (!pctx->be->uobj_query) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	err = -pctx->be->uobj_query(pctx->bectx, pd_handle, MLX5BE_UOBJ_PD, &u);
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	pd->pdn = u.pdn;
	pd->imported = true;
	atomic_init(&pd->use, 1);	/* the application's */
	pd->ibpd.context = context;
	pd->ibpd.handle = pd_handle;
	return &pd->ibpd;
}

MLX5EMU_ABI(ibv_unimport_pd);
void mlx5emu_abi_ibv_unimport_pd(struct ibv_pd *pd)
{
	/* libibverbs' dummy unimport_pd does nothing */
	if (pd && prov_mana_is(pd->context))
		return;
	/* libmlx5 would free the userspace half of an allocated PD as well;
	 * ours holds the use count its MRs and QPs drop, so it stays. */
	if (pd && to_prov_pd(pd)->imported)
		pd_put(to_prov_pd(pd));
}
