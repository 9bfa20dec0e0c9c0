/* SPDX-License-Identifier: MIT */
/*
 * Inside the core: the send side's behaviour no public entry reaches.
 *
 *   - the backend's progress op after every post that posted something
 *     (MLX5BE_PROGRESS_DOORBELL), never after one that posted nothing,
 *     and after a poll that found the CQ empty (MLX5BE_PROGRESS_POLL);
 *   - atomics when the device does none: EOPNOTSUPP on RC (libmlx5's
 *     check), posted as they are on UC (libmlx5 has none there), refused
 *     by the ibv_wr_* API at creation;
 *   - send with invalidate without the memory management extensions:
 *     refused by the ibv_wr_* API, posted by ibv_post_send as libmlx5
 *     does;
 *   - mlx5dv_qp_cancel_posted_send_wrs on a QP the device model drained
 *     (no command drains a send queue): the matching WQEs become NOPs,
 *     completed after SQD_RTS_QP with the opcode they had, the others
 *     executed; outside SQD it is -EINVAL;
 *   - MLX5_QP_SIGNATURE: the send WQE's signature and the receive WQE's
 *     signature segment, computed here byte by byte (the firmware takes no
 *     signed queues, so a stand-in clears wq_signature on its way).
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/sq.h"
#include "emu/firmware/fw.h"
#include "emu/firmware/fw_objs.h"
#include "emu/kernel/kern.h"
#include "dp_cqe.h"
#include "ut_core.h"
#include "ut_run.h"

MLX5EMU_ABI(ibv_create_cq);
MLX5EMU_ABI(ibv_destroy_cq);
MLX5EMU_ABI(ibv_alloc_pd);
MLX5EMU_ABI(ibv_dealloc_pd);
MLX5EMU_ABI(ibv_create_qp);
MLX5EMU_ABI(ibv_destroy_qp);
MLX5EMU_ABI(ibv_modify_qp);
MLX5EMU_ABI(ibv_create_srq);
MLX5EMU_ABI(ibv_destroy_srq);
MLX5EMU_ABI(ibv_query_gid);
MLX5EMU_ABI(ibv_reg_mr);
MLX5EMU_ABI(ibv_dereg_mr);
MLX5EMU_ABI(mlx5dv_qp_cancel_posted_send_wrs);

static struct ibv_context *ctx;
static struct prov_context *pctx;
static const struct mlx5be_ops *real_be;
static struct mlx5be_ops fake_be;
static struct ibv_pd *pd;
static struct ibv_cq *cq;

static unsigned int progress_calls;
static unsigned int progress_why;

static int fake_progress(struct mlx5be_ctx *bectx, unsigned int why)
{
	(void)bectx;
	progress_calls++;
	progress_why |= why;
	return 0;
}

/* CREATE_QP without the signature bit the firmware refuses. */
static struct mlx5be_obj *fake_obj_create(struct mlx5be_ctx *bectx,
					  const void *in, size_t inlen,
					  void *out, size_t outlen)
{
	uint8_t copy[PRM_ST_SZ_BYTES(create_qp_in)];

	if (PRM_GET(mbox_in, in, opcode) != MLX5_CMD_OP_CREATE_QP ||
	    inlen > sizeof(copy))
		return real_be->obj_create(bectx, in, inlen, out, outlen);
	memcpy(copy, in, inlen);
	PRM_SET(create_qp_in, copy, qpc.wq_signature, 0);
	return real_be->obj_create(bectx, copy, inlen, out, outlen);
}

static void setup(void)
{
	ctx = ut_core_open();
	pctx = to_prov_context(ctx);
	real_be = pctx->be;
	fake_be = *real_be;
	fake_be.progress = fake_progress;
	fake_be.obj_create = fake_obj_create;
	pctx->be = &fake_be;
	progress_calls = 0;
	progress_why = 0;
	pd = mlx5emu_abi_ibv_alloc_pd(ctx);
	cq = mlx5emu_abi_ibv_create_cq(ctx, 63, NULL, NULL, 0);
	ck_assert_ptr_nonnull(pd);
	ck_assert_ptr_nonnull(cq);
}

static void teardown(void)
{
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_dealloc_pd(pd), 0);
	pctx->be = real_be;
	ut_core_close(ctx);
	unsetenv("MLX5_QP_SIGNATURE");
}

/*
 * The progress tests count the provider's calls, which go nowhere: without
 * an engine thread (inline mode) nothing executes the posted WQEs behind
 * them, so the only CQE the poll finds is the one the test wrote.
 */
static void setup_inline(void)
{
	setenv("MLX5EMU_ENGINE_MODE", "inline", 1);
	setup();
}

static void teardown_inline(void)
{
	teardown();
	unsetenv("MLX5EMU_ENGINE_MODE");
}

static void *gen_caps(void)
{
	return pctx->caps->cur[MLX5_CAP_GENERAL];
}

/* RESET to RTS, an RC or UC QP connected to itself. */
static void to_rts(struct ibv_qp *qp)
{
	enum ibv_qp_type type = qp->qp_type;
	struct ibv_qp_attr qa;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	ck_assert_int_eq(mlx5emu_abi_ibv_modify_qp(qp, &qa, IBV_QP_STATE |
				IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS), 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = IBV_MTU_1024;
	qa.dest_qp_num = qp->qp_num;
	qa.ah_attr.is_global = 1;
	qa.ah_attr.port_num = 1;
	qa.ah_attr.grh.sgid_index = 1;
	qa.ah_attr.grh.hop_limit = 1;
	ck_assert_int_eq(mlx5emu_abi_ibv_query_gid(ctx, 1, 1, &qa.ah_attr.grh.dgid), 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_modify_qp(qp, &qa, IBV_QP_STATE |
				IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN | (type == IBV_QPT_RC ?
				IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER : 0)), 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	ck_assert_int_eq(mlx5emu_abi_ibv_modify_qp(qp, &qa, IBV_QP_STATE |
				IBV_QP_SQ_PSN | (type == IBV_QPT_RC ?
				IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC : 0)), 0);
}

static struct ibv_qp *rts_qp(enum ibv_qp_type type, uint32_t rsge)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 2,
			 .max_recv_sge = rsge },
	};
	struct ibv_qp *qp = mlx5emu_abi_ibv_create_qp(pd, &a);

	ck_assert_msg(qp, "create_qp: %s", strerror(errno));
	to_rts(qp);
	return qp;
}

START_TEST(test_progress)
{
	struct ibv_qp *qp = rts_qp(IBV_QPT_RC, 1);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq = mlx5emu_abi_ibv_create_srq(pd, &sa);
	struct ibv_sge sge = { .addr = 0x1000, .length = 8 };
	struct ibv_send_wr swr = { .opcode = IBV_WR_SEND, .sg_list = &sge,
				   .num_sge = 1 };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr *sbad;
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc;

	ck_assert_ptr_nonnull(srq);
	ck_assert_int_eq(ibv_post_send(qp, &swr, &sbad), 0);
	ck_assert_uint_eq(progress_calls, 1);
	ck_assert_uint_eq(progress_why, MLX5BE_PROGRESS_DOORBELL);
	progress_why = 0;
	ck_assert_int_eq(ibv_post_recv(qp, &rwr, &rbad), 0);
	ck_assert_uint_eq(progress_calls, 2);
	ck_assert_uint_eq(progress_why, MLX5BE_PROGRESS_DOORBELL);
	progress_why = 0;
	ck_assert_int_eq(ibv_post_srq_recv(srq, &rwr, &rbad), 0);
	ck_assert_uint_eq(progress_calls, 3);
	ck_assert_uint_eq(progress_why, MLX5BE_PROGRESS_DOORBELL);
	/* Nothing posted, nothing told. */
	swr.num_sge = 3;
	ck_assert_int_eq(ibv_post_send(qp, &swr, &sbad), ENOMEM);
	rwr.num_sge = 2;
	ck_assert_int_eq(ibv_post_recv(qp, &rwr, &rbad), EINVAL);
	ck_assert_int_eq(ibv_post_srq_recv(srq, &rwr, &rbad), EINVAL);
	ck_assert_uint_eq(progress_calls, 3);
	/* Polling: only when nothing is there. */
	progress_why = 0;
	dp_cqe_write(to_prov_cq(cq)->buf.buf, to_prov_cq(cq)->ncqe, 64, 0,
		     MLX5_CQE_REQ, to_prov_qp(qp)->uidx, qp->qp_num, 0x0a, 0);
	ck_assert_int_eq(ibv_poll_cq(cq, 1, &wc), 1);
	ck_assert_uint_eq(progress_calls, 3);
	ck_assert_int_eq(ibv_poll_cq(cq, 1, &wc), 0);
	ck_assert_uint_eq(progress_calls, 4);
	ck_assert_uint_eq(progress_why, MLX5BE_PROGRESS_POLL);
	{
		struct ibv_cq_init_attr_ex ca = { .cqe = 4 };
		struct ibv_poll_cq_attr pa = { 0 };
		struct ibv_cq_ex *ex = pctx->vctx.create_cq_ex(ctx, &ca);

		ck_assert_ptr_nonnull(ex);
		ck_assert_int_eq(ibv_start_poll(ex, &pa), ENOENT);
		ck_assert_uint_eq(progress_calls, 5);
		ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibv_cq_ex_to_cq(ex)), 0);
	}
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_srq(srq), 0);
}
END_TEST

START_TEST(test_progress_wr)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
	};
	struct ibv_qp *qp = pctx->vctx.create_qp_ex(ctx, &a);
	struct ibv_qp_ex *qpx = (struct ibv_qp_ex *)qp;

	ck_assert_ptr_nonnull(qp);
	/* Before RTS nothing goes out. */
	qpx->wr_start(qpx);
	qpx->wr_send(qpx);
	qpx->wr_set_sge(qpx, 1, 0x1000, 8);
	ck_assert_int_eq(qpx->wr_complete(qpx), EINVAL);
	ck_assert_uint_eq(progress_calls, 0);
	/* In RTS: once per batch, and not for a failed one. */
	to_rts(qp);
	qpx->wr_start(qpx);
	for (int i = 0; i < 2; i++) {
		qpx->wr_send(qpx);
		qpx->wr_set_sge(qpx, 1, 0x1000, 8);
	}
	ck_assert_int_eq(qpx->wr_complete(qpx), 0);
	ck_assert_uint_eq(progress_calls, 1);
	ck_assert_uint_eq(progress_why, MLX5BE_PROGRESS_DOORBELL);
	qpx->wr_start(qpx);
	qpx->wr_send(qpx);
	qpx->wr_set_inline_data(qpx, qpx, 4096);
	ck_assert_int_eq(qpx->wr_complete(qpx), ENOMEM);
	ck_assert_uint_eq(progress_calls, 1);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_no_atomics)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 8, .lkey = 5 };
	struct ibv_send_wr wr = { .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
				  .sg_list = &sge, .num_sge = 1 };
	struct ibv_qp_init_attr_ex ax = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
	};
	struct ibv_send_wr *bad = NULL;
	struct ibv_qp *rc, *uc;
	uint8_t w[32];

	PRM_SET(atomic_caps, pctx->caps->cur[MLX5_CAP_ATOMIC], atomic_operations, 0);
	rc = rts_qp(IBV_QPT_RC, 1);
	uc = rts_qp(IBV_QPT_UC, 1);
	ck_assert_int_eq(ibv_post_send(rc, &wr, &bad), EOPNOTSUPP);
	ck_assert_ptr_eq(bad, &wr);
	ck_assert_uint_eq(be32toh(to_prov_qp(rc)->db[1]), 0);
	/* UC: posted as it is, the device judges the opcode. */
	ck_assert_int_eq(ibv_post_send(uc, &wr, &bad), 0);
	memset(w, 0, sizeof(w));
	dp_be32(w, 0, 0x12);
	dp_be32(w, 4, uc->qp_num << 8 | 2);
	dp_be32(w, 16, 8);
	dp_be32(w, 20, 5);
	dp_be64(w, 24, 0x1000);
	dp_expect_bytes(to_prov_qp(uc)->sq_start, w, sizeof(w), "UC atomic");
	errno = 0;
	ck_assert_ptr_null(pctx->vctx.create_qp_ex(ctx, &ax));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_qp(rc), 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_qp(uc), 0);
}
END_TEST

START_TEST(test_no_send_inv)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND_WITH_INV,
				  .invalidate_rkey = 0x1234 };
	struct ibv_qp_init_attr_ex ax = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND_WITH_INV,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
	};
	struct ibv_send_wr *bad;
	struct ibv_qp *qp;

	PRM_SET(cmd_hca_cap, gen_caps(), umr_modify_entity_size_disabled, 1);
	errno = 0;
	ck_assert_ptr_null(pctx->vctx.create_qp_ex(ctx, &ax));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	qp = rts_qp(IBV_QPT_RC, 1);
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	ck_assert_uint_eq(((uint8_t *)to_prov_qp(qp)->sq_start)[3], 0x01);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_qp(qp), 0);
}
END_TEST

static uint8_t xor8(const uint8_t *p, size_t len)
{
	uint8_t x = 0;

	while (len--)
		x ^= *p++;
	return x;
}

/* The QP's firmware object on device 0. */
static struct emu_fw_obj *fw_qp(struct ibv_qp *qp, struct emu_fw **fw)
{
	struct kern_dev *kdev = kern_dev_find(0);
	struct emu_fw_obj *o;

	ck_assert_ptr_nonnull(kdev);
	*fw = kdev->fw;
	o = emu_fw_obj_get(kdev->fw, EMU_FW_OBJ_QP, qp->qp_num);
	ck_assert_ptr_nonnull(o);
	return o;
}

/* The device model drains @qp's send queue (SQD), as no command does. */
static void drain_sq(struct ibv_qp *qp)
{
	struct emu_fw *fw;
	struct emu_fw_obj *o = fw_qp(qp, &fw);

	ck_assert_int_eq(emu_fw_qp_set_state(emu_fw_to_qp(o),
					     MLX5_QPC_STATE_SQD), 0);
	emu_fw_obj_put(o);
}

/* SQD_RTS_QP with the QP's uid, as mlx5_ib issues it for SQD->RTS (the
 * provider's verbs transitions go through DEVX, which has no SQD_RTS). */
static void sqd_to_rts(struct ibv_qp *qp)
{
	uint8_t in[PRM_ST_SZ_BYTES(sqd2rts_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(sqd2rts_qp_out)] = { 0 };
	struct emu_fw *fw;
	struct emu_fw_obj *o = fw_qp(qp, &fw);

	PRM_SET(sqd2rts_qp_in, in, opcode, MLX5_CMD_OP_SQD_RTS_QP);
	PRM_SET(sqd2rts_qp_in, in, uid, o->uid);
	PRM_SET(sqd2rts_qp_in, in, qpn, qp->qp_num);
	emu_fw_obj_put(o);
	ck_assert_int_eq(emu_fw_cmd_exec(fw, in, sizeof(in), out, sizeof(out)),
			 0);
	ck_assert_uint_eq(PRM_GET(mbox_out, out, status), 0);
}

START_TEST(test_cancel)
{
	static uint8_t buf[256] __attribute__((aligned(64)));
	struct ibv_qp *qp = rts_qp(IBV_QPT_RC, 1);
	struct mlx5dv_qp_ex *dv = &to_prov_qp(qp)->dv_qp;
	struct ibv_mr *mr = mlx5emu_abi_ibv_reg_mr(pd, buf, sizeof(buf),
						   IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge[3], rsge;
	struct ibv_send_wr wr[3], *bad;
	struct ibv_recv_wr rwr = { .wr_id = 100, .sg_list = &rsge, .num_sge = 1 };
	struct ibv_recv_wr *rbad;
	const uint64_t ids[3] = { 7, 8, 7 };
	struct ibv_wc wc[4];
	int n = 0, sends = 0;

	ck_assert_ptr_nonnull(mr);
	for (int i = 0; i < 3; i++) {
		buf[16 * i] = (uint8_t)(i + 1);
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)buf + 16 * i,
					   .length = 16, .lkey = mr->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = ids[i], .sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
			.next = i < 2 ? &wr[i + 1] : NULL,
		};
	}
	/* One receive: only one send may arrive. */
	rsge = (struct ibv_sge){ .addr = (uintptr_t)buf + 128, .length = 64,
				 .lkey = mr->lkey };
	ck_assert_int_eq(ibv_post_recv(qp, &rwr, &rbad), 0);
	/* In RTS: not drained. */
	ck_assert_int_eq(mlx5emu_abi_mlx5dv_qp_cancel_posted_send_wrs(dv, 7),
			 -EINVAL);
	drain_sq(qp);
	/* Drained and nothing posted: none. */
	ck_assert_int_eq(mlx5emu_abi_mlx5dv_qp_cancel_posted_send_wrs(dv, 7), 0);
	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), 0);
	ck_assert_int_eq(mlx5emu_abi_mlx5dv_qp_cancel_posted_send_wrs(dv, 9), 0);
	ck_assert_int_eq(mlx5emu_abi_mlx5dv_qp_cancel_posted_send_wrs(dv, 7), 2);
	/* The WQEs (one WQEBB each here): opcode and opmod 0, index kept. */
	for (unsigned int i = 0; i < 3; i++) {
		const uint8_t *c = prov_sq_wqe(to_prov_qp(qp), i);

		ck_assert_uint_eq(c[0], 0);
		ck_assert_uint_eq(c[1] << 8 | c[2], i);
		ck_assert_uint_eq(c[3], i == 1 ? MLX5_OPCODE_SEND :
					MLX5_OPCODE_NOP);
	}
	sqd_to_rts(qp);
	for (int i = 0; i < 5000 && n < 4; i++) {
		int r = ibv_poll_cq(cq, 4 - n, wc + n);

		ck_assert_int_ge(r, 0);
		n += r;
		if (n < 4)
			usleep(1000);
	}
	ck_assert_int_eq(n, 4);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(wc[i].status, IBV_WC_SUCCESS);
		if (wc[i].wr_id == 100) {
			ck_assert_int_eq(wc[i].opcode, IBV_WC_RECV);
			ck_assert_uint_eq(wc[i].byte_len, 16);
			continue;
		}
		ck_assert_uint_eq(wc[i].wr_id, ids[sends]);
		ck_assert_int_eq(wc[i].opcode, IBV_WC_SEND);
		sends++;
	}
	ck_assert_int_eq(sends, 3);
	/* The send not cancelled arrived. */
	ck_assert_uint_eq(buf[128], 2);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_dereg_mr(mr), 0);
}
END_TEST

START_TEST(test_signature)
{
	struct ibv_sge sge[2] = {
		{ .addr = 0x1000, .length = 8, .lkey = 5 },
		{ .addr = 0x2000, .length = 16, .lkey = 6 },
	};
	struct ibv_send_wr swr = { .opcode = IBV_WR_SEND, .sg_list = sge,
				   .num_sge = 2 };
	struct ibv_recv_wr rwr[2] = {
		{ .sg_list = sge, .num_sge = 1, .next = &rwr[1] },
		{ .sg_list = sge, .num_sge = 2 },
	};
	struct ibv_send_wr *sbad;
	struct ibv_recv_wr *rbad;
	struct prov_qp *pqp;
	struct ibv_qp *qp;
	uint8_t wqe[64];
	uint32_t qpn;
	uint16_t idx = 0;
	uint8_t sig;

	setenv("MLX5_QP_SIGNATURE", "1", 1);
	qp = rts_qp(IBV_QPT_RC, 2);
	pqp = to_prov_qp(qp);
	qpn = qp->qp_num;
	/* Send: the inverted XOR of the WQE's bytes, with 0 in its place. */
	ck_assert_int_eq(ibv_post_send(qp, &swr, &sbad), 0);
	memcpy(wqe, pqp->sq_start, 48);
	sig = wqe[8];
	wqe[8] = 0;
	ck_assert_uint_eq(sig, (uint8_t)~xor8(wqe, 48));

	/* Receive: a 16-byte signature segment leads each WQE; its byte 4
	 * signs the segments, the QPN and the RQ head the post found (the
	 * same for every WQE of the post), each inverted. */
	ck_assert_uint_eq(1u << pqp->rq.wqe_shift, 64);
	ck_assert_int_eq(ibv_post_recv(qp, rwr, &rbad), 0);
	for (int i = 0; i < 2; i++) {
		uint8_t *r = (uint8_t *)pqp->buf.buf + pqp->rq.offset + i * 64;

		memcpy(wqe, r, 64);
		sig = wqe[4];
		wqe[4] = 0;
		ck_assert_uint_eq(xor8(wqe, 16), 0);
		ck_assert_uint_eq(sig, (uint8_t)(~xor8(wqe, (size_t)(rwr[i].num_sge + 1) * 16) ^
						 ~xor8((uint8_t *)&qpn, 4) ^
						 ~xor8((uint8_t *)&idx, 2)));
	}
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_qp(qp), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dp_send_internal");
	TCase *tc = tcase_create("send");
	TCase *progress = tcase_create("progress");

	tcase_add_checked_fixture(progress, setup_inline, teardown_inline);
	tcase_add_test(progress, test_progress);
	tcase_add_test(progress, test_progress_wr);
	suite_add_tcase(s, progress);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_no_atomics);
	tcase_add_test(tc, test_no_send_inv);
	tcase_add_test(tc, test_signature);
	tcase_add_test(tc, test_cancel);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
