/* SPDX-License-Identifier: MIT */
/*
 * The verbs async events of a ucontext that no object owns, as uverbs
 * queues them on its async event file (ib_uverbs_async_handler): a port
 * going down or becoming active (mlx5_ib reports a RoCE port's state as
 * PORT_ERR / PORT_ACTIVE) and a fatal device error (DEVICE_FATAL).  Events
 * of objects are not here: every object the provider makes is a DEVX one
 * and reaches it through DEVX event channels (kern_event.c).
 *
 * The fd is an eventfd whose count is non-zero while events wait; reads
 * never block (the provider waits on the fd).  A ucontext keeps at most
 * KERN_IBEV_MAX events; more are dropped, as uverbs drops an event it
 * cannot allocate.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "emu/kernel/kern.h"

#define KERN_IBEV_MAX 4096

struct kern_ibev {
	struct cds_list_head node;
	struct mlx5be_async_event ev;
};

int kern_ibev_init(struct kern_ibev_queue *q)
{
	q->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q->efd < 0)
		return -errno;
	pthread_mutex_init(&q->lock, NULL);
	CDS_INIT_LIST_HEAD(&q->evs);
	q->n = 0;
	return 0;
}

void kern_ibev_fini(struct kern_ibev_queue *q)
{
	struct kern_ibev *e, *tmp;

	cds_list_for_each_entry_safe(e, tmp, &q->evs, node) {
		cds_list_del(&e->node);
		free(e);
	}
	close(q->efd);
	pthread_mutex_destroy(&q->lock);
}

static void kern_ibev_post(struct kern_uctx *uctx, void *arg)
{
	const struct mlx5be_async_event *ev = arg;
	struct kern_ibev_queue *q = &uctx->ibev;
	struct kern_ibev *e = NULL;

	pthread_mutex_lock(&q->lock);
	if (q->n < KERN_IBEV_MAX)
		e = malloc(sizeof(*e));
	if (e) {
		e->ev = *ev;
		cds_list_add_tail(&e->node, &q->evs);
		if (!q->n++)
			kern_efd_signal(q->efd);
	}
	pthread_mutex_unlock(&q->lock);
}

void kern_ibev_post_dev(struct kern_dev *kdev, uint32_t type, uint32_t port)
{
	struct mlx5be_async_event ev = { .event_type = type, .port_num = port };

	kern_uctx_for_each(kdev, kern_ibev_post, &ev);
}

int kern_async_event_fd(struct mlx5be_ctx *ctx)
{
	return ctx->uctx->ibev.efd;
}

int kern_async_event_read(struct mlx5be_ctx *ctx, struct mlx5be_async_event *ev)
{
	struct kern_ibev_queue *q = &ctx->uctx->ibev;
	struct kern_ibev *e;

	pthread_mutex_lock(&q->lock);
	if (cds_list_empty(&q->evs)) {
		pthread_mutex_unlock(&q->lock);
		return -EAGAIN;
	}
	e = cds_list_first_entry(&q->evs, struct kern_ibev, node);
	cds_list_del(&e->node);
	if (!--q->n)
		kern_efd_unsignal(q->efd);
	pthread_mutex_unlock(&q->lock);
	*ev = e->ev;
	free(e);
	return 0;
}
