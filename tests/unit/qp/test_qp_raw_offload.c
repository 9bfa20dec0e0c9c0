/* SPDX-License-Identifier: MIT */
/*
 * Raw packet send WQEs on a device configured (a capability override, set
 * before the first device comes up) to need L2 inline headers: libmlx5's
 * Ethernet segment with 18 inline header bytes (from one SGE or across
 * two) and TSO's MSS and headers, compared with bytes written by hand.
 * The device does no checksum offload or LSO (the overrides may not
 * advertise them), so those stay refused.  The ibv_wr_* builders of a
 * raw packet QP write the very WQEs ibv_post_send writes.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qp_test.h"

/* MLX5_CAP_INLINE_MODE_L2 on the Ethernet page. */
#define ETH_CAPS "per_protocol_networking_offload_caps."

static uint8_t frame[4096];
static struct ibv_mr *mr;

/* A raw packet QP in RTS; with @ops, its ibv_wr_* operations. */
static struct ibv_qp *raw_rts_ops(uint64_t ops)
{
	struct ibv_qp_init_attr_ex ax;
	struct ibv_qp_attr at;
	struct ibv_qp *qp;

	memset(&ax, 0, sizeof(ax));
	ax.qp_type = IBV_QPT_RAW_PACKET;
	ax.send_cq = ax.recv_cq = qt_cq;
	ax.cap.max_send_wr = 8;
	ax.cap.max_send_sge = 2;
	ax.cap.max_inline_data = 64;
	ax.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	ax.pd = qt_pd;
	ax.max_tso_header = 64;
	if (ops) {
		ax.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ax.send_ops_flags = ops;
	}
	qp = ibv_create_qp_ex(qt_ctx, &ax);
	ck_assert_msg(qp, "%s", strerror(errno));
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PORT), 0);
	at.qp_state = IBV_QPS_RTR;
	ck_assert_int_eq(ibv_modify_qp(qp, &at, IBV_QP_STATE), 0);
	at.qp_state = IBV_QPS_RTS;
	ck_assert_int_eq(ibv_modify_qp(qp, &at, IBV_QP_STATE), 0);
	if (!mr) {
		mr = ibv_reg_mr(qt_pd, frame, sizeof(frame), 0);
		ck_assert_ptr_nonnull(mr);
	}
	for (unsigned int i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 13 + 5);
	return qp;
}

static struct ibv_qp *raw_rts(void)
{
	return raw_rts_ops(0);
}

static void *sq_buf(struct ibv_qp *qp, uint32_t *sqn)
{
	struct mlx5dv_qp dq;
	struct mlx5dv_obj o;

	memset(&dq, 0, sizeof(dq));
	dq.comp_mask = MLX5DV_QP_MASK_RAW_QP_HANDLES;
	o.qp.in = qp;
	o.qp.out = &dq;
	ck_assert_int_eq(mlx5dv_init_obj(&o, MLX5DV_OBJ_QP), 0);
	*sqn = dq.sqn;
	return dq.sq.buf;
}

/* The control segment's first 12 bytes: index, opcode, QPN, DS, CQ
 * update. */
static void put_ctrl(uint8_t *p, uint16_t idx, uint8_t op, uint32_t sqn,
		     uint8_t ds)
{
	uint32_t w = htobe32((uint32_t)idx << 8 | op);

	memcpy(p, &w, 4);
	w = htobe32(sqn << 8 | ds);
	memcpy(p + 4, &w, 4);
	p[11] = MLX5_WQE_CTRL_CQ_UPDATE;
}

START_TEST(test_offload_inline_l2)
{
	struct ibv_qp *qp = raw_rts();
	struct ibv_sge sge[2] = {
		{ (uintptr_t)frame, 100, mr->lkey },
		{ (uintptr_t)frame + 200, 50, mr->lkey },
	};
	struct ibv_send_wr wr = { 0 }, *bad;
	uint8_t want[128] = { 0 };
	uint32_t sqn;
	uint8_t *sq = sq_buf(qp, &sqn);

	/* One SGE of 100 bytes: 18 header bytes in a 32-byte Ethernet
	 * segment, the other 82 from the SGE. */
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_IP_CSUM;
	/* No checksum offload advertised. */
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	wr.send_flags = IBV_SEND_SIGNALED;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	put_ctrl(want, 0, MLX5_OPCODE_SEND, sqn, 4);
	want[16 + 13] = 18;
	memcpy(want + 16 + 14, frame, 18);
	qt_put_dseg(want + 48, 82, mr->lkey, (uintptr_t)frame + 18);
	ck_assert_mem_eq(sq, want, 64);

	/* Headers across two SGEs (10 + 8 bytes): the data goes on 8 bytes
	 * into the second. */
	sge[0].length = 10;
	wr.num_sge = 2;
	wr.send_flags = IBV_SEND_SIGNALED;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	memset(want, 0, sizeof(want));
	put_ctrl(want, 1, MLX5_OPCODE_SEND, sqn, 4);
	want[16 + 13] = 18;
	memcpy(want + 16 + 14, frame, 10);
	memcpy(want + 16 + 24, frame + 200, 8);
	qt_put_dseg(want + 48, 42, mr->lkey, (uintptr_t)frame + 208);
	ck_assert_mem_eq(sq + 64, want, 64);

	/* Fewer than 18 bytes in all. */
	sge[1].length = 7;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	mr = NULL;
}
END_TEST

/* A signaled TSO of the frame's first 54 bytes as headers, MSS 1000, no
 * data. */
static void tso_headers_only(struct ibv_send_wr *wr)
{
	wr->num_sge = 0;
	wr->opcode = IBV_WR_TSO;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->tso.hdr = frame;
	wr->tso.hdr_sz = 54;
	wr->tso.mss = 1000;
}

START_TEST(test_offload_tso)
{
	struct ibv_qp *qp = raw_rts();
	struct ibv_sge sge = { (uintptr_t)frame + 64, 3000, mr->lkey };
	struct ibv_send_wr wr = { 0 }, *bad;
	uint8_t want[128] = { 0 };
	uint32_t sqn;
	uint8_t *sq = sq_buf(qp, &sqn);

	/* The headers alone (no LSO here, so no data may follow): 54 bytes
	 * from the segment's byte 14 on, 6 DS with the control, over two
	 * WQEBBs. */
	wr.sg_list = &sge;
	tso_headers_only(&wr);
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	put_ctrl(want, 0, MLX5_OPCODE_TSO, sqn, 6);
	want[16 + 6] = 1000 >> 8;
	want[16 + 7] = 1000 & 0xff;
	want[16 + 13] = 54;
	memcpy(want + 16 + 14, frame, 54);
	ck_assert_mem_eq(sq, want, 96);
	/* The next WQE starts at WQEBB 2. */
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	ck_assert_uint_eq(be32toh(*(uint32_t *)(sq + 128)) >> 8, 2);

	/* libmlx5's refusals: data past max_tso (0 without LSO); a header
	 * past max_tso_header or below an L2 header. */
	wr.num_sge = 1;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	wr.num_sge = 0;
	wr.tso.hdr_sz = 65;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	wr.tso.hdr_sz = 13;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	mr = NULL;
}
END_TEST

/* WQE @i of both QPs is the same (but for the QP number), @n bytes. */
static void same_wqe(uint8_t *a, uint32_t sqa, uint8_t *b, uint32_t sqb,
		     unsigned int i, size_t n)
{
	uint32_t wa, wb;

	a += i * 64;
	b += i * 64;
	memcpy(&wa, a + 4, 4);
	memcpy(&wb, b + 4, 4);
	ck_assert_uint_eq(be32toh(wa) >> 8, sqa);
	ck_assert_uint_eq(be32toh(wb) >> 8, sqb);
	ck_assert_uint_eq(be32toh(wa) & 0x3f, be32toh(wb) & 0x3f);
	ck_assert_mem_eq(a, b, 4);
	ck_assert_mem_eq(a + 8, b + 8, n - 8);
}

START_TEST(test_offload_wr_same_wqes)
{
	struct ibv_qp *qp = raw_rts();
	struct ibv_qp *qx = raw_rts_ops(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO);
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qx);
	struct ibv_sge sge[2] = {
		{ (uintptr_t)frame, 100, mr->lkey },
		{ (uintptr_t)frame + 200, 50, mr->lkey },
	};
	struct ibv_data_buf bufs[2] = { { frame, 10 }, { frame + 200, 40 } };
	struct ibv_send_wr wr = { 0 }, *bad;
	uint32_t sqa, sqb;
	uint8_t *a = sq_buf(qp, &sqa), *b = sq_buf(qx, &sqb);

	ck_assert_ptr_nonnull(x);
	wr.sg_list = sge;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_start(x);
	/* WQE 0: one SGE, its first 18 bytes inline. */
	wr.num_sge = 1;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	ibv_wr_send(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)frame, 100);
	/* WQE 1: the headers across two SGEs (10 + 8). */
	sge[0].length = 10;
	wr.num_sge = 2;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	ibv_wr_send(x);
	ibv_wr_set_sge_list(x, 2, sge);
	/* WQE 2: inline data from two buffers, the headers from both. */
	sge[1].length = 40;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	ibv_wr_send(x);
	ibv_wr_set_inline_data_list(x, 2, bufs);
	/* WQE 4: TSO's headers, no data. */
	tso_headers_only(&wr);
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	ibv_wr_send_tso(x, frame, 54, 1000);
	ibv_wr_set_sge_list(x, 0, NULL);
	ck_assert_int_eq(ibv_wr_complete(x), 0);

	same_wqe(a, sqa, b, sqb, 0, 64);
	same_wqe(a, sqa, b, sqb, 1, 64);
	same_wqe(a, sqa, b, sqb, 2, 96);	/* 6 DS: two WQEBBs */
	same_wqe(a, sqa, b, sqb, 4, 96);
	/* Beside the comparison, WQE 2 by hand: 18 header bytes (10 + 8),
	 * then 32 inline bytes from 8 into the second buffer. */
	ck_assert_uint_eq(b[128 + 16 + 13], 18);
	ck_assert_mem_eq(b + 128 + 16 + 14, frame, 10);
	ck_assert_mem_eq(b + 128 + 16 + 24, frame + 200, 8);
	ck_assert_uint_eq(be32toh(*(uint32_t *)(b + 128 + 48)), 32 | 0x80000000u);
	ck_assert_mem_eq(b + 128 + 52, frame + 208, 12);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_qp(qx), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	mr = NULL;
}
END_TEST

/* What libmlx5's raw packet setters refuse, and one of its habits. */
START_TEST(test_offload_wr_errors)
{
	struct ibv_qp *qx = raw_rts_ops(IBV_QP_EX_WITH_SEND);
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qx);
	struct ibv_data_buf big[2] = { { frame, 400 }, { frame + 1000, 400 } };
	uint8_t want[64] = { 0 };
	struct mlx5dv_qp dq;
	struct mlx5dv_obj o;
	uint32_t sqn;
	uint8_t *sq = sq_buf(qx, &sqn);

	/* No checksum offload advertised: the batch fails whole. */
	ibv_wr_start(x);
	x->wr_flags = IBV_SEND_IP_CSUM;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)frame, 100);
	ck_assert_int_eq(ibv_wr_complete(x), EINVAL);
	/* Fewer than 18 header bytes. */
	ibv_wr_start(x);
	x->wr_flags = 0;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)frame, 17);
	ck_assert_int_eq(ibv_wr_complete(x), EINVAL);
	/* Inline data past the maximum: EINVAL from a list, ENOMEM from one
	 * buffer. */
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_inline_data_list(x, 2, big);
	ck_assert_int_eq(ibv_wr_complete(x), EINVAL);
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_inline_data(x, frame, 800);
	ck_assert_int_eq(ibv_wr_complete(x), ENOMEM);
	/* Nothing was posted. */
	memset(&dq, 0, sizeof(dq));
	o.qp.in = qx;
	o.qp.out = &dq;
	ck_assert_int_eq(mlx5dv_init_obj(&o, MLX5DV_OBJ_QP), 0);
	ck_assert_uint_eq(be32toh(dq.dbrec[1]), 0);

	/* An SGE of exactly 18 bytes: libmlx5 puts them inline and still
	 * gathers the whole SGE. */
	ibv_wr_start(x);
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)frame, 18);
	ck_assert_int_eq(ibv_wr_complete(x), 0);
	put_ctrl(want, 0, MLX5_OPCODE_SEND, sqn, 4);
	want[16 + 13] = 18;
	memcpy(want + 16 + 14, frame, 18);
	qt_put_dseg(want + 48, 18, mr->lkey, (uintptr_t)frame);
	ck_assert_mem_eq(sq, want, 64);
	ck_assert_uint_eq(be32toh(dq.dbrec[1]), 1);
	ck_assert_int_eq(ibv_destroy_qp(qx), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	mr = NULL;
}
END_TEST

int main(void)
{
	Suite *s = suite_create("qp_raw_offload");
	TCase *tc = tcase_create("offload");

	/* L2 inline mode, and a device without checksum or TSO offload:
	 * libmlx5's refusals of those. */
	setenv("MLX5EMU_CAPS", ETH_CAPS "wqe_inline_mode=0," ETH_CAPS "csum_cap=0,"
	       ETH_CAPS "max_lso_cap=0", 1);
	tcase_add_checked_fixture(tc, qt_setup, qt_teardown);
	tcase_add_test(tc, test_offload_inline_l2);
	tcase_add_test(tc, test_offload_tso);
	tcase_add_test(tc, test_offload_wr_same_wqes);
	tcase_add_test(tc, test_offload_wr_errors);
	suite_add_tcase(s, tc);
	return vt_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
