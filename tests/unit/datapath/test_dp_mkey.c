/* SPDX-License-Identifier: MIT */
/*
 * Indirect mkeys end to end through the drop-in libraries and the engine:
 * mlx5dv_create_mkey / mlx5dv_destroy_mkey and their errno; the UMR WQE
 * of mlx5dv_wr_mr_list byte for byte against an image built from the
 * PRM's literal offsets; RDMA WRITE from and RDMA READ into a KLM list
 * and an interleaved (repeat block) layout, with the bytes where the
 * layout puts them and nowhere else; the local protection error past the
 * layout and after LOCAL_INV; and the batch errors of the mkey setters.
 * The QP is RC connected to itself.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp_test.h"

#define BUF 4096
#define SRC 3000	/* a plain region's bytes the reads take */
#define DST 2048	/* where the writes land */

static uint8_t *buf;
static struct ibv_mr *mr;

static void setup(void)
{
	qt_setup();
	buf = vt_alloc(BUF);
	memset(buf, 0, BUF);
	mr = ibv_reg_mr(qt_pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(mr);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	free(buf);
	qt_teardown();
}

/* An RC QP with every mkey op and RDMA, connected to itself. */
static struct ibv_qp *mkey_qp(uint32_t inl)
{
	struct ibv_qp_init_attr_ex a = { 0 };
	struct mlx5dv_qp_init_attr dv = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
		.send_ops_flags = MLX5DV_QP_EX_WITH_MR_LIST |
				  MLX5DV_QP_EX_WITH_MR_INTERLEAVED |
				  MLX5DV_QP_EX_WITH_MKEY_CONFIGURE,
	};
	union ibv_gid gid = qt_gid(1);
	struct ibv_qp *qp;

	a.qp_type = IBV_QPT_RC;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.pd = qt_pd;
	a.send_cq = qt_cq;
	a.recv_cq = qt_cq;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
			   IBV_QP_EX_WITH_RDMA_READ;
	a.cap.max_send_wr = 16;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_wr = 4;
	a.cap.max_recv_sge = 1;
	a.cap.max_inline_data = inl;
	qp = mlx5dv_create_qp(qt_ctx, &a, &dv);
	ck_assert_msg(qp, "mlx5dv_create_qp: %s", strerror(errno));
	qt_rc_connect(qp, qp->qp_num, &gid, 1, IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_READ, 0x100, 0x100);
	return qp;
}

static struct mlx5dv_mkey *mkey_create(uint32_t flags, uint16_t entries)
{
	struct mlx5dv_mkey_init_attr ia = {
		.pd = qt_pd, .create_flags = flags, .max_entries = entries,
	};
	struct mlx5dv_mkey *m = mlx5dv_create_mkey(&ia);

	ck_assert_msg(m, "mlx5dv_create_mkey: %s", strerror(errno));
	return m;
}

static void expect_wc(enum ibv_wc_status status, enum ibv_wc_opcode opcode)
{
	struct ibv_wc wc = dp_poll_one(qt_cq);

	ck_assert_msg(wc.status == status, "status %s, want %s",
		      ibv_wc_status_str(wc.status), ibv_wc_status_str(status));
	if (status == IBV_WC_SUCCESS)
		ck_assert_int_eq(wc.opcode, opcode);
}

/* One RDMA of @len through @lkey at 0 to/from the plain region. */
static void rdma(struct ibv_qp *qp, bool write, uint32_t lkey, uint32_t len,
		 uint64_t remote)
{
	struct ibv_qp_ex *ex = ibv_qp_to_qp_ex(qp);

	ibv_wr_start(ex);
	ex->wr_flags = IBV_SEND_SIGNALED;
	if (write)
		ibv_wr_rdma_write(ex, mr->rkey, (uintptr_t)buf + remote);
	else
		ibv_wr_rdma_read(ex, mr->rkey, (uintptr_t)buf + remote);
	ibv_wr_set_sge(ex, lkey, 0, len);
	ck_assert_int_eq(ibv_wr_complete(ex), 0);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

START_TEST(create_errors)
{
	struct mlx5dv_mkey_init_attr ia = { .pd = qt_pd, .max_entries = 3 };
	struct mlx5dv_mkey *m;
	static const uint32_t refused[] = {
		0,	/* no flag */
		MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
			MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE,
		MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
			MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO,
		MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
			MLX5DV_MKEY_INIT_ATTR_FLAGS_UPDATE_TAG,
		1u << 10,
	};
	struct mlx5dv_mkey_err err;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		ia.create_flags = refused[i];
		errno = 0;
		ck_assert_ptr_null(mlx5dv_create_mkey(&ia));
		ck_assert_int_eq(errno, EOPNOTSUPP);
	}
	/* max_entries comes back rounded to 4; key byte 0; lkey = rkey. */
	ia.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
	m = mlx5dv_create_mkey(&ia);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(ia.max_entries, 4);
	ck_assert_uint_eq(m->lkey & 0xff, 0);
	ck_assert_uint_eq(m->lkey, m->rkey);
	/* No signature context: mkey_check is EINVAL. */
	ck_assert_int_eq(mlx5dv_mkey_check(m, &err), EINVAL);
	ck_assert_int_eq(mlx5dv_destroy_mkey(m), 0);
}
END_TEST

START_TEST(mr_list_wqe_and_data)
{
	struct ibv_qp *qp = mkey_qp(0);
	struct ibv_qp_ex *ex = ibv_qp_to_qp_ex(qp);
	struct mlx5dv_qp_ex *dvx = mlx5dv_qp_ex_from_ibv_qp_ex(ex);
	struct mlx5dv_mkey *m = mkey_create(MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT,
					    3);
	struct mlx5dv_qp dv = dp_dv(qp);
	struct ibv_sge sge[2] = {
		{ (uintptr_t)buf, 8, mr->lkey },
		{ (uintptr_t)buf + 64, 8, mr->lkey },
	};
	uint8_t want[4 * DP_BB] = { 0 }, got[4 * DP_BB];

	ibv_wr_start(ex);
	ex->wr_id = 7;
	ex->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	mlx5dv_wr_mr_list(dvx, m, IBV_ACCESS_LOCAL_WRITE, 2, sge);
	ck_assert_int_eq(ibv_wr_complete(ex), 0);
	expect_wc(IBV_WC_SUCCESS, IBV_WC_DRIVER1);
	/* ctrl (UMR 0x25, 12 octowords, CQ update, imm the mkey); UMR
	 * control: flags INLINE (0x80), klm_octowords 4 at byte 4, mask
	 * FREE (bit 29), rights (18..21), MKEY (13), LEN (0) at 8;
	 * mkey context: qpn_mkey 0xffffff00 at 4, access LOCAL_WRITE (0x08)
	 * at 2, len 16 at 24; two KLMs {byte_count, lkey, addr}, two zero. */
	dp_ctrl(want, 0, 0x25, qp->qp_num, 12, 0x08, htobe32(m->lkey));
	want[16] = 0x80;
	want[16 + 5] = 4;
	put64(want + 16 + 8, 1ull << 29 | 1ull << 21 | 1ull << 20 |
			     1ull << 19 | 1ull << 18 | 1ull << 13 | 1ull << 0);
	want[64 + 2] = 0x08;
	put32(want + 64 + 4, 0xffffff00u);
	put64(want + 64 + 24, 16);
	put32(want + 128, 8);
	put32(want + 128 + 4, mr->lkey);
	put64(want + 128 + 8, (uintptr_t)buf);
	put32(want + 144, 8);
	put32(want + 144 + 4, mr->lkey);
	put64(want + 144 + 8, (uintptr_t)buf + 64);
	dp_sq_read(&dv, 0, got, 192);
	ck_assert_mem_eq(got, want, 192);

	/* WRITE gathers [buf, +8) then [buf + 64, +8). */
	for (int i = 0; i < 8; i++) {
		buf[i] = (uint8_t)(0xa0 + i);
		buf[64 + i] = (uint8_t)(0xb0 + i);
	}
	rdma(qp, true, m->lkey, 16, DST);
	expect_wc(IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	ck_assert_mem_eq(buf + DST, buf, 8);
	ck_assert_mem_eq(buf + DST + 8, buf + 64, 8);
	/* READ scatters 16 bytes back the same way, nothing between. */
	for (int i = 0; i < 16; i++)
		buf[SRC + i] = (uint8_t)(0x10 + i);
	memset(buf, 0xee, 80);
	rdma(qp, false, m->lkey, 16, SRC);
	expect_wc(IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
	ck_assert_mem_eq(buf, buf + SRC, 8);
	ck_assert_mem_eq(buf + 64, buf + SRC + 8, 8);
	for (int i = 8; i < 64; i++)
		ck_assert_uint_eq(buf[i], 0xee);
	ck_assert_uint_eq(buf[72], 0xee);
	/* Past the layout: a local protection error. */
	rdma(qp, true, m->lkey, 17, DST);
	expect_wc(IBV_WC_LOC_PROT_ERR, 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(mlx5dv_destroy_mkey(m), 0);
}
END_TEST

START_TEST(interleaved_data)
{
	struct ibv_qp *qp = mkey_qp(0);
	struct ibv_qp_ex *ex = ibv_qp_to_qp_ex(qp);
	struct mlx5dv_qp_ex *dvx = mlx5dv_qp_ex_from_ibv_qp_ex(ex);
	struct mlx5dv_mkey *m = mkey_create(MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT,
					    4);
	struct mlx5dv_mr_interleaved il[2] = {
		{ (uintptr_t)buf, 8, 2, mr->lkey },
		{ (uintptr_t)buf + 64, 4, 4, mr->lkey },
	};
	struct mlx5dv_qp dv = dp_dv(qp);
	uint8_t rb[32];

	ibv_wr_start(ex);
	ex->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	mlx5dv_wr_mr_interleaved(dvx, m, IBV_ACCESS_LOCAL_WRITE, 2, 2, il);
	ck_assert_int_eq(ibv_wr_complete(ex), 0);
	expect_wc(IBV_WC_SUCCESS, IBV_WC_DRIVER1);
	/* The repeat block at byte 128: byte_count 12, op 0x400, repeat 2,
	 * num_ent 2; entry 0 {stride 10, byte_count 8, lkey, va}. */
	memcpy(rb, dp_sq_bb(&dv, 2), sizeof(rb));
	ck_assert_uint_eq(be32toh(*(uint32_t *)(void *)rb), 12);
	ck_assert_uint_eq(be32toh(*(uint32_t *)(void *)(rb + 4)), 0x400);
	ck_assert_uint_eq(be32toh(*(uint32_t *)(void *)(rb + 8)), 2);
	ck_assert_uint_eq(be16toh(*(uint16_t *)(void *)(rb + 14)), 2);
	ck_assert_uint_eq(be16toh(*(uint16_t *)(void *)(rb + 16)), 10);
	ck_assert_uint_eq(be16toh(*(uint16_t *)(void *)(rb + 18)), 8);
	/* 24 bytes: [0, 8) [64, 68) [10, 18) [72, 76). */
	for (int i = 0; i < 24; i++)
		buf[SRC + i] = (uint8_t)(0x40 + i);
	memset(buf, 0xee, 80);
	rdma(qp, false, m->lkey, 24, SRC);
	expect_wc(IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
	ck_assert_mem_eq(buf, buf + SRC, 8);
	ck_assert_mem_eq(buf + 64, buf + SRC + 8, 4);
	ck_assert_mem_eq(buf + 10, buf + SRC + 12, 8);
	ck_assert_mem_eq(buf + 72, buf + SRC + 20, 4);
	ck_assert_uint_eq(buf[8], 0xee);
	ck_assert_uint_eq(buf[9], 0xee);
	ck_assert_uint_eq(buf[18], 0xee);
	for (int i = 68; i < 72; i++)
		ck_assert_uint_eq(buf[i], 0xee);
	ck_assert_uint_eq(buf[76], 0xee);
	/* And WRITE gathers in the same order. */
	rdma(qp, true, m->lkey, 24, DST);
	expect_wc(IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	ck_assert_mem_eq(buf + DST, buf + SRC, 24);
	/* LOCAL_INV frees it: the next access is a protection error. */
	ibv_wr_start(ex);
	ex->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(ex, m->lkey);
	ck_assert_int_eq(ibv_wr_complete(ex), 0);
	expect_wc(IBV_WC_SUCCESS, IBV_WC_LOCAL_INV);
	rdma(qp, true, m->lkey, 8, DST);
	expect_wc(IBV_WC_LOC_PROT_ERR, 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(mlx5dv_destroy_mkey(m), 0);
}
END_TEST

START_TEST(setter_errors)
{
	struct ibv_qp *qp = mkey_qp(64);
	struct ibv_qp_ex *ex = ibv_qp_to_qp_ex(qp);
	struct mlx5dv_qp_ex *dvx = mlx5dv_qp_ex_from_ibv_qp_ex(ex);
	struct mlx5dv_mkey *m = mkey_create(MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT,
					    4);
	struct mlx5dv_mkey_conf_attr ca = { 0 };
	struct ibv_sge sge[5];
	struct mlx5dv_sig_block_attr sa = { 0 };

	for (int i = 0; i < 5; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)buf + 16 * i, 8,
					   mr->lkey };
	/* Not inline: EOPNOTSUPP. */
	ibv_wr_start(ex);
	ex->wr_flags = IBV_SEND_SIGNALED;
	mlx5dv_wr_mkey_configure(dvx, m, 2, &ca);
	ck_assert_int_eq(ibv_wr_complete(ex), EOPNOTSUPP);
	/* A setter without a configure; rights twice; a bad right; a
	 * signature on an mkey without one: EINVAL. */
	ibv_wr_start(ex);
	mlx5dv_wr_set_mkey_access_flags(dvx, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_int_eq(ibv_wr_complete(ex), EINVAL);
	ibv_wr_start(ex);
	ex->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	mlx5dv_wr_mkey_configure(dvx, m, 3, &ca);
	mlx5dv_wr_set_mkey_access_flags(dvx, IBV_ACCESS_LOCAL_WRITE);
	mlx5dv_wr_set_mkey_access_flags(dvx, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_int_eq(ibv_wr_complete(ex), EINVAL);
	ibv_wr_start(ex);
	mlx5dv_wr_mkey_configure(dvx, m, 2, &ca);
	mlx5dv_wr_set_mkey_access_flags(dvx, IBV_ACCESS_MW_BIND);
	ck_assert_int_eq(ibv_wr_complete(ex), EINVAL);
	ibv_wr_start(ex);
	mlx5dv_wr_mkey_configure(dvx, m, 2, &ca);
	mlx5dv_wr_set_mkey_sig_block(dvx, &sa);
	ck_assert_int_eq(ibv_wr_complete(ex), EINVAL);
	/* More entries than the mkey was made for: ENOMEM. */
	ibv_wr_start(ex);
	mlx5dv_wr_mr_list(dvx, m, IBV_ACCESS_LOCAL_WRITE, 5, sge);
	ck_assert_int_eq(ibv_wr_complete(ex), ENOMEM);
	/* Nothing was posted by the failed batches; a good one works. */
	ibv_wr_start(ex);
	mlx5dv_wr_mr_list(dvx, m, IBV_ACCESS_LOCAL_WRITE, 4, sge);
	ck_assert_int_eq(ibv_wr_complete(ex), 0);
	expect_wc(IBV_WC_SUCCESS, IBV_WC_DRIVER1);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(mlx5dv_destroy_mkey(m), 0);
}
END_TEST

static Suite *dp_mkey_suite(void)
{
	Suite *s = suite_create("dp_mkey");
	TCase *tc = tcase_create("mkey");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, create_errors);
	tcase_add_test(tc, mr_list_wqe_and_data);
	tcase_add_test(tc, interleaved_data);
	tcase_add_test(tc, setter_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(dp_mkey_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
