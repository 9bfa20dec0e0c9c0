/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana_dbmbox.c -- the doorbell mailbox (see mana_dbmbox.h).
 *
 * Why nothing is lost: the producer stores the tail, then sets the
 * queue's pending bit (both release); the consumer clears a bitmap word
 * (acquire) before it reads the tails of the queues whose bits were set.
 * A doorbell whose tail store the consumer may have missed sets its bit
 * after the consumer cleared it, so the next take visits the queue again.
 *
 * A CQ's arm shares the tail's word (bit 63; a CQ tail has 31 bits), so
 * the consumer takes tail and arm with one fetch-and that clears the arm:
 * an arm is never taken without the tail rung with it, and an arm rung
 * after the take stays for the next one.  The producer keeps an arm it
 * finds with a compare-exchange loop, so a later doorbell without arm does
 * not cancel it.
 */
#include <errno.h>
#include <stdlib.h>

#include "emu/mana/mana.h"
#include "emu/mana/mana_dbmbox.h"

#define DBMBOX_ARM (UINT64_C(1) << 63)

static const uint32_t dbmbox_slot[MANA_DBMBOX_KINDS] = {
	[MANA_DBMBOX_SQ] = MANA_DB_OFF_SQ,
	[MANA_DBMBOX_RQ] = MANA_DB_OFF_RQ,
	[MANA_DBMBOX_CQ] = MANA_DB_OFF_CQ,
};

int mana_dbmbox_init(struct mana_dbmbox *m, uint32_t nq,
		     mana_dbmbox_kick_fn kick, void *kick_arg)
{
	if (!m || nq == 0 || nq > (UINT32_C(1) << 24))
		return -EINVAL;
	*m = (struct mana_dbmbox){
		.nq = nq,
		.nwords = (nq + 63) / 64,
		.kick = kick,
		.kick_arg = kick_arg,
	};
	for (int k = 0; k < MANA_DBMBOX_KINDS; k++) {
		m->state[k] = calloc(nq, sizeof(*m->state[k]));
		m->pending[k] = calloc(m->nwords, sizeof(*m->pending[k]));
		if (!m->state[k] || !m->pending[k]) {
			mana_dbmbox_fini(m);
			return -ENOMEM;
		}
	}
	return 0;
}

void mana_dbmbox_fini(struct mana_dbmbox *m)
{
	for (int k = 0; k < MANA_DBMBOX_KINDS; k++) {
		free((void *)m->state[k]);
		free((void *)m->pending[k]);
		m->state[k] = NULL;
		m->pending[k] = NULL;
	}
}

static void dbmbox_count(atomic_ulong *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

int mana_dbmbox_ring(struct mana_dbmbox *m, uint32_t off, unsigned int width,
		     uint64_t value)
{
	enum mana_dbmbox_kind k;
	_Atomic uint64_t *st;
	uint64_t bit, prev;
	struct mana_db db;

	if (mana_db_decode(off, width, value, &db)) {
		dbmbox_count(&m->dropped_other);
		return -EINVAL;
	}
	if (db.incr) {
		dbmbox_count(&m->dropped_short);
		return -EOPNOTSUPP;
	}
	switch (db.queue) {
	case MANA_DB_SQ: k = MANA_DBMBOX_SQ; break;
	case MANA_DB_RQ: k = MANA_DBMBOX_RQ; break;
	case MANA_DB_CQ: k = MANA_DBMBOX_CQ; break;
	default:
		dbmbox_count(&m->dropped_other);
		return -EINVAL;
	}
	if (db.id >= m->nq) {
		dbmbox_count(&m->dropped_bad_qid);
		return -ERANGE;
	}

	st = &m->state[k][db.id];
	if (k == MANA_DBMBOX_CQ) {
		uint64_t old = atomic_load_explicit(st, memory_order_relaxed);
		uint64_t want;

		do {
			want = db.tail | (old & DBMBOX_ARM) |
			       (db.arm ? DBMBOX_ARM : 0);
		} while (!atomic_compare_exchange_weak_explicit(
				 st, &old, want, memory_order_release,
				 memory_order_relaxed));
	} else {
		atomic_store_explicit(st, db.tail, memory_order_release);
	}
	bit = UINT64_C(1) << (db.id & 63);
	prev = atomic_fetch_or_explicit(&m->pending[k][db.id >> 6], bit,
					memory_order_acq_rel);
	dbmbox_count(&m->rung);
	if (!(prev & bit) && m->kick)
		m->kick(m->kick_arg);
	return 0;
}

void mana_dbmbox_store(void *mbox, size_t off, uint64_t value,
		       unsigned int size)
{
	struct mana_dbmbox *m = mbox;

	if (off > UINT32_MAX) {
		dbmbox_count(&m->dropped_other);
		return;
	}
	mana_dbmbox_ring(m, (uint32_t)off, size, value);
}

unsigned int mana_dbmbox_take(struct mana_dbmbox *m, mana_dbmbox_take_fn cb,
			      void *arg)
{
	unsigned int n = 0;

	for (int k = 0; k < MANA_DBMBOX_KINDS; k++) {
		for (uint32_t w = 0; w < m->nwords; w++) {
			_Atomic uint64_t *pw = &m->pending[k][w];
			uint64_t bits;

			if (!atomic_load_explicit(pw, memory_order_relaxed))
				continue;
			/* cleared before any tail is read: see the top */
			bits = atomic_exchange_explicit(pw, 0, memory_order_acq_rel);
			while (bits) {
				uint32_t qid = w * 64 + (uint32_t)__builtin_ctzll(bits);
				_Atomic uint64_t *st = &m->state[k][qid];
				uint64_t v;

				bits &= bits - 1;
				if (k == MANA_DBMBOX_CQ)
					v = atomic_fetch_and_explicit(st, ~DBMBOX_ARM,
								      memory_order_acquire);
				else
					v = atomic_load_explicit(st, memory_order_acquire);
				cb(arg, (enum mana_dbmbox_kind)k, qid, (uint32_t)v,
				   (v & DBMBOX_ARM) != 0);
				n++;
			}
		}
	}
	if (n)
		atomic_fetch_add_explicit(&m->taken, n, memory_order_relaxed);
	return n;
}

unsigned int mana_dbmbox_sample(struct mana_dbmbox *m,
				const volatile void *page)
{
	const volatile uint64_t *slots = page;
	unsigned int n = 0;

	for (int k = 0; k < MANA_DBMBOX_KINDS; k++) {
		uint64_t v = slots[dbmbox_slot[k] / 8];

		if (v == m->last_sample[k])
			continue;
		m->last_sample[k] = v;
		mana_dbmbox_ring(m, dbmbox_slot[k], 8, v);
		n++;
	}
	return n;
}

void mana_dbmbox_counters(const struct mana_dbmbox *m,
			  struct mana_dbmbox_counters *c)
{
	c->rung = atomic_load_explicit(&m->rung, memory_order_relaxed);
	c->dropped_bad_qid = atomic_load_explicit(&m->dropped_bad_qid,
						  memory_order_relaxed);
	c->dropped_short = atomic_load_explicit(&m->dropped_short,
						memory_order_relaxed);
	c->dropped_other = atomic_load_explicit(&m->dropped_other,
						memory_order_relaxed);
	c->taken = atomic_load_explicit(&m->taken, memory_order_relaxed);
}
