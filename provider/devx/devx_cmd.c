/* SPDX-License-Identifier: MIT */
/*
 * DEVX commands: mlx5dv_devx_general_cmd, mlx5dv_devx_obj_create / query /
 * modify / destroy and mlx5dv_devx_query_eqn.
 *
 * The provider adds nothing to the mailboxes: the backend (the kernel's
 * DEVX layer) classifies opcodes, stamps the uid, checks object ids and
 * builds the destroy command.  As in libmlx5 44, int-returning entries
 * return the errno value (and leave it in errno); a firmware error is
 * EREMOTEIO with the outbox (status, syndrome) copied back.
 */
#include <errno.h>
#include <stdlib.h>

#include "provider/core/device.h"
#include "provider/devx/devx.h"
#include "shell/abi_export.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

static const struct mlx5be_ops *ctx_be(struct ibv_context *context)
{
	return to_prov_context(context)->be;
}

/*
 * What libmlx5 records about a new object (set_devx_obj_info): the create
 * opcode, a general object's type and the id firmware returned.  Most create
 * outboxes carry the id in bits [23:0] of their third dword.
 */
static void devx_obj_set_info(struct mlx5dv_devx_obj *obj, const void *in,
			      const void *out, size_t outlen)
{
	obj->opcode = PRM_GET(general_obj_in_cmd_hdr, in, opcode);
	if (outlen < PRM_ST_SZ_BYTES(general_obj_out_cmd_hdr))
		return;
	switch (obj->opcode) {
	case MLX5_CMD_OP_CREATE_GENERAL_OBJECT:
		obj->obj_type = PRM_GET(general_obj_in_cmd_hdr, in, obj_type);
		obj->object_id = PRM_GET(general_obj_out_cmd_hdr, out, obj_id);
		break;
	case MLX5_CMD_OP_ALLOC_FLOW_COUNTER:
		obj->object_id = PRM_GET(general_obj_out_cmd_hdr, out, obj_id);
		break;
	default:
		obj->object_id = PRM_GET(general_obj_out_cmd_hdr, out, obj_id) &
				 0xffffff;
		break;
	}
}

MLX5EMU_ABI(mlx5dv_devx_general_cmd);
int mlx5emu_abi_mlx5dv_devx_general_cmd(struct ibv_context *context,
					const void *in, size_t inlen,
					void *out, size_t outlen)
{
	/* libmlx5: no dv ops for a device not its own */
	if (prov_device_mana_ctx(context))
		return EOPNOTSUPP;
	const struct mlx5be_ops *be;

	if (!context)
		return prov_err(EINVAL);
	be = ctx_be(context);
	if (!be->general_cmd)
		return prov_err(EOPNOTSUPP);
	return prov_be_err(be->general_cmd(to_prov_context(context)->bectx,
					     in, inlen, out, outlen));
}

MLX5EMU_ABI(mlx5dv_devx_obj_create);
struct mlx5dv_devx_obj *mlx5emu_abi_mlx5dv_devx_obj_create(struct ibv_context *context,
							   const void *in, size_t inlen,
							   void *out, size_t outlen)
{
	if (prov_device_mana_ctx(context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	const struct mlx5be_ops *be;
	struct mlx5dv_devx_obj *obj;
	int err;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	be = ctx_be(context);
	if (!be->obj_create) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	obj = calloc(1, sizeof(*obj));
	if (!obj) {
		errno = ENOMEM;
		return NULL;
	}
	obj->be = be->obj_create(to_prov_context(context)->bectx, in, inlen,
				 out, outlen);
	if (!obj->be) {
		err = errno;
		free(obj);
		errno = err;
		return NULL;
	}
	obj->context = context;
	devx_obj_set_info(obj, in, out, outlen);
	prov_devx_track(to_prov_context(context), &obj->node,
			&to_prov_context(context)->devx_ctx->objs);
	return obj;
}

MLX5EMU_ABI(mlx5dv_devx_obj_query);
int mlx5emu_abi_mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in,
				      size_t inlen, void *out, size_t outlen)
{
	const struct mlx5be_ops *be;

	if (!obj)
		return prov_err(EINVAL);
	be = ctx_be(obj->context);
	if (!be->obj_query)
		return prov_err(EOPNOTSUPP);
	return prov_be_err(be->obj_query(obj->be, in, inlen, out, outlen));
}

MLX5EMU_ABI(mlx5dv_devx_obj_modify);
int mlx5emu_abi_mlx5dv_devx_obj_modify(struct mlx5dv_devx_obj *obj, const void *in,
				       size_t inlen, void *out, size_t outlen)
{
	const struct mlx5be_ops *be;

	if (!obj)
		return prov_err(EINVAL);
	be = ctx_be(obj->context);
	if (!be->obj_modify)
		return prov_err(EOPNOTSUPP);
	return prov_be_err(be->obj_modify(obj->be, in, inlen, out, outlen));
}

MLX5EMU_ABI(mlx5dv_devx_obj_destroy);
int mlx5emu_abi_mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	const struct mlx5be_ops *be;
	int ret;

	if (!obj)
		return prov_err(EINVAL);
	be = ctx_be(obj->context);
	if (!be->obj_destroy)
		return prov_err(EOPNOTSUPP);
	/* On failure (EBUSY, ...) the object stays usable, as in libmlx5. */
	ret = be->obj_destroy(obj->be);
	if (ret)
		return prov_be_err(ret);
	prov_devx_untrack(to_prov_context(obj->context), &obj->node);
	free(obj);
	return 0;
}

MLX5EMU_ABI(mlx5dv_devx_query_eqn);
int mlx5emu_abi_mlx5dv_devx_query_eqn(struct ibv_context *context, uint32_t vector,
				      uint32_t *eqn)
{
	if (prov_device_mana_ctx(context))
		return EOPNOTSUPP;
	const struct mlx5be_ops *be;

	if (!context || !eqn)
		return prov_err(EINVAL);
	be = ctx_be(context);
	if (!be->query_eqn)
		return prov_err(EOPNOTSUPP);
	return prov_be_err(be->query_eqn(to_prov_context(context)->bectx,
					   vector, eqn));
}
