/* SPDX-License-Identifier: MIT */
/* Shared helpers of the verbs object tests (see verbs_test.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ut_run.h"
#include "verbs_test.h"

int vt_max_cqe(struct ibv_context *ctx)
{
	struct ibv_device_attr attr;

	ck_assert_int_eq(ibv_query_device(ctx, &attr), 0);
	return attr.max_cqe;
}

uint32_t vt_cap_max_cq_sz(struct ibv_context *ctx)
{
	uint8_t *out = calloc(1, PRM_ST_SZ_BYTES(query_hca_cap_out));
	uint32_t log;

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(ut_query_hca_cap(ctx, MLX5_CAP_GENERAL, out), 0);
	log = PRM_GET(query_hca_cap_out, out, capability.cmd_hca_cap.log_max_cq_sz);
	free(out);
	return UINT32_C(1) << log;
}

int vt_devx_mkey_in_pd(struct ibv_context *ctx, uint32_t pdn, uint32_t *syndrome)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_mkey_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_mkey_out)] = { 0 };
	void *mkc = PRM_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	struct mlx5dv_devx_umem *umem;
	struct mlx5dv_devx_obj *obj;
	void *buf = vt_alloc(4096);
	int err = 0;

	umem = mlx5dv_devx_umem_reg(ctx, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(umem);
	PRM_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	PRM_SET(create_mkey_in, in, mkey_umem_valid, 1);
	PRM_SET(create_mkey_in, in, mkey_umem_id, umem->umem_id);
	PRM_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
	PRM_SET(mkc, mkc, lr, 1);
	PRM_SET(mkc, mkc, lw, 1);
	PRM_SET(mkc, mkc, qpn, 0xffffff);
	PRM_SET(mkc, mkc, pd, pdn);
	PRM_SET64(mkc, mkc, start_addr, (uintptr_t)buf);
	PRM_SET64(mkc, mkc, len, 4096);
	obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	if (!obj)
		err = errno;
	*syndrome = PRM_GET(mbox_out, out, syndrome);
	if (obj)
		ck_assert_int_eq(mlx5dv_devx_obj_destroy(obj), 0);
	ck_assert_int_eq(mlx5dv_devx_umem_dereg(umem), 0);
	free(buf);
	return err;
}

uint32_t vt_pdn(struct ibv_pd *pd)
{
	struct mlx5dv_pd dvpd = { 0 };
	struct mlx5dv_obj obj = { .pd = { .in = pd, .out = &dvpd } };

	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD), 0);
	return dvpd.pdn;
}

void *vt_alloc(size_t len)
{
	void *p = NULL;

	ck_assert_int_eq(posix_memalign(&p, 4096, len), 0);
	memset(p, 0, len);
	return p;
}

int vt_run(Suite *s)
{
	return ut_run(s);
}

bool vt_backend_hw(void)
{
	const char *be = getenv("MLX5EMU_BACKEND");

	return be && !strcmp(be, "hw");
}
