/* SPDX-License-Identifier: MIT */
/* Queue buffers (see qbuf.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include <infiniband/mlx5dv.h>

#include "provider/core/fork_mem.h"
#include "provider/core/qbuf.h"

#define PROV_QBUF_HUGE (2u << 20)	/* libmlx5's MLX5_SHM_LENGTH */
#define PROV_QBUF_DBR 64u		/* one cache line per record */
#define PROV_QBUF_DBR_USED 8u		/* what the device reads */

enum qbuf_type {
	QBUF_ANON,
	QBUF_HUGE,
	QBUF_PREFER_HUGE,
	QBUF_CONTIG,
	QBUF_PREFER_CONTIG,
	QBUF_ALL,
};

/* mlx5_get_alloc_type(): unknown values keep the default. */
static enum qbuf_type qbuf_type(const char *prefix, enum qbuf_type dflt)
{
	static const struct {
		const char *name;
		enum qbuf_type type;
	} names[] = {
		{ "ANON", QBUF_ANON },
		{ "HUGE", QBUF_HUGE },
		{ "CONTIG", QBUF_CONTIG },
		{ "PREFER_CONTIG", QBUF_PREFER_CONTIG },
		{ "PREFER_HUGE", QBUF_PREFER_HUGE },
		{ "ALL", QBUF_ALL },
	};
	char name[128];
	const char *env;

	snprintf(name, sizeof(name), "%s_ALLOC_TYPE", prefix);
	env = getenv(name);
	if (env)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcasecmp(env, names[i].name))
				return names[i].type;
	return dflt;
}

/* Buffers are mappings of their own, never heap blocks: when fork
 * tracking marks them MADV_DONTFORK (fork_mem.c), nothing else on their
 * pages disappears from a child, and a leak checker walking the heap in a
 * child never reaches pages the child does not have. */
static int qbuf_map(struct prov_qbuf *qb, size_t len, int flags)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);

	if (p == MAP_FAILED)
		return errno;
	qb->buf = p;
	qb->length = len;
	qb->huge = flags & MAP_HUGETLB;
	return 0;
}

static int qbuf_huge(struct prov_qbuf *qb, size_t size)
{
	return qbuf_map(qb, (size + PROV_QBUF_HUGE - 1) &
			    ~(size_t)(PROV_QBUF_HUGE - 1), MAP_HUGETLB);
}

static int qbuf_anon(struct prov_qbuf *qb, size_t size)
{
	return qbuf_map(qb, (size + PROV_PAGE_SIZE - 1) &
			    ~(size_t)(PROV_PAGE_SIZE - 1), 0);
}

static int qbuf_alloc(struct prov_qbuf *qb, size_t size, const char *prefix,
		      bool huge_default)
{
	enum qbuf_type type = qbuf_type(prefix, huge_default ? QBUF_HUGE :
							      QBUF_ANON);

	memset(qb, 0, sizeof(*qb));
	if (!size)
		return EINVAL;
	switch (type) {
	case QBUF_HUGE:
		return qbuf_huge(qb, size);
	case QBUF_PREFER_HUGE:
	case QBUF_ALL:
		if (!qbuf_huge(qb, size))
			return 0;
		break;
	case QBUF_CONTIG:
		/* mlx5_ib_mmap: MLX5_IB_MMAP_GET_CONTIGUOUS_PAGES is ENOSYS. */
		return ENOSYS;
	default:
		break;
	}
	return qbuf_anon(qb, size);
}

static void qbuf_release(struct prov_qbuf *qb)
{
	munmap(qb->buf, qb->length);
	qb->buf = NULL;
}

/* mlx5_alloc_buf(): a buffer is kept from children (fork_mem.c) as long
 * as it lives; when that fails, so does the allocation. */
int prov_qbuf_alloc_dflt(struct prov_qbuf *qb, size_t size, const char *prefix,
			 bool huge_default)
{
	int ret = qbuf_alloc(qb, size, prefix, huge_default);

	if (ret || !prov_dontfork_range(qb->buf, qb->length))
		return ret;
	ret = errno;
	qbuf_release(qb);
	return ret;
}

int prov_qbuf_alloc(struct prov_qbuf *qb, size_t size, const char *prefix)
{
	return prov_qbuf_alloc_dflt(qb, size, prefix, false);
}

/* A page of doorbell records from the context's allocators. */
struct prov_qbuf_dbr_page {
	struct prov_qbuf_dbr_page *next;
	struct prov_qbuf mem;			/* PROV_QBUF_EXTERN */
	uint64_t used;				/* a bit a record */
};

_Static_assert(PROV_PAGE_SIZE / PROV_QBUF_DBR == 64, "a bit a record");

void prov_qbuf_xalloc_init(struct prov_qbuf_xalloc *xa)
{
	memset(xa, 0, sizeof(*xa));
	pthread_mutex_init(&xa->lock, NULL);
}

void prov_qbuf_xalloc_fini(struct prov_qbuf_xalloc *xa)
{
	/* Pages still held belong to queues the application never
	 * destroyed: left to it, as libmlx5 leaves them. */
	pthread_mutex_destroy(&xa->lock);
}

static bool qbuf_xa_set(const struct prov_qbuf_xalloc *xa)
{
	return xa && xa->alloc && xa->free;
}

/* mlx5_alloc_buf_extern(). */
static int qbuf_extern(struct prov_qbuf *qb, struct prov_qbuf_xalloc *xa,
		       size_t size)
{
	void *p = xa->alloc(size, xa->data);
	int err;

	if (!p && size)
		return ENOMEM;
	if (prov_dontfork_range(p, size)) {
		err = errno ? errno : ENOMEM;
		xa->free(p, xa->data);
		return err;
	}
	/* libmlx5 zeroes every buffer but a parent domain's. */
	if (size)
		memset(p, 0, size);
	qb->buf = p;
	qb->length = size;
	qb->kind = PROV_QBUF_EXTERN;
	qb->xa = xa;
	return 0;
}

static void qbuf_dbr_put(struct prov_qbuf *qb)
{
	struct prov_qbuf_xalloc *xa = qb->xa;
	struct prov_qbuf_dbr_page *pg = qb->page, **pp;
	size_t i = (size_t)((uint8_t *)qb->buf - (uint8_t *)pg->mem.buf) /
		   PROV_QBUF_DBR;

	pthread_mutex_lock(&xa->lock);
	pg->used &= ~(1ull << i);
	if (!pg->used) {	/* mlx5_free_db: the last record takes it */
		for (pp = &xa->pages; *pp != pg; pp = &(*pp)->next)
			;
		*pp = pg->next;
		prov_qbuf_free(&pg->mem);
		free(pg);
	}
	pthread_mutex_unlock(&xa->lock);
}

void prov_qbuf_free(struct prov_qbuf *qb)
{
	switch (qb->kind) {
	case PROV_QBUF_EXTERN:
		prov_dofork_range(qb->buf, qb->length);
		qb->xa->free(qb->buf, qb->xa->data);
		break;
	case PROV_QBUF_DBR_PAGE:
		qbuf_dbr_put(qb);
		break;
	case PROV_QBUF_CUSTOM:
		/* Also a NULL buffer of size 0: libmlx5 hands every custom
		 * buffer back. */
		qb->ext.free(qb->ext.pd, qb->ext.pd_context, qb->buf,
			     qb->res_type);
		break;
	case PROV_QBUF_HEAP:
		free(qb->buf);
		break;
	case PROV_QBUF_MAP:
		if (!qb->buf)
			return;
		prov_dofork_range(qb->buf, qb->length);
		qbuf_release(qb);
		break;
	}
	memset(qb, 0, sizeof(*qb));
}

int prov_qbuf_alloc_ext(struct prov_qbuf *qb, const struct prov_qbuf_ext *ext,
			struct prov_qbuf_xalloc *xa, size_t size, size_t align,
			uint64_t res_type, bool *dflt)
{
	void *p;

	memset(qb, 0, sizeof(*qb));
	*dflt = false;
	/* mlx5_get_alloc_type(): a parent domain's allocator first (its
	 * USE_DEFAULT means the default, not the context's), then the
	 * context's. */
	if (!ext || !ext->alloc || !ext->free) {
		if (qbuf_xa_set(xa))
			return qbuf_extern(qb, xa, size);
		*dflt = true;
		return 0;
	}
	p = ext->alloc(ext->pd, ext->pd_context, size, align, res_type);
	if (p == IBV_ALLOCATOR_USE_DEFAULT) {
		*dflt = true;
		return 0;
	}
	if (!p && size)
		return ENOMEM;
	qb->buf = p;
	qb->length = size;
	qb->kind = PROV_QBUF_CUSTOM;
	qb->ext = *ext;
	qb->res_type = res_type;
	return 0;
}

/* A record of a page of the context's allocators (dbrec.c's
 * __add_page: a page of the device's size, a cache line a record). */
static int qbuf_dbr_get(struct prov_qbuf *qb, struct prov_qbuf_xalloc *xa)
{
	struct prov_qbuf_dbr_page *pg;
	int err = 0, i;

	pthread_mutex_lock(&xa->lock);
	for (pg = xa->pages; pg && !~pg->used; pg = pg->next)
		;
	if (!pg) {
		pg = calloc(1, sizeof(*pg));
		err = pg ? qbuf_extern(&pg->mem, xa, PROV_PAGE_SIZE) : ENOMEM;
		if (err) {
			free(pg);
			goto out;
		}
		pg->next = xa->pages;
		xa->pages = pg;
	}
	i = __builtin_ctzll(~pg->used);
	pg->used |= 1ull << i;
	qb->buf = (uint8_t *)pg->mem.buf + (size_t)i * PROV_QBUF_DBR;
	qb->length = PROV_QBUF_DBR;
	qb->kind = PROV_QBUF_DBR_PAGE;
	qb->xa = xa;
	qb->page = pg;
out:
	pthread_mutex_unlock(&xa->lock);
	return err;
}

int prov_qbuf_dbr_alloc(struct prov_qbuf *qb, const struct prov_qbuf_ext *ext,
			struct prov_qbuf_xalloc *xa)
{
	bool dflt;
	int err;

	/* A parent domain's allocator first; then (also when it answers
	 * USE_DEFAULT) the pages, of the context's allocators if set. */
	err = prov_qbuf_alloc_ext(qb, ext, NULL, PROV_QBUF_DBR_USED,
				  PROV_QBUF_DBR_USED, MLX5DV_RES_TYPE_DBR, &dflt);
	if (err)
		return err;
	if (dflt && qbuf_xa_set(xa)) {
		err = qbuf_dbr_get(qb, xa);
		if (err)
			return err;
	} else if (dflt) {
		err = posix_memalign(&qb->buf, PROV_QBUF_DBR, PROV_QBUF_DBR);
		if (err) {
			qb->buf = NULL;
			return err;
		}
		qb->length = PROV_QBUF_DBR;
		qb->kind = PROV_QBUF_HEAP;
	}
	/*
	 * libmlx5 leaves an allocator's QP and SRQ records as they come; a
	 * ConnectX reads them only after the first doorbell, but this device
	 * takes the records as the truth from the start, so stale bytes would
	 * post WQEs nobody wrote.  Zeroing the 8 bytes asked for is what
	 * libmlx5 does for every CQ record and every record of its own.
	 */
	memset(qb->buf, 0, PROV_QBUF_DBR_USED);
	return 0;
}
