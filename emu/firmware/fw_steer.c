/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_steer.c -- the function's root flow tables
 * (SET_FLOW_TABLE_ROOT) and the lookup the engine runs per frame.
 *
 * The roots start empty: a received frame with no NIC RX root reaches
 * nothing (the engine drops and counts it).  SET_FLOW_TABLE_ROOT is the
 * kernel's (uid 0; mlx5_ib does not let DEVX issue it): op_mod 0 points
 * the root of table_type at a table, op_mod 1 disconnects it
 * (reset_root_to_default).
 *
 * How a ConnectX picks the entry when several match: the groups of a
 * table are searched in flow-index order, and within a group (one mask)
 * the masked packet is an exact-match lookup, so at most one entry of a
 * group matches (entries with equal masked values are the same rule);
 * the first group with a match wins.  Here each group keeps a hash index
 * of its entries' masked values: one bucket per group and frame.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/firmware/fw_steer_int.h"

void fw_steer_init(struct emu_fw *fw)
{
	pthread_mutex_init(&fw->steer_lock, NULL);
	for (unsigned int t = 0; t < 2; t++)
		atomic_init(&fw->steer_root[t], NULL);
}

void fw_steer_fini(struct emu_fw *fw)
{
	pthread_mutex_destroy(&fw->steer_lock);
}

static void fw_root_set(struct emu_fw *fw, unsigned int type,
			struct emu_fw_flow_table *ft)
{
	struct emu_fw_flow_table *old;

	old = atomic_exchange_explicit(&fw->steer_root[type], ft,
				       memory_order_acq_rel);
	if (old) {
		old->root = false;
		fw_obj_unuse(&old->obj);
	}
}

enum fw_synd fw_cmd_set_flow_table_root(struct fw_cmd *cmd)
{
	unsigned int type = PRM_GET(set_flow_table_root_in, cmd->in,
				    table_type);
	struct emu_fw_flow_table *ft = NULL;
	enum fw_synd s = FW_SYND_OK;

	if (PRM_GET(set_flow_table_root_in, cmd->in, other_vport))
		return FW_SYND_OTHER_VPORT_NOT_SUPPORTED;
	if (PRM_GET(set_flow_table_root_in, cmd->in, other_eswitch))
		return FW_SYND_FT_NOT_SUPPORTED;
	if (!fw_steer_type_ok(cmd->fw, type))
		return FW_SYND_FT_BAD_TYPE;
	if (PRM_GET(set_flow_table_root_in, cmd->in, table_of_other_vport) ||
	    PRM_GET(set_flow_table_root_in, cmd->in, underlay_qpn) ||
	    PRM_GET(set_flow_table_root_in, cmd->in,
		    table_eswitch_owner_vhca_id_valid))
		return FW_SYND_FT_ROOT_BAD_TABLE;
	pthread_mutex_lock(&cmd->fw->steer_lock);
	if (cmd->op_mod == 0) {
		/* The kernel roots its own tables (uid 0, as the command). */
		s = fw_ft_own(cmd, type,
			      PRM_GET(set_flow_table_root_in, cmd->in,
				      table_id), &ft);
		if (s == FW_SYND_FT_INVALID)
			s = FW_SYND_FT_ROOT_BAD_TABLE;
		if (!s && !fw_obj_use(&ft->obj))
			s = FW_SYND_FT_ROOT_BAD_TABLE;
		if (!s)
			ft->root = true;
	}
	if (!s && atomic_load(&cmd->fw->steer_root[type]) != ft)
		fw_root_set(cmd->fw, type, ft);
	else if (!s && ft)	/* the same table again: one use is enough */
		fw_obj_unuse(&ft->obj);
	pthread_mutex_unlock(&cmd->fw->steer_lock);
	return s;
}

/* ---- the lookup ---- */

static bool fw_steer_match(const struct emu_fw_flow_group *fg,
			   const struct emu_fw_fte *fte, const void *pkt)
{
	for (unsigned int i = 0; i < fg->nwords; i++) {
		unsigned int w = fg->word[i];

		if ((fw_match_word(pkt, w) & fg->mask[w]) != fte->masked[w])
			return false;
	}
	return true;
}

/*
 * The first entry of @ft that matches, in flow-index order: the first
 * group with a match, and in it the lowest flow index among the entries
 * of the packet's bucket that match.
 */
static const struct emu_fw_fte *fw_steer_table(const struct emu_fw_flow_table *ft,
					       const void *pkt)
{
	const struct emu_fw_flow_groups *gs =
		atomic_load_explicit(&ft->groups, memory_order_acquire);

	for (unsigned int g = 0; gs && g < gs->n; g++) {
		const struct emu_fw_flow_group *fg = gs->g[g];
		const struct emu_fw_fte *fte, *best = NULL;

		if (!atomic_load_explicit(&fg->n_fte, memory_order_relaxed))
			continue;
		fte = atomic_load_explicit(&fg->bucket[fw_fg_bucket(fg, pkt)],
					   memory_order_acquire);
		for (; fte; fte = atomic_load_explicit(&fte->hnext,
						       memory_order_acquire))
			if (fw_steer_match(fg, fte, pkt) &&
			    (!best || fte->flow_index < best->flow_index))
				best = fte;
		if (best)
			return best;
	}
	return NULL;
}

int emu_fw_steer_lookup(struct emu_fw *fw, unsigned int vport,
			unsigned int table_type, const void *match,
			uint32_t frame_bytes, struct emu_fw_steer_res *res)
{
	const struct emu_fw_flow_table *ft;

	if (vport != 0 || table_type > MLX5_FLOW_TABLE_TYPE_NIC_TX)
		return -EINVAL;
	res->action = EMU_FW_STEER_NONE;
	res->flow_tag = 0;
	res->n_dest = 0;
	ft = atomic_load_explicit(&fw->steer_root[table_type],
				  memory_order_acquire);
	/* Levels grow along every hop: at most max level + 1 tables. */
	for (unsigned int hop = 0; ft && hop <= EMU_FW_STEER_MAX_LEVEL; hop++) {
		const struct emu_fw_fte *fte = fw_steer_table(ft, match);
		const struct emu_fw_flow_table *next = NULL;

		if (!fte) {
			ft = atomic_load_explicit(&ft->miss,
						  memory_order_acquire);
			continue;
		}
		for (unsigned int i = 0; i < fte->n_counter; i++) {
			atomic_fetch_add_explicit(&fte->counter[i]->packets, 1,
						  memory_order_relaxed);
			atomic_fetch_add_explicit(&fte->counter[i]->octets,
						  frame_bytes,
						  memory_order_relaxed);
		}
		if (fte->flow_tag)
			res->flow_tag = fte->flow_tag;
		if (fte->action & MLX5_FLOW_CONTEXT_ACTION_DROP) {
			res->action = EMU_FW_STEER_DROP;
			return 0;
		}
		if (!(fte->action & MLX5_FLOW_CONTEXT_ACTION_FWD_DEST)) {
			/* ALLOW: what the table's miss would do next. */
			res->action = EMU_FW_STEER_ALLOW;
			ft = atomic_load_explicit(&ft->miss,
						  memory_order_acquire);
			continue;
		}
		for (unsigned int i = 0; i < fte->n_dest; i++) {
			if (fte->dest[i].ft) {
				next = fte->dest[i].ft;
				continue;
			}
			if (res->n_dest == EMU_FW_STEER_MAX_DEST)
				continue;
			res->dest[res->n_dest].type = fte->dest[i].type;
			res->dest[res->n_dest].id = fte->dest[i].id;
			res->n_dest++;
		}
		if (!next) {
			res->action = EMU_FW_STEER_FWD;
			return 0;
		}
		ft = next;
	}
	return 0;
}
