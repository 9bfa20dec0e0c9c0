/* SPDX-License-Identifier: MIT */
/*
 * The kernel services a DEVX user needs beside firmware, through rdma-core:
 * port attributes, GID entries, the MAC of a destination GID, rules at the
 * kernel-owned steering root, the clock page, and the CAP_NET_RAW check
 * uverbs makes before a raw packet QP or a flow.
 *
 * Several of these are inline functions in rdma-core's verbs.h that call an
 * exported function by name; such a name would bind to our own
 * libibverbs.so.1 here, so the inline's logic is written out over the
 * context's ops and the namespace's entries (hw_sym).
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend/hw/hw.h"

int hw_query_port(struct mlx5be_ctx *ctx, uint32_t port,
		  struct mlx5be_port_attr *attr)
{
	struct verbs_context *vctx;
	struct ibv_port_attr pa;
	int ret;

	if (port > UINT8_MAX)
		return -EINVAL;
	memset(&pa, 0, sizeof(pa));
	hw_enter();
	/* ___ibv_query_port(): the context's op, else the compat entry. */
	vctx = verbs_get_ctx_op(ctx->ibctx, query_port);
	if (vctx)
		ret = vctx->query_port(ctx->ibctx, (uint8_t)port, &pa, sizeof(pa));
	else
		ret = hw_sym.query_port(ctx->ibctx, (uint8_t)port,
					(struct _compat_ibv_port_attr *)&pa);
	hw_leave();
	if (ret)
		return hw_ret(ret);
	memset(attr, 0, sizeof(*attr));
	attr->state = pa.state;
	attr->max_mtu = pa.max_mtu;
	attr->active_mtu = pa.active_mtu;
	attr->link_layer = pa.link_layer;
	attr->active_width = pa.active_width;
	attr->active_speed = pa.active_speed;
	attr->phys_state = pa.phys_state;
	attr->port_cap_flags = pa.port_cap_flags;
	attr->port_cap_flags2 = pa.port_cap_flags2;
	attr->gid_tbl_len = pa.gid_tbl_len;
	attr->pkey_tbl_len = pa.pkey_tbl_len;
	attr->max_msg_sz = pa.max_msg_sz;
	attr->lid = pa.lid;
	attr->sm_lid = pa.sm_lid;
	attr->lmc = pa.lmc;
	attr->sm_sl = pa.sm_sl;
	attr->max_vl_num = pa.max_vl_num;
	attr->subnet_timeout = pa.subnet_timeout;
	attr->init_type_reply = pa.init_type_reply;
	attr->bad_pkey_cntr = pa.bad_pkey_cntr;
	attr->qkey_viol_cntr = pa.qkey_viol_cntr;
	return 0;
}

int hw_query_gid(struct mlx5be_ctx *ctx, uint32_t port, uint32_t index,
		 struct mlx5be_gid_entry *entry)
{
	struct ibv_gid_entry ge;
	int ret;

	memset(&ge, 0, sizeof(ge));
	hw_enter();
	/* ibv_query_gid_ex() is _ibv_query_gid_ex with the entry's size. */
	ret = hw_sym.query_gid_ex(ctx->ibctx, port, index, &ge, 0, sizeof(ge));
	hw_leave();
	if (ret)
		return hw_ret(ret);
	memcpy(entry->gid, ge.gid.raw, sizeof(entry->gid));
	entry->gid_index = ge.gid_index;
	entry->port_num = ge.port_num;
	entry->gid_type = ge.gid_type == IBV_GID_TYPE_ROCE_V2;
	entry->ndev_ifindex = ge.ndev_ifindex;
	return 0;
}

int hw_gid_l2_addr(struct mlx5be_ctx *ctx, uint32_t port, uint32_t sgid_index,
		   const uint8_t dgid[16], uint8_t mac[6], uint16_t *vlan)
{
	struct ibv_ah_attr ah = {
		.is_global = 1,
		.port_num = (uint8_t)port,
		.grh.sgid_index = (uint8_t)sgid_index,
	};
	int ret;

	if (port > UINT8_MAX || sgid_index > UINT8_MAX)
		return -EINVAL;
	memcpy(ah.grh.dgid.raw, dgid, 16);
	hw_enter();
	ret = hw_sym.resolve_eth_l2_from_gid(ctx->ibctx, &ah, mac, vlan);
	/* A negative errno, or -1 from ibv_query_gid() with errno set. */
	if (ret == -1) {
		int err = hw_errno();

		ret = -(err ? err : EINVAL);
	}
	hw_leave();
	return hw_ret(ret);
}

static struct mlx5dv_flow_match_parameters *hw_match_param(const void *buf,
							   size_t len)
{
	struct mlx5dv_flow_match_parameters *p = calloc(1, sizeof(*p) + len);

	if (p) {
		p->match_sz = len;
		memcpy(p->match_buf, buf, len);
	}
	return p;
}

/* The mlx5dv actions of a rule: its destination or drop, tag, counter. */
static int hw_flow_actions(const struct mlx5be_flow_act *a,
			   struct mlx5dv_flow_action_attr act[3])
{
	int n = 0;

	if (a->dest) {
		if (a->dest->kind != HW_OBJ_DEVX)
			return -1;
		act[n].type = MLX5DV_FLOW_ACTION_DEST_DEVX;
		act[n++].obj = a->dest->devx;
	} else {
		act[n++].type = MLX5DV_FLOW_ACTION_DROP;
	}
	if (a->has_tag) {
		act[n].type = MLX5DV_FLOW_ACTION_TAG;
		act[n++].tag_value = a->tag;
	}
	if (a->counter) {
		if (a->counter->kind != HW_OBJ_DEVX)
			return -1;
		act[n].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
		act[n++].obj = a->counter->devx;
	}
	return n;
}

struct mlx5be_obj *hw_steering_root_attach(struct mlx5be_ctx *ctx,
					   const struct mlx5be_flow_match *match,
					   const struct mlx5be_flow_act *fa)
{
	struct mlx5dv_flow_match_parameters *mask, *value;
	struct mlx5dv_flow_matcher_attr mattr = {
		.type = IBV_FLOW_ATTR_NORMAL,
		.priority = match->priority,
		.match_criteria_enable = match->criteria_enable,
	};
	struct mlx5dv_flow_action_attr act[3] = {};
	struct mlx5be_obj *obj;
	int err = 0, nact;

	nact = hw_flow_actions(fa, act);
	if (nact < 0) {
		errno = EINVAL;
		return NULL;
	}
	mask = hw_match_param(match->mask, match->len);
	value = hw_match_param(match->value, match->len);
	obj = calloc(1, sizeof(*obj));
	if (!mask || !value || !obj) {
		err = ENOMEM;
		goto out;
	}
	obj->kind = HW_OBJ_FLOW;
	mattr.match_mask = mask;
	hw_enter();
	obj->matcher = hw_sym.create_flow_matcher(ctx->ibctx, &mattr);
	if (obj->matcher) {
		obj->flow = hw_sym.create_flow(obj->matcher, value,
					       (size_t)nact, act);
		if (!obj->flow) {
			err = hw_errno();
			hw_sym.destroy_flow_matcher(obj->matcher);
		}
	} else {
		err = hw_errno();
	}
	hw_leave();
	if (!obj->flow && !err)
		err = EIO;
out:
	free(mask);
	free(value);
	if (err) {
		free(obj);
		errno = err;
		return NULL;
	}
	return obj;
}

int hw_clock_info(struct mlx5be_ctx *ctx, struct mlx5be_clock_info *info)
{
	struct mlx5dv_clock_info ci;
	int ret;

	hw_enter();
	ret = hw_sym.get_clock_info(ctx->ibctx, &ci);
	hw_leave();
	if (ret)
		return hw_ret(ret);
	info->nsec = ci.nsec;
	info->last_cycles = ci.last_cycles;
	info->frac = ci.frac;
	info->mult = ci.mult;
	info->shift = ci.shift;
	info->mask = ci.mask;
	return 0;
}

/*
 * The internal timer as libmlx5's mlx5_read_clock() reads it: the init
 * segment page rdma-core mapped at the kernel's core clock offset (handed
 * out by mlx5dv_query_device), high word, low word, high word again, once
 * more if the high word moved.  EOPNOTSUPP where nothing is mapped.
 */
int hw_read_clock(struct mlx5be_ctx *ctx, uint64_t *cycles)
{
	struct mlx5dv_context dv = {
		.comp_mask = MLX5DV_CONTEXT_MASK_HCA_CORE_CLOCK,
	};
	const volatile uint32_t *reg;
	uint32_t hi = 0, lo = 0, hi1;
	int ret;

	hw_enter();
	ret = hw_sym.query_device(ctx->ibctx, &dv);
	hw_leave();
	if (ret)
		return hw_ret(ret);
	if (!(dv.comp_mask & MLX5DV_CONTEXT_MASK_HCA_CORE_CLOCK) ||
	    !dv.hca_core_clock)
		return -EOPNOTSUPP;
	reg = dv.hca_core_clock;
	for (int i = 0; i < 2; i++) {
		hi = be32toh(reg[0]);
		lo = be32toh(reg[1]);
		hi1 = be32toh(reg[0]);
		if (hi == hi1)
			break;
	}
	*cycles = (uint64_t)hi << 32 | lo;
	return 0;
}

/* The real context's async event file, made non-blocking at open: what
 * reaches it are the unaffiliated events (every object is a DEVX one,
 * whose events go to DEVX event channels). */
int hw_async_event_fd(struct mlx5be_ctx *ctx)
{
	return ctx->ibctx->async_fd;
}

static bool hw_event_unaffiliated(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
	case IBV_EVENT_DEVICE_FATAL:
		return true;
	default:
		return false;
	}
}

/*
 * ibv_get_async_event itself, not a read() of the fd: libmlx5 marks its
 * context fatal there on DEVICE_FATAL.  An affiliated event names a verbs
 * object, and this context has none, so it is passed over unacknowledged
 * (there is no object whose count an ack would advance).
 */
int hw_async_event_read(struct mlx5be_ctx *ctx, struct mlx5be_async_event *ev)
{
	struct ibv_async_event e;
	int ret = 0;

	hw_enter();
	for (;;) {
		if (hw_sym.get_async_event(ctx->ibctx, &e)) {
			int err = hw_errno();

			ret = -(err ? err : EIO);
			break;
		}
		if (!hw_event_unaffiliated(e.event_type))
			continue;
		ev->event_type = e.event_type;
		ev->port_num = e.event_type == IBV_EVENT_DEVICE_FATAL ?
			       0 : e.element.port_num;
		hw_sym.ack_async_event(&e);
		break;
	}
	hw_leave();
	return ret;
}

/*
 * uverbs' capable(CAP_NET_RAW) for this process: the real kernel judges
 * the DEVX objects themselves, but the verbs it would refuse are ours, so
 * the check is made here as the kernel makes it (effective set).
 */
int hw_net_raw_check(struct mlx5be_ctx *ctx)
{
	(void)ctx;
	return mlx5be_proc_net_raw() ? 0 : -EPERM;
}
