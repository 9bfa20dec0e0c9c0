/* SPDX-License-Identifier: MIT */
/* Running a Check suite, shared by the unit tests (tests/unit/common). */
#ifndef MLX5EMU_TESTS_UNIT_COMMON_UT_RUN_H
#define MLX5EMU_TESTS_UNIT_COMMON_UT_RUN_H

#include <check.h>

/* Runs @s (each test in a child of its own) and frees it; the number of
 * failed tests. */
int ut_run(Suite *s);

/* Defined under ThreadSanitizer, which takes SIGSEGV itself: tests whose
 * device reads unmapped memory (emu/mem's recovery) cannot run there. */
#if defined(__SANITIZE_THREAD__)
#define UT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UT_TSAN 1
#endif
#endif

#endif /* MLX5EMU_TESTS_UNIT_COMMON_UT_RUN_H */
