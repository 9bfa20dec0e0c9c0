/* SPDX-License-Identifier: MIT */
/*
 * DEVX through rdma-core: commands (general, object create/modify/query/
 * destroy), async queries and their completion fds, umem, UARs, EQ numbers,
 * event channels and subscriptions.
 *
 * Results: rdma-core's int-returning DEVX calls return a positive errno
 * (execute_ioctl's), which the interface negates; a firmware status other
 * than OK is EREMOTEIO with the outbox copied back, exactly as the kernel
 * gives it.  Handle-returning calls give NULL with the namespace's errno,
 * copied into ours.  Reads of an event or a completion only read() a
 * descriptor, so they run outside hw_enter() and may block.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend/hw/hw.h"

int hw_general_cmd(struct mlx5be_ctx *ctx, const void *in, size_t inlen,
		   void *out, size_t outlen)
{
	int ret;

	hw_enter();
	ret = hw_sym.general_cmd(ctx->ibctx, in, inlen, out, outlen);
	hw_leave();
	return hw_ret(ret);
}

struct mlx5be_obj *hw_obj_create(struct mlx5be_ctx *ctx, const void *in,
				 size_t inlen, void *out, size_t outlen)
{
	struct mlx5be_obj *obj = calloc(1, sizeof(*obj));

	if (!obj)
		return NULL;
	obj->kind = HW_OBJ_DEVX;
	hw_enter();
	obj->devx = hw_sym.obj_create(ctx->ibctx, in, inlen, out, outlen);
	if (!obj->devx)
		hw_set_errno();
	hw_leave();
	if (!obj->devx) {
		free(obj);
		return NULL;
	}
	return obj;
}

/* Modify and query name DEVX objects; a steering rule is none. */
static bool hw_is_devx(const struct mlx5be_obj *obj)
{
	return obj->kind == HW_OBJ_DEVX;
}

int hw_obj_modify(struct mlx5be_obj *obj, const void *in, size_t inlen,
		  void *out, size_t outlen)
{
	int ret;

	if (!hw_is_devx(obj))
		return -EINVAL;
	hw_enter();
	ret = hw_sym.obj_modify(obj->devx, in, inlen, out, outlen);
	hw_leave();
	return hw_ret(ret);
}

int hw_obj_query(struct mlx5be_obj *obj, const void *in, size_t inlen,
		 void *out, size_t outlen)
{
	int ret;

	if (!hw_is_devx(obj))
		return -EINVAL;
	hw_enter();
	ret = hw_sym.obj_query(obj->devx, in, inlen, out, outlen);
	hw_leave();
	return hw_ret(ret);
}

int hw_obj_query_async(struct mlx5be_obj *obj, const void *in, size_t inlen,
		       size_t outlen, uint64_t wr_id,
		       struct mlx5be_cmd_comp *comp)
{
	int ret;

	if (!hw_is_devx(obj))
		return -EINVAL;
	hw_enter();
	ret = hw_sym.obj_query_async(obj->devx, in, inlen, outlen, wr_id,
				     comp->comp);
	hw_leave();
	return hw_ret(ret);
}

int hw_obj_destroy(struct mlx5be_obj *obj)
{
	int ret = 0;

	hw_enter();
	if (hw_is_devx(obj)) {
		ret = hw_sym.obj_destroy(obj->devx);
	} else {
		/* ibv_destroy_flow() is an inline over the context's op. */
		struct verbs_context *vctx =
			verbs_get_ctx_op(obj->flow->context, ibv_destroy_flow);

		ret = vctx ? vctx->ibv_destroy_flow(obj->flow) : EOPNOTSUPP;
		if (!ret)
			ret = hw_sym.destroy_flow_matcher(obj->matcher);
	}
	hw_leave();
	if (!ret)
		free(obj);
	return hw_ret(ret);
}

struct mlx5be_cmd_comp *hw_cmd_comp_create(struct mlx5be_ctx *ctx)
{
	struct mlx5be_cmd_comp *comp = calloc(1, sizeof(*comp));

	if (!comp)
		return NULL;
	hw_enter();
	comp->comp = hw_sym.create_cmd_comp(ctx->ibctx);
	if (!comp->comp)
		hw_set_errno();
	hw_leave();
	if (!comp->comp) {
		free(comp);
		return NULL;
	}
	return comp;
}

void hw_cmd_comp_destroy(struct mlx5be_cmd_comp *comp)
{
	hw_enter();
	hw_sym.destroy_cmd_comp(comp->comp);
	hw_leave();
	free(comp);
}

int hw_cmd_comp_fd(struct mlx5be_cmd_comp *comp)
{
	return comp->comp->fd;
}

int hw_cmd_comp_get(struct mlx5be_cmd_comp *comp,
		    struct mlx5be_async_cmd_resp *resp)
{
	struct mlx5dv_devx_async_cmd_hdr *hdr;
	size_t len = sizeof(*hdr) + resp->outlen;
	int ret;

	/* Our buffer, freed by us: rdma-core only read()s into it. */
	hdr = malloc(len);
	if (!hdr)
		return -ENOMEM;
	ret = hw_ret(hw_sym.get_async_cmd_comp(comp->comp, hdr, len));
	if (!ret) {
		resp->wr_id = hdr->wr_id;
		memcpy(resp->out, hdr->out_data, resp->outlen);
	}
	free(hdr);
	return ret;
}

struct mlx5be_umem *hw_umem_reg(struct mlx5be_ctx *ctx, void *addr,
				size_t size, uint32_t access,
				uint64_t pgsz_bitmap, uint32_t *umem_id)
{
	struct mlx5dv_devx_umem_in in = {
		.addr = addr,
		.size = size,
		.access = access,
		.pgsz_bitmap = pgsz_bitmap,
	};
	struct mlx5be_umem *umem = calloc(1, sizeof(*umem));

	if (!umem)
		return NULL;
	hw_enter();
	umem->umem = hw_sym.umem_reg_ex(ctx->ibctx, &in);
	if (!umem->umem)
		hw_set_errno();
	hw_leave();
	if (!umem->umem) {
		free(umem);
		return NULL;
	}
	*umem_id = umem->umem->umem_id;
	return umem;
}

int hw_umem_dereg(struct mlx5be_umem *umem)
{
	int ret;

	hw_enter();
	ret = hw_sym.umem_dereg(umem->umem);
	hw_leave();
	if (!ret)
		free(umem);
	return hw_ret(ret);
}

struct mlx5be_uar *hw_uar_alloc(struct mlx5be_ctx *ctx, uint32_t flags,
				struct mlx5be_uar_info *info)
{
	struct mlx5be_uar *uar = calloc(1, sizeof(*uar));

	if (!uar)
		return NULL;
	hw_enter();
	uar->uar = hw_sym.alloc_uar(ctx->ibctx, flags);
	if (!uar->uar)
		hw_set_errno();
	hw_leave();
	if (!uar->uar) {
		free(uar);
		return NULL;
	}
	info->base_addr = uar->uar->base_addr;
	info->reg_addr = uar->uar->reg_addr;
	info->page_id = uar->uar->page_id;
	info->mmap_off = uar->uar->mmap_off;
	return uar;
}

void hw_uar_free(struct mlx5be_uar *uar)
{
	hw_enter();
	hw_sym.free_uar(uar->uar);
	hw_leave();
	free(uar);
}

int hw_query_eqn(struct mlx5be_ctx *ctx, uint32_t vector, uint32_t *eqn)
{
	int ret;

	hw_enter();
	ret = hw_sym.query_eqn(ctx->ibctx, vector, eqn);
	hw_leave();
	return hw_ret(ret);
}

struct mlx5be_event_channel *hw_event_channel_create(struct mlx5be_ctx *ctx,
						     uint32_t flags)
{
	struct mlx5be_event_channel *ch = calloc(1, sizeof(*ch));

	_Static_assert((int)MLX5BE_EVENT_CHANNEL_OMIT_DATA ==
		       (int)MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA,
		       "the interface's flags are rdma-core's");
	if (!ch)
		return NULL;
	hw_enter();
	ch->ch = hw_sym.create_event_channel(ctx->ibctx, flags);
	if (!ch->ch)
		hw_set_errno();
	hw_leave();
	if (!ch->ch) {
		free(ch);
		return NULL;
	}
	return ch;
}

void hw_event_channel_destroy(struct mlx5be_event_channel *ch)
{
	hw_enter();
	hw_sym.destroy_event_channel(ch->ch);
	hw_leave();
	free(ch);
}

int hw_event_channel_fd(struct mlx5be_event_channel *ch)
{
	return ch->ch->fd;
}

int hw_event_subscribe(struct mlx5be_event_channel *ch, struct mlx5be_obj *obj,
		       const uint16_t *types, size_t ntypes, uint64_t cookie)
{
	size_t bytes = ntypes * sizeof(*types);
	int ret;

	/* events_sz is a byte count, and a u16 (the kernel's attribute). */
	if (bytes > UINT16_MAX || (obj && !hw_is_devx(obj)))
		return -EINVAL;
	hw_enter();
	ret = hw_sym.subscribe_devx_event(ch->ch, obj ? obj->devx : NULL,
					  (uint16_t)bytes, (uint16_t *)types,
					  cookie);
	hw_leave();
	return hw_ret(ret);
}

int hw_event_subscribe_fd(struct mlx5be_event_channel *ch,
			  struct mlx5be_obj *obj, uint16_t type, int fd)
{
	int ret;

	if (obj && !hw_is_devx(obj))
		return -EINVAL;
	hw_enter();
	ret = hw_sym.subscribe_devx_event_fd(ch->ch, fd, obj ? obj->devx : NULL,
					     type);
	hw_leave();
	return hw_ret(ret);
}

ssize_t hw_event_read(struct mlx5be_event_channel *ch, struct mlx5be_event *ev,
		      size_t len)
{
	ssize_t ret;

	/* struct mlx5be_event is the header (the cookie) and the EQE. */
	_Static_assert(offsetof(struct mlx5be_event, eqe) ==
		       sizeof(struct mlx5dv_devx_async_event_hdr),
		       "mlx5be_event is laid out as DEVX's event");
	ret = hw_sym.get_event(ch->ch, (struct mlx5dv_devx_async_event_hdr *)ev,
			       len);
	if (ret < 0) {
		int err = hw_errno();

		return -(err ? err : EIO);
	}
	return ret;
}
