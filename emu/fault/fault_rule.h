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
#define EMU_FAULT_MAX_DELAY_US 60000000	/* a frame's delay */
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

/* A name table of rule values (command opcodes, object types, WQE
 * opcodes). */
struct emu_fault_name {
	const char *name;
	uint16_t value;
};

/* @v as a name of @tab (any case) or a number up to @max: 0, else -EINVAL. */
int emu_fault_name_or_num(const struct emu_fault_name *tab, size_t n,
			  const char *v, uint64_t max, uint64_t *out);

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

/* The language's messages: err gets the text; returns -EINVAL. */
int emu_fault_errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- wire rules (fault_rule_wire.c): their keys, checks, text ---- */

/* Whether a rule acts on frames (a wire action, or a delay with a wire
 * key) rather than on commands. */
bool emu_fault_rule_is_wire(const struct mlx5emu_fault_rule *rule);
/* A wire key (port, qp, bth, psn, dir, us) into *rule; -ENOENT if key
 * is not one, -EINVAL with err. */
int emu_fault_wire_key(struct mlx5emu_fault_rule *rule, const char *key,
		       const char *value, char *err, size_t errlen);
/* The checks of a wire rule's fields (after the common ones). */
int emu_fault_wire_check(const struct mlx5emu_fault_rule *rule, char *err,
			 size_t errlen);
/* Its action word and wire terms, appended to out at *n (size len). */
void emu_fault_wire_format(const struct mlx5emu_fault_rule *rule, char *out,
			   size_t len, size_t *n, bool action);

/* ---- data-path rules (fault_rule_dp.c): keys, checks, names, text ---- */

/* cqe_error, cqe_delay, doorbell_drop. */
bool emu_fault_is_dp(uint32_t action);
/* A data-path key (wqe, queue, vendor_syndrome; syndrome of cqe_error)
 * into *rule; -ENOENT if key is not one, -EINVAL with err. */
int emu_fault_dp_key(struct mlx5emu_fault_rule *rule, const char *key,
		     const char *value, char *err, size_t errlen);
/* The data-path fields of any rule (set only on data-path rules), and a
 * data-path rule's whole check after the common ones. */
int emu_fault_dp_check(const struct mlx5emu_fault_rule *rule, char *err,
		       size_t errlen);
/* Its wqe, queue, syndrome and vendor_syndrome terms, appended. */
void emu_fault_dp_format(const struct mlx5emu_fault_rule *rule, char *out,
			 size_t len, size_t *n);
/* The CQE syndrome and vendor syndrome a cqe_error rule writes (the
 * table's vendor syndrome unless the rule gives one). */
void emu_fault_dp_result(const struct mlx5emu_fault_rule *rule,
			 uint8_t *syndrome, uint32_t *vendor);
/* Whether the rule names a MANA device (dev=mana_N: EMU_MAX_DEVICES + N).
 * On one, cqe_error's syndrome is a MANA CQE type (the default: TX_INVALID_OOB
 * on a send queue, RX_TRUNCATED on a receive queue) and its vendor syndrome
 * has 24 bits. */
bool emu_fault_rule_is_mana(const struct mlx5emu_fault_rule *rule);
/* "TX_MTU_DROP" (prm/mana.def, the kernel's CQE_TX_MTU_DROP) or NULL. */
const char *emu_fault_mana_cqe_name(uint8_t type);
/* "RDMA_WRITE" (prm/dp_opcodes.def), "LOCAL_PROT" (prm/cqe_syndromes.def),
 * or NULL. */
const char *emu_fault_wqe_opcode_name(uint8_t opcode);
const char *emu_fault_cqe_syndrome_name(uint8_t syndrome);

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

/* One frame as a wire rule sees it. */
struct emu_fault_frame {
	int dev;		/* device index */
	unsigned int port;	/* 1-based */
	bool rx;		/* received, else sent */
	bool roce;		/* the BTH fields are valid */
	uint8_t opcode;
	uint32_t qpn, psn;
};

/* True when every field the wire rule names equals the frame's. */
bool emu_fault_frame_matches(const struct mlx5emu_fault_rule *rule,
			     const struct emu_fault_frame *frame);

/* A work request as a data-path rule sees it: a send WQE about to run, a
 * receive WQE a message takes, a new send queue doorbell, or a CQ arm
 * request. */
struct emu_fault_wqe {
	int dev;		/* device index (MANA: EMU_MAX_DEVICES + N) */
	uint32_t qpn;		/* MANA: the work queue's id */
	bool rq;		/* a receive WQE (MANA: or an RQ doorbell) */
	bool doorbell;		/* a doorbell, not a WQE */
	uint8_t opcode;		/* MLX5_OPCODE_* (receive: the message's) */
	bool cq_arm;		/* the doorbell arms CQ cqn (qpn unused) */
	uint32_t cqn;
	/* A completion already written (hardware): only cqe_error rules
	 * can act on it, so only they see it. */
	bool completed;
};

/* True when every field the data-path rule names equals the WQE's. */
bool emu_fault_wqe_matches(const struct mlx5emu_fault_rule *rule,
			   const struct emu_fault_wqe *wqe);

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
