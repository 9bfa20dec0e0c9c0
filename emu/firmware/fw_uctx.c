/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_uctx.c -- CREATE_UCTX / DESTROY_UCTX: the user contexts
 * whose ids are the uids of DEVX commands.
 *
 * The kernel (uid 0) creates one per DEVX context (mlx5_ib_devx_create) and
 * stamps its id into every command of that context.  A command with a uid
 * that is not a live context is refused; every object created under a uid
 * is a user of its context, so a context with objects left cannot be
 * destroyed.
 */
#include "emu/firmware/fw_int.h"

enum fw_synd fw_cmd_create_uctx(struct fw_cmd *cmd)
{
	uint32_t cap = PRM_GET(create_uctx_in, cmd->in, uctx.cap);
	struct emu_fw_obj *obj;
	enum fw_synd s;

	if (cap & ~FW_CAP_GEN(cmd->fw, uctx_cap))
		return FW_SYND_UCTX_BAD_CAP;
	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_UCTX, &obj);
	if (s)
		return s;
	emu_fw_to_uctx(obj)->cap = cap;
	s = fw_cmd_obj_publish(obj, FW_SYND_UCTX_LIMIT);
	if (s)
		return s;
	PRM_SET(create_uctx_out, cmd->out, uid, obj->id);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_destroy_uctx(struct fw_cmd *cmd)
{
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_UCTX,
				  PRM_GET(destroy_uctx_in, cmd->in, uid),
				  FW_SYND_UCTX_INVALID, FW_SYND_UCTX_IN_USE);
}
