/* SPDX-License-Identifier: MIT */
/* Shared helpers of the data path tests (see dp_test.h). */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dp_test.h"

void dp_ctrl(uint8_t *b, uint16_t idx, uint8_t opcode, uint32_t qpn,
	     uint8_t ds, uint8_t fm_ce_se, uint32_t imm_be)
{
	memset(b, 0, 16);
	/* opmod_idx_opcode: opmod 31:24, index 23:8, opcode 7:0. */
	dp_be32(b, 0, (uint32_t)idx << 8 | opcode);
	/* qpn_ds: QPN 31:8, DS 5:0. */
	dp_be32(b, 4, qpn << 8 | ds);
	/* 8 signature, 9..10 stream channel, 11 fm_ce_se, 12..15 imm. */
	b[11] = fm_ce_se;
	memcpy(b + 12, &imm_be, 4);
}

struct mlx5dv_qp dp_dv(struct ibv_qp *qp)
{
	struct mlx5dv_qp dv;
	struct mlx5dv_obj obj = { .qp = { .in = qp, .out = &dv } };

	memset(&dv, 0, sizeof(dv));
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	return dv;
}

uint8_t *dp_sq_bb(const struct mlx5dv_qp *dv, unsigned int idx)
{
	return (uint8_t *)dv->sq.buf + (size_t)(idx & (dv->sq.wqe_cnt - 1)) * DP_BB;
}

void dp_sq_read(const struct mlx5dv_qp *dv, unsigned int idx, void *out,
		size_t len)
{
	uint8_t *o = out;

	for (size_t done = 0; done < len; done += DP_BB, idx++)
		memcpy(o + done, dp_sq_bb(dv, idx),
		       len - done < DP_BB ? len - done : DP_BB);
}

uint32_t dp_sq_dbr(const struct mlx5dv_qp *dv)
{
	return be32toh(__atomic_load_n(&dv->dbrec[1], __ATOMIC_ACQUIRE));
}

struct ibv_qp *dp_qp(enum ibv_qp_type type, uint32_t swr, uint32_t ssge,
		     uint32_t inl, bool sig_all)
{
	struct ibv_qp_init_attr a = qt_init_attr(type, swr, 4, ssge, 1);
	struct ibv_qp *qp;

	a.cap.max_inline_data = inl;
	a.sq_sig_all = sig_all;
	qp = ibv_create_qp(qt_pd, &a);
	ck_assert_msg(qp, "create type %d: %s", type, strerror(errno));
	if (type == IBV_QPT_UD)
		qt_ud_to_rts(qp, 0x11111111, 0x100);
	else
		qt_rc_to_rts(qp, qp->qp_num, 1);
	return qp;
}

uint32_t dp_uidx(struct ibv_qp *qp)
{
	static uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)];

	ck_assert_int_eq(qt_devx_query_qp(qp, out), 0);
	return PRM_GET(query_qp_out, out, qpc.user_index);
}

uint8_t *dp_put_cqe(struct ibv_cq *cq, uint32_t pi, uint8_t opcode,
		    uint32_t uidx, uint32_t qpn, uint8_t wqe_op,
		    uint16_t wqe_counter)
{
	struct mlx5dv_cq dv;
	struct mlx5dv_obj obj = { .cq = { .in = cq, .out = &dv } };

	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ), 0);
	return dp_cqe_write(dv.buf, dv.cqe_cnt, dv.cqe_size, pi, opcode, uidx,
			    qpn, wqe_op, wqe_counter);
}

struct ibv_wc dp_poll_one(struct ibv_cq *cq)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = ibv_poll_cq(cq, 1, &wc);
		ck_assert_int_ge(n, 0);
		clock_gettime(CLOCK_MONOTONIC, &t);
		ck_assert_msg(t.tv_sec - t0.tv_sec < 5, "no completion");
	} while (!n);
	return wc;
}

void dp_post1(struct ibv_qp *qp, enum ibv_wr_opcode op, void *addr,
	      uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = op, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
}
