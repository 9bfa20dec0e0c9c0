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
 *    dying object.
 *
 * Inside emu_fw_rcu_lock()/emu_fw_rcu_unlock() (urcu_bp_read_lock/unlock,
 * plus ThreadSanitizer annotations) an engine may use
 * emu_fw_obj_lookup_rcu() and dereference the result (and the objects it
 * points to) until it unlocks, without taking a reference.
 */
#ifndef MLX5EMU_FW_OBJS_H
#define MLX5EMU_FW_OBJS_H

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

struct emu_fw;

/*
 * ThreadSanitizer cannot see liburcu's grace periods (the library is not
 * instrumented): read sides release a sync object on unlock and the
 * deferred free acquires it, which is the order a grace period guarantees.
 */
#if defined(__SANITIZE_THREAD__)
#define EMU_FW_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMU_FW_TSAN 1
#endif
#endif
#ifdef EMU_FW_TSAN
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

struct emu_fw_umem {
	struct emu_fw_obj obj;
	uint8_t *addr;
	size_t size;
	unsigned int page_shift;
	uint32_t access;
};

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

struct emu_fw_uar {
	struct emu_fw_obj obj;	/* id = UAR page index */
};

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
};

/* The full 32-bit key of an mkey object. */
static inline uint32_t emu_fw_mkey_key(const struct emu_fw_mkey *mk)
{
	return mk->obj.id << 8 | mk->key;
}

struct emu_fw_eq {
	struct emu_fw_obj obj;	/* id = eq_number */
	struct emu_fw_uar *uar;
	struct emu_fw_buf buf;	/* (1 << log_size) EQEs of 64 bytes */
	uint8_t log_size;
	uint16_t intr;
	uint64_t event_bitmask[4];	/* bit n of [i]: event type 64*i+n */
	uint8_t eqc[64];	/* eqc as created */
};

struct emu_fw_cq {
	struct emu_fw_obj obj;	/* id = cqn */
	pthread_mutex_t lock;	/* serialises MODIFY/QUERY of cqc */
	struct emu_fw_eq *_Atomic eq;	/* c_eqn */
	struct emu_fw_uar *uar;
	struct emu_fw_buf buf;	/* (1 << log_size) CQEs of cqe_size bytes */
	struct emu_fw_buf dbr;	/* 8 bytes: set_ci, arm */
	uint8_t log_size;
	uint16_t cqe_size;	/* 64 or 128 */
	atomic_uint cq_period;	/* moderation, microseconds */
	atomic_uint cq_max_count;
	atomic_uint cq_period_mode;
	atomic_bool oi;		/* overrun ignore */
	bool cc;		/* collapsed CQ */
	uint8_t cqc[64];	/* cqc as created/modified, for QUERY_CQ */
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

#endif /* MLX5EMU_FW_OBJS_H */
