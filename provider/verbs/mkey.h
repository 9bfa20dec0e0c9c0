/* SPDX-License-Identifier: MIT */
/* mlx5dv_create_mkey's indirect mkeys (mkey.c) and the UMR work requests
 * that give them a translation (qp_wr_mkey.c). */
#ifndef MLX5EMU_PROVIDER_VERBS_MKEY_H
#define MLX5EMU_PROVIDER_VERBS_MKEY_H

#include <stdint.h>

#include <infiniband/mlx5dv.h>

struct mlx5be_obj;
struct prov_qp;

/*
 * An indirect mkey: a free KLM mkey with umr_en made as libmlx5's
 * _mlx5dv_create_mkey makes it, lkey = rkey = mkey_index << 8 (key byte
 * 0).  num_desc is the entry count rounded up to 4 (libmlx5's num_desc,
 * which bounds a layout); length what the last layout covered.
 */
struct prov_mkey {
	struct mlx5dv_mkey dv;
	struct mlx5be_obj *obj;
	struct ibv_pd *pd;
	uint16_t num_desc;
	uint64_t length;
};

static inline struct prov_mkey *to_prov_mkey(struct mlx5dv_mkey *m)
{
	return (struct prov_mkey *)m;
}

/* qp_wr_mkey.c: the mlx5dv_qp_ex mkey ops of an RC QP created with them. */
void prov_qp_wr_mkey_init(struct prov_qp *qp);

#endif /* MLX5EMU_PROVIDER_VERBS_MKEY_H */
