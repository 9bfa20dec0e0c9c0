/* SPDX-License-Identifier: MIT */
/*
 * The double's libibverbs.so.1: the device list (the emulator's devices,
 * after an optional non-mlx5 one), contexts, and the entries the hw
 * backend calls (ibv_get_device_list ... ibv_resolve_eth_l2_from_gid).
 *
 * Knobs (README.md): HWDOUBLE_MARK is read at each open, as libmlx5 reads
 * its MLX5_* variables, and recorded; HWDOUBLE_EXTRA_DEVICE=NAME lists a device no mlx5
 * driver claims first; HWDOUBLE_NO_KERNEL=1 answers as rdma-core does on a
 * kernel without RDMA support (NULL, ENOSYS); HWDOUBLE_DLOPEN=NAME has each
 * enumeration dlopen() NAME by its bare name, as rdma-core's driver loader
 * does for RDMAV_DRIVERS, so the library path is searched inside the
 * namespace.
 */
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_impl.h"
#include "hwd.h"

#define HWD_MAX_DEVICES 17

static pthread_mutex_t hwd_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hwd_device hwd_devs[HWD_MAX_DEVICES];
static int hwd_ndevs = -1;

/* A name of the backend's into rdma-core's (possibly shorter) field. */
static void hwd_copy(char *dst, size_t len, const char *src, size_t srclen)
{
	size_t n = strnlen(src, srclen < len ? srclen : len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void hwd_devices_build(void)
{
	struct mlx5be_device_info infos[HWD_MAX_DEVICES];
	const char *extra = getenv("HWDOUBLE_EXTRA_DEVICE");
	int n;

	hwd_ndevs = 0;
	if (extra && *extra) {
		struct hwd_device *d = &hwd_devs[hwd_ndevs++];

		snprintf(d->ibdev.name, sizeof(d->ibdev.name), "%s", extra);
		snprintf(d->ibdev.dev_name, sizeof(d->ibdev.dev_name), "uverbs9");
		d->ibdev.node_type = IBV_NODE_CA;
		d->ibdev.transport_type = IBV_TRANSPORT_IB;
		d->index = -1;
	}
	n = hwd_emu.get_devices(infos, HWD_MAX_DEVICES - hwd_ndevs);
	for (int i = 0; i < n; i++) {
		struct hwd_device *d = &hwd_devs[hwd_ndevs++];

#define HWD_COPY(f) hwd_copy(d->ibdev.f, sizeof(d->ibdev.f), infos[i].f, \
			     sizeof(infos[i].f))
		HWD_COPY(name);
		HWD_COPY(dev_name);
		HWD_COPY(dev_path);
		HWD_COPY(ibdev_path);
#undef HWD_COPY
		d->ibdev.node_type = IBV_NODE_CA;
		d->ibdev.transport_type = IBV_TRANSPORT_IB;
		d->index = i;
		d->guid = infos[i].node_guid;
	}
}

HWD_EXPORT struct ibv_device **ibv_get_device_list(int *num)
{
	const char *dl = getenv("HWDOUBLE_DLOPEN");
	struct ibv_device **list;
	char extra[32];

	hwd_init();
	if (dl && *dl)
		dlopen(dl, RTLD_NOW);	/* by bare name: the path is searched */
	if (getenv("HWDOUBLE_NO_KERNEL")) {
		hwd_log("ibv_get_device_list", NULL, ENOSYS, NULL, 0, NULL, 0, "");
		errno = ENOSYS;
		return NULL;
	}
	pthread_mutex_lock(&hwd_dev_lock);
	if (hwd_ndevs < 0)
		hwd_devices_build();
	list = calloc((size_t)hwd_ndevs + 1, sizeof(*list));
	for (int i = 0; list && i < hwd_ndevs; i++)
		list[i] = &hwd_devs[i].ibdev;
	if (num)
		*num = list ? hwd_ndevs : 0;
	snprintf(extra, sizeof(extra), ",\"n\":%d", hwd_ndevs);
	pthread_mutex_unlock(&hwd_dev_lock);
	hwd_log("ibv_get_device_list", NULL, 0, NULL, 0, NULL, 0, extra);
	if (!list)
		errno = ENOMEM;
	return list;
}

HWD_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

HWD_EXPORT const char *ibv_get_device_name(struct ibv_device *dev)
{
	return dev->name;
}

HWD_EXPORT __be64 ibv_get_device_guid(struct ibv_device *dev)
{
	return ((struct hwd_device *)dev)->guid;
}

/* verbs_context.query_port: the emulated kernel's port attributes. */
static int hwd_query_port_op(struct ibv_context *ibctx, uint8_t port,
			     struct ibv_port_attr *pa, size_t len)
{
	struct mlx5be_port_attr a;
	int ret = hwd_emu.query_port(hwd_ctx_of(ibctx)->be, port, &a);

	if (ret)
		return -ret;
	memset(pa, 0, len);
	pa->state = a.state;
	pa->max_mtu = a.max_mtu;
	pa->active_mtu = a.active_mtu;
	pa->gid_tbl_len = a.gid_tbl_len;
	pa->port_cap_flags = a.port_cap_flags;
	pa->max_msg_sz = a.max_msg_sz;
	pa->pkey_tbl_len = a.pkey_tbl_len;
	pa->lid = a.lid;
	pa->sm_lid = a.sm_lid;
	pa->lmc = a.lmc;
	pa->max_vl_num = a.max_vl_num;
	pa->sm_sl = a.sm_sl;
	pa->active_width = a.active_width;
	pa->active_speed = (uint8_t)a.active_speed;
	pa->phys_state = a.phys_state;
	pa->link_layer = a.link_layer;
	pa->port_cap_flags2 = (uint16_t)a.port_cap_flags2;
	return 0;
}

/* A context over an emulator context, shaped as rdma-core's. */
static struct ibv_context *hwd_ctx_new(struct hwd_device *dev,
				       struct mlx5be_ctx *be, int cmd_fd)
{
	struct hwd_ctx *c = calloc(1, sizeof(*c));

	if (!c) {
		hwd_emu.close(be);
		errno = ENOMEM;
		return NULL;
	}
	c->be = be;
	c->dev = dev;
	pthread_mutex_init(&c->uar_lock, NULL);
	c->vctx.sz = sizeof(c->vctx);
	c->vctx.query_port = hwd_query_port_op;
	c->vctx.context.device = &dev->ibdev;
	c->vctx.context.cmd_fd = cmd_fd;
	/* The kernel's async event file: the ucontext's queue of them. */
	c->vctx.context.async_fd = mlx5be_emu_ops.async_event_fd(be);
	c->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	pthread_mutex_init(&c->vctx.context.mutex, NULL);
	return &c->vctx.context;
}

HWD_EXPORT bool hwd_is_supported(struct ibv_device *dev)
{
	return ((struct hwd_device *)dev)->index >= 0;
}

HWD_EXPORT struct ibv_context *hwd_open_device(struct ibv_device *ibdev,
					       struct mlx5dv_context_attr *attr)
{
	struct hwd_device *dev = (struct hwd_device *)ibdev;
	struct ibv_context *ctx;
	struct mlx5be_ctx *be;
	const char *mark = getenv("HWDOUBLE_MARK");
	char extra[160];
	int cmd_fd, ret;

	/* As libmlx5 reads MLX5_* variables here, from the environment its
	 * namespace sees now. */
	snprintf(extra, sizeof(extra), ",\"flags\":%u,\"mark\":\"%.64s\"",
		 attr ? (unsigned int)attr->flags : 0u, mark ? mark : "");
	if (dev->index < 0) {	/* mlx5dv_open_device on another driver's */
		hwd_log("mlx5dv_open_device", NULL, EOPNOTSUPP, NULL, 0, NULL, 0,
			extra);
		errno = EOPNOTSUPP;
		return NULL;
	}
	ret = hwd_emu.open(dev->index, &be, &cmd_fd);
	if (ret) {
		hwd_log("mlx5dv_open_device", NULL, -ret, NULL, 0, NULL, 0, extra);
		errno = -ret;
		return NULL;
	}
	ctx = hwd_ctx_new(dev, be, cmd_fd);
	hwd_log("mlx5dv_open_device", ctx ? hwd_ctx_of(ctx) : NULL,
		ctx ? 0 : errno, NULL, 0, NULL, 0, extra);
	return ctx;
}

HWD_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	struct mlx5be_ctx *be;
	int index, ret;

	hwd_init();
	ret = hwd_emu.import(cmd_fd, &be, &index);
	if (ret) {
		hwd_log("ibv_import_device", NULL, -ret, NULL, 0, NULL, 0, "");
		errno = -ret;
		return NULL;
	}
	pthread_mutex_lock(&hwd_dev_lock);
	for (int i = 0; i < hwd_ndevs; i++) {
		if (hwd_devs[i].index == index) {
			pthread_mutex_unlock(&hwd_dev_lock);
			hwd_log("ibv_import_device", NULL, 0, NULL, 0, NULL, 0, "");
			return hwd_ctx_new(&hwd_devs[i], be, cmd_fd);
		}
	}
	pthread_mutex_unlock(&hwd_dev_lock);
	hwd_emu.close(be);
	errno = ENODEV;
	return NULL;
}

HWD_EXPORT int ibv_close_device(struct ibv_context *ibctx)
{
	struct hwd_ctx *c = hwd_ctx_of(ibctx);
	char extra[32];

	/* libmlx5 frees its UAR pages with the context. */
	snprintf(extra, sizeof(extra), ",\"uar_pages\":%d",
		 hwd_uar_pages_free(c));
	hwd_log("ibv_close_device", c, 0, NULL, 0, NULL, 0, extra);
	hwd_emu.close(c->be);
	pthread_mutex_destroy(&c->uar_lock);
	pthread_mutex_destroy(&ibctx->mutex);
	free(c);
	return 0;
}

/* The compat entry (struct _compat_ibv_port_attr is the same prefix);
 * verbs.h makes the name a macro over its inline. */
#undef ibv_query_port
HWD_EXPORT int ibv_query_port(struct ibv_context *ibctx, uint8_t port,
			      struct _compat_ibv_port_attr *attr)
{
	return hwd_query_port_op(ibctx, port, (struct ibv_port_attr *)attr,
				 sizeof(struct ibv_port_attr));
}

HWD_EXPORT int _ibv_query_gid_ex(struct ibv_context *ibctx, uint32_t port,
				 uint32_t index, struct ibv_gid_entry *entry,
				 uint32_t flags, size_t entry_size)
{
	struct mlx5be_gid_entry g;
	int ret;

	if (flags)
		return EINVAL;
	ret = hwd_emu.query_gid(hwd_ctx_of(ibctx)->be, port, index, &g);
	if (ret)
		return -ret;
	memset(entry, 0, entry_size);
	memcpy(entry->gid.raw, g.gid, 16);
	entry->gid_index = g.gid_index;
	entry->port_num = g.port_num;
	entry->gid_type = g.gid_type ? IBV_GID_TYPE_ROCE_V2 :
				       IBV_GID_TYPE_ROCE_V1;
	entry->ndev_ifindex = g.ndev_ifindex;
	return 0;
}

/* rdma-core's convention here: a negative errno. */
HWD_EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *ibctx,
					   struct ibv_ah_attr *attr,
					   uint8_t mac[6], uint16_t *vid)
{
	char extra[48];
	int ret = hwd_emu.gid_l2_addr(hwd_ctx_of(ibctx)->be,
					     attr->port_num,
					     attr->grh.sgid_index,
					     attr->grh.dgid.raw, mac, vid);

	snprintf(extra, sizeof(extra), ",\"sgid_index\":%u",
		 attr->grh.sgid_index);
	hwd_log("ibv_resolve_eth_l2_from_gid", hwd_ctx_of(ibctx), -ret, NULL, 0,
		NULL, 0, extra);
	return ret;
}

/*
 * The async event file as uverbs reads it: one event per call, waiting
 * for one unless the fd is O_NONBLOCK.  Only the events no object owns
 * come here (the emulator's objects are DEVX ones), so the element is the
 * port and libmlx5's part is nothing this double keeps.
 */
HWD_EXPORT int ibv_get_async_event(struct ibv_context *ibctx,
				   struct ibv_async_event *event)
{
	struct hwd_ctx *c = hwd_ctx_of(ibctx);
	struct mlx5be_async_event ev;
	char extra[64];
	int ret;

	for (;;) {
		struct pollfd pfd = { .fd = ibctx->async_fd, .events = POLLIN };

		ret = mlx5be_emu_ops.async_event_read(c->be, &ev);
		if (ret != -EAGAIN ||
		    (fcntl(ibctx->async_fd, F_GETFL) & O_NONBLOCK))
			break;
		poll(&pfd, 1, -1);
	}
	if (ret) {
		errno = -ret;
		return -1;
	}
	event->event_type = (enum ibv_event_type)ev.event_type;
	event->element.port_num = (int)ev.port_num;
	snprintf(extra, sizeof(extra), ",\"event\":%u,\"port\":%u",
		 ev.event_type, ev.port_num);
	hwd_log("ibv_get_async_event", c, 0, NULL, 0, NULL, 0, extra);
	return 0;
}

/* Unaffiliated events count nothing to acknowledge. */
HWD_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	(void)event;
}
