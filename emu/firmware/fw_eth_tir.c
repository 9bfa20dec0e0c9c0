/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_eth_tir.c -- CREATE_TIR / MODIFY_TIR / QUERY_TIR /
 * DESTROY_TIR.
 *
 * A transport interface receive: where a steering rule delivers packets.
 * DIRECT: to one RQ (inline_rqn); INDIRECT: to one RQ of an RQT
 * (indirect_table), chosen by a hash of the packet's fields.  What
 * CREATE_TIR checks, in this order:
 *   features not advertised (LRO: packet_merge_mask without lro_cap;
 *   tls_en without tls_rx), disp_type; for an indirect TIR its hash:
 *   rx_hash_fn TOEPLITZ or INVERTED_XOR8 (a ConnectX always computes both),
 *   and the outer and inner field selectors naming only source/destination
 *   IP, L4 ports and the IPsec SPI; then the objects, each of the caller's
 *   uid or the kernel's: the RQ or the RQT, the transport domain.
 * rx_hash_symmetric, the Toeplitz key (kept as given; used by TOEPLITZ),
 * self_lb_block and tunneled_offload_en are kept.  MODIFY_TIR changes what
 * its bitmask names: self_lb_en (self_lb_block), hash (an indirect TIR's
 * function, key, selectors and symmetry, checked as at create); LRO
 * (packet_merge) is not advertised.  The hash is one allocation published
 * through an RCU pointer and replaced whole, so an engine hashing a packet
 * sees the old one or the new one.  A TIR holds a use on its RQ or RQT and
 * on its transport domain.
 */
#include <stdlib.h>
#include <string.h>

#include "emu/firmware/fw_eth_int.h"

_Static_assert(PRM_ST_SZ_BYTES(tirc) == sizeof(((struct emu_fw_tir *)0)->ctx),
	       "tirc");
_Static_assert(PRM_FLD_SZ_BYTES(tirc, rx_hash_toeplitz_key) ==
	       sizeof(((struct emu_fw_tir_hash *)0)->key), "toeplitz key");

#define FW_HASH_FIELDS (MLX5_HASH_FIELD_SEL_SRC_IP | \
			MLX5_HASH_FIELD_SEL_DST_IP | \
			MLX5_HASH_FIELD_SEL_L4_SPORT | \
			MLX5_HASH_FIELD_SEL_L4_DPORT | \
			MLX5_HASH_FIELD_SEL_IPSEC_SPI)

void fw_tir_release(struct emu_fw_obj *obj)
{
	struct emu_fw_tir *tir = emu_fw_to_tir(obj);

	/* The pointers stay for readers (runs once). */
	if (tir->rq)
		fw_obj_unuse(&tir->rq->obj);
	if (tir->rqt)
		fw_obj_unuse(&tir->rqt->obj);
	if (tir->td)
		fw_obj_unuse(&tir->td->obj);
}

void fw_tir_fini(struct emu_fw_obj *obj)
{
	struct emu_fw_tir *tir = emu_fw_to_tir(obj);

	free(atomic_load(&tir->hash));
	pthread_mutex_destroy(&tir->lock);
}

static void fw_tir_hash_free_rcu(struct rcu_head *head)
{
	EMU_FW_TSAN_ACQUIRE();	/* after every reader of the grace period */
	free(EMU_FW_OBJ_OF(head, struct emu_fw_tir_hash, rcu));
}

static enum fw_synd fw_hash_sel(const void *sel, struct emu_fw_hash_sel *o)
{
	o->l3_prot_type = (uint8_t)PRM_GET(rx_hash_field_select, sel,
					   l3_prot_type);
	o->l4_prot_type = (uint8_t)PRM_GET(rx_hash_field_select, sel,
					   l4_prot_type);
	o->selected_fields = PRM_GET(rx_hash_field_select, sel,
				     selected_fields);
	return o->selected_fields & ~(uint32_t)FW_HASH_FIELDS ?
	       FW_SYND_TIR_BAD_HASH : FW_SYND_OK;
}

/* An indirect TIR's hashing from a tirc: checked, then allocated. */
static enum fw_synd fw_tir_hash_new(const void *tirc,
				    struct emu_fw_tir_hash **hp)
{
	struct emu_fw_tir_hash h = { 0 };
	enum fw_synd s;

	h.fn = (uint8_t)PRM_GET(tirc, tirc, rx_hash_fn);
	if (h.fn != MLX5_RX_HASH_FN_TOEPLITZ &&
	    h.fn != MLX5_RX_HASH_FN_INVERTED_XOR8)
		return FW_SYND_TIR_BAD_HASH;
	s = fw_hash_sel(PRM_ADDR_OF(tirc, tirc, rx_hash_field_selector_outer),
			&h.outer);
	if (!s)
		s = fw_hash_sel(PRM_ADDR_OF(tirc, tirc,
					    rx_hash_field_selector_inner),
				&h.inner);
	if (s)
		return s;
	h.symmetric = PRM_GET(tirc, tirc, rx_hash_symmetric);
	memcpy(h.key, PRM_ADDR_OF(tirc, tirc, rx_hash_toeplitz_key),
	       sizeof(h.key));
	*hp = malloc(sizeof(**hp));
	if (!*hp)
		return FW_SYND_INTERNAL_NOMEM;
	**hp = h;
	return FW_SYND_OK;
}

static bool fw_tirc_unsupported(const struct emu_fw *fw, const void *tirc)
{
	const void *eth = fw_cap_page(fw, MLX5_CAP_ETHERNET_OFFLOADS);

	return (PRM_GET(tirc, tirc, packet_merge_mask) &&
		!PRM_GET(per_protocol_networking_offload_caps, eth, lro_cap)) ||
	       (PRM_GET(tirc, tirc, tls_en) && !FW_CAP_GEN(fw, tls_rx));
}

/* The RQ or RQT, and the transport domain. */
static enum fw_synd fw_tir_take(struct fw_cmd *cmd, struct emu_fw_tir *tir,
				const void *tirc)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	if (tir->disp_type == MLX5_TIRC_DISP_TYPE_DIRECT) {
		s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_RQ,
				   PRM_GET(tirc, tirc, inline_rqn),
				   FW_SYND_TIR_BAD_RQN, &obj);
		if (s)
			return s;
		tir->rq = emu_fw_to_rq(obj);
	} else {
		s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_RQT,
				   PRM_GET(tirc, tirc, indirect_table),
				   FW_SYND_TIR_BAD_RQT, &obj);
		if (s)
			return s;
		tir->rqt = emu_fw_to_rqt(obj);
	}
	/* Transport domain 0 is none: no sender shares it, so the TIR's
	 * self-loopback block applies to nobody.  (rdma-core's pyverbs DevX
	 * TIR test leaves it 0 and runs on ConnectX hardware.) */
	if (!PRM_GET(tirc, tirc, transport_domain))
		return FW_SYND_OK;
	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_TD,
			   PRM_GET(tirc, tirc, transport_domain),
			   FW_SYND_TIR_BAD_TD, &obj);
	if (s)
		return s;
	tir->td = emu_fw_to_td(obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_create_tir(struct fw_cmd *cmd)
{
	const void *tirc = PRM_ADDR_OF(create_tir_in, cmd->in, ctx);
	uint32_t disp = PRM_GET(tirc, tirc, disp_type);
	struct emu_fw_tir_hash *h = NULL;
	struct emu_fw_obj *obj;
	struct emu_fw_tir *tir;
	enum fw_synd s;

	if (fw_tirc_unsupported(cmd->fw, tirc))
		return FW_SYND_TIR_FEATURE_NOT_SUPPORTED;
	if (disp != MLX5_TIRC_DISP_TYPE_DIRECT &&
	    disp != MLX5_TIRC_DISP_TYPE_INDIRECT)
		return FW_SYND_TIR_BAD_DISP_TYPE;
	if (disp == MLX5_TIRC_DISP_TYPE_INDIRECT) {
		s = fw_tir_hash_new(tirc, &h);
		if (s)
			return s;
	}
	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_TIR, &obj);
	if (s) {
		free(h);
		return s;
	}
	tir = emu_fw_to_tir(obj);
	pthread_mutex_init(&tir->lock, NULL);
	atomic_init(&tir->hash, h);	/* fini frees it from here on */
	tir->disp_type = (uint8_t)disp;
	s = fw_tir_take(cmd, tir, tirc);
	if (s) {
		fw_tir_release(obj);
		fw_cmd_obj_abort(obj);
		return s;
	}
	tir->tunneled_offload_en = PRM_GET(tirc, tirc, tunneled_offload_en);
	atomic_init(&tir->self_lb_block, PRM_GET(tirc, tirc, self_lb_block));
	memcpy(tir->ctx, tirc, sizeof(tir->ctx));
	s = fw_cmd_obj_publish(obj, FW_SYND_TIR_LIMIT);
	if (s)
		return s;
	PRM_SET(create_tir_out, cmd->out, tirn, obj->id);
	return FW_SYND_OK;
}

static enum fw_synd fw_tir_own(struct fw_cmd *cmd, uint32_t tirn,
			       struct emu_fw_tir **tirp)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_TIR, tirn, FW_SYND_TIR_INVALID,
			   &obj);
	if (!s)
		*tirp = emu_fw_to_tir(obj);
	return s;
}

/* The tirc fields MODIFY_TIR's hash bit replaces. */
static void fw_tirc_copy_hash(void *dst, const void *src)
{
	PRM_SET(tirc, dst, rx_hash_fn, PRM_GET(tirc, src, rx_hash_fn));
	PRM_SET(tirc, dst, rx_hash_symmetric,
		PRM_GET(tirc, src, rx_hash_symmetric));
	memcpy(PRM_ADDR_OF(tirc, dst, rx_hash_toeplitz_key),
	       PRM_ADDR_OF(tirc, src, rx_hash_toeplitz_key),
	       PRM_FLD_SZ_BYTES(tirc, rx_hash_toeplitz_key));
	memcpy(PRM_ADDR_OF(tirc, dst, rx_hash_field_selector_outer),
	       PRM_ADDR_OF(tirc, src, rx_hash_field_selector_outer),
	       PRM_ST_SZ_BYTES(rx_hash_field_select));
	memcpy(PRM_ADDR_OF(tirc, dst, rx_hash_field_selector_inner),
	       PRM_ADDR_OF(tirc, src, rx_hash_field_selector_inner),
	       PRM_ST_SZ_BYTES(rx_hash_field_select));
}

enum fw_synd fw_cmd_modify_tir(struct fw_cmd *cmd)
{
	const void *tirc = PRM_ADDR_OF(modify_tir_in, cmd->in, ctx);
	const uint8_t *bm = PRM_ADDR_OF(modify_tir_in, cmd->in, bitmask);
	bool lb = PRM_GET(modify_tir_bitmask, bm, self_lb_en);
	bool hash = PRM_GET(modify_tir_bitmask, bm, hash);
	struct emu_fw_tir_hash *h = NULL, *old = NULL;
	struct emu_fw_tir *tir = NULL;
	uint8_t other[8];
	enum fw_synd s;

	s = fw_tir_own(cmd, PRM_GET(modify_tir_in, cmd->in, tirn), &tir);
	if (s)
		return s;
	memcpy(other, bm, sizeof(other));
	PRM_SET(modify_tir_bitmask, other, self_lb_en, 0);
	PRM_SET(modify_tir_bitmask, other, hash, 0);
	PRM_SET(modify_tir_bitmask, other, packet_merge, 0);
	if (!fw_all_zero(other, sizeof(other)))
		s = FW_SYND_TIR_BAD_BITMASK;
	if (!s && PRM_GET(modify_tir_bitmask, bm, packet_merge))
		s = FW_SYND_TIR_FEATURE_NOT_SUPPORTED;	/* no lro_cap */
	if (!s && lb &&
	    !PRM_GET(per_protocol_networking_offload_caps,
		     fw_cap_page(cmd->fw, MLX5_CAP_ETHERNET_OFFLOADS),
		     self_lb_en_modifiable))
		s = FW_SYND_TIR_BAD_BITMASK;
	if (!s && hash && tir->disp_type != MLX5_TIRC_DISP_TYPE_INDIRECT)
		s = FW_SYND_TIR_BAD_BITMASK;
	if (!s && hash)
		s = fw_tir_hash_new(tirc, &h);
	if (s) {
		emu_fw_obj_put(&tir->obj);
		return s;
	}
	pthread_mutex_lock(&tir->lock);
	if (lb) {
		atomic_store(&tir->self_lb_block,
			     PRM_GET(tirc, tirc, self_lb_block));
		PRM_SET(tirc, tir->ctx, self_lb_block,
			PRM_GET(tirc, tirc, self_lb_block));
	}
	if (hash) {
		fw_tirc_copy_hash(tir->ctx, tirc);
		old = atomic_exchange(&tir->hash, h);
	}
	pthread_mutex_unlock(&tir->lock);
	if (old)
		call_rcu(&old->rcu, fw_tir_hash_free_rcu);
	emu_fw_obj_put(&tir->obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_query_tir(struct fw_cmd *cmd)
{
	struct emu_fw_tir *tir = NULL;
	enum fw_synd s;

	s = fw_tir_own(cmd, PRM_GET(query_tir_in, cmd->in, tirn), &tir);
	if (s)
		return s;
	pthread_mutex_lock(&tir->lock);
	memcpy(PRM_ADDR_OF(query_tir_out, cmd->out, tir_context), tir->ctx,
	       sizeof(tir->ctx));
	pthread_mutex_unlock(&tir->lock);
	emu_fw_obj_put(&tir->obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_destroy_tir(struct fw_cmd *cmd)
{
	/* In use: a flow table entry delivers to it. */
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_TIR,
				  PRM_GET(destroy_tir_in, cmd->in, tirn),
				  FW_SYND_TIR_INVALID, FW_SYND_TIR_IN_USE);
}
