/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_vport.c -- the function's vport and its Ethernet ports:
 * QUERY_VPORT_STATE, QUERY_NIC_VPORT_CONTEXT, QUERY_HCA_VPORT_CONTEXT,
 * QUERY_HCA_VPORT_GID, QUERY_ROCE_ADDRESS and SET_ROCE_ADDRESS.
 *
 * The device is no vport group manager: other_vport queries are refused.
 * Ports are Ethernet: the NIC vport context carries the MAC, MTU and GUIDs
 * mlx5_ib reports for RoCE (mlx5_query_nic_vport_*); the HCA vport context
 * answers with the port's state and GUIDs and no IB addressing (LID 0,
 * GRH required); the GID table is the RoCE address table the kernel fills
 * with SET_ROCE_ADDRESS (an all-zero entry is empty), which
 * QUERY_HCA_VPORT_GID reads as GIDs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/firmware/fw_int.h"

#define FW_ROCE_ADDR_BYTES PRM_ST_SZ_BYTES(roce_addr_layout)
_Static_assert(FW_ROCE_ADDR_BYTES == sizeof(((struct fw_port *)0)->roce[0]),
	       "roce table entry is one roce_addr_layout");

enum {
	FW_PORT_PHYS_STATE_DISABLED = 3,	/* IB PortPhysicalState */
	FW_PORT_PHYS_STATE_LINK_UP = 5,
	FW_PORT_STATE_DOWN = 1,			/* IB PortState */
	FW_PORT_STATE_ACTIVE = 4,
};

int fw_ports_init(struct emu_fw *fw)
{
	fw->roce_table_size = FW_CAP_ROCE(fw, roce_address_table_size);
	for (unsigned int p = 0; p < fw->cfg.num_ports; p++) {
		struct fw_port *port = &fw->port[p];

		memcpy(port->mac, fw->cfg.port[p].mac, sizeof(port->mac));
		port->admin_mtu = fw->cfg.port[p].mtu;
		port->oper_mtu = fw->cfg.port[p].mtu;
		port->eth_proto_admin = FW_PTYS_EXT_ETH_CAP;
		port->eth_proto_oper =
			MLX5E_PROT_MASK(fw->cfg.port[p].eth_link_mode);
		atomic_init(&port->link_up, fw->cfg.port[p].link_up);
		pthread_mutex_init(&port->lock, NULL);
		port->roce = calloc(fw->roce_table_size ? fw->roce_table_size : 1,
				    sizeof(*port->roce));
		if (!port->roce) {
			pthread_mutex_destroy(&port->lock);
			while (p--) {
				free(fw->port[p].roce);
				pthread_mutex_destroy(&fw->port[p].lock);
			}
			return -ENOMEM;
		}
	}
	return 0;
}

void fw_ports_fini(struct emu_fw *fw)
{
	for (unsigned int p = 0; p < fw->cfg.num_ports; p++) {
		free(fw->port[p].roce);
		fw->port[p].roce = NULL;
		pthread_mutex_destroy(&fw->port[p].lock);
	}
}

static uint64_t fw_port_guid(const struct emu_fw *fw, unsigned int p)
{
	const uint8_t *mac = fw->port[p].mac;

	if (p == 0)
		return fw->cfg.node_guid;
	return (uint64_t)mac[0] << 56 | (uint64_t)mac[1] << 48 |
	       (uint64_t)mac[2] << 40 | (uint64_t)0x03 << 32 |
	       (uint64_t)mac[3] << 16 | (uint64_t)mac[4] << 8 | mac[5];
}

/* port_num / vhca_port_num: 0 is the function's native port (1). */
static int fw_port_index(const struct emu_fw *fw, uint32_t port_num)
{
	if (port_num == 0)
		return 0;
	if (port_num > fw->cfg.num_ports)
		return -1;
	return (int)port_num - 1;
}

int emu_fw_port_set_link(struct emu_fw *fw, unsigned int port, bool up)
{
	if (!fw || port < 1 || port > fw->cfg.num_ports)
		return -EINVAL;
	/* A change raises PORT_CHANGE (DOWN or ACTIVE); no change, nothing. */
	if (atomic_exchange(&fw->port[port - 1].link_up, up) != up)
		fw_engine_port_changed(fw, port, up);
	return 0;
}

int emu_fw_port_get_link(const struct emu_fw *fw, unsigned int port,
			 bool *up)
{
	if (!fw || port < 1 || port > fw->cfg.num_ports || !up)
		return -EINVAL;
	*up = atomic_load(&((struct emu_fw *)fw)->port[port - 1].link_up);
	return 0;
}

unsigned int emu_fw_gid_table_size(const struct emu_fw *fw)
{
	return fw->roce_table_size;
}

static bool fw_all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

int emu_fw_gid_get(struct emu_fw *fw, unsigned int port, unsigned int index,
		   struct emu_fw_gid_entry *e)
{
	uint8_t raw[FW_ROCE_ADDR_BYTES];
	uint32_t mac_hi, mac_lo;
	struct fw_port *pt;

	if (!fw || !e || port < 1 || port > fw->cfg.num_ports ||
	    index >= fw->roce_table_size)
		return -EINVAL;
	pt = &fw->port[port - 1];
	pthread_mutex_lock(&pt->lock);
	memcpy(raw, pt->roce[index], sizeof(raw));
	pthread_mutex_unlock(&pt->lock);

	memset(e, 0, sizeof(*e));
	e->valid = !fw_all_zero(raw, sizeof(raw));
	memcpy(e->gid, PRM_ADDR_OF(roce_addr_layout, raw, source_l3_address),
	       sizeof(e->gid));
	mac_hi = PRM_GET(roce_addr_layout, raw, source_mac_47_32);
	mac_lo = PRM_GET(roce_addr_layout, raw, source_mac_31_0);
	e->mac[0] = (uint8_t)(mac_hi >> 8);
	e->mac[1] = (uint8_t)mac_hi;
	e->mac[2] = (uint8_t)(mac_lo >> 24);
	e->mac[3] = (uint8_t)(mac_lo >> 16);
	e->mac[4] = (uint8_t)(mac_lo >> 8);
	e->mac[5] = (uint8_t)mac_lo;
	e->vlan_valid = PRM_GET(roce_addr_layout, raw, vlan_valid);
	e->vlan_id = (uint16_t)PRM_GET(roce_addr_layout, raw, vlan_id);
	e->roce_version = (uint8_t)PRM_GET(roce_addr_layout, raw, roce_version);
	e->roce_l3_type = (uint8_t)PRM_GET(roce_addr_layout, raw, roce_l3_type);
	return 0;
}

/* ---- commands ---- */

enum fw_synd fw_cmd_query_vport_state(struct fw_cmd *cmd)
{
	bool up;

	if (PRM_GET(query_vport_state_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	up = atomic_load(&cmd->fw->port[0].link_up);
	PRM_SET(query_vport_state_out, cmd->out, admin_state,
		MLX5_VPORT_ADMIN_STATE_AUTO);
	PRM_SET(query_vport_state_out, cmd->out, state,
		up ? MLX5_VPORT_STATE_UP : MLX5_VPORT_STATE_DOWN);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_query_nic_vport_context(struct fw_cmd *cmd)
{
	const struct emu_fw *fw = cmd->fw;
	struct fw_port *port = &cmd->fw->port[0];
	void *ctx = PRM_ADDR_OF(query_nic_vport_context_out, cmd->out,
				nic_vport_context);
	uint16_t mtu;
	void *perm = PRM_ADDR_OF(nic_vport_context, ctx, permanent_address);

	if (PRM_GET(query_nic_vport_context_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	PRM_SET(nic_vport_context, ctx, roce_en, FW_CAP_GEN(fw, roce));
	/* The MTU the port runs with (the driver programs both alike). */
	pthread_mutex_lock(&port->lock);
	mtu = port->oper_mtu;
	pthread_mutex_unlock(&port->lock);
	PRM_SET(nic_vport_context, ctx, mtu, mtu);
	PRM_SET64(nic_vport_context, ctx, system_image_guid,
		  fw->cfg.system_image_guid);
	PRM_SET64(nic_vport_context, ctx, port_guid, fw_port_guid(fw, 0));
	PRM_SET64(nic_vport_context, ctx, node_guid, fw->cfg.node_guid);
	PRM_SET(nic_vport_context, ctx, allowed_list_type,
		PRM_GET(query_nic_vport_context_in, cmd->in,
			allowed_list_type));
	PRM_SET(mac_address_layout, perm, mac_addr_47_32,
		(uint32_t)port->mac[0] << 8 | port->mac[1]);
	PRM_SET(mac_address_layout, perm, mac_addr_31_0,
		(uint32_t)port->mac[2] << 24 | (uint32_t)port->mac[3] << 16 |
		(uint32_t)port->mac[4] << 8 | port->mac[5]);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_query_hca_vport_context(struct fw_cmd *cmd)
{
	const struct emu_fw *fw = cmd->fw;
	void *ctx = PRM_ADDR_OF(query_hca_vport_context_out, cmd->out,
				hca_vport_context);
	int p = fw_port_index(fw, PRM_GET(query_hca_vport_context_in, cmd->in,
					  port_num));
	bool up;

	if (PRM_GET(query_hca_vport_context_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	if (p < 0)
		return FW_SYND_BAD_PORT;
	up = atomic_load(&cmd->fw->port[p].link_up);
	PRM_SET(hca_vport_context, ctx, grh_required, 1);
	PRM_SET(hca_vport_context, ctx, port_physical_state,
		up ? FW_PORT_PHYS_STATE_LINK_UP : FW_PORT_PHYS_STATE_DISABLED);
	PRM_SET(hca_vport_context, ctx, port_state,
		up ? FW_PORT_STATE_ACTIVE : FW_PORT_STATE_DOWN);
	PRM_SET(hca_vport_context, ctx, vport_state,
		up ? FW_PORT_STATE_ACTIVE : FW_PORT_STATE_DOWN);
	PRM_SET64(hca_vport_context, ctx, system_image_guid,
		  fw->cfg.system_image_guid);
	PRM_SET64(hca_vport_context, ctx, port_guid,
		  fw_port_guid(fw, (unsigned int)p));
	PRM_SET64(hca_vport_context, ctx, node_guid, fw->cfg.node_guid);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_query_hca_vport_gid(struct fw_cmd *cmd)
{
	struct emu_fw *fw = cmd->fw;
	uint32_t index = PRM_GET(query_hca_vport_gid_in, cmd->in, gid_index);
	int p = fw_port_index(fw, PRM_GET(query_hca_vport_gid_in, cmd->in,
					  port_num));
	uint32_t first, n;
	struct fw_port *port;

	if (PRM_GET(query_hca_vport_gid_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	if (p < 0)
		return FW_SYND_BAD_PORT;
	if (index == 0xffff) {		/* the whole table */
		first = 0;
		n = fw->roce_table_size;
		if (cmd->outlen < PRM_ST_SZ_BYTES(query_hca_vport_gid_out) +
				  (size_t)n * 16)
			return FW_SYND_BAD_OUTLEN;
	} else if (index < fw->roce_table_size) {
		first = index;
		n = 1;
	} else {
		return FW_SYND_GID_BAD_INDEX;
	}
	port = &fw->port[p];
	PRM_SET(query_hca_vport_gid_out, cmd->out, gids_num, n);
	pthread_mutex_lock(&port->lock);
	for (uint32_t i = 0; i < n; i++)
		memcpy(PRM_ARRAY_ADDR(query_hca_vport_gid_out, cmd->out, gid,
				      i),
		       PRM_ADDR_OF(roce_addr_layout, port->roce[first + i],
				   source_l3_address), 16);
	pthread_mutex_unlock(&port->lock);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_query_roce_address(struct fw_cmd *cmd)
{
	struct emu_fw *fw = cmd->fw;
	uint32_t index = PRM_GET(query_roce_address_in, cmd->in,
				 roce_address_index);
	int p = fw_port_index(fw, PRM_GET(query_roce_address_in, cmd->in,
					  vhca_port_num));

	if (p < 0)
		return FW_SYND_BAD_PORT;
	if (index >= fw->roce_table_size)
		return FW_SYND_ROCE_ADDR_BAD_INDEX;
	pthread_mutex_lock(&fw->port[p].lock);
	memcpy(PRM_ADDR_OF(query_roce_address_out, cmd->out, roce_address),
	       fw->port[p].roce[index], FW_ROCE_ADDR_BYTES);
	pthread_mutex_unlock(&fw->port[p].lock);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_set_roce_address(struct fw_cmd *cmd)
{
	struct emu_fw *fw = cmd->fw;
	const void *addr = PRM_ADDR_OF(set_roce_address_in, cmd->in,
				       roce_address);
	uint32_t index = PRM_GET(set_roce_address_in, cmd->in,
				 roce_address_index);
	uint32_t ver = PRM_GET(roce_addr_layout, addr, roce_version);
	uint32_t l3 = PRM_GET(roce_addr_layout, addr, roce_l3_type);
	int p = fw_port_index(fw, PRM_GET(set_roce_address_in, cmd->in,
					  vhca_port_num));

	if (p < 0)
		return FW_SYND_BAD_PORT;
	if (index >= fw->roce_table_size)
		return FW_SYND_ROCE_ADDR_BAD_INDEX;
	/* Versions and L3 types as advertised (bit v / bit l3 + 1). */
	if ((ver != MLX5_ROCE_VERSION_1 && ver != MLX5_ROCE_VERSION_2) ||
	    !(FW_CAP_ROCE(fw, roce_version) & (1u << ver)) ||
	    (l3 != MLX5_ROCE_L3_TYPE_IPV4 && l3 != MLX5_ROCE_L3_TYPE_IPV6) ||
	    !(FW_CAP_ROCE(fw, l3_type) & (1u << (l3 + 1))))
		return FW_SYND_ROCE_ADDR_BAD_VERSION;
	pthread_mutex_lock(&fw->port[p].lock);
	memcpy(fw->port[p].roce[index], addr, FW_ROCE_ADDR_BYTES);
	pthread_mutex_unlock(&fw->port[p].lock);
	return FW_SYND_OK;
}
