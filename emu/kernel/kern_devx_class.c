/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_devx_class.c -- the per-opcode tables of the kernel DEVX
 * layer (one row per creatable PRM object, one per modify/query command,
 * the general, whitelist and kernel-only opcode lists) and the command
 * classes devx.c derives from them.  See kern_devx_rules.h for the sources.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/kernel/kern_devx_rules.h"
#include "emu/kernel/kern_devx_rules_int.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

/* ---- mailbox conditions ---- */

/*
 * mlx5_ifc.h layouts prm/defs has no struct for (bit offset, width);
 * reported to the prm owner.
 */
static const struct kfld CREATE_PSV_IN_NUM_PSV = FX(0x40, 4);	/* create_psv_in.num_psv */

bool kern_kcond_holds(enum kcond c, const void *in)
{
	switch (c) {
	case KC_NONE:
		return true;
	case KC_OPMOD0:
		return PRM_GET(set_fte_in, in, op_mod) == 0;
	case KC_OPMOD1:
		return PRM_GET(set_fte_in, in, op_mod) == 1;
	case KC_NUM_PSV1:
		return kfld_get(in, CREATE_PSV_IN_NUM_PSV) == 1;
	}
	return false;
}

size_t kern_kcond_in_end(enum kcond c)
{
	return c == KC_NUM_PSV1 ? kfld_word_end(CREATE_PSV_IN_NUM_PSV) : 0;
}

/* ---- creatable objects (struct kcreate) ---- */

#define CP(styp, sfld, dtyp, dfld) { .src = F(styp, sfld), .dst = F(dtyp, dfld) }

#define HDR_INLEN BYTES(general_obj_in_cmd_hdr)

static const struct kcreate k_create[] = {
	{ .op = MLX5_CMD_OP_CREATE_GENERAL_OBJECT, .destroy_op = MLX5_CMD_OP_DESTROY_GENERAL_OBJECT,
	  .devx = true, .general_obj = true,
	  .id = F(general_obj_out_cmd_hdr, obj_id),
	  .destroy_id = F(general_obj_in_cmd_hdr, obj_id), .destroy_inlen = HDR_INLEN,
	  .copy = { CP(general_obj_in_cmd_hdr, obj_type, general_obj_in_cmd_hdr, obj_type) } },
	/* The kernel's umem registration, not a DEVX create. */
	{ .op = MLX5_CMD_OP_CREATE_UMEM, .destroy_op = MLX5_CMD_OP_DESTROY_UMEM,
	  .id = F(create_umem_out, umem_id),
	  .destroy_id = F(destroy_umem_in, umem_id), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_MKEY, .destroy_op = MLX5_CMD_OP_DESTROY_MKEY, .devx = true,
	  .id = F(create_mkey_out, mkey_index),
	  .destroy_id = F(destroy_mkey_in, mkey_index), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_CQ, .destroy_op = MLX5_CMD_OP_DESTROY_CQ, .devx = true,
	  .id = F(create_cq_out, cqn),
	  .destroy_id = F(destroy_cq_in, cqn), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_ALLOC_PD, .destroy_op = MLX5_CMD_OP_DEALLOC_PD, .devx = true,
	  .id = F(alloc_pd_out, pd),
	  .destroy_id = F(dealloc_pd_in, pd), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, .destroy_op = MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN,
	  .devx = true,
	  .id = F(alloc_transport_domain_out, transport_domain),
	  .destroy_id = F(dealloc_transport_domain_in, transport_domain), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_RMP, .destroy_op = MLX5_CMD_OP_DESTROY_RMP, .devx = true,
	  .id = F(create_rmp_out, rmpn),
	  .destroy_id = F(destroy_rmp_in, rmpn), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_SQ, .destroy_op = MLX5_CMD_OP_DESTROY_SQ, .devx = true,
	  .id = F(create_sq_out, sqn),
	  .destroy_id = F(destroy_sq_in, sqn), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_RQ, .destroy_op = MLX5_CMD_OP_DESTROY_RQ, .devx = true,
	  .id = F(create_rq_out, rqn),
	  .destroy_id = F(destroy_rq_in, rqn), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_RQT, .destroy_op = MLX5_CMD_OP_DESTROY_RQT, .devx = true,
	  .id = F(create_rqt_out, rqtn),
	  .destroy_id = F(destroy_rqt_in, rqtn), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_TIR, .destroy_op = MLX5_CMD_OP_DESTROY_TIR, .devx = true,
	  .id = F(create_tir_out, tirn),
	  .destroy_id = F(destroy_tir_in, tirn), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_TIS, .destroy_op = MLX5_CMD_OP_DESTROY_TIS, .devx = true,
	  .id = F(create_tis_out, tisn),
	  .destroy_id = F(destroy_tis_in, tisn), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_ALLOC_Q_COUNTER, .destroy_op = MLX5_CMD_OP_DEALLOC_Q_COUNTER, .devx = true,
	  .id = F(alloc_q_counter_out, counter_set_id),
	  .destroy_id = F(dealloc_q_counter_in, counter_set_id), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_FLOW_TABLE, .destroy_op = MLX5_CMD_OP_DESTROY_FLOW_TABLE, .devx = true,
	  .id = F(create_flow_table_out, table_id),
	  .destroy_id = F(destroy_flow_table_in, table_id),
	  .destroy_inlen = BYTES(destroy_flow_table_in),
	  .copy = {
		  CP(create_flow_table_in, other_vport, destroy_flow_table_in, other_vport),
		  CP(create_flow_table_in, vport_number, destroy_flow_table_in, vport_number),
		  CP(create_flow_table_in, table_type, destroy_flow_table_in, table_type),
	  } },
	{ .op = MLX5_CMD_OP_CREATE_FLOW_GROUP, .destroy_op = MLX5_CMD_OP_DESTROY_FLOW_GROUP, .devx = true,
	  .id = F(create_flow_group_out, group_id),
	  .destroy_id = F(destroy_flow_group_in, group_id),
	  .destroy_inlen = BYTES(destroy_flow_group_in),
	  .copy = {
		  CP(create_flow_group_in, other_vport, destroy_flow_group_in, other_vport),
		  CP(create_flow_group_in, vport_number, destroy_flow_group_in, vport_number),
		  CP(create_flow_group_in, table_type, destroy_flow_group_in, table_type),
		  CP(create_flow_group_in, table_id, destroy_flow_group_in, table_id),
	  } },
	{ .op = MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY, .destroy_op = MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY,
	  .devx = true, .cond = KC_OPMOD0, .id_in_inbox = true,
	  .id = F(set_fte_in, flow_index),
	  .destroy_id = F(delete_fte_in, flow_index), .destroy_inlen = BYTES(delete_fte_in),
	  .copy = {
		  CP(set_fte_in, other_vport, delete_fte_in, other_vport),
		  CP(set_fte_in, vport_number, delete_fte_in, vport_number),
		  CP(set_fte_in, table_type, delete_fte_in, table_type),
		  CP(set_fte_in, table_id, delete_fte_in, table_id),
	  } },
	{ .op = MLX5_CMD_OP_ALLOC_FLOW_COUNTER, .destroy_op = MLX5_CMD_OP_DEALLOC_FLOW_COUNTER, .devx = true,
	  .id = F(alloc_flow_counter_out, flow_counter_id),
	  .destroy_id = F(dealloc_flow_counter_in, flow_counter_id), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_ALLOC_PACKET_REFORMAT_CONTEXT,
	  .destroy_op = MLX5_CMD_OP_DEALLOC_PACKET_REFORMAT_CONTEXT, .devx = true,
	  .id = FX(0x40, 32),		/* alloc_packet_reformat_context_out.packet_reformat_id */
	  .destroy_id = FX(0x40, 32),	/* dealloc_packet_reformat_context_in.packet_reformat_id */
	  .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_ALLOC_MODIFY_HEADER_CONTEXT,
	  .destroy_op = MLX5_CMD_OP_DEALLOC_MODIFY_HEADER_CONTEXT, .devx = true,
	  .id = FX(0x40, 32),		/* alloc_modify_header_context_out.modify_header_id */
	  .destroy_id = FX(0x40, 32),	/* dealloc_modify_header_context_in.modify_header_id */
	  .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_SCHEDULING_ELEMENT,
	  .destroy_op = MLX5_CMD_OP_DESTROY_SCHEDULING_ELEMENT, .devx = true,
	  .id = FX(0x80, 32),		/* create_scheduling_element_out.scheduling_element_id */
	  .destroy_id = FX(0x60, 32),	/* destroy_scheduling_element_in.scheduling_element_id */
	  .destroy_inlen = 0x200 / 8,	/* sizeof destroy_scheduling_element_in */
	  .copy = {
		  /* create_ and destroy_scheduling_element_in.scheduling_hierarchy */
		  { .src = FX(0x40, 8), .dst = FX(0x40, 8) },
	  } },
	{ .op = MLX5_CMD_OP_ADD_VXLAN_UDP_DPORT, .destroy_op = MLX5_CMD_OP_DELETE_VXLAN_UDP_DPORT,
	  .devx = true, .id_in_inbox = true,
	  .id = FX(0x70, 16),		/* add_vxlan_udp_dport_in.vxlan_udp_port */
	  .destroy_id = FX(0x70, 16),	/* delete_vxlan_udp_dport_in.vxlan_udp_port */
	  .destroy_inlen = 0x80 / 8 },	/* sizeof delete_vxlan_udp_dport_in */
	{ .op = MLX5_CMD_OP_SET_L2_TABLE_ENTRY, .destroy_op = MLX5_CMD_OP_DELETE_L2_TABLE_ENTRY,
	  .devx = true, .id_in_inbox = true,
	  .id = FX(0xa8, 24),		/* set_l2_table_entry_in.table_index */
	  .destroy_id = FX(0xa8, 24),	/* delete_l2_table_entry_in.table_index */
	  .destroy_inlen = 0x200 / 8 },	/* sizeof delete_l2_table_entry_in */
	{ .op = MLX5_CMD_OP_CREATE_QP, .destroy_op = MLX5_CMD_OP_DESTROY_QP, .devx = true,
	  .id = F(create_qp_out, qpn),
	  .destroy_id = F(destroy_qp_in, qpn), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_SRQ, .destroy_op = MLX5_CMD_OP_DESTROY_SRQ, .devx = true,
	  .id = F(create_srq_out, srqn),
	  .destroy_id = F(destroy_srq_in, srqn), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_XRC_SRQ, .destroy_op = MLX5_CMD_OP_DESTROY_XRC_SRQ, .devx = true,
	  .id = F(create_xrc_srq_out, xrc_srqn),
	  .destroy_id = F(destroy_xrc_srq_in, xrc_srqn), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_DCT, .destroy_op = MLX5_CMD_OP_DESTROY_DCT, .devx = true,
	  .id = F(create_dct_out, dctn),
	  .destroy_id = F(destroy_dct_in, dctn), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_XRQ, .destroy_op = MLX5_CMD_OP_DESTROY_XRQ, .devx = true,
	  .id = FX(0x48, 24),		/* create_xrq_out.xrqn */
	  .destroy_id = FX(0x48, 24),	/* destroy_xrq_in.xrqn */
	  .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_ATTACH_TO_MCG, .destroy_op = MLX5_CMD_OP_DETACH_FROM_MCG,
	  .devx = true, .id_in_inbox = true,
	  .id = FX(0x48, 24),		/* attach_to_mcg_in.qpn */
	  .destroy_id = FX(0x48, 24),	/* detach_from_mcg_in.qpn */
	  .destroy_inlen = 0x100 / 8,	/* sizeof detach_from_mcg_in */
	  .copy = {
		  /* attach_to_mcg_in/detach_from_mcg_in.multicast_gid[16] */
		  { .src = FX(0x80, 128), .dst = FX(0x80, 128) },
	  } },
	{ .op = MLX5_CMD_OP_ALLOC_XRCD, .destroy_op = MLX5_CMD_OP_DEALLOC_XRCD, .devx = true,
	  .id = F(alloc_xrcd_out, xrcd),
	  .destroy_id = F(dealloc_xrcd_in, xrcd), .destroy_inlen = HDR_INLEN },
	{ .op = MLX5_CMD_OP_CREATE_PSV, .destroy_op = MLX5_CMD_OP_DESTROY_PSV,
	  .devx = true, .cond = KC_NUM_PSV1,
	  .id = FX(0x88, 24),		/* create_psv_out.psv0_index */
	  .destroy_id = FX(0x48, 24),	/* destroy_psv_in.psvn */
	  .destroy_inlen = HDR_INLEN },
};

const struct kcreate *kern_kcreate_find(uint16_t op)
{
	for (size_t i = 0; i < ARRAY_LEN(k_create); i++)
		if (k_create[i].op == op)
			return &k_create[i];
	return NULL;
}

const struct kcreate *kern_kcreate_find_destroy(uint16_t destroy_op)
{
	for (size_t i = 0; i < ARRAY_LEN(k_create); i++)
		if (k_create[i].destroy_op == destroy_op)
			return &k_create[i];
	return NULL;
}

/* ---- modify and query commands (struct ktarget) ---- */

/* A row: the command, its class (MODIFY or QUERY), the create opcode its
 * id is encoded with, and the id field. */
#define TGT(cls_, op_, cop_, id_) \
	{ .op = MLX5_CMD_OP_##op_, .cls = KERN_CMD_##cls_, \
	  .create_op = MLX5_CMD_OP_##cop_, .id = id_ }
#define MOD(op_, cop_, typ, fld) TGT(MODIFY, op_, cop_, F(typ, fld))
#define QRY(op_, cop_, typ, fld) TGT(QUERY, op_, cop_, F(typ, fld))
#define MODX(op_, cop_, off_, bits_) TGT(MODIFY, op_, cop_, FX(off_, bits_))
#define QRYX(op_, cop_, off_, bits_) TGT(QUERY, op_, cop_, FX(off_, bits_))
/* A general object: obj_type folded into the encoded opcode. */
#define GOBJ(cls_, op_) \
	{ .op = MLX5_CMD_OP_##op_, .cls = KERN_CMD_##cls_, .general_obj = true, \
	  .create_op = MLX5_CMD_OP_CREATE_GENERAL_OBJECT, \
	  .id = F(general_obj_in_cmd_hdr, obj_id) }

static const struct ktarget k_target[] = {
	/* devx_is_obj_modify_cmd */
	GOBJ(MODIFY, MODIFY_GENERAL_OBJECT),
	MOD(MODIFY_CQ, CREATE_CQ, modify_cq_in, cqn),
	MOD(MODIFY_RMP, CREATE_RMP, modify_rmp_in, rmpn),
	MOD(MODIFY_SQ, CREATE_SQ, modify_sq_in, sqn),
	MOD(MODIFY_RQ, CREATE_RQ, modify_rq_in, rqn),
	MOD(MODIFY_RQT, CREATE_RQT, modify_rqt_in, rqtn),
	MOD(MODIFY_TIR, CREATE_TIR, modify_tir_in, tirn),
	MOD(MODIFY_TIS, CREATE_TIS, modify_tis_in, tisn),
	MOD(MODIFY_FLOW_TABLE, CREATE_FLOW_TABLE, modify_flow_table_in, table_id),
	/* modify_scheduling_element_in.scheduling_element_id */
	MODX(MODIFY_SCHEDULING_ELEMENT, CREATE_SCHEDULING_ELEMENT, 0x60, 32),
	/* add_vxlan_udp_dport_in.vxlan_udp_port */
	MODX(ADD_VXLAN_UDP_DPORT, ADD_VXLAN_UDP_DPORT, 0x70, 16),
	/* set_l2_table_entry_in.table_index */
	MODX(SET_L2_TABLE_ENTRY, SET_L2_TABLE_ENTRY, 0xa8, 24),
	MOD(RST2INIT_QP, CREATE_QP, rst2init_qp_in, qpn),
	MOD(INIT2RTR_QP, CREATE_QP, init2rtr_qp_in, qpn),
	MOD(INIT2INIT_QP, CREATE_QP, init2init_qp_in, qpn),
	MOD(RTR2RTS_QP, CREATE_QP, rtr2rts_qp_in, qpn),
	MOD(RTS2RTS_QP, CREATE_QP, rts2rts_qp_in, qpn),
	MOD(SQERR2RTS_QP, CREATE_QP, sqerr2rts_qp_in, qpn),
	MOD(2ERR_QP, CREATE_QP, qp_2err_in, qpn),
	MOD(2RST_QP, CREATE_QP, qp_2rst_in, qpn),
	MOD(ARM_XRC_SRQ, CREATE_XRC_SRQ, arm_xrc_srq_in, xrc_srqn),
	/* devx.c encodes ARM_RQ's srq_number with CREATE_RQ. */
	MOD(ARM_RQ, CREATE_RQ, arm_rq_in, srq_number),
	/* devx.c reads ARM_DCT_FOR_KEY_VIOLATION through drain_dct_in. */
	MOD(ARM_DCT_FOR_KEY_VIOLATION, CREATE_DCT, drain_dct_in, dctn),
	/* arm_xrq_in.xrqn, for all four */
	MODX(ARM_XRQ, CREATE_XRQ, 0x48, 24),
	MODX(SET_XRQ_DC_PARAMS_ENTRY, CREATE_XRQ, 0x48, 24),
	MODX(RELEASE_XRQ_ERROR, CREATE_XRQ, 0x48, 24),
	MODX(MODIFY_XRQ, CREATE_XRQ, 0x48, 24),
	{ .op = MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY, .cls = KERN_CMD_MODIFY, .cond = KC_OPMOD1,
	  .create_op = MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY, .id = F(set_fte_in, flow_index) },

	/* devx_is_obj_query_cmd */
	GOBJ(QUERY, QUERY_GENERAL_OBJECT),
	QRY(QUERY_MKEY, CREATE_MKEY, query_mkey_in, mkey_index),
	QRY(QUERY_CQ, CREATE_CQ, query_cq_in, cqn),
	QRY(QUERY_RMP, CREATE_RMP, query_rmp_in, rmpn),
	QRY(QUERY_SQ, CREATE_SQ, query_sq_in, sqn),
	QRY(QUERY_RQ, CREATE_RQ, query_rq_in, rqn),
	QRY(QUERY_RQT, CREATE_RQT, query_rqt_in, rqtn),
	QRY(QUERY_TIR, CREATE_TIR, query_tir_in, tirn),
	QRY(QUERY_TIS, CREATE_TIS, query_tis_in, tisn),
	QRY(QUERY_Q_COUNTER, ALLOC_Q_COUNTER, query_q_counter_in, counter_set_id),
	QRY(QUERY_FLOW_TABLE, CREATE_FLOW_TABLE, query_flow_table_in, table_id),
	/* query_flow_group_in.group_id */
	QRYX(QUERY_FLOW_GROUP, CREATE_FLOW_GROUP, 0xc0, 32),
	/* query_fte_in.flow_index */
	QRYX(QUERY_FLOW_TABLE_ENTRY, SET_FLOW_TABLE_ENTRY, 0x100, 32),
	QRY(QUERY_FLOW_COUNTER, ALLOC_FLOW_COUNTER, query_flow_counter_in, flow_counter_id),
	/* query_modify_header_context_in.modify_header_id */
	QRYX(QUERY_MODIFY_HEADER_CONTEXT, ALLOC_MODIFY_HEADER_CONTEXT, 0x40, 32),
	/* query_scheduling_element_in.scheduling_element_id */
	QRYX(QUERY_SCHEDULING_ELEMENT, CREATE_SCHEDULING_ELEMENT, 0x60, 32),
	/* query_l2_table_entry_in.table_index */
	QRYX(QUERY_L2_TABLE_ENTRY, SET_L2_TABLE_ENTRY, 0xa8, 24),
	QRY(QUERY_QP, CREATE_QP, query_qp_in, qpn),
	QRY(QUERY_SRQ, CREATE_SRQ, query_srq_in, srqn),
	QRY(QUERY_XRC_SRQ, CREATE_XRC_SRQ, query_xrc_srq_in, xrc_srqn),
	QRY(QUERY_DCT, CREATE_DCT, query_dct_in, dctn),
	/* query_xrq_in.xrqn, for all three */
	QRYX(QUERY_XRQ, CREATE_XRQ, 0x48, 24),
	QRYX(QUERY_XRQ_DC_PARAMS_ENTRY, CREATE_XRQ, 0x48, 24),
	QRYX(QUERY_XRQ_ERROR_PARAMS, CREATE_XRQ, 0x48, 24),
	/* query_packet_reformat_context_in.packet_reformat_id */
	QRYX(QUERY_PACKET_REFORMAT_CONTEXT, ALLOC_PACKET_REFORMAT_CONTEXT, 0x40, 32),
};

const struct ktarget *kern_ktarget_find(uint16_t op)
{
	for (size_t i = 0; i < ARRAY_LEN(k_target); i++)
		if (k_target[i].op == op)
			return &k_target[i];
	return NULL;
}

/* ---- opcode lists ---- */

/*
 * devx_is_general_cmd: the opcodes besides the GENERAL_START..GENERAL_END
 * range.  QUERY_ESW_FUNCTIONS is the newest addition (also whitelisted).
 */
static const uint16_t k_general[] = {
	MLX5_CMD_OP_QUERY_HCA_CAP,
	MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT,
	MLX5_CMD_OP_QUERY_ESW_VPORT_CONTEXT,
	MLX5_CMD_OP_QUERY_VPORT_STATE,
	MLX5_CMD_OP_QUERY_ADAPTER,
	MLX5_CMD_OP_QUERY_ISSI,
	MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT,
	MLX5_CMD_OP_QUERY_ROCE_ADDRESS,
	MLX5_CMD_OP_QUERY_VNIC_ENV,
	MLX5_CMD_OP_QUERY_VPORT_COUNTER,
	MLX5_CMD_OP_GET_DROPPED_PACKET_LOG,
	MLX5_CMD_OP_NOP,
	MLX5_CMD_OP_QUERY_CONG_STATUS,
	MLX5_CMD_OP_QUERY_CONG_PARAMS,
	MLX5_CMD_OP_QUERY_CONG_STATISTICS,
	MLX5_CMD_OP_QUERY_LAG,
	MLX5_CMD_OP_QUERY_ESW_FUNCTIONS,
};

/* devx_is_whitelist_cmd */
static const uint16_t k_whitelist[] = {
	MLX5_CMD_OP_QUERY_HCA_CAP,
	MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT,
	MLX5_CMD_OP_QUERY_ESW_VPORT_CONTEXT,
	MLX5_CMD_OP_QUERY_ESW_FUNCTIONS,
};

/*
 * Commands mlx5_core/mlx5_ib issue themselves (device bring-up, EQs, UARs,
 * the DEVX uid, umem registration, the GID table, vport and port
 * registers, MADs, ODP, device memory, DCT drain, LAG, delay drop,
 * rate limits) that DEVX refuses: in none of the devx_is_* lists.
 */
static const uint16_t k_kernel_only[] = {
	MLX5_CMD_OP_INIT_HCA,
	MLX5_CMD_OP_TEARDOWN_HCA,
	MLX5_CMD_OP_ENABLE_HCA,
	MLX5_CMD_OP_DISABLE_HCA,
	MLX5_CMD_OP_QUERY_PAGES,
	MLX5_CMD_OP_MANAGE_PAGES,
	MLX5_CMD_OP_SET_HCA_CAP,
	MLX5_CMD_OP_SET_ISSI,
	MLX5_CMD_OP_SET_DRIVER_VERSION,
	MLX5_CMD_OP_QUERY_SPECIAL_CONTEXTS,
	MLX5_CMD_OP_PAGE_FAULT_RESUME,
	MLX5_CMD_OP_ALLOC_MEMIC,
	MLX5_CMD_OP_DEALLOC_MEMIC,
	MLX5_CMD_OP_MODIFY_MEMIC,
	MLX5_CMD_OP_CREATE_EQ,
	MLX5_CMD_OP_DESTROY_EQ,
	MLX5_CMD_OP_QUERY_EQ,
	MLX5_CMD_OP_DRAIN_DCT,
	MLX5_CMD_OP_MODIFY_VPORT_STATE,
	MLX5_CMD_OP_MODIFY_ESW_VPORT_CONTEXT,
	MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT,
	MLX5_CMD_OP_SET_ROCE_ADDRESS,
	MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT,
	MLX5_CMD_OP_QUERY_HCA_VPORT_GID,
	MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY,
	MLX5_CMD_OP_SET_PP_RATE_LIMIT,
	MLX5_CMD_OP_ALLOC_UAR,
	MLX5_CMD_OP_DEALLOC_UAR,
	MLX5_CMD_OP_ACCESS_REG,
	MLX5_CMD_OP_MAD_IFC,
	MLX5_CMD_OP_QUERY_MAD_DEMUX,
	MLX5_CMD_OP_SET_MAD_DEMUX,
	MLX5_CMD_OP_SET_DELAY_DROP_PARAMS,
	MLX5_CMD_OP_CREATE_LAG,
	MLX5_CMD_OP_MODIFY_LAG,
	MLX5_CMD_OP_DESTROY_LAG,
	MLX5_CMD_OP_CREATE_VPORT_LAG,
	MLX5_CMD_OP_DESTROY_VPORT_LAG,
	MLX5_CMD_OP_CREATE_UCTX,
	MLX5_CMD_OP_DESTROY_UCTX,
	MLX5_CMD_OP_CREATE_UMEM,
	/* The kernel-owned steering root (mlx5_core's fs_cmd.c): in no devx.c
	 * list, so every DEVX method refuses it with EINVAL. */
	MLX5_CMD_OP_SET_FLOW_TABLE_ROOT,
};

static bool op_in(const uint16_t *ops, size_t n, uint16_t op)
{
	for (size_t i = 0; i < n; i++)
		if (ops[i] == op)
			return true;
	return false;
}

static bool op_is_general(uint16_t op)
{
	return (op >= MLX5_CMD_OP_GENERAL_START && op < MLX5_CMD_OP_GENERAL_END) ||
	       op_in(k_general, ARRAY_LEN(k_general), op);
}

/* ---- classes ---- */

enum kern_cmd_class kern_devx_classify(uint16_t opcode)
{
	const struct kcreate *c;
	const struct ktarget *t;

	if (op_is_general(opcode))
		return KERN_CMD_GENERAL;
	c = kern_kcreate_find(opcode);
	if (c && c->devx)
		return KERN_CMD_CREATE;
	t = kern_ktarget_find(opcode);
	if (t)
		return (enum kern_cmd_class)t->cls;
	if (kern_kcreate_find_destroy(opcode))
		return KERN_CMD_DESTROY;
	if (op_in(k_kernel_only, ARRAY_LEN(k_kernel_only), opcode))
		return KERN_CMD_KERNEL_ONLY;
	return KERN_CMD_UNKNOWN;
}

const char *kern_cmd_class_str(enum kern_cmd_class cls)
{
	static const char *const names[] = {
		[KERN_CMD_GENERAL] = "general",
		[KERN_CMD_CREATE] = "create",
		[KERN_CMD_MODIFY] = "modify",
		[KERN_CMD_QUERY] = "query",
		[KERN_CMD_DESTROY] = "destroy",
		[KERN_CMD_KERNEL_ONLY] = "kernel-only",
		[KERN_CMD_UNKNOWN] = "unknown",
	};

	if ((unsigned int)cls < ARRAY_LEN(names))
		return names[cls];
	return "invalid";
}

bool kern_devx_is_general_cmd(const void *in, bool vhca_tunnel_cap)
{
	/* "Pass all cmds for vhca_tunnel as general, tracking is done in FW" */
	if (vhca_tunnel_cap && kern_mbox_vhca_tunnel_id(in))
		return true;
	return op_is_general(kern_mbox_opcode(in));
}

bool kern_devx_is_create_cmd(const void *in)
{
	const struct kcreate *c = kern_kcreate_find(kern_mbox_opcode(in));

	return c && c->devx && kern_kcond_holds(c->cond, in);
}

static bool target_is(const void *in, enum kern_cmd_class cls)
{
	uint16_t op = kern_mbox_opcode(in);

	for (size_t i = 0; i < ARRAY_LEN(k_target); i++)
		if (k_target[i].op == op && k_target[i].cls == cls &&
		    kern_kcond_holds(k_target[i].cond, in))
			return true;
	return false;
}

bool kern_devx_is_modify_cmd(const void *in)
{
	return target_is(in, KERN_CMD_MODIFY);
}

bool kern_devx_is_query_cmd(const void *in)
{
	return target_is(in, KERN_CMD_QUERY);
}

bool kern_devx_is_whitelist_cmd(uint16_t opcode)
{
	return op_in(k_whitelist, ARRAY_LEN(k_whitelist), opcode);
}
