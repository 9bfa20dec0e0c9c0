/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the verbs object tests: ordinary rdma-core programs
 * linked against the drop-in libibverbs.so.1/libmlx5.so.1.
 */
#ifndef MLX5EMU_TESTS_UNIT_VERBS_VERBS_TEST_H
#define MLX5EMU_TESTS_UNIT_VERBS_VERBS_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <check.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "ut_dropin.h"

/* Opens mlx5_0 (with MLX5DV_CONTEXT_FLAGS_DEVX if @devx); asserts. */
static inline struct ibv_context *vt_open(bool devx)
{
	return ut_open(devx);
}

/* ibv_query_device's max_cqe. */
int vt_max_cqe(struct ibv_context *ctx);

/* 1 << log_max_cq_sz read through DEVX (QUERY_HCA_CAP general, current). */
uint32_t vt_cap_max_cq_sz(struct ibv_context *ctx);

/*
 * Creates a DEVX mkey (CREATE_MKEY over a fresh umem of @len bytes) in PD
 * @pdn; returns the errno of mlx5dv_devx_obj_create (0 on success, then
 * destroys it again) and the outbox syndrome in *@syndrome.
 */
int vt_devx_mkey_in_pd(struct ibv_context *ctx, uint32_t pdn, uint32_t *syndrome);

/* The pdn of @pd through mlx5dv_init_obj. */
uint32_t vt_pdn(struct ibv_pd *pd);

/* Page-aligned memory of @len bytes (free() it). */
void *vt_alloc(size_t len);

/* Whether the suite runs on the hw backend (MLX5EMU_BACKEND=hw). */
bool vt_backend_hw(void);

/* Runs @s and returns the number of failures. */
int vt_run(Suite *s);

#endif /* MLX5EMU_TESTS_UNIT_VERBS_VERBS_TEST_H */
