/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_pd.c -- ALLOC_PD / DEALLOC_PD.
 *
 * A PD an mkey, QP or SRQ uses cannot be deallocated:
 * BAD_RES_STATE, as ConnectX firmware answers (see PD_IN_USE in
 * prm/syndromes.def).
 */
#include "emu/firmware/fw_int.h"

enum fw_synd fw_cmd_alloc_pd(struct fw_cmd *cmd)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_PD, &obj);
	if (s)
		return s;
	s = fw_cmd_obj_publish(obj, FW_SYND_PD_LIMIT);
	if (s)
		return s;
	PRM_SET(alloc_pd_out, cmd->out, pd, obj->id);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_dealloc_pd(struct fw_cmd *cmd)
{
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_PD,
				  PRM_GET(dealloc_pd_in, cmd->in, pd),
				  FW_SYND_PD_INVALID, FW_SYND_PD_IN_USE);
}
