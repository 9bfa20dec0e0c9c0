/* SPDX-License-Identifier: MIT */
/*
 * emu/fault/fault.h -- command fault injection: the process-wide rule set
 * that every device's firmware consults before a command runs, and the
 * public API behind it (docs/fault-injection.md is the user's guide).
 *
 *   fault_cmd.c     the rule set (RCU), counters, the hook, config rules
 *   fault_api.c     the public entry points (include/mlx5emu/mlx5emu.h)
 *   fault_dp.c      what data-path rules do to a work request
 *
 * The rules themselves are fault_rule.h's.
 */
#ifndef MLX5EMU_EMU_FAULT_FAULT_H
#define MLX5EMU_EMU_FAULT_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/fault/fault_rule.h"
#include "mlx5emu/mlx5emu.h"

struct emu_fw;
struct emu_config;

#define EMU_FAULT_MAX_RULES 1024

/* ---- the rule set (fault_cmd.c) ---- */

/*
 * Installs the fault hook on a new device's firmware (emu/kernel does this
 * right after emu_fw_create).  The first call in a process also installs
 * the configured rules (fault.rules, fault.seed) if that did not happen yet.
 */
void emu_fault_attach(struct emu_fw *fw, int dev_index);

/*
 * For commands that reach no emulated firmware (the hw backend's, through
 * backend/filter): installs the configured rules as emu_fault_attach()
 * does, and tells whether any rule exists (one atomic load).
 */
void emu_fault_start(void);
bool emu_fault_any(void);

/* The emu_fw_hooks.pre_cmd of every device; arg is the device index. */
bool emu_fault_pre_cmd(void *arg, const void *in, size_t inlen,
		       uint16_t opcode, uint16_t op_mod, uint16_t uid,
		       uint8_t *status, uint32_t *syndrome);

/* One injection, as reported to the observer (the trace). */
struct emu_fault_event {
	int rule_id;
	const char *rule_text;	/* canonical; valid during the call */
	int dev;
	uint16_t opcode, op_mod, uid;	/* the command (none: events raised
					 * when added, opcode 0) */
	uint32_t action;	/* enum mlx5emu_fault_action */
	uint8_t status;		/* FAIL */
	uint32_t syndrome;	/* FAIL */
	uint32_t delay_ms;	/* DELAY */
	uint32_t port;		/* PORT_DOWN, PORT_UP */
	uint32_t target;	/* CQ_OVERRUN, QP_FATAL, SRQ_LIMIT: the object;
				 * data-path rules: the QP (a CQ arm: the
				 * CQ) */
	bool cq_arm;		/* DOORBELL_DROP: target is an armed CQ */
	uint8_t cqe_syndrome;	/* CQE_ERROR (MANA: the CQE type) */
	uint32_t cqe_vendor;	/* 8 bits; MANA 24 */
	uint32_t delay_us;	/* CQE_DELAY */
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

/*
 * Wire rules: what the rules do to a frame -- 0 (nothing),
 * MLX5EMU_FAULT_DROP, _DUPLICATE, _REORDER, _CORRUPT, or _DELAY with the
 * sum of the delays that fired in *delay_us.  Counts matches and
 * injections as the command hook does.  emu_fault_wire_active() is the
 * cheap test (any wire rule at all).
 */
bool emu_fault_wire_active(void);
uint32_t emu_fault_frame_verdict(const struct emu_fault_frame *frame,
				 uint32_t *delay_us);

/* ---- data-path rules (fault_dp.c) ---- */

/*
 * Called with true when the first data-path rule is added and false when
 * the last goes (and once at installation with the current answer), with
 * the rule set's lock held: it must not call the mlx5emu_fault_* functions.
 * The kernel layer switches the engine's data-path hooks with it.
 */
typedef void (*emu_fault_dp_notify_fn)(bool any);
void emu_fault_set_dp_notify(emu_fault_dp_notify_fn fn);

/* What the data-path rules do to a work request. */
struct emu_fault_dp_verdict {
	bool error;			/* complete it with an error CQE */
	uint8_t syndrome;		/* of the first cqe_error that fired */
	uint32_t vendor;		/* (MANA: 24 bits) */
	uint32_t delay_us;		/* cqe_delay: the sum of those fired */
	bool drop;			/* a doorbell or an arm: lose it */
};

/*
 * The rules on a send WQE about to run, a receive WQE a message takes, a
 * new send queue doorbell (wqe->doorbell) or a CQ arm request (doorbell
 * and cq_arm): every rule that matches
 * counts it; cqe_delay rules that fire add their delay, and the first
 * cqe_error (or doorbell_drop) that fires decides.  Returns whether any
 * rule fired (*v filled).  The observer hears of each injection.
 */
bool emu_fault_dp_verdict(const struct emu_fault_wqe *wqe,
			  struct emu_fault_dp_verdict *v);
/* Whether any data-path rule exists (a relaxed load: the cheap test). */
bool emu_fault_dp_active(void);

struct emu_wire_port;
/* Installs the wire rules' frame filter on a port (fault_wire.c). */
void emu_fault_wire_attach(struct emu_wire_port *port);
/* ---- events (fault_event.c) ---- */

/*
 * What raises an event rule's event on device @dev (the kernel layer
 * installs it): @port for port events, @target the CQ/QP/SRQ number.
 * 0, or a negative errno when nothing was raised (-ENOENT: no such
 * object), which the rule does not count as an injection.
 */
typedef int (*emu_fault_event_fn)(int dev, uint32_t action, uint32_t port,
				  uint32_t target);
void emu_fault_set_event_fn(emu_fault_event_fn fn);
/* The same for the MANA devices (@dev MLX5EMU_FAULT_DEV_MANA + N), which
 * emu/mana's kernel layer raises: port_down, port_up, device_fatal. */
void emu_fault_set_mana_event_fn(emu_fault_event_fn fn);

/* Device @dev is up (call with no device lock held): event rules with no
 * command to match that name it fire now.  A MANA device (dev
 * MLX5EMU_FAULT_DEV_MANA + N) hears only rules that name it. */
void emu_fault_device_up(int dev);

/*
 * The emu_fw_hooks.post_cmd of every device: event rules with a command
 * to match fire after a matching command succeeded, on the object it
 * names (bits 0x48..0x5f of the inbox, of the outbox for a create) unless
 * the rule names one.
 */
void emu_fault_post_cmd(void *arg, const void *in, size_t inlen,
			const void *out, size_t outlen);

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
