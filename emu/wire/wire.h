/* SPDX-License-Identifier: MIT */
/*
 * emu/wire/wire.h -- the wire: RoCE frames, the ports that carry them, and
 * the cable between ports, which is VXLAN (RFC 7348).
 *
 * Layers, bottom up:
 *
 *   link     how datagrams travel between tunnel endpoints (struct
 *            emu_wire_link: an ops table; wire_link_udp.c is the UDP one)
 *   port     a VXLAN tunnel endpoint: one Ethernet frame per datagram
 *            behind the 8-byte VXLAN header, a forwarding table from inner
 *            MACs to endpoints, frame faults, capture, counters
 *   frame    RoCE v2 (IPv4/IPv6, UDP 4791) and RoCE v1 (GRH, ethertype
 *            0x8915) frames: headers built and parsed from one table of
 *            opcodes, pad, and the ICRC (wire_icrc.c)
 *
 * The wire knows nothing of queues: it builds and checks frames and moves
 * them.  The engine turns work into frames and frames into work.
 *
 * Threads: a port is used by one thread at a time (the engine's run lock);
 * its counters may be read from any thread.  Convention: 0 or a negative
 * errno; sizes and counts as non-negative values beside it.
 */
#ifndef MLX5EMU_EMU_WIRE_WIRE_H
#define MLX5EMU_EMU_WIRE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* ---- numbers of the standards ---- */

#define EMU_WIRE_ROCE_V2_PORT 4791	/* IANA: RoCE v2 */
#define EMU_WIRE_VXLAN_PORT 4789	/* IANA: VXLAN */
#define EMU_WIRE_ETH_P_IPV4 0x0800
#define EMU_WIRE_ETH_P_IPV6 0x86dd
#define EMU_WIRE_ETH_P_ROCE 0x8915	/* RoCE v1 (IBoE) */
#define EMU_WIRE_VXLAN_HLEN 8
#define EMU_WIRE_ETH_HLEN 14
#define EMU_WIRE_ICRC_LEN 4
/* The largest inner frame a port carries: a 4096-byte path MTU's payload
 * with every header (Ethernet, IPv6, UDP, BTH, XRCETH, RETH, ImmDt). */
#define EMU_WIRE_FRAME_MAX 4352
/* A datagram: the VXLAN header and one frame. */
#define EMU_WIRE_DGRAM_MAX (EMU_WIRE_VXLAN_HLEN + EMU_WIRE_FRAME_MAX)

/* ---- opcodes (IBA 9.2, table 36): one table says what each one is ---- */

enum {				/* extension headers after the BTH */
	EMU_WIRE_H_XRCETH = 1 << 0,
	EMU_WIRE_H_RETH = 1 << 1,
	EMU_WIRE_H_AETH = 1 << 2,
	EMU_WIRE_H_DETH = 1 << 3,
	EMU_WIRE_H_IMM = 1 << 4,
	EMU_WIRE_H_IETH = 1 << 5,
	EMU_WIRE_H_ATOMIC = 1 << 6,	/* AtomicETH */
	EMU_WIRE_H_ATOMIC_ACK = 1 << 7,	/* AtomicAckETH */
	EMU_WIRE_H_DCETH = 1 << 8,	/* emulator-chosen (wire_opcode.c) */
};

enum {				/* what a packet of the opcode is */
	EMU_WIRE_F_FIRST = 1 << 0,	/* first packet of a message */
	EMU_WIRE_F_MIDDLE = 1 << 1,
	EMU_WIRE_F_LAST = 1 << 2,	/* ONLY = FIRST | LAST */
	EMU_WIRE_F_REQ = 1 << 3,	/* a request (else a response) */
	EMU_WIRE_F_SEND = 1 << 4,
	EMU_WIRE_F_WRITE = 1 << 5,
	EMU_WIRE_F_READ = 1 << 6,	/* request or response of a READ */
	EMU_WIRE_F_ATOMIC = 1 << 7,	/* request or AtomicAck */
	EMU_WIRE_F_ACK = 1 << 8,	/* ACK/NAK */
	EMU_WIRE_F_PAYLOAD = 1 << 9,	/* may carry data */
	EMU_WIRE_F_RWQE = 1 << 10,	/* the message consumes a receive WQE */
};

/* Transport bits of an opcode (its top three bits). */
enum {
	EMU_WIRE_TR_RC = 0x00,
	EMU_WIRE_TR_UC = 0x20,
	EMU_WIRE_TR_RD = 0x40,
	EMU_WIRE_TR_UD = 0x60,
	EMU_WIRE_TR_CNP = 0x80,
	EMU_WIRE_TR_XRC = 0xa0,
	/* Emulator-chosen, in the IBA's manufacturer-specific range (IBA
	 * 9.2, table 36: transport prefix 0b110): DC requests
	 * (wire_opcode.c). */
	EMU_WIRE_TR_DC = 0xc0,
};

/* Operations (the low five bits), as RC numbers them. */
enum {
	EMU_WIRE_OP_SEND_FIRST = 0x00,
	EMU_WIRE_OP_SEND_MIDDLE = 0x01,
	EMU_WIRE_OP_SEND_LAST = 0x02,
	EMU_WIRE_OP_SEND_LAST_IMM = 0x03,
	EMU_WIRE_OP_SEND_ONLY = 0x04,
	EMU_WIRE_OP_SEND_ONLY_IMM = 0x05,
	EMU_WIRE_OP_WRITE_FIRST = 0x06,
	EMU_WIRE_OP_WRITE_MIDDLE = 0x07,
	EMU_WIRE_OP_WRITE_LAST = 0x08,
	EMU_WIRE_OP_WRITE_LAST_IMM = 0x09,
	EMU_WIRE_OP_WRITE_ONLY = 0x0a,
	EMU_WIRE_OP_WRITE_ONLY_IMM = 0x0b,
	EMU_WIRE_OP_READ_REQ = 0x0c,
	EMU_WIRE_OP_READ_RESP_FIRST = 0x0d,
	EMU_WIRE_OP_READ_RESP_MIDDLE = 0x0e,
	EMU_WIRE_OP_READ_RESP_LAST = 0x0f,
	EMU_WIRE_OP_READ_RESP_ONLY = 0x10,
	EMU_WIRE_OP_ACK = 0x11,
	EMU_WIRE_OP_ATOMIC_ACK = 0x12,
	EMU_WIRE_OP_CMP_SWAP = 0x13,
	EMU_WIRE_OP_FETCH_ADD = 0x14,
	EMU_WIRE_OP_SEND_LAST_INV = 0x16,
	EMU_WIRE_OP_SEND_ONLY_INV = 0x17,
};

struct emu_wire_opinfo {
	const char *name;	/* "RC_SEND_ONLY" */
	uint16_t hdrs;		/* EMU_WIRE_H_* */
	uint16_t flags;		/* EMU_WIRE_F_* */
	uint8_t hlen;		/* BTH and extension headers, bytes */
};

/* The opcode's entry, or NULL for an opcode this wire does not carry. */
const struct emu_wire_opinfo *emu_wire_opinfo(uint8_t opcode);

/* ---- one RoCE packet, decoded ---- */

struct emu_wire_roce {
	/* L2 and L3 */
	uint8_t dmac[6], smac[6];
	uint8_t version;	/* 2: RoCE v2 (IP/UDP), 1: RoCE v1 (GRH) */
	uint8_t sgid[16], dgid[16];	/* v2: ::ffff:a.b.c.d means IPv4 */
	uint8_t tclass, hop_limit;
	uint32_t flow_label;
	uint16_t udp_sport;	/* v2 */
	/* BTH */
	uint8_t opcode;
	bool se, migreq, ackreq, fecn, becn;
	uint8_t padcnt;		/* parsed; built from the payload length */
	uint16_t pkey;
	uint32_t dqpn, psn;
	/* extension headers, those the opcode has */
	uint32_t xrc_srqn;	/* XRCETH */
	uint64_t dc_key;	/* DCETH (emulator-chosen) */
	uint32_t dc_dci, dc_gen, dc_psn0;
	uint64_t va;		/* RETH, AtomicETH */
	uint32_t rkey, dma_len;
	uint8_t syndrome;	/* AETH */
	uint32_t msn;
	uint32_t qkey, src_qpn;	/* DETH */
	uint32_t imm;		/* ImmDt: the four wire bytes, memcpy'd */
	uint32_t ieth;		/* IETH: the rkey, host order */
	uint64_t swap_add, compare;	/* AtomicETH */
	uint64_t orig;		/* AtomicAckETH */
	/* build: leave the ICRC 0, the port computes it where someone can
	 * see the frame (emu_wire_port_icrc_later) */
	bool icrc_later;
};

/* Whether a GID is IPv4-mapped (::ffff:a.b.c.d). */
bool emu_wire_gid_is_v4(const uint8_t gid[16]);

/*
 * The frame's header bytes before the payload (Ethernet, IP/UDP or GRH,
 * BTH, extension headers), for h's version, GIDs and opcode; 0 if the
 * opcode is not carried.
 */
uint32_t emu_wire_roce_hlen(const struct emu_wire_roce *h);

/*
 * Build a frame in place: the payload (paylen bytes) is already at
 * frame + emu_wire_roce_hlen(h); write the headers before it, the pad and
 * the ICRC after it.  Returns the frame's length, or 0 if it would pass
 * EMU_WIRE_FRAME_MAX or the opcode is not carried.
 */
uint32_t emu_wire_roce_build(const struct emu_wire_roce *h, uint8_t *frame,
			     uint32_t paylen);

/* Why a frame is not taken (also the per-port drop counters). */
enum emu_wire_drop {
	EMU_WIRE_DROP_NONE = 0,
	EMU_WIRE_DROP_MALFORMED,	/* lengths, versions, headers */
	EMU_WIRE_DROP_ICRC,		/* the ICRC does not match */
	EMU_WIRE_DROP_NOT_ROCE,		/* another protocol (ignored) */
	EMU_WIRE_DROP_VXLAN,		/* bad VXLAN header or another VNI */
	EMU_WIRE_DROP_L2,		/* strict L2: not our MAC */
	EMU_WIRE_DROP_OPCODE,		/* an opcode this wire does not carry */
	EMU_WIRE_DROP_PKEY,		/* not the default partition */
	EMU_WIRE_DROP_NO_QP,		/* no such QP, or not in a receiving state */
	EMU_WIRE_DROP_PSN,		/* outside the PSN window */
	EMU_WIRE_DROP_PORT_DOWN,	/* the port's link is down */
	EMU_WIRE_DROP_FAULT,		/* a fault rule dropped it */
	EMU_WIRE_DROP_NO_ROUTE,		/* tx: no endpoint for the address */
	EMU_WIRE_DROP_TX_ERR,		/* tx: the link refused it */
	EMU_WIRE_DROP_NUM
};

const char *emu_wire_drop_name(enum emu_wire_drop why);

/*
 * Parse and check a frame (Ethernet onward): the headers its opcode has,
 * lengths against the IP/UDP lengths, pad, and the ICRC.  On success
 * fills *h and the payload's offset and length (pad and ICRC excluded).
 */
enum emu_wire_drop emu_wire_roce_parse(const uint8_t *frame, uint32_t len,
				       struct emu_wire_roce *h,
				       uint32_t *payoff, uint32_t *paylen);

/* A frame from a peer that left its ICRC to be computed where it is
 * observed (the same-host fast path): the same checks, but the ICRC's. */
enum emu_wire_drop emu_wire_roce_parse_trusted(const uint8_t *frame,
					       uint32_t len,
					       struct emu_wire_roce *h,
					       uint32_t *payoff,
					       uint32_t *paylen);

/* The same for a frame of len bytes of which only the first avail are in
 * head, a private copy (the rest stays where another process may change
 * it): DROP_MALFORMED also when a header, or a UDP checksum that is set,
 * needs a byte beyond avail.  The payload's offset is then below len. */
enum emu_wire_drop emu_wire_roce_parse_head(const uint8_t *head,
					    uint32_t avail, uint32_t len,
					    struct emu_wire_roce *h,
					    uint32_t *payoff,
					    uint32_t *paylen);

/* The ICRC of a built frame (RoCE v2 or v1), as it goes on the wire
 * (little-endian byte order); l3off: the IP header's or GRH's offset.
 * 0 for a frame too short to hold the headers it covers and an ICRC
 * (only its len bytes are read). */
uint32_t emu_wire_icrc(const uint8_t *frame, uint32_t l3off, uint32_t len);
/* Write it into the frame's last four bytes (a frame we built: the IP
 * header or GRH right after a plain Ethernet header). */
void emu_wire_icrc_put(uint8_t *frame, uint32_t len);

/*
 * L3 headers: an IPv4 header (20 bytes, DF, header checksum) or an IPv6
 * header / GRH (40 bytes) for a packet of l4len bytes after it; next is
 * the next header (17 UDP, 0x1b BTH).  Also the GRH area of UD receives.
 */
void emu_wire_ipv4_build(uint8_t ip[20], const uint8_t sgid[16],
			 const uint8_t dgid[16], uint8_t tos, uint8_t ttl,
			 uint16_t l4len);
void emu_wire_ipv6_build(uint8_t ip[40], const uint8_t sgid[16],
			 const uint8_t dgid[16], uint8_t tclass,
			 uint32_t flow_label, uint8_t hop_limit,
			 uint8_t next, uint16_t l4len);

/* The MAC an emulated port with this GID has (02:c9 and its IPv4
 * address; a link-local GID's EUI-64); false if the GID says nothing. */
bool emu_wire_mac_of_gid(const uint8_t gid[16], uint8_t mac[6]);

/* UDP source port of a RoCE v2 flow: from the flow label, or, when it is
 * 0, from a flow label computed from the two QP numbers (IBA A17.4.5.1's
 * entropy, as Linux's rdma_get_udp_sport()). */
uint16_t emu_wire_udp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn);

/* ---- endpoints and links ---- */

/* An outer address: where a tunnel endpoint receives datagrams. */
struct emu_wire_ep {
	uint8_t family;		/* AF_INET or AF_INET6; 0: none */
	uint16_t port;		/* host order */
	uint8_t addr[16];	/* IPv4: the first 4 bytes, network order */
};

/* Inline, with fixed sizes: the receive path compares every datagram's
 * sender with what it learned. */
static inline bool emu_wire_ep_eq(const struct emu_wire_ep *a,
				  const struct emu_wire_ep *b)
{
	if (a->family != b->family || a->port != b->port)
		return false;
	return a->family == AF_INET ? !memcmp(a->addr, b->addr, 4) :
				      !memcmp(a->addr, b->addr, 16);
}
/* "127.1.2.3:4789" or "[fe80::1]:4789" */
void emu_wire_ep_format(const struct emu_wire_ep *ep, char *buf, size_t len);

/* One datagram handed to or received from a link. */
struct emu_wire_dgram {
	struct emu_wire_ep ep;	/* tx: destination; rx: source */
	uint8_t *buf;
	uint32_t len;		/* rx: buffer size in, datagram length out */
	/* Its RoCE frame's ICRC is not computed yet: only a link that
	 * trusts its peer (icrc_later) carries such a datagram as it is;
	 * any other path computes it first. */
	bool icrc_later;
	/* rx, from a link whose lend is set: buf is the link's own memory,
	 * readable until the next recv or park call.  Another process may
	 * write those bytes at any time: read each header byte once, from a
	 * private copy. */
	bool lent;
};

struct emu_wire_link;

/* What a link says of itself (relaxed counters: read from any thread). */
struct emu_wire_link_stats {
	uint64_t fast_tx, fast_rx;	/* datagrams through shared memory */
	uint64_t fast_peers;		/* endpoints reached that way now */
};

/*
 * A link: the transport under the tunnel (UDP sockets; shared memory to
 * the processes of this host).  send/recv never block: send returns how
 * many datagrams went (the rest count as dropped), recv how many arrived
 * (0: none): with sockets false only what waits in memory (no system
 * call: every engine pass looks), with sockets true only what the kernel
 * holds (the engine reads its sockets when they may have something).  fd
 * is a descriptor that polls readable when a datagram may be waiting, or
 * -1.  park (optional) is called before the engine waits on fd: it asks
 * the peers to make fd readable for what they send next, and returns
 * false when datagrams wait in memory already (then do not wait).
 */
struct emu_wire_link_ops {
	int (*send)(struct emu_wire_link *l, const struct emu_wire_dgram *d,
		    unsigned int n);
	/* Datagrams received into d (each one's buf and len on entry; a
	 * link whose lend is set may point buf at its own memory instead),
	 * or a negative error; 0 only if it wrote no descriptor. */
	int (*recv)(struct emu_wire_link *l, struct emu_wire_dgram *d,
		    unsigned int n, bool sockets);
	bool (*park)(struct emu_wire_link *l);
	int (*fd)(struct emu_wire_link *l);
	void (*stats)(const struct emu_wire_link *l,
		      struct emu_wire_link_stats *st);
	void (*destroy)(struct emu_wire_link *l);
};

struct emu_wire_link {
	const struct emu_wire_link_ops *ops;
	struct emu_wire_ep local;	/* where it receives */
	/* Bytes of frames the receiving end can hold before it drops (a
	 * sender's window of unacknowledged data stays below it). */
	uint32_t window;
	/* send set it: datagrams went through the kernel (the port reads
	 * and clears it) */
	bool by_sockets;
	/* takes datagrams whose ICRC is left for later (see the dgram) */
	bool icrc_later;
	/* set by the owner: recv may hand out its own memory instead of
	 * copying into the descriptors' buffers (see the dgram's lent) */
	bool lend;
};

/*
 * The UDP link over a socket already bound to local (the port's claim:
 * emu/device binds it); the link owns fd from now on.  NULL with errno.
 */
struct emu_wire_link *emu_wire_link_udp_create(int fd,
					       const struct emu_wire_ep *local);

/*
 * The same-host fast path over a UDP link (wire_link_shm.c): datagrams
 * for endpoints that processes of this host own go through shared
 * memory, the others by udp, which the new link owns.  NULL with errno
 * (udp is then still the caller's).
 */
struct emu_wire_link *emu_wire_link_shm_create(struct emu_wire_link *udp);

/* ---- ports: VXLAN tunnel endpoints ---- */

struct emu_wire_port;

/* What a fault rule sees of a frame, and what it may do to it. */
struct emu_wire_frame_info {
	int dev;		/* device index */
	unsigned int port;	/* 1-based */
	bool rx;		/* received (else being sent) */
	bool roce;		/* the fields below are valid */
	uint8_t opcode;
	uint32_t dqpn, psn, src_qpn;
};

enum emu_wire_verdict {
	EMU_WIRE_PASS = 0,
	EMU_WIRE_FDROP,		/* lose it */
	EMU_WIRE_FDUP,		/* deliver it twice */
	EMU_WIRE_FREORDER,	/* deliver it after the next frame */
	EMU_WIRE_FDELAY,	/* deliver it after *delay_us */
	EMU_WIRE_FCORRUPT,	/* flip a bit (its ICRC then fails) */
};

/* A frame filter (fault injection): called for every frame a port sends
 * or receives while installed. */
struct emu_wire_filter {
	/* Whether any rule could act (cheap: called for every frame). */
	bool (*active)(void *arg);
	enum emu_wire_verdict (*frame)(void *arg,
				       const struct emu_wire_frame_info *fi,
				       uint32_t *delay_us);
	void *arg;
};

struct emu_wire_port_cfg {
	const char *name;		/* "mlx5_0/1", for messages */
	int dev;			/* device index, for filters */
	unsigned int port;		/* 1-based */
	uint32_t vni;			/* 24 bits */
	uint8_t mac[6];			/* the port's inner MAC */
	uint16_t peer_udp_port;		/* outer port of derived peers */
	bool strict_l2;			/* drop frames for other MACs */
	const char *capture;		/* pcap file name, or NULL */
	bool capture_outer;		/* capture whole VXLAN datagrams */
	/* The port's link state (emu/firmware's), read per frame. */
	bool (*link_up)(void *arg);
	void *link_arg;
};

/*
 * A port over a link (which it owns from now on, also on failure).
 * NULL with errno: ENOMEM, or the capture file's error.
 */
struct emu_wire_port *emu_wire_port_create(const struct emu_wire_port_cfg *cfg,
					   struct emu_wire_link *link);
/* Sends what is queued or held, closes the capture, frees the port. */
void emu_wire_port_destroy(struct emu_wire_port *p);

/* A static peer: frames for mac (NULL: every broadcast and unknown
 * destination) go to ep.  0, -ENOSPC. */
int emu_wire_port_add_peer(struct emu_wire_port *p, const uint8_t *mac,
			   const struct emu_wire_ep *ep);
void emu_wire_port_set_filter(struct emu_wire_port *p,
			      const struct emu_wire_filter *f);
int emu_wire_port_fd(struct emu_wire_port *p);
uint32_t emu_wire_port_window(const struct emu_wire_port *p);
const char *emu_wire_port_name(const struct emu_wire_port *p);

/*
 * Sending.  emu_wire_tx_frame() gives a buffer for one frame of up to
 * EMU_WIRE_FRAME_MAX bytes (NULL when every buffer waits: flush first);
 * the caller fills it (emu_wire_roce_build) and queues it with
 * emu_wire_tx_queue(), which runs the filter and the capture.
 * emu_wire_tx_flush() hands the queue to the link, in order, and releases
 * delayed frames whose time has come (now_ns: the engine's clock).  Frames
 * that find no endpoint are dropped and counted.
 */
uint8_t *emu_wire_tx_frame(struct emu_wire_port *p);
/* Whether a frame of @len bytes starting @f would reach any endpoint:
 * a multicast one a known peer, a unicast one its forwarding entry. */
bool emu_wire_port_reaches(const struct emu_wire_port *p, const uint8_t *f,
			   uint32_t len);
/* Whether a RoCE frame built now may leave its ICRC for later: the link
 * trusts its peers and nobody here observes the frame (no capture, no
 * frame fault rule).  The ICRC is then computed only where someone can
 * see the frame: a path to another host, a capture, a fault rule. */
bool emu_wire_port_icrc_later(const struct emu_wire_port *p);
/* icrc_later: a RoCE frame built so (emu_wire_roce.icrc_later). */
void emu_wire_tx_queue(struct emu_wire_port *p, uint8_t *frame, uint32_t len,
		       uint64_t now_ns, bool icrc_later);
/* Returns whether datagrams went through the kernel since the last
 * flush (replies may then come on the sockets). */
bool emu_wire_tx_flush(struct emu_wire_port *p, uint64_t now_ns);
/* The earliest time a held frame is due (0: none). */
uint64_t emu_wire_tx_next_due(const struct emu_wire_port *p);
/* Datagrams queued and not yet handed to the link (a multicast frame
 * counts once per peer). */
unsigned int emu_wire_tx_queued(const struct emu_wire_port *p);

/*
 * Receiving: up to budget datagrams from the link; each is decapsulated,
 * checked (VNI, strict L2, link state, filter) and captured.  A good RoCE
 * frame goes to ops->roce, parsed; any other frame to ops->eth whole
 * (Ethernet header onward, no FCS), which says whether someone took it;
 * a frame nobody takes is counted as not RoCE.  Returns the frames taken.
 */
typedef void (*emu_wire_rx_fn)(void *arg, struct emu_wire_port *p,
			       const struct emu_wire_roce *h,
			       const uint8_t *payload, uint32_t paylen);
typedef bool (*emu_wire_rx_eth_fn)(void *arg, struct emu_wire_port *p,
				   const uint8_t *frame, uint32_t len);
struct emu_wire_rx_ops {
	emu_wire_rx_fn roce;
	emu_wire_rx_eth_fn eth;		/* NULL: RoCE only */
};
unsigned int emu_wire_rx(struct emu_wire_port *p,
			 const struct emu_wire_rx_ops *ops, void *arg,
			 unsigned int budget, uint64_t now_ns, bool sockets);
/* Before the engine waits on emu_wire_port_fd(): false when frames wait
 * in memory already (see the link's park). */
bool emu_wire_port_park(struct emu_wire_port *p);

/* ---- counters ---- */

struct emu_wire_port_stats {
	uint64_t tx_frames, tx_bytes, rx_frames, rx_bytes;
	uint64_t drops[EMU_WIRE_DROP_NUM];
	uint64_t faults;	/* frames a filter acted on */
	uint64_t learned;	/* forwarding entries learned */
	struct emu_wire_link_stats link;
};

void emu_wire_port_stats(const struct emu_wire_port *p,
			 struct emu_wire_port_stats *s);
/* Count a drop decided above the wire (no QP, PSN window). */
void emu_wire_port_drop(struct emu_wire_port *p, enum emu_wire_drop why);

#endif /* MLX5EMU_EMU_WIRE_WIRE_H */
