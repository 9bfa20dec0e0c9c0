/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_xrc_srq.c -- CREATE_XRC_SRQ / QUERY_XRC_SRQ /
 * ARM_XRC_SRQ / DESTROY_XRC_SRQ.
 *
 * An XRC SRQ belongs to an XRC domain (xrcd, required) and completes its
 * receives on its own CQ (cqn, required); user_index goes into those CQEs
 * (user_index_equal_xrc_srqn: the XRC SRQ number).  Its WQEs are as a basic
 * SRQ's (fw_srq_common.c: stride 32..max_wqe_sz_rq, at most log_max_srq_sz).
 * Memory: with xrc_srq_umem_valid (DEVX sets it) the ring is
 * xrc_srq_umem_id + xrc_srq_umem_offset + page_offset, and with
 * xrc_srqc.dbr_umem_valid the doorbell record is at
 * db_record_addr_h:db_record_addr_l of xrc_srqc.dbr_umem_id (placements
 * explained in prm/README.md); otherwise a page list and an address in
 * registered memory.  Numbers are shared with SRQs and RMPs; the logic
 * the three share is in fw_srq_common.c.
 */
#include "emu/firmware/fw_qp_int.h"

enum fw_synd fw_cmd_create_xrc_srq(struct fw_cmd *cmd)
{
	const void *c = PRM_ADDR_OF(create_xrc_srq_in, cmd->in,
				    xrc_srq_context_entry);
	struct fw_srq_params p = { 0 };
	struct emu_fw_srq *srq = NULL;
	enum fw_synd s;

	if (!FW_CAP_GEN(cmd->fw, xrc))
		return FW_SYND_SRQ_FEATURE_NOT_SUPPORTED;
	if (PRM_GET(xrc_srqc, c, wq_signature) || PRM_GET(xrc_srqc, c, rlky) ||
	    PRM_GET(xrc_srqc, c, basic_cyclic_rcv_wqe))
		return FW_SYND_SRQ_FEATURE_NOT_SUPPORTED;
	if (PRM_GET(xrc_srqc, c, state) != MLX5_XRC_SRQC_STATE_GOOD)
		return FW_SYND_SRQ_BAD_STATE;
	p.log_size = PRM_GET(xrc_srqc, c, log_xrc_srq_size);
	p.log_stride = 4 + PRM_GET(xrc_srqc, c, log_rq_stride);
	p.lwm = PRM_GET(xrc_srqc, c, lwm);
	p.pd = PRM_GET(xrc_srqc, c, pd);
	p.cqn = PRM_GET(xrc_srqc, c, cqn);
	p.cq_required = true;
	p.xrcd = PRM_GET(xrc_srqc, c, xrcd);
	p.xrcd_required = true;
	p.buf.umem_valid = PRM_GET(create_xrc_srq_in, cmd->in,
				   xrc_srq_umem_valid);
	p.buf.umem_id = PRM_GET(create_xrc_srq_in, cmd->in, xrc_srq_umem_id);
	p.buf.umem_offset = PRM_GET64(create_xrc_srq_in, cmd->in,
				      xrc_srq_umem_offset);
	p.buf.page_offset = PRM_GET(xrc_srqc, c, page_offset);
	p.buf.log_page_size = PRM_GET(xrc_srqc, c, log_page_size);
	p.buf.len = (size_t)1 << (p.log_size + p.log_stride);
	p.buf.pas = PRM_ARRAY_ADDR(create_xrc_srq_in, cmd->in, pas, 0);
	p.buf.npas = cmd->inlen > PRM_BYTE_OFF(create_xrc_srq_in, pas) ?
		     (cmd->inlen - PRM_BYTE_OFF(create_xrc_srq_in, pas)) / 8 : 0;
	p.dbr_umem_valid = PRM_GET(xrc_srqc, c, dbr_umem_valid);
	p.dbr_umem_id = PRM_GET(xrc_srqc, c, dbr_umem_id);
	p.dbr_addr = (uint64_t)PRM_GET(xrc_srqc, c, db_record_addr_h) << 32 |
		     (uint64_t)PRM_GET(xrc_srqc, c, db_record_addr_l) << 2;
	p.user_index = PRM_GET(xrc_srqc, c, user_index);
	s = fw_srq_create(cmd, EMU_FW_SRQ_XRC, &p, c, &srq);
	if (s)
		return s;
	if (PRM_GET(xrc_srqc, c, user_index_equal_xrc_srqn)) {
		pthread_mutex_lock(&srq->lock);
		srq->user_index = srq->obj.id;
		PRM_SET(xrc_srqc, srq->ctx, user_index, srq->obj.id);
		pthread_mutex_unlock(&srq->lock);
	}
	PRM_SET(create_xrc_srq_out, cmd->out, xrc_srqn, srq->obj.id);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_query_xrc_srq(struct fw_cmd *cmd)
{
	return fw_srq_query(cmd, EMU_FW_SRQ_XRC,
			    PRM_GET(query_xrc_srq_in, cmd->in, xrc_srqn),
			    PRM_ADDR_OF(query_xrc_srq_out, cmd->out,
					xrc_srq_context_entry));
}

enum fw_synd fw_cmd_arm_xrc_srq(struct fw_cmd *cmd)
{
	return fw_srq_arm(cmd, EMU_FW_SRQ_XRC,
			  PRM_GET(arm_xrc_srq_in, cmd->in, xrc_srqn),
			  PRM_GET(arm_xrc_srq_in, cmd->in, lwm));
}

enum fw_synd fw_cmd_destroy_xrc_srq(struct fw_cmd *cmd)
{
	return fw_srq_destroy(cmd, EMU_FW_SRQ_XRC,
			      PRM_GET(destroy_xrc_srq_in, cmd->in, xrc_srqn));
}
