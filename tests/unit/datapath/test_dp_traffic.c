/* SPDX-License-Identifier: MIT */
/*
 * Traffic end to end through the provider and the engine: two contexts of
 * mlx5_0, and mlx5_0 with mlx5_1 (MLX5EMU_NUM_DEVICES=2), each side a
 * QP of its own on its own PD, MR and CQ.  RC (every opcode the device
 * offers), UC and UD, with the data and the completions both sides get (wc
 * fields as libmlx5 reports them); the ibv_wr_* API; ibv_resize_cq with
 * CQEs outstanding.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dp_test.h"

#define BUF 8192
#define QKEY 0x11111111

/* One side: a context and what lives in it. */
struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	struct ibv_qp *qp;
};

static struct side s1, s2;

static struct ibv_context *open_dev(int index)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx;

	ck_assert_ptr_nonnull(list);
	ck_assert_ptr_nonnull(list[index]);
	ctx = ibv_open_device(list[index]);
	ck_assert_ptr_nonnull(ctx);
	ibv_free_device_list(list);
	return ctx;
}

static void side_open(struct side *s, int dev)
{
	memset(s, 0, sizeof(*s));
	s->ctx = open_dev(dev);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 63, NULL, NULL, 0);
	s->buf = vt_alloc(BUF);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	ck_assert_ptr_nonnull(s->pd);
	ck_assert_ptr_nonnull(s->cq);
	ck_assert_ptr_nonnull(s->mr);
	ck_assert_int_eq(ibv_query_gid(s->ctx, 1, 1, &s->gid), 0);
}

static void side_close(struct side *s)
{
	if (s->qp)
		ck_assert_int_eq(ibv_destroy_qp(s->qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(s->mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(s->cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(s->pd), 0);
	ck_assert_int_eq(ibv_close_device(s->ctx), 0);
	free(s->buf);
}

static void teardown(void)
{
	side_close(&s1);
	side_close(&s2);
}

static void setup_same_device(void)
{
	side_open(&s1, 0);
	side_open(&s2, 0);
}

static void setup_two_devices(void)
{
	side_open(&s1, 0);
	side_open(&s2, 1);
}

/* RESET to RTS toward @peer's QP @rqpn (RC or UC), every remote access. */
static void connect_qp(struct ibv_qp *qp, struct side *peer, uint32_t rqpn)
{
	qt_rc_connect(qp, rqpn, &peer->gid, 1, IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		      0x100, 0x100);
}

static struct ibv_qp *make_qp(struct side *s, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 2,
			 .max_recv_sge = 2, .max_inline_data = 64 },
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &a);

	ck_assert_msg(qp, "create_qp: %s", strerror(errno));
	return qp;
}

static void connect_pair(enum ibv_qp_type type)
{
	s1.qp = make_qp(&s1, type);
	s2.qp = make_qp(&s2, type);
	if (type == IBV_QPT_UD) {
		qt_ud_to_rts(s1.qp, QKEY, 0x100);
		qt_ud_to_rts(s2.qp, QKEY, 0x100);
		return;
	}
	connect_qp(s1.qp, &s2, s2.qp->qp_num);
	connect_qp(s2.qp, &s1, s1.qp->qp_num);
}

static void post_recv(struct side *s, uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	ck_assert_int_eq(ibv_post_recv(s->qp, &wr, &bad), 0);
}

static void post_send(struct side *s, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	ck_assert_int_eq(ibv_post_send(s->qp, wr, &bad), 0);
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 13);
}

/* SEND, SEND_WITH_IMM (inline too), RDMA WRITE (with immediate), READ,
 * compare-and-swap, fetch-and-add from s1 to s2. */
static void rc_opcodes(void)
{
	struct ibv_sge sge = { (uintptr_t)s1.buf, 300, s1.mr->lkey };
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	uint64_t *word;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;

	/* SEND: the receive gets the bytes, its length, the source QP. */
	fill(s1.buf, 300, 1);
	post_recv(&s2, 0x200, 1024, 512);
	wr.wr_id = 1;
	wr.opcode = IBV_WR_SEND;
	post_send(&s1, &wr);
	wc = dp_poll_one(s1.cq);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.opcode, IBV_WC_SEND);
	wc = dp_poll_one(s2.cq);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 0x200);
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc.byte_len, 300);
	ck_assert_int_eq(memcmp(s2.buf + 1024, s1.buf, 300), 0);

	/* SEND_WITH_IMM, inline. */
	fill(s1.buf, 40, 7);
	post_recv(&s2, 0x201, 2048, 64);
	sge.length = 40;
	wr.wr_id = 2;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32(0xfeedf00d);
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	post_send(&s1, &wr);
	ck_assert_uint_eq(dp_poll_one(s1.cq).wr_id, 2);
	wc = dp_poll_one(s2.cq);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wc_flags & IBV_WC_WITH_IMM, IBV_WC_WITH_IMM);
	ck_assert_uint_eq(be32toh(wc.imm_data), 0xfeedf00d);
	ck_assert_uint_eq(wc.byte_len, 40);
	ck_assert_int_eq(memcmp(s2.buf + 2048, s1.buf, 40), 0);

	/* RDMA WRITE: no receive consumed. */
	fill(s1.buf, 500, 3);
	sge.length = 500;
	wr.wr_id = 3;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)s2.buf + 3072;
	wr.wr.rdma.rkey = s2.mr->rkey;
	post_send(&s1, &wr);
	wc = dp_poll_one(s1.cq);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_WRITE);
	ck_assert_int_eq(memcmp(s2.buf + 3072, s1.buf, 500), 0);

	/* RDMA WRITE with immediate: a receive completes with it. */
	post_recv(&s2, 0x202, 0, 16);
	wr.wr_id = 4;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htobe32(0x1234);
	post_send(&s1, &wr);
	ck_assert_uint_eq(dp_poll_one(s1.cq).wr_id, 4);
	wc = dp_poll_one(s2.cq);
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(wc.wr_id, 0x202);
	ck_assert_uint_eq(be32toh(wc.imm_data), 0x1234);

	/* RDMA READ back into s1. */
	memset(s1.buf + 4096, 0, 500);
	sge.addr = (uintptr_t)s1.buf + 4096;
	wr.wr_id = 5;
	wr.opcode = IBV_WR_RDMA_READ;
	post_send(&s1, &wr);
	wc = dp_poll_one(s1.cq);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_READ);
	ck_assert_uint_eq(wc.byte_len, 500);
	ck_assert_int_eq(memcmp(s1.buf + 4096, s2.buf + 3072, 500), 0);

	/* Atomics on an aligned word of s2: the old value comes back. */
	word = (uint64_t *)(s2.buf + 6144);
	*word = 100;
	sge.addr = (uintptr_t)s1.buf + 6144;
	sge.length = 8;
	wr.wr_id = 6;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)word;
	wr.wr.atomic.rkey = s2.mr->rkey;
	wr.wr.atomic.compare_add = 5;
	post_send(&s1, &wr);
	wc = dp_poll_one(s1.cq);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_FETCH_ADD);
	ck_assert_uint_eq(wc.byte_len, 8);
	ck_assert_uint_eq(*(uint64_t *)(s1.buf + 6144), 100);
	ck_assert_uint_eq(*word, 105);
	wr.wr_id = 7;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 105;
	wr.wr.atomic.swap = 7;
	post_send(&s1, &wr);
	wc = dp_poll_one(s1.cq);
	ck_assert_int_eq(wc.opcode, IBV_WC_COMP_SWAP);
	ck_assert_uint_eq(*(uint64_t *)(s1.buf + 6144), 105);
	ck_assert_uint_eq(*word, 7);
}

START_TEST(test_rc)
{
	connect_pair(IBV_QPT_RC);
	rc_opcodes();
}
END_TEST

START_TEST(test_uc)
{
	struct ibv_sge sge = { (uintptr_t)s1.buf, 200, 0 };
	struct ibv_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	connect_pair(IBV_QPT_UC);
	sge.lkey = s1.mr->lkey;
	fill(s1.buf, 200, 9);
	post_recv(&s2, 0x300, 512, 256);
	post_send(&s1, &wr);
	ck_assert_int_eq(dp_poll_one(s1.cq).status, IBV_WC_SUCCESS);
	wc = dp_poll_one(s2.cq);
	ck_assert_uint_eq(wc.wr_id, 0x300);
	ck_assert_uint_eq(wc.byte_len, 200);
	ck_assert_int_eq(memcmp(s2.buf + 512, s1.buf, 200), 0);
	/* WRITE with immediate. */
	post_recv(&s2, 0x301, 0, 16);
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htobe32(77);
	wr.wr.rdma.remote_addr = (uintptr_t)s2.buf + 1024;
	wr.wr.rdma.rkey = s2.mr->rkey;
	post_send(&s1, &wr);
	ck_assert_int_eq(dp_poll_one(s1.cq).opcode, IBV_WC_RDMA_WRITE);
	wc = dp_poll_one(s2.cq);
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(be32toh(wc.imm_data), 77);
	ck_assert_int_eq(memcmp(s2.buf + 1024, s1.buf, 200), 0);
}
END_TEST

START_TEST(test_ud)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_sge sge = { (uintptr_t)s1.buf, 256, 0 };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_ah *ah;
	struct ibv_wc wc;

	connect_pair(IBV_QPT_UD);
	sge.lkey = s1.mr->lkey;
	aa.grh.dgid = s2.gid;
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(s1.pd, &aa);
	ck_assert_ptr_nonnull(ah);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = s2.qp->qp_num;
	wr.wr.ud.remote_qkey = QKEY;
	fill(s1.buf, 256, 5);
	/* The 40-byte GRH area comes first. */
	post_recv(&s2, 0x400, 0, 40 + 256);
	post_send(&s1, &wr);
	ck_assert_int_eq(dp_poll_one(s1.cq).status, IBV_WC_SUCCESS);
	wc = dp_poll_one(s2.cq);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, 40 + 256);
	ck_assert_uint_eq(wc.src_qp, s1.qp->qp_num);
	ck_assert_uint_eq(wc.wc_flags & IBV_WC_GRH, IBV_WC_GRH);
	ck_assert_int_eq(memcmp(s2.buf + 40, s1.buf, 256), 0);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
}
END_TEST

/* Waits until @n CQEs sit in @cq unpolled (read through mlx5dv_init_obj). */
static void wait_cqes(struct ibv_cq *cq, uint32_t n)
{
	struct mlx5dv_cq dv;
	struct mlx5dv_obj obj = { .cq = { .in = cq, .out = &dv } };
	struct timespec t0, t;
	volatile uint8_t *own;

	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ), 0);
	own = (uint8_t *)dv.buf + (size_t)(n - 1) * dv.cqe_size + dv.cqe_size - 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((*own >> 4) == 0xf) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		ck_assert_msg(t.tv_sec - t0.tv_sec < 5, "CQEs did not come");
	}
}

/* ibv_start_poll() that waits for the first CQE (the device works in
 * its own time). */
static void start_poll(struct ibv_cq_ex *cq)
{
	struct ibv_poll_cq_attr pa = {};
	struct timespec t0, t;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((ret = ibv_start_poll(cq, &pa)) == ENOENT) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		ck_assert_msg(t.tv_sec - t0.tv_sec < 5, "no completion");
	}
	ck_assert_int_eq(ret, 0);
}

/* One ibv_wr_* batch (SEND_WITH_IMM, an unsignaled inline RDMA WRITE,
 * FETCH_AND_ADD) over RC, both sides' completions read through ibv_cq_ex. */
START_TEST(test_rc_wr)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 63,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
			    IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP,
	};
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 64 },
	};
	uint64_t *word = (uint64_t *)(s2.buf + 6144);
	struct ibv_cq_ex *cq1, *cq2;
	struct ibv_qp_ex *qpx;

	cq1 = ibv_create_cq_ex(s1.ctx, &ca);
	cq2 = ibv_create_cq_ex(s2.ctx, &ca);
	ck_assert_ptr_nonnull(cq1);
	ck_assert_ptr_nonnull(cq2);
	ia.pd = s1.pd;
	ia.send_cq = ia.recv_cq = ibv_cq_ex_to_cq(cq1);
	s1.qp = ibv_create_qp_ex(s1.ctx, &ia);
	ck_assert_ptr_nonnull(s1.qp);
	ia.pd = s2.pd;
	ia.send_cq = ia.recv_cq = ibv_cq_ex_to_cq(cq2);
	s2.qp = ibv_create_qp_ex(s2.ctx, &ia);
	ck_assert_ptr_nonnull(s2.qp);
	connect_qp(s1.qp, &s2, s2.qp->qp_num);
	connect_qp(s2.qp, &s1, s1.qp->qp_num);

	*word = 40;
	fill(s1.buf, 100, 11);
	post_recv(&s2, 0x700, 0, 128);
	qpx = ibv_qp_to_qp_ex(s1.qp);
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(qpx, htobe32(0xabcd0001));
	ibv_wr_set_sge(qpx, s1.mr->lkey, (uintptr_t)s1.buf, 100);
	qpx->wr_id = 2;
	qpx->wr_flags = 0;
	ibv_wr_rdma_write(qpx, s2.mr->rkey, (uintptr_t)s2.buf + 1024);
	ibv_wr_set_inline_data(qpx, s1.buf + 10, 50);
	qpx->wr_id = 3;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(qpx, s2.mr->rkey, (uintptr_t)word, 2);
	ibv_wr_set_sge(qpx, s1.mr->lkey, (uintptr_t)s1.buf + 6144, 8);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);

	/* The responder: one receive, with the immediate and the sender. */
	start_poll(cq2);
	ck_assert_int_eq(cq2->status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(cq2->wr_id, 0x700);
	ck_assert_int_eq(ibv_wc_read_opcode(cq2), IBV_WC_RECV);
	ck_assert_uint_eq(ibv_wc_read_wc_flags(cq2) & IBV_WC_WITH_IMM,
			  IBV_WC_WITH_IMM);
	ck_assert_uint_eq(be32toh(ibv_wc_read_imm_data(cq2)), 0xabcd0001);
	ck_assert_uint_eq(ibv_wc_read_byte_len(cq2), 100);
	ck_assert_uint_eq(ibv_wc_read_qp_num(cq2), s2.qp->qp_num);
	ck_assert_uint_eq(ibv_wc_read_src_qp(cq2), s1.qp->qp_num);
	ck_assert_int_eq(ibv_next_poll(cq2), ENOENT);
	ibv_end_poll(cq2);

	/* The initiator: two CQEs, the WRITE retired by the atomic's. */
	wait_cqes(ibv_cq_ex_to_cq(cq1), 2);
	start_poll(cq1);
	ck_assert_int_eq(cq1->status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(cq1->wr_id, 1);
	ck_assert_int_eq(ibv_wc_read_opcode(cq1), IBV_WC_SEND);
	ck_assert_uint_eq(ibv_wc_read_qp_num(cq1), s1.qp->qp_num);
	ck_assert_int_eq(ibv_next_poll(cq1), 0);
	ck_assert_int_eq(cq1->status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(cq1->wr_id, 3);
	ck_assert_int_eq(ibv_wc_read_opcode(cq1), IBV_WC_FETCH_ADD);
	ck_assert_uint_eq(ibv_wc_read_byte_len(cq1), 8);
	ck_assert_int_eq(ibv_next_poll(cq1), ENOENT);
	ibv_end_poll(cq1);

	ck_assert_int_eq(memcmp(s2.buf, s1.buf, 100), 0);
	ck_assert_int_eq(memcmp(s2.buf + 1024, s1.buf + 10, 50), 0);
	ck_assert_uint_eq(*(uint64_t *)(s1.buf + 6144), 40);
	ck_assert_uint_eq(*word, 42);

	ck_assert_int_eq(ibv_destroy_qp(s1.qp), 0);
	ck_assert_int_eq(ibv_destroy_qp(s2.qp), 0);
	s1.qp = s2.qp = NULL;
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cq1)), 0);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cq2)), 0);
}
END_TEST

/* ibv_resize_cq with completions outstanding (cq_resize is offered). */
START_TEST(test_resize)
{
	struct ibv_sge sge = { (uintptr_t)s1.buf, 16, 0 };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	connect_pair(IBV_QPT_RC);
	sge.lkey = s1.mr->lkey;
	for (uint64_t i = 0; i < 10; i++) {
		post_recv(&s2, 0x500 + i, (uint32_t)(i * 16), 16);
		wr.wr_id = i;
		post_send(&s1, &wr);
	}
	wait_cqes(s1.cq, 10);
	/* Eight entries cannot hold ten CQEs: the firmware's EINVAL. */
	ck_assert_int_eq(ibv_resize_cq(s1.cq, 5), EINVAL);
	ck_assert_int_eq(s1.cq->cqe, 63);
	ck_assert_int_eq(ibv_resize_cq(s1.cq, 200), 0);
	ck_assert_int_eq(s1.cq->cqe, 255);
	for (uint64_t i = 0; i < 10; i++) {
		wc = dp_poll_one(s1.cq);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert_uint_eq(wc.wr_id, i);
	}
	/* The device goes on in the new ring. */
	post_recv(&s2, 0x600, 0, 16);
	wr.wr_id = 10;
	post_send(&s1, &wr);
	ck_assert_uint_eq(dp_poll_one(s1.cq).wr_id, 10);
	ck_assert_int_eq(ibv_resize_cq(s1.cq, 15), 0);
	ck_assert_int_eq(s1.cq->cqe, 15);
	post_recv(&s2, 0x601, 0, 16);
	wr.wr_id = 11;
	post_send(&s1, &wr);
	ck_assert_uint_eq(dp_poll_one(s1.cq).wr_id, 11);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dp_traffic");
	TCase *same = tcase_create("same_device");
	TCase *two = tcase_create("two_devices");

	tcase_add_checked_fixture(same, setup_same_device, teardown);
	tcase_add_test(same, test_rc);
	tcase_add_test(same, test_rc_wr);
	tcase_add_test(same, test_uc);
	tcase_add_test(same, test_ud);
	tcase_add_test(same, test_resize);
	suite_add_tcase(s, same);
	tcase_add_checked_fixture(two, setup_two_devices, teardown);
	tcase_add_test(two, test_rc);
	tcase_add_test(two, test_rc_wr);
	tcase_add_test(two, test_uc);
	tcase_add_test(two, test_ud);
	suite_add_tcase(s, two);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
