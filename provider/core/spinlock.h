/* SPDX-License-Identifier: MIT */
/*
 * The queue locks as libmlx5 44 keeps them (struct mlx5_spinlock): a
 * spinlock, or none for a queue whose application promised one thread at
 * a time (a QP or SRQ of a parent domain with a thread domain).  Without
 * the lock, two threads inside at once is caught on a best-effort basis
 * and aborts the process, as libmlx5 does.
 */
#ifndef MLX5EMU_PROVIDER_CORE_SPINLOCK_H
#define MLX5EMU_PROVIDER_CORE_SPINLOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

struct prov_spinlock {
	pthread_spinlock_t lock;
	bool need_lock;
	atomic_bool in_use;	/* without the lock: someone is inside */
};

static inline int prov_spinlock_init(struct prov_spinlock *l, bool need_lock)
{
	l->need_lock = need_lock;
	atomic_init(&l->in_use, false);
	return pthread_spin_init(&l->lock, PTHREAD_PROCESS_PRIVATE);
}

static inline void prov_spinlock_destroy(struct prov_spinlock *l)
{
	pthread_spin_destroy(&l->lock);
}

static inline void prov_spin_lock(struct prov_spinlock *l)
{
	if (l->need_lock) {
		pthread_spin_lock(&l->lock);
		return;
	}
	/* A plain load and store, no read-modify-write: a check that costs
	 * nothing on the post path catches most violations, not all. */
	if (atomic_load_explicit(&l->in_use, memory_order_relaxed)) {
		fprintf(stderr, "mlx5emu: two threads at once in a queue of a "
				"thread domain\n");
		abort();
	}
	atomic_store_explicit(&l->in_use, true, memory_order_relaxed);
	atomic_thread_fence(memory_order_acq_rel);
}

static inline void prov_spin_unlock(struct prov_spinlock *l)
{
	if (l->need_lock)
		pthread_spin_unlock(&l->lock);
	else
		atomic_store_explicit(&l->in_use, false, memory_order_release);
}

#endif /* MLX5EMU_PROVIDER_CORE_SPINLOCK_H */
