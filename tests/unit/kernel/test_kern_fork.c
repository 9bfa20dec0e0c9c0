/* SPDX-License-Identifier: MIT */
/*
 * fork() with open DEVX contexts and traffic, through the backend ops
 * (tests/unit/engine/devx_player.c).  Threaded mode (the default).
 *
 * The child: its inherited contexts are those of a device after a fatal
 * error (every command and kernel service fails with EIO; destroy and
 * close succeed; a WQE it posts never completes), new opens get a fresh
 * device with other addresses whose traffic runs, and it touches nothing
 * the parent sees: the UAR page it rings (the memfd page, MAP_SHARED in
 * the parent) keeps the parent's bytes, and the parent's async-command fd
 * keeps its queued response.  The parent's traffic goes on meanwhile.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/firmware/fw_objs.h"	/* first: liburcu, bp flavour */

#include <check.h>

#include <infiniband/mlx5dv.h>

#include "emu/engine/eng.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "devx_player.h"

static struct dp_player srv, cli;

static void setup(void)
{
	dp_player_init(&srv);
	dp_player_init(&cli);
	dp_to_rts(&srv, &cli, 0x100, 0x200);
	dp_to_rts(&cli, &srv, 0x200, 0x100);
}

static void teardown(void)
{
	dp_player_fini(&cli);
	dp_player_fini(&srv);
}

/* One SEND cli -> srv by doorbell record only (the UAR page untouched),
 * both CQEs checked. */
static void parent_send(uint32_t imm)
{
	dp_post_recv(&srv);
	dp_post_send(&cli, imm, false);
	ck_assert_uint_eq(dp_poll_cq(&cli, NULL)[63] >> 4, MLX5_CQE_REQ);
	ck_assert_uint_eq(dp_poll_cq(&srv, NULL)[63] >> 4,
			  MLX5_CQE_RESP_SEND_IMM);
}

static uint8_t hca_cap_out[PRM_ST_SZ_BYTES(query_hca_cap_out)];

static int query_hca_cap(struct mlx5be_ctx *ctx)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };

	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, HCA_CAP_OPMOD_GET_CUR);
	return DP_BE->general_cmd(ctx, in, sizeof(in), hca_cap_out,
				  sizeof(hca_cap_out));
}

static int query_qp(struct dp_player *p)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)];

	PRM_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	PRM_SET(query_qp_in, in, qpn, p->qpn);
	return DP_BE->obj_query(p->qp_obj, in, sizeof(in), out, sizeof(out));
}

static int query_qp_async(struct dp_player *p, struct mlx5be_cmd_comp *comp)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_qp_in)] = { 0 };

	PRM_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	PRM_SET(query_qp_in, in, qpn, p->qpn);
	return DP_BE->obj_query_async(p->qp_obj, in, sizeof(in),
				      PRM_ST_SZ_BYTES(query_qp_out), 7, comp);
}

/* What the child checks; its exit status is the first failed step. */
/* An event channel of the parent's, empty at fork(). */
static struct mlx5be_event_channel *ech;

static int child(struct mlx5be_cmd_comp *comp)
{
	struct mlx5be_gid_entry g;
	struct mlx5be_port_attr pa;
	struct mlx5be_uar_info ui;
	struct dp_player s2, c2;
	uint8_t page[64];
	uint32_t id, eqn;
	int step = 0;

	/* The inherited context rings its UAR with a full WQE and posts. */
	memset(page, 0xa5, sizeof(page));
	dp_post_send(&cli, 0xdead, true);
	memcpy(cli.uar_page + 0xa00, page, sizeof(page));	/* BlueFlame */
	for (int i = 0; i < 50; i++) {
		emu_eng_progress(EMU_ENG_WHY_POLL);
		usleep(1000);
	}
	step++;
	if (dp_cq_ready(&cli))
		return step;
	/* Commands and kernel services: EIO. */
	step++;
	if (query_hca_cap(cli.ctx) != -EIO || query_qp(&cli) != -EIO ||
	    query_qp_async(&cli, comp) != -EIO)
		return step;
	step++;
	errno = 0;
	if (DP_BE->umem_reg(cli.ctx, cli.buf, DP_MSG, 0, 4096, &id) ||
	    errno != EIO)
		return step;
	step++;
	errno = 0;
	if (DP_BE->uar_alloc(cli.ctx, MLX5DV_UAR_ALLOC_TYPE_NC, &ui) ||
	    errno != EIO || DP_BE->cmd_comp_create(cli.ctx) || errno != EIO)
		return step;
	step++;
	if (DP_BE->query_port(cli.ctx, 1, &pa) != -EIO ||
	    DP_BE->query_gid(cli.ctx, 1, 3, &g) != -EIO ||
	    DP_BE->query_eqn(cli.ctx, 0, &eqn) != -EIO)
		return step;
	/* The inherited async-command fd: closed as at teardown. */
	step++;
	{
		struct mlx5be_async_cmd_resp r = { .out = hca_cap_out,
						   .outlen = sizeof(hca_cap_out) };

		if (DP_BE->cmd_comp_get(comp, &r) != -EIO)
			return step;
		DP_BE->cmd_comp_destroy(comp);
	}
	/* The event channel's and the verbs events' descriptors are the
	 * child's own: what it writes there the parent never sees. */
	step++;
	if (write(DP_BE->event_channel_fd(ech), &(uint64_t){ 1 }, 8) != 8 ||
	    write(DP_BE->async_event_fd(cli.ctx), &(uint64_t){ 1 }, 8) != 8)
		return step;
	DP_BE->event_channel_destroy(ech);
	/* Teardown succeeds. */
	step++;
	if (DP_BE->obj_destroy(cli.qp_obj))
		return step;
	dp_player_fini(&cli);
	dp_player_fini(&srv);
	/* A new open: a fresh device, other addresses, traffic runs. */
	dp_player_init(&s2);
	dp_player_init(&c2);
	step++;
	if (!memcmp(s2.gid, srv.gid, 16) || query_hca_cap(s2.ctx))
		return step;
	dp_to_rts(&s2, &c2, 1, 2);
	dp_to_rts(&c2, &s2, 2, 1);
	dp_post_recv(&s2);
	dp_post_send(&c2, 5, true);
	step++;
	if (dp_poll_cq(&c2, NULL)[63] >> 4 != MLX5_CQE_REQ ||
	    dp_poll_cq(&s2, NULL)[63] >> 4 != MLX5_CQE_RESP_SEND_IMM)
		return step;
	dp_player_fini(&c2);
	dp_player_fini(&s2);
	return 0;
}

START_TEST(child_has_a_dead_device_parent_goes_on)
{
	struct mlx5be_cmd_comp *comp = DP_BE->cmd_comp_create(cli.ctx);
	struct mlx5be_async_cmd_resp r;
	uint8_t uar_before[4096], out[PRM_ST_SZ_BYTES(query_qp_out)];
	struct pollfd pfd;
	pid_t pid;
	int st;

	ck_assert_ptr_nonnull(comp);
	ech = DP_BE->event_channel_create(cli.ctx, 0);
	ck_assert_ptr_nonnull(ech);
	parent_send(1);
	/* A response waits on the parent's async-command fd. */
	ck_assert_int_eq(query_qp_async(&cli, comp), 0);
	memcpy(uar_before, cli.uar_page, sizeof(uar_before));
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		exit(child(comp));	/* exit handlers included */
	for (uint32_t i = 0; i < 200; i++)
		parent_send(0x1000 + i);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "child failed at step %d (status 0x%x)", WEXITSTATUS(st), st);
	/* Nothing of the child's reached the parent. */
	ck_assert_int_eq(memcmp(cli.uar_page, uar_before, sizeof(uar_before)), 0);
	pfd = (struct pollfd){ .fd = DP_BE->cmd_comp_fd(comp), .events = POLLIN };
	ck_assert_int_eq(poll(&pfd, 1, 0), 1);
	r = (struct mlx5be_async_cmd_resp){ .out = out, .outlen = sizeof(out) };
	ck_assert_int_eq(DP_BE->cmd_comp_get(comp, &r), 0);
	ck_assert_uint_eq(r.wr_id, 7);
	ck_assert_int_eq(poll(&pfd, 1, 0), 0);
	pfd.fd = DP_BE->event_channel_fd(ech);
	ck_assert_int_eq(poll(&pfd, 1, 0), 0);
	pfd.fd = DP_BE->async_event_fd(cli.ctx);
	ck_assert_int_eq(poll(&pfd, 1, 0), 0);
	DP_BE->event_channel_destroy(ech);
	/* The parent's device and its commands work as before. */
	ck_assert_int_eq(query_hca_cap(cli.ctx), 0);
	ck_assert_int_eq(query_qp(&cli), 0);
	parent_send(2);
	DP_BE->cmd_comp_destroy(comp);
}
END_TEST

/* The parent's traffic runs on a thread of its own while it forks. */
static atomic_bool stop, traffic_bad;

/*
 * parent_send() for that thread, without check's assertions: they keep
 * the last place in process-wide state (a heap string each), which two
 * threads asserting at once leak, and which a child forked mid-assertion
 * inherits with no thread left to free it.
 */
static bool traffic_send(uint32_t imm)
{
	bool req, resp;

	dp_post_recv(&srv);
	dp_post_send(&cli, imm, false);
	req = dp_poll_cq(&cli, NULL)[63] >> 4 == MLX5_CQE_REQ;
	resp = dp_poll_cq(&srv, NULL)[63] >> 4 == MLX5_CQE_RESP_SEND_IMM;
	return req && resp;
}

static void *traffic(void *arg)
{
	for (uint32_t i = 0; !atomic_load(&stop); i++) {
		if (!traffic_send(i)) {
			atomic_store(&traffic_bad, true);
			break;
		}
	}
	return NULL;
}

START_TEST(fork_during_traffic)
{
	pthread_t t;
	pid_t pid;
	int st;

	ck_assert_int_eq(pthread_create(&t, NULL, traffic, NULL), 0);
	usleep(20000);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* The traffic thread is not here; its context is dead. */
		struct dp_player s2, c2;

		if (query_hca_cap(cli.ctx) != -EIO)
			_exit(1);
		dp_player_init(&s2);
		dp_player_init(&c2);
		dp_to_rts(&s2, &c2, 1, 2);
		dp_to_rts(&c2, &s2, 2, 1);
		dp_post_recv(&s2);
		dp_post_send(&c2, 5, true);
		if (dp_poll_cq(&c2, NULL)[63] >> 4 != MLX5_CQE_REQ)
			_exit(2);
		exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x", st);
	usleep(20000);
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	ck_assert(!atomic_load(&traffic_bad));
	parent_send(3);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kern_fork");
	TCase *tc = tcase_create("fork");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, child_has_a_dead_device_parent_goes_on);
	tcase_add_test(tc, fork_during_traffic);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
