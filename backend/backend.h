/* SPDX-License-Identifier: MIT */
/*
 * The backend interface: everything the provider may ask of a device.
 *
 * It mirrors DEVX as the Linux kernel offers it to rdma-core (general
 * commands, objects created from a PRM mailbox and destroyed by handle, umem,
 * UARs, EQ numbers, event channels) plus the few kernel services a DEVX user
 * needs beside firmware (port attributes, GIDs and their L2 address, the
 * kernel-owned steering root, clock info).  Nothing else crosses it: the
 * provider never includes an emu/ header and never calls the device model
 * except through these ops.  Neither side owns this header: the provider
 * calls it, the implementations provide it.  Two implementations exist:
 * emu (the device model in this process, emu/kernel/kern_backend.c) and hw
 * (rdma-core's DEVX on a real ConnectX, backend/hw/, every entry an
 * rdma-core 44 call).  backend.c alone picks one (docs/architecture.md says
 * how that is checked).
 *
 * Every op is filled by both implementations (an op a backend does not
 * offer answers EOPNOTSUPP), except one whose comment says it is optional
 * by contract: the caller then checks for NULL.  tests/abi checks both
 * tables.
 *
 * Conventions (one for the whole interface, like the kernel's):
 *  - int-returning ops return 0 or a negative errno;
 *  - a command whose firmware status is not OK returns -EREMOTEIO with the
 *    whole outbox copied back, exactly as DEVX does for create/modify/query
 *    and general commands;
 *  - handle-returning ops return NULL and set errno.
 */
#ifndef MLX5EMU_BACKEND_BACKEND_H
#define MLX5EMU_BACKEND_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mlx5be_ctx;		/* one open device context: one DEVX uid */
struct mlx5be_obj;		/* a DEVX object, destroyed by handle */
struct mlx5be_umem;		/* registered user memory */
struct mlx5be_uar;		/* a UAR page mapped into the process */
struct mlx5be_event_channel;	/* DEVX event channel (pollable fd) */
struct mlx5be_cmd_comp;		/* async command completion (pollable fd) */

#define MLX5BE_NAME_MAX 64

/* What enumeration tells about a device before it is opened. */
struct mlx5be_device_info {
	char name[MLX5BE_NAME_MAX];	/* mlx5_0 */
	char dev_name[MLX5BE_NAME_MAX];	/* uverbs0 */
	char dev_path[256];		/* its uverbs class directory */
	char ibdev_path[256];		/* sysfs-like directory of the device */
	uint64_t node_guid;		/* big-endian, as verbs reports it */
	uint32_t vendor_id;
	uint32_t vendor_part_id;
};

struct mlx5be_uar_info {
	void *base_addr;	/* start of the UAR page in this process */
	void *reg_addr;		/* the doorbell/BlueFlame register */
	uint32_t page_id;	/* UAR index for PRM contexts */
	off_t mmap_off;		/* offset of the page in the context's cmd_fd */
};

/* Port attributes as the kernel reports them (ib_port_attr subset). */
struct mlx5be_port_attr {
	uint8_t state;		/* enum ibv_port_state */
	uint8_t max_mtu;	/* enum ibv_mtu */
	uint8_t active_mtu;
	uint8_t link_layer;	/* IBV_LINK_LAYER_* */
	uint8_t active_width;
	uint32_t active_speed;	/* ibv speed code; ext speeds above 0xff */
	uint8_t phys_state;
	uint32_t port_cap_flags;
	uint32_t port_cap_flags2;
	int gid_tbl_len;
	uint16_t pkey_tbl_len;
	uint32_t max_msg_sz;
	uint16_t lid, sm_lid;
	uint8_t lmc, sm_sl, max_vl_num, subnet_timeout, init_type_reply;
	uint32_t bad_pkey_cntr, qkey_viol_cntr;
};

struct mlx5be_gid_entry {
	uint8_t gid[16];
	uint32_t gid_index;
	uint32_t port_num;
	uint32_t gid_type;	/* enum ibv_gid_type_sysfs-like: 0 IB/RoCEv1, 1 RoCEv2 */
	uint32_t ndev_ifindex;
};

/* The fields mlx5dv_clock_info carries, kept by the kernel. */
struct mlx5be_clock_info {
	uint64_t nsec;
	uint64_t last_cycles;
	uint64_t frac;
	uint32_t mult;
	uint32_t shift;
	uint64_t mask;
};

/* One event read from a DEVX event channel: laid out as rdma-core's
 * mlx5dv_devx_async_event_hdr followed by the EQE data. */
struct mlx5be_event {
	uint64_t cookie;
	uint8_t eqe[64];	/* the EQE as the device wrote it */
};

/*
 * A rule at the kernel-owned NIC RX steering root, as mlx5_ib builds one
 * from mlx5dv_create_flow_matcher() and mlx5dv_create_flow(): a mask and a
 * value in fte_match_param layout (the same length), which parts of it the
 * mask uses, and the rule's priority.
 */
struct mlx5be_flow_match {
	uint8_t criteria_enable;	/* bit 0 outer headers, 1 misc, 2 inner ... */
	uint16_t priority;
	const void *mask;
	const void *value;
	size_t len;			/* bytes of each */
};

/* What such a rule does with what it matches (mlx5dv_flow_action_attr):
 * forward to dest (a TIR or a flow table) or drop it, and optionally tag
 * it (the CQE's flow tag, 24 bits) and count it in a flow counter. */
struct mlx5be_flow_act {
	struct mlx5be_obj *dest;	/* NULL: drop */
	bool has_tag;
	uint32_t tag;
	struct mlx5be_obj *counter;	/* NULL: none */
};

/* event_channel_create flags (rdma-core's
 * MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA). */
enum {
	MLX5BE_EVENT_CHANNEL_OMIT_DATA = 1 << 0,
};

/* An unaffiliated asynchronous event, as the kernel gives verbs users. */
struct mlx5be_async_event {
	uint32_t event_type;	/* enum ibv_event_type */
	uint32_t port_num;	/* port events */
};

struct mlx5be_async_cmd_resp {
	uint64_t wr_id;
	uint8_t *out;		/* caller-owned, outlen bytes */
	size_t outlen;
};

/*
 * A uverbs object as the kernel answers QUERY_PD (MLX5_IB_METHOD_PD_QUERY)
 * and QUERY_MR (UVERBS_METHOD_QUERY_MR) about it.
 */
enum mlx5be_uobj_type {
	MLX5BE_UOBJ_PD = 1,
	MLX5BE_UOBJ_MR,
};

struct mlx5be_uobj {
	enum mlx5be_uobj_type type;
	uint32_t pdn;			/* PD */
	uint32_t lkey, rkey;		/* MR */
	uint64_t length;		/* MR */
	uint32_t users;			/* PD, uobj_query only: uobj_hold's */
};

/* A completion the provider polled, as the data-path fault rules see it. */
struct mlx5be_dp_cqe {
	uint32_t qpn;
	bool rq;			/* a receive's (responder) completion */
	uint8_t opcode;			/* MLX5_OPCODE_* (receive: the message's) */
};

struct mlx5be_ops {
	const char *name;

	/* Devices (what the kernel's uverbs class shows). */
	int (*get_devices)(struct mlx5be_device_info *infos, int max);
	/* Opens device @index; returns the context and its cmd_fd. */
	int (*open)(int index, struct mlx5be_ctx **ctx, int *cmd_fd);
	/* The same, granting the user capabilities whose device nodes @fds
	 * are (mlx5dv_open_device's fd array): -EBADF a closed descriptor,
	 * -EINVAL one that is no ucap node, -EOPNOTSUPP a capability the
	 * firmware lacks (or the backend cannot pass ucaps). */
	int (*open_ucaps)(int index, const int *fds, uint32_t nfds,
			  struct mlx5be_ctx **ctx, int *cmd_fd);
	/* A context imported from a dup()ed cmd_fd of an open context; it
	 * shares that context's uid and objects.  @index: its device. */
	int (*import)(int cmd_fd, struct mlx5be_ctx **ctx, int *index);
	void (*close)(struct mlx5be_ctx *ctx);

	/* DEVX commands. */
	int (*general_cmd)(struct mlx5be_ctx *ctx, const void *in, size_t inlen,
			   void *out, size_t outlen);
	struct mlx5be_obj *(*obj_create)(struct mlx5be_ctx *ctx, const void *in,
					 size_t inlen, void *out, size_t outlen);
	int (*obj_modify)(struct mlx5be_obj *obj, const void *in, size_t inlen,
			  void *out, size_t outlen);
	int (*obj_query)(struct mlx5be_obj *obj, const void *in, size_t inlen,
			 void *out, size_t outlen);
	int (*obj_query_async)(struct mlx5be_obj *obj, const void *in,
			       size_t inlen, size_t outlen, uint64_t wr_id,
			       struct mlx5be_cmd_comp *comp);
	int (*obj_destroy)(struct mlx5be_obj *obj);

	struct mlx5be_cmd_comp *(*cmd_comp_create)(struct mlx5be_ctx *ctx);
	void (*cmd_comp_destroy)(struct mlx5be_cmd_comp *comp);
	int (*cmd_comp_fd)(struct mlx5be_cmd_comp *comp);
	int (*cmd_comp_get)(struct mlx5be_cmd_comp *comp,
			    struct mlx5be_async_cmd_resp *resp);

	/* Memory and doorbells. */
	struct mlx5be_umem *(*umem_reg)(struct mlx5be_ctx *ctx, void *addr,
					size_t size, uint32_t access,
					uint64_t pgsz_bitmap, uint32_t *umem_id);
	int (*umem_dereg)(struct mlx5be_umem *umem);
	/*
	 * The memory of a verbs MR with IBV_ACCESS_ON_DEMAND, as mlx5_ib
	 * takes it (ib_umem_odp_get): nothing is pinned, so the range need
	 * not be mapped now, and each device access sees the mapping of its
	 * moment (an access to nothing fails as an unresolved page fault).
	 * Same access bits and results as umem_reg, freed by umem_dereg.
	 * Optional by contract: NULL where verbs MRs are DEVX umems, which
	 * take no ODP (hardware), and the provider then offers none.
	 */
	struct mlx5be_umem *(*umem_reg_odp)(struct mlx5be_ctx *ctx, void *addr,
					    size_t size, uint32_t access,
					    uint64_t pgsz_bitmap,
					    uint32_t *umem_id);
	/*
	 * A prefetch of [@addr, @addr + @len) of an ODP umem (mlx5_ib's
	 * pagefault_mr for ibv_advise_mr with IBV_ADVISE_MR_FLAG_FLUSH): 0
	 * once every page is there (for writing when @write), -EFAULT when
	 * one cannot be.  Optional by contract, with umem_reg_odp.
	 */
	int (*umem_prefetch)(struct mlx5be_umem *umem, void *addr, size_t len,
			     bool write);
	struct mlx5be_uar *(*uar_alloc)(struct mlx5be_ctx *ctx, uint32_t flags,
					struct mlx5be_uar_info *info);
	void (*uar_free)(struct mlx5be_uar *uar);
	int (*query_eqn)(struct mlx5be_ctx *ctx, uint32_t vector, uint32_t *eqn);

	/*
	 * Events: DEVX event channels.  The fd polls readable while events
	 * wait (and once the channel's context is gone); O_NONBLOCK set on
	 * it makes reads answer -EAGAIN instead of waiting.  A subscription
	 * names an object, or none for unaffiliated events; _fd signals an
	 * eventfd instead of queueing.
	 */
	struct mlx5be_event_channel *(*event_channel_create)(struct mlx5be_ctx *ctx,
							     uint32_t flags);
	void (*event_channel_destroy)(struct mlx5be_event_channel *ch);
	int (*event_channel_fd)(struct mlx5be_event_channel *ch);
	int (*event_subscribe)(struct mlx5be_event_channel *ch,
			       struct mlx5be_obj *obj, const uint16_t *types,
			       size_t ntypes, uint64_t cookie);
	int (*event_subscribe_fd)(struct mlx5be_event_channel *ch,
				  struct mlx5be_obj *obj, uint16_t type, int fd);
	/* Reads one event into @ev (@len bytes of it): the length DEVX reads,
	 * 8 (the cookie) plus the EQE bytes (none with OMIT_DATA), or
	 * -EINVAL (@len too short), -EOVERFLOW (events were lost), -EIO (the
	 * context is gone), -EAGAIN, -EINTR. */
	ssize_t (*event_read)(struct mlx5be_event_channel *ch,
			      struct mlx5be_event *ev, size_t len);

	/* Kernel services. */
	int (*query_port)(struct mlx5be_ctx *ctx, uint32_t port,
			  struct mlx5be_port_attr *attr);
	int (*query_gid)(struct mlx5be_ctx *ctx, uint32_t port, uint32_t index,
			 struct mlx5be_gid_entry *entry);
	/* The destination MAC and VLAN id (0xffff: none) of @dgid, resolved
	 * through the netdev of source GID @sgid_index as the kernel does for
	 * an AH or a connected QP's path (ib_resolve_eth_dmac). */
	int (*gid_l2_addr)(struct mlx5be_ctx *ctx, uint32_t port,
			   uint32_t sgid_index, const uint8_t dgid[16],
			   uint8_t mac[6], uint16_t *vlan);
	/* A rule steering what @match matches as @act says; obj_destroy
	 * removes it. */
	struct mlx5be_obj *(*steering_root_attach)(struct mlx5be_ctx *ctx,
						   const struct mlx5be_flow_match *match,
						   const struct mlx5be_flow_act *act);
	/*
	 * The kernel's clock info page (struct mlx5_ib_clock_info), read as
	 * mlx5dv_get_clock_info reads it: 0, -EINVAL where the kernel maps
	 * no such page, -EBUSY while it is being rewritten.
	 */
	int (*clock_info)(struct mlx5be_ctx *ctx,
			  struct mlx5be_clock_info *info);
	/*
	 * The device's free-running internal timer now, in cycles of
	 * device_frequency_khz, as libmlx5 reads the init segment page the
	 * kernel maps at its core clock offset: 0, or -EOPNOTSUPP where
	 * there is no such mapping.
	 */
	int (*read_clock)(struct mlx5be_ctx *ctx, uint64_t *cycles);
	/*
	 * The kernel's in-place change of an MR's PD and access flags
	 * (mlx5_ib's umr_rereg_pd_access): mkey @mkey (a CREATE_MKEY object
	 * of this context) gets PD @pdn and IBV_ACCESS_* @access, keeping its
	 * key.  0 or a negative errno.  Optional by contract: NULL where it
	 * cannot be done (hardware through DEVX), and the caller makes a new
	 * mkey.
	 */
	int (*mkey_rereg)(struct mlx5be_obj *mkey, uint32_t pdn,
			  unsigned int access);
	/*
	 * The kernel's local loopback use by a raw packet QP whose TIR allows
	 * self loopback (mlx5_ib_enable_lb for a QP): TIR @tir (a CREATE_TIR
	 * object of this context, nonzero self_lb_block) holds it until
	 * obj_destroy.  The kernel may turn the vport's local loopback on
	 * here.  0 or a negative errno.  Optional by contract: NULL where
	 * the TIR is the caller's own DEVX object, which no kernel counts
	 * (hardware through DEVX).
	 */
	int (*tir_local_lb)(struct mlx5be_obj *tir);
	/*
	 * The context's unaffiliated asynchronous events as the kernel gives
	 * them to verbs (its async event file): port state changes and a
	 * fatal device error.  The fd polls readable while events wait; a
	 * read takes one: 0, or -EAGAIN when none waits (it never blocks).
	 */
	int (*async_event_fd)(struct mlx5be_ctx *ctx);
	int (*async_event_read)(struct mlx5be_ctx *ctx,
				struct mlx5be_async_event *ev);

	/*
	 * The uverbs object handles of the context's file, which a context
	 * imported from it shares (ibv_import_pd, ibv_import_mr).  uobj_add
	 * numbers a new PD or MR in the file; uobj_set replaces what it
	 * answers (an MR after a rereg); uobj_del forgets it; uobj_query is
	 * the kernel's lookup: -ENOENT for a handle naming nothing, -EINVAL
	 * for one naming an object of another type.  0 or a negative errno.
	 * Optional by contract, all four together: NULL where the backend's
	 * PDs and MRs are no uverbs objects (hardware through DEVX, whose
	 * handles name DEVX objects), and the provider numbers handles itself
	 * and cannot import.
	 */
	int (*uobj_add)(struct mlx5be_ctx *ctx, const struct mlx5be_uobj *uobj,
			uint32_t *handle);
	/* Optional by contract, with uobj_add. */
	int (*uobj_set)(struct mlx5be_ctx *ctx, uint32_t handle,
			const struct mlx5be_uobj *uobj);
	/* Optional by contract, with uobj_add. */
	void (*uobj_del)(struct mlx5be_ctx *ctx, uint32_t handle);
	/* Optional by contract, with uobj_add. */
	int (*uobj_query)(struct mlx5be_ctx *ctx, uint32_t handle,
			  enum mlx5be_uobj_type type, struct mlx5be_uobj *uobj);
	/* Optional by contract, with uobj_add.  Takes (@delta 1) or drops
	 * (-1) a use of PD @handle by an object made on an imported PD: the
	 * kernel's PD use count, which the original's ibv_dealloc_pd must
	 * find at 0 (ib_destroy_usecnt).  The lookup's errors. */
	int (*uobj_hold)(struct mlx5be_ctx *ctx, uint32_t handle, int delta);

	/*
	 * Device progress (@why: MLX5BE_PROGRESS_*): the provider just rang
	 * a doorbell, polled a CQ and found it empty, or is about to block
	 * for an event.  An in-process device may do device work on this
	 * thread here or wake its own thread; it costs no system call unless
	 * the device's thread is parked.  A device without a thread of its
	 * own moves only in these calls (a WAIT runs it until nothing is
	 * left to do).  Returns 1 when such a device also waits on the
	 * outside world (frames from another process): the caller must not
	 * block without calling again, and a WAIT then sleeps a little
	 * itself, on what the device waits for; 0 otherwise.
	 * Optional by contract: hardware leaves it NULL (the device needs no
	 * help), so callers check for NULL.
	 */
	int (*progress)(struct mlx5be_ctx *ctx, unsigned int why);

	/*
	 * Data-path fault rules for a device that does not apply them itself
	 * (hardware): whether a cqe_error rule fires on the successful
	 * completion @c the provider just polled, with the CQE's syndrome and
	 * vendor syndrome.  The rule counts the match either way.
	 * Optional by contract: the emulated device applies the rules to the
	 * WQEs it runs and leaves it NULL, so callers check for NULL.
	 */
	bool (*dp_verdict)(struct mlx5be_ctx *ctx, const struct mlx5be_dp_cqe *c,
			   uint8_t *syndrome, uint8_t *vendor);

	/*
	 * In a forked child, whether @ctx (inherited from the parent) lost
	 * its device.  An in-process device stays with the parent: the
	 * child's inherited contexts are then those of a device after a
	 * fatal error (commands fail with EIO, teardown succeeds, nothing
	 * completes), and the provider reports IBV_EVENT_DEVICE_FATAL on
	 * them.  Called by the provider's fork handler.
	 * Optional by contract: hardware leaves it NULL (the kernel shares
	 * the device with the child), so callers check for NULL.
	 */
	bool (*ctx_lost)(struct mlx5be_ctx *ctx);

	/*
	 * Whether the calling process may use raw packet queues: uverbs
	 * creates a raw packet QP or a flow only for a process with
	 * CAP_NET_RAW in its effective set (capable(CAP_NET_RAW)).  0, or
	 * -EPERM when it lacks it (or the capability cannot be read).
	 */
	int (*net_raw_check)(struct mlx5be_ctx *ctx);
};

/* Why the provider calls progress. */
enum {
	MLX5BE_PROGRESS_DOORBELL = 1,	/* sends or receives were posted */
	MLX5BE_PROGRESS_POLL = 2,	/* a CQ was polled and found empty */
	MLX5BE_PROGRESS_WAIT = 3,	/* about to block for an event */
};

/*
 * The backend bound for this process: the one the setting backend.kind
 * chooses (emu, hw or auto; docs/configuration.md), picked at the first
 * call, never in a library constructor.  backend_impl.h lists what it
 * chooses from.
 */
const struct mlx5be_ops *mlx5be_get(void);

#endif /* MLX5EMU_BACKEND_BACKEND_H */
