/* SPDX-License-Identifier: MIT */
/*
 * Queue pair creation, as rdma-core 44 (libmlx5 verbs.c create_qp,
 * libibverbs ibv_icmd_create_qp) over the upstream kernel (uverbs
 * QP_CREATE, mlx5_ib_create_qp) behave: the checks (qp_check.c), the
 * sizes (qp_caps.c), the ring and doorbell record (qp_wq.c), then
 * CREATE_QP with the QP's doorbell register page (qp_ctx.c) as uar_page
 * and its user index (cqe_version 1) as user_index.  And ibv_open_qp, a
 * new handle on an XRC target QP.
 *
 * Errors: NULL + errno, in the order the layers check (see qp_check.c,
 * qp_wr.c for send_ops_flags, and qp_caps.c), then
 *   EINVAL     (mlx5_ib) a receive queue on a QP type that has none
 *              (qp_caps.c), a DCT without SRQ or receive CQ (qp_dv.c)
 *   ENOMEM     buffers, user indexes
 *   firmware   the status's errno as mlx5_cmd_exec maps it
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/events.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/sq.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/verbs/wq.h"
#include "provider/mana/mana_prov.h"

/* ---- CQ polling callbacks ---- */

/* The WQE at @wqe_counter completed: everything before it is retired with
 * it (unsignaled WQEs complete silently). */
static uint64_t qp_sq_complete(struct prov_cq_rsc *rsc, uint16_t wqe_counter,
			       enum ibv_wc_opcode *opcode)
{
	struct prov_qp *qp = (struct prov_qp *)((char *)rsc -
						offsetof(struct prov_qp, rsc));
	unsigned int idx;

	if (!qp->sq.wqe_cnt)
		return 0;
	idx = wqe_counter & (qp->sq.wqe_cnt - 1);
	qp->sq.tail = qp->sq.wqe_head[idx] + 1;
	*opcode = (enum ibv_wc_opcode)qp->sq.wr_data[idx];
	return qp->sq.wrid[idx];
}

static uint64_t qp_rq_complete(struct prov_cq_rsc *rsc, uint16_t wqe_counter)
{
	struct prov_qp *qp = (struct prov_qp *)((char *)rsc -
						offsetof(struct prov_qp, rsc));
	uint64_t wr_id;

	(void)wqe_counter;
	if (!qp->rq.wqe_cnt)
		return 0;
	wr_id = qp->rq.wrid[qp->rq.tail & (qp->rq.wqe_cnt - 1)];
	++qp->rq.tail;
	return wr_id;
}

/* ---- CREATE_QP ---- */

/*
 * The queue layout the firmware takes: mlx5_ib's get_rx_type(), except
 * that a DCI and an XRC initiator, which never receive, get a zero-length
 * RQ rather than the kernel's own default SRQ (the emulated firmware
 * accepts both for XRC and only this for a DCI).
 */
static uint32_t qp_rq_type(const struct prov_qp *qp,
			   const struct ibv_qp_init_attr_ex *attr)
{
	if (attr->qp_type == IBV_QPT_XRC_RECV)
		return MLX5_SRQ_RQ;
	if (qp->dc == PROV_QP_DCI || attr->qp_type == IBV_QPT_XRC_SEND)
		return MLX5_ZERO_LEN_RQ;
	if (attr->srq)
		return MLX5_SRQ_RQ;
	if (!qp->rq.wqe_cnt)
		return MLX5_ZERO_LEN_RQ;
	return MLX5_NON_ZERO_RQ;
}

static int qp_create_cmd(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr,
			 uint32_t buf_id, uint32_t db_id, uint32_t *qpn)
{
	struct prov_context *pctx = qp->pctx;
	uint8_t in[PRM_ST_SZ_BYTES(create_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_qp_out)] = { 0 };
	void *qpc = PRM_ADDR_OF(create_qp_in, in, qpc);
	uint32_t pdn, xrcdn;
	int err;

	PRM_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	PRM_SET(qpc, qpc, st, prov_qp_st(qp, attr->qp_type));
	PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	if (prov_qp_is_xrc_tgt(attr->qp_type)) {
		err = prov_qp_ctx_pd0(pctx, &pdn);
		if (err)
			return err;
		xrcdn = prov_xrcd_xrcdn(attr->xrcd);
	} else {
		pdn = prov_pd_pdn(attr->pd);
		xrcdn = 0;
		if (attr->qp_type == IBV_QPT_XRC_SEND) {
			err = prov_qp_ctx_xrcd1(pctx, &xrcdn);
			if (err)
				return err;
		}
	}
	PRM_SET(qpc, qpc, pd, pdn);
	if (qp->wq_sig)
		PRM_SET(qpc, qpc, wq_signature, 1);
	if (qp->create_flags & IBV_QP_CREATE_BLOCK_SELF_MCAST_LB)
		PRM_SET(qpc, qpc, block_lb_mc, 1);
	if (qp->create_flags & IBV_QP_CREATE_PCI_WRITE_END_PADDING)
		PRM_SET(qpc, qpc, end_padding_mode, MLX5_WQ_END_PAD_MODE_ALIGN);
	if (qp->rq.wqe_cnt) {
		PRM_SET(qpc, qpc, log_rq_stride, qp->rq.wqe_shift - 4);
		PRM_SET(qpc, qpc, log_rq_size, prov_ilog32(qp->rq.wqe_cnt) - 1);
	}
	PRM_SET(qpc, qpc, ts_format, qp->ts_format);
	PRM_SET(qpc, qpc, rq_type, qp_rq_type(qp, attr));
	if (qp->sq.wqe_cnt && !prov_qp_is_xrc_tgt(attr->qp_type))
		PRM_SET(qpc, qpc, log_sq_size, prov_ilog32(qp->sq.wqe_cnt) - 1);
	else
		PRM_SET(qpc, qpc, no_sq, 1);
	PRM_SET(qpc, qpc, xrcd, xrcdn);
	if (attr->srq && !prov_qp_is_xrc_tgt(attr->qp_type))
		PRM_SET(qpc, qpc, srqn_rmpn_xrqn, prov_srq_srqn(attr->srq));
	if (!prov_qp_is_xrc_tgt(attr->qp_type)) {
		if (attr->send_cq)
			PRM_SET(qpc, qpc, cqn_snd, prov_cq_cqn(attr->send_cq));
		if (attr->recv_cq && attr->qp_type != IBV_QPT_XRC_SEND)
			PRM_SET(qpc, qpc, cqn_rcv, prov_cq_cqn(attr->recv_cq));
	}
	PRM_SET(qpc, qpc, user_index, qp->uidx);
	PRM_SET(qpc, qpc, uar_page, qp->bf->page_id);
	PRM_SET(qpc, qpc, log_page_size, 0);
	PRM_SET(qpc, qpc, page_offset, 0);
	PRM_SET(qpc, qpc, dbr_umem_valid, 1);
	PRM_SET(qpc, qpc, dbr_umem_id, db_id);
	PRM_SET64(qpc, qpc, dbr_addr, 0);
	PRM_SET(create_qp_in, in, wq_umem_valid, 1);
	PRM_SET(create_qp_in, in, wq_umem_id, buf_id);
	PRM_SET64(create_qp_in, in, wq_umem_offset, 0);
	if (PROV_CAP_GEN(pctx, ece_support))
		PRM_SET(create_qp_in, in, ece, PROV_ECE_CREATE);
	qp->obj = prov_obj_create(pctx, in, sizeof(in), out, sizeof(out));
	if (!qp->obj)
		return errno;
	*qpn = PRM_GET(create_qp_out, out, qpn);
	if (PROV_CAP_GEN(pctx, ece_support))
		qp->get_ece = PRM_GET(create_qp_out, out, ece);
	return 0;
}

/* The uses the kernel takes (ib_create_qp_user), released at destroy. */
static int qp_take_uses(struct prov_qp *qp, const struct ibv_qp_init_attr_ex *attr)
{
	int err = 0;
	bool pd = false, scq = false, rcq = false, srq = false, xrcd = false;

	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		err = prov_xrcd_use(attr->xrcd);
		xrcd = !err;
		goto out;
	}
	err = prov_pd_use(attr->pd);
	pd = !err;
	if (pd)
		prov_pd_parent_hold(attr->pd);
	if (!err && attr->send_cq) {
		err = prov_cq_use(attr->send_cq);
		scq = !err;
	}
	if (!err && attr->recv_cq && attr->qp_type != IBV_QPT_XRC_SEND) {
		err = prov_cq_use(attr->recv_cq);
		rcq = !err;
	}
	if (!err && attr->srq) {
		err = prov_srq_use(attr->srq);
		srq = !err;
	}
out:
	if (err) {
		if (srq)
			prov_srq_unuse(attr->srq);
		if (rcq)
			prov_cq_unuse(attr->recv_cq);
		if (scq)
			prov_cq_unuse(attr->send_cq);
		if (pd) {
			prov_pd_parent_release(attr->pd);
			prov_pd_unuse(attr->pd);
		}
		if (xrcd)
			prov_xrcd_unuse(qp->pctx, attr->xrcd);
		return EINVAL;
	}
	return 0;
}

/* libibverbs' set_qp(): the verbs fields of a new QP. */
static void qp_init_verbs(struct prov_qp *qp, struct ibv_context *context,
			  const struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;

	ibqp->context = context;
	ibqp->qp_context = attr->qp_context;
	ibqp->pd = attr->pd;
	ibqp->send_cq = attr->send_cq;
	ibqp->recv_cq = attr->recv_cq;
	ibqp->srq = attr->srq;
	ibqp->qp_type = attr->qp_type;
	ibqp->state = IBV_QPS_RESET;
	ibqp->events_completed = 0;
	ibqp->handle = prov_handle_alloc(qp->pctx);
	pthread_mutex_init(&ibqp->mutex, NULL);
	pthread_cond_init(&ibqp->cond, NULL);
	qp->vqp.comp_mask = 0;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) {
		qp->vqp.comp_mask |= PROV_VERBS_QP_XRCD;
		qp->vqp.xrcd = (struct prov_verbs_xrcd *)attr->xrcd;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		qp->vqp.comp_mask |= PROV_VERBS_QP_EX;
}

struct prov_qp *prov_qp_alloc(struct prov_context *pctx)
{
	struct prov_qp *qp = calloc(1, sizeof(*qp));

	if (!qp)
		return NULL;
	qp->pctx = pctx;
	qp->rsc.type = PROV_RSC_QP;
	qp->rsc.sq_complete = qp_sq_complete;
	qp->rsc.rq_complete = qp_rq_complete;
	prov_spinlock_init(&qp->sq.lock, true);
	prov_spinlock_init(&qp->rq.lock, true);
	pthread_mutex_init(&qp->lock, NULL);
	atomic_init(&qp->refs, 1);
	qp->kstate = IBV_QPS_RESET;
	return qp;
}

void prov_qp_free(struct prov_qp *qp)
{
	free(qp->dct_in);
	prov_spinlock_destroy(&qp->sq.lock);
	prov_spinlock_destroy(&qp->rq.lock);
	pthread_mutex_destroy(&qp->lock);
	free(qp);
}

struct ibv_qp *prov_qp_create(struct ibv_context *context,
			      struct ibv_qp_init_attr_ex *attr,
			      struct mlx5dv_qp_init_attr *dv)
{
	struct prov_context *pctx = to_prov_context(context);
	struct ibv_qp_init_attr_ex a;
	uint32_t vflags = 0, qpn = 0;
	struct prov_qp_mem_ids ids;
	struct prov_qp *qp;
	bool uses = false;
	int err;

	qp = prov_qp_alloc(pctx);
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	err = prov_qp_check_lib(qp, attr, dv, &vflags);
	if (err)
		goto err;
	if (qp->dc == PROV_QP_DCT) {
		err = prov_dct_check_lib(attr, dv, vflags);
		if (!err)
			err = prov_qp_check_uverbs(context, attr);
		if (!err)
			err = prov_qp_check_kernel(qp, attr, &vflags);
		if (!err)
			err = prov_dct_create(qp, attr, dv);
		if (err)
			goto err;
		qp_init_verbs(qp, context, attr);
		return &qp->vqp.qp;
	}
	/* libmlx5: an RSS QP has no queues; the kernel makes its TIR. */
	if (attr->comp_mask & IBV_QP_INIT_ATTR_RX_HASH) {
		err = prov_qp_rss_create(qp, context, attr,
					 vflags & ~(uint32_t)PROV_QPF_SCATTER_CQE);
		if (err)
			goto err;
		qp_init_verbs(qp, context, attr);
		qp->vqp.qp.qp_num = 0;
		return &qp->vqp.qp;
	}
	/* libmlx5: atomics on the device's word, then the ibv_wr_* API. */
	qp->atomics_enabled = prov_caps_atomic_cap(pctx) != IBV_ATOMIC_NONE;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ||
	    (dv && (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS))) {
		err = prov_qp_wr_init(qp, attr, dv);
		if (err)
			goto err;
	}
	if (dv && (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS))
		qp->dv_ops = dv->send_ops_flags;
	qp->wq_sig = getenv("MLX5_QP_SIGNATURE") != NULL;
	if (qp->wq_sig)
		vflags |= PROV_QPF_SIGNATURE;
	/* libibverbs zeroes an XRC initiator's receive caps only after
	 * libmlx5 sized the queues; work on a copy until then. */
	a = *attr;
	err = prov_qp_calc_wq_size(pctx, qp, &a, &qp->buf_size);
	if (err)
		goto err;
	err = prov_qp_check_uverbs(context, &a);
	if (err)
		goto err;
	if (a.qp_type == IBV_QPT_XRC_SEND) {
		a.cap.max_recv_wr = 0;
		a.cap.max_recv_sge = 0;
	}
	err = prov_qp_check_kernel(qp, &a, &vflags);
	if (!err)
		err = prov_qp_check_rq(qp, &a);
	if (!err)
		err = prov_qp_set_ts_format(qp, &a);
	if (err)
		goto err;
	qp->mlx5_flags = vflags;

	err = prov_qp_alloc_mem(qp, &a, &ids);
	if (err)
		goto err_mem;
	qp->sq.head = qp->sq.tail = qp->sq.cur_post = 0;
	qp->rq.head = qp->rq.tail = 0;
	if (!prov_qp_is_xrc_tgt(a.qp_type)) {
		err = prov_rsc_store(pctx, &qp->rsc, &qp->uidx);
		if (err)
			goto err_mem;
		qp->has_uidx = true;
	}
	/* libmlx5: a thread domain's QPs ring its register, with no lock on
	 * it or on their queues (mlx5_spinlock_init_pd). */
	if (a.pd && prov_pd_td(a.pd)) {
		qp->bf = prov_td_bf(prov_pd_td(a.pd));
		qp->sq.lock.need_lock = false;
		qp->rq.lock.need_lock = false;
	} else {
		err = prov_qp_bf_get(pctx, &qp->bf);
		if (err)
			goto err_uidx;
	}
	err = qp_take_uses(qp, &a);
	if (err)
		goto err_bf;
	uses = true;
	if (a.srq)
		qp->rsc.srq = &to_prov_srq(a.srq)->rsc;
	if (a.qp_type == IBV_QPT_RAW_PACKET) {
		if (a.comp_mask & IBV_QP_INIT_ATTR_MAX_TSO_HEADER)
			qp->max_tso_header = a.max_tso_header;
		qp->eth_min_inline = prov_qp_raw_eth_min_inline(pctx);
		err = prov_qp_raw_create(qp, &a, &ids, &qpn);
	} else {
		err = qp_create_cmd(qp, &a, ids.buf, ids.db, &qpn);
	}
	if (err)
		goto err_uses;

	qp->rq.max_post = qp->rq.wqe_cnt;
	qp->sq_signal_bits = a.sq_sig_all ? MLX5_WQE_CTRL_CQ_UPDATE : 0;
	attr->cap.max_send_wr = qp->sq.max_post;
	attr->cap.max_recv_wr = qp->rq.max_post;
	attr->cap.max_recv_sge = (uint32_t)qp->rq.max_gs;
	attr->cap.max_inline_data = a.cap.max_inline_data;
	qp->create_flags |= (a.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) ?
			    (a.create_flags & ~(uint32_t)
			     (IBV_QP_CREATE_BLOCK_SELF_MCAST_LB |
			      IBV_QP_CREATE_PCI_WRITE_END_PADDING)) : 0;
	qp_init_verbs(qp, context, &a);
	qp->vqp.qp.qp_num = qpn;
	if (a.qp_type == IBV_QPT_XRC_RECV) {
		qp->xrcd = to_prov_xrcd(a.xrcd);
		qp->xshared = qp->xrcd->shared;
		prov_xrcd_add_tgt(qp->xshared, pctx->qp_ctx, qp);
	}
	prov_qp_set_operational_state(qp, IBV_QPS_RESET);
	/* Its affiliated events (a DCT's object comes at RTR: none; a raw
	 * packet QP's come from its SQ, else its RQ, as mlx5_ib's do). */
	if (qp->obj || qp->raw.sq || qp->raw.rq)
		prov_ev_register(pctx, &qp->ev, PROV_EV_QP,
				 qp->obj ? qp->obj :
				 qp->raw.sq ? qp->raw.sq : qp->raw.rq);
	return &qp->vqp.qp;

err_uses:
	if (uses) {
		qp->vqp.qp.qp_type = a.qp_type;
		qp->vqp.qp.pd = a.pd;
		qp->vqp.qp.send_cq = a.send_cq;
		qp->vqp.qp.recv_cq = a.recv_cq;
		qp->vqp.qp.srq = a.srq;
		if (a.qp_type == IBV_QPT_XRC_RECV) {
			qp->xrcd = to_prov_xrcd(a.xrcd);
			qp->xshared = qp->xrcd->shared;
			prov_xrcd_handle_put(qp->xrcd);
		}
		prov_qp_drop_uses(qp);
	}
err_bf:
	prov_qp_bf_put(pctx, qp->bf);
err_uidx:
	if (qp->has_uidx)
		prov_rsc_clear(pctx, qp->uidx);
err_mem:
	prov_qp_free_mem(qp);
err:
	prov_qp_free(qp);
	errno = err;
	return NULL;
}

MLX5EMU_ABI(ibv_create_qp);
struct ibv_qp *mlx5emu_abi_ibv_create_qp(struct ibv_pd *pd,
					 struct ibv_qp_init_attr *attr)
{
	if (pd && prov_mana_is(pd->context))
		return prov_mana_create_qp(pd, attr);
	struct ibv_qp_init_attr_ex ax;
	struct ibv_qp *qp;

	if (!pd || !attr) {
		errno = EINVAL;
		return NULL;
	}
	memset(&ax, 0, sizeof(ax));
	memcpy(&ax, attr, sizeof(*attr));
	ax.comp_mask = IBV_QP_INIT_ATTR_PD;
	ax.pd = pd;
	qp = prov_qp_create(pd->context, &ax, NULL);
	if (qp)
		memcpy(attr, &ax, sizeof(*attr));
	return qp;
}

/* The verbs_context op behind ibv_create_qp_ex (any mask but PD alone). */
struct ibv_qp *prov_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr)
{
	if (!context || !attr) {
		errno = EINVAL;
		return NULL;
	}
	return prov_qp_create(context, attr, NULL);
}

/* ---- ibv_open_qp ---- */

struct ibv_qp *prov_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr)
{
	struct prov_qp *qp, *real;
	struct prov_xrcd *xrcd;

	if (!context || !attr) {
		errno = EINVAL;
		return NULL;
	}
	/* libibverbs' ibv_cmd_open_qp, then uverbs' open_qp. */
	if (attr->comp_mask >= IBV_QP_OPEN_ATTR_RESERVED) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_OPEN_ATTR_XRCD) ||
	    !(attr->comp_mask & IBV_QP_OPEN_ATTR_NUM) ||
	    !(attr->comp_mask & IBV_QP_OPEN_ATTR_TYPE) || !attr->xrcd ||
	    attr->xrcd->context != context ||
	    attr->qp_type != IBV_QPT_XRC_RECV) {
		errno = EINVAL;
		return NULL;
	}
	xrcd = to_prov_xrcd(attr->xrcd);
	qp = prov_qp_alloc(to_prov_context(context));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	real = prov_xrcd_find_tgt(xrcd, attr->qp_num);
	if (!real) {
		prov_qp_free(qp);
		errno = EINVAL;
		return NULL;
	}
	prov_xrcd_handle_get(xrcd);
	qp->real = real;
	qp->opened = true;
	qp->xrcd = xrcd;
	qp->vqp.qp.context = context;
	qp->vqp.qp.qp_context = attr->qp_context;
	qp->vqp.qp.qp_num = attr->qp_num;
	qp->vqp.qp.qp_type = attr->qp_type;
	qp->vqp.qp.state = IBV_QPS_UNKNOWN;
	qp->vqp.qp.handle = prov_handle_alloc(to_prov_context(context));
	pthread_mutex_init(&qp->vqp.qp.mutex, NULL);
	pthread_cond_init(&qp->vqp.qp.cond, NULL);
	qp->vqp.comp_mask = PROV_VERBS_QP_XRCD;
	qp->vqp.xrcd = &xrcd->vxrcd;
	return &qp->vqp.qp;
}
