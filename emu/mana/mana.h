/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana.h -- the queue mechanics of an emulated MANA (Azure Network
 * Adapter) NIC as pure functions over caller-owned memory: WQE walk, CQ ring
 * writer and owner-bit check, doorbell decode, TX client OOB decode, RX/TX
 * CQE build, RSS.  No allocation, no lock, no device state: a device model
 * keeps its rings and counters and calls these.
 *
 * Layouts are prm/defs/mana.prm (little-endian, prm/prm_le.h), numbers
 * prm/mana.def.  Conventions: functions that can reject their arguments
 * return 0 or a negative errno; the WQE walk returns a verdict instead,
 * because a malformed WQE is guest behaviour the device answers with a CQE,
 * not a programming error.
 */
#ifndef MLX5EMU_EMU_MANA_MANA_H
#define MLX5EMU_EMU_MANA_MANA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/eth/eth.h"

enum {
	MANA_BU = 32,			/* WQE basic unit, bytes */
	MANA_SQ_WQE_MAX = 512,		/* GDMA_MAX_SQE_SIZE */
	MANA_RQ_WQE_MAX = 256,		/* GDMA_MAX_RQE_SIZE */
	MANA_WQE_HDR = 8,
	MANA_SGE_SIZE = 16,
	MANA_OOB_SHORT = 8,
	MANA_OOB_LONG = 24,
	MANA_CQE_SIZE = 64,
	MANA_CQE_CLIENT = 60,		/* client data before the info dword */
	MANA_RX_PPI = 4,
	MANA_RSS_TABLE = 64,
	MANA_RSS_KEY_LEN = 40,
	MANA_HASH_L3 = 0x049,		/* NDIS IPV4 | IPV6 | IPV6_EX */
	MANA_HASH_L4 = 0x1B6,		/* NDIS TCP/UDP over IPV4/IPV6/IPV6_EX */
	/* rdma-core providers/mana/gdma.h VENDOR_ERR_TX_GDMA_CORRUPTED_WQE */
	MANA_VENDOR_ERR_CORRUPTED_WQE = 0x201,
};

enum mana_cqe_type {
#define MANA_CQE(name, val, tx, text) MANA_CQE_##name = val,
#include "prm/mana.def"
#undef MANA_CQE
};

enum mana_msg_code {
#define MANA_MSG(name, code, req, resp) MANA_MSG_##name = code,
#include "prm/mana.def"
#undef MANA_MSG
};

/* ---- WQE walk (mana_wqe.c) ---- */

enum mana_wq_kind { MANA_WQ_SQ, MANA_WQ_RQ };

enum mana_wqe_verdict {
	MANA_WQE_OK,
	MANA_WQE_EMPTY,		/* no byte posted past head */
	MANA_WQE_NO_SGE,	/* num_sge 0 */
	MANA_WQE_BAD_OOB,	/* OOB size code not 2/6 (SQ) or not 2 (RQ) */
	MANA_WQE_TOO_BIG,	/* over 512 B (SQ) / 256 B (RQ) */
	MANA_WQE_PAST_TAIL,	/* the WQE ends past the producer's tail */
};

struct mana_sge {
	uint64_t addr;
	uint32_t key;
	uint32_t size;
};

struct mana_wqe {
	uint32_t off;		/* byte offset of the header in the ring */
	uint32_t size_bu;	/* what the WQE consumes */
	uint8_t num_sge;
	uint8_t oob_size;	/* 8 or 24 */
	uint8_t last_vbytes;
	bool oob_in_sgl;
	uint16_t client_data_unit;
	const uint8_t *oob;	/* inline OOB, inside the ring (never wraps) */
};

/*
 * Read the WQE at head_bu (consumer index in basic units, free running) of
 * a ring of ring_size bytes (a power of two, at least one basic unit; a
 * WQE larger than the ring is TOO_BIG) whose producer rang tail (bytes,
 * free running, as the doorbell's tail_ptr).  On MANA_WQE_OK *w describes it; otherwise w->size_bu is what
 * the device skips when it can tell (0 for EMPTY and PAST_TAIL).
 */
enum mana_wqe_verdict mana_wqe_read(const uint8_t *ring, uint32_t ring_size,
				    enum mana_wq_kind kind, uint32_t head_bu,
				    uint32_t tail, struct mana_wqe *w);
/* SGE i (< w->num_sge); the SGL may wrap to the ring's start. */
void mana_wqe_sge(const uint8_t *ring, uint32_t ring_size,
		  const struct mana_wqe *w, unsigned int i, struct mana_sge *sge);
/* The placeholder SGE written for an empty SGL: {address 1, key 0, size 0}. */
bool mana_sge_is_dummy(const struct mana_sge *sge);
/* The error CQE type a verdict earns on a send queue (0: none) and the
 * vendor_err to report with it. */
uint8_t mana_wqe_verdict_cqe(enum mana_wq_kind kind, enum mana_wqe_verdict v,
			     uint32_t *vendor_err);
const char *mana_wqe_verdict_str(enum mana_wqe_verdict v);

/* ---- CQ ring (mana_cq.c) ---- */

/* The device's side of one CQ: any entry count, not only powers of two. */
struct mana_cq_ring {
	uint8_t *buf;		/* count * 64 bytes */
	uint32_t count;
	uint64_t produced;	/* CQEs written so far (j of the next one) */
};

/* The owner field's width: a consumer's head runs modulo count << 3. */
enum { MANA_CQE_OWNER_BITS = 3 };

/* Slot and owner value of the j-th CQE ever written to a ring of count. */
static inline uint32_t mana_cq_slot(uint32_t count, uint64_t j)
{
	return (uint32_t)(j % count);
}

static inline uint8_t mana_cq_owner(uint32_t count, uint64_t j)
{
	return (uint8_t)((j / count + 1) & 7);
}

/* Write one CQE: 60 bytes of client data, then the info dword with
 * wq_num/is_sq/owner, published with a release store so a consumer that
 * sees the owner sees the data.  buf is 4-byte aligned (rings are
 * page aligned).  Returns the slot's address. */
uint8_t *mana_cq_put(struct mana_cq_ring *cq, const uint8_t client[MANA_CQE_CLIENT],
		     uint32_t wq_num, bool is_sq);

enum mana_cq_view { MANA_CQ_EMPTY, MANA_CQ_VALID, MANA_CQ_OVERFLOW };

/* What a consumer whose head (free running, starting at count, as DPDK's
 * and the kernel's) sees at its slot. */
enum mana_cq_view mana_cq_peek(const uint8_t *buf, uint32_t count, uint64_t head);

/* ---- doorbells (mana_db.c) ---- */

enum mana_db_queue { MANA_DB_SQ, MANA_DB_RQ, MANA_DB_CQ, MANA_DB_EQ };

enum {
	MANA_DB_OFF_SQ = 0x000,
	MANA_DB_OFF_RQ = 0x400,
	MANA_DB_OFF_CQ = 0x800,
	MANA_DB_OFF_EQ = 0xff8,
	/* 32-bit forms (DPDK on 32-bit CPUs only) */
	MANA_DB_OFF_SQ_SHORT = 0x010,
	MANA_DB_OFF_RQ_SHORT = 0x410,
	MANA_DB_OFF_CQ_SHORT = 0x810,
	MANA_DB_OFF_EQ_SHORT = 0xff0,
};

struct mana_db {
	enum mana_db_queue queue;
	bool incr;		/* short form: tail is an increment, not absolute */
	bool arm;		/* CQ/EQ */
	uint8_t wqe_cnt;	/* RQ long form */
	uint32_t id;		/* 24 bits (EQ 16; short forms 12) */
	uint32_t tail;		/* bytes (SQ/RQ) or entries (CQ/EQ) */
};

/* Decode a store of width 8 or 4 bytes at offset off of the doorbell page;
 * -EINVAL for an offset or width that is no doorbell. */
int mana_db_decode(uint32_t off, unsigned int width, uint64_t value,
		   struct mana_db *db);

/* ---- TX (mana_tx.c) ---- */

/* What the client OOB asks of the device, with the fields that only mean
 * something under a flag already reduced to don't-care (0). */
struct mana_tx_req {
	bool long_fmt;
	bool outer_ipv4, outer_ipv6;
	bool csum_ip, csum_tcp, csum_udp;
	bool suppress_cqe;
	bool lso;		/* client_data_unit set with TCP checksum */
	bool vlan_insert;
	uint16_t vlan_tci;	/* pcp << 13 | dei << 12 | vlan_id */
	uint16_t trans_off;	/* only with csum_tcp */
	uint16_t mss;		/* only with lso */
	uint16_t vp_offset;
	uint32_t vcq_num;
	uint32_t vsq_frame;
};

/* oob_size is the WQE's (8 or 24); -EINVAL for another size or a pkt_fmt
 * that disagrees with it. */
int mana_tx_oob_decode(const uint8_t *oob, unsigned int oob_size,
		       uint16_t client_data_unit, struct mana_tx_req *req);

/* Client data of a TX completion for the WQE at wqe_off (bytes in the
 * ring): tx_wqe_offset counts basic units, so the dword reads as the
 * byte offset. -EINVAL if type is not a TX type. */
int mana_tx_cqe_build(uint8_t client[MANA_CQE_CLIENT], uint8_t type,
		      uint32_t vendor_err, uint32_t wqe_off);

/* ---- RX (mana_rx.c) ---- */

struct mana_rx_cqe {
	uint8_t type;		/* RX_OKAY, RX_COALESCED_4, RX_TRUNCATED */
	uint8_t npkts;		/* 1, or 1..4 for RX_COALESCED_4 */
	struct {
		uint16_t len;	/* not 0: a zero length ends the consumer's walk */
		uint32_t hash;
	} pkt[MANA_RX_PPI];
	uint16_t hashtype;	/* MANA_HASH_L3, MANA_HASH_L4 or 0 */
	bool vlan_present;
	uint16_t vlan_id;
	bool ip_ok, ip_fail, tcp_ok, tcp_fail, udp_ok, udp_fail;
	uint32_t wqe_off;	/* rx_wqe_offset: bytes in the ring */
};

int mana_rx_cqe_build(uint8_t client[MANA_CQE_CLIENT], const struct mana_rx_cqe *rx);

/* Fill the checksum bits from a parsed, stripped frame (the status of what
 * the frame carries; nothing for non-IP). */
void mana_rx_csum_status(const uint8_t *f, const struct emu_eth_pkt *p,
			 struct mana_rx_cqe *rx);

/* ---- RSS (mana_rss.c) ---- */

struct mana_rss {
	struct emu_eth_toeplitz tz;	/* from the 40-byte key */
	uint32_t table[MANA_RSS_TABLE];	/* queue (rx object) per bucket */
	uint32_t default_q;		/* non-IP frames */
	bool enable;			/* off: everything to default_q */
};

/* table of n (1..64) entries replicated to 64 (i % n), as the kernel sends
 * MANA_CONFIG_VPORT_RX.  -EINVAL for n out of range. */
int mana_rss_init(struct mana_rss *rss, const uint8_t key[MANA_RSS_KEY_LEN],
		  const uint32_t *table, unsigned int n, uint32_t default_q);

struct mana_rss_res {
	uint32_t queue;
	uint32_t hash;		/* 0 for non-IP */
	uint16_t hashtype;	/* MANA_HASH_L3 / MANA_HASH_L4 / 0 */
};

/* The NDIS tuple of a parsed frame (src IP, dst IP, then src and dst port
 * for TCP/UDP that is not a fragment), in network order; returns its
 * length, 0 for non-IP. */
size_t mana_rss_tuple(const uint8_t *f, const struct emu_eth_pkt *p,
		      uint8_t out[EMU_ETH_RSS_INPUT_MAX], uint16_t *hashtype);
void mana_rss_classify(const struct mana_rss *rss, const uint8_t *f,
		       const struct emu_eth_pkt *p, struct mana_rss_res *res);

#endif /* MLX5EMU_EMU_MANA_MANA_H */
