/* SPDX-License-Identifier: MIT */
/* Little-endian stores and loads at literal offsets: the tests' oracle,
 * independent of prm/prm_le.h. */
#ifndef MLX5EMU_TESTS_UNIT_MANA_BYTES_H
#define MLX5EMU_TESTS_UNIT_MANA_BYTES_H

#include <stdint.h>

static inline void put32le(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put64le(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t get32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

#endif /* MLX5EMU_TESTS_UNIT_MANA_BYTES_H */
