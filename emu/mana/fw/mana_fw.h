/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/fw/mana_fw.h -- the firmware of an emulated MANA device: what
 * answers the control messages the kernel's mana and mana_ib drivers send
 * over the hardware channel (HWC), and the objects those messages make.
 *
 * Requests and responses are the byte layouts of prm/defs/mana.prm (numbers
 * in prm/mana.def, statuses in prm/mana_status.def).  Like a ConnectX's
 * command interface, a message either does everything it asks or changes
 * nothing: each handler checks, then takes, then commits.  A refused
 * message answers with a nonzero status in its response header; the caller
 * (the emulated kernel) turns that into the errno the kernel gives.
 *
 * Objects: protection domains, DMA regions (the pinned pages of a queue or
 * an MR: virtually contiguous process memory here), memory regions, doorbell
 * pages, and WQ objects (a send or receive queue created together with its
 * completion queue, as MANA_CREATE_WQ_OBJ does).  Each vPort (one per port)
 * keeps its TX configuration (the PD and doorbell page it was configured
 * with) and its RX steering (enable, RSS, Toeplitz key, the 64-entry
 * indirection table of RQ objects, the default RQ, CQE coalescing).
 *
 * Threads: every entry point takes the firmware's lock (the control path
 * is not a hot path) but mana_fw_mr_check, which the data path calls per
 * SGE and which reads a sequence-counted copy of the MRs instead.  The data path reads queue and steering state through
 * the snapshots below, also under that lock, when a doorbell names a queue
 * it has not seen yet or steering changed (mana_fw_rx_gen).
 */
#ifndef MLX5EMU_EMU_MANA_FW_MANA_FW_H
#define MLX5EMU_EMU_MANA_FW_MANA_FW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mana_fw_status {
#define MANA_STATUS(name, val, text) MANA_FW_ST_##name = (uint32_t)(val),
#include "prm/mana_status.def"
#undef MANA_STATUS
};

enum {
	MANA_FW_MAX_PORTS = 8,
	MANA_FW_MAX_OBJS = 1024,	/* PDs, regions, MRs, WQ objects */
	MANA_FW_MAX_QUEUES = 512,	/* SQ, RQ and CQ ids each */
	MANA_FW_MAX_DB_PAGES = 64,
	MANA_FW_INDIR = 64,		/* MANA_INDIRECT_TABLE_SIZE */
	MANA_FW_KEY_LEN = 40,
	MANA_FW_PAGE = 4096,
	/* gdma.h */
	MANA_FW_GDMA_SQ = 1,
	MANA_FW_GDMA_RQ = 2,
	MANA_FW_RESOURCE_DOORBELL_PAGE = 27,
	MANA_FW_MR_TYPE_GVA = 2,
	MANA_FW_CQ_NO_EQ = 0xffff,
	/* gdma_mr_access_flags */
	MANA_FW_ACCESS_LOCAL_READ = 1u << 0,
	MANA_FW_ACCESS_LOCAL_WRITE = 1u << 1,
	MANA_FW_ACCESS_REMOTE_READ = 1u << 2,
	MANA_FW_ACCESS_REMOTE_WRITE = 1u << 3,
	MANA_FW_ACCESS_REMOTE_ATOMIC = 1u << 4,
};

struct mana_fw_config {
	int num_ports;
	uint8_t mac[MANA_FW_MAX_PORTS][6];
	uint32_t max_sq, max_rq;	/* per vPort (QUERY_VPORT_CONFIG) */
};

struct mana_fw;

/* A control message as it crossed the channel, for the trace. */
typedef void (*mana_fw_trace_fn)(void *arg, uint32_t msg_type,
				 const void *req, size_t req_len,
				 const void *resp, size_t resp_len);

/* 0 or -EINVAL (bad config), -ENOMEM. */
int mana_fw_create(const struct mana_fw_config *cfg, struct mana_fw **out);
void mana_fw_destroy(struct mana_fw *fw);
void mana_fw_set_trace(struct mana_fw *fw, mana_fw_trace_fn fn, void *arg);

/*
 * Runs one control message.  The response (resp_len bytes, zeroed first)
 * gets a response header naming the message and its status; the status is
 * also returned (0 success).  A request shorter than a request header, or
 * a response buffer shorter than a response header, cannot be answered at
 * all: -EINVAL (what the HWC transport would fail).
 */
long mana_fw_exec(struct mana_fw *fw, const void *req, size_t req_len,
		  void *resp, size_t resp_len);

/* ---- what the data path reads ---- */

struct mana_fw_wq {
	uint64_t handle;
	int vport;			/* 0-based */
	uint32_t type;			/* MANA_FW_GDMA_SQ / _RQ */
	uint32_t wq_id, cq_id;
	uint64_t wq_addr, cq_addr;	/* process addresses of the rings */
	uint32_t wq_size, cq_size;	/* bytes */
};

/* The WQ object whose queue id (SQ or RQ by type) is id: 0 or -ENOENT. */
int mana_fw_wq_by_id(struct mana_fw *fw, uint32_t type, uint32_t id,
		     struct mana_fw_wq *out);
/* The WQ object whose completion queue is cq_id. */
int mana_fw_wq_by_cq(struct mana_fw *fw, uint32_t cq_id,
		     struct mana_fw_wq *out);

struct mana_fw_vport {
	uint64_t handle;
	uint8_t mac[6];
	bool tx_configured;
	uint32_t pd_id;
	uint32_t db_page;
	uint16_t tx_vport_offset;
	bool rx_enable, rss_enable, cqe_coalescing;
	uint8_t key[MANA_FW_KEY_LEN];
	uint32_t default_rq;		/* RQ id; valid with rx_enable */
	uint32_t table[MANA_FW_INDIR];	/* RQ ids */
	uint64_t rx_gen;		/* bumped by every RX change */
};

/* vPort vport (0-based): 0 or -ENOENT. */
int mana_fw_vport_get(struct mana_fw *fw, int vport, struct mana_fw_vport *out);

/* An MR covering [addr, addr + len) with key lkey and, for write, local
 * write access: 0, -ENOENT (no such key), -EACCES, -ERANGE.  No lock, no
 * search: the lkey names the slot (mana_fw_mkey.c). */
int mana_fw_mr_check(struct mana_fw *fw, uint32_t lkey, uint64_t addr,
		     uint64_t len, bool write);

/* Objects of each kind alive, for tests and `mlx5emu info`. */
struct mana_fw_counts {
	unsigned int pds, regions, mrs, wqs, db_pages;
};
void mana_fw_counts(struct mana_fw *fw, struct mana_fw_counts *c);

const char *mana_fw_status_name(uint32_t status);
const char *mana_fw_msg_name(uint32_t msg_type);

#endif /* MLX5EMU_EMU_MANA_FW_MANA_FW_H */
