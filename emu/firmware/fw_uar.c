/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_uar.c -- ALLOC_UAR / DEALLOC_UAR.
 *
 * The firmware only numbers UAR pages; where a page lives in the process
 * (the context's cmd_fd pages) is the kernel layer's business.  Indexes are
 * dense from 1 (page 0 is never handed out: libmlx5 and pyverbs treat a
 * zero page_id as an error), and a page used by an EQ or CQ (uar_page)
 * cannot be freed.
 */
#include <errno.h>

#include "emu/firmware/fw_int.h"

enum fw_synd fw_cmd_alloc_uar(struct fw_cmd *cmd)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_UAR, &obj);
	if (s)
		return s;
	atomic_init(&emu_fw_to_uar(obj)->page, NULL);
	s = fw_cmd_obj_publish(obj, FW_SYND_UAR_LIMIT);
	if (s)
		return s;
	PRM_SET(alloc_uar_out, cmd->out, uar, obj->id);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_dealloc_uar(struct fw_cmd *cmd)
{
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_UAR,
				  PRM_GET(dealloc_uar_in, cmd->in, uar),
				  FW_SYND_UAR_INVALID, FW_SYND_UAR_IN_USE);
}

int emu_fw_uar_set_page(struct emu_fw *fw, uint32_t index, void *page)
{
	struct emu_fw_obj *obj = emu_fw_obj_get(fw, EMU_FW_OBJ_UAR, index);

	if (!obj)
		return -ENOENT;
	atomic_store_explicit(&emu_fw_to_uar(obj)->page, page,
			      memory_order_release);
	emu_fw_obj_put(obj);
	return 0;
}
