/* SPDX-License-Identifier: MIT */
/*
 * The device clock as libmlx5 44 offers it: ibv_query_rt_values_ex (the
 * verbs_context op; mlx5_query_rt_values: only IBV_VALUES_MASK_RAW_CLOCK is
 * known, raw_clock.tv_nsec carries the free-running counter, EOPNOTSUPP
 * when it cannot be read) and mlx5dv_get_clock_info (the kernel's clock
 * info page: EINVAL where the kernel maps none, EBUSY while it is being
 * rewritten).  The backend reads both (read_clock, clock_info).
 */
#include <errno.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "shell/abi_export.h"
#include "provider/core/context.h"
#include "provider/verbs/query.h"
#include "provider/mana/mana_prov.h"

int prov_query_rt_values(struct ibv_context *ctx, struct ibv_values_ex *values)
{
	struct prov_context *pctx = to_prov_context(ctx);
	uint32_t comp_mask = 0;
	int err = 0;

	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	if (values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK) {
		uint64_t cycles;

		err = -pctx->be->read_clock(pctx->bectx, &cycles);
		if (!err) {
			values->raw_clock.tv_sec = 0;
			values->raw_clock.tv_nsec = (long)cycles;
			comp_mask |= IBV_VALUES_MASK_RAW_CLOCK;
		}
	}
	values->comp_mask = comp_mask;
	return err;
}

MLX5EMU_ABI(mlx5dv_get_clock_info);
int mlx5emu_abi_mlx5dv_get_clock_info(struct ibv_context *ctx_in,
				      struct mlx5dv_clock_info *clock_info)
{
	/* libmlx5: no dv ops for a device not its own */
	if (prov_mana_is(ctx_in))
		return EOPNOTSUPP;
	struct prov_context *pctx = to_prov_context(ctx_in);
	struct mlx5be_clock_info ci;
	int err;

	/* Returned, not set in errno, as libmlx5 does. */
	err = -pctx->be->clock_info(pctx->bectx, &ci);
	if (err)
		return err;
	clock_info->nsec = ci.nsec;
	clock_info->last_cycles = ci.last_cycles;
	clock_info->frac = ci.frac;
	clock_info->mult = ci.mult;
	clock_info->shift = ci.shift;
	clock_info->mask = ci.mask;
	return 0;
}
