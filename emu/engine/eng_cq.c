/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_cq.c -- CQ arming, completion events, moderation and CQ
 * errors, as libmlx5 drives a ConnectX CQ (cq.c mlx5_arm_cq).
 *
 * Arming.  The application writes the arm word sn << 28 | cmd | ci into
 * its doorbell record (word 1), then the same word and the CQN to the
 * UAR's CQ doorbell (0x20).  The record is the truth: the engine takes an
 * arm request when the word there changes, or when a CQ doorbell naming
 * the CQ carries the word the record holds (a first arm may write the very
 * word the record held, sn 0, REQ_NOT, ci 0).  A request is taken only with the CQ's current
 * 2-bit sequence number, which advances with every event raised: an arm
 * issued before the application took the last event is stale (libmlx5
 * bumps its sn when it reads an event, mlx5_cq_event).  One event per
 * arm: after it the CQ is FIRED until the next request.
 *
 * A lost arm (a doorbell_drop queue=cq_arm rule, asked once per request
 * taken) leaves the CQ as it was: no event for the CQEs to come until the
 * application arms again.  The device never had that request, so the
 * doorbell of it the engine sees after the record (threads) is lost too,
 * and the doorbell register is cleared (eng_uar.c): the very same word
 * written again, as libmlx5 writes it when nothing was polled in between,
 * is then a new request the engine sees.
 *
 * When.  An armed CQ raises its completion event (an EQE in its EQ) once
 * it holds a CQE at index ci of the request or later: for REQ_NOT any
 * CQE, for REQ_NOT_SOL a solicited or an error CQE.  So arming while such
 * CQEs are already there raises the event at once (the index to arm is
 * the next one the consumer polls, as DPDK's vdpa notes it).
 *
 * Moderation (cq_period microseconds, cq_max_count CQEs) delays events,
 * never CQEs: a due event is raised when cq_max_count CQEs came since the
 * last event, or cq_period passed since the period started (the last
 * event, or with cq_period_mode 1 the first CQE after it), whichever is
 * first; with both 0 at once.  (The PRM text is not public; every user
 * agrees with this.)
 *
 * CQ error.  A CQE that would overrun the ring puts the CQ in its error
 * state (eng_cqe.c) and raises CQ_ERROR once, syndrome 1 (overrun, as
 * Mellanox's earlier HCAs number it: mthca "CQ overrun").
 *
 * Watching.  A CQ joins the engine's list when it is created (holding a
 * reference), so each pass looks at its CQ doorbell, its arm word and its
 * moderation timer; it leaves when it dies.
 */
#include <endian.h>
#include <stdlib.h>

#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"

#define ENG_CQ_SYND_OVERRUN 0x01

struct eng_cq {
	struct cds_list_head node;	/* in eng_g.cqs */
	struct eng_dev *dev;
	struct emu_fw_cq *cq;		/* a reference while listed */
};

static bool eng_cq_dying(const struct emu_fw_cq *cq)
{
	return atomic_load(&cq->obj.users) < 0;
}

void eng_cq_watch(struct eng_dev *dev, struct emu_fw_cq *cq)
{
	struct eng_cq *w;
	struct emu_fw_obj *ref;

	if (cq->hw.engine || eng_cq_dying(cq))
		return;
	w = calloc(1, sizeof(*w));
	if (!w)
		return;		/* its events wait for its next CQE */
	ref = emu_fw_obj_get(dev->fw, EMU_FW_OBJ_CQ, cq->obj.id);
	if (ref != &cq->obj) {
		if (ref)
			emu_fw_obj_put(ref);
		free(w);
		return;
	}
	w->dev = dev;
	w->cq = cq;
	cq->hw.engine = w;
	cds_list_add_tail(&w->node, &eng_g.cqs);
}

static void eng_cq_unwatch(struct eng_cq *w)
{
	cds_list_del(&w->node);
	w->cq->hw.engine = NULL;
	emu_fw_obj_put(&w->cq->obj);
	free(w);
}

void eng_cq_created(void *arg, struct emu_fw_cq *cq)
{
	pthread_mutex_lock(&eng_g.run);
	eng_cq_watch(arg, cq);
	pthread_mutex_unlock(&eng_g.run);
}

void eng_cq_unwatch_dev(struct eng *e, struct eng_dev *dev)
{
	struct eng_cq *w, *tmp;

	cds_list_for_each_entry_safe(w, tmp, &e->cqs, node)
		if (w->dev == dev)
			eng_cq_unwatch(w);
}

/* Index a at or after b, 24-bit counters. */
static bool eng_cq_at_or_after(uint32_t a, uint32_t b)
{
	return ((a - b) & 0xffffff) < 0x800000;
}

/* An armed CQ holds a CQE the request waits for. */
static bool eng_cq_has_due_cqe(const struct emu_fw_cq *cq)
{
	uint32_t arm = atomic_load(&cq->hw.arm_cmd);
	uint32_t ci = arm & 0xffffff;
	uint32_t pi = atomic_load(&cq->hw.pi) & 0xffffff;

	if (arm & MLX5_CQ_DB_REQ_NOT_SOL)
		return cq->hw.have_sol && eng_cq_at_or_after(cq->hw.sol_pi - 1, ci);
	return pi != ci && eng_cq_at_or_after(pi, ci);
}

static void eng_cq_fire(struct eng_dev *dev, struct emu_fw_cq *cq)
{
	atomic_store(&cq->hw.armed, false);
	atomic_store(&cq->hw.fired, true);
	cq->hw.sn = (cq->hw.sn + 1) & 3;
	cq->hw.mod_count = 0;
	cq->hw.mod_due_ns = 0;
	cq->hw.mod_start_ns = eng_clock_ns();
	eng_event_comp(dev, cq);
}

/* Raise the event of an armed CQ if it is due (moderation permitting). */
static void eng_cq_check(struct eng_dev *dev, struct emu_fw_cq *cq)
{
	unsigned int period = atomic_load(&cq->cq_period);
	unsigned int count = atomic_load(&cq->cq_max_count);
	uint64_t due, now;

	if (!atomic_load(&cq->hw.armed) || !eng_cq_has_due_cqe(cq))
		return;
	if (period || count) {
		if (!count || cq->hw.mod_count < count) {
			if (!period)
				return;		/* more CQEs will come */
			due = cq->hw.mod_start_ns + (uint64_t)period * 1000;
			now = eng_clock_ns();
			if (now < due) {
				cq->hw.mod_due_ns = due;
				eng_timer_arm(&eng_g, due);
				return;
			}
		}
	}
	eng_cq_fire(dev, cq);
}

/*
 * Take the request the doorbell record holds when its sequence number is
 * the CQ's: if the word is new, or if a CQ doorbell carried that very
 * word (@db_word, NULL: none) -- a doorbell says the word was written even
 * when the record held it already -- unless it is the doorbell of the
 * request just taken from the record.  True when a fault rule lost the
 * request the doorbell carried.
 */
static bool eng_cq_arm_take(struct eng_dev *dev, struct emu_fw_cq *cq,
			    const uint32_t *db_word)
{
	bool db = db_word != NULL;
	uint32_t w;

	if (atomic_load(&cq->hw.error) ||
	    emu_mem_load32(cq->dbr.addr + 4, &w))
		return false;
	w = be32toh(w);
	if (w == cq->hw.arm_seen && !(db && *db_word == w))
		return false;
	if (w == cq->hw.arm_seen && cq->hw.arm_db_due) {
		cq->hw.arm_db_due = false;	/* one request, seen twice */
		return cq->hw.arm_lost;
	}
	cq->hw.arm_seen = w;
	cq->hw.arm_db_due = !db;
	cq->hw.arm_lost = false;
	if (((w >> 28) & 3) != cq->hw.sn)
		return false;	/* stale: before the last event was taken */
	if (eng_g.dp_now && eng_dp_cq_arm(dev, cq)) {
		cq->hw.arm_lost = true;
		return db;
	}
	atomic_store(&cq->hw.arm_cmd, w);
	atomic_store(&cq->hw.armed, true);
	atomic_store(&cq->hw.fired, false);
	eng_cq_check(dev, cq);
	return false;
}

bool eng_cq_arm_hint(struct eng_dev *dev, struct emu_fw_cq *cq, uint32_t word)
{
	if (dev->fatal || eng_cq_dying(cq))
		return false;
	eng_cq_watch(dev, cq);
	return eng_cq_arm_take(dev, cq, &word);
}

void eng_cq_cqe_coming(struct emu_fw_cq *cq)
{
	struct eng_dev *dev = eng_dev_of(cq->obj.fw);

	if (!dev)
		return;
	eng_cq_watch(dev, cq);
	eng_cq_arm_take(dev, cq, NULL);
}

void eng_cq_cqe_written(struct emu_fw_cq *cq, bool sol)
{
	struct eng_dev *dev = eng_dev_of(cq->obj.fw);

	if (!dev)
		return;
	if (sol) {
		cq->hw.sol_pi = atomic_load(&cq->hw.pi);
		cq->hw.have_sol = true;
	}
	if (!cq->hw.mod_count++ && atomic_load(&cq->cq_period_mode))
		cq->hw.mod_start_ns = eng_clock_ns();
	eng_cq_check(dev, cq);
}

void eng_cq_overrun(struct emu_fw_cq *cq)
{
	struct eng_dev *dev = eng_dev_of(cq->obj.fw);

	if (atomic_exchange(&cq->hw.error, true))
		return;
	atomic_store(&cq->hw.armed, false);
	eng_event_cq_error(dev, cq, ENG_CQ_SYND_OVERRUN);
}

void eng_cq_scan(struct eng *e)
{
	struct eng_cq *w, *tmp;

	cds_list_for_each_entry_safe(w, tmp, &e->cqs, node) {
		struct emu_fw_cq *cq = w->cq;

		if (eng_cq_dying(cq)) {
			eng_cq_unwatch(w);
			continue;
		}
		if (w->dev->fatal)
			continue;
		if (cq->uar)
			eng_uar_scan_cq_db(w->dev, cq->uar);
		eng_cq_arm_take(w->dev, cq, NULL);
		if (cq->hw.mod_due_ns) {
			if (cq->hw.mod_due_ns <= e->now_ns)
				eng_cq_check(w->dev, cq);
			else
				eng_timer_arm(e, cq->hw.mod_due_ns);
		}
	}
}
