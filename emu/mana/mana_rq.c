/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana_rq.c -- the receive queue engine: a frame the device
 * accepted for this queue goes into the next posted WQE's buffers through
 * the memory keys, and a completion says so.
 *
 * One WQE per packet, RX_OKAY per packet, or with coalescing on (the
 * kernel's cqe_coalescing_enable for RSS QPs) RX_COALESCED_4 CQEs of one to
 * four packets whose per-packet infos the consumer walks until pkt_len 0
 * (Linux mana_en.c mana_process_rx_cqe, DPDK rx.c).  A frame larger than
 * the WQE's buffers consumes the WQE and earns RX_TRUNCATED (DPDK drops
 * it and reposts the buffer).  A C-VLAN tag is stripped and reported:
 * DPDK assumes the device always does so.
 *
 * Chosen where no source says (emu/mana/README.md): a buffer an SGE's
 * memory key does not cover, or that faults, also earns RX_TRUNCATED, with
 * the receive ATB vendor error, since a receive CQE has no error type and a
 * WQE consumed without a CQE would put the consumer's buffer ring out of
 * step; packets share a coalesced CQE only when the CQE's shared fields
 * (VLAN, hash type, checksum bits) agree.
 */
#include <errno.h>
#include <string.h>

#include "emu/mana/mana_queue.h"
#include "emu/mem/mem.h"
#include "prm/prm_le.h"

/* rdma-core providers/mana/gdma.h: receive SGE ATB errors, PCIe */
enum {
	MANA_VENDOR_ERR_RX_PCIE = 0x10c,
	MANA_VENDOR_ERR_RX_SGE_RIGHT = 0x183,
	MANA_VENDOR_ERR_RX_SGE_RANGE = 0x1c3,
};

enum { ETH_MACS = 12 };

struct rx_one {
	struct mana_rx_cqe rx;
	uint32_t vendor_err;
};

int mana_rq_init(struct mana_rq *rq, void *ring, uint32_t ring_size,
		 uint32_t id, struct mana_cqs *cq)
{
	memset(rq, 0, sizeof(*rq));
	if (ring_size < MANA_BU || (ring_size & (ring_size - 1)) || !cq)
		return -EINVAL;
	rq->ring = ring;
	rq->ring_size = ring_size;
	rq->id = id;
	rq->cq = cq;
	rq->strip_vlan = true;
	return 0;
}

void mana_rq_doorbell(struct mana_rq *rq, uint32_t tail)
{
	/* as the SQ's: a tail past head + ring size is ignored */
	if (!mana_wq_tail_ok(rq->head_bu, tail, rq->ring_size)) {
		rq->st.bad_tail++;
		return;
	}
	rq->tail = tail;
}

/* The frame as delivered: without the tag when stripped. */
struct rx_src {
	const uint8_t *f;
	uint32_t len;		/* delivered length */
	bool stripped;
};

static uint32_t rx_piece(const struct rx_src *s, uint32_t off, const uint8_t **p)
{
	if (s->stripped && off < ETH_MACS) {
		*p = s->f + off;
		return ETH_MACS - off;
	}
	*p = s->f + off + (s->stripped ? EMU_ETH_VLAN_HLEN : 0);
	return s->len - off;
}

/* Scatter the frame into the WQE's SGEs; the bytes written or a negative
 * vendor error. */
static int64_t rx_scatter(const uint8_t *copy, const struct mana_wqe *w,
			  const struct rx_src *s, const struct mana_mkeys *mk)
{
	uint32_t done = 0;

	for (unsigned int i = 0; i < w->num_sge && done < s->len; i++) {
		struct mana_sge sge;
		uint32_t n, k = 0;
		int err;

		mana_wqe_sge(copy, MANA_SQ_WQE_MAX, w, i, &sge);
		if (mana_sge_is_dummy(&sge) || !sge.size)
			continue;
		n = s->len - done < sge.size ? s->len - done : sge.size;
		err = mk->check(mk->arg, sge.key, sge.addr, n, true);
		if (err)
			return -(int64_t)(err == -EACCES ? MANA_VENDOR_ERR_RX_SGE_RIGHT :
					  MANA_VENDOR_ERR_RX_SGE_RANGE);
		while (k < n) {
			const uint8_t *p;
			uint32_t c = rx_piece(s, done + k, &p);

			c = c < n - k ? c : n - k;
			if (emu_mem_write((void *)(uintptr_t)(sge.addr + k), p, c))
				return -(int64_t)MANA_VENDOR_ERR_RX_PCIE;
			k += c;
		}
		done += n;
	}
	return done;
}

/* Take the next WQE for one frame and fill it; the CQE is the caller's. */
static int rx_take(struct mana_rq *rq, const uint8_t *frame, uint32_t len,
		   const struct mana_rx_meta *meta, const struct mana_mkeys *mk,
		   struct rx_one *o)
{
	static const struct mana_rx_meta none;
	uint8_t copy[MANA_SQ_WQE_MAX];
	enum mana_wqe_verdict v = MANA_WQE_EMPTY;
	struct rx_src s = { frame, len, false };
	struct mana_rx_cqe *rx = &o->rx;
	struct emu_eth_pkt p;
	struct mana_wqe w;
	uint16_t tci = 0;
	uint32_t off;
	int64_t got;

	if (rq->stop != MANA_WQ_RUNNING)
		return -EIO;
	if (!meta)
		meta = &none;
	/* pkt_len is 16 bits and 0 ends the consumer's walk */
	if (!len || len > UINT16_MAX)
		return -EINVAL;
	switch (mana_wq_fetch(rq->ring, rq->ring_size, MANA_WQ_RQ, rq->head_bu,
			      rq->tail, copy, &w, &v, &off)) {
	case MANA_FETCH_WQE:
		break;
	case MANA_FETCH_FAULT:
		rq->stop = MANA_WQ_STOP_RING_FAULT;
		return -EFAULT;
	default:
		rq->st.no_wqe_drops++;
		return -ENOSPC;
	}
	if (v != MANA_WQE_OK) {
		uint32_t bytes = w.size_bu * MANA_BU;

		if (v == MANA_WQE_BAD_OOB || bytes > rq->ring_size) {
			rq->st.bad_wqes++;
			rq->stop = MANA_WQ_STOP_BAD_WQE;
			return -EINVAL;
		}
		if (bytes > rq->tail - rq->head_bu * MANA_BU) {
			rq->st.no_wqe_drops++;
			return -ENOSPC;
		}
		/* no receive CQE type reports a bad WQE: skip it, drop */
		rq->head_bu += w.size_bu;
		rq->st.wqes++;
		rq->st.bad_wqes++;
		return -EINVAL;
	}
	memset(o, 0, sizeof(*o));
	if (meta->vlan_present) {
		tci = meta->vlan_tci;
	} else if (rq->strip_vlan && !emu_eth_parse(frame, len, &p) &&
		   p.outer.nvlan && p.outer.vlan_tpid[0] == EMU_ETH_TPID_CVLAN) {
		s.stripped = true;
		s.len = len - EMU_ETH_VLAN_HLEN;
		tci = p.outer.vlan_tci[0];
	}
	rx->vlan_present = meta->vlan_present || s.stripped;
	rx->vlan_id = tci & 0xfff;
	rx->hashtype = meta->hashtype;
	rx->ip_ok = meta->ip_ok;
	rx->ip_fail = meta->ip_fail;
	rx->tcp_ok = meta->tcp_ok;
	rx->tcp_fail = meta->tcp_fail;
	rx->udp_ok = meta->udp_ok;
	rx->udp_fail = meta->udp_fail;
	rx->npkts = 1;
	rx->pkt[0].len = (uint16_t)s.len;
	rx->pkt[0].hash = meta->hash;
	rx->wqe_off = off;
	if (rq->dp && rq->dp->wqe) {
		const struct mana_dp_wqe dv = { .wq_id = rq->id, .rq = true,
						.off = off, .copy = copy, .w = &w,
						.pkt_len = s.len };
		uint8_t type;

		/* a fault rule drops the frame: the WQE is consumed and its
		 * CQE says so, as for a frame too large for it */
		if (rq->dp->wqe(rq->dp_arg, &dv, &type, &o->vendor_err)) {
			rq->head_bu += w.size_bu;
			rq->st.wqes++;
			rq->st.injected++;
			rx->type = type;
			return 0;
		}
	}
	got = rx_scatter(copy, &w, &s, mk);
	rq->head_bu += w.size_bu;
	rq->st.wqes++;
	if (got < 0) {
		rq->st.buf_errors++;
		o->vendor_err = (uint32_t)-got;
		rx->type = MANA_CQE_RX_TRUNCATED;
	} else if (got < s.len) {
		rq->st.truncated++;
		rx->type = MANA_CQE_RX_TRUNCATED;
	} else {
		rq->st.packets++;
		rq->st.bytes += s.len;
		rx->type = MANA_CQE_RX_OKAY;
	}
	return 0;
}

static void rx_put(struct mana_rq *rq, const struct rx_one *o)
{
	uint8_t client[MANA_CQE_CLIENT], cqe[MANA_CQE_SIZE];

	mana_rx_cqe_build(client, &o->rx);
	PRM_LE_SET(mana_rxcomp_oob, client, cqe_hdr.vendor_err, o->vendor_err);
	if (mana_cqs_put_copy(rq->cq, client, rq->id, false, cqe)) {
		rq->st.cqe_faults++;
	} else {
		rq->st.cqes++;
		if (rq->dp && rq->dp->cqe)
			rq->dp->cqe(rq->dp_arg, rq->cq, cqe);
	}
}

int mana_rq_deliver(struct mana_rq *rq, const uint8_t *frame, uint32_t len,
		    const struct mana_rx_meta *meta, const struct mana_mkeys *mk)
{
	struct rx_one o;
	int err = rx_take(rq, frame, len, meta, mk, &o);

	if (err)
		return err;
	mana_rq_flush(rq);
	rx_put(rq, &o);
	return 0;
}

/* Whether b may join a coalesced CQE whose shared fields are a's. */
static bool rx_same(const struct mana_rx_cqe *a, const struct mana_rx_cqe *b)
{
	return a->hashtype == b->hashtype && a->vlan_present == b->vlan_present &&
	       a->vlan_id == b->vlan_id && a->ip_ok == b->ip_ok &&
	       a->ip_fail == b->ip_fail && a->tcp_ok == b->tcp_ok &&
	       a->tcp_fail == b->tcp_fail && a->udp_ok == b->udp_ok &&
	       a->udp_fail == b->udp_fail;
}

int mana_rq_receive(struct mana_rq *rq, const uint8_t *frame, uint32_t len,
		    const struct mana_rx_meta *meta, const struct mana_mkeys *mk)
{
	struct rx_one o;
	int err = rx_take(rq, frame, len, meta, mk, &o);

	if (err)
		return err;
	if (!rq->coalesce || o.rx.type != MANA_CQE_RX_OKAY) {
		/* the CQE of the packets before this one goes first */
		mana_rq_flush(rq);
		rx_put(rq, &o);
		return 0;
	}
	if (rq->pend.npkts && !rx_same(&rq->pend, &o.rx))
		mana_rq_flush(rq);
	if (!rq->pend.npkts) {
		rq->pend = o.rx;
		rq->pend.type = MANA_CQE_RX_COALESCED_4;
	} else {
		rq->pend.pkt[rq->pend.npkts++] = o.rx.pkt[0];
	}
	if (rq->pend.npkts == MANA_RX_PPI)
		mana_rq_flush(rq);
	return 0;
}

void mana_rq_flush(struct mana_rq *rq)
{
	struct rx_one o = { .rx = rq->pend };

	if (!rq->pend.npkts)
		return;
	rq->pend.npkts = 0;
	rx_put(rq, &o);
}

unsigned int mana_rq_deliver_burst(struct mana_rq *rq, const uint8_t *const *frames,
				   const uint32_t *lens,
				   const struct mana_rx_meta *metas, unsigned int n,
				   const struct mana_mkeys *mk)
{
	unsigned int done = 0;

	for (unsigned int i = 0; i < n; i++)
		if (!mana_rq_receive(rq, frames[i], lens[i],
				     metas ? &metas[i] : NULL, mk))
			done++;
	mana_rq_flush(rq);
	return done;
}
