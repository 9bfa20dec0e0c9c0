/* SPDX-License-Identifier: MIT */
/*
 * The double's libmlx5.so.1: the mlx5dv_* entries the hw backend calls,
 * each handing over to the double's libibverbs.so.1 (hwd_devx.c), as
 * rdma-core's libmlx5 stands on its libibverbs.  Built a second time with
 * HWD_OLD, it lacks mlx5dv_devx_umem_reg_ex (MLX5_1.19): an rdma-core
 * older than the hw backend needs.
 */
#include "hwd.h"

HWD_EXPORT bool mlx5dv_is_supported(struct ibv_device *dev)
{
	return hwd_is_supported(dev);
}

HWD_EXPORT struct ibv_context *mlx5dv_open_device(struct ibv_device *dev,
						  struct mlx5dv_context_attr *attr)
{
	return hwd_open_device(dev, attr);
}

HWD_EXPORT int mlx5dv_devx_general_cmd(struct ibv_context *ctx, const void *in,
				       size_t inlen, void *out, size_t outlen)
{
	return hwd_general_cmd(ctx, in, inlen, out, outlen);
}

HWD_EXPORT struct mlx5dv_devx_obj *mlx5dv_devx_obj_create(struct ibv_context *ctx,
							  const void *in, size_t inlen,
							  void *out, size_t outlen)
{
	return hwd_obj_create(ctx, in, inlen, out, outlen);
}

HWD_EXPORT int mlx5dv_devx_obj_modify(struct mlx5dv_devx_obj *obj, const void *in,
				      size_t inlen, void *out, size_t outlen)
{
	return hwd_obj_modify(obj, in, inlen, out, outlen);
}

HWD_EXPORT int mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in,
				     size_t inlen, void *out, size_t outlen)
{
	return hwd_obj_query(obj, in, inlen, out, outlen);
}

HWD_EXPORT int mlx5dv_devx_obj_query_async(struct mlx5dv_devx_obj *obj,
					   const void *in, size_t inlen,
					   size_t outlen, uint64_t wr_id,
					   struct mlx5dv_devx_cmd_comp *comp)
{
	return hwd_obj_query_async(obj, in, inlen, outlen, wr_id, comp);
}

HWD_EXPORT int mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	return hwd_obj_destroy(obj);
}

HWD_EXPORT struct mlx5dv_devx_cmd_comp *
mlx5dv_devx_create_cmd_comp(struct ibv_context *ctx)
{
	return hwd_create_cmd_comp(ctx);
}

HWD_EXPORT void mlx5dv_devx_destroy_cmd_comp(struct mlx5dv_devx_cmd_comp *comp)
{
	hwd_destroy_cmd_comp(comp);
}

HWD_EXPORT int mlx5dv_devx_get_async_cmd_comp(struct mlx5dv_devx_cmd_comp *comp,
					      struct mlx5dv_devx_async_cmd_hdr *resp,
					      size_t len)
{
	return hwd_get_async_cmd_comp(comp, resp, len);
}

#ifndef HWD_OLD
HWD_EXPORT struct mlx5dv_devx_umem *
mlx5dv_devx_umem_reg_ex(struct ibv_context *ctx, struct mlx5dv_devx_umem_in *in)
{
	return hwd_umem_reg_ex(ctx, in);
}
#endif

HWD_EXPORT int mlx5dv_devx_umem_dereg(struct mlx5dv_devx_umem *umem)
{
	return hwd_umem_dereg(umem);
}

HWD_EXPORT struct mlx5dv_devx_uar *mlx5dv_devx_alloc_uar(struct ibv_context *ctx,
							 uint32_t flags)
{
	return hwd_alloc_uar(ctx, flags);
}

HWD_EXPORT void mlx5dv_devx_free_uar(struct mlx5dv_devx_uar *uar)
{
	hwd_free_uar(uar);
}

HWD_EXPORT int mlx5dv_devx_query_eqn(struct ibv_context *ctx, uint32_t vector,
				     uint32_t *eqn)
{
	return hwd_query_eqn(ctx, vector, eqn);
}

HWD_EXPORT struct mlx5dv_devx_event_channel *
mlx5dv_devx_create_event_channel(struct ibv_context *ctx,
				 enum mlx5dv_devx_create_event_channel_flags flags)
{
	return hwd_create_event_channel(ctx, flags);
}

HWD_EXPORT void
mlx5dv_devx_destroy_event_channel(struct mlx5dv_devx_event_channel *ch)
{
	hwd_destroy_event_channel(ch);
}

HWD_EXPORT int
mlx5dv_devx_subscribe_devx_event(struct mlx5dv_devx_event_channel *ch,
				 struct mlx5dv_devx_obj *obj, uint16_t events_sz,
				 uint16_t events_num[], uint64_t cookie)
{
	return hwd_subscribe_devx_event(ch, obj, events_sz, events_num, cookie);
}

HWD_EXPORT int
mlx5dv_devx_subscribe_devx_event_fd(struct mlx5dv_devx_event_channel *ch,
				    int fd, struct mlx5dv_devx_obj *obj,
				    uint16_t event_num)
{
	return hwd_subscribe_devx_event_fd(ch, fd, obj, event_num);
}

HWD_EXPORT ssize_t mlx5dv_devx_get_event(struct mlx5dv_devx_event_channel *ch,
					 struct mlx5dv_devx_async_event_hdr *data,
					 size_t len)
{
	return hwd_get_event(ch, data, len);
}

HWD_EXPORT struct mlx5dv_flow_matcher *
mlx5dv_create_flow_matcher(struct ibv_context *ctx,
			   struct mlx5dv_flow_matcher_attr *attr)
{
	return hwd_create_flow_matcher(ctx, attr);
}

HWD_EXPORT int mlx5dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher)
{
	return hwd_destroy_flow_matcher(matcher);
}

HWD_EXPORT struct ibv_flow *
mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
		   struct mlx5dv_flow_match_parameters *value,
		   size_t num_actions, struct mlx5dv_flow_action_attr actions[])
{
	return hwd_create_flow(matcher, value, num_actions, actions);
}

HWD_EXPORT int mlx5dv_get_clock_info(struct ibv_context *ctx,
				     struct mlx5dv_clock_info *info)
{
	return hwd_get_clock_info(ctx, info);
}

HWD_EXPORT int mlx5dv_query_device(struct ibv_context *ctx,
				   struct mlx5dv_context *attrs_out)
{
	return hwd_query_device(ctx, attrs_out);
}
