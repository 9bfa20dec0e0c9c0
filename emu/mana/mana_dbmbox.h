/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana_dbmbox.h -- the doorbell mailbox of one MANA context.
 *
 * All send queues of a context ring one 8-byte slot of its doorbell page,
 * all receive queues another, all completion queues a third; the queue id
 * travels in the value.  The mailbox turns that stream of stores back into
 * per-queue state the device can pick up when it gets to it: for each
 * queue the latest absolute tail and, for a completion queue, whether an
 * arm was requested.  It coalesces (two doorbells of one queue before the
 * device looks count as the latest one, which is all a doorbell with an
 * absolute tail means) but never loses a queue: a queue rung after the
 * device last looked is always visited again.
 *
 * Producer side (mana_dbmbox_ring, mana_dbmbox_store): any number of
 * threads, lock-free, no allocation, async-signal-safe, so it can run in
 * the store trap's fault handler (emu/mem/storetrap.h) on the ringing
 * thread.  Consumer side (mana_dbmbox_take, mana_dbmbox_sample): one
 * thread at a time.
 *
 * Only the 64-bit doorbells are taken.  The 32-bit forms carry a tail
 * increment and exist only in 32-bit DPDK builds; they are counted and
 * dropped, as are EQ doorbells (a kernel's, never an application's) and
 * stores that are no doorbell.
 */
#ifndef MLX5EMU_EMU_MANA_MANA_DBMBOX_H
#define MLX5EMU_EMU_MANA_MANA_DBMBOX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mana_dbmbox_kind { MANA_DBMBOX_SQ, MANA_DBMBOX_RQ, MANA_DBMBOX_CQ,
			MANA_DBMBOX_KINDS };

/* Called by the producer after a queue became pending; async-signal-safe
 * (an eventfd write, say).  Not called again for a queue that is already
 * pending: the consumer will see it anyway. */
typedef void (*mana_dbmbox_kick_fn)(void *arg);

/* Visited once per pending queue by mana_dbmbox_take.  tail as the
 * doorbell carried it (bytes for SQ/RQ, entries for a CQ); arm only for a
 * CQ, true when an arm was requested since the last take of that CQ. */
typedef void (*mana_dbmbox_take_fn)(void *arg, enum mana_dbmbox_kind kind,
				    uint32_t qid, uint32_t tail, bool arm);

struct mana_dbmbox_counters {
	unsigned long rung;		/* doorbells stored in the mailbox */
	unsigned long dropped_bad_qid;	/* qid >= nq */
	unsigned long dropped_short;	/* 32-bit forms */
	unsigned long dropped_other;	/* EQ, or no doorbell at that offset */
	unsigned long taken;		/* queues handed to a take callback */
};

struct mana_dbmbox {
	uint32_t nq;			/* queues per kind */
	uint32_t nwords;		/* pending bitmap words per kind */
	/* per kind: the latest tail of each queue; for a CQ bit 63 is a
	 * requested arm (kept until taken) */
	_Atomic uint64_t *state[MANA_DBMBOX_KINDS];
	_Atomic uint64_t *pending[MANA_DBMBOX_KINDS];
	mana_dbmbox_kick_fn kick;
	void *kick_arg;
	atomic_ulong rung, dropped_bad_qid, dropped_short, dropped_other, taken;
	uint64_t last_sample[MANA_DBMBOX_KINDS];	/* consumer's own */
};

/* nq queues per kind (1 .. 1 << 24); kick may be NULL.  0 or -EINVAL,
 * -ENOMEM.  The only allocation the mailbox makes. */
int mana_dbmbox_init(struct mana_dbmbox *m, uint32_t nq,
		     mana_dbmbox_kick_fn kick, void *kick_arg);
void mana_dbmbox_fini(struct mana_dbmbox *m);

/*
 * A store of width bytes (8, or 4 for a short form) at byte offset off of
 * the doorbell page.  0 when the doorbell is in the mailbox, -EINVAL for
 * no doorbell or an EQ's, -ERANGE for a queue id >= nq, -EOPNOTSUPP for a
 * short form; each drop is counted.
 */
int mana_dbmbox_ring(struct mana_dbmbox *m, uint32_t off, unsigned int width,
		     uint64_t value);

/* The same with the store trap's callback signature (arg is the
 * mailbox), so a trap can deliver straight into it. */
void mana_dbmbox_store(void *mbox, size_t off, uint64_t value,
		       unsigned int size);

/*
 * Visit every pending queue once, SQs, then RQs, then CQs, each kind in
 * queue order; a queue rung again while this runs may be visited now with
 * the newer tail, and is then visited again by the next take.  Returns the
 * number visited.
 */
unsigned int mana_dbmbox_take(struct mana_dbmbox *m, mana_dbmbox_take_fn cb,
			      void *arg);

/*
 * For a doorbell page the process cannot trap (mapped by another process,
 * a DPDK secondary): read the three slots and ring what changed since the
 * last sample.  This loses doorbells: of several queues rung between two
 * samples only the last is seen, and a repeat of the same value (a CQ
 * re-armed at the same tail) is not seen at all.  Consumer thread only.
 * Returns the number of slots that changed.
 */
unsigned int mana_dbmbox_sample(struct mana_dbmbox *m,
				const volatile void *page);

void mana_dbmbox_counters(const struct mana_dbmbox *m,
			  struct mana_dbmbox_counters *c);

#endif /* MLX5EMU_EMU_MANA_MANA_DBMBOX_H */
