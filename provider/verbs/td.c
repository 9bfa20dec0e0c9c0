/* SPDX-License-Identifier: MIT */
/*
 * Thread domains, as rdma-core 44's libmlx5 gives them (mlx5_alloc_td,
 * mlx5_dealloc_td):
 *
 *   ibv_alloc_td    NULL + EINVAL for comp_mask bits (none are known),
 *                   ENOMEM; else a BlueFlame register of the TD's own,
 *                   taken from the context's pool of dedicated registers
 *                   (mlx5dv_devx_alloc_uar's: a new UAR page, ALLOC_UAR,
 *                   when the pool is empty)
 *   ibv_dealloc_td  EBUSY while a parent domain names the TD; else the
 *                   register goes back to the pool
 *
 * A QP created on a parent domain with a TD rings the TD's register, with
 * no lock on it nor on its queues: the application promised one thread
 * at a time.  The TD is no kernel object and sends no command of its own.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "provider/core/context.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/qp.h"

struct prov_td {
	struct ibv_td ibtd;
	struct prov_qp_bf bf;
	atomic_int refcount;	/* 1 + the parent domains naming it */
};

struct prov_qp_bf *prov_td_bf(struct prov_td *td)
{
	return &td->bf;
}

void prov_td_hold(struct prov_td *td)
{
	atomic_fetch_add(&td->refcount, 1);
}

void prov_td_release(struct prov_td *td)
{
	atomic_fetch_sub(&td->refcount, 1);
}

static struct ibv_td *prov_alloc_td(struct ibv_context *context,
				    struct ibv_td_init_attr *init_attr)
{
	struct prov_td *td;
	int err;

	if (!init_attr || init_attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}
	err = prov_qp_bf_dedicated_init(to_prov_context(context), &td->bf);
	if (err) {
		free(td);
		errno = err;
		return NULL;
	}
	td->ibtd.context = context;
	atomic_init(&td->refcount, 1);
	return &td->ibtd;
}

static int prov_dealloc_td(struct ibv_td *ibtd)
{
	struct prov_td *td = (struct prov_td *)ibtd;

	if (atomic_load(&td->refcount) > 1)
		return EBUSY;
	prov_qp_bf_dedicated_fini(&td->bf);
	free(td);
	return 0;
}

void prov_td_set_ops(struct prov_context *pctx)
{
	pctx->vctx.alloc_td = prov_alloc_td;
	pctx->vctx.dealloc_td = prov_dealloc_td;
}
