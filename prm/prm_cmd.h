/*
 * prm/prm_cmd.h -- PRM numbers: command opcodes and statuses, capability
 * page types, object types and the enumerations used inside contexts.
 *
 * Names and values are the Linux kernel's (include/linux/mlx5/mlx5_ifc.h,
 * device.h, qp.h, drivers/net/ethernet/mellanox/mlx5/core/cmd.c) unless a
 * comment says otherwise.  Nothing here repeats infiniband/mlx5dv.h (WQE
 * segments, CQE64, CQE opcodes and syndromes are used from there); a unit
 * test includes both headers in one translation unit.
 */
#ifndef MLX5EMU_PRM_PRM_CMD_H
#define MLX5EMU_PRM_PRM_CMD_H

#include <stdint.h>

/* ---- command opcodes (MLX5_CMD_OP_<NAME>, see prm/opcodes.def) ---- */
enum {
#define PRM_OPCODE(name, val) MLX5_CMD_OP_##name = (val),
#include "prm/opcodes.def"
#undef PRM_OPCODE
};

/* Valid range for general commands that don't work over an object. */
enum {
	MLX5_CMD_OP_GENERAL_START = 0xb00,
	MLX5_CMD_OP_GENERAL_END = 0xd00,
};

/* "QUERY_HCA_CAP" for 0x100; "unknown command opcode" otherwise. */
const char *prm_opcode_str(uint16_t opcode);

/* ---- command status (outbox status byte), kernel device.h / cmd.c ---- */
#define PRM_CMD_STATUSES(X) \
	X(MLX5_CMD_STAT_OK, 0x0, "OK") \
	X(MLX5_CMD_STAT_INT_ERR, 0x1, "internal error") \
	X(MLX5_CMD_STAT_BAD_OP_ERR, 0x2, "bad operation") \
	X(MLX5_CMD_STAT_BAD_PARAM_ERR, 0x3, "bad parameter") \
	X(MLX5_CMD_STAT_BAD_SYS_STATE_ERR, 0x4, "bad system state") \
	X(MLX5_CMD_STAT_BAD_RES_ERR, 0x5, "bad resource") \
	X(MLX5_CMD_STAT_RES_BUSY, 0x6, "resource busy") \
	X(MLX5_CMD_STAT_NOT_READY, 0x7, "FW not ready") \
	X(MLX5_CMD_STAT_LIM_ERR, 0x8, "limits exceeded") \
	X(MLX5_CMD_STAT_BAD_RES_STATE_ERR, 0x9, "bad resource state") \
	X(MLX5_CMD_STAT_IX_ERR, 0xa, "bad index") \
	X(MLX5_CMD_STAT_NO_RES_ERR, 0xf, "no resources") \
	X(MLX5_CMD_STAT_BAD_QP_STATE_ERR, 0x10, "bad QP state") \
	X(MLX5_CMD_STAT_BAD_PKT_ERR, 0x30, "bad packet (discarded)") \
	X(MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR, 0x40, "bad size too many outstanding CQEs") \
	X(MLX5_CMD_STAT_BAD_INP_LEN_ERR, 0x50, "bad input length") \
	X(MLX5_CMD_STAT_BAD_OUTP_LEN_ERR, 0x51, "bad output length")

enum {
#define PRM_X(name, val, str) name = (val),
	PRM_CMD_STATUSES(PRM_X)
#undef PRM_X
};

/* Short spellings (our own) of the same values. */
enum {
	MLX5_CMD_STAT_BAD_OP = MLX5_CMD_STAT_BAD_OP_ERR,
	MLX5_CMD_STAT_BAD_PARAM = MLX5_CMD_STAT_BAD_PARAM_ERR,
	MLX5_CMD_STAT_BAD_SYS_STATE = MLX5_CMD_STAT_BAD_SYS_STATE_ERR,
	MLX5_CMD_STAT_BAD_RES = MLX5_CMD_STAT_BAD_RES_ERR,
	MLX5_CMD_STAT_LIM = MLX5_CMD_STAT_LIM_ERR,
	MLX5_CMD_STAT_BAD_RES_STATE = MLX5_CMD_STAT_BAD_RES_STATE_ERR,
	MLX5_CMD_STAT_IX = MLX5_CMD_STAT_IX_ERR,
	MLX5_CMD_STAT_NO_RES = MLX5_CMD_STAT_NO_RES_ERR,
	MLX5_CMD_STAT_BAD_QP_STATE = MLX5_CMD_STAT_BAD_QP_STATE_ERR,
	MLX5_CMD_STAT_BAD_PKT = MLX5_CMD_STAT_BAD_PKT_ERR,
	MLX5_CMD_STAT_BAD_SIZE = MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR,
	MLX5_CMD_STAT_BAD_INP_LEN = MLX5_CMD_STAT_BAD_INP_LEN_ERR,
	MLX5_CMD_STAT_BAD_OUTP_LEN = MLX5_CMD_STAT_BAD_OUTP_LEN_ERR,
};

/* The kernel's text ("bad parameter"); "unknown status" otherwise. */
const char *prm_status_str(uint8_t status);
/* The enumerator's name ("MLX5_CMD_STAT_BAD_PARAM_ERR") or NULL. */
const char *prm_status_name(uint8_t status);

/* ---- QUERY_HCA_CAP / SET_HCA_CAP op_mod: (type << 1) | mode ---- */
enum mlx5_cap_mode {
	HCA_CAP_OPMOD_GET_MAX = 0,
	HCA_CAP_OPMOD_GET_CUR = 1,
};

enum mlx5_cap_type {
	MLX5_CAP_GENERAL = 0,
	MLX5_CAP_ETHERNET_OFFLOADS,
	MLX5_CAP_ODP,
	MLX5_CAP_ATOMIC,
	MLX5_CAP_ROCE,
	MLX5_CAP_IPOIB_OFFLOADS,
	MLX5_CAP_IPOIB_ENHANCED_OFFLOADS,
	MLX5_CAP_FLOW_TABLE,
	MLX5_CAP_ESWITCH_FLOW_TABLE,
	MLX5_CAP_ESWITCH,
	MLX5_CAP_QOS = 0xc,
	MLX5_CAP_DEBUG,
	MLX5_CAP_NVMF,
	MLX5_CAP_DEV_MEM,
	MLX5_CAP_RESERVED_16,
	MLX5_CAP_TLS,
	MLX5_CAP_VDPA_EMULATION = 0x13,
	MLX5_CAP_DEV_EVENT = 0x14,
	MLX5_CAP_IPSEC,
	MLX5_CAP_CRYPTO = 0x1a,
	MLX5_CAP_SHAMPO = 0x1d,
	MLX5_CAP_MACSEC = 0x1f,
	MLX5_CAP_GENERAL_2 = 0x20,
	MLX5_CAP_PORT_SELECTION = 0x25,
	MLX5_CAP_ADV_VIRTUALIZATION = 0x26,
	MLX5_CAP_ADV_RDMA = 0x28,
	MLX5_CAP_NUM
};

/* cmd_hca_cap.port_type */
enum {
	MLX5_CAP_PORT_TYPE_IB = 0x0,
	MLX5_CAP_PORT_TYPE_ETH = 0x1,
};

/* ---- object types: general_obj_in_cmd_hdr.obj_type, DEVX object ids ---- */
enum {
	MLX5_OBJ_TYPE_SW_ICM = 0x0008,
	MLX5_OBJ_TYPE_GENEVE_TLV_OPT = 0x000b,
	MLX5_OBJ_TYPE_VIRTIO_NET_Q = 0x000d,
	MLX5_OBJ_TYPE_MATCH_DEFINER = 0x0018,
	MLX5_OBJ_TYPE_VIRTIO_Q_COUNTERS = 0x001c,
	MLX5_OBJ_TYPE_HEADER_MODIFY_ARGUMENT = 0x0023,
	MLX5_OBJ_TYPE_STC = 0x0040,
	MLX5_OBJ_TYPE_RTC = 0x0041,
	MLX5_OBJ_TYPE_STE = 0x0042,
	MLX5_OBJ_TYPE_MODIFY_HDR_PATTERN = 0x0043,
	MLX5_OBJ_TYPE_PAGE_TRACK = 0x0046,
	MLX5_OBJ_TYPE_MKEY = 0xff01,
	MLX5_OBJ_TYPE_QP = 0xff02,
	MLX5_OBJ_TYPE_PSV = 0xff03,
	MLX5_OBJ_TYPE_RMP = 0xff04,
	MLX5_OBJ_TYPE_XRC_SRQ = 0xff05,
	MLX5_OBJ_TYPE_RQ = 0xff06,
	MLX5_OBJ_TYPE_SQ = 0xff07,
	MLX5_OBJ_TYPE_TIR = 0xff08,
	MLX5_OBJ_TYPE_TIS = 0xff09,
	MLX5_OBJ_TYPE_DCT = 0xff0a,
	MLX5_OBJ_TYPE_XRQ = 0xff0b,
	MLX5_OBJ_TYPE_RQT = 0xff0e,
	MLX5_OBJ_TYPE_FLOW_COUNTER = 0xff0f,
	MLX5_OBJ_TYPE_CQ = 0xff10,
	MLX5_OBJ_TYPE_FT_ALIAS = 0xff15,
};

enum {
	MLX5_GENERAL_OBJECT_TYPES_ENCRYPTION_KEY = 0xc,
	MLX5_GENERAL_OBJECT_TYPES_IPSEC = 0x13,
	MLX5_GENERAL_OBJECT_TYPES_SAMPLER = 0x20,
	MLX5_GENERAL_OBJECT_TYPES_FLOW_METER_ASO = 0x24,
	MLX5_GENERAL_OBJECT_TYPES_MACSEC = 0x27,
	MLX5_GENERAL_OBJECT_TYPES_INT_KEK = 0x47,
	MLX5_GENERAL_OBJECT_TYPES_RDMA_CTRL = 0x53,
	MLX5_GENERAL_OBJECT_TYPES_FLOW_TABLE_ALIAS = 0xff15,
};

/* cmd_hca_cap_2.general_obj_types_127_64: bit (type - 64) per type. */
#define MLX5_HCA_CAP_2_GENERAL_OBJECT_TYPES_RDMA_CTRL \
	(UINT64_C(1) << (MLX5_GENERAL_OBJECT_TYPES_RDMA_CTRL - 64))

/* cmd_hca_cap.uctx_cap and uctx.cap (CREATE_UCTX). */
enum {
	MLX5_UCTX_CAP_RAW_TX = 1u << 0,
	MLX5_UCTX_CAP_INTERNAL_DEV_RES = 1u << 1,
	MLX5_UCTX_CAP_RDMA_CTRL = 1u << 3,
	MLX5_UCTX_CAP_RDMA_CTRL_OTHER_VHCA = 1u << 4,
};

/* ---- CQ context ---- */

/* ---- QP context ---- */
/* qpc.state as the PRM encodes it (kernel MLX5_QPC_STATE_*). */
enum {
	MLX5_QPC_STATE_RST = 0x0,
	MLX5_QPC_STATE_INIT = 0x1,
	MLX5_QPC_STATE_RTR = 0x2,
	MLX5_QPC_STATE_RTS = 0x3,
	MLX5_QPC_STATE_SQER = 0x4,
	MLX5_QPC_STATE_ERR = 0x6,
	MLX5_QPC_STATE_SQD = 0x7,
	MLX5_QPC_STATE_SUSPENDED = 0x9,
};

/*
 * The same, spelled MLX5_QP_STATE_*.  Beware: the kernel's driver-private
 * enum mlx5_qp_state (include/linux/mlx5/qp.h) numbers SQD 5 and ERR 6 for
 * its own tables; these are the PRM (qpc.state) values, SQD 7.
 */
enum {
	MLX5_QP_STATE_RST = MLX5_QPC_STATE_RST,
	MLX5_QP_STATE_INIT = MLX5_QPC_STATE_INIT,
	MLX5_QP_STATE_RTR = MLX5_QPC_STATE_RTR,
	MLX5_QP_STATE_RTS = MLX5_QPC_STATE_RTS,
	MLX5_QP_STATE_SQER = MLX5_QPC_STATE_SQER,
	MLX5_QP_STATE_ERR = MLX5_QPC_STATE_ERR,
	MLX5_QP_STATE_SQD = MLX5_QPC_STATE_SQD,
	MLX5_QP_STATE_SUSPENDED = MLX5_QPC_STATE_SUSPENDED,
};

enum {
	MLX5_QPC_ST_RC = 0x0,
	MLX5_QPC_ST_UC = 0x1,
	MLX5_QPC_ST_UD = 0x2,
	MLX5_QPC_ST_XRC = 0x3,
	MLX5_QPC_ST_DCI = 0x5,
	MLX5_QPC_ST_QP0 = 0x7,
	MLX5_QPC_ST_QP1 = 0x8,
	MLX5_QPC_ST_RAW_DATAGRAM = 0x9,
	MLX5_QPC_ST_REG_UMR = 0xc,
};

enum {
	MLX5_QPC_PM_STATE_ARMED = 0x0,
	MLX5_QPC_PM_STATE_REARM = 0x1,
	MLX5_QPC_PM_STATE_RESERVED = 0x2,
	MLX5_QPC_PM_STATE_MIGRATED = 0x3,
};

enum {
	MLX5_QPC_MTU_256_BYTES = 0x1,
	MLX5_QPC_MTU_512_BYTES = 0x2,
	MLX5_QPC_MTU_1K_BYTES = 0x3,
	MLX5_QPC_MTU_2K_BYTES = 0x4,
	MLX5_QPC_MTU_4K_BYTES = 0x5,
	MLX5_QPC_MTU_RAW_ETHERNET_QP = 0x7,
};

enum {
	MLX5_QPC_ATOMIC_MODE_IB_SPEC = 0x1,
	MLX5_QPC_ATOMIC_MODE_ONLY_8B = 0x2,
	MLX5_QPC_ATOMIC_MODE_UP_TO_8B = 0x3,
	MLX5_QPC_ATOMIC_MODE_UP_TO_16B = 0x4,
	MLX5_QPC_ATOMIC_MODE_UP_TO_32B = 0x5,
	MLX5_QPC_ATOMIC_MODE_UP_TO_64B = 0x6,
	MLX5_QPC_ATOMIC_MODE_UP_TO_128B = 0x7,
	MLX5_QPC_ATOMIC_MODE_UP_TO_256B = 0x8,
};

enum {
	MLX5_QPC_CS_REQ_DISABLE = 0x0,
	MLX5_QPC_CS_REQ_UP_TO_32B = 0x11,
	MLX5_QPC_CS_REQ_UP_TO_64B = 0x22,
};

enum {
	MLX5_QPC_CS_RES_DISABLE = 0x0,
	MLX5_QPC_CS_RES_UP_TO_32B = 0x1,
	MLX5_QPC_CS_RES_UP_TO_64B = 0x2,
};

/* qpc/cqc/sqc/rqc ts_format */
enum {
	MLX5_TIMESTAMP_FORMAT_FREE_RUNNING = 0x0,
	MLX5_TIMESTAMP_FORMAT_DEFAULT = 0x1,
	MLX5_TIMESTAMP_FORMAT_REAL_TIME = 0x2,
};

/* cmd_hca_cap.sq_ts_format/rq_ts_format, roce_cap.qp_ts_format: the
 * formats the queues take (kernel mlx5_ifc.h). */
enum {
	MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING = 0x0,
	MLX5_TIMESTAMP_FORMAT_CAP_REAL_TIME = 0x1,
	MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING_AND_REAL_TIME = 0x2,
};

/*
 * The clock registers of the initialization segment (BAR 0; struct
 * mlx5_init_seg in the kernel's include/linux/mlx5/device.h): big-endian
 * words.  The internal timer is the free-running counter at
 * cmd_hca_cap.device_frequency_khz; the real-time clock holds seconds (h)
 * and nanoseconds (l).  mlx5_ib maps the page of internal_timer_h to user
 * space at its core clock offset.
 */
enum {
	MLX5_ISEG_INTERNAL_TIMER_H = 0x1000,
	MLX5_ISEG_INTERNAL_TIMER_L = 0x1004,
	MLX5_ISEG_REAL_TIME_H = 0x1040,
	MLX5_ISEG_REAL_TIME_L = 0x1044,
};

/*
 * qpc.rq_type: how a QP receives (drivers/infiniband/hw/mlx5/qp.c
 * MLX5_NON_ZERO_RQ...MLX5_ZERO_LEN_RQ).
 */
enum {
	MLX5_NON_ZERO_RQ = 0x0,
	MLX5_SRQ_RQ = 0x1,
	MLX5_CRQ = 0x2,
	MLX5_ZERO_LEN_RQ = 0x3,
};

/* opt_param_mask of the QP transitions (include/linux/mlx5/qp.h enum
 * mlx5_qp_optpar). */
enum {
	MLX5_QP_OPTPAR_ALT_ADDR_PATH = 1 << 0,
	MLX5_QP_OPTPAR_RRE = 1 << 1,
	MLX5_QP_OPTPAR_RAE = 1 << 2,
	MLX5_QP_OPTPAR_RWE = 1 << 3,
	MLX5_QP_OPTPAR_PKEY_INDEX = 1 << 4,
	MLX5_QP_OPTPAR_Q_KEY = 1 << 5,
	MLX5_QP_OPTPAR_RNR_TIMEOUT = 1 << 6,
	MLX5_QP_OPTPAR_PRIMARY_ADDR_PATH = 1 << 7,
	MLX5_QP_OPTPAR_SRA_MAX = 1 << 8,
	MLX5_QP_OPTPAR_RRA_MAX = 1 << 9,
	MLX5_QP_OPTPAR_PM_STATE = 1 << 10,
	MLX5_QP_OPTPAR_RETRY_COUNT = 1 << 12,
	MLX5_QP_OPTPAR_RNR_RETRY = 1 << 13,
	MLX5_QP_OPTPAR_ACK_TIMEOUT = 1 << 14,
	MLX5_QP_OPTPAR_LAG_TX_AFF = 1 << 15,
	MLX5_QP_OPTPAR_PRI_PORT = 1 << 16,
	MLX5_QP_OPTPAR_SRQN = 1 << 18,
	MLX5_QP_OPTPAR_CQN_RCV = 1 << 19,
	MLX5_QP_OPTPAR_DC_HS = 1 << 20,
	MLX5_QP_OPTPAR_DC_KEY = 1 << 21,
	MLX5_QP_OPTPAR_COUNTER_SET_ID = 1 << 25,
};

/* opt_param_mask_95_32 of RTS2RTS (rdma-core providers/mlx5/mlx5_ifc.h
 * MLX5_QPC_OPT_MASK_32_*; bit n is mask bit 32 + n). */
enum {
	MLX5_QPC_OPT_MASK_32_UDP_SPORT = 1 << 2,
};

/* ads.stat_rate: an IB static rate code plus this (mlx5_ib ah.c,
 * MLX5_STAT_RATE_OFFSET); 0 means the port's full rate. */
enum {
	MLX5_STAT_RATE_OFFSET = 5,
};

/* wq.wq_type and wq.end_padding_mode, also qpc.end_padding_mode
 * (mlx5_ifc.h). */
enum {
	MLX5_WQ_TYPE_LINKED_LIST = 0x0,
	MLX5_WQ_TYPE_CYCLIC = 0x1,
};

enum {
	MLX5_WQ_END_PAD_MODE_NONE = 0x0,
	MLX5_WQ_END_PAD_MODE_ALIGN = 0x1,
};

/* ---- other queue and object states ---- */
enum {
	MLX5_SRQC_STATE_GOOD = 0x0,
	MLX5_SRQC_STATE_ERROR = 0x1,
};

enum {
	MLX5_XRC_SRQC_STATE_GOOD = 0x0,
	MLX5_XRC_SRQC_STATE_ERROR = 0x1,
};

enum {
	MLX5_DCTC_STATE_ACTIVE = 0x0,
	MLX5_DCTC_STATE_DRAINING = 0x1,
	MLX5_DCTC_STATE_DRAINED = 0x2,
};

enum {
	MLX5_RMPC_STATE_RDY = 0x1,
	MLX5_RMPC_STATE_ERR = 0x3,
};

enum {
	MLX5_RQC_STATE_RST = 0x0,
	MLX5_RQC_STATE_RDY = 0x1,
	MLX5_RQC_STATE_ERR = 0x3,
};

enum {
	MLX5_SQC_STATE_RST = 0x0,
	MLX5_SQC_STATE_RDY = 0x1,
	MLX5_SQC_STATE_ERR = 0x3,
};

/* ---- CQ context ---- */
enum {
	MLX5_CQC_STATUS_OK = 0x0,
	MLX5_CQC_STATUS_CQ_OVERFLOW = 0x9,
	MLX5_CQC_STATUS_CQ_WRITE_FAIL = 0xa,
};

enum {
	MLX5_CQC_CQE_SZ_64_BYTES = 0x0,
	MLX5_CQC_CQE_SZ_128_BYTES = 0x1,
	MLX5_CQC_CQE_SZ_128_PAD = 0x2,	/* with cqe_128_always */
};

enum {
	MLX5_CQC_ST_SOLICITED_NOTIFICATION_REQUEST_ARMED = 0x6,
	MLX5_CQC_ST_NOTIFICATION_REQUEST_ARMED = 0x9,
	MLX5_CQC_ST_FIRED = 0xa,
};

/* modify_cq_in field_select (include/linux/mlx5/cq.h), and its op_mod. */
enum {
	MLX5_CQ_MODIFY_PERIOD = 1 << 0,
	MLX5_CQ_MODIFY_COUNT = 1 << 1,
	MLX5_CQ_MODIFY_OVERRUN = 1 << 2,
	MLX5_CQ_MODIFY_PERIOD_MODE = 1 << 4,
};

enum {
	MLX5_CQ_OPMOD_RESIZE = 1,
};

/* modify_cq_in field_select of a resize (op_mod MLX5_CQ_OPMOD_RESIZE). */
enum {
	MLX5_MODIFY_CQ_MASK_LOG_SIZE = 1 << 0,
	MLX5_MODIFY_CQ_MASK_PG_OFFSET = 1 << 1,
	MLX5_MODIFY_CQ_MASK_PG_SIZE = 1 << 2,
};

/* eqc.st (include/linux/mlx5/eq.h). */
enum {
	MLX5_EQ_STATE_ARMED = 0x9,
	MLX5_EQ_STATE_FIRED = 0xa,
	MLX5_EQ_STATE_ALWAYS_ARMED = 0xb,
};

/* ---- memory key context ---- */
enum {
	MLX5_MKC_ACCESS_MODE_PA = 0x0,
	MLX5_MKC_ACCESS_MODE_MTT = 0x1,
	MLX5_MKC_ACCESS_MODE_KLMS = 0x2,
	MLX5_MKC_ACCESS_MODE_KSM = 0x3,
	MLX5_MKC_ACCESS_MODE_SW_ICM = 0x4,
	MLX5_MKC_ACCESS_MODE_MEMIC = 0x5,
	MLX5_MKC_ACCESS_MODE_CROSSING = 0x6,
};

/* The op of a UMR's repeat block (libmlx5 umr_strided_seg_create): what
 * tells it from a KLM entry in the inline translation. */
enum {
	MLX5_UMR_REPEAT_BLOCK_OP = 0x400,
};

/* ---- event queue entries: eqe.event_type (kernel device.h enum mlx5_event) ---- */
enum {
	MLX5_EVENT_TYPE_COMP = 0x00,
	MLX5_EVENT_TYPE_PATH_MIG = 0x01,
	MLX5_EVENT_TYPE_COMM_EST = 0x02,
	MLX5_EVENT_TYPE_SQ_DRAINED = 0x03,
	MLX5_EVENT_TYPE_CQ_ERROR = 0x04,
	MLX5_EVENT_TYPE_WQ_CATAS_ERROR = 0x05,
	MLX5_EVENT_TYPE_PATH_MIG_FAILED = 0x07,
	MLX5_EVENT_TYPE_INTERNAL_ERROR = 0x08,
	MLX5_EVENT_TYPE_PORT_CHANGE = 0x09,
	MLX5_EVENT_TYPE_CMD = 0x0a,
	MLX5_EVENT_TYPE_PAGE_REQUEST = 0x0b,
	MLX5_EVENT_TYPE_PAGE_FAULT = 0x0c,
	MLX5_EVENT_TYPE_NIC_VPORT_CHANGE = 0x0d,
	MLX5_EVENT_TYPE_ESW_FUNCTIONS_CHANGED = 0x0e,
	MLX5_EVENT_TYPE_VHCA_STATE_CHANGE = 0x0f,
	MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR = 0x10,
	MLX5_EVENT_TYPE_WQ_ACCESS_ERROR = 0x11,
	MLX5_EVENT_TYPE_SRQ_CATAS_ERROR = 0x12,
	MLX5_EVENT_TYPE_SRQ_LAST_WQE = 0x13,
	MLX5_EVENT_TYPE_SRQ_RQ_LIMIT = 0x14,
	MLX5_EVENT_TYPE_GPIO_EVENT = 0x15,
	MLX5_EVENT_TYPE_PORT_MODULE_EVENT = 0x16,
	MLX5_EVENT_TYPE_TEMP_WARN_EVENT = 0x17,
	MLX5_EVENT_TYPE_XRQ_ERROR = 0x18,
	MLX5_EVENT_TYPE_REMOTE_CONFIG = 0x19,
	MLX5_EVENT_TYPE_DB_BF_CONGESTION = 0x1a,
	MLX5_EVENT_TYPE_STALL_EVENT = 0x1b,
	MLX5_EVENT_TYPE_DCT_DRAINED = 0x1c,
	MLX5_EVENT_TYPE_DCT_KEY_VIOLATION = 0x1d,
	MLX5_EVENT_TYPE_FPGA_ERROR = 0x20,
	MLX5_EVENT_TYPE_FPGA_QP_ERROR = 0x21,
	MLX5_EVENT_TYPE_GENERAL_EVENT = 0x22,
	MLX5_EVENT_TYPE_MONITOR_COUNTER = 0x24,
	MLX5_EVENT_TYPE_PPS_EVENT = 0x25,
	MLX5_EVENT_TYPE_DEVICE_TRACER = 0x26,
	MLX5_EVENT_TYPE_OBJECT_CHANGE = 0x27,
	MLX5_EVENT_TYPE_MAX = 0x100,
};

/* port_state_change_event: eqe.event_sub_type (kernel device.h) */
enum {
	MLX5_PORT_CHANGE_SUBTYPE_DOWN = 1,
	MLX5_PORT_CHANGE_SUBTYPE_ACTIVE = 4,
	MLX5_PORT_CHANGE_SUBTYPE_INITIALIZED = 5,
	MLX5_PORT_CHANGE_SUBTYPE_LID = 6,
	MLX5_PORT_CHANGE_SUBTYPE_PKEY = 7,
	MLX5_PORT_CHANGE_SUBTYPE_GUID = 8,
	MLX5_PORT_CHANGE_SUBTYPE_CLIENT_REREG = 9,
};

/* ---- vports ---- */
enum {
	MLX5_VPORT_STATE_OP_MOD_VNIC_VPORT = 0x0,
	MLX5_VPORT_STATE_OP_MOD_ESW_VPORT = 0x1,
	MLX5_VPORT_STATE_OP_MOD_UPLINK = 0x2,
};

/* QUERY_VPORT_STATE state and admin_state (mlx5_ifc.h, vport.h). */
enum {
	MLX5_VPORT_STATE_DOWN = 0x0,
	MLX5_VPORT_STATE_UP = 0x1,
};

enum {
	MLX5_VPORT_ADMIN_STATE_DOWN = 0x0,
	MLX5_VPORT_ADMIN_STATE_UP = 0x1,
	MLX5_VPORT_ADMIN_STATE_AUTO = 0x2,
};

/* roce_addr_layout (include/linux/mlx5/device.h). */
enum {
	MLX5_ROCE_VERSION_1 = 0,
	MLX5_ROCE_VERSION_2 = 2,
};

enum {
	MLX5_ROCE_L3_TYPE_IPV4 = 0,
	MLX5_ROCE_L3_TYPE_IPV6 = 1,
};

/* ---- port registers (ACCESS_REG) ---- */

/* access_register_in.register_id (include/linux/mlx5/driver.h). */
enum {
	MLX5_REG_PMTU = 0x5003,
	MLX5_REG_PTYS = 0x5004,
};

/* access_register_in.op_mod: mlx5_core_access_reg() sets !write. */
enum {
	MLX5_ACCESS_REG_WRITE = 0,
	MLX5_ACCESS_REG_READ = 1,
};

/* ptys_reg.proto_mask (include/linux/mlx5/port.h). */
enum {
	MLX5_PTYS_IB = 1 << 0,
	MLX5_PTYS_EN = 1 << 2,
};

/* Bits of ptys_reg.eth_proto_* (include/linux/mlx5/port.h enum
 * mlx5e_link_mode); MLX5E_PROT_MASK() makes the mask of one. */
enum {
	MLX5E_1000BASE_CX_SGMII = 0,
	MLX5E_1000BASE_KX = 1,
	MLX5E_10GBASE_CX4 = 2,
	MLX5E_10GBASE_KX4 = 3,
	MLX5E_10GBASE_KR = 4,
	MLX5E_20GBASE_KR2 = 5,
	MLX5E_40GBASE_CR4 = 6,
	MLX5E_40GBASE_KR4 = 7,
	MLX5E_56GBASE_R4 = 8,
	MLX5E_10GBASE_CR = 12,
	MLX5E_10GBASE_SR = 13,
	MLX5E_10GBASE_ER = 14,
	MLX5E_40GBASE_SR4 = 15,
	MLX5E_40GBASE_LR4 = 16,
	MLX5E_50GBASE_SR2 = 18,
	MLX5E_100GBASE_CR4 = 20,
	MLX5E_100GBASE_SR4 = 21,
	MLX5E_100GBASE_KR4 = 22,
	MLX5E_100GBASE_LR4 = 23,
	MLX5E_100BASE_TX = 24,
	MLX5E_1000BASE_T = 25,
	MLX5E_10GBASE_T = 26,
	MLX5E_25GBASE_CR = 27,
	MLX5E_25GBASE_KR = 28,
	MLX5E_25GBASE_SR = 29,
	MLX5E_50GBASE_CR2 = 30,
	MLX5E_50GBASE_KR2 = 31,
};

/* Bits of ptys_reg.ext_eth_proto_* (enum mlx5e_ext_link_mode). */
enum {
	MLX5E_SGMII_100M = 0,
	MLX5E_1000BASE_X_SGMII = 1,
	MLX5E_5GBASE_R = 3,
	MLX5E_10GBASE_XFI_XAUI_1 = 4,
	MLX5E_40GBASE_XLAUI_4_XLPPI_4 = 5,
	MLX5E_25GAUI_1_25GBASE_CR_KR = 6,
	MLX5E_50GAUI_2_LAUI_2_50GBASE_CR2_KR2 = 7,
	MLX5E_50GAUI_1_LAUI_1_50GBASE_CR_KR = 8,
	MLX5E_CAUI_4_100GBASE_CR4_KR4 = 9,
	MLX5E_100GAUI_2_100GBASE_CR2_KR2 = 10,
	MLX5E_100GAUI_1_100GBASE_CR_KR = 11,
	MLX5E_200GAUI_4_200GBASE_CR4_KR4 = 12,
	MLX5E_200GAUI_2_200GBASE_CR2_KR2 = 13,
	MLX5E_400GAUI_8_400GBASE_CR8 = 15,
	MLX5E_400GAUI_4_400GBASE_CR4_KR4 = 16,
	MLX5E_800GAUI_8_800GBASE_CR8_KR8 = 19,
};

#define MLX5E_PROT_MASK(link_mode) (UINT32_C(1) << (link_mode))

/* ---- Ethernet queues: TIR, TIS, RQ, SQ, RQT (include/linux/mlx5/mlx5_ifc.h
 * unless said otherwise) ---- */

/* tirc.disp_type */
enum {
	MLX5_TIRC_DISP_TYPE_DIRECT = 0x0,
	MLX5_TIRC_DISP_TYPE_INDIRECT = 0x1,
};

/* tirc.rx_hash_fn */
enum {
	MLX5_RX_HASH_FN_NONE = 0x0,
	MLX5_RX_HASH_FN_INVERTED_XOR8 = 0x1,
	MLX5_RX_HASH_FN_TOEPLITZ = 0x2,
};

/* tirc.self_lb_block bits */
enum {
	MLX5_TIRC_SELF_LB_BLOCK_BLOCK_UNICAST = 0x1,
	MLX5_TIRC_SELF_LB_BLOCK_BLOCK_MULTICAST = 0x2,
};

/* tirc.packet_merge_mask (LRO) bits */
enum {
	MLX5_TIRC_PACKET_MERGE_MASK_IPV4_LRO = 0x1,
	MLX5_TIRC_PACKET_MERGE_MASK_IPV6_LRO = 0x2,
};

/* rx_hash_field_select: l3_prot_type, l4_prot_type, selected_fields bits */
enum {
	MLX5_L3_PROT_TYPE_IPV4 = 0,
	MLX5_L3_PROT_TYPE_IPV6 = 1,
};

enum {
	MLX5_L4_PROT_TYPE_TCP = 0,
	MLX5_L4_PROT_TYPE_UDP = 1,
};

enum {
	MLX5_HASH_FIELD_SEL_SRC_IP = 1 << 0,
	MLX5_HASH_FIELD_SEL_DST_IP = 1 << 1,
	MLX5_HASH_FIELD_SEL_L4_SPORT = 1 << 2,
	MLX5_HASH_FIELD_SEL_L4_DPORT = 1 << 3,
	MLX5_HASH_FIELD_SEL_IPSEC_SPI = 1 << 4,
};

/* wq.wq_type of the striding receive queues (beside LINKED_LIST/CYCLIC) */
enum {
	MLX5_WQ_TYPE_LINKED_LIST_STRIDING_RQ = 0x2,
	MLX5_WQ_TYPE_CYCLIC_STRIDING_RQ = 0x3,
};

/* rqc.mem_rq_type */
enum {
	MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_INLINE = 0x0,
	MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_RMP = 0x1,
};

/* modify_rq_in.modify_bitmask */
enum {
	MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_WQ_LWM = 1ULL << 0,
	MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_VSD = 1ULL << 1,
	MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_SCATTER_FCS = 1ULL << 2,
	MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_RQ_COUNTER_SET_ID = 1ULL << 3,
};

/* modify_sq_in.modify_bitmask */
enum {
	MLX5_MODIFY_SQ_IN_MODIFY_BITMASK_PACKET_PACING_RATE_LIMIT_INDEX = 1ULL << 0,
	MLX5_MODIFY_SQ_IN_MODIFY_BITMASK_QOS_QUEUE_GROUP_ID = 1ULL << 2,
};

/* sqc.min_wqe_inline_mode (include/linux/mlx5/device.h enum
 * mlx5_inline_modes) */
enum {
	MLX5_INLINE_MODE_NONE = 0x0,
	MLX5_INLINE_MODE_L2 = 0x1,
	MLX5_INLINE_MODE_IP = 0x2,
	MLX5_INLINE_MODE_TCP_UDP = 0x3,
};

/* per_protocol_networking_offload_caps.wqe_inline_mode (device.h) */
enum {
	MLX5_CAP_INLINE_MODE_L2 = 0x0,
	MLX5_CAP_INLINE_MODE_VPORT_CONTEXT = 0x1,
	MLX5_CAP_INLINE_MODE_NOT_REQUIRED = 0x2,
};

/* fte_match_set_lyr_2_4.l4_type (mlx5_ifc.h enum mlx5_packet_l4_type). */
enum {
	MLX5_PACKET_L4_TYPE_NONE = 0,
	MLX5_PACKET_L4_TYPE_TCP = 1,
	MLX5_PACKET_L4_TYPE_UDP = 2,
};

/* cqe64_eth.l4_hdr_type (include/linux/mlx5/device.h). */
enum {
	CQE_L4_HDR_TYPE_NONE = 0x0,
	CQE_L4_HDR_TYPE_TCP_NO_ACK = 0x1,
	CQE_L4_HDR_TYPE_UDP = 0x2,
	CQE_L4_HDR_TYPE_TCP_ACK_NO_DATA = 0x3,
	CQE_L4_HDR_TYPE_TCP_ACK_AND_DATA = 0x4,
};

/* cqe64_eth.rss_*_type (device.h; the kernel's en/xdp.c names the codes). */
enum {
	CQE_RSS_IP_NONE = 0,
	CQE_RSS_IPV4 = 1,
	CQE_RSS_IPV6 = 2,
};

enum {
	CQE_RSS_L4_NONE = 0,
	CQE_RSS_L4_TCP = 1,
	CQE_RSS_L4_UDP = 2,
	CQE_RSS_L4_IPSEC = 3,
};

/*
 * The Ethernet segment (mlx5dv.h struct mlx5_wqe_eth_seg): cs_flags' inner
 * bits and, in place of inline_hdr_sz/inline_hdr_start, the VLAN to insert
 * (kernel qp.h: insert.type, insert.vlan_tci; en_tx.c sets one or the other).
 */
enum {
	MLX5_ETH_WQE_L3_INNER_CSUM = 1 << 4,
	MLX5_ETH_WQE_L4_INNER_CSUM = 1 << 5,
};

enum {
	MLX5_ETH_WQE_SVLAN = 1 << 0,
	MLX5_ETH_WQE_INSERT_VLAN = 1 << 15,
};

/* ---- NIC flow steering (mlx5_ifc.h, include/linux/mlx5/fs.h) ---- */

/* table_type of the flow steering commands (enum fs_flow_table_type). */
enum {
	MLX5_FLOW_TABLE_TYPE_NIC_RX = 0x0,
	MLX5_FLOW_TABLE_TYPE_NIC_TX = 0x1,
	MLX5_FLOW_TABLE_TYPE_ESW_EGRESS_ACL = 0x2,
	MLX5_FLOW_TABLE_TYPE_ESW_INGRESS_ACL = 0x3,
	MLX5_FLOW_TABLE_TYPE_FDB = 0x4,
	MLX5_FLOW_TABLE_TYPE_SNIFFER_RX = 0x5,
	MLX5_FLOW_TABLE_TYPE_SNIFFER_TX = 0x6,
	MLX5_FLOW_TABLE_TYPE_RDMA_RX = 0x7,
	MLX5_FLOW_TABLE_TYPE_RDMA_TX = 0x8,
};

/* flow_table_context.table_miss_action. */
enum {
	MLX5_FLOW_TABLE_MISS_ACTION_DEF = 0x0,
	MLX5_FLOW_TABLE_MISS_ACTION_FWD = 0x1,
	MLX5_FLOW_TABLE_MISS_ACTION_SWITCH_DOMAIN = 0x2,
};

/* modify_flow_table_in.modify_field_select. */
enum {
	MLX5_MODIFY_FLOW_TABLE_MISS_TABLE_ID = 1 << 0,
	MLX5_MODIFY_FLOW_TABLE_LAG_NEXT_TABLE_ID = 1 << 15,
};

/* create_flow_group_in.match_criteria_enable: the fte_match_param blocks. */
enum {
	MLX5_MATCH_OUTER_HEADERS = 1 << 0,
	MLX5_MATCH_MISC_PARAMETERS = 1 << 1,
	MLX5_MATCH_INNER_HEADERS = 1 << 2,
	MLX5_MATCH_MISC_PARAMETERS_2 = 1 << 3,
	MLX5_MATCH_MISC_PARAMETERS_3 = 1 << 4,
	MLX5_MATCH_MISC_PARAMETERS_4 = 1 << 5,
	MLX5_MATCH_MISC_PARAMETERS_5 = 1 << 6,
};

/* flow_context.action. */
enum {
	MLX5_FLOW_CONTEXT_ACTION_ALLOW = 0x1,
	MLX5_FLOW_CONTEXT_ACTION_DROP = 0x2,
	MLX5_FLOW_CONTEXT_ACTION_FWD_DEST = 0x4,
	MLX5_FLOW_CONTEXT_ACTION_COUNT = 0x8,
	MLX5_FLOW_CONTEXT_ACTION_PACKET_REFORMAT = 0x10,
	MLX5_FLOW_CONTEXT_ACTION_DECAP = 0x20,
	MLX5_FLOW_CONTEXT_ACTION_MOD_HDR = 0x40,
	MLX5_FLOW_CONTEXT_ACTION_VLAN_POP = 0x80,
	MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH = 0x100,
	MLX5_FLOW_CONTEXT_ACTION_VLAN_POP_2 = 0x400,
	MLX5_FLOW_CONTEXT_ACTION_VLAN_PUSH_2 = 0x800,
	MLX5_FLOW_CONTEXT_ACTION_CRYPTO_DECRYPT = 0x1000,
	MLX5_FLOW_CONTEXT_ACTION_CRYPTO_ENCRYPT = 0x2000,
	MLX5_FLOW_CONTEXT_ACTION_EXECUTE_ASO = 0x4000,
};

/* dest_format_struct.destination_type (enum mlx5_ifc_flow_destination_type). */
enum {
	MLX5_IFC_FLOW_DESTINATION_TYPE_VPORT = 0x0,
	MLX5_IFC_FLOW_DESTINATION_TYPE_FLOW_TABLE = 0x1,
	MLX5_IFC_FLOW_DESTINATION_TYPE_TIR = 0x2,
	MLX5_IFC_FLOW_DESTINATION_TYPE_FLOW_SAMPLER = 0x6,
	MLX5_IFC_FLOW_DESTINATION_TYPE_UPLINK = 0x8,
	MLX5_IFC_FLOW_DESTINATION_TYPE_TABLE_TYPE = 0xA,
};

/* set_fte_in.modify_enable_mask: bit numbers (enum mlx5_set_fte_modify_enable_mask). */
enum {
	MLX5_SET_FTE_MODIFY_ENABLE_MASK_ACTION = 0x0,
	MLX5_SET_FTE_MODIFY_ENABLE_MASK_FLOW_TAG = 0x1,
	MLX5_SET_FTE_MODIFY_ENABLE_MASK_DESTINATION_LIST = 0x2,
	MLX5_SET_FTE_MODIFY_ENABLE_MASK_FLOW_COUNTERS = 0x3,
	MLX5_SET_FTE_MODIFY_ENABLE_MASK_IPSEC_OBJ_ID = 0x4,
};

/* nic_vport_context.allowed_list_type (enum mlx5_list_type). */
enum {
	MLX5_NVPRT_LIST_TYPE_UC = 0x0,
	MLX5_NVPRT_LIST_TYPE_MC = 0x1,
	MLX5_NVPRT_LIST_TYPE_VLAN = 0x2,
};

#endif /* MLX5EMU_PRM_PRM_CMD_H */
