/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/mana_queue.h -- the stateful queue engines of an emulated MANA
 * device: a completion queue writer (mana_cqs.c), the send queue walk
 * (mana_sq.c) and the receive queue's delivery (mana_rq.c).
 *
 * Rings, CQEs and data buffers are application memory: every access goes
 * through emu/mem, so memory the application unmapped gives a status, never
 * a crash.  No lock: one caller per queue at a time, and queues sharing a
 * CQ share that caller.  No allocation but in mana_sq_init, no syscall per
 * WQE or frame.  Conventions as mana.h:
 * 0 or a negative errno.
 */
#ifndef MLX5EMU_EMU_MANA_MANA_QUEUE_H
#define MLX5EMU_EMU_MANA_MANA_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/mana/mana.h"

/*
 * The device model's memory-key lookup: 0 if [addr, addr + len) lies in a
 * memory region with that lkey (with write access when write), a negative
 * errno otherwise.  Addresses are process virtual addresses.
 */
struct mana_mkeys {
	int (*check)(void *arg, uint32_t lkey, uint64_t addr, uint64_t len,
		     bool write);
	void *arg;
};

/*
 * The device model's data-path hooks (fault rules, the trace): a queue with
 * hooks (dp not NULL) calls them for every well-formed WQE it takes and
 * every CQE it writes.  Without, nothing is called.
 */
struct mana_dp_wqe {
	uint32_t wq_id;
	bool rq;
	uint32_t off;			/* the WQE's byte offset in the ring */
	const uint8_t *copy;		/* the WQE, SGL unwrapped (mana_wq_fetch) */
	const struct mana_wqe *w;	/* describes copy */
	uint32_t pkt_len;		/* receive: the frame's length */
};

struct mana_cqs;
struct mana_dp_hooks {
	/*
	 * A WQE about to be sent, or about to take a frame: true fails it
	 * with an error CQE of *type and *vendor_err instead (no frame sent,
	 * or the frame dropped; the WQE is consumed either way).
	 */
	bool (*wqe)(void *arg, const struct mana_dp_wqe *v, uint8_t *type,
		    uint32_t *vendor_err);
	/* A CQE just written: the cq's (cq->produced - 1)-th. */
	void (*cqe)(void *arg, const struct mana_cqs *cq,
		    const uint8_t cqe[MANA_CQE_SIZE]);
};

/* ---- completion queue (mana_cqs.c) ---- */

struct mana_cqs;
typedef void (*mana_cq_event_fn)(void *arg, struct mana_cqs *cq);

struct mana_cqs {
	uint8_t *ring;		/* application memory, count * 64 bytes */
	uint32_t count;		/* any count, not only powers of two */
	uint32_t id;
	uint64_t produced;	/* CQEs written (j of the next one) */
	bool armed;		/* one-shot: the event disarms */
	mana_cq_event_fn event;	/* called when a CQE lands on an armed CQ */
	void *event_arg;
	bool broken;		/* a CQE write faulted: nothing more is written */
	uint64_t faults;
};

void mana_cqs_init(struct mana_cqs *cq, void *ring, uint32_t count, uint32_t id,
		   mana_cq_event_fn event, void *event_arg);
/* Arm for one event (the CQ doorbell's arm bit) at the consumer's @head
 * (modulo count << MANA_CQE_OWNER_BITS): fires at once when CQEs past
 * @head were written already. */
void mana_cqs_arm(struct mana_cqs *cq, uint32_t head);
/*
 * Write the next CQE: 60 bytes of client data and the info dword, the
 * byte holding the owner bits last (emu_mem_publish).  -EFAULT when the
 * ring could not be written (the CQ is then broken), -EIO on a broken CQ.
 */
int mana_cqs_put(struct mana_cqs *cq, const uint8_t client[MANA_CQE_CLIENT],
		 uint32_t wq_num, bool is_sq);
/* The same, and the CQE's 64 bytes as written into cqe (when not NULL). */
int mana_cqs_put_copy(struct mana_cqs *cq, const uint8_t client[MANA_CQE_CLIENT],
		      uint32_t wq_num, bool is_sq, uint8_t cqe[MANA_CQE_SIZE]);

/* ---- reading a WQE out of application memory (mana_wq.c) ---- */

enum mana_fetch {
	MANA_FETCH_WQE,		/* *v is the verdict, copy holds the WQE */
	MANA_FETCH_NONE,	/* nothing (whole) posted past head: wait */
	MANA_FETCH_BAD_TAIL,	/* more posted than the ring holds: ignored */
	MANA_FETCH_FAULT,	/* the ring could not be read */
};

/*
 * Whether a doorbell's tail (bytes, free running) can be the producer's: at
 * most the ring's size past the consumer head.  A tail behind head reads as
 * almost 2^32 past it.
 */
static inline bool mana_wq_tail_ok(uint32_t head_bu, uint32_t tail,
				   uint32_t ring_size)
{
	return tail - head_bu * MANA_BU <= ring_size;
}

/*
 * Copy the WQE at head_bu of an application ring into copy (its SGL
 * unwrapped) and judge it with mana_wqe_read on the copy: w describes the
 * copy (w->off 0), *off is the WQE's byte offset in the ring.
 */
enum mana_fetch mana_wq_fetch(const uint8_t *ring, uint32_t ring_size,
			      enum mana_wq_kind kind, uint32_t head_bu,
			      uint32_t tail, uint8_t copy[MANA_SQ_WQE_MAX],
			      struct mana_wqe *w, enum mana_wqe_verdict *v,
			      uint32_t *off);

/* ---- send queue (mana_sq.c) ---- */

enum {
	/* The largest LSO payload and the headers in front of it. */
	MANA_LSO_PAYLOAD_MAX = 65536,
	MANA_LSO_HDR_MAX = 256,
	MANA_SQ_GATHER_MAX = MANA_LSO_PAYLOAD_MAX + MANA_LSO_HDR_MAX,
};

/* Why a queue stopped for good (until it is torn down). */
enum mana_wq_stop {
	MANA_WQ_RUNNING,
	MANA_WQ_STOP_BAD_WQE,	/* a WQE whose size cannot be determined */
	MANA_WQ_STOP_RING_FAULT,	/* the ring could not be read */
};

struct mana_sq_stats {
	uint64_t wqes;		/* consumed, good or not */
	uint64_t frames;	/* emitted */
	uint64_t bytes;
	uint64_t errors;	/* error CQEs */
	uint64_t suppressed;	/* WQEs that asked for no CQE */
	uint64_t bad_tail;	/* doorbells past head + ring size, ignored */
	uint64_t cqe_faults;	/* CQEs the CQ could not take */
	uint64_t injected;	/* WQEs a fault rule failed */
};

/* Called once per frame put on the wire; frame is valid during the call. */
typedef void (*mana_emit_fn)(void *arg, const uint8_t *frame, uint32_t len);

struct mana_sq {
	uint8_t *ring;		/* application memory */
	uint32_t ring_size;	/* bytes, a power of two */
	uint32_t id;
	uint32_t vp_offset;	/* tx_vp_offset the OOBs must name */
	uint32_t mtu;		/* IP MTU of the port */
	struct mana_cqs *cq;
	uint32_t head_bu;	/* consumer, basic units, free running */
	uint32_t tail;		/* last doorbell's tail, bytes, free running */
	enum mana_wq_stop stop;
	struct mana_sq_stats st;
	uint8_t *gather;	/* MANA_SQ_GATHER_MAX: the WQE's bytes */
	uint8_t *seg;		/* one frame on the wire */
	uint32_t seg_cap;
	const struct mana_dp_hooks *dp;	/* NULL: none */
	void *dp_arg;
};

/* ring_size a power of two of at least one basic unit; allocates the frame
 * buffers (-ENOMEM), -EINVAL for a bad size or mtu. */
int mana_sq_init(struct mana_sq *sq, void *ring, uint32_t ring_size,
		 uint32_t id, uint32_t vp_offset, uint32_t mtu,
		 struct mana_cqs *cq);
void mana_sq_fini(struct mana_sq *sq);
void mana_sq_doorbell(struct mana_sq *sq, uint32_t tail);
/*
 * Walk up to budget WQEs from head to the doorbell's tail: emit their
 * frames, write their CQEs.  Returns the WQEs consumed (0: nothing to do,
 * waiting for the producer, or stopped).
 */
unsigned int mana_sq_process(struct mana_sq *sq, unsigned int budget,
			     const struct mana_mkeys *mk, mana_emit_fn emit,
			     void *arg);

/* ---- receive queue (mana_rq.c) ---- */

/* What the device knows of a received frame besides its bytes. */
struct mana_rx_meta {
	uint32_t hash;
	uint16_t hashtype;	/* MANA_HASH_L3, MANA_HASH_L4 or 0 */
	bool vlan_present;	/* the caller stripped a tag already */
	uint16_t vlan_tci;
	bool ip_ok, ip_fail, tcp_ok, tcp_fail, udp_ok, udp_fail;
};

struct mana_rq_stats {
	uint64_t wqes;		/* consumed */
	uint64_t packets;	/* delivered whole */
	uint64_t bytes;
	uint64_t cqes;
	uint64_t no_wqe_drops;	/* no WQE posted */
	uint64_t truncated;	/* larger than the WQE's buffers */
	uint64_t buf_errors;	/* an SGE failed its mkey or faulted */
	uint64_t bad_wqes;	/* malformed WQEs (frame dropped) */
	uint64_t bad_tail;
	uint64_t cqe_faults;
	uint64_t injected;	/* frames a fault rule dropped */
};

struct mana_rq {
	uint8_t *ring;		/* application memory */
	uint32_t ring_size;
	uint32_t id;
	struct mana_cqs *cq;
	uint32_t head_bu;
	uint32_t tail;
	bool coalesce;		/* RX_COALESCED_4 CQEs (cqe_coalescing_enable) */
	bool strip_vlan;	/* strip a C-VLAN tag the caller left (default) */
	enum mana_wq_stop stop;
	struct mana_rq_stats st;
	struct mana_rx_cqe pend;	/* coalesced packets not yet written */
	const struct mana_dp_hooks *dp;	/* NULL: none */
	void *dp_arg;
};

int mana_rq_init(struct mana_rq *rq, void *ring, uint32_t ring_size,
		 uint32_t id, struct mana_cqs *cq);
void mana_rq_doorbell(struct mana_rq *rq, uint32_t tail);
/*
 * One frame into the next WQE and one CQE.  0 (delivered, or truncated
 * with RX_TRUNCATED), -ENOSPC (no WQE: dropped and counted), -EINVAL
 * (malformed WQE or frame: dropped), -EIO (the queue is stopped), -EFAULT
 * (the ring could not be read: the queue stops).
 */
int mana_rq_deliver(struct mana_rq *rq, const uint8_t *frame, uint32_t len,
		    const struct mana_rx_meta *meta, const struct mana_mkeys *mk);
/*
 * One frame into the next WQE, as mana_rq_deliver, but with coalescing on
 * its CQE may wait: packets that agree on the CQE's shared fields share
 * RX_COALESCED_4 CQEs (up to four each, one WQE each), written when the
 * fourth joins, when a packet that cannot join comes, or at
 * mana_rq_flush, which the caller owes the queue at the end of each pass.
 */
int mana_rq_receive(struct mana_rq *rq, const uint8_t *frame, uint32_t len,
		    const struct mana_rx_meta *meta, const struct mana_mkeys *mk);
void mana_rq_flush(struct mana_rq *rq);
/*
 * n frames through mana_rq_receive, then a flush.  Returns the frames
 * delivered; the others were dropped as mana_rq_deliver says.
 */
unsigned int mana_rq_deliver_burst(struct mana_rq *rq, const uint8_t *const *frames,
				   const uint32_t *lens,
				   const struct mana_rx_meta *metas, unsigned int n,
				   const struct mana_mkeys *mk);

#endif /* MLX5EMU_EMU_MANA_MANA_QUEUE_H */
