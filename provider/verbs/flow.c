/* SPDX-License-Identifier: MIT */
/*
 * ibv_create_flow and ibv_destroy_flow, as rdma-core 44 (libibverbs'
 * inline wrappers and ibv_cmd_create_flow, libmlx5 mlx5_create_flow) over
 * the upstream kernel (ib_uverbs_ex_create_flow, mlx5_ib_create_flow and
 * its parse_flow_attr in drivers/infiniband/hw/mlx5/fs.c) behave.
 *
 * The specs become one fte_match_param mask and value, field by field as
 * parse_flow_attr writes them; the rule goes to the kernel's NIC receive
 * root through the backend (steering_root_attach), forwarding to the QP's
 * TIR, or dropping, with the flow tag the specs ask for.  The priority is
 * mlx5_ib's bypass priority: 2 * priority + 1 (2 * priority with
 * IBV_FLOW_ATTR_FLAGS_DONT_TRAP), and a rule that can only match multicast
 * (its first spec an Ethernet multicast destination or an IPv4 multicast
 * address) goes to the multicast priority after all others.
 *
 * Errors (NULL + errno; ibv_destroy_flow returns the errno):
 *   EINVAL      comp_mask; flags other than DONT_TRAP; more than 10
 *               specs; a spec whose size is not its type's; an unknown
 *               spec type; two specs setting different IP protocols; an
 *               ethertype that contradicts an IP spec (is_valid_attr); a
 *               QP that is neither a raw packet nor an RSS QP; a port
 *               past the device's; a flow tag of 24 bits or more
 *   EOPNOTSUPP  a mask bit past the last field mlx5_ib supports for the
 *               spec (IPv4 ttl/flags, IPv6 hop limit); attribute types
 *               other than NORMAL; ESP, GRE, MPLS and counter specs,
 *               which this device does not advertise
 *   ENOMEM      a priority past the last regular bypass priority (15)
 *   EPERM       a process without CAP_NET_RAW (uverbs)
 *   firmware    what the steering commands answer
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/core/error.h"
#include "provider/verbs/flow.h"
#include "provider/verbs/qp.h"

#define FLOW_MAX_SPECS 10		/* IB_FLOW_SPEC_SUPPORT_LAYERS */
#define FLOW_MCAST_PRIO 32		/* MLX5_IB_FLOW_MCAST_PRIO */

struct prov_flow {
	struct ibv_flow ibflow;
	struct mlx5be_obj *rule;
	atomic_int *uses;	/* its mlx5dv matcher's count, or NULL */
};

/* The rule being built: mask and value, and what the specs ask. */
struct flow_build {
	uint8_t mask[PRM_ST_SZ_BYTES(fte_match_param)];
	uint8_t value[PRM_ST_SZ_BYTES(fte_match_param)];
	struct mlx5be_flow_act act;
	bool drop;
	bool match_ipv;		/* ft_field_support.outer_ip_version */
};

/* ft_field_support.outer_ip_version of the NIC receive tables: mlx5_ib
 * matches an IP spec by version then, else by ethertype. */
static bool flow_match_ip_version(struct prov_context *pctx)
{
	return PRM_GET(flow_table_nic_cap,
		       prov_caps_page(pctx, MLX5_CAP_FLOW_TABLE),
		       flow_table_properties_nic_receive.ft_field_support.outer_ip_version);
}

/* Whether bytes [from, end) of a spec's mask are zero: a field past the
 * last one mlx5_ib supports must not be asked for. */
static bool flow_rest_zero(const void *mask, size_t from, size_t end)
{
	const uint8_t *p = mask;

	for (size_t i = from; i < end; i++)
		if (p[i])
			return false;
	return true;
}

#define FLOW_UNSUPPORTED(filter, last)                                       \
	(!flow_rest_zero(&(filter), offsetof(__typeof__(filter), last) +      \
			 sizeof((filter).last), sizeof(filter)))

static void *flow_hdrs(uint8_t *param, bool inner)
{
	return inner ? PRM_ADDR_OF(fte_match_param, param, inner_headers) :
		       PRM_ADDR_OF(fte_match_param, param, outer_headers);
}

/* set_proto: an IP protocol already set stays, unless it is the same. */
static int flow_set_proto(void *hc, void *hv, uint8_t mask, uint8_t val)
{
	uint8_t em = PRM_GET(fte_match_set_lyr_2_4, hc, ip_protocol);
	uint8_t ev = PRM_GET(fte_match_set_lyr_2_4, hv, ip_protocol);

	if (!mask)
		return 0;
	if (!em) {
		PRM_SET(fte_match_set_lyr_2_4, hc, ip_protocol, mask);
		PRM_SET(fte_match_set_lyr_2_4, hv, ip_protocol, val);
		return 0;
	}
	return mask == em && val == ev ? 0 : EINVAL;
}

static void flow_set_tos(void *hc, void *hv, uint8_t mask, uint8_t val)
{
	PRM_SET(fte_match_set_lyr_2_4, hc, ip_ecn, mask);
	PRM_SET(fte_match_set_lyr_2_4, hv, ip_ecn, val);
	PRM_SET(fte_match_set_lyr_2_4, hc, ip_dscp, mask >> 2);
	PRM_SET(fte_match_set_lyr_2_4, hv, ip_dscp, val >> 2);
}

static void flow_set_ipv(struct flow_build *b, void *hc, void *hv,
			 unsigned int version, uint16_t ethertype)
{
	if (b->match_ipv) {
		PRM_SET(fte_match_set_lyr_2_4, hc, ip_version, 0xf);
		PRM_SET(fte_match_set_lyr_2_4, hv, ip_version, version);
	} else {
		PRM_SET(fte_match_set_lyr_2_4, hc, ethertype, 0xffff);
		PRM_SET(fte_match_set_lyr_2_4, hv, ethertype, ethertype);
	}
}

static void flow_set_mac(void *h, const uint8_t mac[6], bool dst)
{
	memcpy(dst ? PRM_ADDR_OF(fte_match_set_lyr_2_4, h, dmac_47_16) :
		     PRM_ADDR_OF(fte_match_set_lyr_2_4, h, smac_47_16), mac, 6);
}

static int flow_eth(struct flow_build *b, const struct ibv_flow_spec_eth *s,
		    bool inner)
{
	void *hc = flow_hdrs(b->mask, inner), *hv = flow_hdrs(b->value, inner);
	uint16_t vm = ntohs(s->mask.vlan_tag), vv = ntohs(s->val.vlan_tag);

	if (FLOW_UNSUPPORTED(s->mask, vlan_tag))
		return EOPNOTSUPP;
	flow_set_mac(hc, s->mask.dst_mac, true);
	flow_set_mac(hv, s->val.dst_mac, true);
	flow_set_mac(hc, s->mask.src_mac, false);
	flow_set_mac(hv, s->val.src_mac, false);
	if (vm) {
		PRM_SET(fte_match_set_lyr_2_4, hc, cvlan_tag, 1);
		PRM_SET(fte_match_set_lyr_2_4, hv, cvlan_tag, 1);
		PRM_SET(fte_match_set_lyr_2_4, hc, first_vid, vm);
		PRM_SET(fte_match_set_lyr_2_4, hv, first_vid, vv);
		PRM_SET(fte_match_set_lyr_2_4, hc, first_cfi, vm >> 12);
		PRM_SET(fte_match_set_lyr_2_4, hv, first_cfi, vv >> 12);
		PRM_SET(fte_match_set_lyr_2_4, hc, first_prio, vm >> 13);
		PRM_SET(fte_match_set_lyr_2_4, hv, first_prio, vv >> 13);
	}
	PRM_SET(fte_match_set_lyr_2_4, hc, ethertype, ntohs(s->mask.ether_type));
	PRM_SET(fte_match_set_lyr_2_4, hv, ethertype, ntohs(s->val.ether_type));
	return 0;
}

static int flow_ipv4(struct flow_build *b,
		     const struct ibv_flow_spec_ipv4_ext *s, bool inner)
{
	void *hc = flow_hdrs(b->mask, inner), *hv = flow_hdrs(b->value, inner);

	if (FLOW_UNSUPPORTED(s->mask, tos))
		return EOPNOTSUPP;
	flow_set_ipv(b, hc, hv, 4, 0x0800);
	memcpy(PRM_ADDR_OF(fte_match_set_lyr_2_4, hc,
			   src_ipv4_src_ipv6.ipv4_layout.ipv4), &s->mask.src_ip, 4);
	memcpy(PRM_ADDR_OF(fte_match_set_lyr_2_4, hv,
			   src_ipv4_src_ipv6.ipv4_layout.ipv4), &s->val.src_ip, 4);
	memcpy(PRM_ADDR_OF(fte_match_set_lyr_2_4, hc,
			   dst_ipv4_dst_ipv6.ipv4_layout.ipv4), &s->mask.dst_ip, 4);
	memcpy(PRM_ADDR_OF(fte_match_set_lyr_2_4, hv,
			   dst_ipv4_dst_ipv6.ipv4_layout.ipv4), &s->val.dst_ip, 4);
	flow_set_tos(hc, hv, s->mask.tos, s->val.tos);
	return flow_set_proto(hc, hv, s->mask.proto, s->val.proto);
}

static int flow_ipv6(struct flow_build *b, const struct ibv_flow_spec_ipv6 *s,
		     bool inner)
{
	void *hc = flow_hdrs(b->mask, inner), *hv = flow_hdrs(b->value, inner);
	void *mc = PRM_ADDR_OF(fte_match_param, b->mask, misc_parameters);
	void *mv = PRM_ADDR_OF(fte_match_param, b->value, misc_parameters);

	if (FLOW_UNSUPPORTED(s->mask, traffic_class))
		return EOPNOTSUPP;
	flow_set_ipv(b, hc, hv, 6, 0x86dd);
	memcpy(PRM_ADDR_OF(fte_match_set_lyr_2_4, hc,
			   src_ipv4_src_ipv6.ipv6_layout.ipv6), s->mask.src_ip, 16);
	memcpy(PRM_ADDR_OF(fte_match_set_lyr_2_4, hv,
			   src_ipv4_src_ipv6.ipv6_layout.ipv6), s->val.src_ip, 16);
	memcpy(PRM_ADDR_OF(fte_match_set_lyr_2_4, hc,
			   dst_ipv4_dst_ipv6.ipv6_layout.ipv6), s->mask.dst_ip, 16);
	memcpy(PRM_ADDR_OF(fte_match_set_lyr_2_4, hv,
			   dst_ipv4_dst_ipv6.ipv6_layout.ipv6), s->val.dst_ip, 16);
	flow_set_tos(hc, hv, s->mask.traffic_class, s->val.traffic_class);
	if (flow_set_proto(hc, hv, s->mask.next_hdr, s->val.next_hdr))
		return EINVAL;
	if (inner) {
		PRM_SET(fte_match_set_misc, mc, inner_ipv6_flow_label,
			ntohl(s->mask.flow_label));
		PRM_SET(fte_match_set_misc, mv, inner_ipv6_flow_label,
			ntohl(s->val.flow_label));
	} else {
		PRM_SET(fte_match_set_misc, mc, outer_ipv6_flow_label,
			ntohl(s->mask.flow_label));
		PRM_SET(fte_match_set_misc, mv, outer_ipv6_flow_label,
			ntohl(s->val.flow_label));
	}
	return 0;
}

static int flow_l4(struct flow_build *b, const struct ibv_flow_spec_tcp_udp *s,
		   bool inner, bool tcp)
{
	void *hc = flow_hdrs(b->mask, inner), *hv = flow_hdrs(b->value, inner);

	if (FLOW_UNSUPPORTED(s->mask, src_port))
		return EOPNOTSUPP;
	if (flow_set_proto(hc, hv, 0xff, tcp ? 6 : 17))
		return EINVAL;
	if (tcp) {
		PRM_SET(fte_match_set_lyr_2_4, hc, tcp_sport, ntohs(s->mask.src_port));
		PRM_SET(fte_match_set_lyr_2_4, hv, tcp_sport, ntohs(s->val.src_port));
		PRM_SET(fte_match_set_lyr_2_4, hc, tcp_dport, ntohs(s->mask.dst_port));
		PRM_SET(fte_match_set_lyr_2_4, hv, tcp_dport, ntohs(s->val.dst_port));
	} else {
		PRM_SET(fte_match_set_lyr_2_4, hc, udp_sport, ntohs(s->mask.src_port));
		PRM_SET(fte_match_set_lyr_2_4, hv, udp_sport, ntohs(s->val.src_port));
		PRM_SET(fte_match_set_lyr_2_4, hc, udp_dport, ntohs(s->mask.dst_port));
		PRM_SET(fte_match_set_lyr_2_4, hv, udp_dport, ntohs(s->val.dst_port));
	}
	return 0;
}

static int flow_vxlan(struct flow_build *b, const struct ibv_flow_spec_tunnel *s)
{
	void *mc = PRM_ADDR_OF(fte_match_param, b->mask, misc_parameters);
	void *mv = PRM_ADDR_OF(fte_match_param, b->value, misc_parameters);

	if (FLOW_UNSUPPORTED(s->mask, tunnel_id))
		return EOPNOTSUPP;
	PRM_SET(fte_match_set_misc, mc, vxlan_vni, ntohl(s->mask.tunnel_id));
	PRM_SET(fte_match_set_misc, mv, vxlan_vni, ntohl(s->val.tunnel_id));
	return 0;
}

/* The size libibverbs requires of each spec type it converts. */
static size_t flow_spec_size(unsigned int type)
{
	switch (type & ~IBV_FLOW_SPEC_INNER) {
	case IBV_FLOW_SPEC_ETH:
		return sizeof(struct ibv_flow_spec_eth);
	case IBV_FLOW_SPEC_IPV4:
		return sizeof(struct ibv_flow_spec_ipv4);
	case IBV_FLOW_SPEC_IPV4_EXT:
		return sizeof(struct ibv_flow_spec_ipv4_ext);
	case IBV_FLOW_SPEC_IPV6:
		return sizeof(struct ibv_flow_spec_ipv6);
	case IBV_FLOW_SPEC_TCP:
	case IBV_FLOW_SPEC_UDP:
		return sizeof(struct ibv_flow_spec_tcp_udp);
	case IBV_FLOW_SPEC_VXLAN_TUNNEL:
		return sizeof(struct ibv_flow_spec_tunnel);
	case IBV_FLOW_SPEC_ACTION_TAG:
		return sizeof(struct ibv_flow_spec_action_tag);
	case IBV_FLOW_SPEC_ACTION_DROP:
		return sizeof(struct ibv_flow_spec_action_drop);
	case IBV_FLOW_SPEC_ESP:
		return sizeof(struct ibv_flow_spec_esp);
	case IBV_FLOW_SPEC_GRE:
		return sizeof(struct ibv_flow_spec_gre);
	case IBV_FLOW_SPEC_MPLS:
		return sizeof(struct ibv_flow_spec_mpls);
	case IBV_FLOW_SPEC_ACTION_COUNT:
		return sizeof(struct ibv_flow_spec_counter_action);
	default:
		return 0;
	}
}

static int flow_spec(struct flow_build *b, const struct ibv_flow_spec *s)
{
	bool inner = s->hdr.type & IBV_FLOW_SPEC_INNER;
	struct ibv_flow_spec_ipv4_ext v4 = { 0 };

	switch (s->hdr.type & ~IBV_FLOW_SPEC_INNER) {
	case IBV_FLOW_SPEC_ETH:
		return flow_eth(b, &s->eth, inner);
	case IBV_FLOW_SPEC_IPV4:
		/* libibverbs sends it as the kernel's IPv4 spec, the extended
		 * fields zero. */
		v4.val.src_ip = s->ipv4.val.src_ip;
		v4.val.dst_ip = s->ipv4.val.dst_ip;
		v4.mask.src_ip = s->ipv4.mask.src_ip;
		v4.mask.dst_ip = s->ipv4.mask.dst_ip;
		return flow_ipv4(b, &v4, inner);
	case IBV_FLOW_SPEC_IPV4_EXT:
		return flow_ipv4(b, &s->ipv4_ext, inner);
	case IBV_FLOW_SPEC_IPV6:
		return flow_ipv6(b, &s->ipv6, inner);
	case IBV_FLOW_SPEC_TCP:
		return flow_l4(b, &s->tcp_udp, inner, true);
	case IBV_FLOW_SPEC_UDP:
		return flow_l4(b, &s->tcp_udp, inner, false);
	case IBV_FLOW_SPEC_VXLAN_TUNNEL:
		return flow_vxlan(b, &s->tunnel);
	case IBV_FLOW_SPEC_ACTION_TAG:
		if (s->flow_tag.tag_id >= (1u << 24))
			return EINVAL;
		b->act.has_tag = true;
		b->act.tag = s->flow_tag.tag_id;
		return 0;
	case IBV_FLOW_SPEC_ACTION_DROP:
		b->drop = true;
		return 0;
	default:
		/* ESP, GRE, MPLS, counters: not advertised here. */
		return EOPNOTSUPP;
	}
}

/* mlx5_ib's flow_is_multicast_only(). */
static bool flow_mcast_only(const struct ibv_flow_attr *attr,
			    const struct ibv_flow_spec *first)
{
	if (attr->type != IBV_FLOW_ATTR_NORMAL || !attr->num_of_specs)
		return false;
	if (first->hdr.type == IBV_FLOW_SPEC_IPV4 ||
	    first->hdr.type == IBV_FLOW_SPEC_IPV4_EXT)
		return (ntohl(first->ipv4.val.dst_ip) >> 28) == 0xe;
	if (first->hdr.type == IBV_FLOW_SPEC_ETH)
		return (first->eth.mask.dst_mac[0] & 1) &&
		       (first->eth.val.dst_mac[0] & 1);
	return false;
}

/* mlx5_ib's is_valid_ethertype(): a full ethertype must agree with the
 * IP spec of the same level. */
static bool flow_ethertype_ok(const struct ibv_flow_spec *specs,
			      unsigned int n, bool inner)
{
	unsigned int in = inner ? IBV_FLOW_SPEC_INNER : 0, ip = 0;
	bool has_type = false, full = true;
	uint16_t type = 0;

	for (unsigned int i = 0; i < n; i++) {
		const struct ibv_flow_spec *s = &specs[i];

		if (s->hdr.type == (IBV_FLOW_SPEC_ETH | in) &&
		    s->eth.mask.ether_type) {
			full = s->eth.mask.ether_type == htons(0xffff);
			has_type = true;
			type = ntohs(s->eth.val.ether_type);
		} else if (s->hdr.type == (IBV_FLOW_SPEC_IPV4 | in) ||
			   s->hdr.type == (IBV_FLOW_SPEC_IPV4_EXT | in)) {
			ip = 4;
		} else if (s->hdr.type == (IBV_FLOW_SPEC_IPV6 | in)) {
			ip = 6;
		}
	}
	if (!has_type || !ip || !full)
		return true;
	return (type == 0x0800 && ip == 4) || (type == 0x86dd && ip == 6);
}

/* The criteria blocks a mask uses (get_match_criteria_enable). */
static uint8_t flow_criteria(const uint8_t *mask)
{
	static const struct {
		uint32_t off, len;
		uint8_t bit;
	} blocks[] = {
		{ PRM_BYTE_OFF(fte_match_param, outer_headers),
		  PRM_FLD_SZ_BYTES(fte_match_param, outer_headers),
		  MLX5_MATCH_OUTER_HEADERS },
		{ PRM_BYTE_OFF(fte_match_param, misc_parameters),
		  PRM_FLD_SZ_BYTES(fte_match_param, misc_parameters),
		  MLX5_MATCH_MISC_PARAMETERS },
		{ PRM_BYTE_OFF(fte_match_param, inner_headers),
		  PRM_FLD_SZ_BYTES(fte_match_param, inner_headers),
		  MLX5_MATCH_INNER_HEADERS },
	};
	uint8_t en = 0;

	for (unsigned int i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++)
		if (!flow_rest_zero(mask, blocks[i].off,
				    blocks[i].off + blocks[i].len))
			en |= blocks[i].bit;
	return en;
}

/* The checks uverbs and mlx5_ib make before parsing the specs. */
static int flow_check(struct ibv_qp *qp, const struct ibv_flow_attr *attr)
{
	const uint8_t *p = (const void *)(attr + 1);

	if (attr->comp_mask ||
	    (attr->flags & ~(uint32_t)IBV_FLOW_ATTR_FLAGS_DONT_TRAP) ||
	    attr->num_of_specs > FLOW_MAX_SPECS)
		return EINVAL;
	if (attr->type != IBV_FLOW_ATTR_NORMAL)
		return EOPNOTSUPP;
	/* uverbs: DONT_TRAP only on the default rules. */
	if (attr->flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP)
		return EINVAL;
	if (attr->priority > PROV_FLOW_LAST_PRIO)
		return ENOMEM;
	if (!attr->port || attr->port > PROV_CAP_GEN(to_prov_context(qp->context),
						     num_ports))
		return EINVAL;
	for (unsigned int i = 0; i < attr->num_of_specs; i++) {
		struct ibv_flow_spec_action_drop h;	/* type and size */
		size_t want;

		/* The specs follow each other unaligned. */
		memcpy(&h, p, sizeof(h));
		want = flow_spec_size(h.type);
		if (!want || h.size != want)
			return EINVAL;
		p += h.size;
	}
	return 0;
}

/* The specs, each copied into an aligned union (sizes checked). */
static void flow_specs_copy(const struct ibv_flow_attr *attr,
			    struct ibv_flow_spec *specs)
{
	const uint8_t *p = (const void *)(attr + 1);

	for (unsigned int i = 0; i < attr->num_of_specs; i++) {
		struct ibv_flow_spec_action_drop h;

		memcpy(&h, p, sizeof(h));
		memset(&specs[i], 0, sizeof(specs[i]));
		memcpy(&specs[i], p, h.size);
		p += h.size;
	}
}

static struct ibv_flow *flow_create(struct ibv_qp *qp,
				    struct ibv_flow_attr *attr)
{
	struct prov_context *pctx = to_prov_context(qp->context);
	struct ibv_flow_spec specs[FLOW_MAX_SPECS];
	struct mlx5be_flow_match m = { 0 };
	struct ibv_flow *flow = NULL;
	struct mlx5be_obj *rule;
	struct flow_build *b;
	int err;

	err = flow_check(qp, attr);
	if (!err)
		err = prov_qp_net_raw_check(pctx);
	if (err) {
		errno = err;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		errno = ENOMEM;
		return NULL;
	}
	b->match_ipv = flow_match_ip_version(pctx);
	flow_specs_copy(attr, specs);
	for (unsigned int i = 0; i < attr->num_of_specs && !err; i++)
		err = flow_spec(b, &specs[i]);
	if (!err && (!flow_ethertype_ok(specs, attr->num_of_specs, false) ||
		     !flow_ethertype_ok(specs, attr->num_of_specs, true)))
		err = EINVAL;
	if (!err && !b->drop) {
		b->act.dest = prov_qp_flow_dest(qp);
		if (!b->act.dest)
			err = EINVAL;
	}
	if (err)
		goto out;
	m.criteria_enable = flow_criteria(b->mask);
	m.priority = flow_mcast_only(attr, &specs[0]) ? FLOW_MCAST_PRIO :
		     (uint16_t)(2 * attr->priority + 1);
	m.mask = b->mask;
	m.value = b->value;
	m.len = sizeof(b->mask);
	rule = pctx->be->steering_root_attach(pctx->bectx, &m, &b->act);
	if (!rule) {
		err = errno;
		goto out;
	}
	flow = prov_flow_wrap(qp->context, rule, NULL);
	if (!flow) {
		err = errno;
		pctx->be->obj_destroy(rule);
	}
out:
	free(b);
	if (err)
		errno = err;
	return flow;
}

struct ibv_flow *prov_flow_wrap(struct ibv_context *ibctx,
				struct mlx5be_obj *rule, atomic_int *uses)
{
	struct prov_flow *flow = calloc(1, sizeof(*flow));

	if (!flow) {
		errno = ENOMEM;
		return NULL;
	}
	flow->ibflow.context = ibctx;
	flow->rule = rule;
	flow->uses = uses;
	if (uses)
		atomic_fetch_add(uses, 1);
	return &flow->ibflow;
}

static int flow_destroy(struct ibv_flow *ibflow)
{
	struct prov_flow *flow = (struct prov_flow *)ibflow;
	struct prov_context *pctx = to_prov_context(ibflow->context);
	int ret = prov_be_err(pctx->be->obj_destroy(flow->rule));

	if (ret)
		return ret;
	if (flow->uses)
		atomic_fetch_sub(flow->uses, 1);
	free(flow);
	return 0;
}

void prov_flow_set_ops(struct prov_context *pctx)
{
	pctx->vctx.ibv_create_flow = flow_create;
	pctx->vctx.ibv_destroy_flow = flow_destroy;
}

struct mlx5be_obj *prov_qp_flow_dest(struct ibv_qp *qp)
{
	struct prov_qp *pqp = to_prov_qp(qp);

	/* mlx5_ib: an RSS QP's TIR, or a raw packet QP's (its RQ's). */
	if (qp->qp_type != IBV_QPT_RAW_PACKET || !pqp->raw.tir) {
		errno = EINVAL;
		return NULL;
	}
	return pqp->raw.tir;
}

int prov_qp_net_raw_check(struct prov_context *pctx)
{
	return prov_be_err(pctx->be->net_raw_check(pctx->bectx));
}
