/* SPDX-License-Identifier: MIT */
/*
 * What the CQ files pass between themselves (cq.h is the area's header):
 *
 *   cq_poll.c    the ring (ownership, consumer index), CQE parsing,
 *                ibv_poll_cq, arming
 *   cq_ex.c      the ibv_cq_ex poll and read functions
 *   cq_resize.c  ibv_resize_cq
 *   cq_modify.c  ibv_modify_cq
 *   cq.c         the ring's memory, creation
 */
#ifndef MLX5EMU_PROVIDER_VERBS_CQ_INT_H
#define MLX5EMU_PROVIDER_VERBS_CQ_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm_cmd.h"
#include "provider/verbs/cq.h"

/* libmlx5's poll results. */
enum {
	CQ_OK = 0,
	CQ_EMPTY = -1,
	CQ_POLL_ERR = -2,
};

/* Entry @n (any index: the ring's size wraps it) of a ring of @ncqe
 * entries of @cqe_sz bytes, and its 64-byte CQE (the second half of a
 * 128-byte entry). */
static inline void *prov_cqe_at(void *buf, uint32_t ncqe, uint32_t cqe_sz,
				uint32_t n)
{
	return (char *)buf + (size_t)(n & (ncqe - 1)) * cqe_sz;
}

static inline struct mlx5_cqe64 *prov_cqe64_of(void *entry, uint32_t cqe_sz)
{
	return (struct mlx5_cqe64 *)((char *)entry + cqe_sz -
				     sizeof(struct mlx5_cqe64));
}

static inline void *prov_cq_entry(struct prov_cq *cq, uint32_t n)
{
	return prov_cqe_at(cq->buf.buf, cq->ncqe, cq->cqe_sz, n);
}

static inline struct mlx5_cqe64 *prov_cq_cqe64(struct prov_cq *cq, uint32_t n)
{
	return prov_cqe64_of(prov_cq_entry(cq, n), cq->cqe_sz);
}

/* The CQ context's cqe_sz for @cq's entries, in CREATE_CQ and resize. */
static inline unsigned int prov_cq_cqc_sz(const struct prov_cq *cq)
{
	if (cq->cqe_sz == 64)
		return MLX5_CQC_CQE_SZ_64_BYTES;
	return cq->cqe_pad ? MLX5_CQC_CQE_SZ_128_PAD : MLX5_CQC_CQE_SZ_128_BYTES;
}

/* The consumer side's lock (none for a single-threaded CQ). */
void prov_cq_lock(struct prov_cq *cq);
void prov_cq_unlock(struct prov_cq *cq);

/* Entry @n's CQE when software owns it (a valid opcode, the owner bit
 * of its pass over the ring), else NULL. */
struct mlx5_cqe64 *prov_cq_sw_cqe(struct prov_cq *cq, uint32_t n);

/* The CQE at the consumer index, consumed; NULL when hardware owns it. */
struct mlx5_cqe64 *prov_cq_next_cqe(struct prov_cq *cq);
/* The data-path rules on a polled CQE where the device applies none
 * (cq_fault.c), CQ lock held; then, with the lock let go, the QP of an
 * error they injected moves to ERR. */
void prov_cq_dp_fault(struct prov_cq *cq, struct mlx5_cqe64 *cqe);
void prov_cq_dp_finish(struct prov_cq *cq);

/* The consumer index into the doorbell record's set_ci dword. */
void prov_cq_update_ci(struct prov_cq *cq);

/*
 * mlx5_parse_cqe() for one consumed CQE: @wc gets every field ibv_poll_cq
 * reports and *@recorded (when given) the wc opcode the queue recorded
 * for its WQE.  CQ_OK, CQ_EMPTY (consumed, nothing to report: a resize
 * CQE) or CQ_POLL_ERR (a CQE no queue owns).
 */
/* IBV_WC_IP_CSUM_OK when the CQE says an IPv4 frame's checksums are
 * good (libmlx5's get_csum_ok), else 0. */
unsigned int prov_cq_csum_ok(const struct mlx5_cqe64 *cqe);
int prov_cq_parse(struct prov_cq *cq, const struct mlx5_cqe64 *cqe,
		  struct ibv_wc *wc, enum ibv_wc_opcode *recorded);

/* cq.c: a ring of @ncqe entries of @cqe_sz bytes, each one invalid
 * (mlx5_alloc_cq_buf): 0 or an errno. */
int prov_cq_ring_alloc(struct prov_qbuf *buf, const struct prov_qbuf_ext *ext,
		       struct prov_qbuf_xalloc *xa,
		       uint32_t ncqe, uint32_t cqe_sz);
/* The allocator of the CQ's parent domain, else NULL. */
const struct prov_qbuf_ext *prov_cq_ext(const struct prov_cq *cq);

/* cq_resize.c: mlx5_cq_resize_copy_cqes() into @ring of @ncqe entries;
 * false when software's part of the old ring holds no resize CQE. */
bool prov_cq_resize_copy(struct prov_cq *cq, void *ring, uint32_t ncqe);

/* handle_good_req(): the opcode (and byte_len, flags) of a requester CQE,
 * @recorded standing for what the CQE does not tell. */
void prov_cq_req_opcode(const struct mlx5_cqe64 *cqe, struct ibv_wc *wc,
			enum ibv_wc_opcode recorded);

#endif /* MLX5EMU_PROVIDER_VERBS_CQ_INT_H */
