/* SPDX-License-Identifier: MIT */
/*
 * emu/fault/fault_cmd.c -- the process-wide rule set and the hook every
 * device's firmware calls before a command runs.
 *
 * The rule set is an immutable array of rule pointers, read under an RCU
 * read side (liburcu's bulletproof flavour: command threads need no
 * registration); writers (add/remove/clear) serialise on a mutex, publish a
 * new array and free what the old one alone held after a grace period.  A rule's counts
 * are atomics in the rule itself, so they survive changes of the set.  The
 * hook costs one atomic load while no rule exists.
 *
 * Order: rules are tried in the order they were added.  Each rule counts
 * every command it matches; a delay rule that fires adds its delay and the
 * next rule is tried; the first fail rule that fires answers the command,
 * and the rules after it do not see that command.
 */
#include <urcu-bp.h>	/* first: liburcu's name mapping */

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/base/clock.h"
#include "emu/device/dev.h"
#include "emu/device/dev_config.h"
#include "emu/fault/fault.h"
#include "emu/fault/fault_int.h"
#include "emu/firmware/fw.h"

#ifdef EMU_TSAN
char fault_tsan_sync;
#endif

static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * Published with C11 release stores and read with acquire loads (which
 * ThreadSanitizer understands, unlike liburcu's rcu_assign_pointer and
 * rcu_dereference); liburcu provides the read sides and grace periods.
 */
static struct fault_set *_Atomic fault_rules;		/* NULL: none */
static atomic_int fault_nrules;				/* fast path */
static atomic_int fault_nwire;				/* of them wire rules */
static atomic_int fault_ndp;				/* data-path rules */
static _Atomic emu_fault_dp_notify_fn fault_dp_notify;
static struct fault_observer *_Atomic fault_obs;
static int fault_next_id = 1;			/* under fault_lock */
static bool fault_config_done;			/* under fault_lock */
static _Atomic uint64_t fault_seed_value;
static pthread_once_t fault_atfork_once = PTHREAD_ONCE_INIT;

/* ---- fork: the child gets the rules; the lock must not stay held ---- */

static void fault_atfork_prepare(void)
{
	pthread_mutex_lock(&fault_lock);
}

static void fault_atfork_release(void)
{
	pthread_mutex_unlock(&fault_lock);
}

static void fault_atfork_register(void)
{
	pthread_atfork(fault_atfork_prepare, fault_atfork_release,
		       fault_atfork_release);
}

static void fault_lock_acquire(void)
{
	pthread_once(&fault_atfork_once, fault_atfork_register);
	pthread_mutex_lock(&fault_lock);
}

/* After publishing: wait until no reader can see what was unpublished. */
static void fault_grace_period(void)
{
	synchronize_rcu();
	FAULT_TSAN_ACQUIRE();
}

/* ---- the rule set (callers hold fault_lock) ---- */

/* The current set, for writers (under fault_lock). */
static struct fault_set *fault_set_locked(void)
{
	return atomic_load_explicit(&fault_rules, memory_order_relaxed);
}

static int fault_count_locked(void)
{
	struct fault_set *set = fault_set_locked();

	return set ? set->n : 0;
}

/* The data path learns whether it has rules to ask (fault_lock held, so
 * the calls come in the order of the changes). */
static void fault_count_kinds_locked(const struct fault_set *set)
{
	int nwire = 0, ndp = 0, had;
	emu_fault_dp_notify_fn fn;

	for (int i = 0; set && i < set->n; i++) {
		nwire += set->rule[i]->wire;
		ndp += set->rule[i]->dp;
	}
	atomic_store_explicit(&fault_nrules, set ? set->n : 0,
			      memory_order_release);
	atomic_store_explicit(&fault_nwire, nwire, memory_order_release);
	had = atomic_exchange_explicit(&fault_ndp, ndp, memory_order_acq_rel);
	fn = atomic_load_explicit(&fault_dp_notify, memory_order_acquire);
	if (fn && !had != !ndp)
		fn(ndp > 0);
}

void emu_fault_set_dp_notify(emu_fault_dp_notify_fn fn)
{
	fault_lock_acquire();
	atomic_store_explicit(&fault_dp_notify, fn, memory_order_release);
	if (fn)
		fn(atomic_load_explicit(&fault_ndp, memory_order_acquire) > 0);
	pthread_mutex_unlock(&fault_lock);
}

static void fault_publish_locked(struct fault_set *set)
{
	struct fault_set *old = fault_set_locked();

	atomic_store_explicit(&fault_rules, set, memory_order_release);
	fault_count_kinds_locked(set);
	if (old) {
		fault_grace_period();
		free(old);
	}
}

static int fault_add_locked(const struct mlx5emu_fault_rule *spec,
			    char *err, size_t errlen)
{
	int n = fault_count_locked();
	struct fault_rule *r;
	struct fault_set *set;
	int ret;

	ret = emu_fault_rule_check(spec, err, errlen);
	if (ret)
		return ret;
	if (n >= EMU_FAULT_MAX_RULES) {
		snprintf(err, errlen, "too many rules (at most %d)",
			 EMU_FAULT_MAX_RULES);
		return -ENOSPC;
	}
	if (fault_next_id == INT32_MAX) {
		snprintf(err, errlen, "rule ids exhausted");
		return -ENOSPC;
	}
	r = calloc(1, sizeof(*r));
	set = malloc(sizeof(*set) + (size_t)(n + 1) * sizeof(set->rule[0]));
	if (!r || !set) {
		free(r);
		free(set);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->spec = *spec;
	r->wire = emu_fault_rule_is_wire(spec);
	r->dp = emu_fault_is_dp(spec->action);
	if (r->dp)
		emu_fault_dp_result(spec, &r->cqe_syndrome, &r->cqe_vendor);
	else
		emu_fault_rule_result(spec, &r->status, &r->syndrome);
	r->seed = (spec->flags & MLX5EMU_FAULT_F_SEED) ? spec->seed :
		atomic_load_explicit(&fault_seed_value, memory_order_relaxed);
	emu_fault_rule_format(spec, r->text, sizeof(r->text));
	atomic_init(&r->matches, 0);
	atomic_init(&r->fires, 0);
	atomic_init(&r->fired_devs, 0);
	r->id = fault_next_id++;
	set->n = n + 1;
	if (n)
		memcpy(set->rule, fault_set_locked()->rule,
		       (size_t)n * sizeof(set->rule[0]));
	set->rule[n] = r;
	fault_publish_locked(set);
	return r->id;
}

static int fault_list_add(void *arg, const struct mlx5emu_fault_rule *rule,
			  const char *text)
{
	struct { char *err; size_t errlen; } *e = arg;
	int ret = fault_add_locked(rule, e->err, e->errlen);

	return ret < 0 ? ret : 0;
}

static int fault_load_config_locked(const struct emu_config *cfg, char *err,
				    size_t errlen)
{
	struct { char *err; size_t errlen; } e = { err, errlen };
	char why[EMU_FAULT_ERR_MAX] = "";
	int ret;

	if (fault_config_done)
		return 0;
	atomic_store_explicit(&fault_seed_value, cfg->fault_seed,
			      memory_order_relaxed);
	e.err = why;
	e.errlen = sizeof(why);
	ret = emu_fault_parse_list(cfg->fault_rules, fault_list_add, &e, NULL,
				   why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "fault.rules: %s", why);
		return ret;
	}
	fault_config_done = true;
	return 0;
}

/*
 * The configured rules go in first, on the engine's first use.  If the
 * configuration is bad now, device initialisation reports it; the engine
 * tries again on its next use.
 */
static void fault_start_locked(void)
{
	const struct emu_config *cur;
	struct emu_config_error cerr;
	struct emu_config *cfg;
	char why[EMU_FAULT_ERR_MAX];

	if (fault_config_done)
		return;
	cur = emu_devices_config();
	if (cur) {
		fault_load_config_locked(cur, why, sizeof(why));
		return;
	}
	cfg = malloc(sizeof(*cfg));
	if (!cfg)
		return;
	if (!emu_config_load(cfg, &cerr))
		fault_load_config_locked(cfg, why, sizeof(why));
	free(cfg);
}

int emu_fault_load_config(const struct emu_config *cfg, char *err,
			  size_t errlen)
{
	int ret;

	fault_lock_acquire();
	ret = fault_load_config_locked(cfg, err, errlen);
	pthread_mutex_unlock(&fault_lock);
	return ret;
}

/* ---- the API's engine ---- */

int emu_fault_add_rule(const struct mlx5emu_fault_rule *rule, char *err,
		       size_t errlen)
{
	int ret;

	fault_lock_acquire();
	fault_start_locked();
	ret = fault_add_locked(rule, err, errlen);
	pthread_mutex_unlock(&fault_lock);
	/* An event rule without a command to match fires now. */
	if (ret > 0 && emu_fault_is_immediate(rule))
		fault_event_fire_added(ret);
	return ret;
}

int emu_fault_add_text(const char *text, char *err, size_t errlen)
{
	struct mlx5emu_fault_rule r;
	int ret = emu_fault_parse(text, &r, err, errlen);

	return ret ? ret : emu_fault_add_rule(&r, err, errlen);
}

int emu_fault_remove(int id)
{
	struct fault_set *set = NULL, *cur;
	struct fault_rule *gone = NULL;
	int n, j = 0;

	fault_lock_acquire();
	fault_start_locked();
	cur = fault_set_locked();
	n = fault_count_locked();
	for (int i = 0; i < n; i++)
		if (cur->rule[i]->id == id)
			gone = cur->rule[i];
	if (!gone) {
		pthread_mutex_unlock(&fault_lock);
		return -ENOENT;
	}
	if (n > 1) {
		set = malloc(sizeof(*set) + (size_t)(n - 1) * sizeof(set->rule[0]));
		if (!set) {
			pthread_mutex_unlock(&fault_lock);
			return -ENOMEM;
		}
		for (int i = 0; i < n; i++)
			if (cur->rule[i] != gone)
				set->rule[j++] = cur->rule[i];
		set->n = j;
	}
	fault_publish_locked(set);	/* waits for the readers */
	free(gone);
	pthread_mutex_unlock(&fault_lock);
	return 0;
}

static void fault_clear_locked(void)
{
	struct fault_set *old = fault_set_locked();

	if (!old)
		return;
	atomic_store_explicit(&fault_rules, NULL, memory_order_release);
	fault_count_kinds_locked(NULL);
	fault_grace_period();
	for (int i = 0; i < old->n; i++)
		free(old->rule[i]);
	free(old);
}

void emu_fault_clear(void)
{
	fault_lock_acquire();
	fault_start_locked();
	fault_clear_locked();
	pthread_mutex_unlock(&fault_lock);
}

void emu_fault_reset(void)
{
	fault_lock_acquire();
	fault_clear_locked();
	fault_next_id = 1;
	fault_config_done = false;
	atomic_store_explicit(&fault_seed_value, 0, memory_order_relaxed);
	pthread_mutex_unlock(&fault_lock);
}

uint64_t emu_fault_seed(void)
{
	return atomic_load_explicit(&fault_seed_value, memory_order_relaxed);
}

/* Rule id under the lock, or NULL. */
static struct fault_rule *fault_find_locked(int id)
{
	struct fault_set *set = fault_set_locked();

	for (int i = 0; i < fault_count_locked(); i++)
		if (set->rule[i]->id == id)
			return set->rule[i];
	return NULL;
}

int emu_fault_stats(int id, struct mlx5emu_fault_stats *stats)
{
	struct fault_rule *r;

	fault_lock_acquire();
	fault_start_locked();
	r = fault_find_locked(id);
	if (r && stats) {
		stats->matches = atomic_load(&r->matches);
		stats->injections = atomic_load(&r->fires);
	}
	pthread_mutex_unlock(&fault_lock);
	return r ? 0 : -ENOENT;
}

int emu_fault_list(int *ids, int max)
{
	int n;

	fault_lock_acquire();
	fault_start_locked();
	n = fault_count_locked();
	for (int i = 0; i < n && i < max && ids; i++)
		ids[i] = fault_set_locked()->rule[i]->id;
	pthread_mutex_unlock(&fault_lock);
	return n;
}

int emu_fault_format(int id, char *buf, size_t len)
{
	struct fault_rule *r;
	int ret = -ENOENT;

	fault_lock_acquire();
	fault_start_locked();
	r = fault_find_locked(id);
	if (r)
		ret = snprintf(buf, len, "%s", r->text);
	pthread_mutex_unlock(&fault_lock);
	return ret;
}

void emu_fault_set_observer(emu_fault_observer_fn fn, void *arg)
{
	struct fault_observer *o = NULL, *old;

	if (fn) {
		o = malloc(sizeof(*o));
		if (!o)
			return;
		o->fn = fn;
		o->arg = arg;
	}
	fault_lock_acquire();
	old = atomic_load_explicit(&fault_obs, memory_order_relaxed);
	atomic_store_explicit(&fault_obs, o, memory_order_release);
	if (old) {
		fault_grace_period();
		free(old);
	}
	pthread_mutex_unlock(&fault_lock);
}

/* ---- the hook ---- */

struct fault_set *fault_set_rcu(void)
{
	return atomic_load_explicit(&fault_rules, memory_order_acquire);
}

struct fault_observer *fault_obs_rcu(void)
{
	return atomic_load_explicit(&fault_obs, memory_order_acquire);
}

bool fault_none(void)
{
	return !atomic_load_explicit(&fault_nrules, memory_order_acquire);
}

uint64_t fault_take(struct fault_rule *r)
{
	uint64_t f = atomic_load_explicit(&r->fires, memory_order_relaxed);

	do {
		if (r->spec.limit && f >= r->spec.limit)
			return 0;
	} while (!atomic_compare_exchange_weak_explicit(&r->fires, &f, f + 1,
							memory_order_relaxed,
							memory_order_relaxed));
	return f + 1;
}

uint64_t fault_match_fire(struct fault_rule *r, uint64_t *k)
{
	*k = atomic_fetch_add_explicit(&r->matches, 1, memory_order_relaxed) + 1;
	if (!emu_fault_fires(&r->spec, *k, r->seed))
		return 0;
	return fault_take(r);
}

uint32_t fault_class_of(uint16_t opcode)
{
	struct emu_fw_cmd_info info;

	if (emu_fw_cmd_info(opcode, &info))
		return 0;
	switch (info.cls) {
	case EMU_FW_CMD_GENERAL:
		return MLX5EMU_FAULT_CLASS_GENERAL;
	case EMU_FW_CMD_CREATE:
		return MLX5EMU_FAULT_CLASS_CREATE;
	case EMU_FW_CMD_MODIFY:
		return MLX5EMU_FAULT_CLASS_MODIFY;
	case EMU_FW_CMD_QUERY:
		return MLX5EMU_FAULT_CLASS_QUERY;
	case EMU_FW_CMD_DESTROY:
		return MLX5EMU_FAULT_CLASS_DESTROY;
	default:
		return 0;
	}
}

/* On the device model's clock: a deterministic run advances its virtual
 * time instead of sleeping. */
static void fault_sleep_ms(uint64_t ms)
{
	emu_clock_sleep_ns(ms * 1000000u);
}

bool emu_fault_pre_cmd(void *arg, const void *in, size_t inlen,
		       uint16_t opcode, uint16_t op_mod, uint16_t uid,
		       uint8_t *status, uint32_t *syndrome)
{
	struct emu_fault_cmd cmd = {
		.dev = (int)(intptr_t)arg,
		.opcode = opcode, .op_mod = op_mod, .uid = uid,
	};
	struct fault_observer *obs;
	struct fault_set *set;
	uint64_t delay = 0;
	bool failed = false;

	if (!atomic_load_explicit(&fault_nrules, memory_order_acquire))
		return false;
	cmd.cls = fault_class_of(opcode);

	rcu_read_lock();
	set = atomic_load_explicit(&fault_rules, memory_order_acquire);
	obs = atomic_load_explicit(&fault_obs, memory_order_acquire);
	for (int i = 0; set && i < set->n && !failed; i++) {
		struct fault_rule *r = set->rule[i];
		uint64_t k, inj;

		/* Event rules act after the command (fault_event.c);
		 * wire rules on frames. */
		if (r->wire || r->dp || emu_fault_is_event(r->spec.action) ||
		    !emu_fault_matches(&r->spec, &cmd))
			continue;
		inj = fault_match_fire(r, &k);
		if (!inj)
			continue;
		if (r->spec.action == MLX5EMU_FAULT_DELAY) {
			delay += r->spec.delay_ms;
		} else {
			*status = r->status;
			*syndrome = r->syndrome;
			failed = true;
		}
		if (obs) {
			struct emu_fault_event ev = {
				.rule_id = r->id, .rule_text = r->text,
				.dev = cmd.dev, .opcode = opcode,
				.op_mod = op_mod, .uid = uid,
				.action = r->spec.action,
				.status = failed ? r->status : 0,
				.syndrome = failed ? r->syndrome : 0,
				.delay_ms = failed ? 0 : r->spec.delay_ms,
				.match = k, .injection = inj,
			};

			obs->fn(obs->arg, &ev);
		}
	}
	FAULT_TSAN_RELEASE();
	rcu_read_unlock();
	if (delay)
		fault_sleep_ms(delay);
	return failed;
}

bool emu_fault_wire_active(void)
{
	return atomic_load_explicit(&fault_nwire, memory_order_acquire) > 0;
}

uint32_t emu_fault_frame_verdict(const struct emu_fault_frame *f,
				 uint32_t *delay_us)
{
	uint32_t action = 0;
	struct fault_set *set;

	*delay_us = 0;
	if (!emu_fault_wire_active())
		return 0;
	rcu_read_lock();
	set = atomic_load_explicit(&fault_rules, memory_order_acquire);
	for (int i = 0; set && i < set->n && !action; i++) {
		struct fault_rule *r = set->rule[i];
		uint64_t k;

		if (!r->wire || !emu_fault_frame_matches(&r->spec, f) ||
		    !fault_match_fire(r, &k))
			continue;
		/* Delays add up; the first other action that fires wins. */
		if (r->spec.action == MLX5EMU_FAULT_DELAY)
			*delay_us += r->spec.delay_us ? r->spec.delay_us :
							r->spec.delay_ms * 1000u;
		else
			action = r->spec.action;
	}
	FAULT_TSAN_RELEASE();
	rcu_read_unlock();
	if (!action && *delay_us)
		action = MLX5EMU_FAULT_DELAY;
	return action;
}

/* One hooks struct per device index (arg: the index), never written. */
#define FAULT_HOOK(i) \
	{ .pre_cmd = emu_fault_pre_cmd, .post_cmd = emu_fault_post_cmd, \
	  .arg = (void *)(intptr_t)(i) }
static const struct emu_fw_hooks fault_hooks[] = {
	FAULT_HOOK(0), FAULT_HOOK(1), FAULT_HOOK(2), FAULT_HOOK(3),
	FAULT_HOOK(4), FAULT_HOOK(5), FAULT_HOOK(6), FAULT_HOOK(7),
	FAULT_HOOK(8), FAULT_HOOK(9), FAULT_HOOK(10), FAULT_HOOK(11),
	FAULT_HOOK(12), FAULT_HOOK(13), FAULT_HOOK(14), FAULT_HOOK(15),
};
_Static_assert(sizeof(fault_hooks) / sizeof(fault_hooks[0]) == EMU_MAX_DEVICES,
	       "one hooks struct per possible device");

void emu_fault_start(void)
{
	fault_lock_acquire();
	fault_start_locked();
	pthread_mutex_unlock(&fault_lock);
}

bool emu_fault_dp_active(void)
{
	return atomic_load_explicit(&fault_ndp, memory_order_relaxed) > 0;
}

bool emu_fault_any(void)
{
	return atomic_load_explicit(&fault_nrules, memory_order_acquire) != 0;
}

void emu_fault_attach(struct emu_fw *fw, int dev_index)
{
	if (!fw || dev_index < 0 || dev_index >= EMU_MAX_DEVICES)
		return;
	emu_fault_start();
	emu_fw_set_hooks(fw, &fault_hooks[dev_index]);
}
