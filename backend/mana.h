/* SPDX-License-Identifier: MIT */
/*
 * backend/mana.h -- how the provider reaches a MANA device: the second,
 * narrow backend interface, beside the DEVX one of backend.h.
 *
 * MANA has no DEVX: user space never sends the device a control message.
 * What libmana can ask of the kernel is mana_ib's uverbs interface, so
 * that is what this interface carries, one entry per verbs command with
 * mana's driver data (include/uapi/rdma/mana-abi.h): a context and its
 * doorbell page (offset 0 of cmd_fd), PDs, MRs, CQs (a buffer the
 * application allocated), WQs, the raw send QP, the indirection table and
 * the RSS QP.  The emulated implementation (emu/mana/kern/) plays mana_ib:
 * its checks and errnos over the emulated firmware.  There is no hw
 * implementation: on real MANA hardware the stock libmana and kernel are
 * the way, so with backend.kind hw the process lists no MANA device.
 *
 * Conventions: 0 or a negative errno, the kernel's for the command (the
 * provider passes it on as rdma-core's libmana does).  Objects are opaque
 * and destroyed by obj_destroy, in the order the kernel requires (a CQ
 * after the QP or WQ that uses it); destroying an object still in use is
 * -EBUSY.
 */
#ifndef MLX5EMU_BACKEND_MANA_H
#define MLX5EMU_BACKEND_MANA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

struct manabe_ctx;		/* one ucontext: a doorbell page */
struct manabe_obj;		/* a PD, MR, CQ, WQ, indirection table or QP */

/* mana_ib's query_device answer, the fields verbs reports. */
struct manabe_device_attr {
	uint64_t node_guid;		/* big-endian, as verbs reports it */
	uint64_t sys_image_guid;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	uint32_t max_qp, max_qp_wr;
	uint32_t device_cap_flags;
	uint32_t max_send_sge, max_recv_sge;
	uint32_t max_cq, max_cqe;
	uint32_t max_mr, max_pd;
	uint32_t raw_packet_caps;	/* IBV_RAW_PACKET_CAP_* */
	uint8_t phys_port_cnt;
};

/* The ids the kernel returns for a raw send QP (mana_ib_create_qp_resp). */
struct manabe_raw_qp_resp {
	uint32_t sqid, cqid, tx_vp_offset;
};

/* One indirection table entry's ids (mana_ib_create_qp_rss_resp). */
struct manabe_rss_entry {
	uint32_t cqid, wqid;
};

/* One asynchronous event of a context: type an enum ibv_event_type
 * (PORT_ERR, PORT_ACTIVE with the 1-based port; DEVICE_FATAL). */
struct manabe_event {
	uint32_t type;
	uint32_t port;
};

struct manabe_ops {
	const char *name;
	/* Devices and contexts. */
	int (*get_devices)(struct mlx5be_device_info *infos, int max);
	/* A context of device @index and its cmd_fd, whose offset 0 maps the
	 * context's doorbell page (also from another process given the fd).
	 * The device writes the context's asynchronous events to @event_fd
	 * (-1: none) as struct manabe_event records; it keeps its own
	 * duplicate of the descriptor while the context lives. */
	int (*open)(int index, int event_fd, struct manabe_ctx **ctx,
		    int *cmd_fd);
	void (*close)(struct manabe_ctx *ctx);
	/* The doorbell page as this process's libmana hands it out (the
	 * mapping the device sees every store to), or NULL: then libmana maps
	 * cmd_fd offset 0 itself, as rdma-core's does. */
	void *(*doorbell_page)(struct manabe_ctx *ctx);
	int (*query_device)(struct manabe_ctx *ctx, struct manabe_device_attr *attr);
	int (*query_port)(struct manabe_ctx *ctx, uint32_t port,
			  struct mlx5be_port_attr *attr);
	/* Objects. */
	int (*alloc_pd)(struct manabe_ctx *ctx, struct manabe_obj **pd,
			uint32_t *pdn);
	int (*reg_mr)(struct manabe_obj *pd, void *addr, size_t length,
		      uint64_t iova, unsigned int access,
		      struct manabe_obj **mr, uint32_t *lkey, uint32_t *rkey);
	/* A CQ of @cqe entries in the application's @buf; its id is
	 * assigned when a QP or RSS QP binds it (0 until then).  Its
	 * completion events (a CQE on a CQ the application armed through the
	 * doorbell page) are 8-byte @cookie writes to @event_fd, the write
	 * end of the completion channel's pipe (-1: no channel); the device
	 * holds its own duplicate of it while the CQ lives. */
	int (*create_cq)(struct manabe_ctx *ctx, void *buf, uint32_t cqe,
			 int event_fd, uint64_t cookie, struct manabe_obj **cq);
	int (*create_wq)(struct manabe_obj *pd, struct manabe_obj *cq,
			 void *buf, uint32_t buf_size, uint32_t max_wr,
			 uint32_t max_sge, struct manabe_obj **wq);
	int (*create_qp_raw)(struct manabe_obj *pd, uint32_t port,
			     struct manabe_obj *cq, void *sq_buf,
			     uint32_t sq_size, uint32_t max_send_wr,
			     uint32_t max_send_sge, struct manabe_obj **qp,
			     struct manabe_raw_qp_resp *resp);
	int (*create_ind_table)(struct manabe_ctx *ctx,
				struct manabe_obj *const *wqs,
				uint32_t log_size, struct manabe_obj **tbl);
	/* @entries: one per table entry (1 << log_size). */
	int (*create_qp_rss)(struct manabe_obj *pd, uint32_t port,
			     struct manabe_obj *tbl, uint32_t max_recv_wr,
			     uint32_t max_recv_sge, uint8_t hash_function,
			     const uint8_t *key, uint32_t key_len,
			     struct manabe_obj **qp,
			     struct manabe_rss_entry *entries);
	int (*obj_destroy)(struct manabe_obj *obj);
};

/* The MANA implementation the selection bound (never NULL). */
const struct manabe_ops *manabe_get(void);

#endif /* MLX5EMU_BACKEND_MANA_H */
