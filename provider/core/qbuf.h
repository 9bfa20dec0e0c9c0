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
 */
#ifndef MLX5EMU_PROVIDER_CORE_QBUF_H
#define MLX5EMU_PROVIDER_CORE_QBUF_H

#include <stdbool.h>
#include <stddef.h>

struct prov_qbuf {
	void *buf;
	size_t length;		/* what was mapped or allocated */
	bool huge;		/* huge pages */
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

#endif /* MLX5EMU_PROVIDER_CORE_QBUF_H */
