/* SPDX-License-Identifier: MIT */
/*
 * The seed corpus of fuzz_wire (fuzz_wire.h), written into the directory
 * given: frames the wire's own builder makes (emu_wire_roce_build) for
 * every request and response the RC and UD QPs can be sent, at the PSN
 * the RC QP expects, over IPv4, IPv6 and RoCE v1, copied and trusted; and
 * the transport's edge cases: a duplicate, a PSN ahead, a NAK.
 *
 *     fuzz_wire_seeds DIR
 */
#include <stdio.h>
#include <string.h>

#include "fuzz_wire.h"
#include "emu/wire/wire.h"

#define RC(op) (EMU_WIRE_TR_RC | EMU_WIRE_OP_##op)
#define UD(op) (EMU_WIRE_TR_UD | EMU_WIRE_OP_##op)

struct seed {
	uint8_t b[FW_MAX_FRAMES * (2 + EMU_WIRE_FRAME_MAX) + 1];
	size_t n;
};

static const uint8_t gid_v4_us[16] = { [10] = 0xff, [11] = 0xff,
				       [12] = 127, [15] = 2 };
static const uint8_t gid_v4_peer[16] = { [10] = 0xff, [11] = 0xff,
					 [12] = 127, [14] = 1, [15] = 2 };
static const uint8_t gid_v6_us[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t gid_v6_peer[16] = { 0xfe, 0x80, [15] = 2 };

static void seed_start(struct seed *s, uint8_t fix)
{
	s->b[0] = fix;
	s->n = 1;
}

/* With the filter's verdicts, two bits a received frame: 0 pass, 1 drop,
 * 2 duplicate, 3 corrupt. */
static void seed_start_filtered(struct seed *s, uint8_t fix, uint8_t verdicts)
{
	s->b[0] = fix | FW_FILTER;
	s->b[1] = verdicts;
	s->n = 2;
}

/* A frame of h with paylen bytes of payload, appended. */
static void seed_frame(struct seed *s, struct emu_wire_roce h,
		       uint32_t paylen, unsigned int ver)
{
	uint8_t f[EMU_WIRE_FRAME_MAX];
	uint32_t hl, len;

	static const uint8_t us_mac[6] = { 0x02, 0xc9, 0x7f, 0, 0, 1 };
	static const uint8_t peer_mac[6] = { 0x02, 0xc9, 0x7f, 0, 1, 1 };

	memcpy(h.dmac, us_mac, 6);
	memcpy(h.smac, peer_mac, 6);
	h.version = ver == 1 ? 1 : 2;
	memcpy(h.sgid, ver == 4 ? gid_v4_peer : gid_v6_peer, 16);
	memcpy(h.dgid, ver == 4 ? gid_v4_us : gid_v6_us, 16);
	h.hop_limit = 64;
	h.udp_sport = 0xc000;
	h.pkey = 0xffff;
	hl = emu_wire_roce_hlen(&h);
	for (uint32_t i = 0; i < paylen; i++)
		f[hl + i] = (uint8_t)(i * 7 + 3);
	len = emu_wire_roce_build(&h, f, paylen);
	if (!hl || !len)
		return;
	s->b[s->n++] = (uint8_t)len;
	s->b[s->n++] = (uint8_t)(len >> 8);
	memcpy(s->b + s->n, f, len);
	s->n += len;
}

static int seed_put(const char *dir, const char *name, const struct seed *s)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(s->b, 1, s->n, fp) != s->n || fclose(fp)) {
		perror(path);
		return 1;
	}
	return 0;
}

static struct emu_wire_roce req(uint8_t op, uint32_t psn)
{
	return (struct emu_wire_roce){ .opcode = op, .psn = psn,
				       .ackreq = true };
}

static struct emu_wire_roce reth(uint8_t op, uint32_t psn, uint64_t va,
				 uint32_t len)
{
	struct emu_wire_roce h = req(op, psn);

	h.va = va;
	h.dma_len = len;
	return h;
}

int main(int argc, char **argv)
{
	const uint8_t rc = FW_FIX_QP_RC | FW_FIX_KEYS | FW_FIX_CSUM;
	const uint32_t p = FW_RQ_PSN;
	struct emu_wire_roce h;
	struct seed s;
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_wire_seeds DIR\n");
		return 2;
	}
	for (unsigned int ver = 4; ver; ver = ver == 4 ? 6 : ver == 6 ? 1 : 0) {
		char name[64];

		seed_start(&s, rc);
		seed_frame(&s, req(RC(SEND_ONLY), p), 64, ver);
		snprintf(name, sizeof(name), "rc_send_only_v%u", ver);
		bad |= seed_put(argv[1], name, &s);
	}
	seed_start(&s, rc | FW_TRUSTED);
	seed_frame(&s, req(RC(SEND_ONLY), p), 64, 4);
	bad |= seed_put(argv[1], "rc_send_only_trusted", &s);

	seed_start(&s, rc);
	seed_frame(&s, req(RC(SEND_FIRST), p), 1024, 4);
	seed_frame(&s, req(RC(SEND_LAST), p + 1), 500, 4);
	bad |= seed_put(argv[1], "rc_send_two", &s);

	/* Longer than the receive: a local length error, the rest flushed. */
	seed_start(&s, rc);
	seed_frame(&s, req(RC(SEND_FIRST), p), 1024, 4);
	seed_frame(&s, req(RC(SEND_MIDDLE), p + 1), 1024, 4);
	seed_frame(&s, req(RC(SEND_LAST), p + 2), 100, 4);
	bad |= seed_put(argv[1], "rc_send_too_long", &s);

	seed_start(&s, rc);
	h = req(RC(SEND_ONLY_IMM), p);
	h.imm = 0x01020304;
	seed_frame(&s, h, 16, 4);
	h = req(RC(SEND_ONLY_INV), p + 1);
	h.ieth = 0x1234;
	seed_frame(&s, h, 16, 4);
	bad |= seed_put(argv[1], "rc_send_imm_inv", &s);

	seed_start(&s, rc);
	seed_frame(&s, reth(RC(WRITE_ONLY), p, 0x40, 64), 64, 4);
	h = reth(RC(WRITE_ONLY_IMM), p + 1, 0x100, 8);
	h.imm = 0x0a0b0c0d;
	seed_frame(&s, h, 8, 4);
	bad |= seed_put(argv[1], "rc_write_only", &s);

	seed_start(&s, rc | FW_TRUSTED);
	seed_frame(&s, reth(RC(WRITE_FIRST), p, 0x200, 1100), 1024, 4);
	seed_frame(&s, req(RC(WRITE_LAST), p + 1), 76, 4);
	bad |= seed_put(argv[1], "rc_write_two_trusted", &s);

	seed_start(&s, rc);
	seed_frame(&s, reth(RC(READ_REQ), p, 0x10, 2500), 0, 4);
	bad |= seed_put(argv[1], "rc_read", &s);

	seed_start(&s, rc);
	h = reth(RC(CMP_SWAP), p, 0x8, 8);
	h.compare = 0;
	h.swap_add = 0x1111;
	seed_frame(&s, h, 0, 4);
	h = reth(RC(FETCH_ADD), p + 1, 0x10, 8);
	h.swap_add = 5;
	seed_frame(&s, h, 0, 4);
	bad |= seed_put(argv[1], "rc_atomics", &s);

	/* The completer with nothing in flight: an ACK, a PSN NAK. */
	seed_start(&s, rc);
	h = req(RC(ACK), p);
	h.syndrome = 0x1f;
	h.msn = 1;
	seed_frame(&s, h, 0, 4);
	h.syndrome = 0x60;
	seed_frame(&s, h, 0, 4);
	bad |= seed_put(argv[1], "rc_ack_nak", &s);

	/* A duplicate (a READ again: answered anew), a PSN ahead. */
	seed_start(&s, rc);
	seed_frame(&s, req(RC(SEND_ONLY), p), 8, 4);
	seed_frame(&s, reth(RC(READ_REQ), p + 1, 0, 64), 0, 4);
	seed_frame(&s, reth(RC(READ_REQ), p + 1, 0, 64), 0, 4);
	seed_frame(&s, req(RC(SEND_ONLY), p + 7), 8, 4);
	bad |= seed_put(argv[1], "rc_dup_ahead", &s);

	/* Fault rules on the way in: the first packet twice, the second
	 * lost (so the third is ahead); a corrupt lent frame. */
	seed_start_filtered(&s, rc, 0x2 | 0x1 << 2);
	seed_frame(&s, req(RC(SEND_FIRST), p), 1024, 4);
	seed_frame(&s, req(RC(SEND_MIDDLE), p + 1), 1024, 4);
	seed_frame(&s, req(RC(SEND_LAST), p + 2), 100, 4);
	bad |= seed_put(argv[1], "rc_send_dup_lost", &s);

	seed_start_filtered(&s, rc | FW_TRUSTED, 0x3);
	seed_frame(&s, reth(RC(WRITE_ONLY), p, 0x40, 64), 64, 4);
	seed_frame(&s, reth(RC(WRITE_ONLY), p + 1, 0x80, 64), 64, 4);
	bad |= seed_put(argv[1], "rc_write_corrupt_trusted", &s);

	seed_start(&s, FW_FIX_QP_UD | FW_FIX_CSUM);
	h = req(UD(SEND_ONLY), 7);
	h.qkey = FW_QKEY;
	h.src_qpn = 0x99;
	seed_frame(&s, h, 200, 4);
	h.qkey = 0x22;
	seed_frame(&s, h, 200, 6);
	bad |= seed_put(argv[1], "ud_send", &s);
	return bad;
}
