/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv changes to a live QP that libmlx5 44 makes with its own RTS2RTS
 * through DEVX (mlx5.c _mlx5dv_modify_qp_udp_sport):
 *
 *   mlx5dv_modify_qp_udp_sport  RC and UC QPs in RTS (ibv_qp's state)
 *       only, and only when the device advertises rts2rts_qp_udp_sport;
 *       anything else EOPNOTSUPP.  RTS2RTS with bit UDP_SPORT of
 *       opt_param_mask_95_32 and the port in the primary path: from then
 *       on the QP's RoCE v2 packets leave from that UDP source port.  A
 *       firmware refusal is its status's errno.
 */
#include <errno.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/caps.h"
#include "provider/core/cmd.h"
#include "provider/core/context.h"
#include "provider/verbs/qp.h"
#include "provider/mana/mana_prov.h"

MLX5EMU_ABI(mlx5dv_modify_qp_udp_sport);
int mlx5emu_abi_mlx5dv_modify_qp_udp_sport(struct ibv_qp *ibqp,
					   uint16_t udp_sport)
{
	/* libmlx5: no dv ops for a device not its own */
	if (ibqp && prov_mana_is(ibqp->context))
		return EOPNOTSUPP;
	uint8_t in[PRM_ST_SZ_BYTES(rts2rts_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(rts2rts_qp_out)] = { 0 };
	struct prov_qp *qp = prov_qp_real(to_prov_qp(ibqp));

	if ((ibqp->qp_type != IBV_QPT_RC && ibqp->qp_type != IBV_QPT_UC) ||
	    ibqp->state != IBV_QPS_RTS ||
	    !PROV_CAP_GEN(qp->pctx, rts2rts_qp_udp_sport))
		return EOPNOTSUPP;
	PRM_SET(rts2rts_qp_in, in, opcode, MLX5_CMD_OP_RTS2RTS_QP);
	PRM_SET(rts2rts_qp_in, in, qpn, ibqp->qp_num);
	PRM_SET64(rts2rts_qp_in, in, opt_param_mask_95_32,
		  MLX5_QPC_OPT_MASK_32_UDP_SPORT);
	PRM_SET(rts2rts_qp_in, in, qpc.primary_address_path.udp_sport,
		udp_sport);
	return prov_obj_modify(qp->pctx, qp->obj, in, sizeof(in), out,
			       sizeof(out));
}
