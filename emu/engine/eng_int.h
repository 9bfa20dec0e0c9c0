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

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <urcu/list.h>

#include "emu/engine/eng.h"
#include "emu/eth/eth.h"
#include "emu/firmware/fw.h"
#include "emu/wire/wire.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

#define ENG_MAX_DEVS 16
#define ENG_MAX_SGE 64		/* data segments one WQE may carry */
#define ENG_WQE_MAX 1024	/* bytes: max_wqe_sz_sq */
#define ENG_PASS_WQES_PER_QP 16	/* fairness: WQEs per QP per pass */
#define ENG_PASS_WQES 1024	/* bound of one pass */
/* A wire with frames in the last millisecond is read every pass; a quiet
 * one every 50 us, or when a poll saw a frame (a system call per pass
 * would cost more than the pass itself). */
#define ENG_WIRE_WARM_NS 1000000ull
#define ENG_WIRE_COLD_NS 50000ull
/* A posting application waits for nothing the sockets hold: its passes
 * read them at most this often, its ACKs then come in runs. */
#define ENG_WIRE_POST_NS 20000ull
#define ENG_WIN_MAX 1024	/* outstanding RC WQEs per QP */
/* Requests of a window this deep may wait in a port's queue for more, up
 * to ENG_TX_BATCH datagrams and ENG_TX_HOLD_NS (eng_wire_hold). */
#define ENG_TX_DEEP 8
#define ENG_TX_BATCH 32
#define ENG_TX_HOLD_NS 20000ull

/* ---- the packet: what the requester emits and responders consume ---- */

/* AETH syndrome (IBA 9.7.5.1.2): ACK (credits in the low 5 bits), RNR NAK
 * (timer in the low 5 bits), NAK codes. */
enum {
	ENG_AETH_ACK = 0x00,
	ENG_AETH_RNR = 0x20,
	ENG_AETH_NAK_SEQ = 0x60,
	ENG_AETH_NAK_INV_REQ = 0x61,
	ENG_AETH_NAK_REM_ACCESS = 0x62,
	ENG_AETH_NAK_REM_OP = 0x63,
};
/* ACKs carry "no credits" (IBA 9.7.7.2.5: 0x1f, end-to-end flow control
 * not used), as rxe and ConnectX RC responders send them. */
#define ENG_AETH_ACK_CREDITS 0x1f

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

/*
 * A packet as the roles see it.  In process a message travels as one
 * packet standing for all its PSNs (opcode ONLY, npsn PSNs, the payload as
 * fragments of application memory: one copy end to end); the wire cuts it
 * into path-MTU packets (FIRST/MIDDLE/LAST) and delivers each as a packet
 * of one PSN with a contiguous payload.  Responses are the same: a READ's
 * data is one RESPONSE_ONLY in process.
 */
struct eng_pkt {
	/* BTH */
	uint8_t opcode;		/* transport | operation (EMU_WIRE_*) */
	bool se, ackreq;
	uint32_t dqpn, sqpn;
	uint32_t psn;
	uint32_t npsn;		/* PSNs this packet stands for */
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
	/* DC: the DCT's access key, and the connection (generation, first
	 * PSN) of the DCI the packet belongs to (on the wire: the DCETH) */
	bool dc;
	uint32_t dc_gen, dc_psn0;
	uint64_t dc_key;
	/* in process only: the responder found the sender's memory gone */
	bool src_fault;
	/* payload */
	enum eng_payload pay;
	uint32_t len;
	const uint8_t *buf;
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
	struct emu_fw_umr umr;		/* UMR: what it asks of the mkey */
	unsigned int nsge;
	struct { uint32_t len, lkey; uint64_t addr; } sge[ENG_MAX_SGE];
	bool inl;
	const uint8_t *inl_data;	/* inside raw */
	uint32_t len;		/* message length */
};

/* A scatter list entry, and a receive WQE read once. */
struct eng_sge {
	uint32_t len, lkey;
	uint64_t addr;
};

struct eng_rwqe {
	uint16_t idx;			/* wqe_counter for the CQE */
	unsigned int nsge;
	struct eng_sge sge[ENG_MAX_SGE];
	struct emu_fw_srq *srq;		/* NULL: the QP's RQ */
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

/* A send WQE between its first packet and its completion (the
 * requester's window, IBA 9.7.4.1: outstanding requests complete in
 * order).  The WQE stays in the ring until its completion is reported,
 * so a resend reads it again from there. */
struct eng_infl {
	uint16_t idx;		/* WQEBB counter of its first block */
	uint8_t nbb, opcode, fm_ce_se;
	bool reads;		/* READ or atomic: done by its response */
	uint32_t psn, npsn;	/* the PSNs it spans */
	uint32_t len;		/* message length */
	uint32_t sent;		/* PSNs sent (rewound by a retry) */
	uint32_t resp;		/* READ: response PSNs received */
};

/* A READ or atomic the responder executed, kept to answer a duplicate
 * (IBA 9.7.5.2.1: responder resources, 2^log_rra_max of them). */
struct eng_rd_res {
	bool valid, atomic;
	uint32_t psn, npsn;
	uint64_t va;
	uint32_t rkey, len;
	uint64_t orig;		/* atomic: the value returned */
};

#define ENG_RD_RES_MAX 32

/* The responder's place in the current message (IBA 9.7.5.1). */
struct eng_resp_msg {
	bool in_msg;		/* a FIRST came, its LAST not yet */
	bool drop;		/* UC: drop until a FIRST or ONLY */
	uint8_t op;		/* EMU_WIRE_F_SEND or EMU_WIRE_F_WRITE */
	uint32_t offset;	/* bytes of the message placed */
	uint8_t *target;	/* WRITE: the resolved remote range */
	uint32_t dma_len;
	bool have_rwqe;
	struct eng_rwqe rwqe;
	struct emu_fw_srq *srq;	/* XRC: the SRQ of the FIRST */
};

/* What each QP counted on the wire and its transport (mlx5emu's per-QP
 * counters; the q counters keep the ConnectX names). */
struct eng_qp_stats {
	uint64_t tx_pkts, rx_pkts, retransmits, naks_sent, naks_rcvd;
	uint64_t duplicates, dropped, timeouts, rnr_naks_rcvd;
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
	uint16_t sq_ci;			/* WQEBB counter: next to read */
	uint16_t sq_pi;			/* the doorbell record as last read */
	struct eng_infl *win;		/* ring of win_cap (a power of 2) */
	unsigned int win_cap, whead, wtail, wsend;
	uint32_t una;			/* oldest PSN not acknowledged */
	unsigned int rd_out;		/* READs and atomics in the window */
	unsigned int rnr_left, retry_left;
	bool retrying;			/* rewound, no progress since */
	uint64_t ack_deadline;		/* transport timer (0: off) */
	uint64_t rnr_deadline;		/* RNR wait (0: none) */
	struct eng_wqe cur;		/* the WQE being sent */
	int cur_at;			/* its idx, -1: none */
	struct eng_pkt tx;		/* its packet, gathered */
	struct eng_wqe rd;		/* the READ/atomic being answered */
	int rd_at;
	/* responder */
	uint32_t msn;
	struct eng_resp_msg rmsg;
	bool nak_sent;			/* a sequence NAK went; until epsn */
	bool ack_pending;
	uint32_t ack_psn;
	struct eng_rd_res res[ENG_RD_RES_MAX];
	unsigned int res_next;
	/* where its packets go, for attributes of generation route_gen */
	unsigned int route_gen, route_epoch;
	struct eng_addr route;
	struct eng_dev *route_dev;	/* in process, or NULL: the wire */
	/* fairness: a UAR write named this QP */
	bool hinted;
	struct eng_qp_stats st;
	/* affiliated events raised once: COMM_EST (first packet in RTR),
	 * SRQ_LAST_WQE (entering ERR on an SRQ), SQ_DRAINED (SQD, idle) */
	bool comm_est, last_wqe, drained;
	/* the data path's hooks (eng_dp.c), once they looked at it */
	struct eng_dp_qp *dp;
	/* DCI: the DCT its window talks to (eng_dc.c) */
	struct {
		bool valid;
		uint32_t dctn, gen;
		uint32_t psn0;	/* the connection's first PSN */
		uint8_t dgid[16];
	} dci;
	/* a DCT's connection (eng_dc.c): its own QP object, the DCT, and
	 * the initiator (GID, QPN) it answers */
	bool dc_conn;
	uint32_t dc_gen;
	struct emu_fw_qp *dc_dct;
	uint8_t dc_peer_gid[16];
	uint32_t dc_peer_qpn;
};

struct eng_dev {
	struct emu_fw *fw;
	struct emu_fw_engine_ops ops;
	int index;
	struct emu_wire_port *wire[EMU_FW_MAX_PORTS];	/* owned; NULL: none */
	struct eng_dev *forked_next;	/* a parent's, in a forked child */
	/* the interrupt handler of its EQs (emu_eng_set_irq) */
	emu_eng_irq_fn irq;
	void *irq_arg;
	/* a fatal error stopped it: nothing executes or completes */
	bool fatal;
};

/* A GID of a port of a device of this process (eng_fabric.c's cache). */
struct eng_route {
	uint8_t gid[16];
	struct eng_dev *dev;
	uint8_t port;
};

#define ENG_ROUTES 256

struct eng {
	pthread_mutex_t run;		/* the run lock */
	atomic_int pending;		/* a pass was asked for while held */
	atomic_int parked;		/* the thread sleeps on wake_seq */
	atomic_int passing;		/* the run lock's holder runs passes */
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
	struct cds_list_head sqs;	/* attached Ethernet eng_sq */
	uint64_t now_ns;		/* at the start of the pass */
	uint64_t next_timer_ns;		/* earliest deadline (0: none) */
	unsigned long passes, wqes;	/* statistics */
	/* eng_fabric.c: the GIDs of this process, for generation route_sum */
	struct eng_route routes[ENG_ROUTES];
	unsigned int nroutes, route_sum;
	unsigned int route_epoch;	/* devices or GIDs changed */
	/* eng_wire.c: QPs with an ACK to send at the end of a batch */
	struct eng_qp *acks[64];
	unsigned int nacks;
	int wake_fd;			/* eventfd: wakes a park in poll */
	_Atomic unsigned int nwire;	/* wire ports attached (read unlocked) */
	/* The same ports, packed: every pass walks them (run and cfg). */
	struct eng_wport {
		struct eng_dev *dev;
		uint8_t port;		/* 1-based */
		struct emu_wire_port *wp;
		/* eng_wire.c: datagrams queued since the port's flush that
		 * may wait for more (a deep window's requests), the queue's
		 * length when a pass last held it, and whether the last
		 * flush went through the kernel */
		unsigned int waiting, held;
		bool by_sockets;
	} wports[ENG_MAX_DEVS * EMU_FW_MAX_PORTS];
	/* a frame crossed the wire (eng_wire.c; run lock): the process
	 * talks to another, and a virtual clock keeps pace with the wall
	 * clock from then on, which stood at wall_ns at its last move */
	bool wire_traffic;
	uint64_t wall_ns;
	/* eng_wire.c: when passes read the sockets (wall clock, run lock):
	 * every pass until wire_warm_ns (frames came or left lately), but
	 * passes for a doorbell (posting) once ENG_WIRE_POST_NS apart; else
	 * once wire_read_ns is ENG_WIRE_COLD_NS old or a park's poll saw a
	 * port readable (wire_ready, any thread) */
	uint64_t wire_warm_ns, wire_read_ns;
	atomic_bool wire_ready;
	bool posting;
	/* eng_dp.c: EMU_ENG_DP_* enabled (any thread), their value at the
	 * start of the pass (| ENG_DP_BUSY while QPs hold CQEs or a lost
	 * doorbell), and how many QPs do */
	_Atomic unsigned int dp;
	unsigned int dp_now;
	unsigned int dp_busy;
};

extern struct eng eng_g;

/* ---- eng_core.c ---- */
/* The device model's clock (virtual in deterministic mode). */
uint64_t eng_clock_ns(void);
/* CLOCK_MONOTONIC, whatever the mode. */
uint64_t eng_wall_ns(void);
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
/* A CQ's UAR page: a new CQ doorbell there names a CQ to look at (one
 * the device lost is taken off the register). */
void eng_uar_scan_cq_db(struct eng_dev *dev, struct emu_fw_uar *uar);

/* ---- eng_cq.c: arming, completion events, moderation, CQ errors ---- */
/* The engine looks at @cq's arm word and timers from now on. */
void eng_cq_watch(struct eng_dev *dev, struct emu_fw_cq *cq);
/* The firmware's cq_created (takes the run lock). */
void eng_cq_created(void *arg, struct emu_fw_cq *cq);
void eng_cq_unwatch_dev(struct eng *e, struct eng_dev *dev);
/* Every watched CQ: new arm requests, due moderated events. */
void eng_cq_scan(struct eng *e);
/*
 * A CQE is about to become visible: take the arm request the record holds
 * now.  A ConnectX decides on the event before software can see the CQE,
 * so an arm written after the application polled this CQE is for the next
 * one; taken later, it would look stale and be lost.
 */
void eng_cq_cqe_coming(struct emu_fw_cq *cq);
/* A CQE was written (@sol: solicited or an error): events as armed. */
void eng_cq_cqe_written(struct emu_fw_cq *cq, bool sol);
/* A CQ doorbell named @cq with arm word @word (host order).  True when
 * the doorbell is lost (a fault rule): its register is to be cleared, so
 * that the same word written again is seen as the new arm it is. */
bool eng_cq_arm_hint(struct eng_dev *dev, struct emu_fw_cq *cq, uint32_t word);
/* The CQ could not take a CQE: its error state and CQ_ERROR, once. */
void eng_cq_overrun(struct emu_fw_cq *cq);

/* ---- eng_event.c: EQEs and the events the device raises ---- */
/* Completion event of @cq into its EQ. */
void eng_event_comp(struct eng_dev *dev, struct emu_fw_cq *cq);
/* Affiliated events: a QP's or an SRQ's (qp_events: @number is the QPN
 * or SRQN), a CQ's error (cq_error with @syndrome). */
void eng_event_queue(struct eng_dev *dev, uint8_t type, uint32_t number);
/* DCT_DRAINED, DCT_KEY_VIOLATION of DCT @dctn. */
void eng_event_dct(struct eng_dev *dev, uint8_t type, uint32_t dctn);
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
/* Copy WQE idx of a send ring (control segment decoded, nothing else
 * checked beyond the DS count): what every send queue reads first. */
enum eng_wqe_res eng_wqe_fetch(const struct emu_fw_ring *sq, uint16_t idx,
			       struct eng_wqe *w);
/* The data part of w->raw[off, end): one inline segment, or data
 * segments (w->sge, w->len). */
enum eng_wqe_res eng_wqe_data(struct eng_wqe *w, unsigned int off,
			      unsigned int end);

/* ---- eng_opcode.c: what each WQE opcode is ---- */
enum {
	ENG_ST_RC = 1 << 0, ENG_ST_UC = 1 << 1, ENG_ST_UD = 1 << 2,
	ENG_ST_XRC = 1 << 3, ENG_ST_DCI = 1 << 4,
};
enum {				/* segments after the control segment */
	ENG_SEG_RADDR = 1 << 0,
	ENG_SEG_ATOMIC = 1 << 1,
	ENG_SEG_MASKED = 1 << 2,	/* two atomic segments */
	ENG_SEG_DATA = 1 << 3,		/* data or inline segments */
	ENG_SEG_IMM = 1 << 4,		/* ctrl.imm is immediate data */
	ENG_SEG_INV = 1 << 5,		/* ctrl.imm is the rkey to invalidate */
	ENG_SEG_UMR = 1 << 6,		/* UMR control, mkey context, KLMs */
};
struct eng_opcode_info {
	const char *name;
	unsigned int qp_types;		/* ENG_ST_* it is valid on */
	unsigned int segs;		/* ENG_SEG_* */
	uint8_t wire_op;		/* IBA operation, ONLY (EMU_WIRE_OP_*) */
	unsigned int resp_access;	/* EMU_FW_MKEY_* the responder needs */
	uint8_t req_cqe;		/* requester CQE opcode */
	int8_t resp_cqe;		/* responder CQE opcode, -1: none */
	bool consumes_rwqe;		/* takes a receive WQE */
	bool reads;			/* response carries data to scatter */
};
const struct eng_opcode_info *eng_opcode(uint8_t mlx5_opcode);
const struct eng_opcode_info *eng_opcode_of_wire(uint8_t wire_op);
/* The MLX5_OPCODE_* an entry of the table describes. */
uint8_t eng_opcode_value(const struct eng_opcode_info *oi);
unsigned int eng_qp_st_bit(const struct emu_fw_qp *fq);
/* The device advertises the opcode (masked atomics). */
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
 * write rights on @pd, for queue @qpn (windows bound to a QP); skip @skip
 * bytes of the list first (UD GRH, or what earlier packets of the message
 * placed). */
enum eng_mr_res eng_mr_scatter(struct emu_fw *fw, uint32_t qpn,
			       const struct emu_fw_pd *pd,
			       const struct eng_sge *sge, unsigned int nsge,
			       uint32_t skip, const struct eng_pkt *pkt,
			       bool *src_fault);
/* Copy a payload into one resolved range. */
int eng_mr_copy_payload(uint8_t *dst, const struct eng_pkt *pkt,
			bool *src_fault);
/* Copy payload bytes [from, from + len) to dst (a wire frame). */
int eng_mr_copy_range(uint8_t *dst, const struct eng_pkt *pkt, uint32_t from,
		      uint32_t len, bool *src_fault);

/* ---- eng_recv.c: receive WQEs of RQs and SRQs ---- */
enum eng_recv_res { ENG_RECV_OK, ENG_RECV_NONE, ENG_RECV_FAULT };
enum eng_recv_res eng_recv_take(struct eng_qp *qp, struct emu_fw_srq *srq,
				struct eng_rwqe *r);
/* The next WQE of a cyclic receive ring whose doorbell record's word 0
 * counts posted WQEs; *counter counts those taken. */
enum eng_recv_res eng_recv_cyclic(const struct emu_fw_ring *rq,
				  const struct emu_fw_buf *dbr,
				  atomic_uint *counter, struct eng_rwqe *r);
/* Give back a WQE taken for a message that did not land. */
void eng_recv_untake(struct eng_qp *qp, const struct eng_rwqe *r);
/* Flush every receive WQE the RQ holds (QP in ERR); how many. */
unsigned int eng_recv_flush(struct eng_qp *qp);

/* ---- eng_cqe.c: writing completions ---- */
/* What an Ethernet receive CQE carries besides the common fields. */
struct eng_cqe_eth {
	struct emu_eth_cqe_info info;	/* header types, checksum-ok bits */
	const struct emu_eth_rss_res *rss;	/* NULL: no RSS */
	bool stripped;			/* a VLAN tag was stripped: tci */
	uint16_t tci;
	uint32_t flow_tag;		/* sop_drop_qpn's low 24 bits */
};

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
	uint8_t ts_format;		/* the QP's: how the CQE is stamped */
	const struct eng_cqe_eth *eth;	/* an Ethernet RQ's receive */
};
/* 0, or -ENOSPC (overrun: no CQE written, CQ in error), -EFAULT. */
int eng_cqe_write(struct emu_fw_cq *cq, const struct eng_cqe *c);
/* The same, with the 64 bytes written copied to @copy (if given). */
int eng_cqe_write_copy(struct emu_fw_cq *cq, const struct eng_cqe *c,
		       uint8_t copy[64]);
/* A QP's error CQE (through eng_cqe_qp). */
void eng_cqe_error(struct eng_qp *qp, struct emu_fw_cq *cq, uint32_t uidx,
		   uint16_t wqe_counter, uint8_t wqe_opcode, bool resp,
		   uint8_t syndrome, uint8_t vendor);

/* ---- eng_req.c: the requester ---- */
/* Send what the SQ holds and what a retry rewound (at most @budget
 * packets or WQEs), run its timers; the work done. */
unsigned int eng_req_run(struct eng_qp *qp, unsigned int budget);
/* Path MTU in bytes, and the PSNs a message of len bytes spans. */
uint32_t eng_mtu(const struct eng_qp *qp);
uint32_t eng_npsn(const struct eng_qp *qp, uint32_t len);
/* Resend from PSN psn on (a NAK, a timeout, a gap in READ responses). */
void eng_req_rewind(struct eng_qp *qp, uint32_t psn);
/* The window's record i (whead <= i < wtail). */
static inline struct eng_infl *eng_win(struct eng_qp *qp, unsigned int i)
{
	return &qp->win[i & (qp->win_cap - 1)];
}
/* PSN arithmetic modulo 2^24: a - b as a signed distance. */
static inline int32_t eng_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

/* ---- eng_resp.c: the responder ---- */
/* A request packet for @qp; false when it was dropped.  Answers go
 * through the fabric (ACKs of a batch coalesced: eng_resp_flush_ack). */
bool eng_resp_rcv(struct eng_qp *qp, struct eng_pkt *pkt);
/* Send the ACK the last packets asked for, if one is pending. */
void eng_resp_flush_ack(struct eng_qp *qp);
void eng_resp_flush_acks(struct eng *e);
void eng_resp_forget_acks(struct eng *e, struct eng_qp *qp);

/* ---- eng_comp.c: the completer ---- */
/* A response (ACK/NAK, READ data, atomic ACK) for @qp's requests. */
void eng_comp_rcv(struct eng_qp *qp, struct eng_pkt *pkt);
/* The transport and RNR timers: what is due; a send starts the first. */
void eng_comp_timers(struct eng_qp *qp);
void eng_comp_arm(struct eng_qp *qp);
/* Complete a WQE with an error (and move the QP to ERR or SQER): one of
 * the table, or any syndrome and vendor syndrome. */
void eng_comp_error(struct eng_qp *qp, uint8_t opcode, uint16_t idx,
		    enum eng_synd_id id);
void eng_comp_error_raw(struct eng_qp *qp, uint8_t opcode, uint16_t idx,
			uint8_t syndrome, uint8_t vendor);
void eng_comp_success(struct eng_qp *qp, uint8_t opcode, uint8_t fm_ce_se,
		      uint16_t idx, uint32_t byte_cnt);
/* Flush the window and the posted send WQEs of a QP in ERR; how many. */
unsigned int eng_comp_flush_sq(struct eng_qp *qp);

/* ---- eng_fabric.c: where packets go ---- */
/*
 * Send PSNs [from, from + max) of @pkt from @src: in process the whole
 * packet is delivered at once (the destination's responder or completer
 * runs now); otherwise onto the wire, cut by the path MTU.  Returns the
 * PSNs sent (a packet nobody takes is lost, as on a cable), or -EFAULT
 * when the sender's memory faulted while framing.
 */
int eng_fabric_send(struct eng_qp *src, struct eng_pkt *pkt, uint32_t from,
		    uint32_t max);
/* Whether @qp's packets stay in this process (its route is resolved). */
bool eng_fabric_local(struct eng_qp *qp);
/* The attached QP numbered qpn of @dev, or NULL. */
struct eng_qp *eng_fabric_qp(struct eng_dev *dev, uint32_t qpn);
/* A packet for @dst: its responder (requests) or completer (responses). */
void eng_fabric_deliver(struct eng_qp *dst, struct eng_pkt *pkt);
/* Fill the source address of @qp's primary path (or of a UD AV). */
void eng_fabric_src(struct eng_qp *qp, struct eng_addr *a);
/* The source GID of a->port/a->sgid_index (UD address vectors). */
void eng_fabric_src_gid(struct eng_qp *qp, struct eng_addr *a);
/* The device and port of this process owning @gid, or NULL. */
struct eng_dev *eng_fabric_route(const uint8_t gid[16], uint8_t *port);

/* ---- eng_dc.c: dynamically connected transport, in process ---- */
/* A DCI's next WQE @w: true when it may go now (same DCT as the window,
 * or an empty window: a new connection); false: wait. */
bool eng_dc_req_connect(struct eng_qp *qp, const struct eng_wqe *w);
/* A DC request for DCT pkt->dqpn of @dev: the access key, then the
 * initiator's connection; false when nobody takes it (lost). */
bool eng_dc_deliver(struct eng_dev *dev, struct eng_pkt *pkt);
/* The DCT goes: its connections with it. */
void eng_dc_dct_gone(struct eng *e, struct emu_fw_qp *dct);
/* A connection leaves the engine (eng_qp_detach). */
void eng_dc_conn_free(struct eng_qp *qp);

/* ---- eng_wire.c: frames in and out ---- */
/* Frame PSNs [from, from + max) of pkt onto @port's wire; PSNs sent or
 * -EFAULT. */
int eng_wire_send(struct eng_qp *qp, struct emu_wire_port *port,
		  const struct eng_pkt *pkt, uint32_t from, uint32_t max);
/* Receive on every port (the pass): what waits in memory, or what the
 * sockets hold; frames handed to the roles. */
unsigned int eng_wire_rx(struct eng *e, unsigned int budget, bool sockets);
/* Whether this pass should read the wire's sockets (see struct eng). */
bool eng_wire_rx_due(struct eng *e);
/* A port's queue to its link (the sockets read every pass a while if it
 * used them). */
void eng_wire_port_flush(struct eng *e, struct emu_wire_port *wp);
/* End of a pass: pending ACKs, then every port's queue to its link. */
void eng_wire_flush(struct eng *e);
/* Bytes a requester may have unacknowledged on the wire. */
uint32_t eng_wire_window(const struct eng_qp *qp);
/* What a parking thread waits on: the wire's ports and the wake-up. */
struct eng_wire_parking {
	struct pollfd fds[ENG_MAX_DEVS * EMU_FW_MAX_PORTS + 1];
	nfds_t n;
	bool wait;		/* false: a port has frames in memory */
};
/* Collect the ports to wait on and tell them (run lock held). */
void eng_wire_park_prepare(struct eng *e, struct eng_wire_parking *pk);
/* Wait until a frame, a wake-up or ns pass. */
void eng_wire_park_wait(struct eng *e, struct eng_wire_parking *pk,
			uint64_t ns);
void eng_wire_wake(struct eng *e);
/* A caller is about to block: frames that come from now on wake the
 * engine's wait (run lock held). */
void eng_wire_idle(struct eng *e);
/* A port's wire joins (the engine owns it from then on); ports leave
 * with their device. */
int eng_wire_attach(struct eng *e, struct eng_dev *dev, unsigned int port,
		    struct emu_wire_port *wp);
void eng_wire_dev_fini(struct eng_dev *dev);

/* ---- eng_stats.c: the wire's counters ---- */
/* A QP leaving the engine reports its counters to the sink. */
void eng_stats_qp(struct eng_qp *qp);

/* ---- eng_grh.c: the 40 bytes before a UD payload ---- */
void eng_grh_build(const struct eng_pkt *pkt, uint8_t grh[40],
		   uint8_t *l3_type);

/* ---- Ethernet: send queues, frames between ports, receive ---- */

/* The largest frame an SQ sends (a jumbo frame and its VLAN tag), and the
 * largest TSO payload (max_lso_cap). */
#define ENG_ETH_FRAME_MAX 9232
#define ENG_ETH_LSO_MAX (256 * 1024)

/* An SQ the engine runs (eng_eth_sq.c); hangs off emu_fw_sq.engine. */
struct eng_sq {
	struct cds_list_head node;	/* in eng->sqs */
	struct eng_dev *dev;
	struct emu_fw_sq *fs;		/* a reference while attached */
	uint16_t ci;			/* WQEBB counter: next to read */
	bool hinted;
};

/* Where a frame comes from, for the receive side's self-loopback rules:
 * the transport domain of the sending SQ's TIS (NULL: another vport or
 * the wire). */
struct eng_eth_src {
	const struct emu_fw_td *td;
	const struct eng_dev *dev;
	uint8_t port;
};

/* eng_eth_sq.c */
void eng_sq_changed(void *arg, struct emu_fw_sq *fs);
void eng_rq_changed(void *arg, struct emu_fw_rq *fr);
void eng_sq_detach_all(struct eng *e, struct eng_dev *dev);
/* Run the SQ's posted WQEs (at most @budget); the work done. */
unsigned int eng_sq_run(struct eng_sq *sq, unsigned int budget);
/* One pass over the attached SQs, hinted ones first (the pass's share). */
unsigned int eng_sq_pass(struct eng *e, unsigned int budget);

/* eng_eth_tx.c: a WQE becomes frames */
enum eng_eth_tx_res {
	ENG_ETH_TX_OK,
	ENG_ETH_TX_BAD,		/* malformed: local QP operation error */
	ENG_ETH_TX_PROT,	/* an lkey, PD or bounds: local protection */
	ENG_ETH_TX_FAULT,	/* memory gone after registration */
	ENG_ETH_TX_LEN,		/* longer than a frame may be */
};
enum eng_eth_tx_res eng_eth_tx_wqe(struct eng_sq *sq, struct eng_wqe *w);

/* eng_eth_l2.c: frames between the ports of this process and the wire */
/* A frame leaves @dev's @port (from an SQ of transport domain src->td). */
void eng_eth_xmit(struct eng_dev *dev, unsigned int port, const uint8_t *f,
		  uint32_t len, const struct eng_eth_src *src);

/* eng_eth_rx.c: a frame enters a vport: steering, RSS, the RQ, the CQE;
 * whether anything took it. */
bool eng_eth_rx(struct eng_dev *dev, unsigned int port, const uint8_t *f,
		uint32_t len, const struct eng_eth_src *src);
/* Flush what an RQ in ERR holds (flush_in_error_en). */
unsigned int eng_eth_rq_flush(struct emu_fw_rq *fr);

/* ---- eng_dp.c: fault rules and the trace on the data path ---- */
#define ENG_DP_BUSY (1u << 31)
struct eng_dp_qp;
/* A send WQE passed its checks and is about to run: traced, and what the
 * rules say (NULL: nothing), asked once per WQE. */
const struct emu_eng_verdict *eng_dp_send(struct eng_qp *qp,
					  const struct eng_wqe *w);
/* It completes with the rules' error CQE (the WQE taken by the caller). */
void eng_dp_send_error(struct eng_qp *qp, const struct eng_wqe *w,
		       const struct emu_eng_verdict *v);
/* A message (@opcode: MLX5_OPCODE_*) took receive WQE @r: traced, and
 * what the rules say (NULL: nothing). */
const struct emu_eng_verdict *eng_dp_recv(struct eng_qp *qp, uint8_t opcode,
					  const struct eng_rwqe *r);
/* The SQ doorbell record holds @pi: the producer counter to run to. */
uint16_t eng_dp_doorbell(struct eng_qp *qp, uint16_t pi);
/* A new arm request of @cq (faults on): true when the rules lose it. */
bool eng_dp_cq_arm(struct eng_dev *dev, struct emu_fw_cq *cq);
/* A QP's CQE: held for a delay, or written (and traced). */
int eng_dp_cqe(struct eng_qp *qp, struct emu_fw_cq *cq,
	       const struct eng_cqe *c);
/* Held CQEs that are due are written. */
void eng_dp_release(struct eng_qp *qp);
/* The QP leaves the engine: what it held is dropped. */
void eng_dp_qp_free(struct eng_qp *qp);

/* Every CQE of a QP goes through here: the hooks only while they are on. */
static inline int eng_cqe_qp(struct eng_qp *qp, struct emu_fw_cq *cq,
			     struct eng_cqe *c)
{
	int ret;

	c->ts_format = qp->fq->ts_format;
	if (eng_g.dp_now)
		return eng_dp_cqe(qp, cq, c);
	ret = eng_cqe_write(cq, c);
	if (ret == -ENOSPC)
		eng_count(qp, EMU_FW_QCNT_CQ_OVERFLOW);
	return ret == -ENOSPC ? 0 : ret;
}

#endif /* MLX5EMU_EMU_ENGINE_ENG_INT_H */
