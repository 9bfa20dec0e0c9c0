/* SPDX-License-Identifier: MIT */
/*
 * Steering rules of verbs (flow.c: ibv_create_flow) and mlx5dv (dv_flow.c:
 * mlx5dv_create_flow): both are rules at the kernel's NIC receive root,
 * destroyed with ibv_destroy_flow.
 */
#ifndef MLX5EMU_PROVIDER_VERBS_FLOW_H
#define MLX5EMU_PROVIDER_VERBS_FLOW_H

#include <stdatomic.h>

#include <infiniband/verbs.h>

#include "backend/backend.h"
#include "provider/core/context.h"

/* MLX5_IB_FLOW_LAST_PRIO: the last regular bypass priority a verbs rule
 * or an mlx5dv matcher may ask for (ENOMEM past it). */
#define PROV_FLOW_LAST_PRIO 15

/* An ibv_flow over a backend rule (taken over on success); @uses, if not
 * NULL, counts the flows alive (an mlx5dv matcher's).  NULL + errno. */
struct ibv_flow *prov_flow_wrap(struct ibv_context *ibctx,
				struct mlx5be_obj *rule, atomic_int *uses);

/* The TIR a flow of @qp forwards to (a raw packet or RSS QP's); NULL with
 * errno EINVAL for any other QP. */
struct mlx5be_obj *prov_qp_flow_dest(struct ibv_qp *qp);
/* uverbs' capable(CAP_NET_RAW) for flows: 0 or EPERM. */
int prov_qp_net_raw_check(struct prov_context *pctx);

/* The context's ibv_create_flow and ibv_destroy_flow. */
void prov_flow_set_ops(struct prov_context *pctx);

#endif /* MLX5EMU_PROVIDER_VERBS_FLOW_H */
