/* SPDX-License-Identifier: MIT */
/*
 * Receive work queues, as libmlx5 44 (create_wq, mlx5_modify_wq,
 * mlx5_destroy_wq, mlx5_post_wq_recv) over the upstream kernel (uverbs'
 * WQ commands, mlx5_ib_create_wq / create_rq, mlx5_ib_modify_wq) behave:
 * a cyclic RQ over a ring of the application's memory (a parent domain's
 * allocator first, MLX5DV_RES_TYPE_RWQ), its own user index and CQ.
 *
 * Errors (NULL + errno for create; the errno returned for modify and
 * destroy, also set in errno by libibverbs' ibv_cmd_*):
 *   EINVAL     (libmlx5) a type other than IBV_WQT_RQ, no WRs, a WQE past
 *              the device's max_wqe_sz_rq, unknown mlx5dv comp_mask bits;
 *              (uverbs) a PD or CQ of another context; (mlx5_ib) more WRs
 *              than log_max_wq_sz allows
 *   EOPNOTSUPP (libibverbs) unknown create flags; (mlx5_ib) VLAN
 *              stripping, scatter FCS, delay drop or end padding the
 *              device does not do; (libmlx5) striding RQ attributes on a
 *              device without striding RQ (its stride ranges are empty)
 *   -EINVAL    (libmlx5's modify, negative as it returns it) a current
 *              state that is not the WQ's on a move to RDY
 *   EBUSY      destroy while an indirection table holds the WQ
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/bits.h"
#include "provider/core/caps.h"
#include "provider/core/cmd.h"
#include "provider/core/context.h"
#include "provider/core/error.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/events.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/verbs/wq.h"
#include "provider/mana/mana_prov.h"

/* libmlx5's DV_CREATE_WQ_SUPPORTED_COMP_MASK. */
#define WQ_DV_SUP_COMP_MASK MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ

/* libibverbs' IBV_WQ_FLAGS_RESERVED: the create flags it knows. */
#define WQ_KNOWN_FLAGS                                                        \
	(IBV_WQ_FLAGS_CVLAN_STRIPPING | IBV_WQ_FLAGS_SCATTER_FCS |             \
	 IBV_WQ_FLAGS_DELAY_DROP | IBV_WQ_FLAGS_PCI_WRITE_END_PADDING)

/* libmlx5's struct mlx5_rwqe_sig, a receive WQE's first 16 bytes. */
#define WQ_SIG_SZ 16u

static uint64_t rwq_rq_complete(struct prov_cq_rsc *rsc, uint16_t wqe_counter)
{
	struct prov_rwq *rwq = (struct prov_rwq *)((char *)rsc -
						  offsetof(struct prov_rwq, rsc));
	uint64_t wr_id;

	(void)wqe_counter;
	wr_id = rwq->rq.wrid[rwq->rq.tail & (rwq->rq.wqe_cnt - 1)];
	++rwq->rq.tail;
	return wr_id;
}

/* mlx5_calc_rwq_size(): the ring's bytes, or -EINVAL. */
static long rwq_calc_size(struct prov_context *pctx, struct prov_rwq *rwq,
			  const struct ibv_wq_init_attr *attr)
{
	uint32_t nsge = attr->max_sge ? attr->max_sge : 1;
	uint64_t wqe = (uint64_t)nsge * PROV_WQE_DATA_SZ +
		       (rwq->wq_sig ? WQ_SIG_SZ : 0);
	uint64_t wq_size;

	if (!attr->max_wr)
		return -EINVAL;
	if (wqe > PROV_CAP_GEN(pctx, max_wqe_sz_rq))
		return -EINVAL;
	wqe = prov_roundup_pow2(wqe);
	wq_size = prov_roundup_pow2(attr->max_wr) * wqe;
	if (wq_size > INT32_MAX)
		return -EINVAL;
	if (wq_size < PROV_SEND_WQE_BB)
		wq_size = PROV_SEND_WQE_BB;
	rwq->rq.wqe_cnt = (unsigned int)(wq_size / wqe);
	rwq->rq.wqe_shift = prov_ilog32((uint32_t)wqe - 1);
	rwq->rq.max_post = 1u << prov_ilog32(rwq->rq.wqe_cnt - 1);
	rwq->rq.max_gs = (int)((wqe - (rwq->wq_sig ? WQ_SIG_SZ : 0)) /
			       PROV_WQE_DATA_SZ);
	return (long)wq_size;
}

/* The ring (the PD's allocator first) and the record, as umems. */
static int rwq_alloc_mem(struct prov_rwq *rwq, struct ibv_pd *pd,
			 uint32_t *buf_id, uint32_t *db_id)
{
	const struct prov_qbuf_ext *ext = prov_pd_ext(pd);
	size_t size = prov_align(rwq->buf_size, PROV_PAGE_SIZE);
	bool dflt;
	int err;

	rwq->rq.wrid = calloc(rwq->rq.wqe_cnt, sizeof(*rwq->rq.wrid));
	if (!rwq->rq.wrid)
		return ENOMEM;
	err = prov_qbuf_alloc_ext(&rwq->buf, ext, &rwq->pctx->xalloc, size,
				  PROV_PAGE_SIZE, MLX5DV_RES_TYPE_RWQ, &dflt);
	if (!err && dflt)
		err = prov_qbuf_alloc(&rwq->buf, size, "MLX_RWQ");
	if (err)
		return err;
	err = prov_wq_db_alloc(rwq->pctx, &rwq->db_mem, &rwq->db, pd);
	if (err)
		return err;
	return prov_wq_umem_reg(rwq->pctx, &rwq->buf, rwq->db, &rwq->buf_umem,
				&rwq->db_umem, buf_id, db_id);
}

static void rwq_free(struct prov_rwq *rwq)
{
	prov_wq_mem_free(rwq->pctx, &rwq->buf, &rwq->db_mem, &rwq->db,
			 &rwq->buf_umem, &rwq->db_umem);
	free(rwq->rq.wrid);
	prov_spinlock_destroy(&rwq->rq.lock);
	free(rwq);
}

/* mlx5_ib's create_rq() for a WQ: 0 or an errno. */
static int rwq_create_rq(struct prov_rwq *rwq, const struct ibv_wq_init_attr *attr,
			 uint32_t flags, uint32_t buf_id, uint32_t db_id)
{
	struct prov_context *pctx = rwq->pctx;
	uint8_t in[PRM_ST_SZ_BYTES(create_rq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_rq_out)] = { 0 };
	void *rqc = PRM_ADDR_OF(create_rq_in, in, ctx);
	void *wq = PRM_ADDR_OF(rqc, rqc, wq);
	bool eth = PROV_CAP_GEN(pctx, eth_net_offloads);
	struct prov_rq_init r = {
		.uidx = rwq->uidx,
		.cqn = prov_cq_cqn(attr->cq),
		.pdn = prov_pd_pdn(attr->pd),
		.strip = flags & IBV_WQ_FLAGS_CVLAN_STRIPPING,
		.log_stride = rwq->rq.wqe_shift,
		.log_size = prov_ilog32(rwq->rq.wqe_cnt) - 1,
		.buf_id = buf_id,
		.db_id = db_id,
	};
	int err = prov_wq_ts_format(pctx, attr->cq, false, &r.ts_format);

	if (err)
		return err;
	prov_rq_create_in(in, &r);
	PRM_SET(wq, wq, wq_signature, rwq->wq_sig);
	if (flags & IBV_WQ_FLAGS_PCI_WRITE_END_PADDING) {
		if (!PROV_CAP_GEN(pctx, end_pad))
			return EOPNOTSUPP;
		PRM_SET(wq, wq, end_padding_mode, MLX5_WQ_END_PAD_MODE_ALIGN);
	}
	if ((flags & IBV_WQ_FLAGS_CVLAN_STRIPPING) &&
	    !prov_caps_cvlan_strip(pctx))
		return EOPNOTSUPP;
	if (flags & IBV_WQ_FLAGS_SCATTER_FCS) {
		if (!(eth && PROV_CAP_ETH(pctx, scatter_fcs)))
			return EOPNOTSUPP;
		PRM_SET(rqc, rqc, scatter_fcs, 1);
	}
	/* Delay drop needs the device's rq_delay_drop and its event. */
	if (flags & IBV_WQ_FLAGS_DELAY_DROP) {
		if (!PROV_CAP_GEN(pctx, rq_delay_drop) ||
		    !PROV_CAP_GEN(pctx, general_notification_event))
			return EOPNOTSUPP;
		PRM_SET(rqc, rqc, delay_drop_en, 1);
	}
	rwq->obj = prov_obj_create(pctx, in, sizeof(in), out, sizeof(out));
	if (!rwq->obj)
		return errno;
	rwq->wq.wq_num = PRM_GET(create_rq_out, out, rqn);
	rwq->rq_state = MLX5_RQC_STATE_RST;
	return 0;
}

/* The uverbs and libmlx5 checks before any memory: 0 or an errno. */
static int rwq_check(struct ibv_context *context, const struct ibv_wq_init_attr *attr,
		     const struct mlx5dv_wq_init_attr *dv, uint32_t *flags)
{
	struct prov_context *pctx = to_prov_context(context);

	if (attr->wq_type != IBV_WQT_RQ)
		return EINVAL;
	if (dv && (dv->comp_mask & ~(uint64_t)WQ_DV_SUP_COMP_MASK))
		return EINVAL;
	/* libibverbs' ibv_cmd_create_wq. */
	if (attr->comp_mask >= IBV_WQ_INIT_ATTR_RESERVED)
		return EINVAL;
	*flags = (attr->comp_mask & IBV_WQ_INIT_ATTR_FLAGS) ? attr->create_flags : 0;
	if (*flags & ~(uint32_t)WQ_KNOWN_FLAGS)
		return EOPNOTSUPP;
	if (!attr->pd || attr->pd->context != context || !attr->cq ||
	    attr->cq->context != context)
		return EINVAL;
	/* set_user_rq_size(). */
	if (attr->max_wr > (1u << PROV_CAP_GEN(pctx, log_max_wq_sz)))
		return EINVAL;
	return 0;
}

/* mlx5_post_wq_recv(): no state check; ENOMEM when full, EINVAL for too
 * many SGEs; the WRs before a failing one are posted. */
static int rwq_post_recv(struct ibv_wq *ibwq, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr)
{
	struct prov_rwq *rwq = to_prov_rwq(ibwq);
	unsigned int ind;
	int err = 0, nreq;

	prov_spin_lock(&rwq->rq.lock);
	ind = rwq->rq.head & (rwq->rq.wqe_cnt - 1);
	for (nreq = 0; wr; ++nreq, wr = wr->next) {
		if (prov_wq_overflow(&rwq->rq, (unsigned int)nreq, ibwq->cq)) {
			err = ENOMEM;
			*bad_wr = wr;
			break;
		}
		if (wr->num_sge > rwq->rq.max_gs) {
			err = EINVAL;
			*bad_wr = wr;
			break;
		}
		prov_rq_wqe_write((char *)rwq->buf.buf +
				  ((size_t)ind << rwq->rq.wqe_shift), &rwq->rq,
				  rwq->wq_sig, ibwq->wq_num, wr);
		rwq->rq.wrid[ind] = wr->wr_id;
		ind = (ind + 1) & (rwq->rq.wqe_cnt - 1);
	}
	if (nreq) {
		rwq->rq.head += (unsigned int)nreq;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&rwq->db[PROV_RCV_DBR],
				 htobe32(rwq->rq.head & 0xffff), __ATOMIC_RELEASE);
	}
	prov_spin_unlock(&rwq->rq.lock);
	if (nreq)
		prov_progress(rwq->pctx, MLX5BE_PROGRESS_DOORBELL);
	return err;
}

static struct ibv_wq *rwq_create(struct ibv_context *context,
				 struct ibv_wq_init_attr *attr,
				 struct mlx5dv_wq_init_attr *dv)
{
	struct prov_context *pctx = to_prov_context(context);
	uint32_t flags = 0, buf_id = 0, db_id = 0;
	struct prov_rwq *rwq;
	long size;
	int err;

	err = rwq_check(context, attr, dv, &flags);
	if (err) {
		errno = err;
		return NULL;
	}
	rwq = calloc(1, sizeof(*rwq));
	if (!rwq) {
		errno = ENOMEM;
		return NULL;
	}
	rwq->pctx = pctx;
	prov_spinlock_init(&rwq->rq.lock, !prov_pd_td(attr->pd));
	rwq->rsc.type = PROV_RSC_RWQ;
	rwq->rsc.rq_complete = rwq_rq_complete;
	rwq->wq_sig = getenv("MLX5_RWQ_SIGNATURE") != NULL;
	size = rwq_calc_size(pctx, rwq, attr);
	if (size < 0) {
		err = (int)-size;
		goto err;
	}
	/* No striding RQ here: its ranges are empty, so any request is out
	 * of them (libmlx5's check against striding_rq_caps). */
	if (dv && (dv->comp_mask & MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ)) {
		err = EINVAL;
		goto err;
	}
	rwq->buf_size = (size_t)size;
	err = rwq_alloc_mem(rwq, attr->pd, &buf_id, &db_id);
	if (err)
		goto err;
	err = prov_rsc_store(pctx, &rwq->rsc, &rwq->uidx);
	if (err)
		goto err;
	err = prov_pd_use(attr->pd);
	if (!err) {
		err = prov_cq_use(attr->cq);
		if (err)
			prov_pd_unuse(attr->pd);
	}
	if (err) {
		err = EINVAL;
		goto err_uidx;
	}
	err = rwq_create_rq(rwq, attr, flags, buf_id, db_id);
	if (err) {
		prov_cq_unuse(attr->cq);
		prov_pd_unuse(attr->pd);
		goto err_uidx;
	}
	prov_pd_parent_hold(attr->pd);
	rwq->flags = flags;
	rwq->wq.context = context;
	rwq->wq.wq_context = attr->wq_context;
	rwq->wq.pd = attr->pd;
	rwq->wq.cq = attr->cq;
	rwq->wq.wq_type = attr->wq_type;
	rwq->wq.state = IBV_WQS_RESET;
	rwq->wq.handle = prov_handle_alloc(pctx);
	rwq->wq.post_recv = rwq_post_recv;
	atomic_init(&rwq->use, 0);
	return &rwq->wq;

err_uidx:
	prov_rsc_clear(pctx, rwq->uidx);
err:
	rwq_free(rwq);
	errno = err;
	return NULL;
}

static struct ibv_wq *prov_create_wq(struct ibv_context *context,
				     struct ibv_wq_init_attr *attr)
{
	if (!context || !attr) {
		errno = EINVAL;
		return NULL;
	}
	return rwq_create(context, attr, NULL);
}

MLX5EMU_ABI(mlx5dv_create_wq);
struct ibv_wq *mlx5emu_abi_mlx5dv_create_wq(struct ibv_context *context,
					    struct ibv_wq_init_attr *attr,
					    struct mlx5dv_wq_init_attr *mlx5_wq_attr)
{
	/* libmlx5: no dv ops for a device not its own */
	if (prov_mana_is(context))
		return prov_mana_unsupported();
	struct ibv_wq *wq;

	if (!context || !attr) {
		errno = EINVAL;
		return NULL;
	}
	/* ibv_create_wq's part: the handle's event state. */
	wq = rwq_create(context, attr, mlx5_wq_attr);
	if (wq) {
		wq->events_completed = 0;
		pthread_mutex_init(&wq->mutex, NULL);
		pthread_cond_init(&wq->cond, NULL);
	}
	return wq;
}

/* The RQ to the new state (MODIFY_RQ), VLAN stripping with it. */
static int rwq_modify_rq(struct prov_rwq *rwq, uint8_t cur, uint8_t next,
			 const struct ibv_wq_attr *attr)
{
	uint8_t in[PRM_ST_SZ_BYTES(modify_rq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(modify_rq_out)] = { 0 };
	void *rqc = PRM_ADDR_OF(modify_rq_in, in, ctx);

	PRM_SET(modify_rq_in, in, opcode, MLX5_CMD_OP_MODIFY_RQ);
	PRM_SET(modify_rq_in, in, rq_state, cur);
	PRM_SET(modify_rq_in, in, rqn, rwq->wq.wq_num);
	PRM_SET(rqc, rqc, state, next);
	if (attr->attr_mask & IBV_WQ_ATTR_FLAGS) {
		if (attr->flags_mask & IBV_WQ_FLAGS_CVLAN_STRIPPING) {
			if (!prov_caps_cvlan_strip(rwq->pctx))
				return EOPNOTSUPP;
			PRM_SET64(modify_rq_in, in, modify_bitmask,
				  MLX5_MODIFY_RQ_IN_MODIFY_BITMASK_VSD);
			PRM_SET(rqc, rqc, vsd,
				(attr->flags & IBV_WQ_FLAGS_CVLAN_STRIPPING) ? 0 : 1);
		}
		if (attr->flags_mask & IBV_WQ_FLAGS_PCI_WRITE_END_PADDING)
			return EOPNOTSUPP;
	}
	return prov_obj_modify(rwq->pctx, rwq->obj, in, sizeof(in), out,
			       sizeof(out));
}

/* IBV_WQS_* and the RQ's state field (ERR is 2 and 3). */
static uint8_t rwq_rqc_state(unsigned int s)
{
	return s == IBV_WQS_ERR ? MLX5_RQC_STATE_ERR : (uint8_t)s;
}

/* mlx5_modify_wq(), libibverbs' ibv_cmd_modify_wq, mlx5_ib_modify_wq. */
static int prov_modify_wq(struct ibv_wq *ibwq, struct ibv_wq_attr *attr)
{
	struct prov_rwq *rwq = to_prov_rwq(ibwq);
	unsigned int cur, next;
	uint32_t mask;
	int err;

	if ((attr->attr_mask & IBV_WQ_ATTR_STATE) &&
	    attr->wq_state == IBV_WQS_RDY) {
		if ((attr->attr_mask & IBV_WQ_ATTR_CURR_STATE) &&
		    attr->curr_wq_state != ibwq->state)
			return -EINVAL;
		if (ibwq->state == IBV_WQS_RESET) {
			prov_qp_cq_clean(ibwq->cq, rwq->uidx, NULL);
			rwq->rq.head = rwq->rq.tail = 0;
			rwq->db[PROV_RCV_DBR] = 0;
			rwq->db[PROV_SND_DBR] = 0;
		}
	}
	if (attr->attr_mask >= IBV_WQ_ATTR_RESERVED) {
		errno = EINVAL;
		return EINVAL;
	}
	mask = attr->attr_mask;
	if (!mask) {
		errno = EINVAL;
		return EINVAL;
	}
	cur = (mask & IBV_WQ_ATTR_CURR_STATE) ? attr->curr_wq_state : ibwq->state;
	next = (mask & IBV_WQ_ATTR_STATE) ? attr->wq_state : cur;
	if (cur > IBV_WQS_ERR || next > IBV_WQS_ERR) {
		errno = EINVAL;
		return EINVAL;
	}
	err = rwq_modify_rq(rwq, rwq_rqc_state(cur), rwq_rqc_state(next), attr);
	if (err) {
		errno = err;
		return err;
	}
	rwq->rq_state = rwq_rqc_state(next);
	if (mask & IBV_WQ_ATTR_FLAGS)
		rwq->flags = (rwq->flags & ~attr->flags_mask) |
			     (attr->flags & attr->flags_mask);
	if (mask & IBV_WQ_ATTR_STATE)
		ibwq->state = attr->wq_state;
	return 0;
}

/* mlx5_destroy_wq(): EBUSY while a table holds it; then the RQ, its
 * CQEs, its memory. */
static int prov_destroy_wq(struct ibv_wq *ibwq)
{
	struct prov_rwq *rwq = to_prov_rwq(ibwq);
	struct prov_context *pctx = rwq->pctx;
	int expected = 0, err;

	if (!atomic_compare_exchange_strong(&rwq->use, &expected, -1)) {
		errno = EBUSY;
		return EBUSY;
	}
	err = prov_obj_destroy(pctx, rwq->obj);
	if (err) {
		atomic_store(&rwq->use, 0);
		errno = err;
		return err;
	}
	prov_qp_cq_clean(ibwq->cq, rwq->uidx, NULL);
	prov_rsc_clear(pctx, rwq->uidx);
	prov_cq_unuse(ibwq->cq);
	prov_pd_parent_release(ibwq->pd);
	prov_pd_unuse(ibwq->pd);
	rwq_free(rwq);
	return 0;
}

uint32_t prov_rwq_rqn(struct ibv_wq *wq)
{
	return wq->wq_num;
}

void prov_rwq_hold(struct ibv_wq *wq, int delta)
{
	atomic_fetch_add(&to_prov_rwq(wq)->use, delta);
}

/* mlx5dv_get_rwq(). */
int prov_rwq_dv(struct ibv_wq *wq, struct mlx5dv_rwq *out)
{
	struct prov_rwq *rwq;

	if (!wq || !out)
		return EINVAL;
	rwq = to_prov_rwq(wq);
	out->comp_mask = 0;
	out->buf = rwq->buf.buf;
	out->dbrec = &rwq->db[PROV_RCV_DBR];
	out->wqe_cnt = rwq->rq.wqe_cnt;
	out->stride = 1u << rwq->rq.wqe_shift;
	return 0;
}

void prov_wq_set_ops(struct prov_context *pctx)
{
	pctx->vctx.create_wq = prov_create_wq;
	pctx->vctx.modify_wq = prov_modify_wq;
	pctx->vctx.destroy_wq = prov_destroy_wq;
	prov_rwq_ind_set_ops(pctx);
}

/* The DEVX object methods on the RQ behind a WQ. */
MLX5EMU_ABI(mlx5dv_devx_wq_query);
int mlx5emu_abi_mlx5dv_devx_wq_query(struct ibv_wq *wq, const void *in,
				     size_t inlen, void *out, size_t outlen)
{
	if (wq && prov_mana_is(wq->context))
		return EOPNOTSUPP;
	if (!wq)
		return prov_err(EINVAL);
	return prov_devx_obj_query(to_prov_rwq(wq)->pctx, to_prov_rwq(wq)->obj,
				   in, inlen, out, outlen);
}

MLX5EMU_ABI(mlx5dv_devx_wq_modify);
int mlx5emu_abi_mlx5dv_devx_wq_modify(struct ibv_wq *wq, const void *in,
				      size_t inlen, void *out, size_t outlen)
{
	if (wq && prov_mana_is(wq->context))
		return EOPNOTSUPP;
	if (!wq)
		return prov_err(EINVAL);
	return prov_devx_obj_modify(to_prov_rwq(wq)->pctx, to_prov_rwq(wq)->obj,
				    in, inlen, out, outlen);
}
