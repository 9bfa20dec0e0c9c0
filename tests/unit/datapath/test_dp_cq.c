/* SPDX-License-Identifier: MIT */
/*
 * Completion queues from the application's side of the ring:
 * mlx5dv_init_obj for CQs (both ABI versions) and AHs, a CQ handed out
 * that way keeping its CQEs when a QP is reset, the CQE size (64, 128,
 * MLX5_CQE_SIZE, mlx5dv_create_cq's attribute and its checks), and the
 * ibv_cq_ex functions over CQEs written into the ring as the device
 * writes them (receive queues, SRQs, errors).
 */
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp_test.h"

static void setup(void)
{
	qt_setup();
}

static void teardown(void)
{
	qt_teardown();
}

static struct mlx5dv_cq cq_dv(struct ibv_cq *cq)
{
	struct mlx5dv_cq dv;
	struct mlx5dv_obj obj = { .cq = { .in = cq, .out = &dv } };

	memset(&dv, 0xff, sizeof(dv));
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ), 0);
	return dv;
}

START_TEST(test_init_obj)
{
	struct ibv_cq *cq = ibv_create_cq(qt_ctx, 20, NULL, NULL, 0);
	int (*init_obj_1_0)(struct mlx5dv_obj *, uint64_t);
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct mlx5dv_cq dv, dv10;
	struct mlx5dv_ah dah;
	struct mlx5dv_obj obj;
	struct ibv_ah *ah;
	uint8_t *av;
	void *lib;

	ck_assert_ptr_nonnull(cq);
	dv = cq_dv(cq);
	ck_assert_uint_eq(dv.cqe_cnt, 32);
	ck_assert_uint_eq(dv.cqe_size, 64);
	ck_assert_uint_eq(dv.comp_mask, 0);
	ck_assert_ptr_nonnull(dv.buf);
	ck_assert_ptr_nonnull(dv.dbrec);
	ck_assert_ptr_nonnull(dv.cq_uar);
	/* Every entry starts invalid (opcode 0xf). */
	for (uint32_t i = 0; i < dv.cqe_cnt; i++)
		ck_assert_uint_eq(((uint8_t *)dv.buf)[i * 64 + 63] >> 4, 0xf);

	/* MLX5_1.0: cq_uar points at the pointer to the doorbell page. */
	lib = dlopen("libmlx5.so.1", RTLD_NOW | RTLD_NOLOAD);
	ck_assert_ptr_nonnull(lib);
	init_obj_1_0 = (int (*)(struct mlx5dv_obj *, uint64_t))
		dlvsym(lib, "mlx5dv_init_obj", "MLX5_1.0");
	ck_assert_ptr_nonnull(init_obj_1_0);
	obj.cq.in = cq;
	obj.cq.out = &dv10;
	ck_assert_int_eq(init_obj_1_0(&obj, MLX5DV_OBJ_CQ), 0);
	ck_assert_uint_eq(dv10.cqn, dv.cqn);
	ck_assert_ptr_eq(*(void **)dv10.cq_uar, dv.cq_uar);
	dlclose(lib);

	/* An AH's address vector: the destination GID at 32, hop limit at
	 * 27, traffic class at 26. */
	aa.grh.dgid = qt_gid(1);
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 7;
	aa.grh.traffic_class = 0x20;
	ah = ibv_create_ah(qt_pd, &aa);
	ck_assert_ptr_nonnull(ah);
	obj.ah.in = ah;
	obj.ah.out = &dah;
	dah.comp_mask = 0xff;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_AH), 0);
	ck_assert_uint_eq(dah.comp_mask, 0);
	av = (uint8_t *)dah.av;
	ck_assert_int_eq(memcmp(av + 32, aa.grh.dgid.raw, 16), 0);
	ck_assert_uint_eq(av[27], 7);
	ck_assert_uint_eq(av[26], 0x20);
	/* Objects that do not exist here (RWQs: test_qp_rss). */
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_DM), EOPNOTSUPP);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

/* A QP moved to RESET takes its CQEs out of its CQs, but not out of a
 * CQ the application polls itself (here: one mlx5dv_init_obj gave). */
START_TEST(test_dv_owned)
{
	struct ibv_cq *cq = ibv_create_cq(qt_ctx, 8, NULL, NULL, 0);
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 4, 4, 1, 1);
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RESET };
	struct ibv_qp *qp;
	struct ibv_wc wc;

	ck_assert_ptr_nonnull(cq);
	a.send_cq = a.recv_cq = cq;
	qp = ibv_create_qp(qt_pd, &a);
	ck_assert_ptr_nonnull(qp);
	dp_put_cqe(cq, 0, MLX5_CQE_REQ, dp_uidx(qp), qp->qp_num, 0x0a, 0);
	ck_assert_int_eq(ibv_modify_qp(qp, &qa, IBV_QP_STATE), 0);
	ck_assert_int_eq(ibv_poll_cq(cq, 1, &wc), 1);
	ck_assert_uint_eq(wc.qp_num, qp->qp_num);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

START_TEST(test_cqe_size)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 4 };
	struct mlx5dv_cq_init_attr da = {
		.comp_mask = MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE,
	};
	struct ibv_cq_ex *ex;
	struct ibv_cq *cq;

	/* MLX5_CQE_SIZE: 128 taken, anything but 64 or 128 EINVAL. */
	setenv("MLX5_CQE_SIZE", "128", 1);
	cq = ibv_create_cq(qt_ctx, 4, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_uint_eq(cq_dv(cq).cqe_size, 128);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ex = ibv_create_cq_ex(qt_ctx, &ca);
	ck_assert_ptr_nonnull(ex);
	ck_assert_uint_eq(cq_dv(ibv_cq_ex_to_cq(ex)).cqe_size, 128);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(ex)), 0);
	/* The attribute wins over the variable. */
	da.cqe_size = 64;
	ex = mlx5dv_create_cq(qt_ctx, &ca, &da);
	ck_assert_ptr_nonnull(ex);
	ck_assert_uint_eq(cq_dv(ibv_cq_ex_to_cq(ex)).cqe_size, 64);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(ex)), 0);
	da.cqe_size = 100;
	errno = 0;
	ck_assert_ptr_null(mlx5dv_create_cq(qt_ctx, &ca, &da));
	ck_assert_int_eq(errno, EINVAL);
	/* Without the attribute, the variable. */
	ex = mlx5dv_create_cq(qt_ctx, &ca, NULL);
	ck_assert_ptr_nonnull(ex);
	ck_assert_uint_eq(cq_dv(ibv_cq_ex_to_cq(ex)).cqe_size, 128);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(ex)), 0);
	setenv("MLX5_CQE_SIZE", "100", 1);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(qt_ctx, 4, NULL, NULL, 0));
	ck_assert_int_eq(errno, EINVAL);
	da.cqe_size = 128;
	ex = mlx5dv_create_cq(qt_ctx, &ca, &da);
	ck_assert_ptr_nonnull(ex);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(ex)), 0);
	unsetenv("MLX5_CQE_SIZE");
	cq = ibv_create_cq(qt_ctx, 4, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_uint_eq(cq_dv(cq).cqe_size, 64);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

START_TEST(test_dv_create_cq)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(qt_ctx);
	int cookie;
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 10, .cq_context = &cookie,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct mlx5dv_cq_init_attr da;
	struct ibv_cq_ex *ex;
	static const struct {
		uint64_t comp_mask;
		uint32_t flags;
		uint8_t format;
		uint16_t size;
	} bad[] = {
		/* Unknown attribute bits. */
		{ 1u << 3, 0, 0, 0 },
		/* No CQE compression on this device. */
		{ MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE, 0,
		  MLX5DV_CQE_RES_FORMAT_HASH, 0 },
		/* Padding on 64-byte CQEs (64 explicit or by default). */
		{ MLX5DV_CQ_INIT_ATTR_MASK_FLAGS | MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE,
		  MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD, 0, 64 },
		{ MLX5DV_CQ_INIT_ATTR_MASK_FLAGS, MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD,
		  0, 0 },
		/* Unknown flags. */
		{ MLX5DV_CQ_INIT_ATTR_MASK_FLAGS, MLX5DV_CQ_INIT_ATTR_FLAGS_RESERVED,
		  0, 0 },
	};

	ck_assert_ptr_nonnull(ch);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&da, 0, sizeof(da));
		da.comp_mask = bad[i].comp_mask;
		da.flags = bad[i].flags;
		da.cqe_comp_res_format = bad[i].format;
		da.cqe_size = bad[i].size;
		errno = 0;
		ck_assert_msg(!mlx5dv_create_cq(qt_ctx, &ca, &da), "case %zu", i);
		ck_assert_msg(errno == EINVAL, "case %zu: %s", i, strerror(errno));
	}
	/* Zero entries, and wc_flags for data the device does not make. */
	memset(&da, 0, sizeof(da));
	ca.cqe = 0;
	errno = 0;
	ck_assert_ptr_null(mlx5dv_create_cq(qt_ctx, &ca, &da));
	ck_assert_int_eq(errno, EINVAL);
	ca.cqe = 10;
	ca.wc_flags = IBV_WC_EX_WITH_TM_INFO;
	errno = 0;
	ck_assert_ptr_null(mlx5dv_create_cq(qt_ctx, &ca, &da));
	ck_assert_int_eq(errno, EOPNOTSUPP);

	/* No flags at all: a CQ with the ibv_cq_ex functions and the
	 * channel and context of ibv_create_cq_ex. */
	ca.wc_flags = IBV_WC_STANDARD_FLAGS;
	ca.channel = ch;
	da.comp_mask = MLX5DV_CQ_INIT_ATTR_MASK_FLAGS;
	ex = mlx5dv_create_cq(qt_ctx, &ca, &da);
	ck_assert_msg(ex, "%s", strerror(errno));
	ck_assert_ptr_nonnull(ex->start_poll);
	ck_assert_ptr_nonnull(ex->read_byte_len);
	ck_assert_ptr_eq(ibv_cq_ex_to_cq(ex)->channel, ch);
	ck_assert_ptr_eq(ibv_cq_ex_to_cq(ex)->cq_context, &cookie);
	ck_assert_int_eq(ibv_cq_ex_to_cq(ex)->cqe, 15);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), EBUSY);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(ex)), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
}
END_TEST

/* 128-byte CQEs: the CQE in the second half, the first half ignored. */
static void cqe_128(bool pad)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 3, .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct mlx5dv_cq_init_attr da = {
		.comp_mask = MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE |
			     (pad ? MLX5DV_CQ_INIT_ATTR_MASK_FLAGS : 0),
		.cqe_size = 128,
		.flags = pad ? MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD : 0,
	};
	struct ibv_cq_ex *ex = mlx5dv_create_cq(qt_ctx, &ca, &da);
	struct ibv_cq *cq = ibv_cq_ex_to_cq(ex);
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 4, 4, 1, 1);
	struct ibv_poll_cq_attr pa = { 0 };
	struct mlx5dv_cq dv;
	struct ibv_qp *qp;
	uint32_t uidx;
	uint8_t *cqe;

	ck_assert_ptr_nonnull(ex);
	a.send_cq = a.recv_cq = cq;
	qp = ibv_create_qp(qt_pd, &a);
	ck_assert_ptr_nonnull(qp);
	uidx = dp_uidx(qp);
	dv = cq_dv(cq);
	ck_assert_uint_eq(dv.cqe_size, 128);
	/* Four entries: the fifth CQE is on the second pass (owner 1). */
	for (uint32_t pi = 0; pi < 5; pi++) {
		memset((uint8_t *)dv.buf + (pi & 3) * 128, 0xee, 64);
		cqe = dp_put_cqe(cq, pi, MLX5_CQE_REQ, uidx, qp->qp_num, 0x10,
				 (uint16_t)pi);
		dp_be32(cqe, 0x2c, 100 + pi);	/* byte_cnt */
		ck_assert_int_eq(ibv_start_poll(ex, &pa), 0);
		ck_assert_int_eq(ibv_wc_read_opcode(ex), IBV_WC_RDMA_READ);
		ck_assert_uint_eq(ibv_wc_read_byte_len(ex), 100 + pi);
		ck_assert_uint_eq(ibv_wc_read_qp_num(ex), qp->qp_num);
		ck_assert_int_eq(ibv_next_poll(ex), ENOENT);
		ibv_end_poll(ex);
		ck_assert_uint_eq(be32toh(dv.dbrec[0]), pi + 1);
	}
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}

START_TEST(test_cqe_128)
{
	cqe_128(false);
}
END_TEST

/* The device offers padding (MLX5DV_CONTEXT_FLAGS_CQE_128B_PAD): the same
 * ring, the CQE in each entry's second half. */
START_TEST(test_cqe_128_padded)
{
	struct mlx5dv_context dc = { .comp_mask = 0 };

	ck_assert_int_eq(mlx5dv_query_device(qt_ctx, &dc), 0);
	ck_assert(dc.flags & MLX5DV_CONTEXT_FLAGS_CQE_128B_PAD);
	cqe_128(true);
}
END_TEST

/* Receives complete in order on an RQ, by wqe_counter on an SRQ; read
 * functions as libmlx5's. */
START_TEST(test_cq_ex_recv)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 15, .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct ibv_cq_ex *ex = ibv_create_cq_ex(qt_ctx, &ca);
	struct ibv_cq *cq = ibv_cq_ex_to_cq(ex);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(qt_pd, &sa);
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 4, 4, 1, 1);
	struct ibv_qp_init_attr b = qt_init_attr(IBV_QPT_RC, 4, 0, 1, 1);
	struct ibv_sge sge = { .addr = 0x1000, .length = 64, .lkey = 1 };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_qp *qp, *sqp;
	uint8_t *cqe;

	ck_assert_ptr_nonnull(ex);
	ck_assert_ptr_nonnull(srq);
	a.send_cq = a.recv_cq = cq;
	qp = ibv_create_qp(qt_pd, &a);
	b.send_cq = b.recv_cq = cq;
	b.srq = srq;
	sqp = ibv_create_qp(qt_pd, &b);
	ck_assert_ptr_nonnull(qp);
	ck_assert_ptr_nonnull(sqp);
	qt_rc_to_rts(qp, qp->qp_num, 1);
	for (uint64_t i = 0; i < 3; i++) {
		rwr.wr_id = 0x100 + i;
		ck_assert_int_eq(ibv_post_recv(qp, &rwr, &bad), 0);
		rwr.wr_id = 0x200 + i;
		ck_assert_int_eq(ibv_post_srq_recv(srq, &rwr, &bad), 0);
	}
	/* RQ, with immediate data and a GRH. */
	cqe = dp_put_cqe(cq, 0, MLX5_CQE_RESP_SEND_IMM, dp_uidx(qp), qp->qp_num,
			 0, 77);
	dp_be32(cqe, 0x24, 0xa1b2c3d4);		/* imm */
	dp_be32(cqe, 0x2c, 33);			/* byte_cnt */
	dp_be32(cqe, 0x18, 2u << 28 | 5u << 24 | 0xabcdef);	/* flags_rqpn */
	dp_be16(cqe, 0x16, 0x44);		/* slid */
	/* SRQ: the WQE at wqe_counter 2 (the third posted). */
	cqe = dp_put_cqe(cq, 1, MLX5_CQE_RESP_SEND_INV, dp_uidx(sqp), sqp->qp_num,
			 0, 2);
	dp_be32(cqe, 0x24, 0x5566);		/* invalidated rkey */
	/* An error on the RQ: its next receive. */
	cqe = dp_put_cqe(cq, 2, MLX5_CQE_RESP_ERR, dp_uidx(qp), qp->qp_num, 0, 0);
	cqe[0x36] = 0x33;			/* vendor syndrome */
	cqe[0x37] = 0x04;			/* local protection */

	ck_assert_int_eq(ibv_start_poll(ex, &pa), 0);
	ck_assert_uint_eq(ex->wr_id, 0x100);
	ck_assert_int_eq(ex->status, IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_wc_read_opcode(ex), IBV_WC_RECV);
	ck_assert_uint_eq(ibv_wc_read_byte_len(ex), 33);
	ck_assert_uint_eq(be32toh(ibv_wc_read_imm_data(ex)), 0xa1b2c3d4);
	ck_assert_uint_eq(ibv_wc_read_wc_flags(ex), IBV_WC_WITH_IMM | IBV_WC_GRH);
	ck_assert_uint_eq(ibv_wc_read_src_qp(ex), 0xabcdef);
	ck_assert_uint_eq(ibv_wc_read_sl(ex), 5);
	ck_assert_uint_eq(ibv_wc_read_slid(ex), 0x44);
	ck_assert_int_eq(ibv_next_poll(ex), 0);
	ck_assert_uint_eq(ex->wr_id, 0x202);
	ck_assert_int_eq(ibv_wc_read_opcode(ex), IBV_WC_RECV);
	ck_assert_uint_eq(ibv_wc_read_wc_flags(ex), IBV_WC_WITH_INV);
	ck_assert_uint_eq(ibv_wc_read_invalidated_rkey(ex), 0x5566);
	ck_assert_int_eq(ibv_next_poll(ex), 0);
	ck_assert_uint_eq(ex->wr_id, 0x101);
	ck_assert_int_eq(ex->status, IBV_WC_LOC_PROT_ERR);
	ck_assert_uint_eq(ibv_wc_read_vendor_err(ex), 0x33);
	ck_assert_int_eq(ibv_next_poll(ex), ENOENT);
	ibv_end_poll(ex);

	/* The SRQ WQE went back to the free list: all but two of max_wr
	 * fit again. */
	for (uint64_t i = 0; i < sa.attr.max_wr - 2; i++) {
		rwr.wr_id = 0x300 + i;
		ck_assert_int_eq(ibv_post_srq_recv(srq, &rwr, &bad), 0);
	}
	ck_assert_int_eq(ibv_post_srq_recv(srq, &rwr, &bad), ENOMEM);
	ck_assert_int_eq(ibv_destroy_qp(sqp), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dp_cq");
	TCase *tc = tcase_create("cq");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_init_obj);
	tcase_add_test(tc, test_dv_owned);
	tcase_add_test(tc, test_cqe_size);
	tcase_add_test(tc, test_dv_create_cq);
	tcase_add_test(tc, test_cqe_128);
	tcase_add_test(tc, test_cqe_128_padded);
	tcase_add_test(tc, test_cq_ex_recv);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
