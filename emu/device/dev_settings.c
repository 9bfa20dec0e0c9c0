/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_settings.c -- the settings table: each setting's name,
 * variable, default and help, its validator, and how its value is shown.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu/device/dev_addr.h"
#include "emu/device/dev_config.h"
#include "emu/device/dev_identity.h"
#include "emu/device/dev_config_int.h"
#include "emu/device/dev_sysfs.h"
#include "emu/fault/fault_rule.h"
#include "emu/firmware/fw_caps.h"

/* A string setting stored in a buffer of size bytes (with its NUL). */
static bool too_long(const char *value, size_t size, char *why, size_t whylen)
{
	if (strlen(value) < size)
		return false;
	snprintf(why, whylen, "too long (at most %zu characters)", size - 1);
	return true;
}

static int validate_uint(const struct emu_setting *s, const char *value,
			 struct emu_config *cfg, char *why, size_t whylen)
{
	unsigned long v = 0;
	const char *p;

	if (!*value) {
		snprintf(why, whylen, "empty; expected an integer from %lu to %lu",
			 s->min, s->max);
		return -EINVAL;
	}
	for (p = value; *p; p++) {
		if (*p < '0' || *p > '9') {
			snprintf(why, whylen,
				 "not a decimal number; expected an integer from %lu to %lu",
				 s->min, s->max);
			return -EINVAL;
		}
	}
	for (p = value; *p && v <= s->max; p++)	/* stops before overflow */
		v = v * 10 + (unsigned long)(*p - '0');
	if (v < s->min || v > s->max) {
		snprintf(why, whylen,
			 "out of range; expected an integer from %lu to %lu",
			 s->min, s->max);
		return -EINVAL;
	}
	switch (s->id) {
	case EMU_SET_NUM_DEVICES:
		cfg->num_devices = (unsigned int)v;
		break;
	case EMU_SET_NUM_PORTS:
		cfg->num_ports = (unsigned int)v;
		break;
	case EMU_SET_MANA_DEVICES:
		cfg->num_mana_devices = (unsigned int)v;
		break;
	case EMU_SET_MTU:
		cfg->mtu = (unsigned int)v;
		break;
	case EMU_SET_WIRE_VNI:
		cfg->wire_vni = (uint32_t)v;
		break;
	case EMU_SET_WIRE_UDP_PORT:
		cfg->wire_udp_port = (unsigned int)v;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

static int validate_ipv4(const struct emu_setting *s, const char *value,
			 struct emu_config *cfg, char *why, size_t whylen)
{
	struct in_addr a;
	const char *reason;
	uint32_t ip;

	if (!*value) {		/* empty: back to "unset" (the default) */
		cfg->ip_base_set = false;
		cfg->ip_base = 0;
		return 0;
	}
	if (inet_pton(AF_INET, value, &a) != 1) {
		snprintf(why, whylen,
			 "not an IPv4 address; expected a dotted quad such as 127.18.52.86");
		return -EINVAL;
	}
	ip = ntohl(a.s_addr);
	reason = emu_addr_unusable(ip);
	if (reason) {
		snprintf(why, whylen, "%s", reason);
		return -EINVAL;
	}
	cfg->ip_base_set = true;
	cfg->ip_base = ip;
	return 0;
}

/*
 * An existing file of type @type (S_IFDIR or S_IFREG) with @access
 * (access()'s mode, described as @how: "writable", "readable"); false with
 * the reason in why.
 */
static bool path_usable(const char *value, mode_t type, int mode,
			const char *how, char *why, size_t whylen)
{
	struct stat st;

	if (stat(value, &st)) {
		snprintf(why, whylen, "%s", strerror(errno));
		return false;
	}
	if ((st.st_mode & S_IFMT) != type) {
		snprintf(why, whylen, "%s", type == S_IFDIR ? "not a directory" :
			 "not a regular file");
		return false;
	}
	if (access(value, mode)) {
		snprintf(why, whylen, "not %s: %s", how, strerror(errno));
		return false;
	}
	return true;
}

static int validate_dir(const struct emu_setting *s, const char *value,
			struct emu_config *cfg, char *why, size_t whylen)
{
	bool capture = s->id == EMU_SET_WIRE_CAPTURE;
	bool *set = capture ? &cfg->wire_capture_set : &cfg->sysfs_dir_set;
	char *dir = capture ? cfg->wire_capture : cfg->sysfs_dir;
	size_t len = strlen(value);

	if (!*value) {
		*set = false;
		dir[0] = '\0';
		return 0;
	}
	if (value[0] != '/') {
		snprintf(why, whylen, "not an absolute path");
		return -EINVAL;
	}
	while (len > 1 && value[len - 1] == '/')
		len--;
	if (len > EMU_SYSFS_DIR_MAX) {
		snprintf(why, whylen,
			 "too long (%zu characters); at most %d so that ibdev_path fits rdma-core's %d bytes",
			 len, EMU_SYSFS_DIR_MAX, EMU_SYSFS_PATH_MAX);
		return -EINVAL;
	}
	if (!path_usable(value, S_IFDIR, W_OK | X_OK, "writable", why, whylen))
		return -EINVAL;
	memcpy(dir, value, len);
	dir[len] = '\0';
	*set = true;
	return 0;
}

/* config.file: a readable regular file. */
static int validate_file(const struct emu_setting *s, const char *value,
			 struct emu_config *cfg, char *why, size_t whylen)
{
	if (!*value) {
		cfg->config_file[0] = '\0';
		return 0;
	}
	if (too_long(value, sizeof(cfg->config_file), why, whylen))
		return -EINVAL;
	if (!path_usable(value, S_IFREG, R_OK, "readable", why, whylen))
		return -EINVAL;
	snprintf(cfg->config_file, sizeof(cfg->config_file), "%s", value);
	return 0;
}

/* fault.rules: every rule must parse (emu/fault's syntax). */
static int validate_rules(const struct emu_setting *s, const char *value,
			  struct emu_config *cfg, char *why, size_t whylen)
{
	int ret;

	if (too_long(value, sizeof(cfg->fault_rules), why, whylen))
		return -EINVAL;
	ret = emu_fault_parse_list(value, NULL, NULL, NULL, why, whylen);
	if (ret)
		return ret == -ENOMEM ? -ENOMEM : -EINVAL;
	snprintf(cfg->fault_rules, sizeof(cfg->fault_rules), "%s", value);
	return 0;
}

static int validate_u64(const struct emu_setting *s, const char *value,
			struct emu_config *cfg, char *why, size_t whylen)
{
	uint64_t v;

	if (emu_text_parse_u64(value, UINT64_MAX, &v)) {
		snprintf(why, whylen, "expected an integer from 0 to "
			 "18446744073709551615 (decimal or 0x hex)");
		return -EINVAL;
	}
	if (s->id == EMU_SET_ENGINE_SEED)
		cfg->engine_seed = v;
	else
		cfg->fault_seed = v;
	return 0;
}

/* The index of @value in @names (case-insensitive), or -1. */
static int choice_index(const char *value, const char *const *names,
			size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (emu_text_eq_nocase(value, names[i]))
			return (int)i;
	return -1;
}

/* engine.mode: threaded, inline or deterministic. */
static int validate_engine_mode(const struct emu_setting *s, const char *value,
				struct emu_config *cfg, char *why, size_t whylen)
{
	static const char *const names[] = {
		[EMU_ENGINE_THREADED] = "threaded",
		[EMU_ENGINE_INLINE] = "inline",
		[EMU_ENGINE_DETERMINISTIC] = "deterministic",
	};
	int i = choice_index(value, names, sizeof(names) / sizeof(names[0]));

	if (i < 0) {
		snprintf(why, whylen, "expected threaded, inline or deterministic");
		return -EINVAL;
	}
	cfg->engine_mode = (enum emu_engine_mode)i;
	return 0;
}

/*
 * trace.mode: off, text or json (also 0 and 1), optionally ":FILE"; the
 * trace (emu/trace) reads it back as given.  Empty means off.
 */
static int validate_trace_mode(const struct emu_setting *s, const char *value,
			       struct emu_config *cfg, char *why, size_t whylen)
{
	const char *colon = strchr(value, ':');
	size_t n = colon ? (size_t)(colon - value) : strlen(value);
	char mode[8] = "";
	bool off;

	if (too_long(value, sizeof(cfg->trace_mode), why, whylen))
		return -EINVAL;
	if (n < sizeof(mode))
		memcpy(mode, value, n);
	mode[n < sizeof(mode) ? n : 0] = '\0';
	if (!*value) {
		cfg->trace_mode[0] = '\0';
		return 0;
	}
	off = emu_text_eq_nocase(mode, "off") || !strcmp(mode, "0");
	if (!off && !emu_text_eq_nocase(mode, "text") &&
	    !emu_text_eq_nocase(mode, "json") && strcmp(mode, "1")) {
		snprintf(why, whylen,
			 "expected off, text or json, optionally with :FILE");
		return -EINVAL;
	}
	if (colon && off) {
		snprintf(why, whylen, "\"off\" takes no file");
		return -EINVAL;
	}
	if (colon && !colon[1]) {
		snprintf(why, whylen, "empty file name after ':'");
		return -EINVAL;
	}
	snprintf(cfg->trace_mode, sizeof(cfg->trace_mode), "%s", value);
	return 0;
}

/* trace.file, wire.stats: a file name ("" or "-": stderr for the trace;
 * "" off and "-" stderr for the statistics), opened by their reader. */
static int validate_trace_file(const struct emu_setting *s, const char *value,
			       struct emu_config *cfg, char *why, size_t whylen)
{
	char *dst = s->id == EMU_SET_WIRE_STATS ? cfg->wire_stats :
						  cfg->trace_file;

	if (too_long(value, sizeof(cfg->trace_file), why, whylen))
		return -EINVAL;
	snprintf(dst, sizeof(cfg->trace_file), "%s", value);
	return 0;
}

static int validate_bool(const struct emu_setting *s, const char *value,
			 struct emu_config *cfg, char *why, size_t whylen)
{
	static const char *const yes[] = { "1", "yes", "on", "true" };
	static const char *const no[] = { "0", "no", "off", "false" };

	bool *dst = s->id == EMU_SET_WIRE_STRICT_L2 ? &cfg->wire_strict_l2 :
		    s->id == EMU_SET_WIRE_CAPTURE_OUTER ?
		    &cfg->wire_capture_outer :
		    s->id == EMU_SET_TRACE_DATAPATH ? &cfg->trace_datapath :
		    s->id == EMU_SET_ALLOW_NET_RAW ? &cfg->allow_net_raw :
		    s->id == EMU_SET_WIRE_FAST_PATH ? &cfg->wire_fast_path :
		    s->id == EMU_SET_MANA_RX_COALESCING ? &cfg->mana_rx_coalescing :
		    &cfg->trace_elide_defaults;

	for (size_t i = 0; i < 4; i++) {
		if (emu_text_eq_nocase(value, yes[i])) {
			*dst = true;
			return 0;
		}
		if (emu_text_eq_nocase(value, no[i])) {
			*dst = false;
			return 0;
		}
	}
	snprintf(why, whylen, "expected 1, 0, yes, no, on, off, true or false");
	return -EINVAL;
}

/* backend.kind: which devices the process drives (backend/backend.c). */
static int validate_backend_kind(const struct emu_setting *s,
				 const char *value, struct emu_config *cfg,
				 char *why, size_t whylen)
{
	static const char *const kinds[] = { "emu", "hw", "auto" };
	int i = choice_index(value, kinds, sizeof(kinds) / sizeof(kinds[0]));

	if (i < 0) {
		snprintf(why, whylen, "expected emu, hw or auto");
		return -EINVAL;
	}
	snprintf(cfg->backend_kind, sizeof(cfg->backend_kind), "%s", kinds[i]);
	return 0;
}

/* backend.hw_libdir: an existing directory, named absolutely. */
static int validate_libdir(const struct emu_setting *s, const char *value,
			   struct emu_config *cfg, char *why, size_t whylen)
{
	if (!*value) {
		cfg->backend_hw_libdir[0] = '\0';
		return 0;
	}
	if (too_long(value, sizeof(cfg->backend_hw_libdir), why, whylen))
		return -EINVAL;
	if (value[0] != '/') {
		snprintf(why, whylen, "not an absolute path");
		return -EINVAL;
	}
	if (!path_usable(value, S_IFDIR, R_OK | X_OK, "readable", why, whylen))
		return -EINVAL;
	snprintf(cfg->backend_hw_libdir, sizeof(cfg->backend_hw_libdir), "%s",
		 value);
	return 0;
}

/* The caps setting is applied by emu_config_set() itself (it records
 * where each override came from); see caps_apply_list(). */
static int validate_caps(const struct emu_setting *s, const char *value,
			 struct emu_config *cfg, char *why, size_t whylen)
{
	return -EINVAL;
}

static const struct emu_setting settings[EMU_SET_COUNT] = {
	[EMU_SET_NUM_DEVICES] = {
		.id = EMU_SET_NUM_DEVICES,
		.name = "device.num_devices",
		.env = "MLX5EMU_NUM_DEVICES",
		.type = EMU_TYPE_UINT,
		.def = "1",
		.def_doc = "1",
		.min = 0,
		.max = EMU_MAX_DEVICES,
		.validate = validate_uint,
		.help = "Number of emulated devices (mlx5_0, mlx5_1, ...); "
			"0 gives an empty device list.",
	},
	[EMU_SET_NUM_PORTS] = {
		.id = EMU_SET_NUM_PORTS,
		.name = "device.num_ports",
		.env = "MLX5EMU_NUM_PORTS",
		.type = EMU_TYPE_UINT,
		.def = "1",
		.def_doc = "1",
		.min = 1,
		.max = EMU_MAX_PORTS,
		.validate = validate_uint,
		.help = "Ports per device (phys_port_cnt).  A real ConnectX-6 Dx "
			"shows each port as its own PCI function with one port; "
			"2 is an emulator extension.",
	},
	[EMU_SET_MANA_DEVICES] = {
		.id = EMU_SET_MANA_DEVICES,
		.name = "device.mana_devices",
		.env = "MLX5EMU_MANA_DEVICES",
		.type = EMU_TYPE_UINT,
		.def = "0",
		.def_doc = "0",
		.min = 0,
		.max = EMU_MAX_MANA_DEVICES,
		.validate = validate_uint,
		.help = "Number of emulated MANA (Azure Network Adapter) devices "
			"(mana_0, ...) behind libmana, after the mlx5 ones, with "
			"device.num_ports ports each.",
	},
	[EMU_SET_MANA_RX_COALESCING] = {
		.id = EMU_SET_MANA_RX_COALESCING,
		.name = "device.mana_rx_coalescing",
		.env = "MLX5EMU_MANA_RX_COALESCING",
		.type = EMU_TYPE_BOOL,
		.def = "1",
		.def_doc = "1",
		.validate = validate_bool,
		.help = "Whether the emulated mana_ib turns on CQE coalescing "
			"when it configures an RSS QP's vPort, as recent "
			"kernels do (up to four packets per RX_COALESCED_4 "
			"CQE); 0: one CQE per packet, as earlier kernels.",
	},
	[EMU_SET_MTU] = {
		.id = EMU_SET_MTU,
		.name = "device.mtu",
		.env = "MLX5EMU_MTU",
		.type = EMU_TYPE_UINT,
		.def = "1500",
		.def_doc = "1500",
		.min = 1280,
		.max = EMU_NETDEV_MTU_MAX,
		.validate = validate_uint,
		.help = "Every port's netdev MTU, as `ip link set mtu` sets it "
			"on a ConnectX: RoCE's active_mtu is the largest IB MTU "
			"a packet of which fits (1500: 1024; 4200: 4096).  At "
			"most the largest frame the wire carries.",
	},
	[EMU_SET_IP_BASE] = {
		.id = EMU_SET_IP_BASE,
		.name = "device.ip_base",
		.env = "MLX5EMU_IP_BASE",
		.type = EMU_TYPE_IPV4,
		.def = NULL,
		.def_doc = "127.a.b.c derived from the pid",
		.validate = validate_ipv4,
		.help = "First IPv4 address tried for the ports; each port binds "
			"its tunnel endpoint (wire.udp_port) on the next free "
			"address.  Never 127.0.0.1, never a last octet of 0 or "
			"255.  Empty means the default.",
	},
	[EMU_SET_SYSFS_DIR] = {
		.id = EMU_SET_SYSFS_DIR,
		.name = "device.sysfs_dir",
		.env = "MLX5EMU_SYSFS_DIR",
		.type = EMU_TYPE_DIR,
		.def = NULL,
		.def_doc = "$XDG_RUNTIME_DIR, else /tmp",
		.validate = validate_dir,
		.help = "Existing writable directory in which each process makes "
			"its private sysfs-like tree (mlx5emu-<pid>-XXXXXX), removed "
			"at exit.  Empty means the default.",
	},
	[EMU_SET_CONFIG_FILE] = {
		.id = EMU_SET_CONFIG_FILE,
		.name = "config.file",
		.env = "MLX5EMU_CONFIG",
		.type = EMU_TYPE_FILE,
		.def = NULL,
		.def_doc = "none (no file is read)",
		.validate = validate_file,
		.help = "The configuration file (INI syntax), read before the "
			"environment is applied.  Only the environment can name "
			"it.  Empty means no file.",
	},
	[EMU_SET_CAPS] = {
		.id = EMU_SET_CAPS,
		.name = "caps",
		.env = "MLX5EMU_CAPS",
		.type = EMU_TYPE_CAPS,
		.def = NULL,
		.def_doc = "none",
		.validate = validate_caps,
		.help = "Capability overrides, FIELD=VALUE separated by commas "
			"or spaces: a cmd_hca_cap field, or PAGE.FIELD for another "
			"page (roce_cap.FIELD); in the file, keys of [caps] and "
			"[caps.PAGE].  They may only lower limits and clear "
			"features; the whole set is checked for consistency.",
	},
	[EMU_SET_ENGINE_MODE] = {
		.id = EMU_SET_ENGINE_MODE,
		.name = "engine.mode",
		.env = "MLX5EMU_ENGINE_MODE",
		.type = EMU_TYPE_CHOICE,
		.def = "threaded",
		.def_doc = "threaded",
		.validate = validate_engine_mode,
		.help = "How the device model runs: threaded (a thread of its "
			"own that sleeps when idle), inline (no thread: only the "
			"application's post, poll and get-event calls and "
			"mlx5emu_progress() move it) or deterministic (inline, "
			"on a virtual clock: a run with the same seed replays "
			"exactly).",
	},
	[EMU_SET_ENGINE_SEED] = {
		.id = EMU_SET_ENGINE_SEED,
		.name = "engine.seed",
		.env = "MLX5EMU_SEED",
		.type = EMU_TYPE_U64,
		.def = "0",
		.def_doc = "0",
		.validate = validate_u64,
		.help = "The seed of everything random in the device model: "
			"prob= fault rules unless fault.seed is set, and in "
			"deterministic mode the ports' addresses.",
	},
	[EMU_SET_FAULT_RULES] = {
		.id = EMU_SET_FAULT_RULES,
		.name = "fault.rules",
		.env = "MLX5EMU_FAULTS",
		.type = EMU_TYPE_RULES,
		.def = NULL,
		.def_doc = "none",
		.validate = validate_rules,
		.help = "Command fault rules separated by ';' "
			"(docs/fault-injection.md); in the file also one rule per "
			"\"rule =\" line of [fault].  The environment replaces the "
			"file's rules.",
	},
	[EMU_SET_FAULT_SEED] = {
		.id = EMU_SET_FAULT_SEED,
		.name = "fault.seed",
		.env = "MLX5EMU_FAULT_SEED",
		.type = EMU_TYPE_U64,
		.def = NULL,
		.def_doc = "engine.seed",
		.validate = validate_u64,
		.help = "Seed of the prob= rules that give no seed= of their own; "
			"the same seed gives the same firing sequence.  Unset, "
			"engine.seed.",
	},
	[EMU_SET_TRACE_MODE] = {
		.id = EMU_SET_TRACE_MODE,
		.name = "trace.mode",
		.env = "MLX5EMU_TRACE",
		.type = EMU_TYPE_TRACE_MODE,
		.def = NULL,
		.def_doc = "off",
		.validate = validate_trace_mode,
		.help = "The command trace: off, text or json, optionally "
			"followed by :FILE (which wins over trace.file).",
	},
	[EMU_SET_TRACE_FILE] = {
		.id = EMU_SET_TRACE_FILE,
		.name = "trace.file",
		.env = "MLX5EMU_TRACE_FILE",
		.type = EMU_TYPE_FILE,
		.def = NULL,
		.def_doc = "stderr",
		.validate = validate_trace_file,
		.help = "Where the trace goes; empty or - is stderr.",
	},
	[EMU_SET_TRACE_ELIDE] = {
		.id = EMU_SET_TRACE_ELIDE,
		.name = "trace.elide_defaults",
		.env = "MLX5EMU_TRACE_ELIDE",
		.type = EMU_TYPE_BOOL,
		.def = "1",
		.def_doc = "1",
		.validate = validate_bool,
		.help = "In the text trace, leave out fields at their default "
			"(zero).",
	},
	[EMU_SET_TRACE_DATAPATH] = {
		.id = EMU_SET_TRACE_DATAPATH,
		.name = "trace.datapath",
		.env = "MLX5EMU_TRACE_DATAPATH",
		.type = EMU_TYPE_BOOL,
		.def = "0",
		.def_doc = "0",
		.validate = validate_bool,
		.help = "With the trace on, also a line for each WQE the "
			"devices execute and each CQE they write.",
	},
	[EMU_SET_BACKEND_KIND] = {
		.id = EMU_SET_BACKEND_KIND,
		.name = "backend.kind",
		.env = "MLX5EMU_BACKEND",
		.type = EMU_TYPE_CHOICE,
		.def = "emu",
		.def_doc = "emu",
		.validate = validate_backend_kind,
		.help = "The devices the process drives: emu (emulated), hw (real "
			"ConnectX devices through the system's rdma-core) or auto "
			"(the real ones when there are, else emulated) "
			"(docs/hardware.md).",
	},
	[EMU_SET_BACKEND_HW_LIBDIR] = {
		.id = EMU_SET_BACKEND_HW_LIBDIR,
		.name = "backend.hw_libdir",
		.env = "MLX5EMU_HW_LIBDIR",
		.type = EMU_TYPE_DIR,
		.def = NULL,
		.def_doc = "none (the system's rdma-core)",
		.validate = validate_libdir,
		.help = "A test hook: the directory whose libibverbs.so.1 and "
			"libmlx5.so.1 the hw backend loads instead of the "
			"system's (tests/hwdouble).  Empty means the system's.",
	},
	[EMU_SET_WIRE_VNI] = {
		.id = EMU_SET_WIRE_VNI,
		.name = "wire.vni",
		.env = "MLX5EMU_WIRE_VNI",
		.type = EMU_TYPE_UINT,
		.def = "4791",
		.def_doc = "4791",
		.min = 0,
		.max = 0xffffff,
		.validate = validate_uint,
		.help = "VXLAN network identifier of the fabric: ports carry and "
			"accept frames of this VNI only.",
	},
	[EMU_SET_WIRE_UDP_PORT] = {
		.id = EMU_SET_WIRE_UDP_PORT,
		.name = "wire.udp_port",
		.env = "MLX5EMU_WIRE_UDP_PORT",
		.type = EMU_TYPE_UINT,
		.def = "4789",
		.def_doc = "4789 (IANA's VXLAN port)",
		.min = 1,
		.max = 65535,
		.validate = validate_uint,
		.help = "UDP port every tunnel endpoint listens on and sends to.  "
			"Pick another when a kernel vxlan device, Docker's overlay "
			"or Open vSwitch holds 4789 on the wildcard address.",
	},
	[EMU_SET_WIRE_ENDPOINT] = {
		.id = EMU_SET_WIRE_ENDPOINT,
		.name = "wire.endpoint",
		.env = "MLX5EMU_WIRE_ENDPOINT",
		.type = EMU_TYPE_ENDPOINT,
		.def = NULL,
		.def_doc = "each port's own IPv4 address",
		.validate = emu_settings_validate_endpoint,
		.help = "Outer address IPv4[:PORT] of the first port's tunnel "
			"endpoint (a real interface, for other hosts); later ports "
			"take the next UDP ports.  Unset, every port's endpoint is "
			"its own loopback address and wire.udp_port.",
	},
	[EMU_SET_WIRE_PEERS] = {
		.id = EMU_SET_WIRE_PEERS,
		.name = "wire.peers",
		.env = "MLX5EMU_WIRE_PEERS",
		.type = EMU_TYPE_PEERS,
		.def = NULL,
		.def_doc = "none",
		.validate = emu_settings_validate_peers,
		.help = "Static tunnel peers, IPv4[:PORT][@MAC] separated by "
			"commas or spaces: frames for MAC go to that endpoint; a "
			"peer without a MAC takes broadcasts and frames for MACs "
			"no other way finds.",
	},
	[EMU_SET_WIRE_STRICT_L2] = {
		.id = EMU_SET_WIRE_STRICT_L2,
		.name = "wire.strict_l2",
		.env = "MLX5EMU_WIRE_STRICT_L2",
		.type = EMU_TYPE_BOOL,
		.def = "0",
		.def_doc = "0",
		.validate = validate_bool,
		.help = "Drop received frames whose destination MAC is not the "
			"port's (broadcast and multicast excepted).",
	},
	[EMU_SET_WIRE_CAPTURE] = {
		.id = EMU_SET_WIRE_CAPTURE,
		.name = "wire.capture",
		.env = "MLX5EMU_WIRE_CAPTURE",
		.type = EMU_TYPE_DIR,
		.def = NULL,
		.def_doc = "off",
		.validate = validate_dir,
		.help = "Directory for a pcap per port of every frame it sends "
			"and receives: mlx5emu-<pid>-mlx5_<N>-p<port>.pcap.",
	},
	[EMU_SET_WIRE_CAPTURE_OUTER] = {
		.id = EMU_SET_WIRE_CAPTURE_OUTER,
		.name = "wire.capture_outer",
		.env = "MLX5EMU_WIRE_CAPTURE_OUTER",
		.type = EMU_TYPE_BOOL,
		.def = "0",
		.def_doc = "0",
		.validate = validate_bool,
		.help = "Capture the VXLAN datagrams (outer Ethernet, IP, UDP, "
			"VXLAN, then the frame) instead of the frames.",
	},
	[EMU_SET_WIRE_STATS] = {
		.id = EMU_SET_WIRE_STATS,
		.name = "wire.stats",
		.env = "MLX5EMU_WIRE_STATS",
		.type = EMU_TYPE_FILE,
		.def = NULL,
		.def_doc = "off",
		.validate = validate_trace_file,
		.help = "Where the wire's counters go as JSON lines, \"-\" for "
			"stderr: each QP's when it is destroyed, each port's at "
			"exit.",
	},
	[EMU_SET_WIRE_FAST_PATH] = {
		.id = EMU_SET_WIRE_FAST_PATH,
		.name = "wire.fast_path",
		.env = "MLX5EMU_WIRE_FAST_PATH",
		.type = EMU_TYPE_BOOL,
		.def = "1",
		.def_doc = "1",
		.validate = validate_bool,
		.help = "Exchange frames with the processes of this host (this "
			"network namespace) through shared memory instead of "
			"the kernel's UDP path; 0: UDP only.",
	},
	[EMU_SET_ALLOW_NET_RAW] = {
		.id = EMU_SET_ALLOW_NET_RAW,
		.name = "device.allow_net_raw",
		.env = "MLX5EMU_ALLOW_NET_RAW",
		.type = EMU_TYPE_BOOL,
		.def = "0",
		.def_doc = "0",
		.validate = validate_bool,
		.help = "Let a process without CAP_NET_RAW create raw packet "
			"QPs and flows, which the kernel refuses it (EPERM).",
	},
};

const struct emu_setting *emu_config_settings(size_t *n)
{
	if (n)
		*n = EMU_SET_COUNT;
	return settings;
}

const struct emu_setting *emu_config_find(const char *name)
{
	for (size_t i = 0; i < EMU_SET_COUNT; i++)
		if (!strcmp(settings[i].name, name) ||
		    !strcmp(settings[i].env, name))
			return &settings[i];
	return NULL;
}

const char *emu_config_source_name(enum emu_config_source src)
{
	switch (src) {
	case EMU_SRC_DEFAULT:
		return "default";
	case EMU_SRC_FILE:
		return "config file";
	case EMU_SRC_ENV:
		return "environment";
	}
	return "?";
}

void emu_config_defaults(struct emu_config *cfg)
{
	char why[256];

	memset(cfg, 0, sizeof(*cfg));
	for (size_t i = 0; i < EMU_SET_COUNT; i++) {
		cfg->source[i] = EMU_SRC_DEFAULT;
		if (settings[i].def)
			settings[i].validate(&settings[i], settings[i].def, cfg,
					     why, sizeof(why));
	}
}

void emu_config_format(const struct emu_config *cfg, enum emu_setting_id id,
		       char *buf, size_t len)
{
	struct in_addr a;

	if (!len)
		return;
	buf[0] = '\0';
	switch (id) {
	case EMU_SET_NUM_DEVICES:
		snprintf(buf, len, "%u", cfg->num_devices);
		break;
	case EMU_SET_NUM_PORTS:
		snprintf(buf, len, "%u", cfg->num_ports);
		break;
	case EMU_SET_MANA_DEVICES:
		snprintf(buf, len, "%u", cfg->num_mana_devices);
		break;
	case EMU_SET_MANA_RX_COALESCING:
		snprintf(buf, len, "%d", cfg->mana_rx_coalescing ? 1 : 0);
		break;
	case EMU_SET_MTU:
		snprintf(buf, len, "%u", cfg->mtu);
		break;
	case EMU_SET_IP_BASE:
		if (cfg->ip_base_set) {
			a.s_addr = htonl(cfg->ip_base);
			inet_ntop(AF_INET, &a, buf, (socklen_t)len);
		}
		break;
	case EMU_SET_SYSFS_DIR:
		snprintf(buf, len, "%s", cfg->sysfs_dir);
		break;
	case EMU_SET_CONFIG_FILE:
		snprintf(buf, len, "%s", cfg->config_file);
		break;
	case EMU_SET_CAPS: {
		size_t n = 0;

		for (unsigned int i = 0; i < cfg->num_caps && n < len; i++) {
			const char *st = emu_fw_cap_type_struct(cfg->caps[i].type);

			n += (size_t)snprintf(buf + n, len - n, "%s%s%s%s=%" PRIu64,
				i ? "," : "",
				cfg->caps[i].type ? st : "",
				cfg->caps[i].type ? "." : "",
				cfg->caps[i].field, cfg->caps[i].value);
		}
		break;
	}
	case EMU_SET_ENGINE_MODE:
		snprintf(buf, len, "%s", cfg->engine_mode == EMU_ENGINE_INLINE ?
			 "inline" : cfg->engine_mode == EMU_ENGINE_DETERMINISTIC ?
			 "deterministic" : "threaded");
		break;
	case EMU_SET_ENGINE_SEED:
		snprintf(buf, len, "%" PRIu64, cfg->engine_seed);
		break;
	case EMU_SET_FAULT_RULES:
		snprintf(buf, len, "%s", cfg->fault_rules);
		break;
	case EMU_SET_FAULT_SEED:
		snprintf(buf, len, "%" PRIu64, cfg->fault_seed);
		break;
	case EMU_SET_TRACE_MODE:
		snprintf(buf, len, "%s", cfg->trace_mode);
		break;
	case EMU_SET_TRACE_FILE:
		snprintf(buf, len, "%s", cfg->trace_file);
		break;
	case EMU_SET_TRACE_ELIDE:
		snprintf(buf, len, "%d", cfg->trace_elide_defaults ? 1 : 0);
		break;
	case EMU_SET_TRACE_DATAPATH:
		snprintf(buf, len, "%d", cfg->trace_datapath ? 1 : 0);
		break;
	case EMU_SET_BACKEND_KIND:
		snprintf(buf, len, "%s", cfg->backend_kind);
		break;
	case EMU_SET_BACKEND_HW_LIBDIR:
		snprintf(buf, len, "%s", cfg->backend_hw_libdir);
		break;
	case EMU_SET_WIRE_VNI:
		snprintf(buf, len, "%u", cfg->wire_vni);
		break;
	case EMU_SET_WIRE_UDP_PORT:
		snprintf(buf, len, "%u", cfg->wire_udp_port);
		break;
	case EMU_SET_WIRE_ENDPOINT:
	case EMU_SET_WIRE_PEERS:
		emu_settings_format_wire(cfg, id, buf, len);
		break;
	case EMU_SET_WIRE_STRICT_L2:
		snprintf(buf, len, "%d", cfg->wire_strict_l2 ? 1 : 0);
		break;
	case EMU_SET_WIRE_CAPTURE:
		snprintf(buf, len, "%s", cfg->wire_capture);
		break;
	case EMU_SET_WIRE_CAPTURE_OUTER:
		snprintf(buf, len, "%d", cfg->wire_capture_outer ? 1 : 0);
		break;
	case EMU_SET_WIRE_STATS:
		snprintf(buf, len, "%s", cfg->wire_stats);
		break;
	case EMU_SET_WIRE_FAST_PATH:
		snprintf(buf, len, "%d", cfg->wire_fast_path ? 1 : 0);
		break;
	case EMU_SET_ALLOW_NET_RAW:
		snprintf(buf, len, "%d", cfg->allow_net_raw ? 1 : 0);
		break;
	default:
		break;
	}
}
