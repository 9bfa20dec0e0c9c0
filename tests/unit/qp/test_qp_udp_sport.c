/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_modify_qp_udp_sport: the RTS2RTS it issues (read back with
 * QUERY_QP), the EOPNOTSUPP libmlx5 44 gives outside RC/UC in RTS or
 * without the capability (nothing changed), and the frames on the wire:
 * a UC QP writing to a peer that is not in this process sends its RoCE v2
 * packets from the port in its path, then from the new one (read from the
 * port's capture, parsed here from the bytes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "qp_test.h"

static uint32_t fw_udp_sport(struct ibv_qp *qp)
{
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)] = { 0 };

	ck_assert_int_eq(qt_devx_query_qp(qp, out), 0);
	return PRM_GET(query_qp_out, out, qpc.primary_address_path.udp_sport);
}

START_TEST(test_rc_rts)
{
	struct ibv_qp *qp = qt_create(IBV_QPT_RC, 4, 4);
	uint32_t before;

	qt_rc_to_rts(qp, qp->qp_num, 1);
	before = fw_udp_sport(qp);
	ck_assert_uint_ne(before, 0xd00d);
	ck_assert_int_eq(mlx5dv_modify_qp_udp_sport(qp, 0xd00d), 0);
	ck_assert_uint_eq(fw_udp_sport(qp), 0xd00d);
	ck_assert_int_eq(qt_fw_state(qp), MLX5_QPC_STATE_RTS);
	ck_assert_int_eq(qp->state, IBV_QPS_RTS);
	ck_assert_int_eq(mlx5dv_modify_qp_udp_sport(qp, 0), 0);
	ck_assert_uint_eq(fw_udp_sport(qp), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

/* Not RTS, not RC/UC: EOPNOTSUPP and the context as it was. */
START_TEST(test_not_offered)
{
	struct ibv_qp *rc = qt_create(IBV_QPT_RC, 4, 4);
	struct ibv_qp *ud = qt_create(IBV_QPT_UD, 4, 4);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	ck_assert_int_eq(mlx5dv_modify_qp_udp_sport(rc, 0xd00d), EOPNOTSUPP);
	ck_assert_int_eq(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	ck_assert_int_eq(mlx5dv_modify_qp_udp_sport(rc, 0xd00d), EOPNOTSUPP);
	ck_assert_uint_eq(fw_udp_sport(rc), 0);
	qt_ud_to_rts(ud, 0x11, 0);
	ck_assert_int_eq(mlx5dv_modify_qp_udp_sport(ud, 0xd00d), EOPNOTSUPP);
	ck_assert_int_eq(ibv_destroy_qp(ud), 0);
	ck_assert_int_eq(ibv_destroy_qp(rc), 0);
}
END_TEST

/* A device configured without rts2rts_qp_udp_sport. */
START_TEST(test_no_capability)
{
	struct ibv_qp *qp;
	uint32_t before;

	qt_clear_env();
	setenv("MLX5EMU_CAPS", "rts2rts_qp_udp_sport=0", 1);
	qt_open();
	qp = qt_create(IBV_QPT_RC, 4, 4);
	qt_rc_to_rts(qp, qp->qp_num, 1);
	before = fw_udp_sport(qp);
	ck_assert_int_eq(mlx5dv_modify_qp_udp_sport(qp, 0xd00d), EOPNOTSUPP);
	ck_assert_uint_eq(fw_udp_sport(qp), before);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

/* ---- the wire ---- */

static char capdir[] = "/tmp/mlx5emu-udp-sport-XXXXXX";
static char capfile[512];

/*
 * The UDP source ports of the captured RoCE v2 frames to QP @dqpn, in
 * order: classic pcap (24-byte header, 16-byte record headers, host
 * order), Ethernet, IPv4 (ethertype 0x0800, IHL 5), UDP to 4791, BTH.
 */
static unsigned int captured_sports(uint32_t dqpn, uint16_t *sport,
				    unsigned int max)
{
	uint8_t buf[1 << 16];
	unsigned int n = 0;
	size_t len, off = 24;
	int fd = open(capfile, O_RDONLY);
	ssize_t r;

	if (fd < 0)
		return 0;
	r = read(fd, buf, sizeof(buf));
	close(fd);
	len = r > 0 ? (size_t)r : 0;
	while (off + 16 <= len && n < max) {
		uint32_t incl;
		const uint8_t *f = buf + off + 16;

		memcpy(&incl, buf + off + 8, 4);
		if (off + 16 + incl > len)
			break;
		if (incl >= 54 && f[12] == 0x08 && f[13] == 0x00 &&
		    f[14] == 0x45 && f[23] == 17 &&
		    (f[36] << 8 | f[37]) == 4791 &&
		    (uint32_t)(f[42 + 5] << 16 | f[42 + 6] << 8 | f[42 + 7]) ==
		    dqpn)
			sport[n++] = (uint16_t)(f[34] << 8 | f[35]);
		off += 16 + incl;
	}
	return n;
}

static void write_once(struct ibv_qp *qp, struct ibv_mr *mr)
{
	struct ibv_sge sge = { .addr = (uintptr_t)mr->addr, .length = 64,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = 0x10000, .rkey = 0x1234 },
	}, *bad;
	struct ibv_wc wc;
	int n = 0;

	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	for (int i = 0; i < 5000 && !n; i++) {
		n = ibv_poll_cq(qt_cq, 1, &wc);
		if (!n)
			usleep(1000);
	}
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
}

/* Waits until @want frames to @dqpn are in the capture. */
static unsigned int wait_frames(uint32_t dqpn, uint16_t *sport,
				unsigned int want)
{
	unsigned int n = 0;

	for (int i = 0; i < 5000 && n < want; i++) {
		n = captured_sports(dqpn, sport, 16);
		if (n < want)
			usleep(1000);
	}
	return n;
}

START_TEST(test_wire_sport)
{
	/* ::ffff:127.0.99.2: a port no device of this process has. */
	union ibv_gid peer = { .raw = { [10] = 0xff, [11] = 0xff, [12] = 127,
					[14] = 99, [15] = 2 } };
	static char buf[4096] __attribute__((aligned(64)));
	uint16_t sport[16];
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint32_t path;

	ck_assert_ptr_nonnull(mkdtemp(capdir));
	qt_clear_env();
	setenv("MLX5EMU_WIRE_CAPTURE", capdir, 1);
	qt_open();
	snprintf(capfile, sizeof(capfile), "%s/mlx5emu-%d-mlx5_0-p1.pcap",
		 capdir, (int)getpid());
	mr = ibv_reg_mr(qt_pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	qp = qt_create(IBV_QPT_UC, 4, 4);
	qt_rc_connect(qp, 0x4242, &peer, 3, IBV_ACCESS_REMOTE_WRITE, 0, 0);
	path = fw_udp_sport(qp);

	write_once(qp, mr);
	ck_assert_uint_eq(wait_frames(0x4242, sport, 1), 1);
	ck_assert_uint_eq(sport[0], path);

	ck_assert_int_eq(mlx5dv_modify_qp_udp_sport(qp, 0xd00d), 0);
	write_once(qp, mr);
	ck_assert_uint_eq(wait_frames(0x4242, sport, 2), 2);
	ck_assert_uint_eq(sport[0], path);
	ck_assert_uint_eq(sport[1], 0xd00d);

	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	unlink(capfile);
	rmdir(capdir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("qp_udp_sport");
	TCase *tc = tcase_create("udp_sport");
	TCase *bare = tcase_create("bare");

	tcase_add_checked_fixture(tc, qt_setup, qt_teardown);
	tcase_add_test(tc, test_rc_rts);
	tcase_add_test(tc, test_not_offered);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(bare, NULL, qt_teardown);
	tcase_add_test(bare, test_no_capability);
	tcase_add_test(bare, test_wire_sport);
	suite_add_tcase(s, bare);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
