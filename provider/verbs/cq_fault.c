/* SPDX-License-Identifier: MIT */
/*
 * Data-path fault rules where the device does not apply them: on real
 * hardware (the hw backend) the provider applies cqe_error rules to the
 * completions it polls.  A successful requester or responder CQE that a
 * rule picks is rewritten in the ring into the error CQE a ConnectX
 * writes (REQ_ERR or RESP_ERR with the rule's syndrome and vendor
 * syndrome, same WQE counter, QP and user index), and once the poll lets
 * the CQ go the QP is moved to ERR with a command, so the device flushes
 * what is still outstanding.  What hardware did stays done: the WQE ran
 * on the wire, and WQEs after it may have run before the QP stopped.
 * Only completions the provider sees are matched: an unsignaled WQE has
 * none, and a DEVX application that polls its own CQs is not seen at all.
 * The emulated device applies the rules itself, to every WQE it runs
 * (be->dp_verdict is NULL there).
 */
#include <endian.h>

#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/cq_int.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/verbs_ctx.h"

/* The message a responder CQE completes, as the rules name it. */
static bool cq_fault_resp_opcode(uint8_t cqe_op, uint8_t *op)
{
	switch (cqe_op) {
	case MLX5_CQE_RESP_SEND:
		*op = MLX5_OPCODE_SEND;
		return true;
	case MLX5_CQE_RESP_SEND_IMM:
		*op = MLX5_OPCODE_SEND_IMM;
		return true;
	case MLX5_CQE_RESP_SEND_INV:
		*op = MLX5_OPCODE_SEND_INVAL;
		return true;
	case MLX5_CQE_RESP_WR_IMM:
		*op = MLX5_OPCODE_RDMA_WRITE_IMM;
		return true;
	default:
		return false;
	}
}

void prov_cq_dp_fault(struct prov_cq *cq, struct mlx5_cqe64 *cqe)
{
	struct prov_context *pctx = cq->pctx;
	uint8_t cqe_op = cqe->op_own >> 4, syndrome = 0, vendor = 0;
	uint32_t qpn = be32toh(cqe->sop_drop_qpn) & 0xffffff;
	struct mlx5be_dp_cqe c = { .qpn = qpn };
	struct mlx5_err_cqe *ecqe = (struct mlx5_err_cqe *)cqe;
	struct prov_cq_rsc *rsc;

	if (__atomic_load_n(&cq->dp_err_qp, __ATOMIC_RELAXED))
		return;		/* one a poll: its QP stops first */
	if (cqe_op == MLX5_CQE_REQ)
		c.opcode = (uint8_t)(be32toh(cqe->sop_drop_qpn) >> 24);
	else if (cq_fault_resp_opcode(cqe_op, &c.opcode))
		c.rq = true;
	else
		return;
	rsc = prov_rsc_find(pctx, be32toh(cqe->srqn_uidx) & 0xffffff);
	if (!rsc || rsc->type != PROV_RSC_QP)
		return;
	if (!pctx->be->dp_verdict(pctx->bectx, &c, &syndrome, &vendor))
		return;
	/* mlx5_err_cqe: the same WQE counter, QP and user index; the
	 * opcode byte written last, keeping the owner bit. */
	ecqe->syndrome = syndrome;
	ecqe->vendor_err_synd = vendor;
	cqe->byte_cnt = 0;
	if (c.rq)	/* a responder's error CQE names no WQE opcode */
		cqe->sop_drop_qpn = htobe32(qpn);
	__atomic_store_n(&cqe->op_own,
			 (uint8_t)((c.rq ? MLX5_CQE_RESP_ERR :
					   MLX5_CQE_REQ_ERR) << 4 |
				   (cqe->op_own & MLX5_CQE_OWNER_MASK)),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&cq->dp_err_qp,
			 (struct prov_qp *)((char *)rsc -
					    offsetof(struct prov_qp, rsc)),
			 __ATOMIC_RELEASE);
}

void prov_cq_dp_finish(struct prov_cq *cq)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct prov_qp *qp = __atomic_exchange_n(&cq->dp_err_qp, NULL,
						 __ATOMIC_ACQ_REL);

	if (!qp)
		return;
	/* What the device does after an error CQE: the QP is in error and
	 * flushes the rest.  A failure leaves the QP as it is. */
	(void)prov_qp_modify(qp, &attr, IBV_QP_STATE);
}
