/* SPDX-License-Identifier: MIT */
/* The fault and trace programs' rig (mana_rig.h). */
#include <check.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mana_pmd.h"
#include "mana_rig.h"

/* An IPv4/UDP frame, RIG_FRAME_LEN bytes; its number in the payload. */
static void rig_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6],
		      uint32_t no)
{
	uint32_t sum = 0;
	uint8_t *ip = f + 14, *udp = ip + 20;

	memset(f, 0, RIG_FRAME_LEN);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	ip[0] = 0x45;
	ip[3] = RIG_FRAME_LEN - 14;
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 10; ip[15] = 1;		/* 10.0.0.1 */
	ip[16] = 10; ip[19] = 2;		/* 10.0.0.2 */
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
	udp[0] = 0x27; udp[1] = 0x10;		/* 10000 */
	udp[2] = 0x27; udp[3] = 0x11;
	udp[5] = RIG_FRAME_LEN - 34;
	mp_put32(udp + 8, no);
}

uint32_t rig_frame_no(const uint8_t *buf)
{
	return mp_get32(buf + 42);
}

uint8_t *rig_rx_buf(struct rig *r, uint32_t i)
{
	return r->mem + (size_t)i * RIG_BUF;
}

static uint8_t *rig_frame_buf(struct rig *r, uint32_t no)
{
	return r->mem + (size_t)(RIG_RQ_DEPTH + no) * RIG_BUF;
}

void rig_open(struct rig *r, bool rx_ring)
{
	struct manadv_ctx_allocators al = mp_allocators;
	struct ibv_parent_domain_init_attr pa = {
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
	};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.cap = { .max_send_wr = RIG_SQ_DEPTH, .max_send_sge = 1 },
	};
	struct ibv_wq_init_attr wa = { .wq_type = IBV_WQT_RQ,
				       .max_wr = RIG_RQ_DEPTH, .max_sge = 1 };
	static uint8_t key[40];
	size_t bytes = (size_t)(RIG_RQ_DEPTH + RIG_FRAMES) * RIG_BUF;

	memset(r, 0, sizeof(*r));
	r->ctx = mp_open("mana_0");
	ck_assert_int_eq(manadv_set_context_attr(r->ctx,
			 MANADV_CTX_ATTR_BUF_ALLOCATORS, &al), 0);
	r->pd = ibv_alloc_pd(r->ctx);
	pa.pd = r->pd;
	pa.pd_context = (void *)1;
	r->tx_pd = ibv_alloc_parent_domain(r->ctx, &pa);
	pa.pd_context = (void *)2;
	r->rx_pd = ibv_alloc_parent_domain(r->ctx, &pa);
	ck_assert_ptr_nonnull(r->tx_pd);
	ck_assert_ptr_nonnull(r->rx_pd);

	r->tcq = ibv_create_cq(r->ctx, RIG_SQ_DEPTH, NULL, NULL, 0);
	qa.send_cq = qa.recv_cq = r->tcq;
	r->sq = ibv_create_qp(r->tx_pd, &qa);
	ck_assert_ptr_nonnull(r->sq);
	struct manadv_obj o = { .qp = { r->sq, &r->dq }, .cq = { r->tcq, &r->dtc } };

	ck_assert_int_eq(manadv_init_obj(&o, MANADV_OBJ_QP | MANADV_OBJ_CQ), 0);

	r->rcq = ibv_create_cq(r->ctx, RIG_RQ_DEPTH, NULL, NULL, 0);
	wa.cq = r->rcq;
	wa.pd = r->rx_pd;
	r->rwq = ibv_create_wq(r->ctx, &wa);
	ck_assert_ptr_nonnull(r->rwq);
	struct ibv_rwq_ind_table_init_attr ta = { .log_ind_tbl_size = 0,
						  .ind_tbl = &r->rwq };

	r->tbl = ibv_create_rwq_ind_table(r->ctx, &ta);
	ck_assert_ptr_nonnull(r->tbl);
	for (int i = 0; i < 40; i++)
		key[i] = (uint8_t)(3 + 17 * i);
	struct ibv_qp_init_attr_ex xa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH |
			     IBV_QP_INIT_ATTR_IND_TABLE,
		.pd = r->rx_pd, .rwq_ind_tbl = r->tbl,
		.rx_hash_conf = { .rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
				  .rx_hash_key_len = 40, .rx_hash_key = key },
	};

	r->rss = ibv_create_qp_ex(r->ctx, &xa);
	ck_assert_ptr_nonnull(r->rss);
	struct manadv_obj ro = { .cq = { r->rcq, &r->drc },
				 .rwq = { r->rwq, &r->drw } };

	ck_assert_int_eq(manadv_init_obj(&ro, MANADV_OBJ_CQ | MANADV_OBJ_RWQ), 0);

	r->mem = aligned_alloc(4096, bytes);
	ck_assert_ptr_nonnull(r->mem);
	memset(r->mem, 0, bytes);
	r->mr = ibv_reg_mr(r->pd, r->mem, bytes, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(r->mr);
	mp_port_mac(r->ctx, 1, r->dmac);
	mp_port_mac(r->ctx, 0, r->smac);
	for (uint32_t i = 0; i < RIG_FRAMES; i++)
		rig_frame(rig_frame_buf(r, i), r->dmac, r->smac, i);
	for (uint32_t i = 0; i < RIG_RQ_DEPTH; i++)
		mp_wqe((uint8_t *)r->drw.buf + 32 * i, NULL,
		       (uintptr_t)rig_rx_buf(r, i), r->mr->lkey, RIG_BUF);
	if (rx_ring)
		rig_ring_rq(r, RIG_RQ_DEPTH);
}

void rig_ring_rq(struct rig *r, uint32_t wqes)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mp_doorbell(r->drw.db_page, 0x400, r->drw.wq_id, 32 * wqes);
}

void rig_post(struct rig *r, uint32_t first, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint8_t oob[8];
		uint32_t slot = r->sq_posted++ % RIG_SQ_DEPTH;

		mp_tx_oob(oob, r->dtc.cq_id, r->dq.sq_id, r->dq.tx_vp_offset);
		mp_wqe((uint8_t *)r->dq.sq_buf + 32 * slot, oob,
		       (uintptr_t)rig_frame_buf(r, first + i), r->mr->lkey,
		       RIG_FRAME_LEN);
	}
}

void rig_ring_sq(struct rig *r)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mp_doorbell(r->dq.db_page, 0x000, r->dq.sq_id, 32 * r->sq_posted);
}

const volatile uint8_t *rig_rx_cqe(struct rig *r, unsigned int ms)
{
	uint64_t until = mp_now_ms() + ms;
	const volatile uint8_t *c;

	while (!(c = mp_cqe_at(r->drc.buf, r->drc.count, r->rx_head)) &&
	       mp_now_ms() < until)
		sched_yield();
	if (c)
		r->rx_head++;
	return c;
}

void rig_close(struct rig *r)
{
	ck_assert_int_eq(ibv_destroy_qp(r->sq), 0);
	ck_assert_int_eq(ibv_destroy_cq(r->tcq), 0);
	ck_assert_int_eq(ibv_destroy_qp(r->rss), 0);
	ck_assert_int_eq(ibv_destroy_rwq_ind_table(r->tbl), 0);
	ck_assert_int_eq(ibv_destroy_wq(r->rwq), 0);
	ck_assert_int_eq(ibv_destroy_cq(r->rcq), 0);
	ck_assert_int_eq(ibv_dereg_mr(r->mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(r->tx_pd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(r->rx_pd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(r->pd), 0);
	ck_assert_int_eq(ibv_close_device(r->ctx), 0);
	free(r->mem);
}
