/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_int.h -- inside the engine: its state, the packet the
 * roles exchange, and every cross-file prototype, grouped by file.
 *
 * Everything here is changed only by the holder of the engine's run lock
 * (eng_core.c), unless a field says otherwise.  Lock order: a CQ's lock
 * (a resize), then the run lock, then a QP's lock (emu_fw_qp_get_attr,
 * emu_fw_qp_set_state).  The firmware calls the engine (qp_changed, sync)
 * with no lock held and run_locked with only the CQ's; the engine never
 * takes a CQ lock, so no path takes them the other way round.
 */
#ifndef MLX5EMU_EMU_ENGINE_ENG_INT_H
#define MLX5EMU_EMU_ENGINE_ENG_INT_H

/* First: liburcu with the bulletproof flavour's mapping. */
#include "emu/firmware/fw_objs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <urcu/list.h>

#include "emu/engine/eng.h"
#include "emu/firmware/fw.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

#define ENG_MAX_DEVS 16
#define ENG_MAX_SGE 64		/* data segments one WQE may carry */
#define ENG_WQE_MAX 1024	/* bytes: max_wqe_sz_sq */
#define ENG_PASS_WQES_PER_QP 16	/* fairness: WQEs per QP per pass */
#define ENG_PASS_WQES 1024	/* bound of one pass */

/* ---- the packet: what the requester emits and responders consume ---- */

/* IBA base transport opcodes (IBA 9.2, table 36): transport | operation. */
enum {
	ENG_TR_RC = 0x00, ENG_TR_UC = 0x20, ENG_TR_UD = 0x60, ENG_TR_XRC = 0xa0,
	ENG_OP_SEND_ONLY = 0x04, ENG_OP_SEND_ONLY_IMM = 0x05,
	ENG_OP_WRITE_ONLY = 0x0a, ENG_OP_WRITE_ONLY_IMM = 0x0b,
	ENG_OP_READ_REQ = 0x0c, ENG_OP_READ_RESP_ONLY = 0x10,
	ENG_OP_ACK = 0x11, ENG_OP_ATOMIC_ACK = 0x12,
	ENG_OP_CMP_SWAP = 0x13, ENG_OP_FETCH_ADD = 0x14,
	ENG_OP_SEND_ONLY_INV = 0x17,
};

/* AETH syndrome (IBA 9.7.5.1.2): ACK, RNR NAK (timer in the low 5 bits),
 * NAK codes. */
enum {
	ENG_AETH_ACK = 0x00,
	ENG_AETH_RNR = 0x20,
	ENG_AETH_NAK_SEQ = 0x60,
	ENG_AETH_NAK_INV_REQ = 0x61,
	ENG_AETH_NAK_REM_ACCESS = 0x62,
	ENG_AETH_NAK_REM_OP = 0x63,
};

struct eng_frag {
	uint8_t *addr;		/* application memory (emu_mem access only) */
	uint32_t len;
};

/* Where a packet goes and comes from (the L2/L3 of RoCE). */
struct eng_addr {
	uint8_t port;		/* 1-based */
	uint8_t sgid_index;
	uint8_t sgid[16], dgid[16];
	uint8_t smac[6], dmac[6];
	uint8_t hop_limit, tclass;
	uint32_t flow_label;
	uint16_t udp_sport;
	bool loopback;		/* force loopback: this device */
	bool roce_v2;		/* the source GID's type */
	uint8_t dport;		/* the destination port, once routed */
};

enum eng_payload {
	ENG_PAY_NONE,
	ENG_PAY_FRAGS,		/* gathered at delivery time (in process) */
	ENG_PAY_BUF,		/* contiguous (what a wire delivers) */
};

struct eng_pkt {
	/* BTH */
	uint8_t opcode;		/* transport | operation */
	bool se, ackreq;
	uint32_t dqpn, sqpn;
	uint32_t psn;
	uint32_t npsn;		/* PSNs the message spans (path-MTU packets) */
	/* RETH, AETH, DETH, ImmDt, IETH, AtomicETH, AtomicAckETH, XRCETH */
	uint64_t va;
	uint32_t rkey, dma_len;
	uint8_t aeth_syndrome;
	uint32_t msn;
	uint32_t qkey;
	bool has_imm;
	uint32_t imm;		/* as on the wire (big-endian bytes) */
	uint32_t inv_rkey;
	uint64_t swap_add, compare, orig;
	uint32_t xrc_srqn;
	struct eng_addr addr;
	/* the local fault a delivery found in the sender's memory */
	bool src_fault;
	/* payload */
	enum eng_payload pay;
	uint32_t len;
	const uint8_t *buf;
	uint8_t inl[8];		/* small contiguous payload (atomic ack) */
	unsigned int nfrags;
	/* last: a packet is cleared up to here (ENG_PKT_CLEAR) */
	struct eng_frag frags[ENG_MAX_SGE];
};

#define ENG_PKT_CLEAR(p) memset((p), 0, offsetof(struct eng_pkt, frags))

/* ---- a WQE, read once into engine memory, and its parse ---- */

struct eng_wqe {
	uint8_t raw[ENG_WQE_MAX];
	uint16_t idx;		/* WQEBB counter of its first block */
	uint8_t nbb;		/* WQE basic blocks it spans */
	uint8_t ds;
	uint8_t opcode, opmod, fm_ce_se;
	uint32_t imm;		/* raw bytes of ctrl.imm */
	/* segments, decoded */
	uint32_t xrc_srqn;
	uint64_t raddr;
	uint32_t rkey;
	uint64_t swap_add, compare;
	const struct mlx5_wqe_av *av;	/* UD: inside raw */
	unsigned int nsge;
	struct { uint32_t len, lkey; uint64_t addr; } sge[ENG_MAX_SGE];
	bool inl;
	const uint8_t *inl_data;	/* inside raw */
	uint32_t len;		/* message length */
};

struct eng_qp;

/* ---- eng_syndrome.c: error CQE syndromes ---- */
#define ENG_SYND(id, synd, vendor, text, src) ENG_SYND_##id,
enum eng_synd_id {
#include "prm/cqe_syndromes.def"
	ENG_SYND_NUM
};
#undef ENG_SYND
struct eng_synd {
	uint8_t syndrome, vendor;
	const char *name;
};
const struct eng_synd *eng_synd(enum eng_synd_id id);
void eng_count(struct eng_qp *qp, enum emu_fw_q_cnt which);

/* ---- the engine's state of a queue ---- */

enum eng_req_state {
	ENG_REQ_IDLE,		/* nothing read */
	ENG_REQ_RNR_WAIT,	/* the head WQE waits for an RNR timer */
	ENG_REQ_ACK_WAIT,	/* the head WQE waits for a lost response */
	ENG_REQ_ERROR,		/* QP in error: flush what is posted */
};

struct eng_dev;

struct eng_qp {
	struct cds_list_head node;	/* in eng->qps */
	struct eng_dev *dev;
	struct emu_fw_qp *fq;		/* a reference while attached */
	unsigned int gen;		/* of attr */
	struct emu_fw_qp_attr attr;
	unsigned int state;		/* last state seen */
	/* requester */
	enum eng_req_state req;
	uint16_t sq_ci;			/* WQEBB counter: next to read */
	struct eng_wqe cur;		/* the head WQE while it waits */
	bool have_cur;
	unsigned int rnr_left, retry_left;
	uint64_t deadline_ns;
	/* responder */
	uint32_t msn;
	bool rq_flushed_all;
	/* where its packets go, for attributes of generation route_gen */
	unsigned int route_gen;
	struct eng_addr route;
	struct eng_dev *route_dev;
	/* fairness: a UAR write named this QP */
	bool hinted;
	/* affiliated events raised once: COMM_EST (first packet in RTR),
	 * SRQ_LAST_WQE (entering ERR on an SRQ), SQ_DRAINED (SQD, idle) */
	bool comm_est, last_wqe, drained;
};

struct eng_dev {
	struct emu_fw *fw;
	struct emu_fw_engine_ops ops;
	int index;
	struct eng_dev *forked_next;	/* a parent's, in a forked child */
	/* the interrupt handler of its EQs (emu_eng_set_irq) */
	emu_eng_irq_fn irq;
	void *irq_arg;
	/* a fatal error stopped it: nothing executes or completes */
	bool fatal;
};

struct eng {
	pthread_mutex_t run;		/* the run lock */
	atomic_int pending;		/* a pass was asked for while held */
	atomic_int parked;		/* the thread sleeps on wake_seq */
	atomic_uint wake_seq;		/* futex word */
	atomic_bool stop;
	atomic_bool finished;		/* the process exits: no more passes */
	pthread_mutex_t cfg;		/* devices, mode, thread start/stop */
	pthread_t thread;
	enum emu_eng_mode mode;		/* under cfg */
	bool threaded;			/* mode == EMU_ENG_THREADED */
	struct eng_dev *devs[ENG_MAX_DEVS];	/* under run and cfg */
	struct cds_list_head qps;	/* attached eng_qp */
	struct cds_list_head cqs;	/* watched eng_cq (eng_cq.c) */
	uint64_t now_ns;		/* at the start of the pass */
	uint64_t next_timer_ns;		/* earliest deadline (0: none) */
	unsigned long passes, wqes;	/* statistics */
};

extern struct eng eng_g;

/* ---- eng_core.c ---- */
/* The device model's clock (virtual in deterministic mode). */
uint64_t eng_clock_ns(void);
void eng_timer_arm(struct eng *e, uint64_t deadline);
/* The engine's device of a firmware (run lock), or NULL. */
struct eng_dev *eng_dev_of(const struct emu_fw *fw);

/* ---- eng_qp.c: attaching queues ---- */
void eng_qp_changed(void *arg, struct emu_fw_qp *fq);
void eng_qp_detach_all(struct eng *e, struct eng_dev *dev);
/* The QP state of a fw QP as the engine must act on it. */
bool eng_qp_refresh(struct eng_qp *qp);
/* Move the QP to ERR (flushing happens as the requester and responder
 * next look at it); a QP on an SRQ raises SRQ_LAST_WQE. */
void eng_qp_to_err(struct eng_qp *qp);
/* The QP just entered ERR, by the engine or a command: SRQ_LAST_WQE. */
void eng_qp_entered_err(struct eng_qp *qp);
/* UD/UC send errors: to SQER (the send queue flushes, receives go on). */
void eng_qp_to_sqe(struct eng_qp *qp);
struct eng_qp *eng_qp_of(struct emu_fw_qp *fq);

/* ---- eng_uar.c: doorbell and BlueFlame hints ---- */
unsigned int eng_uar_scan(struct eng *e);
/* What the EQ doorbell (arm, update) says now: eq->hw.ci and armed. */
void eng_uar_eq_doorbell(struct emu_fw_eq *eq);
/* A CQ's UAR page: a new CQ doorbell there names a CQ to look at. */
void eng_uar_scan_cq_db(struct eng_dev *dev, const uint8_t *page);

/* ---- eng_cq.c: arming, completion events, moderation, CQ errors ---- */
/* The engine looks at @cq's arm word and timers from now on. */
void eng_cq_watch(struct eng_dev *dev, struct emu_fw_cq *cq);
/* The firmware's cq_created (takes the run lock). */
void eng_cq_created(void *arg, struct emu_fw_cq *cq);
void eng_cq_unwatch_dev(struct eng *e, struct eng_dev *dev);
/* Every watched CQ: new arm requests, due moderated events. */
void eng_cq_scan(struct eng *e);
/* A CQE was written (@sol: solicited or an error): events as armed. */
void eng_cq_cqe_written(struct emu_fw_cq *cq, bool sol);
/* A CQ doorbell named @cq with arm word @word (host order). */
void eng_cq_arm_hint(struct eng_dev *dev, struct emu_fw_cq *cq, uint32_t word);
/* The CQ could not take a CQE: its error state and CQ_ERROR, once. */
void eng_cq_overrun(struct emu_fw_cq *cq);

/* ---- eng_event.c: EQEs and the events the device raises ---- */
/* Completion event of @cq into its EQ. */
void eng_event_comp(struct eng_dev *dev, struct emu_fw_cq *cq);
/* Affiliated events: a QP's or an SRQ's (qp_events: @number is the QPN
 * or SRQN), a CQ's error (cq_error with @syndrome). */
void eng_event_queue(struct eng_dev *dev, uint8_t type, uint32_t number);
void eng_event_cq_error(struct eng_dev *dev, const struct emu_fw_cq *cq,
			uint8_t syndrome);
/* PORT_CHANGE: DOWN or ACTIVE. */
void eng_event_port(struct eng_dev *dev, unsigned int port, bool up);

/* ---- eng_wqe.c: reading and parsing a send WQE ---- */
enum eng_wqe_res {
	ENG_WQE_OK,
	ENG_WQE_FAULT,		/* the ring could not be read */
	ENG_WQE_BAD,		/* malformed: local QP operation error */
};
enum eng_wqe_res eng_wqe_read(struct eng_qp *qp, uint16_t idx,
			      struct eng_wqe *w);

/* ---- eng_opcode.c: what each WQE opcode is ---- */
enum {
	ENG_ST_RC = 1 << 0, ENG_ST_UC = 1 << 1, ENG_ST_UD = 1 << 2,
	ENG_ST_XRC = 1 << 3,
};
enum {				/* segments after the control segment */
	ENG_SEG_RADDR = 1 << 0,
	ENG_SEG_ATOMIC = 1 << 1,
	ENG_SEG_MASKED = 1 << 2,	/* two atomic segments */
	ENG_SEG_DATA = 1 << 3,		/* data or inline segments */
	ENG_SEG_IMM = 1 << 4,		/* ctrl.imm is immediate data */
	ENG_SEG_INV = 1 << 5,		/* ctrl.imm is the rkey to invalidate */
};
struct eng_opcode_info {
	const char *name;
	unsigned int qp_types;		/* ENG_ST_* it is valid on */
	unsigned int segs;		/* ENG_SEG_* */
	uint8_t wire_op;		/* IBA operation (ENG_OP_*) */
	unsigned int resp_access;	/* EMU_FW_MKEY_* the responder needs */
	uint8_t req_cqe;		/* requester CQE opcode */
	int8_t resp_cqe;		/* responder CQE opcode, -1: none */
	bool consumes_rwqe;		/* takes a receive WQE */
	bool reads;			/* response carries data to scatter */
};
const struct eng_opcode_info *eng_opcode(uint8_t mlx5_opcode);
const struct eng_opcode_info *eng_opcode_of_wire(uint8_t wire_op);
unsigned int eng_qp_st_bit(const struct emu_fw_qp *fq);
/* The device advertises the opcode (masked atomics, SEND_INVAL). */
bool eng_opcode_advertised(const struct emu_fw *fw, uint8_t mlx5_opcode);

/* ---- eng_mr.c: memory through mkeys ---- */
enum eng_mr_res {
	ENG_MR_OK,
	ENG_MR_PROT,		/* key, PD, access or bounds */
	ENG_MR_LEN,		/* the scatter list is too short */
	ENG_MR_FAULT,		/* memory gone after registration */
};
/* Resolve a WQE's gather list (local read) into frags. */
enum eng_mr_res eng_mr_gather(struct eng_qp *qp, const struct eng_wqe *w,
			      struct eng_pkt *pkt);
/* Copy a payload into a scatter list of (lkey, addr, len) with local
 * write rights on @pd; skip @skip bytes of the list first (UD GRH). */
struct eng_sge {
	uint32_t len, lkey;
	uint64_t addr;
};
enum eng_mr_res eng_mr_scatter(struct emu_fw *fw, const struct emu_fw_pd *pd,
			       const struct eng_sge *sge, unsigned int nsge,
			       uint32_t skip, const struct eng_pkt *pkt,
			       bool *src_fault);
/* Copy a payload into one resolved range. */
int eng_mr_copy_payload(uint8_t *dst, const struct eng_pkt *pkt,
			bool *src_fault);

/* ---- eng_recv.c: receive WQEs of RQs and SRQs ---- */
struct eng_rwqe {
	uint16_t idx;			/* wqe_counter for the CQE */
	unsigned int nsge;
	struct eng_sge sge[ENG_MAX_SGE];
	struct emu_fw_srq *srq;		/* NULL: the QP's RQ */
};
enum eng_recv_res { ENG_RECV_OK, ENG_RECV_NONE, ENG_RECV_FAULT };
enum eng_recv_res eng_recv_take(struct eng_qp *qp, struct emu_fw_srq *srq,
				struct eng_rwqe *r);
/* Give back a WQE taken for a message that did not land. */
void eng_recv_untake(struct eng_qp *qp, const struct eng_rwqe *r);
/* Flush every receive WQE the RQ holds (QP in ERR); how many. */
unsigned int eng_recv_flush(struct eng_qp *qp);

/* ---- eng_cqe.c: writing completions ---- */
struct eng_cqe {
	uint8_t opcode;			/* MLX5_CQE_* */
	uint8_t syndrome, vendor;	/* error CQEs */
	uint8_t wqe_opcode;		/* requester: sop_drop_qpn[31:24] */
	uint32_t qpn;
	uint16_t wqe_counter;
	uint32_t byte_cnt;
	uint32_t imm_inval_pkey;	/* raw 4 bytes as they go in the CQE */
	uint32_t flags_rqpn;
	uint32_t srqn_uidx;
	uint8_t l4_l3;			/* l4_hdr_type_etc */
	bool se;			/* the message was solicited */
};
/* 0, or -ENOSPC (overrun: no CQE written, CQ in error), -EFAULT. */
int eng_cqe_write(struct emu_fw_cq *cq, const struct eng_cqe *c);
void eng_cqe_error(struct emu_fw_cq *cq, uint32_t qpn, uint32_t uidx,
		   uint16_t wqe_counter, uint8_t wqe_opcode, bool resp,
		   uint8_t syndrome, uint8_t vendor);

/* ---- eng_req.c: the requester ---- */
/* Execute what the SQ holds (at most @budget WQEs); WQEs executed. */
unsigned int eng_req_run(struct eng_qp *qp, unsigned int budget);

/* ---- eng_resp.c: the responder ---- */
/* Consume a request packet for @qp; fill the response in @ack (for
 * reliable transports).  Returns false when nothing answers (dropped). */
bool eng_resp_rcv(struct eng_qp *qp, struct eng_pkt *pkt,
		  struct eng_pkt *ack);

/* ---- eng_comp.c: the completer ---- */
enum eng_comp_res {
	ENG_COMP_DONE,		/* the WQE completed (or failed): next */
	ENG_COMP_RNR,		/* wait for the RNR timer, then resend */
	ENG_COMP_RETRY,		/* wait for the transport timer, resend */
};
enum eng_comp_res eng_comp_rcv(struct eng_qp *qp, struct eng_wqe *w,
			       struct eng_pkt *req, struct eng_pkt *ack,
			       bool answered);
/* Complete a WQE with an error (and move the QP to ERR). */
void eng_comp_error(struct eng_qp *qp, const struct eng_wqe *w,
		    enum eng_synd_id id);
void eng_comp_success(struct eng_qp *qp, const struct eng_wqe *w,
		      uint32_t byte_cnt);
/* Flush the posted send WQEs of a QP in ERR; how many. */
unsigned int eng_comp_flush_sq(struct eng_qp *qp);

/* ---- eng_fabric.c: where packets go ---- */
/* Deliver to the QP the packet addresses; false if nobody answers. */
bool eng_fabric_send(struct eng_qp *src, struct eng_pkt *pkt,
		     struct eng_pkt *ack);
/* Fill the source address of @qp's primary path (or of a UD AV). */
void eng_fabric_src(struct eng_qp *qp, struct eng_addr *a);
/* The source GID of a->port/a->sgid_index (UD address vectors). */
void eng_fabric_src_gid(struct eng_qp *qp, struct eng_addr *a);

/* ---- eng_grh.c: the 40 bytes before a UD payload ---- */
void eng_grh_build(const struct eng_pkt *pkt, uint8_t grh[40],
		   uint8_t *l3_type);

#endif /* MLX5EMU_EMU_ENGINE_ENG_INT_H */
