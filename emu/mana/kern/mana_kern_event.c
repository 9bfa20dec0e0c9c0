/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/kern/mana_kern_event.c -- a MANA device's asynchronous events
 * and its two failures on demand: a vPort's carrier lost or back, and a
 * fatal device error.
 *
 * A carrier change is what mana_en's netdev reports: mana_ib's port query
 * answers DOWN/Disabled or ACTIVE/LinkUp from the netdev's carrier, and the
 * IB core raises PORT_ERR or PORT_ACTIVE for the port, to every context.
 * A fatal error is the device going away under the driver (a service
 * reset or removal): every context gets DEVICE_FATAL, as the IB core's
 * disassociation sends it, the device stops (no doorbell, WQE or frame is
 * taken), and from then on every command but the destroys fails with EIO,
 * as ib_uverbs answers a disassociated device; destroys still release.
 * The device stays so until the process ends.
 *
 * Events go to each context's event descriptor as struct manabe_event
 * records, non-blocking: a context that never reads loses the newest.
 */
#include <errno.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "emu/fault/fault.h"
#include "emu/mana/kern/mana_kern.h"
#include "mlx5emu/mlx5emu.h"

void mk_ctx_link(struct manabe_ctx *ctx)
{
	struct mana_kdev *d = ctx->dev;

	pthread_mutex_lock(&d->lock);
	ctx->next = d->ctxs;
	d->ctxs = ctx;
	pthread_mutex_unlock(&d->lock);
}

void mk_ctx_unlink(struct manabe_ctx *ctx)
{
	struct mana_kdev *d = ctx->dev;

	pthread_mutex_lock(&d->lock);
	for (struct manabe_ctx **pp = &d->ctxs; *pp; pp = &(*pp)->next)
		if (*pp == ctx) {
			*pp = ctx->next;
			break;
		}
	pthread_mutex_unlock(&d->lock);
}

bool mk_fatal(const struct mana_kdev *d)
{
	return __atomic_load_n(&d->fatal, __ATOMIC_ACQUIRE);
}

bool mk_link_up(struct mana_kdev *d, int vport)
{
	bool up;

	pthread_mutex_lock(&d->lock);
	up = !d->link_down[vport];
	pthread_mutex_unlock(&d->lock);
	return up;
}

/* Every context of the device hears of it; d->lock held. */
static void mk_post(struct mana_kdev *d, uint32_t type, uint32_t port)
{
	const struct manabe_event ev = { .type = type, .port = port };

	for (struct manabe_ctx *c = d->ctxs; c; c = c->next)
		if (c->event_fd >= 0 &&
		    write(c->event_fd, &ev, sizeof(ev)) != sizeof(ev))
			d->events_lost++;
}

static int mk_port_link(struct mana_kdev *d, uint32_t port, bool up)
{
	if (port < 1 || port > (uint32_t)d->num_ports)
		return -EINVAL;
	pthread_mutex_lock(&d->lock);
	if (d->link_down[port - 1] == !up) {	/* no change, no event */
		pthread_mutex_unlock(&d->lock);
		return 0;
	}
	d->link_down[port - 1] = !up;
	mana_edev_port_link(d->edev, (int)port - 1, up);
	mk_post(d, up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR, port);
	pthread_mutex_unlock(&d->lock);
	return 0;
}

static int mk_dev_fatal(struct mana_kdev *d)
{
	pthread_mutex_lock(&d->lock);
	if (!d->fatal) {
		__atomic_store_n(&d->fatal, true, __ATOMIC_RELEASE);
		mana_edev_fatal(d->edev);
		mk_post(d, IBV_EVENT_DEVICE_FATAL, 0);
	}
	pthread_mutex_unlock(&d->lock);
	return 0;
}

/* The fault rules' events on MANA devices (emu/fault). */
static int mk_fault_event(int dev, uint32_t action, uint32_t port,
			  uint32_t target)
{
	(void)target;
	return mana_kern_inject(dev - MLX5EMU_FAULT_DEV_MANA, action, port);
}

void mk_fault_up(struct mana_kdev *d)
{
	emu_fault_start();
	emu_fault_set_mana_event_fn(mk_fault_event);
	emu_fault_device_up(MLX5EMU_FAULT_DEV_MANA + d->index);
}

int mana_kern_inject(int index, uint32_t action, uint32_t port)
{
	struct mana_kdev *d = mk_dev_find(index);

	if (!d)
		return -ENODEV;
	switch (action) {
	case MLX5EMU_FAULT_PORT_DOWN:
	case MLX5EMU_FAULT_PORT_UP:
		return mk_port_link(d, port ? port : 1,
				    action == MLX5EMU_FAULT_PORT_UP);
	case MLX5EMU_FAULT_DEVICE_FATAL:
		return mk_dev_fatal(d);
	default:
		/* CQ overrun, QP and SRQ events have no MANA counterpart */
		return -EOPNOTSUPP;
	}
}
