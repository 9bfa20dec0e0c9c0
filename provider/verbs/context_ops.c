/* SPDX-License-Identifier: MIT */
/*
 * The verbs ops a context dispatches through, and the per-area init/fini
 * hooks.  The inline verbs of <infiniband/verbs.h> call the op slots
 * directly; a slot left NULL makes the inline wrapper fail with EOPNOTSUPP,
 * as rdma-core's dummy ops do.
 */
#include "provider/devx/devx.h"
#include "provider/verbs/caps.h"
#include "provider/verbs/context.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/query.h"
#include "provider/verbs/verbs_ctx.h"

/* Each area adds its ops here: prov_<area>_set_ops(pctx). */
void prov_context_set_ops(struct prov_context *pctx)
{
	(void)pctx;
	prov_query_set_ops(pctx);
	prov_verbs_set_ops(pctx);
	prov_qp_set_ops(pctx);
}

/* Areas add { init, fini } rows here, in dependency order. */
static const struct {
	int (*init)(struct prov_context *pctx);
	void (*fini)(struct prov_context *pctx);
} prov_areas[] = {
	{ prov_caps_init, prov_caps_fini },	/* first: the others read caps */
	{ prov_devx_ctx_init, prov_devx_ctx_fini },
	{ prov_verbs_ctx_init, prov_verbs_ctx_fini },	/* after devx: its NC UAR */
	{ prov_qp_ctx_init, prov_qp_ctx_fini },	/* after devx: its UAR pool */
	{ NULL, NULL },
};

#define PROV_NUM_AREAS (sizeof(prov_areas) / sizeof(prov_areas[0]))

int prov_context_init_areas(struct prov_context *pctx)
{
	for (unsigned int i = 0; i < PROV_NUM_AREAS; i++) {
		int ret = prov_areas[i].init ? prov_areas[i].init(pctx) : 0;

		if (ret) {
			while (i--)
				if (prov_areas[i].fini)
					prov_areas[i].fini(pctx);
			return ret;
		}
	}
	return 0;
}

void prov_context_fini_areas(struct prov_context *pctx)
{
	for (unsigned int i = PROV_NUM_AREAS; i--;)
		if (prov_areas[i].fini)
			prov_areas[i].fini(pctx);
}
