/* SPDX-License-Identifier: MIT */
/*
 * emu/fault/fault_dp.c -- the data-path rules on a work request: the
 * engine asks (through the kernel layer's hooks) when a send WQE is about
 * to run, when a message takes a receive WQE, when a send queue doorbell
 * is new and when a CQ arm request comes, and only while a data-path rule
 * exists.
 *
 * As for commands and frames: rules are tried in the order they were
 * added, each counts what it matches, delays add up, and the first rule
 * that does something else decides and ends the walk.
 */
#include <urcu-bp.h>	/* first: liburcu's name mapping */

#include <string.h>

#include "emu/fault/fault.h"
#include "emu/fault/fault_int.h"

static void fault_dp_observe(struct fault_observer *obs,
			     const struct fault_rule *r,
			     const struct emu_fault_wqe *w, uint64_t k,
			     uint64_t inj)
{
	struct emu_fault_event ev = {
		.rule_id = r->id, .rule_text = r->text, .dev = w->dev,
		.action = r->spec.action, .target = w->cq_arm ? w->cqn : w->qpn,
		.cq_arm = w->cq_arm,
		.cqe_syndrome = r->cqe_syndrome, .cqe_vendor = r->cqe_vendor,
		.delay_us = r->spec.delay_us, .match = k, .injection = inj,
	};

	obs->fn(obs->arg, &ev);
}

bool emu_fault_dp_verdict(const struct emu_fault_wqe *w,
			  struct emu_fault_dp_verdict *v)
{
	struct fault_observer *obs;
	struct fault_set *set;
	bool fired = false, done = false;

	memset(v, 0, sizeof(*v));
	if (fault_none())
		return false;
	rcu_read_lock();
	set = fault_set_rcu();
	obs = fault_obs_rcu();
	for (int i = 0; set && i < set->n && !done; i++) {
		struct fault_rule *r = set->rule[i];
		uint64_t k, inj;

		if (!r->dp || !emu_fault_wqe_matches(&r->spec, w) ||
		    (w->completed &&
		     r->spec.action != MLX5EMU_FAULT_CQE_ERROR))
			continue;
		inj = fault_match_fire(r, &k);
		if (!inj)
			continue;
		fired = true;
		switch (r->spec.action) {
		case MLX5EMU_FAULT_CQE_DELAY:
			v->delay_us += r->spec.delay_us;
			break;
		case MLX5EMU_FAULT_CQE_ERROR:
			v->error = true;
			v->syndrome = r->cqe_syndrome;
			v->vendor = r->cqe_vendor;
			done = true;
			break;
		default:	/* DOORBELL_DROP */
			v->drop = true;
			done = true;
			break;
		}
		if (obs)
			fault_dp_observe(obs, r, w, k, inj);
	}
	FAULT_TSAN_RELEASE();
	rcu_read_unlock();
	return fired;
}
