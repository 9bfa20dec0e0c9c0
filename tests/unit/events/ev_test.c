/* SPDX-License-Identifier: MIT */
#include "ev_test.h"

#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <mlx5emu/mlx5emu.h>

void evt_qp_create(struct evt_qp *q, struct ibv_pd *pd, struct ibv_cq *cq,
		   struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = srq ? 0 : 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct mlx5dv_obj o = { .qp = { .out = &q->dv } };

	memset(q, 0, sizeof(*q));
	q->qp = ibv_create_qp(pd, &a);
	ck_assert_ptr_nonnull(q->qp);
	o.qp.in = q->qp;
	ck_assert_int_eq(mlx5dv_init_obj(&o, MLX5DV_OBJ_QP), 0);
}

void evt_qp_connect(struct evt_qp *q, uint32_t rqpn, bool rtr_only)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	ck_assert_int_eq(ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = rqpn;
	a.rq_psn = 0x100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	ck_assert_int_eq(ibv_query_gid(q->qp->context, 1, 1, &a.ah_attr.grh.dgid), 0);
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 64;
	ck_assert_int_eq(ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER), 0);
	if (rtr_only)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x100;
	a.timeout = 8;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	ck_assert_int_eq(ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				       IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC), 0);
}

void evt_post(struct evt_qp *q, uint8_t opcode, struct ibv_mr *mr,
	      uint32_t off, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	uint8_t *w = (uint8_t *)q->dv.sq.buf +
		     (size_t)(q->sq_pi & (q->dv.sq.wqe_cnt - 1)) * q->dv.sq.stride;
	struct mlx5_wqe_raddr_seg *r = (void *)(w + 16);
	uint8_t *d = w + 32;
	unsigned int ds = 3;

	memset(w, 0, 64);
	r->raddr = htobe64(raddr);
	r->rkey = htobe32(rkey);
	if (opcode == MLX5_OPCODE_SEND) {
		d = w + 16;	/* no remote address */
		ds = 2;
	} else if (opcode == MLX5_OPCODE_ATOMIC_FA ||
		   opcode == MLX5_OPCODE_ATOMIC_CS) {
		d += 16;	/* the atomic segment: add 1 */
		((uint64_t *)(void *)(w + 32))[0] = htobe64(1);
		ds = 4;
	}
	mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(void *)d, len, mr->lkey,
			    (uintptr_t)mr->addr + off);
	mlx5dv_set_ctrl_seg((struct mlx5_wqe_ctrl_seg *)(void *)w, q->sq_pi,
			    opcode, 0, q->qp->qp_num, MLX5_WQE_CTRL_CQ_UPDATE,
			    (uint8_t)ds, 0, 0);
	q->sq_pi++;
	__atomic_store_n(&q->dv.dbrec[MLX5_SND_DBR], htobe32(q->sq_pi),
			 __ATOMIC_RELEASE);
}

bool evt_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, ms);

	ck_assert_int_ge(n, 0);
	return n == 1 && (p.revents & POLLIN);
}

void evt_nonblock(int fd)
{
	ck_assert_int_eq(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
}

void evt_poll(struct ibv_cq *cq, int n, enum ibv_wc_status *st)
{
	struct timespec t0, t;
	int got = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < n) {
		struct ibv_wc wc;
		int k = ibv_poll_cq(cq, 1, &wc);

		ck_assert_int_ge(k, 0);
		if (k) {
			if (st)
				st[got] = wc.status;
			got++;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		ck_assert_msg(t.tv_sec - t0.tv_sec < 5, "%d of %d completions",
			      got, n);
	}
}

int evt_fault(const char *fmt, ...)
{
	char rule[256];
	va_list ap;
	int id;

	va_start(ap, fmt);
	vsnprintf(rule, sizeof(rule), fmt, ap);
	va_end(ap);
	id = mlx5emu_fault_add(rule);
	ck_assert_msg(id > 0, "%s: %s", rule, mlx5emu_fault_last_error());
	return id;
}
