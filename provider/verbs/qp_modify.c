/* SPDX-License-Identifier: MIT */
/*
 * ibv_modify_qp, as rdma-core 44 (libibverbs ibv_modify_qp, libmlx5
 * mlx5_modify_qp) over the upstream kernel (uverbs modify_qp,
 * _ib_modify_qp, mlx5_ib_modify_qp, __mlx5_ib_modify_qp, mlx5_set_path)
 * behaves.  The layers check, in order:
 *
 *   libibverbs   attr_mask bits past IBV_QP_RATE_LIMIT: EOPNOTSUPP
 *   uverbs       a bad port (IBV_QP_PORT, the AV's, the alternate path's,
 *                or an RTR AV whose port is not the QP's): EINVAL; a state
 *                past ERR: EINVAL; XRC initiators drop the responder
 *                attributes, XRC targets the requester ones
 *                (modify_qp_mask)
 *   ib_core      a RoCE AV without GRH or with an sgid_index past the
 *                table: EINVAL; naming an empty GID: ENODATA; connected
 *                QPs resolve the destination MAC from the destination GID
 *                (the backend's GID-to-L2 service); PSNs are cut to 24 bits
 *   mlx5_ib      mask bits it does not know: EOPNOTSUPP; the transition
 *                and attr_mask against the IBA table (ib_modify_qp_is_ok;
 *                DCIs their own): EINVAL; P_Key index past the table,
 *                max_rd_atomic/max_dest_rd_atomic past the device's:
 *                EINVAL; RESET->RESET: 0 with no command; an MTU out of
 *                range: EINVAL; remote atomics the device cannot do:
 *                EOPNOTSUPP; a transition with no command (RTS->SQD,
 *                SQD->SQD): EINVAL
 *   firmware     the status's errno (mlx5_cmd_exec)
 *
 * The command is the transition's (RST2INIT_QP ... 2RST_QP) with the
 * qpc mlx5_ib builds and the optional parameters it sends: the attr_mask
 * translated to opt_param bits and masked by the transition's allowed
 * set.  RoCE paths carry the source GID index, the destination GID and
 * MAC, hop limit, traffic class, flow label, DSCP (RoCE v2) and priority,
 * and for RC/UC/XRC with a RoCE v2 source GID and a destination QPN the
 * UDP source port from the flow label (rdma_calc_flow_label of both QPNs
 * when it is 0).  UD QPs always get the 4096-byte MTU.  On success
 * qp->state follows (libibverbs), and a QP moved to RESET has its CQEs
 * removed from its CQs and its queues and doorbell record reset (libmlx5).
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/abi.h"
#include "provider/verbs/caps.h"
#include "provider/verbs/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/query.h"
#include "provider/verbs/verbs_ctx.h"

/* mlx5_qp_optpar (include/linux/mlx5/qp.h). */
enum {
	OPT_ALT_ADDR_PATH = 1u << 0,
	OPT_RRE = 1u << 1,
	OPT_RAE = 1u << 2,
	OPT_RWE = 1u << 3,
	OPT_PKEY_INDEX = 1u << 4,
	OPT_Q_KEY = 1u << 5,
	OPT_RNR_TIMEOUT = 1u << 6,
	OPT_PRIMARY_ADDR_PATH = 1u << 7,
	OPT_SRA_MAX = 1u << 8,
	OPT_RRA_MAX = 1u << 9,
	OPT_PM_STATE = 1u << 10,
	OPT_RETRY_COUNT = 1u << 12,
	OPT_RNR_RETRY = 1u << 13,
	OPT_ACK_TIMEOUT = 1u << 14,
	OPT_PRI_PORT = 1u << 16,
	OPT_SRQN = 1u << 18,
	OPT_CQN_RCV = 1u << 19,
};

/* IB_QP_ATTR_STANDARD_BITS: IB_QP_STATE .. IB_QP_DEST_QPN. */
#define PROV_QP_STANDARD_BITS ((IBV_QP_DEST_QPN << 1) - 1)

/* mlx5_ib's MLX5_IB_ACK_REQ_FREQ. */
#define PROV_ACK_REQ_FREQ 8

/* ---- ib_modify_qp_is_ok(): the IBA state table ---- */

enum { QT_RC, QT_UC, QT_UD, QT_XRC_INI, QT_XRC_TGT, QT_N };

struct qp_trans {
	bool valid;
	uint32_t req[QT_N];
	uint32_t opt[QT_N];
};

#define S(x) IBV_QPS_##x
#define M(x) IBV_QP_##x
#define NSTATE (IBV_QPS_ERR + 1)

static const struct qp_trans qp_table[NSTATE][NSTATE] = {
	[S(RESET)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(INIT)] = {
			.valid = true,
			.req = {
				[QT_UD] = M(PKEY_INDEX) | M(PORT) | M(QKEY),
				[QT_UC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[QT_RC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[QT_XRC_INI] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[QT_XRC_TGT] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
			},
		},
	},
	[S(INIT)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(INIT)] = {
			.valid = true,
			.opt = {
				[QT_UD] = M(PKEY_INDEX) | M(PORT) | M(QKEY),
				[QT_UC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[QT_RC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[QT_XRC_INI] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[QT_XRC_TGT] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
			},
		},
		[S(RTR)] = {
			.valid = true,
			.req = {
				[QT_UC] = M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN),
				[QT_RC] = M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN) |
					  M(MAX_DEST_RD_ATOMIC) | M(MIN_RNR_TIMER),
				[QT_XRC_INI] = M(AV) | M(PATH_MTU) | M(DEST_QPN) |
					       M(RQ_PSN),
				[QT_XRC_TGT] = M(AV) | M(PATH_MTU) | M(DEST_QPN) |
					       M(RQ_PSN) | M(MAX_DEST_RD_ATOMIC) |
					       M(MIN_RNR_TIMER),
			},
			.opt = {
				[QT_UD] = M(PKEY_INDEX) | M(QKEY),
				[QT_UC] = M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX),
				[QT_RC] = M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX),
				[QT_XRC_INI] = M(ALT_PATH) | M(ACCESS_FLAGS) |
					       M(PKEY_INDEX),
				[QT_XRC_TGT] = M(ALT_PATH) | M(ACCESS_FLAGS) |
					       M(PKEY_INDEX),
			},
		},
	},
	[S(RTR)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(RTS)] = {
			.valid = true,
			.req = {
				[QT_UD] = M(SQ_PSN),
				[QT_UC] = M(SQ_PSN),
				[QT_RC] = M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) |
					  M(SQ_PSN) | M(MAX_QP_RD_ATOMIC),
				[QT_XRC_INI] = M(TIMEOUT) | M(RETRY_CNT) |
					       M(RNR_RETRY) | M(SQ_PSN) |
					       M(MAX_QP_RD_ATOMIC),
				[QT_XRC_TGT] = M(TIMEOUT) | M(SQ_PSN),
			},
			.opt = {
				[QT_UD] = M(CUR_STATE) | M(QKEY),
				[QT_UC] = M(CUR_STATE) | M(ALT_PATH) |
					  M(ACCESS_FLAGS) | M(PATH_MIG_STATE),
				[QT_RC] = M(CUR_STATE) | M(ALT_PATH) |
					  M(ACCESS_FLAGS) | M(MIN_RNR_TIMER) |
					  M(PATH_MIG_STATE),
				[QT_XRC_INI] = M(CUR_STATE) | M(ALT_PATH) |
					       M(ACCESS_FLAGS) | M(PATH_MIG_STATE),
				[QT_XRC_TGT] = M(CUR_STATE) | M(ALT_PATH) |
					       M(ACCESS_FLAGS) | M(MIN_RNR_TIMER) |
					       M(PATH_MIG_STATE),
			},
		},
	},
	[S(RTS)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(RTS)] = {
			.valid = true,
			.opt = {
				[QT_UD] = M(CUR_STATE) | M(QKEY),
				[QT_UC] = M(CUR_STATE) | M(ACCESS_FLAGS) |
					  M(ALT_PATH) | M(PATH_MIG_STATE),
				[QT_RC] = M(CUR_STATE) | M(ACCESS_FLAGS) |
					  M(ALT_PATH) | M(PATH_MIG_STATE) |
					  M(MIN_RNR_TIMER),
				[QT_XRC_INI] = M(CUR_STATE) | M(ACCESS_FLAGS) |
					       M(ALT_PATH) | M(PATH_MIG_STATE),
				[QT_XRC_TGT] = M(CUR_STATE) | M(ACCESS_FLAGS) |
					       M(ALT_PATH) | M(PATH_MIG_STATE) |
					       M(MIN_RNR_TIMER),
			},
		},
		[S(SQD)] = {
			.valid = true,
			.opt = {
				[QT_UD] = M(EN_SQD_ASYNC_NOTIFY),
				[QT_UC] = M(EN_SQD_ASYNC_NOTIFY),
				[QT_RC] = M(EN_SQD_ASYNC_NOTIFY),
				[QT_XRC_INI] = M(EN_SQD_ASYNC_NOTIFY),
				[QT_XRC_TGT] = M(EN_SQD_ASYNC_NOTIFY),
			},
		},
	},
	[S(SQD)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(RTS)] = {
			.valid = true,
			.opt = {
				[QT_UD] = M(CUR_STATE) | M(QKEY),
				[QT_UC] = M(CUR_STATE) | M(ALT_PATH) |
					  M(ACCESS_FLAGS) | M(PATH_MIG_STATE),
				[QT_RC] = M(CUR_STATE) | M(ALT_PATH) |
					  M(ACCESS_FLAGS) | M(MIN_RNR_TIMER) |
					  M(PATH_MIG_STATE),
				[QT_XRC_INI] = M(CUR_STATE) | M(ALT_PATH) |
					       M(ACCESS_FLAGS) | M(PATH_MIG_STATE),
				[QT_XRC_TGT] = M(CUR_STATE) | M(ALT_PATH) |
					       M(ACCESS_FLAGS) | M(MIN_RNR_TIMER) |
					       M(PATH_MIG_STATE),
			},
		},
		[S(SQD)] = {
			.valid = true,
			.opt = {
				[QT_UD] = M(PKEY_INDEX) | M(QKEY),
				[QT_UC] = M(AV) | M(ALT_PATH) | M(ACCESS_FLAGS) |
					  M(PKEY_INDEX) | M(PATH_MIG_STATE),
				[QT_RC] = M(PORT) | M(AV) | M(TIMEOUT) |
					  M(RETRY_CNT) | M(RNR_RETRY) |
					  M(MAX_QP_RD_ATOMIC) |
					  M(MAX_DEST_RD_ATOMIC) | M(ALT_PATH) |
					  M(ACCESS_FLAGS) | M(PKEY_INDEX) |
					  M(MIN_RNR_TIMER) | M(PATH_MIG_STATE),
				[QT_XRC_INI] = M(PORT) | M(AV) | M(TIMEOUT) |
					       M(RETRY_CNT) | M(RNR_RETRY) |
					       M(MAX_QP_RD_ATOMIC) | M(ALT_PATH) |
					       M(ACCESS_FLAGS) | M(PKEY_INDEX) |
					       M(PATH_MIG_STATE),
				[QT_XRC_TGT] = M(PORT) | M(AV) | M(TIMEOUT) |
					       M(MAX_DEST_RD_ATOMIC) | M(ALT_PATH) |
					       M(ACCESS_FLAGS) | M(PKEY_INDEX) |
					       M(MIN_RNR_TIMER) | M(PATH_MIG_STATE),
			},
		},
	},
	[S(SQE)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(RTS)] = {
			.valid = true,
			.opt = {
				[QT_UD] = M(CUR_STATE) | M(QKEY),
				[QT_UC] = M(CUR_STATE) | M(ACCESS_FLAGS),
			},
		},
	},
	[S(ERR)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
	},
};

#undef S
#undef M

static int qt_of(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC:
		return QT_RC;
	case IBV_QPT_UC:
		return QT_UC;
	case IBV_QPT_UD:
		return QT_UD;
	case IBV_QPT_XRC_SEND:
		return QT_XRC_INI;
	case IBV_QPT_XRC_RECV:
		return QT_XRC_TGT;
	default:
		return -1;
	}
}

static bool modify_qp_is_ok(enum ibv_qp_state cur, enum ibv_qp_state next,
			    enum ibv_qp_type type, uint32_t mask)
{
	const struct qp_trans *t;
	int qt = qt_of(type);

	if ((unsigned int)cur > IBV_QPS_ERR || (unsigned int)next > IBV_QPS_ERR ||
	    qt < 0)
		return false;
	if ((mask & IBV_QP_CUR_STATE) && cur != IBV_QPS_RTR &&
	    cur != IBV_QPS_RTS && cur != IBV_QPS_SQD && cur != IBV_QPS_SQE)
		return false;
	t = &qp_table[cur][next];
	if (!t->valid)
		return false;
	if ((mask & t->req[qt]) != t->req[qt])
		return false;
	if (mask & ~(t->req[qt] | t->opt[qt] | IBV_QP_STATE))
		return false;
	return true;
}

/* is_valid_mask() and modify_dci_qp_is_ok(). */
static bool valid_mask(uint32_t mask, uint32_t req, uint32_t opt)
{
	return (mask & req) == req && !(mask & ~(req | opt));
}

static bool modify_dci_is_ok(enum ibv_qp_state cur, enum ibv_qp_state next,
			     uint32_t mask)
{
	uint32_t req = IBV_QP_STATE;

	if (next == IBV_QPS_RESET)
		return valid_mask(mask, req, 0);
	if (cur == IBV_QPS_RESET && next == IBV_QPS_INIT)
		return valid_mask(mask, req | IBV_QP_PKEY_INDEX | IBV_QP_PORT, 0);
	if (cur == IBV_QPS_INIT && next == IBV_QPS_INIT)
		return valid_mask(mask, req, IBV_QP_PKEY_INDEX | IBV_QP_PORT);
	if (cur == IBV_QPS_INIT && next == IBV_QPS_RTR)
		return valid_mask(mask, req | IBV_QP_PATH_MTU,
				  IBV_QP_PKEY_INDEX | IBV_QP_AV);
	if (cur == IBV_QPS_RTR && next == IBV_QPS_RTS)
		return valid_mask(mask, req | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
				  IBV_QP_SQ_PSN, IBV_QP_MIN_RNR_TIMER);
	if (cur == IBV_QPS_RTS && next == IBV_QPS_RTS)
		return valid_mask(mask, req, IBV_QP_MIN_RNR_TIMER);
	if (cur != IBV_QPS_RESET && next == IBV_QPS_ERR)
		return valid_mask(mask, req, 0);
	return false;
}

/* ---- opt_param_mask: mlx5_ib's opt_mask[][][] and ib_nr_to_mlx5_nr ---- */

enum { ST_RC, ST_UC, ST_UD, ST_XRC, ST_N };

static uint32_t opt_allowed(enum ibv_qp_state cur, enum ibv_qp_state next,
			    int st)
{
	const uint32_t rc_like = OPT_RRE | OPT_RAE | OPT_RWE;

	if (st < 0)
		return 0;
	if (cur == IBV_QPS_INIT && next == IBV_QPS_INIT) {
		static const uint32_t m[ST_N] = {
			[ST_RC] = OPT_RRE | OPT_RAE | OPT_RWE | OPT_PKEY_INDEX |
				  OPT_PRI_PORT,
			[ST_UC] = OPT_RWE | OPT_PKEY_INDEX | OPT_PRI_PORT,
			[ST_UD] = OPT_PKEY_INDEX | OPT_Q_KEY | OPT_PRI_PORT,
			[ST_XRC] = OPT_RRE | OPT_RAE | OPT_RWE | OPT_PKEY_INDEX |
				   OPT_PRI_PORT,
		};
		return m[st];
	}
	if (cur == IBV_QPS_INIT && next == IBV_QPS_RTR) {
		static const uint32_t m[ST_N] = {
			[ST_RC] = OPT_ALT_ADDR_PATH | OPT_RRE | OPT_RAE | OPT_RWE |
				  OPT_PKEY_INDEX,
			[ST_UC] = OPT_ALT_ADDR_PATH | OPT_RWE | OPT_PKEY_INDEX,
			[ST_UD] = OPT_PKEY_INDEX | OPT_Q_KEY,
			[ST_XRC] = OPT_ALT_ADDR_PATH | OPT_RRE | OPT_RAE | OPT_RWE |
				   OPT_PKEY_INDEX,
		};
		return m[st];
	}
	if (cur == IBV_QPS_RTR && next == IBV_QPS_RTS) {
		static const uint32_t m[ST_N] = {
			[ST_RC] = OPT_ALT_ADDR_PATH | OPT_RRE | OPT_RAE | OPT_RWE |
				  OPT_PM_STATE | OPT_RNR_TIMEOUT,
			[ST_UC] = OPT_ALT_ADDR_PATH | OPT_RWE | OPT_PM_STATE,
			[ST_UD] = OPT_Q_KEY,
			[ST_XRC] = OPT_ALT_ADDR_PATH | OPT_RRE | OPT_RAE | OPT_RWE |
				   OPT_PM_STATE | OPT_RNR_TIMEOUT,
		};
		return m[st];
	}
	if (cur == IBV_QPS_RTS && next == IBV_QPS_RTS) {
		static const uint32_t m[ST_N] = {
			[ST_RC] = OPT_RRE | OPT_RAE | OPT_RWE | OPT_RNR_TIMEOUT |
				  OPT_PM_STATE | OPT_ALT_ADDR_PATH,
			[ST_UC] = OPT_RWE | OPT_PM_STATE | OPT_ALT_ADDR_PATH,
			[ST_UD] = OPT_Q_KEY | OPT_SRQN | OPT_CQN_RCV,
			[ST_XRC] = OPT_RRE | OPT_RAE | OPT_RWE | OPT_RNR_TIMEOUT |
				   OPT_PM_STATE | OPT_ALT_ADDR_PATH,
		};
		return m[st];
	}
	if (cur == IBV_QPS_SQE && next == IBV_QPS_RTS) {
		static const uint32_t m[ST_N] = {
			[ST_UD] = OPT_Q_KEY,
			[ST_UC] = OPT_RWE,
			[ST_RC] = OPT_RNR_TIMEOUT | OPT_RWE | OPT_RAE | OPT_RRE,
			[ST_XRC] = OPT_RNR_TIMEOUT | OPT_RWE | OPT_RAE | OPT_RRE,
		};
		return m[st];
	}
	if (cur == IBV_QPS_SQD && next == IBV_QPS_RTS) {
		static const uint32_t m[ST_N] = {
			[ST_UD] = OPT_Q_KEY,
			[ST_UC] = OPT_RWE,
			[ST_RC] = OPT_RNR_TIMEOUT | OPT_RWE | OPT_RAE | OPT_RRE,
		};
		return m[st];
	}
	(void)rc_like;
	return 0;
}

static uint32_t mask_to_opt(uint32_t mask)
{
	uint32_t o = 0;

	if (mask & IBV_QP_ACCESS_FLAGS)
		o |= OPT_RWE | OPT_RRE | OPT_RAE;
	if (mask & IBV_QP_PKEY_INDEX)
		o |= OPT_PKEY_INDEX;
	if (mask & IBV_QP_PORT)
		o |= OPT_PRI_PORT;
	if (mask & IBV_QP_QKEY)
		o |= OPT_Q_KEY;
	if (mask & IBV_QP_AV)
		o |= OPT_PRIMARY_ADDR_PATH | OPT_PRI_PORT;
	if (mask & IBV_QP_TIMEOUT)
		o |= OPT_ACK_TIMEOUT;
	if (mask & IBV_QP_RETRY_CNT)
		o |= OPT_RETRY_COUNT;
	if (mask & IBV_QP_RNR_RETRY)
		o |= OPT_RNR_RETRY;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		o |= OPT_SRA_MAX;
	if (mask & IBV_QP_ALT_PATH)
		o |= OPT_ALT_ADDR_PATH;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		o |= OPT_RNR_TIMEOUT;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		o |= OPT_RRA_MAX | OPT_RWE | OPT_RRE | OPT_RAE;
	if (mask & IBV_QP_PATH_MIG_STATE)
		o |= OPT_PM_STATE;
	return o;
}

/* ---- the command ---- */

/* optab[][]: the command of a transition, 0 if none. */
static uint16_t qp_opcode(enum ibv_qp_state cur, enum ibv_qp_state next)
{
	if (next == IBV_QPS_RESET)
		return MLX5_CMD_OP_2RST_QP;
	if (next == IBV_QPS_ERR)
		return MLX5_CMD_OP_2ERR_QP;
	switch (cur) {
	case IBV_QPS_RESET:
		return next == IBV_QPS_INIT ? MLX5_CMD_OP_RST2INIT_QP : 0;
	case IBV_QPS_INIT:
		if (next == IBV_QPS_INIT)
			return MLX5_CMD_OP_INIT2INIT_QP;
		return next == IBV_QPS_RTR ? MLX5_CMD_OP_INIT2RTR_QP : 0;
	case IBV_QPS_RTR:
		return next == IBV_QPS_RTS ? MLX5_CMD_OP_RTR2RTS_QP : 0;
	case IBV_QPS_RTS:
		return next == IBV_QPS_RTS ? MLX5_CMD_OP_RTS2RTS_QP : 0;
	case IBV_QPS_SQD:
		return next == IBV_QPS_RTS ? MLX5_CMD_OP_SQD_RTS_QP : 0;
	case IBV_QPS_SQE:
		return next == IBV_QPS_RTS ? MLX5_CMD_OP_SQERR2RTS_QP : 0;
	default:
		return 0;
	}
}

enum ibv_qp_state prov_qp_opcode_state(uint16_t opcode)
{
	switch (opcode) {
	case MLX5_CMD_OP_INIT2INIT_QP:
	case MLX5_CMD_OP_RST2INIT_QP:
		return IBV_QPS_INIT;
	case MLX5_CMD_OP_INIT2RTR_QP:
		return IBV_QPS_RTR;
	case MLX5_CMD_OP_RTR2RTS_QP:
	case MLX5_CMD_OP_RTS2RTS_QP:
	case MLX5_CMD_OP_SQERR2RTS_QP:
	case MLX5_CMD_OP_SQD_RTS_QP:
		return IBV_QPS_RTS;
	case MLX5_CMD_OP_2ERR_QP:
		return IBV_QPS_ERR;
	case MLX5_CMD_OP_2RST_QP:
		return IBV_QPS_RESET;
	default:
		return IBV_QPS_UNKNOWN;
	}
}

static bool is_connected(enum ibv_qp_type t)
{
	return t == IBV_QPT_RC || t == IBV_QPT_UC || t == IBV_QPT_XRC_SEND ||
	       t == IBV_QPT_XRC_RECV;
}

static unsigned int ilog2_u32(uint32_t v)
{
	unsigned int l = 0;

	while (v >>= 1)
		l++;
	return l;
}

/* rdma_calc_flow_label() and rdma_flow_label_to_udp_sport(). */
static uint32_t calc_flow_label(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;

	v ^= v >> 20;
	v ^= v >> 40;
	return (uint32_t)(v & IB_GRH_FLOWLABEL_MASK);
}

static uint16_t flow_label_to_udp_sport(uint32_t fl)
{
	uint32_t fl_low = fl & 0x03fff, fl_high = fl & 0xFC000;

	fl_low ^= fl_high >> 14;
	return (uint16_t)(fl_low | IB_ROCE_UDP_ENCAP_VALID_PORT_MIN);
}

/* ib_rate_to_mlx5(): 0 for the port's rate, else the nearest supported. */
static int rate_to_mlx5(struct prov_context *pctx, enum ibv_rate rate)
{
	uint32_t support = PROV_CAP_GEN(pctx, stat_rate_support);
	int r = (int)rate;

	if (rate == IBV_RATE_MAX)
		return 0;
	if (r < IBV_RATE_2_5_GBPS || r > IBV_RATE_800_GBPS)
		return -EINVAL;
	/* ib_to_mlx5_rate_map(): a few rates have their own codes. */
	while (r != IBV_RATE_MAX) {
		int code;

		switch (r) {
		case IBV_RATE_56_GBPS:
			code = 1;
			break;
		case IBV_RATE_25_GBPS:
			code = 2;
			break;
		case IBV_RATE_100_GBPS:
			code = 3;
			break;
		case IBV_RATE_200_GBPS:
			code = 4;
			break;
		case IBV_RATE_50_GBPS:
			code = 5;
			break;
		case IBV_RATE_400_GBPS:
			code = 6;
			break;
		default:
			code = r + 5;	/* MLX5_STAT_RATE_OFFSET */
			break;
		}
		if ((1u << code) & support)
			return code;
		--r;
	}
	return 0;
}

/* The source GID's RoCE type: 0 v1, 1 v2; or an errno (ENODATA empty). */
static int qp_sgid_type(struct prov_context *pctx, uint8_t port,
			uint8_t index, bool *v2)
{
	struct ibv_gid_entry e;
	int ret = prov_query_gid_entry(pctx, port, index, &e);

	if (ret)
		return ret;
	*v2 = e.gid_type == IBV_GID_TYPE_ROCE_V2;
	return 0;
}

/*
 * ib_core's checks of an AV (rdma_fill_sgid_attr, ib_resolve_eth_dmac)
 * and mlx5_set_path(); @mac is the destination MAC resolved before.
 */
static int qp_set_path(struct prov_qp *qp, const struct ibv_ah_attr *ah,
		       void *path, uint8_t port, uint32_t mask,
		       const struct ibv_qp_attr *attr, bool alt,
		       const uint8_t mac[6], bool v2)
{
	struct prov_context *pctx = qp->pctx;
	enum ibv_qp_type t = qp->vqp.qp.qp_type;
	int rate;

	if (mask & IBV_QP_PKEY_INDEX)
		PRM_SET(ads, path, pkey_index,
			alt ? attr->alt_pkey_index : attr->pkey_index);
	/* RoCE: the GRH is checked by ib_core already. */
	memcpy(PRM_ADDR_OF(ads, path, rmac_47_32), mac, 6);
	if ((t == IBV_QPT_RC || t == IBV_QPT_UC || t == IBV_QPT_XRC_SEND ||
	     t == IBV_QPT_XRC_RECV) && v2 && (mask & IBV_QP_DEST_QPN)) {
		uint32_t fl = ah->grh.flow_label & IB_GRH_FLOWLABEL_MASK;

		if (!fl)
			fl = calc_flow_label(qp->vqp.qp.qp_num, attr->dest_qp_num);
		PRM_SET(ads, path, udp_sport, flow_label_to_udp_sport(fl));
	}
	PRM_SET(ads, path, eth_prio, ah->sl & 0x7);
	if (v2)
		PRM_SET(ads, path, dscp, ah->grh.traffic_class >> 2);
	PRM_SET(ads, path, src_addr_index, ah->grh.sgid_index);
	PRM_SET(ads, path, hop_limit, ah->grh.hop_limit);
	PRM_SET(ads, path, tclass, ah->grh.traffic_class);
	PRM_SET(ads, path, flow_label, ah->grh.flow_label);
	memcpy(PRM_ADDR_OF(ads, path, rgid_rip), ah->grh.dgid.raw, 16);
	rate = rate_to_mlx5(pctx, ah->static_rate);
	if (rate < 0)
		return -rate;
	PRM_SET(ads, path, stat_rate, (uint32_t)rate);
	PRM_SET(ads, path, vhca_port_num, port);
	if (mask & IBV_QP_TIMEOUT)
		PRM_SET(ads, path, ack_timeout,
			alt ? attr->alt_timeout : attr->timeout);
	return 0;
}

/* rdma_fill_sgid_attr() and, for connected QPs, ib_resolve_eth_dmac(). */
static int qp_check_av(struct prov_qp *qp, const struct ibv_ah_attr *ah,
		       uint8_t mac[6], bool *v2)
{
	struct prov_context *pctx = qp->pctx;
	struct ibv_port_attr pa;
	uint16_t vlan;
	int ret;

	memset(mac, 0, 6);
	*v2 = false;
	if (ah->port_num < 1 || ah->port_num > prov_caps_num_ports(pctx))
		return EINVAL;
	memset(&pa, 0, sizeof(pa));
	ret = prov_query_port(pctx, ah->port_num, &pa);
	if (ret)
		return ret;
	if (pa.link_layer != IBV_LINK_LAYER_ETHERNET)
		return EOPNOTSUPP;
	/* RoCE AVs carry a GRH. */
	if (!ah->is_global)
		return EINVAL;
	if (ah->grh.sgid_index >= pa.gid_tbl_len)
		return EINVAL;
	ret = qp_sgid_type(pctx, ah->port_num, ah->grh.sgid_index, v2);
	if (ret)
		return ret;
	if (!is_connected(qp->vqp.qp.qp_type))
		return 0;
	ret = pctx->be->gid_l2_addr(pctx->bectx, ah->port_num, ah->grh.dgid.raw,
				    mac, &vlan);
	return ret < 0 ? -ret : ret;
}

/* get_atomic_mode(): the IB-compatible 8-byte mode, or -EOPNOTSUPP. */
static int qp_atomic_mode(struct prov_context *pctx)
{
	unsigned int ops = PROV_CAP_ATOMIC(pctx, atomic_operations);

	if (!PROV_CAP_GEN(pctx, atomic))
		return -EOPNOTSUPP;
	if ((ops & PROV_ATOMIC_OPS_CMP_SWAP) && (ops & PROV_ATOMIC_OPS_FETCH_ADD))
		return MLX5_QPC_ATOMIC_MODE_IB_SPEC;
	return -EOPNOTSUPP;
}

/* set_qpc_atomic_flags(). */
static int qp_set_access(struct prov_qp *qp, const struct ibv_qp_attr *attr,
			 uint32_t mask, void *qpc)
{
	uint32_t dest_rd_atomic = (mask & IBV_QP_MAX_DEST_RD_ATOMIC) ?
				  attr->max_dest_rd_atomic : qp->resp_depth;
	uint32_t access = (mask & IBV_QP_ACCESS_FLAGS) ? attr->qp_access_flags :
							  qp->atomic_rd_en;

	if (!dest_rd_atomic)
		access &= IBV_ACCESS_REMOTE_WRITE;
	PRM_SET(qpc, qpc, rre, !!(access & IBV_ACCESS_REMOTE_READ));
	if (access & IBV_ACCESS_REMOTE_ATOMIC) {
		int mode = qp_atomic_mode(qp->pctx);

		if (mode < 0)
			return EOPNOTSUPP;
		PRM_SET(qpc, qpc, rae, 1);
		PRM_SET(qpc, qpc, atomic_mode, (uint32_t)mode);
	}
	PRM_SET(qpc, qpc, rwe, !!(access & IBV_ACCESS_REMOTE_WRITE));
	return 0;
}

static int qp_st_index(const struct prov_qp *qp)
{
	switch (qp->vqp.qp.qp_type) {
	case IBV_QPT_RC:
		return ST_RC;
	case IBV_QPT_UC:
		return ST_UC;
	case IBV_QPT_UD:
		return ST_UD;
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		return ST_XRC;
	default:
		return -1;	/* DCI: no optional parameters */
	}
}

static uint32_t qp_st_value(const struct prov_qp *qp)
{
	if (qp->dc == PROV_QP_DCI)
		return MLX5_QPC_ST_DCI;
	switch (qp->vqp.qp.qp_type) {
	case IBV_QPT_UC:
		return MLX5_QPC_ST_UC;
	case IBV_QPT_UD:
		return MLX5_QPC_ST_UD;
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		return MLX5_QPC_ST_XRC;
	default:
		return MLX5_QPC_ST_RC;
	}
}

/* __mlx5_ib_modify_qp(): build and run the transition; 0 or an errno. */
static int qp_modify_cmd(struct prov_qp *qp, const struct ibv_qp_attr *attr,
			 uint32_t mask, enum ibv_qp_state cur,
			 enum ibv_qp_state next, const uint8_t pmac[6], bool pv2,
			 const uint8_t amac[6], bool av2)
{
	struct prov_context *pctx = qp->pctx;
	struct ibv_qp *ibqp = &qp->vqp.qp;
	uint8_t in[PRM_ST_SZ_BYTES(rst2init_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(rst2init_qp_out)] = { 0 };
	void *qpc = PRM_ADDR_OF(rst2init_qp_in, in, qpc);
	void *pri = PRM_ADDR_OF(qpc, qpc, primary_address_path);
	void *alt = PRM_ADDR_OF(qpc, qpc, secondary_address_path);
	uint32_t optpar;
	uint16_t op;
	size_t inlen;
	int err, ret;

	PRM_SET(qpc, qpc, st, qp_st_value(qp));
	if (!(mask & IBV_QP_PATH_MIG_STATE)) {
		PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	} else {
		switch (attr->path_mig_state) {
		case IBV_MIG_MIGRATED:
			PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
			break;
		case IBV_MIG_REARM:
			PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_REARM);
			break;
		case IBV_MIG_ARMED:
			PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_ARMED);
			break;
		}
	}
	if (ibqp->qp_type == IBV_QPT_UD) {
		PRM_SET(qpc, qpc, mtu, IBV_MTU_4096);
		PRM_SET(qpc, qpc, log_msg_max, 12);
	} else if (mask & IBV_QP_PATH_MTU) {
		if (attr->path_mtu < IBV_MTU_256 || attr->path_mtu > IBV_MTU_4096)
			return EINVAL;
		PRM_SET(qpc, qpc, mtu, attr->path_mtu);
		PRM_SET(qpc, qpc, log_msg_max, PROV_CAP_GEN(pctx, log_max_msg));
	}
	if (mask & IBV_QP_DEST_QPN)
		PRM_SET(qpc, qpc, remote_qpn, attr->dest_qp_num);
	if (mask & IBV_QP_PKEY_INDEX)
		PRM_SET(ads, pri, pkey_index, attr->pkey_index);
	if (mask & IBV_QP_PORT)
		PRM_SET(ads, pri, vhca_port_num, attr->port_num);
	if (mask & IBV_QP_AV) {
		err = qp_set_path(qp, &attr->ah_attr, pri,
				  (mask & IBV_QP_PORT) ? attr->port_num : qp->port,
				  mask, attr, false, pmac, pv2);
		if (err)
			return err;
	}
	if (mask & IBV_QP_TIMEOUT)
		PRM_SET(ads, pri, ack_timeout, attr->timeout);
	if (mask & IBV_QP_ALT_PATH) {
		err = qp_set_path(qp, &attr->alt_ah_attr, alt, attr->alt_port_num,
				  mask | IBV_QP_PKEY_INDEX | IBV_QP_TIMEOUT, attr,
				  true, amac, av2);
		if (err)
			return err;
	}
	if (ibqp->qp_type != IBV_QPT_XRC_RECV) {
		PRM_SET(qpc, qpc, pd, prov_pd_pdn(ibqp->pd));
		if (ibqp->send_cq)
			PRM_SET(qpc, qpc, cqn_snd, prov_cq_cqn(ibqp->send_cq));
		if (ibqp->recv_cq && ibqp->qp_type != IBV_QPT_XRC_SEND)
			PRM_SET(qpc, qpc, cqn_rcv, prov_cq_cqn(ibqp->recv_cq));
	} else {
		uint32_t pdn = 0;

		(void)prov_qp_ctx_pd0(pctx, &pdn);
		PRM_SET(qpc, qpc, pd, pdn);
	}
	PRM_SET(qpc, qpc, log_ack_req_freq, PROV_ACK_REQ_FREQ);
	if (mask & IBV_QP_RNR_RETRY)
		PRM_SET(qpc, qpc, rnr_retry, attr->rnr_retry);
	if (mask & IBV_QP_RETRY_CNT)
		PRM_SET(qpc, qpc, retry_count, attr->retry_cnt);
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic)
		PRM_SET(qpc, qpc, log_sra_max, ilog2_u32(attr->max_rd_atomic));
	if (mask & IBV_QP_SQ_PSN)
		PRM_SET(qpc, qpc, next_send_psn, attr->sq_psn);
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && attr->max_dest_rd_atomic)
		PRM_SET(qpc, qpc, log_rra_max, ilog2_u32(attr->max_dest_rd_atomic));
	if (mask & (IBV_QP_ACCESS_FLAGS | IBV_QP_MAX_DEST_RD_ATOMIC)) {
		err = qp_set_access(qp, attr, mask, qpc);
		if (err)
			return err;
	}
	if (mask & IBV_QP_MIN_RNR_TIMER)
		PRM_SET(qpc, qpc, min_rnr_nak, attr->min_rnr_timer);
	if (mask & IBV_QP_RQ_PSN)
		PRM_SET(qpc, qpc, next_rcv_psn, attr->rq_psn);
	if (mask & IBV_QP_QKEY)
		PRM_SET(qpc, qpc, q_key, attr->qkey);
	if (cur == IBV_QPS_RESET && next == IBV_QPS_INIT)
		PRM_SET(qpc, qpc, counter_set_id, 0);

	op = qp_opcode(cur, next);
	if (!op)
		return EINVAL;
	optpar = mask_to_opt(mask) & opt_allowed(cur, next, qp_st_index(qp));
	PRM_SET(rst2init_qp_in, in, opcode, op);
	PRM_SET(rst2init_qp_in, in, qpn, ibqp->qp_num);
	if (op == MLX5_CMD_OP_2RST_QP || op == MLX5_CMD_OP_2ERR_QP) {
		/* mlx5_core's mailboxes for these carry no context. */
		inlen = PRM_ST_SZ_BYTES(qp_2rst_in);
	} else {
		PRM_SET(rst2init_qp_in, in, opt_param_mask, optpar);
		inlen = sizeof(in);
	}
	ret = pctx->be->obj_modify(qp->obj, in, inlen, out, sizeof(out));
	if (ret == -EREMOTEIO)
		return prov_cmd_status_errno(out);
	return ret < 0 ? -ret : ret;
}

/* __mlx5_cq_clean(): drop @rsn's CQEs from @ibcq, freeing SRQ WQEs. */
static void qp_cq_clean(struct ibv_cq *ibcq, uint32_t rsn,
			struct prov_cq_rsc *srq)
{
	struct prov_cq *cq;
	uint32_t prod, nfreed = 0;

	if (!ibcq)
		return;
	cq = to_prov_cq(ibcq);
	if (!cq->single_threaded)
		pthread_spin_lock(&cq->lock);
	for (prod = cq->cons_index;; ++prod) {
		struct mlx5_cqe64 *c = (struct mlx5_cqe64 *)((char *)cq->buf.buf +
			(size_t)(prod & (cq->ncqe - 1)) * cq->cqe_sz +
			(cq->cqe_sz == 128 ? 64 : 0));
		uint8_t op_own = __atomic_load_n(&c->op_own, __ATOMIC_ACQUIRE);

		if ((op_own >> 4) == MLX5_CQE_INVALID ||
		    ((op_own & MLX5_CQE_OWNER_MASK) ^ !!(prod & cq->ncqe)))
			break;
		if (prod == cq->cons_index + cq->ncqe - 1)
			break;
	}
	while ((int)(--prod - cq->cons_index) >= 0) {
		char *cqe = (char *)cq->buf.buf +
			    (size_t)(prod & (cq->ncqe - 1)) * cq->cqe_sz;
		struct mlx5_cqe64 *c64 = (struct mlx5_cqe64 *)
			(cq->cqe_sz == 64 ? cqe : cqe + 64);

		if ((be32toh(c64->srqn_uidx) & 0xffffff) == rsn) {
			uint8_t opcode = c64->op_own >> 4;

			if (srq && srq->rq_complete &&
			    (opcode == MLX5_CQE_RESP_WR_IMM ||
			     opcode == MLX5_CQE_RESP_SEND ||
			     opcode == MLX5_CQE_RESP_SEND_IMM ||
			     opcode == MLX5_CQE_RESP_SEND_INV ||
			     opcode == MLX5_CQE_RESP_ERR))
				(void)srq->rq_complete(srq,
						       be16toh(c64->wqe_counter));
			++nfreed;
		} else if (nfreed) {
			char *dest = (char *)cq->buf.buf +
				     (size_t)((prod + nfreed) & (cq->ncqe - 1)) *
				     cq->cqe_sz;
			struct mlx5_cqe64 *d64 = (struct mlx5_cqe64 *)
				(cq->cqe_sz == 64 ? dest : dest + 64);
			uint8_t owner = d64->op_own & MLX5_CQE_OWNER_MASK;

			memcpy(dest, cqe, cq->cqe_sz);
			d64->op_own = (uint8_t)(owner |
				(d64->op_own & ~MLX5_CQE_OWNER_MASK));
		}
	}
	if (nfreed) {
		cq->cons_index += nfreed;
		__atomic_store_n(&cq->dbrec[PROV_CQ_SET_CI],
				 htobe32(cq->cons_index & 0xffffff),
				 __ATOMIC_RELEASE);
	}
	if (!cq->single_threaded)
		pthread_spin_unlock(&cq->lock);
}

/* libmlx5's reset of a QP moved to RESET. */
static void qp_reset_user(struct prov_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct prov_cq_rsc *srq = ibqp->srq ? &to_prov_srq(ibqp->srq)->rsc : NULL;

	if (ibqp->qp_type != IBV_QPT_XRC_RECV && qp->has_uidx) {
		if (ibqp->recv_cq)
			qp_cq_clean(ibqp->recv_cq, qp->uidx, srq);
		if (ibqp->send_cq && ibqp->send_cq != ibqp->recv_cq)
			qp_cq_clean(ibqp->send_cq, qp->uidx, NULL);
	}
	qp->sq.head = qp->sq.tail = qp->sq.cur_post = 0;
	qp->rq.head = qp->rq.tail = 0;
	if (qp->db) {
		qp->db[PROV_RCV_DBR] = 0;
		qp->db[PROV_SND_DBR] = 0;
	}
}

/* uverbs' modify_qp_mask(). */
static uint32_t modify_qp_mask(enum ibv_qp_type t, uint32_t mask)
{
	if (t == IBV_QPT_XRC_SEND)
		return mask & ~(uint32_t)(IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER);
	if (t == IBV_QPT_XRC_RECV)
		return mask & ~(uint32_t)(IBV_QP_MAX_QP_RD_ATOMIC |
					  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY);
	return mask;
}

/* The uverbs and ib_core checks; *mask may gain IBV_QP_PORT. */
static int qp_check_uverbs(struct prov_qp *qp, struct ibv_qp_attr *attr,
			   uint32_t *mask)
{
	unsigned int nports = prov_caps_num_ports(qp->pctx);
	uint32_t m = *mask;

	if ((m & IBV_QP_PORT) && (attr->port_num < 1 || attr->port_num > nports))
		return EINVAL;
	if (m & IBV_QP_AV) {
		if (attr->ah_attr.port_num < 1 || attr->ah_attr.port_num > nports)
			return EINVAL;
		if ((m & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RTR) {
			if (attr->ah_attr.port_num != qp->port)
				return EINVAL;
		} else if (!(m & IBV_QP_PORT)) {
			m |= IBV_QP_PORT;
			attr->port_num = attr->ah_attr.port_num;
		}
	}
	if ((m & IBV_QP_ALT_PATH) &&
	    (attr->alt_port_num < 1 || attr->alt_port_num > nports ||
	     attr->alt_ah_attr.port_num < 1 ||
	     attr->alt_ah_attr.port_num > nports ||
	     attr->alt_port_num != attr->alt_ah_attr.port_num))
		return EINVAL;
	if (((m & IBV_QP_CUR_STATE) && (unsigned int)attr->cur_qp_state > IBV_QPS_ERR) ||
	    ((m & IBV_QP_STATE) && (unsigned int)attr->qp_state > IBV_QPS_ERR))
		return EINVAL;
	*mask = modify_qp_mask(qp->vqp.qp.qp_type, m);
	return 0;
}

int prov_qp_modify(struct prov_qp *qp, struct ibv_qp_attr *in_attr,
		   int attr_mask)
{
	struct prov_context *pctx = qp->pctx;
	struct ibv_qp_attr attr = *in_attr;
	uint32_t mask = (uint32_t)attr_mask;
	enum ibv_qp_state cur, next;
	uint8_t pmac[6] = { 0 }, amac[6] = { 0 };
	bool pv2 = false, av2 = false;
	int err;

	/* libibverbs: ibv_cmd_modify_qp takes the legacy bits only. */
	if (mask & ~(uint32_t)((IBV_QP_RATE_LIMIT << 1) - 1))
		return EOPNOTSUPP;
	err = qp_check_uverbs(qp, &attr, &mask);
	if (err)
		return err;
	if (qp->dc == PROV_QP_DCT)
		return prov_dct_modify(qp, &attr, (int)mask);

	/* ib_core: the AVs (source GID attribute, destination MAC). */
	if (mask & IBV_QP_AV) {
		err = qp_check_av(qp, &attr.ah_attr, pmac, &pv2);
		if (err)
			return err;
	}
	if (mask & IBV_QP_ALT_PATH) {
		err = qp_check_av(qp, &attr.alt_ah_attr, amac, &av2);
		if (err)
			return err;
	}
	attr.rq_psn &= 0xffffff;
	attr.sq_psn &= 0xffffff;

	/* mlx5_ib_modify_qp(). */
	if (mask & ~(uint32_t)(PROV_QP_STANDARD_BITS | IBV_QP_RATE_LIMIT))
		return EOPNOTSUPP;
	pthread_mutex_lock(&qp->lock);
	cur = (mask & IBV_QP_CUR_STATE) ? attr.cur_qp_state : qp->kstate;
	next = (mask & IBV_QP_STATE) ? attr.qp_state : cur;
	if (qp->dc == PROV_QP_DCI) {
		if (!modify_dci_is_ok(cur, next, mask)) {
			err = EINVAL;
			goto out;
		}
	} else if (!modify_qp_is_ok(cur, next, qp->vqp.qp.qp_type, mask)) {
		err = EINVAL;
		goto out;
	}
	if ((mask & IBV_QP_PKEY_INDEX) &&
	    attr.pkey_index >= (128u << (PROV_CAP_GEN(pctx, pkey_table_size) & 0xf))) {
		err = EINVAL;
		goto out;
	}
	if (qp->dc == PROV_QP_DCI) {
		if (((mask & IBV_QP_MAX_QP_RD_ATOMIC) &&
		     attr.max_rd_atomic > (1u << PROV_CAP_GEN(pctx, log_max_ra_res_dc))) ||
		    ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) &&
		     attr.max_dest_rd_atomic > (1u << PROV_CAP_GEN(pctx, log_max_ra_req_dc)))) {
			err = EINVAL;
			goto out;
		}
	} else if (((mask & IBV_QP_MAX_QP_RD_ATOMIC) &&
		    attr.max_rd_atomic > (1u << PROV_CAP_GEN(pctx, log_max_ra_res_qp))) ||
		   ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) &&
		    attr.max_dest_rd_atomic > (1u << PROV_CAP_GEN(pctx, log_max_ra_req_qp)))) {
		err = EINVAL;
		goto out;
	}
	if (cur == next && cur == IBV_QPS_RESET) {
		err = 0;
		goto done;
	}
	err = qp_modify_cmd(qp, &attr, mask, cur, next, pmac, pv2, amac, av2);
	if (err)
		goto out;
	qp->kstate = next;
	if (mask & IBV_QP_ACCESS_FLAGS)
		qp->atomic_rd_en = attr.qp_access_flags;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->resp_depth = attr.max_dest_rd_atomic;
done:
	/* ib_core: qp->port follows IB_QP_PORT. */
	if (mask & IBV_QP_PORT)
		qp->port = attr.port_num;
	pthread_mutex_unlock(&qp->lock);
	/* libmlx5's part after the command. */
	if ((mask & IBV_QP_STATE) && next == IBV_QPS_RESET)
		qp_reset_user(qp);
	if (mask & IBV_QP_STATE)
		prov_qp_set_operational_state(qp, next);
	return 0;
out:
	pthread_mutex_unlock(&qp->lock);
	return err;
}

MLX5EMU_ABI(ibv_modify_qp);
int mlx5emu_abi_ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			      int attr_mask)
{
	struct prov_qp *qp;
	int err;

	if (!ibqp || !attr) {
		errno = EINVAL;
		return EINVAL;
	}
	qp = to_prov_qp(ibqp);
	err = prov_qp_modify(prov_qp_real(qp), attr, attr_mask);
	if (err) {
		errno = err;
		return err;
	}
	if (attr_mask & IBV_QP_STATE)
		ibqp->state = attr->qp_state;
	return 0;
}
