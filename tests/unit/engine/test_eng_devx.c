/* SPDX-License-Identifier: MIT */
/*
 * DEVX only, as rdma-core's pyverbs DevX RC test and UCX/DPDK-style code
 * drive a ConnectX: no verbs object.  Through the emulated kernel layer's
 * backend ops (what libmlx5's DEVX calls reach): two contexts on mlx5_0,
 * PD, umems, mkey, CQs and RC QPs built from PRM commands, the QPs moved
 * to RTS with modify commands.  Traffic is WQEs written into the QP umem,
 * the doorbell record and a 64-bit store to the UAR register, then CQE
 * memory polled: no library call after the doorbell, so only the engine
 * thread can make progress.
 */
#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "emu/firmware/fw_objs.h"	/* first: liburcu, bp flavour */

#include <check.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "backend/backend.h"
#include "backend/backend_impl.h"
#include "emu/engine/eng.h"

#define BE (&mlx5be_emu_ops)
#define LOG_RQ 4	/* 16 WQEs of 16 bytes */
#define LOG_SQ 6	/* 64 basic blocks */
#define LOG_CQ 4
#define MSG 1024

struct player {
	struct mlx5be_ctx *ctx;
	int fd;
	uint32_t pd, eqn, cqn, qpn, lkey;
	struct mlx5be_uar_info uar;
	uint8_t *uar_page;
	uint8_t *cq, *qp, *buf;
	uint32_t *cq_dbr, *qp_dbr;
	uint8_t gid[16];
	uint32_t ci, rq_pi, sq_pi;
	struct mlx5be_obj *qp_obj, *cq_obj;
};

static void *page_alloc(size_t len)
{
	void *p = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

	ck_assert_ptr_nonnull(p);
	memset(p, 0, len);
	return p;
}

static uint32_t umem(struct player *p, void *addr, size_t len)
{
	uint32_t id;

	ck_assert_ptr_nonnull(BE->umem_reg(p->ctx, addr, len,
					   IBV_ACCESS_LOCAL_WRITE, 4096, &id));
	return id;
}

static struct mlx5be_obj *last_obj;

/* Create through DEVX obj_create; the outbox dword holding the id. */
static uint32_t create(struct player *p, void *in, size_t inlen, size_t outlen,
		       unsigned int id_dw)
{
	uint32_t out[64] = { 0 };

	last_obj = BE->obj_create(p->ctx, in, inlen, out, outlen);
	ck_assert_ptr_nonnull(last_obj);
	return be32toh(out[id_dw]) & 0xffffff;
}

static void player_init(struct player *p)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_qp_in)];
	struct mlx5be_gid_entry g;
	void *ctx;

	memset(p, 0, sizeof(*p));
	ck_assert_int_eq(BE->open(0, &p->ctx, &p->fd), 0);
	/* PD */
	memset(in, 0, sizeof(in));
	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	p->pd = create(p, in, PRM_ST_SZ_BYTES(alloc_pd_in),
		       PRM_ST_SZ_BYTES(alloc_pd_out), 2);
	ck_assert_int_eq(BE->query_eqn(p->ctx, 0, &p->eqn), 0);
	ck_assert_ptr_nonnull(BE->uar_alloc(p->ctx, MLX5DV_UAR_ALLOC_TYPE_NC,
					    &p->uar));
	p->uar_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			   p->fd, p->uar.mmap_off);
	ck_assert_ptr_ne(p->uar_page, MAP_FAILED);
	ck_assert_int_eq(BE->query_gid(p->ctx, 1, 3, &g), 0);
	memcpy(p->gid, g.gid, 16);
	/* MR: an mkey over a umem. */
	p->buf = page_alloc(MSG);
	memset(in, 0, sizeof(in));
	PRM_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	ctx = PRM_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	PRM_SET(mkc, ctx, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
	PRM_SET(mkc, ctx, lr, 1);
	PRM_SET(mkc, ctx, lw, 1);
	PRM_SET(mkc, ctx, rr, 1);
	PRM_SET(mkc, ctx, rw, 1);
	PRM_SET(mkc, ctx, qpn, 0xffffff);
	PRM_SET(mkc, ctx, pd, p->pd);
	PRM_SET(mkc, ctx, mkey_7_0, 0x42);
	PRM_SET64(mkc, ctx, start_addr, (uint64_t)(uintptr_t)p->buf);
	PRM_SET64(mkc, ctx, len, MSG);
	PRM_SET(create_mkey_in, in, mkey_umem_valid, 1);
	PRM_SET(create_mkey_in, in, mkey_umem_id, umem(p, p->buf, MSG));
	p->lkey = create(p, in, PRM_ST_SZ_BYTES(create_mkey_in),
			 PRM_ST_SZ_BYTES(create_mkey_out), 2) << 8 | 0x42;
	/* CQ: 16 CQEs in a umem, an 8-byte doorbell umem. */
	p->cq = page_alloc(64 << LOG_CQ);
	p->cq_dbr = aligned_alloc(8, 8);
	memset(p->cq_dbr, 0, 8);
	memset(in, 0, sizeof(in));
	PRM_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	ctx = PRM_ADDR_OF(create_cq_in, in, cq_context);
	PRM_SET(cqc, ctx, dbr_umem_valid, 1);
	PRM_SET(cqc, ctx, dbr_umem_id, umem(p, p->cq_dbr, 8));
	PRM_SET(cqc, ctx, log_cq_size, LOG_CQ);
	PRM_SET(cqc, ctx, uar_page, p->uar.page_id);
	PRM_SET(cqc, ctx, c_eqn, p->eqn);
	PRM_SET(create_cq_in, in, cq_umem_id, umem(p, p->cq, 64 << LOG_CQ));
	PRM_SET(create_cq_in, in, cq_umem_valid, 1);
	p->cqn = create(p, in, PRM_ST_SZ_BYTES(create_cq_in),
			PRM_ST_SZ_BYTES(create_cq_out), 2);
	p->cq_obj = last_obj;
	/* RC QP: RQ then SQ in one umem. */
	p->qp = page_alloc((16 << LOG_RQ) + (64 << LOG_SQ));
	p->qp_dbr = aligned_alloc(8, 8);
	memset(p->qp_dbr, 0, 8);
	memset(in, 0, sizeof(in));
	PRM_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	ctx = PRM_ADDR_OF(create_qp_in, in, qpc);
	PRM_SET(qpc, ctx, st, MLX5_QPC_ST_RC);
	PRM_SET(qpc, ctx, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	PRM_SET(qpc, ctx, pd, p->pd);
	PRM_SET(qpc, ctx, log_rq_size, LOG_RQ);
	PRM_SET(qpc, ctx, log_sq_size, LOG_SQ);
	PRM_SET(qpc, ctx, ts_format, MLX5_TIMESTAMP_FORMAT_DEFAULT);
	PRM_SET(qpc, ctx, uar_page, p->uar.page_id);
	PRM_SET(qpc, ctx, cqn_snd, p->cqn);
	PRM_SET(qpc, ctx, cqn_rcv, p->cqn);
	PRM_SET(qpc, ctx, dbr_umem_valid, 1);
	PRM_SET(qpc, ctx, dbr_umem_id, umem(p, p->qp_dbr, 8));
	PRM_SET(create_qp_in, in, wq_umem_id,
		umem(p, p->qp, (16 << LOG_RQ) + (64 << LOG_SQ)));
	PRM_SET(create_qp_in, in, wq_umem_valid, 1);
	p->qpn = create(p, in, PRM_ST_SZ_BYTES(create_qp_in),
			PRM_ST_SZ_BYTES(create_qp_out), 2);
	p->qp_obj = last_obj;
}

static void modify(struct player *p, uint16_t opcode, const struct player *peer,
		   uint32_t psn)
{
	uint8_t in[PRM_ST_SZ_BYTES(rst2init_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(rst2init_qp_out)] = { 0 };
	void *qpc = PRM_ADDR_OF(rst2init_qp_in, in, qpc);

	PRM_SET(rst2init_qp_in, in, opcode, opcode);
	PRM_SET(rst2init_qp_in, in, qpn, p->qpn);
	PRM_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	switch (opcode) {
	case MLX5_CMD_OP_RST2INIT_QP:
		PRM_SET(qpc, qpc, rre, 1);
		PRM_SET(qpc, qpc, rwe, 1);
		break;
	case MLX5_CMD_OP_INIT2RTR_QP:
		PRM_SET(qpc, qpc, mtu, MLX5_QPC_MTU_1K_BYTES);
		PRM_SET(qpc, qpc, log_msg_max, 20);
		PRM_SET(qpc, qpc, remote_qpn, peer->qpn);
		PRM_SET(qpc, qpc, min_rnr_nak, 12);
		PRM_SET(qpc, qpc, next_rcv_psn, psn);
		memcpy(PRM_ADDR_OF(qpc, qpc, primary_address_path.rgid_rip),
		       peer->gid, 16);
		PRM_SET(qpc, qpc, primary_address_path.src_addr_index, 3);
		PRM_SET(qpc, qpc, primary_address_path.hop_limit, 64);
		PRM_SET(qpc, qpc, primary_address_path.udp_sport, 0xdcba);
		break;
	case MLX5_CMD_OP_RTR2RTS_QP:
		PRM_SET(qpc, qpc, primary_address_path.ack_timeout, 14);
		PRM_SET(qpc, qpc, log_sra_max, 4);
		PRM_SET(qpc, qpc, retry_count, 7);
		PRM_SET(qpc, qpc, rnr_retry, 7);
		PRM_SET(qpc, qpc, next_send_psn, psn);
		break;
	}
	ck_assert_int_eq(BE->obj_modify(p->qp_obj, in, sizeof(in), out,
					sizeof(out)), 0);
}

static void to_rts(struct player *p, const struct player *peer, uint32_t psn,
		   uint32_t peer_psn)
{
	modify(p, MLX5_CMD_OP_RST2INIT_QP, peer, 0);
	modify(p, MLX5_CMD_OP_INIT2RTR_QP, peer, peer_psn);
	modify(p, MLX5_CMD_OP_RTR2RTS_QP, peer, psn);
}

/* pyverbs' post_recv: a 16-byte data segment, the RQ doorbell record, no
 * UAR write. */
static void post_recv(struct player *p)
{
	uint8_t *w = p->qp + (size_t)(p->rq_pi & ((1u << LOG_RQ) - 1)) * 16;
	uint32_t v[4] = { htobe32(MSG), htobe32(p->lkey) };
	uint64_t a = htobe64((uint64_t)(uintptr_t)p->buf);

	memcpy(v + 2, &a, 8);
	memcpy(w, v, 16);
	p->rq_pi++;
	__atomic_store_n(&p->qp_dbr[0], htobe32(p->rq_pi & 0xffff),
			 __ATOMIC_RELEASE);
}

/* pyverbs' post_send: SEND_IMM, the SQ record, one 64-bit UAR store of
 * the first 8 bytes of the control segment. */
static void post_send(struct player *p, uint32_t imm)
{
	uint8_t *w = p->qp + (16 << LOG_RQ) +
		     (size_t)(p->sq_pi & ((1u << LOG_SQ) - 1)) * 64;
	uint32_t ctrl[4] = {
		htobe32((p->sq_pi & 0xffff) << 8 | MLX5_OPCODE_SEND_IMM),
		htobe32(p->qpn << 8 | 2), htobe32(MLX5_WQE_CTRL_CQ_UPDATE),
		htobe32(imm),
	};
	uint32_t d[4] = { htobe32(MSG), htobe32(p->lkey) };
	uint64_t a = htobe64((uint64_t)(uintptr_t)p->buf), db;

	memcpy(d + 2, &a, 8);
	memcpy(w, ctrl, 16);
	memcpy(w + 16, d, 16);
	p->sq_pi++;
	__atomic_store_n(&p->qp_dbr[1], htobe32(p->sq_pi & 0xffff),
			 __ATOMIC_RELEASE);
	memcpy(&db, w, 8);
	__atomic_store_n((uint64_t *)(void *)(p->uar_page + 0x800), db,
			 __ATOMIC_RELEASE);
}

/* pyverbs' poll_cq: spin on CQE memory, 5 s at most.  Its CQ starts
 * zeroed, so an entry of opcode 0 and owner 0 is told from a new one only
 * by reading all its bytes: a read racing the device's write by design
 * (tests/unit/engine/tsan.supp). */
static const uint8_t *devx_poll_cq(struct player *p)
{
	static const uint8_t zero[64];
	const uint8_t *e = p->cq + (size_t)(p->ci & ((1u << LOG_CQ) - 1)) * 64;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		uint8_t op = __atomic_load_n(&e[63], __ATOMIC_ACQUIRE);

		if (op >> 4 != MLX5_CQE_INVALID &&
		    (op & 1) == ((p->ci >> LOG_CQ) & 1) && memcmp(e, zero, 64))
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		ck_assert_msg(t.tv_sec - t0.tv_sec < 5, "no CQE %u", p->ci);
	}
	p->ci++;
	__atomic_store_n(&p->cq_dbr[0], htobe32(p->ci & 0xffffff),
			 __ATOMIC_RELEASE);
	return e;
}

/* Close (the kernel layer destroys what the context holds), then free. */
static void player_fini(struct player *p)
{
	BE->close(p->ctx);
	munmap(p->uar_page, 4096);
	free(p->buf);
	free(p->cq);
	free(p->cq_dbr);
	free(p->qp);
	free(p->qp_dbr);
}

START_TEST(devx_rc_send_imm_traffic)
{
	struct player srv, cli;

	player_init(&srv);
	player_init(&cli);
	ck_assert(emu_eng_thread_running());
	to_rts(&srv, &cli, 0x123456, 0xabcdef);
	to_rts(&cli, &srv, 0xabcdef, 0x123456);
	memset(cli.buf, 'c', MSG);
	for (uint32_t i = 0; i < 300; i++) {
		const uint8_t *e;
		uint32_t v;

		post_recv(&srv);
		post_send(&cli, 0x03020100 + i);
		e = devx_poll_cq(&cli);
		ck_assert_uint_eq(e[63] >> 4, MLX5_CQE_REQ);
		memcpy(&v, e + 56, 4);
		ck_assert_uint_eq(be32toh(v), (uint32_t)MLX5_OPCODE_SEND_IMM << 24 |
				  cli.qpn);
		ck_assert_uint_eq(e[60] << 8 | e[61], i & 0xffff);
		e = devx_poll_cq(&srv);
		ck_assert_uint_eq(e[63] >> 4, MLX5_CQE_RESP_SEND_IMM);
		memcpy(&v, e + 36, 4);
		ck_assert_uint_eq(be32toh(v), 0x03020100 + i);
		memcpy(&v, e + 44, 4);
		ck_assert_uint_eq(be32toh(v), MSG);
		memcpy(&v, e + 24, 4);
		ck_assert_uint_eq(be32toh(v) & 0xffffff, cli.qpn);
		for (int k = 0; k < MSG; k++)
			ck_assert_uint_eq(srv.buf[k], 'c');
		memset(srv.buf, 's', MSG);
	}
	player_fini(&cli);
	player_fini(&srv);
}
END_TEST

/* The engine thread stops with the last context and starts with the
 * next: traffic then runs as before. */
START_TEST(devx_thread_follows_contexts)
{
	for (int round = 0; round < 2; round++) {
		struct player srv, cli;
		const uint8_t *e;

		player_init(&srv);
		player_init(&cli);
		ck_assert(emu_eng_thread_running());
		to_rts(&srv, &cli, 0x10, 0x20);
		to_rts(&cli, &srv, 0x20, 0x10);
		post_recv(&srv);
		post_send(&cli, 7);
		e = devx_poll_cq(&cli);
		ck_assert_uint_eq(e[63] >> 4, MLX5_CQE_REQ);
		e = devx_poll_cq(&srv);
		ck_assert_uint_eq(e[63] >> 4, MLX5_CQE_RESP_SEND_IMM);
		player_fini(&cli);
		ck_assert(emu_eng_thread_running());
		player_fini(&srv);
		ck_assert(!emu_eng_thread_running());
	}
}
END_TEST

/* An RDMA WRITE of 8 bytes to (raddr, rkey), the SQ record rung. */
static void post_write(struct player *p, uint64_t raddr, uint32_t rkey)
{
	uint8_t *w = p->qp + (16 << LOG_RQ) +
		     (size_t)(p->sq_pi & ((1u << LOG_SQ) - 1)) * 64;
	uint32_t ctrl[4] = {
		htobe32((p->sq_pi & 0xffff) << 8 | MLX5_OPCODE_RDMA_WRITE),
		htobe32(p->qpn << 8 | 3), htobe32(MLX5_WQE_CTRL_CQ_UPDATE), 0,
	};
	uint32_t r[4] = { 0, 0, htobe32(rkey) }, d[4] = { htobe32(8),
							  htobe32(p->lkey) };
	uint64_t a = htobe64(raddr), l = htobe64((uint64_t)(uintptr_t)p->buf);

	memcpy(r, &a, 8);
	memcpy(d + 2, &l, 8);
	memcpy(w, ctrl, 16);
	memcpy(w + 16, r, 16);
	memcpy(w + 32, d, 16);
	p->sq_pi++;
	__atomic_store_n(&p->qp_dbr[1], htobe32(p->sq_pi & 0xffff),
			 __ATOMIC_RELEASE);
}

/* libmlx5's arm: the record's word 1, then the CQ doorbell at 0x20. */
static void arm_cq(struct player *p, unsigned int sn)
{
	uint32_t w = sn << 28 | (p->ci & 0xffffff);

	__atomic_store_n(&p->cq_dbr[1], htobe32(w), __ATOMIC_RELEASE);
	__atomic_store_n((uint64_t *)(void *)(p->uar_page + 0x20),
			 htobe64((uint64_t)w << 32 | p->cqn), __ATOMIC_RELEASE);
}

static struct mlx5be_event_channel *events_of(struct player *p, uint32_t flags,
					      struct mlx5be_obj *obj,
					      const uint16_t *types, size_t n,
					      uint64_t cookie)
{
	struct mlx5be_event_channel *ch = BE->event_channel_create(p->ctx, flags);
	int fd;

	ck_assert_ptr_nonnull(ch);
	fd = BE->event_channel_fd(ch);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	ck_assert_int_eq(BE->event_subscribe(ch, obj, types, n, cookie), 0);
	return ch;
}

/* An event within 5 s (the engine thread raises it). */
static ssize_t wait_event(struct mlx5be_event_channel *ch,
			  struct mlx5be_event *ev, size_t len)
{
	struct pollfd pfd = { .fd = BE->event_channel_fd(ch), .events = POLLIN };

	ck_assert_int_eq(poll(&pfd, 1, 5000), 1);
	return BE->event_read(ch, ev, len);
}

static uint32_t eqe_num(const struct mlx5be_event *ev)
{
	return (uint32_t)ev->eqe[57] << 16 | ev->eqe[58] << 8 | ev->eqe[59];
}

/* A responder's access error, which no CQE of its reports: the
 * channel subscribed to that QP and type gets the EQE, no other. */
START_TEST(devx_object_events)
{
	static const uint16_t qpev[] = {
		MLX5_EVENT_TYPE_WQ_ACCESS_ERROR, MLX5_EVENT_TYPE_COMM_EST,
		MLX5_EVENT_TYPE_WQ_CATAS_ERROR,
	};
	static const uint16_t cqev = MLX5_EVENT_TYPE_CQ_ERROR;
	struct mlx5be_event_channel *qc, *other;
	struct player srv, cli;
	struct mlx5be_event ev;

	player_init(&srv);
	player_init(&cli);
	to_rts(&srv, &cli, 0x10, 0x20);
	to_rts(&cli, &srv, 0x20, 0x10);
	qc = events_of(&srv, 0, srv.qp_obj, qpev, 3, 0x5e5e);
	other = events_of(&srv, 0, srv.cq_obj, &cqev, 1, 1);
	post_write(&cli, (uint64_t)(uintptr_t)srv.buf, 0x12345678);
	ck_assert_uint_eq(devx_poll_cq(&cli)[63] >> 4, MLX5_CQE_REQ_ERR);
	ck_assert_int_eq(wait_event(qc, &ev, sizeof(ev)), 72);
	ck_assert_uint_eq(ev.cookie, 0x5e5e);
	ck_assert_uint_eq(ev.eqe[1], MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
	ck_assert_uint_eq(ev.eqe[52], 0);	/* queue type: QP */
	ck_assert_uint_eq(eqe_num(&ev), srv.qpn);
	ck_assert_int_eq(BE->event_read(qc, &ev, sizeof(ev)), -EAGAIN);
	ck_assert_int_eq(BE->event_read(other, &ev, sizeof(ev)), -EAGAIN);
	BE->event_channel_destroy(qc);
	BE->event_channel_destroy(other);
	player_fini(&cli);
	player_fini(&srv);
}
END_TEST

/* A DEVX CQ armed as libmlx5 arms: one completion event per arm, to the
 * OMIT_DATA channel subscribed to it (its cookie only); the first packet
 * a QP in RTR receives: COMM_EST. */
START_TEST(devx_completion_events)
{
	static const uint16_t comp = MLX5_EVENT_TYPE_COMP;
	static const uint16_t est = MLX5_EVENT_TYPE_COMM_EST;
	struct mlx5be_event_channel *cc, *qc;
	struct player srv, cli;
	struct mlx5be_event ev;

	player_init(&srv);
	player_init(&cli);
	to_rts(&cli, &srv, 0x20, 0x10);
	modify(&srv, MLX5_CMD_OP_RST2INIT_QP, &cli, 0);
	modify(&srv, MLX5_CMD_OP_INIT2RTR_QP, &cli, 0x20);
	qc = events_of(&srv, 0, srv.qp_obj, &est, 1, 0xe57);
	cc = events_of(&cli, MLX5BE_EVENT_CHANNEL_OMIT_DATA, cli.cq_obj, &comp,
		       1, 0xc0);
	arm_cq(&cli, 0);
	post_write(&cli, (uint64_t)(uintptr_t)srv.buf, srv.lkey);
	ck_assert_uint_eq(devx_poll_cq(&cli)[63] >> 4, MLX5_CQE_REQ);
	ck_assert_int_eq(wait_event(cc, &ev, 8), 8);
	ck_assert_uint_eq(ev.cookie, 0xc0);
	ck_assert_int_eq(wait_event(qc, &ev, sizeof(ev)), 72);
	ck_assert_uint_eq(ev.eqe[1], MLX5_EVENT_TYPE_COMM_EST);
	ck_assert_uint_eq(eqe_num(&ev), srv.qpn);
	/* One event per arm. */
	post_write(&cli, (uint64_t)(uintptr_t)srv.buf, srv.lkey);
	devx_poll_cq(&cli);
	usleep(20000);
	ck_assert_int_eq(BE->event_read(cc, &ev, 8), -EAGAIN);
	/* The next arm carries the sequence after the event. */
	arm_cq(&cli, 1);
	post_write(&cli, (uint64_t)(uintptr_t)srv.buf, srv.lkey);
	devx_poll_cq(&cli);
	ck_assert_int_eq(wait_event(cc, &ev, 8), 8);
	BE->event_channel_destroy(cc);
	BE->event_channel_destroy(qc);
	player_fini(&cli);
	player_fini(&srv);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("eng_devx");
	TCase *tc = tcase_create("devx");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, devx_rc_send_imm_traffic);
	tcase_add_test(tc, devx_thread_follows_contexts);
	tcase_add_test(tc, devx_object_events);
	tcase_add_test(tc, devx_completion_events);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
