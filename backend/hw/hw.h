/* SPDX-License-Identifier: MIT */
/*
 * backend/hw -- inside the hw backend: rdma-core's DEVX on a real ConnectX,
 * reached in a link-map namespace of its own.
 *
 *   hw_paths.c    where the system's libraries are (ld.so.cache, else the
 *                 directory of the process's libc) and what each needs
 *                 (DT_NEEDED), read from the files themselves
 *   hw_load.c     the namespace: every library by absolute path, checked
 *                 with dlinfo, the symbols by version, fork and environ
 *   hw_device.c   enumeration, open, import, close
 *   hw_devx.c     commands, async queries, umem, UARs, EQ numbers, events
 *   hw_kernel.c   port attributes, GIDs, MAC resolution, steering, clock,
 *                 the unaffiliated async events
 *   hw_ops.c      the ops table
 *
 * The rules of a second namespace: its libc is its own (malloc, errno,
 * TLS, atfork list), so memory rdma-core allocates is only ever released
 * by rdma-core and ours only by us; its errno is read through its own
 * __errno_location; nothing here calls an rdma-core function by name (the
 * names would bind to our own drop-in libraries in this namespace), only
 * through the pointers in hw_syms; and every call that may take a lock or
 * allocate inside the namespace runs between hw_enter() and hw_leave(), so
 * that fork() never copies a namespace lock held by another thread.
 *
 * Convention: 0 or a negative errno, as the backend interface.
 */
#ifndef MLX5EMU_BACKEND_HW_HW_H
#define MLX5EMU_BACKEND_HW_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "backend/backend.h"
#include "backend/backend_impl.h"

#define HW_PATH_MAX 4096
#define HW_WHY_MAX 1024

/* rdma-core 44's entries, resolved by name and version in the namespace. */
struct hw_syms {
	/* libibverbs.so.1 */
	struct ibv_device **(*get_device_list)(int *num);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *dev);
	__be64 (*get_device_guid)(struct ibv_device *dev);
	int (*close_device)(struct ibv_context *ctx);
	struct ibv_context *(*import_device)(int cmd_fd);
	int (*query_port)(struct ibv_context *ctx, uint8_t port,
			  struct _compat_ibv_port_attr *attr);
	int (*query_gid_ex)(struct ibv_context *ctx, uint32_t port,
			    uint32_t index, struct ibv_gid_entry *entry,
			    uint32_t flags, size_t entry_size);
	int (*resolve_eth_l2_from_gid)(struct ibv_context *ctx,
				       struct ibv_ah_attr *attr,
				       uint8_t mac[6], uint16_t *vid);
	int (*get_async_event)(struct ibv_context *ctx,
			       struct ibv_async_event *event);
	void (*ack_async_event)(struct ibv_async_event *event);
	/* libmlx5.so.1 */
	bool (*is_supported)(struct ibv_device *dev);
	struct ibv_context *(*open_device)(struct ibv_device *dev,
					   struct mlx5dv_context_attr *attr);
	int (*general_cmd)(struct ibv_context *ctx, const void *in,
			   size_t inlen, void *out, size_t outlen);
	struct mlx5dv_devx_obj *(*obj_create)(struct ibv_context *ctx,
					      const void *in, size_t inlen,
					      void *out, size_t outlen);
	int (*obj_modify)(struct mlx5dv_devx_obj *obj, const void *in,
			  size_t inlen, void *out, size_t outlen);
	int (*obj_query)(struct mlx5dv_devx_obj *obj, const void *in,
			 size_t inlen, void *out, size_t outlen);
	int (*obj_query_async)(struct mlx5dv_devx_obj *obj, const void *in,
			       size_t inlen, size_t outlen, uint64_t wr_id,
			       struct mlx5dv_devx_cmd_comp *comp);
	int (*obj_destroy)(struct mlx5dv_devx_obj *obj);
	struct mlx5dv_devx_cmd_comp *(*create_cmd_comp)(struct ibv_context *ctx);
	void (*destroy_cmd_comp)(struct mlx5dv_devx_cmd_comp *comp);
	int (*get_async_cmd_comp)(struct mlx5dv_devx_cmd_comp *comp,
				  struct mlx5dv_devx_async_cmd_hdr *resp,
				  size_t len);
	struct mlx5dv_devx_umem *(*umem_reg_ex)(struct ibv_context *ctx,
						struct mlx5dv_devx_umem_in *in);
	int (*umem_dereg)(struct mlx5dv_devx_umem *umem);
	struct mlx5dv_devx_uar *(*alloc_uar)(struct ibv_context *ctx,
					     uint32_t flags);
	void (*free_uar)(struct mlx5dv_devx_uar *uar);
	int (*query_eqn)(struct ibv_context *ctx, uint32_t vector,
			 uint32_t *eqn);
	struct mlx5dv_devx_event_channel *(*create_event_channel)(
		struct ibv_context *ctx,
		enum mlx5dv_devx_create_event_channel_flags flags);
	void (*destroy_event_channel)(struct mlx5dv_devx_event_channel *ch);
	int (*subscribe_devx_event)(struct mlx5dv_devx_event_channel *ch,
				    struct mlx5dv_devx_obj *obj,
				    uint16_t events_sz, uint16_t events_num[],
				    uint64_t cookie);
	int (*subscribe_devx_event_fd)(struct mlx5dv_devx_event_channel *ch,
				       int fd, struct mlx5dv_devx_obj *obj,
				       uint16_t event_num);
	ssize_t (*get_event)(struct mlx5dv_devx_event_channel *ch,
			     struct mlx5dv_devx_async_event_hdr *data,
			     size_t len);
	struct mlx5dv_flow_matcher *(*create_flow_matcher)(
		struct ibv_context *ctx, struct mlx5dv_flow_matcher_attr *attr);
	int (*destroy_flow_matcher)(struct mlx5dv_flow_matcher *matcher);
	struct ibv_flow *(*create_flow)(struct mlx5dv_flow_matcher *matcher,
					struct mlx5dv_flow_match_parameters *value,
					size_t num_actions,
					struct mlx5dv_flow_action_attr actions[]);
	int (*get_clock_info)(struct ibv_context *ctx,
			      struct mlx5dv_clock_info *info);
	int (*query_device)(struct ibv_context *ctx,
			    struct mlx5dv_context *attrs_out);
};

/* The loaded namespace (hw_load.c); valid once hw_loaded() is true. */
extern struct hw_syms hw_sym;

/* ---- handles ---- */

struct mlx5be_ctx {
	struct ibv_context *ibctx;	/* rdma-core's, in the namespace */
	int own_fd;			/* an imported cmd_fd, closed with it; -1 */
};

enum hw_obj_kind {
	HW_OBJ_DEVX,		/* mlx5dv_devx_obj */
	HW_OBJ_FLOW,		/* a rule at the steering root and its matcher */
};

struct mlx5be_obj {
	enum hw_obj_kind kind;
	struct mlx5dv_devx_obj *devx;
	struct ibv_flow *flow;
	struct mlx5dv_flow_matcher *matcher;
};

struct mlx5be_umem {
	struct mlx5dv_devx_umem *umem;
};

struct mlx5be_uar {
	struct mlx5dv_devx_uar *uar;
};

struct mlx5be_event_channel {
	struct mlx5dv_devx_event_channel *ch;
};

struct mlx5be_cmd_comp {
	struct mlx5dv_devx_cmd_comp *comp;
};

/* ---- hw_paths.c ---- */

/*
 * The absolute path the system's loader would give @soname without any
 * LD_LIBRARY_PATH: the first entry of /etc/ld.so.cache (@cache, NULL for
 * the system's) for this process's ELF class and machine, else the file in
 * the directory of this process's libc.  0 or -ENOENT.
 */
int hw_path_resolve(const char *cache, const char *soname, char *path,
		    size_t len);

/*
 * Calls @fn for each DT_NEEDED name of the ELF file @path, in order.  0,
 * @fn's first non-zero result, or a negative errno with @why (not an ELF
 * shared object of this process's class and machine, unreadable).
 */
int hw_elf_needed(const char *path, int (*fn)(void *arg, const char *name),
		  void *arg, char *why, size_t whylen);

/* ---- hw_load.c ---- */

/* True once the namespace is loaded and checked. */
bool hw_loaded(void);
/* Whether problems are reported on stderr (hw selected, not auto). */
bool hw_reporting(void);
/* One "mlx5emu: backend hw: ..." line on stderr, when reporting. */
void hw_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Checks that nothing of ours is in the namespace (after rdma-core loaded
 * its providers too); -ELIBBAD with a report if something is.
 */
int hw_check_namespace(void);

/* Around every call into the namespace that may lock or allocate. */
void hw_enter(void);
void hw_leave(void);
/* The namespace's errno on this thread (its libc's own). */
int hw_errno(void);
/* A handle-returning call failed: errno (ours) from the namespace's. */
void hw_set_errno(void);
/* rdma-core's positive-errno results as the interface's negative ones. */
static inline int hw_ret(int ret)
{
	return ret > 0 ? -ret : ret;
}

/* ---- hw_device.c, hw_devx.c, hw_kernel.c (the ops) ---- */

int hw_get_devices(struct mlx5be_device_info *infos, int max);
int hw_open(int index, struct mlx5be_ctx **ctx, int *cmd_fd);
/* The system's rdma-core 44 has no fd array in mlx5dv_context_attr. */
int hw_open_ucaps(int index, const int *fds, uint32_t nfds,
		  struct mlx5be_ctx **ctx, int *cmd_fd);
int hw_import(int cmd_fd, struct mlx5be_ctx **ctx, int *index);
void hw_close(struct mlx5be_ctx *ctx);

int hw_general_cmd(struct mlx5be_ctx *ctx, const void *in, size_t inlen,
		   void *out, size_t outlen);
struct mlx5be_obj *hw_obj_create(struct mlx5be_ctx *ctx, const void *in,
				 size_t inlen, void *out, size_t outlen);
int hw_obj_modify(struct mlx5be_obj *obj, const void *in, size_t inlen,
		  void *out, size_t outlen);
int hw_obj_query(struct mlx5be_obj *obj, const void *in, size_t inlen,
		 void *out, size_t outlen);
int hw_obj_query_async(struct mlx5be_obj *obj, const void *in, size_t inlen,
		       size_t outlen, uint64_t wr_id,
		       struct mlx5be_cmd_comp *comp);
int hw_obj_destroy(struct mlx5be_obj *obj);
struct mlx5be_cmd_comp *hw_cmd_comp_create(struct mlx5be_ctx *ctx);
void hw_cmd_comp_destroy(struct mlx5be_cmd_comp *comp);
int hw_cmd_comp_fd(struct mlx5be_cmd_comp *comp);
int hw_cmd_comp_get(struct mlx5be_cmd_comp *comp,
		    struct mlx5be_async_cmd_resp *resp);
struct mlx5be_umem *hw_umem_reg(struct mlx5be_ctx *ctx, void *addr,
				size_t size, uint32_t access,
				uint64_t pgsz_bitmap, uint32_t *umem_id);
int hw_umem_dereg(struct mlx5be_umem *umem);
struct mlx5be_uar *hw_uar_alloc(struct mlx5be_ctx *ctx, uint32_t flags,
				struct mlx5be_uar_info *info);
void hw_uar_free(struct mlx5be_uar *uar);
int hw_query_eqn(struct mlx5be_ctx *ctx, uint32_t vector, uint32_t *eqn);
struct mlx5be_event_channel *hw_event_channel_create(struct mlx5be_ctx *ctx,
						     uint32_t flags);
void hw_event_channel_destroy(struct mlx5be_event_channel *ch);
int hw_event_channel_fd(struct mlx5be_event_channel *ch);
int hw_event_subscribe(struct mlx5be_event_channel *ch, struct mlx5be_obj *obj,
		       const uint16_t *types, size_t ntypes, uint64_t cookie);
int hw_event_subscribe_fd(struct mlx5be_event_channel *ch,
			  struct mlx5be_obj *obj, uint16_t type, int fd);
ssize_t hw_event_read(struct mlx5be_event_channel *ch, struct mlx5be_event *ev,
		      size_t len);

int hw_query_port(struct mlx5be_ctx *ctx, uint32_t port,
		  struct mlx5be_port_attr *attr);
int hw_query_gid(struct mlx5be_ctx *ctx, uint32_t port, uint32_t index,
		 struct mlx5be_gid_entry *entry);
int hw_gid_l2_addr(struct mlx5be_ctx *ctx, uint32_t port, uint32_t sgid_index,
		   const uint8_t dgid[16], uint8_t mac[6], uint16_t *vlan);
struct mlx5be_obj *hw_steering_root_attach(struct mlx5be_ctx *ctx,
					   const struct mlx5be_flow_match *match,
					   const struct mlx5be_flow_act *act);
int hw_clock_info(struct mlx5be_ctx *ctx, struct mlx5be_clock_info *info);
int hw_read_clock(struct mlx5be_ctx *ctx, uint64_t *cycles);
int hw_net_raw_check(struct mlx5be_ctx *ctx);
int hw_async_event_fd(struct mlx5be_ctx *ctx);
int hw_async_event_read(struct mlx5be_ctx *ctx, struct mlx5be_async_event *ev);

#endif /* MLX5EMU_BACKEND_HW_HW_H */
