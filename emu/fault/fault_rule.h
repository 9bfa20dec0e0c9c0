/* SPDX-License-Identifier: MIT */
/*
 * emu/fault/fault_rule.h -- the fault rule language: the text syntax, the
 * checks, the names it uses, and whether a rule matches a command and
 * fires.  Pure functions over struct mlx5emu_fault_rule (the one
 * representation of a rule; the text parses into it and formats back from
 * it), with no state: the settings (emu/device) check fault.rules with
 * them, and the command-fault injector (fault.h) runs them.
 *
 *   fault_rule.c    text <-> struct mlx5emu_fault_rule, names, checks
 *   fault_match.c   does a rule match a command; does its k-th match fire
 */
#ifndef MLX5EMU_EMU_FAULT_FAULT_RULE_H
#define MLX5EMU_EMU_FAULT_FAULT_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mlx5emu/mlx5emu.h"

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

/* An event rule (port_down ... srq_limit); one with no command to match
 * (opcode, op_mod, obj_type, class, uid) fires when added. */
bool emu_fault_is_event(uint32_t action);
bool emu_fault_is_immediate(const struct mlx5emu_fault_rule *rule);

/* Names used by the syntax (also for traces and tools). */
/* "fail", "port_down" or NULL. */
const char *emu_fault_action_name(uint32_t action);
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

#endif /* MLX5EMU_EMU_FAULT_FAULT_RULE_H */
