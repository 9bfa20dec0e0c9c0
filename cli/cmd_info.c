/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd_info.c -- mlx5emu info: the emulated devices as a program sees
 * them, asked through the drop-in libraries this command is linked with
 * (verbs, mlx5dv, and DEVX for the capability page and the vport MAC).
 * A MANA device (mlx5dv_is_supported false) has no mlx5dv or DEVX: its
 * verbs, and each port's MAC from its netdev, as a MANA PMD finds it.
 */
#include <dirent.h>
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "cli/cli.h"
#include "emu/trace/trace_fmt.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "prm/prm_fields.h"

#define INFO "info"

/* The general capability page fields `info` shows (cmd_hca_cap names). */
static const char *const key_caps[] = {
	"port_type", "num_ports", "roce", "atomic", "cqe_version",
	"log_max_qp", "log_max_qp_sz", "log_max_cq", "log_max_cq_sz",
	"log_max_eq", "log_max_eq_sz", "log_max_mkey", "log_max_pd",
	"log_max_srq", "log_max_srq_sz", "log_max_xrcd",
	"log_max_transport_domain", "log_max_msg", "log_max_uctx",
	"log_max_umem", "max_wqe_sz_sq", "max_wqe_sz_rq", "cq_resize",
	"cq_moderation", "rc", "uc", "ud", "xrc", "dct", "uar_4k",
	"log_uar_page_sz", "num_of_uars_per_page", "general_obj_types",
	"device_frequency_khz",
};

struct flag_name {
	uint64_t bit;
	const char *name;
};

#define FLAG(prefix, n) { prefix##n, #n }
static const struct flag_name dev_flags[] = {
	FLAG(IBV_DEVICE_, RESIZE_MAX_WR), FLAG(IBV_DEVICE_, BAD_PKEY_CNTR),
	FLAG(IBV_DEVICE_, BAD_QKEY_CNTR), FLAG(IBV_DEVICE_, RAW_MULTI),
	FLAG(IBV_DEVICE_, AUTO_PATH_MIG), FLAG(IBV_DEVICE_, CHANGE_PHY_PORT),
	FLAG(IBV_DEVICE_, UD_AV_PORT_ENFORCE), FLAG(IBV_DEVICE_, CURR_QP_STATE_MOD),
	FLAG(IBV_DEVICE_, SHUTDOWN_PORT), FLAG(IBV_DEVICE_, INIT_TYPE),
	FLAG(IBV_DEVICE_, PORT_ACTIVE_EVENT), FLAG(IBV_DEVICE_, SYS_IMAGE_GUID),
	FLAG(IBV_DEVICE_, RC_RNR_NAK_GEN), FLAG(IBV_DEVICE_, SRQ_RESIZE),
	FLAG(IBV_DEVICE_, N_NOTIFY_CQ), FLAG(IBV_DEVICE_, MEM_WINDOW),
	FLAG(IBV_DEVICE_, UD_IP_CSUM), FLAG(IBV_DEVICE_, XRC),
	FLAG(IBV_DEVICE_, MEM_MGT_EXTENSIONS), FLAG(IBV_DEVICE_, MEM_WINDOW_TYPE_2A),
	FLAG(IBV_DEVICE_, MEM_WINDOW_TYPE_2B), FLAG(IBV_DEVICE_, RC_IP_CSUM),
	FLAG(IBV_DEVICE_, RAW_IP_CSUM), FLAG(IBV_DEVICE_, MANAGED_FLOW_STEERING),
};

static const struct flag_name dv_flags[] = {
	FLAG(MLX5DV_CONTEXT_FLAGS_, CQE_V1), FLAG(MLX5DV_CONTEXT_FLAGS_, OBSOLETE),
	FLAG(MLX5DV_CONTEXT_FLAGS_, MPW_ALLOWED),
	FLAG(MLX5DV_CONTEXT_FLAGS_, ENHANCED_MPW),
	FLAG(MLX5DV_CONTEXT_FLAGS_, CQE_128B_COMP),
	FLAG(MLX5DV_CONTEXT_FLAGS_, CQE_128B_PAD),
	FLAG(MLX5DV_CONTEXT_FLAGS_, PACKET_BASED_CREDIT_MODE),
	FLAG(MLX5DV_CONTEXT_FLAGS_, REAL_TIME_TS),
};
static const struct flag_name raw_flags[] = {
	FLAG(IBV_RAW_PACKET_CAP_, CVLAN_STRIPPING),
	FLAG(IBV_RAW_PACKET_CAP_, SCATTER_FCS),
	FLAG(IBV_RAW_PACKET_CAP_, IP_CSUM),
	FLAG(IBV_RAW_PACKET_CAP_, DELAY_DROP),
};
#undef FLAG

static const char *port_state(enum ibv_port_state s)
{
	switch (s) {
	case IBV_PORT_DOWN: return "DOWN";
	case IBV_PORT_INIT: return "INIT";
	case IBV_PORT_ARMED: return "ARMED";
	case IBV_PORT_ACTIVE: return "ACTIVE";
	case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
	default: return "NOP";
	}
}

static const char *phys_state(uint8_t s)
{
	switch (s) {
	case 1: return "Sleep";
	case 2: return "Polling";
	case 3: return "Disabled";
	case 4: return "PortConfigurationTraining";
	case 5: return "LinkUp";
	case 6: return "LinkErrorRecovery";
	case 7: return "PhyTest";
	default: return "unknown";
	}
}

static int mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128 << m : 0;
}

static const char *gid_type(enum ibv_gid_type t)
{
	switch (t) {
	case IBV_GID_TYPE_IB: return "IB";
	case IBV_GID_TYPE_ROCE_V1: return "RoCE v1";
	case IBV_GID_TYPE_ROCE_V2: return "RoCE v2";
	default: return "unknown";
	}
}

static void guid_str(__be64 be, char *buf, size_t len)
{
	uint64_t g = be64toh(be);

	snprintf(buf, len, "%04x:%04x:%04x:%04x", (unsigned int)(g >> 48),
		 (unsigned int)(g >> 32) & 0xffff, (unsigned int)(g >> 16) & 0xffff,
		 (unsigned int)g & 0xffff);
}

static void read_line(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* A DEVX general command; 0 or an errno. */
static int devx_cmd(struct ibv_context *ctx, void *in, size_t inlen,
		    void *out, size_t outlen)
{
	return mlx5dv_devx_general_cmd(ctx, in, inlen, out, outlen);
}

static void print_hca_caps(struct ibv_context *ctx, bool all)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t *out;
	size_t outlen = PRM_ST_SZ_BYTES(query_hca_cap_out);
	const struct prm_struct_desc *sd = prm_struct_find("cmd_hca_cap");
	const uint8_t *page;
	int ret;

	out = calloc(1, outlen);
	if (!out || !sd)
		goto out;
	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod,
		MLX5_CAP_GENERAL << 1 | HCA_CAP_OPMOD_GET_CUR);
	ret = devx_cmd(ctx, in, sizeof(in), out, outlen);
	if (ret) {
		printf("  hca_cap: QUERY_HCA_CAP through DEVX failed: %s\n",
		       strerror(ret));
		goto out;
	}
	page = PRM_ADDR_OF(query_hca_cap_out, out, capability);
	printf("  hca_cap (QUERY_HCA_CAP, general, current):\n");
	if (all) {
		char *text = emu_trace_format_struct(sd, page,
						     PRM_ST_SZ_BYTES(cmd_hca_cap),
						     MLX5_CMD_OP_QUERY_HCA_CAP,
						     MLX5_CAP_GENERAL << 1 | 1,
						     EMU_TRACE_LINES, true,
						     false, NULL);

		if (text) {
			fputs(text, stdout);
			free(text);
		}
		goto out;
	}
	for (size_t i = 0; i < sizeof(key_caps) / sizeof(key_caps[0]); i++) {
		uint32_t off;
		uint64_t val;
		const struct prm_field_desc *fd = prm_field_find(sd, key_caps[i],
								 &off);

		if (!fd || fd->type || fd->count)
			continue;
		val = prm_field_read(page, off, fd->bit_width);
		if (val < 10)
			printf("    %-28s %" PRIu64 "\n", key_caps[i], val);
		else
			printf("    %-28s %" PRIu64 " (0x%" PRIx64 ")\n", key_caps[i],
			       val, val);
	}
out:
	free(out);
}

/* The port's MAC as the NIC vport context holds it; -1 if DEVX refuses. */
static int vport_mac(struct ibv_context *ctx, uint8_t mac[6])
{
	uint8_t in[PRM_ST_SZ_BYTES(query_nic_vport_context_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(query_nic_vport_context_out)] = { 0 };
	const uint8_t *addr;

	PRM_SET(query_nic_vport_context_in, in, opcode,
		MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	if (devx_cmd(ctx, in, sizeof(in), out, sizeof(out)))
		return -1;
	addr = PRM_ADDR_OF(query_nic_vport_context_out, out,
			   nic_vport_context.permanent_address);
	/* mac_address_layout: 16 reserved bits, then mac_addr_47_32. */
	memcpy(mac, addr + 2, 6);
	return 0;
}

/*
 * A MANA port's MAC: the address of the netdev below the device's PCI
 * function whose dev_port is the port's 0-based index.  0, or -1 if there
 * is none; @name gets the netdev's name.
 */
static int netdev_mac(struct ibv_device *dev, uint8_t port, char *name,
		      size_t name_len, uint8_t mac[6])
{
	char dir[PATH_MAX], sub[PATH_MAX], v[32];
	unsigned int m[6];
	struct dirent *de;
	int ret = -1;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/device/net", dev->ibdev_path);
	d = opendir(dir);
	if (!d)
		return -1;
	while (ret && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(sub))
			continue;
		read_line(sub, "dev_port", v, sizeof(v));
		if (!v[0] || atoi(v) != port - 1)
			continue;
		read_line(sub, "address", v, sizeof(v));
		if (sscanf(v, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3],
			   &m[4], &m[5]) != 6)
			continue;
		for (int i = 0; i < 6; i++)
			mac[i] = (uint8_t)m[i];
		snprintf(name, name_len, "netdev %s", de->d_name);
		ret = 0;
	}
	closedir(d);
	return ret;
}

/* @mac_src names where @mac comes from; NULL: no MAC to show. */
static int print_port(struct ibv_context *ctx, uint8_t port,
		      const char *mac_src, const uint8_t mac[6])
{
	struct ibv_port_attr pa;
	char ip[INET_ADDRSTRLEN] = "";
	int ret, ngids = 0;

	ret = ibv_query_port(ctx, port, &pa);
	if (ret) {
		printf("  port %u: ibv_query_port failed: %s\n", port, strerror(ret));
		return -1;
	}
	printf("  port %u: %s (%s), %s, active_mtu %d, max_mtu %d, gid_tbl_len %d\n",
	       port, port_state(pa.state), phys_state(pa.phys_state),
	       pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" :
	       pa.link_layer == IBV_LINK_LAYER_INFINIBAND ? "InfiniBand" :
	       "unknown link layer",
	       mtu_bytes(pa.active_mtu), mtu_bytes(pa.max_mtu), pa.gid_tbl_len);
	if (mac_src)
		printf("    mac  %02x:%02x:%02x:%02x:%02x:%02x (%s)\n",
		       mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], mac_src);
	for (int i = 0; i < pa.gid_tbl_len; i++) {
		struct ibv_gid_entry e;
		char text[INET6_ADDRSTRLEN];

		if (ibv_query_gid_ex(ctx, port, (uint32_t)i, &e, 0))
			continue;	/* ENODATA: an empty entry */
		if (!inet_ntop(AF_INET6, e.gid.raw, text, sizeof(text)))
			continue;
		if (!ip[0] && !memcmp(e.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12))
			inet_ntop(AF_INET, e.gid.raw + 12, ip, sizeof(ip));
		if (!mac_src && !ngids && e.gid.raw[0] == 0xfe &&
		    e.gid.raw[1] == 0x80 && e.gid.raw[11] == 0xff &&
		    e.gid.raw[12] == 0xfe) {
			/* The MAC in the link-local GID (modified EUI-64). */
			printf("    mac  %02x:%02x:%02x:%02x:%02x:%02x (link-local GID)\n",
			       e.gid.raw[8] ^ 2, e.gid.raw[9], e.gid.raw[10],
			       e.gid.raw[13], e.gid.raw[14], e.gid.raw[15]);
		}
		printf("    gid %-3d %-40s %s\n", i, text, gid_type(e.gid_type));
		ngids++;
	}
	if (ip[0])
		printf("    ipv4 %s\n", ip);
	if (!ngids)
		printf("    (no valid GID)\n");
	return 0;
}

static void print_flags(const char *what, uint64_t flags,
			const struct flag_name *names, size_t n)
{
	printf("         %s 0x%" PRIx64, what, flags);
	for (size_t i = 0; i < n; i++)
		if (flags & names[i].bit)
			printf(" %s", names[i].name);
	printf("\n");
}

static void print_device_caps(struct ibv_context *ctx, bool mlx5)
{
	struct ibv_device_attr_ex a;
	struct mlx5dv_context dv = { .comp_mask = 0 };
	int ret;

	ret = ibv_query_device_ex(ctx, NULL, &a);
	if (ret) {
		printf("  ibv_query_device_ex failed: %s\n", strerror(ret));
		return;
	}
	printf("  verbs: max_qp %d, max_qp_wr %d, max_sge %d, max_cq %d, max_cqe %d\n",
	       a.orig_attr.max_qp, a.orig_attr.max_qp_wr, a.orig_attr.max_sge,
	       a.orig_attr.max_cq, a.orig_attr.max_cqe);
	printf("         max_mr %d, max_mr_size 0x%" PRIx64 ", max_pd %d, max_srq %d, max_srq_wr %d\n",
	       a.orig_attr.max_mr, (uint64_t)a.orig_attr.max_mr_size,
	       a.orig_attr.max_pd, a.orig_attr.max_srq, a.orig_attr.max_srq_wr);
	printf("         atomic_cap %d, max_qp_rd_atom %d, max_qp_init_rd_atom %d\n",
	       a.orig_attr.atomic_cap, a.orig_attr.max_qp_rd_atom,
	       a.orig_attr.max_qp_init_rd_atom);
	print_flags("device_cap_flags", a.orig_attr.device_cap_flags, dev_flags,
		    sizeof(dev_flags) / sizeof(dev_flags[0]));
	if (!mlx5) {
		print_flags("raw_packet_caps", a.raw_packet_caps, raw_flags,
			    sizeof(raw_flags) / sizeof(raw_flags[0]));
		return;
	}
	ret = mlx5dv_query_device(ctx, &dv);
	if (ret) {
		printf("  mlx5dv: mlx5dv_query_device failed: %s\n", strerror(ret));
	} else {
		printf("  mlx5dv: version %u\n", dv.version);
		print_flags("flags", dv.flags, dv_flags,
			    sizeof(dv_flags) / sizeof(dv_flags[0]));
	}
}

static int print_device(struct ibv_device *dev, bool all_caps)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	char node[24], sys[24], pci[PATH_MAX], uv[PATH_MAX], v[32], d[32];
	char devnum[32];
	uint8_t mac[6] = { 0 };
	bool mac_ok, mlx5 = mlx5dv_is_supported(dev);
	int ret = 0;

	printf("%s (%s)\n", ibv_get_device_name(dev), dev->dev_name);
	/* a MANA device: libmana, no mlx5dv */
	ctx = mlx5 ? mlx5dv_open_device(dev, &attr) : ibv_open_device(dev);
	if (!ctx && mlx5) {
		printf("  mlx5dv_open_device(DEVX) failed: %s; without DEVX:\n",
		       strerror(errno));
		ctx = ibv_open_device(dev);
	}
	if (!ctx) {
		printf("  ibv_open_device failed: %s\n", strerror(errno));
		return -1;
	}
	if (ibv_query_device(ctx, &da)) {
		printf("  ibv_query_device failed: %s\n", strerror(errno));
		ibv_close_device(ctx);
		return -1;
	}
	guid_str(da.node_guid, node, sizeof(node));
	guid_str(da.sys_image_guid, sys, sizeof(sys));
	printf("  node_guid %s, sys_image_guid %s\n", node, sys);
	read_line(dev->ibdev_path, "board_id", v, sizeof(v));
	printf("  fw_ver %s, board_id %s, vendor_id 0x%04x, vendor_part_id %u, hw_ver 0x%x\n",
	       da.fw_ver, v[0] ? v : "?", da.vendor_id, da.vendor_part_id,
	       da.hw_ver);
	snprintf(pci, sizeof(pci), "%s/device", dev->ibdev_path);
	read_line(pci, "vendor", v, sizeof(v));
	read_line(pci, "device", d, sizeof(d));
	cli_uverbs_dir(dev, uv, sizeof(uv));
	read_line(uv, "dev", devnum, sizeof(devnum));
	{
		char real[PATH_MAX];
		const char *slot = realpath(pci, real) ? strrchr(real, '/') : NULL;

		printf("  pci %s %s:%s, uverbs node %s\n",
		       slot ? slot + 1 : "?", v[0] ? v : "?", d[0] ? d : "?",
		       devnum[0] ? devnum : "?");
	}
	mac_ok = mlx5 && !vport_mac(ctx, mac) && da.phys_port_cnt == 1;
	for (uint8_t p = 1; p <= da.phys_port_cnt; p++) {
		char src[NAME_MAX + 8];

		if (!mlx5)
			mac_ok = !netdev_mac(dev, p, src, sizeof(src), mac);
		else
			snprintf(src, sizeof(src), "NIC vport context");
		if (print_port(ctx, p, mac_ok ? src : NULL, mac))
			ret = -1;
	}
	print_device_caps(ctx, mlx5);
	if (mlx5)
		print_hca_caps(ctx, all_caps);
	ibv_close_device(ctx);
	return ret;
}

enum { OPT_DEVICES = 256, OPT_MANA, OPT_PORTS, OPT_CONFIG, OPT_ALL_CAPS };

static const struct option info_opts[] = {
	{ "devices", required_argument, NULL, OPT_DEVICES },
	{ "mana", required_argument, NULL, OPT_MANA },
	{ "ports", required_argument, NULL, OPT_PORTS },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "all-caps", no_argument, NULL, OPT_ALL_CAPS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_info(int argc, char **argv)
{
	struct ibv_device **list;
	char dir[PATH_MAX], why[512], conf[PATH_MAX];
	bool all_caps = false;
	int n = 0, c, ret = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", info_opts, NULL)) != -1) {
		switch (c) {
		case OPT_DEVICES:
			if (cli_check_count(INFO, "--devices", optarg, 0, 16))
				return CLI_EXIT_USAGE;
			setenv("MLX5EMU_NUM_DEVICES", optarg, 1);
			break;
		case OPT_MANA:
			if (cli_check_count(INFO, "--mana", optarg, 0, 4))
				return CLI_EXIT_USAGE;
			setenv("MLX5EMU_MANA_DEVICES", optarg, 1);
			break;
		case OPT_PORTS:
			if (cli_check_count(INFO, "--ports", optarg, 1, 2))
				return CLI_EXIT_USAGE;
			setenv("MLX5EMU_NUM_PORTS", optarg, 1);
			break;
		case OPT_CONFIG:
			if (cli_check_config(INFO, optarg, conf, sizeof(conf)))
				return CLI_EXIT_USAGE;
			setenv("MLX5EMU_CONFIG", conf, 1);
			break;
		case OPT_ALL_CAPS:
			all_caps = true;
			break;
		case 'h':
			return cli_print_manual("info");
		default:
			cli_error(INFO, "bad option '%s' (mlx5emu help info)",
				  argv[optind - 1]);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_error(INFO, "unexpected argument '%s'", argv[optind]);
		return CLI_EXIT_USAGE;
	}
	if (cli_dropin_dir(dir, sizeof(dir), why, sizeof(why))) {
		cli_error(INFO, "%s", why);
		return 1;
	}
	printf("drop-in libraries: %s\n", dir);
	list = ibv_get_device_list(&n);
	if (!list) {
		cli_error(INFO, "ibv_get_device_list: %s", strerror(errno));
		return 1;
	}
	printf("%d device%s\n", n, n == 1 ? "" : "s");
	for (int i = 0; i < n; i++) {
		printf("\n");
		if (print_device(list[i], all_caps))
			ret = 1;
	}
	ibv_free_device_list(list);
	return ret;
}
