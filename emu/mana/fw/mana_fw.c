/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/fw/mana_fw.c -- the firmware's lifetime and its message
 * dispatcher: header checks, the table of handlers, the response header,
 * the trace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/mana/fw/mana_fw_int.h"
#include "emu/mana/mana.h"

/* One row per message: its handler and the sizes of its two layouts. */
struct mfw_msg_desc {
	uint32_t code;
	const char *name;
	mana_fw_handler fn;
	uint32_t req_size, resp_size;
};

#define FW_MSG(name, fn, req, resp) \
	{ MANA_MSG_##name, #name, fn, PRM_LE_ST_SZ_BYTES(req), \
	  PRM_LE_ST_SZ_BYTES(resp) }

static const struct mfw_msg_desc mfw_msgs[] = {
	FW_MSG(GDMA_ALLOCATE_RESOURCE_RANGE, mfw_alloc_resource_range,
	       gdma_allocate_resource_range_req, gdma_allocate_resource_range_resp),
	FW_MSG(GDMA_DESTROY_RESOURCE_RANGE, mfw_destroy_resource_range,
	       gdma_destroy_resource_range_req, gdma_resp_hdr),
	FW_MSG(GDMA_CREATE_DMA_REGION, mfw_create_region,
	       gdma_create_dma_region_req, gdma_create_dma_region_resp),
	FW_MSG(GDMA_DMA_REGION_ADD_PAGES, mfw_region_add_pages,
	       gdma_dma_region_add_pages_req, gdma_resp_hdr),
	FW_MSG(GDMA_DESTROY_DMA_REGION, mfw_destroy_region,
	       gdma_destroy_dma_region_req, gdma_resp_hdr),
	FW_MSG(GDMA_CREATE_PD, mfw_create_pd, gdma_create_pd_req,
	       gdma_create_pd_resp),
	FW_MSG(GDMA_DESTROY_PD, mfw_destroy_pd, gdma_destroy_pd_req,
	       gdma_resp_hdr),
	FW_MSG(GDMA_CREATE_MR, mfw_create_mr, gdma_create_mr_req,
	       gdma_create_mr_resp),
	FW_MSG(GDMA_DESTROY_MR, mfw_destroy_mr, gdma_destroy_mr_req,
	       gdma_resp_hdr),
	FW_MSG(MANA_QUERY_DEV_CONFIG, mfw_query_dev_config,
	       mana_query_device_cfg_req, mana_query_device_cfg_resp),
	FW_MSG(MANA_CONFIG_VPORT_TX, mfw_config_vport_tx,
	       mana_config_vport_req, mana_config_vport_resp),
	FW_MSG(MANA_CREATE_WQ_OBJ, mfw_create_wq_obj,
	       mana_create_wqobj_req, mana_create_wqobj_resp),
	FW_MSG(MANA_DESTROY_WQ_OBJ, mfw_destroy_wq_obj,
	       mana_destroy_wqobj_req, gdma_resp_hdr),
	/* v1 of the request ends at the hash key (112 bytes); v2 adds
	 * cqe_coalescing_enable. */
	{ MANA_MSG_MANA_CONFIG_VPORT_RX, "MANA_CONFIG_VPORT_RX", mfw_config_vport_rx, 112,
	  PRM_LE_ST_SZ_BYTES(gdma_resp_hdr) },
	FW_MSG(MANA_QUERY_VPORT_CONFIG, mfw_query_vport_config,
	       mana_query_vport_cfg_req, mana_query_vport_cfg_resp),
};

static const struct mfw_msg_desc *mfw_msg_find(uint32_t code)
{
	for (size_t i = 0; i < sizeof(mfw_msgs) / sizeof(mfw_msgs[0]); i++)
		if (mfw_msgs[i].code == code)
			return &mfw_msgs[i];
	return NULL;
}

const char *mana_fw_msg_name(uint32_t msg_type)
{
	const struct mfw_msg_desc *d = mfw_msg_find(msg_type);

	return d ? d->name : "UNKNOWN";
}

const char *mana_fw_status_name(uint32_t status)
{
	switch (status) {
#define MANA_STATUS(name, val, text) case (uint32_t)(val): return #name;
#include "prm/mana_status.def"
#undef MANA_STATUS
	}
	return "UNKNOWN";
}

int mana_fw_create(const struct mana_fw_config *cfg, struct mana_fw **out)
{
	struct mana_fw *fw;

	if (!cfg || cfg->num_ports < 1 || cfg->num_ports > MANA_FW_MAX_PORTS)
		return -EINVAL;
	fw = calloc(1, sizeof(*fw));
	if (!fw)
		return -ENOMEM;
	pthread_mutex_init(&fw->lock, NULL);
	fw->cfg = *cfg;
	if (!fw->cfg.max_sq)
		fw->cfg.max_sq = 64;
	if (!fw->cfg.max_rq)
		fw->cfg.max_rq = 64;
	for (int i = 0; i < cfg->num_ports; i++) {
		struct mana_fw_vport *v = &fw->vports[i];

		/* Emulator-assigned: vPort handles and TX offsets only need to
		 * be distinct and stable; a real device's values are opaque. */
		v->handle = 0x1000u + (uint64_t)i;
		memcpy(v->mac, cfg->mac[i], 6);
		v->tx_vport_offset = (uint16_t)(0x10 + i);
	}
	fw->next_pd_id = 1;
	*out = fw;
	return 0;
}

void mana_fw_destroy(struct mana_fw *fw)
{
	if (!fw)
		return;
	pthread_mutex_destroy(&fw->lock);
	free(fw);
}

void mana_fw_set_trace(struct mana_fw *fw, mana_fw_trace_fn fn, void *arg)
{
	pthread_mutex_lock(&fw->lock);
	fw->trace = fn;
	fw->trace_arg = arg;
	pthread_mutex_unlock(&fw->lock);
}

/* The request header's own claims: its size and the response's it asks
 * for must cover the layouts and fit the buffers. */
static bool mfw_sizes_ok(const struct mfw_msg_desc *d, const uint8_t *req,
			size_t req_len, size_t resp_len)
{
	uint32_t rq = PRM_LE_GET(gdma_req_hdr, req, req.msg_size);
	uint32_t rs = PRM_LE_GET(gdma_req_hdr, req, resp.msg_size);

	return req_len >= d->req_size && resp_len >= d->resp_size &&
	       rq >= d->req_size && rq <= req_len &&
	       rs >= d->resp_size && rs <= resp_len;
}

long mana_fw_exec(struct mana_fw *fw, const void *reqv, size_t req_len,
		  void *respv, size_t resp_len)
{
	const uint8_t *req = reqv;
	uint8_t *resp = respv;
	const struct mfw_msg_desc *d;
	uint32_t code, status, out_size;

	if (!fw || !req || !resp ||
	    req_len < PRM_LE_ST_SZ_BYTES(gdma_req_hdr) ||
	    resp_len < PRM_LE_ST_SZ_BYTES(gdma_resp_hdr))
		return -EINVAL;
	memset(resp, 0, resp_len);
	code = PRM_LE_GET(gdma_req_hdr, req, req.msg_type);
	d = mfw_msg_find(code);
	out_size = PRM_LE_ST_SZ_BYTES(gdma_resp_hdr);

	pthread_mutex_lock(&fw->lock);
	if (!d) {
		status = MANA_FW_ST_CMD_UNSUPPORTED;
	} else if (!mfw_sizes_ok(d, req, req_len, resp_len)) {
		status = MANA_FW_ST_BAD_SIZE;
	} else {
		status = d->fn(fw, req,
			       PRM_LE_GET(gdma_req_hdr, req, req.msg_size),
			       resp);
		if (!status)
			out_size = d->resp_size;
	}
	if (status)	/* a refused message answers with its header only */
		memset(resp, 0, resp_len);
	PRM_LE_SET(gdma_resp_hdr, resp, response.msg_type, code);
	PRM_LE_SET(gdma_resp_hdr, resp, response.msg_version,
		   PRM_LE_GET(gdma_req_hdr, req, req.msg_version));
	PRM_LE_SET(gdma_resp_hdr, resp, response.msg_size, out_size);
	memcpy(PRM_LE_ADDR_OF(gdma_resp_hdr, resp, dev_id),
	       PRM_LE_ADDR_OF(gdma_req_hdr, req, dev_id),
	       PRM_LE_ST_SZ_BYTES(gdma_dev_id));
	PRM_LE_SET(gdma_resp_hdr, resp, activity_id,
		   PRM_LE_GET(gdma_req_hdr, req, activity_id));
	PRM_LE_SET(gdma_resp_hdr, resp, status, status);
	if (fw->trace)
		fw->trace(fw->trace_arg, code, req, req_len, resp, out_size);
	pthread_mutex_unlock(&fw->lock);
	return status;
}

void mana_fw_counts(struct mana_fw *fw, struct mana_fw_counts *c)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_lock(&fw->lock);
	for (int i = 0; i < MANA_FW_MAX_OBJS; i++) {
		switch (fw->objs[i].type) {
		case FW_OBJ_PD: c->pds++; break;
		case FW_OBJ_REGION: c->regions++; break;
		case FW_OBJ_MR: c->mrs++; break;
		case FW_OBJ_WQ: c->wqs++; break;
		}
	}
	for (int i = 0; i < MANA_FW_MAX_DB_PAGES; i++)
		c->db_pages += fw->db_pages[i];
	pthread_mutex_unlock(&fw->lock);
}
