/* SPDX-License-Identifier: MIT */
/*
 * The emulator inside the double, called on a thread of the double's own.
 *
 * The double lives in another link-map namespace with its own libc, and the
 * emulator in it registers each thread that reads its object tables with
 * liburcu-bp, whose thread-exit destructor is a pthread key of that libc.
 * A thread the program created exits through the program's libc, which
 * would run the program's destructor of the same key index on the
 * namespace's data.  So the program's threads never enter the emulator:
 * every call is handed to one thread the double created, and the caller
 * waits for its answer (errno included).  Reads that only wait on a
 * descriptor (async command completions, events) take no table and run on
 * the caller's thread.  After fork() the child, whose copy of that thread
 * is gone, starts one of its own.
 *
 * rdma-core has no such thread and no such need; this is the double's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend_impl.h"
#include "hwd.h"

#define E (&mlx5be_emu_ops)

enum hwd_op_kind {
	OP_GET_DEVICES, OP_OPEN, OP_IMPORT, OP_CLOSE, OP_GENERAL_CMD,
	OP_OBJ_CREATE, OP_OBJ_MODIFY, OP_OBJ_QUERY, OP_OBJ_QUERY_ASYNC,
	OP_OBJ_DESTROY, OP_CMD_COMP_CREATE, OP_CMD_COMP_DESTROY, OP_UMEM_REG,
	OP_UMEM_DEREG, OP_UAR_ALLOC, OP_UAR_FREE, OP_QUERY_EQN,
	OP_EVENT_CHANNEL_CREATE, OP_EVENT_CHANNEL_DESTROY, OP_EVENT_SUBSCRIBE,
	OP_EVENT_SUBSCRIBE_FD,
	OP_QUERY_PORT, OP_QUERY_GID, OP_GID_L2_ADDR, OP_CLOCK_INFO, OP_READ_CLOCK,
};

/* One call: its arguments by position, its results. */
struct hwd_op {
	enum hwd_op_kind kind;
	void *p0, *p1, *p2, *p3;
	const void *c0;
	size_t n0, n1;
	uint64_t u0, u1;
	long ret;
	void *ptr;
	int err;
	bool done;
	struct hwd_op *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct hwd_op *head, *tail;
	pid_t pid;			/* the process that owns the thread */
	pthread_t thread;
} hx;

static void hwd_op_run(struct hwd_op *o)
{
	errno = 0;
	switch (o->kind) {
	case OP_GET_DEVICES:
		o->ret = E->get_devices(o->p0, (int)o->n0);
		break;
	case OP_OPEN:
		o->ret = E->open((int)o->n0, o->p0, o->p1);
		break;
	case OP_IMPORT:
		o->ret = E->import((int)o->n0, o->p0, o->p1);
		break;
	case OP_CLOSE:
		E->close(o->p0);
		break;
	case OP_GENERAL_CMD:
		o->ret = E->general_cmd(o->p0, o->c0, o->n0, o->p1, o->n1);
		break;
	case OP_OBJ_CREATE:
		o->ptr = E->obj_create(o->p0, o->c0, o->n0, o->p1, o->n1);
		break;
	case OP_OBJ_MODIFY:
		o->ret = E->obj_modify(o->p0, o->c0, o->n0, o->p1, o->n1);
		break;
	case OP_OBJ_QUERY:
		o->ret = E->obj_query(o->p0, o->c0, o->n0, o->p1, o->n1);
		break;
	case OP_OBJ_QUERY_ASYNC:
		o->ret = E->obj_query_async(o->p0, o->c0, o->n0, o->n1, o->u0,
					    o->p1);
		break;
	case OP_OBJ_DESTROY:
		o->ret = E->obj_destroy(o->p0);
		break;
	case OP_CMD_COMP_CREATE:
		o->ptr = E->cmd_comp_create(o->p0);
		break;
	case OP_CMD_COMP_DESTROY:
		E->cmd_comp_destroy(o->p0);
		break;
	case OP_UMEM_REG:
		o->ptr = E->umem_reg(o->p0, o->p1, o->n0, (uint32_t)o->u0, o->u1,
				     o->p2);
		break;
	case OP_UMEM_DEREG:
		o->ret = E->umem_dereg(o->p0);
		break;
	case OP_UAR_ALLOC:
		o->ptr = E->uar_alloc(o->p0, (uint32_t)o->u0, o->p1);
		break;
	case OP_UAR_FREE:
		E->uar_free(o->p0);
		break;
	case OP_QUERY_EQN:
		o->ret = E->query_eqn(o->p0, (uint32_t)o->u0, o->p1);
		break;
	case OP_EVENT_CHANNEL_CREATE:
		o->ptr = E->event_channel_create(o->p0, (uint32_t)o->u0);
		break;
	case OP_EVENT_CHANNEL_DESTROY:
		E->event_channel_destroy(o->p0);
		break;
	case OP_EVENT_SUBSCRIBE:
		o->ret = E->event_subscribe(o->p0, o->p1, o->c0, o->n0, o->u0);
		break;
	case OP_EVENT_SUBSCRIBE_FD:
		o->ret = E->event_subscribe_fd(o->p0, o->p1, (uint16_t)o->u0,
					       (int)o->n0);
		break;
	case OP_QUERY_PORT:
		o->ret = E->query_port(o->p0, (uint32_t)o->u0, o->p1);
		break;
	case OP_QUERY_GID:
		o->ret = E->query_gid(o->p0, (uint32_t)o->u0, (uint32_t)o->u1,
				      o->p1);
		break;
	case OP_GID_L2_ADDR:
		o->ret = E->gid_l2_addr(o->p0, (uint32_t)o->u0, (uint32_t)o->u1,
					o->c0, o->p1, o->p2);
		break;
	case OP_CLOCK_INFO:
		o->ret = E->clock_info(o->p0, o->p1);
		break;
	case OP_READ_CLOCK:
		o->ret = E->read_clock(o->p0, o->p1);
		break;
	}
	o->err = errno;
}

static void *hwd_exec_thread(void *arg)
{
	pthread_mutex_lock(&hx.lock);
	for (;;) {
		struct hwd_op *o;

		while (!hx.head)
			pthread_cond_wait(&hx.work, &hx.lock);
		o = hx.head;
		hx.head = o->next;
		if (!hx.head)
			hx.tail = NULL;
		pthread_mutex_unlock(&hx.lock);
		hwd_op_run(o);
		pthread_mutex_lock(&hx.lock);
		o->done = true;
		pthread_cond_broadcast(&hx.done);
	}
	return NULL;
}

/* The thread of this process (a forked child starts its own). */
static void hwd_exec_start(void)
{
	pid_t pid = getpid();

	if (hx.pid == pid)
		return;
	pthread_mutex_init(&hx.lock, NULL);
	pthread_cond_init(&hx.work, NULL);
	pthread_cond_init(&hx.done, NULL);
	hx.head = hx.tail = NULL;
	if (pthread_create(&hx.thread, NULL, hwd_exec_thread, NULL))
		abort();
	pthread_detach(hx.thread);
	hx.pid = pid;
}

static void hwd_exec(struct hwd_op *o)
{
	hwd_exec_start();
	if (pthread_equal(pthread_self(), hx.thread)) {
		hwd_op_run(o);
		return;
	}
	pthread_mutex_lock(&hx.lock);
	if (hx.tail)
		hx.tail->next = o;
	else
		hx.head = o;
	hx.tail = o;
	pthread_cond_signal(&hx.work);
	while (!o->done)
		pthread_cond_wait(&hx.done, &hx.lock);
	pthread_mutex_unlock(&hx.lock);
}

/* Runs @o there; its int result (errno as the op left it). */
static int hwd_int(struct hwd_op *o)
{
	hwd_exec(o);
	errno = o->err;
	return (int)o->ret;
}

static void *hwd_ptr(struct hwd_op *o)
{
	hwd_exec(o);
	errno = o->err;
	return o->ptr;
}

static int x_get_devices(struct mlx5be_device_info *infos, int max)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_GET_DEVICES, .p0 = infos,
					 .n0 = (size_t)max });
}

static int x_open(int index, struct mlx5be_ctx **ctx, int *cmd_fd)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_OPEN, .n0 = (size_t)index,
					 .p0 = ctx, .p1 = cmd_fd });
}

static int x_import(int cmd_fd, struct mlx5be_ctx **ctx, int *index)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_IMPORT, .n0 = (size_t)cmd_fd,
					 .p0 = ctx, .p1 = index });
}

static void x_close(struct mlx5be_ctx *ctx)
{
	hwd_int(&(struct hwd_op){ .kind = OP_CLOSE, .p0 = ctx });
}

static int x_general_cmd(struct mlx5be_ctx *ctx, const void *in, size_t inlen,
			 void *out, size_t outlen)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_GENERAL_CMD, .p0 = ctx,
					 .c0 = in, .n0 = inlen, .p1 = out,
					 .n1 = outlen });
}

static struct mlx5be_obj *x_obj_create(struct mlx5be_ctx *ctx, const void *in,
				       size_t inlen, void *out, size_t outlen)
{
	return hwd_ptr(&(struct hwd_op){ .kind = OP_OBJ_CREATE, .p0 = ctx,
					 .c0 = in, .n0 = inlen, .p1 = out,
					 .n1 = outlen });
}

static int x_obj_modify(struct mlx5be_obj *obj, const void *in, size_t inlen,
			void *out, size_t outlen)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_OBJ_MODIFY, .p0 = obj,
					 .c0 = in, .n0 = inlen, .p1 = out,
					 .n1 = outlen });
}

static int x_obj_query(struct mlx5be_obj *obj, const void *in, size_t inlen,
		       void *out, size_t outlen)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_OBJ_QUERY, .p0 = obj,
					 .c0 = in, .n0 = inlen, .p1 = out,
					 .n1 = outlen });
}

static int x_obj_query_async(struct mlx5be_obj *obj, const void *in,
			     size_t inlen, size_t outlen, uint64_t wr_id,
			     struct mlx5be_cmd_comp *comp)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_OBJ_QUERY_ASYNC, .p0 = obj,
					 .c0 = in, .n0 = inlen, .n1 = outlen,
					 .u0 = wr_id, .p1 = comp });
}

static int x_obj_destroy(struct mlx5be_obj *obj)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_OBJ_DESTROY, .p0 = obj });
}

static struct mlx5be_cmd_comp *x_cmd_comp_create(struct mlx5be_ctx *ctx)
{
	return hwd_ptr(&(struct hwd_op){ .kind = OP_CMD_COMP_CREATE, .p0 = ctx });
}

static void x_cmd_comp_destroy(struct mlx5be_cmd_comp *comp)
{
	hwd_int(&(struct hwd_op){ .kind = OP_CMD_COMP_DESTROY, .p0 = comp });
}

static struct mlx5be_umem *x_umem_reg(struct mlx5be_ctx *ctx, void *addr,
				      size_t size, uint32_t access,
				      uint64_t pgsz_bitmap, uint32_t *umem_id)
{
	return hwd_ptr(&(struct hwd_op){ .kind = OP_UMEM_REG, .p0 = ctx,
					 .p1 = addr, .n0 = size, .u0 = access,
					 .u1 = pgsz_bitmap, .p2 = umem_id });
}

static int x_umem_dereg(struct mlx5be_umem *umem)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_UMEM_DEREG, .p0 = umem });
}

static struct mlx5be_uar *x_uar_alloc(struct mlx5be_ctx *ctx, uint32_t flags,
				      struct mlx5be_uar_info *info)
{
	return hwd_ptr(&(struct hwd_op){ .kind = OP_UAR_ALLOC, .p0 = ctx,
					 .u0 = flags, .p1 = info });
}

static void x_uar_free(struct mlx5be_uar *uar)
{
	hwd_int(&(struct hwd_op){ .kind = OP_UAR_FREE, .p0 = uar });
}

static int x_query_eqn(struct mlx5be_ctx *ctx, uint32_t vector, uint32_t *eqn)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_QUERY_EQN, .p0 = ctx,
					 .u0 = vector, .p1 = eqn });
}

static struct mlx5be_event_channel *x_event_channel_create(struct mlx5be_ctx *ctx,
							   uint32_t flags)
{
	return hwd_ptr(&(struct hwd_op){ .kind = OP_EVENT_CHANNEL_CREATE,
					 .p0 = ctx, .u0 = flags });
}

static void x_event_channel_destroy(struct mlx5be_event_channel *ch)
{
	hwd_int(&(struct hwd_op){ .kind = OP_EVENT_CHANNEL_DESTROY, .p0 = ch });
}

static int x_event_subscribe(struct mlx5be_event_channel *ch,
			     struct mlx5be_obj *obj, const uint16_t *types,
			     size_t ntypes, uint64_t cookie)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_EVENT_SUBSCRIBE, .p0 = ch,
					 .p1 = obj, .c0 = types, .n0 = ntypes,
					 .u0 = cookie });
}

static int x_event_subscribe_fd(struct mlx5be_event_channel *ch,
				struct mlx5be_obj *obj, uint16_t type, int fd)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_EVENT_SUBSCRIBE_FD,
					 .p0 = ch, .p1 = obj, .u0 = type,
					 .n0 = (size_t)fd });
}

static int x_query_port(struct mlx5be_ctx *ctx, uint32_t port,
			struct mlx5be_port_attr *attr)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_QUERY_PORT, .p0 = ctx,
					 .u0 = port, .p1 = attr });
}

static int x_query_gid(struct mlx5be_ctx *ctx, uint32_t port, uint32_t index,
		       struct mlx5be_gid_entry *entry)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_QUERY_GID, .p0 = ctx,
					 .u0 = port, .u1 = index, .p1 = entry });
}

static int x_gid_l2_addr(struct mlx5be_ctx *ctx, uint32_t port,
			 uint32_t sgid_index, const uint8_t dgid[16],
			 uint8_t mac[6], uint16_t *vlan)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_GID_L2_ADDR, .p0 = ctx,
					 .u0 = port, .u1 = sgid_index,
					 .c0 = dgid, .p1 = mac, .p2 = vlan });
}

static int x_clock_info(struct mlx5be_ctx *ctx, struct mlx5be_clock_info *info)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_CLOCK_INFO, .p0 = ctx,
					 .p1 = info });
}

static int x_read_clock(struct mlx5be_ctx *ctx, uint64_t *cycles)
{
	return hwd_int(&(struct hwd_op){ .kind = OP_READ_CLOCK, .p0 = ctx,
					 .p1 = cycles });
}

/* The emulator's ops, run on the double's thread; those that only touch a
 * descriptor or a ucontext's queue of async events (cmd_comp_fd/get,
 * event_channel_fd, event_read, async_event_fd/read) are left out: call
 * mlx5be_emu_ops for them. */
const struct mlx5be_ops hwd_emu = {
	.name = "emu",
	.get_devices = x_get_devices,
	.open = x_open,
	.import = x_import,
	.close = x_close,
	.general_cmd = x_general_cmd,
	.obj_create = x_obj_create,
	.obj_modify = x_obj_modify,
	.obj_query = x_obj_query,
	.obj_query_async = x_obj_query_async,
	.obj_destroy = x_obj_destroy,
	.cmd_comp_create = x_cmd_comp_create,
	.cmd_comp_destroy = x_cmd_comp_destroy,
	.umem_reg = x_umem_reg,
	.umem_dereg = x_umem_dereg,
	.uar_alloc = x_uar_alloc,
	.uar_free = x_uar_free,
	.query_eqn = x_query_eqn,
	.event_channel_create = x_event_channel_create,
	.event_channel_destroy = x_event_channel_destroy,
	.event_subscribe = x_event_subscribe,
	.event_subscribe_fd = x_event_subscribe_fd,
	.query_port = x_query_port,
	.query_gid = x_query_gid,
	.gid_l2_addr = x_gid_l2_addr,
	.clock_info = x_clock_info,
	.read_clock = x_read_clock,
};
