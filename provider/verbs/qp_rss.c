/* SPDX-License-Identifier: MIT */
/*
 * RSS QPs: ibv_create_qp_ex with IBV_QP_INIT_ATTR_RX_HASH and an
 * indirection table, as libmlx5 44 (mlx5_cmd_create_rss_qp) and the
 * upstream kernel (uverbs, mlx5_ib's create_rss_raw_qp_tir) make them: no
 * queues, no user index, no doorbell register, QP number 0, and one
 * indirect TIR in the context's transport domain over the table's RQT,
 * hashing with Toeplitz over the fields the mask selects.  Errors, in the
 * order the layers check:
 *
 *   EINVAL     (libmlx5) a key longer than its command's 128 bytes
 *   EPERM, EINVAL  (uverbs, mlx5_ib) qp_check.c's; then mlx5_ib's RSS
 *              rules: create flags, vendor flags other than tunnel
 *              offloads and self loopback, a send CQ
 *   EOPNOTSUPP inner-header hashing without tunnel offloads; a hash
 *              function other than Toeplitz
 *   EINVAL     a Toeplitz key of other than 40 bytes; no hash fields over
 *              a table of more than one entry; IPv4 and IPv6 fields
 *              together; fields of more than one L4 protocol
 *
 * The QP cannot be modified or queried (EOPNOTSUPP, libmlx5); destroy
 * removes the TIR.
 */
#include <errno.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/core/cmd.h"
#include "provider/core/context.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/wq.h"

/* libmlx5's struct mlx5_create_qp_ex_rss: rx_hash_key[128]. */
#define RSS_CMD_KEY_MAX 128u

/* mlx5_ib's process_vendor_flags/process_create_flags/check_qp_attr for
 * an RSS QP: 0 or EINVAL. */
int prov_qp_rss_check_kernel(const struct prov_qp *qp,
			     const struct ibv_qp_init_attr_ex *attr,
			     uint32_t vflags, uint32_t cflags)
{
	(void)qp;
	if (vflags & ~(uint32_t)(PROV_QPF_TUNNEL_OFFLOADS |
				 PROV_QPF_SELF_LB_UC | PROV_QPF_SELF_LB_MC))
		return EINVAL;
	if (cflags || attr->send_cq)
		return EINVAL;
	return 0;
}

/* The rx_hash_field_select of @mask (MLX5_RX_HASH_* is IBV_RX_HASH_*),
 * as create_rss_raw_qp_tir fills it: 0 or EINVAL. */
static int rss_fields(uint64_t mask, void *hfs)
{
	bool v4 = mask & (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4);
	bool v6 = mask & (IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6);
	bool tcp = mask & (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP);
	bool udp = mask & (IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP);
	bool spi = mask & IBV_RX_HASH_IPSEC_SPI;
	uint32_t sel = 0;

	if (v4 && v6)
		return EINVAL;
	if ((unsigned int)tcp + (unsigned int)udp + (unsigned int)spi > 1)
		return EINVAL;
	if (v4)
		PRM_SET(rx_hash_field_select, hfs, l3_prot_type,
			MLX5_L3_PROT_TYPE_IPV4);
	else if (v6)
		PRM_SET(rx_hash_field_select, hfs, l3_prot_type,
			MLX5_L3_PROT_TYPE_IPV6);
	if (tcp)
		PRM_SET(rx_hash_field_select, hfs, l4_prot_type,
			MLX5_L4_PROT_TYPE_TCP);
	else if (udp)
		PRM_SET(rx_hash_field_select, hfs, l4_prot_type,
			MLX5_L4_PROT_TYPE_UDP);
	if (mask & (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_SRC_IPV6))
		sel |= MLX5_HASH_FIELD_SEL_SRC_IP;
	if (mask & (IBV_RX_HASH_DST_IPV4 | IBV_RX_HASH_DST_IPV6))
		sel |= MLX5_HASH_FIELD_SEL_DST_IP;
	if (mask & (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_SRC_PORT_UDP))
		sel |= MLX5_HASH_FIELD_SEL_L4_SPORT;
	if (mask & (IBV_RX_HASH_DST_PORT_TCP | IBV_RX_HASH_DST_PORT_UDP))
		sel |= MLX5_HASH_FIELD_SEL_L4_DPORT;
	if (spi)
		sel |= MLX5_HASH_FIELD_SEL_IPSEC_SPI;
	PRM_SET(rx_hash_field_select, hfs, selected_fields, sel);
	return 0;
}

/* create_rss_raw_qp_tir(): the indirect TIR. */
static int rss_create_tir(struct prov_qp *qp, const struct ibv_rx_hash_conf *h,
			  const struct prov_rwq_ind *ind, uint32_t vflags)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_tir_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_tir_out)] = { 0 };
	void *tirc = PRM_ADDR_OF(create_tir_in, in, ctx);
	bool inner = h->rx_hash_fields_mask & IBV_RX_HASH_INNER;
	uint32_t tdn;
	int err;

	if (inner && !(vflags & PROV_QPF_TUNNEL_OFFLOADS))
		return EOPNOTSUPP;
	if (h->rx_hash_function != IBV_RX_HASH_FUNC_TOEPLITZ)
		return EOPNOTSUPP;
	if (h->rx_hash_key_len != PRM_FLD_SZ_BYTES(tirc, rx_hash_toeplitz_key))
		return EINVAL;
	err = prov_qp_ctx_td(qp->pctx, &tdn);
	if (err)
		return err;
	PRM_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	PRM_SET(tirc, tirc, disp_type, MLX5_TIRC_DISP_TYPE_INDIRECT);
	PRM_SET(tirc, tirc, indirect_table, ind->tbl.ind_tbl_num);
	PRM_SET(tirc, tirc, transport_domain, tdn);
	if (vflags & PROV_QPF_TUNNEL_OFFLOADS)
		PRM_SET(tirc, tirc, tunneled_offload_en, 1);
	PRM_SET(tirc, tirc, self_lb_block, prov_qp_raw_lb_block(vflags));
	PRM_SET(tirc, tirc, rx_hash_fn, MLX5_RX_HASH_FN_TOEPLITZ);
	memcpy(PRM_ADDR_OF(tirc, tirc, rx_hash_toeplitz_key), h->rx_hash_key,
	       h->rx_hash_key_len);
	if (!h->rx_hash_fields_mask) {
		/* A TIR that only steers: a table of one entry. */
		if (ind->log_size)
			return EINVAL;
	} else {
		err = rss_fields(h->rx_hash_fields_mask,
				 inner ? PRM_ADDR_OF(tirc, tirc,
						     rx_hash_field_selector_inner) :
					 PRM_ADDR_OF(tirc, tirc,
						     rx_hash_field_selector_outer));
		if (err)
			return err;
	}
	qp->raw.tir = prov_obj_create(qp->pctx, in, sizeof(in), out, sizeof(out));
	if (!qp->raw.tir)
		return errno;
	qp->raw.tirn = PRM_GET(create_tir_out, out, tirn);
	return prov_qp_raw_tir_lb(qp, vflags);
}

int prov_qp_rss_create(struct prov_qp *qp, struct ibv_context *context,
		       struct ibv_qp_init_attr_ex *attr, uint32_t vflags)
{
	struct prov_rwq_ind *ind;
	int err;

	if (attr->rx_hash_conf.rx_hash_key_len > RSS_CMD_KEY_MAX)
		return EINVAL;
	err = prov_qp_check_uverbs(context, attr);
	if (!err)
		err = prov_qp_check_kernel(qp, attr, &vflags);
	if (err)
		return err;
	ind = to_prov_rwq_ind(attr->rwq_ind_tbl);
	err = prov_pd_use(attr->pd);
	if (err)
		return EINVAL;
	prov_pd_parent_hold(attr->pd);
	err = rss_create_tir(qp, &attr->rx_hash_conf, ind, vflags);
	if (err) {
		prov_pd_parent_release(attr->pd);
		prov_pd_unuse(attr->pd);
		return err;
	}
	prov_rwq_ind_hold(attr->rwq_ind_tbl, 1);
	qp->raw.rss = true;
	qp->rss_ind = attr->rwq_ind_tbl;
	qp->mlx5_flags = vflags;
	return 0;
}
