/* SPDX-License-Identifier: MIT */
/*
 * MANA devices (device.mana_devices): their identities beside the mlx5
 * ones, and the sysfs-like tree DPDK's mana PMD walks -- the PCI ids,
 * uevent's PCI_SLOT_NAME, and a net device per port with dev_port and
 * address.  Expected values are the kernel's and mana_ib's, written here.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/device/dev.h"

#include "dev_test_util.h"
#include "ut_run.h"


/* The file dir/rel holds exactly want. */
static void expect_file(const char *want, const char *dir, const char *rel)
{
	char *got = tu_read("%s/%s", dir, rel);

	ck_assert_msg(got, "cannot read %s/%s", dir, rel);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(none_by_default)
{
	ck_assert_int_eq(emu_devices_init(), 0);
	ck_assert_int_eq(emu_devices_count(), 1);
	ck_assert_int_eq(emu_mana_devices_count(), 0);
	ck_assert_ptr_null(emu_mana_device_identity(0));
	ck_assert_int_eq(tu_count_entries(tu_tree_dir, "") > 0, 1);
}
END_TEST

START_TEST(identity_and_tree)
{
	const struct emu_dev_identity *m, *x;
	char mac[24], *uevent, want[64];

	setenv("MLX5EMU_MANA_DEVICES", "2", 1);
	setenv("MLX5EMU_NUM_PORTS", "2", 1);
	ck_assert_int_eq(emu_devices_init(), 0);
	/* the mlx5 devices are what they were */
	ck_assert_int_eq(emu_devices_count(), 1);
	x = emu_device_identity(0);
	ck_assert_str_eq(x->name, "mlx5_0");
	ck_assert_int_eq(emu_mana_devices_count(), 2);
	m = emu_mana_device_identity(1);
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_null(emu_mana_device_identity(2));
	ck_assert_str_eq(m->name, "mana_1");
	ck_assert_str_eq(m->dev_name, "uverbs2");	/* after mlx5_0, mana_0 */
	ck_assert_uint_eq(m->vendor_id, 0x1414);
	ck_assert_uint_eq(m->vendor_part_id, 2);	/* GDMA_DEVICE_MANA */
	ck_assert_int_eq(m->num_ports, 2);
	ck_assert_mem_ne(m->ports[0].mac, x->ports[0].mac, 6);
	ck_assert_str_ne(m->pci_addr, x->pci_addr);

	expect_file("0x1414\n", m->ibdev_path, "device/vendor");
	expect_file("0x00ba\n", m->ibdev_path, "device/device");
	expect_file("mana_1\n", m->dev_path, "ibdev");
	uevent = tu_read("%s/device/uevent", m->ibdev_path);
	ck_assert_ptr_nonnull(uevent);
	snprintf(want, sizeof(want), "PCI_SLOT_NAME=%s\n", m->pci_addr);
	ck_assert_ptr_nonnull(strstr(uevent, want));
	ck_assert_ptr_nonnull(strstr(uevent, "PCI_ID=1414:00BA\n"));
	free(uevent);
	for (int p = 0; p < 2; p++) {
		char rel[64], port[8];

		snprintf(rel, sizeof(rel), "device/net/mana1p%d/dev_port", p);
		snprintf(port, sizeof(port), "%d\n", p);
		expect_file(port, m->ibdev_path, rel);
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
			 m->ports[p].mac[0], m->ports[p].mac[1], m->ports[p].mac[2],
			 m->ports[p].mac[3], m->ports[p].mac[4], m->ports[p].mac[5]);
		strcat(mac, "\n");
		snprintf(rel, sizeof(rel), "device/net/mana1p%d/address", p);
		expect_file(mac, m->ibdev_path, rel);
	}
	/* an mlx5 device has no net directory here */
	ck_assert_ptr_null(tu_read("%s/device/net/mana0p0/dev_port", x->ibdev_path));
}
END_TEST

START_TEST(too_many)
{
	setenv("MLX5EMU_MANA_DEVICES", "5", 1);
	ck_assert_int_eq(emu_devices_init(), -EINVAL);
	ck_assert_int_eq(emu_mana_devices_count(), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dev_mana");
	TCase *tc = tcase_create("mana");

	tcase_add_checked_fixture(tc, tu_tree_setup, tu_tree_teardown);
	tcase_add_test(tc, none_by_default);
	tcase_add_test(tc, identity_and_tree);
	tcase_add_test(tc, too_many);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
