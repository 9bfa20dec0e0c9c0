/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous DEVX queries: mlx5dv_devx_create_cmd_comp /
 * destroy_cmd_comp, mlx5dv_devx_obj_query_async and
 * mlx5dv_devx_get_async_cmd_comp.
 *
 * cmd_comp->fd is the backend's completion fd itself, so poll()/epoll and
 * O_NONBLOCK set by the application behave as on the kernel's async-cmd
 * file.  Reading follows devx_async_cmd_event_read(): a blocking fd waits
 * for a response, a non-blocking one gives EAGAIN; a buffer smaller than
 * the header plus the response's outlen gives ENOSPC and the response stays
 * queued; otherwise the response is consumed and 0 returned.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>

#include "provider/core/device.h"
#include "provider/devx/devx.h"
#include "shell/abi_export.h"

MLX5EMU_ABI(mlx5dv_devx_create_cmd_comp);
struct mlx5dv_devx_cmd_comp *mlx5emu_abi_mlx5dv_devx_create_cmd_comp(struct ibv_context *context)
{
	/* libmlx5: no dv ops for a device not its own */
	if (prov_device_mana_ctx(context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	struct prov_context *pctx;
	struct prov_devx_cmd_comp *comp;
	int err;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	pctx = to_prov_context(context);
	if (!pctx->be->cmd_comp_create) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	comp = calloc(1, sizeof(*comp));
	if (!comp) {
		errno = ENOMEM;
		return NULL;
	}
	comp->be = pctx->be->cmd_comp_create(pctx->bectx);
	if (!comp->be) {
		err = errno;
		free(comp);
		errno = err;
		return NULL;
	}
	comp->ops = pctx->be;
	comp->dv.fd = pctx->be->cmd_comp_fd(comp->be);
	return &comp->dv;
}

MLX5EMU_ABI(mlx5dv_devx_destroy_cmd_comp);
void mlx5emu_abi_mlx5dv_devx_destroy_cmd_comp(struct mlx5dv_devx_cmd_comp *cmd_comp)
{
	struct prov_devx_cmd_comp *comp = (struct prov_devx_cmd_comp *)cmd_comp;

	if (!comp)
		return;
	/* Responses still queued go with it, as when the kernel file closes. */
	comp->ops->cmd_comp_destroy(comp->be);
	free(comp);
}

MLX5EMU_ABI(mlx5dv_devx_obj_query_async);
int mlx5emu_abi_mlx5dv_devx_obj_query_async(struct mlx5dv_devx_obj *obj, const void *in,
					    size_t inlen, size_t outlen,
					    uint64_t wr_id,
					    struct mlx5dv_devx_cmd_comp *cmd_comp)
{
	struct prov_devx_cmd_comp *comp = (struct prov_devx_cmd_comp *)cmd_comp;
	const struct mlx5be_ops *be;

	if (!obj)
		return prov_err(EINVAL);
	/* The kernel looks the fd up as an async-cmd file: none is EBADF. */
	if (!comp)
		return prov_err(EBADF);
	be = to_prov_context(obj->context)->be;
	if (!be->obj_query_async)
		return prov_err(EOPNOTSUPP);
	return prov_be_err(be->obj_query_async(obj->be, in, inlen, outlen,
						 wr_id, comp->be));
}

/*
 * A buffer that cannot even hold the header: every response is larger, so
 * once one is there the answer is ENOSPC and it stays queued.
 */
static int wait_then_enospc(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int fl = fcntl(fd, F_GETFL);
	int n;

	if (fl < 0)
		return prov_err(errno);
	do
		n = poll(&pfd, 1, (fl & O_NONBLOCK) ? 0 : -1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return prov_err(errno);
	return prov_err(n ? ENOSPC : EAGAIN);
}

MLX5EMU_ABI(mlx5dv_devx_get_async_cmd_comp);
int mlx5emu_abi_mlx5dv_devx_get_async_cmd_comp(struct mlx5dv_devx_cmd_comp *cmd_comp,
					       struct mlx5dv_devx_async_cmd_hdr *cmd_resp,
					       size_t cmd_resp_len)
{
	struct prov_devx_cmd_comp *comp = (struct prov_devx_cmd_comp *)cmd_comp;
	struct mlx5be_async_cmd_resp resp;
	int ret;

	if (!comp || !cmd_resp)
		return prov_err(EINVAL);
	if (!comp->ops->cmd_comp_get)
		return prov_err(EOPNOTSUPP);
	if (cmd_resp_len < sizeof(*cmd_resp))
		return wait_then_enospc(comp->dv.fd);
	resp.wr_id = 0;
	resp.out = cmd_resp->out_data;
	resp.outlen = cmd_resp_len - sizeof(*cmd_resp);
	ret = comp->ops->cmd_comp_get(comp->be, &resp);
	if (ret)
		return prov_be_err(ret);
	cmd_resp->wr_id = resp.wr_id;
	return 0;
}
