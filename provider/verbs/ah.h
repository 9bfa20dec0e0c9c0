/* SPDX-License-Identifier: MIT */
/* Address handles (ibv_create_ah, ibv_destroy_ah, AH from a WC). */
#ifndef MLX5EMU_PROVIDER_VERBS_AH_H
#define MLX5EMU_PROVIDER_VERBS_AH_H

#include <stdbool.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

/* An AH: the address vector UD WQEs copy (libmlx5's struct mlx5_ah). */
struct prov_ah {
	struct ibv_ah ibah;
	struct mlx5_wqe_av av;
	bool is_global;
};

static inline struct prov_ah *to_prov_ah(struct ibv_ah *ah)
{
	return (struct prov_ah *)ah;
}

/* The address vector of @ah (mlx5dv_init_obj's MLX5DV_OBJ_AH: av). */
struct mlx5_wqe_av *prov_ah_av(struct ibv_ah *ah);

#endif /* MLX5EMU_PROVIDER_VERBS_AH_H */
