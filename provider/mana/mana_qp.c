/* SPDX-License-Identifier: MIT */
/*
 * provider/mana/mana_qp.c -- rdma-core 44's libmana QPs (providers/mana/
 * qp.c): the raw send QP on a parent domain naming the port, whose send
 * buffer comes from the application's allocator, and the RSS QP over an
 * indirection table.  The kernel's answer gives the ids: the SQ's and its
 * CQ's for a raw QP, each WQ's and its CQ's for an RSS QP; manadv_init_obj
 * reports them only from then on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "provider/mana/mana_obj.h"

static struct ibv_qp *mana_create_qp_raw(struct ibv_pd *ibpd,
					 struct ibv_qp_init_attr *attr)
{
	struct prov_mana_context *m = to_prov_mana(ibpd->context);
	struct prov_mana_pd *pd = to_prov_mana_pd(ibpd);
	struct manabe_raw_qp_resp resp;
	struct prov_mana_cq *cq;
	struct prov_mana_qp *qp;
	uint32_t port;
	int ret;

	/* a raw QP's PD is a parent domain with the port */
	if (!pd->base) {
		errno = EINVAL;
		return NULL;
	}
	port = (uint32_t)(uintptr_t)pd->pd_context;
	if (attr->cap.max_send_wr > MANA_MAX_WR ||
	    prov_mana_wqe_size(attr->cap.max_send_sge) > MANA_MAX_TX_WQE ||
	    !m->extern_alloc.alloc || !m->extern_alloc.free) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	qp->send_buf_size = prov_mana_hw_size((uint64_t)attr->cap.max_send_wr *
					      prov_mana_wqe_size(attr->cap.max_send_sge));
	qp->send_buf = m->extern_alloc.alloc(qp->send_buf_size,
					     m->extern_alloc.data);
	if (!qp->send_buf) {
		free(qp);
		errno = ENOMEM;
		return NULL;
	}
	cq = attr->send_cq ? prov_mana_of(attr->send_cq, struct prov_mana_cq,
					  ibcq) : NULL;
	ret = !cq ? -EINVAL :
	      m->be->create_qp_raw(pd->base->obj, port, cq->obj, qp->send_buf,
				   qp->send_buf_size, attr->cap.max_send_wr,
				   attr->cap.max_send_sge, &qp->obj, &resp);
	if (ret) {
		m->extern_alloc.free(qp->send_buf, m->extern_alloc.data);
		free(qp);
		errno = -ret;
		return NULL;
	}
	qp->sqid = resp.sqid;
	qp->tx_vp_offset = resp.tx_vp_offset;
	qp->send_wqe_count = attr->cap.max_send_wr;
	cq->cqid = resp.cqid;
	qp->ibqp.context = ibpd->context;
	qp->ibqp.qp_context = attr->qp_context;
	qp->ibqp.pd = ibpd;
	qp->ibqp.send_cq = attr->send_cq;
	qp->ibqp.recv_cq = attr->recv_cq;
	qp->ibqp.qp_type = attr->qp_type;
	qp->ibqp.qp_num = resp.sqid;
	qp->ibqp.state = IBV_QPS_RESET;
	pthread_mutex_init(&qp->ibqp.mutex, NULL);
	pthread_cond_init(&qp->ibqp.cond, NULL);
	return &qp->ibqp;
}

struct ibv_qp *prov_mana_create_qp(struct ibv_pd *pd,
				   struct ibv_qp_init_attr *attr)
{
	if (attr->qp_type != IBV_QPT_RAW_PACKET) {
		errno = EINVAL;
		return NULL;
	}
	return mana_create_qp_raw(pd, attr);
}

static struct ibv_qp *mana_create_qp_rss(struct ibv_context *context,
					 struct ibv_qp_init_attr_ex *attr)
{
	struct prov_mana_context *m = to_prov_mana(context);
	struct manabe_rss_entry entries[64];
	struct prov_mana_ind *t;
	struct prov_mana_pd *pd;
	struct prov_mana_qp *qp;
	int ret;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    !to_prov_mana_pd(attr->pd)->base) {
		errno = EINVAL;
		return NULL;
	}
	pd = to_prov_mana_pd(attr->pd);
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_RX_HASH) ||
	    attr->rx_hash_conf.rx_hash_key_len != MANA_KEY_LEN) {
		errno = EINVAL;
		return NULL;
	}
	/* Without a table this libmana would send the RSS command anyway,
	 * which the kernel reads as a raw QP's; refused here instead. */
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE) || !attr->rwq_ind_tbl) {
		errno = EINVAL;
		return NULL;
	}
	t = prov_mana_of(attr->rwq_ind_tbl, struct prov_mana_ind, ibtbl);
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	ret = m->be->create_qp_rss(pd->base->obj,
				   (uint32_t)(uintptr_t)pd->pd_context, t->obj,
				   attr->cap.max_recv_wr, attr->cap.max_recv_sge,
				   attr->rx_hash_conf.rx_hash_function,
				   attr->rx_hash_conf.rx_hash_key,
				   attr->rx_hash_conf.rx_hash_key_len, &qp->obj,
				   entries);
	if (ret) {
		free(qp);
		errno = -ret;
		return NULL;
	}
	for (uint32_t i = 0; i < t->size; i++) {
		struct prov_mana_wq *wq = prov_mana_of(t->wqs[i],
						       struct prov_mana_wq, ibwq);

		wq->wqid = entries[i].wqid;
		prov_mana_of(wq->ibwq.cq, struct prov_mana_cq, ibcq)->cqid =
			entries[i].cqid;
	}
	qp->ibqp.context = context;
	qp->ibqp.qp_context = attr->qp_context;
	qp->ibqp.pd = attr->pd;
	qp->ibqp.qp_type = attr->qp_type;
	qp->ibqp.qp_num = entries[0].wqid;
	qp->ibqp.state = IBV_QPS_RESET;
	pthread_mutex_init(&qp->ibqp.mutex, NULL);
	pthread_cond_init(&qp->ibqp.cond, NULL);
	return &qp->ibqp;
}

static struct ibv_qp *mana_create_qp_ex(struct ibv_context *context,
					struct ibv_qp_init_attr_ex *attr)
{
	if (attr->qp_type != IBV_QPT_RAW_PACKET) {
		errno = EINVAL;
		return NULL;
	}
	return mana_create_qp_rss(context, attr);
}

int prov_mana_destroy_qp(struct ibv_qp *ibqp)
{
	struct prov_mana_qp *qp = prov_mana_of(ibqp, struct prov_mana_qp, ibqp);
	struct prov_mana_context *m = to_prov_mana(ibqp->context);
	int ret;

	if (!m->extern_alloc.free)
		return -EINVAL;		/* libmana 44's own value */
	ret = m->be->obj_destroy(qp->obj);
	if (ret)
		return -ret;
	if (qp->send_buf)
		m->extern_alloc.free(qp->send_buf, m->extern_alloc.data);
	free(qp);
	return 0;
}

void prov_mana_qp_set_ops(struct verbs_context *vctx)
{
	vctx->create_qp_ex = mana_create_qp_ex;
}
