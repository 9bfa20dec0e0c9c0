/* SPDX-License-Identifier: MIT */
/*
 * A small MANA rig for the fault and trace programs, built as DPDK's PMD
 * builds its queues: port 1's raw send queue, port 2's RSS QP over one
 * receive queue with RIG_RQ_DEPTH buffers posted, everything through
 * libmana and the doorbell page.  Frame i carries i in its payload, so a
 * receiver can tell which ones arrived.
 */
#ifndef MLX5EMU_TESTS_UNIT_MANA_MANA_RIG_H
#define MLX5EMU_TESTS_UNIT_MANA_MANA_RIG_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

enum { RIG_SQ_DEPTH = 64, RIG_RQ_DEPTH = 64, RIG_BUF = 2048, RIG_FRAMES = 64,
       RIG_FRAME_LEN = 64 };

struct rig {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *tx_pd, *rx_pd;
	struct ibv_cq *tcq, *rcq;
	struct ibv_qp *sq, *rss;
	struct ibv_wq *rwq;
	struct ibv_rwq_ind_table *tbl;
	struct manadv_qp dq;
	struct manadv_cq dtc, drc;
	struct manadv_rwq drw;
	uint8_t *mem;			/* receive buffers, then frames */
	struct ibv_mr *mr;
	uint8_t dmac[6], smac[6];
	uint32_t sq_posted;		/* WQEs written to the send ring */
	uint32_t rx_head;		/* receive CQEs consumed */
};

/* Opens mana_0 and builds the queues; asserts.  The receive queue's
 * buffers are posted; rung unless rx_ring is false. */
void rig_open(struct rig *r, bool rx_ring);
void rig_close(struct rig *r);
/* Receive buffer i, and the frame sent as number i. */
uint8_t *rig_rx_buf(struct rig *r, uint32_t i);
/* Write n send WQEs, frames first .. first + n - 1 (no doorbell). */
void rig_post(struct rig *r, uint32_t first, uint32_t n);
/* Ring the send queue with the ring's tail after every posted WQE. */
void rig_ring_sq(struct rig *r);
void rig_ring_rq(struct rig *r, uint32_t wqes);
/* The frame number a received buffer holds. */
uint32_t rig_frame_no(const uint8_t *buf);
/* The next receive CQE within ms (NULL: none came); consumed. */
const volatile uint8_t *rig_rx_cqe(struct rig *r, unsigned int ms);

#endif /* MLX5EMU_TESTS_UNIT_MANA_MANA_RIG_H */
