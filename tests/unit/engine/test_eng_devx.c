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
#include <unistd.h>

#include "emu/firmware/fw_objs.h"	/* first: liburcu, bp flavour */

#include <check.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "emu/engine/eng.h"
#include "devx_player.h"

START_TEST(devx_rc_send_imm_traffic)
{
	struct dp_player srv, cli;

	dp_player_init(&srv);
	dp_player_init(&cli);
	ck_assert(emu_eng_thread_running());
	dp_to_rts(&srv, &cli, 0x123456, 0xabcdef);
	dp_to_rts(&cli, &srv, 0xabcdef, 0x123456);
	memset(cli.buf, 'c', DP_MSG);
	for (uint32_t i = 0; i < 300; i++) {
		const uint8_t *e;
		uint32_t v;

		dp_post_recv(&srv);
		dp_post_send(&cli, 0x03020100 + i, true);
		e = dp_poll_cq(&cli, NULL);
		ck_assert_uint_eq(e[63] >> 4, MLX5_CQE_REQ);
		memcpy(&v, e + 56, 4);
		ck_assert_uint_eq(be32toh(v), (uint32_t)MLX5_OPCODE_SEND_IMM << 24 |
				  cli.qpn);
		ck_assert_uint_eq(e[60] << 8 | e[61], i & 0xffff);
		e = dp_poll_cq(&srv, NULL);
		ck_assert_uint_eq(e[63] >> 4, MLX5_CQE_RESP_SEND_IMM);
		memcpy(&v, e + 36, 4);
		ck_assert_uint_eq(be32toh(v), 0x03020100 + i);
		memcpy(&v, e + 44, 4);
		ck_assert_uint_eq(be32toh(v), DP_MSG);
		memcpy(&v, e + 24, 4);
		ck_assert_uint_eq(be32toh(v) & 0xffffff, cli.qpn);
		for (int k = 0; k < DP_MSG; k++)
			ck_assert_uint_eq(srv.buf[k], 'c');
		memset(srv.buf, 's', DP_MSG);
	}
	dp_player_fini(&cli);
	dp_player_fini(&srv);
}
END_TEST

/* The engine thread stops with the last context and starts with the
 * next: traffic then runs as before. */
START_TEST(devx_thread_follows_contexts)
{
	for (int round = 0; round < 2; round++) {
		struct dp_player srv, cli;
		const uint8_t *e;

		dp_player_init(&srv);
		dp_player_init(&cli);
		ck_assert(emu_eng_thread_running());
		dp_to_rts(&srv, &cli, 0x10, 0x20);
		dp_to_rts(&cli, &srv, 0x20, 0x10);
		dp_post_recv(&srv);
		dp_post_send(&cli, 7, true);
		e = dp_poll_cq(&cli, NULL);
		ck_assert_uint_eq(e[63] >> 4, MLX5_CQE_REQ);
		e = dp_poll_cq(&srv, NULL);
		ck_assert_uint_eq(e[63] >> 4, MLX5_CQE_RESP_SEND_IMM);
		dp_player_fini(&cli);
		ck_assert(emu_eng_thread_running());
		dp_player_fini(&srv);
		ck_assert(!emu_eng_thread_running());
	}
}
END_TEST

/* An RDMA WRITE of 8 bytes to (raddr, rkey), the SQ record rung. */
static void post_write(struct dp_player *p, uint64_t raddr, uint32_t rkey)
{
	uint8_t *w = p->qp + (16 << DP_LOG_RQ) +
		     (size_t)(p->sq_pi & ((1u << DP_LOG_SQ) - 1)) * 64;
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
static void arm_cq(struct dp_player *p, unsigned int sn)
{
	uint32_t w = sn << 28 | (p->ci & 0xffffff);

	__atomic_store_n(&p->cq_dbr[1], htobe32(w), __ATOMIC_RELEASE);
	__atomic_store_n((uint64_t *)(void *)(p->uar_page + 0x20),
			 htobe64((uint64_t)w << 32 | p->cqn), __ATOMIC_RELEASE);
}

static struct mlx5be_event_channel *events_of(struct dp_player *p, uint32_t flags,
					      struct mlx5be_obj *obj,
					      const uint16_t *types, size_t n,
					      uint64_t cookie)
{
	struct mlx5be_event_channel *ch = DP_BE->event_channel_create(p->ctx, flags);
	int fd;

	ck_assert_ptr_nonnull(ch);
	fd = DP_BE->event_channel_fd(ch);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	ck_assert_int_eq(DP_BE->event_subscribe(ch, obj, types, n, cookie), 0);
	return ch;
}

/* An event within 5 s (the engine thread raises it). */
static ssize_t wait_event(struct mlx5be_event_channel *ch,
			  struct mlx5be_event *ev, size_t len)
{
	struct pollfd pfd = { .fd = DP_BE->event_channel_fd(ch), .events = POLLIN };

	ck_assert_int_eq(poll(&pfd, 1, 5000), 1);
	return DP_BE->event_read(ch, ev, len);
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
	struct dp_player srv, cli;
	struct mlx5be_event ev;

	dp_player_init(&srv);
	dp_player_init(&cli);
	dp_to_rts(&srv, &cli, 0x10, 0x20);
	dp_to_rts(&cli, &srv, 0x20, 0x10);
	qc = events_of(&srv, 0, srv.qp_obj, qpev, 3, 0x5e5e);
	other = events_of(&srv, 0, srv.cq_obj, &cqev, 1, 1);
	post_write(&cli, (uint64_t)(uintptr_t)srv.buf, 0x12345678);
	ck_assert_uint_eq(dp_poll_cq(&cli, NULL)[63] >> 4, MLX5_CQE_REQ_ERR);
	ck_assert_int_eq(wait_event(qc, &ev, sizeof(ev)), 72);
	ck_assert_uint_eq(ev.cookie, 0x5e5e);
	ck_assert_uint_eq(ev.eqe[1], MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
	ck_assert_uint_eq(ev.eqe[52], 0);	/* queue type: QP */
	ck_assert_uint_eq(eqe_num(&ev), srv.qpn);
	ck_assert_int_eq(DP_BE->event_read(qc, &ev, sizeof(ev)), -EAGAIN);
	ck_assert_int_eq(DP_BE->event_read(other, &ev, sizeof(ev)), -EAGAIN);
	DP_BE->event_channel_destroy(qc);
	DP_BE->event_channel_destroy(other);
	dp_player_fini(&cli);
	dp_player_fini(&srv);
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
	struct dp_player srv, cli;
	struct mlx5be_event ev;

	dp_player_init(&srv);
	dp_player_init(&cli);
	dp_to_rts(&cli, &srv, 0x20, 0x10);
	dp_modify(&srv, MLX5_CMD_OP_RST2INIT_QP, &cli, 0);
	dp_modify(&srv, MLX5_CMD_OP_INIT2RTR_QP, &cli, 0x20);
	qc = events_of(&srv, 0, srv.qp_obj, &est, 1, 0xe57);
	cc = events_of(&cli, MLX5BE_EVENT_CHANNEL_OMIT_DATA, cli.cq_obj, &comp,
		       1, 0xc0);
	arm_cq(&cli, 0);
	post_write(&cli, (uint64_t)(uintptr_t)srv.buf, srv.lkey);
	ck_assert_uint_eq(dp_poll_cq(&cli, NULL)[63] >> 4, MLX5_CQE_REQ);
	ck_assert_int_eq(wait_event(cc, &ev, 8), 8);
	ck_assert_uint_eq(ev.cookie, 0xc0);
	ck_assert_int_eq(wait_event(qc, &ev, sizeof(ev)), 72);
	ck_assert_uint_eq(ev.eqe[1], MLX5_EVENT_TYPE_COMM_EST);
	ck_assert_uint_eq(eqe_num(&ev), srv.qpn);
	/* One event per arm. */
	post_write(&cli, (uint64_t)(uintptr_t)srv.buf, srv.lkey);
	dp_poll_cq(&cli, NULL);
	usleep(20000);
	ck_assert_int_eq(DP_BE->event_read(cc, &ev, 8), -EAGAIN);
	/* The next arm carries the sequence after the event. */
	arm_cq(&cli, 1);
	post_write(&cli, (uint64_t)(uintptr_t)srv.buf, srv.lkey);
	dp_poll_cq(&cli, NULL);
	ck_assert_int_eq(wait_event(cc, &ev, 8), 8);
	DP_BE->event_channel_destroy(cc);
	DP_BE->event_channel_destroy(qc);
	dp_player_fini(&cli);
	dp_player_fini(&srv);
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
