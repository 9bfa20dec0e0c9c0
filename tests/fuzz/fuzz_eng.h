/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz targets that drive a device through the engine suites'
 * driver (tests/unit/engine/eng_test.h) share: MRs whose untouchable bytes
 * are checked after each input, and QPs brought back to RTS before it.
 */
#ifndef MLX5EMU_TESTS_FUZZ_FUZZ_ENG_H
#define MLX5EMU_TESTS_FUZZ_FUZZ_ENG_H

#include "eng_test.h"

#define FUZZ_GUARD 4096u

/* An MR granting every access over @len bytes, a page on each side
 * of it that no mkey covers, all of it filled with a pattern. */
void fuzz_mr_guarded(struct ent_dev *d, struct ent_mr *mr, size_t len);
/* An MR over @len bytes with the access given, filled with a pattern. */
void fuzz_mr_filled(struct ent_dev *d, struct ent_mr *mr, size_t len,
		    unsigned int access, uint32_t umem_access);
/* Aborts, naming @who, if a byte beside a guarded MR or of a filled MR
 * changed. */
void fuzz_check_guarded(const struct ent_mr *mr, const char *who);
void fuzz_check_filled(const struct ent_mr *mr, const char *who);

/* Reset @qp (counters and doorbell record cleared) and walk it to RTS
 * with @c on the device it is on. */
void fuzz_qp_restart(struct ent_qp *qp, const struct ent_conn *c);

#endif /* MLX5EMU_TESTS_FUZZ_FUZZ_ENG_H */
