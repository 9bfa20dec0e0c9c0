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

uint32_t prov_pd_pdn(struct ibv_pd *pd)
{
	return to_prov_pd(pd)->pdn;
}

/* Drops a reference; an imported PD goes with its last. */
static void pd_put(struct prov_pd *ppd)
{
	if (atomic_fetch_sub(&ppd->use, 1) == 1 && ppd->imported)
		free(ppd);
}

int prov_pd_use(struct ibv_pd *pd)
{
	struct prov_context *pctx = to_prov_context(pd->context);
	struct prov_pd *ppd = to_prov_pd(pd);
	int v = atomic_load(&ppd->use);

	do {
		if (v == PROV_PD_DEAD)
			return EINVAL;
	} while (!atomic_compare_exchange_weak(&ppd->use, &v, v + 1));
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

	if (ppd->imported)
		pctx->be->uobj_hold(pctx->bectx, pd->handle, -1);
	pd_put(ppd);
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

MLX5EMU_ABI(ibv_dealloc_pd);
int mlx5emu_abi_ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct prov_pd *ppd;
	int expected = 0;
	int ret;

	if (!pd) {
		errno = EINVAL;
		return EINVAL;
	}
	ppd = to_prov_pd(pd);
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
	/* libmlx5 would free the userspace half of an allocated PD as well;
	 * ours holds the use count its MRs and QPs drop, so it stays. */
	if (pd && to_prov_pd(pd)->imported)
		pd_put(to_prov_pd(pd));
}
