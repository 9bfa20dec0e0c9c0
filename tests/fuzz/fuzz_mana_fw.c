/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target of the MANA firmware (emu/mana/fw): any sequence of
 * control messages through one device.  Each message is copied into a heap
 * block of exactly its length (the sanitizers see any read past it) and
 * answered into a response block of the length the record asks for.
 *
 * Input: records of [ctl u8][patch u8][ctl u8][patch u8][req_len u16 le]
 * [resp_len - 1 u8][req].  Handles and ids are not guessable, so a record
 * may take two from earlier answers: for each (ctl, patch) with bit 7 of
 * ctl, the 8 bytes at response offset 32 + 8 * (ctl & 1) of answer
 * (ctl >> 1 & 31) (counting back from the last) are written at request
 * offset 8 * patch before it runs, and with bit 6 at every 8 bytes from
 * there to the end (an indirection table).
 *
 * Checks beyond the sanitizers: the status returned is the one in the
 * response header, a refused message leaves the object counts as they
 * were, and the counts never pass the tables' sizes.
 */
#include <stdlib.h>
#include <string.h>

#include "emu/mana/fw/mana_fw.h"

enum { HISTORY = 32 };

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static unsigned int total(const struct mana_fw_counts *c)
{
	return c->pds + c->regions + c->mrs + c->wqs;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t size)
{
	struct mana_fw_config cfg = { .num_ports = 2 };
	uint8_t hist[HISTORY][16] = { { 0 } };
	unsigned int nhist = 0;
	struct mana_fw *fw;
	size_t at = 0;

	if (mana_fw_create(&cfg, &fw))
		abort();
	while (at + 7 <= size) {
		const uint8_t *h = d + at;
		size_t rl = (size_t)h[4] | (size_t)h[5] << 8;
		size_t sl = h[6] + 1u;
		struct mana_fw_counts before, after;
		uint8_t *req, *resp;
		long st;

		at += 7;
		if (rl > size - at)
			rl = size - at;
		req = malloc(rl ? rl : 1);
		resp = malloc(sl);
		if (!req || !resp)
			abort();
		memcpy(req, d + at, rl);
		at += rl;
		for (int k = 0; k < 2; k++) {
			uint8_t ctl = h[2 * k], patch = h[2 * k + 1];
			unsigned int back;

			if (!(ctl & 0x80) || 8u * patch + 8 > rl || !nhist)
				continue;
			back = (ctl >> 1 & 31) % (nhist < HISTORY ? nhist : HISTORY);
			for (size_t o = 8u * patch; o + 8 <= rl; o += 8) {
				memcpy(req + o, hist[(nhist - 1 - back) % HISTORY] +
				       8 * (ctl & 1), 8);
				if (!(ctl & 0x40))
					break;
			}
		}
		mana_fw_counts(fw, &before);
		st = mana_fw_exec(fw, req, rl, resp, sl);
		mana_fw_counts(fw, &after);
		if (st > 0 && (le32(resp + 24) != (uint32_t)st ||
			       total(&before) != total(&after) ||
			       before.db_pages != after.db_pages))
			abort();
		if (total(&after) > MANA_FW_MAX_OBJS ||
		    after.db_pages > MANA_FW_MAX_DB_PAGES)
			abort();
		if (st == 0 && sl >= 48) {
			memcpy(hist[nhist % HISTORY], resp + 32, 16);
			nhist++;
		}
		free(req);
		free(resp);
	}
	(void)mana_fw_mr_check(fw, 0x15a, 0, 1, true);
	mana_fw_destroy(fw);
	return 0;
}
