/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_clock.c -- the device clock as mlx5_core and mlx5_ib give
 * it to user space: the clock info page (struct mlx5_ib_clock_info, what
 * mlx5dv_get_clock_info reads) and the internal timer libmlx5 reads through
 * the init segment page mapped at the core clock offset.
 *
 * mlx5_core (lib/clock.c) runs a timecounter over the internal timer:
 * shift 23, mult = clocksource_khz2mult(device_frequency_khz, 23), a 41-bit
 * mask, started at the real time; its overflow work re-reads the counter
 * every overflow_period and publishes cycle_last, nsec, frac and mult in
 * the page under the sign word (odd, KERNEL_UPDATING, while writing; +2
 * per update).  Here the update runs when a reader finds it due, which is
 * what a late work item would have written; nothing ticks in between.
 */
#include <endian.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/mlx5-abi.h>

#include "emu/base/clock.h"
#include "emu/firmware/fw.h"
#include "emu/kernel/kern.h"
#include "prm/prm_cmd.h"

/* The kernel's constants: MLX5_CYCLES_SHIFT, CLOCKSOURCE_MASK(41), and the
 * HZ of the kernel mirrored (Debian 12's 6.1: 250), overflow_period being
 * in jiffies. */
#define KERN_CLOCK_SHIFT 23
#define KERN_CLOCK_MASK ((UINT64_C(1) << 41) - 1)
#define KERN_HZ 250
#define NSEC_PER_SEC UINT64_C(1000000000)

static struct mlx5_ib_clock_info *kern_clock_ci(struct kern_clock *c)
{
	return c->page;
}

/* timecounter_read(): fold the cycles since the last read into nsec. */
static void kern_clock_tc_read(struct kern_clock *c, uint64_t now)
{
	uint64_t delta = (now - c->cycle_last) & c->mask;
	uint64_t ns = delta * c->mult + c->frac;

	c->frac = ns & ((UINT64_C(1) << c->shift) - 1);
	c->nsec += ns >> c->shift;
	c->cycle_last = now;
}

/* mlx5_update_clock_info_page(): odd sign while writing, +2 after. */
static void kern_clock_publish(struct kern_clock *c)
{
	struct mlx5_ib_clock_info *ci = kern_clock_ci(c);
	_Atomic uint32_t *sign = (_Atomic uint32_t *)&ci->sign;
	uint32_t s = atomic_load_explicit(sign, memory_order_acquire);

	atomic_store(sign, s | MLX5_IB_CLOCK_INFO_KERNEL_UPDATING);
	ci->cycles = c->cycle_last;
	ci->mult = c->mult;
	ci->nsec = c->nsec;
	ci->frac = c->frac;
	atomic_store_explicit(sign, s + MLX5_IB_CLOCK_INFO_KERNEL_UPDATING * 2,
			      memory_order_release);
}

/*
 * mlx5_timestamp_overflow(): every run that was due, each at its time
 * (the counter as it read then), so no span between two reads exceeds
 * overflow_period however long nobody looked.
 */
static void kern_clock_update(struct kern_dev *kdev)
{
	struct kern_clock *c = &kdev->clock;
	uint64_t now = emu_clock_ns(), due;

	if (now < atomic_load_explicit(&c->next_update, memory_order_acquire))
		return;
	pthread_mutex_lock(&c->lock);
	due = atomic_load(&c->next_update);
	if (now >= due) {
		while (now >= due) {
			kern_clock_tc_read(c, emu_fw_clock_cycles(kdev->fw, due) &
					      c->mask);
			due = c->period_ns > UINT64_MAX - due ? UINT64_MAX :
							       due + c->period_ns;
		}
		kern_clock_publish(c);
		atomic_store_explicit(&c->next_update, due, memory_order_release);
	}
	pthread_mutex_unlock(&c->lock);
}

/* mlx5_init_overflow_period(): the longest span whose conversion cannot
 * overflow 64 bits, a third of the mask at most, in jiffies. */
static uint64_t kern_clock_overflow_period(const struct kern_clock *c)
{
	uint64_t cycles = (~UINT64_C(0) >> 1) / c->mult;

	if (cycles > c->mask / 3)
		cycles = c->mask / 3;
	return ((cycles * c->mult) >> c->shift) / (NSEC_PER_SEC / KERN_HZ);
}

int kern_clock_init(struct kern_dev *kdev)
{
	struct kern_clock *c = &kdev->clock;
	uint32_t khz = KERN_CAP_GEN(kdev, device_frequency_khz);
	struct mlx5_ib_clock_info *ci;
	uint64_t period, now;

	pthread_mutex_init(&c->lock, NULL);
	c->page = NULL;
	if (!khz)		/* mlx5_init_clock() gives up */
		return 0;
	c->page = aligned_alloc(KERN_PAGE_SIZE, KERN_PAGE_SIZE);
	if (!c->page)
		return -ENOMEM;
	memset(c->page, 0, KERN_PAGE_SIZE);
	/* mlx5_timecounter_init(): clocksource_khz2mult(), rounded. */
	c->shift = KERN_CLOCK_SHIFT;
	c->mult = (uint32_t)(((UINT64_C(1000000) << c->shift) + khz / 2) / khz);
	c->mask = KERN_CLOCK_MASK;
	now = emu_clock_ns();
	c->cycle_last = emu_fw_clock_cycles(kdev->fw, now) & c->mask;
	c->nsec = emu_clock_real_ns();
	c->frac = 0;
	/* mlx5_init_clock_info() */
	ci = kern_clock_ci(c);
	ci->nsec = c->nsec;
	ci->cycles = c->cycle_last;
	ci->mask = c->mask;
	ci->mult = c->mult;
	ci->shift = c->shift;
	period = kern_clock_overflow_period(c);
	ci->overflow_period = period;
	/* A zero period schedules no work: the page then stays as it is. */
	c->period_ns = period ? period * (NSEC_PER_SEC / KERN_HZ) : UINT64_MAX;
	/* The work is first scheduled with no delay. */
	atomic_init(&c->next_update, now);
	kern_clock_update(kdev);
	return 0;
}

const void *kern_clock_page(struct kern_dev *kdev)
{
	if (!kdev->clock.page)
		return NULL;
	kern_clock_update(kdev);
	return kdev->clock.page;
}

void kern_clock_fini(struct kern_dev *kdev)
{
	free(kdev->clock.page);
	kdev->clock.page = NULL;
	pthread_mutex_destroy(&kdev->clock.lock);
}

/*
 * The page as _mlx5dv_get_clock_info() reads it: a consistent copy between
 * two equal even signs, EBUSY after 10 tries that find it odd; EINVAL when
 * the kernel offers no page (clock_info_versions 0).
 */
int kern_clock_info(struct mlx5be_ctx *ctx, struct mlx5be_clock_info *info)
{
	const struct mlx5_ib_clock_info *ci;
	const _Atomic uint32_t *sign;
	uint32_t s;

	if (kern_uctx_lost(ctx->uctx))
		return -EIO;
	ci = kern_clock_page(ctx->uctx->kdev);
	if (!ci)
		return -EINVAL;
	sign = (const _Atomic uint32_t *)&ci->sign;
	do {
		int retry = 10;

		while ((s = atomic_load(sign)) & MLX5_IB_CLOCK_INFO_KERNEL_UPDATING)
			if (!--retry)
				return -EBUSY;
		info->nsec = ci->nsec;
		info->last_cycles = ci->cycles;
		info->frac = ci->frac;
		info->mult = ci->mult;
		info->shift = ci->shift;
		info->mask = ci->mask;
	} while (s != atomic_load(sign));
	return 0;
}

/*
 * The internal timer as libmlx5's mlx5_read_clock() reads the page mapped
 * at the core clock offset: high word, low word, high word again, once
 * more if the high word moved between.  EOPNOTSUPP without a clock (the
 * kernel then reports no core clock offset).
 */
int kern_read_clock(struct mlx5be_ctx *ctx, uint64_t *cycles)
{
	const struct emu_fw *fw = ctx->uctx->kdev->fw;
	uint32_t hi, lo, hi1;

	if (kern_uctx_lost(ctx->uctx))
		return -EIO;
	if (!ctx->uctx->kdev->clock.page)
		return -EOPNOTSUPP;
	for (int i = 0; i < 2; i++) {
		hi = be32toh(emu_fw_iseg_read32(fw, MLX5_ISEG_INTERNAL_TIMER_H));
		lo = be32toh(emu_fw_iseg_read32(fw, MLX5_ISEG_INTERNAL_TIMER_L));
		hi1 = be32toh(emu_fw_iseg_read32(fw, MLX5_ISEG_INTERNAL_TIMER_H));
		if (hi == hi1)
			break;
	}
	*cycles = (uint64_t)hi << 32 | lo;
	return 0;
}
