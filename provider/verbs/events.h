/* SPDX-License-Identifier: MIT */
/*
 * Events of verbs objects (events.c).  Every CQ, QP and SRQ the provider
 * makes is a DEVX object; its events reach the provider through DEVX event
 * channels, on real hardware as in the emulator:
 *  - a completion channel is a DEVX event channel with OMIT_DATA, its CQs
 *    subscribed to completions with their cookie (comp_channel.c);
 *  - the context's async_fd is an epoll set of one DEVX event channel its
 *    objects' affiliated events are subscribed to (with the EQE), the
 *    kernel's unaffiliated events (port state, device fatal: the backend's
 *    async_event_* kernel services, since DEVX has no verbs path for them)
 *    and what the provider posts itself (async_event.c).
 * A cookie names a registered object, never reused: once an object is
 * unregistered (destroyed) events still queued for it are dropped when
 * read, as uverbs drops the unread events of a destroyed object.
 */
#ifndef MLX5EMU_PROVIDER_VERBS_EVENTS_H
#define MLX5EMU_PROVIDER_VERBS_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct prov_context;
struct mlx5be_obj;
struct mlx5be_event;

enum prov_ev_kind {
	PROV_EV_CQ,
	PROV_EV_QP,
	PROV_EV_SRQ,
};

/* Embedded in a CQ, QP or SRQ. */
struct prov_ev_obj {
	struct prov_ev_obj *next;	/* the context's table */
	uint64_t cookie;		/* 0: not registered */
	enum prov_ev_kind kind;
};

/* Area hooks (context_ops.c's prov_areas[]): the async channel, async_fd's
 * sources. */
int prov_events_init(struct prov_context *pctx);
void prov_events_fini(struct prov_context *pctx);

/*
 * @eo's object (@obj, its DEVX object) reports its affiliated events to
 * async_fd from now on.  Best effort, as the kernel's: without memory for
 * a subscription the object has no events.
 */
void prov_ev_register(struct prov_context *pctx, struct prov_ev_obj *eo,
		      enum prov_ev_kind kind, struct mlx5be_obj *obj);
/* Its events are no more (also those queued unread). */
void prov_ev_unregister(struct prov_context *pctx, struct prov_ev_obj *eo);

/*
 * The object a cookie names, if still registered and of @kind: fn(eo, arg)
 * runs while it cannot be unregistered (to count an event as reported,
 * which its destroy waits for).  False when it is gone.
 */
bool prov_ev_take(struct prov_context *pctx, uint64_t cookie,
		  enum prov_ev_kind kind,
		  void (*fn)(struct prov_ev_obj *eo, void *arg), void *arg);

/* The context's async channel (NULL: the backend has none). */
struct mlx5be_event_channel *prov_ev_async_channel(struct prov_context *pctx);
/* A blocking get found nothing: the first time (*@progressed false) the
 * device progresses (MLX5BE_PROGRESS_WAIT) and 0 says look again; then
 * waits until @fd polls readable (0, the caller looks again), or -1 with
 * EAGAIN if @fd is O_NONBLOCK (or poll's errno: EINTR). */
int prov_ev_wait(struct prov_context *pctx, int fd, bool *progressed);

#endif /* MLX5EMU_PROVIDER_VERBS_EVENTS_H */
