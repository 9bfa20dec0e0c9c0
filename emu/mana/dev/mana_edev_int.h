/* SPDX-License-Identifier: MIT */
/* What the MANA engine's files share. */
#ifndef MLX5EMU_EMU_MANA_DEV_MANA_EDEV_INT_H
#define MLX5EMU_EMU_MANA_DEV_MANA_EDEV_INT_H

#include <pthread.h>

#include "emu/device/dev_config.h"
#include "emu/mana/dev/mana_edev.h"
#include "emu/mana/mana.h"
#include "emu/mana/mana_dbmbox.h"
#include "emu/mana/mana_queue.h"
#include "emu/wire/wire.h"

struct mana_edev_ctx {
	struct mana_edev *e;
	struct mana_dbmbox mbox;
	void *page;			/* read-only, trapped: the application's */
	void *view;			/* the same page, read-only: the device's */
	struct emu_storetrap *trap;
	struct mana_edev_ctx *next;
};

struct mana_edev_port {
	struct mana_edev *e;
	int index;			/* vPort, 0-based */
	struct emu_wire_port *wp;
	uint8_t mac[6];
	uint32_t mtu;
	bool link_up;			/* the carrier (atomic): the wire reads it */
	/* RX steering, from the firmware when rx_dirty */
	bool rx_dirty;
	bool rx_enable;
	struct mana_rss rss;
};

/* Where a CQ's completion events go: a channel's write end and the
 * provider's name for the CQ (fd -1: none). */
struct mana_edev_notify {
	int fd;
	uint64_t cookie;
};

struct mana_edev {
	pthread_mutex_t lock;		/* everything below */
	pthread_t thread;
	int efd, epfd;			/* the kick; what the thread waits on */
	struct mana_fw *fw;
	const struct emu_dev_identity *id;
	int nports;
	struct mana_edev_port ports[EMU_MAX_PORTS];
	struct mana_edev_ctx *ctxs;
	/* queues by id, made when a doorbell names them */
	struct mana_sq *sq[MANA_FW_MAX_QUEUES];
	struct mana_rq *rq[MANA_FW_MAX_QUEUES];
	struct mana_cqs *cq[MANA_FW_MAX_QUEUES];
	struct mana_edev_notify notify[MANA_FW_MAX_QUEUES];
	/* receive queues with a coalesced CQE open in this pass */
	bool rq_pend[MANA_FW_MAX_QUEUES];
	uint32_t pend_ids[MANA_FW_MAX_QUEUES], npend;
	bool sq_rung[MANA_FW_MAX_QUEUES];
	int sq_port[MANA_FW_MAX_QUEUES];
	bool more;			/* work left for another turn */
	bool fatal;			/* stopped for good: nothing runs */
	bool sampling;			/* a page had untrapped stores */
	struct {
		struct mana_edev_stats pub;
		uint64_t cq_events;
	} st;
};

/* mana_edev.c */
/* The firmware's MR check, as struct mana_mkeys wants it (arg: the engine;
 * lock-free, one slot read per SGE). */
int edev_mr_check(void *arg, uint32_t lkey, uint64_t addr, uint64_t len,
		  bool write);
struct mana_cqs *edev_cq(struct mana_edev *e, uint32_t id);
struct mana_rq *edev_rq(struct mana_edev *e, uint32_t id);
/*
 * The doorbells rung since this turn took them: a receive queue that has
 * no WQE for a frame may have been rung after the turn began but before
 * the frame came, and a device would have seen that doorbell first.  The
 * number taken.
 */
unsigned int edev_take_doorbells(struct mana_edev *e);

/* mana_edev_fault.c: the data-path hooks a queue gets for a burst (none
 * without a data-path rule or the trace's records); whether a fault rule
 * drops a doorbell the mailbox kept. */
void edev_dp_sq(struct mana_edev *e, struct mana_sq *sq);
void edev_dp_rq(struct mana_edev *e, struct mana_rq *rq);
bool edev_fault_doorbell(struct mana_edev *e, enum mana_dbmbox_kind kind,
			 uint32_t qid, bool arm);

/* mana_edev_rx.c */
int edev_ports_create(struct mana_edev *e);
void edev_run_rx(struct mana_edev *e);

#endif /* MLX5EMU_EMU_MANA_DEV_MANA_EDEV_INT_H */
