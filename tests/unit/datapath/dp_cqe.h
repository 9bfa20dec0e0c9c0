/* SPDX-License-Identifier: MIT */
/*
 * Byte images from literal offsets, for the data path tests that run as
 * drop-in programs (dp_test.c) and those inside the core: big-endian
 * stores, a byte-by-byte comparison, and a CQE written into a ring as the
 * device writes it.
 */
#ifndef MLX5EMU_TESTS_UNIT_DATAPATH_DP_CQE_H
#define MLX5EMU_TESTS_UNIT_DATAPATH_DP_CQE_H

#include <stddef.h>
#include <stdint.h>

/* Big-endian stores into an image. */
void dp_be16(uint8_t *b, size_t off, uint16_t v);
void dp_be32(uint8_t *b, size_t off, uint32_t v);
void dp_be64(uint8_t *b, size_t off, uint64_t v);

/* Asserts @len bytes at @got equal @want, naming the first difference. */
void dp_expect_bytes(const void *got, const void *want, size_t len,
		     const char *what);

/*
 * Writes CQE number @pi into a ring of @cqe_cnt entries of @cqe_size
 * bytes as the device does (fields at their literal offsets in the
 * 64-byte CQE, op_own last with the owner bit of its pass): @opcode
 * (MLX5_CQE_*), @uidx, @qpn, the WQE opcode @wqe_op (requester CQEs),
 * @wqe_counter.  Returns the 64-byte CQE (the second half of a 128-byte
 * entry) for the caller to fill in more before it polls.
 */
uint8_t *dp_cqe_write(void *ring, uint32_t cqe_cnt, uint32_t cqe_size,
		      uint32_t pi, uint8_t opcode, uint32_t uidx, uint32_t qpn,
		      uint8_t wqe_op, uint16_t wqe_counter);

#endif /* MLX5EMU_TESTS_UNIT_DATAPATH_DP_CQE_H */
