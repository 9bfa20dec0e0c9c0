/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include <check.h>
#include <infiniband/mlx5dv.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"

#include "ut_dropin.h"

struct ibv_context *ut_open(bool devx)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int n;

	list = ibv_get_device_list(&n);
	ck_assert_msg(list, "ibv_get_device_list: %s", strerror(errno));
	for (int i = 0; i < n && !ctx; i++) {
		if (strcmp(ibv_get_device_name(list[i]), "mlx5_0"))
			continue;
		ctx = devx ? mlx5dv_open_device(list[i], &attr) :
			     ibv_open_device(list[i]);
		ck_assert_msg(ctx, "opening mlx5_0: %s", strerror(errno));
	}
	ibv_free_device_list(list);
	ck_assert_msg(ctx, "no mlx5_0 among %d devices", n);
	return ctx;
}

int ut_query_hca_cap(struct ibv_context *ctx, unsigned int type, void *out)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };

	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, (type << 1) | HCA_CAP_OPMOD_GET_CUR);
	memset(out, 0, PRM_ST_SZ_BYTES(query_hca_cap_out));
	return mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out,
				       PRM_ST_SZ_BYTES(query_hca_cap_out));
}
