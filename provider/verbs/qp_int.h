/* SPDX-License-Identifier: MIT */
/*
 * What the QP files pass between themselves (not for the rest of the
 * provider; qp.h is the area's header):
 *
 *   qp_caps.c    libmlx5's queue sizing and the kernel's view of the caps
 *   qp_check.c   the creation checks of libmlx5, libibverbs/uverbs and
 *                mlx5_ib, and the timestamp format
 *   qp_wq.c      work-queue memory (ring, doorbell record, umems) and the
 *                async-event count destroy waits on, for QPs and SRQs
 *   qp_create.c  CREATE_QP, ibv_create_qp(_ex), ibv_open_qp
 *   qp_raw.c     raw packet QPs: TIS, SQ, RQ, TIR and their states
 *   qp_destroy.c ibv_destroy_qp and the uses a QP drops
 *   qp.c         receive posting and the op slots
 */
#ifndef MLX5EMU_PROVIDER_VERBS_QP_INT_H
#define MLX5EMU_PROVIDER_VERBS_QP_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/verbs/qp.h"
#include "provider/core/bits.h"

struct mlx5be_umem;
struct prov_context;
struct prov_qbuf;

/* The vendor flags libmlx5 passes to the kernel (mlx5-abi.h). */
enum {
	PROV_QPF_SIGNATURE = 1 << 0,
	PROV_QPF_SCATTER_CQE = 1 << 1,
	PROV_QPF_TUNNEL_OFFLOADS = 1 << 2,
	PROV_QPF_SELF_LB_UC = 1 << 6,
	PROV_QPF_SELF_LB_MC = 1 << 7,
	PROV_QPF_ALLOW_SCATTER_CQE = 1 << 8,
	PROV_QPF_PACKET_BASED_CREDIT = 1 << 9,
	PROV_QPF_DCI_STREAM = 1 << 11,
};

/* The XOR of @len bytes (libmlx5's calc_sig() is its complement). */
static inline uint8_t prov_xor8(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t x = 0;

	while (len--)
		x ^= *b++;
	return x;
}

static inline bool prov_qp_is_xrc_tgt(enum ibv_qp_type t)
{
	return t == IBV_QPT_XRC_RECV;
}

/* qpc.st of a QP of type @t (a DCI is a DCI whatever its type). */
static inline uint32_t prov_qp_st(const struct prov_qp *qp, enum ibv_qp_type t)
{
	if (qp->dc == PROV_QP_DCI)
		return MLX5_QPC_ST_DCI;
	switch (t) {
	case IBV_QPT_UC:
		return MLX5_QPC_ST_UC;
	case IBV_QPT_UD:
		return MLX5_QPC_ST_UD;
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		return MLX5_QPC_ST_XRC;
	default:
		return MLX5_QPC_ST_RC;
	}
}

/*
 * qp.c: mlx5_wq_overflow(): would @nreq more WQEs overrun @wq?  Its tail
 * moves as @cq is polled, so a full-looking queue is looked at again
 * under that CQ's lock.  A queue of no WQEs is always full.
 */
bool prov_wq_overflow(struct prov_wq *wq, unsigned int nreq, struct ibv_cq *cq);

/* qp_caps.c: mlx5_calc_wq_size(): the buffer size (RQ first) in *size,
 * 0 or an errno; the caps in @attr come back as libmlx5 reports them. */
int prov_qp_calc_wq_size(struct prov_context *pctx, struct prov_qp *qp,
			 struct ibv_qp_init_attr_ex *attr, size_t *size);
/* The receive queue the kernel computes must be the one libmlx5 sized. */
int prov_qp_check_rq(struct prov_qp *qp, const struct ibv_qp_init_attr_ex *attr);

/* qp_check.c: 0 or an errno each. */
int prov_qp_check_lib(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr,
		      struct mlx5dv_qp_init_attr *dv, uint32_t *flags);
int prov_qp_check_uverbs(struct ibv_context *context,
			 struct ibv_qp_init_attr_ex *attr);
int prov_qp_check_kernel(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr,
			 uint32_t *vflags);
/* mlx5_ib's get_ts_format() for one CQ (NULL: none) given what the
 * device supports: 0 and *fmt (MLX5_TIMESTAMP_FORMAT_*), or EOPNOTSUPP. */
int prov_qp_cq_ts_format(struct ibv_cq *cq, bool fr, bool rt, int *fmt);
/* get_qp_ts_format() into qp->ts_format. */
int prov_qp_set_ts_format(struct prov_qp *qp,
			  const struct ibv_qp_init_attr_ex *attr);

/* qp_wq.c: work-queue memory, QPs and SRQs alike. */
/* A doorbell record, of @pd's allocator when it is a parent domain with
 * one (prov_qbuf_dbr_alloc): 0 or an errno. */
int prov_wq_db_alloc(struct prov_context *pctx, struct prov_qbuf *mem,
		     __be32 **db, struct ibv_pd *pd);
/* The ring and the record as umems, their ids for the CREATE command. */
int prov_wq_umem_reg(struct prov_context *pctx, struct prov_qbuf *buf,
		     __be32 *db, struct mlx5be_umem **buf_umem,
		     struct mlx5be_umem **db_umem, uint32_t *buf_id,
		     uint32_t *db_id);
void prov_wq_mem_free(struct prov_context *pctx, struct prov_qbuf *buf,
		      struct prov_qbuf *db_mem, __be32 **db,
		      struct mlx5be_umem **buf_umem, struct mlx5be_umem **db_umem);
/* libibverbs' destroy: wait until every read event is acknowledged. */
void prov_wq_wait_events(pthread_mutex_t *mutex, pthread_cond_t *cond,
			 const uint32_t *completed, const uint32_t *reported);
void prov_wq_event_reported(pthread_mutex_t *mutex, uint32_t *reported);
/* The umem ids of a QP's memory (0: none): the ring (a raw packet QP's
 * RQ), a raw packet QP's SQ ring, the doorbell record. */
struct prov_qp_mem_ids {
	uint32_t buf;
	uint32_t sq_buf;
	uint32_t db;
};

/* mlx5_alloc_qp_buf() and the doorbell record. */
int prov_qp_alloc_mem(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr,
		      struct prov_qp_mem_ids *ids);
void prov_qp_free_mem(struct prov_qp *qp);

/* qp_modify_table.c: the IBA table (DCIs their own), the command of a
 * transition (0: none) and the optional parameters it takes of @mask. */
bool prov_qp_trans_is_ok(const struct prov_qp *qp, enum ibv_qp_state cur,
			 enum ibv_qp_state next, uint32_t mask);
uint16_t prov_qp_trans_opcode(enum ibv_qp_state cur, enum ibv_qp_state next);
uint32_t prov_qp_trans_optpar(const struct prov_qp *qp, enum ibv_qp_state cur,
			      enum ibv_qp_state next, uint32_t mask);

/* qp_modify_path.c: an AV's checks before the command (@mac: the
 * destination MAC, @v2: a RoCE v2 source GID), a path into the qpc, the
 * access bits: 0 or an errno each. */
int prov_qp_check_av(struct prov_qp *qp, const struct ibv_ah_attr *ah,
		     uint8_t mac[6], bool *v2);
int prov_qp_set_path(struct prov_qp *qp, const struct ibv_ah_attr *ah,
		     void *path, uint8_t port, uint32_t mask,
		     const struct ibv_qp_attr *attr, bool alt,
		     const uint8_t mac[6], bool v2);
int prov_qp_set_access(struct prov_qp *qp, const struct ibv_qp_attr *attr,
		       uint32_t mask, void *qpc);

/* qp_create.c: the QP object itself, and the verbs_context ops behind
 * ibv_create_qp_ex and ibv_open_qp. */
struct prov_qp *prov_qp_alloc(struct prov_context *pctx);
void prov_qp_free(struct prov_qp *qp);
struct ibv_qp *prov_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr);
struct ibv_qp *prov_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr);

/* qp_raw.c: the objects of a raw packet QP (create: after its memory,
 * user index and register; 0 or an errno, nothing left on failure), its
 * transitions (@op: the QP command the transition takes, @rate its rate
 * limit), the state its
 * queues say it is in, and their destruction. */
int prov_qp_raw_create(struct prov_qp *qp, const struct ibv_qp_init_attr_ex *attr,
		       const struct prov_qp_mem_ids *ids, uint32_t *qpn);
int prov_qp_raw_modify(struct prov_qp *qp, uint16_t op, uint32_t rate);
int prov_qp_raw_query(struct prov_qp *qp, enum ibv_qp_state *state);
void prov_qp_raw_destroy(struct prov_qp *qp);
/*
 * A raw packet QP's Ethernet segment (qp_eth.c).  prov_eth_seg_init
 * clears it and sets the checksum flags of IBV_SEND_IP_CSUM (EINVAL when
 * the device does no checksum offload).  prov_eth_inline_hdrs copies the
 * context's inline header bytes from the data, given as @n SGEs or
 * buffers (the other NULL), and says where the rest starts (element,
 * offset in it); EINVAL without an element or without enough bytes.
 * prov_eth_tso_hdrs writes TSO's MSS and @hdr_sz header bytes (EINVAL
 * below an L2 header or above max_tso_header), moving *seg past them and
 * adding their units to *ds.  prov_eth_seg_size: the segment's bytes
 * without TSO.
 */
int prov_eth_seg_init(struct prov_qp *qp, struct mlx5_wqe_eth_seg *eseg,
		      unsigned int send_flags);
int prov_eth_inline_hdrs(struct prov_qp *qp, struct mlx5_wqe_eth_seg *eseg,
			 const struct ibv_sge *sges,
			 const struct ibv_data_buf *bufs, size_t n,
			 unsigned int *index, size_t *offset);
int prov_eth_tso_hdrs(struct prov_qp *qp, struct mlx5_wqe_eth_seg *eseg,
		      const void *hdr, size_t hdr_sz, uint16_t mss, void **seg,
		      unsigned int *ds);
size_t prov_eth_seg_size(const struct prov_qp *qp);
/* libmlx5's eth_min_inline_size for the context: 0 or 18 bytes. */
uint8_t prov_qp_raw_eth_min_inline(struct prov_context *pctx);
/* tirc.self_lb_block for the vendor flags @vflags. */
uint32_t prov_qp_raw_lb_block(uint32_t vflags);
/* The QP's new TIR, made with the loopback bits of @vflags, takes the
 * kernel's local loopback use those bits call for; on failure the TIR
 * is gone again.  0 or an errno. */
int prov_qp_raw_tir_lb(struct prov_qp *qp, uint32_t vflags);
/* get_sq_ts_format() / get_rq_ts_format(): a queue's timestamp format
 * from its own capability (@sq or RQ) and its CQ; 0 or EOPNOTSUPP. */
int prov_wq_ts_format(struct prov_context *pctx, struct ibv_cq *cq, bool sq,
		      uint8_t *fmt);

/* What every RQ the provider makes (a raw packet QP's, a WQ's) says in
 * create_rq_in: cyclic, in its own memory, RST, flushed in error, its
 * ring and record in umems; VLAN stripping off unless @strip.  The
 * callers add their flags. */
struct prov_rq_init {
	uint32_t uidx, cqn, pdn;
	uint8_t ts_format;
	bool strip;
	unsigned int log_stride, log_size;
	uint32_t buf_id, db_id;
	uint64_t buf_offset;
};
void prov_rq_create_in(void *in, const struct prov_rq_init *r);

/* qp_rss.c: mlx5_ib's own checks of an RSS QP (@vflags, @cflags: the
 * vendor and create flags left): 0 or EINVAL. */
int prov_qp_rss_check_kernel(const struct prov_qp *qp,
			     const struct ibv_qp_init_attr_ex *attr,
			     uint32_t vflags, uint32_t cflags);

/* qp_destroy.c: the PD/CQ/SRQ/XRCD uses a real QP holds. */
void prov_qp_drop_uses(struct prov_qp *qp);

#endif /* MLX5EMU_PROVIDER_VERBS_QP_INT_H */
