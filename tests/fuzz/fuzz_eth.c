/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target of the packet library (emu/eth): any bytes as a frame
 * through parse, the steering match, checksum verification, CQE
 * classification and RSS (outer and inner selectors, symmetric or not),
 * then the in-place work on a copy of exactly the input's length: transmit
 * checksums, VLAN stripping, and LSO with the input's first bytes as the
 * header template.  The frame is a heap block of its own length, so the
 * sanitizers see any byte read past it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emu/eth/eth.h"
#include "prm/prm_cmd.h"

static struct emu_eth_toeplitz tz;
static int tz_ready;

static void fuzz_rss(const uint8_t *f, const struct emu_eth_pkt *p,
		     uint8_t sel)
{
	struct emu_eth_rss_cfg cfg = {
		.fn = sel & 1 ? MLX5_RX_HASH_FN_TOEPLITZ :
				MLX5_RX_HASH_FN_INVERTED_XOR8,
		.symmetric = sel & 2, .inner = sel & 4,
		.l3_prot_type = (sel >> 3) & 1, .l4_prot_type = (sel >> 4) & 1,
		.fields = (uint32_t)(sel >> 3) & 0x1f, .tz = &tz,
	};
	struct emu_eth_rss_res r;

	emu_eth_rss_hash(f, p, &cfg, &r);
}

static void fuzz_lso(const uint8_t *f, size_t len, uint8_t knob)
{
	struct emu_eth_lso s;
	uint32_t hdr_len = knob < len ? knob : (uint32_t)len;
	uint32_t mss = 1 + knob % 64, k, off;
	uint8_t *out;

	if (emu_eth_lso_init(&s, f, hdr_len, (uint32_t)(len - hdr_len), mss))
		return;
	out = malloc(hdr_len + mss);
	for (k = 0; k < s.nseg && k < 8; k++) {
		uint32_t n = emu_eth_lso_slice(&s, k, &off);

		memcpy(out + hdr_len, f + hdr_len + off, n);
		emu_eth_lso_seg(&s, k, out);
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t match[0x200], cqe[64];
	struct emu_eth_pkt p;
	struct emu_eth_csum_ok ok;
	struct emu_eth_cqe_info c;
	uint8_t *f = malloc(size ? size : 1);
	size_t len = size;
	uint16_t tci;

	if (!tz_ready) {
		static const uint8_t key[40] = { 0x6d, 0x5a, 0x56, 0xda };

		emu_eth_toeplitz_init(&tz, key);
		tz_ready = 1;
	}
	memcpy(f, data, size);
	emu_eth_parse(f, size, &p);
	emu_eth_fill_match(f, &p, match);
	emu_eth_csum_verify(f, &p, &ok);
	emu_eth_cqe_classify(f, &p, &c);
	emu_eth_cqe_write(cqe, &c, NULL, false, 0);
	for (unsigned int sel = 0; sel < 256; sel += 37)
		fuzz_rss(f, &p, (uint8_t)sel);
	emu_eth_tx_csum(f, size, 0xf0);
	fuzz_lso(f, size, size ? data[size - 1] : 0);
	emu_eth_vlan_strip(f, &len, &tci);
	free(f);
	return 0;
}
