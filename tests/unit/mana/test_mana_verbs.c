/* SPDX-License-Identifier: MIT */
/*
 * A program built the way DPDK's mana PMD is (libibverbs + libmana, the
 * drop-in libraries first): the object graph the PMD builds on mana_0, in
 * its order, and every answer rdma-core 44's libmana and mana_ib give on
 * the way -- errnos, sizes, ids valid once the QP that binds them exists,
 * the shared doorbell page, the data-path verbs a raw QP does not have.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

#include "ut_run.h"

static struct ibv_context *ctx;
static int allocs, frees;
static void *last_priv;

static void *t_alloc(size_t size, void *priv)
{
	void *p = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);

	ck_assert_ptr_nonnull(p);
	memset(p, 0, size);
	last_priv = priv;
	allocs++;
	return p;
}

static void t_free(void *p, void *priv)
{
	(void)priv;
	free(p);
	frees++;
}

static void set_allocators(void)
{
	/* DPDK passes a compound literal on its stack: the struct is copied */
	struct manadv_ctx_allocators a = { t_alloc, t_free, (void *)0x5 };

	ck_assert_int_eq(manadv_set_context_attr(ctx, MANADV_CTX_ATTR_BUF_ALLOCATORS,
						 &a), 0);
	memset(&a, 0, sizeof(a));
}

static void setup(void)
{
	struct ibv_device **list;
	int n;

	list = ibv_get_device_list(&n);
	ck_assert_ptr_nonnull(list);
	for (int i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), "mana_0"))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	ck_assert_ptr_nonnull(ctx);
	allocs = frees = 0;
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ctx = NULL;
	ck_assert_int_eq(allocs, frees);
}

START_TEST(identity_and_queries)
{
	struct ibv_device_attr_ex a;
	struct ibv_port_attr pa;
	struct ibv_device_attr da;

	ck_assert_int_eq(ibv_query_device_ex(ctx, NULL, &a), 0);
	ck_assert_uint_eq(a.orig_attr.vendor_id, 0x1414);
	ck_assert_uint_eq(a.orig_attr.vendor_part_id, 2);	/* GDMA_DEVICE_MANA */
	ck_assert_uint_ne(a.raw_packet_caps, 0);
	ck_assert_int_eq(a.orig_attr.phys_port_cnt, 2);
	ck_assert_int_eq(a.orig_attr.max_qp_wr, 256);
	ck_assert_int_eq(a.orig_attr.max_cqe, 256);
	ck_assert_str_eq(a.orig_attr.fw_ver, "0.0.0");
	ck_assert_int_eq(ibv_query_device(ctx, &da), 0);
	ck_assert_int_eq(da.max_sge, 30);
	ck_assert_int_eq(ibv_query_port(ctx, 1, &pa), 0);
	ck_assert_int_eq(pa.state, IBV_PORT_ACTIVE);
	ck_assert_int_eq(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	ck_assert_int_eq(ibv_query_port(ctx, 3, &pa), EINVAL);
	ck_assert_int_eq(manadv_set_context_attr(ctx, 1, NULL), EOPNOTSUPP);
}
END_TEST

static struct ibv_pd *parent(struct ibv_pd *pd, uintptr_t port)
{
	struct ibv_parent_domain_init_attr pa = {
		.pd = pd,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.pd_context = (void *)port,
	};
	struct ibv_pd *p = ibv_alloc_parent_domain(ctx, &pa);

	ck_assert_ptr_nonnull(p);
	return p;
}

START_TEST(raw_send_qp)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.cap = { .max_send_wr = 64, .max_send_sge = 2 },
	};
	struct ibv_parent_domain_init_attr bad = {
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS,
	};
	struct ibv_pd *pd, *pd2, *ppd, *ppd2;
	struct ibv_cq *cq, *cq2;
	struct ibv_qp *qp;
	struct manadv_qp dq;
	struct manadv_cq dc;
	struct manadv_obj o = { .qp = { NULL, &dq }, .cq = { NULL, &dc } };

	pd = ibv_alloc_pd(ctx);
	pd2 = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	ppd = parent(pd, 1);
	ppd2 = parent(pd2, 1);
	bad.pd = pd;
	ck_assert_ptr_null(ibv_alloc_parent_domain(ctx, &bad));
	ck_assert_int_eq(errno, EINVAL);

	/* this libmana makes queue buffers only with the application's
	 * allocators */
	ck_assert_ptr_null(ibv_create_cq(ctx, 64, NULL, NULL, 0));
	ck_assert_int_eq(errno, EINVAL);
	set_allocators();
	ck_assert_ptr_null(ibv_create_cq(ctx, 257, NULL, NULL, 0));
	ck_assert_int_eq(errno, EINVAL);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	cq2 = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_ptr_eq(last_priv, (void *)0x5);
	o.cq.in = cq;
	ck_assert_int_eq(manadv_init_obj(&o, MANADV_OBJ_CQ), 0);
	ck_assert_uint_eq(dc.count, 64);
	ck_assert_uint_eq(dc.cq_id, 0);		/* no QP binds it yet */

	qa.send_cq = qa.recv_cq = cq;
	ck_assert_ptr_null(ibv_create_qp(pd, &qa));	/* not a parent domain */
	ck_assert_int_eq(errno, EINVAL);
	qa.cap.max_send_wr = 257;
	ck_assert_ptr_null(ibv_create_qp(ppd, &qa));
	ck_assert_int_eq(errno, EINVAL);
	qa.cap.max_send_wr = 64;
	qa.cap.max_send_sge = 31;
	ck_assert_ptr_null(ibv_create_qp(ppd, &qa));
	ck_assert_int_eq(errno, EINVAL);
	qa.cap.max_send_sge = 2;
	qa.qp_type = IBV_QPT_UD;
	ck_assert_ptr_null(ibv_create_qp(ppd, &qa));
	ck_assert_int_eq(errno, EINVAL);
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qp = ibv_create_qp(ppd, &qa);
	ck_assert_ptr_nonnull(qp);

	o.qp.in = qp;
	ck_assert_int_eq(manadv_init_obj(&o, MANADV_OBJ_QP | MANADV_OBJ_CQ), 0);
	ck_assert_ptr_nonnull(dq.sq_buf);
	ck_assert_uint_eq(dq.sq_count, 64);
	ck_assert_uint_eq(dq.sq_size, 4096);	/* 64 x 64 B, a page */
	ck_assert_uint_ne(dq.tx_vp_offset, 0);
	ck_assert_ptr_nonnull(dq.db_page);
	ck_assert_uint_eq(qp->qp_num, dq.sq_id);
	ck_assert_uint_ne(dc.cq_id, 0xffffffffu);
	/* the doorbell page takes 64-bit stores */
	*(volatile uint64_t *)dq.db_page = (uint64_t)32 << 32 | dq.sq_id;
	ck_assert_int_eq(manadv_init_obj(&o, 8), EINVAL);

	/* another PD's raw QP on the owned port */
	qa.send_cq = qa.recv_cq = cq2;
	ck_assert_ptr_null(ibv_create_qp(ppd2, &qa));
	ck_assert_int_eq(errno, ENODEV);

	/* a raw QP has no state machine and no verbs data path */
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RTS };
	struct ibv_send_wr wr = { 0 }, *badw;
	struct ibv_wc wc;

	ck_assert_int_eq(ibv_modify_qp(qp, &attr, IBV_QP_STATE), EOPNOTSUPP);
	ck_assert_int_eq(ibv_post_send(qp, &wr, &badw), EOPNOTSUPP);
	ck_assert_int_eq(ibv_poll_cq(cq, 1, &wc), EOPNOTSUPP);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), EOPNOTSUPP);

	ck_assert_int_eq(ibv_destroy_cq(cq), EBUSY);
	ck_assert_int_eq(ibv_dealloc_pd(pd), EBUSY);
	/* DPDK's stop: TX first */
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq2), 0);
	ck_assert_int_eq(ibv_dealloc_pd(ppd2), 0);
	ck_assert_int_eq(ibv_dealloc_pd(ppd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
}
END_TEST

START_TEST(rss_qp_and_mr)
{
	uint8_t key[40];
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *ppd = parent(pd, 2);
	struct ibv_cq *cq[2];
	struct ibv_wq *wq[2];
	struct ibv_rwq_ind_table *tbl;
	struct ibv_qp *qp;
	struct manadv_rwq dw[2];
	struct manadv_cq dc[2];
	struct ibv_wq_attr wa = { .attr_mask = IBV_WQ_ATTR_STATE,
				  .wq_state = IBV_WQS_RDY };
	static char data[8192];
	struct ibv_mr *mr;

	for (int i = 0; i < 40; i++)
		key[i] = (uint8_t)i;
	struct ibv_wq_init_attr wi = { .wq_type = IBV_WQT_RQ, .max_wr = 256,
				       .max_sge = 16, .pd = ppd };

	wi.cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	ck_assert_ptr_null(wi.cq);		/* no allocators yet */
	ck_assert_ptr_null(ibv_create_wq(ctx, &wi));
	ck_assert_int_eq(errno, EINVAL);
	set_allocators();
	for (int i = 0; i < 2; i++) {
		cq[i] = ibv_create_cq(ctx, 256, NULL, NULL, 0);
		ck_assert_ptr_nonnull(cq[i]);
		wi.cq = cq[i];
		wi.max_sge = 16;	/* 16 SGEs make a 288-byte WQE */
		ck_assert_ptr_null(ibv_create_wq(ctx, &wi));
		ck_assert_int_eq(errno, EINVAL);
		wi.max_sge = 1;
		wq[i] = ibv_create_wq(ctx, &wi);
		ck_assert_ptr_nonnull(wq[i]);
	}
	ck_assert_int_eq(ibv_modify_wq(wq[0], &wa), EOPNOTSUPP);
	struct ibv_rwq_ind_table_init_attr ti = { .log_ind_tbl_size = 1,
						  .ind_tbl = wq };

	tbl = ibv_create_rwq_ind_table(ctx, &ti);
	ck_assert_ptr_nonnull(tbl);
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH |
			     IBV_QP_INIT_ATTR_IND_TABLE,
		.pd = ppd,
		.rwq_ind_tbl = tbl,
		.rx_hash_conf = {
			.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
			.rx_hash_key_len = 32,
			.rx_hash_key = key,
			.rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 |
					       IBV_RX_HASH_DST_IPV4,
		},
	};

	ck_assert_ptr_null(ibv_create_qp_ex(ctx, &qa));
	ck_assert_int_eq(errno, EINVAL);
	qa.rx_hash_conf.rx_hash_key_len = 40;
	qa.pd = pd;
	ck_assert_ptr_null(ibv_create_qp_ex(ctx, &qa));
	ck_assert_int_eq(errno, EINVAL);
	qa.pd = ppd;
	qp = ibv_create_qp_ex(ctx, &qa);
	ck_assert_ptr_nonnull(qp);

	for (int i = 0; i < 2; i++) {
		struct manadv_obj o = { .cq = { cq[i], &dc[i] },
					.rwq = { wq[i], &dw[i] } };

		ck_assert_int_eq(manadv_init_obj(&o, MANADV_OBJ_CQ | MANADV_OBJ_RWQ), 0);
		ck_assert_uint_eq(dw[i].count, 256);
		ck_assert_uint_eq(dw[i].size, 8192);	/* 256 x 32 B */
		ck_assert_uint_eq(dc[i].count, 256);
		ck_assert_ptr_nonnull(dw[i].db_page);
	}
	ck_assert_uint_ne(dw[0].wq_id, dw[1].wq_id);
	ck_assert_uint_ne(dc[0].cq_id, dc[1].cq_id);
	ck_assert_ptr_eq(dw[0].db_page, dw[1].db_page);	/* one per context */

	mr = ibv_reg_mr(pd, data, sizeof(data), IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert_uint_ne(mr->lkey, 0);
	ck_assert_ptr_null(ibv_reg_mr(pd, data, sizeof(data), IBV_ACCESS_MW_BIND));
	ck_assert_int_eq(errno, EINVAL);

	ck_assert_int_eq(ibv_destroy_rwq_ind_table(tbl), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_rwq_ind_table(tbl), 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(ibv_destroy_wq(wq[i]), 0);
		ck_assert_int_eq(ibv_destroy_cq(cq[i]), 0);
	}
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(ppd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_verbs");
	TCase *tc = tcase_create("libmana");

	setenv("MLX5EMU_MANA_DEVICES", "1", 1);
	setenv("MLX5EMU_NUM_PORTS", "2", 1);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, identity_and_queries);
	tcase_add_test(tc, raw_send_qp);
	tcase_add_test(tc, rss_qp_and_mr);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
