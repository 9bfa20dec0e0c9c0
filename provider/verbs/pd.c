/* SPDX-License-Identifier: MIT */
/*
 * Protection domains, as rdma-core 44 (libibverbs + libmlx5) over the
 * upstream kernel behave:
 *
 *   ibv_alloc_pd    ALLOC_PD; NULL + errno (the command's errno as
 *                   mlx5_cmd_exec maps firmware statuses, ENOMEM)
 *   ibv_dealloc_pd  0, or an errno: EBUSY while MRs, AHs, QPs or SRQs
 *                   use the PD, with no command sent
 *                   (ib_destroy_usecnt); else DEALLOC_PD's errno
 *
 * The PD is a DEVX object of the context's uid, so PRM objects created
 * through DEVX (mlx5dv_init_obj gives pdn) and verbs objects share it.
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

int prov_pd_use(struct ibv_pd *pd)
{
	struct prov_pd *ppd = to_prov_pd(pd);
	int v = atomic_load(&ppd->use);

	do {
		if (v == PROV_PD_DEAD)
			return EINVAL;
	} while (!atomic_compare_exchange_weak(&ppd->use, &v, v + 1));
	return 0;
}

void prov_pd_unuse(struct ibv_pd *pd)
{
	atomic_fetch_sub(&to_prov_pd(pd)->use, 1);
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
	pd->ibpd.handle = prov_handle_alloc(pctx);
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
	/* Nothing may take a use once we have seen none. */
	if (!atomic_compare_exchange_strong(&ppd->use, &expected, PROV_PD_DEAD)) {
		errno = EBUSY;
		return EBUSY;
	}
	ret = prov_obj_destroy(to_prov_context(pd->context), ppd->obj);
	if (ret) {
		atomic_store(&ppd->use, 0);
		errno = ret;
		return ret;
	}
	free(ppd);
	return 0;
}
