/* SPDX-License-Identifier: MIT */
/*
 * UC, UD (the 40-byte GRH area: IPv4 header with its checksum, IPv6),
 * XRC (initiator to target through an XRC SRQ) and SRQs in libmlx5's
 * linked-list layout, between two devices of the process.
 */
#include <endian.h>
#include <stdlib.h>

#include "eng_test.h"

#include <infiniband/mlx5dv.h>

static struct ent_dev da, db;
static struct ent_cq acq, bcq;
static struct ent_mr amr, bmr;

static void setup(void)
{
	ent_dev_init(&da, 0);
	ent_dev_init(&db, 1);
	ent_cq_init(&da, &acq, 6, 64, false);
	ent_cq_init(&db, &bcq, 6, 64, false);
	ent_mr_init(&da, &amr, da.pd, 65536, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
	ent_mr_init(&db, &bmr, db.pd, 65536, ENT_MR_ALL, IBV_ACCESS_LOCAL_WRITE);
	for (int i = 0; i < 65536; i++)
		amr.buf[i] = (uint8_t)(i * 13 + 1);
}

static void teardown(void)
{
	ent_dev_fini(&da);
	ent_dev_fini(&db);
}

static void qp_make(struct ent_dev *d, struct ent_qp *qp, enum ent_type t,
		    struct ent_cq *cq, uint32_t uidx, uint32_t srqn)
{
	struct ent_qp_cfg cfg = {
		.type = t, .log_sq = 6, .log_rq = 6, .log_rq_stride = 2,
		.scq = cq, .rcq = cq, .user_index = uidx, .srqn = srqn,
	};

	ent_qp_create(d, qp, &cfg);
}

static void check(struct ent_cq *cq, const struct ent_cqe_exp *e)
{
	ent_cqe_check(ent_cq_next(cq), e);
}

/* ---- UC ---- */

START_TEST(uc_ops)
{
	struct ent_qp a, b;

	qp_make(&da, &a, ENT_UC, &acq, 1, 0);
	qp_make(&db, &b, ENT_UC, &bcq, 2, 0);
	ent_qp_pair(&a, &b);
	ent_post_recv(&b, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 256);
	ent_post1(&a, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr, 0,
		  200, 0, 0);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = a.qpn, .wqe_op = MLX5_OPCODE_SEND, .wqe_counter = 0,
	      .byte_cnt = 200, .srqn_uidx = 1 });
	check(&bcq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_RESP_SEND,
	      .qpn = b.qpn, .byte_cnt = 200, .flags_rqpn = a.qpn,
	      .srqn_uidx = 2 });
	ck_assert_mem_eq(bmr.buf, amr.buf, 200);
	/* WRITE: no receive. */
	ent_post1(&a, MLX5_OPCODE_RDMA_WRITE, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr,
		  0, 3000, (uint64_t)(uintptr_t)bmr.buf + 1000, bmr.key);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = a.qpn, .wqe_op = MLX5_OPCODE_RDMA_WRITE,
	      .wqe_counter = 1, .byte_cnt = 3000, .srqn_uidx = 1 });
	ck_assert_mem_eq(bmr.buf + 1000, amr.buf, 3000);
	/* A SEND with no receive posted is dropped silently (IBA 9.8.3);
	 * the requester completes it anyway. */
	ent_post1(&a, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr, 0,
		  10, 0, 0);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = a.qpn, .wqe_op = MLX5_OPCODE_SEND, .wqe_counter = 2,
	      .byte_cnt = 10, .srqn_uidx = 1 });
	ck_assert(ent_cq_quiet(&bcq, 20));
	/* READ is not a UC operation: local QP operation error, and the
	 * unreliable QP's send queue stops (SQER), its receives go on. */
	ent_post1(&a, MLX5_OPCODE_RDMA_READ, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr,
		  0, 8, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ_ERR,
	      .qpn = a.qpn, .wqe_op = MLX5_OPCODE_RDMA_READ, .wqe_counter = 3,
	      .srqn_uidx = 1, .syndrome = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
	      .vendor = 0xE2 });
	ent_post_recv(&a, amr.key, (uint64_t)(uintptr_t)amr.buf + 60000, 64);
	ent_post1(&b, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &bmr, 0,
		  16, 0, 0);
	check(&bcq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = b.qpn, .wqe_op = MLX5_OPCODE_SEND, .byte_cnt = 16,
	      .srqn_uidx = 2 });
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_RESP_SEND,
	      .qpn = a.qpn, .byte_cnt = 16, .flags_rqpn = b.qpn,
	      .srqn_uidx = 1 });
}
END_TEST

/* ---- UD ---- */

/* ctrl (16), datagram (48), data (16): ds 5, two blocks. */
static void ud_post(struct ent_qp *qp, uint32_t dqpn, uint32_t qkey,
		    const uint8_t dgid[16], unsigned int sgid_index,
		    uint32_t len, uint32_t imm_be)
{
	uint8_t w[128] = { 0 };
	uint32_t v;

	ent_ctrl(w, qp->sq_pi, imm_be ? MLX5_OPCODE_SEND_IMM : MLX5_OPCODE_SEND,
		 qp->qpn, 5, MLX5_WQE_CTRL_CQ_UPDATE, imm_be);
	v = htobe32(qkey);
	memcpy(w + 16, &v, 4);
	v = htobe32(dqpn | MLX5_EXTENDED_UD_AV);
	memcpy(w + 24, &v, 4);
	w[30] = 0xc0;		/* rlid: RoCE v2 UDP source port 0xc0de */
	w[31] = 0xde;
	memcpy(w + 36, "\x02\xc9\x7f\x00\x01\x01", 6);	/* rmac */
	w[42] = 0x28;		/* tclass */
	w[43] = 33;		/* hop limit */
	v = htobe32(1u << 30 | sgid_index << 20 | 0x5678);
	memcpy(w + 44, &v, 4);
	memcpy(w + 48, dgid, 16);
	ent_dseg(w + 64, len, amr.key, (uint64_t)(uintptr_t)amr.buf);
	ent_sq_put(qp, w, 2);
	ent_sq_ring(qp);
}

static uint16_t ip_csum_ok(const uint8_t *h)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

START_TEST(ud_ipv4_grh)
{
	static const uint8_t zero[20];
	struct ent_qp a, b;
	struct ent_conn c;
	uint8_t *grh = bmr.buf;

	qp_make(&da, &a, ENT_UD, &acq, 1, 0);
	qp_make(&db, &b, ENT_UD, &bcq, 2, 0);
	ent_conn_default(&c);
	ent_qp_to_rts(&a, &db, &c);
	ent_qp_to_rts(&b, &da, &c);
	ent_post_recv(&b, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 2048);
	ud_post(&a, b.qpn, 0x11111111, db.gid[ENT_GID_V2_V4], ENT_GID_V2_V4,
		500, htobe32(0x01020304));
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = a.qpn, .wqe_op = MLX5_OPCODE_SEND_IMM, .byte_cnt = 500,
	      .srqn_uidx = 1 });
	/* GRH in the buffer (bit 28), RoCE v2 over IPv4 (UDP 8 | IPv4 2 in
	 * bits 27:24), the source QP. */
	check(&bcq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_RESP_SEND_IMM,
	      .qpn = b.qpn, .byte_cnt = 540, .imm = 0x01020304,
	      .flags_rqpn = 1u << 28 | 0xau << 24 | a.qpn, .srqn_uidx = 2 });
	ck_assert_mem_eq(grh, zero, 20);
	ck_assert_uint_eq(grh[20], 0x45);
	ck_assert_uint_eq(grh[21], 0x28);			/* tclass */
	/* IP 20 + UDP 8 + BTH 12 + DETH 8 + ImmDt 4 + 500 + ICRC 4 */
	ck_assert_uint_eq(ent_be16(grh + 22), 556);
	ck_assert_uint_eq(grh[28], 33);			/* TTL */
	ck_assert_uint_eq(grh[29], 17);			/* UDP */
	ck_assert_mem_eq(grh + 32, da.gid[ENT_GID_V2_V4] + 12, 4);
	ck_assert_mem_eq(grh + 36, db.gid[ENT_GID_V2_V4] + 12, 4);
	ck_assert_uint_eq(ip_csum_ok(grh + 20), 0xffff);
	ck_assert_uint_ne(ent_be16(grh + 30), 0);
	ck_assert_mem_eq(bmr.buf + 40, amr.buf, 500);
}
END_TEST

START_TEST(ud_ipv6_grh_qkey_mtu)
{
	struct ent_qp a, b;
	struct ent_conn c;
	uint8_t *grh = bmr.buf;

	qp_make(&da, &a, ENT_UD, &acq, 1, 0);
	qp_make(&db, &b, ENT_UD, &bcq, 2, 0);
	ent_conn_default(&c);
	ent_qp_to_rts(&a, &db, &c);
	ent_qp_to_rts(&b, &da, &c);
	ent_post_recv(&b, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 2048);
	/* A wrong Q_Key is dropped at the receiver (IBA C10-15). */
	ud_post(&a, b.qpn, 0x22222222, db.gid[ENT_GID_V2], ENT_GID_V2, 64, 0);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = a.qpn, .wqe_op = MLX5_OPCODE_SEND, .byte_cnt = 64,
	      .srqn_uidx = 1 });
	ck_assert(ent_cq_quiet(&bcq, 20));
	/* Q_Key with the high bit: the QP's own (0x11111111). */
	ud_post(&a, b.qpn, 0x80000000, db.gid[ENT_GID_V2], ENT_GID_V2, 64, 0);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = a.qpn, .wqe_op = MLX5_OPCODE_SEND, .wqe_counter = 2,
	      .byte_cnt = 64, .srqn_uidx = 1 });
	check(&bcq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_RESP_SEND,
	      .qpn = b.qpn, .byte_cnt = 104,
	      .flags_rqpn = 1u << 28 | 9u << 24 | a.qpn, .srqn_uidx = 2 });
	/* IPv6 header: version 6, tclass 0x28, flow label 0x5678. */
	ck_assert_uint_eq(ent_be32(grh), 6u << 28 | 0x28u << 20 | 0x5678);
	ck_assert_uint_eq(ent_be16(grh + 4), 8 + 12 + 8 + 64 + 4);
	ck_assert_uint_eq(grh[6], 17);
	ck_assert_uint_eq(grh[7], 33);
	ck_assert_mem_eq(grh + 8, da.gid[ENT_GID_V2], 16);
	ck_assert_mem_eq(grh + 24, db.gid[ENT_GID_V2], 16);
	ck_assert_mem_eq(bmr.buf + 40, amr.buf, 64);
	/* Longer than the path MTU (1 KiB): local length error; the send
	 * queue stops (SQER). */
	ud_post(&a, b.qpn, 0x11111111, db.gid[ENT_GID_V2], ENT_GID_V2, 1025, 0);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ_ERR,
	      .qpn = a.qpn, .wqe_op = MLX5_OPCODE_SEND, .wqe_counter = 4,
	      .srqn_uidx = 1, .syndrome = MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR,
	      .vendor = 0xE1 });
	ck_assert_uint_eq(emu_fw_qp_state(emu_fw_to_qp(emu_fw_obj_lookup_rcu(
		da.fw, EMU_FW_OBJ_QP, a.qpn))), MLX5_QPC_STATE_SQER);
}
END_TEST

/* A UD SEND aimed at the QPN of an RC or a UC QP: the transport of its
 * opcode is not the QP's service, so the packet is dropped without a word
 * (IBA 9.6's header checks; rxe's check_type_state).  The connected
 * QP keeps its state and its receive, and works on. */
START_TEST(ud_to_connected_qp_dropped)
{
	static const enum ent_type types[] = { ENT_RC, ENT_UC };

	for (unsigned int t = 0; t < 2; t++) {
		struct ent_qp u, a, b;
		struct ent_conn c;

		qp_make(&da, &u, ENT_UD, &acq, 1, 0);
		qp_make(&da, &a, types[t], &acq, 3, 0);
		qp_make(&db, &b, types[t], &bcq, 2, 0);
		ent_conn_default(&c);
		ent_qp_to_rts(&u, &db, &c);
		ent_qp_pair(&a, &b);
		ent_post_recv(&b, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 2048);
		ud_post(&u, b.qpn, 0x11111111, db.gid[ENT_GID_V2], ENT_GID_V2,
			64, 0);
		check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
		      .qpn = u.qpn, .wqe_op = MLX5_OPCODE_SEND,
		      .byte_cnt = 64, .srqn_uidx = 1 });
		ck_assert(ent_cq_quiet(&bcq, 20));
		ck_assert_uint_eq(emu_fw_qp_state(emu_fw_to_qp(
			emu_fw_obj_lookup_rcu(db.fw, EMU_FW_OBJ_QP, b.qpn))),
			MLX5_QPC_STATE_RTS);
		/* The receive is still there for the QP's own peer. */
		ent_post1(&a, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0,
			  &amr, 0, 32, 0, 0);
		check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
		      .qpn = a.qpn, .wqe_op = MLX5_OPCODE_SEND,
		      .byte_cnt = 32, .srqn_uidx = 3 });
		check(&bcq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_RESP_SEND,
		      .qpn = b.qpn, .byte_cnt = 32, .flags_rqpn = a.qpn,
		      .srqn_uidx = 2 });
		ck_assert_mem_eq(bmr.buf, amr.buf, 32);
	}
}
END_TEST

/* ---- SRQ (libmlx5's linked list) ---- */

/* QUERY_SRQ's wqe_cnt: posted and not yet used. */
static uint32_t srq_wqe_cnt(struct ent_srq *s)
{
	struct fwt_mbox m;

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_SRQ, 0, s->d->uid,
		      PRM_ST_SZ_BYTES(query_srq_in), PRM_ST_SZ_BYTES(query_srq_out));
	PRM_SET(query_srq_in, m.in, srqn, s->srqn);
	fwt_exec(s->d->fw, &m);
	ck_fw_ok(&m);
	return PRM_GET(srqc, PRM_ADDR_OF(query_srq_out, m.out, srq_context_entry),
		       wqe_cnt);
}

START_TEST(srq_linked_list)
{
	struct ent_qp a, b;
	struct ent_srq s;
	static const uint16_t order[] = { 0, 1, 2, 3, 1, 0 };

	ent_srq_init(&db, &s, 2, false, NULL, 0);
	qp_make(&da, &a, ENT_RC, &acq, 1, 0);
	qp_make(&db, &b, ENT_RC, &bcq, 2, s.srqn);
	ent_qp_pair(&a, &b);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(ent_srq_post(&s, bmr.key,
			(uint64_t)(uintptr_t)bmr.buf + i * 1024, 1024), i);
	ck_assert_uint_eq(srq_wqe_cnt(&s), 3);
	for (int i = 0; i < 6; i++) {
		if (i == 1)
			ck_assert_uint_eq(srq_wqe_cnt(&s), 2);
		if (i == 3) {
			/* Free out of order (1, then 0) and post three more:
			 * libmlx5 hands out 3, 1, 0; the device follows the
			 * next indexes the application wrote. */
			ent_srq_free(&s, 1);
			ent_srq_free(&s, 0);
			for (int k = 3; k < 6; k++)
				ck_assert_uint_eq(ent_srq_post(&s, bmr.key,
					(uint64_t)(uintptr_t)bmr.buf +
					order[k] * 1024, 1024), order[k]);
		}
		ent_post1(&a, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0,
			  &amr, (uint32_t)i * 100, 100, 0, 0);
		check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
		      .qpn = a.qpn, .wqe_op = MLX5_OPCODE_SEND,
		      .wqe_counter = (uint16_t)i, .byte_cnt = 100,
		      .srqn_uidx = 1 });
		check(&bcq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_RESP_SEND,
		      .qpn = b.qpn, .wqe_counter = order[i], .byte_cnt = 100,
		      .flags_rqpn = a.qpn, .srqn_uidx = 2 });
		ck_assert_mem_eq(bmr.buf + order[i] * 1024, amr.buf + i * 100,
				 100);
	}
}
END_TEST

/* A cyclic RMP as UCX creates it: 4 WQEs of 32 bytes (next segment and
 * one scatter entry); used in ring order whatever the next segments say. */
START_TEST(rmp_cyclic)
{
	struct fwt_mem ring, dbr;
	struct fwt_mbox m;
	struct ent_qp a, b;
	uint32_t rmpn, pi = 0;
	void *c, *wq;

	ent_mem_reg(&db, 4 * 32, &ring);
	ent_mem_reg(&db, 8, &dbr);
	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_RMP, 0, db.uid,
		      PRM_ST_SZ_BYTES(create_rmp_in),
		      PRM_ST_SZ_BYTES(create_rmp_out));
	c = PRM_ADDR_OF(create_rmp_in, m.in, ctx);
	wq = PRM_ADDR_OF(rmpc, c, wq);
	PRM_SET(rmpc, c, state, MLX5_RMPC_STATE_RDY);
	PRM_SET(wq, wq, wq_type, 1);		/* cyclic */
	PRM_SET(wq, wq, log_wq_sz, 2);
	PRM_SET(wq, wq, log_wq_stride, 5);
	PRM_SET(wq, wq, pd, db.pd);
	PRM_SET(wq, wq, dbr_umem_valid, 1);
	PRM_SET(wq, wq, dbr_umem_id, dbr.umem_id);
	PRM_SET(wq, wq, wq_umem_valid, 1);
	PRM_SET(wq, wq, wq_umem_id, ring.umem_id);
	fwt_exec(db.fw, &m);
	ck_fw_ok(&m);
	rmpn = PRM_GET(create_rmp_out, m.out, rmpn);
	qp_make(&da, &a, ENT_RC, &acq, 1, 0);
	qp_make(&db, &b, ENT_RC, &bcq, 2, rmpn);
	ent_qp_pair(&a, &b);
	for (uint32_t i = 0; i < 6; i++) {
		uint8_t *w = (uint8_t *)ring.addr + (i & 3) * 32;

		/* A next segment that would point elsewhere. */
		w[2] = 0;
		w[3] = (uint8_t)((i + 2) & 3);
		ent_dseg(w + 16, 512, bmr.key,
			 (uint64_t)(uintptr_t)bmr.buf + (i & 3) * 512);
		__atomic_store_n((uint32_t *)dbr.addr, htobe32(++pi),
				 __ATOMIC_RELEASE);
		ent_post1(&a, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &amr,
			  i * 64, 64, 0, 0);
		check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
		      .qpn = a.qpn, .wqe_op = MLX5_OPCODE_SEND,
		      .wqe_counter = (uint16_t)i, .byte_cnt = 64,
		      .srqn_uidx = 1 });
		check(&bcq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_RESP_SEND,
		      .qpn = b.qpn, .wqe_counter = (uint16_t)(i & 3),
		      .byte_cnt = 64, .flags_rqpn = a.qpn, .srqn_uidx = 2 });
		ck_assert_mem_eq(bmr.buf + (i & 3) * 512, amr.buf + i * 64, 64);
	}
}
END_TEST

/* ---- XRC ---- */

static void xrc_post(struct ent_qp *qp, uint32_t srqn, uint32_t len)
{
	uint8_t w[64] = { 0 };
	uint32_t v = htobe32(srqn);

	ent_ctrl(w, qp->sq_pi, MLX5_OPCODE_SEND, qp->qpn, 3,
		 MLX5_WQE_CTRL_CQ_UPDATE, 0);
	memcpy(w + 16, &v, 4);
	ent_dseg(w + 32, len, amr.key, (uint64_t)(uintptr_t)amr.buf);
	ent_sq_put(qp, w, 1);
	ent_sq_ring(qp);
}

/* An XRC initiator on da and a target on db (on PD tgt_pd, 0: db's),
 * connected. */
static void xrc_make(struct ent_qp *ini, struct ent_qp *tgt, uint32_t tgt_pd)
{
	struct ent_conn c;
	struct ent_qp_cfg cfg = { .type = ENT_XRC_INI, .log_sq = 6,
				  .scq = &acq, .user_index = 7 };

	ent_qp_create(&da, ini, &cfg);
	cfg = (struct ent_qp_cfg){ .type = ENT_XRC_TGT, .user_index = 8,
				   .pd = tgt_pd };
	ent_qp_create(&db, tgt, &cfg);
	ent_conn_default(&c);
	c.remote_qpn = tgt->qpn;
	ent_qp_to_rts(ini, &db, &c);
	c.remote_qpn = ini->qpn;
	ent_qp_to_rts(tgt, &da, &c);
}

START_TEST(xrc_ini_tgt)
{
	struct ent_qp ini, tgt;
	struct ent_srq xs, plain;

	ent_srq_init(&db, &xs, 3, true, &bcq, 0x33);
	ent_srq_init(&db, &plain, 3, false, NULL, 0);
	xrc_make(&ini, &tgt, 0);
	ent_srq_post(&xs, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 4096);
	xrc_post(&ini, xs.srqn, 777);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = ini.qpn, .wqe_op = MLX5_OPCODE_SEND, .byte_cnt = 777,
	      .srqn_uidx = 7 });
	/* Completes on the XRC SRQ's CQ with the SRQ's user index. */
	check(&bcq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_RESP_SEND,
	      .qpn = tgt.qpn, .byte_cnt = 777, .flags_rqpn = ini.qpn,
	      .srqn_uidx = 0x33 });
	ck_assert_mem_eq(bmr.buf, amr.buf, 777);
	/* An SRQ that is not an XRC SRQ of the target's domain: the
	 * responder NAKs the request as invalid. */
	xrc_post(&ini, plain.srqn, 8);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ_ERR,
	      .qpn = ini.qpn, .wqe_op = MLX5_OPCODE_SEND, .wqe_counter = 1,
	      .srqn_uidx = 7,
	      .syndrome = MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
	      .vendor = 0x8A });
}
END_TEST

/* XRC carries RDMA too: the XRC segment first, then raddr (and atomic). */
START_TEST(xrc_rdma_and_atomic)
{
	struct ent_qp ini, tgt;
	struct ent_srq xs;
	uint64_t *word = (uint64_t *)(void *)(bmr.buf + 8192);
	uint8_t w[128];
	uint32_t v;
	uint64_t x;

	ent_srq_init(&db, &xs, 3, true, &bcq, 0x33);
	xrc_make(&ini, &tgt, 0);
	/* WRITE: ctrl, xrc, raddr, data (ds 4). */
	memset(w, 0, sizeof(w));
	ent_ctrl(w, 0, MLX5_OPCODE_RDMA_WRITE, ini.qpn, 4,
		 MLX5_WQE_CTRL_CQ_UPDATE, 0);
	v = htobe32(xs.srqn);
	memcpy(w + 16, &v, 4);
	ent_raddr(w + 32, (uint64_t)(uintptr_t)bmr.buf, bmr.key);
	ent_dseg(w + 48, 900, amr.key, (uint64_t)(uintptr_t)amr.buf);
	ent_sq_put(&ini, w, 1);
	/* READ it back elsewhere. */
	ent_ctrl(w, 1, MLX5_OPCODE_RDMA_READ, ini.qpn, 4,
		 MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ent_dseg(w + 48, 900, amr.key, (uint64_t)(uintptr_t)amr.buf + 20000);
	ent_sq_put(&ini, w, 1);
	/* FETCH_ADD: ctrl, xrc, raddr, atomic, data (ds 5, two blocks). */
	*word = 40;
	memset(w, 0, sizeof(w));
	ent_ctrl(w, 2, MLX5_OPCODE_ATOMIC_FA, ini.qpn, 5,
		 MLX5_WQE_CTRL_CQ_UPDATE, 0);
	memcpy(w + 16, &v, 4);
	ent_raddr(w + 32, (uint64_t)(uintptr_t)word, bmr.key);
	x = htobe64(2);
	memcpy(w + 48, &x, 8);
	ent_dseg(w + 64, 8, amr.key, (uint64_t)(uintptr_t)amr.buf + 30000);
	ent_sq_put(&ini, w, 2);
	ent_sq_ring(&ini);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = ini.qpn, .wqe_op = MLX5_OPCODE_RDMA_WRITE, .wqe_counter = 0,
	      .byte_cnt = 900, .srqn_uidx = 7 });
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = ini.qpn, .wqe_op = MLX5_OPCODE_RDMA_READ, .wqe_counter = 1,
	      .byte_cnt = 900, .srqn_uidx = 7 });
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = ini.qpn, .wqe_op = MLX5_OPCODE_ATOMIC_FA, .wqe_counter = 2,
	      .byte_cnt = 8, .srqn_uidx = 7 });
	ck_assert_mem_eq(bmr.buf, amr.buf, 900);
	ck_assert_mem_eq(amr.buf + 20000, amr.buf, 900);
	ck_assert_uint_eq(*word, 42);
	memcpy(&x, amr.buf + 30000, 8);
	ck_assert_uint_eq(x, 40);
	ck_assert(ent_cq_quiet(&bcq, 10));	/* no receive consumed */
}
END_TEST

/* An XRC target QP has no PD of its own (mlx5_ib creates it on an internal
 * one): the XRC SRQ the packet names supplies the PD for the rkey and for
 * the receive WQE's lkeys, and the target QP's PD grants nothing. */
START_TEST(xrc_pd_of_srq)
{
	struct ent_qp ini, tgt;
	struct ent_srq xs;
	struct ent_mr other;
	uint8_t w[64];
	uint32_t v;

	ent_srq_init(&db, &xs, 3, true, &bcq, 0x33);	/* on db.pd */
	ent_mr_init(&db, &other, db.pd2, 4096, ENT_MR_ALL,
		    IBV_ACCESS_LOCAL_WRITE);
	xrc_make(&ini, &tgt, db.pd2);
	ent_srq_post(&xs, bmr.key, (uint64_t)(uintptr_t)bmr.buf, 4096);
	xrc_post(&ini, xs.srqn, 300);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = ini.qpn, .wqe_op = MLX5_OPCODE_SEND, .byte_cnt = 300,
	      .srqn_uidx = 7 });
	check(&bcq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_RESP_SEND,
	      .qpn = tgt.qpn, .byte_cnt = 300, .flags_rqpn = ini.qpn,
	      .srqn_uidx = 0x33 });
	ck_assert_mem_eq(bmr.buf, amr.buf, 300);
	/* WRITE through an rkey of the SRQ's PD. */
	memset(w, 0, sizeof(w));
	ent_ctrl(w, 1, MLX5_OPCODE_RDMA_WRITE, ini.qpn, 4,
		 MLX5_WQE_CTRL_CQ_UPDATE, 0);
	v = htobe32(xs.srqn);
	memcpy(w + 16, &v, 4);
	ent_raddr(w + 32, (uint64_t)(uintptr_t)bmr.buf + 8192, bmr.key);
	ent_dseg(w + 48, 500, amr.key, (uint64_t)(uintptr_t)amr.buf + 100);
	ent_sq_put(&ini, w, 1);
	ent_sq_ring(&ini);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = ini.qpn, .wqe_op = MLX5_OPCODE_RDMA_WRITE,
	      .wqe_counter = 1, .byte_cnt = 500, .srqn_uidx = 7 });
	ck_assert_mem_eq(bmr.buf + 8192, amr.buf + 100, 500);
	/* An rkey of the target QP's PD: remote access error. */
	ent_ctrl(w, 2, MLX5_OPCODE_RDMA_WRITE, ini.qpn, 4,
		 MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ent_raddr(w + 32, (uint64_t)(uintptr_t)other.buf, other.key);
	ent_sq_put(&ini, w, 1);
	ent_sq_ring(&ini);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ_ERR,
	      .qpn = ini.qpn, .wqe_op = MLX5_OPCODE_RDMA_WRITE,
	      .wqe_counter = 2, .srqn_uidx = 7,
	      .syndrome = MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR, .vendor = 0x88 });
	ck_assert(ent_cq_quiet(&bcq, 10));
}
END_TEST

START_TEST(uc_write_imm)
{
	struct ent_qp a, b;

	qp_make(&da, &a, ENT_UC, &acq, 1, 0);
	qp_make(&db, &b, ENT_UC, &bcq, 2, 0);
	ent_qp_pair(&a, &b);
	ent_post_recv(&b, bmr.key, (uint64_t)(uintptr_t)bmr.buf + 4096, 8);
	ent_post1(&a, MLX5_OPCODE_RDMA_WRITE_IMM, MLX5_WQE_CTRL_CQ_UPDATE,
		  htobe32(0xabcd), &amr, 0, 2000,
		  (uint64_t)(uintptr_t)bmr.buf, bmr.key);
	check(&acq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_REQ,
	      .qpn = a.qpn, .wqe_op = MLX5_OPCODE_RDMA_WRITE_IMM,
	      .byte_cnt = 2000, .srqn_uidx = 1 });
	check(&bcq, &(struct ent_cqe_exp){ .opcode = MLX5_CQE_RESP_WR_IMM,
	      .qpn = b.qpn, .byte_cnt = 2000, .imm = 0xabcd,
	      .flags_rqpn = a.qpn, .srqn_uidx = 2 });
	ck_assert_mem_eq(bmr.buf, amr.buf, 2000);
}
END_TEST

static Suite *eng_transport_suite(void)
{
	Suite *s = suite_create("eng_transport");
	TCase *tc = tcase_create("transport");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, uc_ops);
	tcase_add_test(tc, ud_ipv4_grh);
	tcase_add_test(tc, ud_ipv6_grh_qkey_mtu);
	tcase_add_test(tc, ud_to_connected_qp_dropped);
	tcase_add_test(tc, srq_linked_list);
	tcase_add_test(tc, rmp_cyclic);
	tcase_add_test(tc, xrc_ini_tgt);
	tcase_add_test(tc, xrc_rdma_and_atomic);
	tcase_add_test(tc, xrc_pd_of_srq);
	tcase_add_test(tc, uc_write_imm);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(eng_transport_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
