/* SPDX-License-Identifier: MIT */
/*
 * The send queue as libmlx5 44 fills it, shared by ibv_post_send
 * (qp_send.c) and the ibv_wr_* API (qp_wr.c): where a WQE sits in the
 * ring, the segments WQEs are made of, the checks both make, and ringing
 * the doorbell (sq.c).
 *
 * A WQE starts on a 64-byte basic block (WQEBB) at index cur_post and is
 * a run of 16-byte units (its DS count, in the control segment's qpn_ds)
 * that may run past the end of the ring and go on at its start.
 */
#ifndef MLX5EMU_PROVIDER_VERBS_SQ_H
#define MLX5EMU_PROVIDER_VERBS_SQ_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "provider/verbs/ah.h"
#include "provider/verbs/qp.h"

/* libmlx5's struct mlx5_wqe_xrc_seg (wqe.h, not installed). */
struct prov_wqe_xrc_seg {
	__be32 xrc_srqn;
	uint8_t rsvd[12];
};

_Static_assert(sizeof(struct prov_wqe_xrc_seg) == PROV_WQE_XRC_SZ, "xrc seg");
_Static_assert(sizeof(struct mlx5_wqe_datagram_seg) == PROV_WQE_DATAGRAM_SZ,
	       "datagram seg");
_Static_assert(sizeof(struct mlx5_wqe_ctrl_seg) == PROV_WQE_CTRL_SZ, "ctrl seg");

/* The 16-byte units of @bytes, rounded up. */
#define PROV_DS(bytes) (((bytes) + 15) / 16)

static inline void *prov_sq_wqe(const struct prov_qp *qp, unsigned int idx)
{
	return (char *)qp->sq_start + (size_t)idx * PROV_SEND_WQE_BB;
}

/* A segment pointer that reached the end of the ring goes on at its start. */
static inline void *prov_sq_wrap(const struct prov_qp *qp, void *seg)
{
	return seg == qp->sq_end ? qp->sq_start : seg;
}

static inline void prov_set_raddr_seg(void *seg, uint64_t raddr, uint32_t rkey)
{
	struct mlx5_wqe_raddr_seg *r = seg;

	r->raddr = htobe64(raddr);
	r->rkey = htobe32(rkey);
	r->reserved = 0;
}

/* Compare-and-swap carries both operands; fetch-and-add its addend only. */
static inline void prov_set_atomic_seg(void *seg, bool cmp_swap, uint64_t swap,
				       uint64_t compare_add)
{
	struct mlx5_wqe_atomic_seg *a = seg;

	if (cmp_swap) {
		a->swap_add = htobe64(swap);
		a->compare = htobe64(compare_add);
	} else {
		a->swap_add = htobe64(compare_add);
	}
}

/* The AH's address vector, the destination QP (extended AV) and Q_Key. */
static inline void prov_set_datagram_seg(void *seg, struct ibv_ah *ah,
					 uint32_t remote_qpn,
					 uint32_t remote_qkey)
{
	struct mlx5_wqe_datagram_seg *d = seg;

	memcpy(&d->av, prov_ah_av(ah), sizeof(d->av));
	d->av.dqp_dct = htobe32(remote_qpn | MLX5_EXTENDED_UD_AV);
	d->av.key.qkey.qkey = htobe32(remote_qkey);
}

static inline void prov_set_data_seg(void *seg, uint32_t length, uint32_t lkey,
				     uint64_t addr)
{
	struct mlx5_wqe_data_seg *d = seg;

	d->byte_count = htobe32(length);
	d->lkey = htobe32(lkey);
	d->addr = htobe64(addr);
}

/* The inline segment's header once @len bytes follow it; its DS count. */
static inline unsigned int prov_close_inline_seg(void *seg, uint32_t len)
{
	((struct mlx5_wqe_inl_data_seg *)seg)->byte_count =
		htobe32(len | MLX5_INLINE_SEG);
	return PROV_DS(len + sizeof(struct mlx5_wqe_inl_data_seg));
}

/*
 * Starts the WQE of the @nreq'th work request of a post at sq.cur_post:
 * records its wr_id, where it starts (for the completion that retires it)
 * and the wc opcode a CQE cannot tell (0 for the others); writes the
 * control segment but for qpn_ds: index and opcode, signature and stream
 * cleared, fm_ce_se from @send_flags (fence, signaled, solicited) and the
 * QP's sq_sig_all, imm 0.  Returns the control segment.
 */
struct mlx5_wqe_ctrl_seg *prov_sq_begin(struct prov_qp *qp, unsigned int nreq,
					uint64_t wr_id, unsigned int send_flags,
					uint8_t opcode, uint32_t wc_opcode);

/*
 * Ends a WQE of @ds units: qpn_ds, the signature when MLX5_QP_SIGNATURE is
 * set, and cur_post past its basic blocks.  prov_sq_commit() does the
 * last two only (a raw WQE keeps the application's qpn_ds).
 */
void prov_sq_end(struct prov_qp *qp, struct mlx5_wqe_ctrl_seg *ctrl,
		 unsigned int ds);
void prov_sq_commit(struct prov_qp *qp, struct mlx5_wqe_ctrl_seg *ctrl,
		    unsigned int ds);

/*
 * Copies @len bytes to @dst in the ring, going on at its start past the
 * end; returns where the copy ended.
 */
void *prov_sq_copy(struct prov_qp *qp, void *dst, const void *src, size_t len);

/*
 * post_send_db(): @nreq WQEs were written, the last one @ctrl of @ds
 * units.  Moves sq.head, publishes cur_post in the doorbell record (after
 * the WQEs), then writes the QP's register: a lone WQE of 2..bf.size/16
 * units is copied whole (BlueFlame, in 64-byte blocks) when inline data
 * or MLX5_POST_SEND_PREFER_BF (the default) ask for it and MLX5_SHUT_UP_BF
 * does not forbid it, anything else rings with the control segment's
 * first 8 bytes; each write goes to the other half of the register than
 * the last.  Nothing for @nreq 0.  The caller tells the device
 * (prov_progress) once it let go of the queue.
 */
void prov_sq_ring(struct prov_qp *qp, unsigned int nreq, bool inl,
		  unsigned int ds, struct mlx5_wqe_ctrl_seg *ctrl);

/*
 * set_bind_wr(): the UMR control, mkey context and (when binding) KLM
 * segments of a memory window bind (@bi->length) or invalidation (0) of
 * a window of @type at *@seg, the new key byte from @rkey; advances *@seg
 * (wrapping) and *@ds.  EOPNOTSUPP past 2 GiB (one KLM's reach).
 */
int prov_sq_bind_segs(struct prov_qp *qp, void **seg, unsigned int *ds,
		      enum ibv_mw_type type, uint32_t rkey,
		      const struct ibv_mw_bind_info *bi);

/* The mkey context's access_flags for ibv_access_flags @acc (libmlx5's
 * set_umr_mkey_seg and get_umr_mr_flags). */
uint8_t prov_umr_access_flags(unsigned int acc);

/* qp_wr.c: a builder's start (NULL, and ENOMEM in the batch, when the
 * queue is full) and the batch's first error, for qp_wr_mkey.c. */
struct mlx5_wqe_ctrl_seg *prov_wr_begin(struct prov_qp *qp, uint8_t opcode,
					uint32_t wc_opcode);
void prov_wr_fail(struct prov_qp *qp, int err);

/* qp_wr.c: the ibv_wr_* API of a QP created with send_ops_flags (0 or
 * EOPNOTSUPP), and the wr_complete its state allows. */
int prov_qp_wr_init(struct prov_qp *qp, const struct ibv_qp_init_attr_ex *attr,
		    const struct mlx5dv_qp_init_attr *dv);
void prov_qp_wr_set_state(struct prov_qp *qp, enum ibv_qp_state state);

/* qp_send.c: the post_send op. */
int prov_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);

#endif /* MLX5EMU_PROVIDER_VERBS_SQ_H */
