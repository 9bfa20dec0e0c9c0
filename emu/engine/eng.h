/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng.h -- the engine: it executes the work queues of every
 * emulated device of the process (see README.md).
 *
 * One engine per process.  A device joins it when the kernel layer brings
 * the device up and leaves before the device's firmware is destroyed; the
 * engine's thread starts with the first device (never from a library
 * constructor) and stops when the last leaves or at exit.  Any thread may
 * also drive it inline with emu_eng_progress().  Without a thread (inline
 * and deterministic modes) only those calls move it.
 *
 * Convention: 0 or a negative errno.
 */
#ifndef MLX5EMU_EMU_ENGINE_ENG_H
#define MLX5EMU_EMU_ENGINE_ENG_H

#include <stdbool.h>
#include <stdint.h>

struct emu_fw;
struct emu_wire_port;

/* How the engine runs (set before the first device joins). */
enum emu_eng_mode {
	EMU_ENG_THREADED,	/* its own thread, parked when idle (default) */
	EMU_ENG_INLINE,		/* no thread: only progress calls move it */
	/* no thread, and the device model's clock is virtual: timers fire
	 * when a progress call finds nothing else to run, so a run replays */
	EMU_ENG_DETERMINISTIC,
};

/* Reasons for a progress call (the backend's progress op passes them). */
enum emu_eng_why {
	EMU_ENG_WHY_DOORBELL = 1,	/* a doorbell was just rung */
	EMU_ENG_WHY_POLL = 2,		/* a CQ was polled and found empty */
	EMU_ENG_WHY_WAIT = 3,		/* the caller is about to block for an event */
	EMU_ENG_WHY_API = 4,		/* mlx5emu_progress() */
};

/*
 * Set the mode, and with it the clock (virtual, from 0, in deterministic
 * mode), while no device is joined.  0 (also for the mode in force while
 * devices are joined); -EBUSY (another mode while devices are joined),
 * -EINVAL.
 */
int emu_eng_set_mode(enum emu_eng_mode mode);
enum emu_eng_mode emu_eng_mode(void);

/*
 * Join a device (its firmware, @index its mlx5_N number) to the engine;
 * starts the engine thread on the first.  -ENOSPC (too many devices),
 * -EAGAIN (no thread could be started), -EEXIST.
 */
int emu_eng_device_add(struct emu_fw *fw, int index);
/* Leave: no engine pass touches the device once this returns (its wire
 * ports are destroyed with it). */
void emu_eng_device_remove(struct emu_fw *fw);

/*
 * Give a joined device's port (1-based) its wire: packets for GIDs no
 * device of this process owns leave through it, and frames it receives
 * are executed.  The engine owns @wp from then on, also on failure:
 * -ENOENT (no such device), -EINVAL (bad port, or it has one), -errno.
 */
int emu_eng_port_attach(struct emu_fw *fw, unsigned int port,
			struct emu_wire_port *wp);

/*
 * Inline progress: if the engine is free, run one bounded pass on this
 * thread; otherwise make sure whoever holds it runs another pass, waking
 * the engine thread if it is parked (a system call only then).  With a
 * thread, an empty poll runs a pass only when the thread is parked, and
 * then only every ENG_POLL_EVERY-th time (the thread finds the rest).
 * Without one every call runs a pass; in deterministic mode a call whose
 * pass finds nothing moves the clock to the next timer and runs again;
 * WAIT runs until nothing is left to do (timers included, bounded).
 * Returns the work done here (WQEs executed or flushed, packets sent;
 * 0: nothing to do).  Without a
 * thread and with a wire, a WAIT that finds nothing sleeps on the wire's
 * sockets for a few milliseconds at most and runs what came.
 */
unsigned int emu_eng_progress(unsigned int why);

/* Whether progress calls are what receives the wire's frames (no thread,
 * and a port has a wire): a waiter must call again rather than block. */
bool emu_eng_pumps_wire(void);

/* Stop the engine thread (no context is open, or the process exits), and
 * start it again (a context opens).  Inline progress works either way. */
void emu_eng_stop(void);
int emu_eng_start(void);
/* Whether the engine thread runs now. */
bool emu_eng_thread_running(void);

/* Whether the engine runs its own thread (the threaded mode). */
bool emu_eng_threaded(void);

/* Worst-case time an idle engine thread takes to notice work it is not
 * told about (memory-only doorbells), in microseconds, scheduling delays
 * of a loaded machine aside. */
unsigned int emu_eng_max_pickup_us(void);

/* ---- the wire's counters ---- */

/* What a QP counted on the wire and in its transport (mlx5emu's own
 * per-QP counters; QUERY_Q_COUNTER keeps the ConnectX ones). */
struct emu_eng_qp_stats {
	uint32_t qpn;
	uint8_t st;			/* MLX5_QPC_ST_* */
	uint64_t tx_pkts, rx_pkts;	/* packets (in process: messages) */
	uint64_t retransmits;		/* messages sent again, in part */
	uint64_t naks_sent, naks_rcvd;	/* NAKs but RNR; RNR NAKs received */
	uint64_t rnr_naks_rcvd;
	uint64_t duplicates;		/* requests and responses seen twice */
	uint64_t dropped;		/* packets no state machine took */
	uint64_t timeouts;		/* transport timer expiries */
};

struct emu_wire_port_stats;

/* Where the counters go: each QP's as it leaves the engine (destroyed,
 * reset), and everything on emu_eng_stats_flush(). */
struct emu_eng_stats_sink {
	void (*qp)(void *arg, int dev, const struct emu_eng_qp_stats *s);
	void (*port)(void *arg, int dev, unsigned int port,
		     const struct emu_wire_port_stats *s);
	void *arg;
};

/* Installs the sink (NULL removes it); it must outlive the engine. */
void emu_eng_set_stats_sink(const struct emu_eng_stats_sink *sink);
/* Every attached QP and every port reports to the sink now. */
void emu_eng_stats_flush(void);
/*
 * A device's interrupt: the engine calls it after writing an EQE into an
 * armed EQ of the device (which disarms the EQ, as an MSI-X vector
 * fires), with the EQ's eqc.intr.  It runs on whatever thread runs the
 * engine, holding the engine's run lock: it must not call the engine nor
 * issue commands.  NULL removes it; -ENODEV: not a device of the engine.
 */
typedef void (*emu_eng_irq_fn)(void *arg, unsigned int vector);
int emu_eng_set_irq(struct emu_fw *fw, emu_eng_irq_fn fn, void *arg);

/* Events on demand (fault injection). */
enum emu_eng_inject {
	EMU_ENG_INJECT_QP_FATAL,	/* WQ_CATAS_ERROR; the QP to ERR */
	EMU_ENG_INJECT_CQ_OVERRUN,	/* the CQ overruns: error, CQ_ERROR */
	EMU_ENG_INJECT_SRQ_LIMIT,	/* SRQ_RQ_LIMIT; the limit disarmed */
	EMU_ENG_INJECT_DEVICE_FATAL,	/* nothing executes or completes */
};

/*
 * Raise @what on object @id (QPN, CQN, SRQN; ignored for the device) of
 * device @fw now.  0, -ENODEV (no such device), -ENOENT (no such object),
 * -EINVAL (a QP in RST or a DCT, a CQ already in error).
 */
int emu_eng_inject(struct emu_fw *fw, enum emu_eng_inject what, uint32_t id);

/* ---- the data path's hooks: fault rules and the WQE/CQE trace ---- */

/* A work request the engine is about to execute (a send WQE) or a message
 * took (a receive WQE), a new send queue doorbell, or a CQ arm request
 * (doorbell and cq_arm: CQ cqn, no QP). */
struct emu_eng_wqe {
	int dev;			/* mlx5_<dev> */
	uint32_t qpn;
	bool rq, doorbell;
	bool cq_arm;
	uint32_t cqn;
	uint16_t wqe_counter;		/* SQ: WQEBB index; RQ: the CQE's */
	uint16_t pi;			/* doorbell: the producer counter */
	uint8_t opcode, opmod, ds, fm_ce_se;	/* send: the ctrl segment */
	uint32_t imm;			/* raw ctrl.imm */
	uint32_t len;			/* message length */
	bool has_raddr;			/* RDMA and atomics: */
	uint64_t raddr;
	uint32_t rkey;
	uint32_t srqn;			/* RQ: the SRQ it came from, 0: RQ */
	bool inl;			/* send: the data is inline */
	unsigned int nsge;
	const struct emu_eng_sge { uint32_t len, lkey; uint64_t addr; } *sge;
};

/* What the fault rules say of it. */
struct emu_eng_verdict {
	bool error;			/* an error CQE of this syndrome */
	uint8_t syndrome, vendor;
	uint32_t delay_us;		/* its CQE so much later */
	bool drop;			/* a doorbell or an arm: lost */
};

/* A CQE as written (after a delay, when it is written). */
struct emu_eng_cqe {
	int dev;
	uint32_t cqn;
	uint32_t index;			/* the CQ's producer counter */
	const uint8_t *cqe64;		/* the 64 bytes, as in the ring */
};

/*
 * The kernel layer's hooks, called by whoever runs the engine, holding its
 * run lock (they must not call the engine nor issue commands): @verdict
 * for every work request and new doorbell while faults are on (true: *v
 * says what to do), @trace_wqe and @trace_cqe while the trace is on.
 */
struct emu_eng_dp_hooks {
	bool (*verdict)(void *arg, const struct emu_eng_wqe *w,
			struct emu_eng_verdict *v);
	void (*trace_wqe)(void *arg, const struct emu_eng_wqe *w);
	void (*trace_cqe)(void *arg, const struct emu_eng_cqe *c);
	void *arg;
};

enum {
	EMU_ENG_DP_FAULTS = 1u << 0,	/* ask verdict */
	EMU_ENG_DP_TRACE = 1u << 1,	/* call trace_wqe and trace_cqe */
};

/* Installs the hooks (NULL removes them); they must outlive the engine. */
void emu_eng_set_dp_hooks(const struct emu_eng_dp_hooks *hooks);
/* Switches EMU_ENG_DP_* on or off.  All off, the data path pays one
 * relaxed atomic load a pass. */
void emu_eng_dp_enable(unsigned int what, bool on);

#endif /* MLX5EMU_EMU_ENGINE_ENG_H */
