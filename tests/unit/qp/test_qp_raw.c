/* SPDX-License-Identifier: MIT */
/*
 * Raw packet QPs (provider/verbs/qp_raw.c, qp_send.c's Ethernet segment):
 * the TIS, SQ, RQ and TIR mlx5_ib would make, read back through DEVX on
 * the QP; the QP number; the transitions' queue states and the query;
 * destroy; mlx5dv_init_obj's raw handles and separate SQ ring; the
 * CAP_NET_RAW check; the send WQEs compared with hand-built bytes; the
 * receive doorbell held back until RTR.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qp_test.h"
#include "ut_env.h"

static struct ibv_qp *raw_create(uint32_t swr, uint32_t rwr)
{
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RAW_PACKET, swr, rwr,
						 1, 1);
	struct ibv_qp *qp = ibv_create_qp(qt_pd, &a);

	ck_assert_msg(qp, "%s", strerror(errno));
	return qp;
}

/* A DEVX query on the QP (QUERY_SQ/RQ/TIR/TIS of object @num). */
static void raw_query(struct ibv_qp *qp, uint16_t op, uint32_t num, void *out,
		      size_t outlen)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_sq_in)] = { 0 };

	/* sqn, rqn, tirn, tisn all sit at 0x48. */
	PRM_SET(query_sq_in, in, opcode, op);
	PRM_SET(query_sq_in, in, sqn, num);
	memset(out, 0, outlen);
	ck_assert_int_eq(mlx5dv_devx_qp_query(qp, in, sizeof(in), out, outlen), 0);
}

static void raw_handles(struct ibv_qp *qp, struct mlx5dv_qp *dq)
{
	struct mlx5dv_obj o;

	memset(dq, 0, sizeof(*dq));
	dq->comp_mask = MLX5DV_QP_MASK_RAW_QP_HANDLES |
			MLX5DV_QP_MASK_UAR_MMAP_OFFSET;
	o.qp.in = qp;
	o.qp.out = dq;
	ck_assert_int_eq(mlx5dv_init_obj(&o, MLX5DV_OBJ_QP), 0);
}

static uint32_t cqn_of(struct ibv_cq *cq)
{
	struct mlx5dv_cq dc;
	struct mlx5dv_obj o;

	o.cq.in = cq;
	o.cq.out = &dc;
	ck_assert_int_eq(mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ), 0);
	return dc.cqn;
}

START_TEST(test_raw_objects)
{
	struct ibv_qp *qp = raw_create(4, 8);
	uint8_t sq[PRM_ST_SZ_BYTES(query_sq_out)], rq[PRM_ST_SZ_BYTES(query_rq_out)];
	uint8_t tir[PRM_ST_SZ_BYTES(query_tir_out)];
	uint8_t tis[PRM_ST_SZ_BYTES(query_tis_out)];
	struct mlx5dv_qp dq;
	uint32_t td;

	raw_handles(qp, &dq);
	ck_assert_uint_eq(dq.comp_mask, MLX5DV_QP_MASK_RAW_QP_HANDLES |
					MLX5DV_QP_MASK_UAR_MMAP_OFFSET);
	ck_assert_uint_ne(dq.sqn, 0);
	ck_assert_uint_ne(dq.rqn, 0);
	ck_assert_uint_ne(dq.tisn, 0);
	ck_assert_uint_ne(dq.tirn, 0);
	/* mlx5_ib: the QP's number is its SQ's. */
	ck_assert_uint_eq(qp->qp_num, dq.sqn);

	raw_query(qp, MLX5_CMD_OP_QUERY_TIS, dq.tisn, tis, sizeof(tis));
	td = PRM_GET(query_tis_out, tis, tis_context.transport_domain);
	ck_assert_uint_ne(td, 0);

	raw_query(qp, MLX5_CMD_OP_QUERY_SQ, dq.sqn, sq, sizeof(sq));
	ck_assert_uint_eq(PRM_GET(query_sq_out, sq, sq_context.state),
			  MLX5_SQC_STATE_RST);
	ck_assert_uint_eq(PRM_GET(query_sq_out, sq, sq_context.cqn),
			  cqn_of(qt_cq));
	ck_assert_uint_eq(PRM_GET(query_sq_out, sq, sq_context.tis_num_0),
			  dq.tisn);
	ck_assert_uint_eq(PRM_GET(query_sq_out, sq, sq_context.tis_lst_sz), 1);
	ck_assert_uint_eq(PRM_GET(query_sq_out, sq, sq_context.flush_in_error_en),
			  1);
	ck_assert_uint_eq(PRM_GET(query_sq_out, sq, sq_context.wq.wq_type),
			  MLX5_WQ_TYPE_CYCLIC);
	ck_assert_uint_eq(PRM_GET(query_sq_out, sq, sq_context.wq.log_wq_stride),
			  6);
	ck_assert_uint_eq(1u << PRM_GET(query_sq_out, sq, sq_context.wq.log_wq_sz),
			  dq.sq.wqe_cnt);
	ck_assert_uint_eq(PRM_GET(query_sq_out, sq, sq_context.wq.pd),
			  vt_pdn(qt_pd));

	raw_query(qp, MLX5_CMD_OP_QUERY_RQ, dq.rqn, rq, sizeof(rq));
	ck_assert_uint_eq(PRM_GET(query_rq_out, rq, rq_context.state),
			  MLX5_RQC_STATE_RST);
	/* No VLAN stripping asked: the strip is disabled. */
	ck_assert_uint_eq(PRM_GET(query_rq_out, rq, rq_context.vsd), 1);
	ck_assert_uint_eq(PRM_GET(query_rq_out, rq, rq_context.cqn),
			  cqn_of(qt_cq));
	/* Both queues complete under the same user index. */
	ck_assert_uint_eq(PRM_GET(query_rq_out, rq, rq_context.user_index),
			  PRM_GET(query_sq_out, sq, sq_context.user_index));
	ck_assert_uint_eq(1u << PRM_GET(query_rq_out, rq, rq_context.wq.log_wq_sz),
			  dq.rq.wqe_cnt);
	ck_assert_uint_eq(1u << PRM_GET(query_rq_out, rq,
					rq_context.wq.log_wq_stride),
			  dq.rq.stride);

	raw_query(qp, MLX5_CMD_OP_QUERY_TIR, dq.tirn, tir, sizeof(tir));
	ck_assert_uint_eq(PRM_GET(query_tir_out, tir, tir_context.disp_type),
			  MLX5_TIRC_DISP_TYPE_DIRECT);
	ck_assert_uint_eq(PRM_GET(query_tir_out, tir, tir_context.inline_rqn),
			  dq.rqn);
	ck_assert_uint_eq(PRM_GET(query_tir_out, tir,
				  tir_context.transport_domain), td);
	ck_assert_uint_eq(PRM_GET(query_tir_out, tir, tir_context.self_lb_block),
			  0);

	/* The SQ ring is apart from the RQ's and page aligned; one record. */
	ck_assert_ptr_ne(dq.sq.buf, dq.rq.buf);
	ck_assert_uint_eq((uintptr_t)dq.sq.buf % 4096, 0);
	ck_assert_uint_eq(dq.sq.stride, 64);
	ck_assert_ptr_nonnull(dq.dbrec);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

/* Either queue alone; neither is EINVAL (create_raw_packet_qp). */
START_TEST(test_raw_one_side)
{
	struct ibv_qp_init_attr a;
	struct mlx5dv_qp dq;
	struct ibv_qp *qp = raw_create(4, 0);

	raw_handles(qp, &dq);
	ck_assert_uint_ne(dq.sqn, 0);
	ck_assert_uint_eq(dq.rqn, 0);
	ck_assert_uint_eq(dq.tirn, 0);
	ck_assert_uint_eq(qp->qp_num, dq.sqn);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	qp = raw_create(0, 4);
	raw_handles(qp, &dq);
	ck_assert_uint_eq(dq.sqn, 0);
	ck_assert_uint_eq(dq.tisn, 0);
	ck_assert_uint_ne(dq.rqn, 0);
	ck_assert_uint_ne(dq.tirn, 0);
	/* The RQ's number without an SQ. */
	ck_assert_uint_eq(qp->qp_num, dq.rqn);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	a = qt_init_attr(IBV_QPT_RAW_PACKET, 0, 0, 1, 1);
	ck_assert_int_eq(qt_create_err(&a), EINVAL);
}
END_TEST

/* The loopback flags set their BLOCK bits (as mlx5_ib does); tunnel
 * offloads need a stateless tunnel cap. */
START_TEST(test_raw_tir_flags)
{
	struct ibv_qp_init_attr_ex ax = qt_raw_rx_attr(4);
	uint8_t tir[PRM_ST_SZ_BYTES(query_tir_out)];
	struct mlx5dv_qp dq;
	struct ibv_qp *qp;

	qp = qt_raw_dv_create(&ax, MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC);
	ck_assert_msg(qp, "%s", strerror(errno));
	raw_handles(qp, &dq);
	raw_query(qp, MLX5_CMD_OP_QUERY_TIR, dq.tirn, tir, sizeof(tir));
	ck_assert_uint_eq(PRM_GET(query_tir_out, tir, tir_context.self_lb_block),
			  MLX5_TIRC_SELF_LB_BLOCK_BLOCK_UNICAST);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	qp = qt_raw_dv_create(&ax, MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC |
				   MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_MC);
	ck_assert_msg(qp, "%s", strerror(errno));
	raw_handles(qp, &dq);
	raw_query(qp, MLX5_CMD_OP_QUERY_TIR, dq.tirn, tir, sizeof(tir));
	ck_assert_uint_eq(PRM_GET(query_tir_out, tir, tir_context.self_lb_block),
			  MLX5_TIRC_SELF_LB_BLOCK_BLOCK_UNICAST |
			  MLX5_TIRC_SELF_LB_BLOCK_BLOCK_MULTICAST);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	ck_assert_ptr_null(qt_raw_dv_create(&ax, MLX5DV_QP_CREATE_TUNNEL_OFFLOADS));
	ck_assert_int_eq(errno, EINVAL);
	/* Scatter FCS and VLAN stripping are not advertised. */
	ax.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ax.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	ck_assert_int_eq(qt_create_ex_err(&ax), EOPNOTSUPP);
	ax.create_flags = IBV_QP_CREATE_CVLAN_STRIPPING;
	ck_assert_int_eq(qt_create_ex_err(&ax), EOPNOTSUPP);
}
END_TEST

static uint32_t fw_sq_state(struct ibv_qp *qp, uint32_t sqn)
{
	uint8_t out[PRM_ST_SZ_BYTES(query_sq_out)];

	raw_query(qp, MLX5_CMD_OP_QUERY_SQ, sqn, out, sizeof(out));
	return PRM_GET(query_sq_out, out, sq_context.state);
}

static uint32_t fw_rq_state(struct ibv_qp *qp, uint32_t rqn)
{
	uint8_t out[PRM_ST_SZ_BYTES(query_rq_out)];

	raw_query(qp, MLX5_CMD_OP_QUERY_RQ, rqn, out, sizeof(out));
	return PRM_GET(query_rq_out, out, rq_context.state);
}

static int raw_move(struct ibv_qp *qp, enum ibv_qp_state st, int mask)
{
	struct ibv_qp_attr at;

	memset(&at, 0, sizeof(at));
	at.qp_state = st;
	at.port_num = 1;
	return ibv_modify_qp(qp, &at, IBV_QP_STATE | mask);
}

static enum ibv_qp_state raw_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr at;
	struct ibv_qp_init_attr ia;

	ck_assert_int_eq(ibv_query_qp(qp, &at, IBV_QP_STATE, &ia), 0);
	ck_assert_uint_eq(at.port_num, 1);
	return at.qp_state;
}

/* modify_raw_packet_qp(): which transition moves which queue. */
START_TEST(test_raw_transitions)
{
	struct ibv_qp *qp = raw_create(4, 4);
	struct mlx5dv_qp dq;

	raw_handles(qp, &dq);
	/* A raw packet QP's RESET->INIT needs the port. */
	ck_assert_int_eq(raw_move(qp, IBV_QPS_INIT, 0), EINVAL);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_INIT, IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT), EINVAL);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_INIT, IBV_QP_PORT), 0);
	ck_assert_uint_eq(fw_rq_state(qp, dq.rqn), MLX5_RQC_STATE_RDY);
	ck_assert_uint_eq(fw_sq_state(qp, dq.sqn), MLX5_SQC_STATE_RST);
	ck_assert_int_eq(raw_state(qp), IBV_QPS_INIT);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_RTR, 0), 0);
	ck_assert_uint_eq(fw_sq_state(qp, dq.sqn), MLX5_SQC_STATE_RST);
	ck_assert_int_eq(raw_state(qp), IBV_QPS_RTR);
	/* RTR->RTS takes no path attributes on a raw packet QP. */
	ck_assert_int_eq(raw_move(qp, IBV_QPS_RTS, IBV_QP_SQ_PSN), EINVAL);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_RTS, 0), 0);
	ck_assert_uint_eq(fw_sq_state(qp, dq.sqn), MLX5_SQC_STATE_RDY);
	ck_assert_uint_eq(fw_rq_state(qp, dq.rqn), MLX5_RQC_STATE_RDY);
	ck_assert_int_eq(raw_state(qp), IBV_QPS_RTS);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_ERR, 0), 0);
	ck_assert_uint_eq(fw_sq_state(qp, dq.sqn), MLX5_SQC_STATE_ERR);
	ck_assert_uint_eq(fw_rq_state(qp, dq.rqn), MLX5_RQC_STATE_ERR);
	ck_assert_int_eq(raw_state(qp), IBV_QPS_ERR);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_RESET, 0), 0);
	ck_assert_uint_eq(fw_sq_state(qp, dq.sqn), MLX5_SQC_STATE_RST);
	ck_assert_uint_eq(fw_rq_state(qp, dq.rqn), MLX5_RQC_STATE_RST);
	ck_assert_int_eq(raw_state(qp), IBV_QPS_RESET);
	/* Destroy from RTS puts both queues back first. */
	ck_assert_int_eq(raw_move(qp, IBV_QPS_INIT, IBV_QP_PORT), 0);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_RTR, 0), 0);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_RTS, 0), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

static bool set_net_raw(bool on)
{
	int was = ut_net_raw_set(on);

	ck_assert_int_ge(was, 0);
	return was;
}

/* uverbs refuses a raw packet QP to a process without CAP_NET_RAW. */
START_TEST(test_raw_cap_net_raw)
{
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RAW_PACKET, 4, 4, 1, 1);
	bool was = set_net_raw(false);

	ck_assert_int_eq(qt_create_err(&a), EPERM);
	/* Other types do not care. */
	a = qt_init_attr(IBV_QPT_UD, 4, 4, 1, 1);
	ck_assert_int_eq(qt_create_err(&a), 0);
	set_net_raw(was);
	if (was) {
		a = qt_init_attr(IBV_QPT_RAW_PACKET, 4, 4, 1, 1);
		ck_assert_int_eq(qt_create_err(&a), 0);
	}
}
END_TEST

static struct ibv_qp *raw_rts(uint32_t swr, uint32_t ssge)
{
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RAW_PACKET, swr, 4,
						 ssge, 1);
	struct ibv_qp *qp = ibv_create_qp(qt_pd, &a);

	ck_assert_msg(qp, "%s", strerror(errno));
	ck_assert_int_eq(raw_move(qp, IBV_QPS_INIT, IBV_QP_PORT), 0);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_RTR, 0), 0);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_RTS, 0), 0);
	return qp;
}

/* WQE 0 of the SQ: a signaled SEND of two SGEs, 60 bytes at frame and
 * 40 at frame + 64, written by hand. */
static void expect_send_wqe(const struct mlx5dv_qp *dq, uint32_t lkey,
			    const uint8_t *frame)
{
	uint8_t want[64] = { 0 };
	uint32_t w;

	/* ctrl: index 0, SEND; sqn, 4 DS; CQ update. */
	w = htobe32(MLX5_OPCODE_SEND);
	memcpy(want, &w, 4);
	w = htobe32(dq->sqn << 8 | 4);
	memcpy(want + 4, &w, 4);
	want[11] = MLX5_WQE_CTRL_CQ_UPDATE;
	/* eth segment: 16 bytes of zero (no checksum, no headers). */
	qt_put_dseg(want + 32, 60, lkey, (uintptr_t)frame);
	qt_put_dseg(want + 48, 40, lkey, (uintptr_t)frame + 64);
	ck_assert_mem_eq(dq->sq.buf, want, 64);
}

/*
 * The device needs no inline headers (wqe_inline_mode NOT_REQUIRED):
 * control, a 16-byte Ethernet segment with no headers, one data segment
 * per SGE; the bytes written by hand.
 */
START_TEST(test_raw_send_wqe)
{
	struct ibv_qp *qp = raw_rts(4, 2);
	static uint8_t frame[128];
	struct ibv_mr *mr = ibv_reg_mr(qt_pd, frame, sizeof(frame), 0);
	struct ibv_sge sge[2] = {
		{ (uintptr_t)frame, 60, mr->lkey },
		{ (uintptr_t)frame + 64, 40, mr->lkey },
	};
	struct ibv_send_wr wr = { 0 }, *bad;
	struct mlx5dv_qp dq;

	raw_handles(qp, &dq);
	wr.wr_id = 7;
	wr.sg_list = sge;
	wr.num_sge = 2;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	expect_send_wqe(&dq, mr->lkey, frame);
	ck_assert_uint_eq(be32toh(dq.dbrec[1]), 1);

	/* libmlx5's refusals: no SGE; checksum offload not advertised; TSO
	 * on a device without LSO; a TSO header below 14 bytes. */
	wr.num_sge = 0;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr);
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_IP_CSUM;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	wr.send_flags = 0;
	wr.opcode = IBV_WR_TSO;
	wr.tso.hdr = frame;
	wr.tso.hdr_sz = 13;
	wr.tso.mss = 1000;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	/* Nothing more was posted. */
	ck_assert_uint_eq(be32toh(dq.dbrec[1]), 1);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
}
END_TEST

/*
 * The ibv_wr_* API of a raw packet QP (send_ops_flags SEND): the WQE of
 * test_raw_send_wqe, by hand again, and the device executes it (a
 * successful completion of its wr_id).
 */
START_TEST(test_raw_wr_send)
{
	struct ibv_qp_init_attr_ex a;
	static uint8_t frame[128];
	struct ibv_mr *mr = ibv_reg_mr(qt_pd, frame, sizeof(frame), 0);
	struct ibv_sge sge[2] = {
		{ (uintptr_t)frame, 60, mr->lkey },
		{ (uintptr_t)frame + 64, 40, mr->lkey },
	};
	struct mlx5dv_qp dq;
	struct ibv_qp_ex *x;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	int n = 0;

	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.send_cq = a.recv_cq = qt_cq;
	a.cap.max_send_wr = 4;
	a.cap.max_send_sge = 2;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.pd = qt_pd;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND;
	qp = ibv_create_qp_ex(qt_ctx, &a);
	ck_assert_msg(qp, "%s", strerror(errno));
	x = ibv_qp_to_qp_ex(qp);
	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_nonnull(x->wr_send_tso);	/* offered, as libmlx5 does */
	ck_assert_ptr_null(x->wr_send_imm);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_INIT, IBV_QP_PORT), 0);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_RTR, 0), 0);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_RTS, 0), 0);
	raw_handles(qp, &dq);

	ibv_wr_start(x);
	x->wr_id = 7;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge_list(x, 2, sge);
	ck_assert_int_eq(ibv_wr_complete(x), 0);
	expect_send_wqe(&dq, mr->lkey, frame);
	ck_assert_uint_eq(be32toh(dq.dbrec[1]), 1);
	for (int i = 0; i < 2000 && !n; i++) {
		n = ibv_poll_cq(qt_cq, 1, &wc);
		if (!n)
			usleep(1000);
	}
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 7);
	ck_assert_int_eq(wc.opcode, IBV_WC_SEND);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
}
END_TEST

/* libmlx5: a raw packet QP's receive record moves only from RTR on. */
START_TEST(test_raw_recv_db)
{
	struct ibv_qp *qp = raw_create(0, 4);
	static uint8_t buf[256];
	struct ibv_mr *mr = ibv_reg_mr(qt_pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge = { (uintptr_t)buf, 256, mr->lkey };
	struct ibv_recv_wr wr = { 0 }, *bad;
	struct mlx5dv_qp dq;

	raw_handles(qp, &dq);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ck_assert_int_eq(raw_move(qp, IBV_QPS_INIT, IBV_QP_PORT), 0);
	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
	ck_assert_uint_eq(be32toh(dq.dbrec[0]), 0);
	ck_assert_uint_eq(be32toh(((struct mlx5_wqe_data_seg *)dq.rq.buf)->byte_count),
			  256);
	ck_assert_int_eq(raw_move(qp, IBV_QPS_RTR, 0), 0);
	ck_assert_uint_eq(be32toh(dq.dbrec[0]), 2);
	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
	ck_assert_uint_eq(be32toh(dq.dbrec[0]), 3);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("qp_raw");
	TCase *tc = tcase_create("raw");

	tcase_add_checked_fixture(tc, qt_setup, qt_teardown);
	tcase_add_test(tc, test_raw_objects);
	tcase_add_test(tc, test_raw_one_side);
	tcase_add_test(tc, test_raw_tir_flags);
	tcase_add_test(tc, test_raw_transitions);
	tcase_add_test(tc, test_raw_cap_net_raw);
	tcase_add_test(tc, test_raw_send_wqe);
	tcase_add_test(tc, test_raw_wr_send);
	tcase_add_test(tc, test_raw_recv_db);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* A device without checksum, VLAN stripping or TSO offloads: the
	 * refusals libmlx5 and mlx5_ib give then (test_qp_raw_offload and
	 * the engine's suites cover the offloads). */
	setenv("MLX5EMU_CAPS",
	       "per_protocol_networking_offload_caps.csum_cap=0,"
	       "per_protocol_networking_offload_caps.vlan_cap=0,"
	       "per_protocol_networking_offload_caps.max_lso_cap=0", 1);
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
