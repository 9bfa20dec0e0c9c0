/* SPDX-License-Identifier: MIT */
/*
 * The ibv_wr_* API and mlx5dv_qp_ex as libmlx5 44 offers them: which
 * send_ops_flags each QP type takes (and what the device advertises),
 * the WQE sizes they imply, the WQEs every builder and setter writes
 * (byte images from literal offsets), batching with one doorbell,
 * wr_complete discarding a batch with an error, wr_abort, EINVAL outside
 * RTS, and raw WQEs (mlx5dv_wr_raw_wqe) completing as IBV_WC_DRIVER2.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp_test.h"

#define OPS_RC                                                                \
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                  \
	 IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_WRITE |            \
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |       \
	 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

static uint8_t src[128];

static void setup(void)
{
	qt_setup();
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(0x30 + i);
}

static void teardown(void)
{
	qt_teardown();
}

static struct ibv_qp_init_attr_ex ex_attr(enum ibv_qp_type type, uint64_t ops,
					  uint32_t swr, uint32_t ssge)
{
	struct ibv_qp_init_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.qp_type = type;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.pd = qt_pd;
	a.send_cq = qt_cq;
	a.recv_cq = qt_cq;
	a.send_ops_flags = ops;
	a.cap.max_send_wr = swr;
	a.cap.max_send_sge = ssge;
	if (type != IBV_QPT_XRC_SEND) {
		a.cap.max_recv_wr = 4;
		a.cap.max_recv_sge = 1;
	}
	return a;
}

/* A QP with the ibv_wr_* API, in RTS. */
static struct ibv_qp *wr_qp(enum ibv_qp_type type, uint64_t ops, uint32_t swr,
			    uint32_t ssge)
{
	struct ibv_qp_init_attr_ex a = ex_attr(type, ops, swr, ssge);
	struct ibv_qp *qp = ibv_create_qp_ex(qt_ctx, &a);

	ck_assert_msg(qp, "create: %s", strerror(errno));
	if (type == IBV_QPT_UD)
		qt_ud_to_rts(qp, 0x11111111, 0x100);
	else
		qt_rc_to_rts(qp, type == IBV_QPT_XRC_SEND ? 0x42 : qp->qp_num, 1);
	return qp;
}

static void data_seg(uint8_t *b, size_t off, uint32_t len, uint32_t lkey,
		     uint64_t addr)
{
	dp_be32(b, off, len);
	dp_be32(b, off + 4, lkey);
	dp_be64(b, off + 8, addr);
}

static void raddr_seg(uint8_t *b, size_t off, uint64_t raddr, uint32_t rkey)
{
	dp_be64(b, off, raddr);
	dp_be32(b, off + 8, rkey);
	dp_be32(b, off + 12, 0);
}

static void expect_wqe(const struct mlx5dv_qp *dv, unsigned int idx,
		       const uint8_t *want, size_t len)
{
	uint8_t got[256];

	dp_sq_read(dv, idx, got, len);
	dp_expect_bytes(got, want, len, "WQE");
}

START_TEST(test_create)
{
	struct ibv_qp_init_attr_ex a = ex_attr(IBV_QPT_RC, OPS_RC, 8, 1);
	struct ibv_qp *qp = ibv_create_qp_ex(qt_ctx, &a);
	struct ibv_qp_ex *qpx;

	ck_assert_ptr_nonnull(qp);
	qpx = ibv_qp_to_qp_ex(qp);
	ck_assert_ptr_eq(qpx, (struct ibv_qp_ex *)qp);
	ck_assert_ptr_nonnull(qpx->wr_start);
	ck_assert_ptr_nonnull(qpx->wr_complete);
	ck_assert_ptr_nonnull(qpx->wr_abort);
	ck_assert_ptr_nonnull(qpx->wr_send);
	ck_assert_ptr_nonnull(qpx->wr_send_imm);
	ck_assert_ptr_nonnull(qpx->wr_send_inv);
	ck_assert_ptr_nonnull(qpx->wr_rdma_write);
	ck_assert_ptr_nonnull(qpx->wr_rdma_write_imm);
	ck_assert_ptr_nonnull(qpx->wr_rdma_read);
	ck_assert_ptr_nonnull(qpx->wr_atomic_cmp_swp);
	ck_assert_ptr_nonnull(qpx->wr_atomic_fetch_add);
	ck_assert_ptr_nonnull(qpx->wr_set_sge);
	ck_assert_ptr_nonnull(qpx->wr_set_sge_list);
	ck_assert_ptr_nonnull(qpx->wr_set_inline_data);
	ck_assert_ptr_nonnull(qpx->wr_set_inline_data_list);
	/* Memory windows: libmlx5's RC builders. */
	ck_assert_ptr_nonnull(qpx->wr_bind_mw);
	ck_assert_ptr_nonnull(qpx->wr_local_inv);
	/* TSO, atomic writes, UD and XRC addressing: none. */
	ck_assert_ptr_null(qpx->wr_send_tso);
	ck_assert_ptr_null(qpx->wr_atomic_write);
	ck_assert_ptr_null(qpx->wr_set_ud_addr);
	ck_assert_ptr_null(qpx->wr_set_xrc_srqn);
	/* The atomic operands set the overhead (16 + 16 + 16) and one SGE
	 * makes 64 bytes: what is left after the inline header. */
	ck_assert_uint_eq(a.cap.max_inline_data, 64 - 48 - 4);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	/* Sends only: the control segment is the overhead. */
	a = ex_attr(IBV_QPT_RC, IBV_QP_EX_WITH_SEND, 8, 1);
	qp = ibv_create_qp_ex(qt_ctx, &a);
	ck_assert_ptr_nonnull(qp);
	ck_assert_uint_eq(a.cap.max_inline_data, 64 - 16 - 4);
	ck_assert_uint_eq(a.cap.max_send_wr, 8);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	/* UD: the datagram segment on top. */
	a = ex_attr(IBV_QPT_UD, IBV_QP_EX_WITH_SEND, 8, 1);
	qp = ibv_create_qp_ex(qt_ctx, &a);
	ck_assert_ptr_nonnull(qp);
	ck_assert_uint_eq(a.cap.max_inline_data, 128 - 64 - 4);
	qpx = ibv_qp_to_qp_ex(qp);
	ck_assert_ptr_nonnull(qpx->wr_set_ud_addr);
	ck_assert_ptr_null(qpx->wr_rdma_write);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	/* Without send_ops_flags there is no ibv_qp_ex. */
	qp = qt_create(IBV_QPT_RC, 4, 4);
	ck_assert_ptr_null(ibv_qp_to_qp_ex(qp));
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_create_errors)
{
	static const struct {
		enum ibv_qp_type type;
		uint64_t ops;
		int err;
	} bad[] = {
		/* Not in libmlx5's set for the type. */
		{ IBV_QPT_UD, IBV_QP_EX_WITH_BIND_MW, EOPNOTSUPP },
		{ IBV_QPT_UD, IBV_QP_EX_WITH_LOCAL_INV, EOPNOTSUPP },
		{ IBV_QPT_RC, IBV_QP_EX_WITH_TSO, EOPNOTSUPP },
		{ IBV_QPT_RC, IBV_QP_EX_WITH_ATOMIC_WRITE, EOPNOTSUPP },
		{ IBV_QPT_RC, 1ull << 20, EOPNOTSUPP },
		{ IBV_QPT_UC, IBV_QP_EX_WITH_RDMA_READ, EOPNOTSUPP },
		{ IBV_QPT_UC, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, EOPNOTSUPP },
		{ IBV_QPT_UD, IBV_QP_EX_WITH_RDMA_WRITE, EOPNOTSUPP },
		{ IBV_QPT_UD, IBV_QP_EX_WITH_SEND_WITH_INV, EOPNOTSUPP },
		{ IBV_QPT_UD, IBV_QP_EX_WITH_TSO, EOPNOTSUPP },
		/* A raw packet QP: SEND and TSO only. */
		{ IBV_QPT_RAW_PACKET, IBV_QP_EX_WITH_SEND_WITH_IMM, EOPNOTSUPP },
		{ IBV_QPT_RAW_PACKET, IBV_QP_EX_WITH_RDMA_WRITE, EOPNOTSUPP },
		{ IBV_QPT_RAW_PACKET, IBV_QP_EX_WITH_LOCAL_INV, EOPNOTSUPP },
	};
	struct ibv_qp_init_attr_ex a;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		a = ex_attr(bad[i].type, bad[i].ops, 4, 1);
		ck_assert_msg(qt_create_ex_err(&a) == bad[i].err,
			      "type %d ops %#llx", bad[i].type,
			      (unsigned long long)bad[i].ops);
	}
	/* Send operations on an RSS QP: libmlx5's EINVAL. */
	a = ex_attr(IBV_QPT_RAW_PACKET, IBV_QP_EX_WITH_SEND, 4, 1);
	a.comp_mask |= IBV_QP_INIT_ATTR_RX_HASH;
	ck_assert_int_eq(qt_create_ex_err(&a), EINVAL);
}
END_TEST

START_TEST(test_dv_ops)
{
	struct ibv_qp_init_attr_ex a = ex_attr(IBV_QPT_RC, IBV_QP_EX_WITH_SEND, 4, 1);
	struct mlx5dv_qp_init_attr dv = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
	};
	static const struct {
		enum ibv_qp_type type;
		uint64_t ops;
		int err;
	} cases[] = {
		{ IBV_QPT_RC, MLX5DV_QP_EX_WITH_RAW_WQE, 0 },
		{ IBV_QPT_UD, MLX5DV_QP_EX_WITH_RAW_WQE, 0 },
		{ IBV_QPT_RAW_PACKET, MLX5DV_QP_EX_WITH_RAW_WQE, 0 },
		{ IBV_QPT_RAW_PACKET, MLX5DV_QP_EX_WITH_MEMCPY, EOPNOTSUPP },
		/* UMR mkey ops on RC, as libmlx5 (no device check); no
		 * DMA engine on this device. */
		{ IBV_QPT_RC, MLX5DV_QP_EX_WITH_MR_LIST, 0 },
		{ IBV_QPT_RC, MLX5DV_QP_EX_WITH_MR_INTERLEAVED, 0 },
		{ IBV_QPT_RC, MLX5DV_QP_EX_WITH_MKEY_CONFIGURE, 0 },
		{ IBV_QPT_RC, MLX5DV_QP_EX_WITH_MEMCPY, EOPNOTSUPP },
		/* libmlx5: raw WQEs only beyond RC; unknown bits. */
		{ IBV_QPT_UD, MLX5DV_QP_EX_WITH_MR_LIST, EOPNOTSUPP },
		{ IBV_QPT_UC, MLX5DV_QP_EX_WITH_MKEY_CONFIGURE, EOPNOTSUPP },
		{ IBV_QPT_XRC_SEND, MLX5DV_QP_EX_WITH_MR_INTERLEAVED, EOPNOTSUPP },
		{ IBV_QPT_RC, 1ull << 20, EOPNOTSUPP },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibv_qp *qp;

		a = ex_attr(cases[i].type, IBV_QP_EX_WITH_SEND, 4, 1);
		dv.send_ops_flags = cases[i].ops;
		errno = 0;
		qp = mlx5dv_create_qp(qt_ctx, &a, &dv);
		ck_assert_msg(cases[i].err ? !qp && errno == cases[i].err : !!qp,
			      "case %zu: %s", i, strerror(errno));
		if (qp) {
			struct mlx5dv_qp_ex *dvx =
				mlx5dv_qp_ex_from_ibv_qp_ex(ibv_qp_to_qp_ex(qp));

			ck_assert_ptr_nonnull(dvx->wr_raw_wqe);
			/* Every mkey op on RC once any dv op is asked. */
			ck_assert(!!dvx->wr_mr_list == (cases[i].type == IBV_QPT_RC));
			ck_assert(!!dvx->wr_mkey_configure ==
				  (cases[i].type == IBV_QPT_RC));
			ck_assert_ptr_null(dvx->wr_set_dc_addr);
			ck_assert_ptr_null(dvx->wr_memcpy);
			ck_assert_int_eq(ibv_destroy_qp(qp), 0);
		}
	}
	/* memcpy without a PD: libmlx5's EINVAL before the caps. */
	a = ex_attr(IBV_QPT_RC, IBV_QP_EX_WITH_SEND, 4, 1);
	a.comp_mask &= ~(uint32_t)IBV_QP_INIT_ATTR_PD;
	dv.send_ops_flags = MLX5DV_QP_EX_WITH_MEMCPY;
	errno = 0;
	ck_assert_ptr_null(mlx5dv_create_qp(qt_ctx, &a, &dv));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* DC initiators take RC's send ops (libmlx5's MLX5_SUPPORTED_SEND_OPS_FLAGS_DCI),
 * nothing beyond them (TSO is a raw packet QP's). */
START_TEST(test_dci_send_ops)
{
	struct ibv_qp_init_attr_ex a = ex_attr(IBV_QPT_DRIVER, IBV_QP_EX_WITH_TSO,
					       4, 1);
	struct mlx5dv_qp_init_attr dv = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC,
		.dc_init_attr = { .dc_type = MLX5DV_DCTYPE_DCI },
	};
	struct ibv_qp *qp;

	a.cap.max_recv_wr = 0;
	a.cap.max_recv_sge = 0;
	errno = 0;
	ck_assert_ptr_null(mlx5dv_create_qp(qt_ctx, &a, &dv));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
			   IBV_QP_EX_WITH_RDMA_READ;
	qp = mlx5dv_create_qp(qt_ctx, &a, &dv);
	ck_assert_msg(qp, "%s", strerror(errno));
	ck_assert_ptr_nonnull(mlx5dv_qp_ex_from_ibv_qp_ex(ibv_qp_to_qp_ex(qp))->wr_set_dc_addr);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_rc_batch)
{
	struct ibv_qp *qp = wr_qp(IBV_QPT_RC, OPS_RC, 16, 2);
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	struct mlx5dv_qp dv = dp_dv(qp);
	struct ibv_sge sgl[2] = {
		{ .addr = 0x7000, .length = 0x30, .lkey = 0x71 },
		{ .addr = 0x8000, .length = 0x40, .lkey = 0x81 },
	};
	struct ibv_data_buf bufs[2] = {
		{ .addr = src, .length = 3 }, { .addr = src + 50, .length = 9 },
	};
	uint32_t qpn = qp->qp_num;
	uint8_t w[64];

	memset(dv.bf.reg, 0, 2 * 256);
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 0x11, 0x1000, 0x100);
	qpx->wr_id = 2;
	qpx->wr_flags = IBV_SEND_FENCE;
	ibv_wr_rdma_write(qpx, 0x22, 0x2000);
	ibv_wr_set_inline_data(qpx, src, 12);
	qpx->wr_id = 3;
	qpx->wr_flags = 0;
	ibv_wr_atomic_cmp_swp(qpx, 0x33, 0x3000, 7, 8);
	ibv_wr_set_sge(qpx, 0x34, 0x3400, 16);
	qpx->wr_id = 4;
	qpx->wr_flags = IBV_SEND_SOLICITED;
	ibv_wr_rdma_read(qpx, 0x44, 0x4000);
	ibv_wr_set_sge_list(qpx, 2, sgl);
	qpx->wr_id = 5;
	qpx->wr_flags = 0;
	ibv_wr_send_imm(qpx, htobe32(0xabcd));
	ibv_wr_set_inline_data_list(qpx, 2, bufs);
	qpx->wr_id = 6;
	ibv_wr_send_inv(qpx, 0x6666);
	ibv_wr_set_sge(qpx, 0x61, 0x6100, 0);
	qpx->wr_id = 7;
	ibv_wr_rdma_write_imm(qpx, 0x77, 0x7700, htobe32(0x7777));
	ibv_wr_set_sge(qpx, 0x71, 0x7100, 1);
	qpx->wr_id = 8;
	ibv_wr_atomic_fetch_add(qpx, 0x88, 0x8800, 5);
	ibv_wr_set_sge(qpx, 0x81, 0x8100, 8);
	/* Nothing reaches the device before wr_complete. */
	ck_assert_uint_eq(dp_sq_dbr(&dv), 0);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 8);

	dp_ctrl(w, 0, 0x0a, qpn, 2, 0x08, 0);
	data_seg(w, 16, 0x100, 0x11, 0x1000);
	expect_wqe(&dv, 0, w, 32);
	memset(w, 0, sizeof(w));
	dp_ctrl(w, 1, 0x08, qpn, 3, 0x80, 0);
	raddr_seg(w, 16, 0x2000, 0x22);
	dp_be32(w, 32, 0x80000000u | 12);
	memcpy(w + 36, src, 12);
	expect_wqe(&dv, 1, w, 48);
	/* The SGE as given: libmlx5's wr API does not force 8 bytes. */
	dp_ctrl(w, 2, 0x11, qpn, 4, 0, 0);
	raddr_seg(w, 16, 0x3000, 0x33);
	dp_be64(w, 32, 8);
	dp_be64(w, 40, 7);
	data_seg(w, 48, 16, 0x34, 0x3400);
	expect_wqe(&dv, 2, w, 64);
	dp_ctrl(w, 3, 0x10, qpn, 4, 0x02, 0);
	raddr_seg(w, 16, 0x4000, 0x44);
	data_seg(w, 32, 0x30, 0x71, 0x7000);
	data_seg(w, 48, 0x40, 0x81, 0x8000);
	expect_wqe(&dv, 3, w, 64);
	memset(w, 0, sizeof(w));
	dp_ctrl(w, 4, 0x0b, qpn, 2, 0, htobe32(0xabcd));
	dp_be32(w, 16, 0x80000000u | 12);
	memcpy(w + 20, src, 3);
	memcpy(w + 23, src + 50, 9);
	expect_wqe(&dv, 4, w, 32);
	/* A zero-length SGE writes no segment. */
	dp_ctrl(w, 5, 0x01, qpn, 1, 0, htobe32(0x6666));
	expect_wqe(&dv, 5, w, 16);
	dp_ctrl(w, 6, 0x09, qpn, 3, 0, htobe32(0x7777));
	raddr_seg(w, 16, 0x7700, 0x77);
	data_seg(w, 32, 1, 0x71, 0x7100);
	expect_wqe(&dv, 6, w, 48);
	dp_ctrl(w, 7, 0x12, qpn, 4, 0, 0);
	raddr_seg(w, 16, 0x8800, 0x88);
	dp_be64(w, 32, 5);
	dp_be64(w, 40, 0);
	data_seg(w, 48, 8, 0x81, 0x8100);
	expect_wqe(&dv, 7, w, 64);
	/* One doorbell for the batch: the last WQE's first 8 bytes. */
	dp_expect_bytes(dv.bf.reg, dp_sq_bb(&dv, 7), 8, "doorbell");
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_ud)
{
	struct ibv_qp *qp = wr_qp(IBV_QPT_UD, IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM, 8, 1);
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	struct mlx5dv_qp dv = dp_dv(qp);
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct mlx5dv_ah dah;
	struct mlx5dv_obj obj = { .ah = { .out = &dah } };
	struct ibv_ah *ah;
	uint8_t w[96];

	aa.grh.dgid = qt_gid(1);
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 9;
	ah = ibv_create_ah(qt_pd, &aa);
	ck_assert_ptr_nonnull(ah);
	obj.ah.in = ah;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_AH), 0);

	/* Address then data: complete after the second setter. */
	ibv_wr_start(qpx);
	qpx->wr_flags = 0;
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, ah, 0x654321, 0x1234);
	ibv_wr_set_sge(qpx, 0x5, 0x5000, 0x50);
	/* Data then address, inline. */
	ibv_wr_send_imm(qpx, htobe32(0x99));
	ibv_wr_set_inline_data(qpx, src, 4);
	ibv_wr_set_ud_addr(qpx, ah, 0x111, 0x2222);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 4);

	memcpy(w + 16, dah.av, 48);
	dp_ctrl(w, 0, 0x0a, qp->qp_num, 5, 0, 0);
	dp_be32(w, 16, 0x1234);
	dp_be32(w, 24, 0x80000000u | 0x654321);
	data_seg(w, 64, 0x50, 0x5, 0x5000);
	expect_wqe(&dv, 0, w, 80);
	memset(w + 64, 0, 32);
	dp_ctrl(w, 2, 0x0b, qp->qp_num, 5, 0, htobe32(0x99));
	dp_be32(w, 16, 0x2222);
	dp_be32(w, 24, 0x80000000u | 0x111);
	dp_be32(w, 64, 0x80000000u | 4);
	memcpy(w + 68, src, 4);
	expect_wqe(&dv, 2, w, 72);

	/* A lone WQE goes whole into the register (BlueFlame). */
	memset(dv.bf.reg, 0, 512);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 0x5, 0x5000, 0x50);
	ibv_wr_set_ud_addr(qpx, ah, 0x654321, 0x1234);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	dp_expect_bytes((uint8_t *)dv.bf.reg + 256, dp_sq_bb(&dv, 4), 64, "BF 1");
	dp_expect_bytes((uint8_t *)dv.bf.reg + 320, dp_sq_bb(&dv, 5), 64, "BF 2");

	/* No AH: EINVAL (libmlx5 would fault), the batch dropped. */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, NULL, 1, 1);
	ibv_wr_set_sge(qpx, 0x5, 0x5000, 0x50);
	ck_assert_int_eq(ibv_wr_complete(qpx), EINVAL);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 6);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
}
END_TEST

START_TEST(test_xrc)
{
	struct ibv_qp *qp = wr_qp(IBV_QPT_XRC_SEND, IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, 8, 1);
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	struct mlx5dv_qp dv = dp_dv(qp);
	uint8_t w[80];

	ck_assert_ptr_nonnull(qpx->wr_set_xrc_srqn);
	ibv_wr_start(qpx);
	qpx->wr_flags = 0;
	ibv_wr_rdma_write(qpx, 0x21, 0x2100);
	ibv_wr_set_xrc_srqn(qpx, 0xfedcba);
	ibv_wr_set_sge(qpx, 0x1, 0x100, 8);
	ibv_wr_atomic_cmp_swp(qpx, 0x31, 0x3100, 1, 2);
	ibv_wr_set_sge(qpx, 0x3, 0x300, 8);
	ibv_wr_set_xrc_srqn(qpx, 0x123);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	memset(w, 0, sizeof(w));
	dp_ctrl(w, 0, 0x08, qp->qp_num, 4, 0, 0);
	dp_be32(w, 16, 0xfedcba);
	raddr_seg(w, 32, 0x2100, 0x21);
	data_seg(w, 48, 8, 0x1, 0x100);
	expect_wqe(&dv, 0, w, 64);
	memset(w, 0, sizeof(w));
	/* The atomic fills the first block; the data opens the next. */
	dp_ctrl(w, 1, 0x11, qp->qp_num, 5, 0, 0);
	dp_be32(w, 16, 0x123);
	raddr_seg(w, 32, 0x3100, 0x31);
	dp_be64(w, 48, 2);
	dp_be64(w, 56, 1);
	data_seg(w, 64, 8, 0x3, 0x300);
	expect_wqe(&dv, 1, w, 80);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 3);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_discard)
{
	struct ibv_sge sgl[3] = { { .length = 1 }, { .length = 1 }, { .length = 1 } };
	struct ibv_qp_init_attr_ex a = ex_attr(IBV_QPT_RC, IBV_QP_EX_WITH_SEND,
					       4, 2);
	struct ibv_qp *qp = ibv_create_qp_ex(qt_ctx, &a);
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RESET };
	struct mlx5dv_qp dv;
	uint8_t first[64];

	ck_assert_ptr_nonnull(qp);
	dv = dp_dv(qp);
	/* Before RTS every batch is EINVAL, nothing posted. */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 1, 0x100, 8);
	ck_assert_int_eq(ibv_wr_complete(qpx), EINVAL);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 0);
	qt_rc_to_rts(qp, qp->qp_num, 1);

	/* A good WQE, then too long a list: ENOMEM, the batch gone. */
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 1, 0x100, 8);
	ibv_wr_send(qpx);
	ibv_wr_set_sge_list(qpx, 3, sgl);
	ck_assert_int_eq(ibv_wr_complete(qpx), ENOMEM);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 0);
	/* Inline data past the maximum: ENOMEM. */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, src, a.cap.max_inline_data + 1);
	ck_assert_int_eq(ibv_wr_complete(qpx), ENOMEM);
	/* wr_abort drops a batch too. */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 1, 0x100, 8);
	ibv_wr_abort(qpx);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 0);
	/* The next batch starts where the dropped ones did. */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 2, 0x200, 16);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 1);
	ck_assert_uint_eq(be32toh(*(uint32_t *)dp_sq_bb(&dv, 0)), 0x0a);

	/* Full: the fifth WQE of a batch fails it; a builder with no room
	 * writes nothing, not even into the WQEs before. */
	ibv_wr_start(qpx);
	for (int i = 0; i < 3; i++) {
		ibv_wr_send(qpx);
		ibv_wr_set_sge(qpx, 3, 0x300, 8);
	}
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 4);
	memcpy(first, dp_sq_bb(&dv, 3), sizeof(first));
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 4, 0x400, 8);
	ck_assert_int_eq(ibv_wr_complete(qpx), ENOMEM);
	dp_expect_bytes(dp_sq_bb(&dv, 3), first, sizeof(first), "posted WQE");
	ck_assert_uint_eq(dp_sq_dbr(&dv), 4);

	/* Back in RESET: EINVAL again. */
	ck_assert_int_eq(ibv_modify_qp(qp, &qa, IBV_QP_STATE), 0);
	ibv_wr_start(qpx);
	ck_assert_int_eq(ibv_wr_complete(qpx), EINVAL);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_raw_wqe)
{
	struct ibv_qp_init_attr_ex a = ex_attr(IBV_QPT_RC, IBV_QP_EX_WITH_SEND, 4, 1);
	struct mlx5dv_qp_init_attr dva = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
		.send_ops_flags = MLX5DV_QP_EX_WITH_RAW_WQE,
	};
	struct ibv_qp *qp = mlx5dv_create_qp(qt_ctx, &a, &dva);
	struct ibv_qp_ex *qpx;
	struct mlx5dv_qp_ex *dvx;
	struct mlx5dv_qp dv;
	uint8_t raw[32], w[32];
	struct ibv_wc wc;

	ck_assert_msg(qp, "%s", strerror(errno));
	qt_rc_to_rts(qp, qp->qp_num, 1);
	qpx = ibv_qp_to_qp_ex(qp);
	dvx = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);
	dv = dp_dv(qp);
	/* The application's WQE (opmod 1, index 0xabcd), the index ours. */
	dp_ctrl(raw, 0xabcd, 0x0a, 0x777, 2, 0x08, 0);
	raw[0] = 0x01;
	data_seg(raw, 16, 0x10, 0x9, 0x900);
	ibv_wr_start(qpx);
	qpx->wr_id = 0x5151;
	mlx5dv_wr_raw_wqe(dvx, raw);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	memcpy(w, raw, sizeof(w));
	dp_be16(w, 1, 0);
	expect_wqe(&dv, 0, w, 32);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 1);
	/* Its completion is IBV_WC_DRIVER2. */
	dp_put_cqe(qt_cq, 0, MLX5_CQE_REQ, dp_uidx(qp), qp->qp_num, 0x0a, 0);
	ck_assert_int_eq(ibv_poll_cq(qt_cq, 1, &wc), 1);
	ck_assert_uint_eq(wc.wr_id, 0x5151);
	ck_assert_int_eq(wc.opcode, IBV_WC_DRIVER2);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dp_wr");
	TCase *tc = tcase_create("wr");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_create);
	tcase_add_test(tc, test_create_errors);
	tcase_add_test(tc, test_dv_ops);
	tcase_add_test(tc, test_dci_send_ops);
	tcase_add_test(tc, test_rc_batch);
	tcase_add_test(tc, test_ud);
	tcase_add_test(tc, test_xrc);
	tcase_add_test(tc, test_discard);
	tcase_add_test(tc, test_raw_wqe);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
