/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_devx_rules.c -- the kernel DEVX layer's rules besides
 * classification, object ids and destroy: the uid a command runs with,
 * mailbox header fields, the spans the rules read, the *_umem_valid bits
 * and other inbox writes, status -> errno, and the checks of one method.
 * See kern_devx_rules.h for the sources and the order the kernel applies
 * them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "emu/kernel/kern_devx_rules.h"
#include "emu/kernel/kern_devx_rules_int.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

/*
 * devx_set_umem_valid (and devx_handle_mkey_create for CREATE_MKEY): the
 * bits the kernel sets to 1.
 */
struct kumem {
	uint16_t op;
	struct kfld bit[2];	/* .bits == 0: unused */
};

/* create_xrq_in.xrq_context at 0x80; xrqc.wq at 0x400 (mlx5_ifc.h). */
#define XRQ_WQ_BIT(fld) FX(0x80 + 0x400 + PRM_BIT_OFF(wq, fld), 1)

static const struct kumem k_umem[] = {
	{ MLX5_CMD_OP_CREATE_MKEY, { F(create_mkey_in, mkey_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_CQ, { F(create_cq_in, cq_umem_valid),
				   F(create_cq_in, cq_context.dbr_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_QP, { F(create_qp_in, qpc.dbr_umem_valid),
				   F(create_qp_in, wq_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_RQ, { F(create_rq_in, ctx.wq.dbr_umem_valid),
				   F(create_rq_in, ctx.wq.wq_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_SQ, { F(create_sq_in, ctx.wq.dbr_umem_valid),
				   F(create_sq_in, ctx.wq.wq_umem_valid) } },
	{ MLX5_CMD_OP_MODIFY_CQ, { F(modify_cq_in, cq_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_RMP, { F(create_rmp_in, ctx.wq.dbr_umem_valid),
				    F(create_rmp_in, ctx.wq.wq_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_XRQ, { XRQ_WQ_BIT(dbr_umem_valid), XRQ_WQ_BIT(wq_umem_valid) } },
	{ MLX5_CMD_OP_CREATE_XRC_SRQ, { F(create_xrc_srq_in, xrc_srq_umem_valid),
					F(create_xrc_srq_in, xrc_srq_context_entry.dbr_umem_valid) } },
};

static const struct kumem *kumem_find(uint16_t op)
{
	for (size_t i = 0; i < ARRAY_LEN(k_umem); i++)
		if (k_umem[i].op == op)
			return &k_umem[i];
	return NULL;
}

/* ---- uid ---- */

int kern_devx_pick_uid(uint16_t ctx_uid, uint16_t whitelist_uid,
		       const void *in)
{
	if (kern_devx_is_whitelist_cmd(kern_mbox_opcode(in))) {
		if (ctx_uid)
			return ctx_uid;
		if (whitelist_uid)
			return whitelist_uid;
		return -EOPNOTSUPP;
	}
	if (!ctx_uid)
		return -EINVAL;
	return ctx_uid;
}

/* ---- header fields ---- */

uint16_t kern_mbox_opcode(const void *in)
{
	return (uint16_t)PRM_GET(mbox_in, in, opcode);
}

uint16_t kern_mbox_op_mod(const void *in)
{
	return (uint16_t)PRM_GET(mbox_in, in, op_mod);
}

uint16_t kern_mbox_uid(const void *in)
{
	return (uint16_t)PRM_GET(general_obj_in_cmd_hdr, in, uid);
}

void kern_mbox_set_uid(void *in, uint16_t uid)
{
	PRM_SET(general_obj_in_cmd_hdr, in, uid, uid);
}

uint16_t kern_mbox_vhca_tunnel_id(const void *in)
{
	return (uint16_t)PRM_GET(general_obj_in_cmd_hdr, in, vhca_tunnel_id);
}

uint8_t kern_mbox_status(const void *out)
{
	return (uint8_t)PRM_GET(mbox_out, out, status);
}

uint32_t kern_mbox_syndrome(const void *out)
{
	return PRM_GET(mbox_out, out, syndrome);
}

/* ---- spans ---- */

size_t kern_devx_in_span(uint16_t opcode)
{
	const struct kcreate *c = kern_kcreate_find(opcode);
	const struct ktarget *t = kern_ktarget_find(opcode);
	const struct kumem *u = kumem_find(opcode);
	size_t span = CMD_HDR_BYTES;

	if (c) {
		if (c->id_in_inbox)
			span = max_sz(span, kfld_word_end(c->id));
		span = max_sz(span, kern_kcond_in_end(c->cond));
		for (size_t i = 0; i < ARRAY_LEN(c->copy) && c->copy[i].src.bits; i++)
			span = max_sz(span, kfld_word_end(c->copy[i].src));
	}
	if (t)
		span = max_sz(span, kfld_word_end(t->id));
	for (size_t i = 0; u && i < ARRAY_LEN(u->bit) && u->bit[i].bits; i++)
		span = max_sz(span, kfld_word_end(u->bit[i]));
	switch (opcode) {
	case MLX5_CMD_OP_CREATE_MKEY:
		span = max_sz(span, KERN_DEVX_MKEY_IN_MIN);
		break;
	case MLX5_CMD_OP_CREATE_CQ:
		span = max_sz(span, kfld_word_end((struct kfld)F(create_cq_in, cq_context.c_eqn)));
		break;
	case MLX5_CMD_OP_ALLOC_FLOW_COUNTER:
		span = max_sz(span, BYTES(alloc_flow_counter_in));
		break;
	default:
		break;
	}
	return span;
}

size_t kern_devx_out_span(uint16_t opcode)
{
	const struct kcreate *c = kern_kcreate_find(opcode);
	size_t span = (size_t)PRM_ST_SZ_BYTES(mbox_out);

	if (c && !c->id_in_inbox)
		span = max_sz(span, kfld_word_end(c->id));
	return span;
}

/* ---- inbox writes ---- */

static void set_umem_valid_bounded(void *in, size_t inlen)
{
	const struct kumem *u = kumem_find(kern_mbox_opcode(in));

	for (size_t i = 0; u && i < ARRAY_LEN(u->bit) && u->bit[i].bits; i++)
		if (kfld_end(u->bit[i]) <= inlen)
			kfld_set(in, u->bit[i], 1);
}

void kern_devx_set_umem_valid(void *in)
{
	set_umem_valid_bounded(in, SIZE_MAX);
}

bool kern_devx_mkey_is_indirect(const void *create_mkey_in)
{
	uint32_t mode;

	if (kern_mbox_opcode(create_mkey_in) != MLX5_CMD_OP_CREATE_MKEY)
		return false;
	mode = PRM_GET(create_mkey_in, create_mkey_in, memory_key_mkey_entry.access_mode_1_0) |
	       PRM_GET(create_mkey_in, create_mkey_in, memory_key_mkey_entry.access_mode_4_2) << 2;
	return mode == MLX5_MKC_ACCESS_MODE_KLMS || mode == MLX5_MKC_ACCESS_MODE_KSM;
}

int kern_devx_prepare_create(void *in, size_t inlen, uint16_t uid)
{
	if (inlen < CMD_HDR_BYTES)
		return -EINVAL;
	kern_mbox_set_uid(in, uid);
	if (kern_mbox_opcode(in) == MLX5_CMD_OP_CREATE_MKEY) {
		/* devx_handle_mkey_create */
		if (inlen < KERN_DEVX_MKEY_IN_MIN)
			return -EINVAL;
		if (kern_devx_mkey_is_indirect(in))
			return 0;
	}
	set_umem_valid_bounded(in, inlen);
	return 0;
}

uint32_t kern_devx_cq_eqn(const void *create_cq_in)
{
	return PRM_GET(create_cq_in, create_cq_in, cq_context.c_eqn);
}

bool kern_devx_cq_is_apu(const void *create_cq_in, bool apu_cap)
{
	return apu_cap && PRM_GET(create_cq_in, create_cq_in, cq_context.apu_cq);
}

/* ---- status -> errno ---- */

/*
 * cmd_status_to_err(), drivers/net/ethernet/mellanox/mlx5/core/cmd.c
 * (mainline; NOT_READY was added with the status in 2023, older kernels
 * give it the default EIO).  Any status not listed: EIO.
 */
static const struct {
	uint8_t status;
	uint8_t err;
} k_status_errno[] = {
	{ MLX5_CMD_STAT_OK, 0 },
	{ MLX5_CMD_STAT_INT_ERR, EIO },
	{ MLX5_CMD_STAT_BAD_OP_ERR, EINVAL },
	{ MLX5_CMD_STAT_BAD_PARAM_ERR, EINVAL },
	{ MLX5_CMD_STAT_BAD_SYS_STATE_ERR, EIO },
	{ MLX5_CMD_STAT_BAD_RES_ERR, EINVAL },
	{ MLX5_CMD_STAT_RES_BUSY, EBUSY },
	{ MLX5_CMD_STAT_NOT_READY, EAGAIN },
	{ MLX5_CMD_STAT_LIM_ERR, ENOMEM },
	{ MLX5_CMD_STAT_BAD_RES_STATE_ERR, EINVAL },
	{ MLX5_CMD_STAT_IX_ERR, EINVAL },
	{ MLX5_CMD_STAT_NO_RES_ERR, EAGAIN },
	{ MLX5_CMD_STAT_BAD_INP_LEN_ERR, EIO },
	{ MLX5_CMD_STAT_BAD_OUTP_LEN_ERR, EIO },
	{ MLX5_CMD_STAT_BAD_QP_STATE_ERR, EINVAL },
	{ MLX5_CMD_STAT_BAD_PKT_ERR, EINVAL },
	{ MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR, EINVAL },
};

int kern_status_to_errno(uint8_t status)
{
	for (size_t i = 0; i < ARRAY_LEN(k_status_errno); i++)
		if (k_status_errno[i].status == status)
			return -(int)k_status_errno[i].err;
	return -EIO;
}

int kern_devx_status_errno(enum kern_cmd_class cls, uint8_t status)
{
	switch (cls) {
	case KERN_CMD_GENERAL:
	case KERN_CMD_CREATE:
	case KERN_CMD_MODIFY:
	case KERN_CMD_QUERY:
		/* mlx5_cmd_do(): "-EREMOTEIO : ... outbox.status != OK" */
		return status == MLX5_CMD_STAT_OK ? 0 : -EREMOTEIO;
	default:
		return kern_status_to_errno(status);
	}
}

/* ---- the checks of one method ---- */

static bool len_ok(size_t len, size_t min)
{
	return len >= min && len <= KERN_DEVX_ATTR_LEN_MAX;
}

int kern_devx_check(enum kern_devx_method method, const void *in,
		    size_t inlen, size_t outlen, uint16_t ctx_uid,
		    uint16_t whitelist_uid, bool vhca_tunnel_cap,
		    uint16_t *uid)
{
	bool cls_ok;
	int u;

	if (!len_ok(inlen, KERN_DEVX_CMD_IN_MIN))
		return -EINVAL;
	if (method == KERN_DEVX_OBJ_ASYNC_QUERY ? outlen > UINT16_MAX :
	    !len_ok(outlen, KERN_DEVX_CMD_OUT_MIN))
		return -EINVAL;
	if (method != KERN_DEVX_GENERAL && kern_mbox_vhca_tunnel_id(in))
		return -EINVAL;
	u = kern_devx_pick_uid(ctx_uid, whitelist_uid, in);
	if (u < 0)
		return u;
	switch (method) {
	case KERN_DEVX_GENERAL:
		cls_ok = kern_devx_is_general_cmd(in, vhca_tunnel_cap);
		break;
	case KERN_DEVX_OBJ_CREATE:
		cls_ok = kern_devx_is_create_cmd(in);
		break;
	case KERN_DEVX_OBJ_MODIFY:
		cls_ok = kern_devx_is_modify_cmd(in);
		break;
	case KERN_DEVX_OBJ_QUERY:
	case KERN_DEVX_OBJ_ASYNC_QUERY:
		cls_ok = kern_devx_is_query_cmd(in);
		break;
	default:
		return -EINVAL;
	}
	if (!cls_ok)
		return -EINVAL;
	*uid = (uint16_t)u;
	return 0;
}
