/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous events through the context's async_fd, as libibverbs
 * delivers what the kernel queues (ib_uverbs_async_handler,
 * ibv_get_async_event, ibv_ack_async_event).
 *
 * async_fd is an epoll set (events.h) of three sources, each read without
 * waiting: what the provider posts itself (prov_async_event_post: a pipe
 * of fixed-size records), the kernel's unaffiliated events (port state,
 * device fatal), and the DEVX channel of the objects' affiliated events,
 * mapped as mlx5_ib maps them:
 *
 *   WQ_CATAS_ERROR -> QP_FATAL       WQ_INVAL_REQ_ERROR -> QP_REQ_ERR
 *   WQ_ACCESS_ERROR -> QP_ACCESS_ERR COMM_EST -> COMM_EST
 *   SQ_DRAINED -> SQ_DRAINED         SRQ_LAST_WQE -> QP_LAST_WQE_REACHED
 *   PATH_MIG -> PATH_MIG             PATH_MIG_FAILED -> PATH_MIG_ERR
 *   SRQ_RQ_LIMIT -> SRQ_LIMIT_REACHED SRQ_CATAS_ERROR -> SRQ_ERR
 *   CQ_ERROR -> CQ_ERR
 *
 * An event of an object destroyed since is dropped, as uverbs drops them:
 * when an object goes, the events queued on the channel move into the
 * pipe (by cookie) but for its own, so async_fd polls as the kernel's
 * async file would.
 * Nothing waiting: -1 with EAGAIN if the application made async_fd
 * O_NONBLOCK, else it waits for one.  Acks are counted on the object, so
 * its destroy waits for those of the events it reported.
 */
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/verbs/async_event.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/events.h"
#include "provider/verbs/qp.h"
#include "provider/mana/mana_prov.h"

/* What travels through the pipe (ib_uverbs_async_event_desc's shape). */
struct prov_async_record {
	uint64_t element;	/* object pointer, port number, or a cookie */
	uint32_t event_type;
	uint32_t cookie;	/* element is a cookie (events.h) */
};

int prov_async_event_post(struct prov_context *pctx, enum ibv_event_type type,
			  uint64_t element)
{
	struct prov_async_record r = { .element = element, .event_type = type };

	/* Records are far below PIPE_BUF: each write is atomic. */
	if (write(pctx->async_wr_fd, &r, sizeof(r)) != sizeof(r))
		return errno;
	return 0;
}

static int async_map(uint8_t type, enum prov_ev_kind *kind);
static void async_take_obj(struct prov_ev_obj *eo, void *arg);

/* The kind of object an event of a verbs type concerns. */
static enum prov_ev_kind async_kind(uint32_t type)
{
	switch (type) {
	case IBV_EVENT_CQ_ERR:
		return PROV_EV_CQ;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return PROV_EV_SRQ;
	default:
		return PROV_EV_QP;
	}
}

/* A posted record into @event, its object's report counted; false for an
 * event of an object destroyed since. */
static bool async_from_record(struct prov_context *pctx,
			      const struct prov_async_record *r,
			      struct ibv_async_event *event)
{
	event->event_type = r->event_type;
	if (r->cookie)
		return prov_ev_take(pctx, r->element, async_kind(r->event_type),
				    async_take_obj, event);
	switch (r->event_type) {
	case IBV_EVENT_CQ_ERR:
		event->element.cq = (struct ibv_cq *)(uintptr_t)r->element;
		pthread_mutex_lock(&event->element.cq->mutex);
		to_prov_cq(event->element.cq)->async_events_reported++;
		pthread_mutex_unlock(&event->element.cq->mutex);
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		event->element.qp = (struct ibv_qp *)(uintptr_t)r->element;
		prov_qp_event_reported(event->element.qp);
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		event->element.srq = (struct ibv_srq *)(uintptr_t)r->element;
		prov_srq_event_reported(event->element.srq);
		break;
	case IBV_EVENT_WQ_FATAL:
		event->element.wq = (struct ibv_wq *)(uintptr_t)r->element;
		break;
	default:
		event->element.port_num = (int)r->element;
		break;
	}
	return true;
}

/* mlx5_ib_qp_event / _srq_event / _cq_event: the verbs event of an EQE
 * type, and whose it is; -1 for types verbs does not report. */
static int async_map(uint8_t type, enum prov_ev_kind *kind)
{
	*kind = PROV_EV_QP;
	switch (type) {
	case MLX5_EVENT_TYPE_PATH_MIG:
		return IBV_EVENT_PATH_MIG;
	case MLX5_EVENT_TYPE_COMM_EST:
		return IBV_EVENT_COMM_EST;
	case MLX5_EVENT_TYPE_SQ_DRAINED:
		return IBV_EVENT_SQ_DRAINED;
	case MLX5_EVENT_TYPE_SRQ_LAST_WQE:
		return IBV_EVENT_QP_LAST_WQE_REACHED;
	case MLX5_EVENT_TYPE_WQ_CATAS_ERROR:
		return IBV_EVENT_QP_FATAL;
	case MLX5_EVENT_TYPE_PATH_MIG_FAILED:
		return IBV_EVENT_PATH_MIG_ERR;
	case MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR:
		return IBV_EVENT_QP_REQ_ERR;
	case MLX5_EVENT_TYPE_WQ_ACCESS_ERROR:
		return IBV_EVENT_QP_ACCESS_ERR;
	case MLX5_EVENT_TYPE_SRQ_RQ_LIMIT:
		*kind = PROV_EV_SRQ;
		return IBV_EVENT_SRQ_LIMIT_REACHED;
	case MLX5_EVENT_TYPE_SRQ_CATAS_ERROR:
		*kind = PROV_EV_SRQ;
		return IBV_EVENT_SRQ_ERR;
	case MLX5_EVENT_TYPE_CQ_ERROR:
		*kind = PROV_EV_CQ;
		return IBV_EVENT_CQ_ERR;
	default:
		return -1;
	}
}

/* The object is still there: it becomes the event's element, reported. */
static void async_take_obj(struct prov_ev_obj *eo, void *arg)
{
	struct ibv_async_event *event = arg;

	switch (eo->kind) {
	case PROV_EV_CQ: {
		struct prov_cq *cq = prov_cq_of_ev(eo);
		struct ibv_cq *ibcq = ibv_cq_ex_to_cq(&cq->ex);

		event->element.cq = ibcq;
		pthread_mutex_lock(&ibcq->mutex);
		cq->async_events_reported++;
		pthread_mutex_unlock(&ibcq->mutex);
		break;
	}
	case PROV_EV_QP:
		event->element.qp = &prov_qp_of_ev(eo)->vqp.qp;
		prov_qp_event_reported(event->element.qp);
		break;
	case PROV_EV_SRQ:
		event->element.srq = &prov_srq_of_ev(eo)->vsrq.srq;
		prov_srq_event_reported(event->element.srq);
		break;
	}
}

/* One event from any source without waiting: 0, or EAGAIN. */
static int async_next(struct prov_context *pctx, struct ibv_async_event *event)
{
	struct mlx5be_event_channel *ch = prov_ev_async_channel(pctx);
	struct prov_async_record r;
	struct mlx5be_async_event ke;
	struct mlx5be_event de;
	enum prov_ev_kind kind;
	ssize_t n;
	int type;

	while (read(pctx->async_rd_fd, &r, sizeof(r)) == sizeof(r))
		if (async_from_record(pctx, &r, event))
			return 0;
	if (pctx->be->async_event_read &&
	    !pctx->be->async_event_read(pctx->bectx, &ke)) {
		event->event_type = ke.event_type;
		/* mlx5 reports a fatal error against port 1. */
		event->element.port_num = ke.port_num ? (int)ke.port_num : 1;
		return 0;
	}
	while (ch) {
		n = pctx->be->event_read(ch, &de, sizeof(de));
		if (n == -EOVERFLOW)
			continue;	/* events were lost: the next one */
		if (n != (ssize_t)sizeof(de))
			break;
		type = async_map(PRM_GET(eqe, de.eqe, event_type), &kind);
		if (type < 0)
			continue;
		event->event_type = (enum ibv_event_type)type;
		if (prov_ev_take(pctx, de.cookie, kind, async_take_obj, event))
			return 0;
		/* Its object was destroyed: dropped. */
	}
	return EAGAIN;
}

/* The registered object a cookie names (kind @arg), no report counted. */
static void async_is_there(struct prov_ev_obj *eo, void *arg)
{
	(void)eo;
	(void)arg;
}

void prov_async_drain(struct prov_context *pctx)
{
	struct mlx5be_event_channel *ch = prov_ev_async_channel(pctx);
	struct prov_async_record r = { .cookie = 1 };
	enum prov_ev_kind kind;
	struct mlx5be_event de;
	ssize_t n;
	int type;

	while (ch) {
		n = pctx->be->event_read(ch, &de, sizeof(de));
		if (n == -EOVERFLOW)
			continue;
		if (n != (ssize_t)sizeof(de))
			break;
		type = async_map(PRM_GET(eqe, de.eqe, event_type), &kind);
		if (type < 0 ||
		    !prov_ev_take(pctx, de.cookie, kind, async_is_there, NULL))
			continue;	/* the destroyed object's: dropped */
		r.element = de.cookie;
		r.event_type = (uint32_t)type;
		if (write(pctx->async_wr_fd, &r, sizeof(r)) != sizeof(r))
			break;	/* the pipe is full: the rest stay queued */
	}
}

MLX5EMU_ABI(ibv_get_async_event);
int mlx5emu_abi_ibv_get_async_event(struct ibv_context *context,
				    struct ibv_async_event *event)
{
	if (prov_mana_is(context))
		return prov_mana_get_async_event(context, event);
	bool progressed = false;
	struct prov_context *pctx;

	if (!context || !event) {
		errno = EINVAL;
		return -1;
	}
	pctx = to_prov_context(context);
	for (;;) {
		if (!async_next(pctx, event))
			return 0;
		if (prov_ev_wait(pctx, context->async_fd, &progressed))
			return -1;
	}
}

/* One more acknowledged event on an object; its destroy may be waiting. */
#define PROV_ACK(obj, counter)                                                \
	do {                                                                  \
		pthread_mutex_lock(&(obj)->mutex);                            \
		++(obj)->counter;                                             \
		pthread_cond_signal(&(obj)->cond);                            \
		pthread_mutex_unlock(&(obj)->mutex);                          \
	} while (0)

MLX5EMU_ABI(ibv_ack_async_event);
void mlx5emu_abi_ibv_ack_async_event(struct ibv_async_event *event)
{
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		PROV_ACK(event->element.cq, async_events_completed);
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		PROV_ACK(event->element.qp, events_completed);
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		PROV_ACK(event->element.srq, events_completed);
		break;
	case IBV_EVENT_WQ_FATAL:
		PROV_ACK(event->element.wq, events_completed);
		break;
	default:
		break;
	}
}
