/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana_tx.c -- the send side's formats: the client OOB a TX WQE
 * carries and the completion the device writes for it.
 *
 * OOB layout: Linux mana.h struct mana_tx_short_oob / mana_tx_long_oob,
 * DPDK drivers/net/mana/mana.h transmit_*_oob_v2.  DPDK builds the OOB on
 * its stack without zeroing it: trans_off is only written with a TCP
 * checksum request and the long form's fields only for VLAN insertion, so
 * every field whose flag is clear is read as don't-care.
 */
#include <errno.h>
#include <string.h>

#include "emu/mana/mana.h"
#include "prm/prm_le.h"

enum { MANA_SHORT_PKT_FMT = 0, MANA_LONG_PKT_FMT = 1 };

int mana_tx_oob_decode(const uint8_t *oob, unsigned int oob_size,
		       uint16_t client_data_unit, struct mana_tx_req *req)
{
	uint32_t fmt = PRM_LE_GET(mana_tx_oob, oob, s_oob.pkt_fmt);
	uint16_t short_vp;

	memset(req, 0, sizeof(*req));
	if (oob_size != MANA_OOB_SHORT && oob_size != MANA_OOB_LONG)
		return -EINVAL;
	/* the format names the OOB's size; a mismatch is a malformed OOB */
	if ((fmt == MANA_LONG_PKT_FMT) != (oob_size == MANA_OOB_LONG) ||
	    fmt > MANA_LONG_PKT_FMT)
		return -EINVAL;
	req->long_fmt = fmt == MANA_LONG_PKT_FMT;
	req->outer_ipv4 = PRM_LE_GET(mana_tx_oob, oob, s_oob.is_outer_ipv4);
	req->outer_ipv6 = PRM_LE_GET(mana_tx_oob, oob, s_oob.is_outer_ipv6);
	req->csum_ip = PRM_LE_GET(mana_tx_oob, oob, s_oob.comp_iphdr_csum);
	req->csum_tcp = PRM_LE_GET(mana_tx_oob, oob, s_oob.comp_tcp_csum);
	req->csum_udp = PRM_LE_GET(mana_tx_oob, oob, s_oob.comp_udp_csum);
	req->suppress_cqe = PRM_LE_GET(mana_tx_oob, oob, s_oob.suppress_txcqe_gen);
	req->vcq_num = PRM_LE_GET(mana_tx_oob, oob, s_oob.vcq_num);
	req->vsq_frame = PRM_LE_GET(mana_tx_oob, oob, s_oob.vsq_frame);
	if (req->csum_tcp)
		req->trans_off = (uint16_t)PRM_LE_GET(mana_tx_oob, oob, s_oob.trans_off);
	/* the kernel sets client_data_unit to the MSS for LSO only; DPDK
	 * writes 0 (it offers no TSO) */
	if (req->csum_tcp && client_data_unit) {
		req->lso = true;
		req->mss = client_data_unit;
	}
	short_vp = (uint16_t)PRM_LE_GET(mana_tx_oob, oob, s_oob.short_vp_offset);
	req->vp_offset = short_vp;
	if (!req->long_fmt)
		return 0;
	if (PRM_LE_GET(mana_tx_oob, oob, l_oob.inject_vlan_pri_tag)) {
		req->vlan_insert = true;
		req->vlan_tci = (uint16_t)(PRM_LE_GET(mana_tx_oob, oob, l_oob.pcp) << 13 |
					   PRM_LE_GET(mana_tx_oob, oob, l_oob.dei) << 12 |
					   PRM_LE_GET(mana_tx_oob, oob, l_oob.vlan_id));
	}
	/* The kernel uses long_vp_offset only for offsets over 255 and then
	 * leaves short_vp_offset 0; DPDK always sets short_vp_offset and may
	 * leave garbage in long_vp_offset.  So the long field counts only
	 * when the short one is 0 and it holds what the short one cannot
	 * (the device never hands out offset 0 to avoid the ambiguity). */
	if (!short_vp) {
		uint16_t long_vp = (uint16_t)PRM_LE_GET(mana_tx_oob, oob, l_oob.long_vp_offset);

		if (long_vp > 255)
			req->vp_offset = long_vp;
	}
	return 0;
}

int mana_tx_cqe_build(uint8_t client[MANA_CQE_CLIENT], uint8_t type,
		      uint32_t vendor_err, uint32_t wqe_off)
{
	if (type < MANA_CQE_TX_OKAY || type > MANA_CQE_TX_VLAN_TAGGING_VIOLATION)
		return -EINVAL;
	memset(client, 0, MANA_CQE_CLIENT);
	PRM_LE_SET(mana_tx_comp_oob, client, cqe_hdr.cqe_type, type);
	PRM_LE_SET(mana_tx_comp_oob, client, cqe_hdr.client_type, 1); /* MANA_CQE_COMPLETION */
	PRM_LE_SET(mana_tx_comp_oob, client, cqe_hdr.vendor_err, vendor_err);
	/* nobody reads tx_wqe_offset; basic units make the dword the
	 * WQE's byte offset (chosen) */
	PRM_LE_SET(mana_tx_comp_oob, client, tx_wqe_offset, wqe_off / MANA_BU);
	return 0;
}
