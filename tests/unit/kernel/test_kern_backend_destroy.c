/* SPDX-License-Identifier: MIT */
/*
 * How obj_destroy destroys, per devx_obj_cleanup: a DCT is drained first
 * and a drain that fails stops the destroy (mlx5_core_destroy_dct); a CQ
 * leaves its completion EQ's table before DESTROY_CQ, also when firmware
 * then refuses it (mlx5_core_destroy_cq); a CQ is on that table from its
 * create on (mlx5_create_cq).
 */
#include <stdlib.h>

#include "test_kern_backend.h"

static struct mlx5be_ctx *ctx;
static struct emu_fw *fw;

static void setup(void)
{
	ctx = kbt_open(NULL);
	fw = kbt_fw(ctx);
}

static void teardown(void)
{
	kbt_fw_fail(0, NULL);
	BE->close(ctx);
}

static struct mlx5be_obj *create(void *in, size_t inlen, void *out,
				 size_t outlen, const char *what)
{
	struct mlx5be_obj *obj = BE->obj_create(ctx, in, inlen, out, outlen);

	ck_assert_msg(obj, "%s: %s (status 0x%x syndrome 0x%x)", what,
		      strerror(errno), kern_mbox_status(out),
		      kern_mbox_syndrome(out));
	return obj;
}

/* A DC target and what it stands on: PD, CQ, XRC domain, XRC SRQ. */
struct kbt_dct {
	struct kbt_cq cq;
	struct kbt_mem srq_buf, srq_dbr;
	struct mlx5be_obj *pd, *xrcd, *srq, *dct;
	uint32_t dctn;
};

static void dct_create(struct kbt_dct *d)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_xrc_srq_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(create_xrc_srq_out)] = {};
	uint8_t xin[PRM_ST_SZ_BYTES(alloc_xrcd_in)] = {};
	uint8_t xout[PRM_ST_SZ_BYTES(alloc_xrcd_out)] = {};
	uint8_t din[PRM_ST_SZ_BYTES(create_dct_in)] = {};
	uint8_t dout[PRM_ST_SZ_BYTES(create_dct_out)] = {};
	void *c = PRM_ADDR_OF(create_xrc_srq_in, in, xrc_srq_context_entry);
	void *dc = PRM_ADDR_OF(create_dct_in, din, dct_context_entry);
	uint32_t pdn, xrcd;

	kbt_cq_create(ctx, &d->cq);
	d->pd = kbt_pd(ctx, &pdn);
	PRM_SET(alloc_xrcd_in, xin, opcode, MLX5_CMD_OP_ALLOC_XRCD);
	d->xrcd = create(xin, sizeof(xin), xout, sizeof(xout), "ALLOC_XRCD");
	xrcd = PRM_GET(alloc_xrcd_out, xout, xrcd);

	kbt_mem_reg(ctx, 4096, &d->srq_buf);
	kbt_mem_reg(ctx, 64, &d->srq_dbr);
	PRM_SET(create_xrc_srq_in, in, opcode, MLX5_CMD_OP_CREATE_XRC_SRQ);
	PRM_SET(xrc_srqc, c, log_xrc_srq_size, 5);
	PRM_SET(xrc_srqc, c, log_rq_stride, 2);	/* 64-byte WQEs */
	PRM_SET(xrc_srqc, c, xrcd, xrcd);
	PRM_SET(xrc_srqc, c, cqn, d->cq.cqn);
	PRM_SET(xrc_srqc, c, pd, pdn);
	PRM_SET(xrc_srqc, c, dbr_umem_id, d->srq_dbr.id);
	PRM_SET(create_xrc_srq_in, in, xrc_srq_umem_id, d->srq_buf.id);
	d->srq = create(in, sizeof(in), out, sizeof(out), "CREATE_XRC_SRQ");

	PRM_SET(create_dct_in, din, opcode, MLX5_CMD_OP_CREATE_DCT);
	PRM_SET(dctc, dc, pd, pdn);
	PRM_SET(dctc, dc, cqn, d->cq.cqn);
	PRM_SET(dctc, dc, srqn_xrqn, PRM_GET(create_xrc_srq_out, out, xrc_srqn));
	PRM_SET(dctc, dc, port, 1);
	PRM_SET(dctc, dc, mtu, MLX5_QPC_MTU_1K_BYTES);
	PRM_SET(dctc, dc, my_addr_index, 1);	/* RoCE v2 link-local */
	PRM_SET(dctc, dc, hop_limit, 64);
	PRM_SET64(dctc, dc, dc_access_key, 0x1234);
	d->dct = create(din, sizeof(din), dout, sizeof(dout), "CREATE_DCT");
	d->dctn = PRM_GET(create_dct_out, dout, dctn);
}

static void dct_destroy_rest(struct kbt_dct *d)
{
	ck_assert_int_eq(BE->obj_destroy(d->srq), 0);
	ck_assert_int_eq(BE->obj_destroy(d->xrcd), 0);
	ck_assert_int_eq(BE->obj_destroy(d->pd), 0);
	kbt_mem_dereg(&d->srq_buf);
	kbt_mem_dereg(&d->srq_dbr);
	kbt_cq_destroy(&d->cq);
}

/* DRAIN_DCT, then DESTROY_DCT, both with the DCT's uid. */
START_TEST(test_dct_drained_first)
{
	struct kbt_dct d;
	unsigned long cmds;

	dct_create(&d);
	cmds = kbt_fw_cmds();
	ck_assert_int_eq(BE->obj_destroy(d.dct), 0);
	ck_assert_uint_eq(kbt_fw_cmds(), cmds + 2);
	ck_assert_uint_eq(kbt_fw_opcode(1), MLX5_CMD_OP_DRAIN_DCT);
	ck_assert_uint_eq(kbt_fw_opcode(0), MLX5_CMD_OP_DESTROY_DCT);
	ck_assert_uint_eq(kbt_fw_last_uid(), kbt_uid(ctx));
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_QP, d.dctn, NULL));
	dct_destroy_rest(&d);
}
END_TEST

/*
 * A drain firmware refuses stops the destroy: its errno (mlx5_cmd_exec's
 * mapping: BAD_RES_STATE is EINVAL), no DESTROY_DCT, the DCT and its
 * handle stay, and the destroy works once the drain does.
 */
START_TEST(test_dct_drain_refused)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_dct_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(query_dct_out)] = {};
	struct kbt_dct d;
	unsigned long cmds;

	dct_create(&d);
	kbt_fw_fail(MLX5_CMD_OP_DRAIN_DCT, "DCT_INVALID");
	cmds = kbt_fw_cmds();
	ck_assert_int_eq(BE->obj_destroy(d.dct), -EINVAL);
	ck_assert_uint_eq(kbt_fw_cmds(), cmds + 1);
	ck_assert_uint_eq(kbt_fw_last_opcode(), MLX5_CMD_OP_DRAIN_DCT);
	ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_QP, d.dctn, NULL));
	PRM_SET(query_dct_in, in, opcode, MLX5_CMD_OP_QUERY_DCT);
	PRM_SET(query_dct_in, in, dctn, d.dctn);
	ck_assert_int_eq(BE->obj_query(d.dct, in, sizeof(in), out, sizeof(out)), 0);
	ck_assert_uint_eq(PRM_GET(query_dct_out, out, dct_context_entry.state),
			  MLX5_DCTC_STATE_ACTIVE);
	kbt_fw_fail(0, NULL);
	ck_assert_int_eq(BE->obj_destroy(d.dct), 0);
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_QP, d.dctn, NULL));
	dct_destroy_rest(&d);
}
END_TEST

/* A CQ is on its EQ's table from its create to its destroy. */
START_TEST(test_cq_on_eq_table)
{
	struct kern_dev *kdev = ctx->uctx->kdev;
	struct kbt_cq cq;
	uint32_t eqn = 0xdead;

	kbt_cq_create(ctx, &cq);
	ck_assert(kern_dev_cq_find(kdev, cq.cqn, &eqn));
	ck_assert_uint_eq(eqn, cq.eqn);
	ck_assert_int_eq(BE->obj_destroy(cq.obj), 0);
	cq.obj = NULL;
	ck_assert(!kern_dev_cq_find(kdev, cq.cqn, NULL));
	kbt_cq_destroy(&cq);
}
END_TEST

/*
 * mlx5_core_destroy_cq takes the CQ off its EQs before DESTROY_CQ: when
 * firmware refuses (the errno of mlx5_cmd_exec), the CQ lives on, off the
 * table; the handle still destroys it.
 */
START_TEST(test_cq_off_eq_table_before_destroy)
{
	struct kern_dev *kdev = ctx->uctx->kdev;
	struct kbt_cq cq;

	kbt_cq_create(ctx, &cq);
	kbt_fw_fail(MLX5_CMD_OP_DESTROY_CQ, "CQ_IN_USE");
	ck_assert_int_eq(BE->obj_destroy(cq.obj), -EINVAL);
	ck_assert_uint_eq(kbt_fw_last_opcode(), MLX5_CMD_OP_DESTROY_CQ);
	ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_CQ, cq.cqn, NULL));
	ck_assert(!kern_dev_cq_find(kdev, cq.cqn, NULL));
	kbt_fw_fail(0, NULL);
	ck_assert_int_eq(BE->obj_destroy(cq.obj), 0);
	cq.obj = NULL;
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_CQ, cq.cqn, NULL));
	kbt_cq_destroy(&cq);
}
END_TEST

/* A CREATE_CQ firmware refuses leaves nothing on the table. */
START_TEST(test_cq_refused_not_on_table)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)];
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)] = {};
	struct kern_dev *kdev = ctx->uctx->kdev;
	struct kbt_cq cq;

	kbt_cq_create(ctx, &cq);
	kbt_cq_in(&cq, in, KBT_CQ_LOG_SIZE);
	kbt_fw_fail(MLX5_CMD_OP_CREATE_CQ, "CQ_IN_USE");
	ck_assert_ptr_null(BE->obj_create(ctx, in, sizeof(in), out, sizeof(out)));
	ck_assert_int_eq(errno, EREMOTEIO);
	kbt_fw_fail(0, NULL);
	/* Only the first CQ is there: nothing else names a CQ now. */
	for (uint32_t n = 0; n < 0x1000; n++)
		ck_assert(n == cq.cqn || !kern_dev_cq_find(kdev, n, NULL));
	kbt_cq_destroy(&cq);
}
END_TEST

Suite *kbt_destroy_suite(void)
{
	Suite *s = suite_create("kern_backend_destroy");
	TCase *tc = tcase_create("destroy");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_dct_drained_first);
	tcase_add_test(tc, test_dct_drain_refused);
	tcase_add_test(tc, test_cq_on_eq_table);
	tcase_add_test(tc, test_cq_off_eq_table_before_destroy);
	tcase_add_test(tc, test_cq_refused_not_on_table);
	suite_add_tcase(s, tc);
	return s;
}
