/* SPDX-License-Identifier: MIT */
/*
 * emu/fault/fault_int.h -- inside the fault injector: the rule set that
 * fault_cmd.c keeps and fault_event.c reads.
 *
 * Readers hold liburcu's read side (bulletproof flavour); what a read of
 * the set returns stays valid until they leave it.
 */
#ifndef MLX5EMU_EMU_FAULT_FAULT_INT_H
#define MLX5EMU_EMU_FAULT_FAULT_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "emu/base/sanitizer.h"
#include "emu/fault/fault.h"

/* ThreadSanitizer cannot see liburcu's grace periods (see fw_objs.h). */
#ifdef EMU_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
extern char fault_tsan_sync;
#define FAULT_TSAN_RELEASE() __tsan_release(&fault_tsan_sync)
#define FAULT_TSAN_ACQUIRE() __tsan_acquire(&fault_tsan_sync)
#else
#define FAULT_TSAN_RELEASE() ((void)0)
#define FAULT_TSAN_ACQUIRE() ((void)0)
#endif

struct fault_rule {
	int id;
	bool wire;			/* acts on frames, not commands */
	bool dp;			/* acts on work requests */
	struct mlx5emu_fault_rule spec;
	uint8_t status;			/* FAIL: resolved answer */
	uint32_t syndrome;
	uint8_t cqe_syndrome;		/* CQE_ERROR: resolved */
	uint32_t cqe_vendor;
	uint64_t seed;			/* PROB: effective seed */
	_Atomic uint64_t matches;
	_Atomic uint64_t fires;
	atomic_uint fired_devs;		/* events without a command: done on */
	char text[EMU_FAULT_TEXT_MAX];	/* canonical */
};

struct fault_set {
	int n;
	struct fault_rule *rule[];
};

struct fault_observer {
	emu_fault_observer_fn fn;
	void *arg;
};

/* fault_cmd.c: the published set and observer (read side held), whether
 * no rule exists (one atomic load), one injection of r within its limit
 * (its number, 0: none left), a command's class. */
struct fault_set *fault_set_rcu(void);
struct fault_observer *fault_obs_rcu(void);
bool fault_none(void);
uint64_t fault_take(struct fault_rule *r);
/* Rule r matched once more: its match number in *k; the injection's
 * number if this match fires (within the limit), else 0. */
uint64_t fault_match_fire(struct fault_rule *r, uint64_t *k);
uint32_t fault_class_of(uint16_t opcode);

/* fault_event.c: rule @id was just added (no lock held): it fires on the
 * devices that are up. */
void fault_event_fire_added(int id);

#endif /* MLX5EMU_EMU_FAULT_FAULT_INT_H */
