/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_adapter.c -- QUERY_ADAPTER: the vendor identity the
 * kernel reports as verbs vendor_id (ieee_vendor_id, mlx5_core_query_
 * vendor_id) and as board_id (vsd_contd_psid, mlx5_query_board_id).
 */
#include <string.h>

#include "emu/firmware/fw_int.h"

enum fw_synd fw_cmd_query_adapter(struct fw_cmd *cmd)
{
	const struct emu_fw_config *cfg = &cmd->fw->cfg;
	void *qa = PRM_ADDR_OF(query_adapter_out, cmd->out,
			       query_adapter_struct);
	size_t n = strnlen(cfg->board_id, EMU_FW_BOARD_ID_LEN);

	PRM_SET(query_adapter_param_block, qa, ieee_vendor_id,
		cfg->ieee_vendor_id);
	PRM_SET(query_adapter_param_block, qa, vsd_vendor_id,
		cfg->pci_vendor_id);
	memcpy(PRM_ADDR_OF(query_adapter_param_block, qa, vsd_contd_psid),
	       cfg->board_id, n);
	return FW_SYND_OK;
}
