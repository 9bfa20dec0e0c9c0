/* SPDX-License-Identifier: MIT */
/*
 * ibv_query_rt_values_ex (the verbs_context op): the device's free-running
 * clock in cycles, as libmlx5 44 returns it (mlx5_query_rt_values: only
 * IBV_VALUES_MASK_RAW_CLOCK is known, raw_clock.tv_nsec carries the cycles,
 * EOPNOTSUPP when the clock cannot be read).
 *
 * libmlx5 reads the counter from the init segment page the kernel maps; the
 * backend offers the kernel's clock info instead (mlx5_ib_clock_info: the
 * cycle count and time of the last update and the cycles->ns conversion),
 * so the current count is that conversion run backwards from now.  The
 * kernel's timecounter runs on CLOCK_REALTIME (ktime_get_real_ns at init).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "provider/core/context.h"
#include "provider/verbs/query.h"

/* The cycle counter now, from the kernel's clock info. */
static int read_cycles(struct prov_context *pctx, uint64_t *cycles)
{
	struct mlx5be_clock_info ci;
	struct timespec ts;
	unsigned __int128 delta;
	uint64_t now, ns_delta;

	if (!pctx->be->clock_info)
		return EOPNOTSUPP;
	memset(&ci, 0, sizeof(ci));
	if (pctx->be->clock_info(pctx->bectx, &ci) || !ci.mult)
		return EOPNOTSUPP;
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	ns_delta = now > ci.nsec ? now - ci.nsec : 0;
	/* ns = nsec + ((cycles - last_cycles) * mult + frac) >> shift,
	 * inverted. */
	delta = (unsigned __int128)ns_delta << (ci.shift & 63);
	delta = delta > ci.frac ? delta - ci.frac : 0;
	delta /= ci.mult;
	*cycles = (ci.last_cycles + (uint64_t)delta) & (ci.mask ? ci.mask : ~UINT64_C(0));
	return 0;
}

int prov_query_rt_values(struct ibv_context *ctx, struct ibv_values_ex *values)
{
	uint32_t comp_mask = 0;
	int err = 0;

	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	if (values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK) {
		uint64_t cycles;

		err = read_cycles(to_prov_context(ctx), &cycles);
		if (!err) {
			values->raw_clock.tv_sec = 0;
			values->raw_clock.tv_nsec = (long)cycles;
			comp_mask |= IBV_VALUES_MASK_RAW_CLOCK;
		}
	}
	values->comp_mask = comp_mask;
	return err;
}
