/* SPDX-License-Identifier: MIT */
/*
 * emu/fault/fault.h -- command fault injection: the rule syntax, the
 * matcher and the process-wide rule set that the firmware's pre-command
 * hook consults (docs/fault-injection.md is the user's guide).
 *
 *   fault_rule.c    text <-> struct mlx5emu_fault_rule, names, checks
 *   fault_match.c   does a rule match a command; does its k-th match fire
 *   fault_engine.c  the rule set (RCU), counters, the hook, config rules
 *   fault_api.c     the public entry points (include/mlx5emu/mlx5emu.h)
 *
 * The public struct mlx5emu_fault_rule is the one representation of a
 * rule; the text syntax parses into it and formats back from it.
 */
#ifndef MLX5EMU_EMU_FAULT_FAULT_H
#define MLX5EMU_EMU_FAULT_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mlx5emu/mlx5emu.h"

struct emu_fw;
struct emu_config;

#define EMU_FAULT_MAX_RULES 1024
#define EMU_FAULT_MAX_DELAY_MS 60000
#define EMU_FAULT_TEXT_MAX 384		/* a canonical rule fits */
#define EMU_FAULT_ERR_MAX 512

/* ---- syntax (fault_rule.c) ---- */

/*
 * Parses one rule (docs/fault-injection.md, "Grammar") into *rule, checked
 * as emu_fault_rule_check() does.  0, or -EINVAL with the reason in err
 * (no prefix: "unknown key \"opcde\"; expected ...").
 */
int emu_fault_parse(const char *text, struct mlx5emu_fault_rule *rule,
		    char *err, size_t errlen);

/* Checks a rule given as a struct (the parser's result included). */
int emu_fault_rule_check(const struct mlx5emu_fault_rule *rule, char *err,
			 size_t errlen);

/* The canonical text of a checked rule; returns its length (snprintf). */
int emu_fault_rule_format(const struct mlx5emu_fault_rule *rule, char *buf,
			  size_t len);

/*
 * A list of rules separated by ';' (MLX5EMU_FAULTS, fault.rules); empty
 * entries are skipped.  Calls fn (if given) for each parsed rule with its
 * text, stopping at fn's first non-zero return, which is returned.  A bad
 * rule is -EINVAL with err "rule N (\"text\"): reason".  Returns 0 or the
 * error; *count (if given) gets the number of rules.
 */
typedef int (*emu_fault_list_fn)(void *arg,
				 const struct mlx5emu_fault_rule *rule,
				 const char *text);
int emu_fault_parse_list(const char *list, emu_fault_list_fn fn, void *arg,
			 int *count, char *err, size_t errlen);

/*
 * The status and syndrome a FAIL rule answers with (the defaults of
 * mlx5emu_fault_rule applied).
 */
void emu_fault_rule_result(const struct mlx5emu_fault_rule *rule,
			   uint8_t *status, uint32_t *syndrome);

/* Names used by the syntax (also for traces and tools). */
/* "CREATE_CQ" or NULL. */
const char *emu_fault_opcode_name(uint16_t opcode);
/* "BAD_PARAM" (MLX5_CMD_STAT_BAD_PARAM_ERR without prefix/_ERR) or NULL. */
const char *emu_fault_status_name(uint8_t status);
/* "FLOW_METER_ASO" or NULL. */
const char *emu_fault_obj_type_name(uint16_t obj_type);
/* "create" or NULL. */
const char *emu_fault_class_name(uint32_t cls);

/* ---- matching (fault_match.c) ---- */

/* One command as a rule sees it. */
struct emu_fault_cmd {
	int dev;		/* device index */
	uint16_t opcode;
	uint16_t op_mod;	/* obj_type for *_GENERAL_OBJECT */
	uint16_t uid;
	uint32_t cls;		/* enum mlx5emu_fault_class; 0 unknown */
};

/* True when every field the rule names equals the command's. */
bool emu_fault_matches(const struct mlx5emu_fault_rule *rule,
		       const struct emu_fault_cmd *cmd);

/*
 * Whether the rule's k-th match (k >= 1) fires, before its limit.  seed is
 * the effective seed of a PROB rule (the rule's own with
 * MLX5EMU_FAULT_F_SEED, else fault.seed).
 */
bool emu_fault_fires(const struct mlx5emu_fault_rule *rule, uint64_t k,
		     uint64_t seed);

/*
 * The uniform draw in [0, 1) of a PROB rule's k-th match: a splitmix64
 * hash of (seed, k), so the firing sequence depends only on the seed,
 * never on threads or timing.  Fires when draw < probability.
 */
double emu_fault_draw(uint64_t seed, uint64_t k);

/* ---- the rule set (fault_engine.c) ---- */

/*
 * Installs the fault hook on a new device's firmware (emu/kernel does this
 * right after emu_fw_create).  The first call in a process also installs
 * the configured rules (fault.rules, fault.seed) if that did not happen yet.
 */
void emu_fault_attach(struct emu_fw *fw, int dev_index);

/* The emu_fw_hooks.pre_cmd of every device; arg is the device index. */
bool emu_fault_pre_cmd(void *arg, const void *in, size_t inlen,
		       uint16_t opcode, uint16_t op_mod, uint16_t uid,
		       uint8_t *status, uint32_t *syndrome);

/* One injection, as reported to the observer (the trace). */
struct emu_fault_event {
	int rule_id;
	const char *rule_text;	/* canonical; valid during the call */
	int dev;
	uint16_t opcode, op_mod, uid;
	uint32_t action;	/* enum mlx5emu_fault_action */
	uint8_t status;		/* FAIL */
	uint32_t syndrome;	/* FAIL */
	uint32_t delay_ms;	/* DELAY */
	uint64_t match;		/* the rule's k-th match */
	uint64_t injection;	/* the rule's n-th injection */
};

/*
 * Called on every injection, on the command's thread, before the command
 * is answered (and before a delay sleeps).  It must not call the
 * mlx5emu_fault_* functions.  NULL removes it.
 */
typedef void (*emu_fault_observer_fn)(void *arg,
				      const struct emu_fault_event *ev);
void emu_fault_set_observer(emu_fault_observer_fn fn, void *arg);

/* The engine behind the public API (fault_api.c adds the last error). */
int emu_fault_add_rule(const struct mlx5emu_fault_rule *rule, char *err,
		       size_t errlen);
int emu_fault_add_text(const char *text, char *err, size_t errlen);
int emu_fault_remove(int id);
void emu_fault_clear(void);
int emu_fault_stats(int id, struct mlx5emu_fault_stats *stats);
int emu_fault_list(int *ids, int max);
int emu_fault_format(int id, char *buf, size_t len);

/*
 * Installs fault.rules and fault.seed of cfg, once per process: 0 (also
 * when already done), or -EINVAL with err.  The engine calls it itself on
 * first use, with emu_config_load(); exposed for tests.
 */
int emu_fault_load_config(const struct emu_config *cfg, char *err,
			  size_t errlen);
/* Forgets every rule, the seed and that config was loaded (tests only). */
void emu_fault_reset(void);
/* The seed of PROB rules without their own (fault.seed). */
uint64_t emu_fault_seed(void);

#endif /* MLX5EMU_EMU_FAULT_FAULT_H */
