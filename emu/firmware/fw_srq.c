/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_srq.c -- CREATE_SRQ / QUERY_SRQ / ARM_RQ / DESTROY_SRQ:
 * the basic SRQ (srqc); what it shares with XRC SRQs and RMPs is in
 * fw_srq_common.c.  The stride is 16 << log_rq_stride; the ring is a page
 * list of registered memory (CREATE_SRQ has no umem form: DEVX users take
 * an RMP or an XRC SRQ) and the doorbell record dbr_addr in registered
 * memory, 8-byte aligned; the CQ and the XRC domain are optional.  ARM_RQ
 * with op_mod 0 arms an RQ: this device has none.
 */
#include "emu/firmware/fw_qp_int.h"

enum fw_synd fw_cmd_create_srq(struct fw_cmd *cmd)
{
	const void *srqc = PRM_ADDR_OF(create_srq_in, cmd->in,
				       srq_context_entry);
	struct fw_srq_params p = { 0 };
	struct emu_fw_srq *srq = NULL;
	enum fw_synd s;

	if (PRM_GET(srqc, srqc, wq_signature) || PRM_GET(srqc, srqc, rlky))
		return FW_SYND_SRQ_FEATURE_NOT_SUPPORTED;
	if (PRM_GET(srqc, srqc, state) != MLX5_SRQC_STATE_GOOD)
		return FW_SYND_SRQ_BAD_STATE;
	p.log_size = PRM_GET(srqc, srqc, log_srq_size);
	p.log_stride = 4 + PRM_GET(srqc, srqc, log_rq_stride);
	p.lwm = PRM_GET(srqc, srqc, lwm);
	p.pd = PRM_GET(srqc, srqc, pd);
	p.cqn = PRM_GET(srqc, srqc, cqn);
	p.xrcd = PRM_GET(srqc, srqc, xrcd);
	p.buf.page_offset = PRM_GET(srqc, srqc, page_offset);
	p.buf.log_page_size = PRM_GET(srqc, srqc, log_page_size);
	p.buf.len = (size_t)1 << (p.log_size + p.log_stride);
	p.buf.pas = PRM_ARRAY_ADDR(create_srq_in, cmd->in, pas, 0);
	p.buf.npas = cmd->inlen > PRM_BYTE_OFF(create_srq_in, pas) ?
		     (cmd->inlen - PRM_BYTE_OFF(create_srq_in, pas)) / 8 : 0;
	p.dbr_addr = PRM_GET64(srqc, srqc, dbr_addr);
	s = fw_srq_create(cmd, EMU_FW_SRQ_BASIC, &p, srqc, &srq);
	if (s)
		return s;
	PRM_SET(create_srq_out, cmd->out, srqn, srq->obj.id);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_query_srq(struct fw_cmd *cmd)
{
	return fw_srq_query(cmd, EMU_FW_SRQ_BASIC,
			    PRM_GET(query_srq_in, cmd->in, srqn),
			    PRM_ADDR_OF(query_srq_out, cmd->out,
					srq_context_entry));
}

enum fw_synd fw_cmd_arm_rq(struct fw_cmd *cmd)
{
	/* op_mod 0 names an RQ (CREATE_RQ): none exist on this device. */
	if (cmd->op_mod != 1)
		return FW_SYND_SRQ_INVALID;
	return fw_srq_arm(cmd, EMU_FW_SRQ_BASIC,
			  PRM_GET(arm_rq_in, cmd->in, srq_number),
			  PRM_GET(arm_rq_in, cmd->in, lwm));
}

enum fw_synd fw_cmd_destroy_srq(struct fw_cmd *cmd)
{
	return fw_srq_destroy(cmd, EMU_FW_SRQ_BASIC,
			      PRM_GET(destroy_srq_in, cmd->in, srqn));
}
