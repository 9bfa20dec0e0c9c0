/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_create_qp: DC initiators (a send-only QP of service type DCI,
 * its own transition rules), DC targets (no firmware object until RTR,
 * then CREATE_DCT and its number; QUERY_DCT), the mlx5 creation flags
 * as libmlx5 44 and mlx5_ib take them without the scatter-to-CQE cap,
 * and mlx5dv_init_obj's QP geometry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qp_test.h"

static struct ibv_srq *qt_srq;

static void dc_setup(void)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = 16, .max_sge = 1 } };

	qt_setup();
	qt_srq = ibv_create_srq(qt_pd, &a);
	ck_assert_ptr_nonnull(qt_srq);
}

static void dc_teardown(void)
{
	ck_assert_int_eq(ibv_destroy_srq(qt_srq), 0);
	qt_teardown();
}

static struct ibv_qp_init_attr_ex dc_attr(uint32_t swr)
{
	struct ibv_qp_init_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_DRIVER;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.pd = qt_pd;
	a.send_cq = qt_cq;
	a.recv_cq = qt_cq;
	a.cap.max_send_wr = swr;
	a.cap.max_send_sge = 1;
	return a;
}

static struct mlx5dv_qp_init_attr dv_attr(enum mlx5dv_dc_type t, uint32_t flags)
{
	struct mlx5dv_qp_init_attr d;

	memset(&d, 0, sizeof(d));
	d.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
	d.dc_init_attr.dc_type = t;
	d.dc_init_attr.dct_access_key = 0x1234abcd5678ULL;
	if (flags) {
		d.comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
		d.create_flags = flags;
	}
	return d;
}

/* The errno of mlx5dv_create_qp (0: created and destroyed again). */
static int dv_err(struct ibv_qp_init_attr_ex *a, struct mlx5dv_qp_init_attr *d)
{
	struct ibv_qp *qp;

	errno = 0;
	qp = mlx5dv_create_qp(qt_ctx, a, d);
	if (qp) {
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
		return 0;
	}
	return errno;
}

static struct ibv_qp *dci_create(uint32_t swr)
{
	struct ibv_qp_init_attr_ex a = dc_attr(swr);
	struct mlx5dv_qp_init_attr d = dv_attr(MLX5DV_DCTYPE_DCI, 0);
	struct ibv_qp *qp = mlx5dv_create_qp(qt_ctx, &a, &d);

	ck_assert_msg(qp, "%s", strerror(errno));
	return qp;
}

static struct ibv_qp *dct_create(void)
{
	struct ibv_qp_init_attr_ex a = dc_attr(0);
	struct mlx5dv_qp_init_attr d = dv_attr(MLX5DV_DCTYPE_DCT, 0);
	struct ibv_qp *qp;

	a.srq = qt_srq;
	a.cap.max_send_sge = 0;
	qp = mlx5dv_create_qp(qt_ctx, &a, &d);
	ck_assert_msg(qp, "%s", strerror(errno));
	return qp;
}

START_TEST(test_dci)
{
	struct ibv_qp *qp = dci_create(16);
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)];
	struct ibv_qp_attr a;

	ck_assert_int_eq(qp->qp_type, IBV_QPT_DRIVER);
	ck_assert_uint_ne(qp->qp_num, 0);
	ck_assert_int_eq(qt_devx_query_qp(qp, out), 0);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.st), MLX5_QPC_ST_DCI);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.rq_type), 3);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.pd), vt_pdn(qt_pd));

	/* The DCI rules: INIT takes no access flags. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), EINVAL);
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT), 0);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.dgid = qt_gid(1);
	/* No destination QP for a DCI. */
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU |
				       IBV_QP_AV | IBV_QP_DEST_QPN), EINVAL);
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU |
				       IBV_QP_AV), 0);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0x42;
	a.max_rd_atomic = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				       IBV_QP_SQ_PSN), EINVAL);
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC), 0);
	ck_assert_int_eq(qp->state, IBV_QPS_RTS);
	ck_assert_int_eq(qt_devx_query_qp(qp, out), 0);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.state),
			  MLX5_QPC_STATE_RTS);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.next_send_psn), 0x42);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.retry_count), 7);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.mtu), IBV_MTU_1024);
	a.qp_state = IBV_QPS_ERR;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_dci_bad)
{
	struct ibv_qp_init_attr_ex a = dc_attr(4);
	struct mlx5dv_qp_init_attr d = dv_attr(MLX5DV_DCTYPE_DCI, 0);

	/* A DCI receives nothing. */
	a.cap.max_recv_wr = 1;
	a.cap.max_recv_sge = 1;
	ck_assert_int_eq(dv_err(&a, &d), EINVAL);
	a = dc_attr(4);
	/* Unknown DC type; DC attributes on an RC QP; no DC attributes. */
	d.dc_init_attr.dc_type = (enum mlx5dv_dc_type)9;
	ck_assert_int_eq(dv_err(&a, &d), EINVAL);
	d = dv_attr(MLX5DV_DCTYPE_DCI, 0);
	a.qp_type = IBV_QPT_RC;
	ck_assert_int_eq(dv_err(&a, &d), EINVAL);
	a = dc_attr(4);
	d.comp_mask = 0;
	ck_assert_int_eq(dv_err(&a, &d), EINVAL);
	/* Unknown dv comp_mask bits. */
	d = dv_attr(MLX5DV_DCTYPE_DCI, 0);
	d.comp_mask |= 1ull << 40;
	ck_assert_int_eq(dv_err(&a, &d), EINVAL);
	/* DCI streams: the device advertises none. */
	d = dv_attr(MLX5DV_DCTYPE_DCI, 0);
	d.comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS;
	d.dc_init_attr.dci_streams.log_num_concurent = 2;
	ck_assert_int_eq(dv_err(&a, &d), EINVAL);
	/* mlx5dv send ops of a DCI: raw WQEs and memcpy only (libmlx5). */
	d = dv_attr(MLX5DV_DCTYPE_DCI, 0);
	d.comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
	d.send_ops_flags = MLX5DV_QP_EX_WITH_MR_LIST;
	ck_assert_int_eq(dv_err(&a, &d), EOPNOTSUPP);
	d = dv_attr(MLX5DV_DCTYPE_DCI, 0);
	a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND;
	ck_assert_int_eq(dv_err(&a, &d), 0);
}
END_TEST

/* mlx5dv creation flags as libmlx5 44 and mlx5_ib take them. */
START_TEST(test_dv_create_flags)
{
	struct ibv_qp_init_attr_ex a = dc_attr(4);
	struct mlx5dv_qp_init_attr d;
	struct ibv_qp_init_attr_ex rc;

	d = dv_attr(MLX5DV_DCTYPE_DCI, MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE);
	ck_assert_int_eq(dv_err(&a, &d), 0);
	d = dv_attr(MLX5DV_DCTYPE_DCI, MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE);
	ck_assert_int_eq(dv_err(&a, &d), 0);
	d = dv_attr(MLX5DV_DCTYPE_DCI, MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE |
		    MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE);
	ck_assert_int_eq(dv_err(&a, &d), EINVAL);
	d = dv_attr(MLX5DV_DCTYPE_DCI, MLX5DV_QP_CREATE_TUNNEL_OFFLOADS);
	ck_assert_int_eq(dv_err(&a, &d), EINVAL);
	d = dv_attr(MLX5DV_DCTYPE_DCI, MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC);
	ck_assert_int_eq(dv_err(&a, &d), EINVAL);
	d = dv_attr(MLX5DV_DCTYPE_DCI, MLX5DV_QP_CREATE_SIG_PIPELINING);
	ck_assert_int_eq(dv_err(&a, &d), EOPNOTSUPP);
	d = dv_attr(MLX5DV_DCTYPE_DCI, 1u << 20);
	ck_assert_int_eq(dv_err(&a, &d), EINVAL);

	/* An RC QP through mlx5dv_create_qp with the same flags. */
	memset(&rc, 0, sizeof(rc));
	rc.qp_type = IBV_QPT_RC;
	rc.comp_mask = IBV_QP_INIT_ATTR_PD;
	rc.pd = qt_pd;
	rc.send_cq = rc.recv_cq = qt_cq;
	rc.cap.max_send_wr = rc.cap.max_recv_wr = 4;
	rc.cap.max_send_sge = rc.cap.max_recv_sge = 1;
	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(dv_err(&rc, &d), 0);
	d.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
	d.create_flags = MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE;
	ck_assert_int_eq(dv_err(&rc, &d), 0);
	d.create_flags = MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE;
	ck_assert_int_eq(dv_err(&rc, &d), EINVAL);

	/* A DCT: only DISABLE_SCATTER_TO_CQE. */
	a = dc_attr(0);
	a.srq = qt_srq;
	d = dv_attr(MLX5DV_DCTYPE_DCT, MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE);
	ck_assert_int_eq(dv_err(&a, &d), 0);
	d = dv_attr(MLX5DV_DCTYPE_DCT, MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE);
	ck_assert_int_eq(dv_err(&a, &d), EINVAL);
}
END_TEST

START_TEST(test_dct)
{
	struct ibv_qp *qp = dct_create();
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a, q;
	uint8_t in[PRM_ST_SZ_BYTES(query_dct_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_dct_out)] = { 0 };
	uint32_t srqn;

	/* No firmware object, no number yet. */
	ck_assert_int_eq(qp->qp_type, IBV_QPT_DRIVER);
	ck_assert_uint_eq(qp->qp_num, 0);
	ck_assert_int_eq(ibv_destroy_srq(qt_srq), EBUSY);
	errno = 0;
	ck_assert_int_eq(ibv_query_qp(qp, &q, IBV_QP_STATE, &init), EINVAL);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	/* Exactly these attributes. */
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT), EINVAL);
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS |
				       IBV_QP_QKEY), EINVAL);
	a.port_num = 2;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), EINVAL);
	a.port_num = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	ck_assert_int_eq(qp->state, IBV_QPS_INIT);
	ck_assert_uint_eq(qp->qp_num, 0);

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_2048;
	a.min_rnr_timer = 7;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 9;
	a.ah_attr.grh.traffic_class = 0x20;
	a.ah_attr.grh.flow_label = 0x123;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU |
				       IBV_QP_AV), EINVAL);
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU |
				       IBV_QP_AV | IBV_QP_MIN_RNR_TIMER), 0);
	ck_assert_int_eq(qp->state, IBV_QPS_RTR);
	ck_assert_uint_ne(qp->qp_num, 0);

	/* CREATE_DCT as mlx5_ib builds it. */
	PRM_SET(query_dct_in, in, opcode, MLX5_CMD_OP_QUERY_DCT);
	PRM_SET(query_dct_in, in, dctn, qp->qp_num);
	ck_assert_int_eq(mlx5dv_devx_qp_query(qp, in, sizeof(in), out,
					      sizeof(out)), 0);
	ck_assert_int_eq(ibv_get_srq_num(qt_srq, &srqn), 0);
	ck_assert_uint_eq(PRM_GET(query_dct_out, out,
				  dct_context_entry.srqn_xrqn), srqn);
	ck_assert_uint_eq(PRM_GET(query_dct_out, out, dct_context_entry.pd),
			  vt_pdn(qt_pd));
	ck_assert(PRM_GET64(query_dct_out, out,
			    dct_context_entry.dc_access_key) == 0x1234abcd5678ULL);
	ck_assert_uint_eq(PRM_GET(query_dct_out, out, dct_context_entry.rwe), 1);
	ck_assert_uint_eq(PRM_GET(query_dct_out, out, dct_context_entry.rre), 1);
	ck_assert_uint_eq(PRM_GET(query_dct_out, out, dct_context_entry.rae), 0);

	/* ibv_query_qp: QUERY_DCT. */
	ck_assert_int_eq(ibv_query_qp(qp, &q, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS |
				      IBV_QP_PORT | IBV_QP_MIN_RNR_TIMER |
				      IBV_QP_AV | IBV_QP_PATH_MTU |
				      IBV_QP_PKEY_INDEX, &init), 0);
	ck_assert_int_eq(q.qp_state, IBV_QPS_RTR);
	ck_assert_uint_eq(q.qp_access_flags,
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_uint_eq(q.port_num, 1);
	ck_assert_uint_eq(q.min_rnr_timer, 7);
	ck_assert_int_eq(q.path_mtu, IBV_MTU_2048);
	ck_assert_uint_eq(q.ah_attr.grh.sgid_index, 1);
	ck_assert_uint_eq(q.ah_attr.grh.hop_limit, 9);
	ck_assert_uint_eq(q.ah_attr.grh.traffic_class, 0x20);
	ck_assert_uint_eq(q.ah_attr.grh.flow_label, 0x123);
	/* Attributes a DCT does not have. */
	ck_assert_int_eq(ibv_query_qp(qp, &q, IBV_QP_SQ_PSN, &init), EINVAL);
	/* No further transition. */
	a.qp_state = IBV_QPS_RTS;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), EINVAL);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

/*
 * ECE on a DCT: nothing until CREATE_DCT (libmlx5's create response has
 * none); options set before RTR get the CREATE_DCT's answer to the
 * version-1 opening the create carried (dctc.ece, kept by QUERY_DCT).
 */
START_TEST(test_dct_ece)
{
	struct ibv_qp *qp = dct_create();
	struct ibv_ece e = { .vendor_id = 0x15b3, .options = 0x20000001 };
	uint8_t in[PRM_ST_SZ_BYTES(query_dct_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_dct_out)] = { 0 };
	struct ibv_qp_attr a;

	ck_assert_int_eq(ibv_query_ece(qp, &e), 0);
	ck_assert_uint_eq(e.options, 0);
	e.options = 0x20000001;
	ck_assert_int_eq(ibv_set_ece(qp, &e), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	ck_assert_int_eq(ibv_query_ece(qp, &e), 0);
	ck_assert_uint_eq(e.options, 0);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU |
				       IBV_QP_AV | IBV_QP_MIN_RNR_TIMER), 0);
	ck_assert_int_eq(ibv_query_ece(qp, &e), 0);
	ck_assert_uint_eq(e.vendor_id, 0x15b3);
	ck_assert_uint_eq(e.options, 0x10000000);
	PRM_SET(query_dct_in, in, opcode, MLX5_CMD_OP_QUERY_DCT);
	PRM_SET(query_dct_in, in, dctn, qp->qp_num);
	ck_assert_int_eq(mlx5dv_devx_qp_query(qp, in, sizeof(in), out,
					      sizeof(out)), 0);
	ck_assert_uint_eq(PRM_GET(query_dct_out, out, dct_context_entry.ece),
			  0x10000000);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_dct_bad)
{
	struct ibv_qp_init_attr_ex a = dc_attr(0);
	struct mlx5dv_qp_init_attr d = dv_attr(MLX5DV_DCTYPE_DCT, 0);

	/* A DCT needs its SRQ. */
	ck_assert_int_eq(dv_err(&a, &d), EINVAL);
	a.srq = qt_srq;
	ck_assert_int_eq(dv_err(&a, &d), 0);
	/* ibv create flags, comp_mask bits past the PD: EINVAL. */
	a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
	a.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
	ck_assert_int_eq(dv_err(&a, &d), EINVAL);
	a = dc_attr(0);
	a.srq = qt_srq;
	/* The DCT is destroyed in INIT too (no firmware object). */
	{
		struct ibv_qp *qp = mlx5dv_create_qp(qt_ctx, &a, &d);
		struct ibv_qp_attr m = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

		ck_assert_ptr_nonnull(qp);
		ck_assert_int_eq(ibv_modify_qp(qp, &m, IBV_QP_STATE |
					       IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					       IBV_QP_ACCESS_FLAGS), 0);
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	}
}
END_TEST

/* mlx5dv_init_obj on QPs: the ring, the doorbell record, the register. */
START_TEST(test_init_obj_qp)
{
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 100, 30, 2, 3);
	struct ibv_qp *qp = ibv_create_qp(qt_pd, &a);
	struct ibv_qp *dci = dci_create(8), *dct = dct_create();
	struct mlx5dv_qp dv;
	struct mlx5dv_obj obj;

	ck_assert_ptr_nonnull(qp);
	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = MLX5DV_QP_MASK_UAR_MMAP_OFFSET;
	obj.qp.in = qp;
	obj.qp.out = &dv;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	/* SQ: 128 WQEs of 4 WQEBBs (192 + 2 SGEs -> 256 bytes). */
	ck_assert_uint_eq(dv.sq.stride, 64);
	ck_assert_uint_eq(dv.sq.wqe_cnt, 512);
	/* RQ: 32 WQEs of 4 scatter entries, at the ring's start. */
	ck_assert_uint_eq(dv.rq.stride, 64);
	ck_assert_uint_eq(dv.rq.wqe_cnt, 32);
	ck_assert_ptr_eq((char *)dv.sq.buf, (char *)dv.rq.buf + 32 * 64);
	ck_assert_ptr_nonnull(dv.dbrec);
	ck_assert_uint_eq(dv.dbrec[0], 0);
	ck_assert_uint_eq(dv.dbrec[1], 0);
	ck_assert_ptr_nonnull(dv.bf.reg);
	ck_assert_uint_eq(dv.bf.size, 256);
	ck_assert_uint_eq(dv.comp_mask, MLX5DV_QP_MASK_UAR_MMAP_OFFSET);

	memset(&dv, 0, sizeof(dv));
	obj.qp.in = dci;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	ck_assert_uint_eq(dv.sq.stride, 64);
	ck_assert_uint_eq(dv.rq.wqe_cnt, 0);
	/* 8 WQEs of 256 bytes (192 + datagram 48 + 1 SGE). */
	ck_assert_uint_eq(dv.sq.wqe_cnt, 32);
	ck_assert_uint_eq(dv.bf.size, 256);
	ck_assert_uint_eq(dv.comp_mask, 0);
	/* A DCT has no queue of its own. */
	obj.qp.in = dct;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), EINVAL);

	ck_assert_int_eq(ibv_destroy_qp(dct), 0);
	ck_assert_int_eq(ibv_destroy_qp(dci), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("qp_dc");
	TCase *tc = tcase_create("dc");

	tcase_add_checked_fixture(tc, dc_setup, dc_teardown);
	tcase_add_test(tc, test_dci);
	tcase_add_test(tc, test_dci_bad);
	tcase_add_test(tc, test_dv_create_flags);
	tcase_add_test(tc, test_dct);
	tcase_add_test(tc, test_dct_bad);
	tcase_add_test(tc, test_dct_ece);
	tcase_add_test(tc, test_init_obj_qp);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
