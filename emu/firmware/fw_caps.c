/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_caps.c -- the capability pages of the emulated
 * ConnectX-6 Dx (RoCE, Ethernet link layer) and QUERY_HCA_CAP.
 *
 * fw_cap_defaults[] is THE table: every capability the device advertises is
 * one line of it, and nothing else sets a capability.  The rule for a line:
 * a feature bit is set only if the emulator implements it (with the QP,
 * SRQ and engine work of the current scope), identity limits are the real
 * part's, resource limits are modest (every structure is process memory) and
 * the same everywhere they are reported, because verbs and mlx5dv attributes
 * are derived from these pages exactly as the kernel and libmlx5 derive
 * them.  Which page a bit advertises follows the kernel's
 * mlx5_query_hca_caps() (drivers/net/ethernet/mellanox/mlx5/core/fw.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prm/prm_fields.h"
#include "emu/firmware/fw_int.h"

_Static_assert(EMU_FW_CAP_PAGE_BYTES == PRM_ST_SZ_BYTES(hca_cap_union),
	       "a capability page is hca_cap_union");

/*
 * The capability types QUERY_HCA_CAP answers: those a ConnectX-6 Dx
 * firmware knows (kernel enum mlx5_cap_type).  IPoIB pages are absent (the
 * Dx is an Ethernet-only part); types from later parts (SHAMPO, MACsec,
 * port selection, advanced virtualization/RDMA) are unknown: BAD_PARAM.
 * st: the PRM struct of the page, if described; gate: the cmd_hca_cap bits
 * that advertise it (the page must be filled iff one is set; a type with no
 * gate is always all zero).
 */
struct fw_cap_type {
	uint8_t type;
	const char *st;
	const char *gate[2];
};

static const struct fw_cap_type fw_cap_types[] = {
	{ MLX5_CAP_GENERAL, "cmd_hca_cap", { NULL } },
	{ MLX5_CAP_ETHERNET_OFFLOADS, "per_protocol_networking_offload_caps",
	  { "eth_net_offloads" } },
	{ MLX5_CAP_ODP, "odp_cap", { "pg" } },
	{ MLX5_CAP_ATOMIC, "atomic_caps", { "atomic" } },
	{ MLX5_CAP_ROCE, "roce_cap", { "roce" } },
	{ MLX5_CAP_FLOW_TABLE, "flow_table_nic_cap", { "nic_flow_table" } },
	{ MLX5_CAP_ESWITCH_FLOW_TABLE, NULL, { "eswitch_manager" } },
	{ MLX5_CAP_ESWITCH, NULL, { "eswitch_manager" } },
	{ MLX5_CAP_QOS, NULL, { "qos" } },
	{ MLX5_CAP_DEBUG, NULL, { "debug" } },
	{ MLX5_CAP_DEV_MEM, NULL, { "device_memory" } },
	{ MLX5_CAP_TLS, NULL, { "tls_tx", "tls_rx" } },
	{ MLX5_CAP_VDPA_EMULATION, NULL, { NULL } },
	{ MLX5_CAP_DEV_EVENT, NULL, { "event_cap" } },
	{ MLX5_CAP_IPSEC, NULL, { "ipsec_offload" } },
	{ MLX5_CAP_CRYPTO, NULL, { "crypto" } },
	{ MLX5_CAP_GENERAL_2, "cmd_hca_cap_2", { "hca_cap_2" } },
};

#define FW_CAP_NTYPES (sizeof(fw_cap_types) / sizeof(fw_cap_types[0]))

struct emu_fw_caps {
	uint8_t page[FW_CAP_NTYPES][EMU_FW_CAP_PAGE_BYTES];
};

/* One line of the table: a field of a page and its value. */
struct fw_cap_default {
	uint8_t type;
	uint32_t off, sz;	/* bits, within the page */
	uint64_t value;
};

#define CAP_FIELD(t, st, fld, v) \
	{ (t), PRM_BIT_OFF(st, fld), PRM_BIT_SZ(st, fld), (v) }
#define GEN(fld, v) CAP_FIELD(MLX5_CAP_GENERAL, cmd_hca_cap, fld, v)
#define ETH(fld, v) CAP_FIELD(MLX5_CAP_ETHERNET_OFFLOADS, \
			      per_protocol_networking_offload_caps, fld, v)
#define ROCE(fld, v) CAP_FIELD(MLX5_CAP_ROCE, roce_cap, fld, v)
#define ATOMIC(fld, v) CAP_FIELD(MLX5_CAP_ATOMIC, atomic_caps, fld, v)
#define ODP(tr, fld, v) CAP_FIELD(MLX5_CAP_ODP, odp_cap, \
				  transport_page_fault_scheme_cap.tr.fld, v)
/* Every operation of a transport on on-demand memory. */
#define ODP_ALL(tr)							\
	ODP(tr, send, 1), ODP(tr, receive, 1), ODP(tr, write, 1),	\
	ODP(tr, read, 1), ODP(tr, atomic, 1), ODP(tr, srq_receive, 1)
#define NIC_RX(fld, v) CAP_FIELD(MLX5_CAP_FLOW_TABLE, flow_table_nic_cap, \
				 flow_table_properties_nic_receive.fld, v)
#define NIC_TX(fld, v) CAP_FIELD(MLX5_CAP_FLOW_TABLE, flow_table_nic_cap, \
				 flow_table_properties_nic_transmit.fld, v)
/* What a NIC RX and a NIC TX table share: tables, groups, entries
 * (allow, drop, forward to one destination, one counter), the miss
 * forward, entry and table modify, the root reset; the match fields the
 * engine's frame parser fills, each matched under any bit mask. */
#define NIC_FT(M)							\
	M(ft_support, 1),						\
	M(flow_counter, 1),						\
	M(flow_modify_en, 1),						\
	M(modify_root, 1),						\
	M(identified_miss_table, 1),					\
	M(flow_table_modify, 1),					\
	M(reset_root_to_default, 1),					\
	M(log_max_ft_size, 16),						\
	M(max_ft_level, EMU_FW_STEER_MAX_LEVEL),			\
	M(log_max_ft_num, 10),						\
	M(log_max_flow_counter, 0),	/* EMU_FW_STEER_MAX_COUNTERS */	\
	M(log_max_destination, 0),	/* EMU_FW_STEER_MAX_DEST */	\
	NIC_FT_FIELDS(M, ft_field_support),				\
	NIC_FT_FIELDS(M, ft_field_bitmask_support)
#define NIC_FT_FIELDS(M, f)						\
	M(f.outer_dmac, 1), M(f.outer_smac, 1), M(f.outer_ether_type, 1),	\
	M(f.outer_ip_version, 1), M(f.outer_first_prio, 1),		\
	M(f.outer_first_cfi, 1), M(f.outer_first_vid, 1),		\
	M(f.outer_ipv4_ttl, 1), M(f.outer_sip, 1), M(f.outer_dip, 1),	\
	M(f.outer_frag, 1), M(f.outer_ip_protocol, 1), M(f.outer_ip_ecn, 1), \
	M(f.outer_ip_dscp, 1), M(f.outer_udp_sport, 1),			\
	M(f.outer_udp_dport, 1), M(f.outer_tcp_sport, 1),		\
	M(f.outer_tcp_dport, 1), M(f.outer_tcp_flags, 1)

static const struct fw_cap_default fw_cap_defaults[] = {
	/* ---- identity: what a ConnectX-6 Dx RoCE function is ---- */
	GEN(port_type, MLX5_CAP_PORT_TYPE_ETH),
	GEN(num_ports, 1),		/* one port per PCI function */
	GEN(log_max_msg, 30),		/* 1 GiB messages */
	GEN(cqe_version, 1),		/* libmlx5 asks for version 1 */
	GEN(local_ca_ack_delay, 16),	/* ibv_devinfo on mlx5 */
	GEN(log_pg_sz, 12),		/* 4 KiB minimal page */
	GEN(max_wqe_sz_sq, 1024),	/* -> max_sge 30, as mlx5 */
	GEN(max_wqe_sz_rq, 512),	/* -> max_sge 32 on the RQ */
	GEN(log_max_ra_req_qp, 4),	/* max_qp_init_rd_atom 16 */
	GEN(log_max_ra_res_qp, 4),	/* max_qp_rd_atom 16 */
	GEN(log_max_ra_req_dc, 4),	/* DCI: as RC */
	GEN(log_max_ra_res_dc, 4),	/* DCT: as RC */
	GEN(max_wqe_sz_sq_dc, 1024),	/* DCI WQEs as RC's */
	GEN(log_max_mrw_sz, 64),	/* max_mr_size: 2^64 */
	GEN(pkey_table_size, 0),	/* encoded 0: 128 (max_pkeys) */

	/* ---- transports and features we implement ---- */
	GEN(rc, 1),
	GEN(uc, 1),
	GEN(ud, 1),
	GEN(roce, 1),			/* RoCE v1 and v2, see roce_cap */
	GEN(atomic, 1),			/* 8-byte CAS/FAA, see atomic_caps */
	GEN(eth_net_offloads, 1),	/* only wqe_inline_mode, see below */
	GEN(cq_oi, 1),			/* overrun ignore */
	GEN(cq_moderation, 1),		/* MODIFY_CQ period/count */
	GEN(cq_period_mode_modify, 1),
	GEN(cq_period_start_from_cqe, 1),
	GEN(cq_resize, 1),		/* MODIFY_CQ op_mod 1 (fw_cq.c) */
	/* 128-byte CQEs padded (cqe_sz 2): written as cqe_sz 1, the CQE in
	 * the second half; the first half holds no scattered data, as no
	 * CQE here ever does. */
	GEN(cqe_128_always, 1),
	GEN(xrc, 1),			/* XRC domains, XRC SRQs, XRC QPs */
	GEN(imaicl, 1),			/* memory windows (fw_mkey_umr.c) */
	GEN(log_max_klm_list_size, 16),	/* KLM mkeys: 64Ki entries */
	GEN(dct, 1),			/* DC: DCT objects, DCI QPs */
	GEN(block_lb_mc, 1),		/* qpc.block_lb_mc kept (no multicast) */
	GEN(rts2rts_qp_counters_set_id, 1),	/* RTS2RTS COUNTER_SET_ID */
	GEN(rts2rts_qp_udp_sport, 1),	/* RTS2RTS UDP_SPORT (fw_qp_modify.c) */
	GEN(ece_support, 1),		/* ECE version 1, no option (fw_qp_rules.c) */

	/* ---- clocks (fw_clock.c): the internal timer at 1 GHz, as
	 * ibv_devinfo shows a ConnectX-6 Dx (hca_core_clock 1000000kHZ);
	 * CQE timestamps free running or real time, chosen per QP ---- */
	GEN(device_frequency_khz, 1000000),
	GEN(device_frequency_mhz, 1000),
	GEN(sq_ts_format, MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING_AND_REAL_TIME),
	GEN(rq_ts_format, MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING_AND_REAL_TIME),

	/* ---- DEVX: user contexts and umems ---- */
	GEN(log_max_uctx, 10),		/* 1024 DEVX contexts */
	GEN(log_max_umem, 16),
	GEN(umem_uid_0, 1),
	/* MLX5_GENERAL_OBJ_TYPES_CAP_UCTX (1 << 4) | _UMEM (1 << 5) */
	GEN(general_obj_types, (UINT64_C(1) << 4) | (UINT64_C(1) << 5)),

	/* ---- UARs: 4 KiB UAR pages, one per system page, BlueFlame ---- */
	GEN(uar_4k, 1),
	GEN(uar_sz, 2),			/* 4 MiB: 1024 UAR pages */
	GEN(num_of_uars_per_page, 1),
	GEN(bf, 1),			/* BF copies are ignored: the SQ is read */
	GEN(log_bf_reg_size, 9),	/* 512-byte BlueFlame registers */

	/* ---- resource limits: modest, all memory is the process's ---- */
	GEN(log_max_cq_sz, 15),		/* max_cqe 32767 (2 MiB of CQEs) */
	GEN(log_max_cq, 14),		/* 16384 CQs */
	GEN(log_max_qp_sz, 15),		/* max_qp_wr 32768 (as real) */
	GEN(log_max_qp, 14),		/* 16384 QPs */
	GEN(log_max_srq_sz, 15),	/* max_srq_wr 32767 */
	GEN(log_max_srq, 12),		/* 4096 SRQs (with XRC SRQs and RMPs) */
	GEN(log_max_rmp, 12),		/* RMPs share the SRQ numbers */
	GEN(log_max_xrcd, 16),
	GEN(log_max_eq_sz, 15),
	GEN(log_max_eq, 6),		/* 64 EQs */
	GEN(log_max_mkey, 16),		/* 65536 MRs/mkeys */
	GEN(log_max_pd, 16),
	GEN(log_max_transport_domain, 12),
	/* MODIFY_NIC_VPORT_CONTEXT's disable_uc/mc_local_lb, which mlx5_ib
	 * turns as user contexts and loopback QPs come and go. */
	GEN(disable_local_lb_uc, 1),
	GEN(disable_local_lb_mc, 1),
	GEN(max_qp_cnt, 32),		/* queue counter sets */
	GEN(max_flow_counter_15_0, 4096),
	GEN(nic_receive_steering_discard, 1),	/* QUERY_VNIC_ENV */

	/* ---- Ethernet page: only how much of a packet a WQE inlines ---- */
	ETH(wqe_inline_mode, MLX5_CAP_INLINE_MODE_NOT_REQUIRED),

	/* ---- Ethernet queue objects (fw_eth_*.c).  RQ and RQT limits as
	 * a ConnectX-6 Dx (part 4125, firmware 22.36.1010) reports them
	 * through mlx5_ib in a published ibv_devinfo -vv:
	 * max_wq_type_rq 8388608 (1 << log_max_rq), rss_caps
	 * max_rwq_indirection_tables 524288 (1 << log_max_rqt) and
	 * max_rwq_indirection_table_size 2048 (1 << log_max_rqt_size); the
	 * rest modest, emulator-chosen ---- */
	GEN(log_max_rq, 23),
	GEN(log_max_rqt, 19),
	GEN(log_max_rqt_size, 11),
	GEN(log_max_tis, 12),		/* 4096 TISes */
	GEN(log_max_sq, 14),		/* as many SQs as QPs */
	GEN(log_max_tir, 14),		/* 16384 TIRs */
	GEN(log_max_tis_per_sq, 0),	/* one TIS (tis_lst_sz 1) per SQ */
	GEN(log_max_wq_sz, 15),		/* as log_max_qp_sz */
	ETH(self_lb_en_modifiable, 1),	/* MODIFY_TIR self_lb_en */

	/* ---- Ethernet offloads the engine performs (eng_eth_*.c) ---- */
	ETH(csum_cap, 1),		/* L3/L4 checksums, both ways */
	ETH(vlan_cap, 1),		/* C-VLAN stripping (rqc.vsd 0) */
	ETH(wqe_vlan_insert, 1),	/* the Ethernet segment's VLAN */
	ETH(max_lso_cap, 18),		/* TSO of 256 KiB, as mlx5_en's max */
	ETH(rss_ind_tbl_cap, 11),	/* RSS over an RQT of log_max_rqt_size */

	/* ---- RoCE page ---- */
	ROCE(roce_version, 0x5),	/* 1 << RoCE v1 (0) | 1 << RoCE v2 (2) */
	ROCE(l3_type, 0x6),		/* IPv4 (1 << 1) | IPv6 (1 << 2) */
	ROCE(r_roce_dest_udp_port, 4791),
	ROCE(r_roce_max_src_udp_port, 0xffff),
	ROCE(r_roce_min_src_udp_port, 0xc000),
	ROCE(roce_address_table_size, 256),	/* gid_tbl_len, as upstream */
	ROCE(qp_ts_format, MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING_AND_REAL_TIME),

	/* ---- atomic page: IB_ATOMIC_HCA as mlx5_ib derives it ---- */
	ATOMIC(atomic_operations, 0x3),	/* compare-and-swap, fetch-and-add */
	ATOMIC(atomic_size_qp, 0x8),	/* 8 bytes */
	ATOMIC(atomic_size_dc, 0x8),	/* 8 bytes, DC as RC */
	ATOMIC(supported_atomic_req_8B_endianness_mode_1, 1),
	ATOMIC(atomic_req_8B_endianness_mode, 1),	/* host endianness */

	/* ---- on-demand paging: the engine reaches application memory
	 * through emu/mem on every access, the mapping of that moment, and
	 * an access that finds nothing mapped fails as an unresolved page
	 * fault does; verbs MRs only (the kernel layer's ODP umems: mkeys
	 * with pg_access stay refused, so no PAGE_FAULT event is ever
	 * raised).  RC, XRC and DC for every operation, UD for sends and
	 * SRQ receives, as mlx5_ib reads the page ---- */
	GEN(pg, 1),
	ODP_ALL(rc_odp_caps),
	ODP_ALL(xrc_odp_caps),
	ODP_ALL(dc_odp_caps),
	ODP(ud_odp_caps, send, 1),
	ODP(ud_odp_caps, srq_receive, 1),

	/* ---- NIC flow tables (fw_flow_table.c ... fw_steer.c) ---- */
	GEN(nic_flow_table, 1),
	NIC_FT(NIC_RX),
	NIC_RX(flow_tag, 1),		/* reported in receive CQEs */
	NIC_FT(NIC_TX),
};

/*
 * Fields configuration may raise, up to the emulator's (and the PRM
 * field's) hard limit.  Every other field may only be lowered (numbers:
 * log_*, max_* and the listed ones) or have bits cleared (flags and masks).
 */
struct fw_cap_limit {
	uint8_t type;
	const char *name;
	uint64_t max;
};

static const struct fw_cap_limit fw_cap_raisable[] = {
	{ MLX5_CAP_GENERAL, "log_max_cq_sz", 22 },
	{ MLX5_CAP_GENERAL, "log_max_cq", 24 },
	{ MLX5_CAP_GENERAL, "log_max_qp_sz", 15 },	/* qpc: 4 bits */
	{ MLX5_CAP_GENERAL, "log_max_qp", 24 },
	{ MLX5_CAP_GENERAL, "log_max_srq_sz", 15 },	/* srqc: 4 bits */
	{ MLX5_CAP_GENERAL, "log_max_srq", 23 },
	{ MLX5_CAP_GENERAL, "log_max_rmp", 23 },
	{ MLX5_CAP_GENERAL, "log_max_xrcd", 24 },
	{ MLX5_CAP_GENERAL, "log_max_eq_sz", 22 },
	{ MLX5_CAP_GENERAL, "log_max_eq", 7 },	/* eq_number: 8 bits */
	{ MLX5_CAP_GENERAL, "log_max_mkey", 24 },
	{ MLX5_CAP_GENERAL, "log_max_pd", 24 },
	{ MLX5_CAP_GENERAL, "log_max_transport_domain", 24 },
	{ MLX5_CAP_GENERAL, "log_max_uctx", 15 },	/* uid: 16 bits */
	{ MLX5_CAP_GENERAL, "log_max_umem", 24 },
	{ MLX5_CAP_GENERAL, "max_qp_cnt", 255 },	/* counter_set_id */
	{ MLX5_CAP_GENERAL, "max_flow_counter_15_0", 0xffff },
	{ MLX5_CAP_GENERAL, "uar_sz", 6 },
	{ MLX5_CAP_GENERAL, "num_ports", 2 },
	{ MLX5_CAP_GENERAL, "vhca_id", 0xffff },
	{ MLX5_CAP_ROCE, "roce_address_table_size", 4096 },
};

/*
 * Bits the default leaves clear that configuration may set: the RDMA_CTRL
 * object type and the uctx capabilities the kernel turns into ucap device
 * nodes (newer devices' privileged control), and RAW_TX, which the kernel
 * grants a DEVX context of a process with CAP_NET_RAW.  Only the
 * advertising and the kernel's checks are emulated; what they unlock in
 * firmware has no public description.
 */
static const struct fw_cap_limit fw_cap_optin[] = {
	{ MLX5_CAP_GENERAL, "hca_cap_2", 1 },
	{ MLX5_CAP_GENERAL, "uctx_cap",
	  MLX5_UCTX_CAP_RAW_TX | MLX5_UCTX_CAP_RDMA_CTRL |
	  MLX5_UCTX_CAP_RDMA_CTRL_OTHER_VHCA },
	{ MLX5_CAP_GENERAL_2, "general_obj_types_127_64",
	  MLX5_HCA_CAP_2_GENERAL_OBJECT_TYPES_RDMA_CTRL },
};

static const char *const fw_cap_numeric[] = {
	"uar_sz", "num_of_uars_per_page", "local_ca_ack_delay",
	"gid_table_size", "pkey_table_size", "num_ports",
	"r_roce_max_src_udp_port", "r_roce_min_src_udp_port",
	"roce_address_table_size", "device_frequency_khz",
	"device_frequency_mhz", "cqe_version",
	/* enumerations: 2 both formats, 1 real time only, 0 free running */
	"qp_ts_format", "sq_ts_format", "rq_ts_format",
};

static int fw_cap_index(unsigned int type)
{
	for (size_t i = 0; i < FW_CAP_NTYPES; i++)
		if (fw_cap_types[i].type == type)
			return (int)i;
	return -1;
}

bool emu_fw_cap_type_known(unsigned int type)
{
	return fw_cap_index(type) >= 0;
}

const char *emu_fw_cap_type_struct(unsigned int type)
{
	int i = fw_cap_index(type);

	return i < 0 ? NULL : fw_cap_types[i].st;
}

const char *emu_fw_cap_type_gate(unsigned int type)
{
	int i = fw_cap_index(type);

	return i < 0 ? NULL : fw_cap_types[i].gate[0];
}

const void *emu_fw_caps_page(const struct emu_fw_caps *caps,
			     unsigned int type)
{
	int i = fw_cap_index(type);

	return caps && i >= 0 ? caps->page[i] : NULL;
}

void *emu_fw_caps_page_mut(struct emu_fw_caps *caps, unsigned int type)
{
	int i = fw_cap_index(type);

	return caps && i >= 0 ? caps->page[i] : NULL;
}

/* Big-endian bit field of any width <= 64 at any offset. */
static void fw_bits_write(uint8_t *p, uint32_t off, uint32_t sz, uint64_t v)
{
	for (uint32_t i = 0; i < sz; i++) {
		uint32_t bit = off + i;
		uint8_t mask = (uint8_t)(0x80 >> (bit % 8));

		if (v >> (sz - 1 - i) & 1)
			p[bit / 8] |= mask;
		else
			p[bit / 8] &= (uint8_t)~mask;
	}
}

static uint64_t fw_bits_read(const uint8_t *p, uint32_t off, uint32_t sz)
{
	return prm_field_read(p, off, sz);
}

struct emu_fw_caps *emu_fw_caps_new(void)
{
	struct emu_fw_caps *caps = calloc(1, sizeof(*caps));

	if (!caps)
		return NULL;
	for (size_t i = 0; i < sizeof(fw_cap_defaults) /
				 sizeof(fw_cap_defaults[0]); i++) {
		const struct fw_cap_default *d = &fw_cap_defaults[i];

		fw_bits_write(emu_fw_caps_page_mut(caps, d->type), d->off,
			      d->sz, d->value);
	}
	return caps;
}

struct emu_fw_caps *emu_fw_caps_dup(const struct emu_fw_caps *caps)
{
	struct emu_fw_caps *dup = malloc(sizeof(*dup));

	if (dup)
		memcpy(dup, caps, sizeof(*dup));
	return dup;
}

void emu_fw_caps_free(struct emu_fw_caps *caps)
{
	free(caps);
}

static int fw_cap_field(unsigned int type, const char *field, uint32_t *off,
			uint32_t *sz)
{
	const char *st = emu_fw_cap_type_struct(type);
	const struct prm_struct_desc *sd;
	const struct prm_field_desc *fd;

	if (!st || !field)
		return -ENOENT;
	sd = prm_struct_find(st);
	fd = sd ? prm_field_find(sd, field, off) : NULL;
	if (!fd)
		return -ENOENT;
	if (fd->type || fd->count || fd->bit_width > 64)
		return -EINVAL;
	*sz = fd->bit_width;
	return 0;
}

int emu_fw_caps_get(const struct emu_fw_caps *caps, unsigned int type,
		    const char *field, uint64_t *value)
{
	uint32_t off, sz;
	int ret = fw_cap_field(type, field, &off, &sz);

	if (ret)
		return ret;
	*value = fw_bits_read(emu_fw_caps_page(caps, type), off, sz);
	return 0;
}

int emu_fw_caps_set(struct emu_fw_caps *caps, unsigned int type,
		    const char *field, uint64_t value)
{
	uint32_t off, sz;
	int ret = fw_cap_field(type, field, &off, &sz);

	if (ret)
		return ret;
	if (sz < 64 && value >> sz)
		return -ERANGE;
	fw_bits_write(emu_fw_caps_page_mut(caps, type), off, sz, value);
	return 0;
}

/* ---- consistency ---- */

static int fw_why(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fw_why(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool fw_page_zero(const uint8_t *page)
{
	for (size_t i = 0; i < EMU_FW_CAP_PAGE_BYTES; i++)
		if (page[i])
			return false;
	return true;
}

static bool fw_cap_is_numeric(const char *name)
{
	if (!strncmp(name, "log_", 4) || !strncmp(name, "max_", 4))
		return true;
	for (size_t i = 0; i < sizeof(fw_cap_numeric) /
				 sizeof(fw_cap_numeric[0]); i++)
		if (!strcmp(name, fw_cap_numeric[i]))
			return true;
	return false;
}

static const struct fw_cap_limit *fw_cap_find(const struct fw_cap_limit *tab,
					       size_t n, unsigned int type,
					       const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (tab[i].type == type && !strcmp(tab[i].name, name))
			return &tab[i];
	return NULL;
}

#define FW_CAP_FIND(tab, type, name) \
	fw_cap_find(tab, sizeof(tab) / sizeof((tab)[0]), type, name)

/* Every scalar of a described page against the default page. */
static int fw_check_fields(const struct emu_fw_caps *caps,
			   const struct emu_fw_caps *def, unsigned int type,
			   char *why, size_t whylen)
{
	const char *st = emu_fw_cap_type_struct(type);
	const struct prm_struct_desc *sd = st ? prm_struct_find(st) : NULL;
	const uint8_t *page = emu_fw_caps_page(caps, type);
	const uint8_t *dpage = emu_fw_caps_page(def, type);

	if (!sd)
		return memcmp(page, dpage, EMU_FW_CAP_PAGE_BYTES) ?
			fw_why(why, whylen, "capability type 0x%x: page "
			       "differs from the default and has no "
			       "description", type) : 0;
	for (uint32_t i = 0; i < sd->nfields; i++) {
		const struct prm_field_desc *fd = &sd->fields[i];
		const struct fw_cap_limit *lim;
		uint64_t v, d;

		if (fd->type || fd->count || fd->bit_width > 64)
			continue;
		v = fw_bits_read(page, fd->bit_off, fd->bit_width);
		d = fw_bits_read(dpage, fd->bit_off, fd->bit_width);
		if (v == d)
			continue;
		lim = FW_CAP_FIND(fw_cap_raisable, type, fd->name);
		if (lim) {
			if (v > lim->max)
				return fw_why(why, whylen, "%s.%s = %llu is "
					      "above the emulator's limit "
					      "%llu", st, fd->name,
					      (unsigned long long)v,
					      (unsigned long long)lim->max);
			continue;
		}
		lim = FW_CAP_FIND(fw_cap_optin, type, fd->name);
		if (lim)
			d |= lim->max;
		if (fw_cap_is_numeric(fd->name) ? v > d : (v & ~d) != 0)
			return fw_why(why, whylen, "%s.%s = 0x%llx advertises "
				      "more than the emulator implements "
				      "(0x%llx)", st, fd->name,
				      (unsigned long long)v,
				      (unsigned long long)d);
	}
	return 0;
}

int emu_fw_caps_check(const struct emu_fw_caps *caps, char *why,
		      size_t whylen)
{
	const void *gen = emu_fw_caps_page(caps, MLX5_CAP_GENERAL);
	struct emu_fw_caps *def;
	int ret = 0;

	if (!caps)
		return fw_why(why, whylen, "no capabilities");

	/* Every advertising bit has its page, every other page is zero. */
	for (size_t i = 0; i < FW_CAP_NTYPES; i++) {
		const struct fw_cap_type *t = &fw_cap_types[i];
		bool adv = false;

		if (t->type == MLX5_CAP_GENERAL) {
			if (fw_page_zero(caps->page[i]))
				return fw_why(why, whylen,
					      "the general page is empty");
			continue;
		}
		for (int g = 0; g < 2 && t->gate[g]; g++) {
			uint64_t v = 0;

			emu_fw_caps_get(caps, MLX5_CAP_GENERAL, t->gate[g], &v);
			adv |= v != 0;
		}
		if (adv && fw_page_zero(caps->page[i]))
			return fw_why(why, whylen, "cmd_hca_cap.%s is set but "
				      "capability page 0x%x is empty",
				      t->gate[0], t->type);
		if (!adv && !fw_page_zero(caps->page[i]))
			return fw_why(why, whylen, "capability page 0x%x is "
				      "filled but not advertised (%s)",
				      t->type, t->gate[0] ? t->gate[0] :
				      "no advertising bit");
	}

	/* What the emulator can be. */
	if (PRM_GET(cmd_hca_cap, gen, port_type) != MLX5_CAP_PORT_TYPE_ETH)
		return fw_why(why, whylen, "port_type must be Ethernet (1)");
	if (PRM_GET(cmd_hca_cap, gen, num_ports) < 1)
		return fw_why(why, whylen, "num_ports must be 1 or 2");
	if (PRM_GET(cmd_hca_cap, gen, cqe_version) != 1)
		return fw_why(why, whylen, "cqe_version must be 1");
	if (PRM_GET(cmd_hca_cap, gen, log_pg_sz) != 12)
		return fw_why(why, whylen, "log_pg_sz must be 12");
	if (PRM_GET(cmd_hca_cap, gen, max_qp_cnt) == 0)
		return fw_why(why, whylen, "max_qp_cnt must be at least 1");
	if (PRM_GET(roce_cap, emu_fw_caps_page(caps, MLX5_CAP_ROCE),
		    roce_address_table_size) == 0 &&
	    PRM_GET(cmd_hca_cap, gen, roce))
		return fw_why(why, whylen,
			      "roce_address_table_size must be at least 1");
	/* Queues (fw_qp.c, fw_srq_common.c): an SQ WQE is at least one 64-byte
	 * basic block, an SRQ WQE a next segment and one scatter entry. */
	if (PRM_GET(cmd_hca_cap, gen, max_wqe_sz_sq) < 64)
		return fw_why(why, whylen, "max_wqe_sz_sq must be at least 64");
	if (PRM_GET(cmd_hca_cap, gen, max_wqe_sz_rq) < 32)
		return fw_why(why, whylen, "max_wqe_sz_rq must be at least 32 "
			      "(an SRQ WQE with one scatter entry)");

	def = emu_fw_caps_new();
	if (!def)
		return -ENOMEM;
	for (size_t i = 0; i < FW_CAP_NTYPES && !ret; i++)
		ret = fw_check_fields(caps, def, fw_cap_types[i].type, why,
				      whylen);
	emu_fw_caps_free(def);
	return ret;
}

/* ---- the device's view ---- */

const void *fw_cap_page(const struct emu_fw *fw, unsigned int type)
{
	return emu_fw_caps_page(fw->caps, type);
}

const struct emu_fw_caps *emu_fw_get_caps(const struct emu_fw *fw)
{
	return fw->caps;
}

/*
 * QUERY_HCA_CAP: op_mod = (type << 1) | (0 max, 1 current).  Max and
 * current are one page here.  Another function's caps need a vhca group
 * manager.  The page is copied as far as the outbox reaches (pyverbs reads
 * the general page with a 2064-byte outbox, the kernel with the full 4112).
 */
enum fw_synd fw_cmd_query_hca_cap(struct fw_cmd *cmd)
{
	unsigned int type = cmd->op_mod >> 1;
	const void *page;
	size_t n;

	if (PRM_GET(query_hca_cap_in, cmd->in, other_function))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	page = fw_cap_page(cmd->fw, type);
	if (!page)
		return FW_SYND_CAP_BAD_TYPE;
	n = cmd->outlen - PRM_BYTE_OFF(query_hca_cap_out, capability);
	if (n > EMU_FW_CAP_PAGE_BYTES)
		n = EMU_FW_CAP_PAGE_BYTES;
	memcpy(PRM_ADDR_OF(query_hca_cap_out, cmd->out, capability), page, n);
	return FW_SYND_OK;
}
