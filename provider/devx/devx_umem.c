/* SPDX-License-Identifier: MIT */
/*
 * DEVX user memory: mlx5dv_devx_umem_reg, mlx5dv_devx_umem_reg_ex and
 * mlx5dv_devx_umem_dereg.
 *
 * As libmlx5 44: umem_reg_ex refuses a comp_mask bit other than
 * MLX5DV_UMEM_MASK_DMABUF with EOPNOTSUPP, and a dma-buf request whose fd is
 * -1 with EBADF; umem_reg asks for every page size from 4 KiB up.  The
 * backend (the kernel) checks access flags, size, page sizes and that the
 * range is mapped (EINVAL / EFAULT).
 *
 * dma-buf backed umems: the emulated device has no dma-buf importer, so a
 * request with a valid fd fails cleanly with EOPNOTSUPP (a closed fd is
 * EBADF, as dma_buf_get() says).
 *
 * Fork tracking (provider/core/fork_mem.c) as libmlx5 does it: the range
 * is marked before the request and unmarked when it fails or after a
 * successful dereg; a marking that fails fails the call with its errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "provider/core/device.h"
#include "provider/core/fork_mem.h"
#include "provider/devx/devx.h"
#include "shell/abi_export.h"

/* libmlx5's order: the range is kept from children (fork_mem.c) before
 * the request reaches the kernel, and given back when it fails. */
static struct mlx5dv_devx_umem *devx_umem_reg(struct ibv_context *context,
					      const struct mlx5dv_devx_umem_in *in)
{
	struct prov_context *pctx = to_prov_context(context);
	struct prov_devx_umem *umem;
	int err;

	if (!pctx->be->umem_reg) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	umem = calloc(1, sizeof(*umem));
	if (!umem) {
		errno = ENOMEM;
		return NULL;
	}
	if (prov_dontfork_range(in->addr, in->size)) {
		err = errno;
		goto err_free;
	}
	if (in->comp_mask & MLX5DV_UMEM_MASK_DMABUF) {
		/* dma_buf_get(): a closed fd is EBADF; any other, no
		 * importer here. */
		err = in->dmabuf_fd == -1 ||
		      fcntl(in->dmabuf_fd, F_GETFD) < 0 ? EBADF : EOPNOTSUPP;
		goto err_fork;
	}
	umem->be = pctx->be->umem_reg(pctx->bectx, in->addr, in->size,
				      in->access, in->pgsz_bitmap,
				      &umem->dv.umem_id);
	if (!umem->be) {
		err = errno;
		goto err_fork;
	}
	umem->context = context;
	umem->addr = in->addr;
	umem->size = in->size;
	prov_devx_track(pctx, &umem->node, &pctx->devx_ctx->umems);
	return &umem->dv;

err_fork:
	prov_dofork_range(in->addr, in->size);
err_free:
	free(umem);
	errno = err;
	return NULL;
}

MLX5EMU_ABI(mlx5dv_devx_umem_reg);
struct mlx5dv_devx_umem *mlx5emu_abi_mlx5dv_devx_umem_reg(struct ibv_context *context,
							  void *addr, size_t size,
							  uint32_t access)
{
	/* libmlx5: no dv ops for a device not its own */
	if (prov_device_mana_ctx(context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	struct mlx5dv_devx_umem_in in = {
		.addr = addr,
		.size = size,
		.access = access,
		.pgsz_bitmap = UINT64_MAX & ~(uint64_t)(PROV_UAR_PAGE_SIZE - 1),
	};

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	return devx_umem_reg(context, &in);
}

MLX5EMU_ABI(mlx5dv_devx_umem_reg_ex);
struct mlx5dv_devx_umem *mlx5emu_abi_mlx5dv_devx_umem_reg_ex(struct ibv_context *ctx,
							     struct mlx5dv_devx_umem_in *umem_in)
{
	if (prov_device_mana_ctx(ctx)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!ctx || !umem_in) {
		errno = EINVAL;
		return NULL;
	}
	if (umem_in->comp_mask & ~(uint64_t)MLX5DV_UMEM_MASK_DMABUF) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return devx_umem_reg(ctx, umem_in);
}

MLX5EMU_ABI(mlx5dv_devx_umem_dereg);
int mlx5emu_abi_mlx5dv_devx_umem_dereg(struct mlx5dv_devx_umem *dv_devx_umem)
{
	struct prov_devx_umem *umem = (struct prov_devx_umem *)dv_devx_umem;
	const struct mlx5be_ops *be;
	int ret;

	if (!umem)
		return prov_err(EINVAL);
	be = to_prov_context(umem->context)->be;
	if (!be->umem_dereg)
		return prov_err(EOPNOTSUPP);
	/* A umem an object still uses stays registered (EBUSY). */
	ret = be->umem_dereg(umem->be);
	if (ret)
		return prov_be_err(ret);
	prov_devx_untrack(to_prov_context(umem->context), &umem->node);
	prov_dofork_range(umem->addr, umem->size);
	free(umem);
	return 0;
}
