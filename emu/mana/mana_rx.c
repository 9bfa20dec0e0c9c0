/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana_rx.c -- the receive completion: one packet (RX_OKAY,
 * RX_TRUNCATED) or up to four (RX_COALESCED_4) per CQE.
 *
 * Layout: Linux mana.h struct mana_rxcomp_oob.  Consumers walk the
 * per-packet infos until pkt_len is 0 (DPDK drivers/net/mana/rx.c, Linux
 * mana_en.c), so the unused ones are written as zeros and a real packet
 * never has length 0.  Each packet consumed one RX WQE.
 */
#include <errno.h>
#include <string.h>

#include "emu/mana/mana.h"
#include "prm/prm_le.h"

int mana_rx_cqe_build(uint8_t client[MANA_CQE_CLIENT], const struct mana_rx_cqe *rx)
{
	unsigned int max = rx->type == MANA_CQE_RX_COALESCED_4 ? MANA_RX_PPI : 1;

	if (rx->type != MANA_CQE_RX_OKAY && rx->type != MANA_CQE_RX_COALESCED_4 &&
	    rx->type != MANA_CQE_RX_TRUNCATED)
		return -EINVAL;
	if (rx->npkts == 0 || rx->npkts > max)
		return -EINVAL;
	for (unsigned int i = 0; i < rx->npkts; i++)
		if (!rx->pkt[i].len)
			return -EINVAL;
	memset(client, 0, MANA_CQE_CLIENT);
	PRM_LE_SET(mana_rxcomp_oob, client, cqe_hdr.cqe_type, rx->type);
	PRM_LE_SET(mana_rxcomp_oob, client, cqe_hdr.client_type, 1); /* MANA_CQE_COMPLETION */
	PRM_LE_SET(mana_rxcomp_oob, client, rx_vlan_id, rx->vlan_present ? rx->vlan_id : 0);
	PRM_LE_SET(mana_rxcomp_oob, client, rx_vlantag_present, rx->vlan_present);
	PRM_LE_SET(mana_rxcomp_oob, client, rx_hashtype, rx->hashtype);
	PRM_LE_SET(mana_rxcomp_oob, client, rx_iphdr_csum_succeed, rx->ip_ok);
	PRM_LE_SET(mana_rxcomp_oob, client, rx_iphdr_csum_fail, rx->ip_fail);
	PRM_LE_SET(mana_rxcomp_oob, client, rx_tcp_csum_succeed, rx->tcp_ok);
	PRM_LE_SET(mana_rxcomp_oob, client, rx_tcp_csum_fail, rx->tcp_fail);
	PRM_LE_SET(mana_rxcomp_oob, client, rx_udp_csum_succeed, rx->udp_ok);
	PRM_LE_SET(mana_rxcomp_oob, client, rx_udp_csum_fail, rx->udp_fail);
	for (unsigned int i = 0; i < rx->npkts; i++) {
		uint8_t *ppi = PRM_LE_ADDR_OF(mana_rxcomp_oob, client, ppi) +
			       i * PRM_LE_ST_SZ_BYTES(mana_rxcomp_perpkt_info);

		PRM_LE_SET(mana_rxcomp_perpkt_info, ppi, pkt_len, rx->pkt[i].len);
		PRM_LE_SET(mana_rxcomp_perpkt_info, ppi, pkt_hash, rx->pkt[i].hash);
	}
	PRM_LE_SET(mana_rxcomp_oob, client, rx_wqe_offset, rx->wqe_off);
	return 0;
}

void mana_rx_csum_status(const uint8_t *f, const struct emu_eth_pkt *p,
			 struct mana_rx_cqe *rx)
{
	struct emu_eth_csum_ok ok;
	const struct emu_eth_hdrs *h = &p->outer;

	rx->ip_ok = rx->ip_fail = rx->tcp_ok = rx->tcp_fail = false;
	rx->udp_ok = rx->udp_fail = false;
	if (h->l3 == EMU_ETH_L3_NONE)
		return;
	emu_eth_csum_verify(f, p, &ok);
	/* IPv6 has no header checksum; reporting "succeeded" for it is
	 * chosen (the kernel needs the bit for CHECKSUM_UNNECESSARY and no
	 * source says what hardware writes) */
	rx->ip_ok = ok.l3_ok || h->l3 == EMU_ETH_L3_IPV6;
	rx->ip_fail = !rx->ip_ok;
	/* a later fragment carries no L4 header to check */
	if (h->frag)
		return;
	if (h->l4 == EMU_ETH_L4_TCP) {
		rx->tcp_ok = ok.l4_ok;
		rx->tcp_fail = !ok.l4_ok;
	} else if (h->l4 == EMU_ETH_L4_UDP) {
		rx->udp_ok = ok.l4_ok;
		rx->udp_fail = !ok.l4_ok;
	}
}
