/* SPDX-License-Identifier: MIT */
/*
 * The core's entry points, shared by the unit tests linked with the internal
 * library that look inside a context (query/test_query_caps.c,
 * verbs/test_verbs_internal.c); tests/unit/common.
 */
#ifndef MLX5EMU_TESTS_UNIT_COMMON_UT_CORE_H
#define MLX5EMU_TESTS_UNIT_COMMON_UT_CORE_H

struct ibv_context;

/* Opens the first device through the core's ibv_open_device; asserts. */
struct ibv_context *ut_core_open(void);
/* Closes it through the core's ibv_close_device; asserts. */
void ut_core_close(struct ibv_context *ctx);

#endif /* MLX5EMU_TESTS_UNIT_COMMON_UT_CORE_H */
