/* SPDX-License-Identifier: MIT */
/*
 * emu/eth/eth_cqe.c -- the header classification a ConnectX writes into a
 * receive CQE (cqe64_eth, prm/defs/cqe_eth.prm).
 *
 * l3_hdr_type: IPv4 or IPv6 for a well-formed header, NONE otherwise.
 * l4_hdr_type: UDP; TCP without ACK; TCP with ACK and no payload; TCP with
 * ACK and payload (device.h CQE_L4_HDR_TYPE_*); NONE for other protocols,
 * malformed headers and fragments other than the first.  ip_frag for any
 * fragment; ip_ext_opts for IPv4 options or IPv6 extension headers.
 * L2_OK for every frame delivered (a frame with a bad FCS never is);
 * L3_OK, L4_OK and check_sum as eth_csum.c explains.  The outer headers
 * only: tunneled offloads are not advertised.
 */
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"

#include "eth.h"
#include "eth_int.h"

static uint8_t eth_cqe_l4(const struct emu_eth_hdrs *h)
{
	uint32_t payload;

	if (h->l4 == EMU_ETH_L4_UDP)
		return CQE_L4_HDR_TYPE_UDP;
	if (h->l4 != EMU_ETH_L4_TCP)
		return CQE_L4_HDR_TYPE_NONE;
	if (!(h->tcp_flags & ETH_TCP_ACK))
		return CQE_L4_HDR_TYPE_TCP_NO_ACK;
	payload = h->l3_end - h->l4_off - h->l4_hlen;
	return payload ? CQE_L4_HDR_TYPE_TCP_ACK_AND_DATA :
			 CQE_L4_HDR_TYPE_TCP_ACK_NO_DATA;
}

void emu_eth_cqe_classify(const uint8_t *f, const struct emu_eth_pkt *p,
			  struct emu_eth_cqe_info *c)
{
	const struct emu_eth_hdrs *h = &p->outer;
	struct emu_eth_csum_ok ok;

	memset(c, 0, sizeof(*c));
	c->l2_ok = p->len >= EMU_ETH_HLEN;
	if (h->l3 == EMU_ETH_L3_NONE)
		return;
	c->l3_hdr_type = h->l3 == EMU_ETH_L3_IPV4 ? MLX5_CQE_L3_HDR_TYPE_IPV4 :
						     MLX5_CQE_L3_HDR_TYPE_IPV6;
	c->l4_hdr_type = eth_cqe_l4(h);
	c->ip_frag = h->frag;
	c->ip_ext_opts = h->ip_opts;
	emu_eth_csum_verify(f, p, &ok);
	c->l3_ok = ok.l3_ok;
	c->l4_ok = ok.l4_ok;
	c->check_sum = ok.check_sum;
}

#define CQE(fld, v) PRM_SET(cqe64_eth, cqe64, fld, v)

void emu_eth_cqe_write(void *cqe64, const struct emu_eth_cqe_info *c,
		       const struct emu_eth_rss_res *r, bool stripped,
		       uint16_t tci)
{
	CQE(rss_hash_result, r ? r->hash : 0);
	CQE(rss_ip_src_type, r ? r->ip_src : 0);
	CQE(rss_ip_dst_type, r ? r->ip_dst : 0);
	CQE(rss_l4_src_type, r ? r->l4_src : 0);
	CQE(rss_l4_dst_type, r ? r->l4_dst : 0);
	CQE(check_sum, c->check_sum);
	CQE(l2_ok, c->l2_ok);
	CQE(l3_ok, c->l3_ok);
	CQE(l4_ok, c->l4_ok);
	CQE(ip_frag, c->ip_frag);
	CQE(l4_hdr_type, c->l4_hdr_type);
	CQE(l3_hdr_type, c->l3_hdr_type);
	CQE(ip_ext_opts, c->ip_ext_opts);
	CQE(cv, stripped);
	CQE(vlan_info, stripped ? tci : 0);
}
