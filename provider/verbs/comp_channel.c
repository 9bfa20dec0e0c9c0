/* SPDX-License-Identifier: MIT */
/*
 * Completion channels and completion events, as libibverbs 44 (verbs.c)
 * over the kernel's completion event file (uverbs_std_types_cq.c,
 * ib_uverbs_comp_handler, ib_uverbs_event_read) behave:
 *
 *   ibv_create_comp_channel   NULL + errno (EMFILE, ENOMEM) or a channel
 *                             whose fd is pollable: readable while events
 *                             wait
 *   ibv_destroy_comp_channel  EBUSY while CQs use it (libibverbs' refcnt)
 *   ibv_get_cq_event          0, or -1 + errno: blocks until an event
 *                             comes unless the application made the fd
 *                             O_NONBLOCK (then EAGAIN); EINTR from a
 *                             signal, as read() would give
 *   ibv_ack_cq_events         counts acknowledgements; ibv_destroy_cq
 *                             waits for all the events it read
 *
 * A channel is a DEVX event channel with OMIT_DATA: each CQ on it
 * subscribes its completions (event type 0) with its cookie, and a read
 * gives the cookie of a CQ that had an event.  The device raises one event
 * per arm and takes no arm before the application took the event (the arm
 * sequence), so a CQ never has two events waiting and the coalescing of
 * OMIT_DATA loses none.  The events of a CQ destroyed unread are dropped,
 * as ib_uverbs_release_ucq drops them: the destroy takes every event off
 * the DEVX channel and keeps those of other CQs in the channel's stash
 * (read first), so the fd polls as the kernel's would.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "shell/abi_export.h"
#include "prm/prm_cmd.h"
#include "provider/core/context.h"
#include "provider/mana/mana_prov.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/events.h"
#include "provider/verbs/verbs_ctx.h"

/* The channel's epoll set of its DEVX channel and its stash; 0 or errno. */
static int channel_fds(struct prov_comp_channel *ch)
{
	struct epoll_event e = { .events = EPOLLIN };
	int dfd = ch->pctx->be->event_channel_fd(ch->be);

	ch->stash[0] = ch->stash[1] = -1;
	ch->ch.fd = epoll_create1(EPOLL_CLOEXEC);
	if (ch->ch.fd < 0 || pipe2(ch->stash, O_CLOEXEC | O_NONBLOCK) ||
	    fcntl(dfd, F_SETFL, fcntl(dfd, F_GETFL) | O_NONBLOCK) ||
	    epoll_ctl(ch->ch.fd, EPOLL_CTL_ADD, dfd, &e) ||
	    epoll_ctl(ch->ch.fd, EPOLL_CTL_ADD, ch->stash[0], &e))
		return errno;
	return 0;
}

/* The context's channels, which a forked child renews. */
static void channel_link(struct prov_comp_channel *ch)
{
	struct prov_verbs_ctx *vc = prov_verbs_ctx(ch->pctx);

	pthread_mutex_lock(&vc->lock);
	ch->next = vc->channels;
	if (vc->channels)
		vc->channels->prev = ch;
	vc->channels = ch;
	pthread_mutex_unlock(&vc->lock);
}

static void channel_unlink(struct prov_comp_channel *ch)
{
	struct prov_verbs_ctx *vc = prov_verbs_ctx(ch->pctx);

	pthread_mutex_lock(&vc->lock);
	if (ch->prev)
		ch->prev->next = ch->next;
	else
		vc->channels = ch->next;
	if (ch->next)
		ch->next->prev = ch->prev;
	pthread_mutex_unlock(&vc->lock);
}

void prov_comp_channels_fork_child(struct prov_context *pctx)
{
	struct prov_verbs_ctx *vc = prov_verbs_ctx(pctx);

	pthread_mutex_init(&vc->lock, NULL);
	for (struct prov_comp_channel *ch = vc->channels; ch; ch = ch->next) {
		int fds[2] = { pctx->be->event_channel_fd(ch->be) }, p[2];

		/* The stash pipe is the parent's too: the child's starts
		 * empty (what the parent stashed stays the parent's). */
		if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
			continue;
		prov_fd_replace(ch->stash[0], p[0]);
		prov_fd_replace(ch->stash[1], p[1]);
		fds[1] = ch->stash[0];
		prov_fd_epoll_renew(ch->ch.fd, fds, 2);
	}
}

static void channel_free(struct prov_comp_channel *ch)
{
	if (ch->be)
		ch->pctx->be->event_channel_destroy(ch->be);
	for (int i = 0; i < 2; i++)
		if (ch->stash[i] >= 0)
			close(ch->stash[i]);
	if (ch->ch.fd >= 0)
		close(ch->ch.fd);
	free(ch);
}

MLX5EMU_ABI(ibv_create_comp_channel);
struct ibv_comp_channel *mlx5emu_abi_ibv_create_comp_channel(struct ibv_context *context)
{
	struct mlx5be_event_channel *be;
	struct prov_comp_channel *ch;
	int err;

	if (context && prov_mana_is(context))
		return prov_mana_create_comp_channel(context);
	ch = prov_event_channel_alloc(context, sizeof(*ch),
				      MLX5BE_EVENT_CHANNEL_OMIT_DATA, &be);
	if (!ch)
		return NULL;
	ch->pctx = to_prov_context(context);
	ch->be = be;
	ch->ch.fd = ch->stash[0] = ch->stash[1] = -1;
	err = channel_fds(ch);
	if (err) {
		channel_free(ch);
		errno = err;
		return NULL;
	}
	ch->ch.context = context;
	ch->ch.refcnt = 0;
	channel_link(ch);
	return &ch->ch;
}

MLX5EMU_ABI(ibv_destroy_comp_channel);
int mlx5emu_abi_ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct ibv_context *context;

	if (!channel) {
		errno = EINVAL;
		return EINVAL;
	}
	context = channel->context;
	if (prov_mana_is(context))
		return prov_mana_destroy_comp_channel(channel);
	pthread_mutex_lock(&context->mutex);
	if (channel->refcnt) {
		pthread_mutex_unlock(&context->mutex);
		return EBUSY;
	}
	channel_unlink(to_prov_channel(channel));
	channel_free(to_prov_channel(channel));
	pthread_mutex_unlock(&context->mutex);
	return 0;
}

int prov_cq_channel_subscribe(struct prov_cq *cq)
{
	struct ibv_comp_channel *channel = ibv_cq_ex_to_cq(&cq->ex)->channel;
	static const uint16_t comp = MLX5_EVENT_TYPE_COMP;
	struct prov_comp_channel *ch;

	if (!channel)
		return 0;
	ch = to_prov_channel(channel);
	return -ch->pctx->be->event_subscribe(ch->be, cq->obj, &comp, 1,
					      cq->ev.cookie);
}

/* ib_uverbs_event_read counts the event as reported. */
static void cq_event_taken(struct prov_ev_obj *eo, void *arg)
{
	struct prov_cq *cq = prov_cq_of_ev(eo);
	struct ibv_cq *ibcq = ibv_cq_ex_to_cq(&cq->ex);

	pthread_mutex_lock(&ibcq->mutex);
	cq->comp_events_reported++;
	pthread_mutex_unlock(&ibcq->mutex);
	*(struct prov_cq **)arg = cq;
}

/* A cookie waiting, from the stash first: 0, or EAGAIN, or an errno. */
static int channel_next(struct prov_comp_channel *ch, uint64_t *cookie)
{
	struct mlx5be_event ev;
	ssize_t n;

	if (read(ch->stash[0], cookie, sizeof(*cookie)) == sizeof(*cookie))
		return 0;
	n = ch->pctx->be->event_read(ch->be, &ev, sizeof(ev.cookie));
	if (n < 0)
		return (int)-n;
	*cookie = ev.cookie;
	return 0;
}

static void cq_is_there(struct prov_ev_obj *eo, void *arg)
{
	(void)eo;
	(void)arg;
}

void prov_channel_drain(struct ibv_comp_channel *channel)
{
	struct prov_comp_channel *ch = to_prov_channel(channel);
	struct mlx5be_event ev;

	while (ch->pctx->be->event_read(ch->be, &ev, sizeof(ev.cookie)) ==
	       sizeof(ev.cookie))
		if (prov_ev_take(ch->pctx, ev.cookie, PROV_EV_CQ, cq_is_there,
				 NULL) &&
		    write(ch->stash[1], &ev.cookie, sizeof(ev.cookie)) !=
		    sizeof(ev.cookie))
			break;	/* the stash is full: it stays in the kernel */
}

MLX5EMU_ABI(ibv_get_cq_event);
int mlx5emu_abi_ibv_get_cq_event(struct ibv_comp_channel *channel,
				 struct ibv_cq **cq, void **cq_context)
{
	struct prov_comp_channel *ch;
	struct prov_cq *pcq = NULL;
	bool progressed = false;
	uint64_t cookie;

	if (!channel || !cq || !cq_context) {
		errno = EINVAL;
		return -1;
	}
	if (prov_mana_is(channel->context))
		return prov_mana_get_cq_event(channel, cq, cq_context);
	ch = to_prov_channel(channel);
	for (;;) {
		int err = channel_next(ch, &cookie);

		if (!err) {
			if (prov_ev_take(ch->pctx, cookie, PROV_EV_CQ,
					 cq_event_taken, &pcq))
				break;
			continue;	/* a destroyed CQ's: dropped */
		}
		if (err != EAGAIN) {
			errno = err;
			return -1;
		}
		if (prov_ev_wait(ch->pctx, channel->fd, &progressed))
			return -1;
	}
	*cq = ibv_cq_ex_to_cq(&pcq->ex);
	*cq_context = (*cq)->cq_context;
	/* libmlx5's cq_event op: the next arm carries a new sequence. */
	pcq->arm_sn++;
	return 0;
}

MLX5EMU_ABI(ibv_ack_cq_events);
void mlx5emu_abi_ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	if (!cq)
		return;
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}
