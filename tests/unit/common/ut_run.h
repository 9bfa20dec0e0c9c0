/* SPDX-License-Identifier: MIT */
/* Running a Check suite, shared by the unit tests (tests/unit/common). */
#ifndef MLX5EMU_TESTS_UNIT_COMMON_UT_RUN_H
#define MLX5EMU_TESTS_UNIT_COMMON_UT_RUN_H

#include <check.h>

/* Runs @s (each test in a child of its own) and frees it; the number of
 * failed tests. */
int ut_run(Suite *s);

/* EMU_TSAN: ThreadSanitizer takes SIGSEGV itself, so tests whose device
 * reads unmapped memory (emu/mem's recovery) cannot run under it. */
#include "emu/base/sanitizer.h"

#endif /* MLX5EMU_TESTS_UNIT_COMMON_UT_RUN_H */
