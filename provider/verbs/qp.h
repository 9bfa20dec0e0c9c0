/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs (qp_create.c, qp_caps.c, qp_check.c, qp_wq.c: creation;
 * qp_destroy.c: destruction; qp.c: receive posting; qp_modify.c,
 * qp_modify_table.c, qp_modify_path.c: the state transitions; qp_query.c:
 * queries and the DEVX entries on a verbs QP; qp_dv.c: mlx5dv_create_qp,
 * DC and mlx5dv_init_obj's QP part; qp_ctx.c: the per-context state QPs
 * share; qp_int.h: what those files pass between themselves), shared
 * receive queues (srq.c) and XRC domains (xrcd.c).
 *
 * The provider plays libmlx5 and the kernel's mlx5_ib at once: it sizes
 * the queues as libmlx5 44 does, allocates the ring and the doorbell
 * record in application memory registered as umems, and issues the PRM
 * commands mlx5_ib would (CREATE_QP, the transition commands, CREATE_DCT,
 * CREATE_RMP for basic SRQs, CREATE_XRC_SRQ, ALLOC_XRCD) through the
 * backend, with the errnos both layers give.
 */
#ifndef MLX5EMU_PROVIDER_VERBS_QP_H
#define MLX5EMU_PROVIDER_VERBS_QP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/verbs/events.h"
#include "provider/verbs/cq.h"
#include "provider/core/qbuf.h"
#include "provider/core/spinlock.h"

struct mlx5be_obj;
struct mlx5be_umem;
struct prov_context;
struct prov_mkey;
struct prov_qp_ctx;
struct prov_srq;
struct prov_xrcd;
struct prov_xrcd_shared;

/*
 * The driver-side wrappers libibverbs 44 keeps around the public objects
 * (infiniband/driver.h, not installed): the same layouts under our names.
 */
enum {
	PROV_VERBS_XRCD_HANDLE = 1 << 0,
	PROV_VERBS_QP_XRCD = 1 << 0,
	PROV_VERBS_QP_EX = 1 << 1,
};

struct prov_verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

struct prov_verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct prov_verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

struct prov_verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct prov_verbs_xrcd *xrcd;
};

/* libmlx5's MLX5_SEND_WQE_BB and the segment sizes its sizing uses. */
#define PROV_SEND_WQE_BB 64u
#define PROV_WQE_CTRL_SZ 16u
#define PROV_WQE_DATA_SZ 16u
#define PROV_WQE_RADDR_SZ 16u
#define PROV_WQE_ATOMIC_SZ 16u
#define PROV_WQE_DATAGRAM_SZ 48u
#define PROV_WQE_XRC_SZ 16u
#define PROV_WQE_ETH_SZ 32u
/* libmlx5's MLX5_ETH_L2_INLINE_HEADER_SIZE and MLX5_ETH_L2_MIN_HEADER_SIZE. */
#define PROV_ETH_L2_INLINE_HEADER_SIZE 18u
#define PROV_ETH_L2_MIN_HEADER_SIZE 14u
#define PROV_WQE_INL_SZ 4u
#define PROV_WQE_UMR_CTRL_SZ 48u
#define PROV_WQE_MKEY_SZ 64u
#define PROV_WQE_KLM_PAD_SZ 64u	/* one KLM and its padding (a bind) */
#define PROV_WQE_SRQ_NEXT_SZ 16u

/* libmlx5's MLX5_INVALID_LKEY: the scatter entry that ends a list. */
#define PROV_INVALID_LKEY 0x100u

/* The doorbell record dwords (MLX5_RCV_DBR, MLX5_SND_DBR). */
enum {
	PROV_RCV_DBR = 0,
	PROV_SND_DBR = 1,
};

/* One work queue of a QP, as libmlx5 keeps it (struct mlx5_wq). */
struct prov_wq {
	uint64_t *wrid;
	unsigned int *wqe_head;		/* SQ: first WQEBB of each WQE */
	uint32_t *wr_data;		/* SQ: the wc opcode a CQE cannot tell */
	unsigned int wqe_cnt;		/* WQEs (RQ) or WQEBBs (SQ) */
	unsigned int max_post;
	unsigned int head;
	unsigned int tail;
	unsigned int cur_post;
	int max_gs;
	int qp_state_max_gs;		/* -1 until the state allows posting */
	unsigned int wqe_shift;
	size_t offset;			/* in the QP buffer */
	struct prov_spinlock lock;
};

/* A BlueFlame (or non-cached) register a QP rings (libmlx5's mlx5_bf). */
struct prov_qp_bf {
	struct prov_qp_bf *next;	/* prov_qp_ctx.bfs */
	void *reg;
	uint32_t page_id;		/* qpc.uar_page */
	off_t mmap_off;
	uint32_t buf_size;		/* 0: no BlueFlame (bf.size) */
	bool dedicated;			/* one QP at a time */
	bool nc;			/* the context's non-cached page */
	unsigned int count;		/* QPs on it */
	const struct mlx5dv_devx_uar *uar;	/* from the DEVX pool */
	/* Ringing (sq.c): the half of the register the next write goes to,
	 * flipped after each; a shared register is rung under its lock. */
	unsigned int offset;
	bool need_lock;
	pthread_spinlock_t lock;
};

/*
 * The ibv_wr_* batch being built between wr_start and wr_complete
 * (libmlx5's cur_* fields of struct mlx5_qp).
 */
struct prov_wr_batch {
	struct mlx5_wqe_ctrl_seg *ctrl;	/* the WQE being built; NULL when
					 * its builder failed */
	void *data;			/* where its next segment goes */
	unsigned int size;		/* its size so far, in 16-byte units */
	unsigned int setters;		/* setters called on it */
	unsigned int nreq;		/* WQEs built */
	bool inl;			/* inline data: BlueFlame preferred */
	struct mlx5_wqe_eth_seg *eth;	/* raw packet: the Ethernet segment
					 * the setters copy headers into
					 * (libmlx5's cur_eth); NULL: none */
	int err;			/* the batch's first error */
	struct prov_mkey *mkey;		/* the UMR being built (cur_mkey) */
	unsigned int mkey_setters;	/* setters it waits for */
	unsigned int cur_post_rb;	/* sq.cur_post at wr_start */
	uint8_t fm_cache_rb;		/* fm_cache at wr_start */
};

/* libmlx5: every create opens ECE with version 1 alone, when the context
 * supports ECE (the device's ece_support). */
#define PROV_ECE_CREATE 0x10000000u

/* The objects behind a raw packet QP (TIS, SQ, RQ, TIR) or an RSS QP
 * (its TIR alone), with the queue states mlx5_ib keeps. */
struct prov_qp_raw {
	struct mlx5be_obj *tis, *sq, *rq, *tir;
	uint32_t tisn, sqn, rqn, tirn;
	uint8_t sq_state;		/* MLX5_SQC_STATE_* */
	uint8_t rq_state;		/* MLX5_RQC_STATE_* */
	bool rss;			/* an RSS QP: no queues at all */
};

/* What kind of QP: a verbs type, or DC through IBV_QPT_DRIVER. */
enum prov_qp_dc {
	PROV_QP_NOT_DC = 0,
	PROV_QP_DCI,
	PROV_QP_DCT,
};

/*
 * A QP: the verbs_qp layout first (ibv_qp, ibv_qp_ex, comp_mask, xrcd), what
 * libmlx5's mlx5_qp keeps, and what mlx5_ib keeps for transitions.
 */
struct prov_qp {
	struct prov_verbs_qp vqp;
	struct prov_cq_rsc rsc;		/* CQ polling finds the QP by uidx */
	struct prov_context *pctx;
	struct mlx5be_obj *obj;		/* QP, or DCT once in RTR */
	enum prov_qp_dc dc;
	uint32_t uidx;			/* qpc/dctc.user_index */
	bool has_uidx;			/* stored in the uidx table */

	struct prov_qbuf buf;		/* RQ then SQ */
	size_t buf_size;
	struct mlx5be_umem *buf_umem;
	__be32 *db;			/* doorbell record: rcv, snd */
	struct prov_qbuf db_mem;	/* where db came from */
	struct mlx5be_umem *db_umem;
	struct prov_wq sq;
	struct prov_wq rq;
	void *sq_start;
	int max_inline_data;
	uint8_t sq_signal_bits;
	bool wq_sig;
	struct prov_qp_bf *bf;

	/* The send path (sq.c, qp_send.c, qp_wr.c). */
	void *sq_end;			/* end of the SQ ring (libmlx5's qend) */
	bool atomics_enabled;		/* the device does atomics */
	/* libmlx5's fm_cache: the fence the next WQE takes unless it asks
	 * for IBV_SEND_FENCE (the initiator small fence after a bind or a
	 * local invalidation). */
	uint8_t fm_cache;
	struct prov_wr_batch wr;
	struct mlx5dv_qp_ex dv_qp;	/* mlx5dv_qp_ex_from_ibv_qp_ex */

	uint32_t create_flags;		/* ibv_qp_create_flags accepted */
	uint32_t mlx5_flags;		/* mlx5dv creation flags accepted */
	uint64_t dv_ops;		/* mlx5dv send_ops_flags asked for */
	uint8_t ts_format;		/* qpc.ts_format */
	/* ECE as libmlx5 keeps it: the options ibv_set_ece gave for the next
	 * transition, and those the device answered last (ibv_query_ece). */
	uint32_t set_ece;
	uint32_t get_ece;

	/* mlx5_ib's view for transitions (qp->port, trans_qp). */
	pthread_mutex_t lock;		/* serialises modify and query */
	uint8_t port;
	uint32_t atomic_rd_en;		/* the access flags last set */
	uint8_t resp_depth;		/* max_dest_rd_atomic last set */
	enum ibv_qp_state kstate;	/* the kernel's qp->state */

	/* DCT: the create_dct_in gathered through INIT and RTR. */
	uint8_t *dct_in;

	/* XRC: the domain handle this handle came through, the domain of
	 * a real target QP, and the real QP a handle stands for (NULL: the
	 * handle is the real QP). */
	struct prov_xrcd *xrcd;
	struct prov_xrcd_shared *xshared;
	struct prov_qp *real;
	atomic_int refs;		/* real QP: handles naming it */
	struct prov_qp *tgt_next;	/* prov_xrcd_shared.tgt_qps */
	bool opened;			/* came from ibv_open_qp */

	/* Raw packet QPs (qp_raw.c): the SQ's ring apart from the RQ's, as
	 * libmlx5 keeps it, and the objects mlx5_ib makes instead of a QP. */
	struct prov_qbuf sq_buf;
	size_t sq_buf_size;
	struct mlx5be_umem *sq_buf_umem;
	struct prov_qp_raw raw;
	struct ibv_rwq_ind_table *rss_ind;	/* an RSS QP's table */
	uint16_t max_tso_header;	/* libmlx5's qp->max_tso_header */
	uint8_t eth_min_inline;		/* the context's eth_min_inline_size */
	uint32_t max_tso;		/* the device's, for IBV_WR_TSO */
	bool csum_ok;			/* MLX5_CSUM_SUPPORT_RAW_OVER_ETH */

	/* Its events (events.h); those read by the application, for
	 * destroy to wait on. */
	struct prov_ev_obj ev;
	uint32_t events_reported;
};

static inline struct prov_qp *prov_qp_of_ev(struct prov_ev_obj *eo)
{
	return (struct prov_qp *)((char *)eo - offsetof(struct prov_qp, ev));
}

static inline struct prov_qp *to_prov_qp(struct ibv_qp *qp)
{
	return (struct prov_qp *)qp;
}

/* An SRQ: the verbs_srq layout first, then libmlx5's mlx5_srq. */
struct prov_srq {
	struct prov_verbs_srq vsrq;
	struct prov_cq_rsc rsc;
	struct prov_context *pctx;
	struct mlx5be_obj *obj;		/* RMP (basic) or XRC SRQ */
	uint32_t srqn;
	uint32_t uidx;
	bool has_uidx;
	bool xrc;

	struct prov_qbuf buf;
	size_t buf_size;
	struct mlx5be_umem *buf_umem;
	__be32 *db;
	struct prov_qbuf db_mem;	/* where db came from */
	struct mlx5be_umem *db_umem;
	uint64_t *wrid;
	unsigned int max;		/* WQEs, the wait queue's included */
	int max_gs;
	unsigned int wqe_shift;
	int head;
	int tail;
	int waitq_head;
	int waitq_tail;
	uint32_t counter;
	bool wq_sig;
	struct prov_spinlock lock;
	pthread_mutex_t mutex;		/* mlx5_ib's srq->mutex */

	atomic_int use;			/* QPs and DCTs on it; -1: going */
	struct prov_ev_obj ev;		/* its events (events.h) */
	uint32_t events_reported;
};

static inline struct prov_srq *prov_srq_of_ev(struct prov_ev_obj *eo)
{
	return (struct prov_srq *)((char *)eo - offsetof(struct prov_srq, ev));
}

static inline struct prov_srq *to_prov_srq(struct ibv_srq *srq)
{
	return (struct prov_srq *)srq;
}

/*
 * An XRC domain as the kernel keeps it per device: one firmware XRCD per
 * file (inode) or per private open, shared by every handle that opened
 * it, with the XRC target QPs created in it (ibv_open_qp finds them).
 */
struct prov_xrcd_shared {
	struct prov_xrcd_shared *next;	/* prov_qp_ctx.xrcds */
	struct mlx5be_obj *obj;
	uint32_t xrcdn;
	bool has_inode;
	dev_t dev;
	ino_t ino;
	unsigned int handles;		/* open handles */
	unsigned int users;		/* XRC SRQs and target QPs */
	struct prov_qp *tgt_qps;
};

/* One ibv_open_xrcd handle. */
struct prov_xrcd {
	struct prov_verbs_xrcd vxrcd;
	struct prov_context *pctx;
	struct prov_xrcd_shared *shared;
	atomic_int refcnt;		/* objects created through it */
};

static inline struct prov_xrcd *to_prov_xrcd(struct ibv_xrcd *xrcd)
{
	return (struct prov_xrcd *)xrcd;
}

/*
 * Per-context state of the QP area (prov_context.qp_ctx): the QP
 * doorbell registers as libmlx5 44 hands them out (dedicated BlueFlame
 * registers first, then shared ones, or the non-cached page under
 * MLX5_SHUT_UP_BF), the resources mlx5_ib keeps for its own use (a PD for
 * XRC targets, an XRC domain for XRC initiators), and the XRC domains.
 */
struct prov_qp_ctx {
	pthread_mutex_t lock;
	bool shut_up_bf;		/* MLX5_SHUT_UP_BF */
	bool prefer_bf;			/* MLX5_POST_SEND_PREFER_BF */
	unsigned int max_dedicated;	/* low-latency registers */
	unsigned int max_shared;
	unsigned int n_dedicated;
	unsigned int n_shared;
	struct prov_qp_bf *bfs;		/* every register taken */
	struct prov_qp_bf *nc_bf;

	struct mlx5be_obj *p0;		/* devr->p0 */
	uint32_t p0n;
	struct mlx5be_obj *x1;		/* devr->x1 */
	uint32_t x1n;
	struct mlx5be_obj *td;		/* the ucontext's transport domain */
	uint32_t tdn;

	struct prov_xrcd_shared *xrcds;
};

/* Area hooks (context_ops.c's prov_areas[]) and the op slots. */
int prov_qp_ctx_init(struct prov_context *pctx);
void prov_qp_ctx_fini(struct prov_context *pctx);
void prov_qp_set_ops(struct prov_context *pctx);

/* qp_ctx.c: a doorbell register for a new QP, and its return. */
int prov_qp_bf_get(struct prov_context *pctx, struct prov_qp_bf **bf);
void prov_qp_bf_put(struct prov_context *pctx, struct prov_qp_bf *bf);
/* A register of a thread domain's own, rung without a lock, outside the
 * QP area's list; 0 or an errno.  fini gives it back to the DEVX pool. */
int prov_qp_bf_dedicated_init(struct prov_context *pctx, struct prov_qp_bf *bf);
void prov_qp_bf_dedicated_fini(struct prov_qp_bf *bf);
/* mlx5_ib's default resources, made on first use: 0 or an errno. */
int prov_qp_ctx_pd0(struct prov_context *pctx, uint32_t *pdn);
int prov_qp_ctx_xrcd1(struct prov_context *pctx, uint32_t *xrcdn);
/* The context's transport domain, which its TISes and TIRs name. */
int prov_qp_ctx_td(struct prov_context *pctx, uint32_t *tdn);

/* qp_create.c: the common creation path behind ibv_create_qp, the create_qp_ex
 * op and mlx5dv_create_qp (@dv may be NULL): the QP or NULL + errno. */
struct ibv_qp *prov_qp_create(struct ibv_context *context,
			      struct ibv_qp_init_attr_ex *attr,
			      struct mlx5dv_qp_init_attr *dv);
/* qp.c: one receive WQE of @rq at @wqe (libmlx5's scatter list and, with
 * @wq_sig, the signature over @num, the QP or WQ number). */
void prov_rq_wqe_write(void *wqe, const struct prov_wq *rq, bool wq_sig,
		       uint32_t num, const struct ibv_recv_wr *wr);
/* qp_modify.c: __mlx5_cq_clean(): drop the CQEs of user index @rsn
 * from @cq (NULL: none), giving @srq's WQEs back. */
void prov_qp_cq_clean(struct ibv_cq *cq, uint32_t rsn, struct prov_cq_rsc *srq);
/* qp.c: libmlx5's set_qp_operational_state(). */
void prov_qp_set_operational_state(struct prov_qp *qp, enum ibv_qp_state st);
/* The QP a handle stands for (an XRC target opened elsewhere). */
static inline struct prov_qp *prov_qp_real(struct prov_qp *qp)
{
	return qp->real ? qp->real : qp;
}

/* qp_dv.c: libmlx5's create_dct() checks (@vflags: the vendor flags
 * create_qp gathered), then mlx5_ib's create_dct(): 0 or an errno. */
int prov_dct_check_lib(const struct ibv_qp_init_attr_ex *attr,
		       const struct mlx5dv_qp_init_attr *dv, uint32_t vflags);
int prov_dct_create(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr,
		    struct mlx5dv_qp_init_attr *dv);
/* The transitions of a DCT (mlx5_ib_modify_dct): 0 or an errno. */
int prov_dct_modify(struct prov_qp *qp, struct ibv_qp_attr *attr,
		    int attr_mask);
/* QUERY_DCT as mlx5_ib_dct_query_qp: 0 or an errno. */
int prov_dct_query(struct prov_qp *qp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);

/* qp_modify.c: the kernel's modify path on @qp (a real QP). */
int prov_qp_modify(struct prov_qp *qp, struct ibv_qp_attr *attr,
		   int attr_mask);
/* The transition a PRM modify opcode performs (libmlx5's
 * modify_opcode_to_state), IBV_QPS_UNKNOWN for others. */
enum ibv_qp_state prov_qp_opcode_state(uint16_t opcode);

/* qp_dv.c: mlx5dv_init_obj's QP part. */
int prov_qp_dv(struct ibv_qp *qp, struct mlx5dv_qp *out);

/* srq.c */
void prov_srq_set_ops(struct prov_context *pctx);
int prov_srq_use(struct ibv_srq *srq);
void prov_srq_unuse(struct ibv_srq *srq);
uint32_t prov_srq_srqn(struct ibv_srq *srq);
bool prov_srq_is_xrc(struct ibv_srq *srq);
int prov_srq_dv(struct ibv_srq *srq, struct mlx5dv_srq *out);

/* xrcd.c */
void prov_xrcd_set_ops(struct prov_context *pctx);
/* An XRC SRQ or target QP created through @xrcd: a use of the handle
 * (close is EBUSY while it has any) and of the domain (which lives while
 * it has any).  prov_xrcd_handle_put/prov_xrcd_shared_put drop them. */
int prov_xrcd_use(struct ibv_xrcd *xrcd);
void prov_xrcd_handle_get(struct prov_xrcd *xrcd);
void prov_xrcd_handle_put(struct prov_xrcd *xrcd);
/* Both puts of a use prov_xrcd_use took. */
void prov_xrcd_unuse(struct prov_context *pctx, struct ibv_xrcd *xrcd);
void prov_xrcd_shared_put(struct prov_context *pctx,
			  struct prov_xrcd_shared *x);
uint32_t prov_xrcd_xrcdn(struct ibv_xrcd *xrcd);
/* Target QPs of a domain, for ibv_open_qp (find takes a reference). */
void prov_xrcd_add_tgt(struct prov_xrcd_shared *x, struct prov_qp_ctx *qc,
		       struct prov_qp *qp);
void prov_xrcd_del_tgt(struct prov_xrcd_shared *x, struct prov_qp_ctx *qc,
		       struct prov_qp *qp);
struct prov_qp *prov_xrcd_find_tgt(struct prov_xrcd *xrcd, uint32_t qpn);
void prov_xrcd_ctx_fini(struct prov_context *pctx);

/* Async events the application read (async_event.c tells). */
void prov_qp_event_reported(struct ibv_qp *qp);
void prov_srq_event_reported(struct ibv_srq *srq);

#endif /* MLX5EMU_PROVIDER_VERBS_QP_H */
