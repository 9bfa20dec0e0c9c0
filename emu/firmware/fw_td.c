/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_td.c -- ALLOC_TRANSPORT_DOMAIN / DEALLOC_TRANSPORT_DOMAIN
 * (the domain TIRs and TISes name).
 */
#include "emu/firmware/fw_int.h"

enum fw_synd fw_cmd_alloc_td(struct fw_cmd *cmd)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_TD, &obj);
	if (s)
		return s;
	s = fw_cmd_obj_publish(obj, FW_SYND_TD_LIMIT);
	if (s)
		return s;
	PRM_SET(alloc_transport_domain_out, cmd->out, transport_domain,
		obj->id);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_dealloc_td(struct fw_cmd *cmd)
{
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_TD,
				  PRM_GET(dealloc_transport_domain_in, cmd->in,
					  transport_domain),
				  FW_SYND_TD_INVALID, FW_SYND_TD_IN_USE);
}
