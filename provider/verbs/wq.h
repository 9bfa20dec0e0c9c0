/* SPDX-License-Identifier: MIT */
/*
 * Receive work queues (wq.c: ibv_create_wq, ibv_modify_wq, ibv_destroy_wq,
 * mlx5dv_create_wq, ibv_post_wq_recv), the RQ objects an RSS QP spreads
 * frames over, and their indirection tables (rwq_ind.c:
 * ibv_create_rwq_ind_table, an RQT), which RSS QPs (qp_rss.c) name.
 */
#ifndef MLX5EMU_PROVIDER_VERBS_WQ_H
#define MLX5EMU_PROVIDER_VERBS_WQ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "provider/verbs/cq.h"
#include "provider/verbs/qp.h"

struct mlx5be_obj;
struct mlx5be_umem;
struct prov_context;

/* A receive WQ: libmlx5's mlx5_rwq and mlx5_ib's RQ. */
struct prov_rwq {
	struct ibv_wq wq;
	struct prov_cq_rsc rsc;
	struct prov_context *pctx;
	struct mlx5be_obj *obj;		/* the RQ */
	uint32_t uidx;
	struct prov_qbuf buf;
	size_t buf_size;
	struct mlx5be_umem *buf_umem;
	__be32 *db;
	struct prov_qbuf db_mem;
	struct mlx5be_umem *db_umem;
	struct prov_wq rq;
	bool wq_sig;
	uint8_t rq_state;		/* MLX5_RQC_STATE_*, the kernel's */
	uint32_t flags;			/* IBV_WQ_FLAGS_* in force */
	atomic_int use;			/* indirection tables naming it */
	struct prov_ev_obj ev;
	uint32_t events_reported;
};

static inline struct prov_rwq *to_prov_rwq(struct ibv_wq *wq)
{
	return (struct prov_rwq *)wq;
}

/* An indirection table: the RQT, its size, the WQs it holds a use of. */
struct prov_rwq_ind {
	struct ibv_rwq_ind_table tbl;
	struct prov_context *pctx;
	struct mlx5be_obj *obj;
	uint32_t log_size;
	unsigned int nwqs;
	struct ibv_wq **wqs;
	atomic_int use;			/* RSS QPs naming it */
};

static inline struct prov_rwq_ind *to_prov_rwq_ind(struct ibv_rwq_ind_table *t)
{
	return (struct prov_rwq_ind *)t;
}

/* The op slots of both files. */
void prov_wq_set_ops(struct prov_context *pctx);
void prov_rwq_ind_set_ops(struct prov_context *pctx);

/* The RQN of a WQ; a use of it by a table. */
uint32_t prov_rwq_rqn(struct ibv_wq *wq);
void prov_rwq_hold(struct ibv_wq *wq, int delta);

/* A use of a table by an RSS QP, and its return. */
void prov_rwq_ind_hold(struct ibv_rwq_ind_table *t, int delta);

/* mlx5dv_init_obj's RWQ part. */
int prov_rwq_dv(struct ibv_wq *wq, struct mlx5dv_rwq *out);

/* qp_rss.c: an RSS QP (libmlx5's mlx5_cmd_create_rss_qp, then uverbs and
 * mlx5_ib's create_rss_raw_qp_tir): 0 or an errno, with its TIR. */
int prov_qp_rss_create(struct prov_qp *qp, struct ibv_context *context,
		       struct ibv_qp_init_attr_ex *attr, uint32_t vflags);

#endif /* MLX5EMU_PROVIDER_VERBS_WQ_H */
