/* SPDX-License-Identifier: MIT */
/*
 * ibv_query_port: the exported IBVERBS_1.1 symbol and the verbs_context op
 * the inline ibv_query_port() prefers, with libibverbs 44's handling of the
 * caller's structure size (__lib_query_port in verbs.c) over what the
 * kernel returns (ib_uverbs_query_port, copy_port_attr_to_resp): the
 * backend's port attributes, a bad port number failing with EINVAL.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "provider/mana/mana_prov.h"
#include "shell/abi_export.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/query.h"

/* IB_SPEED_NDR: the uverbs response caps active_speed here. */
#define PROV_IB_SPEED_NDR 128

/* libibverbs' layout of the IBVERBS_1.1 argument (verbs.c); its size is
 * what __lib_query_port is given for the exported symbol. */
struct _compat_ibv_port_attr {
	enum ibv_port_state state;
	enum ibv_mtu max_mtu;
	enum ibv_mtu active_mtu;
	int gid_tbl_len;
	uint32_t port_cap_flags;
	uint32_t max_msg_sz;
	uint32_t bad_pkey_cntr;
	uint32_t qkey_viol_cntr;
	uint16_t pkey_tbl_len;
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t lmc;
	uint8_t max_vl_num;
	uint8_t sm_sl;
	uint8_t subnet_timeout;
	uint8_t init_type_reply;
	uint8_t active_width;
	uint8_t active_speed;
	uint8_t phys_state;
	uint8_t link_layer;
	uint8_t flags;
};

int prov_port_attr(struct prov_context *pctx, uint32_t port_num,
		   struct mlx5be_port_attr *pa)
{
	/* ib_query_port(): rdma_is_port_valid() first. */
	if (port_num < 1 || port_num > prov_caps_num_ports(pctx))
		return EINVAL;
	memset(pa, 0, sizeof(*pa));
	return -pctx->be->query_port(pctx->bectx, port_num, pa);
}

int prov_query_port(struct prov_context *pctx, uint32_t port_num,
		    struct ibv_port_attr *attr)
{
	struct mlx5be_port_attr pa;
	int ret;

	ret = prov_port_attr(pctx, port_num, &pa);
	if (ret)
		return ret;
	attr->state = pa.state;
	attr->max_mtu = pa.max_mtu;
	attr->active_mtu = pa.active_mtu;
	attr->gid_tbl_len = pa.gid_tbl_len;
	attr->port_cap_flags = pa.port_cap_flags;
	attr->max_msg_sz = pa.max_msg_sz;
	attr->bad_pkey_cntr = pa.bad_pkey_cntr;
	attr->qkey_viol_cntr = pa.qkey_viol_cntr;
	attr->pkey_tbl_len = pa.pkey_tbl_len;
	attr->lid = pa.lid;
	attr->sm_lid = pa.sm_lid;
	attr->lmc = pa.lmc;
	attr->max_vl_num = pa.max_vl_num;
	attr->sm_sl = pa.sm_sl;
	attr->subnet_timeout = pa.subnet_timeout;
	attr->init_type_reply = pa.init_type_reply;
	attr->active_width = pa.active_width;
	attr->active_speed = pa.active_speed > PROV_IB_SPEED_NDR ?
			     PROV_IB_SPEED_NDR : pa.active_speed;
	attr->phys_state = pa.phys_state;
	attr->link_layer = pa.link_layer;
	/* IB_UVERBS_QPF_GRH_REQUIRED is only ever set on InfiniBand ports. */
	attr->flags = 0;
	attr->port_cap_flags2 = pa.port_cap_flags2;
	return 0;
}

int prov_query_port_op(struct ibv_context *ctx, uint8_t port_num,
		       struct ibv_port_attr *port_attr, size_t port_attr_len)
{
	struct prov_context *pctx = to_prov_context(ctx);

	/* A short caller structure gets the prefix of a full answer. */
	if (port_attr_len < sizeof(struct ibv_port_attr)) {
		struct ibv_port_attr tmp = { 0 };
		int rc = prov_query_port(pctx, port_num, &tmp);

		if (rc)
			return rc;
		memcpy(port_attr, &tmp, port_attr_len);
		return 0;
	}
	memset(port_attr, 0, port_attr_len);
	return prov_query_port(pctx, port_num, port_attr);
}

MLX5EMU_ABI(ibv_query_port);
int mlx5emu_abi_ibv_query_port(struct ibv_context *context, uint8_t port_num,
			       struct _compat_ibv_port_attr *port_attr)
{
	if (prov_mana_is(context))
		return verbs_get_ctx(context)->query_port(context, port_num,
				(struct ibv_port_attr *)port_attr,
				sizeof(*port_attr));
	return prov_query_port_op(context, port_num,
				  (struct ibv_port_attr *)port_attr,
				  sizeof(*port_attr));
}
