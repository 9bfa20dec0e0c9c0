/* SPDX-License-Identifier: MIT */
/*
 * ibv_query_device and ibv_query_device_ex (the verbs_context op), derived
 * from the capability pages as the kernel's mlx5_ib_query_device() derives
 * ib_device_attr and struct mlx5_ib_query_device_resp, then copied out as
 * libibverbs 44 (ibv_cmd_query_device_any) and libmlx5 44
 * (mlx5_query_device_ex) do.
 *
 * Identity comes from where the kernel takes it: node and system image GUID
 * from QUERY_NIC_VPORT_CONTEXT (the NIC vport access method of an Ethernet
 * port), vendor_id from QUERY_ADAPTER's ieee_vendor_id, vendor_part_id from
 * the PCI device id (the backend's enumeration), hw_ver from the PCI
 * revision and fw_ver from the device's fw_ver file (the kernel formats
 * both it and the verbs string from the firmware revision, "%d.%d.%04d").
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/caps.h"
#include "provider/core/cmd.h"
#include "provider/core/context.h"
#include "provider/core/device.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/mr.h"
#include "provider/verbs/query.h"
#include "provider/core/sysfs.h"
#include "provider/mana/mana_prov.h"

#define PROV_OFFSETOFEND(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))

/* The WQE segments the kernel counts in (infiniband/mlx5dv.h). */
#define PROV_WQE_CTRL_SEG sizeof(struct mlx5_wqe_ctrl_seg)
#define PROV_WQE_RADDR_SEG sizeof(struct mlx5_wqe_raddr_seg)
#define PROV_WQE_DATA_SEG sizeof(struct mlx5_wqe_data_seg)

/* mlx5_ib.h: MLX5_MAX_SGE_RD, (512 - ctrl - raddr) / data. */
#define PROV_MAX_SGE_RD ((512 - PROV_WQE_CTRL_SEG - PROV_WQE_RADDR_SEG) / \
			 PROV_WQE_DATA_SEG)

/* mlx5_ib.h: the striding RQ limits the kernel reports. */
enum {
	PROV_MIN_SINGLE_STRIDE_LOG_NUM_BYTES = 6,
	PROV_MAX_SINGLE_STRIDE_LOG_NUM_BYTES = 13,
	PROV_MIN_SINGLE_WQE_LOG_NUM_STRIDES = 9,
	PROV_EXT_MIN_SINGLE_WQE_LOG_NUM_STRIDES = 3,
	PROV_MAX_SINGLE_WQE_LOG_NUM_STRIDES = 16,
};

/* mlx5_ib.h: tag matching limits (MLX5_TM_MAX_SGE, ..._RNDV_MSG_SIZE). */
enum {
	PROV_TM_MAX_SGE = 1,
	PROV_TM_MAX_RNDV_MSG_SIZE = 64,
};

/* mlx5_to_sw_pkey_sz(): 128 << pkey_table_size, 0 past log 5. */
static unsigned int pkey_table_len(unsigned int pkey_sz)
{
	return pkey_sz > 5 ? 0 : 128u << pkey_sz;
}

/* timestamp_mask the kernel reports for a 63-bit free-running counter. */
#define PROV_TIMESTAMP_MASK UINT64_C(0x7FFFFFFFFFFFFFFF)

static int query_nic_vport_guids(struct prov_context *pctx, __be64 *node_guid,
				 __be64 *sys_image_guid)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_nic_vport_context_in)] = { 0 };
	uint8_t *out = calloc(1, PRM_ST_SZ_BYTES(query_nic_vport_context_out));
	int ret;

	if (!out)
		return ENOMEM;
	PRM_SET(query_nic_vport_context_in, in, opcode,
		MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	ret = prov_cmd_exec(pctx, in, sizeof(in), out,
			    PRM_ST_SZ_BYTES(query_nic_vport_context_out));
	if (!ret) {
		*node_guid = htobe64(PRM_GET64(query_nic_vport_context_out, out,
					       nic_vport_context.node_guid));
		*sys_image_guid = htobe64(PRM_GET64(query_nic_vport_context_out, out,
						    nic_vport_context.system_image_guid));
	}
	free(out);
	return ret;
}

static int query_vendor_id(struct prov_context *pctx, uint32_t *vendor_id)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_adapter_in)] = { 0 };
	uint8_t *out = calloc(1, PRM_ST_SZ_BYTES(query_adapter_out));
	int ret;

	if (!out)
		return ENOMEM;
	PRM_SET(query_adapter_in, in, opcode, MLX5_CMD_OP_QUERY_ADAPTER);
	ret = prov_cmd_exec(pctx, in, sizeof(in), out,
			    PRM_ST_SZ_BYTES(query_adapter_out));
	if (!ret)
		*vendor_id = PRM_GET(query_adapter_out, out,
				     query_adapter_struct.ieee_vendor_id);
	free(out);
	return ret;
}

/* How many devices to enumerate when looking for our PCI device id. */
#define PROV_PART_ID_SCAN 64

/* pdev->device, as the backend enumerates the device. */
static uint32_t device_part_id(struct prov_context *pctx)
{
	struct mlx5be_device_info *infos;
	uint32_t part = 0;
	int n;

	infos = calloc(PROV_PART_ID_SCAN, sizeof(*infos));
	if (!infos)
		return 0;
	n = pctx->be->get_devices(infos, PROV_PART_ID_SCAN);
	if (pctx->dev->be_index >= 0 && pctx->dev->be_index < n)
		part = infos[pctx->dev->be_index].vendor_part_id;
	free(infos);
	return part;
}

/* A number from the PCI function's sysfs directory ("0x00"), or 0. */
static unsigned long pci_sysfs_value(struct prov_context *pctx, const char *file)
{
	char buf[32];

	if (prov_read_ibdev_file(&pctx->dev->ibdev, buf, sizeof(buf),
				 "device/%s", file) <= 0 &&
	    prov_read_ibdev_file(&pctx->dev->ibdev, buf, sizeof(buf),
				 "../../%s", file) <= 0)
		return 0;
	return strtoul(buf, NULL, 0);
}

/* fw_ver as libmlx5 prints the kernel's raw version: "%d.%d.%04d". */
static void device_fw_ver(struct prov_context *pctx, char *fw_ver, size_t len)
{
	char buf[64];
	unsigned int major, minor, sub;

	if (prov_read_ibdev_file(&pctx->dev->ibdev, buf, sizeof(buf), "fw_ver") <= 0)
		return;
	if (sscanf(buf, "%u.%u.%u", &major, &minor, &sub) == 3)
		snprintf(fw_ver, len, "%d.%d.%04d", (int)(major & 0xffff),
			 (int)(minor & 0xffff), (int)(sub & 0xffff));
	else
		snprintf(fw_ver, len, "%s", buf);
}

/* libibverbs: the number of ports directories, else phys_port_cnt. */
static uint32_t sysfs_num_ports(struct prov_context *pctx, uint32_t fallback)
{
	char buf[16];
	uint32_t n = 0;

	/* Ports are numbered from 1 without holes on every mlx5 device. */
	while (n < 256 && prov_read_ibdev_file(&pctx->dev->ibdev, buf, sizeof(buf),
					       "ports/%u/state", n + 1) > 0)
		n++;
	return n ? n : fallback;
}

static void fill_odp_caps(struct prov_context *pctx, struct ibv_device_attr_ex *attr)
{
	/* mlx5_ib_internal_fill_odp_caps() (odp.c); nothing without `pg`,
	 * nor where verbs MRs cannot be ODP ones (mr_odp.c). */
	uint32_t rc = 0, uc = 0, ud = 0, xrc = 0;

	if (!prov_mr_odp_offered(pctx))
		return;
	attr->odp_caps.general_caps = IBV_ODP_SUPPORT;
#define ODP_BIT(var, tr, fld, bit) \
	do { if (PROV_CAP_ODP(pctx, transport_page_fault_scheme_cap.tr.fld)) var |= (bit); } while (0)
	ODP_BIT(ud, ud_odp_caps, send, IBV_ODP_SUPPORT_SEND);
	ODP_BIT(ud, ud_odp_caps, srq_receive, IBV_ODP_SUPPORT_SRQ_RECV);
	ODP_BIT(rc, rc_odp_caps, send, IBV_ODP_SUPPORT_SEND);
	ODP_BIT(rc, rc_odp_caps, receive, IBV_ODP_SUPPORT_RECV);
	ODP_BIT(rc, rc_odp_caps, write, IBV_ODP_SUPPORT_WRITE);
	ODP_BIT(rc, rc_odp_caps, read, IBV_ODP_SUPPORT_READ);
	ODP_BIT(rc, rc_odp_caps, atomic, IBV_ODP_SUPPORT_ATOMIC);
	ODP_BIT(rc, rc_odp_caps, srq_receive, IBV_ODP_SUPPORT_SRQ_RECV);
	ODP_BIT(xrc, xrc_odp_caps, send, IBV_ODP_SUPPORT_SEND);
	ODP_BIT(xrc, xrc_odp_caps, receive, IBV_ODP_SUPPORT_RECV);
	ODP_BIT(xrc, xrc_odp_caps, write, IBV_ODP_SUPPORT_WRITE);
	ODP_BIT(xrc, xrc_odp_caps, read, IBV_ODP_SUPPORT_READ);
	ODP_BIT(xrc, xrc_odp_caps, atomic, IBV_ODP_SUPPORT_ATOMIC);
	ODP_BIT(xrc, xrc_odp_caps, srq_receive, IBV_ODP_SUPPORT_SRQ_RECV);
#undef ODP_BIT
	/* mlx5_ib needs fixed_buffer_size, null_mkey and
	 * umr_extended_translation_offset for its KSM of children; the
	 * implicit MR here is one umem over the address space (mr_odp.c). */
	attr->odp_caps.general_caps |= IBV_ODP_SUPPORT_IMPLICIT;
	attr->odp_caps.per_transport_caps.rc_odp_caps = rc;
	attr->odp_caps.per_transport_caps.uc_odp_caps = uc;
	attr->odp_caps.per_transport_caps.ud_odp_caps = ud;
	attr->xrc_odp_caps = xrc;
}

/* get_pci_atomic_caps() in libmlx5 verbs.c: the atomic page, read anew. */
static void fill_pci_atomic_caps(struct prov_context *pctx,
				 struct ibv_device_attr_ex *attr)
{
	uint8_t *page = malloc(PROV_CAP_PAGE_BYTES);

	if (!page)
		return;
	if (!prov_caps_query_page(pctx->be, pctx->bectx, MLX5_CAP_ATOMIC,
				  HCA_CAP_OPMOD_GET_CUR, page)) {
		attr->pci_atomic_caps.fetch_add =
			PRM_GET(atomic_caps, page, fetch_add_pci_atomic);
		attr->pci_atomic_caps.swap = PRM_GET(atomic_caps, page, swap_pci_atomic);
		attr->pci_atomic_caps.compare_swap =
			PRM_GET(atomic_caps, page, compare_swap_pci_atomic);
	}
	free(page);
}

/* The raw-packet (Ethernet) part of mlx5_ib_query_device(), attr side. */
static void fill_eth_caps(struct prov_context *pctx, struct ibv_device_attr_ex *attr)
{
	struct ibv_device_attr *a = &attr->orig_attr;

	/* raw_support = !mlx5_core_mp_enabled(): no multiport affiliation. */
	if (PROV_CAP_GEN(pctx, eth_net_offloads)) {
		if (PROV_CAP_ETH(pctx, csum_cap)) {
			a->device_cap_flags |= IBV_DEVICE_RAW_IP_CSUM;
			attr->raw_packet_caps |= IBV_RAW_PACKET_CAP_IP_CSUM;
		}
		if (prov_caps_cvlan_strip(pctx))
			attr->raw_packet_caps |= IBV_RAW_PACKET_CAP_CVLAN_STRIPPING;
		if (PROV_CAP_ETH(pctx, scatter_fcs)) {
			attr->device_cap_flags_ex |= IBV_DEVICE_RAW_SCATTER_FCS;
			attr->raw_packet_caps |= IBV_RAW_PACKET_CAP_SCATTER_FCS;
		}
	}
	if (PROV_CAP_GEN(pctx, rq_delay_drop) &&
	    PROV_CAP_GEN(pctx, general_notification_event))
		attr->raw_packet_caps |= IBV_RAW_PACKET_CAP_DELAY_DROP;
	if (PROV_CAP_GEN(pctx, port_type) == MLX5_CAP_PORT_TYPE_ETH) {
		attr->rss_caps.max_rwq_indirection_tables =
			1u << PROV_CAP_GEN(pctx, log_max_rqt);
		attr->rss_caps.max_rwq_indirection_table_size =
			1u << PROV_CAP_GEN(pctx, log_max_rqt_size);
		attr->rss_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
		attr->max_wq_type_rq = 1u << PROV_CAP_GEN(pctx, log_max_rq);
	}
}

void prov_query_device_resp(struct prov_context *pctx, struct prov_device_resp *resp)
{
	unsigned int max_tso;

	memset(resp, 0, sizeof(*resp));
	if (PROV_CAP_GEN(pctx, eth_net_offloads)) {
		max_tso = PROV_CAP_ETH(pctx, max_lso_cap);
		if (max_tso) {
			resp->tso_caps.max_tso = 1u << max_tso;
			resp->tso_caps.supported_qpts |= 1u << IBV_QPT_RAW_PACKET;
		}
		resp->rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
		resp->rx_hash_fields_mask =
			IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
			IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6 |
			IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP |
			IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP |
			IBV_RX_HASH_INNER;
	}
	if (PROV_CAP_GEN(pctx, cqe_compression)) {
		resp->cqe_comp_caps.max_num = PROV_CAP_GEN(pctx, cqe_compression_max_num);
		resp->cqe_comp_caps.supported_format =
			MLX5DV_CQE_RES_FORMAT_HASH | MLX5DV_CQE_RES_FORMAT_CSUM;
		if (PROV_CAP_GEN(pctx, mini_cqe_resp_stride_index))
			resp->cqe_comp_caps.supported_format |=
				MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX;
	}
	/*
	 * Packet pacing needs the QoS page's packet_pacing fields; prm/ does
	 * not describe that page, so the caps are reported only as absent
	 * (which is what the kernel reports without `qos`).
	 */
	resp->mpw_allowed = PROV_CAP_ETH(pctx, multi_pkt_send_wqe) != 0;
	resp->enhanced_mpw = PROV_CAP_ETH(pctx, enhanced_multi_pkt_send_wqe) != 0;
	resp->cqe_128b_comp = PROV_CAP_GEN(pctx, cqe_compression_128) != 0;
	resp->cqe_128b_pad = PROV_CAP_GEN(pctx, cqe_128_always) != 0;
	resp->packet_based_credit_mode = PROV_CAP_GEN(pctx, qp_packet_based) != 0;
	resp->scat2cqe_dct = true;
	if (PROV_CAP_ETH(pctx, swp)) {
		resp->sw_parsing_caps.sw_parsing_offloads |= MLX5DV_SW_PARSING;
		if (PROV_CAP_ETH(pctx, swp_csum))
			resp->sw_parsing_caps.sw_parsing_offloads |= MLX5DV_SW_PARSING_CSUM;
		if (PROV_CAP_ETH(pctx, swp_lso))
			resp->sw_parsing_caps.sw_parsing_offloads |= MLX5DV_SW_PARSING_LSO;
		if (resp->sw_parsing_caps.sw_parsing_offloads)
			resp->sw_parsing_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
	}
	if (PROV_CAP_GEN(pctx, striding_rq)) {
		struct mlx5dv_striding_rq_caps *s = &resp->striding_rq_caps;

		s->min_single_stride_log_num_of_bytes = PROV_MIN_SINGLE_STRIDE_LOG_NUM_BYTES;
		s->max_single_stride_log_num_of_bytes = PROV_MAX_SINGLE_STRIDE_LOG_NUM_BYTES;
		s->min_single_wqe_log_num_of_strides =
			PROV_CAP_GEN(pctx, ext_stride_num_range) ?
			PROV_EXT_MIN_SINGLE_WQE_LOG_NUM_STRIDES :
			PROV_MIN_SINGLE_WQE_LOG_NUM_STRIDES;
		s->max_single_wqe_log_num_of_strides = PROV_MAX_SINGLE_WQE_LOG_NUM_STRIDES;
		s->supported_qpts = 1u << IBV_QPT_RAW_PACKET;
	}
	if (PROV_CAP_ETH(pctx, tunnel_stateless_vxlan))
		resp->tunnel_offloads_caps |= MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_VXLAN;
	if (PROV_CAP_ETH(pctx, tunnel_stateless_geneve_rx))
		resp->tunnel_offloads_caps |= MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GENEVE;
	if (PROV_CAP_ETH(pctx, tunnel_stateless_gre))
		resp->tunnel_offloads_caps |= MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GRE;
	if (PROV_CAP_ETH(pctx, tunnel_stateless_mpls_over_gre))
		resp->tunnel_offloads_caps |=
			MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_GRE;
	if (PROV_CAP_ETH(pctx, tunnel_stateless_mpls_over_udp))
		resp->tunnel_offloads_caps |=
			MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_UDP;
	resp->dci_streams_caps.max_log_num_concurent =
		PROV_CAP_GEN(pctx, log_max_dci_stream_channels);
	resp->dci_streams_caps.max_log_num_errored =
		PROV_CAP_GEN(pctx, log_max_dci_errored_streams);
}

int prov_query_device_attr(struct prov_context *pctx,
			   struct ibv_device_attr_ex *attr)
{
	struct ibv_device_attr *a = &attr->orig_attr;
	struct prov_device_resp resp;
	unsigned int max_rq_sg, max_sq_desc, max_sq_sg;
	unsigned int num_ports;
	int ret;

	memset(attr, 0, sizeof(*attr));

	ret = query_nic_vport_guids(pctx, &a->node_guid, &a->sys_image_guid);
	if (!ret)
		ret = query_vendor_id(pctx, &a->vendor_id);
	if (ret)
		return ret;
	device_fw_ver(pctx, a->fw_ver, sizeof(a->fw_ver));

	a->device_cap_flags = IBV_DEVICE_CHANGE_PHY_PORT | IBV_DEVICE_PORT_ACTIVE_EVENT |
			      IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_RC_RNR_NAK_GEN;
	if (PROV_CAP_GEN(pctx, pkv))
		a->device_cap_flags |= IBV_DEVICE_BAD_PKEY_CNTR;
	if (PROV_CAP_GEN(pctx, qkv))
		a->device_cap_flags |= IBV_DEVICE_BAD_QKEY_CNTR;
	if (PROV_CAP_GEN(pctx, apm))
		a->device_cap_flags |= IBV_DEVICE_AUTO_PATH_MIG;
	if (PROV_CAP_GEN(pctx, xrc))
		a->device_cap_flags |= IBV_DEVICE_XRC;
	if (PROV_CAP_GEN(pctx, imaicl)) {
		a->device_cap_flags |= IBV_DEVICE_MEM_WINDOW |
				       IBV_DEVICE_MEM_WINDOW_TYPE_2B;
		a->max_mw = 1 << PROV_CAP_GEN(pctx, log_max_mkey);
	}
	if (prov_caps_mem_mgt_ext(pctx))
		a->device_cap_flags |= IBV_DEVICE_MEM_MGT_EXTENSIONS;
	fill_eth_caps(pctx, attr);
	if (PROV_CAP_GEN(pctx, ipoib_basic_offloads))
		a->device_cap_flags |= IBV_DEVICE_UD_IP_CSUM;
	/*
	 * max_dm_size needs the device-memory page's memic fields, which prm/
	 * does not describe; device memory is not emulated (docs/), so the
	 * size stays 0 as for a device without `device_memory`.
	 */
	if (prov_caps_flow_steering(pctx))
		a->device_cap_flags |= IBV_DEVICE_MANAGED_FLOW_STEERING;
	if (PROV_CAP_GEN(pctx, end_pad))
		attr->device_cap_flags_ex |= IBV_DEVICE_PCI_WRITE_END_PADDING;
	/* The uverbs ABI: the 32-bit field carries the low bits. */
	attr->device_cap_flags_ex |= a->device_cap_flags;

	a->vendor_part_id = device_part_id(pctx);
	a->hw_ver = pci_sysfs_value(pctx, "revision");
	a->max_mr_size = ~UINT64_C(0);
	a->page_size_cap = ~((UINT64_C(1) << PROV_CAP_GEN(pctx, log_pg_sz)) - 1);
	a->max_qp = 1 << PROV_CAP_GEN(pctx, log_max_qp);
	a->max_qp_wr = 1 << PROV_CAP_GEN(pctx, log_max_qp_sz);
	max_rq_sg = PROV_CAP_GEN(pctx, max_wqe_sz_rq) / PROV_WQE_DATA_SEG;
	max_sq_desc = PROV_CAP_GEN(pctx, max_wqe_sz_sq);
	if (max_sq_desc > 512)
		max_sq_desc = 512;
	max_sq_sg = max_sq_desc >= PROV_WQE_CTRL_SEG + PROV_WQE_RADDR_SEG ?
		    (max_sq_desc - PROV_WQE_CTRL_SEG - PROV_WQE_RADDR_SEG) /
		    PROV_WQE_DATA_SEG : 0;
	/* uverbs: max_sge = min(max_send_sge, max_recv_sge). */
	a->max_sge = max_sq_sg < max_rq_sg ? max_sq_sg : max_rq_sg;
	a->max_sge_rd = PROV_MAX_SGE_RD;
	a->max_cq = 1 << PROV_CAP_GEN(pctx, log_max_cq);
	a->max_cqe = (1 << PROV_CAP_GEN(pctx, log_max_cq_sz)) - 1;
	a->max_mr = 1 << PROV_CAP_GEN(pctx, log_max_mkey);
	a->max_pd = 1 << PROV_CAP_GEN(pctx, log_max_pd);
	a->max_qp_rd_atom = 1 << PROV_CAP_GEN(pctx, log_max_ra_req_qp);
	a->max_qp_init_rd_atom = 1 << PROV_CAP_GEN(pctx, log_max_ra_res_qp);
	a->max_srq = 1 << PROV_CAP_GEN(pctx, log_max_srq);
	a->max_srq_wr = (1 << PROV_CAP_GEN(pctx, log_max_srq_sz)) - 1;
	a->local_ca_ack_delay = PROV_CAP_GEN(pctx, local_ca_ack_delay);
	a->max_res_rd_atom = a->max_qp_rd_atom * a->max_qp;
	a->max_srq_sge = max_rq_sg ? max_rq_sg - 1 : 0;
	a->atomic_cap = prov_caps_atomic_cap(pctx);
	a->max_mcast_grp = 1 << PROV_CAP_GEN(pctx, log_max_mcg);
	a->max_mcast_qp_attach = PROV_CAP_GEN(pctx, max_qp_mcg);
	a->max_total_mcast_qp_attach = a->max_mcast_qp_attach * a->max_mcast_grp;
	a->max_ah = INT_MAX;
	a->max_pkeys = pkey_table_len(PROV_CAP_GEN(pctx, pkey_table_size));
	num_ports = prov_caps_num_ports(pctx);
	a->phys_port_cnt = num_ports > UINT8_MAX ? UINT8_MAX : num_ports;

	attr->hca_core_clock = PROV_CAP_GEN(pctx, device_frequency_khz);
	attr->completion_timestamp_mask = PROV_TIMESTAMP_MASK;
	fill_odp_caps(pctx, attr);
	if (PROV_CAP_GEN(pctx, tag_matching)) {
		attr->tm_caps.max_num_tags =
			(1 << PROV_CAP_GEN(pctx, log_tag_matching_list_sz)) - 1;
		attr->tm_caps.max_ops = 1 << PROV_CAP_GEN(pctx, log_max_qp_sz);
		attr->tm_caps.max_sge = PROV_TM_MAX_SGE;
		if (PROV_CAP_GEN(pctx, rndv_offload_rc)) {
			attr->tm_caps.flags = IBV_TM_CAP_RC;
			attr->tm_caps.max_rndv_hdr_size = PROV_TM_MAX_RNDV_MSG_SIZE;
		}
	}
	if (PROV_CAP_GEN(pctx, cq_moderation)) {
		attr->cq_mod_caps.max_cq_count = PROV_MAX_CQ_COUNT;
		attr->cq_mod_caps.max_cq_period = PROV_MAX_CQ_PERIOD;
	}

	/* What libmlx5 adds from its mlx5 response and its own queries. */
	prov_query_device_resp(pctx, &resp);
	attr->tso_caps = resp.tso_caps;
	attr->rss_caps.rx_hash_fields_mask = resp.rx_hash_fields_mask;
	attr->rss_caps.rx_hash_function = resp.rx_hash_function;
	attr->packet_pacing_caps = resp.packet_pacing_caps;
	fill_pci_atomic_caps(pctx, attr);
	attr->phys_port_cnt_ex = sysfs_num_ports(pctx, a->phys_port_cnt);
	return 0;
}

/* Copies @field when the caller's attr_size covers it (CAN_COPY). */
#define COPY_EX(field)                                                         \
	do {                                                                   \
		if (attr_size >= PROV_OFFSETOFEND(struct ibv_device_attr_ex, field)) \
			memcpy(&attr->field, &full.field, sizeof(attr->field)); \
	} while (0)

int prov_query_device_ex(struct ibv_context *ctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex full;
	int ret;

	if (input && input->comp_mask)
		return EINVAL;
	if (attr_size < sizeof(attr->orig_attr))
		return EINVAL;
	ret = prov_query_device_attr(to_prov_context(ctx), &full);
	if (ret)
		return ret;
	memset(attr, 0, attr_size);
	attr->orig_attr = full.orig_attr;
	COPY_EX(odp_caps);
	COPY_EX(completion_timestamp_mask);
	COPY_EX(hca_core_clock);
	COPY_EX(device_cap_flags_ex);
	COPY_EX(tso_caps);
	COPY_EX(rss_caps);
	COPY_EX(max_wq_type_rq);
	COPY_EX(packet_pacing_caps);
	COPY_EX(raw_packet_caps);
	COPY_EX(tm_caps);
	COPY_EX(cq_mod_caps);
	COPY_EX(max_dm_size);
	COPY_EX(pci_atomic_caps);
	COPY_EX(xrc_odp_caps);
	COPY_EX(phys_port_cnt_ex);
	return 0;
}

#undef COPY_EX

MLX5EMU_ABI(ibv_query_device);
int mlx5emu_abi_ibv_query_device(struct ibv_context *context,
				 struct ibv_device_attr *device_attr)
{
	if (prov_mana_is(context))
		return prov_mana_query_device(context, device_attr);
	/* libibverbs: the op with the legacy size. */
	return prov_query_device_ex(context, NULL,
				    (struct ibv_device_attr_ex *)device_attr,
				    sizeof(*device_attr));
}

void prov_query_set_ops(struct prov_context *pctx)
{
	pctx->vctx.query_device_ex = prov_query_device_ex;
	pctx->vctx.query_port = prov_query_port_op;
	pctx->vctx.query_rt_values = prov_query_rt_values;
}
