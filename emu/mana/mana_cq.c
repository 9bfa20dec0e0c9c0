/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana_cq.c -- the GDMA completion ring: a 3-bit lap counter in
 * every CQE instead of a consumer index the device could read.
 *
 * The j-th CQE lands at slot j % N with owner (j / N + 1) & 7 (Linux
 * gdma_main.c mana_gd_read_cqe, DPDK gdma.c gdma_poll_completion_queue).
 * N is the count the consumer asked for, which DPDK does not round to a
 * power of two, so nothing here masks.  The device never learns how far
 * the consumer got: overflow is only visible to the consumer.
 */
#include <string.h>

#include "emu/mana/mana.h"
#include "prm/prm_le.h"

uint8_t *mana_cq_put(struct mana_cq_ring *cq, const uint8_t client[MANA_CQE_CLIENT],
		     uint32_t wq_num, bool is_sq)
{
	uint64_t j = cq->produced++;
	uint8_t *slot = cq->buf + (size_t)mana_cq_slot(cq->count, j) * MANA_CQE_SIZE;
	uint8_t info[4] = { 0 };
	uint32_t dw;

	memcpy(slot, client, MANA_CQE_CLIENT);
	PRM_LE_SET(gdma_cqe_info, info, wq_num, wq_num);
	PRM_LE_SET(gdma_cqe_info, info, is_sq, is_sq);
	PRM_LE_SET(gdma_cqe_info, info, owner_bits, mana_cq_owner(cq->count, j));
	memcpy(&dw, info, sizeof(dw));
	/* the owner bits publish the entry: data first, then this dword */
	__atomic_store_n((uint32_t *)(slot + MANA_CQE_CLIENT), dw, __ATOMIC_RELEASE);
	return slot;
}

enum mana_cq_view mana_cq_peek(const uint8_t *buf, uint32_t count, uint64_t head)
{
	const uint8_t *slot = buf + (size_t)(head % count) * MANA_CQE_SIZE;
	uint32_t dw = __atomic_load_n((const uint32_t *)(slot + MANA_CQE_CLIENT),
				      __ATOMIC_ACQUIRE);
	uint8_t owner = (uint8_t)PRM_LE_GET(gdma_cqe_info, &dw, owner_bits);
	uint8_t lap = (uint8_t)((head / count) & 7);

	if (owner == ((lap - 1) & 7))
		return MANA_CQ_EMPTY;
	return owner == lap ? MANA_CQ_VALID : MANA_CQ_OVERFLOW;
}
