/* SPDX-License-Identifier: MIT */
/*
 * CQ polling and arming, as libmlx5 44 does it (cq.c): a CQE is the
 * software's when its opcode is not MLX5_CQE_INVALID and its owner bit is
 * the parity of the consumer index's pass over the ring; consuming it
 * advances the consumer index, which goes to the doorbell record's set_ci
 * dword when the poll ends.  CQEs are parsed as mlx5_parse_cqe does
 * (cqe_version 1: the queue is found by the user index in srqn_uidx):
 *
 *   REQ                 wc.opcode from the WQE opcode in sop_drop_qpn
 *                       (WRITE[_IMM], SEND[_IMM|_INV], READ with byte_cnt,
 *                       CAS/FAA with 8 bytes, TSO, driver opcodes from the
 *                       queue); wr_id from the queue at wqe_counter
 *   RESP_SEND[_IMM|_INV], RESP_WR_IMM
 *                       RECV / RECV_RDMA_WITH_IMM, byte_len, imm or
 *                       invalidated rkey, src_qp, sl, slid, path bits,
 *                       GRH flag, pkey index; wr_id from the receive queue
 *                       (or the SRQ at wqe_counter)
 *   REQ_ERR, RESP_ERR   status from the syndrome (mlx5_handle_error_cqe),
 *                       vendor_err; wr_id as above
 *   RESIZE_CQ           skipped (consumed, nothing reported)
 *
 * ibv_poll_cq returns the number of completions, or -2 (libmlx5's
 * CQ_POLL_ERR) when a CQE names no known queue.  ibv_req_notify_cq writes
 * the arm dword of the doorbell record (sn << 28 | cmd | ci) and rings the
 * UAR (offset MLX5_CQ_DOORBELL) with that dword and the CQN, as
 * mlx5_arm_cq does.  The ibv_cq_ex functions (cq_ex.c) parse the same way.
 * A poll that finds nothing tells the device (the progress op), once the
 * CQ is let go.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/cq_int.h"
#include "provider/verbs/verbs_ctx.h"

/* libmlx5's MLX5_CQ_DB_REQ_NOT_SOL / MLX5_CQ_DB_REQ_NOT. */
#define PROV_CQ_DB_REQ_NOT_SOL (1u << 24)
#define PROV_CQ_DB_REQ_NOT (0u << 24)

void prov_cq_lock(struct prov_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_lock(&cq->lock);
}

void prov_cq_unlock(struct prov_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_unlock(&cq->lock);
}

struct mlx5_cqe64 *prov_cq_sw_cqe(struct prov_cq *cq, uint32_t n)
{
	struct mlx5_cqe64 *cqe64 = prov_cq_cqe64(cq, n);
	uint8_t op_own = __atomic_load_n(&cqe64->op_own, __ATOMIC_ACQUIRE);

	if ((op_own >> 4) != MLX5_CQE_INVALID &&
	    !((op_own & MLX5_CQE_OWNER_MASK) ^ !!(n & cq->ncqe)))
		return cqe64;
	return NULL;
}

struct mlx5_cqe64 *prov_cq_next_cqe(struct prov_cq *cq)
{
	struct mlx5_cqe64 *cqe64 = prov_cq_sw_cqe(cq, cq->cons_index);

	if (!cqe64)
		return NULL;
	++cq->cons_index;
	/* udma_from_device_barrier: read the CQE after its owner byte. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (cq->pctx->be->dp_verdict)
		prov_cq_dp_fault(cq, cqe64);
	return cqe64;
}

void prov_cq_update_ci(struct prov_cq *cq)
{
	__atomic_store_n(&cq->dbrec[PROV_CQ_SET_CI],
			 htobe32(cq->cons_index & 0xffffff), __ATOMIC_RELEASE);
}

/* mlx5_handle_error_cqe(). */
static enum ibv_wc_status cq_err_status(uint8_t syndrome)
{
	switch (syndrome) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		return IBV_WC_LOC_LEN_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		return IBV_WC_LOC_QP_OP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
		return IBV_WC_LOC_PROT_ERR;
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
		return IBV_WC_WR_FLUSH_ERR;
	case MLX5_CQE_SYNDROME_MW_BIND_ERR:
		return IBV_WC_MW_BIND_ERR;
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR:
		return IBV_WC_BAD_RESP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR:
		return IBV_WC_LOC_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
		return IBV_WC_REM_INV_REQ_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		return IBV_WC_REM_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
		return IBV_WC_REM_OP_ERR;
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
		return IBV_WC_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
		return IBV_WC_RNR_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR:
		return IBV_WC_REM_ABORT_ERR;
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

void prov_cq_req_opcode(const struct mlx5_cqe64 *cqe, struct ibv_wc *wc,
			  enum ibv_wc_opcode recorded)
{
	switch (be32toh(cqe->sop_drop_qpn) >> 24) {
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		wc->wc_flags |= IBV_WC_WITH_IMM;
		/* fallthrough */
	case MLX5_OPCODE_RDMA_WRITE:
		wc->opcode = IBV_WC_RDMA_WRITE;
		break;
	case MLX5_OPCODE_SEND_IMM:
		wc->wc_flags |= IBV_WC_WITH_IMM;
		/* fallthrough */
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_INVAL:
		wc->opcode = IBV_WC_SEND;
		break;
	case MLX5_OPCODE_RDMA_READ:
		wc->opcode = IBV_WC_RDMA_READ;
		wc->byte_len = be32toh(cqe->byte_cnt);
		break;
	case MLX5_OPCODE_ATOMIC_CS:
		wc->opcode = IBV_WC_COMP_SWAP;
		wc->byte_len = 8;
		break;
	case MLX5_OPCODE_ATOMIC_FA:
		wc->opcode = IBV_WC_FETCH_ADD;
		wc->byte_len = 8;
		break;
	case MLX5_OPCODE_UMR:
	case MLX5_OPCODE_SET_PSV:
	case MLX5_OPCODE_NOP:
	case MLX5_OPCODE_MMO:
		wc->opcode = recorded;
		break;
	case MLX5_OPCODE_TSO:
		wc->opcode = IBV_WC_TSO;
		break;
	}
	if (recorded == IBV_WC_DRIVER2)	/* a raw WQE */
		wc->opcode = IBV_WC_DRIVER2;
}

/* The responder fields handle_responder() fills from the CQE. */
static void cq_resp_fields(const struct mlx5_cqe64 *cqe, struct ibv_wc *wc)
{
	uint32_t flags_rqpn = be32toh(cqe->flags_rqpn);

	wc->byte_len = be32toh(cqe->byte_cnt);
	switch (cqe->op_own >> 4) {
	case MLX5_CQE_RESP_WR_IMM:
		wc->opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = cqe->imm_inval_pkey;
		break;
	case MLX5_CQE_RESP_SEND:
		wc->opcode = IBV_WC_RECV;
		break;
	case MLX5_CQE_RESP_SEND_IMM:
		wc->opcode = IBV_WC_RECV;
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = cqe->imm_inval_pkey;
		break;
	case MLX5_CQE_RESP_SEND_INV:
		wc->opcode = IBV_WC_RECV;
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = be32toh(cqe->imm_inval_pkey);
		break;
	}
	wc->slid = be16toh(cqe->slid);
	wc->sl = (flags_rqpn >> 24) & 0xf;
	wc->src_qp = flags_rqpn & 0xffffff;
	wc->dlid_path_bits = cqe->ml_path & 0x7f;
	wc->wc_flags |= ((flags_rqpn >> 28) & 3) ? IBV_WC_GRH : 0;
	wc->pkey_index = be32toh(cqe->imm_inval_pkey) & 0xffff;
}

/* get_csum_ok(): IPv4 with both the L3 and L4 checksums found good. */
unsigned int prov_cq_csum_ok(const struct mlx5_cqe64 *cqe)
{
	unsigned int ok = MLX5_CQE_L3_OK | MLX5_CQE_L4_OK;

	return ((cqe->hds_ip_ext & ok) == ok &&
		((cqe->l4_hdr_type_etc >> 2) & 0x3) == MLX5_CQE_L3_HDR_TYPE_IPV4) ?
	       IBV_WC_IP_CSUM_OK : 0;
}

/* The receive side's wr_id: the SRQ's WQE at wqe_counter, or the RQ's next. */
static int cq_resp_wr_id(struct prov_cq_rsc *rsc, const struct mlx5_cqe64 *cqe,
			 uint64_t *wr_id)
{
	struct prov_cq_rsc *rq = rsc->type == PROV_RSC_QP && rsc->srq ? rsc->srq : rsc;

	if (!rq->rq_complete)
		return CQ_POLL_ERR;
	*wr_id = rq->rq_complete(rq, be16toh(cqe->wqe_counter));
	return CQ_OK;
}

int prov_cq_parse(struct prov_cq *cq, const struct mlx5_cqe64 *cqe,
		  struct ibv_wc *wc, enum ibv_wc_opcode *recorded)
{
	uint32_t uidx = be32toh(cqe->srqn_uidx) & 0xffffff;
	uint8_t opcode = cqe->op_own >> 4;
	enum ibv_wc_opcode rec = IBV_WC_SEND;
	struct prov_cq_rsc *rsc;

	memset(wc, 0, sizeof(*wc));
	cq->cur_csum_valid = false;
	wc->qp_num = be32toh(cqe->sop_drop_qpn) & 0xffffff;
	switch (opcode) {
	case MLX5_CQE_REQ:
		rsc = prov_rsc_find(cq->pctx, uidx);
		if (!rsc || !rsc->sq_complete)
			return CQ_POLL_ERR;
		wc->wr_id = rsc->sq_complete(rsc, be16toh(cqe->wqe_counter), &rec);
		prov_cq_req_opcode(cqe, wc, rec);
		wc->status = IBV_WC_SUCCESS;
		break;
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		rsc = prov_rsc_find(cq->pctx, uidx);
		if (!rsc || cq_resp_wr_id(rsc, cqe, &wc->wr_id))
			return CQ_POLL_ERR;
		cq_resp_fields(cqe, wc);
		/* handle_responder(): a QP's own RQ, not an SRQ's WQE. */
		cq->cur_csum_valid = rsc->type == PROV_RSC_QP && !rsc->srq &&
				     rsc->rx_csum_valid;
		if (cq->cur_csum_valid)
			wc->wc_flags |= prov_cq_csum_ok(cqe);
		wc->status = IBV_WC_SUCCESS;
		break;
	case MLX5_CQE_REQ_ERR:
	case MLX5_CQE_RESP_ERR: {
		const struct mlx5_err_cqe *ecqe = (const struct mlx5_err_cqe *)cqe;

		wc->status = cq_err_status(ecqe->syndrome);
		wc->vendor_err = ecqe->vendor_err_synd;
		rsc = prov_rsc_find(cq->pctx, uidx);
		if (!rsc)
			return CQ_POLL_ERR;
		if (opcode == MLX5_CQE_REQ_ERR) {
			if (!rsc->sq_complete)
				return CQ_POLL_ERR;
			wc->wr_id = rsc->sq_complete(rsc, be16toh(cqe->wqe_counter),
						     &rec);
		} else if (cq_resp_wr_id(rsc, cqe, &wc->wr_id)) {
			return CQ_POLL_ERR;
		}
		break;
	}
	case MLX5_CQE_RESIZE_CQ:
		return CQ_EMPTY;
	default:
		return CQ_POLL_ERR;
	}
	if (recorded)
		*recorded = rec;
	return CQ_OK;
}

int prov_cq_poll(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct prov_cq *cq = to_prov_cq(ibcq);
	int npolled = 0;
	int err = CQ_OK;

	prov_cq_lock(cq);
	while (npolled < ne) {
		struct mlx5_cqe64 *cqe = prov_cq_next_cqe(cq);

		if (!cqe) {
			err = CQ_EMPTY;
			break;
		}
		err = prov_cq_parse(cq, cqe, wc + npolled, NULL);
		if (err == CQ_EMPTY)
			continue;	/* consumed, nothing to report */
		if (err != CQ_OK)
			break;
		npolled++;
		/* An error a rule injected: its QP stops before more. */
		if (__atomic_load_n(&cq->dp_err_qp, __ATOMIC_RELAXED))
			break;
	}
	prov_cq_update_ci(cq);
	prov_cq_unlock(cq);
	prov_cq_dp_finish(cq);
	/* Nothing there: the device may move on this thread (without a
	 * thread of its own it moves only so). */
	if (!npolled && err == CQ_EMPTY)
		prov_progress(cq->pctx, MLX5BE_PROGRESS_POLL);
	return err == CQ_POLL_ERR ? err : npolled;
}

int prov_cq_arm(struct ibv_cq *ibcq, int solicited)
{
	struct prov_cq *cq = to_prov_cq(ibcq);
	void *uar = prov_verbs_ctx(cq->pctx)->cq_uar;
	uint32_t sn = cq->arm_sn & 3;
	uint32_t ci = cq->cons_index & 0xffffff;
	uint32_t cmd = solicited ? PROV_CQ_DB_REQ_NOT_SOL : PROV_CQ_DB_REQ_NOT;
	uint64_t doorbell = (uint64_t)(sn << 28 | cmd | ci) << 32 | cq->cqn;

	__atomic_store_n(&cq->dbrec[PROV_CQ_ARM_DB], htobe32(sn << 28 | cmd | ci),
			 __ATOMIC_RELEASE);
	/* The record before the doorbell (mmio_wc_start), then one 64-bit
	 * big-endian store to the UAR (mmio_write64_be). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (uar)
		__atomic_store_n((uint64_t *)((char *)uar + MLX5_CQ_DOORBELL),
				 htobe64(doorbell), __ATOMIC_RELEASE);
	/* A device that wants to know may take the request now. */
	prov_progress(cq->pctx, MLX5BE_PROGRESS_DOORBELL);
	return 0;
}
