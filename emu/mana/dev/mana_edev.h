/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/dev/mana_edev.h -- the engine of an emulated MANA device: what
 * runs its queues.
 *
 * Doorbells: each context's doorbell page is handed to the application
 * mapped read-only; every store to it traps (emu/mem/storetrap.h) into the
 * context's mailbox (emu/mana/mana_dbmbox.h), which keeps the latest tail
 * of every queue and kicks the engine through an eventfd.  No doorbell is
 * lost however many queues ring between two looks.  A mapping made by
 * another process from cmd_fd (a DPDK secondary) cannot be trapped: the
 * engine samples the page, which only such mappings write, and may lose
 * some of their doorbells (docs/mana.md).
 *
 * The engine: one thread per device, asleep in epoll_wait on the kick
 * and the ports' wire descriptors.  Awake, it takes the mailboxes, runs
 * every rung send queue (emu/mana's queue engines) onto the port's wire,
 * and delivers the frames the ports received to the vPort's receive queues
 * (MAC filter, RSS over the indirection table, the default queue).  Queue
 * state is built from the firmware's WQ objects the first time a doorbell
 * names a queue.  All of it runs under the engine's lock, which the
 * emulated kernel takes too when it destroys a queue (mana_edev_forget),
 * so no ring is touched after its object is gone.
 */
#ifndef MLX5EMU_EMU_MANA_DEV_MANA_EDEV_H
#define MLX5EMU_EMU_MANA_DEV_MANA_EDEV_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/device/dev_identity.h"
#include "emu/mana/fw/mana_fw.h"

struct mana_edev;
struct mana_edev_ctx;

/* The engine of mana_<index> (@id its identity, @fw its firmware): its
 * wire ports and its thread.  0 or a negative errno. */
int mana_edev_create(const struct emu_dev_identity *id, struct mana_fw *fw,
		     struct mana_edev **out);

/*
 * A context's doorbell page: @memfd's first page, which the engine maps
 * read-only and traps; *page is that mapping, what libmana hands the
 * application.  0 or a negative errno.
 */
int mana_edev_ctx_create(struct mana_edev *e, int memfd, void **page,
			 struct mana_edev_ctx **out);
/* After this, a store to the page is the application's fault. */
void mana_edev_ctx_destroy(struct mana_edev_ctx *c);

/* Around a queue's destruction by the kernel: the engine lets go of the
 * SQ or RQ @wq_id and CQ @cq_id; and of a vPort's RX steering change. */
void mana_edev_lock(struct mana_edev *e);
void mana_edev_unlock(struct mana_edev *e);
void mana_edev_forget(struct mana_edev *e, uint32_t type, uint32_t wq_id,
		      uint32_t cq_id);
void mana_edev_rx_changed(struct mana_edev *e, int vport);
/*
 * CQ @cq_id's completion events: one 8-byte @cookie written to @fd (a
 * non-blocking pipe's write end; -1: none) for each CQE on an armed CQ,
 * until mana_edev_forget lets the CQ go.  Takes the engine's lock.
 */
void mana_edev_cq_notify(struct mana_edev *e, uint32_t cq_id, int fd,
			 uint64_t cookie);

/*
 * A vPort's carrier (@vport 0-based): while down its wire port neither
 * sends nor receives (send queues still complete their WQEs, as a NIC
 * without carrier does).  A fatal error stops the device for good: no
 * doorbell, WQE or frame is taken any more, no CQE written.
 */
void mana_edev_port_link(struct mana_edev *e, int vport, bool up);
void mana_edev_fatal(struct mana_edev *e);

struct mana_edev_stats {
	uint64_t doorbells, tx_frames, rx_frames, rx_delivered;
	uint64_t rx_filtered;		/* not for the vPort's MAC */
	uint64_t rx_no_queue;		/* RX not configured, or no queue */
	uint64_t rx_no_wqe;		/* the queue had no WQE posted */
	uint64_t events_lost;		/* a completion channel was full */
	uint64_t dead_doorbells;	/* rung after a fatal error */
};
void mana_edev_stats(struct mana_edev *e, struct mana_edev_stats *s);

#endif /* MLX5EMU_EMU_MANA_DEV_MANA_EDEV_H */
