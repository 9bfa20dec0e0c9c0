/* SPDX-License-Identifier: MIT */
/*
 * emu/fault/fault_event.c -- rules that raise events: a port down or up, a
 * fatal device error, a CQ overrun, a QP's catastrophic error, an SRQ's
 * limit (docs/fault-injection.md, "Events on demand").
 *
 * A rule with a command to match (opcode, op_mod, obj_type, class, uid)
 * is tried after each command a device answered OK: it counts the match,
 * fires as nth/every/prob/limit say, and raises its event on the object
 * it names or else on the command's (a QP, CQ or SRQ command names its
 * object in bits 0x48..0x5f of the inbox, of the outbox for a create).  A
 * rule without one fires once on each device it names (dev=, else every
 * device): when it is added if the device is up, else when it comes up.
 *
 * The rules are read under RCU; what fires is copied out and raised after
 * the read side ends (the kernel layer's function takes device locks),
 * and a firing that raised nothing (no such object) is taken back.
 */
#include <urcu-bp.h>	/* first: liburcu's name mapping */

#include <endian.h>
#include <errno.h>
#include <string.h>

#include "emu/base/base.h"
#include "emu/fault/fault_int.h"
#include "emu/firmware/fw.h"
#include "emu/firmware/fw_objs.h"

#define FAULT_EVENTS_PER_CMD 8

struct fault_firing {
	int id;
	int dev;
	uint32_t action, port, target;
	uint16_t opcode, op_mod, uid;
	uint64_t match, injection;
	char text[EMU_FAULT_TEXT_MAX];
};

/* Every device index: the mlx5 ones, then MANA's (MLX5EMU_FAULT_DEV_MANA). */
#define FAULT_DEVS (EMU_MAX_DEVICES + EMU_MAX_MANA_DEVICES)

static _Atomic emu_fault_event_fn fault_event_fn, fault_mana_event_fn;
static atomic_uint fault_devs_up;	/* bit n: device n is up */
_Static_assert(FAULT_DEVS <= 32, "a bit per device");

void emu_fault_set_event_fn(emu_fault_event_fn fn)
{
	atomic_store_explicit(&fault_event_fn, fn, memory_order_release);
}

void emu_fault_set_mana_event_fn(emu_fault_event_fn fn)
{
	atomic_store_explicit(&fault_mana_event_fn, fn, memory_order_release);
}

static struct fault_rule *fault_find_rcu(int id)
{
	struct fault_set *set = fault_set_rcu();

	for (int i = 0; set && i < set->n; i++)
		if (set->rule[i]->id == id)
			return set->rule[i];
	return NULL;
}

/* A firing taken from rule r. */
static void fault_firing_init(struct fault_firing *f, const struct fault_rule *r,
			      int dev, uint64_t match, uint64_t injection)
{
	memset(f, 0, sizeof(*f));
	f->id = r->id;
	f->dev = dev;
	f->action = r->spec.action;
	f->port = r->spec.port;
	f->target = r->spec.target;
	f->match = match;
	f->injection = injection;
	memcpy(f->text, r->text, sizeof(f->text));
}

/* Raise it; count it if something was raised, else give it back. */
static void fault_fire(const struct fault_firing *f)
{
	emu_fault_event_fn fn = atomic_load_explicit(
		f->dev >= EMU_MAX_DEVICES ? &fault_mana_event_fn : &fault_event_fn,
		memory_order_acquire);
	int ret = fn ? fn(f->dev, f->action, f->port, f->target) : -ENODEV;
	struct fault_observer *obs;
	struct fault_rule *r;

	rcu_read_lock();
	if (ret) {
		r = fault_find_rcu(f->id);
		if (r)
			atomic_fetch_sub_explicit(&r->fires, 1,
						  memory_order_relaxed);
	} else {
		obs = fault_obs_rcu();
		if (obs) {
			struct emu_fault_event ev = {
				.rule_id = f->id, .rule_text = f->text,
				.dev = f->dev, .opcode = f->opcode,
				.op_mod = f->op_mod, .uid = f->uid,
				.action = f->action, .port = f->port,
				.target = f->target, .match = f->match,
				.injection = f->injection,
			};

			obs->fn(obs->arg, &ev);
		}
	}
	FAULT_TSAN_RELEASE();
	rcu_read_unlock();
}

/* Rule r (no command to match) fires on @dev once, if it names it. */
static bool fault_take_immediate(struct fault_rule *r, int dev,
				 struct fault_firing *f)
{
	uint64_t k, inj;

	if ((r->spec.match & MLX5EMU_FAULT_MATCH_DEV) && r->spec.dev != (uint32_t)dev)
		return false;
	/* a MANA device hears only the rules that name it */
	if (dev >= EMU_MAX_DEVICES && !(r->spec.match & MLX5EMU_FAULT_MATCH_DEV))
		return false;
	if (atomic_fetch_or(&r->fired_devs, 1u << dev) & (1u << dev))
		return false;
	k = atomic_fetch_add_explicit(&r->matches, 1, memory_order_relaxed) + 1;
	inj = fault_take(r);
	if (!inj)
		return false;
	fault_firing_init(f, r, dev, k, inj);
	return true;
}

void fault_event_fire_added(int id)
{
	unsigned int up = atomic_load(&fault_devs_up);
	struct fault_firing f[FAULT_DEVS];
	unsigned int n = 0;
	struct fault_rule *r;

	rcu_read_lock();
	r = fault_find_rcu(id);
	for (int dev = 0; r && dev < FAULT_DEVS; dev++)
		if ((up >> dev) & 1 && fault_take_immediate(r, dev, &f[n]))
			n++;
	FAULT_TSAN_RELEASE();
	rcu_read_unlock();
	for (unsigned int i = 0; i < n; i++)
		fault_fire(&f[i]);
}

void emu_fault_device_up(int dev)
{
	struct fault_firing f[FAULT_EVENTS_PER_CMD];
	struct fault_set *set;
	unsigned int n = 0;

	if (dev < 0 || dev >= FAULT_DEVS)
		return;
	atomic_fetch_or(&fault_devs_up, 1u << dev);
	rcu_read_lock();
	set = fault_set_rcu();
	for (int i = 0; set && i < set->n && n < FAULT_EVENTS_PER_CMD; i++)
		if (emu_fault_is_immediate(&set->rule[i]->spec) &&
		    fault_take_immediate(set->rule[i], dev, &f[n]))
			n++;
	FAULT_TSAN_RELEASE();
	rcu_read_unlock();
	for (unsigned int i = 0; i < n; i++)
		fault_fire(&f[i]);
}

/* The object a command names, if it is of the kind @action acts on. */
static bool fault_cmd_target(uint32_t action, const void *in, size_t inlen,
			     const void *out, size_t outlen, uint16_t opcode,
			     uint32_t *target)
{
	struct emu_fw_cmd_info info;
	const void *mbox;
	uint32_t w;
	int type;

	switch (action) {
	case MLX5EMU_FAULT_CQ_OVERRUN:
		type = EMU_FW_OBJ_CQ;
		break;
	case MLX5EMU_FAULT_QP_FATAL:
		type = EMU_FW_OBJ_QP;
		break;
	case MLX5EMU_FAULT_SRQ_LIMIT:
		type = EMU_FW_OBJ_SRQ;
		break;
	default:
		*target = 0;
		return true;	/* the device's, or a port's */
	}
	if (emu_fw_cmd_info(opcode, &info) || info.obj_type != type)
		return false;
	mbox = info.cls == EMU_FW_CMD_CREATE ? out : in;
	if ((info.cls == EMU_FW_CMD_CREATE ? outlen : inlen) < 12)
		return false;
	memcpy(&w, (const uint8_t *)mbox + 8, 4);
	*target = be32toh(w) & 0xffffff;
	return true;
}

void emu_fault_post_cmd(void *arg, const void *in, size_t inlen,
			const void *out, size_t outlen)
{
	struct fault_firing f[FAULT_EVENTS_PER_CMD];
	struct emu_fault_cmd cmd = { .dev = (int)(intptr_t)arg };
	struct fault_set *set;
	unsigned int n = 0;

	if (fault_none() || inlen < 8 || outlen < 8 || emu_fw_out_status(out))
		return;
	cmd.opcode = (uint16_t)(be32toh(*(const uint32_t *)in) >> 16);
	cmd.uid = (uint16_t)be32toh(*(const uint32_t *)in);
	cmd.op_mod = (uint16_t)be32toh(((const uint32_t *)in)[1]);
	cmd.cls = fault_class_of(cmd.opcode);
	rcu_read_lock();
	set = fault_set_rcu();
	for (int i = 0; set && i < set->n && n < FAULT_EVENTS_PER_CMD; i++) {
		struct fault_rule *r = set->rule[i];
		uint32_t target = 0;
		uint64_t k, inj;

		if (!emu_fault_is_event(r->spec.action) ||
		    emu_fault_is_immediate(&r->spec) ||
		    !emu_fault_matches(&r->spec, &cmd))
			continue;
		k = atomic_fetch_add_explicit(&r->matches, 1,
					      memory_order_relaxed) + 1;
		if (!emu_fault_fires(&r->spec, k, r->seed))
			continue;
		if (!(r->spec.flags & MLX5EMU_FAULT_F_TARGET) &&
		    !fault_cmd_target(r->spec.action, in, inlen, out, outlen,
				      cmd.opcode, &target))
			continue;	/* no object of its kind */
		inj = fault_take(r);
		if (!inj)
			continue;
		fault_firing_init(&f[n], r, cmd.dev, k, inj);
		if (!(r->spec.flags & MLX5EMU_FAULT_F_TARGET))
			f[n].target = target;
		f[n].opcode = cmd.opcode;
		f[n].op_mod = cmd.op_mod;
		f[n].uid = cmd.uid;
		n++;
	}
	FAULT_TSAN_RELEASE();
	rcu_read_unlock();
	for (unsigned int i = 0; i < n; i++)
		fault_fire(&f[i]);
}
