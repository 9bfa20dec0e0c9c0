/* SPDX-License-Identifier: MIT */
/*
 * prm/prm_le.h -- bit-exact, little-endian accessors for the layouts a .prm
 * file marks `le` (MANA/GDMA: queue entries, doorbells, control messages).
 *
 * Same shape rules and compile-time checks as prm/prm.h, over
 * struct prm_le_<name>_bits: a field's bit offset counts from the least
 * significant bit of its little-endian dword (as the C bit fields of the
 * kernel's include/net/mana/gdma.h lay out on a little-endian CPU), 64-bit
 * fields are little-endian qwords.  The mlx5 (big-endian) layouts are named
 * struct prm_<name>_bits, so using one family of accessors on the other's
 * layouts fails to compile.
 *
 *   PRM_LE_SET/PRM_LE_GET      scalars of at most 32 bits inside one dword
 *   PRM_LE_SET64/PRM_LE_GET64  64-bit aligned 64-bit fields
 *   PRM_LE_ADDR_OF             byte-aligned fields, nested structs, arrays
 */
#ifndef MLX5EMU_PRM_PRM_LE_H
#define MLX5EMU_PRM_PRM_LE_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "prm/prm.h"

#define PRM_LE_NULLP(typ) ((struct prm_le_##typ##_bits *)0)
#define PRM_LE_BIT_OFF(typ, fld) ((uint32_t)offsetof(struct prm_le_##typ##_bits, fld))
#define PRM_LE_BIT_SZ(typ, fld) ((uint32_t)sizeof(PRM_LE_NULLP(typ)->fld))
#define PRM_LE_ST_SZ_BYTES(typ) ((uint32_t)sizeof(struct prm_le_##typ##_bits) / 8)
#define PRM_LE_BYTE_OFF(typ, fld) \
	(PRM_BUILD_CHECK(PRM_LE_BIT_OFF(typ, fld) % 8 == 0, \
			 #typ "." #fld ": not byte aligned") + PRM_LE_BIT_OFF(typ, fld) / 8)

#define PRM_LE_CHECK_32(typ, fld) \
	PRM_BUILD_CHECK(PRM_LE_BIT_SZ(typ, fld) <= 32 && \
			PRM_LE_BIT_OFF(typ, fld) / 32 == \
			(PRM_LE_BIT_OFF(typ, fld) + PRM_LE_BIT_SZ(typ, fld) - 1) / 32, \
			#typ "." #fld ": not a scalar of <= 32 bits within one dword")
#define PRM_LE_CHECK_64(typ, fld) \
	PRM_BUILD_CHECK(PRM_LE_BIT_SZ(typ, fld) == 64 && PRM_LE_BIT_OFF(typ, fld) % 64 == 0, \
			#typ "." #fld ": not a 64-bit aligned 64-bit field")

static inline uint32_t prm_le_get32_(const void *p, uint32_t off, uint32_t sz)
{
	uint32_t w;

	memcpy(&w, (const uint8_t *)p + off / 32 * 4, sizeof(w));
	w = le32toh(w) >> (off & 31);
	return sz == 32 ? w : w & ((UINT32_C(1) << sz) - 1);
}

static inline void prm_le_set32_(void *p, uint32_t off, uint32_t sz, uint32_t v)
{
	uint8_t *dw = (uint8_t *)p + off / 32 * 4;
	uint32_t shift = off & 31;
	uint32_t mask = (sz == 32 ? UINT32_MAX : (UINT32_C(1) << sz) - 1) << shift;
	uint32_t w;

	memcpy(&w, dw, sizeof(w));
	w = (le32toh(w) & ~mask) | ((v << shift) & mask);
	w = htole32(w);
	memcpy(dw, &w, sizeof(w));
}

static inline uint64_t prm_le_get64_(const void *p, uint32_t off)
{
	uint64_t q;

	memcpy(&q, (const uint8_t *)p + off / 8, sizeof(q));
	return le64toh(q);
}

static inline void prm_le_set64_(void *p, uint32_t off, uint64_t v)
{
	uint64_t q = htole64(v);

	memcpy((uint8_t *)p + off / 8, &q, sizeof(q));
}

#define PRM_LE_SET(typ, p, fld, v) \
	prm_le_set32_((p), PRM_LE_BIT_OFF(typ, fld) + (uint32_t)PRM_LE_CHECK_32(typ, fld), \
		      PRM_LE_BIT_SZ(typ, fld), (uint32_t)(v))
#define PRM_LE_GET(typ, p, fld) \
	prm_le_get32_((p), PRM_LE_BIT_OFF(typ, fld) + (uint32_t)PRM_LE_CHECK_32(typ, fld), \
		      PRM_LE_BIT_SZ(typ, fld))
#define PRM_LE_SET64(typ, p, fld, v) \
	prm_le_set64_((p), PRM_LE_BIT_OFF(typ, fld) + (uint32_t)PRM_LE_CHECK_64(typ, fld), \
		      (uint64_t)(v))
#define PRM_LE_GET64(typ, p, fld) \
	prm_le_get64_((p), PRM_LE_BIT_OFF(typ, fld) + (uint32_t)PRM_LE_CHECK_64(typ, fld))
#define PRM_LE_ADDR_OF(typ, p, fld) \
	((void *)((uint8_t *)(p) + PRM_LE_BYTE_OFF(typ, fld)))

#endif /* MLX5EMU_PRM_PRM_LE_H */
