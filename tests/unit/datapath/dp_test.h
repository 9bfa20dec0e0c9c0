/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the data path tests: ordinary rdma-core programs
 * linked against the drop-in libraries that post work and read back what
 * the provider wrote (the SQ/RQ rings, the doorbell record, the UAR page)
 * through mlx5dv_init_obj, and write CQEs into a CQ's ring as the device
 * would.  Expected bytes are built here from literal offsets (the PRM's
 * WQE and CQE layouts), never with the provider's own encoders.
 */
#ifndef MLX5EMU_TESTS_UNIT_DATAPATH_DP_TEST_H
#define MLX5EMU_TESTS_UNIT_DATAPATH_DP_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp_cqe.h"
#include "qp_test.h"

/* A WQE basic block. */
#define DP_BB 64

/* The control segment libmlx5 writes (bytes 0..15 of a WQE). */
void dp_ctrl(uint8_t *b, uint16_t idx, uint8_t opcode, uint32_t qpn,
	     uint8_t ds, uint8_t fm_ce_se, uint32_t imm_be);

/* The QP's rings, record and register as mlx5dv_init_obj gives them. */
struct mlx5dv_qp dp_dv(struct ibv_qp *qp);

/* Basic block @idx of the send queue (masked to the ring). */
uint8_t *dp_sq_bb(const struct mlx5dv_qp *dv, unsigned int idx);

/* Copies @len bytes of the send queue from block @idx on, across the
 * end of the ring (a WQE that wraps). */
void dp_sq_read(const struct mlx5dv_qp *dv, unsigned int idx, void *out,
		size_t len);

/* The send counter the doorbell record holds (dbrec[1]). */
uint32_t dp_sq_dbr(const struct mlx5dv_qp *dv);

/*
 * A QP of @type on qt_pd/qt_cq in RTS (RC/UC connected to itself through
 * GID 1, UD with Q_Key 0x11111111), @swr send WRs of @ssge SGEs and
 * @inl inline bytes, sq_sig_all as asked.
 */
struct ibv_qp *dp_qp(enum ibv_qp_type type, uint32_t swr, uint32_t ssge,
		     uint32_t inl, bool sig_all);

/* The user index CQEs of @qp carry (qpc.user_index through DEVX). */
uint32_t dp_uidx(struct ibv_qp *qp);

/* dp_cqe_write() into @cq's ring, found through mlx5dv_init_obj (which
 * makes the CQ the application's: a QP reset leaves its CQEs alone). */
uint8_t *dp_put_cqe(struct ibv_cq *cq, uint32_t pi, uint8_t opcode,
		    uint32_t uidx, uint32_t qpn, uint8_t wqe_op,
		    uint16_t wqe_counter);

/* Polls @cq until one completion, 5 s at most; asserts. */
struct ibv_wc dp_poll_one(struct ibv_cq *cq);

/* One signaled WR of @op (wr_id @op) of one SGE, RDMA address and key as
 * given; asserts ibv_post_send succeeds. */
void dp_post1(struct ibv_qp *qp, enum ibv_wr_opcode op, void *addr,
	      uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey);

#endif /* MLX5EMU_TESTS_UNIT_DATAPATH_DP_TEST_H */
