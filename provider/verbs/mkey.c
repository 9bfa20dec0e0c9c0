/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_create_mkey / mlx5dv_destroy_mkey / _mlx5dv_mkey_check as
 * libmlx5 44 (verbs.c _mlx5dv_create_mkey) behaves.  The mkey is
 * CREATE_MKEY of a KLM mkey (access mode KLMs, free, umr_en, local read,
 * qpn 0xffffff, key byte 0, translations_octword_size = max_entries
 * rounded up to 4, en_rinval for REMOTE_INVALIDATE), through the
 * context's object path as libmlx5's DEVX object; a UMR work request
 * gives it a translation (qp_wr_mkey.c).
 *
 * Errors (NULL + errno for create; an errno for destroy and check):
 *   create   EOPNOTSUPP: no create flag, or one outside INDIRECT,
 *            BLOCK_SIGNATURE, CRYPTO, REMOTE_INVALIDATE (UPDATE_TAG is
 *            not offered); BLOCK_SIGNATURE without signature offload or
 *            CRYPTO without a crypto engine (neither is advertised:
 *            sho, crypto); then CREATE_MKEY's errno
 *   destroy  DESTROY_MKEY's errno
 *   check    EINVAL: no signature context (there never is one here)
 */
#include <errno.h>
#include <stdlib.h>

#include "shell/abi_export.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/core/cmd.h"
#include "provider/core/context.h"
#include "provider/verbs/mkey.h"
#include "provider/verbs/pd.h"
#include "provider/mana/mana_prov.h"

#define MKEY_CREATE_FLAGS                                                     \
	(MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |                                 \
	 MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE |                          \
	 MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO |                                   \
	 MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE)

MLX5EMU_ABI(mlx5dv_create_mkey);
struct mlx5dv_mkey *
mlx5emu_abi_mlx5dv_create_mkey(struct mlx5dv_mkey_init_attr *attr)
{
	/* libmlx5: no dv ops for a device not its own */
	if (attr && attr->pd && prov_mana_is(attr->pd->context))
		return prov_mana_unsupported();
	uint8_t in[PRM_ST_SZ_BYTES(create_mkey_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_mkey_out)] = { 0 };
	void *mkc = PRM_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	struct ibv_pd *pd = attr->pd;
	struct prov_context *pctx = to_prov_context(pd->context);
	struct prov_mkey *mk;
	int err;

	if (!attr->create_flags || (attr->create_flags & ~MKEY_CREATE_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* mlx5_create_sig_ctx: no block signature offload (sho);
	 * no crypto engines. */
	if (attr->create_flags & (MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE |
				  MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	mk = calloc(1, sizeof(*mk));
	if (!mk) {
		errno = ENOMEM;
		return NULL;
	}
	mk->num_desc = (uint16_t)((attr->max_entries + 3u) & ~3u);
	PRM_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	PRM_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
	PRM_SET(mkc, mkc, free, 1);
	PRM_SET(mkc, mkc, umr_en, 1);
	PRM_SET(mkc, mkc, pd, prov_pd_pdn(pd));
	PRM_SET(mkc, mkc, translations_octword_size, mk->num_desc);
	PRM_SET(mkc, mkc, lr, 1);
	PRM_SET(mkc, mkc, qpn, 0xffffff);
	PRM_SET(mkc, mkc, mkey_7_0, 0);
	if (attr->create_flags & MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE)
		PRM_SET(mkc, mkc, en_rinval, 1);
	errno = 0;
	mk->obj = prov_obj_create(pctx, in, sizeof(in), out, sizeof(out));
	if (!mk->obj) {
		err = errno;
		free(mk);
		errno = err;
		return NULL;
	}
	attr->max_entries = mk->num_desc;
	mk->pd = pd;
	mk->dv.lkey = PRM_GET(create_mkey_out, out, mkey_index) << 8;
	mk->dv.rkey = mk->dv.lkey;
	return &mk->dv;
}

MLX5EMU_ABI(mlx5dv_destroy_mkey);
int mlx5emu_abi_mlx5dv_destroy_mkey(struct mlx5dv_mkey *dv)
{
	struct prov_mkey *mk = to_prov_mkey(dv);
	int err;

	err = prov_obj_destroy(to_prov_context(mk->pd->context), mk->obj);
	if (err)
		return err;
	free(mk);
	return 0;
}

MLX5EMU_ABI(_mlx5dv_mkey_check);
int mlx5emu_abi__mlx5dv_mkey_check(struct mlx5dv_mkey *mkey,
				   struct mlx5dv_mkey_err *err_info,
				   size_t err_info_size)
{
	(void)mkey;
	(void)err_info;
	(void)err_info_size;
	return EINVAL;
}
