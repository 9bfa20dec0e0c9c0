/* SPDX-License-Identifier: MIT */
/*
 * emu/eth/eth_vlan.c -- VLAN insertion (send) and stripping (receive).
 *
 * Send: an Ethernet segment asks for a tag with bytes 12-15 read as
 * insert.type (MLX5_ETH_WQE_INSERT_VLAN, MLX5_ETH_WQE_SVLAN for 802.1ad)
 * and insert.vlan_tci instead of inline_hdr_sz and the first inline bytes
 * (kernel include/linux/mlx5/qp.h struct mlx5_wqe_eth_seg; en_tx.c
 * mlx5e_sq_xmit_wqe; DPDK's MLX5_ETH_WQE_VLAN_INSERT is the same bit of the
 * dword).  The tag goes after the source MAC, outermost.
 *
 * Receive: with the RQ's stripping on (rqc.vlan_strip_disable clear) the
 * outermost tag is removed when it is a C-VLAN, and the CQE says so (cv)
 * with the TCI in vlan_info; mlx5e reports every stripped tag as 802.1Q
 * (en_rx.c: __vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q), ...)), and
 * libmlx5 as IBV_WC_EX_WITH_CVLAN.
 */
#include <errno.h>
#include <string.h>

#include "prm/prm_cmd.h"

#include "eth.h"
#include "eth_int.h"

bool emu_eth_vlan_insert_req(const void *eth_seg, uint16_t *tpid,
			     uint16_t *tci)
{
	const uint8_t *e = eth_seg;
	uint16_t type = emu_get_be16(e + 12);

	if (!(type & MLX5_ETH_WQE_INSERT_VLAN))
		return false;
	*tpid = (type & MLX5_ETH_WQE_SVLAN) ? EMU_ETH_TPID_SVLAN :
					      EMU_ETH_TPID_CVLAN;
	*tci = emu_get_be16(e + 14);
	return true;
}

int emu_eth_vlan_insert(uint8_t *f, size_t *len, size_t cap, uint16_t tpid,
			uint16_t tci)
{
	if (*len < 12)
		return -EINVAL;
	if (cap < EMU_ETH_VLAN_HLEN || *len > cap - EMU_ETH_VLAN_HLEN)
		return -ENOSPC;
	memmove(f + 12 + EMU_ETH_VLAN_HLEN, f + 12, *len - 12);
	emu_put_be16(f + 12, tpid);
	emu_put_be16(f + 14, tci);
	*len += EMU_ETH_VLAN_HLEN;
	return 0;
}

bool emu_eth_vlan_strip(uint8_t *f, size_t *len, uint16_t *tci)
{
	if (*len < EMU_ETH_HLEN + EMU_ETH_VLAN_HLEN ||
	    emu_get_be16(f + 12) != EMU_ETH_TPID_CVLAN)
		return false;
	*tci = emu_get_be16(f + 14);
	memmove(f + 12, f + 12 + EMU_ETH_VLAN_HLEN,
		*len - 12 - EMU_ETH_VLAN_HLEN);
	*len -= EMU_ETH_VLAN_HLEN;
	return true;
}
