/* SPDX-License-Identifier: MIT */
/*
 * tests/hwdouble -- a test double of rdma-core's DEVX API for the hw
 * backend (README.md): libibverbs.so.1 and libmlx5.so.1 lookalikes, with
 * rdma-core 44's symbol versions, that answer like a device by running the
 * project's own emulator inside them (its kernel layer and firmware,
 * through mlx5be_emu_ops) and record every call.
 *
 *   hwd_verbs.c   devices, contexts, the ibv_* entries (libibverbs.so.1)
 *   hwd_devx.c    the DEVX calls as hwd_* entries libmlx5.so.1 wraps
 *   hwd_uar.c     UARs as libmlx5 hands them out: a singleton NC UAR,
 *                 BlueFlame registers from a pool of pages
 *   hwd_emu.c     the emulator's ops, run on a thread of the double's own
 *   hwd_log.c     the call record (HWDOUBLE_LOG) and the double's setup
 *   hwd_mlx5.c    the mlx5dv_* entries (libmlx5.so.1)
 *
 * Conventions are rdma-core 44's, per entry: int DEVX calls return a
 * positive errno (and set errno), handle-returning ones NULL with errno.
 */
#ifndef MLX5EMU_TESTS_HWDOUBLE_HWD_H
#define MLX5EMU_TESTS_HWDOUBLE_HWD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "backend/backend.h"

#define HWD_EXPORT __attribute__((visibility("default")))

/* A device the double lists: an emulated one, or a non-mlx5 one. */
struct hwd_device {
	struct ibv_device ibdev;	/* first: what rdma-core hands out */
	int index;			/* the emulator's; -1 not mlx5 */
	__be64 guid;
};

struct hwd_ctx;

/* A UAR page the double mapped, as rdma-core maps its dynamic UARs. */
struct hwd_uar_page {
	struct mlx5be_uar *be;
	void *base;
	struct hwd_uar_page *next;
};

/* What mlx5dv_devx_alloc_uar hands out: one register of a page. */
struct hwd_uar {
	struct mlx5dv_devx_uar dv;
	struct hwd_ctx *ctx;
	bool nc;			/* the context's singleton */
	struct hwd_uar *next;		/* all of the context's */
	struct hwd_uar *next_free;
};

/* A context: rdma-core's layout, so inline verbs find their ops. */
struct hwd_ctx {
	struct mlx5be_ctx *be;
	struct hwd_device *dev;
	pthread_mutex_t uar_lock;	/* guards the UAR lists below */
	struct hwd_uar_page *uar_pages;
	struct hwd_uar *uars, *bf_free, *nc_uar;
	/* The internal timer's two words, big-endian: a snapshot taken at
	 * each mlx5dv_query_device (the double maps no device). */
	uint32_t core_clock[2];
	struct verbs_context vctx;	/* last: holds the ibv_context */
};

struct mlx5dv_devx_obj {
	struct mlx5be_obj *be;
	struct hwd_ctx *ctx;
};

struct hwd_umem {
	struct mlx5dv_devx_umem dv;
	struct mlx5be_umem *be;
};

struct hwd_cmd_comp {
	struct mlx5dv_devx_cmd_comp dv;
	struct mlx5be_cmd_comp *be;
};

struct hwd_event_channel {
	struct mlx5dv_devx_event_channel dv;
	struct mlx5be_event_channel *be;
};

static inline struct hwd_ctx *hwd_ctx_of(struct ibv_context *c)
{
	return (struct hwd_ctx *)((char *)c - offsetof(struct hwd_ctx,
						       vctx.context));
}

/* ---- hwd_emu.c ---- */

/* The emulator's ops, each run on the double's own thread. */
extern const struct mlx5be_ops hwd_emu;

/* ---- hwd_uar.c ---- */

/* Frees every UAR page of @ctx (context close); how many there were. */
int hwd_uar_pages_free(struct hwd_ctx *ctx);

/* ---- hwd_log.c ---- */

/* Once per process: the emulator inside set up as a device's firmware
 * (no trace or fault rule of the process applies to it). */
void hwd_init(void);
/*
 * One JSON line in the record, when HWDOUBLE_LOG names a file:
 * {"call":@call,"dev":@dev,<@extra>,"ret":@ret[,"cmd":<trace JSON>]} with
 * the command decoded as the trace decodes it when @in is given (@out
 * NULL: no outbox).  @extra: more members, already JSON ("" none).
 */
void hwd_log(const char *call, const struct hwd_ctx *ctx, int ret,
	     const void *in, size_t inlen, const void *out, size_t outlen,
	     const char *extra);

/* ---- hwd_devx.c: the DEVX calls, exported to libmlx5.so.1 ---- */

HWD_EXPORT bool hwd_is_supported(struct ibv_device *dev);
HWD_EXPORT struct ibv_context *hwd_open_device(struct ibv_device *dev,
					       struct mlx5dv_context_attr *attr);
HWD_EXPORT int hwd_general_cmd(struct ibv_context *ctx, const void *in,
			       size_t inlen, void *out, size_t outlen);
HWD_EXPORT struct mlx5dv_devx_obj *hwd_obj_create(struct ibv_context *ctx,
						  const void *in, size_t inlen,
						  void *out, size_t outlen);
HWD_EXPORT int hwd_obj_modify(struct mlx5dv_devx_obj *obj, const void *in,
			      size_t inlen, void *out, size_t outlen);
HWD_EXPORT int hwd_obj_query(struct mlx5dv_devx_obj *obj, const void *in,
			     size_t inlen, void *out, size_t outlen);
HWD_EXPORT int hwd_obj_query_async(struct mlx5dv_devx_obj *obj,
				   const void *in, size_t inlen, size_t outlen,
				   uint64_t wr_id,
				   struct mlx5dv_devx_cmd_comp *comp);
HWD_EXPORT int hwd_obj_destroy(struct mlx5dv_devx_obj *obj);
HWD_EXPORT struct mlx5dv_devx_cmd_comp *hwd_create_cmd_comp(struct ibv_context *ctx);
HWD_EXPORT void hwd_destroy_cmd_comp(struct mlx5dv_devx_cmd_comp *comp);
HWD_EXPORT int hwd_get_async_cmd_comp(struct mlx5dv_devx_cmd_comp *comp,
				      struct mlx5dv_devx_async_cmd_hdr *resp,
				      size_t len);
HWD_EXPORT struct mlx5dv_devx_umem *hwd_umem_reg_ex(struct ibv_context *ctx,
						    struct mlx5dv_devx_umem_in *in);
HWD_EXPORT int hwd_umem_dereg(struct mlx5dv_devx_umem *umem);
HWD_EXPORT struct mlx5dv_devx_uar *hwd_alloc_uar(struct ibv_context *ctx,
						 uint32_t flags);
HWD_EXPORT void hwd_free_uar(struct mlx5dv_devx_uar *uar);
HWD_EXPORT int hwd_query_eqn(struct ibv_context *ctx, uint32_t vector,
			     uint32_t *eqn);
HWD_EXPORT struct mlx5dv_devx_event_channel *
hwd_create_event_channel(struct ibv_context *ctx,
			 enum mlx5dv_devx_create_event_channel_flags flags);
HWD_EXPORT void hwd_destroy_event_channel(struct mlx5dv_devx_event_channel *ch);
HWD_EXPORT int hwd_subscribe_devx_event(struct mlx5dv_devx_event_channel *ch,
					struct mlx5dv_devx_obj *obj,
					uint16_t events_sz,
					uint16_t events_num[], uint64_t cookie);
HWD_EXPORT int hwd_subscribe_devx_event_fd(struct mlx5dv_devx_event_channel *ch,
					   int fd, struct mlx5dv_devx_obj *obj,
					   uint16_t event_num);
HWD_EXPORT ssize_t hwd_get_event(struct mlx5dv_devx_event_channel *ch,
				 struct mlx5dv_devx_async_event_hdr *data,
				 size_t len);
HWD_EXPORT struct mlx5dv_flow_matcher *
hwd_create_flow_matcher(struct ibv_context *ctx,
			struct mlx5dv_flow_matcher_attr *attr);
HWD_EXPORT int hwd_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher);
HWD_EXPORT struct ibv_flow *hwd_create_flow(struct mlx5dv_flow_matcher *matcher,
					    struct mlx5dv_flow_match_parameters *value,
					    size_t num_actions,
					    struct mlx5dv_flow_action_attr actions[]);
HWD_EXPORT int hwd_get_clock_info(struct ibv_context *ctx,
				  struct mlx5dv_clock_info *info);
HWD_EXPORT int hwd_query_device(struct ibv_context *ctx,
				struct mlx5dv_context *attrs_out);

#endif /* MLX5EMU_TESTS_HWDOUBLE_HWD_H */
