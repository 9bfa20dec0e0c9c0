/* SPDX-License-Identifier: MIT */
/*
 * emu/mem/mem.h -- the one path by which the device model reads and writes
 * application memory.
 *
 * On hardware, memory registered with the device stays pinned: the device
 * never faults.  In the emulator the device runs in the application's own
 * address space, and the application can unmap, protect or truncate memory
 * it registered at any time.  Every access the device model makes to memory
 * it does not own (queue rings, doorbell records, CQE/EQE rings, data
 * buffers reached through mkeys) goes through these functions, which return
 * a status instead of taking the process down: -EFAULT when the memory
 * could not be accessed (the access may have been partly done, as a DMA
 * that hit a bad page would leave it).  The engine turns that status into
 * the error completion a ConnectX gives for the access it was making.
 *
 * Only faults inside the application range of the access in progress are
 * recovered; a fault anywhere else (the device model's own memory) is a bug
 * and is passed on to the earlier handler (see sigfault.h), so it crashes
 * as it should.
 *
 * Any thread may call these, including application threads that run device
 * work inline and signal handlers of the application (they are
 * async-signal-safe).  The cost over a plain copy is one sigsetjmp without
 * a signal-mask save and a few thread-local stores per call; the word
 * loads and stores on x86-64 cost nothing more than the instruction (a
 * fault there resumes from a table, mem.c).
 *
 * Conventions: "app" arguments are application memory, the others the
 * device model's own; 0 or a negative errno.
 */
#ifndef MLX5EMU_EMU_MEM_MEM_H
#define MLX5EMU_EMU_MEM_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Install the fault recovery (idempotent; the accessors call it on first
 * use, the device layer calls it at the first device open so a failure is
 * reported there).  0 or a negative errno from sigaction.
 */
int emu_mem_init(void);

/* Faults recovered into -EFAULT since the process started. */
unsigned long emu_mem_faults(void);

/* Copy from application memory into the device model's own. */
int emu_mem_read(void *dst, const void *app_src, size_t len);
/* Copy from the device model's own memory into application memory. */
int emu_mem_write(void *app_dst, const void *src, size_t len);
/* Copy between two application ranges (they may overlap). */
int emu_mem_copy(void *app_dst, const void *app_src, size_t len);

/*
 * Write an entry a consumer polls on its last byte (a CQE's opcode/owner
 * byte, an EQE's owner byte): every byte but the last, then the last with
 * release ordering, so a consumer that sees the new last byte (and issues a
 * read barrier, as libmlx5 does) sees the whole entry.
 */
int emu_mem_publish(void *app_dst, const void *src, size_t len);

/* Aligned 32/64-bit loads with acquire ordering (doorbell records, arm
 * words) and a 32-bit store with release ordering; app must be naturally
 * aligned (-EINVAL otherwise). */
int emu_mem_load32(const void *app, uint32_t *val);
int emu_mem_load64(const void *app, uint64_t *val);
int emu_mem_store32(void *app, uint32_t val);

/*
 * 8-byte atomics done in place on application memory (naturally aligned,
 * -EINVAL otherwise), atomic with respect to each other and to the
 * application's own atomics on that memory.  Values are the raw memory
 * contents: byte order is the caller's concern.
 *  cas64: if *app == *expected, *app = desired; either way *expected gets
 *         the value found (compare it to tell whether the swap happened);
 *  fadd64: *old = *app; *app += add.
 */
int emu_mem_cas64(void *app, uint64_t *expected, uint64_t desired);
int emu_mem_fadd64(void *app, uint64_t add, uint64_t *old);

/*
 * What pin_user_pages() would say of [addr, addr + size): 0, or -EFAULT
 * when a page is not mapped or its mapping lacks read (or, to be written,
 * write) permission (check_vma_flags()).  The check an emulated kernel
 * makes where a real one pins memory for the device.  Not
 * async-signal-safe (it reads /proc/self/maps).
 */
int emu_mem_pinnable(const void *addr, size_t size, bool write);

#endif /* MLX5EMU_EMU_MEM_MEM_H */
