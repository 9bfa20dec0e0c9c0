/* SPDX-License-Identifier: MIT */
/*
 * The packet library behind a line protocol, for scapy_eth_crosscheck.py.
 * One request per stdin line, one answer per stdout line, frames in hex:
 *
 *   csum FLAGS HEX         -> HEX      emu_eth_tx_csum(FLAGS) applied
 *   verify HEX             -> L3 L4 SUM  emu_eth_csum_verify (SUM in hex)
 *   lso MSS HDRLEN HEX     -> HEX HEX... segments of HEX's headers and payload
 *   rss FN SYM L3 L4 FIELDS KEYHEX HEX -> HASH MATCHED (hex, 0/1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/eth/eth.h"

enum { MAX_FRAME = 1 << 17 };

static uint8_t frame[MAX_FRAME], out[MAX_FRAME];
static char line[4 * MAX_FRAME];
static struct emu_eth_toeplitz tz;

static size_t unhex(const char *s, uint8_t *b, size_t cap)
{
	size_t n = 0;
	unsigned int v;

	while (n < cap && sscanf(s + 2 * n, "%2x", &v) == 1)
		b[n++] = (uint8_t)v;
	return n;
}

static void put_hex(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
}

static void do_lso(char *args)
{
	unsigned int mss, hdr_len;
	char *hex = NULL;
	struct emu_eth_lso s;
	size_t n;

	if (sscanf(args, "%u %u", &mss, &hdr_len) != 2 ||
	    !(hex = strrchr(args, ' ')))
		goto bad;
	n = unhex(hex + 1, frame, sizeof(frame));
	if (n < hdr_len ||
	    emu_eth_lso_init(&s, frame, hdr_len, (uint32_t)(n - hdr_len), mss))
		goto bad;
	for (uint32_t k = 0; k < s.nseg; k++) {
		uint32_t off, len = emu_eth_lso_slice(&s, k, &off);

		memcpy(out + hdr_len, frame + hdr_len + off, len);
		put_hex(out, emu_eth_lso_seg(&s, k, out));
		putchar(k + 1 < s.nseg ? ' ' : '\n');
	}
	return;
bad:
	puts("error");
}

static void do_rss(char *args)
{
	unsigned int fn, sym, l3, l4, fields;
	char keyhex[81];
	uint8_t key[40];
	struct emu_eth_rss_cfg cfg = { 0 };
	struct emu_eth_rss_res r;
	struct emu_eth_pkt p;
	char *hex = strrchr(args, ' ');
	size_t n;

	if (!hex || sscanf(args, "%u %u %u %u %u %80s", &fn, &sym, &l3, &l4,
			   &fields, keyhex) != 6 ||
	    unhex(keyhex, key, 40) != 40) {
		puts("error");
		return;
	}
	emu_eth_toeplitz_init(&tz, key);
	n = unhex(hex + 1, frame, sizeof(frame));
	cfg.fn = (uint8_t)fn;
	cfg.symmetric = sym;
	cfg.l3_prot_type = (uint8_t)l3;
	cfg.l4_prot_type = (uint8_t)l4;
	cfg.fields = fields;
	cfg.tz = &tz;
	emu_eth_parse(frame, n, &p);
	emu_eth_rss_hash(frame, &p, &cfg, &r);
	printf("%08x %d\n", r.hash, r.matched);
}

int main(void)
{
	while (fgets(line, sizeof(line), stdin)) {
		char *nl = strchr(line, '\n');
		unsigned int flags;
		size_t n;

		if (nl)
			*nl = 0;
		if (!strncmp(line, "csum ", 5) &&
		    sscanf(line + 5, "%u", &flags) == 1) {
			n = unhex(strrchr(line, ' ') + 1, frame, sizeof(frame));
			emu_eth_tx_csum(frame, n, (uint8_t)flags);
			put_hex(frame, n);
			putchar('\n');
		} else if (!strncmp(line, "verify ", 7)) {
			struct emu_eth_pkt p;
			struct emu_eth_csum_ok ok;

			n = unhex(line + 7, frame, sizeof(frame));
			emu_eth_parse(frame, n, &p);
			emu_eth_csum_verify(frame, &p, &ok);
			printf("%d %d %04x\n", ok.l3_ok, ok.l4_ok, ok.check_sum);
		} else if (!strncmp(line, "lso ", 4)) {
			do_lso(line + 4);
		} else if (!strncmp(line, "rss ", 4)) {
			do_rss(line + 4);
		} else {
			puts("error");
		}
		fflush(stdout);
	}
	return 0;
}
