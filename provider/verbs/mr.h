/* SPDX-License-Identifier: MIT */
/* Memory regions (ibv_reg_mr and friends, ibv_rereg_mr, ibv_dereg_mr). */
#ifndef MLX5EMU_PROVIDER_VERBS_MR_H
#define MLX5EMU_PROVIDER_VERBS_MR_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

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

#endif /* MLX5EMU_PROVIDER_VERBS_MR_H */
