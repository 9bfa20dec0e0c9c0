/* SPDX-License-Identifier: MIT */
/*
 * ibv_post_send's WQEs, byte for byte against images built from the PRM's
 * literal offsets: every opcode on RC, UC, UD and XRC, fences and
 * signaling, gather lists, inline data, the datagram and XRC segments,
 * WQEs that wrap the ring, the DS count and the doorbell record; and
 * every error libmlx5 44 gives with the position of *bad_wr.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp_test.h"

static uint8_t src[256];

static void setup(void)
{
	qt_setup();
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 1);
}

static void teardown(void)
{
	qt_teardown();
}

/* Posts @wr alone and checks the WQE at block @idx against @want. */
static void post_check(struct ibv_qp *qp, struct ibv_send_wr *wr, unsigned int idx,
		       const uint8_t *want, size_t len)
{
	struct mlx5dv_qp dv = dp_dv(qp);
	struct ibv_send_wr *bad = NULL;
	uint8_t got[512];

	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), 0);
	ck_assert_ptr_null(bad);
	dp_sq_read(&dv, idx, got, len);
	dp_expect_bytes(got, want, len, "WQE");
}

/* A data segment at @off of an image. */
static void data_seg(uint8_t *b, size_t off, uint32_t len, uint32_t lkey,
		     uint64_t addr)
{
	dp_be32(b, off, len);
	dp_be32(b, off + 4, lkey);
	dp_be64(b, off + 8, addr);
}

START_TEST(test_rc_opcodes)
{
	struct ibv_qp *qp = dp_qp(IBV_QPT_RC, 16, 4, 0, false);
	struct mlx5dv_qp dv = dp_dv(qp);
	uint32_t qpn = qp->qp_num;
	struct ibv_sge sge[4] = {
		{ .addr = 0x1000, .length = 0x40, .lkey = 0x11 },
		{ .addr = 0x2000, .length = 0, .lkey = 0x22 },
		{ .addr = 0x3000, .length = 0x10, .lkey = 0x33 },
		{ .addr = 0x4000, .length = 0x8, .lkey = 0x44 },
	};
	struct ibv_send_wr wr;
	uint8_t w[128];
	unsigned int idx = 0;

	/* SEND, signaled: control and one data segment, 2 units. */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = sge;
	wr.num_sge = 1;
	dp_ctrl(w, 0, 0x0a, qpn, 2, 0x08, 0);
	data_seg(w, 16, 0x40, 0x11, 0x1000);
	post_check(qp, &wr, idx++, w, 32);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 1);

	/* SEND with immediate, solicited, unsignaled. */
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.send_flags = IBV_SEND_SOLICITED;
	wr.imm_data = htobe32(0xdeadbeef);
	dp_ctrl(w, 1, 0x0b, qpn, 2, 0x02, htobe32(0xdeadbeef));
	data_seg(w, 16, 0x40, 0x11, 0x1000);
	post_check(qp, &wr, idx++, w, 32);

	/* RDMA write, fenced: remote address segment at 16. */
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_FENCE;
	wr.wr.rdma.remote_addr = 0x1122334455667788ULL;
	wr.wr.rdma.rkey = 0xabc;
	dp_ctrl(w, 2, 0x08, qpn, 3, 0x80, 0);
	dp_be64(w, 16, 0x1122334455667788ULL);
	dp_be32(w, 24, 0xabc);
	dp_be32(w, 28, 0);
	data_seg(w, 32, 0x40, 0x11, 0x1000);
	post_check(qp, &wr, idx++, w, 48);

	/* RDMA write with immediate. */
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = 0;
	wr.imm_data = htobe32(0x01020304);
	dp_ctrl(w, 3, 0x09, qpn, 3, 0, htobe32(0x01020304));
	post_check(qp, &wr, idx++, w, 48);

	/* RDMA read. */
	wr.opcode = IBV_WR_RDMA_READ;
	dp_ctrl(w, 4, 0x10, qpn, 3, 0, 0);
	post_check(qp, &wr, idx++, w, 48);

	/* Compare and swap: swap then compare at 32, the local buffer
	 * always 8 bytes. */
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.remote_addr = 0x8000;
	wr.wr.atomic.rkey = 0x55;
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.swap = 9;
	wr.sg_list = &sge[2];
	dp_ctrl(w, 5, 0x11, qpn, 4, 0, 0);
	dp_be64(w, 16, 0x8000);
	dp_be32(w, 24, 0x55);
	dp_be32(w, 28, 0);
	dp_be64(w, 32, 9);
	dp_be64(w, 40, 5);
	data_seg(w, 48, 8, 0x33, 0x3000);
	post_check(qp, &wr, idx++, w, 64);

	/* Fetch and add: the addend only; libmlx5 leaves the compare field
	 * as the ring held it. */
	memset(dp_sq_bb(&dv, idx), 0xa5, DP_BB);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.compare_add = 3;
	dp_ctrl(w, 6, 0x12, qpn, 4, 0, 0);
	dp_be64(w, 32, 3);
	memset(w + 40, 0xa5, 8);
	post_check(qp, &wr, idx++, w, 64);

	/* Send with invalidate: the rkey in imm. */
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.invalidate_rkey = 0x7788;
	wr.sg_list = sge;
	dp_ctrl(w, 7, 0x01, qpn, 2, 0, htobe32(0x7788));
	data_seg(w, 16, 0x40, 0x11, 0x1000);
	post_check(qp, &wr, idx++, w, 32);

	/* No SGE: the control segment alone. */
	wr.opcode = IBV_WR_SEND;
	wr.num_sge = 0;
	dp_ctrl(w, 8, 0x0a, qpn, 1, 0, 0);
	post_check(qp, &wr, idx++, w, 16);

	/* Four SGEs, one empty: three segments, 4 units in one block. */
	wr.num_sge = 4;
	dp_ctrl(w, 9, 0x0a, qpn, 4, 0, 0);
	data_seg(w, 16, 0x40, 0x11, 0x1000);
	data_seg(w, 32, 0x10, 0x33, 0x3000);
	data_seg(w, 48, 0x8, 0x44, 0x4000);
	post_check(qp, &wr, idx++, w, 64);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 10);

	/* Five units take two blocks: the next WQE starts two on. */
	sge[1].length = 0x20;
	dp_ctrl(w, 10, 0x0a, qpn, 5, 0, 0);
	data_seg(w, 16, 0x40, 0x11, 0x1000);
	data_seg(w, 32, 0x20, 0x22, 0x2000);
	data_seg(w, 48, 0x10, 0x33, 0x3000);
	data_seg(w, 64, 0x8, 0x44, 0x4000);
	post_check(qp, &wr, idx, w, 80);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 12);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_signaling)
{
	struct ibv_qp *qp = dp_qp(IBV_QPT_RC, 8, 1, 0, true);
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND };
	uint8_t w[16];

	/* sq_sig_all: every WQE asks for a CQE. */
	dp_ctrl(w, 0, 0x0a, qp->qp_num, 1, 0x08, 0);
	post_check(qp, &wr, 0, w, 16);
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_FENCE;
	dp_ctrl(w, 1, 0x0a, qp->qp_num, 1, 0x8a, 0);
	post_check(qp, &wr, 1, w, 16);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_inline)
{
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 8, 1, 2, 1);
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)src, .length = 5, .lkey = 0x99 },
		{ .addr = (uintptr_t)src + 100, .length = 7, .lkey = 0x99 },
	};
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .sg_list = sge,
				  .num_sge = 2, .send_flags = IBV_SEND_INLINE };
	struct ibv_send_wr *bad;
	struct mlx5dv_qp dv;
	struct ibv_qp *qp;
	uint8_t w[160];

	/* 192 bytes of overhead (RC ops) and 4 + 64 inline: 320-byte WQEs,
	 * leaving 124 inline bytes (SGEs still count against max_send_sge). */
	a.cap.max_inline_data = 64;
	qp = ibv_create_qp(qt_pd, &a);
	ck_assert_ptr_nonnull(qp);
	ck_assert_uint_eq(a.cap.max_inline_data, 124);
	qt_rc_to_rts(qp, qp->qp_num, 1);
	dv = dp_dv(qp);

	/* Two buffers, 12 bytes after the header: 2 units. */
	memset(w, 0, sizeof(w));
	dp_ctrl(w, 0, 0x0a, qp->qp_num, 2, 0, 0);
	dp_be32(w, 16, 0x80000000u | 12);
	memcpy(w + 20, src, 5);
	memcpy(w + 25, src + 100, 7);
	post_check(qp, &wr, 0, w, 32);

	/* 124 bytes: 1 + 8 units, three blocks. */
	sge[0].length = 100;
	sge[1].length = 24;
	memset(w, 0, sizeof(w));
	dp_ctrl(w, 1, 0x0a, qp->qp_num, 9, 0, 0);
	dp_be32(w, 16, 0x80000000u | 124);
	memcpy(w + 20, src, 100);
	memcpy(w + 120, src + 100, 24);
	post_check(qp, &wr, 1, w, 144);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 4);

	/* Past max_inline_data: ENOMEM, nothing posted. */
	sge[1].length = 25;
	bad = NULL;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 4);

	/* Only empty buffers: no inline segment at all. */
	sge[0].length = 0;
	wr.num_sge = 1;
	dp_ctrl(w, 4, 0x0a, qp->qp_num, 1, 0, 0);
	post_check(qp, &wr, 4, w, 16);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

/* An AH to the device's own RoCE v2 GID. */
static struct ibv_ah *own_ah(void)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_ah *ah;

	aa.grh.dgid = qt_gid(1);
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(qt_pd, &aa);
	ck_assert_ptr_nonnull(ah);
	return ah;
}

/* The datagram segment's image: the AH's address vector with the Q_Key
 * at 0 and the destination QPN (extended AV) at 8. */
static void datagram_seg(uint8_t *b, size_t off, struct ibv_ah *ah,
			 uint32_t qpn, uint32_t qkey)
{
	struct mlx5dv_ah dah;
	struct mlx5dv_obj obj = { .ah = { .in = ah, .out = &dah } };

	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_AH), 0);
	memcpy(b + off, dah.av, 48);
	dp_be32(b, off, qkey);
	dp_be32(b, off + 8, 0x80000000u | qpn);
}

START_TEST(test_ud)
{
	struct ibv_qp *qp = dp_qp(IBV_QPT_UD, 8, 1, 0, false);
	struct mlx5dv_qp dv = dp_dv(qp);
	struct ibv_ah *ah = own_ah();
	struct ibv_sge sge = { .addr = 0xa000, .length = 100, .lkey = 0x7 };
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND_WITH_IMM,
				  .sg_list = &sge, .num_sge = 1,
				  .imm_data = htobe32(0x5a5a) };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	uint8_t w[128];

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0x123456;
	wr.wr.ud.remote_qkey = 0x42;
	dp_ctrl(w, 0, 0x0b, qp->qp_num, 5, 0, htobe32(0x5a5a));
	datagram_seg(w, 16, ah, 0x123456, 0x42);
	data_seg(w, 64, 100, 0x7, 0xa000);
	post_check(qp, &wr, 0, w, 80);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 2);

	/* No AH: EINVAL (libmlx5 would fault). */
	wr.wr.ud.ah = NULL;
	bad = NULL;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr);
	wr.wr.ud.ah = ah;

	/* Fill the queue (8 WQEs) up to the last block: 6 more of two
	 * blocks, one of one, the last signaled. */
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	wr.num_sge = 0;
	wr.wr_id = 8;
	wr.send_flags = IBV_SEND_SIGNALED;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 15);
	/* Full: the unsignaled WQEs are retired only by a later CQE. */
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), ENOMEM);
	dp_put_cqe(qt_cq, 0, MLX5_CQE_REQ, dp_uidx(qp), qp->qp_num, 0x0b, 14);
	ck_assert_int_eq(ibv_poll_cq(qt_cq, 1, &wc), 1);
	ck_assert_uint_eq(wc.wr_id, 8);

	/* A WQE at the last block: control and datagram there, the data
	 * segment at the start of the ring. */
	wr.num_sge = 1;
	wr.send_flags = 0;
	dp_ctrl(w, 15, 0x0b, qp->qp_num, 5, 0, htobe32(0x5a5a));
	post_check(qp, &wr, 15, w, 80);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 17);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
}
END_TEST

START_TEST(test_xrc)
{
	struct ibv_qp_init_attr_ex a;
	struct ibv_sge sge = { .addr = 0x1000, .length = 8, .lkey = 0x11 };
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE, .sg_list = &sge,
				  .num_sge = 1 };
	struct mlx5dv_qp dv;
	struct ibv_qp *qp;
	uint8_t w[128];

	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_XRC_SEND;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.pd = qt_pd;
	a.send_cq = qt_cq;
	a.cap.max_send_wr = 8;
	a.cap.max_send_sge = 1;
	qp = ibv_create_qp_ex(qt_ctx, &a);
	ck_assert_ptr_nonnull(qp);
	qt_rc_to_rts(qp, 0x42, 1);
	dv = dp_dv(qp);

	/* The remote SRQ first, then the remote address. */
	wr.qp_type.xrc.remote_srqn = 0xabcdef;
	wr.wr.rdma.remote_addr = 0x5000;
	wr.wr.rdma.rkey = 0x66;
	memset(w, 0, sizeof(w));
	dp_ctrl(w, 0, 0x08, qp->qp_num, 4, 0, 0);
	dp_be32(w, 16, 0xabcdef);
	dp_be64(w, 32, 0x5000);
	dp_be32(w, 40, 0x66);
	data_seg(w, 48, 8, 0x11, 0x1000);
	post_check(qp, &wr, 0, w, 64);

	/* An atomic fills the first block: its data segment opens the next. */
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = 0x6000;
	wr.wr.atomic.rkey = 0x77;
	wr.wr.atomic.compare_add = 1;
	memset(w, 0, sizeof(w));
	dp_ctrl(w, 1, 0x12, qp->qp_num, 5, 0, 0);
	dp_be32(w, 16, 0xabcdef);
	dp_be64(w, 32, 0x6000);
	dp_be32(w, 40, 0x77);
	dp_be64(w, 48, 1);
	data_seg(w, 64, 8, 0x11, 0x1000);
	post_check(qp, &wr, 1, w, 80);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 3);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_uc)
{
	struct ibv_qp *qp = dp_qp(IBV_QPT_UC, 8, 1, 0, false);
	struct ibv_sge sge = { .addr = 0x1000, .length = 8, .lkey = 0x11 };
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE, .sg_list = &sge,
				  .num_sge = 1 };
	uint8_t w[64];

	wr.wr.rdma.remote_addr = 0x5000;
	wr.wr.rdma.rkey = 0x66;
	dp_ctrl(w, 0, 0x08, qp->qp_num, 3, 0, 0);
	dp_be64(w, 16, 0x5000);
	dp_be32(w, 24, 0x66);
	dp_be32(w, 28, 0);
	data_seg(w, 32, 8, 0x11, 0x1000);
	post_check(qp, &wr, 0, w, 48);
	/* UC has no reads: libmlx5 writes no remote address and lets the
	 * device judge the opcode. */
	wr.opcode = IBV_WR_RDMA_READ;
	dp_ctrl(w, 1, 0x10, qp->qp_num, 2, 0, 0);
	data_seg(w, 16, 8, 0x11, 0x1000);
	post_check(qp, &wr, 1, w, 32);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_wrap_inline)
{
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 4, 1, 1, 1);
	struct ibv_sge sge = { .addr = (uintptr_t)src, .length = 100 };
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .sg_list = &sge,
				  .num_sge = 1, .send_flags = IBV_SEND_INLINE };
	struct ibv_send_wr none = { .opcode = IBV_WR_SEND };
	struct ibv_send_wr *bad;
	struct mlx5dv_qp dv;
	struct ibv_qp *qp;
	uint8_t w[128];
	unsigned int last;

	a.cap.max_inline_data = 100;
	qp = ibv_create_qp(qt_pd, &a);
	ck_assert_ptr_nonnull(qp);
	qt_rc_to_rts(qp, qp->qp_num, 1);
	dv = dp_dv(qp);
	last = dv.sq.wqe_cnt - 1;
	/* One-block WQEs up to the last block (the queue holds 4 WQEs of
	 * the maximum size, retired here by the CQE of the last). */
	for (unsigned int i = 0; i < last; i++) {
		if (i && !(i % 4)) {
			struct ibv_wc wc;

			dp_put_cqe(qt_cq, i / 4 - 1, MLX5_CQE_REQ, dp_uidx(qp),
				   qp->qp_num, 0x0a, (uint16_t)(i - 1));
			ck_assert_int_eq(ibv_poll_cq(qt_cq, 1, &wc), 1);
		}
		ck_assert_int_eq(ibv_post_send(qp, &none, &bad), 0);
	}
	ck_assert_uint_eq(dp_sq_dbr(&dv), last);
	{
		struct ibv_wc wc;

		dp_put_cqe(qt_cq, last / 4, MLX5_CQE_REQ, dp_uidx(qp),
			   qp->qp_num, 0x0a, (uint16_t)(last - 1));
		ck_assert_int_eq(ibv_poll_cq(qt_cq, 1, &wc), 1);
	}
	/* 100 inline bytes from the last block on: 44 there, 56 at the
	 * start of the ring. */
	memset(w, 0, sizeof(w));
	dp_ctrl(w, (uint16_t)last, 0x0a, qp->qp_num, 8, 0, 0);
	dp_be32(w, 16, 0x80000000u | 100);
	memcpy(w + 20, src, 100);
	post_check(qp, &wr, last, w, 120);
	ck_assert_uint_eq(dp_sq_dbr(&dv), last + 2);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_errors)
{
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 4, 1, 2, 1);
	struct ibv_sge sge[3] = {
		{ .addr = 0x1000, .length = 8 }, { .addr = 0x2000, .length = 8 },
		{ .addr = 0x3000, .length = 8 },
	};
	struct ibv_send_wr wr[3];
	struct ibv_send_wr *bad;
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct mlx5dv_qp dv;
	struct ibv_qp *qp = ibv_create_qp(qt_pd, &a);

	ck_assert_ptr_nonnull(qp);
	dv = dp_dv(qp);
	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < 3; i++) {
		wr[i].wr_id = (uint64_t)i;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].sg_list = sge;
		wr[i].num_sge = 1;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	/* RESET, then INIT: nothing is posted before RTS (ENOMEM). */
	bad = NULL;
	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr[0]);
	ck_assert_int_eq(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), ENOMEM);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	qp = dp_qp(IBV_QPT_RC, 4, 2, 0, false);
	dv = dp_dv(qp);
	/* An opcode libmlx5 has no WQE for: EINVAL at it, the one before
	 * posted and rung. */
	wr[1].opcode = IBV_WR_ATOMIC_WRITE;
	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[1]);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 1);
	/* More SGEs than max_send_sge: ENOMEM. */
	wr[1].opcode = IBV_WR_SEND;
	wr[1].num_sge = 3;
	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr[1]);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 2);
	/* TSO carries data only on raw packet QPs. */
	wr[1].num_sge = 1;
	wr[1].opcode = IBV_WR_TSO;
	ck_assert_int_eq(ibv_post_send(qp, &wr[1], &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[1]);
	/* A bind past one KLM's 2 GiB: EOPNOTSUPP, nothing rung. */
	{
		struct ibv_mw mw = { .rkey = 0x1200, .type = IBV_MW_TYPE_2 };
		struct ibv_send_wr bind = { .opcode = IBV_WR_BIND_MW };

		bind.bind_mw.mw = &mw;
		bind.bind_mw.bind_info.length = (1ull << 31) + 1;
		ck_assert_int_eq(ibv_post_send(qp, &bind, &bad), EOPNOTSUPP);
		ck_assert_ptr_eq(bad, &bind);
	}
	ck_assert_uint_eq(dp_sq_dbr(&dv), 2);
	/* Full at max_send_wr (4 WQEs): the fifth of a list fails. */
	wr[1].opcode = IBV_WR_SEND;
	wr[2].next = NULL;
	ck_assert_int_eq(ibv_post_send(qp, &wr[1], &bad), 0);
	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr[0]);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 4);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dp_send");
	TCase *tc = tcase_create("post_send");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_rc_opcodes);
	tcase_add_test(tc, test_signaling);
	tcase_add_test(tc, test_inline);
	tcase_add_test(tc, test_ud);
	tcase_add_test(tc, test_xrc);
	tcase_add_test(tc, test_uc);
	tcase_add_test(tc, test_wrap_inline);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
