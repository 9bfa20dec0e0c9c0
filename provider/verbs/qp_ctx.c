/* SPDX-License-Identifier: MIT */
/*
 * The QP area's per-context state (see qp.h, struct prov_qp_ctx).
 *
 * Doorbell registers, as libmlx5 44 hands them to QPs (mlx5_get_qp_uar
 * with the kernel's dynamic UARs): under MLX5_SHUT_UP_BF (any value but
 * "0") every QP rings the context's non-cached page (bf.size 0);
 * otherwise a QP takes a free dedicated BlueFlame register, a new one
 * while fewer than the low-latency count exist, else the least used of
 * the shared registers (new ones while fewer than the rest of
 * MLX5_TOTAL_UUARS exist).  The counts follow libmlx5: MLX5_TOTAL_UUARS
 * (16 by default, at least 2, even, at most 512), MLX5_NUM_LOW_LAT_UUARS
 * (4 by default, at least MLX5_TOTAL_UUARS - 12); a bad value fails the
 * context open as libmlx5's get_uar_info does (EINVAL, or ENOMEM when the
 * low-latency count leaves no register).  Registers come from the DEVX
 * UAR pool (mlx5dv_devx_alloc_uar(BF)): 256-byte BlueFlame halves of the
 * 512-byte registers the capabilities give.
 *
 * mlx5_ib's own resources: an XRC target QP names no PD of the
 * application's, so the kernel gives it its own (devr->p0); an XRC
 * initiator names the kernel's XRC domain (devr->x1).  Both are made on
 * first use and go with the context.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shell/abi_export.h"
#include "provider/devx/devx.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/verbs_ctx.h"

/* libmlx5's MLX5_DEF_TOT_UUARS, MLX5_MED_BFREGS_TSHOLD, MLX5_MAX_BFREGS. */
#define PROV_DEF_TOT_UUARS 16
#define PROV_MED_BFREGS_TSHOLD 12
#define PROV_MAX_BFREGS 512
#define PROV_BFREGS_PER_UAR 2

MLX5EMU_ABI(mlx5dv_devx_alloc_uar);
MLX5EMU_ABI(mlx5dv_devx_free_uar);

static int env_int(const char *name, int dflt)
{
	const char *env = getenv(name);

	return env ? atoi(env) : dflt;
}

static bool env_shut_up_bf(void)
{
	const char *env = getenv("MLX5_SHUT_UP_BF");

	return env && strcmp(env, "0");
}

/* get_always_bf(): BlueFlame for every lone WQE unless "0". */
static bool env_prefer_bf(void)
{
	const char *env = getenv("MLX5_POST_SEND_PREFER_BF");

	return !env || strcmp(env, "0");
}

/* get_uar_info(): 0 or an errno. */
static int qp_ctx_uar_counts(struct prov_qp_ctx *qc)
{
	int tot = env_int("MLX5_TOTAL_UUARS", PROV_DEF_TOT_UUARS);
	int low;

	if (tot < 1)
		return EINVAL;
	if (tot < PROV_BFREGS_PER_UAR)
		tot = PROV_BFREGS_PER_UAR;
	tot = (tot + PROV_BFREGS_PER_UAR - 1) / PROV_BFREGS_PER_UAR *
	      PROV_BFREGS_PER_UAR;
	if (tot > PROV_MAX_BFREGS)
		return ENOMEM;
	low = env_int("MLX5_NUM_LOW_LAT_UUARS", 4);
	if (low < 0)
		return EINVAL;
	if (low < tot - PROV_MED_BFREGS_TSHOLD)
		low = tot - PROV_MED_BFREGS_TSHOLD;
	if (low > tot - 1)
		return ENOMEM;
	qc->max_dedicated = (unsigned int)low;
	qc->max_shared = (unsigned int)(tot - low);
	return 0;
}

int prov_qp_ctx_init(struct prov_context *pctx)
{
	struct prov_qp_ctx *qc = calloc(1, sizeof(*qc));
	int ret;

	if (!qc)
		return ENOMEM;
	ret = qp_ctx_uar_counts(qc);
	if (ret) {
		free(qc);
		return ret;
	}
	pthread_mutex_init(&qc->lock, NULL);
	qc->shut_up_bf = env_shut_up_bf();
	qc->prefer_bf = env_prefer_bf();
	pctx->qp_ctx = qc;
	return 0;
}

void prov_qp_ctx_fini(struct prov_context *pctx)
{
	struct prov_qp_ctx *qc = pctx->qp_ctx;
	struct prov_qp_bf *bf;

	if (!qc)
		return;
	prov_xrcd_ctx_fini(pctx);
	if (qc->td)
		prov_obj_destroy(pctx, qc->td);
	if (qc->x1)
		prov_obj_destroy(pctx, qc->x1);
	if (qc->p0)
		prov_obj_destroy(pctx, qc->p0);
	/* The registers themselves belong to the DEVX pool, freed next. */
	while ((bf = qc->bfs)) {
		qc->bfs = bf->next;
		pthread_spin_destroy(&bf->lock);
		free(bf);
	}
	pthread_mutex_destroy(&qc->lock);
	free(qc);
	pctx->qp_ctx = NULL;
}

/* A BlueFlame register of the DEVX pool into @bf (libmlx5's
 * mlx5_attach_dedicated_uar): 0 or an errno. */
static int bf_take_uar(struct prov_context *pctx, struct prov_qp_bf *bf)
{
	const struct mlx5dv_devx_uar *uar;

	uar = mlx5emu_abi_mlx5dv_devx_alloc_uar(&pctx->vctx.context,
						MLX5DV_UAR_ALLOC_TYPE_BF);
	if (!uar)
		return errno ? errno : ENOMEM;
	bf->uar = uar;
	bf->reg = uar->reg_addr;
	bf->page_id = uar->page_id;
	bf->mmap_off = uar->mmap_off;
	bf->buf_size = (UINT32_C(1) << PROV_CAP_GEN(pctx, log_bf_reg_size)) / 2;
	pthread_spin_init(&bf->lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

static struct prov_qp_bf *bf_new(struct prov_context *pctx, bool dedicated)
{
	struct prov_qp_ctx *qc = pctx->qp_ctx;
	struct prov_qp_bf *bf = calloc(1, sizeof(*bf));
	int err;

	if (!bf) {
		errno = ENOMEM;
		return NULL;
	}
	err = bf_take_uar(pctx, bf);
	if (err) {
		free(bf);
		errno = err;
		return NULL;
	}
	bf->dedicated = dedicated;
	/* QPs sharing a register must not interleave their writes. */
	bf->need_lock = !dedicated;
	bf->next = qc->bfs;
	qc->bfs = bf;
	if (dedicated)
		qc->n_dedicated++;
	else
		qc->n_shared++;
	return bf;
}

int prov_qp_bf_dedicated_init(struct prov_context *pctx, struct prov_qp_bf *bf)
{
	memset(bf, 0, sizeof(*bf));
	bf->dedicated = true;
	return bf_take_uar(pctx, bf);
}

void prov_qp_bf_dedicated_fini(struct prov_qp_bf *bf)
{
	mlx5emu_abi_mlx5dv_devx_free_uar((struct mlx5dv_devx_uar *)bf->uar);
	pthread_spin_destroy(&bf->lock);
}

static struct prov_qp_bf *bf_nc(struct prov_context *pctx)
{
	struct prov_qp_ctx *qc = pctx->qp_ctx;
	const struct mlx5dv_devx_uar *nc = prov_devx_nc_uar(pctx);

	if (qc->nc_bf)
		return qc->nc_bf;
	if (!nc) {
		errno = ENOMEM;
		return NULL;
	}
	qc->nc_bf = calloc(1, sizeof(*qc->nc_bf));
	if (!qc->nc_bf) {
		errno = ENOMEM;
		return NULL;
	}
	qc->nc_bf->uar = nc;
	qc->nc_bf->reg = nc->reg_addr;
	qc->nc_bf->page_id = nc->page_id;
	qc->nc_bf->mmap_off = nc->mmap_off;
	qc->nc_bf->nc = true;
	pthread_spin_init(&qc->nc_bf->lock, PTHREAD_PROCESS_PRIVATE);
	qc->nc_bf->next = qc->bfs;
	qc->bfs = qc->nc_bf;
	return qc->nc_bf;
}

int prov_qp_bf_get(struct prov_context *pctx, struct prov_qp_bf **out)
{
	struct prov_qp_ctx *qc = pctx->qp_ctx;
	struct prov_qp_bf *bf = NULL, *it;

	pthread_mutex_lock(&qc->lock);
	if (qc->shut_up_bf || !PROV_CAP_GEN(pctx, bf)) {
		bf = bf_nc(pctx);
		goto out;
	}
	for (it = qc->bfs; it; it = it->next)
		if (it->dedicated && !it->count) {
			bf = it;
			goto out;
		}
	if (qc->n_dedicated < qc->max_dedicated) {
		bf = bf_new(pctx, true);
		goto out;
	}
	if (qc->n_shared < qc->max_shared && !bf_new(pctx, false))
		goto out;
	/* The least used, the oldest of equals (the list is newest first). */
	for (it = qc->bfs; it; it = it->next)
		if (!it->dedicated && !it->nc && (!bf || it->count <= bf->count))
			bf = it;
	if (!bf)
		errno = ENOMEM;
out:
	if (bf)
		bf->count++;
	pthread_mutex_unlock(&qc->lock);
	*out = bf;
	return bf ? 0 : (errno ? errno : ENOMEM);
}

void prov_qp_bf_put(struct prov_context *pctx, struct prov_qp_bf *bf)
{
	struct prov_qp_ctx *qc = pctx->qp_ctx;

	if (!bf)
		return;
	pthread_mutex_lock(&qc->lock);
	if (bf->count)
		bf->count--;
	pthread_mutex_unlock(&qc->lock);
}

/* One of mlx5_ib's own objects: ALLOC_PD, ALLOC_XRCD or
 * ALLOC_TRANSPORT_DOMAIN. */
static int qp_ctx_alloc(struct prov_context *pctx, uint16_t opcode,
			struct mlx5be_obj **obj, uint32_t *id)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };

	_Static_assert(PRM_ST_SZ_BYTES(alloc_pd_in) ==
		       PRM_ST_SZ_BYTES(alloc_xrcd_in), "same inbox");
	_Static_assert(PRM_BIT_OFF(alloc_pd_out, pd) ==
		       PRM_BIT_OFF(alloc_xrcd_out, xrcd), "same outbox");
	_Static_assert(PRM_ST_SZ_BYTES(alloc_pd_in) ==
		       PRM_ST_SZ_BYTES(alloc_transport_domain_in), "same inbox");
	_Static_assert(PRM_BIT_OFF(alloc_pd_out, pd) ==
		       PRM_BIT_OFF(alloc_transport_domain_out, transport_domain),
		       "same outbox");
	PRM_SET(alloc_pd_in, in, opcode, opcode);
	*obj = prov_obj_create(pctx, in, sizeof(in), out, sizeof(out));
	if (!*obj)
		return errno;
	*id = PRM_GET(alloc_pd_out, out, pd);
	return 0;
}

int prov_qp_ctx_pd0(struct prov_context *pctx, uint32_t *pdn)
{
	struct prov_qp_ctx *qc = pctx->qp_ctx;
	int err = 0;

	pthread_mutex_lock(&qc->lock);
	if (!qc->p0)
		err = qp_ctx_alloc(pctx, MLX5_CMD_OP_ALLOC_PD, &qc->p0, &qc->p0n);
	*pdn = qc->p0n;
	pthread_mutex_unlock(&qc->lock);
	return err;
}

int prov_qp_ctx_xrcd1(struct prov_context *pctx, uint32_t *xrcdn)
{
	struct prov_qp_ctx *qc = pctx->qp_ctx;
	int err = 0;

	pthread_mutex_lock(&qc->lock);
	if (!qc->x1)
		err = qp_ctx_alloc(pctx, MLX5_CMD_OP_ALLOC_XRCD, &qc->x1,
				   &qc->x1n);
	*xrcdn = qc->x1n;
	pthread_mutex_unlock(&qc->lock);
	return err;
}

int prov_qp_ctx_td(struct prov_context *pctx, uint32_t *tdn)
{
	struct prov_qp_ctx *qc = pctx->qp_ctx;
	int err = 0;

	pthread_mutex_lock(&qc->lock);
	if (!qc->td)
		err = qp_ctx_alloc(pctx, MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN,
				   &qc->td, &qc->tdn);
	*tdn = qc->tdn;
	pthread_mutex_unlock(&qc->lock);
	return err;
}
