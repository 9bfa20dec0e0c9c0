/* SPDX-License-Identifier: MIT */
/*
 * provider/mana/mana_chan.c -- completion channels of a MANA context and
 * the events of its CQs, as libibverbs 44 over mana_ib behaves.
 *
 * libmana 44 has no req_notify_cq: an application (DPDK's PMD) arms a CQ
 * itself with the arm bit of the CQ doorbell, and mana_ib's EQ handler
 * raises the CQ's completion event on the channel it was created with.
 * Here a channel is a pipe: the device writes one 8-byte cookie per event
 * to the write end (non-blocking), and ibv_get_cq_event reads the read end,
 * the channel's fd, so it blocks, polls and honours O_NONBLOCK as the
 * kernel's event file does.  A cookie names a CQ of the context by serial
 * number, never by address: the event of a CQ destroyed unread is
 * dropped, as ib_uverbs_release_ucq drops it.
 *
 *   ibv_create_comp_channel   NULL + errno (EMFILE, ENOMEM) or a channel
 *   ibv_destroy_comp_channel  EBUSY while CQs use it (libibverbs' refcnt)
 *   ibv_get_cq_event          0, or -1 + errno (EAGAIN, EINTR)
 *   ibv_destroy_cq            waits until every event it reported was
 *                             acknowledged (ibv_cmd_destroy_cq)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "provider/mana/mana_obj.h"
#include "provider/mana/mana_prov.h"

struct prov_mana_channel {
	struct ibv_comp_channel ch;
	int wr_fd;			/* what the device writes */
};

static struct prov_mana_channel *to_mana_channel(struct ibv_comp_channel *c)
{
	return prov_mana_of(c, struct prov_mana_channel, ch);
}

struct ibv_comp_channel *prov_mana_create_comp_channel(struct ibv_context *context)
{
	struct prov_mana_channel *c = calloc(1, sizeof(*c));
	int fds[2];

	if (!c)
		return NULL;
	if (pipe2(fds, O_CLOEXEC)) {
		free(c);
		return NULL;
	}
	/* the device never waits on a full channel */
	(void)fcntl(fds[1], F_SETFL, O_NONBLOCK);
	c->ch.context = context;
	c->ch.fd = fds[0];
	c->ch.refcnt = 0;
	c->wr_fd = fds[1];
	return &c->ch;
}

int prov_mana_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct ibv_context *context = channel->context;
	struct prov_mana_channel *c = to_mana_channel(channel);

	pthread_mutex_lock(&context->mutex);
	if (channel->refcnt) {
		pthread_mutex_unlock(&context->mutex);
		return EBUSY;
	}
	close(c->ch.fd);
	close(c->wr_fd);
	pthread_mutex_unlock(&context->mutex);
	free(c);
	return 0;
}

int prov_mana_channel_wr_fd(struct ibv_comp_channel *channel)
{
	return channel ? to_mana_channel(channel)->wr_fd : -1;
}

/* The live CQ a cookie names, its event counted as reported; NULL when
 * that CQ is gone. */
static struct prov_mana_cq *chan_take(struct prov_mana_context *m,
				      uint64_t cookie)
{
	struct prov_mana_cq *cq;

	pthread_mutex_lock(&m->cq_lock);
	for (cq = m->cqs; cq; cq = cq->next)
		if (cq->cookie == cookie)
			break;
	if (cq) {
		pthread_mutex_lock(&cq->ibcq.mutex);
		cq->reported++;
		pthread_mutex_unlock(&cq->ibcq.mutex);
	}
	pthread_mutex_unlock(&m->cq_lock);
	return cq;
}

int prov_mana_get_cq_event(struct ibv_comp_channel *channel,
			   struct ibv_cq **cq, void **cq_context)
{
	struct prov_mana_context *m = to_prov_mana(channel->context);
	struct prov_mana_cq *mcq;
	uint64_t cookie;

	do {
		ssize_t n = read(channel->fd, &cookie, sizeof(cookie));

		if (n != (ssize_t)sizeof(cookie)) {
			if (n >= 0)
				errno = EIO;
			return -1;
		}
		mcq = chan_take(m, cookie);
	} while (!mcq);
	*cq = &mcq->ibcq;
	*cq_context = mcq->ibcq.cq_context;
	return 0;
}

void prov_mana_cq_link(struct prov_mana_context *m, struct prov_mana_cq *cq)
{
	pthread_mutex_lock(&m->cq_lock);
	cq->cookie = ++m->cq_serial;
	cq->next = m->cqs;
	m->cqs = cq;
	pthread_mutex_unlock(&m->cq_lock);
}

void prov_mana_cq_unlink(struct prov_mana_context *m, struct prov_mana_cq *cq)
{
	pthread_mutex_lock(&m->cq_lock);
	for (struct prov_mana_cq **pp = &m->cqs; *pp; pp = &(*pp)->next)
		if (*pp == cq) {
			*pp = cq->next;
			break;
		}
	pthread_mutex_unlock(&m->cq_lock);
	/* ibv_cmd_destroy_cq: every event reported must be acknowledged */
	pthread_mutex_lock(&cq->ibcq.mutex);
	while (cq->ibcq.comp_events_completed != cq->reported)
		pthread_cond_wait(&cq->ibcq.cond, &cq->ibcq.mutex);
	pthread_mutex_unlock(&cq->ibcq.mutex);
}
