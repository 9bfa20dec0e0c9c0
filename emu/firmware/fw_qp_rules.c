/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_qp_rules.c -- the QP state machine's tables: which
 * transition goes from which state to which, which opt_param_mask bits each
 * transition allows per service type, which qpc fields each transition
 * takes, and how those fields are validated and copied.
 *
 * Sources (facts, not code):
 *  - legal transitions: mlx5_ib's optab[][] (drivers/infiniband/hw/mlx5/
 *    qp.c, __mlx5_ib_modify_qp): RST->INIT, INIT->INIT, INIT->RTR,
 *    RTR->RTS, RTS->RTS, SQER->RTS, SQD->RTS, any->ERR, any->RST (RST->RST
 *    and RST->ERR included, unlike mlx4).  RTS->SQD has no command.
 *  - allowed opt_param_mask bits: mlx5_ib's opt_mask[][][] (same file,
 *    mainline): the kernel never sends another bit, and ConnectX firmware
 *    documents the table as the transition's optional parameters
 *    ("IB/mlx5: Fix opt param mask according to firmware spec", a4774e9095de).
 *    DCI has no row (no optional parameter).  COUNTER_SET_ID on RTS2RTS
 *    needs cmd_hca_cap.rts2rts_qp_counters_set_id, LAG_TX_AFF on INIT2INIT/
 *    INIT2RTR needs init2_lag_tx_port_affinity (as the kernel sets them).
 *  - required fields: the IBA's required attributes per transition and QP
 *    type (IBA 1.x table "QP state transition properties", as libibverbs'
 *    and ib_core's qp_state_table encode them), in the PRM fields mlx5_ib
 *    writes for them (mlx5_set_path, __mlx5_ib_modify_qp): RST2INIT takes
 *    P_Key index, port, access (RC/UC/XRC) or Q_Key (UD) and the counter;
 *    INIT2RTR takes MTU, destination QPN, RQ PSN, responder resources, min
 *    RNR timer and the primary path (RC/XRC; UC: no RNR/responder fields;
 *    UD: only the MTU; DCI: the MTU, and the path's port and source GID
 *    when the command carries a port (the kernel sends the path only when
 *    asked to), the destination comes with each WQE); RTR2RTS takes SQ
 *    PSN and, for
 *    reliable types, timeout, retry counts and initiator depth.
 */
#include <string.h>

#include "emu/firmware/fw_qp_int.h"

#define ST(s) (1u << MLX5_QPC_STATE_##s)
#define ST_ANY (ST(RST) | ST(INIT) | ST(RTR) | ST(RTS) | ST(SQER) | \
		ST(SQD) | ST(ERR))

static const struct fw_qp_transition fw_qp_trs[FW_TR_N] = {
	[FW_TR_RST2INIT] = { MLX5_CMD_OP_RST2INIT_QP, "RST2INIT", ST(RST),
			     MLX5_QPC_STATE_INIT, true },
	[FW_TR_INIT2INIT] = { MLX5_CMD_OP_INIT2INIT_QP, "INIT2INIT", ST(INIT),
			      MLX5_QPC_STATE_INIT, true },
	[FW_TR_INIT2RTR] = { MLX5_CMD_OP_INIT2RTR_QP, "INIT2RTR", ST(INIT),
			     MLX5_QPC_STATE_RTR, true },
	[FW_TR_RTR2RTS] = { MLX5_CMD_OP_RTR2RTS_QP, "RTR2RTS", ST(RTR),
			    MLX5_QPC_STATE_RTS, true },
	[FW_TR_RTS2RTS] = { MLX5_CMD_OP_RTS2RTS_QP, "RTS2RTS", ST(RTS),
			    MLX5_QPC_STATE_RTS, true },
	[FW_TR_SQERR2RTS] = { MLX5_CMD_OP_SQERR2RTS_QP, "SQERR2RTS", ST(SQER),
			      MLX5_QPC_STATE_RTS, true },
	[FW_TR_SQD2RTS] = { MLX5_CMD_OP_SQD_RTS_QP, "SQD2RTS", ST(SQD),
			    MLX5_QPC_STATE_RTS, true },
	[FW_TR_2ERR] = { MLX5_CMD_OP_2ERR_QP, "2ERR", ST_ANY,
			 MLX5_QPC_STATE_ERR, false },
	[FW_TR_2RST] = { MLX5_CMD_OP_2RST_QP, "2RST", ST_ANY,
			 MLX5_QPC_STATE_RST, false },
};

int fw_qp_tr_of_opcode(uint16_t opcode)
{
	for (int i = 0; i < FW_TR_N; i++)
		if (fw_qp_trs[i].opcode == opcode)
			return i;
	return -1;
}

const struct fw_qp_transition *fw_qp_transition(enum fw_qp_tr tr)
{
	return (unsigned int)tr < FW_TR_N ? &fw_qp_trs[tr] : NULL;
}

enum fw_qp_class fw_qp_class_of(const struct emu_fw_qp *qp)
{
	switch (qp->st) {
	case MLX5_QPC_ST_UC:
		return FW_QPCL_UC;
	case MLX5_QPC_ST_UD:
		return FW_QPCL_UD;
	case MLX5_QPC_ST_XRC:
		return FW_QPCL_XRC;
	case MLX5_QPC_ST_DCI:
		return FW_QPCL_DCI;
	default:
		return FW_QPCL_RC;
	}
}

const char *fw_qp_class_name(enum fw_qp_class cls)
{
	static const char *const n[FW_QPCL_N] = { "RC", "UC", "UD", "XRC",
						  "DCI" };

	return (unsigned int)cls < FW_QPCL_N ? n[cls] : "?";
}

/* ---- opt_param_mask: mlx5_ib's opt_mask[][][] ---- */

#define O(b) MLX5_QP_OPTPAR_##b

static const uint32_t fw_qp_opt_table[FW_TR_N][FW_QPCL_N] = {
	[FW_TR_INIT2INIT] = {
		[FW_QPCL_RC] = O(RRE) | O(RAE) | O(RWE) | O(PKEY_INDEX) |
			       O(PRI_PORT) | O(LAG_TX_AFF),
		[FW_QPCL_UC] = O(RWE) | O(PKEY_INDEX) | O(PRI_PORT) |
			       O(LAG_TX_AFF),
		[FW_QPCL_UD] = O(PKEY_INDEX) | O(Q_KEY) | O(PRI_PORT),
		[FW_QPCL_XRC] = O(RRE) | O(RAE) | O(RWE) | O(PKEY_INDEX) |
				O(PRI_PORT) | O(LAG_TX_AFF),
	},
	[FW_TR_INIT2RTR] = {
		[FW_QPCL_RC] = O(ALT_ADDR_PATH) | O(RRE) | O(RAE) | O(RWE) |
			       O(PKEY_INDEX) | O(LAG_TX_AFF),
		[FW_QPCL_UC] = O(ALT_ADDR_PATH) | O(RWE) | O(PKEY_INDEX) |
			       O(LAG_TX_AFF),
		[FW_QPCL_UD] = O(PKEY_INDEX) | O(Q_KEY),
		[FW_QPCL_XRC] = O(ALT_ADDR_PATH) | O(RRE) | O(RAE) | O(RWE) |
				O(PKEY_INDEX) | O(LAG_TX_AFF),
	},
	[FW_TR_RTR2RTS] = {
		[FW_QPCL_RC] = O(ALT_ADDR_PATH) | O(RRE) | O(RAE) | O(RWE) |
			       O(PM_STATE) | O(RNR_TIMEOUT),
		[FW_QPCL_UC] = O(ALT_ADDR_PATH) | O(RWE) | O(PM_STATE),
		[FW_QPCL_UD] = O(Q_KEY),
		[FW_QPCL_XRC] = O(ALT_ADDR_PATH) | O(RRE) | O(RAE) | O(RWE) |
				O(PM_STATE) | O(RNR_TIMEOUT),
	},
	[FW_TR_RTS2RTS] = {
		[FW_QPCL_RC] = O(RRE) | O(RAE) | O(RWE) | O(RNR_TIMEOUT) |
			       O(PM_STATE) | O(ALT_ADDR_PATH),
		[FW_QPCL_UC] = O(RWE) | O(PM_STATE) | O(ALT_ADDR_PATH),
		[FW_QPCL_UD] = O(Q_KEY) | O(SRQN) | O(CQN_RCV),
		[FW_QPCL_XRC] = O(RRE) | O(RAE) | O(RWE) | O(RNR_TIMEOUT) |
				O(PM_STATE) | O(ALT_ADDR_PATH),
	},
	[FW_TR_SQERR2RTS] = {
		[FW_QPCL_RC] = O(RNR_TIMEOUT) | O(RWE) | O(RAE) | O(RRE),
		[FW_QPCL_UC] = O(RWE),
		[FW_QPCL_UD] = O(Q_KEY),
		[FW_QPCL_XRC] = O(RNR_TIMEOUT) | O(RWE) | O(RAE) | O(RRE),
	},
	[FW_TR_SQD2RTS] = {
		[FW_QPCL_RC] = O(RNR_TIMEOUT) | O(RWE) | O(RAE) | O(RRE),
		[FW_QPCL_UC] = O(RWE),
		[FW_QPCL_UD] = O(Q_KEY),
	},
};

uint32_t fw_qp_opt_allowed(const struct emu_fw *fw, enum fw_qp_tr tr,
			   enum fw_qp_class cls)
{
	uint32_t m;

	if ((unsigned int)tr >= FW_TR_N || (unsigned int)cls >= FW_QPCL_N)
		return 0;
	m = fw_qp_opt_table[tr][cls];
	if ((tr == FW_TR_INIT2INIT || tr == FW_TR_INIT2RTR) &&
	    !FW_CAP_GEN(fw, init2_lag_tx_port_affinity))
		m &= ~(uint32_t)O(LAG_TX_AFF);
	if (tr == FW_TR_RTS2RTS && FW_CAP_GEN(fw, rts2rts_qp_counters_set_id))
		m |= O(COUNTER_SET_ID);
	return m;
}

#undef O

/*
 * The extended mask: UDP_SPORT on RTS2RTS of the connected types libmlx5
 * offers it for (mlx5dv_modify_qp_udp_sport: RC and UC), when
 * rts2rts_qp_udp_sport is advertised.
 */
uint64_t fw_qp_opt_ext_allowed(const struct emu_fw *fw, enum fw_qp_tr tr,
			       enum fw_qp_class cls)
{
	if (tr == FW_TR_RTS2RTS && (cls == FW_QPCL_RC || cls == FW_QPCL_UC) &&
	    FW_CAP_GEN(fw, rts2rts_qp_udp_sport))
		return MLX5_QPC_OPT_MASK_32_UDP_SPORT;
	return 0;
}

uint32_t fw_qp_opt_ext_groups(uint64_t m)
{
	return (m & MLX5_QPC_OPT_MASK_32_UDP_SPORT) ? FW_QPF_UDP_SPORT : 0;
}

/*
 * ECE (the ece word of CREATE_QP, CREATE_DCT and the transitions that
 * carry one): bits 31:28 a version, the rest option bits.  The device
 * answers with what it accepts: the lower of the two versions and the
 * options both sides have.  It offers version 1 and no option bit (bit 0,
 * selective repeat from version 2 on in UCX's reading, is a transport it
 * does not implement); libmlx5 opens with version 1 alone (0x10000000) on
 * every create.  Emulator-assigned: the PRM's table of options is not
 * public.
 */
#define FW_ECE_VERSION_SHIFT 28
#define FW_ECE_VERSION 1u
#define FW_ECE_OPTIONS 0u

uint32_t fw_qp_ece(const struct emu_fw *fw, uint32_t ece)
{
	uint32_t ver = ece >> FW_ECE_VERSION_SHIFT;

	if (!FW_CAP_GEN(fw, ece_support) || !ver)
		return 0;
	if (ver > FW_ECE_VERSION)
		ver = FW_ECE_VERSION;
	return ver << FW_ECE_VERSION_SHIFT |
	       (ece & FW_ECE_OPTIONS & ((1u << FW_ECE_VERSION_SHIFT) - 1));
}

/* ---- required fields ---- */

#define F(g) FW_QPF_##g

static const uint32_t fw_qp_req_table[FW_TR_N][FW_QPCL_N] = {
	[FW_TR_RST2INIT] = {
		[FW_QPCL_RC] = F(PKEY) | F(PORT) | F(RRE) | F(RWE) | F(RAE) |
			       F(COUNTER),
		[FW_QPCL_UC] = F(PKEY) | F(PORT) | F(RRE) | F(RWE) | F(RAE) |
			       F(COUNTER),
		[FW_QPCL_UD] = F(PKEY) | F(PORT) | F(QKEY) | F(COUNTER),
		[FW_QPCL_XRC] = F(PKEY) | F(PORT) | F(RRE) | F(RWE) | F(RAE) |
				F(COUNTER),
		[FW_QPCL_DCI] = F(PKEY) | F(PORT) | F(COUNTER),
	},
	[FW_TR_INIT2RTR] = {
		[FW_QPCL_RC] = F(MTU) | F(REMOTE_QPN) | F(RQ_PSN) |
			       F(MIN_RNR) | F(RRA) | F(PATH),
		[FW_QPCL_UC] = F(MTU) | F(REMOTE_QPN) | F(RQ_PSN) | F(PATH),
		[FW_QPCL_UD] = F(MTU),
		[FW_QPCL_XRC] = F(MTU) | F(REMOTE_QPN) | F(RQ_PSN) |
				F(MIN_RNR) | F(RRA) | F(PATH),
		/* A DCI's path only when one is given (fw_qp_required). */
		[FW_QPCL_DCI] = F(MTU),
	},
	[FW_TR_RTR2RTS] = {
		[FW_QPCL_RC] = F(SQ_PSN) | F(RETRY) | F(SRA) | F(ACK_TIMEOUT) |
			       F(ACK_FREQ),
		[FW_QPCL_UC] = F(SQ_PSN),
		[FW_QPCL_UD] = F(SQ_PSN),
		[FW_QPCL_XRC] = F(SQ_PSN) | F(RETRY) | F(SRA) |
				F(ACK_TIMEOUT) | F(ACK_FREQ),
		[FW_QPCL_DCI] = F(SQ_PSN) | F(RETRY) | F(SRA) |
				F(ACK_TIMEOUT) | F(ACK_FREQ),
	},
};

uint32_t fw_qp_required(enum fw_qp_tr tr, enum fw_qp_class cls,
			const void *qpc)
{
	if ((unsigned int)tr >= FW_TR_N || (unsigned int)cls >= FW_QPCL_N)
		return 0;
	/* mlx5_ib writes a DCI's path into INIT2RTR only with IB_QP_AV or
	 * IB_QP_PORT (pyverbs' DC resources give neither, and pass on a
	 * ConnectX): a path with a port is checked and taken, none keeps
	 * RST2INIT's port. */
	if (tr == FW_TR_INIT2RTR && cls == FW_QPCL_DCI &&
	    PRM_GET(qpc, qpc, primary_address_path.vhca_port_num))
		return fw_qp_req_table[tr][cls] | F(PATH);
	return fw_qp_req_table[tr][cls];
}

uint32_t fw_qp_opt_groups(uint32_t m)
{
	static const struct {
		uint32_t bit, groups;
	} map[] = {
		{ MLX5_QP_OPTPAR_ALT_ADDR_PATH, F(ALT_PATH) },
		{ MLX5_QP_OPTPAR_RRE, F(RRE) },
		{ MLX5_QP_OPTPAR_RAE, F(RAE) },
		{ MLX5_QP_OPTPAR_RWE, F(RWE) },
		{ MLX5_QP_OPTPAR_PKEY_INDEX, F(PKEY) },
		{ MLX5_QP_OPTPAR_Q_KEY, F(QKEY) },
		{ MLX5_QP_OPTPAR_RNR_TIMEOUT, F(MIN_RNR) },
		{ MLX5_QP_OPTPAR_PRIMARY_ADDR_PATH, F(PATH) },
		{ MLX5_QP_OPTPAR_SRA_MAX, F(SRA) },
		{ MLX5_QP_OPTPAR_RRA_MAX, F(RRA) },
		{ MLX5_QP_OPTPAR_PM_STATE, F(PM) },
		{ MLX5_QP_OPTPAR_RETRY_COUNT, F(RETRY) },
		{ MLX5_QP_OPTPAR_RNR_RETRY, F(RETRY) },
		{ MLX5_QP_OPTPAR_ACK_TIMEOUT, F(ACK_TIMEOUT) },
		{ MLX5_QP_OPTPAR_LAG_TX_AFF, F(LAG) },
		{ MLX5_QP_OPTPAR_PRI_PORT, F(PORT) },
		{ MLX5_QP_OPTPAR_SRQN, F(SRQN) },
		{ MLX5_QP_OPTPAR_CQN_RCV, F(CQN_RCV) },
		{ MLX5_QP_OPTPAR_COUNTER_SET_ID, F(COUNTER) },
	};
	uint32_t g = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (m & map[i].bit)
			g |= map[i].groups;
	return g;
}

/* ---- validation ---- */

enum fw_synd fw_check_port(const struct emu_fw *fw, uint32_t port)
{
	if (port < 1 || port > FW_CAP_GEN(fw, num_ports))
		return FW_SYND_QP_BAD_PORT;
	return FW_SYND_OK;
}

enum fw_synd fw_check_pkey_index(const struct emu_fw *fw, uint32_t index)
{
	/* mlx5_to_sw_pkey_sz(): 128 << pkey_table_size entries. */
	uint32_t n = UINT32_C(128) << (FW_CAP_GEN(fw, pkey_table_size) & 0xf);

	return index < n ? FW_SYND_OK : FW_SYND_QP_BAD_PKEY_INDEX;
}

enum fw_synd fw_check_gid_index(struct emu_fw *fw, uint32_t port,
				uint32_t index)
{
	struct emu_fw_gid_entry e;

	if (emu_fw_gid_get(fw, port, index, &e) || !e.valid)
		return FW_SYND_QP_BAD_GID_INDEX;
	return FW_SYND_OK;
}

enum fw_synd fw_check_mtu(uint32_t mtu, bool zero_ok)
{
	if (mtu == 0)
		return zero_ok ? FW_SYND_OK : FW_SYND_QP_BAD_MTU;
	return mtu <= MLX5_QPC_MTU_4K_BYTES ? FW_SYND_OK : FW_SYND_QP_BAD_MTU;
}

enum fw_synd fw_check_counter(struct fw_cmd *cmd, uint32_t id,
			      struct emu_fw_q_counter **qcp)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	*qcp = NULL;
	if (id == 0)		/* no counter set */
		return FW_SYND_OK;
	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_Q_COUNTER, id, FW_SYND_QP_BAD_COUNTER,
			   &obj);
	if (s)
		return s;
	*qcp = emu_fw_to_q_counter(obj);
	return FW_SYND_OK;
}

/*
 * An address path.  address: the destination must be there (connected
 * QPs; a DCI's destination comes with each WQE).  A force-loopback path
 * (fl) talks to this device and carries no address.
 */
static enum fw_synd fw_check_ads(struct emu_fw *fw, const void *ads,
				 bool address)
{
	uint32_t port = PRM_GET(ads, ads, vhca_port_num);
	enum fw_synd s;

	s = fw_check_port(fw, port);
	if (s)
		return s;
	if (PRM_GET(ads, ads, fl))
		return FW_SYND_OK;
	/* RoCE: every packet carries a GRH/IP header built from the source
	 * GID entry; the destination GID is the peer. */
	s = fw_check_gid_index(fw, port, PRM_GET(ads, ads, src_addr_index));
	if (s)
		return s;
	if (address && fw_all_zero(PRM_ADDR_OF(ads, ads, rgid_rip), 16))
		return FW_SYND_QP_BAD_RGID;
	return FW_SYND_OK;
}

enum fw_synd fw_qp_check_groups(struct fw_cmd *cmd,
				const struct emu_fw_qp *qp, uint32_t g,
				const void *qpc)
{
	struct emu_fw *fw = cmd->fw;
	enum fw_qp_class cls = fw_qp_class_of(qp);
	bool dc = cls == FW_QPCL_DCI;
	enum fw_synd s;

	if (g & F(PKEY)) {
		s = fw_check_pkey_index(fw, PRM_GET(qpc, qpc,
				primary_address_path.pkey_index));
		if (s)
			return s;
	}
	if (g & F(PORT)) {
		s = fw_check_port(fw, PRM_GET(qpc, qpc,
				primary_address_path.vhca_port_num));
		if (s)
			return s;
	}
	if ((g & F(RAE)) && (PRM_GET(qpc, qpc, rae) ||
			     PRM_GET(qpc, qpc, atomic_mode))) {
		/* 8-byte atomics only (atomic_size_qp): up to UP_TO_8B. */
		if (!FW_CAP_GEN(fw, atomic) ||
		    PRM_GET(qpc, qpc, atomic_mode) >
		    MLX5_QPC_ATOMIC_MODE_UP_TO_8B)
			return FW_SYND_QP_BAD_ATOMIC_MODE;
	}
	if (g & F(MTU)) {
		s = fw_check_mtu(PRM_GET(qpc, qpc, mtu), cls == FW_QPCL_UD);
		if (s)
			return s;
		if (PRM_GET(qpc, qpc, log_msg_max) > FW_CAP_GEN(fw, log_max_msg))
			return FW_SYND_QP_BAD_MSG_MAX;
	}
	if ((g & F(REMOTE_QPN)) && PRM_GET(qpc, qpc, remote_qpn) == 0)
		return FW_SYND_QP_BAD_REMOTE_QPN;
	if ((g & F(RRA)) && PRM_GET(qpc, qpc, log_rra_max) >
	    (dc ? FW_CAP_GEN(fw, log_max_ra_res_dc) :
		  FW_CAP_GEN(fw, log_max_ra_res_qp)))
		return FW_SYND_QP_BAD_RRA_MAX;
	if ((g & F(SRA)) && PRM_GET(qpc, qpc, log_sra_max) >
	    (dc ? FW_CAP_GEN(fw, log_max_ra_req_dc) :
		  FW_CAP_GEN(fw, log_max_ra_req_qp)))
		return FW_SYND_QP_BAD_SRA_MAX;
	if (g & F(PATH)) {
		s = fw_check_ads(fw, PRM_ADDR_OF(qpc, qpc, primary_address_path),
				 !dc);
		if (s)
			return s;
	}
	if (g & F(ALT_PATH)) {
		s = fw_check_ads(fw, PRM_ADDR_OF(qpc, qpc,
						 secondary_address_path), !dc);
		if (s)
			return s;
		s = fw_check_pkey_index(fw, PRM_GET(qpc, qpc,
				secondary_address_path.pkey_index));
		if (s)
			return s;
	}
	if ((g & F(PM)) &&
	    PRM_GET(qpc, qpc, pm_state) == MLX5_QPC_PM_STATE_RESERVED)
		return FW_SYND_QP_FEATURE_NOT_SUPPORTED;
	if ((g & F(LAG)) &&
	    PRM_GET(qpc, qpc, lag_tx_port_affinity) > FW_CAP_GEN(fw, num_ports))
		return FW_SYND_QP_BAD_PORT;
	if ((g & F(SRQN)) && qp->rq_type != EMU_FW_RQ_SRQ)
		return FW_SYND_QP_BAD_RQ_TYPE;
	/* COUNTER, SRQN and CQN_RCV name objects: the caller takes them. */
	return FW_SYND_OK;
}

/* ---- copying ---- */

struct fw_bits {
	uint16_t off, sz;
};

#define QF(fld) { PRM_BIT_OFF(qpc, fld), PRM_BIT_SZ(qpc, fld) }

static const struct fw_bits fw_g_pkey[] = {
	QF(primary_address_path.pkey_index), { 0, 0 } };
static const struct fw_bits fw_g_port[] = {
	QF(primary_address_path.vhca_port_num), { 0, 0 } };
static const struct fw_bits fw_g_rre[] = { QF(rre), { 0, 0 } };
static const struct fw_bits fw_g_rwe[] = { QF(rwe), { 0, 0 } };
static const struct fw_bits fw_g_rae[] = { QF(rae), QF(atomic_mode), { 0, 0 } };
static const struct fw_bits fw_g_qkey[] = { QF(q_key), { 0, 0 } };
static const struct fw_bits fw_g_counter[] = { QF(counter_set_id), { 0, 0 } };
static const struct fw_bits fw_g_mtu[] = { QF(mtu), QF(log_msg_max), { 0, 0 } };
static const struct fw_bits fw_g_rqpn[] = { QF(remote_qpn), { 0, 0 } };
static const struct fw_bits fw_g_rq_psn[] = { QF(next_rcv_psn), { 0, 0 } };
static const struct fw_bits fw_g_min_rnr[] = { QF(min_rnr_nak), { 0, 0 } };
static const struct fw_bits fw_g_rra[] = { QF(log_rra_max), { 0, 0 } };
static const struct fw_bits fw_g_sq_psn[] = { QF(next_send_psn), { 0, 0 } };
static const struct fw_bits fw_g_retry[] = {
	QF(retry_count), QF(rnr_retry), { 0, 0 } };
static const struct fw_bits fw_g_sra[] = { QF(log_sra_max), { 0, 0 } };
static const struct fw_bits fw_g_ack_to[] = {
	QF(primary_address_path.ack_timeout), { 0, 0 } };
static const struct fw_bits fw_g_ack_freq[] = { QF(log_ack_req_freq), { 0, 0 } };
static const struct fw_bits fw_g_alt[] = {
	QF(secondary_address_path), { 0, 0 } };
static const struct fw_bits fw_g_pm[] = { QF(pm_state), { 0, 0 } };
static const struct fw_bits fw_g_lag[] = { QF(lag_tx_port_affinity), { 0, 0 } };
static const struct fw_bits fw_g_srqn[] = { QF(srqn_rmpn_xrqn), { 0, 0 } };
static const struct fw_bits fw_g_cqn_rcv[] = { QF(cqn_rcv), { 0, 0 } };
static const struct fw_bits fw_g_udp_sport[] = {
	QF(primary_address_path.udp_sport), { 0, 0 } };
/* The primary path but its P_Key index and ACK timeout, which have their
 * own groups. */
static const struct fw_bits fw_g_path[] = {
	{ PRM_BIT_OFF(qpc, primary_address_path),
	  PRM_BIT_OFF(ads, pkey_index) },
	{ PRM_BIT_OFF(qpc, primary_address_path) + PRM_BIT_OFF(ads, plane_index),
	  PRM_BIT_OFF(ads, ack_timeout) - PRM_BIT_OFF(ads, plane_index) },
	{ PRM_BIT_OFF(qpc, primary_address_path) + PRM_BIT_OFF(ads, ack_timeout) +
	  PRM_BIT_SZ(ads, ack_timeout),
	  PRM_ST_SZ_BITS(ads) - PRM_BIT_OFF(ads, ack_timeout) -
	  PRM_BIT_SZ(ads, ack_timeout) },
	{ 0, 0 }
};

static const struct fw_bits *const fw_groups[] = {
	fw_g_pkey, fw_g_port, fw_g_rre, fw_g_rwe, fw_g_rae, fw_g_qkey,
	fw_g_counter, fw_g_mtu, fw_g_rqpn, fw_g_rq_psn, fw_g_min_rnr, fw_g_rra,
	fw_g_path, fw_g_sq_psn, fw_g_retry, fw_g_sra, fw_g_ack_to,
	fw_g_ack_freq, fw_g_alt, fw_g_pm, fw_g_lag, fw_g_srqn, fw_g_cqn_rcv,
	fw_g_udp_sport,
};
_Static_assert(sizeof(fw_groups) / sizeof(fw_groups[0]) == 24,
	       "one field list per FW_QPF_* group");

static void fw_bits_copy(uint8_t *dst, const uint8_t *src, uint32_t off,
			 uint32_t sz)
{
	while (sz && off % 8) {
		uint8_t m = (uint8_t)(0x80 >> (off % 8));

		dst[off / 8] = (uint8_t)((dst[off / 8] & ~m) | (src[off / 8] & m));
		off++;
		sz--;
	}
	if (sz >= 8) {
		memcpy(dst + off / 8, src + off / 8, sz / 8);
		off += sz / 8 * 8;
		sz %= 8;
	}
	while (sz) {
		uint8_t m = (uint8_t)(0x80 >> (off % 8));

		dst[off / 8] = (uint8_t)((dst[off / 8] & ~m) | (src[off / 8] & m));
		off++;
		sz--;
	}
}

void fw_qp_copy_groups(void *dst, const void *src, uint32_t g)
{
	for (unsigned int i = 0; i < sizeof(fw_groups) / sizeof(fw_groups[0]);
	     i++) {
		if (!(g & (1u << i)))
			continue;
		for (const struct fw_bits *b = fw_groups[i]; b->sz; b++)
			fw_bits_copy(dst, src, b->off, b->sz);
	}
}

#undef F

/* ---- decoding ---- */

static void fw_path_decode(struct emu_fw_qp_path *p, const void *ads)
{
	p->port = (uint8_t)PRM_GET(ads, ads, vhca_port_num);
	p->pkey_index = (uint16_t)PRM_GET(ads, ads, pkey_index);
	p->fl = PRM_GET(ads, ads, fl);
	p->grh = PRM_GET(ads, ads, grh);
	p->sgid_index = (uint8_t)PRM_GET(ads, ads, src_addr_index);
	memcpy(p->rgid, PRM_ADDR_OF(ads, ads, rgid_rip), 16);
	memcpy(p->rmac, PRM_ADDR_OF(ads, ads, rmac_47_32), 6);
	p->hop_limit = (uint8_t)PRM_GET(ads, ads, hop_limit);
	p->tclass = (uint8_t)PRM_GET(ads, ads, tclass);
	p->stat_rate = (uint8_t)PRM_GET(ads, ads, stat_rate);
	p->sl = (uint8_t)PRM_GET(ads, ads, sl);
	p->eth_prio = (uint8_t)PRM_GET(ads, ads, eth_prio);
	p->dscp = (uint8_t)PRM_GET(ads, ads, dscp);
	p->ecn = (uint8_t)PRM_GET(ads, ads, ecn);
	p->flow_label = PRM_GET(ads, ads, flow_label);
	p->udp_sport = (uint16_t)PRM_GET(ads, ads, udp_sport);
	p->ack_timeout = (uint8_t)PRM_GET(ads, ads, ack_timeout);
}

void fw_qp_attr_from_qpc(struct emu_fw_qp_attr *a, const void *qpc)
{
	memset(a, 0, sizeof(*a));
	a->mtu = (uint8_t)PRM_GET(qpc, qpc, mtu);
	a->log_msg_max = (uint8_t)PRM_GET(qpc, qpc, log_msg_max);
	a->remote_qpn = PRM_GET(qpc, qpc, remote_qpn);
	a->next_send_psn = PRM_GET(qpc, qpc, next_send_psn);
	a->next_rcv_psn = PRM_GET(qpc, qpc, next_rcv_psn);
	a->q_key = PRM_GET(qpc, qpc, q_key);
	a->retry_count = (uint8_t)PRM_GET(qpc, qpc, retry_count);
	a->rnr_retry = (uint8_t)PRM_GET(qpc, qpc, rnr_retry);
	a->min_rnr_nak = (uint8_t)PRM_GET(qpc, qpc, min_rnr_nak);
	a->log_sra_max = (uint8_t)PRM_GET(qpc, qpc, log_sra_max);
	a->log_rra_max = (uint8_t)PRM_GET(qpc, qpc, log_rra_max);
	a->log_ack_req_freq = (uint8_t)PRM_GET(qpc, qpc, log_ack_req_freq);
	a->rre = PRM_GET(qpc, qpc, rre);
	a->rwe = PRM_GET(qpc, qpc, rwe);
	a->rae = PRM_GET(qpc, qpc, rae);
	a->atomic_mode = (uint8_t)PRM_GET(qpc, qpc, atomic_mode);
	a->pm_state = (uint8_t)PRM_GET(qpc, qpc, pm_state);
	a->lag_tx_port_affinity = (uint8_t)PRM_GET(qpc, qpc,
						   lag_tx_port_affinity);
	a->dc_access_key = PRM_GET64(qpc, qpc, dc_access_key);
	fw_path_decode(&a->pri, PRM_ADDR_OF(qpc, qpc, primary_address_path));
	fw_path_decode(&a->alt, PRM_ADDR_OF(qpc, qpc, secondary_address_path));
}
