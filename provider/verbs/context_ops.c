/* SPDX-License-Identifier: MIT */
/*
 * The verbs ops a context dispatches through.  The inline verbs of
 * <infiniband/verbs.h> call these slots directly; a slot left NULL makes the
 * inline wrapper fail with EOPNOTSUPP, as rdma-core's dummy ops do.
 */
#include "provider/verbs/context.h"

void prov_context_set_ops(struct prov_context *pctx)
{
	/* Filled as the verbs they serve are implemented. */
	(void)pctx;
}
