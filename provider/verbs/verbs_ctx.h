/* SPDX-License-Identifier: MIT */
/*
 * What the verbs object areas (PD, MR, CQ, comp channel, AH; later QP and
 * SRQ) share per context: object handles as uverbs numbers them, the PRM
 * command helpers with the kernel's status-to-errno mapping, the UAR page
 * CQ doorbells ring, and the table that finds a queue by the user index its
 * CQEs carry.
 */
#ifndef MLX5EMU_PROVIDER_VERBS_VERBS_CTX_H
#define MLX5EMU_PROVIDER_VERBS_VERBS_CTX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "provider/backend/backend.h"

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

	unsigned int rand_state;	/* AH UDP source ports */
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
 * The errno the kernel's mlx5_cmd_exec() gives for a firmware status
 * (cmd_status_to_err in mlx5_core cmd.c); 0 for OK.
 */
int prov_cmd_status_errno(const void *out);

/*
 * A PRM object created on behalf of a verb, as the kernel creates it: NULL
 * with errno set; a firmware failure is the status's errno, not EREMOTEIO.
 */
struct mlx5be_obj *prov_obj_create(struct prov_context *pctx, const void *in,
				   size_t inlen, void *out, size_t outlen);

/* Destroys a PRM object; 0 or a positive errno. */
int prov_obj_destroy(struct prov_context *pctx, struct mlx5be_obj *obj);

/* Registers @size bytes at @addr (4 KiB pages); NULL with errno. */
struct mlx5be_umem *prov_umem_reg(struct prov_context *pctx, void *addr,
				  size_t size, uint32_t access, uint32_t *id);
void prov_umem_dereg(struct prov_context *pctx, struct mlx5be_umem *umem);

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
