/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/fw/mana_fw_vport.c -- the MANA client messages: device and vPort
 * queries, vPort TX configuration, WQ objects (a queue and its CQ made
 * together) and RX steering; and the snapshots the data path reads.
 */
#include <errno.h>
#include <string.h>

#include "emu/mana/fw/mana_fw_int.h"

int mfw_vport_index(const struct mana_fw *fw, uint64_t handle)
{
	for (int i = 0; i < fw->cfg.num_ports; i++)
		if (fw->vports[i].handle == handle)
			return i;
	return -1;
}

uint32_t mfw_query_dev_config(struct mana_fw *fw, const uint8_t *req,
			     size_t len, uint8_t *resp)
{
	(void)req;
	(void)len;
	PRM_LE_SET(mana_query_device_cfg_resp, resp, max_num_vports,
		   (uint32_t)fw->cfg.num_ports);
	/* Emulator-assigned: the EQs a function may make. */
	PRM_LE_SET(mana_query_device_cfg_resp, resp, max_num_eqs, 64);
	return 0;
}

uint32_t mfw_query_vport_config(struct mana_fw *fw, const uint8_t *req,
			       size_t len, uint8_t *resp)
{
	uint32_t i = PRM_LE_GET(mana_query_vport_cfg_req, req, vport_index);

	(void)len;
	if (i >= (uint32_t)fw->cfg.num_ports)
		return MANA_FW_ST_BAD_PARAM;
	PRM_LE_SET(mana_query_vport_cfg_resp, resp, max_num_sq, fw->cfg.max_sq);
	PRM_LE_SET(mana_query_vport_cfg_resp, resp, max_num_rq, fw->cfg.max_rq);
	PRM_LE_SET(mana_query_vport_cfg_resp, resp, num_indirection_ent,
		   MANA_FW_INDIR);
	memcpy(PRM_LE_ADDR_OF(mana_query_vport_cfg_resp, resp, mac_addr),
	       fw->vports[i].mac, 6);
	PRM_LE_SET64(mana_query_vport_cfg_resp, resp, vport,
		     fw->vports[i].handle);
	return 0;
}

uint32_t mfw_config_vport_tx(struct mana_fw *fw, const uint8_t *req,
			    size_t len, uint8_t *resp)
{
	int v = mfw_vport_index(fw, PRM_LE_GET64(mana_config_vport_req, req, vport));
	uint32_t pd_id = PRM_LE_GET(mana_config_vport_req, req, pdid);
	uint32_t db = PRM_LE_GET(mana_config_vport_req, req, doorbell_pageid);
	struct mana_fw_vport *vp;

	(void)len;
	if (v < 0 || mfw_pd_slot_by_id(fw, pd_id) < 0 ||
	    db >= MANA_FW_MAX_DB_PAGES || !fw->db_pages[db])
		return MANA_FW_ST_BAD_HANDLE;
	vp = &fw->vports[v];
	vp->tx_configured = true;
	vp->pd_id = pd_id;
	vp->db_page = db;
	PRM_LE_SET(mana_config_vport_resp, resp, tx_vport_offset,
		   vp->tx_vport_offset);
	PRM_LE_SET(mana_config_vport_resp, resp, short_form_allowed, 1);
	return 0;
}

/* A region a WQ object can take: complete, unowned, at least min bytes. */
static int mfw_region_for_queue(struct mana_fw *fw, uint64_t handle,
			       uint32_t size, uint32_t *status)
{
	int slot = mfw_slot(fw, handle, FW_OBJ_REGION);

	if (slot < 0) {
		*status = MANA_FW_ST_BAD_HANDLE;
		return -1;
	}
	if (fw->objs[slot].region.owned ||
	    fw->objs[slot].region.pages_added != fw->objs[slot].region.page_count ||
	    fw->objs[slot].region.length < size) {
		*status = MANA_FW_ST_BAD_PARAM;
		return -1;
	}
	return slot;
}

static int mfw_id_alloc(struct mana_fw *fw, int space)
{
	for (int i = 0; i < MANA_FW_MAX_QUEUES; i++) {
		if (!fw->ids[space][i]) {
			fw->ids[space][i] = true;
			return i;
		}
	}
	return -1;
}

static unsigned int mfw_vport_queues(const struct mana_fw *fw, int v,
				    uint32_t type)
{
	unsigned int n = 0;

	for (int i = 0; i < MANA_FW_MAX_OBJS; i++)
		n += fw->objs[i].type == FW_OBJ_WQ && fw->objs[i].wq.vport == v &&
		     fw->objs[i].wq.type == type;
	return n;
}

uint32_t mfw_create_wq_obj(struct mana_fw *fw, const uint8_t *req, size_t len,
			  uint8_t *resp)
{
	int v = mfw_vport_index(fw, PRM_LE_GET64(mana_create_wqobj_req, req, vport));
	uint32_t type = PRM_LE_GET(mana_create_wqobj_req, req, wq_type);
	uint32_t wq_size = PRM_LE_GET(mana_create_wqobj_req, req, wq_size);
	uint32_t cq_size = PRM_LE_GET(mana_create_wqobj_req, req, cq_size);
	uint32_t st = 0;
	int wr, cr, slot, wq_id, cq_id;
	struct mana_fw_obj *o;

	(void)len;
	if (v < 0)
		return MANA_FW_ST_BAD_HANDLE;
	if ((type != MANA_FW_GDMA_SQ && type != MANA_FW_GDMA_RQ) ||
	    wq_size < MANA_FW_PAGE || (wq_size & (wq_size - 1)) ||
	    cq_size < 64 || cq_size % 64)
		return MANA_FW_ST_BAD_PARAM;
	wr = mfw_region_for_queue(fw, PRM_LE_GET64(mana_create_wqobj_req, req,
						  wq_gdma_region), wq_size, &st);
	if (wr < 0)
		return st;
	cr = mfw_region_for_queue(fw, PRM_LE_GET64(mana_create_wqobj_req, req,
						  cq_gdma_region), cq_size, &st);
	if (cr < 0)
		return st;
	if (wr == cr)
		return MANA_FW_ST_BAD_PARAM;
	if (mfw_vport_queues(fw, v, type) >=
	    (type == MANA_FW_GDMA_SQ ? fw->cfg.max_sq : fw->cfg.max_rq))
		return MANA_FW_ST_NO_RESOURCES;
	wq_id = mfw_id_alloc(fw, type == MANA_FW_GDMA_SQ ? FW_ID_SQ : FW_ID_RQ);
	cq_id = mfw_id_alloc(fw, FW_ID_CQ);
	slot = mfw_obj_alloc(fw, FW_OBJ_WQ);
	if (wq_id < 0 || cq_id < 0 || slot < 0) {
		if (wq_id >= 0)
			fw->ids[type == MANA_FW_GDMA_SQ ? FW_ID_SQ : FW_ID_RQ][wq_id] = false;
		if (cq_id >= 0)
			fw->ids[FW_ID_CQ][cq_id] = false;
		if (slot >= 0)
			mfw_obj_free(fw, (uint32_t)slot);
		return MANA_FW_ST_NO_RESOURCES;
	}
	o = &fw->objs[slot];
	o->wq.handle = mfw_handle(fw, (uint32_t)slot);
	o->wq.vport = v;
	o->wq.type = type;
	o->wq.wq_id = (uint32_t)wq_id;
	o->wq.cq_id = (uint32_t)cq_id;
	o->wq.wq_addr = fw->objs[wr].region.addr;
	o->wq.cq_addr = fw->objs[cr].region.addr;
	o->wq.wq_size = wq_size;
	o->wq.cq_size = cq_size;
	o->wq_region_slot = (uint32_t)wr;
	o->cq_region_slot = (uint32_t)cr;
	/* The regions now belong to the object (the kernel forgets them). */
	fw->objs[wr].region.owned = true;
	fw->objs[cr].region.owned = true;
	PRM_LE_SET(mana_create_wqobj_resp, resp, wq_id, (uint32_t)wq_id);
	PRM_LE_SET(mana_create_wqobj_resp, resp, cq_id, (uint32_t)cq_id);
	PRM_LE_SET64(mana_create_wqobj_resp, resp, wq_obj, o->wq.handle);
	return 0;
}

/* An RQ object of vPort v named by handle: its slot, or -1. */
static int mfw_rq_of(const struct mana_fw *fw, uint64_t handle, int v)
{
	int slot = mfw_slot(fw, handle, FW_OBJ_WQ);

	if (slot < 0 || fw->objs[slot].wq.type != MANA_FW_GDMA_RQ ||
	    fw->objs[slot].wq.vport != v)
		return -1;
	return slot;
}

uint32_t mfw_destroy_wq_obj(struct mana_fw *fw, const uint8_t *req,
			   size_t len, uint8_t *resp)
{
	int slot = mfw_slot(fw, PRM_LE_GET64(mana_destroy_wqobj_req, req,
					    wq_obj_handle), FW_OBJ_WQ);
	struct mana_fw_obj *o;
	struct mana_fw_vport *vp;

	(void)len;
	(void)resp;
	if (slot < 0)
		return MANA_FW_ST_BAD_HANDLE;
	o = &fw->objs[slot];
	if (PRM_LE_GET(mana_destroy_wqobj_req, req, wq_type) != o->wq.type)
		return MANA_FW_ST_BAD_PARAM;
	vp = &fw->vports[o->wq.vport];
	if (o->wq.type == MANA_FW_GDMA_RQ) {
		/* Steering keeps no dangling queue: frames that would have
		 * gone to it are dropped until RX is configured again. */
		for (int i = 0; i < MANA_FW_INDIR; i++)
			if (vp->table[i] == o->wq.wq_id)
				vp->table[i] = UINT32_MAX;
		if (vp->default_rq == o->wq.wq_id)
			vp->default_rq = UINT32_MAX;
		vp->rx_gen++;
	}
	fw->ids[o->wq.type == MANA_FW_GDMA_SQ ? FW_ID_SQ : FW_ID_RQ][o->wq.wq_id] = false;
	fw->ids[FW_ID_CQ][o->wq.cq_id] = false;
	mfw_obj_free(fw, o->wq_region_slot);
	mfw_obj_free(fw, o->cq_region_slot);
	mfw_obj_free(fw, (uint32_t)slot);
	return 0;
}

uint32_t mfw_config_vport_rx(struct mana_fw *fw, const uint8_t *req,
			    size_t len, uint8_t *resp)
{
	int v = mfw_vport_index(fw, PRM_LE_GET64(mana_cfg_rx_steer_req_v2, req,
						vport));
	bool upd_tab = PRM_LE_GET(mana_cfg_rx_steer_req_v2, req, update_indir_tab);
	bool upd_def = PRM_LE_GET(mana_cfg_rx_steer_req_v2, req,
				  update_default_rxobj);
	bool upd_key = PRM_LE_GET(mana_cfg_rx_steer_req_v2, req, update_hashkey);
	uint32_t table[MANA_FW_INDIR], def = 0;
	struct mana_fw_vport *vp;

	(void)resp;
	if (v < 0)
		return MANA_FW_ST_BAD_HANDLE;
	if (upd_tab) {
		uint32_t n = PRM_LE_GET(mana_cfg_rx_steer_req_v2, req,
					num_indir_entries);
		uint32_t off = PRM_LE_GET(mana_cfg_rx_steer_req_v2, req,
					  indir_tab_offset);

		/* The kernel always sends the whole table, replicated. */
		if (n != MANA_FW_INDIR || off < 112 ||
		    (uint64_t)off + 8ull * n > len)
			return MANA_FW_ST_BAD_PARAM;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t h;
			int s;

			memcpy(&h, req + off + 8 * i, 8);
			s = mfw_rq_of(fw, le64toh(h), v);
			if (s < 0)
				return MANA_FW_ST_BAD_HANDLE;
			table[i] = fw->objs[s].wq.wq_id;
		}
	}
	if (upd_def) {
		int s = mfw_rq_of(fw, PRM_LE_GET64(mana_cfg_rx_steer_req_v2, req,
						  default_rxobj), v);

		if (s < 0)
			return MANA_FW_ST_BAD_HANDLE;
		def = fw->objs[s].wq.wq_id;
	}
	vp = &fw->vports[v];
	vp->rx_enable = PRM_LE_GET(mana_cfg_rx_steer_req_v2, req, rx_enable);
	vp->rss_enable = PRM_LE_GET(mana_cfg_rx_steer_req_v2, req, rss_enable);
	if (upd_tab)
		memcpy(vp->table, table, sizeof(table));
	if (upd_def)
		vp->default_rq = def;
	if (upd_key)
		memcpy(vp->key, PRM_LE_ADDR_OF(mana_cfg_rx_steer_req_v2, req,
					       hashkey), MANA_FW_KEY_LEN);
	/* v2 of the message carries the coalescing switch; v1 turns it off. */
	vp->cqe_coalescing =
		PRM_LE_GET(gdma_req_hdr, req, req.msg_version) >= 2 &&
		len >= PRM_LE_ST_SZ_BYTES(mana_cfg_rx_steer_req_v2) &&
		PRM_LE_GET(mana_cfg_rx_steer_req_v2, req, cqe_coalescing_enable);
	vp->rx_gen++;
	return 0;
}

/* ---- snapshots for the data path ---- */

static int mfw_wq_find(struct mana_fw *fw, bool by_cq, uint32_t type,
		      uint32_t id, struct mana_fw_wq *out)
{
	int ret = -ENOENT;

	pthread_mutex_lock(&fw->lock);
	for (int i = 0; i < MANA_FW_MAX_OBJS; i++) {
		const struct mana_fw_obj *o = &fw->objs[i];

		if (o->type != FW_OBJ_WQ)
			continue;
		if (by_cq ? o->wq.cq_id != id :
			    (o->wq.type != type || o->wq.wq_id != id))
			continue;
		*out = o->wq;
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&fw->lock);
	return ret;
}

int mana_fw_wq_by_id(struct mana_fw *fw, uint32_t type, uint32_t id,
		     struct mana_fw_wq *out)
{
	return mfw_wq_find(fw, false, type, id, out);
}

int mana_fw_wq_by_cq(struct mana_fw *fw, uint32_t cq_id,
		     struct mana_fw_wq *out)
{
	return mfw_wq_find(fw, true, 0, cq_id, out);
}

int mana_fw_vport_get(struct mana_fw *fw, int vport, struct mana_fw_vport *out)
{
	if (vport < 0 || vport >= fw->cfg.num_ports)
		return -ENOENT;
	pthread_mutex_lock(&fw->lock);
	*out = fw->vports[vport];
	pthread_mutex_unlock(&fw->lock);
	return 0;
}
