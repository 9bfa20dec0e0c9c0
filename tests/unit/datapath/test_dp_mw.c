/* SPDX-License-Identifier: MIT */
/*
 * Memory windows end to end through the drop-in libraries and the engine:
 * ibv_alloc_mw / ibv_dealloc_mw and their errno; the UMR WQEs of
 * ibv_bind_mw, IBV_WR_BIND_MW, IBV_WR_LOCAL_INV and ibv_wr_bind_mw /
 * ibv_wr_local_inv byte for byte against images built from the PRM's
 * literal offsets, and the fence the WQE after them takes; RDMA through a
 * bound window (data where the window says); invalidation by rebind,
 * LOCAL_INV and SEND_WITH_INV; and each rule's completion status.  The
 * QP is RC connected to itself: every access is its own.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dp_test.h"

#define BUF 4096

static uint8_t *buf;
static struct ibv_mr *mr;

static void setup(void)
{
	qt_setup();
	buf = vt_alloc(BUF);
	memset(buf, 0, BUF);
	mr = ibv_reg_mr(qt_pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_MW_BIND);
	ck_assert_ptr_nonnull(mr);
}

static void teardown(void)
{
	if (mr)
		ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	free(buf);
	qt_teardown();
}

/* Polls qt_cq until one completion, 5 s at most. */
static struct ibv_wc poll_one(void)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = ibv_poll_cq(qt_cq, 1, &wc);
		ck_assert_int_ge(n, 0);
		clock_gettime(CLOCK_MONOTONIC, &t);
		ck_assert_msg(t.tv_sec - t0.tv_sec < 5, "no completion");
	} while (!n);
	return wc;
}

static void expect_wc(uint64_t wr_id, enum ibv_wc_status status,
		      enum ibv_wc_opcode opcode)
{
	struct ibv_wc wc = poll_one();

	ck_assert_msg(wc.status == status, "wr %llu: status %s, want %s",
		      (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status), ibv_wc_status_str(status));
	ck_assert_uint_eq(wc.wr_id, wr_id);
	if (status == IBV_WC_SUCCESS)
		ck_assert_int_eq(wc.opcode, opcode);
}

/* The end of a test: the QP, then the windows that are left. */
static void mw_done(struct ibv_qp *qp, struct ibv_mw *m1, struct ibv_mw *m2)
{
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	if (m1)
		ck_assert_int_eq(ibv_dealloc_mw(m1), 0);
	if (m2)
		ck_assert_int_eq(ibv_dealloc_mw(m2), 0);
}

/* RESET to RTS connected to itself, every remote access. */
static void mw_connect(struct ibv_qp *qp)
{
	union ibv_gid gid = qt_gid(1);

	qt_rc_connect(qp, qp->qp_num, &gid, 1, IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		      0x100, 0x100);
}

/* An RC QP on qt_pd connected to itself. */
static struct ibv_qp *mw_qp(void)
{
	struct ibv_qp *qp = qt_create(IBV_QPT_RC, 16, 4);

	mw_connect(qp);
	return qp;
}

static struct ibv_mw *mw_alloc(enum ibv_mw_type type)
{
	struct ibv_mw *mw = ibv_alloc_mw(qt_pd, type);

	ck_assert_msg(mw, "alloc_mw: %s", strerror(errno));
	return mw;
}

static struct ibv_mw_bind_info bind_info(struct ibv_mr *m, uint64_t off,
					 uint64_t len, unsigned int access)
{
	struct ibv_mw_bind_info bi = {
		.mr = m, .addr = (uintptr_t)buf + off, .length = len,
		.mw_access_flags = access,
	};

	return bi;
}

/* IBV_WR_BIND_MW of a type 2 window with ibv_inc_rkey's key. */
static uint32_t post_bind2(struct ibv_qp *qp, struct ibv_mw *mw,
			   const struct ibv_mw_bind_info *bi, uint64_t wr_id)
{
	struct ibv_send_wr wr = { .wr_id = wr_id, .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = *bi;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	return wr.bind_mw.rkey;
}

static void post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t rkey,
		      uint64_t raddr, uint64_t laddr, uint32_t len,
		      uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED,
				  .sg_list = &sge, .num_sge = 1 }, *bad;

	wr.wr.rdma.rkey = rkey;
	wr.wr.rdma.remote_addr = raddr;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
}

static void post_local_inv(struct ibv_qp *qp, uint32_t rkey, uint64_t wr_id)
{
	struct ibv_send_wr wr = { .wr_id = wr_id, .opcode = IBV_WR_LOCAL_INV,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.invalidate_rkey = rkey;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
}

/* ---- the UMR WQE images (PRM UMR control and mkey context) ---- */

/* The bytes set_bind_wr writes for a bind of [addr, addr + len) of lkey
 * with window rights @ctx_access (mkey context bits), new key @rkey. */
static void img_bind(uint8_t *w, bool type2, uint32_t qpn, uint32_t rkey,
		     uint8_t ctx_access, uint64_t addr, uint64_t start,
		     uint32_t len, uint32_t lkey)
{
	/* UMR control at 16: INLINE 0x80 | TRANSLATION_OFFSET 0x10, and
	 * CHECK_FREE 0x20 for type 2; 4 octowords of KLM; the mask: FREE
	 * 1<<29, MKEY 1<<13, LEN 1<<0, START_ADDR 1<<6, LW/RR/RW/ATOMIC
	 * 1<<18..21, and QPN 1<<14 for type 2. */
	w[16] = type2 ? 0xb0 : 0x90;
	dp_be16(w, 20, 4);
	dp_be64(w, 24, type2 ? 0x203c6041 : 0x203c2041);
	/* mkey context at 64: not free, rights, qpn (or 0xffffff) and the
	 * key byte, start address, length. */
	w[64 + 2] = ctx_access;
	dp_be32(w, 64 + 4, (type2 ? qpn << 8 : 0xffffff00u) | (rkey & 0xff));
	dp_be64(w, 64 + 16, start);
	dp_be64(w, 64 + 24, len);
	/* The KLM at 128: byte count, lkey, address; 48 zero bytes. */
	dp_be32(w, 128, len);
	dp_be32(w, 128 + 4, lkey);
	dp_be64(w, 128 + 8, addr);
}

/* A local invalidation: CHECK_QPN 0x08, no KLM, FREE|MKEY|QPN, free 0x40. */
static void img_inv(uint8_t *w)
{
	w[16] = 0x98;
	dp_be64(w, 24, 0x20006000);
	w[64] = 0x40;
	dp_be32(w, 64 + 4, 0xffffff00u);
}

START_TEST(test_alloc_dealloc)
{
	struct ibv_device_attr_ex attr;
	struct ibv_pd *pd = ibv_alloc_pd(qt_ctx);
	struct ibv_mw *m1, *m2;

	ck_assert_int_eq(ibv_query_device_ex(qt_ctx, NULL, &attr), 0);
	ck_assert(attr.orig_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW);
	ck_assert(attr.orig_attr.device_cap_flags &
		  IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	ck_assert_int_eq(attr.orig_attr.max_mw, 1 << 16);

	m1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	m2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(m1);
	ck_assert_ptr_nonnull(m2);
	ck_assert_int_eq(m1->type, IBV_MW_TYPE_1);
	ck_assert_int_eq(m2->type, IBV_MW_TYPE_2);
	ck_assert_ptr_eq(m1->pd, pd);
	ck_assert_ptr_eq(m1->context, qt_ctx);
	/* mkey_index << 8 | key byte: two mkeys, two indexes, and the key
	 * byte of consecutive mkeys goes up by one (mkey_var). */
	ck_assert_uint_ne(m1->rkey >> 8, m2->rkey >> 8);
	ck_assert_uint_eq((m1->rkey + 1) & 0xff, m2->rkey & 0xff);
	/* ib_uverbs_alloc_mw: only types 1 and 2. */
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_mw(pd, (enum ibv_mw_type)3));
	ck_assert_int_eq(errno, EINVAL);
	/* A window holds its PD. */
	ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);
	ck_assert_int_eq(ibv_dealloc_mw(m1), 0);
	ck_assert_int_eq(ibv_dealloc_mw(m2), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
}
END_TEST

START_TEST(test_bind_mw_errno)
{
	struct ibv_qp *qp = mw_qp();
	struct mlx5dv_qp dv = dp_dv(qp);
	struct ibv_pd *pd = ibv_alloc_pd(qt_ctx);
	struct ibv_mr *mr2 = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mw *m1 = mw_alloc(IBV_MW_TYPE_1), *m2 = mw_alloc(IBV_MW_TYPE_2);
	struct ibv_mw_bind b = { .bind_info = bind_info(mr, 0, 64, 0) };
	uint32_t rkey = m1->rkey;

	/* libibverbs: type 2 (EINVAL), no MR with a range (EINVAL), an MR
	 * of another PD (EPERM); libmlx5: zero based (EINVAL). */
	ck_assert_int_eq(ibv_bind_mw(qp, m2, &b), EINVAL);
	b.bind_info.mr = NULL;
	ck_assert_int_eq(ibv_bind_mw(qp, m1, &b), EINVAL);
	b.bind_info.mr = mr2;
	ck_assert_int_eq(ibv_bind_mw(qp, m1, &b), EPERM);
	b.bind_info.mr = mr;
	b.bind_info.mw_access_flags = IBV_ACCESS_ZERO_BASED;
	ck_assert_int_eq(ibv_bind_mw(qp, m1, &b), EINVAL);
	ck_assert_uint_eq(m1->rkey, rkey);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 0);
	mw_done(qp, m1, m2);
	ck_assert_int_eq(ibv_dereg_mr(mr2), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
}
END_TEST

/* ibv_bind_mw (type 1), IBV_WR_BIND_MW (type 2) and IBV_WR_LOCAL_INV,
 * byte for byte; the WQE after each takes the initiator small fence. */
START_TEST(test_wqe_bytes)
{
	struct ibv_qp *qp = mw_qp();
	struct mlx5dv_qp dv = dp_dv(qp);
	struct ibv_mw *m1 = mw_alloc(IBV_MW_TYPE_1), *m2 = mw_alloc(IBV_MW_TYPE_2);
	struct ibv_mw_bind b = {
		.wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = bind_info(mr, 64, 256, IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_LOCAL_WRITE),
	};
	struct ibv_mw_bind_info bi2 = bind_info(mr, 512, 128,
						IBV_ACCESS_REMOTE_READ |
						IBV_ACCESS_ZERO_BASED);
	uint32_t qpn = qp->qp_num, old = m1->rkey, k2;
	uint8_t want[192], got[192];

	ck_assert_int_eq(ibv_bind_mw(qp, m1, &b), 0);
	/* ibv_inc_rkey: the key byte goes up, the index stays. */
	ck_assert_uint_eq(m1->rkey, (old & ~0xffu) | ((old + 1) & 0xff));
	memset(want, 0, sizeof(want));
	dp_ctrl(want, 0, 0x25, qpn, 12, 0x08, htobe32(old));
	img_bind(want, false, qpn, m1->rkey, 0x28, (uintptr_t)buf + 64,
		 (uintptr_t)buf + 64, 256, mr->lkey);
	dp_sq_read(&dv, 0, got, 192);
	dp_expect_bytes(got, want, 192, "type 1 bind");
	expect_wc(1, IBV_WC_SUCCESS, IBV_WC_BIND_MW);

	/* The next WQE: fm 1 (0x20); zero-based: start address 0. */
	k2 = post_bind2(qp, m2, &bi2, 2);
	memset(want, 0, sizeof(want));
	dp_ctrl(want, 3, 0x25, qpn, 12, 0x20 | 0x08, htobe32(m2->rkey));
	img_bind(want, true, qpn, k2, 0x10, (uintptr_t)buf + 512, 0, 128,
		 mr->lkey);
	dp_sq_read(&dv, 3, got, 192);
	dp_expect_bytes(got, want, 192, "type 2 bind");
	expect_wc(2, IBV_WC_SUCCESS, IBV_WC_BIND_MW);

	post_local_inv(qp, k2, 3);
	memset(want, 0, sizeof(want));
	dp_ctrl(want, 6, 0x25, qpn, 8, 0x20 | 0x08, htobe32(k2));
	img_inv(want);
	dp_sq_read(&dv, 6, got, 128);
	dp_expect_bytes(got, want, 128, "local invalidation");
	expect_wc(3, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV);

	/* After the invalidation, a WRITE carries the fence; the one after
	 * it (no bind before) does not, unless it asks for IBV_SEND_FENCE. */
	post_rdma(qp, IBV_WR_RDMA_WRITE, mr->rkey, (uintptr_t)buf, (uintptr_t)buf + 8, 8, 4);
	ck_assert_uint_eq(dp_sq_bb(&dv, 8)[11], 0x20 | 0x08);
	post_rdma(qp, IBV_WR_RDMA_WRITE, mr->rkey, (uintptr_t)buf, (uintptr_t)buf + 8, 8, 5);
	ck_assert_uint_eq(dp_sq_bb(&dv, 9)[11], 0x08);
	expect_wc(4, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	expect_wc(5, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	ck_assert_uint_eq(dp_sq_dbr(&dv), 10);
	mw_done(qp, m1, m2);
}
END_TEST

/* ibv_wr_bind_mw / ibv_wr_local_inv: the same WQEs (always as type 2). */
START_TEST(test_wqe_bytes_wr_api)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RC, .send_cq = qt_cq, .recv_cq = qt_cq,
		.pd = qt_pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_BIND_MW |
				  IBV_QP_EX_WITH_LOCAL_INV |
				  IBV_QP_EX_WITH_RDMA_WRITE,
		.cap = { .max_send_wr = 8, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp_ex(qt_ctx, &a);
	struct ibv_mw *m2 = mw_alloc(IBV_MW_TYPE_2);
	struct ibv_mw_bind_info bi = bind_info(mr, 0, 1024,
					       IBV_ACCESS_REMOTE_WRITE);
	uint32_t k = ibv_inc_rkey(m2->rkey);
	struct mlx5dv_qp dv;
	struct ibv_qp_ex *qx;
	uint8_t want[192], got[192];

	ck_assert_ptr_nonnull(qp);
	mw_connect(qp);
	dv = dp_dv(qp);
	qx = ibv_qp_to_qp_ex(qp);
	ibv_wr_start(qx);
	qx->wr_id = 7;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qx, m2, k, &bi);
	qx->wr_id = 8;
	ibv_wr_local_inv(qx, k);
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	memset(want, 0, sizeof(want));
	dp_ctrl(want, 0, 0x25, qp->qp_num, 12, 0x08, htobe32(m2->rkey));
	img_bind(want, true, qp->qp_num, k, 0x20, (uintptr_t)buf,
		 (uintptr_t)buf, 1024, mr->lkey);
	dp_sq_read(&dv, 0, got, 192);
	dp_expect_bytes(got, want, 192, "wr_bind_mw");
	memset(want, 0, sizeof(want));
	dp_ctrl(want, 3, 0x25, qp->qp_num, 8, 0x20 | 0x08, htobe32(k));
	img_inv(want);
	dp_sq_read(&dv, 3, got, 128);
	dp_expect_bytes(got, want, 128, "wr_local_inv");
	expect_wc(7, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	expect_wc(8, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV);
	/* A failed batch puts the fence back as it was: the invalidation's,
	 * still owed to the next WQE. */
	ibv_wr_start(qx);
	bi.length = (1ull << 31) + 1;
	ibv_wr_bind_mw(qx, m2, k, &bi);
	ck_assert_int_eq(ibv_wr_complete(qx), EOPNOTSUPP);
	ibv_wr_start(qx);
	qx->wr_id = 9;
	ibv_wr_rdma_write(qx, mr->rkey, (uintptr_t)buf);
	ibv_wr_set_sge(qx, mr->lkey, (uintptr_t)buf + 8, 8);
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	ck_assert_uint_eq(dp_sq_bb(&dv, 5)[11], 0x20 | 0x08);
	expect_wc(9, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	mw_done(qp, NULL, m2);
}
END_TEST

/* RDMA through windows: the data lands where the window says. */
START_TEST(test_traffic)
{
	struct ibv_qp *qp = mw_qp();
	struct ibv_mw *m1 = mw_alloc(IBV_MW_TYPE_1), *m2 = mw_alloc(IBV_MW_TYPE_2);
	struct ibv_mw_bind b = {
		.wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = bind_info(mr, 1024, 512, IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ),
	};
	struct ibv_mw_bind_info zb = bind_info(mr, 2048, 256,
					       IBV_ACCESS_REMOTE_WRITE |
					       IBV_ACCESS_ZERO_BASED);
	uint32_t k2;

	for (int i = 0; i < 64; i++)
		buf[i] = (uint8_t)(0xa0 + i);
	ck_assert_int_eq(ibv_bind_mw(qp, m1, &b), 0);
	expect_wc(1, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	post_rdma(qp, IBV_WR_RDMA_WRITE, m1->rkey, (uintptr_t)buf + 1024 + 100,
		  (uintptr_t)buf, 32, 2);
	expect_wc(2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	ck_assert_mem_eq(buf + 1024 + 100, buf, 32);
	post_rdma(qp, IBV_WR_RDMA_READ, m1->rkey, (uintptr_t)buf + 1024 + 100,
		  (uintptr_t)buf + 3072, 32, 3);
	expect_wc(3, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
	ck_assert_mem_eq(buf + 3072, buf, 32);

	/* Zero based: remote address 16 is byte 16 of the range. */
	k2 = post_bind2(qp, m2, &zb, 4);
	expect_wc(4, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	post_rdma(qp, IBV_WR_RDMA_WRITE, k2, 16, (uintptr_t)buf + 32, 16, 5);
	expect_wc(5, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	ck_assert_mem_eq(buf + 2048 + 16, buf + 32, 16);

	/* Type 1 again over another range: the old key is gone. */
	b.wr_id = 6;
	b.bind_info = bind_info(mr, 0, 64, IBV_ACCESS_REMOTE_READ);
	k2 = m1->rkey;
	ck_assert_int_eq(ibv_bind_mw(qp, m1, &b), 0);
	ck_assert_uint_ne(m1->rkey, k2);
	expect_wc(6, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	post_rdma(qp, IBV_WR_RDMA_READ, k2, (uintptr_t)buf + 1024, (uintptr_t)buf + 3072,
		  8, 7);
	expect_wc(7, IBV_WC_REM_ACCESS_ERR, 0);
	mw_done(qp, m1, m2);
}
END_TEST

/* SEND_WITH_INV: the receive reports the key; the window is gone. */
START_TEST(test_remote_invalidate)
{
	struct ibv_qp *qp = mw_qp();
	struct ibv_mw *m2 = mw_alloc(IBV_MW_TYPE_2);
	struct ibv_mw_bind_info bi = bind_info(mr, 0, 256,
					       IBV_ACCESS_REMOTE_WRITE);
	struct ibv_sge sge = { .addr = (uintptr_t)buf + 2048, .length = 64,
			       .lkey = mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 10, .sg_list = &sge, .num_sge = 1 },
			   *rbad;
	struct ibv_send_wr swr = { .wr_id = 11, .opcode = IBV_WR_SEND_WITH_INV,
				   .send_flags = IBV_SEND_SIGNALED,
				   .sg_list = &sge, .num_sge = 1 }, *sbad;
	struct ibv_wc wc;
	uint32_t k = post_bind2(qp, m2, &bi, 1);

	expect_wc(1, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	ck_assert_int_eq(ibv_post_recv(qp, &rwr, &rbad), 0);
	swr.invalidate_rkey = k;
	ck_assert_int_eq(ibv_post_send(qp, &swr, &sbad), 0);
	for (int i = 0; i < 2; i++) {
		wc = poll_one();
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		if (wc.wr_id == 10) {
			ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
			ck_assert(wc.wc_flags & IBV_WC_WITH_INV);
			ck_assert_uint_eq(wc.invalidated_rkey, k);
		} else {
			ck_assert_uint_eq(wc.wr_id, 11);
			ck_assert_int_eq(wc.opcode, IBV_WC_SEND);
		}
	}
	post_rdma(qp, IBV_WR_RDMA_WRITE, k, (uintptr_t)buf, (uintptr_t)buf, 8, 12);
	expect_wc(12, IBV_WC_REM_ACCESS_ERR, 0);
	mw_done(qp, NULL, m2);
}
END_TEST

/* ---- each rule: one fresh QP, the status its first error completes with ---- */

enum mw_case {
	C_TYPE2_BOUND,		/* o10-37.2.30 */
	C_OUTSIDE_MR,		/* C10-75 */
	C_WRITE_ON_RO_MR,	/* C10-74 */
	C_MR_OTHER_PD,		/* the region's PD is the window's */
	C_TYPE1_ZERO_BASED,	/* o10-36.2.2 (posted, not ibv_bind_mw) */
	C_INV_TYPE1,		/* o10-37.2.26 */
	C_INV_WRONG_KEY,
	C_WRITE_RR_WINDOW,	/* the window's rights */
	C_WRITE_PAST_WINDOW,	/* the window's bounds */
	C_TYPE2_OTHER_QP,	/* bound to another QP */
	C_DEREG_MR,		/* the region went away */
	C_DEALLOC_BOUND,	/* the window went away */
	C_SEND_INV_TYPE1,	/* remote invalidation of a type 1 window */
	C_NUM
};

START_TEST(test_rules)
{
	enum mw_case c = (enum mw_case)_i;
	struct ibv_qp *qp = mw_qp();
	struct ibv_mw *m1 = mw_alloc(IBV_MW_TYPE_1), *m2 = mw_alloc(IBV_MW_TYPE_2);
	struct ibv_mw_bind_info bi = bind_info(mr, 0, 256,
					       IBV_ACCESS_REMOTE_WRITE);
	struct ibv_pd *pd = NULL;
	struct ibv_mr *ro = NULL;
	struct ibv_qp *qp2 = NULL;
	struct ibv_mw_bind b1 = { .wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
				  .bind_info = bi };
	uint64_t base = (uintptr_t)buf;
	uint32_t k;

	switch (c) {
	case C_TYPE2_BOUND:
		post_bind2(qp, m2, &bi, 1);
		expect_wc(1, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
		post_bind2(qp, m2, &bi, 2);
		expect_wc(2, IBV_WC_MW_BIND_ERR, 0);
		break;
	case C_OUTSIDE_MR:
		bi = bind_info(mr, BUF - 128, 256, IBV_ACCESS_REMOTE_WRITE);
		post_bind2(qp, m2, &bi, 2);
		expect_wc(2, IBV_WC_MW_BIND_ERR, 0);
		break;
	case C_WRITE_ON_RO_MR:
		ro = ibv_reg_mr(qt_pd, buf, BUF, IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_MW_BIND);
		ck_assert_ptr_nonnull(ro);
		bi = bind_info(ro, 0, 256, IBV_ACCESS_REMOTE_WRITE);
		post_bind2(qp, m2, &bi, 2);
		expect_wc(2, IBV_WC_MW_BIND_ERR, 0);
		break;
	case C_MR_OTHER_PD:
		pd = ibv_alloc_pd(qt_ctx);
		ro = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_MW_BIND);
		ck_assert_ptr_nonnull(ro);
		bi = bind_info(ro, 0, 256, IBV_ACCESS_REMOTE_WRITE);
		post_bind2(qp, m2, &bi, 2);
		expect_wc(2, IBV_WC_MW_BIND_ERR, 0);
		break;
	case C_TYPE1_ZERO_BASED:
		bi.mw_access_flags |= IBV_ACCESS_ZERO_BASED;
		post_bind2(qp, m1, &bi, 2);
		expect_wc(2, IBV_WC_MW_BIND_ERR, 0);
		break;
	case C_INV_TYPE1:
		ck_assert_int_eq(ibv_bind_mw(qp, m1, &b1), 0);
		expect_wc(1, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
		post_local_inv(qp, m1->rkey, 2);
		expect_wc(2, IBV_WC_MW_BIND_ERR, 0);
		break;
	case C_INV_WRONG_KEY:
		k = post_bind2(qp, m2, &bi, 1);
		expect_wc(1, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
		post_local_inv(qp, ibv_inc_rkey(k), 2);
		expect_wc(2, IBV_WC_MW_BIND_ERR, 0);
		break;
	case C_WRITE_RR_WINDOW:
		b1.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
		ck_assert_int_eq(ibv_bind_mw(qp, m1, &b1), 0);
		expect_wc(1, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
		post_rdma(qp, IBV_WR_RDMA_WRITE, m1->rkey, base, base + 512, 8, 2);
		expect_wc(2, IBV_WC_REM_ACCESS_ERR, 0);
		break;
	case C_WRITE_PAST_WINDOW:
		ck_assert_int_eq(ibv_bind_mw(qp, m1, &b1), 0);
		expect_wc(1, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
		post_rdma(qp, IBV_WR_RDMA_WRITE, m1->rkey, base + 252, base + 512,
			  8, 2);
		expect_wc(2, IBV_WC_REM_ACCESS_ERR, 0);
		break;
	case C_TYPE2_OTHER_QP:
		/* Bound to qp2; qp's access through it fails. */
		qp2 = mw_qp();
		k = post_bind2(qp2, m2, &bi, 1);
		expect_wc(1, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
		post_rdma(qp2, IBV_WR_RDMA_WRITE, k, base, base + 512, 8, 2);
		expect_wc(2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
		post_rdma(qp, IBV_WR_RDMA_WRITE, k, base, base + 512, 8, 3);
		expect_wc(3, IBV_WC_REM_ACCESS_ERR, 0);
		break;
	case C_DEREG_MR:
		ck_assert_int_eq(ibv_bind_mw(qp, m1, &b1), 0);
		expect_wc(1, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
		ro = mr;
		mr = ibv_reg_mr(qt_pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE);
		ck_assert_int_eq(ibv_dereg_mr(ro), 0);
		ro = NULL;
		post_rdma(qp, IBV_WR_RDMA_WRITE, m1->rkey, base, base + 512, 8, 2);
		expect_wc(2, IBV_WC_REM_ACCESS_ERR, 0);
		break;
	case C_DEALLOC_BOUND:
		ck_assert_int_eq(ibv_bind_mw(qp, m1, &b1), 0);
		expect_wc(1, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
		k = m1->rkey;
		ck_assert_int_eq(ibv_dealloc_mw(m1), 0);
		m1 = NULL;
		post_rdma(qp, IBV_WR_RDMA_WRITE, k, base, base + 512, 8, 2);
		expect_wc(2, IBV_WC_REM_ACCESS_ERR, 0);
		break;
	case C_SEND_INV_TYPE1: {
		struct ibv_sge sge = { .addr = base + 2048, .length = 8,
				       .lkey = mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 3, .sg_list = &sge,
					   .num_sge = 1 }, *rbad;
		struct ibv_send_wr swr = { .wr_id = 2,
					   .opcode = IBV_WR_SEND_WITH_INV,
					   .send_flags = IBV_SEND_SIGNALED,
					   .sg_list = &sge, .num_sge = 1 }, *sbad;
		struct ibv_wc wc;

		ck_assert_int_eq(ibv_bind_mw(qp, m1, &b1), 0);
		expect_wc(1, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
		ck_assert_int_eq(ibv_post_recv(qp, &rwr, &rbad), 0);
		swr.invalidate_rkey = m1->rkey;
		ck_assert_int_eq(ibv_post_send(qp, &swr, &sbad), 0);
		/* The receive completes in error, the request is NAKed. */
		for (int i = 0; i < 2; i++) {
			wc = poll_one();
			ck_assert_msg(wc.status == IBV_WC_REM_INV_REQ_ERR,
				      "wr %llu: %s", (unsigned long long)wc.wr_id,
				      ibv_wc_status_str(wc.status));
		}
		/* The window was not invalidated. */
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
		qp = mw_qp();
		post_rdma(qp, IBV_WR_RDMA_WRITE, m1->rkey, base, base + 512, 8, 4);
		expect_wc(4, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
		break;
	}
	default:
		break;
	}
	if (qp2)
		ck_assert_int_eq(ibv_destroy_qp(qp2), 0);
	mw_done(qp, m1, m2);
	if (ro)
		ck_assert_int_eq(ibv_dereg_mr(ro), 0);
	if (pd)
		ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
}
END_TEST

/* The vendor syndrome of the memory management operation error. */
START_TEST(test_bind_error_cqe)
{
	struct ibv_qp *qp = mw_qp();
	struct ibv_mw *m2 = mw_alloc(IBV_MW_TYPE_2);
	struct ibv_mw_bind_info bi = bind_info(mr, BUF - 8, 64,
					       IBV_ACCESS_REMOTE_READ);
	struct ibv_wc wc;

	post_bind2(qp, m2, &bi, 1);
	wc = poll_one();
	ck_assert_int_eq(wc.status, IBV_WC_MW_BIND_ERR);
	ck_assert_uint_eq(wc.vendor_err, 0xe9);
	ck_assert_uint_eq(qt_fw_state(qp), MLX5_QPC_STATE_ERR);
	mw_done(qp, NULL, m2);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dp_mw");
	TCase *tc = tcase_create("mw");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_alloc_dealloc);
	tcase_add_test(tc, test_bind_mw_errno);
	tcase_add_test(tc, test_wqe_bytes);
	tcase_add_test(tc, test_wqe_bytes_wr_api);
	tcase_add_test(tc, test_traffic);
	tcase_add_test(tc, test_remote_invalidate);
	tcase_add_loop_test(tc, test_rules, 0, C_NUM);
	tcase_add_test(tc, test_bind_error_cqe);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
