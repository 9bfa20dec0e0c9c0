/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_cmd.c -- the command interface: header checks, the opcode
 * table, and the outbox status/syndrome.
 *
 * Order of the checks, each answered from the syndrome table:
 *   opcode known to the PRM but not to this device -> BAD_OP
 *   opcode unknown altogether                      -> BAD_OP
 *   inlen below the command's input layout         -> BAD_INP_LEN
 *   outlen below the command's output layout       -> BAD_OUTP_LEN
 *   op_mod not one the command takes               -> BAD_PARAM
 *   uid on a kernel-only command / not a live uctx -> BAD_PARAM
 * then the fault-injection hook, then the command's handler.
 */
#include <errno.h>
#include <string.h>

#include "emu/base/clock.h"
#include "emu/firmware/fw_int.h"
#include "emu/firmware/fw_eth_int.h"

#define FW_OPMOD_ANY UINT32_MAX	/* the handler checks op_mod itself */
#define OPM(n) (UINT32_C(1) << (n))

struct fw_cmd_desc {
	fw_cmd_handler handler;
	uint16_t inlen, outlen;	/* minimal mailbox sizes, bytes */
	uint16_t destroy_op;	/* CREATE class: the matching destroy */
	uint8_t cls;		/* enum emu_fw_cmd_class */
	int8_t obj;		/* enum emu_fw_obj_type, -1 none */
	uint32_t op_mods;	/* accepted op_mod values (bit n: n) */
	bool kernel_only;	/* uid must be 0 */
};

#define IN(st) PRM_ST_SZ_BYTES(st)
#define OUT(st) PRM_ST_SZ_BYTES(st)

#define CMD(op, fn, cls_, obj_, inl, outl, opm)				\
	[MLX5_CMD_OP_##op] = {						\
		.handler = (fn), .inlen = (inl), .outlen = (outl),	\
		.cls = EMU_FW_CMD_##cls_, .obj = (obj_), .op_mods = (opm), \
	}
#define CREATE(op, dop, fn, obj_, inl, outl)				\
	[MLX5_CMD_OP_##op] = {						\
		.handler = (fn), .inlen = (inl), .outlen = (outl),	\
		.destroy_op = MLX5_CMD_OP_##dop,			\
		.cls = EMU_FW_CMD_CREATE, .obj = (obj_), .op_mods = OPM(0), \
	}

#define NO_OBJ (-1)

static const struct fw_cmd_desc fw_cmds[MLX5_CMD_OP_DESTROY_UMEM + 1] = {
	/* Capabilities and identity. */
	CMD(QUERY_HCA_CAP, fw_cmd_query_hca_cap, GENERAL, NO_OBJ,
	    IN(query_hca_cap_in),
	    PRM_BYTE_OFF(query_hca_cap_out, capability) + OUT(cmd_hca_cap),
	    FW_OPMOD_ANY),
	CMD(QUERY_ADAPTER, fw_cmd_query_adapter, GENERAL, NO_OBJ,
	    IN(query_adapter_in), OUT(query_adapter_out), OPM(0)),

	/* User contexts: issued by the kernel only. */
	[MLX5_CMD_OP_CREATE_UCTX] = {
		.handler = fw_cmd_create_uctx, .inlen = IN(create_uctx_in),
		.outlen = OUT(create_uctx_out),
		.destroy_op = MLX5_CMD_OP_DESTROY_UCTX,
		.cls = EMU_FW_CMD_CREATE, .obj = EMU_FW_OBJ_UCTX,
		.op_mods = OPM(0), .kernel_only = true,
	},
	[MLX5_CMD_OP_DESTROY_UCTX] = {
		.handler = fw_cmd_destroy_uctx, .inlen = IN(destroy_uctx_in),
		.outlen = OUT(destroy_uctx_out),
		.cls = EMU_FW_CMD_DESTROY, .obj = EMU_FW_OBJ_UCTX,
		.op_mods = OPM(0), .kernel_only = true,
	},

	/* Memory the device may reach: the kernel registers it for a uid
	 * (its own under uid 0); the MTT list follows the header. */
	CREATE(CREATE_UMEM, DESTROY_UMEM, fw_cmd_create_umem, EMU_FW_OBJ_UMEM,
	       IN(create_umem_in), OUT(create_umem_out)),
	CMD(DESTROY_UMEM, fw_cmd_destroy_umem, DESTROY, EMU_FW_OBJ_UMEM,
	    IN(destroy_umem_in), OUT(destroy_umem_out), OPM(0)),

	/* Protection and transport domains, UARs. */
	CREATE(ALLOC_PD, DEALLOC_PD, fw_cmd_alloc_pd, EMU_FW_OBJ_PD,
	       IN(alloc_pd_in), OUT(alloc_pd_out)),
	CMD(DEALLOC_PD, fw_cmd_dealloc_pd, DESTROY, EMU_FW_OBJ_PD,
	    IN(dealloc_pd_in), OUT(dealloc_pd_out), OPM(0)),
	CREATE(ALLOC_TRANSPORT_DOMAIN, DEALLOC_TRANSPORT_DOMAIN,
	       fw_cmd_alloc_td, EMU_FW_OBJ_TD,
	       IN(alloc_transport_domain_in),
	       OUT(alloc_transport_domain_out)),
	CMD(DEALLOC_TRANSPORT_DOMAIN, fw_cmd_dealloc_td, DESTROY,
	    EMU_FW_OBJ_TD, IN(dealloc_transport_domain_in),
	    OUT(dealloc_transport_domain_out), OPM(0)),
	CREATE(ALLOC_UAR, DEALLOC_UAR, fw_cmd_alloc_uar, EMU_FW_OBJ_UAR,
	       IN(alloc_uar_in), OUT(alloc_uar_out)),
	CMD(DEALLOC_UAR, fw_cmd_dealloc_uar, DESTROY, EMU_FW_OBJ_UAR,
	    IN(dealloc_uar_in), OUT(dealloc_uar_out), OPM(0)),

	/* Memory keys. */
	CREATE(CREATE_MKEY, DESTROY_MKEY, fw_cmd_create_mkey, EMU_FW_OBJ_MKEY,
	       IN(create_mkey_in), OUT(create_mkey_out)),
	CMD(QUERY_MKEY, fw_cmd_query_mkey, QUERY, EMU_FW_OBJ_MKEY,
	    IN(query_mkey_in), OUT(query_mkey_out), OPM(0)),
	CMD(DESTROY_MKEY, fw_cmd_destroy_mkey, DESTROY, EMU_FW_OBJ_MKEY,
	    IN(destroy_mkey_in), OUT(destroy_mkey_out), OPM(0)),

	/* Event and completion queues. */
	CREATE(CREATE_EQ, DESTROY_EQ, fw_cmd_create_eq, EMU_FW_OBJ_EQ,
	       IN(create_eq_in), OUT(create_eq_out)),
	CMD(QUERY_EQ, fw_cmd_query_eq, QUERY, EMU_FW_OBJ_EQ,
	    IN(query_eq_in), OUT(query_eq_out), OPM(0)),
	CMD(DESTROY_EQ, fw_cmd_destroy_eq, DESTROY, EMU_FW_OBJ_EQ,
	    IN(destroy_eq_in), OUT(destroy_eq_out), OPM(0)),
	CREATE(CREATE_CQ, DESTROY_CQ, fw_cmd_create_cq, EMU_FW_OBJ_CQ,
	       IN(create_cq_in), OUT(create_cq_out)),
	CMD(QUERY_CQ, fw_cmd_query_cq, QUERY, EMU_FW_OBJ_CQ,
	    IN(query_cq_in), OUT(query_cq_out), OPM(0)),
	/* op_mod 1 is resize: the handler refuses it without cq_resize. */
	CMD(MODIFY_CQ, fw_cmd_modify_cq, MODIFY, EMU_FW_OBJ_CQ,
	    IN(modify_cq_in), OUT(modify_cq_out), OPM(0) | OPM(1)),
	CMD(DESTROY_CQ, fw_cmd_destroy_cq, DESTROY, EMU_FW_OBJ_CQ,
	    IN(destroy_cq_in), OUT(destroy_cq_out), OPM(0)),

	/* Vports, ports, RoCE addresses, port registers. */
	[MLX5_CMD_OP_ACCESS_REG] = {
		.handler = fw_cmd_access_reg, .inlen = IN(access_register_in),
		.outlen = OUT(access_register_out), .cls = EMU_FW_CMD_GENERAL,
		.obj = NO_OBJ, .kernel_only = true,
		.op_mods = OPM(MLX5_ACCESS_REG_WRITE) | OPM(MLX5_ACCESS_REG_READ),
	},
	CMD(QUERY_VPORT_STATE, fw_cmd_query_vport_state, GENERAL, NO_OBJ,
	    IN(query_vport_state_in), OUT(query_vport_state_out),
	    OPM(MLX5_VPORT_STATE_OP_MOD_VNIC_VPORT) |
	    OPM(MLX5_VPORT_STATE_OP_MOD_ESW_VPORT) |
	    OPM(MLX5_VPORT_STATE_OP_MOD_UPLINK)),
	CMD(QUERY_VNIC_ENV, fw_cmd_query_vnic_env, GENERAL, NO_OBJ,
	    IN(query_vnic_env_in), OUT(query_vnic_env_out), OPM(0)),
	CMD(QUERY_NIC_VPORT_CONTEXT, fw_cmd_query_nic_vport_context, GENERAL,
	    NO_OBJ, IN(query_nic_vport_context_in),
	    OUT(query_nic_vport_context_out), OPM(0)),
	CMD(QUERY_HCA_VPORT_CONTEXT, fw_cmd_query_hca_vport_context, GENERAL,
	    NO_OBJ, IN(query_hca_vport_context_in),
	    OUT(query_hca_vport_context_out), OPM(0)),
	CMD(QUERY_HCA_VPORT_GID, fw_cmd_query_hca_vport_gid, GENERAL, NO_OBJ,
	    IN(query_hca_vport_gid_in),
	    OUT(query_hca_vport_gid_out) + 16, OPM(0)),
	CMD(QUERY_ROCE_ADDRESS, fw_cmd_query_roce_address, GENERAL, NO_OBJ,
	    IN(query_roce_address_in), OUT(query_roce_address_out), OPM(0)),
	CMD(SET_ROCE_ADDRESS, fw_cmd_set_roce_address, GENERAL, NO_OBJ,
	    IN(set_roce_address_in), OUT(set_roce_address_out), OPM(0)),
	CMD(QUERY_LAG, fw_cmd_query_lag, GENERAL, NO_OBJ,
	    IN(query_lag_in), OUT(query_lag_out), OPM(0)),

	/* Counters. */
	CREATE(ALLOC_Q_COUNTER, DEALLOC_Q_COUNTER, fw_cmd_alloc_q_counter,
	       EMU_FW_OBJ_Q_COUNTER, IN(alloc_q_counter_in),
	       OUT(alloc_q_counter_out)),
	CMD(DEALLOC_Q_COUNTER, fw_cmd_dealloc_q_counter, DESTROY,
	    EMU_FW_OBJ_Q_COUNTER, IN(dealloc_q_counter_in),
	    OUT(dealloc_q_counter_out), OPM(0)),
	CMD(QUERY_Q_COUNTER, fw_cmd_query_q_counter, QUERY,
	    EMU_FW_OBJ_Q_COUNTER, IN(query_q_counter_in),
	    OUT(query_q_counter_out), OPM(0)),
	CREATE(ALLOC_FLOW_COUNTER, DEALLOC_FLOW_COUNTER,
	       fw_cmd_alloc_flow_counter, EMU_FW_OBJ_FLOW_COUNTER,
	       IN(alloc_flow_counter_in), OUT(alloc_flow_counter_out)),
	CMD(DEALLOC_FLOW_COUNTER, fw_cmd_dealloc_flow_counter, DESTROY,
	    EMU_FW_OBJ_FLOW_COUNTER, IN(dealloc_flow_counter_in),
	    OUT(dealloc_flow_counter_out), OPM(0)),
	CMD(QUERY_FLOW_COUNTER, fw_cmd_query_flow_counter, QUERY,
	    EMU_FW_OBJ_FLOW_COUNTER, IN(query_flow_counter_in),
	    OUT(query_flow_counter_out) + OUT(traffic_counter), OPM(0)),

	/* XRC domains, shared receive queues (SRQ, XRC SRQ, RMP). */
	CREATE(ALLOC_XRCD, DEALLOC_XRCD, fw_cmd_alloc_xrcd, EMU_FW_OBJ_XRCD,
	       IN(alloc_xrcd_in), OUT(alloc_xrcd_out)),
	CMD(DEALLOC_XRCD, fw_cmd_dealloc_xrcd, DESTROY, EMU_FW_OBJ_XRCD,
	    IN(dealloc_xrcd_in), OUT(dealloc_xrcd_out), OPM(0)),
	CREATE(CREATE_SRQ, DESTROY_SRQ, fw_cmd_create_srq, EMU_FW_OBJ_SRQ,
	       IN(create_srq_in), OUT(create_srq_out)),
	CMD(QUERY_SRQ, fw_cmd_query_srq, QUERY, EMU_FW_OBJ_SRQ,
	    IN(query_srq_in), OUT(query_srq_out), OPM(0)),
	/* op_mod 0 arms an RQ (none here), 1 an SRQ (MLX5_ARM_RQ_IN_OP_MOD_SRQ) */
	CMD(ARM_RQ, fw_cmd_arm_rq, MODIFY, EMU_FW_OBJ_SRQ,
	    IN(arm_rq_in), OUT(arm_rq_out), OPM(0) | OPM(1)),
	CMD(DESTROY_SRQ, fw_cmd_destroy_srq, DESTROY, EMU_FW_OBJ_SRQ,
	    IN(destroy_srq_in), OUT(destroy_srq_out), OPM(0)),
	CREATE(CREATE_XRC_SRQ, DESTROY_XRC_SRQ, fw_cmd_create_xrc_srq,
	       EMU_FW_OBJ_SRQ, IN(create_xrc_srq_in), OUT(create_xrc_srq_out)),
	CMD(QUERY_XRC_SRQ, fw_cmd_query_xrc_srq, QUERY, EMU_FW_OBJ_SRQ,
	    IN(query_xrc_srq_in), OUT(query_xrc_srq_out), OPM(0)),
	/* op_mod 1: MLX5_ARM_XRC_SRQ_IN_OP_MOD_XRC_SRQ (srq_cmd.c) */
	CMD(ARM_XRC_SRQ, fw_cmd_arm_xrc_srq, MODIFY, EMU_FW_OBJ_SRQ,
	    IN(arm_xrc_srq_in), OUT(arm_xrc_srq_out), OPM(1)),
	CMD(DESTROY_XRC_SRQ, fw_cmd_destroy_xrc_srq, DESTROY, EMU_FW_OBJ_SRQ,
	    IN(destroy_xrc_srq_in), OUT(destroy_xrc_srq_out), OPM(0)),
	CREATE(CREATE_RMP, DESTROY_RMP, fw_cmd_create_rmp, EMU_FW_OBJ_SRQ,
	       IN(create_rmp_in), OUT(create_rmp_out)),
	CMD(MODIFY_RMP, fw_cmd_modify_rmp, MODIFY, EMU_FW_OBJ_SRQ,
	    IN(modify_rmp_in), OUT(modify_rmp_out), OPM(0)),
	CMD(QUERY_RMP, fw_cmd_query_rmp, QUERY, EMU_FW_OBJ_SRQ,
	    IN(query_rmp_in), OUT(query_rmp_out), OPM(0)),
	CMD(DESTROY_RMP, fw_cmd_destroy_rmp, DESTROY, EMU_FW_OBJ_SRQ,
	    IN(destroy_rmp_in), OUT(destroy_rmp_out), OPM(0)),

	/* Queue pairs: create/query/destroy and every transition (RTS2SQD has
	 * no public opcode; see prm/README.md). */
	CREATE(CREATE_QP, DESTROY_QP, fw_cmd_create_qp, EMU_FW_OBJ_QP,
	       IN(create_qp_in), OUT(create_qp_out)),
	CMD(QUERY_QP, fw_cmd_query_qp, QUERY, EMU_FW_OBJ_QP,
	    IN(query_qp_in), PRM_BYTE_OFF(query_qp_out, pas), OPM(0)),
	CMD(DESTROY_QP, fw_cmd_destroy_qp, DESTROY, EMU_FW_OBJ_QP,
	    IN(destroy_qp_in), OUT(destroy_qp_out), OPM(0)),
	CMD(RST2INIT_QP, fw_cmd_modify_qp, MODIFY, EMU_FW_OBJ_QP,
	    IN(rst2init_qp_in), OUT(rst2init_qp_out), OPM(0)),
	CMD(INIT2INIT_QP, fw_cmd_modify_qp, MODIFY, EMU_FW_OBJ_QP,
	    IN(init2init_qp_in), OUT(init2init_qp_out), OPM(0)),
	CMD(INIT2RTR_QP, fw_cmd_modify_qp, MODIFY, EMU_FW_OBJ_QP,
	    IN(init2rtr_qp_in), OUT(init2rtr_qp_out), OPM(0)),
	CMD(RTR2RTS_QP, fw_cmd_modify_qp, MODIFY, EMU_FW_OBJ_QP,
	    IN(rtr2rts_qp_in), OUT(rtr2rts_qp_out), OPM(0)),
	CMD(RTS2RTS_QP, fw_cmd_modify_qp, MODIFY, EMU_FW_OBJ_QP,
	    IN(rts2rts_qp_in), OUT(rts2rts_qp_out), OPM(0)),
	CMD(SQERR2RTS_QP, fw_cmd_modify_qp, MODIFY, EMU_FW_OBJ_QP,
	    IN(sqerr2rts_qp_in), OUT(sqerr2rts_qp_out), OPM(0)),
	CMD(SQD_RTS_QP, fw_cmd_modify_qp, MODIFY, EMU_FW_OBJ_QP,
	    IN(sqd2rts_qp_in), OUT(sqd2rts_qp_out), OPM(0)),
	CMD(2ERR_QP, fw_cmd_modify_qp, MODIFY, EMU_FW_OBJ_QP,
	    IN(qp_2err_in), OUT(qp_2err_out), OPM(0)),
	CMD(2RST_QP, fw_cmd_modify_qp, MODIFY, EMU_FW_OBJ_QP,
	    IN(qp_2rst_in), OUT(qp_2rst_out), OPM(0)),

	/* DC targets (QP numbers). */
	CREATE(CREATE_DCT, DESTROY_DCT, fw_cmd_create_dct, EMU_FW_OBJ_QP,
	       IN(create_dct_in), OUT(create_dct_out)),
	CMD(QUERY_DCT, fw_cmd_query_dct, QUERY, EMU_FW_OBJ_QP,
	    IN(query_dct_in), OUT(query_dct_out), OPM(0)),
	CMD(DRAIN_DCT, fw_cmd_drain_dct, MODIFY, EMU_FW_OBJ_QP,
	    IN(drain_dct_in), OUT(drain_dct_out), OPM(0)),
	CMD(ARM_DCT_FOR_KEY_VIOLATION, fw_cmd_arm_dct, MODIFY, EMU_FW_OBJ_QP,
	    IN(arm_dct_in), OUT(arm_dct_out), OPM(0)),
	CMD(DESTROY_DCT, fw_cmd_destroy_dct, DESTROY, EMU_FW_OBJ_QP,
	    IN(destroy_dct_in), OUT(destroy_dct_out), OPM(0)),

	/* Ethernet queues: TIS, SQ, RQ, RQT, TIR (fw_eth_*.c). */
	CREATE(CREATE_TIS, DESTROY_TIS, fw_cmd_create_tis, EMU_FW_OBJ_TIS,
	       IN(create_tis_in), OUT(create_tis_out)),
	CMD(MODIFY_TIS, fw_cmd_modify_tis, MODIFY, EMU_FW_OBJ_TIS,
	    IN(modify_tis_in), OUT(modify_tis_out), OPM(0)),
	CMD(QUERY_TIS, fw_cmd_query_tis, QUERY, EMU_FW_OBJ_TIS,
	    IN(query_tis_in), OUT(query_tis_out), OPM(0)),
	CMD(DESTROY_TIS, fw_cmd_destroy_tis, DESTROY, EMU_FW_OBJ_TIS,
	    IN(destroy_tis_in), OUT(destroy_tis_out), OPM(0)),
	CREATE(CREATE_SQ, DESTROY_SQ, fw_cmd_create_sq, EMU_FW_OBJ_SQ,
	       IN(create_sq_in), OUT(create_sq_out)),
	CMD(MODIFY_SQ, fw_cmd_modify_sq, MODIFY, EMU_FW_OBJ_SQ,
	    IN(modify_sq_in), OUT(modify_sq_out), OPM(0)),
	CMD(QUERY_SQ, fw_cmd_query_sq, QUERY, EMU_FW_OBJ_SQ,
	    IN(query_sq_in), OUT(query_sq_out), OPM(0)),
	CMD(DESTROY_SQ, fw_cmd_destroy_sq, DESTROY, EMU_FW_OBJ_SQ,
	    IN(destroy_sq_in), OUT(destroy_sq_out), OPM(0)),
	CREATE(CREATE_RQ, DESTROY_RQ, fw_cmd_create_rq, EMU_FW_OBJ_RQ,
	       IN(create_rq_in), OUT(create_rq_out)),
	CMD(MODIFY_RQ, fw_cmd_modify_rq, MODIFY, EMU_FW_OBJ_RQ,
	    IN(modify_rq_in), OUT(modify_rq_out), OPM(0)),
	CMD(QUERY_RQ, fw_cmd_query_rq, QUERY, EMU_FW_OBJ_RQ,
	    IN(query_rq_in), OUT(query_rq_out), OPM(0)),
	CMD(DESTROY_RQ, fw_cmd_destroy_rq, DESTROY, EMU_FW_OBJ_RQ,
	    IN(destroy_rq_in), OUT(destroy_rq_out), OPM(0)),
	CREATE(CREATE_RQT, DESTROY_RQT, fw_cmd_create_rqt, EMU_FW_OBJ_RQT,
	       IN(create_rqt_in), OUT(create_rqt_out)),
	CMD(MODIFY_RQT, fw_cmd_modify_rqt, MODIFY, EMU_FW_OBJ_RQT,
	    IN(modify_rqt_in), OUT(modify_rqt_out), OPM(0)),
	CMD(QUERY_RQT, fw_cmd_query_rqt, QUERY, EMU_FW_OBJ_RQT,
	    IN(query_rqt_in), OUT(query_rqt_out), OPM(0)),
	CMD(DESTROY_RQT, fw_cmd_destroy_rqt, DESTROY, EMU_FW_OBJ_RQT,
	    IN(destroy_rqt_in), OUT(destroy_rqt_out), OPM(0)),
	CREATE(CREATE_TIR, DESTROY_TIR, fw_cmd_create_tir, EMU_FW_OBJ_TIR,
	       IN(create_tir_in), OUT(create_tir_out)),
	CMD(MODIFY_TIR, fw_cmd_modify_tir, MODIFY, EMU_FW_OBJ_TIR,
	    IN(modify_tir_in), OUT(modify_tir_out), OPM(0)),
	CMD(QUERY_TIR, fw_cmd_query_tir, QUERY, EMU_FW_OBJ_TIR,
	    IN(query_tir_in), OUT(query_tir_out), OPM(0)),
	CMD(DESTROY_TIR, fw_cmd_destroy_tir, DESTROY, EMU_FW_OBJ_TIR,
	    IN(destroy_tir_in), OUT(destroy_tir_out), OPM(0)),
	/* NIC flow steering: tables, groups, entries, the roots. */
	CREATE(CREATE_FLOW_TABLE, DESTROY_FLOW_TABLE, fw_cmd_create_flow_table,
	       EMU_FW_OBJ_FLOW_TABLE, IN(create_flow_table_in),
	       OUT(create_flow_table_out)),
	CMD(MODIFY_FLOW_TABLE, fw_cmd_modify_flow_table, MODIFY,
	    EMU_FW_OBJ_FLOW_TABLE, IN(modify_flow_table_in),
	    OUT(modify_flow_table_out), OPM(0)),
	CMD(QUERY_FLOW_TABLE, fw_cmd_query_flow_table, QUERY,
	    EMU_FW_OBJ_FLOW_TABLE, IN(query_flow_table_in),
	    OUT(query_flow_table_out), OPM(0)),
	CMD(DESTROY_FLOW_TABLE, fw_cmd_destroy_flow_table, DESTROY,
	    EMU_FW_OBJ_FLOW_TABLE, IN(destroy_flow_table_in),
	    OUT(destroy_flow_table_out), OPM(0)),
	CREATE(CREATE_FLOW_GROUP, DESTROY_FLOW_GROUP, fw_cmd_create_flow_group,
	       EMU_FW_OBJ_FLOW_GROUP, IN(create_flow_group_in),
	       OUT(create_flow_group_out)),
	CMD(QUERY_FLOW_GROUP, fw_cmd_query_flow_group, QUERY,
	    EMU_FW_OBJ_FLOW_GROUP, IN(query_flow_group_in),
	    OUT(query_flow_group_out), OPM(0)),
	CMD(DESTROY_FLOW_GROUP, fw_cmd_destroy_flow_group, DESTROY,
	    EMU_FW_OBJ_FLOW_GROUP, IN(destroy_flow_group_in),
	    OUT(destroy_flow_group_out), OPM(0)),
	/* op_mod 0 creates an entry, 1 modifies it (flow_modify_en). */
	[MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY] = {
		.handler = fw_cmd_set_fte, .inlen = IN(set_fte_in),
		.outlen = OUT(set_fte_out),
		.destroy_op = MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY,
		.cls = EMU_FW_CMD_CREATE, .obj = NO_OBJ,
		.op_mods = OPM(0) | OPM(1),
	},
	CMD(QUERY_FLOW_TABLE_ENTRY, fw_cmd_query_fte, QUERY, NO_OBJ,
	    IN(query_fte_in), OUT(query_fte_out), OPM(0)),
	CMD(DELETE_FLOW_TABLE_ENTRY, fw_cmd_delete_fte, DESTROY, NO_OBJ,
	    IN(delete_fte_in), OUT(delete_fte_out), OPM(0)),
	/* The kernel's own root; op_mod 1 disconnects it. */
	[MLX5_CMD_OP_SET_FLOW_TABLE_ROOT] = {
		.handler = fw_cmd_set_flow_table_root,
		.inlen = IN(set_flow_table_root_in),
		.outlen = OUT(set_flow_table_root_out),
		.cls = EMU_FW_CMD_GENERAL, .obj = NO_OBJ,
		.op_mods = OPM(0) | OPM(1), .kernel_only = true,
	},
	/* The vport context mlx5_core sets; DEVX may not. */
	[MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT] = {
		.handler = fw_cmd_modify_nic_vport_context,
		.inlen = IN(modify_nic_vport_context_in),
		.outlen = OUT(modify_nic_vport_context_out),
		.cls = EMU_FW_CMD_GENERAL, .obj = NO_OBJ,
		.op_mods = OPM(0), .kernel_only = true,
	},
};

#define FW_NCMDS (sizeof(fw_cmds) / sizeof(fw_cmds[0]))

static const struct fw_cmd_desc *fw_cmd_desc(uint16_t opcode)
{
	if (opcode >= FW_NCMDS || !fw_cmds[opcode].handler)
		return NULL;
	return &fw_cmds[opcode];
}

/* Opcodes of the PRM (prm/opcodes.def), implemented or not. */
static bool fw_opcode_known(uint16_t opcode)
{
	switch (opcode) {
#define PRM_OPCODE(name, val) case (val):
#include "prm/opcodes.def"
#undef PRM_OPCODE
		return true;
	default:
		return false;
	}
}

int emu_fw_cmd_info(uint16_t opcode, struct emu_fw_cmd_info *info)
{
	const struct fw_cmd_desc *d = fw_cmd_desc(opcode);

	if (!d)
		return -ENOENT;
	if (info) {
		info->cls = (enum emu_fw_cmd_class)d->cls;
		info->obj_type = d->obj;
		info->destroy_opcode = d->destroy_op;
		info->min_inlen = d->inlen;
		info->min_outlen = d->outlen;
	}
	return 0;
}

static enum fw_synd fw_cmd_check(struct fw_cmd *cmd,
				 const struct fw_cmd_desc **descp)
{
	const struct fw_cmd_desc *d = fw_cmd_desc(cmd->opcode);
	struct emu_fw_obj *uctx;

	if (!d)
		return fw_opcode_known(cmd->opcode) ?
			FW_SYND_OPCODE_NOT_SUPPORTED : FW_SYND_BAD_OPCODE;
	if (cmd->inlen < d->inlen)
		return FW_SYND_BAD_INLEN;
	if (cmd->outlen < d->outlen)
		return FW_SYND_BAD_OUTLEN;
	if (d->op_mods != FW_OPMOD_ANY &&
	    (cmd->op_mod >= 32 || !(d->op_mods & OPM(cmd->op_mod))))
		return FW_SYND_BAD_OP_MOD;
	if (cmd->uid) {
		if (d->kernel_only)
			return FW_SYND_UID_NOT_ALLOWED;
		uctx = emu_fw_obj_get(cmd->fw, EMU_FW_OBJ_UCTX, cmd->uid);
		if (!uctx)
			return FW_SYND_BAD_UID;
		emu_fw_obj_put(uctx);
	}
	*descp = d;
	return FW_SYND_OK;
}

static void fw_out_set(void *out, uint8_t status, uint32_t syndrome)
{
	PRM_SET(mbox_out, out, status, status);
	PRM_SET(mbox_out, out, syndrome, syndrome);
}

uint8_t emu_fw_out_status(const void *out)
{
	return (uint8_t)PRM_GET(mbox_out, out, status);
}

uint32_t emu_fw_out_syndrome(const void *out)
{
	return PRM_GET(mbox_out, out, syndrome);
}

static bool fw_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
	uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;

	return pa < pb + blen && pb < pa + alen;
}

int emu_fw_cmd_exec(struct emu_fw *fw, const void *in, size_t inlen,
		    void *out, size_t outlen)
{
	const struct emu_fw_hooks *hooks;
	const struct emu_fw_tracer *tracer;
	const struct fw_cmd_desc *d = NULL;
	const struct fw_syndrome *sy;
	struct fw_cmd cmd = {
		.fw = fw, .in = in, .inlen = inlen,
		.out = out, .outlen = outlen,
	};
	uint8_t status;
	uint32_t syndrome;
	enum fw_synd s;
	uint64_t t0 = 0;
	bool injected = false;

	if (!fw || !in || !out || outlen < 8 || fw_overlap(in, inlen, out,
							   outlen))
		return -EINVAL;
	tracer = atomic_load_explicit(&fw->tracer, memory_order_acquire);
	if (tracer)
		t0 = emu_clock_ns();
	memset(out, 0, outlen);
	atomic_fetch_add_explicit(&fw->ncmds, 1, memory_order_relaxed);
	if (inlen < 8) {
		s = FW_SYND_BAD_INLEN;
		goto answer;
	}
	cmd.opcode = (uint16_t)PRM_GET(mbox_in, in, opcode);
	cmd.uid = (uint16_t)PRM_GET(mbox_in, in, uid);
	cmd.op_mod = (uint16_t)PRM_GET(mbox_in, in, op_mod);

	s = fw_cmd_check(&cmd, &d);
	if (s)
		goto answer;

	hooks = atomic_load_explicit(&fw->hooks, memory_order_acquire);
	if (hooks && hooks->pre_cmd) {
		status = 0;
		syndrome = 0;
		if (hooks->pre_cmd(hooks->arg, in, inlen, cmd.opcode,
				   cmd.op_mod, cmd.uid, &status, &syndrome)) {
			injected = true;
			if (!status) {
				sy = fw_syndrome_get(FW_SYND_INJECTED);
				status = sy->status;
				syndrome = sy->value;
			}
			goto answer_raw;
		}
	}
	s = d->handler(&cmd);

answer:
	sy = fw_syndrome_get(s);
	status = sy->status;
	syndrome = sy->value;
	if (s != FW_SYND_OK)	/* a failed command returns nothing else */
		memset(out, 0, outlen);
answer_raw:
	fw_out_set(out, status, syndrome);
	if (status != MLX5_CMD_STAT_OK)
		atomic_fetch_add_explicit(&fw->nfailed, 1,
					  memory_order_relaxed);
	hooks = atomic_load_explicit(&fw->hooks, memory_order_acquire);
	if (hooks && hooks->post_cmd)
		hooks->post_cmd(hooks->arg, in, inlen, out, outlen);
	if (tracer)
		tracer->cmd(tracer->arg, in, inlen, out, outlen,
			    emu_clock_ns() - t0, injected);
	return 0;
}

void emu_fw_set_hooks(struct emu_fw *fw, const struct emu_fw_hooks *hooks)
{
	atomic_store_explicit(&fw->hooks, hooks, memory_order_release);
}

void emu_fw_set_tracer(struct emu_fw *fw, const struct emu_fw_tracer *tracer)
{
	atomic_store_explicit(&fw->tracer, tracer, memory_order_release);
}
