/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_devx_destroy.c -- the destroy command the kernel derives
 * from a create (devx_obj_build_destroy_cmd), how it runs it (DCT drain,
 * CQ), and the DRAIN_DCT it issues first.
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

static void kfld_copy(void *dst, struct kfld df, const void *src, struct kfld sf)
{
	if (sf.bits <= 32) {
		kfld_set(dst, df, kfld_get(src, sf));
		return;
	}
	/* Wide fields (the multicast GID) are byte aligned. */
	memcpy((uint8_t *)dst + df.off / 8, (const uint8_t *)src + sf.off / 8,
	       sf.bits / 8u);
}

int kern_devx_build_destroy(const void *create_in, const void *create_out,
			    void *destroy_in, size_t *destroy_inlen,
			    size_t *destroy_outlen)
{
	const struct kcreate *c = kern_kcreate_find(kern_mbox_opcode(create_in));
	uint64_t enc;

	if (!c)
		return -EINVAL;
	kern_devx_created_obj_id(create_in, create_out, &enc);
	memset(destroy_in, 0, c->destroy_inlen);
	PRM_SET(general_obj_in_cmd_hdr, destroy_in, uid, kern_mbox_uid(create_in));
	for (size_t i = 0; i < ARRAY_LEN(c->copy) && c->copy[i].dst.bits; i++)
		kfld_copy(destroy_in, c->copy[i].dst, create_in, c->copy[i].src);
	kfld_set(destroy_in, c->destroy_id, kern_devx_dec_obj_id(enc));
	PRM_SET(mbox_in, destroy_in, opcode, c->destroy_op);
	*destroy_inlen = c->destroy_inlen;
	*destroy_outlen = KERN_DEVX_DESTROY_OUTLEN;
	return 0;
}

enum kern_destroy_flow kern_devx_destroy_flow(const void *create_in,
					      bool apu_cap)
{
	switch (kern_mbox_opcode(create_in)) {
	case MLX5_CMD_OP_CREATE_DCT:
		return KERN_DESTROY_DCT;
	case MLX5_CMD_OP_CREATE_CQ:
		return kern_devx_cq_is_apu(create_in, apu_cap) ?
		       KERN_DESTROY_PLAIN : KERN_DESTROY_CQ;
	default:
		return KERN_DESTROY_PLAIN;
	}
}

int kern_devx_build_drain_dct(const void *destroy_dct_in, void *drain_in,
			      size_t *drain_inlen)
{
	if (kern_mbox_opcode(destroy_dct_in) != MLX5_CMD_OP_DESTROY_DCT)
		return -EINVAL;
	memset(drain_in, 0, PRM_ST_SZ_BYTES(drain_dct_in));
	PRM_SET(drain_dct_in, drain_in, opcode, MLX5_CMD_OP_DRAIN_DCT);
	PRM_SET(drain_dct_in, drain_in, uid, kern_mbox_uid(destroy_dct_in));
	PRM_SET(drain_dct_in, drain_in, dctn, PRM_GET(destroy_dct_in, destroy_dct_in, dctn));
	*drain_inlen = PRM_ST_SZ_BYTES(drain_dct_in);
	return 0;
}
