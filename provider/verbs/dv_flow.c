/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_create_flow_matcher, mlx5dv_destroy_flow_matcher and
 * mlx5dv_create_flow, as rdma-core 44's libmlx5 (verbs.c) over the
 * upstream kernel (mlx5_ib's MLX5_IB_OBJECT_FLOW_MATCHER and
 * MLX5_IB_METHOD_CREATE_FLOW, drivers/infiniband/hw/mlx5/fs.c) behave.
 * This is how DEVX programs hook their own flow tables below the kernel's
 * NIC receive root, which they may not replace: a rule of the matcher's
 * mask and criteria and the flow's value, at the matcher's priority,
 * forwarding to a raw packet or RSS QP (its TIR) or a DEVX TIR or flow
 * table, or dropping, with a flow tag and a DEVX flow counter if asked.
 * The flow is destroyed with ibv_destroy_flow.
 *
 * Errors (NULL + errno; destroy returns the errno):
 *   EOPNOTSUPP  libmlx5: unknown matcher comp_mask bits, a type other
 *               than IBV_FLOW_ATTR_NORMAL, two destinations, a
 *               destination with drop, two counters, an unknown action;
 *               and tables other than NIC RX, default-miss and flow
 *               action objects, which this device does not offer
 *   EINVAL      libmlx5: two tags; mlx5_ib: a mask or value longer than
 *               fte_match_param, a flow without destination or drop, a
 *               QP that is neither a raw packet nor an RSS QP, a DEVX
 *               object that is no TIR or flow table, a tag of 24 bits
 *   ENOMEM      a matcher priority past the last bypass priority (15)
 *   EBUSY       destroying a matcher that flows still use
 *   EPERM       a process without CAP_NET_RAW (mlx5_ib)
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "prm/prm.h"
#include "provider/core/context.h"
#include "provider/devx/devx.h"
#include "provider/verbs/flow.h"
#include "provider/verbs/qp.h"
#include "provider/mana/mana_prov.h"
#include "shell/abi_export.h"

struct mlx5dv_flow_matcher {
	struct ibv_context *context;
	uint8_t criteria_enable;
	uint16_t priority;
	size_t len;
	uint8_t mask[PRM_ST_SZ_BYTES(fte_match_param)];
	atomic_int flows;		/* flows made from it */
};

MLX5EMU_ABI(mlx5dv_create_flow_matcher);
struct mlx5dv_flow_matcher *
mlx5emu_abi_mlx5dv_create_flow_matcher(struct ibv_context *context,
				       struct mlx5dv_flow_matcher_attr *attr)
{
	/* libmlx5: no dv ops for a device not its own */
	if (prov_mana_is(context))
		return prov_mana_unsupported();
	struct mlx5dv_flow_matcher *m;

	if (attr->comp_mask & ~(uint64_t)MLX5DV_FLOW_MATCHER_MASK_FT_TYPE ||
	    attr->type != IBV_FLOW_ATTR_NORMAL) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!attr->match_mask ||
	    attr->match_mask->match_sz > sizeof(m->mask) ||
	    !attr->match_mask->match_sz) {
		errno = EINVAL;
		return NULL;
	}
	/* Only the NIC receive tables are offered. */
	if ((attr->comp_mask & MLX5DV_FLOW_MATCHER_MASK_FT_TYPE &&
	     attr->ft_type != MLX5DV_FLOW_TABLE_TYPE_NIC_RX) || attr->flags) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	m->context = context;
	m->criteria_enable = attr->match_criteria_enable;
	m->priority = attr->priority;
	m->len = attr->match_mask->match_sz;
	memcpy(m->mask, attr->match_mask->match_buf, m->len);
	return m;
}

MLX5EMU_ABI(mlx5dv_destroy_flow_matcher);
int mlx5emu_abi_mlx5dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *m)
{
	if (atomic_load(&m->flows))
		return EBUSY;
	free(m);
	return 0;
}

static struct mlx5be_obj *dv_flow_devx(const struct mlx5dv_devx_obj *obj)
{
	return obj ? obj->be : NULL;
}

/* libmlx5's action loop: what each action sets, and its conflicts. */
static int dv_flow_actions(size_t n, const struct mlx5dv_flow_action_attr *a,
			   struct mlx5be_flow_act *act, bool *drop)
{
	bool dest = false, tag = false, counter = false;

	*drop = false;
	for (size_t i = 0; i < n; i++) {
		switch (a[i].type) {
		case MLX5DV_FLOW_ACTION_DEST_IBV_QP:
		case MLX5DV_FLOW_ACTION_DEST_DEVX:
			if (dest || *drop)
				return EOPNOTSUPP;
			dest = true;
			act->dest = a[i].type == MLX5DV_FLOW_ACTION_DEST_DEVX ?
				    dv_flow_devx(a[i].obj) :
				    prov_qp_flow_dest(a[i].qp);
			if (!act->dest)
				return EINVAL;
			break;
		case MLX5DV_FLOW_ACTION_TAG:
			if (tag)
				return EINVAL;
			tag = true;
			act->has_tag = true;
			act->tag = a[i].tag_value;
			break;
		case MLX5DV_FLOW_ACTION_COUNTERS_DEVX:
			if (counter)
				return EOPNOTSUPP;
			counter = true;
			act->counter = dv_flow_devx(a[i].obj);
			if (!act->counter)
				return EINVAL;
			break;
		case MLX5DV_FLOW_ACTION_DROP:
			if (dest || *drop)
				return EOPNOTSUPP;
			*drop = true;
			break;
		default:
			/* Default miss and flow action objects: not offered. */
			return EOPNOTSUPP;
		}
	}
	return dest || *drop ? 0 : EINVAL;
}

MLX5EMU_ABI(mlx5dv_create_flow);
struct ibv_flow *
mlx5emu_abi_mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
			       struct mlx5dv_flow_match_parameters *value,
			       size_t num_actions,
			       struct mlx5dv_flow_action_attr actions_attr[])
{
	struct prov_context *pctx = to_prov_context(matcher->context);
	struct mlx5be_flow_act act = { 0 };
	struct mlx5be_flow_match m = { 0 };
	struct mlx5be_obj *rule;
	struct ibv_flow *flow;
	bool drop;
	int err;

	err = dv_flow_actions(num_actions, actions_attr, &act, &drop);
	if (!err && (!value || value->match_sz > sizeof(matcher->mask)))
		err = EINVAL;
	if (!err && matcher->priority > PROV_FLOW_LAST_PRIO)
		err = ENOMEM;
	if (!err)
		err = prov_qp_net_raw_check(pctx);
	if (err) {
		errno = err;
		return NULL;
	}
	m.criteria_enable = matcher->criteria_enable;
	m.priority = matcher->priority;
	m.mask = matcher->mask;
	m.value = value->match_buf;
	m.len = value->match_sz < matcher->len ? value->match_sz : matcher->len;
	rule = pctx->be->steering_root_attach(pctx->bectx, &m, &act);
	if (!rule)
		return NULL;
	flow = prov_flow_wrap(matcher->context, rule, &matcher->flows);
	if (!flow) {
		err = errno;
		pctx->be->obj_destroy(rule);
		errno = err;
	}
	return flow;
}
