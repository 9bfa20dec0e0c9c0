/* SPDX-License-Identifier: MIT */
/* The process environment, shared by the unit tests (tests/unit/common). */
#ifndef MLX5EMU_TESTS_UNIT_COMMON_UT_ENV_H
#define MLX5EMU_TESTS_UNIT_COMMON_UT_ENV_H

/* Unsets every MLX5EMU_* variable (tests start from the defaults). */
void ut_clear_env(void);

#endif /* MLX5EMU_TESTS_UNIT_COMMON_UT_ENV_H */
