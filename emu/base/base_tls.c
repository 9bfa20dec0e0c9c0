/* SPDX-License-Identifier: MIT */
/*
 * emu/base/base_tls.c -- per-thread buffers made on first use (base.h).
 *
 * The core library is dlopen()ed by programs such as Python, and one
 * initial-exec thread-local variable (emu/mem's guard slot) places the
 * library's whole TLS block in the loader's small static surplus.  Large
 * per-thread state therefore lives on the heap behind a pthread key, and
 * the library's TLS block stays a few pointers.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "emu/base/base.h"

static pthread_mutex_t tls_key_lock = PTHREAD_MUTEX_INITIALIZER;

static int tls_key_ready(struct emu_tls_buf *b)
{
	int ret = 0;

	if (atomic_load_explicit(&b->ready, memory_order_acquire))
		return 0;
	pthread_mutex_lock(&tls_key_lock);
	if (!atomic_load_explicit(&b->ready, memory_order_relaxed)) {
		ret = pthread_key_create(&b->key, free);
		if (ret == 0)
			atomic_store_explicit(&b->ready, true,
					      memory_order_release);
	}
	pthread_mutex_unlock(&tls_key_lock);
	return ret;
}

void *emu_tls_buf_get(struct emu_tls_buf *b)
{
	void *p;

	if (tls_key_ready(b))
		return NULL;
	p = pthread_getspecific(b->key);
	if (p)
		return p;
	p = calloc(1, b->size);
	if (p && pthread_setspecific(b->key, p)) {
		free(p);
		p = NULL;
	}
	return p;
}
