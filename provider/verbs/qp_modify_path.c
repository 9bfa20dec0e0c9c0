/* SPDX-License-Identifier: MIT */
/*
 * The address paths and access bits of a QP transition (qp_modify.c), as
 * the upstream kernel builds them for RoCE: ib_core's checks of an AV
 * (rdma_fill_sgid_attr: a GRH, an sgid_index within the table, a GID
 * that is there; ib_resolve_eth_dmac for connected QPs, through the
 * backend's GID-to-L2 service) and mlx5_ib's mlx5_set_path(): source GID
 * index, destination GID and MAC, hop limit, traffic class, flow label,
 * DSCP (RoCE v2), priority, static rate (ib_rate_to_mlx5) and, for
 * RC/UC/XRC with a RoCE v2 source GID and a destination QPN, the UDP
 * source port from the flow label (rdma_calc_flow_label of both QPNs
 * when it is 0); and set_qpc_atomic_flags().
 */
#include <errno.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/query.h"
#include "provider/verbs/verbs_ctx.h"

static bool is_connected(enum ibv_qp_type t)
{
	return t == IBV_QPT_RC || t == IBV_QPT_UC || t == IBV_QPT_XRC_SEND ||
	       t == IBV_QPT_XRC_RECV;
}

/* rdma_calc_flow_label() and rdma_flow_label_to_udp_sport(). */
static uint32_t calc_flow_label(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;

	v ^= v >> 20;
	v ^= v >> 40;
	return (uint32_t)(v & IB_GRH_FLOWLABEL_MASK);
}

static uint16_t flow_label_to_udp_sport(uint32_t fl)
{
	uint32_t fl_low = fl & 0x03fff, fl_high = fl & 0xFC000;

	fl_low ^= fl_high >> 14;
	return (uint16_t)(fl_low | IB_ROCE_UDP_ENCAP_VALID_PORT_MIN);
}

/* ib_rate_to_mlx5(): *code 0 for the port's rate, else the nearest
 * supported; 0 or EINVAL. */
static int rate_to_mlx5(struct prov_context *pctx, enum ibv_rate rate,
			uint32_t *stat_rate)
{
	uint32_t support = PROV_CAP_GEN(pctx, stat_rate_support);
	int r = (int)rate;

	*stat_rate = 0;
	if (rate == IBV_RATE_MAX)
		return 0;
	if (r < IBV_RATE_2_5_GBPS || r > IBV_RATE_800_GBPS)
		return EINVAL;
	/* ib_to_mlx5_rate_map(): a few rates have their own codes. */
	while (r != IBV_RATE_MAX) {
		int code;

		switch (r) {
		case IBV_RATE_56_GBPS:
			code = 1;
			break;
		case IBV_RATE_25_GBPS:
			code = 2;
			break;
		case IBV_RATE_100_GBPS:
			code = 3;
			break;
		case IBV_RATE_200_GBPS:
			code = 4;
			break;
		case IBV_RATE_50_GBPS:
			code = 5;
			break;
		case IBV_RATE_400_GBPS:
			code = 6;
			break;
		default:
			code = r + MLX5_STAT_RATE_OFFSET;
			break;
		}
		if ((1u << code) & support) {
			*stat_rate = (uint32_t)code;
			return 0;
		}
		--r;
	}
	return 0;
}

/* The source GID's RoCE type: 0 v1, 1 v2; or an errno (ENODATA empty). */
static int qp_sgid_type(struct prov_context *pctx, uint8_t port,
			uint8_t index, bool *v2)
{
	struct ibv_gid_entry e;
	int ret = prov_query_gid_entry(pctx, port, index, &e);

	if (ret)
		return ret;
	*v2 = e.gid_type == IBV_GID_TYPE_ROCE_V2;
	return 0;
}

/*
 * ib_core's checks of an AV (rdma_fill_sgid_attr, ib_resolve_eth_dmac)
 * and mlx5_set_path(); @mac is the destination MAC resolved before.
 */
int prov_qp_set_path(struct prov_qp *qp, const struct ibv_ah_attr *ah,
		     void *path, uint8_t port, uint32_t mask,
		     const struct ibv_qp_attr *attr, bool alt,
		     const uint8_t mac[6], bool v2)
{
	struct prov_context *pctx = qp->pctx;
	enum ibv_qp_type t = qp->vqp.qp.qp_type;
	uint32_t rate;
	int ret;

	if (mask & IBV_QP_PKEY_INDEX)
		PRM_SET(ads, path, pkey_index,
			alt ? attr->alt_pkey_index : attr->pkey_index);
	/* RoCE: the GRH is checked by ib_core already. */
	memcpy(PRM_ADDR_OF(ads, path, rmac_47_32), mac, 6);
	if (is_connected(t) && v2 && (mask & IBV_QP_DEST_QPN)) {
		uint32_t fl = ah->grh.flow_label & IB_GRH_FLOWLABEL_MASK;

		if (!fl)
			fl = calc_flow_label(qp->vqp.qp.qp_num, attr->dest_qp_num);
		PRM_SET(ads, path, udp_sport, flow_label_to_udp_sport(fl));
	}
	PRM_SET(ads, path, eth_prio, ah->sl & 0x7);
	if (v2)
		PRM_SET(ads, path, dscp, ah->grh.traffic_class >> 2);
	PRM_SET(ads, path, src_addr_index, ah->grh.sgid_index);
	PRM_SET(ads, path, hop_limit, ah->grh.hop_limit);
	PRM_SET(ads, path, tclass, ah->grh.traffic_class);
	PRM_SET(ads, path, flow_label, ah->grh.flow_label);
	memcpy(PRM_ADDR_OF(ads, path, rgid_rip), ah->grh.dgid.raw, 16);
	ret = rate_to_mlx5(pctx, ah->static_rate, &rate);
	if (ret)
		return ret;
	PRM_SET(ads, path, stat_rate, rate);
	PRM_SET(ads, path, vhca_port_num, port);
	if (mask & IBV_QP_TIMEOUT)
		PRM_SET(ads, path, ack_timeout,
			alt ? attr->alt_timeout : attr->timeout);
	return 0;
}

/* rdma_fill_sgid_attr() and, for connected QPs, ib_resolve_eth_dmac(). */
int prov_qp_check_av(struct prov_qp *qp, const struct ibv_ah_attr *ah,
		     uint8_t mac[6], bool *v2)
{
	struct prov_context *pctx = qp->pctx;
	struct ibv_port_attr pa;
	uint16_t vlan;
	int ret;

	memset(mac, 0, 6);
	*v2 = false;
	if (ah->port_num < 1 || ah->port_num > prov_caps_num_ports(pctx))
		return EINVAL;
	memset(&pa, 0, sizeof(pa));
	ret = prov_query_port(pctx, ah->port_num, &pa);
	if (ret)
		return ret;
	if (pa.link_layer != IBV_LINK_LAYER_ETHERNET)
		return EOPNOTSUPP;
	/* RoCE AVs carry a GRH. */
	if (!ah->is_global)
		return EINVAL;
	if (ah->grh.sgid_index >= pa.gid_tbl_len)
		return EINVAL;
	ret = qp_sgid_type(pctx, ah->port_num, ah->grh.sgid_index, v2);
	if (ret)
		return ret;
	if (!is_connected(qp->vqp.qp.qp_type))
		return 0;
	ret = pctx->be->gid_l2_addr(pctx->bectx, ah->port_num,
				    ah->grh.sgid_index, ah->grh.dgid.raw, mac,
				    &vlan);
	return ret < 0 ? -ret : ret;
}

/* get_atomic_mode(): whether the device has the IB-compatible 8-byte
 * mode (MLX5_QPC_ATOMIC_MODE_IB_SPEC). */
static bool qp_atomic_mode_ib(struct prov_context *pctx)
{
	unsigned int ops = PROV_CAP_ATOMIC(pctx, atomic_operations);

	return PROV_CAP_GEN(pctx, atomic) && (ops & PROV_ATOMIC_OPS_CMP_SWAP) &&
	       (ops & PROV_ATOMIC_OPS_FETCH_ADD);
}

/* set_qpc_atomic_flags(). */
int prov_qp_set_access(struct prov_qp *qp, const struct ibv_qp_attr *attr,
		       uint32_t mask, void *qpc)
{
	uint32_t dest_rd_atomic = (mask & IBV_QP_MAX_DEST_RD_ATOMIC) ?
				  attr->max_dest_rd_atomic : qp->resp_depth;
	uint32_t access = (mask & IBV_QP_ACCESS_FLAGS) ? attr->qp_access_flags :
							  qp->atomic_rd_en;

	if (!dest_rd_atomic)
		access &= IBV_ACCESS_REMOTE_WRITE;
	PRM_SET(qpc, qpc, rre, !!(access & IBV_ACCESS_REMOTE_READ));
	if (access & IBV_ACCESS_REMOTE_ATOMIC) {
		if (!qp_atomic_mode_ib(qp->pctx))
			return EOPNOTSUPP;
		PRM_SET(qpc, qpc, rae, 1);
		PRM_SET(qpc, qpc, atomic_mode, MLX5_QPC_ATOMIC_MODE_IB_SPEC);
	}
	PRM_SET(qpc, qpc, rwe, !!(access & IBV_ACCESS_REMOTE_WRITE));
	return 0;
}
