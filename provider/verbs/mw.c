/* SPDX-License-Identifier: MIT */
/*
 * Memory windows, as rdma-core 44 (libibverbs' inline ibv_alloc_mw,
 * ibv_bind_mw, ibv_dealloc_mw; libmlx5 mlx5_alloc_mw, mlx5_bind_mw,
 * mlx5_dealloc_mw) over the upstream kernel (ib_uverbs_alloc_mw,
 * mlx5_ib_alloc_mw, mlx5_ib_dealloc_mw) behave.
 *
 * A window is an mkey made as mlx5_ib_alloc_mw makes it: CREATE_MKEY of a
 * free KLM mkey with umr_en, local read, room for 4 KLM entries
 * (roundup(1, 4): libmlx5 asks for no num_klms), qpn 0xffffff, en_rinval
 * for type 2, the PD, and the next key byte (assign_mkey_variant); rkey =
 * mkey_index << 8 | key.  The window holds a use of its PD (uverbs'
 * pd->usecnt).  Binding is a UMR WQE on a QP (qp_send.c, qp_wr.c); the
 * device checks the binding (emu/firmware/fw_mkey_umr.c).
 *
 * Errors (NULL + errno for alloc; an errno for dealloc and bind):
 *   ibv_alloc_mw    EOPNOTSUPP when the device has no memory windows
 *                   (mlx5_ib registers alloc_mw only with imaicl, and
 *                   uverbs refuses the method without it); EINVAL for a
 *                   type other than 1 or 2 (ib_uverbs_alloc_mw); the
 *                   mkey command's errno
 *   ibv_dealloc_mw  DESTROY_MKEY's errno; a bound window may be
 *                   deallocated (the binding goes with it)
 *   ibv_bind_mw     libibverbs: EINVAL for a type 2 window, or no MR
 *                   with an address or length; EPERM for an MR of
 *                   another PD.  libmlx5: EINVAL for a zero-based bind or
 *                   a zero-based MR, ENOTSUP for an imported MR; then
 *                   ibv_post_send's errors.  On success mw->rkey is the
 *                   incremented key (ibv_inc_rkey) the WQE bound.
 */
#include <errno.h>
#include <stdlib.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/mr.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/sq.h"
#include "provider/verbs/verbs_ctx.h"

/* mlx5_ib_alloc_mw's KLM room without a num_klms request. */
#define MW_KLM_ENTRIES 4

struct prov_mw {
	struct ibv_mw ibmw;
	struct mlx5be_obj *mkey;
};

static struct prov_mw *to_prov_mw(struct ibv_mw *mw)
{
	return (struct prov_mw *)mw;
}

/* mlx5_ib_alloc_mw's CREATE_MKEY; 0 or a positive errno. */
static int mw_mkey_create(struct prov_context *pctx, struct prov_mw *mw,
			  struct ibv_pd *pd, enum ibv_mw_type type)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_mkey_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_mkey_out)] = { 0 };
	void *mkc = PRM_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	uint8_t key = prov_mkey_variant();

	PRM_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	PRM_SET(mkc, mkc, free, 1);
	PRM_SET(mkc, mkc, translations_octword_size, MW_KLM_ENTRIES);
	PRM_SET(mkc, mkc, pd, prov_pd_pdn(pd));
	PRM_SET(mkc, mkc, umr_en, 1);
	PRM_SET(mkc, mkc, lr, 1);
	PRM_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
	PRM_SET(mkc, mkc, en_rinval, type == IBV_MW_TYPE_2);
	PRM_SET(mkc, mkc, qpn, 0xffffff);
	PRM_SET(mkc, mkc, mkey_7_0, key);
	errno = 0;
	mw->mkey = prov_obj_create(pctx, in, sizeof(in), out, sizeof(out));
	if (!mw->mkey)
		return errno;
	mw->ibmw.rkey = PRM_GET(create_mkey_out, out, mkey_index) << 8 | key;
	return 0;
}

static struct ibv_mw *mw_alloc(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct prov_context *pctx = to_prov_context(pd->context);
	struct prov_mw *mw;
	int err;

	if (!PROV_CAP_GEN(pctx, imaicl)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	err = prov_pd_use(pd);
	if (err)
		goto err_free;
	err = mw_mkey_create(pctx, mw, pd, type);
	if (err)
		goto err_pd;
	mw->ibmw.context = pd->context;
	mw->ibmw.pd = pd;
	mw->ibmw.type = type;
	mw->ibmw.handle = prov_handle_alloc(pctx);
	return &mw->ibmw;

err_pd:
	prov_pd_unuse(pd);
err_free:
	free(mw);
	errno = err;
	return NULL;
}

static int mw_dealloc(struct ibv_mw *ibmw)
{
	struct prov_mw *mw = to_prov_mw(ibmw);
	int err;

	err = prov_obj_destroy(to_prov_context(ibmw->context), mw->mkey);
	if (err) {
		errno = err;
		return err;
	}
	prov_pd_unuse(ibmw->pd);
	free(mw);
	return 0;
}

/* mlx5_bind_mw(): a BIND_MW work request of the window's next key. */
static int mw_bind(struct ibv_qp *qp, struct ibv_mw *mw,
		   struct ibv_mw_bind *mw_bind)
{
	struct ibv_mw_bind_info *bi = &mw_bind->bind_info;
	struct ibv_send_wr wr = { 0 }, *bad_wr = NULL;
	int ret;

	if (bi->mw_access_flags & IBV_ACCESS_ZERO_BASED) {
		errno = EINVAL;
		return EINVAL;
	}
	if (bi->mr) {
		if (to_prov_mr(bi->mr)->imported) {
			errno = ENOTSUP;
			return ENOTSUP;
		}
		if (to_prov_mr(bi->mr)->access & IBV_ACCESS_ZERO_BASED) {
			errno = EINVAL;
			return EINVAL;
		}
	}
	wr.opcode = IBV_WR_BIND_MW;
	wr.wr_id = mw_bind->wr_id;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.bind_info = *bi;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	ret = prov_post_send(qp, &wr, &bad_wr);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

void prov_mw_set_ops(struct prov_context *pctx)
{
	pctx->vctx.context.ops.alloc_mw = mw_alloc;
	pctx->vctx.context.ops.dealloc_mw = mw_dealloc;
	pctx->vctx.context.ops.bind_mw = mw_bind;
}
