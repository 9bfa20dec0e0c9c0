/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous events through the context's async_fd, as libibverbs reads
 * them from the kernel: one fixed-size record per event, so a blocking read
 * waits, O_NONBLOCK gives EAGAIN and poll()/epoll work unchanged.  The
 * provider posts events here (prov_async_event_post); acks are counted on
 * the object so destroy can wait for them, as libibverbs does.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "shell/abi_export.h"
#include "provider/verbs/async_event.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/qp.h"

/* What travels through the pipe (ib_uverbs_async_event_desc's shape). */
struct prov_async_record {
	uint64_t element;	/* object pointer or port number */
	uint32_t event_type;
	uint32_t reserved;
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

MLX5EMU_ABI(ibv_get_async_event);
int mlx5emu_abi_ibv_get_async_event(struct ibv_context *context,
				    struct ibv_async_event *event)
{
	struct prov_async_record r;
	struct pollfd pfd = { .fd = context->async_fd, .events = POLLIN };

	/* Nothing to read yet: a device without a thread of its own moves
	 * only when told, so tell it once before waiting. */
	if (poll(&pfd, 1, 0) == 0)
		prov_progress(to_prov_context(context), MLX5BE_PROGRESS_WAIT);
	if (read(context->async_fd, &r, sizeof(r)) != sizeof(r))
		return -1;
	event->event_type = r.event_type;
	switch (r.event_type) {
	case IBV_EVENT_CQ_ERR:
		event->element.cq = (struct ibv_cq *)(uintptr_t)r.element;
		/* Reported to the application: destroy waits for its ack. */
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
		event->element.qp = (struct ibv_qp *)(uintptr_t)r.element;
		/* Reported to the application: destroy waits for its ack. */
		prov_qp_event_reported(event->element.qp);
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		event->element.srq = (struct ibv_srq *)(uintptr_t)r.element;
		prov_srq_event_reported(event->element.srq);
		break;
	case IBV_EVENT_WQ_FATAL:
		event->element.wq = (struct ibv_wq *)(uintptr_t)r.element;
		break;
	default:
		event->element.port_num = (int)r.element;
		break;
	}
	return 0;
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
