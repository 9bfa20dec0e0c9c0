/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/kern/mana_kern_obj.c -- mana_ib's PDs, MRs, CQs, WQs and
 * indirection tables, and the destruction of every object.
 *
 * A CQ and a WQ pin their buffer and make a DMA region at creation (as
 * mana_ib_create_cq/_wq do); the region passes to the firmware's WQ object
 * when a QP binds the queue ("the GDMA regions are now owned by the WQ
 * object"), and the kernel then forgets it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "emu/mana/kern/mana_kern.h"
#include "emu/mana/mana.h"
#include "prm/prm_le.h"

struct manabe_obj *mk_obj_new(struct manabe_ctx *ctx, enum mk_obj_type type)
{
	struct manabe_obj *o = calloc(1, sizeof(*o));

	if (o) {
		o->type = type;
		o->ctx = ctx;
	}
	return o;
}

void mk_obj_hold(struct manabe_obj *o)
{
	if (o)
		o->users++;
}

void mk_obj_put(struct manabe_obj *o)
{
	if (o)
		o->users--;
}

int mk_alloc_pd(struct manabe_ctx *ctx, struct manabe_obj **out, uint32_t *pdn)
{
	uint8_t req[PRM_LE_ST_SZ_BYTES(gdma_create_pd_req)] = { 0 };
	uint8_t resp[PRM_LE_ST_SZ_BYTES(gdma_create_pd_resp)] = { 0 };
	struct manabe_obj *pd = mk_obj_new(ctx, MK_PD);
	int ret;

	if (!pd)
		return -ENOMEM;
	/* ib_uverbs on a disassociated device */
	if (mk_fatal(ctx->dev)) {
		free(pd);
		return -EIO;
	}
	ret = mk_hwc(ctx->dev, MANA_MSG_GDMA_CREATE_PD, req, sizeof(req), resp, sizeof(resp));
	if (ret) {
		free(pd);
		return ret;
	}
	pd->handle = PRM_LE_GET64(gdma_create_pd_resp, resp, pd_handle);
	pd->pd.pdn = PRM_LE_GET(gdma_create_pd_resp, resp, pd_id);
	pd->pd.vport = -1;
	*out = pd;
	*pdn = pd->pd.pdn;
	return 0;
}

/* mana_ib_verbs_to_gdma_access_flags(): local read always. */
static uint32_t mk_gdma_access(unsigned int access)
{
	uint32_t g = MANA_FW_ACCESS_LOCAL_READ;

	if (access & IBV_ACCESS_LOCAL_WRITE)
		g |= MANA_FW_ACCESS_LOCAL_WRITE;
	if (access & IBV_ACCESS_REMOTE_WRITE)
		g |= MANA_FW_ACCESS_REMOTE_WRITE;
	if (access & IBV_ACCESS_REMOTE_READ)
		g |= MANA_FW_ACCESS_REMOTE_READ;
	return g;
}

int mk_reg_mr(struct manabe_obj *pd, void *addr, size_t length, uint64_t iova,
	      unsigned int access, struct manabe_obj **out, uint32_t *lkey,
	      uint32_t *rkey)
{
	uint8_t req[PRM_LE_ST_SZ_BYTES(gdma_create_mr_req)] = { 0 };
	uint8_t resp[PRM_LE_ST_SZ_BYTES(gdma_create_mr_resp)] = { 0 };
	struct mana_kdev *d = pd->ctx->dev;
	struct manabe_obj *mr;
	uint64_t region;
	int ret;

	/* ib_uverbs on a disassociated device */
	if (mk_fatal(pd->ctx->dev))
		return -EIO;
	/* mana_ib_reg_user_mr(): VALID_MR_FLAGS */
	if (access & ~(unsigned int)(IBV_ACCESS_LOCAL_WRITE |
				     IBV_ACCESS_REMOTE_WRITE |
				     IBV_ACCESS_REMOTE_READ))
		return -EINVAL;
	/* ib_check_mr_access(): remote write needs local write */
	if ((access & IBV_ACCESS_REMOTE_WRITE) && !(access & IBV_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	mr = mk_obj_new(pd->ctx, MK_MR);
	if (!mr)
		return -ENOMEM;
	ret = mk_region_create(d, addr, length, access & IBV_ACCESS_LOCAL_WRITE,
			       &region);
	if (ret)
		goto fail;
	PRM_LE_SET64(gdma_create_mr_req, req, pd_handle, pd->handle);
	PRM_LE_SET(gdma_create_mr_req, req, mr_type, MANA_FW_MR_TYPE_GVA);
	PRM_LE_SET64(gdma_create_mr_req, req, dma_region_handle, region);
	PRM_LE_SET64(gdma_create_mr_req, req, virtual_address, iova);
	PRM_LE_SET(gdma_create_mr_req, req, access_flags, mk_gdma_access(access));
	ret = mk_hwc(d, MANA_MSG_GDMA_CREATE_MR, req, sizeof(req), resp, sizeof(resp));
	if (ret) {
		mk_region_destroy(d, region);
		goto fail;
	}
	mr->handle = PRM_LE_GET64(gdma_create_mr_resp, resp, mr_handle);
	mr->mr.pd = pd;
	mk_obj_hold(pd);
	*lkey = PRM_LE_GET(gdma_create_mr_resp, resp, lkey);
	*rkey = PRM_LE_GET(gdma_create_mr_resp, resp, rkey);
	*out = mr;
	return 0;
fail:
	free(mr);
	return ret;
}

int mk_create_cq(struct manabe_ctx *ctx, void *buf, uint32_t cqe,
		 int event_fd, uint64_t cookie, struct manabe_obj **out)
{
	struct manabe_obj *cq;
	int ret;

	/* ib_uverbs on a disassociated device */
	if (mk_fatal(ctx->dev))
		return -EIO;
	/* mana_ib_create_cq() */
	if (!cqe || cqe > MK_MAX_WR)
		return -EINVAL;
	cq = mk_obj_new(ctx, MK_CQ);
	if (!cq)
		return -ENOMEM;
	cq->cq.event_fd = -1;
	/* ib_uverbs_create_cq: the channel must be a completion channel */
	if (event_fd >= 0) {
		cq->cq.event_fd = fcntl(event_fd, F_DUPFD_CLOEXEC, 0);
		if (cq->cq.event_fd < 0) {
			ret = errno == EBADF ? -EINVAL : -errno;
			free(cq);
			return ret;
		}
		cq->cq.cookie = cookie;
	}
	ret = mk_region_create(ctx->dev, buf, (size_t)cqe * MK_CQE_SIZE, true,
			       &cq->region);
	if (ret) {
		if (cq->cq.event_fd >= 0)
			close(cq->cq.event_fd);
		free(cq);
		return ret;
	}
	cq->cq.cqe = cqe;
	*out = cq;
	return 0;
}

int mk_create_wq(struct manabe_obj *pd, struct manabe_obj *cq, void *buf,
		 uint32_t buf_size, uint32_t max_wr, uint32_t max_sge,
		 struct manabe_obj **out)
{
	struct manabe_obj *wq;
	int ret;

	/* ib_uverbs on a disassociated device */
	if (mk_fatal(pd->ctx->dev))
		return -EIO;
	(void)max_sge;
	if (!cq || cq->type != MK_CQ || pd->type != MK_PD || !max_wr)
		return -EINVAL;
	wq = mk_obj_new(pd->ctx, MK_WQ);
	if (!wq)
		return -ENOMEM;
	/* mana_ib_create_wq(): the buffer pinned, a region made */
	ret = mk_region_create(pd->ctx->dev, buf, buf_size, true, &wq->region);
	if (ret) {
		free(wq);
		return ret;
	}
	wq->wq.pd = pd;
	wq->wq.cq = cq;
	wq->wq.size = buf_size;
	mk_obj_hold(pd);
	mk_obj_hold(cq);
	*out = wq;
	return 0;
}

int mk_create_ind_table(struct manabe_ctx *ctx, struct manabe_obj *const *wqs,
			uint32_t log_size, struct manabe_obj **out)
{
	uint32_t n = 1u << (log_size & 31);
	struct manabe_obj *t;

	/* ib_uverbs on a disassociated device */
	if (mk_fatal(ctx->dev))
		return -EIO;
	/* ib_uverbs_ex_create_rwq_ind_table(): the size, then each WQ */
	if (log_size > MK_MAX_LOG_IND_TBL)
		return -EINVAL;
	if (n > MK_INDIR)	/* more entries than any RSS QP can take */
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (!wqs[i] || wqs[i]->type != MK_WQ || wqs[i]->ctx != ctx)
			return -EINVAL;
	t = mk_obj_new(ctx, MK_IND);
	if (!t)
		return -ENOMEM;
	t->ind.n = n;
	for (uint32_t i = 0; i < n; i++) {
		t->ind.wqs[i] = wqs[i];
		mk_obj_hold(wqs[i]);
	}
	*out = t;
	return 0;
}

static int mk_destroy_locked(struct manabe_obj *o)
{
	struct mana_kdev *d = o->ctx->dev;
	uint8_t req[PRM_LE_ST_SZ_BYTES(gdma_destroy_mr_req)] = { 0 };
	uint8_t resp[PRM_LE_ST_SZ_BYTES(gdma_resp_hdr)];

	/* The IB core refuses to destroy what other objects still use. */
	if (o->users)
		return -EBUSY;
	switch (o->type) {
	case MK_PD:
		PRM_LE_SET64(gdma_destroy_pd_req, req, pd_handle, o->handle);
		if (mk_hwc(d, MANA_MSG_GDMA_DESTROY_PD, req, PRM_LE_ST_SZ_BYTES(gdma_destroy_pd_req),
			   resp, sizeof(resp)))
			return -EPROTO;
		break;
	case MK_MR:
		PRM_LE_SET64(gdma_destroy_mr_req, req, mr_handle, o->handle);
		if (mk_hwc(d, MANA_MSG_GDMA_DESTROY_MR, req, sizeof(req), resp, sizeof(resp)))
			return -EPROTO;
		mk_obj_put(o->mr.pd);
		break;
	case MK_CQ:
		mk_region_destroy(d, o->region);
		if (o->cq.event_fd >= 0)
			close(o->cq.event_fd);
		break;
	case MK_WQ:
		mk_region_destroy(d, o->region);
		mk_obj_put(o->wq.pd);
		mk_obj_put(o->wq.cq);
		break;
	case MK_IND:
		for (uint32_t i = 0; i < o->ind.n; i++)
			mk_obj_put(o->ind.wqs[i]);
		break;
	case MK_QP_RAW:
	case MK_QP_RSS:
		return -EINVAL;		/* mana_kern_qp.c destroys QPs */
	}
	free(o);
	return 0;
}

int mk_obj_destroy(struct manabe_obj *o)
{
	struct mana_kdev *d;
	int ret;

	if (!o)
		return -EINVAL;
	d = o->ctx->dev;
	pthread_mutex_lock(&d->lock);
	ret = o->type == MK_QP_RAW || o->type == MK_QP_RSS ? mk_qp_destroy(o) :
							     mk_destroy_locked(o);
	pthread_mutex_unlock(&d->lock);
	return ret;
}
