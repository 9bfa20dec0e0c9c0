/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_set_context_attr(MLX5DV_CTX_ATTR_BUF_ALLOCATORS), as libmlx5 44
 * uses a context's allocators (buf.c mlx5_alloc_buf_extern, dbrec.c): the
 * queue buffers of CQs and QPs (each asked for its page-rounded size),
 * doorbell records from whole pages of them (a page goes back with its
 * last record), RC traffic through all of it, NULL as ENOMEM, ENOTSUP for
 * another attribute, and a parent domain's allocator first (its
 * USE_DEFAULT hands buffers to the default allocation, and records to the
 * context's pages).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp_test.h"

#define PAGE 4096u
#define NREC 32

struct xrec {
	size_t size;
	void *ptr;
	bool freed;
};

static struct xrec xrecs[NREC];
static int nx, nxfree;
static bool xfail;
static int xcookie;

static void *x_alloc(size_t size, void *data)
{
	struct xrec *r;
	void *p;

	ck_assert_ptr_eq(data, &xcookie);
	ck_assert_int_lt(nx, NREC);
	r = &xrecs[nx++];
	*r = (struct xrec){ .size = size };
	if (xfail)
		return NULL;
	ck_assert_int_eq(posix_memalign(&p, PAGE, size), 0);
	memset(p, 0xa5, size);	/* stale bytes */
	r->ptr = p;
	return p;
}

static void x_free(void *ptr, void *data)
{
	ck_assert_ptr_eq(data, &xcookie);
	for (int i = 0; i < nx; i++) {
		if (xrecs[i].ptr != ptr || xrecs[i].freed)
			continue;
		xrecs[i].freed = true;
		nxfree++;
		free(ptr);
		return;
	}
	ck_abort_msg("free of %p, which the allocator did not give", ptr);
}

/* The allocation holding [p, p + len), or -1. */
static int x_holding(const void *p, size_t len)
{
	for (int i = 0; i < nx; i++)
		if (xrecs[i].ptr && (const uint8_t *)p >= (uint8_t *)xrecs[i].ptr &&
		    (const uint8_t *)p + len <=
			    (uint8_t *)xrecs[i].ptr + xrecs[i].size)
			return i;
	return -1;
}

static void x_set(void)
{
	struct mlx5dv_ctx_allocators a = {
		.alloc = x_alloc, .free = x_free, .data = &xcookie,
	};

	ck_assert_int_eq(mlx5dv_set_context_attr(qt_ctx,
			 MLX5DV_CTX_ATTR_BUF_ALLOCATORS, &a), 0);
}

static void setup(void)
{
	qt_setup();
	memset(xrecs, 0, sizeof(xrecs));
	nx = nxfree = 0;
	xfail = false;
}

static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 16, 16, 1, 1);
	struct ibv_qp *qp;

	a.send_cq = a.recv_cq = cq;
	qp = ibv_create_qp(pd, &a);
	ck_assert_msg(qp, "create_qp: %s", strerror(errno));
	return qp;
}

static struct mlx5dv_cq cq_dv(struct ibv_cq *cq)
{
	struct mlx5dv_cq dv;
	struct mlx5dv_obj obj = { .cq = { .in = cq, .out = &dv } };

	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ), 0);
	return dv;
}

/* A CQ and two connected RC QPs in the context's memory, traffic, and
 * everything given back, the record page with its last record. */
START_TEST(ctx_alloc_queues_and_traffic)
{
	uint8_t *buf = vt_alloc(8192);
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge rsge;
	struct mlx5dv_cq dcq;
	struct mlx5dv_qp da, db;
	union ibv_gid gid = qt_gid(1);
	struct ibv_qp *a, *b;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	int page;

	x_set();
	cq = ibv_create_cq(qt_ctx, 63, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	/* The ring (64 entries of 64 bytes), then a page of records. */
	ck_assert_int_eq(nx, 2);
	ck_assert_uint_eq(xrecs[0].size, 64 * 64);
	ck_assert_uint_eq(xrecs[1].size, PAGE);
	dcq = cq_dv(cq);
	ck_assert_ptr_eq(dcq.buf, xrecs[0].ptr);
	/* The record starts zeroed in the allocator's stale page. */
	page = x_holding(dcq.dbrec, 8);
	ck_assert_int_eq(page, 1);
	ck_assert_uint_eq(dcq.dbrec[0], 0);
	ck_assert_uint_eq(dcq.dbrec[1], 0);
	a = rc_qp(qt_pd, cq);
	b = rc_qp(qt_pd, cq);
	/* A buffer each, page-rounded; their records share the page. */
	ck_assert_int_eq(nx, 4);
	for (int i = 2; i < 4; i++)
		ck_assert_uint_eq(xrecs[i].size % PAGE, 0);
	da = dp_dv(a);
	db = dp_dv(b);
	ck_assert_int_eq(x_holding(da.rq.buf, PAGE), 2);
	ck_assert_int_eq(x_holding(db.rq.buf, PAGE), 3);
	ck_assert_int_eq(x_holding(da.dbrec, 8), page);
	ck_assert_int_eq(x_holding(db.dbrec, 8), page);
	ck_assert_ptr_ne(da.dbrec, db.dbrec);

	mr = ibv_reg_mr(qt_pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(mr);
	qt_rc_connect(a, b->qp_num, &gid, 1, IBV_ACCESS_REMOTE_WRITE, 0x10,
		      0x10);
	qt_rc_connect(b, a->qp_num, &gid, 1, IBV_ACCESS_REMOTE_WRITE, 0x10,
		      0x10);
	for (int i = 0; i < 256; i++)
		buf[i] = (uint8_t)(i * 5 + 3);
	rsge = (struct ibv_sge){ (uintptr_t)buf + 1024, 256, mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 9, .sg_list = &rsge, .num_sge = 1 };
	ck_assert_int_eq(ibv_post_recv(b, &rwr, &rbad), 0);
	dp_post1(a, IBV_WR_SEND, buf, 256, mr->lkey, 0, 0);
	for (int n = 0; n < 2; n++) {
		wc = dp_poll_one(cq);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	}
	ck_assert_int_eq(memcmp(buf + 1024, buf, 256), 0);
	dp_post1(a, IBV_WR_RDMA_WRITE, buf, 200, mr->lkey, (uintptr_t)buf + 4096,
	     mr->rkey);
	wc = dp_poll_one(cq);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(memcmp(buf + 4096, buf, 200), 0);

	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(nxfree, 1);		/* its buffer, not the page */
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(nxfree, 4);		/* the page with its last */
	ck_assert(xrecs[page].freed);
	ck_assert_int_eq(nx, 4);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	free(buf);
}
END_TEST

START_TEST(ctx_alloc_null_is_enomem)
{
	x_set();
	xfail = true;
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(qt_ctx, 63, NULL, NULL, 0));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_int_eq(nx, 1);
}
END_TEST

START_TEST(ctx_attr_other_enotsup)
{
	struct mlx5dv_ctx_allocators a = {
		.alloc = x_alloc, .free = x_free, .data = &xcookie,
	};
	struct ibv_cq *cq;

	ck_assert_int_eq(mlx5dv_set_context_attr(qt_ctx,
			 (enum mlx5dv_set_ctx_attr_type)2, &a), ENOTSUP);
	cq = ibv_create_cq(qt_ctx, 63, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(nx, 0);	/* nothing was set */
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
}
END_TEST

/* A parent domain's allocator: asked instead; its USE_DEFAULT gives the
 * QP buffer to the default allocation and the record to the context's
 * pages (libmlx5's mlx5_alloc_dbrec). */
static bool pd_default;
static int pd_calls;

static void *pd_alloc(struct ibv_pd *pd, void *ctx, size_t size,
		      size_t align, uint64_t type)
{
	void *p;

	(void)pd;
	(void)ctx;
	(void)type;
	pd_calls++;
	if (pd_default)
		return IBV_ALLOCATOR_USE_DEFAULT;
	ck_assert_int_eq(posix_memalign(&p, align < 8 ? 8 : align, size), 0);
	return p;
}

static void pd_free(struct ibv_pd *pd, void *ctx, void *ptr, uint64_t type)
{
	(void)pd;
	(void)ctx;
	(void)type;
	free(ptr);
}

START_TEST(ctx_alloc_after_parent_domain)
{
	struct ibv_parent_domain_init_attr pa = {
		.pd = qt_pd, .comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS,
		.alloc = pd_alloc, .free = pd_free,
	};
	struct ibv_pd *pdom;
	struct ibv_qp *qp;
	struct mlx5dv_qp dqp;

	x_set();
	pd_default = _i == 1;
	pd_calls = 0;
	pdom = ibv_alloc_parent_domain(qt_ctx, &pa);
	ck_assert_ptr_nonnull(pdom);
	qp = rc_qp(pdom, qt_cq);
	ck_assert_int_eq(pd_calls, 2);		/* buffer, record */
	dqp = dp_dv(qp);
	if (!pd_default) {
		ck_assert_int_eq(nx, 0);
	} else {
		/* Only the record's page is the context's. */
		ck_assert_int_eq(nx, 1);
		ck_assert_uint_eq(xrecs[0].size, PAGE);
		ck_assert_int_eq(x_holding(dqp.dbrec, 8), 0);
		ck_assert_int_eq(x_holding(dqp.rq.buf, 64), -1);
	}
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(nxfree, nx);
	ck_assert_int_eq(ibv_dealloc_pd(pdom), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dp_ctx_alloc");
	TCase *tc = tcase_create("allocators");

	tcase_add_checked_fixture(tc, setup, qt_teardown);
	tcase_add_test(tc, ctx_alloc_queues_and_traffic);
	tcase_add_test(tc, ctx_alloc_null_is_enomem);
	tcase_add_test(tc, ctx_attr_other_enotsup);
	tcase_add_loop_test(tc, ctx_alloc_after_parent_domain, 0, 2);
	suite_add_tcase(s, tc);
	return vt_run(s);
}
