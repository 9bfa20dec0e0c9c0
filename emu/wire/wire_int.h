/* SPDX-License-Identifier: MIT */
/*
 * emu/wire/wire_int.h -- inside the wire: the port's state, the
 * forwarding table and the capture, grouped by file (byte order:
 * emu/base/bytes.h).
 */
#ifndef MLX5EMU_EMU_WIRE_WIRE_INT_H
#define MLX5EMU_EMU_WIRE_WIRE_INT_H

#include <stdatomic.h>
#include <string.h>

#include "emu/base/bytes.h"
#include "emu/wire/wire.h"

/* A counter that one thread at a time adds to (a port and its link are
 * driven under their owner's lock) and any thread reads: a plain load
 * and store, since a locked add after each frame's copy would wait for
 * every store of that copy to land. */
static inline void wire_count_own(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) +
			      n, memory_order_relaxed);
}

/* ---- wire_l3.c ---- */
/* The Internet checksum of len bytes (0 when a header's own checks). */
uint16_t wire_ip_csum(const uint8_t *h, unsigned int len);

/* ---- wire_fdb.c: inner MAC -> outer endpoint, as a VTEP keeps it ---- */

#define WIRE_FDB_SIZE 256	/* a power of two */
#define WIRE_FDB_STATIC_ANY 16	/* default peers (every unknown frame) */

struct wire_fdb_entry {
	uint8_t mac[6];
	bool used, is_static;
	struct emu_wire_ep ep;
};

struct wire_fdb {
	struct wire_fdb_entry e[WIRE_FDB_SIZE];
	unsigned int n;
	struct emu_wire_ep any[WIRE_FDB_STATIC_ANY];
	unsigned int nany;
	uint16_t peer_port;		/* outer port of derived peers */
};

/* The endpoint of an inner frame's destination: the table, else the first
 * default peer, else what the emulator's addressing says (a 02:c9 MAC or
 * an IPv4 destination). */
bool wire_fdb_lookup(const struct wire_fdb *t, const uint8_t *frame,
		     uint32_t len, struct emu_wire_ep *ep);
/* Remember where a source MAC lives (static entries stay); true if new. */
bool wire_fdb_learn(struct wire_fdb *t, const uint8_t mac[6],
		    const struct emu_wire_ep *ep);
int wire_fdb_add_static(struct wire_fdb *t, const uint8_t *mac,
			const struct emu_wire_ep *ep);
/* Every peer the table knows (broadcast and multicast): up to max. */
unsigned int wire_fdb_peers(const struct wire_fdb *t, struct emu_wire_ep *eps,
			    unsigned int max);

/* ---- wire_pcap.c: a capture file ---- */

struct wire_pcap;
struct wire_pcap *wire_pcap_open(const char *path, int *err);
/* One record: the frame (and, when outer, the VXLAN datagram's outer
 * Ethernet, IP and UDP headers made up around it). */
void wire_pcap_write(struct wire_pcap *pc, const uint8_t *data, uint32_t len);
void wire_pcap_write_outer(struct wire_pcap *pc, const struct emu_wire_ep *src,
			   const struct emu_wire_ep *dst, const uint8_t smac[6],
			   const uint8_t *dgram, uint32_t len);
void wire_pcap_flush(struct wire_pcap *pc);
void wire_pcap_close(struct wire_pcap *pc);

/* ---- wire_link_udp.c ---- */

/* A message with UDP_SEGMENT: at most this many datagrams (older
 * kernels' UDP_MAX_SEGMENTS; 2024's raised it to 128) and bytes (one IPv4
 * datagram's UDP payload: 65535 - 20 - 8). */
#define WIRE_UDP_GSO_SEGS 64
#define WIRE_UDP_GSO_BYTES 65507u

/* How many of d[0..n), at most max, go as one segmented message: the
 * leading run to one endpoint whose datagrams all have d[0]'s length but
 * the last, which may be shorter; 0 only when n or max is. */
unsigned int wire_udp_run(const struct emu_wire_dgram *d, unsigned int n,
			  unsigned int max);

/* ---- wire_port.c ---- */

#define WIRE_TX_SLOTS 64	/* frames queued between flushes */
#define WIRE_RX_BATCH 32	/* datagrams per receive call */
#define WIRE_HELD_MAX 256	/* frames a fault holds back */

struct wire_held {
	uint64_t due_ns;
	bool after_next;	/* reorder: goes after the next frame */
	uint32_t len;
	uint8_t *dgram;		/* VXLAN header and frame (malloc'd) */
};

struct emu_wire_port {
	struct emu_wire_port_cfg cfg;
	char name[32];
	char *capture_path;
	struct emu_wire_link *link;
	struct wire_fdb fdb;
	struct wire_pcap *pcap;
	const struct emu_wire_filter *_Atomic filter;
	/* tx: slots of whole datagrams, a queue of ready ones */
	uint8_t (*tx_buf)[EMU_WIRE_DGRAM_MAX];
	unsigned int tx_used;		/* slots handed out since the flush */
	struct emu_wire_dgram tx_q[WIRE_TX_SLOTS * 2];
	unsigned int tx_n;
	bool tx_sockets;		/* the link used the kernel */
	struct wire_held held[WIRE_HELD_MAX];
	unsigned int nheld;
	/* rx */
	uint8_t (*rx_buf)[EMU_WIRE_DGRAM_MAX];
	struct emu_wire_dgram rx_d[WIRE_RX_BATCH];
	unsigned int rx_ready;	/* leading rx_d set up and untouched since */
	/* counters (relaxed atomics: read from any thread) */
	_Atomic uint64_t tx_frames, tx_bytes, rx_frames, rx_bytes;
	_Atomic uint64_t drops[EMU_WIRE_DROP_NUM];
	_Atomic uint64_t faults, learned;
};

#endif /* MLX5EMU_EMU_WIRE_WIRE_INT_H */
