/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the event tests: ordinary rdma-core programs linked
 * against the drop-in libraries and libmlx5emu.so.1 (fault rules raise
 * the events no traffic can cause).  Traffic is WQEs written into verbs
 * QPs' send queues the mlx5dv way (mlx5dv_init_obj, the doorbell record),
 * so it needs no post verb.
 */
#ifndef MLX5EMU_TESTS_UNIT_EVENTS_EV_TEST_H
#define MLX5EMU_TESTS_UNIT_EVENTS_EV_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include <check.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "ut_dropin.h"

/* A verbs RC QP with its mlx5dv view. */
struct evt_qp {
	struct ibv_qp *qp;
	struct mlx5dv_qp dv;
	uint16_t sq_pi;
};

/* An RC QP on @pd (send and receive on @cq, receives from @srq if any). */
void evt_qp_create(struct evt_qp *q, struct ibv_pd *pd, struct ibv_cq *cq,
		   struct ibv_srq *srq);
/* RESET->INIT->RTR(->RTS unless @rtr_only), connected to @rqpn through
 * GID 1 of port 1; remote write and atomics enabled. */
void evt_qp_connect(struct evt_qp *q, uint32_t rqpn, bool rtr_only);
/* One WQE (SEND, RDMA_WRITE, ATOMIC_FA) of @len bytes from @mr at @off
 * to (@raddr, @rkey) (not for SEND), signaled, written and the doorbell
 * record rung. */
void evt_post(struct evt_qp *q, uint8_t opcode, struct ibv_mr *mr,
	      uint32_t off, uint32_t len, uint64_t raddr, uint32_t rkey);

/* Whether @fd polls readable within @ms milliseconds. */
bool evt_readable(int fd, int ms);
/* O_NONBLOCK on @fd. */
void evt_nonblock(int fd);
/* Polls @cq until @n completions came (5 s at most); their statuses. */
void evt_poll(struct ibv_cq *cq, int n, enum ibv_wc_status *st);
/* Adds a fault rule (asserts success); its id. */
int evt_fault(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* MLX5EMU_TESTS_UNIT_EVENTS_EV_TEST_H */
