/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/dev/mana_edev.c -- the MANA engine's lifetime, its thread, the
 * contexts' trapped doorbell pages, and the queues doorbells name (see
 * mana_edev.h).  The receive side is mana_edev_rx.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu/mana/dev/mana_edev_int.h"
#include "emu/mem/storetrap.h"

enum {
	EDEV_PAGE = 4096,
	EDEV_SQ_BUDGET = 256,
	EDEV_DETECT_MS = 50,		/* looking for untrapped doorbells */
	EDEV_SAMPLE_MS = 1,		/* sampling once they were seen */
};

int edev_mr_check(void *arg, uint32_t lkey, uint64_t addr, uint64_t len,
		  bool write)
{
	struct mana_edev *e = arg;

	return mana_fw_mr_check(e->fw, lkey, addr, len, write);
}

/* A CQE on an armed CQ: the completion event, through the channel the
 * CQ was created with (the kernel's comp_handler); a CQ without one only
 * counts it.  A full channel loses the event, as an overrun event queue
 * would; one event per arm keeps that far off. */
static void edev_cq_event(void *arg, struct mana_cqs *cq)
{
	struct mana_edev *e = arg;
	const struct mana_edev_notify *n = &e->notify[cq->id];

	e->st.cq_events++;
	if (n->fd >= 0 &&
	    write(n->fd, &n->cookie, sizeof(n->cookie)) != sizeof(n->cookie))
		e->st.pub.events_lost++;
}

struct mana_cqs *edev_cq(struct mana_edev *e, uint32_t id)
{
	struct mana_fw_wq w;

	if (id >= MANA_FW_MAX_QUEUES)
		return NULL;
	if (e->cq[id])
		return e->cq[id];
	if (mana_fw_wq_by_cq(e->fw, id, &w))
		return NULL;
	e->cq[id] = calloc(1, sizeof(*e->cq[id]));
	if (e->cq[id])
		mana_cqs_init(e->cq[id], (void *)(uintptr_t)w.cq_addr,
			      w.cq_size / MANA_CQE_SIZE, id, edev_cq_event, e);
	return e->cq[id];
}

static struct mana_sq *edev_sq(struct mana_edev *e, uint32_t id)
{
	struct mana_fw_vport v;
	struct mana_fw_wq w;
	struct mana_cqs *cq;
	struct mana_sq *sq;

	if (id >= MANA_FW_MAX_QUEUES)
		return NULL;
	if (e->sq[id])
		return e->sq[id];
	if (mana_fw_wq_by_id(e->fw, MANA_FW_GDMA_SQ, id, &w) ||
	    mana_fw_vport_get(e->fw, w.vport, &v))
		return NULL;
	cq = edev_cq(e, w.cq_id);
	sq = calloc(1, sizeof(*sq));
	if (!cq || !sq || mana_sq_init(sq, (void *)(uintptr_t)w.wq_addr,
				       w.wq_size, id, v.tx_vport_offset,
				       e->ports[w.vport].mtu, cq)) {
		free(sq);
		return NULL;
	}
	e->sq[id] = sq;
	e->sq_port[id] = w.vport;
	return sq;
}

struct mana_rq *edev_rq(struct mana_edev *e, uint32_t id)
{
	struct mana_fw_vport v;
	struct mana_fw_wq w;
	struct mana_cqs *cq;
	struct mana_rq *rq;

	if (id >= MANA_FW_MAX_QUEUES)
		return NULL;
	if (e->rq[id])
		return e->rq[id];
	if (mana_fw_wq_by_id(e->fw, MANA_FW_GDMA_RQ, id, &w) ||
	    mana_fw_vport_get(e->fw, w.vport, &v))
		return NULL;
	cq = edev_cq(e, w.cq_id);
	rq = calloc(1, sizeof(*rq));
	if (!cq || !rq || mana_rq_init(rq, (void *)(uintptr_t)w.wq_addr,
				       w.wq_size, id, cq)) {
		free(rq);
		return NULL;
	}
	rq->coalesce = v.cqe_coalescing;
	e->rq[id] = rq;
	return rq;
}

/* A doorbell the mailbox kept: the queue's new tail, or a CQ's arm. */
static void edev_doorbell(void *arg, enum mana_dbmbox_kind kind, uint32_t qid,
			  uint32_t tail, bool arm)
{
	struct mana_edev *e = arg;
	struct mana_sq *sq;
	struct mana_rq *rq;
	struct mana_cqs *cq;

	e->st.pub.doorbells++;
	if (edev_fault_doorbell(e, kind, qid, arm))
		return;
	switch (kind) {
	case MANA_DBMBOX_SQ:
		sq = edev_sq(e, qid);
		if (sq) {
			mana_sq_doorbell(sq, tail);
			e->sq_rung[qid] = true;
		}
		break;
	case MANA_DBMBOX_RQ:
		rq = edev_rq(e, qid);
		if (rq)
			mana_rq_doorbell(rq, tail);
		break;
	case MANA_DBMBOX_CQ:
		cq = arm ? edev_cq(e, qid) : NULL;
		if (cq)
			mana_cqs_arm(cq, tail);
		break;
	default:
		break;
	}
}

static void edev_emit(void *arg, const uint8_t *frame, uint32_t len)
{
	struct mana_edev_port *p = arg;
	uint8_t *buf = emu_wire_tx_frame(p->wp);

	if (!buf) {
		emu_wire_tx_flush(p->wp, 0);
		buf = emu_wire_tx_frame(p->wp);
	}
	if (!buf || len > EMU_WIRE_FRAME_MAX)
		return;		/* the wire counts nothing it never saw */
	memcpy(buf, frame, len);
	emu_wire_tx_queue(p->wp, buf, len, 0, false);
	p->e->st.pub.tx_frames++;
}

static void edev_run_tx(struct mana_edev *e)
{
	const struct mana_mkeys mk = { edev_mr_check, e };

	for (uint32_t id = 0; id < MANA_FW_MAX_QUEUES; id++) {
		if (!e->sq_rung[id])
			continue;
		e->sq_rung[id] = false;
		edev_dp_sq(e, e->sq[id]);
		/* bounded per pass: a queue rung again is run again */
		if (mana_sq_process(e->sq[id], EDEV_SQ_BUDGET, &mk, edev_emit,
				    &e->ports[e->sq_port[id]]) == EDEV_SQ_BUDGET)
			e->sq_rung[id] = true;
		e->more |= e->sq_rung[id];
	}
}

/* A doorbell to a device that died: taken off the mailbox, nothing more. */
static void edev_doorbell_dead(void *arg, enum mana_dbmbox_kind kind,
			       uint32_t qid, uint32_t tail, bool arm)
{
	struct mana_edev *e = arg;

	(void)kind;
	(void)qid;
	(void)tail;
	(void)arm;
	e->st.pub.dead_doorbells++;
}

/* Every context's mailbox: the doorbells rung since the last take. */
static unsigned int edev_take(struct mana_edev *e)
{
	unsigned int n = 0;

	for (struct mana_edev_ctx *c = e->ctxs; c; c = c->next)
		n += mana_dbmbox_take(&c->mbox, e->fatal ? edev_doorbell_dead :
				      edev_doorbell, e);
	return n;
}

unsigned int edev_take_doorbells(struct mana_edev *e)
{
	unsigned int n = edev_take(e);

	/* a send queue rung now runs in the next turn, at once */
	if (n)
		e->more = true;
	return n;
}

/* One turn: doorbells, sends, what the wire brought. */
static void edev_turn(struct mana_edev *e)
{
	uint64_t v;

	if (read(e->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	e->more = false;
	/* What untrapped mappings (another process's) stored: the trapped
	 * one never writes the page, so anything there is theirs. */
	for (struct mana_edev_ctx *c = e->ctxs; c; c = c->next)
		if (mana_dbmbox_sample(&c->mbox, c->view))
			e->sampling = true;
	edev_take(e);
	if (e->fatal) {
		edev_run_rx(e);		/* drained, dropped */
		return;
	}
	edev_run_tx(e);
	for (int p = 0; p < e->nports; p++)
		emu_wire_tx_flush(e->ports[p].wp, 0);
	edev_run_rx(e);
}

static void *edev_thread(void *arg)
{
	struct mana_edev *e = arg;

	for (;;) {
		struct epoll_event ev[8];
		/* Asleep until a kick or a frame, but for the look at the
		 * pages: seldom until another process's store shows up there,
		 * then at epoll's finest. */
		int timeout = e->sampling ? EDEV_SAMPLE_MS : EDEV_DETECT_MS;

		pthread_mutex_lock(&e->lock);
		edev_turn(e);
		for (int p = 0; p < e->nports; p++)
			if (!emu_wire_port_park(e->ports[p].wp))
				e->more = true;
		if (e->more)
			timeout = 0;
		pthread_mutex_unlock(&e->lock);
		(void)epoll_wait(e->epfd, ev, 8, timeout);
	}
	return NULL;
}

/* In signal context (the store trap): async-signal-safe. */
static void edev_kick(void *arg)
{
	struct mana_edev *e = arg;
	uint64_t one = 1;
	ssize_t r = write(e->efd, &one, sizeof(one));

	(void)r;
}

int mana_edev_create(const struct emu_dev_identity *id, struct mana_fw *fw,
		     struct mana_edev **out)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct mana_edev *e = calloc(1, sizeof(*e));
	int ret;

	if (!e)
		return -ENOMEM;
	pthread_mutex_init(&e->lock, NULL);
	for (int i = 0; i < MANA_FW_MAX_QUEUES; i++)
		e->notify[i].fd = -1;
	e->fw = fw;
	e->id = id;
	e->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (e->efd < 0 || e->epfd < 0) {
		ret = -errno;
		goto fail;
	}
	ev.data.fd = e->efd;
	if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->efd, &ev)) {
		ret = -errno;
		goto fail;
	}
	ret = edev_ports_create(e);
	if (ret)
		goto fail;
	ret = -pthread_create(&e->thread, NULL, edev_thread, e);
	if (ret)
		goto fail;
	*out = e;
	return 0;
fail:
	/* ports stay: they hold only descriptors of a process-long device */
	if (e->efd >= 0)
		close(e->efd);
	if (e->epfd >= 0)
		close(e->epfd);
	free(e);
	return ret;
}

int mana_edev_ctx_create(struct mana_edev *e, int memfd, void **page,
			 struct mana_edev_ctx **out)
{
	struct mana_edev_ctx *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return -ENOMEM;
	c->e = e;
	ret = mana_dbmbox_init(&c->mbox, MANA_FW_MAX_QUEUES, edev_kick, e);
	if (ret) {
		free(c);
		return ret;
	}
	c->page = mmap(NULL, EDEV_PAGE, PROT_READ, MAP_SHARED, memfd, 0);
	if (c->page == MAP_FAILED) {
		ret = -errno;
		goto fail;
	}
	/* The device's own view of the page, for sampling: the trapped
	 * mapping is the application's, whose stores never land. */
	c->view = mmap(NULL, EDEV_PAGE, PROT_READ, MAP_SHARED, memfd, 0);
	if (c->view == MAP_FAILED) {
		ret = -errno;
		munmap(c->page, EDEV_PAGE);
		goto fail;
	}
	ret = emu_storetrap_add(c->page, EDEV_PAGE, mana_dbmbox_store, &c->mbox,
				&c->trap);
	if (ret) {
		munmap(c->view, EDEV_PAGE);
		munmap(c->page, EDEV_PAGE);
		goto fail;
	}
	pthread_mutex_lock(&e->lock);
	c->next = e->ctxs;
	e->ctxs = c;
	pthread_mutex_unlock(&e->lock);
	*page = c->page;
	*out = c;
	return 0;
fail:
	mana_dbmbox_fini(&c->mbox);
	free(c);
	return ret;
}

void mana_edev_ctx_destroy(struct mana_edev_ctx *c)
{
	struct mana_edev *e;

	if (!c)
		return;
	e = c->e;
	emu_storetrap_remove(c->trap);
	pthread_mutex_lock(&e->lock);
	for (struct mana_edev_ctx **pp = &e->ctxs; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	pthread_mutex_unlock(&e->lock);
	munmap(c->view, EDEV_PAGE);
	munmap(c->page, EDEV_PAGE);
	mana_dbmbox_fini(&c->mbox);
	free(c);
}

void mana_edev_lock(struct mana_edev *e)
{
	pthread_mutex_lock(&e->lock);
}

void mana_edev_unlock(struct mana_edev *e)
{
	pthread_mutex_unlock(&e->lock);
}

void mana_edev_forget(struct mana_edev *e, uint32_t type, uint32_t wq_id,
		      uint32_t cq_id)
{
	if (wq_id < MANA_FW_MAX_QUEUES) {
		if (type == MANA_FW_GDMA_SQ && e->sq[wq_id]) {
			mana_sq_fini(e->sq[wq_id]);
			free(e->sq[wq_id]);
			e->sq[wq_id] = NULL;
			e->sq_rung[wq_id] = false;
		} else if (type == MANA_FW_GDMA_RQ) {
			free(e->rq[wq_id]);
			e->rq[wq_id] = NULL;
		}
	}
	if (cq_id < MANA_FW_MAX_QUEUES) {
		free(e->cq[cq_id]);
		e->cq[cq_id] = NULL;
		e->notify[cq_id].fd = -1;
	}
}

void mana_edev_cq_notify(struct mana_edev *e, uint32_t cq_id, int fd,
			 uint64_t cookie)
{
	if (cq_id >= MANA_FW_MAX_QUEUES)
		return;
	pthread_mutex_lock(&e->lock);
	e->notify[cq_id].fd = fd;
	e->notify[cq_id].cookie = cookie;
	pthread_mutex_unlock(&e->lock);
}

void mana_edev_rx_changed(struct mana_edev *e, int vport)
{
	if (vport >= 0 && vport < e->nports)
		e->ports[vport].rx_dirty = true;
}

void mana_edev_port_link(struct mana_edev *e, int vport, bool up)
{
	if (vport >= 0 && vport < e->nports)
		__atomic_store_n(&e->ports[vport].link_up, up, __ATOMIC_RELEASE);
}

void mana_edev_fatal(struct mana_edev *e)
{
	pthread_mutex_lock(&e->lock);
	e->fatal = true;
	pthread_mutex_unlock(&e->lock);
	edev_kick(e);
}

void mana_edev_stats(struct mana_edev *e, struct mana_edev_stats *s)
{
	pthread_mutex_lock(&e->lock);
	*s = e->st.pub;
	pthread_mutex_unlock(&e->lock);
}
