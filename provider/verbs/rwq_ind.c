/* SPDX-License-Identifier: MIT */
/*
 * Receive WQ indirection tables, as libmlx5 44 (mlx5_create_rwq_ind_table)
 * over uverbs (ib_uverbs_ex_create_rwq_ind_table) and mlx5_ib
 * (mlx5_ib_create_rwq_ind_table) make them: one RQT of 2^log_ind_tbl_size
 * entries, each the RQN of a WQ of this context, which the table holds a
 * use of until it goes.  ind_tbl_num is the RQT's number.
 *
 * Errors (NULL + errno; destroy returns the errno):
 *   EINVAL     (libibverbs) unknown comp_mask bits; (uverbs) a size past
 *              2^13 entries, a missing WQ or one of another context;
 *              (mlx5_ib) a size past the device's log_max_rqt_size
 *   EBUSY      destroy while an RSS QP names the table
 *   firmware   the status's errno
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/caps.h"
#include "provider/core/cmd.h"
#include "provider/core/context.h"
#include "provider/core/error.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/verbs/wq.h"
#include "provider/mana/mana_prov.h"

/* uverbs' IB_USER_VERBS_MAX_LOG_IND_TBL_SIZE. */
#define RWQ_IND_LOG_MAX 0x0du

static int rwq_ind_create_rqt(struct prov_rwq_ind *t,
			      const struct ibv_rwq_ind_table_init_attr *attr)
{
	uint32_t n = 1u << attr->log_ind_tbl_size;
	size_t inlen = PRM_ST_SZ_BYTES(create_rqt_in) +
		       (size_t)n * PRM_ARRAY_ELEM_BYTES(rqtc, rq_num);
	uint8_t out[PRM_ST_SZ_BYTES(create_rqt_out)] = { 0 };
	uint8_t *in = calloc(1, inlen);
	void *rqtc;

	if (!in)
		return ENOMEM;
	rqtc = PRM_ADDR_OF(create_rqt_in, in, rqt_context);
	PRM_SET(create_rqt_in, in, opcode, MLX5_CMD_OP_CREATE_RQT);
	PRM_SET(rqtc, rqtc, rqt_actual_size, n);
	PRM_SET(rqtc, rqtc, rqt_max_size, n);
	for (uint32_t i = 0; i < n; i++)
		PRM_SET(rq_num, PRM_ARRAY_ADDR(rqtc, rqtc, rq_num, i), rq_num,
			prov_rwq_rqn(attr->ind_tbl[i]));
	t->obj = prov_obj_create(t->pctx, in, inlen, out, sizeof(out));
	free(in);
	if (!t->obj)
		return errno;
	t->tbl.ind_tbl_num = PRM_GET(create_rqt_out, out, rqtn);
	return 0;
}

static struct ibv_rwq_ind_table *
prov_create_rwq_ind_table(struct ibv_context *context,
			  struct ibv_rwq_ind_table_init_attr *attr)
{
	struct prov_context *pctx = to_prov_context(context);
	struct prov_rwq_ind *t;
	uint32_t n;
	int err = EINVAL;

	if (!attr || attr->comp_mask >= IBV_CREATE_IND_TABLE_RESERVED ||
	    attr->log_ind_tbl_size > RWQ_IND_LOG_MAX || !attr->ind_tbl)
		goto fail;
	n = 1u << attr->log_ind_tbl_size;
	for (uint32_t i = 0; i < n; i++)
		if (!attr->ind_tbl[i] || attr->ind_tbl[i]->context != context)
			goto fail;
	if (attr->log_ind_tbl_size > PROV_CAP_GEN(pctx, log_max_rqt_size))
		goto fail;
	err = ENOMEM;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto fail;
	t->wqs = calloc(n, sizeof(*t->wqs));
	if (!t->wqs) {
		free(t);
		goto fail;
	}
	t->pctx = pctx;
	err = rwq_ind_create_rqt(t, attr);
	if (err) {
		free(t->wqs);
		free(t);
		goto fail;
	}
	t->log_size = attr->log_ind_tbl_size;
	t->nwqs = n;
	for (uint32_t i = 0; i < n; i++) {
		t->wqs[i] = attr->ind_tbl[i];
		prov_rwq_hold(t->wqs[i], 1);
	}
	atomic_init(&t->use, 0);
	t->tbl.context = context;
	t->tbl.ind_tbl_handle = prov_handle_alloc(pctx);
	t->tbl.comp_mask = 0;
	return &t->tbl;
fail:
	errno = err;
	return NULL;
}

static int prov_destroy_rwq_ind_table(struct ibv_rwq_ind_table *tbl)
{
	struct prov_rwq_ind *t = to_prov_rwq_ind(tbl);
	int expected = 0, err;

	if (!atomic_compare_exchange_strong(&t->use, &expected, -1)) {
		errno = EBUSY;
		return EBUSY;
	}
	err = prov_obj_destroy(t->pctx, t->obj);
	if (err) {
		atomic_store(&t->use, 0);
		errno = err;
		return err;
	}
	for (unsigned int i = 0; i < t->nwqs; i++)
		prov_rwq_hold(t->wqs[i], -1);
	free(t->wqs);
	free(t);
	return 0;
}

void prov_rwq_ind_hold(struct ibv_rwq_ind_table *tbl, int delta)
{
	atomic_fetch_add(&to_prov_rwq_ind(tbl)->use, delta);
}

void prov_rwq_ind_set_ops(struct prov_context *pctx)
{
	pctx->vctx.create_rwq_ind_table = prov_create_rwq_ind_table;
	pctx->vctx.destroy_rwq_ind_table = prov_destroy_rwq_ind_table;
}

/* The DEVX object methods on the RQT behind a table. */
MLX5EMU_ABI(mlx5dv_devx_ind_tbl_query);
int mlx5emu_abi_mlx5dv_devx_ind_tbl_query(struct ibv_rwq_ind_table *tbl,
					  const void *in, size_t inlen,
					  void *out, size_t outlen)
{
	/* libmlx5: no dv ops for a device not its own */
	if (tbl && prov_mana_is(tbl->context))
		return EOPNOTSUPP;
	if (!tbl)
		return prov_err(EINVAL);
	return prov_devx_obj_query(to_prov_rwq_ind(tbl)->pctx,
				   to_prov_rwq_ind(tbl)->obj, in, inlen, out,
				   outlen);
}

MLX5EMU_ABI(mlx5dv_devx_ind_tbl_modify);
int mlx5emu_abi_mlx5dv_devx_ind_tbl_modify(struct ibv_rwq_ind_table *tbl,
					   const void *in, size_t inlen,
					   void *out, size_t outlen)
{
	if (tbl && prov_mana_is(tbl->context))
		return EOPNOTSUPP;
	if (!tbl)
		return prov_err(EINVAL);
	return prov_devx_obj_modify(to_prov_rwq_ind(tbl)->pctx,
				    to_prov_rwq_ind(tbl)->obj, in, inlen, out,
				    outlen);
}
