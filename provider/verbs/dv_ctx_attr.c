/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_set_context_attr, as libmlx5 44 answers it: the buffer
 * allocators (MLX5DV_CTX_ATTR_BUF_ALLOCATORS) are copied into the context
 * and used for the queue buffers and doorbell record pages allocated from
 * then on (provider/core/qbuf.c); any other attribute is ENOTSUP.
 * Returned, not set in errno.
 */
#include <errno.h>

#include <infiniband/mlx5dv.h>

#include "shell/abi_export.h"
#include "provider/core/context.h"
#include "provider/mana/mana_prov.h"

MLX5EMU_ABI(mlx5dv_set_context_attr);
int mlx5emu_abi_mlx5dv_set_context_attr(struct ibv_context *ctx,
					enum mlx5dv_set_ctx_attr_type type,
					void *attr)
{
	/* libmlx5: no dv ops for a device not its own */
	if (prov_mana_is(ctx))
		return EOPNOTSUPP;
	struct prov_context *pctx = to_prov_context(ctx);
	const struct mlx5dv_ctx_allocators *a = attr;

	switch (type) {
	case MLX5DV_CTX_ATTR_BUF_ALLOCATORS:
		pctx->xalloc.alloc = a->alloc;
		pctx->xalloc.free = a->free;
		pctx->xalloc.data = a->data;
		return 0;
	default:
		return ENOTSUP;
	}
}
