/* SPDX-License-Identifier: MIT */
/*
 * emu/base/bytes.h -- fields of packets and headers at any alignment:
 * big-endian (network order) 16, 32 and 64 bits, and the little-endian
 * 32 bits of the RoCE ICRC.  Header-only; the wire and the packet library
 * read and write frames with them.
 */
#ifndef MLX5EMU_EMU_BASE_BYTES_H
#define MLX5EMU_EMU_BASE_BYTES_H

#include <stdint.h>

static inline uint16_t emu_get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t emu_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t emu_get_be64(const uint8_t *p)
{
	return (uint64_t)emu_get_be32(p) << 32 | emu_get_be32(p + 4);
}

static inline uint32_t emu_get_le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | p[0];
}

static inline void emu_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void emu_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void emu_put_be64(uint8_t *p, uint64_t v)
{
	emu_put_be32(p, (uint32_t)(v >> 32));
	emu_put_be32(p + 4, (uint32_t)v);
}

static inline void emu_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

#endif /* MLX5EMU_EMU_BASE_BYTES_H */
