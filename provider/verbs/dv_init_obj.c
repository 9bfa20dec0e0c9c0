/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_init_obj, as libmlx5 44 behaves: the context comes from the first
 * object named in obj_type (QP, CQ, SRQ, RWQ, DM, AH, PD order); no known
 * type at all is EINVAL; unknown bits beside a known one are ignored; the
 * types are then filled in that order, stopping at the first error, which
 * is returned (not -1/errno).
 *
 * Served: MLX5DV_OBJ_QP (qp_dv.c), MLX5DV_OBJ_CQ (cq.c;
 * from then on the application polls the CQ and a QP's reset leaves its
 * CQEs alone), MLX5DV_OBJ_SRQ (srq.c), MLX5DV_OBJ_AH (the address vector)
 * MLX5DV_OBJ_RWQ (wq.c), and MLX5DV_OBJ_PD (pdn).  DM belongs to objects
 * that do not exist (alloc_dm is not offered); naming it is EOPNOTSUPP.  The
 * MLX5_1.0 version differs for CQs only: its cq_uar points at the
 * context's pointer to the CQ doorbell page.
 */
#include <errno.h>

#include "provider/devx/devx.h"
#include "shell/abi_export.h"
#include "provider/verbs/ah.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/verbs/wq.h"
#include "provider/mana/mana_prov.h"

#define PROV_DV_OBJ_KNOWN                                                     \
	(MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ | MLX5DV_OBJ_SRQ | MLX5DV_OBJ_RWQ |     \
	 MLX5DV_OBJ_DM | MLX5DV_OBJ_AH | MLX5DV_OBJ_PD)

static int init_pd(struct ibv_pd *pd, struct mlx5dv_pd *out)
{
	if (!pd || !out)
		return EINVAL;
	out->comp_mask = 0;
	out->pdn = prov_pd_pdn(pd);
	return 0;
}

static int init_ah(struct ibv_ah *ah, struct mlx5dv_ah *out)
{
	if (!ah || !out)
		return EINVAL;
	out->comp_mask = 0;
	out->av = prov_ah_av(ah);
	return 0;
}

/* libmlx5's get_context_from_obj(): the first object's, in its order
 * (NULL for a missing one).  A DM never gets here: none is served. */
static struct ibv_context *dv_obj_context(struct mlx5dv_obj *obj,
					  uint64_t obj_type)
{
	if (obj_type & MLX5DV_OBJ_QP)
		return obj->qp.in ? obj->qp.in->context : NULL;
	if (obj_type & MLX5DV_OBJ_CQ)
		return obj->cq.in ? obj->cq.in->context : NULL;
	if (obj_type & MLX5DV_OBJ_SRQ)
		return obj->srq.in ? obj->srq.in->context : NULL;
	if (obj_type & MLX5DV_OBJ_RWQ)
		return obj->rwq.in ? obj->rwq.in->context : NULL;
	if (obj_type & MLX5DV_OBJ_AH)
		return obj->ah.in ? obj->ah.in->context : NULL;
	if (obj_type & MLX5DV_OBJ_PD)
		return obj->pd.in ? obj->pd.in->context : NULL;
	return NULL;
}

MLX5EMU_ABI(mlx5dv_init_obj);
int mlx5emu_abi_mlx5dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	static const uint64_t unserved[] = { MLX5DV_OBJ_DM };
	int ret = 0;

	if (!obj || !(obj_type & PROV_DV_OBJ_KNOWN))
		return EINVAL;
	for (unsigned int i = 0; i < sizeof(unserved) / sizeof(unserved[0]); i++)
		if (obj_type & unserved[i])
			return EOPNOTSUPP;
	/* libmlx5: no dv ops for a device not its own */
	if (prov_mana_is(dv_obj_context(obj, obj_type)))
		return EOPNOTSUPP;
	/* libmlx5's order: QP, CQ, SRQ, RWQ, DM, AH, PD; first error wins. */
	if (obj_type & MLX5DV_OBJ_QP)
		ret = prov_qp_dv(obj->qp.in, obj->qp.out);
	if (!ret && (obj_type & MLX5DV_OBJ_CQ))
		ret = prov_cq_dv(obj->cq.in, obj->cq.out);
	if (!ret && (obj_type & MLX5DV_OBJ_SRQ))
		ret = prov_srq_dv(obj->srq.in, obj->srq.out);
	if (!ret && (obj_type & MLX5DV_OBJ_RWQ))
		ret = prov_rwq_dv(obj->rwq.in, obj->rwq.out);
	if (!ret && (obj_type & MLX5DV_OBJ_AH))
		ret = init_ah(obj->ah.in, obj->ah.out);
	if (!ret && (obj_type & MLX5DV_OBJ_PD))
		ret = init_pd(obj->pd.in, obj->pd.out);
	return ret;
}

/* mlx5dv_init_obj@MLX5_1.0: no symbol of rdma-core's headers names it. */
extern __typeof__(mlx5dv_init_obj) mlx5emu_abi_mlx5dv_init_obj__MLX5_1_0
	__attribute__((visibility("default")));
int mlx5emu_abi_mlx5dv_init_obj__MLX5_1_0(struct mlx5dv_obj *obj,
					  uint64_t obj_type)
{
	int ret = mlx5emu_abi_mlx5dv_init_obj(obj, obj_type);

	if (!ret && (obj_type & MLX5DV_OBJ_CQ))
		obj->cq.out->cq_uar = &prov_verbs_ctx(to_prov_context(
			obj->cq.in->context))->cq_uar;
	return ret;
}
