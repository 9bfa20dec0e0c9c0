/* SPDX-License-Identifier: MIT */
/*
 * The input of fuzz_wqe, shared with its seed writer:
 *
 *   byte 0          the victim's transport (FQ_RC, FQ_UC, FQ_UD) and the
 *                   fixups (FQ_FIX_*)
 *   byte 1          the send doorbell record's counter: how many WQE basic
 *                   blocks the input announces (any value, the ring's size
 *                   or not)
 *   then            the send queue's bytes from its first basic block
 *                   (at most FQ_SQ_BYTES; the rest of the ring is zero)
 *
 * Keys and addresses cannot be guessed, so the fixups put real ones where
 * the input leaves a marker:
 *   FQ_FIX_KEYS     every aligned big-endian word FQ_KEY_MARK | k becomes
 *                   key k % 4: the MR's, the read-only MR's, a key of
 *                   another protection domain, no key at all; every aligned
 *                   big-endian 64-bit word (FQ_ADDR_MARK << 32) | v becomes
 *                   an address in the MR (bit 24 of v clear) or the
 *                   read-only MR (set), at offset (v & 0xffffff) modulo
 *                   its length
 *   FQ_FIX_CTRL     each WQE's control segment gets its counter and the
 *                   victim's QPN (WQEs walked by their DS counts)
 *   FQ_FIX_AV       each UD WQE's address vector gets the peer's QPN, the
 *                   Q_Key and the device's own GID
 */
#ifndef MLX5EMU_TESTS_FUZZ_FUZZ_WQE_H
#define MLX5EMU_TESTS_FUZZ_FUZZ_WQE_H

enum {
	FQ_RC = 0,
	FQ_UC = 1,
	FQ_UD = 2,
	FQ_TYPE_MASK = 3,	/* 3: RC as well */
	FQ_FIX_CTRL = 1 << 2,
	FQ_FIX_KEYS = 1 << 3,
	FQ_FIX_AV = 1 << 4,
};

#define FQ_LOG_SQ 4			/* 16 basic blocks of 64 bytes */
#define FQ_SQ_BYTES (64u << FQ_LOG_SQ)
#define FQ_KEY_MARK 0xeeeeee00u		/* low byte: which key */
#define FQ_ADDR_MARK 0xadd0add0u	/* high word of an address */
#define FQ_QKEY 0x11111111u

#endif /* MLX5EMU_TESTS_FUZZ_FUZZ_WQE_H */
