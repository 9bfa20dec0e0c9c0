/* SPDX-License-Identifier: MIT */
/*
 * emu/mem/sigfault.h -- the process's one SIGSEGV/SIGBUS dispatcher.
 *
 * The device model touches application memory it does not own: memory the
 * application may unmap or protect at any time.  Every part that must turn
 * such a fault into a status (the checked access layer, mem.h) or must see a
 * store the hardware would have seen (a write-protected doorbell page)
 * registers a client here; nothing else in the device model installs a
 * signal handler.
 *
 * The handler is installed on the first registration (never from a library
 * constructor), on top of whatever handler the process had then, and hands
 * every fault no client claims to that earlier handler (AddressSanitizer's,
 * a language runtime's, the application's own), or to the default action,
 * so a fault that is not ours crashes exactly as it would without us.
 */
#ifndef MLX5EMU_EMU_MEM_SIGFAULT_H
#define MLX5EMU_EMU_MEM_SIGFAULT_H

#include <signal.h>
#include <stdbool.h>

/*
 * A client.  Called in signal context on the faulting thread for every
 * SIGSEGV and SIGBUS, in registration order, until one returns true.  It
 * must be async-signal-safe.  Returning true means the fault is dealt with:
 * the client either left the handler (siglongjmp) or changed the memory or
 * the context so the faulting instruction can run again.
 */
typedef bool (*emu_sigfault_fn)(int sig, siginfo_t *si, void *uctx);

/*
 * Add a client (idempotent for the same fn); installs the handler on first
 * use.  0, -ENOSPC (too many clients), or the negative errno of sigaction.
 * Thread-safe.
 */
int emu_sigfault_register(emu_sigfault_fn fn);

/* Faults the handler saw since it was installed, claimed or not. */
unsigned long emu_sigfault_seen(void);

#endif /* MLX5EMU_EMU_MEM_SIGFAULT_H */
