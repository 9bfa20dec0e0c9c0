/* SPDX-License-Identifier: MIT */
/*
 * emu/eth/eth.h -- the packet library: what a ConnectX does to an Ethernet
 * frame's headers, as pure functions over byte buffers.
 *
 * Parse (eth_parse.c), the match parameter steering compares (eth_match.c),
 * checksums (eth_csum.c), TCP/UDP segmentation (eth_lso.c), VLAN insertion and
 * stripping (eth_vlan.c), RSS hashing (eth_rss.c) and the CQE's header
 * classification (eth_cqe.c).  No allocation, no lock, no global beyond
 * const tables; every function reads at most the length it is given.
 * Offsets are from the first byte of the frame (the destination MAC).
 */
#ifndef MLX5EMU_EMU_ETH_ETH_H
#define MLX5EMU_EMU_ETH_ETH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- parse ---- */

enum {
	EMU_ETH_TPID_CVLAN = 0x8100,
	EMU_ETH_TPID_SVLAN = 0x88a8,
	EMU_ETH_TYPE_IPV4 = 0x0800,
	EMU_ETH_TYPE_IPV6 = 0x86dd,
	EMU_ETH_VXLAN_PORT = 4789,	/* IANA, RFC 7348 */
	EMU_ETH_HLEN = 14,
	EMU_ETH_VLAN_HLEN = 4,
	EMU_ETH_MAX_VLANS = 2,
	/* IPv6 extension headers walked before giving up on L4. */
	EMU_ETH_IPV6_MAX_EXT = 4,
};

enum emu_eth_l3 {
	EMU_ETH_L3_NONE,
	EMU_ETH_L3_IPV4,
	EMU_ETH_L3_IPV6,
};

enum emu_eth_l4 {
	EMU_ETH_L4_NONE,
	EMU_ETH_L4_TCP,
	EMU_ETH_L4_UDP,
};

/* One layer of headers: the frame's, or the one a VXLAN header carries. */
struct emu_eth_hdrs {
	uint32_t l2_off;		/* the destination MAC */
	uint8_t nvlan;			/* tags parsed, outermost first */
	uint16_t vlan_tpid[EMU_ETH_MAX_VLANS];
	uint16_t vlan_tci[EMU_ETH_MAX_VLANS];
	uint16_t ethertype;		/* the one after the tags */

	enum emu_eth_l3 l3;		/* NONE also for a malformed header */
	bool l3_bad;			/* IP ethertype, header malformed */
	uint32_t l3_off;		/* IP ethertype: after the tags (0: none) */
	uint32_t l3_hlen;		/* IPv4 IHL * 4; IPv6 40 + extensions */
	uint32_t l3_end;		/* l3_off + the IP packet's length */
	uint8_t ip_proto;		/* IPv4 protocol, IPv6 last next header */
	uint8_t tos;			/* DSCP << 2 | ECN */
	uint8_t ttl;			/* TTL or hop limit */
	uint32_t flow_label;		/* IPv6 */
	bool ip_opts;			/* IPv4 options or IPv6 extension headers */
	bool frag;			/* a fragment: MF set or offset != 0 */
	bool frag_later;		/* a fragment other than the first */
	/* The IP length field says more than the frame holds: parsed up
	 * to the frame's end, the L4 checksum never good. */
	bool l3_trunc;
	bool frag_more;			/* MF / M: more fragments follow */
	uint32_t frag_offset;		/* the fragment's offset, in bytes */

	enum emu_eth_l4 l4;		/* NONE also for a malformed header */
	bool l4_bad;			/* TCP/UDP, header malformed */
	uint32_t l4_off;		/* after the IP header (0: none) */
	uint32_t l4_hlen;		/* TCP data offset * 4; UDP 8 */
	uint16_t sport, dport;
	uint16_t tcp_flags;		/* 9 bits: NS CWR ECE URG ACK PSH RST SYN FIN */
};

struct emu_eth_pkt {
	uint32_t len;			/* the frame's length */
	struct emu_eth_hdrs outer;
	bool tunneled;			/* VXLAN (UDP 4789, I flag) */
	uint32_t vni;
	struct emu_eth_hdrs inner;	/* valid when tunneled */
};

/*
 * Parses f[0, len).  Always fills p; returns 0, or -EINVAL when the frame
 * is shorter than an Ethernet header (then nothing but len is set).
 */
int emu_eth_parse(const uint8_t *f, size_t len, struct emu_eth_pkt *p);

/* ---- match (steering) ---- */

/*
 * Fills an fte_match_param (PRM_ST_SZ_BYTES(fte_match_param) bytes, zeroed
 * here first) with the frame's values: outer headers, misc (second VLAN,
 * VXLAN VNI, IPv6 flow labels), inner headers of a VXLAN frame.
 */
void emu_eth_fill_match(const uint8_t *f, const struct emu_eth_pkt *p,
			void *fte_match_param);

/* ---- checksums ---- */

/* One's complement sum of n bytes added to sum (not folded, not inverted). */
uint32_t emu_eth_csum_add(uint32_t sum, const uint8_t *p, size_t n);
/* Folds a sum to 16 bits (not inverted). */
uint16_t emu_eth_csum_fold(uint32_t sum);
/* The pseudo header's sum (RFC 793, RFC 768, RFC 8200 8.1) for l4_len bytes. */
uint32_t emu_eth_csum_pseudo(const uint8_t *f, const struct emu_eth_hdrs *h,
			     uint32_t l4_len);

/* What a ConnectX reports of a received frame's checksums. */
struct emu_eth_csum_ok {
	bool l3_ok;
	bool l4_ok;
	uint16_t check_sum;	/* the CQE's check_sum: sum over the IP packet */
};
void emu_eth_csum_verify(const uint8_t *f, const struct emu_eth_pkt *p,
			 struct emu_eth_csum_ok *ok);

/*
 * Computes and writes, in place, the checksums an Ethernet segment's
 * cs_flags ask for (MLX5_ETH_WQE_L3_CSUM, _L4_CSUM, _L3_INNER_CSUM,
 * _L4_INNER_CSUM).  Headers that are absent or malformed, and fragments'
 * L4, are left as they are.  Returns the flags it honoured.
 */
uint8_t emu_eth_tx_csum(uint8_t *f, size_t len, uint8_t cs_flags);

/* ---- LSO (TCP and UDP segmentation) ---- */

/*
 * A TSO WQE's headers (the Ethernet segment's inline headers, hdr_len
 * bytes: Ethernet, optional VLANs, IPv4 or IPv6, TCP or UDP) and payload_len
 * bytes of payload behind them, cut into segments of mss payload bytes.
 * The engine copies segment k's payload slice (emu_eth_lso_slice) from
 * application memory to frame + hdr_len, then emu_eth_lso_seg writes the
 * headers in front of it and the checksums: no full-frame copy.
 */
struct emu_eth_lso {
	const uint8_t *hdr;
	uint32_t hdr_len;
	uint32_t payload_len;
	uint32_t mss;
	uint32_t nseg;
	struct emu_eth_hdrs h;
	uint32_t seq;		/* TCP: the first segment's sequence number */
	uint16_t ip_id;		/* the first segment's IPv4 identification */
};

/*
 * 0, or -EINVAL when the headers are not exactly Ethernet [VLAN] IP TCP
 * or UDP ending at hdr_len (no IP fragment), or mss is 0.
 */
int emu_eth_lso_init(struct emu_eth_lso *s, const uint8_t *hdr,
		     uint32_t hdr_len, uint32_t payload_len, uint32_t mss);
/* Segment k's payload: its offset in the payload; returns its length. */
uint32_t emu_eth_lso_slice(const struct emu_eth_lso *s, uint32_t k,
			   uint32_t *off);
/*
 * Writes segment k's headers to frame[0, hdr_len) (frame[hdr_len, ...)
 * already holds its payload) and its IPv4 header and L4 checksums;
 * returns the segment's frame length.
 */
uint32_t emu_eth_lso_seg(const struct emu_eth_lso *s, uint32_t k,
			 uint8_t *frame);

/* ---- VLAN ---- */

/*
 * The VLAN an Ethernet segment asks to insert (its bytes 12-15: insert
 * type, TCI).  Returns true with the TPID and TCI to insert.
 */
bool emu_eth_vlan_insert_req(const void *eth_seg, uint16_t *tpid,
			     uint16_t *tci);
/*
 * Inserts a tag after the source MAC of f[0, *len) (cap bytes available);
 * 0, or -ENOSPC / -EINVAL (shorter than 12 bytes).
 */
int emu_eth_vlan_insert(uint8_t *f, size_t *len, size_t cap, uint16_t tpid,
			uint16_t tci);
/*
 * Strips the outermost tag when it is a C-VLAN (0x8100): returns true with
 * its TCI and *len reduced by 4.
 */
bool emu_eth_vlan_strip(uint8_t *f, size_t *len, uint16_t *tci);

/* ---- RSS ---- */

enum { EMU_ETH_RSS_KEY_LEN = 40, EMU_ETH_RSS_INPUT_MAX = 36 };

/* Toeplitz lookup tables for one key: per input byte position and value. */
struct emu_eth_toeplitz {
	uint32_t t[EMU_ETH_RSS_INPUT_MAX][256];
};
void emu_eth_toeplitz_init(struct emu_eth_toeplitz *tz,
			   const uint8_t key[EMU_ETH_RSS_KEY_LEN]);
/* n <= EMU_ETH_RSS_INPUT_MAX */
uint32_t emu_eth_toeplitz(const struct emu_eth_toeplitz *tz, const uint8_t *in,
			  size_t n);

/* A TIR's hashing: tirc.rx_hash_fn, rx_hash_symmetric, one selector. */
struct emu_eth_rss_cfg {
	uint8_t fn;		/* MLX5_RX_HASH_FN_* */
	bool symmetric;
	bool inner;		/* the inner selector (tunneled frames) */
	uint8_t l3_prot_type;	/* MLX5_L3_PROT_TYPE_* */
	uint8_t l4_prot_type;	/* MLX5_L4_PROT_TYPE_* */
	uint32_t fields;	/* MLX5_HASH_FIELD_SEL_* */
	const struct emu_eth_toeplitz *tz;	/* for TOEPLITZ */
};

struct emu_eth_rss_res {
	uint32_t hash;		/* the CQE's rss_hash_result */
	bool matched;		/* the frame had what the selector names */
	uint8_t ip_src, ip_dst;	/* CQE_RSS_IP_* */
	uint8_t l4_src, l4_dst;	/* CQE_RSS_L4_* */
};
void emu_eth_rss_hash(const uint8_t *f, const struct emu_eth_pkt *p,
		      const struct emu_eth_rss_cfg *cfg,
		      struct emu_eth_rss_res *r);

/* ---- CQE classification ---- */

struct emu_eth_cqe_info {
	uint8_t l3_hdr_type;	/* MLX5_CQE_L3_HDR_TYPE_* */
	uint8_t l4_hdr_type;	/* CQE_L4_HDR_TYPE_* */
	bool ip_frag;
	bool ip_ext_opts;
	bool l2_ok, l3_ok, l4_ok;
	uint16_t check_sum;
};
/* The frame's outer headers as a ConnectX classifies them in a CQE. */
void emu_eth_cqe_classify(const uint8_t *f, const struct emu_eth_pkt *p,
			  struct emu_eth_cqe_info *c);
/*
 * Writes the Ethernet fields of a 64-byte CQE (cqe64_eth): c, the RSS
 * result (NULL: none), the stripped VLAN's TCI (cv) when stripped.
 */
void emu_eth_cqe_write(void *cqe64, const struct emu_eth_cqe_info *c,
		       const struct emu_eth_rss_res *r, bool stripped,
		       uint16_t tci);

#endif /* MLX5EMU_EMU_ETH_ETH_H */
