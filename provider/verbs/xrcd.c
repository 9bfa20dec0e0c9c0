/* SPDX-License-Identifier: MIT */
/*
 * XRC domains (ibv_open_xrcd / ibv_close_xrcd), as libibverbs 44
 * (ibv_cmd_open_xrcd) over the upstream kernel (uverbs open_xrcd,
 * ib_uverbs_dealloc_xrcd, mlx5_ib_alloc_xrcd) behave.
 *
 * A domain opened with a file descriptor is keyed on the file's inode:
 * every open of the same file shares one domain (one firmware XRCD from
 * ALLOC_XRCD), which lives until the last handle is closed and the last
 * XRC SRQ and XRC target QP in it are gone.  fd -1 gives a private domain
 * that goes with its handle.  Sharing is per device context: a context is
 * a DEVX user context, and firmware lets one context's objects name only
 * its own (or the kernel's) objects, so a second context opening the same
 * file gets a domain of its own (the kernel would share one across
 * contexts and processes).
 *
 * ibv_open_xrcd: NULL + errno
 *   EOPNOTSUPP  comp_mask bits libibverbs does not know; no XRC on the
 *               device
 *   EINVAL      comp_mask without FD or without OFLAGS; O_EXCL on a file
 *               whose domain exists
 *   EBADF       fd neither -1 nor an open file
 *   EAGAIN      no domain for the file yet and no O_CREAT
 *   firmware    ALLOC_XRCD's status as an errno (ENOMEM at log_max_xrcd)
 * ibv_close_xrcd: 0, or EBUSY while SRQs or QPs created through this
 * handle exist (a private domain also while target QPs other handles
 * opened live on).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/verbs_ctx.h"

static struct prov_xrcd_shared *xrcd_find(struct prov_qp_ctx *qc,
					  const struct stat *st)
{
	for (struct prov_xrcd_shared *x = qc->xrcds; x; x = x->next)
		if (x->has_inode && x->dev == st->st_dev && x->ino == st->st_ino)
			return x;
	return NULL;
}

static void xrcd_unlink(struct prov_qp_ctx *qc, struct prov_xrcd_shared *x)
{
	for (struct prov_xrcd_shared **p = &qc->xrcds; *p; p = &(*p)->next)
		if (*p == x) {
			*p = x->next;
			return;
		}
}

/* ALLOC_XRCD; a new domain or NULL + errno. */
static struct prov_xrcd_shared *xrcd_alloc(struct prov_context *pctx)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_xrcd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(alloc_xrcd_out)] = { 0 };
	struct prov_xrcd_shared *x = calloc(1, sizeof(*x));
	int err;

	if (!x) {
		errno = ENOMEM;
		return NULL;
	}
	PRM_SET(alloc_xrcd_in, in, opcode, MLX5_CMD_OP_ALLOC_XRCD);
	x->obj = prov_obj_create(pctx, in, sizeof(in), out, sizeof(out));
	if (!x->obj) {
		err = errno;
		free(x);
		errno = err;
		return NULL;
	}
	x->xrcdn = PRM_GET(alloc_xrcd_out, out, xrcd);
	return x;
}

static struct ibv_xrcd *prov_open_xrcd(struct ibv_context *context,
				       struct ibv_xrcd_init_attr *attr)
{
	struct prov_context *pctx;
	struct prov_qp_ctx *qc;
	struct prov_xrcd_shared *x = NULL;
	struct prov_xrcd *xrcd;
	struct stat st;
	int err;

	if (!context || !attr) {
		errno = EINVAL;
		return NULL;
	}
	pctx = to_prov_context(context);
	qc = pctx->qp_ctx;
	/* ibv_cmd_open_xrcd(). */
	if (attr->comp_mask >= IBV_XRCD_INIT_ATTR_RESERVED) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_XRCD_INIT_ATTR_FD) ||
	    !(attr->comp_mask & IBV_XRCD_INIT_ATTR_OFLAGS)) {
		errno = EINVAL;
		return NULL;
	}
	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd) {
		errno = ENOMEM;
		return NULL;
	}
	/* uverbs' open_xrcd(). */
	pthread_mutex_lock(&qc->lock);
	if (attr->fd != -1) {
		if (fstat(attr->fd, &st)) {
			err = EBADF;
			goto err;
		}
		x = xrcd_find(qc, &st);
		if (!x && !(attr->oflags & O_CREAT)) {
			err = EAGAIN;
			goto err;
		}
		if (x && (attr->oflags & O_EXCL)) {
			err = EINVAL;
			goto err;
		}
	}
	if (!x) {
		/* mlx5_ib_alloc_xrcd(). */
		if (!PROV_CAP_GEN(pctx, xrc)) {
			err = EOPNOTSUPP;
			goto err;
		}
		x = xrcd_alloc(pctx);
		if (!x) {
			err = errno;
			goto err;
		}
		if (attr->fd != -1) {
			x->has_inode = true;
			x->dev = st.st_dev;
			x->ino = st.st_ino;
		}
		x->next = qc->xrcds;
		qc->xrcds = x;
	}
	x->handles++;
	pthread_mutex_unlock(&qc->lock);

	xrcd->pctx = pctx;
	xrcd->shared = x;
	atomic_init(&xrcd->refcnt, 0);
	xrcd->vxrcd.xrcd.context = context;
	xrcd->vxrcd.comp_mask = PROV_VERBS_XRCD_HANDLE;
	xrcd->vxrcd.handle = prov_handle_alloc(pctx);
	return &xrcd->vxrcd.xrcd;

err:
	pthread_mutex_unlock(&qc->lock);
	free(xrcd);
	errno = err;
	return NULL;
}

/* The domain goes once nothing names it; called with qc->lock held. */
static void xrcd_maybe_free(struct prov_context *pctx,
			    struct prov_xrcd_shared *x)
{
	if (x->handles || x->users)
		return;
	xrcd_unlink(pctx->qp_ctx, x);
	prov_obj_destroy(pctx, x->obj);
	free(x);
}

static int prov_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct prov_xrcd *xrcd;
	struct prov_context *pctx;
	struct prov_xrcd_shared *x;
	struct prov_qp_ctx *qc;
	int err = 0;

	if (!ibxrcd) {
		errno = EINVAL;
		return EINVAL;
	}
	xrcd = to_prov_xrcd(ibxrcd);
	pctx = xrcd->pctx;
	qc = pctx->qp_ctx;
	x = xrcd->shared;
	/* ib_destroy_usecnt(): objects created through this handle. */
	if (atomic_load(&xrcd->refcnt)) {
		errno = EBUSY;
		return EBUSY;
	}
	pthread_mutex_lock(&qc->lock);
	if (!x->has_inode && x->users) {
		/* ib_dealloc_xrcd_user(): usecnt still held. */
		err = EBUSY;
	} else if (x->handles == 1 && !x->users) {
		/* The last use: DEALLOC_XRCD must succeed before it goes. */
		err = prov_obj_destroy(pctx, x->obj);
		if (!err) {
			xrcd_unlink(qc, x);
			free(x);
		}
	} else {
		x->handles--;
	}
	pthread_mutex_unlock(&qc->lock);
	if (err) {
		errno = err;
		return err;
	}
	free(xrcd);
	return 0;
}

int prov_xrcd_use(struct ibv_xrcd *ibxrcd)
{
	struct prov_xrcd *xrcd = to_prov_xrcd(ibxrcd);
	struct prov_qp_ctx *qc = xrcd->pctx->qp_ctx;

	pthread_mutex_lock(&qc->lock);
	xrcd->shared->users++;
	pthread_mutex_unlock(&qc->lock);
	atomic_fetch_add(&xrcd->refcnt, 1);
	return 0;
}

void prov_xrcd_handle_put(struct prov_xrcd *xrcd)
{
	atomic_fetch_sub(&xrcd->refcnt, 1);
}

void prov_xrcd_handle_get(struct prov_xrcd *xrcd)
{
	atomic_fetch_add(&xrcd->refcnt, 1);
}

void prov_xrcd_shared_put(struct prov_context *pctx, struct prov_xrcd_shared *x)
{
	struct prov_qp_ctx *qc = pctx->qp_ctx;

	pthread_mutex_lock(&qc->lock);
	if (x->users)
		x->users--;
	xrcd_maybe_free(pctx, x);
	pthread_mutex_unlock(&qc->lock);
}

void prov_xrcd_unuse(struct prov_context *pctx, struct ibv_xrcd *ibxrcd)
{
	struct prov_xrcd *xrcd = to_prov_xrcd(ibxrcd);
	struct prov_xrcd_shared *shared = xrcd->shared;

	prov_xrcd_handle_put(xrcd);
	prov_xrcd_shared_put(pctx, shared);
}

uint32_t prov_xrcd_xrcdn(struct ibv_xrcd *xrcd)
{
	return to_prov_xrcd(xrcd)->shared->xrcdn;
}

void prov_xrcd_add_tgt(struct prov_xrcd_shared *x, struct prov_qp_ctx *qc,
		       struct prov_qp *qp)
{
	pthread_mutex_lock(&qc->lock);
	qp->tgt_next = x->tgt_qps;
	x->tgt_qps = qp;
	pthread_mutex_unlock(&qc->lock);
}

void prov_xrcd_del_tgt(struct prov_xrcd_shared *x, struct prov_qp_ctx *qc,
		       struct prov_qp *qp)
{
	pthread_mutex_lock(&qc->lock);
	for (struct prov_qp **p = &x->tgt_qps; *p; p = &(*p)->tgt_next)
		if (*p == qp) {
			*p = qp->tgt_next;
			break;
		}
	pthread_mutex_unlock(&qc->lock);
}

struct prov_qp *prov_xrcd_find_tgt(struct prov_xrcd *xrcd, uint32_t qpn)
{
	struct prov_qp_ctx *qc = xrcd->pctx->qp_ctx;
	struct prov_qp *qp;

	pthread_mutex_lock(&qc->lock);
	for (qp = xrcd->shared->tgt_qps; qp; qp = qp->tgt_next)
		if (qp->vqp.qp.qp_num == qpn) {
			atomic_fetch_add(&qp->refs, 1);
			break;
		}
	pthread_mutex_unlock(&qc->lock);
	return qp;
}

/* At context close: the domains left (the backend destroys their
 * firmware objects with the context). */
void prov_xrcd_ctx_fini(struct prov_context *pctx)
{
	struct prov_qp_ctx *qc = pctx->qp_ctx;
	struct prov_xrcd_shared *x;

	while ((x = qc->xrcds)) {
		qc->xrcds = x->next;
		free(x);
	}
}

void prov_xrcd_set_ops(struct prov_context *pctx)
{
	pctx->vctx.open_xrcd = prov_open_xrcd;
	pctx->vctx.close_xrcd = prov_close_xrcd;
}
