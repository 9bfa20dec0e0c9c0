/* SPDX-License-Identifier: MIT */
/*
 * The DEVX area of the provider: mlx5dv_devx_* over the backend interface,
 * the context's UARs (the non-cached singleton and the pool of dedicated
 * BlueFlame registers, as libmlx5 44 keeps them).
 *
 * Wrappers embed the public rdma-core struct first and keep the backend
 * handle beside it; mlx5dv_devx_obj is opaque to applications, so its whole
 * definition is ours.
 */
#ifndef MLX5EMU_PROVIDER_DEVX_DEVX_H
#define MLX5EMU_PROVIDER_DEVX_DEVX_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <urcu/list.h>

#include "backend/backend.h"
#include "provider/core/context.h"
#include "provider/core/error.h"

/*
 * An opaque DEVX object: the backend handle plus what libmlx5 records.
 * Objects and umems are listed in their context so that the wrappers of
 * those the application leaves behind are freed when it closes (the backend
 * destroys the objects themselves, as the kernel does).
 */
struct mlx5dv_devx_obj {
	struct ibv_context *context;
	struct mlx5be_obj *be;
	struct cds_list_head node;	/* prov_devx_ctx.objs */
	uint16_t opcode;	/* the create command's opcode */
	uint16_t obj_type;	/* CREATE_GENERAL_OBJECT's obj_type, else 0 */
	uint32_t object_id;	/* the firmware id the create returned */
};

struct prov_devx_umem {
	struct mlx5dv_devx_umem dv;	/* first: what the application sees */
	struct ibv_context *context;
	struct mlx5be_umem *be;
	void *addr;			/* the range, for fork tracking */
	size_t size;
	struct cds_list_head node;	/* prov_devx_ctx.umems */
};

/*
 * A completion object outlives its context (like the kernel's async-cmd
 * file, which stays open until the application closes it), so it keeps the
 * backend's ops rather than the context.
 */
struct prov_devx_cmd_comp {
	struct mlx5dv_devx_cmd_comp dv;	/* dv.fd is the backend's fd */
	const struct mlx5be_ops *ops;
	struct mlx5be_cmd_comp *be;
};

/* One UAR page obtained from the backend and mapped into the process. */
struct prov_uar_page {
	struct prov_uar_page *next;
	struct mlx5be_uar *be;
	void *base;		/* the page in this process */
	bool mapped;		/* we mmap()ed it from cmd_fd (else the backend did) */
};

/*
 * A UAR as mlx5dv_devx_alloc_uar hands it out: the NC singleton, or one
 * BlueFlame register of a page (libmlx5 puts two on each 4 KiB UAR page).
 */
struct prov_devx_uar {
	struct mlx5dv_devx_uar dv;	/* first: what the application sees */
	struct prov_context *pctx;
	struct prov_uar_page *page;
	struct prov_devx_uar *next;	/* all registers of the context */
	struct prov_devx_uar *next_free;
	bool nc;		/* the singleton: free_uar leaves it alone */
	bool in_use;
};

/* Per-context state (prov_context.devx_ctx). */
struct prov_devx_ctx {
	pthread_mutex_t lock;		/* guards the lists and the BF pool */
	struct cds_list_head objs;	/* struct mlx5dv_devx_obj */
	struct cds_list_head umems;	/* struct prov_devx_umem */
	struct prov_devx_uar *nc_uar;	/* NULL when the device gave none */
	struct prov_uar_page *pages;	/* every page, NC's included */
	struct prov_devx_uar *bf_all;	/* every BF register, for fini */
	struct prov_devx_uar *bf_free;	/* FIFO of free BF registers */
	struct prov_devx_uar *bf_free_tail;
};

/* Area hooks (context_ops.c's prov_areas[]). */
int prov_devx_ctx_init(struct prov_context *pctx);
void prov_devx_ctx_fini(struct prov_context *pctx);

/*
 * The context's non-cached UAR singleton (what libmlx5 uses for CQ arm
 * doorbells and passes as uar_page_index), or NULL when there is none.
 */
const struct mlx5dv_devx_uar *prov_devx_nc_uar(struct prov_context *pctx);

/* Lists @node in @head of @pctx's DEVX state / takes it off again. */
void prov_devx_track(struct prov_context *pctx, struct cds_list_head *node,
		     struct cds_list_head *head);
void prov_devx_untrack(struct prov_context *pctx, struct cds_list_head *node);

#endif /* MLX5EMU_PROVIDER_DEVX_DEVX_H */
