/* SPDX-License-Identifier: MIT */
/*
 * ibv_resize_cq, as libmlx5 44 (mlx5_resize_cq, mlx5_cq_resize_copy_cqes)
 * over the upstream kernel (mlx5_ib_resize_cq for a user CQ) does it,
 * under the CQ's lock:
 *
 *   libmlx5  EINVAL for cqe < 0 (errno set) or cqe * 64 past INT_MAX (the
 *            return value only); 0 when roundup_pow_of_two(cqe + 1) is the
 *            current size; a new ring of that many entries (-1 with errno
 *            ENOMEM when that fails)
 *   kernel   ENOSYS without the cq_resize capability; EINVAL past
 *            1 << log_max_cq_sz entries; the new ring as a umem
 *   firmware MODIFY_CQ with op_mod RESIZE, selecting the log size, page
 *            offset and page size; the new ring goes in the umem fields
 *            CREATE_CQ uses.  A refusal (a CQ holding more unpolled CQEs
 *            than the new size, say) is its status's errno.
 *
 * Once the command succeeded the device has written a resize CQE into the
 * old ring after the last CQE it completed there and goes on in the new
 * ring.  The CQEs software has not polled yet move to the new ring, each
 * one place further on, owned by software there, and the resize CQE is
 * consumed; then the old ring goes.  As in libmlx5, a ring without the
 * resize CQE in software's part is only reported (the move stops there).
 */
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/bits.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/cq_int.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/mana/mana_prov.h"

/* is_hw(): the owner bit says hardware still owns entry @n. */
static bool cq_hw_owned(struct prov_cq *cq, uint32_t n)
{
	uint8_t op_own = __atomic_load_n(&prov_cq_cqe64(cq, n)->op_own,
					 __ATOMIC_ACQUIRE);

	return (op_own & MLX5_CQE_OWNER_MASK) ^ !!(n & cq->ncqe);
}

bool prov_cq_resize_copy(struct prov_cq *cq, void *ring, uint32_t ncqe)
{
	uint32_t i = cq->cons_index;
	void *start = prov_cq_entry(cq, i);

	if (cq_hw_owned(cq, i))
		return false;
	while ((prov_cq_cqe64(cq, i)->op_own >> 4) != MLX5_CQE_RESIZE_CQ) {
		void *dst = prov_cqe_at(ring, ncqe, cq->cqe_sz, i + 1);
		struct mlx5_cqe64 *d64 = prov_cqe64_of(dst, cq->cqe_sz);

		memcpy(dst, prov_cq_entry(cq, i), cq->cqe_sz);
		d64->op_own = (uint8_t)((d64->op_own & ~MLX5_CQE_OWNER_MASK) |
					!!((i + 1) & ncqe));
		++i;
		if (cq_hw_owned(cq, i) || prov_cq_entry(cq, i) == start)
			return false;
	}
	++cq->cons_index;
	return true;
}

/* mlx5_ib_resize_cq(): the kernel's checks, the umem, MODIFY_CQ. */
static int cq_resize_cmd(struct prov_cq *cq, struct prov_qbuf *ring,
			 uint32_t ncqe, struct mlx5be_umem **umem)
{
	struct prov_context *pctx = cq->pctx;
	uint32_t max = UINT32_C(1) << PROV_CAP_GEN(pctx, log_max_cq_sz);
	uint8_t in[PRM_ST_SZ_BYTES(modify_cq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(modify_cq_out)] = { 0 };
	void *cqc = PRM_ADDR_OF(modify_cq_in, in, cq_context);
	uint32_t id;
	int ret;

	if (!PROV_CAP_GEN(pctx, cq_resize))
		return ENOSYS;
	/* entries = ncqe - 1, then roundup_pow_of_two(entries + 1). */
	if (ncqe - 1 > max || ncqe > max + 1)
		return EINVAL;
	errno = 0;
	*umem = prov_umem_reg(pctx, ring->buf, (size_t)ncqe * cq->cqe_sz,
			      IBV_ACCESS_LOCAL_WRITE, &id);
	if (!*umem)
		return errno ? errno : ENOMEM;
	PRM_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	PRM_SET(modify_cq_in, in, op_mod, MLX5_CQ_OPMOD_RESIZE);
	PRM_SET(modify_cq_in, in, cqn, cq->cqn);
	PRM_SET(modify_cq_in, in,
		modify_field_select_resize_field_select.resize_field_select.resize_field_select,
		MLX5_MODIFY_CQ_MASK_LOG_SIZE | MLX5_MODIFY_CQ_MASK_PG_OFFSET |
		MLX5_MODIFY_CQ_MASK_PG_SIZE);
	PRM_SET(cqc, cqc, log_page_size, 0);
	PRM_SET(cqc, cqc, page_offset, 0);
	PRM_SET(cqc, cqc, cqe_sz, prov_cq_cqc_sz(cq));
	PRM_SET(cqc, cqc, log_cq_size, prov_log2_floor(ncqe));
	PRM_SET(modify_cq_in, in, cq_umem_valid, 1);
	PRM_SET(modify_cq_in, in, cq_umem_id, id);
	PRM_SET64(modify_cq_in, in, cq_umem_offset, 0);
	ret = prov_obj_modify(pctx, cq->obj, in, sizeof(in), out, sizeof(out));
	if (ret) {
		prov_umem_dereg(pctx, *umem);
		*umem = NULL;
		return ret;
	}
	return 0;
}

MLX5EMU_ABI(ibv_resize_cq);
int mlx5emu_abi_ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	/* libmana has no resize_cq: libibverbs' dummy op answers */
	if (ibcq && prov_mana_is(ibcq->context))
		return EOPNOTSUPP;
	struct mlx5be_umem *umem = NULL;
	struct prov_qbuf ring;
	struct prov_cq *cq;
	uint32_t ncqe;
	int err = 0;

	if (!ibcq || cqe < 0) {
		errno = EINVAL;
		return EINVAL;
	}
	if ((long long)cqe * 64 > INT_MAX)
		return EINVAL;
	cq = to_prov_cq(ibcq);
	prov_cq_lock(cq);
	ncqe = (uint32_t)prov_roundup_pow2((uint64_t)cqe + 1);
	if (ncqe == cq->ncqe)
		goto out;
	if (prov_cq_ring_alloc(&ring, prov_cq_ext(cq), &cq->pctx->xalloc, ncqe,
			       cq->cqe_sz)) {
		errno = ENOMEM;
		err = -1;
		goto out;
	}
	err = cq_resize_cmd(cq, &ring, ncqe, &umem);
	if (err) {
		prov_qbuf_free(&ring);
		errno = err;
		goto out;
	}
	if (!prov_cq_resize_copy(cq, ring.buf, ncqe))
		fprintf(stderr, "mlx5emu: CQ 0x%x resized without a resize CQE\n",
			cq->cqn);
	prov_umem_dereg(cq->pctx, cq->buf_umem);
	prov_qbuf_free(&cq->buf);
	cq->buf = ring;
	cq->buf_umem = umem;
	cq->ncqe = ncqe;
	cq->ex.cqe = (int)(ncqe - 1);
out:
	prov_cq_unlock(cq);
	return err;
}
