/* SPDX-License-Identifier: MIT */
/*
 * provider/mana/mana_obj.c -- the plain objects of a MANA context as
 * rdma-core 44's libmana makes them (providers/mana/mana.c, wq.c): PDs and
 * parent domains (the port in pd_context), MRs, CQs and WQs in buffers from
 * the application's allocators, indirection tables; and manadv_init_obj.
 * Errnos and return conventions are that provider's, odd ones included
 * (destroy_cq answers -EINVAL without allocators, destroy_wq EINVAL).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "provider/core/fork_mem.h"
#include "provider/mana/mana_obj.h"
#include "shell/abi_export.h"

struct ibv_pd *prov_mana_alloc_pd(struct ibv_context *context)
{
	struct prov_mana_context *m = to_prov_mana(context);
	struct prov_mana_pd *pd = calloc(1, sizeof(*pd));
	int ret;

	if (!pd)
		return NULL;
	ret = m->be->alloc_pd(m->bectx, &pd->obj, &pd->ibpd.handle);
	if (ret) {
		free(pd);
		errno = -ret;
		return NULL;
	}
	pd->ibpd.context = context;
	return &pd->ibpd;
}

static struct ibv_pd *
mana_alloc_parent_domain(struct ibv_context *context,
			 struct ibv_parent_domain_init_attr *attr)
{
	struct prov_mana_pd *pd;

	/* ibv_check_alloc_parent_domain(), then only PD_CONTEXT */
	if (!attr->pd || (attr->comp_mask &
			  ~(uint32_t)IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->base = to_prov_mana_pd(attr->pd);
	pd->ibpd.context = context;
	pd->ibpd.handle = attr->pd->handle;
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	return &pd->ibpd;
}

int prov_mana_dealloc_pd(struct ibv_pd *ibpd)
{
	struct prov_mana_pd *pd = to_prov_mana_pd(ibpd);
	struct prov_mana_context *m = to_prov_mana(ibpd->context);
	int ret;

	if (pd->base) {
		free(pd);
		return 0;
	}
	ret = m->be->obj_destroy(pd->obj);
	if (ret)
		return -ret;
	free(pd);
	return 0;
}

struct ibv_mr *prov_mana_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
				uint64_t iova, int access)
{
	struct prov_mana_pd *pd = to_prov_mana_pd(ibpd);
	struct prov_mana_context *m = to_prov_mana(ibpd->context);
	bool odp = access & IBV_ACCESS_ON_DEMAND;
	struct prov_mana_mr *mr;
	int ret;

	/* MRs go on the protection domain itself */
	if (pd->base)
		pd = pd->base;
	/* libibverbs' ibv_reg_mr_iova2 keeps the range from children first,
	 * for every provider */
	if (!odp && prov_dontfork_range(addr, length))
		return NULL;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		ret = -ENOMEM;
	else
		ret = m->be->reg_mr(pd->obj, addr, length, iova,
				    (unsigned int)access, &mr->obj,
				    &mr->ibmr.lkey, &mr->ibmr.rkey);
	if (ret) {
		free(mr);
		if (!odp)
			prov_dofork_range(addr, length);
		errno = -ret;
		return NULL;
	}
	mr->access = access;
	mr->ibmr.context = ibpd->context;
	mr->ibmr.pd = ibpd;
	mr->ibmr.addr = addr;
	mr->ibmr.length = length;
	mr->ibmr.handle = mr->ibmr.lkey;
	return &mr->ibmr;
}

int prov_mana_dereg_mr(struct ibv_mr *ibmr)
{
	struct prov_mana_mr *mr = prov_mana_of(ibmr, struct prov_mana_mr, ibmr);
	struct prov_mana_context *m = to_prov_mana(ibmr->context);
	int ret = m->be->obj_destroy(mr->obj);

	if (ret)
		return -ret;
	/* libibverbs' ibv_dereg_mr: children may inherit the range again */
	if (!(mr->access & IBV_ACCESS_ON_DEMAND))
		prov_dofork_range(ibmr->addr, ibmr->length);
	free(mr);
	return 0;
}

struct ibv_cq *prov_mana_create_cq(struct ibv_context *context, int cqe,
				   struct ibv_comp_channel *channel,
				   int comp_vector)
{
	struct prov_mana_context *m = to_prov_mana(context);
	struct prov_mana_cq *cq;
	uint32_t size;
	int ret;

	(void)comp_vector;
	if (cqe > MANA_MAX_WR) {
		errno = EINVAL;
		return NULL;
	}
	/* This libmana makes CQ buffers only with the application's
	 * allocators. */
	if (!m->extern_alloc.alloc || !m->extern_alloc.free) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	pthread_mutex_init(&cq->ibcq.mutex, NULL);
	pthread_cond_init(&cq->ibcq.cond, NULL);
	size = prov_mana_hw_size((uint64_t)(cqe > 0 ? cqe : 0) * MANA_CQE_SIZE);
	cq->buf = m->extern_alloc.alloc(size, m->extern_alloc.data);
	if (!cq->buf) {
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	cq->cqe = (uint32_t)cqe;
	prov_mana_cq_link(m, cq);
	ret = cqe < 1 ? -EINVAL : m->be->create_cq(m->bectx, cq->buf, cq->cqe,
						  prov_mana_channel_wr_fd(channel),
						  cq->cookie, &cq->obj);
	if (ret) {
		prov_mana_cq_unlink(m, cq);
		m->extern_alloc.free(cq->buf, m->extern_alloc.data);
		free(cq);
		errno = -ret;
		return NULL;
	}
	cq->ibcq.context = context;
	cq->ibcq.channel = channel;
	cq->ibcq.cqe = cqe;
	/* verbs_init_cq: the channel counts its CQs */
	if (channel) {
		pthread_mutex_lock(&context->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&context->mutex);
	}
	return &cq->ibcq;
}

int prov_mana_destroy_cq(struct ibv_cq *ibcq)
{
	struct prov_mana_cq *cq = prov_mana_of(ibcq, struct prov_mana_cq, ibcq);
	struct prov_mana_context *m = to_prov_mana(ibcq->context);
	int ret;

	if (!m->extern_alloc.free)
		return -EINVAL;		/* libmana 44's own value */
	ret = m->be->obj_destroy(cq->obj);
	if (ret)
		return -ret;
	prov_mana_cq_unlink(m, cq);
	/* ibv_destroy_cq */
	if (ibcq->channel) {
		pthread_mutex_lock(&ibcq->context->mutex);
		ibcq->channel->refcnt--;
		pthread_mutex_unlock(&ibcq->context->mutex);
	}
	m->extern_alloc.free(cq->buf, m->extern_alloc.data);
	pthread_cond_destroy(&ibcq->cond);
	pthread_mutex_destroy(&ibcq->mutex);
	free(cq);
	return 0;
}

static struct ibv_wq *mana_create_wq(struct ibv_context *context,
				     struct ibv_wq_init_attr *attr)
{
	struct prov_mana_context *m = to_prov_mana(context);
	struct prov_mana_cq *cq;
	struct prov_mana_pd *pd;
	struct prov_mana_wq *wq;
	int ret;

	if (attr->max_wr > MANA_MAX_WR ||
	    prov_mana_wqe_size(attr->max_sge) > MANA_MAX_RX_WQE ||
	    !m->extern_alloc.alloc || !m->extern_alloc.free) {
		errno = EINVAL;
		return NULL;
	}
	wq = calloc(1, sizeof(*wq));
	if (!wq)
		return NULL;
	wq->sge = attr->max_sge;
	wq->buf_size = prov_mana_hw_size((uint64_t)attr->max_wr *
					 prov_mana_wqe_size(attr->max_sge));
	wq->buf = m->extern_alloc.alloc(wq->buf_size, m->extern_alloc.data);
	if (!wq->buf) {
		free(wq);
		errno = ENOMEM;
		return NULL;
	}
	wq->wqe = attr->max_wr;
	pd = attr->pd ? to_prov_mana_pd(attr->pd) : NULL;
	if (pd && pd->base)
		pd = pd->base;
	cq = attr->cq ? prov_mana_of(attr->cq, struct prov_mana_cq, ibcq) : NULL;
	ret = attr->wq_type != IBV_WQT_RQ || !pd || !cq ? -EINVAL :
	      m->be->create_wq(pd->obj, cq->obj, wq->buf, wq->buf_size,
			       attr->max_wr, attr->max_sge, &wq->obj);
	if (ret) {
		m->extern_alloc.free(wq->buf, m->extern_alloc.data);
		free(wq);
		errno = -ret;
		return NULL;
	}
	wq->ibwq.context = context;
	wq->ibwq.wq_context = attr->wq_context;
	wq->ibwq.pd = attr->pd;
	wq->ibwq.cq = attr->cq;
	wq->ibwq.wq_type = attr->wq_type;
	wq->ibwq.state = IBV_WQS_RESET;
	pthread_mutex_init(&wq->ibwq.mutex, NULL);
	pthread_cond_init(&wq->ibwq.cond, NULL);
	return &wq->ibwq;
}

static int mana_destroy_wq(struct ibv_wq *ibwq)
{
	struct prov_mana_wq *wq = prov_mana_of(ibwq, struct prov_mana_wq, ibwq);
	struct prov_mana_context *m = to_prov_mana(ibwq->context);
	int ret;

	if (!m->extern_alloc.free)
		return EINVAL;
	ret = m->be->obj_destroy(wq->obj);
	if (ret)
		return -ret;
	m->extern_alloc.free(wq->buf, m->extern_alloc.data);
	free(wq);
	return 0;
}

static int mana_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr)
{
	(void)wq;
	(void)attr;
	return EOPNOTSUPP;
}

static struct ibv_rwq_ind_table *
mana_create_rwq_ind_table(struct ibv_context *context,
			  struct ibv_rwq_ind_table_init_attr *attr)
{
	struct prov_mana_context *m = to_prov_mana(context);
	struct manabe_obj *objs[64];
	struct prov_mana_ind *t;
	uint32_t n;
	int ret;

	/* the kernel's size limit comes first (ib_uverbs) */
	if (attr->log_ind_tbl_size > 13 || attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	n = 1u << attr->log_ind_tbl_size;
	if (n > 64) {
		errno = EINVAL;
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		objs[i] = prov_mana_of(attr->ind_tbl[i], struct prov_mana_wq,
				       ibwq)->obj;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->wqs = calloc(n, sizeof(*t->wqs));
	if (!t->wqs) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	ret = m->be->create_ind_table(m->bectx, objs, attr->log_ind_tbl_size,
				      &t->obj);
	if (ret) {
		free(t->wqs);
		free(t);
		errno = -ret;
		return NULL;
	}
	t->size = n;
	memcpy(t->wqs, attr->ind_tbl, n * sizeof(*t->wqs));
	t->ibtbl.context = context;
	return &t->ibtbl;
}

static int mana_destroy_rwq_ind_table(struct ibv_rwq_ind_table *ibtbl)
{
	struct prov_mana_ind *t = prov_mana_of(ibtbl, struct prov_mana_ind, ibtbl);
	struct prov_mana_context *m = to_prov_mana(ibtbl->context);
	int ret = m->be->obj_destroy(t->obj);

	if (ret)
		return -ret;
	free(t->wqs);
	free(t);
	return 0;
}

void prov_mana_obj_set_ops(struct verbs_context *vctx)
{
	vctx->alloc_parent_domain = mana_alloc_parent_domain;
	vctx->create_wq = mana_create_wq;
	vctx->destroy_wq = mana_destroy_wq;
	vctx->modify_wq = mana_modify_wq;
	vctx->create_rwq_ind_table = mana_create_rwq_ind_table;
	vctx->destroy_rwq_ind_table = mana_destroy_rwq_ind_table;
}

MLX5EMU_ABI(manadv_init_obj);
int mlx5emu_abi_manadv_init_obj(struct manadv_obj *obj, uint64_t obj_type)
{
	if (obj_type & ~(uint64_t)(MANADV_OBJ_QP | MANADV_OBJ_CQ | MANADV_OBJ_RWQ))
		return EINVAL;
	if (obj_type & MANADV_OBJ_QP) {
		struct prov_mana_qp *qp = prov_mana_of(obj->qp.in,
						       struct prov_mana_qp, ibqp);

		obj->qp.out->sq_buf = qp->send_buf;
		obj->qp.out->sq_count = qp->send_wqe_count;
		obj->qp.out->sq_size = qp->send_buf_size;
		obj->qp.out->sq_id = qp->sqid;
		obj->qp.out->tx_vp_offset = qp->tx_vp_offset;
		obj->qp.out->db_page = to_prov_mana(obj->qp.in->context)->db_page;
	}
	if (obj_type & MANADV_OBJ_CQ) {
		struct prov_mana_cq *cq = prov_mana_of(obj->cq.in,
						       struct prov_mana_cq, ibcq);

		obj->cq.out->buf = cq->buf;
		obj->cq.out->count = cq->cqe;
		obj->cq.out->cq_id = cq->cqid;
	}
	if (obj_type & MANADV_OBJ_RWQ) {
		struct prov_mana_wq *wq = prov_mana_of(obj->rwq.in,
						       struct prov_mana_wq, ibwq);

		obj->rwq.out->buf = wq->buf;
		obj->rwq.out->count = wq->wqe;
		obj->rwq.out->size = wq->buf_size;
		obj->rwq.out->wq_id = wq->wqid;
		obj->rwq.out->db_page = to_prov_mana(obj->rwq.in->context)->db_page;
	}
	return 0;
}
