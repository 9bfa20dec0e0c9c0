/* SPDX-License-Identifier: MIT */
/*
 * emu/base/base_clock.c -- the device model's clock (clock.h).
 */
#include <errno.h>
#include <stdatomic.h>
#include <time.h>

#include "emu/base/clock.h"

static atomic_bool clock_virtual;
static _Atomic uint64_t clock_virtual_ns;

/* A vDSO call on Linux: no system call. */
static uint64_t clock_host_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t emu_clock_ns(void)
{
	if (atomic_load_explicit(&clock_virtual, memory_order_relaxed))
		return atomic_load_explicit(&clock_virtual_ns,
					    memory_order_relaxed);
	return clock_host_ns(CLOCK_MONOTONIC);
}

uint64_t emu_clock_real_ns(void)
{
	if (atomic_load_explicit(&clock_virtual, memory_order_relaxed))
		return atomic_load_explicit(&clock_virtual_ns,
					    memory_order_relaxed);
	return clock_host_ns(CLOCK_REALTIME);
}

void emu_clock_set_virtual(bool on)
{
	atomic_store(&clock_virtual_ns, 0);
	atomic_store(&clock_virtual, on);
}

bool emu_clock_is_virtual(void)
{
	return atomic_load_explicit(&clock_virtual, memory_order_relaxed);
}

void emu_clock_advance_to(uint64_t ns)
{
	uint64_t cur = atomic_load(&clock_virtual_ns);

	if (!emu_clock_is_virtual())
		return;
	while (cur < ns &&
	       !atomic_compare_exchange_weak(&clock_virtual_ns, &cur, ns))
		;
}

void emu_clock_sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000u),
		.tv_nsec = (long)(ns % 1000000000u),
	};

	if (emu_clock_is_virtual()) {
		atomic_fetch_add(&clock_virtual_ns, ns);
		return;
	}
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}
