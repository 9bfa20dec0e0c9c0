/* SPDX-License-Identifier: MIT */
/*
 * A DEVX-only player, as rdma-core's pyverbs DevX RC test and UCX/DPDK-style
 * code drive a ConnectX: no verbs object.  Through the emulated kernel
 * layer's backend ops (what libmlx5's DEVX calls reach): a context on
 * mlx5_0, PD, umems, an mkey, a CQ and an RC QP built from PRM commands and
 * moved to RTS with modify commands.  Traffic is WQEs written into the QP
 * umem, the doorbell record and (optionally) a 64-bit store to the UAR
 * register, then CQE memory polled: no library call after the doorbell.
 *
 * Used by the engine suites, the fork suites and the pickup benchmark.  A
 * failed step prints where and aborts (a Check test then fails by signal).
 */
#ifndef MLX5EMU_TESTS_UNIT_ENGINE_DEVX_PLAYER_H
#define MLX5EMU_TESTS_UNIT_ENGINE_DEVX_PLAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/backend.h"
#include "backend/backend_impl.h"

#define DP_BE (&mlx5be_emu_ops)
#define DP_LOG_RQ 4	/* 16 WQEs of 16 bytes */
#define DP_LOG_SQ 6	/* 64 basic blocks */
#define DP_LOG_CQ 8
#define DP_MSG 1024

struct dp_player {
	struct mlx5be_ctx *ctx;
	int fd;
	uint32_t pd, eqn, cqn, qpn, lkey;
	struct mlx5be_uar_info uar;
	uint8_t *uar_page;
	uint8_t *cq, *qp, *buf;
	uint32_t *cq_dbr, *qp_dbr;
	uint8_t gid[16];
	uint32_t ci, rq_pi, sq_pi;
	struct mlx5be_obj *qp_obj, *cq_obj;
};

#define DP_ASSERT(cond)                                                       \
	do {                                                                  \
		if (!(cond))                                                  \
			dp_fail(__FILE__, __LINE__, #cond);                   \
	} while (0)
void dp_fail(const char *file, int line, const char *what)
	__attribute__((noreturn));

/* Page-aligned zeroed memory (never freed: the tests end with it). */
void *dp_page_alloc(size_t len);
/* A umem over [addr, addr + len) (local write); its id. */
uint32_t dp_umem(struct dp_player *p, void *addr, size_t len);
/* Create through DEVX obj_create; the id is the outbox's dword id_dw; the
 * object made is dp_last_obj. */
uint32_t dp_create(struct dp_player *p, void *in, size_t inlen, size_t outlen,
		   unsigned int id_dw);
extern struct mlx5be_obj *dp_last_obj;

/* Opens mlx5_0 and builds PD, MR, CQ and an RC QP in RST. */
void dp_player_init(struct dp_player *p);
/* One transition (RST2INIT, INIT2RTR or RTR2RTS_QP) towards @peer. */
void dp_modify(struct dp_player *p, uint16_t opcode,
	       const struct dp_player *peer, uint32_t psn);
/* RST -> INIT -> RTR -> RTS towards @peer (psn: ours; peer_psn: theirs). */
void dp_to_rts(struct dp_player *p, const struct dp_player *peer, uint32_t psn,
	       uint32_t peer_psn);
/* pyverbs' post_recv: a 16-byte data segment and the RQ doorbell record. */
void dp_post_recv(struct dp_player *p);
/* pyverbs' post_send: SEND_IMM over the whole buffer and the SQ record;
 * with @uar also the 64-bit UAR store of the control segment's first 8
 * bytes.  Returns the WQE's address. */
uint8_t *dp_post_send(struct dp_player *p, uint32_t imm, bool uar);
/* The next CQE once valid (spinning on its memory, 5 s at most, calling
 * @spin between looks if not NULL), consumed. */
const uint8_t *dp_poll_cq(struct dp_player *p, void (*spin)(void));
/* Whether a CQE is valid at the consumer index now (not consumed). */
bool dp_cq_ready(const struct dp_player *p);
/* Closes the context (the kernel layer destroys what it holds), frees. */
void dp_player_fini(struct dp_player *p);

#endif /* MLX5EMU_TESTS_UNIT_ENGINE_DEVX_PLAYER_H */
