/* SPDX-License-Identifier: MIT */
/* Shared helpers of the DEVX tests (see devx_test.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devx_test.h"

void dt_umem_reg(struct ibv_context *ctx, struct dt_umem *m, size_t size,
		 size_t align)
{
	dt_umem_reg_access(ctx, m, size, align, IBV_ACCESS_LOCAL_WRITE);
}

void dt_umem_reg_access(struct ibv_context *ctx, struct dt_umem *m,
			size_t size, size_t align, uint32_t access)
{
	ck_assert_int_eq(posix_memalign(&m->buf, align, size), 0);
	memset(m->buf, 0, size);
	m->size = size;
	m->umem = mlx5dv_devx_umem_reg(ctx, m->buf, size, access);
	ck_assert_msg(m->umem, "umem_reg(%zu): %s", size, strerror(errno));
}

void dt_umem_dereg(struct dt_umem *m)
{
	ck_assert_int_eq(mlx5dv_devx_umem_dereg(m->umem), 0);
	free(m->buf);
	m->umem = NULL;
	m->buf = NULL;
}

void dt_cq_fill_in(struct ibv_context *ctx, struct dt_cq *cq, void *in,
		   unsigned int log_size)
{
	struct mlx5dv_devx_uar *uar;

	uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	ck_assert_msg(uar, "alloc_uar(NC): %s", strerror(errno));
	ck_assert_int_eq(mlx5dv_devx_query_eqn(ctx, 0, &cq->eqn), 0);
	cq->uar_page = uar->page_id;
	cq->log_size = log_size;
	memset(in, 0, PRM_ST_SZ_BYTES(create_cq_in));
	PRM_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	PRM_SET(create_cq_in, in, cq_context.log_cq_size, log_size);
	PRM_SET(create_cq_in, in, cq_context.uar_page, cq->uar_page);
	PRM_SET(create_cq_in, in, cq_context.c_eqn, cq->eqn);
	PRM_SET(create_cq_in, in, cq_context.dbr_umem_valid, 1);
	PRM_SET(create_cq_in, in, cq_context.dbr_umem_id, cq->dbr.umem->umem_id);
	PRM_SET(create_cq_in, in, cq_umem_id, cq->buf.umem->umem_id);
	PRM_SET(create_cq_in, in, cq_umem_valid, 1);
}

void dt_cq_create(struct ibv_context *ctx, struct dt_cq *cq, unsigned int log_size)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)];

	memset(cq, 0, sizeof(*cq));
	dt_umem_reg(ctx, &cq->buf, (size_t)64 << log_size, 4096);
	dt_umem_reg(ctx, &cq->dbr, 8, 8);
	dt_cq_fill_in(ctx, cq, in, log_size);
	cq->obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), cq->out,
					 sizeof(cq->out));
	ck_assert_msg(cq->obj, "CREATE_CQ: %s, status 0x%x, syndrome 0x%x",
		      strerror(errno), DT_OUT_STATUS(cq->out),
		      DT_OUT_SYNDROME(cq->out));
	ck_assert_int_eq(DT_OUT_STATUS(cq->out), 0);
	cq->cqn = PRM_GET(create_cq_out, cq->out, cqn);
}

void dt_cq_destroy(struct dt_cq *cq)
{
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(cq->obj), 0);
	dt_umem_dereg(&cq->buf);
	dt_umem_dereg(&cq->dbr);
}

void dt_cq_query_in(const struct dt_cq *cq, void *in)
{
	memset(in, 0, PRM_ST_SZ_BYTES(query_cq_in));
	PRM_SET(query_cq_in, in, opcode, MLX5_CMD_OP_QUERY_CQ);
	PRM_SET(query_cq_in, in, cqn, cq->cqn);
}

int dt_cq_query(struct dt_cq *cq, void *out, size_t outlen)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];

	dt_cq_query_in(cq, in);
	memset(out, 0, outlen);
	return mlx5dv_devx_obj_query(cq->obj, in, sizeof(in), out, outlen);
}

struct mlx5dv_devx_obj *dt_pd_alloc(struct ibv_context *ctx, uint32_t *pdn)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };
	struct mlx5dv_devx_obj *pd;

	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	pd = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_msg(pd, "ALLOC_PD: %s, status 0x%x, syndrome 0x%x",
		      strerror(errno), DT_OUT_STATUS(out), DT_OUT_SYNDROME(out));
	*pdn = PRM_GET(alloc_pd_out, out, pd);
	return pd;
}
