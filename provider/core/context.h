/* SPDX-License-Identifier: MIT */
/*
 * The provider's device context: one open device, one backend context (and
 * so one DEVX uid), the verbs_context the inline verbs dispatch through, and
 * the state the provider keeps per context.
 */
#ifndef MLX5EMU_PROVIDER_VERBS_CONTEXT_H
#define MLX5EMU_PROVIDER_VERBS_CONTEXT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "provider/backend/backend.h"

struct prov_device;

struct prov_context {
	struct prov_device *dev;
	const struct mlx5be_ops *be;
	struct mlx5be_ctx *bectx;
	int async_wr_fd;	/* write end of the pipe behind async_fd */
	bool devx;		/* opened with MLX5DV_CONTEXT_FLAGS_DEVX */
	pthread_mutex_t lock;	/* guards the per-context state below */

	/* Per-area state: each area's file owns its fields and frees them in
	 * its fini hook (prov_context_fini_areas). */
	struct prov_caps *caps;		/* provider/verbs/caps.c */
	struct prov_devx_ctx *devx_ctx;	/* provider/devx/ */
	struct prov_verbs_ctx *verbs_ctx;	/* provider/verbs/verbs_ctx.c */
	struct prov_qp_ctx *qp_ctx;	/* provider/verbs/qp_ctx.c */

	struct verbs_context vctx;	/* must hold ibv_context last */
};

static inline struct prov_context *to_prov_context(struct ibv_context *ibctx)
{
	return (struct prov_context *)((char *)ibctx -
				       offsetof(struct prov_context, vctx.context));
}

/* Opens @dev; @devx says whether the application asked for DEVX. */
struct ibv_context *prov_context_open(struct prov_device *dev, bool devx);
int prov_context_close(struct ibv_context *ibctx);

/* Fills the verbs ops the provider implements (context_ops.c). */
void prov_context_set_ops(struct prov_context *pctx);

/*
 * Per-area hooks called at open (after the backend context exists; an error
 * fails the open) and at close (before the backend context goes), in the
 * order listed in context_ops.c.  Each area provides its pair.
 */
int prov_context_init_areas(struct prov_context *pctx);
void prov_context_fini_areas(struct prov_context *pctx);

#endif /* MLX5EMU_PROVIDER_VERBS_CONTEXT_H */
