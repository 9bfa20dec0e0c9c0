/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_identity.h -- who an emulated device is: names, PCI ids,
 * firmware version, board id, GUIDs, and per port its MAC, IPv4 address,
 * GID table and link as the kernel reports them.
 *
 * Every value is that of a real ConnectX-6 Dx 100GbE (MCX623106AN-CDAT) on
 * Linux, or derived from the port's address the way a real card derives it;
 * README.md lists each one with its evidence.  The sysfs-like tree
 * (dev_sysfs.c) and the verbs answers (emu/kernel/) are both rendered from
 * this one struct, so they never disagree.
 *
 * Byte orders: GUIDs are numeric values in host order (their sysfs form
 * "xxxx:xxxx:xxxx:xxxx" prints them most significant first; verbs' __be64 is
 * htobe64() of them).  MACs and GIDs are byte arrays in wire order.  IPv4
 * addresses are host-order integers.
 */
#ifndef MLX5EMU_EMU_DEVICE_DEV_IDENTITY_H
#define MLX5EMU_EMU_DEVICE_DEV_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/device/dev_config.h"

/*
 * GID table entries per port (gid_tbl_len).  This must equal the
 * roce_address_table_size the firmware advertises; the kernel reports it
 * minus reserved GIDs (none here).  Upstream mlx5 reports 256 for CX-6 Dx;
 * MLNX_OFED, which reserves one, shows 255.
 */
#define EMU_GID_TABLE_LEN 256
/* RoCE ports have a one-entry pkey table {0xffff} (ibv_devinfo: pkey_tbl_len 1). */
#define EMU_PKEY_TABLE_LEN 1
#define EMU_NAME_MAX 64
#define EMU_PATH_MAX 256

/* The kernel's GID types (enum ib_gid_type / ibv_gid_type_sysfs). */
enum emu_gid_type {
	EMU_GID_TYPE_ROCE_V1 = 0,	/* sysfs "IB/RoCE v1" */
	EMU_GID_TYPE_ROCE_V2 = 1,	/* sysfs "RoCE v2" */
};

struct emu_gid_entry {
	bool valid;			/* false: empty (ENODATA) */
	uint8_t type;			/* enum emu_gid_type */
	uint8_t gid[16];		/* zero when empty */
};

struct emu_port_identity {
	uint8_t port_num;		/* 1-based */
	uint8_t mac[6];			/* locally administered: 02:c9:<ipv4> */
	uint32_t ipv4;			/* host order: the inner address */
	/* The tunnel endpoint (the wire's outer address) and its socket,
	 * the port's claim; by default endpoint_ipv4 is ipv4. */
	uint32_t endpoint_ipv4;		/* host order */
	uint16_t udp_port;		/* wire.udp_port (4789) */
	int udp_fd;			/* bound there; -1 once closed */
	uint64_t port_guid;		/* from mac, as node_guid */
	/* The port's net device, shown under the PCI function's net/
	 * directory with dev_port and address ("" for none). */
	char ifname[16];

	/* The link, as mlx5_ib reports a 100GbE RoCE port (ib_port_attr).
	 * MTUs, width, speed and max_msg_sz are no constants here: the
	 * kernel layer derives them from the firmware's PTYS and PMTU and
	 * the capabilities, as mlx5_query_port_roce does. */
	uint8_t state;			/* IBV_PORT_ACTIVE (4) */
	uint8_t phys_state;		/* 5: LinkUp */
	uint8_t link_layer;		/* IBV_LINK_LAYER_ETHERNET (2) */
	uint32_t netdev_mtu;		/* 1500, the netdev a real port has */
	/* The link mode the port comes up at (PTYS ext_eth_proto_oper):
	 * MLX5E_CAUI_4_100GBASE_CR4_KR4, which mlx5_ib shows as 4X EDR. */
	uint8_t eth_link_mode;
	uint32_t port_cap_flags;	/* CM_SUP | IP_BASED_GIDS */
	uint16_t lid, sm_lid;		/* 0 on RoCE */
	uint8_t lmc, sm_sl;

	int gid_tbl_len;		/* EMU_GID_TABLE_LEN */
	struct emu_gid_entry gids[EMU_GID_TABLE_LEN];
	int pkey_tbl_len;		/* EMU_PKEY_TABLE_LEN */
	uint16_t pkeys[EMU_PKEY_TABLE_LEN];	/* {0xffff} */
};

struct emu_dev_identity {
	int index;			/* N of mlx5_N */
	char name[EMU_NAME_MAX];	/* "mlx5_0" (ibv_device.name) */
	char dev_name[EMU_NAME_MAX];	/* "uverbs0" (ibv_device.dev_name) */

	/* PCI function. */
	char pci_addr[16];		/* "0000:08:00.0" */
	uint16_t pci_vendor;		/* 0x15b3 */
	uint16_t pci_device;		/* 0x101d */
	uint16_t pci_subsys_vendor;	/* 0x15b3 */
	uint16_t pci_subsys_device;	/* 0x0016 */
	uint8_t pci_revision;		/* 0x00 */
	uint32_t pci_class;		/* 0x020000: Ethernet controller */

	/* What verbs and sysfs report. */
	uint8_t node_type;		/* 1: CA */
	uint32_t vendor_id;		/* 0x02c9 (ibv_device_attr.vendor_id) */
	uint32_t vendor_part_id;	/* 4125 */
	uint32_t hw_ver;		/* 0 */
	uint16_t fw_major, fw_minor, fw_subminor;	/* 22, 36, 1010 */
	char fw_ver[EMU_NAME_MAX];	/* "22.36.1010" */
	char board_id[EMU_NAME_MAX];	/* "MT_0000000359" (the PSID) */
	char hca_type[16];		/* "MT4125" */
	char node_desc[EMU_NAME_MAX];	/* "MT4125 ConnectX6Dx Mellanox Technologies" */
	uint64_t node_guid;		/* from port 1's MAC */
	uint64_t sys_image_guid;	/* = node_guid: every device is its own card */

	/* The kernel's uverbs character device (uverbsN/dev, abi_version). */
	unsigned int cdev_major;	/* 231 */
	unsigned int cdev_minor;	/* 192 + N */
	unsigned int uverbs_abi_ver;	/* 1: mlx5's uverbs ABI */

	/* Paths into the process's sysfs-like tree ("" before it exists). */
	char ibdev_path[EMU_PATH_MAX];	/* <root>/class/infiniband/mlx5_N */
	char dev_path[EMU_PATH_MAX];	/* <root>/class/infiniband_verbs/uverbsN */

	int num_ports;			/* phys_port_cnt */
	struct emu_port_identity ports[EMU_MAX_PORTS];	/* ports[0] is port 1 */
};

/* Constants of the emulated part. */
#define EMU_PCI_VENDOR_MELLANOX	0x15b3
#define EMU_PCI_DEVICE_CX6DX	0x101d
#define EMU_PCI_SUBSYS_DEVICE	0x0016
#define EMU_PCI_CLASS_ETHERNET	0x020000
#define EMU_PCI_FIRST_BUS	0x08
#define EMU_VERBS_VENDOR_ID	0x02c9
#define EMU_VENDOR_PART_ID	4125
#define EMU_FW_MAJOR		22
#define EMU_FW_MINOR		36
#define EMU_FW_SUBMINOR		1010
#define EMU_BOARD_ID		"MT_0000000359"
#define EMU_NODE_DESC		"MT4125 ConnectX6Dx Mellanox Technologies"
#define EMU_UVERBS_MAJOR	231
#define EMU_UVERBS_BASE_MINOR	192
#define EMU_UVERBS_ABI_VERSION	6	/* class/infiniband_verbs/abi_version */
#define EMU_MLX5_UVERBS_ABI	1	/* uverbsN/abi_version */
#define EMU_NETDEV_MTU		1500
/* The largest netdev MTU whose frames (Ethernet header, a VLAN tag, FCS
 * added) the wire carries (kern_wire.c checks it against emu/wire). */
#define EMU_NETDEV_MTU_MAX	4330
#define EMU_PORT_CAP_FLAGS	0x04010000u	/* IB_PORT_CM_SUP | IB_PORT_IP_BASED_GIDS */
#define EMU_PCI_VENDOR_MICROSOFT	0x1414
#define EMU_PCI_DEVICE_MANA_VF	0x00ba
#define EMU_MANA_PART_ID	2	/* GDMA_DEVICE_MANA, mana_ib's vendor_part_id */
#define EMU_MANA_UVERBS_ABI	1	/* MANA_IB_UVERBS_ABI_VERSION */

/* The derivations (pure; tested byte by byte). */

/* 02:c9:<ip bytes>: locally administered, unicast, reversible. */
void emu_mac_from_ipv4(uint32_t ip, uint8_t mac[6]);
/* Mellanox's GUID from a MAC: mac[0..2] 03 00 mac[3..5]. */
uint64_t emu_guid_from_mac(const uint8_t mac[6]);
/* The modified EUI-64 interface id (RFC 4291): U/L bit flipped, ff:fe. */
void emu_eui64_from_mac(const uint8_t mac[6], uint8_t eui[8]);
/* fe80::<EUI-64 of mac>. */
void emu_gid_link_local(const uint8_t mac[6], uint8_t gid[16]);
/* ::ffff:<ip>. */
void emu_gid_ipv4_mapped(uint32_t ip, uint8_t gid[16]);

/*
 * Fills id for device index with num_ports ports whose addresses are
 * ips[0..num_ports-1] (host order); udp_fd of every port is -1 and the paths
 * are empty.  Returns 0 or -EINVAL (index or num_ports out of range).
 */
int emu_identity_build(struct emu_dev_identity *id, int index, int num_ports,
		       const uint32_t *ips);

/*
 * The identity of MANA device mana_<mana_index> (a Microsoft Azure Network
 * Adapter VF as mana_ib shows it), in slot @slot of the process's devices
 * (its uverbs number and PCI bus), with a net device per port.  0 or
 * -EINVAL.
 */
int emu_identity_build_mana(struct emu_dev_identity *id, int mana_index,
			    int slot, int num_ports, const uint32_t *ips);

/* Text forms as Linux prints them. */
#define EMU_GUID_STR_LEN 20	/* "xxxx:xxxx:xxxx:xxxx" + NUL */
#define EMU_GID_STR_LEN 40	/* "xxxx:...:xxxx" (8 groups) + NUL */
#define EMU_MAC_STR_LEN 18
void emu_format_guid(uint64_t guid, char buf[EMU_GUID_STR_LEN]);
void emu_format_gid(const uint8_t gid[16], char buf[EMU_GID_STR_LEN]);
void emu_format_mac(const uint8_t mac[6], char buf[EMU_MAC_STR_LEN]);

#endif /* MLX5EMU_EMU_DEVICE_DEV_IDENTITY_H */
