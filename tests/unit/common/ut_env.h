/* SPDX-License-Identifier: MIT */
/* The process environment, shared by the unit tests (tests/unit/common). */
#ifndef MLX5EMU_TESTS_UNIT_COMMON_UT_ENV_H
#define MLX5EMU_TESTS_UNIT_COMMON_UT_ENV_H

/* Unsets every MLX5EMU_* variable (tests start from the defaults). */
void ut_clear_env(void);

/* CAP_NET_RAW in (@on) or out of the calling thread's effective set
 * (capset): what it was (0 or 1), or -1 when capget/capset failed. */
int ut_net_raw_set(int on);

#endif /* MLX5EMU_TESTS_UNIT_COMMON_UT_ENV_H */
