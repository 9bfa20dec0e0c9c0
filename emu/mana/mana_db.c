/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana_db.c -- decoding a store to the MANA doorbell page.
 *
 * One page per context; each queue kind has one slot shared by all its
 * queues, the queue id travels in the value (Linux gdma.h union
 * gdma_doorbell_entry, gdma_main.c mana_gd_ring_doorbell).  The long forms
 * are one 64-bit store with an absolute tail.  The 32-bit forms 16 bytes
 * below them exist for 32-bit CPUs only (DPDK drivers/net/mana/gdma.c under
 * RTE_ARCH_32): a 16-bit tail increment and a 12-bit queue id.
 */
#include <errno.h>
#include <string.h>

#include "emu/mana/mana.h"
#include "prm/prm_le.h"

static int decode_long(uint32_t off, uint64_t value, struct mana_db *db)
{
	uint8_t v[8];

	/* the layouts are little-endian bytes; put the stored value there */
	for (int i = 0; i < 8; i++)
		v[i] = (uint8_t)(value >> (8 * i));
	switch (off) {
	case MANA_DB_OFF_SQ:
		db->queue = MANA_DB_SQ;
		db->id = PRM_LE_GET(gdma_db_sq, v, id);
		db->tail = PRM_LE_GET(gdma_db_sq, v, tail_ptr);
		return 0;
	case MANA_DB_OFF_RQ:
		db->queue = MANA_DB_RQ;
		db->id = PRM_LE_GET(gdma_db_rq, v, id);
		db->wqe_cnt = (uint8_t)PRM_LE_GET(gdma_db_rq, v, wqe_cnt);
		db->tail = PRM_LE_GET(gdma_db_rq, v, tail_ptr);
		return 0;
	case MANA_DB_OFF_CQ:
		db->queue = MANA_DB_CQ;
		db->id = PRM_LE_GET(gdma_db_cq, v, id);
		db->tail = PRM_LE_GET(gdma_db_cq, v, tail_ptr);
		db->arm = PRM_LE_GET(gdma_db_cq, v, arm);
		return 0;
	case MANA_DB_OFF_EQ:
		db->queue = MANA_DB_EQ;
		db->id = PRM_LE_GET(gdma_db_eq, v, id);
		db->tail = PRM_LE_GET(gdma_db_eq, v, tail_ptr);
		db->arm = PRM_LE_GET(gdma_db_eq, v, arm);
		return 0;
	}
	return -EINVAL;
}

static int decode_short(uint32_t off, uint32_t value, struct mana_db *db)
{
	uint8_t v[4];

	for (int i = 0; i < 4; i++)
		v[i] = (uint8_t)(value >> (8 * i));
	switch (off) {
	case MANA_DB_OFF_SQ_SHORT: db->queue = MANA_DB_SQ; break;
	case MANA_DB_OFF_RQ_SHORT: db->queue = MANA_DB_RQ; break;
	case MANA_DB_OFF_CQ_SHORT: db->queue = MANA_DB_CQ; break;
	case MANA_DB_OFF_EQ_SHORT: db->queue = MANA_DB_EQ; break;
	default: return -EINVAL;
	}
	db->incr = true;
	db->id = PRM_LE_GET(gdma_db_short, v, id);
	db->tail = PRM_LE_GET(gdma_db_short, v, tail_ptr_incr);
	/* arm only means something to a CQ or an EQ */
	db->arm = db->queue >= MANA_DB_CQ && PRM_LE_GET(gdma_db_short, v, arm);
	return 0;
}

int mana_db_decode(uint32_t off, unsigned int width, uint64_t value,
		   struct mana_db *db)
{
	memset(db, 0, sizeof(*db));
	if (width == 8)
		return decode_long(off, value, db);
	if (width == 4)
		return decode_short(off, (uint32_t)value, db);
	return -EINVAL;
}
