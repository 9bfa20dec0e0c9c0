/* SPDX-License-Identifier: MIT */
/*
 * Opening and closing device contexts (ibv_open_device, mlx5dv_open_device,
 * ibv_close_device).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "provider/abi.h"
#include "provider/verbs/context.h"
#include "provider/verbs/device.h"

/* A provider context over an open backend context (taken over). */
static struct ibv_context *prov_context_create(struct prov_device *dev,
					       struct mlx5be_ctx *bectx,
					       int cmd_fd, bool devx)
{
	struct prov_context *pctx;
	struct ibv_context *ctx;
	int pipefd[2];
	int ret;

	pctx = calloc(1, sizeof(*pctx));
	if (!pctx) {
		ret = -ENOMEM;
		mlx5be_get()->close(bectx);
		goto err;
	}
	pctx->dev = dev;
	pctx->devx = devx;
	pctx->be = mlx5be_get();
	pctx->bectx = bectx;
	/*
	 * async_fd is ours: events reach the provider through the backend's
	 * event channels and are delivered here as libibverbs would, so the
	 * application may poll it and set O_NONBLOCK on it.
	 */
	if (pipe2(pipefd, O_CLOEXEC)) {
		ret = -errno;
		goto err_close;
	}
	pctx->async_wr_fd = pipefd[1];
	pthread_mutex_init(&pctx->lock, NULL);

	ctx = &pctx->vctx.context;
	ctx->device = &dev->ibdev;
	ctx->cmd_fd = cmd_fd;
	ctx->async_fd = pipefd[0];
	ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	pctx->vctx.sz = sizeof(pctx->vctx);
	prov_context_set_ops(pctx);
	ret = prov_context_init_areas(pctx);
	if (ret)
		goto err_pipe;
	return ctx;

err_pipe:
	close(pipefd[0]);
	close(pipefd[1]);
	pthread_mutex_destroy(&ctx->mutex);
	pthread_mutex_destroy(&pctx->lock);
err_close:
	pctx->be->close(pctx->bectx);
	free(pctx);
err:
	errno = -ret;
	return NULL;
}

struct ibv_context *prov_context_open(struct prov_device *dev, bool devx)
{
	struct mlx5be_ctx *bectx;
	int cmd_fd;
	int ret = mlx5be_get()->open(dev->be_index, &bectx, &cmd_fd);

	if (ret) {
		errno = -ret;
		return NULL;
	}
	return prov_context_create(dev, bectx, cmd_fd, devx);
}

int prov_context_close(struct ibv_context *ibctx)
{
	struct prov_context *pctx = to_prov_context(ibctx);

	prov_context_fini_areas(pctx);
	/* The backend destroys what the application left, as the kernel does. */
	pctx->be->close(pctx->bectx);
	close(ibctx->async_fd);
	close(pctx->async_wr_fd);
	pthread_mutex_destroy(&ibctx->mutex);
	pthread_mutex_destroy(&pctx->lock);
	free(pctx);
	return 0;
}

MLX5EMU_ABI(ibv_open_device);
struct ibv_context *mlx5emu_abi_ibv_open_device(struct ibv_device *device)
{
	/* rdma-core 44's libmlx5 asks the kernel for a DEVX uid anyway. */
	return prov_context_open(to_prov_device(device), false);
}

MLX5EMU_ABI(mlx5dv_open_device);
struct ibv_context *mlx5emu_abi_mlx5dv_open_device(struct ibv_device *device,
						   struct mlx5dv_context_attr *attr)
{
	if (attr && ((attr->flags & ~MLX5DV_CONTEXT_FLAGS_DEVX) || attr->comp_mask)) {
		errno = EINVAL;
		return NULL;
	}
	return prov_context_open(to_prov_device(device),
				 attr && (attr->flags & MLX5DV_CONTEXT_FLAGS_DEVX));
}

MLX5EMU_ABI(ibv_import_device);
struct ibv_context *mlx5emu_abi_ibv_import_device(int cmd_fd)
{
	struct mlx5be_ctx *bectx;
	struct prov_device *dev;
	int index, ret;

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
	return prov_context_create(dev, bectx, cmd_fd, true);
}

MLX5EMU_ABI(ibv_close_device);
int mlx5emu_abi_ibv_close_device(struct ibv_context *context)
{
	return prov_context_close(context);
}

MLX5EMU_ABI(mlx5dv_is_supported);
bool mlx5emu_abi_mlx5dv_is_supported(struct ibv_device *device)
{
	/* Every device this library lists is an mlx5 device. */
	return device != NULL;
}
