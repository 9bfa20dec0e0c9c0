/* SPDX-License-Identifier: MIT */
/*
 * Protection domains (ibv_alloc_pd / ibv_dealloc_pd), parent domains
 * (ibv_alloc_parent_domain) and thread domains (ibv_alloc_td).
 */
#ifndef MLX5EMU_PROVIDER_VERBS_PD_H
#define MLX5EMU_PROVIDER_VERBS_PD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "provider/core/qbuf.h"

struct mlx5be_obj;
struct prov_td;

/*
 * A PD: the firmware PD (ALLOC_PD as a DEVX object) and the kernel's use
 * count.  Objects that name the PD (MRs, AHs, QPs, SRQs, MWs) take a use
 * with prov_pd_use() and drop it when destroyed; ibv_dealloc_pd of a PD in
 * use is EBUSY and sends no command (ib_destroy_usecnt in uverbs).
 *
 * An imported PD (ibv_import_pd) names another context's firmware PD and
 * owns nothing of it (obj NULL); its use count also holds the
 * application's reference, which ibv_unimport_pd drops, and it is freed
 * when the last of its users is gone.  Its users are counted at the
 * kernel's PD as well (the backend's uobj_hold), where the original's
 * ibv_dealloc_pd finds them.
 */
/*
 * A parent domain is a prov_pd too (libmlx5's mlx5_parent_domain): no
 * firmware object, the pdn and handle of its protection domain, whose
 * use it holds while it exists (so that PD is EBUSY), and a use of its
 * thread domain.  Objects created on it use the protection domain (the
 * kernel knows no parent domains); QPs and CQs also count in busy, which
 * makes its ibv_dealloc_pd EBUSY as libmlx5's refcount does.  Its memory
 * lives while anything holds a use (an MR, an SRQ...), so that an object
 * that outlives the parent domain (libmlx5 allows it) still finds its
 * protection domain.
 */
struct prov_pd {
	struct ibv_pd ibpd;
	struct mlx5be_obj *obj;
	uint32_t pdn;
	atomic_int use;		/* PROV_PD_DEAD once deallocation began */
	bool imported;

	struct prov_pd *protection;	/* a parent domain's PD, else NULL */
	struct prov_td *td;
	atomic_int busy;		/* QPs and CQs on the parent domain */
	struct prov_qbuf_ext alloc;	/* its allocators (NULL: none) */
};

#define PROV_PD_DEAD (-1)

static inline struct prov_pd *to_prov_pd(struct ibv_pd *pd)
{
	return (struct prov_pd *)pd;
}

/* The firmware PD number behind @pd (a parent domain's protection domain's). */
uint32_t prov_pd_pdn(struct ibv_pd *pd);

/* Takes a use of @pd (a parent domain's: of its protection domain):
 * 0, or EINVAL when it is being deallocated. */
int prov_pd_use(struct ibv_pd *pd);
void prov_pd_unuse(struct ibv_pd *pd);

/* libmlx5's to_mparent_domain(): whether @pd is a parent domain. */
static inline bool prov_pd_is_parent(struct ibv_pd *pd)
{
	return pd && to_prov_pd(pd)->protection;
}

/* A QP or CQ on @pd counts in a parent domain's busy (nothing for a
 * plain PD). */
void prov_pd_parent_hold(struct ibv_pd *pd);
void prov_pd_parent_release(struct ibv_pd *pd);

/* The application's allocator of @pd (a parent domain with alloc and
 * free, libmlx5's mlx5_is_custom_alloc), else NULL. */
const struct prov_qbuf_ext *prov_pd_ext(struct ibv_pd *pd);
/* The thread domain of @pd, else NULL. */
struct prov_td *prov_pd_td(struct ibv_pd *pd);

struct prov_context;
/* The parent and thread domain ops (pd.c, td.c). */
void prov_pd_set_ops(struct prov_context *pctx);
void prov_td_set_ops(struct prov_context *pctx);

/* Thread domains (td.c). */
struct prov_qp_bf;
struct prov_qp_bf *prov_td_bf(struct prov_td *td);
void prov_td_hold(struct prov_td *td);
void prov_td_release(struct prov_td *td);

#endif /* MLX5EMU_PROVIDER_VERBS_PD_H */
