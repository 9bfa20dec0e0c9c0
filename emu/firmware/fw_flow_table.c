/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_flow_table.c -- NIC flow tables: CREATE/MODIFY/QUERY/
 * DESTROY_FLOW_TABLE.
 *
 * A table has a type (NIC RX or TX: a ConnectX without eswitch or RDMA
 * steering refuses the others), a level, 1 << log_size entry slots and a
 * miss action: the default (RX: the frame is dropped; TX: it leaves) or a
 * forward to table_miss_id, which must be a table of the same type at a
 * deeper level.  Levels only grow along misses and forwards, so no chain
 * loops.  Each command checks everything first, then takes the uses it
 * needs, then commits; a refused command changes nothing.
 */
#include <stdlib.h>

#include "emu/firmware/fw_steer_int.h"

bool fw_steer_type_ok(const struct emu_fw *fw, unsigned int type)
{
	switch (type) {
	case MLX5_FLOW_TABLE_TYPE_NIC_RX:
		return FW_CAP_NIC_RX(fw, ft_support);
	case MLX5_FLOW_TABLE_TYPE_NIC_TX:
		return FW_CAP_NIC_TX(fw, ft_support);
	default:
		return false;
	}
}

enum fw_synd fw_ft_own(struct fw_cmd *cmd, unsigned int type, uint32_t id,
		       struct emu_fw_flow_table **ftp)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	if (!fw_steer_type_ok(cmd->fw, type))
		return FW_SYND_FT_BAD_TYPE;
	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_FLOW_TABLE, id, FW_SYND_FT_INVALID,
			   &obj);
	if (s)
		return s;
	emu_fw_obj_put(obj);	/* the steering lock keeps it */
	if (emu_fw_to_ft(obj)->type != type)
		return FW_SYND_FT_INVALID;
	*ftp = emu_fw_to_ft(obj);
	return FW_SYND_OK;
}

enum fw_synd fw_ft_ref(struct fw_cmd *cmd, const struct emu_fw_flow_table *from,
		       uint32_t id, enum fw_synd bad,
		       struct emu_fw_flow_table **ftp)
{
	struct emu_fw_obj *obj = emu_fw_obj_get(cmd->fw, EMU_FW_OBJ_FLOW_TABLE,
						id);
	struct emu_fw_flow_table *ft;

	if (!obj)
		return bad;
	emu_fw_obj_put(obj);	/* the steering lock keeps it */
	ft = emu_fw_to_ft(obj);
	/* The rule ConnectX enforces: forwards and misses go deeper. */
	if (ft->type != from->type || ft->level <= from->level ||
	    (cmd->uid && obj->uid != cmd->uid && obj->uid != 0) ||
	    !fw_obj_use(obj))
		return bad;
	ft->n_refs++;
	*ftp = ft;
	return FW_SYND_OK;
}

void fw_ft_unref(struct emu_fw_flow_table *ft)
{
	if (!ft)
		return;
	ft->n_refs--;
	fw_obj_unuse(&ft->obj);
}

/*
 * The miss a flow_table_context asks for: *miss NULL for the default, or
 * a referenced table.  @ft is the table (its type and level are set).
 */
static enum fw_synd fw_ft_miss(struct fw_cmd *cmd,
			       const struct emu_fw_flow_table *ft,
			       const void *ctx,
			       struct emu_fw_flow_table **miss)
{
	*miss = NULL;
	switch (PRM_GET(flow_table_context, ctx, table_miss_action)) {
	case MLX5_FLOW_TABLE_MISS_ACTION_DEF:
		return FW_SYND_OK;
	case MLX5_FLOW_TABLE_MISS_ACTION_FWD:
		return fw_ft_ref(cmd, ft, PRM_GET(flow_table_context, ctx,
						  table_miss_id),
				 FW_SYND_FT_BAD_MISS_TABLE, miss);
	default:
		return FW_SYND_FT_BAD_MISS_ACTION;
	}
}

/* What no NIC table of this device takes. */
static bool fw_ft_ctx_unsupported(const void *ctx)
{
	return PRM_GET(flow_table_context, ctx, reformat_en) ||
	       PRM_GET(flow_table_context, ctx, decap_en) ||
	       PRM_GET(flow_table_context, ctx, sw_owner) ||
	       PRM_GET(flow_table_context, ctx, termination_table) ||
	       PRM_GET(flow_table_context, ctx, rtc_valid) ||
	       PRM_GET(flow_table_context, ctx, lag_master_next_table_id);
}

enum fw_synd fw_cmd_create_flow_table(struct fw_cmd *cmd)
{
	const void *ctx = PRM_ADDR_OF(create_flow_table_in, cmd->in,
				      flow_table_context);
	unsigned int type = PRM_GET(create_flow_table_in, cmd->in, table_type);
	struct emu_fw_flow_table *ft, *miss = NULL;
	struct emu_fw_obj *obj;
	unsigned int log_size;
	enum fw_synd s;

	if (PRM_GET(create_flow_table_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	if (PRM_GET(create_flow_table_in, cmd->in, other_eswitch))
		return FW_SYND_FT_NOT_SUPPORTED;
	if (!fw_steer_type_ok(cmd->fw, type))
		return FW_SYND_FT_BAD_TYPE;
	if (fw_ft_ctx_unsupported(ctx))
		return FW_SYND_FT_NOT_SUPPORTED;
	if (PRM_GET(flow_table_context, ctx, level) >
	    FW_CAP_NIC_FT(cmd->fw, type, max_ft_level))
		return FW_SYND_FT_BAD_LEVEL;
	log_size = PRM_GET(flow_table_context, ctx, log_size);
	if (log_size > FW_CAP_NIC_FT(cmd->fw, type, log_max_ft_size))
		return FW_SYND_FT_BAD_SIZE;

	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_FLOW_TABLE, &obj);
	if (s)
		return s;
	ft = emu_fw_to_ft(obj);
	ft->type = (uint8_t)type;
	ft->level = (uint8_t)PRM_GET(flow_table_context, ctx, level);
	ft->log_size = (uint8_t)log_size;
	ft->fte = calloc((size_t)1 << log_size, sizeof(*ft->fte));
	if (!ft->fte) {
		fw_cmd_obj_abort(obj);
		return FW_SYND_INTERNAL_NOMEM;
	}
	pthread_mutex_lock(&cmd->fw->steer_lock);
	s = fw_ft_miss(cmd, ft, ctx, &miss);
	if (s)
		goto err;
	atomic_init(&ft->miss, miss);
	atomic_init(&ft->groups, NULL);
	s = fw_cmd_obj_publish(obj, FW_SYND_FT_LIMIT);
	if (s) {
		/* the object is freed: only the miss use is left to drop */
		fw_ft_unref(miss);
		pthread_mutex_unlock(&cmd->fw->steer_lock);
		return s;
	}
	pthread_mutex_unlock(&cmd->fw->steer_lock);
	PRM_SET(create_flow_table_out, cmd->out, table_id, obj->id);
	return FW_SYND_OK;

err:
	pthread_mutex_unlock(&cmd->fw->steer_lock);
	fw_cmd_obj_abort(obj);
	return s;
}

/*
 * Only the miss may change (modify_field_select MISS_TABLE_ID, what
 * flow_table_modify advertises); the new miss is checked and used before
 * the old one is let go.
 */
enum fw_synd fw_cmd_modify_flow_table(struct fw_cmd *cmd)
{
	const void *ctx = PRM_ADDR_OF(modify_flow_table_in, cmd->in,
				      flow_table_context);
	unsigned int sel = PRM_GET(modify_flow_table_in, cmd->in,
				   modify_field_select);
	struct emu_fw_flow_table *ft, *miss, *old;
	enum fw_synd s;

	if (PRM_GET(modify_flow_table_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	if (PRM_GET(modify_flow_table_in, cmd->in, other_eswitch))
		return FW_SYND_FT_NOT_SUPPORTED;
	if (sel != MLX5_MODIFY_FLOW_TABLE_MISS_TABLE_ID)
		return FW_SYND_FT_BAD_MODIFY_SELECT;
	pthread_mutex_lock(&cmd->fw->steer_lock);
	s = fw_ft_own(cmd, PRM_GET(modify_flow_table_in, cmd->in, table_type),
		      PRM_GET(modify_flow_table_in, cmd->in, table_id), &ft);
	if (!s)
		s = fw_ft_miss(cmd, ft, ctx, &miss);
	if (!s) {
		old = atomic_exchange_explicit(&ft->miss, miss,
					       memory_order_acq_rel);
		/* A lookup that loaded old keeps it until its read side
		 * ends: the table's memory outlives a grace period. */
		fw_ft_unref(old);
	}
	pthread_mutex_unlock(&cmd->fw->steer_lock);
	return s;
}

enum fw_synd fw_cmd_query_flow_table(struct fw_cmd *cmd)
{
	void *ctx = PRM_ADDR_OF(query_flow_table_out, cmd->out,
				flow_table_context);
	struct emu_fw_flow_table *ft, *miss;
	enum fw_synd s;

	pthread_mutex_lock(&cmd->fw->steer_lock);
	s = fw_ft_own(cmd, PRM_GET(query_flow_table_in, cmd->in, table_type),
		      PRM_GET(query_flow_table_in, cmd->in, table_id), &ft);
	if (!s) {
		miss = atomic_load(&ft->miss);
		PRM_SET(flow_table_context, ctx, level, ft->level);
		PRM_SET(flow_table_context, ctx, log_size, ft->log_size);
		PRM_SET(flow_table_context, ctx, table_miss_action,
			miss ? MLX5_FLOW_TABLE_MISS_ACTION_FWD :
			       MLX5_FLOW_TABLE_MISS_ACTION_DEF);
		PRM_SET(flow_table_context, ctx, table_miss_id,
			miss ? miss->obj.id : 0);
	}
	pthread_mutex_unlock(&cmd->fw->steer_lock);
	return s;
}

/*
 * Refused while the table holds groups, is a root, or another table
 * misses or an entry forwards to it, each with its own syndrome.
 */
enum fw_synd fw_cmd_destroy_flow_table(struct fw_cmd *cmd)
{
	struct emu_fw_flow_table *ft;
	enum fw_synd s;

	if (PRM_GET(destroy_flow_table_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	pthread_mutex_lock(&cmd->fw->steer_lock);
	s = fw_ft_own(cmd, PRM_GET(destroy_flow_table_in, cmd->in, table_type),
		      PRM_GET(destroy_flow_table_in, cmd->in, table_id), &ft);
	if (s)
		goto out;
	if (ft->n_groups)
		s = FW_SYND_FT_HAS_GROUPS;
	else if (ft->root)
		s = FW_SYND_FT_IS_ROOT;
	else if (ft->n_refs || fw_obj_kill(&ft->obj))
		s = FW_SYND_FT_REFERENCED;
	else
		fw_obj_remove(&ft->obj);
out:
	pthread_mutex_unlock(&cmd->fw->steer_lock);
	return s;
}

/*
 * Unpublished (a DESTROY with nothing left in it, or the device going
 * away with everything still in place): drop the miss, and at teardown
 * the entries and the group list still there.
 */
void fw_ft_release(struct emu_fw_obj *obj)
{
	struct emu_fw_flow_table *ft = emu_fw_to_ft(obj);

	fw_ft_unref(atomic_exchange(&ft->miss, NULL));
	for (size_t i = 0; i < ((size_t)1 << ft->log_size); i++) {
		struct emu_fw_fte *fte = atomic_exchange(&ft->fte[i], NULL);

		if (fte)
			fw_fte_release(fte, true);
	}
	fw_groups_defer_free(atomic_exchange(&ft->groups, NULL));
}

void fw_ft_fini(struct emu_fw_obj *obj)
{
	free(emu_fw_to_ft(obj)->fte);
}
