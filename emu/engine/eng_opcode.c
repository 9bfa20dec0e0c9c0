/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_opcode.c -- what each send WQE opcode is, in one table:
 * the QP types it is valid on (IBA 9.8.1 / table 38, "operations by
 * service type"), the segments that follow the control segment (PRM "send
 * WQE" layouts, as libmlx5's post_send builds them), the IBA operation it
 * becomes, the access the responder needs (IBA 10.6.3.1 / C10-22..), the
 * CQE opcodes of both ends and whether it consumes a receive WQE.
 */
#include "emu/engine/eng_int.h"
#include "emu/firmware/fw_caps.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

/* atomic_caps.atomic_operations bits (kernel mlx5_ifc.h MLX5_ATOMIC_OPS_*). */
enum {
	ENG_ATOMIC_OPS_MASKED_CMP_SWAP = 1 << 2,
	ENG_ATOMIC_OPS_MASKED_FETCH_ADD = 1 << 3,
};

/* A DCI sends what an RC QP sends (libmlx5's send ops for DCI are RC's). */
#define ALL_ST (ENG_ST_RC | ENG_ST_UC | ENG_ST_UD | ENG_ST_XRC | ENG_ST_DCI)
#define RC_ST (ENG_ST_RC | ENG_ST_XRC | ENG_ST_DCI)
#define CONN_ST (ENG_ST_RC | ENG_ST_UC | ENG_ST_XRC | ENG_ST_DCI)

static const struct eng_opcode_info eng_opcodes[256] = {
	[MLX5_OPCODE_NOP] = {
		.name = "NOP", .qp_types = ALL_ST, .segs = 0,
		.req_cqe = MLX5_CQE_REQ, .resp_cqe = -1,
	},
	[MLX5_OPCODE_SEND] = {
		.name = "SEND", .qp_types = ALL_ST, .segs = ENG_SEG_DATA,
		.wire_op = EMU_WIRE_OP_SEND_ONLY,
		.req_cqe = MLX5_CQE_REQ, .resp_cqe = MLX5_CQE_RESP_SEND,
		.consumes_rwqe = true,
	},
	[MLX5_OPCODE_SEND_IMM] = {
		.name = "SEND_IMM", .qp_types = ALL_ST,
		.segs = ENG_SEG_DATA | ENG_SEG_IMM,
		.wire_op = EMU_WIRE_OP_SEND_ONLY_IMM,
		.req_cqe = MLX5_CQE_REQ, .resp_cqe = MLX5_CQE_RESP_SEND_IMM,
		.consumes_rwqe = true,
	},
	[MLX5_OPCODE_SEND_INVAL] = {
		.name = "SEND_INVAL", .qp_types = RC_ST,
		.segs = ENG_SEG_DATA | ENG_SEG_INV,
		.wire_op = EMU_WIRE_OP_SEND_ONLY_INV,
		.req_cqe = MLX5_CQE_REQ, .resp_cqe = MLX5_CQE_RESP_SEND_INV,
		.consumes_rwqe = true,
	},
	[MLX5_OPCODE_RDMA_WRITE] = {
		.name = "RDMA_WRITE", .qp_types = CONN_ST,
		.segs = ENG_SEG_RADDR | ENG_SEG_DATA,
		.wire_op = EMU_WIRE_OP_WRITE_ONLY, .resp_access = EMU_FW_MKEY_RW,
		.req_cqe = MLX5_CQE_REQ, .resp_cqe = -1,
	},
	[MLX5_OPCODE_RDMA_WRITE_IMM] = {
		.name = "RDMA_WRITE_IMM", .qp_types = CONN_ST,
		.segs = ENG_SEG_RADDR | ENG_SEG_DATA | ENG_SEG_IMM,
		.wire_op = EMU_WIRE_OP_WRITE_ONLY_IMM, .resp_access = EMU_FW_MKEY_RW,
		.req_cqe = MLX5_CQE_REQ, .resp_cqe = MLX5_CQE_RESP_WR_IMM,
		.consumes_rwqe = true,
	},
	[MLX5_OPCODE_RDMA_READ] = {
		.name = "RDMA_READ", .qp_types = RC_ST,
		.segs = ENG_SEG_RADDR | ENG_SEG_DATA,
		.wire_op = EMU_WIRE_OP_READ_REQ, .resp_access = EMU_FW_MKEY_RR,
		.req_cqe = MLX5_CQE_REQ, .resp_cqe = -1, .reads = true,
	},
	[MLX5_OPCODE_ATOMIC_CS] = {
		.name = "ATOMIC_CS", .qp_types = RC_ST,
		.segs = ENG_SEG_RADDR | ENG_SEG_ATOMIC | ENG_SEG_DATA,
		.wire_op = EMU_WIRE_OP_CMP_SWAP, .resp_access = EMU_FW_MKEY_A,
		.req_cqe = MLX5_CQE_REQ, .resp_cqe = -1, .reads = true,
	},
	[MLX5_OPCODE_ATOMIC_FA] = {
		.name = "ATOMIC_FA", .qp_types = RC_ST,
		.segs = ENG_SEG_RADDR | ENG_SEG_ATOMIC | ENG_SEG_DATA,
		.wire_op = EMU_WIRE_OP_FETCH_ADD, .resp_access = EMU_FW_MKEY_A,
		.req_cqe = MLX5_CQE_REQ, .resp_cqe = -1, .reads = true,
	},
	/* Memory window binds and invalidations (libmlx5 set_bind_wr);
	 * executed in the requester, in order (eng_req.c). */
	[MLX5_OPCODE_UMR] = {
		.name = "UMR", .qp_types = CONN_ST, .segs = ENG_SEG_UMR,
		.req_cqe = MLX5_CQE_REQ, .resp_cqe = -1,
	},
	/* The masked forms exist in the PRM; they are valid only when the
	 * atomic page advertises them (eng_opcode_advertised). */
	[MLX5_OPCODE_ATOMIC_MASKED_CS] = {
		.name = "ATOMIC_MASKED_CS", .qp_types = RC_ST,
		.segs = ENG_SEG_RADDR | ENG_SEG_ATOMIC | ENG_SEG_MASKED |
			ENG_SEG_DATA,
		.wire_op = EMU_WIRE_OP_CMP_SWAP, .resp_access = EMU_FW_MKEY_A,
		.req_cqe = MLX5_CQE_REQ, .resp_cqe = -1, .reads = true,
	},
	[MLX5_OPCODE_ATOMIC_MASKED_FA] = {
		.name = "ATOMIC_MASKED_FA", .qp_types = RC_ST,
		.segs = ENG_SEG_RADDR | ENG_SEG_ATOMIC | ENG_SEG_MASKED |
			ENG_SEG_DATA,
		.wire_op = EMU_WIRE_OP_FETCH_ADD, .resp_access = EMU_FW_MKEY_A,
		.req_cqe = MLX5_CQE_REQ, .resp_cqe = -1, .reads = true,
	},
};

const struct eng_opcode_info *eng_opcode(uint8_t mlx5_opcode)
{
	const struct eng_opcode_info *i = &eng_opcodes[mlx5_opcode];

	return i->name ? i : NULL;
}

uint8_t eng_opcode_value(const struct eng_opcode_info *oi)
{
	return (uint8_t)(oi - eng_opcodes);
}

/* The operation a packet of a message belongs to (the responder's view):
 * FIRST and MIDDLE packets name the kind only, the last packet whether it
 * carries an immediate or an invalidation. */
const struct eng_opcode_info *eng_opcode_of_wire(uint8_t opcode)
{
	static const uint8_t of_wire[0x18] = {
		[EMU_WIRE_OP_SEND_FIRST] = MLX5_OPCODE_SEND,
		[EMU_WIRE_OP_SEND_MIDDLE] = MLX5_OPCODE_SEND,
		[EMU_WIRE_OP_SEND_LAST] = MLX5_OPCODE_SEND,
		[EMU_WIRE_OP_SEND_LAST_IMM] = MLX5_OPCODE_SEND_IMM,
		[EMU_WIRE_OP_SEND_ONLY] = MLX5_OPCODE_SEND,
		[EMU_WIRE_OP_SEND_ONLY_IMM] = MLX5_OPCODE_SEND_IMM,
		[EMU_WIRE_OP_SEND_LAST_INV] = MLX5_OPCODE_SEND_INVAL,
		[EMU_WIRE_OP_SEND_ONLY_INV] = MLX5_OPCODE_SEND_INVAL,
		[EMU_WIRE_OP_WRITE_FIRST] = MLX5_OPCODE_RDMA_WRITE,
		[EMU_WIRE_OP_WRITE_MIDDLE] = MLX5_OPCODE_RDMA_WRITE,
		[EMU_WIRE_OP_WRITE_LAST] = MLX5_OPCODE_RDMA_WRITE,
		[EMU_WIRE_OP_WRITE_LAST_IMM] = MLX5_OPCODE_RDMA_WRITE_IMM,
		[EMU_WIRE_OP_WRITE_ONLY] = MLX5_OPCODE_RDMA_WRITE,
		[EMU_WIRE_OP_WRITE_ONLY_IMM] = MLX5_OPCODE_RDMA_WRITE_IMM,
		[EMU_WIRE_OP_READ_REQ] = MLX5_OPCODE_RDMA_READ,
		[EMU_WIRE_OP_CMP_SWAP] = MLX5_OPCODE_ATOMIC_CS,
		[EMU_WIRE_OP_FETCH_ADD] = MLX5_OPCODE_ATOMIC_FA,
	};
	const struct emu_wire_opinfo *wi = emu_wire_opinfo(opcode);
	uint8_t op = opcode & 0x1f;

	if (!wi || !(wi->flags & EMU_WIRE_F_REQ) || op >= sizeof(of_wire) ||
	    !of_wire[op])
		return NULL;
	return eng_opcode(of_wire[op]);
}

unsigned int eng_qp_st_bit(const struct emu_fw_qp *fq)
{
	switch (fq->st) {
	case MLX5_QPC_ST_RC:
		return ENG_ST_RC;
	case MLX5_QPC_ST_UC:
		return ENG_ST_UC;
	case MLX5_QPC_ST_UD:
		return ENG_ST_UD;
	case MLX5_QPC_ST_XRC:
		return ENG_ST_XRC;
	case MLX5_QPC_ST_DCI:
		return ENG_ST_DCI;
	default:
		return 0;
	}
}

bool eng_opcode_advertised(const struct emu_fw *fw, uint8_t op)
{
	const void *atomic = emu_fw_caps_page(emu_fw_get_caps(fw),
					      MLX5_CAP_ATOMIC);
	uint32_t ops = atomic ? PRM_GET(atomic_caps, atomic, atomic_operations) : 0;

	switch (op) {
	case MLX5_OPCODE_ATOMIC_MASKED_CS:
		return ops & ENG_ATOMIC_OPS_MASKED_CMP_SWAP;
	case MLX5_OPCODE_ATOMIC_MASKED_FA:
		return ops & ENG_ATOMIC_OPS_MASKED_FETCH_ADD;
	default:
		return true;
	}
}
