/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_clock.c -- the device's clocks: the free-running internal
 * timer and the real-time clock of the initialization segment, and the
 * timestamp a CQE carries in each ts_format.
 *
 * The internal timer counts at cmd_hca_cap.device_frequency_khz from the
 * device model's clock (emu/base: CLOCK_MONOTONIC, or the virtual clock in
 * deterministic mode), so it starts at the host's boot as a card powered
 * with the host would, and at 0 in a deterministic run.  The real-time
 * clock reads emu_clock_real_ns().  Both are computed on each read (a vDSO
 * clock read, no system call): nothing has to keep them ticking.
 */
#include <endian.h>

#include "prm/prm_cmd.h"
#include "emu/base/clock.h"
#include "emu/firmware/fw_int.h"

#define NSEC_PER_SEC UINT64_C(1000000000)
#define NSEC_PER_MSEC UINT64_C(1000000)

/*
 * ns * khz / 10^6, modulo 2^64 as the counter wraps, in 64-bit arithmetic:
 * with ns = q * 10^6 + r the product is q * khz + r * khz / 10^6 exactly,
 * and r * khz stays below 2^52.
 */
static uint64_t fw_clock_ns_to_cycles(uint64_t ns, uint32_t khz)
{
	uint64_t q = ns / NSEC_PER_MSEC, r = ns % NSEC_PER_MSEC;

	return q * khz + r * khz / NSEC_PER_MSEC;
}

uint64_t emu_fw_clock_cycles(const struct emu_fw *fw, uint64_t ns)
{
	return fw_clock_ns_to_cycles(ns, fw->clock_khz);
}

uint64_t emu_fw_clock_internal(const struct emu_fw *fw)
{
	return fw_clock_ns_to_cycles(emu_clock_ns(), fw->clock_khz);
}

/* Seconds in the upper word, nanoseconds in the lower. */
static uint64_t fw_clock_real_time(void)
{
	uint64_t ns = emu_clock_real_ns();

	return (ns / NSEC_PER_SEC) << 32 | ns % NSEC_PER_SEC;
}

uint32_t emu_fw_iseg_read32(const struct emu_fw *fw, uint32_t offset)
{
	switch (offset) {
	case MLX5_ISEG_INTERNAL_TIMER_H:
		return htobe32((uint32_t)(emu_fw_clock_internal(fw) >> 32));
	case MLX5_ISEG_INTERNAL_TIMER_L:
		return htobe32((uint32_t)emu_fw_clock_internal(fw));
	case MLX5_ISEG_REAL_TIME_H:
		return htobe32((uint32_t)(fw_clock_real_time() >> 32));
	case MLX5_ISEG_REAL_TIME_L:
		return htobe32((uint32_t)fw_clock_real_time());
	default:
		return 0;	/* no other register is modelled */
	}
}

/*
 * DEFAULT is the format the device's queues run when the driver names
 * none: free running where the capabilities allow it (mlx5_ib asks for
 * DEFAULT only where they do not), real time otherwise.
 */
uint64_t emu_fw_clock_stamp(const struct emu_fw *fw, unsigned int ts_format)
{
	if (ts_format == MLX5_TIMESTAMP_FORMAT_REAL_TIME ||
	    (ts_format == MLX5_TIMESTAMP_FORMAT_DEFAULT && !fw->clock_fr))
		return fw_clock_real_time();
	return emu_fw_clock_internal(fw);
}

bool fw_ts_format_ok(unsigned int ts_format, unsigned int cap)
{
	switch (ts_format) {
	case MLX5_TIMESTAMP_FORMAT_FREE_RUNNING:
		return cap == MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING ||
		       cap == MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING_AND_REAL_TIME;
	case MLX5_TIMESTAMP_FORMAT_DEFAULT:
		return true;
	case MLX5_TIMESTAMP_FORMAT_REAL_TIME:
		return cap == MLX5_TIMESTAMP_FORMAT_CAP_REAL_TIME ||
		       cap == MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING_AND_REAL_TIME;
	default:
		return false;
	}
}

void fw_clock_init(struct emu_fw *fw)
{
	unsigned int qp = FW_CAP_ROCE(fw, qp_ts_format);

	fw->clock_khz = FW_CAP_GEN(fw, device_frequency_khz);
	fw->clock_fr = qp == MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING ||
		       qp == MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING_AND_REAL_TIME;
}
