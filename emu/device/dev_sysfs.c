/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_sysfs.c -- writing and removing the sysfs-like tree.
 *
 * Every value is rendered from struct emu_dev_identity with the format the
 * Linux kernel uses for the same file (drivers/infiniband/core/sysfs.c,
 * drivers/infiniband/hw/mlx5/main.c, drivers/pci/pci-sysfs.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* nftw */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "emu/device/dev_identity.h"
#include "emu/device/dev_link.h"
#include "emu/device/dev_sysfs.h"
#include "prm/prm_cmd.h"

#define PCI_ROOT "devices/pci0000:00"

/* ---- kernel text forms ------------------------------------------------ */

static int width_to_int(uint8_t width)
{
	switch (width) {
	case EMU_IB_WIDTH_1X:  return 1;
	case EMU_IB_WIDTH_2X:  return 2;
	case EMU_IB_WIDTH_4X:  return 4;
	case EMU_IB_WIDTH_8X:  return 8;
	case EMU_IB_WIDTH_12X: return 12;
	default: return -1;
	}
}

void emu_sysfs_rate(uint8_t width, uint16_t speed, char *buf, size_t len)
{
	const char *name;
	int rate;		/* deci-Gb/s per lane, as rate_show() */

	switch (speed) {
	case EMU_IB_SPEED_DDR:   name = " DDR";   rate = 50;   break;
	case EMU_IB_SPEED_QDR:   name = " QDR";   rate = 100;  break;
	case EMU_IB_SPEED_FDR10: name = " FDR10"; rate = 100;  break;
	case EMU_IB_SPEED_FDR:   name = " FDR";   rate = 140;  break;
	case EMU_IB_SPEED_EDR:   name = " EDR";   rate = 250;  break;
	case EMU_IB_SPEED_HDR:   name = " HDR";   rate = 500;  break;
	case EMU_IB_SPEED_NDR:   name = " NDR";   rate = 1000; break;
	default:                 name = " SDR";   rate = 25;   break;
	}
	rate *= width_to_int(width);
	if (rate < 0) {
		snprintf(buf, len, "%s", "");
		return;
	}
	snprintf(buf, len, "%d%s Gb/sec (%dX%s)", rate / 10,
		 rate % 10 ? ".5" : "", width_to_int(width), name);
}

const char *emu_sysfs_state_name(uint8_t state)
{
	static const char *const names[] = {
		"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
	};

	return state < sizeof(names) / sizeof(names[0]) ? names[state] :
							   "UNKNOWN";
}

const char *emu_sysfs_phys_state_name(uint8_t phys_state)
{
	static const char *const names[] = {
		"<unknown>", "Sleep", "Polling", "Disabled",
		"PortConfigurationTraining", "LinkUp", "LinkErrorRecovery",
		"Phy Test",
	};

	return phys_state < sizeof(names) / sizeof(names[0]) ?
		       names[phys_state] : "<unknown>";
}

const char *emu_sysfs_gid_type_name(uint8_t type)
{
	return type == EMU_GID_TYPE_ROCE_V2 ? "RoCE v2" : "IB/RoCE v1";
}

static const char *link_layer_name(uint8_t ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET:
		return "Ethernet";
	default:
		return "Unknown";
	}
}

/* A "0-3,6" list into a bitmap of nbits bits (32-bit words). */
static int parse_cpulist(const char *list, unsigned int nbits, uint32_t *map)
{
	const char *p = list;

	while (*p && *p != '\n') {
		char *end;
		unsigned long a, b;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		a = strtoul(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			b = strtoul(p, &end, 10);
			p = end;
		}
		if (b < a || b >= nbits)
			return -EINVAL;
		for (unsigned long i = a; i <= b; i++)
			map[i / 32] |= 1u << (i % 32);
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return 0;
}

int emu_sysfs_cpumask(const char *list, unsigned int nbits, char *buf,
		      size_t len)
{
	unsigned int words = (nbits + 31) / 32;
	uint32_t *map;
	size_t used = 0;
	int ret;

	if (!nbits || !len)
		return -EINVAL;
	map = calloc(words, sizeof(*map));
	if (!map)
		return -ENOMEM;
	ret = parse_cpulist(list, nbits, map);
	if (!ret) {
		/* bitmap_string(): 32-bit chunks, most significant first; the
		 * first is as wide as its bits need, the others 8 digits. */
		unsigned int first = nbits % 32 ? nbits % 32 : 32;

		buf[0] = '\0';
		for (int w = (int)words - 1; w >= 0; w--) {
			int digits = w == (int)words - 1 ? (int)(first + 3) / 4 : 8;

			used += (size_t)snprintf(buf + used,
						 used < len ? len - used : 0,
						 "%s%0*x", w == (int)words - 1 ? "" : ",",
						 digits, map[w]);
			if (used >= len) {
				ret = -ENOSPC;
				break;
			}
		}
	}
	free(map);
	return ret;
}

int emu_sysfs_cpulist(const char *list, unsigned int nbits, char *buf,
		      size_t len)
{
	uint32_t *map;
	size_t used = 0;
	int ret;

	if (!nbits || !len)
		return -EINVAL;
	map = calloc((nbits + 31) / 32, sizeof(*map));
	if (!map)
		return -ENOMEM;
	ret = parse_cpulist(list, nbits, map);
	buf[0] = '\0';
	for (unsigned int i = 0; !ret && i < nbits; i++) {
		unsigned int j = i;

		if (!(map[i / 32] & 1u << (i % 32)))
			continue;
		while (j + 1 < nbits && map[(j + 1) / 32] & 1u << ((j + 1) % 32))
			j++;
		if (j == i)
			used += (size_t)snprintf(buf + used,
						 used < len ? len - used : 0,
						 "%s%u", used ? "," : "", i);
		else
			used += (size_t)snprintf(buf + used,
						 used < len ? len - used : 0,
						 "%s%u-%u", used ? "," : "", i, j);
		if (used >= len)
			ret = -ENOSPC;
		i = j;
	}
	free(map);
	return ret;
}

/* This machine's CPUs: the online list over nr_cpu_ids (= possible) bits. */
static void host_cpus(char *list, size_t len, unsigned int *nbits)
{
	char possible[256] = "";
	FILE *f;
	long n;

	list[0] = '\0';
	*nbits = 0;
	f = fopen("/sys/devices/system/cpu/possible", "re");
	if (f) {
		if (fgets(possible, sizeof(possible), f)) {
			const char *last = strrchr(possible, '-');
			const char *comma = strrchr(possible, ',');

			if (!last || (comma && comma > last))
				last = comma;
			*nbits = (unsigned int)strtoul(last ? last + 1 : possible,
						       NULL, 10) + 1;
		}
		fclose(f);
	}
	f = fopen("/sys/devices/system/cpu/online", "re");
	if (f) {
		if (!fgets(list, (int)len, f))
			list[0] = '\0';
		fclose(f);
		list[strcspn(list, "\n")] = '\0';
	}
	if (*nbits && list[0])
		return;
	n = sysconf(_SC_NPROCESSORS_CONF);
	if (n < 1)
		n = 1;
	*nbits = (unsigned int)n;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if (n == 1)
		snprintf(list, len, "0");
	else
		snprintf(list, len, "0-%ld", n - 1);
}

/* ---- writing ----------------------------------------------------------- */

/*
 * Files whose content repeats (the zero GID of every empty entry, the empty
 * gid_attrs files) are hard links to the first of their kind: creating a
 * file costs far more than linking one on common filesystems, and a port
 * has ~760 of them.
 */
enum shared_kind { SHARED_ZERO_GID, SHARED_EMPTY, SHARED_COUNT };

struct shared_file {
	int dfd;		/* directory of the first one; -1 before it */
	char name[16];
};

/* Stops at the first failure and remembers it. */
struct wctx {
	int err;
	char failed[160];
	struct shared_file shared[SHARED_COUNT];
};

static void fail(struct wctx *c, int err, const char *what)
{
	if (c->err)
		return;
	c->err = err;
	snprintf(c->failed, sizeof(c->failed), "%s", what);
}

static void put(struct wctx *c, int dfd, const char *name, mode_t mode,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void put(struct wctx *c, int dfd, const char *name, mode_t mode,
		const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int fd, n;

	if (c->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf)) {
		fail(c, EOVERFLOW, name);
		return;
	}
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
			       O_NOFOLLOW, mode);
	if (fd < 0) {
		fail(c, errno, name);
		return;
	}
	if (n && write(fd, buf, (size_t)n) != n)
		fail(c, errno ? errno : EIO, name);
	if (close(fd))
		fail(c, errno, name);
}

/* mkdirat + open; returns the directory's fd or -1 (and records why). */
static int subdir(struct wctx *c, int dfd, const char *name)
{
	int fd;

	if (c->err)
		return -1;
	if (mkdirat(dfd, name, 0755) && errno != EEXIST) {
		fail(c, errno, name);
		return -1;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		fail(c, errno, name);
	return fd;
}

static void link_at(struct wctx *c, int dfd, const char *name,
		    const char *target)
{
	if (c->err)
		return;
	if (symlinkat(target, dfd, name))
		fail(c, errno, name);
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* put(), or a hard link to the first file of the same kind. */
static void put_shared(struct wctx *c, int dfd, const char *name,
		       enum shared_kind kind, const char *content)
{
	struct shared_file *sh = &c->shared[kind];

	if (c->err)
		return;
	if (sh->dfd >= 0) {
		if (!linkat(sh->dfd, sh->name, dfd, name, 0))
			return;
		if (errno != EMLINK && errno != EPERM && errno != EXDEV &&
		    errno != ENOTSUP) {
			fail(c, errno, name);
			return;
		}
		/* No (more) hard links here: a file of its own. */
		put(c, dfd, name, 0444, "%s", content);
		return;
	}
	put(c, dfd, name, 0444, "%s", content);
	if (c->err)
		return;
	sh->dfd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	snprintf(sh->name, sizeof(sh->name), "%s", name);
}

static void wctx_init(struct wctx *c)
{
	memset(c, 0, sizeof(*c));
	for (int k = 0; k < SHARED_COUNT; k++)
		c->shared[k].dfd = -1;
}

static void wctx_done(struct wctx *c)
{
	for (int k = 0; k < SHARED_COUNT; k++)
		close_fd(c->shared[k].dfd);
}

static void put_table(struct wctx *c, int dfd, const char *dir, int n,
		      void (*one)(struct wctx *c, int fd, const char *name,
				  const struct emu_port_identity *p, int i),
		      const struct emu_port_identity *p)
{
	int fd = subdir(c, dfd, dir);

	for (int i = 0; i < n && !c->err; i++) {
		char name[16];

		snprintf(name, sizeof(name), "%d", i);
		one(c, fd, name, p, i);
	}
	close_fd(fd);
}

static void one_gid(struct wctx *c, int fd, const char *name,
		    const struct emu_port_identity *p, int i)
{
	char s[EMU_GID_STR_LEN + 1];

	/* Linux shows an empty entry as the zero GID (show_port_gid()). */
	emu_format_gid(p->gids[i].gid, s);
	strcat(s, "\n");
	if (p->gids[i].valid)
		put(c, fd, name, 0444, "%s", s);
	else
		put_shared(c, fd, name, SHARED_ZERO_GID, s);
}

static void one_pkey(struct wctx *c, int fd, const char *name,
		     const struct emu_port_identity *p, int i)
{
	put(c, fd, name, 0444, "0x%04x\n", p->pkeys[i]);
}

static void one_type(struct wctx *c, int fd, const char *name,
		     const struct emu_port_identity *p, int i)
{
	/* Linux: EINVAL on read for an empty entry; here an empty file. */
	if (p->gids[i].valid)
		put(c, fd, name, 0444, "%s\n",
		    emu_sysfs_gid_type_name(p->gids[i].type));
	else
		put_shared(c, fd, name, SHARED_EMPTY, "");
}

static void one_ndev(struct wctx *c, int fd, const char *name,
		     const struct emu_port_identity *p, int i)
{
	/* No netdev: Linux would fail the read; here an empty file. */
	put_shared(c, fd, name, SHARED_EMPTY, "");
}

static void write_port(struct wctx *c, int ports_fd,
		       const struct emu_port_identity *p)
{
	char name[8], rate[64];
	uint16_t speed;
	uint8_t width;
	int fd, ga;

	snprintf(name, sizeof(name), "%u", p->port_num);
	fd = subdir(c, ports_fd, name);
	put(c, fd, "state", 0444, "%u: %s\n", p->state,
	    emu_sysfs_state_name(p->state));
	put(c, fd, "phys_state", 0444, "%u: %s\n", p->phys_state,
	    emu_sysfs_phys_state_name(p->phys_state));
	put(c, fd, "link_layer", 0444, "%s\n", link_layer_name(p->link_layer));
	/* rate_show() asks ib_query_port: what mlx5_ib makes of the link
	 * mode the port runs at (4X QDR before it knows one). */
	width = EMU_IB_WIDTH_4X;
	speed = EMU_IB_SPEED_QDR;
	emu_link_ib_rate(true, MLX5E_PROT_MASK(p->eth_link_mode), &width, &speed);
	emu_sysfs_rate(width, speed, rate, sizeof(rate));
	put(c, fd, "rate", 0444, "%s\n", rate);
	put(c, fd, "lid", 0444, "0x%x\n", p->lid);
	put(c, fd, "sm_lid", 0444, "0x%x\n", p->sm_lid);
	put(c, fd, "sm_sl", 0444, "%u\n", p->sm_sl);
	put(c, fd, "lid_mask_count", 0444, "%u\n", p->lmc);
	put(c, fd, "cap_mask", 0444, "0x%08x\n", p->port_cap_flags);
	put_table(c, fd, "gids", p->gid_tbl_len, one_gid, p);
	put_table(c, fd, "pkeys", p->pkey_tbl_len, one_pkey, p);
	ga = subdir(c, fd, "gid_attrs");
	put_table(c, ga, "types", p->gid_tbl_len, one_type, p);
	put_table(c, ga, "ndevs", p->gid_tbl_len, one_ndev, p);
	close_fd(ga);
	close_fd(fd);
}

static void write_pci(struct wctx *c, int fd, const struct emu_dev_identity *id)
{
	char list[256], mask[1024], cpulist[1024];
	unsigned int nbits;

	put(c, fd, "vendor", 0444, "0x%04x\n", id->pci_vendor);
	put(c, fd, "device", 0444, "0x%04x\n", id->pci_device);
	put(c, fd, "subsystem_vendor", 0444, "0x%04x\n", id->pci_subsys_vendor);
	put(c, fd, "subsystem_device", 0444, "0x%04x\n", id->pci_subsys_device);
	put(c, fd, "class", 0444, "0x%06x\n", id->pci_class);
	put(c, fd, "revision", 0444, "0x%02x\n", id->pci_revision);
	put(c, fd, "modalias", 0444, "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X\n",
	    id->pci_vendor, id->pci_device, id->pci_subsys_vendor,
	    id->pci_subsys_device, (id->pci_class >> 16) & 0xff,
	    (id->pci_class >> 8) & 0xff, id->pci_class & 0xff);
	/* What the PCI core puts in uevent; DPDK's mana PMD finds the PCI
	 * address of an ibdev_path there (PCI_SLOT_NAME). */
	put(c, fd, "uevent", 0644,
	    "PCI_CLASS=%X\nPCI_ID=%04X:%04X\nPCI_SUBSYS_ID=%04X:%04X\n"
	    "PCI_SLOT_NAME=%s\n", id->pci_class, id->pci_vendor,
	    id->pci_device, id->pci_subsys_vendor, id->pci_subsys_device,
	    id->pci_addr);
	/* No NUMA affinity: Linux then shows -1 and every online CPU. */
	put(c, fd, "numa_node", 0444, "%d\n", -1);
	host_cpus(list, sizeof(list), &nbits);
	if (emu_sysfs_cpumask(list, nbits, mask, sizeof(mask)) ||
	    emu_sysfs_cpulist(list, nbits, cpulist, sizeof(cpulist))) {
		fail(c, EINVAL, "local_cpus");
		return;
	}
	put(c, fd, "local_cpus", 0444, "%s\n", mask);
	put(c, fd, "local_cpulist", 0444, "%s\n", cpulist);
}

/* The ports' net devices: net/<ifname>/ with what a PMD reads to match a
 * port to its MAC (dev_port is the 0-based port). */
static void write_netdevs(struct wctx *c, int fd,
			  const struct emu_dev_identity *id)
{
	char mac[EMU_MAC_STR_LEN];
	int net = -1;

	for (int p = 0; p < id->num_ports; p++) {
		const struct emu_port_identity *port = &id->ports[p];
		int nd;

		if (!port->ifname[0])
			continue;
		if (net < 0)
			net = subdir(c, fd, "net");
		nd = subdir(c, net, port->ifname);
		emu_format_mac(port->mac, mac);
		put(c, nd, "address", 0444, "%s\n", mac);
		put(c, nd, "dev_port", 0444, "%d\n", p);
		put(c, nd, "mtu", 0644, "%u\n", port->netdev_mtu);
		close_fd(nd);
	}
	if (net >= 0)
		close_fd(net);
}

static void write_ibdev(struct wctx *c, int fd,
			const struct emu_dev_identity *id)
{
	char guid[EMU_GUID_STR_LEN], target[64];
	int ports;

	put(c, fd, "node_type", 0444, "%u: %s\n", id->node_type,
	    id->node_type == IBV_NODE_CA ? "CA" : "<unknown>");
	emu_format_guid(id->node_guid, guid);
	put(c, fd, "node_guid", 0444, "%s\n", guid);
	emu_format_guid(id->sys_image_guid, guid);
	put(c, fd, "sys_image_guid", 0444, "%s\n", guid);
	put(c, fd, "fw_ver", 0444, "%s\n", id->fw_ver);
	put(c, fd, "node_desc", 0644, "%.64s\n", id->node_desc);
	put(c, fd, "hca_type", 0444, "%s\n", id->hca_type);
	put(c, fd, "hw_rev", 0444, "%x\n", id->hw_ver);
	put(c, fd, "board_id", 0444, "%s\n", id->board_id);
	snprintf(target, sizeof(target), "../../../%s", id->pci_addr);
	link_at(c, fd, "device", target);
	ports = subdir(c, fd, "ports");
	for (int p = 0; p < id->num_ports; p++)
		write_port(c, ports, &id->ports[p]);
	close_fd(ports);
}

static void write_uverbs(struct wctx *c, int fd,
			 const struct emu_dev_identity *id)
{
	char target[64];

	put(c, fd, "ibdev", 0444, "%s\n", id->name);
	put(c, fd, "abi_version", 0444, "%u\n", id->uverbs_abi_ver);
	put(c, fd, "dev", 0444, "%u:%u\n", id->cdev_major, id->cdev_minor);
	snprintf(target, sizeof(target), "../../../%s", id->pci_addr);
	link_at(c, fd, "device", target);
}

static void set_why(char *why, size_t whylen, const char *root,
		    const struct wctx *c)
{
	snprintf(why, whylen, "cannot write the sysfs tree %s (at %s): %s",
		 root, c->failed, strerror(c->err));
}

int emu_sysfs_add_device(struct emu_sysfs_tree *t,
			 struct emu_dev_identity *id, char *why, size_t whylen)
{
	struct wctx c;
	char target[EMU_SYSFS_PATH_MAX], ibdev_path[EMU_SYSFS_PATH_MAX * 2],
		dev_path[EMU_SYSFS_PATH_MAX * 2];
	int root, pcis, pci, ibs, ib, uvs, uv, cls;

	snprintf(ibdev_path, sizeof(ibdev_path), "%s/class/infiniband/%s",
		 t->root, id->name);
	snprintf(dev_path, sizeof(dev_path), "%s/class/infiniband_verbs/%s",
		 t->root, id->dev_name);
	if (strlen(ibdev_path) >= sizeof(id->ibdev_path) ||
	    strlen(dev_path) >= sizeof(id->dev_path)) {
		snprintf(why, whylen, "sysfs path %s is longer than %d bytes",
			 dev_path, EMU_SYSFS_PATH_MAX - 1);
		return -ENAMETOOLONG;
	}

	wctx_init(&c);
	root = open(t->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		fail(&c, errno, ".");
		set_why(why, whylen, t->root, &c);
		return -c.err;
	}
	pcis = openat(root, PCI_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pcis < 0)
		fail(&c, errno, PCI_ROOT);
	pci = subdir(&c, pcis, id->pci_addr);
	write_pci(&c, pci, id);
	write_netdevs(&c, pci, id);
	ibs = subdir(&c, pci, "infiniband");
	ib = subdir(&c, ibs, id->name);
	write_ibdev(&c, ib, id);
	uvs = subdir(&c, pci, "infiniband_verbs");
	uv = subdir(&c, uvs, id->dev_name);
	write_uverbs(&c, uv, id);

	cls = subdir(&c, root, "class/infiniband");
	snprintf(target, sizeof(target), "../../" PCI_ROOT "/%s/infiniband/%s",
		 id->pci_addr, id->name);
	link_at(&c, cls, id->name, target);
	close_fd(cls);
	cls = subdir(&c, root, "class/infiniband_verbs");
	snprintf(target, sizeof(target),
		 "../../" PCI_ROOT "/%s/infiniband_verbs/%s", id->pci_addr,
		 id->dev_name);
	link_at(&c, cls, id->dev_name, target);
	close_fd(cls);

	close_fd(uv);
	close_fd(uvs);
	close_fd(ib);
	close_fd(ibs);
	close_fd(pci);
	close_fd(pcis);
	close(root);
	wctx_done(&c);
	if (c.err) {
		set_why(why, whylen, t->root, &c);
		return -c.err;
	}
	memcpy(id->ibdev_path, ibdev_path, strlen(ibdev_path) + 1);
	memcpy(id->dev_path, dev_path, strlen(dev_path) + 1);
	return 0;
}

/* ---- the tree's life --------------------------------------------------- */

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	/* Keep going: remove as much as possible. */
	remove(path);
	return 0;
}

static int rm_rf(const char *path)
{
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT))
		return -errno;
	if (!access(path, F_OK))
		return -ENOTEMPTY;
	return 0;
}

static bool usable_dir(const char *dir)
{
	struct stat st;

	return dir && dir[0] == '/' && strlen(dir) <= EMU_SYSFS_DIR_MAX &&
	       !stat(dir, &st) && S_ISDIR(st.st_mode) &&
	       !access(dir, W_OK | X_OK);
}

void emu_sysfs_default_dir(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	snprintf(buf, len, "%s", usable_dir(xdg) ? xdg : "/tmp");
}

int emu_sysfs_create(struct emu_sysfs_tree *t, const char *dir, char *why,
		     size_t whylen)
{
	struct wctx c;
	char tmpl[EMU_SYSFS_PATH_MAX];
	pid_t pid = getpid();
	size_t dlen = strlen(dir);
	int root, fd;

	wctx_init(&c);
	t->root[0] = '\0';
	t->lock_fd = -1;
	t->owner = 0;
	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	if (dlen > EMU_SYSFS_DIR_MAX) {
		snprintf(why, whylen, "sysfs directory %.*s is too long", (int)dlen,
			 dir);
		return -ENAMETOOLONG;
	}
	snprintf(tmpl, sizeof(tmpl), "%.*s/" EMU_SYSFS_PREFIX "%d-XXXXXX",
		 (int)dlen, dir, (int)pid);
	if (!mkdtemp(tmpl)) {
		int err = errno;

		snprintf(why, whylen, "cannot make a directory in %.*s: %s",
			 (int)dlen, dir, strerror(err));
		return -err;
	}
	memcpy(t->root, tmpl, strlen(tmpl) + 1);
	t->owner = pid;

	root = open(t->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		fail(&c, errno, ".");
		goto out;
	}
	/* Held for life: tells emu_sysfs_clean_stale() the tree is in use. */
	fd = openat(root, EMU_SYSFS_OWNER_FILE,
		    O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		fail(&c, errno, EMU_SYSFS_OWNER_FILE);
	} else {
		char pidbuf[24];
		int n = snprintf(pidbuf, sizeof(pidbuf), "%d\n", (int)pid);

		if (write(fd, pidbuf, (size_t)n) != n)
			fail(&c, errno ? errno : EIO, EMU_SYSFS_OWNER_FILE);
	}
	t->lock_fd = fd;
	close_fd(subdir(&c, root, "class"));
	close_fd(subdir(&c, root, "class/infiniband"));
	fd = subdir(&c, root, "class/infiniband_verbs");
	put(&c, fd, "abi_version", 0444, "%d\n", EMU_UVERBS_ABI_VERSION);
	close_fd(fd);
	close_fd(subdir(&c, root, "devices"));
	close_fd(subdir(&c, root, PCI_ROOT));
	close(root);
out:
	if (c.err) {
		set_why(why, whylen, t->root, &c);
		emu_sysfs_remove(t);
		return -c.err;
	}
	return 0;
}

int emu_sysfs_remove(struct emu_sysfs_tree *t)
{
	int ret = 0;

	if (t->root[0] && t->owner == getpid())
		ret = rm_rf(t->root);
	/* Closed after the removal: the lock covers the whole of it. */
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	t->lock_fd = -1;
	t->root[0] = '\0';
	t->owner = 0;
	return ret;
}

int emu_sysfs_clean_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int removed = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char owner[EMU_SYSFS_PATH_MAX + 32], buf[24];
		struct stat st;
		ssize_t n;
		int fd;

		if (strncmp(e->d_name, EMU_SYSFS_PREFIX,
			    sizeof(EMU_SYSFS_PREFIX) - 1))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(st.st_mode) || st.st_uid != getuid())
			continue;
		snprintf(owner, sizeof(owner), "%s/%s", e->d_name,
			 EMU_SYSFS_OWNER_FILE);
		fd = openat(dirfd(d), owner, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		/*
		 * Unlocked and with a pid written: its maker is gone (the pid
		 * is written only after the lock is taken, so an empty file is
		 * a tree being made).
		 */
		if (!flock(fd, LOCK_EX | LOCK_NB)) {
			n = read(fd, buf, sizeof(buf));
			if (n > 0) {
				char path[EMU_SYSFS_PATH_MAX * 2];

				snprintf(path, sizeof(path), "%s/%s", dir,
					 e->d_name);
				if (!rm_rf(path))
					removed++;
			}
		}
		close(fd);
	}
	closedir(d);
	return removed;
}
