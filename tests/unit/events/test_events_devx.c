/* SPDX-License-Identifier: MIT */
/*
 * DEVX event channels through libmlx5's API, as a DEVX program uses them:
 * mlx5dv_devx_create_event_channel (OMIT_DATA or not),
 * mlx5dv_devx_subscribe_devx_event and _fd, mlx5dv_devx_get_event (the
 * cookie and the EQE at literal offsets; EINVAL, EAGAIN, EOVERFLOW, EIO),
 * poll/epoll; events of DEVX objects only to the channels subscribed to
 * them, never to the context's async_fd, and kept past the object's
 * destroy; mlx5dv_devx_create_eq as rdma-core 44 answers outside VFIO.
 * Events are raised by fault rules (port, CQ overrun, QP fatal, SRQ
 * limit), the device's own paths are test_eng_devx's.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <mlx5emu/mlx5emu.h>

#include "devx_test.h"
#include "ev_test.h"

/* An event as mlx5dv_devx_get_event writes it: the header's cookie, then
 * the EQE (the header ends in a flexible array, so it cannot lead here). */
struct ev {
	uint64_t cookie;
	uint8_t eqe[64];
};

static struct mlx5dv_devx_async_event_hdr *hdr(struct ev *e)
{
	_Static_assert(offsetof(struct mlx5dv_devx_async_event_hdr, out_data) ==
		       offsetof(struct ev, eqe), "laid out as the header");
	return (struct mlx5dv_devx_async_event_hdr *)(void *)e;
}

static struct ibv_context *ctx;

static void setup(void)
{
	ctx = dt_open(true);
}

static void teardown(void)
{
	mlx5emu_fault_clear();
	if (ctx)
		ibv_close_device(ctx);
}

static struct mlx5dv_devx_event_channel *channel(uint32_t flags)
{
	struct mlx5dv_devx_event_channel *ch =
		mlx5dv_devx_create_event_channel(ctx, flags);

	ck_assert_msg(ch, "create_event_channel: %s", strerror(errno));
	return ch;
}

static void sub_port(struct mlx5dv_devx_event_channel *ch, uint64_t cookie)
{
	uint16_t t = MLX5_EVENT_TYPE_PORT_CHANGE;

	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event(ch, NULL, sizeof(t),
							  &t, cookie), 0);
}

static uint32_t be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

START_TEST(create_and_subscribe_errors)
{
	struct mlx5dv_devx_event_channel *ch;
	uint16_t t[17];
	struct dt_cq cq;

	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_create_event_channel(ctx, 2));
	ck_assert_int_eq(errno, EINVAL);
	ch = channel(MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA);
	dt_cq_create(ctx, &cq, 4);
	for (int i = 0; i < 17; i++)
		t[i] = MLX5_EVENT_TYPE_CQ_ERROR;
	/* events_sz is a byte count of u16s. */
	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event(ch, cq.obj, 0, t, 1),
			 EINVAL);
	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event(ch, cq.obj, 3, t, 1),
			 EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event(ch, cq.obj,
							  sizeof(t), t, 1), EINVAL);
	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event(ch, cq.obj, 32, t, 1), 0);
	/* Unaffiliated: PORT_CHANGE alone. */
	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event(ch, NULL, 2, t, 1),
			 EINVAL);
	t[0] = MLX5_EVENT_TYPE_PORT_CHANGE;
	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event(ch, cq.obj, 2, t, 1),
			 EINVAL);
	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event_fd(ch, -1, NULL, t[0]),
			 EBADF);
	mlx5dv_devx_destroy_event_channel(ch);
	dt_cq_destroy(&cq);
}
END_TEST

START_TEST(port_events_with_data)
{
	struct mlx5dv_devx_event_channel *ch = channel(0);
	struct ev e;

	sub_port(ch, 0xfeedfacecafebeefull);
	ck_assert(!evt_readable(ch->fd, 0));
	evt_fault("port_down dev=0 port=1");
	ck_assert(evt_readable(ch->fd, 1000));
	/* Too short for the header and the EQE: EINVAL, kept. */
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_get_event(ch, hdr(&e), sizeof(e) - 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(mlx5dv_devx_get_event(ch, hdr(&e), sizeof(e)), 72);
	ck_assert_uint_eq(e.cookie, 0xfeedfacecafebeefull);
	ck_assert_uint_eq(e.eqe[1], MLX5_EVENT_TYPE_PORT_CHANGE);
	ck_assert_uint_eq(e.eqe[3], MLX5_PORT_CHANGE_SUBTYPE_DOWN);
	ck_assert_uint_eq(e.eqe[40] >> 4, 1);
	evt_fault("port_up dev=0 port=1");
	ck_assert_int_eq(mlx5dv_devx_get_event(ch, hdr(&e), sizeof(e)), 72);
	ck_assert_uint_eq(e.eqe[3], MLX5_PORT_CHANGE_SUBTYPE_ACTIVE);
	evt_nonblock(ch->fd);
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_get_event(ch, hdr(&e), sizeof(e)), -1);
	ck_assert_int_eq(errno, EAGAIN);
	mlx5dv_devx_destroy_event_channel(ch);
}
END_TEST

START_TEST(omit_data_and_epoll)
{
	struct mlx5dv_devx_event_channel *ch =
		channel(MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA);
	struct epoll_event ee = { .events = EPOLLIN }, got;
	int ep = epoll_create1(0);
	uint64_t cookie;

	sub_port(ch, 42);
	ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_ADD, ch->fd, &ee), 0);
	ck_assert_int_eq(epoll_wait(ep, &got, 1, 0), 0);
	evt_fault("port_down dev=0 port=1");
	evt_fault("port_up dev=0 port=1");
	ck_assert_int_eq(epoll_wait(ep, &got, 1, 1000), 1);
	/* Two events, one subscription: one cookie, 8 bytes. */
	ck_assert_int_eq(mlx5dv_devx_get_event(ch, (void *)&cookie, 8), 8);
	ck_assert_uint_eq(cookie, 42);
	ck_assert_int_eq(epoll_wait(ep, &got, 1, 0), 0);
	close(ep);
	mlx5dv_devx_destroy_event_channel(ch);
}
END_TEST

START_TEST(lost_events)
{
	struct mlx5dv_devx_event_channel *ch = channel(0);
	uint8_t out[DT_CAP_OUTLEN];
	unsigned int n = 0;
	struct ev e;

	sub_port(ch, 1);
	/* Each QUERY_HCA_CAP: the port down and up, two events; the queue
	 * holds 65536. */
	evt_fault("port_down dev=0 opcode=QUERY_HCA_CAP");
	evt_fault("port_up dev=0 opcode=QUERY_HCA_CAP");
	for (int i = 0; i < 32769; i++)
		ck_assert_int_eq(dt_query_gen_caps(ctx, out), 0);
	mlx5emu_fault_clear();
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_get_event(ch, hdr(&e), sizeof(e)), -1);
	ck_assert_int_eq(errno, EOVERFLOW);
	evt_nonblock(ch->fd);
	while (mlx5dv_devx_get_event(ch, hdr(&e), sizeof(e)) == 72)
		n++;
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_uint_eq(n, 65536);
	mlx5dv_devx_destroy_event_channel(ch);
}
END_TEST

START_TEST(read_after_context_gone)
{
	struct mlx5dv_devx_event_channel *ch = channel(0);
	struct ev e;

	sub_port(ch, 1);
	evt_fault("port_down dev=0 port=1");
	ibv_close_device(ctx);
	ctx = NULL;
	/* Its queue went with the context; readable, and reads say EIO. */
	ck_assert(evt_readable(ch->fd, 0));
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_get_event(ch, hdr(&e), sizeof(e)), -1);
	ck_assert_int_eq(errno, EIO);
	mlx5dv_devx_destroy_event_channel(ch);
}
END_TEST

START_TEST(eventfd_subscription)
{
	struct mlx5dv_devx_event_channel *ch = channel(0);
	int efd = eventfd(0, EFD_NONBLOCK), p[2];
	uint64_t v;

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event_fd(
				 ch, p[0], NULL, MLX5_EVENT_TYPE_PORT_CHANGE),
			 EINVAL);
	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event_fd(
				 ch, efd, NULL, MLX5_EVENT_TYPE_PORT_CHANGE), 0);
	evt_fault("port_down dev=0 port=1");
	evt_fault("port_up dev=0 port=1");
	ck_assert_int_eq(read(efd, &v, sizeof(v)), sizeof(v));
	ck_assert_uint_eq(v, 2);
	ck_assert(!evt_readable(ch->fd, 0));
	mlx5dv_devx_destroy_event_channel(ch);
	close(efd);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* ---- DEVX objects ---- */

struct dqp {
	struct dt_umem buf, dbr;
	struct mlx5dv_devx_obj *obj;
	uint32_t qpn;
};

/* An RC QP on @cq (send and receive) moved to INIT. */
static void dqp_create(struct dqp *q, uint32_t pdn, struct dt_cq *cq)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_qp_out)] = { 0 };
	uint8_t min[PRM_ST_SZ_BYTES(rst2init_qp_in)] = { 0 };
	uint8_t mout[PRM_ST_SZ_BYTES(rst2init_qp_out)] = { 0 };
	void *qpc = PRM_ADDR_OF(create_qp_in, in, qpc);

	dt_umem_reg(ctx, &q->buf, 16 * 16 + 64 * 16, 4096);
	dt_umem_reg(ctx, &q->dbr, 8, 8);
	PRM_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	PRM_SET(qpc, qpc, st, MLX5_QPC_ST_RC);
	PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	PRM_SET(qpc, qpc, pd, pdn);
	PRM_SET(qpc, qpc, log_rq_size, 4);
	PRM_SET(qpc, qpc, log_sq_size, 4);
	PRM_SET(qpc, qpc, ts_format, MLX5_TIMESTAMP_FORMAT_DEFAULT);
	PRM_SET(qpc, qpc, uar_page, cq->uar_page);
	PRM_SET(qpc, qpc, cqn_snd, cq->cqn);
	PRM_SET(qpc, qpc, cqn_rcv, cq->cqn);
	PRM_SET(qpc, qpc, dbr_umem_valid, 1);
	PRM_SET(qpc, qpc, dbr_umem_id, q->dbr.umem->umem_id);
	PRM_SET(create_qp_in, in, wq_umem_id, q->buf.umem->umem_id);
	PRM_SET(create_qp_in, in, wq_umem_valid, 1);
	q->obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_msg(q->obj, "CREATE_QP: %s", strerror(errno));
	q->qpn = PRM_GET(create_qp_out, out, qpn);
	PRM_SET(rst2init_qp_in, min, opcode, MLX5_CMD_OP_RST2INIT_QP);
	PRM_SET(rst2init_qp_in, min, qpn, q->qpn);
	PRM_SET(rst2init_qp_in, min, qpc.primary_address_path.vhca_port_num, 1);
	ck_assert_int_eq(mlx5dv_devx_obj_modify(q->obj, min, sizeof(min), mout,
						sizeof(mout)), 0);
}

START_TEST(devx_objects_own_channels)
{
	uint16_t cqev = MLX5_EVENT_TYPE_CQ_ERROR;
	uint16_t qpev[] = { MLX5_EVENT_TYPE_WQ_CATAS_ERROR,
			    MLX5_EVENT_TYPE_SRQ_LAST_WQE };
	struct mlx5dv_devx_event_channel *ca, *cb;
	struct mlx5dv_devx_obj *pd;
	struct dt_cq a, b;
	struct dqp q;
	uint32_t pdn;
	struct ev e;

	pd = dt_pd_alloc(ctx, &pdn);
	dt_cq_create(ctx, &a, 4);
	dt_cq_create(ctx, &b, 4);
	dqp_create(&q, pdn, &a);
	ca = channel(0);
	cb = channel(0);
	evt_nonblock(ca->fd);
	evt_nonblock(cb->fd);
	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event(ca, a.obj, 2, &cqev, 0xa), 0);
	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event(cb, b.obj, 2, &cqev, 0xb), 0);
	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event(cb, q.obj, 4, qpev, 0xc), 0);
	/* CQ a overruns: channel a only, and not the verbs async_fd. */
	evt_fault("cq_overrun dev=0 cqn=%u", a.cqn);
	ck_assert(evt_readable(ca->fd, 1000));
	ck_assert_int_eq(mlx5dv_devx_get_event(ca, hdr(&e), sizeof(e)), 72);
	ck_assert_uint_eq(e.cookie, 0xa);
	ck_assert_uint_eq(e.eqe[1], MLX5_EVENT_TYPE_CQ_ERROR);
	ck_assert_uint_eq(be24(e.eqe + 33), a.cqn);
	ck_assert_uint_eq(e.eqe[43], 1);
	ck_assert(!evt_readable(cb->fd, 20));
	ck_assert(!evt_readable(ctx->async_fd, 0));
	/* The QP's catastrophic error, to channel b; kept past its destroy. */
	evt_fault("qp_fatal dev=0 qpn=%u", q.qpn);
	ck_assert(evt_readable(cb->fd, 1000));
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(q.obj), 0);
	ck_assert_int_eq(mlx5dv_devx_get_event(cb, hdr(&e), sizeof(e)), 72);
	ck_assert_uint_eq(e.cookie, 0xc);
	ck_assert_uint_eq(e.eqe[1], MLX5_EVENT_TYPE_WQ_CATAS_ERROR);
	ck_assert_uint_eq(e.eqe[52], 0);
	ck_assert_uint_eq(be24(e.eqe + 57), q.qpn);
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_get_event(cb, hdr(&e), sizeof(e)), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert(!evt_readable(ctx->async_fd, 0));
	mlx5dv_devx_destroy_event_channel(ca);
	mlx5dv_devx_destroy_event_channel(cb);
	dt_umem_dereg(&q.buf);
	dt_umem_dereg(&q.dbr);
	dt_cq_destroy(&a);
	dt_cq_destroy(&b);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(pd), 0);
}
END_TEST

START_TEST(devx_srq_limit)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_rmp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_rmp_out)] = { 0 };
	struct mlx5dv_devx_event_channel *ch =
		channel(MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA);
	uint16_t t = MLX5_EVENT_TYPE_SRQ_RQ_LIMIT;
	void *c = PRM_ADDR_OF(create_rmp_in, in, ctx);
	void *wq = PRM_ADDR_OF(rmpc, c, wq);
	struct mlx5dv_devx_obj *pd, *rmp;
	struct dt_umem buf, dbr;
	uint64_t cookie;
	uint32_t pdn;

	pd = dt_pd_alloc(ctx, &pdn);
	dt_umem_reg(ctx, &buf, 64 * 16, 4096);
	dt_umem_reg(ctx, &dbr, 8, 8);
	PRM_SET(create_rmp_in, in, opcode, MLX5_CMD_OP_CREATE_RMP);
	PRM_SET(rmpc, c, state, MLX5_RMPC_STATE_RDY);
	PRM_SET(wq, wq, log_wq_sz, 4);
	PRM_SET(wq, wq, log_wq_stride, 6);
	PRM_SET(wq, wq, pd, pdn);
	PRM_SET(wq, wq, dbr_umem_valid, 1);
	PRM_SET(wq, wq, dbr_umem_id, dbr.umem->umem_id);
	PRM_SET(wq, wq, wq_umem_valid, 1);
	PRM_SET(wq, wq, wq_umem_id, buf.umem->umem_id);
	rmp = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_msg(rmp, "CREATE_RMP: %s", strerror(errno));
	ck_assert_int_eq(mlx5dv_devx_subscribe_devx_event(ch, rmp, 2, &t, 77), 0);
	evt_fault("srq_limit dev=0 srqn=%u", PRM_GET(create_rmp_out, out, rmpn));
	ck_assert(evt_readable(ch->fd, 1000));
	ck_assert_int_eq(mlx5dv_devx_get_event(ch, (void *)&cookie, 8), 8);
	ck_assert_uint_eq(cookie, 77);
	mlx5dv_devx_destroy_event_channel(ch);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(rmp), 0);
	dt_umem_dereg(&buf);
	dt_umem_dereg(&dbr);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(pd), 0);
}
END_TEST

START_TEST(create_eq_unsupported)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_eq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_eq_out)] = { 0 };

	errno = 0;
	ck_assert_ptr_null(mlx5dv_devx_create_eq(ctx, in, sizeof(in), out,
						 sizeof(out)));
	ck_assert_int_eq(errno, EOPNOTSUPP);
}
END_TEST

static Suite *events_devx_suite(void)
{
	Suite *s = suite_create("events_devx");
	TCase *tc = tcase_create("channels");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, create_and_subscribe_errors);
	tcase_add_test(tc, port_events_with_data);
	tcase_add_test(tc, omit_data_and_epoll);
	tcase_add_test(tc, lost_events);
	tcase_add_test(tc, read_after_context_gone);
	tcase_add_test(tc, eventfd_subscription);
	tcase_add_test(tc, devx_objects_own_channels);
	tcase_add_test(tc, devx_srq_limit);
	tcase_add_test(tc, create_eq_unsupported);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(events_devx_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
