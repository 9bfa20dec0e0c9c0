/* SPDX-License-Identifier: MIT */
/*
 * A tiny driver for the engine suites: devices made through firmware
 * commands (fw_test_util), queues on registered memory, WQEs written by
 * hand at literal offsets, doorbell records rung, CQEs read from memory.
 */
#ifndef MLX5EMU_TESTS_UNIT_ENGINE_ENG_TEST_H
#define MLX5EMU_TESTS_UNIT_ENGINE_ENG_TEST_H

#include "../firmware/fw_test_util.h"

#include <stdbool.h>

#include "emu/engine/eng.h"

/* GID indexes every test device has on port 1 (as a real mlx5 port):
 * 0/1 link-local RoCE v1/v2, 2/3 IPv4-mapped RoCE v1/v2. */
enum { ENT_GID_V1 = 0, ENT_GID_V2 = 1, ENT_GID_V1_V4 = 2, ENT_GID_V2_V4 = 3 };

struct ent_dev {
	struct emu_fw *fw;
	int index;
	uint16_t uid;
	uint32_t pd, pd2, uar, eqn, xrcd;
	struct fwt_mem eqmem;
	void *uar_page;		/* what the kernel layer would map */
	uint8_t gid[4][16];
	void *allocs[256];	/* freed by ent_dev_fini */
	unsigned int nallocs;
};

/* Registered memory of d, freed with it. */
void ent_mem_reg(struct ent_dev *d, size_t size, struct fwt_mem *mem);

/* Device @index (GIDs and MAC derived from it), joined to the engine,
 * which runs in the mode MLX5EMU_ENGINE_MODE names (threaded if unset:
 * each ctest entry states its mode). */
void ent_dev_init(struct ent_dev *d, int index);
/* The same with capability pages edited first (fwt_create's tweak). */
void ent_dev_init_caps(struct ent_dev *d, int index,
		       void (*tweak)(struct emu_fw_caps *caps));
void ent_dev_fini(struct ent_dev *d);

struct ent_cq {
	struct ent_dev *d;
	uint32_t cqn;
	struct fwt_mem mem, dbr;
	unsigned int log_size, cqe_size;
	uint32_t ci;
};
void ent_cq_init(struct ent_dev *d, struct ent_cq *cq, unsigned int log_size,
		 unsigned int cqe_size, bool oi);
/* The 64-byte CQE at index ci once it is valid (5 s at most, else the
 * test fails); consume it (ci++, doorbell record).  Without an engine
 * thread each look is a progress call, as a provider's poll is. */
const uint8_t *ent_cq_next(struct ent_cq *cq);
/* No valid CQE shows up within ms milliseconds (progress calls included). */
bool ent_cq_quiet(struct ent_cq *cq, unsigned int ms);
/* What a polling loop does between looks: yield to the engine thread, or
 * without one make progress. */
void ent_poll_progress(void);
/* A millisecond of a waiting loop, after a progress call if no engine
 * thread runs. */
void ent_tick(void);

/* An MR: an mkey over its own registered buffer. */
struct ent_mr {
	uint32_t key;
	uint8_t *buf;
	size_t len;
	struct fwt_mem mem;
	uint32_t mkey_index;
};
/* mkc access bits lr|lw|rr|rw|a as EMU_FW_MKEY_*; umem_access IBV_ACCESS. */
void ent_mr_init(struct ent_dev *d, struct ent_mr *mr, uint32_t pd,
		 size_t len, unsigned int access, uint32_t umem_access);
/* The same over memory the caller owns (mmap'ed, say). */
void ent_mr_init_buf(struct ent_dev *d, struct ent_mr *mr, uint32_t pd,
		     void *buf, size_t len, unsigned int access,
		     uint32_t umem_access);
#define ENT_MR_ALL (EMU_FW_MKEY_LR | EMU_FW_MKEY_LW | EMU_FW_MKEY_RR | \
		    EMU_FW_MKEY_RW | EMU_FW_MKEY_A)

enum ent_type { ENT_RC, ENT_UC, ENT_UD, ENT_XRC_INI, ENT_XRC_TGT, ENT_DCI };

struct ent_qp_cfg {
	enum ent_type type;
	unsigned int log_sq, log_rq, log_rq_stride;	/* stride: 16 << it */
	struct ent_cq *scq, *rcq;
	uint32_t srqn;		/* rq_type SRQ when non-zero */
	uint32_t pd;		/* 0: the device's */
	uint32_t user_index;
};

struct ent_qp {
	struct ent_dev *d;
	struct ent_qp_cfg cfg;
	uint32_t qpn;
	struct fwt_mem mem, dbr;
	uint8_t *rq, *sq;
	uint16_t sq_pi, rq_pi;	/* WQEBB / WQE counters posted */
};
void ent_qp_create(struct ent_dev *d, struct ent_qp *qp,
		   const struct ent_qp_cfg *cfg);

/* Connection parameters of a transition walk. */
struct ent_conn {
	uint32_t remote_qpn;
	const uint8_t *rgid;	/* NULL: the peer device's ENT_GID_V2 */
	unsigned int sgid_index;
	uint32_t sq_psn, rq_psn;
	unsigned int min_rnr, rnr_retry, retry_count, ack_timeout;
	bool no_rwe, no_rre, no_rae;
	unsigned int mtu;	/* MLX5_QPC_MTU_*; 0: 1 KiB */
	uint32_t qkey;
	uint32_t counter;	/* queue counter set (0: none) */
};
void ent_conn_default(struct ent_conn *c);
/* RST2INIT, INIT2RTR, RTR2RTS with c (asserting success). */
void ent_qp_to_rts(struct ent_qp *qp, const struct ent_dev *peer,
		   const struct ent_conn *c);
/* Two QPs connected to each other with the defaults. */
void ent_qp_pair(struct ent_qp *a, struct ent_qp *b);
/* Any transition by opcode (2ERR, 2RST); the outbox status. */
uint8_t ent_qp_modify(struct ent_qp *qp, uint16_t opcode);
/* QUERY_QP into m. */
void ent_qp_query(struct ent_qp *qp, struct fwt_mbox *m);

/* ---- WQEs by hand (literal offsets) ---- */
/* The WQE basic block @idx of the SQ (wraps). */
uint8_t *ent_sq_bb(struct ent_qp *qp, uint16_t idx);
/* Control segment at w: bytes 0..15. */
void ent_ctrl(uint8_t *w, uint16_t idx, uint8_t opcode, uint32_t qpn,
	      uint8_t ds, uint8_t fm_ce_se, uint32_t imm_be);
/* A 16-byte data segment (byte count, lkey, address). */
void ent_dseg(uint8_t *s, uint32_t len, uint32_t lkey, uint64_t addr);
/* A 16-byte remote address segment. */
void ent_raddr(uint8_t *s, uint64_t addr, uint32_t rkey);
/* Copy a WQE of nbb blocks built in w into the SQ at sq_pi (wrapping),
 * advance sq_pi; does not ring. */
void ent_sq_put(struct ent_qp *qp, const uint8_t *w, unsigned int nbb);
/* Ring: the SQ doorbell record = sq_pi (release). */
void ent_sq_ring(struct ent_qp *qp);
/* One SEND-like WQE with one data segment, posted and rung. */
void ent_post1(struct ent_qp *qp, uint8_t opcode, uint8_t fm_ce_se,
	       uint32_t imm_be, const struct ent_mr *mr, uint32_t off,
	       uint32_t len, uint64_t raddr, uint32_t rkey);
/* A receive WQE (one scatter entry, then an MLX5_INVALID_LKEY stop if the
 * stride has room), the RQ doorbell record rung. */
void ent_post_recv(struct ent_qp *qp, uint32_t lkey, uint64_t addr,
		   uint32_t len);

/* ---- SRQs ---- */
struct ent_srq {
	struct ent_dev *d;
	uint32_t srqn;
	struct fwt_mem mem, dbr;
	unsigned int log_size, log_stride;	/* stride bytes: 16 << it */
	uint16_t head, tail, cnt;		/* libmlx5's free list */
};
/* A basic SRQ (xrc: an XRC SRQ of d->xrcd completing on cq). */
void ent_srq_init(struct ent_dev *d, struct ent_srq *s, unsigned int log_size,
		  bool xrc, struct ent_cq *cq, uint32_t user_index);
/* libmlx5's post_srq_recv: WQE at head, head = its next, counter++. */
uint16_t ent_srq_post(struct ent_srq *s, uint32_t lkey, uint64_t addr,
		      uint32_t len);
/* libmlx5's free: the WQE goes to the tail of the list. */
void ent_srq_free(struct ent_srq *s, uint16_t idx);

/* ---- CQE checks ---- */
static inline uint32_t ent_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}
static inline uint16_t ent_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}
/* Build an expected CQE (64 bytes) from fields at literal offsets. */
struct ent_cqe_exp {
	uint8_t opcode;		/* op_own[7:4] */
	uint32_t qpn;		/* sop_drop_qpn[23:0] */
	uint8_t wqe_op;		/* sop_drop_qpn[31:24] */
	uint16_t wqe_counter;
	uint32_t byte_cnt;
	uint32_t imm;		/* imm_inval_pkey as a big-endian number */
	uint32_t flags_rqpn;
	uint32_t srqn_uidx;
	uint8_t syndrome, vendor;	/* error CQEs: bytes 55, 54 */
	bool se;		/* op_own bit 1: solicited (always on errors) */
};
/* Compare every byte of the CQE but the timestamp (48..55) of a good CQE
 * and the owner bit (which ent_cq_next checks). */
void ent_cqe_check(const uint8_t *cqe, const struct ent_cqe_exp *e);

/* The engine uses ent_vendor(id) values from prm/cqe_syndromes.def. */
#define ENT_VENDOR_LOCAL_PROT 0x52
#define ENT_VENDOR_FLUSH 0xF9

/* A queue counter set, its value (QUERY_Q_COUNTER field name). */
uint32_t ent_q_counter(struct ent_dev *d);
uint32_t ent_q_counter_get(struct ent_dev *d, uint32_t set, const char *fld);

#endif /* MLX5EMU_TESTS_UNIT_ENGINE_ENG_TEST_H */
