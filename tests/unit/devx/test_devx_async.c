/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous DEVX queries: mlx5dv_devx_create_cmd_comp, obj_query_async,
 * get_async_cmd_comp and destroy_cmd_comp, with the kernel's async-cmd file
 * semantics (pollable fd, blocking unless O_NONBLOCK, ENOSPC keeps the
 * response, 1 MiB of unread responses at most, the outbox always carried).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devx_test.h"

#define QOUT PRM_ST_SZ_BYTES(query_cq_out)

static struct ibv_context *ctx;
static struct dt_cq cq;
static struct mlx5dv_devx_cmd_comp *comp;
/* A response buffer: the header, then QOUT bytes of outbox. */
#define HDRSZ sizeof(struct mlx5dv_devx_async_cmd_hdr)
#define RLEN (HDRSZ + QOUT)
static struct mlx5dv_devx_async_cmd_hdr *r;

static void setup(void)
{
	ctx = dt_open(true);
	dt_cq_create(ctx, &cq, 7);
	comp = mlx5dv_devx_create_cmd_comp(ctx);
	ck_assert_msg(comp, "create_cmd_comp: %s", strerror(errno));
	r = calloc(1, RLEN);
	ck_assert_ptr_nonnull(r);
}

static void teardown(void)
{
	free(r);
	mlx5dv_devx_destroy_cmd_comp(comp);
	dt_cq_destroy(&cq);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

static int readable(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n = poll(&pfd, 1, timeout_ms);

	ck_assert_int_ge(n, 0);
	return n && (pfd.revents & POLLIN);
}

static int query_async(size_t outlen, uint64_t wr_id)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];

	dt_cq_query_in(&cq, in);
	return mlx5dv_devx_obj_query_async(cq.obj, in, sizeof(in), outlen, wr_id,
					   comp);
}



START_TEST(test_comp_create)
{
	struct mlx5dv_devx_cmd_comp *c2 = mlx5dv_devx_create_cmd_comp(ctx);

	ck_assert_ptr_nonnull(c2);
	ck_assert_int_ge(comp->fd, 0);
	ck_assert_int_ne(c2->fd, comp->fd);
	ck_assert_int_eq(readable(comp->fd, 0), 0);
	mlx5dv_devx_destroy_cmd_comp(c2);
}
END_TEST

START_TEST(test_query_async)
{
	uint8_t sync_out[QOUT];

	ck_assert_int_eq(dt_cq_query(&cq, sync_out, sizeof(sync_out)), 0);
	ck_assert_int_eq(query_async(QOUT, 0x1234abcd5678ull), 0);
	ck_assert_int_eq(readable(comp->fd, 5000), 1);
	memset(r, 0xa5, RLEN);
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp, r, RLEN), 0);
	ck_assert_uint_eq(r->wr_id, 0x1234abcd5678ull);
	ck_assert_int_eq(DT_OUT_STATUS(r->out_data), 0);
	ck_assert_uint_eq(PRM_GET(query_cq_out, r->out_data, cq_context.log_cq_size), 7);
	ck_assert_mem_eq(r->out_data, sync_out, QOUT);
	ck_assert_int_eq(readable(comp->fd, 0), 0);
}
END_TEST

/* Responses come out in order, each once. */
START_TEST(test_query_async_order)
{

	for (uint64_t i = 1; i <= 5; i++)
		ck_assert_int_eq(query_async(QOUT, i), 0);
	for (uint64_t i = 1; i <= 5; i++) {
		ck_assert_int_eq(readable(comp->fd, 5000), 1);
		ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp, r,
								RLEN), 0);
		ck_assert_uint_eq(r->wr_id, i);
	}
	ck_assert_int_eq(readable(comp->fd, 0), 0);
}
END_TEST

START_TEST(test_get_too_small)
{

	ck_assert_int_eq(query_async(QOUT, 7), 0);
	ck_assert_int_eq(readable(comp->fd, 5000), 1);
	/* One byte short of header + outlen. */
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp, r,
							RLEN - 1), ENOSPC);
	ck_assert_int_eq(errno, ENOSPC);
	/* Not even a header. */
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp, r, 4), ENOSPC);
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp, r, 0), ENOSPC);
	/* The response stayed. */
	ck_assert_int_eq(readable(comp->fd, 0), 1);
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp, r, RLEN), 0);
	ck_assert_uint_eq(r->wr_id, 7);
	ck_assert_int_eq(readable(comp->fd, 0), 0);
}
END_TEST

/* A larger buffer than the response is fine. */
START_TEST(test_get_larger_buffer)
{
	uint8_t buf[sizeof(struct mlx5dv_devx_async_cmd_hdr) + 4096];
	struct mlx5dv_devx_async_cmd_hdr *hdr = (void *)buf;

	ck_assert_int_eq(query_async(QOUT, 9), 0);
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp, hdr, sizeof(buf)), 0);
	ck_assert_uint_eq(hdr->wr_id, 9);
	ck_assert_int_eq(DT_OUT_STATUS(hdr->out_data), 0);
}
END_TEST

START_TEST(test_get_nonblock_empty)
{
	int fl = fcntl(comp->fd, F_GETFL);

	ck_assert_int_eq(fcntl(comp->fd, F_SETFL, fl | O_NONBLOCK), 0);
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp, r, RLEN),
			 EAGAIN);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp, r, 4), EAGAIN);
	/* Non-blocking still delivers what is there. */
	ck_assert_int_eq(query_async(QOUT, 11), 0);
	ck_assert_int_eq(readable(comp->fd, 5000), 1);
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp, r, RLEN), 0);
	ck_assert_uint_eq(r->wr_id, 11);
}
END_TEST

static void *late_query(void *arg)
{
	(void)arg;
	usleep(100 * 1000);
	ck_assert_int_eq(query_async(QOUT, 13), 0);
	return NULL;
}

/* A blocking fd waits for the response. */
START_TEST(test_get_blocks)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, late_query, NULL), 0);
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp, r, RLEN), 0);
	ck_assert_uint_eq(r->wr_id, 13);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
}
END_TEST

/* A firmware error completes too: the outbox says what happened. */
START_TEST(test_query_async_fw_error)
{

	ck_assert_int_eq(query_async(16, 21), 0);
	ck_assert_int_eq(readable(comp->fd, 5000), 1);
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp, r,
							HDRSZ + 16), 0);
	ck_assert_uint_eq(r->wr_id, 21);
	ck_assert_int_eq(DT_OUT_STATUS(r->out_data), MLX5_CMD_STAT_BAD_OUTP_LEN);
	ck_assert_uint_eq(DT_OUT_SYNDROME(r->out_data), DT_SYND_BAD_OUTLEN);
}
END_TEST

/* Bad commands fail the call itself and queue nothing. */
START_TEST(test_query_async_bad)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];

	dt_cq_query_in(&cq, in);
	PRM_SET(mbox_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_obj_query_async(cq.obj, in, sizeof(in), QOUT,
						     1, comp), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	dt_cq_query_in(&cq, in);
	PRM_SET(query_cq_in, in, cqn, cq.cqn + 1);
	ck_assert_int_eq(mlx5dv_devx_obj_query_async(cq.obj, in, sizeof(in), QOUT,
						     2, comp), EINVAL);
	dt_cq_query_in(&cq, in);
	PRM_SET(general_obj_in_cmd_hdr, in, vhca_tunnel_id, 1);
	ck_assert_int_eq(mlx5dv_devx_obj_query_async(cq.obj, in, sizeof(in), QOUT,
						     3, comp), EINVAL);
	/* The kernel's out_len is a u16. */
	dt_cq_query_in(&cq, in);
	ck_assert_int_eq(mlx5dv_devx_obj_query_async(cq.obj, in, sizeof(in),
						     0x10000, 4, comp), EINVAL);
	ck_assert_int_eq(readable(comp->fd, 100), 0);
}
END_TEST

/* A completion object of another context is no async-cmd fd of ours. */
START_TEST(test_query_async_other_context)
{
	struct ibv_context *c2 = dt_open(true);
	struct mlx5dv_devx_cmd_comp *comp2 = mlx5dv_devx_create_cmd_comp(c2);
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];

	ck_assert_ptr_nonnull(comp2);
	dt_cq_query_in(&cq, in);
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_obj_query_async(cq.obj, in, sizeof(in), QOUT,
						     1, comp2), EBADF);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(readable(comp2->fd, 100), 0);
	mlx5dv_devx_destroy_cmd_comp(comp2);
	ck_assert_int_eq(ibv_close_device(c2), 0);
}
END_TEST

/* At most 1 MiB of responses may wait unread: then EAGAIN. */
START_TEST(test_query_async_limit)
{
	const size_t outlen = 32768;
	uint8_t *buf = malloc(sizeof(struct mlx5dv_devx_async_cmd_hdr) + outlen);
	struct mlx5dv_devx_async_cmd_hdr *hdr = (void *)buf;

	ck_assert_ptr_nonnull(buf);
	for (int i = 0; i < 32; i++)
		ck_assert_int_eq(query_async(outlen, i), 0);
	errno = 0;
	ck_assert_int_eq(query_async(outlen, 99), EAGAIN);
	ck_assert_int_eq(errno, EAGAIN);
	/* Smaller responses do not fit either: the limit counts bytes. */
	ck_assert_int_eq(query_async(QOUT, 98), EAGAIN);
	/* Reading one makes room for one. */
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp, hdr,
							sizeof(*hdr) + outlen), 0);
	ck_assert_uint_eq(hdr->wr_id, 0);
	ck_assert_int_eq(query_async(outlen, 32), 0);
	ck_assert_int_eq(query_async(QOUT, 33), EAGAIN);
	free(buf);
	/* teardown destroys the completion with 32 responses unread. */
}
END_TEST

/* Two completion objects: each gets only its own responses. */
START_TEST(test_two_comps)
{
	struct mlx5dv_devx_cmd_comp *c2 = mlx5dv_devx_create_cmd_comp(ctx);
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];

	ck_assert_ptr_nonnull(c2);
	dt_cq_query_in(&cq, in);
	ck_assert_int_eq(mlx5dv_devx_obj_query_async(cq.obj, in, sizeof(in), QOUT,
						     2, c2), 0);
	ck_assert_int_eq(readable(c2->fd, 5000), 1);
	ck_assert_int_eq(readable(comp->fd, 0), 0);
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(c2, r, RLEN), 0);
	ck_assert_uint_eq(r->wr_id, 2);
	mlx5dv_devx_destroy_cmd_comp(c2);
}
END_TEST

/*
 * The completion object outlives its context, as the kernel's async-cmd
 * file does: responses still queued are dropped, the fd turns readable and
 * reading gives EIO; destroying it afterwards is fine.
 */
START_TEST(test_comp_outlives_context)
{
	struct ibv_context *c2 = dt_open(true);
	struct mlx5dv_devx_cmd_comp *comp2 = mlx5dv_devx_create_cmd_comp(c2);
	struct dt_cq cq2;
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];

	ck_assert_ptr_nonnull(comp2);
	dt_cq_create(c2, &cq2, 5);
	dt_cq_query_in(&cq2, in);
	ck_assert_int_eq(mlx5dv_devx_obj_query_async(cq2.obj, in, sizeof(in), QOUT,
						     1, comp2), 0);
	ck_assert_int_eq(ibv_close_device(c2), 0);
	free(cq2.buf.buf);
	free(cq2.dbr.buf);
	ck_assert_int_eq(readable(comp2->fd, 0), 1);
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_get_async_cmd_comp(comp2, r, RLEN), EIO);
	ck_assert_int_eq(errno, EIO);
	mlx5dv_devx_destroy_cmd_comp(comp2);
}
END_TEST

static Suite *devx_async_suite(void)
{
	Suite *s = suite_create("devx_async");
	TCase *tc = tcase_create("async");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_comp_create);
	tcase_add_test(tc, test_query_async);
	tcase_add_test(tc, test_query_async_order);
	tcase_add_test(tc, test_get_too_small);
	tcase_add_test(tc, test_get_larger_buffer);
	tcase_add_test(tc, test_get_nonblock_empty);
	tcase_add_test(tc, test_get_blocks);
	tcase_add_test(tc, test_query_async_fw_error);
	tcase_add_test(tc, test_query_async_bad);
	tcase_add_test(tc, test_query_async_other_context);
	tcase_add_test(tc, test_query_async_limit);
	tcase_add_test(tc, test_two_comps);
	tcase_add_test(tc, test_comp_outlives_context);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(devx_async_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
