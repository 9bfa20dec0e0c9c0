/* SPDX-License-Identifier: MIT */
/*
 * RoCE frames: the ICRC against captures made by others (scapy's frames
 * and a ConnectX-4 Lx's CNP in the shared test data), the parse verdicts
 * of the defect capture (one defect per frame, listed by its generator),
 * hand-written bytes of one frame, build/parse round trips of every
 * opcode in every framing, and a seeded fuzz of the parser.
 *
 *   MLX5EMU_ROCE_TESTDATA  the directory of the shared captures
 *   MLX5EMU_FUZZ_SEED, MLX5EMU_FUZZ_ITERS
 */
#include <check.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "emu/wire/wire.h"

static const char *testdata(void)
{
	const char *d = getenv("MLX5EMU_ROCE_TESTDATA");

	return d ? d : "testdata";
}

static bool shared_captures_present(void)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/good_rocev2.pcap", testdata());
	return access(path, R_OK) == 0;
}

typedef void (*frame_fn)(int n, const uint8_t *f, uint32_t len, void *arg);

static int for_each_frame(const char *file, frame_fn fn, void *arg)
{
	char path[1024], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *pc;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", testdata(), file);
	pc = pcap_open_offline(path, err);
	ck_assert_msg(pc, "%s: %s", path, err);
	ck_assert_int_eq(pcap_datalink(pc), DLT_EN10MB);
	while (pcap_next_ex(pc, &h, &data) == 1)
		fn(++n, data, h->caplen, arg);
	pcap_close(pc);
	return n;
}

/* The L3 offset of a frame, if it is RoCE v2 (UDP dport 4791). */
static int roce_l3(const uint8_t *f, uint32_t len)
{
	uint16_t type = (uint16_t)(f[12] << 8 | f[13]);
	uint32_t udp;

	if (type == 0x0800)
		udp = 14 + (f[14] & 0xf) * 4u;
	else if (type == 0x86dd)
		udp = 14 + 40;
	else
		return -1;
	if (len < udp + 8 || (f[udp + 2] << 8 | f[udp + 3]) != 4791)
		return -1;
	return 14;
}

/* The packet's end by its IP length (Ethernet padding excluded). */
static uint32_t ip_end(const uint8_t *f)
{
	if (f[12] == 0x08)
		return 14 + (uint32_t)(f[16] << 8 | f[17]);
	return 14 + 40 + (uint32_t)(f[18] << 8 | f[19]);
}

struct icrc_count {
	int roce, good;
};

static void check_icrc(int n, const uint8_t *f, uint32_t len, void *arg)
{
	struct icrc_count *c = arg;
	uint32_t end, want, got;

	(void)n;
	if (roce_l3(f, len) < 0)
		return;
	end = ip_end(f);
	ck_assert_uint_le(end, len);
	want = (uint32_t)f[end - 4] | (uint32_t)f[end - 3] << 8 |
	       (uint32_t)f[end - 2] << 16 | (uint32_t)f[end - 1] << 24;
	got = emu_wire_icrc(f, 14, end);
	c->roce++;
	c->good += got == want;
}

START_TEST(icrc_matches_scapy_and_connectx)
{
	static const char *const files[] = { "good_rocev2.pcap",
					     "good_rocev2_ipv6.pcap",
					     "cx4lx_cnp.pcap" };
	static const int roce[] = { 39, 39, 1 };

	for (unsigned int i = 0; i < 3; i++) {
		struct icrc_count c = { 0 };

		for_each_frame(files[i], check_icrc, &c);
		ck_assert_msg(c.roce == roce[i] && c.good == c.roce,
			      "%s: %d RoCE frames, %d good ICRCs", files[i],
			      c.roce, c.good);
	}
}
END_TEST

/* The ICRC is zlib's CRC-32 of the masked pseudo-packet: recomputed here
 * the long way from the rule as IBA A17 words it, on the real CNP. */
static void check_cnp_by_rule(int n, const uint8_t *f, uint32_t len, void *arg)
{
	uint8_t buf[256];
	uint32_t end = ip_end(f), m = end - 14 - 4, crc;

	(void)n;
	(void)len;
	(void)arg;
	memset(buf, 0xff, 8);
	memcpy(buf + 8, f + 14, m);
	buf[8 + 1] = 0xff;			/* TOS */
	buf[8 + 8] = 0xff;			/* TTL */
	buf[8 + 10] = buf[8 + 11] = 0xff;	/* checksum */
	buf[8 + 26] = buf[8 + 27] = 0xff;	/* UDP checksum */
	buf[8 + 32] = 0xff;			/* BTH byte 4 */
	crc = (uint32_t)crc32(0, buf, 8 + m);
	ck_assert_uint_eq(crc, emu_wire_icrc(f, 14, end));
	/* On the wire least-significant byte first: 2a 00 fd 82 read as
	 * tshark shows it, 0x82fd002a. */
	ck_assert_uint_eq(f[end - 4], 0x82);
	ck_assert_uint_eq(crc, 0x2a00fd82u);
}

START_TEST(icrc_of_connectx_cnp_by_the_rule)
{
	ck_assert_int_eq(for_each_frame("cx4lx_cnp.pcap", check_cnp_by_rule,
					NULL), 1);
}
END_TEST

/* Every frame of the good captures parses, and agrees with what was
 * written into it (checked for a few frames by their known fields). */
static void check_good_parse(int n, const uint8_t *f, uint32_t len, void *arg)
{
	struct emu_wire_roce h;
	uint32_t off, plen;
	enum emu_wire_drop why;
	int *bad = arg;

	if (roce_l3(f, len) < 0)
		return;
	why = emu_wire_roce_parse(f, ip_end(f), &h, &off, &plen);
	/* The CNP (0x81) is a congestion notification, not carried. */
	if (why != (f[14 + (f[12] == 0x08 ? 20 : 40) + 8] == 0x81 ?
		    EMU_WIRE_DROP_OPCODE : EMU_WIRE_DROP_NONE)) {
		fprintf(stderr, "frame %d: %s\n", n, emu_wire_drop_name(why));
		(*bad)++;
	}
}

/* A frame too short for the headers the ICRC covers has none: 0, and no
 * byte past its end is read (each length in a block of exactly that
 * size, for the sanitizers). */
START_TEST(icrc_of_a_short_frame)
{
	static const uint8_t v4 = 0x45, v6 = 0x60;

	for (uint32_t len = 14 + 8; len < 14 + 64; len++) {
		for (int k = 0; k < 2; k++) {
			uint8_t *f = malloc(len);
			uint32_t need = k ? 14 + 40 + 8 + 12 + 4 :
					    14 + 20 + 8 + 12 + 4;

			ck_assert_ptr_nonnull(f);
			memset(f, 0x11, len);
			f[14] = k ? v6 : v4;
			f[14 + 6] = 17;		/* IPv6: next header UDP */
			if (len < need)
				ck_assert_uint_eq(emu_wire_icrc(f, 14, len), 0);
			else
				(void)emu_wire_icrc(f, 14, len);
			emu_wire_icrc_put(f, len);
			free(f);
		}
	}
}
END_TEST

START_TEST(good_captures_parse)
{
	int bad = 0;

	for_each_frame("good_rocev2.pcap", check_good_parse, &bad);
	for_each_frame("good_rocev2_ipv6.pcap", check_good_parse, &bad);
	ck_assert_int_eq(bad, 0);
}
END_TEST

/* bad_rocev2.pcap: frame -> the verdict a receiver must reach (the
 * generator's list, bad_rocev2.expect).  Sequence and semantic defects
 * (a MIDDLE without FIRST, lengths against a PMTU or a READ) parse: the
 * transport's state machines judge those. */
static enum emu_wire_drop bad_expect(int n)
{
	switch (n) {
	case 1: case 2: case 3: case 4: case 5:
		return EMU_WIRE_DROP_ICRC;
	case 11: case 33: case 34:
		return EMU_WIRE_DROP_OPCODE;
	case 12: case 13: case 14: case 15: case 16: case 17: case 18:
	case 19: case 22: case 25:
		return EMU_WIRE_DROP_MALFORMED;
	case 35:
		return EMU_WIRE_DROP_PKEY;
	default:
		return EMU_WIRE_DROP_NONE;
	}
}

static void check_bad_parse(int n, const uint8_t *f, uint32_t len, void *arg)
{
	struct emu_wire_roce h;
	uint32_t off, plen, end;
	enum emu_wire_drop why;
	int *bad = arg;

	if (n > 36 || roce_l3(f, len) < 0)
		return;
	end = ip_end(f);
	why = emu_wire_roce_parse(f, end < len ? end : len, &h, &off, &plen);
	if (why != bad_expect(n)) {
		fprintf(stderr, "bad_rocev2 frame %d: %s, expected %s\n", n,
			emu_wire_drop_name(why),
			emu_wire_drop_name(bad_expect(n)));
		(*bad)++;
	}
}

START_TEST(defect_capture_verdicts)
{
	int bad = 0;

	for_each_frame("bad_rocev2.pcap", check_bad_parse, &bad);
	ck_assert_int_eq(bad, 0);
}
END_TEST

/* One frame written out by hand from the IBA's layouts: an RC
 * RDMA WRITE ONLY with immediate, IPv4, 5 bytes of payload. */
START_TEST(build_matches_hand_written_bytes)
{
	static const uint8_t want[] = {
		/* Ethernet */
		0x02, 0xc9, 0x7f, 0x01, 0x02, 0x04, 0x02, 0xc9, 0x7f, 0x01,
		0x02, 0x03, 0x08, 0x00,
		/* IPv4: 45, tos 0x10, len 20+8+12+16+4+8+4 = 72, id 0, DF,
		 * ttl 64, UDP, checksum, 127.1.2.3 -> 127.1.2.4 */
		0x45, 0x10, 0x00, 0x48, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0x38, 0x8c, 0x7f, 0x01, 0x02, 0x03, 0x7f, 0x01, 0x02, 0x04,
		/* UDP: 0xc123 -> 4791, len 52, checksum 0 */
		0xc1, 0x23, 0x12, 0xb7, 0x00, 0x34, 0x00, 0x00,
		/* BTH: opcode 0x0b, SE, pad 3, P_Key ffff, QP 0x000123,
		 * AckReq, PSN 0x000456 */
		0x0b, 0xb0, 0xff, 0xff, 0x00, 0x00, 0x01, 0x23,
		0x80, 0x00, 0x04, 0x56,
		/* RETH: va 0x1122334455667788, rkey 0xaabbccdd, len 5 */
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		0xaa, 0xbb, 0xcc, 0xdd, 0x00, 0x00, 0x00, 0x05,
		/* ImmDt */
		0xde, 0xad, 0xbe, 0xef,
		/* payload, 3 bytes of pad */
		'h', 'e', 'l', 'l', 'o', 0, 0, 0,
	};
	uint8_t f[EMU_WIRE_FRAME_MAX], ph[128];
	struct emu_wire_roce h = {
		.dmac = { 0x02, 0xc9, 0x7f, 0x01, 0x02, 0x04 },
		.smac = { 0x02, 0xc9, 0x7f, 0x01, 0x02, 0x03 },
		.version = 2,
		.sgid = { [10] = 0xff, [11] = 0xff, 0x7f, 1, 2, 3 },
		.dgid = { [10] = 0xff, [11] = 0xff, 0x7f, 1, 2, 4 },
		.tclass = 0x10, .hop_limit = 64, .udp_sport = 0xc123,
		.opcode = 0x0b, .se = true, .ackreq = true, .pkey = 0xffff,
		.dqpn = 0x123, .psn = 0x456, .va = 0x1122334455667788ull,
		.rkey = 0xaabbccdd, .dma_len = 5,
	};
	uint32_t len, crc;

	memcpy(&h.imm, "\xde\xad\xbe\xef", 4);
	ck_assert_uint_eq(emu_wire_roce_hlen(&h), 14 + 20 + 8 + 12 + 16 + 4);
	memcpy(f + emu_wire_roce_hlen(&h), "hello", 5);
	len = emu_wire_roce_build(&h, f, 5);
	ck_assert_uint_eq(len, sizeof(want) + 4);
	ck_assert_mem_eq(f, want, sizeof(want));
	/* The ICRC by the rule, with zlib: masked TOS, TTL, checksums and
	 * BTH byte 4 behind eight 0xff bytes. */
	memset(ph, 0xff, 8);
	memcpy(ph + 8, want + 14, sizeof(want) - 14);
	ph[9] = 0xff;
	ph[16] = 0xff;
	ph[18] = ph[19] = 0xff;
	ph[34] = ph[35] = 0xff;
	ph[40] = 0xff;
	crc = (uint32_t)crc32(0, ph, 8 + sizeof(want) - 14);
	ck_assert_uint_eq(f[len - 4], crc & 0xff);
	ck_assert_uint_eq(f[len - 1], crc >> 24);
}
END_TEST

/* The emulator-chosen DC frame (wire_opcode.c), by hand: a DC RDMA
 * WRITE ONLY, IPv4, 4 bytes of payload; from the BTH on. */
START_TEST(dc_frame_hand_written_bytes)
{
	static const uint8_t want[] = {
		/* BTH: opcode 0xca (0xc0 | WRITE ONLY), pad 0, P_Key ffff,
		 * the DCT 0x00abcd, AckReq, PSN 0x000010 */
		0xca, 0x00, 0xff, 0xff, 0x00, 0x00, 0xab, 0xcd,
		0x80, 0x00, 0x00, 0x10,
		/* DCETH: key 0x0102030405060708, reserved, DCI 0x000321,
		 * generation 0x00000007, reserved, first PSN 0x00000e */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x00, 0x00, 0x03, 0x21, 0x00, 0x00, 0x00, 0x07,
		0x00, 0x00, 0x00, 0x0e,
		/* RETH: va 0x1000, rkey 0x55, len 4 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
		0x00, 0x00, 0x00, 0x55, 0x00, 0x00, 0x00, 0x04,
		/* payload */
		'd', 'c', '!', '?',
	};
	uint8_t f[EMU_WIRE_FRAME_MAX];
	struct emu_wire_roce h = {
		.version = 2,
		.sgid = { [10] = 0xff, [11] = 0xff, 0x7f, 1, 2, 3 },
		.dgid = { [10] = 0xff, [11] = 0xff, 0x7f, 1, 2, 4 },
		.hop_limit = 64, .udp_sport = 0xc000,
		.opcode = 0xca, .ackreq = true, .pkey = 0xffff,
		.dqpn = 0xabcd, .psn = 0x10, .dc_key = 0x0102030405060708ull,
		.dc_dci = 0x321, .dc_gen = 7, .dc_psn0 = 0xe, .va = 0x1000, .rkey = 0x55,
		.dma_len = 4,
	}, g;
	uint32_t len, off, plen;

	ck_assert_str_eq(emu_wire_opinfo(0xca)->name, "DC_WRITE_ONLY");
	/* Requests only: responses go back as RC's. */
	ck_assert_ptr_null(emu_wire_opinfo(0xc0 | EMU_WIRE_OP_ACK));
	ck_assert_ptr_null(emu_wire_opinfo(0xc0 | EMU_WIRE_OP_READ_RESP_ONLY));
	ck_assert_uint_eq(emu_wire_roce_hlen(&h), 14 + 20 + 8 + 12 + 20 + 16);
	memcpy(f + emu_wire_roce_hlen(&h), "dc!?", 4);
	len = emu_wire_roce_build(&h, f, 4);
	ck_assert_uint_eq(len, 14 + 20 + 8 + sizeof(want) + 4);
	ck_assert_mem_eq(f + 42, want, sizeof(want));
	ck_assert_int_eq(emu_wire_roce_parse(f, len, &g, &off, &plen),
			 EMU_WIRE_DROP_NONE);
	ck_assert_uint_eq(g.dc_key, 0x0102030405060708ull);
	ck_assert_uint_eq(g.dc_dci, 0x321);
	ck_assert_uint_eq(g.dc_gen, 7);
	ck_assert_uint_eq(g.dc_psn0, 0xe);
	ck_assert_uint_eq(g.dqpn, 0xabcd);
	ck_assert_uint_eq(g.rkey, 0x55);
	ck_assert_uint_eq(off, 42 + 48);
	ck_assert_uint_eq(plen, 4);
}
END_TEST

static uint64_t rng;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static void rnd_header(struct emu_wire_roce *h, uint8_t opcode, int framing)
{
	memset(h, 0, sizeof(*h));
	for (int i = 0; i < 6; i++) {
		h->dmac[i] = (uint8_t)rnd();
		h->smac[i] = (uint8_t)rnd();
	}
	for (int i = 0; i < 16; i++) {
		h->sgid[i] = (uint8_t)rnd();
		h->dgid[i] = (uint8_t)rnd();
	}
	h->version = framing == 2 ? 1 : 2;
	if (framing == 0) {	/* IPv4-mapped */
		memset(h->sgid, 0, 10);
		memset(h->dgid, 0, 10);
		h->sgid[10] = h->sgid[11] = h->dgid[10] = h->dgid[11] = 0xff;
	} else {
		h->sgid[0] = h->dgid[0] = 0xfe;	/* never IPv4-mapped */
		h->flow_label = rnd() & 0xfffff;
	}
	h->tclass = (uint8_t)rnd();
	h->hop_limit = (uint8_t)rnd();
	h->udp_sport = (uint16_t)rnd();
	h->opcode = opcode;
	h->se = rnd() & 1;
	h->ackreq = rnd() & 1;
	h->pkey = 0xffff;
	h->dqpn = rnd() & 0xffffff;
	h->psn = rnd() & 0xffffff;
	h->xrc_srqn = rnd() & 0xffffff;
	h->dc_key = (uint64_t)rnd() << 32 | rnd();
	h->dc_dci = rnd() & 0xffffff;
	h->dc_gen = rnd();
	h->dc_psn0 = rnd() & 0xffffff;
	h->va = (uint64_t)rnd() << 32 | rnd();
	h->rkey = rnd();
	h->dma_len = rnd();
	h->syndrome = (uint8_t)rnd();
	h->msn = rnd() & 0xffffff;
	h->qkey = rnd();
	h->src_qpn = rnd() & 0xffffff;
	h->imm = rnd();
	h->ieth = rnd();
	h->swap_add = (uint64_t)rnd() << 32 | rnd();
	h->compare = (uint64_t)rnd() << 32 | rnd();
	h->orig = (uint64_t)rnd() << 32 | rnd();
}

/* What the opcode's headers carry must come back; the rest reads 0. */
static void check_fields(const struct emu_wire_roce *a,
			 const struct emu_wire_roce *b, uint16_t hdrs)
{
	ck_assert_mem_eq(a->dmac, b->dmac, 6);
	ck_assert_mem_eq(a->smac, b->smac, 6);
	ck_assert_mem_eq(a->sgid, b->sgid, 16);
	ck_assert_mem_eq(a->dgid, b->dgid, 16);
	ck_assert_uint_eq(a->version, b->version);
	ck_assert_uint_eq(a->tclass, b->tclass);
	ck_assert_uint_eq(a->hop_limit, b->hop_limit);
	ck_assert_uint_eq(a->opcode, b->opcode);
	ck_assert_uint_eq(a->se, b->se);
	ck_assert_uint_eq(a->ackreq, b->ackreq);
	ck_assert_uint_eq(a->dqpn, b->dqpn);
	ck_assert_uint_eq(a->psn, b->psn);
	if (a->version == 2)
		ck_assert_uint_eq(a->udp_sport, b->udp_sport);
	if (!emu_wire_gid_is_v4(a->dgid))
		ck_assert_uint_eq(a->flow_label, b->flow_label);
	ck_assert_uint_eq(b->xrc_srqn, hdrs & EMU_WIRE_H_XRCETH ? a->xrc_srqn : 0);
	ck_assert_uint_eq(b->dc_key, hdrs & EMU_WIRE_H_DCETH ? a->dc_key : 0);
	ck_assert_uint_eq(b->dc_dci, hdrs & EMU_WIRE_H_DCETH ? a->dc_dci : 0);
	ck_assert_uint_eq(b->dc_gen, hdrs & EMU_WIRE_H_DCETH ? a->dc_gen : 0);
	ck_assert_uint_eq(b->dc_psn0, hdrs & EMU_WIRE_H_DCETH ? a->dc_psn0 : 0);
	ck_assert_uint_eq(b->qkey, hdrs & EMU_WIRE_H_DETH ? a->qkey : 0);
	ck_assert_uint_eq(b->src_qpn, hdrs & EMU_WIRE_H_DETH ? a->src_qpn : 0);
	ck_assert_uint_eq(b->va, hdrs & (EMU_WIRE_H_RETH | EMU_WIRE_H_ATOMIC) ?
				 a->va : 0);
	/* An atomic's length is implied: one 8-byte operand. */
	ck_assert_uint_eq(b->dma_len, hdrs & EMU_WIRE_H_RETH ? a->dma_len :
				      hdrs & EMU_WIRE_H_ATOMIC ? 8 : 0);
	ck_assert_uint_eq(b->msn, hdrs & EMU_WIRE_H_AETH ? a->msn : 0);
	ck_assert_uint_eq(b->syndrome, hdrs & EMU_WIRE_H_AETH ? a->syndrome : 0);
	ck_assert_uint_eq(b->imm, hdrs & EMU_WIRE_H_IMM ? a->imm : 0);
	ck_assert_uint_eq(b->ieth, hdrs & EMU_WIRE_H_IETH ? a->ieth : 0);
	ck_assert_uint_eq(b->swap_add, hdrs & EMU_WIRE_H_ATOMIC ? a->swap_add : 0);
	ck_assert_uint_eq(b->compare, hdrs & EMU_WIRE_H_ATOMIC ? a->compare : 0);
	ck_assert_uint_eq(b->orig, hdrs & EMU_WIRE_H_ATOMIC_ACK ? a->orig : 0);
}

START_TEST(every_opcode_round_trips)
{
	uint8_t f[EMU_WIRE_FRAME_MAX], pay[4096];
	int carried = 0;

	rng = 0x1234567;
	for (int op = 0; op < 256; op++) {
		const struct emu_wire_opinfo *oi = emu_wire_opinfo((uint8_t)op);

		if (!oi)
			continue;
		carried++;
		for (int framing = 0; framing < 3; framing++) {
			struct emu_wire_roce h, g;
			uint32_t plen = (oi->flags & EMU_WIRE_F_PAYLOAD) ?
					rnd() % 4097 : 0;
			uint32_t len, off, got, hl;

			rnd_header(&h, (uint8_t)op, framing);
			hl = emu_wire_roce_hlen(&h);
			for (uint32_t i = 0; i < plen; i++)
				pay[i] = (uint8_t)rnd();
			if (hl + plen + 7 > EMU_WIRE_FRAME_MAX)
				plen = EMU_WIRE_FRAME_MAX - hl - 7;
			memcpy(f + hl, pay, plen);
			len = emu_wire_roce_build(&h, f, plen);
			ck_assert_uint_gt(len, 0);
			ck_assert_int_eq(emu_wire_roce_parse(f, len, &g, &off,
							     &got),
					 EMU_WIRE_DROP_NONE);
			ck_assert_uint_eq(off, hl);
			ck_assert_uint_eq(got, plen);
			ck_assert_mem_eq(f + off, pay, plen);
			check_fields(&h, &g, oi->hdrs);
			/* Any bit flipped from the BTH on is caught, but for
			 * the ones the ICRC masks (FECN, BECN, resv6). */
			do {
				off = hl - oi->hlen + rnd() % (len - hl + oi->hlen);
			} while (off == hl - oi->hlen + 4);
			f[off] ^= (uint8_t)(1u << (rnd() % 8));
			ck_assert_int_ne(emu_wire_roce_parse(f, len, &g, &off,
							     &got),
					 EMU_WIRE_DROP_NONE);
		}
	}
	/* RC 23, XRC 23, UC 12, UD 2, DC 17 (RC's requests) */
	ck_assert_int_eq(carried, 77);
}
END_TEST

START_TEST(oversized_payload_refused)
{
	uint8_t f[EMU_WIRE_FRAME_MAX];
	struct emu_wire_roce h;

	rng = 99;
	rnd_header(&h, EMU_WIRE_OP_SEND_ONLY, 1);
	ck_assert_uint_eq(emu_wire_roce_build(&h, f, EMU_WIRE_FRAME_MAX), 0);
	rnd_header(&h, 0x15, 0);	/* reserved */
	ck_assert_uint_eq(emu_wire_roce_hlen(&h), 0);
}
END_TEST

/* The parser never reads outside the frame, whatever the bytes: random
 * bytes, and good frames with random bytes changed, cut or extended
 * (ASan reports any stray read); given only the first bytes, never
 * outside those. */
START_TEST(parser_fuzz)
{
	const char *s = getenv("MLX5EMU_FUZZ_SEED");
	const char *it = getenv("MLX5EMU_FUZZ_ITERS");
	uint64_t seed = s ? strtoull(s, NULL, 0) : 1;
	long iters = it ? strtol(it, NULL, 0) : 20000;
	unsigned int verdicts[EMU_WIRE_DROP_NUM] = { 0 }, heads = 0;

	rng = seed ? seed : 1;
	for (long i = 0; i < iters; i++) {
		struct emu_wire_roce h, g;
		uint32_t len, off, plen, head;
		uint8_t *f, *hb;
		int op;

		do {
			op = (int)(rnd() & 0xff);
		} while (!emu_wire_opinfo((uint8_t)op));
		rnd_header(&h, (uint8_t)op, (int)(rnd() % 3));
		f = malloc(EMU_WIRE_FRAME_MAX);
		plen = (emu_wire_opinfo((uint8_t)op)->flags &
			EMU_WIRE_F_PAYLOAD) ? rnd() % 1100 : 0;
		len = emu_wire_roce_build(&h, f, plen);
		switch (rnd() % 4) {
		case 0:		/* random bytes */
			for (uint32_t k = 0; k < len; k++)
				f[k] = (uint8_t)rnd();
			break;
		case 1:		/* a few bytes changed */
			for (int k = rnd() % 4 + 1; k; k--)
				f[rnd() % len] = (uint8_t)rnd();
			break;
		case 2:		/* cut anywhere */
			len = rnd() % len;
			break;
		default:	/* lengths in the headers changed */
			f[16 + rnd() % 4] = (uint8_t)rnd();
			f[38 + rnd() % 8] = (uint8_t)rnd();
			break;
		}
		/* Exactly len bytes, so ASan sees any read beyond. */
		f = realloc(f, len ? len : 1);
		verdicts[emu_wire_roce_parse(f, len, &g, &off, &plen)]++;
		/* Only the headers at hand (the rest of a datagram lent from
		 * shared memory): no read beyond them, and what it accepts
		 * the whole frame's trusted parse accepts alike. */
		head = len < 128 ? len : 128;
		hb = malloc(head ? head : 1);
		memcpy(hb, f, head);
		if (!emu_wire_roce_parse_head(hb, head, len, &g, &off, &plen)) {
			uint32_t off2, plen2;

			heads++;
			ck_assert_int_eq(emu_wire_roce_parse_trusted(
					 f, len, &g, &off2, &plen2),
					 EMU_WIRE_DROP_NONE);
			ck_assert_uint_eq(off, off2);
			ck_assert_uint_eq(plen, plen2);
			ck_assert_uint_le(off + plen, len);
		}
		free(hb);
		free(f);
	}
	ck_assert_uint_gt(heads, 0);
	ck_assert_uint_gt(verdicts[EMU_WIRE_DROP_MALFORMED], 0);
	ck_assert_uint_gt(verdicts[EMU_WIRE_DROP_ICRC], 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("wire_frame");
	TCase *tc = tcase_create("frame");
	SRunner *sr;
	int failed;

	/* The captures of others are not part of the repository: beside a
	 * checkout that has them they are oracles; without them those checks
	 * are reported as not run, and the hand-written bytes below remain. */
	if (shared_captures_present()) {
		tcase_add_test(tc, icrc_matches_scapy_and_connectx);
		tcase_add_test(tc, icrc_of_connectx_cnp_by_the_rule);
		tcase_add_test(tc, good_captures_parse);
		tcase_add_test(tc, defect_capture_verdicts);
	} else {
		printf("test_wire_frame: %s/good_rocev2.pcap not found: 4 checks "
		       "against shared captures not run\n", testdata());
	}
	tcase_add_test(tc, build_matches_hand_written_bytes);
	tcase_add_test(tc, dc_frame_hand_written_bytes);
	tcase_add_test(tc, every_opcode_round_trips);
	tcase_add_test(tc, oversized_payload_refused);
	tcase_add_test(tc, icrc_of_a_short_frame);
	tcase_add_test(tc, parser_fuzz);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
