/*
 * prm/prm.h -- bit-exact, big-endian accessors for the mlx5 PRM layouts.
 *
 * The layouts (struct prm_<name>_bits, one uint8_t per bit, generated from
 * prm/defs/<topic>.prm) are never instantiated; they only give offsets and widths
 * to these macros, as mlx5_ifc.h does for the kernel's MLX5_SET/MLX5_GET and
 * rdma-core's DEVX_SET/DEVX_GET.  Unlike DEVX_*, misuse fails to compile:
 *
 *   PRM_SET/PRM_GET      scalar fields of at most 32 bits inside one dword
 *   PRM_SET64/PRM_GET64  64-bit fields, 64-bit aligned
 *   PRM_ADDR_OF          byte-aligned fields, nested structs and arrays
 *   PRM_FLD_SZ_BYTES     fields that are a whole number of bytes
 *
 * `typ` is a struct name without prefix (create_cq_in), `fld` a member
 * designator that may descend into nested structs and index arrays with a
 * constant (cq_context.log_cq_size, rgid_rip[3]).  For a variable index use
 * PRM_ARRAY_ADDR and access the element with its own type.
 *
 * Buffers are plain memory in PRM (big-endian) byte order; no alignment is
 * required.  Setters mask the value to the field width.
 */
#ifndef MLX5EMU_PRM_PRM_H
#define MLX5EMU_PRM_PRM_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "prm/prm_layouts.h"

#define PRM_NULLP(typ) ((struct prm_##typ##_bits *)0)

/* An integer constant expression that is 0, or a compile error with msg. */
#define PRM_BUILD_CHECK(cond, msg) \
	(0 * sizeof(struct { _Static_assert(cond, msg); int prm_unused_; }))

#define PRM_BIT_OFF(typ, fld) ((uint32_t)offsetof(struct prm_##typ##_bits, fld))
#define PRM_BIT_SZ(typ, fld) ((uint32_t)sizeof(PRM_NULLP(typ)->fld))
#define PRM_ST_SZ_BITS(typ) ((uint32_t)sizeof(struct prm_##typ##_bits))
#define PRM_ST_SZ_BYTES(typ) (PRM_ST_SZ_BITS(typ) / 8)
#define PRM_ST_SZ_DW(typ) (PRM_ST_SZ_BITS(typ) / 32)
#define PRM_ST_SZ_QW(typ) (PRM_ST_SZ_BITS(typ) / 64)
#define PRM_BYTE_OFF(typ, fld) \
	(PRM_BUILD_CHECK(PRM_BIT_OFF(typ, fld) % 8 == 0, \
			 #typ "." #fld ": not byte aligned") + PRM_BIT_OFF(typ, fld) / 8)
#define PRM_FLD_SZ_BYTES(typ, fld) \
	(PRM_BUILD_CHECK(PRM_BIT_SZ(typ, fld) % 8 == 0, \
			 #typ "." #fld ": not a whole number of bytes") + PRM_BIT_SZ(typ, fld) / 8)

/* Compile-time shape checks used by the accessors. */
#define PRM_CHECK_32(typ, fld) \
	PRM_BUILD_CHECK(PRM_BIT_SZ(typ, fld) <= 32 && \
			PRM_BIT_OFF(typ, fld) / 32 == \
			(PRM_BIT_OFF(typ, fld) + PRM_BIT_SZ(typ, fld) - 1) / 32, \
			#typ "." #fld ": not a scalar of <= 32 bits within one dword (use PRM_*64 or PRM_ADDR_OF)")
#define PRM_CHECK_64(typ, fld) \
	PRM_BUILD_CHECK(PRM_BIT_SZ(typ, fld) == 64 && PRM_BIT_OFF(typ, fld) % 64 == 0, \
			#typ "." #fld ": not a 64-bit aligned 64-bit field")

static inline uint32_t prm_get32_(const void *p, uint32_t off, uint32_t sz)
{
	uint32_t w;

	memcpy(&w, (const uint8_t *)p + off / 32 * 4, sizeof(w));
	w = be32toh(w) >> (32 - sz - (off & 31));
	return sz == 32 ? w : w & ((UINT32_C(1) << sz) - 1);
}

static inline void prm_set32_(void *p, uint32_t off, uint32_t sz, uint32_t v)
{
	uint8_t *dw = (uint8_t *)p + off / 32 * 4;
	uint32_t shift = 32 - sz - (off & 31);
	uint32_t mask = (sz == 32 ? UINT32_MAX : (UINT32_C(1) << sz) - 1) << shift;
	uint32_t w;

	memcpy(&w, dw, sizeof(w));
	w = (be32toh(w) & ~mask) | ((v << shift) & mask);
	w = htobe32(w);
	memcpy(dw, &w, sizeof(w));
}

static inline uint64_t prm_get64_(const void *p, uint32_t off)
{
	uint64_t q;

	memcpy(&q, (const uint8_t *)p + off / 8, sizeof(q));
	return be64toh(q);
}

static inline void prm_set64_(void *p, uint32_t off, uint64_t v)
{
	uint64_t q = htobe64(v);

	memcpy((uint8_t *)p + off / 8, &q, sizeof(q));
}

#define PRM_SET(typ, p, fld, v) \
	prm_set32_((p), PRM_BIT_OFF(typ, fld) + (uint32_t)PRM_CHECK_32(typ, fld), \
		   PRM_BIT_SZ(typ, fld), (uint32_t)(v))
#define PRM_GET(typ, p, fld) \
	prm_get32_((p), PRM_BIT_OFF(typ, fld) + (uint32_t)PRM_CHECK_32(typ, fld), \
		   PRM_BIT_SZ(typ, fld))
#define PRM_SET64(typ, p, fld, v) \
	prm_set64_((p), PRM_BIT_OFF(typ, fld) + (uint32_t)PRM_CHECK_64(typ, fld), \
		   (uint64_t)(v))
#define PRM_GET64(typ, p, fld) \
	prm_get64_((p), PRM_BIT_OFF(typ, fld) + (uint32_t)PRM_CHECK_64(typ, fld))

/* Byte address of a byte-aligned field, nested struct or array (void *). */
#define PRM_ADDR_OF(typ, p, fld) \
	((void *)((uint8_t *)(p) + PRM_BYTE_OFF(typ, fld)))

/* Byte address of element idx (any integer expression) of array fld. */
#define PRM_ARRAY_ADDR(typ, p, fld, idx) \
	((void *)((uint8_t *)(p) + PRM_BYTE_OFF(typ, fld) + \
		  PRM_BUILD_CHECK(sizeof(PRM_NULLP(typ)->fld[0]) % 8 == 0, \
				  #typ "." #fld ": elements not whole bytes") + \
		  (size_t)(idx) * (sizeof(PRM_NULLP(typ)->fld[0]) / 8)))

/* Element size of array fld, in bytes. */
#define PRM_ARRAY_ELEM_BYTES(typ, fld) ((uint32_t)sizeof(PRM_NULLP(typ)->fld[0]) / 8)

#endif /* MLX5EMU_PRM_PRM_H */
