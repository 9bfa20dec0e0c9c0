/* SPDX-License-Identifier: MIT */
/*
 * A MANA port and a ConnectX port on one fabric exchange frames: one
 * program linked against libibverbs, libmlx5 and libmana opens mlx5_0 and
 * mana_0.  The mlx5 side uses verbs (a raw packet QP, a flow rule for its
 * MAC, ibv_post_send/recv, ibv_poll_cq); the MANA side writes WQEs and
 * polls CQEs itself, as a MANA PMD does.  Each way, the frame's bytes
 * arrive unchanged.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

#include "mana_pmd.h"
#include "ut_run.h"

enum { BUF = 2048, FLEN = 60 };

/* The MAC inside a port's link-local GID (modified EUI-64). */
static void mac_of_gid0(struct ibv_context *ctx, uint8_t mac[6])
{
	union ibv_gid g;

	ck_assert_int_eq(ibv_query_gid(ctx, 1, 0, &g), 0);
	mac[0] = g.raw[8] ^ 2;
	mac[1] = g.raw[9];
	mac[2] = g.raw[10];
	mac[3] = g.raw[13];
	mac[4] = g.raw[14];
	mac[5] = g.raw[15];
}

static void frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6],
		  uint8_t tag)
{
	memset(f, 0, FLEN);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;		/* a non-IP EtherType: the default queue's */
	f[13] = 0xb5;
	for (int i = 14; i < FLEN; i++)
		f[i] = (uint8_t)(tag + i);
}

static int mlx5_poll(struct ibv_cq *cq, struct ibv_wc *wc)
{
	uint64_t until = mp_now_ms() + 5000;
	int n;

	while (!(n = ibv_poll_cq(cq, 1, wc)) && mp_now_ms() < until)
		sched_yield();
	return n;
}

START_TEST(mana_and_mlx5_exchange_frames)
{
	struct ibv_context *mx = mp_open("mlx5_0"), *ma = mp_open("mana_0");
	uint8_t mx_mac[6], ma_mac[6];
	uint8_t *mem = aligned_alloc(4096, 8 * BUF);
	struct ibv_wc wc;

	memset(mem, 0, 8 * BUF);
	mac_of_gid0(mx, mx_mac);
	mp_port_mac(ma, 0, ma_mac);

	/* mlx5: a raw packet QP in RTS, a flow rule for its MAC, a receive */
	struct ibv_pd *xpd = ibv_alloc_pd(mx);
	struct ibv_cq *xcq = ibv_create_cq(mx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr xa = {
		.qp_type = IBV_QPT_RAW_PACKET, .send_cq = xcq, .recv_cq = xcq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *xqp = ibv_create_qp(xpd, &xa);
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_mr *xmr = ibv_reg_mr(xpd, mem, 4 * BUF, IBV_ACCESS_LOCAL_WRITE);

	ck_assert_msg(xqp, "%s", strerror(errno));
	ck_assert_ptr_nonnull(xmr);
	ck_assert_int_eq(ibv_modify_qp(xqp, &qa, IBV_QP_STATE | IBV_QP_PORT), 0);
	qa.qp_state = IBV_QPS_RTR;
	ck_assert_int_eq(ibv_modify_qp(xqp, &qa, IBV_QP_STATE), 0);
	qa.qp_state = IBV_QPS_RTS;
	ck_assert_int_eq(ibv_modify_qp(xqp, &qa, IBV_QP_STATE), 0);
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
	} fa = {
		.attr = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(fa),
			  .num_of_specs = 1, .port = 1 },
		.eth = { .type = IBV_FLOW_SPEC_ETH,
			 .size = sizeof(struct ibv_flow_spec_eth) },
	};

	memcpy(fa.eth.val.dst_mac, mx_mac, 6);
	memset(fa.eth.mask.dst_mac, 0xff, 6);
	struct ibv_flow *flow = ibv_create_flow(xqp, &fa.attr);

	ck_assert_msg(flow, "%s", strerror(errno));
	struct ibv_sge rs = { (uintptr_t)mem, BUF, xmr->lkey };
	struct ibv_recv_wr rw = { .wr_id = 7, .sg_list = &rs, .num_sge = 1 }, *rb;

	ck_assert_int_eq(ibv_post_recv(xqp, &rw, &rb), 0);

	/* MANA: a raw SQ on port 1, one RQ behind an RSS QP */
	struct manadv_ctx_allocators al = mp_allocators;

	ck_assert_int_eq(manadv_set_context_attr(ma, MANADV_CTX_ATTR_BUF_ALLOCATORS,
						 &al), 0);
	struct ibv_pd *apd = ibv_alloc_pd(ma);
	struct ibv_parent_domain_init_attr pa = {
		.pd = apd, .comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.pd_context = (void *)1,
	};
	struct ibv_pd *ppd = ibv_alloc_parent_domain(ma, &pa);
	struct ibv_cq *tcq = ibv_create_cq(ma, 64, NULL, NULL, 0);
	struct ibv_qp_init_attr ta = {
		.qp_type = IBV_QPT_RAW_PACKET, .send_cq = tcq, .recv_cq = tcq,
		.cap = { .max_send_wr = 64, .max_send_sge = 1 },
	};
	struct ibv_qp *sq = ibv_create_qp(ppd, &ta);
	struct ibv_cq *rcq = ibv_create_cq(ma, 64, NULL, NULL, 0);
	struct ibv_wq_init_attr wa = { .wq_type = IBV_WQT_RQ, .max_wr = 64,
				       .max_sge = 1, .pd = ppd, .cq = rcq };
	struct ibv_wq *wq = ibv_create_wq(ma, &wa);
	struct ibv_rwq_ind_table_init_attr ia = { .log_ind_tbl_size = 0,
						  .ind_tbl = &wq };
	struct ibv_rwq_ind_table *tbl = ibv_create_rwq_ind_table(ma, &ia);
	uint8_t key[40] = { 0x6d };
	struct ibv_qp_init_attr_ex ra = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH |
			     IBV_QP_INIT_ATTR_IND_TABLE,
		.pd = ppd, .rwq_ind_tbl = tbl,
		.rx_hash_conf = { .rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
				  .rx_hash_key_len = 40, .rx_hash_key = key },
	};
	struct ibv_qp *rss = ibv_create_qp_ex(ma, &ra);
	struct ibv_mr *amr = ibv_reg_mr(apd, mem + 4 * BUF, 4 * BUF,
					IBV_ACCESS_LOCAL_WRITE);
	struct manadv_qp dq;
	struct manadv_cq dtc, drc;
	struct manadv_rwq drw;
	struct manadv_obj o = { .qp = { sq, &dq }, .cq = { tcq, &dtc },
				.rwq = { wq, &drw } };

	ck_assert_ptr_nonnull(rss);
	ck_assert_ptr_nonnull(amr);
	ck_assert_int_eq(manadv_init_obj(&o, MANADV_OBJ_QP | MANADV_OBJ_CQ |
					     MANADV_OBJ_RWQ), 0);
	o.cq.in = rcq;
	o.cq.out = &drc;
	ck_assert_int_eq(manadv_init_obj(&o, MANADV_OBJ_CQ), 0);
	mp_wqe(drw.buf, NULL, (uintptr_t)(mem + 4 * BUF), amr->lkey, BUF);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mp_doorbell(drw.db_page, 0x400, drw.wq_id, 32);

	/* MANA -> mlx5 */
	uint8_t oob[8] = { 0 }, *f = mem + 5 * BUF;

	frame(f, mx_mac, ma_mac, 0x10);
	mp_tx_oob(oob, dtc.cq_id, dq.sq_id, dq.tx_vp_offset);
	mp_wqe(dq.sq_buf, oob, (uintptr_t)f, amr->lkey, FLEN);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mp_doorbell(dq.db_page, 0, dq.sq_id, 32);
	const volatile uint8_t *c = mp_cqe_wait(dtc.buf, dtc.count, 0);

	ck_assert(c != NULL);
	ck_assert_uint_eq(mp_get32(c) & 0x3f, 32);		/* TX_OKAY */
	ck_assert_int_eq(mlx5_poll(xcq, &wc), 1);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc.wr_id, 7);
	ck_assert_uint_eq(wc.byte_len, FLEN);
	ck_assert_mem_eq(mem, f, FLEN);

	/* mlx5 -> MANA: a non-IP frame reaches the default queue */
	uint8_t *g = mem + BUF;

	frame(g, ma_mac, mx_mac, 0x40);
	struct ibv_sge ss = { (uintptr_t)g, FLEN, xmr->lkey };
	struct ibv_send_wr sw = { .wr_id = 9, .sg_list = &ss, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *sb;

	ck_assert_int_eq(ibv_post_send(xqp, &sw, &sb), 0);
	ck_assert_int_eq(mlx5_poll(xcq, &wc), 1);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 9);
	c = mp_cqe_wait(drc.buf, drc.count, 0);
	ck_assert(c != NULL);
	/* an RSS QP's queue coalesces (recent mana_ib asks it): one packet
	 * in an RX_COALESCED_4 CQE, the next per-packet info's length 0 */
	ck_assert_uint_eq(mp_get32(c) & 0x3f, 2);
	ck_assert_uint_eq(mp_get32(c + 8) & 0xffff, FLEN);
	ck_assert_uint_eq(mp_get32(c + 20) & 0xffff, 0);
	ck_assert_uint_eq(mp_get32(c + 4) >> 16 & 0x1ff, 0);	/* not hashed */
	ck_assert_mem_eq(mem + 4 * BUF, g, FLEN);

	/* UDP both ways, each sender leaving both checksums to its device */
	uint8_t *u = mem + 6 * BUF;		/* in the MANA MR */

	/* MANA -> mlx5: the short OOB asks for the IPv4 and UDP checksums */
	mp_udp_frame(u, mx_mac, ma_mac, 1, true);
	ck_assert(!mp_udp_csums_ok(u));
	rs.addr = (uintptr_t)mem;
	rw.wr_id = 8;
	ck_assert_int_eq(ibv_post_recv(xqp, &rw, &rb), 0);
	mp_tx_oob(oob, dtc.cq_id, dq.sq_id, dq.tx_vp_offset);
	oob[0] |= 1u << 2 | 1u << 4 | 1u << 6;	/* ipv4, ip csum, udp csum */
	mp_wqe((uint8_t *)dq.sq_buf + 32, oob, (uintptr_t)u, amr->lkey,
	       MP_UDP_FLEN);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mp_doorbell(dq.db_page, 0, dq.sq_id, 64);
	c = mp_cqe_wait(dtc.buf, dtc.count, 1);
	ck_assert(c != NULL);
	ck_assert_uint_eq(mp_get32(c) & 0x3f, 32);		/* TX_OKAY */
	ck_assert_int_eq(mlx5_poll(xcq, &wc), 1);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 8);
	ck_assert_uint_eq(wc.byte_len, MP_UDP_FLEN);
	ck_assert(wc.wc_flags & IBV_WC_IP_CSUM_OK);
	ck_assert(mp_udp_csums_ok(mem));
	ck_assert_mem_eq(mem + 42, u + 42, MP_UDP_FLEN - 42);

	/* mlx5 -> MANA: IBV_SEND_IP_CSUM; the RSS queue's CQE says IP and UDP
	 * checksums ok, and they are */
	u = mem + 2 * BUF;			/* in the mlx5 MR */
	mp_udp_frame(u, ma_mac, mx_mac, 2, false);
	mp_wqe((uint8_t *)drw.buf + 32, NULL, (uintptr_t)(mem + 5 * BUF),
	       amr->lkey, BUF);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mp_doorbell(drw.db_page, 0x400, drw.wq_id, 64);
	ss.addr = (uintptr_t)u;
	ss.length = MP_UDP_FLEN;
	ss.lkey = xmr->lkey;
	sw.send_flags = IBV_SEND_SIGNALED | IBV_SEND_IP_CSUM;
	ck_assert_int_eq(ibv_post_send(xqp, &sw, &sb), 0);
	ck_assert_int_eq(mlx5_poll(xcq, &wc), 1);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	c = mp_cqe_wait(drc.buf, drc.count, 1);
	ck_assert(c != NULL);
	ck_assert_uint_eq(mp_get32(c + 8) & 0xffff, MP_UDP_FLEN);
	/* ip_ok and udp_ok (bits 25, 29), no fail bits */
	ck_assert_uint_eq(mp_get32(c + 4) >> 25 & 0x3f, 1u | 1u << 4);
	ck_assert(mp_udp_csums_ok(mem + 5 * BUF));
	ck_assert_mem_eq(mem + 5 * BUF + 42, u + 42, MP_UDP_FLEN - 42);

	ck_assert_int_eq(ibv_destroy_qp(sq), 0);
	ck_assert_int_eq(ibv_destroy_cq(tcq), 0);
	ck_assert_int_eq(ibv_destroy_qp(rss), 0);
	ck_assert_int_eq(ibv_destroy_rwq_ind_table(tbl), 0);
	ck_assert_int_eq(ibv_destroy_wq(wq), 0);
	ck_assert_int_eq(ibv_destroy_cq(rcq), 0);
	ck_assert_int_eq(ibv_dereg_mr(amr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(ppd), 0);
	ck_assert_int_eq(ibv_dealloc_pd(apd), 0);
	ck_assert_int_eq(ibv_close_device(ma), 0);
	ck_assert_int_eq(ibv_destroy_flow(flow), 0);
	ck_assert_int_eq(ibv_destroy_qp(xqp), 0);
	ck_assert_int_eq(ibv_destroy_cq(xcq), 0);
	ck_assert_int_eq(ibv_dereg_mr(xmr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(xpd), 0);
	ck_assert_int_eq(ibv_close_device(mx), 0);
	free(mem);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_mlx5");
	TCase *tc = tcase_create("fabric");

	setenv("MLX5EMU_MANA_DEVICES", "1", 1);
	tcase_add_test(tc, mana_and_mlx5_exchange_frames);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
