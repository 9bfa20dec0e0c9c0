/* SPDX-License-Identifier: MIT */
/*
 * The QP state machine: every transition command from every state, per QP
 * type (table-driven, expectations written out independently of the
 * firmware's tables from mlx5_ib's optab[] and opt_mask[]); opt_param_mask
 * bit by bit; the required fields of each transition with the status a
 * missing or bad one gets; QUERY_QP echoing exactly what was set; the
 * engine-side state moves.
 */
#include <errno.h>
#include <stdlib.h>

#include "test_fw_qp_util.h"

static struct emu_fw *fw;
static struct qpt_env env;
static uint32_t qcounter;

static void setup(void)
{
	fw = qpt_fw(NULL);
	qpt_env_init(&env, fw, true);
	qcounter = qpt_q_counter(fw, env.uid);
}

static void teardown(void)
{
	emu_fw_destroy(fw);
	qpt_env_fini(&env);
}

enum { S_RST, S_INIT, S_RTR, S_RTS, S_SQER, S_SQD, S_ERR, S_N };

static const unsigned int state_prm[S_N] = {
	MLX5_QPC_STATE_RST, MLX5_QPC_STATE_INIT, MLX5_QPC_STATE_RTR,
	MLX5_QPC_STATE_RTS, MLX5_QPC_STATE_SQER, MLX5_QPC_STATE_SQD,
	MLX5_QPC_STATE_ERR,
};
static const char *const state_name[S_N] = {
	"RST", "INIT", "RTR", "RTS", "SQER", "SQD", "ERR",
};

/* The commands, their legal source states and their target (mlx5_ib
 * optab[]: INIT->INIT, INIT->RTR, RTR->RTS, RTS->RTS, SQER->RTS, SQD->RTS,
 * RST->INIT; 2ERR and 2RST from every state). */
#define B(s) (1u << (s))
#define ALL (B(S_RST) | B(S_INIT) | B(S_RTR) | B(S_RTS) | B(S_SQER) | \
	     B(S_SQD) | B(S_ERR))
static const struct {
	uint16_t op;
	const char *name;
	unsigned int from;
	int to;
} cmds[] = {
	{ MLX5_CMD_OP_RST2INIT_QP, "RST2INIT", B(S_RST), S_INIT },
	{ MLX5_CMD_OP_INIT2INIT_QP, "INIT2INIT", B(S_INIT), S_INIT },
	{ MLX5_CMD_OP_INIT2RTR_QP, "INIT2RTR", B(S_INIT), S_RTR },
	{ MLX5_CMD_OP_RTR2RTS_QP, "RTR2RTS", B(S_RTR), S_RTS },
	{ MLX5_CMD_OP_RTS2RTS_QP, "RTS2RTS", B(S_RTS), S_RTS },
	{ MLX5_CMD_OP_SQERR2RTS_QP, "SQERR2RTS", B(S_SQER), S_RTS },
	{ MLX5_CMD_OP_SQD_RTS_QP, "SQD2RTS", B(S_SQD), S_RTS },
	{ MLX5_CMD_OP_2ERR_QP, "2ERR", ALL, S_ERR },
	{ MLX5_CMD_OP_2RST_QP, "2RST", ALL, S_RST },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* A QP of type t in state s; 0 if the type never is in s (SQER: only
 * unreliable types have it). */
static uint32_t reach(enum qpt_type t, int s, bool ud_srq)
{
	struct fwt_mbox m;
	struct emu_fw_qp *qp;
	uint32_t qpn;
	int ret;

	qpt_create_mbox(&env, &m, t);
	if (ud_srq && t == QPT_UD) {
		PRM_SET(qpc, QPT_QPC(&m), rq_type, EMU_FW_RQ_SRQ);
		PRM_SET(qpc, QPT_QPC(&m), srqn_rmpn_xrqn, env.srq);
	}
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	qpn = PRM_GET(create_qp_out, m.out, qpn);
	switch (s) {
	case S_RST:
		return qpn;
	case S_ERR:
		ck_assert_uint_eq(qpt_tr(&env, qpn, MLX5_CMD_OP_2ERR_QP, t,
					 NULL), 0);
		return qpn;
	case S_INIT:
		ck_assert_uint_eq(qpt_tr(&env, qpn, MLX5_CMD_OP_RST2INIT_QP, t,
					 NULL), 0);
		return qpn;
	case S_RTR:
		ck_assert_uint_eq(qpt_tr(&env, qpn, MLX5_CMD_OP_RST2INIT_QP, t,
					 NULL), 0);
		ck_assert_uint_eq(qpt_tr(&env, qpn, MLX5_CMD_OP_INIT2RTR_QP, t,
					 NULL), 0);
		return qpn;
	default:
		break;
	}
	qpt_to_rts(&env, qpn, t);
	if (s == S_RTS)
		return qpn;
	qp = qpt_get(fw, qpn);
	ret = emu_fw_qp_set_state(qp, state_prm[s]);
	emu_fw_obj_put(&qp->obj);
	if (s == S_SQER && t != QPT_UD && t != QPT_UC) {
		ck_assert_int_eq(ret, -EINVAL);	/* reliable: no SQE state */
		fwt_destroy(fw, MLX5_CMD_OP_DESTROY_QP, env.uid, qpn);
		return 0;
	}
	ck_assert_int_eq(ret, 0);
	return qpn;
}

/* Every command from every state, for the type _i. */
START_TEST(sm_every_transition)
{
	enum qpt_type t = (enum qpt_type)_i;
	unsigned int legal = 0, illegal = 0;

	for (int s = 0; s < S_N; s++) {
		for (size_t c = 0; c < NCMDS; c++) {
			uint32_t qpn = reach(t, s, false);
			struct fwt_mbox m, before, after;

			if (!qpn)
				continue;
			qpt_query(&env, qpn, &before);
			qpt_tr(&env, qpn, cmds[c].op, t, &m);
			if (cmds[c].from & B(s)) {
				ck_assert_msg(emu_fw_out_status(m.out) == 0,
					      "%s: %s from %s: status 0x%x "
					      "syndrome 0x%x", qpt_type_name(t),
					      cmds[c].name, state_name[s],
					      emu_fw_out_status(m.out),
					      emu_fw_out_syndrome(m.out));
				ck_assert_uint_eq(qpt_state(&env, qpn),
						  state_prm[cmds[c].to]);
				legal++;
			} else {
				ck_assert_msg(emu_fw_out_status(m.out) ==
					      MLX5_CMD_STAT_BAD_QP_STATE_ERR,
					      "%s: %s from %s: status 0x%x",
					      qpt_type_name(t), cmds[c].name,
					      state_name[s],
					      emu_fw_out_status(m.out));
				ck_fw_synd(&m, QP_BAD_STATE_TRANSITION);
				/* Nothing changed. */
				qpt_query(&env, qpn, &after);
				ck_assert_mem_eq(QPT_Q_QPC(&after),
						 QPT_Q_QPC(&before),
						 PRM_ST_SZ_BYTES(qpc));
				illegal++;
			}
			ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_QP,
						      env.uid, qpn), 0);
		}
	}
	/* 7 states x 9 commands, less SQER for the reliable types. */
	ck_assert_uint_eq(legal + illegal,
			  (t == QPT_UD || t == QPT_UC) ? 63 : 54);
}
END_TEST

/* ---- opt_param_mask: mlx5_ib's opt_mask[][][] (mainline) ---- */

enum {
	O_ALT = 1u << 0, O_RRE = 1u << 1, O_RAE = 1u << 2, O_RWE = 1u << 3,
	O_PKEY = 1u << 4, O_QKEY = 1u << 5, O_RNR = 1u << 6, O_PRI = 1u << 7,
	O_SRA = 1u << 8, O_RRA = 1u << 9, O_PM = 1u << 10, O_RETRY = 1u << 12,
	O_RNR_RETRY = 1u << 13, O_ACK = 1u << 14, O_LAG = 1u << 15,
	O_PORT = 1u << 16, O_SRQN = 1u << 18, O_CQN_RCV = 1u << 19,
	O_DC_HS = 1u << 20, O_DC_KEY = 1u << 21, O_COUNTER = 1u << 25,
};

/* Expected allowed bits by command index (cmds[] 0..6) and type.  LAG_TX_AFF
 * needs init2_lag_tx_port_affinity (not advertised); COUNTER_SET_ID on
 * RTS2RTS rts2rts_qp_counters_set_id (advertised). */
static uint32_t expected_opt(size_t c, enum qpt_type t)
{
	bool rc = t == QPT_RC || t == QPT_XRC_INI || t == QPT_XRC_TGT;
	bool xrc = t == QPT_XRC_INI || t == QPT_XRC_TGT;

	if (t == QPT_DCI)
		return c == 4 ? O_COUNTER : 0;
	switch (c) {
	case 0:		/* RST2INIT: none */
		return 0;
	case 1:		/* INIT2INIT */
		return rc ? O_RRE | O_RAE | O_RWE | O_PKEY | O_PORT :
		       t == QPT_UC ? O_RWE | O_PKEY | O_PORT :
		       O_PKEY | O_QKEY | O_PORT;
	case 2:		/* INIT2RTR */
		return rc ? O_ALT | O_RRE | O_RAE | O_RWE | O_PKEY :
		       t == QPT_UC ? O_ALT | O_RWE | O_PKEY : O_PKEY | O_QKEY;
	case 3:		/* RTR2RTS */
		return rc ? O_ALT | O_RRE | O_RAE | O_RWE | O_PM | O_RNR :
		       t == QPT_UC ? O_ALT | O_RWE | O_PM : O_QKEY;
	case 4:		/* RTS2RTS */
		return O_COUNTER |
		       (rc ? O_RRE | O_RAE | O_RWE | O_RNR | O_PM | O_ALT :
			t == QPT_UC ? O_RWE | O_PM | O_ALT :
			O_QKEY | O_SRQN | O_CQN_RCV);
	case 5:		/* SQERR2RTS */
		return rc ? O_RNR | O_RWE | O_RAE | O_RRE :
		       t == QPT_UC ? O_RWE : O_QKEY;
	case 6:		/* SQD2RTS: no XRC row in mlx5_ib's table */
		return xrc ? 0 : rc ? O_RNR | O_RWE | O_RAE | O_RRE :
		       t == QPT_UC ? O_RWE : O_QKEY;
	default:
		return 0;
	}
}

/* Good values for the fields every optional group names. */
static void fill_optional(void *qpc)
{
	uint8_t *rgid = PRM_ADDR_OF(qpc, qpc, secondary_address_path.rgid_rip);

	PRM_SET(qpc, qpc, secondary_address_path.vhca_port_num, 1);
	PRM_SET(qpc, qpc, secondary_address_path.src_addr_index, QPT_GID_V2);
	rgid[0] = 0xfe;
	rgid[15] = 9;
	PRM_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	PRM_SET(qpc, qpc, q_key, 0x77);
	PRM_SET(qpc, qpc, min_rnr_nak, 3);
	PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	PRM_SET(qpc, qpc, lag_tx_port_affinity, 1);
	PRM_SET(qpc, qpc, srqn_rmpn_xrqn, env.srq);
	PRM_SET(qpc, qpc, cqn_rcv, env.cq);
	PRM_SET(qpc, qpc, counter_set_id, qcounter);
}

START_TEST(sm_opt_param_mask)
{
	enum qpt_type t = (enum qpt_type)_i;
	static const int src[7] = { S_RST, S_INIT, S_INIT, S_RTR, S_RTS,
				    S_SQER, S_SQD };

	for (size_t c = 0; c < 7; c++) {
		uint32_t allowed = expected_opt(c, t);

		for (unsigned int bit = 0; bit < 32; bit++) {
			uint32_t qpn = reach(t, src[c], true);
			struct fwt_mbox m;

			if (!qpn)
				break;
			qpt_tr_mbox(&m, cmds[c].op, env.uid, qpn, 1u << bit);
			fill_optional(QPT_TR_QPC(&m));
			qpt_tr_fill(&env, &m, cmds[c].op, t);
			fwt_exec(fw, &m);
			if (allowed & (1u << bit)) {
				ck_assert_msg(emu_fw_out_status(m.out) == 0,
					      "%s %s bit %u: status 0x%x "
					      "syndrome 0x%x", qpt_type_name(t),
					      cmds[c].name, bit,
					      emu_fw_out_status(m.out),
					      emu_fw_out_syndrome(m.out));
			} else {
				ck_assert_msg(emu_fw_out_syndrome(m.out) ==
					      fw_syndrome_get(
						FW_SYND_QP_BAD_OPT_PARAM)->value,
					      "%s %s bit %u: syndrome 0x%x",
					      qpt_type_name(t), cmds[c].name,
					      bit, emu_fw_out_syndrome(m.out));
				ck_fw_synd(&m, QP_BAD_OPT_PARAM);
				ck_assert_uint_eq(qpt_state(&env, qpn),
						  state_prm[src[c]]);
			}
			ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_QP,
						      env.uid, qpn), 0);
		}
	}
}
END_TEST

/* ---- required fields ---- */

/* One transition of a fresh QP of type t in state s with a field
 * changed; expect the syndrome, and no change on a failure. */
#define ck_tr_synd(t, s, op, stmt, ID)					\
	do {								\
		uint32_t qpn_ = reach((t), (s), false);			\
		struct fwt_mbox m_, b_, a_;				\
		void *qpc = QPT_TR_QPC(&m_);				\
		(void)qpc;						\
		qpt_query(&env, qpn_, &b_);				\
		qpt_tr_mbox(&m_, (op), env.uid, qpn_, 0);		\
		qpt_tr_fill(&env, &m_, (op), (t));			\
		stmt;							\
		fwt_exec(fw, &m_);					\
		ck_fw_synd(&m_, ID);					\
		if (emu_fw_out_status(m_.out)) {			\
			qpt_query(&env, qpn_, &a_);			\
			ck_assert_mem_eq(QPT_Q_QPC(&a_), QPT_Q_QPC(&b_), \
					 PRM_ST_SZ_BYTES(qpc));		\
		}							\
		fwt_destroy(fw, MLX5_CMD_OP_DESTROY_QP, env.uid, qpn_);	\
	} while (0)

#define R2I MLX5_CMD_OP_RST2INIT_QP
#define I2R MLX5_CMD_OP_INIT2RTR_QP
#define R2R MLX5_CMD_OP_RTR2RTS_QP
#define PATH(f) primary_address_path.f

START_TEST(sm_rst2init_fields)
{
	for (int t = 0; t < QPT_NTYPES; t++) {
		ck_tr_synd(t, S_RST, R2I, PRM_SET(qpc, qpc, PATH(pkey_index),
						  127), OK);
		ck_tr_synd(t, S_RST, R2I, PRM_SET(qpc, qpc, PATH(pkey_index),
						  128), QP_BAD_PKEY_INDEX);
		ck_tr_synd(t, S_RST, R2I, PRM_SET(qpc, qpc, PATH(vhca_port_num),
						  0), QP_BAD_PORT);
		ck_tr_synd(t, S_RST, R2I, PRM_SET(qpc, qpc, PATH(vhca_port_num),
						  2), QP_BAD_PORT);
		ck_tr_synd(t, S_RST, R2I, PRM_SET(qpc, qpc, counter_set_id,
						  qcounter), OK);
		ck_tr_synd(t, S_RST, R2I, PRM_SET(qpc, qpc, counter_set_id,
						  qcounter + 1), QP_BAD_COUNTER);
	}
	/* Access: 8-byte atomics only (atomic_size_qp). */
	ck_tr_synd(QPT_RC, S_RST, R2I, PRM_SET(qpc, qpc, atomic_mode,
					       MLX5_QPC_ATOMIC_MODE_UP_TO_8B),
		   OK);
	ck_tr_synd(QPT_RC, S_RST, R2I, PRM_SET(qpc, qpc, atomic_mode,
					       MLX5_QPC_ATOMIC_MODE_UP_TO_16B),
		   QP_BAD_ATOMIC_MODE);
	/* UD and DCI take no access bits: ignored. */
	ck_tr_synd(QPT_UD, S_RST, R2I, PRM_SET(qpc, qpc, atomic_mode, 7), OK);
	/* Another uid's counter set. */
	{
		uint16_t other = fwt_uctx(fw);
		uint32_t oq = qpt_q_counter(fw, other);

		ck_tr_synd(QPT_RC, S_RST, R2I,
			   PRM_SET(qpc, qpc, counter_set_id, oq),
			   QP_BAD_COUNTER);
	}
}
END_TEST

static void no_atomic(struct emu_fw_caps *caps)
{
	void *page = emu_fw_caps_page_mut(caps, MLX5_CAP_ATOMIC);

	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_GENERAL, "atomic", 0),
			 0);
	memset(page, 0, EMU_FW_CAP_PAGE_BYTES);
}

START_TEST(sm_rst2init_no_atomic)
{
	struct emu_fw *f2 = qpt_fw(no_atomic);
	struct qpt_env e2;
	uint32_t qpn;
	struct fwt_mbox m;

	qpt_env_init(&e2, f2, true);
	qpn = qpt_create(&e2, QPT_RC);
	qpt_tr_mbox(&m, R2I, e2.uid, qpn, 0);
	qpt_tr_fill(&e2, &m, R2I, QPT_RC);	/* rae 1 */
	fwt_exec(f2, &m);
	ck_fw_synd(&m, QP_BAD_ATOMIC_MODE);
	PRM_SET(qpc, QPT_TR_QPC(&m), rae, 0);
	PRM_SET(qpc, QPT_TR_QPC(&m), atomic_mode, 0);
	fwt_exec(f2, &m);
	ck_fw_ok(&m);
	emu_fw_destroy(f2);
	qpt_env_fini(&e2);
}
END_TEST

START_TEST(sm_init2rtr_fields)
{
	static const enum qpt_type conn[] = { QPT_RC, QPT_UC, QPT_XRC_INI,
					      QPT_XRC_TGT };

	for (size_t i = 0; i < 4; i++) {
		enum qpt_type t = conn[i];

		ck_tr_synd(t, S_INIT, I2R, PRM_SET(qpc, qpc, mtu, 0),
			   QP_BAD_MTU);
		ck_tr_synd(t, S_INIT, I2R, PRM_SET(qpc, qpc, mtu, 6),
			   QP_BAD_MTU);
		ck_tr_synd(t, S_INIT, I2R, PRM_SET(qpc, qpc, mtu,
						   MLX5_QPC_MTU_4K_BYTES), OK);
		ck_tr_synd(t, S_INIT, I2R, PRM_SET(qpc, qpc, log_msg_max, 31),
			   QP_BAD_MSG_MAX);
		ck_tr_synd(t, S_INIT, I2R, PRM_SET(qpc, qpc, remote_qpn, 0),
			   QP_BAD_REMOTE_QPN);
		/* RoCE path: a port, a valid source GID, a destination. */
		ck_tr_synd(t, S_INIT, I2R, PRM_SET(qpc, qpc, PATH(vhca_port_num),
						   0), QP_BAD_PORT);
		ck_tr_synd(t, S_INIT, I2R, PRM_SET(qpc, qpc,
						   PATH(src_addr_index),
						   QPT_GID_EMPTY),
			   QP_BAD_GID_INDEX);
		ck_tr_synd(t, S_INIT, I2R, PRM_SET(qpc, qpc,
						   PATH(src_addr_index), 255),
			   QP_BAD_GID_INDEX);
		ck_tr_synd(t, S_INIT, I2R,
			   memset(PRM_ADDR_OF(qpc, qpc, PATH(rgid_rip)), 0, 16),
			   QP_BAD_RGID);
		ck_tr_synd(t, S_INIT, I2R, PRM_SET(qpc, qpc,
						   PATH(src_addr_index), 3), OK);
		/* Force loopback: no address needed. */
		ck_tr_synd(t, S_INIT, I2R, {
			memset(PRM_ADDR_OF(qpc, qpc, PATH(rgid_rip)), 0, 16);
			PRM_SET(qpc, qpc, PATH(src_addr_index), QPT_GID_EMPTY);
			PRM_SET(qpc, qpc, PATH(fl), 1); }, OK);
	}
	/* Responder resources: reliable types. */
	ck_tr_synd(QPT_RC, S_INIT, I2R, PRM_SET(qpc, qpc, log_rra_max, 4), OK);
	ck_tr_synd(QPT_RC, S_INIT, I2R, PRM_SET(qpc, qpc, log_rra_max, 5),
		   QP_BAD_RRA_MAX);
	ck_tr_synd(QPT_XRC_TGT, S_INIT, I2R, PRM_SET(qpc, qpc, log_rra_max, 7),
		   QP_BAD_RRA_MAX);
	/* UC takes no responder resources: ignored. */
	ck_tr_synd(QPT_UC, S_INIT, I2R, PRM_SET(qpc, qpc, log_rra_max, 7), OK);
	/* UD: only the MTU (0: the port's), no path, no remote QP. */
	ck_tr_synd(QPT_UD, S_INIT, I2R, PRM_SET(qpc, qpc, mtu, 0), OK);
	ck_tr_synd(QPT_UD, S_INIT, I2R, PRM_SET(qpc, qpc, mtu, 7), QP_BAD_MTU);
	ck_tr_synd(QPT_UD, S_INIT, I2R, memset(qpc, 0, PRM_ST_SZ_BYTES(qpc)),
		   OK);
	/* DCI: the MTU, and a path only when given (a port): checked then;
	 * the destination comes with each WQE. */
	ck_tr_synd(QPT_DCI, S_INIT, I2R,
		   memset(PRM_ADDR_OF(qpc, qpc, primary_address_path), 0,
			  PRM_ST_SZ_BYTES(ads)), OK);
	ck_tr_synd(QPT_DCI, S_INIT, I2R,
		   memset(PRM_ADDR_OF(qpc, qpc, PATH(rgid_rip)), 0, 16), OK);
	ck_tr_synd(QPT_DCI, S_INIT, I2R, PRM_SET(qpc, qpc, remote_qpn, 0), OK);
	ck_tr_synd(QPT_DCI, S_INIT, I2R, PRM_SET(qpc, qpc, mtu, 0), QP_BAD_MTU);
	ck_tr_synd(QPT_DCI, S_INIT, I2R, PRM_SET(qpc, qpc, PATH(src_addr_index),
						 QPT_GID_EMPTY),
		   QP_BAD_GID_INDEX);
	ck_tr_synd(QPT_DCI, S_INIT, I2R, PRM_SET(qpc, qpc, PATH(vhca_port_num),
						 3), QP_BAD_PORT);
	/* An alternate path is checked as the primary. */
	ck_tr_synd(QPT_RC, S_INIT, I2R, {
		PRM_SET(rst2init_qp_in, m_.in, opt_param_mask, O_ALT);
		PRM_SET(qpc, qpc, secondary_address_path.vhca_port_num, 1);
		PRM_SET(qpc, qpc, secondary_address_path.src_addr_index,
			QPT_GID_V2); }, QP_BAD_RGID);
}
END_TEST

START_TEST(sm_rtr2rts_fields)
{
	ck_tr_synd(QPT_RC, S_RTR, R2R, PRM_SET(qpc, qpc, log_sra_max, 4), OK);
	ck_tr_synd(QPT_RC, S_RTR, R2R, PRM_SET(qpc, qpc, log_sra_max, 5),
		   QP_BAD_SRA_MAX);
	ck_tr_synd(QPT_DCI, S_RTR, R2R, PRM_SET(qpc, qpc, log_sra_max, 5),
		   QP_BAD_SRA_MAX);
	ck_tr_synd(QPT_XRC_INI, S_RTR, R2R, PRM_SET(qpc, qpc, log_sra_max, 6),
		   QP_BAD_SRA_MAX);
	/* Unreliable types: only the SQ PSN; the rest is ignored. */
	ck_tr_synd(QPT_UD, S_RTR, R2R, PRM_SET(qpc, qpc, log_sra_max, 7), OK);
	ck_tr_synd(QPT_UC, S_RTR, R2R, PRM_SET(qpc, qpc, log_sra_max, 7), OK);
	/* The path is not taken here: a zero path does no harm. */
	ck_tr_synd(QPT_RC, S_RTR, R2R,
		   PRM_SET(qpc, qpc, PATH(vhca_port_num), 0), OK);
}
END_TEST

/* Objects named by optional parameters. */
START_TEST(sm_optional_objects)
{
	uint32_t srq2 = qpt_srq(&env);
	uint32_t qc2 = qpt_q_counter(fw, env.uid);
	uint32_t qpn = reach(QPT_UD, S_RTS, false);
	struct emu_fw_qp *qp;
	struct fwt_mbox m;

	/* SRQN on a QP with its own RQ. */
	qpt_tr_mbox(&m, MLX5_CMD_OP_RTS2RTS_QP, env.uid, qpn, O_SRQN);
	PRM_SET(qpc, QPT_TR_QPC(&m), srqn_rmpn_xrqn, srq2);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, QP_BAD_RQ_TYPE);
	/* Counter set 0: none. */
	qpt_tr_mbox(&m, MLX5_CMD_OP_RTS2RTS_QP, env.uid, qpn, O_COUNTER);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_QP, env.uid,
				      qpn), 0);

	/* RTS2RTS: a new receive CQ, SRQ and counter set (UD on an SRQ). */
	qpn = reach(QPT_UD, S_RTS, true);
	qp = qpt_get(fw, qpn);
	qpt_tr_mbox(&m, MLX5_CMD_OP_RTS2RTS_QP, env.uid, qpn,
		    O_CQN_RCV | O_SRQN | O_COUNTER | O_QKEY);
	PRM_SET(qpc, QPT_TR_QPC(&m), cqn_rcv, env.cq);
	PRM_SET(qpc, QPT_TR_QPC(&m), srqn_rmpn_xrqn, srq2);
	PRM_SET(qpc, QPT_TR_QPC(&m), counter_set_id, qc2);
	PRM_SET(qpc, QPT_TR_QPC(&m), q_key, 0xabcd);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(atomic_load(&qp->cq_rcv)->obj.id, env.cq);
	ck_assert_uint_eq(atomic_load(&qp->srq)->obj.id, srq2);
	ck_assert_uint_eq(atomic_load(&qp->counter)->obj.id, qc2);
	/* The old SRQ and CQ are free, the new ones used. */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_SRQ, env.uid,
				      env.srq), 0);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_SRQ, env.uid, srq2);
	ck_fw_synd(&m, SRQ_IN_USE);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_CQ, env.uid,
				      env.cq2), 0);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_Q_COUNTER, env.uid, qc2);
	ck_fw_synd(&m, Q_COUNTER_IN_USE);
	/* A bad object: nothing changes. */
	qpt_tr_mbox(&m, MLX5_CMD_OP_RTS2RTS_QP, env.uid, qpn,
		    O_CQN_RCV | O_COUNTER);
	PRM_SET(qpc, QPT_TR_QPC(&m), cqn_rcv, 0x424242);
	PRM_SET(qpc, QPT_TR_QPC(&m), counter_set_id, qcounter);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, QP_BAD_CQN);
	ck_assert_uint_eq(atomic_load(&qp->counter)->obj.id, qc2);
	ck_assert_uint_eq(atomic_load(&qp->cq_rcv)->obj.id, env.cq);
	emu_fw_obj_put(&qp->obj);
}
END_TEST

/* ---- QUERY_QP echoes exactly what was set ---- */

START_TEST(sm_query_echo)
{
	enum qpt_type t = (enum qpt_type)_i;
	uint32_t qpn = qpt_create(&env, t);
	struct fwt_mbox m[3], q, junk;
	struct emu_fw_qp_attr a;
	struct emu_fw_qp *qp;
	unsigned int gen0, gen;
	uint8_t expect[PRM_ST_SZ_BYTES(qpc)];
	void *qc;

	qpt_query(&env, qpn, &q);
	memcpy(expect, QPT_Q_QPC(&q), sizeof(expect));
	qp = qpt_get(fw, qpn);
	emu_fw_qp_get_attr(qp, &a, &gen0);

	/* RST2INIT with distinct values. */
	qpt_tr_mbox(&m[0], R2I, env.uid, qpn, 0);
	qpt_tr_fill(&env, &m[0], R2I, t);
	qc = QPT_TR_QPC(&m[0]);
	PRM_SET(qpc, qc, PATH(pkey_index), 17);
	PRM_SET(qpc, qc, counter_set_id, qcounter);
	if (t == QPT_UD)
		PRM_SET(qpc, qc, q_key, 0x80010002);
	/* ...and fields RST2INIT does not take: ignored. */
	PRM_SET(qpc, qc, remote_qpn, 0x999);
	PRM_SET(qpc, qc, mtu, 2);
	PRM_SET(qpc, qc, next_send_psn, 0x777);
	fwt_exec(fw, &m[0]);
	ck_fw_ok(&m[0]);
	PRM_SET(qpc, expect, PATH(pkey_index), 17);
	PRM_SET(qpc, expect, PATH(vhca_port_num), 1);
	PRM_SET(qpc, expect, counter_set_id, qcounter);
	if (t == QPT_UD) {
		PRM_SET(qpc, expect, q_key, 0x80010002);
	} else if (t != QPT_DCI) {
		PRM_SET(qpc, expect, rre, PRM_GET(qpc, qc, rre));
		PRM_SET(qpc, expect, rwe, PRM_GET(qpc, qc, rwe));
		PRM_SET(qpc, expect, rae, PRM_GET(qpc, qc, rae));
		PRM_SET(qpc, expect, atomic_mode, PRM_GET(qpc, qc, atomic_mode));
	}
	PRM_SET(qpc, expect, state, MLX5_QPC_STATE_INIT);
	qpt_query(&env, qpn, &q);
	ck_assert_mem_eq(QPT_Q_QPC(&q), expect, sizeof(expect));

	/* INIT2RTR. */
	qpt_tr_mbox(&m[1], I2R, env.uid, qpn, 0);
	qpt_tr_fill(&env, &m[1], I2R, t);
	qc = QPT_TR_QPC(&m[1]);
	PRM_SET(qpc, qc, PATH(pkey_index), 99);	/* no PKEY bit: ignored */
	PRM_SET(qpc, qc, PATH(ack_timeout), 9);	/* RTR2RTS's: ignored */
	PRM_SET(qpc, qc, next_send_psn, 0x888);	/* ignored */
	PRM_SET(qpc, qc, q_key, 0x5);		/* no Q_KEY bit: ignored */
	fwt_exec(fw, &m[1]);
	ck_fw_ok(&m[1]);
	PRM_SET(qpc, expect, mtu, PRM_GET(qpc, qc, mtu));
	PRM_SET(qpc, expect, log_msg_max, PRM_GET(qpc, qc, log_msg_max));
	if (t != QPT_UD) {
		/* The whole primary path but P_Key index and ACK timeout. */
		uint16_t pk = (uint16_t)PRM_GET(qpc, expect, PATH(pkey_index));
		uint8_t at = (uint8_t)PRM_GET(qpc, expect, PATH(ack_timeout));

		memcpy(PRM_ADDR_OF(qpc, expect, primary_address_path),
		       PRM_ADDR_OF(qpc, qc, primary_address_path),
		       PRM_ST_SZ_BYTES(ads));
		PRM_SET(qpc, expect, PATH(pkey_index), pk);
		PRM_SET(qpc, expect, PATH(ack_timeout), at);
	}
	if (t != QPT_UD && t != QPT_DCI) {
		PRM_SET(qpc, expect, remote_qpn, PRM_GET(qpc, qc, remote_qpn));
		PRM_SET(qpc, expect, next_rcv_psn,
			PRM_GET(qpc, qc, next_rcv_psn));
	}
	if (t == QPT_RC || t == QPT_XRC_INI || t == QPT_XRC_TGT) {
		PRM_SET(qpc, expect, min_rnr_nak, PRM_GET(qpc, qc, min_rnr_nak));
		PRM_SET(qpc, expect, log_rra_max, PRM_GET(qpc, qc, log_rra_max));
	}
	PRM_SET(qpc, expect, state, MLX5_QPC_STATE_RTR);
	qpt_query(&env, qpn, &q);
	ck_assert_mem_eq(QPT_Q_QPC(&q), expect, sizeof(expect));

	/* RTR2RTS. */
	qpt_tr_mbox(&m[2], R2R, env.uid, qpn, 0);
	qpt_tr_fill(&env, &m[2], R2R, t);
	qc = QPT_TR_QPC(&m[2]);
	PRM_SET(qpc, qc, remote_qpn, 0x1);	/* ignored */
	PRM_SET(qpc, qc, mtu, 1);		/* ignored */
	fwt_exec(fw, &m[2]);
	ck_fw_ok(&m[2]);
	PRM_SET(qpc, expect, next_send_psn, PRM_GET(qpc, qc, next_send_psn));
	if (t != QPT_UD && t != QPT_UC) {
		PRM_SET(qpc, expect, retry_count, PRM_GET(qpc, qc, retry_count));
		PRM_SET(qpc, expect, rnr_retry, PRM_GET(qpc, qc, rnr_retry));
		PRM_SET(qpc, expect, log_sra_max, PRM_GET(qpc, qc, log_sra_max));
		PRM_SET(qpc, expect, PATH(ack_timeout),
			PRM_GET(qpc, qc, PATH(ack_timeout)));
		PRM_SET(qpc, expect, log_ack_req_freq,
			PRM_GET(qpc, qc, log_ack_req_freq));
	}
	PRM_SET(qpc, expect, state, MLX5_QPC_STATE_RTS);
	qpt_query(&env, qpn, &q);
	ck_assert_mem_eq(QPT_Q_QPC(&q), expect, sizeof(expect));

	/* The engines' view matches, generation moved on by three. */
	emu_fw_qp_get_attr(qp, &a, &gen);
	ck_assert_uint_eq(gen, gen0 + 3);
	ck_assert_uint_eq(a.mtu, PRM_GET(qpc, expect, mtu));
	ck_assert_uint_eq(a.next_send_psn, PRM_GET(qpc, expect, next_send_psn));
	ck_assert_uint_eq(a.pri.pkey_index, 17);
	ck_assert_uint_eq(a.pri.port, 1);
	if (t != QPT_UD) {
		ck_assert_uint_eq(a.pri.sgid_index, QPT_GID_V2);
		ck_assert_uint_eq(a.pri.hop_limit, 64);
		ck_assert_uint_eq(a.pri.tclass, 0x20);
		ck_assert_uint_eq(a.pri.flow_label, 0x12345);
		ck_assert_uint_eq(a.pri.udp_sport, 0xc123);
		ck_assert_uint_eq(a.pri.dscp, 8);
		ck_assert_uint_eq(a.pri.eth_prio, 3);
		ck_assert_uint_eq(a.pri.rgid[0], 0xfe);
		ck_assert_uint_eq(a.pri.rgid[15], 0x02);
		ck_assert_uint_eq(a.pri.rmac[1], 0x00);
		ck_assert_uint_eq(a.pri.rmac[0], 0x02);
		ck_assert_uint_eq(a.pri.rmac[5], 0x02);
	}
	if (t == QPT_RC) {
		ck_assert_uint_eq(a.remote_qpn, 0x345);
		ck_assert_uint_eq(a.next_rcv_psn, 0x111);
		ck_assert_uint_eq(a.min_rnr_nak, 12);
		ck_assert_uint_eq(a.log_rra_max, 2);
		ck_assert_uint_eq(a.retry_count, 7);
		ck_assert_uint_eq(a.rnr_retry, 6);
		ck_assert_uint_eq(a.log_sra_max, 3);
		ck_assert_uint_eq(a.pri.ack_timeout, 14);
		ck_assert(a.rre && a.rwe && a.rae);
	}
	if (t == QPT_UD)
		ck_assert_uint_eq(a.q_key, 0x80010002);
	ck_assert_uint_eq(atomic_load(&qp->counter)->obj.id, qcounter);

	/* RTS2RTS with no bit changes nothing. */
	qpt_tr_mbox(&junk, MLX5_CMD_OP_RTS2RTS_QP, env.uid, qpn, 0);
	memset(QPT_TR_QPC(&junk), 0x5a, PRM_ST_SZ_BYTES(qpc));
	fwt_exec(fw, &junk);
	ck_fw_ok(&junk);
	qpt_query(&env, qpn, &q);
	ck_assert_mem_eq(QPT_Q_QPC(&q), expect, sizeof(expect));
	emu_fw_obj_put(&qp->obj);
}
END_TEST

/* Optional parameters change exactly their fields. */
START_TEST(sm_rts2rts_optional)
{
	uint32_t qpn = reach(QPT_RC, S_RTS, false);
	struct fwt_mbox m, q;

	qpt_tr_mbox(&m, MLX5_CMD_OP_RTS2RTS_QP, env.uid, qpn, O_RRE | O_RNR);
	PRM_SET(qpc, QPT_TR_QPC(&m), rre, 0);
	PRM_SET(qpc, QPT_TR_QPC(&m), rwe, 0);		/* no RWE bit */
	PRM_SET(qpc, QPT_TR_QPC(&m), min_rnr_nak, 31);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	qpt_query(&env, qpn, &q);
	ck_assert_uint_eq(PRM_GET(qpc, QPT_Q_QPC(&q), rre), 0);
	ck_assert_uint_eq(PRM_GET(qpc, QPT_Q_QPC(&q), rwe), 1);
	ck_assert_uint_eq(PRM_GET(qpc, QPT_Q_QPC(&q), min_rnr_nak), 31);
	ck_assert_uint_eq(PRM_GET(qpc, QPT_Q_QPC(&q), state), MLX5_QPC_STATE_RTS);
	/* Alternate path and migration state. */
	qpt_tr_mbox(&m, MLX5_CMD_OP_RTS2RTS_QP, env.uid, qpn, O_ALT | O_PM);
	fill_optional(QPT_TR_QPC(&m));
	PRM_SET(qpc, QPT_TR_QPC(&m), pm_state, MLX5_QPC_PM_STATE_REARM);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	qpt_query(&env, qpn, &q);
	ck_assert_uint_eq(PRM_GET(qpc, QPT_Q_QPC(&q), pm_state),
			  MLX5_QPC_PM_STATE_REARM);
	ck_assert_uint_eq(PRM_GET(qpc, QPT_Q_QPC(&q),
				  secondary_address_path.vhca_port_num), 1);
	ck_assert_mem_eq(PRM_ADDR_OF(qpc, QPT_Q_QPC(&q), secondary_address_path),
			 PRM_ADDR_OF(qpc, QPT_TR_QPC(&m), secondary_address_path),
			 PRM_ST_SZ_BYTES(ads));
	/* The reserved migration state. */
	qpt_tr_mbox(&m, MLX5_CMD_OP_RTS2RTS_QP, env.uid, qpn, O_PM);
	PRM_SET(qpc, QPT_TR_QPC(&m), pm_state, MLX5_QPC_PM_STATE_RESERVED);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, QP_FEATURE_NOT_SUPPORTED);
}
END_TEST

/*
 * RTS2RTS's extended mask: UDP_SPORT (bit 2 of opt_param_mask_95_32, the
 * dword at byte 0x10c) changes the primary path's source port of an RC or
 * UC QP and nothing else; other types and other bits are refused.
 */
START_TEST(sm_rts2rts_udp_sport)
{
	uint32_t rc = reach(QPT_RC, S_RTS, false);
	uint32_t uc = reach(QPT_UC, S_RTS, false);
	uint32_t ud = reach(QPT_UD, S_RTS, false);
	uint8_t before[PRM_ST_SZ_BYTES(qpc)];
	struct emu_fw_qp_attr a;
	struct fwt_mbox m, q;
	unsigned int gen;
	struct emu_fw_qp *qp;
	uint8_t *b;

	qpt_query(&env, rc, &q);
	memcpy(before, QPT_Q_QPC(&q), sizeof(before));
	qpt_tr_mbox(&m, MLX5_CMD_OP_RTS2RTS_QP, env.uid, rc, 0);
	b = (uint8_t *)m.in;
	b[0x10f] = 0x04;
	/* qpc.primary_address_path.udp_sport: bits 15:0 of dword 0x50. */
	b[0x52] = 0xd0;
	b[0x53] = 0x0d;
	PRM_SET(qpc, QPT_TR_QPC(&m), min_rnr_nak, 3);	/* not selected */
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	qpt_query(&env, rc, &q);
	PRM_SET(qpc, before, primary_address_path.udp_sport, 0xd00d);
	ck_assert_mem_eq(QPT_Q_QPC(&q), before, sizeof(before));
	qp = qpt_get(fw, rc);
	emu_fw_qp_get_attr(qp, &a, &gen);
	ck_assert_uint_eq(a.pri.udp_sport, 0xd00d);
	emu_fw_obj_put(&qp->obj);

	qpt_tr_mbox(&m, MLX5_CMD_OP_RTS2RTS_QP, env.uid, uc, 0);
	PRM_SET64(rts2rts_qp_in, m.in, opt_param_mask_95_32,
		  MLX5_QPC_OPT_MASK_32_UDP_SPORT);
	PRM_SET(qpc, QPT_TR_QPC(&m), primary_address_path.udp_sport, 0xc0de);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	qpt_query(&env, uc, &q);
	ck_assert_uint_eq(PRM_GET(qpc, QPT_Q_QPC(&q),
				  primary_address_path.udp_sport), 0xc0de);

	/* A UD QP has no path to change; an unknown bit is refused. */
	qpt_tr_mbox(&m, MLX5_CMD_OP_RTS2RTS_QP, env.uid, ud, 0);
	PRM_SET64(rts2rts_qp_in, m.in, opt_param_mask_95_32,
		  MLX5_QPC_OPT_MASK_32_UDP_SPORT);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, QP_BAD_OPT_PARAM);
	qpt_query(&env, rc, &q);
	memcpy(before, QPT_Q_QPC(&q), sizeof(before));
	qpt_tr_mbox(&m, MLX5_CMD_OP_RTS2RTS_QP, env.uid, rc, 0);
	PRM_SET64(rts2rts_qp_in, m.in, opt_param_mask_95_32,
		  MLX5_QPC_OPT_MASK_32_UDP_SPORT | 1u << 1);
	PRM_SET(qpc, QPT_TR_QPC(&m), primary_address_path.udp_sport, 0x1111);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, QP_BAD_OPT_PARAM);
	qpt_query(&env, rc, &q);
	ck_assert_mem_eq(QPT_Q_QPC(&q), before, sizeof(before));
}
END_TEST

/*
 * ECE: the create answers the version-1 opening libmlx5 sends (byte 0x14
 * of the inbox, 0x0c of the outbox) with version 1; a transition's
 * options (inbox 0x14) are cut to version 1 and no option bit, answered
 * at outbox 0x0c and kept for QUERY_QP (0x14); a transition without them
 * keeps what is in force; 0 opens nothing.
 */
START_TEST(sm_ece)
{
	struct fwt_mbox m, q;
	uint8_t *in, *out;
	uint32_t qpn;

	qpt_create_mbox(&env, &m, QPT_RC);
	in = (uint8_t *)m.in;
	out = (uint8_t *)m.out;
	in[0x14] = 0x10;
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(out[0x0c], 0x10);
	ck_assert_uint_eq(out[0x0d] | out[0x0e] | out[0x0f], 0);
	qpn = PRM_GET(create_qp_out, m.out, qpn);
	qpt_query(&env, qpn, &q);
	ck_assert_uint_eq(PRM_GET(query_qp_out, q.out, ece), 0x10000000);

	/* A version-2 peer asking for option bit 0 and unknown bits. */
	qpt_tr_mbox(&m, MLX5_CMD_OP_RST2INIT_QP, env.uid, qpn, 0);
	qpt_tr_fill(&env, &m, MLX5_CMD_OP_RST2INIT_QP, QPT_RC);
	in = (uint8_t *)m.in;
	out = (uint8_t *)m.out;
	in[0x14] = 0x20;
	in[0x17] = 0x0f;
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(rst2init_qp_out, m.out, ece), 0x10000000);
	ck_assert_uint_eq(out[0x0c], 0x10);
	/* No options: the ones in force stay and are reported. */
	qpt_tr_mbox(&m, MLX5_CMD_OP_INIT2RTR_QP, env.uid, qpn, 0);
	qpt_tr_fill(&env, &m, MLX5_CMD_OP_INIT2RTR_QP, QPT_RC);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(init2rtr_qp_out, m.out, ece), 0x10000000);
	/* Options without a version: none accepted. */
	qpt_tr_mbox(&m, MLX5_CMD_OP_RTR2RTS_QP, env.uid, qpn, 0);
	qpt_tr_fill(&env, &m, MLX5_CMD_OP_RTR2RTS_QP, QPT_RC);
	PRM_SET(rtr2rts_qp_in, m.in, ece, 0x1);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(rtr2rts_qp_out, m.out, ece), 0);
	qpt_query(&env, qpn, &q);
	ck_assert_uint_eq(PRM_GET(query_qp_out, q.out, ece), 0);

	/* A create without the opening has no ECE. */
	qpn = qpt_create(&env, QPT_UD);
	qpt_query(&env, qpn, &q);
	ck_assert_uint_eq(PRM_GET(query_qp_out, q.out, ece), 0);
}
END_TEST

static void no_ece(struct emu_fw_caps *c)
{
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "ece_support", 0),
			 0);
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL,
					 "rts2rts_qp_udp_sport", 0), 0);
}

/* Without ece_support the words are ignored; without
 * rts2rts_qp_udp_sport the extended mask is refused. */
START_TEST(sm_not_advertised)
{
	struct emu_fw *f = qpt_fw(no_ece);
	struct qpt_env e;
	struct fwt_mbox m, q;
	uint32_t qpn;

	qpt_env_init(&e, f, true);
	qpt_create_mbox(&e, &m, QPT_RC);
	PRM_SET(create_qp_in, m.in, ece, 0x10000000);
	fwt_exec(f, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(create_qp_out, m.out, ece), 0);
	qpn = PRM_GET(create_qp_out, m.out, qpn);
	qpt_to_rts(&e, qpn, QPT_RC);
	qpt_query(&e, qpn, &q);
	ck_assert_uint_eq(PRM_GET(query_qp_out, q.out, ece), 0);
	qpt_tr_mbox(&m, MLX5_CMD_OP_RTS2RTS_QP, e.uid, qpn, 0);
	PRM_SET64(rts2rts_qp_in, m.in, opt_param_mask_95_32,
		  MLX5_QPC_OPT_MASK_32_UDP_SPORT);
	fwt_exec(f, &m);
	ck_fw_synd(&m, QP_BAD_OPT_PARAM);
	emu_fw_destroy(f);
	qpt_env_fini(&e);
}
END_TEST

/* Reset and error from anywhere, and back again. */
START_TEST(sm_reset_cycle)
{
	uint32_t qpn = qpt_create(&env, QPT_RC);

	for (int round = 0; round < 3; round++) {
		qpt_to_rts(&env, qpn, QPT_RC);
		ck_assert_uint_eq(qpt_tr(&env, qpn, MLX5_CMD_OP_2ERR_QP, QPT_RC,
					 NULL), 0);
		ck_assert_uint_eq(qpt_tr(&env, qpn, MLX5_CMD_OP_2ERR_QP, QPT_RC,
					 NULL), 0);
		ck_assert_uint_eq(qpt_tr(&env, qpn, MLX5_CMD_OP_2RST_QP, QPT_RC,
					 NULL), 0);
		ck_assert_uint_eq(qpt_tr(&env, qpn, MLX5_CMD_OP_2RST_QP, QPT_RC,
					 NULL), 0);
		ck_assert_uint_eq(qpt_state(&env, qpn), MLX5_QPC_STATE_RST);
	}
	/* Unknown QP numbers. */
	{
		struct fwt_mbox m;

		qpt_tr_mbox(&m, MLX5_CMD_OP_2RST_QP, env.uid, 0x123456, 0);
		fwt_exec(fw, &m);
		ck_fw_synd(&m, QP_INVALID_QPN);
		ck_assert_uint_eq(emu_fw_out_syndrome(m.out), 0x7EA02D);
		ck_assert_uint_eq(emu_fw_out_status(m.out),
				  MLX5_CMD_STAT_BAD_RES_STATE_ERR);
		qpt_tr_mbox(&m, MLX5_CMD_OP_INIT2RTR_QP, env.uid, 0x123456, 0);
		fwt_exec(fw, &m);
		ck_fw_synd(&m, QP_INVALID);
	}
}
END_TEST

/* What the engines may do to the state. */
START_TEST(sm_engine_states)
{
	uint32_t rc = qpt_create(&env, QPT_RC), ud = qpt_create(&env, QPT_UD);
	struct emu_fw_qp *qrc = qpt_get(fw, rc), *qud = qpt_get(fw, ud);
	struct fwt_mbox m;
	unsigned int gen;
	struct emu_fw_qp_attr a;

	/* Nothing from RST. */
	ck_assert_int_eq(emu_fw_qp_set_state(qrc, MLX5_QPC_STATE_ERR), -EINVAL);
	qpt_to_rts(&env, rc, QPT_RC);
	qpt_to_rts(&env, ud, QPT_UD);
	ck_assert_int_eq(emu_fw_qp_set_state(qrc, MLX5_QPC_STATE_SQER),
			 -EINVAL);
	ck_assert_int_eq(emu_fw_qp_set_state(qrc, MLX5_QPC_STATE_RTR), -EINVAL);
	ck_assert_int_eq(emu_fw_qp_set_state(qud, MLX5_QPC_STATE_SQER), 0);
	ck_assert_uint_eq(qpt_state(&env, ud), MLX5_QPC_STATE_SQER);
	/* SQERR2RTS recovers, with a new Q_Key. */
	qpt_tr_mbox(&m, MLX5_CMD_OP_SQERR2RTS_QP, env.uid, ud, O_QKEY);
	PRM_SET(qpc, QPT_TR_QPC(&m), q_key, 0x4242);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	emu_fw_qp_get_attr(qud, &a, &gen);
	ck_assert_uint_eq(a.q_key, 0x4242);
	ck_assert_uint_eq(emu_fw_qp_state(qud), MLX5_QPC_STATE_RTS);
	/* SQD (no command enters it) and SQD2RTS. */
	ck_assert_int_eq(emu_fw_qp_set_state(qrc, MLX5_QPC_STATE_SQD), 0);
	qpt_tr_mbox(&m, MLX5_CMD_OP_SQD_RTS_QP, env.uid, rc, O_RNR);
	PRM_SET(qpc, QPT_TR_QPC(&m), min_rnr_nak, 5);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(emu_fw_qp_state(qrc), MLX5_QPC_STATE_RTS);
	/* Errors. */
	ck_assert_int_eq(emu_fw_qp_set_state(qrc, MLX5_QPC_STATE_ERR), 0);
	ck_assert_uint_eq(qpt_state(&env, rc), MLX5_QPC_STATE_ERR);
	ck_assert_uint_eq(qpt_tr(&env, rc, MLX5_CMD_OP_RTS2RTS_QP, QPT_RC,
				 NULL), MLX5_CMD_STAT_BAD_QP_STATE_ERR);
	ck_assert_int_eq(emu_fw_qp_set_state(NULL, MLX5_QPC_STATE_ERR),
			 -EINVAL);
	emu_fw_obj_put(&qrc->obj);
	emu_fw_obj_put(&qud->obj);
}
END_TEST

/* Transition inboxes shorter than the layout; DCT numbers. */
START_TEST(sm_mailbox_rules)
{
	uint32_t qpn = qpt_create(&env, QPT_RC);
	struct fwt_mbox m;

	qpt_tr_mbox(&m, R2I, env.uid, qpn, 0);
	m.inlen = 16;
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_INLEN);
	qpt_tr_mbox(&m, MLX5_CMD_OP_2ERR_QP, env.uid, qpn, 0);
	PRM_SET(mbox_in, m.in, op_mod, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_OP_MOD);
}
END_TEST

static Suite *sm_suite(void)
{
	Suite *s = suite_create("fw_qp_sm");
	TCase *tc = tcase_create("transitions");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, sm_every_transition, 0, QPT_NTYPES);
	tcase_add_loop_test(tc, sm_opt_param_mask, 0, QPT_NTYPES);
	suite_add_tcase(s, tc);

	tc = tcase_create("fields");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, sm_rst2init_fields);
	tcase_add_test(tc, sm_rst2init_no_atomic);
	tcase_add_test(tc, sm_init2rtr_fields);
	tcase_add_test(tc, sm_rtr2rts_fields);
	tcase_add_test(tc, sm_optional_objects);
	tcase_add_loop_test(tc, sm_query_echo, 0, QPT_NTYPES);
	tcase_add_test(tc, sm_rts2rts_optional);
	tcase_add_test(tc, sm_rts2rts_udp_sport);
	tcase_add_test(tc, sm_ece);
	tcase_add_test(tc, sm_not_advertised);
	tcase_add_test(tc, sm_reset_cycle);
	tcase_add_test(tc, sm_engine_states);
	tcase_add_test(tc, sm_mailbox_rules);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sm_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
