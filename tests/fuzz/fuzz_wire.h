/* SPDX-License-Identifier: MIT */
/*
 * The input of fuzz_wire, shared with its seed writer:
 *
 *   byte 0          fixups (FW_FIX_*), applied to every frame, and how
 *                   the frames come (FW_TRUSTED, FW_FILTER)
 *   byte 1          with FW_FILTER only: the filter's verdicts, two bits
 *                   per received frame (pass, drop, duplicate, corrupt),
 *                   the first frame's in the low bits, every 4th again
 *   then frames     [length: 2 bytes, little-endian][that many bytes]...
 *                   (at most FW_MAX_FRAMES; a short last one is cut)
 *
 * Each frame is an Ethernet frame (RoCE v2 over IPv4 or IPv6, or RoCE v1)
 * that the harness wraps in a VXLAN header of the port's VNI.  The fixups
 * let a mutated frame still reach the transport: a checksum or a QPN
 * cannot be guessed.
 */
#ifndef MLX5EMU_TESTS_FUZZ_FUZZ_WIRE_H
#define MLX5EMU_TESTS_FUZZ_FUZZ_WIRE_H

enum {
	FW_FIX_QP_RC = 1 << 0,	/* BTH destination QP: the RC QP */
	FW_FIX_QP_UD = 1 << 1,	/* ... the UD QP (both: left alone) */
	FW_FIX_KEYS = 1 << 2,	/* RETH/AtomicETH: the MR's key, va in it */
	FW_FIX_CSUM = 1 << 3,	/* IPv4 header checksum and ICRC computed */
	FW_TRUSTED = 1 << 4,	/* lent, ICRC left for later (the fast
				 * path's datagrams), else copied */
	FW_FILTER = 1 << 5,	/* a frame filter (fault rules) acts */
};

#define FW_MAX_FRAMES 8
#define FW_RQ_PSN 0x100		/* the RC QP's expected PSN after a reset */
#define FW_QKEY 0x11111111u	/* the UD QP's */
#define FW_VNI 0x4242		/* the port's */

#endif /* MLX5EMU_TESTS_FUZZ_FUZZ_WIRE_H */
