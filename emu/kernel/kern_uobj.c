/* SPDX-License-Identifier: MIT */
/*
 * The uverbs object handles of a ucontext's file: the number the kernel
 * gives each PD and MR (the ufile's xarray), which every context sharing
 * the file (an imported one too) may name.  Ours count up from 0 and are
 * never reused, so a stale handle finds nothing.  The
 * kernel's lookup (rdma_lookup_get_uobject) answers -ENOENT for a handle
 * with no object and -EINVAL for one whose object is of another type;
 * QUERY_PD gives the pdn, QUERY_MR lkey, rkey and length.
 */
#include <errno.h>
#include <stdlib.h>

#include "emu/kernel/kern.h"

struct kern_uobj {
	struct cds_list_head node;
	uint32_t handle;
	struct mlx5be_uobj attr;
	uint32_t users;			/* uobj_hold's uses of a PD */
};

/* Under uctx->lock. */
static struct kern_uobj *uobj_find(struct kern_uctx *uctx, uint32_t handle)
{
	struct kern_uobj *u;

	cds_list_for_each_entry(u, &uctx->uobjs, node)
		if (u->handle == handle)
			return u;
	return NULL;
}

int kern_uobj_add(struct mlx5be_ctx *ctx, const struct mlx5be_uobj *attr,
		  uint32_t *handle)
{
	struct kern_uctx *uctx = ctx->uctx;
	struct kern_uobj *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->attr = *attr;
	pthread_mutex_lock(&uctx->lock);
	u->handle = uctx->next_handle++;
	/* Newest first: what is looked up is mostly recent. */
	cds_list_add(&u->node, &uctx->uobjs);
	pthread_mutex_unlock(&uctx->lock);
	*handle = u->handle;
	return 0;
}

/* The kernel's lookup of @handle as a @type; under uctx->lock. */
static int uobj_get(struct kern_uctx *uctx, uint32_t handle,
		    enum mlx5be_uobj_type type, struct kern_uobj **pu)
{
	*pu = uobj_find(uctx, handle);
	if (!*pu)
		return -ENOENT;
	return (*pu)->attr.type == type ? 0 : -EINVAL;
}

int kern_uobj_set(struct mlx5be_ctx *ctx, uint32_t handle,
		  const struct mlx5be_uobj *attr)
{
	struct kern_uctx *uctx = ctx->uctx;
	struct kern_uobj *u;
	int ret;

	pthread_mutex_lock(&uctx->lock);
	ret = uobj_get(uctx, handle, attr->type, &u);
	if (!ret)
		u->attr = *attr;
	pthread_mutex_unlock(&uctx->lock);
	return ret;
}

void kern_uobj_del(struct mlx5be_ctx *ctx, uint32_t handle)
{
	struct kern_uctx *uctx = ctx->uctx;
	struct kern_uobj *u;

	pthread_mutex_lock(&uctx->lock);
	u = uobj_find(uctx, handle);
	if (u)
		cds_list_del(&u->node);
	pthread_mutex_unlock(&uctx->lock);
	free(u);
}

int kern_uobj_query(struct mlx5be_ctx *ctx, uint32_t handle,
		    enum mlx5be_uobj_type type, struct mlx5be_uobj *attr)
{
	struct kern_uctx *uctx = ctx->uctx;
	struct kern_uobj *u;
	int ret;

	pthread_mutex_lock(&uctx->lock);
	ret = uobj_get(uctx, handle, type, &u);
	if (!ret) {
		*attr = u->attr;
		attr->users = u->users;
	}
	pthread_mutex_unlock(&uctx->lock);
	return ret;
}

int kern_uobj_hold(struct mlx5be_ctx *ctx, uint32_t handle, int delta)
{
	struct kern_uctx *uctx = ctx->uctx;
	struct kern_uobj *u;
	int ret;

	pthread_mutex_lock(&uctx->lock);
	ret = uobj_get(uctx, handle, MLX5BE_UOBJ_PD, &u);
	if (!ret)
		u->users += delta;
	pthread_mutex_unlock(&uctx->lock);
	return ret;
}

void kern_uobj_del_all(struct kern_uctx *uctx)
{
	struct kern_uobj *u, *tmp;

	cds_list_for_each_entry_safe(u, tmp, &uctx->uobjs, node) {
		cds_list_del(&u->node);
		free(u);
	}
}
