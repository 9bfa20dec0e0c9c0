/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_devx_rules.h -- the pure rules the Linux kernel's DEVX
 * layer applies to PRM mailboxes between a DEVX caller and firmware.
 *
 * Facts (not code) from Linux drivers/infiniband/hw/mlx5/devx.c (mainline,
 * the version that executes commands with mlx5_cmd_do()), qpc.c,
 * drivers/net/ethernet/mellanox/mlx5/core/cmd.c and cq.c, and layouts from
 * include/linux/mlx5/mlx5_ifc.h.  Every function here is stateless: it reads
 * or writes the mailboxes it is given and nothing else.  Functions that can
 * fail return 0 or a negative errno.
 *
 * Buffers: the rules read and write fixed PRM offsets.  A mailbox passed to
 * a function without a length must be at least kern_devx_in_span(opcode)
 * (inbox) or kern_devx_out_span(opcode) (outbox) bytes; the kernel layer
 * should keep the caller's mailbox in a zeroed copy of
 * max(len, span) bytes (the kernel itself writes the *_umem_valid bits into
 * its copy whatever the length; firmware only ever sees `len` bytes).
 *
 * The order in which the kernel applies these rules, per DEVX method:
 *
 *   all methods  uverbs: cmd_in and cmd_out attribute lengths in
 *                [KERN_DEVX_CMD_IN_MIN, KERN_DEVX_ATTR_LEN_MAX] and
 *                [KERN_DEVX_CMD_OUT_MIN, KERN_DEVX_ATTR_LEN_MAX], else EINVAL
 *                (async query: out_len is a u16 constant, no minimum)
 *   general      uid (kern_devx_pick_uid) -> kern_devx_is_general_cmd, EINVAL
 *                (no vhca_tunnel_id check) -> stamp uid -> execute
 *   obj_create   vhca_tunnel_id != 0: EINVAL -> uid -> kern_devx_is_create_cmd,
 *                EINVAL -> stamp uid + kern_devx_prepare_create (CREATE_MKEY
 *                shorter than KERN_DEVX_MKEY_IN_MIN: EINVAL) -> CREATE_CQ (not
 *                an APU CQ): the cqc.c_eqn must name a completion EQ, else
 *                ENOENT (mlx5_create_cq) -> execute -> build the destroy
 *   obj_modify   vhca_tunnel_id -> uid -> kern_devx_is_modify_cmd -> object id
 *                vs handle (kern_devx_obj_id_matches), EINVAL -> stamp uid ->
 *                kern_devx_set_umem_valid -> execute
 *   obj_query    as modify, kern_devx_is_query_cmd, no umem_valid
 *   async query  as query; then more than KERN_DEVX_ASYNC_BYTES_MAX of
 *                outstanding out_len on the cmd fd: EAGAIN
 *   execute      create/modify/query/general with outbox status != OK:
 *                EREMOTEIO and the outbox is copied back (mlx5_cmd_do);
 *                destroy (and the kernel's own commands): the status is
 *                mapped by kern_status_to_errno (mlx5_cmd_exec)
 *
 * kern_devx_check() applies the length, vhca_tunnel_id, uid and class steps
 * in that order for one method.
 */
#ifndef MLX5EMU_EMU_KERNEL_KERN_DEVX_RULES_H
#define MLX5EMU_EMU_KERNEL_KERN_DEVX_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- lengths and limits the kernel checks ---- */
enum {
	/* UVERBS_ATTR_MIN_SIZE(MLX5_ST_SZ_BYTES(general_obj_in_cmd_hdr)) on
	 * every DEVX *_CMD_IN attribute (devx.c method declarations). */
	KERN_DEVX_CMD_IN_MIN = 16,
	/* ... and general_obj_out_cmd_hdr on every *_CMD_OUT. */
	KERN_DEVX_CMD_OUT_MIN = 16,
	/* UVERBS_ATTR_MIN_SIZE(x) is UVERBS_ATTR_SIZE(x, USHRT_MAX);
	 * uverbs_process_attr(): len < min or len > max is EINVAL. */
	KERN_DEVX_ATTR_LEN_MAX = 65535,
	/* devx_handle_mkey_create(): byte offset + size of
	 * create_mkey_in.memory_key_mkey_entry (16 + 64). */
	KERN_DEVX_MKEY_IN_MIN = 80,
	/* MAX_ASYNC_BYTES_IN_USE: outstanding async-query out_len per cmd fd. */
	KERN_DEVX_ASYNC_BYTES_MAX = 1024 * 1024,
	/* MLX5_MAX_DESTROY_INBOX_SIZE_DW * 4 = MLX5_ST_SZ_BYTES(delete_fte_in):
	 * the largest destroy inbox kern_devx_build_destroy() writes. */
	KERN_DEVX_DESTROY_INBOX_MAX = 64,
	/* devx_obj_cleanup()/devx_umem_cleanup(): out is general_obj_out_cmd_hdr. */
	KERN_DEVX_DESTROY_OUTLEN = 16,
};

/* ---- command classes ---- */
enum kern_cmd_class {
	KERN_CMD_GENERAL,	/* devx_is_general_cmd (DEVX_OTHER) */
	KERN_CMD_CREATE,	/* devx_is_obj_create_cmd */
	KERN_CMD_MODIFY,	/* devx_is_obj_modify_cmd */
	KERN_CMD_QUERY,		/* devx_is_obj_query_cmd */
	KERN_CMD_DESTROY,	/* built by devx_obj_build_destroy_cmd; DEVX
				 * destroys only by handle */
	KERN_CMD_KERNEL_ONLY,	/* issued by mlx5_core/mlx5_ib itself */
	KERN_CMD_UNKNOWN,	/* anything else */
};

/*
 * The class of an opcode alone.  Opcodes whose class depends on the mailbox
 * get their primary class: SET_FLOW_TABLE_ENTRY (create with op_mod 0,
 * modify with op_mod 1), ADD_VXLAN_UDP_DPORT and SET_L2_TABLE_ENTRY (create
 * and modify), CREATE_PSV (create only with num_psv == 1) are KERN_CMD_CREATE.
 * DEVX accepts only GENERAL/CREATE/MODIFY/QUERY, each through its own method:
 * use the kern_devx_is_*_cmd() predicates on the mailbox to decide.
 * General commands assume the device lacks vhca_tunnel_commands.
 */
enum kern_cmd_class kern_devx_classify(uint16_t opcode);
const char *kern_cmd_class_str(enum kern_cmd_class cls);

/* The exact devx.c predicates over an inbox. */
bool kern_devx_is_general_cmd(const void *in, bool vhca_tunnel_cap);
bool kern_devx_is_create_cmd(const void *in);
bool kern_devx_is_modify_cmd(const void *in);
bool kern_devx_is_query_cmd(const void *in);
/* devx_is_whitelist_cmd: may use the device's whitelist uid when the
 * context has no DEVX uid. */
bool kern_devx_is_whitelist_cmd(uint16_t opcode);

/*
 * devx_get_uid: the uid the kernel stamps, or -EOPNOTSUPP (whitelisted
 * command, neither uid), -EINVAL (other command, no context uid).  A uid of
 * 0 means "none".
 */
int kern_devx_pick_uid(uint16_t ctx_uid, uint16_t whitelist_uid,
		       const void *in);

/* ---- mailbox header fields ---- */
uint16_t kern_mbox_opcode(const void *in);
uint16_t kern_mbox_op_mod(const void *in);
uint16_t kern_mbox_uid(const void *in);
/* Stamps general_obj_in_cmd_hdr.uid, overwriting the caller's. */
void kern_mbox_set_uid(void *in, uint16_t uid);
/* Non-zero: obj create/modify/query (and async query) refuse with EINVAL. */
uint16_t kern_mbox_vhca_tunnel_id(const void *in);
uint8_t kern_mbox_status(const void *out);
uint32_t kern_mbox_syndrome(const void *out);

/*
 * Bytes of the inbox / outbox of `opcode` that the rules below may touch
 * (at least the 16-byte command header); 16 for opcodes with no rule.
 * Whole 32-bit words: the PRM accessors read and write the dword holding a
 * field, so a buffer of this many bytes takes every rule.
 */
size_t kern_devx_in_span(uint16_t opcode);
size_t kern_devx_out_span(uint16_t opcode);

/* ---- object ids ---- */
/* get_enc_obj_id: (opcode << 32) | id; general objects pass
 * CREATE_GENERAL_OBJECT | obj_type << 16 as the opcode. */
static inline uint64_t kern_devx_enc_obj_id(uint32_t opcode, uint32_t id)
{
	return (uint64_t)opcode << 32 | id;
}

static inline uint32_t kern_devx_dec_obj_id(uint64_t enc_id)
{
	return (uint32_t)enc_id;
}

/* The creating opcode of an encoded id (get_dec_obj_type's opcode). */
static inline uint16_t kern_devx_enc_opcode(uint64_t enc_id)
{
	return (uint16_t)(enc_id >> 32);
}

/* The general object type of an encoded id, 0 for other objects. */
static inline uint16_t kern_devx_enc_obj_type(uint64_t enc_id)
{
	return (uint16_t)(enc_id >> 48);
}

/*
 * devx_get_created_obj_id, encoded as the DEVX object's obj_id: the id a
 * successful create left in the outbox (or, for SET_FLOW_TABLE_ENTRY,
 * ADD_VXLAN_UDP_DPORT, SET_L2_TABLE_ENTRY and ATTACH_TO_MCG, in the inbox).
 * Also handles CREATE_UMEM (the kernel's umem registration).  -EINVAL for
 * an opcode that creates nothing.
 */
int kern_devx_created_obj_id(const void *in, const void *out,
			     uint64_t *enc_id);

/* devx_get_obj_id: the object a modify/query inbox targets; -EINVAL if the
 * opcode targets no object. */
int kern_devx_target_obj_id(const void *in, uint64_t *enc_id);

/*
 * devx_is_valid_obj_id for a DEVX object handle: whether the inbox targets
 * the object whose encoded id is handle_enc_id.  flow_counter_bulk (from
 * kern_devx_flow_counter_bulk() at create) widens QUERY_FLOW_COUNTER to
 * [id, id + bulk).  (For handles of verbs objects the kernel compares with
 * the encoded ids of the objects behind them: CQ -> CREATE_CQ cqn, QP ->
 * CREATE_QP qpn or, for raw packet QPs, its RQ/SQ/TIR/TIS, DCT -> CREATE_DCT,
 * SRQ -> CREATE_XRC_SRQ/CREATE_XRQ/CREATE_RMP (CREATE_SRQ before ISSI 1),
 * WQ -> CREATE_RQ, RWQ_IND_TBL -> CREATE_RQT.)
 */
bool kern_devx_obj_id_matches(uint64_t handle_enc_id,
			      uint32_t flow_counter_bulk, const void *in);

/* ALLOC_FLOW_COUNTER: the number of counters the object spans
 * (1 << flow_counter_bulk_log_size, else 128 * flow_counter_bulk); 0 for
 * other opcodes and for a single counter. */
uint32_t kern_devx_flow_counter_bulk(const void *create_in);

/* ---- what the kernel writes into the inbox ---- */
/* devx_set_umem_valid: sets the *_umem_valid bits of CREATE_MKEY, CREATE_CQ,
 * CREATE_QP, CREATE_RQ, CREATE_SQ, MODIFY_CQ, CREATE_RMP, CREATE_XRQ,
 * CREATE_XRC_SRQ; other opcodes are left untouched. */
void kern_devx_set_umem_valid(void *in);

/*
 * The obj_create path after the class check: stamps uid, then for
 * CREATE_MKEY applies devx_handle_mkey_create (inlen below
 * KERN_DEVX_MKEY_IN_MIN: -EINVAL; KLM/KSM (indirect) mkeys keep
 * mkey_umem_valid as given, others get it set) and for every other opcode
 * kern_devx_set_umem_valid().  Writes nothing at or past inlen.
 */
int kern_devx_prepare_create(void *in, size_t inlen, uint16_t uid);

/* CREATE_MKEY with access mode KLMS or KSM. */
bool kern_devx_mkey_is_indirect(const void *create_mkey_in);

/* CREATE_CQ: the EQ number the kernel looks up (mlx5_create_cq: no such
 * completion EQ is ENOENT); is_apu_cq() CQs skip that path. */
uint32_t kern_devx_cq_eqn(const void *create_cq_in);
bool kern_devx_cq_is_apu(const void *create_cq_in, bool apu_cap);

/* ---- destroy ---- */
/*
 * devx_obj_build_destroy_cmd: the destroy inbox for the object created by
 * create_in/create_out: opcode, uid (the create's, as stamped), the object's
 * id, the general object type, and what devx.c copies from the create
 * (flow table/group/entry addressing, scheduling hierarchy, the multicast
 * GID).  destroy_in must have room for *destroy_inlen bytes (at most
 * KERN_DEVX_DESTROY_INBOX_MAX); they are zeroed first.  *destroy_outlen is
 * the outbox length the kernel uses.  -EINVAL for an opcode that creates
 * nothing.
 */
int kern_devx_build_destroy(const void *create_in, const void *create_out,
			    void *destroy_in, size_t *destroy_inlen,
			    size_t *destroy_outlen);

/* How the kernel executes an object's destroy (devx_obj_cleanup). */
enum kern_destroy_flow {
	KERN_DESTROY_PLAIN,	/* the built inbox, mlx5_cmd_exec */
	KERN_DESTROY_CQ,	/* mlx5_core_destroy_cq: detach from its EQs,
				 * then the same DESTROY_CQ inbox */
	KERN_DESTROY_FLOW_RULE,	/* a steering rule of the kernel's root
				 * (kern_flow.c): its entry, then its group */
	KERN_DESTROY_DCT,	/* mlx5_core_destroy_dct: DRAIN_DCT, wait for
				 * the DCT_DRAINED event, then DESTROY_DCT (a
				 * drain error other than a dead device stops
				 * the destroy) */
};

enum kern_destroy_flow kern_devx_destroy_flow(const void *create_in,
					      bool apu_cap);

/* mlx5_core_drain_dct: the DRAIN_DCT inbox (opcode, uid, dctn) for the
 * DESTROY_DCT inbox built above.  -EINVAL if destroy_in is not DESTROY_DCT. */
int kern_devx_build_drain_dct(const void *destroy_dct_in, void *drain_in,
			      size_t *drain_inlen);

/* ---- status -> errno ---- */
/*
 * cmd_status_to_err (core/cmd.c), as mlx5_cmd_exec() returns it for
 * destroys and for the kernel's own commands: 0 for OK, a negative errno
 * otherwise.
 */
int kern_status_to_errno(uint8_t status);

/*
 * The errno a DEVX method returns for a firmware status: GENERAL, CREATE,
 * MODIFY and QUERY run through mlx5_cmd_do() (-EREMOTEIO, outbox copied
 * back); DESTROY and KERNEL_ONLY through mlx5_cmd_exec()
 * (kern_status_to_errno).
 */
int kern_devx_status_errno(enum kern_cmd_class cls, uint8_t status);

/* ---- the pre-firmware checks of one DEVX method ---- */
enum kern_devx_method {
	KERN_DEVX_GENERAL,	/* MLX5_IB_METHOD_DEVX_OTHER */
	KERN_DEVX_OBJ_CREATE,
	KERN_DEVX_OBJ_MODIFY,
	KERN_DEVX_OBJ_QUERY,
	KERN_DEVX_OBJ_ASYNC_QUERY,
};

/*
 * Lengths, vhca_tunnel_id, uid and class, in the kernel's order (see the top
 * of this file).  On success *uid is the uid to stamp.  Does not check the
 * object id against the handle, the CREATE_MKEY length (prepare_create) or
 * the async byte budget.  For KERN_DEVX_OBJ_ASYNC_QUERY outlen is the u16
 * out_len constant and has no minimum.
 */
int kern_devx_check(enum kern_devx_method method, const void *in,
		    size_t inlen, size_t outlen, uint16_t ctx_uid,
		    uint16_t whitelist_uid, bool vhca_tunnel_cap,
		    uint16_t *uid);

#endif /* MLX5EMU_EMU_KERNEL_KERN_DEVX_RULES_H */
