/* SPDX-License-Identifier: MIT */
/* The hw backend's ops table (hw.h says which file serves what). */
#include "backend/hw/hw.h"

const struct mlx5be_ops mlx5be_hw_ops = {
	.name = "hw",
	.get_devices = hw_get_devices,
	.open = hw_open,
	.open_ucaps = hw_open_ucaps,
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
	.event_subscribe_fd = hw_event_subscribe_fd,
	.event_read = hw_event_read,
	.query_port = hw_query_port,
	.query_gid = hw_query_gid,
	.gid_l2_addr = hw_gid_l2_addr,
	.steering_root_attach = hw_steering_root_attach,
	.clock_info = hw_clock_info,
	.read_clock = hw_read_clock,
	.mkey_rereg = NULL,	/* DEVX offers no UMR of the kernel's */
	.tir_local_lb = NULL,	/* its TIRs are DEVX objects: none counted */
	/* Our PDs and MRs there are DEVX objects: no uverbs PD or MR handle
	 * for rdma-core's ibv_import_pd/mr to look up. */
	.uobj_add = NULL,
	.uobj_set = NULL,
	.uobj_del = NULL,
	.uobj_query = NULL,
	.uobj_hold = NULL,
	.async_event_fd = hw_async_event_fd,
	.async_event_read = hw_async_event_read,
	.progress = NULL,	/* a real device needs no help */
	.ctx_lost = NULL,	/* the kernel shares the device with a child */
	.net_raw_check = hw_net_raw_check,
};
