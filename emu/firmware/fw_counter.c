/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_counter.c -- queue counter sets (ALLOC/DEALLOC/QUERY_
 * Q_COUNTER) and flow counters (ALLOC/DEALLOC/QUERY_FLOW_COUNTER).
 *
 * The engines add to the counters (emu_fw_q_counter_add, the flow counter
 * atomics); QUERY reads them and, with clear, zeroes what it read.  Bulk
 * flow-counter allocation and aggregated or other-vport queries are not
 * advertised and are refused.
 */
#include "emu/firmware/fw_int.h"

#define QCNT(e, fld) \
	[EMU_FW_QCNT_##e] = PRM_BIT_OFF(query_q_counter_out, fld)

/* Where each counter sits in query_q_counter_out (all 32-bit). */
static const uint32_t fw_qcnt_off[EMU_FW_QCNT_NUM] = {
	QCNT(RX_WRITE_REQUESTS, rx_write_requests),
	QCNT(RX_READ_REQUESTS, rx_read_requests),
	QCNT(RX_ATOMIC_REQUESTS, rx_atomic_requests),
	QCNT(OUT_OF_BUFFER, out_of_buffer),
	QCNT(OUT_OF_SEQUENCE, out_of_sequence),
	QCNT(DUPLICATE_REQUEST, duplicate_request),
	QCNT(RNR_NAK_RETRY_ERR, rnr_nak_retry_err),
	QCNT(PACKET_SEQ_ERR, packet_seq_err),
	QCNT(IMPLIED_NAK_SEQ_ERR, implied_nak_seq_err),
	QCNT(LOCAL_ACK_TIMEOUT_ERR, local_ack_timeout_err),
	QCNT(RESP_LOCAL_LENGTH_ERROR, resp_local_length_error),
	QCNT(REQ_LOCAL_LENGTH_ERROR, req_local_length_error),
	QCNT(RESP_LOCAL_PROTECTION, resp_local_protection),
	QCNT(REQ_LOCAL_PROTECTION, req_local_protection),
	QCNT(RESP_CQE_ERROR, resp_cqe_error),
	QCNT(REQ_CQE_ERROR, req_cqe_error),
	QCNT(REQ_REMOTE_INVALID_REQUEST, req_remote_invalid_request),
	QCNT(RESP_REMOTE_INVALID_REQUEST, resp_remote_invalid_request),
	QCNT(REQ_REMOTE_ACCESS_ERRORS, req_remote_access_errors),
	QCNT(RESP_REMOTE_ACCESS_ERRORS, resp_remote_access_errors),
	QCNT(REQ_TRANSPORT_RETRIES_EXCEEDED, req_transport_retries_exceeded),
	QCNT(CQ_OVERFLOW, cq_overflow),
	QCNT(RESP_CQE_FLUSH_ERROR, resp_cqe_flush_error),
	QCNT(REQ_CQE_FLUSH_ERROR, req_cqe_flush_error),
	QCNT(REQ_RNR_RETRIES_EXCEEDED, req_rnr_retries_exceeded),
	QCNT(REQ_REMOTE_OPERATION_ERRORS, req_remote_operation_errors),
	QCNT(LOCAL_OPERATION_ERROR, local_operation_error),
	QCNT(RESP_LOCAL_QP_ERROR, resp_local_qp_error),
};

enum fw_synd fw_cmd_alloc_q_counter(struct fw_cmd *cmd)
{
	struct emu_fw_q_counter *qc;
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_Q_COUNTER, &obj);
	if (s)
		return s;
	qc = emu_fw_to_q_counter(obj);
	for (int i = 0; i < EMU_FW_QCNT_NUM; i++)
		atomic_init(&qc->cnt[i], 0);
	s = fw_cmd_obj_publish(obj, FW_SYND_Q_COUNTER_LIMIT);
	if (s)
		return s;
	PRM_SET(alloc_q_counter_out, cmd->out, counter_set_id, obj->id);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_dealloc_q_counter(struct fw_cmd *cmd)
{
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_Q_COUNTER,
				  PRM_GET(dealloc_q_counter_in, cmd->in,
					  counter_set_id),
				  FW_SYND_Q_COUNTER_INVALID,
				  FW_SYND_Q_COUNTER_IN_USE);
}

enum fw_synd fw_cmd_query_q_counter(struct fw_cmd *cmd)
{
	bool clear = PRM_GET(query_q_counter_in, cmd->in, clear);
	struct emu_fw_q_counter *qc;
	struct emu_fw_obj *obj;
	enum fw_synd s;

	if (PRM_GET(query_q_counter_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	if (PRM_GET(query_q_counter_in, cmd->in, aggregate) &&
	    !FW_CAP_GEN(cmd->fw, q_counter_aggregation))
		return FW_SYND_Q_COUNTER_AGGREGATE_NOT_SUPPORTED;
	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_Q_COUNTER,
			   PRM_GET(query_q_counter_in, cmd->in, counter_set_id),
			   FW_SYND_Q_COUNTER_INVALID, &obj);
	if (s)
		return s;
	qc = emu_fw_to_q_counter(obj);
	for (int i = 0; i < EMU_FW_QCNT_NUM; i++) {
		uint32_t v = (uint32_t)(clear ?
			atomic_exchange(&qc->cnt[i], 0) :
			atomic_load(&qc->cnt[i]));

		prm_set32_(cmd->out, fw_qcnt_off[i], 32, v);
	}
	emu_fw_obj_put(obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_alloc_flow_counter(struct fw_cmd *cmd)
{
	struct emu_fw_flow_counter *fc;
	struct emu_fw_obj *obj;
	enum fw_synd s;

	if ((PRM_GET(alloc_flow_counter_in, cmd->in, flow_counter_bulk) ||
	     PRM_GET(alloc_flow_counter_in, cmd->in,
		     flow_counter_bulk_log_size)) &&
	    !FW_CAP_GEN(cmd->fw, flow_counter_bulk_alloc) &&
	    !FW_CAP_GEN(cmd->fw, log_max_flow_counter_bulk))
		return FW_SYND_FLOW_COUNTER_BULK_NOT_SUPPORTED;
	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_FLOW_COUNTER, &obj);
	if (s)
		return s;
	fc = emu_fw_to_flow_counter(obj);
	atomic_init(&fc->packets, 0);
	atomic_init(&fc->octets, 0);
	s = fw_cmd_obj_publish(obj, FW_SYND_FLOW_COUNTER_LIMIT);
	if (s)
		return s;
	PRM_SET(alloc_flow_counter_out, cmd->out, flow_counter_id, obj->id);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_dealloc_flow_counter(struct fw_cmd *cmd)
{
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_FLOW_COUNTER,
				  PRM_GET(dealloc_flow_counter_in, cmd->in,
					  flow_counter_id),
				  FW_SYND_FLOW_COUNTER_INVALID,
				  FW_SYND_FLOW_COUNTER_IN_USE);
}

/*
 * One counter, or num_of_counters consecutive ones (a bulk query; each must
 * exist and belong to the caller), into flow_statistics[].
 */
enum fw_synd fw_cmd_query_flow_counter(struct fw_cmd *cmd)
{
	uint32_t id = PRM_GET(query_flow_counter_in, cmd->in, flow_counter_id);
	uint32_t n = PRM_GET(query_flow_counter_in, cmd->in, num_of_counters);
	bool clear = PRM_GET(query_flow_counter_in, cmd->in, clear);
	enum fw_synd s = FW_SYND_OK;

	if (n == 0)
		n = 1;
	if (cmd->outlen < PRM_ST_SZ_BYTES(query_flow_counter_out) +
			  (size_t)n * PRM_ST_SZ_BYTES(traffic_counter))
		return FW_SYND_BAD_OUTLEN;
	for (uint32_t i = 0; i < n && !s; i++) {
		struct emu_fw_flow_counter *fc;
		struct emu_fw_obj *obj;
		void *st;

		s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_FLOW_COUNTER, id + i,
				   FW_SYND_FLOW_COUNTER_INVALID, &obj);
		if (s)
			break;
		fc = emu_fw_to_flow_counter(obj);
		st = PRM_ARRAY_ADDR(query_flow_counter_out, cmd->out,
				    flow_statistics, i);
		PRM_SET64(traffic_counter, st, packets,
			  clear ? atomic_exchange(&fc->packets, 0) :
				  atomic_load(&fc->packets));
		PRM_SET64(traffic_counter, st, octets,
			  clear ? atomic_exchange(&fc->octets, 0) :
				  atomic_load(&fc->octets));
		emu_fw_obj_put(obj);
	}
	return s;
}
