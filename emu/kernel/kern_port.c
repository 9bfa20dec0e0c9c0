/* SPDX-License-Identifier: MIT */
/*
 * The kernel's port services: port attributes, GID entries and the L2
 * address of a GID, as mlx5_ib answers them for a RoCE port, and the port
 * MTU mlx5e programs when its netdev comes up.
 *
 * Port attributes follow mlx5_query_port_roce (drivers/infiniband/hw/mlx5/
 * main.c), nothing of them a constant of the device model:
 *   active width, speed  PTYS read through ACCESS_REG; the extended link
 *                        modes when the port has any (ext_eth_proto_
 *                        capability != 0), mlx5_ib's translation of the
 *                        mode in eth_proto_oper, 4X QDR when there is none
 *                        (a link that is down has none);
 *   max_msg_sz           1 << log_max_msg of the general capabilities;
 *   max_mtu              IB_MTU_4096;
 *   active_mtu           iboe_get_mtu() of the netdev's MTU, at most
 *                        max_mtu.  mlx5e keeps that MTU as PMTU's oper_mtu
 *                        less the Ethernet header, a VLAN tag and the FCS
 *                        (MLX5E_HW2SW_MTU), so it is read from PMTU;
 *   state, phys_state    ACTIVE/LinkUp while the link is up, else
 *                        DOWN/Disabled;
 *   gid_tbl_len          roce_address_table_size; pkey_tbl_len 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "emu/device/dev.h"
#include "emu/device/dev_identity.h"
#include "emu/device/dev_link.h"
#include "emu/firmware/fw.h"
#include "emu/kernel/kern.h"
#include "emu/wire/wire.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

/* MLX5E_ETH_HARD_MTU: ETH_HLEN + VLAN_HLEN + ETH_FCS_LEN. */
#define KERN_ETH_HARD_MTU (14 + 4 + 4)

#define KERN_REG_HDR PRM_BYTE_OFF(access_register_in, register_data)
#define KERN_REG_MAX PRM_ST_SZ_BYTES(ptys_reg)

/*
 * mlx5_core_access_reg: register @id of @port through ACCESS_REG, @reg
 * (@len bytes) in, and out again when reading.  0 or the errno the
 * command's status maps to.
 */
static int kern_access_reg(struct kern_dev *kdev, uint16_t id, bool write,
			   void *reg, size_t len)
{
	uint8_t in[KERN_REG_HDR + KERN_REG_MAX] = {};
	uint8_t out[KERN_REG_HDR + KERN_REG_MAX] = {};
	int ret;

	PRM_SET(access_register_in, in, opcode, MLX5_CMD_OP_ACCESS_REG);
	PRM_SET(access_register_in, in, op_mod,
		write ? MLX5_ACCESS_REG_WRITE : MLX5_ACCESS_REG_READ);
	PRM_SET(access_register_in, in, register_id, id);
	memcpy(in + KERN_REG_HDR, reg, len);
	ret = kern_fw_exec_checked(kdev, in, KERN_REG_HDR + len, out,
				   KERN_REG_HDR + len);
	if (!ret && !write)
		memcpy(reg, out + KERN_REG_HDR, len);
	return ret;
}

int kern_port_set_mtu(struct kern_dev *kdev, unsigned int port,
		      uint32_t netdev_mtu)
{
	uint8_t pmtu[PRM_ST_SZ_BYTES(pmtu_reg)] = {};

	/* mlx5e_set_dev_port_mtu: MLX5E_SW2HW_MTU of the netdev's MTU. */
	PRM_SET(pmtu_reg, pmtu, local_port, port);
	PRM_SET(pmtu_reg, pmtu, admin_mtu, netdev_mtu + KERN_ETH_HARD_MTU);
	return kern_access_reg(kdev, MLX5_REG_PMTU, true, pmtu, sizeof(pmtu));
}

/*
 * The kernel's iboe_get_mtu(): the largest IB MTU whose RoCE packet (GRH,
 * UDP, BTH, the largest extended headers, ICRC) fits the netdev MTU; 0
 * when not even 256 bytes do.
 */
static uint8_t kern_iboe_mtu(int netdev_mtu)
{
	int room = netdev_mtu - (40 + 8 + 12 + 4 + 28 + 4);

	if (room >= 4096)
		return IBV_MTU_4096;
	if (room >= 2048)
		return IBV_MTU_2048;
	if (room >= 1024)
		return IBV_MTU_1024;
	if (room >= 512)
		return IBV_MTU_512;
	if (room >= 256)
		return IBV_MTU_256;
	return 0;
}

static const struct emu_port_identity *kern_port(struct mlx5be_ctx *ctx,
						 uint32_t port)
{
	const struct emu_dev_identity *id = emu_device_identity(ctx->uctx->kdev->index);

	if (!id || kern_uctx_lost(ctx->uctx) || port < 1 ||
	    port > (uint32_t)id->num_ports)
		return NULL;
	return &id->ports[port - 1];
}

/* Why kern_port() found no port: a forked child's inherited context lost
 * its device (EIO, as after a fatal error), else a bad port number. */
static int kern_port_errno(struct mlx5be_ctx *ctx)
{
	return kern_uctx_lost(ctx->uctx) ? -EIO : -EINVAL;
}

int kern_query_port(struct mlx5be_ctx *ctx, uint32_t port,
		    struct mlx5be_port_attr *attr)
{
	const struct emu_port_identity *p = kern_port(ctx, port);
	struct kern_dev *kdev = ctx->uctx->kdev;
	uint8_t ptys[PRM_ST_SZ_BYTES(ptys_reg)] = {};
	uint8_t pmtu[PRM_ST_SZ_BYTES(pmtu_reg)] = {};
	uint16_t speed = EMU_IB_SPEED_QDR;
	uint8_t width = EMU_IB_WIDTH_4X;
	bool up = false, ext;
	uint8_t active;
	int ret;

	if (!p)
		return kern_port_errno(ctx);
	PRM_SET(ptys_reg, ptys, local_port, port);
	PRM_SET(ptys_reg, ptys, proto_mask, MLX5_PTYS_EN);
	ret = kern_access_reg(kdev, MLX5_REG_PTYS, false, ptys, sizeof(ptys));
	if (ret)
		return ret;
	ext = PRM_GET(ptys_reg, ptys, ext_eth_proto_capability) != 0;
	emu_link_ib_rate(ext, ext ? PRM_GET(ptys_reg, ptys, ext_eth_proto_oper) :
				    PRM_GET(ptys_reg, ptys, eth_proto_oper),
			 &width, &speed);
	PRM_SET(pmtu_reg, pmtu, local_port, port);
	ret = kern_access_reg(kdev, MLX5_REG_PMTU, false, pmtu, sizeof(pmtu));
	if (ret)
		return ret;
	emu_fw_port_get_link(kdev->fw, port, &up);

	memset(attr, 0, sizeof(*attr));
	/* A RoCE port is ACTIVE/LinkUp or DOWN/Disabled, as mlx5_ib reports
	 * from the netdev's carrier. */
	attr->state = up ? p->state : IBV_PORT_DOWN;
	attr->phys_state = up ? p->phys_state : 3;	/* Disabled */
	attr->max_mtu = IBV_MTU_4096;
	active = kern_iboe_mtu((int)PRM_GET(pmtu_reg, pmtu, oper_mtu) -
			       KERN_ETH_HARD_MTU);
	attr->active_mtu = active < attr->max_mtu ? active : attr->max_mtu;
	attr->link_layer = p->link_layer;
	attr->active_width = width;
	attr->active_speed = speed;
	attr->port_cap_flags = p->port_cap_flags;
	attr->gid_tbl_len = (int)emu_fw_gid_table_size(kdev->fw);
	attr->pkey_tbl_len = (uint16_t)p->pkey_tbl_len;
	attr->max_msg_sz = UINT32_C(1) << KERN_CAP_GEN(kdev, log_max_msg);
	attr->lid = p->lid;
	attr->sm_lid = p->sm_lid;
	attr->lmc = p->lmc;
	attr->sm_sl = p->sm_sl;
	/* max_vl_num stays 0: mlx5_query_port_roce never sets it. */
	return 0;
}

int kern_query_gid(struct mlx5be_ctx *ctx, uint32_t port, uint32_t index,
		   struct mlx5be_gid_entry *entry)
{
	struct emu_fw_gid_entry g;
	int ret;

	if (!kern_port(ctx, port))
		return kern_port_errno(ctx);
	ret = emu_fw_gid_get(ctx->uctx->kdev->fw, port, index, &g);
	if (ret)
		return ret;
	if (!g.valid)
		return -ENODATA;
	memcpy(entry->gid, g.gid, sizeof(entry->gid));
	entry->gid_index = index;
	entry->port_num = port;
	entry->gid_type = g.roce_version == MLX5_ROCE_VERSION_2;
	entry->ndev_ifindex = 0;		/* no netdev in the process */
	return 0;
}

/* On the emulated fabric a port's MAC follows from its GIDs (emu/wire's
 * addressing: the inverse of the EUI-64, or 02:c9 and the IPv4), so the
 * source GID's netdev is not needed to resolve a destination. */
int kern_gid_l2_addr(struct mlx5be_ctx *ctx, uint32_t port,
		     uint32_t sgid_index, const uint8_t dgid[16], uint8_t mac[6],
		     uint16_t *vlan)
{
	(void)sgid_index;
	if (!kern_port(ctx, port))
		return kern_port_errno(ctx);
	*vlan = 0xffff;	/* no VLAN, as rdma-core reports it */
	return emu_wire_mac_of_gid(dgid, mac) ? 0 : -EINVAL;
}
