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
 * OMIT_DATA loses none.  The event of a CQ destroyed since is dropped, as
 * ib_uverbs_release_ucq drops it.
 */
#include <errno.h>
#include <stdlib.h>

#include "shell/abi_export.h"
#include "prm/prm_cmd.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"

MLX5EMU_ABI(ibv_create_comp_channel);
struct ibv_comp_channel *mlx5emu_abi_ibv_create_comp_channel(struct ibv_context *context)
{
	struct prov_comp_channel *ch;
	struct prov_context *pctx;
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
	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	ch->be = pctx->be->event_channel_create(pctx->bectx,
						MLX5BE_EVENT_CHANNEL_OMIT_DATA);
	if (!ch->be) {
		err = errno;
		free(ch);
		errno = err;
		return NULL;
	}
	ch->pctx = pctx;
	ch->ch.fd = pctx->be->event_channel_fd(ch->be);
	ch->ch.context = context;
	ch->ch.refcnt = 0;
	return &ch->ch;
}

MLX5EMU_ABI(ibv_destroy_comp_channel);
int mlx5emu_abi_ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct prov_comp_channel *ch;
	struct ibv_context *context;

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
	ch->pctx->be->event_channel_destroy(ch->be);
	free(ch);
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

MLX5EMU_ABI(ibv_get_cq_event);
int mlx5emu_abi_ibv_get_cq_event(struct ibv_comp_channel *channel,
				 struct ibv_cq **cq, void **cq_context)
{
	struct prov_comp_channel *ch;
	struct prov_cq *pcq = NULL;
	struct mlx5be_event ev;

	if (!channel || !cq || !cq_context) {
		errno = EINVAL;
		return -1;
	}
	ch = to_prov_channel(channel);
	do {
		ssize_t n = ch->pctx->be->event_read(ch->be, &ev, sizeof(ev.cookie));

		if (n < 0) {
			errno = (int)-n;
			return -1;
		}
	} while (!prov_ev_take(ch->pctx, ev.cookie, PROV_EV_CQ, cq_event_taken,
			       &pcq));
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
