/* SPDX-License-Identifier: MIT */
/*
 * The emulated kernel layer: what mlx5_ib and its DEVX code do between a
 * DEVX caller and firmware.  It implements the backend interface for the
 * emulator (kern_backend.c); the provider never sees these types.
 *
 * Convention: functions return 0 or a negative errno; firmware results
 * travel as PRM status/syndrome in the outbox.
 */
#ifndef MLX5EMU_EMU_KERNEL_KERN_H
#define MLX5EMU_EMU_KERNEL_KERN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <urcu/list.h>

#include "emu/kernel/kern_devx_rules.h"
#include "backend/backend.h"
#include "backend/backend_impl.h"
#include "prm/prm.h"

struct emu_fw;

#define KERN_NUM_COMP_VECTORS 1
#define KERN_PAGE_SHIFT 12
#define KERN_PAGE_SIZE (1u << KERN_PAGE_SHIFT)
/* The name of every ucontext's memfd (what /proc/self/maps shows). */
#define KERN_MEMFD_NAME "mlx5emu-uverbs"
#define KERN_EV_BUCKETS 256

/*
 * An EQ the kernel owns and consumes (kern_eq.c), as mlx5_core's: its
 * ring, its own UAR page (where it writes its doorbell), its counter and
 * interrupt vector.
 */
struct kern_eq {
	uint32_t eqn;
	uint32_t uar;
	uint8_t *page;
	uint8_t *buf;
	uint32_t umem_id;
	unsigned int log_size;
	unsigned int vector;
	uint32_t ci;
};

/*
 * The device's DEVX event subscriptions (kern_event.c), as devx.c keeps
 * them: affiliated ones hashed by (event type | object type << 16, object
 * number), unaffiliated ones in a list.
 */
struct kern_ev_table {
	pthread_mutex_t lock;
	struct cds_list_head bucket[KERN_EV_BUCKETS];
	struct cds_list_head unaffiliated;
};

/* What a port's wire asks of its device: its link state. */
struct kern_wire_port {
	struct emu_fw *fw;
	unsigned int port;
};

/*
 * The device's clock as mlx5_core keeps it (kern_clock.c): the timecounter
 * over the internal timer and the clock info page mlx5_ib shares with user
 * space (struct mlx5_ib_clock_info at its start), brought current as the
 * overflow work does, at most overflow_period apart.
 */
struct kern_clock {
	void *page;			/* NULL: no device_frequency_khz */
	pthread_mutex_t lock;		/* the writer: the timecounter, page */
	uint64_t cycle_last, nsec, frac;	/* timecounter */
	uint32_t mult, shift;
	uint64_t mask;
	uint64_t period_ns;		/* overflow_period, in ns */
	_Atomic uint64_t next_update;	/* emu_clock_ns() due */
};

/* The kernel's NIC receive steering (kern_flow.c): its root table, made
 * at the first rule, and the flow indexes rules hold, in bands of
 * KERN_FLOW_PER_PRIO per bypass priority (MLX5_BY_PASS_NUM_PRIOS: 16
 * regular, 16 don't-trap, 1 multicast). */
#define KERN_FLOW_PRIOS 33
#define KERN_FLOW_PER_PRIO 256
struct kern_flow {
	pthread_mutex_t lock;		/* after a ucontext's lock */
	bool root_valid;
	uint32_t root_id;
	uint64_t used[KERN_FLOW_PRIOS * KERN_FLOW_PER_PRIO / 64];
};

/* One emulated device as the kernel holds it, created on first open. */
/* The local loopback reference (kern_lb.c), as mlx5_ib's dev->lb. */
struct kern_lb {
	pthread_mutex_t lock;
	int user_td;		/* ucontexts (each holds a transport domain) */
	int qps;		/* raw QPs whose TIR allows self loopback */
	bool enabled;		/* the vport's local loopback was turned on */
};

struct kern_dev {
	int index;
	struct emu_fw *fw;
	uint32_t eqn[KERN_NUM_COMP_VECTORS];	/* kernel-owned completion EQs */
	struct kern_eq comp_eq[KERN_NUM_COMP_VECTORS];
	struct kern_eq async_eq;		/* every other event type */
	struct kern_ev_table ev;
	bool fatal;		/* a fatal error: commands fail (kern_inject.c) */
	int refs;				/* open contexts */
	pthread_mutex_t cq_lock;		/* guards cqs */
	struct cds_list_head cqs;		/* CQs on those EQs (kern_cq.c) */
	/* The general capabilities in effect, read at bring-up as
	 * mlx5_core caches them (mdev->caps). */
	uint8_t cap_gen[PRM_ST_SZ_BYTES(cmd_hca_cap)];
	struct kern_wire_port wire[2];		/* kern_wire.c */
	struct kern_clock clock;		/* kern_clock.c */
	struct kern_flow flow;			/* kern_flow.c */
	struct kern_lb lb;			/* kern_lb.c */
	struct kern_dev *forked_next;		/* a parent's, in a child */
};

#define KERN_CAP_GEN(kdev, fld) PRM_GET(cmd_hca_cap, (kdev)->cap_gen, fld)

/* kern_clock.c: the clock info page (none without a device frequency);
 * its update when due, and the page (NULL: none); its release. */
int kern_clock_init(struct kern_dev *kdev);
const void *kern_clock_page(struct kern_dev *kdev);
void kern_clock_fini(struct kern_dev *kdev);
/* The backend's clock ops. */
int kern_clock_info(struct mlx5be_ctx *ctx, struct mlx5be_clock_info *info);
int kern_read_clock(struct mlx5be_ctx *ctx, uint64_t *cycles);

/* kern_flow.c: a rule in the kernel's NIC receive root (the backend's
 * steering_root_attach), and its removal (obj_destroy). */
struct mlx5be_obj *kern_flow_attach(struct mlx5be_ctx *ctx,
				    const struct mlx5be_flow_match *m,
				    const struct mlx5be_flow_act *act);
int kern_flow_detach(struct mlx5be_obj *obj);

/* kern_lb.c: a use of the local loopback reference by a ucontext's
 * transport domain (@td) or a QP (@qp), and its release. */
int kern_lb_enable(struct kern_dev *kdev, bool td, bool qp);
void kern_lb_disable(struct kern_dev *kdev, bool td, bool qp);
/* The backend's tir_local_lb: TIR @obj holds a QP use until destroyed. */
int kern_lb_tir_hold(struct mlx5be_obj *obj);

/* kern_wire.c: the device's ports join the wire (after the engine). */
int kern_wire_attach(struct kern_dev *kdev);
/* kern_stats.c: the wire's counters go where wire.stats says (once). */
void kern_stats_init(void);

/*
 * The unaffiliated asynchronous events of a ucontext as uverbs queues them
 * for verbs (kern_ibevent.c): port state changes, device fatal.  efd is
 * readable while events wait.
 */
struct kern_ibev_queue {
	pthread_mutex_t lock;
	struct cds_list_head evs;
	unsigned int n;
	int efd;
};

/*
 * A ucontext: what the kernel keeps for one opened device file (the
 * ufile): the DEVX uid, the memfd whose pages are the UARs, and every DEVX
 * object, umem, UAR and async-command fd made through it.  The context that
 * opened it and every context imported from a dup() of its cmd_fd
 * (ibv_import_device) share it; it is destroyed, with everything it still
 * holds, when the last of them is closed.
 */
struct kern_uctx {
	struct kern_dev *kdev;
	uint16_t uid;
	int memfd;			/* the kernel's own descriptor of it */
	dev_t memfd_dev;		/* what identifies a cmd_fd (fstat) */
	ino_t memfd_ino;
	int handles;			/* contexts sharing it (registry lock) */
	uint64_t gen;			/* registry generation (fork) */
	pid_t pid;			/* the process it belongs to (fork) */
	struct cds_list_head node;	/* in the registry of live ucontexts */
	pthread_mutex_t lock;		/* guards the lists and memfd_pages */
	size_t memfd_pages;		/* pages the memfd holds */
	struct cds_list_head objs;	/* DEVX objects, creation order */
	struct cds_list_head umems;
	struct cds_list_head uars;
	struct cds_list_head dead_uars;	/* freed, DEALLOC_UAR still refused */
	struct cds_list_head comps;	/* async command fds (kern_async.c) */
	struct cds_list_head uobjs;	/* uverbs PD and MR handles (kern_uobj.c) */
	uint32_t next_handle;		/* the next of them */
	struct cds_list_head evchs;	/* DEVX event channels (kern_event.c) */
	struct kern_ibev_queue ibev;	/* verbs async events (kern_ibevent.c) */
};

/* One device context (ibv_context) as the backend sees it. */
struct mlx5be_ctx {
	struct kern_uctx *uctx;
	int cmd_fd;			/* this context's cmd_fd; close() closes it */
};

struct mlx5be_obj {
	struct kern_uctx *uctx;
	struct cds_list_head node;
	struct cds_list_head subs;	/* event subscriptions (kern_event.c) */
	uint64_t enc_id;		/* (create opcode << 32) | id, as devx.c */
	uint32_t bulk;			/* flow counters allocated in bulk */
	bool lb_qp;			/* a TIR holding a loopback QP use */
	enum kern_destroy_flow flow;	/* how devx_obj_cleanup destroys it */
	uint32_t flow_group, flow_index;	/* a steering rule's (kern_flow.c) */
	size_t destroy_inlen, destroy_outlen;
	uint8_t destroy_in[KERN_DEVX_DESTROY_INBOX_MAX];	/* from the create */
};

struct mlx5be_umem {
	struct kern_uctx *uctx;
	struct cds_list_head node;
	uint32_t id;
};

struct mlx5be_uar {
	struct kern_uctx *uctx;
	struct cds_list_head node;
	uint32_t index;			/* firmware UAR index (page_id) */
	off_t mmap_off;			/* page offset in the memfd */
	void *page;			/* the kernel's own mapping of the page */
};

/* kern_dev.c */
int kern_dev_get(int index, struct kern_dev **kdev);
/* The device @index if it was brought up, else NULL (no reference). */
struct kern_dev *kern_dev_find(int index);
void kern_dev_put(struct kern_dev *kdev);
bool kern_dev_is_comp_eq(const struct kern_dev *kdev, uint32_t eqn);
/* Executes a command as firmware sees it; uid already stamped. */
int kern_fw_exec(struct kern_dev *kdev, const void *in, size_t inlen,
		 void *out, size_t outlen);
/* Executes a kernel-internal command (uid 0); -EREMOTEIO on bad status. */
int kern_fw_exec_checked(struct kern_dev *kdev, void *in, size_t inlen,
			 void *out, size_t outlen);

/* kern_cq.c: the CQs on the completion EQs (mlx5_eq_add_cq/del_cq). */
void kern_dev_cqs_init(struct kern_dev *kdev);
int kern_dev_cq_attach(struct kern_dev *kdev, uint32_t eqn, uint32_t cqn);
void kern_dev_cq_detach(struct kern_dev *kdev, uint32_t cqn);
/* Whether CQ cqn is on a completion EQ, and which (@eqn may be NULL). */
bool kern_dev_cq_find(struct kern_dev *kdev, uint32_t cqn, uint32_t *eqn);


/* kern_ctx.c */
int kern_ctx_open(int index, struct mlx5be_ctx **ctx, int *cmd_fd);
/* The same with the ucap descriptors of mlx5dv_open_device's fd array
 * (kern_ucaps.c: -EBADF, -EINVAL, -EOPNOTSUPP as the kernel answers). */
int kern_ctx_open_ucaps(int index, const int *fds, uint32_t nfds,
			struct mlx5be_ctx **ctx, int *cmd_fd);

/* kern_ucaps.c: ib_ucaps' types (enum rdma_user_cap). */
enum {
	KERN_UCAP_CTRL_LOCAL,
	KERN_UCAP_CTRL_OTHER_VHCA,
	KERN_UCAP_MAX
};
/* The node name of a ucap type ("mlx5_perm_ctrl_local"), or NULL. */
const char *kern_ucap_name(unsigned int type);
/* Makes the advertised ucaps' nodes in the emulated tree; 0 or -errno. */
int kern_ucaps_publish(void);
/* ib_get_ucaps: the ucap types @fds are nodes of; -EBADF, -EINVAL. */
int kern_ucaps_from_fds(const int *fds, uint32_t n, uint64_t *mask);
/* capable(CAP_NET_RAW), or device.allow_net_raw (kern_backend.c). */
bool kern_net_raw_capable(void);
/* set_uctx_ucaps: adds the uctx_cap bits of @mask to *@cap; -EOPNOTSUPP
 * when the firmware lacks one. */
int kern_ucaps_uctx_cap(const struct kern_dev *kdev, uint64_t mask,
			uint32_t *cap);
/*
 * ibv_import_device: a new context on the ucontext whose cmd_fd @cmd_fd is
 * a dup() of.  On success the context owns @cmd_fd (close() closes it); on
 * failure it is left open.  -EINVAL when @cmd_fd is not an open descriptor
 * or not a character device, -ENODEV when it is a character device that is
 * no device of ours (what rdma-core 44's ibv_import_device answers before
 * it reaches a provider); a descriptor of one of our ucontexts is a regular
 * file (a memfd) and is recognised by its inode, so a regular file that is
 * not a live ucontext's cmd_fd is -EINVAL as well.
 */
int kern_ctx_import(int cmd_fd, struct mlx5be_ctx **ctx, int *index);
void kern_ctx_close(struct mlx5be_ctx *ctx);

/* kern_uobj.c: the file's uverbs object handles (backend uobj_* ops). */
int kern_uobj_add(struct mlx5be_ctx *ctx, const struct mlx5be_uobj *attr,
		  uint32_t *handle);
int kern_uobj_set(struct mlx5be_ctx *ctx, uint32_t handle,
		  const struct mlx5be_uobj *attr);
void kern_uobj_del(struct mlx5be_ctx *ctx, uint32_t handle);
int kern_uobj_query(struct mlx5be_ctx *ctx, uint32_t handle,
		    enum mlx5be_uobj_type type, struct mlx5be_uobj *attr);
int kern_uobj_hold(struct mlx5be_ctx *ctx, uint32_t handle, int delta);
/* Forgets every handle (the file's release). */
void kern_uobj_del_all(struct kern_uctx *uctx);

/* kern_obj.c */
int kern_general_cmd(struct mlx5be_ctx *ctx, const void *in, size_t inlen,
		     void *out, size_t outlen);
struct mlx5be_obj *kern_obj_create(struct mlx5be_ctx *ctx, const void *in,
				   size_t inlen, void *out, size_t outlen);
int kern_obj_modify(struct mlx5be_obj *obj, const void *in, size_t inlen,
		    void *out, size_t outlen);
int kern_obj_query(struct mlx5be_obj *obj, const void *in, size_t inlen,
		   void *out, size_t outlen);
int kern_obj_destroy(struct mlx5be_obj *obj);
/* The checks of a modify/query (async query) on @obj, in the kernel's
 * order, and the private stamped copy of the inbox to run (free() it);
 * NULL with *err set when the kernel refuses. */
void *kern_obj_cmd_prepare(struct mlx5be_obj *obj, const void *in, size_t inlen,
			   size_t outlen, enum kern_devx_method method, int *err);
/* Runs a prepared command: 0, -EREMOTEIO (outbox status), or the exec error. */
int kern_obj_cmd_run(struct mlx5be_obj *obj, const void *buf, size_t inlen,
		     void *out, size_t outlen);
/* Destroys what the ucontext still holds, newest first (close/exit). */
void kern_obj_destroy_all(struct kern_uctx *uctx);

/* kern_async.c */
struct mlx5be_cmd_comp *kern_cmd_comp_create(struct mlx5be_ctx *ctx);
/* The ucontext is going: its async-command fds turn into closed ones
 * (readable, reads fail with EIO), as uverbs destroys FD objects. */
void kern_cmd_comp_detach_all(struct kern_uctx *uctx);
void kern_cmd_comp_destroy(struct mlx5be_cmd_comp *comp);
int kern_cmd_comp_fd(struct mlx5be_cmd_comp *comp);
int kern_obj_query_async(struct mlx5be_obj *obj, const void *in, size_t inlen,
			 size_t outlen, uint64_t wr_id,
			 struct mlx5be_cmd_comp *comp);
int kern_cmd_comp_get(struct mlx5be_cmd_comp *comp,
		      struct mlx5be_async_cmd_resp *resp);

/* kern_port.c: port attributes, GIDs, the port MTU. */
int kern_query_port(struct mlx5be_ctx *ctx, uint32_t port,
		    struct mlx5be_port_attr *attr);
int kern_query_gid(struct mlx5be_ctx *ctx, uint32_t port, uint32_t index,
		   struct mlx5be_gid_entry *entry);
int kern_gid_l2_addr(struct mlx5be_ctx *ctx, uint32_t port,
		     uint32_t sgid_index, const uint8_t dgid[16], uint8_t mac[6],
		     uint16_t *vlan);
/* mlx5e's netdev coming up: PMTU admin_mtu for a netdev MTU (1-based port). */
int kern_port_set_mtu(struct kern_dev *kdev, unsigned int port,
		      uint32_t netdev_mtu);
/* kern_fork.c */
/* In a forked child: @uctx is the parent's, its device is gone here. */
bool kern_uctx_lost(const struct kern_uctx *uctx);
/* The child's atfork handler for the ucontexts it inherited. */
void kern_fork_child(struct cds_list_head *uctxs);
/* Releases what the child holds of a lost ucontext (its last close). */
void kern_fork_forget(struct kern_uctx *uctx);
/* kern_async.c's part: fresh eventfds, the fds closed as at teardown. */
void kern_cmd_comp_fork_child(struct cds_list_head *uctxs);

/* kern_eq.c: the kernel's EQs and their interrupt */
int kern_eq_create_all(struct kern_dev *kdev);
/* The device's interrupt handler (emu_eng_set_irq; arg: the kern_dev). */
void kern_eq_irq(void *arg, unsigned int vector);

/* kern_event.c: DEVX event channels */
/* An eventfd used as a readiness flag: make its count non-zero / zero. */
void kern_efd_signal(int efd);
void kern_efd_unsignal(int efd);
void kern_efd_renew(int efd, bool signalled);
/* The child's atfork part: its own readiness eventfds for the channels
 * and verbs event queues of the ucontexts it inherited. */
void kern_event_fork_child(struct cds_list_head *uctxs);
void kern_event_table_init(struct kern_ev_table *t);
struct mlx5be_event_channel *kern_event_channel_create(struct mlx5be_ctx *ctx,
							uint32_t flags);
void kern_event_channel_destroy(struct mlx5be_event_channel *ch);
int kern_event_channel_fd(struct mlx5be_event_channel *ch);
int kern_event_subscribe(struct mlx5be_event_channel *ch, struct mlx5be_obj *obj,
			 const uint16_t *types, size_t ntypes, uint64_t cookie);
int kern_event_subscribe_fd(struct mlx5be_event_channel *ch,
			    struct mlx5be_obj *obj, uint16_t type, int fd);
ssize_t kern_event_read(struct mlx5be_event_channel *ch,
			struct mlx5be_event *ev, size_t len);
/* An EQE the kernel consumed: to the DEVX subscriptions it concerns. */
void kern_event_dispatch(struct kern_dev *kdev, const uint8_t eqe[64]);
/* The object is destroyed: its subscriptions end (what they queued
 * stays readable). */
void kern_event_obj_gone(struct mlx5be_obj *obj);
/* The ucontext is going: its channels turn into destroyed ones. */
void kern_event_detach_all(struct kern_uctx *uctx);

/* kern_ibevent.c: the verbs async events of ucontexts */
int kern_ibev_init(struct kern_ibev_queue *q);
void kern_ibev_fini(struct kern_ibev_queue *q);
/* An event (enum ibv_event_type, @port for port events) to every
 * ucontext of @kdev. */
void kern_ibev_post_dev(struct kern_dev *kdev, uint32_t type, uint32_t port);
int kern_async_event_fd(struct mlx5be_ctx *ctx);
int kern_async_event_read(struct mlx5be_ctx *ctx,
			  struct mlx5be_async_event *ev);

/* kern_ctx.c: every live ucontext of @kdev (under the registry lock; fn
 * must not open or close contexts). */
void kern_uctx_for_each(struct kern_dev *kdev,
			void (*fn)(struct kern_uctx *uctx, void *arg), void *arg);

/* kern_inject.c: events on demand, and a device after a fatal error */
/* What fault rules raise (emu_fault_set_event_fn's function). */
void kern_inject_register(void);
/* kern_dp.c: the engine's data-path hooks (fault rules, the WQE/CQE
 * trace); a device came up: the trace's setting is known. */
void kern_dp_register(void);
void kern_dp_device_up(void);
/* A command to a device in its fatal state: destroys answer OK (what they
 * release is released), everything else fails as mlx5_cmd_exec does. */
int kern_fatal_exec(struct kern_dev *kdev, const void *in, size_t inlen,
		    void *out, size_t outlen);

/* kern_umem.c */
/* The page size the kernel picks for a umem (0: none of @bitmap fits). */
uint64_t kern_umem_best_pgsz(uintptr_t addr, size_t len, uint64_t bitmap);
/* CREATE_UMEM of [addr, addr + size) for uid, read and (writable) write
 * rights in every MTT entry: 0, or the errno of the refusal. */
int kern_umem_create(struct kern_dev *kdev, uint16_t uid, void *addr,
		     size_t size, bool writable, uint64_t pgsz_bitmap,
		     uint32_t *umem_id);
int kern_umem_destroy(struct kern_dev *kdev, uint16_t uid, uint32_t umem_id);
struct mlx5be_umem *kern_umem_reg(struct mlx5be_ctx *ctx, void *addr,
				  size_t size, uint32_t access,
				  uint64_t pgsz_bitmap, uint32_t *umem_id);
/* The same for a verbs MR with IBV_ACCESS_ON_DEMAND: nothing pinned. */
struct mlx5be_umem *kern_umem_reg_odp(struct mlx5be_ctx *ctx, void *addr,
				      size_t size, uint32_t access,
				      uint64_t pgsz_bitmap, uint32_t *umem_id);
int kern_umem_prefetch(struct mlx5be_umem *umem, void *addr, size_t len,
		       bool write);
int kern_umem_dereg(struct mlx5be_umem *umem);

/* kern_uar.c */
struct mlx5be_uar *kern_uar_alloc(struct mlx5be_ctx *ctx, uint32_t flags,
				  struct mlx5be_uar_info *info);
void kern_uar_free(struct mlx5be_uar *uar);
/* Unmaps and frees a UAR no command refers to any more. */
void kern_uar_release(struct kern_uctx *uctx, struct mlx5be_uar *uar);
/* Retries the DEALLOC_UAR of freed UARs an object still used (uctx->lock
 * held); with @final, what firmware still refuses is forgotten. */
void kern_uar_reap(struct kern_uctx *uctx, bool final);
int kern_query_eqn(struct mlx5be_ctx *ctx, uint32_t vector, uint32_t *eqn);

#endif /* MLX5EMU_EMU_KERNEL_KERN_H */
