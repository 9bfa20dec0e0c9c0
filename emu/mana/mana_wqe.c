/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana_wqe.c -- reading one GDMA work queue entry out of a ring.
 *
 * A WQE is an 8-byte header, an inline client OOB of 8 or 24 bytes and
 * 16-byte SGEs, padded to 32-byte basic units (Linux gdma.h struct
 * gdma_wqe, gdma_main.c; DPDK drivers/net/mana/gdma.c).  There is no
 * owner bit: only the producer's doorbell tail says how far the ring is
 * valid.  Header and OOB fit in the first basic unit, which is never split
 * by the ring's end; the SGL may continue at the ring's start.
 */
#include <string.h>

#include "emu/mana/mana.h"
#include "prm/prm_le.h"

static uint32_t align_bu(uint32_t bytes)
{
	return (bytes + MANA_BU - 1) / MANA_BU;
}

enum mana_wqe_verdict mana_wqe_read(const uint8_t *ring, uint32_t ring_size,
				    enum mana_wq_kind kind, uint32_t head_bu,
				    uint32_t tail, struct mana_wqe *w)
{
	uint32_t max = kind == MANA_WQ_SQ ? MANA_SQ_WQE_MAX : MANA_RQ_WQE_MAX;
	/* free-running byte counters: the distance survives the 2^32 wrap */
	uint32_t posted = tail - head_bu * MANA_BU;
	const uint8_t *hdr;
	uint32_t code, bytes;

	memset(w, 0, sizeof(*w));
	w->off = (head_bu * MANA_BU) & (ring_size - 1);
	if (posted == 0 || posted > ring_size)
		return posted ? MANA_WQE_PAST_TAIL : MANA_WQE_EMPTY;
	if (posted < MANA_BU)
		return MANA_WQE_PAST_TAIL;
	hdr = ring + w->off;
	w->num_sge = (uint8_t)PRM_LE_GET(gdma_wqe_hdr, hdr, num_sge);
	w->last_vbytes = (uint8_t)PRM_LE_GET(gdma_wqe_hdr, hdr, last_vbytes);
	w->oob_in_sgl = PRM_LE_GET(gdma_wqe_hdr, hdr, client_oob_in_sgl);
	w->client_data_unit = (uint16_t)PRM_LE_GET(gdma_wqe_hdr, hdr, client_data_unit);
	code = PRM_LE_GET(gdma_wqe_hdr, hdr, inline_oob_size_div4);
	/* the receive OOB is always the short one (gdma_main.c writes 8 B
	 * for an RQ whatever the request says) */
	if (code != 2 && (code != 6 || kind == MANA_WQ_RQ)) {
		/* without a trustworthy OOB size the length is unknown:
		 * skip one basic unit, the least the WQE can be */
		w->size_bu = 1;
		return MANA_WQE_BAD_OOB;
	}
	w->oob_size = (uint8_t)(code * 4);
	w->oob = hdr + MANA_WQE_HDR;
	bytes = MANA_WQE_HDR + w->oob_size + (uint32_t)w->num_sge * MANA_SGE_SIZE;
	w->size_bu = align_bu(bytes);
	if (w->num_sge == 0)
		return MANA_WQE_NO_SGE;
	if (bytes > max || bytes > ring_size)
		return MANA_WQE_TOO_BIG;
	if (w->size_bu * MANA_BU > posted) {
		w->size_bu = 0;
		return MANA_WQE_PAST_TAIL;
	}
	return MANA_WQE_OK;
}

void mana_wqe_sge(const uint8_t *ring, uint32_t ring_size,
		  const struct mana_wqe *w, unsigned int i, struct mana_sge *sge)
{
	/* SGEs are 16-byte aligned in a ring of 32-byte units: one never
	 * straddles the end, only the list as a whole wraps */
	uint32_t off = (w->off + MANA_WQE_HDR + w->oob_size + i * MANA_SGE_SIZE) &
		       (ring_size - 1);
	const uint8_t *p = ring + off;

	sge->addr = PRM_LE_GET64(gdma_sge, p, address);
	sge->key = PRM_LE_GET(gdma_sge, p, mem_key);
	sge->size = PRM_LE_GET(gdma_sge, p, size);
}

bool mana_sge_is_dummy(const struct mana_sge *sge)
{
	return sge->addr == 1 && sge->key == 0 && sge->size == 0;
}

uint8_t mana_wqe_verdict_cqe(enum mana_wq_kind kind, enum mana_wqe_verdict v,
			     uint32_t *vendor_err)
{
	*vendor_err = 0;
	/* Receive CQEs have no error type: a bad RQ WQE can only drop the
	 * frame.  On a send queue every malformation reports INVALID_OOB,
	 * the only type about the WQE itself (chosen; no source says which
	 * type hardware uses for a bad SGL count), with GDMA's "corrupted
	 * WQE" vendor error: DPDK's gdma.c writes the dummy SGE "to avoid
	 * corrupted WQE errors", and rdma-core's gdma.h names that error. */
	if (kind == MANA_WQ_RQ || v == MANA_WQE_OK || v == MANA_WQE_EMPTY ||
	    v == MANA_WQE_PAST_TAIL)
		return 0;
	*vendor_err = MANA_VENDOR_ERR_CORRUPTED_WQE;
	return MANA_CQE_TX_INVALID_OOB;
}

const char *mana_wqe_verdict_str(enum mana_wqe_verdict v)
{
	switch (v) {
	case MANA_WQE_OK: return "ok";
	case MANA_WQE_EMPTY: return "empty";
	case MANA_WQE_NO_SGE: return "no SGE";
	case MANA_WQE_BAD_OOB: return "bad OOB size";
	case MANA_WQE_TOO_BIG: return "WQE too big";
	case MANA_WQE_PAST_TAIL: return "WQE past the producer tail";
	}
	return "?";
}
