/* SPDX-License-Identifier: MIT */
/*
 * emu/mem/storetrap.h -- see every store the application makes to a page.
 *
 * Some device registers are written by many queues through one address:
 * a MANA context has one doorbell page, and all its send queues ring the
 * same 8 bytes of it (likewise the receive and completion queues).  A
 * device that samples such a page loses a doorbell whenever two queues
 * ring between two samples, and a lost doorbell can leave a queue stalled
 * for good.  A store trap loses none: the caller maps the page read-only
 * for the application (and keeps a writable alias of the same memory for
 * the device, if it wants the stored bytes there), every store then
 * faults, and the fault handler decodes the store instruction, hands its
 * value to a callback and steps the thread past it.  The page is never
 * unprotected, so any number of threads may store into it concurrently.
 *
 * Cost: one fault, a decode and a signal return per store, about 1.1 us
 * on one thread of the x86-64 host this was written on
 * (tests/bench/bench_storetrap; emu/mana/README.md, "Doorbells").  Fine
 * for doorbells, which a driver rings once per burst per queue; not for a
 * data path.
 *
 * Limits: only stores made in this process are seen; another process that
 * maps the same memory (a DPDK secondary process) writes it unobserved.
 * Only the instruction forms a compiler emits for a plain scalar store are
 * decoded (x86-64: MOV r/m, reg and MOV r/m, imm of 1, 2, 4 or 8 bytes,
 * MOVNTI, MOVQ/MOVD and VMOVQ/VMOVD from an XMM register; aarch64:
 * STR/STUR of a general register, unsigned-offset, pre- and post-index,
 * whose decoder is tested on any host but whose trap path has not run on
 * aarch64 hardware).  Any other instruction
 * that stores into a trapped page is not claimed: the fault goes to the
 * handler the process had before (sigfault.h) and crashes as it would
 * without the trap.
 */
#ifndef MLX5EMU_EMU_MEM_STORETRAP_H
#define MLX5EMU_EMU_MEM_STORETRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Called in signal context on the storing thread, once per store, with the
 * store's byte offset in the trapped range, its value (zero-extended) and
 * its size in bytes (1, 2, 4 or 8).  Must be async-signal-safe: no lock,
 * no allocation, no stdio.  The store itself does not reach the page.
 */
typedef void (*emu_storetrap_fn)(void *arg, size_t off, uint64_t value,
				 unsigned int size);

struct emu_storetrap;

/* Most ranges trapped at once in the process. */
#define EMU_STORETRAP_MAX 64

/*
 * Trap stores to [page, page + len).  The caller has mapped the range
 * read-only (stores then fault with SEGV_ACCERR) and keeps it mapped until
 * emu_storetrap_remove returns.  Ranges must not overlap.  0, -EINVAL,
 * -ENOSPC (EMU_STORETRAP_MAX in use) or the error of
 * emu_sigfault_register.  Thread-safe.
 */
int emu_storetrap_add(void *page, size_t len, emu_storetrap_fn fn, void *arg,
		      struct emu_storetrap **out);

/*
 * Stop trapping.  Returns once no thread is inside the range's callback,
 * so fn and arg may be freed afterwards.  A store into the range after
 * this is the application's fault again.  Thread-safe; never from fn.
 */
void emu_storetrap_remove(struct emu_storetrap *t);

/* Stores handed to this trap's callback so far. */
unsigned long emu_storetrap_stores(const struct emu_storetrap *t);

/* Faults in a trapped range the decoder did not claim (process-wide). */
unsigned long emu_storetrap_undecoded(void);

/*
 * The aarch64 decoder over plain values: compiled on every host so its
 * tests run anywhere; the trap uses it on aarch64 only.  insn is the
 * instruction word, x the registers x0..x30, sp the stack pointer.  On
 * true, the store's effective address, value (zero-extended), size, and
 * the base register to write back (wb_reg: -1 none, 31 sp) with its new
 * value.
 */
struct emu_storetrap_a64 {
	uint64_t ea, value, wb_val;
	unsigned int size;
	int wb_reg;
};

bool emu_storetrap_a64_decode(uint32_t insn, const uint64_t x[31], uint64_t sp,
			      struct emu_storetrap_a64 *st);

#endif /* MLX5EMU_EMU_MEM_STORETRAP_H */
