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

struct ibv_context *prov_context_open(struct prov_device *dev, bool devx)
{
	struct prov_context *pctx;
	struct ibv_context *ctx;
	int pipefd[2];
	int cmd_fd;
	int ret;

	pctx = calloc(1, sizeof(*pctx));
	if (!pctx) {
		errno = ENOMEM;
		return NULL;
	}
	pctx->dev = dev;
	pctx->devx = devx;
	pctx->be = mlx5be_get();
	ret = pctx->be->open(dev->be_index, &pctx->bectx, &cmd_fd);
	if (ret)
		goto err_free;
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
err_free:
	free(pctx);
	errno = -ret;
	return NULL;
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
