/* SPDX-License-Identifier: MIT */
/*
 * Receive WQs, indirection tables and RSS QPs (provider/verbs/wq.c,
 * rwq_ind.c, qp_rss.c): the RQ, RQT and indirect TIR read back through
 * DEVX, libmlx5's WQ sizing and receive WQEs, the WQ states, the uses a
 * table and an RSS QP hold, and the errnos of libmlx5, uverbs and mlx5_ib.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qp_test.h"

static struct ibv_wq *wq_create(uint32_t max_wr, uint32_t max_sge)
{
	struct ibv_wq_init_attr a;

	memset(&a, 0, sizeof(a));
	a.wq_type = IBV_WQT_RQ;
	a.max_wr = max_wr;
	a.max_sge = max_sge;
	a.pd = qt_pd;
	a.cq = qt_cq;
	errno = 0;
	return ibv_create_wq(qt_ctx, &a);
}

static void wq_query(struct ibv_wq *wq, void *out)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_rq_in)] = { 0 };

	PRM_SET(query_rq_in, in, opcode, MLX5_CMD_OP_QUERY_RQ);
	PRM_SET(query_rq_in, in, rqn, wq->wq_num);
	memset(out, 0, PRM_ST_SZ_BYTES(query_rq_out));
	ck_assert_int_eq(mlx5dv_devx_wq_query(wq, in, sizeof(in), out,
					      PRM_ST_SZ_BYTES(query_rq_out)), 0);
}

static void rwq_dv(struct ibv_wq *wq, struct mlx5dv_rwq *d)
{
	struct mlx5dv_obj o;

	o.rwq.in = wq;
	o.rwq.out = d;
	ck_assert_int_eq(mlx5dv_init_obj(&o, MLX5DV_OBJ_RWQ), 0);
}

/* mlx5_calc_rwq_size(): power-of-two WQEs of power-of-two strides, at
 * least one WQEBB; the RQ the firmware holds; the WQE bytes. */
START_TEST(test_wq_create)
{
	struct ibv_wq *wq = wq_create(5, 3);
	uint8_t out[PRM_ST_SZ_BYTES(query_rq_out)];
	static uint8_t buf[4096];
	struct ibv_mr *mr = ibv_reg_mr(qt_pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge[2] = {
		{ (uintptr_t)buf, 100, mr->lkey },
		{ (uintptr_t)buf + 200, 50, mr->lkey },
	};
	struct ibv_recv_wr wr = { 0 }, *bad;
	struct mlx5dv_rwq d;
	uint8_t want[64] = { 0 };

	ck_assert_msg(wq, "%s", strerror(errno));
	ck_assert_int_eq(wq->state, IBV_WQS_RESET);
	rwq_dv(wq, &d);
	/* 3 SGEs: a 48-byte WQE, strides of 64; 8 WQEs. */
	ck_assert_uint_eq(d.stride, 64);
	ck_assert_uint_eq(d.wqe_cnt, 8);
	wq_query(wq, out);
	ck_assert_uint_eq(PRM_GET(query_rq_out, out, rq_context.state),
			  MLX5_RQC_STATE_RST);
	ck_assert_uint_eq(PRM_GET(query_rq_out, out, rq_context.vsd), 1);
	ck_assert_uint_eq(PRM_GET(query_rq_out, out, rq_context.wq.log_wq_sz), 3);
	ck_assert_uint_eq(PRM_GET(query_rq_out, out, rq_context.wq.log_wq_stride),
			  6);
	ck_assert_uint_eq(PRM_GET(query_rq_out, out, rq_context.wq.pd),
			  vt_pdn(qt_pd));

	wr.wr_id = 1;
	wr.sg_list = sge;
	wr.num_sge = 2;
	ck_assert_int_eq(ibv_post_wq_recv(wq, &wr, &bad), 0);
	qt_put_dseg(want, 100, mr->lkey, (uintptr_t)buf);
	qt_put_dseg(want + 16, 50, mr->lkey, (uintptr_t)buf + 200);
	/* The list ends with the invalid lkey where there is room. */
	qt_put_dseg(want + 32, 0, 0x100, 0);
	ck_assert_mem_eq(d.buf, want, 48);
	ck_assert_uint_eq(be32toh(*d.dbrec), 1);
	/* libmlx5: too many SGEs (the stride holds 4) is EINVAL, a full WQ
	 * ENOMEM. */
	wr.num_sge = 5;
	ck_assert_int_eq(ibv_post_wq_recv(wq, &wr, &bad), EINVAL);
	wr.num_sge = 1;
	for (int i = 1; i < 8; i++)
		ck_assert_int_eq(ibv_post_wq_recv(wq, &wr, &bad), 0);
	ck_assert_int_eq(ibv_post_wq_recv(wq, &wr, &bad), ENOMEM);
	ck_assert_int_eq(ibv_destroy_wq(wq), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
}
END_TEST

START_TEST(test_wq_errors)
{
	struct ibv_wq_init_attr a;
	struct mlx5dv_wq_init_attr dv;

	ck_assert_ptr_null(wq_create(0, 1));
	ck_assert_int_eq(errno, EINVAL);
	/* Past log_max_wq_sz (mlx5_ib). */
	ck_assert_ptr_null(wq_create((1u << 15) + 1, 1));
	ck_assert_int_eq(errno, EINVAL);
	memset(&a, 0, sizeof(a));
	a.wq_type = IBV_WQT_RQ;
	a.max_wr = 4;
	a.max_sge = 1;
	a.pd = qt_pd;
	a.cq = qt_cq;
	/* Unknown create flags (libibverbs); ones the device does not do. */
	a.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
	a.create_flags = 1u << 6;
	ck_assert_ptr_null(ibv_create_wq(qt_ctx, &a));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	/* VLAN stripping is advertised (vlan_cap): such a WQ is made. */
	a.create_flags = IBV_WQ_FLAGS_CVLAN_STRIPPING;
	{
		struct ibv_wq *wq = ibv_create_wq(qt_ctx, &a);

		ck_assert_ptr_nonnull(wq);
		ck_assert_int_eq(ibv_destroy_wq(wq), 0);
	}
	a.create_flags = IBV_WQ_FLAGS_SCATTER_FCS;
	ck_assert_ptr_null(ibv_create_wq(qt_ctx, &a));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	a.comp_mask = 0;
	/* A striding RQ on a device without one; unknown dv bits. */
	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ;
	dv.striding_rq_attrs.single_stride_log_num_of_bytes = 6;
	dv.striding_rq_attrs.single_wqe_log_num_of_strides = 9;
	ck_assert_ptr_null(mlx5dv_create_wq(qt_ctx, &a, &dv));
	ck_assert_int_eq(errno, EINVAL);
	dv.comp_mask = 1u << 5;
	ck_assert_ptr_null(mlx5dv_create_wq(qt_ctx, &a, &dv));
	ck_assert_int_eq(errno, EINVAL);
	dv.comp_mask = 0;
	{
		struct ibv_wq *wq = mlx5dv_create_wq(qt_ctx, &a, &dv);

		ck_assert_ptr_nonnull(wq);
		ck_assert_int_eq(ibv_destroy_wq(wq), 0);
	}
}
END_TEST

static int wq_move(struct ibv_wq *wq, enum ibv_wq_state st)
{
	struct ibv_wq_attr at;

	memset(&at, 0, sizeof(at));
	at.attr_mask = IBV_WQ_ATTR_STATE;
	at.wq_state = st;
	return ibv_modify_wq(wq, &at);
}

START_TEST(test_wq_states)
{
	struct ibv_wq *wq = wq_create(4, 1);
	uint8_t out[PRM_ST_SZ_BYTES(query_rq_out)];
	struct ibv_wq_attr at;

	ck_assert_ptr_nonnull(wq);
	ck_assert_int_eq(wq_move(wq, IBV_WQS_RDY), 0);
	ck_assert_int_eq(wq->state, IBV_WQS_RDY);
	wq_query(wq, out);
	ck_assert_uint_eq(PRM_GET(query_rq_out, out, rq_context.state),
			  MLX5_RQC_STATE_RDY);
	ck_assert_int_eq(wq_move(wq, IBV_WQS_ERR), 0);
	wq_query(wq, out);
	ck_assert_uint_eq(PRM_GET(query_rq_out, out, rq_context.state),
			  MLX5_RQC_STATE_ERR);
	ck_assert_int_eq(wq->state, IBV_WQS_ERR);
	/* libmlx5 returns -EINVAL when the current state is not the WQ's. */
	memset(&at, 0, sizeof(at));
	at.attr_mask = IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE;
	at.wq_state = IBV_WQS_RDY;
	at.curr_wq_state = IBV_WQS_RESET;
	ck_assert_int_eq(ibv_modify_wq(wq, &at), -EINVAL);
	ck_assert_int_eq(wq_move(wq, IBV_WQS_RESET), 0);
	ck_assert_int_eq(wq->state, IBV_WQS_RESET);
	/* No attributes at all (uverbs). */
	at.attr_mask = 0;
	ck_assert_int_eq(ibv_modify_wq(wq, &at), EINVAL);
	ck_assert_int_eq(ibv_destroy_wq(wq), 0);
}
END_TEST

static struct ibv_rwq_ind_table *ind_create(struct ibv_wq **wqs, uint32_t log)
{
	struct ibv_rwq_ind_table_init_attr a = { 0 };

	a.log_ind_tbl_size = log;
	a.ind_tbl = wqs;
	errno = 0;
	return ibv_create_rwq_ind_table(qt_ctx, &a);
}

static struct ibv_qp *rss_create(struct ibv_rwq_ind_table *t, uint64_t fields,
				 uint8_t key_len, uint8_t fn)
{
	static uint8_t key[128];
	struct ibv_qp_init_attr_ex ax;

	for (unsigned int i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 7 + 1);
	memset(&ax, 0, sizeof(ax));
	ax.qp_type = IBV_QPT_RAW_PACKET;
	ax.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
		       IBV_QP_INIT_ATTR_RX_HASH;
	ax.pd = qt_pd;
	ax.rwq_ind_tbl = t;
	ax.rx_hash_conf.rx_hash_function = fn;
	ax.rx_hash_conf.rx_hash_key_len = key_len;
	ax.rx_hash_conf.rx_hash_key = key;
	ax.rx_hash_conf.rx_hash_fields_mask = fields;
	errno = 0;
	return ibv_create_qp_ex(qt_ctx, &ax);
}

/* The RQT, the indirect TIR's hash, the uses, the refusals. */
START_TEST(test_rss_qp)
{
	struct ibv_wq *wqs[4];
	struct ibv_rwq_ind_table *t;
	struct ibv_qp *qp;
	uint8_t rqt[PRM_ST_SZ_BYTES(query_rqt_out) + 16];
	uint8_t tir[PRM_ST_SZ_BYTES(query_tir_out)];
	uint8_t in[PRM_ST_SZ_BYTES(query_rqt_in)] = { 0 };
	struct mlx5dv_qp dq;
	struct mlx5dv_obj o;
	uint64_t tcp4 = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
			IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP;
	const uint8_t *key;

	for (int i = 0; i < 4; i++) {
		wqs[i] = wq_create(4, 1);
		ck_assert_ptr_nonnull(wqs[i]);
	}
	t = ind_create(wqs, 2);
	ck_assert_msg(t, "%s", strerror(errno));
	PRM_SET(query_rqt_in, in, opcode, MLX5_CMD_OP_QUERY_RQT);
	PRM_SET(query_rqt_in, in, rqtn, t->ind_tbl_num);
	memset(rqt, 0, sizeof(rqt));
	ck_assert_int_eq(mlx5dv_devx_ind_tbl_query(t, in, sizeof(in), rqt,
						   sizeof(rqt)), 0);
	ck_assert_uint_eq(PRM_GET(query_rqt_out, rqt, rqt_context.rqt_actual_size),
			  4);
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(PRM_GET(rq_num,
					  PRM_ARRAY_ADDR(rqtc,
							 PRM_ADDR_OF(query_rqt_out, rqt,
								     rqt_context),
							 rq_num, i),
					  rq_num), wqs[i]->wq_num);
	/* A WQ in a table cannot go. */
	ck_assert_int_eq(ibv_destroy_wq(wqs[0]), EBUSY);

	qp = rss_create(t, tcp4, 40, IBV_RX_HASH_FUNC_TOEPLITZ);
	ck_assert_msg(qp, "%s", strerror(errno));
	ck_assert_uint_eq(qp->qp_num, 0);
	memset(&dq, 0, sizeof(dq));
	dq.comp_mask = MLX5DV_QP_MASK_RAW_QP_HANDLES;
	o.qp.in = qp;
	o.qp.out = &dq;
	/* No queues, no register: libmlx5 would fault; EINVAL here. */
	ck_assert_int_eq(mlx5dv_init_obj(&o, MLX5DV_OBJ_QP), EINVAL);
	/* The QP's TIR answers DEVX on the QP; its number is not told to the
	 * application (no init_obj), so the one that answers is found. */
	memset(in, 0, sizeof(in));
	PRM_SET(query_tir_in, in, opcode, MLX5_CMD_OP_QUERY_TIR);
	for (uint32_t n = 1; n < 4096; n++) {
		PRM_SET(query_tir_in, in, tirn, n);
		memset(tir, 0, sizeof(tir));
		if (!mlx5dv_devx_qp_query(qp, in, sizeof(in), tir, sizeof(tir)))
			break;
	}
	ck_assert_uint_eq(PRM_GET(query_tir_out, tir, tir_context.disp_type),
			  MLX5_TIRC_DISP_TYPE_INDIRECT);
	ck_assert_uint_eq(PRM_GET(query_tir_out, tir, tir_context.indirect_table),
			  t->ind_tbl_num);
	ck_assert_uint_eq(PRM_GET(query_tir_out, tir, tir_context.rx_hash_fn),
			  MLX5_RX_HASH_FN_TOEPLITZ);
	ck_assert_uint_eq(PRM_GET(query_tir_out, tir,
		tir_context.rx_hash_field_selector_outer.l3_prot_type),
		MLX5_L3_PROT_TYPE_IPV4);
	ck_assert_uint_eq(PRM_GET(query_tir_out, tir,
		tir_context.rx_hash_field_selector_outer.l4_prot_type),
		MLX5_L4_PROT_TYPE_TCP);
	ck_assert_uint_eq(PRM_GET(query_tir_out, tir,
		tir_context.rx_hash_field_selector_outer.selected_fields), 0xf);
	key = PRM_ADDR_OF(query_tir_out, tir, tir_context.rx_hash_toeplitz_key);
	for (int i = 0; i < 40; i++)
		ck_assert_uint_eq(key[i], (uint8_t)(i * 7 + 1));
	/* libmlx5: an RSS QP cannot be modified or queried. */
	{
		struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT };
		struct ibv_qp_init_attr ia;

		ck_assert_int_eq(ibv_modify_qp(qp, &at, IBV_QP_STATE), EOPNOTSUPP);
		ck_assert_int_eq(ibv_query_qp(qp, &at, IBV_QP_STATE, &ia),
				 EOPNOTSUPP);
	}
	/* A table an RSS QP names cannot go. */
	ck_assert_int_eq(ibv_destroy_rwq_ind_table(t), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	/* mlx5_ib's refusals. */
	ck_assert_ptr_null(rss_create(t, tcp4, 40, IBV_RX_HASH_FUNC_TOEPLITZ + 1));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_ptr_null(rss_create(t, tcp4, 32, IBV_RX_HASH_FUNC_TOEPLITZ));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(rss_create(t, tcp4, 129, IBV_RX_HASH_FUNC_TOEPLITZ));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(rss_create(t, 0, 40, IBV_RX_HASH_FUNC_TOEPLITZ));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(rss_create(t, IBV_RX_HASH_SRC_IPV4 |
				      IBV_RX_HASH_DST_IPV6, 40,
				      IBV_RX_HASH_FUNC_TOEPLITZ));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(rss_create(t, IBV_RX_HASH_SRC_PORT_TCP |
				      IBV_RX_HASH_DST_PORT_UDP, 40,
				      IBV_RX_HASH_FUNC_TOEPLITZ));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(rss_create(t, IBV_RX_HASH_INNER | tcp4, 40,
				      IBV_RX_HASH_FUNC_TOEPLITZ));
	ck_assert_int_eq(errno, EOPNOTSUPP);

	ck_assert_int_eq(ibv_destroy_rwq_ind_table(t), 0);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(ibv_destroy_wq(wqs[i]), 0);
}
END_TEST

/* A one-entry table may steer without hashing; table sizes. */
START_TEST(test_rss_steer_only)
{
	struct ibv_wq *wq = wq_create(4, 1);
	struct ibv_wq *two[2] = { wq, wq };
	struct ibv_rwq_ind_table *t = ind_create(&wq, 0);
	struct ibv_qp *qp;

	ck_assert_ptr_nonnull(t);
	qp = rss_create(t, 0, 40, IBV_RX_HASH_FUNC_TOEPLITZ);
	ck_assert_msg(qp, "%s", strerror(errno));
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_rwq_ind_table(t), 0);
	/* The same WQ twice; past uverbs' 2^13; past log_max_rqt_size. */
	t = ind_create(two, 1);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(ibv_destroy_rwq_ind_table(t), 0);
	ck_assert_ptr_null(ind_create(two, 14));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_destroy_wq(wq), 0);
}
END_TEST

/* A DEVX TIR over a WQ's RQ without a transport domain, as pyverbs'
 * test_mlx5_dr test_dest_tir makes one on ConnectX hardware. */
START_TEST(test_devx_tir_no_td)
{
	struct ibv_wq *wq = wq_create(4, 1);
	uint8_t in[PRM_ST_SZ_BYTES(create_tir_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_tir_out)] = { 0 };
	struct mlx5dv_devx_obj *tir;

	ck_assert_ptr_nonnull(wq);
	ck_assert_int_eq(wq_move(wq, IBV_WQS_RDY), 0);
	PRM_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	PRM_SET(create_tir_in, in, ctx.inline_rqn, wq->wq_num);
	tir = mlx5dv_devx_obj_create(qt_ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_msg(tir, "status 0x%x syndrome 0x%x",
		      PRM_GET(create_tir_out, out, status),
		      PRM_GET(create_tir_out, out, syndrome));
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(tir), 0);
	ck_assert_int_eq(ibv_destroy_wq(wq), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("qp_rss");
	TCase *tc = tcase_create("rss");

	tcase_add_checked_fixture(tc, qt_setup, qt_teardown);
	tcase_add_test(tc, test_wq_create);
	tcase_add_test(tc, test_wq_errors);
	tcase_add_test(tc, test_wq_states);
	tcase_add_test(tc, test_rss_qp);
	tcase_add_test(tc, test_rss_steer_only);
	tcase_add_test(tc, test_devx_tir_no_td);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
