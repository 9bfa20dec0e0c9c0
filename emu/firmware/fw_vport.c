/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_vport.c -- the function's vport and its Ethernet ports:
 * QUERY_VPORT_STATE, QUERY/MODIFY_NIC_VPORT_CONTEXT, QUERY_HCA_VPORT_CONTEXT,
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
	fw->nic_vport.roce_en = FW_CAP_GEN(fw, roce);
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
	fw_vport_rx_update(fw);
	return 0;
}

void fw_ports_fini(struct emu_fw *fw)
{
	free(fw->nic_vport.uc);
	free(fw->nic_vport.mc);
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

unsigned int emu_fw_gid_table_gen(const struct emu_fw *fw)
{
	return atomic_load_explicit(&((struct emu_fw *)fw)->roce_gen,
				    memory_order_acquire);
}

/* A MAC kept as the PRM keeps it: bits 47..32 and 31..0. */
static void fw_mac_split(uint32_t hi, uint32_t lo, uint8_t mac[6])
{
	mac[0] = (uint8_t)(hi >> 8);
	mac[1] = (uint8_t)hi;
	mac[2] = (uint8_t)(lo >> 24);
	mac[3] = (uint8_t)(lo >> 16);
	mac[4] = (uint8_t)(lo >> 8);
	mac[5] = (uint8_t)lo;
}

int emu_fw_gid_get(struct emu_fw *fw, unsigned int port, unsigned int index,
		   struct emu_fw_gid_entry *e)
{
	uint8_t raw[FW_ROCE_ADDR_BYTES];
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
	fw_mac_split(PRM_GET(roce_addr_layout, raw, source_mac_47_32),
		     PRM_GET(roce_addr_layout, raw, source_mac_31_0), e->mac);
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

static void fw_mac_put(void *layout, const uint8_t *mac)
{
	PRM_SET(mac_address_layout, layout, mac_addr_47_32,
		(uint32_t)mac[0] << 8 | mac[1]);
	PRM_SET(mac_address_layout, layout, mac_addr_31_0,
		(uint32_t)mac[2] << 24 | (uint32_t)mac[3] << 16 |
		(uint32_t)mac[4] << 8 | mac[5]);
}

static void fw_mac_get(const void *layout, uint8_t *mac)
{
	fw_mac_split(PRM_GET(mac_address_layout, layout, mac_addr_47_32),
		     PRM_GET(mac_address_layout, layout, mac_addr_31_0), mac);
}

/* The address list of @ctx: where entry i lies. */
static void *fw_vport_list_entry(void *ctx, unsigned int i)
{
	return (uint8_t *)ctx + PRM_BYTE_OFF(nic_vport_context,
					     current_uc_mac_address) +
	       (size_t)i * PRM_ST_SZ_BYTES(mac_address_layout);
}

/*
 * What MODIFY_NIC_VPORT_CONTEXT set, else the port's: the MAC
 * (permanent_address is the vport's address), the MTU, roce_en; the
 * promiscuous and local-loopback bits; the address list of the type
 * asked for, as many entries as the outbox holds (allowed_list_size says
 * how many there are).
 */
enum fw_synd fw_cmd_query_nic_vport_context(struct fw_cmd *cmd)
{
	struct emu_fw *fw = cmd->fw;
	struct fw_port *port = &cmd->fw->port[0];
	const struct fw_nic_vport *nv = &fw->nic_vport;
	void *ctx = PRM_ADDR_OF(query_nic_vport_context_out, cmd->out,
				nic_vport_context);
	unsigned int type = PRM_GET(query_nic_vport_context_in, cmd->in,
				    allowed_list_type);
	size_t room = (cmd->outlen - PRM_ST_SZ_BYTES(query_nic_vport_context_out)) /
		      PRM_ST_SZ_BYTES(mac_address_layout);
	unsigned int n;
	uint16_t mtu;

	if (PRM_GET(query_nic_vport_context_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	/* The MTU the port runs with (the driver programs both alike). */
	pthread_mutex_lock(&port->lock);
	mtu = port->oper_mtu;
	pthread_mutex_unlock(&port->lock);
	PRM_SET64(nic_vport_context, ctx, system_image_guid,
		  fw->cfg.system_image_guid);
	PRM_SET64(nic_vport_context, ctx, port_guid, fw_port_guid(fw, 0));
	PRM_SET64(nic_vport_context, ctx, node_guid, fw->cfg.node_guid);
	PRM_SET(nic_vport_context, ctx, allowed_list_type, type);

	pthread_mutex_lock(&fw->steer_lock);
	PRM_SET(nic_vport_context, ctx, roce_en, nv->roce_en);
	PRM_SET(nic_vport_context, ctx, mtu, nv->mtu ? nv->mtu : mtu);
	fw_mac_put(PRM_ADDR_OF(nic_vport_context, ctx, permanent_address),
		   nv->perm_set ? nv->perm_mac : port->mac);
	PRM_SET(nic_vport_context, ctx, promisc_uc, nv->promisc_uc);
	PRM_SET(nic_vport_context, ctx, promisc_mc, nv->promisc_mc);
	PRM_SET(nic_vport_context, ctx, promisc_all, nv->promisc_all);
	PRM_SET(nic_vport_context, ctx, disable_uc_local_lb,
		nv->disable_uc_local_lb);
	PRM_SET(nic_vport_context, ctx, disable_mc_local_lb,
		nv->disable_mc_local_lb);
	if (type == MLX5_NVPRT_LIST_TYPE_UC || type == MLX5_NVPRT_LIST_TYPE_MC) {
		const uint8_t (*list)[6] = type == MLX5_NVPRT_LIST_TYPE_UC ?
					   nv->uc : nv->mc;

		n = type == MLX5_NVPRT_LIST_TYPE_UC ? nv->n_uc : nv->n_mc;
		PRM_SET(nic_vport_context, ctx, allowed_list_size, n);
		for (unsigned int i = 0; i < n && i < room; i++)
			fw_mac_put(fw_vport_list_entry(ctx, i), list[i]);
	}
	pthread_mutex_unlock(&fw->steer_lock);
	return FW_SYND_OK;
}

/* Replace the address list of @type with the @n entries of @ctx. */
static enum fw_synd fw_vport_set_list(struct emu_fw *fw, const void *ctx,
				      unsigned int type, unsigned int n)
{
	struct fw_nic_vport *nv = &fw->nic_vport;
	uint8_t (*list)[6] = NULL;

	if (n) {
		list = calloc(n, sizeof(*list));
		if (!list)
			return FW_SYND_INTERNAL_NOMEM;
	}
	for (unsigned int i = 0; i < n; i++)
		fw_mac_get(fw_vport_list_entry((void *)ctx, i), list[i]);
	if (type == MLX5_NVPRT_LIST_TYPE_UC) {
		free(nv->uc);
		nv->uc = list;
		nv->n_uc = (uint16_t)n;
	} else {
		free(nv->mc);
		nv->mc = list;
		nv->n_mc = (uint16_t)n;
	}
	return FW_SYND_OK;
}

/*
 * The kernel's own vport settings (mlx5_modify_nic_vport_*): each part
 * field_select names is checked first, then all are set.  Parts this
 * function may not change (node and port GUIDs, min inline, affiliation,
 * change events) are refused.
 */
enum fw_synd fw_cmd_modify_nic_vport_context(struct fw_cmd *cmd)
{
	const void *sel = PRM_ADDR_OF(modify_nic_vport_context_in, cmd->in,
				      field_select);
	const void *ctx = PRM_ADDR_OF(modify_nic_vport_context_in, cmd->in,
				      nic_vport_context);
	struct emu_fw *fw = cmd->fw;
	struct fw_nic_vport *nv = &fw->nic_vport;
	unsigned int type = PRM_GET(nic_vport_context, ctx, allowed_list_type);
	unsigned int n = PRM_GET(nic_vport_context, ctx, allowed_list_size);
	unsigned int mtu = PRM_GET(nic_vport_context, ctx, mtu);
	bool list = PRM_GET(modify_nic_vport_field_select, sel, addresses_list);
	enum fw_synd s = FW_SYND_OK;

	if (PRM_GET(modify_nic_vport_context_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	if (PRM_GET(modify_nic_vport_field_select, sel, affiliation) ||
	    PRM_GET(modify_nic_vport_field_select, sel, node_guid) ||
	    PRM_GET(modify_nic_vport_field_select, sel, port_guid) ||
	    PRM_GET(modify_nic_vport_field_select, sel, min_inline) ||
	    PRM_GET(modify_nic_vport_field_select, sel, change_event))
		return FW_SYND_VPORT_BAD_SELECT;
	if (PRM_GET(modify_nic_vport_field_select, sel, mtu) &&
	    (mtu < 64 || mtu > EMU_FW_PORT_MAX_MTU))
		return FW_SYND_VPORT_BAD_MTU;
	if (list) {
		unsigned int log_max = type == MLX5_NVPRT_LIST_TYPE_UC ?
			FW_CAP_GEN(fw, log_max_current_uc_list) :
			FW_CAP_GEN(fw, log_max_current_mc_list);

		if ((type != MLX5_NVPRT_LIST_TYPE_UC &&
		     type != MLX5_NVPRT_LIST_TYPE_MC) || n > (1u << log_max) ||
		    cmd->inlen < PRM_ST_SZ_BYTES(modify_nic_vport_context_in) +
				 (size_t)n * PRM_ST_SZ_BYTES(mac_address_layout))
			return FW_SYND_VPORT_BAD_LIST;
	}

	pthread_mutex_lock(&fw->steer_lock);
	if (list)
		s = fw_vport_set_list(fw, ctx, type, n);
	if (s)
		goto out;
	if (PRM_GET(modify_nic_vport_field_select, sel, mtu))
		nv->mtu = (uint16_t)mtu;
	if (PRM_GET(modify_nic_vport_field_select, sel, roce_en))
		nv->roce_en = PRM_GET(nic_vport_context, ctx, roce_en);
	if (PRM_GET(modify_nic_vport_field_select, sel, permanent_address)) {
		fw_mac_get(PRM_ADDR_OF(nic_vport_context, ctx,
				       permanent_address), nv->perm_mac);
		nv->perm_set = true;
	}
	if (PRM_GET(modify_nic_vport_field_select, sel, promisc)) {
		nv->promisc_uc = PRM_GET(nic_vport_context, ctx, promisc_uc);
		nv->promisc_mc = PRM_GET(nic_vport_context, ctx, promisc_mc);
		nv->promisc_all = PRM_GET(nic_vport_context, ctx, promisc_all);
	}
	if (PRM_GET(modify_nic_vport_field_select, sel, disable_uc_local_lb))
		nv->disable_uc_local_lb = PRM_GET(nic_vport_context, ctx,
						  disable_uc_local_lb);
	if (PRM_GET(modify_nic_vport_field_select, sel, disable_mc_local_lb))
		nv->disable_mc_local_lb = PRM_GET(nic_vport_context, ctx,
						  disable_mc_local_lb);
	fw_vport_rx_update(fw);
out:
	pthread_mutex_unlock(&fw->steer_lock);
	return s;
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
	atomic_fetch_add_explicit(&fw->roce_gen, 1, memory_order_release);
	pthread_mutex_unlock(&fw->port[p].lock);
	return FW_SYND_OK;
}
