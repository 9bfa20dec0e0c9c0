/* SPDX-License-Identifier: MIT */
/* Integer helpers for queue sizing and log2 fields, one copy for the provider. */
#ifndef MLX5EMU_PROVIDER_CORE_BITS_H
#define MLX5EMU_PROVIDER_CORE_BITS_H

#include <stddef.h>
#include <stdint.h>

/* The smallest power of two >= @v (1 for 0). */
static inline uint64_t prov_roundup_pow2(uint64_t v)
{
	uint64_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

/* @v rounded up to a multiple of @a, a power of two (rdma-core's align()). */
static inline size_t prov_align(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* rdma-core's ilog32(): the bits needed for @v (0 for 0). */
static inline unsigned int prov_ilog32(uint32_t v)
{
	unsigned int l = 0;

	while (v) {
		l++;
		v >>= 1;
	}
	return l;
}

/* The floor of log2(@v), 0 for 0. */
static inline unsigned int prov_log2_floor(uint32_t v)
{
	return v ? prov_ilog32(v) - 1 : 0;
}

#endif /* MLX5EMU_PROVIDER_CORE_BITS_H */
