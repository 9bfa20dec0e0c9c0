/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_vport_rx.c -- which frames reach the function's vport,
 * and the frames its steering discards.
 *
 * In front of a vport's NIC RX tables the eswitch's L2 table passes the
 * vport's own unicast address, every broadcast and multicast frame, and
 * everything in promiscuous mode; a frame the vport sent itself comes back
 * only through local loopback, which disable_uc_local_lb and
 * disable_mc_local_lb turn off (nic_vport_context).  The engine asks per
 * frame, so the answer reads a copy of those settings kept in atomics
 * (fw_vport_rx_update, called whenever MODIFY_NIC_VPORT_CONTEXT changed
 * them), never the lock the command holds.  The unicast address list of
 * the context is not consulted: only the vport's own address is.
 *
 * QUERY_VNIC_ENV reports the discards in nic_receive_steering_discard; the
 * vNIC's other diagnostic counters are not advertised and read 0.
 */
#include <string.h>

#include "emu/firmware/fw_int.h"

enum {
	FW_VRX_PROMISC_UC = 1 << 0,
	FW_VRX_PROMISC_MC = 1 << 1,
	FW_VRX_PROMISC_ALL = 1 << 2,
	FW_VRX_NO_UC_LB = 1 << 3,
	FW_VRX_NO_MC_LB = 1 << 4,
};

static uint64_t fw_mac64(const uint8_t mac[6])
{
	uint64_t v = 0;

	for (int i = 0; i < 6; i++)
		v = v << 8 | mac[i];
	return v;
}

/* Under the command's lock: the copy the engine reads. */
void fw_vport_rx_update(struct emu_fw *fw)
{
	const struct fw_nic_vport *nv = &fw->nic_vport;
	unsigned int f = 0;

	f |= nv->promisc_uc ? FW_VRX_PROMISC_UC : 0;
	f |= nv->promisc_mc ? FW_VRX_PROMISC_MC : 0;
	f |= nv->promisc_all ? FW_VRX_PROMISC_ALL : 0;
	f |= nv->disable_uc_local_lb ? FW_VRX_NO_UC_LB : 0;
	f |= nv->disable_mc_local_lb ? FW_VRX_NO_MC_LB : 0;
	atomic_store_explicit(&fw->vport_rx.flags, f, memory_order_relaxed);
	atomic_store_explicit(&fw->vport_rx.mac,
			      fw_mac64(nv->perm_set ? nv->perm_mac :
				       fw->port[0].mac),
			      memory_order_relaxed);
}

bool emu_fw_vport_accepts(struct emu_fw *fw, unsigned int port,
			  const uint8_t *frame, bool self)
{
	unsigned int f = atomic_load_explicit(&fw->vport_rx.flags,
					      memory_order_relaxed);
	bool mc = frame[0] & 1;

	if (port < 1 || port > fw->cfg.num_ports)
		return false;
	if (self && (f & (mc ? FW_VRX_NO_MC_LB : FW_VRX_NO_UC_LB)))
		return false;
	if (mc || (f & (FW_VRX_PROMISC_UC | FW_VRX_PROMISC_ALL)))
		return true;
	return fw_mac64(frame) == atomic_load_explicit(&fw->vport_rx.mac,
						       memory_order_relaxed);
}

void emu_fw_vport_rx_discard(struct emu_fw *fw, unsigned int port)
{
	(void)port;
	atomic_fetch_add_explicit(&fw->vport_rx.steer_discard, 1,
				  memory_order_relaxed);
}

uint64_t emu_fw_vport_rx_discards(const struct emu_fw *fw)
{
	return atomic_load_explicit(&fw->vport_rx.steer_discard,
				    memory_order_relaxed);
}

enum fw_synd fw_cmd_query_vnic_env(struct fw_cmd *cmd)
{
	if (PRM_GET(query_vnic_env_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	PRM_SET64(query_vnic_env_out, cmd->out,
		  vport_env.nic_receive_steering_discard,
		  emu_fw_vport_rx_discards(cmd->fw));
	return FW_SYND_OK;
}
