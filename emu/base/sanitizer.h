/* SPDX-License-Identifier: MIT */
/*
 * Which sanitizer instruments this build, detected one way for gcc
 * (__SANITIZE_*__) and clang (__has_feature).
 *
 * EMU_TSAN: ThreadSanitizer.  It cannot see liburcu's grace periods (the
 * library is not instrumented), so the RCU users annotate them, and it
 * takes SIGSEGV itself, so nothing may rely on recovering from a fault.
 * EMU_ASAN: AddressSanitizer, which must see every access it checks.
 */
#ifndef MLX5EMU_EMU_BASE_SANITIZER_H
#define MLX5EMU_EMU_BASE_SANITIZER_H

#if defined(__SANITIZE_THREAD__)
#define EMU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMU_TSAN 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMU_ASAN 1
#endif
#endif

#endif /* MLX5EMU_EMU_BASE_SANITIZER_H */
