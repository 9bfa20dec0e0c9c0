/* SPDX-License-Identifier: MIT */
/*
 * The provider's device context: one open device, one backend context (and
 * so one DEVX uid), the verbs_context the inline verbs dispatch through, and
 * the state the provider keeps per context.
 */
#ifndef MLX5EMU_PROVIDER_CORE_CONTEXT_H
#define MLX5EMU_PROVIDER_CORE_CONTEXT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "backend/backend.h"
#include "provider/core/qbuf.h"

/* libmlx5's MLX5_ADAPTER_PAGE_SIZE (UAR pages, umem pages) and MLX5_BF_OFFSET. */
#define PROV_UAR_PAGE_SIZE 4096u
#define PROV_BF_OFFSET 0x800u

struct prov_device;

struct prov_context {
	struct prov_context *prev, *next;	/* the live contexts */
	struct prov_device *dev;
	const struct mlx5be_ops *be;
	struct mlx5be_ctx *bectx;
	/* async_fd is an epoll set of the event sources (verbs/events.c);
	 * one is this pipe, of events the provider posts itself. */
	int async_rd_fd, async_wr_fd;
	bool devx;		/* opened with MLX5DV_CONTEXT_FLAGS_DEVX */
	pthread_mutex_t lock;	/* guards the per-context state below */
	/* mlx5dv_set_context_attr(BUF_ALLOCATORS) (core/qbuf.c) */
	struct prov_qbuf_xalloc xalloc;

	/* Per-area state: each area's file owns its fields and frees them in
	 * its fini hook (provider/verbs/context_ops.c runs them). */
	struct prov_caps *caps;		/* provider/core/caps.c */
	struct prov_devx_ctx *devx_ctx;	/* provider/devx/ */
	struct prov_verbs_ctx *verbs_ctx;	/* provider/verbs/verbs_ctx.c */
	struct prov_qp_ctx *qp_ctx;	/* provider/verbs/qp_ctx.c */
	struct prov_events *events;	/* provider/verbs/events.c */

	struct verbs_context vctx;	/* must hold ibv_context last */
};

/* Work was posted, a CQ found empty or an event is awaited
 * (MLX5BE_PROGRESS_*): tells a device that wants to know.  1 when a waiter
 * must come back rather than block (the backend's progress op). */
static inline int prov_progress(struct prov_context *pctx, unsigned int why)
{
	return pctx->be->progress ? pctx->be->progress(pctx->bectx, why) : 0;
}

static inline struct prov_context *to_prov_context(struct ibv_context *ibctx)
{
	return (struct prov_context *)((char *)ibctx -
				       offsetof(struct prov_context, vctx.context));
}

/*
 * A context over @bectx (taken over: closed on failure too) whose cmd_fd is
 * @cmd_fd, with no area set up yet; NULL with errno.  @devx says whether the
 * application asked for DEVX.
 */
struct prov_context *prov_context_create(struct prov_device *dev,
					 struct mlx5be_ctx *bectx, int cmd_fd,
					 bool devx);
/* Closes the backend context and frees @pctx (its areas are gone). */
void prov_context_destroy(struct prov_context *pctx);

struct mlx5be_event_channel;
/*
 * @size zeroed bytes, for an object over a new backend event channel of
 * @context (@flags: MLX5BE_EVENT_CHANNEL_*), stored in *@be; NULL with
 * errno as rdma-core answers: EINVAL no context, EOPNOTSUPP no channels.
 */
void *prov_event_channel_alloc(struct ibv_context *context, size_t size,
			       unsigned int flags,
			       struct mlx5be_event_channel **be);

/*
 * For a forked child's fork handler (one thread): calls @fn on every
 * context the process had open at fork().
 */
void prov_context_for_each_forked(void (*fn)(struct prov_context *pctx));
/*
 * A fresh pipe of posted events and a fresh epoll set of it behind
 * async_fd, under the same descriptor numbers (with their blocking modes):
 * a forked child's, the parent keeping its own.
 */
void prov_context_renew_async(struct prov_context *pctx);
/* dup3() a new descriptor @fd over @old, keeping O_NONBLOCK of @old and
 * close-on-exec; closes @fd.  Fork handlers' helper. */
void prov_fd_replace(int old, int fd);
/* A fresh epoll set of @fds (readable) put over @old by prov_fd_replace:
 * an inherited epoll set is the parent's too. */
void prov_fd_epoll_renew(int old, const int *fds, int nfds);

#endif /* MLX5EMU_PROVIDER_CORE_CONTEXT_H */
