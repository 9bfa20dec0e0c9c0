/* SPDX-License-Identifier: MIT */
/*
 * emu/device sysfs-like tree: every file reads back exactly what Linux
 * shows for a ConnectX-6 Dx, rdma-core's own parsers agree with the
 * identity, and the tree goes away with its maker (and only with it).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/device/dev_identity.h"
#include "emu/device/dev_sysfs.h"

#include "dev_test_util.h"

#define IP 0x7f123456u		/* 127.18.52.86 */

static char tmpdir[64];
static struct emu_sysfs_tree tree;
static struct emu_dev_identity id;

static void setup(void)
{
	ut_clear_env();
	tu_mkdtemp(tmpdir, sizeof(tmpdir));
	memset(&tree, 0, sizeof(tree));
	tree.lock_fd = -1;
}

static void teardown(void)
{
	emu_sysfs_remove(&tree);
	tu_rm_rf(tmpdir);
}

/* A tree under tmpdir holding one device of num_ports ports. */
static void make_tree(int index, int num_ports)
{
	const uint32_t ips[2] = { IP, IP + 1 };
	char why[256];

	ck_assert_int_eq(emu_identity_build(&id, index, num_ports, ips), 0);
	ck_assert_msg(!emu_sysfs_create(&tree, tmpdir, why, sizeof(why)), "%s",
		      why);
	ck_assert_msg(!emu_sysfs_add_device(&tree, &id, why, sizeof(why)),
		      "%s", why);
}

#define ck_file(want, ...)                                                   \
	do {                                                                 \
		char *got_ = tu_read(__VA_ARGS__);                           \
		ck_assert_msg(got_, "cannot read a file: %s", strerror(errno)); \
		ck_assert_str_eq(got_, want);                                \
		free(got_);                                                  \
	} while (0)

START_TEST(kernel_text_forms)
{
	char buf[128];

	emu_sysfs_rate(2, 32, buf, sizeof(buf));
	ck_assert_str_eq(buf, "100 Gb/sec (4X EDR)");
	emu_sysfs_rate(1, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2.5 Gb/sec (1X SDR)");
	emu_sysfs_rate(2, 64, buf, sizeof(buf));
	ck_assert_str_eq(buf, "200 Gb/sec (4X HDR)");
	emu_sysfs_rate(16, 128, buf, sizeof(buf));
	ck_assert_str_eq(buf, "200 Gb/sec (2X NDR)");
	emu_sysfs_rate(8, 2, buf, sizeof(buf));
	ck_assert_str_eq(buf, "60 Gb/sec (12X DDR)");
	ck_assert_str_eq(emu_sysfs_state_name(4), "ACTIVE");
	ck_assert_str_eq(emu_sysfs_state_name(1), "DOWN");
	ck_assert_str_eq(emu_sysfs_state_name(9), "UNKNOWN");
	ck_assert_str_eq(emu_sysfs_phys_state_name(5), "LinkUp");
	ck_assert_str_eq(emu_sysfs_phys_state_name(3), "Disabled");
	ck_assert_str_eq(emu_sysfs_gid_type_name(EMU_GID_TYPE_ROCE_V1),
			 "IB/RoCE v1");
	ck_assert_str_eq(emu_sysfs_gid_type_name(EMU_GID_TYPE_ROCE_V2),
			 "RoCE v2");
}
END_TEST

START_TEST(cpu_bitmaps)
{
	char buf[256];

	ck_assert_int_eq(emu_sysfs_cpumask("0-1", 2, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "3");
	ck_assert_int_eq(emu_sysfs_cpumask("0-7", 8, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ff");
	ck_assert_int_eq(emu_sysfs_cpumask("0-3,6", 12, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "04f");
	ck_assert_int_eq(emu_sysfs_cpumask("0-63", 64, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ffffffff,ffffffff");
	ck_assert_int_eq(emu_sysfs_cpumask("0", 36, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0,00000001");
	ck_assert_int_eq(emu_sysfs_cpumask("32-35\n", 36, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "f,00000000");
	ck_assert_int_eq(emu_sysfs_cpulist("0-3,6", 12, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0-3,6");
	ck_assert_int_eq(emu_sysfs_cpulist("0,2,4-5", 8, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0,2,4-5");
	ck_assert_int_eq(emu_sysfs_cpulist("0-1", 2, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0-1");
	ck_assert_int_eq(emu_sysfs_cpumask("0-8", 8, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(emu_sysfs_cpumask("3-1", 8, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(emu_sysfs_cpumask("a", 8, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(emu_sysfs_cpulist("1;2", 8, buf, sizeof(buf)), -EINVAL);
}
END_TEST

START_TEST(layout_and_paths)
{
	char want[PATH_MAX * 2], real[PATH_MAX], pat[PATH_MAX];
	char *link;

	make_tree(0, 1);
	snprintf(pat, sizeof(pat), "%s/" EMU_SYSFS_PREFIX "%d-", tmpdir,
		 (int)getpid());
	ck_assert_int_eq(strncmp(tree.root, pat, strlen(pat)), 0);
	ck_assert_int_eq(tree.owner, getpid());
	snprintf(want, sizeof(want), "%s/class/infiniband/mlx5_0", tree.root);
	ck_assert_str_eq(id.ibdev_path, want);
	snprintf(want, sizeof(want), "%s/class/infiniband_verbs/uverbs0",
		 tree.root);
	ck_assert_str_eq(id.dev_path, want);
	ck_assert_int_lt(strlen(id.ibdev_path), 256);

	/* class/ entries are relative symlinks into devices/, as in Linux. */
	snprintf(want, sizeof(want), "%s/class/infiniband/mlx5_0", tree.root);
	link = realpath(want, NULL);
	ck_assert_ptr_nonnull(link);
	ck_assert_ptr_nonnull(realpath(tree.root, real));
	snprintf(want, sizeof(want),
		 "%s/devices/pci0000:00/0000:08:00.0/infiniband/mlx5_0", real);
	ck_assert_str_eq(link, want);
	free(link);
	snprintf(want, sizeof(want), "%s/class/infiniband_verbs/uverbs0",
		 tree.root);
	link = realpath(want, NULL);
	snprintf(want, sizeof(want),
		 "%s/devices/pci0000:00/0000:08:00.0/infiniband_verbs/uverbs0",
		 real);
	ck_assert_str_eq(link, want);
	free(link);
	/* device/ leads back to the PCI function from both. */
	ck_file("0x15b3\n", "%s/device/vendor", id.ibdev_path);
	ck_file("0x101d\n", "%s/device/device", id.dev_path);
	/* No netdev is faked (rdma-core's tests then skip what needs it). */
	ck_assert(!tu_exists("%s/device/net", id.ibdev_path));
}
END_TEST

START_TEST(pci_function)
{
	const char *pci;
	char dir[PATH_MAX];

	make_tree(0, 1);
	snprintf(dir, sizeof(dir), "%s/devices/pci0000:00/0000:08:00.0",
		 tree.root);
	pci = dir;
	ck_file("0x15b3\n", "%s/vendor", pci);
	ck_file("0x101d\n", "%s/device", pci);
	ck_file("0x15b3\n", "%s/subsystem_vendor", pci);
	ck_file("0x0016\n", "%s/subsystem_device", pci);
	ck_file("0x020000\n", "%s/class", pci);
	ck_file("0x00\n", "%s/revision", pci);
	ck_file("-1\n", "%s/numa_node", pci);
	ck_file("pci:v000015B3d0000101Dsv000015B3sd00000016bc02sc00i00\n",
		"%s/modalias", pci);
}
END_TEST

/*
 * What Linux shows for a PCI device without NUMA affinity, computed here on
 * our own from /sys/devices/system/cpu: local_cpus is the online CPUs as a
 * bitmap over nr_cpu_ids (= the last possible CPU + 1) bits, 32-bit hex
 * groups from the most significant, comma separated, the first group only
 * as wide as its bits need ("%*pb"); local_cpulist the same CPUs as ranges
 * ("%*pbl").
 */
static void host_cpus_expected(char *mask, size_t mlen, char *list, size_t llen)
{
	char *online = tu_read("/sys/devices/system/cpu/online");
	char *possible = tu_read("/sys/devices/system/cpu/possible");
	static bool on[8192];
	unsigned int nbits = 0;
	char *p, *tok, *save;

	ck_assert_msg(online && possible, "no /sys/devices/system/cpu here");
	for (p = possible; *p; p++)	/* the last number is the last CPU */
		if (*p >= '0' && *p <= '9' && (p == possible || p[-1] < '0' || p[-1] > '9'))
			nbits = (unsigned int)strtoul(p, NULL, 10) + 1;
	ck_assert_uint_le(nbits, sizeof(on));
	memset(on, 0, sizeof(on));
	for (tok = strtok_r(online, ",\n", &save); tok; tok = strtok_r(NULL, ",\n", &save)) {
		unsigned int lo = (unsigned int)strtoul(tok, &p, 10), hi = lo;

		if (*p == '-')
			hi = (unsigned int)strtoul(p + 1, NULL, 10);
		for (unsigned int c = lo; c <= hi && c < nbits; c++)
			on[c] = true;
	}
	mask[0] = list[0] = '\0';
	for (int g = (int)((nbits + 31) / 32) - 1; g >= 0; g--) {
		unsigned int bits = nbits - (unsigned int)g * 32 < 32 ? nbits - (unsigned int)g * 32 : 32;
		uint32_t v = 0;

		for (unsigned int b = 0; b < bits; b++)
			v |= (uint32_t)on[g * 32 + b] << b;
		snprintf(mask + strlen(mask), mlen - strlen(mask), "%s%0*x",
			 mask[0] ? "," : "", mask[0] ? 8 : (int)((bits + 3) / 4), v);
	}
	for (unsigned int c = 0; c < nbits; c++) {
		unsigned int e = c;

		if (!on[c])
			continue;
		while (e + 1 < nbits && on[e + 1])
			e++;
		snprintf(list + strlen(list), llen - strlen(list), e > c ? "%s%u-%u" : "%s%u",
			 list[0] ? "," : "", c, e);
		c = e;
	}
	strncat(mask, "\n", mlen - strlen(mask) - 1);
	strncat(list, "\n", llen - strlen(list) - 1);
	free(online);
	free(possible);
}

/* Our local_cpus/local_cpulist equal what Linux shows for a device without
 * NUMA affinity: byte for byte those of this host's own such PCI device
 * where it has one, else the bitmap and list computed above. */
START_TEST(local_cpus_like_host)
{
	char mask[1024], list[1024];
	glob_t g;
	bool host = false;

	make_tree(0, 1);
	host_cpus_expected(mask, sizeof(mask), list, sizeof(list));
	if (!glob("/sys/bus/pci/devices/*/numa_node", 0, NULL, &g)) {
		for (size_t i = 0; i < g.gl_pathc && !host; i++) {
			char *node = tu_read("%s", g.gl_pathv[i]);
			char dir[PATH_MAX];
			char *m, *l;

			if (node && !strcmp(node, "-1\n")) {
				snprintf(dir, sizeof(dir), "%s", g.gl_pathv[i]);
				*strrchr(dir, '/') = '\0';
				m = tu_read("%s/local_cpus", dir);
				l = tu_read("%s/local_cpulist", dir);
				if (m && l) {
					/* The host agrees with the computation... */
					ck_assert_str_eq(m, mask);
					ck_assert_str_eq(l, list);
					host = true;
				}
				free(m);
				free(l);
			}
			free(node);
		}
		globfree(&g);
	}
	/* ...and so do we. */
	ck_file(mask, "%s/devices/pci0000:00/0000:08:00.0/local_cpus", tree.root);
	ck_file(list, "%s/devices/pci0000:00/0000:08:00.0/local_cpulist", tree.root);
}
END_TEST

START_TEST(ib_device)
{
	struct stat st;
	char path[PATH_MAX];

	make_tree(0, 1);
	ck_file("1: CA\n", "%s/node_type", id.ibdev_path);
	ck_file("02c9:7f03:0012:3456\n", "%s/node_guid", id.ibdev_path);
	ck_file("02c9:7f03:0012:3456\n", "%s/sys_image_guid", id.ibdev_path);
	ck_file("22.36.1010\n", "%s/fw_ver", id.ibdev_path);
	ck_file("MT4125 ConnectX6Dx Mellanox Technologies\n", "%s/node_desc",
		id.ibdev_path);
	ck_file("MT4125\n", "%s/hca_type", id.ibdev_path);
	ck_file("0\n", "%s/hw_rev", id.ibdev_path);
	ck_file("MT_0000000359\n", "%s/board_id", id.ibdev_path);
	/* Modes as Linux: node_desc is writable, the rest read-only. */
	snprintf(path, sizeof(path), "%s/node_desc", id.ibdev_path);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0644);
	snprintf(path, sizeof(path), "%s/fw_ver", id.ibdev_path);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0444);
}
END_TEST

START_TEST(port)
{
	const char *zero = "0000:0000:0000:0000:0000:0000:0000:0000\n";
	char p[PATH_MAX];

	make_tree(0, 1);
	snprintf(p, sizeof(p), "%s/ports/1", id.ibdev_path);
	ck_file("4: ACTIVE\n", "%s/state", p);
	ck_file("5: LinkUp\n", "%s/phys_state", p);
	ck_file("Ethernet\n", "%s/link_layer", p);
	ck_file("100 Gb/sec (4X EDR)\n", "%s/rate", p);
	ck_file("0x0\n", "%s/lid", p);
	ck_file("0x0\n", "%s/sm_lid", p);
	ck_file("0\n", "%s/sm_sl", p);
	ck_file("0\n", "%s/lid_mask_count", p);
	ck_file("0x04010000\n", "%s/cap_mask", p);

	ck_file("fe80:0000:0000:0000:00c9:7fff:fe12:3456\n", "%s/gids/0", p);
	ck_file("fe80:0000:0000:0000:00c9:7fff:fe12:3456\n", "%s/gids/1", p);
	ck_file("0000:0000:0000:0000:0000:ffff:7f12:3456\n", "%s/gids/2", p);
	ck_file("0000:0000:0000:0000:0000:ffff:7f12:3456\n", "%s/gids/3", p);
	ck_file("IB/RoCE v1\n", "%s/gid_attrs/types/0", p);
	ck_file("RoCE v2\n", "%s/gid_attrs/types/1", p);
	ck_file("IB/RoCE v1\n", "%s/gid_attrs/types/2", p);
	ck_file("RoCE v2\n", "%s/gid_attrs/types/3", p);
	/* Every entry of the table exists; empty ones read as Linux shows
	 * them (zero GID) or, where Linux fails the read, as empty files. */
	for (int i = 4; i < EMU_GID_TABLE_LEN; i++) {
		ck_file(zero, "%s/gids/%d", p, i);
		ck_file("", "%s/gid_attrs/types/%d", p, i);
	}
	for (int i = 0; i < EMU_GID_TABLE_LEN; i++)
		ck_file("", "%s/gid_attrs/ndevs/%d", p, i);
	ck_assert_int_eq(tu_count_entries(p, "gids") , 1);
	snprintf(p + strlen(p), sizeof(p) - strlen(p), "/gids");
	ck_assert_int_eq(tu_count_entries(p, ""), EMU_GID_TABLE_LEN + 2);
	*strrchr(p, '/') = '\0';
	ck_assert(!tu_exists("%s/gids/%d", p, EMU_GID_TABLE_LEN));
	ck_assert(!tu_exists("%s/gid_attrs/types/%d", p, EMU_GID_TABLE_LEN));
	ck_file("0xffff\n", "%s/pkeys/0", p);
	ck_assert(!tu_exists("%s/pkeys/1", p));
	ck_assert(!tu_exists("%s/ports/2", id.ibdev_path));
}
END_TEST

START_TEST(two_ports)
{
	char p[PATH_MAX];

	make_tree(1, 2);
	ck_assert_str_eq(strrchr(id.ibdev_path, '/'), "/mlx5_1");
	snprintf(p, sizeof(p), "%s/ports/2", id.ibdev_path);
	ck_file("4: ACTIVE\n", "%s/state", p);
	ck_file("fe80:0000:0000:0000:00c9:7fff:fe12:3457\n", "%s/gids/0", p);
	ck_file("0000:0000:0000:0000:0000:ffff:7f12:3457\n", "%s/gids/3", p);
	/* The node GUID stays port 1's. */
	ck_file("02c9:7f03:0012:3456\n", "%s/node_guid", id.ibdev_path);
	ck_file("0x15b3\n", "%s/devices/pci0000:00/0000:09:00.0/vendor",
		tree.root);
}
END_TEST

START_TEST(uverbs)
{
	make_tree(0, 1);
	ck_file("6\n", "%s/class/infiniband_verbs/abi_version", tree.root);
	ck_file("mlx5_0\n", "%s/ibdev", id.dev_path);
	ck_file("1\n", "%s/abi_version", id.dev_path);
	ck_file("231:192\n", "%s/dev", id.dev_path);
}
END_TEST

/* rdma-core 44's readers (libibverbs/sysfs.c ibv_read_sysfs_file). */
static int rdma_read(const char *dir, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX];
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	len = fread(buf, 1, size, f);
	fclose(f);
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	else if (len < size)
		buf[len] = '\0';
	return (int)len;
}

START_TEST(rdma_core_parsers_agree)
{
	char attr[64], file[64];
	uint16_t parts[4], val;
	uint64_t guid = 0;
	unsigned int major, minor;

	make_tree(0, 1);
	/* ibv_get_device_guid() */
	ck_assert_int_gt(rdma_read(id.ibdev_path, "node_guid", attr, 24), 0);
	ck_assert_int_eq(sscanf(attr, "%hx:%hx:%hx:%hx", parts, parts + 1,
				parts + 2, parts + 3), 4);
	for (int i = 0; i < 4; i++)
		guid = guid << 16 | parts[i];
	ck_assert_uint_eq(guid, id.node_guid);
	/* query_sysfs_gid(): every entry, byte for byte. */
	for (int g = 0; g < EMU_GID_TABLE_LEN; g++) {
		uint8_t raw[16];

		snprintf(file, sizeof(file), "ports/1/gids/%d", g);
		ck_assert_int_ge(rdma_read(id.ibdev_path, file, attr, 41), 0);
		for (int i = 0; i < 8; ++i) {
			ck_assert_int_eq(sscanf(attr + i * 5, "%hx", &val), 1);
			raw[i * 2] = (uint8_t)(val >> 8);
			raw[i * 2 + 1] = val & 0xff;
		}
		ck_assert_mem_eq(raw, id.ports[0].gids[g].gid, 16);
	}
	/* query_sysfs_gid_type() */
	for (int g = 0; g < 4; g++) {
		snprintf(file, sizeof(file), "ports/1/gid_attrs/types/%d", g);
		ck_assert_int_gt(rdma_read(id.ibdev_path, file, attr, 11), 0);
		ck_assert_str_eq(attr, id.ports[0].gids[g].type ==
						EMU_GID_TYPE_ROCE_V2 ?
					       "RoCE v2" : "IB/RoCE v1");
	}
	/* ibv_query_pkey() */
	ck_assert_int_gt(rdma_read(id.ibdev_path, "ports/1/pkeys/0", attr, 8), 0);
	ck_assert_int_eq(sscanf(attr, "%hx", &val), 1);
	ck_assert_uint_eq(val, id.ports[0].pkeys[0]);
	/* setup_sysfs_dev(): node_type, uverbs dev and abi_version */
	ck_assert_int_gt(rdma_read(id.ibdev_path, "node_type", attr, 32), 0);
	ck_assert_uint_eq(strtoul(attr, NULL, 10), id.node_type);
	ck_assert_int_gt(rdma_read(id.dev_path, "dev", attr, 32), 0);
	ck_assert_int_eq(sscanf(attr, "%u:%u", &major, &minor), 2);
	ck_assert_uint_eq(major, id.cdev_major);
	ck_assert_uint_eq(minor, id.cdev_minor);
	ck_assert_int_gt(rdma_read(id.dev_path, "ibdev", attr, 64), 0);
	ck_assert_str_eq(attr, id.name);
	/* ibv_devinfo's board_id */
	ck_assert_int_gt(rdma_read(id.ibdev_path, "board_id", attr, 64), 0);
	ck_assert_str_eq(attr, id.board_id);
}
END_TEST

START_TEST(remove_tree)
{
	char root[EMU_SYSFS_PATH_MAX];

	make_tree(0, 1);
	snprintf(root, sizeof(root), "%s", tree.root);
	ck_assert(tu_exists("%s", root));
	ck_assert_int_eq(emu_sysfs_remove(&tree), 0);
	ck_assert(!tu_exists("%s", root));
	ck_assert_str_eq(tree.root, "");
	ck_assert_int_eq(tree.lock_fd, -1);
	ck_assert_int_eq(emu_sysfs_remove(&tree), 0);	/* idempotent */
	ck_assert_int_eq(tu_count_entries(tmpdir, ""), 2);	/* . and .. */
}
END_TEST

START_TEST(child_does_not_remove)
{
	char root[EMU_SYSFS_PATH_MAX];
	pid_t pid;
	int st;

	make_tree(0, 1);
	snprintf(root, sizeof(root), "%s", tree.root);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		/* Not the maker: forgets the tree, leaves it in place. */
		emu_sysfs_remove(&tree);
		_exit(tree.root[0] ? 1 : 0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert(tu_exists("%s/class/infiniband/mlx5_0", root));
}
END_TEST

START_TEST(stale_trees_cleaned)
{
	char root[EMU_SYSFS_PATH_MAX] = "", half[PATH_MAX];
	int fds[2], st;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		/* Dies without cleaning up, as if killed. */
		char why[256];

		close(fds[0]);
		if (emu_sysfs_create(&tree, tmpdir, why, sizeof(why)))
			_exit(1);
		if (write(fds[1], tree.root, sizeof(tree.root)) < 0)
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], root, sizeof(root)), sizeof(root));
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert(tu_exists("%s", root));

	/* A tree being made right now (owner file not yet written) stays. */
	snprintf(half, sizeof(half), "%s/" EMU_SYSFS_PREFIX "1-abcdef", tmpdir);
	ck_assert_int_eq(mkdir(half, 0700), 0);
	ck_assert_int_eq(tu_count_entries(tmpdir, EMU_SYSFS_PREFIX), 2);
	{
		char owner[PATH_MAX * 2];
		FILE *f;

		snprintf(owner, sizeof(owner), "%s/" EMU_SYSFS_OWNER_FILE, half);
		f = fopen(owner, "w");
		ck_assert_ptr_nonnull(f);
		fclose(f);
	}

	/* Ours (alive, locked) stays too. */
	make_tree(0, 1);
	ck_assert_int_eq(emu_sysfs_clean_stale(tmpdir), 1);
	ck_assert(!tu_exists("%s", root));
	ck_assert(tu_exists("%s", half));
	ck_assert(tu_exists("%s/node_guid", id.ibdev_path));
	ck_assert_int_eq(emu_sysfs_clean_stale(tmpdir), 0);
}
END_TEST

START_TEST(dir_too_long)
{
	char why[256], dir[EMU_SYSFS_DIR_MAX + 8];

	memset(dir, 'x', sizeof(dir) - 1);
	dir[0] = '/';
	dir[sizeof(dir) - 1] = '\0';
	ck_assert_int_eq(emu_sysfs_create(&tree, dir, why, sizeof(why)),
			 -ENAMETOOLONG);
	ck_assert_str_eq(tree.root, "");
}
END_TEST

START_TEST(default_dir)
{
	char buf[EMU_CONFIG_PATH_MAX];

	setenv("XDG_RUNTIME_DIR", tmpdir, 1);
	emu_sysfs_default_dir(buf, sizeof(buf));
	ck_assert_str_eq(buf, tmpdir);
	setenv("XDG_RUNTIME_DIR", "/nonexistent-mlx5emu", 1);
	emu_sysfs_default_dir(buf, sizeof(buf));
	ck_assert_str_eq(buf, "/tmp");
	setenv("XDG_RUNTIME_DIR", "relative", 1);
	emu_sysfs_default_dir(buf, sizeof(buf));
	ck_assert_str_eq(buf, "/tmp");
	unsetenv("XDG_RUNTIME_DIR");
	emu_sysfs_default_dir(buf, sizeof(buf));
	ck_assert_str_eq(buf, "/tmp");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dev_sysfs");
	TCase *tc = tcase_create("sysfs");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, kernel_text_forms);
	tcase_add_test(tc, cpu_bitmaps);
	tcase_add_test(tc, layout_and_paths);
	tcase_add_test(tc, pci_function);
	tcase_add_test(tc, local_cpus_like_host);
	tcase_add_test(tc, ib_device);
	tcase_add_test(tc, port);
	tcase_add_test(tc, two_ports);
	tcase_add_test(tc, uverbs);
	tcase_add_test(tc, rdma_core_parsers_agree);
	tcase_add_test(tc, remove_tree);
	tcase_add_test(tc, child_does_not_remove);
	tcase_add_test(tc, stale_trees_cleaned);
	tcase_add_test(tc, dir_too_long);
	tcase_add_test(tc, default_dir);
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
