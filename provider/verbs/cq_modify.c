/* SPDX-License-Identifier: MIT */
/*
 * ibv_modify_cq (CQ moderation), as libmlx5 44 (mlx5_modify_cq, which is
 * libibverbs' ibv_cmd_modify_cq) over the upstream kernel
 * (ib_uverbs_ex_modify_cq, mlx5_ib_modify_cq) does it:
 *
 *   libibverbs  EINVAL for attr_mask bits from IBV_CQ_ATTR_RESERVED up
 *   uverbs      EINVAL for an empty attr_mask
 *   mlx5_ib     EOPNOTSUPP without the cq_moderation capability; EINVAL
 *               for a period past MLX5_MAX_CQ_PERIOD (the width of
 *               cqc.cq_period)
 *   mlx5_core   MODIFY_CQ (op_mod 0) selecting PERIOD and COUNT, both
 *               written whatever the caller meant to change; a refusal
 *               is its status's errno
 *
 * Moderation delays the CQ's completion events, never its CQEs (the
 * device side is emu/engine/eng_cq.c).
 */
#include <errno.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/core/caps.h"
#include "provider/core/cmd.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"

int prov_cq_modify(struct ibv_cq *ibcq, struct ibv_modify_cq_attr *attr)
{
	struct prov_cq *cq = to_prov_cq(ibcq);
	struct prov_context *pctx = cq->pctx;
	uint8_t in[PRM_ST_SZ_BYTES(modify_cq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(modify_cq_out)] = { 0 };
	void *cqc = PRM_ADDR_OF(modify_cq_in, in, cq_context);

	if (attr->attr_mask >= IBV_CQ_ATTR_RESERVED || !attr->attr_mask)
		return EINVAL;
	if (!PROV_CAP_GEN(pctx, cq_moderation))
		return EOPNOTSUPP;
	if (attr->moderate.cq_period > PROV_MAX_CQ_PERIOD)
		return EINVAL;
	PRM_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	PRM_SET(modify_cq_in, in, cqn, cq->cqn);
	PRM_SET(modify_cq_in, in,
		modify_field_select_resize_field_select.modify_field_select.modify_field_select,
		MLX5_CQ_MODIFY_PERIOD | MLX5_CQ_MODIFY_COUNT);
	PRM_SET(cqc, cqc, cq_period, attr->moderate.cq_period);
	PRM_SET(cqc, cqc, cq_max_count, attr->moderate.cq_count);
	return prov_obj_modify(pctx, cq->obj, in, sizeof(in), out, sizeof(out));
}
