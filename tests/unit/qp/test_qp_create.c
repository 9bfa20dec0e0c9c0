/* SPDX-License-Identifier: MIT */
/*
 * ibv_create_qp / ibv_create_qp_ex / ibv_destroy_qp, ibv_post_recv and
 * ibv_post_send: the caps as libmlx5 44 rounds them, the errnos of
 * libmlx5, libibverbs, uverbs and mlx5_ib, the uses the QP takes, and the
 * CREATE_QP the firmware got (read back through DEVX).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qp_test.h"

static void expect_caps(struct ibv_qp_init_attr *a, uint32_t swr,
			uint32_t rwr, uint32_t ssge, uint32_t rsge, uint32_t inl)
{
	ck_assert_uint_eq(a->cap.max_send_wr, swr);
	ck_assert_uint_eq(a->cap.max_recv_wr, rwr);
	ck_assert_uint_eq(a->cap.max_send_sge, ssge);
	ck_assert_uint_eq(a->cap.max_recv_sge, rsge);
	ck_assert_uint_eq(a->cap.max_inline_data, inl);
}

static struct ibv_qp *create_caps(enum ibv_qp_type t, uint32_t swr,
				  uint32_t rwr, uint32_t ssge, uint32_t rsge,
				  uint32_t inl, struct ibv_qp_init_attr *a)
{
	struct ibv_qp *qp;

	*a = qt_init_attr(t, swr, rwr, ssge, rsge);
	a->cap.max_inline_data = inl;
	qp = ibv_create_qp(qt_pd, a);
	ck_assert_msg(qp, "type %d swr %u rwr %u: %s", t, swr, rwr,
		      strerror(errno));
	return qp;
}

START_TEST(test_create_types)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC,
						  IBV_QPT_UD };
	uint32_t qpns[3];

	for (int i = 0; i < 3; i++) {
		struct ibv_qp *qp = qt_create(types[i], 8, 8);
		uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)];
		static const uint32_t st[] = { MLX5_QPC_ST_RC, MLX5_QPC_ST_UC,
					       MLX5_QPC_ST_UD };

		ck_assert_int_eq(qp->state, IBV_QPS_RESET);
		ck_assert_int_eq(qp->qp_type, types[i]);
		ck_assert_ptr_eq(qp->context, qt_ctx);
		ck_assert_ptr_eq(qp->pd, qt_pd);
		ck_assert_ptr_eq(qp->send_cq, qt_cq);
		ck_assert_ptr_eq(qp->recv_cq, qt_cq);
		ck_assert_uint_ne(qp->qp_num, 0);
		qpns[i] = qp->qp_num;
		for (int j = 0; j < i; j++)
			ck_assert_uint_ne(qpns[j], qp->qp_num);
		ck_assert_int_eq(qt_devx_query_qp(qp, out), 0);
		ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.st), st[i]);
		ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.state),
				  MLX5_QPC_STATE_RST);
		ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.pd),
				  vt_pdn(qt_pd));
		ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.pm_state),
				  MLX5_QPC_PM_STATE_MIGRATED);
		ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.rq_type), 0);
		ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.ts_format),
				  MLX5_TIMESTAMP_FORMAT_FREE_RUNNING);
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	}
}
END_TEST

/* libmlx5's sizing: RC/UC overhead 192 bytes (control + UMR/memory
 * window), UD 64 (control + datagram); RQ WQEs a power of two of 16-byte
 * scatter entries, 64 bytes of RQ at least. */
START_TEST(test_create_caps_rounding)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp;

	qp = create_caps(IBV_QPT_RC, 1, 1, 1, 1, 0, &a);
	expect_caps(&a, 1, 4, 1, 1, 60);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	qp = create_caps(IBV_QPT_RC, 100, 100, 2, 3, 0, &a);
	expect_caps(&a, 128, 128, 2, 4, 60);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	qp = create_caps(IBV_QPT_UC, 3, 0, 1, 0, 200, &a);
	expect_caps(&a, 4, 0, 1, 0, 252);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	qp = create_caps(IBV_QPT_UD, 1, 1, 1, 0, 0, &a);
	expect_caps(&a, 1, 4, 1, 1, 60);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	qp = create_caps(IBV_QPT_UD, 10, 5, 1, 32, 0, &a);
	expect_caps(&a, 16, 8, 1, 32, 60);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	/* The WQE budget, not the device's max_sge, bounds send SGEs. */
	qp = create_caps(IBV_QPT_RC, 1, 0, 52, 0, 0, &a);
	expect_caps(&a, 1, 0, 52, 0, 1024 - 192 - 4);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	/* The largest inline (a 1024-byte WQE) and the largest SQ. */
	qp = create_caps(IBV_QPT_RC, 32, 0, 1, 0, 828, &a);
	expect_caps(&a, 32, 0, 1, 0, 828);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	qp = create_caps(IBV_QPT_RC, 8192, 0, 1, 0, 0, &a);
	expect_caps(&a, 8192, 0, 1, 0, 60);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	/* No send queue: max_inline_data stays as given. */
	qp = create_caps(IBV_QPT_RC, 0, 16, 0, 1, 7, &a);
	expect_caps(&a, 0, 16, 0, 1, 7);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_create_ex_caps)
{
	struct ibv_qp_init_attr_ex ax;
	struct ibv_qp *qp;

	memset(&ax, 0, sizeof(ax));
	ax.qp_type = IBV_QPT_RC;
	ax.send_cq = qt_cq;
	ax.recv_cq = qt_cq;
	ax.cap.max_send_wr = 100;
	ax.cap.max_recv_wr = 100;
	ax.cap.max_send_sge = 2;
	ax.cap.max_recv_sge = 3;
	ax.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ax.pd = qt_pd;
	qp = ibv_create_qp_ex(qt_ctx, &ax);
	ck_assert_msg(qp, "%s", strerror(errno));
	ck_assert_uint_eq(ax.cap.max_send_wr, 128);
	ck_assert_uint_eq(ax.cap.max_recv_wr, 128);
	ck_assert_uint_eq(ax.cap.max_recv_sge, 4);
	ck_assert_uint_eq(ax.cap.max_inline_data, 60);
	ck_assert_ptr_null(ibv_qp_to_qp_ex(qp));
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_create_bad_caps)
{
	static const struct {
		enum ibv_qp_type t;
		uint32_t swr, rwr, ssge, rsge, inl;
	} bad[] = {
		{ IBV_QPT_RC, 0xffffffff, 1, 1, 1, 0 },	/* overflow guard */
		{ IBV_QPT_RC, 8193, 1, 1, 1, 0 },	/* > 32768 WQEBBs */
		{ IBV_QPT_UD, 1, 32769, 1, 1, 0 },	/* > max_qp_wr */
		{ IBV_QPT_UD, 1, 0xffffffff, 1, 1, 0 },
		{ IBV_QPT_RC, 1, 1, 53, 1, 0 },		/* past the WQE budget */
		{ IBV_QPT_UD, 1, 1, 61, 1, 0 },
		{ IBV_QPT_UD, 1, 1, 0xffff, 1, 0 },
		{ IBV_QPT_RC, 1, 1, 1, 33, 0 },		/* RQ WQE > 512 bytes */
		{ IBV_QPT_UD, 1, 1, 1, 0xffff, 0 },
		{ IBV_QPT_RC, 1, 1, 1, 1, 829 },	/* inline past 1024 */
		{ IBV_QPT_UC, 1, 1, 1, 1, 0xffffffff },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ibv_qp_init_attr a = qt_init_attr(bad[i].t, bad[i].swr,
							 bad[i].rwr, bad[i].ssge,
							 bad[i].rsge);

		a.cap.max_inline_data = bad[i].inl;
		ck_assert_msg(qt_create_err(&a) == EINVAL, "case %zu: %d", i,
			      errno);
	}
}
END_TEST

START_TEST(test_create_bad_objects)
{
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 1, 1, 1, 1);
	struct ibv_qp_init_attr_ex ax;
	struct ibv_context *other = vt_open(true);
	struct ibv_pd *opd = ibv_alloc_pd(other);
	struct ibv_cq *ocq = ibv_create_cq(other, 4, NULL, NULL, 0);

	ck_assert_ptr_nonnull(opd);
	ck_assert_ptr_nonnull(ocq);
	/* uverbs needs a send CQ (libibverbs would fault on NULL). */
	a.send_cq = NULL;
	ck_assert_int_eq(qt_create_err(&a), EINVAL);
	/* Objects of another context are unknown handles. */
	a = qt_init_attr(IBV_QPT_RC, 1, 1, 1, 1);
	a.send_cq = ocq;
	ck_assert_int_eq(qt_create_err(&a), EINVAL);
	a = qt_init_attr(IBV_QPT_RC, 1, 1, 1, 1);
	a.recv_cq = ocq;
	ck_assert_int_eq(qt_create_err(&a), EINVAL);
	errno = 0;
	a = qt_init_attr(IBV_QPT_RC, 1, 1, 1, 1);
	ck_assert_ptr_null(ibv_create_qp(opd, &a));
	ck_assert_int_eq(errno, EINVAL);
	/* An unknown QP type. */
	a = qt_init_attr((enum ibv_qp_type)99, 1, 1, 1, 1);
	ck_assert_int_eq(qt_create_err(&a), EINVAL);
	/* IBV_QPT_DRIVER needs mlx5dv DC attributes. */
	a = qt_init_attr(IBV_QPT_DRIVER, 1, 0, 1, 0);
	ck_assert_int_eq(qt_create_err(&a), EINVAL);
	/* Raw packet QPs: a PD of this context (test_qp_raw.c for more). */
	a = qt_init_attr(IBV_QPT_RAW_PACKET, 1, 1, 1, 1);
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(opd, &a));
	ck_assert_int_eq(errno, EINVAL);

	/* ex: no PD in comp_mask; unknown comp_mask bits. */
	memset(&ax, 0, sizeof(ax));
	ax.qp_type = IBV_QPT_RC;
	ax.send_cq = ax.recv_cq = qt_cq;
	ax.cap.max_send_wr = 1;
	ax.comp_mask = IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ck_assert_int_eq(qt_create_ex_err(&ax), EINVAL);
	ax.comp_mask = IBV_QP_INIT_ATTR_PD | (1u << 20);
	ax.pd = qt_pd;
	ck_assert_int_eq(qt_create_ex_err(&ax), EINVAL);
	/* A TSO header is for raw packet QPs only (libmlx5). */
	ax.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	ax.max_tso_header = 64;
	ck_assert_int_eq(qt_create_ex_err(&ax), EINVAL);

	ck_assert_int_eq(ibv_destroy_cq(ocq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(opd), 0);
	ck_assert_int_eq(ibv_close_device(other), 0);
}
END_TEST

static int create_flags_err(enum ibv_qp_type t, uint32_t flags)
{
	struct ibv_qp_init_attr_ex ax;

	memset(&ax, 0, sizeof(ax));
	ax.qp_type = t;
	ax.send_cq = ax.recv_cq = qt_cq;
	ax.cap.max_send_wr = 1;
	ax.cap.max_recv_wr = 1;
	ax.cap.max_send_sge = 1;
	ax.cap.max_recv_sge = 1;
	ax.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ax.pd = qt_pd;
	ax.create_flags = flags;
	return qt_create_ex_err(&ax);
}

START_TEST(test_create_flags)
{
	struct ibv_qp_init_attr_ex ax;
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)];
	struct ibv_qp *qp;

	/* Advertised (block_lb_mc): a UD QP blocks its own multicast. */
	memset(&ax, 0, sizeof(ax));
	ax.qp_type = IBV_QPT_UD;
	ax.send_cq = ax.recv_cq = qt_cq;
	ax.cap.max_send_wr = 1;
	ax.cap.max_send_sge = 1;
	ax.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ax.pd = qt_pd;
	ax.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
	qp = ibv_create_qp_ex(qt_ctx, &ax);
	ck_assert_msg(qp, "%s", strerror(errno));
	ck_assert_int_eq(qt_devx_query_qp(qp, out), 0);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.block_lb_mc), 1);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	/* uverbs: flags on types that take none; raw-only flags. */
	ck_assert_int_eq(create_flags_err(IBV_QPT_RC,
					  IBV_QP_CREATE_BLOCK_SELF_MCAST_LB), EINVAL);
	ck_assert_int_eq(create_flags_err(IBV_QPT_UD, IBV_QP_CREATE_SCATTER_FCS),
			 EINVAL);
	ck_assert_int_eq(create_flags_err(IBV_QPT_UD,
					  IBV_QP_CREATE_CVLAN_STRIPPING), EINVAL);
	/* libibverbs: flags it does not know. */
	ck_assert_int_eq(create_flags_err(IBV_QPT_UD, 1u << 3), EINVAL);
	/* libmlx5: SOURCE_QPN is for UD; mlx5_ib: only on InfiniBand. */
	ck_assert_int_eq(create_flags_err(IBV_QPT_RC, IBV_QP_CREATE_SOURCE_QPN),
			 EINVAL);
	ck_assert_int_eq(create_flags_err(IBV_QPT_UD, IBV_QP_CREATE_SOURCE_QPN),
			 EOPNOTSUPP);
	/* end_pad is not advertised. */
	ck_assert_int_eq(create_flags_err(IBV_QPT_UD,
					  IBV_QP_CREATE_PCI_WRITE_END_PADDING),
			 EOPNOTSUPP);
}
END_TEST

START_TEST(test_create_uses)
{
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 1, 1, 1, 1);
	struct ibv_cq *scq = ibv_create_cq(qt_ctx, 4, NULL, NULL, 0);
	struct ibv_pd *pd = ibv_alloc_pd(qt_ctx);
	struct ibv_qp *qp;

	ck_assert_ptr_nonnull(scq);
	ck_assert_ptr_nonnull(pd);
	a.send_cq = scq;
	qp = ibv_create_qp(pd, &a);
	ck_assert_ptr_nonnull(qp);
	/* The kernel's use counts: busy while the QP names them. */
	ck_assert_int_eq(ibv_destroy_cq(scq), EBUSY);
	ck_assert_int_eq(ibv_destroy_cq(qt_cq), EBUSY);
	ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(scq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
}
END_TEST

/* CREATE_QP as mlx5_ib fills it: sizes, CQs, user index, UAR page. */
START_TEST(test_create_qpc)
{
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 100, 100, 2, 3);
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)];
	struct ibv_qp *qp = ibv_create_qp(qt_pd, &a);

	ck_assert_ptr_nonnull(qp);
	ck_assert_int_eq(qt_devx_query_qp(qp, out), 0);
	/* SQ 512 WQEBBs, RQ 128 WQEs of 64 bytes. */
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.log_sq_size), 9);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.log_rq_size), 7);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.log_rq_stride), 2);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.no_sq), 0);
	ck_assert_uint_ne(PRM_GET(query_qp_out, out, qpc.uar_page), 0);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.dbr_umem_valid), 1);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.cqn_snd),
			  PRM_GET(query_qp_out, out, qpc.cqn_rcv));
	ck_assert_uint_ne(PRM_GET(query_qp_out, out, qpc.cqn_snd), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_post_recv)
{
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 1, 2, 1, 2);
	struct mlx5dv_qp dvqp = { 0 };
	struct mlx5dv_obj obj = { .qp = { .out = &dvqp } };
	char buf[64];
	struct ibv_sge sge[3] = {
		{ .addr = (uintptr_t)buf, .length = 16, .lkey = 0x1234 },
		{ .addr = (uintptr_t)buf + 16, .length = 0, .lkey = 0x99 },
		{ .addr = (uintptr_t)buf + 32, .length = 8, .lkey = 0x5678 },
	};
	struct ibv_recv_wr wr = { .wr_id = 7, .sg_list = sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;
	struct ibv_qp_attr qa = { 0 };
	struct mlx5_wqe_data_seg *seg;
	struct ibv_qp *qp = ibv_create_qp(qt_pd, &a);
	uint32_t n = a.cap.max_recv_wr;

	ck_assert_ptr_nonnull(qp);
	ck_assert_uint_eq(n, 2);	/* 2 WQEs of 32 bytes: 64 bytes */
	obj.qp.in = qp;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	/* RESET: libmlx5 lets nothing be posted (EINVAL). */
	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr);
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	/* Too many SGEs for the WQE. */
	wr.num_sge = 3;
	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), EINVAL);
	/* Zero-length SGEs are skipped, the list ends with the invalid
	 * lkey, the doorbell record holds the count. */
	wr.num_sge = 2;
	sge[1] = sge[2];
	sge[1].length = 0;
	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
	seg = dvqp.rq.buf;
	ck_assert_uint_eq(be32toh(seg[0].byte_count), 16);
	ck_assert_uint_eq(be32toh(seg[0].lkey), 0x1234);
	ck_assert_uint_eq(be64toh(seg[0].addr), (uintptr_t)buf);
	ck_assert_uint_eq(be32toh(seg[1].lkey), 0x100);
	ck_assert_uint_eq(be32toh(seg[1].byte_count), 0);
	ck_assert_uint_eq(be32toh(dvqp.dbrec[0]), 1);
	/* Full after max_recv_wr posts: ENOMEM. */
	wr.num_sge = 1;
	for (uint32_t i = 1; i < n; i++)
		ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
	ck_assert_uint_eq(be32toh(dvqp.dbrec[0]), n);
	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr);
	/* RESET empties the queue and the record. */
	qa.qp_state = IBV_QPS_RESET;
	ck_assert_int_eq(ibv_modify_qp(qp, &qa, IBV_QP_STATE), 0);
	ck_assert_uint_eq(dvqp.dbrec[0], 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_srq_qp)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(qt_pd, &sa);
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 4, 16, 1, 1);
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)];
	uint32_t srqn;
	struct ibv_qp *qp;

	ck_assert_ptr_nonnull(srq);
	a.srq = srq;
	qp = ibv_create_qp(qt_pd, &a);
	ck_assert_msg(qp, "%s", strerror(errno));
	/* Receives go to the SRQ: no RQ of its own. */
	ck_assert_uint_eq(a.cap.max_recv_wr, 0);
	ck_assert_uint_eq(a.cap.max_recv_sge, 0);
	ck_assert_ptr_eq(qp->srq, srq);
	ck_assert_int_eq(qt_devx_query_qp(qp, out), 0);
	ck_assert_int_eq(ibv_get_srq_num(srq, &srqn), 0);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.rq_type), 1);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.srqn_rmpn_xrqn), srqn);
	ck_assert_int_eq(ibv_destroy_srq(srq), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
}
END_TEST

START_TEST(test_destroy_not_reset)
{
	struct ibv_qp *a = qt_create(IBV_QPT_RC, 4, 4);
	struct ibv_qp *b = qt_create(IBV_QPT_RC, 4, 4);

	qt_rc_to_rts(a, b->qp_num, 1);
	ck_assert_uint_eq(qt_fw_state(a), MLX5_QPC_STATE_RTS);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("qp_create");
	TCase *tc = tcase_create("create");

	tcase_add_checked_fixture(tc, qt_setup, qt_teardown);
	tcase_add_test(tc, test_create_types);
	tcase_add_test(tc, test_create_caps_rounding);
	tcase_add_test(tc, test_create_ex_caps);
	tcase_add_test(tc, test_create_bad_caps);
	tcase_add_test(tc, test_create_bad_objects);
	tcase_add_test(tc, test_create_flags);
	tcase_add_test(tc, test_create_uses);
	tcase_add_test(tc, test_create_qpc);
	tcase_add_test(tc, test_post_recv);
	tcase_add_test(tc, test_srq_qp);
	tcase_add_test(tc, test_destroy_not_reset);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
