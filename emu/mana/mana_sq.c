/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana_sq.c -- the send queue engine: from the consumer head to
 * the producer's doorbell tail, each WQE's SGEs gathered through the
 * memory keys, the client OOB's offloads applied (IPv4 header checksum,
 * TCP/UDP checksum completion, VLAN insertion, LSO), the frames handed to
 * the wire, the completion written.
 *
 * Checksums follow CHECKSUM_PARTIAL (Linux mana_en.c, DPDK tx.c): software
 * seeded the TCP/UDP checksum field with the pseudo header's sum, the device
 * adds the L4 header and payload to it and stores the complement.  The
 * IPv4 header checksum is computed from scratch.  A UDP checksum computed
 * as 0 is sent as 0xffff (RFC 768).  LSO (the kernel's only: MSS in
 * client_data_unit with the TCP checksum request) cuts the payload behind
 * the TCP header at trans_off with emu/eth's segmentation.  The VLAN tag is
 * inserted last, so trans_off and the parsed offsets are those of the
 * untagged frame software built.
 *
 * CQEs: a WQE with suppress_txcqe_gen gets none, the next TX_OKAY retires
 * it with everything before (DPDK since 2023); an error CQE is written for
 * every failed WQE whatever the flag.  Choices (emu/mana/README.md): see
 * the table there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/mana/mana_queue.h"
#include "emu/mem/mem.h"

/* rdma-core providers/mana/gdma.h: the message (data) buffer's ATB errors */
enum {
	MANA_VENDOR_ERR_TX_MSG_ACCESS = 0x206,
	MANA_VENDOR_ERR_TX_MSG_RANGE = 0x207,
	MANA_VENDOR_ERR_TX_PCIE_MSG = 0x209,
};

enum { ETH_TCP_CSUM_OFF = 16, ETH_UDP_CSUM_OFF = 6, ETH_TCP_MIN = 20,
       ETH_IPV4_CSUM_OFF = 10 };

struct tx_res {
	uint8_t type;
	uint32_t vendor_err;
};

int mana_sq_init(struct mana_sq *sq, void *ring, uint32_t ring_size,
		 uint32_t id, uint32_t vp_offset, uint32_t mtu,
		 struct mana_cqs *cq)
{
	memset(sq, 0, sizeof(*sq));
	if (ring_size < MANA_BU || (ring_size & (ring_size - 1)) || mtu < 68 ||
	    mtu > 65535 || !cq)
		return -EINVAL;
	sq->ring = ring;
	sq->ring_size = ring_size;
	sq->id = id;
	sq->vp_offset = vp_offset;
	sq->mtu = mtu;
	sq->cq = cq;
	/* an LSO segment: headers, an MSS of at most the MTU, a tag */
	sq->seg_cap = MANA_LSO_HDR_MAX + mtu + EMU_ETH_VLAN_HLEN;
	sq->gather = malloc(MANA_SQ_GATHER_MAX + EMU_ETH_VLAN_HLEN);
	sq->seg = malloc(sq->seg_cap);
	if (!sq->gather || !sq->seg) {
		mana_sq_fini(sq);
		return -ENOMEM;
	}
	return 0;
}

void mana_sq_fini(struct mana_sq *sq)
{
	free(sq->gather);
	free(sq->seg);
	sq->gather = sq->seg = NULL;
}

void mana_sq_doorbell(struct mana_sq *sq, uint32_t tail)
{
	/* More than the ring holds past head (or a tail behind head) names
	 * WQEs the producer cannot have written: the doorbell is ignored
	 * and what was posted before it still goes out. */
	if (!mana_wq_tail_ok(sq->head_bu, tail, sq->ring_size)) {
		sq->st.bad_tail++;
		return;
	}
	sq->tail = tail;
}

static void put_csum(uint8_t *field, uint32_t sum, bool udp)
{
	/* emu/eth's sums are of big-endian words */
	uint16_t c = (uint16_t)~emu_eth_csum_fold(sum);

	if (udp && !c)
		c = 0xffff;
	field[0] = (uint8_t)(c >> 8);
	field[1] = (uint8_t)c;
}

/* The offloads of one frame in place; -EINVAL when its headers cannot
 * carry what the OOB asks. */
static int tx_csum(uint8_t *f, uint32_t len, const struct mana_tx_req *r)
{
	struct emu_eth_pkt p;
	const struct emu_eth_hdrs *h = &p.outer;
	uint32_t l4, end, ck;

	if (!r->csum_ip && !r->csum_tcp && !r->csum_udp)
		return 0;
	if (emu_eth_parse(f, len, &p))
		return -EINVAL;
	if (r->csum_ip) {
		uint8_t *ip = f + h->l3_off;

		if (h->l3 != EMU_ETH_L3_IPV4)
			return -EINVAL;
		memset(ip + ETH_IPV4_CSUM_OFF, 0, 2);
		put_csum(ip + ETH_IPV4_CSUM_OFF, emu_eth_csum_add(0, ip, h->l3_hlen),
			 false);
	}
	if (r->csum_tcp) {
		/* the OOB says where TCP starts */
		l4 = r->trans_off;
		ck = ETH_TCP_CSUM_OFF;
		if (l4 < EMU_ETH_HLEN || l4 + ETH_TCP_MIN > len)
			return -EINVAL;
	} else if (r->csum_udp) {
		/* no offset given for UDP: the device parses */
		if (h->l4 != EMU_ETH_L4_UDP)
			return -EINVAL;
		l4 = h->l4_off;
		ck = ETH_UDP_CSUM_OFF;
	} else {
		return 0;
	}
	/* up to the IP packet's end: Ethernet padding is not L4 */
	end = h->l3 != EMU_ETH_L3_NONE && h->l3_end > l4 + ck && h->l3_end <= len ?
	      h->l3_end : len;
	put_csum(f + l4 + ck, emu_eth_csum_add(0, f + l4, end - l4), r->csum_udp);
	return 0;
}

static void tx_emit(struct mana_sq *sq, uint8_t *f, uint32_t len, size_t cap,
		    const struct mana_tx_req *r, mana_emit_fn emit, void *arg)
{
	size_t n = len;

	/* cap always leaves room for the tag and f holds more than 12 bytes */
	if (r->vlan_insert)
		emu_eth_vlan_insert(f, &n, cap, EMU_ETH_TPID_CVLAN, r->vlan_tci);
	emit(arg, f, (uint32_t)n);
	sq->st.frames++;
	sq->st.bytes += n;
}

static uint8_t tx_lso(struct mana_sq *sq, uint32_t len, const struct mana_tx_req *r,
		      mana_emit_fn emit, void *arg)
{
	const uint8_t *g = sq->gather;
	struct emu_eth_lso s;
	uint32_t hdr_len;

	if (r->trans_off < EMU_ETH_HLEN || (uint32_t)r->trans_off + ETH_TCP_MIN > len)
		return MANA_CQE_TX_HDR_PROCESSING_ERROR;
	hdr_len = r->trans_off + (uint32_t)(g[r->trans_off + 12] >> 4) * 4u;
	if (hdr_len > len || hdr_len > MANA_LSO_HDR_MAX)
		return MANA_CQE_TX_HDR_PROCESSING_ERROR;
	if (len - hdr_len > MANA_LSO_PAYLOAD_MAX)
		return MANA_CQE_TX_MTU_DROP;
	if (emu_eth_lso_init(&s, g, hdr_len, len - hdr_len, r->mss) ||
	    s.h.l4 != EMU_ETH_L4_TCP)
		return MANA_CQE_TX_HDR_PROCESSING_ERROR;
	/* a segment's IP packet must fit the port's MTU */
	if (hdr_len - s.h.l3_off + r->mss > sq->mtu)
		return MANA_CQE_TX_MTU_DROP;
	for (uint32_t k = 0; k < s.nseg; k++) {
		uint32_t off, plen = emu_eth_lso_slice(&s, k, &off);
		uint32_t n;

		memcpy(sq->seg + hdr_len, g + hdr_len + off, plen);
		n = emu_eth_lso_seg(&s, k, sq->seg);
		tx_emit(sq, sq->seg, n, sq->seg_cap, r, emit, arg);
	}
	return MANA_CQE_TX_OKAY;
}

/* Gather the SGEs into sq->gather; *len the frame's length. */
static struct tx_res tx_gather(struct mana_sq *sq, const uint8_t *copy,
			       const struct mana_wqe *w,
			       const struct mana_mkeys *mk, uint32_t *len)
{
	struct tx_res res = { MANA_CQE_TX_OKAY, 0 };

	*len = 0;
	for (unsigned int i = 0; i < w->num_sge; i++) {
		struct mana_sge sge;
		int err;

		mana_wqe_sge(copy, MANA_SQ_WQE_MAX, w, i, &sge);
		if (mana_sge_is_dummy(&sge) || !sge.size)
			continue;
		if (sge.size > MANA_SQ_GATHER_MAX - *len) {
			res.type = MANA_CQE_TX_MTU_DROP;
			return res;
		}
		err = mk->check(mk->arg, sge.key, sge.addr, sge.size, false);
		if (err) {
			res.type = MANA_CQE_TX_INVALID_OOB;
			res.vendor_err = err == -EACCES ? MANA_VENDOR_ERR_TX_MSG_ACCESS :
				MANA_VENDOR_ERR_TX_MSG_RANGE;
			return res;
		}
		if (emu_mem_read(sq->gather + *len, (const void *)(uintptr_t)sge.addr,
				 sge.size)) {
			res.type = MANA_CQE_TX_INVALID_OOB;
			res.vendor_err = MANA_VENDOR_ERR_TX_PCIE_MSG;
			return res;
		}
		*len += sge.size;
	}
	return res;
}

static struct tx_res tx_one(struct mana_sq *sq, const uint8_t *copy,
			    const struct mana_wqe *w, const struct mana_mkeys *mk,
			    mana_emit_fn emit, void *arg, bool *suppress)
{
	struct tx_res res = { MANA_CQE_TX_INVALID_OOB, 0 };
	struct mana_tx_req r;
	uint32_t len;

	*suppress = false;
	if (mana_tx_oob_decode(w->oob, w->oob_size, w->client_data_unit, &r))
		return res;
	*suppress = r.suppress_cqe;
	/* the OOB names this SQ's CQ and the SQ's own id bits 23:10 */
	if (r.vcq_num != (sq->cq->id & 0xffffff) ||
	    r.vsq_frame != ((sq->id >> 10) & 0x3fff))
		return res;
	if (r.vp_offset != sq->vp_offset) {
		res.type = MANA_CQE_TX_VPORT_IDX_OUT_OF_RANGE;
		return res;
	}
	res = tx_gather(sq, copy, w, mk, &len);
	if (res.type != MANA_CQE_TX_OKAY)
		return res;
	if (len < EMU_ETH_HLEN) {
		res.type = MANA_CQE_TX_HDR_PROCESSING_ERROR;
		return res;
	}
	if (r.lso) {
		res.type = tx_lso(sq, len, &r, emit, arg);
		return res;
	}
	/* the IP MTU, the Ethernet header and one tag the frame may carry */
	if (len > sq->mtu + EMU_ETH_HLEN + EMU_ETH_VLAN_HLEN) {
		res.type = MANA_CQE_TX_MTU_DROP;
		return res;
	}
	if (tx_csum(sq->gather, len, &r)) {
		res.type = MANA_CQE_TX_HDR_PROCESSING_ERROR;
		return res;
	}
	tx_emit(sq, sq->gather, len, MANA_SQ_GATHER_MAX + EMU_ETH_VLAN_HLEN, &r,
		emit, arg);
	return res;
}

static void tx_cqe(struct mana_sq *sq, uint8_t type, uint32_t vendor_err,
		   uint32_t off)
{
	uint8_t client[MANA_CQE_CLIENT], cqe[MANA_CQE_SIZE];

	if (type != MANA_CQE_TX_OKAY)
		sq->st.errors++;
	mana_tx_cqe_build(client, type, vendor_err, off);
	if (mana_cqs_put_copy(sq->cq, client, sq->id, true, cqe))
		sq->st.cqe_faults++;
	else if (sq->dp && sq->dp->cqe)
		sq->dp->cqe(sq->dp_arg, sq->cq, cqe);
}

/* The hooks' word on a WQE (trace, fault rules): true when a rule fails
 * it.  The queue goes on after such an error CQE, as after any TX error:
 * the kernel and DPDK count it and carry on. */
static bool tx_hook(struct mana_sq *sq, const uint8_t *copy,
		    const struct mana_wqe *w, uint32_t off, uint8_t *type,
		    uint32_t *vendor_err)
{
	const struct mana_dp_wqe v = { .wq_id = sq->id, .off = off,
				       .copy = copy, .w = w };

	return sq->dp->wqe && sq->dp->wqe(sq->dp_arg, &v, type, vendor_err);
}

unsigned int mana_sq_process(struct mana_sq *sq, unsigned int budget,
			     const struct mana_mkeys *mk, mana_emit_fn emit,
			     void *arg)
{
	uint8_t copy[MANA_SQ_WQE_MAX];
	unsigned int n = 0;

	while (n < budget && sq->stop == MANA_WQ_RUNNING) {
		enum mana_wqe_verdict v = MANA_WQE_EMPTY;
		struct mana_wqe w;
		struct tx_res res;
		uint32_t off, vendor_err;
		bool suppress;
		uint8_t type;

		switch (mana_wq_fetch(sq->ring, sq->ring_size, MANA_WQ_SQ, sq->head_bu,
				      sq->tail, copy, &w, &v, &off)) {
		case MANA_FETCH_WQE:
			break;
		case MANA_FETCH_FAULT:
			sq->stop = MANA_WQ_STOP_RING_FAULT;
			return n;
		default:
			return n;
		}
		if (v != MANA_WQE_OK) {
			uint32_t bytes = w.size_bu * MANA_BU;

			/* a size read from a bad OOB size code or larger than
			 * the ring cannot say where the next WQE starts */
			if (v == MANA_WQE_BAD_OOB || bytes > sq->ring_size) {
				tx_cqe(sq, mana_wqe_verdict_cqe(MANA_WQ_SQ, v, &vendor_err),
				       vendor_err, off);
				sq->stop = MANA_WQ_STOP_BAD_WQE;
				return n + 1;
			}
			if (bytes > sq->tail - sq->head_bu * MANA_BU)
				return n;	/* the rest is not posted yet */
			type = mana_wqe_verdict_cqe(MANA_WQ_SQ, v, &vendor_err);
			tx_cqe(sq, type, vendor_err, off);
		} else if (sq->dp && tx_hook(sq, copy, &w, off, &type, &vendor_err)) {
			sq->st.injected++;
			tx_cqe(sq, type, vendor_err, off);
		} else {
			res = tx_one(sq, copy, &w, mk, emit, arg, &suppress);
			if (res.type != MANA_CQE_TX_OKAY || !suppress)
				tx_cqe(sq, res.type, res.vendor_err, off);
			else
				sq->st.suppressed++;
		}
		sq->head_bu += w.size_bu;
		sq->st.wqes++;
		n++;
	}
	return n;
}
