/* SPDX-License-Identifier: MIT */
/*
 * Ethernet queue objects through DEVX, as DPDK's mlx5 PMD builds them:
 * TD -> TIS -> CQs -> SQ -> RQ -> RQT -> TIR with mlx5dv_devx_obj_create
 * (umem rings and doorbells whose *_umem_valid bits the kernel sets), SQ
 * and RQ moved to RDY with obj_modify, everything queried back with
 * obj_query; the kernel stamps each command with the context's uid, so a
 * second context can use none of the first one's objects.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devx_test.h"
#include "ut_run.h"

static struct ibv_context *ctx, *ctx2;

static void setup(void)
{
	ctx = dt_open(true);
	ctx2 = dt_open(true);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_close_device(ctx2), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

#define MBOX 512	/* bytes: any inbox/outbox here */

static struct mlx5dv_devx_obj *create(struct ibv_context *c, void *in,
				      size_t inlen, void *out, size_t outlen,
				      const char *what)
{
	struct mlx5dv_devx_obj *obj;

	obj = mlx5dv_devx_obj_create(c, in, inlen, out, outlen);
	ck_assert_msg(obj, "%s: %s, status 0x%x, syndrome 0x%x", what,
		      strerror(errno), DT_OUT_STATUS(out),
		      DT_OUT_SYNDROME(out));
	return obj;
}

/* A create the firmware refuses with @synd (EREMOTEIO, outbox back). */
static void ck_create_refused(struct ibv_context *c, void *in, size_t inlen,
			      uint32_t synd)
{
	uint8_t out[MBOX] = { 0 };

	ck_assert_ptr_null(mlx5dv_devx_obj_create(c, in, inlen, out,
						  sizeof(out)));
	ck_assert_int_eq(errno, EREMOTEIO);
	ck_assert_uint_eq(DT_OUT_SYNDROME(out), synd);
}

struct eth {
	struct mlx5dv_devx_uar *uar;
	struct mlx5dv_devx_obj *pd, *td, *tis, *sq, *rq, *rqt, *tir;
	struct dt_cq scq, rcq;
	struct dt_umem sq_buf, rq_buf, dbr;
	uint32_t pdn, tdn, tisn, sqn, rqn, rqtn, tirn;
};

static void fill_wq(void *wq, uint32_t pdn, const struct dt_umem *buf,
		    const struct dt_umem *dbr, uint64_t dbr_off,
		    unsigned int log_stride)
{
	PRM_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	PRM_SET(wq, wq, pd, pdn);
	PRM_SET(wq, wq, log_wq_sz, 6);
	PRM_SET(wq, wq, log_wq_stride, log_stride);
	PRM_SET(wq, wq, wq_umem_id, buf->umem->umem_id);
	PRM_SET(wq, wq, dbr_umem_id, dbr->umem->umem_id);
	PRM_SET64(wq, wq, dbr_addr, dbr_off);
	/* *_umem_valid left 0: the kernel sets them (devx_set_umem_valid). */
}

static void sq_in(struct eth *e, void *in)
{
	void *sqc = PRM_ADDR_OF(create_sq_in, in, ctx);
	void *wq = PRM_ADDR_OF(sqc, sqc, wq);

	memset(in, 0, MBOX);
	PRM_SET(create_sq_in, in, opcode, MLX5_CMD_OP_CREATE_SQ);
	PRM_SET(sqc, sqc, cqn, e->scq.cqn);
	PRM_SET(sqc, sqc, user_index, 7);
	PRM_SET(sqc, sqc, min_wqe_inline_mode, MLX5_INLINE_MODE_L2);
	PRM_SET(sqc, sqc, ts_format, MLX5_TIMESTAMP_FORMAT_DEFAULT);
	PRM_SET(sqc, sqc, tis_lst_sz, 1);
	PRM_SET(sqc, sqc, tis_num_0, e->tisn);
	fill_wq(wq, e->pdn, &e->sq_buf, &e->dbr, 0, 6);
	PRM_SET(wq, wq, uar_page, e->uar->page_id);
}

static void rq_in(struct eth *e, void *in)
{
	void *rqc = PRM_ADDR_OF(create_rq_in, in, ctx);

	memset(in, 0, MBOX);
	PRM_SET(create_rq_in, in, opcode, MLX5_CMD_OP_CREATE_RQ);
	PRM_SET(rqc, rqc, cqn, e->rcq.cqn);
	PRM_SET(rqc, rqc, vsd, 1);
	PRM_SET(rqc, rqc, ts_format, MLX5_TIMESTAMP_FORMAT_DEFAULT);
	fill_wq(PRM_ADDR_OF(rqc, rqc, wq), e->pdn, &e->rq_buf, &e->dbr, 64, 4);
}

static void eth_create(struct eth *e)
{
	uint8_t in[MBOX], out[MBOX];
	void *c;

	memset(e, 0, sizeof(*e));
	e->uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	ck_assert_ptr_nonnull(e->uar);
	e->pd = dt_pd_alloc(ctx, &e->pdn);

	memset(in, 0, sizeof(in));
	PRM_SET(alloc_transport_domain_in, in, opcode,
		MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	e->td = create(ctx, in, PRM_ST_SZ_BYTES(alloc_transport_domain_in),
		       out, PRM_ST_SZ_BYTES(alloc_transport_domain_out), "TD");
	e->tdn = PRM_GET(alloc_transport_domain_out, out, transport_domain);

	memset(in, 0, sizeof(in));
	PRM_SET(create_tis_in, in, opcode, MLX5_CMD_OP_CREATE_TIS);
	PRM_SET(create_tis_in, in, ctx.transport_domain, e->tdn);
	PRM_SET(create_tis_in, in, ctx.prio, 2);
	e->tis = create(ctx, in, PRM_ST_SZ_BYTES(create_tis_in), out,
			PRM_ST_SZ_BYTES(create_tis_out), "TIS");
	e->tisn = PRM_GET(create_tis_out, out, tisn);

	dt_cq_create(ctx, &e->scq, 6);
	dt_cq_create(ctx, &e->rcq, 6);
	dt_umem_reg(ctx, &e->sq_buf, 64 * 64, 4096);
	dt_umem_reg(ctx, &e->rq_buf, 64 * 16, 4096);
	dt_umem_reg(ctx, &e->dbr, 128, 64);

	sq_in(e, in);
	e->sq = create(ctx, in, PRM_ST_SZ_BYTES(create_sq_in), out,
		       PRM_ST_SZ_BYTES(create_sq_out), "SQ");
	e->sqn = PRM_GET(create_sq_out, out, sqn);
	rq_in(e, in);
	e->rq = create(ctx, in, PRM_ST_SZ_BYTES(create_rq_in), out,
		       PRM_ST_SZ_BYTES(create_rq_out), "RQ");
	e->rqn = PRM_GET(create_rq_out, out, rqn);

	memset(in, 0, sizeof(in));
	PRM_SET(create_rqt_in, in, opcode, MLX5_CMD_OP_CREATE_RQT);
	c = PRM_ADDR_OF(create_rqt_in, in, rqt_context);
	PRM_SET(rqtc, c, rqt_max_size, 4);
	PRM_SET(rqtc, c, rqt_actual_size, 2);
	PRM_SET(rq_num, PRM_ARRAY_ADDR(rqtc, c, rq_num, 0), rq_num, e->rqn);
	PRM_SET(rq_num, PRM_ARRAY_ADDR(rqtc, c, rq_num, 1), rq_num, e->rqn);
	e->rqt = create(ctx, in, PRM_ST_SZ_BYTES(create_rqt_in) + 8, out,
			PRM_ST_SZ_BYTES(create_rqt_out), "RQT");
	e->rqtn = PRM_GET(create_rqt_out, out, rqtn);

	memset(in, 0, sizeof(in));
	PRM_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	c = PRM_ADDR_OF(create_tir_in, in, ctx);
	PRM_SET(tirc, c, disp_type, MLX5_TIRC_DISP_TYPE_INDIRECT);
	PRM_SET(tirc, c, indirect_table, e->rqtn);
	PRM_SET(tirc, c, transport_domain, e->tdn);
	PRM_SET(tirc, c, rx_hash_fn, MLX5_RX_HASH_FN_TOEPLITZ);
	PRM_SET(tirc, c, rx_hash_field_selector_outer.selected_fields,
		MLX5_HASH_FIELD_SEL_SRC_IP | MLX5_HASH_FIELD_SEL_DST_IP);
	e->tir = create(ctx, in, PRM_ST_SZ_BYTES(create_tir_in), out,
			PRM_ST_SZ_BYTES(create_tir_out), "TIR");
	e->tirn = PRM_GET(create_tir_out, out, tirn);
}

static void eth_destroy(struct eth *e)
{
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(e->tir), 0);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(e->rqt), 0);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(e->rq), 0);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(e->sq), 0);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(e->tis), 0);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(e->td), 0);
	dt_cq_destroy(&e->scq);
	dt_cq_destroy(&e->rcq);
	dt_umem_dereg(&e->sq_buf);
	dt_umem_dereg(&e->rq_buf);
	dt_umem_dereg(&e->dbr);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(e->pd), 0);
	mlx5dv_devx_free_uar(e->uar);
}

/* MODIFY_SQ/MODIFY_RQ (one layout) from @cur to @to. */
static int modify(struct mlx5dv_devx_obj *obj, uint16_t op, uint32_t id,
		  uint32_t cur, uint32_t to, uint8_t *out)
{
	uint8_t in[PRM_ST_SZ_BYTES(modify_sq_in)] = { 0 };

	PRM_SET(modify_sq_in, in, opcode, op);
	PRM_SET(modify_sq_in, in, sqn, id);
	PRM_SET(modify_sq_in, in, sq_state, cur);
	PRM_SET(modify_sq_in, in, ctx.state, to);
	memset(out, 0, PRM_ST_SZ_BYTES(modify_sq_out));
	return mlx5dv_devx_obj_modify(obj, in, sizeof(in), out,
				      PRM_ST_SZ_BYTES(modify_sq_out));
}

/* QUERY_<obj> (the id at 0x48 in every one) into out. */
static void query(struct mlx5dv_devx_obj *obj, uint16_t op, uint32_t id,
		  uint8_t *out, size_t outlen)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_sq_in)] = { 0 };

	PRM_SET(query_sq_in, in, opcode, op);
	PRM_SET(query_sq_in, in, sqn, id);
	memset(out, 0, outlen);
	ck_assert_int_eq(mlx5dv_devx_obj_query(obj, in, sizeof(in), out,
					       outlen), 0);
}

START_TEST(test_eth_chain)
{
	uint8_t out[1024];
	struct eth e;

	eth_create(&e);
	ck_assert_uint_ne(e.sqn, 0);
	ck_assert_uint_ne(e.tirn, 0);

	ck_assert_int_eq(modify(e.sq, MLX5_CMD_OP_MODIFY_SQ, e.sqn,
				MLX5_SQC_STATE_RST, MLX5_SQC_STATE_RDY, out), 0);
	ck_assert_int_eq(modify(e.rq, MLX5_CMD_OP_MODIFY_RQ, e.rqn,
				MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY, out), 0);
	/* The wrong current state: the firmware's syndrome, EREMOTEIO. */
	ck_assert_int_eq(modify(e.sq, MLX5_CMD_OP_MODIFY_SQ, e.sqn,
				MLX5_SQC_STATE_RST, MLX5_SQC_STATE_RDY, out),
			 EREMOTEIO);
	ck_assert_uint_eq(DT_OUT_SYNDROME(out),
			  DT_SYND_WQ_BAD_STATE_TRANSITION);

	query(e.sq, MLX5_CMD_OP_QUERY_SQ, e.sqn, out,
	      PRM_ST_SZ_BYTES(query_sq_out));
	ck_assert_uint_eq(PRM_GET(query_sq_out, out, sq_context.state),
			  MLX5_SQC_STATE_RDY);
	ck_assert_uint_eq(PRM_GET(query_sq_out, out, sq_context.cqn),
			  e.scq.cqn);
	ck_assert_uint_eq(PRM_GET(query_sq_out, out, sq_context.tis_num_0),
			  e.tisn);
	ck_assert_uint_eq(PRM_GET(query_sq_out, out, sq_context.user_index),
			  7);
	/* The kernel set the umem-valid bits. */
	ck_assert_uint_eq(PRM_GET(query_sq_out, out,
				  sq_context.wq.wq_umem_valid), 1);
	ck_assert_uint_eq(PRM_GET(query_sq_out, out,
				  sq_context.wq.dbr_umem_valid), 1);
	query(e.rq, MLX5_CMD_OP_QUERY_RQ, e.rqn, out,
	      PRM_ST_SZ_BYTES(query_rq_out));
	ck_assert_uint_eq(PRM_GET(query_rq_out, out, rq_context.state),
			  MLX5_RQC_STATE_RDY);
	ck_assert_uint_eq(PRM_GET(query_rq_out, out, rq_context.vsd), 1);
	ck_assert_uint_eq(PRM_GET(query_rq_out, out, rq_context.cqn),
			  e.rcq.cqn);
	query(e.tis, MLX5_CMD_OP_QUERY_TIS, e.tisn, out,
	      PRM_ST_SZ_BYTES(query_tis_out));
	ck_assert_uint_eq(PRM_GET(query_tis_out, out,
				  tis_context.transport_domain), e.tdn);
	ck_assert_uint_eq(PRM_GET(query_tis_out, out, tis_context.prio), 2);
	query(e.rqt, MLX5_CMD_OP_QUERY_RQT, e.rqtn, out,
	      PRM_ST_SZ_BYTES(query_rqt_out) + 16);
	ck_assert_uint_eq(PRM_GET(query_rqt_out, out,
				  rqt_context.rqt_actual_size), 2);
	ck_assert_uint_eq(PRM_GET(rq_num,
				  PRM_ARRAY_ADDR(rqtc, PRM_ADDR_OF(query_rqt_out,
					out, rqt_context), rq_num, 1),
				  rq_num), e.rqn);
	query(e.tir, MLX5_CMD_OP_QUERY_TIR, e.tirn, out,
	      PRM_ST_SZ_BYTES(query_tir_out));
	ck_assert_uint_eq(PRM_GET(query_tir_out, out,
				  tir_context.indirect_table), e.rqtn);
	ck_assert_uint_eq(PRM_GET(query_tir_out, out, tir_context.rx_hash_fn),
			  MLX5_RX_HASH_FN_TOEPLITZ);

	/* In use: the firmware refuses (BAD_RES_STATE, which the kernel's
	 * destroy turns into EINVAL as mlx5_cmd_exec does), the object and
	 * its handle stay. */
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(e.rqt), EINVAL);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(e.tis), EINVAL);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(e.rq), EINVAL);
	eth_destroy(&e);
}
END_TEST

START_TEST(test_eth_other_uid)
{
	uint8_t in[MBOX];
	struct mlx5dv_devx_uar *uar2;
	struct mlx5dv_devx_obj *pd2;
	struct dt_umem buf2, dbr2;
	struct dt_cq cq2;
	uint32_t pdn2;
	struct eth e;
	void *c;

	eth_create(&e);
	/* A TIS on the first context's domain. */
	memset(in, 0, sizeof(in));
	PRM_SET(create_tis_in, in, opcode, MLX5_CMD_OP_CREATE_TIS);
	PRM_SET(create_tis_in, in, ctx.transport_domain, e.tdn);
	ck_create_refused(ctx2, in, PRM_ST_SZ_BYTES(create_tis_in),
			  DT_SYND_TIS_BAD_TD);
	/* An uid written in the inbox does not help: the kernel stamps its
	 * own. */
	PRM_SET(create_tis_in, in, uid, 0);
	ck_create_refused(ctx2, in, PRM_ST_SZ_BYTES(create_tis_in),
			  DT_SYND_TIS_BAD_TD);
	/* An RQT of the first context's RQ. */
	memset(in, 0, sizeof(in));
	PRM_SET(create_rqt_in, in, opcode, MLX5_CMD_OP_CREATE_RQT);
	c = PRM_ADDR_OF(create_rqt_in, in, rqt_context);
	PRM_SET(rqtc, c, rqt_max_size, 1);
	PRM_SET(rqtc, c, rqt_actual_size, 1);
	PRM_SET(rq_num, PRM_ARRAY_ADDR(rqtc, c, rq_num, 0), rq_num, e.rqn);
	ck_create_refused(ctx2, in, PRM_ST_SZ_BYTES(create_rqt_in) + 4,
			  DT_SYND_RQT_BAD_RQN);
	/* A direct TIR to it. */
	memset(in, 0, sizeof(in));
	PRM_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	PRM_SET(create_tir_in, in, ctx.inline_rqn, e.rqn);
	PRM_SET(create_tir_in, in, ctx.transport_domain, e.tdn);
	ck_create_refused(ctx2, in, PRM_ST_SZ_BYTES(create_tir_in),
			  DT_SYND_TIR_BAD_RQN);
	/* An SQ of its own PD, CQ, UAR and memory on the first's TIS. */
	uar2 = mlx5dv_devx_alloc_uar(ctx2, MLX5DV_UAR_ALLOC_TYPE_NC);
	ck_assert_ptr_nonnull(uar2);
	pd2 = dt_pd_alloc(ctx2, &pdn2);
	dt_cq_create(ctx2, &cq2, 6);
	dt_umem_reg(ctx2, &buf2, 64 * 64, 4096);
	dt_umem_reg(ctx2, &dbr2, 64, 64);
	{
		struct eth e2 = e;

		e2.pdn = pdn2;
		e2.uar = uar2;
		e2.scq = cq2;
		e2.sq_buf = buf2;
		e2.dbr = dbr2;
		sq_in(&e2, in);
	}
	ck_create_refused(ctx2, in, PRM_ST_SZ_BYTES(create_sq_in),
			  DT_SYND_SQ_BAD_TIS);
	/* ... and with the first's CQ. */
	PRM_SET(create_sq_in, in, ctx.cqn, e.scq.cqn);
	ck_create_refused(ctx2, in, PRM_ST_SZ_BYTES(create_sq_in),
			  DT_SYND_WQ_BAD_CQN);
	dt_umem_dereg(&buf2);
	dt_umem_dereg(&dbr2);
	dt_cq_destroy(&cq2);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(pd2), 0);
	mlx5dv_devx_free_uar(uar2);
	eth_destroy(&e);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("devx_eth");
	TCase *tc = tcase_create("eth");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_eth_chain);
	tcase_add_test(tc, test_eth_other_uid);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
