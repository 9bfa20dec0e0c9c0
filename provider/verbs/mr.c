/* SPDX-License-Identifier: MIT */
/*
 * Memory regions, as rdma-core 44 (libibverbs verbs.c, libmlx5 mlx5_reg_mr)
 * over the upstream kernel (ib_uverbs_reg_mr/rereg_mr, ib_check_mr_access,
 * ib_umem_get, mlx5_ib_reg_user_mr) behave.  Each MR is a umem over
 * [addr, addr + length) and a direct MTT mkey over that umem (CREATE_MKEY
 * with mkey_umem_id/offset, start_addr = iova, lr always, lw/rw/rr/a from
 * the access flags, qpn 0xffffff, a key byte that changes with each mkey as
 * the kernel's mkey_var does); lkey = rkey = mkey_index << 8 | key.
 *
 * Errors (NULL + errno for the reg calls, an errno for dereg):
 *   EINVAL      addr and iova differ in their offset within a page;
 *               REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE; an
 *               access bit outside the ones the kernel knows (bits 10-19,
 *               30, 31); length 0 or a range that wraps (but addr NULL
 *               and length SIZE_MAX with ON_DEMAND: the implicit MR, whose
 *               iova must be 0); a PD being deallocated
 *   EOPNOTSUPP  ON_DEMAND where no ODP is offered (mr_odp.c), FLUSH_GLOBAL/
 *               FLUSH_PERSISTENT (bits 8, 9: no such device capability)
 *   EFAULT      a page of the range is not mapped (umem pinning; not for
 *               ODP, which pins nothing)
 *   others      the mkey command's errno (mlx5_cmd_exec mapping)
 * Access bits of IBV_ACCESS_OPTIONAL_RANGE are dropped silently unless the
 * device advertises them (relaxed ordering: relaxed_ordering_write/read).
 *
 * ibv_rereg_mr returns 0 or an ibv_rereg_mr_err_code with errno:
 * IBV_REREG_MR_ERR_INPUT (-1) for what libibverbs refuses itself (unknown
 * flags, CHANGE_TRANSLATION without addr or length, access without
 * CHANGE_ACCESS), IBV_REREG_MR_ERR_CMD (-4) for what the kernel refuses
 * (no flags, bad access or PD, umem or mkey failure).  Without a new
 * translation, a change of PD and of the access flags a UMR can change is
 * made in place and lkey/rkey stay (mlx5_ib_rereg_user_mr,
 * can_use_umr_rereg_access, umr_rereg_pd_access; the backend's mkey_rereg);
 * otherwise the rereg gets a new mkey, so lkey/rkey change.  A failed one
 * leaves the MR as it was.
 *
 * ibv_import_mr (libibverbs ibv_cmd_query_mr over UVERBS_METHOD_QUERY_MR)
 * gives an MR of the context's file by its handle: lkey, rkey and length
 * as the kernel keeps them, addr NULL, pd the one passed; NULL + ENOENT
 * for a handle naming nothing, EINVAL for one naming an object of another
 * type, EOPNOTSUPP where the backend has no uverbs handles.
 * ibv_unimport_mr frees the userspace MR only.  The mkey stays the
 * original context's: ibv_rereg_mr and ibv_dereg_mr of an imported MR
 * fail with EOPNOTSUPP.
 *
 * Fork tracking (provider/core/fork_mem.c), as libibverbs does it around
 * the provider: reg marks the range before registering (its failure is
 * the reg's, with madvise's errno) and unmarks it when the registration
 * fails; dereg unmarks it after success; rereg with CHANGE_TRANSLATION
 * marks the new range first (IBV_REREG_MR_ERR_DONT_FORK_NEW), then
 * unmarks the old one on success (IBV_REREG_MR_ERR_DO_FORK_OLD) or the
 * new one on failure (IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/fork_mem.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/mr.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/mana/mana_prov.h"

#define PROV_PAGE_SIZE 4096u

/* The kernel's IB_ACCESS_FLUSH_GLOBAL / IB_ACCESS_FLUSH_PERSISTENT. */
#define PROV_ACCESS_FLUSH_GLOBAL (1u << 8)
#define PROV_ACCESS_FLUSH_PERSISTENT (1u << 9)

/* IB_ACCESS_SUPPORTED: ((IB_ACCESS_FLUSH_PERSISTENT << 1) - 1) | optional. */
#define PROV_ACCESS_SUPPORTED                                                 \
	(((PROV_ACCESS_FLUSH_PERSISTENT << 1) - 1) |                           \
	 (unsigned int)IBV_ACCESS_OPTIONAL_RANGE)

/*
 * What the umem is registered with: the bits DEVX UMEM_REG takes.  Pinning
 * for write follows LOCAL_WRITE (which REMOTE_WRITE and REMOTE_ATOMIC
 * require), as ib_umem_get's ib_access_writable() does for an MR.
 */
#define PROV_UMEM_ACCESS                                                      \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ)
/* With whether the umem is an ODP one (prov_mr_umem_reg). */
#define MR_UMEM_ACCESS (PROV_UMEM_ACCESS | IBV_ACCESS_ON_DEMAND)

/* mlx5_ib's mkey_var: the key byte of the next mkey. */
static atomic_uint prov_mkey_var;

uint8_t prov_mkey_variant(void)
{
	return (uint8_t)(atomic_fetch_add(&prov_mkey_var, 1) + 1);
}

/* ib_check_mr_access(). */
static int mr_check_access(struct prov_context *pctx, unsigned int access)
{
	if ((access & (IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_WRITE)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	if (access & ~PROV_ACCESS_SUPPORTED)
		return EINVAL;
	/* IBK_ON_DEMAND_PAGING: `pg`, and a backend that takes ODP umems. */
	if ((access & IBV_ACCESS_ON_DEMAND) && !prov_mr_odp_offered(pctx))
		return EOPNOTSUPP;
	if (access & (PROV_ACCESS_FLUSH_GLOBAL | PROV_ACCESS_FLUSH_PERSISTENT))
		return EOPNOTSUPP;
	return 0;
}

/* ib_umem_get()'s range checks: nothing to pin, or a wrapping range. */
static int mr_check_range(const void *addr, size_t length)
{
	uintptr_t a = (uintptr_t)addr;

	if (!length || a + length < a ||
	    ((a + length + PROV_PAGE_SIZE - 1) & ~(uintptr_t)(PROV_PAGE_SIZE - 1)) <
		    a + length)
		return EINVAL;
	return 0;
}

/* Fills an mkc for a direct MTT mkey over a umem. */
static void mr_fill_mkc(struct prov_context *pctx, void *in, uint32_t pdn,
			uint64_t iova, uint64_t len, unsigned int access,
			uint32_t umem_id, const void *addr, uint8_t key)
{
	/* An implicit ODP MR's umem has 8 TiB pages (mr_odp.c). */
	unsigned int shift =
		addr == prov_mr_odp_start(NULL, SIZE_MAX) &&
		len == prov_mr_odp_span(NULL, SIZE_MAX) ? 43 : 12;
	uint64_t first = (uintptr_t)addr >> shift;
	uint64_t last = ((uintptr_t)addr + len - 1) >> shift;
	uint32_t npages = (uint32_t)(last - first + 1);
	uint32_t octwords = (npages + 1) / 2;
	void *mkc = PRM_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);

	PRM_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	PRM_SET(create_mkey_in, in, mkey_umem_valid, 1);
	PRM_SET(create_mkey_in, in, mkey_umem_id, umem_id);
	PRM_SET64(create_mkey_in, in, mkey_umem_offset, 0);
	PRM_SET(create_mkey_in, in, translations_octword_actual_size, octwords);
	PRM_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT & 3);
	PRM_SET(mkc, mkc, access_mode_4_2, MLX5_MKC_ACCESS_MODE_MTT >> 2);
	PRM_SET(mkc, mkc, lr, 1);
	PRM_SET(mkc, mkc, lw, !!(access & IBV_ACCESS_LOCAL_WRITE));
	PRM_SET(mkc, mkc, rr, !!(access & IBV_ACCESS_REMOTE_READ));
	PRM_SET(mkc, mkc, rw, !!(access & IBV_ACCESS_REMOTE_WRITE));
	PRM_SET(mkc, mkc, a, !!(access & IBV_ACCESS_REMOTE_ATOMIC));
	if (access & IBV_ACCESS_RELAXED_ORDERING) {
		/* set_mkc_access_pd_addr_fields(): only what the device has. */
		if (PROV_CAP_GEN(pctx, relaxed_ordering_write))
			PRM_SET(mkc, mkc, relaxed_ordering_write, 1);
		if (PROV_CAP_GEN(pctx, relaxed_ordering_read))
			PRM_SET(mkc, mkc, relaxed_ordering_read, 1);
	}
	PRM_SET(mkc, mkc, qpn, 0xffffff);
	PRM_SET(mkc, mkc, mkey_7_0, key);
	PRM_SET(mkc, mkc, pd, pdn);
	PRM_SET64(mkc, mkc, start_addr, iova);
	PRM_SET64(mkc, mkc, len, len);
	PRM_SET(mkc, mkc, translations_octword_size, octwords);
	PRM_SET(mkc, mkc, log_page_size, shift);
}

/* CREATE_MKEY; 0 and the mkey value, or a positive errno. */
static int mr_mkey_create(struct prov_context *pctx, struct ibv_pd *pd,
			  uint32_t umem_id, const void *addr, uint64_t iova,
			  uint64_t len, unsigned int access,
			  struct mlx5be_obj **obj, uint32_t *mkey)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_mkey_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_mkey_out)] = { 0 };
	uint8_t key = prov_mkey_variant();

	mr_fill_mkc(pctx, in, prov_pd_pdn(pd), iova, len, access, umem_id, addr,
		    key);
	*obj = prov_obj_create(pctx, in, sizeof(in), out, sizeof(out));
	if (!*obj)
		return errno;
	*mkey = PRM_GET(create_mkey_out, out, mkey_index) << 8 | key;
	return 0;
}

/* What QUERY_MR answers about @mr. */
static void mr_uobj(const struct prov_mr *mr, struct mlx5be_uobj *u)
{
	*u = (struct mlx5be_uobj){ .type = MLX5BE_UOBJ_MR,
				   .lkey = mr->ibmr.lkey,
				   .rkey = mr->ibmr.rkey,
				   .length = mr->ibmr.length };
}

/* The MR's handle: the backend's uverbs handle, or one of our own. */
static int mr_handle_add(struct prov_context *pctx, struct prov_mr *mr)
{
	struct mlx5be_uobj u;

	if (!pctx->be->uobj_add) {
		mr->ibmr.handle = prov_handle_alloc(pctx);
		return 0;
	}
	mr_uobj(mr, &u);
	return -pctx->be->uobj_add(pctx->bectx, &u, &mr->ibmr.handle);
}

/* The provider's and the kernel's part of ibv_reg_mr. */
static struct ibv_mr *mr_create(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	struct prov_context *pctx;
	struct prov_mr *mr;
	uint32_t umem_id, mkey;
	int err;

	pctx = to_prov_context(pd->context);
	/* ib_uverbs_reg_mr: the page offsets of start and hca_va agree. */
	if (((uintptr_t)addr ^ iova) & (PROV_PAGE_SIZE - 1)) {
		errno = EINVAL;
		return NULL;
	}
	err = mr_check_access(pctx, access);
	if (!err && (access & IBV_ACCESS_ON_DEMAND) &&
	    prov_mr_odp_implicit(addr, length))
		err = iova ? EINVAL : 0;	/* create_user_odp_mr() */
	else if (!err)
		err = mr_check_range(addr, length);
	if (err) {
		errno = err;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	err = prov_pd_use(pd);
	if (err)
		goto err_free;
	errno = 0;
	mr->umem = prov_mr_umem_reg(pctx, addr, length, access & MR_UMEM_ACCESS,
				    &umem_id);
	if (!mr->umem) {
		err = errno ? errno : EFAULT;
		goto err_pd;
	}
	err = mr_mkey_create(pctx, pd, umem_id, prov_mr_odp_start(addr, length),
			     (uintptr_t)prov_mr_odp_start((void *)(uintptr_t)iova,
							  length),
			     prov_mr_odp_span(addr, length), access, &mr->mkey,
			     &mkey);
	if (err)
		goto err_umem;
	mr->umem_id = umem_id;

	pthread_mutex_init(&mr->lock, NULL);
	mr->iova = iova;
	mr->access = access;
	mr->ibmr.context = pd->context;
	mr->ibmr.pd = pd;
	mr->ibmr.addr = addr;
	mr->ibmr.length = length;
	mr->ibmr.lkey = mkey;
	mr->ibmr.rkey = mkey;
	err = mr_handle_add(pctx, mr);
	if (err)
		goto err_mkey;
	mr->odp = access & IBV_ACCESS_ON_DEMAND;
	if (mr->odp)
		prov_mr_odp_track(pctx, mr);
	return &mr->ibmr;

err_mkey:
	pthread_mutex_destroy(&mr->lock);
	prov_obj_destroy(pctx, mr->mkey);
err_umem:
	prov_umem_dereg(pctx, mr->umem);
err_pd:
	prov_pd_unuse(pd);
err_free:
	free(mr);
	errno = err;
	return NULL;
}

/* libibverbs' part: fork tracking around the provider's. */
static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			     uint64_t iova, unsigned int access)
{
	bool odp = access & IBV_ACCESS_ON_DEMAND;
	struct ibv_mr *mr;
	int err;

	if (pd && prov_mana_is(pd->context))
		return prov_mana_reg_mr(pd, addr, length, iova, (int)access);
	if (!pd) {
		errno = EINVAL;
		return NULL;
	}
	if (!odp && prov_dontfork_range(addr, length))
		return NULL;
	mr = mr_create(pd, addr, length, iova, access);
	if (!mr && !odp) {
		err = errno;
		prov_dofork_range(addr, length);
		errno = err;
	}
	return mr;
}

MLX5EMU_ABI(ibv_reg_mr_iova2);
struct ibv_mr *mlx5emu_abi_ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
					    size_t length, uint64_t iova,
					    unsigned int access)
{
	return reg_mr(pd, addr, length, iova, access);
}

MLX5EMU_ABI(ibv_reg_mr);
struct ibv_mr *mlx5emu_abi_ibv_reg_mr(struct ibv_pd *pd, void *addr,
				      size_t length, int access)
{
	return reg_mr(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

MLX5EMU_ABI(ibv_reg_mr_iova);
struct ibv_mr *mlx5emu_abi_ibv_reg_mr_iova(struct ibv_pd *pd, void *addr,
					   size_t length, uint64_t iova,
					   int access)
{
	return reg_mr(pd, addr, length, iova, (unsigned int)access);
}

/*
 * Whether the UMR can change the access flags from @cur to @target
 * (can_use_umr_rereg_access and mlx5r_umr_can_reconfig): only LOCAL_WRITE,
 * REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC and RELAXED_ORDERING may differ;
 * atomic not where the device forbids its UMR change, relaxed ordering not
 * where it is offered without its UMR counterpart.
 */
static bool mr_umr_can_reconfig(struct prov_context *pctx, unsigned int cur,
				unsigned int target)
{
	unsigned int diffs = cur ^ target;

	if (!pctx->be->mkey_rereg)
		return false;
	if (diffs & ~(unsigned int)(IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC |
				    IBV_ACCESS_RELAXED_ORDERING))
		return false;
	if ((diffs & IBV_ACCESS_REMOTE_ATOMIC) && PROV_CAP_GEN(pctx, atomic) &&
	    PROV_CAP_GEN(pctx, umr_modify_atomic_disabled))
		return false;
	if ((diffs & IBV_ACCESS_RELAXED_ORDERING) &&
	    ((PROV_CAP_GEN(pctx, relaxed_ordering_write) &&
	      !PROV_CAP_GEN(pctx, relaxed_ordering_write_umr)) ||
	     (PROV_CAP_GEN(pctx, relaxed_ordering_read) &&
	      !PROV_CAP_GEN(pctx, relaxed_ordering_read_umr))))
		return false;
	return true;
}

/* The kernel's part of ibv_rereg_mr: 0 or a positive errno. */
static int rereg_mr(struct prov_mr *mr, int flags, struct ibv_pd *pd,
		    void *addr, size_t length, unsigned int access)
{
	struct prov_context *pctx = to_prov_context(mr->ibmr.context);
	struct ibv_pd *new_pd = mr->ibmr.pd;
	struct mlx5be_umem *umem = mr->umem;
	uint32_t umem_id = mr->umem_id;
	struct mlx5be_obj *mkey_obj;
	uint64_t iova = mr->iova;
	void *maddr = mr->ibmr.addr;
	size_t mlen = mr->ibmr.length;
	uint32_t mkey;
	int err;

	/* ib_uverbs_rereg_mr: no flags at all is EINVAL. */
	if (!flags)
		return EINVAL;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS) {
		err = mr_check_access(pctx, access);
		if (err)
			return err;
	} else {
		access = mr->access;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD) {
		if (!pd || pd->context != mr->ibmr.context)
			return EINVAL;
		new_pd = pd;
	}
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		/* mlx5_rereg_mr passes hca_va = addr. */
		err = mr_check_range(addr, length);
		if (err)
			return err;
		maddr = addr;
		mlen = length;
		iova = (uintptr_t)addr;
	}
	err = prov_pd_use(new_pd);
	if (err)
		return err;
	if (!(flags & IBV_REREG_MR_CHANGE_TRANSLATION) &&
	    mr_umr_can_reconfig(pctx, mr->access, access)) {
		err = -pctx->be->mkey_rereg(mr->mkey, prov_pd_pdn(new_pd),
					    access);
		if (err)
			goto err_pd;
		prov_pd_unuse(mr->ibmr.pd);
		mr->access = access;
		return 0;
	}
	/* mlx5_ib_rereg_user_mr(): an ODP MR has no umem to reuse, so it is
	 * registered anew (pinned if the access has no ON_DEMAND now); a
	 * pinned one keeps its umem whatever the access says. */
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) || mr->odp) {
		errno = 0;
		umem = prov_mr_umem_reg(pctx, maddr, mlen,
					access & MR_UMEM_ACCESS, &umem_id);
		if (!umem) {
			err = errno ? errno : EFAULT;
			goto err_pd;
		}
	}
	err = mr_mkey_create(pctx, new_pd, umem_id, prov_mr_odp_start(maddr, mlen),
			     (uintptr_t)prov_mr_odp_start((void *)(uintptr_t)iova,
							  mlen),
			     prov_mr_odp_span(maddr, mlen), access, &mkey_obj,
			     &mkey);
	if (err)
		goto err_umem;
	/* The new mkey is in place: retire the old one (and its umem). */
	err = prov_obj_destroy(pctx, mr->mkey);
	if (err) {
		prov_obj_destroy(pctx, mkey_obj);
		goto err_umem;
	}
	/* advise_mr reads an ODP MR's fields: out of its list meanwhile. */
	if (mr->odp)
		prov_mr_odp_untrack(pctx, mr);
	if (umem != mr->umem) {
		prov_umem_dereg(pctx, mr->umem);
		mr->odp = access & IBV_ACCESS_ON_DEMAND;
	}
	prov_pd_unuse(mr->ibmr.pd);
	mr->mkey = mkey_obj;
	mr->umem = umem;
	mr->umem_id = umem_id;
	mr->iova = iova;
	mr->access = access;
	mr->ibmr.lkey = mkey;
	mr->ibmr.rkey = mkey;
	if (mr->odp)
		prov_mr_odp_track(pctx, mr);
	return 0;

err_umem:
	if (umem != mr->umem)
		prov_umem_dereg(pctx, umem);
err_pd:
	prov_pd_unuse(new_pd);
	return err;
}

/* libmana has no rereg_mr: libibverbs keeps the new range from children,
 * then the dummy op fails the command. */
static int mana_rereg_mr(int flags, void *addr, size_t length)
{
	bool translation = flags & IBV_REREG_MR_CHANGE_TRANSLATION;

	if (translation && prov_dontfork_range(addr, length))
		return IBV_REREG_MR_ERR_DONT_FORK_NEW;
	if (translation && prov_dofork_range(addr, length))
		return IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW;
	errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_CMD;
}

MLX5EMU_ABI(ibv_rereg_mr);
int mlx5emu_abi_ibv_rereg_mr(struct ibv_mr *ibmr, int flags, struct ibv_pd *pd,
			     void *addr, size_t length, int access)
{
	struct prov_mr *mr;
	void *old_addr;
	size_t old_length;
	int err;

	if (!ibmr) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	/* libibverbs' own checks. */
	if ((flags & ~IBV_REREG_MR_FLAGS_SUPPORTED) ||
	    ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && (!length || !addr)) ||
	    (access && !(flags & IBV_REREG_MR_CHANGE_ACCESS))) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (prov_mana_is(ibmr->context))
		return mana_rereg_mr(flags, addr, length);
	mr = to_prov_mr(ibmr);
	if (mr->imported) {
		errno = EOPNOTSUPP;
		return IBV_REREG_MR_ERR_CMD;
	}
	/* The new range is kept from children first (fork_mem.c). */
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) &&
	    prov_dontfork_range(addr, length))
		return IBV_REREG_MR_ERR_DONT_FORK_NEW;
	pthread_mutex_lock(&mr->lock);
	old_addr = ibmr->addr;
	old_length = ibmr->length;
	err = rereg_mr(mr, flags, pd, addr, length, (unsigned int)access);
	if (!err) {
		struct prov_context *pctx = to_prov_context(ibmr->context);
		struct mlx5be_uobj u;

		if (flags & IBV_REREG_MR_CHANGE_PD)
			ibmr->pd = pd;
		if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
			ibmr->addr = addr;
			ibmr->length = length;
		}
		/* What an importer's QUERY_MR sees from now on. */
		mr_uobj(mr, &u);
		if (pctx->be->uobj_set)
			pctx->be->uobj_set(pctx->bectx, ibmr->handle, &u);
	}
	pthread_mutex_unlock(&mr->lock);
	if (err) {
		errno = err;
		if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) &&
		    prov_dofork_range(addr, length))
			return IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW;
		errno = err;
		return IBV_REREG_MR_ERR_CMD;
	}
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) &&
	    prov_dofork_range(old_addr, old_length))
		return IBV_REREG_MR_ERR_DO_FORK_OLD;
	return 0;
}

MLX5EMU_ABI(ibv_dereg_mr);
int mlx5emu_abi_ibv_dereg_mr(struct ibv_mr *ibmr)
{
	if (ibmr && prov_mana_is(ibmr->context))
		return prov_mana_dereg_mr(ibmr);
	struct prov_context *pctx;
	struct prov_mr *mr;
	int err;

	if (!ibmr) {
		errno = EINVAL;
		return EINVAL;
	}
	mr = to_prov_mr(ibmr);
	pctx = to_prov_context(ibmr->context);
	if (mr->imported) {
		errno = EOPNOTSUPP;
		return EOPNOTSUPP;
	}
	err = prov_obj_destroy(pctx, mr->mkey);
	if (err) {
		errno = err;
		return err;
	}
	if (pctx->be->uobj_del)
		pctx->be->uobj_del(pctx->bectx, ibmr->handle);
	if (mr->odp)
		prov_mr_odp_untrack(pctx, mr);
	prov_umem_dereg(pctx, mr->umem);
	prov_pd_unuse(ibmr->pd);
	if (!(mr->access & IBV_ACCESS_ON_DEMAND))
		prov_dofork_range(ibmr->addr, ibmr->length);
	pthread_mutex_destroy(&mr->lock);
	free(mr);
	return 0;
}

MLX5EMU_ABI(ibv_import_mr);
struct ibv_mr *mlx5emu_abi_ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	/* libmana has no import_mr: libibverbs' dummy op answers */
	if (pd && prov_mana_is(pd->context))
		return prov_mana_unsupported();
	struct prov_context *pctx = to_prov_context(pd->context);
	struct mlx5be_uobj u;
	struct prov_mr *mr;
	int err;

	if (!pctx->be->uobj_query) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	err = -pctx->be->uobj_query(pctx->bectx, mr_handle, MLX5BE_UOBJ_MR, &u);
	if (err) {
		free(mr);
		errno = err;
		return NULL;
	}
	mr->imported = true;
	mr->ibmr.context = pd->context;
	mr->ibmr.pd = pd;
	mr->ibmr.addr = NULL;
	mr->ibmr.length = u.length;
	mr->ibmr.handle = mr_handle;
	mr->ibmr.lkey = u.lkey;
	mr->ibmr.rkey = u.rkey;
	return &mr->ibmr;
}

MLX5EMU_ABI(ibv_unimport_mr);
void mlx5emu_abi_ibv_unimport_mr(struct ibv_mr *ibmr)
{
	/* libibverbs' dummy unimport_mr does nothing */
	if (ibmr && prov_mana_is(ibmr->context))
		return;
	/* libmlx5's mlx5_unimport_mr: the userspace object only. */
	if (ibmr && to_prov_mr(ibmr)->imported)
		free(to_prov_mr(ibmr));
}
