/* SPDX-License-Identifier: MIT */
/*
 * Protection domains (ibv_alloc_pd / ibv_dealloc_pd).  Parent domains are
 * not offered: the alloc_parent_domain op slot stays NULL, so
 * ibv_alloc_parent_domain fails with EOPNOTSUPP.
 */
#ifndef MLX5EMU_PROVIDER_VERBS_PD_H
#define MLX5EMU_PROVIDER_VERBS_PD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct mlx5be_obj;

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
struct prov_pd {
	struct ibv_pd ibpd;
	struct mlx5be_obj *obj;
	uint32_t pdn;
	atomic_int use;		/* PROV_PD_DEAD once deallocation began */
	bool imported;
};

#define PROV_PD_DEAD (-1)

static inline struct prov_pd *to_prov_pd(struct ibv_pd *pd)
{
	return (struct prov_pd *)pd;
}

/* The firmware PD number behind @pd (a parent domain's protection domain's). */
uint32_t prov_pd_pdn(struct ibv_pd *pd);

/* Takes a use of @pd: 0, or EINVAL when it is being deallocated. */
int prov_pd_use(struct ibv_pd *pd);
void prov_pd_unuse(struct ibv_pd *pd);

#endif /* MLX5EMU_PROVIDER_VERBS_PD_H */
