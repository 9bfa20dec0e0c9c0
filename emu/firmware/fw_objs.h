/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_objs.h -- firmware objects as the rest of the device model
 * (engines, the emulated kernel) sees them.
 *
 * Objects live in per-type lock-free hash tables (liburcu cds_lfht, the
 * bulletproof flavour: any thread may look up without registering).
 *
 * Lifetime, in three counts:
 *  - a reference (urcu_ref): keeps the memory; the table holds one while
 *    the object is published; emu_fw_obj_get() takes one, emu_fw_obj_put()
 *    drops it; the memory is freed after an RCU grace period once the last
 *    is gone;
 *  - users: how many other objects use this one (a CQ uses its EQ, UAR and
 *    umems; an mkey its PD and umem).  An object with users cannot be
 *    destroyed; a user holds no reference, the use keeps it published;
 *  - a destroyed object is first marked dying (users = -1), then removed
 *    from its table, then drops the uses it held.  Lookups never return a
 *    dying object.  Nothing it points to is cleared: a reader that found
 *    it keeps what it loaded.
 *
 * Inside emu_fw_rcu_lock()/emu_fw_rcu_unlock() (urcu_bp_read_lock/unlock,
 * plus ThreadSanitizer annotations) an engine may use
 * emu_fw_obj_lookup_rcu() and dereference the result (and the objects it
 * points to, and the application memory they describe) until it unlocks,
 * without taking a reference.  A destroy (DESTROY_CQ, DESTROY_UMEM, ...)
 * of an object through which memory is reached (umem, mkey, EQ, CQ, SRQ,
 * QP, UAR, SQ, RQ, RQT, TIR) answers only after a grace period: when the
 * command returns, no reader still holds the object or its memory, and
 * the application may free that memory.  Destroys wait with no firmware
 * lock held, so a reader may take an object's lock inside its read side;
 * a reader must never wait for a command.
 */
#ifndef MLX5EMU_FW_OBJS_H
#define MLX5EMU_FW_OBJS_H

#include <endian.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The bulletproof flavour with liburcu's name mapping (rcu_read_lock() is
 * urcu_bp_read_lock(), call_rcu() is urcu_bp_call_rcu()).  Include this
 * header before any other liburcu header. */
#include <urcu-bp.h>
#include <urcu/rculfhash.h>
#include <urcu/ref.h>

#include "emu/base/sanitizer.h"
#include "prm/prm_cmd.h"

struct emu_fw;

/*
 * ThreadSanitizer cannot see liburcu's grace periods (the library is not
 * instrumented): read sides release a sync object on unlock and the
 * deferred free acquires it, which is the order a grace period guarantees.
 */
#ifdef EMU_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
extern char emu_fw_rcu_tsan_sync;
#define EMU_FW_TSAN_RELEASE() __tsan_release(&emu_fw_rcu_tsan_sync)
#define EMU_FW_TSAN_ACQUIRE() __tsan_acquire(&emu_fw_rcu_tsan_sync)
#else
#define EMU_FW_TSAN_RELEASE() ((void)0)
#define EMU_FW_TSAN_ACQUIRE() ((void)0)
#endif

static inline void emu_fw_rcu_lock(void)
{
	rcu_read_lock();
}

static inline void emu_fw_rcu_unlock(void)
{
	EMU_FW_TSAN_RELEASE();
	rcu_read_unlock();
}

/*
 * What liburcu needs around fork() (its README, "Interaction with fork()")
 * for the bulletproof flavour and its call_rcu worker, in the order they
 * must run: the registrar of the process's fork handlers passes these three
 * to pthread_atfork().  Without them a child runs none of the deferred
 * frees its parent queued or it queues itself, and rcu_barrier() never
 * returns there.
 */
void emu_fw_rcu_before_fork(void);
void emu_fw_rcu_after_fork_parent(void);
void emu_fw_rcu_after_fork_child(void);

enum emu_fw_obj_type {
	EMU_FW_OBJ_UCTX,	/* id = uid */
	EMU_FW_OBJ_UMEM,
	EMU_FW_OBJ_PD,
	EMU_FW_OBJ_TD,		/* transport domain */
	EMU_FW_OBJ_UAR,
	EMU_FW_OBJ_MKEY,	/* id = mkey index (mkey >> 8) */
	EMU_FW_OBJ_EQ,
	EMU_FW_OBJ_CQ,
	EMU_FW_OBJ_Q_COUNTER,
	EMU_FW_OBJ_FLOW_COUNTER,
	EMU_FW_OBJ_XRCD,	/* XRC domain */
	EMU_FW_OBJ_SRQ,		/* SRQs, XRC SRQs and RMPs: one number space */
	EMU_FW_OBJ_QP,		/* QPs and DCTs: one number space (QPN) */
	/* Ethernet queues (fw_eth_*.c). */
	EMU_FW_OBJ_TIS,		/* id = tisn */
	EMU_FW_OBJ_SQ,		/* id = sqn */
	EMU_FW_OBJ_RQ,		/* id = rqn */
	EMU_FW_OBJ_RQT,		/* id = rqtn */
	EMU_FW_OBJ_TIR,		/* id = tirn */
	/* NIC flow steering: entries live in their table. */
	EMU_FW_OBJ_FLOW_TABLE,
	EMU_FW_OBJ_FLOW_GROUP,
	EMU_FW_OBJ_NTYPES
};

struct emu_fw_obj {
	struct cds_lfht_node node;
	struct rcu_head rcu;
	struct urcu_ref ref;
	struct emu_fw *fw;
	uint32_t id;
	uint16_t uid;		/* owner: 0 = kernel */
	uint8_t type;		/* enum emu_fw_obj_type */
	atomic_int users;	/* < 0: dying */
	struct emu_fw_obj *uctx;	/* user context charged (uid != 0) */
};

/* Name of a type ("CQ"). */
const char *emu_fw_obj_type_name(enum emu_fw_obj_type type);

/*
 * Look up a live object and take a reference (drop it with emu_fw_obj_put).
 * NULL if there is none.  Any thread, no lock needed.
 */
struct emu_fw_obj *emu_fw_obj_get(struct emu_fw *fw,
				  enum emu_fw_obj_type type, uint32_t id);
void emu_fw_obj_put(struct emu_fw_obj *obj);

/* Caller is inside emu_fw_rcu_lock(); no reference is taken. */
struct emu_fw_obj *emu_fw_obj_lookup_rcu(struct emu_fw *fw,
					 enum emu_fw_obj_type type,
					 uint32_t id);

/*
 * Call fn on every live object of a type, under the RCU read lock (fn must
 * not block or call emu_fw_cmd_exec).  Stops at the first non-zero return,
 * which is returned.
 */
int emu_fw_obj_for_each(struct emu_fw *fw, enum emu_fw_obj_type type,
			int (*fn)(struct emu_fw_obj *obj, void *arg),
			void *arg);
/* Number of live objects of a type. */
unsigned int emu_fw_obj_count(struct emu_fw *fw, enum emu_fw_obj_type type);

/* ---- the objects ---- */

struct emu_fw_uctx {
	struct emu_fw_obj obj;	/* users = objects (and umems) of this uid */
	uint32_t cap;		/* uctx.cap as created */
};

/* What the MTT entries of a umem allow the device (rd_en, wr_en). */
enum {
	EMU_FW_UMEM_READ = 1 << 0,	/* MLX5_IB_MTT_READ */
	EMU_FW_UMEM_WRITE = 1 << 1,	/* MLX5_IB_MTT_WRITE */
};

/*
 * A umem as CREATE_UMEM described it: num_of_mtt pages of (1 << page_shift)
 * bytes, the first page_offset bytes of the first one not included.  The
 * pages are one virtually contiguous range here (addr, size), and every
 * MTT entry carries the same rights (access).
 */
struct emu_fw_umem {
	struct emu_fw_obj obj;
	uint8_t *addr;
	size_t size;
	unsigned int page_shift;
	uint8_t access;		/* EMU_FW_UMEM_* */
};

/* The device may write the umem (its MTT entries carry wr_en). */
static inline bool emu_fw_umem_writable(const struct emu_fw_umem *umem)
{
	return umem->access & EMU_FW_UMEM_WRITE;
}

/*
 * A memory range the device reaches: a resolved queue buffer, doorbell
 * record or mkey backing.  umem is the registration it lies in (this range
 * holds a use on it).
 */
struct emu_fw_buf {
	struct emu_fw_umem *umem;
	uint8_t *addr;
	size_t len;
};

struct emu_fw_pd {
	struct emu_fw_obj obj;
};

struct emu_fw_td {
	struct emu_fw_obj obj;
};

/* 8-byte doorbell places of a UAR page: the CQ doorbell (0x20), then both
 * halves of each of the 4 BlueFlame registers from 0x800. */
#define EMU_FW_UAR_DB_PLACES 9

struct emu_fw_uar {
	struct emu_fw_obj obj;	/* id = UAR page index */
	/* The page as the device sees it (the kernel layer maps it and sets
	 * it with emu_fw_uar_set_page; NULL until then): doorbells and
	 * BlueFlame writes land here. */
	void *_Atomic page;
	/* Engine-owned (its run lock): the value last seen at each doorbell
	 * place, so that only a new one is news. */
	struct {
		uint64_t seen[EMU_FW_UAR_DB_PLACES];
	} hw;
};

/*
 * Give UAR @index its page (a 4 KiB mapping the caller keeps until the UAR
 * is deallocated).  -ENOENT if no such UAR is live.
 */
int emu_fw_uar_set_page(struct emu_fw *fw, uint32_t index, void *page);

/* mkc access bits, as in the PRM mkc (lr, lw, rr, rw, a). */
enum {
	EMU_FW_MKEY_LR = 1 << 0,
	EMU_FW_MKEY_LW = 1 << 1,
	EMU_FW_MKEY_RR = 1 << 2,
	EMU_FW_MKEY_RW = 1 << 3,
	EMU_FW_MKEY_A = 1 << 4,
};

struct emu_fw_mkey {
	struct emu_fw_obj obj;
	struct emu_fw_pd *pd;
	struct emu_fw_buf mem;	/* backing of [start_addr, start_addr+len) */
	uint64_t start_addr;	/* iova of the first byte */
	uint64_t len;
	bool length64;		/* covers the whole 64-bit space */
	uint8_t key;		/* mkey_7_0 */
	uint8_t access;		/* EMU_FW_MKEY_* */
	uint32_t qpn;		/* mkc.qpn (0xffffff: any) */
	uint8_t mkc[64];	/* mkc as created, for QUERY_MKEY */
	/*
	 * A KLM mkey (a memory window, or mlx5dv_create_mkey's indirect
	 * mkey): created free with umr_en, it translates nothing until a UMR
	 * WQE gives it a translation: [start_addr, start_addr + len) maps,
	 * in order, onto the entries of klms (each [addr, addr + bcount) of
	 * the direct mkey named by mkey), the whole list repeat times when
	 * repeat is not 0, entry i then advancing by stride each time.  A
	 * window's bind leaves one entry.  The state (free, key, qpn, access,
	 * start_addr, len, the translation) changes only in an engine pass
	 * (emu_fw_mkey_umr, emu_fw_mkey_invalidate).
	 */
	bool indirect;		/* access mode KLMs */
	bool umr_en;		/* UMR WQEs may change it */
	bool free;		/* no access through it */
	bool rinval;		/* en_rinval: SEND_WITH_INV may free it */
	bool window;		/* last given its translation by a window bind */
	uint32_t max_klm;	/* translations_octword_size */
	uint32_t nklm;		/* entries of klms in use */
	uint32_t repeat;	/* 0: a plain list; else the repeat count */
	uint64_t block;		/* sum of the entries' bcount */
	struct emu_fw_klm {
		uint32_t mkey;
		uint32_t bcount;
		uint64_t addr;
		uint32_t stride;	/* repeat: advance per repetition */
	} *klms;		/* max_klm entries */
};

/* The full 32-bit key of an mkey object. */
static inline uint32_t emu_fw_mkey_key(const struct emu_fw_mkey *mk)
{
	return mk->obj.id << 8 | mk->key;
}

struct emu_fw_eq {
	struct emu_fw_obj obj;	/* id = eq_number */
	atomic_uint pi;		/* EQEs written (engine-owned) */
	struct emu_fw_uar *uar;
	struct emu_fw_buf buf;	/* (1 << log_size) EQEs of 64 bytes */
	uint8_t log_size;
	uint16_t intr;
	uint64_t event_bitmask[4];	/* bit n of [i]: event type 64*i+n */
	uint8_t eqc[64];	/* eqc as created */
	/*
	 * Engine-owned (its run lock): the consumer counter and arm state
	 * the EQ doorbell (UAR 0x40 arm, 0x48 update) last told, the words
	 * last seen there, and the EQEs lost because the EQ was full.
	 */
	struct {
		uint32_t ci;
		bool armed;
		uint32_t db_seen[2];
		atomic_uint lost;
	} hw;
};

struct emu_fw_cq {
	struct emu_fw_obj obj;	/* id = cqn */
	pthread_mutex_t lock;	/* serialises MODIFY/QUERY of cqc */
	struct emu_fw_eq *_Atomic eq;	/* c_eqn */
	struct emu_fw_uar *uar;
	/* (1 << log_size) CQEs of cqe_size bytes; a resize replaces buf and
	 * log_size under the engine's run lock (read them holding it). */
	struct emu_fw_buf buf;
	struct emu_fw_buf dbr;	/* 8 bytes: set_ci, arm */
	uint8_t log_size;
	uint16_t cqe_size;	/* 64 or 128 */
	atomic_uint cq_period;	/* moderation, microseconds */
	atomic_uint cq_max_count;
	atomic_uint cq_period_mode;
	atomic_bool oi;		/* overrun ignore */
	bool cc;		/* collapsed CQ */
	uint8_t cqc[64];	/* cqc as created/modified, for QUERY_CQ */
	/*
	 * Engine-owned state, reported by QUERY_CQ: CQEs written (the
	 * producer counter), the CQ's error state (an overrun), the arm
	 * request taken (the doorbell record's sn << 28 | cmd | ci), whether
	 * it is armed, and whether it fired (an event since the last arm).
	 * The rest only the engine reads, under its run lock: the 2-bit arm
	 * sequence an arm must carry to be taken (events raised, mod 4), the
	 * arm word last looked at (the doorbell record at create, then as
	 * the engine saw it), whether the request of that word was seen in
	 * the record only (its doorbell is still to come) and whether a
	 * fault rule lost it, the producer counter just past the last
	 * solicited or error CQE, and the moderation state (CQEs and the
	 * period's start since the last event, the time a moderated event is
	 * due).  engine: the engine's entry of the CQ, or NULL.
	 */
	struct {
		atomic_uint pi;
		atomic_bool error;
		atomic_uint arm_cmd;
		atomic_bool armed;
		atomic_bool fired;
		uint32_t sn;
		uint32_t arm_seen;
		bool arm_db_due, arm_lost;
		uint32_t sol_pi;
		bool have_sol;
		uint32_t mod_count;
		uint64_t mod_start_ns;
		uint64_t mod_due_ns;
		void *engine;
	} hw;
};

/* The queue counters QUERY_Q_COUNTER reports, engine-incremented. */
enum emu_fw_q_cnt {
	EMU_FW_QCNT_RX_WRITE_REQUESTS,
	EMU_FW_QCNT_RX_READ_REQUESTS,
	EMU_FW_QCNT_RX_ATOMIC_REQUESTS,
	EMU_FW_QCNT_OUT_OF_BUFFER,
	EMU_FW_QCNT_OUT_OF_SEQUENCE,
	EMU_FW_QCNT_DUPLICATE_REQUEST,
	EMU_FW_QCNT_RNR_NAK_RETRY_ERR,
	EMU_FW_QCNT_PACKET_SEQ_ERR,
	EMU_FW_QCNT_IMPLIED_NAK_SEQ_ERR,
	EMU_FW_QCNT_LOCAL_ACK_TIMEOUT_ERR,
	EMU_FW_QCNT_RESP_LOCAL_LENGTH_ERROR,
	EMU_FW_QCNT_REQ_LOCAL_LENGTH_ERROR,
	EMU_FW_QCNT_RESP_LOCAL_PROTECTION,
	EMU_FW_QCNT_REQ_LOCAL_PROTECTION,
	EMU_FW_QCNT_RESP_CQE_ERROR,
	EMU_FW_QCNT_REQ_CQE_ERROR,
	EMU_FW_QCNT_REQ_REMOTE_INVALID_REQUEST,
	EMU_FW_QCNT_RESP_REMOTE_INVALID_REQUEST,
	EMU_FW_QCNT_REQ_REMOTE_ACCESS_ERRORS,
	EMU_FW_QCNT_RESP_REMOTE_ACCESS_ERRORS,
	EMU_FW_QCNT_REQ_TRANSPORT_RETRIES_EXCEEDED,
	EMU_FW_QCNT_CQ_OVERFLOW,
	EMU_FW_QCNT_RESP_CQE_FLUSH_ERROR,
	EMU_FW_QCNT_REQ_CQE_FLUSH_ERROR,
	EMU_FW_QCNT_REQ_RNR_RETRIES_EXCEEDED,
	EMU_FW_QCNT_REQ_REMOTE_OPERATION_ERRORS,
	EMU_FW_QCNT_LOCAL_OPERATION_ERROR,	/* local QP operation errors */
	EMU_FW_QCNT_RESP_LOCAL_QP_ERROR,
	EMU_FW_QCNT_NUM
};

struct emu_fw_q_counter {
	struct emu_fw_obj obj;	/* id = counter_set_id */
	atomic_uint_fast32_t cnt[EMU_FW_QCNT_NUM];
};

static inline void emu_fw_q_counter_add(struct emu_fw_q_counter *qc,
					enum emu_fw_q_cnt which, uint32_t n)
{
	atomic_fetch_add_explicit(&qc->cnt[which], n, memory_order_relaxed);
}

struct emu_fw_flow_counter {
	struct emu_fw_obj obj;	/* id = flow_counter_id */
	atomic_uint_fast64_t packets;
	atomic_uint_fast64_t octets;
};

/* ---- queues: XRC domains, SRQs, QPs and DCTs (fw_xrcd.c, fw_srq*.c,
 * fw_xrc_srq.c, fw_rmp.c, fw_qp*.c, fw_dct.c) ----
 *
 * What the engines need to execute work requests, fixed at create unless
 * said otherwise:
 *  - queue geometry: the ring (a resolved umem/page-list range), the number
 *    of WQEs and the stride, and the doorbell record (QP: dbr[0] receive
 *    counter, dbr[1] send counter; SRQ: dbr[0]), both big-endian as the
 *    application writes them; both are application memory, which the
 *    device model reads only through the checked access layer (a page may
 *    be unmapped under it);
 *  - the state, an atomic the engines read without a lock and move to the
 *    error states through emu_fw_qp_set_state()/emu_fw_srq_set_error();
 *  - the objects used: PD, CQs, SRQ, XRC domain, UAR, queue counter: each
 *    holds a use, so none goes away while the queue exists; the _Atomic
 *    ones may be replaced by a transition (RTS2RTS) or be NULL (not given):
 *    load them once, check for NULL, and use what was loaded inside the
 *    RCU read side (a replaced or released one stays readable until then);
 *  - the connection attributes the transitions set (struct emu_fw_qp_attr):
 *    copied out with emu_fw_qp_get_attr(), which also returns a generation
 *    number bumped by every transition, so an engine may cache them.
 */

struct emu_fw_xrcd {
	struct emu_fw_obj obj;	/* id = xrcd number */
};

/* A ring of WQEs: (1 << log_cnt) entries of (1 << log_stride) bytes. */
struct emu_fw_ring {
	uint8_t *addr;		/* NULL: the queue does not exist */
	uint32_t cnt;		/* number of WQEs (0: none) */
	uint8_t log_cnt;
	uint8_t log_stride;	/* SQ: 6 (WQE basic blocks of 64 bytes) */
};

/*
 * The address of WQE idx (wraps) of a ring: application memory, to be read
 * through the checked access layer only, never dereferenced here.
 */
static inline void *emu_fw_ring_wqe(const struct emu_fw_ring *r, uint32_t idx)
{
	return r->addr + ((size_t)(idx & (r->cnt - 1)) << r->log_stride);
}

enum {
	EMU_FW_DBR_RCV = 0,	/* MLX5_RCV_DBR: receive WQE counter */
	EMU_FW_DBR_SND = 1,	/* MLX5_SND_DBR: send WQE counter */
};

enum emu_fw_srq_kind {
	EMU_FW_SRQ_BASIC,	/* CREATE_SRQ (srqc) */
	EMU_FW_SRQ_XRC,		/* CREATE_XRC_SRQ (xrc_srqc) */
	EMU_FW_SRQ_RMP,		/* CREATE_RMP (rmpc, linked-list wq) */
};

struct emu_fw_srq {
	struct emu_fw_obj obj;	/* id = srqn = xrc_srqn = rmpn */
	uint8_t kind;		/* enum emu_fw_srq_kind */
	pthread_mutex_t lock;	/* serialises ARM/MODIFY/QUERY of the context */
	struct emu_fw_pd *pd;
	struct emu_fw_cq *cq;	/* XRC SRQ: where XRC receives complete
				 * (basic SRQ: the cqn given, if any) */
	struct emu_fw_xrcd *xrcd;	/* XRC SRQ (basic SRQ: if given) */
	struct emu_fw_buf buf;	/* the ring's memory */
	struct emu_fw_buf dbr;	/* dbr[0]: WQE counter */
	struct emu_fw_ring ring;	/* linked-list WQEs: next-segment first */
	uint32_t user_index;	/* XRC SRQ: reported in CQEs */
	/* MLX5_SRQC_STATE_GOOD/ERROR (RMP: MLX5_RMPC_STATE_RDY/ERR). */
	atomic_uint state;
	/* Limit watermark: 0 disarmed; the engine fires SRQ_RQ_LIMIT once when
	 * fewer WQEs remain (emu_fw_srq_limit_fire). */
	atomic_uint lwm;
	atomic_uint wqe_cnt;	/* srqc.wqe_cnt when the record is unreadable */
	bool cyclic;		/* RMP wq_type cyclic: no next segments */
	/* Engine-owned: the next WQE to use (linked list: its index) and
	 * how many WQEs were consumed (QUERY: wqe_cnt = dbr[0] - counter). */
	struct {
		atomic_uint head;
		atomic_uint counter;
	} hw;
	uint8_t ctx[240];	/* context as created/modified (rmpc's size) */
};

/* The path a transition sets (ads), decoded. */
struct emu_fw_qp_path {
	uint8_t port;		/* vhca_port_num, 1-based */
	uint16_t pkey_index;
	bool fl;		/* force loopback: no address, this device */
	bool grh;
	uint8_t sgid_index;	/* src_addr_index: our GID table entry */
	uint8_t rgid[16];	/* destination GID (rgid_rip) */
	uint8_t rmac[6];	/* destination MAC */
	uint8_t hop_limit, tclass, stat_rate, sl, eth_prio, dscp, ecn;
	uint32_t flow_label;
	uint16_t udp_sport;	/* RoCE v2 source port (0: the device picks) */
	uint8_t ack_timeout;	/* 4.096us << ack_timeout (0: infinite) */
};

/* The connection attributes (qpc/dctc), as the last transition left them. */
struct emu_fw_qp_attr {
	uint8_t mtu;		/* MLX5_QPC_MTU_*: 256 << (mtu - 1) bytes */
	uint8_t log_msg_max;
	uint32_t remote_qpn;
	uint32_t next_send_psn;	/* the SQ's first PSN (RTR2RTS) */
	uint32_t next_rcv_psn;	/* the expected PSN (INIT2RTR) */
	uint32_t q_key;		/* UD */
	uint8_t retry_count, rnr_retry;
	uint8_t min_rnr_nak;	/* RNR NAK timer code */
	uint8_t log_sra_max, log_rra_max;	/* outstanding reads/atomics */
	uint8_t log_ack_req_freq;
	bool rre, rwe, rae;	/* remote read/write/atomic enabled */
	uint8_t atomic_mode;
	uint8_t pm_state;
	uint8_t lag_tx_port_affinity;
	struct emu_fw_qp_path pri, alt;
	uint64_t dc_access_key;	/* DCT */
};

enum emu_fw_qp_kind {
	EMU_FW_QP_KIND_QP,	/* CREATE_QP: RC, UC, UD, XRC (ini/tgt), DCI */
	EMU_FW_QP_KIND_DCT,	/* CREATE_DCT */
	EMU_FW_QP_KIND_DC_CONN,	/* a DCT's connection (engine-owned) */
};

/* qpc.rq_type, by the names the engines use (the numbers: prm_cmd.h). */
enum {
	EMU_FW_RQ_REGULAR = MLX5_NON_ZERO_RQ,
	EMU_FW_RQ_SRQ = MLX5_SRQ_RQ,
	EMU_FW_RQ_ZERO = MLX5_ZERO_LEN_RQ,
};

struct emu_fw_qp {
	struct emu_fw_obj obj;	/* id = qpn (or dctn) */
	uint8_t kind;		/* enum emu_fw_qp_kind */
	uint8_t st;		/* MLX5_QPC_ST_* (QPs) */
	bool xrc_tgt;		/* XRC with no SQ: the receive side */
	uint8_t rq_type;	/* EMU_FW_RQ_* */
	pthread_mutex_t lock;	/* serialises transitions, QUERY, uses */
	/* MLX5_QPC_STATE_* (DCT: MLX5_DCTC_STATE_*); release on change. */
	atomic_uint state;
	atomic_uint gen;	/* bumped by every transition */
	struct emu_fw_pd *pd;
	struct emu_fw_cq *_Atomic cq_snd;	/* NULL: no send queue */
	struct emu_fw_cq *_Atomic cq_rcv;	/* DCT: its cqn */
	struct emu_fw_srq *_Atomic srq;		/* rq_type SRQ, DCT */
	struct emu_fw_xrcd *xrcd;		/* XRC */
	struct emu_fw_uar *uar;
	struct emu_fw_q_counter *_Atomic counter;
	struct emu_fw_buf buf;	/* RQ then SQ, as libmlx5 lays them out */
	struct emu_fw_buf dbr;
	struct emu_fw_ring sq;	/* 64-byte basic blocks */
	struct emu_fw_ring rq;	/* 16 << log_rq_stride bytes per WQE */
	uint32_t user_index;	/* reported in CQEs (cqe_version 1) */
	uint8_t ts_format;	/* its CQEs' timestamps (MLX5_TIMESTAMP_FORMAT_*) */
	uint32_t ece;		/* the ECE options in force (under lock) */
	struct emu_fw_qp_attr attr;	/* under lock; see emu_fw_qp_get_attr */
	/* Engine-owned progress, reported by QUERY_QP: WQE basic blocks and
	 * receive WQEs consumed, the next PSN to send and the PSN expected.
	 * The transitions that take a PSN set it; a reset clears them. */
	struct {
		atomic_uint sq_wqebb_counter;
		atomic_uint rq_counter;
		atomic_uint sq_psn;
		atomic_uint rq_psn;
	} hw;
	/* The engine's state of this QP (owned and changed by the engine
	 * under its run lock; NULL while the engine does not run it). */
	void *engine;
	/* DCT only. */
	atomic_uint dct_key_violations;	/* dc_access_key_violation_count */
	atomic_bool dct_key_armed;	/* ARM_DCT_FOR_KEY_VIOLATION */
	atomic_bool dct_drained_event;	/* DRAIN_DCT done, event not raised */
	uint8_t ctx[232];	/* qpc (or dctc) as set, for QUERY */
};

/* Current state (MLX5_QPC_STATE_*; DCT: MLX5_DCTC_STATE_*). */
static inline unsigned int emu_fw_qp_state(const struct emu_fw_qp *qp)
{
	return atomic_load_explicit(&qp->state, memory_order_acquire);
}

/*
 * Copy the connection attributes; *gen (may be NULL) gets the generation
 * they belong to.  Takes the QP's lock (allowed inside an RCU read side:
 * commands wait for readers only with no lock held).
 */
void emu_fw_qp_get_attr(struct emu_fw_qp *qp, struct emu_fw_qp_attr *attr,
			unsigned int *gen);

/*
 * What the engines may do to a QP's state: move it to ERR (from any state
 * but RST), to SQER (UD/UC/XRC-less unreliable types, from RTS: a send
 * error), to SQD (from RTS or SQD: no command enters SQD on this device,
 * RTS2SQD has no public layout; engines and tests may).  0, or -EINVAL for
 * a move the QP cannot make (nothing changes).  Commands and engines
 * serialise on the QP's lock.
 */
int emu_fw_qp_set_state(struct emu_fw_qp *qp, unsigned int state);

/*
 * DCT events: a dc_access_key violation (counted; true if the DCT was armed
 * by ARM_DCT_FOR_KEY_VIOLATION, which the caller reports with a
 * DCT_KEY_VIOLATION event and which disarms it); a finished DRAIN_DCT (true
 * once per drain: raise DCT_DRAINED).
 */
bool emu_fw_dct_key_violation(struct emu_fw_qp *dct);
bool emu_fw_dct_take_drained(struct emu_fw_qp *dct);

/*
 * A DCT's responder context for one initiator (the DCI @peer_qpn at
 * @peer_gid), expecting PSN @psn: an RC responder QP in RTS in @conn, the
 * caller's memory, never published.  fini when the caller lets it go,
 * before the DCT is released.
 */
void emu_fw_dct_conn_init(const struct emu_fw_qp *dct, struct emu_fw_qp *conn,
			  const uint8_t peer_gid[16], uint32_t peer_qpn,
			  uint32_t psn);
void emu_fw_dct_conn_fini(struct emu_fw_qp *conn);

/*
 * SRQs: fewer than lwm WQEs remain -> true once (the caller raises
 * SRQ_RQ_LIMIT), disarming it until the next ARM; move it to the error
 * state (SRQ_CATAS_ERROR).
 */
bool emu_fw_srq_limit_fire(struct emu_fw_srq *srq, uint32_t available);
void emu_fw_srq_set_error(struct emu_fw_srq *srq);

/* ---- Ethernet queues: TIS, SQ, RQ, RQT, TIR (fw_eth_*.c) ----
 *
 * The same rules as the queues above: what an engine needs is fixed at
 * create unless said otherwise; the state is an atomic the engine reads
 * without a lock; the objects used (TD, CQ, TIS, RQ, RQT, queue counter)
 * hold a use while the user exists; the rings and doorbell records are
 * application memory, read only through the checked access layer.  A
 * destroy of an SQ, RQ, RQT or TIR answers after a grace period, so inside
 * emu_fw_rcu_lock() an engine may keep using what it loaded.
 */

/* A transport interface send: what an SQ's packets leave with. */
struct emu_fw_tis {
	struct emu_fw_obj obj;	/* id = tisn */
	pthread_mutex_t lock;	/* serialises MODIFY/QUERY of ctx */
	struct emu_fw_td *td;	/* transport_domain */
	/* MODIFY_TIS may change these (bitmask prio, lag_tx_port_affinity,
	 * strict_lag_tx_port_affinity). */
	atomic_uint prio;	/* 802.1p priority of its packets */
	atomic_uint lag_tx_port_affinity;	/* 0: any; 1..num_lag_ports */
	atomic_bool strict_lag_tx_port_affinity;
	uint8_t ctx[160];	/* tisc as created/modified, for QUERY_TIS */
};

/*
 * A send queue: a cyclic ring of 64-byte WQE basic blocks (log_wq_stride
 * 6), the doorbell record's dbr[EMU_FW_DBR_SND] its producer counter in
 * WQEBBs (big-endian, 16 bits significant), as for a QP's send queue.
 */
struct emu_fw_sq {
	struct emu_fw_obj obj;	/* id = sqn */
	pthread_mutex_t lock;	/* serialises MODIFY/QUERY, uses */
	/* MLX5_SQC_STATE_* (RST, RDY, ERR); release on change. */
	atomic_uint state;
	atomic_uint gen;	/* bumped by every MODIFY_SQ */
	struct emu_fw_pd *pd;	/* wq.pd: the lkeys of its WQEs */
	struct emu_fw_cq *cq;	/* its send completions */
	struct emu_fw_uar *uar;	/* wq.uar_page: its doorbells */
	struct emu_fw_tis *tis;	/* tis_num_0 */
	struct emu_fw_buf buf;	/* the ring's memory */
	struct emu_fw_buf dbr;	/* dbr[1] (EMU_FW_DBR_SND): WQEBB counter */
	struct emu_fw_ring ring;	/* log_stride 6 */
	uint32_t user_index;	/* reported in CQEs (cqe_version 1) */
	uint8_t min_wqe_inline_mode;	/* MLX5_INLINE_MODE_* */
	uint8_t ts_format;	/* MLX5_TIMESTAMP_FORMAT_* */
	bool flush_in_error_en;	/* ERR: flush posted WQEs with CQEs */
	bool allow_swp;		/* software parser offsets in WQEs */
	/* Engine-owned progress, reported by QUERY_SQ (wq.hw_counter): WQE
	 * basic blocks consumed, free-running; MODIFY_SQ RST->RDY clears it. */
	struct {
		atomic_uint wqebb_counter;
	} hw;
	/* The engine's state of this SQ (owned and changed by the engine
	 * under its run lock; NULL while the engine does not run it). */
	void *engine;
	uint8_t ctx[240];	/* sqc as created/modified, for QUERY_SQ */
};

/*
 * A receive queue: a cyclic ring of (1 << log_wq_stride)-byte WQEs (each
 * a list of 16-byte scatter entries), dbr[EMU_FW_DBR_RCV] the producer
 * counter in WQEs (big-endian, 16 bits significant).
 */
struct emu_fw_rq {
	struct emu_fw_obj obj;	/* id = rqn */
	pthread_mutex_t lock;	/* serialises MODIFY/QUERY, uses */
	/* MLX5_RQC_STATE_* (RST, RDY, ERR); release on change. */
	atomic_uint state;
	atomic_uint gen;	/* bumped by every MODIFY_RQ */
	struct emu_fw_pd *pd;	/* wq.pd: the lkeys of its WQEs */
	struct emu_fw_cq *cq;	/* its receive completions */
	struct emu_fw_buf buf;
	struct emu_fw_buf dbr;	/* dbr[0] (EMU_FW_DBR_RCV): WQE counter */
	struct emu_fw_ring ring;
	uint32_t user_index;	/* reported in CQEs (cqe_version 1) */
	uint8_t ts_format;	/* MLX5_TIMESTAMP_FORMAT_* */
	bool flush_in_error_en;
	atomic_bool vsd;	/* VLAN strip disabled (MODIFY_RQ may change) */
	/* Counts out_of_buffer drops (MODIFY_RQ may replace it; NULL:
	 * none): load once inside the RCU read side. */
	struct emu_fw_q_counter *_Atomic counter;
	/* Engine-owned, reported by QUERY_RQ: the next WQE to use (head,
	 * free-running) and WQEs consumed (wq.hw_counter); MODIFY_RQ
	 * RST->RDY clears both. */
	struct {
		atomic_uint head;
		atomic_uint consumed;
	} hw;
	void *engine;		/* as emu_fw_sq.engine */
	uint8_t ctx[240];	/* rqc as created/modified, for QUERY_RQ */
};

/*
 * The RQ list of an RQT, replaced as a whole by MODIFY_RQT: load
 * emu_fw_rqt.list once inside the RCU read side and use that list (and
 * its RQs) until the unlock; a replaced list is freed after a grace
 * period, and each of its RQs stays readable until then.
 */
struct emu_fw_rqt_list {
	struct rcu_head rcu;
	uint32_t size;		/* rqt_actual_size: entries in rq[] */
	struct emu_fw_rq *rq[];	/* each holds a use on its RQ */
};

/* A receive queue table: where an indirect TIR spreads packets. */
struct emu_fw_rqt {
	struct emu_fw_obj obj;	/* id = rqtn */
	pthread_mutex_t lock;	/* serialises MODIFY/QUERY */
	uint32_t max_size;	/* rqt_max_size: at most this many entries */
	struct emu_fw_rqt_list *_Atomic list;
};

/* One rx_hash_field_select, decoded. */
struct emu_fw_hash_sel {
	uint8_t l3_prot_type;	/* MLX5_L3_PROT_TYPE_* */
	uint8_t l4_prot_type;	/* MLX5_L4_PROT_TYPE_* */
	uint32_t selected_fields;	/* MLX5_HASH_FIELD_SEL_* */
};

/* An indirect TIR's hashing, replaced as a whole by MODIFY_TIR (hash):
 * same rule as emu_fw_rqt_list. */
struct emu_fw_tir_hash {
	struct rcu_head rcu;
	uint8_t fn;		/* MLX5_RX_HASH_FN_* */
	bool symmetric;		/* rx_hash_symmetric */
	uint8_t key[40];	/* rx_hash_toeplitz_key, as given */
	struct emu_fw_hash_sel outer, inner;
};

/* A transport interface receive: where a steering rule delivers. */
struct emu_fw_tir {
	struct emu_fw_obj obj;	/* id = tirn */
	pthread_mutex_t lock;	/* serialises MODIFY/QUERY */
	uint8_t disp_type;	/* MLX5_TIRC_DISP_TYPE_DIRECT/INDIRECT */
	struct emu_fw_rq *rq;	/* DIRECT: inline_rqn */
	struct emu_fw_rqt *rqt;	/* INDIRECT: indirect_table */
	struct emu_fw_td *td;	/* transport_domain */
	bool tunneled_offload_en;
	/* MLX5_TIRC_SELF_LB_BLOCK_* bits (MODIFY_TIR self_lb_en). */
	atomic_uint self_lb_block;
	/* INDIRECT: the hash (MODIFY_TIR hash); DIRECT: NULL. */
	struct emu_fw_tir_hash *_Atomic hash;
	uint8_t ctx[240];	/* tirc as created/modified, for QUERY_TIR */
};

static inline unsigned int emu_fw_sq_state(const struct emu_fw_sq *sq)
{
	return atomic_load_explicit(&sq->state, memory_order_acquire);
}

static inline unsigned int emu_fw_rq_state(const struct emu_fw_rq *rq)
{
	return atomic_load_explicit(&rq->state, memory_order_acquire);
}

/*
 * What the engine may do to an SQ's or RQ's state: move it from RDY to ERR
 * (a WQE it could not execute).  0, or -EINVAL if it is not RDY (nothing
 * changes).  Serialised with MODIFY_SQ/MODIFY_RQ on the queue's lock.
 */
int emu_fw_sq_set_error(struct emu_fw_sq *sq);
int emu_fw_rq_set_error(struct emu_fw_rq *rq);

/* ---- the engine's view of commands (fw_engine.c) ---- */

/*
 * What the firmware tells the engine, set per device with
 * emu_fw_set_engine().  Both are called with no firmware lock held (the
 * lock order is: the engine's run lock before any QP lock, never the
 * reverse), from the thread running the command:
 *  - qp_changed: a QP's state changed, or it is being destroyed (it is
 *    dying: lookups no longer find it, its memory is still held); when it
 *    returns no engine pass may touch the QP any more unless its state says
 *    it has work (not RST, not dying);
 *  - sync: an object is about to be released: when it returns no engine
 *    pass that could have found it is still running.
 */
struct emu_fw_engine_ops {
	void (*qp_changed)(void *arg, struct emu_fw_qp *qp);
	void (*sync)(void *arg);
	/* Run fn(fnarg) holding the engine's run lock (no engine pass runs
	 * meanwhile): a CQ resize swaps the ring the engine writes. */
	void (*run_locked)(void *arg, void (*fn)(void *), void *fnarg);
	/* A port's link went down or came up (the device raises
	 * PORT_CHANGE); no firmware lock held. */
	void (*port_changed)(void *arg, unsigned int port, bool up);
	/* A CQ was created (published): the engine watches its arm
	 * requests from now on; no firmware lock held. */
	void (*cq_created)(void *arg, struct emu_fw_cq *cq);
	/* Ethernet queues: as qp_changed, for an SQ or RQ (after a state
	 * change; on destroy once it is dying, before its uses and memory
	 * are released).  Optional. */
	void (*sq_changed)(void *arg, struct emu_fw_sq *sq);
	void (*rq_changed)(void *arg, struct emu_fw_rq *rq);
	void *arg;
};

/* Same lifetime rule as emu_fw_set_hooks; NULL removes them. */
void emu_fw_set_engine(struct emu_fw *fw, const struct emu_fw_engine_ops *ops);

/* ---- mkeys as the engine resolves them (fw_mkey.c) ---- */

enum emu_fw_mkey_res {
	EMU_FW_MKEY_OK,
	EMU_FW_MKEY_BAD_KEY,	/* no such mkey, or its key byte differs */
	EMU_FW_MKEY_BAD_PD,	/* another protection domain */
	EMU_FW_MKEY_BAD_ACCESS,	/* the access right is not granted */
	EMU_FW_MKEY_BAD_BOUNDS,	/* [addr, addr + len) is not inside it */
};

/*
 * Resolve [addr, addr + len) of mkey @key for an access needing all of
 * @access (EMU_FW_MKEY_*), by a queue of @pd: *host gets the process
 * address of addr.  Checks in the order a ConnectX does: the index and key
 * byte, the PD, the access rights (write and atomic rights also need a
 * umem registered writable), the bounds.  len 0 needs only a valid key of
 * the PD.  Caller is inside emu_fw_rcu_lock(); *host stays valid until the
 * unlock.
 */
enum emu_fw_mkey_res emu_fw_mkey_resolve(struct emu_fw *fw, uint32_t key,
					 const struct emu_fw_pd *pd,
					 unsigned int access, uint64_t addr,
					 uint64_t len, uint8_t **host);

/*
 * The kernel's UMR of an mkey's PD and access rights (mlx5_ib's
 * umr_rereg_pd_access, for ibv_rereg_mr): mkey @index of @uid gets PD @pdn
 * (of @uid or the kernel's) and @access (EMU_FW_MKEY_*; local read is
 * always granted) and keeps its key and translation.  The change lands
 * between engine passes, so a pass sees the old PD and rights or the new
 * ones, never a mix; when it returns, no pass uses the old ones.  0,
 * -ENOENT (no such mkey or PD, or the mkey is being destroyed), -EINVAL
 * (atomic rights without the atomic capability).  No firmware lock held.
 */
int emu_fw_mkey_rereg(struct emu_fw *fw, uint16_t uid, uint32_t index,
		      uint32_t pdn, unsigned int access);

/* The QP number no QP has: a key resolved by no QP in particular. */
#define EMU_FW_MKEY_NO_QP 0xffffffu

/*
 * emu_fw_mkey_resolve for a queue of QP @qpn: a type 2 window (one bound
 * with a QP number) answers only the QP it is bound to.  A window (a bound
 * KLM mkey) is checked as an mkey (free, key byte, PD, its rights, its
 * bounds) and then translated through its KLM entry to the mkey it was
 * bound to, which must still exist, be of the same PD, hold the range and
 * be writable for a write or atomic.  A range of an indirect mkey that
 * spans more than one KLM entry is EMU_FW_MKEY_BAD_BOUNDS here (callers
 * that can take it in pieces use emu_fw_mkey_resolve_run).
 */
enum emu_fw_mkey_res emu_fw_mkey_resolve_qp(struct emu_fw *fw, uint32_t key,
					    const struct emu_fw_pd *pd,
					    uint32_t qpn, unsigned int access,
					    uint64_t addr, uint64_t len,
					    uint8_t **host);

/*
 * emu_fw_mkey_resolve_qp for a range that may not be contiguous in the
 * process: an indirect mkey (a KLM list) is checked as a whole (free, key
 * byte, PD, rights, bounds), then *host gets the address of addr and *run
 * the bytes from there that lie in the same KLM entry (len for a direct
 * mkey).  The entry must name a direct mkey (no nesting) that holds its
 * part of the range with local write for a write (local read otherwise).
 * The caller resolves addr + *run next.
 */
enum emu_fw_mkey_res emu_fw_mkey_resolve_run(struct emu_fw *fw, uint32_t key,
					     const struct emu_fw_pd *pd,
					     uint32_t qpn, unsigned int access,
					     uint64_t addr, uint64_t len,
					     uint8_t **host, uint64_t *run);

/*
 * A UMR WQE on a memory window, as the engine decoded its UMR control
 * and mkey context segments and first KLM (fw_mkey_umr.c).
 */
struct emu_fw_umr {
	uint32_t mkey;		/* the ctrl segment's imm: what it changes */
	bool check_free;	/* the mkey must be free (type 2 bind) */
	bool check_qpn;		/* the mkey must be bound to this QP */
	uint16_t klm_octowords;
	/* what the mask lets the context change */
	bool set_free, set_key, set_qpn, set_start, set_len;
	unsigned int set_access;	/* EMU_FW_MKEY_* the mask names */
	/* the mkey context */
	bool free;
	unsigned int access;	/* EMU_FW_MKEY_* */
	uint32_t qpn;		/* qpn_mkey[31:8] */
	uint8_t key;		/* qpn_mkey[7:0] */
	uint64_t start_addr, len;
	struct emu_fw_klm klm;	/* the first KLM entry (inline) */
	/* the klm_octowords inline translation octowords as the WQE holds
	 * them (KLM entries, or a repeat block and its entries); NULL when
	 * only klm is given */
	const uint8_t *xlat;
};

enum emu_fw_umr_res {
	EMU_FW_UMR_OK,
	EMU_FW_UMR_BAD_MKEY,	/* no such mkey of the uid, no UMR, key byte */
	EMU_FW_UMR_BAD_STATE,	/* check_free / check_qpn failed */
	EMU_FW_UMR_BAD_PD,	/* QP, window and region PDs differ */
	EMU_FW_UMR_BAD_BIND,	/* the binding breaks an IBA rule */
};

/*
 * Execute a UMR WQE of QP @qpn (of @uid, its PD @pd) on a memory window.
 * Only inside an engine pass.
 */
enum emu_fw_umr_res emu_fw_mkey_umr(struct emu_fw *fw, uint16_t uid,
				    const struct emu_fw_pd *pd, uint32_t qpn,
				    const struct emu_fw_umr *u);

/*
 * The invalidation a SEND_WITH_INV carries, at the responder QP @qpn (its
 * PD @pd): @rkey must name a bound window created with en_rinval, of @pd,
 * bound to @qpn.  Only inside an engine pass.
 */
enum emu_fw_umr_res emu_fw_mkey_invalidate(struct emu_fw *fw,
					   const struct emu_fw_pd *pd,
					   uint32_t qpn, uint32_t rkey);

/* ---- NIC flow steering (fw_flow_table.c, fw_flow_group.c, fw_fte.c,
 * fw_steer.c) ----
 *
 * Tables and groups are objects (ids from their tables, owned by a uid);
 * a table's entries live in its slot array, one per flow index, each
 * published with a release store and replaced or removed whole (the old
 * entry freed after a grace period), so the lookup reads them without a
 * lock.  Every steering command runs under the device's steering lock.
 * Uses: a group uses its table; an entry uses its group, the tables it
 * forwards to and its flow counters; a table uses the table it misses to;
 * a root uses its table.  A used table or group cannot be destroyed.
 */

/* The match parameter the lookup compares: fte_match_param, 0x200 bytes. */
#define EMU_FW_MATCH_BYTES 0x200
#define EMU_FW_MATCH_WORDS (EMU_FW_MATCH_BYTES / 8)
/* Forwarding destinations and counters one entry may name (the
 * capability page says the same: log_max_destination, log_max_flow_counter
 * of the NIC tables). */
#define EMU_FW_STEER_MAX_DEST 1
#define EMU_FW_STEER_MAX_COUNTERS 1
/* Deepest level a table may have (max_ft_level): a chain of forwards
 * visits at most this many + 1 tables, since every hop goes deeper. */
#define EMU_FW_STEER_MAX_LEVEL 63

struct emu_fw_flow_table;
struct emu_fw_flow_group;

struct emu_fw_fte {
	struct rcu_head rcu;
	/* The next entry of its group's hash bucket (never changed once
	 * the entry is published: a removed entry still leads on). */
	struct emu_fw_fte *_Atomic hnext;
	struct emu_fw_flow_group *group;
	uint32_t flow_index;
	uint16_t action;	/* MLX5_FLOW_CONTEXT_ACTION_* */
	uint32_t flow_tag;
	uint8_t n_dest, n_counter;
	struct {
		uint8_t type;	/* MLX5_IFC_FLOW_DESTINATION_TYPE_* */
		uint32_t id;
		struct emu_fw_flow_table *ft;	/* type FLOW_TABLE */
	} dest[EMU_FW_STEER_MAX_DEST];
	struct emu_fw_flow_counter *counter[EMU_FW_STEER_MAX_COUNTERS];
	/* The value as given (QUERY answers it) and masked by the group's
	 * criteria (what the lookup compares). */
	uint8_t value[EMU_FW_MATCH_BYTES];
	uint64_t masked[EMU_FW_MATCH_WORDS];
};

struct emu_fw_flow_group {
	struct emu_fw_obj obj;	/* id = group_id; users = its entries */
	struct emu_fw_flow_table *ft;
	uint32_t start, end;	/* flow indexes, inclusive */
	uint8_t criteria_enable;	/* MLX5_MATCH_* */
	uint8_t criteria[EMU_FW_MATCH_BYTES];
	/* The criteria as 64-bit words, and which words are not zero (the
	 * lookup compares only those). */
	uint64_t mask[EMU_FW_MATCH_WORDS];
	uint8_t nwords;
	uint8_t word[EMU_FW_MATCH_WORDS];
	atomic_uint n_fte;	/* entries in the group (the lookup skips 0) */
	/* The entries by masked value: (hmask + 1) buckets, chained
	 * through emu_fw_fte.hnext. */
	uint32_t hmask;
	struct emu_fw_fte *_Atomic *bucket;
};

/* A table's groups in flow-index order, replaced whole on change. */
struct emu_fw_flow_groups {
	struct rcu_head rcu;
	unsigned int n;
	struct emu_fw_flow_group *g[];
};

struct emu_fw_flow_table {
	struct emu_fw_obj obj;	/* id = table_id; users: groups, forwards,
				 * misses, the root */
	uint8_t type;		/* MLX5_FLOW_TABLE_TYPE_NIC_RX / _TX */
	uint8_t level;
	uint8_t log_size;
	/* table_miss_action forward: the table (NULL: default miss). */
	struct emu_fw_flow_table *_Atomic miss;
	struct emu_fw_flow_groups *_Atomic groups;	/* NULL: none */
	struct emu_fw_fte *_Atomic *fte;	/* 1 << log_size slots */
	/* Under the steering lock: why it is used (DESTROY's syndrome). */
	unsigned int n_groups, n_refs;
	bool root;
};

/* What the lookup decided for a frame. */
enum emu_fw_steer_action {
	/* Nothing matched on the way (no root, or a table's default miss):
	 * a received frame is dropped and counted; a sent one leaves. */
	EMU_FW_STEER_NONE,
	EMU_FW_STEER_DROP,	/* an entry dropped it */
	EMU_FW_STEER_FWD,	/* forwarded to dest[] */
	EMU_FW_STEER_ALLOW,	/* an entry allowed it without a destination */
};

struct emu_fw_steer_res {
	uint8_t action;		/* enum emu_fw_steer_action */
	uint32_t flow_tag;	/* the last entry on the way that set one */
	unsigned int n_dest;
	struct {
		uint8_t type;	/* MLX5_IFC_FLOW_DESTINATION_TYPE_TIR */
		uint32_t id;	/* tirn */
	} dest[EMU_FW_STEER_MAX_DEST];
};

/*
 * Steer one frame: @match is its fte_match_param (EMU_FW_MATCH_BYTES,
 * big-endian as the PRM lays it out), @frame_bytes what counters add.
 * Starts at the root of @table_type (MLX5_FLOW_TABLE_TYPE_NIC_RX/TX) of
 * @vport (0: the function's own), searches each table's groups in
 * flow-index order and applies the first entry that matches, follows
 * forwards and misses to deeper tables.  0, or -EINVAL (no such vport or
 * type).  Caller is inside emu_fw_rcu_lock(); no lock, no allocation.
 */
int emu_fw_steer_lookup(struct emu_fw *fw, unsigned int vport,
			unsigned int table_type, const void *match,
			uint32_t frame_bytes, struct emu_fw_steer_res *res);

/*
 * The vport of @port, per frame, without a lock (fw_vport_rx.c): whether
 * it takes a frame for @frame's destination MAC (@self: the frame comes
 * from this vport's own SQ, through local loopback); and a frame its NIC
 * RX steering discarded (nothing matched), counted.
 */
bool emu_fw_vport_accepts(struct emu_fw *fw, unsigned int port,
			  const uint8_t *frame, bool self);
void emu_fw_vport_rx_discard(struct emu_fw *fw, unsigned int port);
uint64_t emu_fw_vport_rx_discards(const struct emu_fw *fw);

#define EMU_FW_OBJ_OF(ptr, type, member) \
	((type *)((uint8_t *)(ptr) - offsetof(type, member)))
#define emu_fw_to_cq(o) EMU_FW_OBJ_OF(o, struct emu_fw_cq, obj)
#define emu_fw_to_eq(o) EMU_FW_OBJ_OF(o, struct emu_fw_eq, obj)
#define emu_fw_to_mkey(o) EMU_FW_OBJ_OF(o, struct emu_fw_mkey, obj)
#define emu_fw_to_umem(o) EMU_FW_OBJ_OF(o, struct emu_fw_umem, obj)
#define emu_fw_to_pd(o) EMU_FW_OBJ_OF(o, struct emu_fw_pd, obj)
#define emu_fw_to_td(o) EMU_FW_OBJ_OF(o, struct emu_fw_td, obj)
#define emu_fw_to_uar(o) EMU_FW_OBJ_OF(o, struct emu_fw_uar, obj)
#define emu_fw_to_uctx(o) EMU_FW_OBJ_OF(o, struct emu_fw_uctx, obj)
#define emu_fw_to_q_counter(o) EMU_FW_OBJ_OF(o, struct emu_fw_q_counter, obj)
#define emu_fw_to_flow_counter(o) \
	EMU_FW_OBJ_OF(o, struct emu_fw_flow_counter, obj)
#define emu_fw_to_xrcd(o) EMU_FW_OBJ_OF(o, struct emu_fw_xrcd, obj)
#define emu_fw_to_srq(o) EMU_FW_OBJ_OF(o, struct emu_fw_srq, obj)
#define emu_fw_to_qp(o) EMU_FW_OBJ_OF(o, struct emu_fw_qp, obj)
/* Ethernet queues. */
#define emu_fw_to_tis(o) EMU_FW_OBJ_OF(o, struct emu_fw_tis, obj)
#define emu_fw_to_sq(o) EMU_FW_OBJ_OF(o, struct emu_fw_sq, obj)
#define emu_fw_to_rq(o) EMU_FW_OBJ_OF(o, struct emu_fw_rq, obj)
#define emu_fw_to_rqt(o) EMU_FW_OBJ_OF(o, struct emu_fw_rqt, obj)
#define emu_fw_to_tir(o) EMU_FW_OBJ_OF(o, struct emu_fw_tir, obj)
#define emu_fw_to_ft(o) EMU_FW_OBJ_OF(o, struct emu_fw_flow_table, obj)
#define emu_fw_to_fg(o) EMU_FW_OBJ_OF(o, struct emu_fw_flow_group, obj)

#endif /* MLX5EMU_FW_OBJS_H */
