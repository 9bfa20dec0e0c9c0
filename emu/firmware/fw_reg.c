/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_reg.c -- ACCESS_REG: the port registers a driver reads
 * and writes (mlx5_core_access_reg: op_mod 1 reads, 0 writes, the
 * register in register_data).
 *
 *   PTYS  the link's protocols: Ethernet only, the extended link modes
 *         (ext_eth_proto_*) of FW_PTYS_EXT_ETH_CAP; the legacy fields stay
 *         0.  A write sets ext_eth_proto_admin (a non-empty subset of the
 *         capability); the far end of the emulated cable takes every mode,
 *         so the link comes up at the fastest admin mode (the lowest bit
 *         among equals).  With the link down ext_eth_proto_oper reads 0.
 *   PMTU  the port's MTU, whole frames: max_mtu, admin_mtu (a write sets
 *         it, 64..max_mtu), oper_mtu (the link runs at admin_mtu).
 *
 * Only the kernel issues ACCESS_REG (DEVX has no such general command);
 * local_port counts from 1.
 */
#include <string.h>

#include "emu/firmware/fw_int.h"

/* Mb/s of each extended mode the port has (the kernel's
 * mlx5e_ext_link_speed, drivers/net/ethernet/mellanox/mlx5/core/port.c). */
static const uint32_t fw_ext_mode_mbps[32] = {
	[MLX5E_1000BASE_X_SGMII] = 1000,
	[MLX5E_10GBASE_XFI_XAUI_1] = 10000,
	[MLX5E_40GBASE_XLAUI_4_XLPPI_4] = 40000,
	[MLX5E_25GAUI_1_25GBASE_CR_KR] = 25000,
	[MLX5E_50GAUI_2_LAUI_2_50GBASE_CR2_KR2] = 50000,
	[MLX5E_50GAUI_1_LAUI_1_50GBASE_CR_KR] = 50000,
	[MLX5E_CAUI_4_100GBASE_CR4_KR4] = 100000,
	[MLX5E_100GAUI_2_100GBASE_CR2_KR2] = 100000,
};

static uint32_t fw_fastest_mode(uint32_t modes)
{
	uint32_t best = 0;

	for (unsigned int b = 0; b < 32; b++)
		if ((modes & MLX5E_PROT_MASK(b)) &&
		    (!best || fw_ext_mode_mbps[b] >
		     fw_ext_mode_mbps[__builtin_ctz(best)]))
			best = MLX5E_PROT_MASK(b);
	return best;
}

/* The port a register names; NULL if none. */
static struct fw_port *fw_reg_port(struct fw_cmd *cmd, uint32_t local_port)
{
	if (local_port < 1 || local_port > cmd->fw->cfg.num_ports)
		return NULL;
	return &cmd->fw->port[local_port - 1];
}

static enum fw_synd fw_reg_ptys(struct fw_cmd *cmd, const void *in, void *out,
				bool write)
{
	struct fw_port *port = fw_reg_port(cmd, PRM_GET(ptys_reg, in, local_port));
	uint32_t admin;
	bool up;

	if (!port)
		return FW_SYND_REG_BAD_PORT;
	if (!(PRM_GET(ptys_reg, in, proto_mask) & MLX5_PTYS_EN))
		return FW_SYND_REG_BAD_PROTO;
	if (write) {
		admin = PRM_GET(ptys_reg, in, ext_eth_proto_admin);
		if (!admin || (admin & ~(uint32_t)FW_PTYS_EXT_ETH_CAP))
			return FW_SYND_REG_BAD_ETH_PROTO;
		pthread_mutex_lock(&port->lock);
		port->eth_proto_admin = admin;
		port->eth_proto_oper = fw_fastest_mode(admin);
		pthread_mutex_unlock(&port->lock);
		return FW_SYND_OK;
	}
	up = atomic_load(&port->link_up);
	PRM_SET(ptys_reg, out, local_port, PRM_GET(ptys_reg, in, local_port));
	PRM_SET(ptys_reg, out, proto_mask, MLX5_PTYS_EN);
	PRM_SET(ptys_reg, out, ext_eth_proto_capability, FW_PTYS_EXT_ETH_CAP);
	pthread_mutex_lock(&port->lock);
	PRM_SET(ptys_reg, out, ext_eth_proto_admin, port->eth_proto_admin);
	PRM_SET(ptys_reg, out, ext_eth_proto_oper,
		up ? port->eth_proto_oper : 0);
	pthread_mutex_unlock(&port->lock);
	return FW_SYND_OK;
}

static enum fw_synd fw_reg_pmtu(struct fw_cmd *cmd, const void *in, void *out,
				bool write)
{
	struct fw_port *port = fw_reg_port(cmd, PRM_GET(pmtu_reg, in, local_port));
	uint32_t mtu;

	if (!port)
		return FW_SYND_REG_BAD_PORT;
	if (write) {
		mtu = PRM_GET(pmtu_reg, in, admin_mtu);
		if (mtu < EMU_FW_PORT_MIN_MTU || mtu > EMU_FW_PORT_MAX_MTU)
			return FW_SYND_REG_BAD_MTU;
		pthread_mutex_lock(&port->lock);
		port->admin_mtu = (uint16_t)mtu;
		port->oper_mtu = (uint16_t)mtu;
		pthread_mutex_unlock(&port->lock);
		return FW_SYND_OK;
	}
	PRM_SET(pmtu_reg, out, local_port, PRM_GET(pmtu_reg, in, local_port));
	PRM_SET(pmtu_reg, out, max_mtu, EMU_FW_PORT_MAX_MTU);
	pthread_mutex_lock(&port->lock);
	PRM_SET(pmtu_reg, out, admin_mtu, port->admin_mtu);
	PRM_SET(pmtu_reg, out, oper_mtu, port->oper_mtu);
	pthread_mutex_unlock(&port->lock);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_access_reg(struct fw_cmd *cmd)
{
	const size_t hdr = PRM_BYTE_OFF(access_register_in, register_data);
	const void *in = (const uint8_t *)cmd->in + hdr;
	void *out = (uint8_t *)cmd->out + hdr;
	bool write = cmd->op_mod == MLX5_ACCESS_REG_WRITE;
	size_t bytes;

	switch (PRM_GET(access_register_in, cmd->in, register_id)) {
	case MLX5_REG_PTYS:
		bytes = PRM_ST_SZ_BYTES(ptys_reg);
		break;
	case MLX5_REG_PMTU:
		bytes = PRM_ST_SZ_BYTES(pmtu_reg);
		break;
	default:
		return FW_SYND_REG_NOT_SUPPORTED;
	}
	/* Both mailboxes carry the whole register (mlx5_core_access_reg). */
	if (cmd->inlen < hdr + bytes)
		return FW_SYND_BAD_INLEN;
	if (cmd->outlen < hdr + bytes)
		return FW_SYND_BAD_OUTLEN;
	if (PRM_GET(access_register_in, cmd->in, register_id) == MLX5_REG_PTYS)
		return fw_reg_ptys(cmd, in, out, write);
	return fw_reg_pmtu(cmd, in, out, write);
}
