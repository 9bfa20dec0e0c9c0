/* SPDX-License-Identifier: MIT */
/*
 * rdma-core calls shared by the unit tests that are ordinary programs
 * linked against the drop-in libibverbs.so.1/libmlx5.so.1 (devx/, verbs/,
 * query/); tests/unit/common.
 */
#ifndef MLX5EMU_TESTS_UNIT_COMMON_UT_DROPIN_H
#define MLX5EMU_TESTS_UNIT_COMMON_UT_DROPIN_H

#include <stdbool.h>

#include <infiniband/verbs.h>

/* Opens mlx5_0 (with MLX5DV_CONTEXT_FLAGS_DEVX if @devx); asserts. */
struct ibv_context *ut_open(bool devx);

/* QUERY_HCA_CAP (type, current) through DEVX into @out, a zeroed
 * query_hca_cap_out; the errno of mlx5dv_devx_general_cmd. */
int ut_query_hca_cap(struct ibv_context *ctx, unsigned int type, void *out);

#endif /* MLX5EMU_TESTS_UNIT_COMMON_UT_DROPIN_H */
