/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues, as rdma-core 44 (libibverbs ibv_create_srq /
 * ibv_cmd_create_srq_ex, libmlx5 mlx5_create_srq / mlx5_create_srq_ex /
 * mlx5_alloc_srq_buf / mlx5_post_srq_recv) over the upstream kernel
 * (mlx5_ib_create_srq, srq_cmd.c with ISSI 1) behave.
 *
 * Sizes: a WQE is a 16-byte next segment and max_sge scatter entries,
 * rounded to a power of two, 32 bytes at least (max_sge comes back as what
 * it holds: 1 for 32 bytes).  libmlx5 asks for 2 * max_wr + 1 WQEs (the
 * spare half is its wait queue for ODP faults) when the device allows,
 * else max_wr + 1, rounded to a power of two; max_wr comes back as
 * prov_roundup_pow2(max_wr + 1) - 1, the WQEs the application may post, while
 * ibv_query_srq reports the whole ring less one, as mlx5_ib answers.
 *
 * A basic SRQ is an RMP (CREATE_RMP: linked-list WQ in a umem, RDY), an
 * XRC SRQ an XRC SRQ (CREATE_XRC_SRQ with its XRC domain, CQ and user
 * index).  ibv_modify_srq with IBV_SRQ_LIMIT arms the limit (MODIFY_RMP
 * with the lwm bit, or ARM_XRC_SRQ); ibv_query_srq reads it back (QUERY_RMP,
 * QUERY_XRC_SRQ).  Tag-matching SRQs: the device advertises no tag
 * matching (EINVAL from mlx5_ib's list-size check, after libmlx5's own
 * EINVAL without an extended CQ).
 *
 * Errors (NULL + errno, or the returned errno):
 *   EINVAL   max_wr >= 1 << log_max_srq_sz or max_sge > max_wqe_sz_rq / 16
 *            (libmlx5, then mlx5_ib); a WQE past max_wqe_sz_rq (firmware);
 *            an XRC SRQ without XRCD or CQ; IBV_SRQ_MAX_WR in modify (no
 *            resizing); srq_limit >= the ring
 *   EOPNOTSUPP comp_mask bits libibverbs does not know
 *   EBUSY    ibv_destroy_srq while QPs or DCTs use it (no command sent)
 * ibv_destroy_srq waits, as libibverbs does, for the acks of read events.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/devx/devx.h"
#include "provider/core/caps.h"
#include "provider/core/cmd.h"
#include "provider/core/error.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/mana/mana_prov.h"

static struct mlx5_wqe_srq_next_seg *srq_wqe(struct prov_srq *srq, int n)
{
	return (struct mlx5_wqe_srq_next_seg *)((char *)srq->buf.buf +
						((size_t)n << srq->wqe_shift));
}

int prov_srq_use(struct ibv_srq *ibsrq)
{
	struct prov_srq *srq = to_prov_srq(ibsrq);
	int v = atomic_load(&srq->use);

	do {
		if (v < 0)
			return EINVAL;
	} while (!atomic_compare_exchange_weak(&srq->use, &v, v + 1));
	return 0;
}

void prov_srq_unuse(struct ibv_srq *ibsrq)
{
	atomic_fetch_sub(&to_prov_srq(ibsrq)->use, 1);
}

uint32_t prov_srq_srqn(struct ibv_srq *ibsrq)
{
	return to_prov_srq(ibsrq)->srqn;
}

bool prov_srq_is_xrc(struct ibv_srq *ibsrq)
{
	return to_prov_srq(ibsrq)->xrc;
}

/* mlx5_free_srq_wqe(). */
static void srq_free_wqe(struct prov_srq *srq, int ind)
{
	prov_spin_lock(&srq->lock);
	srq_wqe(srq, srq->tail)->next_wqe_index = htobe16((uint16_t)ind);
	srq->tail = ind;
	prov_spin_unlock(&srq->lock);
}

/* A responder completion: the WQE's wr_id, the WQE back on the list. */
static uint64_t srq_rq_complete(struct prov_cq_rsc *rsc, uint16_t wqe_counter)
{
	struct prov_srq *srq = (struct prov_srq *)((char *)rsc -
						   offsetof(struct prov_srq, rsc));
	uint64_t wr_id;

	if (wqe_counter >= srq->max)
		return 0;
	wr_id = srq->wrid[wqe_counter];
	srq_free_wqe(srq, wqe_counter);
	return wr_id;
}

/* set_srq_buf_ll(). */
static void srq_link(struct prov_srq *srq, int start, int end)
{
	for (int i = start; i < end; ++i)
		srq_wqe(srq, i)->next_wqe_index = htobe16((uint16_t)(i + 1));
}

static void srq_free_mem(struct prov_srq *srq)
{
	prov_wq_mem_free(srq->pctx, &srq->buf, &srq->db_mem, &srq->db,
			 &srq->buf_umem, &srq->db_umem);
	free(srq->wrid);
}

/* mlx5_alloc_srq_buf() and the doorbell record; 0 or an errno.  @pd's
 * allocator (a parent domain's) gives both when it has one; its ring
 * (MLX5DV_RES_TYPE_SRQ, page-aligned, unrounded) is left as it comes. */
static int srq_alloc_mem(struct prov_srq *srq, struct ibv_pd *pd,
			 uint32_t orig_max_wr, uint32_t *buf_id, uint32_t *db_id)
{
	const struct prov_qbuf_ext *ext = pd ? prov_pd_ext(pd) : NULL;
	bool dflt;
	struct prov_context *pctx = srq->pctx;
	uint32_t max_srq_recv_wr = UINT32_C(1) << PROV_CAP_GEN(pctx, log_max_srq_sz);
	uint32_t max_recv_wr = UINT32_C(1) << PROV_CAP_GEN(pctx, log_max_qp_sz);
	uint64_t max_wr = (uint64_t)orig_max_wr * 2 + 1;
	bool have_wq = true;
	uint64_t size;
	int err;

	if (max_wr > max_srq_recv_wr) {
		max_wr = (uint64_t)orig_max_wr + 1;
		have_wq = false;
	}
	size = PROV_WQE_SRQ_NEXT_SZ + (uint64_t)srq->max_gs * PROV_WQE_DATA_SZ;
	if (size < 32)
		size = 32;
	size = prov_roundup_pow2(size);
	/* libmlx5 compares the WQE size with max_recv_wr (sic). */
	if (size > max_recv_wr)
		return EINVAL;
	srq->max_gs = (int)((size - PROV_WQE_SRQ_NEXT_SZ) / PROV_WQE_DATA_SZ);
	srq->wqe_shift = prov_ilog32((uint32_t)size - 1);
	srq->max = (unsigned int)prov_roundup_pow2(max_wr);
	srq->buf_size = (size_t)srq->max * size;
	err = prov_qbuf_alloc_ext(&srq->buf, ext, &srq->pctx->xalloc,
				  srq->buf_size, PROV_PAGE_SIZE,
				  MLX5DV_RES_TYPE_SRQ, &dflt);
	if (!err && dflt) {
		err = prov_qbuf_alloc(&srq->buf, srq->buf_size, "MLX_SRQ");
		if (!err)
			memset(srq->buf.buf, 0, srq->buf_size);
	}
	if (err)
		return err;
	srq->head = 0;
	srq->tail = (int)prov_roundup_pow2((uint64_t)orig_max_wr + 1) - 1;
	if (have_wq) {
		srq->waitq_head = srq->tail + 1;
		srq->waitq_tail = (int)srq->max - 1;
	} else {
		srq->waitq_head = -1;
		srq->waitq_tail = -1;
	}
	srq->wrid = calloc(srq->max, sizeof(*srq->wrid));
	if (!srq->wrid)
		return ENOMEM;
	srq_link(srq, srq->head, srq->tail);
	if (have_wq)
		srq_link(srq, srq->waitq_head, srq->waitq_tail);

	err = prov_wq_db_alloc(srq->pctx, &srq->db_mem, &srq->db, pd);
	if (err)
		return err;
	return prov_wq_umem_reg(pctx, &srq->buf, srq->db, &srq->buf_umem,
				&srq->db_umem, buf_id, db_id);
}

/* CREATE_RMP as mlx5_ib's create_rmp_cmd() builds it. */
static int srq_create_rmp(struct prov_srq *srq, struct ibv_pd *pd,
			  uint32_t buf_id, uint32_t db_id)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_rmp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_rmp_out)] = { 0 };
	void *rmpc = PRM_ADDR_OF(create_rmp_in, in, ctx);
	void *wq = PRM_ADDR_OF(rmpc, rmpc, wq);

	PRM_SET(create_rmp_in, in, opcode, MLX5_CMD_OP_CREATE_RMP);
	PRM_SET(rmpc, rmpc, state, MLX5_RMPC_STATE_RDY);
	PRM_SET(wq, wq, wq_type, MLX5_WQ_TYPE_LINKED_LIST);
	PRM_SET(wq, wq, wq_signature, srq->wq_sig);
	PRM_SET(wq, wq, log_wq_pg_sz, 0);
	PRM_SET(wq, wq, log_wq_stride, srq->wqe_shift);
	PRM_SET(wq, wq, log_wq_sz, prov_ilog32(srq->max) - 1);
	PRM_SET(wq, wq, page_offset, 0);
	PRM_SET(wq, wq, lwm, 0);
	PRM_SET(wq, wq, pd, prov_pd_pdn(pd));
	PRM_SET64(wq, wq, dbr_addr, 0);
	PRM_SET(wq, wq, dbr_umem_valid, 1);
	PRM_SET(wq, wq, dbr_umem_id, db_id);
	PRM_SET(wq, wq, wq_umem_valid, 1);
	PRM_SET(wq, wq, wq_umem_id, buf_id);
	PRM_SET64(wq, wq, wq_umem_offset, 0);
	srq->obj = prov_obj_create(srq->pctx, in, sizeof(in), out, sizeof(out));
	if (!srq->obj)
		return errno;
	srq->srqn = PRM_GET(create_rmp_out, out, rmpn);
	return 0;
}

/* CREATE_XRC_SRQ as create_xrc_srq_cmd() builds it (umems as DEVX). */
static int srq_create_xrc(struct prov_srq *srq, struct ibv_pd *pd,
			  struct ibv_xrcd *xrcd, struct ibv_cq *cq,
			  uint32_t buf_id, uint32_t db_id)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_xrc_srq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_xrc_srq_out)] = { 0 };
	void *c = PRM_ADDR_OF(create_xrc_srq_in, in, xrc_srq_context_entry);

	PRM_SET(create_xrc_srq_in, in, opcode, MLX5_CMD_OP_CREATE_XRC_SRQ);
	PRM_SET(xrc_srqc, c, state, MLX5_XRC_SRQC_STATE_GOOD);
	PRM_SET(xrc_srqc, c, wq_signature, srq->wq_sig);
	PRM_SET(xrc_srqc, c, log_page_size, 0);
	PRM_SET(xrc_srqc, c, log_rq_stride, srq->wqe_shift - 4);
	PRM_SET(xrc_srqc, c, log_xrc_srq_size, prov_ilog32(srq->max) - 1);
	PRM_SET(xrc_srqc, c, page_offset, 0);
	PRM_SET(xrc_srqc, c, lwm, 0);
	PRM_SET(xrc_srqc, c, pd, prov_pd_pdn(pd));
	PRM_SET(xrc_srqc, c, xrcd, prov_xrcd_xrcdn(xrcd));
	PRM_SET(xrc_srqc, c, cqn, prov_cq_cqn(cq));
	PRM_SET(xrc_srqc, c, user_index, srq->uidx);
	PRM_SET(xrc_srqc, c, dbr_umem_valid, 1);
	PRM_SET(xrc_srqc, c, dbr_umem_id, db_id);
	PRM_SET(xrc_srqc, c, db_record_addr_h, 0);
	PRM_SET(xrc_srqc, c, db_record_addr_l, 0);
	PRM_SET(create_xrc_srq_in, in, xrc_srq_umem_valid, 1);
	PRM_SET(create_xrc_srq_in, in, xrc_srq_umem_id, buf_id);
	PRM_SET64(create_xrc_srq_in, in, xrc_srq_umem_offset, 0);
	srq->obj = prov_obj_create(srq->pctx, in, sizeof(in), out, sizeof(out));
	if (!srq->obj)
		return errno;
	srq->srqn = PRM_GET(create_xrc_srq_out, out, xrc_srqn);
	return 0;
}

/* The lock is libmlx5's mlx5_spinlock_init_pd(): none on a parent domain
 * with a thread domain. */
static struct prov_srq *srq_alloc(struct prov_context *pctx, struct ibv_pd *pd)
{
	struct prov_srq *srq = calloc(1, sizeof(*srq));

	if (!srq)
		return NULL;
	srq->pctx = pctx;
	srq->rsc.type = PROV_RSC_SRQ;
	srq->rsc.rq_complete = srq_rq_complete;
	prov_spinlock_init(&srq->lock, !(pd && prov_pd_td(pd)));
	pthread_mutex_init(&srq->mutex, NULL);
	atomic_init(&srq->use, 0);
	return srq;
}

static void srq_free(struct prov_srq *srq)
{
	prov_spinlock_destroy(&srq->lock);
	pthread_mutex_destroy(&srq->mutex);
	free(srq);
}

/*
 * The creation shared by both paths: @attr is what the application gave
 * (max_wr/max_sge come back in it).  NULL + errno.
 */
static struct prov_srq *srq_create(struct ibv_context *context,
				   struct ibv_pd *pd,
				   struct ibv_srq_init_attr_ex *attr, bool xrc)
{
	struct prov_context *pctx = to_prov_context(context);
	uint32_t max_srq_recv_wr = UINT32_C(1) << PROV_CAP_GEN(pctx, log_max_srq_sz);
	uint32_t max_rq_sge = PROV_CAP_GEN(pctx, max_wqe_sz_rq) / PROV_WQE_DATA_SZ;
	uint32_t max_recv_wr = UINT32_C(1) << PROV_CAP_GEN(pctx, log_max_qp_sz);
	uint32_t buf_id, db_id, orig_max_wr = attr->attr.max_wr;
	struct prov_srq *srq;
	bool pd_used = false, cq_used = false, x_used = false;
	int err;

	srq = srq_alloc(pctx, pd);
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	/* libmlx5: the queue limits (XRC compares max_sge with the recv WR
	 * count, as mlx5_create_srq_ex does). */
	if (attr->attr.max_wr > max_srq_recv_wr ||
	    attr->attr.max_sge > (xrc ? max_recv_wr / PROV_WQE_DATA_SZ :
				  max_rq_sge)) {
		err = EINVAL;
		goto err;
	}
	srq->xrc = xrc;
	srq->max_gs = (int)attr->attr.max_sge;
	srq->wq_sig = getenv("MLX5_SRQ_SIGNATURE") != NULL;
	err = srq_alloc_mem(srq, pd, orig_max_wr, &buf_id, &db_id);
	if (err)
		goto err_mem;
	if (xrc) {
		err = prov_rsc_store(pctx, &srq->rsc, &srq->uidx);
		if (err)
			goto err_mem;
		srq->has_uidx = true;
	}
	/* mlx5_ib_create_srq(): the kernel's own limits. */
	if (srq->max - 1 >= max_srq_recv_wr ||
	    (uint32_t)srq->max_gs > max_rq_sge) {
		err = EINVAL;
		goto err_uidx;
	}
	err = prov_pd_use(pd);
	if (err)
		goto err_uidx;
	pd_used = true;
	if (xrc) {
		err = prov_cq_use(attr->cq);
		if (err)
			goto err_uses;
		cq_used = true;
		err = prov_xrcd_use(attr->xrcd);
		if (err)
			goto err_uses;
		x_used = true;
		err = srq_create_xrc(srq, pd, attr->xrcd, attr->cq, buf_id, db_id);
	} else {
		err = srq_create_rmp(srq, pd, buf_id, db_id);
	}
	if (err)
		goto err_uses;

	attr->attr.max_sge = (uint32_t)srq->max_gs;
	attr->attr.max_wr = (uint32_t)srq->tail;
	srq->vsrq.srq.context = context;
	srq->vsrq.srq.pd = pd;
	srq->vsrq.srq.srq_context = attr->srq_context;
	srq->vsrq.srq.handle = prov_handle_alloc(pctx);
	srq->vsrq.srq.events_completed = 0;
	pthread_mutex_init(&srq->vsrq.srq.mutex, NULL);
	pthread_cond_init(&srq->vsrq.srq.cond, NULL);
	prov_ev_register(pctx, &srq->ev, PROV_EV_SRQ, srq->obj);
	srq->vsrq.srq_type = xrc ? IBV_SRQT_XRC : IBV_SRQT_BASIC;
	if (xrc) {
		srq->vsrq.srq_num = srq->srqn;
		srq->vsrq.xrcd = (struct prov_verbs_xrcd *)attr->xrcd;
		srq->vsrq.cq = attr->cq;
	}
	return srq;

err_uses:
	if (x_used)
		prov_xrcd_unuse(pctx, attr->xrcd);
	if (cq_used)
		prov_cq_unuse(attr->cq);
	if (pd_used)
		prov_pd_unuse(pd);
err_uidx:
	if (srq->has_uidx)
		prov_rsc_clear(pctx, srq->uidx);
err_mem:
	srq_free_mem(srq);
err:
	srq_free(srq);
	errno = err;
	return NULL;
}

MLX5EMU_ABI(ibv_create_srq);
struct ibv_srq *mlx5emu_abi_ibv_create_srq(struct ibv_pd *pd,
					   struct ibv_srq_init_attr *attr)
{
	/* libmana has no SRQ ops: libibverbs' dummy ops answer */
	if (pd && prov_mana_is(pd->context))
		return prov_mana_unsupported();
	struct ibv_srq_init_attr_ex ax;
	struct prov_srq *srq;

	if (!pd || !attr) {
		errno = EINVAL;
		return NULL;
	}
	memset(&ax, 0, sizeof(ax));
	memcpy(&ax, attr, sizeof(*attr));
	srq = srq_create(pd->context, pd, &ax, false);
	if (!srq)
		return NULL;
	attr->attr.max_wr = ax.attr.max_wr;
	attr->attr.max_sge = ax.attr.max_sge;
	return &srq->vsrq.srq;
}

/* The verbs_context op behind ibv_create_srq_ex. */
static struct ibv_srq *prov_create_srq_ex(struct ibv_context *context,
					  struct ibv_srq_init_attr_ex *attr)
{
	enum ibv_srq_type type;
	struct prov_srq *srq;

	if (!context || !attr) {
		errno = EINVAL;
		return NULL;
	}
	type = (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) ? attr->srq_type :
							     IBV_SRQT_BASIC;
	if (type == IBV_SRQT_BASIC) {
		/* mlx5_create_srq_ex() goes to mlx5_create_srq(pd). */
		if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
		    attr->pd->context != context) {
			errno = EINVAL;
			return NULL;
		}
		srq = srq_create(context, attr->pd, attr, false);
		return srq ? &srq->vsrq.srq : NULL;
	}
	if (type != IBV_SRQT_XRC && type != IBV_SRQT_TM) {
		errno = EINVAL;
		return NULL;
	}
	/* libmlx5: a TM SRQ needs an extended CQ. */
	if (type == IBV_SRQT_TM &&
	    !((attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) && attr->cq &&
	      to_prov_cq(attr->cq)->extended)) {
		errno = EINVAL;
		return NULL;
	}
	/* libmlx5's limits come before the command (checked again below). */
	if (attr->attr.max_wr >
	    (UINT32_C(1) << PROV_CAP_GEN(to_prov_context(context), log_max_srq_sz))) {
		errno = EINVAL;
		return NULL;
	}
	/* ibv_cmd_create_srq_ex(). */
	if (attr->comp_mask >= IBV_SRQ_INIT_ATTR_RESERVED) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != context) {
		errno = EINVAL;
		return NULL;
	}
	if (type == IBV_SRQT_TM) {
		/* mlx5_ib: the tag list must fit log_tag_matching_list_sz,
		 * which is 0 without tag matching. */
		errno = EINVAL;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd ||
	    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq ||
	    attr->xrcd->context != context || attr->cq->context != context) {
		errno = EINVAL;
		return NULL;
	}
	srq = srq_create(context, attr->pd, attr, true);
	return srq ? &srq->vsrq.srq : NULL;
}

/* The limit watermark: MODIFY_RMP or ARM_XRC_SRQ (mlx5_cmd_arm_srq). */
static int srq_arm(struct prov_srq *srq, uint32_t lwm)
{
	struct prov_context *pctx = srq->pctx;
	uint8_t out[PRM_ST_SZ_BYTES(modify_rmp_out)] = { 0 };
	int ret;

	if (srq->xrc) {
		uint8_t in[PRM_ST_SZ_BYTES(arm_xrc_srq_in)] = { 0 };

		PRM_SET(arm_xrc_srq_in, in, opcode, MLX5_CMD_OP_ARM_XRC_SRQ);
		PRM_SET(arm_xrc_srq_in, in, op_mod, 1);	/* XRC SRQ */
		PRM_SET(arm_xrc_srq_in, in, xrc_srqn, srq->srqn);
		PRM_SET(arm_xrc_srq_in, in, lwm, lwm);
		ret = prov_obj_modify(pctx, srq->obj, in, sizeof(in), out,
				      sizeof(out));
	} else {
		uint8_t in[PRM_ST_SZ_BYTES(modify_rmp_in)] = { 0 };
		void *rmpc = PRM_ADDR_OF(modify_rmp_in, in, ctx);
		void *bm = PRM_ADDR_OF(modify_rmp_in, in, bitmask);

		PRM_SET(modify_rmp_in, in, opcode, MLX5_CMD_OP_MODIFY_RMP);
		PRM_SET(modify_rmp_in, in, rmp_state, MLX5_RMPC_STATE_RDY);
		PRM_SET(modify_rmp_in, in, rmpn, srq->srqn);
		PRM_SET(rmp_bitmask, bm, lwm, 1);
		PRM_SET(rmpc, rmpc, state, MLX5_RMPC_STATE_RDY);
		PRM_SET(rmpc, rmpc, wq.lwm, lwm);
		ret = prov_obj_modify(pctx, srq->obj, in, sizeof(in), out,
				      sizeof(out));
	}
	return ret;
}

MLX5EMU_ABI(ibv_modify_srq);
int mlx5emu_abi_ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
			       int attr_mask)
{
	if (ibsrq && prov_mana_is(ibsrq->context))
		return EOPNOTSUPP;
	struct prov_srq *srq;
	int err = 0;

	if (!ibsrq || !attr) {
		errno = EINVAL;
		return EINVAL;
	}
	srq = to_prov_srq(ibsrq);
	/* mlx5_ib_modify_srq(): no resizing. */
	if (attr_mask & IBV_SRQ_MAX_WR) {
		errno = EINVAL;
		return EINVAL;
	}
	if (attr_mask & IBV_SRQ_LIMIT) {
		if (attr->srq_limit >= srq->max) {
			errno = EINVAL;
			return EINVAL;
		}
		pthread_mutex_lock(&srq->mutex);
		err = srq_arm(srq, attr->srq_limit);
		pthread_mutex_unlock(&srq->mutex);
	}
	if (err)
		errno = err;
	return err;
}

MLX5EMU_ABI(ibv_query_srq);
int mlx5emu_abi_ibv_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	if (ibsrq && prov_mana_is(ibsrq->context))
		return EOPNOTSUPP;
	struct prov_srq *srq;
	struct prov_context *pctx;
	uint8_t out[PRM_ST_SZ_BYTES(query_rmp_out)] = { 0 };
	uint32_t lwm;
	int ret;

	_Static_assert(PRM_ST_SZ_BYTES(query_rmp_out) >=
		       PRM_ST_SZ_BYTES(query_xrc_srq_out), "outbox size");
	if (!ibsrq || !attr) {
		errno = EINVAL;
		return EINVAL;
	}
	srq = to_prov_srq(ibsrq);
	pctx = srq->pctx;
	if (srq->xrc) {
		uint8_t in[PRM_ST_SZ_BYTES(query_xrc_srq_in)] = { 0 };

		PRM_SET(query_xrc_srq_in, in, opcode, MLX5_CMD_OP_QUERY_XRC_SRQ);
		PRM_SET(query_xrc_srq_in, in, xrc_srqn, srq->srqn);
		ret = prov_obj_query(pctx, srq->obj, in, sizeof(in), out,
				     PRM_ST_SZ_BYTES(query_xrc_srq_out));
		lwm = PRM_GET(query_xrc_srq_out, out, xrc_srq_context_entry.lwm);
	} else {
		uint8_t in[PRM_ST_SZ_BYTES(query_rmp_in)] = { 0 };

		PRM_SET(query_rmp_in, in, opcode, MLX5_CMD_OP_QUERY_RMP);
		PRM_SET(query_rmp_in, in, rmpn, srq->srqn);
		ret = prov_obj_query(pctx, srq->obj, in, sizeof(in), out,
				     sizeof(out));
		lwm = PRM_GET(query_rmp_out, out, rmp_context.wq.lwm);
	}
	if (ret) {
		errno = ret;
		return ret;
	}
	attr->srq_limit = lwm;
	attr->max_wr = srq->max - 1;
	attr->max_sge = (uint32_t)srq->max_gs;
	return 0;
}

MLX5EMU_ABI(ibv_destroy_srq);
int mlx5emu_abi_ibv_destroy_srq(struct ibv_srq *ibsrq)
{
	if (ibsrq && prov_mana_is(ibsrq->context))
		return EOPNOTSUPP;
	struct prov_context *pctx;
	struct prov_srq *srq;
	int expected = 0;
	int err;

	if (!ibsrq) {
		errno = EINVAL;
		return EINVAL;
	}
	srq = to_prov_srq(ibsrq);
	pctx = srq->pctx;
	if (!atomic_compare_exchange_strong(&srq->use, &expected, -1)) {
		errno = EBUSY;
		return EBUSY;
	}
	err = prov_obj_destroy(pctx, srq->obj);
	if (err) {
		atomic_store(&srq->use, 0);
		errno = err;
		return err;
	}
	prov_ev_unregister(pctx, &srq->ev);
	prov_wq_wait_events(&ibsrq->mutex, &ibsrq->cond, &ibsrq->events_completed,
			    &srq->events_reported);
	if (srq->has_uidx)
		prov_rsc_clear(pctx, srq->uidx);
	if (srq->xrc) {
		prov_xrcd_unuse(pctx, &srq->vsrq.xrcd->xrcd);
		prov_cq_unuse(srq->vsrq.cq);
	}
	prov_pd_unuse(ibsrq->pd);
	srq_free_mem(srq);
	srq_free(srq);
	return 0;
}

/* mlx5_post_srq_recv(). */
static int prov_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	struct prov_srq *srq = to_prov_srq(ibsrq);
	struct mlx5_wqe_srq_next_seg *next;
	struct mlx5_wqe_data_seg *scat;
	int err = 0, nreq, i;

	prov_spin_lock(&srq->lock);
	for (nreq = 0; wr; ++nreq, wr = wr->next) {
		if (wr->num_sge > srq->max_gs) {
			err = EINVAL;
			*bad_wr = wr;
			break;
		}
		if (srq->head == srq->tail) {
			err = ENOMEM;	/* SRQ full */
			*bad_wr = wr;
			break;
		}
		srq->wrid[srq->head] = wr->wr_id;
		next = srq_wqe(srq, srq->head);
		srq->head = be16toh(next->next_wqe_index);
		scat = (struct mlx5_wqe_data_seg *)(next + 1);
		for (i = 0; i < wr->num_sge; ++i) {
			scat[i].byte_count = htobe32(wr->sg_list[i].length);
			scat[i].lkey = htobe32(wr->sg_list[i].lkey);
			scat[i].addr = htobe64(wr->sg_list[i].addr);
		}
		if (i < srq->max_gs) {
			scat[i].byte_count = 0;
			scat[i].lkey = htobe32(PROV_INVALID_LKEY);
			scat[i].addr = 0;
		}
	}
	if (nreq) {
		srq->counter += (uint32_t)nreq;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(srq->db, htobe32(srq->counter), __ATOMIC_RELEASE);
	}
	prov_spin_unlock(&srq->lock);
	/* Receives wait for messages; an RNR-waiting sender may go now. */
	if (nreq)
		prov_progress(srq->pctx, MLX5BE_PROGRESS_DOORBELL);
	return err;
}

static int prov_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	*srq_num = to_prov_srq(srq)->srqn;
	return 0;
}

int prov_srq_dv(struct ibv_srq *ibsrq, struct mlx5dv_srq *out)
{
	struct prov_srq *srq;
	uint64_t mask_out = 0;

	if (!ibsrq || !out)
		return EINVAL;
	srq = to_prov_srq(ibsrq);
	out->buf = srq->buf.buf;
	out->dbrec = srq->db;
	out->stride = 1u << srq->wqe_shift;
	out->head = srq->head;
	out->tail = srq->tail;
	if (out->comp_mask & MLX5DV_SRQ_MASK_SRQN) {
		out->srqn = srq->srqn;
		mask_out |= MLX5DV_SRQ_MASK_SRQN;
	}
	out->comp_mask = mask_out;
	return 0;
}

void prov_srq_event_reported(struct ibv_srq *ibsrq)
{
	prov_wq_event_reported(&ibsrq->mutex, &to_prov_srq(ibsrq)->events_reported);
}

MLX5EMU_ABI(mlx5dv_devx_srq_query);
int mlx5emu_abi_mlx5dv_devx_srq_query(struct ibv_srq *ibsrq, const void *in,
				      size_t inlen, void *out, size_t outlen)
{
	/* libmlx5: no dv ops for a device not its own */
	if (ibsrq && prov_mana_is(ibsrq->context))
		return EOPNOTSUPP;
	struct prov_srq *srq;

	if (!ibsrq)
		return prov_err(EINVAL);
	srq = to_prov_srq(ibsrq);
	return prov_devx_obj_query(srq->pctx, srq->obj, in, inlen, out, outlen);
}

MLX5EMU_ABI(mlx5dv_devx_srq_modify);
int mlx5emu_abi_mlx5dv_devx_srq_modify(struct ibv_srq *ibsrq, const void *in,
				       size_t inlen, void *out, size_t outlen)
{
	if (ibsrq && prov_mana_is(ibsrq->context))
		return EOPNOTSUPP;
	struct prov_srq *srq;

	if (!ibsrq)
		return prov_err(EINVAL);
	srq = to_prov_srq(ibsrq);
	return prov_devx_obj_modify(srq->pctx, srq->obj, in, inlen, out, outlen);
}

void prov_srq_set_ops(struct prov_context *pctx)
{
	pctx->vctx.create_srq_ex = prov_create_srq_ex;
	pctx->vctx.get_srq_num = prov_get_srq_num;
	pctx->vctx.context.ops.post_srq_recv = prov_post_srq_recv;
}
