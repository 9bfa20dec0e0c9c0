/* SPDX-License-Identifier: MIT */
/*
 * The seed corpus of fuzz_mana (the input format is in fuzz_mana.c): a
 * 4 KiB send ring with a short-OOB WQE, a long-OOB WQE with VLAN and two
 * SGEs, and the dummy SGE; a send WQE whose SGL wraps; a receive ring of
 * DPDK's 32-byte WQEs.
 *
 *     fuzz_mana_seeds DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint8_t in[9 + 4096];

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void sge(uint8_t *p, uint32_t addr, uint32_t key, uint32_t size)
{
	memset(p, 0, 16);
	put32(p, addr);
	put32(p + 8, key);
	put32(p + 12, size);
}

static int put(const char *dir, const char *name, size_t n)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(in, 1, n, fp) != n || fclose(fp)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t *r = in + 9;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_mana_seeds DIR\n");
		return 2;
	}
	/* send ring of 4096 bytes (32 << 7), head 0, tail 4 units */
	in[0] = 7 << 1;
	put32(in + 5, 4 * 32);
	put32(r + 4, 1 | 2 << 8);			/* 1 SGE, short OOB */
	put32(r + 8, 1 << 2 | 1 << 4 | 1 << 5 | 3 << 8);
	put32(r + 12, 34 | 5u << 24);
	sge(r + 16, 0x1000, 1, 60);
	put32(r + 32 + 4, 2 | 6 << 8);		/* 2 SGEs, long OOB */
	put32(r + 40, 1 | 3 << 8);
	put32(r + 48, 1 << 3 | 0x123u << 20);
	sge(r + 64, 0x2000, 1, 14);
	sge(r + 80, 0x3000, 1, 100);
	put32(r + 96 + 4, 1 | 2 << 8);
	sge(r + 112, 1, 0, 0);				/* the dummy SGE */
	rc |= put(argv[1], "sq", sizeof(in));

	/* the last unit: header and long OOB, the SGL at the ring's start */
	memset(in, 0, sizeof(in));
	in[0] = 7 << 1;
	put32(in + 1, 127);
	put32(in + 5, 129 * 32);
	put32(r + 4064 + 4, 2 | 6 << 8);
	sge(r, 0x1000, 1, 60);
	sge(r + 16, 0x2000, 1, 60);
	rc |= put(argv[1], "sq_wrap", sizeof(in));

	/* receive ring of 256 bytes (32 << 3): eight 1-SGE WQEs */
	memset(in, 0, sizeof(in));
	in[0] = 1 | 3 << 1;
	put32(in + 5, 8 * 32);
	for (int i = 0; i < 8; i++) {
		put32(r + 32 * i + 4, 1 | 2 << 8);
		sge(r + 32 * i + 16, 0x10000u + 2048u * (uint32_t)i, 2, 2048);
	}
	rc |= put(argv[1], "rq", 9 + 256);
	return rc;
}
