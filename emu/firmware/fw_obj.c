/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_obj.c -- the object tables.
 *
 * One cds_lfht per object type, keyed by id.  Readers (engines, lookups in
 * commands) never lock: they run under the bulletproof RCU read lock and
 * take a reference with urcu_ref_get_unless_zero.  Writers serialise only
 * the id allocation of their own type.  Removal unpublishes the node, then
 * frees after a grace period (call_rcu).  See fw_objs.h for the counts.
 *
 * A destroy of a type through which readers reach the application's
 * memory (or the UAR page) also waits for a grace period before it
 * returns, so that the memory may go as soon as the command is answered.
 * The other types (PD, TD, XRC domain, counters, user contexts) lead
 * nowhere but to firmware objects, whose memory the deferred free keeps:
 * their destroys do not wait, which keeps the many PD alloc/dealloc of
 * verbs programs at the cost of the command alone.
 *
 * Ids come from a cursor that only moves forward and wraps inside the
 * type's id space, so a number is not handed out again until the whole
 * space has been used once (like hardware that cycles its indexes).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/firmware/fw_int.h"

#ifdef EMU_TSAN
char emu_fw_rcu_tsan_sync;
#endif

/*
 * cds_lfht_for_each_entry without its last step, container_of of the NULL
 * node that ends the walk (undefined pointer arithmetic, which clang's
 * -fsanitize=pointer-overflow reports): obj is formed from live nodes only.
 */
#define fw_table_for_each(ht, iter, obj)					\
	for (cds_lfht_first((ht), (iter));					\
	     cds_lfht_iter_get_node(iter) &&					\
	     ((obj) = caa_container_of(cds_lfht_iter_get_node(iter),		\
				       struct emu_fw_obj, node), 1);		\
	     cds_lfht_next((ht), (iter)))

static const struct fw_obj_type_info fw_types[EMU_FW_OBJ_NTYPES] = {
	[EMU_FW_OBJ_UCTX] = { .name = "UCTX", .size = sizeof(struct emu_fw_uctx) },
	[EMU_FW_OBJ_UMEM] = {
		.name = "UMEM", .size = sizeof(struct emu_fw_umem),
		.grace = true, .own_uid_only = true,
	},
	[EMU_FW_OBJ_PD] = { .name = "PD", .size = sizeof(struct emu_fw_pd) },
	[EMU_FW_OBJ_TD] = { .name = "TD", .size = sizeof(struct emu_fw_td) },
	[EMU_FW_OBJ_UAR] = {
		.name = "UAR", .size = sizeof(struct emu_fw_uar),
		.grace = true,
	},
	[EMU_FW_OBJ_MKEY] = {
		.name = "MKEY", .size = sizeof(struct emu_fw_mkey),
		.release = fw_mkey_release, .grace = true,
	},
	[EMU_FW_OBJ_EQ] = {
		.name = "EQ", .size = sizeof(struct emu_fw_eq),
		.release = fw_eq_release, .grace = true,
	},
	[EMU_FW_OBJ_CQ] = {
		.name = "CQ", .size = sizeof(struct emu_fw_cq),
		.release = fw_cq_release, .fini = fw_cq_fini, .grace = true,
	},
	[EMU_FW_OBJ_Q_COUNTER] = {
		.name = "Q_COUNTER", .size = sizeof(struct emu_fw_q_counter),
	},
	[EMU_FW_OBJ_FLOW_COUNTER] = {
		.name = "FLOW_COUNTER", .size = sizeof(struct emu_fw_flow_counter),
	},
	[EMU_FW_OBJ_XRCD] = { .name = "XRCD", .size = sizeof(struct emu_fw_xrcd) },
	[EMU_FW_OBJ_SRQ] = {
		.name = "SRQ", .size = sizeof(struct emu_fw_srq),
		.release = fw_srq_release, .fini = fw_srq_fini, .grace = true,
	},
	[EMU_FW_OBJ_QP] = {
		.name = "QP", .size = sizeof(struct emu_fw_qp),
		.release = fw_qp_release, .fini = fw_qp_fini, .grace = true,
	},
	/* Ethernet queues: readers reach memory through SQs and RQs, and
	 * through RQTs and TIRs to RQs. */
	[EMU_FW_OBJ_TIS] = {
		.name = "TIS", .size = sizeof(struct emu_fw_tis),
		.release = fw_tis_release, .fini = fw_tis_fini,
	},
	[EMU_FW_OBJ_SQ] = {
		.name = "SQ", .size = sizeof(struct emu_fw_sq),
		.release = fw_sq_release, .fini = fw_sq_fini, .grace = true,
	},
	[EMU_FW_OBJ_RQ] = {
		.name = "RQ", .size = sizeof(struct emu_fw_rq),
		.release = fw_rq_release, .fini = fw_rq_fini, .grace = true,
	},
	[EMU_FW_OBJ_RQT] = {
		.name = "RQT", .size = sizeof(struct emu_fw_rqt),
		.release = fw_rqt_release, .fini = fw_rqt_fini, .grace = true,
	},
	[EMU_FW_OBJ_TIR] = {
		.name = "TIR", .size = sizeof(struct emu_fw_tir),
		.release = fw_tir_release, .fini = fw_tir_fini, .grace = true,
	},
	/* NIC flow steering: no application memory behind them. */
	[EMU_FW_OBJ_FLOW_TABLE] = {
		.name = "FLOW_TABLE", .size = sizeof(struct emu_fw_flow_table),
		.release = fw_ft_release, .fini = fw_ft_fini,
	},
	[EMU_FW_OBJ_FLOW_GROUP] = {
		.name = "FLOW_GROUP", .size = sizeof(struct emu_fw_flow_group),
		.release = fw_fg_release, .fini = fw_fg_fini,
	},
};

const char *emu_fw_obj_type_name(enum emu_fw_obj_type type)
{
	if ((unsigned int)type >= EMU_FW_OBJ_NTYPES)
		return "?";
	return fw_types[type].name;
}

static unsigned long fw_hash(uint32_t id)
{
	uint64_t x = id + UINT64_C(0x9e3779b97f4a7c15);

	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return (unsigned long)(x ^ (x >> 31));
}

static int fw_match(struct cds_lfht_node *node, const void *key)
{
	const struct emu_fw_obj *obj =
		EMU_FW_OBJ_OF(node, struct emu_fw_obj, node);

	/* Read during a lookup that may race the insert: the table's own
	 * publication orders it, but liburcu is not visible to the thread
	 * sanitizer, so the id is an atomic access on both sides, and the
	 * insert's release of the object (its allocation's zeroing too) is
	 * acquired here. */
	EMU_FW_TSAN_ACQUIRE();
	return __atomic_load_n(&obj->id, __ATOMIC_RELAXED) ==
	       *(const uint32_t *)key;
}

static uint32_t pow2_limit(unsigned int log, uint32_t cap)
{
	if (log >= 32)
		return cap;
	return (UINT32_C(1) << log) < cap ? UINT32_C(1) << log : cap;
}

/* Id space and live-object limit of each type, from the capabilities. */
static void fw_table_params(struct emu_fw *fw, enum emu_fw_obj_type t,
			    uint32_t *min_id, uint32_t *max_id,
			    uint32_t *limit)
{
	const uint32_t id24 = 0xffffff;
	uint32_t nflow;

	*min_id = 1;
	switch (t) {
	case EMU_FW_OBJ_UCTX:
		*max_id = 0xffff;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_uctx), *max_id);
		break;
	case EMU_FW_OBJ_UMEM:
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_umem), id24);
		break;
	case EMU_FW_OBJ_PD:
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_pd), id24);
		break;
	case EMU_FW_OBJ_TD:
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_transport_domain),
				    id24);
		break;
	case EMU_FW_OBJ_UAR:
		/* 2^uar_sz MiB of 4 KiB UAR pages; indexes kept dense because
		 * the kernel layer maps pages by index. */
		*limit = pow2_limit(FW_CAP_GEN(fw, uar_sz) + 8, id24);
		*max_id = *limit;
		break;
	case EMU_FW_OBJ_MKEY:
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_mkey), id24);
		break;
	case EMU_FW_OBJ_EQ:
		*max_id = 0xff;	/* eq_number is 8 bits */
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_eq), 0xff);
		break;
	case EMU_FW_OBJ_CQ:
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_cq), id24);
		break;
	case EMU_FW_OBJ_Q_COUNTER:
		*max_id = 0xff;	/* counter_set_id is 8 bits */
		*limit = FW_CAP_GEN(fw, max_qp_cnt);
		if (*limit > 0xff)
			*limit = 0xff;
		break;
	case EMU_FW_OBJ_FLOW_COUNTER:
		*max_id = 0x7fffffff;
		nflow = FW_CAP_GEN(fw, max_flow_counter_31_16) << 16 |
			FW_CAP_GEN(fw, max_flow_counter_15_0);
		*limit = nflow;
		break;
	case EMU_FW_OBJ_XRCD:
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_xrcd), id24);
		break;
	case EMU_FW_OBJ_SRQ:	/* srqn, xrc_srqn, rmpn: 24 bits */
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_srq), id24);
		break;
	case EMU_FW_OBJ_QP:	/* qpn, dctn: 24 bits; QP0/QP1 and the
				 * low numbers stay reserved, as on hardware */
		*min_id = FW_QPN_MIN;
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_qp), id24);
		break;
	/* Ethernet queues: 24-bit numbers. */
	case EMU_FW_OBJ_TIS:
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_tis), id24);
		break;
	case EMU_FW_OBJ_SQ:
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_sq), id24);
		break;
	case EMU_FW_OBJ_RQ:
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_rq), id24);
		break;
	case EMU_FW_OBJ_RQT:
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_rqt), id24);
		break;
	case EMU_FW_OBJ_TIR:
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_GEN(fw, log_max_tir), id24);
		break;
	case EMU_FW_OBJ_FLOW_TABLE:	/* table_id: 24 bits */
		*max_id = id24;
		*limit = pow2_limit(FW_CAP_NIC_RX(fw, log_max_ft_num), id24);
		break;
	case EMU_FW_OBJ_FLOW_GROUP:	/* group_id: 32 bits, kept to 24 */
		*max_id = id24;
		*limit = id24;
		break;
	default:
		*max_id = 0;
		*limit = 0;
		break;
	}
}

int fw_tables_init(struct emu_fw *fw)
{
	for (unsigned int t = 0; t < EMU_FW_OBJ_NTYPES; t++) {
		struct fw_table *tb = &fw->tables[t];

		tb->ht = cds_lfht_new_flavor(16, 16, 0,
					     CDS_LFHT_AUTO_RESIZE |
					     CDS_LFHT_ACCOUNTING,
					     &rcu_flavor, NULL);
		if (!tb->ht) {
			while (t--)
				cds_lfht_destroy(fw->tables[t].ht, NULL);
			return -ENOMEM;
		}
		pthread_mutex_init(&tb->lock, NULL);
		fw_table_params(fw, (enum emu_fw_obj_type)t, &tb->min_id,
				&tb->max_id, &tb->limit);
		tb->cursor = tb->min_id;
		atomic_init(&tb->count, 0);
	}
	return 0;
}

static bool fw_obj_unpublish(struct emu_fw_obj *obj);

/*
 * call_rcu first: its worker may be in a grace period, which needs the
 * flavour's locks that urcu_bp_before_fork takes; after the fork, the
 * flavour first (the child's new worker waits for grace periods).
 */
void emu_fw_rcu_before_fork(void)
{
	call_rcu_before_fork();
	rcu_bp_before_fork();
}

void emu_fw_rcu_after_fork_parent(void)
{
	rcu_bp_after_fork_parent();
	call_rcu_after_fork_parent();
}

void emu_fw_rcu_after_fork_child(void)
{
	rcu_bp_after_fork_child();
	call_rcu_after_fork_child();
}

static void fw_obj_free_rcu(struct rcu_head *head)
{
	struct emu_fw_obj *obj = EMU_FW_OBJ_OF(head, struct emu_fw_obj, rcu);
	const struct fw_obj_type_info *ti;

	EMU_FW_TSAN_ACQUIRE();	/* after every reader of the grace period */
	ti = &fw_types[obj->type];
	if (ti->fini)
		ti->fini(obj);
	free(obj);
}

static void fw_obj_last_ref(struct urcu_ref *ref)
{
	struct emu_fw_obj *obj = EMU_FW_OBJ_OF(ref, struct emu_fw_obj, ref);

	call_rcu(&obj->rcu, fw_obj_free_rcu);
}

/*
 * Every put publishes what its holder did with the object, not only the
 * last one: the holder may be another thread than the one whose put is
 * the last (an engine's reference), and the free must come after both.
 * TSan cannot see that order through liburcu's uninstrumented atomics.
 */
static void fw_obj_ref_put(struct emu_fw_obj *obj)
{
	EMU_FW_TSAN_RELEASE();
	urcu_ref_put(&obj->ref, fw_obj_last_ref);
}

void fw_tables_fini(struct emu_fw *fw)
{
	/*
	 * Dependents first: the enum lists every type after what it uses.
	 * One read side over the whole walk: no object's memory is freed
	 * before every object is unpublished, since a release may still
	 * drop a use of an object of a later type (a flow table's entries
	 * use its groups, which use the table).
	 */
	emu_fw_rcu_lock();
	for (int t = EMU_FW_OBJ_NTYPES - 1; t >= 0; t--) {
		struct fw_table *tb = &fw->tables[t];
		struct cds_lfht_iter iter;
		struct emu_fw_obj *obj;

		fw_table_for_each(tb->ht, &iter, obj) {
			/* Whatever used it is gone (destroyed before). */
			atomic_store(&obj->users, -1);
			fw_obj_unpublish(obj);
		}
	}
	emu_fw_rcu_unlock();
	/* Let every deferred free run before the tables go. */
	rcu_barrier();
	for (unsigned int t = 0; t < EMU_FW_OBJ_NTYPES; t++) {
		cds_lfht_destroy(fw->tables[t].ht, NULL);
		pthread_mutex_destroy(&fw->tables[t].lock);
	}
}

struct emu_fw_obj *fw_obj_alloc(struct emu_fw *fw, enum emu_fw_obj_type type,
				uint16_t uid)
{
	struct emu_fw_obj *obj = calloc(1, fw_types[type].size);

	if (!obj)
		return NULL;
	cds_lfht_node_init(&obj->node);
	urcu_ref_init(&obj->ref);
	obj->fw = fw;
	obj->uid = uid;
	obj->type = (uint8_t)type;
	atomic_init(&obj->users, 0);
	return obj;
}

void fw_obj_abort(struct emu_fw_obj *obj)
{
	const struct fw_obj_type_info *ti = &fw_types[obj->type];

	if (ti->fini)
		ti->fini(obj);
	free(obj);
}

int fw_obj_insert(struct emu_fw_obj *obj)
{
	struct fw_table *tb = &obj->fw->tables[obj->type];
	uint32_t span = tb->max_id - tb->min_id + 1;
	int ret = -ENOSPC;

	pthread_mutex_lock(&tb->lock);
	if (atomic_load(&tb->count) >= tb->limit)
		goto out_unlock;
	emu_fw_rcu_lock();
	for (uint32_t n = 0; n < span; n++) {
		uint32_t id = tb->cursor;
		struct cds_lfht_node *old;

		tb->cursor = id == tb->max_id ? tb->min_id : id + 1;
		__atomic_store_n(&obj->id, id, __ATOMIC_RELAXED);
		/* Publish: readers load users (acquire) after the lookup. */
		atomic_store_explicit(&obj->users, 0, memory_order_release);
		EMU_FW_TSAN_RELEASE();
		old = cds_lfht_add_unique(tb->ht, fw_hash(id), fw_match, &id,
					  &obj->node);
		if (old == &obj->node) {
			atomic_fetch_add(&tb->count, 1);
			ret = 0;
			break;
		}
	}
	emu_fw_rcu_unlock();
out_unlock:
	pthread_mutex_unlock(&tb->lock);
	return ret;
}

bool fw_obj_use(struct emu_fw_obj *obj)
{
	int u = atomic_load(&obj->users);

	do {
		if (u < 0)
			return false;
	} while (!atomic_compare_exchange_weak(&obj->users, &u, u + 1));
	return true;
}

void fw_obj_unuse(struct emu_fw_obj *obj)
{
	if (obj)
		atomic_fetch_sub(&obj->users, 1);
}

int fw_obj_kill(struct emu_fw_obj *obj)
{
	int u = 0;

	if (atomic_compare_exchange_strong(&obj->users, &u, -1))
		return 0;
	return u < 0 ? -ENOENT : -EBUSY;
}

static _Atomic(struct emu_fw_obj *) *fw_recent_slot(struct fw_table *tb,
						      uint32_t id)
{
	/* mkeys differ in their index, above the 8-bit variant */
	return &tb->recent[(id ^ (id >> 8)) % FW_RECENT];
}

/* Drop @obj from its lookaside slot if it is there. */
static void fw_recent_forget(struct fw_table *tb, struct emu_fw_obj *obj)
{
	struct emu_fw_obj *expected = obj;

	atomic_compare_exchange_strong(fw_recent_slot(tb, obj->id), &expected,
				       NULL);
}

/*
 * The lookaside may hold only published objects: their memory outlives
 * every reader of the grace period that found them.  A lookup stores
 * what it found and then looks whether it was deleted meanwhile; the
 * unpublisher deletes and then clears the slot.  A full fence between
 * each side's store and load makes at least one of them see the other,
 * so no slot keeps an unpublished object.
 */
static void fw_recent_remember(struct fw_table *tb, struct emu_fw_obj *obj)
{
	atomic_store(fw_recent_slot(tb, obj->id), obj);
	atomic_thread_fence(memory_order_seq_cst);
	if (cds_lfht_is_node_deleted(&obj->node))
		fw_recent_forget(tb, obj);
}

/* Unpublish, release what it holds, drop the table's reference: true if
 * this call did it (false: somebody else removed it). */
static bool fw_obj_unpublish(struct emu_fw_obj *obj)
{
	struct fw_table *tb = &obj->fw->tables[obj->type];
	const struct fw_obj_type_info *ti = &fw_types[obj->type];
	int ret;

	emu_fw_rcu_lock();
	ret = cds_lfht_del(tb->ht, &obj->node);
	emu_fw_rcu_unlock();
	if (ret)
		return false;
	atomic_thread_fence(memory_order_seq_cst);
	fw_recent_forget(tb, obj);
	atomic_fetch_sub(&tb->count, 1);
	if (ti->release)
		ti->release(obj);
	fw_obj_unuse(obj->uctx);
	fw_obj_ref_put(obj);
	return true;
}

void fw_obj_remove(struct emu_fw_obj *obj)
{
	bool grace = fw_types[obj->type].grace;	/* obj may go below */

	if (!fw_obj_unpublish(obj) || !grace)
		return;
	/*
	 * Every reader that could have found the object (the lookup checks
	 * for dying after the node is found) entered its read side before
	 * the kill; once they are all out, nothing of the device model holds
	 * the object's memory ranges.  What the release dropped (uses of the
	 * umems, the EQ, the UAR) may meanwhile be destroyed by others: those
	 * destroys wait for the same readers.
	 */
	synchronize_rcu();
	EMU_FW_TSAN_ACQUIRE();	/* after every reader of the grace period */
}

struct emu_fw_obj *emu_fw_obj_lookup_rcu(struct emu_fw *fw,
					 enum emu_fw_obj_type type,
					 uint32_t id)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	struct emu_fw_obj *obj;
	struct fw_table *tb;

	if ((unsigned int)type >= EMU_FW_OBJ_NTYPES)
		return NULL;
	tb = &fw->tables[type];
	obj = atomic_load_explicit(fw_recent_slot(tb, id),
				   memory_order_acquire);
	if (!obj || __atomic_load_n(&obj->id, __ATOMIC_RELAXED) != id) {
		cds_lfht_lookup(tb->ht, fw_hash(id), fw_match, &id, &iter);
		node = cds_lfht_iter_get_node(&iter);
		if (!node)
			return NULL;
		obj = EMU_FW_OBJ_OF(node, struct emu_fw_obj, node);
		fw_recent_remember(tb, obj);
	}
	if (atomic_load_explicit(&obj->users, memory_order_acquire) < 0)
		return NULL;
	return obj;
}

struct emu_fw_obj *emu_fw_obj_get(struct emu_fw *fw,
				  enum emu_fw_obj_type type, uint32_t id)
{
	struct emu_fw_obj *obj;

	emu_fw_rcu_lock();
	obj = emu_fw_obj_lookup_rcu(fw, type, id);
	if (obj && !urcu_ref_get_unless_zero(&obj->ref))
		obj = NULL;
	emu_fw_rcu_unlock();
	return obj;
}

void emu_fw_obj_put(struct emu_fw_obj *obj)
{
	if (obj)
		fw_obj_ref_put(obj);
}

int emu_fw_obj_for_each(struct emu_fw *fw, enum emu_fw_obj_type type,
			int (*fn)(struct emu_fw_obj *obj, void *arg),
			void *arg)
{
	struct cds_lfht_iter iter;
	struct emu_fw_obj *obj;
	int ret = 0;

	if ((unsigned int)type >= EMU_FW_OBJ_NTYPES)
		return -EINVAL;
	emu_fw_rcu_lock();
	fw_table_for_each(fw->tables[type].ht, &iter, obj) {
		if (atomic_load_explicit(&obj->users, memory_order_acquire) < 0)
			continue;
		ret = fn(obj, arg);
		if (ret)
			break;
	}
	emu_fw_rcu_unlock();
	return ret;
}

unsigned int emu_fw_obj_count(struct emu_fw *fw, enum emu_fw_obj_type type)
{
	if ((unsigned int)type >= EMU_FW_OBJ_NTYPES)
		return 0;
	return atomic_load(&fw->tables[type].count);
}

/* ---- helpers for command handlers ---- */

enum fw_synd fw_cmd_obj_alloc(struct fw_cmd *cmd, enum emu_fw_obj_type type,
			      struct emu_fw_obj **objp)
{
	struct emu_fw_obj *uctx = NULL;
	struct emu_fw_obj *obj;

	if (cmd->uid) {
		uctx = emu_fw_obj_get(cmd->fw, EMU_FW_OBJ_UCTX, cmd->uid);
		if (!uctx || !fw_obj_use(uctx)) {
			emu_fw_obj_put(uctx);
			return FW_SYND_BAD_UID;
		}
		emu_fw_obj_put(uctx);	/* the use keeps it */
	}
	obj = fw_obj_alloc(cmd->fw, type, cmd->uid);
	if (!obj) {
		fw_obj_unuse(uctx);
		return FW_SYND_INTERNAL_NOMEM;
	}
	obj->uctx = uctx;
	*objp = obj;
	return FW_SYND_OK;
}

void fw_cmd_obj_abort(struct emu_fw_obj *obj)
{
	if (!obj)
		return;
	fw_obj_unuse(obj->uctx);
	fw_obj_abort(obj);
}

enum fw_synd fw_cmd_obj_publish(struct emu_fw_obj *obj, enum fw_synd limit)
{
	const struct fw_obj_type_info *ti = &fw_types[obj->type];

	if (fw_obj_insert(obj) == 0)
		return FW_SYND_OK;
	/* Undo what the handler took, then the object itself. */
	if (ti->release)
		ti->release(obj);
	fw_cmd_obj_abort(obj);
	return limit;
}

enum fw_synd fw_cmd_obj_use(struct fw_cmd *cmd, enum emu_fw_obj_type type,
			    uint32_t id, enum fw_synd bad,
			    struct emu_fw_obj **objp)
{
	struct emu_fw_obj *obj = emu_fw_obj_get(cmd->fw, type, id);

	if (!obj)
		return bad;
	if ((obj->uid != cmd->uid &&
	     (obj->uid != 0 || fw_types[type].own_uid_only)) ||
	    !fw_obj_use(obj)) {
		emu_fw_obj_put(obj);
		return bad;
	}
	emu_fw_obj_put(obj);	/* the use keeps it published */
	*objp = obj;
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_obj_own(struct fw_cmd *cmd, enum emu_fw_obj_type type,
			    uint32_t id, enum fw_synd invalid,
			    struct emu_fw_obj **objp)
{
	struct emu_fw_obj *obj = emu_fw_obj_get(cmd->fw, type, id);

	if (!obj)
		return invalid;
	if (obj->uid != cmd->uid) {
		emu_fw_obj_put(obj);
		return invalid;
	}
	*objp = obj;
	return FW_SYND_OK;
}

static void fw_obj_dying_sync(struct emu_fw_obj *obj)
{
	/* Lookups no longer find it; let an engine pass that did finish
	 * before what it holds is released. */
	fw_engine_sync(obj->fw);
}

enum fw_synd fw_cmd_obj_destroy(struct fw_cmd *cmd, enum emu_fw_obj_type type,
				uint32_t id, enum fw_synd invalid,
				enum fw_synd in_use)
{
	return fw_cmd_obj_destroy_cb(cmd, type, id, invalid, in_use,
				     fw_obj_dying_sync);
}

enum fw_synd fw_cmd_obj_destroy_cb(struct fw_cmd *cmd,
				   enum emu_fw_obj_type type, uint32_t id,
				   enum fw_synd invalid, enum fw_synd in_use,
				   void (*dying)(struct emu_fw_obj *obj))
{
	struct emu_fw_obj *obj = NULL;
	enum fw_synd s = fw_cmd_obj_own(cmd, type, id, invalid, &obj);

	if (s)
		return s;
	switch (fw_obj_kill(obj)) {
	case 0:
		break;
	case -EBUSY:
		emu_fw_obj_put(obj);
		return in_use;
	default:		/* a concurrent destroy won */
		emu_fw_obj_put(obj);
		return invalid;
	}
	dying(obj);
	fw_obj_remove(obj);
	emu_fw_obj_put(obj);
	return FW_SYND_OK;
}
