/* SPDX-License-Identifier: MIT */
/*
 * emu/trace/trace_fmt.h -- PRM commands decoded by field name, as one line
 * of readable text or one JSON object.
 *
 * Pure functions over prm/'s field table: no device, no I/O, no state, so
 * the command trace (trace.h), `mlx5emu prm decode` and the unit tests share
 * them.  Every function may be called from any thread.
 *
 * Which layout describes a mailbox: the opcode's name, lower-cased, with
 * _in/_out (CREATE_CQ -> create_cq_in/create_cq_out), a few renamings the
 * PRM has (2ERR_QP -> qp_2err_in, SET_FLOW_TABLE_ENTRY -> set_fte_in, ...),
 * general objects by their general_obj_in/out_cmd_hdr with the object type
 * named, and mbox_in/mbox_out for an opcode prm/ has no layout for.  Unions
 * are decoded by the member the command selects (QUERY_HCA_CAP's page by
 * op_mod, MODIFY_CQ's field select by op_mod, a general object's op_param by
 * opcode); any other union shows every member.
 */
#ifndef MLX5EMU_EMU_TRACE_TRACE_FMT_H
#define MLX5EMU_EMU_TRACE_TRACE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prm/prm_fields.h"

enum emu_trace_format {
	EMU_TRACE_TEXT,		/* one readable line: name=0x.. pairs */
	EMU_TRACE_JSON,		/* one JSON object (JSON lines) */
	EMU_TRACE_LINES,	/* one field a line (mlx5emu prm decode) */
};

/* Elements shown of a flexible array (page lists); the rest are counted. */
#define EMU_TRACE_MAX_FLEX 256

/* A fault-injection rule that fired on the command (emu/fault). */
struct emu_trace_fault {
	int rule;		/* the rule's id */
	const char *text;	/* its canonical text */
	bool delay;		/* a delay (else the failure) */
	uint32_t delay_ms;
};

/* One command as the firmware saw it, for emu_trace_format_cmd(). */
struct emu_trace_cmd {
	const char *dev;	/* "mlx5_0"; NULL: not shown */
	uint64_t seq;		/* per process, from 1; 0: not shown */
	long pid;		/* JSON only; 0: not shown */
	const void *in;
	size_t inlen;
	const void *out;	/* the final outbox; NULL: none */
	size_t outlen;
	int err;		/* no outbox: the call's errno, if known */
	bool timed;		/* duration_ns is meaningful */
	uint64_t duration_ns;
	bool injected;		/* failed by a fault-injection rule */
	unsigned int nfaults;	/* the rules that fired, when known */
	const struct emu_trace_fault *faults;
};

/*
 * Formats one command and its result as one line ending in '\n' (TEXT or
 * JSON; LINES is refused).  elide drops fields whose value is 0 (the PRM
 * default) in TEXT; JSON always carries every field of the mailbox.
 * Returns a malloc()ed NUL-terminated string (length in *len if len), or
 * NULL with errno ENOMEM/EINVAL.
 *
 * TEXT:
 *   mlx5_0 #7 CREATE_CQ uid=0x1 op_mod=0x0 in{cq_context.log_cq_size=0x8 ...}
 *     -> OK out{cqn=0x1} 3.2us                              (one line)
 *   ... -> BAD_PARAM(0x3) syndrome=0xee000902(CQ_...) out{} 2.1us
 *   with no outbox but an errno: ... -> errno EINVAL(22) 1.0us
 *   an injected failure says "injected" after the syndrome, and
 *   "injected(rule 3: fail opcode=...)" when the rule is known; an injected
 *   delay "delayed(rule 4: delay ms=50 ...)".
 * JSON: {"seq":7,"dev":"mlx5_0","pid":..,"opcode":"CREATE_CQ",
 *   "opcode_value":1024,"uid":1,"op_mod":0,"in_struct":"create_cq_in",
 *   "in":{..},"status":"OK","status_value":0,"syndrome":0,
 *   "syndrome_name":null,"injected":false,"out_struct":"create_cq_out",
 *   "out":{..},"duration_ns":3200}, with "faults":[{"rule":3,
 *   "action":"fail","text":".."}] when rules fired; with no outbox but
 *   an errno, "errno":22,"errno_name":"EINVAL" instead of status..out.
 * The header fields (opcode, uid, op_mod; status, syndrome) are not
 * repeated inside in/out.  Scalars are JSON numbers, 64-bit fields hex
 * strings ("0x7f..."), byte arrays hex strings, arrays JSON arrays.
 */
char *emu_trace_format_cmd(const struct emu_trace_cmd *cmd,
			   enum emu_trace_format fmt, bool elide, size_t *len);

/* An event a fault rule raised (emu/fault's event rules). */
struct emu_trace_event {
	const char *dev;	/* "mlx5_0"; NULL: not shown */
	uint64_t seq;		/* as commands'; 0: not shown */
	long pid;		/* JSON only; 0: not shown */
	const char *action;	/* "port_down", "qp_fatal", ... */
	uint32_t port;		/* 0: none */
	const char *target_key;	/* "qpn", "cqn", "srqn"; NULL: none */
	uint32_t target;
	const char *after;	/* the command it followed ("RTR2RTS_QP") */
	int rule;
	const char *text;	/* the rule's canonical text */
};

/*
 * One line ending in '\n':
 *   TEXT: mlx5_0 #12 EVENT qp_fatal qpn=0x105 after RTR2RTS_QP
 *         injected(rule 3: qp_fatal opcode=RTR2RTS_QP)      (one line)
 *   JSON: {"seq":12,"dev":"mlx5_0","pid":..,"event":"qp_fatal",
 *         "qpn":261,"after":"RTR2RTS_QP","rule":3,"text":".."}
 * malloc()ed, or NULL with errno ENOMEM/EINVAL.
 */
char *emu_trace_format_event(const struct emu_trace_event *ev,
			     enum emu_trace_format fmt, size_t *len);

/* ---- the data path (trace_dp.c) ---- */

struct emu_trace_sge {
	uint32_t byte_count, lkey;
	uint64_t addr;
};

/* A WQE a device executes (a send WQE, or a receive WQE a message took). */
struct emu_trace_wqe {
	const char *dev;	/* "mlx5_0"; NULL: not shown */
	uint64_t seq;		/* as commands'; 0: not shown */
	long pid;		/* JSON only; 0: not shown */
	bool rq;
	uint32_t qpn;
	uint16_t wqe_counter;
	uint8_t opcode;		/* MLX5_OPCODE_* (receive: the message's) */
	uint8_t opmod, ds, fm_ce_se;	/* send: the control segment */
	uint32_t imm;		/* send: ctrl.imm as in the WQE */
	bool has_raddr;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t srqn;		/* receive: its SRQ, 0: the QP's RQ */
	bool inl;		/* send: inline data, no sge */
	uint32_t byte_count;	/* the message (receive: the buffer) */
	unsigned int nsge;
	const struct emu_trace_sge *sge;
};

/* A CQE a device wrote. */
struct emu_trace_cqe {
	const char *dev;
	uint64_t seq;
	long pid;
	uint32_t cqn;
	uint32_t index;		/* the CQ's producer counter */
	const uint8_t *cqe64;	/* the 64-byte CQE as written */
};

/*
 * One line ending in '\n' each:
 *   TEXT: mlx5_0 #40 WQE sq qpn=0x100 wqe_counter=0x0 opcode=SEND(0xa)
 *         opmod=0x0 ds=0x2 fm_ce_se=0x8 imm=0x0 byte_count=0x40
 *         sge[0]{byte_count=0x40 lkey=0x1f00 addr=0x7f..}
 *         mlx5_0 #41 CQE cqn=0x1 index=0x0 opcode=REQ_ERR(0xd) qpn=0x100
 *         wqe_counter=0x0 wqe_opcode=SEND(0xa) syndrome=LOCAL_PROT(0x4)
 *         vendor_err_synd=0x52 srqn_uidx=0x0 se=0x1 owner=0x0
 *   JSON: {"seq":40,"dev":"mlx5_0","pid":..,"wqe":"sq","qpn":256,...,
 *         "opcode":"SEND","opcode_value":10,...,"sge":[{"byte_count":64,
 *         "lkey":7936,"addr":"0x7f.."}]}
 *         {"seq":41,...,"cqe":"REQ_ERR","cqn":1,...,"syndrome":"LOCAL_PROT",
 *         "syndrome_value":4,"vendor_err_synd":82,...}
 * malloc()ed, or NULL with errno ENOMEM/EINVAL.
 */
char *emu_trace_format_wqe(const struct emu_trace_wqe *w,
			   enum emu_trace_format fmt, size_t *len);
char *emu_trace_format_cqe(const struct emu_trace_cqe *c,
			   enum emu_trace_format fmt, size_t *len);
/*
 * The same records of a MANA device (Linux include/net/mana/gdma.h and
 * mana.h names): a WQE the engine takes -- the GDMA WQE header, the send
 * OOB's offload fields, the SGEs (address, mem_key, size) -- and a CQE it
 * writes -- the CQE header (cqe_type, client_type, vendor_err), the send
 * completion's tx_wqe_offset or the receive completion's fields and packet
 * lengths, and the info dword (wq_num, is_sq, owner_bits).
 *   TEXT: mana_0 #7 WQE sq wq_id=0x2 offset=0x40 num_sge=0x1
 *         inline_oob_size=0x8 ... sge[0]{size=0x3c mem_key=0x1 address=0x7f..}
 *         mana_0 #8 CQE cq_id=0x1 index=0x0 cqe_type=TX_OKAY(0x20) ...
 *   JSON: {"seq":7,"dev":"mana_0",..,"wqe":"sq","wq_id":2,..,
 *         "sge":[{"size":60,"mem_key":1,"address":"0x7f.."}]}
 */
struct emu_trace_mana_wqe {
	const char *dev;	/* "mana_0"; NULL: not shown */
	uint64_t seq;
	long pid;
	bool rq;
	uint32_t wq_id;
	uint32_t offset;	/* bytes into the ring */
	uint8_t num_sge, inline_oob_size, last_vbytes;
	bool sgl_direct;
	uint16_t client_data_unit;
	/* send: the client OOB's requests */
	uint8_t pkt_fmt;	/* 0 short, 1 long */
	bool is_outer_ipv4, is_outer_ipv6, comp_iphdr_csum, comp_tcp_csum,
	     comp_udp_csum, suppress_txcqe_gen, inject_vlan_pri_tag;
	uint16_t trans_off;	/* with comp_tcp_csum */
	uint16_t mss;		/* LSO: client_data_unit with comp_tcp_csum */
	uint16_t vp_offset;
	uint32_t vcq_num;
	uint16_t vlan_tci;	/* with inject_vlan_pri_tag */
	/* receive: the frame's length (after a stripped tag) */
	uint32_t pkt_len;
	uint32_t byte_count;	/* the SGEs' sizes */
	unsigned int nsge;
	const struct emu_trace_sge *sge;	/* lkey: mem_key, byte_count: size */
};

struct emu_trace_mana_cqe {
	const char *dev;
	uint64_t seq;
	long pid;
	uint32_t cq_id;
	uint64_t index;		/* CQEs the CQ took before this one */
	const uint8_t *cqe;	/* the 64 bytes as written */
};

char *emu_trace_format_mana_wqe(const struct emu_trace_mana_wqe *w,
				enum emu_trace_format fmt, size_t *len);
char *emu_trace_format_mana_cqe(const struct emu_trace_mana_cqe *c,
				enum emu_trace_format fmt, size_t *len);
/* "TX_OKAY" (prm/mana.def, the kernel's CQE_TX_OKAY); NULL if unnamed. */
const char *emu_trace_mana_cqe_name(uint8_t type);

/* "SEND" (prm/dp_opcodes.def), "REQ_ERR"; NULL if unnamed. */
const char *emu_trace_wqe_opcode_name(uint8_t opcode);
const char *emu_trace_cqe_opcode_name(uint8_t opcode);

/*
 * Decodes buf (len bytes) as struct sd.  opcode/op_mod select union members
 * as for a command (pass the mailbox's own; 0 when unknown).  skip_header
 * leaves out the mailbox header fields, as in a command line.  TEXT: one
 * line of name=0x..; JSON: one object; LINES: "  name = 0x..\n" a field.
 * No trailing newline in TEXT/JSON.  malloc()ed, or NULL with errno.
 */
char *emu_trace_format_struct(const struct prm_struct_desc *sd,
			      const void *buf, size_t len, uint16_t opcode,
			      uint16_t op_mod, enum emu_trace_format fmt,
			      bool elide, bool skip_header, size_t *outlen);

/* ---- MANA control messages (trace_mana.c) ---- */

/* One control message as a MANA device's firmware answered it. */
struct emu_trace_mana_msg {
	const char *dev;	/* "mana_0"; NULL: not shown */
	uint64_t seq;		/* 0: not shown */
	long pid;		/* JSON only; 0: not shown */
	uint32_t type;		/* gdma_req_hdr's msg_type */
	const void *req;
	size_t req_len;
	const void *resp;	/* the response, its status in its header */
	size_t resp_len;
};

/* One line ending in '\n' (TEXT or JSON): the message's name, its request
 * and, when it succeeded, its response fields; malloc()ed, or NULL with
 * errno. */
char *emu_trace_format_mana_msg(const struct emu_trace_mana_msg *m,
				enum emu_trace_format fmt, bool elide,
				size_t *len);
/* "BAD_HANDLE" for a status of prm/mana_status.def, else NULL. */
const char *emu_trace_mana_status_name(uint32_t status);

/* ---- names and layouts ---- */

/* The layouts of an opcode's inbox and outbox (never NULL: mbox_in/out
 * for an opcode prm/ does not describe). */
const struct prm_struct_desc *emu_trace_in_struct(uint16_t opcode);
const struct prm_struct_desc *emu_trace_out_struct(uint16_t opcode);
/* True when opcode has layouts of its own (not the mbox fallback). */
bool emu_trace_opcode_described(uint16_t opcode);

/* "CREATE_CQ", or NULL for an opcode the PRM does not name. */
const char *emu_trace_opcode_name(uint16_t opcode);
/* "CREATE_CQ"/"create_cq"/"0x400"/"1024" -> 0x400; -1 if none. */
int emu_trace_opcode_parse(const char *name);

/* "BAD_PARAM" for 0x3 (MLX5_CMD_STAT_<name>[_ERR]); NULL if unknown. */
const char *emu_trace_status_name(uint8_t status);
/* The syndrome table's name ("CQ_IN_USE") of a value; NULL if none. */
const char *emu_trace_syndrome_name(uint32_t syndrome);
/* "CQ", "FLOW_METER_ASO", ... for general_obj_in_cmd_hdr.obj_type. */
const char *emu_trace_obj_type_name(uint16_t obj_type);

#endif /* MLX5EMU_EMU_TRACE_TRACE_FMT_H */
