/* SPDX-License-Identifier: MIT */
/*
 * The emulator's side of the backend interface: the ops table the provider
 * binds to, mapping each entry to what the kernel layer does.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "emu/device/dev.h"
#include "emu/device/dev_identity.h"
#include "emu/firmware/fw.h"
#include "emu/engine/eng.h"
#include "emu/kernel/kern.h"

/* The provider passes its reasons through to the engine unchanged. */
_Static_assert((int)MLX5BE_PROGRESS_DOORBELL == (int)EMU_ENG_WHY_DOORBELL &&
	       (int)MLX5BE_PROGRESS_POLL == (int)EMU_ENG_WHY_POLL &&
	       (int)MLX5BE_PROGRESS_WAIT == (int)EMU_ENG_WHY_WAIT,
	       "progress reasons");

static int kern_get_devices(struct mlx5be_device_info *infos, int max)
{
	int ret = emu_devices_init();
	int n;

	if (ret)
		return ret;
	n = emu_devices_count();
	if (n > max)
		n = max;
	for (int i = 0; i < n; i++) {
		const struct emu_dev_identity *id = emu_device_identity(i);

		memset(&infos[i], 0, sizeof(infos[i]));
		snprintf(infos[i].name, sizeof(infos[i].name), "%s", id->name);
		snprintf(infos[i].dev_name, sizeof(infos[i].dev_name), "%s",
			 id->dev_name);
		snprintf(infos[i].dev_path, sizeof(infos[i].dev_path), "%s",
			 id->dev_path);
		snprintf(infos[i].ibdev_path, sizeof(infos[i].ibdev_path), "%s",
			 id->ibdev_path);
		infos[i].node_guid = htobe64(id->node_guid);
		infos[i].vendor_id = id->vendor_id;
		infos[i].vendor_part_id = id->vendor_part_id;
	}
	return n;
}

static const struct emu_port_identity *kern_port(struct mlx5be_ctx *ctx,
						 uint32_t port)
{
	const struct emu_dev_identity *id = emu_device_identity(ctx->uctx->kdev->index);

	if (!id || kern_uctx_lost(ctx->uctx) || port < 1 ||
	    port > (uint32_t)id->num_ports)
		return NULL;
	return &id->ports[port - 1];
}

static int kern_query_port(struct mlx5be_ctx *ctx, uint32_t port,
			   struct mlx5be_port_attr *attr)
{
	const struct emu_port_identity *p = kern_port(ctx, port);
	bool up = false;

	if (!p)
		return kern_uctx_lost(ctx->uctx) ? -EIO : -EINVAL;
	emu_fw_port_get_link(ctx->uctx->kdev->fw, port, &up);
	memset(attr, 0, sizeof(*attr));
	/* A RoCE port is ACTIVE/LinkUp or DOWN/Disabled, as mlx5_ib reports
	 * from the vport state. */
	attr->state = up ? p->state : 1;
	attr->phys_state = up ? p->phys_state : 3;
	attr->max_mtu = p->max_mtu;
	attr->active_mtu = p->active_mtu;
	attr->link_layer = p->link_layer;
	attr->active_width = p->active_width;
	attr->active_speed = p->active_speed;
	attr->port_cap_flags = p->port_cap_flags;
	attr->gid_tbl_len = (int)emu_fw_gid_table_size(ctx->uctx->kdev->fw);
	attr->pkey_tbl_len = (uint16_t)p->pkey_tbl_len;
	attr->max_msg_sz = p->max_msg_sz;
	attr->lid = p->lid;
	attr->sm_lid = p->sm_lid;
	attr->lmc = p->lmc;
	attr->sm_sl = p->sm_sl;
	/* max_vl_num stays 0: mlx5_query_port_roce never sets it. */
	return 0;
}

static int kern_query_gid(struct mlx5be_ctx *ctx, uint32_t port, uint32_t index,
			  struct mlx5be_gid_entry *entry)
{
	struct emu_fw_gid_entry g;
	int ret;

	if (!kern_port(ctx, port))
		return kern_uctx_lost(ctx->uctx) ? -EIO : -EINVAL;
	ret = emu_fw_gid_get(ctx->uctx->kdev->fw, port, index, &g);
	if (ret)
		return ret;
	if (!g.valid)
		return -ENODATA;
	memcpy(entry->gid, g.gid, sizeof(entry->gid));
	entry->gid_index = index;
	entry->port_num = port;
	entry->gid_type = g.roce_version == 2;	/* RoCE v2 */
	entry->ndev_ifindex = 0;		/* no netdev in the process */
	return 0;
}

static int kern_gid_l2_addr(struct mlx5be_ctx *ctx, uint32_t port,
			    const uint8_t gid[16], uint8_t mac[6], uint16_t *vlan)
{
	if (!kern_port(ctx, port))
		return kern_uctx_lost(ctx->uctx) ? -EIO : -EINVAL;
	*vlan = 0xffff;	/* no VLAN, as rdma-core reports it */
	return emu_mac_from_gid(gid, mac);
}

static int kern_obj_destroy_op(struct mlx5be_obj *obj)
{
	return kern_obj_destroy(obj);
}

static struct mlx5be_event_channel *kern_event_channel_create(struct mlx5be_ctx *ctx,
							      uint32_t flags)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct mlx5be_obj *kern_steering_root_attach(struct mlx5be_ctx *ctx,
						    const void *match,
						    size_t matchlen,
						    struct mlx5be_obj *dest)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static int kern_clock_info(struct mlx5be_ctx *ctx, struct mlx5be_clock_info *info)
{
	return kern_uctx_lost(ctx->uctx) ? -EIO : -EOPNOTSUPP;
}

/* The engine runs inline here when it is free (emu/engine). */
static void kern_progress(struct mlx5be_ctx *ctx, unsigned int why)
{
	(void)ctx;
	emu_eng_progress(why);
}

static bool kern_ctx_lost(struct mlx5be_ctx *ctx)
{
	return kern_uctx_lost(ctx->uctx);
}

const struct mlx5be_ops mlx5be_emu_ops = {
	.name = "emu",
	.get_devices = kern_get_devices,
	.open = kern_ctx_open,
	.import = kern_ctx_import,
	.close = kern_ctx_close,
	.general_cmd = kern_general_cmd,
	.obj_create = kern_obj_create,
	.obj_modify = kern_obj_modify,
	.obj_query = kern_obj_query,
	.obj_query_async = kern_obj_query_async,
	.obj_destroy = kern_obj_destroy_op,
	.cmd_comp_create = kern_cmd_comp_create,
	.cmd_comp_destroy = kern_cmd_comp_destroy,
	.cmd_comp_fd = kern_cmd_comp_fd,
	.cmd_comp_get = kern_cmd_comp_get,
	.umem_reg = kern_umem_reg,
	.umem_dereg = kern_umem_dereg,
	.uar_alloc = kern_uar_alloc,
	.uar_free = kern_uar_free,
	.query_eqn = kern_query_eqn,
	.event_channel_create = kern_event_channel_create,
	.query_port = kern_query_port,
	.query_gid = kern_query_gid,
	.gid_l2_addr = kern_gid_l2_addr,
	.steering_root_attach = kern_steering_root_attach,
	.clock_info = kern_clock_info,
	.progress = kern_progress,
	.ctx_lost = kern_ctx_lost,
};
