/* SPDX-License-Identifier: MIT */
/*
 * What the verbs object areas (PD, MR, CQ, comp channel, AH, QP, SRQ)
 * share per context: object handles as uverbs numbers them, the UAR page
 * CQ doorbells ring, and the table that finds a queue by the user index its
 * CQEs carry.  The PRM command helpers they use are provider/core/cmd.h.
 */
#ifndef MLX5EMU_PROVIDER_VERBS_VERBS_CTX_H
#define MLX5EMU_PROVIDER_VERBS_VERBS_CTX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <urcu/list.h>

#include "backend/backend.h"
#include "provider/core/cmd.h"

struct prov_comp_channel;
struct prov_context;
struct prov_cq_rsc;

/* libmlx5's uidx table: 2^24 user indexes in 4096 lazily allocated blocks. */
#define PROV_UIDX_SHIFT 12
#define PROV_UIDX_BLOCKS (1u << (24 - PROV_UIDX_SHIFT))
#define PROV_UIDX_MASK ((1u << PROV_UIDX_SHIFT) - 1)

struct prov_verbs_ctx {
	atomic_uint next_handle;	/* uverbs object handles */
	pthread_mutex_t lock;		/* guards the fields below */

	/* The UAR page CQ arm doorbells are written to (libmlx5's
	 * cq_uar_reg) and its index for cqc.uar_page. */
	void *cq_uar;
	uint32_t cq_uar_page;
	struct mlx5be_uar *own_uar;	/* only when DEVX had no NC UAR */
	void *own_uar_map;		/* mmap()ed by us */
	int cq_uar_err;			/* why there is none (errno) */

	/* user index -> queue (prov_rsc_*); blocks never move once made. */
	_Atomic(struct prov_cq_rsc **) uidx[PROV_UIDX_BLOCKS];
	uint32_t uidx_used[PROV_UIDX_BLOCKS];

	struct cds_list_head odp_mrs;	/* ODP MRs, for advise_mr */
	unsigned int rand_state;	/* AH UDP source ports */
	struct prov_comp_channel *channels;	/* comp_channel.c */
};

/* Installs the op slots of PD, MR, CQ and AH (context_ops.c). */
void prov_verbs_set_ops(struct prov_context *pctx);

/* Area hooks (context_ops.c's prov_areas[]). */
int prov_verbs_ctx_init(struct prov_context *pctx);
void prov_verbs_ctx_fini(struct prov_context *pctx);

struct prov_verbs_ctx *prov_verbs_ctx(struct prov_context *pctx);

/* A new uverbs object handle (unique within the context). */
uint32_t prov_handle_alloc(struct prov_context *pctx);

/*
 * User indexes (cqe_version 1): a queue that completes into CQs stores
 * itself and puts the index in its context's user_index; CQ polling finds
 * it from the CQE's srqn_uidx.  prov_rsc_store gives 0 and the index, or
 * a positive errno (ENOMEM when all 2^24 are taken).
 */
int prov_rsc_store(struct prov_context *pctx, struct prov_cq_rsc *rsc,
		   uint32_t *uidx);
void prov_rsc_clear(struct prov_context *pctx, uint32_t uidx);
struct prov_cq_rsc *prov_rsc_find(struct prov_context *pctx, uint32_t uidx);

/* A pseudo-random number from the context's state (thread safe). */
uint32_t prov_random(struct prov_context *pctx);

#endif /* MLX5EMU_PROVIDER_VERBS_VERBS_CTX_H */
