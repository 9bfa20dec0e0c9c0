/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw.h -- the emulated ConnectX-6 Dx firmware: its public API
 * for the layers above it (the emulated kernel, the engines, configuration).
 *
 * One struct emu_fw is one PCI function (mlx5_N) with its ports.  Everything
 * the firmware says to a command it says through the outbox (PRM status and
 * syndrome); functions here return 0 or a negative errno only for misuse or
 * for services below the command interface.
 *
 * Threads: every function may be called from any thread, concurrently,
 * except emu_fw_destroy (no other call may be in flight or follow) and
 * emu_fw_set_hooks (see there).  Object lookups by the engines are
 * lock-free (liburcu, bulletproof flavour, no thread registration).
 */
#ifndef MLX5EMU_FW_H
#define MLX5EMU_FW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct emu_fw;
struct emu_fw_caps;

#define EMU_FW_MAX_PORTS 2
#define EMU_FW_BOARD_ID_LEN 16	/* QUERY_ADAPTER vsd_contd_psid */

/* Identity of a ConnectX-6 Dx, as the defaults fill it. */
#define EMU_FW_IEEE_VENDOR_ID 0x0002c9	/* Mellanox OUI: verbs vendor_id */
#define EMU_FW_PCI_VENDOR_ID 0x15b3
#define EMU_FW_PCI_DEVICE_ID 0x101d	/* ConnectX-6 Dx: part id 4125 */

/* The port's hardware MTU limit (PMTU max_mtu): a 9978-byte netdev MTU
 * plus the Ethernet header, a VLAN tag and the FCS, as a ConnectX-6 Dx. */
#define EMU_FW_PORT_MAX_MTU 10000
#define EMU_FW_PORT_MIN_MTU 64	/* the smallest Ethernet frame */

struct emu_fw_port_config {
	uint8_t mac[6];		/* permanent address of the port */
	/* The port's MTU at power-on (PMTU admin_mtu and oper_mtu): whole
	 * frames, Ethernet header, one VLAN tag and FCS included; the driver
	 * sets its own with ACCESS_REG.  EMU_FW_PORT_MIN_MTU..MAX_MTU. */
	uint16_t mtu;
	bool link_up;		/* initial physical/logical state */
	/* The link mode the port runs at: a bit of PTYS ext_eth_proto_*
	 * (MLX5E_* of the extended set, prm_cmd.h), one the port supports. */
	uint8_t eth_link_mode;
};

struct emu_fw_config {
	unsigned int num_ports;	/* 1 (one port per PCI function) or 2 */
	struct emu_fw_port_config port[EMU_FW_MAX_PORTS];
	uint64_t node_guid;		/* host byte order */
	uint64_t system_image_guid;	/* host byte order */
	uint16_t fw_rev_major, fw_rev_minor, fw_rev_subminor;
	char board_id[EMU_FW_BOARD_ID_LEN + 1];	/* PSID, NUL terminated */
	uint32_t ieee_vendor_id;	/* 24 bits */
	uint16_t pci_vendor_id, pci_device_id;
	uint16_t vhca_id;		/* cmd_hca_cap.vhca_id */
	/* Capability pages; NULL: the ConnectX-6 Dx defaults
	 * (emu_fw_caps_new()).  Copied by emu_fw_create. */
	const struct emu_fw_caps *caps;
};

/*
 * The defaults: one port, link up at 100GBASE-CR4 (MLX5E_CAUI_4_100GBASE_
 * CR4_KR4), MTU 1522 (a 1500-byte netdev), MAC 02:c9:7f:00:00:01,
 * GUIDs from the MAC as mlx5 forms them (mac[0..2]:03:00:mac[3..5]; the
 * device layer, emu/device, gives the real identity), firmware 22.36.1010,
 * PSID MT_0000000359, the ConnectX-6 Dx PCI and vendor ids.
 */
void emu_fw_config_default(struct emu_fw_config *cfg);

/*
 * Create the firmware of one device from cfg (copied).  Returns NULL with
 * errno set: EINVAL (bad config or inconsistent capabilities), ENOMEM.
 */
struct emu_fw *emu_fw_create(const struct emu_fw_config *cfg);
/* Destroy every remaining object (dependents first) and the device. */
void emu_fw_destroy(struct emu_fw *fw);

/* The identity the device was created with (never NULL; read-only). */
const struct emu_fw_config *emu_fw_config_get(const struct emu_fw *fw);
/* The capability pages in effect (read-only; see fw_caps.h). */
const struct emu_fw_caps *emu_fw_get_caps(const struct emu_fw *fw);

/*
 * The device's clocks (fw_clock.c).  The internal timer: the free-running
 * counter at cmd_hca_cap.device_frequency_khz.  emu_fw_iseg_read32: a read
 * of the initialization segment's word at @offset (MLX5_ISEG_*, the clock
 * registers; other words read 0), big-endian as on the bus.
 * emu_fw_clock_stamp: a CQE's timestamp now, for a queue of ts_format
 * @ts_format (MLX5_TIMESTAMP_FORMAT_*): the counter, or real time as
 * seconds << 32 | nanoseconds.  No system call (vDSO clock reads).
 */
uint64_t emu_fw_clock_internal(const struct emu_fw *fw);
/* The internal timer when emu_clock_ns() read @ns. */
uint64_t emu_fw_clock_cycles(const struct emu_fw *fw, uint64_t ns);
uint32_t emu_fw_iseg_read32(const struct emu_fw *fw, uint32_t offset);
uint64_t emu_fw_clock_stamp(const struct emu_fw *fw, unsigned int ts_format);

/*
 * Execute one PRM command, as the device does with a command-queue entry.
 *
 * in/inlen: the input mailbox (big-endian PRM layout; opcode at bits
 * 0x00..0x0f, uid at 0x10..0x1f, op_mod at 0x30..0x3f).  out/outlen: the
 * output mailbox; it is cleared, then status (bits 0x00..0x07) and syndrome
 * (bits 0x20..0x3f) and the command's output are written.  The uid in the
 * header identifies the caller: 0 is the kernel, any other value must be a
 * live user context (CREATE_UCTX).
 *
 * Returns 0 when the firmware answered (the outbox status says how the
 * command went, which may be a failure; an inbox shorter than 8 bytes is
 * answered BAD_INP_LEN), or -EINVAL when there is nothing to answer into:
 * a NULL fw or buffer, outlen < 8, or in and out overlapping.
 */
int emu_fw_cmd_exec(struct emu_fw *fw, const void *in, size_t inlen,
		    void *out, size_t outlen);

/* Status and syndrome of an outbox (outlen >= 8). */
uint8_t emu_fw_out_status(const void *out);
uint32_t emu_fw_out_syndrome(const void *out);

/* ---- command classes (for the kernel layer's DEVX rules and traces) ---- */

enum emu_fw_cmd_class {
	EMU_FW_CMD_NONE = 0,	/* not implemented by this device */
	EMU_FW_CMD_GENERAL,	/* no object: queries, ALLOC_*-style helpers */
	EMU_FW_CMD_CREATE,	/* creates an object, returns its id */
	EMU_FW_CMD_MODIFY,
	EMU_FW_CMD_QUERY,
	EMU_FW_CMD_DESTROY,
};

struct emu_fw_cmd_info {
	enum emu_fw_cmd_class cls;
	int obj_type;		/* enum emu_fw_obj_type, or -1 */
	uint16_t destroy_opcode;	/* for CREATE: the matching destroy */
	uint32_t min_inlen, min_outlen;
};

/* Describe an implemented opcode; -ENOENT if the device does not have it. */
int emu_fw_cmd_info(uint16_t opcode, struct emu_fw_cmd_info *info);

/* ---- hooks: fault injection and tracing ---- */

struct emu_fw_hooks {
	/*
	 * Called before a command runs, after its header was checked.
	 * Return true to fail the command with *status and *syndrome instead
	 * (status must not be 0); nothing else happens to the device.
	 */
	bool (*pre_cmd)(void *arg, const void *in, size_t inlen,
			uint16_t opcode, uint16_t op_mod, uint16_t uid,
			uint8_t *status, uint32_t *syndrome);
	/* Called after every answered command with the final outbox. */
	void (*post_cmd)(void *arg, const void *in, size_t inlen,
			 const void *out, size_t outlen);
	void *arg;
};

/*
 * Install hooks (NULL removes them).  The struct is not copied: it must stay
 * valid and unchanged until it is replaced and no command that could have
 * seen it is still running.
 */
void emu_fw_set_hooks(struct emu_fw *fw, const struct emu_fw_hooks *hooks);

/*
 * The command trace (emu/trace) has a slot of its own, so fault injection
 * (the hooks above) and tracing are installed independently.  cmd is called
 * after every answered command (emu_fw_cmd_exec returned 0) with the final
 * outbox, the time the command took in the firmware (pre_cmd included, so
 * an injected delay shows) and whether pre_cmd failed it.  Same lifetime
 * rule as emu_fw_set_hooks; NULL removes it.
 */
struct emu_fw_tracer {
	void (*cmd)(void *arg, const void *in, size_t inlen, const void *out,
		    size_t outlen, uint64_t duration_ns, bool injected);
	void *arg;
};

void emu_fw_set_tracer(struct emu_fw *fw, const struct emu_fw_tracer *tracer);

/* ---- ports (the kernel layer's port services and the wire) ---- */

/*
 * Logical/physical link state of port (1-based). -EINVAL on a bad port.
 * A change is the device's PORT_CHANGE event (the engine raises it); the
 * caller must hold no engine lock.
 */
int emu_fw_port_set_link(struct emu_fw *fw, unsigned int port, bool up);
int emu_fw_port_get_link(const struct emu_fw *fw, unsigned int port,
			 bool *up);

/* One entry of a port's RoCE address (GID) table, decoded. */
struct emu_fw_gid_entry {
	bool valid;		/* false: the entry is empty (all zero) */
	uint8_t gid[16];	/* source_l3_address */
	uint8_t mac[6];
	bool vlan_valid;
	uint16_t vlan_id;
	uint8_t roce_version;	/* 0 RoCE v1, 2 RoCE v2 (PRM encoding) */
	uint8_t roce_l3_type;	/* 0 IPv4, 1 IPv6 */
};

/* Table size (roce_address_table_size) and one entry; -EINVAL if out of
 * range. */
unsigned int emu_fw_gid_table_size(const struct emu_fw *fw);
/* Changes whenever any GID entry of any port changes (routes cache on it). */
unsigned int emu_fw_gid_table_gen(const struct emu_fw *fw);
int emu_fw_gid_get(struct emu_fw *fw, unsigned int port, unsigned int index,
		   struct emu_fw_gid_entry *entry);

#endif /* MLX5EMU_FW_H */
