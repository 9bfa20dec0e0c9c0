/* SPDX-License-Identifier: MIT */
/* Memory regions (ibv_reg_mr and friends, ibv_rereg_mr, ibv_dereg_mr). */
#ifndef MLX5EMU_PROVIDER_VERBS_MR_H
#define MLX5EMU_PROVIDER_VERBS_MR_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <urcu/list.h>

struct mlx5be_obj;
struct mlx5be_umem;

/*
 * An MR: its pages as a umem and a direct MTT mkey over it (CREATE_MKEY,
 * mkey_umem_id/offset), lkey = rkey = the mkey value.  The mkey's PD holds
 * a use of the ibv_pd.  An imported MR (ibv_import_mr) owns neither: it
 * holds what the kernel's QUERY_MR answers, its keys name the original's
 * mkey.
 */
struct prov_mr {
	struct ibv_mr ibmr;
	struct mlx5be_umem *umem;
	uint32_t umem_id;
	struct mlx5be_obj *mkey;
	uint64_t iova;
	unsigned int access;	/* the mkey's access flags */
	pthread_mutex_t lock;	/* serialises ibv_rereg_mr */
	bool imported;
	bool odp;			/* its umem is an ODP one */
	struct cds_list_head odp_node;	/* then in the context's ODP MRs */
};

static inline struct prov_mr *to_prov_mr(struct ibv_mr *mr)
{
	return (struct prov_mr *)mr;
}

/* mlx5_ib's assign_mkey_variant(): the key byte of the next mkey, shared
 * by MRs and memory windows. */
uint8_t prov_mkey_variant(void);

/* mw.c: alloc_mw, dealloc_mw and bind_mw of the context. */
struct prov_context;
void prov_mw_set_ops(struct prov_context *pctx);

/*
 * mr_odp.c: on-demand paging.  Offered when the device has `pg` and the
 * backend takes ODP umems.  An ODP MR's memory is an ODP umem; an implicit
 * one (addr NULL, length SIZE_MAX) a umem over the whole user address
 * space.  ODP MRs are listed in their context for ibv_advise_mr.
 */
bool prov_mr_odp_offered(struct prov_context *pctx);
bool prov_mr_odp_implicit(const void *addr, size_t length);
/* The umem of an MR with @access over [addr, addr + length): pinned, ODP
 * or implicit ODP as @access and the range say; NULL with errno. */
struct mlx5be_umem *prov_mr_umem_reg(struct prov_context *pctx, void *addr,
				     size_t length, unsigned int access,
				     uint32_t *umem_id);
/* Where the umem and the mkey of such an MR start (their iova is their
 * address), and the length they cover: the MR's own but for the implicit
 * one. */
void *prov_mr_odp_start(void *addr, size_t length);
uint64_t prov_mr_odp_span(const void *addr, size_t length);
void prov_mr_odp_track(struct prov_context *pctx, struct prov_mr *mr);
void prov_mr_odp_untrack(struct prov_context *pctx, struct prov_mr *mr);
/* Installs the context's advise_mr. */
void prov_mr_odp_set_ops(struct prov_context *pctx);

#endif /* MLX5EMU_PROVIDER_VERBS_MR_H */
