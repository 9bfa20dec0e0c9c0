/* SPDX-License-Identifier: MIT */
/*
 * emu/base/clock.h -- the device model's clock: what its timers (RNR and
 * transport retries), CQE timestamps, command durations and delay faults
 * read.
 *
 * Normally CLOCK_MONOTONIC.  In deterministic mode (emu/engine) it is
 * virtual: it starts at 0 and moves only when the device model moves it
 * (the engine jumps to its next timer when nothing else is runnable; a
 * delay fault adds its delay), so a run never waits on wall-clock time and
 * reads the same times each time it is replayed.
 *
 * The device's real-time clock (emu_clock_real_ns) follows the host's
 * CLOCK_REALTIME, as one disciplined by phc2sys would; on the virtual clock
 * it is the virtual time counted from the epoch.
 */
#ifndef MLX5EMU_EMU_BASE_CLOCK_H
#define MLX5EMU_EMU_BASE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* Now, in nanoseconds. */
uint64_t emu_clock_ns(void);

/* Real time, in nanoseconds since the epoch. */
uint64_t emu_clock_real_ns(void);

/* Switch to the virtual clock (at 0) or back to CLOCK_MONOTONIC. */
void emu_clock_set_virtual(bool on);
bool emu_clock_is_virtual(void);

/* Virtual clock: move forward to @ns (never back).  Wall clock: nothing. */
void emu_clock_advance_to(uint64_t ns);

/* Let @ns pass: sleep on the wall clock, advance the virtual one. */
void emu_clock_sleep_ns(uint64_t ns);

#endif /* MLX5EMU_EMU_BASE_CLOCK_H */
