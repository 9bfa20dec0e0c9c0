/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_fte.c -- flow table entries: SET_FLOW_TABLE_ENTRY
 * (op_mod 0 create, 1 modify with modify_enable_mask), QUERY_ and
 * DELETE_FLOW_TABLE_ENTRY.
 *
 * An entry sits at a flow index inside one group of its table.  Its action
 * is exactly one of ALLOW, DROP and FWD_DEST, optionally with COUNT (the
 * rest is not advertised and refused); FWD_DEST names one destination
 * (a TIR in NIC RX, or a deeper table of the same type), COUNT one flow
 * counter; the list sizes must agree with the action.  The value is kept
 * as given and compared masked by the group's criteria: a value bit
 * outside the criteria takes no part in the match.  mlx5_core refuses
 * such a value before the firmware sees it (fs_core.c check_valid_spec),
 * and DPDK's mlx5 PMD checks the same only in debug builds
 * (mlx5_flow_dv.c flow_dv_check_valid_spec), which a firmware that
 * refused it would not leave to a debug build; so the device ignores the
 * bit.  A modify builds a whole new entry and swaps it in; the replaced or
 * deleted entry is freed after a grace period, so a lookup that found it
 * finishes with it.
 */
#include <stdlib.h>
#include <string.h>

#include "emu/firmware/fw_steer_int.h"

/* Bytes of one destination or counter entry (extended destinations are
 * not advertised). */
#define FW_FTE_DEST_BYTES PRM_ST_SZ_BYTES(dest_format_struct)
#define FW_FTE_LIST_OFF \
	(PRM_BYTE_OFF(set_fte_in, flow_context) + \
	 PRM_BYTE_OFF(flow_context, destination))

enum {
	FW_FTE_FWD_ACTIONS = MLX5_FLOW_CONTEXT_ACTION_ALLOW |
			     MLX5_FLOW_CONTEXT_ACTION_DROP |
			     MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
	FW_FTE_ACTIONS = FW_FTE_FWD_ACTIONS | MLX5_FLOW_CONTEXT_ACTION_COUNT,
	FW_FTE_MODIFY_MASK =
		1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_ACTION |
		1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_FLOW_TAG |
		1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_DESTINATION_LIST |
		1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_FLOW_COUNTERS,
};

/*
 * A TIR destination must exist and be the caller's, or any uid's for the
 * kernel (uid 0), whose root rules forward to the TIRs of applications.
 * The entry holds no use of it: the TIR is looked up per frame, and one
 * destroyed meanwhile takes nothing more (as its rules must be removed
 * first on a ConnectX, and mlx5_ib removes them first).
 */
static bool fw_steer_dest_tir_ok(struct fw_cmd *cmd, uint32_t tirn)
{
	struct emu_fw_obj *o;
	bool ok;

	emu_fw_rcu_lock();
	o = emu_fw_obj_lookup_rcu(cmd->fw, EMU_FW_OBJ_TIR, tirn);
	ok = o && (!cmd->uid || o->uid == cmd->uid);
	emu_fw_rcu_unlock();
	return ok;
}

/* Writes nothing in the entry: a lookup may still be reading it. */
static void fw_fte_drop_uses(const struct emu_fw_fte *fte)
{
	for (unsigned int i = 0; i < fte->n_dest; i++)
		fw_ft_unref(fte->dest[i].ft);
	for (unsigned int i = 0; i < fte->n_counter; i++)
		fw_obj_unuse(&fte->counter[i]->obj);
}

static void fw_fte_free_rcu(struct rcu_head *head)
{
	EMU_FW_TSAN_ACQUIRE();	/* after every reader (see fw_objs.h) */
	free(EMU_FW_OBJ_OF(head, struct emu_fw_fte, rcu));
}

void fw_fte_release(struct emu_fw_fte *fte, bool now)
{
	fw_fte_drop_uses(fte);
	atomic_fetch_sub(&fte->group->n_fte, 1);
	fw_obj_unuse(&fte->group->obj);
	if (now) {
		free(fte);
	} else {
		EMU_FW_TSAN_RELEASE();
		call_rcu(&fte->rcu, fw_fte_free_rcu);
	}
}

/* Take the destination list of the mailbox (count n) into fte. */
static enum fw_synd fw_fte_take_dests(struct fw_cmd *cmd,
				      const struct emu_fw_flow_table *ft,
				      struct emu_fw_fte *fte, unsigned int n)
{
	const uint8_t *e = (const uint8_t *)cmd->in + FW_FTE_LIST_OFF;

	for (unsigned int i = 0; i < n; i++, e += FW_FTE_DEST_BYTES) {
		unsigned int type = PRM_GET(dest_format_struct, e,
					    destination_type);
		uint32_t id = PRM_GET(dest_format_struct, e, destination_id);
		struct emu_fw_flow_table *to = NULL;
		enum fw_synd s;

		if (PRM_GET(dest_format_struct, e, packet_reformat) ||
		    PRM_GET(dest_format_struct, e,
			    destination_eswitch_owner_vhca_id_valid))
			return FW_SYND_FTE_NOT_SUPPORTED;
		switch (type) {
		case MLX5_IFC_FLOW_DESTINATION_TYPE_FLOW_TABLE:
			s = fw_ft_ref(cmd, ft, id, FW_SYND_FTE_BAD_DEST, &to);
			if (s)
				return s;
			break;
		case MLX5_IFC_FLOW_DESTINATION_TYPE_TIR:
			/* TIRs receive: NIC RX only. */
			if (ft->type != MLX5_FLOW_TABLE_TYPE_NIC_RX)
				return FW_SYND_FTE_BAD_DEST_TYPE;
			if (!fw_steer_dest_tir_ok(cmd, id))
				return FW_SYND_FTE_BAD_DEST;
			break;
		default:
			/* vport, uplink, sampler...: eswitch steering, which
			 * NIC tables of this device do not reach; mlx5_ib
			 * turns a QP destination into its TIR. */
			return FW_SYND_FTE_BAD_DEST_TYPE;
		}
		fte->dest[i].type = (uint8_t)type;
		fte->dest[i].id = id;
		fte->dest[i].ft = to;
		fte->n_dest = (uint8_t)(i + 1);
	}
	return FW_SYND_OK;
}

/* The counters follow the destinations (n_dest entries of the mailbox). */
static enum fw_synd fw_fte_take_counters(struct fw_cmd *cmd,
					 struct emu_fw_fte *fte,
					 unsigned int n_dest, unsigned int n)
{
	const uint8_t *e = (const uint8_t *)cmd->in + FW_FTE_LIST_OFF +
			   (size_t)n_dest * FW_FTE_DEST_BYTES;

	for (unsigned int i = 0; i < n; i++, e += FW_FTE_DEST_BYTES) {
		struct emu_fw_obj *obj;
		enum fw_synd s;

		s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_FLOW_COUNTER,
				   PRM_GET(flow_counter_list, e,
					   flow_counter_id),
				   FW_SYND_FTE_BAD_COUNTER, &obj);
		if (s)
			return s;
		fte->counter[i] = emu_fw_to_flow_counter(obj);
		fte->n_counter = (uint8_t)(i + 1);
	}
	return FW_SYND_OK;
}

/* The action and the list sizes agree with each other and the caps. */
static enum fw_synd fw_fte_check_action(const struct emu_fw_flow_table *ft,
					unsigned int action, unsigned int n_dest,
					unsigned int n_counter)
{
	unsigned int fwd = action & FW_FTE_FWD_ACTIONS;

	if ((action & ~FW_FTE_ACTIONS) || !fwd || (fwd & (fwd - 1)))
		return FW_SYND_FTE_BAD_ACTION;
	if ((fwd == MLX5_FLOW_CONTEXT_ACTION_FWD_DEST) !=
	    (n_dest != 0) || n_dest > EMU_FW_STEER_MAX_DEST)
		return FW_SYND_FTE_BAD_LIST_SIZE;
	if (!!(action & MLX5_FLOW_CONTEXT_ACTION_COUNT) != (n_counter != 0) ||
	    n_counter > EMU_FW_STEER_MAX_COUNTERS)
		return FW_SYND_FTE_BAD_LIST_SIZE;
	if ((action & MLX5_FLOW_CONTEXT_ACTION_COUNT) &&
	    !FW_CAP_NIC_FT(ft->obj.fw, ft->type, flow_counter))
		return FW_SYND_FTE_BAD_ACTION;
	return FW_SYND_OK;
}

/* What the flow context asks for that this device does not advertise. */
static bool fw_fte_ctx_unsupported(const void *fc)
{
	return PRM_GET(flow_context, fc, extended_destination) ||
	       PRM_GET(flow_context, fc, uplink_hairpin_en) ||
	       PRM_GET(flow_context, fc, flow_source) ||
	       PRM_GET(flow_context, fc, encrypt_decrypt_type) ||
	       PRM_GET(flow_context, fc, packet_reformat_id) ||
	       PRM_GET(flow_context, fc, modify_header_id) ||
	       PRM_GET(flow_context, fc, encrypt_decrypt_obj_id);
}

/*
 * Build the entry SET_FLOW_TABLE_ENTRY describes (@old: the entry a modify
 * replaces), taking its uses; nothing is held on failure.
 */
static enum fw_synd fw_fte_build(struct fw_cmd *cmd,
				 struct emu_fw_flow_table *ft,
				 struct emu_fw_flow_group *fg,
				 const struct emu_fw_fte *old,
				 struct emu_fw_fte **ftep)
{
	const void *fc = PRM_ADDR_OF(set_fte_in, cmd->in, flow_context);
	unsigned int mask = old ? PRM_GET(set_fte_in, cmd->in,
					  modify_enable_mask) : ~0u;
	bool new_action = mask & 1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_ACTION;
	bool new_dest = mask &
		1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_DESTINATION_LIST;
	bool new_cnt = mask & 1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_FLOW_COUNTERS;
	unsigned int action, n_dest, n_cnt, mb_dest;
	struct emu_fw_fte *fte;
	enum fw_synd s;

	if (fw_fte_ctx_unsupported(fc))
		return FW_SYND_FTE_NOT_SUPPORTED;
	action = new_action ? PRM_GET(flow_context, fc, action) : old->action;
	n_dest = new_dest ? PRM_GET(flow_context, fc, destination_list_size) :
			    old->n_dest;
	n_cnt = new_cnt ? PRM_GET(flow_context, fc, flow_counter_list_size) :
			  old->n_counter;
	s = fw_fte_check_action(ft, action, n_dest, n_cnt);
	if (s)
		return s;
	/* The lists read must lie in the mailbox: destinations first, the
	 * counters after the mailbox's destinations. */
	mb_dest = new_dest ? n_dest :
		  new_cnt ? PRM_GET(flow_context, fc, destination_list_size) : 0;
	if (cmd->inlen < FW_FTE_LIST_OFF +
	    ((size_t)mb_dest + (new_cnt ? n_cnt : 0)) * FW_FTE_DEST_BYTES)
		return FW_SYND_FTE_BAD_LIST_SIZE;

	fte = calloc(1, sizeof(*fte));
	if (!fte)
		return FW_SYND_INTERNAL_NOMEM;
	fte->group = fg;
	fte->flow_index = PRM_GET(set_fte_in, cmd->in, flow_index);
	fte->action = (uint16_t)action;
	fte->flow_tag = mask & 1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_FLOW_TAG ?
			PRM_GET(flow_context, fc, flow_tag) : old->flow_tag;
	if (old) {
		memcpy(fte->value, old->value, sizeof(fte->value));
	} else {
		memcpy(fte->value, PRM_ADDR_OF(flow_context, fc, match_value),
		       sizeof(fte->value));
	}
	memcpy(fte->masked, fte->value, sizeof(fte->masked));
	for (unsigned int w = 0; w < EMU_FW_MATCH_WORDS; w++)
		fte->masked[w] &= fg->mask[w];

	if (new_dest) {
		s = fw_fte_take_dests(cmd, ft, fte, n_dest);
	} else {
		for (unsigned int i = 0; i < old->n_dest; i++) {
			fte->dest[i] = old->dest[i];
			if (fte->dest[i].ft) {
				/* still referenced by old: cannot fail */
				fw_obj_use(&fte->dest[i].ft->obj);
				fte->dest[i].ft->n_refs++;
			}
			fte->n_dest = (uint8_t)(i + 1);
		}
	}
	if (!s && new_cnt) {
		/* Counters follow the list the mailbox carries. */
		s = fw_fte_take_counters(cmd, fte, mb_dest, n_cnt);
	} else if (!s) {
		for (unsigned int i = 0; i < old->n_counter; i++) {
			fte->counter[i] = old->counter[i];
			fw_obj_use(&fte->counter[i]->obj);
			fte->n_counter = (uint8_t)(i + 1);
		}
	}
	if (s) {
		fw_fte_drop_uses(fte);
		free(fte);
		return s;
	}
	*ftep = fte;
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_set_fte(struct fw_cmd *cmd)
{
	uint32_t index = PRM_GET(set_fte_in, cmd->in, flow_index);
	const void *fc = PRM_ADDR_OF(set_fte_in, cmd->in, flow_context);
	bool modify = cmd->op_mod == 1;
	struct emu_fw_fte *fte = NULL, *old;
	struct emu_fw_flow_group *fg;
	struct emu_fw_flow_table *ft;
	enum fw_synd s;

	if (PRM_GET(set_fte_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	if (PRM_GET(set_fte_in, cmd->in, other_eswitch) ||
	    PRM_GET(set_fte_in, cmd->in, ignore_flow_level))
		return FW_SYND_FTE_NOT_SUPPORTED;
	pthread_mutex_lock(&cmd->fw->steer_lock);
	s = fw_ft_own(cmd, PRM_GET(set_fte_in, cmd->in, table_type),
		      PRM_GET(set_fte_in, cmd->in, table_id), &ft);
	if (s)
		goto out;
	fg = index >> ft->log_size ? NULL : fw_ft_group_at(ft, index);
	if (!fg || fg->obj.id != PRM_GET(flow_context, fc, group_id)) {
		s = FW_SYND_FTE_BAD_INDEX;
		goto out;
	}
	old = atomic_load(&ft->fte[index]);
	if (modify) {
		unsigned int mask = PRM_GET(set_fte_in, cmd->in,
					    modify_enable_mask);

		if (!old) {
			s = FW_SYND_FTE_INVALID;
			goto out;
		}
		if (!mask || (mask & ~FW_FTE_MODIFY_MASK) ||
		    !FW_CAP_NIC_FT(cmd->fw, ft->type, flow_modify_en)) {
			s = FW_SYND_FTE_BAD_MODIFY_MASK;
			goto out;
		}
	} else if (old) {
		s = FW_SYND_FTE_EXISTS;
		goto out;
	}
	s = fw_fte_build(cmd, ft, fg, modify ? old : NULL, &fte);
	if (s)
		goto out;
	/* Commit: the entry is whole before a lookup can load it. */
	fw_obj_use(&fg->obj);	/* live: we hold the steering lock */
	atomic_fetch_add(&fg->n_fte, 1);
	atomic_store_explicit(&ft->fte[index], fte, memory_order_release);
	fw_fg_link(fg, fte, old);
	if (old)
		fw_fte_release(old, false);
out:
	pthread_mutex_unlock(&cmd->fw->steer_lock);
	return s;
}

/* The entry at the mailbox's (table_type, table_id, flow_index). */
static enum fw_synd fw_fte_find(struct fw_cmd *cmd, unsigned int type,
				uint32_t table_id, uint32_t index,
				struct emu_fw_flow_table **ftp,
				struct emu_fw_fte **ftep)
{
	struct emu_fw_flow_table *ft;
	enum fw_synd s = fw_ft_own(cmd, type, table_id, &ft);

	if (s)
		return s;
	if (index >> ft->log_size || !atomic_load(&ft->fte[index]))
		return FW_SYND_FTE_INVALID;
	*ftp = ft;
	*ftep = atomic_load(&ft->fte[index]);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_query_fte(struct fw_cmd *cmd)
{
	void *fc = PRM_ADDR_OF(query_fte_out, cmd->out, flow_context);
	struct emu_fw_flow_table *ft;
	struct emu_fw_fte *fte;
	uint8_t *e;
	enum fw_synd s;

	pthread_mutex_lock(&cmd->fw->steer_lock);
	s = fw_fte_find(cmd, PRM_GET(query_fte_in, cmd->in, table_type),
			PRM_GET(query_fte_in, cmd->in, table_id),
			PRM_GET(query_fte_in, cmd->in, flow_index), &ft, &fte);
	if (s)
		goto out;
	if (cmd->outlen < PRM_ST_SZ_BYTES(query_fte_out) +
	    ((size_t)fte->n_dest + fte->n_counter) * FW_FTE_DEST_BYTES) {
		s = FW_SYND_BAD_OUTLEN;
		goto out;
	}
	PRM_SET(flow_context, fc, group_id, fte->group->obj.id);
	PRM_SET(flow_context, fc, flow_tag, fte->flow_tag);
	PRM_SET(flow_context, fc, action, fte->action);
	PRM_SET(flow_context, fc, destination_list_size, fte->n_dest);
	PRM_SET(flow_context, fc, flow_counter_list_size, fte->n_counter);
	memcpy(PRM_ADDR_OF(flow_context, fc, match_value), fte->value,
	       sizeof(fte->value));
	e = (uint8_t *)fc + PRM_BYTE_OFF(flow_context, destination);
	for (unsigned int i = 0; i < fte->n_dest; i++, e += FW_FTE_DEST_BYTES) {
		PRM_SET(dest_format_struct, e, destination_type,
			fte->dest[i].type);
		PRM_SET(dest_format_struct, e, destination_id, fte->dest[i].id);
	}
	for (unsigned int i = 0; i < fte->n_counter; i++,
	     e += FW_FTE_DEST_BYTES)
		PRM_SET(flow_counter_list, e, flow_counter_id,
			fte->counter[i]->obj.id);
out:
	pthread_mutex_unlock(&cmd->fw->steer_lock);
	return s;
}

enum fw_synd fw_cmd_delete_fte(struct fw_cmd *cmd)
{
	uint32_t index = PRM_GET(delete_fte_in, cmd->in, flow_index);
	struct emu_fw_flow_table *ft;
	struct emu_fw_fte *fte;
	enum fw_synd s;

	if (PRM_GET(delete_fte_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	pthread_mutex_lock(&cmd->fw->steer_lock);
	s = fw_fte_find(cmd, PRM_GET(delete_fte_in, cmd->in, table_type),
			PRM_GET(delete_fte_in, cmd->in, table_id), index, &ft,
			&fte);
	if (!s) {
		atomic_store_explicit(&ft->fte[index], NULL,
				      memory_order_release);
		fw_fg_unlink(fte->group, fte);
		fw_fte_release(fte, false);
	}
	pthread_mutex_unlock(&cmd->fw->steer_lock);
	return s;
}
