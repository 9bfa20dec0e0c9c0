/* SPDX-License-Identifier: MIT */
/*
 * Queue buffers as libmlx5 44 allocates them (buf.c): page-aligned memory
 * of the type the <prefix>_ALLOC_TYPE environment variable asks for
 * (MLX_CQ_ALLOC_TYPE, MLX_QP_ALLOC_TYPE, MLX_SRQ_ALLOC_TYPE):
 *
 *   ANON (default)   page-aligned anonymous memory (a mapping of its own,
 *                    where libmlx5 takes heap memory: see qbuf.c)
 *   HUGE             2 MiB huge pages, or fail (errno from the kernel)
 *   PREFER_HUGE      huge pages, else the default
 *   CONTIG           contiguous pages from the kernel, which the upstream
 *                    kernel no longer gives (its mmap answers ENOSYS), so
 *                    this fails with ENOSYS
 *   PREFER_CONTIG    the default (after contig fails)
 *   ALL              huge, then the default
 *
 * A parent domain with allocators (ibv_alloc_parent_domain) replaces all
 * of these: its alloc callback is asked for the queue's memory with the
 * size, alignment and resource type libmlx5 asks for (MLX5DV_RES_TYPE_*),
 * and IBV_ALLOCATOR_USE_DEFAULT hands the choice back to the above; such
 * memory is neither zeroed nor kept from children, and goes back through
 * the free callback.  Without one, a context's allocators
 * (mlx5dv_set_context_attr(MLX5DV_CTX_ATTR_BUF_ALLOCATORS)) are asked for
 * the buffer's size; their memory is zeroed and kept from children.
 * Doorbell records are 8 bytes of a parent domain's allocator (alignment
 * 8), else 64-byte records of pages of the context's allocators, else 64
 * bytes of the heap aligned to 64.
 */
#ifndef MLX5EMU_PROVIDER_CORE_QBUF_H
#define MLX5EMU_PROVIDER_CORE_QBUF_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* The system page size libmlx5 sizes queues by (x86-64's and arm64's
 * usual 4 KiB). */
#define PROV_PAGE_SIZE 4096u

/* An application's allocator: a parent domain's callbacks and context. */
struct prov_qbuf_ext {
	struct ibv_pd *pd;		/* the parent domain, passed back */
	void *pd_context;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
};

/*
 * mlx5dv_set_context_attr(MLX5DV_CTX_ATTR_BUF_ALLOCATORS): a context's
 * allocators (the struct copied, as libmlx5 keeps it), asked for queue
 * buffers when no parent domain has allocators, and for whole pages of
 * doorbell records (libmlx5's dbrec.c), which go back when their last
 * record does.
 */
struct prov_qbuf_dbr_page;
struct prov_qbuf_xalloc {
	void *(*alloc)(size_t size, void *priv_data);
	void (*free)(void *ptr, void *priv_data);
	void *data;
	pthread_mutex_t lock;			/* the pages */
	struct prov_qbuf_dbr_page *pages;
};

void prov_qbuf_xalloc_init(struct prov_qbuf_xalloc *xa);
void prov_qbuf_xalloc_fini(struct prov_qbuf_xalloc *xa);

enum prov_qbuf_kind {
	PROV_QBUF_MAP,		/* a mapping of our own */
	PROV_QBUF_HEAP,		/* a doorbell record of the heap */
	PROV_QBUF_CUSTOM,	/* the parent domain's allocator's */
	PROV_QBUF_EXTERN,	/* the context's allocator's */
	PROV_QBUF_DBR_PAGE,	/* a record in a page of the context's */
};

struct prov_qbuf {
	void *buf;
	size_t length;		/* what was mapped or allocated */
	bool huge;		/* huge pages */
	enum prov_qbuf_kind kind;
	/* PROV_QBUF_CUSTOM: whose, and the type it was asked for (a copy:
	 * the parent domain may go before the queue does). */
	struct prov_qbuf_ext ext;
	uint64_t res_type;
	/* PROV_QBUF_EXTERN, PROV_QBUF_DBR_PAGE: the context's allocators
	 * (the free they hold then frees it, as in libmlx5), the page. */
	struct prov_qbuf_xalloc *xa;
	struct prov_qbuf_dbr_page *page;
};

/*
 * Allocates @size bytes (rounded up to pages) for the component whose
 * environment prefix is @prefix ("MLX_CQ"): 0 or an errno.
 */
int prov_qbuf_alloc(struct prov_qbuf *qb, size_t size, const char *prefix);
/* The same with HUGE as the type when the variable is unset (libmlx5's
 * default_alloc_type, e.g. HUGE_RC=y for RC QPs). */
int prov_qbuf_alloc_dflt(struct prov_qbuf *qb, size_t size, const char *prefix,
			 bool huge_default);
void prov_qbuf_free(struct prov_qbuf *qb);

/*
 * From the parent domain's allocator @ext (NULL: none) when it has one:
 * @size bytes aligned to @align for @res_type.  0 with qb->buf set (NULL
 * only for size 0), 0 with *dflt when it answered
 * IBV_ALLOCATOR_USE_DEFAULT, ENOMEM when it answered NULL.  Without one,
 * from the context's allocators @xa when set (mlx5_alloc_buf_extern:
 * NULL for a size is ENOMEM, the memory is kept from children), else 0
 * with *dflt.
 */
int prov_qbuf_alloc_ext(struct prov_qbuf *qb, const struct prov_qbuf_ext *ext,
			struct prov_qbuf_xalloc *xa, size_t size, size_t align,
			uint64_t res_type, bool *dflt);

/* A doorbell record (mlx5_alloc_dbrec): the parent domain's allocator's,
 * else one of a page of the context's allocators, else the heap's; its
 * first 8 bytes zeroed.  0 or an errno. */
int prov_qbuf_dbr_alloc(struct prov_qbuf *qb, const struct prov_qbuf_ext *ext,
			struct prov_qbuf_xalloc *xa);

#endif /* MLX5EMU_PROVIDER_CORE_QBUF_H */
