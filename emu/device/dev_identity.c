/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_identity.c -- building a device's identity.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "emu/device/dev_addr.h"
#include "emu/device/dev_identity.h"
#include "prm/prm_cmd.h"

void emu_mac_from_ipv4(uint32_t ip, uint8_t mac[6])
{
	mac[0] = 0x02;		/* locally administered, unicast */
	mac[1] = 0xc9;		/* echoes Mellanox's OUI 00:02:c9 */
	mac[2] = (uint8_t)(ip >> 24);
	mac[3] = (uint8_t)(ip >> 16);
	mac[4] = (uint8_t)(ip >> 8);
	mac[5] = (uint8_t)ip;
}

uint64_t emu_guid_from_mac(const uint8_t mac[6])
{
	return (uint64_t)mac[0] << 56 | (uint64_t)mac[1] << 48 |
	       (uint64_t)mac[2] << 40 | (uint64_t)0x03 << 32 |
	       (uint64_t)0x00 << 24 | (uint64_t)mac[3] << 16 |
	       (uint64_t)mac[4] << 8 | mac[5];
}

void emu_eui64_from_mac(const uint8_t mac[6], uint8_t eui[8])
{
	eui[0] = mac[0] ^ 0x02;	/* universal/local bit flipped */
	eui[1] = mac[1];
	eui[2] = mac[2];
	eui[3] = 0xff;
	eui[4] = 0xfe;
	eui[5] = mac[3];
	eui[6] = mac[4];
	eui[7] = mac[5];
}

void emu_gid_link_local(const uint8_t mac[6], uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	emu_eui64_from_mac(mac, gid + 8);
}

void emu_gid_ipv4_mapped(uint32_t ip, uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[10] = 0xff;
	gid[11] = 0xff;
	gid[12] = (uint8_t)(ip >> 24);
	gid[13] = (uint8_t)(ip >> 16);
	gid[14] = (uint8_t)(ip >> 8);
	gid[15] = (uint8_t)ip;
}

static void build_port(struct emu_port_identity *p, int port_num, uint32_t ip)
{
	memset(p, 0, sizeof(*p));
	p->port_num = (uint8_t)port_num;
	p->ipv4 = ip;
	p->endpoint_ipv4 = ip;
	p->udp_port = EMU_VXLAN_UDP_PORT;
	p->udp_fd = -1;
	emu_mac_from_ipv4(ip, p->mac);
	p->port_guid = emu_guid_from_mac(p->mac);

	p->state = IBV_PORT_ACTIVE;
	p->phys_state = 5;			/* LinkUp */
	p->link_layer = IBV_LINK_LAYER_ETHERNET;
	p->netdev_mtu = EMU_NETDEV_MTU;
	p->eth_link_mode = MLX5E_CAUI_4_100GBASE_CR4_KR4;	/* 100GBASE-CR4 */
	p->port_cap_flags = EMU_PORT_CAP_FLAGS;

	/* The GID table of a real mlx5 RoCE port with one IPv4 address. */
	p->gid_tbl_len = EMU_GID_TABLE_LEN;
	emu_gid_link_local(p->mac, p->gids[0].gid);
	p->gids[0].type = EMU_GID_TYPE_ROCE_V1;
	memcpy(p->gids[1].gid, p->gids[0].gid, 16);
	p->gids[1].type = EMU_GID_TYPE_ROCE_V2;
	emu_gid_ipv4_mapped(ip, p->gids[2].gid);
	p->gids[2].type = EMU_GID_TYPE_ROCE_V1;
	memcpy(p->gids[3].gid, p->gids[2].gid, 16);
	p->gids[3].type = EMU_GID_TYPE_ROCE_V2;
	for (int i = 0; i < 4; i++)
		p->gids[i].valid = true;

	p->pkey_tbl_len = EMU_PKEY_TABLE_LEN;
	p->pkeys[0] = 0xffff;
}

int emu_identity_build(struct emu_dev_identity *id, int index, int num_ports,
		       const uint32_t *ips)
{
	if (index < 0 || index >= EMU_MAX_DEVICES || num_ports < 1 ||
	    num_ports > EMU_MAX_PORTS)
		return -EINVAL;

	memset(id, 0, sizeof(*id));
	id->index = index;
	snprintf(id->name, sizeof(id->name), "mlx5_%d", index);
	snprintf(id->dev_name, sizeof(id->dev_name), "uverbs%d", index);

	/* One card per device, each on its own bus, like separate slots. */
	snprintf(id->pci_addr, sizeof(id->pci_addr), "0000:%02x:00.0",
		 EMU_PCI_FIRST_BUS + index);
	id->pci_vendor = EMU_PCI_VENDOR_MELLANOX;
	id->pci_device = EMU_PCI_DEVICE_CX6DX;
	id->pci_subsys_vendor = EMU_PCI_VENDOR_MELLANOX;
	id->pci_subsys_device = EMU_PCI_SUBSYS_DEVICE;
	id->pci_revision = 0;
	id->pci_class = EMU_PCI_CLASS_ETHERNET;

	id->node_type = IBV_NODE_CA;
	id->vendor_id = EMU_VERBS_VENDOR_ID;
	id->vendor_part_id = EMU_VENDOR_PART_ID;
	id->hw_ver = id->pci_revision;
	id->fw_major = EMU_FW_MAJOR;
	id->fw_minor = EMU_FW_MINOR;
	id->fw_subminor = EMU_FW_SUBMINOR;
	/* mlx5_ib's get_dev_fw_str(): "%d.%d.%04d". */
	snprintf(id->fw_ver, sizeof(id->fw_ver), "%d.%d.%04d", id->fw_major,
		 id->fw_minor, id->fw_subminor);
	snprintf(id->board_id, sizeof(id->board_id), "%s", EMU_BOARD_ID);
	/* mlx5_ib's hca_type: "MT%d" of the PCI device id. */
	snprintf(id->hca_type, sizeof(id->hca_type), "MT%d", id->pci_device);
	snprintf(id->node_desc, sizeof(id->node_desc), "%s", EMU_NODE_DESC);

	id->cdev_major = EMU_UVERBS_MAJOR;
	id->cdev_minor = EMU_UVERBS_BASE_MINOR + (unsigned int)index;
	id->uverbs_abi_ver = EMU_MLX5_UVERBS_ABI;

	id->num_ports = num_ports;
	for (int p = 0; p < num_ports; p++)
		build_port(&id->ports[p], p + 1, ips[p]);
	id->node_guid = emu_guid_from_mac(id->ports[0].mac);
	id->sys_image_guid = id->node_guid;
	return 0;
}

int emu_identity_build_mana(struct emu_dev_identity *id, int mana_index,
			    int slot, int num_ports, const uint32_t *ips)
{
	int ret;

	if (mana_index < 0 || mana_index >= EMU_MAX_MANA_DEVICES || slot < 0 ||
	    slot >= EMU_MAX_DEVICES + EMU_MAX_MANA_DEVICES)
		return -EINVAL;
	ret = emu_identity_build(id, 0, num_ports, ips);
	if (ret)
		return ret;
	id->index = slot;
	snprintf(id->name, sizeof(id->name), "mana_%d", mana_index);
	snprintf(id->dev_name, sizeof(id->dev_name), "uverbs%d", slot);
	snprintf(id->pci_addr, sizeof(id->pci_addr), "0000:%02x:00.0",
		 EMU_PCI_FIRST_BUS + slot);
	id->pci_vendor = EMU_PCI_VENDOR_MICROSOFT;
	id->pci_device = EMU_PCI_DEVICE_MANA_VF;
	id->pci_subsys_vendor = EMU_PCI_VENDOR_MICROSOFT;
	id->pci_subsys_device = 0;
	id->vendor_id = EMU_PCI_VENDOR_MICROSOFT;
	id->vendor_part_id = EMU_MANA_PART_ID;
	/* mana_ib has no firmware string, board id or HCA type. */
	id->fw_major = id->fw_minor = id->fw_subminor = 0;
	id->fw_ver[0] = id->board_id[0] = id->hca_type[0] = id->node_desc[0] = 0;
	id->cdev_minor = EMU_UVERBS_BASE_MINOR + (unsigned int)slot;
	id->uverbs_abi_ver = EMU_MANA_UVERBS_ABI;
	for (int p = 0; p < num_ports; p++)
		snprintf(id->ports[p].ifname, sizeof(id->ports[p].ifname),
			 "mana%dp%d", mana_index & 0xff, p & 0xf);
	return 0;
}

void emu_format_guid(uint64_t guid, char buf[EMU_GUID_STR_LEN])
{
	snprintf(buf, EMU_GUID_STR_LEN, "%04x:%04x:%04x:%04x",
		 (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff,
		 (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
}

void emu_format_gid(const uint8_t gid[16], char buf[EMU_GID_STR_LEN])
{
	/* The kernel's %pI6: eight groups of four hex digits, no compression. */
	snprintf(buf, EMU_GID_STR_LEN,
		 "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 gid[0], gid[1], gid[2], gid[3], gid[4], gid[5], gid[6], gid[7],
		 gid[8], gid[9], gid[10], gid[11], gid[12], gid[13], gid[14],
		 gid[15]);
}

void emu_format_mac(const uint8_t mac[6], char buf[EMU_MAC_STR_LEN])
{
	snprintf(buf, EMU_MAC_STR_LEN, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0],
		 mac[1], mac[2], mac[3], mac[4], mac[5]);
}
