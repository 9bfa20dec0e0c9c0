/* SPDX-License-Identifier: MIT */
/*
 * The seed corpus of fuzz_mana_fw (the record format is in fuzz_mana_fw.c):
 * the sequence mana_ib sends for a raw send QP and an RSS QP -- a doorbell
 * page, a PD, the vPort's TX configuration, DMA regions, WQ objects, the RX
 * steering, an MR -- then their destruction, with handles and ids taken
 * from earlier answers.
 *
 *     fuzz_mana_fw_seeds DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint8_t out[8192];
static size_t used;

static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A record; returns its request for the caller to fill past the header. */
static uint8_t *rec2(uint8_t ctl, uint8_t patch, uint8_t ctl2, uint8_t patch2,
		     uint32_t type, uint16_t len, uint8_t resp_len)
{
	uint8_t *r = out + used, *q = r + 7;

	r[0] = ctl;
	r[1] = patch;
	r[2] = ctl2;
	r[3] = patch2;
	put(r + 4, len, 2);
	r[6] = (uint8_t)(resp_len - 1);
	memset(q, 0, len);
	put(q + 4, type, 4);
	put(q + 8, 1, 2);
	put(q + 12, len, 4);
	put(q + 20, type, 4);
	put(q + 28, resp_len, 4);
	used += 7u + len;
	return q;
}

static uint8_t *rec(uint8_t ctl, uint8_t patch, uint32_t type, uint16_t len,
		    uint8_t resp_len)
{
	return rec2(ctl, patch, 0, 0, type, len, resp_len);
}

/* ctl to take the handle (first) or the id (second qword) of the answer
 * @back records ago. */
#define TAKE(back, second) ((uint8_t)(0x80 | (back) << 1 | (second)))


static void region(uint64_t addr, uint32_t pages)
{
	uint8_t *q = rec(0, 0, 25, (uint16_t)(64 + 8 * pages), 48);

	put(q + 40, 4096ull * pages, 8);
	put(q + 56, pages, 4);
	put(q + 60, pages, 4);
	for (uint32_t i = 0; i < pages; i++)
		put(q + 64 + 8 * i, addr + 4096ull * i, 8);
}

int main(int argc, char **argv)
{
	char path[4096];
	uint8_t *q;
	FILE *fp;

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_mana_fw_seeds DIR\n");
		return 2;
	}
	q = rec(0, 0, 22, 56, 48);			/* doorbell page */
	put(q + 40, 27, 4);
	put(q + 44, 1, 4);
	rec(0, 0, 29, 48, 48);				/* PD */
	q = rec(0, 0, 0x20008, 44, 64);			/* vPort 0 */
	q = rec(0, 0, 0x20003, 56, 48);			/* vPort TX */
	put(q + 40, 0x1000, 8);				/* vPort 0's handle */
	put(q + 48, 1, 4);				/* the first PD id */
	region(0x100000, 2);
	region(0x200000, 1);
	/* SQ: wq and cq regions from the last two answers */
	q = rec2(TAKE(1, 0), 7, TAKE(0, 0), 8, 0x20004, 88, 48);
	put(q + 48, 1, 4);
	put(q + 40, 0x1000, 8);
	put(q + 72, 8192, 4);
	put(q + 76, 4096, 4);
	put(q + 84, 0xffff, 4);
	region(0x300000, 1);
	region(0x400000, 1);
	q = rec2(TAKE(1, 0), 7, TAKE(0, 0), 8, 0x20004, 88, 48);	/* RQ */
	put(q + 48, 2, 4);
	put(q + 40, 0x1000, 8);
	put(q + 72, 4096, 4);
	put(q + 76, 4096, 4);
	/* RX steering: the RQ as default and (one entry of) the table */
	q = rec2(TAKE(0, 1), 8, TAKE(0, 1) | 0x40, 15, 0x20007, 120 + 512, 48);
	put(q + 8, 2, 2);
	put(q + 40, 0x1000, 8);
	put(q + 48, 64, 2);
	put(q + 50, 120, 2);
	put(q + 52, 1, 4);
	q[60] = q[61] = q[62] = 1;
	q[112] = 1;
	q = rec(TAKE(1, 1), 6, 0x20005, 56, 48);	/* destroy the RQ */
	put(q + 40, 2, 4);
	region(0x500000, 1);
	/* MR: the region just made, the PD eleven answers back */
	q = rec2(TAKE(0, 0), 7, TAKE(11, 0), 5, 31, 88, 48);
	put(q + 48, 2, 4);
	put(q + 64, 0x500000, 8);
	put(q + 72, 3, 4);
	q = rec(TAKE(0, 0), 5, 32, 48, 48);		/* destroy it */
	rec(0, 0, 0x20001, 88, 72);			/* device config */
	snprintf(path, sizeof(path), "%s/raw_and_rss", argv[1]);
	fp = fopen(path, "wb");
	if (!fp || fwrite(out, 1, used, fp) != used || fclose(fp)) {
		perror(path);
		return 1;
	}
	return 0;
}
