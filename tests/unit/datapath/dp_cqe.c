/* SPDX-License-Identifier: MIT */
/* Byte images from literal offsets (see dp_cqe.h). */
#include <string.h>

#include <check.h>

#include "dp_cqe.h"

void dp_be16(uint8_t *b, size_t off, uint16_t v)
{
	b[off] = (uint8_t)(v >> 8);
	b[off + 1] = (uint8_t)v;
}

void dp_be32(uint8_t *b, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[off + i] = (uint8_t)(v >> (24 - 8 * i));
}

void dp_be64(uint8_t *b, size_t off, uint64_t v)
{
	dp_be32(b, off, (uint32_t)(v >> 32));
	dp_be32(b, off + 4, (uint32_t)v);
}

void dp_expect_bytes(const void *got, const void *want, size_t len,
		     const char *what)
{
	const uint8_t *g = got, *w = want;

	for (size_t i = 0; i < len; i++)
		ck_assert_msg(g[i] == w[i], "%s: byte %zu is 0x%02x, not 0x%02x",
			      what, i, g[i], w[i]);
}

uint8_t *dp_cqe_write(void *ring, uint32_t cqe_cnt, uint32_t cqe_size,
		      uint32_t pi, uint8_t opcode, uint32_t uidx, uint32_t qpn,
		      uint8_t wqe_op, uint16_t wqe_counter)
{
	uint8_t *cqe = (uint8_t *)ring + (size_t)(pi & (cqe_cnt - 1)) * cqe_size +
		       (cqe_size - 64);

	memset(cqe, 0, 64);
	dp_be32(cqe, 0x20, uidx);		/* srqn_uidx */
	dp_be32(cqe, 0x38, (uint32_t)wqe_op << 24 | qpn);	/* sop_drop_qpn */
	dp_be16(cqe, 0x3c, wqe_counter);
	__atomic_store_n(&cqe[0x3f], (uint8_t)(opcode << 4 | ((pi / cqe_cnt) & 1)),
			 __ATOMIC_RELEASE);
	return cqe;
}
