/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_eth_tx.c -- an Ethernet send WQE becomes frames.
 *
 * Layout (PRM "Ethernet segment"; libmlx5's post_send for raw packet QPs
 * and DPDK's mlx5 Tx path build the same): control (16), the Ethernet
 * segment, then the rest of the frame as data segments or one inline
 * segment.  The Ethernet segment is 16 bytes plus the inline headers past
 * their first two, rounded up to 16:
 *
 *   0  swp offsets (4)         4  cs_flags     5  swp_flags   6  mss (2)
 *   8  flow table metadata (4)
 *  12  inline_hdr_sz (2), the headers from byte 14 on; or a VLAN tag to
 *      insert (emu_eth_vlan_insert_req), with no inline headers.
 *
 * SEND: the frame is the inline headers followed by the data, assembled in
 * engine memory (one copy from the application, through the SQ's PD's
 * mkeys), then the checksums cs_flags ask for and the VLAN tag.  TSO: the
 * inline headers are a TCP packet's, the data its payload, sent as one
 * frame per MSS with headers and checksums per segment (emu/eth), each
 * segment's payload copied straight from the application.  The frames go
 * to the port (eng_eth_l2.c).
 */
#include <string.h>

#include "emu/base/bytes.h"
#include "emu/engine/eng_int.h"
#include "emu/eth/eth.h"

#define ENG_ESEG_LEN 16
#define ENG_ESEG_HDR_OFF 14		/* inline_hdr_start */
#define ENG_ETH_L2_INLINE 18		/* MLX5_ETH_L2_INLINE_HEADER_SIZE */

/* What the Ethernet segment asks for. */
struct eng_eseg {
	uint8_t cs_flags;
	uint16_t mss;
	uint32_t hdr_sz;
	const uint8_t *hdr;		/* inside the WQE copy */
	bool vlan_insert;
	uint16_t vlan_tpid, vlan_tci;
};

/* Run lock: the frame being built (room for a VLAN tag to insert), and
 * the WQE's data as resolved fragments. */
static uint8_t eng_eth_buf[ENG_ETH_FRAME_MAX + 4];
static struct eng_pkt eng_eth_data;

/* Decode the Ethernet segment at w->raw[16]; the data part's offset. */
static enum eng_eth_tx_res eng_eseg_parse(const struct eng_wqe *w,
					  struct eng_eseg *e, unsigned int *off)
{
	const uint8_t *s = w->raw + sizeof(struct mlx5_wqe_ctrl_seg);
	unsigned int end = w->ds * 16u, len;

	if (sizeof(struct mlx5_wqe_ctrl_seg) + ENG_ESEG_LEN > end)
		return ENG_ETH_TX_BAD;
	e->cs_flags = s[4];
	e->mss = emu_get_be16(s + 6);
	e->vlan_insert = emu_eth_vlan_insert_req(s, &e->vlan_tpid,
						 &e->vlan_tci);
	e->hdr_sz = e->vlan_insert ? 0 : emu_get_be16(s + 12);
	e->hdr = s + ENG_ESEG_HDR_OFF;
	len = ENG_ESEG_LEN;
	if (e->hdr_sz > 2)
		len += (e->hdr_sz - 2 + 15) & ~15u;
	if (sizeof(struct mlx5_wqe_ctrl_seg) + len > end)
		return ENG_ETH_TX_BAD;
	*off = sizeof(struct mlx5_wqe_ctrl_seg) + len;
	return ENG_ETH_TX_OK;
}

/* Resolve the WQE's data through the SQ's PD (local read). */
static enum eng_eth_tx_res eng_eth_resolve(struct eng_sq *sq,
					   const struct eng_wqe *w)
{
	struct emu_fw_sq *fs = sq->fs;
	struct eng_pkt *d = &eng_eth_data;

	d->len = w->len;
	d->nfrags = 0;
	if (w->inl) {
		d->pay = ENG_PAY_BUF;
		d->buf = w->inl_data;
		return ENG_ETH_TX_OK;
	}
	d->pay = ENG_PAY_FRAGS;
	for (unsigned int i = 0; i < w->nsge; i++) {
		enum emu_fw_mkey_res r;
		uint8_t *host;

		r = emu_fw_mkey_resolve_qp(sq->dev->fw, w->sge[i].lkey, fs->pd,
					   fs->obj.id, EMU_FW_MKEY_LR,
					   w->sge[i].addr, w->sge[i].len, &host);
		if (r != EMU_FW_MKEY_OK)
			return ENG_ETH_TX_PROT;
		d->frags[d->nfrags].addr = host;
		d->frags[d->nfrags].len = w->sge[i].len;
		d->nfrags++;
	}
	return ENG_ETH_TX_OK;
}

/* Data bytes [from, from + n) of the WQE to eng_eth_buf[at]. */
static enum eng_eth_tx_res eng_eth_copy(uint32_t at, uint32_t from,
					uint32_t n)
{
	bool src_fault = false;

	if (eng_eth_data.pay == ENG_PAY_BUF) {
		memcpy(eng_eth_buf + at, eng_eth_data.buf + from, n);
		return ENG_ETH_TX_OK;
	}
	return eng_mr_copy_range(eng_eth_buf + at, &eng_eth_data, from, n,
				 &src_fault) ? ENG_ETH_TX_FAULT : ENG_ETH_TX_OK;
}

/* The frame in eng_eth_buf[0, len) leaves, with its VLAN tag. */
static void eng_eth_send(struct eng_sq *sq, const struct eng_eseg *e,
			 size_t len, const struct eng_eth_src *src)
{
	if (e->vlan_insert)
		(void)emu_eth_vlan_insert(eng_eth_buf, &len,
					  sizeof(eng_eth_buf), e->vlan_tpid,
					  e->vlan_tci);
	eng_eth_xmit(sq->dev, src->port, eng_eth_buf, (uint32_t)len, src);
}

/* TSO: one frame per MSS of payload, headers and checksums per segment,
 * each segment's payload copied from the application. */
static enum eng_eth_tx_res eng_eth_tso(struct eng_sq *sq,
				       const struct eng_eseg *e,
				       const struct eng_eth_src *src)
{
	struct emu_eth_lso lso;

	if (eng_eth_data.len > ENG_ETH_LSO_MAX ||
	    e->hdr_sz + (uint32_t)e->mss > ENG_ETH_FRAME_MAX ||
	    emu_eth_lso_init(&lso, e->hdr, e->hdr_sz, eng_eth_data.len,
			     e->mss))
		return ENG_ETH_TX_BAD;
	for (uint32_t k = 0; k < lso.nseg; k++) {
		uint32_t off, n = emu_eth_lso_slice(&lso, k, &off);
		enum eng_eth_tx_res r = eng_eth_copy(e->hdr_sz, off, n);

		if (r)
			return r;
		eng_eth_send(sq, e, emu_eth_lso_seg(&lso, k, eng_eth_buf),
			     src);
	}
	return ENG_ETH_TX_OK;
}

/* The port an SQ sends on: its TIS's LAG affinity, else the first. */
static unsigned int eng_eth_tx_port(const struct emu_fw_sq *fs)
{
	unsigned int aff = atomic_load(&fs->tis->lag_tx_port_affinity);

	return aff >= 1 && aff <= EMU_FW_MAX_PORTS ? aff : 1;
}

enum eng_eth_tx_res eng_eth_tx_wqe(struct eng_sq *sq, struct eng_wqe *w)
{
	struct emu_fw_sq *fs = sq->fs;
	struct eng_eth_src src = {
		.td = fs->tis->td,
		.dev = sq->dev,
		.port = (uint8_t)eng_eth_tx_port(fs),
	};
	enum eng_eth_tx_res r;
	struct eng_eseg e;
	unsigned int off;
	uint32_t len;

	if (w->opcode == MLX5_OPCODE_NOP)
		return ENG_ETH_TX_OK;
	if (w->opcode != MLX5_OPCODE_SEND && w->opcode != MLX5_OPCODE_TSO)
		return ENG_ETH_TX_BAD;
	r = eng_eseg_parse(w, &e, &off);
	if (r)
		return r;
	/* The SQ's minimal inline mode (sqc.min_wqe_inline_mode): L2 needs
	 * the Ethernet header and a VLAN tag's room inline. */
	if (fs->min_wqe_inline_mode >= MLX5_INLINE_MODE_L2 &&
	    e.hdr_sz < ENG_ETH_L2_INLINE && !e.vlan_insert)
		return ENG_ETH_TX_BAD;
	if (e.hdr_sz > ENG_ETH_FRAME_MAX ||
	    eng_wqe_data(w, off, w->ds * 16u) != ENG_WQE_OK)
		return ENG_ETH_TX_BAD;
	r = eng_eth_resolve(sq, w);
	if (r)
		return r;
	if (w->opcode == MLX5_OPCODE_TSO)
		return eng_eth_tso(sq, &e, &src);
	if (w->len > ENG_ETH_FRAME_MAX - e.hdr_sz)
		return ENG_ETH_TX_LEN;
	memcpy(eng_eth_buf, e.hdr, e.hdr_sz);
	r = eng_eth_copy(e.hdr_sz, 0, w->len);
	if (r)
		return r;
	len = e.hdr_sz + w->len;
	if (e.cs_flags)
		(void)emu_eth_tx_csum(eng_eth_buf, len, e.cs_flags);
	eng_eth_send(sq, &e, len, &src);
	return ENG_ETH_TX_OK;
}
