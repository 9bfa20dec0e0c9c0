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

/* The live contexts, for the fork handler. */
static pthread_mutex_t prov_contexts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct prov_context *prov_contexts;

static void prov_context_link(struct prov_context *pctx)
{
	pthread_mutex_lock(&prov_contexts_lock);
	pctx->next = prov_contexts;
	if (prov_contexts)
		prov_contexts->prev = pctx;
	prov_contexts = pctx;
	pthread_mutex_unlock(&prov_contexts_lock);
}

static void prov_context_unlink(struct prov_context *pctx)
{
	pthread_mutex_lock(&prov_contexts_lock);
	if (pctx->prev)
		pctx->prev->next = pctx->next;
	else
		prov_contexts = pctx->next;
	if (pctx->next)
		pctx->next->prev = pctx->prev;
	pthread_mutex_unlock(&prov_contexts_lock);
}

void prov_context_for_each_forked(void (*fn)(struct prov_context *pctx))
{
	/* Another thread of the parent may have held it. */
	pthread_mutex_init(&prov_contexts_lock, NULL);
	for (struct prov_context *p = prov_contexts; p; p = p->next)
		fn(p);
}

void prov_fd_replace(int old, int fd)
{
	int fl = fcntl(old, F_GETFL);

	if (fd < 0)
		return;
	if (fl >= 0 && (fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	dup3(fd, old, O_CLOEXEC);
	close(fd);
}

void prov_fd_epoll_renew(int old, const int *fds, int nfds)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);

	for (int i = 0; ep >= 0 && i < nfds; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.fd = fds[i] };

		epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e);
	}
	prov_fd_replace(old, ep);
}

void prov_context_renew_async(struct prov_context *pctx)
{
	int pipefd[2];

	if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK))
		return;
	prov_fd_replace(pctx->async_rd_fd, pipefd[0]);
	prov_fd_replace(pctx->async_wr_fd, pipefd[1]);
	/* The lost device raises nothing more: what the provider posts is
	 * all async_fd needs to poll for. */
	prov_fd_epoll_renew(pctx->vctx.context.async_fd, &pctx->async_rd_fd, 1);
}

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
	prov_qbuf_xalloc_init(&pctx->xalloc);

	ctx = &pctx->vctx.context;
	ctx->device = &dev->ibdev;
	ctx->cmd_fd = cmd_fd;
	ctx->async_fd = epfd;
	ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	pctx->vctx.sz = sizeof(pctx->vctx);
	prov_context_link(pctx);
	return pctx;
}

void prov_context_destroy(struct prov_context *pctx)
{
	struct ibv_context *ctx = &pctx->vctx.context;

	prov_context_unlink(pctx);
	/* The backend destroys what the application left, as the kernel does. */
	pctx->be->close(pctx->bectx);
	close(ctx->async_fd);
	close(pctx->async_rd_fd);
	close(pctx->async_wr_fd);
	pthread_mutex_destroy(&ctx->mutex);
	prov_qbuf_xalloc_fini(&pctx->xalloc);
	pthread_mutex_destroy(&pctx->lock);
	free(pctx);
}

void *prov_event_channel_alloc(struct ibv_context *context, size_t size,
			       unsigned int flags,
			       struct mlx5be_event_channel **be)
{
	struct prov_context *pctx;
	void *obj;
	int err;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	pctx = to_prov_context(context);
	if (!pctx->be->event_channel_create) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	obj = calloc(1, size);
	if (!obj) {
		errno = ENOMEM;
		return NULL;
	}
	*be = pctx->be->event_channel_create(pctx->bectx, flags);
	if (!*be) {
		err = errno;
		free(obj);
		errno = err;
		return NULL;
	}
	return obj;
}
