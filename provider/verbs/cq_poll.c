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
 * mlx5_arm_cq does.  The ibv_cq_ex functions parse the same way;
 * start_poll/next_poll give ENOENT when the CQ is empty.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/verbs_ctx.h"

enum {
	CQ_OK = 0,
	CQ_EMPTY = -1,
	CQ_POLL_ERR = -2,
};

/* libmlx5's MLX5_CQ_DB_REQ_NOT_SOL / MLX5_CQ_DB_REQ_NOT. */
#define PROV_CQ_DB_REQ_NOT_SOL (1u << 24)
#define PROV_CQ_DB_REQ_NOT (0u << 24)

/* libmlx5's MLX5_FLOW_TAG_MASK. */
#define PROV_FLOW_TAG_MASK 0x000fffff

static void cq_lock(struct prov_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_lock(&cq->lock);
}

static void cq_unlock(struct prov_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_unlock(&cq->lock);
}

/* The CQE64 of entry @n when software owns it, else NULL. */
static struct mlx5_cqe64 *cq_sw_cqe(struct prov_cq *cq, uint32_t n)
{
	char *cqe = (char *)cq->buf.buf + (size_t)(n & (cq->ncqe - 1)) * cq->cqe_sz;
	struct mlx5_cqe64 *cqe64 = (struct mlx5_cqe64 *)
		(cq->cqe_sz == 64 ? cqe : cqe + 64);
	uint8_t op_own = __atomic_load_n(&cqe64->op_own, __ATOMIC_ACQUIRE);

	if ((op_own >> 4) != MLX5_CQE_INVALID &&
	    !((op_own & MLX5_CQE_OWNER_MASK) ^ !!(n & cq->ncqe)))
		return cqe64;
	return NULL;
}

static struct mlx5_cqe64 *cq_next_cqe(struct prov_cq *cq)
{
	struct mlx5_cqe64 *cqe64 = cq_sw_cqe(cq, cq->cons_index);

	if (!cqe64)
		return NULL;
	++cq->cons_index;
	/* udma_from_device_barrier: read the CQE after its owner byte. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return cqe64;
}

static void cq_update_ci(struct prov_cq *cq)
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

/* handle_good_req(): the opcode (and byte_len, flags) of a requester CQE. */
static void cq_req_opcode(const struct mlx5_cqe64 *cqe, struct ibv_wc *wc,
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

/*
 * mlx5_parse_cqe() for one software-owned CQE; wc gets every field
 * ibv_poll_cq reports.  CQ_OK, CQ_EMPTY (a CQE consumed internally) or
 * CQ_POLL_ERR.
 */
static int cq_parse(struct prov_cq *cq, const struct mlx5_cqe64 *cqe,
		    struct ibv_wc *wc, enum ibv_wc_opcode *recorded)
{
	uint32_t uidx = be32toh(cqe->srqn_uidx) & 0xffffff;
	uint8_t opcode = cqe->op_own >> 4;
	enum ibv_wc_opcode rec = IBV_WC_SEND;
	struct prov_cq_rsc *rsc;

	memset(wc, 0, sizeof(*wc));
	wc->qp_num = be32toh(cqe->sop_drop_qpn) & 0xffffff;
	switch (opcode) {
	case MLX5_CQE_REQ:
		rsc = prov_rsc_find(cq->pctx, uidx);
		if (!rsc || !rsc->sq_complete)
			return CQ_POLL_ERR;
		wc->wr_id = rsc->sq_complete(rsc, be16toh(cqe->wqe_counter), &rec);
		cq_req_opcode(cqe, wc, rec);
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

	cq_lock(cq);
	while (npolled < ne) {
		struct mlx5_cqe64 *cqe = cq_next_cqe(cq);

		if (!cqe) {
			err = CQ_EMPTY;
			break;
		}
		err = cq_parse(cq, cqe, wc + npolled, NULL);
		if (err == CQ_EMPTY)
			continue;	/* consumed, nothing to report */
		if (err != CQ_OK)
			break;
		npolled++;
	}
	cq_update_ci(cq);
	cq_unlock(cq);
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
	return 0;
}

/*
 * The ibv_cq_ex poll functions: start_poll/next_poll consume and parse one
 * CQE, keeping a copy the read_* functions decode as libmlx5's lazy
 * readers do.
 */
static struct prov_cq *ex_cq(struct ibv_cq_ex *ex)
{
	return (struct prov_cq *)ex;
}

/* Consumes CQEs until one reports: 0, ENOENT when empty, or CQ_POLL_ERR. */
static int ex_advance(struct prov_cq *cq)
{
	struct ibv_wc wc;

	for (;;) {
		struct mlx5_cqe64 *cqe = cq_next_cqe(cq);
		int err;

		if (!cqe) {
			cq->cur_valid = false;
			return ENOENT;
		}
		memcpy(&cq->cur, cqe, sizeof(cq->cur));
		err = cq_parse(cq, &cq->cur, &wc, &cq->cur_opcode);
		if (err == CQ_EMPTY)
			continue;
		if (err != CQ_OK) {
			cq->cur_valid = false;
			return err;
		}
		cq->cur_valid = true;
		cq->ex.wr_id = wc.wr_id;
		cq->ex.status = wc.status;
		return 0;
	}
}

static int ex_start_poll(struct ibv_cq_ex *ex, struct ibv_poll_cq_attr *attr)
{
	struct prov_cq *cq = ex_cq(ex);
	int err;

	if (attr && attr->comp_mask)
		return EINVAL;
	cq_lock(cq);
	err = ex_advance(cq);
	/* Empty or failed: no end_poll follows, so unlock here. */
	if (err)
		cq_unlock(cq);
	if (err == ENOENT)
		prov_progress(cq->pctx, MLX5BE_PROGRESS_POLL);
	return err;
}

static int ex_next_poll(struct ibv_cq_ex *ex)
{
	return ex_advance(ex_cq(ex));
}

static void ex_end_poll(struct ibv_cq_ex *ex)
{
	struct prov_cq *cq = ex_cq(ex);

	cq_update_ci(cq);
	cq_unlock(cq);
}

static enum ibv_wc_opcode ex_read_opcode(struct ibv_cq_ex *ex)
{
	struct prov_cq *cq = ex_cq(ex);
	struct ibv_wc wc = { 0 };

	switch (cq->cur.op_own >> 4) {
	case MLX5_CQE_RESP_WR_IMM:
		return IBV_WC_RECV_RDMA_WITH_IMM;
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		return IBV_WC_RECV;
	case MLX5_CQE_REQ:
		cq_req_opcode(&cq->cur, &wc, cq->cur_opcode);
		return wc.opcode;
	}
	return 0;
}

static uint32_t ex_read_vendor_err(struct ibv_cq_ex *ex)
{
	return ((struct mlx5_err_cqe *)&ex_cq(ex)->cur)->vendor_err_synd;
}

static uint32_t ex_read_byte_len(struct ibv_cq_ex *ex)
{
	return be32toh(ex_cq(ex)->cur.byte_cnt);
}

static __be32 ex_read_imm_data(struct ibv_cq_ex *ex)
{
	struct prov_cq *cq = ex_cq(ex);

	/* The invalidated rkey is returned in host order. */
	if ((cq->cur.op_own >> 4) == MLX5_CQE_RESP_SEND_INV)
		return (__be32)be32toh(cq->cur.imm_inval_pkey);
	return cq->cur.imm_inval_pkey;
}

static uint32_t ex_read_qp_num(struct ibv_cq_ex *ex)
{
	return be32toh(ex_cq(ex)->cur.sop_drop_qpn) & 0xffffff;
}

static uint32_t ex_read_src_qp(struct ibv_cq_ex *ex)
{
	return be32toh(ex_cq(ex)->cur.flags_rqpn) & 0xffffff;
}

static unsigned int ex_read_wc_flags(struct ibv_cq_ex *ex)
{
	struct prov_cq *cq = ex_cq(ex);
	unsigned int flags = 0;

	switch (cq->cur.op_own >> 4) {
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND_IMM:
		flags = IBV_WC_WITH_IMM;
		break;
	case MLX5_CQE_RESP_SEND_INV:
		flags = IBV_WC_WITH_INV;
		break;
	case MLX5_CQE_REQ:
		switch (be32toh(cq->cur.sop_drop_qpn) >> 24) {
		case MLX5_OPCODE_RDMA_WRITE_IMM:
		case MLX5_OPCODE_SEND_IMM:
			flags = IBV_WC_WITH_IMM;
			break;
		}
		break;
	}
	if ((be32toh(cq->cur.flags_rqpn) >> 28) & 3)
		flags |= IBV_WC_GRH;
	return flags;
}

static uint32_t ex_read_slid(struct ibv_cq_ex *ex)
{
	return be16toh(ex_cq(ex)->cur.slid);
}

static uint8_t ex_read_sl(struct ibv_cq_ex *ex)
{
	return (be32toh(ex_cq(ex)->cur.flags_rqpn) >> 24) & 0xf;
}

static uint8_t ex_read_dlid_path_bits(struct ibv_cq_ex *ex)
{
	return ex_cq(ex)->cur.ml_path & 0x7f;
}

static uint64_t ex_read_completion_ts(struct ibv_cq_ex *ex)
{
	return be64toh(ex_cq(ex)->cur.timestamp);
}

/* mlx5dv_ts_to_ns() over the kernel's clock info. */
static uint64_t ex_read_completion_wallclock_ns(struct ibv_cq_ex *ex)
{
	struct prov_cq *cq = ex_cq(ex);
	struct mlx5be_clock_info ci = { 0 };
	uint64_t ts = be64toh(cq->cur.timestamp);
	uint64_t delta, nsec;

	if (cq->rt_ts)
		return ts;
	if (!cq->pctx->be->clock_info ||
	    cq->pctx->be->clock_info(cq->pctx->bectx, &ci))
		return 0;
	delta = (ts - ci.last_cycles) & ci.mask;
	nsec = ci.nsec;
	/* Guess whether the stamp is before the last update. */
	if (delta > ci.mask / 2) {
		delta = (ci.last_cycles - ts) & ci.mask;
		nsec -= ((delta * ci.mult) - ci.frac) >> ci.shift;
	} else {
		nsec += ((delta * ci.mult) + ci.frac) >> ci.shift;
	}
	return nsec;
}

static uint16_t ex_read_cvlan(struct ibv_cq_ex *ex)
{
	return be16toh(ex_cq(ex)->cur.vlan_info);
}

static uint32_t ex_read_flow_tag(struct ibv_cq_ex *ex)
{
	return be32toh(ex_cq(ex)->cur.sop_drop_qpn) & PROV_FLOW_TAG_MASK;
}

void prov_cq_ex_set_poll_ops(struct prov_cq *cq)
{
	struct ibv_cq_ex *ex = &cq->ex;
	uint64_t f = cq->wc_flags;

	ex->start_poll = ex_start_poll;
	ex->next_poll = ex_next_poll;
	ex->end_poll = ex_end_poll;
	ex->read_opcode = ex_read_opcode;
	ex->read_vendor_err = ex_read_vendor_err;
	ex->read_wc_flags = ex_read_wc_flags;
	if (f & IBV_WC_EX_WITH_BYTE_LEN)
		ex->read_byte_len = ex_read_byte_len;
	if (f & IBV_WC_EX_WITH_IMM)
		ex->read_imm_data = ex_read_imm_data;
	if (f & IBV_WC_EX_WITH_QP_NUM)
		ex->read_qp_num = ex_read_qp_num;
	if (f & IBV_WC_EX_WITH_SRC_QP)
		ex->read_src_qp = ex_read_src_qp;
	if (f & IBV_WC_EX_WITH_SLID)
		ex->read_slid = ex_read_slid;
	if (f & IBV_WC_EX_WITH_SL)
		ex->read_sl = ex_read_sl;
	if (f & IBV_WC_EX_WITH_DLID_PATH_BITS)
		ex->read_dlid_path_bits = ex_read_dlid_path_bits;
	if (f & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		ex->read_completion_ts = ex_read_completion_ts;
	if (f & IBV_WC_EX_WITH_CVLAN)
		ex->read_cvlan = ex_read_cvlan;
	if (f & IBV_WC_EX_WITH_FLOW_TAG)
		ex->read_flow_tag = ex_read_flow_tag;
	if (f & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		ex->read_completion_wallclock_ns = ex_read_completion_wallclock_ns;
}
