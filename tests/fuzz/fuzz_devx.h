/* SPDX-License-Identifier: MIT */
/*
 * The input language of the DEVX command fuzzer (fuzz_devx_cmd.c), shared
 * with its seed generator (fuzz_devx_seeds.c).
 *
 * An input is a sequence of operations on one fresh device context.  Each
 * starts with a header (little-endian):
 *
 *     u8 kind   u8 target   u16 inlen   u16 outlen   u8 nfix   u8 flags
 *
 * then nfix fixups of 4 bytes each
 *
 *     u16 bit_off   u8 width   u8 ref
 *
 * then inlen bytes of inbox.  A fixup writes the value that ref names
 * (an object created earlier in this input, a umem, the UAR, the EQ) into
 * the inbox's field at bit_off of width bits, so that mutated inputs keep
 * reaching real objects; one that does not fit is skipped.  target picks
 * the object of a modify, query or destroy (modulo the objects made so
 * far), or the buffer of a umem registration.  What runs out of bytes
 * ends the input.
 */
#ifndef MLX5EMU_TESTS_FUZZ_FUZZ_DEVX_H
#define MLX5EMU_TESTS_FUZZ_FUZZ_DEVX_H

#include <stdint.h>

enum fuzz_kind {
	FUZZ_GENERAL,		/* general_cmd */
	FUZZ_CREATE,		/* obj_create */
	FUZZ_MODIFY,		/* obj_modify on object target */
	FUZZ_QUERY,		/* obj_query on object target */
	FUZZ_QUERY_ASYNC,	/* obj_query_async, then the completion read */
	FUZZ_DESTROY,		/* obj_destroy of object target */
	FUZZ_UMEM_REG,		/* umem_reg of buffer target: inlen pages */
	FUZZ_UMEM_DEREG,	/* umem_dereg of umem target */
	FUZZ_NKINDS
};

/* Values a fixup writes. */
enum {
	FUZZ_REF_OBJ = 0x00,	/* 0x00..0x3f: the id of the Nth object */
	FUZZ_REF_UMEM = 0x80,	/* 0x80..0x8f: the id of the Nth umem */
	FUZZ_REF_UAR = 0xc0,	/* the context's UAR index */
	FUZZ_REF_EQN = 0xc1,	/* the completion EQ (query_eqn 0) */
	FUZZ_REF_UID = 0xc2,	/* the context's uid */
};

#define FUZZ_HDR_BYTES 8
#define FUZZ_FIX_BYTES 4
#define FUZZ_MAX_OPS 64
#define FUZZ_MAX_OBJS 64
#define FUZZ_MAX_UMEMS 16
#define FUZZ_MAX_OUTLEN 8192

/* The buffers umems are registered over, and the first umems of every
 * input: umem 0 (queues), 1 (doorbell records), 2 (spare). */
#define FUZZ_NBUFS 3
#define FUZZ_BUF_BYTES (256u * 1024)

#endif /* MLX5EMU_TESTS_FUZZ_FUZZ_DEVX_H */
