/* SPDX-License-Identifier: MIT */
/*
 * The hw backend, compile-only: every backend op mapped to the rdma-core 44
 * call that serves it on a real ConnectX behind the upstream kernel.
 *
 * It is built in CI against the system's rdma-core headers and never linked,
 * so the backend interface cannot grow an entry that real hardware cannot
 * serve.  The hw backend proper runs in a dlmopen() namespace of its own,
 * because the real libibverbs/libmlx5 must not meet our shells.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "backend/backend.h"

extern const struct mlx5be_ops mlx5be_hw_ops;

struct mlx5be_ctx {
	struct ibv_context *ibctx;
};

struct mlx5be_obj {
	struct mlx5dv_devx_obj *obj;
};

struct mlx5be_umem {
	struct mlx5dv_devx_umem *umem;
};

struct mlx5be_uar {
	struct mlx5dv_devx_uar *uar;
};

struct mlx5be_event_channel {
	struct mlx5dv_devx_event_channel *ch;
};

struct mlx5be_cmd_comp {
	struct mlx5dv_devx_cmd_comp *comp;
};

static int hw_errno(int ret)
{
	/* rdma-core returns positive errno values or -1 with errno. */
	if (ret > 0)
		return -ret;
	return ret < 0 ? -errno : 0;
}

static int hw_get_devices(struct mlx5be_device_info *infos, int max)
{
	struct ibv_device **list;
	int n, out = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return -errno;
	for (int i = 0; i < n && out < max; i++) {
		if (!mlx5dv_is_supported(list[i]))
			continue;
		memset(&infos[out], 0, sizeof(infos[out]));
		snprintf(infos[out].name, sizeof(infos[out].name), "%s",
			 ibv_get_device_name(list[i]));
		snprintf(infos[out].dev_name, sizeof(infos[out].dev_name), "%s",
			 list[i]->dev_name);
		snprintf(infos[out].dev_path, sizeof(infos[out].dev_path), "%s",
			 list[i]->dev_path);
		snprintf(infos[out].ibdev_path, sizeof(infos[out].ibdev_path), "%s",
			 list[i]->ibdev_path);
		infos[out].node_guid = ibv_get_device_guid(list[i]);
		out++;
	}
	ibv_free_device_list(list);
	return out;
}

static int hw_open(int index, struct mlx5be_ctx **pctx, int *cmd_fd)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list;
	struct mlx5be_ctx *ctx;
	int n;

	list = ibv_get_device_list(&n);
	if (!list)
		return -errno;
	if (index >= n) {
		ibv_free_device_list(list);
		return -ENODEV;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		ibv_free_device_list(list);
		return -ENOMEM;
	}
	ctx->ibctx = mlx5dv_open_device(list[index], &attr);
	ibv_free_device_list(list);
	if (!ctx->ibctx) {
		free(ctx);
		return -errno;
	}
	*pctx = ctx;
	*cmd_fd = ctx->ibctx->cmd_fd;
	return 0;
}

static int hw_import(int cmd_fd, struct mlx5be_ctx **pctx, int *index)
{
	struct mlx5be_ctx *ctx = calloc(1, sizeof(*ctx));
	struct ibv_device **list;
	int n;

	if (!ctx)
		return -ENOMEM;
	ctx->ibctx = ibv_import_device(cmd_fd);
	if (!ctx->ibctx) {
		free(ctx);
		return -errno;
	}
	*index = -1;
	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]),
			    ibv_get_device_name(ctx->ibctx->device)))
			*index = i;
	if (list)
		ibv_free_device_list(list);
	*pctx = ctx;
	return 0;
}

static void hw_close(struct mlx5be_ctx *ctx)
{
	ibv_close_device(ctx->ibctx);
	free(ctx);
}

static int hw_general_cmd(struct mlx5be_ctx *ctx, const void *in, size_t inlen,
			  void *out, size_t outlen)
{
	return hw_errno(mlx5dv_devx_general_cmd(ctx->ibctx, in, inlen, out, outlen));
}

static struct mlx5be_obj *hw_obj_create(struct mlx5be_ctx *ctx, const void *in,
					size_t inlen, void *out, size_t outlen)
{
	struct mlx5be_obj *obj = calloc(1, sizeof(*obj));

	if (!obj)
		return NULL;
	obj->obj = mlx5dv_devx_obj_create(ctx->ibctx, in, inlen, out, outlen);
	if (!obj->obj) {
		free(obj);
		return NULL;
	}
	return obj;
}

static int hw_obj_modify(struct mlx5be_obj *obj, const void *in, size_t inlen,
			 void *out, size_t outlen)
{
	return hw_errno(mlx5dv_devx_obj_modify(obj->obj, in, inlen, out, outlen));
}

static int hw_obj_query(struct mlx5be_obj *obj, const void *in, size_t inlen,
			void *out, size_t outlen)
{
	return hw_errno(mlx5dv_devx_obj_query(obj->obj, in, inlen, out, outlen));
}

static int hw_obj_query_async(struct mlx5be_obj *obj, const void *in,
			      size_t inlen, size_t outlen, uint64_t wr_id,
			      struct mlx5be_cmd_comp *comp)
{
	return hw_errno(mlx5dv_devx_obj_query_async(obj->obj, in, inlen, outlen,
						    wr_id, comp->comp));
}

static int hw_obj_destroy(struct mlx5be_obj *obj)
{
	int ret = hw_errno(mlx5dv_devx_obj_destroy(obj->obj));

	if (!ret)
		free(obj);
	return ret;
}

static struct mlx5be_cmd_comp *hw_cmd_comp_create(struct mlx5be_ctx *ctx)
{
	struct mlx5be_cmd_comp *comp = calloc(1, sizeof(*comp));

	if (!comp)
		return NULL;
	comp->comp = mlx5dv_devx_create_cmd_comp(ctx->ibctx);
	if (!comp->comp) {
		free(comp);
		return NULL;
	}
	return comp;
}

static void hw_cmd_comp_destroy(struct mlx5be_cmd_comp *comp)
{
	mlx5dv_devx_destroy_cmd_comp(comp->comp);
	free(comp);
}

static int hw_cmd_comp_fd(struct mlx5be_cmd_comp *comp)
{
	return comp->comp->fd;
}

static int hw_cmd_comp_get(struct mlx5be_cmd_comp *comp,
			   struct mlx5be_async_cmd_resp *resp)
{
	struct mlx5dv_devx_async_cmd_hdr *hdr;
	size_t len = sizeof(*hdr) + resp->outlen;
	int ret;

	hdr = malloc(len);
	if (!hdr)
		return -ENOMEM;
	ret = hw_errno(mlx5dv_devx_get_async_cmd_comp(comp->comp, hdr, len));
	if (!ret) {
		resp->wr_id = hdr->wr_id;
		memcpy(resp->out, hdr->out_data, resp->outlen);
	}
	free(hdr);
	return ret;
}

static struct mlx5be_umem *hw_umem_reg(struct mlx5be_ctx *ctx, void *addr,
				       size_t size, uint32_t access,
				       uint64_t pgsz_bitmap, uint32_t *umem_id)
{
	struct mlx5dv_devx_umem_in in = {
		.addr = addr,
		.size = size,
		.access = access,
		.pgsz_bitmap = pgsz_bitmap,
	};
	struct mlx5be_umem *umem = calloc(1, sizeof(*umem));

	if (!umem)
		return NULL;
	umem->umem = mlx5dv_devx_umem_reg_ex(ctx->ibctx, &in);
	if (!umem->umem) {
		free(umem);
		return NULL;
	}
	*umem_id = umem->umem->umem_id;
	return umem;
}

static int hw_umem_dereg(struct mlx5be_umem *umem)
{
	int ret = hw_errno(mlx5dv_devx_umem_dereg(umem->umem));

	if (!ret)
		free(umem);
	return ret;
}

static struct mlx5be_uar *hw_uar_alloc(struct mlx5be_ctx *ctx, uint32_t flags,
				       struct mlx5be_uar_info *info)
{
	struct mlx5be_uar *uar = calloc(1, sizeof(*uar));

	if (!uar)
		return NULL;
	uar->uar = mlx5dv_devx_alloc_uar(ctx->ibctx, flags);
	if (!uar->uar) {
		free(uar);
		return NULL;
	}
	info->base_addr = uar->uar->base_addr;
	info->reg_addr = uar->uar->reg_addr;
	info->page_id = uar->uar->page_id;
	info->mmap_off = uar->uar->mmap_off;
	return uar;
}

static void hw_uar_free(struct mlx5be_uar *uar)
{
	mlx5dv_devx_free_uar(uar->uar);
	free(uar);
}

static int hw_query_eqn(struct mlx5be_ctx *ctx, uint32_t vector, uint32_t *eqn)
{
	return hw_errno(mlx5dv_devx_query_eqn(ctx->ibctx, vector, eqn));
}

static struct mlx5be_event_channel *
hw_event_channel_create(struct mlx5be_ctx *ctx, uint32_t flags)
{
	struct mlx5be_event_channel *ch = calloc(1, sizeof(*ch));

	if (!ch)
		return NULL;
	ch->ch = mlx5dv_devx_create_event_channel(ctx->ibctx, flags);
	if (!ch->ch) {
		free(ch);
		return NULL;
	}
	return ch;
}

static void hw_event_channel_destroy(struct mlx5be_event_channel *ch)
{
	mlx5dv_devx_destroy_event_channel(ch->ch);
	free(ch);
}

static int hw_event_channel_fd(struct mlx5be_event_channel *ch)
{
	return ch->ch->fd;
}

static int hw_event_subscribe(struct mlx5be_event_channel *ch,
			      struct mlx5be_obj *obj, const uint16_t *types,
			      size_t ntypes, uint64_t cookie)
{
	return hw_errno(mlx5dv_devx_subscribe_devx_event(
		ch->ch, obj ? obj->obj : NULL, ntypes * sizeof(*types),
		(uint16_t *)types, cookie));
}

static ssize_t hw_event_read(struct mlx5be_event_channel *ch,
			     struct mlx5be_event *ev, size_t len)
{
	struct mlx5dv_devx_async_event_hdr *hdr;
	size_t hlen = sizeof(*hdr) + sizeof(ev->eqe);
	ssize_t ret;

	hdr = malloc(hlen);
	if (!hdr)
		return -ENOMEM;
	ret = mlx5dv_devx_get_event(ch->ch, hdr, hlen);
	if (ret < 0) {
		ret = -errno;
	} else {
		ev->cookie = hdr->cookie;
		memcpy(ev->eqe, hdr->out_data, sizeof(ev->eqe));
		ret = sizeof(*ev);
	}
	free(hdr);
	return ret;
}

static int hw_query_port(struct mlx5be_ctx *ctx, uint32_t port,
			 struct mlx5be_port_attr *attr)
{
	struct ibv_port_attr pa;
	int ret = hw_errno(ibv_query_port(ctx->ibctx, port, &pa));

	if (ret)
		return ret;
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

static int hw_query_gid(struct mlx5be_ctx *ctx, uint32_t port, uint32_t index,
			struct mlx5be_gid_entry *entry)
{
	struct ibv_gid_entry ge;
	int ret = hw_errno(ibv_query_gid_ex(ctx->ibctx, port, index, &ge, 0));

	if (ret)
		return ret;
	memcpy(entry->gid, ge.gid.raw, sizeof(entry->gid));
	entry->gid_index = ge.gid_index;
	entry->port_num = ge.port_num;
	entry->gid_type = ge.gid_type == IBV_GID_TYPE_ROCE_V2;
	entry->ndev_ifindex = ge.ndev_ifindex;
	return 0;
}

static int hw_gid_l2_addr(struct mlx5be_ctx *ctx, uint32_t port,
			  const uint8_t gid[16], uint8_t mac[6], uint16_t *vlan)
{
	struct ibv_ah_attr ah = { .is_global = 1, .port_num = port };

	memcpy(ah.grh.dgid.raw, gid, 16);
	return hw_errno(ibv_resolve_eth_l2_from_gid(ctx->ibctx, &ah, mac, vlan));
}

static struct mlx5be_obj *hw_steering_root_attach(struct mlx5be_ctx *ctx,
						  const void *match,
						  size_t matchlen,
						  struct mlx5be_obj *dest)
{
	/*
	 * The kernel-owned root is reached through mlx5dv_create_flow() with
	 * a matcher (mlx5dv_create_flow_matcher) and a DEVX destination; the
	 * matcher's mask and the match value are both carried in @match.
	 */
	struct mlx5dv_flow_match_parameters *mp;
	struct mlx5dv_flow_matcher_attr mattr = {
		.type = IBV_FLOW_ATTR_NORMAL,
		.match_criteria_enable = 1u << 0, /* outer headers */
	};
	struct mlx5dv_flow_action_attr act = {
		.type = MLX5DV_FLOW_ACTION_DEST_DEVX,
		.obj = dest->obj,
	};
	struct mlx5dv_flow_matcher *matcher;
	struct mlx5be_obj *obj;

	mp = calloc(1, sizeof(*mp) + matchlen);
	obj = calloc(1, sizeof(*obj));
	if (!mp || !obj)
		goto err;
	mp->match_sz = matchlen;
	memcpy(mp->match_buf, match, matchlen);
	mattr.match_mask = mp;
	matcher = mlx5dv_create_flow_matcher(ctx->ibctx, &mattr);
	if (!matcher)
		goto err;
	if (!mlx5dv_create_flow(matcher, mp, 1, &act)) {
		mlx5dv_destroy_flow_matcher(matcher);
		goto err;
	}
	free(mp);
	return obj;
err:
	free(mp);
	free(obj);
	return NULL;
}

static int hw_clock_info(struct mlx5be_ctx *ctx, struct mlx5be_clock_info *info)
{
	struct mlx5dv_clock_info ci;
	int ret = hw_errno(mlx5dv_get_clock_info(ctx->ibctx, &ci));

	if (ret)
		return ret;
	info->nsec = ci.nsec;
	info->last_cycles = ci.last_cycles;
	info->frac = ci.frac;
	info->mult = ci.mult;
	info->shift = ci.shift;
	info->mask = ci.mask;
	return 0;
}

const struct mlx5be_ops mlx5be_hw_ops = {
	.name = "hw",
	.get_devices = hw_get_devices,
	.open = hw_open,
	.import = hw_import,
	.close = hw_close,
	.general_cmd = hw_general_cmd,
	.obj_create = hw_obj_create,
	.obj_modify = hw_obj_modify,
	.obj_query = hw_obj_query,
	.obj_query_async = hw_obj_query_async,
	.obj_destroy = hw_obj_destroy,
	.cmd_comp_create = hw_cmd_comp_create,
	.cmd_comp_destroy = hw_cmd_comp_destroy,
	.cmd_comp_fd = hw_cmd_comp_fd,
	.cmd_comp_get = hw_cmd_comp_get,
	.umem_reg = hw_umem_reg,
	.umem_dereg = hw_umem_dereg,
	.uar_alloc = hw_uar_alloc,
	.uar_free = hw_uar_free,
	.query_eqn = hw_query_eqn,
	.event_channel_create = hw_event_channel_create,
	.event_channel_destroy = hw_event_channel_destroy,
	.event_channel_fd = hw_event_channel_fd,
	.event_subscribe = hw_event_subscribe,
	.event_read = hw_event_read,
	.query_port = hw_query_port,
	.query_gid = hw_query_gid,
	.gid_l2_addr = hw_gid_l2_addr,
	.steering_root_attach = hw_steering_root_attach,
	.clock_info = hw_clock_info,
	.progress = NULL,	/* a real device needs no help */
	.ctx_lost = NULL,	/* the kernel shares the device with a child */
};
