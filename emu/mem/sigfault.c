/* SPDX-License-Identifier: MIT */
/*
 * emu/mem/sigfault.c -- the SIGSEGV/SIGBUS dispatcher (see sigfault.h).
 *
 * SA_NODEFER: a client may leave the handler with siglongjmp without
 * restoring the signal mask (a sigprocmask call per guarded access would
 * cost a system call); with the signal not blocked while the handler runs,
 * nothing needs restoring.  SA_ONSTACK: a thread that overflowed its stack
 * and has an alternate one (AddressSanitizer sets one up) still reaches the
 * handler that reports it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "emu/mem/sigfault.h"

#define SIGFAULT_MAX_CLIENTS 4

static const int sigfault_signals[] = { SIGSEGV, SIGBUS };
#define SIGFAULT_NSIGS (sizeof(sigfault_signals) / sizeof(sigfault_signals[0]))

static pthread_mutex_t sigfault_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(emu_sigfault_fn) sigfault_clients[SIGFAULT_MAX_CLIENTS];
static struct sigaction sigfault_prev[SIGFAULT_NSIGS];
static atomic_bool sigfault_installed;
static atomic_ulong sigfault_nseen;

static const struct sigaction *sigfault_prev_of(int sig)
{
	for (size_t i = 0; i < SIGFAULT_NSIGS; i++)
		if (sigfault_signals[i] == sig)
			return &sigfault_prev[i];
	return NULL;
}

/*
 * Hand the fault to whoever had the signal before us.  With the default
 * action (or an ignored synchronous fault, which the kernel would turn into
 * the default action as well) the disposition goes back to SIG_DFL: a fault
 * the hardware raised happens again when we return and takes the process
 * down as it would have without us; one that was sent is sent again.
 */
static void sigfault_chain(int sig, siginfo_t *si, void *uctx)
{
	const struct sigaction *prev = sigfault_prev_of(sig);

	if (prev && (prev->sa_flags & SA_SIGINFO) && prev->sa_sigaction) {
		prev->sa_sigaction(sig, si, uctx);
		return;
	}
	if (prev && prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
		prev->sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL);
	if (si->si_code <= 0)
		raise(sig);
}

static void sigfault_handler(int sig, siginfo_t *si, void *uctx)
{
	int saved_errno = errno;

	atomic_fetch_add_explicit(&sigfault_nseen, 1, memory_order_relaxed);
	for (size_t i = 0; i < SIGFAULT_MAX_CLIENTS; i++) {
		emu_sigfault_fn fn = atomic_load_explicit(&sigfault_clients[i],
							  memory_order_acquire);

		if (!fn)
			break;
		if (fn(sig, si, uctx)) {
			errno = saved_errno;
			return;
		}
	}
	errno = saved_errno;
	sigfault_chain(sig, si, uctx);
}

static int sigfault_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigfault_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < SIGFAULT_NSIGS; i++) {
		if (sigaction(sigfault_signals[i], &sa, &sigfault_prev[i])) {
			int err = errno;

			while (i-- > 0)
				sigaction(sigfault_signals[i], &sigfault_prev[i],
					  NULL);
			return -err;
		}
	}
	atomic_store_explicit(&sigfault_installed, true, memory_order_release);
	return 0;
}

int emu_sigfault_register(emu_sigfault_fn fn)
{
	int ret = 0;
	size_t i;

	if (!fn)
		return -EINVAL;
	pthread_mutex_lock(&sigfault_lock);
	for (i = 0; i < SIGFAULT_MAX_CLIENTS; i++) {
		emu_sigfault_fn cur = atomic_load_explicit(&sigfault_clients[i],
							   memory_order_relaxed);

		if (cur == fn)
			goto out;
		if (!cur)
			break;
	}
	if (i == SIGFAULT_MAX_CLIENTS) {
		ret = -ENOSPC;
		goto out;
	}
	/* Published before the handler exists, so the first fault finds it. */
	atomic_store_explicit(&sigfault_clients[i], fn, memory_order_release);
	if (!atomic_load_explicit(&sigfault_installed, memory_order_relaxed)) {
		ret = sigfault_install();
		if (ret)
			atomic_store_explicit(&sigfault_clients[i], NULL,
					      memory_order_relaxed);
	}
out:
	pthread_mutex_unlock(&sigfault_lock);
	return ret;
}

unsigned long emu_sigfault_seen(void)
{
	return atomic_load_explicit(&sigfault_nseen, memory_order_relaxed);
}
