/* SPDX-License-Identifier: MIT */
/*
 * On-demand paging through the drop-in libraries and the engine: the ODP
 * capabilities ibv_query_device_ex reports; an ODP MR over memory that is
 * not mapped yet (which a pinned MR refuses with EFAULT), RDMA into it once
 * it is, and the error completion once it is gone again; the implicit MR
 * (addr NULL, length SIZE_MAX) reaching any buffer, and its iova and
 * access rules; ibv_advise_mr's errno for each of mlx5_ib's rules; what
 * ibv_rereg_mr makes of ODP.  The QP
 * is RC connected to itself.  With MLX5EMU_TEST_NO_ODP (the device
 * configured without `pg`) or on the hw backend, nothing of it is offered.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dp_test.h"

#define BUF 4096
#define ACC_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static uint8_t *src;
static struct ibv_mr *src_mr;
static struct ibv_qp *qp;

static void setup(void)
{
	union ibv_gid gid;

	qt_setup();
	src = vt_alloc(BUF);
	for (int i = 0; i < BUF; i++)
		src[i] = (uint8_t)(i * 7 + 1);
	src_mr = ibv_reg_mr(qt_pd, src, BUF, ACC_ALL);
	ck_assert_ptr_nonnull(src_mr);
	qp = qt_create(IBV_QPT_RC, 16, 4);
	gid = qt_gid(1);
	qt_rc_connect(qp, qp->qp_num, &gid, 1, IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		      0x100, 0x100);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(src_mr), 0);
	free(src);
	qt_teardown();
}

/* One signalled RDMA WRITE of len bytes from src (lkey) to raddr (rkey);
 * its completion's status. */
static enum ibv_wc_status write_one(uint32_t lkey, const void *laddr,
				    uint32_t rkey, const void *raddr,
				    uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)laddr, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)raddr, rkey },
	}, *bad;
	struct ibv_wc wc;

	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	wc = dp_poll_one(qt_cq);
	ck_assert_uint_eq(wc.wr_id, 7);
	return wc.status;
}

/* n pages the process cannot touch: PROT_NONE, so that nothing else
 * the test maps can land there meanwhile.  Pinning refuses them, and the
 * device faults on them as on pages that are not there. */
static uint8_t *hole(size_t n)
{
	uint8_t *p = mmap(NULL, n * BUF, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

static void map_at(uint8_t *p, size_t n, int prot)
{
	void *m = mmap(p, n * BUF, prot, MAP_PRIVATE | MAP_ANONYMOUS |
		       MAP_FIXED, -1, 0);

	ck_assert_ptr_eq(m, p);
}

/* A device without `pg`, or the hw backend, whose verbs MRs are DEVX
 * umems: no ODP is offered. */
static bool no_odp(void)
{
	return getenv("MLX5EMU_TEST_NO_ODP") || vt_backend_hw();
}

START_TEST(test_caps)
{
	struct ibv_device_attr_ex a;
	const uint32_t all = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			     IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
			     IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;

	ck_assert_int_eq(ibv_query_device_ex(qt_ctx, NULL, &a), 0);
	if (no_odp()) {
		ck_assert_uint_eq(a.odp_caps.general_caps, 0);
		ck_assert_uint_eq(a.odp_caps.per_transport_caps.rc_odp_caps, 0);
		ck_assert_uint_eq(a.xrc_odp_caps, 0);
		return;
	}
	ck_assert_uint_eq(a.odp_caps.general_caps,
			  IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT);
	ck_assert_uint_eq(a.odp_caps.per_transport_caps.rc_odp_caps, all);
	ck_assert_uint_eq(a.odp_caps.per_transport_caps.uc_odp_caps, 0);
	ck_assert_uint_eq(a.odp_caps.per_transport_caps.ud_odp_caps,
			  IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_SRQ_RECV);
	ck_assert_uint_eq(a.xrc_odp_caps, all);
}
END_TEST

START_TEST(test_unmapped_then_mapped)
{
	uint8_t *p = hole(2);
	struct ibv_mr *mr;

	/* Pinning needs the pages; ODP does not. */
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(qt_pd, p, 2 * BUF, ACC_ALL));
	ck_assert_int_eq(errno, EFAULT);
	mr = ibv_reg_mr(qt_pd, p, 2 * BUF, ACC_ALL | IBV_ACCESS_ON_DEMAND);
	if (no_odp()) {
		ck_assert_ptr_null(mr);
		ck_assert_int_eq(errno, EOPNOTSUPP);
		ck_assert_int_eq(munmap(p, 2 * BUF), 0);
		return;
	}
	ck_assert_msg(mr, "reg ODP: %s", strerror(errno));
	ck_assert_ptr_eq(mr->addr, p);
	ck_assert_uint_eq(mr->length, 2 * BUF);

	/* Mapped now: a WRITE lands across both pages. */
	map_at(p, 2, PROT_READ | PROT_WRITE);
	ck_assert_int_eq(write_one(src_mr->lkey, src, mr->rkey, p + 100, 4000),
			 IBV_WC_SUCCESS);
	ck_assert_mem_eq(p + 100, src, 4000);
	/* And out of it, through its lkey. */
	memset(src + 2048, 0, 1024);
	ck_assert_int_eq(write_one(mr->lkey, p + 2048 + 100, src_mr->rkey,
				   src + 2048, 1024), IBV_WC_SUCCESS);
	ck_assert_mem_eq(src + 2048, p + 2048 + 100, 1024);

	/* Gone again: the fault nobody resolves fails the WRITE where the
	 * responder meets it, and the QP with it. */
	map_at(p, 2, PROT_NONE);
	ck_assert_int_eq(write_one(src_mr->lkey, src, mr->rkey, p, 64),
			 IBV_WC_REM_ACCESS_ERR);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(munmap(p, 2 * BUF), 0);
}
END_TEST

START_TEST(test_implicit)
{
	uint8_t *dst = vt_alloc(BUF);
	struct ibv_mr *imr;

	errno = 0;
	imr = ibv_reg_mr(qt_pd, NULL, SIZE_MAX, ACC_ALL | IBV_ACCESS_ON_DEMAND);
	if (no_odp()) {
		ck_assert_ptr_null(imr);
		ck_assert_int_eq(errno, EOPNOTSUPP);
		free(dst);
		return;
	}
	ck_assert_msg(imr, "implicit: %s", strerror(errno));
	ck_assert_ptr_null(imr->addr);
	ck_assert_uint_eq(imr->length, SIZE_MAX);
	/* Any buffer, either side of the WRITE. */
	memset(dst, 0, BUF);
	ck_assert_int_eq(write_one(src_mr->lkey, src, imr->rkey, dst, BUF),
			 IBV_WC_SUCCESS);
	ck_assert_mem_eq(dst, src, BUF);
	memset(src, 0x5a, 512);
	ck_assert_int_eq(write_one(imr->lkey, src, imr->rkey, dst + 1000, 512),
			 IBV_WC_SUCCESS);
	ck_assert_mem_eq(dst + 1000, src, 512);
	ck_assert_int_eq(ibv_dereg_mr(imr), 0);

	/* create_user_odp_mr(): an implicit MR starts at iova 0. */
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr_iova(qt_pd, NULL, SIZE_MAX, 4096,
					   ACC_ALL | IBV_ACCESS_ON_DEMAND));
	ck_assert_int_eq(errno, EINVAL);
	/* Without ODP the same range is one that wraps (ib_umem_get). */
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(qt_pd, NULL, SIZE_MAX, ACC_ALL));
	ck_assert_int_eq(errno, EINVAL);
	free(dst);
}
END_TEST

static int advise(uint32_t advice, uint32_t flags, uint32_t lkey,
		  const void *addr, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };

	return ibv_advise_mr(qt_pd, (enum ibv_advise_mr_advice)advice, flags,
			     &sge, 1);
}

START_TEST(test_advise)
{
	enum { PF = IBV_ADVISE_MR_ADVICE_PREFETCH,
	       PFW = IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
	       NF = IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
	       SYNC = IBV_ADVISE_MR_FLAG_FLUSH };
	uint8_t *p = hole(2);
	struct ibv_mr *mr, *ro;
	struct ibv_pd *pd2;
	struct ibv_sge sge;
	uint32_t lkey;

	mr = ibv_reg_mr(qt_pd, p, 2 * BUF, ACC_ALL | IBV_ACCESS_ON_DEMAND);
	if (no_odp()) {
		ck_assert_ptr_null(mr);
		ck_assert_int_eq(advise(PF, SYNC, src_mr->lkey, src, 64),
				 EOPNOTSUPP);
		ck_assert_int_eq(munmap(p, 2 * BUF), 0);
		return;
	}
	ck_assert_ptr_nonnull(mr);
	ro = ibv_reg_mr(qt_pd, p, BUF, IBV_ACCESS_ON_DEMAND);
	ck_assert_ptr_nonnull(ro);

	/* The advice, the flags, the list. */
	ck_assert_int_eq(advise(3, SYNC, mr->lkey, p, 64), EOPNOTSUPP);
	ck_assert_int_eq(advise(PF, 2, mr->lkey, p, 64), EINVAL);
	sge = (struct ibv_sge){ (uintptr_t)p, 64, mr->lkey };
	ck_assert_int_eq(ibv_advise_mr(qt_pd, IBV_ADVISE_MR_ADVICE_PREFETCH, SYNC,
				       &sge, 0), EINVAL);
	/* Keys: no ODP MR, another PD, not writable for PREFETCH_WRITE:
	 * ENOENT when done now, EINVAL when queued. */
	ck_assert_int_eq(advise(PF, SYNC, src_mr->lkey, src, 64), ENOENT);
	ck_assert_int_eq(advise(PF, 0, src_mr->lkey, src, 64), EINVAL);
	ck_assert_int_eq(advise(PFW, SYNC, ro->lkey, p, 64), ENOENT);
	ck_assert_int_eq(advise(PFW, 0, ro->lkey, p, 64), EINVAL);
	ck_assert_int_eq(advise(PF, SYNC, ro->lkey, p, 64), EFAULT);
	pd2 = ibv_alloc_pd(qt_ctx);
	ck_assert_ptr_nonnull(pd2);
	sge = (struct ibv_sge){ (uintptr_t)p, 64, mr->lkey };
	ck_assert_int_eq(ibv_advise_mr(pd2, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
				       SYNC, &sge, 1), ENOENT);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);

	/* Nothing mapped: a fault-in fails now, a snapshot or queued work
	 * does not. */
	ck_assert_int_eq(advise(PF, SYNC, mr->lkey, p, 64), EFAULT);
	ck_assert_int_eq(advise(NF, SYNC, mr->lkey, p, 64), 0);
	ck_assert_int_eq(advise(PFW, 0, mr->lkey, p, 64), 0);
	/* Read-only pages: for reading yes, for writing no. */
	map_at(p, 2, PROT_READ);
	ck_assert_int_eq(advise(PF, SYNC, mr->lkey, p, 2 * BUF), 0);
	ck_assert_int_eq(advise(PFW, SYNC, mr->lkey, p, 2 * BUF), EFAULT);
	map_at(p, 2, PROT_READ | PROT_WRITE);
	ck_assert_int_eq(advise(PFW, SYNC, mr->lkey, p + 8, 2 * BUF - 8), 0);
	/* Outside the MR. */
	ck_assert_int_eq(advise(PF, SYNC, mr->lkey, p + 8, 2 * BUF), EFAULT);
	ck_assert_int_eq(advise(PF, SYNC, mr->lkey, p - 8, 16), EFAULT);

	ck_assert_int_eq(ibv_dereg_mr(ro), 0);
	lkey = mr->lkey;
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	/* A deregistered MR is no ODP MR any more. */
	ck_assert_int_eq(advise(PF, SYNC, lkey, p, 64), ENOENT);
	ck_assert_int_eq(munmap(p, 2 * BUF), 0);
}
END_TEST

START_TEST(test_rereg)
{
	const unsigned int odp = ACC_ALL | IBV_ACCESS_ON_DEMAND;
	uint8_t *p = hole(1);
	struct ibv_mr *mr;

	mr = ibv_reg_mr(qt_pd, p, BUF, odp);
	if (no_odp()) {
		ck_assert_ptr_null(mr);
		ck_assert_int_eq(munmap(p, BUF), 0);
		return;
	}
	ck_assert_ptr_nonnull(mr);
	/* An ODP MR has no umem to reuse (mlx5_ib_rereg_user_mr): without
	 * ON_DEMAND it is pinned anew, so its pages must be there. */
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, ACC_ALL), IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_int_eq(advise(IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
				IBV_ADVISE_MR_FLAG_FLUSH, mr->lkey, p, 64), 0);
	map_at(p, 1, PROT_READ | PROT_WRITE);
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, ACC_ALL), 0);
	ck_assert_int_eq(advise(IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
				IBV_ADVISE_MR_FLAG_FLUSH, mr->lkey, p, 64),
			 ENOENT);
	/* A pinned one keeps its umem whatever the access says: still no
	 * ODP MR; a new translation makes it one. */
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, odp), 0);
	ck_assert_int_eq(advise(IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
				IBV_ADVISE_MR_FLAG_FLUSH, mr->lkey, p, 64),
			 ENOENT);
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION |
				      IBV_REREG_MR_CHANGE_ACCESS, NULL, p, BUF,
				      odp), 0);
	ck_assert_int_eq(advise(IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
				IBV_ADVISE_MR_FLAG_FLUSH, mr->lkey, p, 64), 0);
	ck_assert_int_eq(write_one(src_mr->lkey, src, mr->rkey, p, 256),
			 IBV_WC_SUCCESS);
	ck_assert_mem_eq(p, src, 256);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(munmap(p, BUF), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dp_odp");
	TCase *tc = tcase_create("odp");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_caps);
	tcase_add_test(tc, test_unmapped_then_mapped);
	tcase_add_test(tc, test_implicit);
	tcase_add_test(tc, test_advise);
	tcase_add_test(tc, test_rereg);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
