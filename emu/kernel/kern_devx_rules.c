/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_devx_rules.c -- the kernel DEVX layer's mailbox rules as
 * tables: one row per creatable PRM object, one per modify/query command,
 * one per command whose *_umem_valid bits the kernel sets.  See
 * kern_devx_rules.h for the sources and the order the kernel applies them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "emu/kernel/kern_devx_rules.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

/* A field: absolute bit offset from the start of the mailbox, width. */
struct kfld {
	uint16_t off;
	uint8_t bits;
};

#define F(typ, fld) { .off = PRM_BIT_OFF(typ, fld), .bits = PRM_BIT_SZ(typ, fld) }
/* A field prm/ has no layout for yet; every use cites mlx5_ifc.h. */
#define FX(off_, bits_) { .off = (off_), .bits = (bits_) }
#define BYTES(typ) ((uint8_t)PRM_ST_SZ_BYTES(typ))

static uint32_t kfld_get(const void *p, struct kfld f)
{
	return prm_get32_(p, f.off, f.bits);
}

static void kfld_set(void *p, struct kfld f, uint32_t v)
{
	prm_set32_(p, f.off, f.bits, v);
}

/* End of the field, in bytes from the start of the mailbox. */
static size_t kfld_end(struct kfld f)
{
	return ((size_t)f.off + f.bits + 7) / 8;
}

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* Mailbox conditions devx.c puts on a command's class. */
enum kcond {
	KC_NONE,
	KC_OPMOD0,	/* set_fte_in.op_mod == 0 */
	KC_OPMOD1,	/* set_fte_in.op_mod == 1 */
	KC_NUM_PSV1,	/* create_psv_in.num_psv == 1 */
};

/*
 * mlx5_ifc.h layouts prm/defs has no struct for (bit offset, width);
 * reported to the prm owner.
 */
static const struct kfld CREATE_PSV_IN_NUM_PSV = FX(0x40, 4);	/* create_psv_in.num_psv */

static bool kcond_holds(enum kcond c, const void *in)
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

static size_t kcond_in_end(enum kcond c)
{
	return c == KC_NUM_PSV1 ? kfld_end(CREATE_PSV_IN_NUM_PSV) : 0;
}

/* A field copied from the create inbox into the destroy inbox. */
struct kcopy {
	struct kfld src;
	struct kfld dst;
};

#define CP(styp, sfld, dtyp, dfld) { .src = F(styp, sfld), .dst = F(dtyp, dfld) }

/*
 * One creatable object (devx_is_obj_create_cmd, devx_get_created_obj_id,
 * devx_obj_build_destroy_cmd).  The destroy inbox gets opcode, the create's
 * uid, the id at destroy_id and the copies; its length is destroy_inlen
 * (MLX5_ST_SZ_BYTES(general_obj_in_cmd_hdr) unless devx.c says otherwise).
 */
struct kcreate {
	uint16_t op;
	uint16_t destroy_op;
	bool devx;		/* accepted by devx_is_obj_create_cmd */
	enum kcond cond;
	bool id_in_inbox;	/* the id is read from the create inbox */
	bool general_obj;	/* obj_type folded into the encoded opcode */
	struct kfld id;
	struct kfld destroy_id;
	uint8_t destroy_inlen;
	struct kcopy copy[4];	/* .dst.bits == 0 ends the list */
};

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

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const struct kcreate *kcreate_find(uint16_t op)
{
	for (size_t i = 0; i < ARRAY_LEN(k_create); i++)
		if (k_create[i].op == op)
			return &k_create[i];
	return NULL;
}

static const struct kcreate *kcreate_find_destroy(uint16_t destroy_op)
{
	for (size_t i = 0; i < ARRAY_LEN(k_create); i++)
		if (k_create[i].destroy_op == destroy_op)
			return &k_create[i];
	return NULL;
}

/*
 * One modify or query command (devx_is_obj_modify_cmd /
 * devx_is_obj_query_cmd) and where devx_get_obj_id finds its target:
 * the id field and the creating opcode it is encoded with.
 */
struct ktarget {
	uint16_t op;
	enum kern_cmd_class cls;	/* KERN_CMD_MODIFY or KERN_CMD_QUERY */
	enum kcond cond;
	bool general_obj;	/* obj_type folded into the encoded opcode */
	uint16_t create_op;
	struct kfld id;
};

#define MOD(op_, cop_, typ, fld) \
	{ .op = MLX5_CMD_OP_##op_, .cls = KERN_CMD_MODIFY, \
	  .create_op = MLX5_CMD_OP_##cop_, .id = F(typ, fld) }
#define QRY(op_, cop_, typ, fld) \
	{ .op = MLX5_CMD_OP_##op_, .cls = KERN_CMD_QUERY, \
	  .create_op = MLX5_CMD_OP_##cop_, .id = F(typ, fld) }
#define MODX(op_, cop_, off_, bits_) \
	{ .op = MLX5_CMD_OP_##op_, .cls = KERN_CMD_MODIFY, \
	  .create_op = MLX5_CMD_OP_##cop_, .id = FX(off_, bits_) }
#define QRYX(op_, cop_, off_, bits_) \
	{ .op = MLX5_CMD_OP_##op_, .cls = KERN_CMD_QUERY, \
	  .create_op = MLX5_CMD_OP_##cop_, .id = FX(off_, bits_) }

static const struct ktarget k_target[] = {
	/* devx_is_obj_modify_cmd */
	{ .op = MLX5_CMD_OP_MODIFY_GENERAL_OBJECT, .cls = KERN_CMD_MODIFY, .general_obj = true,
	  .create_op = MLX5_CMD_OP_CREATE_GENERAL_OBJECT, .id = F(general_obj_in_cmd_hdr, obj_id) },
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
	{ .op = MLX5_CMD_OP_QUERY_GENERAL_OBJECT, .cls = KERN_CMD_QUERY, .general_obj = true,
	  .create_op = MLX5_CMD_OP_CREATE_GENERAL_OBJECT, .id = F(general_obj_in_cmd_hdr, obj_id) },
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

static const struct ktarget *ktarget_find(uint16_t op)
{
	for (size_t i = 0; i < ARRAY_LEN(k_target); i++)
		if (k_target[i].op == op)
			return &k_target[i];
	return NULL;
}

/*
 * devx_set_umem_valid (and devx_handle_mkey_create for CREATE_MKEY): the
 * bits the kernel sets to 1.
 */
struct kumem {
	uint16_t op;
	struct kfld bit[2];	/* .bits == 0: unused */
};

/* create_xrq_in.xrq_context at 0x80; xrqc.wq at 0x400 (mlx5_ifc.h). */
#define XRQ_WQ_BIT(fld) FX(0x80 + 0x400 + PRM_BIT_OFF(wq, fld), 1)

static const struct kumem k_umem[] = {
	{ MLX5_CMD_OP_CREATE_MKEY, { F(create_mkey_in, mkey_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_CQ, { F(create_cq_in, cq_umem_valid),
				   F(create_cq_in, cq_context.dbr_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_QP, { F(create_qp_in, qpc.dbr_umem_valid),
				   F(create_qp_in, wq_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_RQ, { F(create_rq_in, ctx.wq.dbr_umem_valid),
				   F(create_rq_in, ctx.wq.wq_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_SQ, { F(create_sq_in, ctx.wq.dbr_umem_valid),
				   F(create_sq_in, ctx.wq.wq_umem_valid) } },
	{ MLX5_CMD_OP_MODIFY_CQ, { F(modify_cq_in, cq_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_RMP, { F(create_rmp_in, ctx.wq.dbr_umem_valid),
				    F(create_rmp_in, ctx.wq.wq_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_XRQ, { XRQ_WQ_BIT(dbr_umem_valid), XRQ_WQ_BIT(wq_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_XRC_SRQ, { F(create_xrc_srq_in, xrc_srq_umem_valid),
					F(create_xrc_srq_in, xrc_srq_context_entry.dbr_umem_valid) } },
};

static const struct kumem *kumem_find(uint16_t op)
{
	for (size_t i = 0; i < ARRAY_LEN(k_umem); i++)
		if (k_umem[i].op == op)
			return &k_umem[i];
	return NULL;
}

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
	c = kcreate_find(opcode);
	if (c && c->devx)
		return KERN_CMD_CREATE;
	t = ktarget_find(opcode);
	if (t)
		return (enum kern_cmd_class)t->cls;
	if (kcreate_find_destroy(opcode))
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
	const struct kcreate *c = kcreate_find(kern_mbox_opcode(in));

	return c && c->devx && kcond_holds(c->cond, in);
}

static bool target_is(const void *in, enum kern_cmd_class cls)
{
	uint16_t op = kern_mbox_opcode(in);

	for (size_t i = 0; i < ARRAY_LEN(k_target); i++)
		if (k_target[i].op == op && k_target[i].cls == cls &&
		    kcond_holds(k_target[i].cond, in))
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

int kern_devx_pick_uid(uint16_t ctx_uid, uint16_t whitelist_uid,
		       const void *in)
{
	if (kern_devx_is_whitelist_cmd(kern_mbox_opcode(in))) {
		if (ctx_uid)
			return ctx_uid;
		if (whitelist_uid)
			return whitelist_uid;
		return -EOPNOTSUPP;
	}
	if (!ctx_uid)
		return -EINVAL;
	return ctx_uid;
}

/* ---- header fields ---- */

uint16_t kern_mbox_opcode(const void *in)
{
	return (uint16_t)PRM_GET(mbox_in, in, opcode);
}

uint16_t kern_mbox_op_mod(const void *in)
{
	return (uint16_t)PRM_GET(mbox_in, in, op_mod);
}

uint16_t kern_mbox_uid(const void *in)
{
	return (uint16_t)PRM_GET(general_obj_in_cmd_hdr, in, uid);
}

void kern_mbox_set_uid(void *in, uint16_t uid)
{
	PRM_SET(general_obj_in_cmd_hdr, in, uid, uid);
}

uint16_t kern_mbox_vhca_tunnel_id(const void *in)
{
	return (uint16_t)PRM_GET(general_obj_in_cmd_hdr, in, vhca_tunnel_id);
}

uint8_t kern_mbox_status(const void *out)
{
	return (uint8_t)PRM_GET(mbox_out, out, status);
}

uint32_t kern_mbox_syndrome(const void *out)
{
	return PRM_GET(mbox_out, out, syndrome);
}

/* ---- spans ---- */

#define CMD_HDR_BYTES ((size_t)PRM_ST_SZ_BYTES(mbox_in))

size_t kern_devx_in_span(uint16_t opcode)
{
	const struct kcreate *c = kcreate_find(opcode);
	const struct ktarget *t = ktarget_find(opcode);
	const struct kumem *u = kumem_find(opcode);
	size_t span = CMD_HDR_BYTES;

	if (c) {
		if (c->id_in_inbox)
			span = max_sz(span, kfld_end(c->id));
		span = max_sz(span, kcond_in_end(c->cond));
		for (size_t i = 0; i < ARRAY_LEN(c->copy) && c->copy[i].src.bits; i++)
			span = max_sz(span, kfld_end(c->copy[i].src));
	}
	if (t)
		span = max_sz(span, kfld_end(t->id));
	for (size_t i = 0; u && i < ARRAY_LEN(u->bit) && u->bit[i].bits; i++)
		span = max_sz(span, kfld_end(u->bit[i]));
	switch (opcode) {
	case MLX5_CMD_OP_CREATE_MKEY:
		span = max_sz(span, KERN_DEVX_MKEY_IN_MIN);
		break;
	case MLX5_CMD_OP_CREATE_CQ:
		span = max_sz(span, kfld_end((struct kfld)F(create_cq_in, cq_context.c_eqn)));
		break;
	case MLX5_CMD_OP_ALLOC_FLOW_COUNTER:
		span = max_sz(span, BYTES(alloc_flow_counter_in));
		break;
	default:
		break;
	}
	return span;
}

size_t kern_devx_out_span(uint16_t opcode)
{
	const struct kcreate *c = kcreate_find(opcode);
	size_t span = (size_t)PRM_ST_SZ_BYTES(mbox_out);

	if (c && !c->id_in_inbox)
		span = max_sz(span, kfld_end(c->id));
	return span;
}

/* ---- object ids ---- */

static uint64_t enc_created(const struct kcreate *c, const void *in, uint32_t id)
{
	uint32_t op = c->op;

	if (c->general_obj)
		op |= PRM_GET(general_obj_in_cmd_hdr, in, obj_type) << 16;
	return kern_devx_enc_obj_id(op, id);
}

int kern_devx_created_obj_id(const void *in, const void *out, uint64_t *enc_id)
{
	const struct kcreate *c = kcreate_find(kern_mbox_opcode(in));

	if (!c)
		return -EINVAL;
	*enc_id = enc_created(c, in, kfld_get(c->id_in_inbox ? in : out, c->id));
	return 0;
}

int kern_devx_target_obj_id(const void *in, uint64_t *enc_id)
{
	const struct ktarget *t = ktarget_find(kern_mbox_opcode(in));
	uint32_t op;

	if (!t)
		return -EINVAL;
	op = t->create_op;
	if (t->general_obj)
		op |= PRM_GET(general_obj_in_cmd_hdr, in, obj_type) << 16;
	*enc_id = kern_devx_enc_obj_id(op, kfld_get(in, t->id));
	return 0;
}

bool kern_devx_obj_id_matches(uint64_t handle_enc_id,
			      uint32_t flow_counter_bulk, const void *in)
{
	uint64_t enc;

	if (kern_devx_target_obj_id(in, &enc))
		return false;
	if (kern_mbox_opcode(in) == MLX5_CMD_OP_QUERY_FLOW_COUNTER &&
	    flow_counter_bulk)
		return handle_enc_id <= enc &&
		       handle_enc_id + flow_counter_bulk > enc;
	return handle_enc_id == enc;
}

uint32_t kern_devx_flow_counter_bulk(const void *create_in)
{
	uint32_t log;

	if (kern_mbox_opcode(create_in) != MLX5_CMD_OP_ALLOC_FLOW_COUNTER)
		return 0;
	log = PRM_GET(alloc_flow_counter_in, create_in, flow_counter_bulk_log_size);
	if (log)
		return UINT32_C(1) << log;
	return 128 * PRM_GET(alloc_flow_counter_in, create_in, flow_counter_bulk);
}

/* ---- inbox writes ---- */

static void set_umem_valid_bounded(void *in, size_t inlen)
{
	const struct kumem *u = kumem_find(kern_mbox_opcode(in));

	for (size_t i = 0; u && i < ARRAY_LEN(u->bit) && u->bit[i].bits; i++)
		if (kfld_end(u->bit[i]) <= inlen)
			kfld_set(in, u->bit[i], 1);
}

void kern_devx_set_umem_valid(void *in)
{
	set_umem_valid_bounded(in, SIZE_MAX);
}

bool kern_devx_mkey_is_indirect(const void *create_mkey_in)
{
	uint32_t mode;

	if (kern_mbox_opcode(create_mkey_in) != MLX5_CMD_OP_CREATE_MKEY)
		return false;
	mode = PRM_GET(create_mkey_in, create_mkey_in, memory_key_mkey_entry.access_mode_1_0) |
	       PRM_GET(create_mkey_in, create_mkey_in, memory_key_mkey_entry.access_mode_4_2) << 2;
	return mode == MLX5_MKC_ACCESS_MODE_KLMS || mode == MLX5_MKC_ACCESS_MODE_KSM;
}

int kern_devx_prepare_create(void *in, size_t inlen, uint16_t uid)
{
	if (inlen < CMD_HDR_BYTES)
		return -EINVAL;
	kern_mbox_set_uid(in, uid);
	if (kern_mbox_opcode(in) == MLX5_CMD_OP_CREATE_MKEY) {
		/* devx_handle_mkey_create */
		if (inlen < KERN_DEVX_MKEY_IN_MIN)
			return -EINVAL;
		if (kern_devx_mkey_is_indirect(in))
			return 0;
	}
	set_umem_valid_bounded(in, inlen);
	return 0;
}

uint32_t kern_devx_cq_eqn(const void *create_cq_in)
{
	return PRM_GET(create_cq_in, create_cq_in, cq_context.c_eqn);
}

bool kern_devx_cq_is_apu(const void *create_cq_in, bool apu_cap)
{
	return apu_cap && PRM_GET(create_cq_in, create_cq_in, cq_context.apu_cq);
}

/* ---- destroy ---- */

static void kfld_copy(void *dst, struct kfld df, const void *src, struct kfld sf)
{
	if (sf.bits <= 32) {
		kfld_set(dst, df, kfld_get(src, sf));
		return;
	}
	/* Wide fields (the multicast GID) are byte aligned. */
	memcpy((uint8_t *)dst + df.off / 8, (const uint8_t *)src + sf.off / 8,
	       sf.bits / 8u);
}

int kern_devx_build_destroy(const void *create_in, const void *create_out,
			    void *destroy_in, size_t *destroy_inlen,
			    size_t *destroy_outlen)
{
	const struct kcreate *c = kcreate_find(kern_mbox_opcode(create_in));
	uint64_t enc;

	if (!c)
		return -EINVAL;
	kern_devx_created_obj_id(create_in, create_out, &enc);
	memset(destroy_in, 0, c->destroy_inlen);
	PRM_SET(general_obj_in_cmd_hdr, destroy_in, uid, kern_mbox_uid(create_in));
	for (size_t i = 0; i < ARRAY_LEN(c->copy) && c->copy[i].dst.bits; i++)
		kfld_copy(destroy_in, c->copy[i].dst, create_in, c->copy[i].src);
	kfld_set(destroy_in, c->destroy_id, kern_devx_dec_obj_id(enc));
	PRM_SET(mbox_in, destroy_in, opcode, c->destroy_op);
	*destroy_inlen = c->destroy_inlen;
	*destroy_outlen = KERN_DEVX_DESTROY_OUTLEN;
	return 0;
}

enum kern_destroy_flow kern_devx_destroy_flow(const void *create_in,
					      bool apu_cap)
{
	switch (kern_mbox_opcode(create_in)) {
	case MLX5_CMD_OP_CREATE_DCT:
		return KERN_DESTROY_DCT;
	case MLX5_CMD_OP_CREATE_CQ:
		return kern_devx_cq_is_apu(create_in, apu_cap) ?
		       KERN_DESTROY_PLAIN : KERN_DESTROY_CQ;
	default:
		return KERN_DESTROY_PLAIN;
	}
}

int kern_devx_build_drain_dct(const void *destroy_dct_in, void *drain_in,
			      size_t *drain_inlen)
{
	if (kern_mbox_opcode(destroy_dct_in) != MLX5_CMD_OP_DESTROY_DCT)
		return -EINVAL;
	memset(drain_in, 0, PRM_ST_SZ_BYTES(drain_dct_in));
	PRM_SET(drain_dct_in, drain_in, opcode, MLX5_CMD_OP_DRAIN_DCT);
	PRM_SET(drain_dct_in, drain_in, uid, kern_mbox_uid(destroy_dct_in));
	PRM_SET(drain_dct_in, drain_in, dctn, PRM_GET(destroy_dct_in, destroy_dct_in, dctn));
	*drain_inlen = PRM_ST_SZ_BYTES(drain_dct_in);
	return 0;
}

/* ---- status -> errno ---- */

/*
 * cmd_status_to_err(), drivers/net/ethernet/mellanox/mlx5/core/cmd.c
 * (mainline; NOT_READY was added with the status in 2023, older kernels
 * give it the default EIO).  Any status not listed: EIO.
 */
static const struct {
	uint8_t status;
	uint8_t err;
} k_status_errno[] = {
	{ MLX5_CMD_STAT_OK, 0 },
	{ MLX5_CMD_STAT_INT_ERR, EIO },
	{ MLX5_CMD_STAT_BAD_OP_ERR, EINVAL },
	{ MLX5_CMD_STAT_BAD_PARAM_ERR, EINVAL },
	{ MLX5_CMD_STAT_BAD_SYS_STATE_ERR, EIO },
	{ MLX5_CMD_STAT_BAD_RES_ERR, EINVAL },
	{ MLX5_CMD_STAT_RES_BUSY, EBUSY },
	{ MLX5_CMD_STAT_NOT_READY, EAGAIN },
	{ MLX5_CMD_STAT_LIM_ERR, ENOMEM },
	{ MLX5_CMD_STAT_BAD_RES_STATE_ERR, EINVAL },
	{ MLX5_CMD_STAT_IX_ERR, EINVAL },
	{ MLX5_CMD_STAT_NO_RES_ERR, EAGAIN },
	{ MLX5_CMD_STAT_BAD_INP_LEN_ERR, EIO },
	{ MLX5_CMD_STAT_BAD_OUTP_LEN_ERR, EIO },
	{ MLX5_CMD_STAT_BAD_QP_STATE_ERR, EINVAL },
	{ MLX5_CMD_STAT_BAD_PKT_ERR, EINVAL },
	{ MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR, EINVAL },
};

int kern_status_to_errno(uint8_t status)
{
	for (size_t i = 0; i < ARRAY_LEN(k_status_errno); i++)
		if (k_status_errno[i].status == status)
			return -(int)k_status_errno[i].err;
	return -EIO;
}

int kern_devx_status_errno(enum kern_cmd_class cls, uint8_t status)
{
	switch (cls) {
	case KERN_CMD_GENERAL:
	case KERN_CMD_CREATE:
	case KERN_CMD_MODIFY:
	case KERN_CMD_QUERY:
		/* mlx5_cmd_do(): "-EREMOTEIO : ... outbox.status != OK" */
		return status == MLX5_CMD_STAT_OK ? 0 : -EREMOTEIO;
	default:
		return kern_status_to_errno(status);
	}
}

/* ---- the checks of one method ---- */

static bool len_ok(size_t len, size_t min)
{
	return len >= min && len <= KERN_DEVX_ATTR_LEN_MAX;
}

int kern_devx_check(enum kern_devx_method method, const void *in,
		    size_t inlen, size_t outlen, uint16_t ctx_uid,
		    uint16_t whitelist_uid, bool vhca_tunnel_cap,
		    uint16_t *uid)
{
	bool cls_ok;
	int u;

	if (!len_ok(inlen, KERN_DEVX_CMD_IN_MIN))
		return -EINVAL;
	if (method == KERN_DEVX_OBJ_ASYNC_QUERY ? outlen > UINT16_MAX :
	    !len_ok(outlen, KERN_DEVX_CMD_OUT_MIN))
		return -EINVAL;
	if (method != KERN_DEVX_GENERAL && kern_mbox_vhca_tunnel_id(in))
		return -EINVAL;
	u = kern_devx_pick_uid(ctx_uid, whitelist_uid, in);
	if (u < 0)
		return u;
	switch (method) {
	case KERN_DEVX_GENERAL:
		cls_ok = kern_devx_is_general_cmd(in, vhca_tunnel_cap);
		break;
	case KERN_DEVX_OBJ_CREATE:
		cls_ok = kern_devx_is_create_cmd(in);
		break;
	case KERN_DEVX_OBJ_MODIFY:
		cls_ok = kern_devx_is_modify_cmd(in);
		break;
	case KERN_DEVX_OBJ_QUERY:
	case KERN_DEVX_OBJ_ASYNC_QUERY:
		cls_ok = kern_devx_is_query_cmd(in);
		break;
	default:
		return -EINVAL;
	}
	if (!cls_ok)
		return -EINVAL;
	*uid = (uint16_t)u;
	return 0;
}
