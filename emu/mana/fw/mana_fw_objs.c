/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/fw/mana_fw_objs.c -- the firmware's object table and the GDMA
 * messages that make its plain objects: doorbell pages (resource ranges),
 * protection domains, DMA regions and memory regions.
 *
 * A handle is (type << 56) | (generation << 32) | (slot + 1): never 0
 * (the kernel's GDMA_INVALID_DMA_REGION), and a stale handle of a reused
 * slot names nothing.  Every handler checks everything before it changes
 * anything.
 */
#include <errno.h>
#include <string.h>

#include "emu/mana/fw/mana_fw_int.h"

uint64_t mfw_handle(const struct mana_fw *fw, uint32_t slot)
{
	const struct mana_fw_obj *o = &fw->objs[slot];

	return (uint64_t)o->type << 56 | (uint64_t)o->gen << 32 | (slot + 1);
}

int mfw_slot(const struct mana_fw *fw, uint64_t handle, uint8_t type)
{
	uint32_t idx = (uint32_t)handle;

	if (idx == 0 || idx > MANA_FW_MAX_OBJS)
		return -1;
	idx--;
	if (fw->objs[idx].type != type || handle != mfw_handle(fw, idx))
		return -1;
	return (int)idx;
}

int mfw_obj_alloc(struct mana_fw *fw, uint8_t type)
{
	for (int i = 0; i < MANA_FW_MAX_OBJS; i++) {
		struct mana_fw_obj *o = &fw->objs[i];

		if (o->type == FW_OBJ_FREE) {
			uint16_t gen = (uint16_t)(o->gen + 1);

			memset(o, 0, sizeof(*o));
			o->gen = gen;
			o->type = type;
			return i;
		}
	}
	return -1;
}

void mfw_obj_free(struct mana_fw *fw, uint32_t slot)
{
	fw->objs[slot].type = FW_OBJ_FREE;
}

int mfw_pd_slot_by_id(const struct mana_fw *fw, uint32_t pd_id)
{
	for (int i = 0; i < MANA_FW_MAX_OBJS; i++)
		if (fw->objs[i].type == FW_OBJ_PD && fw->objs[i].pd.id == pd_id)
			return i;
	return -1;
}

/* ---- doorbell pages: the only resource range the drivers allocate ---- */

uint32_t mfw_alloc_resource_range(struct mana_fw *fw, const uint8_t *req,
				 size_t len, uint8_t *resp)
{
	(void)len;
	if (PRM_LE_GET(gdma_allocate_resource_range_req, req, resource_type) !=
	    MANA_FW_RESOURCE_DOORBELL_PAGE ||
	    PRM_LE_GET(gdma_allocate_resource_range_req, req, num_resources) != 1)
		return MANA_FW_ST_BAD_PARAM;
	for (uint32_t i = 0; i < MANA_FW_MAX_DB_PAGES; i++) {
		if (!fw->db_pages[i]) {
			fw->db_pages[i] = true;
			PRM_LE_SET(gdma_allocate_resource_range_resp, resp,
				   allocated_resources, i);
			return 0;
		}
	}
	return MANA_FW_ST_NO_RESOURCES;
}

static bool mfw_db_page_in_use(const struct mana_fw *fw, uint32_t page)
{
	for (int i = 0; i < MANA_FW_MAX_PORTS; i++)
		if (fw->vports[i].tx_configured && fw->vports[i].db_page == page)
			return true;
	return false;
}

uint32_t mfw_destroy_resource_range(struct mana_fw *fw, const uint8_t *req,
				   size_t len, uint8_t *resp)
{
	uint32_t page = PRM_LE_GET(gdma_destroy_resource_range_req, req,
				   allocated_resources);

	(void)len;
	(void)resp;
	if (PRM_LE_GET(gdma_destroy_resource_range_req, req, resource_type) !=
	    MANA_FW_RESOURCE_DOORBELL_PAGE ||
	    PRM_LE_GET(gdma_destroy_resource_range_req, req, num_resources) != 1)
		return MANA_FW_ST_BAD_PARAM;
	if (page >= MANA_FW_MAX_DB_PAGES || !fw->db_pages[page])
		return MANA_FW_ST_BAD_HANDLE;
	if (mfw_db_page_in_use(fw, page))
		return MANA_FW_ST_IN_USE;
	fw->db_pages[page] = false;
	return 0;
}

/* ---- protection domains ---- */

uint32_t mfw_create_pd(struct mana_fw *fw, const uint8_t *req, size_t len,
		      uint8_t *resp)
{
	int slot;

	(void)req;
	(void)len;
	slot = mfw_obj_alloc(fw, FW_OBJ_PD);
	if (slot < 0)
		return MANA_FW_ST_NO_RESOURCES;
	fw->objs[slot].pd.id = fw->next_pd_id++;
	PRM_LE_SET64(gdma_create_pd_resp, resp, pd_handle, mfw_handle(fw, slot));
	PRM_LE_SET(gdma_create_pd_resp, resp, pd_id, fw->objs[slot].pd.id);
	return 0;
}

uint32_t mfw_destroy_pd(struct mana_fw *fw, const uint8_t *req, size_t len,
		       uint8_t *resp)
{
	int slot = mfw_slot(fw, PRM_LE_GET64(gdma_destroy_pd_req, req, pd_handle),
			   FW_OBJ_PD);

	(void)len;
	(void)resp;
	if (slot < 0)
		return MANA_FW_ST_BAD_HANDLE;
	if (fw->objs[slot].pd.users)
		return MANA_FW_ST_IN_USE;
	/* The kernel never undoes MANA_CONFIG_VPORT_TX (mana_uncfg_vport only
	 * counts): the PD's going takes the vPort's TX configuration along. */
	for (int i = 0; i < MANA_FW_MAX_PORTS; i++)
		if (fw->vports[i].tx_configured &&
		    fw->vports[i].pd_id == fw->objs[slot].pd.id)
			fw->vports[i].tx_configured = false;
	mfw_obj_free(fw, (uint32_t)slot);
	return 0;
}

/* ---- DMA regions ----
 * The pages a kernel pins are process memory here; a region must be
 * virtually contiguous so the device can reach it as one range (a umem of
 * one mapping always is).  Pages come in the create message and then in
 * ADD_PAGES messages until page_count are there; only then is the region
 * usable. */

static uint32_t mfw_region_take_pages(struct mana_fw_obj *o, const uint8_t *list,
				     uint32_t n)
{
	uint64_t base = o->region.next_page;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t a;

		memcpy(&a, list + 8 * i, 8);
		a = le64toh(a);
		if (!o->region.pages_added && i == 0)
			base = a;
		if (a % MANA_FW_PAGE || a != base + 4096ull * i)
			return MANA_FW_ST_BAD_PARAM;
	}
	return 0;
}

static void mfw_region_commit_pages(struct mana_fw_obj *o, const uint8_t *list,
				   uint32_t n)
{
	uint64_t first;

	if (!n)
		return;
	memcpy(&first, list, 8);
	first = le64toh(first);
	if (!o->region.pages_added)
		o->region.addr += first;	/* addr held offset_in_page */
	o->region.pages_added += n;
	o->region.next_page = first + 4096ull * n;
}

uint32_t mfw_create_region(struct mana_fw *fw, const uint8_t *req, size_t len,
			  uint8_t *resp)
{
	uint64_t length = PRM_LE_GET64(gdma_create_dma_region_req, req, length);
	uint32_t off = PRM_LE_GET(gdma_create_dma_region_req, req, offset_in_page);
	uint32_t count = PRM_LE_GET(gdma_create_dma_region_req, req, page_count);
	uint32_t n = PRM_LE_GET(gdma_create_dma_region_req, req,
				page_addr_list_len);
	size_t head = PRM_LE_ST_SZ_BYTES(gdma_create_dma_region_req);
	struct mana_fw_obj tmp = { 0 };
	uint32_t st;
	int slot;

	/* GDMA_PAGE_TYPE_4K (0) is the only page size the drivers use. */
	if (PRM_LE_GET(gdma_create_dma_region_req, req, gdma_page_type) != 0 ||
	    !length || off >= MANA_FW_PAGE || n > count ||
	    count != (off + length + MANA_FW_PAGE - 1) / MANA_FW_PAGE)
		return MANA_FW_ST_BAD_PARAM;
	if (len < head + 8ull * n)
		return MANA_FW_ST_BAD_SIZE;
	st = mfw_region_take_pages(&tmp, req + head, n);
	if (st)
		return st;
	slot = mfw_obj_alloc(fw, FW_OBJ_REGION);
	if (slot < 0)
		return MANA_FW_ST_NO_RESOURCES;
	fw->objs[slot].region.addr = off;
	fw->objs[slot].region.length = length;
	fw->objs[slot].region.page_count = count;
	mfw_region_commit_pages(&fw->objs[slot], req + head, n);
	PRM_LE_SET64(gdma_create_dma_region_resp, resp, dma_region_handle,
		     mfw_handle(fw, (uint32_t)slot));
	return 0;
}

uint32_t mfw_region_add_pages(struct mana_fw *fw, const uint8_t *req,
			     size_t len, uint8_t *resp)
{
	int slot = mfw_slot(fw, PRM_LE_GET64(gdma_dma_region_add_pages_req, req,
					    dma_region_handle), FW_OBJ_REGION);
	uint32_t n = PRM_LE_GET(gdma_dma_region_add_pages_req, req,
				page_addr_list_len);
	size_t head = PRM_LE_ST_SZ_BYTES(gdma_dma_region_add_pages_req);
	struct mana_fw_obj *o;
	uint32_t st;

	(void)resp;
	if (slot < 0)
		return MANA_FW_ST_BAD_HANDLE;
	o = &fw->objs[slot];
	if (len < head + 8ull * n)
		return MANA_FW_ST_BAD_SIZE;
	if (!n || o->region.pages_added + n > o->region.page_count)
		return MANA_FW_ST_BAD_PARAM;
	st = mfw_region_take_pages(o, req + head, n);
	if (st)
		return st;
	mfw_region_commit_pages(o, req + head, n);
	return 0;
}

uint32_t mfw_destroy_region(struct mana_fw *fw, const uint8_t *req, size_t len,
			   uint8_t *resp)
{
	int slot = mfw_slot(fw, PRM_LE_GET64(gdma_destroy_dma_region_req, req,
					    dma_region_handle), FW_OBJ_REGION);

	(void)len;
	(void)resp;
	if (slot < 0)
		return MANA_FW_ST_BAD_HANDLE;
	if (fw->objs[slot].region.owned)
		return MANA_FW_ST_IN_USE;
	mfw_obj_free(fw, (uint32_t)slot);
	return 0;
}

/* ---- memory regions ---- */

uint32_t mfw_create_mr(struct mana_fw *fw, const uint8_t *req, size_t len,
		      uint8_t *resp)
{
	int pd = mfw_slot(fw, PRM_LE_GET64(gdma_create_mr_req, req, pd_handle),
			 FW_OBJ_PD);
	int rg = mfw_slot(fw, PRM_LE_GET64(gdma_create_mr_req, req,
					  dma_region_handle), FW_OBJ_REGION);
	uint32_t access = PRM_LE_GET(gdma_create_mr_req, req, access_flags);
	uint64_t va = PRM_LE_GET64(gdma_create_mr_req, req, virtual_address);
	struct mana_fw_obj *o;
	int slot;

	(void)len;
	if (pd < 0 || rg < 0)
		return MANA_FW_ST_BAD_HANDLE;
	if (PRM_LE_GET(gdma_create_mr_req, req, mr_type) != MANA_FW_MR_TYPE_GVA ||
	    access & ~0x1fu || fw->objs[rg].region.owned ||
	    fw->objs[rg].region.pages_added != fw->objs[rg].region.page_count)
		return MANA_FW_ST_BAD_PARAM;
	/* The device reaches an SGE's address as process memory, so an MR
	 * whose iova is not where its pages are could not be honoured. */
	if (va != fw->objs[rg].region.addr)
		return MANA_FW_ST_BAD_PARAM;
	slot = mfw_obj_alloc(fw, FW_OBJ_MR);
	if (slot < 0)
		return MANA_FW_ST_NO_RESOURCES;
	o = &fw->objs[slot];
	o->mr.pd_slot = (uint32_t)pd;
	o->mr.region_slot = (uint32_t)rg;
	o->mr.va = va;
	o->mr.length = fw->objs[rg].region.length;
	o->mr.access = access;
	/* Emulator-assigned: the slot names the MR, so the data path finds
	 * it without a search; the generation's low byte tells reuses apart. */
	o->mr.lkey = (uint32_t)(slot + 1) << 8 | (o->gen & 0xff);
	fw->objs[rg].region.owned = true;
	fw->objs[pd].pd.users++;
	mfw_mkey_publish(fw, (uint32_t)slot, o->mr.lkey, va, o->mr.length,
			 access);
	PRM_LE_SET64(gdma_create_mr_resp, resp, mr_handle,
		     mfw_handle(fw, (uint32_t)slot));
	PRM_LE_SET(gdma_create_mr_resp, resp, lkey, o->mr.lkey);
	PRM_LE_SET(gdma_create_mr_resp, resp, rkey, o->mr.lkey);
	return 0;
}

uint32_t mfw_destroy_mr(struct mana_fw *fw, const uint8_t *req, size_t len,
		       uint8_t *resp)
{
	int slot = mfw_slot(fw, PRM_LE_GET64(gdma_destroy_mr_req, req, mr_handle),
			   FW_OBJ_MR);
	struct mana_fw_obj *o;

	(void)len;
	(void)resp;
	if (slot < 0)
		return MANA_FW_ST_BAD_HANDLE;
	o = &fw->objs[slot];
	mfw_mkey_clear(fw, (uint32_t)slot);
	/* The region goes with the MR, as the kernel destroys neither apart. */
	mfw_obj_free(fw, o->mr.region_slot);
	fw->objs[o->mr.pd_slot].pd.users--;
	mfw_obj_free(fw, (uint32_t)slot);
	return 0;
}
