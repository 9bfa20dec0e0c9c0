/* SPDX-License-Identifier: MIT */
/* The objects of a MANA context, as rdma-core 44's providers/mana/mana.h
 * keeps them, each with its backend object. */
#ifndef MLX5EMU_PROVIDER_MANA_MANA_OBJ_H
#define MLX5EMU_PROVIDER_MANA_MANA_OBJ_H

#include "provider/mana/mana_prov.h"

enum {
	MANA_MAX_WR = 256,		/* MAX_SEND_BUFFERS_PER_QUEUE */
	MANA_CQE_SIZE = 64,		/* COMP_ENTRY_SIZE */
	MANA_MAX_TX_WQE = 512,		/* MAX_TX_WQE_SIZE */
	MANA_MAX_RX_WQE = 256,		/* MAX_RX_WQE_SIZE */
	MANA_KEY_LEN = 40,
	MANA_PAGE = 4096,
};

struct prov_mana_pd {
	struct ibv_pd ibpd;
	struct prov_mana_pd *base;	/* a parent domain's PD, else NULL */
	void *pd_context;		/* a parent domain's: the port */
	struct manabe_obj *obj;		/* a plain PD's */
};

struct prov_mana_mr {
	struct ibv_mr ibmr;
	struct manabe_obj *obj;
	int access;
};

struct prov_mana_cq {
	struct ibv_cq ibcq;
	struct manabe_obj *obj;
	void *buf;
	uint32_t cqe;
	uint32_t cqid;
	uint64_t cookie;		/* its name in channel events */
	uint32_t reported;		/* events ibv_get_cq_event returned */
	struct prov_mana_cq *next;	/* the context's CQs */
};

struct prov_mana_wq {
	struct ibv_wq ibwq;
	struct manabe_obj *obj;
	void *buf;
	uint32_t buf_size;
	uint32_t wqe, sge;
	uint32_t wqid;
};

struct prov_mana_ind {
	struct ibv_rwq_ind_table ibtbl;
	struct manabe_obj *obj;
	uint32_t size;
	struct ibv_wq **wqs;
};

struct prov_mana_qp {
	struct ibv_qp ibqp;
	struct manabe_obj *obj;
	void *send_buf;
	uint32_t send_buf_size;
	uint32_t send_wqe_count;
	uint32_t sqid, tx_vp_offset;
};

#define prov_mana_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* libmana's get_wqe_size(): 8 bytes of header, 8 of OOB, 16 per SGE, in
 * 32-byte units; align_hw_size(): a page multiple, then a power of two. */
static inline uint32_t prov_mana_wqe_size(uint32_t sge)
{
	return (sge * 16 + 16 + 31) & ~31u;
}

static inline uint32_t prov_mana_hw_size(uint64_t size)
{
	uint64_t v = 1;

	size = (size + MANA_PAGE - 1) & ~(uint64_t)(MANA_PAGE - 1);
	while (v < size)
		v <<= 1;
	return (uint32_t)v;
}

static inline struct prov_mana_pd *to_prov_mana_pd(struct ibv_pd *pd)
{
	return prov_mana_of(pd, struct prov_mana_pd, ibpd);
}

#endif /* MLX5EMU_PROVIDER_MANA_MANA_OBJ_H */
