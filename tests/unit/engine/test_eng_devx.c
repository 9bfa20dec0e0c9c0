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
#include <stdlib.h>

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

int main(void)
{
	Suite *s = suite_create("eng_devx");
	TCase *tc = tcase_create("devx");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, devx_rc_send_imm_traffic);
	tcase_add_test(tc, devx_thread_follows_contexts);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
