/* SPDX-License-Identifier: MIT */
/* Queue buffers (see qbuf.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include "provider/core/fork_mem.h"
#include "provider/core/qbuf.h"

#define PROV_QBUF_PAGE 4096u
#define PROV_QBUF_HUGE (2u << 20)	/* libmlx5's MLX5_SHM_LENGTH */

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
	return qbuf_map(qb, (size + PROV_QBUF_PAGE - 1) &
			    ~(size_t)(PROV_QBUF_PAGE - 1), 0);
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

void prov_qbuf_free(struct prov_qbuf *qb)
{
	if (!qb->buf)
		return;
	prov_dofork_range(qb->buf, qb->length);
	qbuf_release(qb);
}
