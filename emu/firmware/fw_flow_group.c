/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_flow_group.c -- flow groups: CREATE/QUERY/DESTROY_
 * FLOW_GROUP.
 *
 * A group owns the flow indexes [start_flow_index, end_flow_index] of its
 * table (inside the table, overlapping no other group) and the match
 * criteria its entries share: match_criteria_enable names the blocks of
 * fte_match_param compared (outer headers, misc, inner headers, misc2,
 * misc3), match_criteria the mask.  A criteria bit in a block the enable
 * leaves off is refused, as mlx5_core's check_valid_mask refuses it
 * (drivers/net/ethernet/mellanox/mlx5/core/fs_core.c).  The table's group
 * list is kept in flow-index order and replaced whole, so the lookup walks
 * it without a lock.  Each group indexes its entries by a hash of their
 * masked value (the exact-match lookup a ConnectX does per group), so a
 * lookup costs one bucket per group, however many entries it holds.  A
 * group with entries cannot be destroyed.
 */
#include <stdlib.h>
#include <string.h>

#include "emu/firmware/fw_steer_int.h"

struct emu_fw_flow_group *fw_ft_group_at(const struct emu_fw_flow_table *ft,
					 uint32_t flow_index)
{
	const struct emu_fw_flow_groups *gs = atomic_load(&ft->groups);

	for (unsigned int i = 0; gs && i < gs->n; i++)
		if (gs->g[i]->start <= flow_index && flow_index <= gs->g[i]->end)
			return gs->g[i];
	return NULL;
}

/* TSan cannot see liburcu's grace period: the release before call_rcu
 * and the acquire in the callback order it, as fw_obj.c does. */
static void fw_groups_free_rcu(struct rcu_head *head)
{
	EMU_FW_TSAN_ACQUIRE();
	free(EMU_FW_OBJ_OF(head, struct emu_fw_flow_groups, rcu));
}

void fw_groups_defer_free(struct emu_fw_flow_groups *gs)
{
	if (!gs)
		return;
	EMU_FW_TSAN_RELEASE();
	call_rcu(&gs->rcu, fw_groups_free_rcu);
}

/* A copy of the list with @add inserted in order, or @del left out. */
static struct emu_fw_flow_groups *
fw_groups_copy(const struct emu_fw_flow_groups *gs,
	       struct emu_fw_flow_group *add,
	       const struct emu_fw_flow_group *del)
{
	unsigned int n = gs ? gs->n : 0, k = 0;
	struct emu_fw_flow_groups *ng;

	ng = malloc(sizeof(*ng) + (n + 1) * sizeof(ng->g[0]));
	if (!ng)
		return NULL;
	for (unsigned int i = 0; i < n; i++) {
		if (add && add->start < gs->g[i]->start) {
			ng->g[k++] = add;
			add = NULL;
		}
		if (gs->g[i] != del)
			ng->g[k++] = gs->g[i];
	}
	if (add)
		ng->g[k++] = add;
	ng->n = k;
	return ng;
}

static void fw_groups_replace(struct emu_fw_flow_table *ft,
			      struct emu_fw_flow_groups *ng)
{
	struct emu_fw_flow_groups *old;

	old = atomic_exchange_explicit(&ft->groups, ng, memory_order_acq_rel);
	fw_groups_defer_free(old);
}

/* Whether [start, end] meets a group of the table. */
static bool fw_groups_overlap(const struct emu_fw_flow_table *ft,
			      uint32_t start, uint32_t end)
{
	const struct emu_fw_flow_groups *gs = atomic_load(&ft->groups);

	for (unsigned int i = 0; gs && i < gs->n; i++)
		if (start <= gs->g[i]->end && gs->g[i]->start <= end)
			return true;
	return false;
}

/* Criteria bits only in enabled blocks (blocks 5 and 6 never are). */
static bool fw_criteria_in_enabled(const uint8_t *crit, unsigned int enable)
{
	for (unsigned int b = 0; b < EMU_FW_MATCH_BYTES / FW_STEER_BLOCK_BYTES;
	     b++) {
		if (!(enable & (1u << b)) &&
		    !fw_all_zero(crit + b * FW_STEER_BLOCK_BYTES,
				 FW_STEER_BLOCK_BYTES))
			return false;
	}
	return true;
}

static void fw_fg_set_criteria(struct emu_fw_flow_group *fg,
			       const uint8_t *crit, unsigned int enable)
{
	fg->criteria_enable = (uint8_t)enable;
	memcpy(fg->criteria, crit, sizeof(fg->criteria));
	memcpy(fg->mask, crit, sizeof(fg->mask));
	fg->nwords = 0;
	for (unsigned int w = 0; w < EMU_FW_MATCH_WORDS; w++)
		if (fg->mask[w])
			fg->word[fg->nwords++] = (uint8_t)w;
}

/* Buckets: the group's size rounded up to a power of two, at most 4096. */
static bool fw_fg_index_init(struct emu_fw_flow_group *fg)
{
	uint64_t n = (uint64_t)fg->end - fg->start + 1;
	uint32_t size = 1;

	while (size < n && size < 4096)
		size <<= 1;
	fg->hmask = size - 1;
	fg->bucket = calloc(size, sizeof(*fg->bucket));
	return fg->bucket != NULL;
}

/* Where the pointer to @fte lies in its bucket's chain (NULL: absent). */
static struct emu_fw_fte *_Atomic *fw_fg_slot(struct emu_fw_flow_group *fg,
					      const struct emu_fw_fte *fte)
{
	struct emu_fw_fte *_Atomic *p =
		&fg->bucket[fw_fg_bucket(fg, fte->masked)];
	struct emu_fw_fte *e;

	while ((e = atomic_load_explicit(p, memory_order_relaxed)) &&
	       e != fte)
		p = &e->hnext;
	return e ? p : NULL;
}

void fw_fg_link(struct emu_fw_flow_group *fg, struct emu_fw_fte *fte,
		struct emu_fw_fte *old)
{
	struct emu_fw_fte *_Atomic *p = old ? fw_fg_slot(fg, old) : NULL;

	if (p) {		/* same masked value: the same chain */
		atomic_init(&fte->hnext, atomic_load(&old->hnext));
	} else {
		p = &fg->bucket[fw_fg_bucket(fg, fte->masked)];
		atomic_init(&fte->hnext, atomic_load(p));
	}
	atomic_store_explicit(p, fte, memory_order_release);
}

void fw_fg_unlink(struct emu_fw_flow_group *fg, struct emu_fw_fte *fte)
{
	struct emu_fw_fte *_Atomic *p = fw_fg_slot(fg, fte);

	if (p)
		atomic_store_explicit(p, atomic_load(&fte->hnext),
				      memory_order_release);
}

void fw_fg_fini(struct emu_fw_obj *obj)
{
	free(emu_fw_to_fg(obj)->bucket);
}

enum fw_synd fw_cmd_create_flow_group(struct fw_cmd *cmd)
{
	const uint8_t *crit = PRM_ADDR_OF(create_flow_group_in, cmd->in,
					  match_criteria);
	unsigned int enable = PRM_GET(create_flow_group_in, cmd->in,
				      match_criteria_enable);
	uint32_t start = PRM_GET(create_flow_group_in, cmd->in,
				 start_flow_index);
	uint32_t end = PRM_GET(create_flow_group_in, cmd->in, end_flow_index);
	struct emu_fw_flow_groups *ng = NULL;
	struct emu_fw_flow_group *fg;
	struct emu_fw_flow_table *ft;
	struct emu_fw_obj *obj;
	enum fw_synd s;

	if (PRM_GET(create_flow_group_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	if (PRM_GET(create_flow_group_in, cmd->in, other_eswitch))
		return FW_SYND_FT_NOT_SUPPORTED;
	pthread_mutex_lock(&cmd->fw->steer_lock);
	s = fw_ft_own(cmd, PRM_GET(create_flow_group_in, cmd->in, table_type),
		      PRM_GET(create_flow_group_in, cmd->in, table_id), &ft);
	if (s)
		goto out;
	if (PRM_GET(create_flow_group_in, cmd->in, group_type) ||
	    PRM_GET(create_flow_group_in, cmd->in, match_definer_id) ||
	    PRM_GET(create_flow_group_in, cmd->in,
		    source_eswitch_owner_vhca_id_valid) ||
	    (enable & ~FW_STEER_MATCH_BLOCKS)) {
		s = FW_SYND_FG_BAD_CRITERIA;
		goto out;
	}
	if (!fw_criteria_in_enabled(crit, enable)) {
		s = FW_SYND_FG_CRITERIA_NOT_ENABLED;
		goto out;
	}
	if (start > end || end >= (UINT32_C(1) << ft->log_size)) {
		s = FW_SYND_FG_BAD_RANGE;
		goto out;
	}
	if (fw_groups_overlap(ft, start, end)) {
		s = FW_SYND_FG_OVERLAP;
		goto out;
	}

	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_FLOW_GROUP, &obj);
	if (s)
		goto out;
	fg = emu_fw_to_fg(obj);
	fg->ft = ft;
	fg->start = start;
	fg->end = end;
	fw_fg_set_criteria(fg, crit, enable);
	atomic_init(&fg->n_fte, 0);
	ng = fw_groups_copy(atomic_load(&ft->groups), fg, NULL);
	if (!ng || !fw_fg_index_init(fg) || !fw_obj_use(&ft->obj)) {
		free(ng);
		fw_cmd_obj_abort(obj);
		s = FW_SYND_INTERNAL_NOMEM;
		goto out;
	}
	s = fw_cmd_obj_publish(obj, FW_SYND_INTERNAL_NOMEM);
	if (s) {
		free(ng);
		fw_obj_unuse(&ft->obj);
		goto out;
	}
	ft->n_groups++;
	fw_groups_replace(ft, ng);
	PRM_SET(create_flow_group_out, cmd->out, group_id, obj->id);
out:
	pthread_mutex_unlock(&cmd->fw->steer_lock);
	return s;
}

/* The group @id of table (@type, @id) owned by cmd->uid. */
static enum fw_synd fw_fg_own(struct fw_cmd *cmd, unsigned int type,
			      uint32_t table_id, uint32_t id,
			      struct emu_fw_flow_group **fgp)
{
	struct emu_fw_flow_table *ft;
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_ft_own(cmd, type, table_id, &ft);
	if (s)
		return s;
	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_FLOW_GROUP, id, FW_SYND_FG_INVALID,
			   &obj);
	if (s)
		return s;
	emu_fw_obj_put(obj);	/* the steering lock keeps it */
	if (emu_fw_to_fg(obj)->ft != ft)
		return FW_SYND_FG_INVALID;
	*fgp = emu_fw_to_fg(obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_query_flow_group(struct fw_cmd *cmd)
{
	struct emu_fw_flow_group *fg;
	enum fw_synd s;

	pthread_mutex_lock(&cmd->fw->steer_lock);
	s = fw_fg_own(cmd, PRM_GET(query_flow_group_in, cmd->in, table_type),
		      PRM_GET(query_flow_group_in, cmd->in, table_id),
		      PRM_GET(query_flow_group_in, cmd->in, group_id), &fg);
	if (!s) {
		PRM_SET(query_flow_group_out, cmd->out, start_flow_index,
			fg->start);
		PRM_SET(query_flow_group_out, cmd->out, end_flow_index,
			fg->end);
		PRM_SET(query_flow_group_out, cmd->out, match_criteria_enable,
			fg->criteria_enable);
		memcpy(PRM_ADDR_OF(query_flow_group_out, cmd->out,
				   match_criteria),
		       fg->criteria, sizeof(fg->criteria));
	}
	pthread_mutex_unlock(&cmd->fw->steer_lock);
	return s;
}

enum fw_synd fw_cmd_destroy_flow_group(struct fw_cmd *cmd)
{
	struct emu_fw_flow_groups *ng;
	struct emu_fw_flow_group *fg;
	enum fw_synd s;

	if (PRM_GET(destroy_flow_group_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	pthread_mutex_lock(&cmd->fw->steer_lock);
	s = fw_fg_own(cmd, PRM_GET(destroy_flow_group_in, cmd->in, table_type),
		      PRM_GET(destroy_flow_group_in, cmd->in, table_id),
		      PRM_GET(destroy_flow_group_in, cmd->in, group_id), &fg);
	if (s)
		goto out;
	ng = fw_groups_copy(atomic_load(&fg->ft->groups), NULL, fg);
	if (!ng) {
		s = FW_SYND_INTERNAL_NOMEM;
		goto out;
	}
	if (fw_obj_kill(&fg->obj)) {
		free(ng);
		s = FW_SYND_FG_IN_USE;
		goto out;
	}
	fw_groups_replace(fg->ft, ng);
	fw_obj_remove(&fg->obj);
out:
	pthread_mutex_unlock(&cmd->fw->steer_lock);
	return s;
}

/* The group leaves its table (its list no longer names it). */
void fw_fg_release(struct emu_fw_obj *obj)
{
	struct emu_fw_flow_group *fg = emu_fw_to_fg(obj);

	fg->ft->n_groups--;
	fw_obj_unuse(&fg->ft->obj);
}
