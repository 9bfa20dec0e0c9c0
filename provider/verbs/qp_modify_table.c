/* SPDX-License-Identifier: MIT */
/*
 * The tables behind ibv_modify_qp (qp_modify.c), as the upstream kernel
 * keeps them: ib_modify_qp_is_ok()'s IBA state table of required and
 * optional attributes per transition and QP type (DCIs: mlx5_ib's
 * modify_dci_qp_is_ok), mlx5_ib's opt_mask[][][] of the optional
 * parameters each transition's command takes and ib_nr_to_mlx5_nr's
 * attr_mask translation, and optab[][], the command of each transition.
 */
#include <stdbool.h>
#include <stdint.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"

/* ---- ib_modify_qp_is_ok(): the IBA state table ---- */

enum { QT_RC, QT_UC, QT_UD, QT_XRC_INI, QT_XRC_TGT, QT_RAW, QT_N };

struct qp_trans {
	bool valid;
	uint32_t req[QT_N];
	uint32_t opt[QT_N];
};

#define S(x) IBV_QPS_##x
#define M(x) IBV_QP_##x
#define NSTATE (IBV_QPS_ERR + 1)

/* A per-type attribute set; the XRC initiator is a requester like UC, the
 * XRC target a responder like RC (QT_LIKE), or all connected types alike
 * (QT_CONN). */
#define QT_SET_RAW(ud, uc, rc, xini, xtgt, raw)                               \
	{ [QT_UD] = (ud), [QT_UC] = (uc), [QT_RC] = (rc),                      \
	  [QT_XRC_INI] = (xini), [QT_XRC_TGT] = (xtgt), [QT_RAW] = (raw) }
#define QT_SET(ud, uc, rc, xini, xtgt) QT_SET_RAW(ud, uc, rc, xini, xtgt, 0)
#define QT_LIKE(ud, uc, rc) QT_SET(ud, uc, rc, uc, rc)
#define QT_CONN(ud, conn) QT_SET(ud, conn, conn, conn, conn)

/* Every state may go to RESET and ERR with no attributes. */
#define TO_RESET_ERR                                                          \
	[S(RESET)] = { .valid = true }, [S(ERR)] = { .valid = true }

/* RESET->INIT's required attributes, INIT->INIT's optional ones (a raw
 * packet QP's: the port alone). */
#define INIT_CONN (M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS))
#define INIT_ATTRS                                                            \
	QT_SET_RAW(M(PKEY_INDEX) | M(PORT) | M(QKEY), INIT_CONN, INIT_CONN,    \
		   INIT_CONN, INIT_CONN, M(PORT))

/* The optional attributes of RTR->RTS, RTS->RTS and SQD->RTS (@raw: a
 * raw packet QP's). */
#define TO_RTS_UC                                                             \
	(M(CUR_STATE) | M(ALT_PATH) | M(ACCESS_FLAGS) | M(PATH_MIG_STATE))
#define TO_RTS_RC                                                             \
	(M(CUR_STATE) | M(ALT_PATH) | M(ACCESS_FLAGS) | M(MIN_RNR_TIMER) |     \
	 M(PATH_MIG_STATE))
#define TO_RTS_OPT(raw)                                                       \
	QT_SET_RAW(M(CUR_STATE) | M(QKEY), TO_RTS_UC, TO_RTS_RC, TO_RTS_UC,    \
		   TO_RTS_RC, raw)

static const struct qp_trans qp_table[NSTATE][NSTATE] = {
	[S(RESET)] = {
		TO_RESET_ERR,
		[S(INIT)] = { .valid = true, .req = INIT_ATTRS },
	},
	[S(INIT)] = {
		TO_RESET_ERR,
		[S(INIT)] = { .valid = true, .opt = INIT_ATTRS },
		[S(RTR)] = {
			.valid = true,
			.req = QT_LIKE(0,
				       M(AV) | M(PATH_MTU) | M(DEST_QPN) |
				       M(RQ_PSN),
				       M(AV) | M(PATH_MTU) | M(DEST_QPN) |
				       M(RQ_PSN) | M(MAX_DEST_RD_ATOMIC) |
				       M(MIN_RNR_TIMER)),
			.opt = QT_CONN(M(PKEY_INDEX) | M(QKEY),
				       M(ALT_PATH) | M(ACCESS_FLAGS) |
				       M(PKEY_INDEX)),
		},
	},
	[S(RTR)] = {
		TO_RESET_ERR,
		[S(RTS)] = {
			.valid = true,
			.req = QT_SET(M(SQ_PSN), M(SQ_PSN),
				      M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) |
				      M(SQ_PSN) | M(MAX_QP_RD_ATOMIC),
				      M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) |
				      M(SQ_PSN) | M(MAX_QP_RD_ATOMIC),
				      M(TIMEOUT) | M(SQ_PSN)),
			.opt = TO_RTS_OPT(M(RATE_LIMIT)),
		},
	},
	[S(RTS)] = {
		TO_RESET_ERR,
		[S(RTS)] = { .valid = true, .opt = TO_RTS_OPT(M(RATE_LIMIT)) },
		[S(SQD)] = {
			.valid = true,
			.opt = QT_CONN(M(EN_SQD_ASYNC_NOTIFY),
				       M(EN_SQD_ASYNC_NOTIFY)),
		},
	},
	[S(SQD)] = {
		TO_RESET_ERR,
		[S(RTS)] = { .valid = true, .opt = TO_RTS_OPT(0) },
		[S(SQD)] = {
			.valid = true,
			.opt = QT_SET(M(PKEY_INDEX) | M(QKEY),
				      M(AV) | M(ALT_PATH) | M(ACCESS_FLAGS) |
				      M(PKEY_INDEX) | M(PATH_MIG_STATE),
				      M(PORT) | M(AV) | M(TIMEOUT) |
				      M(RETRY_CNT) | M(RNR_RETRY) |
				      M(MAX_QP_RD_ATOMIC) |
				      M(MAX_DEST_RD_ATOMIC) | M(ALT_PATH) |
				      M(ACCESS_FLAGS) | M(PKEY_INDEX) |
				      M(MIN_RNR_TIMER) | M(PATH_MIG_STATE),
				      M(PORT) | M(AV) | M(TIMEOUT) |
				      M(RETRY_CNT) | M(RNR_RETRY) |
				      M(MAX_QP_RD_ATOMIC) | M(ALT_PATH) |
				      M(ACCESS_FLAGS) | M(PKEY_INDEX) |
				      M(PATH_MIG_STATE),
				      M(PORT) | M(AV) | M(TIMEOUT) |
				      M(MAX_DEST_RD_ATOMIC) | M(ALT_PATH) |
				      M(ACCESS_FLAGS) | M(PKEY_INDEX) |
				      M(MIN_RNR_TIMER) | M(PATH_MIG_STATE)),
		},
	},
	[S(SQE)] = {
		TO_RESET_ERR,
		[S(RTS)] = {
			.valid = true,
			.opt = QT_SET(M(CUR_STATE) | M(QKEY),
				      M(CUR_STATE) | M(ACCESS_FLAGS), 0, 0, 0),
		},
	},
	[S(ERR)] = {
		TO_RESET_ERR,
	},
};

#undef TO_RTS_OPT
#undef TO_RTS_RC
#undef TO_RTS_UC
#undef INIT_ATTRS
#undef INIT_CONN
#undef TO_RESET_ERR
#undef QT_CONN
#undef QT_LIKE
#undef QT_SET
#undef QT_SET_RAW
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
	case IBV_QPT_RAW_PACKET:
		return QT_RAW;
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

/* The remote access bits (RRE, RAE, RWE): what IBV_QP_ACCESS_FLAGS sets. */
#define OPT_REMOTE (MLX5_QP_OPTPAR_RRE | MLX5_QP_OPTPAR_RAE | MLX5_QP_OPTPAR_RWE)
#define ST_SET(rc, uc, ud, xrc)                                               \
	{ [ST_RC] = (rc), [ST_UC] = (uc), [ST_UD] = (ud), [ST_XRC] = (xrc) }

/* The optional parameters a transition's command takes, per service type;
 * a transition not listed takes none. */
static const uint32_t opt_table[NSTATE][NSTATE][ST_N] = {
	[S(INIT)][S(INIT)] = ST_SET(OPT_REMOTE | MLX5_QP_OPTPAR_PKEY_INDEX | MLX5_QP_OPTPAR_PRI_PORT,
				    MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_PKEY_INDEX | MLX5_QP_OPTPAR_PRI_PORT,
				    MLX5_QP_OPTPAR_PKEY_INDEX | MLX5_QP_OPTPAR_Q_KEY | MLX5_QP_OPTPAR_PRI_PORT,
				    OPT_REMOTE | MLX5_QP_OPTPAR_PKEY_INDEX | MLX5_QP_OPTPAR_PRI_PORT),
	[S(INIT)][S(RTR)] = ST_SET(MLX5_QP_OPTPAR_ALT_ADDR_PATH | OPT_REMOTE | MLX5_QP_OPTPAR_PKEY_INDEX,
				   MLX5_QP_OPTPAR_ALT_ADDR_PATH | MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_PKEY_INDEX,
				   MLX5_QP_OPTPAR_PKEY_INDEX | MLX5_QP_OPTPAR_Q_KEY,
				   MLX5_QP_OPTPAR_ALT_ADDR_PATH | OPT_REMOTE | MLX5_QP_OPTPAR_PKEY_INDEX),
	[S(RTR)][S(RTS)] = ST_SET(MLX5_QP_OPTPAR_ALT_ADDR_PATH | OPT_REMOTE | MLX5_QP_OPTPAR_PM_STATE |
				  MLX5_QP_OPTPAR_RNR_TIMEOUT,
				  MLX5_QP_OPTPAR_ALT_ADDR_PATH | MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_PM_STATE,
				  MLX5_QP_OPTPAR_Q_KEY,
				  MLX5_QP_OPTPAR_ALT_ADDR_PATH | OPT_REMOTE | MLX5_QP_OPTPAR_PM_STATE |
				  MLX5_QP_OPTPAR_RNR_TIMEOUT),
	[S(RTS)][S(RTS)] = ST_SET(MLX5_QP_OPTPAR_ALT_ADDR_PATH | OPT_REMOTE | MLX5_QP_OPTPAR_PM_STATE |
				  MLX5_QP_OPTPAR_RNR_TIMEOUT,
				  MLX5_QP_OPTPAR_ALT_ADDR_PATH | MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_PM_STATE,
				  MLX5_QP_OPTPAR_Q_KEY | MLX5_QP_OPTPAR_SRQN | MLX5_QP_OPTPAR_CQN_RCV,
				  MLX5_QP_OPTPAR_ALT_ADDR_PATH | OPT_REMOTE | MLX5_QP_OPTPAR_PM_STATE |
				  MLX5_QP_OPTPAR_RNR_TIMEOUT),
	[S(SQE)][S(RTS)] = ST_SET(MLX5_QP_OPTPAR_RNR_TIMEOUT | OPT_REMOTE, MLX5_QP_OPTPAR_RWE, MLX5_QP_OPTPAR_Q_KEY,
				  MLX5_QP_OPTPAR_RNR_TIMEOUT | OPT_REMOTE),
	[S(SQD)][S(RTS)] = ST_SET(MLX5_QP_OPTPAR_RNR_TIMEOUT | OPT_REMOTE, MLX5_QP_OPTPAR_RWE, MLX5_QP_OPTPAR_Q_KEY,
				  0),
};

#undef ST_SET
#undef S

static uint32_t opt_allowed(enum ibv_qp_state cur, enum ibv_qp_state next,
			    int st)
{
	if (st < 0 || (unsigned int)cur > IBV_QPS_ERR ||
	    (unsigned int)next > IBV_QPS_ERR)
		return 0;
	return opt_table[cur][next][st];
}

static uint32_t mask_to_opt(uint32_t mask)
{
	uint32_t o = 0;

	if (mask & IBV_QP_ACCESS_FLAGS)
		o |= OPT_REMOTE;
	if (mask & IBV_QP_PKEY_INDEX)
		o |= MLX5_QP_OPTPAR_PKEY_INDEX;
	if (mask & IBV_QP_PORT)
		o |= MLX5_QP_OPTPAR_PRI_PORT;
	if (mask & IBV_QP_QKEY)
		o |= MLX5_QP_OPTPAR_Q_KEY;
	if (mask & IBV_QP_AV)
		o |= MLX5_QP_OPTPAR_PRIMARY_ADDR_PATH | MLX5_QP_OPTPAR_PRI_PORT;
	if (mask & IBV_QP_TIMEOUT)
		o |= MLX5_QP_OPTPAR_ACK_TIMEOUT;
	if (mask & IBV_QP_RETRY_CNT)
		o |= MLX5_QP_OPTPAR_RETRY_COUNT;
	if (mask & IBV_QP_RNR_RETRY)
		o |= MLX5_QP_OPTPAR_RNR_RETRY;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		o |= MLX5_QP_OPTPAR_SRA_MAX;
	if (mask & IBV_QP_ALT_PATH)
		o |= MLX5_QP_OPTPAR_ALT_ADDR_PATH;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		o |= MLX5_QP_OPTPAR_RNR_TIMEOUT;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		o |= MLX5_QP_OPTPAR_RRA_MAX | OPT_REMOTE;
	if (mask & IBV_QP_PATH_MIG_STATE)
		o |= MLX5_QP_OPTPAR_PM_STATE;
	return o;
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

/* ---- what the dispatch asks ---- */

bool prov_qp_trans_is_ok(const struct prov_qp *qp, enum ibv_qp_state cur,
			 enum ibv_qp_state next, uint32_t mask)
{
	if (qp->dc == PROV_QP_DCI)
		return modify_dci_is_ok(cur, next, mask);
	return modify_qp_is_ok(cur, next, qp->vqp.qp.qp_type, mask);
}

uint32_t prov_qp_trans_optpar(const struct prov_qp *qp, enum ibv_qp_state cur,
			      enum ibv_qp_state next, uint32_t mask)
{
	return mask_to_opt(mask) & opt_allowed(cur, next, qp_st_index(qp));
}

/* optab[][]: the command of a transition, 0 if none. */
uint16_t prov_qp_trans_opcode(enum ibv_qp_state cur, enum ibv_qp_state next)
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
