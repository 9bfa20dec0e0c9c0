/* SPDX-License-Identifier: MIT */
/*
 * emu/wire/wire_opcode.c -- every opcode the wire carries and what it is,
 * in one table in the manner of rxe_opcode.c: the extension headers after
 * the BTH (IBA 9.2, table 36, and the header order of 9.2: XRCETH, DETH,
 * RETH or AtomicETH, AETH, AtomicAckETH, ImmDt, IETH) and the packet's
 * place in its message.
 *
 * RC operations exist on RC and XRC (where requests carry XRCETH, IBA
 * 14.2.6.4); UC has SEND and WRITE; UD has SEND ONLY with DETH.
 *
 * DC requests are emulator-chosen: no public source says how a ConnectX
 * frames them (the IBA and Wireshark's dissector define no DC header).
 * They carry the RC operations under the transport bits 0b110 (the
 * IBA's manufacturer-specific range, so no receiver takes them for RC),
 * the BTH's destination QP the DCT, and right after the BTH (where XRCETH
 * sits) a 20-byte DCETH:
 *   bytes 0-7    the DC access key
 *   byte  8      reserved, 0
 *   bytes 9-11   the DCI's QP number
 *   bytes 12-15  the DCI's connection generation (eng_dc.c: a new
 *                connection replaces the DCT's context for that DCI)
 *   byte  16     reserved, 0
 *   bytes 17-19  the connection's first PSN (only that packet opens a
 *                context)
 * Their responses are RC's, to the DCI's QP number.
 */
#include <pthread.h>

#include "emu/wire/wire.h"

#define BTH_LEN 12

static const uint8_t ext_len[] = {
	[0] = 4,	/* XRCETH */
	[1] = 16,	/* RETH */
	[2] = 4,	/* AETH */
	[3] = 8,	/* DETH */
	[4] = 4,	/* ImmDt */
	[5] = 4,	/* IETH */
	[6] = 28,	/* AtomicETH */
	[7] = 8,	/* AtomicAckETH */
	[8] = 20,	/* DCETH (emulator-chosen) */
};

#define SND (EMU_WIRE_F_REQ | EMU_WIRE_F_SEND | EMU_WIRE_F_PAYLOAD | \
	     EMU_WIRE_F_RWQE)
#define WR (EMU_WIRE_F_REQ | EMU_WIRE_F_WRITE | EMU_WIRE_F_PAYLOAD)
#define RRESP (EMU_WIRE_F_READ | EMU_WIRE_F_PAYLOAD)
#define F EMU_WIRE_F_FIRST
#define M EMU_WIRE_F_MIDDLE
#define L EMU_WIRE_F_LAST

/* The RC operations: name, headers, flags (before the transport). */
static const struct {
	const char *name;
	uint16_t hdrs, flags;
} ops[0x18] = {
	[EMU_WIRE_OP_SEND_FIRST] = { "SEND_FIRST", 0, SND | F },
	[EMU_WIRE_OP_SEND_MIDDLE] = { "SEND_MIDDLE", 0, SND | M },
	[EMU_WIRE_OP_SEND_LAST] = { "SEND_LAST", 0, SND | L },
	[EMU_WIRE_OP_SEND_LAST_IMM] = { "SEND_LAST_IMM", EMU_WIRE_H_IMM,
					SND | L },
	[EMU_WIRE_OP_SEND_ONLY] = { "SEND_ONLY", 0, SND | F | L },
	[EMU_WIRE_OP_SEND_ONLY_IMM] = { "SEND_ONLY_IMM", EMU_WIRE_H_IMM,
					SND | F | L },
	[EMU_WIRE_OP_WRITE_FIRST] = { "WRITE_FIRST", EMU_WIRE_H_RETH, WR | F },
	[EMU_WIRE_OP_WRITE_MIDDLE] = { "WRITE_MIDDLE", 0, WR | M },
	[EMU_WIRE_OP_WRITE_LAST] = { "WRITE_LAST", 0, WR | L },
	[EMU_WIRE_OP_WRITE_LAST_IMM] = { "WRITE_LAST_IMM", EMU_WIRE_H_IMM,
					 WR | L | EMU_WIRE_F_RWQE },
	[EMU_WIRE_OP_WRITE_ONLY] = { "WRITE_ONLY", EMU_WIRE_H_RETH,
				     WR | F | L },
	[EMU_WIRE_OP_WRITE_ONLY_IMM] = { "WRITE_ONLY_IMM",
					 EMU_WIRE_H_RETH | EMU_WIRE_H_IMM,
					 WR | F | L | EMU_WIRE_F_RWQE },
	[EMU_WIRE_OP_READ_REQ] = { "READ_REQUEST", EMU_WIRE_H_RETH,
				   EMU_WIRE_F_REQ | EMU_WIRE_F_READ | F | L },
	[EMU_WIRE_OP_READ_RESP_FIRST] = { "READ_RESPONSE_FIRST",
					  EMU_WIRE_H_AETH, RRESP | F },
	[EMU_WIRE_OP_READ_RESP_MIDDLE] = { "READ_RESPONSE_MIDDLE", 0,
					   RRESP | M },
	[EMU_WIRE_OP_READ_RESP_LAST] = { "READ_RESPONSE_LAST",
					 EMU_WIRE_H_AETH, RRESP | L },
	[EMU_WIRE_OP_READ_RESP_ONLY] = { "READ_RESPONSE_ONLY",
					 EMU_WIRE_H_AETH, RRESP | F | L },
	[EMU_WIRE_OP_ACK] = { "ACKNOWLEDGE", EMU_WIRE_H_AETH,
			      EMU_WIRE_F_ACK | F | L },
	[EMU_WIRE_OP_ATOMIC_ACK] = { "ATOMIC_ACKNOWLEDGE",
				     EMU_WIRE_H_AETH | EMU_WIRE_H_ATOMIC_ACK,
				     EMU_WIRE_F_ATOMIC | F | L },
	[EMU_WIRE_OP_CMP_SWAP] = { "COMPARE_SWAP", EMU_WIRE_H_ATOMIC,
				   EMU_WIRE_F_REQ | EMU_WIRE_F_ATOMIC | F | L },
	[EMU_WIRE_OP_FETCH_ADD] = { "FETCH_ADD", EMU_WIRE_H_ATOMIC,
				    EMU_WIRE_F_REQ | EMU_WIRE_F_ATOMIC | F | L },
	[EMU_WIRE_OP_SEND_LAST_INV] = { "SEND_LAST_INVALIDATE", EMU_WIRE_H_IETH,
					SND | L },
	[EMU_WIRE_OP_SEND_ONLY_INV] = { "SEND_ONLY_INVALIDATE", EMU_WIRE_H_IETH,
					SND | F | L },
};

static struct emu_wire_opinfo table[256];
static char names[256][32];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void add(uint8_t tr, const char *trname, uint8_t op, uint16_t extra)
{
	struct emu_wire_opinfo *o = &table[tr | op];
	uint16_t hdrs = ops[op].hdrs | extra;
	char *n = names[tr | op];
	unsigned int i = 0;

	for (const char *s = trname; *s; s++)
		n[i++] = *s;
	n[i++] = '_';
	for (const char *s = ops[op].name; *s && i < sizeof(names[0]) - 1; s++)
		n[i++] = *s;
	n[i] = '\0';
	o->name = n;
	o->hdrs = hdrs;
	o->flags = ops[op].flags;
	o->hlen = BTH_LEN;
	for (unsigned int b = 0; b < 9; b++)
		if (hdrs & (1u << b))
			o->hlen = (uint8_t)(o->hlen + ext_len[b]);
}

static void table_init(void)
{
	for (uint8_t op = 0; op < 0x18; op++) {
		if (!ops[op].name)
			continue;
		add(EMU_WIRE_TR_RC, "RC", op, 0);
		/* XRC requests name their SRQ (IBA 14.2.6.4); responses not. */
		add(EMU_WIRE_TR_XRC, "XRC", op,
		    (ops[op].flags & EMU_WIRE_F_REQ) ? EMU_WIRE_H_XRCETH : 0);
		if (op <= EMU_WIRE_OP_WRITE_ONLY_IMM)
			add(EMU_WIRE_TR_UC, "UC", op, 0);
		if (ops[op].flags & EMU_WIRE_F_REQ)
			add(EMU_WIRE_TR_DC, "DC", op, EMU_WIRE_H_DCETH);
	}
	add(EMU_WIRE_TR_UD, "UD", EMU_WIRE_OP_SEND_ONLY, EMU_WIRE_H_DETH);
	add(EMU_WIRE_TR_UD, "UD", EMU_WIRE_OP_SEND_ONLY_IMM, EMU_WIRE_H_DETH);
}

const struct emu_wire_opinfo *emu_wire_opinfo(uint8_t opcode)
{
	pthread_once(&table_once, table_init);
	return table[opcode].name ? &table[opcode] : NULL;
}
