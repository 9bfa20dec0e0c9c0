/* SPDX-License-Identifier: MIT */
/*
 * det_scenario: a single-threaded program for the deterministic replay
 * test (tests/cli/test_deterministic.sh), over the drop-in libraries and
 * the public mlx5emu_progress().  Two RC QPs on mlx5_0 connected to each
 * other (responder RNR timer 14: 1.28 ms, rnr_retry 7):
 *
 *   rounds of: a SEND with immediate written by hand into the SQ with its
 *     doorbell record only (mlx5dv_init_obj: a DEVX-style program), before
 *     any receive, so it is RNR-NAKed; i progress calls (each moves the
 *     virtual clock to the retry); the receive (ibv_post_recv); both
 *     completions polled (ibv_start_poll; each CQE's timestamp, the
 *     virtual clock, read from the CQ's memory as libmlx5's
 *     read_completion_ts does: the device offers no core clock, so a CQ
 *     cannot ask for IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
 *   QUERY_QP again and again (ibv_query_qp), against whatever fault rules
 *     the run has (prob= rules: seeded)
 *
 * Prints one line per completion and per query; exits 0 unless a step
 * behaves unexpectedly.  Its output and its command trace are what two
 * runs with one seed must repeat byte for byte.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <mlx5emu/mlx5emu.h>

#include "ut_dropin.h"

#define ROUNDS 6
#define QUERIES 24
#define MSG 256

struct end {
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct mlx5dv_qp dv;
	struct mlx5dv_cq dvcq;
	uint32_t sq_pi;
	uint32_t ci;		/* CQEs consumed (one CQE per completion) */
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t *buf;

static void die(const char *what)
{
	fprintf(stderr, "det_scenario: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void end_init(struct end *e)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct mlx5dv_obj obj = { .qp = { .out = &e->dv },
				  .cq = { .out = &e->dvcq } };

	e->cq = ibv_create_cq_ex(ctx, &ca);
	if (!e->cq)
		die("ibv_create_cq_ex");
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(e->cq);
	e->qp = ibv_create_qp(pd, &qa);
	if (!e->qp)
		die("ibv_create_qp");
	obj.qp.in = e->qp;
	obj.cq.in = ibv_cq_ex_to_cq(e->cq);
	if (mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ))
		die("mlx5dv_init_obj");
}

/* SEND_IMM of MSG bytes: control and data segments, the SQ doorbell
 * record; no UAR write, no library call. */
static void write_send(struct end *e, uint32_t imm)
{
	uint8_t *w = (uint8_t *)e->dv.sq.buf +
		     (size_t)(e->sq_pi & (e->dv.sq.wqe_cnt - 1)) * 64;
	uint32_t v[8] = {
		htobe32((e->sq_pi & 0xffff) << 8 | MLX5_OPCODE_SEND_IMM),
		htobe32(e->qp->qp_num << 8 | 2),
		htobe32(MLX5_WQE_CTRL_CQ_UPDATE), htobe32(imm),
		htobe32(MSG), htobe32(mr->lkey),
	};
	uint64_t a = htobe64((uint64_t)(uintptr_t)buf);

	memcpy(v + 6, &a, 8);
	memcpy(w, v, sizeof(v));
	e->sq_pi++;
	__atomic_store_n(&e->dv.dbrec[1], htobe32(e->sq_pi & 0xffff),
			 __ATOMIC_RELEASE);
}

static void post_recv(struct end *e)
{
	struct ibv_sge sge = { (uintptr_t)(buf + MSG), MSG, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 },
			   *bad;

	if (ibv_post_recv(e->qp, &wr, &bad))
		die("ibv_post_recv");
}

/* The timestamp of the CQE start_poll just consumed (the 64-byte CQE is
 * the last 64 bytes of a 128-byte one). */
static uint64_t cqe_timestamp(struct end *e)
{
	const struct mlx5_cqe64 *c = (const void *)
		((const uint8_t *)e->dvcq.buf +
		 (size_t)(e->ci++ & (e->dvcq.cqe_cnt - 1)) * e->dvcq.cqe_size +
		 e->dvcq.cqe_size - sizeof(*c));

	return be64toh(c->timestamp);
}

/* One completion, polled with progress calls between empty polls. */
static void poll_one(const char *who, int round, struct end *e)
{
	struct ibv_poll_cq_attr pa = { 0 };
	int ret, tries = 0;

	while ((ret = ibv_start_poll(e->cq, &pa)) == ENOENT) {
		if (++tries > 100000)
			die("no completion");
		mlx5emu_progress();
	}
	if (ret)
		die("ibv_start_poll");
	printf("round %d %s: status %d opcode %d byte_len %u imm 0x%x "
	       "ts %" PRIu64 "\n", round, who, e->cq->status,
	       ibv_wc_read_opcode(e->cq), ibv_wc_read_byte_len(e->cq),
	       e->cq->status || ibv_wc_read_opcode(e->cq) != IBV_WC_RECV ? 0 :
	       be32toh(ibv_wc_read_imm_data(e->cq)),
	       cqe_timestamp(e));
	ibv_end_poll(e->cq);
}

int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct end a = { 0 }, b = { 0 };
	union ibv_gid gid;

	if (!list || !list[0])
		die("no device");
	ctx = ibv_open_device(list[0]);
	if (!ctx)
		die("ibv_open_device");
	pd = ibv_alloc_pd(ctx);
	buf = calloc(1, 2 * MSG);
	if (!pd || !buf)
		die("PD");
	mr = ibv_reg_mr(pd, buf, 2 * MSG, IBV_ACCESS_LOCAL_WRITE);
	if (!mr || ibv_query_gid(ctx, 1, 3, &gid))
		die("MR or GID");
	end_init(&a);
	end_init(&b);
	/* Responder RNR timer 14: 1.28 ms. */
	if (ut_rc_connect(a.qp, b.qp->qp_num, &gid, 14) ||
	    ut_rc_connect(b.qp, a.qp->qp_num, &gid, 14))
		die("connecting");
	for (int r = 0; r < ROUNDS; r++) {
		memset(buf, 'a' + r, MSG);
		write_send(&a, 0x100 + (uint32_t)r);
		for (int i = 0; i <= r; i++)
			mlx5emu_progress();
		post_recv(&b);
		poll_one("requester", r, &a);
		poll_one("responder", r, &b);
	}
	for (int q = 0; q < QUERIES; q++) {
		struct ibv_qp_attr attr;
		struct ibv_qp_init_attr init;
		int ret = ibv_query_qp(a.qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN,
				       &init);

		printf("query %d: %d", q, ret);
		if (!ret)
			printf(" state %d sq_psn 0x%x", attr.qp_state, attr.sq_psn);
		printf("\n");
	}
	ibv_destroy_qp(a.qp);
	ibv_destroy_qp(b.qp);
	ibv_destroy_cq(ibv_cq_ex_to_cq(a.cq));
	ibv_destroy_cq(ibv_cq_ex_to_cq(b.cq));
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(buf);
	return 0;
}
