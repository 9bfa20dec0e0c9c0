/* SPDX-License-Identifier: MIT */
/* Posting asynchronous events to a context's async_fd. */
#ifndef MLX5EMU_PROVIDER_VERBS_ASYNC_EVENT_H
#define MLX5EMU_PROVIDER_VERBS_ASYNC_EVENT_H

#include <stdint.h>

#include <infiniband/verbs.h>

struct prov_context;

/* @element: the object's ibv_* pointer, or the port number; 0 or an errno. */
int prov_async_event_post(struct prov_context *pctx, enum ibv_event_type type,
			  uint64_t element);

/* An object was unregistered (events.h): the events queued on the async
 * channel move to the pipe, but for objects no longer registered. */
void prov_async_drain(struct prov_context *pctx);

#endif /* MLX5EMU_PROVIDER_VERBS_ASYNC_EVENT_H */
