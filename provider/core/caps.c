/* SPDX-License-Identifier: MIT */
/*
 * Reading and caching the capability pages of a context (see caps.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "provider/core/caps.h"
#include "provider/core/context.h"

/* MLX5_CQE_VERSION_V1: what libmlx5 44 asks for as max_cqe_version. */
#define PROV_CQE_VERSION_V1 1

static const uint8_t prov_zero_page[PROV_CAP_PAGE_BYTES];

int prov_caps_query_page(const struct mlx5be_ops *be, struct mlx5be_ctx *bectx,
			 unsigned int type, unsigned int mode, void *page)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t *out;
	int ret;

	out = calloc(1, PRM_ST_SZ_BYTES(query_hca_cap_out));
	if (!out)
		return ENOMEM;
	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, (type << 1) | (mode & 1));
	ret = -be->general_cmd(bectx, in, sizeof(in), out,
			       PRM_ST_SZ_BYTES(query_hca_cap_out));
	if (!ret)
		memcpy(page, PRM_ADDR_OF(query_hca_cap_out, out, capability),
		       PROV_CAP_PAGE_BYTES);
	free(out);
	return ret;
}

/*
 * Which pages to fetch once the general page is known: the gates of the
 * kernel's mlx5_query_hca_caps() (drivers/net/ethernet/mellanox/mlx5/core/
 * main.c), for the page types prm/ names.
 */
static bool gate_hca_cap_2(const void *g) { return PRM_GET(cmd_hca_cap, g, hca_cap_2); }
static bool gate_port_selection(const void *g) { return PRM_GET(cmd_hca_cap, g, port_selection_cap); }
static bool gate_eth(const void *g) { return PRM_GET(cmd_hca_cap, g, eth_net_offloads); }
static bool gate_ipoib_enh(const void *g) { return PRM_GET(cmd_hca_cap, g, ipoib_enhanced_offloads); }
static bool gate_odp(const void *g) { return PRM_GET(cmd_hca_cap, g, pg); }
static bool gate_atomic(const void *g) { return PRM_GET(cmd_hca_cap, g, atomic); }
static bool gate_roce(const void *g) { return PRM_GET(cmd_hca_cap, g, roce); }
static bool gate_flow_table(const void *g)
{
	return PRM_GET(cmd_hca_cap, g, nic_flow_table) ||
	       PRM_GET(cmd_hca_cap, g, ipoib_enhanced_offloads);
}
static bool gate_eswitch(const void *g) { return PRM_GET(cmd_hca_cap, g, eswitch_manager); }
static bool gate_qos(const void *g) { return PRM_GET(cmd_hca_cap, g, qos); }
static bool gate_debug(const void *g) { return PRM_GET(cmd_hca_cap, g, debug); }
static bool gate_dev_mem(const void *g) { return PRM_GET(cmd_hca_cap, g, device_memory); }
static bool gate_dev_event(const void *g) { return PRM_GET(cmd_hca_cap, g, event_cap); }
static bool gate_tls(const void *g)
{
	return PRM_GET(cmd_hca_cap, g, tls_tx) || PRM_GET(cmd_hca_cap, g, tls_rx);
}
static bool gate_vdpa(const void *g)
{
	return PRM_GET64(cmd_hca_cap, g, general_obj_types) &
	       (UINT64_C(1) << MLX5_OBJ_TYPE_VIRTIO_NET_Q);
}
static bool gate_ipsec(const void *g) { return PRM_GET(cmd_hca_cap, g, ipsec_offload); }
static bool gate_crypto(const void *g) { return PRM_GET(cmd_hca_cap, g, crypto); }
static bool gate_shampo(const void *g) { return PRM_GET(cmd_hca_cap, g, shampo); }
static bool gate_macsec(const void *g)
{
	return PRM_GET64(cmd_hca_cap, g, general_obj_types) &
	       (UINT64_C(1) << MLX5_GENERAL_OBJECT_TYPES_MACSEC);
}
static bool gate_adv_virt(const void *g) { return PRM_GET(cmd_hca_cap, g, adv_virtualization); }

static const struct {
	unsigned int type;
	bool (*gate)(const void *general);
} prov_cap_pages[] = {
	{ MLX5_CAP_PORT_SELECTION, gate_port_selection },
	{ MLX5_CAP_GENERAL_2, gate_hca_cap_2 },
	{ MLX5_CAP_ETHERNET_OFFLOADS, gate_eth },
	{ MLX5_CAP_IPOIB_ENHANCED_OFFLOADS, gate_ipoib_enh },
	{ MLX5_CAP_ODP, gate_odp },
	{ MLX5_CAP_ATOMIC, gate_atomic },
	{ MLX5_CAP_ROCE, gate_roce },
	{ MLX5_CAP_FLOW_TABLE, gate_flow_table },
	{ MLX5_CAP_ESWITCH_FLOW_TABLE, gate_eswitch },
	{ MLX5_CAP_ESWITCH, gate_eswitch },
	{ MLX5_CAP_QOS, gate_qos },
	{ MLX5_CAP_DEBUG, gate_debug },
	{ MLX5_CAP_DEV_MEM, gate_dev_mem },
	{ MLX5_CAP_DEV_EVENT, gate_dev_event },
	{ MLX5_CAP_TLS, gate_tls },
	{ MLX5_CAP_VDPA_EMULATION, gate_vdpa },
	{ MLX5_CAP_IPSEC, gate_ipsec },
	{ MLX5_CAP_CRYPTO, gate_crypto },
	{ MLX5_CAP_SHAMPO, gate_shampo },
	{ MLX5_CAP_MACSEC, gate_macsec },
	{ MLX5_CAP_ADV_VIRTUALIZATION, gate_adv_virt },
};

static uint8_t *fetch_page(struct prov_context *pctx, unsigned int type, int *err)
{
	uint8_t *page = malloc(PROV_CAP_PAGE_BYTES);

	*err = page ? prov_caps_query_page(pctx->be, pctx->bectx, type,
					   HCA_CAP_OPMOD_GET_CUR, page) : ENOMEM;
	if (*err) {
		free(page);
		return NULL;
	}
	return page;
}

int prov_caps_init(struct prov_context *pctx)
{
	struct prov_caps *caps = calloc(1, sizeof(*caps));
	const void *general;
	int ret;

	if (!caps)
		return ENOMEM;
	caps->cur[MLX5_CAP_GENERAL] = fetch_page(pctx, MLX5_CAP_GENERAL, &ret);
	if (!caps->cur[MLX5_CAP_GENERAL]) {
		free(caps);
		return ret;
	}
	general = caps->cur[MLX5_CAP_GENERAL];
	for (size_t i = 0; i < sizeof(prov_cap_pages) / sizeof(prov_cap_pages[0]); i++) {
		unsigned int type = prov_cap_pages[i].type;

		if (!prov_cap_pages[i].gate(general))
			continue;
		/* A page the device does not answer stays absent (zeroes). */
		caps->cur[type] = fetch_page(pctx, type, &ret);
		if (!caps->cur[type] && ret == ENOMEM) {
			pctx->caps = caps;
			prov_caps_fini(pctx);
			return ret;
		}
	}
	pctx->caps = caps;
	return 0;
}

void prov_caps_fini(struct prov_context *pctx)
{
	struct prov_caps *caps = pctx->caps;

	if (!caps)
		return;
	for (unsigned int i = 0; i < MLX5_CAP_NUM; i++)
		free(caps->cur[i]);
	free(caps);
	pctx->caps = NULL;
}

const void *prov_caps_get(struct prov_context *pctx, unsigned int type)
{
	if (!pctx->caps || type >= MLX5_CAP_NUM)
		return NULL;
	return pctx->caps->cur[type];
}

const void *prov_caps_page(struct prov_context *pctx, unsigned int type)
{
	const void *page = prov_caps_get(pctx, type);

	return page ? page : prov_zero_page;
}

unsigned int prov_caps_num_ports(struct prov_context *pctx)
{
	unsigned int n = PROV_CAP_GEN(pctx, num_ports);
	unsigned int vhca = PROV_CAP_GEN(pctx, num_vhca_ports);

	return n > vhca ? n : vhca;
}

unsigned int prov_caps_cqe_version(struct prov_context *pctx)
{
	unsigned int v = PROV_CAP_GEN(pctx, cqe_version);

	return v < PROV_CQE_VERSION_V1 ? v : PROV_CQE_VERSION_V1;
}

unsigned int prov_caps_atomic_cap(struct prov_context *pctx)
{
	unsigned int ops = PROV_CAP_ATOMIC(pctx, atomic_operations);
	unsigned int want = PROV_ATOMIC_OPS_CMP_SWAP | PROV_ATOMIC_OPS_FETCH_ADD;

	if ((ops & want) == want &&
	    (PROV_CAP_ATOMIC(pctx, atomic_size_qp) & PROV_ATOMIC_SIZE_QP_8BYTES) &&
	    PROV_CAP_ATOMIC(pctx, atomic_req_8B_endianness_mode))
		return IBV_ATOMIC_HCA;
	return IBV_ATOMIC_NONE;
}

bool prov_caps_mem_mgt_ext(struct prov_context *pctx)
{
	return !PROV_CAP_GEN(pctx, umr_modify_entity_size_disabled);
}

bool prov_caps_cvlan_strip(struct prov_context *pctx)
{
	return PROV_CAP_GEN(pctx, eth_net_offloads) && PROV_CAP_ETH(pctx, vlan_cap);
}

bool prov_caps_flow_steering(struct prov_context *pctx)
{
	return PROV_CAP_GEN(pctx, port_type) == MLX5_CAP_PORT_TYPE_ETH &&
	       PROV_CAP_GEN(pctx, nic_flow_table) &&
	       prov_caps_get(pctx, MLX5_CAP_FLOW_TABLE);
}

bool prov_caps_ts_fr(unsigned int cap)
{
	return cap == MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING ||
	       cap == MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING_AND_REAL_TIME;
}

bool prov_caps_ts_rt(unsigned int cap)
{
	return cap == MLX5_TIMESTAMP_FORMAT_CAP_REAL_TIME ||
	       cap == MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING_AND_REAL_TIME;
}

bool prov_caps_real_time_ts(struct prov_context *pctx)
{
	return prov_caps_ts_rt(PROV_CAP_GEN(pctx, sq_ts_format)) &&
	       prov_caps_ts_rt(PROV_CAP_GEN(pctx, rq_ts_format)) &&
	       prov_caps_ts_rt(PROV_CAP_ROCE(pctx, qp_ts_format));
}
