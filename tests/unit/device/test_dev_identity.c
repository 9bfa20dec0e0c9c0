/* SPDX-License-Identifier: MIT */
/*
 * emu/device identity: the MAC, GUID and GID bytes derived from a fixed
 * address, checked byte by byte, and against a real ConnectX-6 Dx.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "emu/device/dev_identity.h"
#include "emu/wire/wire.h"

#define IP 0x7f123456u		/* 127.18.52.86 */

static struct emu_dev_identity id;

START_TEST(mac_from_ipv4)
{
	static const uint8_t want[6] = { 0x02, 0xc9, 0x7f, 0x12, 0x34, 0x56 };
	uint8_t mac[6];
	char s[EMU_MAC_STR_LEN];

	emu_mac_from_ipv4(IP, mac);
	ck_assert_mem_eq(mac, want, 6);
	ck_assert(mac[0] & 0x02);	/* locally administered */
	ck_assert(!(mac[0] & 0x01));	/* unicast */
	emu_format_mac(mac, s);
	ck_assert_str_eq(s, "02:c9:7f:12:34:56");
}
END_TEST

START_TEST(guid_from_mac)
{
	static const uint8_t mac[6] = { 0x02, 0xc9, 0x7f, 0x12, 0x34, 0x56 };
	char s[EMU_GUID_STR_LEN];

	ck_assert_uint_eq(emu_guid_from_mac(mac), 0x02c97f0300123456ull);
	emu_format_guid(emu_guid_from_mac(mac), s);
	ck_assert_str_eq(s, "02c9:7f03:0012:3456");
}
END_TEST

/*
 * A real MCX623106AN-CDAT (fw 22.36.1010), ibv_devinfo -v: node_guid
 * c470:bd03:00aa:1fc9 and GID[0] fe80::c670:bdff:feaa:1fc9, i.e. MAC
 * c4:70:bd:aa:1f:c9.  flint on the same family: Base MAC 08c0eba27bc8,
 * Base GUID 08c0eb0300a27bc8.
 */
START_TEST(real_card_derivations)
{
	static const uint8_t mac1[6] = { 0xc4, 0x70, 0xbd, 0xaa, 0x1f, 0xc9 };
	static const uint8_t mac2[6] = { 0x08, 0xc0, 0xeb, 0xa2, 0x7b, 0xc8 };
	static const uint8_t gid0[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0xc6,
					  0x70, 0xbd, 0xff, 0xfe, 0xaa, 0x1f, 0xc9 };
	uint8_t gid[16];
	char s[EMU_GID_STR_LEN];

	ck_assert_uint_eq(emu_guid_from_mac(mac1), 0xc470bd0300aa1fc9ull);
	ck_assert_uint_eq(emu_guid_from_mac(mac2), 0x08c0eb0300a27bc8ull);
	emu_gid_link_local(mac1, gid);
	ck_assert_mem_eq(gid, gid0, 16);
	emu_format_gid(gid, s);
	ck_assert_str_eq(s, "fe80:0000:0000:0000:c670:bdff:feaa:1fc9");
}
END_TEST

START_TEST(eui64_and_gids)
{
	static const uint8_t mac[6] = { 0x02, 0xc9, 0x7f, 0x12, 0x34, 0x56 };
	static const uint8_t eui_want[8] = { 0x00, 0xc9, 0x7f, 0xff, 0xfe,
					     0x12, 0x34, 0x56 };
	static const uint8_t v4_want[16] = { [10] = 0xff, [11] = 0xff,
					     [12] = 0x7f, [13] = 0x12,
					     [14] = 0x34, [15] = 0x56 };
	uint8_t eui[8], gid[16];
	char s[EMU_GID_STR_LEN];

	emu_eui64_from_mac(mac, eui);
	ck_assert_mem_eq(eui, eui_want, 8);
	emu_gid_link_local(mac, gid);
	ck_assert_uint_eq(gid[0], 0xfe);
	ck_assert_uint_eq(gid[1], 0x80);
	for (int i = 2; i < 8; i++)
		ck_assert_uint_eq(gid[i], 0);
	ck_assert_mem_eq(gid + 8, eui_want, 8);
	emu_format_gid(gid, s);
	ck_assert_str_eq(s, "fe80:0000:0000:0000:00c9:7fff:fe12:3456");
	emu_gid_ipv4_mapped(IP, gid);
	ck_assert_mem_eq(gid, v4_want, 16);
	emu_format_gid(gid, s);
	ck_assert_str_eq(s, "0000:0000:0000:0000:0000:ffff:7f12:3456");
}
END_TEST

START_TEST(mac_from_gid)
{
	uint8_t mac[6], back[6], gid[16];
	static const uint8_t other[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };

	emu_mac_from_ipv4(IP, mac);
	emu_gid_link_local(mac, gid);
	/* The wire's inverse (it finds peers by it) undoes both GIDs. */
	ck_assert(emu_wire_mac_of_gid(gid, back));
	ck_assert_mem_eq(back, mac, 6);
	emu_gid_ipv4_mapped(IP, gid);
	memset(back, 0, sizeof(back));
	ck_assert(emu_wire_mac_of_gid(gid, back));
	ck_assert_mem_eq(back, mac, 6);
	ck_assert(!emu_wire_mac_of_gid(other, back));
	memset(gid, 0, sizeof(gid));
	ck_assert(!emu_wire_mac_of_gid(gid, back));
}
END_TEST

START_TEST(device_identity)
{
	const uint32_t ips[1] = { IP };
	char s[EMU_GUID_STR_LEN];

	ck_assert_int_eq(emu_identity_build(&id, 3, 1, ips), 0);
	ck_assert_int_eq(id.index, 3);
	ck_assert_str_eq(id.name, "mlx5_3");
	ck_assert_str_eq(id.dev_name, "uverbs3");
	ck_assert_str_eq(id.pci_addr, "0000:0b:00.0");
	ck_assert_uint_eq(id.pci_vendor, 0x15b3);
	ck_assert_uint_eq(id.pci_device, 0x101d);
	ck_assert_uint_eq(id.pci_subsys_vendor, 0x15b3);
	ck_assert_uint_eq(id.pci_subsys_device, 0x0016);
	ck_assert_uint_eq(id.pci_revision, 0);
	ck_assert_uint_eq(id.pci_class, 0x020000);
	ck_assert_uint_eq(id.node_type, IBV_NODE_CA);
	ck_assert_uint_eq(id.vendor_id, 0x02c9);
	ck_assert_uint_eq(id.vendor_part_id, 4125);
	ck_assert_uint_eq(id.hw_ver, 0);
	ck_assert_uint_eq(id.fw_major, 22);
	ck_assert_uint_eq(id.fw_minor, 36);
	ck_assert_uint_eq(id.fw_subminor, 1010);
	ck_assert_str_eq(id.fw_ver, "22.36.1010");
	ck_assert_str_eq(id.board_id, "MT_0000000359");
	ck_assert_str_eq(id.hca_type, "MT4125");
	ck_assert_str_eq(id.node_desc, "MT4125 ConnectX6Dx Mellanox Technologies");
	ck_assert_uint_eq(id.node_guid, 0x02c97f0300123456ull);
	ck_assert_uint_eq(id.sys_image_guid, id.node_guid);
	emu_format_guid(id.node_guid, s);
	ck_assert_str_eq(s, "02c9:7f03:0012:3456");
	ck_assert_uint_eq(id.cdev_major, 231);
	ck_assert_uint_eq(id.cdev_minor, 195);
	ck_assert_uint_eq(id.uverbs_abi_ver, 1);
	ck_assert_str_eq(id.ibdev_path, "");
	ck_assert_str_eq(id.dev_path, "");
	ck_assert_int_eq(id.num_ports, 1);
}
END_TEST

START_TEST(port_identity)
{
	static const uint8_t mac_want[6] = { 0x02, 0xc9, 0x7f, 0x12, 0x34, 0x56 };
	static const uint8_t gid_ll[16] = { 0xfe, 0x80, [8] = 0x00, 0xc9, 0x7f,
					    0xff, 0xfe, 0x12, 0x34, 0x56 };
	static const uint8_t gid_v4[16] = { [10] = 0xff, 0xff, 0x7f, 0x12,
					    0x34, 0x56 };
	static const uint8_t zero[16];
	const uint32_t ips[1] = { IP };
	const struct emu_port_identity *p = &id.ports[0];

	ck_assert_int_eq(emu_identity_build(&id, 0, 1, ips), 0);
	ck_assert_uint_eq(p->port_num, 1);
	ck_assert_mem_eq(p->mac, mac_want, 6);
	ck_assert_uint_eq(p->ipv4, IP);
	ck_assert_uint_eq(p->udp_port, 4789);
	ck_assert_int_eq(p->udp_fd, -1);
	ck_assert_uint_eq(p->port_guid, 0x02c97f0300123456ull);

	ck_assert_uint_eq(p->state, IBV_PORT_ACTIVE);
	ck_assert_uint_eq(p->phys_state, 5);
	ck_assert_uint_eq(p->link_layer, IBV_LINK_LAYER_ETHERNET);
	ck_assert_uint_eq(p->netdev_mtu, 1500);
	/* 100GBASE-CR4 (ext PTYS bit 9, MLX5E_CAUI_4_100GBASE_CR4_KR4). */
	ck_assert_uint_eq(p->eth_link_mode, 9);
	ck_assert_uint_eq(p->port_cap_flags, 0x04010000);
	ck_assert_uint_eq(p->lid, 0);
	ck_assert_uint_eq(p->sm_lid, 0);
	ck_assert_uint_eq(p->lmc, 0);

	ck_assert_int_eq(p->gid_tbl_len, 256);
	ck_assert_int_eq(EMU_GID_TABLE_LEN, 256);
	ck_assert(p->gids[0].valid);
	ck_assert_uint_eq(p->gids[0].type, EMU_GID_TYPE_ROCE_V1);
	ck_assert_mem_eq(p->gids[0].gid, gid_ll, 16);
	ck_assert(p->gids[1].valid);
	ck_assert_uint_eq(p->gids[1].type, EMU_GID_TYPE_ROCE_V2);
	ck_assert_mem_eq(p->gids[1].gid, gid_ll, 16);
	ck_assert(p->gids[2].valid);
	ck_assert_uint_eq(p->gids[2].type, EMU_GID_TYPE_ROCE_V1);
	ck_assert_mem_eq(p->gids[2].gid, gid_v4, 16);
	ck_assert(p->gids[3].valid);
	ck_assert_uint_eq(p->gids[3].type, EMU_GID_TYPE_ROCE_V2);
	ck_assert_mem_eq(p->gids[3].gid, gid_v4, 16);
	for (int i = 4; i < EMU_GID_TABLE_LEN; i++) {
		ck_assert(!p->gids[i].valid);
		ck_assert_mem_eq(p->gids[i].gid, zero, 16);
	}
	/* pyverbs skips a GID whose low 64 bits are zero: ours are not. */
	ck_assert(memcmp(p->gids[0].gid + 8, zero, 8));

	ck_assert_int_eq(p->pkey_tbl_len, 1);
	ck_assert_uint_eq(p->pkeys[0], 0xffff);
}
END_TEST

START_TEST(two_ports)
{
	const uint32_t ips[2] = { IP, IP + 1 };
	static const uint8_t mac2[6] = { 0x02, 0xc9, 0x7f, 0x12, 0x34, 0x57 };

	ck_assert_int_eq(emu_identity_build(&id, 15, 2, ips), 0);
	ck_assert_str_eq(id.name, "mlx5_15");
	ck_assert_str_eq(id.pci_addr, "0000:17:00.0");
	ck_assert_int_eq(id.num_ports, 2);
	ck_assert_uint_eq(id.ports[1].port_num, 2);
	ck_assert_uint_eq(id.ports[1].ipv4, IP + 1);
	ck_assert_mem_eq(id.ports[1].mac, mac2, 6);
	ck_assert_uint_eq(id.ports[1].port_guid, 0x02c97f0300123457ull);
	/* The node GUID is port 1's. */
	ck_assert_uint_eq(id.node_guid, id.ports[0].port_guid);
	ck_assert_uint_eq(id.ports[1].gids[3].gid[15], 0x57);
}
END_TEST

START_TEST(build_rejects)
{
	const uint32_t ips[3] = { IP, IP + 1, IP + 2 };

	ck_assert_int_eq(emu_identity_build(&id, -1, 1, ips), -EINVAL);
	ck_assert_int_eq(emu_identity_build(&id, EMU_MAX_DEVICES, 1, ips),
			 -EINVAL);
	ck_assert_int_eq(emu_identity_build(&id, 0, 0, ips), -EINVAL);
	ck_assert_int_eq(emu_identity_build(&id, 0, EMU_MAX_PORTS + 1, ips),
			 -EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dev_identity");
	TCase *tc = tcase_create("identity");

	tcase_add_test(tc, mac_from_ipv4);
	tcase_add_test(tc, guid_from_mac);
	tcase_add_test(tc, real_card_derivations);
	tcase_add_test(tc, eui64_and_gids);
	tcase_add_test(tc, mac_from_gid);
	tcase_add_test(tc, device_identity);
	tcase_add_test(tc, port_identity);
	tcase_add_test(tc, two_ports);
	tcase_add_test(tc, build_rejects);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
