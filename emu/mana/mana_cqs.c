/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana_cqs.c -- a completion queue's device side over a ring in
 * application memory: the slot and owner bits of mana_cq_put (mana_cq.c),
 * written through emu/mem, and the one-shot arm.
 *
 * The owner bits are the top three bits of the info dword, so they sit in
 * the entry's last byte: emu_mem_publish stores that byte last with release
 * order, and a consumer that sees the new lap sees the whole entry.
 *
 * Chosen: a CQE the ring could not take (unmapped by the application)
 * breaks the CQ, as a DMA error would put a hardware CQ in error; nothing is
 * written to it afterwards, so no later entry can be mistaken for the lost
 * one.  Arming is one-shot, as the CQ doorbell's arm bit is: the event
 * fires for the first CQE after the arm and disarms.  The arm doorbell
 * carries the consumer's head modulo the owner-bit lap (count << 3, as
 * DPDK's PMD and mana_en ring it); an arm behind CQEs already written
 * fires at once, as a ConnectX's arm with its consumer index does, so an
 * application that arms after its last empty poll never sleeps on a CQE
 * that landed in between (no public source settles this for GDMA).
 */
#include <errno.h>
#include <string.h>

#include "emu/mana/mana_queue.h"
#include "emu/mem/mem.h"
#include "prm/prm_le.h"

void mana_cqs_init(struct mana_cqs *cq, void *ring, uint32_t count, uint32_t id,
		   mana_cq_event_fn event, void *event_arg)
{
	memset(cq, 0, sizeof(*cq));
	cq->ring = ring;
	cq->count = count;
	cq->id = id;
	cq->event = event;
	cq->event_arg = event_arg;
}

void mana_cqs_arm(struct mana_cqs *cq, uint32_t head)
{
	uint64_t lap = (uint64_t)cq->count << MANA_CQE_OWNER_BITS;

	if (lap && cq->produced % lap != head % lap) {
		cq->armed = false;
		if (cq->event)
			cq->event(cq->event_arg, cq);
		return;
	}
	cq->armed = true;
}

int mana_cqs_put(struct mana_cqs *cq, const uint8_t client[MANA_CQE_CLIENT],
		 uint32_t wq_num, bool is_sq)
{
	return mana_cqs_put_copy(cq, client, wq_num, is_sq, NULL);
}

int mana_cqs_put_copy(struct mana_cqs *cq, const uint8_t client[MANA_CQE_CLIENT],
		      uint32_t wq_num, bool is_sq, uint8_t out[MANA_CQE_SIZE])
{
	uint8_t buf[MANA_CQE_SIZE];
	uint8_t *cqe = out ? out : buf;
	uint64_t j = cq->produced;
	uint8_t *slot;

	if (cq->broken || !cq->count)
		return -EIO;
	slot = cq->ring + (size_t)mana_cq_slot(cq->count, j) * MANA_CQE_SIZE;
	memcpy(cqe, client, MANA_CQE_CLIENT);
	memset(cqe + MANA_CQE_CLIENT, 0, MANA_CQE_SIZE - MANA_CQE_CLIENT);
	PRM_LE_SET(gdma_cqe_info, cqe + MANA_CQE_CLIENT, wq_num, wq_num);
	PRM_LE_SET(gdma_cqe_info, cqe + MANA_CQE_CLIENT, is_sq, is_sq);
	PRM_LE_SET(gdma_cqe_info, cqe + MANA_CQE_CLIENT, owner_bits,
		   mana_cq_owner(cq->count, j));
	if (emu_mem_publish(slot, cqe, MANA_CQE_SIZE)) {
		cq->broken = true;
		cq->faults++;
		return -EFAULT;
	}
	cq->produced = j + 1;
	if (cq->armed) {
		cq->armed = false;
		if (cq->event)
			cq->event(cq->event_arg, cq);
	}
	return 0;
}
