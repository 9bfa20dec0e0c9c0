/* SPDX-License-Identifier: MIT */
/*
 * emu/base/base.h -- what every part of the device model builds on and
 * that belongs to none of them: the process's device limits and the value
 * syntax that settings (emu/device) and fault rules (emu/fault) share (and,
 * in clock.h, the clock).
 * It depends on nothing else of the project.
 */
#ifndef MLX5EMU_EMU_BASE_BASE_H
#define MLX5EMU_EMU_BASE_BASE_H

#include <stdbool.h>
#include <stdint.h>

/* Devices in one process, ports on one device. */
#define EMU_MAX_DEVICES 16
#define EMU_MAX_PORTS 2

/*
 * The value syntax, ASCII only (no locale).  A number: decimal or 0x hex,
 * no sign, no spaces, at most max; 0, -EINVAL (not a number) or -ERANGE
 * (above max).  A name: equal but for the case of letters.
 */
int emu_text_parse_u64(const char *s, uint64_t max, uint64_t *out);
bool emu_text_eq_nocase(const char *a, const char *b);

#endif /* MLX5EMU_EMU_BASE_BASE_H */
