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
 * The fd is an eventfd in semaphore mode holding exactly one count per
 * queued event; counts are taken only under the channel lock together with
 * their event, so destroying a CQ can drop its unread events (as
 * ib_uverbs_release_ucq does) and their counts without a reader blocking on
 * a count that no longer has an event.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "shell/abi_export.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/verbs_ctx.h"

/* The context's channels, which a forked child renews. */
static void channel_link(struct prov_comp_channel *ch)
{
	struct prov_verbs_ctx *vc =
		prov_verbs_ctx(to_prov_context(ch->ch.context));

	pthread_mutex_lock(&vc->lock);
	ch->next = vc->channels;
	if (vc->channels)
		vc->channels->prev = ch;
	vc->channels = ch;
	pthread_mutex_unlock(&vc->lock);
}

static void channel_unlink(struct prov_comp_channel *ch)
{
	struct prov_verbs_ctx *vc =
		prov_verbs_ctx(to_prov_context(ch->ch.context));

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
		uint64_t n = 0;

		pthread_mutex_init(&ch->lock, NULL);
		for (struct prov_cq_event *ev = ch->head; ev; ev = ev->next)
			n++;
		prov_fd_replace(ch->ch.fd, eventfd((unsigned int)n,
						   EFD_CLOEXEC | EFD_SEMAPHORE));
	}
}

MLX5EMU_ABI(ibv_create_comp_channel);
struct ibv_comp_channel *mlx5emu_abi_ibv_create_comp_channel(struct ibv_context *context)
{
	struct prov_comp_channel *ch;
	int err;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	ch->ch.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (ch->ch.fd < 0) {
		err = errno;
		free(ch);
		errno = err;
		return NULL;
	}
	pthread_mutex_init(&ch->lock, NULL);
	ch->ch.context = context;
	ch->ch.refcnt = 0;
	channel_link(ch);
	return &ch->ch;
}

MLX5EMU_ABI(ibv_destroy_comp_channel);
int mlx5emu_abi_ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct prov_comp_channel *ch;
	struct ibv_context *context;
	struct prov_cq_event *ev;

	if (!channel) {
		errno = EINVAL;
		return EINVAL;
	}
	ch = to_prov_channel(channel);
	context = channel->context;
	pthread_mutex_lock(&context->mutex);
	if (channel->refcnt) {
		pthread_mutex_unlock(&context->mutex);
		return EBUSY;
	}
	channel_unlink(ch);
	close(channel->fd);
	while ((ev = ch->head)) {
		ch->head = ev->next;
		free(ev);
	}
	pthread_mutex_destroy(&ch->lock);
	free(ch);
	pthread_mutex_unlock(&context->mutex);
	return 0;
}

/* Takes one event and its count; the caller holds ch->lock. */
static struct prov_cq_event *channel_pop(struct prov_comp_channel *ch)
{
	struct prov_cq_event *ev = ch->head;
	uint64_t one;

	if (!ev)
		return NULL;
	ch->head = ev->next;
	if (!ch->head)
		ch->tail = NULL;
	/* Never blocks: the count is at least the number of events. */
	if (read(ch->ch.fd, &one, sizeof(one)) != sizeof(one)) {
		/* Cannot happen; keep the event rather than lose it. */
		ev->next = ch->head;
		ch->head = ev;
		if (!ch->tail)
			ch->tail = ev;
		return NULL;
	}
	return ev;
}

MLX5EMU_ABI(ibv_get_cq_event);
int mlx5emu_abi_ibv_get_cq_event(struct ibv_comp_channel *channel,
				 struct ibv_cq **cq, void **cq_context)
{
	struct prov_comp_channel *ch;
	struct prov_cq_event *ev;
	struct prov_cq *pcq;
	bool progressed = false;

	if (!channel || !cq || !cq_context) {
		errno = EINVAL;
		return -1;
	}
	ch = to_prov_channel(channel);
	for (;;) {
		struct pollfd pfd = { .fd = channel->fd, .events = POLLIN };
		int flags;

		pthread_mutex_lock(&ch->lock);
		ev = channel_pop(ch);
		if (ev) {
			/* ib_uverbs_event_read counts the event as reported. */
			ev->cq->comp_events_reported++;
			pthread_mutex_unlock(&ch->lock);
			break;
		}
		pthread_mutex_unlock(&ch->lock);
		/* Nothing queued: a device without a thread of its own
		 * moves only when told, so tell it once before waiting. */
		if (!progressed) {
			progressed = true;
			prov_progress(to_prov_context(channel->context),
				      MLX5BE_PROGRESS_WAIT);
			continue;
		}
		flags = fcntl(channel->fd, F_GETFL);
		if (flags < 0)
			return -1;
		if (flags & O_NONBLOCK) {
			errno = EAGAIN;
			return -1;
		}
		if (poll(&pfd, 1, -1) < 0)
			return -1;
		if (pfd.revents & (POLLERR | POLLNVAL)) {
			errno = EBADF;
			return -1;
		}
	}
	pcq = ev->cq;
	free(ev);
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

void prov_cq_comp_event(struct ibv_cq *ibcq)
{
	struct prov_comp_channel *ch;
	struct prov_cq_event *ev;
	uint64_t one = 1;

	if (!ibcq || !ibcq->channel)
		return;
	ch = to_prov_channel(ibcq->channel);
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return;		/* the kernel drops the event on ENOMEM too */
	ev->cq = to_prov_cq(ibcq);
	pthread_mutex_lock(&ch->lock);
	if (write(ch->ch.fd, &one, sizeof(one)) != sizeof(one)) {
		pthread_mutex_unlock(&ch->lock);
		free(ev);
		return;
	}
	if (ch->tail)
		ch->tail->next = ev;
	else
		ch->head = ev;
	ch->tail = ev;
	pthread_mutex_unlock(&ch->lock);
}

void prov_channel_forget_cq(struct ibv_comp_channel *channel, struct prov_cq *cq)
{
	struct prov_comp_channel *ch = to_prov_channel(channel);
	struct prov_cq_event **pp, *ev;
	uint64_t one;

	pthread_mutex_lock(&ch->lock);
	ch->tail = NULL;
	pp = &ch->head;
	while ((ev = *pp)) {
		if (ev->cq == cq) {
			*pp = ev->next;
			free(ev);
			if (read(ch->ch.fd, &one, sizeof(one)) != sizeof(one))
				break;
			continue;
		}
		ch->tail = ev;
		pp = &ev->next;
	}
	/* A failed read above left the rest unscanned: find the tail. */
	for (ev = ch->tail ? ch->tail : ch->head; ev && ev->next; ev = ev->next)
		;
	ch->tail = ev;
	pthread_mutex_unlock(&ch->lock);
}
