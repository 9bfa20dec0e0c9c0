/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_qp_cancel_posted_send_wrs, as libmlx5 44 does it
 * (mlx5dv_qp_cancel_posted_send_wrs, mlx5_qp_query_sqd,
 * mlx5dv_qp_cancel_wr), under the send queue's lock:
 *
 *   QUERY_QP through DEVX: a failure is minus the errno of its status; a
 *   QP whose context is not SQ-drained is -EINVAL.  hw_sq_wqebb_counter
 *   is where the device stands; from there to what was posted, each WQE
 *   whose wr_id matches becomes a NOP: opcode and opmod 0, the WQE index
 *   kept, and the work completion opcode it would have reported saved so
 *   that the NOP's CQE still reports it (raw WQEs keep DRIVER2; UMR,
 *   SET_PSV and MMO keep what their post recorded; any other opcode is
 *   -EINVAL, the WQEs before it already cancelled).  Returns how many.
 *
 * A ConnectX drains a send queue only for signature pipelining, which
 * this device does not offer, so the QPs it runs never reach SQD: the
 * call answers -EINVAL unless the device model put the QP there.
 */
#include <endian.h>
#include <errno.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/cmd.h"
#include "provider/core/context.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/sq.h"

/* mlx5_qp_query_sqd(): the index the device stands at, or -errno. */
static int sq_query_sqd(struct prov_qp *qp, unsigned int *idx)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)] = { 0 };
	int ret;

	PRM_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	PRM_SET(query_qp_in, in, qpn, qp->vqp.qp.qp_num);
	ret = prov_obj_query(qp->pctx, qp->obj, in, sizeof(in), out,
			     sizeof(out));
	if (ret)
		return -ret;
	if (PRM_GET(query_qp_out, out, qpc.state) != MLX5_QPC_STATE_SQD)
		return -EINVAL;
	*idx = PRM_GET(query_qp_out, out, qpc.hw_sq_wqebb_counter) &
	       (qp->sq.wqe_cnt - 1);
	return 0;
}

/* mlx5_qp_sq_next_idx(): the first WQEBB of the WQE after @idx's. */
static bool sq_next_idx(const struct prov_qp *qp, unsigned int idx,
			unsigned int *next)
{
	unsigned int head = qp->sq.wqe_head[idx] + 1;
	unsigned int mask = qp->sq.wqe_cnt - 1;

	if (head == qp->sq.head)
		return false;
	idx = (idx + 1) & mask;
	while (qp->sq.wqe_head[idx] != head)
		idx = (idx + 1) & mask;
	*next = idx;
	return true;
}

/* mlx5dv_qp_cancel_wr(): WQE @idx becomes a NOP; 0 or -EINVAL. */
static int sq_cancel_wqe(struct prov_qp *qp, unsigned int idx)
{
	struct mlx5_wqe_ctrl_seg *ctrl = prov_sq_wqe(qp, idx);
	uint32_t word = be32toh(ctrl->opmod_idx_opcode);
	uint32_t *wr_data = &qp->sq.wr_data[idx];

	if (*wr_data != IBV_WC_DRIVER2) {
		switch (word & 0xff) {
		case MLX5_OPCODE_RDMA_WRITE_IMM:
		case MLX5_OPCODE_RDMA_WRITE:
			*wr_data = IBV_WC_RDMA_WRITE;
			break;
		case MLX5_OPCODE_SEND_IMM:
		case MLX5_OPCODE_SEND:
		case MLX5_OPCODE_SEND_INVAL:
			*wr_data = IBV_WC_SEND;
			break;
		case MLX5_OPCODE_RDMA_READ:
			*wr_data = IBV_WC_RDMA_READ;
			break;
		case MLX5_OPCODE_ATOMIC_CS:
			*wr_data = IBV_WC_COMP_SWAP;
			break;
		case MLX5_OPCODE_ATOMIC_FA:
			*wr_data = IBV_WC_FETCH_ADD;
			break;
		case MLX5_OPCODE_TSO:
			*wr_data = IBV_WC_TSO;
			break;
		case MLX5_OPCODE_UMR:
		case MLX5_OPCODE_SET_PSV:
		case MLX5_OPCODE_MMO:
			break;
		default:
			return -EINVAL;
		}
	}
	ctrl->opmod_idx_opcode = htobe32((word & 0xffff00) | MLX5_OPCODE_NOP);
	return 0;
}

MLX5EMU_ABI(mlx5dv_qp_cancel_posted_send_wrs);
int mlx5emu_abi_mlx5dv_qp_cancel_posted_send_wrs(struct mlx5dv_qp_ex *dv,
						 uint64_t wr_id)
{
	struct prov_qp *qp = (struct prov_qp *)((char *)dv -
						offsetof(struct prov_qp, dv_qp));
	unsigned int idx;
	int ret, n = 0;

	prov_spin_lock(&qp->sq.lock);
	ret = sq_query_sqd(qp, &idx);
	if (ret || idx == qp->sq.cur_post)
		goto out;
	do {
		if (qp->sq.wrid[idx] == wr_id) {
			ret = sq_cancel_wqe(qp, idx);
			if (ret)
				goto out;
			n++;
		}
	} while (sq_next_idx(qp, idx, &idx));
	ret = n;
out:
	prov_spin_unlock(&qp->sq.lock);
	return ret;
}
