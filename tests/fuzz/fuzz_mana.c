/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target of the MANA queue mechanics (emu/mana): any bytes as a
 * work queue ring walked from a head to a tail, every WQE's SGEs and (send
 * queue) client OOB decoded; the same bytes as doorbell stores, an RX
 * completion request and CQ ring traffic.  The ring is a heap block of
 * exactly its size, so the sanitizers see any read past it.
 *
 * Input: byte 0 selects the queue kind (bit 0) and the ring size (bits
 * 1..3: 32 << n bytes); bytes 1..4 the head in basic units, 5..8 the
 * producer tail in bytes (little-endian); the rest fills the ring.
 */
#include <stdlib.h>
#include <string.h>

#include "emu/mana/mana.h"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void walk(const uint8_t *ring, uint32_t size, enum mana_wq_kind kind,
		 uint32_t head, uint32_t tail)
{
	for (int n = 0; n < 64; n++) {
		struct mana_wqe w;
		struct mana_sge s;
		struct mana_tx_req req;
		enum mana_wqe_verdict v = mana_wqe_read(ring, size, kind, head, tail, &w);
		uint32_t vendor_err;

		(void)mana_wqe_verdict_cqe(kind, v, &vendor_err);
		if (v != MANA_WQE_OK) {
			if (!w.size_bu)
				return;
			head += w.size_bu;
			continue;
		}
		for (unsigned int i = 0; i < w.num_sge; i++) {
			mana_wqe_sge(ring, size, &w, i, &s);
			(void)mana_sge_is_dummy(&s);
		}
		if (kind == MANA_WQ_SQ)
			(void)mana_tx_oob_decode(w.oob, w.oob_size, w.client_data_unit, &req);
		head += w.size_bu;
	}
}

static void doorbells_and_cqes(const uint8_t *d, size_t size)
{
	uint8_t client[MANA_CQE_CLIENT];
	uint8_t cqbuf[7 * MANA_CQE_SIZE] __attribute__((aligned(8))) = { 0 };
	struct mana_cq_ring cq = { .buf = cqbuf, .count = 1 + d[0] % 7 };
	struct mana_rx_cqe rx;
	struct mana_db db;
	uint64_t v = 0;

	for (size_t i = 0; i < 8 && 9 + i < size; i++)
		v |= (uint64_t)d[9 + i] << (8 * i);
	(void)mana_db_decode(le32(d + 1) & 0xfff, d[0] & 8 ? 4 : 8, v, &db);

	/* field by field: arbitrary bytes are no valid bool */
	memset(&rx, 0, sizeof(rx));
	rx.type = d[1] % 8;
	rx.npkts = d[2] % 6;
	for (unsigned int i = 0; i < MANA_RX_PPI; i++) {
		rx.pkt[i].len = (uint16_t)(d[3 + i] * (d[0] >> 4));
		rx.pkt[i].hash = le32(d + 1 + i);
	}
	rx.hashtype = (uint16_t)(le32(d + 5) & 0x1ff);
	rx.vlan_present = d[7] & 1;
	rx.vlan_id = (uint16_t)(le32(d + 4) & 0xfff);
	rx.ip_ok = d[8] & 1;
	rx.ip_fail = d[8] & 2;
	rx.tcp_ok = d[8] & 4;
	rx.tcp_fail = d[8] & 8;
	rx.udp_ok = d[8] & 16;
	rx.udp_fail = d[8] & 32;
	rx.wqe_off = le32(d + 5);
	(void)mana_rx_cqe_build(client, &rx);
	(void)mana_tx_cqe_build(client, d[1], le32(d + 1), le32(d + 5));

	memset(client, d[0], sizeof(client));
	for (uint32_t j = 0; j < (d[2] & 31); j++) {
		mana_cq_put(&cq, client, le32(d + 1), d[0] & 1);
		(void)mana_cq_peek(cqbuf, cq.count, cq.count + (uint64_t)(d[3] % 40));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t rsize;
	uint8_t *ring;

	if (size < 9)
		return 0;
	rsize = 32u << ((data[0] >> 1) & 7);
	ring = calloc(1, rsize);
	if (!ring)
		return 0;
	memcpy(ring, data + 9, size - 9 < rsize ? size - 9 : rsize);
	walk(ring, rsize, data[0] & 1 ? MANA_WQ_RQ : MANA_WQ_SQ, le32(data + 1),
	     le32(data + 5));
	free(ring);
	doorbells_and_cqes(data, size);
	return 0;
}
