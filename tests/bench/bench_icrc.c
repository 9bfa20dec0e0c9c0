/* SPDX-License-Identifier: MIT */
/*
 * bench_icrc: what the RoCE v2 ICRC (libisal's CRC-32 over the masked
 * headers and the payload, emu_wire_icrc) costs per frame, against a
 * memcpy of the same frame measured in the same run.  Not a timed test:
 * it prints figures and ratios; the quick mode (-q) only proves the path
 * runs and that the ICRC it times is the one the parser accepts.
 *
 * Output lines: "key best median unit" (best = the trial closest to the
 * physical limit on a noisy shared machine), then "ratio_<payload> x" =
 * ICRC GB/s / memcpy GB/s and "frames_<payload> M/s" for the ICRC alone.
 *
 * Usage: bench_icrc [-q]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/wire/wire.h"

#include "bench_util.h"

static void *(*volatile plain_copy)(void *, const void *, size_t) = memcpy;
static volatile uint32_t sink;

/* GB/s of one trial over len-byte frames: the ICRC, or a copy. */
static double trial(int icrc, uint8_t *dst, const uint8_t *frame,
		    uint32_t len, long iters)
{
	double t0 = bench_now_s();

	for (long i = 0; i < iters; i++) {
		if (icrc)
			sink = emu_wire_icrc(frame, 14, len);
		else
			plain_copy(dst, frame, len);
		__asm__ __volatile__("" ::: "memory");
	}
	return (double)len * (double)iters / (bench_now_s() - t0) / 1e9;
}

/* An RC SEND ONLY of paylen bytes, IPv4 RoCE v2, built and checked. */
static uint32_t frame_make(uint8_t *f, uint32_t paylen)
{
	struct emu_wire_roce h = {
		.dmac = { 2, 0xc9, 0x7f, 0, 1, 2 },
		.smac = { 2, 0xc9, 0x7f, 0, 0, 2 },
		.version = 2, .hop_limit = 64, .udp_sport = 0xc000,
		.opcode = 0x04, .pkey = 0xffff, .dqpn = 0x101, .psn = 7,
		.sgid = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 2 },
		.dgid = { [10] = 0xff, [11] = 0xff, 127, 0, 1, 2 },
	};
	struct emu_wire_roce back;
	uint32_t hlen = emu_wire_roce_hlen(&h), len, off, plen;

	for (uint32_t i = 0; i < paylen; i++)
		f[hlen + i] = (uint8_t)(i * 13 + 1);
	len = emu_wire_roce_build(&h, f, paylen);
	if (!len || emu_wire_roce_parse(f, len, &back, &off, &plen) !=
			    EMU_WIRE_DROP_NONE || plen != paylen) {
		fprintf(stderr, "bench_icrc: the frame of %u bytes does not "
				"parse back\n", paylen);
		exit(1);
	}
	return len;
}

int main(int argc, char **argv)
{
	static const uint32_t payloads[] = { 0, 256, 1024, 4096 };
	int quick = argc > 1 && !strcmp(argv[1], "-q");
	int ntrials = quick ? 3 : 11;
	uint8_t *frame = aligned_alloc(64, EMU_WIRE_FRAME_MAX);
	uint8_t *dst = aligned_alloc(64, EMU_WIRE_FRAME_MAX);

	if (!frame || !dst)
		return 1;
	printf("# bench_icrc: emu_wire_icrc vs memcpy of the frame, "
	       "cache-hot, GB/s = 1e9 B/s\n");
	for (size_t s = 0; s < sizeof(payloads) / sizeof(payloads[0]); s++) {
		uint32_t len = frame_make(frame, payloads[s]);
		long iters = (long)((quick ? 2e7 : 4e8) / (double)len) + 1;
		double r[2][11], best[2];

		for (int t = 0; t < ntrials; t++)
			for (int c = 0; c < 2; c++)
				r[c][t] = trial(c, dst, frame, len, iters);
		for (int c = 0; c < 2; c++) {
			bench_sort(r[c], (size_t)ntrials);
			best[c] = r[c][ntrials - 1];
			printf("%s_%u %.2f %.2f GB/s\n", c ? "icrc" : "memcpy",
			       payloads[s], best[c], r[c][ntrials / 2]);
		}
		printf("frames_%u %.2f M/s (%u-byte frames)\n", payloads[s],
		       best[1] * 1e3 / len, len);
		printf("ratio_%u %.3f x\n", payloads[s], best[1] / best[0]);
	}
	free(frame);
	free(dst);
	return 0;
}
