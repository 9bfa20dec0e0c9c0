/* SPDX-License-Identifier: MIT */
/*
 * Basic SRQs: libmlx5's sizing (wait queue, WQE stride, max_sge rounding)
 * and mlx5_ib's limits with their errnos, the RMP the firmware holds,
 * ibv_modify_srq/ibv_query_srq (limit), ibv_post_srq_recv's WQEs and
 * doorbell record, mlx5dv_init_obj, the DEVX entries on a verbs SRQ and
 * the extended creation's checks.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qp_test.h"

static struct ibv_srq *srq_create(uint32_t max_wr, uint32_t max_sge,
				  struct ibv_srq_init_attr *back)
{
	struct ibv_srq_init_attr a;
	struct ibv_srq *srq;

	memset(&a, 0, sizeof(a));
	a.attr.max_wr = max_wr;
	a.attr.max_sge = max_sge;
	errno = 0;
	srq = ibv_create_srq(qt_pd, &a);
	if (back)
		*back = a;
	return srq;
}

static int srq_err(uint32_t max_wr, uint32_t max_sge)
{
	struct ibv_srq *srq = srq_create(max_wr, max_sge, NULL);

	if (srq) {
		ck_assert_int_eq(ibv_destroy_srq(srq), 0);
		return 0;
	}
	return errno;
}

static int devx_query_rmp(struct ibv_srq *srq, void *out)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_rmp_in)] = { 0 };
	uint32_t srqn;

	ck_assert_int_eq(ibv_get_srq_num(srq, &srqn), 0);
	memset(out, 0, PRM_ST_SZ_BYTES(query_rmp_out));
	PRM_SET(query_rmp_in, in, opcode, MLX5_CMD_OP_QUERY_RMP);
	PRM_SET(query_rmp_in, in, rmpn, srqn);
	return mlx5dv_devx_srq_query(srq, in, sizeof(in), out,
				     PRM_ST_SZ_BYTES(query_rmp_out));
}

/* mlx5_alloc_srq_buf(): 2 * max_wr + 1 WQEs, the application's half
 * reported back; query_srq reports the whole ring less one. */
START_TEST(test_srq_sizes)
{
	static const struct {
		uint32_t wr, sge, ret_wr, ret_sge, ring, stride;
	} c[] = {
		{ 1, 1, 1, 1, 4, 32 },
		{ 100, 1, 127, 1, 256, 32 },
		{ 128, 2, 255, 3, 512, 64 },
		{ 16, 3, 31, 3, 64, 64 },
		{ 16, 4, 31, 7, 64, 128 },
		{ 8, 31, 15, 31, 32, 512 },
		{ 0, 0, 0, 1, 1, 32 },
		/* No room for the wait queue: max_wr + 1. */
		{ 16384, 1, 32767, 1, 32768, 32 },
		{ 32767, 1, 32767, 1, 32768, 32 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct ibv_srq_init_attr back;
		struct ibv_srq_attr q;
		struct ibv_srq *srq = srq_create(c[i].wr, c[i].sge, &back);
		uint8_t out[PRM_ST_SZ_BYTES(query_rmp_out)];

		ck_assert_msg(srq, "case %zu: %s", i, strerror(errno));
		ck_assert_uint_eq(back.attr.max_wr, c[i].ret_wr);
		ck_assert_uint_eq(back.attr.max_sge, c[i].ret_sge);
		ck_assert_int_eq(ibv_query_srq(srq, &q), 0);
		ck_assert_uint_eq(q.max_wr, c[i].ring - 1);
		ck_assert_uint_eq(q.max_sge, c[i].ret_sge);
		ck_assert_uint_eq(q.srq_limit, 0);
		ck_assert_int_eq(devx_query_rmp(srq, out), 0);
		ck_assert_uint_eq(PRM_GET(query_rmp_out, out, rmp_context.state),
				  MLX5_RMPC_STATE_RDY);
		ck_assert_uint_eq(1u << PRM_GET(query_rmp_out, out,
						rmp_context.wq.log_wq_sz),
				  c[i].ring);
		ck_assert_uint_eq(1u << PRM_GET(query_rmp_out, out,
						rmp_context.wq.log_wq_stride),
				  c[i].stride);
		ck_assert_uint_eq(PRM_GET(query_rmp_out, out, rmp_context.wq.pd),
				  vt_pdn(qt_pd));
		ck_assert_int_eq(ibv_destroy_srq(srq), 0);
	}
}
END_TEST

START_TEST(test_srq_bad_sizes)
{
	/* libmlx5: more than max_srq_recv_wr (1 << log_max_srq_sz). */
	ck_assert_int_eq(srq_err(32769, 1), EINVAL);
	/* mlx5_ib: the ring (max_wr + 1 rounded up) past the device's. */
	ck_assert_int_eq(srq_err(32768, 1), EINVAL);
	/* libmlx5: max_sge past max_wqe_sz_rq / 16 (32). */
	ck_assert_int_eq(srq_err(4, 33), EINVAL);
	/* mlx5_ib: 32 rounds up to a 1024-byte WQE holding 63. */
	ck_assert_int_eq(srq_err(4, 32), EINVAL);
	ck_assert_int_eq(srq_err(4, 31), 0);
	/* No PD, no attributes. */
	{
		struct ibv_srq_init_attr a = { .attr = { .max_wr = 1, .max_sge = 1 } };

		errno = 0;
		ck_assert_ptr_null(ibv_create_srq(NULL, &a));
		ck_assert_int_eq(errno, EINVAL);
	}
}
END_TEST

START_TEST(test_srq_limit)
{
	struct ibv_srq *srq = srq_create(100, 1, NULL);
	uint8_t out[PRM_ST_SZ_BYTES(query_rmp_out)];
	struct ibv_srq_attr a = { 0 }, q;

	ck_assert_ptr_nonnull(srq);
	a.srq_limit = 10;
	ck_assert_int_eq(ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT), 0);
	ck_assert_int_eq(ibv_query_srq(srq, &q), 0);
	ck_assert_uint_eq(q.srq_limit, 10);
	ck_assert_int_eq(devx_query_rmp(srq, out), 0);
	ck_assert_uint_eq(PRM_GET(query_rmp_out, out, rmp_context.wq.lwm), 10);
	/* The limit must be below the ring (256 WQEs). */
	a.srq_limit = 255;
	ck_assert_int_eq(ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT), 0);
	a.srq_limit = 256;
	ck_assert_int_eq(ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT), EINVAL);
	/* No resizing. */
	a.max_wr = 300;
	a.srq_limit = 1;
	ck_assert_int_eq(ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR), EINVAL);
	ck_assert_int_eq(ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT),
			 EINVAL);
	ck_assert_int_eq(ibv_query_srq(srq, &q), 0);
	ck_assert_uint_eq(q.srq_limit, 255);
	ck_assert_uint_eq(q.max_wr, 255);
	/* Nothing to do. */
	ck_assert_int_eq(ibv_modify_srq(srq, &a, 0), 0);
	/* Disarmed with 0. */
	a.srq_limit = 0;
	ck_assert_int_eq(ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT), 0);
	ck_assert_int_eq(ibv_query_srq(srq, &q), 0);
	ck_assert_uint_eq(q.srq_limit, 0);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
}
END_TEST

START_TEST(test_srq_post_recv)
{
	struct ibv_srq_init_attr back;
	struct ibv_srq *srq = srq_create(3, 2, &back);
	struct mlx5dv_srq dv = { .comp_mask = MLX5DV_SRQ_MASK_SRQN };
	struct mlx5dv_obj obj = { .srq = { .in = srq, .out = &dv } };
	struct mlx5_wqe_srq_next_seg *next;
	struct mlx5_wqe_data_seg *seg;
	char buf[64];
	struct ibv_sge sge[4] = {
		{ .addr = (uintptr_t)buf, .length = 16, .lkey = 0x1234 },
		{ .addr = (uintptr_t)buf + 16, .length = 8, .lkey = 0x99 },
	};
	struct ibv_recv_wr wr[2] = {
		{ .wr_id = 7, .sg_list = sge, .num_sge = 1, .next = &wr[1] },
		{ .wr_id = 8, .sg_list = sge, .num_sge = 2 },
	};
	struct ibv_recv_wr *bad = NULL;
	uint32_t srqn;

	ck_assert_ptr_nonnull(srq);
	ck_assert_uint_eq(back.attr.max_wr, 3);
	ck_assert_uint_eq(back.attr.max_sge, 3);	/* 64-byte WQEs */
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_SRQ), 0);
	ck_assert_uint_eq(dv.stride, 64);
	ck_assert_uint_eq(dv.head, 0);
	ck_assert_uint_eq(dv.tail, 3);
	ck_assert_uint_eq(dv.comp_mask, MLX5DV_SRQ_MASK_SRQN);
	ck_assert_int_eq(ibv_get_srq_num(srq, &srqn), 0);
	ck_assert_uint_eq(dv.srqn, srqn);
	ck_assert_ptr_nonnull(dv.buf);
	ck_assert_ptr_nonnull(dv.dbrec);
	ck_assert_uint_eq(dv.dbrec[0], 0);
	/* The free list as libmlx5 links it: 0 -> 1 -> 2 -> 3 (tail),
	 * then the wait queue 4 -> ... -> 7. */
	for (int i = 0; i < 3; i++) {
		next = (void *)((char *)dv.buf + i * 64);
		ck_assert_uint_eq(be16toh(next->next_wqe_index), i + 1);
	}
	next = (void *)((char *)dv.buf + 4 * 64);
	ck_assert_uint_eq(be16toh(next->next_wqe_index), 5);

	ck_assert_int_eq(ibv_post_srq_recv(srq, wr, &bad), 0);
	ck_assert_uint_eq(be32toh(dv.dbrec[0]), 2);
	seg = (void *)((char *)dv.buf + 16);
	ck_assert_uint_eq(be32toh(seg[0].byte_count), 16);
	ck_assert_uint_eq(be32toh(seg[0].lkey), 0x1234);
	ck_assert_uint_eq(be64toh(seg[0].addr), (uintptr_t)buf);
	ck_assert_uint_eq(be32toh(seg[1].lkey), 0x100);	/* end of list */
	seg = (void *)((char *)dv.buf + 64 + 16);
	ck_assert_uint_eq(be32toh(seg[1].byte_count), 8);
	ck_assert_uint_eq(be32toh(seg[1].lkey), 0x99);
	ck_assert_uint_eq(be32toh(seg[2].lkey), 0x100);
	/* More SGEs than the WQE holds. */
	wr[1].num_sge = 4;
	wr[1].next = NULL;
	ck_assert_int_eq(ibv_post_srq_recv(srq, &wr[1], &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[1]);
	/* One more fits, then it is full: ENOMEM at the second. */
	wr[1].num_sge = 1;
	wr[0].next = &wr[1];
	ck_assert_int_eq(ibv_post_srq_recv(srq, wr, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr[1]);
	ck_assert_uint_eq(be32toh(dv.dbrec[0]), 3);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
}
END_TEST

/* DEVX on a verbs SRQ: the RMP's own commands, the kernel's object check. */
START_TEST(test_srq_devx)
{
	struct ibv_srq *srq = srq_create(16, 1, NULL);
	struct ibv_srq *other = srq_create(16, 1, NULL);
	uint8_t in[PRM_ST_SZ_BYTES(modify_rmp_in)] = { 0 };
	uint8_t mout[PRM_ST_SZ_BYTES(modify_rmp_out)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_rmp_out)];
	uint8_t qin[PRM_ST_SZ_BYTES(query_rmp_in)] = { 0 };
	struct ibv_srq_attr q;
	uint32_t srqn, osrqn;

	ck_assert_ptr_nonnull(srq);
	ck_assert_ptr_nonnull(other);
	ck_assert_int_eq(ibv_get_srq_num(srq, &srqn), 0);
	ck_assert_int_eq(ibv_get_srq_num(other, &osrqn), 0);
	ck_assert_uint_ne(srqn, osrqn);
	PRM_SET(modify_rmp_in, in, opcode, MLX5_CMD_OP_MODIFY_RMP);
	PRM_SET(modify_rmp_in, in, rmp_state, MLX5_RMPC_STATE_RDY);
	PRM_SET(modify_rmp_in, in, rmpn, srqn);
	PRM_SET(rmp_bitmask, PRM_ADDR_OF(modify_rmp_in, in, bitmask), lwm, 1);
	PRM_SET(modify_rmp_in, in, ctx.state, MLX5_RMPC_STATE_RDY);
	PRM_SET(modify_rmp_in, in, ctx.wq.lwm, 7);
	ck_assert_int_eq(mlx5dv_devx_srq_modify(srq, in, sizeof(in), mout,
						sizeof(mout)), 0);
	ck_assert_int_eq(ibv_query_srq(srq, &q), 0);
	ck_assert_uint_eq(q.srq_limit, 7);
	/* Another SRQ's number through this one: EINVAL. */
	PRM_SET(query_rmp_in, qin, opcode, MLX5_CMD_OP_QUERY_RMP);
	PRM_SET(query_rmp_in, qin, rmpn, osrqn);
	ck_assert_int_eq(mlx5dv_devx_srq_query(srq, qin, sizeof(qin), out,
					       sizeof(out)), EINVAL);
	ck_assert_int_eq(devx_query_rmp(other, out), 0);
	ck_assert_uint_eq(PRM_GET(query_rmp_out, out, rmp_context.wq.lwm), 0);
	ck_assert_int_eq(ibv_destroy_srq(other), 0);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
}
END_TEST

START_TEST(test_srq_ex)
{
	struct ibv_srq_init_attr_ex a;
	struct ibv_srq *srq;
	uint32_t srqn;

	/* A basic SRQ through the extended call. */
	memset(&a, 0, sizeof(a));
	a.attr.max_wr = 10;
	a.attr.max_sge = 1;
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	a.srq_type = IBV_SRQT_BASIC;
	a.pd = qt_pd;
	srq = ibv_create_srq_ex(qt_ctx, &a);
	ck_assert_msg(srq, "%s", strerror(errno));
	ck_assert_uint_eq(a.attr.max_wr, 15);
	ck_assert_int_eq(ibv_get_srq_num(srq, &srqn), 0);
	ck_assert_uint_ne(srqn, 0);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);

	/* Without a PD. */
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(qt_ctx, &a));
	ck_assert_int_eq(errno, EINVAL);
	/* An unknown type. */
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	a.srq_type = (enum ibv_srq_type)7;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(qt_ctx, &a));
	ck_assert_int_eq(errno, EINVAL);
	/* Tag matching: needs an extended CQ, and the device has none. */
	a.srq_type = IBV_SRQT_TM;
	a.comp_mask |= IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_TM;
	a.cq = qt_cq;
	a.tm_cap.max_num_tags = 8;
	a.tm_cap.max_ops = 8;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(qt_ctx, &a));
	ck_assert_int_eq(errno, EINVAL);
	/* XRC without its XRCD. */
	a.srq_type = IBV_SRQT_XRC;
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		      IBV_SRQ_INIT_ATTR_CQ;
	errno = 0;
	ck_assert_ptr_null(ibv_create_srq_ex(qt_ctx, &a));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* The SRQ is in use while a QP receives through it. */
START_TEST(test_srq_destroy_busy)
{
	struct ibv_srq *srq = srq_create(16, 1, NULL);
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_UD, 4, 0, 1, 0);
	struct ibv_qp *qp, *qp2;

	ck_assert_ptr_nonnull(srq);
	a.srq = srq;
	qp = ibv_create_qp(qt_pd, &a);
	ck_assert_ptr_nonnull(qp);
	qp2 = ibv_create_qp(qt_pd, &a);
	ck_assert_ptr_nonnull(qp2);
	ck_assert_int_eq(ibv_destroy_srq(srq), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_srq(srq), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(qp2), 0);
	/* The PD is in use until the SRQ goes. */
	ck_assert_int_eq(ibv_dealloc_pd(qt_pd), EBUSY);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
}
END_TEST

/* MLX5_SRQ_SIGNATURE asks for WQE signatures, which the device does not
 * check: the firmware refuses them. */
START_TEST(test_srq_signature)
{
	setenv("MLX5_SRQ_SIGNATURE", "1", 1);
	ck_assert_int_eq(srq_err(4, 1), EINVAL);
	unsetenv("MLX5_SRQ_SIGNATURE");
	ck_assert_int_eq(srq_err(4, 1), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("qp_srq");
	TCase *tc = tcase_create("srq");

	tcase_add_checked_fixture(tc, qt_setup, qt_teardown);
	tcase_add_test(tc, test_srq_sizes);
	tcase_add_test(tc, test_srq_bad_sizes);
	tcase_add_test(tc, test_srq_limit);
	tcase_add_test(tc, test_srq_post_recv);
	tcase_add_test(tc, test_srq_devx);
	tcase_add_test(tc, test_srq_ex);
	tcase_add_test(tc, test_srq_destroy_busy);
	tcase_add_test(tc, test_srq_signature);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
