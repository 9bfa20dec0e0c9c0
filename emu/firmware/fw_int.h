/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_int.h -- inside the firmware: the device structure, the
 * command context handlers see, object-table primitives and the helpers
 * every command file shares.  Not for use outside emu/firmware/.
 */
#ifndef MLX5EMU_FW_INT_H
#define MLX5EMU_FW_INT_H

/* First: it brings liburcu in with the bulletproof flavour's mapping. */
#include "emu/firmware/fw_objs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "emu/firmware/fw.h"
#include "emu/firmware/fw_caps.h"
#include "emu/firmware/fw_syndrome.h"

/* ---- object tables (fw_obj.c) ---- */

/* Slots of a table's lookaside of recently found objects. */
#define FW_RECENT 64

struct fw_table {
	struct cds_lfht *ht;
	/* The engine looks up the same few QPs and mkeys for every packet:
	 * a direct-mapped lookaside in front of the hash table, holding
	 * only published objects (fw_obj.c says how). */
	struct emu_fw_obj *_Atomic recent[FW_RECENT];
	pthread_mutex_t lock;	/* id cursor; serialises insertions */
	uint32_t min_id, max_id;	/* id space, inclusive */
	uint32_t limit;		/* most live objects */
	uint32_t cursor;	/* next id to try: monotonic, wraps */
	atomic_uint count;
};

struct fw_obj_type_info {
	const char *name;
	size_t size;		/* of the containing struct */
	/* Drop what the object holds on others; runs once, when a destroy
	 * commits (the object is unpublished but may still be read). */
	void (*release)(struct emu_fw_obj *obj);
	/* Free what the object owns besides itself (no other object). */
	void (*fini)(struct emu_fw_obj *obj);
	/* Readers reach the application's memory (or the UAR page) through
	 * it: its removal waits for them (fw_obj_remove). */
	bool grace;
	/* Only commands of the owner's uid may use it, not even those of
	 * other uids when it is the kernel's (fw_cmd_obj_use). */
	bool own_uid_only;
};

int fw_tables_init(struct emu_fw *fw);
/* Destroy every object, dependents first, then the tables. */
void fw_tables_fini(struct emu_fw *fw);

/* A zeroed object of the type, not yet visible; NULL on ENOMEM. */
struct emu_fw_obj *fw_obj_alloc(struct emu_fw *fw, enum emu_fw_obj_type type,
				uint16_t uid);
/* Free an object that was never published (or whose insert failed). */
void fw_obj_abort(struct emu_fw_obj *obj);
/* Give the object the next free id and publish it: 0, or -ENOSPC when the
 * type's limit is reached. */
int fw_obj_insert(struct emu_fw_obj *obj);
/* One more user, unless the object is dying (false). */
bool fw_obj_use(struct emu_fw_obj *obj);
void fw_obj_unuse(struct emu_fw_obj *obj);
/* Mark dying if it has no user: 0, -EBUSY (used; nothing changes) or
 * -ENOENT (already dying). */
int fw_obj_kill(struct emu_fw_obj *obj);
/*
 * After fw_obj_kill: unpublish, release what it holds, drop the table's
 * reference; for a type readers reach memory through, then wait until no
 * reader that could have found it is still inside its read side (a grace
 * period).  The caller's own reference (if any) stays valid.  Called with
 * no firmware lock held and outside any RCU read side: readers may take
 * object locks inside theirs.
 */
void fw_obj_remove(struct emu_fw_obj *obj);

/* ---- the device ---- */

struct fw_port {
	uint8_t mac[6];
	atomic_bool link_up;
	pthread_mutex_t lock;	/* roce table, the registers below */
	uint8_t (*roce)[32];	/* roce_addr_layout per index */
	uint16_t admin_mtu, oper_mtu;		/* PMTU */
	uint32_t eth_proto_admin, eth_proto_oper;	/* PTYS, extended set */
};

/*
 * The extended Ethernet link modes of a ConnectX-6 Dx 100GbE port (PTYS
 * ext_eth_proto_capability): 1, 10, 25, 40, 50 and 100 GbE, as the card
 * is sold (emulator-assigned from that, bit by bit).
 */
#define FW_PTYS_EXT_ETH_CAP						\
	(MLX5E_PROT_MASK(MLX5E_1000BASE_X_SGMII) |			\
	 MLX5E_PROT_MASK(MLX5E_10GBASE_XFI_XAUI_1) |			\
	 MLX5E_PROT_MASK(MLX5E_40GBASE_XLAUI_4_XLPPI_4) |		\
	 MLX5E_PROT_MASK(MLX5E_25GAUI_1_25GBASE_CR_KR) |		\
	 MLX5E_PROT_MASK(MLX5E_50GAUI_2_LAUI_2_50GBASE_CR2_KR2) |	\
	 MLX5E_PROT_MASK(MLX5E_50GAUI_1_LAUI_1_50GBASE_CR_KR) |		\
	 MLX5E_PROT_MASK(MLX5E_CAUI_4_100GBASE_CR4_KR4) |		\
	 MLX5E_PROT_MASK(MLX5E_100GAUI_2_100GBASE_CR2_KR2))

struct emu_fw {
	struct emu_fw_config cfg;	/* cfg.caps points at caps */
	struct emu_fw_caps *caps;	/* immutable after create */
	struct fw_table tables[EMU_FW_OBJ_NTYPES];
	struct fw_port port[EMU_FW_MAX_PORTS];
	unsigned int roce_table_size;
	atomic_uint roce_gen;		/* bumped by every SET_ROCE_ADDRESS */
	const struct emu_fw_hooks *_Atomic hooks;
	const struct emu_fw_tracer *_Atomic tracer;	/* emu/trace */
	const struct emu_fw_engine_ops *_Atomic engine;	/* fw_engine.c */
	atomic_ulong ncmds, nfailed;
	uint32_t clock_khz;		/* the internal timer's rate (fw_clock.c) */
	bool clock_fr;			/* QPs may run free-running stamps */
	/* NIC flow steering (fw_steer.c): the lock every steering command
	 * holds, and the function's root tables (NIC RX, NIC TX), each
	 * holding a use of its table; NULL: no root. */
	pthread_mutex_t steer_lock;
	struct emu_fw_flow_table *_Atomic steer_root[2];
	/* The NIC vport context MODIFY_NIC_VPORT_CONTEXT sets (fw_vport.c),
	 * under steer_lock. */
	struct fw_nic_vport {
		bool promisc_uc, promisc_mc, promisc_all;
		bool disable_uc_local_lb, disable_mc_local_lb;
		bool roce_en;
		bool perm_set;		/* permanent_address was set */
		uint8_t perm_mac[6];
		uint16_t mtu;		/* 0: the port's */
		uint8_t list_type;	/* MLX5_NVPRT_LIST_TYPE_UC/MC */
		uint16_t n_uc, n_mc;
		uint8_t (*uc)[6], (*mc)[6];
	} nic_vport;
	/* What the engine reads of it per frame (fw_vport_rx.c), and the
	 * frames the NIC RX steering discarded. */
	struct {
		atomic_uint flags;
		_Atomic uint64_t mac;
		atomic_uint_fast64_t steer_discard;
	} vport_rx;
};

/* fw_vport_rx.c: the copy of the vport context the engine reads, brought
 * up to date under steer_lock after every change. */
void fw_vport_rx_update(struct emu_fw *fw);

/* The general capability page and friends. */
const void *fw_cap_page(const struct emu_fw *fw, unsigned int type);
#define FW_CAP_GEN(fw, fld) \
	PRM_GET(cmd_hca_cap, fw_cap_page((fw), MLX5_CAP_GENERAL), fld)
#define FW_CAP_ROCE(fw, fld) \
	PRM_GET(roce_cap, fw_cap_page((fw), MLX5_CAP_ROCE), fld)
#define FW_CAP_ATOMIC(fw, fld) \
	PRM_GET(atomic_caps, fw_cap_page((fw), MLX5_CAP_ATOMIC), fld)
/* Whether the @n bytes at @p are all zero (reserved fields, the bits of
 * a modify bitmask a command does not take). */
static inline bool fw_all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

#define FW_CAP_NIC_RX(fw, fld) \
	PRM_GET(flow_table_nic_cap, fw_cap_page((fw), MLX5_CAP_FLOW_TABLE), \
		flow_table_properties_nic_receive.fld)
#define FW_CAP_NIC_TX(fw, fld) \
	PRM_GET(flow_table_nic_cap, fw_cap_page((fw), MLX5_CAP_FLOW_TABLE), \
		flow_table_properties_nic_transmit.fld)

/* ---- clocks (fw_clock.c) ---- */

/* The clocks' parameters from the capability pages (at create). */
void fw_clock_init(struct emu_fw *fw);
/* Whether a queue may take @ts_format (MLX5_TIMESTAMP_FORMAT_*) under the
 * capability @cap (MLX5_TIMESTAMP_FORMAT_CAP_*). */
bool fw_ts_format_ok(unsigned int ts_format, unsigned int cap);

/* ---- commands ---- */

struct fw_cmd {
	struct emu_fw *fw;
	const void *in;
	size_t inlen;
	void *out;
	size_t outlen;
	uint16_t opcode, op_mod, uid;
};

typedef enum fw_synd (*fw_cmd_handler)(struct fw_cmd *cmd);

/* Handlers, one file per PRM object. */
enum fw_synd fw_cmd_query_hca_cap(struct fw_cmd *cmd);		/* fw_caps.c */
enum fw_synd fw_cmd_query_adapter(struct fw_cmd *cmd);		/* fw_adapter.c */
enum fw_synd fw_cmd_create_uctx(struct fw_cmd *cmd);		/* fw_uctx.c */
enum fw_synd fw_cmd_destroy_uctx(struct fw_cmd *cmd);
enum fw_synd fw_cmd_create_umem(struct fw_cmd *cmd);		/* fw_umem.c */
enum fw_synd fw_cmd_destroy_umem(struct fw_cmd *cmd);
enum fw_synd fw_cmd_alloc_pd(struct fw_cmd *cmd);		/* fw_pd.c */
enum fw_synd fw_cmd_dealloc_pd(struct fw_cmd *cmd);
enum fw_synd fw_cmd_alloc_td(struct fw_cmd *cmd);		/* fw_td.c */
enum fw_synd fw_cmd_dealloc_td(struct fw_cmd *cmd);
enum fw_synd fw_cmd_alloc_uar(struct fw_cmd *cmd);		/* fw_uar.c */
enum fw_synd fw_cmd_dealloc_uar(struct fw_cmd *cmd);
enum fw_synd fw_cmd_create_mkey(struct fw_cmd *cmd);		/* fw_mkey.c */
enum fw_synd fw_cmd_query_mkey(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_mkey(struct fw_cmd *cmd);
enum fw_synd fw_cmd_create_eq(struct fw_cmd *cmd);		/* fw_eq.c */
enum fw_synd fw_cmd_query_eq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_eq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_create_cq(struct fw_cmd *cmd);		/* fw_cq.c */
enum fw_synd fw_cmd_query_cq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_modify_cq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_cq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_nic_vport_context(struct fw_cmd *cmd); /* fw_vport.c */
enum fw_synd fw_cmd_query_hca_vport_context(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_hca_vport_gid(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_vport_state(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_vnic_env(struct fw_cmd *cmd);	/* fw_vport_rx.c */
enum fw_synd fw_cmd_query_roce_address(struct fw_cmd *cmd);
enum fw_synd fw_cmd_set_roce_address(struct fw_cmd *cmd);
enum fw_synd fw_cmd_access_reg(struct fw_cmd *cmd);		/* fw_reg.c */
enum fw_synd fw_cmd_alloc_q_counter(struct fw_cmd *cmd);	/* fw_counter.c */
enum fw_synd fw_cmd_dealloc_q_counter(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_q_counter(struct fw_cmd *cmd);
enum fw_synd fw_cmd_alloc_flow_counter(struct fw_cmd *cmd);
enum fw_synd fw_cmd_dealloc_flow_counter(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_flow_counter(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_lag(struct fw_cmd *cmd);		/* fw_lag.c */
enum fw_synd fw_cmd_alloc_xrcd(struct fw_cmd *cmd);		/* fw_xrcd.c */
enum fw_synd fw_cmd_dealloc_xrcd(struct fw_cmd *cmd);
enum fw_synd fw_cmd_create_srq(struct fw_cmd *cmd);		/* fw_srq.c */
enum fw_synd fw_cmd_query_srq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_arm_rq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_srq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_create_xrc_srq(struct fw_cmd *cmd);	/* fw_xrc_srq.c */
enum fw_synd fw_cmd_query_xrc_srq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_arm_xrc_srq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_xrc_srq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_create_rmp(struct fw_cmd *cmd);		/* fw_rmp.c */
enum fw_synd fw_cmd_modify_rmp(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_rmp(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_rmp(struct fw_cmd *cmd);
enum fw_synd fw_cmd_create_qp(struct fw_cmd *cmd);		/* fw_qp.c */
enum fw_synd fw_cmd_query_qp(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_qp(struct fw_cmd *cmd);
enum fw_synd fw_cmd_modify_qp(struct fw_cmd *cmd);		/* fw_qp_modify.c */
enum fw_synd fw_cmd_create_dct(struct fw_cmd *cmd);		/* fw_dct.c */
enum fw_synd fw_cmd_query_dct(struct fw_cmd *cmd);
enum fw_synd fw_cmd_drain_dct(struct fw_cmd *cmd);
enum fw_synd fw_cmd_arm_dct(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_dct(struct fw_cmd *cmd);

/* NIC flow steering (fw_flow_table.c, fw_flow_group.c, fw_fte.c,
 * fw_steer.c). */
enum fw_synd fw_cmd_create_flow_table(struct fw_cmd *cmd);
enum fw_synd fw_cmd_modify_flow_table(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_flow_table(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_flow_table(struct fw_cmd *cmd);
enum fw_synd fw_cmd_create_flow_group(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_flow_group(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_flow_group(struct fw_cmd *cmd);
enum fw_synd fw_cmd_set_fte(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_fte(struct fw_cmd *cmd);
enum fw_synd fw_cmd_delete_fte(struct fw_cmd *cmd);
enum fw_synd fw_cmd_set_flow_table_root(struct fw_cmd *cmd);
enum fw_synd fw_cmd_modify_nic_vport_context(struct fw_cmd *cmd); /* fw_vport.c */
void fw_ft_release(struct emu_fw_obj *obj);
void fw_ft_fini(struct emu_fw_obj *obj);
void fw_fg_release(struct emu_fw_obj *obj);
void fw_fg_fini(struct emu_fw_obj *obj);
void fw_steer_init(struct emu_fw *fw);
void fw_steer_fini(struct emu_fw *fw);

/* Per-type release/fini callbacks (see struct fw_obj_type_info). */
void fw_mkey_release(struct emu_fw_obj *obj);
void fw_eq_release(struct emu_fw_obj *obj);
void fw_cq_release(struct emu_fw_obj *obj);
void fw_cq_fini(struct emu_fw_obj *obj);
void fw_srq_release(struct emu_fw_obj *obj);
void fw_srq_fini(struct emu_fw_obj *obj);
void fw_qp_release(struct emu_fw_obj *obj);	/* QPs and DCTs */
void fw_qp_fini(struct emu_fw_obj *obj);
/* Ethernet queues (fw_eth_*.c). */
void fw_tis_release(struct emu_fw_obj *obj);
void fw_tis_fini(struct emu_fw_obj *obj);
void fw_sq_release(struct emu_fw_obj *obj);
void fw_sq_fini(struct emu_fw_obj *obj);
void fw_rq_release(struct emu_fw_obj *obj);
void fw_rq_fini(struct emu_fw_obj *obj);
void fw_rqt_release(struct emu_fw_obj *obj);
void fw_rqt_fini(struct emu_fw_obj *obj);
void fw_tir_release(struct emu_fw_obj *obj);
void fw_tir_fini(struct emu_fw_obj *obj);

/* The first QP number handed out (0 and 1 are QP0/QP1 on hardware, and
 * the kernel keeps a few more). */
#define FW_QPN_MIN 0x100u

/* ---- helpers for handlers (fw_obj.c) ---- */

/*
 * Create-side: allocate an object for cmd->uid and charge it to the uid's
 * user context (so DESTROY_UCTX sees it).  FW_SYND_OK, FW_SYND_BAD_UID or
 * FW_SYND_INTERNAL_NOMEM.
 */
enum fw_synd fw_cmd_obj_alloc(struct fw_cmd *cmd, enum emu_fw_obj_type type,
			      struct emu_fw_obj **objp);
/* Publish it: FW_SYND_OK or limit (the object is then freed). */
enum fw_synd fw_cmd_obj_publish(struct emu_fw_obj *obj, enum fw_synd limit);
/* Undo fw_cmd_obj_alloc for an object never published. */
void fw_cmd_obj_abort(struct emu_fw_obj *obj);

/*
 * Reference an object the command names as a parameter (a CQ's EQ): it must
 * be live and belong to cmd->uid or, unless its type is own_uid_only (a
 * umem), to uid 0.  On success the object has one more user, which the
 * caller keeps (drop with fw_obj_unuse).
 */
enum fw_synd fw_cmd_obj_use(struct fw_cmd *cmd, enum emu_fw_obj_type type,
			    uint32_t id, enum fw_synd bad,
			    struct emu_fw_obj **objp);
/*
 * Find an object the command operates on (query/modify/destroy): it must be
 * live and owned by cmd->uid.  The caller gets a reference (emu_fw_obj_put).
 */
enum fw_synd fw_cmd_obj_own(struct fw_cmd *cmd, enum emu_fw_obj_type type,
			    uint32_t id, enum fw_synd invalid,
			    struct emu_fw_obj **objp);
/* The whole destroy: find as owner, refuse if used, remove. */
enum fw_synd fw_cmd_obj_destroy(struct fw_cmd *cmd, enum emu_fw_obj_type type,
				uint32_t id, enum fw_synd invalid,
				enum fw_synd in_use);
/* The same with dying(obj) called once it is marked dying, before it is
 * removed (fw_cmd_obj_destroy's lets the engine passes finish). */
enum fw_synd fw_cmd_obj_destroy_cb(struct fw_cmd *cmd,
				   enum emu_fw_obj_type type, uint32_t id,
				   enum fw_synd invalid, enum fw_synd in_use,
				   void (*dying)(struct emu_fw_obj *obj));

/* ---- memory the device reaches (fw_umem.c) ---- */

/* How a command describes a queue buffer. */
struct fw_buf_desc {
	bool umem_valid;
	uint32_t umem_id;
	uint64_t umem_offset;
	uint32_t page_offset;	/* in units of (page size / 64) */
	uint32_t log_page_size;	/* page size = 4 KiB << log_page_size */
	size_t len;
	const void *pas;	/* page list (64-bit big-endian addresses) */
	size_t npas;		/* entries available in the mailbox */
	bool device_writes;	/* a ring the device writes (CQEs, EQEs) */
};

/* Resolve a queue buffer; on success buf holds a use on its umem. */
enum fw_synd fw_buf_resolve(struct fw_cmd *cmd, const struct fw_buf_desc *d,
			    struct emu_fw_buf *buf);
/* Resolve an 8-byte doorbell record (dbr_umem + dbr_addr, or an address). */
enum fw_synd fw_dbr_resolve(struct fw_cmd *cmd, bool umem_valid,
			    uint32_t umem_id, uint64_t addr,
			    struct emu_fw_buf *buf);
/*
 * A work queue context (struct wq at byte wq_off of cmd->in, its page list
 * following it) as a buffer description of len bytes; its doorbell record;
 * whether it asks for what no work queue here does (signature, end
 * padding, striding, hairpin, header-data split, SHAMPO): RMP, SQ, RQ.
 */
void fw_wq_buf_desc(const struct fw_cmd *cmd, size_t wq_off, size_t len,
		    struct fw_buf_desc *d);
enum fw_synd fw_wq_dbr_resolve(struct fw_cmd *cmd, const void *wq,
			       struct emu_fw_buf *buf);
bool fw_wq_unsupported(const void *wq);
/* Drop the umem use of a resolved range (once per range; buf is left as
 * it was, for readers still using it). */
void fw_buf_release(struct emu_fw_buf *buf);

/* ---- the engine (fw_engine.c) ---- */

/* A QP changed state or is dying; no firmware lock may be held. */
void fw_engine_qp_changed(struct emu_fw_qp *qp);
/* Wait until no engine pass can reach an object being released. */
void fw_engine_sync(struct emu_fw *fw);
/* fn(fnarg) with no engine pass running. */
void fw_engine_run_locked(struct emu_fw *fw, void (*fn)(void *), void *fnarg);
/* Port @port's link changed to @up. */
void fw_engine_port_changed(struct emu_fw *fw, unsigned int port, bool up);
/* A CQ was just published. */
void fw_engine_cq_created(struct emu_fw_cq *cq);
/* Ethernet queues: an SQ or RQ changed state or is dying (as QPs). */
void fw_engine_sq_changed(struct emu_fw_sq *sq);
void fw_engine_rq_changed(struct emu_fw_rq *rq);

/* ---- ports (fw_vport.c) ---- */

int fw_ports_init(struct emu_fw *fw);
void fw_ports_fini(struct emu_fw *fw);

#endif /* MLX5EMU_FW_INT_H */
