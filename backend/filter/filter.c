/* SPDX-License-Identifier: MIT */
/*
 * The filter: command fault injection and the command trace above an
 * implementation that cannot interpose them below itself (hw: the firmware
 * is the NIC's).  backend/backend_impl.h says why there and why once.
 *
 * Each command of the interface (general, create, modify, query, destroy)
 * goes through the hooks: a rule that fires answers it here, as DEVX would
 * give a failed firmware command back (-EREMOTEIO and an outbox holding
 * the rule's status and syndrome; for a destroy, the errno the kernel maps
 * the status to), and the implementation never sees it; otherwise the
 * implementation runs it.  Either way the trace gets its line.  A destroy
 * has no mailbox in the interface, so the filter keeps the one the kernel
 * derives from the create (the hooks' destroy_cmd) to match and trace.
 *
 * Contexts and objects are wrapped (the device's index and name, the
 * destroy inbox); every other handle is the implementation's own.  With no
 * rule and no trace a command costs one check of the hooks.
 *
 * Not interposed: async queries (their answers come back on the
 * implementation's completion fd, which the filter does not own), and the
 * commands the kernel issues on its own (UAR and umem registration, a
 * DCT's drain before its destroy): the emulator's firmware shows those.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "backend/backend_impl.h"
#include "prm/prm.h"

#define FILTER_MAX_DEVICES 64
/* The largest destroy inbox the kernel derives (delete_fte_in). */
#define FILTER_DESTROY_INBOX_MAX 64
/* A command's header: opcode, uid, op_mod (general_obj_in_cmd_hdr). */
#define FILTER_CMD_HDR 16

struct filter_ctx {
	struct mlx5be_ctx *inner;
	int dev;
	char name[MLX5BE_NAME_MAX];
};

struct filter_obj {
	struct mlx5be_obj *inner;
	struct filter_ctx *fctx;
	size_t destroy_inlen, destroy_outlen;	/* 0: none known */
	uint8_t destroy_in[FILTER_DESTROY_INBOX_MAX];
};

static struct {
	pthread_mutex_t lock;
	const struct mlx5be_ops *impl;
	const struct mlx5be_cmd_hooks *hooks;
	/* Device names by index, from the last enumeration. */
	char names[FILTER_MAX_DEVICES][MLX5BE_NAME_MAX];
} filter = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct filter_ctx *fctx_of(struct mlx5be_ctx *c)
{
	return (struct filter_ctx *)c;
}

static struct filter_obj *fobj_of(struct mlx5be_obj *o)
{
	return (struct filter_obj *)o;
}

static uint64_t filter_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- one command through the hooks ---- */

struct filter_cmd {
	struct filter_ctx *fctx;
	const void *in;
	size_t inlen;
	void *out;
	size_t outlen;
	bool active;		/* hooks were consulted */
	uint64_t t0;
};

/*
 * Before the implementation runs the command: true when a rule answered it
 * (the outbox holds the rule's status and syndrome, the line is written).
 */
static bool filter_pre(struct filter_cmd *c)
{
	const struct mlx5be_cmd_hooks *h = filter.hooks;
	uint32_t syndrome = 0;
	uint8_t status = 0;

	c->active = h->active() && c->inlen >= FILTER_CMD_HDR;
	if (!c->active)
		return false;
	c->t0 = filter_now_ns();
	if (!h->pre_cmd(c->fctx->dev, c->in, c->inlen, &status, &syndrome))
		return false;
	memset(c->out, 0, c->outlen);
	if (c->outlen >= FILTER_CMD_HDR) {
		PRM_SET(mbox_out, c->out, status, status);
		PRM_SET(mbox_out, c->out, syndrome, syndrome);
	}
	h->post_cmd(c->fctx->name, c->in, c->inlen, c->out, c->outlen, 0,
		    filter_now_ns() - c->t0, true);
	return true;
}

/* After it: its line, with the outbox when DEVX gave one back. */
static void filter_post(const struct filter_cmd *c, int ret)
{
	bool outbox = !ret || ret == -EREMOTEIO;

	if (!c->active)
		return;
	filter.hooks->post_cmd(c->fctx->name, c->in, c->inlen,
			       outbox ? c->out : NULL, outbox ? c->outlen : 0,
			       outbox ? 0 : -ret, filter_now_ns() - c->t0, false);
}

/* ---- devices and contexts ---- */

static int filter_get_devices(struct mlx5be_device_info *infos, int max)
{
	int n = filter.impl->get_devices(infos, max);

	pthread_mutex_lock(&filter.lock);
	for (int i = 0; i < n && i < FILTER_MAX_DEVICES; i++)
		memcpy(filter.names[i], infos[i].name, MLX5BE_NAME_MAX);
	pthread_mutex_unlock(&filter.lock);
	return n;
}

/* The name device @index had at the last enumeration. */
static void filter_dev_name(int index, char *name)
{
	snprintf(name, MLX5BE_NAME_MAX, "dev%d", index);
	pthread_mutex_lock(&filter.lock);
	if (index >= 0 && index < FILTER_MAX_DEVICES && filter.names[index][0])
		memcpy(name, filter.names[index], MLX5BE_NAME_MAX);
	pthread_mutex_unlock(&filter.lock);
}

static struct filter_ctx *filter_ctx_wrap(struct mlx5be_ctx *inner, int index)
{
	struct filter_ctx *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->inner = inner;
	f->dev = index;
	filter_dev_name(index, f->name);
	return f;
}

/* The implementation's answer @ret, its context @inner wrapped. */
static int filter_opened(int ret, struct mlx5be_ctx *inner, int index,
			 struct mlx5be_ctx **ctx)
{
	struct filter_ctx *f;

	if (ret)
		return ret;
	f = filter_ctx_wrap(inner, index);
	if (!f) {
		filter.impl->close(inner);
		return -ENOMEM;
	}
	*ctx = (struct mlx5be_ctx *)f;
	return 0;
}

static int filter_open(int index, struct mlx5be_ctx **ctx, int *cmd_fd)
{
	struct mlx5be_ctx *inner = NULL;
	int ret = filter.impl->open(index, &inner, cmd_fd);

	return filter_opened(ret, inner, index, ctx);
}

static int filter_open_ucaps(int index, const int *fds, uint32_t nfds,
			     struct mlx5be_ctx **ctx, int *cmd_fd)
{
	struct mlx5be_ctx *inner = NULL;
	int ret = filter.impl->open_ucaps(index, fds, nfds, &inner, cmd_fd);

	return filter_opened(ret, inner, index, ctx);
}

static int filter_import(int cmd_fd, struct mlx5be_ctx **ctx, int *index)
{
	struct mlx5be_ctx *inner = NULL;
	int ret = filter.impl->import(cmd_fd, &inner, index);

	return filter_opened(ret, inner, ret ? 0 : *index, ctx);
}

static void filter_close(struct mlx5be_ctx *ctx)
{
	filter.impl->close(fctx_of(ctx)->inner);
	free(fctx_of(ctx));
}

/* ---- commands ---- */

static int filter_general_cmd(struct mlx5be_ctx *ctx, const void *in,
			      size_t inlen, void *out, size_t outlen)
{
	struct filter_cmd c = { fctx_of(ctx), in, inlen, out, outlen };
	int ret;

	if (filter_pre(&c))
		return -EREMOTEIO;
	ret = filter.impl->general_cmd(c.fctx->inner, in, inlen, out, outlen);
	filter_post(&c, ret);
	return ret;
}

static struct filter_obj *filter_obj_wrap(struct filter_ctx *fctx,
					  struct mlx5be_obj *inner)
{
	struct filter_obj *o = calloc(1, sizeof(*o));

	if (o) {
		o->inner = inner;
		o->fctx = fctx;
	}
	return o;
}

static struct mlx5be_obj *filter_obj_create(struct mlx5be_ctx *ctx,
					    const void *in, size_t inlen,
					    void *out, size_t outlen)
{
	struct filter_cmd c = { fctx_of(ctx), in, inlen, out, outlen };
	struct mlx5be_obj *inner;
	struct filter_obj *o;
	int err;

	if (filter_pre(&c)) {
		errno = EREMOTEIO;
		return NULL;
	}
	inner = filter.impl->obj_create(c.fctx->inner, in, inlen, out, outlen);
	err = inner ? 0 : errno;
	filter_post(&c, -err);
	if (!inner) {
		errno = err;
		return NULL;
	}
	o = filter_obj_wrap(c.fctx, inner);
	if (!o) {
		filter.impl->obj_destroy(inner);
		errno = ENOMEM;
		return NULL;
	}
	/* The kernel keeps the destroy command of what it created. */
	if (filter.hooks->destroy_cmd(in, out, o->destroy_in,
				      sizeof(o->destroy_in), &o->destroy_inlen,
				      &o->destroy_outlen))
		o->destroy_inlen = 0;
	return (struct mlx5be_obj *)o;
}

typedef int (*filter_obj_cmd_fn)(struct mlx5be_obj *obj, const void *in,
				 size_t inlen, void *out, size_t outlen);

/* A modify or a query of @obj, run by @fn (the implementation's). */
static int filter_obj_cmd(struct mlx5be_obj *obj, const void *in, size_t inlen,
			  void *out, size_t outlen, filter_obj_cmd_fn fn)
{
	struct filter_obj *o = fobj_of(obj);
	struct filter_cmd c = { o->fctx, in, inlen, out, outlen };
	int ret;

	if (filter_pre(&c))
		return -EREMOTEIO;
	ret = fn(o->inner, in, inlen, out, outlen);
	filter_post(&c, ret);
	return ret;
}

static int filter_obj_modify(struct mlx5be_obj *obj, const void *in,
			     size_t inlen, void *out, size_t outlen)
{
	return filter_obj_cmd(obj, in, inlen, out, outlen,
			      filter.impl->obj_modify);
}

static int filter_obj_query(struct mlx5be_obj *obj, const void *in,
			    size_t inlen, void *out, size_t outlen)
{
	return filter_obj_cmd(obj, in, inlen, out, outlen,
			      filter.impl->obj_query);
}

static int filter_obj_query_async(struct mlx5be_obj *obj, const void *in,
				  size_t inlen, size_t outlen, uint64_t wr_id,
				  struct mlx5be_cmd_comp *comp)
{
	return filter.impl->obj_query_async(fobj_of(obj)->inner, in, inlen,
					    outlen, wr_id, comp);
}

static int filter_obj_destroy(struct mlx5be_obj *obj)
{
	struct filter_obj *o = fobj_of(obj);
	uint8_t out[FILTER_CMD_HDR] = { 0 };
	struct filter_cmd c = { o->fctx, o->destroy_in, o->destroy_inlen, out,
				o->destroy_outlen < sizeof(out) ?
				o->destroy_outlen : sizeof(out) };
	int ret;

	if (filter_pre(&c))	/* mlx5_cmd_exec()'s errno, as the kernel's */
		return -filter.hooks->status_errno(PRM_GET(mbox_out, out, status));
	ret = filter.impl->obj_destroy(o->inner);
	filter_post(&c, ret);
	if (!ret)
		free(o);
	return ret;
}

/* ---- the rest passes through ---- */

static struct mlx5be_cmd_comp *filter_cmd_comp_create(struct mlx5be_ctx *ctx)
{
	return filter.impl->cmd_comp_create(fctx_of(ctx)->inner);
}

static void filter_cmd_comp_destroy(struct mlx5be_cmd_comp *comp)
{
	filter.impl->cmd_comp_destroy(comp);
}

static int filter_cmd_comp_fd(struct mlx5be_cmd_comp *comp)
{
	return filter.impl->cmd_comp_fd(comp);
}

static int filter_cmd_comp_get(struct mlx5be_cmd_comp *comp,
			       struct mlx5be_async_cmd_resp *resp)
{
	return filter.impl->cmd_comp_get(comp, resp);
}

static struct mlx5be_umem *filter_umem_reg(struct mlx5be_ctx *ctx, void *addr,
					   size_t size, uint32_t access,
					   uint64_t pgsz_bitmap,
					   uint32_t *umem_id)
{
	return filter.impl->umem_reg(fctx_of(ctx)->inner, addr, size, access,
				     pgsz_bitmap, umem_id);
}

static int filter_umem_dereg(struct mlx5be_umem *umem)
{
	return filter.impl->umem_dereg(umem);
}

static struct mlx5be_uar *filter_uar_alloc(struct mlx5be_ctx *ctx,
					   uint32_t flags,
					   struct mlx5be_uar_info *info)
{
	return filter.impl->uar_alloc(fctx_of(ctx)->inner, flags, info);
}

static void filter_uar_free(struct mlx5be_uar *uar)
{
	filter.impl->uar_free(uar);
}

static int filter_query_eqn(struct mlx5be_ctx *ctx, uint32_t vector,
			    uint32_t *eqn)
{
	return filter.impl->query_eqn(fctx_of(ctx)->inner, vector, eqn);
}

static struct mlx5be_event_channel *
filter_event_channel_create(struct mlx5be_ctx *ctx, uint32_t flags)
{
	return filter.impl->event_channel_create(fctx_of(ctx)->inner, flags);
}

static void filter_event_channel_destroy(struct mlx5be_event_channel *ch)
{
	filter.impl->event_channel_destroy(ch);
}

static int filter_event_channel_fd(struct mlx5be_event_channel *ch)
{
	return filter.impl->event_channel_fd(ch);
}

static int filter_event_subscribe(struct mlx5be_event_channel *ch,
				  struct mlx5be_obj *obj, const uint16_t *types,
				  size_t ntypes, uint64_t cookie)
{
	return filter.impl->event_subscribe(ch, obj ? fobj_of(obj)->inner : NULL,
					    types, ntypes, cookie);
}

static int filter_event_subscribe_fd(struct mlx5be_event_channel *ch,
				     struct mlx5be_obj *obj, uint16_t type,
				     int fd)
{
	return filter.impl->event_subscribe_fd(ch,
					       obj ? fobj_of(obj)->inner : NULL,
					       type, fd);
}

static ssize_t filter_event_read(struct mlx5be_event_channel *ch,
				 struct mlx5be_event *ev, size_t len)
{
	return filter.impl->event_read(ch, ev, len);
}

static int filter_query_port(struct mlx5be_ctx *ctx, uint32_t port,
			     struct mlx5be_port_attr *attr)
{
	return filter.impl->query_port(fctx_of(ctx)->inner, port, attr);
}

static int filter_query_gid(struct mlx5be_ctx *ctx, uint32_t port,
			    uint32_t index, struct mlx5be_gid_entry *entry)
{
	return filter.impl->query_gid(fctx_of(ctx)->inner, port, index, entry);
}

static int filter_gid_l2_addr(struct mlx5be_ctx *ctx, uint32_t port,
			      uint32_t sgid_index, const uint8_t dgid[16],
			      uint8_t mac[6], uint16_t *vlan)
{
	return filter.impl->gid_l2_addr(fctx_of(ctx)->inner, port, sgid_index,
					dgid, mac, vlan);
}

static struct mlx5be_obj *
filter_steering_root_attach(struct mlx5be_ctx *ctx,
			    const struct mlx5be_flow_match *match,
			    const struct mlx5be_flow_act *act)
{
	struct filter_ctx *f = fctx_of(ctx);
	struct mlx5be_flow_act in = *act;
	struct mlx5be_obj *inner;
	struct filter_obj *o;

	if (in.dest)
		in.dest = fobj_of(in.dest)->inner;
	if (in.counter)
		in.counter = fobj_of(in.counter)->inner;
	inner = filter.impl->steering_root_attach(f->inner, match, &in);
	if (!inner)
		return NULL;
	o = filter_obj_wrap(f, inner);	/* no destroy command: the kernel's */
	if (!o) {
		filter.impl->obj_destroy(inner);
		errno = ENOMEM;
		return NULL;
	}
	return (struct mlx5be_obj *)o;
}

static int filter_clock_info(struct mlx5be_ctx *ctx,
			     struct mlx5be_clock_info *info)
{
	return filter.impl->clock_info(fctx_of(ctx)->inner, info);
}

static int filter_read_clock(struct mlx5be_ctx *ctx, uint64_t *cycles)
{
	return filter.impl->read_clock(fctx_of(ctx)->inner, cycles);
}

static int filter_async_event_fd(struct mlx5be_ctx *ctx)
{
	return filter.impl->async_event_fd(fctx_of(ctx)->inner);
}

static int filter_async_event_read(struct mlx5be_ctx *ctx,
				   struct mlx5be_async_event *ev)
{
	return filter.impl->async_event_read(fctx_of(ctx)->inner, ev);
}

static int filter_net_raw_check(struct mlx5be_ctx *ctx)
{
	return filter.impl->net_raw_check(fctx_of(ctx)->inner);
}

/* The device below applies no rule of ours: the provider asks here. */
static bool filter_dp_verdict(struct mlx5be_ctx *ctx,
			      const struct mlx5be_dp_cqe *c, uint8_t *syndrome,
			      uint8_t *vendor)
{
	const struct mlx5be_cmd_hooks *h = filter.hooks;

	return h->dp_verdict &&
	       h->dp_verdict(fctx_of(ctx)->dev, c, syndrome, vendor);
}

static struct mlx5be_ops filter_ops = {
	.get_devices = filter_get_devices,
	.open = filter_open,
	.open_ucaps = filter_open_ucaps,
	.import = filter_import,
	.close = filter_close,
	.general_cmd = filter_general_cmd,
	.obj_create = filter_obj_create,
	.obj_modify = filter_obj_modify,
	.obj_query = filter_obj_query,
	.obj_query_async = filter_obj_query_async,
	.obj_destroy = filter_obj_destroy,
	.cmd_comp_create = filter_cmd_comp_create,
	.cmd_comp_destroy = filter_cmd_comp_destroy,
	.cmd_comp_fd = filter_cmd_comp_fd,
	.cmd_comp_get = filter_cmd_comp_get,
	.umem_reg = filter_umem_reg,
	.umem_dereg = filter_umem_dereg,
	.uar_alloc = filter_uar_alloc,
	.uar_free = filter_uar_free,
	.query_eqn = filter_query_eqn,
	.event_channel_create = filter_event_channel_create,
	.event_channel_destroy = filter_event_channel_destroy,
	.event_channel_fd = filter_event_channel_fd,
	.event_subscribe = filter_event_subscribe,
	.event_subscribe_fd = filter_event_subscribe_fd,
	.event_read = filter_event_read,
	.query_port = filter_query_port,
	.query_gid = filter_query_gid,
	.gid_l2_addr = filter_gid_l2_addr,
	.steering_root_attach = filter_steering_root_attach,
	.clock_info = filter_clock_info,
	.read_clock = filter_read_clock,
	.async_event_fd = filter_async_event_fd,
	.async_event_read = filter_async_event_read,
	.net_raw_check = filter_net_raw_check,
	.dp_verdict = filter_dp_verdict,
};

const struct mlx5be_ops *mlx5be_filter_bind(const struct mlx5be_ops *impl,
					    const struct mlx5be_cmd_hooks *hooks)
{
	bool first;

	pthread_mutex_lock(&filter.lock);
	first = !filter.impl;
	if (first) {
		filter.impl = impl;
		filter.hooks = hooks;
		filter_ops.name = impl->name;
	}
	pthread_mutex_unlock(&filter.lock);
	/* Outside the lock: the hooks take their own. */
	if (first)
		hooks->start();
	return &filter_ops;
}
