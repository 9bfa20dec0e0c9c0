/* SPDX-License-Identifier: MIT */
/*
 * Inside the core (the internal library): what no public entry reaches.
 * CQE parsing by ibv_poll_cq and the ibv_cq_ex functions over CQEs
 * written into the ring as the device writes them (owner parity per pass,
 * queues found by user index), the doorbell record, arming (record and
 * UAR doorbell), events the provider posts to async_fd itself, the AH's
 * address vector, and mlx5dv_cq as mlx5dv_init_obj would give it.
 * (Completion and affiliated events come from the device: test_verbs_events.)
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "shell/abi_export.h"
#include "provider/verbs/ah.h"
#include "provider/verbs/async_event.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/verbs_ctx.h"
#include "ut_core.h"

MLX5EMU_ABI(ibv_create_cq);
MLX5EMU_ABI(ibv_destroy_cq);
MLX5EMU_ABI(ibv_ack_cq_events);
MLX5EMU_ABI(ibv_alloc_pd);
MLX5EMU_ABI(ibv_dealloc_pd);
MLX5EMU_ABI(ibv_create_ah);
MLX5EMU_ABI(ibv_destroy_ah);
MLX5EMU_ABI(ibv_query_gid);

static struct ibv_context *ctx;
static struct prov_context *pctx;

static void setup(void)
{
	ctx = ut_core_open();
	pctx = to_prov_context(ctx);
}

static void teardown(void)
{
	ut_core_close(ctx);
}

/*
 * A fake queue: send WQE n completes wr_id 0x1000 + n, receives complete
 * 0x2000, 0x2001, ... in order; an SRQ's WQE n completes 0x3000 + n.
 */
struct fake_q {
	struct prov_cq_rsc rsc;
	uint32_t uidx;
	uint64_t next_recv;
	uint16_t last_sq;
	int sq_calls, rq_calls;
};

static uint64_t fake_sq(struct prov_cq_rsc *rsc, uint16_t wqe_counter,
			enum ibv_wc_opcode *opcode)
{
	struct fake_q *q = (struct fake_q *)rsc;

	q->sq_calls++;
	q->last_sq = wqe_counter;
	*opcode = IBV_WC_DRIVER1;	/* for NOP/UMR */
	return 0x1000 + wqe_counter;
}

static uint64_t fake_rq(struct prov_cq_rsc *rsc, uint16_t wqe_counter)
{
	struct fake_q *q = (struct fake_q *)rsc;

	q->rq_calls++;
	if (rsc->type == PROV_RSC_SRQ)
		return 0x3000 + wqe_counter;
	return 0x2000 + q->next_recv++;
}

static void fake_store(struct fake_q *q, enum prov_cq_rsc_type type)
{
	memset(q, 0, sizeof(*q));
	q->rsc.type = type;
	q->rsc.sq_complete = fake_sq;
	q->rsc.rq_complete = fake_rq;
	ck_assert_int_eq(prov_rsc_store(pctx, &q->rsc, &q->uidx), 0);
	ck_assert_ptr_eq(prov_rsc_find(pctx, q->uidx), &q->rsc);
}

/* The CQE64 of ring entry @i (the second half of a 128-byte CQE). */
static struct mlx5_cqe64 *ring_cqe(struct prov_cq *cq, uint32_t i)
{
	return (struct mlx5_cqe64 *)((char *)cq->buf.buf +
				     (size_t)(i % cq->ncqe) * cq->cqe_sz +
				     (cq->cqe_sz == 128 ? 64 : 0));
}

/* Writes CQE number @pi as the device does: fields, then op_own. */
static struct mlx5_cqe64 *put_cqe(struct prov_cq *cq, uint32_t pi, uint8_t opcode,
				  uint32_t uidx, uint32_t qpn, uint8_t wqe_op,
				  uint16_t wqe_counter)
{
	struct mlx5_cqe64 *cqe = ring_cqe(cq, pi);
	uint8_t owner = (pi / cq->ncqe) & 1;

	memset(cqe, 0, sizeof(*cqe));
	cqe->srqn_uidx = htobe32(uidx);
	cqe->sop_drop_qpn = htobe32((uint32_t)wqe_op << 24 | qpn);
	cqe->wqe_counter = htobe16(wqe_counter);
	cqe->op_own = (uint8_t)(opcode << 4 | owner);
	return cqe;
}

static struct prov_cq *new_cq(int cqe)
{
	struct ibv_cq *ibcq = mlx5emu_abi_ibv_create_cq(ctx, cqe, NULL, NULL, 0);

	ck_assert_msg(ibcq, "create_cq: %s", strerror(errno));
	return to_prov_cq(ibcq);
}

START_TEST(test_ring_init)
{
	struct prov_cq *cq = new_cq(6);
	struct mlx5dv_cq dv;

	ck_assert_uint_eq(cq->ncqe, 8);
	ck_assert_uint_eq(cq->cqe_sz, 64);
	ck_assert_uint_eq((uintptr_t)cq->buf.buf % 4096, 0);
	for (uint32_t i = 0; i < cq->ncqe; i++)
		ck_assert_uint_eq(ring_cqe(cq, i)->op_own, MLX5_CQE_INVALID << 4);
	ck_assert_uint_eq(cq->dbrec[0], 0);
	ck_assert_uint_eq(cq->dbrec[1], 0);
	ck_assert_int_eq(prov_cq_dv(ibv_cq_ex_to_cq(&cq->ex), &dv), 0);
	ck_assert_ptr_eq(dv.buf, cq->buf.buf);
	ck_assert_ptr_eq(dv.dbrec, cq->dbrec);
	ck_assert_uint_eq(dv.cqe_cnt, 8);
	ck_assert_uint_eq(dv.cqe_size, 64);
	ck_assert_uint_eq(dv.cqn, cq->cqn);
	ck_assert_ptr_nonnull(dv.cq_uar);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibv_cq_ex_to_cq(&cq->ex)), 0);
}
END_TEST

START_TEST(test_poll_req_and_resp)
{
	struct prov_cq *cq = new_cq(3);	/* 4 entries */
	struct ibv_cq *ibcq = ibv_cq_ex_to_cq(&cq->ex);
	struct mlx5_cqe64 *cqe;
	struct ibv_wc wc[8];
	struct fake_q q;

	fake_store(&q, PROV_RSC_QP);
	/* Nothing yet: the ring's entries are INVALID. */
	ck_assert_int_eq(ibv_poll_cq(ibcq, 8, wc), 0);

	put_cqe(cq, 0, MLX5_CQE_REQ, q.uidx, 0x42, MLX5_OPCODE_SEND, 5);
	cqe = put_cqe(cq, 1, MLX5_CQE_REQ, q.uidx, 0x42, MLX5_OPCODE_RDMA_READ, 6);
	cqe->byte_cnt = htobe32(777);
	cqe = put_cqe(cq, 2, MLX5_CQE_RESP_SEND_IMM, q.uidx, 0x42, 0, 0);
	cqe->byte_cnt = htobe32(1024);
	cqe->imm_inval_pkey = htobe32(0x03020100);
	cqe->flags_rqpn = htobe32(2u << 28 | 5u << 24 | 0x777);
	cqe->slid = htobe16(9);
	ck_assert_int_eq(ibv_poll_cq(ibcq, 8, wc), 3);
	ck_assert_uint_eq(wc[0].wr_id, 0x1005);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc[0].opcode, IBV_WC_SEND);
	ck_assert_uint_eq(wc[0].qp_num, 0x42);
	ck_assert_uint_eq(wc[0].wc_flags, 0);
	ck_assert_uint_eq(wc[1].wr_id, 0x1006);
	ck_assert_int_eq(wc[1].opcode, IBV_WC_RDMA_READ);
	ck_assert_uint_eq(wc[1].byte_len, 777);
	ck_assert_uint_eq(wc[2].wr_id, 0x2000);
	ck_assert_int_eq(wc[2].opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc[2].byte_len, 1024);
	ck_assert_uint_eq(wc[2].wc_flags, IBV_WC_WITH_IMM | IBV_WC_GRH);
	ck_assert_uint_eq(be32toh(wc[2].imm_data), 0x03020100);
	ck_assert_uint_eq(wc[2].src_qp, 0x777);
	ck_assert_uint_eq(wc[2].sl, 5);
	ck_assert_uint_eq(wc[2].slid, 9);
	ck_assert_uint_eq(wc[2].pkey_index, 0x0100);
	/* The consumer index reached the doorbell record. */
	ck_assert_uint_eq(be32toh(cq->dbrec[PROV_CQ_SET_CI]), 3);
	ck_assert_int_eq(ibv_poll_cq(ibcq, 8, wc), 0);

	/* Across the wrap: entry 3 (pass 0), entries 0..2 again (pass 1). */
	put_cqe(cq, 3, MLX5_CQE_REQ, q.uidx, 0x42, MLX5_OPCODE_RDMA_WRITE_IMM, 7);
	put_cqe(cq, 4, MLX5_CQE_REQ, q.uidx, 0x42, MLX5_OPCODE_ATOMIC_CS, 8);
	ck_assert_int_eq(ibv_poll_cq(ibcq, 1, wc), 1);
	ck_assert_int_eq(wc[0].opcode, IBV_WC_RDMA_WRITE);
	ck_assert_uint_eq(wc[0].wc_flags, IBV_WC_WITH_IMM);
	ck_assert_int_eq(ibv_poll_cq(ibcq, 8, wc), 1);
	ck_assert_int_eq(wc[0].opcode, IBV_WC_COMP_SWAP);
	ck_assert_uint_eq(wc[0].byte_len, 8);
	ck_assert_uint_eq(be32toh(cq->dbrec[PROV_CQ_SET_CI]), 5);
	/* An entry left from pass 0 (owner 0) is not new in pass 1. */
	ck_assert_int_eq(ibv_poll_cq(ibcq, 8, wc), 0);

	prov_rsc_clear(pctx, q.uidx);
	ck_assert_ptr_null(prov_rsc_find(pctx, q.uidx));
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibcq), 0);
}
END_TEST

/* libmlx5's get_csum_ok(): a raw packet QP whose port does checksum
 * offload (rx_csum_valid) reports IBV_WC_IP_CSUM_OK for IPv4 frames with
 * both checksum bits set, through ibv_poll_cq and read_wc_flags alike;
 * other queues never do. */
START_TEST(test_poll_csum_ok)
{
	struct prov_cq *cq = new_cq(7);
	struct ibv_cq *ibcq = ibv_cq_ex_to_cq(&cq->ex);
	static const struct {
		uint8_t ext, l3;
		bool ok;
	} c[] = {
		{ MLX5_CQE_L3_OK | MLX5_CQE_L4_OK, MLX5_CQE_L3_HDR_TYPE_IPV4, true },
		{ MLX5_CQE_L3_OK, MLX5_CQE_L3_HDR_TYPE_IPV4, false },
		{ MLX5_CQE_L4_OK, MLX5_CQE_L3_HDR_TYPE_IPV4, false },
		{ MLX5_CQE_L3_OK | MLX5_CQE_L4_OK, MLX5_CQE_L3_HDR_TYPE_IPV6, false },
	};
	struct mlx5_cqe64 *cqe;
	struct ibv_wc wc;
	struct fake_q q, plain;
	uint32_t pi = 0;

	fake_store(&q, PROV_RSC_QP);
	q.rsc.rx_csum_valid = true;
	fake_store(&plain, PROV_RSC_QP);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		cqe = put_cqe(cq, pi++, MLX5_CQE_RESP_SEND, q.uidx, 0x42, 0, 0);
		cqe->hds_ip_ext = c[i].ext;
		cqe->l4_hdr_type_etc = (uint8_t)(c[i].l3 << 2);
		ck_assert_int_eq(ibv_poll_cq(ibcq, 1, &wc), 1);
		ck_assert_uint_eq(wc.wc_flags, c[i].ok ? IBV_WC_IP_CSUM_OK : 0);
	}
	/* A queue without the offload ignores the bits. */
	cqe = put_cqe(cq, pi++, MLX5_CQE_RESP_SEND, plain.uidx, 0x43, 0, 0);
	cqe->hds_ip_ext = MLX5_CQE_L3_OK | MLX5_CQE_L4_OK;
	cqe->l4_hdr_type_etc = MLX5_CQE_L3_HDR_TYPE_IPV4 << 2;
	ck_assert_int_eq(ibv_poll_cq(ibcq, 1, &wc), 1);
	ck_assert_uint_eq(wc.wc_flags, 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibcq), 0);
	/* The extended CQ's reader, for the CQE it stands on. */
	{
		struct ibv_cq_init_attr_ex attr = {
			.cqe = 7, .wc_flags = IBV_WC_STANDARD_FLAGS,
		};
		struct ibv_poll_cq_attr pa = { 0 };

		cq = (struct prov_cq *)pctx->vctx.create_cq_ex(ctx, &attr);
		ck_assert_ptr_nonnull(cq);
		ibcq = ibv_cq_ex_to_cq(&cq->ex);
		pi = 0;
		cqe = put_cqe(cq, pi++, MLX5_CQE_RESP_SEND, q.uidx, 0x42, 0, 0);
		cqe->hds_ip_ext = MLX5_CQE_L3_OK | MLX5_CQE_L4_OK;
		cqe->l4_hdr_type_etc = MLX5_CQE_L3_HDR_TYPE_IPV4 << 2;
		cqe = put_cqe(cq, pi++, MLX5_CQE_RESP_SEND, plain.uidx, 0x43, 0, 0);
		cqe->hds_ip_ext = MLX5_CQE_L3_OK | MLX5_CQE_L4_OK;
		cqe->l4_hdr_type_etc = MLX5_CQE_L3_HDR_TYPE_IPV4 << 2;
		ck_assert_int_eq(ibv_start_poll(&cq->ex, &pa), 0);
		ck_assert_uint_eq(ibv_wc_read_wc_flags(&cq->ex), IBV_WC_IP_CSUM_OK);
		ck_assert_int_eq(ibv_next_poll(&cq->ex), 0);
		ck_assert_uint_eq(ibv_wc_read_wc_flags(&cq->ex), 0);
		ibv_end_poll(&cq->ex);
	}
	prov_rsc_clear(pctx, q.uidx);
	prov_rsc_clear(pctx, plain.uidx);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibcq), 0);
}
END_TEST

START_TEST(test_poll_opcodes)
{
	static const struct {
		uint8_t cqe_op, wqe_op;
		enum ibv_wc_opcode op;
		unsigned int flags;
	} t[] = {
		{ MLX5_CQE_REQ, MLX5_OPCODE_RDMA_WRITE, IBV_WC_RDMA_WRITE, 0 },
		{ MLX5_CQE_REQ, MLX5_OPCODE_SEND_IMM, IBV_WC_SEND, IBV_WC_WITH_IMM },
		{ MLX5_CQE_REQ, MLX5_OPCODE_SEND_INVAL, IBV_WC_SEND, 0 },
		{ MLX5_CQE_REQ, MLX5_OPCODE_ATOMIC_FA, IBV_WC_FETCH_ADD, 0 },
		{ MLX5_CQE_REQ, MLX5_OPCODE_TSO, IBV_WC_TSO, 0 },
		{ MLX5_CQE_REQ, MLX5_OPCODE_NOP, IBV_WC_DRIVER1, 0 },
		{ MLX5_CQE_RESP_WR_IMM, 0, IBV_WC_RECV_RDMA_WITH_IMM, IBV_WC_WITH_IMM },
		{ MLX5_CQE_RESP_SEND, 0, IBV_WC_RECV, 0 },
		{ MLX5_CQE_RESP_SEND_INV, 0, IBV_WC_RECV, IBV_WC_WITH_INV },
	};
	struct prov_cq *cq = new_cq(31);
	struct ibv_cq *ibcq = ibv_cq_ex_to_cq(&cq->ex);
	struct ibv_wc wc;
	struct fake_q q;

	fake_store(&q, PROV_RSC_QP);
	for (uint32_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct mlx5_cqe64 *cqe = put_cqe(cq, i, t[i].cqe_op, q.uidx, 1,
						 t[i].wqe_op, (uint16_t)i);

		cqe->imm_inval_pkey = htobe32(0xabcd0000);
		ck_assert_int_eq(ibv_poll_cq(ibcq, 1, &wc), 1);
		ck_assert_msg(wc.opcode == t[i].op, "case %u: opcode %d", i, wc.opcode);
		ck_assert_msg(wc.wc_flags == t[i].flags, "case %u: flags %#x", i,
			      wc.wc_flags);
		if (t[i].cqe_op == MLX5_CQE_RESP_SEND_INV)
			ck_assert_uint_eq(wc.invalidated_rkey, 0xabcd0000);
	}
	prov_rsc_clear(pctx, q.uidx);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibcq), 0);
}
END_TEST

START_TEST(test_poll_errors_and_srq)
{
	struct prov_cq *cq = new_cq(15);
	struct ibv_cq *ibcq = ibv_cq_ex_to_cq(&cq->ex);
	struct mlx5_err_cqe *ecqe;
	struct fake_q q, srq;
	struct ibv_wc wc[4];

	fake_store(&q, PROV_RSC_QP);
	fake_store(&srq, PROV_RSC_SRQ);
	ecqe = (struct mlx5_err_cqe *)put_cqe(cq, 0, MLX5_CQE_REQ_ERR, q.uidx, 3,
					      MLX5_OPCODE_RDMA_WRITE, 11);
	ecqe->syndrome = MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR;
	ecqe->vendor_err_synd = 0x88;
	ecqe = (struct mlx5_err_cqe *)put_cqe(cq, 1, MLX5_CQE_RESP_ERR, q.uidx, 3, 0, 0);
	ecqe->syndrome = MLX5_CQE_SYNDROME_WR_FLUSH_ERR;
	ck_assert_int_eq(ibv_poll_cq(ibcq, 4, wc), 2);
	ck_assert_int_eq(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	ck_assert_uint_eq(wc[0].vendor_err, 0x88);
	ck_assert_uint_eq(wc[0].wr_id, 0x100b);
	ck_assert_int_eq(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(wc[1].wr_id, 0x2000);
	/* A QP whose receives go to an SRQ: the SRQ's WQE at wqe_counter,
	 * for good and flushed receives alike. */
	q.rsc.srq = &srq.rsc;
	put_cqe(cq, 2, MLX5_CQE_RESP_SEND, q.uidx, 3, 0, 9);
	ecqe = (struct mlx5_err_cqe *)put_cqe(cq, 3, MLX5_CQE_RESP_ERR, q.uidx, 3, 0, 0);
	ecqe->syndrome = MLX5_CQE_SYNDROME_WR_FLUSH_ERR;
	ecqe->wqe_counter = htobe16(4);
	ck_assert_int_eq(ibv_poll_cq(ibcq, 4, wc), 2);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc[0].wr_id, 0x3009);
	ck_assert_int_eq(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(wc[1].wr_id, 0x3004);
	q.rsc.srq = NULL;
	/* A CQE for a user index nothing holds: libmlx5's CQ_POLL_ERR. */
	put_cqe(cq, 4, MLX5_CQE_REQ, 0xabcdef, 3, MLX5_OPCODE_SEND, 0);
	ck_assert_int_eq(ibv_poll_cq(ibcq, 4, wc), -2);
	/* Other syndromes map as mlx5_handle_error_cqe does. */
	ecqe = (struct mlx5_err_cqe *)put_cqe(cq, 5, MLX5_CQE_REQ_ERR, q.uidx, 3, 0, 1);
	ecqe->syndrome = 0x77;
	ck_assert_int_eq(ibv_poll_cq(ibcq, 4, wc), 1);
	ck_assert_int_eq(wc[0].status, IBV_WC_GENERAL_ERR);
	prov_rsc_clear(pctx, q.uidx);
	prov_rsc_clear(pctx, srq.uidx);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibcq), 0);
}
END_TEST

START_TEST(test_poll_128b_cqes)
{
	struct prov_cq *cq;
	struct fake_q q;
	struct ibv_wc wc;

	setenv("MLX5_CQE_SIZE", "128", 1);
	cq = new_cq(3);
	unsetenv("MLX5_CQE_SIZE");
	ck_assert_uint_eq(cq->cqe_sz, 128);
	for (uint32_t i = 0; i < cq->ncqe; i++)
		ck_assert_uint_eq(ring_cqe(cq, i)->op_own, MLX5_CQE_INVALID << 4);
	fake_store(&q, PROV_RSC_QP);
	put_cqe(cq, 0, MLX5_CQE_REQ, q.uidx, 1, MLX5_OPCODE_SEND, 2);
	ck_assert_int_eq(ibv_poll_cq(ibv_cq_ex_to_cq(&cq->ex), 1, &wc), 1);
	ck_assert_uint_eq(wc.wr_id, 0x1002);
	prov_rsc_clear(pctx, q.uidx);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibv_cq_ex_to_cq(&cq->ex)), 0);
}
END_TEST

/* The general capability page this context reads, to offer what the
 * device does not (the provider derives everything from it). */
static void *gen_caps(void)
{
	return pctx->caps->cur[MLX5_CAP_GENERAL];
}

/* Offers completion timestamps, VLAN stripping and flow steering. */
static void offer_cq_fields(void)
{
	PRM_SET(cmd_hca_cap, gen_caps(), device_frequency_khz, 1000);
	PRM_SET(cmd_hca_cap, gen_caps(), nic_flow_table, 1);
	PRM_SET(per_protocol_networking_offload_caps,
		pctx->caps->cur[MLX5_CAP_ETHERNET_OFFLOADS], vlan_cap, 1);
	if (!pctx->caps->cur[MLX5_CAP_FLOW_TABLE])
		pctx->caps->cur[MLX5_CAP_FLOW_TABLE] = calloc(1, PROV_CAP_PAGE_BYTES);
	ck_assert_ptr_nonnull(pctx->caps->cur[MLX5_CAP_FLOW_TABLE]);
}

START_TEST(test_cq_ex_poll)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 7,
		.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_CVLAN | IBV_WC_EX_WITH_FLOW_TAG,
	};
	struct ibv_poll_cq_attr pattr = { 0 };
	struct ibv_cq_ex *ex;
	struct prov_cq *cq;
	struct mlx5_cqe64 *cqe;
	struct fake_q q;

	/* Not offered by the device (no VLAN stripping): refused. */
	PRM_SET(per_protocol_networking_offload_caps,
		pctx->caps->cur[MLX5_CAP_ETHERNET_OFFLOADS], vlan_cap, 0);
	errno = 0;
	ck_assert_ptr_null(pctx->vctx.create_cq_ex(ctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	offer_cq_fields();
	ex = pctx->vctx.create_cq_ex(ctx, &attr);
	cq = (struct prov_cq *)ex;
	ck_assert_ptr_nonnull(ex);
	ck_assert_ptr_nonnull(ex->read_completion_ts);
	ck_assert_ptr_nonnull(ex->read_cvlan);
	ck_assert_ptr_nonnull(ex->read_flow_tag);
	fake_store(&q, PROV_RSC_QP);
	ck_assert_int_eq(ibv_start_poll(ex, &pattr), ENOENT);
	put_cqe(cq, 0, MLX5_CQE_REQ, q.uidx, 0x55, MLX5_OPCODE_SEND_IMM, 3);
	cqe = put_cqe(cq, 1, MLX5_CQE_RESP_SEND_IMM, q.uidx, 0x55, 0, 0);
	cqe->byte_cnt = htobe32(64);
	cqe->imm_inval_pkey = htobe32(0x11223344);
	cqe->flags_rqpn = htobe32(1u << 28 | 0x99);
	cqe->timestamp = htobe64(123456789);
	cqe->vlan_info = htobe16(0x0123);
	ck_assert_int_eq(ibv_start_poll(ex, &pattr), 0);
	ck_assert_uint_eq(ex->wr_id, 0x1003);
	ck_assert_int_eq(ex->status, IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_wc_read_opcode(ex), IBV_WC_SEND);
	/* libmlx5's read_wc_flags tells immediate data of receives only. */
	ck_assert_uint_eq(ibv_wc_read_wc_flags(ex), 0);
	ck_assert_uint_eq(ibv_wc_read_qp_num(ex), 0x55);
	ck_assert_int_eq(ibv_next_poll(ex), 0);
	ck_assert_uint_eq(ex->wr_id, 0x2000);
	ck_assert_int_eq(ibv_wc_read_opcode(ex), IBV_WC_RECV);
	ck_assert_uint_eq(ibv_wc_read_byte_len(ex), 64);
	ck_assert_uint_eq(be32toh(ibv_wc_read_imm_data(ex)), 0x11223344);
	ck_assert_uint_eq(ibv_wc_read_wc_flags(ex), IBV_WC_WITH_IMM | IBV_WC_GRH);
	ck_assert_uint_eq(ibv_wc_read_src_qp(ex), 0x99);
	ck_assert_uint_eq(ibv_wc_read_completion_ts(ex), 123456789);
	ck_assert_uint_eq(ibv_wc_read_cvlan(ex), 0x0123);
	ck_assert_int_eq(ibv_next_poll(ex), ENOENT);
	ibv_end_poll(ex);
	ck_assert_uint_eq(be32toh(cq->dbrec[PROV_CQ_SET_CI]), 2);
	/* The lock is free again. */
	ck_assert_int_eq(ibv_start_poll(ex, &pattr), ENOENT);
	prov_rsc_clear(pctx, q.uidx);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibv_cq_ex_to_cq(ex)), 0);
}
END_TEST

START_TEST(test_arm)
{
	struct prov_cq *cq = new_cq(3);
	struct ibv_cq *ibcq = ibv_cq_ex_to_cq(&cq->ex);
	struct prov_verbs_ctx *vc = prov_verbs_ctx(pctx);
	volatile uint64_t *db = (volatile uint64_t *)((char *)vc->cq_uar +
						      MLX5_CQ_DOORBELL);
	struct fake_q q;
	struct ibv_wc wc;

	ck_assert_ptr_nonnull(vc->cq_uar);
	ck_assert_int_eq(ibv_req_notify_cq(ibcq, 0), 0);
	ck_assert_uint_eq(be32toh(cq->dbrec[PROV_CQ_ARM_DB]), 0);
	ck_assert_uint_eq(be64toh(*db), cq->cqn);
	/* Solicited only, after a completion was consumed. */
	fake_store(&q, PROV_RSC_QP);
	put_cqe(cq, 0, MLX5_CQE_REQ, q.uidx, 1, MLX5_OPCODE_SEND, 0);
	ck_assert_int_eq(ibv_poll_cq(ibcq, 1, &wc), 1);
	ck_assert_int_eq(ibv_req_notify_cq(ibcq, 1), 0);
	ck_assert_uint_eq(be32toh(cq->dbrec[PROV_CQ_ARM_DB]), 1u << 24 | 1);
	ck_assert_uint_eq(be64toh(*db), (uint64_t)(1u << 24 | 1) << 32 | cq->cqn);
	/* After an event the sequence number moves on. */
	cq->arm_sn++;
	ck_assert_int_eq(ibv_req_notify_cq(ibcq, 0), 0);
	ck_assert_uint_eq(be32toh(cq->dbrec[PROV_CQ_ARM_DB]), 1u << 28 | 1);
	prov_rsc_clear(pctx, q.uidx);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibcq), 0);
}
END_TEST

START_TEST(test_cq_use_count)
{
	struct ibv_cq *cq = mlx5emu_abi_ibv_create_cq(ctx, 4, NULL, NULL, 0);

	ck_assert_int_eq(prov_cq_use(cq), 0);
	errno = 0;
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(cq), EBUSY);
	ck_assert_int_eq(errno, EBUSY);
	prov_cq_unuse(cq);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(cq), 0);
}
END_TEST

START_TEST(test_ah_av)
{
	struct ibv_pd *pd = mlx5emu_abi_ibv_alloc_pd(ctx);
	struct ibv_ah_attr attr = {
		.is_global = 1, .port_num = 1, .sl = 5,
		.static_rate = IBV_RATE_10_GBPS,
		.grh = { .sgid_index = 1, .hop_limit = 63, .traffic_class = 0x68,
			 .flow_label = 0x54321 },
	};
	struct mlx5_wqe_av *av;
	uint8_t mac[6];
	uint16_t vlan;
	struct ibv_ah *ah;

	ck_assert_int_eq(mlx5emu_abi_ibv_query_gid(ctx, 1, 3, &attr.grh.dgid), 0);
	ah = mlx5emu_abi_ibv_create_ah(pd, &attr);
	ck_assert_msg(ah, "create_ah: %s", strerror(errno));
	av = prov_ah_av(ah);
	ck_assert_int_eq(pctx->be->gid_l2_addr(pctx->bectx, 1, 1,
					       attr.grh.dgid.raw, mac, &vlan), 0);
	ck_assert_mem_eq(av->rmac, mac, 6);
	ck_assert_mem_eq(av->rgid, attr.grh.dgid.raw, 16);
	ck_assert_uint_eq(av->hop_limit, 63);
	ck_assert_uint_eq(av->tclass, 0x68);
	/* No GRH bit on RoCE; sgid index and flow label. */
	ck_assert_uint_eq(be32toh(av->grh_gid_fl), 1u << 20 | 0x54321);
	/* ib_to_mlx5_rate_table[IBV_RATE_10_GBPS] = 8; sl in bits 3:1. */
	ck_assert_uint_eq(av->stat_rate_sl, 8 << 4 | 5 << 1);
	/* RoCE v2: the UDP source port from the flow label. */
	ck_assert_uint_eq(be16toh(av->rlid), ibv_flow_label_to_udp_sport(0x54321));
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_ah(ah), 0);

	/* Without a flow label: a random port in [0xC000, 0xFFFF]. */
	attr.grh.flow_label = 0;
	ah = mlx5emu_abi_ibv_create_ah(pd, &attr);
	ck_assert_ptr_nonnull(ah);
	ck_assert_uint_ge(be16toh(prov_ah_av(ah)->rlid), 0xc000);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_ah(ah), 0);

	/* RoCE v1 source: no UDP port. */
	attr.grh.sgid_index = 0;
	attr.grh.flow_label = 0x54321;
	ah = mlx5emu_abi_ibv_create_ah(pd, &attr);
	ck_assert_ptr_nonnull(ah);
	ck_assert_uint_eq(prov_ah_av(ah)->rlid, 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_dealloc_pd(pd), 0);
}
END_TEST

START_TEST(test_uidx_table)
{
	struct prov_cq_rsc r[3];
	uint32_t idx[3];

	memset(r, 0, sizeof(r));
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(prov_rsc_store(pctx, &r[i], &idx[i]), 0);
	ck_assert_uint_ne(idx[0], idx[1]);
	ck_assert_uint_ne(idx[1], idx[2]);
	prov_rsc_clear(pctx, idx[1]);
	ck_assert_ptr_null(prov_rsc_find(pctx, idx[1]));
	ck_assert_ptr_eq(prov_rsc_find(pctx, idx[2]), &r[2]);
	ck_assert_ptr_null(prov_rsc_find(pctx, 0x1000000));
	/* A freed index is reused. */
	ck_assert_int_eq(prov_rsc_store(pctx, &r[1], &idx[1]), 0);
	ck_assert_ptr_eq(prov_rsc_find(pctx, idx[1]), &r[1]);
	for (int i = 0; i < 3; i++)
		prov_rsc_clear(pctx, idx[i]);
}
END_TEST

MLX5EMU_ABI(ibv_get_async_event);
MLX5EMU_ABI(ibv_ack_async_event);

/* Posted async events come out of async_fd with their element, in order,
 * and acks are counted on the object. */
START_TEST(test_async_events)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct prov_cq *cq = new_cq(16);
	struct ibv_cq *ibcq = ibv_cq_ex_to_cq(&cq->ex);
	struct ibv_async_event ev;

	ck_assert_int_eq(poll(&pfd, 1, 0), 0);
	ck_assert_int_eq(prov_async_event_post(pctx, IBV_EVENT_PORT_ACTIVE, 1), 0);
	ck_assert_int_eq(prov_async_event_post(pctx, IBV_EVENT_CQ_ERR,
					       (uintptr_t)ibcq), 0);
	ck_assert_int_eq(poll(&pfd, 1, 0), 1);
	ck_assert_int_eq(mlx5emu_abi_ibv_get_async_event(ctx, &ev), 0);
	ck_assert_int_eq(ev.event_type, IBV_EVENT_PORT_ACTIVE);
	ck_assert_int_eq(ev.element.port_num, 1);
	mlx5emu_abi_ibv_ack_async_event(&ev);
	ck_assert_int_eq(mlx5emu_abi_ibv_get_async_event(ctx, &ev), 0);
	ck_assert_int_eq(ev.event_type, IBV_EVENT_CQ_ERR);
	ck_assert_ptr_eq(ev.element.cq, ibcq);
	ck_assert_uint_eq(ibcq->async_events_completed, 0);
	mlx5emu_abi_ibv_ack_async_event(&ev);
	ck_assert_uint_eq(ibcq->async_events_completed, 1);
	ck_assert_int_eq(poll(&pfd, 1, 0), 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibcq), 0);
}
END_TEST

static Suite *internal_suite(void)
{
	Suite *s = suite_create("verbs_internal");
	TCase *poll = tcase_create("poll");
	TCase *ev = tcase_create("events");
	TCase *ah = tcase_create("ah");

	tcase_add_checked_fixture(poll, setup, teardown);
	tcase_add_test(poll, test_ring_init);
	tcase_add_test(poll, test_poll_req_and_resp);
	tcase_add_test(poll, test_poll_opcodes);
	tcase_add_test(poll, test_poll_csum_ok);
	tcase_add_test(poll, test_poll_errors_and_srq);
	tcase_add_test(poll, test_poll_128b_cqes);
	tcase_add_test(poll, test_cq_ex_poll);
	tcase_add_test(poll, test_arm);
	tcase_add_test(poll, test_cq_use_count);
	tcase_add_test(poll, test_uidx_table);
	suite_add_tcase(s, poll);

	tcase_add_checked_fixture(ev, setup, teardown);
	tcase_add_test(ev, test_async_events);
	suite_add_tcase(s, ev);

	tcase_add_checked_fixture(ah, setup, teardown);
	tcase_add_test(ah, test_ah_av);
	suite_add_tcase(s, ah);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(internal_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
