/* SPDX-License-Identifier: MIT */
/*
 * The emulator's side of the backend interface: the ops table the provider
 * binds to, mapping each entry to what the kernel layer does.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "emu/device/dev.h"
#include "emu/device/dev_identity.h"
#include "emu/firmware/fw.h"
#include "emu/firmware/fw_objs.h"
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

	if (!ret)
		ret = kern_ucaps_publish();	/* mlx5_ib's probe */
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

static int kern_obj_destroy_op(struct mlx5be_obj *obj)
{
	return kern_obj_destroy(obj);
}

/* The UMR mlx5_ib posts for a rereg of PD and access (emu_fw_mkey_rereg);
 * the mkc rights set_mkc_access_pd_addr_fields derives from the flags. */
static int kern_mkey_rereg(struct mlx5be_obj *obj, uint32_t pdn,
			   unsigned int access)
{
	uint32_t index = kern_devx_dec_obj_id(obj->enc_id);
	unsigned int rights = 0;

	if (obj->enc_id != kern_devx_enc_obj_id(MLX5_CMD_OP_CREATE_MKEY, index))
		return -EINVAL;
	if (access & IBV_ACCESS_LOCAL_WRITE)
		rights |= EMU_FW_MKEY_LW;
	if (access & IBV_ACCESS_REMOTE_READ)
		rights |= EMU_FW_MKEY_RR;
	if (access & IBV_ACCESS_REMOTE_WRITE)
		rights |= EMU_FW_MKEY_RW;
	if (access & IBV_ACCESS_REMOTE_ATOMIC)
		rights |= EMU_FW_MKEY_A;
	return emu_fw_mkey_rereg(obj->uctx->kdev->fw, obj->uctx->uid, index,
				 pdn, rights);
}

/* The engine runs inline here when it is free (emu/engine). */
static int kern_progress(struct mlx5be_ctx *ctx, unsigned int why)
{
	(void)ctx;
	emu_eng_progress(why);
	return emu_eng_pumps_wire();
}

static bool kern_ctx_lost(struct mlx5be_ctx *ctx)
{
	return kern_uctx_lost(ctx->uctx);
}

/*
 * capable(CAP_NET_RAW) as the kernel asks it: the process's effective set,
 * unless device.allow_net_raw lets every process have it.
 */
bool kern_net_raw_capable(void)
{
	const struct emu_config *cfg = emu_devices_config();

	return (cfg && cfg->allow_net_raw) || mlx5be_proc_net_raw();
}

/* uverbs' check before a raw packet QP or a flow. */
static int kern_net_raw_check(struct mlx5be_ctx *ctx)
{
	(void)ctx;
	return kern_net_raw_capable() ? 0 : -EPERM;
}

const struct mlx5be_ops mlx5be_emu_ops = {
	.name = "emu",
	.get_devices = kern_get_devices,
	.open = kern_ctx_open,
	.open_ucaps = kern_ctx_open_ucaps,
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
	.umem_reg_odp = kern_umem_reg_odp,
	.umem_prefetch = kern_umem_prefetch,
	.uar_alloc = kern_uar_alloc,
	.uar_free = kern_uar_free,
	.query_eqn = kern_query_eqn,
	.event_channel_create = kern_event_channel_create,
	.event_channel_destroy = kern_event_channel_destroy,
	.event_channel_fd = kern_event_channel_fd,
	.event_subscribe = kern_event_subscribe,
	.event_subscribe_fd = kern_event_subscribe_fd,
	.event_read = kern_event_read,
	.query_port = kern_query_port,
	.query_gid = kern_query_gid,
	.gid_l2_addr = kern_gid_l2_addr,
	.steering_root_attach = kern_flow_attach,
	.clock_info = kern_clock_info,
	.read_clock = kern_read_clock,
	.mkey_rereg = kern_mkey_rereg,
	.tir_local_lb = kern_lb_tir_hold,
	.uobj_add = kern_uobj_add,
	.uobj_set = kern_uobj_set,
	.uobj_del = kern_uobj_del,
	.uobj_query = kern_uobj_query,
	.uobj_hold = kern_uobj_hold,
	.async_event_fd = kern_async_event_fd,
	.async_event_read = kern_async_event_read,
	.progress = kern_progress,
	.ctx_lost = kern_ctx_lost,
	.net_raw_check = kern_net_raw_check,
};
