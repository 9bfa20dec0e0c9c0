/* SPDX-License-Identifier: MIT */
/*
 * The device's capability pages, read once per context at open.
 *
 * Every verbs and mlx5dv attribute is derived from these pages (and from the
 * port attributes the kernel service gives), as the kernel's mlx5_ib and
 * libmlx5 derive them; nothing in the provider hard-codes a device limit.
 *
 * At open the general page is read (QUERY_HCA_CAP, op_mod GENERAL | CUR); it
 * is required.  The other pages are read when the general page advertises
 * them, with the gates of the kernel's mlx5_query_hca_caps(); a page the
 * device does not answer is left absent.  An absent page reads as zeroes
 * through prov_caps_page(), as MLX5_CAP_*() does in the kernel for a page it
 * never fetched.
 */
#ifndef MLX5EMU_PROVIDER_CORE_CAPS_H
#define MLX5EMU_PROVIDER_CORE_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "backend/backend.h"

struct prov_context;

/* One capability page: the capability field of query_hca_cap_out. */
#define PROV_CAP_PAGE_BYTES PRM_ST_SZ_BYTES(hca_cap_union)

struct prov_caps {
	uint8_t *cur[MLX5_CAP_NUM];	/* NULL: not advertised or not answered */
};

/* Area hooks (context_ops.c): read the pages at open, free them at close. */
int prov_caps_init(struct prov_context *pctx);
void prov_caps_fini(struct prov_context *pctx);

/* The cached current page of @type, or NULL if the device has none. */
const void *prov_caps_get(struct prov_context *pctx, unsigned int type);

/* The same, or a page of zeroes when absent (for field reads). */
const void *prov_caps_page(struct prov_context *pctx, unsigned int type);

/*
 * Reads one page from the device: QUERY_HCA_CAP with op_mod
 * (type << 1) | mode into @page (PROV_CAP_PAGE_BYTES).  Returns 0 or an
 * errno (EREMOTEIO for a firmware status).  Used at open and by
 * the few queries that libmlx5 issues itself each time (dc_odp_caps,
 * pci_atomic_caps).
 */
int prov_caps_query_page(const struct mlx5be_ops *be, struct mlx5be_ctx *bectx,
			 unsigned int type, unsigned int mode, void *page);

/* Field reads, 0 for an absent page: PROV_CAP_GEN(pctx, log_max_qp). */
#define PROV_CAP_GEN(pctx, fld) \
	PRM_GET(cmd_hca_cap, prov_caps_page(pctx, MLX5_CAP_GENERAL), fld)
#define PROV_CAP_GEN64(pctx, fld) \
	PRM_GET64(cmd_hca_cap, prov_caps_page(pctx, MLX5_CAP_GENERAL), fld)
#define PROV_CAP_GEN_2(pctx, fld) \
	PRM_GET(cmd_hca_cap_2, prov_caps_page(pctx, MLX5_CAP_GENERAL_2), fld)
#define PROV_CAP_ETH(pctx, fld) \
	PRM_GET(per_protocol_networking_offload_caps, \
		prov_caps_page(pctx, MLX5_CAP_ETHERNET_OFFLOADS), fld)
#define PROV_CAP_ROCE(pctx, fld) \
	PRM_GET(roce_cap, prov_caps_page(pctx, MLX5_CAP_ROCE), fld)
#define PROV_CAP_ATOMIC(pctx, fld) \
	PRM_GET(atomic_caps, prov_caps_page(pctx, MLX5_CAP_ATOMIC), fld)
#define PROV_CAP_ODP(pctx, fld) \
	PRM_GET(odp_cap, prov_caps_page(pctx, MLX5_CAP_ODP), fld)

/*
 * Small derivations several areas share.
 */

/* ib_dev->phys_port_cnt: max(num_ports, num_vhca_ports) (mlx5_ib_add). */
unsigned int prov_caps_num_ports(struct prov_context *pctx);

/* The context's CQE version: min(cqe_version cap, MLX5_CQE_VERSION_V1),
 * as the kernel answers libmlx5's max_cqe_version request. */
unsigned int prov_caps_cqe_version(struct prov_context *pctx);

/* atomic_caps.atomic_operations bits (kernel include/linux/mlx5/device.h). */
enum {
	PROV_ATOMIC_OPS_CMP_SWAP = 1 << 0,
	PROV_ATOMIC_OPS_FETCH_ADD = 1 << 1,
};

/* atomic_caps.atomic_size_qp: 8-byte operands (mlx5_ib main.c). */
#define PROV_ATOMIC_SIZE_QP_8BYTES (1 << 3)

/* IBV_ATOMIC_HCA when the device does 8-byte CAS and FAA with host-endian
 * responses (get_atomic_caps() in mlx5_ib main.c), else IBV_ATOMIC_NONE. */
unsigned int prov_caps_atomic_cap(struct prov_context *pctx);

/* The memory management extensions (IB_DEVICE_MEM_MGT_EXTENSIONS: send
 * with invalidate, local invalidation, fast registration), as mlx5_ib
 * derives them. */
bool prov_caps_mem_mgt_ext(struct prov_context *pctx);

/* Customer VLAN stripping on raw packet QPs (IBV_RAW_PACKET_CAP_CVLAN_
 * STRIPPING), and flow steering (IB_DEVICE_MANAGED_FLOW_STEERING: mlx5_ib
 * sets it when its NIC RX bypass namespace exists, an Ethernet port with
 * nic_flow_table and a flow-table page). */
bool prov_caps_cvlan_strip(struct prov_context *pctx);
bool prov_caps_flow_steering(struct prov_context *pctx);

/* A ts_format capability (MLX5_TIMESTAMP_FORMAT_CAP_*) offers free-running
 * or real-time stamps (mlx5_ib's fr_supported(), rt_supported()). */
bool prov_caps_ts_fr(unsigned int cap);
bool prov_caps_ts_rt(unsigned int cap);
/* Real-time stamps on every queue: mlx5_ib's REAL_TIME_TS answer to the
 * ucontext (sq_ts_format, rq_ts_format and qp_ts_format all offer it). */
bool prov_caps_real_time_ts(struct prov_context *pctx);

#endif /* MLX5EMU_PROVIDER_CORE_CAPS_H */
