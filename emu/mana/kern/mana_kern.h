/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/kern/mana_kern.h -- what the kernel's mana_ib does between
 * libmana and a MANA device, for the emulated devices: backend/mana.h's
 * emu implementation.  Its files share this header.
 *
 * Each verbs command checks what mana_ib and the IB core check, in their
 * order and with their errnos, pins the buffers it is given (emu/mem's
 * pinning check), and sends the firmware (emu/mana/fw) the control messages
 * mana_ib sends, building them at the kernel's layouts.  A refused message
 * is -EPROTO, as mana_ib answers a nonzero status.
 *
 * Lifetime: a device's firmware is made at its first open and lives as
 * long as the process; a context holds its doorbell page (a firmware
 * resource and the first page of its cmd_fd, a memfd) until closed.
 * Objects count their users as the IB core does, so destroying one in use
 * is -EBUSY and changes nothing.
 */
#ifndef MLX5EMU_EMU_MANA_KERN_MANA_KERN_H
#define MLX5EMU_EMU_MANA_KERN_MANA_KERN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/mana.h"
#include "emu/mana/dev/mana_edev.h"
#include "emu/mana/fw/mana_fw.h"

/* mana_ib's limits (drivers/infiniband/hw/mana/mana_ib.h) */
enum {
	MK_MAX_WR = 256,		/* MAX_SEND_BUFFERS_PER_QUEUE */
	MK_MAX_SEND_SGE = 30,		/* MAX_TX_WQE_SGL_ENTRIES */
	MK_MAX_RECV_SGE = 15,		/* MAX_RX_WQE_SGL_ENTRIES */
	MK_MAX_QUEUES = 64,		/* MANA_MAX_NUM_QUEUES */
	MK_INDIR = 64,			/* MANA_INDIRECT_TABLE_SIZE */
	MK_KEY_LEN = 40,		/* MANA_IB_TOEPLITZ_HASH_KEY_SIZE_IN_BYTES */
	MK_HASH_TOEPLITZ = 1,		/* MANA_IB_RX_HASH_FUNC_TOEPLITZ */
	MK_MAX_LOG_IND_TBL = 0x0d,	/* IB_USER_VERBS_MAX_LOG_IND_TBL_SIZE */
	MK_CQE_SIZE = 64,		/* COMP_ENTRY_SIZE */
	MK_PAGE = 4096,
};

struct mana_kdev {
	int index;			/* mana_<index> */
	char name[64];			/* "mana_<index>", for the trace */
	struct mana_fw *fw;
	struct mana_edev *edev;		/* runs the queues */
	pthread_mutex_t lock;		/* the objects' links and counts */
	int num_ports;
	/* mana_en's vport_use_count: the one PD whose raw QPs own a port */
	struct manabe_obj *port_owner[MANA_FW_MAX_PORTS];
	struct manabe_ctx *ctxs;		/* open contexts, for events */
	bool link_down[MANA_FW_MAX_PORTS];	/* the netdev's carrier lost */
	bool fatal;			/* atomic: gone for good */
	bool up;			/* atomic: a first open succeeded */
	uint64_t events_lost;
};

enum mk_obj_type { MK_PD, MK_MR, MK_CQ, MK_WQ, MK_IND, MK_QP_RAW, MK_QP_RSS };

struct manabe_ctx {
	struct mana_kdev *dev;
	int memfd;			/* cmd_fd: offset 0 is the doorbell page */
	void *db_page;			/* the device's own view of it */
	uint32_t db_page_id;
	struct mana_edev_ctx *ectx;	/* the trapped mapping libmana hands out */
	void *app_page;
	int event_fd;			/* our duplicate of it, or -1 */
	struct manabe_ctx *next;	/* the device's contexts */
};

struct manabe_obj {
	enum mk_obj_type type;
	struct manabe_ctx *ctx;
	unsigned int users;		/* objects that name this one */
	uint64_t handle;		/* the firmware's PD, MR or WQ object */
	uint64_t region;		/* a DMA region still the kernel's, or 0 */
	union {
		struct {
			uint32_t pdn;
			unsigned int vport_uses;	/* raw QPs configuring its port */
			int vport;			/* 0-based, -1 none */
		} pd;
		struct {
			struct manabe_obj *pd;
		} mr;
		struct {
			uint32_t cqe;
			uint32_t id;		/* 0 until a QP binds it */
			int event_fd;		/* our duplicate, or -1 */
			uint64_t cookie;
		} cq;
		struct {
			struct manabe_obj *pd, *cq;
			uint32_t size;
			uint32_t id;
			uint64_t obj;		/* the RQ object while an RSS QP lives */
		} wq;
		struct {
			uint32_t n;
			struct manabe_obj *wqs[MK_INDIR];
		} ind;
		struct {
			struct manabe_obj *pd, *cq, *ind;
			int port;		/* 0-based */
			uint32_t sqid;
		} qp;
	};
};

/* mana_kern_event.c */
/* The device is up: its fault rules' events (port_down, port_up,
 * device_fatal naming mana_N) come here, and those with no command to
 * match fire now.  No lock held. */
void mk_fault_up(struct mana_kdev *d);
void mk_ctx_link(struct manabe_ctx *ctx);
void mk_ctx_unlink(struct manabe_ctx *ctx);
/* Whether the device died (every command but a destroy is -EIO), and a
 * vPort's (0-based) carrier. */
bool mk_fatal(const struct mana_kdev *d);
bool mk_link_up(struct mana_kdev *d, int vport);
/*
 * A fault rule's event on mana_<index>: MLX5EMU_FAULT_PORT_DOWN/_UP of
 * @port (1-based; 0 is 1) or _DEVICE_FATAL.  0, -ENODEV (never opened),
 * -EINVAL (no such port), -EOPNOTSUPP (an event MANA has not).
 */
int mana_kern_inject(int index, uint32_t action, uint32_t port);

/* mana_kern_dev.c */
/* mana_<index> if a context opened it already, else NULL. */
struct mana_kdev *mk_dev_find(int index);
/* A control message to the device's firmware: the request header filled
 * for @type, then 0, or -EPROTO for a refusal as mana_ib reports it. */
int mk_hwc(struct mana_kdev *d, uint32_t type, void *req, size_t req_len,
	   void *resp, size_t resp_len);
/* The same with the request header's msg_version (GDMA_MESSAGE_V2 forms). */
int mk_hwc_v(struct mana_kdev *d, uint32_t type, uint32_t version, void *req,
	     size_t req_len, void *resp, size_t resp_len);
/* A DMA region over [addr, addr + len) of pinned process memory. */
int mk_region_create(struct mana_kdev *d, const void *addr, size_t len,
		     bool write, uint64_t *handle);
void mk_region_destroy(struct mana_kdev *d, uint64_t handle);
void mk_obj_hold(struct manabe_obj *o);
void mk_obj_put(struct manabe_obj *o);
struct manabe_obj *mk_obj_new(struct manabe_ctx *ctx, enum mk_obj_type type);

/* mana_kern_obj.c, mana_kern_qp.c: the object commands */
int mk_alloc_pd(struct manabe_ctx *ctx, struct manabe_obj **pd, uint32_t *pdn);
int mk_reg_mr(struct manabe_obj *pd, void *addr, size_t length, uint64_t iova,
	      unsigned int access, struct manabe_obj **mr, uint32_t *lkey,
	      uint32_t *rkey);
int mk_create_cq(struct manabe_ctx *ctx, void *buf, uint32_t cqe,
		 int event_fd, uint64_t cookie, struct manabe_obj **cq);
int mk_create_wq(struct manabe_obj *pd, struct manabe_obj *cq, void *buf,
		 uint32_t buf_size, uint32_t max_wr, uint32_t max_sge,
		 struct manabe_obj **wq);
int mk_create_ind_table(struct manabe_ctx *ctx, struct manabe_obj *const *wqs,
			uint32_t log_size, struct manabe_obj **tbl);
int mk_create_qp_raw(struct manabe_obj *pd, uint32_t port,
		     struct manabe_obj *cq, void *sq_buf, uint32_t sq_size,
		     uint32_t max_send_wr, uint32_t max_send_sge,
		     struct manabe_obj **qp, struct manabe_raw_qp_resp *resp);
int mk_create_qp_rss(struct manabe_obj *pd, uint32_t port,
		     struct manabe_obj *tbl, uint32_t max_recv_wr,
		     uint32_t max_recv_sge, uint8_t hash_function,
		     const uint8_t *key, uint32_t key_len, struct manabe_obj **qp,
		     struct manabe_rss_entry *entries);
int mk_obj_destroy(struct manabe_obj *obj);
int mk_qp_destroy(struct manabe_obj *qp);	/* under the device's lock */
/* The WQ object of an SQ or RQ (ids @wq_id, @cq_id), destroyed with its
 * regions once the engine has let go of the queues. */
void mk_wq_obj_destroy(struct mana_kdev *d, uint32_t type, uint64_t obj,
		       uint32_t wq_id, uint32_t cq_id);

#endif /* MLX5EMU_EMU_MANA_KERN_MANA_KERN_H */
