/* SPDX-License-Identifier: MIT */
/*
 * A context assembled from its areas: opening and closing devices
 * (ibv_open_device, mlx5dv_open_device, ibv_import_device,
 * ibv_close_device), the per-area init/fini hooks, and the verbs ops a
 * context dispatches through.  The inline verbs of <infiniband/verbs.h>
 * call the op slots directly; a slot left NULL makes the inline wrapper
 * fail with EOPNOTSUPP, as rdma-core's dummy ops do.
 */
#include <errno.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/core/device.h"
#include "provider/devx/devx.h"
#include "provider/verbs/events.h"
#include "provider/verbs/flow.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/query.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/mana/mana_prov.h"
#include "shell/abi_export.h"

/* Each area adds its ops here: prov_<area>_set_ops(pctx). */
static void prov_context_set_ops(struct prov_context *pctx)
{
	prov_query_set_ops(pctx);
	prov_verbs_set_ops(pctx);
	prov_qp_set_ops(pctx);
	prov_flow_set_ops(pctx);
}

/*
 * Areas add { init, fini } rows here, in dependency order.  init runs
 * after the backend context exists (an error fails the open: 0 or an
 * errno), fini before it goes.
 */
static const struct {
	int (*init)(struct prov_context *pctx);
	void (*fini)(struct prov_context *pctx);
} prov_areas[] = {
	{ prov_caps_init, prov_caps_fini },	/* first: the others read caps */
	{ prov_devx_ctx_init, prov_devx_ctx_fini },
	{ prov_verbs_ctx_init, prov_verbs_ctx_fini },	/* after devx: its NC UAR */
	{ prov_qp_ctx_init, prov_qp_ctx_fini },	/* after devx: its UAR pool */
	{ prov_events_init, prov_events_fini },	/* async_fd's sources */
};

#define PROV_NUM_AREAS (sizeof(prov_areas) / sizeof(prov_areas[0]))

static int prov_context_init_areas(struct prov_context *pctx)
{
	for (unsigned int i = 0; i < PROV_NUM_AREAS; i++) {
		int ret = prov_areas[i].init(pctx);

		if (ret) {
			while (i--)
				prov_areas[i].fini(pctx);
			return ret;
		}
	}
	return 0;
}

static void prov_context_fini_areas(struct prov_context *pctx)
{
	for (unsigned int i = PROV_NUM_AREAS; i--;)
		prov_areas[i].fini(pctx);
}

/* A context over an open backend context (taken over); NULL with errno. */
static struct ibv_context *prov_context_assemble(struct prov_device *dev,
						 struct mlx5be_ctx *bectx,
						 int cmd_fd, bool devx)
{
	struct prov_context *pctx = prov_context_create(dev, bectx, cmd_fd, devx);
	int ret;

	if (!pctx)
		return NULL;
	prov_context_set_ops(pctx);
	ret = prov_context_init_areas(pctx);
	if (ret) {
		prov_context_destroy(pctx);
		errno = ret;
		return NULL;
	}
	return &pctx->vctx.context;
}

/* rdma-core 57's struct ibv_fd_arr. */
struct prov_fd_arr {
	int *arr;
	uint32_t count;
};

/*
 * Opens a context, granting the ucaps of @fds (NULL: none).  libmlx5 asks
 * for a DEVX context and, when the application did not insist on DEVX,
 * asks again without it after a failure: the kernel then ignores the
 * ucaps, so a capability the firmware lacks (EOPNOTSUPP) just goes
 * ungranted.  The emulated kernel keeps the context's DEVX uid either way.
 */
static struct ibv_context *prov_context_open(struct prov_device *dev, bool devx,
					     const struct prov_fd_arr *fds)
{
	const struct mlx5be_ops *be = mlx5be_get();
	struct mlx5be_ctx *bectx;
	int cmd_fd;
	int ret;

	if (fds)
		ret = be->open_ucaps(dev->be_index, fds->arr, fds->count,
				     &bectx, &cmd_fd);
	if (!fds || (ret == -EOPNOTSUPP && !devx))
		ret = be->open(dev->be_index, &bectx, &cmd_fd);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	return prov_context_assemble(dev, bectx, cmd_fd, devx);
}

MLX5EMU_ABI(ibv_open_device);
struct ibv_context *mlx5emu_abi_ibv_open_device(struct ibv_device *device)
{
	if (to_prov_device(device)->mana)
		return prov_mana_open(to_prov_device(device));
	/* rdma-core 44's libmlx5 asks the kernel for a DEVX uid anyway. */
	return prov_context_open(to_prov_device(device), false, NULL);
}

/*
 * rdma-core 57 added an fd array to struct mlx5dv_context_attr, after the
 * fields 44 has, under MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY: the layout an
 * application built against newer headers passes.
 */
struct prov_dv_context_attr_57 {
	uint32_t flags;
	uint64_t comp_mask;
	const struct prov_fd_arr *fds;
};

#define PROV_DV_CONTEXT_ATTR_MASK_FD_ARRAY (1u << 0)
/* The kernel's ioctl attribute length is 16 bits. */
#define PROV_FD_ARR_MAX (UINT16_MAX / sizeof(int))

MLX5EMU_ABI(mlx5dv_open_device);
struct ibv_context *mlx5emu_abi_mlx5dv_open_device(struct ibv_device *device,
						   struct mlx5dv_context_attr *attr)
{
	const struct prov_fd_arr *fds = NULL;
	bool devx = false;

	/* mlx5dv_open_device(): not an mlx5 device */
	if (device && to_prov_device(device)->mana) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr) {
		const struct prov_dv_context_attr_57 *a = (const void *)attr;

		/* mlx5_alloc_context: check_comp_mask, then the flags. */
		if ((a->comp_mask & ~(uint64_t)PROV_DV_CONTEXT_ATTR_MASK_FD_ARRAY) ||
		    (a->flags & ~MLX5DV_CONTEXT_FLAGS_DEVX)) {
			errno = EINVAL;
			return NULL;
		}
		if (a->comp_mask & PROV_DV_CONTEXT_ATTR_MASK_FD_ARRAY)
			fds = a->fds;
		devx = a->flags & MLX5DV_CONTEXT_FLAGS_DEVX;
	}
	if (fds && fds->count && !fds->arr) {
		errno = EFAULT;		/* the kernel's copy_from_user */
		return NULL;
	}
	if (fds && fds->count > PROV_FD_ARR_MAX) {
		errno = EINVAL;
		return NULL;
	}
	return prov_context_open(to_prov_device(device), devx, fds);
}

MLX5EMU_ABI(ibv_import_device);
struct ibv_context *mlx5emu_abi_ibv_import_device(int cmd_fd)
{
	struct mlx5be_ctx *bectx;
	struct prov_device *dev;
	int index, ret;

	/* libmana 44 sets no import_context: ibv_import_device's answer */
	if (prov_mana_owns_cmd_fd(cmd_fd)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ret = mlx5be_get()->import(cmd_fd, &bectx, &index);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	dev = prov_device_by_index(index);
	if (!dev) {
		mlx5be_get()->close(bectx);
		errno = ENODEV;
		return NULL;
	}
	/* The imported context shares the original's uid and objects. */
	return prov_context_assemble(dev, bectx, cmd_fd, true);
}

MLX5EMU_ABI(ibv_close_device);
int mlx5emu_abi_ibv_close_device(struct ibv_context *context)
{
	if (prov_mana_is(context))
		return prov_mana_close(context);
	struct prov_context *pctx = to_prov_context(context);

	prov_context_fini_areas(pctx);
	prov_context_destroy(pctx);
	return 0;
}

MLX5EMU_ABI(mlx5dv_is_supported);
bool mlx5emu_abi_mlx5dv_is_supported(struct ibv_device *device)
{
	return device != NULL && !to_prov_device(device)->mana;
}
