/* SPDX-License-Identifier: MIT */
/*
 * DEVX-level: RC, UD and DC queues created through PRM commands by the
 * backend ops (mlx5be_emu_ops: the emulated kernel's DEVX rules in front of
 * the firmware), as a DEVX application (pyverbs' mlx5 DevX tests, DPDK,
 * UCX) builds them -- umem buffers and doorbells whose *_umem_valid bits
 * the kernel sets -- and walked to RTS with obj_modify, checked with
 * obj_query.  Only backend.h and prm/ are used, as the provider would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <infiniband/mlx5dv.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "backend/backend.h"
#include "backend/backend_impl.h"

#define BE (&mlx5be_emu_ops)

/* Firmware syndromes by name (prm/syndromes.def). */
enum dx_synd {
#define FW_SYND(id, val, st, txt, src) DX_SYND_##id = (val),
#include "prm/syndromes.def"
#undef FW_SYND
};

struct mem {
	void *addr;
	struct mlx5be_umem *umem;
	uint32_t id;
};

static struct mlx5be_ctx *ctx;
static struct mlx5be_obj *pd_obj, *cq_obj;
static struct mlx5be_uar *uar;
static struct mlx5be_uar_info uar_info;
static struct mem cq_buf, cq_dbr;
static uint32_t pdn, cqn, gid_index;
static uint8_t gid[16];

static void mem_reg(struct mem *m, size_t size)
{
	size_t alloc = (size + 4095) & ~(size_t)4095;

	m->addr = aligned_alloc(4096, alloc);
	ck_assert_ptr_nonnull(m->addr);
	memset(m->addr, 0, alloc);
	m->umem = BE->umem_reg(ctx, m->addr, size, 1 /* local write */,
			       UINT64_MAX & ~(uint64_t)4095, &m->id);
	ck_assert_msg(m->umem, "umem_reg: %s", strerror(errno));
}

static void mem_dereg(struct mem *m)
{
	ck_assert_int_eq(BE->umem_dereg(m->umem), 0);
	free(m->addr);
}

static struct mlx5be_obj *create(void *in, size_t inlen, void *out,
				 size_t outlen, const char *what)
{
	struct mlx5be_obj *obj = BE->obj_create(ctx, in, inlen, out, outlen);

	ck_assert_msg(obj, "%s: %s (status 0x%x syndrome 0x%x)", what,
		      strerror(errno), PRM_GET(mbox_out, out, status),
		      PRM_GET(mbox_out, out, syndrome));
	return obj;
}

static void setup(void)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)] = {};
	struct mlx5be_gid_entry g;
	uint32_t eqn;
	int fd, ret;
	void *cqc;

	ret = BE->open(0, &ctx, &fd);
	ck_assert_msg(ret == 0, "open: %s", strerror(-ret));
	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	pd_obj = create(in, PRM_ST_SZ_BYTES(alloc_pd_in), out,
			PRM_ST_SZ_BYTES(alloc_pd_out), "ALLOC_PD");
	pdn = PRM_GET(alloc_pd_out, out, pd);
	uar = BE->uar_alloc(ctx, MLX5DV_UAR_ALLOC_TYPE_NC, &uar_info);
	ck_assert_ptr_nonnull(uar);
	ck_assert_int_eq(BE->query_eqn(ctx, 0, &eqn), 0);
	mem_reg(&cq_buf, 64 << 6);
	mem_reg(&cq_dbr, 8);
	memset(in, 0, sizeof(in));
	PRM_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	cqc = PRM_ADDR_OF(create_cq_in, in, cq_context);
	PRM_SET(cqc, cqc, log_cq_size, 6);
	PRM_SET(cqc, cqc, uar_page, uar_info.page_id);
	PRM_SET(cqc, cqc, c_eqn, eqn);
	PRM_SET(cqc, cqc, dbr_umem_id, cq_dbr.id);
	PRM_SET(create_cq_in, in, cq_umem_id, cq_buf.id);
	cq_obj = create(in, sizeof(in), out, sizeof(out), "CREATE_CQ");
	cqn = PRM_GET(create_cq_out, out, cqn);
	/* A RoCE v2 source GID of port 1. */
	for (gid_index = 0; gid_index < 4; gid_index++) {
		ck_assert_int_eq(BE->query_gid(ctx, 1, gid_index, &g), 0);
		if (g.gid_type == 1)
			break;
	}
	ck_assert_uint_lt(gid_index, 4);
	memcpy(gid, g.gid, 16);
}

static void teardown(void)
{
	ck_assert_int_eq(BE->obj_destroy(cq_obj), 0);
	mem_dereg(&cq_buf);
	mem_dereg(&cq_dbr);
	BE->uar_free(uar);
	ck_assert_int_eq(BE->obj_destroy(pd_obj), 0);
	BE->close(ctx);
}

/* ---- QPs ---- */

struct dqp {
	struct mlx5be_obj *obj;
	struct mem buf, dbr;
	uint32_t qpn;
};

static void qp_create(struct dqp *q, uint32_t st)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_qp_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(create_qp_out)] = {};
	void *qpc = PRM_ADDR_OF(create_qp_in, in, qpc);

	mem_reg(&q->buf, 8192);
	mem_reg(&q->dbr, 8);
	PRM_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	/* As pyverbs' mlx5 DevX QP: no *_umem_valid, the kernel sets them. */
	PRM_SET(qpc, qpc, st, st);
	PRM_SET(qpc, qpc, pd, pdn);
	PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	PRM_SET(qpc, qpc, ts_format, MLX5_TIMESTAMP_FORMAT_DEFAULT);
	PRM_SET(qpc, qpc, uar_page, uar_info.page_id);
	PRM_SET(qpc, qpc, log_sq_size, 6);
	PRM_SET(qpc, qpc, cqn_snd, cqn);
	if (st == MLX5_QPC_ST_DCI) {
		PRM_SET(qpc, qpc, rq_type, 3);	/* zero-length RQ */
	} else {
		PRM_SET(qpc, qpc, log_rq_size, 6);
		PRM_SET(qpc, qpc, log_rq_stride, 2);
		PRM_SET(qpc, qpc, cqn_rcv, cqn);
	}
	PRM_SET(qpc, qpc, dbr_umem_id, q->dbr.id);
	PRM_SET(create_qp_in, in, wq_umem_id, q->buf.id);
	q->obj = create(in, sizeof(in), out, sizeof(out), "CREATE_QP");
	q->qpn = PRM_GET(create_qp_out, out, qpn);
}

static void qp_destroy(struct dqp *q)
{
	ck_assert_int_eq(BE->obj_destroy(q->obj), 0);
	mem_dereg(&q->buf);
	mem_dereg(&q->dbr);
}

/* One transition through obj_modify; the return and the outbox. */
static int qp_modify(struct dqp *q, uint16_t op, uint32_t st, void *out)
{
	uint8_t in[PRM_ST_SZ_BYTES(rst2init_qp_in)] = {};
	void *qpc = PRM_ADDR_OF(rst2init_qp_in, in, qpc);
	bool ud = st == MLX5_QPC_ST_UD, dci = st == MLX5_QPC_ST_DCI;

	PRM_SET(rst2init_qp_in, in, opcode, op);
	PRM_SET(rst2init_qp_in, in, qpn, q->qpn);
	switch (op) {
	case MLX5_CMD_OP_RST2INIT_QP:
		PRM_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
		if (ud) {
			PRM_SET(qpc, qpc, q_key, 0x11111111);
		} else if (!dci) {
			PRM_SET(qpc, qpc, rre, 1);
			PRM_SET(qpc, qpc, rwe, 1);
		}
		break;
	case MLX5_CMD_OP_INIT2RTR_QP:
		PRM_SET(qpc, qpc, mtu, MLX5_QPC_MTU_1K_BYTES);
		PRM_SET(qpc, qpc, log_msg_max, 20);
		if (ud)
			break;
		PRM_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
		PRM_SET(qpc, qpc, primary_address_path.src_addr_index,
			gid_index);
		PRM_SET(qpc, qpc, primary_address_path.hop_limit, 64);
		PRM_SET(qpc, qpc, primary_address_path.udp_sport, 0xdcba);
		if (dci)
			break;
		/* Connected to itself through its own GID (loopback). */
		memcpy(PRM_ADDR_OF(qpc, qpc, primary_address_path.rgid_rip),
		       gid, 16);
		PRM_SET(qpc, qpc, remote_qpn, q->qpn);
		PRM_SET(qpc, qpc, next_rcv_psn, 0x123);
		PRM_SET(qpc, qpc, min_rnr_nak, 12);
		break;
	case MLX5_CMD_OP_RTR2RTS_QP:
		PRM_SET(qpc, qpc, next_send_psn, 0x123);
		PRM_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
		if (!ud) {
			PRM_SET(qpc, qpc, retry_count, 7);
			PRM_SET(qpc, qpc, rnr_retry, 7);
			PRM_SET(qpc, qpc, log_sra_max, 2);
			PRM_SET(qpc, qpc, primary_address_path.ack_timeout,
				14);
		}
		break;
	default:
		break;
	}
	memset(out, 0, PRM_ST_SZ_BYTES(rst2init_qp_out));
	return BE->obj_modify(q->obj, in, sizeof(in), out,
			      PRM_ST_SZ_BYTES(rst2init_qp_out));
}

static void qp_to_rts(struct dqp *q, uint32_t st)
{
	static const uint16_t ops[] = {
		MLX5_CMD_OP_RST2INIT_QP, MLX5_CMD_OP_INIT2RTR_QP,
		MLX5_CMD_OP_RTR2RTS_QP,
	};
	uint8_t out[PRM_ST_SZ_BYTES(rst2init_qp_out)];

	for (size_t i = 0; i < 3; i++) {
		int ret = qp_modify(q, ops[i], st, out);

		ck_assert_msg(ret == 0, "st %u op 0x%x: %d status 0x%x "
			      "syndrome 0x%x", st, ops[i], ret,
			      PRM_GET(mbox_out, out, status),
			      PRM_GET(mbox_out, out, syndrome));
	}
}

static uint32_t qp_state(struct dqp *q)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_qp_in)] = {};
	uint8_t out[PRM_BYTE_OFF(query_qp_out, pas)] = {};

	PRM_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	PRM_SET(query_qp_in, in, qpn, q->qpn);
	ck_assert_int_eq(BE->obj_query(q->obj, in, sizeof(in), out,
				       sizeof(out)), 0);
	return PRM_GET(query_qp_out, out, qpc.state);
}

START_TEST(devx_rc_to_rts)
{
	uint8_t out[PRM_ST_SZ_BYTES(rst2init_qp_out)];
	struct dqp q, other;

	qp_create(&q, MLX5_QPC_ST_RC);
	ck_assert_uint_eq(qp_state(&q), MLX5_QPC_STATE_RST);
	qp_to_rts(&q, MLX5_QPC_ST_RC);
	ck_assert_uint_eq(qp_state(&q), MLX5_QPC_STATE_RTS);
	/* An illegal transition: the firmware's answer, as DEVX gives it. */
	ck_assert_int_eq(qp_modify(&q, MLX5_CMD_OP_INIT2RTR_QP,
				   MLX5_QPC_ST_RC, out), -EREMOTEIO);
	ck_assert_uint_eq(PRM_GET(mbox_out, out, status),
			  MLX5_CMD_STAT_BAD_QP_STATE_ERR);
	ck_assert_uint_eq(PRM_GET(mbox_out, out, syndrome),
			  DX_SYND_QP_BAD_STATE_TRANSITION);
	/* Another QP's number through this handle: the kernel refuses. */
	qp_create(&other, MLX5_QPC_ST_RC);
	{
		uint32_t mine = q.qpn;

		q.qpn = other.qpn;
		ck_assert_int_eq(qp_modify(&q, MLX5_CMD_OP_2ERR_QP,
					   MLX5_QPC_ST_RC, out), -EINVAL);
		q.qpn = mine;
	}
	ck_assert_uint_eq(qp_state(&other), MLX5_QPC_STATE_RST);
	/* Its CQ is in use: the destroy fails while the QPs exist. */
	ck_assert_int_ne(BE->obj_destroy(cq_obj), 0);
	qp_destroy(&other);
	ck_assert_int_eq(qp_modify(&q, MLX5_CMD_OP_2RST_QP, MLX5_QPC_ST_RC,
				   out), 0);
	ck_assert_uint_eq(qp_state(&q), MLX5_QPC_STATE_RST);
	qp_destroy(&q);
}
END_TEST

START_TEST(devx_ud_to_rts)
{
	struct dqp q;

	qp_create(&q, MLX5_QPC_ST_UD);
	qp_to_rts(&q, MLX5_QPC_ST_UD);
	ck_assert_uint_eq(qp_state(&q), MLX5_QPC_STATE_RTS);
	qp_destroy(&q);
}
END_TEST

/* DC: a DCI walked to RTS, and a DCT on an RMP (UCX's DEVX SRQ). */
START_TEST(devx_dc)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_dct_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(query_dct_out)] = {};
	uint8_t rin[PRM_ST_SZ_BYTES(create_rmp_in)] = {};
	uint8_t rout[PRM_ST_SZ_BYTES(create_rmp_out)] = {};
	struct mlx5be_obj *rmp, *dct;
	struct mem rbuf, rdbr;
	uint32_t rmpn, dctn;
	struct dqp dci;
	void *wq, *c;

	qp_create(&dci, MLX5_QPC_ST_DCI);
	qp_to_rts(&dci, MLX5_QPC_ST_DCI);
	ck_assert_uint_eq(qp_state(&dci), MLX5_QPC_STATE_RTS);

	mem_reg(&rbuf, 64 << 6);
	mem_reg(&rdbr, 8);
	PRM_SET(create_rmp_in, rin, opcode, MLX5_CMD_OP_CREATE_RMP);
	PRM_SET(create_rmp_in, rin, ctx.state, MLX5_RMPC_STATE_RDY);
	wq = PRM_ADDR_OF(create_rmp_in, rin, ctx.wq);
	PRM_SET(wq, wq, log_wq_sz, 6);
	PRM_SET(wq, wq, log_wq_stride, 6);
	PRM_SET(wq, wq, pd, pdn);
	PRM_SET(wq, wq, dbr_umem_id, rdbr.id);
	PRM_SET(wq, wq, wq_umem_id, rbuf.id);
	rmp = create(rin, sizeof(rin), rout, sizeof(rout), "CREATE_RMP");
	rmpn = PRM_GET(create_rmp_out, rout, rmpn);

	PRM_SET(create_dct_in, in, opcode, MLX5_CMD_OP_CREATE_DCT);
	c = PRM_ADDR_OF(create_dct_in, in, dct_context_entry);
	PRM_SET(dctc, c, pd, pdn);
	PRM_SET(dctc, c, cqn, cqn);
	PRM_SET(dctc, c, srqn_xrqn, rmpn);
	PRM_SET(dctc, c, rre, 1);
	PRM_SET(dctc, c, rwe, 1);
	PRM_SET(dctc, c, port, 1);
	PRM_SET(dctc, c, mtu, MLX5_QPC_MTU_1K_BYTES);
	PRM_SET(dctc, c, my_addr_index, gid_index);
	PRM_SET(dctc, c, hop_limit, 64);
	PRM_SET64(dctc, c, dc_access_key, 0x1234);
	dct = create(in, sizeof(in), out, PRM_ST_SZ_BYTES(create_dct_out),
		     "CREATE_DCT");
	dctn = PRM_GET(create_dct_out, out, dctn);
	ck_assert_uint_ne(dctn, dci.qpn);

	memset(in, 0, sizeof(in));
	PRM_SET(query_dct_in, in, opcode, MLX5_CMD_OP_QUERY_DCT);
	PRM_SET(query_dct_in, in, dctn, dctn);
	ck_assert_int_eq(BE->obj_query(dct, in, PRM_ST_SZ_BYTES(query_dct_in),
				       out, sizeof(out)), 0);
	ck_assert_uint_eq(PRM_GET(query_dct_out, out, dct_context_entry.state),
			  MLX5_DCTC_STATE_ACTIVE);
	ck_assert_uint_eq(PRM_GET64(query_dct_out, out,
				    dct_context_entry.dc_access_key), 0x1234);

	ck_assert_int_eq(BE->obj_destroy(dct), 0);
	ck_assert_int_eq(BE->obj_destroy(rmp), 0);
	mem_dereg(&rbuf);
	mem_dereg(&rdbr);
	qp_destroy(&dci);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fw_qp_devx");
	TCase *tc = tcase_create("devx");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, devx_rc_to_rts);
	tcase_add_test(tc, devx_ud_to_rts);
	tcase_add_test(tc, devx_dc);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
