/* SPDX-License-Identifier: MIT */
/* The MANA queue engines' tests: WQEs and frames written at literal
 * offsets, a memory-key table, an independent Internet checksum, CQE
 * fields read back at literal offsets. */
#ifndef MLX5EMU_TESTS_UNIT_MANA_QTEST_H
#define MLX5EMU_TESTS_UNIT_MANA_QTEST_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "emu/mana/mana_queue.h"

#include "mana_bytes.h"

/* ---- memory keys: a small table of regions ---- */

struct qt_mr {
	uint32_t lkey;
	uint64_t addr, len;
	bool write;
};

struct qt_mrs {
	struct qt_mr mr[8];
	unsigned int n;
};

static inline int qt_check(void *arg, uint32_t lkey, uint64_t addr, uint64_t len,
			   bool write)
{
	const struct qt_mrs *t = arg;

	for (unsigned int i = 0; i < t->n; i++) {
		const struct qt_mr *m = &t->mr[i];

		if (m->lkey != lkey)
			continue;
		if (addr < m->addr || addr + len > m->addr + m->len)
			return -ERANGE;
		return write && !m->write ? -EACCES : 0;
	}
	return -ENOENT;
}

static inline void qt_mr_add(struct qt_mrs *t, uint32_t lkey, const void *p,
			     uint64_t len, bool write)
{
	t->mr[t->n++] = (struct qt_mr){ lkey, (uint64_t)(uintptr_t)p, len, write };
}

/* ---- WQEs ---- */

struct qt_sge {
	uint64_t addr;
	uint32_t key, size;
};

/* Write a WQE at the producer's byte counter *prod of a ring of size
 * bytes (the SGL wraps as the hardware's does); returns its offset. */
static inline uint32_t qt_post(uint8_t *ring, uint32_t size, uint32_t *prod,
			       const uint32_t *oob, unsigned int oob_dw,
			       uint32_t cdu, const struct qt_sge *sge,
			       unsigned int nsge)
{
	uint32_t off = *prod & (size - 1);
	uint32_t bytes = 8 + oob_dw * 4 + nsge * 16;

	put32le(ring + off, 0);
	put32le(ring + off + 4, nsge | (oob_dw == 6 ? 6u : 2u) << 8 | cdu << 16);
	for (unsigned int i = 0; i < oob_dw; i++)
		put32le(ring + off + 8 + 4 * i, oob[i]);
	for (unsigned int i = 0; i < nsge; i++) {
		uint32_t o = (off + 8 + oob_dw * 4 + 16 * i) & (size - 1);

		put64le(ring + o, sge[i].addr);
		put32le(ring + o + 8, sge[i].key);
		put32le(ring + o + 12, sge[i].size);
	}
	*prod += (bytes + 31) / 32 * 32;
	return off;
}

static inline struct qt_sge qt_sge_of(const void *p, uint32_t key, uint32_t size)
{
	return (struct qt_sge){ (uint64_t)(uintptr_t)p, key, size };
}

/* ---- checksums, computed the textbook way (RFC 1071, big-endian words) ---- */

static inline uint32_t qt_sum(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static inline uint16_t qt_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static inline uint16_t qt_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t qt_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void qt_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void qt_put32(uint8_t *p, uint32_t v)
{
	qt_put16(p, (uint16_t)(v >> 16));
	qt_put16(p + 2, (uint16_t)v);
}

/* IPv4 pseudo header sum of an IPv4 packet at ip for l4len bytes. */
static inline uint32_t qt_pseudo4(const uint8_t *ip, uint8_t proto, uint32_t l4len)
{
	return qt_sum(0, ip + 12, 8) + proto + l4len;
}

/*
 * An Ethernet + IPv4 (20 B) + TCP (20 B) or UDP (8 B) frame with plen
 * payload bytes (i * 7 + 3); checksums: IPv4 0, L4 seeded with the pseudo
 * header's sum (CHECKSUM_PARTIAL).  Returns the length.
 */
static inline uint32_t qt_frame4(uint8_t *f, bool tcp, uint32_t plen)
{
	uint32_t l4h = tcp ? 20 : 8, l4len = l4h + plen, len = 34 + l4len;
	uint8_t *ip = f + 14, *l4 = f + 34;

	memset(f, 0, 34 + l4h);
	memcpy(f, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02\x08\x00", 14);
	ip[0] = 0x45;
	qt_put16(ip + 2, (uint16_t)(20 + l4len));
	qt_put16(ip + 4, 0x1234);
	ip[8] = 64;
	ip[9] = tcp ? 6 : 17;
	memcpy(ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	qt_put16(l4, 1000);
	qt_put16(l4 + 2, 2000);
	if (tcp) {
		qt_put32(l4 + 4, 1000);		/* seq */
		l4[12] = 5 << 4;
		l4[13] = 0x18;			/* ACK PSH */
		qt_put16(l4 + 14, 65535);
		qt_put16(l4 + 16, qt_fold(qt_pseudo4(ip, 6, l4len)));
	} else {
		qt_put16(l4 + 4, (uint16_t)l4len);
		qt_put16(l4 + 6, qt_fold(qt_pseudo4(ip, 17, l4len)));
	}
	for (uint32_t i = 0; i < plen; i++)
		f[34 + l4h + i] = (uint8_t)(i * 7 + 3);
	return len;
}

/* ---- CQEs at literal offsets ---- */

static inline const uint8_t *qt_cqe(const uint8_t *cq, uint32_t slot)
{
	return cq + (size_t)slot * 64;
}

static inline uint32_t qt_cqe_type(const uint8_t *c) { return get32le(c) & 0x3f; }
static inline uint32_t qt_cqe_verr(const uint8_t *c) { return get32le(c) >> 8; }
static inline uint32_t qt_cqe_wq(const uint8_t *c) { return get32le(c + 60) & 0xffffff; }
static inline uint32_t qt_cqe_is_sq(const uint8_t *c) { return get32le(c + 60) >> 24 & 1; }
static inline uint32_t qt_cqe_owner(const uint8_t *c) { return get32le(c + 60) >> 29; }

#endif /* MLX5EMU_TESTS_UNIT_MANA_QTEST_H */
