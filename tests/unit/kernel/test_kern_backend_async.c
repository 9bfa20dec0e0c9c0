/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous queries through the ops: obj_query_async, the completion fd,
 * cmd_comp_get.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_kern_backend.h"

#define QOUT PRM_ST_SZ_BYTES(query_cq_out)

static struct mlx5be_ctx *ctx;
static struct emu_fw *fw;
static struct kbt_cq cq;
static struct mlx5be_cmd_comp *comp;
static int cfd;

static void setup(void)
{
	ctx = kbt_open(NULL);
	fw = kbt_fw(ctx);
	kbt_cq_create(ctx, &cq);
	comp = BE->cmd_comp_create(ctx);
	ck_assert_ptr_nonnull(comp);
	cfd = BE->cmd_comp_fd(comp);
	ck_assert_int_ge(cfd, 0);
}

static void teardown(void)
{
	BE->cmd_comp_destroy(comp);
	kbt_cq_destroy(&cq);
	BE->close(ctx);
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, 0);

	ck_assert_int_ge(n, 0);
	return n == 1 && (p.revents & POLLIN);
}

static int query_async(size_t outlen, uint64_t wr_id)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];

	kbt_query_cq_in(in, cq.cqn);
	return BE->obj_query_async(cq.obj, in, sizeof(in), outlen, wr_id, comp);
}

static int get(struct mlx5be_cmd_comp *c, void *out, size_t room,
	       uint64_t *wr_id)
{
	struct mlx5be_async_cmd_resp resp = { .out = out, .outlen = room };
	int ret = BE->cmd_comp_get(c, &resp);

	if (!ret && wr_id)
		*wr_id = resp.wr_id;
	return ret;
}

/* Not readable before, readable after, the outbox as a query gives it,
 * not readable once read. */
START_TEST(test_async_completes)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];
	uint8_t sync_out[QOUT] = {}, out[QOUT];
	uint64_t wr_id = 0;

	ck_assert(!readable(cfd));
	ck_assert_int_eq(query_async(QOUT, 42), 0);
	ck_assert_uint_eq(kbt_fw_last_opcode(), MLX5_CMD_OP_QUERY_CQ);
	ck_assert_uint_eq(kbt_fw_last_uid(), kbt_uid(ctx));
	ck_assert(readable(cfd));
	kbt_poison(out, sizeof(out));
	ck_assert_int_eq(get(comp, out, sizeof(out), &wr_id), 0);
	ck_assert_uint_eq(wr_id, 42);
	ck_synd(out, "OK");
	kbt_query_cq_in(in, cq.cqn);
	ck_assert_int_eq(BE->obj_query(cq.obj, in, sizeof(in), sync_out, QOUT), 0);
	ck_assert_mem_eq(out, sync_out, QOUT);
	ck_assert(!readable(cfd));
}
END_TEST

/* A query firmware fails still completes; the outbox says how. */
START_TEST(test_async_fw_error)
{
	uint8_t out[64];
	uint64_t wr_id = 0;

	ck_assert_int_eq(query_async(16, 21), 0);
	ck_assert(readable(cfd));
	kbt_poison(out, sizeof(out));
	ck_assert_int_eq(get(comp, out, sizeof(out), &wr_id), 0);
	ck_assert_uint_eq(wr_id, 21);
	ck_synd(out, "BAD_OUTLEN");
	/* Only the 16 bytes asked for came back. */
	ck_assert(kbt_poisoned(out + 16, sizeof(out) - 16));
}
END_TEST

/* Too small a buffer: ENOSPC, the response stays for a bigger one. */
START_TEST(test_async_enospc)
{
	uint8_t out[QOUT];
	uint64_t wr_id = 0;

	ck_assert_int_eq(query_async(QOUT, 7), 0);
	kbt_poison(out, sizeof(out));
	ck_assert_int_eq(get(comp, out, QOUT - 1, NULL), -ENOSPC);
	ck_assert(kbt_poisoned(out, sizeof(out)));
	ck_assert(readable(cfd));
	ck_assert_int_eq(get(comp, out, QOUT, &wr_id), 0);
	ck_assert_uint_eq(wr_id, 7);
	ck_synd(out, "OK");
	ck_assert(!readable(cfd));
}
END_TEST

/* More than 1 MiB of out_len outstanding: EAGAIN before firmware. */
START_TEST(test_async_budget)
{
	const size_t big = UINT16_MAX;	/* the largest out_len */
	const int fit = KERN_DEVX_ASYNC_BYTES_MAX / UINT16_MAX;
	uint8_t *out = malloc(big);
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];
	unsigned long cmds;
	uint64_t wr_id;

	ck_assert_ptr_nonnull(out);
	for (int i = 0; i < fit; i++)
		ck_assert_int_eq(query_async(big, i), 0);
	cmds = kbt_fw_cmds();
	ck_assert_int_eq(query_async(big, 100), -EAGAIN);
	ck_assert_int_eq(query_async(KERN_DEVX_ASYNC_BYTES_MAX -
				     (size_t)fit * big + 1, 101), -EAGAIN);
	ck_assert_uint_eq(kbt_fw_cmds(), cmds);
	/* The class check still comes first. */
	kbt_query_cq_in(in, cq.cqn);
	PRM_SET(mbox_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	ck_assert_int_eq(BE->obj_query_async(cq.obj, in, sizeof(in), big, 102,
					     comp), -EINVAL);
	/* What fits in the rest still goes. */
	ck_assert_int_eq(query_async(KERN_DEVX_ASYNC_BYTES_MAX -
				     (size_t)fit * big, 103), 0);
	/* Reading one makes room for another. */
	ck_assert_int_eq(get(comp, out, big, &wr_id), 0);
	ck_assert_uint_eq(wr_id, 0);
	ck_assert_int_eq(query_async(big, 104), 0);
	for (int i = 1; i < fit; i++) {
		ck_assert_int_eq(get(comp, out, big, &wr_id), 0);
		ck_assert_uint_eq(wr_id, (uint64_t)i);
	}
	ck_assert_int_eq(get(comp, out, big, &wr_id), 0);
	ck_assert_uint_eq(wr_id, 103);
	ck_assert_int_eq(get(comp, out, big, &wr_id), 0);
	ck_assert_uint_eq(wr_id, 104);
	ck_assert(!readable(cfd));
	free(out);
}
END_TEST

/* O_NONBLOCK on the fd with nothing queued: EAGAIN. */
START_TEST(test_async_nonblock_empty)
{
	uint8_t out[QOUT];

	ck_assert_int_eq(fcntl(cfd, F_SETFL, fcntl(cfd, F_GETFL) | O_NONBLOCK), 0);
	ck_assert_int_eq(get(comp, out, sizeof(out), NULL), -EAGAIN);
	ck_assert_int_eq(query_async(QOUT, 1), 0);
	ck_assert_int_eq(get(comp, out, sizeof(out), NULL), 0);
	ck_assert_int_eq(get(comp, out, sizeof(out), NULL), -EAGAIN);
}
END_TEST

/* A bad command fails the call and queues nothing. */
START_TEST(test_async_bad_cmd)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];
	unsigned long cmds = kbt_fw_cmds();

	kbt_query_cq_in(in, cq.cqn);
	PRM_SET(mbox_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	ck_assert_int_eq(BE->obj_query_async(cq.obj, in, sizeof(in), QOUT, 1,
					     comp), -EINVAL);
	kbt_query_cq_in(in, cq.cqn + 1);
	ck_assert_int_eq(BE->obj_query_async(cq.obj, in, sizeof(in), QOUT, 2,
					     comp), -EINVAL);
	kbt_query_cq_in(in, cq.cqn);
	PRM_SET(general_obj_in_cmd_hdr, in, vhca_tunnel_id, 1);
	ck_assert_int_eq(BE->obj_query_async(cq.obj, in, sizeof(in), QOUT, 3,
					     comp), -EINVAL);
	/* out_len is a u16 in the kernel. */
	kbt_query_cq_in(in, cq.cqn);
	ck_assert_int_eq(BE->obj_query_async(cq.obj, in, sizeof(in), 0x10000, 4,
					     comp), -EINVAL);
	ck_assert_uint_eq(kbt_fw_cmds(), cmds);
	ck_assert(!readable(cfd));
}
END_TEST

/* The fd of another context is no async fd of this one: EBADF. */
START_TEST(test_async_other_context)
{
	struct mlx5be_ctx *ctx2 = kbt_open(NULL);
	struct mlx5be_cmd_comp *comp2 = BE->cmd_comp_create(ctx2);
	unsigned long cmds = kbt_fw_cmds();

	ck_assert_ptr_nonnull(comp2);
	ck_assert_int_eq(query_async(QOUT, 1) , 0);
	{
		uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];

		kbt_query_cq_in(in, cq.cqn);
		ck_assert_int_eq(BE->obj_query_async(cq.obj, in, sizeof(in), QOUT,
						     2, comp2), -EBADF);
	}
	ck_assert_uint_eq(kbt_fw_cmds(), cmds + 1);
	ck_assert(!readable(BE->cmd_comp_fd(comp2)));
	BE->cmd_comp_destroy(comp2);
	BE->close(ctx2);
}
END_TEST

/* The context goes while its fd lives: the fd is destroyed as uverbs
 * destroys FD objects (queued responses dropped, readable, EIO; EAGAIN
 * when non-blocking). */
START_TEST(test_async_context_closed)
{
	struct mlx5be_ctx *ctx2 = kbt_open(NULL);
	struct mlx5be_cmd_comp *comp2 = BE->cmd_comp_create(ctx2);
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)], out[QOUT];
	int fd2 = BE->cmd_comp_fd(comp2);
	struct kbt_cq cq2;

	kbt_cq_create(ctx2, &cq2);
	kbt_query_cq_in(in, cq2.cqn);
	ck_assert_int_eq(BE->obj_query_async(cq2.obj, in, sizeof(in), QOUT, 1,
					     comp2), 0);
	BE->close(ctx2);
	kbt_mem_free(&cq2.buf);
	kbt_mem_free(&cq2.dbr);
	ck_assert(readable(fd2));
	ck_assert_int_eq(get(comp2, out, sizeof(out), NULL), -EIO);
	ck_assert_int_eq(get(comp2, out, sizeof(out), NULL), -EIO);
	ck_assert(readable(fd2));
	ck_assert_int_eq(fcntl(fd2, F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(get(comp2, out, sizeof(out), NULL), -EAGAIN);
	BE->cmd_comp_destroy(comp2);
}
END_TEST

Suite *kbt_async_suite(void)
{
	Suite *s = suite_create("kern_backend_async");
	TCase *tc = tcase_create("async");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_async_completes);
	tcase_add_test(tc, test_async_fw_error);
	tcase_add_test(tc, test_async_enospc);
	tcase_add_test(tc, test_async_budget);
	tcase_add_test(tc, test_async_nonblock_empty);
	tcase_add_test(tc, test_async_bad_cmd);
	tcase_add_test(tc, test_async_other_context);
	tcase_add_test(tc, test_async_context_closed);
	suite_add_tcase(s, tc);
	return s;
}
