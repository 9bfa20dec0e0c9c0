/* SPDX-License-Identifier: MIT */
/*
 * Events of verbs objects over DEVX event channels (see events.h): the
 * registry of cookies and the context's async channel.
 *
 * The async channel carries the EQE (no OMIT_DATA), one entry per event,
 * as uverbs queues one per event; its fd is non-blocking (the application
 * waits on async_fd).  A CQ subscribes CQ_ERROR, a QP the QP events mlx5_ib
 * reports (mlx5_ib_qp_event), an SRQ its limit and catastrophic error
 * (mlx5_ib_srq_event).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/epoll.h>

#include "prm/prm_cmd.h"
#include "provider/core/context.h"
#include "provider/verbs/async_event.h"
#include "provider/verbs/events.h"

#define PROV_EV_BUCKETS 256

struct prov_events {
	pthread_mutex_t lock;		/* the table */
	uint64_t next_cookie;
	struct prov_ev_obj *bucket[PROV_EV_BUCKETS];
	struct mlx5be_event_channel *async_ch;	/* NULL: none */
};

static const uint16_t prov_ev_cq_types[] = { MLX5_EVENT_TYPE_CQ_ERROR };
static const uint16_t prov_ev_qp_types[] = {
	MLX5_EVENT_TYPE_PATH_MIG, MLX5_EVENT_TYPE_COMM_EST,
	MLX5_EVENT_TYPE_SQ_DRAINED, MLX5_EVENT_TYPE_SRQ_LAST_WQE,
	MLX5_EVENT_TYPE_WQ_CATAS_ERROR, MLX5_EVENT_TYPE_PATH_MIG_FAILED,
	MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR, MLX5_EVENT_TYPE_WQ_ACCESS_ERROR,
};
static const uint16_t prov_ev_srq_types[] = {
	MLX5_EVENT_TYPE_SRQ_RQ_LIMIT, MLX5_EVENT_TYPE_SRQ_CATAS_ERROR,
};

static int prov_ev_epoll_add(struct prov_context *pctx, int fd)
{
	struct epoll_event e = { .events = EPOLLIN, .data.fd = fd };

	if (epoll_ctl(pctx->vctx.context.async_fd, EPOLL_CTL_ADD, fd, &e))
		return errno;
	return 0;
}

int prov_events_init(struct prov_context *pctx)
{
	const struct mlx5be_ops *be = pctx->be;
	struct prov_events *ev = calloc(1, sizeof(*ev));
	int fd, err = 0;

	if (!ev)
		return ENOMEM;
	pthread_mutex_init(&ev->lock, NULL);
	ev->next_cookie = 1;
	pctx->events = ev;
	if (be->event_channel_create) {
		ev->async_ch = be->event_channel_create(pctx->bectx, 0);
		if (!ev->async_ch)
			err = errno ? errno : ENOMEM;
	}
	if (!err && ev->async_ch) {
		fd = be->event_channel_fd(ev->async_ch);
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
			err = errno;
		else
			err = prov_ev_epoll_add(pctx, fd);
	}
	if (!err && be->async_event_fd)
		err = prov_ev_epoll_add(pctx, be->async_event_fd(pctx->bectx));
	if (err)
		prov_events_fini(pctx);
	return err;
}

void prov_events_fini(struct prov_context *pctx)
{
	struct prov_events *ev = pctx->events;

	if (!ev)
		return;
	if (ev->async_ch)
		pctx->be->event_channel_destroy(ev->async_ch);
	pthread_mutex_destroy(&ev->lock);
	free(ev);
	pctx->events = NULL;
}

static struct prov_ev_obj **prov_ev_slot(struct prov_events *ev, uint64_t cookie)
{
	return &ev->bucket[cookie % PROV_EV_BUCKETS];
}

void prov_ev_register(struct prov_context *pctx, struct prov_ev_obj *eo,
		      enum prov_ev_kind kind, struct mlx5be_obj *obj)
{
	struct prov_events *ev = pctx->events;
	const uint16_t *types;
	size_t n;

	eo->kind = kind;
	pthread_mutex_lock(&ev->lock);
	eo->cookie = ev->next_cookie++;
	eo->next = *prov_ev_slot(ev, eo->cookie);
	*prov_ev_slot(ev, eo->cookie) = eo;
	pthread_mutex_unlock(&ev->lock);
	if (!ev->async_ch)
		return;
	switch (kind) {
	case PROV_EV_CQ:
		types = prov_ev_cq_types;
		n = sizeof(prov_ev_cq_types) / sizeof(types[0]);
		break;
	case PROV_EV_QP:
		types = prov_ev_qp_types;
		n = sizeof(prov_ev_qp_types) / sizeof(types[0]);
		break;
	default:
		types = prov_ev_srq_types;
		n = sizeof(prov_ev_srq_types) / sizeof(types[0]);
		break;
	}
	(void)pctx->be->event_subscribe(ev->async_ch, obj, types, n, eo->cookie);
}

void prov_ev_unregister(struct prov_context *pctx, struct prov_ev_obj *eo)
{
	struct prov_events *ev = pctx->events;
	struct prov_ev_obj **pp;

	if (!eo->cookie)
		return;
	pthread_mutex_lock(&ev->lock);
	for (pp = prov_ev_slot(ev, eo->cookie); *pp; pp = &(*pp)->next)
		if (*pp == eo) {
			*pp = eo->next;
			break;
		}
	pthread_mutex_unlock(&ev->lock);
	eo->cookie = 0;
	/* Its queued events go now, not when read (polls stay exact). */
	prov_async_drain(pctx);
}

bool prov_ev_take(struct prov_context *pctx, uint64_t cookie,
		  enum prov_ev_kind kind,
		  void (*fn)(struct prov_ev_obj *eo, void *arg), void *arg)
{
	struct prov_events *ev = pctx->events;
	struct prov_ev_obj *eo;

	if (!ev || !cookie)
		return false;
	pthread_mutex_lock(&ev->lock);
	for (eo = *prov_ev_slot(ev, cookie); eo; eo = eo->next)
		if (eo->cookie == cookie)
			break;
	if (eo && eo->kind == kind)
		fn(eo, arg);
	pthread_mutex_unlock(&ev->lock);
	return eo && eo->kind == kind;
}

struct mlx5be_event_channel *prov_ev_async_channel(struct prov_context *pctx)
{
	return pctx->events ? pctx->events->async_ch : NULL;
}

int prov_ev_wait(struct prov_context *pctx, int fd, bool *progressed)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int fl;

	/* A device without a thread of its own moves only when told, and
	 * the event may come of it: tell it once before waiting. */
	if (!*progressed) {
		*progressed = true;
		prov_progress(pctx, MLX5BE_PROGRESS_WAIT);
		return 0;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -1;
	if (fl & O_NONBLOCK) {
		errno = EAGAIN;
		return -1;
	}
	/* One that waits on the outside world (another process's frames)
	 * moves only while told: its WAIT slept on that, so look again. */
	if (prov_progress(pctx, MLX5BE_PROGRESS_WAIT))
		return 0;
	return poll(&pfd, 1, -1) < 0 ? -1 : 0;
}
