/* SPDX-License-Identifier: MIT */
/*
 * Address handles for RoCE, as libmlx5 44 (mlx5_create_ah) over the
 * upstream kernel (uverbs create_ah: rdma_fill_sgid_attr,
 * ib_resolve_eth_dmac) builds them: the mlx5_wqe_av a UD WQE copies, with
 * the destination MAC the kernel resolves from the destination GID (the
 * backend's GID-to-L2 service), stat_rate from ib_to_mlx5_rate_table, sl,
 * traffic class, hop limit, flow label and sgid index, the GRH bit clear
 * (RoCE frames always carry one) and, for a RoCE v2 source GID, the UDP
 * source port in rlid (from the flow label, else random in
 * [0xC000, 0xFFFF]).
 *
 * ibv_create_ah: NULL + errno
 *   EINVAL   port out of range, is_global 0 on an Ethernet port, sgid_index
 *            past the GID table, a PD being deallocated, a GID without an
 *            L2 address
 *   ENODATA  sgid_index names an empty GID entry (rdma_get_gid_attr)
 * ibv_destroy_ah: 0 (AHs hold no device object).
 * ibv_init_ah_from_wc / ibv_create_ah_from_wc: libibverbs' code path (the
 * GRH's IPv4 or IPv6 header gives the reverse path; the source GID index
 * is found by value and RoCE type).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip.h>
#include <stdlib.h>
#include <string.h>

#include "shell/abi_export.h"
#include "provider/rdma_private.h"
#include "provider/verbs/ah.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/query.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/mana/mana_prov.h"

/* libmlx5's ib_to_mlx5_rate_table (IB spec 1.3 table 224, best effort). */
static const uint8_t ib_to_mlx5_rate[] = {
	0, 0, 7, 8, 9, 10, 11, 12, 13, 14, 15, 11, 13, 15, 0, 9, 15,
	0, 0, 9, 13, 0, 0,
};

static uint8_t ah_rate(enum ibv_rate rate)
{
	if ((unsigned int)rate >= sizeof(ib_to_mlx5_rate))
		return 0;
	return ib_to_mlx5_rate[rate];
}

struct mlx5_wqe_av *prov_ah_av(struct ibv_ah *ah)
{
	return &to_prov_ah(ah)->av;
}

/* mlx5_ah_set_udp_sport(). */
static void ah_set_udp_sport(struct prov_context *pctx, struct prov_ah *ah,
			     const struct ibv_ah_attr *attr)
{
	uint32_t fl = attr->grh.flow_label & IB_GRH_FLOWLABEL_MASK;
	uint16_t sport;

	if (fl)
		sport = ibv_flow_label_to_udp_sport(fl);
	else
		sport = (uint16_t)(prov_random(pctx) %
				   (IB_ROCE_UDP_ENCAP_VALID_PORT_MAX + 1 -
				    IB_ROCE_UDP_ENCAP_VALID_PORT_MIN) +
				   IB_ROCE_UDP_ENCAP_VALID_PORT_MIN);
	ah->av.rlid = htobe16(sport);
}

/* ibv_query_gid_type(): an empty entry reads as IB/RoCE v1. */
static int ah_sgid_is_v2(struct prov_context *pctx, uint8_t port,
			 uint8_t index, bool *v2, bool *empty)
{
	struct ibv_gid_entry entry;
	int ret = prov_query_gid_entry(pctx, port, index, &entry);

	*v2 = false;
	*empty = ret == ENODATA;
	if (ret == ENODATA)
		return 0;
	if (ret)
		return ret;
	*v2 = entry.gid_type == IBV_GID_TYPE_ROCE_V2;
	return 0;
}

static struct ibv_ah *create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	/* libmana has no create_ah: libibverbs' dummy op answers */
	if (prov_mana_is(pd->context))
		return prov_mana_unsupported();
	struct prov_context *pctx = to_prov_context(pd->context);
	struct ibv_port_attr port_attr;
	struct prov_ah *ah;
	uint16_t vlan;
	bool is_eth, v2 = false, empty = false;
	uint8_t rate;
	int err;

	if (attr->port_num < 1 || attr->port_num > prov_caps_num_ports(pctx)) {
		errno = EINVAL;
		return NULL;
	}
	memset(&port_attr, 0, sizeof(port_attr));
	err = prov_query_port(pctx, attr->port_num, &port_attr);
	if (err) {
		errno = err;
		return NULL;
	}
	is_eth = port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	if (!attr->is_global &&
	    (is_eth || (port_attr.flags & IBV_QPF_GRH_REQUIRED))) {
		errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	rate = ah_rate(attr->static_rate);
	if (is_eth) {
		err = ah_sgid_is_v2(pctx, attr->port_num, attr->grh.sgid_index,
				    &v2, &empty);
		if (err)
			goto err;
		if (v2)
			ah_set_udp_sport(pctx, ah, attr);
		ah->av.stat_rate_sl = (uint8_t)(rate << 4 | (attr->sl & 0x7) << 1);
	} else {
		ah->av.fl_mlid = attr->src_path_bits & 0x7f;
		ah->av.rlid = htobe16(attr->dlid);
		ah->av.stat_rate_sl = (uint8_t)(rate << 4 | (attr->sl & 0xf));
	}
	if (attr->is_global) {
		ah->av.tclass = attr->grh.traffic_class;
		ah->av.hop_limit = attr->grh.hop_limit;
		ah->av.grh_gid_fl = htobe32((uint32_t)(is_eth ? 0 : 1) << 30 |
					    (uint32_t)attr->grh.sgid_index << 20 |
					    (attr->grh.flow_label &
					     IB_GRH_FLOWLABEL_MASK));
		memcpy(ah->av.rgid, attr->grh.dgid.raw, 16);
	}
	if (is_eth) {
		/* The kernel's create_ah: the source GID attribute, then the
		 * destination MAC (ib_resolve_eth_dmac). */
		if (empty) {
			err = ENODATA;
			goto err;
		}
		err = -pctx->be->gid_l2_addr(pctx->bectx, attr->port_num,
					     attr->grh.sgid_index,
					     attr->grh.dgid.raw, ah->av.rmac,
					     &vlan);
		if (err)
			goto err;
	}
	err = prov_pd_use(pd);
	if (err)
		goto err;
	ah->is_global = attr->is_global;
	ah->ibah.context = pd->context;
	ah->ibah.pd = pd;
	ah->ibah.handle = prov_handle_alloc(pctx);
	return &ah->ibah;

err:
	free(ah);
	errno = err;
	return NULL;
}

MLX5EMU_ABI(ibv_create_ah);
struct ibv_ah *mlx5emu_abi_ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	if (pd && prov_mana_is(pd->context))
		return prov_mana_unsupported();
	if (!pd || !attr) {
		errno = EINVAL;
		return NULL;
	}
	return create_ah(pd, attr);
}

MLX5EMU_ABI(ibv_destroy_ah);
int mlx5emu_abi_ibv_destroy_ah(struct ibv_ah *ah)
{
	if (ah && prov_mana_is(ah->context))
		return EOPNOTSUPP;
	if (!ah) {
		errno = EINVAL;
		return EINVAL;
	}
	prov_pd_unuse(ah->pd);
	free(to_prov_ah(ah));
	return 0;
}

/*
 * ibv_find_gid_index(): the index of @gid with RoCE type @v2 on @port in
 * *index; 0 or an errno (EINVAL past the table when there is none).
 */
static int ah_find_gid_index(struct ibv_context *context, uint8_t port,
			     const union ibv_gid *gid, bool v2, uint8_t *index)
{
	for (uint32_t i = 0;; i++) {
		struct ibv_gid_entry e;
		int ret = prov_query_gid_entry_any(context, port, i, &e);

		if (ret == ENODATA) {
			memset(&e, 0, sizeof(e));
			e.gid_type = IBV_GID_TYPE_ROCE_V1;
		} else if (ret) {
			return ret;
		}
		if (!memcmp(&e.gid, gid, sizeof(*gid)) &&
		    (e.gid_type == IBV_GID_TYPE_ROCE_V2) == v2) {
			*index = (uint8_t)i;
			return 0;
		}
		if (i >= 255)
			return EINVAL;
	}
}

static void map_ipv4_to_ipv6(uint32_t ipv4_be, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &ipv4_be, 4);
}

static uint16_t ipv4_hdr_csum(const uint16_t *data, unsigned int hwords)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i < hwords; i++)
		sum += data[i];
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* get_grh_header_version(): 4, 6, or -1 + EPROTONOSUPPORT. */
static int grh_version(const struct ibv_grh *grh)
{
	const struct iphdr *ip4 = (const struct iphdr *)((const char *)grh + 20);
	struct iphdr chk;

	if (((be32toh(grh->version_tclass_flow) >> 28) & 0xf) != 6) {
		if (ip4->version == 4)
			return 4;
		errno = EPROTONOSUPPORT;
		return -1;
	}
	if (ip4->ihl != 5)
		return 6;
	memcpy(&chk, ip4, sizeof(chk));
	chk.check = 0;
	chk.check = ipv4_hdr_csum((const uint16_t *)&chk, 10);
	return ip4->check == chk.check ? 4 : 6;
}

MLX5EMU_ABI(ibv_init_ah_from_wc);
int mlx5emu_abi_ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
				    struct ibv_wc *wc, struct ibv_grh *grh,
				    struct ibv_ah_attr *ah_attr)
{
	int version, err;

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->grh.flow_label = be32toh(grh->version_tclass_flow) & 0xfffff;
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;
	ah_attr->is_global = 1;
	version = grh_version(grh);
	if (version == 4) {
		const struct iphdr *ip4 =
			(const struct iphdr *)((const char *)grh + 20);
		union ibv_gid sgid;

		/* No multicast source GIDs in a GID table. */
		if (IN_CLASSD(be32toh(ip4->daddr))) {
			errno = EINVAL;
			return -1;
		}
		map_ipv4_to_ipv6(ip4->daddr, &sgid);
		err = ah_find_gid_index(context, port_num, &sgid, true,
					&ah_attr->grh.sgid_index);
		if (err) {
			errno = err;
			return -1;
		}
		map_ipv4_to_ipv6(ip4->saddr, &ah_attr->grh.dgid);
		ah_attr->grh.hop_limit = ip4->ttl;
		ah_attr->grh.traffic_class = ip4->tos;
		return 0;
	}
	if (version == 6) {
		bool v2;

		if (grh->dgid.raw[0] == 0xff) {
			errno = EINVAL;
			return -1;
		}
		ah_attr->grh.dgid = grh->sgid;
		if (grh->next_hdr == IPPROTO_UDP) {
			v2 = true;
		} else if (grh->next_hdr == 0x1b) {	/* IB_NEXT_HDR */
			v2 = false;
		} else {
			errno = EPROTONOSUPPORT;
			return -1;
		}
		err = ah_find_gid_index(context, port_num, &grh->dgid, v2,
					&ah_attr->grh.sgid_index);
		if (err) {
			errno = err;
			return -1;
		}
		ah_attr->grh.hop_limit = grh->hop_limit;
		ah_attr->grh.traffic_class =
			(be32toh(grh->version_tclass_flow) >> 20) & 0xff;
		return 0;
	}
	return -1;
}

MLX5EMU_ABI(ibv_create_ah_from_wc);
struct ibv_ah *mlx5emu_abi_ibv_create_ah_from_wc(struct ibv_pd *pd,
						 struct ibv_wc *wc,
						 struct ibv_grh *grh,
						 uint8_t port_num)
{
	struct ibv_ah_attr ah_attr;

	if (!pd) {
		errno = EINVAL;
		return NULL;
	}
	if (mlx5emu_abi_ibv_init_ah_from_wc(pd->context, port_num, wc, grh,
					    &ah_attr))
		return NULL;
	return create_ah(pd, &ah_attr);
}
