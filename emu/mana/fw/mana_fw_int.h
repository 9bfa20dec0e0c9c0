/* SPDX-License-Identifier: MIT */
/* What the firmware's files share: the device state and the handlers. */
#ifndef MLX5EMU_EMU_MANA_FW_MANA_FW_INT_H
#define MLX5EMU_EMU_MANA_FW_MANA_FW_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "emu/mana/fw/mana_fw.h"
#include "prm/prm_le.h"

enum mana_fw_obj_type {
	FW_OBJ_FREE = 0,
	FW_OBJ_PD,
	FW_OBJ_REGION,
	FW_OBJ_MR,
	FW_OBJ_WQ,
};

struct mana_fw_obj {
	uint8_t type;
	uint16_t gen;			/* bumped at each reuse of the slot */
	union {
		struct {
			uint32_t id;
			unsigned int users;	/* MRs */
		} pd;
		struct {
			uint64_t addr;		/* first byte */
			uint64_t length;
			uint32_t page_count, pages_added;
			uint64_t next_page;	/* expected address of the next page */
			bool owned;		/* handed to an MR or a WQ object */
		} region;
		struct {
			uint32_t pd_slot;
			uint32_t region_slot;
			uint64_t va, length;
			uint32_t lkey, access;
		} mr;
		struct mana_fw_wq wq;
	};
	uint32_t wq_region_slot, cq_region_slot;	/* FW_OBJ_WQ */
};

/* What an lkey covers, for the data path (mana_fw_mkey.c). */
struct mana_fw_mkey {
	_Atomic uint32_t seq;		/* odd while the firmware writes */
	_Atomic uint32_t lkey;		/* 0: no MR in the slot */
	_Atomic uint32_t access;
	_Atomic uint64_t va, length;
};

struct mana_fw {
	pthread_mutex_t lock;
	struct mana_fw_config cfg;
	mana_fw_trace_fn trace;
	void *trace_arg;
	struct mana_fw_obj objs[MANA_FW_MAX_OBJS];
	struct mana_fw_mkey mkeys[MANA_FW_MAX_OBJS];	/* read without lock */
	struct mana_fw_vport vports[MANA_FW_MAX_PORTS];
	uint32_t vport_sqs[MANA_FW_MAX_PORTS], vport_rqs[MANA_FW_MAX_PORTS];
	bool db_pages[MANA_FW_MAX_DB_PAGES];
	/* ids in use: SQ, RQ, CQ (MANA_FW_MAX_QUEUES each) */
	bool ids[3][MANA_FW_MAX_QUEUES];
	uint32_t next_pd_id;
};

enum { FW_ID_SQ, FW_ID_RQ, FW_ID_CQ };

/* A handler: the dispatcher checked both lengths against the layouts. */
typedef uint32_t (*mana_fw_handler)(struct mana_fw *fw, const uint8_t *req,
				    size_t req_len, uint8_t *resp);

/* mana_fw_mkey.c: the MR's entry for the data path, under the lock */
void mfw_mkey_publish(struct mana_fw *fw, uint32_t slot, uint32_t lkey,
		      uint64_t va, uint64_t length, uint32_t access);
void mfw_mkey_clear(struct mana_fw *fw, uint32_t slot);

/* mana_fw_objs.c */
uint64_t mfw_handle(const struct mana_fw *fw, uint32_t slot);
/* The slot a handle names if it is a live object of @type, else -1. */
int mfw_slot(const struct mana_fw *fw, uint64_t handle, uint8_t type);
int mfw_obj_alloc(struct mana_fw *fw, uint8_t type);
void mfw_obj_free(struct mana_fw *fw, uint32_t slot);
int mfw_pd_slot_by_id(const struct mana_fw *fw, uint32_t pd_id);
uint32_t mfw_alloc_resource_range(struct mana_fw *fw, const uint8_t *req,
				 size_t len, uint8_t *resp);
uint32_t mfw_destroy_resource_range(struct mana_fw *fw, const uint8_t *req,
				   size_t len, uint8_t *resp);
uint32_t mfw_create_pd(struct mana_fw *fw, const uint8_t *req, size_t len,
		      uint8_t *resp);
uint32_t mfw_destroy_pd(struct mana_fw *fw, const uint8_t *req, size_t len,
		       uint8_t *resp);
uint32_t mfw_create_region(struct mana_fw *fw, const uint8_t *req, size_t len,
			  uint8_t *resp);
uint32_t mfw_region_add_pages(struct mana_fw *fw, const uint8_t *req,
			     size_t len, uint8_t *resp);
uint32_t mfw_destroy_region(struct mana_fw *fw, const uint8_t *req, size_t len,
			   uint8_t *resp);
uint32_t mfw_create_mr(struct mana_fw *fw, const uint8_t *req, size_t len,
		      uint8_t *resp);
uint32_t mfw_destroy_mr(struct mana_fw *fw, const uint8_t *req, size_t len,
		       uint8_t *resp);

/* mana_fw_vport.c */
uint32_t mfw_query_dev_config(struct mana_fw *fw, const uint8_t *req,
			     size_t len, uint8_t *resp);
uint32_t mfw_query_vport_config(struct mana_fw *fw, const uint8_t *req,
			       size_t len, uint8_t *resp);
uint32_t mfw_config_vport_tx(struct mana_fw *fw, const uint8_t *req,
			    size_t len, uint8_t *resp);
uint32_t mfw_config_vport_rx(struct mana_fw *fw, const uint8_t *req,
			    size_t len, uint8_t *resp);
uint32_t mfw_create_wq_obj(struct mana_fw *fw, const uint8_t *req, size_t len,
			  uint8_t *resp);
uint32_t mfw_destroy_wq_obj(struct mana_fw *fw, const uint8_t *req,
			   size_t len, uint8_t *resp);
/* The vPort a handle names, or -1. */
int mfw_vport_index(const struct mana_fw *fw, uint64_t handle);

#endif /* MLX5EMU_EMU_MANA_FW_MANA_FW_INT_H */
