/* SPDX-License-Identifier: MIT */
/*
 * Completion queues (cq.c: create/destroy, mlx5dv_create_cq; cq_poll.c:
 * polling and arming; cq_ex.c: the ibv_cq_ex poll functions; cq_resize.c:
 * ibv_resize_cq; cq_modify.c: ibv_modify_cq; comp_channel.c: completion
 * channels and their events; cq_int.h: what those files share).
 */
#ifndef MLX5EMU_PROVIDER_VERBS_CQ_H
#define MLX5EMU_PROVIDER_VERBS_CQ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "provider/core/qbuf.h"
#include "provider/verbs/events.h"

struct mlx5be_obj;
struct mlx5be_umem;
struct prov_context;

/* mlx5_ib.h MLX5_MAX_CQ_COUNT / MLX5_MAX_CQ_PERIOD: the largest values of
 * cqc.cq_max_count and cqc.cq_period. */
#define PROV_MAX_CQ_COUNT ((1u << PRM_BIT_SZ(cqc, cq_max_count)) - 1)
#define PROV_MAX_CQ_PERIOD ((1u << PRM_BIT_SZ(cqc, cq_period)) - 1)

/* libmlx5's doorbell record dwords. */
enum {
	PROV_CQ_SET_CI = 0,
	PROV_CQ_ARM_DB = 1,
};

/*
 * A queue that completes into CQs (a QP, an SRQ, an RWQ), stored in the
 * context's user-index table (prov_rsc_store); its CQEs carry the index in
 * srqn_uidx (cqe_version 1).  Polling asks it which work request a CQE
 * completes; the queue's owner implements the callbacks.
 */
enum prov_cq_rsc_type {
	PROV_RSC_QP,
	PROV_RSC_SRQ,
	PROV_RSC_RWQ,
};

struct prov_cq_rsc {
	enum prov_cq_rsc_type type;
	/* A QP whose receives go to an SRQ: that SRQ's resource. */
	struct prov_cq_rsc *srq;
	/*
	 * Requester (REQ, REQ_ERR) completion of the send WQE at
	 * @wqe_counter: returns its wr_id, retires the send queue up to it
	 * and, for the WQE opcodes a CQE does not tell (UMR, SET_PSV, NOP,
	 * MMO), sets *@opcode to the work completion opcode recorded at post.
	 */
	uint64_t (*sq_complete)(struct prov_cq_rsc *rsc, uint16_t wqe_counter,
				enum ibv_wc_opcode *opcode);
	/*
	 * Responder (RESP_*, RESP_ERR) completion: a receive queue returns
	 * the wr_id of its oldest posted receive and retires it; an SRQ the
	 * wr_id of the WQE at @wqe_counter and frees it.
	 */
	uint64_t (*rq_complete)(struct prov_cq_rsc *rsc, uint16_t wqe_counter);
	/* libmlx5's MLX5_RX_CSUM_VALID: a raw packet QP on an Ethernet port
	 * of a device with checksum offload; its receives tell
	 * IBV_WC_IP_CSUM_OK from the CQE. */
	bool rx_csum_valid;
};

/*
 * A completion channel: a DEVX event channel with OMIT_DATA (events.h), its
 * CQs subscribed to their completions with their cookie.  Its fd is an
 * epoll set of that channel's fd and a pipe of cookies still to deliver
 * (those the destroy of a CQ took off the channel), so it polls readable
 * while events wait and honours O_NONBLOCK.
 */
struct prov_comp_channel {
	struct ibv_comp_channel ch;
	struct prov_context *pctx;
	struct mlx5be_event_channel *be;
	int stash[2];			/* the pipe: read, write */
	/* the context's channels (prov_verbs_ctx, its lock) */
	struct prov_comp_channel *prev, *next;
};

static inline struct prov_comp_channel *
to_prov_channel(struct ibv_comp_channel *ch)
{
	return (struct prov_comp_channel *)ch;
}

/* A CQ: ibv_cq_ex first (ibv_cq is its prefix). */
struct prov_cq {
	struct ibv_cq_ex ex;
	struct prov_context *pctx;
	struct mlx5be_obj *obj;
	uint32_t cqn;

	struct prov_qbuf buf;		/* the CQE ring */
	struct mlx5be_umem *buf_umem;
	__be32 *dbrec;			/* set_ci at 0, arm at 4 */
	struct prov_qbuf dbr_mem;	/* where dbrec came from */
	struct mlx5be_umem *dbr_umem;
	struct ibv_pd *parent;		/* IBV_CQ_INIT_ATTR_MASK_PD's */
	uint32_t cqe_sz;		/* 64 or 128 */
	bool cqe_pad;			/* 128, padded (cqc cqe_sz 2) */
	uint32_t ncqe;			/* a power of two: ibv_cq.cqe + 1 */

	pthread_spinlock_t lock;	/* the consumer side */
	bool single_threaded;
	bool extended;			/* created by create_cq_ex */
	bool dv_owned;			/* handed out by mlx5dv_init_obj */
	uint64_t wc_flags;
	uint32_t cons_index;
	uint32_t arm_sn;

	struct prov_ev_obj ev;		/* its events (events.h) */
	atomic_int use;			/* QPs, SRQs, WQs on it; -1: going */
	uint32_t comp_events_reported;	/* read by ibv_get_cq_event */
	uint32_t async_events_reported;

	/* The CQE start_poll/next_poll stand on (a copy), and what the
	 * ibv_cq_ex read functions do not find in it. */
	struct mlx5_cqe64 cur;
	enum ibv_wc_opcode cur_opcode;	/* for driver-recorded opcodes */
	bool cur_csum_valid;		/* libmlx5's MLX5_CQ_FLAGS_RX_CSUM_VALID */
	bool cur_valid;
	bool rt_ts;			/* wallclock = the CQE's real-time stamp */
	/* A completion a data-path rule turned into an error (cq_fault.c):
	 * its QP, to move to ERR once the poll lets the CQ go. */
	struct prov_qp *dp_err_qp;
};

static inline struct prov_cq *to_prov_cq(struct ibv_cq *cq)
{
	return (struct prov_cq *)cq;
}

static inline struct prov_cq *prov_cq_of_ev(struct prov_ev_obj *eo)
{
	return (struct prov_cq *)((char *)eo - offsetof(struct prov_cq, ev));
}

/* The verbs ops of the CQ area: create_cq_ex, poll_cq, req_notify_cq. */
void prov_cq_set_ops(struct prov_context *pctx);

/* Takes a use of @cq for a queue completing into it: 0 or EINVAL. */
int prov_cq_use(struct ibv_cq *cq);
void prov_cq_unuse(struct ibv_cq *cq);

/* The firmware CQ number. */
uint32_t prov_cq_cqn(struct ibv_cq *cq);

/* What mlx5dv_init_obj(MLX5DV_OBJ_CQ) gives (the application polls the
 * CQ from then on): 0 or an errno. */
int prov_cq_dv(struct ibv_cq *cq, struct mlx5dv_cq *out);

/* @cq's completions go to its channel (if any): 0 or an errno. */
int prov_cq_channel_subscribe(struct prov_cq *cq);
/* A CQ of @ch was destroyed: the events of the others move to the stash,
 * its own are dropped. */
void prov_channel_drain(struct ibv_comp_channel *ch);

/* The poll functions (cq_poll.c, cq_ex.c). */
int prov_cq_poll(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int prov_cq_arm(struct ibv_cq *cq, int solicited);
void prov_cq_ex_set_poll_ops(struct prov_cq *cq);

/* In a forked child, for a context that lost its device: each channel
 * gets a fresh epoll set under its number, of its (renewed) DEVX channel
 * and a fresh stash; the parent keeps its own. */
void prov_comp_channels_fork_child(struct prov_context *pctx);

/* ibv_modify_cq's op (cq_modify.c): 0 or an errno. */
int prov_cq_modify(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);

#endif /* MLX5EMU_PROVIDER_VERBS_CQ_H */
