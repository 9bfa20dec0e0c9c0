/* SPDX-License-Identifier: MIT */
/*
 * Thread domains and parent domains, as rdma-core 44's libmlx5 gives
 * them: ibv_alloc_td's register from the pool of dedicated BlueFlame
 * registers (ALLOC_UAR when the pool is empty, seen through a command
 * rule), the EBUSY rules of ibv_dealloc_td and ibv_dealloc_pd, and queues
 * whose memory an application's allocator gives: what it is asked for
 * (resource types, sizes and alignments worked out here from libmlx5's
 * rules and the queue geometry mlx5dv_init_obj reports), that everything
 * goes back through its free callback, IBV_ALLOCATOR_USE_DEFAULT, a
 * failing allocator, and RC traffic through QPs, CQs and an SRQ living in
 * that memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mlx5emu/mlx5emu.h>

#include "dp_test.h"

#define PAGE 4096u
#define NREC 64
#define BUF 8192

/* What the allocator was asked, and what it gave. */
struct rec {
	uint64_t type;
	size_t size;
	size_t align;
	void *ptr;
	bool freed;
};

enum rec_mode { REC_ALLOC, REC_DEFAULT };

static struct rec recs[NREC];
static int nrec;
static int nfree;
static enum rec_mode mode;
static uint64_t fail_type;	/* answer NULL for this type (0: none) */
static int cookie;		/* the pd_context */
static struct ibv_pd *pdom;	/* the last parent domain made */
static struct ibv_pd *pdom_prev;	/* and the one before */

static void *rec_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t type)
{
	struct rec *r;
	void *p;

	ck_assert(pd == pdom || pd == pdom_prev);
	ck_assert_ptr_eq(pd_context, &cookie);
	ck_assert_int_lt(nrec, NREC);
	r = &recs[nrec++];
	*r = (struct rec){ .type = type, .size = size, .align = alignment };
	if (mode == REC_DEFAULT)
		return IBV_ALLOCATOR_USE_DEFAULT;
	if (type == fail_type)
		return NULL;
	ck_assert_int_eq(posix_memalign(&p, alignment < sizeof(void *) ?
					sizeof(void *) : alignment, size), 0);
	/* Stale bytes: nothing may count on the allocator zeroing. */
	memset(p, 0xa5, size);
	r->ptr = p;
	return p;
}

static void rec_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t type)
{
	ck_assert(pd == pdom || pd == pdom_prev);
	ck_assert_ptr_eq(pd_context, &cookie);
	for (int i = 0; i < nrec; i++) {
		if (recs[i].ptr != ptr || recs[i].freed)
			continue;
		ck_assert_uint_eq(recs[i].type, type);
		recs[i].freed = true;
		nfree++;
		free(ptr);
		return;
	}
	ck_abort_msg("free of %p, which the allocator did not give", ptr);
}

/* The record of the allocation of @ptr. */
static struct rec *rec_of(void *ptr)
{
	for (int i = 0; i < nrec; i++)
		if (recs[i].ptr == ptr)
			return &recs[i];
	ck_abort_msg("%p is not the allocator's", ptr);
	return NULL;
}

static void setup(void)
{
	qt_setup();
	memset(recs, 0, sizeof(recs));
	nrec = nfree = 0;
	mode = REC_ALLOC;
	fail_type = 0;
	pdom = pdom_prev = NULL;
}

static void teardown(void)
{
	mlx5emu_fault_clear();
	qt_teardown();
}

/* A parent domain on qt_pd with the recording allocator and @td. */
static struct ibv_pd *pdom_alloc(struct ibv_td *td)
{
	struct ibv_parent_domain_init_attr a = {
		.pd = qt_pd, .td = td,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = rec_alloc, .free = rec_free, .pd_context = &cookie,
	};

	pdom_prev = pdom;
	pdom = ibv_alloc_parent_domain(qt_ctx, &a);
	ck_assert_msg(pdom, "alloc_parent_domain: %s", strerror(errno));
	return pdom;
}

static struct ibv_qp *pdom_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			      struct ibv_srq *srq, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = qt_init_attr(type, 16, 16, 2, 2);
	struct ibv_qp *qp;

	a.send_cq = a.recv_cq = cq;
	a.srq = srq;
	if (srq)
		a.cap.max_recv_wr = a.cap.max_recv_sge = 0;
	qp = ibv_create_qp(pd, &a);
	ck_assert_msg(qp, "create_qp: %s", strerror(errno));
	return qp;
}

static struct ibv_cq *pdom_cq(struct ibv_pd *pd, int cqe)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = (uint32_t)cqe, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD, .parent_domain = pd,
	};
	struct ibv_cq_ex *cq = ibv_create_cq_ex(qt_ctx, &a);

	ck_assert_msg(cq, "create_cq_ex: %s", strerror(errno));
	return ibv_cq_ex_to_cq(cq);
}

static uint64_t rndup_pow2(uint64_t v)
{
	uint64_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

/* ---- thread domains ---- */

START_TEST(td_comp_mask_einval)
{
	struct ibv_td_init_attr a = { .comp_mask = 1 };

	errno = 0;
	ck_assert_ptr_null(ibv_alloc_td(qt_ctx, &a));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* Each TD takes a register of the pool; a UAR page holds two, so every
 * second TD needs ALLOC_UAR; a deallocated TD's register is reused. */
START_TEST(td_registers_from_pool)
{
	struct ibv_td_init_attr a = { 0 };
	struct mlx5emu_fault_stats st;
	struct ibv_td *td[3], *again;
	int id;

	id = mlx5emu_fault_add("delay opcode=ALLOC_UAR ms=1");
	ck_assert_int_ge(id, 0);
	for (int i = 0; i < 3; i++) {
		td[i] = ibv_alloc_td(qt_ctx, &a);
		ck_assert_ptr_nonnull(td[i]);
		ck_assert_ptr_eq(td[i]->context, qt_ctx);
	}
	/* rdma-core's pool below the hw backend has pages of its own. */
	if (vt_backend_hw()) {
		for (int i = 0; i < 3; i++)
			ck_assert_int_eq(ibv_dealloc_td(td[i]), 0);
		return;
	}
	ck_assert_int_eq(mlx5emu_fault_stats(id, &st), 0);
	ck_assert_uint_eq(st.matches, 2);
	ck_assert_int_eq(ibv_dealloc_td(td[2]), 0);
	again = ibv_alloc_td(qt_ctx, &a);
	ck_assert_ptr_nonnull(again);
	ck_assert_int_eq(mlx5emu_fault_stats(id, &st), 0);
	ck_assert_uint_eq(st.matches, 2);
	ck_assert_int_eq(ibv_dealloc_td(again), 0);
	ck_assert_int_eq(ibv_dealloc_td(td[1]), 0);
	ck_assert_int_eq(ibv_dealloc_td(td[0]), 0);
}
END_TEST

/* ALLOC_UAR refused (a UAR limit): the TD fails with the command's errno. */
START_TEST(td_alloc_uar_fails)
{
	struct ibv_td_init_attr a = { 0 };

	/* The rules see the emulator's commands, not rdma-core's below the
	 * hw backend. */
	if (vt_backend_hw())
		return;
	ck_assert_int_ge(mlx5emu_fault_add("fail opcode=ALLOC_UAR uid=user "
					   "syndrome=UAR_LIMIT"), 0);
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_td(qt_ctx, &a));
	ck_assert_int_eq(errno, ENOMEM);
}
END_TEST

START_TEST(td_busy_while_parent_domain)
{
	struct ibv_td_init_attr a = { 0 };
	struct ibv_td *td = ibv_alloc_td(qt_ctx, &a);
	struct ibv_pd *pd;

	ck_assert_ptr_nonnull(td);
	pd = pdom_alloc(td);
	ck_assert_int_eq(ibv_dealloc_td(td), EBUSY);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_dealloc_td(td), 0);
}
END_TEST

/* QPs of one TD ring its register (BlueFlame, 256 bytes); another TD's
 * QPs another one; a QP without TD none of theirs. */
START_TEST(td_qps_ring_its_register)
{
	struct ibv_td_init_attr a = { 0 };
	struct ibv_td *t1 = ibv_alloc_td(qt_ctx, &a);
	struct ibv_td *t2 = ibv_alloc_td(qt_ctx, &a);
	struct ibv_pd *p1, *p2;
	struct ibv_qp *q1, *q1b, *q2, *q0;
	struct mlx5dv_qp d1, d1b, d2, d0;

	ck_assert_ptr_nonnull(t1);
	ck_assert_ptr_nonnull(t2);
	p1 = pdom_alloc(t1);
	p2 = pdom_alloc(t2);
	q1 = pdom_qp(p1, qt_cq, NULL, IBV_QPT_RC);
	q1b = pdom_qp(p1, qt_cq, NULL, IBV_QPT_RC);
	q2 = pdom_qp(p2, qt_cq, NULL, IBV_QPT_RC);
	q0 = pdom_qp(qt_pd, qt_cq, NULL, IBV_QPT_RC);
	d1 = dp_dv(q1);
	d1b = dp_dv(q1b);
	d2 = dp_dv(q2);
	d0 = dp_dv(q0);
	ck_assert_ptr_eq(d1.bf.reg, d1b.bf.reg);
	ck_assert_ptr_ne(d1.bf.reg, d2.bf.reg);
	ck_assert_ptr_ne(d0.bf.reg, d1.bf.reg);
	ck_assert_ptr_ne(d0.bf.reg, d2.bf.reg);
	ck_assert_uint_eq(d1.bf.size, 256);
	ck_assert_uint_eq(d2.bf.size, 256);
	/* The parent domain is busy with its QPs; the TD with the PD. */
	ck_assert_int_eq(ibv_dealloc_pd(p1), EBUSY);
	ck_assert_int_eq(ibv_dealloc_td(t1), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(q1), 0);
	ck_assert_int_eq(ibv_dealloc_pd(p1), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(q1b), 0);
	ck_assert_int_eq(ibv_dealloc_pd(p1), 0);
	ck_assert_int_eq(ibv_dealloc_td(t1), 0);
	ck_assert_int_eq(ibv_destroy_qp(q2), 0);
	ck_assert_int_eq(ibv_destroy_qp(q0), 0);
	ck_assert_int_eq(ibv_dealloc_pd(p2), 0);
	ck_assert_int_eq(ibv_dealloc_td(t2), 0);
}
END_TEST

/* ---- parent domains ---- */

START_TEST(pdom_bad_attr_einval)
{
	struct ibv_parent_domain_init_attr a = { .pd = NULL };

	errno = 0;
	ck_assert_ptr_null(ibv_alloc_parent_domain(qt_ctx, &a));
	ck_assert_int_eq(errno, EINVAL);
	a.pd = qt_pd;
	a.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT << 1;
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_parent_domain(qt_ctx, &a));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* The parent domain stands for its PD (context, handle, pdn), which
 * cannot go before it; MRs on it do not keep it (libmlx5 counts only QPs
 * and CQs) but keep the PD. */
START_TEST(pdom_is_its_pd)
{
	struct ibv_parent_domain_init_attr a = { .pd = qt_pd };
	struct ibv_pd *pd = ibv_alloc_parent_domain(qt_ctx, &a);
	void *buf = vt_alloc(PAGE);
	struct ibv_mr *mr;

	ck_assert_ptr_nonnull(pd);
	ck_assert_ptr_eq(pd->context, qt_ctx);
	ck_assert_uint_eq(pd->handle, qt_pd->handle);
	ck_assert_uint_eq(vt_pdn(pd), vt_pdn(qt_pd));
	ck_assert_int_eq(ibv_dealloc_pd(qt_pd), EBUSY);
	mr = ibv_reg_mr(pd, buf, PAGE, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert_ptr_eq(mr->pd, pd);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	/* The MR still holds the PD, and goes after the parent domain. */
	ck_assert_int_eq(ibv_dealloc_pd(qt_pd), EBUSY);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	free(buf);
}
END_TEST

START_TEST(pdom_cq_needs_parent_domain)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 8, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD, .parent_domain = qt_pd,
	};

	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(qt_ctx, &a));
	ck_assert_int_eq(errno, EINVAL);
	a.parent_domain = NULL;
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(qt_ctx, &a));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* What the allocator is asked for a QP, a CQ and an SRQ, and that each
 * block comes back through free with its type. */
START_TEST(pdom_allocator_requests)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_pd *pd = pdom_alloc(NULL);
	struct mlx5dv_obj obj;
	struct mlx5dv_cq dcq;
	struct mlx5dv_srq dsrq;
	struct mlx5dv_qp dqp;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct rec *r;
	size_t sz, al;

	/* CQ: whole pages of 64-byte CQEs, page-aligned, then the record. */
	cq = pdom_cq(pd, 100);
	ck_assert_int_eq(nrec, 2);
	ck_assert_uint_eq(recs[0].type, MLX5DV_RES_TYPE_CQ);
	ck_assert_uint_eq(recs[0].size, 128 * 64);
	ck_assert_uint_eq(recs[0].align, PAGE);
	ck_assert_uint_eq(recs[1].type, MLX5DV_RES_TYPE_DBR);
	ck_assert_uint_eq(recs[1].size, 8);
	ck_assert_uint_eq(recs[1].align, 8);
	memset(&obj, 0, sizeof(obj));
	obj.cq.in = cq;
	obj.cq.out = &dcq;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ), 0);
	ck_assert_ptr_eq(dcq.buf, recs[0].ptr);
	ck_assert_ptr_eq(dcq.dbrec, recs[1].ptr);
	/* The record starts at 0; every CQE is invalid and software-owned. */
	ck_assert_uint_eq(dcq.dbrec[0], 0);
	ck_assert_uint_eq(dcq.dbrec[1], 0);
	for (unsigned int i = 0; i < dcq.cqe_cnt; i++)
		ck_assert_uint_eq(((uint8_t *)dcq.buf)[i * 64 + 63], 0xf0);

	/* SRQ: 16 WRs of one SGE: 2 * 16 + 1 WQEs rounded to 64, of 32
	 * bytes (next segment + one data segment), page-aligned. */
	srq = ibv_create_srq(pd, &sa);
	ck_assert_ptr_nonnull(srq);
	ck_assert_int_eq(nrec, 4);
	ck_assert_uint_eq(recs[2].type, MLX5DV_RES_TYPE_SRQ);
	ck_assert_uint_eq(recs[2].size, 64 * 32);
	ck_assert_uint_eq(recs[2].align, PAGE);
	ck_assert_uint_eq(recs[3].type, MLX5DV_RES_TYPE_DBR);
	memset(&obj, 0, sizeof(obj));
	obj.srq.in = srq;
	obj.srq.out = &dsrq;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_SRQ), 0);
	ck_assert_ptr_eq(dsrq.buf, recs[2].ptr);
	ck_assert_ptr_eq(dsrq.dbrec, recs[3].ptr);
	ck_assert_uint_eq(dsrq.stride, 32);

	/* QP: the ring rounded to its alignment, which is the larger of the
	 * largest stride and a 64th of the ring's power-of-two page span. */
	qp = pdom_qp(pd, cq, NULL, IBV_QPT_RC);
	ck_assert_int_eq(nrec, 6);
	dqp = dp_dv(qp);
	sz = (size_t)dqp.rq.wqe_cnt * dqp.rq.stride +
	     (size_t)dqp.sq.wqe_cnt * dqp.sq.stride;
	al = rndup_pow2((sz + PAGE - 1) / PAGE * PAGE) / 64;
	if (al < dqp.sq.stride)
		al = dqp.sq.stride;
	if (al < dqp.rq.stride)
		al = dqp.rq.stride;
	ck_assert_uint_eq(recs[4].type, MLX5DV_RES_TYPE_QP);
	ck_assert_uint_eq(recs[4].align, al);
	ck_assert_uint_eq(recs[4].size, (sz + al - 1) / al * al);
	ck_assert_uint_eq(recs[5].type, MLX5DV_RES_TYPE_DBR);
	ck_assert_uint_eq(recs[5].size, 8);
	ck_assert_ptr_eq(dqp.rq.buf, recs[4].ptr);
	ck_assert_ptr_eq(dqp.sq.buf, (uint8_t *)recs[4].ptr +
				     (size_t)dqp.rq.wqe_cnt * dqp.rq.stride);
	ck_assert_ptr_eq(dqp.dbrec, recs[5].ptr);
	/* The record starts at 0 (see qbuf.c: this device reads it). */
	ck_assert_uint_eq(dqp.dbrec[0], 0);
	ck_assert_uint_eq(dqp.dbrec[1], 0);

	/* The CQ is busy with the QP; all goes back through free. */
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(nfree, 2);
	ck_assert(rec_of(dqp.dbrec)->freed);
	ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);	/* the CQ */
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(nfree, 6);
	for (int i = 0; i < nrec; i++)
		ck_assert(recs[i].freed);
	r = rec_of(dcq.buf);
	ck_assert_uint_eq(r->type, MLX5DV_RES_TYPE_CQ);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
}
END_TEST

/* IBV_ALLOCATOR_USE_DEFAULT: the provider's own memory, page-aligned,
 * zeroed, and nothing handed to free. */
START_TEST(pdom_use_default)
{
	struct ibv_pd *pd = pdom_alloc(NULL);
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct mlx5dv_qp dqp;

	mode = REC_DEFAULT;
	cq = pdom_cq(pd, 16);
	qp = pdom_qp(pd, cq, NULL, IBV_QPT_RC);
	ck_assert_int_eq(nrec, 4);
	ck_assert_uint_eq(recs[2].type, MLX5DV_RES_TYPE_QP);
	ck_assert_uint_eq(recs[3].type, MLX5DV_RES_TYPE_DBR);
	dqp = dp_dv(qp);
	ck_assert_uint_eq((uintptr_t)dqp.rq.buf % PAGE, 0);
	ck_assert_uint_eq(((uint8_t *)dqp.sq.buf)[0], 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(nfree, 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
}
END_TEST

/* An allocator answering NULL: ENOMEM, and what it gave before comes
 * back through free. */
START_TEST(pdom_allocator_fails)
{
	struct ibv_pd *pd = pdom_alloc(NULL);
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 16, 16, 1, 1);
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 8, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD, .parent_domain = pd,
	};

	fail_type = MLX5DV_RES_TYPE_DBR;
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(pd, &a));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_int_eq(nrec, 2);
	ck_assert_int_eq(nfree, 1);
	ck_assert(recs[0].freed);
	fail_type = MLX5DV_RES_TYPE_CQ;
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(qt_ctx, &ca));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_int_eq(nrec, 3);
	ck_assert_int_eq(nfree, 1);
	/* Nothing holds the parent domain. */
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
}
END_TEST

/* ---- traffic through the allocator's memory ---- */

/*
 * Two RC QPs on a parent domain with a TD, their CQ and an SRQ in the
 * allocator's (stale) memory: SEND into the SRQ, RDMA WRITE and READ.
 */
static void traffic(bool with_td)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_td_init_attr ta = { 0 };
	struct ibv_td *td = with_td ? ibv_alloc_td(qt_ctx, &ta) : NULL;
	struct ibv_pd *pd = pdom_alloc(td);
	uint8_t *buf = vt_alloc(BUF);
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge rsge;
	union ibv_gid gid;
	struct ibv_qp *a, *b;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_wc wc;

	ck_assert(!with_td || td);
	cq = pdom_cq(pd, 64);
	srq = ibv_create_srq(pd, &sa);
	ck_assert_ptr_nonnull(srq);
	a = pdom_qp(pd, cq, NULL, IBV_QPT_RC);
	b = pdom_qp(pd, cq, srq, IBV_QPT_RC);
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(mr);
	gid = qt_gid(1);
	qt_rc_connect(a, b->qp_num, &gid, 1, IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_READ, 0x100, 0x100);
	qt_rc_connect(b, a->qp_num, &gid, 1, IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_READ, 0x100, 0x100);

	for (int i = 0; i < 256; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	rsge = (struct ibv_sge){ (uintptr_t)buf + 1024, 512, mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 77, .sg_list = &rsge, .num_sge = 1 };
	ck_assert_int_eq(ibv_post_srq_recv(srq, &rwr, &rbad), 0);
	dp_post1(a, IBV_WR_SEND, buf, 256, mr->lkey, 0, 0);
	for (int n = 0; n < 2; n++) {
		wc = dp_poll_one(cq);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		if (wc.opcode == IBV_WC_RECV) {
			ck_assert_uint_eq(wc.wr_id, 77);
			ck_assert_uint_eq(wc.qp_num, b->qp_num);
			ck_assert_uint_eq(wc.byte_len, 256);
		} else {
			ck_assert_int_eq(wc.opcode, IBV_WC_SEND);
		}
	}
	ck_assert_int_eq(memcmp(buf + 1024, buf, 256), 0);

	dp_post1(a, IBV_WR_RDMA_WRITE, buf, 300, mr->lkey,
		 (uintptr_t)buf + 4096, mr->rkey);
	wc = dp_poll_one(cq);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_WRITE);
	ck_assert_int_eq(memcmp(buf + 4096, buf, 256), 0);
	dp_post1(b, IBV_WR_RDMA_READ, buf + 6144, 300, mr->lkey,
		  (uintptr_t)buf + 4096, mr->rkey);
	wc = dp_poll_one(cq);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_READ);
	ck_assert_int_eq(memcmp(buf + 6144, buf + 4096, 300), 0);

	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	if (td)
		ck_assert_int_eq(ibv_dealloc_td(td), 0);
	/* CQ, SRQ, two QPs: a ring and a record each, all given back. */
	ck_assert_int_eq(nrec, 8);
	ck_assert_int_eq(nfree, 8);
	free(buf);
}

START_TEST(pdom_traffic)
{
	traffic(false);
}
END_TEST

START_TEST(pdom_traffic_td)
{
	traffic(true);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dp_pdom");
	TCase *tc = tcase_create("td");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, td_comp_mask_einval);
	tcase_add_test(tc, td_registers_from_pool);
	tcase_add_test(tc, td_alloc_uar_fails);
	tcase_add_test(tc, td_busy_while_parent_domain);
	tcase_add_test(tc, td_qps_ring_its_register);
	suite_add_tcase(s, tc);
	tc = tcase_create("pdom");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pdom_bad_attr_einval);
	tcase_add_test(tc, pdom_is_its_pd);
	tcase_add_test(tc, pdom_cq_needs_parent_domain);
	tcase_add_test(tc, pdom_allocator_requests);
	tcase_add_test(tc, pdom_use_default);
	tcase_add_test(tc, pdom_allocator_fails);
	suite_add_tcase(s, tc);
	tc = tcase_create("traffic");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pdom_traffic);
	tcase_add_test(tc, pdom_traffic_td);
	suite_add_tcase(s, tc);
	return vt_run(s);
}
