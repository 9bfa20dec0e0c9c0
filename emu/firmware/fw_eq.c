/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_eq.c -- CREATE_EQ / QUERY_EQ / DESTROY_EQ.
 *
 * An EQ's buffer comes as a page list (pas[], with eqc.log_page_size and
 * page_offset), as the kernel builds it for its own EQs and for DEVX EQs:
 * here the addresses are process addresses inside registered memory (see
 * fw_umem.c).  (1 << log_eq_size) EQEs of 64 bytes.  The event_bitmask may
 * only ask for event types this device can raise (the kernel derives its
 * async mask from the capabilities, mlx5_eq_table_create); a CQ using the
 * EQ (c_eqn) keeps it from being destroyed.
 */
#include <string.h>

#include "emu/firmware/fw_int.h"

#define EV(t) (UINT64_C(1) << MLX5_EVENT_TYPE_##t)

/* Event types 0..63 this device supports; none above 63. */
static uint64_t fw_eq_supported_events(const struct emu_fw *fw)
{
	uint64_t m = EV(COMP) | EV(PATH_MIG) | EV(COMM_EST) | EV(SQ_DRAINED) |
		     EV(CQ_ERROR) | EV(WQ_CATAS_ERROR) | EV(PATH_MIG_FAILED) |
		     EV(INTERNAL_ERROR) | EV(PORT_CHANGE) | EV(CMD) |
		     EV(PAGE_REQUEST) | EV(WQ_INVAL_REQ_ERROR) |
		     EV(WQ_ACCESS_ERROR) | EV(SRQ_CATAS_ERROR) |
		     EV(SRQ_LAST_WQE) | EV(SRQ_RQ_LIMIT);

	if (FW_CAP_GEN(fw, pg))
		m |= EV(PAGE_FAULT);
	if (FW_CAP_GEN(fw, nic_vport_change_event))
		m |= EV(NIC_VPORT_CHANGE);
	if (FW_CAP_GEN(fw, port_module_event))
		m |= EV(PORT_MODULE_EVENT);
	if (FW_CAP_GEN(fw, temp_warn_event))
		m |= EV(TEMP_WARN_EVENT);
	if (FW_CAP_GEN(fw, general_notification_event))
		m |= EV(GENERAL_EVENT);
	if (FW_CAP_GEN(fw, pps))
		m |= EV(PPS_EVENT);
	if (FW_CAP_GEN(fw, dct))
		m |= EV(DCT_DRAINED) | EV(DCT_KEY_VIOLATION);
	if (FW_CAP_GEN(fw, tag_matching))
		m |= EV(XRQ_ERROR);
	if (FW_CAP_GEN(fw, vhca_state))
		m |= EV(VHCA_STATE_CHANGE);
	if (FW_CAP_GEN(fw, eswitch_manager))
		m |= EV(ESW_FUNCTIONS_CHANGED);
	if (FW_CAP_GEN(fw, event_cap))
		m |= EV(OBJECT_CHANGE);
	return m;
}

/* The pointers stay: readers that found the EQ use them until they unlock. */
void fw_eq_release(struct emu_fw_obj *obj)
{
	struct emu_fw_eq *eq = emu_fw_to_eq(obj);

	fw_buf_release(&eq->buf);
	if (eq->uar)
		fw_obj_unuse(&eq->uar->obj);
}

enum fw_synd fw_cmd_create_eq(struct fw_cmd *cmd)
{
	const void *eqc = PRM_ADDR_OF(create_eq_in, cmd->in, eq_context_entry);
	uint32_t log_size = PRM_GET(eqc, eqc, log_eq_size);
	uint32_t st = PRM_GET(eqc, eqc, st);
	struct fw_buf_desc d = { 0 };
	struct emu_fw_obj *obj, *uar;
	uint64_t mask[4], supported;
	struct emu_fw_eq *eq;
	enum fw_synd s;

	if (log_size > FW_CAP_GEN(cmd->fw, log_max_eq_sz))
		return FW_SYND_EQ_BAD_SIZE;
	if (st != 0 && st != MLX5_EQ_STATE_ARMED && st != MLX5_EQ_STATE_FIRED)
		return FW_SYND_EQ_BAD_ST;
	if (PRM_GET(eqc, eqc, intr) >= 1u << FW_CAP_GEN(cmd->fw, log_max_eq))
		return FW_SYND_EQ_BAD_INTR;
	supported = fw_eq_supported_events(cmd->fw);
	for (int i = 0; i < 4; i++) {
		mask[i] = prm_get64_(PRM_ARRAY_ADDR(create_eq_in, cmd->in,
						    event_bitmask, i), 0);
		if (i ? mask[i] != 0 : (mask[i] & ~supported) != 0)
			return FW_SYND_EQ_BAD_EVENT_TYPE;
	}

	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_EQ, &obj);
	if (s)
		return s;
	eq = emu_fw_to_eq(obj);
	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_UAR, PRM_GET(eqc, eqc, uar_page),
			   FW_SYND_BAD_UAR, &uar);
	if (s)
		goto err;
	eq->uar = emu_fw_to_uar(uar);

	d.page_offset = PRM_GET(eqc, eqc, page_offset);
	d.log_page_size = PRM_GET(eqc, eqc, log_page_size);
	d.len = (size_t)64 << log_size;
	d.device_writes = true;	/* EQEs */
	d.pas = PRM_ARRAY_ADDR(create_eq_in, cmd->in, pas, 0);
	d.npas = (cmd->inlen - PRM_BYTE_OFF(create_eq_in, pas)) / 8;
	s = fw_buf_resolve(cmd, &d, &eq->buf);
	if (s)
		goto err;

	eq->log_size = (uint8_t)log_size;
	eq->intr = (uint16_t)PRM_GET(eqc, eqc, intr);
	/* Armed only by the doorbell (or created armed); no word seen yet. */
	eq->hw.armed = st == MLX5_EQ_STATE_ARMED;
	eq->hw.db_seen[0] = eq->hw.db_seen[1] = UINT32_MAX;
	atomic_init(&eq->hw.lost, 0);
	memcpy(eq->event_bitmask, mask, sizeof(mask));
	_Static_assert(sizeof(eq->eqc) == PRM_ST_SZ_BYTES(eqc), "eqc size");
	memcpy(eq->eqc, eqc, sizeof(eq->eqc));

	s = fw_cmd_obj_publish(obj, FW_SYND_EQ_LIMIT);
	if (s)
		return s;
	PRM_SET(create_eq_out, cmd->out, eq_number, obj->id);
	return FW_SYND_OK;

err:
	fw_eq_release(obj);
	fw_cmd_obj_abort(obj);
	return s;
}

enum fw_synd fw_cmd_query_eq(struct fw_cmd *cmd)
{
	struct emu_fw_obj *obj;
	struct emu_fw_eq *eq;
	enum fw_synd s;

	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_EQ,
			   PRM_GET(query_eq_in, cmd->in, eq_number),
			   FW_SYND_EQ_INVALID, &obj);
	if (s)
		return s;
	eq = emu_fw_to_eq(obj);
	memcpy(PRM_ADDR_OF(query_eq_out, cmd->out, eq_context_entry), eq->eqc,
	       sizeof(eq->eqc));
	PRM_SET64(query_eq_out, cmd->out, event_bitmask, eq->event_bitmask[0]);
	emu_fw_obj_put(obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_destroy_eq(struct fw_cmd *cmd)
{
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_EQ,
				  PRM_GET(destroy_eq_in, cmd->in, eq_number),
				  FW_SYND_EQ_INVALID, FW_SYND_EQ_IN_USE);
}
