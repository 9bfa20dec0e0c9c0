/* SPDX-License-Identifier: MIT */
/*
 * mlx5emu/mlx5emu.h -- the public C API of the mlx5emu project itself
 * (libmlx5emu.so.1, version nodes MLX5EMU_1.0 and MLX5EMU_1.1; pkg-config
 * mlx5emu).
 *
 * The drop-in libraries (libibverbs.so.1, libmlx5.so.1, ...) give programs
 * rdma-core's API; this library adds what no real NIC offers.  All of it
 * acts on the emulated devices of the calling process.
 *
 *     #include <mlx5emu/mlx5emu.h>          cc app.c $(pkg-config --cflags
 *                                           --libs mlx5emu) -lmlx5emu
 *
 * ---- Command fault injection (docs/fault-injection.md) ----
 *
 * A rule matches firmware commands (opcode, op_mod, general object type,
 * command class, uid, device) and either fails them with a chosen status and
 * syndrome, exactly as the firmware would, or delays them, or raises an
 * event (a port down or up, a fatal device error, a CQ overrun, a QP's
 * catastrophic error, an SRQ's limit); it fires on every match, on the Nth
 * match only, on every Nth match, or with a seeded probability.  Rules come from MLX5EMU_FAULTS, from the [fault] section of
 * the configuration file (docs/configuration.md) and from the functions
 * below, all in the same text syntax, e.g.
 *
 *     fail opcode=CREATE_CQ syndrome=CQ_IN_USE nth=2
 *     delay opcode=QUERY_HCA_CAP ms=50 every=3
 *     port_down dev=mlx5_0 port=1
 *     qp_fatal opcode=RTR2RTS_QP nth=3
 *
 * ---- Wire fault injection ----
 *
 * The same rules act on the frames a port sends or receives (by device,
 * port, direction, destination QP, BTH opcode and PSN range): drop,
 * duplicate, reorder, corrupt or delay them, e.g.
 *
 *     drop prob=1% seed=7
 *     duplicate qp=0x101 bth=RC_SEND_ONLY every=10
 *     delay port=1 dir=rx us=200 psn=100-199
 *
 * ---- Data-path fault injection ----
 *
 * The same rules act on the work requests a QP executes (by device, QP,
 * send or receive queue, WQE opcode): complete one with an error CQE of a
 * chosen syndrome and vendor syndrome (the QP then moves to the error
 * state and flushes the rest, as on a ConnectX), write its CQE later, or
 * lose a send queue doorbell, e.g.
 *
 *     cqe_error qp=0x100 wqe=RDMA_WRITE nth=3 syndrome=REMOTE_ACCESS
 *     cqe_delay queue=rq us=500 every=10
 *     doorbell_drop prob=5% seed=3
 *
 * On an emulated MANA device the rule names it (dev=mana_N), its syndrome
 * is a MANA CQE type and its vendor syndrome 24 bits, e.g.
 *
 *     cqe_error dev=mana_0 qp=2 syndrome=CQE_TX_MTU_DROP vendor_syndrome=0x1234
 *
 * Every function may be called from any thread at any time, also while
 * commands run on other threads (the rule set is read under RCU); a rule
 * added or removed takes effect for every command that starts afterwards.
 * Functions returning int return a negative errno on failure, and
 * mlx5emu_fault_last_error() then has the message.
 */
#ifndef MLX5EMU_MLX5EMU_H
#define MLX5EMU_MLX5EMU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What a rule does when it fires: fail or delay the command, or raise an
 * event on the device (docs/fault-injection.md, "Events on demand").  An
 * event rule with command match fields fires after a matching command
 * succeeds; one without fires once on each device it names, when it is
 * added (or when the device comes up).
 */
enum mlx5emu_fault_action {
	MLX5EMU_FAULT_FAIL = 1,		/* answer with status and syndrome */
	MLX5EMU_FAULT_DELAY = 2,	/* sleep delay_ms, then run the command;
					 * a frame: hold it delay_us (a wire
					 * rule: delay_us or a wire match) */
	MLX5EMU_FAULT_DROP = 3,		/* frames: lose it */
	MLX5EMU_FAULT_DUPLICATE = 4,	/* frames: deliver it twice */
	MLX5EMU_FAULT_REORDER = 5,	/* frames: deliver it after the next */
	MLX5EMU_FAULT_CORRUPT = 6,	/* frames: flip a bit (the ICRC fails) */
	MLX5EMU_FAULT_PORT_DOWN = 7,	/* the port's link goes down */
	MLX5EMU_FAULT_PORT_UP = 8,	/* the port's link comes up */
	MLX5EMU_FAULT_DEVICE_FATAL = 9,	/* a fatal error stops the device */
	MLX5EMU_FAULT_CQ_OVERRUN = 10,	/* the CQ overruns */
	MLX5EMU_FAULT_QP_FATAL = 11,	/* the QP's catastrophic error */
	MLX5EMU_FAULT_SRQ_LIMIT = 12,	/* the SRQ's limit event */
	MLX5EMU_FAULT_CQE_ERROR = 13,	/* a WQE completes with an error CQE */
	MLX5EMU_FAULT_CQE_DELAY = 14,	/* a WQE's CQE is written delay_us
					 * later */
	MLX5EMU_FAULT_DOORBELL_DROP = 15,	/* a send queue doorbell or a CQ
						 * arm is lost */
};

/* When a matching command makes a rule fire (k: the rule's k-th match). */
enum mlx5emu_fault_trigger {
	MLX5EMU_FAULT_ALWAYS = 0,	/* every match */
	MLX5EMU_FAULT_NTH = 1,		/* k == n, once */
	MLX5EMU_FAULT_EVERY = 2,	/* k % n == 0 */
	MLX5EMU_FAULT_PROB = 3,		/* with probability p, seeded */
};

/* Command classes (as the kernel's DEVX layer sorts opcodes). */
enum mlx5emu_fault_class {
	MLX5EMU_FAULT_CLASS_GENERAL = 1,
	MLX5EMU_FAULT_CLASS_CREATE = 2,
	MLX5EMU_FAULT_CLASS_MODIFY = 3,
	MLX5EMU_FAULT_CLASS_QUERY = 4,
	MLX5EMU_FAULT_CLASS_DESTROY = 5,
};

/* mlx5emu_fault_rule.match: which fields must equal the command's. */
enum {
	MLX5EMU_FAULT_MATCH_OPCODE = 1u << 0,
	MLX5EMU_FAULT_MATCH_OP_MOD = 1u << 1,
	MLX5EMU_FAULT_MATCH_OBJ_TYPE = 1u << 2,	/* *_GENERAL_OBJECT only */
	MLX5EMU_FAULT_MATCH_CLASS = 1u << 3,
	MLX5EMU_FAULT_MATCH_UID = 1u << 4,	/* uid == rule.uid */
	MLX5EMU_FAULT_MATCH_USER = 1u << 5,	/* any uid but 0 (the kernel) */
	MLX5EMU_FAULT_MATCH_DEV = 1u << 6,	/* device index (mlx5_<dev>), or
						 * MLX5EMU_FAULT_DEV_MANA + N
						 * (mana_<N>) */
	/* frames (wire rules) */
	MLX5EMU_FAULT_MATCH_PORT = 1u << 7,	/* port number (1-based) */
	MLX5EMU_FAULT_MATCH_QPN = 1u << 8,	/* BTH destination QP */
	MLX5EMU_FAULT_MATCH_PSN = 1u << 9,	/* psn_first..psn_last */
	MLX5EMU_FAULT_MATCH_BTH = 1u << 10,	/* BTH opcode */
	MLX5EMU_FAULT_MATCH_DIR = 1u << 11,	/* sent or received */
	/* work requests (data-path rules); MLX5EMU_FAULT_MATCH_QPN: the QP */
	MLX5EMU_FAULT_MATCH_WQE = 1u << 12,	/* WQE opcode (MLX5_OPCODE_*) */
	MLX5EMU_FAULT_MATCH_QUEUE = 1u << 13,	/* send or receive queue */
};

/* mlx5emu_fault_rule.dev of MANA device mana_N: this plus N (N < 4);
 * such a rule is a data-path one (docs/fault-injection.md, "MANA"). */
#define MLX5EMU_FAULT_DEV_MANA 16

/* mlx5emu_fault_rule.dir */
enum mlx5emu_fault_dir {
	MLX5EMU_FAULT_DIR_TX = 0,	/* frames a port sends (the default) */
	MLX5EMU_FAULT_DIR_RX = 1,	/* frames a port receives */
};

/* mlx5emu_fault_rule.queue */
enum mlx5emu_fault_queue {
	MLX5EMU_FAULT_QUEUE_SQ = 0,	/* send WQEs (the default) */
	MLX5EMU_FAULT_QUEUE_RQ = 1,	/* receive WQEs (of an RQ or SRQ) */
	MLX5EMU_FAULT_QUEUE_CQ_ARM = 2,	/* DOORBELL_DROP: CQ arm requests */
};

/* mlx5emu_fault_rule.flags */
enum {
	MLX5EMU_FAULT_F_SEED = 1u << 0,	/* use .seed, not the configured one */
	MLX5EMU_FAULT_F_TARGET = 1u << 1,	/* events: .target names the object */
	MLX5EMU_FAULT_F_VENDOR = 1u << 2,	/* CQE_ERROR: .vendor_syndrome */
};

/*
 * A rule as a struct (the text syntax parses into exactly this).  Zero
 * every field you do not use: unused fields and reserved[] must be 0.
 */
struct mlx5emu_fault_rule {
	uint32_t match;			/* MLX5EMU_FAULT_MATCH_* */
	uint16_t opcode;
	uint16_t op_mod;
	uint16_t obj_type;
	uint16_t uid;
	uint32_t dev;
	uint32_t cmd_class;		/* enum mlx5emu_fault_class */

	uint32_t action;		/* enum mlx5emu_fault_action */
	/*
	 * FAIL: both 0 is the emulator's INJECTED entry (INT_ERR,
	 * 0xee0000ff); a syndrome alone takes its status from the syndrome
	 * table; a status alone comes with syndrome 0xee0000ff.
	 * CQE_ERROR: the CQE syndrome (MLX5_CQE_SYNDROME_*, 1..255).
	 */
	uint32_t status;		/* 1..255 */
	uint32_t syndrome;
	uint32_t delay_ms;		/* DELAY: 1..60000 */

	uint32_t trigger;		/* enum mlx5emu_fault_trigger */
	uint32_t flags;			/* MLX5EMU_FAULT_F_* */
	uint64_t n;			/* NTH, EVERY: >= 1 */
	double probability;		/* PROB: 0 < p <= 1 */
	uint64_t seed;			/* PROB, with MLX5EMU_FAULT_F_SEED */
	uint64_t limit;			/* fire at most this often; 0: no limit */

	/* Wire rules: the frame's port, destination QP (data-path rules:
	 * the QP), PSN range (24 bits,
	 * inclusive, may wrap), BTH opcode, direction; a delay in us.
	 * Port events: the port they change (0 is port 1), with no match
	 * bit. */
	uint32_t port;
	uint32_t qpn;
	uint32_t psn_first, psn_last;
	uint16_t bth_opcode;
	uint16_t dir;			/* enum mlx5emu_fault_dir */
	uint32_t delay_us;		/* wire DELAY: 1..60000000 */
	/* Events: with MLX5EMU_FAULT_F_TARGET the CQ, QP or SRQ number
	 * (else the object of the matching command).  DOORBELL_DROP of
	 * QUEUE_CQ_ARM: with MLX5EMU_FAULT_F_TARGET the CQ it matches. */
	uint32_t target;
	/* Data path: the WQE opcode (MLX5EMU_FAULT_MATCH_WQE; a receive
	 * WQE: the opcode of the message that takes it), the queue
	 * (MLX5EMU_FAULT_MATCH_QUEUE), and CQE_ERROR's vendor syndrome (with
	 * MLX5EMU_FAULT_F_VENDOR; else the CQE syndrome table's).
	 * CQE_DELAY: delay_us above. */
	uint8_t wqe_opcode;
	uint8_t queue;			/* enum mlx5emu_fault_queue */
	uint8_t vendor_syndrome;
	uint8_t reserved8;
	/* CQE_ERROR on a MANA device: bits 23:8 of the vendor syndrome (its
	 * CQE's vendor_err has 24 bits); 0 on ConnectX devices. */
	uint16_t vendor_syndrome_hi;
	uint16_t reserved16;
	uint32_t reserved[3];
};

struct mlx5emu_fault_stats {
	uint64_t matches;		/* commands or frames the rule matched */
	uint64_t injections;		/* times it fired (failed or delayed) */
};

/*
 * Adds one rule given as text.  Returns its id (> 0, never reused in the
 * process), or -EINVAL for a bad rule (message: mlx5emu_fault_last_error()),
 * -ENOSPC when 1024 rules exist, -ENOMEM.
 */
int mlx5emu_fault_add(const char *rule);
/* The same for a rule given as a struct. */
int mlx5emu_fault_add_rule(const struct mlx5emu_fault_rule *rule);
/* Parses rule text into *out without adding it; 0 or -EINVAL. */
int mlx5emu_fault_parse(const char *rule, struct mlx5emu_fault_rule *out);
/* Removes rule id; 0, or -ENOENT. */
int mlx5emu_fault_remove(int id);
/* Removes every rule (those from the environment and file included). */
void mlx5emu_fault_clear(void);
/* How often rule id fired (saturating at INT_MAX), or -ENOENT. */
int mlx5emu_fault_count(int id);
/* Its match and injection counts; 0, or -ENOENT. */
int mlx5emu_fault_stats(int id, struct mlx5emu_fault_stats *stats);
/*
 * The ids of the current rules in evaluation order: writes at most max,
 * returns how many rules exist (call with max 0 to size the array).
 */
int mlx5emu_fault_list(int *ids, int max);
/*
 * Rule id in its canonical text form ("fail opcode=CREATE_CQ ... nth=2"),
 * which mlx5emu_fault_add() accepts back.  Returns the length of the full
 * text (as snprintf), or -ENOENT.
 */
int mlx5emu_fault_format(int id, char *buf, size_t len);
/* The message of this thread's last failed call ("" if none). */
const char *mlx5emu_fault_last_error(void);

/*
 * ---- Progress (MLX5EMU_1.1; docs/determinism.md) ----
 *
 * The emulated devices execute work on a thread of their own by default
 * (setting engine.mode=threaded).  With engine.mode=inline or
 * deterministic they have none: the provider's post, poll and get-event
 * calls move them, and so does this function, for programs that write
 * WQEs and ring doorbells only in memory (DEVX) and poll CQE memory
 * themselves.  In deterministic mode the devices' clock is virtual: a call
 * that finds nothing to run moves it to the next timer (an RNR or
 * transport retry) and runs that, so no run waits on wall-clock time.
 *
 * Runs one bounded pass of the device model on the calling thread (with a
 * thread of its own running, only if the device is free, else it nudges
 * that thread).  Returns how much work it did (>= 0): work requests
 * executed or flushed and packets sent, 0 when there was nothing to do.
 */
int mlx5emu_progress(void);

#ifdef __cplusplus
}
#endif

#endif /* MLX5EMU_MLX5EMU_H */
