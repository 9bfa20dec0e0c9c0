/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/kern/mana_kern_qp.c -- mana_ib's raw send QP and RSS QP: the
 * vPort's TX configuration by the first raw QP of a PD, the WQ objects
 * that make each queue and its CQ in the device, and the RX steering.
 * Checks in mana_ib_create_qp_raw's and _rss's order.
 *
 * One PD owns a port's vPort (mana_en's vport_use_count): a raw QP of
 * another PD is refused, and mana_ib turns any vPort configuration failure
 * into -ENODEV, which is what an upstream kernel returns (manadv(7) says
 * EBUSY; a later series passes EBUSY through).  A PD whose raw QPs are on
 * one port cannot configure another: that is a vPort failure too (the
 * later series' rule; the first kernels miscounted instead).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/mana/kern/mana_kern.h"
#include "emu/device/dev.h"
#include "emu/mana/mana.h"
#include "prm/prm_le.h"

/* MANA_CREATE_WQ_OBJ of a queue's and its CQ's regions; the ids and the
 * object on success (the regions are the firmware's then). */
static int mk_wq_obj_create(struct mana_kdev *d, int port, uint32_t type,
			    struct manabe_obj *q, struct manabe_obj *cq,
			    uint32_t wq_size, uint64_t *obj, uint32_t *wq_id)
{
	uint8_t req[PRM_LE_ST_SZ_BYTES(mana_create_wqobj_req)] = { 0 };
	uint8_t resp[PRM_LE_ST_SZ_BYTES(mana_create_wqobj_resp)] = { 0 };
	struct mana_fw_vport v;
	int ret;

	if (mana_fw_vport_get(d->fw, port, &v))
		return -EINVAL;
	PRM_LE_SET64(mana_create_wqobj_req, req, vport, v.handle);
	PRM_LE_SET(mana_create_wqobj_req, req, wq_type, type);
	PRM_LE_SET64(mana_create_wqobj_req, req, wq_gdma_region, q->region);
	PRM_LE_SET64(mana_create_wqobj_req, req, cq_gdma_region, cq->region);
	PRM_LE_SET(mana_create_wqobj_req, req, wq_size, wq_size);
	PRM_LE_SET(mana_create_wqobj_req, req, cq_size, cq->cq.cqe * MK_CQE_SIZE);
	PRM_LE_SET(mana_create_wqobj_req, req, cq_parent_qid, MANA_FW_CQ_NO_EQ);
	ret = mk_hwc(d, MANA_MSG_MANA_CREATE_WQ_OBJ, req, sizeof(req), resp, sizeof(resp));
	if (ret)
		return ret;
	q->region = 0;
	cq->region = 0;
	cq->cq.id = PRM_LE_GET(mana_create_wqobj_resp, resp, cq_id);
	/* mana_ib attaches the CQ to an EQ whose handler calls the CQ's
	 * comp_handler: its completion events reach the channel */
	if (cq->cq.event_fd >= 0)
		mana_edev_cq_notify(d->edev, cq->cq.id, cq->cq.event_fd,
				    cq->cq.cookie);
	*wq_id = PRM_LE_GET(mana_create_wqobj_resp, resp, wq_id);
	*obj = PRM_LE_GET64(mana_create_wqobj_resp, resp, wq_obj);
	return 0;
}

void mk_wq_obj_destroy(struct mana_kdev *d, uint32_t type, uint64_t obj,
		       uint32_t wq_id, uint32_t cq_id)
{
	uint8_t req[PRM_LE_ST_SZ_BYTES(mana_destroy_wqobj_req)] = { 0 };
	uint8_t resp[PRM_LE_ST_SZ_BYTES(gdma_resp_hdr)];

	mana_edev_lock(d->edev);
	mana_edev_forget(d->edev, type, wq_id, cq_id);

	PRM_LE_SET(mana_destroy_wqobj_req, req, wq_type, type);
	PRM_LE_SET64(mana_destroy_wqobj_req, req, wq_obj_handle, obj);
	(void)mk_hwc(d, MANA_MSG_MANA_DESTROY_WQ_OBJ, req, sizeof(req), resp, sizeof(resp));
	mana_edev_unlock(d->edev);
}

/* mana_ib_cfg_vport(): the first raw QP of a PD configures the port. */
static int mk_cfg_vport(struct mana_kdev *d, struct manabe_obj *pd, int port)
{
	uint8_t req[PRM_LE_ST_SZ_BYTES(mana_config_vport_req)] = { 0 };
	uint8_t resp[PRM_LE_ST_SZ_BYTES(mana_config_vport_resp)] = { 0 };
	struct mana_fw_vport v;

	if (pd->pd.vport_uses) {
		if (pd->pd.vport != port)
			return -EINVAL;
		pd->pd.vport_uses++;
		return 0;
	}
	if (d->port_owner[port])
		return -EBUSY;		/* mana_cfg_vport(): vport_use_count */
	if (mana_fw_vport_get(d->fw, port, &v))
		return -EINVAL;
	PRM_LE_SET64(mana_config_vport_req, req, vport, v.handle);
	PRM_LE_SET(mana_config_vport_req, req, pdid, pd->pd.pdn);
	PRM_LE_SET(mana_config_vport_req, req, doorbell_pageid,
		   pd->ctx->db_page_id);
	if (mk_hwc(d, MANA_MSG_MANA_CONFIG_VPORT_TX, req, sizeof(req), resp, sizeof(resp)))
		return -EPROTO;
	d->port_owner[port] = pd;
	pd->pd.vport = port;
	pd->pd.vport_uses = 1;
	return 0;
}

static void mk_uncfg_vport(struct mana_kdev *d, struct manabe_obj *pd)
{
	if (--pd->pd.vport_uses)
		return;
	d->port_owner[pd->pd.vport] = NULL;
	pd->pd.vport = -1;
}

static int mk_raw_locked(struct manabe_obj *pd, uint32_t port,
			 struct manabe_obj *cq, void *sq_buf, uint32_t sq_size,
			 uint32_t max_send_wr, uint32_t max_send_sge,
			 struct manabe_obj **out, struct manabe_raw_qp_resp *resp)
{
	struct mana_kdev *d = pd->ctx->dev;
	struct manabe_obj *qp;
	struct mana_fw_vport v;
	uint32_t sqid;
	int ret;

	/* ib_uverbs on a disassociated device */
	if (mk_fatal(d))
		return -EIO;
	if (pd->type != MK_PD || !cq || cq->type != MK_CQ)
		return -EINVAL;
	/* IB ports start with 1, MANA's with 0 */
	if (port < 1 || port > (uint32_t)d->num_ports)
		return -EINVAL;
	if (max_send_wr > MK_MAX_WR || max_send_sge > MK_MAX_SEND_SGE)
		return -EINVAL;
	if (mk_cfg_vport(d, pd, (int)port - 1))
		return -ENODEV;
	qp = mk_obj_new(pd->ctx, MK_QP_RAW);
	if (!qp) {
		ret = -ENOMEM;
		goto uncfg;
	}
	ret = mk_region_create(d, sq_buf, sq_size, true, &qp->region);
	if (ret)
		goto free_qp;
	ret = mk_wq_obj_create(d, (int)port - 1, MANA_FW_GDMA_SQ, qp, cq,
			       sq_size, &qp->handle, &sqid);
	if (ret) {
		mk_region_destroy(d, qp->region);
		goto free_qp;
	}
	(void)mana_fw_vport_get(d->fw, (int)port - 1, &v);
	qp->qp.pd = pd;
	qp->qp.cq = cq;
	qp->qp.port = (int)port - 1;
	qp->qp.sqid = sqid;
	mk_obj_hold(pd);
	mk_obj_hold(cq);
	resp->sqid = sqid;
	resp->cqid = cq->cq.id;
	resp->tx_vp_offset = v.tx_vport_offset;
	*out = qp;
	return 0;
free_qp:
	free(qp);
uncfg:
	mk_uncfg_vport(d, pd);
	return ret;
}

int mk_create_qp_raw(struct manabe_obj *pd, uint32_t port,
		     struct manabe_obj *cq, void *sq_buf, uint32_t sq_size,
		     uint32_t max_send_wr, uint32_t max_send_sge,
		     struct manabe_obj **qp, struct manabe_raw_qp_resp *resp)
{
	struct mana_kdev *d = pd->ctx->dev;
	int ret;

	pthread_mutex_lock(&d->lock);
	ret = mk_raw_locked(pd, port, cq, sq_buf, sq_size, max_send_wr,
			    max_send_sge, qp, resp);
	pthread_mutex_unlock(&d->lock);
	return ret;
}

/* mana_ib_cfg_vport_steering(): the table replicated to 64 entries, the
 * last WQ as the default queue, RSS on with more than one entry. */
static int mk_cfg_steering(struct mana_kdev *d, int port,
			   const struct manabe_obj *t, const uint8_t *key)
{
	size_t head = PRM_LE_ST_SZ_BYTES(mana_cfg_rx_steer_req_v2);
	uint8_t req[PRM_LE_ST_SZ_BYTES(mana_cfg_rx_steer_req_v2) + 8 * MK_INDIR];
	uint8_t resp[PRM_LE_ST_SZ_BYTES(gdma_resp_hdr)];
	const struct emu_config *cfg = emu_devices_config();
	struct mana_fw_vport v;

	memset(req, 0, sizeof(req));
	if (mana_fw_vport_get(d->fw, port, &v))
		return -EINVAL;
	PRM_LE_SET64(mana_cfg_rx_steer_req_v2, req, vport, v.handle);
	PRM_LE_SET(mana_cfg_rx_steer_req_v2, req, rx_enable, 1);
	PRM_LE_SET(mana_cfg_rx_steer_req_v2, req, rss_enable, t->ind.n > 1);
	PRM_LE_SET(mana_cfg_rx_steer_req_v2, req, update_default_rxobj, 1);
	PRM_LE_SET64(mana_cfg_rx_steer_req_v2, req, default_rxobj,
		     t->ind.wqs[t->ind.n - 1]->wq.obj);
	PRM_LE_SET(mana_cfg_rx_steer_req_v2, req, num_indir_entries, MK_INDIR);
	PRM_LE_SET(mana_cfg_rx_steer_req_v2, req, indir_tab_offset, (uint32_t)head);
	PRM_LE_SET(mana_cfg_rx_steer_req_v2, req, update_indir_tab, 1);
	PRM_LE_SET(mana_cfg_rx_steer_req_v2, req, update_hashkey, 1);
	memcpy(PRM_LE_ADDR_OF(mana_cfg_rx_steer_req_v2, req, hashkey), key,
	       MK_KEY_LEN);
	for (uint32_t i = 0; i < MK_INDIR; i++) {
		uint64_t h = htole64(t->ind.wqs[i % t->ind.n]->wq.obj);

		memcpy(req + head + 8 * i, &h, 8);
	}
	/* recent mana_ib: GDMA_MESSAGE_V2 with cqe_coalescing_enable set;
	 * earlier kernels sent v1, which leaves coalescing off */
	if (cfg && cfg->mana_rx_coalescing) {
		PRM_LE_SET(mana_cfg_rx_steer_req_v2, req, cqe_coalescing_enable, 1);
		return mk_hwc_v(d, MANA_MSG_MANA_CONFIG_VPORT_RX, 2, req,
				sizeof(req), resp, sizeof(resp));
	}
	return mk_hwc(d, MANA_MSG_MANA_CONFIG_VPORT_RX, req, sizeof(req), resp, sizeof(resp));
}

static int mk_rss_locked(struct manabe_obj *pd, uint32_t port,
			 struct manabe_obj *t, uint32_t max_recv_wr,
			 uint32_t max_recv_sge, uint8_t hash_function,
			 const uint8_t *key, uint32_t key_len,
			 struct manabe_obj **out, struct manabe_rss_entry *entries)
{
	struct mana_kdev *d = pd->ctx->dev;
	uint8_t k[MK_KEY_LEN] = { 0 };
	struct manabe_obj *qp;
	uint32_t i;
	int ret;

	/* ib_uverbs on a disassociated device */
	if (mk_fatal(d))
		return -EIO;
	if (pd->type != MK_PD || !t || t->type != MK_IND)
		return -EINVAL;
	if (max_recv_wr > MK_MAX_WR || max_recv_sge > MK_MAX_RECV_SGE ||
	    t->ind.n > MK_INDIR || hash_function != MK_HASH_TOEPLITZ ||
	    port < 1 || port > (uint32_t)d->num_ports)
		return -EINVAL;
	/* A key of another length is copied as given (the kernel's memcpy
	 * of rx_hash_key_len bytes); none at all would be a random one. */
	if (key && key_len)
		memcpy(k, key, key_len < MK_KEY_LEN ? key_len : MK_KEY_LEN);
	for (i = 0; i < t->ind.n; i++) {
		struct manabe_obj *wq = t->ind.wqs[i];

		/* A WQ bound before has no region left: the firmware
		 * refuses it, as it refuses the kernel. */
		ret = mk_wq_obj_create(d, (int)port - 1, MANA_FW_GDMA_RQ, wq,
				       wq->wq.cq, wq->wq.size, &wq->wq.obj,
				       &wq->wq.id);
		if (ret)
			goto undo;
		entries[i].cqid = wq->wq.cq->cq.id;
		entries[i].wqid = wq->wq.id;
	}
	ret = mk_cfg_steering(d, (int)port - 1, t, k);
	if (ret)
		goto undo;
	mana_edev_rx_changed(d->edev, (int)port - 1);
	qp = mk_obj_new(pd->ctx, MK_QP_RSS);
	if (!qp) {
		ret = -ENOMEM;
		goto undo;
	}
	qp->qp.pd = pd;
	qp->qp.ind = t;
	qp->qp.port = (int)port - 1;
	mk_obj_hold(pd);
	mk_obj_hold(t);
	*out = qp;
	return 0;
undo:
	/* The queues' regions went with their objects, as in the kernel's
	 * failure path: those WQs cannot be bound again. */
	while (i-- > 0) {
		struct manabe_obj *wq = t->ind.wqs[i];

		mk_wq_obj_destroy(d, MANA_FW_GDMA_RQ, wq->wq.obj, wq->wq.id,
				  wq->wq.cq->cq.id);
		wq->wq.obj = 0;
	}
	return ret;
}

int mk_create_qp_rss(struct manabe_obj *pd, uint32_t port,
		     struct manabe_obj *tbl, uint32_t max_recv_wr,
		     uint32_t max_recv_sge, uint8_t hash_function,
		     const uint8_t *key, uint32_t key_len, struct manabe_obj **qp,
		     struct manabe_rss_entry *entries)
{
	struct mana_kdev *d = pd->ctx->dev;
	int ret;

	pthread_mutex_lock(&d->lock);
	ret = mk_rss_locked(pd, port, tbl, max_recv_wr, max_recv_sge,
			    hash_function, key, key_len, qp, entries);
	pthread_mutex_unlock(&d->lock);
	return ret;
}

int mk_qp_destroy(struct manabe_obj *qp)
{
	struct mana_kdev *d = qp->ctx->dev;

	if (qp->type == MK_QP_RAW) {
		mk_wq_obj_destroy(d, MANA_FW_GDMA_SQ, qp->handle, qp->qp.sqid,
				  qp->qp.cq->cq.id);
		mk_uncfg_vport(d, qp->qp.pd);
		mk_obj_put(qp->qp.cq);
	} else {
		struct manabe_obj *t = qp->qp.ind;

		for (uint32_t i = 0; i < t->ind.n; i++) {
			struct manabe_obj *wq = t->ind.wqs[i];

			if (!wq->wq.obj)
				continue;	/* a WQ listed twice */
			mk_wq_obj_destroy(d, MANA_FW_GDMA_RQ, wq->wq.obj,
					  wq->wq.id, wq->wq.cq->cq.id);
			wq->wq.obj = 0;
		}
		mana_edev_rx_changed(d->edev, qp->qp.port);
		mk_obj_put(t);
	}
	mk_obj_put(qp->qp.pd);
	free(qp);
	return 0;
}
