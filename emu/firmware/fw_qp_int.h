/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_qp_int.h -- shared by the QP, DCT and SRQ files of the
 * firmware (fw_qp.c, fw_qp_modify.c, fw_qp_rules.c, fw_dct.c, fw_srq*.c,
 * fw_xrc_srq.c, fw_rmp.c): the QP state machine's tables and the helpers
 * around them.  Not for use outside emu/firmware/.
 */
#ifndef MLX5EMU_FW_QP_INT_H
#define MLX5EMU_FW_QP_INT_H

#include "emu/firmware/fw_int.h"

/* The service classes the rules tell apart (mlx5_ib's opt_mask ST index;
 * XRC initiator and target share MLX5_QP_ST_XRC). */
enum fw_qp_class {
	FW_QPCL_RC,
	FW_QPCL_UC,
	FW_QPCL_UD,
	FW_QPCL_XRC,
	FW_QPCL_DCI,
	FW_QPCL_N
};

/* The transition commands. */
enum fw_qp_tr {
	FW_TR_RST2INIT,
	FW_TR_INIT2INIT,
	FW_TR_INIT2RTR,
	FW_TR_RTR2RTS,
	FW_TR_RTS2RTS,
	FW_TR_SQERR2RTS,
	FW_TR_SQD2RTS,
	FW_TR_2ERR,
	FW_TR_2RST,
	FW_TR_N
};

/*
 * Field groups: what a transition takes from the command's qpc into the
 * QP's context.  A transition takes its required groups always and an
 * optional group only when its opt_param_mask bit is set; every other
 * field of the command's qpc is ignored.
 */
enum {
	FW_QPF_PKEY = 1u << 0,		/* primary_address_path.pkey_index */
	FW_QPF_PORT = 1u << 1,		/* primary_address_path.vhca_port_num */
	FW_QPF_RRE = 1u << 2,
	FW_QPF_RWE = 1u << 3,
	FW_QPF_RAE = 1u << 4,		/* rae and atomic_mode */
	FW_QPF_QKEY = 1u << 5,
	FW_QPF_COUNTER = 1u << 6,	/* counter_set_id */
	FW_QPF_MTU = 1u << 7,		/* mtu, log_msg_max */
	FW_QPF_REMOTE_QPN = 1u << 8,
	FW_QPF_RQ_PSN = 1u << 9,	/* next_rcv_psn */
	FW_QPF_MIN_RNR = 1u << 10,	/* min_rnr_nak */
	FW_QPF_RRA = 1u << 11,		/* log_rra_max */
	FW_QPF_PATH = 1u << 12,		/* primary path but pkey, ack_timeout */
	FW_QPF_SQ_PSN = 1u << 13,	/* next_send_psn */
	FW_QPF_RETRY = 1u << 14,	/* retry_count, rnr_retry */
	FW_QPF_SRA = 1u << 15,		/* log_sra_max */
	FW_QPF_ACK_TIMEOUT = 1u << 16,	/* primary_address_path.ack_timeout */
	FW_QPF_ACK_FREQ = 1u << 17,	/* log_ack_req_freq */
	FW_QPF_ALT_PATH = 1u << 18,	/* secondary_address_path */
	FW_QPF_PM = 1u << 19,		/* pm_state */
	FW_QPF_LAG = 1u << 20,		/* lag_tx_port_affinity */
	FW_QPF_SRQN = 1u << 21,		/* srqn_rmpn_xrqn */
	FW_QPF_CQN_RCV = 1u << 22,
	FW_QPF_UDP_SPORT = 1u << 23,	/* primary_address_path.udp_sport */
};

struct fw_qp_transition {
	uint16_t opcode;
	const char *name;	/* "INIT2RTR" */
	uint16_t from;		/* legal source states: 1 << MLX5_QPC_STATE_* */
	uint8_t to;		/* MLX5_QPC_STATE_* */
	bool has_qpc;		/* carries opt_param_mask and a qpc */
};

/* ---- fw_qp_rules.c: the tables ---- */

/* The transition an opcode is, or -1. */
int fw_qp_tr_of_opcode(uint16_t opcode);
const struct fw_qp_transition *fw_qp_transition(enum fw_qp_tr tr);
enum fw_qp_class fw_qp_class_of(const struct emu_fw_qp *qp);
const char *fw_qp_class_name(enum fw_qp_class cls);
/* opt_param_mask bits allowed for a transition and class. */
uint32_t fw_qp_opt_allowed(const struct emu_fw *fw, enum fw_qp_tr tr,
			   enum fw_qp_class cls);
/* Field groups a transition always takes for a class. */
uint32_t fw_qp_required(enum fw_qp_tr tr, enum fw_qp_class cls,
			const void *qpc);
/* Field groups the opt_param_mask bits name. */
uint32_t fw_qp_opt_groups(uint32_t opt_param_mask);
/* opt_param_mask_95_32 bits allowed for a transition and class (only
 * RTS2RTS carries that mask), and the field groups they name. */
uint64_t fw_qp_opt_ext_allowed(const struct emu_fw *fw, enum fw_qp_tr tr,
			       enum fw_qp_class cls);
uint32_t fw_qp_opt_ext_groups(uint64_t opt_param_mask_95_32);

/* Validate groups of the command's qpc for qp (no side effects). */
enum fw_synd fw_qp_check_groups(struct fw_cmd *cmd,
				const struct emu_fw_qp *qp, uint32_t groups,
				const void *qpc);
/* Copy groups of src (a qpc) into dst (a qpc). */
void fw_qp_copy_groups(void *dst, const void *src, uint32_t groups);
/* Decode a stored qpc into attributes. */
void fw_qp_attr_from_qpc(struct emu_fw_qp_attr *a, const void *qpc);
/* The ECE options the device accepts for those a command asks (0: none,
 * or ECE not advertised). */
uint32_t fw_qp_ece(const struct emu_fw *fw, uint32_t ece);

/* Shared checks (QP paths, DCT). */
enum fw_synd fw_check_port(const struct emu_fw *fw, uint32_t port);
enum fw_synd fw_check_pkey_index(const struct emu_fw *fw, uint32_t index);
enum fw_synd fw_check_gid_index(struct emu_fw *fw, uint32_t port,
				uint32_t index);
enum fw_synd fw_check_mtu(uint32_t mtu, bool zero_ok);
enum fw_synd fw_check_counter(struct fw_cmd *cmd, uint32_t id,
			      struct emu_fw_q_counter **qcp);

/* ---- fw_qp.c ---- */

/* Find a QP or DCT the command operates on (owner only), of this kind.
 * invalid: the syndrome for "no such object". */
enum fw_synd fw_qp_own(struct fw_cmd *cmd, uint32_t qpn,
		       enum emu_fw_qp_kind kind, enum fw_synd invalid,
		       struct emu_fw_qp **qpp);
/* The destroy of a QP or DCT of this kind (any state). */
enum fw_synd fw_qp_destroy(struct fw_cmd *cmd, uint32_t qpn,
			   enum emu_fw_qp_kind kind, enum fw_synd invalid);
/* Under qp->lock: the QP is being destroyed. */
bool fw_qp_dying(const struct emu_fw_qp *qp);
/* Replace the use an atomic object pointer (slot: T *_Atomic *) holds with
 * nobj's (already taken; may be NULL), dropping the old one. */
#define FW_USE_SWAP(slot, nobj)						\
	do {								\
		__typeof__(atomic_load(slot)) old_ =			\
			atomic_exchange((slot), (nobj));		\
		if (old_)						\
			fw_obj_unuse(&old_->obj);			\
	} while (0)
/* Drop the use an _Atomic slot holds, leaving the pointer for readers. */
#define FW_USE_DROP(slot)						\
	do {								\
		__typeof__(atomic_load(slot)) cur_ = atomic_load(slot);	\
		if (cur_)						\
			fw_obj_unuse(&cur_->obj);			\
	} while (0)

/* ---- fw_srq_common.c: the SRQ object shared by SRQ, XRC SRQ and RMP ---- */

/* Use an SRQ-like object (any kind) for a QP or DCT; bad: the syndrome. */
enum fw_synd fw_srq_use(struct fw_cmd *cmd, uint32_t srqn, enum fw_synd bad,
			struct emu_fw_srq **srqp);
/* Find an SRQ-like object of this kind owned by the caller (else the
 * kind's "invalid" syndrome). */
enum fw_synd fw_srq_own(struct fw_cmd *cmd, uint32_t srqn,
			enum emu_fw_srq_kind kind, struct emu_fw_srq **srqp);
/* What every kind's create describes. */
struct fw_srq_params {
	uint32_t log_size;		/* log2 of the number of WQEs */
	uint32_t log_stride;		/* log2 of the WQE stride in bytes */
	uint32_t lwm, pd, cqn, xrcd;	/* cqn/xrcd 0: none (unless required) */
	bool cq_required, xrcd_required;
	struct fw_buf_desc buf;
	bool dbr_umem_valid;
	uint32_t dbr_umem_id;
	uint64_t dbr_addr;
	uint32_t user_index;		/* XRC SRQ: for its CQEs */
	bool cyclic;			/* RMP: cyclic WQ, not a linked list */
};
/* The create of one kind: checks size, stride (32..max_wqe_sz_rq) and lwm,
 * takes the objects and the memory, keeps ctx (the kind's context) for
 * queries and publishes the SRQ (*srqp) -- or undoes it all. */
enum fw_synd fw_srq_create(struct fw_cmd *cmd, enum emu_fw_srq_kind kind,
			   const struct fw_srq_params *p, const void *ctx,
			   struct emu_fw_srq **srqp);
/* The query of one kind: the context into ctx, with the current state, lwm
 * and (if the context has it) wqe_cnt. */
enum fw_synd fw_srq_query(struct fw_cmd *cmd, enum emu_fw_srq_kind kind,
			  uint32_t srqn, void *ctx);
/* The arm of one kind: a new limit watermark (below the number of WQEs). */
enum fw_synd fw_srq_arm(struct fw_cmd *cmd, enum emu_fw_srq_kind kind,
			uint32_t srqn, uint32_t lwm);
/* The destroy of one kind (in use: SRQ_IN_USE). */
enum fw_synd fw_srq_destroy(struct fw_cmd *cmd, enum emu_fw_srq_kind kind,
			    uint32_t srqn);

#endif /* MLX5EMU_FW_QP_INT_H */
