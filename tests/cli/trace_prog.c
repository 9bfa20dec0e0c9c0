/* SPDX-License-Identifier: MIT */
/*
 * trace_prog: a known command sequence for the command trace's golden test
 * (tests/cli/test_trace_golden.sh), through DEVX as an application issues
 * it:
 *
 *   open mlx5_0 with MLX5DV_CONTEXT_FLAGS_DEVX
 *   QUERY_HCA_CAP (general, current)      mlx5dv_devx_general_cmd
 *   ALLOC_PD                              mlx5dv_devx_obj_create
 *   CREATE_CQ with log_cq_size 16         fails on purpose (EREMOTEIO:
 *     above log_max_cq_sz; on umems, the EQ of vector 0 and a UAR, so it
 *     passes the kernel's DEVX checks and reaches the firmware)
 *   DEALLOC_PD                            mlx5dv_devx_obj_destroy
 *   close
 *
 * Prints one line per step; exits 0 when each behaved as described.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"

static int bad(const char *what, int err)
{
	fprintf(stderr, "trace_prog: %s: %s\n", what, strerror(err));
	return 1;
}

int main(void)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	uint8_t cap_in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t pd_in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t pd_out[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };
	uint8_t cq_in[PRM_ST_SZ_BYTES(create_cq_in)] = { 0 };
	uint8_t cq_out[PRM_ST_SZ_BYTES(create_cq_out)] = { 0 };
	uint8_t *cap_out;
	struct mlx5dv_devx_umem *cq_umem, *dbr_umem;
	struct mlx5dv_devx_obj *pd, *cq;
	struct mlx5dv_devx_uar *uar;
	void *cq_buf, *dbr_buf;
	uint32_t eqn;
	struct ibv_device **list;
	struct ibv_context *ctx;
	int n, ret;

	list = ibv_get_device_list(&n);
	if (!list || n < 1)
		return bad("ibv_get_device_list", list ? ENODEV : errno);
	ctx = mlx5dv_open_device(list[0], &attr);
	ibv_free_device_list(list);
	if (!ctx)
		return bad("mlx5dv_open_device", errno);
	printf("opened mlx5_0 for DEVX\n");

	cap_out = calloc(1, PRM_ST_SZ_BYTES(query_hca_cap_out));
	if (!cap_out)
		return bad("calloc", ENOMEM);
	PRM_SET(query_hca_cap_in, cap_in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, cap_in, op_mod,
		MLX5_CAP_GENERAL << 1 | HCA_CAP_OPMOD_GET_CUR);
	ret = mlx5dv_devx_general_cmd(ctx, cap_in, sizeof(cap_in), cap_out,
				      PRM_ST_SZ_BYTES(query_hca_cap_out));
	if (ret)
		return bad("QUERY_HCA_CAP", ret);
	printf("QUERY_HCA_CAP: log_max_cq_sz %u\n",
	       PRM_GET(query_hca_cap_out, cap_out,
		       capability.cmd_hca_cap.log_max_cq_sz));
	free(cap_out);

	PRM_SET(alloc_pd_in, pd_in, opcode, MLX5_CMD_OP_ALLOC_PD);
	pd = mlx5dv_devx_obj_create(ctx, pd_in, sizeof(pd_in), pd_out,
				    sizeof(pd_out));
	if (!pd)
		return bad("ALLOC_PD", errno);
	printf("ALLOC_PD: pd 0x%x\n", PRM_GET(alloc_pd_out, pd_out, pd));

	if (posix_memalign(&cq_buf, 4096, 4096) || posix_memalign(&dbr_buf, 64, 64))
		return bad("posix_memalign", ENOMEM);
	cq_umem = mlx5dv_devx_umem_reg(ctx, cq_buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	dbr_umem = mlx5dv_devx_umem_reg(ctx, dbr_buf, 64, IBV_ACCESS_LOCAL_WRITE);
	if (!cq_umem || !dbr_umem)
		return bad("mlx5dv_devx_umem_reg", errno);
	ret = mlx5dv_devx_query_eqn(ctx, 0, &eqn);
	if (ret)
		return bad("mlx5dv_devx_query_eqn", ret);
	uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	if (!uar)
		return bad("mlx5dv_devx_alloc_uar", errno);
	PRM_SET(create_cq_in, cq_in, opcode, MLX5_CMD_OP_CREATE_CQ);
	PRM_SET(create_cq_in, cq_in, cq_context.log_cq_size, 16);
	PRM_SET(create_cq_in, cq_in, cq_context.uar_page, uar->page_id);
	PRM_SET(create_cq_in, cq_in, cq_context.c_eqn, eqn);
	PRM_SET(create_cq_in, cq_in, cq_context.dbr_umem_valid, 1);
	PRM_SET(create_cq_in, cq_in, cq_context.dbr_umem_id, dbr_umem->umem_id);
	PRM_SET(create_cq_in, cq_in, cq_umem_valid, 1);
	PRM_SET(create_cq_in, cq_in, cq_umem_id, cq_umem->umem_id);
	cq = mlx5dv_devx_obj_create(ctx, cq_in, sizeof(cq_in), cq_out,
				    sizeof(cq_out));
	if (cq || errno != EREMOTEIO) {
		fprintf(stderr, "trace_prog: CREATE_CQ did not fail with EREMOTEIO\n");
		return 1;
	}
	printf("CREATE_CQ: failed as expected, status 0x%x syndrome 0x%x\n",
	       PRM_GET(create_cq_out, cq_out, status),
	       PRM_GET(create_cq_out, cq_out, syndrome));

	mlx5dv_devx_free_uar(uar);
	if (mlx5dv_devx_umem_dereg(cq_umem) || mlx5dv_devx_umem_dereg(dbr_umem))
		return bad("mlx5dv_devx_umem_dereg", errno);
	free(cq_buf);
	free(dbr_buf);

	ret = mlx5dv_devx_obj_destroy(pd);
	if (ret)
		return bad("DEALLOC_PD", ret);
	printf("DEALLOC_PD: done\n");
	ret = ibv_close_device(ctx);
	if (ret)
		return bad("ibv_close_device", errno);
	return 0;
}
