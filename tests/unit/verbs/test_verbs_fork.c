/* SPDX-License-Identifier: MIT */
/*
 * fork() with open verbs contexts, through the drop-in libraries
 * (provider/verbs/fork.c, emu/kernel/kern_fork.c).  Threaded mode (the
 * default).
 *
 * In the child an inherited context reports IBV_EVENT_DEVICE_FATAL (port
 * 1) on its async_fd, which is a descriptor of its own (and so are its
 * completion channels); commands fail with EIO while destroy and close
 * succeed; a new open gives a fresh device with other addresses.  A WQE
 * rung through the QP's BlueFlame register (mlx5dv_init_obj) lands in the
 * child's own page.  The parent's async_fd gets nothing, its UAR page
 * keeps its bytes, and its commands work on.  And ibv_fork_init(),
 * ibv_is_fork_initialized() and RDMAV_FORK_SAFE answer as rdma-core 44's
 * libibverbs does on a kernel with copy-on-fork.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_test.h"
#include "ut_env.h"

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_comp_channel *ch;
static struct ibv_qp *qp;

static void setup(void)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 } };

	ut_clear_env();
	ctx = vt_open(false);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	ch = ibv_create_comp_channel(ctx);
	ck_assert_ptr_nonnull(ch);
	cq = ibv_create_cq(ctx, 16, NULL, ch, 0);
	ck_assert_ptr_nonnull(cq);
	qa.send_cq = qa.recv_cq = cq;
	qp = ibv_create_qp(pd, &qa);
	ck_assert_ptr_nonnull(qp);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

static ino_t ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

/* What an epoll set holds (the "tfd:" lines of its fdinfo: each member's
 * number and inode): an inherited set is the parent's too, a fresh one
 * holds fresh members. */
static void epoll_members(int fd, char *buf, size_t len)
{
	char path[64], line[256];
	size_t n = 0;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "tfd:", 4) && n + strlen(line) < len)
			n += (size_t)snprintf(buf + n, len - n, "%s", line);
	fclose(f);
}

struct parent_view {
	ino_t async_ino;
	char async_set[1024], ch_set[1024];
	union ibv_gid gid;
};

/* The child's checks; its exit status is the first step that failed. */
static int child(const struct parent_view *pv, struct mlx5dv_qp *dv)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp_init_attr init;
	struct ibv_async_event ev;
	struct ibv_device **list;
	struct ibv_context *fresh;
	union ibv_gid gid;
	uint64_t db = 0x1122334455667788ull;
	char set[1024];
	int step = 0;

	/* Fresh descriptors under the same numbers: async_fd and the
	 * channel are other epoll sets, of the child's own pipes. */
	step++;
	epoll_members(ctx->async_fd, set, sizeof(set));
	if (!ino(ctx->async_fd) || !*set || !strcmp(set, pv->async_set))
		return step;
	/* The device is gone: DEVICE_FATAL waits on async_fd. */
	step++;
	if (!readable(ctx->async_fd) || ibv_get_async_event(ctx, &ev) ||
	    ev.event_type != IBV_EVENT_DEVICE_FATAL ||
	    ev.element.port_num != 1)
		return step;
	ibv_ack_async_event(&ev);
	step++;
	epoll_members(ch->fd, set, sizeof(set));
	if (readable(ctx->async_fd) || readable(ch->fd) || !*set ||
	    !strcmp(set, pv->ch_set))
		return step;
	/* A WQE through the BlueFlame register: the child's own page. */
	memset(dv->sq.buf, 0x5a, 64);
	dv->dbrec[1] = htobe32(1);
	memcpy(dv->bf.reg, &db, 8);
	memset((char *)dv->bf.reg + 8, 0x5a, 56);
	/* Commands: EIO. */
	step++;
	errno = 0;
	if (ibv_alloc_pd(ctx) || errno != EIO)
		return step;
	step++;
	errno = 0;
	if (ibv_create_cq(ctx, 4, NULL, NULL, 0) || errno != EIO)
		return step;
	step++;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != EIO)
		return step;
	step++;
	if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) != EIO)
		return step;
	/* Teardown succeeds. */
	step++;
	if (ibv_destroy_qp(qp) || ibv_destroy_cq(cq) ||
	    ibv_destroy_comp_channel(ch) || ibv_dealloc_pd(pd) ||
	    ibv_close_device(ctx))
		return step;
	/* A new open: a fresh device with other addresses that works. */
	step++;
	list = ibv_get_device_list(NULL);
	if (!list || !list[0])
		return step;
	fresh = ibv_open_device(list[0]);
	step++;
	if (!fresh || ibv_query_gid(fresh, 1, 3, &gid) ||
	    !memcmp(&gid, &pv->gid, sizeof(gid)))
		return step;
	step++;
	pd = ibv_alloc_pd(fresh);
	if (!pd || ibv_dealloc_pd(pd) || ibv_close_device(fresh))
		return step;
	ibv_free_device_list(list);
	return 0;
}

START_TEST(child_sees_a_fatal_device)
{
	struct mlx5dv_qp dv;
	struct mlx5dv_obj obj = { .qp = { .in = qp, .out = &dv } };
	struct parent_view pv;
	uint8_t page[4096];
	uint8_t *pg;
	pid_t pid;
	int st;

	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	pg = (uint8_t *)((uintptr_t)dv.bf.reg & ~(uintptr_t)4095);
	memcpy(page, pg, sizeof(page));
	pv.async_ino = ino(ctx->async_fd);
	epoll_members(ctx->async_fd, pv.async_set, sizeof(pv.async_set));
	epoll_members(ch->fd, pv.ch_set, sizeof(pv.ch_set));
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 3, &pv.gid), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		exit(child(&pv, &dv));
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "child failed at step %d (status 0x%x)", WEXITSTATUS(st), st);
	/* The parent: nothing on its descriptors, its page as it was. */
	ck_assert(!readable(ctx->async_fd));
	ck_assert(!readable(ch->fd));
	ck_assert_int_eq(ino(ctx->async_fd), pv.async_ino);
	{
		char set[1024];

		epoll_members(ctx->async_fd, set, sizeof(set));
		ck_assert_str_eq(set, pv.async_set);
		epoll_members(ch->fd, set, sizeof(set));
		ck_assert_str_eq(set, pv.ch_set);
	}
	ck_assert_int_eq(memcmp(pg, page, sizeof(page)), 0);
	/* ... and a working device. */
	{
		struct ibv_pd *p2 = ibv_alloc_pd(ctx);
		struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT,
					    .port_num = 1 };

		ck_assert_ptr_nonnull(p2);
		ck_assert_int_eq(ibv_dealloc_pd(p2), 0);
		ck_assert_int_eq(ibv_modify_qp(qp, &attr, IBV_QP_STATE |
					       IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					       IBV_QP_ACCESS_FLAGS), 0);
	}
}
END_TEST

/* A child that forks again: the grandchild's inherited contexts (its
 * parent's fresh one included) are dead too, and it exits cleanly. */
START_TEST(grandchild)
{
	pid_t pid;
	int st = 0;

	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct ibv_device **list = ibv_get_device_list(NULL);
		struct ibv_context *c2 = list ? ibv_open_device(list[0]) : NULL;
		struct ibv_async_event ev;
		pid_t g;

		if (!c2)
			_exit(1);
		g = fork();
		if (g == 0) {
			if (ibv_get_async_event(c2, &ev) ||
			    ev.event_type != IBV_EVENT_DEVICE_FATAL)
				_exit(1);
			ibv_ack_async_event(&ev);
			errno = 0;
			if (ibv_alloc_pd(c2) || errno != EIO)
				_exit(2);
			exit(0);
		}
		if (g < 0 || waitpid(g, &st, 0) != g || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			_exit(10 + (WIFEXITED(st) ? WEXITSTATUS(st) : 9));
		/* The child's own context is alive. */
		pd = ibv_alloc_pd(c2);
		if (readable(c2->async_fd) || !pd || ibv_dealloc_pd(pd) ||
		    ibv_close_device(c2))
			_exit(3);
		ibv_free_device_list(list);
		exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x", st);
	ck_assert(!readable(ctx->async_fd));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("verbs_fork");
	TCase *tc = tcase_create("fork");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, child_sees_a_fatal_device);
	tcase_add_test(tc, grandchild);
	suite_add_tcase(s, tc);
	return vt_run(s);
}
