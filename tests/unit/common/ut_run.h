/* SPDX-License-Identifier: MIT */
/* Running a Check suite, shared by the unit tests (tests/unit/common). */
#ifndef MLX5EMU_TESTS_UNIT_COMMON_UT_RUN_H
#define MLX5EMU_TESTS_UNIT_COMMON_UT_RUN_H

#include <check.h>

/* Runs @s (normal output) and returns the number of failed tests. */
int ut_run(Suite *s);

#endif /* MLX5EMU_TESTS_UNIT_COMMON_UT_RUN_H */
