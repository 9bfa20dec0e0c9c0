/* SPDX-License-Identifier: MIT */
/*
 * The DEVX calls of the double: each one the emulator's kernel layer
 * answers (mlx5be_emu_ops), in rdma-core 44's conventions, and recorded
 * with the command it carries.  A destroy is recorded with the destroy
 * command the kernel derived from the create, which it then runs.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_impl.h"
#include "emu/kernel/kern.h"
#include "hwd.h"

/* An int call's result: rdma-core's positive errno, also set in errno. */
static int hwd_ret(int ret)
{
	if (ret < 0)
		errno = -ret;
	return ret < 0 ? -ret : 0;
}

HWD_EXPORT int hwd_general_cmd(struct ibv_context *ibctx, const void *in,
			       size_t inlen, void *out, size_t outlen)
{
	struct hwd_ctx *c = hwd_ctx_of(ibctx);
	int ret = hwd_emu.general_cmd(c->be, in, inlen, out, outlen);

	hwd_log("mlx5dv_devx_general_cmd", c, -ret, in, inlen,
		!ret || ret == -EREMOTEIO ? out : NULL, outlen, "");
	return hwd_ret(ret);
}

HWD_EXPORT struct mlx5dv_devx_obj *hwd_obj_create(struct ibv_context *ibctx,
						  const void *in, size_t inlen,
						  void *out, size_t outlen)
{
	struct hwd_ctx *c = hwd_ctx_of(ibctx);
	struct mlx5dv_devx_obj *obj = calloc(1, sizeof(*obj));
	int err;

	if (!obj) {
		errno = ENOMEM;
		return NULL;
	}
	obj->ctx = c;
	obj->be = hwd_emu.obj_create(c->be, in, inlen, out, outlen);
	err = obj->be ? 0 : errno;
	hwd_log("mlx5dv_devx_obj_create", c, err, in, inlen,
		!err || err == EREMOTEIO ? out : NULL, outlen, "");
	if (!obj->be) {
		free(obj);
		errno = err;
		return NULL;
	}
	return obj;
}

HWD_EXPORT int hwd_obj_modify(struct mlx5dv_devx_obj *obj, const void *in,
			      size_t inlen, void *out, size_t outlen)
{
	int ret = hwd_emu.obj_modify(obj->be, in, inlen, out, outlen);

	hwd_log("mlx5dv_devx_obj_modify", obj->ctx, -ret, in, inlen,
		!ret || ret == -EREMOTEIO ? out : NULL, outlen, "");
	return hwd_ret(ret);
}

HWD_EXPORT int hwd_obj_query(struct mlx5dv_devx_obj *obj, const void *in,
			     size_t inlen, void *out, size_t outlen)
{
	int ret = hwd_emu.obj_query(obj->be, in, inlen, out, outlen);

	hwd_log("mlx5dv_devx_obj_query", obj->ctx, -ret, in, inlen,
		!ret || ret == -EREMOTEIO ? out : NULL, outlen, "");
	return hwd_ret(ret);
}

HWD_EXPORT int hwd_obj_query_async(struct mlx5dv_devx_obj *obj,
				   const void *in, size_t inlen, size_t outlen,
				   uint64_t wr_id,
				   struct mlx5dv_devx_cmd_comp *comp)
{
	struct hwd_cmd_comp *hc = (struct hwd_cmd_comp *)comp;
	int ret = hwd_emu.obj_query_async(obj->be, in, inlen, outlen,
						 wr_id, hc->be);

	hwd_log("mlx5dv_devx_obj_query_async", obj->ctx, -ret, in, inlen, NULL,
		0, "");
	return hwd_ret(ret);
}

HWD_EXPORT int hwd_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	/* The kernel layer's own record of the destroy it will run. */
	uint8_t din[KERN_DEVX_DESTROY_INBOX_MAX];
	size_t dlen = obj->be->destroy_inlen;
	int ret;

	memcpy(din, obj->be->destroy_in, dlen);
	ret = hwd_emu.obj_destroy(obj->be);
	hwd_log("mlx5dv_devx_obj_destroy", obj->ctx, -ret, din, dlen, NULL, 0,
		"");
	if (!ret)
		free(obj);
	return hwd_ret(ret);
}

HWD_EXPORT struct mlx5dv_devx_cmd_comp *hwd_create_cmd_comp(struct ibv_context *ibctx)
{
	struct hwd_cmd_comp *comp = calloc(1, sizeof(*comp));

	if (!comp) {
		errno = ENOMEM;
		return NULL;
	}
	comp->be = hwd_emu.cmd_comp_create(hwd_ctx_of(ibctx)->be);
	if (!comp->be) {
		free(comp);
		return NULL;
	}
	comp->dv.fd = mlx5be_emu_ops.cmd_comp_fd(comp->be);
	return &comp->dv;
}

HWD_EXPORT void hwd_destroy_cmd_comp(struct mlx5dv_devx_cmd_comp *dv)
{
	struct hwd_cmd_comp *comp = (struct hwd_cmd_comp *)dv;

	hwd_emu.cmd_comp_destroy(comp->be);
	free(comp);
}

HWD_EXPORT int hwd_get_async_cmd_comp(struct mlx5dv_devx_cmd_comp *dv,
				      struct mlx5dv_devx_async_cmd_hdr *resp,
				      size_t len)
{
	struct hwd_cmd_comp *comp = (struct hwd_cmd_comp *)dv;
	struct mlx5be_async_cmd_resp r = {
		.out = resp->out_data,
		.outlen = len - sizeof(*resp),
	};
	int ret;

	if (len < sizeof(*resp))
		return EINVAL;
	ret = mlx5be_emu_ops.cmd_comp_get(comp->be, &r);
	if (!ret)
		resp->wr_id = r.wr_id;
	return hwd_ret(ret);
}

HWD_EXPORT struct mlx5dv_devx_umem *hwd_umem_reg_ex(struct ibv_context *ibctx,
						    struct mlx5dv_devx_umem_in *in)
{
	struct hwd_ctx *c = hwd_ctx_of(ibctx);
	struct hwd_umem *umem = calloc(1, sizeof(*umem));
	char extra[160];
	int err;

	if (!umem) {
		errno = ENOMEM;
		return NULL;
	}
	umem->be = hwd_emu.umem_reg(c->be, in->addr, in->size, in->access,
					   in->pgsz_bitmap, &umem->dv.umem_id);
	err = umem->be ? 0 : errno;
	snprintf(extra, sizeof(extra),
		 ",\"size\":%zu,\"access\":%u,\"pgsz_bitmap\":\"0x%llx\"",
		 in->size, in->access, (unsigned long long)in->pgsz_bitmap);
	hwd_log("mlx5dv_devx_umem_reg_ex", c, err, NULL, 0, NULL, 0, extra);
	if (!umem->be) {
		free(umem);
		errno = err;
		return NULL;
	}
	return &umem->dv;
}

HWD_EXPORT int hwd_umem_dereg(struct mlx5dv_devx_umem *dv)
{
	struct hwd_umem *umem = (struct hwd_umem *)dv;
	int ret = hwd_emu.umem_dereg(umem->be);

	hwd_log("mlx5dv_devx_umem_dereg", NULL, -ret, NULL, 0, NULL, 0, "");
	if (!ret)
		free(umem);
	return hwd_ret(ret);
}

HWD_EXPORT int hwd_query_eqn(struct ibv_context *ibctx, uint32_t vector,
			     uint32_t *eqn)
{
	struct hwd_ctx *c = hwd_ctx_of(ibctx);
	int ret = hwd_emu.query_eqn(c->be, vector, eqn);
	char extra[48];

	snprintf(extra, sizeof(extra), ",\"vector\":%u", vector);
	hwd_log("mlx5dv_devx_query_eqn", c, -ret, NULL, 0, NULL, 0, extra);
	return hwd_ret(ret);
}

HWD_EXPORT struct mlx5dv_devx_event_channel *
hwd_create_event_channel(struct ibv_context *ibctx,
			 enum mlx5dv_devx_create_event_channel_flags flags)
{
	struct hwd_event_channel *ch = calloc(1, sizeof(*ch));
	int err;

	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	ch->be = hwd_emu.event_channel_create(hwd_ctx_of(ibctx)->be,
						     flags);
	err = ch->be ? 0 : errno;
	hwd_log("mlx5dv_devx_create_event_channel", hwd_ctx_of(ibctx), err,
		NULL, 0, NULL, 0, "");
	if (!ch->be) {
		free(ch);
		errno = err;
		return NULL;
	}
	ch->dv.fd = mlx5be_emu_ops.event_channel_fd(ch->be);
	return &ch->dv;
}

HWD_EXPORT void hwd_destroy_event_channel(struct mlx5dv_devx_event_channel *dv)
{
	struct hwd_event_channel *ch = (struct hwd_event_channel *)dv;

	hwd_emu.event_channel_destroy(ch->be);
	free(ch);
}

HWD_EXPORT int hwd_subscribe_devx_event(struct mlx5dv_devx_event_channel *dv,
					struct mlx5dv_devx_obj *obj,
					uint16_t events_sz,
					uint16_t events_num[], uint64_t cookie)
{
	struct hwd_event_channel *ch = (struct hwd_event_channel *)dv;

	return hwd_ret(hwd_emu.event_subscribe(ch->be,
			obj ? obj->be : NULL, events_num,
			events_sz / sizeof(uint16_t), cookie));
}

HWD_EXPORT int hwd_subscribe_devx_event_fd(struct mlx5dv_devx_event_channel *dv,
					   int fd, struct mlx5dv_devx_obj *obj,
					   uint16_t event_num)
{
	struct hwd_event_channel *ch = (struct hwd_event_channel *)dv;
	char extra[48];
	int ret = hwd_emu.event_subscribe_fd(ch->be, obj ? obj->be : NULL,
					     event_num, fd);

	snprintf(extra, sizeof(extra), ",\"event\":%u", event_num);
	hwd_log("mlx5dv_devx_subscribe_devx_event_fd",
		obj ? obj->ctx : NULL, -ret, NULL, 0, NULL, 0, extra);
	return hwd_ret(ret);
}

HWD_EXPORT ssize_t hwd_get_event(struct mlx5dv_devx_event_channel *dv,
				 struct mlx5dv_devx_async_event_hdr *data,
				 size_t len)
{
	struct hwd_event_channel *ch = (struct hwd_event_channel *)dv;
	ssize_t ret = mlx5be_emu_ops.event_read(ch->be,
						(struct mlx5be_event *)data, len);

	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

/* The emulator has no kernel-owned steering root: as a kernel without. */
HWD_EXPORT struct mlx5dv_flow_matcher *
hwd_create_flow_matcher(struct ibv_context *ibctx,
			struct mlx5dv_flow_matcher_attr *attr)
{
	hwd_log("mlx5dv_create_flow_matcher", hwd_ctx_of(ibctx), EOPNOTSUPP,
		NULL, 0, NULL, 0, "");
	errno = EOPNOTSUPP;
	return NULL;
}

HWD_EXPORT int hwd_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher)
{
	return EINVAL;
}

HWD_EXPORT struct ibv_flow *hwd_create_flow(struct mlx5dv_flow_matcher *matcher,
					    struct mlx5dv_flow_match_parameters *value,
					    size_t num_actions,
					    struct mlx5dv_flow_action_attr actions[])
{
	errno = EINVAL;
	return NULL;
}

/*
 * mlx5dv_query_device, for what the hw backend asks of it: the mapped core
 * clock.  A double maps no device: the register is a snapshot of the
 * emulator's internal timer taken now, which the caller reads at once.
 */
HWD_EXPORT int hwd_query_device(struct ibv_context *ibctx,
				struct mlx5dv_context *attrs_out)
{
	struct hwd_ctx *c = hwd_ctx_of(ibctx);
	uint64_t want = attrs_out->comp_mask, cycles;

	attrs_out->comp_mask = 0;
	if ((want & MLX5DV_CONTEXT_MASK_HCA_CORE_CLOCK) &&
	    !hwd_emu.read_clock(c->be, &cycles)) {
		c->core_clock[0] = htobe32((uint32_t)(cycles >> 32));
		c->core_clock[1] = htobe32((uint32_t)cycles);
		attrs_out->hca_core_clock = c->core_clock;
		attrs_out->comp_mask |= MLX5DV_CONTEXT_MASK_HCA_CORE_CLOCK;
	}
	return 0;
}

HWD_EXPORT int hwd_get_clock_info(struct ibv_context *ibctx,
				  struct mlx5dv_clock_info *info)
{
	struct mlx5be_clock_info ci;
	int ret = hwd_emu.clock_info(hwd_ctx_of(ibctx)->be, &ci);

	if (ret)
		return -ret;	/* mlx5dv_get_clock_info: no errno */
	info->nsec = ci.nsec;
	info->last_cycles = ci.last_cycles;
	info->frac = ci.frac;
	info->mult = ci.mult;
	info->shift = ci.shift;
	info->mask = ci.mask;
	return 0;
}
