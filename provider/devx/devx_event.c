/* SPDX-License-Identifier: MIT */
/*
 * DEVX event channels: mlx5dv_devx_create_event_channel / destroy,
 * mlx5dv_devx_subscribe_devx_event / _fd and mlx5dv_devx_get_event, as
 * rdma-core 44's libmlx5 passes them to the kernel (devx.c; the backend's
 * event ops are that kernel side).
 *
 * event_channel->fd is the backend's channel fd, so poll()/epoll and
 * O_NONBLOCK behave as on the kernel's event file.  Subscribing takes the
 * event numbers as libmlx5 sends them, a byte count of u16s: fewer than
 * two bytes or an odd count is the kernel's attribute-size EINVAL.
 * mlx5dv_devx_get_event reads one event: with OMIT_DATA the 8-byte
 * cookie, else struct mlx5dv_devx_async_event_hdr and the EQE; -1 with
 * errno EINVAL (buffer shorter than the event), EOVERFLOW (events were
 * lost), EIO (its context is gone), EAGAIN (O_NONBLOCK, nothing there).
 * A channel outlives its context (the kernel's file stays open until the
 * application closes it), so it keeps the backend's ops.
 */
#include <errno.h>
#include <stdlib.h>

#include "provider/core/device.h"
#include "provider/devx/devx.h"
#include "shell/abi_export.h"

struct prov_devx_event_channel {
	struct mlx5dv_devx_event_channel dv;	/* dv.fd: the backend's */
	const struct mlx5be_ops *ops;
	struct mlx5be_event_channel *be;
};

static struct prov_devx_event_channel *
to_prov_event_channel(struct mlx5dv_devx_event_channel *ch)
{
	return (struct prov_devx_event_channel *)ch;
}

MLX5EMU_ABI(mlx5dv_devx_create_event_channel);
struct mlx5dv_devx_event_channel *
mlx5emu_abi_mlx5dv_devx_create_event_channel(struct ibv_context *context,
					     enum mlx5dv_devx_create_event_channel_flags flags)
{
	/* libmlx5: no dv ops for a device not its own */
	if (prov_device_mana_ctx(context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	struct mlx5be_event_channel *be;
	struct prov_devx_event_channel *ch;
	struct prov_context *pctx;

	ch = prov_event_channel_alloc(context, sizeof(*ch), flags, &be);
	if (!ch)
		return NULL;
	pctx = to_prov_context(context);
	ch->be = be;
	ch->ops = pctx->be;
	ch->dv.fd = pctx->be->event_channel_fd(ch->be);
	return &ch->dv;
}

MLX5EMU_ABI(mlx5dv_devx_destroy_event_channel);
void mlx5emu_abi_mlx5dv_devx_destroy_event_channel(struct mlx5dv_devx_event_channel *dv)
{
	struct prov_devx_event_channel *ch = to_prov_event_channel(dv);

	if (!ch)
		return;
	/* Events still queued go with it, as when the kernel file closes. */
	ch->ops->event_channel_destroy(ch->be);
	free(ch);
}

MLX5EMU_ABI(mlx5dv_devx_subscribe_devx_event);
int mlx5emu_abi_mlx5dv_devx_subscribe_devx_event(struct mlx5dv_devx_event_channel *dv,
						 struct mlx5dv_devx_obj *obj,
						 uint16_t events_sz,
						 uint16_t events_num[],
						 uint64_t cookie)
{
	struct prov_devx_event_channel *ch = to_prov_event_channel(dv);

	if (!ch)
		return prov_err(EINVAL);
	/* UVERBS_ATTR_MIN_SIZE(sizeof(u16)), a whole number of u16s. */
	if (events_sz < sizeof(uint16_t) || events_sz % sizeof(uint16_t) ||
	    !events_num)
		return prov_err(EINVAL);
	return prov_be_err(ch->ops->event_subscribe(ch->be, obj ? obj->be : NULL,
						    events_num,
						    events_sz / sizeof(uint16_t),
						    cookie));
}

MLX5EMU_ABI(mlx5dv_devx_subscribe_devx_event_fd);
int mlx5emu_abi_mlx5dv_devx_subscribe_devx_event_fd(struct mlx5dv_devx_event_channel *dv,
						    int fd,
						    struct mlx5dv_devx_obj *obj,
						    uint16_t event_num)
{
	struct prov_devx_event_channel *ch = to_prov_event_channel(dv);

	if (!ch)
		return prov_err(EINVAL);
	if (!ch->ops->event_subscribe_fd)
		return prov_err(EOPNOTSUPP);
	return prov_be_err(ch->ops->event_subscribe_fd(ch->be,
						       obj ? obj->be : NULL,
						       event_num, fd));
}

MLX5EMU_ABI(mlx5dv_devx_get_event);
ssize_t mlx5emu_abi_mlx5dv_devx_get_event(struct mlx5dv_devx_event_channel *dv,
					  struct mlx5dv_devx_async_event_hdr *event_data,
					  size_t event_resp_len)
{
	struct prov_devx_event_channel *ch = to_prov_event_channel(dv);
	ssize_t n;

	if (!ch || !event_data) {
		errno = EINVAL;
		return -1;
	}
	/* The backend's event is laid out as the header and the EQE. */
	n = ch->ops->event_read(ch->be, (struct mlx5be_event *)(void *)event_data,
				event_resp_len);
	if (n < 0) {
		errno = (int)-n;
		return -1;
	}
	return n;
}
