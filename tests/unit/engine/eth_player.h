/* SPDX-License-Identifier: MIT */
/*
 * The Ethernet half of the DEVX-only player: as a DPDK-style program
 * builds its queues on a ConnectX, through PRM commands only (the backend
 * ops the DEVX calls reach): a transport domain, a TIS, SQs and RQs over
 * umems, RQTs, TIRs, and rules at the kernel's NIC receive root
 * (mlx5dv_create_flow's path).  WQEs are written at literal offsets, the
 * doorbell records bumped, CQE memory read back: no library call between.
 */
#ifndef MLX5EMU_TESTS_UNIT_ENGINE_ETH_PLAYER_H
#define MLX5EMU_TESTS_UNIT_ENGINE_ETH_PLAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "devx_player.h"

#define EP_MEM (256 * 1024)	/* registered: frames to send, receive buffers */
#define EP_RX_OFF (128 * 1024)	/* where receive buffers start */
#define EP_RX_BUF 2048		/* one receive WQE's buffer */
#define EP_LOG_SQ 6		/* 64 WQE basic blocks */
#define EP_LOG_RQ 5		/* 32 receive WQEs of 16 bytes */

struct ep_rq {
	uint32_t rqn;
	uint8_t *ring;
	uint32_t *dbr;
	uint16_t pi;
	unsigned int slot;	/* which receive buffers it uses */
	struct mlx5be_obj *obj;
};

struct eth_player {
	struct dp_player dp;	/* the context, PD, CQ */
	uint32_t td, tisn, sqn;
	uint8_t *mem;
	uint32_t lkey;
	uint8_t *sq;
	uint32_t *sq_dbr;
	uint16_t sq_pi;
	struct mlx5be_obj *sq_obj, *tis_obj;
	void *pages[16];	/* what ep_fini frees */
	unsigned int npages;
};

/* Context, PD, CQ, TD, an MR over EP_MEM bytes, a TIS and an SQ in RDY. */
void ep_init(struct eth_player *e);
/* An RQ (vsd: VLAN stripping off) in RDY, its buffers slot n. */
void ep_rq_create(struct eth_player *e, struct ep_rq *rq, bool vsd,
		  unsigned int slot);
/* The same, its out_of_buffer drops counted in queue counter set
 * @counter_set_id (rqc.counter_set_id; 0: none). */
void ep_rq_create_counted(struct eth_player *e, struct ep_rq *rq, bool vsd,
			  unsigned int slot, uint32_t counter_set_id);
/* tirc.self_lb_block letting in frames of the TIR's own transport domain,
 * unicast (0x1) and multicast (0x2): the player sends and receives in
 * one domain. */
#define EP_SELF_LB_ALLOW 0x3u
/* A direct TIR over an RQ; self_lb: tirc.self_lb_block bits. */
struct mlx5be_obj *ep_tir_direct(struct eth_player *e, const struct ep_rq *rq,
				 unsigned int self_lb, uint32_t *tirn);
/* An RQT over n RQs and an indirect Toeplitz TIR hashing IPv4 and UDP
 * source and destination (outer selector). */
struct mlx5be_obj *ep_tir_rss(struct eth_player *e, struct ep_rq *rqs,
			      unsigned int n, const uint8_t key[40],
			      uint32_t *tirn);
/* A rule at the kernel's root: frames for dmac to dest (a TIR; NULL:
 * drop), tagged if tag != 0, at priority prio. */
struct mlx5be_obj *ep_rule_dmac(struct eth_player *e, const uint8_t dmac[6],
				struct mlx5be_obj *dest, uint32_t tag,
				uint16_t prio);
/* Post one receive WQE (the next buffer of the RQ's slot). */
void ep_post_recv(struct eth_player *e, struct ep_rq *rq);
/* The receive buffer of WQE @idx of the RQ. */
uint8_t *ep_rx_buf(struct eth_player *e, const struct ep_rq *rq,
		   unsigned int idx);
/*
 * Post a send WQE: opcode (SEND or TSO), the first @inl bytes of the frame
 * at e->mem inline in the Ethernet segment, the rest by a data segment;
 * cs_flags, mss, a VLAN to insert (0: none); signaled.  Returns its index.
 */
uint16_t ep_post_send(struct eth_player *e, uint8_t opcode, uint32_t len,
		      uint32_t inl, uint8_t cs_flags, uint16_t mss,
		      uint16_t vlan_insert);
/* Write @nbb basic blocks of WQE as they are, and ring the doorbell
 * record (a fuzzer's WQEs). */
void ep_post_raw(struct eth_player *e, const uint8_t *wqe, unsigned int nbb);
/* The SQ from ERR back to RDY (ERR -> RST -> RDY), its ring from 0. */
void ep_sq_reset(struct eth_player *e);
/* The state QUERY_SQ / QUERY_RQ report. */
unsigned int ep_sq_state(struct eth_player *e);
void ep_fini(struct eth_player *e);

#endif /* MLX5EMU_TESTS_UNIT_ENGINE_ETH_PLAYER_H */
