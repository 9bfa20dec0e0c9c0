/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the DEVX tests.  The tests are ordinary rdma-core
 * programs linked against the drop-in libibverbs.so.1/libmlx5.so.1; PRM
 * mailboxes are built with prm/prm.h, syndromes come from the one table.
 */
#ifndef MLX5EMU_TESTS_UNIT_DEVX_DEVX_TEST_H
#define MLX5EMU_TESTS_UNIT_DEVX_DEVX_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <check.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "ut_dropin.h"

/* Firmware syndromes by name (prm/syndromes.def). */
enum dt_synd {
#define FW_SYND(id, val, st, txt, src) DT_SYND_##id = (val),
#include "prm/syndromes.def"
#undef FW_SYND
};

#define DT_OUT_STATUS(out) PRM_GET(mbox_out, (out), status)
#define DT_OUT_SYNDROME(out) PRM_GET(mbox_out, (out), syndrome)

/* Opens mlx5_0: with MLX5DV_CONTEXT_FLAGS_DEVX, or plain ibv_open_device. */
static inline struct ibv_context *dt_open(bool devx)
{
	return ut_open(devx);
}

/* QUERY_HCA_CAP general (current) into a caller buffer of DT_CAP_OUTLEN. */
#define DT_CAP_OUTLEN PRM_ST_SZ_BYTES(query_hca_cap_out)
static inline int dt_query_gen_caps(struct ibv_context *ctx, void *out)
{
	return ut_query_hca_cap(ctx, MLX5_CAP_GENERAL, out);
}
#define DT_CAP(out, fld) \
	PRM_GET(query_hca_cap_out, (out), capability.cmd_hca_cap.fld)

/* Page-aligned (or 8-aligned when small) zeroed memory, registered as umem. */
struct dt_umem {
	void *buf;
	size_t size;
	struct mlx5dv_devx_umem *umem;
};
void dt_umem_reg(struct ibv_context *ctx, struct dt_umem *m, size_t size,
		 size_t align);
/* The same with @access (dt_umem_reg: IBV_ACCESS_LOCAL_WRITE). */
void dt_umem_reg_access(struct ibv_context *ctx, struct dt_umem *m,
			size_t size, size_t align, uint32_t access);
void dt_umem_dereg(struct dt_umem *m);

/* A DEVX CQ: buffer and doorbell umems, NC UAR, EQ of vector 0. */
struct dt_cq {
	struct dt_umem buf, dbr;
	struct mlx5dv_devx_obj *obj;
	uint32_t cqn, eqn, uar_page;
	unsigned int log_size;
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)];
};
/* Fills create_cq_in for @cq (umems already registered). */
void dt_cq_fill_in(struct ibv_context *ctx, struct dt_cq *cq, void *in,
		   unsigned int log_size);
/* Creates it; ck_assert()s success. */
void dt_cq_create(struct ibv_context *ctx, struct dt_cq *cq, unsigned int log_size);
void dt_cq_destroy(struct dt_cq *cq);
/* QUERY_CQ in/out of @cq. */
int dt_cq_query(struct dt_cq *cq, void *out, size_t outlen);
void dt_cq_query_in(const struct dt_cq *cq, void *in);

/* A DEVX PD (ALLOC_PD as an object). */
struct mlx5dv_devx_obj *dt_pd_alloc(struct ibv_context *ctx, uint32_t *pdn);

#endif /* MLX5EMU_TESTS_UNIT_DEVX_DEVX_TEST_H */
