/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_xrcd.c -- ALLOC_XRCD / DEALLOC_XRCD.
 *
 * An XRC domain groups XRC SRQs and XRC target QPs (ibv_open_xrcd); it is
 * advertised by cmd_hca_cap.xrc and bounded by log_max_xrcd.  It cannot be
 * deallocated while an XRC QP or SRQ of it exists.
 */
#include "emu/firmware/fw_int.h"

enum fw_synd fw_cmd_alloc_xrcd(struct fw_cmd *cmd)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	if (!FW_CAP_GEN(cmd->fw, xrc))
		return FW_SYND_OPCODE_NOT_SUPPORTED;
	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_XRCD, &obj);
	if (s)
		return s;
	s = fw_cmd_obj_publish(obj, FW_SYND_XRCD_LIMIT);
	if (s)
		return s;
	PRM_SET(alloc_xrcd_out, cmd->out, xrcd, obj->id);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_dealloc_xrcd(struct fw_cmd *cmd)
{
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_XRCD,
				  PRM_GET(dealloc_xrcd_in, cmd->in, xrcd),
				  FW_SYND_XRCD_INVALID, FW_SYND_XRCD_IN_USE);
}
