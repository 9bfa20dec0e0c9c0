/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana_wq.c -- taking one WQE out of a ring in application
 * memory: the first basic unit (header and inline OOB, never split by the
 * ring's end) tells the size, then the rest is copied, continuing at the
 * ring's start when the SGL wraps.  The copy is linear, so the pure WQE
 * walk (mana_wqe.c) judges it as a ring of its own whose one WQE starts at
 * 0; the ring's real size only matters for a WQE larger than the ring.
 */
#include <string.h>

#include "emu/mana/mana_queue.h"
#include "emu/mem/mem.h"

enum mana_fetch mana_wq_fetch(const uint8_t *ring, uint32_t ring_size,
			      enum mana_wq_kind kind, uint32_t head_bu,
			      uint32_t tail, uint8_t copy[MANA_SQ_WQE_MAX],
			      struct mana_wqe *w, enum mana_wqe_verdict *v,
			      uint32_t *off)
{
	/* free-running byte counters: the distance survives the 2^32 wrap */
	uint32_t posted = tail - head_bu * MANA_BU;
	uint32_t bytes, first;

	*off = (head_bu * MANA_BU) & (ring_size - 1);
	if (!mana_wq_tail_ok(head_bu, tail, ring_size))
		return MANA_FETCH_BAD_TAIL;
	if (posted < MANA_BU)
		return MANA_FETCH_NONE;
	if (emu_mem_read(copy, ring + *off, MANA_BU))
		return MANA_FETCH_FAULT;
	/* the copy posing as a full ring: only its header is judged here */
	*v = mana_wqe_read(copy, MANA_SQ_WQE_MAX, kind, 0, MANA_SQ_WQE_MAX, w);
	if (*v != MANA_WQE_OK)
		return MANA_FETCH_WQE;
	bytes = w->size_bu * MANA_BU;
	if (bytes > ring_size) {
		*v = MANA_WQE_TOO_BIG;
		return MANA_FETCH_WQE;
	}
	if (bytes > posted)
		return MANA_FETCH_NONE;
	first = ring_size - *off < bytes ? ring_size - *off : bytes;
	if (first > MANA_BU &&
	    emu_mem_read(copy + MANA_BU, ring + *off + MANA_BU, first - MANA_BU))
		return MANA_FETCH_FAULT;
	if (bytes > first && emu_mem_read(copy + first, ring, bytes - first))
		return MANA_FETCH_FAULT;
	return MANA_FETCH_WQE;
}
