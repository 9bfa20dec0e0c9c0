/* SPDX-License-Identifier: MIT */
/*
 * XRC: ibv_open_xrcd's sharing by inode (one firmware XRCD per file, seen
 * through the XRC SRQs and target QPs created in it), O_CREAT/O_EXCL and
 * fd -1, ibv_close_xrcd's EBUSY, XRC SRQs (CREATE_XRC_SRQ, limit through
 * ARM_XRC_SRQ), XRC initiator and target QPs, their transitions, and
 * ibv_open_qp's shared target handles.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qp_test.h"

static char xt_path[2][64];
static int xt_fd[2] = { -1, -1 };

static void xt_setup(void)
{
	qt_setup();
	for (int i = 0; i < 2; i++) {
		snprintf(xt_path[i], sizeof(xt_path[i]), "/tmp/mlx5emu-xrcd-XXXXXX");
		xt_fd[i] = mkstemp(xt_path[i]);
		ck_assert_int_ge(xt_fd[i], 0);
	}
}

static void xt_teardown(void)
{
	for (int i = 0; i < 2; i++) {
		close(xt_fd[i]);
		unlink(xt_path[i]);
	}
	qt_teardown();
}

static struct ibv_xrcd *xrcd_open(int fd, int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = oflags,
	};

	errno = 0;
	return ibv_open_xrcd(qt_ctx, &a);
}

static int xrcd_open_err(int fd, int oflags)
{
	struct ibv_xrcd *x = xrcd_open(fd, oflags);

	if (x) {
		ck_assert_int_eq(ibv_close_xrcd(x), 0);
		return 0;
	}
	return errno;
}

static struct ibv_srq *xsrq_create(struct ibv_xrcd *xrcd, uint32_t max_wr,
				   struct ibv_srq_init_attr_ex *back)
{
	struct ibv_srq_init_attr_ex a;
	struct ibv_srq *srq;

	memset(&a, 0, sizeof(a));
	a.attr.max_wr = max_wr;
	a.attr.max_sge = 1;
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		      IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	a.srq_type = IBV_SRQT_XRC;
	a.pd = qt_pd;
	a.xrcd = xrcd;
	a.cq = qt_cq;
	errno = 0;
	srq = ibv_create_srq_ex(qt_ctx, &a);
	if (back)
		*back = a;
	return srq;
}

static void query_xrc_srq(struct ibv_srq *srq, void *out)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_xrc_srq_in)] = { 0 };
	uint32_t srqn;

	ck_assert_int_eq(ibv_get_srq_num(srq, &srqn), 0);
	memset(out, 0, PRM_ST_SZ_BYTES(query_xrc_srq_out));
	PRM_SET(query_xrc_srq_in, in, opcode, MLX5_CMD_OP_QUERY_XRC_SRQ);
	PRM_SET(query_xrc_srq_in, in, xrc_srqn, srqn);
	ck_assert_int_eq(mlx5dv_devx_srq_query(srq, in, sizeof(in), out,
					       PRM_ST_SZ_BYTES(query_xrc_srq_out)),
			 0);
}

/* The firmware XRCD a handle names, through an XRC SRQ made in it. */
static uint32_t xrcdn_of(struct ibv_xrcd *xrcd)
{
	struct ibv_srq *srq = xsrq_create(xrcd, 4, NULL);
	uint8_t out[PRM_ST_SZ_BYTES(query_xrc_srq_out)];
	uint32_t n;

	ck_assert_msg(srq, "%s", strerror(errno));
	query_xrc_srq(srq, out);
	n = PRM_GET(query_xrc_srq_out, out, xrc_srq_context_entry.xrcd);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
	return n;
}

static struct ibv_qp *tgt_create(struct ibv_xrcd *xrcd)
{
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;

	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_XRC_RECV;
	a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	a.xrcd = xrcd;
	errno = 0;
	qp = ibv_create_qp_ex(qt_ctx, &a);
	ck_assert_msg(qp, "%s", strerror(errno));
	return qp;
}

static struct ibv_qp *ini_create(uint32_t swr, uint32_t rwr)
{
	struct ibv_qp_init_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_XRC_SEND;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.pd = qt_pd;
	a.send_cq = qt_cq;
	a.recv_cq = qt_cq;
	a.cap.max_send_wr = swr;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_wr = rwr;
	a.cap.max_recv_sge = rwr ? 1 : 0;
	errno = 0;
	return ibv_create_qp_ex(qt_ctx, &a);
}

static struct ibv_qp *qp_open(struct ibv_xrcd *xrcd, uint32_t qpn)
{
	struct ibv_qp_open_attr a = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = qpn,
		.xrcd = xrcd,
		.qp_type = IBV_QPT_XRC_RECV,
	};

	errno = 0;
	return ibv_open_qp(qt_ctx, &a);
}

START_TEST(test_xrcd_open_flags)
{
	struct ibv_xrcd_init_attr a;

	/* No domain for the file yet and no O_CREAT. */
	ck_assert_int_eq(xrcd_open_err(xt_fd[0], 0), EAGAIN);
	/* Not a file descriptor. */
	ck_assert_int_eq(xrcd_open_err(1000, O_CREAT), EBADF);
	/* fd -1: a private domain, oflags do not matter. */
	ck_assert_int_eq(xrcd_open_err(-1, 0), 0);
	ck_assert_int_eq(xrcd_open_err(-1, O_CREAT | O_EXCL), 0);
	/* O_CREAT | O_EXCL on a fresh file. */
	ck_assert_int_eq(xrcd_open_err(xt_fd[0], O_CREAT | O_EXCL), 0);
	/* libibverbs: FD and OFLAGS are both required; unknown bits. */
	memset(&a, 0, sizeof(a));
	a.fd = -1;
	a.comp_mask = IBV_XRCD_INIT_ATTR_FD;
	errno = 0;
	ck_assert_ptr_null(ibv_open_xrcd(qt_ctx, &a));
	ck_assert_int_eq(errno, EINVAL);
	a.comp_mask = IBV_XRCD_INIT_ATTR_OFLAGS;
	errno = 0;
	ck_assert_ptr_null(ibv_open_xrcd(qt_ctx, &a));
	ck_assert_int_eq(errno, EINVAL);
	a.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS |
		      IBV_XRCD_INIT_ATTR_RESERVED;
	errno = 0;
	ck_assert_ptr_null(ibv_open_xrcd(qt_ctx, &a));
	ck_assert_int_eq(errno, EOPNOTSUPP);
}
END_TEST

START_TEST(test_xrcd_share_by_inode)
{
	struct ibv_xrcd *a = xrcd_open(xt_fd[0], O_CREAT);
	struct ibv_xrcd *b, *c, *p, *q, *other;
	int fd2 = open(xt_path[0], O_RDONLY);
	uint32_t n;

	ck_assert_ptr_nonnull(a);
	ck_assert_int_ge(fd2, 0);
	/* The same file through another descriptor, without O_CREAT. */
	b = xrcd_open(fd2, 0);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_ne(a, b);
	/* O_EXCL: the domain exists. */
	ck_assert_int_eq(xrcd_open_err(xt_fd[0], O_CREAT | O_EXCL), EINVAL);
	c = xrcd_open(xt_fd[0], O_CREAT);
	ck_assert_ptr_nonnull(c);
	n = xrcdn_of(a);
	ck_assert_uint_ne(n, 0);
	ck_assert_uint_eq(xrcdn_of(b), n);
	ck_assert_uint_eq(xrcdn_of(c), n);
	/* Another file, private domains: each its own. */
	other = xrcd_open(xt_fd[1], O_CREAT);
	p = xrcd_open(-1, 0);
	q = xrcd_open(-1, 0);
	ck_assert_ptr_nonnull(other);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(q);
	ck_assert_uint_ne(xrcdn_of(other), n);
	ck_assert_uint_ne(xrcdn_of(p), n);
	ck_assert_uint_ne(xrcdn_of(p), xrcdn_of(q));
	ck_assert_uint_ne(xrcdn_of(p), xrcdn_of(other));

	/* The domain lives while any handle on the file does. */
	ck_assert_int_eq(ibv_close_xrcd(a), 0);
	ck_assert_int_eq(ibv_close_xrcd(c), 0);
	ck_assert_uint_eq(xrcdn_of(b), n);
	c = xrcd_open(xt_fd[0], 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(xrcdn_of(c), n);
	ck_assert_int_eq(ibv_close_xrcd(c), 0);
	ck_assert_int_eq(ibv_close_xrcd(b), 0);
	/* Gone with the last one. */
	ck_assert_int_eq(xrcd_open_err(xt_fd[0], 0), EAGAIN);
	ck_assert_int_eq(ibv_close_xrcd(other), 0);
	ck_assert_int_eq(ibv_close_xrcd(p), 0);
	ck_assert_int_eq(ibv_close_xrcd(q), 0);
	close(fd2);
}
END_TEST

START_TEST(test_xrc_srq)
{
	struct ibv_xrcd *x = xrcd_open(xt_fd[0], O_CREAT);
	struct ibv_xrcd *y = xrcd_open(xt_fd[0], 0);
	struct ibv_srq_init_attr_ex back;
	struct ibv_srq *srq;
	uint8_t out[PRM_ST_SZ_BYTES(query_xrc_srq_out)];
	struct ibv_srq_attr sa = { 0 }, q;
	struct mlx5dv_srq dv = { .comp_mask = MLX5DV_SRQ_MASK_SRQN };
	struct mlx5dv_obj obj = { .srq = { .out = &dv } };
	uint32_t srqn;

	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_nonnull(y);
	srq = xsrq_create(x, 100, &back);
	ck_assert_msg(srq, "%s", strerror(errno));
	ck_assert_uint_eq(back.attr.max_wr, 127);
	ck_assert_uint_eq(back.attr.max_sge, 1);
	ck_assert_int_eq(ibv_get_srq_num(srq, &srqn), 0);
	ck_assert_uint_ne(srqn, 0);
	query_xrc_srq(srq, out);
	ck_assert_uint_eq(PRM_GET(query_xrc_srq_out, out,
				  xrc_srq_context_entry.log_xrc_srq_size), 8);
	ck_assert_uint_eq(PRM_GET(query_xrc_srq_out, out,
				  xrc_srq_context_entry.log_rq_stride), 1);
	ck_assert_uint_eq(PRM_GET(query_xrc_srq_out, out,
				  xrc_srq_context_entry.pd), vt_pdn(qt_pd));
	ck_assert_uint_ne(PRM_GET(query_xrc_srq_out, out,
				  xrc_srq_context_entry.cqn), 0);
	obj.srq.in = srq;
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_SRQ), 0);
	ck_assert_uint_eq(dv.srqn, srqn);
	ck_assert_uint_eq(dv.stride, 32);
	/* The limit through ARM_XRC_SRQ. */
	sa.srq_limit = 12;
	ck_assert_int_eq(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), 0);
	ck_assert_int_eq(ibv_query_srq(srq, &q), 0);
	ck_assert_uint_eq(q.srq_limit, 12);
	ck_assert_uint_eq(q.max_wr, 255);
	/* The handle it was made through is busy, the other one is not;
	 * the CQ is in use. */
	ck_assert_int_eq(ibv_close_xrcd(x), EBUSY);
	ck_assert_int_eq(ibv_close_xrcd(y), 0);
	ck_assert_int_eq(ibv_destroy_cq(qt_cq), EBUSY);
	/* A basic QP cannot take an XRC SRQ. */
	{
		struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RC, 1, 1, 1, 1);

		a.srq = srq;
		ck_assert_int_eq(qt_create_err(&a), EINVAL);
	}
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
	ck_assert_int_eq(ibv_close_xrcd(x), 0);
	/* Without a CQ. */
	x = xrcd_open(-1, 0);
	ck_assert_ptr_nonnull(x);
	{
		struct ibv_srq_init_attr_ex a;

		memset(&a, 0, sizeof(a));
		a.attr.max_wr = 4;
		a.attr.max_sge = 1;
		a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			      IBV_SRQ_INIT_ATTR_XRCD;
		a.srq_type = IBV_SRQT_XRC;
		a.pd = qt_pd;
		a.xrcd = x;
		errno = 0;
		ck_assert_ptr_null(ibv_create_srq_ex(qt_ctx, &a));
		ck_assert_int_eq(errno, EINVAL);
	}
	ck_assert_int_eq(ibv_close_xrcd(x), 0);
}
END_TEST

START_TEST(test_xrc_qps)
{
	struct ibv_xrcd *x = xrcd_open(xt_fd[0], O_CREAT);
	struct ibv_qp *tgt, *ini;
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)];
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a, q;
	uint32_t n;

	ck_assert_ptr_nonnull(x);
	n = xrcdn_of(x);
	tgt = tgt_create(x);
	ck_assert_int_eq(tgt->qp_type, IBV_QPT_XRC_RECV);
	ck_assert_int_eq(tgt->state, IBV_QPS_RESET);
	ck_assert_int_eq(qt_devx_query_qp(tgt, out), 0);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.st), MLX5_QPC_ST_XRC);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.xrcd), n);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.no_sq), 1);
	ck_assert_int_eq(ibv_close_xrcd(x), EBUSY);

	/* An initiator: no receive queue; receive caps are refused. */
	ck_assert_ptr_null(ini_create(4, 4));
	ck_assert_int_eq(errno, EINVAL);
	ini = ini_create(4, 0);
	ck_assert_msg(ini, "%s", strerror(errno));
	ck_assert_int_eq(qt_devx_query_qp(ini, out), 0);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.st), MLX5_QPC_ST_XRC);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.rq_type), 3);
	/* 4 WQEs of 256 bytes (192 overhead, XRC segment, one SGE). */
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.log_sq_size), 4);

	/* The target: RTR needs the responder attributes, RTS only the
	 * timeout and SQ PSN. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	ck_assert_int_eq(ibv_modify_qp(tgt, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT), EINVAL);
	ck_assert_int_eq(ibv_modify_qp(tgt, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = ini->qp_num;
	a.rq_psn = 0x10;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 3;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = qt_gid(1);
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 1;
	ck_assert_int_eq(ibv_modify_qp(tgt, &a, IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN), EINVAL);
	ck_assert_int_eq(ibv_modify_qp(tgt, &a, IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER), 0);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 10;
	a.sq_psn = 0x20;
	ck_assert_int_eq(ibv_modify_qp(tgt, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				       IBV_QP_SQ_PSN), 0);
	ck_assert_int_eq(tgt->state, IBV_QPS_RTS);
	ck_assert_int_eq(ibv_query_qp(tgt, &q, IBV_QP_STATE, &init), 0);
	ck_assert_int_eq(q.qp_state, IBV_QPS_RTS);
	ck_assert_uint_eq(q.dest_qp_num, ini->qp_num);
	ck_assert_uint_eq(q.rq_psn, 0x10);
	ck_assert_int_eq(init.qp_type, IBV_QPT_XRC_RECV);
	ck_assert_uint_eq(init.cap.max_recv_wr, 0);

	/* The initiator: RTR without the responder attributes. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	ck_assert_int_eq(ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = tgt->qp_num;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = qt_gid(1);
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 1;
	ck_assert_int_eq(ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN), 0);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 10;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	ck_assert_int_eq(ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				       IBV_QP_SQ_PSN), EINVAL);
	ck_assert_int_eq(ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				       IBV_QP_SQ_PSN | IBV_QP_RETRY_CNT |
				       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC), 0);
	ck_assert_uint_eq(qt_fw_state(ini), MLX5_QPC_STATE_RTS);

	ck_assert_int_eq(ibv_destroy_qp(ini), 0);
	ck_assert_int_eq(ibv_destroy_qp(tgt), 0);
	ck_assert_int_eq(ibv_close_xrcd(x), 0);
}
END_TEST

/* ibv_open_qp: more handles on one target QP, in any handle of its
 * domain; the QP lives while any of them does. */
START_TEST(test_xrc_open_qp)
{
	struct ibv_xrcd *x = xrcd_open(xt_fd[0], O_CREAT);
	struct ibv_xrcd *y = xrcd_open(xt_fd[0], 0);
	struct ibv_xrcd *other = xrcd_open(xt_fd[1], O_CREAT);
	struct ibv_qp *tgt, *o1, *o2;
	struct ibv_qp_open_attr oa;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a, q;
	uint32_t qpn;

	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_nonnull(y);
	ck_assert_ptr_nonnull(other);
	tgt = tgt_create(x);
	qpn = tgt->qp_num;
	o1 = qp_open(y, qpn);
	ck_assert_msg(o1, "%s", strerror(errno));
	ck_assert_uint_eq(o1->qp_num, qpn);
	ck_assert_int_eq(o1->qp_type, IBV_QPT_XRC_RECV);
	ck_assert_ptr_eq(o1->context, qt_ctx);
	o2 = qp_open(x, qpn);
	ck_assert_ptr_nonnull(o2);
	/* Not in that domain; no such QP; bad attributes. */
	ck_assert_ptr_null(qp_open(other, qpn));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(qp_open(x, qpn + 1000));
	ck_assert_int_eq(errno, EINVAL);
	memset(&oa, 0, sizeof(oa));
	oa.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD;
	oa.qp_num = qpn;
	oa.xrcd = x;
	oa.qp_type = IBV_QPT_XRC_RECV;
	errno = 0;
	ck_assert_ptr_null(ibv_open_qp(qt_ctx, &oa));
	ck_assert_int_eq(errno, EINVAL);
	oa.comp_mask |= IBV_QP_OPEN_ATTR_TYPE;
	oa.qp_type = IBV_QPT_RC;
	errno = 0;
	ck_assert_ptr_null(ibv_open_qp(qt_ctx, &oa));
	ck_assert_int_eq(errno, EINVAL);
	oa.qp_type = IBV_QPT_XRC_RECV;
	oa.comp_mask |= IBV_QP_OPEN_ATTR_RESERVED;
	errno = 0;
	ck_assert_ptr_null(ibv_open_qp(qt_ctx, &oa));
	ck_assert_int_eq(errno, EOPNOTSUPP);

	/* The opened handle holds its XRCD handle. */
	ck_assert_int_eq(ibv_close_xrcd(y), EBUSY);
	/* The creator goes, the QP stays: modify through an opened one. */
	ck_assert_int_eq(ibv_destroy_qp(tgt), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	ck_assert_int_eq(ibv_modify_qp(o1, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	ck_assert_int_eq(o1->state, IBV_QPS_INIT);
	ck_assert_int_eq(ibv_query_qp(o2, &q, IBV_QP_STATE, &init), 0);
	ck_assert_int_eq(q.qp_state, IBV_QPS_INIT);
	ck_assert_int_eq(init.qp_type, IBV_QPT_XRC_RECV);
	ck_assert_ptr_null(init.send_cq);
	/* Still found by number while a handle is open. */
	{
		struct ibv_qp *o3 = qp_open(y, qpn);

		ck_assert_ptr_nonnull(o3);
		ck_assert_int_eq(ibv_destroy_qp(o3), 0);
	}
	ck_assert_int_eq(ibv_destroy_qp(o1), 0);
	ck_assert_int_eq(ibv_close_xrcd(y), 0);
	ck_assert_int_eq(ibv_destroy_qp(o2), 0);
	/* The last handle took the QP with it. */
	ck_assert_ptr_null(qp_open(x, qpn));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_close_xrcd(x), 0);
	ck_assert_int_eq(ibv_close_xrcd(other), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("qp_xrc");
	TCase *tc = tcase_create("xrc");

	tcase_add_checked_fixture(tc, xt_setup, xt_teardown);
	tcase_add_test(tc, test_xrcd_open_flags);
	tcase_add_test(tc, test_xrcd_share_by_inode);
	tcase_add_test(tc, test_xrc_srq);
	tcase_add_test(tc, test_xrc_qps);
	tcase_add_test(tc, test_xrc_open_qp);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
