/* SPDX-License-Identifier: MIT */
/*
 * emu/base/base.h -- what every part of the device model builds on and
 * that belongs to none of them: the process's device limits and the value
 * syntax that settings (emu/device) and fault rules (emu/fault) share,
 * per-thread buffers (and, in clock.h, the clock).
 * It depends on nothing else of the project.
 */
#ifndef MLX5EMU_EMU_BASE_BASE_H
#define MLX5EMU_EMU_BASE_BASE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Devices in one process, ports on one device. */
#define EMU_MAX_DEVICES 16
#define EMU_MAX_PORTS 2
/* MANA devices (mana_N), after the mlx5 ones. */
#define EMU_MAX_MANA_DEVICES 4

/*
 * The value syntax, ASCII only (no locale).  A number: decimal or 0x hex,
 * no sign, no spaces, at most max; 0, -EINVAL (not a number) or -ERANGE
 * (above max).  A name: equal but for the case of letters.
 */
int emu_text_parse_u64(const char *s, uint64_t max, uint64_t *out);
bool emu_text_eq_nocase(const char *a, const char *b);

/*
 * A per-thread buffer of size bytes, zeroed when a thread first asks for
 * it and freed when that thread exits; NULL when memory is short.  For
 * state too large for the library's thread-local block (base_tls.c says
 * why that block must stay small).
 */
struct emu_tls_buf {
	size_t size;
	atomic_bool ready;
	pthread_key_t key;
};
#define EMU_TLS_BUF_INIT(sz) { .size = (sz) }
void *emu_tls_buf_get(struct emu_tls_buf *b);

#endif /* MLX5EMU_EMU_BASE_BASE_H */
