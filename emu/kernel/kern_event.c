/* SPDX-License-Identifier: MIT */
/*
 * DEVX event channels, as mlx5_ib's devx.c keeps them
 * (MLX5_IB_METHOD_DEVX_ASYNC_EVENT_FD_ALLOC, _SUBSCRIBE_EVENT,
 * devx_event_notifier, devx_cq_comp, deliver_event,
 * devx_async_event_read/poll/destroy_uobj).
 *
 * Subscribing checks, in the kernel's order: at most 16 event types, at
 * least one; each an affiliated event of the legacy list for an object,
 * PORT_CHANGE for none (this device has no event_cap page); -EINVAL
 * otherwise.  A subscription is keyed (event type | object type << 16,
 * object number), the object type being what the creating opcode makes of
 * legacy events (QP 0, RQ 1, SQ 2, DCT 6, others 0).  _fd subscriptions
 * take a reference to an eventfd (-EBADF: no descriptor, -EINVAL: not an
 * eventfd) and signal it once per event instead of queueing.
 *
 * Delivering: without OMIT_DATA every event is queued with its cookie and
 * the EQE; with it, a subscription is queued once until read (events
 * coalesce, a read returns the 8-byte cookie).  A channel holds at most
 * KERN_EV_QUEUE_MAX events: one more is lost and the next read answers
 * -EOVERFLOW once (the kernel's allocation failure; memory is the only
 * bound there).  Reading: a buffer shorter than the event is -EINVAL and
 * the event stays; nothing queued blocks, or -EAGAIN with O_NONBLOCK.
 *
 * Lifetimes: an object's destroy ends its subscriptions, but what they
 * queued stays readable until read or the channel goes; the channel's
 * destroy drops its queue; the ucontext's end turns its channels into
 * destroyed ones (queue dropped, the fd readable, blocking reads -EIO,
 * O_NONBLOCK ones -EAGAIN) until the application destroys them.
 *
 * The fd is an eventfd whose count is non-zero while the channel is
 * readable.  Locks: the device's table lock, then a channel's lock;
 * delivery runs in the kernel's EQ interrupt (under the engine's run
 * lock) and takes no ucontext lock.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "emu/kernel/kern.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

#define KERN_EV_MAX_TYPES 16		/* devx.c MAX_NUM_EVENTS */
#define KERN_EV_QUEUE_MAX 65536

/* include/linux/mlx5/device.h MLX5_EVENT_QUEUE_TYPE_* */
enum { KERN_EVQ_QP = 0, KERN_EVQ_RQ = 1, KERN_EVQ_SQ = 2, KERN_EVQ_DCT = 6 };

struct kern_ev_sub {
	struct cds_list_head tnode;	/* the table's (empty once cleaned) */
	struct cds_list_head chnode;	/* ch->subs */
	struct cds_list_head objnode;	/* obj->subs (empty: none) */
	struct cds_list_head pnode;	/* OMIT_DATA: ch->events while queued */
	struct mlx5be_event_channel *ch;
	uint32_t key, obj_id;
	uint64_t cookie;
	int efd;			/* _fd: our descriptor of it, else -1 */
	bool pending;
};

struct kern_ev_data {
	struct cds_list_head node;	/* ch->events */
	struct mlx5be_event ev;
};

struct mlx5be_event_channel {
	struct kern_dev *kdev;
	struct kern_uctx *uctx;		/* NULL once the ucontext is gone */
	struct cds_list_head node;	/* uctx->evchs */
	int efd;
	bool omit_data;
	pthread_mutex_t lock;		/* guards what follows */
	bool destroyed, overflow;
	struct cds_list_head events;
	unsigned int nevents;
	struct cds_list_head subs;	/* under the table lock */
};

/* Guards ch->uctx, ch->node and uctx->evchs. */
static pthread_mutex_t kern_evch_lock = PTHREAD_MUTEX_INITIALIZER;

void kern_event_table_init(struct kern_ev_table *t)
{
	pthread_mutex_init(&t->lock, NULL);
	for (int i = 0; i < KERN_EV_BUCKETS; i++)
		CDS_INIT_LIST_HEAD(&t->bucket[i]);
	CDS_INIT_LIST_HEAD(&t->unaffiliated);
}

static struct cds_list_head *kern_ev_bucket(struct kern_ev_table *t,
					    uint32_t key, uint32_t obj_id)
{
	return &t->bucket[(key * 31u + obj_id) % KERN_EV_BUCKETS];
}

/* ---- readiness ---- */

void kern_efd_signal(int efd)
{
	uint64_t one = 1;

	if (write(efd, &one, sizeof(one)) != sizeof(one))
		return;		/* the count is already at its limit */
}

void kern_efd_unsignal(int efd)
{
	uint64_t v;

	if (read(efd, &v, sizeof(v)) != sizeof(v))
		return;		/* was zero (O_NONBLOCK read end) */
}

/* A forked child's own eventfd under @efd's number, with its O_NONBLOCK,
 * signalled as @signalled: the child never reads or writes the parent's. */
void kern_efd_renew(int efd, bool signalled)
{
	int fl = fcntl(efd, F_GETFL);
	int fd = eventfd(signalled ? 1 : 0, EFD_CLOEXEC |
			 (fl >= 0 && (fl & O_NONBLOCK) ? EFD_NONBLOCK : 0));

	if (fd < 0)
		return;
	dup3(fd, efd, O_CLOEXEC);
	close(fd);
}

/* ---- channels ---- */

struct mlx5be_event_channel *kern_event_channel_create(struct mlx5be_ctx *ctx,
							uint32_t flags)
{
	struct mlx5be_event_channel *ch;

	/* uverbs_get_flags32(): only OMIT_DATA is known. */
	if (flags & ~(uint32_t)MLX5BE_EVENT_CHANNEL_OMIT_DATA) {
		errno = EINVAL;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	/* The count only says readable or not; reads of it never block. */
	ch->efd = eventfd(0, EFD_CLOEXEC);
	if (ch->efd < 0) {
		free(ch);
		return NULL;
	}
	ch->omit_data = flags & MLX5BE_EVENT_CHANNEL_OMIT_DATA;
	pthread_mutex_init(&ch->lock, NULL);
	CDS_INIT_LIST_HEAD(&ch->events);
	CDS_INIT_LIST_HEAD(&ch->subs);
	ch->kdev = ctx->uctx->kdev;
	pthread_mutex_lock(&kern_evch_lock);
	ch->uctx = ctx->uctx;
	cds_list_add_tail(&ch->node, &ctx->uctx->evchs);
	pthread_mutex_unlock(&kern_evch_lock);
	return ch;
}

int kern_event_channel_fd(struct mlx5be_event_channel *ch)
{
	return ch->efd;
}

/* The queue goes (channel lock held). */
static void kern_ev_drop_queue(struct mlx5be_event_channel *ch)
{
	struct kern_ev_data *d, *dtmp;
	struct kern_ev_sub *s, *stmp;

	if (ch->omit_data) {
		cds_list_for_each_entry_safe(s, stmp, &ch->events, pnode) {
			cds_list_del_init(&s->pnode);
			s->pending = false;
		}
	} else {
		cds_list_for_each_entry_safe(d, dtmp, &ch->events, node) {
			cds_list_del(&d->node);
			free(d);
		}
	}
	ch->nevents = 0;
}

/* Its subscriptions leave the table and their objects (table lock). */
static void kern_ev_unsubscribe_all(struct mlx5be_event_channel *ch)
{
	struct kern_ev_sub *s;

	cds_list_for_each_entry(s, &ch->subs, chnode) {
		cds_list_del_init(&s->tnode);
		cds_list_del_init(&s->objnode);
	}
}

/* devx_async_event_destroy_uobj: no more events, the queue dropped. */
static void kern_ev_channel_kill(struct mlx5be_event_channel *ch)
{
	pthread_mutex_lock(&ch->kdev->ev.lock);
	kern_ev_unsubscribe_all(ch);
	pthread_mutex_unlock(&ch->kdev->ev.lock);
	pthread_mutex_lock(&ch->lock);
	if (!ch->destroyed) {
		ch->destroyed = true;
		kern_ev_drop_queue(ch);
		kern_efd_signal(ch->efd);	/* readable from now on */
	}
	pthread_mutex_unlock(&ch->lock);
}

void kern_event_channel_destroy(struct mlx5be_event_channel *ch)
{
	struct kern_ev_sub *s, *tmp;

	pthread_mutex_lock(&kern_evch_lock);
	if (ch->uctx)
		cds_list_del(&ch->node);
	ch->uctx = NULL;
	pthread_mutex_unlock(&kern_evch_lock);
	kern_ev_channel_kill(ch);
	cds_list_for_each_entry_safe(s, tmp, &ch->subs, chnode) {
		if (s->efd >= 0)
			close(s->efd);
		free(s);
	}
	close(ch->efd);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
}

void kern_event_detach_all(struct kern_uctx *uctx)
{
	struct mlx5be_event_channel *ch, *tmp;

	pthread_mutex_lock(&kern_evch_lock);
	cds_list_for_each_entry_safe(ch, tmp, &uctx->evchs, node) {
		cds_list_del(&ch->node);
		ch->uctx = NULL;
		kern_ev_channel_kill(ch);
	}
	pthread_mutex_unlock(&kern_evch_lock);
}

/* ---- subscribing ---- */

/* is_legacy_obj_event_num / is_legacy_unaffiliated_event_num */
static bool kern_ev_legacy_obj_event(uint16_t type)
{
	switch (type) {
	case MLX5_EVENT_TYPE_PATH_MIG:
	case MLX5_EVENT_TYPE_COMM_EST:
	case MLX5_EVENT_TYPE_SQ_DRAINED:
	case MLX5_EVENT_TYPE_SRQ_LAST_WQE:
	case MLX5_EVENT_TYPE_SRQ_RQ_LIMIT:
	case MLX5_EVENT_TYPE_CQ_ERROR:
	case MLX5_EVENT_TYPE_WQ_CATAS_ERROR:
	case MLX5_EVENT_TYPE_PATH_MIG_FAILED:
	case MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR:
	case MLX5_EVENT_TYPE_WQ_ACCESS_ERROR:
	case MLX5_EVENT_TYPE_SRQ_CATAS_ERROR:
	case MLX5_EVENT_TYPE_DCT_DRAINED:
	case MLX5_EVENT_TYPE_COMP:
	case MLX5_EVENT_TYPE_DCT_KEY_VIOLATION:
	case MLX5_EVENT_TYPE_XRQ_ERROR:
		return true;
	default:
		return false;
	}
}

static bool kern_ev_unaffiliated(uint16_t type)
{
	return type == MLX5_EVENT_TYPE_PORT_CHANGE;
}

/* get_legacy_obj_type: the object type legacy events of an object made
 * by @opcode carry. */
static uint32_t kern_ev_obj_type(uint64_t enc_id)
{
	switch ((enc_id >> 32) & 0xffff) {
	case MLX5_CMD_OP_CREATE_RQ:
		return KERN_EVQ_RQ;
	case MLX5_CMD_OP_CREATE_SQ:
		return KERN_EVQ_SQ;
	case MLX5_CMD_OP_CREATE_DCT:
		return KERN_EVQ_DCT;
	default:
		return KERN_EVQ_QP;
	}
}

/* eventfd_ctx_fdget(): a descriptor of an eventfd, kept. */
static int kern_ev_take_eventfd(int fd, int *out)
{
	char link[64], path[32];
	ssize_t n;

	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return -EBADF;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -EBADF;
	link[n] = '\0';
	if (strcmp(link, "anon_inode:[eventfd]"))
		return -EINVAL;
	*out = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return *out < 0 ? -errno : 0;
}

static int kern_ev_subscribe(struct mlx5be_event_channel *ch,
			     struct mlx5be_obj *obj, const uint16_t *types,
			     size_t ntypes, uint64_t cookie, int efd)
{
	struct kern_ev_table *t = &ch->kdev->ev;
	struct kern_ev_sub *s[KERN_EV_MAX_TYPES];
	size_t i;

	pthread_mutex_lock(&kern_evch_lock);
	if (!ch->uctx || (obj && obj->uctx != ch->uctx)) {
		pthread_mutex_unlock(&kern_evch_lock);
		return obj && ch->uctx ? -ENOENT : -EBADF;
	}
	pthread_mutex_unlock(&kern_evch_lock);
	if (!ntypes || ntypes > KERN_EV_MAX_TYPES)
		return -EINVAL;
	for (i = 0; i < ntypes; i++)
		if (obj ? !kern_ev_legacy_obj_event(types[i]) :
			  !kern_ev_unaffiliated(types[i]))
			return -EINVAL;
	for (i = 0; i < ntypes; i++) {
		int ret = -ENOMEM;

		s[i] = calloc(1, sizeof(*s[i]));
		if (s[i]) {
			s[i]->efd = -1;
			ret = efd < 0 ? 0 : kern_ev_take_eventfd(efd, &s[i]->efd);
		}
		if (ret) {
			free(s[i]);
			while (i--) {
				if (s[i]->efd >= 0)
					close(s[i]->efd);
				free(s[i]);
			}
			return ret;
		}
		s[i]->ch = ch;
		s[i]->cookie = cookie;
		s[i]->key = types[i] |
			    (obj ? kern_ev_obj_type(obj->enc_id) << 16 : 0);
		s[i]->obj_id = obj ? (uint32_t)obj->enc_id : 0;
		CDS_INIT_LIST_HEAD(&s[i]->objnode);
		CDS_INIT_LIST_HEAD(&s[i]->pnode);
	}
	pthread_mutex_lock(&t->lock);
	for (i = 0; i < ntypes; i++) {
		cds_list_add_tail(&s[i]->chnode, &ch->subs);
		if (obj) {
			cds_list_add_tail(&s[i]->tnode,
					  kern_ev_bucket(t, s[i]->key, s[i]->obj_id));
			cds_list_add_tail(&s[i]->objnode, &obj->subs);
		} else {
			cds_list_add_tail(&s[i]->tnode, &t->unaffiliated);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return 0;
}

int kern_event_subscribe(struct mlx5be_event_channel *ch, struct mlx5be_obj *obj,
			 const uint16_t *types, size_t ntypes, uint64_t cookie)
{
	return kern_ev_subscribe(ch, obj, types, ntypes, cookie, -1);
}

int kern_event_subscribe_fd(struct mlx5be_event_channel *ch,
			    struct mlx5be_obj *obj, uint16_t type, int fd)
{
	if (fd < 0)
		return -EBADF;
	return kern_ev_subscribe(ch, obj, &type, 1, 0, fd);
}

void kern_event_obj_gone(struct mlx5be_obj *obj)
{
	struct kern_ev_table *t = &obj->uctx->kdev->ev;
	struct kern_ev_sub *s, *tmp;

	pthread_mutex_lock(&t->lock);
	cds_list_for_each_entry_safe(s, tmp, &obj->subs, objnode) {
		cds_list_del_init(&s->tnode);
		cds_list_del_init(&s->objnode);
	}
	pthread_mutex_unlock(&t->lock);
}

/* ---- delivering ---- */

static void kern_ev_deliver(struct kern_ev_sub *s, const uint8_t eqe[64])
{
	struct mlx5be_event_channel *ch = s->ch;
	struct kern_ev_data *d = NULL;

	if (s->efd >= 0) {
		kern_efd_signal(s->efd);
		return;
	}
	pthread_mutex_lock(&ch->lock);
	if (ch->destroyed)
		goto out;
	if (ch->omit_data) {
		if (s->pending)
			goto out;		/* coalesced */
		s->pending = true;
		cds_list_add_tail(&s->pnode, &ch->events);
	} else {
		if (ch->nevents < KERN_EV_QUEUE_MAX)
			d = malloc(sizeof(*d));
		if (!d) {
			ch->overflow = true;	/* this one is lost */
			goto out;
		}
		d->ev.cookie = s->cookie;
		memcpy(d->ev.eqe, eqe, sizeof(d->ev.eqe));
		cds_list_add_tail(&d->node, &ch->events);
	}
	if (!ch->nevents++)
		kern_efd_signal(ch->efd);
out:
	pthread_mutex_unlock(&ch->lock);
}

/* get_event_obj_type / devx_get_obj_id_from_event, for the legacy
 * events this device raises. */
static bool kern_ev_target(const uint8_t eqe[64], uint32_t *obj_type,
			   uint32_t *obj_id)
{
	const void *data = PRM_ADDR_OF(eqe, eqe, event_data);

	switch (PRM_GET(eqe, eqe, event_type)) {
	case MLX5_EVENT_TYPE_COMP:
		*obj_type = 0;
		*obj_id = PRM_GET(comp_event, data, cq_number);
		return true;
	case MLX5_EVENT_TYPE_CQ_ERROR:
		*obj_type = 0;
		*obj_id = PRM_GET(cq_error, data, cqn);
		return true;
	case MLX5_EVENT_TYPE_DCT_DRAINED:
	case MLX5_EVENT_TYPE_DCT_KEY_VIOLATION:
		*obj_type = KERN_EVQ_DCT;
		*obj_id = PRM_GET(dct_events, data, dct_number);
		return true;
	default:
		if (!kern_ev_legacy_obj_event(PRM_GET(eqe, eqe, event_type)))
			return false;
		*obj_type = PRM_GET(qp_events, data, type);
		*obj_id = PRM_GET(qp_events, data, qpn_rqn_sqn);
		return true;
	}
}

void kern_event_dispatch(struct kern_dev *kdev, const uint8_t eqe[64])
{
	uint32_t type = PRM_GET(eqe, eqe, event_type);
	struct kern_ev_table *t = &kdev->ev;
	uint32_t obj_type, obj_id, key;
	struct kern_ev_sub *s;

	if (type == MLX5_EVENT_TYPE_PORT_CHANGE) {
		const void *data = PRM_ADDR_OF(eqe, eqe, event_data);
		uint32_t sub = PRM_GET(eqe, eqe, event_sub_type);

		/* What mlx5_ib tells verbs users of a RoCE port's state. */
		if (sub == MLX5_PORT_CHANGE_SUBTYPE_ACTIVE ||
		    sub == MLX5_PORT_CHANGE_SUBTYPE_DOWN)
			kern_ibev_post_dev(kdev,
					   sub == MLX5_PORT_CHANGE_SUBTYPE_ACTIVE ?
					   IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR,
					   PRM_GET(port_state_change_event, data,
						   port_num));
	}
	pthread_mutex_lock(&t->lock);
	if (kern_ev_unaffiliated((uint16_t)type)) {
		cds_list_for_each_entry(s, &t->unaffiliated, tnode)
			if (s->key == type)
				kern_ev_deliver(s, eqe);
	} else if (kern_ev_target(eqe, &obj_type, &obj_id)) {
		key = type | obj_type << 16;
		cds_list_for_each_entry(s, kern_ev_bucket(t, key, obj_id), tnode)
			if (s->key == key && s->obj_id == obj_id)
				kern_ev_deliver(s, eqe);
	}
	pthread_mutex_unlock(&t->lock);
}

/* ---- reading ---- */

ssize_t kern_event_read(struct mlx5be_event_channel *ch,
			struct mlx5be_event *ev, size_t len)
{
	size_t size = ch->omit_data ? sizeof(ev->cookie) : sizeof(*ev);
	struct kern_ev_data *d = NULL;
	struct kern_ev_sub *s = NULL;

	pthread_mutex_lock(&ch->lock);
	if (ch->overflow) {
		ch->overflow = false;
		pthread_mutex_unlock(&ch->lock);
		return -EOVERFLOW;
	}
	while (cds_list_empty(&ch->events)) {
		struct pollfd pfd = { .fd = ch->efd, .events = POLLIN };
		int fl;

		pthread_mutex_unlock(&ch->lock);
		fl = fcntl(ch->efd, F_GETFL);
		if (fl < 0)
			return -errno;
		if (fl & O_NONBLOCK)
			return -EAGAIN;
		if (poll(&pfd, 1, -1) < 0)
			return -errno;
		pthread_mutex_lock(&ch->lock);
		if (ch->destroyed) {
			pthread_mutex_unlock(&ch->lock);
			return -EIO;
		}
	}
	if (size > len) {
		pthread_mutex_unlock(&ch->lock);
		return -EINVAL;
	}
	if (ch->omit_data) {
		s = cds_list_first_entry(&ch->events, struct kern_ev_sub, pnode);
		cds_list_del_init(&s->pnode);
		s->pending = false;
		ev->cookie = s->cookie;
	} else {
		d = cds_list_first_entry(&ch->events, struct kern_ev_data, node);
		cds_list_del(&d->node);
		*ev = d->ev;
	}
	if (!--ch->nevents)
		kern_efd_unsignal(ch->efd);
	pthread_mutex_unlock(&ch->lock);
	free(d);
	return (ssize_t)size;
}

void kern_event_fork_child(struct cds_list_head *uctxs)
{
	struct mlx5be_event_channel *ch;
	struct kern_uctx *uctx;

	/* Another thread of the parent may have held them. */
	pthread_mutex_init(&kern_evch_lock, NULL);
	cds_list_for_each_entry(uctx, uctxs, node) {
		pthread_mutex_init(&uctx->kdev->ev.lock, NULL);
		cds_list_for_each_entry(ch, &uctx->evchs, node) {
			pthread_mutex_init(&ch->lock, NULL);
			kern_efd_renew(ch->efd, ch->nevents || ch->destroyed);
		}
		pthread_mutex_init(&uctx->ibev.lock, NULL);
		kern_efd_renew(uctx->ibev.efd, uctx->ibev.n > 0);
	}
}
