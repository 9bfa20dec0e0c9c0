/* SPDX-License-Identifier: MIT */
/*
 * The provider context over an open backend context: the verbs_context the
 * inline verbs dispatch through and the async_fd the provider delivers
 * events to.  The areas that fill it (caps, DEVX, verbs objects, QPs) are
 * assembled above, in provider/verbs/context_ops.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "provider/core/context.h"
#include "provider/core/device.h"

struct prov_context *prov_context_create(struct prov_device *dev,
					 struct mlx5be_ctx *bectx, int cmd_fd,
					 bool devx)
{
	struct prov_context *pctx;
	struct epoll_event pe = { .events = EPOLLIN };
	struct ibv_context *ctx;
	int pipefd[2], epfd;
	int err;

	pctx = calloc(1, sizeof(*pctx));
	if (!pctx) {
		mlx5be_get()->close(bectx);
		errno = ENOMEM;
		return NULL;
	}
	pctx->dev = dev;
	pctx->devx = devx;
	pctx->be = mlx5be_get();
	pctx->bectx = bectx;
	/*
	 * async_fd is ours: an epoll set of where events come from (the
	 * backend's event channels and kernel services, provider/verbs/
	 * events.c, and this pipe of events the provider posts), so the
	 * application may poll it and set O_NONBLOCK on it while
	 * ibv_get_async_event reads the sources.
	 */
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0 || pipe2(pipefd, O_CLOEXEC | O_NONBLOCK)) {
		err = errno;
		if (epfd >= 0)
			close(epfd);
		pctx->be->close(pctx->bectx);
		free(pctx);
		errno = err;
		return NULL;
	}
	pe.data.fd = pipefd[0];
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, pipefd[0], &pe)) {
		err = errno;
		close(epfd);
		close(pipefd[0]);
		close(pipefd[1]);
		pctx->be->close(pctx->bectx);
		free(pctx);
		errno = err;
		return NULL;
	}
	pctx->async_rd_fd = pipefd[0];
	pctx->async_wr_fd = pipefd[1];
	pthread_mutex_init(&pctx->lock, NULL);

	ctx = &pctx->vctx.context;
	ctx->device = &dev->ibdev;
	ctx->cmd_fd = cmd_fd;
	ctx->async_fd = epfd;
	ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	pctx->vctx.sz = sizeof(pctx->vctx);
	return pctx;
}

void prov_context_destroy(struct prov_context *pctx)
{
	struct ibv_context *ctx = &pctx->vctx.context;

	/* The backend destroys what the application left, as the kernel does. */
	pctx->be->close(pctx->bectx);
	close(ctx->async_fd);
	close(pctx->async_rd_fd);
	close(pctx->async_wr_fd);
	pthread_mutex_destroy(&ctx->mutex);
	pthread_mutex_destroy(&pctx->lock);
	free(pctx);
}
