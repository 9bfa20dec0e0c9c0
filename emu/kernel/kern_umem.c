/* SPDX-License-Identifier: MIT */
/*
 * umem registration (devx.c MLX5_IB_METHOD_DEVX_UMEM_REG): the kernel
 * checks the access flags, pins the pages (here: checks that every page of
 * the range is mapped with the access pinning needs), picks a page size
 * from the caller's pgsz_bitmap and gives firmware the memory with
 * CREATE_UMEM: one MTT entry per page, each with rd_en and, when the pages
 * were pinned for write, wr_en (mlx5_ib_populate_pas); the firmware's
 * answer is the id.  In the kernel's order:
 *
 *  - access bits other than LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ and
 *    RELAXED_ORDERING: EINVAL (uverbs_get_flags32); REMOTE_WRITE without
 *    LOCAL_WRITE: EINVAL (ib_check_mr_access);
 *  - a range that wraps, or is empty: EINVAL (ib_umem_get);
 *  - a page that is not mapped, or not readable, or not writable when the
 *    access is (ib_access_writable: pinned with FOLL_WRITE): EFAULT;
 *  - no page size (devx_umem_find_best_pgsize): EINVAL;
 *  - CREATE_UMEM refused: the errno of its status (mlx5_cmd_exec), e.g.
 *    ENOMEM when log_max_umem umems exist;
 *  - DESTROY_UMEM of a umem an object still uses: refused by firmware
 *    (bad resource state: EINVAL), the umem stays.
 *
 * The kernel's own queues (its EQs) are registered the same way under uid
 * 0 with 4 KiB pages, standing for the DMA memory mlx5_core gives them.
 *
 * A verbs MR with IBV_ACCESS_ON_DEMAND gets an ODP umem (ib_umem_odp_get):
 * the same checks and CREATE_UMEM, but nothing is pinned, so the range
 * need not be mapped yet.  The engine reaches every umem through emu/mem
 * at the mapping of each access, which is what ODP promises; an access
 * that finds nothing fails as an unresolved page fault does.  A prefetch
 * (ibv_advise_mr) checks the pages as pinning would.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "emu/kernel/kern.h"
#include "emu/mem/mem.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

#define KERN_PAGE_MASK (~(uintptr_t)(KERN_PAGE_SIZE - 1))

#define KERN_UMEM_ACCESS                                                      \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_RELAXED_ORDERING)

static unsigned int kern_fls64(uint64_t x)	/* bits_per(), fls64() */
{
	return x ? 64 - (unsigned int)__builtin_clzll(x) : 0;
}

static unsigned int kern_order_base_2(uint64_t x)
{
	return x > 1 ? kern_fls64(x - 1) : 0;
}

static uint64_t kern_genmask(unsigned int h, unsigned int l)
{
	return (UINT64_MAX >> (63 - h)) & ~((UINT64_C(1) << l) - 1);
}

/*
 * The page size the kernel picks for a umem at addr of len bytes from
 * @bitmap (devx_umem_find_best_pgsize() over ib_umem_find_best_pgoff()),
 * the process's pages standing for physical ones: the whole range is one
 * DMA-contiguous block whose DMA address is its virtual address.  0 when
 * no size fits (the registration fails with EINVAL).
 */
uint64_t kern_umem_best_pgsz(uintptr_t addr, size_t len, uint64_t bitmap)
{
	unsigned int order = kern_order_base_2(len);
	uint64_t mask, pgsz;

	/* Nothing larger than the umem, nothing below the adapter's page. */
	bitmap &= kern_genmask(order > KERN_PAGE_SHIFT ? order : KERN_PAGE_SHIFT,
			       KERN_PAGE_SHIFT);
	if (!bitmap)
		return 0;
	/* ib_umem_find_best_pgsz(): the smallest size holding the range in
	 * one page caps the choice (the VA and DMA bits never differ). */
	mask = bitmap & kern_genmask(63, kern_fls64((len - 1 + addr) ^ addr));
	if (mask)
		bitmap &= kern_genmask((unsigned int)__builtin_ctzll(mask), 0);
	if (!bitmap)
		return 0;
	pgsz = UINT64_C(1) << (kern_fls64(bitmap) - 1);
	/* Above the CPU page the umem must start and end on page bounds. */
	while (((addr & (pgsz - 1)) || len % pgsz) && pgsz > KERN_PAGE_SIZE)
		pgsz /= 2;
	return pgsz;
}

/*
 * An ODP umem's page size: the largest of @bitmap not above the range
 * (the adapter's page at least).  Its pages need not hold the range alone:
 * nothing is pinned, the first page's offset says where it starts.
 */
static uint64_t kern_umem_odp_pgsz(size_t len, uint64_t bitmap)
{
	unsigned int order = kern_order_base_2(len);

	bitmap &= kern_genmask(order > KERN_PAGE_SHIFT ? order : KERN_PAGE_SHIFT,
			       KERN_PAGE_SHIFT);
	return bitmap ? UINT64_C(1) << (kern_fls64(bitmap) - 1) : 0;
}

/* CREATE_UMEM of [addr, addr + size) in pages of @pgsz. */
static int kern_umem_create_pg(struct kern_dev *kdev, uint16_t uid, void *addr,
			       size_t size, bool writable, uint64_t pgsz,
			       uint32_t *umem_id)
{
	uint8_t out[PRM_ST_SZ_BYTES(create_umem_out)] = {};
	uintptr_t a = (uintptr_t)addr;
	uint64_t first, n;
	void *umem;
	size_t inlen;
	uint8_t *in;
	int ret;

	if (!pgsz)
		return -EINVAL;
	/* ib_umem_num_dma_blocks(), ib_umem_dma_offset() */
	first = a & ~(pgsz - 1);
	n = (((a + size + pgsz - 1) & ~(pgsz - 1)) - first) / pgsz;
	inlen = PRM_BYTE_OFF(create_umem_in, umem.mtt) + n * 8;
	in = calloc(1, inlen);
	if (!in)
		return -ENOMEM;
	PRM_SET(create_umem_in, in, opcode, MLX5_CMD_OP_CREATE_UMEM);
	PRM_SET(create_umem_in, in, uid, uid);
	umem = PRM_ADDR_OF(create_umem_in, in, umem);
	PRM_SET64(umem, umem, num_of_mtt, n);
	PRM_SET(umem, umem, log_page_size,
		kern_order_base_2(pgsz) - KERN_PAGE_SHIFT);
	PRM_SET(umem, umem, page_offset, (uint32_t)(a & (pgsz - 1)));
	/* mlx5_ib_populate_pas(): READ always, WRITE if pinned writable. */
	for (uint64_t i = 0; i < n; i++) {
		void *mtt = PRM_ARRAY_ADDR(umem, umem, mtt, i);
		uint64_t pa = first + i * pgsz;

		PRM_SET(mtt, mtt, ptag_63_32, (uint32_t)(pa >> 32));
		PRM_SET(mtt, mtt, ptag_31_8, (uint32_t)(pa >> 8) & 0xffffff);
		PRM_SET(mtt, mtt, rd_en, 1);
		PRM_SET(mtt, mtt, wr_en, writable);
	}
	ret = kern_fw_exec_checked(kdev, in, inlen, out, sizeof(out));
	free(in);
	if (ret)
		return ret;
	*umem_id = PRM_GET(create_umem_out, out, umem_id);
	return 0;
}

int kern_umem_create(struct kern_dev *kdev, uint16_t uid, void *addr,
		     size_t size, bool writable, uint64_t pgsz_bitmap,
		     uint32_t *umem_id)
{
	return kern_umem_create_pg(kdev, uid, addr, size, writable,
				   kern_umem_best_pgsz((uintptr_t)addr, size,
						       pgsz_bitmap),
				   umem_id);
}

int kern_umem_destroy(struct kern_dev *kdev, uint16_t uid, uint32_t umem_id)
{
	uint8_t in[PRM_ST_SZ_BYTES(destroy_umem_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(destroy_umem_out)] = {};

	PRM_SET(destroy_umem_in, in, opcode, MLX5_CMD_OP_DESTROY_UMEM);
	PRM_SET(destroy_umem_in, in, uid, uid);
	PRM_SET(destroy_umem_in, in, umem_id, umem_id);
	return kern_fw_exec_checked(kdev, in, sizeof(in), out, sizeof(out));
}

/* DEVX's umem (pinned), or a verbs MR's ODP umem (@odp: nothing pinned,
 * ib_umem_odp_get); the same checks otherwise. */
static struct mlx5be_umem *kern_umem_reg_any(struct mlx5be_ctx *ctx,
					     void *addr, size_t size,
					     uint32_t access,
					     uint64_t pgsz_bitmap,
					     uint32_t *umem_id, bool odp)
{
	struct kern_uctx *uctx = ctx->uctx;
	uintptr_t a = (uintptr_t)addr;
	struct mlx5be_umem *umem;
	bool writable;
	int ret;

	if (kern_uctx_lost(uctx)) {
		errno = EIO;
		return NULL;
	}
	/* uverbs_get_flags32() with the method's bits; ib_check_mr_access(). */
	if ((access & ~KERN_UMEM_ACCESS) ||
	    ((access & IBV_ACCESS_REMOTE_WRITE) &&
	     !(access & IBV_ACCESS_LOCAL_WRITE))) {
		errno = EINVAL;
		return NULL;
	}
	/* ib_umem_get(): wrap-around, and no page at all. */
	if (!size || a + size < a ||
	    ((a + size + KERN_PAGE_SIZE - 1) & KERN_PAGE_MASK) < a + size) {
		errno = EINVAL;
		return NULL;
	}
	/* ib_access_writable(): pinned for write. */
	writable = access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ret = odp ? 0 : emu_mem_pinnable(addr, size, writable);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	umem = calloc(1, sizeof(*umem));
	if (!umem) {
		errno = ENOMEM;
		return NULL;
	}
	umem->uctx = uctx;
	pthread_mutex_lock(&uctx->lock);
	/* devx_umem_reg_cmd_alloc(), then mlx5_cmd_exec() with the uid. */
	ret = kern_umem_create_pg(uctx->kdev, uctx->uid, addr, size, writable,
				  odp ? kern_umem_odp_pgsz(size, pgsz_bitmap) :
					kern_umem_best_pgsz(a, size,
							    pgsz_bitmap),
				  &umem->id);
	if (ret) {
		pthread_mutex_unlock(&uctx->lock);
		free(umem);
		errno = -ret;
		return NULL;
	}
	cds_list_add_tail(&umem->node, &uctx->umems);
	pthread_mutex_unlock(&uctx->lock);
	*umem_id = umem->id;
	return umem;
}

struct mlx5be_umem *kern_umem_reg(struct mlx5be_ctx *ctx, void *addr,
				  size_t size, uint32_t access,
				  uint64_t pgsz_bitmap, uint32_t *umem_id)
{
	return kern_umem_reg_any(ctx, addr, size, access, pgsz_bitmap, umem_id,
				 false);
}

struct mlx5be_umem *kern_umem_reg_odp(struct mlx5be_ctx *ctx, void *addr,
				      size_t size, uint32_t access,
				      uint64_t pgsz_bitmap, uint32_t *umem_id)
{
	return kern_umem_reg_any(ctx, addr, size, access, pgsz_bitmap, umem_id,
				 true);
}

/* pagefault_mr() for a prefetch: hmm_range_fault() of each page, for
 * write when asked; here, the mapping and its protection checked. */
int kern_umem_prefetch(struct mlx5be_umem *umem, void *addr, size_t len,
		       bool write)
{
	if (kern_uctx_lost(umem->uctx))
		return -EIO;
	return len ? emu_mem_pinnable(addr, len, write) : 0;
}

int kern_umem_dereg(struct mlx5be_umem *umem)
{
	struct kern_uctx *uctx = umem->uctx;
	int ret = 0;

	pthread_mutex_lock(&uctx->lock);
	/* devx_umem_cleanup(): a umem an object still uses stays.  The
	 * child's copy of a lost one just goes. */
	if (!kern_uctx_lost(uctx))
		ret = kern_umem_destroy(uctx->kdev, uctx->uid, umem->id);
	if (!ret)
		cds_list_del(&umem->node);
	pthread_mutex_unlock(&uctx->lock);
	if (!ret)
		free(umem);
	return ret;
}
