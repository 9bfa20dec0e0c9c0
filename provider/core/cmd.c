/* SPDX-License-Identifier: MIT */
/* PRM commands on the provider's own behalf (see cmd.h). */
#include <errno.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/core/cmd.h"
#include "provider/core/error.h"
#include "provider/core/context.h"

int prov_cmd_status_errno(const void *out)
{
	switch (PRM_GET(mbox_out, out, status)) {
	case MLX5_CMD_STAT_OK:
		return 0;
	case MLX5_CMD_STAT_BAD_OP_ERR:
	case MLX5_CMD_STAT_BAD_PARAM_ERR:
	case MLX5_CMD_STAT_BAD_RES_ERR:
	case MLX5_CMD_STAT_BAD_RES_STATE_ERR:
	case MLX5_CMD_STAT_IX_ERR:
	case MLX5_CMD_STAT_BAD_QP_STATE_ERR:
	case MLX5_CMD_STAT_BAD_PKT_ERR:
	case MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR:
		return EINVAL;
	case MLX5_CMD_STAT_RES_BUSY:
		return EBUSY;
	case MLX5_CMD_STAT_LIM_ERR:
		return ENOMEM;
	case MLX5_CMD_STAT_NO_RES_ERR:
		return EAGAIN;
	default:	/* INT_ERR, BAD_SYS_STATE, BAD_INP/OUTP_LEN */
		return EIO;
	}
}

struct mlx5be_obj *prov_obj_create(struct prov_context *pctx, const void *in,
				   size_t inlen, void *out, size_t outlen)
{
	struct mlx5be_obj *obj = pctx->be->obj_create(pctx->bectx, in, inlen,
						      out, outlen);

	if (!obj && errno == EREMOTEIO) {
		int err = prov_cmd_status_errno(out);

		errno = err ? err : EIO;
	} else if (!obj && !errno) {
		errno = EIO;
	}
	return obj;
}

/* A backend answer (0 or -errno) as the kernel's: EREMOTEIO is the
 * firmware status's errno. */
static int prov_obj_answer(int ret, const void *out)
{
	if (ret == -EREMOTEIO)
		return prov_cmd_status_errno(out);
	return ret < 0 ? -ret : ret;
}

int prov_obj_modify(struct prov_context *pctx, struct mlx5be_obj *obj,
		    const void *in, size_t inlen, void *out, size_t outlen)
{
	return prov_obj_answer(pctx->be->obj_modify(obj, in, inlen, out,
						    outlen), out);
}

int prov_obj_query(struct prov_context *pctx, struct mlx5be_obj *obj,
		   const void *in, size_t inlen, void *out, size_t outlen)
{
	return prov_obj_answer(pctx->be->obj_query(obj, in, inlen, out,
						   outlen), out);
}

int prov_obj_destroy(struct prov_context *pctx, struct mlx5be_obj *obj)
{
	int ret = pctx->be->obj_destroy(obj);

	return ret < 0 ? -ret : ret;
}

int prov_devx_obj_query(struct prov_context *pctx, struct mlx5be_obj *obj,
			const void *in, size_t inlen, void *out, size_t outlen)
{
	if (!obj)
		return prov_err(EINVAL);
	if (!pctx->be->obj_query)
		return prov_err(EOPNOTSUPP);
	return prov_be_err(pctx->be->obj_query(obj, in, inlen, out, outlen));
}

int prov_devx_obj_modify(struct prov_context *pctx, struct mlx5be_obj *obj,
			 const void *in, size_t inlen, void *out,
			 size_t outlen)
{
	if (!obj)
		return prov_err(EINVAL);
	if (!pctx->be->obj_modify)
		return prov_err(EOPNOTSUPP);
	return prov_be_err(pctx->be->obj_modify(obj, in, inlen, out, outlen));
}

struct mlx5be_umem *prov_umem_reg(struct prov_context *pctx, void *addr,
				  size_t size, uint32_t access, uint32_t *id)
{
	/* MLX5_ADAPTER_PAGE_SIZE and up, as mlx5dv_devx_umem_reg asks. */
	return pctx->be->umem_reg(pctx->bectx, addr, size, access,
				  UINT64_MAX & ~(uint64_t)(PROV_UAR_PAGE_SIZE - 1),
				  id);
}

void prov_umem_dereg(struct prov_context *pctx, struct mlx5be_umem *umem)
{
	if (umem)
		pctx->be->umem_dereg(umem);
}

int prov_cmd_exec(struct prov_context *pctx, const void *in, size_t inlen,
		  void *out, size_t outlen)
{
	int ret = -pctx->be->general_cmd(pctx->bectx, in, inlen, out, outlen);

	if (ret != EREMOTEIO)
		return ret;
	return prov_cmd_status_errno(out);
}
