/* SPDX-License-Identifier: MIT */
/*
 * DC traffic in process: DCIs (mlx5dv_create_qp, the ibv_wr_* API with
 * mlx5dv_wr_set_dc_addr) to DCTs of the same device.  The WQE as libmlx5
 * 44 lays it out (bytes read back at literal PRM offsets), SEND into the
 * DCT's SRQ with the DCT's completion, RDMA WRITE and READ through the
 * DCT's PD and access, a DCI moving between two DCTs and two DCIs sharing
 * one DCT, and a wrong DC access key: the DCT drops and counts it
 * (QUERY_DCT's dc_access_key_violation_count), the DCI runs out of
 * retries.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp_test.h"

#define KEY 0x1234abcd5678ULL
#define BUF 8192
#define RETRY 2

static struct ibv_srq *srq;
static struct ibv_mr *mr;
static uint8_t *buf;
static struct ibv_ah *ah;

static void setup(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .sgid_index = 1, .hop_limit = 64 },
	};

	qt_setup();
	srq = ibv_create_srq(qt_pd, &sa);
	ck_assert_ptr_nonnull(srq);
	buf = vt_alloc(BUF);
	mr = ibv_reg_mr(qt_pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(mr);
	aa.grh.dgid = qt_gid(1);
	ah = ibv_create_ah(qt_pd, &aa);
	ck_assert_ptr_nonnull(ah);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
	free(buf);
	qt_teardown();
}

/* A DCI in RTS: send, write and read through the ibv_wr_* API. */
static struct ibv_qp *dci_rts(void)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_DRIVER, .send_cq = qt_cq, .recv_cq = qt_cq,
		.cap = { .max_send_wr = 16, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = qt_pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ,
	};
	struct mlx5dv_qp_init_attr d = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC,
		.dc_init_attr = { .dc_type = MLX5DV_DCTYPE_DCI },
	};
	struct ibv_qp_attr q = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp *qp = mlx5dv_create_qp(qt_ctx, &a, &d);

	ck_assert_msg(qp, "DCI: %s", strerror(errno));
	ck_assert_int_eq(ibv_modify_qp(qp, &q, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT), 0);
	/* As pyverbs does: the MTU alone, no path. */
	q.qp_state = IBV_QPS_RTR;
	q.path_mtu = IBV_MTU_1024;
	ck_assert_int_eq(ibv_modify_qp(qp, &q, IBV_QP_STATE | IBV_QP_PATH_MTU), 0);
	q.qp_state = IBV_QPS_RTS;
	q.timeout = 8;		/* 1 ms */
	q.retry_cnt = RETRY;
	q.rnr_retry = 7;
	q.sq_psn = 0x77;
	q.max_rd_atomic = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &q, IBV_QP_STATE | IBV_QP_TIMEOUT |
				       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC),
			 0);
	return qp;
}

/* A DCT on the SRQ, remote write and read, in RTR (CREATE_DCT). */
static struct ibv_qp *dct_rtr(void)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_DRIVER, .send_cq = qt_cq, .recv_cq = qt_cq,
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = qt_pd, .srq = srq,
	};
	struct mlx5dv_qp_init_attr d = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC,
		.dc_init_attr = { .dc_type = MLX5DV_DCTYPE_DCT,
				  .dct_access_key = KEY },
	};
	struct ibv_qp_attr q = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	struct ibv_qp *qp = mlx5dv_create_qp(qt_ctx, &a, &d);

	ck_assert_msg(qp, "DCT: %s", strerror(errno));
	ck_assert_int_eq(ibv_modify_qp(qp, &q, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	q.qp_state = IBV_QPS_RTR;
	q.path_mtu = IBV_MTU_1024;
	q.min_rnr_timer = 1;
	q.ah_attr.is_global = 1;
	q.ah_attr.port_num = 1;
	q.ah_attr.grh.sgid_index = 1;
	q.ah_attr.grh.hop_limit = 64;
	q.ah_attr.grh.dgid = qt_gid(1);
	ck_assert_int_eq(ibv_modify_qp(qp, &q, IBV_QP_STATE | IBV_QP_PATH_MTU |
				       IBV_QP_AV | IBV_QP_MIN_RNR_TIMER), 0);
	return qp;
}

enum op { OP_SEND, OP_WRITE, OP_READ };

static void dc_post(struct ibv_qp *dci, enum op op, uint32_t dctn, uint64_t key,
		    uint32_t off, uint32_t len, uint32_t roff)
{
	struct ibv_qp_ex *ex = ibv_qp_to_qp_ex(dci);
	struct mlx5dv_qp_ex *dv = mlx5dv_qp_ex_from_ibv_qp_ex(ex);

	ibv_wr_start(ex);
	ex->wr_id = op;
	ex->wr_flags = IBV_SEND_SIGNALED;
	if (op == OP_SEND)
		ibv_wr_send(ex);
	else if (op == OP_WRITE)
		ibv_wr_rdma_write(ex, mr->rkey, (uintptr_t)buf + roff);
	else
		ibv_wr_rdma_read(ex, mr->rkey, (uintptr_t)buf + roff);
	mlx5dv_wr_set_dc_addr(dv, ah, dctn, key);
	ibv_wr_set_sge(ex, mr->lkey, (uintptr_t)buf + off, len);
	ck_assert_int_eq(ibv_wr_complete(ex), 0);
}

static void post_srq(uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)buf + off, len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	ck_assert_int_eq(ibv_post_srq_recv(srq, &wr, &bad), 0);
}

static void fill(uint32_t off, uint32_t len, uint8_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		buf[off + i] = (uint8_t)(seed + i * 7);
}

/* A SEND from @dci lands in the SRQ: both completions, the bytes. */
static void send_one(struct ibv_qp *dci, struct ibv_qp *dct, uint8_t seed)
{
	struct ibv_wc a, b, *snd, *rcv;

	fill(0, 200, seed);
	memset(buf + 1024, 0, 256);
	post_srq(0x500 + seed, 1024, 256);
	dc_post(dci, OP_SEND, dct->qp_num, KEY, 0, 200, 0);
	a = dp_poll_one(qt_cq);
	b = dp_poll_one(qt_cq);
	snd = a.opcode == IBV_WC_SEND ? &a : &b;
	rcv = a.opcode == IBV_WC_SEND ? &b : &a;
	ck_assert_int_eq(snd->status, IBV_WC_SUCCESS);
	ck_assert_int_eq(snd->opcode, IBV_WC_SEND);
	ck_assert_uint_eq(snd->qp_num, dci->qp_num);
	ck_assert_int_eq(rcv->status, IBV_WC_SUCCESS);
	ck_assert_int_eq(rcv->opcode, IBV_WC_RECV);
	ck_assert_uint_eq(rcv->wr_id, 0x500u + seed);
	ck_assert_uint_eq(rcv->byte_len, 200);
	ck_assert_uint_eq(rcv->qp_num, dct->qp_num);
	ck_assert_int_eq(memcmp(buf + 1024, buf, 200), 0);
}

/* The WQE mlx5dv_wr_set_dc_addr builds: control, datagram segment (the
 * AV with the DC key at 0, the DCT number | extended AV at 8, the GID at
 * 32), data segment. */
START_TEST(dc_wqe_layout)
{
	struct ibv_qp *dci = dci_rts(), *dct = dct_rtr();
	struct mlx5dv_qp dv = dp_dv(dci);
	union ibv_gid gid = qt_gid(1);
	uint8_t w[80];
	uint64_t key;
	uint32_t v;

	send_one(dci, dct, 1);
	dp_sq_read(&dv, 0, w, sizeof(w));
	memcpy(&v, w, 4);
	ck_assert_uint_eq(be32toh(v), MLX5_OPCODE_SEND);	/* idx 0 */
	memcpy(&v, w + 4, 4);
	ck_assert_uint_eq(be32toh(v), dci->qp_num << 8 | 5);	/* 80 bytes */
	memcpy(&key, w + 16, 8);
	ck_assert_uint_eq(be64toh(key), KEY);
	memcpy(&v, w + 24, 4);
	ck_assert_uint_eq(be32toh(v), dct->qp_num | 0x80000000u);
	ck_assert_int_eq(memcmp(w + 16 + 32, gid.raw, 16), 0);
	memcpy(&v, w + 64, 4);
	ck_assert_uint_eq(be32toh(v), 200);			/* byte count */
	memcpy(&v, w + 68, 4);
	ck_assert_uint_eq(be32toh(v), mr->lkey);
	ck_assert_int_eq(ibv_destroy_qp(dci), 0);
	ck_assert_int_eq(ibv_destroy_qp(dct), 0);
}
END_TEST

START_TEST(dc_send_write_read)
{
	struct ibv_qp *dci = dci_rts(), *dct = dct_rtr();
	struct ibv_wc wc;

	for (uint8_t i = 1; i <= 3; i++)
		send_one(dci, dct, i);
	fill(0, 500, 9);
	dc_post(dci, OP_WRITE, dct->qp_num, KEY, 0, 500, 4096);
	wc = dp_poll_one(qt_cq);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_WRITE);
	ck_assert_int_eq(memcmp(buf + 4096, buf, 500), 0);
	memset(buf + 6144, 0, 500);
	dc_post(dci, OP_READ, dct->qp_num, KEY, 6144, 500, 4096);
	wc = dp_poll_one(qt_cq);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_READ);
	ck_assert_uint_eq(wc.byte_len, 500);
	ck_assert_int_eq(memcmp(buf + 6144, buf + 4096, 500), 0);
	ck_assert_int_eq(ibv_destroy_qp(dci), 0);
	ck_assert_int_eq(ibv_destroy_qp(dct), 0);
}
END_TEST

/* One DCI to two DCTs and back (a connection each time), two DCIs to
 * one DCT in turn (a connection each). */
START_TEST(dc_connections)
{
	struct ibv_qp *d1 = dci_rts(), *d2 = dci_rts();
	struct ibv_qp *t1 = dct_rtr(), *t2 = dct_rtr();

	send_one(d1, t1, 1);
	send_one(d1, t2, 2);
	send_one(d1, t1, 3);
	send_one(d2, t1, 4);
	send_one(d1, t1, 5);
	send_one(d2, t1, 6);
	ck_assert_int_eq(ibv_destroy_qp(d1), 0);
	ck_assert_int_eq(ibv_destroy_qp(d2), 0);
	ck_assert_int_eq(ibv_destroy_qp(t1), 0);
	ck_assert_int_eq(ibv_destroy_qp(t2), 0);
}
END_TEST

/* QUERY_DCT's key violation count through DEVX. */
static uint32_t dct_violations(struct ibv_qp *dct)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_dct_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_dct_out)] = { 0 };

	PRM_SET(query_dct_in, in, opcode, MLX5_CMD_OP_QUERY_DCT);
	PRM_SET(query_dct_in, in, dctn, dct->qp_num);
	ck_assert_int_eq(mlx5dv_devx_qp_query(dct, in, sizeof(in), out,
					      sizeof(out)), 0);
	return PRM_GET(query_dct_out, out,
		       dct_context_entry.dc_access_key_violation_count);
}

/* A wrong key: nothing lands, every attempt counts, the DCI gives up
 * after its retries and the DCT still serves the right key. */
START_TEST(dc_wrong_key)
{
	struct ibv_qp *dci = dci_rts(), *dct = dct_rtr();
	struct ibv_wc wc;

	ck_assert_uint_eq(dct_violations(dct), 0);
	post_srq(0x99, 1024, 256);
	fill(0, 64, 3);
	memset(buf + 1024, 0, 64);
	dc_post(dci, OP_SEND, dct->qp_num, KEY + 1, 0, 64, 0);
	wc = dp_poll_one(qt_cq);
	ck_assert_int_eq(wc.status, IBV_WC_RETRY_EXC_ERR);
	ck_assert_uint_eq(wc.qp_num, dci->qp_num);
	ck_assert_uint_eq(dct_violations(dct), RETRY + 1);
	ck_assert_int_eq(ibv_poll_cq(qt_cq, 1, &wc), 0);
	ck_assert_uint_eq(buf[1024], 0);
	ck_assert_int_eq(ibv_destroy_qp(dci), 0);
	/* The receive is still posted: a good DCI's SEND takes it. */
	dci = dci_rts();
	dc_post(dci, OP_SEND, dct->qp_num, KEY, 0, 64, 0);
	for (int n = 0; n < 2; n++) {
		wc = dp_poll_one(qt_cq);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		if (wc.opcode == IBV_WC_RECV)
			ck_assert_uint_eq(wc.wr_id, 0x99);
	}
	ck_assert_int_eq(memcmp(buf + 1024, buf, 64), 0);
	ck_assert_int_eq(ibv_destroy_qp(dci), 0);
	ck_assert_int_eq(ibv_destroy_qp(dct), 0);
}
END_TEST

/* A connection whose first message has a wrong key: the good-key WRITE
 * behind it does not open the connection (only its first packet does),
 * so nothing lands and no ACK of it completes the dropped SEND. */
START_TEST(dc_wrong_key_opens_nothing)
{
	struct ibv_qp *dci = dci_rts(), *dct = dct_rtr();
	struct ibv_wc wc;

	fill(0, 64, 5);
	memset(buf + 4096, 0, 64);
	dc_post(dci, OP_SEND, dct->qp_num, KEY + 1, 0, 64, 0);
	dc_post(dci, OP_WRITE, dct->qp_num, KEY, 0, 64, 4096);
	wc = dp_poll_one(qt_cq);
	ck_assert_int_eq(wc.status, IBV_WC_RETRY_EXC_ERR);
	ck_assert_uint_eq(wc.wr_id, OP_SEND);
	wc = dp_poll_one(qt_cq);
	ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(wc.wr_id, OP_WRITE);
	ck_assert_uint_eq(buf[4096], 0);
	ck_assert_uint_eq(dct_violations(dct), RETRY + 1);
	ck_assert_int_eq(ibv_destroy_qp(dci), 0);
	ck_assert_int_eq(ibv_destroy_qp(dct), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dp_dc");
	TCase *tc = tcase_create("dc");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, dc_wqe_layout);
	tcase_add_test(tc, dc_send_write_read);
	tcase_add_test(tc, dc_connections);
	tcase_add_test(tc, dc_wrong_key);
	tcase_add_test(tc, dc_wrong_key_opens_nothing);
	suite_add_tcase(s, tc);
	return vt_run(s);
}
